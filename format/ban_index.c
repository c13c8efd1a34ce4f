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

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "bigalloc.h"
#include "helpers.h"
#include "movegen.h"

#define BLOCK_SHIFT 8
#define SUB_SHIFT 5
#define RUN (1 << SUB_SHIFT) /* the slots of a run, whose counts sub sums */
_Static_assert(MMTB_BAN_CREATE_ALIGN == 1u << BLOCK_SHIFT, "a range starts a block");

struct mmtb_ban_index {
    const mmtb_index *ix;
    const struct mmtb_variant *v;
    struct mmtb_sector s;
    bool mover_bans, opp_bans; /* may the side carry a restriction at all */
    bool owner;                /* a first-mill sector: no restrictions, owner slots */
    uint64_t base, slots;
    uint8_t *cnt;  /* cnt(i) per scheme 1 slot, or NULL (opened from block counts:
                    * cnt is counted from the positions of a block the first time
                    * the block is used, and kept in bcnt) */
    _Atomic(uint8_t *) *bcnt; /* opened: per block, its slots' cnt once counted, or NULL */
    int shift;     /* log2 of the slots per block */
    uint64_t *blk; /* blk[k] = sum of cnt(j), j < k << shift; nblk + 1 entries */
    uint16_t *sub; /* created: sub[i >> SUB_SHIFT] = sum of cnt(j) over the slots j of
                    * i's block before i's run of 2^SUB_SHIFT (a rank sums at most
                    * that many bytes) */
    uint64_t nblk; /* (base >> shift) + 1 */
    int8_t gmap[MMTB_MAX_SYMS][MMTB_MAX_BANS]; /* image of an edge code under g */
};

/* The live restrictions of both sides of (m, o): F into f, T into t. */
static void live_pair(const mmtb_ban_index *bx, uint32_t m, uint32_t o, int8_t *f, int *nf,
                      int8_t *t, int *nt)
{
    *nf = bx->mover_bans ? mmtb_live_bans(bx->v, m, o, f) : 0;
    *nt = bx->opp_bans ? mmtb_live_bans(bx->v, o, m, t) : 0;
}

/* cnt of the position (m, o) of a scheme 1 slot: 0 for a wasted one. */
static int slot_cnt(const mmtb_ban_index *bx, uint32_t m, uint32_t o, bool canon)
{
    if (!canon)
        return 0;
    int8_t f[MMTB_MAX_BANS], t[MMTB_MAX_BANS];
    int nf, nt;
    live_pair(bx, m, o, f, &nf, t, &nt);
    return (nf + 1) * (nt + 1) - 1;
}

/*
 * The cnt of a walk's positions, one after the other (an index's build, a
 * block of an opened index, the plan's count).  A side's live restrictions
 * against the other's stones are those of its stones alone less the
 * slides into the other's points (a restriction's slide ends on an empty
 * point), and a walk keeps its mover's stones over a run of slots: so the
 * mover's set alone is worked out once a run, the opponent's once a
 * position, and neither is listed (slot_cnt, a position alone, works out
 * and lists both sides' against each other).  With mills of 3 points, a
 * set's count of stones in each mill (two bits a mill, bit-sliced) is
 * summed from tables of each byte of its points.
 */
#define BAN_WORDS (MMTB_MAX_BANS / 64)
struct walk_cnt {
    const struct mmtb_variant *v;
    bool mover_bans, opp_bans, have_m, mills3;
    uint32_t m;                                     /* the mover whose sets follow */
    uint64_t am[BAN_WORDS];                         /* m's live codes alone */
    uint64_t im[BAN_WORDS];                         /* the slides into m's points */
    uint64_t into[MMTB_MAX_POINTS / 8][256][BAN_WORDS]; /* the slides into a byte's points */
    uint64_t mc[MMTB_MAX_POINTS / 8][256][2];       /* a byte's stones in each mill: c1, c2 */
};

static void walk_cnt_init(struct walk_cnt *w, const mmtb_ban_index *bx)
{
    const struct mmtb_variant *v = bx->v;
    memset(w, 0, sizeof *w);
    w->v = v;
    w->mover_bans = bx->mover_bans;
    w->opp_bans = bx->opp_bans;
    uint64_t all = v->nmills == 64 ? ~0ull : (1ull << v->nmills) - 1;
    w->mills3 = v->mills3 == all;
    uint64_t pt[MMTB_MAX_POINTS][BAN_WORDS]; /* the slides into each point */
    memset(pt, 0, sizeof pt);
    for (int e = 0; e < v->nedges && e < MMTB_MAX_BANS; e++)
        pt[v->edge_x[e]][e >> 6] |= (uint64_t)1 << (e & 63);
    /* each byte value from the one without its lowest point */
    for (int byte = 0; byte < MMTB_MAX_POINTS / 8; byte++)
        for (int x = 1; x < 256; x++) {
            int p = byte * 8 + __builtin_ctz((unsigned)x), prev = x & (x - 1);
            uint64_t ms = p < v->npoints ? v->mills_at[p] : 0, *c = w->mc[byte][x];
            const uint64_t *cp = w->mc[byte][prev];
            c[1] = cp[1] | (cp[0] & ms);
            c[0] = cp[0] ^ ms;
            for (int k = 0; k < BAN_WORDS; k++)
                w->into[byte][x][k] = w->into[byte][prev][k] | (p < v->npoints ? pt[p][k] : 0);
        }
}

static void walk_into(const struct walk_cnt *w, uint32_t set, uint64_t out[BAN_WORDS])
{
    for (int k = 0; k < BAN_WORDS; k++)
        out[k] = w->into[0][set & 255][k] | w->into[1][set >> 8 & 255][k] |
                 w->into[2][set >> 16 & 255][k] | w->into[3][set >> 24][k];
}

/* The live codes of own alone (mmtb_live_ban_set with no other stone). */
static void walk_alone(const struct walk_cnt *w, uint32_t own, uint64_t out[BAN_WORDS])
{
    const struct mmtb_variant *v = w->v;
    if (!w->mills3) {
        mmtb_live_ban_set(v, own, 0, out);
        return;
    }
    /* the counts of the four bytes added, two bits a mill (at most 3) */
    uint64_t c1 = 0, c2 = 0;
    for (int byte = 0; byte < MMTB_MAX_POINTS / 8; byte++) {
        const uint64_t *c = w->mc[byte][own >> (8 * byte) & 255];
        uint64_t carry = c1 & c[0];
        c1 ^= c[0];
        c2 ^= c[1] ^ carry;
    }
    for (int k = 0; k < BAN_WORDS; k++)
        out[k] = 0;
    for (uint64_t shortm = c2 & ~c1; shortm; shortm &= shortm - 1) {
        uint32_t mill = v->mill[__builtin_ctzll(shortm)];
        int x = __builtin_ctz(mill & ~own);
        for (uint32_t ys = v->adj[x] & own & ~mill; ys; ys &= ys - 1) {
            int y = __builtin_ctz(ys);
            int code = v->edge_first[y] + __builtin_popcount(v->adj[y] & ((1u << x) - 1));
            if (code < MMTB_MAX_BANS)
                out[code >> 6] |= (uint64_t)1 << (code & 63);
        }
    }
}

static int walk_cnt_of(struct walk_cnt *w, uint32_t m, uint32_t o, bool canon)
{
    if (!canon)
        return 0;
    if (!w->have_m || m != w->m) {
        w->have_m = true;
        w->m = m;
        if (w->mover_bans)
            walk_alone(w, m, w->am);
        walk_into(w, m, w->im);
    }
    int nf = 0, nt = 0;
    if (w->mover_bans) {
        uint64_t io[BAN_WORDS];
        walk_into(w, o, io);
        for (int k = 0; k < BAN_WORDS; k++)
            nf += __builtin_popcountll(w->am[k] & ~io[k]);
    }
    if (w->opp_bans) {
        uint64_t ao[BAN_WORDS];
        walk_alone(w, o, ao);
        for (int k = 0; k < BAN_WORDS; k++)
            nt += __builtin_popcountll(ao[k] & ~w->im[k]);
    }
    return (nf + 1) * (nt + 1) - 1;
}

/* A block of an opened index, counted: the sums of cnt before each run of
 * 2^BLOCK_SHIFT of its slots, then the cnt of each slot. */
struct counted {
    const uint32_t *sub;
    const uint8_t *cnt;
};

/* Block k of an opened index, counted from its positions on first use and
 * published atomically (two threads may both count it; one copy is kept).
 * False when out of memory: the caller counts the positions itself. */
static bool block_cnt(const mmtb_ban_index *bx, uint64_t k, struct counted *out)
{
    size_t nsub = (size_t)1 << (bx->shift - BLOCK_SHIFT), head = nsub * sizeof(uint32_t);
    uint8_t *c = atomic_load_explicit(&bx->bcnt[k], memory_order_acquire);
    if (!c) {
        uint64_t j0 = k << bx->shift, j1 = (k + 1) << bx->shift;
        if (j1 > bx->base)
            j1 = bx->base;
        c = malloc(head + (j1 > j0 ? j1 - j0 : 0));
        if (!c)
            return false;
        uint32_t *sub = (uint32_t *)(void *)c, sum = 0;
        uint8_t *cnt = c + head;
        struct mmtb_index_iter it;
        mmtb_index_iter_start(&it, bx->ix, bx->s, j0, j1);
        uint64_t slot;
        uint32_t m, o;
        bool canon;
        struct walk_cnt w;
        walk_cnt_init(&w, bx);
        for (size_t r = 0; r < nsub; r++)
            sub[r] = 0;
        while (mmtb_index_iter_next(&it, &slot, &m, &o, &canon)) {
            uint64_t d = slot - j0;
            if ((d & ((1u << BLOCK_SHIFT) - 1)) == 0)
                sub[d >> BLOCK_SHIFT] = sum;
            cnt[d] = (uint8_t)walk_cnt_of(&w, m, o, canon);
            sum += cnt[d];
        }
        uint8_t *expect = NULL;
        if (!atomic_compare_exchange_strong_explicit(&bx->bcnt[k], &expect, c,
                                                     memory_order_acq_rel,
                                                     memory_order_acquire)) {
            free(c);
            c = expect;
        }
    }
    out->sub = (const uint32_t *)(const void *)c;
    out->cnt = c + head;
    return true;
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

/* Everything but the counts: *out set, or a status. */
static int ban_index_new(mmtb_ban_index **out, const mmtb_index *ix, struct mmtb_sector s)
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
    bx->base = base;
    if (!v->no_reclose) {
        /* the first-mill owner: nothing per slot */
        bx->owner = true;
        bx->slots = 2 * base;
        *out = bx;
        return MMTB_OK;
    }
    bx->mover_bans = s.w_hand == 0 || v->place_or_move;
    bx->opp_bans = s.b_hand == 0 || v->place_or_move;
    for (int g = 0; g < v->nsyms; g++)
        for (int c = 0; c < edges; c++) {
            int y, x;
            mmtb_edge_points(v, c, &y, &x);
            bx->gmap[g][c] = (int8_t)mmtb_edge_code(v, v->sym[g][y], v->sym[g][x]);
        }
    *out = bx;
    return MMTB_OK;
}

/* The block prefixes' array for blocks of 2^shift slots. */
static int alloc_blocks(mmtb_ban_index *bx, int shift)
{
    bx->shift = shift;
    bx->nblk = (bx->base >> shift) + 1;
    bx->blk = mmtb_alloc_big((bx->nblk + 1) * sizeof *bx->blk);
    return bx->blk ? MMTB_OK : MMTB_ERR_NOMEM;
}

int mmtb_ban_index_create_begin(mmtb_ban_index **out, const mmtb_index *ix,
                                struct mmtb_sector s)
{
    mmtb_ban_index *bx;
    int rc = ban_index_new(&bx, ix, s);
    if (rc != MMTB_OK || bx->owner) {
        *out = bx;
        return rc;
    }
    /* read at random by every rank: on huge pages */
    /* (and a run's worth beyond, which run_sum reads and masks off) */
    bx->cnt = mmtb_alloc_big(bx->base + RUN);
    bx->sub = mmtb_alloc_big(((bx->base >> SUB_SHIFT) + 1) * sizeof *bx->sub);
    if (!bx->cnt || !bx->sub || alloc_blocks(bx, BLOCK_SHIFT) != MMTB_OK) {
        mmtb_ban_index_free(bx);
        return MMTB_ERR_NOMEM;
    }
    memset(bx->cnt + bx->base, 0, RUN);
    /* blk[k] holds block k's own sum until mmtb_ban_index_create_end */
    memset(bx->blk, 0, (bx->nblk + 1) * sizeof *bx->blk);
    *out = bx;
    return MMTB_OK;
}

int mmtb_ban_index_create_range(mmtb_ban_index *bx, uint64_t lo, uint64_t hi)
{
    const uint64_t align = MMTB_BAN_CREATE_ALIGN;
    if (bx->owner)
        return MMTB_OK;
    if (lo % align || lo > hi || hi > bx->base || (hi % align && hi != bx->base))
        return MMTB_ERR_INVALID;
    struct mmtb_index_iter it;
    mmtb_index_iter_start(&it, bx->ix, bx->s, lo, hi);
    uint64_t slot;
    uint32_t m, o, run = 0;
    bool canon;
    struct walk_cnt w;
    walk_cnt_init(&w, bx);
    while (mmtb_index_iter_next(&it, &slot, &m, &o, &canon)) {
        if ((slot & ((1u << BLOCK_SHIFT) - 1)) == 0)
            run = 0;
        if ((slot & ((1u << SUB_SHIFT) - 1)) == 0)
            bx->sub[slot >> SUB_SHIFT] = (uint16_t)run;
        int c = walk_cnt_of(&w, m, o, canon);
        if (c > 255)
            return MMTB_ERR_UNSUPPORTED;
        bx->cnt[slot] = (uint8_t)c;
        bx->blk[slot >> BLOCK_SHIFT] += (uint64_t)c;
        run += (uint32_t)c;
    }
    return MMTB_OK;
}

void mmtb_ban_index_create_end(mmtb_ban_index *bx)
{
    if (bx->owner)
        return;
    uint64_t sum = 0, base = bx->base;
    for (uint64_t k = 0; k <= bx->nblk; k++) {
        uint64_t own = bx->blk[k];
        bx->blk[k] = sum;
        sum += own;
    }
    bx->slots = base + sum;
    /* the run starting at base: prefix(base) reads it */
    if (base % (1u << SUB_SHIFT) == 0) {
        uint32_t run = 0;
        for (uint64_t j = base & ~(uint64_t)((1u << BLOCK_SHIFT) - 1); j < base; j++)
            run += bx->cnt[j];
        bx->sub[base >> SUB_SHIFT] = (uint16_t)run;
    }
}

int mmtb_ban_index_create(mmtb_ban_index **out, const mmtb_index *ix, struct mmtb_sector s)
{
    int rc = mmtb_ban_index_create_begin(out, ix, s);
    if (rc != MMTB_OK)
        return rc;
    rc = mmtb_ban_index_create_range(*out, 0, (*out)->base);
    if (rc != MMTB_OK) {
        mmtb_ban_index_free(*out);
        *out = NULL;
        return rc;
    }
    mmtb_ban_index_create_end(*out);
    return MMTB_OK;
}

uint64_t mmtb_ban_index_blocks(const mmtb_ban_index *bx, int log2)
{
    return (bx->base + ((uint64_t)1 << log2) - 1) >> log2;
}

int mmtb_ban_index_block_counts(const mmtb_ban_index *bx, int log2, uint32_t *out)
{
    if (bx->owner || !bx->cnt || log2 < MMTB_BAN_MIN_BLOCK_LOG2 ||
        log2 > MMTB_BAN_MAX_BLOCK_LOG2)
        return MMTB_ERR_INVALID;
    uint64_t n = mmtb_ban_index_blocks(bx, log2);
    int d = log2 - bx->shift;
    for (uint64_t k = 0; k < n; k++) {
        uint64_t hi = (k + 1) << d;
        out[k] = (uint32_t)(bx->blk[hi < bx->nblk ? hi : bx->nblk] - bx->blk[k << d]);
    }
    return MMTB_OK;
}

int mmtb_ban_index_open(mmtb_ban_index **out, const mmtb_index *ix, struct mmtb_sector s,
                        int log2, const uint32_t *counts, uint64_t n)
{
    mmtb_ban_index *bx;
    int rc = ban_index_new(&bx, ix, s);
    if (rc == MMTB_OK && bx->owner)
        rc = MMTB_ERR_INVALID;
    if (rc == MMTB_OK && (log2 < MMTB_BAN_MIN_BLOCK_LOG2 || log2 > MMTB_BAN_MAX_BLOCK_LOG2))
        rc = MMTB_ERR_INVALID;
    if (rc == MMTB_OK && n != mmtb_ban_index_blocks(bx, log2))
        rc = MMTB_ERR_CORRUPT;
    if (rc == MMTB_OK)
        rc = alloc_blocks(bx, log2);
    if (rc == MMTB_OK) {
        bx->bcnt = malloc(bx->nblk * sizeof *bx->bcnt);
        rc = bx->bcnt ? MMTB_OK : MMTB_ERR_NOMEM;
        for (uint64_t k = 0; bx->bcnt && k < bx->nblk; k++)
            atomic_init(&bx->bcnt[k], NULL);
    }
    if (rc != MMTB_OK) {
        mmtb_ban_index_free(bx);
        return rc;
    }
    /* A block of 2^log2 slots owns at most 255 slots each (the limit of
     * mmtb_ban_index_create), a side with no restriction at all none. */
    uint64_t max = bx->mover_bans || bx->opp_bans ? (uint64_t)255 << log2 : 0, sum = 0;
    for (uint64_t k = 0; k < n; k++) {
        if (counts[k] > max) {
            mmtb_ban_index_free(bx);
            return MMTB_ERR_CORRUPT;
        }
        bx->blk[k] = sum;
        sum += counts[k];
    }
    for (uint64_t k = n; k <= bx->nblk; k++)
        bx->blk[k] = sum;
    bx->slots = bx->base + sum;
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
    /* all of it, or WINDOWS short windows spread evenly over the slots: a
     * sector's restriction counts change with its stones along the index,
     * so many short windows follow them better than a few long ones (on
     * twelve-nine's large sectors, 4,096 windows of 64 slots came within
     * 0.8 % of the exact count where 64 windows of 65,536 were up to 5 %
     * off) */
    enum { WINDOWS = 4096 };
    uint64_t nw = base <= visit ? 1 : WINDOWS, w = base <= visit ? base : visit / WINDOWS;
    if (w == 0)
        w = 1;
    uint64_t seen = 0, sum = 0;
    struct walk_cnt wc;
    walk_cnt_init(&wc, &bx);
    for (uint64_t k = 0; k < nw; k++) {
        uint64_t lo = base / nw * k, hi = lo + w < base ? lo + w : base;
        struct mmtb_index_iter it;
        mmtb_index_iter_start(&it, ix, s, lo, hi);
        uint64_t slot;
        uint32_t m, o;
        bool canon;
        while (mmtb_index_iter_next(&it, &slot, &m, &o, &canon)) {
            seen++;
            sum += (uint64_t)walk_cnt_of(&wc, m, o, canon);
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
    free(bx->sub);
    free(bx->blk);
    for (uint64_t k = 0; bx->bcnt && k < bx->nblk; k++)
        free(atomic_load_explicit(&bx->bcnt[k], memory_order_relaxed));
    free(bx->bcnt);
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

/* The sum of the bytes a[0..n): eight at a time, each word's bytes added
 * in pairs, then the pairs' 16-bit sums by a multiply (n < 2^BLOCK_SHIFT,
 * so no 16-bit lane overflows: at most 255 * 2 * 32 per lane). */
static uint64_t byte_sum(const uint8_t *a, uint64_t n)
{
    uint64_t lanes = 0, k = 0, sum = 0;
    for (; k + 8 <= n; k += 8) {
        uint64_t w;
        memcpy(&w, a + k, 8);
        lanes += (w & 0x00ff00ff00ff00ffull) + ((w >> 8) & 0x00ff00ff00ff00ffull);
    }
    sum = (lanes * 0x0001000100010001ull) >> 48;
    for (; k < n; k++)
        sum += a[k];
    return sum;
}

/* The sum of the bytes a[0..n), n < RUN, from a run of RUN readable bytes:
 * the words masked to their first bytes, without a branch or a loop over
 * the bytes. */
static inline uint64_t run_sum(const uint8_t *a, uint64_t n)
{
    uint64_t lanes = 0;
    for (int q = 0; q < RUN / 8; q++) {
        uint64_t w, bits = n > 8 * (uint64_t)q ? 8 * (n - 8 * (uint64_t)q) : 0;
        memcpy(&w, a + 8 * q, 8);
        w &= bits >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << bits) - 1;
        lanes += (w & 0x00ff00ff00ff00ffull) + ((w >> 8) & 0x00ff00ff00ff00ffull);
    }
    return (lanes * 0x0001000100010001ull) >> 48;
}

/* sum_{j < i} cnt(j): the block's prefix plus the slots before i in it,
 * from the stored or the block's counted cnt, or counted here. */
static uint64_t prefix(const mmtb_ban_index *bx, uint64_t i)
{
    uint64_t k = i >> bx->shift, sum = bx->blk[k], j0 = k << bx->shift;
    struct counted b;
    if (bx->sub) {
        uint64_t r0 = i & ~(uint64_t)((1u << SUB_SHIFT) - 1);
        return sum + bx->sub[i >> SUB_SHIFT] + run_sum(bx->cnt + r0, i - r0);
    }
    if (bx->cnt)
        return sum + byte_sum(bx->cnt + j0, i - j0);
    if (block_cnt(bx, k, &b)) {
        uint64_t d = i - j0, r0 = d & ~(uint64_t)((1u << BLOCK_SHIFT) - 1);
        sum += b.sub[d >> BLOCK_SHIFT];
        for (uint64_t j = r0; j < d; j++)
            sum += b.cnt[j];
        return sum;
    }
    struct mmtb_index_iter it;
    mmtb_index_iter_start(&it, bx->ix, bx->s, j0, i);
    uint64_t slot;
    uint32_t m, o;
    bool canon;
    while (mmtb_index_iter_next(&it, &slot, &m, &o, &canon))
        sum += (uint64_t)slot_cnt(bx, m, o, canon);
    return sum;
}


/* Bits set in a set of codes (mmtb_popcount32: no library call). */
static inline int popc64(uint64_t x)
{
    return mmtb_popcount32((uint32_t)x) + mmtb_popcount32((uint32_t)(x >> 32));
}

/* 1 + the rank of code c in set, or 0 for no code. */
static inline int code_pos(const uint64_t set[2], int c)
{
    if (c < 0)
        return 0;
    uint64_t below = ((uint64_t)1 << (c & 63)) - 1;
    return 1 + (c >= 64 ? popc64(set[0]) + popc64(set[1] & below) : popc64(set[0] & below));
}

/* What prefix reads for slot i: cache misses in arrays of the sector's
 * size. */
static inline void prefix_fetch(const mmtb_ban_index *bx, uint64_t i)
{
    __builtin_prefetch(&bx->blk[i >> bx->shift]);
    if (bx->sub) {
        __builtin_prefetch(&bx->sub[i >> SUB_SHIFT]);
        __builtin_prefetch(&bx->cnt[i & ~(uint64_t)((1u << SUB_SHIFT) - 1)]);
    }
}

void mmtb_ban_index_rank_begin_stones(const mmtb_ban_index *bx, uint32_t mover, uint32_t opp,
                                      struct mmtb_ban_rank *r)
{
    int one;
    r->slot0 = mmtb_index_rank_rep(bx->ix, bx->s, mover, opp, &r->rm, &r->ro, &one);
    r->mover = mover;
    r->opp = opp;
    r->nsym = one >= 0 ? 1 : 0;
    r->sym[0] = (uint8_t)(one >= 0 ? one : 0);
}

void mmtb_ban_index_rank_begin(const mmtb_ban_index *bx, uint32_t mover, uint32_t opp,
                               struct mmtb_ban_rank *r)
{
    mmtb_ban_index_rank_begin_stones(bx, mover, opp, r);
    prefix_fetch(bx, r->slot0);
}

void mmtb_ban_index_rank_begin_at(const mmtb_ban_index *bx, uint32_t mover, uint32_t opp,
                                  uint64_t slot0, int g, struct mmtb_ban_rank *r)
{
    r->slot0 = slot0;
    r->mover = mover;
    r->opp = opp;
    r->rm = mmtb_sym_apply(bx->v, g, mover);
    r->ro = mmtb_sym_apply(bx->v, g, opp);
    r->nsym = 1;
    r->sym[0] = (uint8_t)g;
    prefix_fetch(bx, slot0);
}

void mmtb_ban_index_rank_end_stones(const mmtb_ban_index *bx, struct mmtb_ban_rank *r,
                                    const uint64_t *fset, const uint64_t *tset)
{
    const struct mmtb_variant *v = bx->v;
    if (r->nsym == 0) {
        /* one point of each colour rules out most symmetries in a look-up
         * each, before the whole sets are mapped */
        uint32_t lm = r->mover & -r->mover, lo = r->opp & -r->opp; /* 0 for no stone */
        int pm = lm ? __builtin_ctz(lm) : 0, po = lo ? __builtin_ctz(lo) : 0;
        for (int g = 0; g < v->nsyms; g++)
            if ((!lm || (r->rm >> v->sym[g][pm] & 1)) && (!lo || (r->ro >> v->sym[g][po] & 1)) &&
                mmtb_sym_apply(v, g, r->mover) == r->rm && mmtb_sym_apply(v, g, r->opp) == r->ro)
                r->sym[r->nsym++] = (uint8_t)g;
    }
    if (fset) {
        /* the stones' own live codes, mapped to the representative's points
         * by any of the symmetries (all give the same sets) */
        const int8_t *gm = bx->gmap[r->sym[0]];
        r->fset[0] = r->fset[1] = r->tset[0] = r->tset[1] = 0;
        for (int w = 0; w < 2; w++) {
            for (uint64_t b = fset[w]; b; b &= b - 1) {
                int c = gm[w * 64 + __builtin_ctzll(b)];
                r->fset[c >> 6] |= (uint64_t)1 << (c & 63);
            }
            for (uint64_t b = tset[w]; b; b &= b - 1) {
                int c = gm[w * 64 + __builtin_ctzll(b)];
                r->tset[c >> 6] |= (uint64_t)1 << (c & 63);
            }
        }
        r->nf = popc64(fset[0]) + popc64(fset[1]);
        r->nt = popc64(tset[0]) + popc64(tset[1]);
    } else {
        int8_t Fr[MMTB_MAX_BANS], Tr[MMTB_MAX_BANS];
        live_pair(bx, r->rm, r->ro, Fr, &r->nf, Tr, &r->nt);
        mmtb_code_set(Fr, r->nf, r->fset); /* a rank among them is a popcount */
        mmtb_code_set(Tr, r->nt, r->tset);
    }
    r->first = UINT64_MAX;
}

void mmtb_ban_index_rank_end(const mmtb_ban_index *bx, struct mmtb_ban_rank *r,
                             const uint64_t *fset, const uint64_t *tset)
{
    mmtb_ban_index_rank_end_stones(bx, r, fset, tset);
    /* the states with restrictions, if the stones have any (the sum of
     * the counts before them is the costly part of a rank) */
    if (r->nf || r->nt)
        r->first = bx->base + prefix(bx, r->slot0);
}

void mmtb_ban_index_rank_stones(const mmtb_ban_index *bx, uint32_t mover, uint32_t opp,
                                struct mmtb_ban_rank *r)
{
    mmtb_ban_index_rank_begin(bx, mover, opp, r);
    mmtb_ban_index_rank_end(bx, r, NULL, NULL);
}

/* Map the restrictions by every symmetry that takes the stones to the
 * representative; the least offset a * (|T| + 1) + b - 1 among the images
 * is the state's slot (FORMAT.md), and *nstab (when not NULL) how many
 * of those symmetries give it: the order of the state's stabilizer. */
static inline int state_offset(const mmtb_ban_index *bx, const struct mmtb_ban_rank *r,
                               int ban_mover, int ban_opp, int *nstab)
{
    if (ban_mover < 0 && ban_opp < 0) { /* every symmetry maps it to itself */
        if (nstab)
            *nstab = r->nsym;
        return -1;
    }
    int best = 255, n = 0;
    for (int k = 0; k < r->nsym; k++) {
        const int8_t *gm = bx->gmap[r->sym[k]];
        int a = code_pos(r->fset, ban_mover < 0 ? -1 : gm[ban_mover]);
        int b = code_pos(r->tset, ban_opp < 0 ? -1 : gm[ban_opp]);
        int o = a * (r->nt + 1) + b - 1;
        n = o < best ? 1 : n + (o == best);
        best = o < best ? o : best;
    }
    if (nstab)
        *nstab = n;
    return best;
}

static inline uint64_t rank_state(const mmtb_ban_index *bx, const struct mmtb_ban_rank *r,
                                  int ban_mover, int ban_opp, int *nstab)
{
    int k = state_offset(bx, r, ban_mover, ban_opp, nstab);
    return k < 0 ? r->slot0 : r->first + (uint64_t)k;
}

int mmtb_ban_index_state_offset(const mmtb_ban_index *bx, const struct mmtb_ban_rank *r,
                                int ban_mover, int ban_opp, int *nstab)
{
    return state_offset(bx, r, ban_mover, ban_opp, nstab);
}

uint64_t mmtb_ban_index_rank_state(const mmtb_ban_index *bx, const struct mmtb_ban_rank *r,
                                   int ban_mover, int ban_opp)
{
    return rank_state(bx, r, ban_mover, ban_opp, NULL);
}

uint64_t mmtb_ban_index_rank_state_stab(const mmtb_ban_index *bx, const struct mmtb_ban_rank *r,
                                        int ban_mover, int ban_opp, int *nstab)
{
    return rank_state(bx, r, ban_mover, ban_opp, nstab);
}

uint64_t mmtb_ban_index_first(const mmtb_ban_index *bx, uint64_t i)
{
    return bx->base + prefix(bx, i);
}

void mmtb_ban_index_first_fetch(const mmtb_ban_index *bx, uint64_t i)
{
    prefix_fetch(bx, i);
}

int mmtb_ban_index_states(const mmtb_ban_index *bx, uint64_t i)
{
    if (bx->cnt)
        return bx->cnt[i];
    uint32_t m, o;
    mmtb_index_unrank(bx->ix, bx->s, i, &m, &o);
    return slot_cnt(bx, m, o, mmtb_index_slot_is_canonical(bx->ix, bx->s, i));
}

/* The last block whose prefix (the states before it) is at most r. */
static uint64_t block_of(const mmtb_ban_index *bx, uint64_t r)
{
    uint64_t lo = 0, hi = bx->nblk;
    while (hi - lo > 1) {
        uint64_t mid = lo + (hi - lo) / 2;
        if (bx->blk[mid] <= r)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

const uint8_t *mmtb_ban_index_counts(const mmtb_ban_index *bx)
{
    return bx->cnt;
}

uint64_t mmtb_ban_index_owner(const mmtb_ban_index *bx, uint64_t slot, uint64_t *first)
{
    uint64_t r = slot - bx->base, lo = block_of(bx, r);
    uint64_t i = lo << bx->shift, acc = bx->blk[lo];
    for (int c; acc + (uint64_t)(c = mmtb_ban_index_states(bx, i)) <= r; i++)
        acc += (uint64_t)c;
    *first = bx->base + acc;
    return i;
}

uint64_t mmtb_ban_index_rank(const mmtb_ban_index *bx, uint32_t mover, uint32_t opp,
                             int ban_mover, int ban_opp)
{
    if ((ban_mover < 0 && ban_opp < 0) || bx->owner)
        return mmtb_index_rank(bx->ix, bx->s, mover, opp);
    struct mmtb_ban_rank r;
    mmtb_ban_index_rank_stones(bx, mover, opp, &r);
    return mmtb_ban_index_rank_state(bx, &r, ban_mover, ban_opp);
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
    uint64_t lo = block_of(bx, r);
    uint64_t i = lo << bx->shift, acc = bx->blk[lo];
    struct counted cb = {NULL, bx->cnt ? bx->cnt + i : NULL};
    if (cb.cnt || block_cnt(bx, lo, &cb)) {
        const uint64_t j0 = i;
        while (acc + cb.cnt[i - j0] <= r)
            acc += cb.cnt[i++ - j0];
        mmtb_index_unrank(bx->ix, bx->s, i, mover, opp);
    } else {
        /* the block's positions in order until the one owning r */
        struct mmtb_index_iter it;
        mmtb_index_iter_start(&it, bx->ix, bx->s, i, bx->base);
        uint64_t slot;
        bool canon;
        while (mmtb_index_iter_next(&it, &slot, mover, opp, &canon)) {
            uint64_t c = (uint64_t)slot_cnt(bx, *mover, *opp, canon);
            if (acc + c > r)
                break;
            acc += c;
        }
    }
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
