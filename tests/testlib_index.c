/*
 * testlib_index.c - the slow reference behind the index tests (see
 * testlib_index.h).  Deliberately simple: loops over points and group
 * elements, no tables shared with format/sector_index.c.
 */
#include "testlib_index.h"

#include <stdlib.h>
#include <string.h>

/* C(n, k) by the multiplicative formula; every partial product is a
 * binomial coefficient times a small factor, so it stays exact. */
uint64_t tref_binom(int n, int k)
{
    if (k < 0 || n < 0 || k > n)
        return 0;
    uint64_t c = 1;
    for (int i = 0; i < k; i++)
        c = c * (uint64_t)(n - i) / (uint64_t)(i + 1);
    return c;
}

/* g maps point p to v->sym[g][p]. */
uint32_t tref_apply(const struct mmtb_variant *v, int g, uint32_t m)
{
    uint32_t r = 0;
    for (int p = 0; p < v->npoints; p++)
        if (m & (1u << p))
            r |= 1u << v->sym[g][p];
    return r;
}

uint32_t tref_deposit(uint32_t x, uint32_t e)
{
    uint32_t r = 0;
    int i = 0;
    for (int p = 0; p < 32; p++)
        if (e & (1u << p)) {
            if (x & (1u << i))
                r |= 1u << p;
            i++;
        }
    return r;
}

uint64_t tref_next_subset(uint64_t m)
{
    uint64_t low = m & -m;
    uint64_t ripple = m + low;
    return ripple | (((m ^ ripple) >> 2) / low);
}

/*
 * Burnside: orbits = (1/|G|) sum_g fix(g).  With c_L cycles of length L in
 * g, a fixed position picks i of them for the mover and j for the opponent,
 * in c_L! / (i! j! (c_L-i-j)!) ways, adding i*L and j*L stones; fix(g) is the
 * coefficient of x^w y^b in the product over L.
 */
uint64_t tref_orbits(const struct mmtb_variant *v, int w, int b)
{
    int n = v->npoints;
    if (w < 0 || b < 0 || w + b > n)
        return 0;
    uint64_t total = 0;
    for (int g = 0; g < v->nsyms; g++) {
        int count[MMTB_MAX_POINTS + 1] = {0};
        bool seen[MMTB_MAX_POINTS] = {false};
        for (int p = 0; p < n; p++) {
            if (seen[p])
                continue;
            int len = 0;
            for (int q = p; !seen[q]; q = v->sym[g][q]) {
                seen[q] = true;
                len++;
            }
            count[len]++;
        }
        /* poly[a][c]: coefficient of x^a y^c, truncated at x^w y^b */
        static uint64_t poly[MMTB_MAX_POINTS + 1][MMTB_MAX_POINTS + 1];
        static uint64_t next[MMTB_MAX_POINTS + 1][MMTB_MAX_POINTS + 1];
        memset(poly, 0, sizeof poly);
        poly[0][0] = 1;
        for (int len = 1; len <= n; len++) {
            int c = count[len];
            if (!c)
                continue;
            memset(next, 0, sizeof next);
            for (int i = 0; i <= c; i++)
                for (int j = 0; i + j <= c; j++) {
                    uint64_t ways = tref_binom(c, i) * tref_binom(c - i, j);
                    for (int a = 0; a + i * len <= w; a++)
                        for (int d = 0; d + j * len <= b; d++)
                            next[a + i * len][d + j * len] += ways * poly[a][d];
                }
            memcpy(poly, next, sizeof poly);
        }
        total += poly[w][b];
    }
    return total / (uint64_t)v->nsyms;
}

/* A k-subset is canonical when no symmetry maps it to a smaller mask. */
static bool subset_is_canonical(const struct tref_index *r, uint32_t m)
{
    for (int g = 1; g < r->v->nsyms; g++)
        if (tref_img(r, g, m) < m)
            return false;
    return true;
}

/* Minimum of (g(mover), g(opp)) over the group, mover first. */
uint64_t tref_canon_pos(const struct tref_index *r, uint32_t mover, uint32_t opp)
{
    uint64_t best = UINT64_MAX;
    for (int g = 0; g < r->v->nsyms; g++) {
        uint64_t x = (uint64_t)tref_img(r, g, mover) << 32 | tref_img(r, g, opp);
        if (x < best)
            best = x;
    }
    return best;
}

bool tref_pos_is_canonical(const struct tref_index *r, uint32_t mover, uint32_t opp)
{
    for (int g = 1; g < r->v->nsyms; g++) {
        uint32_t m = tref_img(r, g, mover);
        if (m < mover || (m == mover && tref_img(r, g, opp) < opp))
            return false;
    }
    return true;
}

void tref_index_init(struct tref_index *r, const struct mmtb_variant *v, int kmax)
{
    memset(r, 0, sizeof *r);
    r->v = v;
    r->kmax = kmax;
    int n = v->npoints;
    r->tab = calloc((size_t)v->nsyms, sizeof *r->tab);
    for (int g = 0; g < v->nsyms; g++)
        for (int j = 0; j < 4; j++)
            for (int x = 0; x < 256; x++)
                r->tab[g][j][x] = tref_apply(v, g, ((uint32_t)x << (8 * j)) & v->full);
    for (int k = 0; k <= kmax && k <= n; k++) {
        uint64_t total = tref_binom(n, k);
        r->canon[k] = malloc(total * sizeof(uint32_t));
        uint64_t m = ((uint64_t)1 << k) - 1;
        for (uint64_t i = 0; i < total; i++, m = k ? tref_next_subset(m) : m)
            if (subset_is_canonical(r, (uint32_t)m))
                r->canon[k][r->ncanon[k]++] = (uint32_t)m;
    }
}

void tref_index_free(struct tref_index *r)
{
    for (int k = 0; k <= MMTB_MAX_POINTS; k++)
        free(r->canon[k]);
    free(r->tab);
    memset(r, 0, sizeof *r);
}

uint64_t tref_slots(const struct tref_index *r, int w, int b)
{
    return r->ncanon[w] * tref_binom(r->v->npoints - w, b);
}

/*
 * Index scheme 1 as FORMAT.md states it: Mc = the smallest image of M,
 * ci = its position in the sorted canonical list, g any symmetry with
 * g(M) = Mc; O' = the smallest h(g(O)) over the h that fix Mc; r = colex
 * rank of O' with its points renumbered within the complement of Mc;
 * slot = ci * C(n-w, b) + r.
 */
uint64_t tref_rank(const struct tref_index *r, int w, int b, uint32_t mover, uint32_t opp)
{
    const struct mmtb_variant *v = r->v;
    uint32_t mc = UINT32_MAX;
    int gbest = 0;
    for (int g = 0; g < v->nsyms; g++) {
        uint32_t x = tref_img(r, g, mover);
        if (x < mc) {
            mc = x;
            gbest = g;
        }
    }
    uint32_t o1 = tref_img(r, gbest, opp), ob = o1;
    for (int h = 0; h < v->nsyms; h++)
        if (tref_img(r, h, mc) == mc && tref_img(r, h, o1) < ob)
            ob = tref_img(r, h, o1);
    uint64_t lo = 0, hi = r->ncanon[w];
    while (hi - lo > 1) {
        uint64_t mid = (lo + hi) / 2;
        if (r->canon[w][mid] <= mc)
            lo = mid;
        else
            hi = mid;
    }
    uint32_t e = v->full & ~mc;
    uint64_t rank = 0;
    int i = 0, q = 0;
    for (int p = 0; p < v->npoints; p++) {
        if (!(e & (1u << p)))
            continue;
        if (ob & (1u << p))
            rank += tref_binom(q, ++i);
        q++;
    }
    return lo * tref_binom(v->npoints - w, b) + rank;
}

uint64_t tref_rand(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

uint32_t tref_rand_subset(uint64_t *state, uint32_t avail, int k)
{
    uint32_t m = 0;
    int left = __builtin_popcount(avail);
    /* choose each point of avail with probability (still needed)/(still left) */
    for (int p = 0; p < 32 && k > 0; p++) {
        if (!(avail & (1u << p)))
            continue;
        if (tref_rand(state) % (uint64_t)left < (uint64_t)k) {
            m |= 1u << p;
            k--;
        }
        left--;
    }
    return m;
}
