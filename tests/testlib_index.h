/*
 * testlib_index.h - a slow, independent reference for the sector index
 * tests: symmetry images point by point, canonical forms by brute force, a
 * reference implementation of "Index scheme 1" written from FORMAT.md, and
 * orbit counts by Burnside over cycle types.  Uses only the variant's point
 * permutations (struct mmtb_variant.sym), never sector_index.c.
 */
#ifndef MMTB_TESTLIB_INDEX_H
#define MMTB_TESTLIB_INDEX_H

#include "variant.h"

/* C(n, k), exact for n <= 64 where the result fits; 0 when k > n. */
uint64_t tref_binom(int n, int k);

/* Image of a point mask under symmetry g, one point at a time. */
uint32_t tref_apply(const struct mmtb_variant *v, int g, uint32_t m);

/* The k-subset of the points of e whose i-th lowest point is taken when bit
 * i of x is set (a slow pdep). */
uint32_t tref_deposit(uint32_t x, uint32_t e);

/* The next larger mask with the same popcount (Gosper). */
uint64_t tref_next_subset(uint64_t m);

/* Orbits of the positions with w mover and b opponent stones, by Burnside
 * over the cycle type of each symmetry (multinomial counts). */
uint64_t tref_orbits(const struct mmtb_variant *v, int w, int b);

/*
 * The reference index: the sorted canonical k-subsets (smallest mask of
 * each orbit) for k <= kmax, found by brute force, and the rank of
 * FORMAT.md's Index scheme 1 computed from them directly.
 */
struct tref_index {
    const struct mmtb_variant *v;
    int kmax;
    uint32_t (*tab)[4][256]; /* tab[g][j][x]: image of byte j = x under g */
    uint32_t *canon[MMTB_MAX_POINTS + 1];
    uint64_t ncanon[MMTB_MAX_POINTS + 1];
};
void tref_index_init(struct tref_index *r, const struct mmtb_variant *v, int kmax);
void tref_index_free(struct tref_index *r);
uint64_t tref_slots(const struct tref_index *r, int w, int b);
uint64_t tref_rank(const struct tref_index *r, int w, int b, uint32_t mover, uint32_t opp);

/* tref_apply by table look-up (tables built from v->sym by tref_index_init). */
static inline uint32_t tref_img(const struct tref_index *r, int g, uint32_t m)
{
    return r->tab[g][0][m & 0xff] | r->tab[g][1][(m >> 8) & 0xff] | r->tab[g][2][(m >> 16) & 0xff] |
           r->tab[g][3][m >> 24];
}

/* Smallest image of the position (mover, opp) under the group, packed as
 * mover << 32 | opp (mover compared first). */
uint64_t tref_canon_pos(const struct tref_index *r, uint32_t mover, uint32_t opp);

/* True when no symmetry maps (mover, opp) to a smaller pair (mover
 * compared first): the position is its orbit's representative. */
bool tref_pos_is_canonical(const struct tref_index *r, uint32_t mover, uint32_t opp);

/* A deterministic generator (splitmix64) and a random k-subset of the
 * points of `avail`. */
uint64_t tref_rand(uint64_t *state);
uint32_t tref_rand_subset(uint64_t *state, uint32_t avail, int k);

#endif
