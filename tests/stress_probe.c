/*
 * stress_probe.c - concurrency stress test of libmmtb (issue 19, part 4):
 * 8 threads share one open table set (mmtb_tb_open), each with its own
 * context and a small block cache (blocks are evicted and read again), and
 * probe random positions with mmtb_probe, mmtb_probe_wdl and
 * mmtb_probe_moves for a bounded time; meanwhile 3 processes probe the same
 * directory.  Every answer is compared with a single-threaded pass made
 * first.  Tables: nine from 3 v 3 stones in hand, made by the build's
 * mmtb-gen.  Run under ThreadSanitizer by scripts/stress (build-tsan/).
 *   stress_probe [SECONDS]   (default 3, or MMTB_STRESS_SECONDS)
 * Exit 0 when every answer matched, 1 otherwise.  Plain C, no Check.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "mmtb.h"
#include "mmtb_integrity.h"
#include "movegen.h"
#include "notation.h"

#define NTHREADS 8
#define NPROCS 3
#define NPOS 4096

/* What the single-threaded pass found for one position. */
struct expect {
    struct mmtb_pos p;
    struct mmtb_value val;
    int wdl;
    int nmoves;
    uint64_t moves_hash; /* of every move and its value, in order */
};

static struct expect want[NPOS];
static mmtb_tb *tb;
static double deadline;
static atomic_long probes, mismatches;

/* Seconds on the monotonic clock. */
static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* A step of a 64-bit LCG; the high bits are the random number. */
static uint64_t next(uint64_t *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return *s >> 33;
}

/* FNV-1a over the moves and values of a mmtb_probe_moves answer. */
static uint64_t hash_moves(const struct mmtb_move_value *mv, int n)
{
    uint64_t h = 1469598103934665603ull;
    for (int i = 0; i < n; i++) {
        int f[5] = {mv[i].move.from, mv[i].move.to, mv[i].move.remove, mv[i].value.wdl,
                    mv[i].value.dtw};
        for (int k = 0; k < 5; k++)
            h = (h ^ (uint64_t)(uint32_t)f[k]) * 1099511628211ull;
    }
    return h;
}

/* Probe position i three ways on ctx; the number of answers that differ
 * from the single-threaded pass (each printed). */
static int probe_one(mmtb_ctx *ctx, int i, struct mmtb_move_value *mv, const char *who)
{
    const struct expect *e = &want[i];
    struct mmtb_value val;
    int wdl, bad = 0;
    int rc = mmtb_probe(ctx, &e->p, &val);
    if (rc != MMTB_OK || val.wdl != e->val.wdl || val.dtw != e->val.dtw)
        bad++;
    rc = mmtb_probe_wdl(ctx, &e->p, &wdl);
    if (rc != MMTB_OK || wdl != e->wdl)
        bad++;
    int n = mmtb_probe_moves(ctx, &e->p, mv, MMTB_MAX_MOVES);
    if (n != e->nmoves || (n > 0 && hash_moves(mv, n) != e->moves_hash))
        bad++;
    if (bad)
        fprintf(stderr, "stress_probe: %s: position %d: %d answers differ (%s)\n", who, i, bad,
                mmtb_ctx_error(ctx));
    return bad;
}

/* Make the tables with mmtb-gen in dir; false when it fails. */
static bool make_tables(const char *dir)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd, "'%s' -v nine --start 3,3 -o '%s' --threads 1 --quiet >/dev/null",
             MMTB_GEN, dir);
    return system(cmd) == 0;
}

/* Positions along random games from 3 v 3 in hand, and their answers from
 * one context on one thread. */
static bool single_pass(void)
{
    mmtb_ctx *ctx;
    if (mmtb_ctx_create(&ctx, tb, 0) != MMTB_OK)
        return false;
    const struct mmtb_variant *v = mmtb_tb_variant(tb);
    static struct mmtb_move moves[MMTB_MAX_MOVES];
    static struct mmtb_move_value mv[MMTB_MAX_MOVES];
    struct mmtb_pos p;
    char err[200];
    uint64_t s = 19;
    bool restart = true;
    for (int i = 0; i < NPOS; i++) {
        if (restart && mmtb_pos_parse(v, "- - w 3 3", &p, err, sizeof err) != MMTB_OK)
            return false;
        struct expect *e = &want[i];
        e->p = p;
        if (mmtb_probe(ctx, &p, &e->val) != MMTB_OK || mmtb_probe_wdl(ctx, &p, &e->wdl) != MMTB_OK)
            return false;
        e->nmoves = mmtb_probe_moves(ctx, &p, mv, MMTB_MAX_MOVES);
        if (e->nmoves < 0)
            return false;
        e->moves_hash = hash_moves(mv, e->nmoves);
        int n = mmtb_pos_terminal(v, &p) == MMTB_NOT_TERMINAL ? mmtb_gen_moves(v, &p, moves) : 0;
        restart = n == 0 || next(&s) % 40 == 0;
        if (n > 0) {
            struct mmtb_pos q;
            mmtb_pos_apply(v, &p, &moves[next(&s) % (uint64_t)n], &q);
            p = q;
        }
    }
    mmtb_ctx_free(ctx);
    return true;
}

/* One prober: its own context (cache sized by its number: from one block
 * up), random positions until the deadline. */
static void *worker(void *arg)
{
    int id = (int)(intptr_t)arg;
    mmtb_ctx *ctx;
    size_t cache = id == 0 ? 1 : (size_t)4096 << id;
    if (mmtb_ctx_create(&ctx, tb, cache) != MMTB_OK) {
        atomic_fetch_add(&mismatches, 1);
        return NULL;
    }
    struct mmtb_move_value *mv = malloc(MMTB_MAX_MOVES * sizeof *mv);
    char who[32];
    snprintf(who, sizeof who, "thread %d", id);
    uint64_t s = 1000 + (uint64_t)id;
    long n = 0, bad = 0;
    while (mv && now() < deadline) {
        for (int k = 0; k < 64; k++, n += 3)
            bad += probe_one(ctx, (int)(next(&s) % NPOS), mv, who);
    }
    atomic_fetch_add(&probes, n);
    atomic_fetch_add(&mismatches, bad + (mv == NULL));
    free(mv);
    mmtb_ctx_free(ctx);
    return NULL;
}

/* A process of its own: opens the directory and probes until the
 * deadline; exit 0 when every answer matched. */
static int child(const char *dir, int id)
{
    mmtb_tb *t;
    mmtb_ctx *ctx;
    if (mmtb_tb_open(&t, dir, NULL) != MMTB_OK || mmtb_ctx_create(&ctx, t, 8192) != MMTB_OK)
        return 1;
    struct mmtb_move_value *mv = malloc(MMTB_MAX_MOVES * sizeof *mv);
    char who[32];
    snprintf(who, sizeof who, "process %d", id);
    uint64_t s = 2000 + (uint64_t)id;
    long bad = 0;
    while (mv && now() < deadline)
        bad += probe_one(ctx, (int)(next(&s) % NPOS), mv, who);
    free(mv);
    mmtb_ctx_free(ctx);
    mmtb_tb_close(t);
    return bad == 0 && mv ? 0 : 1;
}

int main(int argc, char **argv)
{
    double seconds = 3;
    const char *env = getenv("MMTB_STRESS_SECONDS");
    if (argc > 1)
        seconds = atof(argv[1]);
    else if (env)
        seconds = atof(env);
    char base[] = "/tmp/mmtb-stress-XXXXXX", dir[64], cmd[128];
    if (!mkdtemp(base))
        return 1;
    snprintf(dir, sizeof dir, "%s/t", base);
    int rc = 1;
    char err[200] = "";
    struct mmtb_tb_opts o = {.err = err, .errlen = sizeof err};
    if (!make_tables(dir)) {
        fprintf(stderr, "stress_probe: mmtb-gen failed\n");
    } else if (mmtb_tb_open(&tb, dir, &o) != MMTB_OK) {
        fprintf(stderr, "stress_probe: cannot open %s: %s\n", dir, err);
    } else if (!single_pass()) {
        fprintf(stderr, "stress_probe: the single-threaded pass failed\n");
    } else {
        deadline = now() + seconds;
        /* the processes are forked before any thread is started */
        pid_t pid[NPROCS];
        for (int i = 0; i < NPROCS; i++)
            if ((pid[i] = fork()) == 0)
                _exit(child(dir, i));
        pthread_t th[NTHREADS];
        for (int i = 0; i < NTHREADS; i++)
            pthread_create(&th[i], NULL, worker, (void *)(intptr_t)i);
        for (int i = 0; i < NTHREADS; i++)
            pthread_join(th[i], NULL);
        int failed = 0;
        for (int i = 0; i < NPROCS; i++) {
            int st;
            if (pid[i] < 0 || waitpid(pid[i], &st, 0) != pid[i] || !WIFEXITED(st) ||
                WEXITSTATUS(st) != 0)
                failed++;
        }
        printf("stress_probe: %d threads, %.1f s: %ld probes (probe, probe_wdl, probe_moves), "
               "%ld differ; %d processes, %d failed\n",
               NTHREADS, seconds, atomic_load(&probes), atomic_load(&mismatches), NPROCS, failed);
        rc = atomic_load(&mismatches) == 0 && failed == 0 && atomic_load(&probes) > 0 ? 0 : 1;
    }
    mmtb_tb_close(tb);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", base);
    if (system(cmd) != 0)
        fprintf(stderr, "stress_probe: could not remove %s\n", base);
    return rc;
}
