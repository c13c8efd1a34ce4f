/*
 * ban_index.h - the index of one sector whose positions carry state beyond
 * the stones: Twelve Men's re-close restrictions (no_reclose: "Index scheme
 * 1 with restrictions" of format/FORMAT.md) or Shah's first-mill owner in
 * the placement phase (first_mill_removal: "Index scheme 1 with the
 * first-mill owner").  Built on the sector index (sector_index.h) and the
 * rules of movegen.h; pure functions, an mmtb_ban_index is safe to share
 * between threads (one opened from a count table fills its per-block
 * cache atomically).
 *
 * Restrictions: slots [0, base) are the sector's scheme 1 slots, the
 * positions without a restriction; slots [base, slots) list, canonical
 * position by canonical position, the combinations of live restrictions
 * (at least one set).  Built from the positions
 * (mmtb_ban_index_create: a walk over the sector) or opened from a
 * file's count table (mmtb_ban_index_open: nothing walked).
 *
 * First-mill owner: slots [0, base) are the scheme 1 slots, each holding
 * its position with the owner the board implies (none without a mill, the
 * side with a mill when one side has one, the side to move when both
 * have); slots [base, 2 * base) hold the same positions with the
 * opponent as the owner, used where both sides have a mill.
 */
#ifndef MMTB_BAN_INDEX_H
#define MMTB_BAN_INDEX_H

#include "sector_index.h"

typedef struct mmtb_ban_index mmtb_ban_index;

/* True when the positions of sector s of variant v carry such state, so
 * that its table is numbered by this index: every sector of a no_reclose
 * variant, the placement sectors (a hand not empty) of a
 * first_mill_removal variant. */
bool mmtb_ban_index_applies(const struct mmtb_variant *v, struct mmtb_sector s);

/*
 * Build the index of sector s: with restrictions one walk over its scheme
 * 1 slots, one byte per slot plus 8 per 256 slots; with the first-mill
 * owner nothing per slot.  ix must outlive it.  Returns MMTB_OK (*out
 * set), MMTB_ERR_INVALID (mmtb_ban_index_applies is false for s, or ix
 * cannot address s), MMTB_ERR_NOMEM, or
 * MMTB_ERR_UNSUPPORTED (a position with more than 255 restriction
 * combinations, or a board with more than MMTB_MAX_BANS directed edges).
 */
int mmtb_ban_index_create(mmtb_ban_index **out, const mmtb_index *ix, struct mmtb_sector s);

/*
 * The same build in parts, so that a caller with threads can walk
 * disjoint ranges of the scheme 1 slots at once (this library starts
 * none): _begin allocates the index (*out; statuses as above), _range
 * counts slots [lo, hi) (lo a multiple of MMTB_BAN_CREATE_ALIGN, hi one
 * too or the base; MMTB_ERR_INVALID otherwise, MMTB_ERR_UNSUPPORTED as
 * above), and _end, once every slot is counted, sums them; only then is
 * the index usable.  Ranges may run on different threads; _end after
 * all of them.  For a first-mill index (nothing per slot) _range and _end
 * do nothing.  mmtb_ban_index_create is _begin, one _range over
 * [0, base) and _end.
 */
#define MMTB_BAN_CREATE_ALIGN 256u
int mmtb_ban_index_create_begin(mmtb_ban_index **out, const mmtb_index *ix,
                                struct mmtb_sector s);
int mmtb_ban_index_create_range(mmtb_ban_index *bx, uint64_t lo, uint64_t hi);
void mmtb_ban_index_create_end(mmtb_ban_index *bx);
void mmtb_ban_index_free(mmtb_ban_index *bx);

/* Blocks of 2^log2 scheme 1 slots for a count table (FORMAT.md, "Count
 * table"): the writer's default and the bounds. */
#define MMTB_BAN_BLOCK_LOG2 10
#define MMTB_BAN_MIN_BLOCK_LOG2 8
#define MMTB_BAN_MAX_BLOCK_LOG2 22

/* The number of blocks of 2^log2 scheme 1 slots: ceil(base / 2^log2). */
uint64_t mmtb_ban_index_blocks(const mmtb_ban_index *bx, int log2);

/*
 * The count table of an index built by mmtb_ban_index_create with
 * restrictions: out[k] = the restriction slots owned by scheme 1 slots
 * [k * 2^log2, (k + 1) * 2^log2), for the mmtb_ban_index_blocks(bx, log2)
 * blocks.  MMTB_ERR_INVALID for a first-mill index, an index opened by
 * mmtb_ban_index_open, or log2 outside the bounds.
 */
int mmtb_ban_index_block_counts(const mmtb_ban_index *bx, int log2, uint32_t *out);

/*
 * The index with restrictions of sector s from its count table (counts[0
 * .. n), blocks of 2^log2 slots), without walking the sector.  The first
 * rank or unrank of a position with a restriction in a block counts that
 * block's positions (2^log2 of them) and keeps
 * their counts, a byte a slot, so later ones in the block cost what they
 * cost with mmtb_ban_index_create; memory grows with the blocks used, up
 * to that index's byte a slot.  Same slots, ranks and
 * unranks as mmtb_ban_index_create when the table is its
 * mmtb_ban_index_block_counts.  Returns MMTB_OK, MMTB_ERR_INVALID (s has
 * no restrictions, log2 outside the bounds), MMTB_ERR_CORRUPT (n is not
 * the sector's number of blocks, or a count exceeds what a block can own),
 * MMTB_ERR_UNSUPPORTED or MMTB_ERR_NOMEM.  The caller checks the total
 * (mmtb_ban_index_slots) against what it expects.
 */
int mmtb_ban_index_open(mmtb_ban_index **out, const mmtb_index *ix, struct mmtb_sector s,
                        int log2, const uint32_t *counts, uint64_t n);

/*
 * The slots sector s would have with restrictions, without building its
 * index: exact when it has at most `visit` scheme 1 slots, else estimated
 * from about `visit` of them in 4,096 windows spread evenly over the
 * sector (within 1 % on twelve-nine's large sectors from 2^18).  Exact for
 * a first-mill sector (twice the scheme 1 slots); the scheme 1 slots when
 * mmtb_ban_index_applies is false.  *exact (when not NULL) tells which.
 */
uint64_t mmtb_ban_index_count(const mmtb_index *ix, struct mmtb_sector s, uint64_t visit,
                              bool *exact);

/* Slots of the sector with its state (base + the restriction or owner
 * slots), and the scheme 1 slots alone (base). */
uint64_t mmtb_ban_index_slots(const mmtb_ban_index *bx);
uint64_t mmtb_ban_index_base(const mmtb_ban_index *bx);

/*
 * Rank the position (mover, opp) of the sector with the mover's restriction
 * ban_mover and the opponent's ban_opp (edge codes as struct mmtb_pos's
 * ban_from and ban_to, each -1 or live: see mmtb_live_bans; the sector's
 * side with stones in hand has none unless the variant has place_or_move).
 * Every symmetric image (restrictions mapped with the stones) has the same
 * slot.  Without restrictions this is mmtb_index_rank.  Checks nothing.
 * (A first-mill sector: the slot of the position with the owner its board
 * implies; the owner is ranked by mmtb_ban_index_rank_pos.)
 */
uint64_t mmtb_ban_index_rank(const mmtb_ban_index *bx, uint32_t mover, uint32_t opp,
                             int ban_mover, int ban_opp);

/* The position stored in slot < mmtb_ban_index_slots: for a canonical slot
 * the representative its rank gives back, for a wasted one a valid
 * position that ranks elsewhere. */
void mmtb_ban_index_unrank(const mmtb_ban_index *bx, uint64_t slot, uint32_t *mover,
                           uint32_t *opp, int *ban_mover, int *ban_opp);

/*
 * The stones of a position ranked once, so that each of its states (the
 * combinations of restrictions it may carry) then ranks in a few
 * instructions: the solver ranks every successor's stones once and all the
 * states of a position from them.  An index with restrictions only (not a
 * first-mill one).
 */
struct mmtb_ban_rank {
    uint64_t slot0;          /* the scheme 1 slot: the state without restrictions */
    uint64_t first;          /* the slot of the first state with restrictions
                              * (UINT64_MAX when there is none) */
    uint64_t fset[2], tset[2]; /* the live codes of the representative's mover, opponent */
    int nf, nt;
    int nsym;                /* the symmetries taking the stones to the representative */
    uint8_t sym[MMTB_MAX_SYMS];
    uint32_t mover, opp, rm, ro; /* the stones and their representative */
};

/* Rank the stones (mover, opp) of the sector (as mmtb_ban_index_rank
 * expects them) into *r. */
void mmtb_ban_index_rank_stones(const mmtb_ban_index *bx, uint32_t mover, uint32_t opp,
                                struct mmtb_ban_rank *r);

/* The same in two steps, so that the look-ups of many stones are in flight
 * at once: begin ranks the scheme 1 slot and starts the reads of the
 * state counts; end completes *r.  fset and tset, when not NULL, are the
 * live restrictions of the stones' mover and opponent on their own points
 * as sets of codes (bit c of word c / 64: what mmtb_live_bans lists, empty
 * for a side the sector gives none), which the caller has at hand: end
 * then maps them instead of listing the representative's. */
void mmtb_ban_index_rank_begin(const mmtb_ban_index *bx, uint32_t mover, uint32_t opp,
                               struct mmtb_ban_rank *r);
/* Begin the rank of stones (mover, opp) whose scheme 1 slot0 the caller
 * has found another way, with the one symmetry g that takes them to the
 * slot's representative (the caller knows that the representative's mover
 * set has no symmetry but the identity): what mmtb_ban_index_rank_begin
 * leaves, without the look-up; end completes it.  Checks nothing. */
void mmtb_ban_index_rank_begin_at(const mmtb_ban_index *bx, uint32_t mover, uint32_t opp,
                                  uint64_t slot0, int g, struct mmtb_ban_rank *r);
void mmtb_ban_index_rank_end(const mmtb_ban_index *bx, struct mmtb_ban_rank *r,
                             const uint64_t *fset, const uint64_t *tset);

/* The same two steps without the slot of the stones' first state (r->first
 * is left UINT64_MAX): no read of the state counts, which are cache misses
 * in arrays of the sector's size.  For a caller that places a state by its
 * stones' scheme 1 slot and its offset among their states
 * (mmtb_ban_index_state_offset), and finds the first state's slot
 * (mmtb_ban_index_first) later, where the counts of nearby slots are in
 * cache. */
void mmtb_ban_index_rank_begin_stones(const mmtb_ban_index *bx, uint32_t mover, uint32_t opp,
                                      struct mmtb_ban_rank *r);
void mmtb_ban_index_rank_end_stones(const mmtb_ban_index *bx, struct mmtb_ban_rank *r,
                                    const uint64_t *fset, const uint64_t *tset);

/* The slot of the stones r with the restrictions ban_mover and ban_opp
 * (-1 or live, given on the stones' own points, not the representative's):
 * mmtb_ban_index_rank of the same position. */
uint64_t mmtb_ban_index_rank_state(const mmtb_ban_index *bx, const struct mmtb_ban_rank *r,
                                   int ban_mover, int ban_opp);

/* The same, and *nstab = the number of symmetries that map the state to
 * itself (its stabilizer's order: 1 for most states), which the solver
 * needs to relate move counts between orbits. */
uint64_t mmtb_ban_index_rank_state_stab(const mmtb_ban_index *bx, const struct mmtb_ban_rank *r,
                                        int ban_mover, int ban_opp, int *nstab);

/* Where the state of the stones r with the restrictions ban_mover and
 * ban_opp lies among the stones' states: -1 for the scheme 1 slot (r->slot0)
 * itself, else k for the slot mmtb_ban_index_first(bx, r->slot0) + k
 * (what mmtb_ban_index_rank_state_stab gives, with *nstab the same); r
 * needs no first state. */
int mmtb_ban_index_state_offset(const mmtb_ban_index *bx, const struct mmtb_ban_rank *r,
                                int ban_mover, int ban_opp, int *nstab);

/* The slot of the first state with restrictions of scheme 1 slot i
 * (base + the states of the slots before it), and the number of such
 * states of i (0 for a wasted slot); an index with restrictions. */
uint64_t mmtb_ban_index_first(const mmtb_ban_index *bx, uint64_t i);
/* Start the reads mmtb_ban_index_first(bx, i) will make (prefetches). */
void mmtb_ban_index_first_fetch(const mmtb_ban_index *bx, uint64_t i);
int mmtb_ban_index_states(const mmtb_ban_index *bx, uint64_t i);

/* The states of every scheme 1 slot (mmtb_ban_index_states of each, a
 * byte a slot), or NULL for an index opened from a count table. */
const uint8_t *mmtb_ban_index_counts(const mmtb_ban_index *bx);

/* The scheme 1 slot owning slot >= base of an index with restrictions,
 * with the first slot of its states in *first. */
uint64_t mmtb_ban_index_owner(const mmtb_ban_index *bx, uint64_t slot, uint64_t *first);

/* A whole position p of the sector (side to move first, as mmtb_pos_sector)
 * and back, restrictions and first-mill owner included; unrank leaves hands
 * and side as they are in *p.  rank_pos expects a valid position
 * (mmtb_pos_validate): in a first-mill sector an owner where the board
 * has a mill, and only a side with a mill as the owner. */
uint64_t mmtb_ban_index_rank_pos(const mmtb_ban_index *bx, const struct mmtb_pos *p);
void mmtb_ban_index_unrank_pos(const mmtb_ban_index *bx, uint64_t slot, struct mmtb_pos *p);

#endif
