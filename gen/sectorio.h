/*
 * sectorio.h - reading whole solved sectors into memory for the solver and
 * the verifier, in parallel ranges, through libmmtb.
 */
#ifndef MMTB_SECTORIO_H
#define MMTB_SECTORIO_H

#include "mmtb.h"

/*
 * Read all `slots` values of sector s from tb into wdl (1 byte per slot:
 * 0 loss, 1 draw, 2 win) and, when dtc is not NULL, the depths.  OpenMP
 * threads each use their own libmmtb context.  Returns MMTB_OK or the first
 * error met.
 */
int gen_read_sector(mmtb_tb *tb, struct mmtb_sector s, uint64_t slots, uint8_t *wdl,
                    uint16_t *dtc);

#endif
