/*
 * succ.h - the solver's view of the rules: successors and quiet
 * predecessors of a position given as two masks (side to move first) in a
 * sector.  A lean bitboard re-statement of format/movegen.c for the hot
 * loops of the solver and the verifier; the tests check the two agree.
 */
#ifndef MMTB_SUCC_H
#define MMTB_SUCC_H

#include "helpers.h"
#include "movegen.h"
#include "variant.h"

/* What one move leads to. */
enum succ_kind {
    SUCC_POS = 0, /* a stored position: (mover, opp) of sector t */
    SUCC_WIN = 1, /* the move wins at once (opponent below min_stones, first mill) */
};

struct succ {
    uint8_t kind;
    uint8_t capture; /* the move removed a stone: its depth is 1 whatever follows */
    struct mmtb_sector t;
    /* the new side to move first (for SUCC_WIN too: the board the move
     * leaves, though no position there is stored) */
    uint32_t mover, opp;
};

/* Opposing stones a mill may remove under the variant's rule. */
uint32_t succ_removable(const struct mmtb_variant *v, uint32_t opp);

/*
 * Terminal value of (mover, opp) in sector s before any move is generated:
 * MMTB_LOSS (opponent's mill in a first-mill-wins variant), MMTB_DRAW (full
 * board after placement in a full-board-draw variant), or MMTB_NOT_TERMINAL.
 * "No legal move" is not checked here: it shows as zero successors.
 */
int succ_terminal(const struct mmtb_variant *v, struct mmtb_sector s, uint32_t mover,
                  uint32_t opp);

/*
 * All successors of (mover, opp) in sector s (one entry per whole turn,
 * including each removal choice and a pass where the variant passes).
 * out needs room for MMTB_MAX_MOVES.  Returns the count.
 */
int succ_generate(const struct mmtb_variant *v, struct mmtb_sector s, uint32_t mover,
                  uint32_t opp, struct succ *out);

/*
 * As succ_generate, but the quiet successors in the partner sector (slides
 * and flights that remove nothing, and passes), which the solver only
 * counts, are counted in *nquiet and not written.  Returns the count of
 * the others (placements, captures, immediate wins).
 */
int succ_generate_counted(const struct mmtb_variant *v, struct mmtb_sector s, uint32_t mover,
                          uint32_t opp, struct succ *out, int *nquiet);

/*
 * As succ_generate (nquiet NULL) or succ_generate_counted, but the
 * placements that remove nothing are not written either: *placed gets
 * their points.  The one on point p leads to (opp, mover | 1 << p) of
 * sector (s.b, s.w + 1, s.b_hand, s.w_hand - 1).
 */
int succ_generate_placed(const struct mmtb_variant *v, struct mmtb_sector s, uint32_t mover,
                         uint32_t opp, struct succ *out, int *nquiet, uint32_t *placed);

/*
 * As succ_generate_counted, but without the placements, for a position of
 * a variant whose stones may slide while others are in hand
 * (v->place_or_move) that has a placement (a stone in hand and a free
 * point; so it never passes): its slides, the quiet ones counted in
 * *nquiet, the others (captures, immediate wins) written.  Returns their
 * count.
 */
int succ_generate_slides(const struct mmtb_variant *v, struct mmtb_sector s, uint32_t mover,
                         uint32_t opp, struct succ *out, int *nquiet);

/*
 * The placements of (mover, opp) in sector s (s.w_hand > 0) of a variant
 * whose stones in hand cannot slide (!v->place_or_move), as masks: *quiet
 * the empty points where a placement removes nothing, *closers those where
 * it closes a mill and then removes one stone of *removable (a successor
 * each: (opp less that stone, mover | 1 << p) of sector
 * (s.b - 1, s.w + 1, s.b_hand, s.w_hand - 1)).  Returns true, the masks
 * unset, when a placement wins at once (first_mill_wins).  The same moves
 * as succ_generate_placed.
 */
bool succ_placements(const struct mmtb_variant *v, struct mmtb_sector s, uint32_t mover,
                     uint32_t opp, uint32_t *quiet, uint32_t *closers, uint32_t *removable);

/* True when the captures of the side to move of (mover, opp) in sector s
 * must wait: trapped-capture no, and the opponent has no move. */
bool succ_captures_wait(const struct mmtb_variant *v, struct mmtb_sector s, uint32_t mover,
                        uint32_t opp);

/*
 * The quiet successors alone, exactly those succ_generate_counted counts:
 * successor k is (opp, out_opp[k]) of the partner sector (its side to move
 * is our opponent, whose stones do not change).  scratch receives the
 * other successors on the way (room for MMTB_MAX_MOVES).  Returns the
 * count.
 */
int succ_quiet_succs(const struct mmtb_variant *v, struct mmtb_sector s, uint32_t mover,
                     uint32_t opp, struct succ *scratch, uint32_t *out_opp);

/*
 * Quiet predecessors of (mover, opp) in sector s: positions q, of the
 * partner sector (s.b, s.w, s.b_hand, s.w_hand), whose side to move reaches
 * (mover, opp) by a slide, flight or pass that removes nothing.  Writes q's
 * masks (q's mover first) to out_mover/out_opp (room for MMTB_MAX_MOVES
 * each) and returns the count.
 */
int succ_quiet_preds(const struct mmtb_variant *v, struct mmtb_sector s, uint32_t mover,
                     uint32_t opp, uint32_t *out_mover, uint32_t *out_opp);

/*
 * Twelve Men's re-close restrictions (variants with no_reclose), as
 * format/movegen.c states them, for the solver's positions that carry them:
 * the code of the restriction that the move from -> to (from -1: a
 * placement) earns a side whose stones were `mover` before it (a slide out
 * of one of its complete mills along an edge), or -1; and whether
 * restriction `code` (-1: none) of a side with stones own against oth
 * still forbids something (its stone on Y, X empty, Y -> X closing a
 * mill).
 */
int succ_earned(const struct mmtb_variant *v, uint32_t mover, int from, int to);
/* The same with a filter for many moves: in_mill must hold `from`
 * whenever from lies in a complete mill of mover (mmtb_variant_in_mill of
 * mover, or for the moves that led to own's stones, succ_mill_holes(own)),
 * and a move from a point outside it earns nothing without a look at the
 * mills. */
static inline int succ_earned_in(const struct mmtb_variant *v, uint32_t mover, uint32_t in_mill,
                                 int from, int to)
{
    return from >= 0 && (in_mill >> from & 1) ? succ_earned(v, mover, from, to) : -1;
}
/* The points where one more stone of `own` would complete a mill: some
 * mill through the point has all its other points in own.  A move that
 * closes a mill lands on one of them (its other points stay in own); a
 * slide from -> to that left own vacated `from`, so if from lay in a
 * complete mill before it, from is one of them. */
static inline uint32_t succ_mill_holes(const struct mmtb_variant *v, uint32_t own)
{
    uint32_t h = 0;
    /* (a zero mask beyond nmills misses nothing) */
    for (int m = 0; m < mmtb_variant_nmills_vec(v); m++) {
        uint32_t miss = v->mill[m] & ~own;
        h |= miss && !(miss & (miss - 1)) ? miss : 0;
    }
    return h;
}
bool succ_ban_bites(const struct mmtb_variant *v, uint32_t own, uint32_t oth, int code);

/* The two ends of the move that turned the mover's stones `before` into
 * `after` (from -1: a placement). */
static inline void succ_move_ends(uint32_t before, uint32_t after, int8_t *from, int8_t *to)
{
    uint32_t left = before & ~after;
    *from = (int8_t)(left ? __builtin_ctz(left) : -1);
    *to = (int8_t)__builtin_ctz(after & ~before);
}

/* Whether the variant's rules beside the restrictions are those this file
 * models (else positions with restrictions go through format/movegen.c). */
bool succ_models_bans(const struct mmtb_variant *v);

/*
 * The states of stones (m to move, o) of sector s with restrictions: the
 * live restrictions of each side (mmtb_live_bans; none for a side with
 * stones in hand) into F, *nf and T, *nt; there are (*nf + 1) * (*nt + 1)
 * states, and state k (0: none) carries the mover's restriction *f and
 * the opponent's *t (each -1 or a code) as succ_state_bans gives them.
 */
void succ_live_lists(const struct mmtb_variant *v, struct mmtb_sector s, uint32_t m, uint32_t o,
                     int8_t *F, int *nf, int8_t *T, int *nt);
/* Whether succ_live_lists would list any: the stones have states with
 * restrictions (without building the lists). */
bool succ_any_live(const struct mmtb_variant *v, struct mmtb_sector s, uint32_t m, uint32_t o);
/* into[x]: the codes of the slides into point x, which a stone on x keeps
 * from being live restrictions. */
void succ_into_table(const struct mmtb_variant *v, uint64_t into[][MMTB_MAX_BANS / 64]);

/* The code of the slide y -> x (adjacent points): the restrictions' numbering. */
static inline int succ_edge_code(const struct mmtb_variant *v, int y, int x)
{
    return v->edge_first[y] + mmtb_popcount32(v->adj[y] & ((1u << x) - 1));
}

/* Add to set the slides of own's stones into x (empty) that close mill,
 * whose other points own holds: the live restrictions that mill gives. */
static inline void succ_mill_slides(const struct mmtb_variant *v, uint32_t own, uint32_t mill,
                                    int x, uint64_t set[MMTB_MAX_BANS / 64])
{
    for (uint32_t ys = v->adj[x] & own & ~mill; ys; ys &= ys - 1) {
        int c = succ_edge_code(v, __builtin_ctz(ys), x);
        if (c < MMTB_MAX_BANS)
            set[c >> 6] |= (uint64_t)1 << (c & 63);
    }
}

/* Add to set the live restrictions of own into point p (empty): the
 * slides y -> p closing a mill of own that p alone is missing. */
static inline void succ_live_into(const struct mmtb_variant *v, uint32_t own, int p,
                                  uint64_t set[MMTB_MAX_BANS / 64])
{
    for (uint64_t ms = v->mills_at[p]; ms; ms &= ms - 1) {
        uint32_t mill = v->mill[__builtin_ctzll(ms)];
        if ((mill & ~own) == (1u << p))
            succ_mill_slides(v, own, mill, p, set);
    }
}

/*
 * The live restrictions of a side after it moved one stone, from the mills
 * of its stones before: what mmtb_live_ban_set gives for own' = own - r + a
 * (r -1: a placement) against oth, where the counts of own's stones in each
 * mill (two bits a mill, bit-sliced: c1 low, c2 high) and the mills holding
 * a stone of oth (blocked, succ_mills_blocked) are taken once for all the
 * moves of own.  Only the mills through r or a change their count; a mill
 * one short of own' whose third point is not oth's has that point empty.
 * Mills of 3 points only (succ_mills_ok).
 */
struct succ_mills {
    uint64_t c1, c2, blocked;
};
static inline bool succ_mills_ok(const struct mmtb_variant *v)
{
    uint64_t all = v->nmills == 64 ? ~0ull : (1ull << v->nmills) - 1;
    return v->mills3 == all;
}
static inline uint64_t succ_mills_blocked(const struct mmtb_variant *v, uint32_t oth)
{
    uint64_t b = 0;
    for (; oth; oth &= oth - 1)
        b |= v->mills_at[__builtin_ctz(oth)];
    return b;
}
static inline void succ_mills_of(const struct mmtb_variant *v, uint32_t own, uint32_t oth,
                                 struct succ_mills *m)
{
    m->c1 = m->c2 = 0;
    for (; own; own &= own - 1) {
        uint64_t ms = v->mills_at[__builtin_ctz(own)];
        m->c2 |= m->c1 & ms;
        m->c1 ^= ms;
    }
    m->blocked = succ_mills_blocked(v, oth);
}
static inline void succ_live_moved(const struct mmtb_variant *v, const struct succ_mills *m,
                                   uint32_t own2, int r, int a, uint64_t out[MMTB_MAX_BANS / 64])
{
    uint64_t R = r >= 0 ? v->mills_at[r] : 0, A = v->mills_at[a];
    uint64_t one = m->c1 & ~m->c2, two = m->c2 & ~m->c1, three = m->c1 & m->c2;
    uint64_t shortm = ((two & ~(R ^ A)) | (three & R & ~A) | (one & A & ~R)) & ~m->blocked;
    for (int w = 0; w < MMTB_MAX_BANS / 64; w++)
        out[w] = 0;
    for (; shortm; shortm &= shortm - 1) {
        uint32_t mill = v->mill[__builtin_ctzll(shortm)];
        succ_mill_slides(v, own2, mill, __builtin_ctz(mill & ~own2), out);
    }
}

static inline void succ_state_bans(int k, const int8_t *F, const int8_t *T, int nt, int *f,
                                   int *t)
{
    int a = k / (nt + 1), b = k % (nt + 1);
    *f = a ? F[a - 1] : -1;
    *t = b ? T[b - 1] : -1;
}

/* The partner sector: the same stones with the other side to move. */
static inline struct mmtb_sector sector_partner(struct mmtb_sector s)
{
    struct mmtb_sector p = {s.b, s.w, s.b_hand, s.w_hand};
    return p;
}

#endif
