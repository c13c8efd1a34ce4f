/*
 * sectorio.h - reading whole solved sectors into memory for the solver and
 * the verifier, in parallel ranges, through libmmtb; and the allocator for
 * their large, randomly accessed arrays.
 */
#ifndef MMTB_SECTORIO_H
#define MMTB_SECTORIO_H

#include "vcode.h"

#include <stddef.h>

#include "mmtb.h"

/*
 * Read the values and depths of slots [first, end) of sector s from tb,
 * coded a byte a slot (vcode.h), into code[first..end) (indexed by slot as
 * for the whole sector; OpenMP threads each with their own libmmtb
 * context), the depths too deep for the byte listed in *deep (allocated here, sorted by slot; the
 * caller frees deep->e).  Returns MMTB_OK, MMTB_ERR_CORRUPT when a value's
 * depth has the wrong parity for it (a table of another depth convention),
 * MMTB_ERR_NOMEM or the reader's error (MMTB_ERR_UNSUPPORTED for a packed
 * sector, whose wins' depths are not stored); on a reader's error its
 * message goes to why (may be NULL).
 */
int gen_read_coded(mmtb_tb *tb, struct mmtb_sector s, uint64_t first, uint64_t end,
                   uint8_t *code, struct vdeep *deep, char *why, size_t whylen);

/* The block cache of each thread's probe context where the pairs with
 * state (init.c) and their verifier read solved sectors through mmtb_probe:
 * successors land at random, so the default 4 MiB cache decompresses a
 * block for nearly every probe. */
#define GEN_PROBE_CACHE ((size_t)64 << 20)

#endif
