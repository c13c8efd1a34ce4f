/*
 * ban_index.c - one sector's index with the Twelve Men's re-close
 * restrictions ("Index scheme 1 with restrictions", format/FORMAT.md).
 * Depends on sector_index.h (the scheme 1 slots, which it keeps as they
 * are) and movegen.h (edge codes, live restrictions); no I/O, no threads.
 *
 * Layout.  For scheme 1 slot i holding the canonical position P (mover M,
 * opponent O), let F be the mover's live restrictions of P and T the
 * opponent's (mmtb_live_bans, increasing code order; empty for a side that
 * may not slide yet because it has stones in hand), and
 *   cnt(i) = (|F| + 1) * (|T| + 1) - 1
 * (0 for a wasted slot).  P with the restriction pair (f, t), not both
 * none, is at
 *   base + sum_{j < i} cnt(j) + a * (|T| + 1) + b - 1,
 * a = 0 for no f, else 1 + the rank of f in F; b likewise for t in T.
 * When symmetries fix P, the images of (f, t) under them are the same
 * state: the smallest of their offsets is its slot, the others are wasted.
 *
 * First-mill owner (first_mill_removal, placement sectors).  The owner is
 * relative to the side to move (none, mover, opponent) and no symmetry
 * changes it.  No captures happen while placing, so a mill on the board is
 * its owner's, and the board decides the owner unless both sides have a
 * mill: slot i (< base) holds P with that owner (the mover when both
 * have), slot base + i P with the opponent as owner, a wasted slot unless
 * both have.  Nothing per slot is stored.
 */
#include "ban_index.h"

#include <stdlib.h>
#include <string.h>

#include "movegen.h"

#define BLOCK_SHIFT 8

struct mmtb_ban_index {
    const mmtb_index *ix;
    const struct mmtb_variant *v;
    struct mmtb_sector s;
    bool mover_bans, opp_bans; /* may the side carry a restriction at all */
    bool owner;                /* a first-mill sector: no restrictions, owner slots */
    uint64_t base, slots;
    uint8_t *cnt;  /* cnt(i) per scheme 1 slot */
    uint64_t *blk; /* blk[k] = sum of cnt(j), j < k << BLOCK_SHIFT */
    uint64_t nblk;
    int8_t gmap[MMTB_MAX_SYMS][MMTB_MAX_BANS]; /* image of an edge code under g */
};

/* The live restrictions of both sides of (m, o): F into f, T into t. */
static void live_pair(const mmtb_ban_index *bx, uint32_t m, uint32_t o, int8_t *f, int *nf,
                      int8_t *t, int *nt)
{
    *nf = bx->mover_bans ? mmtb_live_bans(bx->v, m, o, f) : 0;
    *nt = bx->opp_bans ? mmtb_live_bans(bx->v, o, m, t) : 0;
}

static int find_code(const int8_t *list, int n, int code)
{
    for (int i = 0; i < n; i++)
        if (list[i] == code)
            return i;
    return -1;
}

bool mmtb_ban_index_applies(const struct mmtb_variant *v, struct mmtb_sector s)
{
    return v->no_reclose || (v->first_mill_removal && (s.w_hand > 0 || s.b_hand > 0));
}

/* The owner's slot offset in a first-mill sector: base when the owner is
 * the opponent and both sides have a mill, else 0. */
static bool owner_extra(const struct mmtb_variant *v, uint32_t mover, uint32_t opp, int owner)
{
    return owner == 2 && mmtb_variant_in_mill(v, mover) && mmtb_variant_in_mill(v, opp);
}

int mmtb_ban_index_create(mmtb_ban_index **out, const mmtb_index *ix, struct mmtb_sector s)
{
    *out = NULL;
    const struct mmtb_variant *v = mmtb_index_variant(ix);
    if (!mmtb_ban_index_applies(v, s))
        return MMTB_ERR_INVALID;
    int edges = 0;
    for (int i = 0; v->no_reclose && i < v->npoints; i++)
        edges += __builtin_popcount(v->adj[i]);
    if (edges > MMTB_MAX_BANS)
        return MMTB_ERR_UNSUPPORTED;
    uint64_t base = mmtb_index_slots(ix, s);
    if (base == 0)
        return MMTB_ERR_INVALID;
    mmtb_ban_index *bx = calloc(1, sizeof *bx);
    if (!bx)
        return MMTB_ERR_NOMEM;
    bx->ix = ix;
    bx->v = v;
    bx->s = s;
    if (!v->no_reclose) {
        /* the first-mill owner: nothing per slot */
        bx->owner = true;
        bx->base = base;
        bx->slots = 2 * base;
        *out = bx;
        return MMTB_OK;
    }
    bx->mover_bans = s.w_hand == 0 || v->place_or_move;
    bx->opp_bans = s.b_hand == 0 || v->place_or_move;
    bx->base = base;
    bx->nblk = (base >> BLOCK_SHIFT) + 1;
    bx->cnt = malloc(base);
    bx->blk = malloc((bx->nblk + 1) * sizeof *bx->blk);
    if (!bx->cnt || !bx->blk) {
        mmtb_ban_index_free(bx);
        return MMTB_ERR_NOMEM;
    }
    for (int g = 0; g < v->nsyms; g++)
        for (int c = 0; c < edges; c++) {
            int y, x;
            mmtb_edge_points(v, c, &y, &x);
            bx->gmap[g][c] = (int8_t)mmtb_edge_code(v, v->sym[g][y], v->sym[g][x]);
        }

    struct mmtb_index_iter it;
    mmtb_index_iter_start(&it, ix, s, 0, base);
    uint64_t slot, sum = 0;
    uint32_t m, o;
    bool canon;
    int8_t f[MMTB_MAX_BANS], t[MMTB_MAX_BANS];
    while (mmtb_index_iter_next(&it, &slot, &m, &o, &canon)) {
        if ((slot & ((1u << BLOCK_SHIFT) - 1)) == 0)
            bx->blk[slot >> BLOCK_SHIFT] = sum;
        int nf = 0, nt = 0;
        if (canon)
            live_pair(bx, m, o, f, &nf, t, &nt);
        int c = (nf + 1) * (nt + 1) - 1;
        if (c > 255) {
            mmtb_ban_index_free(bx);
            return MMTB_ERR_UNSUPPORTED;
        }
        bx->cnt[slot] = (uint8_t)c;
        sum += (uint64_t)c;
    }
    for (uint64_t k = (base + (1u << BLOCK_SHIFT) - 1) >> BLOCK_SHIFT; k <= bx->nblk; k++)
        bx->blk[k] = sum;
    bx->slots = base + sum;
    *out = bx;
    return MMTB_OK;
}

uint64_t mmtb_ban_index_count(const mmtb_index *ix, struct mmtb_sector s, uint64_t visit,
                              bool *exact)
{
    bool dummy;
    if (!exact)
        exact = &dummy;
    *exact = true;
    const struct mmtb_variant *v = mmtb_index_variant(ix);
    uint64_t base = mmtb_index_slots(ix, s);
    if (!mmtb_ban_index_applies(v, s) || base == 0)
        return base;
    if (!v->no_reclose)
        return 2 * base; /* the first-mill owner's slots */
    mmtb_ban_index bx;
    memset(&bx, 0, sizeof bx);
    bx.v = v;
    bx.mover_bans = s.w_hand == 0 || v->place_or_move;
    bx.opp_bans = s.b_hand == 0 || v->place_or_move;
    if (!bx.mover_bans && !bx.opp_bans)
        return base;
    /* all of it, or WINDOWS windows spread evenly over the slots */
    enum { WINDOWS = 64 };
    uint64_t nw = base <= visit ? 1 : WINDOWS, w = base <= visit ? base : visit / WINDOWS;
    if (w == 0)
        w = 1;
    uint64_t seen = 0, sum = 0;
    int8_t f[MMTB_MAX_BANS], t[MMTB_MAX_BANS];
    for (uint64_t k = 0; k < nw; k++) {
        uint64_t lo = base / nw * k, hi = lo + w < base ? lo + w : base;
        struct mmtb_index_iter it;
        mmtb_index_iter_start(&it, ix, s, lo, hi);
        uint64_t slot;
        uint32_t m, o;
        bool canon;
        while (mmtb_index_iter_next(&it, &slot, &m, &o, &canon)) {
            seen++;
            if (!canon)
                continue;
            int nf = 0, nt = 0;
            live_pair(&bx, m, o, f, &nf, t, &nt);
            sum += (uint64_t)((nf + 1) * (nt + 1) - 1);
        }
    }
    if (seen == base || seen == 0)
        return base + sum;
    *exact = false;
    return base + (uint64_t)((double)sum / (double)seen * (double)base + 0.5);
}

void mmtb_ban_index_free(mmtb_ban_index *bx)
{
    if (!bx)
        return;
    free(bx->cnt);
    free(bx->blk);
    free(bx);
}

uint64_t mmtb_ban_index_slots(const mmtb_ban_index *bx)
{
    return bx->slots;
}

uint64_t mmtb_ban_index_base(const mmtb_ban_index *bx)
{
    return bx->base;
}

/* sum_{j < i} cnt(j): the block's prefix plus the slots before i in it. */
static uint64_t prefix(const mmtb_ban_index *bx, uint64_t i)
{
    uint64_t k = i >> BLOCK_SHIFT, sum = bx->blk[k];
    for (uint64_t j = k << BLOCK_SHIFT; j < i; j++)
        sum += bx->cnt[j];
    return sum;
}

/* The offset a * (|T| + 1) + b - 1 of the pair (f, t) given on the
 * representative's own points. */
static int offset(const int8_t *F, int nf, const int8_t *T, int nt, int f, int t)
{
    int a = f < 0 ? 0 : 1 + find_code(F, nf, f);
    int b = t < 0 ? 0 : 1 + find_code(T, nt, t);
    return a * (nt + 1) + b - 1;
}

uint64_t mmtb_ban_index_rank(const mmtb_ban_index *bx, uint32_t mover, uint32_t opp,
                             int ban_mover, int ban_opp)
{
    uint64_t slot = mmtb_index_rank(bx->ix, bx->s, mover, opp);
    if ((ban_mover < 0 && ban_opp < 0) || bx->owner)
        return slot;
    /* Map the restrictions by every symmetry that takes the position to
     * the representative stored in its scheme 1 slot; keep the least. */
    uint32_t rm, ro;
    mmtb_index_unrank(bx->ix, bx->s, slot, &rm, &ro);
    int8_t F[MMTB_MAX_BANS], T[MMTB_MAX_BANS];
    int nf, nt;
    live_pair(bx, rm, ro, F, &nf, T, &nt);
    const struct mmtb_variant *v = bx->v;
    int best = 255;
    for (int g = 0; g < v->nsyms; g++) {
        if (mmtb_sym_apply(v, g, mover) != rm || mmtb_sym_apply(v, g, opp) != ro)
            continue;
        int k = offset(F, nf, T, nt, ban_mover < 0 ? -1 : bx->gmap[g][ban_mover],
                       ban_opp < 0 ? -1 : bx->gmap[g][ban_opp]);
        if (k < best)
            best = k;
    }
    return bx->base + prefix(bx, slot) + (uint64_t)best;
}

void mmtb_ban_index_unrank(const mmtb_ban_index *bx, uint64_t slot, uint32_t *mover,
                           uint32_t *opp, int *ban_mover, int *ban_opp)
{
    *ban_mover = *ban_opp = -1;
    if (slot < bx->base || bx->owner) {
        mmtb_index_unrank(bx->ix, bx->s, slot < bx->base ? slot : slot - bx->base, mover, opp);
        return;
    }
    uint64_t r = slot - bx->base;
    /* The last block whose prefix is <= r, then the slot inside it. */
    uint64_t lo = 0, hi = bx->nblk;
    while (hi - lo > 1) {
        uint64_t mid = lo + (hi - lo) / 2;
        if (bx->blk[mid] <= r)
            lo = mid;
        else
            hi = mid;
    }
    uint64_t i = lo << BLOCK_SHIFT, acc = bx->blk[lo];
    while (acc + bx->cnt[i] <= r)
        acc += bx->cnt[i++];
    mmtb_index_unrank(bx->ix, bx->s, i, mover, opp);
    int8_t F[MMTB_MAX_BANS], T[MMTB_MAX_BANS];
    int nf, nt;
    live_pair(bx, *mover, *opp, F, &nf, T, &nt);
    int k = (int)(r - acc) + 1, a = k / (nt + 1), b = k % (nt + 1);
    if (a)
        *ban_mover = F[a - 1];
    if (b)
        *ban_opp = T[b - 1];
}

uint64_t mmtb_ban_index_rank_pos(const mmtb_ban_index *bx, const struct mmtb_pos *p)
{
    uint32_t m = p->stones[p->side], o = p->stones[p->side ^ 1];
    if (bx->owner) {
        int owner = p->first_mill == MMTB_FIRST_MILL_NONE         ? 0
                    : p->first_mill == MMTB_FIRST_MILL_OF(p->side) ? 1
                                                                   : 2;
        return mmtb_index_rank(bx->ix, bx->s, m, o) +
               (owner_extra(bx->v, m, o, owner) ? bx->base : 0);
    }
    return mmtb_ban_index_rank(bx, m, o, p->ban_from, p->ban_to);
}

void mmtb_ban_index_unrank_pos(const mmtb_ban_index *bx, uint64_t slot, struct mmtb_pos *p)
{
    int f, t;
    uint32_t *m = &p->stones[p->side], *o = &p->stones[p->side ^ 1];
    mmtb_ban_index_unrank(bx, slot, m, o, &f, &t);
    p->ban_from = (int8_t)f;
    p->ban_to = (int8_t)t;
    if (bx->owner) {
        bool mm = mmtb_variant_in_mill(bx->v, *m) != 0, om = mmtb_variant_in_mill(bx->v, *o) != 0;
        if (slot >= bx->base || (om && !mm))
            p->first_mill = MMTB_FIRST_MILL_OF(p->side ^ 1);
        else
            p->first_mill = mm ? MMTB_FIRST_MILL_OF(p->side) : MMTB_FIRST_MILL_NONE;
    }
}
