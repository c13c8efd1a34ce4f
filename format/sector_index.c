/*
 * sector_index.c - sectors, the symmetry-reduced dense index of a sector's
 * positions ("Index scheme 1" of format/FORMAT.md, which is normative) and
 * the sector graph of a variant.  Depends only on variant.h (board, rules,
 * symmetry group); no I/O, no threads, no global mutable state.
 */
#include "sector_index.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NP MMTB_MAX_POINTS

#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
#define MMTB_INDEX_X86 1
#include <immintrin.h>
#else
#define MMTB_INDEX_X86 0
#endif

/*
 * A lookup entry describes one k-subset X of the board (indexed by X's colex
 * rank): bits 0-23 the index ci of its canonical subset in canon[k], bits
 * 24-29 a symmetry g with g(X) = canon[k][ci], bit 31 set when canon[k][ci]
 * has a non-trivial stabilizer.  Bit 30 is always 0, so all-ones marks an
 * entry not yet filled while the tables are built.
 */
#define LK_CI_MASK 0x00ffffffu
#define LK_SYM_SHIFT 24
#define LK_SYM_MASK 0x3fu
#define LK_STAB 0x80000000u
#define LK_EMPTY 0xffffffffu

/* Limits that keep the tables small (FORMAT.md, "Index scheme 1"). */
#define MAX_SUBSETS (1u << 27)
#define MAX_CANON (1u << 24)

struct mmtb_index {
    const struct mmtb_variant *v;
    int n;                          /* points on the board */
    int kmax;                       /* largest subset size with tables */
    bool bmi2;                      /* rank/unrank use the CPU's pext/pdep */
    uint64_t binom[NP + 1][NP + 1]; /* binom[a][b] = C(a, b), 0 when b > a */
    /* colex[i][p] = C(p, i), p < 32: what point p adds to a colex rank as
     * the i-th (1-based) smallest element.  All values are below 2^32. */
    uint32_t colex[NP + 1][NP];
    /* colex_byte[j][c][x] = sum over the points p of byte j in x (the t-th
     * lowest, t = 1, 2, ...) of C(p, c + t). */
    uint32_t colex_byte[4][NP + 1][256];
    uint8_t compress[256][256]; /* compress[e][x]: the bits of x on e, gathered */
    bool have_compress;         /* compress is filled (only the portable code reads it) */
    uint8_t pop8[256];
    uint32_t ncanon[NP + 1];
    uint32_t *lookup[NP + 1]; /* C(n,k) entries, by colex rank */
    uint32_t *canon[NP + 1];  /* canonical k-subsets, ascending */
    uint64_t *stab[NP + 1];   /* per canonical subset: bit g set when g != id fixes it */
};

/* ------------------------------------------------------------------------
 * Helpers shared by the index and the counts.
 * ---------------------------------------------------------------------- */

/* C(a, b) for 0 <= a, b <= 32, computed exactly (Pascal's triangle). */
static uint64_t binomial(int a, int b)
{
    if (b < 0 || a < 0 || b > a)
        return 0;
    uint64_t row[NP + 1] = {1};
    for (int i = 1; i <= a; i++)
        for (int j = i; j > 0; j--)
            row[j] += row[j - 1];
    return row[b];
}

/* Is the variant's board and group usable by this module at all? */
static bool variant_ok(const struct mmtb_variant *v)
{
    return v && v->npoints >= 1 && v->npoints <= NP && v->nsyms >= 1 && v->nsyms <= MMTB_MAX_SYMS;
}

/*
 * Colex rank of a mask: the points p_0 < p_1 < ... of m contribute
 * sum_i C(p_i, i+1).  This is the position of m among all masks of the same
 * popcount in increasing numeric order.  Computed a byte at a time:
 * colex_byte[j][c][x] is the share of byte j holding x when c points of m
 * lie in the bytes below it.
 */
static inline uint32_t colex_rank(const mmtb_index *ix, uint32_t m)
{
    uint32_t x0 = m & 0xff, x1 = (m >> 8) & 0xff, x2 = (m >> 16) & 0xff, x3 = m >> 24;
    int c1 = ix->pop8[x0], c2 = c1 + ix->pop8[x1], c3 = c2 + ix->pop8[x2];
    return ix->colex_byte[0][0][x0] + ix->colex_byte[1][c1][x1] + ix->colex_byte[2][c2][x2] +
           ix->colex_byte[3][c3][x3];
}

/*
 * Gather the bits of x that lie on points of e into the low bits, keeping
 * their order (what BMI2's pext does): byte j of e and x is compressed by
 * the table and shifted by the number of points of e in the bytes below.
 */
static inline uint32_t compress_portable(const mmtb_index *ix, uint32_t x, uint32_t e)
{
    uint32_t e0 = e & 0xff, e1 = (e >> 8) & 0xff, e2 = (e >> 16) & 0xff, e3 = e >> 24;
    int s1 = ix->pop8[e0], s2 = s1 + ix->pop8[e1], s3 = s2 + ix->pop8[e2];
    return (uint32_t)ix->compress[e0][x & 0xff] |
           (uint32_t)ix->compress[e1][(x >> 8) & 0xff] << s1 |
           (uint32_t)ix->compress[e2][(x >> 16) & 0xff] << s2 |
           (uint32_t)ix->compress[e3][x >> 24] << s3;
}

/* The inverse of compress: the i-th lowest bit of x goes to the i-th lowest
 * point of e (what BMI2's pdep does). */
static inline uint32_t deposit_portable(uint32_t x, uint32_t e)
{
    uint32_t r = 0;
    for (; e; e &= e - 1, x >>= 1)
        r |= e & -e & -(x & 1); /* the lowest point of e, if bit 0 of x is set */
    return r;
}

/* The numerically smallest image of o under the symmetries in stab (a
 * bitmask of group elements) and the identity. */
static inline uint32_t stab_min(const struct mmtb_variant *v, uint64_t stab, uint32_t o)
{
    uint32_t best = o;
    while (stab) {
        int h = __builtin_ctzll(stab);
        stab &= stab - 1;
        uint32_t x = mmtb_sym_apply(v, h, o);
        if (x < best)
            best = x;
    }
    return best;
}

/* As stab_min, and *fixed = how many group elements (the identity and those
 * in stab) map o to itself: for a canonical mover set Mc with stabilizer
 * stab, the order of the stabilizer of the position (Mc, o). */
static inline uint32_t stab_min_count(const struct mmtb_variant *v, uint64_t stab, uint32_t o,
                                      int *fixed)
{
    uint32_t best = o;
    int f = 1;
    while (stab) {
        int h = __builtin_ctzll(stab);
        stab &= stab - 1;
        uint32_t x = mmtb_sym_apply(v, h, o);
        f += x == o;
        if (x < best)
            best = x;
    }
    *fixed = f;
    return best;
}

/* The next larger mask with the same popcount (Gosper's hack); 64-bit so
 * that the step past the last 32-point subset does not overflow. */
static inline uint64_t next_subset(uint64_t m)
{
    uint64_t t = m | (m - 1);
    return (t + 1) | (((~t & (t + 1)) - 1) >> (__builtin_ctzll(m) + 1));
}

/* ------------------------------------------------------------------------
 * Building the tables.
 * ---------------------------------------------------------------------- */

/*
 * Orbit count of the k-subsets (Burnside, the sector (k,0)); used to size
 * canon[k] exactly before it is filled.
 */
static uint64_t subset_orbits(const struct mmtb_variant *v, int k)
{
    struct mmtb_sector s = {(uint8_t)k, 0, 0, 0};
    return mmtb_index_canonical(v, s);
}

/*
 * Fill lookup[k], canon[k] and stab[k].  Subsets are visited in increasing
 * numeric (= colex) order; the first unvisited subset of an orbit is its
 * smallest member, hence canonical, and its whole orbit is filled at once:
 * the image x = h(m) gets the symmetry h^-1, which maps x back onto m.
 */
static int build_k(mmtb_index *ix, int k)
{
    const struct mmtb_variant *v = ix->v;
    int n = ix->n;
    uint64_t count = ix->binom[n][k];
    if (count > MAX_SUBSETS)
        return MMTB_ERR_UNSUPPORTED;
    uint64_t orbits = subset_orbits(v, k);
    if (orbits >= MAX_CANON)
        return MMTB_ERR_UNSUPPORTED;
    ix->lookup[k] = malloc(count * sizeof(uint32_t));
    ix->canon[k] = malloc(orbits * sizeof(uint32_t));
    ix->stab[k] = malloc(orbits * sizeof(uint64_t));
    if (!ix->lookup[k] || !ix->canon[k] || !ix->stab[k])
        return MMTB_ERR_NOMEM;
    memset(ix->lookup[k], 0xff, count * sizeof(uint32_t));

    uint32_t *lk = ix->lookup[k];
    uint32_t nc = 0;
    uint64_t m = (k == 0) ? 0 : ((uint64_t)1 << k) - 1;
    for (uint64_t idx = 0; idx < count; idx++, m = k ? next_subset(m) : m) {
        if (lk[idx] != LK_EMPTY)
            continue;
        if (nc >= orbits)
            return MMTB_ERR_INVALID; /* the group is not a group */
        uint32_t cm = (uint32_t)m;
        uint64_t stab = 0;
        for (int g = 1; g < v->nsyms; g++)
            if (mmtb_sym_apply(v, g, cm) == cm)
                stab |= (uint64_t)1 << g;
        uint32_t flag = stab ? LK_STAB : 0;
        for (int h = 0; h < v->nsyms; h++) {
            uint32_t x = mmtb_sym_apply(v, h, cm);
            uint32_t xi = colex_rank(ix, x);
            if (lk[xi] == LK_EMPTY)
                lk[xi] = nc | ((uint32_t)v->sym_inv[h] << LK_SYM_SHIFT) | flag;
        }
        ix->canon[k][nc] = cm;
        ix->stab[k][nc] = stab;
        nc++;
    }
    if (nc != orbits)
        return MMTB_ERR_INVALID;
    ix->ncanon[k] = nc;
    return MMTB_OK;
}

/*
 * Use BMI2's pext/pdep when the CPU has them and they are fast (AMD before
 * family 19h implements them in microcode, slower than the tables).
 */
static bool cpu_has_fast_pext(void)
{
#if MMTB_INDEX_X86
    __builtin_cpu_init();
    if (!__builtin_cpu_supports("bmi2"))
        return false;
    if (__builtin_cpu_is("amd") && (__builtin_cpu_is("amdfam10h") ||
                                    __builtin_cpu_is("amdfam15h") || __builtin_cpu_is("amdfam17h")))
        return false;
    return true;
#else
    return false;
#endif
}

/* The compress table of the portable pext, once per index (with BMI2 it
 * is never read).  Recurrence on bit 0 of e: when it is set, bit 0 of x
 * becomes bit 0 of the result and the rest moves up by one place;
 * otherwise only the rest counts. */
static void build_compress(mmtb_index *ix)
{
    if (ix->have_compress)
        return;
    for (int e = 1; e < 256; e++)
        for (int x = 0; x < 256; x++)
            ix->compress[e][x] = e & 1 ? (uint8_t)(ix->compress[e >> 1][x >> 1] << 1 | (x & 1))
                                       : ix->compress[e >> 1][x >> 1];
    ix->have_compress = true;
}

/* Build every table for subsets of at most max_stones points (FORMAT.md,
 * "Index scheme 1"); see the header for the contract. */
int mmtb_index_create(mmtb_index **out, const struct mmtb_variant *v, int max_stones)
{
    if (!out)
        return MMTB_ERR_INVALID;
    *out = NULL;
    if (!variant_ok(v) || max_stones < 0)
        return MMTB_ERR_INVALID;
    for (int g = 0; g < v->nsyms; g++)
        if (v->sym_inv[g] >= v->nsyms)
            return MMTB_ERR_INVALID;
    mmtb_index *ix = calloc(1, sizeof *ix);
    if (!ix)
        return MMTB_ERR_NOMEM;
    ix->v = v;
    ix->n = v->npoints;
    ix->kmax = max_stones < ix->n ? max_stones : ix->n;

    /* Pascal's triangle, row by row (calloc left the zeros for b > a) */
    for (int a = 0; a <= NP; a++) {
        ix->binom[a][0] = 1;
        for (int b = 1; b <= a; b++)
            ix->binom[a][b] = ix->binom[a - 1][b - 1] + ix->binom[a - 1][b];
    }
    for (int i = 0; i <= NP; i++)
        for (int p = 0; p < NP; p++)
            ix->colex[i][p] = (uint32_t)ix->binom[p][i];
    /* colex_byte by a recurrence on the lowest point b of x, one step per
     * entry (every handle open builds it): b is the (c+1)-th smallest and
     * adds C(8j + b, c + 1), the others are the entry of x without b at
     * c + 1.  Only what a mask of at most n points reaches: bytes below
     * point n, c <= n (at c = n the rest reads the zero entries of c = n + 1,
     * right since C(p, t) = 0 for p < n < t). */
    for (int x = 0; x < 256; x++)
        ix->pop8[x] = (uint8_t)__builtin_popcount((unsigned)x);
    for (int j = 0; 8 * j < ix->n; j++)
        for (int c = ix->n; c >= 0; c--)
            for (int x = 1; x < 256; x++) {
                int b = __builtin_ctz((unsigned)x);
                if (c < NP) /* nothing past the 32nd point */
                    ix->colex_byte[j][c][x] = (uint32_t)(ix->binom[8 * j + b][c + 1] +
                                                         ix->colex_byte[j][c + 1][x & (x - 1)]);
            }
    ix->bmi2 = cpu_has_fast_pext();
    if (!ix->bmi2)
        build_compress(ix);

    /* refuse oversized tables before allocating any */
    for (int k = 0; k <= ix->kmax; k++)
        if (ix->binom[ix->n][k] > MAX_SUBSETS || subset_orbits(v, k) >= MAX_CANON) {
            mmtb_index_free(ix);
            return MMTB_ERR_UNSUPPORTED;
        }
    for (int k = 0; k <= ix->kmax; k++) {
        int st = build_k(ix, k);
        if (st != MMTB_OK) {
            mmtb_index_free(ix);
            return st;
        }
    }
    *out = ix;
    return MMTB_OK;
}

/* Testing aid: force the portable code, or return to the automatic choice
 * (see the header).  Returns whether BMI2 is in use afterwards. */
bool mmtb_index_set_portable(mmtb_index *ix, bool portable)
{
    ix->bmi2 = !portable && cpu_has_fast_pext();
    if (!ix->bmi2)
        build_compress(ix);
    return ix->bmi2;
}

/* Free an index and its tables (NULL is accepted). */
void mmtb_index_free(mmtb_index *ix)
{
    if (!ix)
        return;
    for (int k = 0; k <= NP; k++) {
        free(ix->lookup[k]);
        free(ix->canon[k]);
        free(ix->stab[k]);
    }
    free(ix);
}

/* The variant an index was built for (the caller keeps it alive). */
const struct mmtb_variant *mmtb_index_variant(const mmtb_index *ix)
{
    return ix ? ix->v : NULL;
}

/* ------------------------------------------------------------------------
 * Counts.
 * ---------------------------------------------------------------------- */

/* Does the index have tables for sector s? */
static inline bool sector_fits(const mmtb_index *ix, struct mmtb_sector s)
{
    return s.w <= ix->kmax && s.w + s.b <= ix->n;
}

/* slots(s) = |canon[w]| * C(n - w, b); 0 for a sector the index cannot
 * address (w > max_stones, or more stones than points). */
uint64_t mmtb_index_slots(const mmtb_index *ix, struct mmtb_sector s)
{
    if (!ix || !sector_fits(ix, s))
        return 0;
    return (uint64_t)ix->ncanon[s.w] * ix->binom[ix->n - s.w][s.b];
}

/* positions(s) = C(n, w) * C(n - w, b). */
uint64_t mmtb_index_positions(const struct mmtb_variant *v, struct mmtb_sector s)
{
    if (!variant_ok(v) || s.w + s.b > v->npoints)
        return 0;
    return binomial(v->npoints, s.w) * binomial(v->npoints - s.w, s.b);
}

/*
 * Orbits of the positions of s under the symmetry group, by Burnside's
 * lemma: (1/|G|) sum_g fix(g).  A position is fixed by g exactly when both
 * point sets are unions of cycles of g, so fix(g) is the coefficient of
 * x^w y^b in prod_cycles (1 + x^len + y^len), computed by a DP over the
 * cycles.  fix(g) <= 3^32 < 2^51 and |G| <= 64, so the sum fits in 64 bits.
 */
uint64_t mmtb_index_canonical(const struct mmtb_variant *v, struct mmtb_sector s)
{
    if (!variant_ok(v) || s.w + s.b > v->npoints)
        return 0;
    int n = v->npoints, w = s.w, b = s.b;
    uint64_t sum = 0;
    for (int g = 0; g < v->nsyms; g++) {
        /* dp[a][c]: ways to give a points to M and c to O using the cycles seen so far */
        uint64_t dp[NP + 1][NP + 1];
        memset(dp, 0, sizeof dp);
        dp[0][0] = 1;
        uint32_t seen = 0;
        for (int p = 0; p < n; p++) {
            if (seen & (1u << p))
                continue;
            int len = 0;
            for (int q = p; !(seen & (1u << q)); q = v->sym[g][q]) {
                if (q < 0 || q >= n)
                    return 0; /* not a permutation of the board */
                seen |= 1u << q;
                len++;
            }
            for (int a = w; a >= 0; a--)
                for (int c = b; c >= 0; c--) {
                    uint64_t add = 0;
                    if (a >= len)
                        add += dp[a - len][c];
                    if (c >= len)
                        add += dp[a][c - len];
                    dp[a][c] += add;
                }
        }
        sum += dp[w][b];
    }
    return sum / (uint64_t)v->nsyms;
}

/* ------------------------------------------------------------------------
 * Rank and unrank.
 * ---------------------------------------------------------------------- */

/*
 * The rank formula (FORMAT.md, "Index scheme 1"):
 *   (ci, g) = lookup[w][colex(M)],  Mc = g(M) = canon[w][ci],
 *   O'      = min { h(g(O)) : h in Stab(Mc) },
 *   r       = colex(compress(O', board \ Mc)),
 *   slot    = ci * C(n - w, b) + r.
 * No division; `compress` is pext or its table-driven equivalent, passed as
 * a constant so that each caller gets its own inlined copy.
 */
typedef uint32_t (*compress_fn)(const mmtb_index *ix, uint32_t x, uint32_t e);

/* nstab, when not NULL, receives the order of the position's stabilizer:
 * the symmetries g(M) = M that also fix O are those of Stab(Mc) fixing
 * g(O), conjugated.  rep, when not NULL, receives the representative
 * (Mc, O'). */
static inline __attribute__((always_inline)) uint64_t
rank_entry(const mmtb_index *ix, struct mmtb_sector s, uint32_t e, uint32_t mover, uint32_t opp,
           compress_fn compress, int *nstab, uint32_t *rep)
{
    const struct mmtb_variant *v = ix->v;
    int g = (int)((e >> LK_SYM_SHIFT) & LK_SYM_MASK);
    uint32_t ci = e & LK_CI_MASK;
    uint32_t mc = mmtb_sym_apply(v, g, mover);
    uint32_t o = mmtb_sym_apply(v, g, opp);
    if (nstab)
        *nstab = 1;
    if (e & LK_STAB) {
        if (nstab)
            o = stab_min_count(v, ix->stab[s.w][ci], o, nstab);
        else
            o = stab_min(v, ix->stab[s.w][ci], o);
    }
    if (rep) {
        rep[0] = mc;
        rep[1] = o;
    }
    uint32_t r = colex_rank(ix, compress(ix, o, ~mc));
    return (uint64_t)ci * ix->binom[ix->n - s.w][s.b] + r;
}

/* e: the mover's look-up entry */
static inline __attribute__((always_inline)) uint64_t rank_body(const mmtb_index *ix,
                                                                struct mmtb_sector s,
                                                                uint32_t mover, uint32_t opp,
                                                                compress_fn compress, int *nstab)
{
    return rank_entry(ix, s, ix->lookup[s.w][colex_rank(ix, mover)], mover, opp, compress,
                      nstab, NULL);
}

/*
 * rank_body for n positions with their own movers: the mover look-ups
 * (cache misses in tables of megabytes) are started for a group of
 * positions before the first is used.
 */
#define RANK_GROUP 16
static inline __attribute__((always_inline)) void
rank_stab_many_body(const mmtb_index *ix, struct mmtb_sector s, const uint32_t *movers,
                    const uint32_t *opps, int n, uint64_t *out, int *nstab, compress_fn compress)
{
    const uint32_t *lk = ix->lookup[s.w];
    for (int k0 = 0; k0 < n; k0 += RANK_GROUP) {
        int k1 = k0 + RANK_GROUP < n ? k0 + RANK_GROUP : n;
        uint32_t cr[RANK_GROUP];
        for (int k = k0; k < k1; k++) {
            cr[k - k0] = colex_rank(ix, movers[k]);
            __builtin_prefetch(&lk[cr[k - k0]]);
        }
        for (int k = k0; k < k1; k++)
            out[k] = rank_entry(ix, s, lk[cr[k - k0]], movers[k], opps[k], compress, &nstab[k],
                                NULL);
    }
}

static uint64_t rank_portable(const mmtb_index *ix, struct mmtb_sector s, uint32_t mover,
                              uint32_t opp, int *nstab)
{
    return rank_body(ix, s, mover, opp, compress_portable, nstab);
}

#if MMTB_INDEX_X86
static inline __attribute__((always_inline, target("bmi2"))) uint32_t
compress_bmi2(const mmtb_index *ix, uint32_t x, uint32_t e)
{
    (void)ix;
    return _pext_u32(x, e);
}

static __attribute__((target("bmi2"))) uint64_t
rank_bmi2(const mmtb_index *ix, struct mmtb_sector s, uint32_t mover, uint32_t opp)
{
    return rank_body(ix, s, mover, opp, compress_bmi2, NULL);
}

static __attribute__((target("bmi2"))) uint64_t
rank_rep_bmi2(const mmtb_index *ix, struct mmtb_sector s, uint32_t e, uint32_t mover, uint32_t opp,
              uint32_t *rep)
{
    return rank_entry(ix, s, e, mover, opp, compress_bmi2, NULL, rep);
}

static __attribute__((target("bmi2"))) void
rank_stab_many_bmi2(const mmtb_index *ix, struct mmtb_sector s, const uint32_t *movers,
                    const uint32_t *opps, int n, uint64_t *out, int *nstab)
{
    rank_stab_many_body(ix, s, movers, opps, n, out, nstab, compress_bmi2);
}

static __attribute__((target("bmi2"))) uint64_t rank_stab_bmi2(const mmtb_index *ix,
                                                              struct mmtb_sector s,
                                                              uint32_t mover, uint32_t opp,
                                                              int *nstab)
{
    return rank_body(ix, s, mover, opp, compress_bmi2, nstab);
}
#endif

/* Rank: see rank_body for the formula; the BMI2 and portable versions
 * return the same slot. */
uint64_t mmtb_index_rank(const mmtb_index *ix, struct mmtb_sector s, uint32_t mover, uint32_t opp)
{
#if MMTB_INDEX_X86
    if (ix->bmi2)
        return rank_bmi2(ix, s, mover, opp);
#endif
    return rank_portable(ix, s, mover, opp, NULL);
}

uint64_t mmtb_index_rank_stab(const mmtb_index *ix, struct mmtb_sector s, uint32_t mover,
                              uint32_t opp, int *nstab)
{
#if MMTB_INDEX_X86
    if (ix->bmi2)
        return rank_stab_bmi2(ix, s, mover, opp, nstab);
#endif
    return rank_portable(ix, s, mover, opp, nstab);
}

uint64_t mmtb_index_rank_rep(const mmtb_index *ix, struct mmtb_sector s, uint32_t mover,
                             uint32_t opp, uint32_t *rep_mover, uint32_t *rep_opp, int *sym)
{
    uint32_t e = ix->lookup[s.w][colex_rank(ix, mover)], rep[2];
    *sym = (e & LK_STAB) ? -1 : (int)((e >> LK_SYM_SHIFT) & LK_SYM_MASK);
    uint64_t slot;
#if MMTB_INDEX_X86
    if (ix->bmi2)
        slot = rank_rep_bmi2(ix, s, e, mover, opp, rep);
    else
#endif
        slot = rank_entry(ix, s, e, mover, opp, compress_portable, NULL, rep);
    *rep_mover = rep[0];
    *rep_opp = rep[1];
    return slot;
}

void mmtb_index_rank_stab_many(const mmtb_index *ix, struct mmtb_sector s,
                               const uint32_t *movers, const uint32_t *opps, int n,
                               uint64_t *out, int *nstab)
{
#if MMTB_INDEX_X86
    if (ix->bmi2) {
        rank_stab_many_bmi2(ix, s, movers, opps, n, out, nstab);
        return;
    }
#endif
    rank_stab_many_body(ix, s, movers, opps, n, out, nstab, compress_portable);
}

/* rank_body in two steps (mmtb_index_mover_prepare, rank_prepared_body):
 * the mover's look-up, symmetry and stabilizer once for many opponent
 * sets. */
void mmtb_index_mover_prepare(const mmtb_index *ix, struct mmtb_sector s, uint32_t mover,
                              struct mmtb_index_mover *m)
{
    uint32_t e = ix->lookup[s.w][colex_rank(ix, mover)];
    uint32_t ci = e & LK_CI_MASK;
    m->g = (int)((e >> LK_SYM_SHIFT) & LK_SYM_MASK);
    m->free_ = ~mmtb_sym_apply(ix->v, m->g, mover);
    m->base = (uint64_t)ci * ix->binom[ix->n - s.w][s.b];
    m->stab = (e & LK_STAB) ? ix->stab[s.w][ci] : 0;
}

/* The rank of (the prepared mover, opp). */
static inline __attribute__((always_inline)) uint64_t
rank_prepared_body(const mmtb_index *ix, const struct mmtb_index_mover *m, uint32_t opp,
                   compress_fn compress)
{
    uint32_t o = mmtb_sym_apply(ix->v, m->g, opp);
    if (m->stab)
        o = stab_min(ix->v, m->stab, o);
    return m->base + colex_rank(ix, compress(ix, o, m->free_));
}

/* rank_body for several opponent sets of one mover. */
static inline __attribute__((always_inline)) void
rank_many_body(const mmtb_index *ix, struct mmtb_sector s, uint32_t mover, const uint32_t *opps,
               int n, uint64_t *out, compress_fn compress)
{
    struct mmtb_index_mover m;
    mmtb_index_mover_prepare(ix, s, mover, &m);
    for (int k = 0; k < n; k++)
        out[k] = rank_prepared_body(ix, &m, opps[k], compress);
}

#if MMTB_INDEX_X86
static __attribute__((target("bmi2"))) void rank_many_bmi2(const mmtb_index *ix,
                                                           struct mmtb_sector s, uint32_t mover,
                                                           const uint32_t *opps, int n,
                                                           uint64_t *out)
{
    rank_many_body(ix, s, mover, opps, n, out, compress_bmi2);
}
#endif

void mmtb_index_rank_same_mover(const mmtb_index *ix, struct mmtb_sector s, uint32_t mover,
                                const uint32_t *opps, int n, uint64_t *out)
{
#if MMTB_INDEX_X86
    if (ix->bmi2) {
        rank_many_bmi2(ix, s, mover, opps, n, out);
        return;
    }
#endif
    rank_many_body(ix, s, mover, opps, n, out, compress_portable);
}

#if MMTB_INDEX_X86
static __attribute__((target("bmi2"))) uint64_t
rank_prepared_bmi2(const mmtb_index *ix, const struct mmtb_index_mover *m, uint32_t opp)
{
    return rank_prepared_body(ix, m, opp, compress_bmi2);
}
#endif

uint64_t mmtb_index_rank_prepared(const mmtb_index *ix, const struct mmtb_index_mover *m,
                                  uint32_t opp)
{
#if MMTB_INDEX_X86
    if (ix->bmi2)
        return rank_prepared_bmi2(ix, m, opp);
#endif
    return rank_prepared_body(ix, m, opp, compress_portable);
}

uint64_t mmtb_index_plain_block(const mmtb_index *ix, struct mmtb_sector s, uint32_t mover)
{
    uint32_t e = ix->lookup[s.w][colex_rank(ix, mover)];
    uint32_t ci = e & LK_CI_MASK;
    if ((e & LK_STAB) || ix->canon[s.w][ci] != mover)
        return UINT64_MAX;
    /* no symmetry but the identity fixes mover, so the one that maps it to
     * its canonical form (itself) is the identity: opponent sets are
     * ranked as they are */
    return (uint64_t)ci * ix->binom[ix->n - s.w][s.b];
}

/* The colex rank of x | 1 << j for each j of a, ascending: with x's points
 * e_0 < e_1 < ..., the c of them below j keep their terms C(e_i, i + 1),
 * those above move up one place, C(e_i, i + 2), and j adds C(j, c + 1).
 * The sums below and above are tabled by c first (added together), so
 * that each j costs a popcount and two loads, without a branch. */
static inline __attribute__((always_inline)) int
rank_added_body(const mmtb_index *ix, uint32_t mover, uint32_t opp, uint32_t add, uint32_t *out,
                compress_fn compress)
{
    uint32_t e = ix->v->full & ~mover;
    uint32_t x = compress(ix, opp, e), a = compress(ix, add, e);
    uint32_t below[NP + 1], above[NP + 1];
    int m = 0;
    below[0] = 0;
    for (uint32_t t = x; t; t &= t - 1, m++)
        below[m + 1] = below[m] + ix->colex[m + 1][__builtin_ctz(t)];
    above[m] = 0;
    int c = m;
    for (uint32_t t = x; c > 0; c--) {
        int p = 31 - __builtin_clz(t);
        t ^= 1u << p;
        above[c - 1] = above[c] + ix->colex[c + 1][p];
    }
    for (c = 0; c <= m; c++)
        below[c] += above[c];
    int n = 0;
    for (; a; a &= a - 1) {
        int j = __builtin_ctz(a);
        int k = __builtin_popcount(x & ((1u << j) - 1));
        out[n++] = below[k] + ix->colex[k + 1][j];
    }
    return n;
}

#if MMTB_INDEX_X86
static __attribute__((target("bmi2,popcnt"))) int rank_added_bmi2(const mmtb_index *ix, uint32_t mover,
                                                           uint32_t opp, uint32_t add,
                                                           uint32_t *out)
{
    return rank_added_body(ix, mover, opp, add, out, compress_bmi2);
}
#endif

int mmtb_index_rank_added(const mmtb_index *ix, uint32_t mover, uint32_t opp, uint32_t add,
                          uint32_t *out)
{
#if MMTB_INDEX_X86
    if (ix->bmi2)
        return rank_added_bmi2(ix, mover, opp, add, out);
#endif
    return rank_added_body(ix, mover, opp, add, out, compress_portable);
}

/* The b-subset of {0, ..., 31} with colex rank r: greedily, for i = b,
 * b-1, ..., 1, the largest q with C(q, i) <= r, and r -= C(q, i). */
static inline uint32_t colex_unrank(const mmtb_index *ix, int b, uint32_t r)
{
    uint32_t m = 0;
    for (int i = b; i >= 1; i--) {
        /* C(q, i) is 0 for q < i and increasing from there, and C(q, i) > r
         * for every q above the answer, so the answer is one less than the
         * number of q with C(q, i) <= r (a fixed-length loop the compiler
         * vectorizes, free of mispredicted branches). */
        const uint32_t *col = ix->colex[i];
        int count = 0;
        for (int q = 0; q < NP; q++)
            count += col[q] <= r;
        m |= 1u << (count - 1);
        r -= col[count - 1];
    }
    return m;
}

#if MMTB_INDEX_X86
static __attribute__((target("bmi2"))) uint32_t deposit_bmi2(uint32_t x, uint32_t e)
{
    return _pdep_u32(x, e);
}
#endif

/* Split a slot into the canonical mover set and the opponent set stored
 * there (whether or not that is the stabilizer minimum). */
static void unrank_raw(const mmtb_index *ix, struct mmtb_sector s, uint64_t slot, uint32_t *ci,
                       uint32_t *mover, uint32_t *opp)
{
    uint64_t per = ix->binom[ix->n - s.w][s.b];
    /* 32-bit division where it suffices (most sectors): much faster */
    uint64_t c = (slot >> 32) ? slot / per : (uint32_t)slot / (uint32_t)per;
    uint32_t r = (uint32_t)(slot - c * per); /* < C(n-w, b) <= C(32,16) < 2^32 */
    uint32_t mc = ix->canon[s.w][c];
    uint32_t e = ix->v->full & ~mc;
    /* Complements reverse the colex order: the complement within the m
     * points of E of the subset with rank r has rank C(m, b) - 1 - r.
     * Unrank whichever of the two has fewer elements. */
    int m = ix->n - s.w;
    uint32_t x;
    if (2 * s.b > m)
        x = ~colex_unrank(ix, m - s.b, (uint32_t)(per - 1 - r)) &
            (uint32_t)(((uint64_t)1 << m) - 1);
    else
        x = colex_unrank(ix, s.b, r);
    *ci = (uint32_t)c;
    *mover = mc;
#if MMTB_INDEX_X86
    if (ix->bmi2) {
        *opp = deposit_bmi2(x, e);
        return;
    }
#endif
    *opp = deposit_portable(x, e);
}

/* Unrank: Mc = canon[w][slot / C(n-w,b)] and the b-subset of its complement
 * with colex rank slot % C(n-w,b).  The inverse of rank on canonical slots;
 * a wasted slot unranks to a position whose rank is another slot. */
void mmtb_index_unrank(const mmtb_index *ix, struct mmtb_sector s, uint64_t slot, uint32_t *mover,
                       uint32_t *opp)
{
    uint32_t ci;
    unrank_raw(ix, s, slot, &ci, mover, opp);
}

/* A slot is canonical when its opponent set is the smallest of its images
 * under the stabilizer of its canonical mover set. */
bool mmtb_index_slot_is_canonical(const mmtb_index *ix, struct mmtb_sector s, uint64_t slot)
{
    if (!sector_fits(ix, s) || slot >= mmtb_index_slots(ix, s))
        return false;
    uint32_t ci, m, o;
    unrank_raw(ix, s, slot, &ci, &m, &o);
    uint64_t stab = ix->stab[s.w][ci];
    return !stab || stab_min(ix->v, stab, o) == o;
}

/* Position the walk on canonical mover set ci, opponent colex rank r. */
static void iter_seek(struct mmtb_index_iter *it, uint32_t ci, uint32_t x)
{
    const mmtb_index *ix = it->ix;
    it->ci = ci;
    it->mover = ix->canon[it->s.w][ci];
    it->empty = ix->v->full & ~it->mover;
    it->stab = ix->stab[it->s.w][ci];
    it->x = x;
}

void mmtb_index_iter_start(struct mmtb_index_iter *it, const mmtb_index *ix,
                           struct mmtb_sector s, uint64_t first, uint64_t end)
{
    it->ix = ix;
    it->s = s;
    it->slot = first;
    it->end = end;
    int m = ix->n - s.w;
    /* the masks of b-subsets of m points lie below 2^m */
    it->xend = m >= 32 ? 0 : (uint32_t)1 << m;
    if (first >= end)
        return;
    uint32_t ci, mo, o;
    unrank_raw(ix, s, first, &ci, &mo, &o);
    uint64_t per = ix->binom[m][s.b];
    uint64_t r = first - (uint64_t)ci * per;
    uint32_t x = s.b ? colex_unrank(ix, s.b, (uint32_t)r) : 0;
    iter_seek(it, ci, x);
}

/* Next b-subset in increasing mask order (Gosper's hack); 0 stays 0. */
static inline uint32_t next_same_popcount(uint32_t x)
{
    if (!x)
        return UINT32_MAX; /* the empty set has no successor */
    uint32_t c = x & -x, r = x + c;
    if (r == 0)
        return UINT32_MAX;
    return ((r ^ x) >> 2 >> __builtin_ctz(x)) | r; /* c is 1 << ctz(x): no division */
}

/* Move to the next slot of the walk without computing the position there. */
static inline void iter_step(struct mmtb_index_iter *it)
{
    if (++it->slot >= it->end)
        return;
    uint32_t nx = next_same_popcount(it->x);
    if (nx == UINT32_MAX || (it->xend && nx >= it->xend))
        iter_seek(it, it->ci + 1, it->s.b ? (uint32_t)(((uint64_t)1 << it->s.b) - 1) : 0);
    else
        it->x = nx;
}

bool mmtb_index_iter_next(struct mmtb_index_iter *it, uint64_t *slot, uint32_t *mover,
                          uint32_t *opp, bool *canonical)
{
    if (it->slot >= it->end)
        return false;
    uint32_t o;
#if MMTB_INDEX_X86
    if (it->ix->bmi2)
        o = deposit_bmi2(it->x, it->empty);
    else
#endif
        o = deposit_portable(it->x, it->empty);
    *slot = it->slot;
    *mover = it->mover;
    *opp = o;
    it->nstab = 1;
    *canonical = !it->stab || stab_min_count(it->ix->v, it->stab, o, &it->nstab) == o;
    iter_step(it);
    return true;
}

/* A step costs a few nanoseconds and an unrank some tens, so walk up to
 * this many slots and start afresh beyond. */
#define SKIP_WALK_MAX 32

void mmtb_index_iter_skip_to(struct mmtb_index_iter *it, uint64_t slot)
{
    if (slot - it->slot > SKIP_WALK_MAX) {
        mmtb_index_iter_start(it, it->ix, it->s, slot, it->end);
        return;
    }
    while (it->slot < slot && it->slot < it->end)
        iter_step(it); /* the slots passed are not looked at */
}

/* ------------------------------------------------------------------------
 * Sector graph.
 * ---------------------------------------------------------------------- */

/* Fewest stones in a mill of the variant (0 when it has no mills). */
static int min_mill_size(const struct mmtb_variant *v)
{
    int best = 0;
    for (int i = 0; i < v->nmills; i++) {
        int c = __builtin_popcount(v->mill[i]);
        if (!best || c < best)
            best = c;
    }
    return best;
}

/* Append t to out[0..cnt) unless it is there already or its side to move
 * (the old opponent) has lost; returns the new count. */
static int add_successor(const struct mmtb_variant *v, struct mmtb_sector t,
                         struct mmtb_sector out[8], int cnt)
{
    if (t.w + t.w_hand < v->min_stones || t.w + t.b > v->npoints)
        return cnt;
    for (int i = 0; i < cnt; i++)
        if (memcmp(&out[i], &t, sizeof t) == 0)
            return cnt;
    out[cnt] = t;
    return cnt + 1;
}

static struct mmtb_sector sector(int w, int b, int wh, int bh)
{
    struct mmtb_sector s = {(uint8_t)w, (uint8_t)b, (uint8_t)wh, (uint8_t)bh};
    return s;
}

/*
 * Successor sectors of s = (w, b, wh, bh), written mover first (so the roles
 * swap):
 *   placement (wh > 0, an empty point):  (b, w+1, bh, wh-1), and with a
 *     capture (b-1, w+1, bh, wh-1);
 *   movement (wh == 0 or place_or_move; w > 0; an empty point):
 *     (b, w, bh, wh), and with a capture (b-1, w, bh, wh);
 *   pass (nomove == PASSES, no placement possible; or Shah's opening,
 *     both hands empty): (b, w, bh, wh);
 *   Shah's opening removal (first_mill_removal, both hands empty, a mill's
 *     worth of the mover's stones): (b-1, w, 0, 0).
 * A capture needs captures in the variant (place_captures for placements,
 * not first_mill_wins), b > 0, and at least a mill's worth of the mover's
 * stones on the board after the move.  Results where the new side to move
 * has fewer than min_stones stones on board and in hand are wins for the old
 * mover and left out.
 */
int mmtb_sector_moves_to(const struct mmtb_variant *v, struct mmtb_sector s,
                         struct mmtb_sector out[8])
{
    if (!variant_ok(v) || s.w + s.b > v->npoints)
        return 0;
    int w = s.w, b = s.b, wh = s.w_hand, bh = s.b_hand;
    int mill = min_mill_size(v);
    bool captures = !v->first_mill_wins && mill > 0 && b > 0;
    bool empty = w + b < v->npoints;
    int cnt = 0;
    if (wh > 0 && empty) {
        cnt = add_successor(v, sector(b, w + 1, bh, wh - 1), out, cnt);
        if (captures && v->place_captures && w + 1 >= mill)
            cnt = add_successor(v, sector(b - 1, w + 1, bh, wh - 1), out, cnt);
    }
    if ((wh == 0 || v->place_or_move) && w > 0 && empty) {
        cnt = add_successor(v, sector(b, w, bh, wh), out, cnt);
        if (captures && w >= mill)
            cnt = add_successor(v, sector(b - 1, w, bh, wh), out, cnt);
    }
    bool opening = v->first_mill_removal && wh == 0 && bh == 0;
    if ((v->nomove == MMTB_NOMOVE_PASSES && !(wh > 0 && empty)) || opening)
        cnt = add_successor(v, sector(b, w, bh, wh), out, cnt);
    if (opening && b > 0 && mill > 0 && w >= mill)
        cnt = add_successor(v, sector(b - 1, w, 0, 0), out, cnt);
    return cnt;
}

/* The sector with the roles swapped: the partner a quiet move leads to. */
static struct mmtb_sector partner(struct mmtb_sector s)
{
    return sector(s.b, s.w, s.b_hand, s.w_hand);
}

/* Lexicographic comparison of (w, b, wh, bh). */
static int lex_cmp(struct mmtb_sector a, struct mmtb_sector c)
{
    if (a.w != c.w)
        return a.w < c.w ? -1 : 1;
    if (a.b != c.b)
        return a.b < c.b ? -1 : 1;
    if (a.w_hand != c.w_hand)
        return a.w_hand < c.w_hand ? -1 : 1;
    if (a.b_hand != c.b_hand)
        return a.b_hand < c.b_hand ? -1 : 1;
    return 0;
}

/*
 * Solving order: by total stones (board + hand) ascending, then stones in
 * hand ascending; every move either lowers one of these or is a quiet
 * movement/pass into the partner sector.  Partners are kept together by
 * comparing their pair representative (the lexicographically larger of
 * the two, which has w >= b) and put the representative first.
 */
static int order_cmp(const void *pa, const void *pb)
{
    struct mmtb_sector a = *(const struct mmtb_sector *)pa;
    struct mmtb_sector c = *(const struct mmtb_sector *)pb;
    int ta = a.w + a.b + a.w_hand + a.b_hand, tc = c.w + c.b + c.w_hand + c.b_hand;
    if (ta != tc)
        return ta < tc ? -1 : 1;
    int ha = a.w_hand + a.b_hand, hc = c.w_hand + c.b_hand;
    if (ha != hc)
        return ha < hc ? -1 : 1;
    struct mmtb_sector ra = partner(a), rc = partner(c);
    if (lex_cmp(a, ra) > 0)
        ra = a;
    if (lex_cmp(c, rc) > 0)
        rc = c;
    int r = lex_cmp(ra, rc);
    if (r != 0)
        return r;
    /* same pair: the representative first */
    bool a_rep = lex_cmp(a, ra) == 0, c_rep = lex_cmp(c, rc) == 0;
    return a_rep == c_rep ? 0 : (a_rep ? -1 : 1);
}

/*
 * The sectors of a game in solving order (see the header).  Reachable
 * sectors are found by a search from the start over mmtb_sector_moves_to,
 * with a bit per (w, b, wh, bh) (hands never exceed the larger start hand).
 */
int mmtb_sector_list(const struct mmtb_variant *v, int start_w_hand, int start_b_hand,
                     int max_stones, struct mmtb_sector *out, int cap)
{
    if (!variant_ok(v) || start_w_hand < 0 || start_b_hand < 0 || start_w_hand > 255 ||
        start_b_hand > 255 || cap < 0 || (cap > 0 && !out))
        return MMTB_ERR_INVALID;
    int n = v->npoints;
    struct mmtb_sector *list = NULL;
    int cnt = 0;

    if (start_w_hand == 0 && start_b_hand == 0) {
        int hi = max_stones <= 0 ? v->stones : max_stones;
        int lo = v->min_stones > 0 ? v->min_stones : 0;
        if (hi > n)
            hi = n;
        list = malloc((size_t)(hi + 1) * (hi + 1) * sizeof *list + 1);
        if (!list)
            return MMTB_ERR_NOMEM;
        for (int w = lo; w <= hi; w++)
            for (int b = lo; b <= hi; b++)
                if (w + b <= n)
                    list[cnt++] = sector(w, b, 0, 0);
    } else {
        int h = (start_w_hand > start_b_hand ? start_w_hand : start_b_hand) + 1;
        size_t nbits = (size_t)(n + 1) * (n + 1) * h * h;
        uint8_t *seen = calloc(nbits / 8 + 1, 1);
        size_t room = 64;
        list = malloc(room * sizeof *list);
        if (!seen || !list) {
            free(seen);
            free(list);
            return MMTB_ERR_NOMEM;
        }
#define SEEN_BIT(t) (((((size_t)(t).w * (n + 1) + (t).b) * h + (t).w_hand) * h) + (t).b_hand)
        struct mmtb_sector start = sector(0, 0, start_w_hand, start_b_hand);
        list[cnt++] = start;
        seen[SEEN_BIT(start) / 8] |= (uint8_t)(1u << (SEEN_BIT(start) % 8));
        for (int i = 0; i < cnt; i++) {
            struct mmtb_sector next[8];
            int k = mmtb_sector_moves_to(v, list[i], next);
            for (int j = 0; j < k; j++) {
                size_t bit = SEEN_BIT(next[j]);
                if (seen[bit / 8] & (1u << (bit % 8)))
                    continue;
                seen[bit / 8] |= (uint8_t)(1u << (bit % 8));
                if ((size_t)cnt == room) {
                    struct mmtb_sector *grown = realloc(list, 2 * room * sizeof *list);
                    if (!grown) {
                        free(seen);
                        free(list);
                        return MMTB_ERR_NOMEM;
                    }
                    list = grown;
                    room *= 2;
                }
                list[cnt++] = next[j];
            }
        }
#undef SEEN_BIT
        free(seen);
    }
    qsort(list, (size_t)cnt, sizeof *list, order_cmp);
    if (cnt > cap) {
        free(list);
        return MMTB_ERR_INVALID;
    }
    if (cnt)
        memcpy(out, list, (size_t)cnt * sizeof *list);
    free(list);
    return cnt;
}

/* ------------------------------------------------------------------------
 * Text form.
 * ---------------------------------------------------------------------- */

/* Write "w-b" (both hands empty) or "w-b-wh-bh"; returns the length, or
 * MMTB_ERR_INVALID when buf is too small. */
int mmtb_sector_format(struct mmtb_sector s, char *buf, size_t len)
{
    if (!buf || len == 0)
        return MMTB_ERR_INVALID;
    int r;
    if (s.w_hand == 0 && s.b_hand == 0)
        r = snprintf(buf, len, "%u-%u", s.w, s.b);
    else
        r = snprintf(buf, len, "%u-%u-%u-%u", s.w, s.b, s.w_hand, s.b_hand);
    if (r < 0 || (size_t)r >= len) {
        buf[0] = '\0';
        return MMTB_ERR_INVALID;
    }
    return r;
}

/* Parse the forms mmtb_sector_format writes: two or four decimal numbers
 * 0..32 without signs or leading zeros, separated by single '-'. */
int mmtb_sector_parse(const char *text, struct mmtb_sector *s)
{
    if (!text || !s)
        return MMTB_ERR_PARSE;
    int num[4], cnt = 0;
    const char *p = text;
    for (;;) {
        if (*p < '0' || *p > '9' || cnt == 4)
            return MMTB_ERR_PARSE;
        if (p[0] == '0' && p[1] >= '0' && p[1] <= '9')
            return MMTB_ERR_PARSE;
        int x = 0;
        while (*p >= '0' && *p <= '9') {
            x = 10 * x + (*p - '0');
            if (x > NP)
                return MMTB_ERR_PARSE;
            p++;
        }
        num[cnt++] = x;
        if (*p == '\0')
            break;
        if (*p != '-')
            return MMTB_ERR_PARSE;
        p++;
    }
    if (cnt != 2 && cnt != 4)
        return MMTB_ERR_PARSE;
    *s = sector(num[0], num[1], cnt == 4 ? num[2] : 0, cnt == 4 ? num[3] : 0);
    return MMTB_OK;
}
