/*
 * movegen.c - the rules at work: legal whole turns, applying them, terminal
 * positions, predecessors ("unmoves") and perft.  Everything here is read
 * off the variant descriptor (board, mills, rule flags); this file depends
 * only on variant.h and must not depend on notation, indexing or tables.
 *
 * Twelve Men's "no re-close" state (variants with no_reclose only).  A
 * player who slides a stone out of one of its complete mills, from X to Y,
 * may not slide it back from Y to X on its own next turn if that closes a
 * mill again.  Two such restrictions can be alive at once (the side to
 * move's, and the one the other side just earned, which only starts to
 * bite after the side to move has moved), so struct mmtb_pos's two int8
 * fields hold one restriction each, as an *edge code*:
 *
 *   ban_from  the restriction of the side to move (applies to this turn),
 *   ban_to    the restriction of the other side (applies to its next turn),
 *
 * each -1 (none) or the index of the directed board edge Y->X, where the
 * edges are numbered point by point: code = sum_{i<Y} |adj[i]| + (rank of X
 * among the neighbours of Y in increasing point order).  Codes fit 0..127
 * on boards with at most 128 directed edges (the 24-point board with
 * diagonals has 80); larger no_reclose boards are MMTB_ERR_UNSUPPORTED.
 * Applying a move shifts ban_to into ban_from (kept only while it still
 * forbids something: the stone still on Y, X empty, and Y->X closing a mill)
 * and sets ban_to to the restriction the mover just earned.  Positions of
 * variants without no_reclose always have both fields -1.  Flights never
 * create a restriction (the rule speaks of sliding).
 *
 * Shah (first_mill_removal, trapped_capture, both_trapped_draw).  A placement
 * that closes a mill while first_mill is none records its placer in
 * first_mill (placements remove nothing: the variant has place_captures
 * off).  When both hands are empty and first_mill is set, the position is
 * the *opening*: its owner's turn is one removal of an opposing stone
 * (from = to = -1; an empty removal when the removal rule leaves none),
 * which clears first_mill; the other side, if it is to move, can only pass.
 * A colour is *trapped* when it has no placement, slide or flight on the
 * board (re-close restrictions not counted).  Without trapped_capture a
 * mill closed while the opponent is trapped at the start of the turn
 * removes nothing ("you can capture a piece only on the move that traps
 * them").  With both_trapped_draw a side to move with no move whose
 * opponent is trapped too has a drawn game.
 */
#include "movegen.h"

#include "helpers.h"

#include <stdio.h>
#include <string.h>

#define BIT(i) (UINT32_C(1) << (i))

static inline int popc(uint32_t x)
{
    return mmtb_popcount32(x);
}

static const char *const colour_name[2] = {"white", "black"};

/* True when `own` contains a complete mill. */
static bool has_mill(const struct mmtb_variant *v, uint32_t own)
{
    for (int m = 0; m < v->nmills; m++)
        if ((own & v->mill[m]) == v->mill[m])
            return true;
    return false;
}

/* The opposing stones (mask `opp`) a mill may remove under the variant's
 * removal rule; 0 when nothing may be removed. */
static uint32_t removable(const struct mmtb_variant *v, uint32_t opp)
{
    if (v->removal == MMTB_REMOVE_ANY)
        return opp;
    uint32_t free_ = opp & ~mmtb_variant_in_mill(v, opp);
    if (v->removal == MMTB_REMOVE_IMMUNE)
        return free_;
    return free_ ? free_ : opp; /* standard */
}

/* True when colour c has no placement, slide or flight on p's board
 * (restrictions not counted): Shah's "trapped". */
static bool colour_stuck(const struct mmtb_variant *v, const struct mmtb_pos *p, int c)
{
    uint32_t own = p->stones[c];
    uint32_t empty = v->full & ~(own | p->stones[c ^ 1]);
    if (!empty)
        return true;
    if (p->hand[c] > 0)
        return false;
    if (own && v->fly > 0 && popc(own) <= v->fly)
        return false;
    for (uint32_t f = own; f; f &= f - 1)
        if (v->adj[__builtin_ctz(f)] & empty)
            return false;
    return true;
}

/* Shah (first_mill_removal): the sides place in turn from hands equal or
 * White's one larger (the only starts where nobody slides while the other
 * places), so the side to move holds as many stones in hand as the other
 * or one more. */
static bool shah_hands_ok(const struct mmtb_variant *v, const struct mmtb_pos *p)
{
    int d = p->hand[p->side] - p->hand[p->side ^ 1];
    return !v->first_mill_removal || d == 0 || d == 1;
}

/* False when p breaks Shah's owner rule: a stone still to place and a mill
 * on the board, but no first-mill owner (nothing moves or is captured
 * while placing, so the first mill made its placer the owner). */
static bool owner_consistent(const struct mmtb_variant *v, const struct mmtb_pos *p)
{
    return !v->first_mill_removal || p->first_mill != MMTB_FIRST_MILL_NONE ||
           (p->hand[0] == 0 && p->hand[1] == 0) ||
           (!has_mill(v, p->stones[0]) && !has_mill(v, p->stones[1]));
}

/* True when p is Shah's opening: both hands empty and a first-mill owner
 * whose removal starts the movement phase. */
static inline bool is_opening(const struct mmtb_variant *v, const struct mmtb_pos *p)
{
    return v->first_mill_removal && p->first_mill != MMTB_FIRST_MILL_NONE && p->hand[0] == 0 &&
           p->hand[1] == 0;
}

/* Whether colour c flies, from its total count (board + hand). */
static inline bool flies(const struct mmtb_variant *v, int total)
{
    return v->fly > 0 && total <= v->fly;
}

bool mmtb_pos_can_fly(const struct mmtb_variant *v, const struct mmtb_pos *p, int c)
{
    return flies(v, popc(p->stones[c]) + p->hand[c]);
}

void mmtb_pos_start(const struct mmtb_variant *v, struct mmtb_pos *p)
{
    memset(p, 0, sizeof *p);
    p->hand[0] = p->hand[1] = (uint8_t)v->stones;
    p->side = MMTB_WHITE;
    p->remove = 0;
    p->ban_from = p->ban_to = -1;
}

/* ---- no_reclose edge codes ------------------------------------------- */

/* Number of directed edges of the board (sum of degrees). */
static inline int edge_count(const struct mmtb_variant *v)
{
    return v->nedges;
}

/* Edge code of Y->X (X a neighbour of Y): the code of Y's first edge plus
 * the rank of X among Y's neighbours. */
static inline int edge_encode(const struct mmtb_variant *v, int y, int x)
{
    return v->edge_first[y] + popc(v->adj[y] & (BIT(x) - 1));
}

/* Decode an edge code into Y and X; false when the code is out of range. */
static inline bool edge_decode(const struct mmtb_variant *v, int code, int *y, int *x)
{
    if (code < 0 || code >= v->nedges)
        return false;
    *y = v->edge_y[code];
    *x = v->edge_x[code];
    return true;
}

/* True when colour c (stones `own`, opponent `opp`) is really kept from
 * sliding Y->X by a restriction: stone on Y, X empty, and the slide closes
 * a mill. */
static bool ban_bites(const struct mmtb_variant *v, uint32_t own, uint32_t opp, int y, int x)
{
    if (!(own & BIT(y)) || ((own | opp) & BIT(x)))
        return false;
    return mmtb_closes_mill(v, (own & ~BIT(y)) | BIT(x), x);
}

int mmtb_edge_code(const struct mmtb_variant *v, int y, int x)
{
    if (y < 0 || x < 0 || y >= v->npoints || x >= v->npoints || !(v->adj[y] & BIT(x)))
        return -1;
    return edge_encode(v, y, x);
}

bool mmtb_edge_points(const struct mmtb_variant *v, int code, int *y, int *x)
{
    return edge_decode(v, code, y, x);
}

/* Mills one point short for `own`: the missing point X is empty, and a
 * stone Y of own next to X outside that mill could slide in and close it.
 * The codes Y->X are kept sorted, each once (one edge can close two
 * mills). */
void mmtb_live_ban_set(const struct mmtb_variant *v, uint32_t own, uint32_t oth,
                       uint64_t set[MMTB_MAX_BANS / 64])
{
    /* the live codes as a set of MMTB_MAX_BANS bits: sorted and each once
     * without a search (the solver asks this of every position with
     * restrictions) */
    for (int w = 0; w < MMTB_MAX_BANS / 64; w++)
        set[w] = 0;
    uint32_t empty = v->full & ~(own | oth);
    /* the mills one short: with mills of 3 points, those holding exactly
     * two stones of own, counted for all mills at once (a two-bit counter
     * per mill, bit-sliced: c1 the low bit, c2 the high one) */
    uint64_t all = v->nmills == 64 ? ~0ull : (1ull << v->nmills) - 1, shortm = all;
    if (v->mills3 == all) {
        uint64_t c1 = 0, c2 = 0;
        for (uint32_t f = own; f; f &= f - 1) {
            uint64_t ms = v->mills_at[__builtin_ctz(f)];
            c2 |= c1 & ms;
            c1 ^= ms;
        }
        shortm = c2 & ~c1;
    }
    for (; shortm; shortm &= shortm - 1) {
        int m = __builtin_ctzll(shortm);
        uint32_t mill = v->mill[m], miss = mill & ~own;
        if ((miss & (miss - 1)) || !(miss & empty))
            continue;
        int x = __builtin_ctz(miss);
        for (uint32_t ys = v->adj[x] & own & ~mill; ys; ys &= ys - 1) {
            int code = edge_encode(v, __builtin_ctz(ys), x);
            if (code < MMTB_MAX_BANS)
                set[code >> 6] |= (uint64_t)1 << (code & 63);
        }
    }
}

int mmtb_live_bans(const struct mmtb_variant *v, uint32_t own, uint32_t oth, int8_t *out)
{
    uint64_t set[MMTB_MAX_BANS / 64];
    mmtb_live_ban_set(v, own, oth, set);
    int n = 0;
    for (int w = 0; w < MMTB_MAX_BANS / 64; w++)
        for (uint64_t b = set[w]; b; b &= b - 1)
            out[n++] = (int8_t)(w * 64 + __builtin_ctzll(b));
    return n;
}

/* ---- validation ------------------------------------------------------- */

int mmtb_pos_validate(const struct mmtb_variant *v, const struct mmtb_pos *p, char *err,
                      size_t errlen)
{
    if (!v || !p)
        return mmtb_fail(err, errlen, MMTB_ERR_INVALID, "no variant or no position");
    if (p->side > 1)
        return mmtb_fail(err, errlen, MMTB_ERR_INVALID,
                         "side to move %d is neither white (0) nor black (1)", p->side);
    for (int c = 0; c < 2; c++) {
        if (p->stones[c] & ~v->full)
            return mmtb_fail(err, errlen, MMTB_ERR_INVALID, "%s has stones outside the board",
                             colour_name[c]);
        int total = popc(p->stones[c]) + p->hand[c];
        if (total > v->stones)
            return mmtb_fail(err, errlen, MMTB_ERR_INVALID,
                             "%s has %d stones, the variant allows %d", colour_name[c], total,
                             v->stones);
    }
    if (p->stones[0] & p->stones[1])
        return mmtb_fail(err, errlen, MMTB_ERR_INVALID,
                         "a point holds both a white and a black stone");
    /* At most as many removals as mills one stone can close at once. */
    int maxrem = 0;
    for (int i = 0; i < v->npoints; i++)
        if (__builtin_popcountll(v->mills_at[i]) > maxrem)
            maxrem = __builtin_popcountll(v->mills_at[i]);
    if (p->remove > maxrem)
        return mmtb_fail(err, errlen, MMTB_ERR_INVALID, "%d stones to remove, at most %d possible",
                         p->remove, maxrem);
    if (p->remove > 0 && v->first_mill_wins)
        return mmtb_fail(err, errlen, MMTB_ERR_INVALID,
                         "stones to remove in a first-mill-wins variant");
    /* where a placement captures nothing, only a slide can have closed the
     * mill, and a side slides once its hand is empty */
    if (p->remove > 0 && !v->place_captures && !v->place_or_move && p->hand[p->side] > 0)
        return mmtb_fail(err, errlen, MMTB_ERR_INVALID,
                         "%s to remove with %d still to place: in %s a placement "
                         "captures nothing",
                         colour_name[p->side], p->hand[p->side], v->name);
    if (p->first_mill != MMTB_FIRST_MILL_NONE) {
        if (!v->first_mill_removal)
            return mmtb_fail(err, errlen, MMTB_ERR_INVALID,
                             "a first-mill owner in a variant without first-mill-removal");
        if (p->first_mill > MMTB_FIRST_MILL_OF(MMTB_BLACK))
            return mmtb_fail(err, errlen, MMTB_ERR_INVALID,
                             "first-mill owner %d is neither none (0), white (1) nor "
                             "black (2)",
                             p->first_mill);
        if (p->remove > 0)
            return mmtb_fail(err, errlen, MMTB_ERR_INVALID,
                             "a first-mill owner while a removal is pending");
        int c = p->first_mill - 1;
        if (!has_mill(v, p->stones[c]))
            return mmtb_fail(err, errlen, MMTB_ERR_INVALID,
                             "first-mill owner %s has no mill on the board", colour_name[c]);
    } else if (!owner_consistent(v, p)) {
        return mmtb_fail(err, errlen, MMTB_ERR_INVALID,
                         "a mill on the board while placing, but no first-mill owner "
                         "(first-mill=w or b)");
    }
    if (!shah_hands_ok(v, p))
        return mmtb_fail(err, errlen, MMTB_ERR_INVALID,
                         "%s to move with %d in hand against %d: in %s the side to "
                         "move has as many stones in hand as the other or one more",
                         colour_name[p->side], p->hand[p->side], p->hand[p->side ^ 1], v->name);
    if (p->ban_from == -1 && p->ban_to == -1)
        return MMTB_OK;
    if (!v->no_reclose)
        return mmtb_fail(err, errlen, MMTB_ERR_INVALID,
                         "re-close restriction in a variant without that rule");
    if (p->remove > 0)
        return mmtb_fail(err, errlen, MMTB_ERR_INVALID,
                         "re-close restriction while a removal is pending");
    const int8_t code[2] = {p->ban_from, p->ban_to};
    for (int k = 0; k < 2; k++) {
        int c = k == 0 ? p->side : p->side ^ 1, y, x;
        if (code[k] == -1)
            continue;
        if (!edge_decode(v, code[k], &y, &x))
            return mmtb_fail(err, errlen, MMTB_ERR_INVALID,
                             "re-close restriction code %d out of range", code[k]);
        if (p->hand[c] > 0 && !v->place_or_move)
            return mmtb_fail(err, errlen, MMTB_ERR_INVALID,
                             "re-close restriction of %s, which has stones to place",
                             colour_name[c]);
        if (!ban_bites(v, p->stones[c], p->stones[c ^ 1], y, x))
            return mmtb_fail(err, errlen, MMTB_ERR_INVALID,
                             "re-close restriction of %s %s-%s restricts nothing", colour_name[c],
                             v->point_name[y], v->point_name[x]);
    }
    return MMTB_OK;
}

/* ---- terminal positions ----------------------------------------------- */

/* The game-over tests that need no move generation. */
static int terminal_static(const struct mmtb_variant *v, const struct mmtb_pos *p)
{
    int s = p->side, o = s ^ 1;
    if (popc(p->stones[s]) + p->hand[s] < v->min_stones)
        return MMTB_LOSS;
    if (v->first_mill_wins && has_mill(v, p->stones[o]))
        return MMTB_LOSS;
    if (v->full_board_draw && p->hand[0] == 0 && p->hand[1] == 0 &&
        (p->stones[0] | p->stones[1]) == v->full)
        return MMTB_DRAW;
    return MMTB_NOT_TERMINAL;
}

/* True when the side to move of p (remove == 0) has at least one placement,
 * slide or flight, ignoring removals (every mill-closing move is listed at
 * least once, so removals do not matter). */
static bool has_raw_move(const struct mmtb_variant *v, const struct mmtb_pos *p)
{
    int s = p->side;
    uint32_t own = p->stones[s];
    uint32_t empty = v->full & ~(own | p->stones[s ^ 1]);
    if (!empty)
        return false;
    if (p->hand[s] > 0)
        return true; /* a placement */
    bool fly = mmtb_pos_can_fly(v, p, s);
    int by = -1, bx = -1;
    if (p->ban_from >= 0)
        edge_decode(v, p->ban_from, &by, &bx);
    for (uint32_t f = own; f; f &= f - 1) {
        int from = __builtin_ctz(f);
        uint32_t d = fly ? empty : v->adj[from] & empty;
        if (from == by) {
            if (d & ~BIT(bx))
                return true;
            if ((d & BIT(bx)) && !mmtb_closes_mill(v, (own & ~BIT(by)) | BIT(bx), bx))
                return true;
        } else if (d) {
            return true;
        }
    }
    return false;
}

int mmtb_pos_terminal(const struct mmtb_variant *v, const struct mmtb_pos *p)
{
    if (p->remove > 0)
        return MMTB_NOT_TERMINAL; /* the removal is always possible (maybe as a no-op) */
    int t = terminal_static(v, p);
    if (t != MMTB_NOT_TERMINAL)
        return t;
    if (is_opening(v, p) || has_raw_move(v, p))
        return MMTB_NOT_TERMINAL;
    if (v->both_trapped_draw && colour_stuck(v, p, p->side ^ 1))
        return MMTB_DRAW;
    if (v->nomove == MMTB_NOMOVE_LOSES)
        return MMTB_LOSS;
    return MMTB_NOT_TERMINAL;
}

/* ---- move generation --------------------------------------------------- */

struct movelist {
    struct mmtb_move *out;
    int n;
    bool overflow;
};

static inline void push(struct movelist *ml, int from, int to, int remove)
{
    if (ml->n >= MMTB_MAX_MOVES) {
        ml->overflow = true;
        return;
    }
    struct mmtb_move *m = &ml->out[ml->n++];
    m->from = (int8_t)from;
    m->to = (int8_t)to;
    m->remove = (int8_t)remove;
}

/* List one placement/slide/flight: once per removable stone when it closes
 * a mill that captures, else once with remove = -1.  `rem` is the removable
 * set (computed by the caller). */
static inline void emit(const struct mmtb_variant *v, struct movelist *ml, int from, int to,
                        uint32_t nown, bool captures, uint32_t rem)
{
    if (captures && rem && mmtb_closes_mill(v, nown, to)) {
        for (uint32_t r = rem; r; r &= r - 1)
            push(ml, from, to, __builtin_ctz(r));
    } else {
        push(ml, from, to, -1);
    }
}

/* Placements, slides and flights of the side to move (remove == 0),
 * ignoring game over and passes. */
static void gen_raw(const struct mmtb_variant *v, const struct mmtb_pos *p,
                    struct movelist *ml)
{
    int s = p->side;
    uint32_t own = p->stones[s], opp = p->stones[s ^ 1];
    uint32_t empty = v->full & ~(own | opp);
    uint32_t rem = v->first_mill_wins ? 0 : removable(v, opp);
    if (rem && !v->trapped_capture && colour_stuck(v, p, s ^ 1))
        rem = 0; /* the opponent is trapped already: no capture */

    if (p->hand[s] > 0) {
        bool cap = v->place_captures && !v->first_mill_wins;
        for (uint32_t e = empty; e; e &= e - 1) {
            int to = __builtin_ctz(e);
            emit(v, ml, -1, to, own | BIT(to), cap, rem);
        }
    }
    if (p->hand[s] == 0 || v->place_or_move) {
        bool fly = mmtb_pos_can_fly(v, p, s);
        bool cap = !v->first_mill_wins;
        int by = -1, bx = -1;
        if (p->ban_from >= 0)
            edge_decode(v, p->ban_from, &by, &bx);
        for (uint32_t f = own; f; f &= f - 1) {
            int from = __builtin_ctz(f);
            uint32_t base = own & ~BIT(from);
            uint32_t d = fly ? empty : v->adj[from] & empty;
            for (; d; d &= d - 1) {
                int to = __builtin_ctz(d);
                if (from == by && to == bx && mmtb_closes_mill(v, base | BIT(to), to))
                    continue; /* no_reclose */
                emit(v, ml, from, to, base | BIT(to), cap, rem);
            }
        }
    }
}

int mmtb_gen_moves(const struct mmtb_variant *v, const struct mmtb_pos *p,
                   struct mmtb_move *out)
{
    struct movelist ml = {out, 0, false};
    if (v->no_reclose && edge_count(v) > 128)
        return MMTB_ERR_UNSUPPORTED;
    if (p->side > 1)
        return MMTB_ERR_INVALID;

    if (p->remove > 0) {
        /* Pending removal (FEN action 'r'): list the removable stones, or
         * one empty removal when the rule leaves none. */
        uint32_t opp = p->stones[p->side ^ 1];
        uint32_t rem = removable(v, opp);
        if (!rem)
            push(&ml, -1, -1, -1);
        for (; rem; rem &= rem - 1)
            push(&ml, -1, -1, __builtin_ctz(rem));
        return ml.n;
    }
    if (terminal_static(v, p) != MMTB_NOT_TERMINAL)
        return 0;
    if (is_opening(v, p)) {
        /* Shah: the first-mill owner removes; the other side waits. */
        if (p->side != p->first_mill - 1) {
            push(&ml, MMTB_MOVE_PASS, -1, -1);
            return ml.n;
        }
        uint32_t rem = removable(v, p->stones[p->side ^ 1]);
        if (!rem)
            push(&ml, -1, -1, -1);
        for (; rem; rem &= rem - 1)
            push(&ml, -1, -1, __builtin_ctz(rem));
        return ml.n;
    }
    gen_raw(v, p, &ml);
    if (ml.overflow)
        return MMTB_ERR_INVALID;
    if (ml.n == 0 && v->both_trapped_draw && colour_stuck(v, p, p->side ^ 1))
        return 0; /* both trapped: a drawn game */
    if (ml.n == 0 && v->nomove == MMTB_NOMOVE_PASSES)
        push(&ml, MMTB_MOVE_PASS, -1, -1);
    return ml.n;
}

/* The restriction that becomes the side to move's in q once colour c (the
 * new side to move) gets the turn: `code` if it still bites, else -1. */
static int8_t carry_ban(const struct mmtb_variant *v, const struct mmtb_pos *q, int8_t code)
{
    int y, x, c = q->side;
    if (code < 0 || !edge_decode(v, code, &y, &x))
        return -1;
    return ban_bites(v, q->stones[c], q->stones[c ^ 1], y, x) ? code : -1;
}

void mmtb_pos_apply(const struct mmtb_variant *v, const struct mmtb_pos *p,
                    const struct mmtb_move *m, struct mmtb_pos *out)
{
    struct mmtb_pos q = *p;
    int s = p->side, o = s ^ 1;

    if (p->remove > 0) {
        /* One removal of a pending series; the turn ends with the last. */
        if (m->remove >= 0)
            q.stones[o] &= ~BIT(m->remove);
        q.remove--;
        if (q.remove == 0) {
            q.side = (uint8_t)o;
            q.ban_from = carry_ban(v, &q, p->ban_to);
            q.ban_to = -1;
        }
        *out = q;
        return;
    }
    if (is_opening(v, p) && m->from == -1 && m->to == -1) {
        /* Shah's opening removal: the movement phase begins. */
        if (m->remove >= 0)
            q.stones[o] &= ~BIT(m->remove);
        q.first_mill = MMTB_FIRST_MILL_NONE;
        q.side = (uint8_t)o;
        *out = q;
        return;
    }
    int8_t earned = -1;
    if (m->from != MMTB_MOVE_PASS) {
        if (m->from < 0 && v->first_mill_removal && q.first_mill == MMTB_FIRST_MILL_NONE &&
            mmtb_closes_mill(v, p->stones[s] | BIT(m->to), m->to))
            q.first_mill = MMTB_FIRST_MILL_OF(s);
        if (m->from >= 0) {
            q.stones[s] &= ~BIT(m->from);
            /* Sliding out of one of the mover's complete mills earns a
             * restriction for the mover's next turn. */
            if (v->no_reclose && (v->adj[m->to] & BIT(m->from)) &&
                (mmtb_variant_in_mill(v, p->stones[s]) & BIT(m->from)))
                earned = (int8_t)edge_encode(v, m->to, m->from);
        } else {
            q.hand[s]--;
        }
        q.stones[s] |= BIT(m->to);
        if (m->remove >= 0)
            q.stones[o] &= ~BIT(m->remove);
    }
    q.side = (uint8_t)o;
    q.ban_from = carry_ban(v, &q, p->ban_to);
    q.ban_to = earned;
    *out = q;
}

/* ---- predecessors ------------------------------------------------------ */

/* True when the only move of q is a pass. */
static bool only_pass(const struct mmtb_variant *v, const struct mmtb_pos *q)
{
    struct mmtb_move mv[MMTB_MAX_MOVES];
    return mmtb_gen_moves(v, q, mv) == 1 && mv[0].from == MMTB_MOVE_PASS;
}

/* True when colour c may carry a restriction in q: it slides (no stones in
 * hand, or the variant lets it move while it has some). */
static inline bool may_carry(const struct mmtb_variant *v, const struct mmtb_pos *q, int c)
{
    return q->hand[c] == 0 || v->place_or_move;
}

/*
 * no_reclose: the predecessors q of p with m = p's other side to move that
 * differ from the restriction-free q only in their restrictions, for the
 * move f -> t (f -1 for a placement, MMTB_MOVE_PASS for a pass).  Applying
 * the move to q must give p's restrictions exactly:
 *   p.ban_to   = what the move earns (a slide out of one of m's mills),
 *   p.ban_from = q.ban_to if that still bites in p, else none;
 * and q.ban_from (m's own, spent by the move) must not forbid it.  Every q
 * lists only live restrictions, for sides that slide.  Appends to out[n..)
 * and returns the new count, or MMTB_ERR_INVALID when cap is too small.
 */
static int add_with_bans(const struct mmtb_variant *v, const struct mmtb_pos *p,
                         struct mmtb_pos q, int f, int t, struct mmtb_pos *out, int n, int cap)
{
    int s = p->side, m = s ^ 1;
    int8_t earned = -1;
    if (f >= 0 && (v->adj[t] & BIT(f)) && (mmtb_variant_in_mill(v, q.stones[m]) & BIT(f)))
        earned = (int8_t)edge_encode(v, t, f);
    if (earned != p->ban_to)
        return n;
    /* s's restriction in q */
    int8_t ts[MMTB_MAX_BANS + 1];
    int nts = 0;
    if (p->ban_from >= 0) {
        int y = -1, x = -1;
        edge_decode(v, p->ban_from, &y, &x);
        if (ban_bites(v, q.stones[s], q.stones[m], y, x))
            ts[nts++] = p->ban_from;
    } else {
        ts[nts++] = -1;
        int8_t live[MMTB_MAX_BANS];
        int k = may_carry(v, &q, s) ? mmtb_live_bans(v, q.stones[s], q.stones[m], live) : 0;
        for (int i = 0; i < k; i++) {
            int y = -1, x = -1;
            edge_decode(v, live[i], &y, &x);
            if (!ban_bites(v, p->stones[s], p->stones[m], y, x))
                ts[nts++] = live[i];
        }
    }
    /* m's restriction in q */
    int8_t fs[MMTB_MAX_BANS + 1];
    int nfs = 0;
    fs[nfs++] = -1;
    {
        int8_t live[MMTB_MAX_BANS];
        int k = may_carry(v, &q, m) ? mmtb_live_bans(v, q.stones[m], q.stones[s], live) : 0;
        for (int i = 0; i < k; i++) {
            int y = -1, x = -1;
            edge_decode(v, live[i], &y, &x);
            if (f == y && t == x)
                continue; /* live, so the slide closes the mill: forbidden */
            fs[nfs++] = live[i];
        }
    }
    for (int a = 0; a < nfs; a++) {
        q.ban_from = fs[a];
        if (f == MMTB_MOVE_PASS && has_raw_move(v, &q))
            continue;
        for (int b = 0; b < nts; b++) {
            q.ban_to = ts[b];
            if (n >= cap)
                return MMTB_ERR_INVALID;
            out[n++] = q;
        }
    }
    return n;
}

/* What the steps of mmtb_gen_predecessors share: p and the rules that
 * apply to it, the q being built (each step sets the fields it changes),
 * and the predecessors found so far, out[0..n). */
struct preds {
    const struct mmtb_variant *v;
    const struct mmtb_pos *p;
    unsigned flags;
    int s, m; /* s to move in p; m moved last, so q has m to move */
    uint32_t mine, theirs, empty;
    uint32_t capmask; /* stones of s a capture into p may have removed */
    bool place_quiet_ok, move_quiet_ok, fly, can_move, trap_rule;
    struct mmtb_pos q;
    struct mmtb_pos *out;
    int n, cap;
};

/* Whether p can have predecessors at all: it ends a whole turn, carries
 * only live restrictions, and its q would not be game over. */
static bool may_have_predecessors(const struct mmtb_variant *v, const struct mmtb_pos *p)
{
    /* Whole turns never end with a removal pending; restrictions only
     * with no_reclose, and then live ones. */
    if (p->remove != 0 || p->side > 1)
        return false;
    if ((p->ban_from != -1 || p->ban_to != -1) &&
        (!v->no_reclose || mmtb_pos_validate(v, p, NULL, 0) != MMTB_OK))
        return false;
    /* Every q has m's total and, for quiet moves, s's stones unchanged.  A
     * q that is game over has no moves: m short of stones, or (first mill
     * wins) s holding a mill in q. */
    int s = p->side, m = s ^ 1;
    int total_m = popc(p->stones[m]) + p->hand[m];
    if (total_m < v->min_stones || total_m > v->stones)
        return false;
    return !(v->first_mill_wins && has_mill(v, p->stones[s]));
}

/* Stones r of s a capture may have removed: r empty in p, removable in
 * q (s's stones theirs + r), and s's count in q within the variant. */
static uint32_t capture_mask(const struct preds *w)
{
    const struct mmtb_variant *v = w->v;
    uint32_t capmask = 0;
    if ((w->flags & MMTB_PRED_CAPTURE) && !v->first_mill_wins &&
        popc(w->theirs) + 1 + w->p->hand[w->s] <= v->stones) {
        for (uint32_t e = w->empty; e; e &= e - 1) {
            int r = __builtin_ctz(e);
            uint32_t qs = w->theirs | BIT(r);
            if (removable(v, qs) & BIT(r))
                capmask |= BIT(r);
        }
    }
    return capmask;
}

/* Fills w for p: the sides, the stones, q's fixed fields and which kinds
 * of move may lead to p. */
static void preds_start(struct preds *w, const struct mmtb_variant *v, const struct mmtb_pos *p,
                        unsigned flags, struct mmtb_pos *out, int cap)
{
    memset(w, 0, sizeof *w);
    w->v = v;
    w->p = p;
    w->flags = flags;
    w->out = out;
    w->cap = cap;
    w->s = p->side;
    w->m = w->s ^ 1;
    w->mine = p->stones[w->m];
    w->theirs = p->stones[w->s];
    w->empty = v->full & ~(w->mine | w->theirs);
    w->q.side = (uint8_t)w->m;
    w->q.remove = 0;
    w->q.ban_from = w->q.ban_to = -1;
    w->q.hand[w->s] = p->hand[w->s];
    /* Quiet mill-closing moves exist when the mill removes nothing. */
    bool nocap = v->first_mill_wins || removable(v, w->theirs) == 0;
    w->place_quiet_ok = nocap || !v->place_captures;
    w->move_quiet_ok = nocap;
    w->capmask = capture_mask(w);
    w->fly = flies(v, popc(w->mine) + p->hand[w->m]);
    /* Shah: slides only once the opening is over (p has no first-mill
     * owner; the opening lists no slides). */
    w->can_move = (p->hand[w->m] == 0 || v->place_or_move) &&
                  !(v->first_mill_removal && p->first_mill != MMTB_FIRST_MILL_NONE);
    /* Without trapped_capture, whether s was trapped in q decides between
     * a quiet and a capturing mill (checked per q below). */
    w->trap_rule = !v->trapped_capture;
}

/* Appends q, reached by f -> t; with no_reclose once per restriction
 * pair that leads to p's.  MMTB_OK, or MMTB_ERR_INVALID when out is full. */
static int add_q(struct preds *w, int f, int t)
{
    if (!owner_consistent(w->v, &w->q) || !shah_hands_ok(w->v, &w->q))
        return MMTB_OK; /* no position of the game: see mmtb_pos_validate */
    if (w->v->no_reclose) {
        int n = add_with_bans(w->v, w->p, w->q, f, t, w->out, w->n, w->cap);
        if (n < 0)
            return n;
        w->n = n;
        return MMTB_OK;
    }
    if (w->n >= w->cap)
        return MMTB_ERR_INVALID;
    w->out[w->n++] = w->q;
    return MMTB_OK;
}

/* A pass: q is p with m to move, where m had nothing else to do (or, in
 * Shah's opening, waits for the owner's removal). */
static int add_pass(struct preds *w)
{
    const struct mmtb_variant *v = w->v;
    struct mmtb_pos *q = &w->q;
    if (!(w->flags & MMTB_PRED_QUIET) ||
        !(v->nomove == MMTB_NOMOVE_PASSES || v->first_mill_removal))
        return MMTB_OK;
    q->stones[w->m] = w->mine;
    q->stones[w->s] = w->theirs;
    q->hand[w->m] = w->p->hand[w->m];
    q->first_mill = w->p->first_mill;
    int rc = MMTB_OK;
    if (v->no_reclose ? terminal_static(v, q) == MMTB_NOT_TERMINAL : only_pass(v, q))
        rc = add_q(w, MMTB_MOVE_PASS, -1);
    q->first_mill = MMTB_FIRST_MILL_NONE;
    q->ban_from = q->ban_to = -1;
    return rc;
}

/* Shah's opening removal: q has both hands empty, m as first-mill owner
 * with a mill, and s's stones plus the removed one. */
static int add_shah_removals(struct preds *w)
{
    const struct mmtb_variant *v = w->v;
    const struct mmtb_pos *p = w->p;
    struct mmtb_pos *q = &w->q;
    if (!v->first_mill_removal || p->first_mill != MMTB_FIRST_MILL_NONE || p->hand[0] != 0 ||
        p->hand[1] != 0 || !has_mill(v, w->mine))
        return MMTB_OK;
    q->stones[w->m] = w->mine;
    q->hand[w->m] = 0;
    q->first_mill = MMTB_FIRST_MILL_OF(w->m);
    int rc = MMTB_OK;
    if ((w->flags & MMTB_PRED_QUIET) && removable(v, w->theirs) == 0) {
        q->stones[w->s] = w->theirs;
        if (terminal_static(v, q) == MMTB_NOT_TERMINAL)
            rc = add_q(w, -1, -1);
    }
    if (rc == MMTB_OK && (w->flags & MMTB_PRED_CAPTURE) && popc(w->theirs) + 1 <= v->stones) {
        for (uint32_t e = w->empty; e && rc == MMTB_OK; e &= e - 1) {
            int r = __builtin_ctz(e);
            q->stones[w->s] = w->theirs | BIT(r);
            if ((removable(v, q->stones[w->s]) & BIT(r)) &&
                terminal_static(v, q) == MMTB_NOT_TERMINAL)
                rc = add_q(w, -1, -1);
        }
    }
    q->first_mill = MMTB_FIRST_MILL_NONE;
    return rc;
}

/* Appends the q where m's stone came to t (from f, or placed when f is
 * -1) and s's stones are unchanged, if such a move was quiet; then, if it
 * closed a mill, those where it removed one of the stones in caps. */
static int add_quiet_and_captures(struct preds *w, int f, int t, bool closes, bool quiet_ok,
                                  uint32_t caps)
{
    struct mmtb_pos *q = &w->q;
    int s = w->s;
    if ((w->flags & MMTB_PRED_QUIET) && (!closes || quiet_ok || w->trap_rule)) {
        q->stones[s] = w->theirs;
        if (!closes || quiet_ok || colour_stuck(w->v, q, s)) {
            int rc = add_q(w, f, t);
            if (rc != MMTB_OK)
                return rc;
        }
    }
    if (!closes)
        return MMTB_OK;
    for (uint32_t r = caps; r; r &= r - 1) {
        q->stones[s] = w->theirs | BIT(__builtin_ctz(r));
        if (!w->trap_rule || !colour_stuck(w->v, q, s)) {
            int rc = add_q(w, f, t);
            if (rc != MMTB_OK)
                return rc;
        }
    }
    return MMTB_OK;
}

/* q's first-mill owner for a placement on t read the k-th way (k = 1:
 * the placement closed Shah's first mill); false when that reading gives
 * no q.  Shah: q's owner is p's, or none when this placement closed the
 * first mill; placements in q without an owner close no mill unless they
 * make m the owner; an owner keeps its mill in q.  Other variants read a
 * placement one way only, with p's owner. */
static bool placement_owner(const struct preds *w, int k, uint32_t base, bool closes, uint8_t *fm)
{
    *fm = w->p->first_mill;
    if (!w->v->first_mill_removal)
        return k == 0;
    if (k == 1) {
        if (*fm != MMTB_FIRST_MILL_OF(w->m) || !closes)
            return false;
        *fm = MMTB_FIRST_MILL_NONE;
    } else if (*fm == MMTB_FIRST_MILL_NONE && closes) {
        return false;
    }
    return *fm == MMTB_FIRST_MILL_NONE || has_mill(w->v, *fm - 1 == w->m ? base : w->theirs);
}

/* Placements on t: q has m's stones base and one more stone in hand. */
static int add_placements(struct preds *w, int t, uint32_t base, bool closes)
{
    w->q.stones[w->m] = base;
    w->q.hand[w->m] = (uint8_t)(w->p->hand[w->m] + 1);
    uint32_t caps = w->v->place_captures ? w->capmask : 0;
    for (int k = 0; k < 2; k++) {
        uint8_t fm;
        if (!placement_owner(w, k, base, closes, &fm))
            continue;
        w->q.first_mill = fm;
        int rc = add_quiet_and_captures(w, -1, t, closes, w->place_quiet_ok, caps);
        if (rc != MMTB_OK)
            return rc;
        w->q.first_mill = MMTB_FIRST_MILL_NONE;
    }
    return MMTB_OK;
}

/* Slides and flights f -> t: q has m's stones base plus f (f empty in p). */
static int add_slides(struct preds *w, int t, uint32_t base, bool closes)
{
    w->q.hand[w->m] = w->p->hand[w->m];
    uint32_t froms = w->fly ? w->empty : w->v->adj[t] & w->empty;
    for (; froms; froms &= froms - 1) {
        int f = __builtin_ctz(froms);
        w->q.stones[w->m] = base | BIT(f);
        int rc = add_quiet_and_captures(w, f, t, closes, w->move_quiet_ok, w->capmask & ~BIT(f));
        if (rc != MMTB_OK)
            return rc;
    }
    return MMTB_OK;
}

/* The moves of m that ended on one of its stones t in p: placements, then
 * slides and flights, t by t. */
static int add_moves(struct preds *w)
{
    for (uint32_t tt = w->mine; tt; tt &= tt - 1) {
        int t = __builtin_ctz(tt);
        uint32_t base = w->mine & ~BIT(t);
        bool closes = mmtb_closes_mill(w->v, w->mine, t);
        int rc = MMTB_OK;
        if (w->p->hand[w->m] < 255)
            rc = add_placements(w, t, base, closes);
        if (rc == MMTB_OK && w->can_move)
            rc = add_slides(w, t, base, closes);
        if (rc != MMTB_OK)
            return rc;
    }
    return MMTB_OK;
}

int mmtb_gen_predecessors(const struct mmtb_variant *v, const struct mmtb_pos *p, unsigned flags,
                          struct mmtb_pos *out, int cap)
{
    if (v->no_reclose && edge_count(v) > MMTB_MAX_BANS)
        return MMTB_ERR_UNSUPPORTED;
    if (!may_have_predecessors(v, p))
        return 0;
    struct preds w;
    preds_start(&w, v, p, flags, out, cap);
    int rc = add_pass(&w);
    if (rc == MMTB_OK)
        rc = add_shah_removals(&w);
    if (rc == MMTB_OK)
        rc = add_moves(&w);
    return rc == MMTB_OK ? w.n : rc;
}

/* ---- perft ------------------------------------------------------------- */

uint64_t mmtb_perft(const struct mmtb_variant *v, const struct mmtb_pos *p, int depth)
{
    if (depth <= 0)
        return 1;
    struct mmtb_move moves[MMTB_MAX_MOVES];
    int n = mmtb_gen_moves(v, p, moves);
    if (n <= 0)
        return 0;
    if (depth == 1)
        return (uint64_t)n;
    uint64_t sum = 0;
    for (int i = 0; i < n; i++) {
        struct mmtb_pos q;
        mmtb_pos_apply(v, p, &moves[i], &q);
        sum += mmtb_perft(v, &q, depth - 1);
    }
    return sum;
}

/* ---- restrictions, decoded -------------------------------------------- */

bool mmtb_pos_ban(const struct mmtb_variant *v, const struct mmtb_pos *p, int c, int *from,
                  int *to)
{
    int8_t code = c == p->side ? p->ban_from : p->ban_to;
    int y, x;
    if (code < 0 || !edge_decode(v, code, &y, &x))
        return false;
    if (from)
        *from = y;
    if (to)
        *to = x;
    return true;
}
