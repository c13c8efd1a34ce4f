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
 * stones of the side to move on the board (tables for every k-subset of the
 * board, k <= max_stones; max_stones above the board size means the board
 * size): 11.7 MiB for nine with 9, 44 MiB for twelve with 12.
 * The variant must outlive the index.  Returns MMTB_OK (*out set),
 * MMTB_ERR_INVALID (bad variant or max_stones < 0), MMTB_ERR_NOMEM, or
 * MMTB_ERR_UNSUPPORTED when the tables would be too large (more than 2^27
 * subsets or 2^24 canonical subsets of one size); *out is NULL on failure.
 */
int mmtb_index_create(mmtb_index **out, const struct mmtb_variant *v, int max_stones);
void mmtb_index_free(mmtb_index *ix);
const struct mmtb_variant *mmtb_index_variant(const mmtb_index *ix);

/*
 * Testing and benchmarking aid: with portable = true, rank and unrank use
 * only the table-driven code even where the CPU's BMI2 pext/pdep would be
 * used; with false, the automatic choice again.  Results are identical
 * either way.  Not thread-safe: call before the index is shared.  Returns
 * true when the BMI2 code is in use afterwards.
 */
bool mmtb_index_set_portable(mmtb_index *ix, bool portable);

/* Index slots of a sector (canonical positions plus the few non-canonical
 * slots the scheme wastes): |canonical w-subsets| * C(n-w, b).  0 when the
 * index cannot address the sector (w > max_stones, or w + b > n).  Stones in
 * hand do not matter. */
uint64_t mmtb_index_slots(const mmtb_index *ix, struct mmtb_sector s);

/* Positions of a sector without symmetry reduction: C(n,w) * C(n-w,b). */
uint64_t mmtb_index_positions(const struct mmtb_variant *v, struct mmtb_sector s);

/* Canonical positions (orbits of the symmetry group), by Burnside's lemma. */
uint64_t mmtb_index_canonical(const struct mmtb_variant *v, struct mmtb_sector s);

/*
 * Rank: the slot of the position (mover, opp) of sector s; every symmetric
 * image of a position has the same slot.  popcount(mover) must be s.w and
 * popcount(opp) s.b, disjoint, on the board, and s.w <= max_stones: this is
 * the solver's hot path and checks nothing.
 */
uint64_t mmtb_index_rank(const mmtb_index *ix, struct mmtb_sector s, uint32_t mover,
                         uint32_t opp);

/*
 * Rank as above, and *nstab = the number of symmetries (the identity
 * included) that map the position to itself: 1 for most positions, at most
 * the group's order.  The orbit of the position has |G| / *nstab elements.
 * The solver needs it to relate move counts between orbits.  Same
 * preconditions and thread safety as mmtb_index_rank.
 */
uint64_t mmtb_index_rank_stab(const mmtb_index *ix, struct mmtb_sector s, uint32_t mover,
                              uint32_t opp, int *nstab);

/*
 * Rank as above, and the representative stored in the slot (what
 * mmtb_index_unrank gives back), found on the way without unranking: the
 * image of (mover, opp) under a symmetry, *sym, which is the only one that
 * maps the position there; -1 when the representative's mover set has
 * symmetries of its own, so that others may too.  Same preconditions.
 */
uint64_t mmtb_index_rank_rep(const mmtb_index *ix, struct mmtb_sector s, uint32_t mover,
                             uint32_t opp, uint32_t *rep_mover, uint32_t *rep_opp, int *sym);

/*
 * out[k] = mmtb_index_rank_stab(ix, s, movers[k], opps[k], &nstab[k]) for
 * k < n, with the look-ups of several positions in flight at once (the
 * solver ranks all predecessors of a position together).
 */
void mmtb_index_rank_stab_many(const mmtb_index *ix, struct mmtb_sector s,
                               const uint32_t *movers, const uint32_t *opps, int n,
                               uint64_t *out, int *nstab);

/*
 * Ranks of n positions of sector s with one side to move:
 * out[k] = mmtb_index_rank(ix, s, mover, opps[k]) for k < n.  The mover's
 * canonical set is looked up once (the placements of one position all lead
 * to positions whose side to move is its opponent).  Same preconditions
 * for every opps[k].
 */
void mmtb_index_rank_same_mover(const mmtb_index *ix, struct mmtb_sector s, uint32_t mover,
                                const uint32_t *opps, int n, uint64_t *out);

/*
 * The block of a canonical mover set, for callers that walk a block of
 * positions and want the slots of their one-stone extensions without
 * ranking each.  When `mover` is its own canonical form and no symmetry
 * but the identity maps it to itself, returns the first slot of its block
 * in sector s (the positions (mover, o) for every o of s.b points);
 * otherwise UINT64_MAX.  s.w must be popcount(mover) and <= max_stones.
 */
uint64_t mmtb_index_plain_block(const mmtb_index *ix, struct mmtb_sector s, uint32_t mover);

/*
 * For such a mover set: out[k] = the slot, relative to its block, of
 * (mover, opp | 1 << p) for the k-th lowest point p of add (add and opp
 * disjoint, neither meeting mover).  Returns popcount(add).  Cheaper than
 * ranking each: the colex sums of opp's points below and above p are
 * carried from one p to the next.
 */
int mmtb_index_rank_added(const mmtb_index *ix, uint32_t mover, uint32_t opp, uint32_t add,
                          uint32_t *out);

/*
 * Ranking in two steps, for many positions that share their side to move:
 * the mover set's look-up, symmetry and stabilizer once
 * (mmtb_index_mover_prepare), then each opponent set
 * (mmtb_index_rank_prepared gives what mmtb_index_rank gives).  Same
 * preconditions as mmtb_index_rank.
 */
struct mmtb_index_mover {
    uint64_t base;  /* the first slot of the canonical mover set's block */
    uint64_t stab;  /* the symmetries fixing the canonical set (bit g), 0: none */
    uint32_t free_; /* the points off the canonical set */
    int g;          /* a symmetry taking the mover set to the canonical one */
};
void mmtb_index_mover_prepare(const mmtb_index *ix, struct mmtb_sector s, uint32_t mover,
                              struct mmtb_index_mover *m);
uint64_t mmtb_index_rank_prepared(const mmtb_index *ix, const struct mmtb_index_mover *m,
                                  uint32_t opp);

/* Unrank: the position stored in a slot < mmtb_index_slots(ix, s): for a
 * canonical slot the representative of its orbit (rank gives the slot back),
 * for a wasted slot a position that ranks elsewhere. */
void mmtb_index_unrank(const mmtb_index *ix, struct mmtb_sector s, uint64_t slot,
                       uint32_t *mover, uint32_t *opp);

/* True when a slot holds a canonical position (rank(unrank(slot)) == slot);
 * false for the wasted slots. */
bool mmtb_index_slot_is_canonical(const mmtb_index *ix, struct mmtb_sector s, uint64_t slot);

/*
 * Sequential walk over the slots [first, end) of a sector, much cheaper per
 * slot than mmtb_index_unrank: inside one canonical mover set the opponent
 * sets follow colex order, which is increasing mask order, so each step is
 * one "next subset with the same popcount" and one deposit.
 */
struct mmtb_index_iter {
    const mmtb_index *ix;
    struct mmtb_sector s;
    uint64_t slot, end; /* next slot to return, end of the walk */
    uint32_t ci;        /* canonical mover set index of `slot` */
    uint32_t mover, empty, x, xend;
    uint64_t stab;
    int nstab; /* order of the stabilizer of the position last returned */
};

/* Start a walk; first <= end <= mmtb_index_slots(ix, s). */
void mmtb_index_iter_start(struct mmtb_index_iter *it, const mmtb_index *ix,
                           struct mmtb_sector s, uint64_t first, uint64_t end);

/* The next slot: its number, the position stored there (as unrank) and
 * whether it is canonical.  Returns false when the walk is over.  For a
 * canonical slot, it->nstab is then the order of the position's stabilizer
 * (as mmtb_index_rank_stab gives it). */
bool mmtb_index_iter_next(struct mmtb_index_iter *it, uint64_t *slot, uint32_t *mover,
                          uint32_t *opp, bool *canonical);

/* Advance a walk so that the next slot it returns is `slot` (from the
 * current next slot up to the end): a few steps when it is near, a fresh
 * start otherwise.  For visiting sparse slots in increasing order without
 * a full unrank each. */
void mmtb_index_iter_skip_to(struct mmtb_index_iter *it, uint64_t slot);

/*
 * Sector graph.  mmtb_sector_moves_to lists the sectors one move from s
 * leads to (quiet moves, captures, passes; terminal results are left out)
 * and returns their count (at most 8).  Successors are written side to move
 * first, so the roles swap: a placement gives (b, w+1, bh, wh-1), a
 * movement or a pass (b, w, bh, wh), a capture (and Shah's opening
 * removal) one stone fewer for the old opponent.  A capture needs a mill's worth of the mover's stones on the
 * board; results where the new side to move has fewer than min_stones on
 * board and in hand are wins and left out.
 */
int mmtb_sector_moves_to(const struct mmtb_variant *v, struct mmtb_sector s,
                         struct mmtb_sector out[8]);

/*
 * The sectors a game needs, in an order in which each sector comes after
 * every sector it leads to, except its own partner (w,b,wh,bh) <-> (b,w,bh,wh),
 * which comes right next to it.  start_w_hand/start_b_hand: stones in hand
 * at the start (the variant's own start is stones, stones); the result is
 * every sector reachable from (0, 0, start_w_hand, start_b_hand) through
 * mmtb_sector_moves_to, that start last; max_stones is then ignored.  With
 * start_w_hand = start_b_hand = 0 the result is every movement sector with
 * min_stones..max_stones a side (max_stones <= 0 means the variant's stones).
 * Order: stones on board and in hand ascending, then stones in hand
 * ascending, partners together with the one with w >= b first.
 * Returns the count, MMTB_ERR_INVALID when cap is too small or a hand is
 * outside 0..255, or MMTB_ERR_NOMEM.
 */
int mmtb_sector_list(const struct mmtb_variant *v, int start_w_hand, int start_b_hand,
                     int max_stones, struct mmtb_sector *out, int cap);

/* "w-b" for movement sectors, "w-b-wh-bh" otherwise.  format returns the
 * length written (like snprintf) or MMTB_ERR_INVALID when buf is too small;
 * parse accepts both forms (numbers 0..32, no signs, no leading zeros,
 * nothing around) and returns MMTB_OK or MMTB_ERR_PARSE. */
int mmtb_sector_format(struct mmtb_sector s, char *buf, size_t len);
int mmtb_sector_parse(const char *text, struct mmtb_sector *s);

#endif
