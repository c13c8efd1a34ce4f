/*
 * check_checkpoint.c - a pair killed in its levels goes on from its
 * checkpoint (gen/checkpoint.c): the solver, saving at every level, kills
 * itself right after the run's Nth save (mmtb_solve_opts.checkpoint_kill, as a
 * killed session would), and a rerun into the same directory with another
 * thread count must take the checkpoint up (opts.resumed), leave no
 * NAME.ckpt behind, and write files byte-identical to a run never stopped.
 * A checkpoint damaged (a byte flipped, the file cut short) or of another
 * pair is set aside and the pair solved from its start, with the same
 * files; --plan says which pair a checkpoint goes on from.  Covers the
 * plain path (nine), the deep lists (a small deep_from), the positions
 * with re-close restrictions (twelve), and the buckets kept on disk; and a
 * save asked for by a signal (mmtb_solve_checkpoint_on) when the interval
 * would not make one.
 *
 * Every solve runs in a child process: the test's own process never enters
 * an OpenMP region, so its forks stay safe.
 */
#define _GNU_SOURCE
#include <check.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "mmtb.h"
#include "solve.h"
#include "tablefile.h"
#include "testlib_util.h"

static char tdir[256];

/* Set before solve_child: the child catches SIGUSR1 as mmtb-gen does and
 * sends it to itself before it solves. */
static bool ask_save;

/* Set before solve_child: the run's stop_after (--stop-after); the child
 * then exits with 50 when it stopped so. */
static double stop_after;

struct run {
    const char *variant;
    int max_stones;
    int deep_from;
    const char *only; /* a sector: only it and what it needs (NULL: all) */
    int spill_seg;    /* > 0: the buckets on disk, a stream written there every
                       * spill_seg bytes (buckets.c) */
};

/* o set for r on dir (only: storage for its sector); false when r's
 * sector name does not parse. */
static bool run_opts(struct mmtb_solve_opts *o, const struct run *r, const char *dir,
                     struct mmtb_sector *only)
{
    memset(o, 0, sizeof *o);
    o->variant = r->variant;
    o->outdir = dir;
    o->max_stones = r->max_stones;
    o->deep_from = r->deep_from;
    o->buckets_to_disk = r->spill_seg > 0;
    o->bucket_spill_seg = (size_t)r->spill_seg;
    o->quiet = true;
    if (!r->only)
        return true;
    o->only = only;
    o->n_only = 1;
    return mmtb_tf_sector_name_parse(r->only, strlen(r->only), only) == MMTB_OK;
}

/* The wait status of child p. */
static int wait_child(pid_t p)
{
    int st;
    while (waitpid(p, &st, 0) < 0)
        ck_assert_int_eq(errno, EINTR);
    return st;
}

/* Solve r into dir in a child process: its wait status.  The child exits
 * with the number of pairs restored from a checkpoint, or 100 when the
 * solve failed. */
static int solve_child(const struct run *r, const char *dir, int threads, double minutes,
                       int kill_after)
{
    pid_t p = fork();
    ck_assert_int_ge(p, 0);
    if (p == 0) {
        struct mmtb_solve_opts o;
        struct mmtb_sector only;
        if (!run_opts(&o, r, dir, &only))
            _exit(100);
        o.threads = threads;
        o.checkpoint_minutes = minutes;
        o.checkpoint_kill = kill_after;
        int resumed = 0;
        o.resumed = &resumed;
        if (ask_save && (mmtb_solve_checkpoint_on(SIGUSR1) != MMTB_OK || raise(SIGUSR1) != 0))
            _exit(100);
        o.stop_after = stop_after;
        char err[512];
        int rc = mmtb_solve(&o, err, sizeof err);
        if (rc == MMTB_SOLVE_STOPPED && strstr(err, "pairs left"))
            _exit(50);
        if (rc != MMTB_OK) {
            fprintf(stderr, "solve %s into %s: %s\n", r->variant, dir, err);
            _exit(100);
        }
        _exit(resumed < 100 ? resumed : 99);
    }
    return wait_child(p);
}

/* --plan --json of r on dir, in a child process: how many pairs it says a
 * checkpoint goes on from (a "checkpoint_level" not null). */
static int plan_checkpoints(const struct run *r, const char *dir)
{
    char path[400];
    snprintf(path, sizeof path, "%s.plan", dir);
    pid_t p = fork();
    ck_assert_int_ge(p, 0);
    if (p == 0) {
        struct mmtb_solve_opts o;
        struct mmtb_sector only;
        if (!run_opts(&o, r, dir, &only))
            _exit(1);
        o.plan = true;
        o.json = true;
        o.report = fopen(path, "w");
        char err[512];
        int rc = o.report ? mmtb_solve(&o, err, sizeof err) : MMTB_ERR_IO;
        _exit(rc == MMTB_OK && fclose(o.report) == 0 ? 0 : 1);
    }
    int st = wait_child(p);
    ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "--plan on %s: status %d", dir, st);
    size_t len;
    char *t = (char *)tl_read_file(path, &len);
    t[len] = 0;
    int n = 0, pairs = 0;
    for (const char *q = t; (q = strstr(q, "\"checkpoint_level\":")); q++) {
        pairs++;
        n += q[19] != 'n';
    }
    ck_assert_msg(pairs > 0, "no checkpoint_level in the plan: %s", t);
    free(t);
    unlink(path);
    return n;
}

/* dir holds the same files as ref, byte for byte (and so no checkpoint). */
static void same_files(const char *ref, const char *dir)
{
    static char a[64][64], b[64][64];
    int na = tl_list_files(ref, a, 64), nb = tl_list_files(dir, b, 64);
    for (int i = 0; i < nb; i++)
        ck_assert_msg(!strstr(b[i], ".ckpt"), "%s/%s left behind", dir, b[i]);
    ck_assert_int_eq(na, nb);
    for (int i = 0; i < na; i++) {
        ck_assert_str_eq(a[i], b[i]);
        char pa[600], pb[600];
        snprintf(pa, sizeof pa, "%.400s/%.63s", ref, a[i]);
        snprintf(pb, sizeof pb, "%.400s/%.63s", dir, b[i]);
        size_t la, lb;
        uint8_t *x = tl_read_file(pa, &la), *y = tl_read_file(pb, &lb);
        ck_assert_msg(la == lb && !memcmp(x, y, la), "%s differs from %s", pb, pa);
        free(x);
        free(y);
    }
}

/* The name of the one checkpoint in dir (into name); false when none. */
static bool find_ckpt(const char *dir, char name[64])
{
    static char f[64][64];
    int n = tl_list_files(dir, f, 64), found = 0;
    for (int i = 0; i < n; i++)
        if (strlen(f[i]) > 5 && !strcmp(f[i] + strlen(f[i]) - 5, ".ckpt")) {
            snprintf(name, 64, "%s", f[i]);
            found++;
        }
    ck_assert_int_le(found, 1);
    return found == 1;
}

/* A run killed right after its kill_after-th save: the directory, with the
 * checkpoint's name in ck. */
static void killed_run(const struct run *r, const char *dir, int kill_after, char ck[64])
{
    tl_rmdir_all(dir);
    int st = solve_child(r, dir, 2, 1e-9, kill_after);
    ck_assert_msg(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL,
                  "%s: the run was to kill itself after save %d (status %d)", r->variant,
                  kill_after, st);
    ck_assert_msg(find_ckpt(dir, ck), "%s: killed after a save, yet no checkpoint in %s",
                  r->variant, dir);
}

static void reference(const struct run *r, char *ref, size_t len)
{
    snprintf(ref, len, "%s/ref-%s-%d", tdir, r->variant, r->deep_from);
    struct stat sb;
    if (stat(ref, &sb) == 0)
        return;
    struct run mem = *r; /* (the buckets on disk write the same bytes) */
    mem.spill_seg = 0;
    int st = solve_child(&mem, ref, 2, -1, 0);
    ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "reference run of %s: status %d",
                  r->variant, st);
}

/* A rerun of r into dir (threads, checkpoint minutes) restores exactly one
 * pair and leaves the files of ref; dir is then removed.  what: the case,
 * for the message. */
static void rerun_restores_one(const struct run *r, const char *dir, int threads, double minutes,
                               const char *ref, const char *what)
{
    int st = solve_child(r, dir, threads, minutes, 0);
    ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 1,
                  "%s: the rerun restored %d pairs (status %d), not 1", what,
                  WIFEXITED(st) ? WEXITSTATUS(st) : -1, st);
    same_files(ref, dir);
    tl_rmdir_all(dir);
}

/* Killed after save k, resumed by rerun (r itself when NULL) with
 * `threads`: the checkpoint taken up, the same files. */
static void resume_case_by(const struct run *r, int k, int threads, const struct run *rerun)
{
    char ref[300], dir[300], ck[64];
    reference(r, ref, sizeof ref);
    snprintf(dir, sizeof dir, "%s/k-%s-%d-%d-%d", tdir, r->variant, r->deep_from, k,
             r->spill_seg);
    killed_run(r, dir, k, ck);
    ck_assert_int_eq(plan_checkpoints(r, dir), 1);
    char what[96];
    snprintf(what, sizeof what, "%s killed after save %d", r->variant, k);
    rerun_restores_one(rerun ? rerun : r, dir, threads, 0, ref, what);
}

static void resume_case(const struct run *r, int k, int threads)
{
    resume_case_by(r, k, threads, NULL);
}

static const struct run nine4 = {"nine", 4, 0, NULL, 0}, nine4_deep = {"nine", 4, 3, NULL, 0},
                        twelve43 = {"twelve", 4, 0, "4-3", 0};

START_TEST(nine_resumes)
{
    /* (at every level: 3-3 saves 27 times, 4-3 with 3-4 34 times, 4-4 10) */
    resume_case(&nine4, 29, 3);
    resume_case(&nine4, 66, 1);
}
END_TEST

START_TEST(nine_deep_lists_resume)
{
    resume_case(&nine4_deep, 40, 1);
}
END_TEST

START_TEST(twelve_resumes)
{
    /* (3-3 saves 25 times, 4-3 with 3-4 29 times) */
    resume_case(&twelve43, 40, 3);
}
END_TEST

/* With the buckets on disk (a pair over its memory), written there every
 * 16 bytes of a stream: a save holds the streams read back from the file,
 * and a rerun goes on from it with them on disk again; a save with them in
 * memory goes on with them on disk. */
START_TEST(buckets_on_disk_resume)
{
    static const struct run nine4_disk = {"nine", 4, 0, NULL, 16},
                            twelve43_disk = {"twelve", 4, 0, "4-3", 16};
    resume_case(&nine4_disk, 29, 3);
    resume_case_by(&twelve43, 40, 2, &twelve43_disk);
}
END_TEST

/* A checkpoint damaged at byte `at` (flipped; or, cut, the file ends
 * there): set aside, the pair solved from its start, the same files. */
static void damaged_case(const struct run *r, int k, bool cut, double where)
{
    char ref[300], dir[300], ck[64], path[400];
    reference(r, ref, sizeof ref);
    snprintf(dir, sizeof dir, "%s/d-%s-%d", tdir, r->variant, k);
    killed_run(r, dir, k, ck);
    snprintf(path, sizeof path, "%s/%s", dir, ck);
    size_t len;
    uint8_t *b = tl_read_file(path, &len);
    size_t at = (size_t)((double)len * where);
    ck_assert_uint_lt(at, len);
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    if (!cut)
        b[at] ^= 0x10;
    ck_assert_uint_eq(fwrite(b, 1, cut ? at : len, f), cut ? at : len);
    fclose(f);
    free(b);
    int st = solve_child(r, dir, 2, -1, 0);
    ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0,
                  "%s: a damaged checkpoint (%s at %zu) was taken up or failed the run (status %d)",
                  r->variant, cut ? "cut" : "flipped", at, st);
    same_files(ref, dir);
    tl_rmdir_all(dir);
}

START_TEST(damaged_checkpoint_set_aside)
{
    damaged_case(&nine4, 31, false, 0.999);
    damaged_case(&nine4, 31, true, 0.7);
}
END_TEST

/* The checkpoint of one pair under the name of another, not yet solved:
 * that pair is solved from its start; the true one is still taken up. */
START_TEST(checkpoint_of_another_pair)
{
    char ref[300], dir[300], ck[64], from[400], to[400];
    reference(&nine4, ref, sizeof ref);
    snprintf(dir, sizeof dir, "%s/other", tdir);
    killed_run(&nine4, dir, 3, ck);
    /* nine up to 4 v 4 ends with the lone sector 4-4 */
    ck_assert_str_ne(ck, "4-4.ckpt");
    snprintf(from, sizeof from, "%s/%s", dir, ck);
    snprintf(to, sizeof to, "%s/4-4.ckpt", dir);
    size_t len;
    uint8_t *b = tl_read_file(from, &len);
    FILE *f = fopen(to, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(b, 1, len, f), len);
    fclose(f);
    free(b);
    rerun_restores_one(&nine4, dir, 2, -1, ref, "a checkpoint under another pair's name");
}
END_TEST

/* SIGUSR1 saves at the next level's start though the interval (a million
 * minutes) would never: the run kills itself after that save, and a rerun
 * goes on from it to the same files.  Without the signal, or with
 * checkpoints off, the same run saves nothing and ends. */
START_TEST(save_asked_by_signal)
{
    char ref[300], dir[300], ck[64];
    reference(&nine4, ref, sizeof ref);
    snprintf(dir, sizeof dir, "%s/asked", tdir);
    double never = 1e6;
    for (int c = 0; c < 2; c++) {
        tl_rmdir_all(dir);
        ask_save = c == 1;
        int st = solve_child(&nine4, dir, 2, ask_save ? -1 : never, 1);
        ask_save = false;
        ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0,
                      "%s, no save due: the run did not end normally (status %d)",
                      c ? "checkpoints off, asked" : "not asked", st);
        ck_assert_msg(!find_ckpt(dir, ck), "a checkpoint %s left without a save due", ck);
        same_files(ref, dir);
    }
    tl_rmdir_all(dir);
    ask_save = true;
    int st = solve_child(&nine4, dir, 2, never, 1);
    ask_save = false;
    ck_assert_msg(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL,
                  "asked for a save, the run did not save (status %d)", st);
    ck_assert_msg(find_ckpt(dir, ck), "asked for a save, yet no checkpoint in %s", dir);
    ck_assert_int_eq(plan_checkpoints(&nine4, dir), 1);
    rerun_restores_one(&nine4, dir, 1, never, ref, "the save asked for by SIGUSR1");
}
END_TEST

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* --stop-after: with no time at all, the run stops before its first pair
 * (nothing written); stopped at moments spread over a clean run's length,
 * it saves the pair under way, and a rerun goes on from the save to the
 * same files (stops at 30, 50, 70 and 90 %); some stop must land in a
 * pair's levels (nearly all of nine 4's time). */
START_TEST(stop_after_saves_and_resumes)
{
    char ref[300], dir[300], ck[64];
    reference(&nine4, ref, sizeof ref);
    snprintf(dir, sizeof dir, "%s/stop", tdir);
    tl_rmdir_all(dir);
    stop_after = 1e-9;
    int st = solve_child(&nine4, dir, 2, -1, 0);
    ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 50, "no time: status %d", st);
    ck_assert_msg(!find_ckpt(dir, ck), "a checkpoint %s before any pair", ck);
    static char f[64][64];
    ck_assert_int_eq(tl_list_files(dir, f, 64), 1); /* the manifest alone */
    tl_rmdir_all(dir);
    stop_after = 0;
    double t0 = now_s();
    st = solve_child(&nine4, dir, 2, 1e6, 0);
    double T = now_s() - t0;
    ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    int saved = 0;
    for (int k = 3; k <= 9; k += 2) {
        tl_rmdir_all(dir);
        stop_after = T * k / 10;
        st = solve_child(&nine4, dir, 2, 1e6, 0); /* no save due but the stop's */
        stop_after = 0;
        ck_assert_msg(WIFEXITED(st) && (WEXITSTATUS(st) == 50 || WEXITSTATUS(st) == 0),
                      "stop after %.2f s: status %d", T * k / 10, st);
        if (WEXITSTATUS(st) == 50 && find_ckpt(dir, ck)) {
            saved++;
            rerun_restores_one(&nine4, dir, 1, 1e6, ref, "stopped by --stop-after");
        } else {
            st = solve_child(&nine4, dir, 2, 1e6, 0);
            ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
            same_files(ref, dir);
        }
    }
    ck_assert_msg(saved > 0, "no stop saved a pair (clean run %.2f s)", T);
}
END_TEST

static Suite *checkpoint_suite(void)
{
    Suite *s = suite_create("checkpoint");
    TCase *tc = tcase_create("resume");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, nine_resumes);
    tcase_add_test(tc, nine_deep_lists_resume);
    tcase_add_test(tc, twelve_resumes);
    tcase_add_test(tc, buckets_on_disk_resume);
    tcase_add_test(tc, damaged_checkpoint_set_aside);
    tcase_add_test(tc, checkpoint_of_another_pair);
    tcase_add_test(tc, save_asked_by_signal);
    tcase_add_test(tc, stop_after_saves_and_resumes);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    snprintf(tdir, sizeof tdir, "/tmp/check_checkpoint_XXXXXX");
    if (!mkdtemp(tdir)) {
        fprintf(stderr, "mkdtemp: %s\n", strerror(errno));
        return EXIT_FAILURE;
    }
    return tl_run_suite(checkpoint_suite(), tdir, "check_checkpoint");
}
