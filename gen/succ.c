/*
 * succ.c - successor and quiet-predecessor enumeration on bitboards for the
 * solver and the verifier.  Depends on variant.h only.  The rules here must
 * match format/movegen.c exactly; tests/check_solver.c compares them.
 */
#include "succ.h"

#include <string.h>

#include "movegen.h"

uint32_t succ_removable(const struct mmtb_variant *v, uint32_t opp)
{
    uint32_t free_ = opp & ~mmtb_variant_in_mill(v, opp);
    switch (v->removal) {
    case MMTB_REMOVE_ANY:
        return opp;
    case MMTB_REMOVE_IMMUNE:
        return free_;
    default:
        return free_ ? free_ : opp;
    }
}

static bool has_mill(const struct mmtb_variant *v, uint32_t set)
{
    for (int m = 0; m < v->nmills; m++)
        if ((set & v->mill[m]) == v->mill[m])
            return true;
    return false;
}

/* A side flies when it has at most v->fly stones on board plus in hand. */
static inline bool flies(const struct mmtb_variant *v, int board, int hand)
{
    return v->fly > 0 && board + hand <= v->fly;
}

/* True when the side to move of (mover, opp) in sector s has no move at all
 * (ignoring passes).  Used to recognise pass predecessors. */
static bool blocked(const struct mmtb_variant *v, struct mmtb_sector s, uint32_t mover,
                    uint32_t opp)
{
    uint32_t empty = v->full & ~(mover | opp);
    if (s.w_hand > 0 && empty)
        return false;
    if (s.w_hand == 0 || v->place_or_move) {
        if (mover && empty && flies(v, s.w, s.w_hand))
            return false;
        for (uint32_t f = mover; f; f &= f - 1)
            if (v->adj[__builtin_ctz(f)] & empty)
                return false;
    }
    return true;
}

int succ_terminal(const struct mmtb_variant *v, struct mmtb_sector s, uint32_t mover,
                  uint32_t opp)
{
    if (v->first_mill_wins && has_mill(v, opp))
        return MMTB_LOSS;
    if (v->full_board_draw && s.w_hand == 0 && s.b_hand == 0 &&
        (mover | opp) == v->full)
        return MMTB_DRAW;
    /* both-trapped draw: neither side has a move (the position in the
     * tables has no first-mill owner, so no opening removal either) */
    if (v->both_trapped_draw && blocked(v, s, mover, opp) &&
        blocked(v, sector_partner(s), opp, mover))
        return MMTB_DRAW;
    return MMTB_NOT_TERMINAL;
}

/* opp's removable stones not yet known (no mask of points has all bits) */
#define REMOVABLE_UNKNOWN UINT32_MAX

/*
 * Emit the successors of one move that puts a stone of the mover on `to`,
 * the mover's new set being nm.  qt/ct are the sectors (new mover first) of
 * the quiet and the capturing outcome.  may_capture is false for placements
 * in variants where placement does not capture.  When nquiet is not NULL,
 * a quiet outcome is counted there instead of written.
 */
static inline int emit(const struct mmtb_variant *v, uint32_t nm, uint32_t opp, int to,
                       bool hole, struct mmtb_sector qt, struct mmtb_sector ct, bool may_capture,
                       struct succ *out, int n, int *nquiet, uint32_t *qopp, uint32_t *placed,
                       uint32_t *removable)
{
    if (hole && mmtb_closes_mill(v, nm, to)) {
        if (v->first_mill_wins) {
            out[n++] = (struct succ){SUCC_WIN, 0, qt, opp, nm};
            return n;
        }
        /* the same for every move of the position: found at its first mill */
        if (may_capture && *removable == REMOVABLE_UNKNOWN)
            *removable = succ_removable(v, opp);
        uint32_t r = may_capture ? *removable : 0;
        if (r) {
            bool wins = ct.w + ct.w_hand < v->min_stones;
            while (r) {
                uint32_t bit = r & -r;
                r ^= bit;
                if (wins)
                    out[n++] = (struct succ){SUCC_WIN, 1, ct, opp ^ bit, nm};
                else
                    out[n++] = (struct succ){SUCC_POS, 1, ct, opp ^ bit, nm};
            }
            return n;
        }
    }
    if (placed) {
        *placed |= 1u << to;
    } else if (nquiet) {
        if (qopp)
            qopp[*nquiet] = nm;
        ++*nquiet;
    } else {
        out[n++] = (struct succ){SUCC_POS, 0, qt, opp, nm};
    }
    return n;
}

/* always inlined, so that each caller's target (popcnt below) applies */
static inline __attribute__((always_inline)) int
generate(const struct mmtb_variant *v, struct mmtb_sector s, uint32_t mover, uint32_t opp,
         struct succ *out, int *nquiet, uint32_t *qopp, uint32_t *placed, bool slides_only)
{
    uint32_t empty = v->full & ~(mover | opp);
    int n = 0;
    /* trapped-capture no: no capture while the opponent has no move */
    bool cap_ok = v->trapped_capture || !blocked(v, sector_partner(s), opp, mover);
    /* a move closes a mill only on a point where the mover's stones miss
     * one of a mill (whether the stone that moved was one of them is
     * emit's test) */
    uint32_t holes = succ_mill_holes(v, mover) & empty;
    uint32_t removable = REMOVABLE_UNKNOWN;

    if (s.w_hand > 0 && !slides_only) {
        struct mmtb_sector qt = {s.b, (uint8_t)(s.w + 1), s.b_hand, (uint8_t)(s.w_hand - 1)};
        struct mmtb_sector ct = qt;
        ct.w = (uint8_t)(s.b - 1);
        for (uint32_t e = empty; e; e &= e - 1) {
            int to = __builtin_ctz(e);
            n = emit(v, mover | (1u << to), opp, to, (holes >> to) & 1u, qt, ct,
                     v->place_captures && cap_ok, out, n, NULL, NULL, placed, &removable);
        }
    }
    if (s.w_hand == 0 || v->place_or_move) {
        struct mmtb_sector qt = {s.b, s.w, s.b_hand, s.w_hand};
        struct mmtb_sector ct = qt;
        ct.w = (uint8_t)(s.b - 1);
        bool fly = flies(v, s.w, s.w_hand);
        /* When quiet moves are only counted, those to points off every
         * mill hole are counted by the bit. */
        bool count_only = nquiet && !qopp;
        for (uint32_t f = mover; f; f &= f - 1) {
            int from = __builtin_ctz(f);
            uint32_t dests = fly ? empty : (v->adj[from] & empty);
            if (count_only) {
                *nquiet += __builtin_popcount(dests & ~holes);
                dests &= holes;
            }
            for (; dests; dests &= dests - 1) {
                int to = __builtin_ctz(dests);
                uint32_t nm = mover ^ (1u << from) ^ (1u << to);
                n = emit(v, nm, opp, to, (holes >> to) & 1u, qt, ct, cap_ok, out, n, nquiet, qopp,
                         NULL, &removable);
            }
        }
    }
    if (!slides_only && n == 0 && (!nquiet || *nquiet == 0) && (!placed || *placed == 0) &&
        v->nomove == MMTB_NOMOVE_PASSES) {
        struct mmtb_sector qt = {s.b, s.w, s.b_hand, s.w_hand};
        if (nquiet) {
            if (qopp)
                qopp[*nquiet] = mover;
            ++*nquiet;
        } else {
            out[n++] = (struct succ){SUCC_POS, 0, qt, opp, mover};
        }
    }
    return n;
}

int succ_generate(const struct mmtb_variant *v, struct mmtb_sector s, uint32_t mover,
                  uint32_t opp, struct succ *out)
{
    return generate(v, s, mover, opp, out, NULL, NULL, NULL, false);
}

/* The init pass calls this for every position: where the CPU has a
 * popcnt instruction (nearly every x86-64 does) a copy that uses it is
 * chosen when the program loads. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
__attribute__((target_clones("popcnt", "default")))
#endif
int succ_generate_counted(const struct mmtb_variant *v, struct mmtb_sector s, uint32_t mover,
                          uint32_t opp, struct succ *out, int *nquiet)
{
    *nquiet = 0;
    return generate(v, s, mover, opp, out, nquiet, NULL, NULL, false);
}

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
__attribute__((target_clones("popcnt", "default")))
#endif
int succ_generate_placed(const struct mmtb_variant *v, struct mmtb_sector s, uint32_t mover,
                         uint32_t opp, struct succ *out, int *nquiet, uint32_t *placed)
{
    *placed = 0;
    if (nquiet)
        *nquiet = 0;
    return generate(v, s, mover, opp, out, nquiet, NULL, placed, false);
}

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
__attribute__((target_clones("popcnt", "default")))
#endif
int succ_generate_slides(const struct mmtb_variant *v, struct mmtb_sector s, uint32_t mover,
                         uint32_t opp, struct succ *out, int *nquiet)
{
    *nquiet = 0;
    return generate(v, s, mover, opp, out, nquiet, NULL, NULL, true);
}

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
__attribute__((target_clones("popcnt", "default")))
#endif
bool succ_placements(const struct mmtb_variant *v, struct mmtb_sector s, uint32_t mover,
                     uint32_t opp, uint32_t *quiet, uint32_t *closers, uint32_t *removable)
{
    uint32_t empty = v->full & ~(mover | opp);
    /* a placement closes a mill exactly where it fills a mill's last hole */
    uint32_t holes = succ_mill_holes(v, mover) & empty;
    uint32_t r = 0;
    if (holes) {
        if (v->first_mill_wins)
            return true;
        /* trapped-capture no: no capture while the opponent has no move */
        if (v->place_captures &&
            (v->trapped_capture || !blocked(v, sector_partner(s), opp, mover)))
            r = succ_removable(v, opp);
    }
    *closers = r ? holes : 0;
    *quiet = empty & ~*closers;
    *removable = r;
    return false;
}

bool succ_captures_wait(const struct mmtb_variant *v, struct mmtb_sector s, uint32_t mover,
                        uint32_t opp)
{
    return !v->trapped_capture && blocked(v, sector_partner(s), opp, mover);
}

int succ_quiet_succs(const struct mmtb_variant *v, struct mmtb_sector s, uint32_t mover,
                     uint32_t opp, struct succ *scratch, uint32_t *out_opp)
{
    int nquiet = 0;
    generate(v, s, mover, opp, scratch, &nquiet, out_opp, NULL, false);
    return nquiet;
}

int succ_quiet_preds(const struct mmtb_variant *v, struct mmtb_sector s, uint32_t mover,
                     uint32_t opp, uint32_t *out_mover, uint32_t *out_opp)
{
    /* The previous mover is `opp` (sector pt, mover first). */
    struct mmtb_sector pt = sector_partner(s);
    uint32_t empty = v->full & ~(mover | opp);
    int n = 0;

    if (pt.w_hand == 0 || v->place_or_move) {
        bool fly = flies(v, pt.w, pt.w_hand);
        bool q_terminal = v->first_mill_wins && has_mill(v, mover);
        if (!q_terminal) {
            /* A move to `to` closed a mill when `to` lies in a mill of opp;
             * such a move is quiet only when nothing could be removed. */
            uint32_t closing = mmtb_variant_in_mill(v, opp);
            if (closing && !v->first_mill_wins && succ_removable(v, mover) == 0)
                closing = 0;
            /* trapped-capture yes: a closing move was never quiet */
            uint32_t tos = v->trapped_capture ? opp & ~closing : opp;
            for (uint32_t t = tos; t; t &= t - 1) {
                int to = __builtin_ctz(t);
                bool closes = (closing >> to) & 1u;
                uint32_t srcs = fly ? empty : (v->adj[to] & empty);
                for (; srcs; srcs &= srcs - 1) {
                    int from = __builtin_ctz(srcs);
                    /* trapped-capture no: a closing move was quiet when the
                     * side to move here had no move before it */
                    if (closes && !blocked(v, s, mover, opp ^ (1u << to) ^ (1u << from)))
                        continue;
                    out_mover[n] = opp ^ (1u << to) ^ (1u << from);
                    out_opp[n] = mover;
                    n++;
                }
            }
        }
    }
    if (v->nomove == MMTB_NOMOVE_PASSES && blocked(v, pt, opp, mover) &&
        succ_terminal(v, pt, opp, mover) == MMTB_NOT_TERMINAL) {
        out_mover[n] = opp;
        out_opp[n] = mover;
        n++;
    }
    return n;
}

int succ_earned(const struct mmtb_variant *v, uint32_t mover, int from, int to)
{
    if (from < 0 || !(v->adj[to] & (1u << from)) || !mmtb_closes_mill(v, mover, from))
        return -1;
    return succ_edge_code(v, to, from);
}

bool succ_ban_bites(const struct mmtb_variant *v, uint32_t own, uint32_t oth, int code)
{
    if (code < 0)
        return false;
    int y = v->edge_y[code], x = v->edge_x[code];
    if (!(own & (1u << y)) || ((own | oth) & (1u << x)))
        return false;
    return mmtb_closes_mill(v, (own & ~(1u << y)) | (1u << x), x);
}

bool succ_models_bans(const struct mmtb_variant *v)
{
    return v->no_reclose && !v->first_mill_removal && !v->first_mill_wins &&
           !v->both_trapped_draw && !v->place_or_move && v->nomove != MMTB_NOMOVE_PASSES;
}

void succ_live_lists(const struct mmtb_variant *v, struct mmtb_sector s, uint32_t m, uint32_t o,
                     int8_t *F, int *nf, int8_t *T, int *nt)
{
    *nf = s.w_hand == 0 ? mmtb_live_bans(v, m, o, F) : 0;
    *nt = s.b_hand == 0 ? mmtb_live_bans(v, o, m, T) : 0;
}

bool succ_any_live(const struct mmtb_variant *v, struct mmtb_sector s, uint32_t m, uint32_t o)
{
    uint64_t a[MMTB_MAX_BANS / 64] = {0}, b[MMTB_MAX_BANS / 64] = {0}, any = 0;
    if (s.w_hand == 0)
        mmtb_live_ban_set(v, m, o, a);
    if (s.b_hand == 0)
        mmtb_live_ban_set(v, o, m, b);
    for (int k = 0; k < MMTB_MAX_BANS / 64; k++)
        any |= a[k] | b[k];
    return any != 0;
}

void succ_into_table(const struct mmtb_variant *v, uint64_t into[][MMTB_MAX_BANS / 64])
{
    memset(into, 0, MMTB_MAX_POINTS * sizeof *into);
    for (int c = 0; c < v->nedges && c < MMTB_MAX_BANS; c++)
        into[v->edge_x[c]][c >> 6] |= (uint64_t)1 << (c & 63);
}
