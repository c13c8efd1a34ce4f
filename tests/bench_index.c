/*
 * bench_index.c - a throwaway benchmark of format/sector_index (not a test,
 * not built by CMake).  Prints the table build time and the cost of rank
 * and unrank on random positions of a variant's largest movement sectors,
 * for the BMI2 and the portable code.  Build against a configured tree:
 *   cc -O2 -Iformat tests/bench_index.c BUILD/format/libmmtb_format.a -lzstd -o bench_index
 *   ./bench_index [VARIANT]
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "sector_index.h"

#define NPOS (1 << 20)

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t next_rand(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* A random k-subset of the n points outside `avoid`. */
static uint32_t random_set(int n, int k, uint32_t avoid)
{
    uint32_t m = 0;
    while (__builtin_popcount(m) < k) {
        int p = (int)(next_rand() % (uint64_t)n);
        if (!((avoid | m) & (1u << p)))
            m |= 1u << p;
    }
    return m;
}

static uint32_t mover[NPOS], opp[NPOS];

/* ns per rank over the first `count` positions (repeated to 16 M calls):
 * count = NPOS spreads the look-ups over the tables, a small count keeps
 * them in cache. */
static double time_rank(const mmtb_index *ix, struct mmtb_sector s, int count, uint64_t *sink)
{
    int reps = (1 << 24) / count;
    double t = now();
    for (int r = 0; r < reps; r++)
        for (int i = 0; i < count; i++)
            *sink += mmtb_index_rank(ix, s, mover[i], opp[i]);
    return (now() - t) * 1e9 / ((double)reps * count);
}

static double time_unrank(const mmtb_index *ix, struct mmtb_sector s, uint64_t *sink)
{
    uint64_t slots = mmtb_index_slots(ix, s), step = slots / NPOS + 1;
    double t = now();
    for (int i = 0; i < NPOS; i++) {
        uint32_t m, o;
        mmtb_index_unrank(ix, s, (uint64_t)i * step % slots, &m, &o);
        *sink += m ^ o;
    }
    return (now() - t) * 1e9 / NPOS;
}

int main(int argc, char **argv)
{
    const char *name = argc > 1 ? argv[1] : "nine";
    struct mmtb_variant *v = NULL;
    char err[256];
    if (mmtb_variant_load(&v, name, err, sizeof err) != MMTB_OK) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    mmtb_index *ix = NULL;
    double t = now();
    int st = mmtb_index_create(&ix, v, v->stones);
    if (st != MMTB_OK) {
        fprintf(stderr, "mmtb_index_create: %s\n", mmtb_strerror(st));
        return 1;
    }
    printf("%s: tables for k <= %d built in %.1f ms\n", name, v->stones, (now() - t) * 1e3);

    uint64_t slots = 0, canon = 0;
    for (int w = v->min_stones; w <= v->stones; w++)
        for (int b = v->min_stones; b <= v->stones && w + b <= v->npoints; b++) {
            struct mmtb_sector s = {(uint8_t)w, (uint8_t)b, 0, 0};
            slots += mmtb_index_slots(ix, s);
            canon += mmtb_index_canonical(v, s);
        }
    printf("movement sectors: %llu slots, %llu canonical, waste %.3f %%\n",
           (unsigned long long)slots, (unsigned long long)canon,
           100.0 * (double)(slots - canon) / (double)canon);

    uint64_t sink = 0;
    int big = v->stones, small = v->min_stones;
    const int sectors[][2] = {{big, big}, {big, small}, {small, big}, {small, small}};
    for (int portable = 0; portable <= 1; portable++) {
        bool bmi2 = mmtb_index_set_portable(ix, portable);
        printf("%s code:\n", bmi2 ? "BMI2" : "portable");
        for (int k = 0; k < 4; k++) {
            struct mmtb_sector s = {(uint8_t)sectors[k][0], (uint8_t)sectors[k][1], 0, 0};
            if (s.w + s.b > v->npoints)
                continue;
            rng = 0x9e3779b97f4a7c15ull;
            for (int i = 0; i < NPOS; i++) {
                mover[i] = random_set(v->npoints, s.w, 0);
                opp[i] = random_set(v->npoints, s.b, mover[i]);
            }
            printf("  %d-%d: rank %.1f ns (1 M random positions), %.1f ns (1 K, cached); "
                   "unrank %.1f ns\n",
                   s.w, s.b, time_rank(ix, s, NPOS, &sink), time_rank(ix, s, 1024, &sink),
                   time_unrank(ix, s, &sink));
        }
    }
    printf("(checksum %llu)\n", (unsigned long long)sink);
    mmtb_index_free(ix);
    mmtb_variant_free(v);
    return 0;
}
