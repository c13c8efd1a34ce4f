/*
 * bench_rank.c - how long a rank of a position with re-close restrictions
 * takes in a large sector, where its reads miss the caches (the solver's
 * captures and predecessors, format/ban_index.c).  Run by scripts/bench-rank,
 * which says how; not a test.
 *
 *   bench_rank VARIANT SECTOR N
 *
 * builds the sector's restriction index, draws N positions of it at random
 * (a canonical slot, then an image under a random symmetry, so that each
 * rank finds its representative) with their live restrictions, prints
 * "ready", and then for every line read from stdin ranks them all, sixteen
 * begun before any is ended, their live restrictions given, as the solver
 * does, and prints the nanoseconds per rank.  One thread.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "ban_index.h"
#include "movegen.h"
#include "sector_index.h"
#include "variant.h"

#define GROUP 16

static double seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int fail(const char *what)
{
    fprintf(stderr, "bench_rank: %s\n", what);
    return 1;
}

int main(int argc, char **argv)
{
    struct mmtb_sector s;
    long n = argc == 4 ? atol(argv[3]) : 0;
    if (argc != 4 || mmtb_sector_parse(argv[2], &s) != 0 || n <= 0)
        return fail("usage: bench_rank VARIANT SECTOR N (scripts/bench-rank)");
    struct mmtb_variant *v = NULL;
    char err[256] = "";
    if (mmtb_variant_load(&v, argv[1], err, sizeof err) != MMTB_OK)
        return fail(err);
    int most = s.w + s.w_hand > s.b + s.b_hand ? s.w + s.w_hand : s.b + s.b_hand;
    mmtb_index *ix = NULL;
    mmtb_ban_index *bx = NULL;
    if (mmtb_index_create(&ix, v, most) != MMTB_OK || !v->no_reclose)
        return fail("the variant has no re-close restrictions, or no index");
    double t0 = seconds();
    if (mmtb_ban_index_create(&bx, ix, s) != MMTB_OK)
        return fail("cannot build the sector's restriction index");
    uint64_t base = mmtb_ban_index_base(bx);
    fprintf(stderr, "%s %s: %llu positions, %llu states, index built in %.1f s\n", argv[1],
            argv[2], (unsigned long long)base, (unsigned long long)mmtb_ban_index_slots(bx),
            seconds() - t0);
    uint32_t *pm = malloc((size_t)n * sizeof *pm), *po = malloc((size_t)n * sizeof *po);
    uint64_t(*live)[4] = malloc((size_t)n * sizeof *live);
    if (!pm || !po || !live)
        return fail("out of memory");
    uint64_t x = 0x9E3779B97F4A7C15ull;
    for (long k = 0; k < n;) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        uint64_t slot = x % base;
        if (!mmtb_index_slot_is_canonical(ix, s, slot))
            continue;
        uint32_t m, o;
        mmtb_index_unrank(ix, s, slot, &m, &o);
        int g = (int)((x >> 40) % (uint64_t)v->nsyms);
        pm[k] = mmtb_sym_apply(v, g, m);
        po[k] = mmtb_sym_apply(v, g, o);
        mmtb_live_ban_set(v, pm[k], po[k], live[k]);
        mmtb_live_ban_set(v, po[k], pm[k], live[k] + 2);
        k++;
    }
    printf("ready\n");
    fflush(stdout);
    char line[64];
    while (fgets(line, sizeof line, stdin)) {
        uint64_t sum = 0; /* kept, so that no rank is optimised away */
        t0 = seconds();
        for (long k = 0; k < n; k += GROUP) {
            struct mmtb_ban_rank r[GROUP];
            int g = n - k < GROUP ? (int)(n - k) : GROUP;
            for (int i = 0; i < g; i++)
                mmtb_ban_index_rank_begin(bx, pm[k + i], po[k + i], &r[i]);
            for (int i = 0; i < g; i++) {
                mmtb_ban_index_rank_end(bx, &r[i], live[k + i], live[k + i] + 2);
                sum += r[i].first != UINT64_MAX ? r[i].first : r[i].slot0;
            }
        }
        printf("%.1f ns a rank (check %llu)\n", (seconds() - t0) / (double)n * 1e9,
               (unsigned long long)sum);
        fflush(stdout);
    }
    free(pm);
    free(po);
    free(live);
    mmtb_ban_index_free(bx);
    mmtb_index_free(ix);
    mmtb_variant_free(v);
    return 0;
}
