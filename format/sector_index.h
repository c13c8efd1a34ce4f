/*
 * sector_index.h - sectors and the dense index of the positions of a sector,
 * reduced by the board's symmetries (scheme described in format/FORMAT.md,
 * "Index scheme 1").  Also the sector graph of a variant: which sectors a
 * game needs and the order in which they can be solved.  Pure functions on
 * immutable tables; an mmtb_index is safe to share between threads.
 */
#ifndef MMTB_SECTOR_INDEX_H
#define MMTB_SECTOR_INDEX_H

#include "variant.h"

#define MMTB_INDEX_SCHEME 1

typedef struct mmtb_index mmtb_index;

/*
 * Build the index tables of a variant for sectors with at most max_stones
 * stones of one colour on the board (tables for every k-subset of the board,
 * k <= max_stones: a few MiB for the 24-point boards).  Returns MMTB_OK,
 * MMTB_ERR_NOMEM, or MMTB_ERR_UNSUPPORTED when the tables would be too large.
 */
int mmtb_index_create(mmtb_index **out, const struct mmtb_variant *v, int max_stones);
void mmtb_index_free(mmtb_index *ix);
const struct mmtb_variant *mmtb_index_variant(const mmtb_index *ix);

/* Index slots of a sector (canonical positions plus the few non-canonical
 * slots the scheme wastes). */
uint64_t mmtb_index_slots(const mmtb_index *ix, struct mmtb_sector s);

/* Positions of a sector without symmetry reduction: C(n,w) * C(n-w,b). */
uint64_t mmtb_index_positions(const struct mmtb_variant *v, struct mmtb_sector s);

/* Canonical positions (orbits of the symmetry group), by Burnside's lemma. */
uint64_t mmtb_index_canonical(const struct mmtb_variant *v, struct mmtb_sector s);

/*
 * Rank: the slot of the position (mover, opp) of sector s; every symmetric
 * image of a position has the same slot.  popcount(mover) must be s.w and
 * popcount(opp) s.b, disjoint.
 */
uint64_t mmtb_index_rank(const mmtb_index *ix, struct mmtb_sector s, uint32_t mover,
                         uint32_t opp);

/* Unrank: the canonical representative stored in a slot. */
void mmtb_index_unrank(const mmtb_index *ix, struct mmtb_sector s, uint64_t slot,
                       uint32_t *mover, uint32_t *opp);

/* True when a slot holds a canonical position (rank(unrank(slot)) == slot);
 * false for the wasted slots. */
bool mmtb_index_slot_is_canonical(const mmtb_index *ix, struct mmtb_sector s, uint64_t slot);

/*
 * Sector graph.  mmtb_sector_moves_to lists the sectors one move from s
 * leads to (quiet moves, captures, passes; terminal results are left out)
 * and returns their count (at most 8).
 */
int mmtb_sector_moves_to(const struct mmtb_variant *v, struct mmtb_sector s,
                         struct mmtb_sector out[8]);

/*
 * The sectors a game needs, in an order in which each sector comes after
 * every sector it leads to, except its own partner (w,b,wh,bh) <-> (b,w,bh,wh),
 * which comes right next to it.  start_w_hand/start_b_hand: stones in hand
 * at the start (the variant's own start is stones, stones).  With
 * start_w_hand = start_b_hand = 0 the result is every movement sector with
 * min_stones..max_stones a side (max_stones <= 0 means the variant's stones).
 * Returns the count, or MMTB_ERR_INVALID when cap is too small.
 */
int mmtb_sector_list(const struct mmtb_variant *v, int start_w_hand, int start_b_hand,
                     int max_stones, struct mmtb_sector *out, int cap);

/* "w-b" for movement sectors, "w-b-wh-bh" otherwise. */
int mmtb_sector_format(struct mmtb_sector s, char *buf, size_t len);
int mmtb_sector_parse(const char *text, struct mmtb_sector *s);

#endif
