/*
 * held.h - solved sectors held whole in memory for the pairs whose
 * positions carry state (deps.c, init.c) and their verifier (verify.c):
 * values and depths read through
 * libmmtb once, then looked up by position at memory speed, where a probe
 * per look-up would decompress a block for nearly every successor.
 * Private to gen/.
 */
#ifndef MMTB_HELD_H
#define MMTB_HELD_H

#include <stdbool.h>
#include <stdint.h>

#include "ban_index.h"
#include "mmtb.h"
#include "vcode.h"

#define HELD_MAX 16

/* One solved sector in memory: its values and depths a byte a slot
 * (vcode.h), and its index with the state its positions carry (bx) when
 * mmtb_ban_index_applies, else NULL (plain sector index). */
struct held_sector {
    struct mmtb_sector s;
    mmtb_ban_index *bx;
    uint64_t slots;
    uint8_t *code;
    struct vdeep deep;
};

/* A set of them; zero-initialise before the first held_load. */
struct held {
    struct held_sector h[HELD_MAX];
    int n;
};

/*
 * Read sector s of tb whole into the set, unless it is there already.
 * Returns MMTB_OK, MMTB_ERR_NOMEM, MMTB_ERR_INVALID when the set is full,
 * or the reader's error (gen_read_coded; its message in why).  Not thread-safe (it reads in
 * parallel itself).
 */
int held_load(struct held *h, mmtb_tb *tb, const mmtb_index *ix, struct mmtb_sector s,
              char *why, size_t whylen);

/* The held sector s, or NULL. */
const struct held_sector *held_find(const struct held *h, struct mmtb_sector s);

/* The slot of position p in its held sector hs (its restrictions or owner
 * ranked when hs has them). */
uint64_t held_slot(const struct held_sector *hs, const mmtb_index *ix, const struct mmtb_pos *p);

/*
 * The value of q, a position that is not over by the rules: from the held
 * sectors, or through mmtb_probe with ctx when q's sector is not held or q
 * is one no table stores (Shah's opening: the first-mill owner to remove,
 * no stones in hand); MMTB_ERR_MISSING when that is needed and ctx is
 * NULL.  Thread-safe for a set no one loads
 * into meanwhile, each thread with its own ctx.
 */
int held_value(const struct held *h, const mmtb_index *ix, mmtb_ctx *ctx, const struct mmtb_pos *q,
               struct mmtb_value *val);

/*
 * Where held_value finds q: its held sector, with the slot in *slot, or
 * NULL when q's value has to be probed (its sector not held, or Shah's
 * opening).  With held_read, lets a caller start the look-ups of all of a
 * position's successors (cache misses in arrays of gigabytes) before it
 * uses any.
 */
const struct held_sector *held_locate(const struct held *h, const mmtb_index *ix,
                                      const struct mmtb_pos *q, uint64_t *slot);

/* The value held in a slot located by held_locate. */
static inline void held_read(const struct held_sector *hs, uint64_t slot, struct mmtb_value *val)
{
    uint8_t c = hs->code[slot];
    int w = vc_wdl(c);
    val->wdl = w == 2 ? MMTB_WIN : w == 0 ? MMTB_LOSS : MMTB_DRAW;
    val->dtw = w == 1 ? -1 : vc_depth(c, &hs->deep, slot);
}

/* Release every sector of the set and empty it. */
void held_free(struct held *h);

#endif
