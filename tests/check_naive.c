/*
 * check_naive.c - slow tests: the retrograde solver (gen/, read back
 * through libmmtb) against the naive oracles (testlib_naive.c,
 * testlib_naive_game.c) on every position of the movement sectors of small
 * variants and every state of small whole games, value and depth to win
 * (DTW); the oracles' own published answers (Nine Men's Morris 3-3, 3-4,
 * 4-3, 3-5 and 4-4, Gasser's Fig. 9) and the whole-game oracle's DTW
 * checked move by move; the per-sector statistics; identical files with 1
 * and 2 threads.
 */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "mmtb.h"
#include "movegen.h"
#include "sector_index.h"
#include "solve.h"
#include "testlib_naive.h"
#include "testlib_util.h"
#include "variant.h"

/*
 * Stones a side in the agreement runs on the 24-point board (nine and
 * nine-nofly).  4 (sectors 3-3, 3-4, 4-3, 4-4: 78 M positions) takes the
 * oracle about 40 s per variant in a Release build, and the probes of every
 * position another 10 s; under AddressSanitizer both are about ten times
 * slower (nine-nofly alone took 8 minutes), so the sanitizer build stops at
 * 3 stones there.  The other variants run in full either way.
 */
#if defined(__SANITIZE_ADDRESS__)
#define NINE_MAX 3
#else
#define NINE_MAX 4
#endif

/* Assertions for inner loops: only call into Check when they fail. */
#define REQUIRE(cond)                                                                              \
    do {                                                                                           \
        if (!(cond))                                                                               \
            ck_abort_msg("Assertion '%s' failed", #cond);                                          \
    } while (0)

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static struct mmtb_variant *load(const char *name)
{
    struct mmtb_variant *v = NULL;
    char err[256] = "";
    int st = mmtb_variant_load(&v, name, err, sizeof err);
    ck_assert_msg(st == MMTB_OK, "loading %s: %s", name, err);
    return v;
}

static struct naive *naive_or_fail(const struct mmtb_variant *v, int max_stones)
{
    char err[256] = "";
    struct naive *n = naive_solve(v, max_stones, err, sizeof err);
    ck_assert_msg(n != NULL, "naive solve of %s up to %d: %s", v->name, max_stones, err);
    fprintf(stderr, "naive %s up to %d: %.2f s\n", v->name, max_stones, naive_seconds(n));
    return n;
}

/* ------------------------------------------------------------------------
 * Temporary table directories.
 * ---------------------------------------------------------------------- */

static void remove_tree(const char *path);

/*
 * Every table directory of a tcase lives in one root directory made by the
 * tcase's unchecked fixture, which runs in the runner's process and so
 * removes the root even after a test failed (Check ends a failing forked
 * test with _exit, skipping any cleanup of its own).
 */
static char root[64];

static void root_setup(void)
{
    snprintf(root, sizeof root, "/tmp/mmtb-check-naive-XXXXXX");
    if (!mkdtemp(root))
        root[0] = '\0';
}

static void root_teardown(void)
{
    if (root[0])
        remove_tree(root);
    root[0] = '\0';
}

/* A fresh directory (mkdtemp) in the root; path receives its name. */
static void make_tmpdir(char *path, size_t len)
{
    ck_assert_msg(root[0], "no root directory under /tmp");
    snprintf(path, len, "%s/t-XXXXXX", root);
    ck_assert_msg(mkdtemp(path) != NULL, "mkdtemp: %s", strerror(errno));
}

/* Remove a directory and everything below it (nothing if it is gone). */
static void remove_tree(const char *path)
{
    DIR *d = opendir(path);
    if (d) {
        struct dirent *e;
        while ((e = readdir(d)) != NULL) {
            if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
                continue;
            char sub[4096];
            snprintf(sub, sizeof sub, "%s/%s", path, e->d_name);
            struct stat st;
            if (lstat(sub, &st) == 0 && S_ISDIR(st.st_mode))
                remove_tree(sub);
            else
                unlink(sub);
        }
        closedir(d);
    }
    rmdir(path);
}

/* The solver's first rare depth (mmtb_solve_opts.deep_from; 0: default). */
static int g_deep_from;
/* How the levels go (mmtb_solve_opts.forward; 0: by cost). */
static int g_forward;

/* Run the real solver: movement phase of `variant` up to max_stones a side
 * into dir. */
static void run_solver(const char *variant, const char *dir, int max_stones, int threads)
{
    struct mmtb_solve_opts o;
    memset(&o, 0, sizeof o);
    o.variant = variant;
    o.outdir = dir;
    o.start_w_hand = 0;
    o.start_b_hand = 0;
    o.max_stones = max_stones;
    o.threads = threads;
    o.deep_from = g_deep_from;
    o.forward = g_forward;
    o.quiet = true;
    o.report = stderr;
    char err[512] = "";
    double t0 = now_seconds();
    int rc = mmtb_solve(&o, err, sizeof err);
    ck_assert_msg(rc == MMTB_OK, "mmtb_solve %s up to %d: %s (%s)", variant, max_stones,
                  mmtb_strerror(rc), err);
    fprintf(stderr, "mmtb_solve %s up to %d, %d threads: %.2f s\n", variant, max_stones, threads,
            now_seconds() - t0);
}

/* ------------------------------------------------------------------------
 * Agreement: every position, and the per-sector statistics.
 * ---------------------------------------------------------------------- */

static const char *wdl_name(int wdl)
{
    return wdl == MMTB_WIN ? "win" : wdl == MMTB_LOSS ? "loss" : "draw";
}

/*
 * Probe every position of every sector the oracle solved and compare value
 * and depth; then compare the canonical counts and longest win/loss of each
 * sector with the file's statistics.  The first disagreements are printed
 * as "WHITE BLACK SIDE" with the side to move as White.
 */
static void compare_with_tables(struct naive *n, const struct mmtb_variant *v, const char *dir)
{
    mmtb_tb *tb = NULL;
    char err[256] = "";
    struct mmtb_tb_opts to;
    memset(&to, 0, sizeof to);
    to.err = err;
    to.errlen = sizeof err;
    int rc = mmtb_tb_open(&tb, dir, &to);
    ck_assert_msg(rc == MMTB_OK, "mmtb_tb_open %s: %s (%s)", dir, mmtb_strerror(rc), err);
    mmtb_ctx *ctx = NULL;
    rc = mmtb_ctx_create(&ctx, tb, (size_t)64 << 20);
    ck_assert_int_eq(rc, MMTB_OK);

    int lo = naive_min_stones(n), hi = naive_max_stones(n);
    ck_assert_int_eq(mmtb_tb_sector_count(tb), (hi - lo + 1) * (hi - lo + 1));

    double t0 = now_seconds();
    uint64_t bad = 0, probed = 0;
    for (int w = lo; w <= hi; w++)
        for (int b = lo; b <= hi; b++) {
            uint64_t size = naive_sector_size(n, w, b);
            for (uint64_t i = 0; i < size; i++) {
                uint32_t mover, opp;
                int wdl, dtw;
                naive_unrank(n, w, b, i, &mover, &opp);
                naive_value_at(n, w, b, i, &wdl, &dtw);
                struct mmtb_pos p;
                memset(&p, 0, sizeof p);
                p.stones[MMTB_WHITE] = mover;
                p.stones[MMTB_BLACK] = opp;
                p.side = MMTB_WHITE;
                p.ban_from = p.ban_to = -1;
                struct mmtb_value val = {0, 0};
                int prc = mmtb_probe(ctx, &p, &val);
                probed++;
                if (prc == MMTB_OK && val.wdl == wdl && val.dtw == dtw)
                    continue;
                if (bad++ < 10) {
                    char buf[200];
                    naive_format(v, mover, opp, buf, sizeof buf);
                    if (prc != MMTB_OK)
                        fprintf(stderr, "%s: %s: probe fails: %s\n", v->name, buf,
                                mmtb_strerror(prc));
                    else
                        fprintf(stderr, "%s: %s: naive %s %d, tables %s %d\n", v->name, buf,
                                wdl_name(wdl), dtw, wdl_name(val.wdl), val.dtw);
                }
            }
        }
    fprintf(stderr, "%s: %llu positions probed in %.2f s, %llu disagree\n", v->name,
            (unsigned long long)probed, now_seconds() - t0, (unsigned long long)bad);

    uint64_t asym = naive_orbits(n);
    ck_assert_msg(asym == 0, "%s: %llu positions differ from a symmetric image in the oracle",
                  v->name, (unsigned long long)asym);
    int bad_stats = 0;
    for (int w = lo; w <= hi; w++)
        for (int b = lo; b <= hi; b++) {
            struct naive_stats ns;
            ck_assert_int_eq(naive_sector_stats(n, w, b, &ns), 0);
            struct mmtb_sector s = {(uint8_t)w, (uint8_t)b, 0, 0};
            struct mmtb_sector_stats ts;
            rc = mmtb_tb_sector_stats(tb, s, &ts);
            ck_assert_msg(rc == MMTB_OK, "%s %d-%d: stats: %s", v->name, w, b, mmtb_strerror(rc));
            fprintf(stderr,
                    "%s %d-%d canonical: naive %llu W %llu D %llu L %llu maxW %d maxL %d | "
                    "tables %llu W %llu D %llu L %llu maxW %d maxL %d\n",
                    v->name, w, b, (unsigned long long)ns.canonical, (unsigned long long)ns.cwins,
                    (unsigned long long)ns.cdraws, (unsigned long long)ns.closses, ns.max_win,
                    ns.max_loss, (unsigned long long)ts.canonical, (unsigned long long)ts.wins,
                    (unsigned long long)ts.draws, (unsigned long long)ts.losses, ts.max_win,
                    ts.max_loss);
            /* Orbit counts: the oracle's own, Burnside's and the file's. */
            if (ns.canonical != mmtb_index_canonical(v, s) || ns.canonical != ts.canonical ||
                ns.cwins != ts.wins || ns.cdraws != ts.draws || ns.closses != ts.losses ||
                ns.max_win != ts.max_win || ns.max_loss != ts.max_loss)
                bad_stats++;
        }
    mmtb_ctx_free(ctx);
    mmtb_tb_close(tb);
    ck_assert_msg(bad == 0, "%s: %llu of %llu positions disagree with the naive solver", v->name,
                  (unsigned long long)bad, (unsigned long long)probed);
    ck_assert_msg(bad_stats == 0, "%s: %d sectors' statistics disagree", v->name, bad_stats);
}

/* Oracle and solver on variant `name` (built-in or file) up to max_stones. */
/* The solver's knobs for one run against the oracle. */
struct knobs {
    int deep_from, forward;
};

/* One oracle, several solver runs: each setting of kn must agree with it
 * (the oracle is the slow part on the 24-point board).  The knobs in force
 * before are in force after. */
static void agree_knobs(const char *name, int max_stones, const struct knobs *kn, int nk)
{
    const struct knobs before = {g_deep_from, g_forward};
    struct mmtb_variant *v = load(name);
    struct naive *n = naive_or_fail(v, max_stones);
    for (int i = 0; i < nk; i++) {
        char dir[128];
        make_tmpdir(dir, sizeof dir);
        g_deep_from = kn[i].deep_from;
        g_forward = kn[i].forward;
        run_solver(name, dir, max_stones, 2);
        compare_with_tables(n, v, dir);
        remove_tree(dir);
    }
    g_deep_from = before.deep_from;
    g_forward = before.forward;
    naive_free(n);
    mmtb_variant_free(v);
}

/* One solver run with the knobs in force against the oracle. */
static void agree(const char *name, int max_stones)
{
    const struct knobs now = {g_deep_from, g_forward};
    agree_knobs(name, max_stones, &now, 1);
}

START_TEST(test_agree_three)
{
    agree("three", 3);
}
END_TEST

START_TEST(test_agree_three_diag)
{
    agree("three-diag", 3);
}
END_TEST

START_TEST(test_agree_six)
{
    agree("six", 4);
}
END_TEST

/* Depths of 63 and more take another path through the solver (the deep
 * lists), which the small variants never reach: move its start down to
 * depth 1 and 2 so that it handles nearly every decided position
 * (nine-nofly's run is in test_agree_nine_nofly, on the same oracle). */
START_TEST(test_agree_deep_path)
{
    g_deep_from = 1;
    agree("three", 3);
    agree("six", 4);
    g_deep_from = 2;
    agree("three-diag", 3);
}
END_TEST

/* nine-nofly by default, with the deep path from depth 2 and with the
 * levels forced forward: one oracle for the three runs. */
START_TEST(test_agree_nine_nofly)
{
    static const struct knobs kn[] = {{0, 0}, {2, 0}, {0, 1}};
    agree_knobs("nine-nofly", NINE_MAX, kn, 3);
}
END_TEST

/*
 * A variant made for the test from Six Men's Morris: a side without a move
 * passes, and stones in a mill are never removed.  Neither rule is in a
 * built-in variant; this exercises the solver's passes and captureless mills.
 */
static void agree_six_pass_immune(void)
{
    const char *text = mmtb_variant_builtin_text("six");
    ck_assert_ptr_nonnull(text);
    const char *rm = strstr(text, "removal standard");
    const char *nm = strstr(text, "name six");
    ck_assert_ptr_nonnull(rm);
    ck_assert_ptr_nonnull(nm);
    char dir[128], path[192];
    make_tmpdir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/six-pass-immune.txt", dir);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    /* the text with its name and removal rule replaced, no-move added */
    size_t a = (size_t)(nm - text), b = (size_t)(rm - text);
    ck_assert(a < b);
    fwrite(text, 1, a, f);
    fputs("name six-pass-immune", f);
    fwrite(nm + strlen("name six"), 1, b - a - strlen("name six"), f);
    fputs("removal immune\nno-move pass", f);
    fputs(rm + strlen("removal standard"), f);
    fclose(f);

    struct mmtb_variant *v = load(path);
    ck_assert_int_eq(v->removal, MMTB_REMOVE_IMMUNE);
    ck_assert_int_eq(v->nomove, MMTB_NOMOVE_PASSES);
    struct naive *n = naive_or_fail(v, 4);
    char tdir[192];
    snprintf(tdir, sizeof tdir, "%s/tables", dir);
    run_solver(path, tdir, 4, 2);
    compare_with_tables(n, v, tdir);
    remove_tree(dir);
    naive_free(n);
    mmtb_variant_free(v);
}

START_TEST(test_agree_six_pass_immune)
{
    agree_six_pass_immune();
}
END_TEST

/*
 * Shah's movement rules on a small board: Six Men's Morris's board with
 * Shah's keys (no flying, removal any, no-move pass, trapped-capture no,
 * both-trapped draw), 3..5 stones a side.  Besides the agreement, the
 * compared set must hold passes (a side with no slide) and mills that
 * removed nothing because the opponent was trapped.
 */
START_TEST(test_agree_shah_small)
{
    const char *text = mmtb_variant_builtin_text("six");
    ck_assert_ptr_nonnull(text);
    const char *body = strstr(text, "\npoint ");
    ck_assert_ptr_nonnull(body);
    char dir[128], path[192];
    make_tmpdir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/six-shah.txt", dir);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs("name six-shah\nstones 6\nflying off\nremoval any\nplace-captures no\n"
          "no-move pass\nfirst-mill-removal yes\ntrapped-capture no\nboth-trapped draw\n",
          f);
    fputs(body, f);
    fclose(f);
    struct mmtb_variant *v = load(path);
    ck_assert(!v->trapped_capture && v->first_mill_removal && v->both_trapped_draw);

    /* The new rules occur in the compared set: count them with movegen. */
    struct mmtb_move *mv = malloc(MMTB_MAX_MOVES * sizeof *mv);
    ck_assert_ptr_nonnull(mv);
    struct naive *n = naive_or_fail(v, 5);
    uint64_t passes = 0, trapped_mills = 0;
    for (int w = 3; w <= 5; w++)
        for (int b = 3; b <= 5; b++) {
            uint64_t size = naive_sector_size(n, w, b);
            for (uint64_t i = 0; i < size; i++) {
                uint32_t mover, opp;
                naive_unrank(n, w, b, i, &mover, &opp);
                struct mmtb_pos p;
                memset(&p, 0, sizeof p);
                p.stones[MMTB_WHITE] = mover;
                p.stones[MMTB_BLACK] = opp;
                p.ban_from = p.ban_to = -1;
                int nm = mmtb_gen_moves(v, &p, mv);
                if (nm == 1 && mv[0].from == MMTB_MOVE_PASS) {
                    passes++;
                    continue;
                }
                /* opponent without a slide (checked by hand, not by
                 * movegen's own test) and a mill-closing slide */
                uint32_t empty = v->full & ~(mover | opp);
                bool stuck = true;
                for (uint32_t o = opp; o; o &= o - 1)
                    stuck = stuck && !(v->adj[__builtin_ctz(o)] & empty);
                for (int k = 0; k < nm && stuck; k++) {
                    uint32_t nmv =
                        (mover & ~(UINT32_C(1) << mv[k].from)) | (UINT32_C(1) << mv[k].to);
                    if (mmtb_closes_mill(v, nmv, mv[k].to)) {
                        REQUIRE(mv[k].remove == -1);
                        trapped_mills++;
                        break;
                    }
                }
            }
        }
    free(mv);
    fprintf(stderr, "six-shah: %llu positions pass, %llu close a mill against a trapped side\n",
            (unsigned long long)passes, (unsigned long long)trapped_mills);
    ck_assert_uint_gt(passes, 0);
    ck_assert_uint_gt(trapped_mills, 0);

    char tdir[192];
    snprintf(tdir, sizeof tdir, "%s/tables", dir);
    run_solver(path, tdir, 5, 2);
    compare_with_tables(n, v, tdir);
    remove_tree(dir);
    naive_free(n);
    mmtb_variant_free(v);
}
END_TEST

/* The levels go backward (from each decided position to its predecessors)
 * or forward (from each position still counting to its successors),
 * whichever is cheaper: force each way throughout, alone and together with
 * the deep path. */
START_TEST(test_agree_forward_backward)
{
    g_forward = 1;
    agree("three", 3);
    agree("six", 4);
    agree("three-diag", 3);
    agree_six_pass_immune(); /* nine-nofly forward: test_agree_nine_nofly */
    g_deep_from = 2;
    agree("three-diag", 3);
    g_deep_from = 0;
    g_forward = -1;
    agree("three", 3);
    agree("six", 4);
    agree_six_pass_immune();
    g_forward = 0;
}
END_TEST

/* ------------------------------------------------------------------------
 * Nine Men's Morris: one oracle solve (unchecked fixture, in the runner's
 * process; no OpenMP there) shared by the tests of the tcase.
 * ---------------------------------------------------------------------- */

static struct mmtb_variant *nine_v;
static struct naive *nine_n;
static char nine_err[320];

static void nine_setup(void)
{
    char err[256] = "";
    nine_err[0] = '\0';
    if (mmtb_variant_load(&nine_v, "nine", err, sizeof err) != MMTB_OK) {
        snprintf(nine_err, sizeof nine_err, "loading nine: %s", err);
        return;
    }
    nine_n = naive_solve(nine_v, NINE_MAX, nine_err, sizeof nine_err);
    if (nine_n)
        fprintf(stderr, "naive nine up to %d: %.2f s\n", NINE_MAX, naive_seconds(nine_n));
}

static void nine_teardown(void)
{
    naive_free(nine_n);
    mmtb_variant_free(nine_v);
    nine_n = NULL;
    nine_v = NULL;
}

/* A set of points from names separated by spaces. */
static uint32_t points(const struct mmtb_variant *v, const char *names)
{
    uint32_t m = 0;
    char buf[256];
    snprintf(buf, sizeof buf, "%s", names);
    for (char *t = strtok(buf, " "); t; t = strtok(NULL, " ")) {
        int p = mmtb_variant_point(v, t);
        ck_assert_msg(p >= 0, "no point %s", t);
        m |= UINT32_C(1) << p;
    }
    return m;
}

/* KNOWN_RESULTS.md: the oracle alone reproduces the published figures
 * (depths are DTW; in 3-3 and 4-4 they equal the DTC figures). */
START_TEST(test_nine_known_results)
{
    ck_assert_msg(nine_n != NULL, "%s", nine_err);
    struct naive_stats st;
    ck_assert_int_eq(naive_sector_stats(nine_n, 3, 3, &st), 0);
    /* sector 3-3 without symmetry: 2,232,160 / 455,648 / 4,112; 25 / 26 */
    ck_assert_uint_eq(st.positions, 2691920);
    ck_assert_uint_eq(st.wins, 2232160);
    ck_assert_uint_eq(st.losses, 455648);
    ck_assert_uint_eq(st.draws, 4112);
    ck_assert_int_eq(st.max_win, 25);
    ck_assert_int_eq(st.max_loss, 26);

    /* Gasser's Fig. 9: White d7 g7 g1, Black a4 g4 d5, Black to move: Black
     * loses in 26 plies. */
    int wdl, dtw;
    ck_assert_int_eq(
        naive_value(nine_n, points(nine_v, "a4 g4 d5"), points(nine_v, "d7 g7 g1"), &wdl, &dtw), 0);
    ck_assert_int_eq(wdl, MMTB_LOSS);
    ck_assert_int_eq(dtw, 26);

    /* Canonical (orbit) counts: 140,621 / 28,736 / 269 for 3-3. */
    ck_assert_uint_eq(naive_orbits(nine_n), 0);
    ck_assert_int_eq(naive_sector_stats(nine_n, 3, 3, &st), 0);
    ck_assert_uint_eq(st.cwins, 140621);
    ck_assert_uint_eq(st.closses, 28736);
    ck_assert_uint_eq(st.cdraws, 269);
    if (NINE_MAX < 4)
        return;
    /* 4-4 canonical: 159 / 29 / 3,225,409; longest win 9, loss 8. */
    ck_assert_int_eq(naive_sector_stats(nine_n, 4, 4, &st), 0);
    ck_assert_uint_eq(st.cwins, 159);
    ck_assert_uint_eq(st.closses, 29);
    ck_assert_uint_eq(st.cdraws, 3225409);
    ck_assert_int_eq(st.max_win, 9);
    ck_assert_int_eq(st.max_loss, 8);
    /* 4-3, the 4-stone side to move: every win is an immediate mill
     * (longest win 1); longest loss 32 in DTW. */
    ck_assert_int_eq(naive_sector_stats(nine_n, 4, 3, &st), 0);
    ck_assert_int_eq(st.max_win, 1);
    ck_assert_int_eq(st.max_loss, 32);
    /* 3-4, the 3-stone side to move: longest win 33 in DTW. */
    ck_assert_int_eq(naive_sector_stats(nine_n, 3, 4, &st), 0);
    ck_assert_int_eq(st.max_win, 33);
}
END_TEST

#if !defined(__SANITIZE_ADDRESS__) /* ten times slower: minutes */
/*
 * KNOWN_RESULTS.md: 3-5, the 3-stone side to move, longest win 31 in DTW.
 * Only the sectors with a 3-stone side (3-3, 3-4, 4-3, 3-5, 5-3: 109 M
 * positions, about 90 s and 5.5 GB in a Release build) are solved; raising
 * NINE_MAX to 5 would add 4-5, 5-4 and 5-5 (0.8 G more positions) for
 * nothing 3-5 depends on.
 */
START_TEST(test_nine_known_3_5)
{
    struct mmtb_variant *v = load("nine");
    char err[256] = "";
    struct naive *n = naive_solve_thin(v, 5, err, sizeof err);
    ck_assert_msg(n != NULL, "naive_solve_thin nine up to 5: %s", err);
    fprintf(stderr, "naive nine, sectors with a 3-stone side up to 5: %.2f s\n", naive_seconds(n));
    struct naive_stats st;
    ck_assert_int_eq(naive_sector_stats(n, 4, 4, &st), -1); /* not solved */
    ck_assert_int_eq(naive_sector_stats(n, 3, 5, &st), 0);
    ck_assert_int_eq(st.max_win, 31);
    /* the sectors it rests on, as the full solve has them */
    ck_assert_int_eq(naive_sector_stats(n, 3, 4, &st), 0);
    ck_assert_int_eq(st.max_win, 33);
    ck_assert_int_eq(naive_sector_stats(n, 4, 3, &st), 0);
    ck_assert_int_eq(st.max_win, 1);
    ck_assert_int_eq(st.max_loss, 32);
    naive_free(n);
    mmtb_variant_free(v);
}
END_TEST
#endif

START_TEST(test_agree_nine)
{
    ck_assert_msg(nine_n != NULL, "%s", nine_err);
    char dir[128];
    make_tmpdir(dir, sizeof dir);
    run_solver("nine", dir, NINE_MAX, 2);
    compare_with_tables(nine_n, nine_v, dir);
    remove_tree(dir);
}
END_TEST

/* ------------------------------------------------------------------------
 * Thread independence.
 * ---------------------------------------------------------------------- */

/* The whole contents of a file (NUL-terminated after *len bytes). */
static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    ck_assert_msg(f != NULL, "%s: %s", path, strerror(errno));
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    ck_assert_ptr_nonnull(buf);
    size_t got;
    while ((got = fread(buf + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap) {
            cap *= 2;
            buf = realloc(buf, cap);
            ck_assert_ptr_nonnull(buf);
        }
    }
    fclose(f);
    *len = n;
    return buf;
}

/* Names of the regular files in dir, sorted; returns the count. */
static int list_files(const char *dir, char names[][256], int cap)
{
    DIR *d = opendir(dir);
    ck_assert_msg(d != NULL, "%s: %s", dir, strerror(errno));
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        char path[4096];
        struct stat st;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
            continue;
        ck_assert_int_lt(n, cap);
        snprintf(names[n++], 256, "%s", e->d_name);
    }
    closedir(d);
    qsort(names, (size_t)n, sizeof names[0], (int (*)(const void *, const void *))strcmp);
    return n;
}

START_TEST(test_threads_same_bytes)
{
    char d1[128], d2[128];
    make_tmpdir(d1, sizeof d1);
    make_tmpdir(d2, sizeof d2);
    run_solver("six", d1, 4, 1);
    run_solver("six", d2, 4, 2);
    static char n1[64][256], n2[64][256];
    int c1 = list_files(d1, n1, 64), c2 = list_files(d2, n2, 64);
    ck_assert_int_eq(c1, c2);
    ck_assert_int_ge(c1, 4); /* 4 sectors and a manifest at least */
    for (int i = 0; i < c1; i++) {
        ck_assert_str_eq(n1[i], n2[i]);
        char p1[4096], p2[4096];
        snprintf(p1, sizeof p1, "%s/%s", d1, n1[i]);
        snprintf(p2, sizeof p2, "%s/%s", d2, n2[i]);
        size_t l1, l2;
        char *b1 = slurp(p1, &l1), *b2 = slurp(p2, &l2);
        ck_assert_msg(l1 == l2 && memcmp(b1, b2, l1) == 0,
                      "%s differs between 1 and 2 threads (%zu vs %zu bytes)", n1[i], l1, l2);
        free(b1);
        free(b2);
    }
    remove_tree(d1);
    remove_tree(d2);
}
END_TEST

/*
 * A re-close variant with three stones a side (a capture that removes a
 * stone ends the game): the restriction oracle and the tables agree on every
 * state, the positions with a live restriction included.  Returns the
 * oracle, which refers to v: v must outlive it.
 */
static struct naive_ban *agree_reclose(const struct mmtb_variant *v)
{
    const char *name = v->name;
    char err[256] = "", dir[128];
    double t0 = now_seconds();
    struct naive_ban *nb = naive_ban_solve(v, 3, err, sizeof err);
    ck_assert_msg(nb != NULL, "naive_ban_solve: %s", err);
    fprintf(stderr, "%s 3-3 oracle: %llu states in %.2f s\n", name,
            (unsigned long long)naive_ban_states(nb), now_seconds() - t0);
    make_tmpdir(dir, sizeof dir);
    run_solver(name, dir, 3, 2);
    mmtb_tb *tb = NULL;
    ck_assert_int_eq(mmtb_tb_open(&tb, dir, NULL), MMTB_OK);
    mmtb_ctx *ctx = NULL;
    ck_assert_int_eq(mmtb_ctx_create(&ctx, tb, (size_t)64 << 20), MMTB_OK);
    uint64_t bad = 0, banned = 0, banned_nondraw = 0, n = naive_ban_states(nb);
    t0 = now_seconds();
    for (uint64_t i = 0; i < n; i++) {
        struct mmtb_pos p;
        int wdl, dtw;
        naive_ban_state(nb, i, &p, &wdl, &dtw);
        struct mmtb_value val = {0, 0};
        int prc = mmtb_probe(ctx, &p, &val);
        bool ban = p.ban_from >= 0 || p.ban_to >= 0;
        banned += ban;
        banned_nondraw += ban && wdl != MMTB_DRAW;
        if (prc == MMTB_OK && val.wdl == wdl && val.dtw == dtw)
            continue;
        if (bad++ < 10) {
            char buf[200];
            mmtb_pos_format(v, &p, buf, sizeof buf);
            fprintf(stderr, "%s: %s: naive %s %d, tables %s %d (%s)\n", name, buf, wdl_name(wdl),
                    dtw, wdl_name(val.wdl), val.dtw, mmtb_strerror(prc));
        }
    }
    fprintf(stderr,
            "%s 3-3: %llu states probed in %.2f s (%llu with a restriction, %llu of them "
            "won or lost), %llu disagree\n",
            name, (unsigned long long)n, now_seconds() - t0, (unsigned long long)banned,
            (unsigned long long)banned_nondraw, (unsigned long long)bad);
    mmtb_ctx_free(ctx);
    mmtb_tb_close(tb);
    remove_tree(dir);
    ck_assert_msg(bad == 0, "%s: %llu of %llu states disagree with the naive solver", name,
                  (unsigned long long)bad, (unsigned long long)n);
    ck_assert(banned > 0 && banned_nondraw > 0);
    return nb;
}

/*
 * twelve and twelve-immune through the re-close solver: the tables of each
 * agree with its oracle, and the immune rule is exercised: with three
 * stones, a mill against three stones that stand in a mill removes nothing,
 * so the game goes on where twelve's ends, and some states change value.
 * Both games have the same states in the same order (same board, same
 * restrictions).
 */
START_TEST(test_agree_twelve_reclose)
{
    struct mmtb_variant *twv = load("twelve"), *imv = load("twelve-immune");
    struct naive_ban *tw = agree_reclose(twv);
    struct naive_ban *im = agree_reclose(imv);
    ck_assert_uint_eq(naive_ban_states(im), naive_ban_states(tw));
    uint64_t differ = 0, n = naive_ban_states(im);
    for (uint64_t i = 0; i < n; i++) {
        struct mmtb_pos p, q;
        int w1, d1, w2, d2;
        naive_ban_state(im, i, &p, &w1, &d1);
        naive_ban_state(tw, i, &q, &w2, &d2);
        ck_assert(p.stones[0] == q.stones[0] && p.stones[1] == q.stones[1] &&
                  p.ban_from == q.ban_from && p.ban_to == q.ban_to);
        differ += w1 != w2 || d1 != d2;
    }
    fprintf(stderr, "twelve-immune 3-3: %llu of %llu states differ from twelve\n",
            (unsigned long long)differ, (unsigned long long)n);
    ck_assert(differ > 0);
    naive_ban_free(tw);
    naive_ban_free(im);
    mmtb_variant_free(twv);
    mmtb_variant_free(imv);
}
END_TEST

/*
 * twelve-nine through the re-close solver: a board whose four diagonals are
 * lines (a stone slides along them) but not mills, so a stone moved along a
 * diagonal can open or re-close only the mills of the 24-point board.  The
 * tables agree with the oracle on every state, restrictions included.
 */
START_TEST(test_agree_twelve_nine_reclose)
{
    struct mmtb_variant *v = load("twelve-nine"), *tw = load("twelve");
    /* the board this test is about: twelve's lines, fewer mills */
    ck_assert_int_eq(v->nedges, tw->nedges);
    ck_assert_int_lt(v->nmills, tw->nmills);
    naive_ban_free(agree_reclose(v));
    mmtb_variant_free(tw);
    mmtb_variant_free(v);
}
END_TEST

/* Twelve points in four columns and three rows, each row and column a
 * line, every three points in a row a mill. */
#define GRID_BOARD                                                                                 \
    "point a1 0 0\npoint b1 1 0\npoint c1 2 0\npoint d1 3 0\n"                                     \
    "point a2 0 1\npoint b2 1 1\npoint c2 2 1\npoint d2 3 1\n"                                     \
    "point a3 0 2\npoint b3 1 2\npoint c3 2 2\npoint d3 3 2\n"                                     \
    "line a1 b1 c1 d1\nline a2 b2 c2 d2\nline a3 b3 c3 d3\n"                                       \
    "line a1 a2 a3\nline b1 b2 b3\nline c1 c2 c3\nline d1 d2 d3\n"                                 \
    "mill a1 b1 c1\nmill b1 c1 d1\nmill a2 b2 c2\nmill b2 c2 d2\nmill a3 b3 c3\nmill b3 c3 d3\n"   \
    "mill a1 a2 a3\nmill b1 b2 b3\nmill c1 c2 c3\nmill d1 d2 d3\n"

/*
 * Shah's whole game against the whole-game oracle (testlib_naive_game.c):
 * Shah's keys on two small boards, from the empty board.  "grid-shah" is a
 * 3 x 4 grid (rows of four, mills of three along rows and columns) with 6
 * stones a side, so the board is full when placing ends, as in Shah;
 * "three-shah" is the 3 x 3 board with diagonals and 4 stones a side, one
 * point left empty, so the side waiting for the owner's removal could
 * slide.  Every state the oracle reaches (placements with each first-mill
 * owner, openings with either side to move, the movement phase) is probed
 * in the real solver's tables and must have the oracle's value and depth;
 * the compared set must hold the states the index and the probe treat
 * specially.
 */
static const char grid_shah[] =
    "name grid-shah\nstones 6\nflying off\nremoval any\nplace-captures no\nno-move pass\n"
    "first-mill-removal yes\ntrapped-capture no\nboth-trapped draw\n" GRID_BOARD;

/* What the compared states of a Shah game hold (see below). */
struct shah_seen {
    uint64_t states, owner_extra, opening_wait, opening_remove, passes, trapped_mills;
    uint64_t decided;
};

/* Whether the tables (ctx) give the oracle's value wdl, dtw for p; the first
 * ten disagreements of a run (*bad counts them) are printed. */
static bool state_agrees(const struct mmtb_variant *v, mmtb_ctx *ctx, const struct mmtb_pos *p,
                         int wdl, int dtw, uint64_t *bad)
{
    struct mmtb_value val = {0, 0};
    int prc = mmtb_probe(ctx, p, &val);
    if (prc == MMTB_OK && val.wdl == wdl && val.dtw == dtw)
        return true;
    if ((*bad)++ < 10) {
        char buf[200];
        mmtb_pos_format(v, p, buf, sizeof buf);
        fprintf(stderr, "%s: %s: naive %s %d, tables %s %d (%s)\n", v->name, buf, wdl_name(wdl),
                dtw, wdl_name(val.wdl), val.dtw, mmtb_strerror(prc));
    }
    return false;
}

static void agree_shah_game(const char *text, int stones, struct shah_seen *seen)
{
    char dir[128], path[192], tdir[192];
    make_tmpdir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/variant.txt", dir);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    fclose(f);
    struct mmtb_variant *v = load(path);
    ck_assert(v->first_mill_removal && !v->trapped_capture && v->both_trapped_draw);

    char err[512] = "";
    struct naive_game *g = naive_game_solve(v, stones, stones, err, sizeof err);
    ck_assert_msg(g != NULL, "naive_game_solve %s: %s", v->name, err);
    fprintf(stderr, "%s: oracle %llu states in %.2f s\n", v->name,
            (unsigned long long)naive_game_states(g), naive_game_seconds(g));

    snprintf(tdir, sizeof tdir, "%s/tables", dir);
    struct mmtb_solve_opts o;
    memset(&o, 0, sizeof o);
    o.variant = path;
    o.outdir = tdir;
    o.start_w_hand = o.start_b_hand = stones;
    o.threads = 2;
    o.quiet = true;
    o.report = stderr;
    int rc = mmtb_solve(&o, err, sizeof err);
    ck_assert_msg(rc == MMTB_OK, "mmtb_solve %s --start: %s (%s)", v->name, mmtb_strerror(rc), err);

    mmtb_tb *tb = NULL;
    ck_assert_int_eq(mmtb_tb_open(&tb, tdir, NULL), MMTB_OK);
    mmtb_ctx *ctx = NULL;
    ck_assert_int_eq(mmtb_ctx_create(&ctx, tb, (size_t)16 << 20), MMTB_OK);
    struct mmtb_move *mv = malloc(MMTB_MAX_MOVES * sizeof *mv);
    ck_assert_ptr_nonnull(mv);
    uint64_t bad = 0, n = naive_game_states(g);
    memset(seen, 0, sizeof *seen);
    seen->states = n;
    for (uint64_t i = 0; i < n; i++) {
        struct mmtb_pos p;
        int wdl, dtw;
        naive_game_state(g, i, &p, &wdl, &dtw);
        int s = p.side;
        bool placing = p.hand[0] > 0 || p.hand[1] > 0;
        bool both = mmtb_variant_in_mill(v, p.stones[0]) && mmtb_variant_in_mill(v, p.stones[1]);
        /* the index's second half: both have a mill, the owner is the
         * opponent of the side to move */
        seen->owner_extra += placing && both && p.first_mill == MMTB_FIRST_MILL_OF(s ^ 1);
        bool opening = !placing && p.first_mill != MMTB_FIRST_MILL_NONE;
        seen->opening_wait += opening && p.first_mill != MMTB_FIRST_MILL_OF(s);
        seen->opening_remove += opening && p.first_mill == MMTB_FIRST_MILL_OF(s);
        seen->decided += wdl != MMTB_DRAW;
        if (!placing && !opening) {
            int nm = mmtb_pos_terminal(v, &p) == MMTB_NOT_TERMINAL ? mmtb_gen_moves(v, &p, mv) : 0;
            seen->passes += nm == 1 && mv[0].from == MMTB_MOVE_PASS;
            /* a slide closing a mill that removes nothing: the opponent was
             * trapped (checked by hand: no stone of theirs next to a hole) */
            uint32_t empty = v->full & ~(p.stones[0] | p.stones[1]);
            bool stuck = true;
            for (uint32_t o2 = p.stones[s ^ 1]; o2; o2 &= o2 - 1)
                stuck = stuck && !(v->adj[__builtin_ctz(o2)] & empty);
            for (int k = 0; k < nm && stuck; k++) {
                if (mv[k].from < 0)
                    continue;
                uint32_t nown =
                    (p.stones[s] & ~(UINT32_C(1) << mv[k].from)) | (UINT32_C(1) << mv[k].to);
                if (mmtb_closes_mill(v, nown, mv[k].to)) {
                    REQUIRE(mv[k].remove == -1);
                    seen->trapped_mills++;
                    break;
                }
            }
        }
        state_agrees(v, ctx, &p, wdl, dtw, &bad);
    }
    fprintf(stderr,
            "%s: %llu states probed, %llu won or lost; %llu with the opponent as owner while "
            "both have a mill, %llu openings waiting for the owner, %llu owner removals, %llu "
            "passes, %llu mills against a trapped side; %llu disagree\n",
            v->name, (unsigned long long)n, (unsigned long long)seen->decided,
            (unsigned long long)seen->owner_extra, (unsigned long long)seen->opening_wait,
            (unsigned long long)seen->opening_remove, (unsigned long long)seen->passes,
            (unsigned long long)seen->trapped_mills, (unsigned long long)bad);
    /* the solver's own re-derivation agrees too */
    uint64_t mism = 1;
    struct gen_verify_opts vo;
    memset(&vo, 0, sizeof vo);
    vo.dir = tdir;
    vo.threads = 2;
    vo.quiet = true;
    vo.report = fopen("/dev/null", "w");
    vo.mismatches = &mism;
    rc = mmtb_verify(&vo, err, sizeof err);
    fclose(vo.report);
    free(mv);
    mmtb_ctx_free(ctx);
    mmtb_tb_close(tb);
    naive_game_free(g);
    mmtb_variant_free(v);
    ck_assert_msg(rc == MMTB_OK && mism == 0, "verify: %s, %llu mismatches", err,
                  (unsigned long long)mism);
    ck_assert_msg(bad == 0, "%llu of %llu states disagree with the whole-game oracle",
                  (unsigned long long)bad, (unsigned long long)n);
}

/* The whole-game oracle against the tables of variant `name` solved from
 * the empty board with w_hand, b_hand stones in hand: every state it
 * reaches, value and depth to win, probed through libmmtb.  Returns how
 * many of those states hold a full board with no stone in hand; *banned
 * (when not NULL): how many carry a re-close restriction and are won or
 * lost. */
static uint64_t agree_game(const char *name, int w_hand, int b_hand, uint64_t *banned)
{
    struct mmtb_variant *v = load(name);
    char err[512] = "", dir[128], tdir[192];
    struct naive_game *g = naive_game_solve(v, w_hand, b_hand, err, sizeof err);
    ck_assert_msg(g != NULL, "naive_game_solve %s: %s", name, err);
    make_tmpdir(dir, sizeof dir);
    snprintf(tdir, sizeof tdir, "%s/tables", dir);
    struct mmtb_solve_opts o;
    memset(&o, 0, sizeof o);
    o.variant = name;
    o.outdir = tdir;
    o.start_w_hand = w_hand;
    o.start_b_hand = b_hand;
    o.threads = 2;
    o.quiet = true;
    int rc = mmtb_solve(&o, err, sizeof err);
    ck_assert_msg(rc == MMTB_OK, "mmtb_solve %s --start %d,%d: %s", name, w_hand, b_hand, err);
    mmtb_tb *tb = NULL;
    ck_assert_int_eq(mmtb_tb_open(&tb, tdir, NULL), MMTB_OK);
    mmtb_ctx *ctx = NULL;
    ck_assert_int_eq(mmtb_ctx_create(&ctx, tb, (size_t)16 << 20), MMTB_OK);
    uint64_t bad = 0, decided = 0, full = 0, ban = 0, n = naive_game_states(g);
    int deepest = 0;
    for (uint64_t i = 0; i < n; i++) {
        struct mmtb_pos p;
        int wdl, dtw;
        naive_game_state(g, i, &p, &wdl, &dtw);
        decided += wdl != MMTB_DRAW;
        ban += wdl != MMTB_DRAW && (p.ban_from >= 0 || p.ban_to >= 0);
        full += p.hand[0] == 0 && p.hand[1] == 0 && (p.stones[0] | p.stones[1]) == v->full;
        deepest = wdl != MMTB_DRAW && dtw > deepest ? dtw : deepest;
        state_agrees(v, ctx, &p, wdl, dtw, &bad);
    }
    fprintf(stderr,
            "%s --start %d,%d: %llu states probed, %llu won or lost (%llu of them with a "
            "restriction), deepest %d; %llu disagree\n",
            name, w_hand, b_hand, (unsigned long long)n, (unsigned long long)decided,
            (unsigned long long)ban, deepest, (unsigned long long)bad);
    if (banned)
        *banned = ban;
    mmtb_ctx_free(ctx);
    mmtb_tb_close(tb);
    naive_game_free(g);
    mmtb_variant_free(v);
    ck_assert_uint_gt(decided, 0);
    ck_assert_msg(bad == 0, "%s: %llu of %llu states disagree with the whole-game oracle", name,
                  (unsigned long long)bad, (unsigned long long)n);
    return full;
}

/* Depth to win across captures and placements, from the empty board. */
START_TEST(test_agree_games_from_the_start)
{
    agree_game("three", 3, 3, NULL);
    agree_game("three-diag", 3, 3, NULL);
    agree_game("six", 4, 3, NULL);
    agree_game("nine", 3, 3, NULL);
}
END_TEST

/* Stones that may slide while others are in hand (Lasker): the init folds
 * the placements by blocks and generates each position's slides. */
START_TEST(test_agree_lasker_from_the_start)
{
    agree_game("lasker", 3, 3, NULL);
}
END_TEST

/* The re-close rule on the twelve-point grid (GRID_BOARD, below), five
 * stones a side: a mill stands after a capture, so restrictions are
 * earned and carried. */
static const char grid_reclose[] =
    "name grid-reclose\nstones 5\nflying off\nremoval standard\nno-reclose yes\n" GRID_BOARD;

/* A variant file `name` holding text, in a fresh temporary directory
 * (dir, removed by the caller); its path into path. */
static void variant_file(char *dir, size_t dlen, const char *name, const char *text, char *path,
                         size_t plen)
{
    make_tmpdir(dir, dlen);
    snprintf(path, plen, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    ck_assert_int_eq(fclose(f), 0);
}

/* The re-close rule from the empty board: its placement sectors (with both
 * hands full, which go the plain way, and with one, whose positions carry
 * the opponent's restrictions) and the movement phase, restrictions
 * earned and carried across the phases.  On the grid with five stones a
 * side; twelve-nine from 3 v 3 has the real board, but a mill there ends
 * the game, so none of its states carries a restriction. */
START_TEST(test_agree_reclose_from_the_start)
{
    char dir[128], path[192];
    variant_file(dir, sizeof dir, "grid-reclose.txt", grid_reclose, path, sizeof path);
    uint64_t banned = 0;
    agree_game(path, 5, 5, &banned);
    ck_assert_uint_gt(banned, 0);
    /* White with a stone fewer: it slides while Black still places, so the
     * sectors where one side places carry the slider's restrictions */
    agree_game(path, 4, 5, &banned);
    ck_assert_uint_gt(banned, 0);
    remove_tree(dir);
#if !defined(__SANITIZE_ADDRESS__)
    agree_game("twelve-nine", 3, 3, NULL);
#endif
}
END_TEST

/* A game whose board fills when placement ends, a draw there
 * (Morabaraba's rule) on twelve points, six stones a side: its placement
 * sectors go through the init's block passes like any plain game's. */
static const char grid_full[] =
    "name grid-full\nstones 6\nflying off\nremoval standard\nfull-board-draw yes\n" GRID_BOARD;

START_TEST(test_agree_full_board_game)
{
    char dir[128], path[192];
    variant_file(dir, sizeof dir, "grid-full.txt", grid_full, path, sizeof path);
    uint64_t full = agree_game(path, 6, 6, NULL);
    fprintf(stderr, "grid-full: %llu states with a full board\n", (unsigned long long)full);
    ck_assert_uint_gt(full, 0);
    remove_tree(dir);
}
END_TEST

START_TEST(test_agree_shah_game_full_board)
{
    struct shah_seen seen;
    agree_shah_game(grid_shah, 6, &seen);
    ck_assert_uint_gt(seen.owner_extra, 0);
    ck_assert_uint_gt(seen.opening_wait, 0);
    ck_assert_uint_gt(seen.opening_remove, 0);
    ck_assert_uint_gt(seen.passes, 0);
    ck_assert_uint_gt(seen.trapped_mills, 0);
    ck_assert_uint_gt(seen.decided, seen.states / 10);
}
END_TEST

START_TEST(test_agree_shah_game_empty_point)
{
    struct shah_seen seen;
    agree_shah_game(tl_three_shah, 4, &seen);
    ck_assert_uint_gt(seen.owner_extra, 0);
    ck_assert_uint_gt(seen.opening_wait, 0);
    ck_assert_uint_gt(seen.opening_remove, 0);
    ck_assert_uint_gt(seen.decided, seen.states / 10);
}
END_TEST

/* ------------------------------------------------------------------------
 * The whole-game oracle alone: its values obey DTW move by move.
 * ---------------------------------------------------------------------- */

/* A state of the whole-game oracle as a sort key (what the oracle tells
 * states apart by), with its index. */
struct gkey {
    uint64_t stones, rest, index;
};

static struct gkey game_key(const struct mmtb_pos *p, uint64_t index)
{
    struct gkey k;
    k.stones = (uint64_t)p->stones[0] << 32 | p->stones[1];
    k.rest = (uint64_t)p->hand[0] << 24 | (uint64_t)p->hand[1] << 16 | (uint64_t)p->side << 8 |
             p->first_mill;
    k.index = index;
    return k;
}

/* Without AddressSanitizer's shadow load: bsearch's probes into millions of
 * keys land on random pages, and the shadow byte of each is a second TLB
 * miss (six-nofly 4,4's move-by-move check: 38 s with it, under the
 * sanitizers on a machine slow at those, 2026-12-05). */
#if defined(__SANITIZE_ADDRESS__)
__attribute__((no_sanitize("address")))
#endif
static int
cmp_gkey(const void *a, const void *b)
{
    const struct gkey *x = a, *y = b;
    if (x->stones != y->stones)
        return x->stones < y->stones ? -1 : 1;
    return x->rest < y->rest ? -1 : x->rest > y->rest;
}

/*
 * Every state of the whole-game oracle of variant `name` (built-in or file)
 * from (w_hand, b_hand) against its successors, generated by format/movegen.c and looked up among
 * the oracle's states (sorted keys):
 *   a win at d >= 1 has a successor the opponent loses at d - 1 and none
 *     the opponent loses faster;
 *   a loss at 0 is a game over lost (no legal move included); a loss at
 *     d >= 1 has only successors the opponent wins, the deepest at d - 1;
 *   a draw is a drawn game over, or has no successor the opponent loses
 *     and one that is drawn.
 * Returns the number of decided states whose depth comes from a move that
 * removes a stone into a state of depth >= 1 (where DTW differs from depth
 * to conversion).
 */
static uint64_t check_game_dtw(const char *name, int w_hand, int b_hand)
{
    struct mmtb_variant *v = load(name);
    char err[512] = "";
    struct naive_game *g = naive_game_solve(v, w_hand, b_hand, err, sizeof err);
    ck_assert_msg(g != NULL, "naive_game_solve %s: %s", v->name, err);
    double t0 = now_seconds();
    uint64_t n = naive_game_states(g), deep_removals = 0, decided = 0;
    struct gkey *keys = malloc(n * sizeof *keys);
    struct mmtb_move *mv = malloc(MMTB_MAX_MOVES * sizeof *mv);
    ck_assert(keys && mv);
    for (uint64_t i = 0; i < n; i++) {
        struct mmtb_pos p;
        int wdl, dtw;
        naive_game_state(g, i, &p, &wdl, &dtw);
        keys[i] = game_key(&p, i);
    }
    qsort(keys, n, sizeof *keys, cmp_gkey);
    for (uint64_t i = 0; i < n; i++) {
        struct mmtb_pos p;
        int wdl, d;
        naive_game_state(g, i, &p, &wdl, &d);
        int t = mmtb_pos_terminal(v, &p);
        int nm = t == MMTB_NOT_TERMINAL ? mmtb_gen_moves(v, &p, mv) : 0;
        REQUIRE(nm >= 0);
        /* the successors' outcomes for the side to move in p */
        int fastest_win = -1, deepest_loss = -1, draws = 0, wins = 0;
        bool deep_removal = false;
        for (int k = 0; k < nm; k++) {
            struct mmtb_pos q;
            mmtb_pos_apply(v, &p, &mv[k], &q);
            struct gkey want = game_key(&q, 0);
            const struct gkey *hit = bsearch(&want, keys, n, sizeof *keys, cmp_gkey);
            REQUIRE(hit != NULL);
            struct mmtb_pos q2;
            int qwdl, qd;
            naive_game_state(g, hit->index, &q2, &qwdl, &qd);
            if (qwdl == MMTB_LOSS) {
                wins++;
                if (fastest_win < 0 || qd + 1 < fastest_win)
                    fastest_win = qd + 1;
            } else if (qwdl == MMTB_WIN) {
                if (qd + 1 > deepest_loss)
                    deepest_loss = qd + 1;
            } else {
                draws++;
            }
            /* a removal that gives p its depth from a depth >= 1 */
            if (mv[k].remove >= 0 && qwdl != MMTB_DRAW && qd >= 1 && qd + 1 == d &&
                (qwdl == MMTB_LOSS) == (wdl == MMTB_WIN))
                deep_removal = true;
        }
        bool ok;
        if (wdl == MMTB_WIN)
            ok = d >= 1 && nm > 0 && fastest_win == d;
        else if (wdl == MMTB_LOSS && d == 0)
            ok = t == MMTB_LOSS && nm == 0;
        else if (wdl == MMTB_LOSS)
            ok = nm > 0 && wins == 0 && draws == 0 && deepest_loss == d;
        else
            ok = d == -1 && (nm == 0 ? t == MMTB_DRAW : wins == 0 && draws > 0);
        if (!ok) {
            char buf[200];
            mmtb_pos_format(v, &p, buf, sizeof buf);
            ck_abort_msg("%s: %s: oracle %s %d, but %d moves: fastest win %d, deepest loss "
                         "%d, %d draws",
                         v->name, buf, wdl_name(wdl), d, nm, fastest_win, deepest_loss, draws);
        }
        decided += wdl != MMTB_DRAW;
        deep_removals += deep_removal;
    }
    fprintf(stderr,
            "%s from %d,%d: %llu states (%llu decided) in %.2f s, DTW checked move by move in "
            "%.2f s; %llu take their depth from a removal into a depth >= 1\n",
            v->name, w_hand, b_hand, (unsigned long long)n, (unsigned long long)decided,
            naive_game_seconds(g), now_seconds() - t0, (unsigned long long)deep_removals);
    free(mv);
    free(keys);
    naive_game_free(g);
    mmtb_variant_free(v);
    return deep_removals;
}

/*
 * three-diag (the first mill wins: no removal); six with 3 stones each
 * (every removal ends the game), and with 4 against 3 (some losses are
 * deepest through a removal); six without flying, 4 stones each, where
 * removals lead into materials with long wins and losses (a removal into a
 * loss in 4, 6 or 8 wins in 5, 7 or 9).
 */
START_TEST(test_game_oracle_dtw)
{
    ck_assert_uint_eq(check_game_dtw("three-diag", 3, 3), 0);
    ck_assert_uint_eq(check_game_dtw("six", 3, 3), 0);
    ck_assert_uint_gt(check_game_dtw("six", 4, 3), 0);

    const char *text = mmtb_variant_builtin_text("six");
    ck_assert_ptr_nonnull(text);
    const char *fly = strstr(text, "\nflying 3\n"), *body = strstr(text, "\npoint ");
    ck_assert(fly && body && fly < body);
    char dir[128], path[192];
    make_tmpdir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/six-nofly.txt", dir);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    /* six's text with another name and no flying */
    fputs("name six-nofly\nstones 6\nflying off\nremoval standard\n", f);
    fputs(body, f);
    fclose(f);
    ck_assert_uint_gt(check_game_dtw(path, 4, 4), 0);
    remove_tree(dir);
}
END_TEST

static Suite *naive_suite(void)
{
    Suite *s = suite_create("naive");

    TCase *tc = tcase_create("small");
    tcase_add_unchecked_fixture(tc, root_setup, root_teardown);
    tcase_set_timeout(tc, 1200);
    tcase_add_test(tc, test_agree_three);
    tcase_add_test(tc, test_agree_three_diag);
    tcase_add_test(tc, test_agree_six);
    tcase_add_test(tc, test_agree_six_pass_immune);
    tcase_add_test(tc, test_agree_nine_nofly);
    tcase_add_test(tc, test_agree_deep_path);
    tcase_add_test(tc, test_agree_forward_backward);
    tcase_add_test(tc, test_threads_same_bytes);
    suite_add_tcase(s, tc);

    tc = tcase_create("shah");
    tcase_set_timeout(tc, 1200);
    tcase_add_unchecked_fixture(tc, root_setup, root_teardown);
    tcase_add_test(tc, test_agree_shah_small);
    tcase_add_test(tc, test_agree_shah_game_full_board);
    tcase_add_test(tc, test_agree_full_board_game);
    tcase_add_test(tc, test_agree_shah_game_empty_point);
    suite_add_tcase(s, tc);

    tc = tcase_create("twelve");
    tcase_add_unchecked_fixture(tc, root_setup, root_teardown);
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, test_agree_twelve_reclose);
    tcase_add_test(tc, test_agree_twelve_nine_reclose);
    suite_add_tcase(s, tc);

    /* tagged: ctest runs it as a test of its own (check_naive_oracle) */
    tc = tcase_create("oracle");
    tcase_set_tags(tc, "oracle");
    tcase_add_unchecked_fixture(tc, root_setup, root_teardown);
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, test_game_oracle_dtw);
    tcase_add_test(tc, test_agree_games_from_the_start);
    tcase_add_test(tc, test_agree_lasker_from_the_start);
    tcase_add_test(tc, test_agree_reclose_from_the_start);
#if !defined(__SANITIZE_ADDRESS__)
    tcase_add_test(tc, test_nine_known_3_5);
#endif
    suite_add_tcase(s, tc);

    tc = tcase_create("nine");
    tcase_add_unchecked_fixture(tc, root_setup, root_teardown);
    tcase_add_unchecked_fixture(tc, nine_setup, nine_teardown);
    tcase_set_timeout(tc, 1200);
    tcase_add_test(tc, test_nine_known_results);
    tcase_add_test(tc, test_agree_nine);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(naive_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
