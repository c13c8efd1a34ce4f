/*
 * check_crash.c - crash safety of mmtb-gen, run as users run it: SIGKILL at
 * random moments (seeded, spread over the measured length of a clean run)
 * and reruns into the same directory must end in files byte-identical to a
 * clean run (the runs save their pairs' levels every 0.6 s, --checkpoint,
 * so that kills land in saves and reruns go on from them), and no kill may
 * leave a file that passes the whole-file check
 * while incomplete; a read-only directory, missing child tables and a full
 * disk (a small tmpfs, when this process may mount one) give an error
 * naming the file and a non-zero exit, and a rerun after space is freed
 * resumes; some kills are made to land while a table file is being written
 * (its NAME.mmtb.tmp seen, and still there after the kill).  `mmtb-gen
 * verify --ledger` killed at random moments goes on where it stopped: the
 * finished run covers every sector once, its ledger has one line each.
 * MMTB_CRASH_ROUNDS=N runs N rounds of kills per game (long run);
 * MMTB_CRASH_STONES=N kills the movement phase up to N stones a side
 * instead of 5 (3..9; 4 is about a fifth as long).
 */
#define _GNU_SOURCE
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "mmtb.h"
#include "mmtb_integrity.h"
#include "testlib_cli.h"
#include "testlib_util.h"

static char tdir[256];

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* argv of mmtb-gen -v nine ARGS -o OUT --quiet --threads 2 (static storage). */
static char **gen_argv(const char *a1, const char *a2, const char *out)
{
    static char *argv[14];
    static char b1[32], b2[32], o[600];
    snprintf(b1, sizeof b1, "%s", a1);
    snprintf(b2, sizeof b2, "%s", a2);
    snprintf(o, sizeof o, "%s", out);
    /* a pair's levels saved every 0.6 s (--checkpoint, gen/checkpoint.c), so
     * that kills land in saves too, and reruns go on from them */
    char *v[] = {GEN_BIN,   "-v", "nine", b1,           b2,     "-o", o, "--quiet",
                 "--threads", "2", "--checkpoint", "0.01", NULL};
    memcpy(argv, v, sizeof v);
    return argv;
}

/* Run to the end; the exit code.  Output appended to log. */
static int run(char **argv, const char *log)
{
    int pid = tl_spawn(argv, log);
    ck_assert_msg(pid > 0, "cannot start %s", argv[0]);
    return tl_wait(pid);
}

/* Run, and kill with SIGKILL after `delay` seconds unless it ended first.
 * True when it was killed. */
static bool run_and_kill(char **argv, double delay)
{
    int pid = tl_spawn(argv, NULL);
    ck_assert(pid > 0);
    double t0 = now();
    int status;
    for (;;) {
        pid_t r = waitpid(pid, &status, WNOHANG);
        if (r == pid) {
            ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
                          "mmtb-gen failed on its own (status %d)", status);
            return false;
        }
        if (now() - t0 >= delay)
            break;
        struct timespec ts = {0, 2 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    kill(pid, SIGKILL);
    int rc = tl_wait(pid);
    if (rc == 0)
        return false; /* it ended between the last look and the kill */
    ck_assert_int_eq(rc, 128 + SIGKILL);
    return true;
}

/* Every sector file present holds whole (a killed run may leave files
 * missing or NAME.tmp, never a damaged NAME).  Returns the number of
 * *.tmp files left. */
static int check_dir(const char *dir)
{
    int tmp = 0;
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    struct dirent *e;
    while ((e = readdir(d)))
        tmp += strlen(e->d_name) > 4 && strcmp(e->d_name + strlen(e->d_name) - 4, ".tmp") == 0;
    closedir(d);
    char mpath[600];
    snprintf(mpath, sizeof mpath, "%s/MANIFEST", dir);
    if (access(mpath, F_OK) != 0)
        return tmp; /* killed before the manifest was written */
    mmtb_tb *tb = NULL;
    char err[256];
    struct mmtb_tb_opts o = {0, 0, err, sizeof err};
    ck_assert_msg(mmtb_tb_open(&tb, dir, &o) == MMTB_OK, "MANIFEST after a kill: %s", err);
    for (int i = 0; i < mmtb_tb_sector_count(tb); i++) {
        struct mmtb_verify_result res;
        ck_assert_int_eq(mmtb_tb_verify_file(tb, i, NULL, &res), MMTB_OK);
        ck_assert_msg(res.problems == 0, "sector %d is damaged after a kill", i);
    }
    mmtb_tb_close(tb);
    return tmp;
}

/* The files of a and b are the same, byte for byte, and the same names. */
static void same_files(const char *a, const char *b)
{
    char cmd[1000];
    snprintf(cmd, sizeof cmd, "diff -r '%s' '%s' > /dev/null", a, b);
    ck_assert_msg(system(cmd) == 0, "%s and %s differ", a, b);
}

/*
 * Kill rounds on one game: a clean run measures its length T; each round
 * starts from an empty directory, kills a run at a moment spread over
 * [0, T) (stratified: round r of R draws from its R-th of the run), kills
 * the resumed run again at a random moment, reruns to the end and compares
 * with the clean tables; more rounds while fewer than min_kills runs were
 * killed (a run may end before its kill time).  Returns the number of kills.
 */
static int kill_rounds(const char *a1, const char *a2, const char *tag, int rounds, int min_kills,
                       int *tmps)
{
    char clean[400], work[400], cmd[900];
    snprintf(clean, sizeof clean, "%s/%s-clean", tdir, tag);
    snprintf(work, sizeof work, "%s/%s-work", tdir, tag);
    double t0 = now();
    ck_assert_int_eq(run(gen_argv(a1, a2, clean), NULL), 0);
    double T = now() - t0;
    unsigned seed = 19u;
    int kills = 0;
    for (int r = 0; r < rounds || (kills < min_kills && r < 4 * rounds); r++) {
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", work);
        ck_assert_int_eq(system(cmd), 0);
        double u = (double)rand_r(&seed) / RAND_MAX;
        double first = T * ((r % rounds) + u) / rounds;
        if (run_and_kill(gen_argv(a1, a2, work), first)) {
            kills++;
            *tmps += check_dir(work) > 0;
        }
        double second = (T - first) * (double)rand_r(&seed) / RAND_MAX; /* in what is left */
        if (run_and_kill(gen_argv(a1, a2, work), second)) {
            kills++;
            *tmps += check_dir(work) > 0;
        }
        ck_assert_int_eq(run(gen_argv(a1, a2, work), NULL), 0);
        same_files(clean, work);
    }
    printf("check_crash: nine %s %s: clean run %.2f s, %d kills, all reruns identical\n", a1, a2,
           T, kills);
    fflush(stdout);
    return kills;
}

/* The name of a file in dir ending in suffix into buf (empty when there is
 * none). */
static void find_tmp(const char *dir, const char *suffix, char *buf, size_t len)
{
    buf[0] = '\0';
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t n = strlen(e->d_name);
        if (n > strlen(suffix) && strcmp(e->d_name + n - strlen(suffix), suffix) == 0) {
            snprintf(buf, len, "%s", e->d_name);
            break;
        }
    }
    closedir(d);
}

/* Run and kill with SIGKILL as soon as the nth (0-based) sector file write
 * is seen: a NAME.mmtb.tmp in dir (renamed to NAME.mmtb when complete).
 * The directory is polled every 0.1 ms.  True when it was killed. */
static bool run_and_kill_writing(char **argv, const char *dir, int nth)
{
    int pid = tl_spawn(argv, NULL);
    ck_assert(pid > 0);
    char last[256] = "", cur[256];
    int seen = 0, status;
    for (;;) {
        pid_t r = waitpid(pid, &status, WNOHANG);
        if (r == pid) {
            ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
                          "mmtb-gen failed on its own (status %d)", status);
            return false;
        }
        find_tmp(dir, ".mmtb.tmp", cur, sizeof cur);
        if (cur[0] && strcmp(cur, last) != 0) {
            snprintf(last, sizeof last, "%s", cur);
            if (seen++ == nth)
                break;
        }
        struct timespec ts = {0, 100 * 1000};
        nanosleep(&ts, NULL);
    }
    kill(pid, SIGKILL);
    int rc = tl_wait(pid);
    if (rc == 0)
        return false; /* it ended between the last look and the kill */
    ck_assert_int_eq(rc, 128 + SIGKILL);
    return true;
}

/*
 * Kills that land while a table file is being written: each attempt
 * starts from an empty directory and kills the run at the moment the nth
 * sector file write (n drawn from the sector files of a clean run) is seen;
 * it counts as a write kill when the NAME.mmtb.tmp is still there
 * afterwards (the kill came before the rename).  Then the rerun must end in the clean run's files.  Attempts
 * go on until `want` write kills or max_attempts.  Returns the write kills.
 */
static int write_kills(const char *a1, const char *a2, const char *tag, int want, int max_attempts)
{
    char clean[400], work[400], cmd[900];
    snprintf(clean, sizeof clean, "%s/%s-wclean", tdir, tag);
    snprintf(work, sizeof work, "%s/%s-wwork", tdir, tag);
    ck_assert_int_eq(run(gen_argv(a1, a2, clean), NULL), 0);
    int files = 0;
    DIR *d = opendir(clean);
    ck_assert(d != NULL);
    for (struct dirent *e; (e = readdir(d));)
        files += strstr(e->d_name, ".mmtb") != NULL;
    closedir(d);
    unsigned seed = 1919u;
    int hits = 0, attempts = 0;
    char names[600] = "";
    for (; hits < want && attempts < max_attempts; attempts++) {
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", work);
        ck_assert_int_eq(system(cmd), 0);
        ck_assert_int_eq(mkdir(work, 0755), 0);
        int nth = (int)((unsigned)rand_r(&seed) % (unsigned)files);
        if (run_and_kill_writing(gen_argv(a1, a2, work), work, nth)) {
            char tmpname[256];
            find_tmp(work, ".mmtb.tmp", tmpname, sizeof tmpname);
            ck_assert_int_ge(check_dir(work), tmpname[0] != '\0'); /* and no damaged file */
            if (tmpname[0]) {
                hits++;
                size_t l = strlen(names);
                snprintf(names + l, sizeof names - l, "%s%s", l ? " " : "", tmpname);
            }
        }
        ck_assert_int_eq(run(gen_argv(a1, a2, work), NULL), 0);
        same_files(clean, work);
    }
    printf("check_crash: nine %s %s: %d of %d kills landed while a table file was written (%s), all "
           "reruns identical\n",
           a1, a2, hits, attempts, names);
    fflush(stdout);
    return hits;
}

static int rounds_env(int dflt)
{
    const char *e = getenv("MMTB_CRASH_ROUNDS");
    return e && atoi(e) > 0 ? atoi(e) : dflt;
}

/* The --max-stones of the movement-phase game: MMTB_CRASH_STONES, or 5. */
static const char *stones_env(void)
{
    const char *e = getenv("MMTB_CRASH_STONES");
    return e && atoi(e) >= 3 && atoi(e) <= 9 && e[1] == '\0' ? e : "5";
}

/* ---------------------------------------------------------------------- */

/* The movement phase up to 5 stones a side (MMTB_CRASH_STONES), and a
 * placement start (3 v 3 stones in hand): together at least 20 kills. */
START_TEST(kill_anywhere_resumes_identical)
{
    int tmps = 0;
    char tag[8];
    snprintf(tag, sizeof tag, "m%s", stones_env());
    int kills = kill_rounds("--max-stones", stones_env(), tag, rounds_env(6), 10, &tmps);
    kills += kill_rounds("--start", "3,3", "s33", rounds_env(6), 10, &tmps);
    printf("check_crash: %d kills in total, %d of them left a *.tmp file\n", kills, tmps);
    ck_assert_int_ge(kills, 20);
}
END_TEST

/* Kills while a table file is being written (a random one of the run's
 * sector files): at least 3 per game, every rerun identical.  The movement
 * game is up to 4 stones (or MMTB_CRASH_STONES when smaller): every attempt
 * costs a whole rerun, and the write and rename are the same code for any
 * sector; the kills anywhere above cover up to 5. */
START_TEST(kill_while_writing_resumes_identical)
{
    int want = rounds_env(6) > 6 ? rounds_env(6) / 2 : 3;
    const char *stones = atoi(stones_env()) < 4 ? stones_env() : "4";
    char tag[8];
    snprintf(tag, sizeof tag, "m%s", stones);
    int hits = write_kills("--max-stones", stones, tag, want, 8 * want);
    ck_assert_int_ge(hits, want);
    hits = write_kills("--start", "3,3", "s33", want, 8 * want);
    ck_assert_int_ge(hits, want);
}
END_TEST

/* A read-only output directory: an error naming the file, non-zero exit.
 * As root, permissions do not stop writes: a read-only tmpfs does. */
START_TEST(read_only_directory)
{
    char ro[400], log[500];
    snprintf(ro, sizeof ro, "%s/ro", tdir);
    snprintf(log, sizeof log, "%s/ro.log", tdir);
    ck_assert_int_eq(mkdir(ro, 0755), 0);
    bool mounted = false;
    if (geteuid() == 0) {
        if (mount("tmpfs", ro, "tmpfs", MS_RDONLY, "size=1m") != 0) {
            printf("check_crash: read_only_directory skipped: running as root and cannot mount "
                   "a read-only tmpfs (%s)\n",
                   strerror(errno));
            return;
        }
        mounted = true;
    } else {
        ck_assert_int_eq(chmod(ro, 0555), 0);
    }
    int rc = run(gen_argv("--max-stones", "3", ro), log);
    if (mounted)
        umount(ro);
    size_t len;
    char *text = (char *)tl_read_file(log, &len);
    text[len] = 0;
    ck_assert_int_ne(rc, 0);
    ck_assert_msg(rc < 128, "mmtb-gen crashed: %d", rc);
    ck_assert_msg(strstr(text, "/ro/MANIFEST"), "message: %s", text);
    free(text);
}
END_TEST

/* Missing child tables: verify names the missing file; a rerun of the
 * solver re-creates it identically. */
START_TEST(missing_child_tables)
{
    char clean[400], work[400], path[500], log[500], cmd[1400];
    snprintf(clean, sizeof clean, "%s/child-clean", tdir);
    snprintf(work, sizeof work, "%s/child-work", tdir);
    snprintf(log, sizeof log, "%s/child.log", tdir);
    ck_assert_int_eq(run(gen_argv("--max-stones", "4", clean), NULL), 0);
    snprintf(cmd, sizeof cmd, "rm -rf '%s' && cp -r '%s' '%s'", work, clean, work);
    ck_assert_int_eq(system(cmd), 0);
    snprintf(path, sizeof path, "%s/3-4.mmtb", work);
    ck_assert_int_eq(unlink(path), 0);
    char *v[] = {GEN_BIN, "verify", "-t", work, "--sectors", "4-4", "--quiet", NULL};
    ck_assert_int_eq(run(v, log), 2);
    size_t len;
    char *text = (char *)tl_read_file(log, &len);
    text[len] = 0;
    ck_assert_msg(strstr(text, "3-4.mmtb"), "message: %s", text);
    free(text);
    /* the probe side: integrity names it as listed but missing */
    struct tl_result r;
    tl_run(&r, NULL, "integrity", "-t", work, NULL);
    ck_assert_int_eq(r.code, 2);
    ck_assert_msg(strstr(r.out, "3-4.mmtb"), "out: %s", r.out);
    tl_result_free(&r);
    ck_assert_int_eq(run(gen_argv("--max-stones", "4", work), NULL), 0);
    same_files(clean, work);
}
END_TEST

/* A full disk (tmpfs of 100 KiB; the tables take 140 KB): --plan says
 * beforehand that the disk is short (its estimate, 2 MB, is above the free
 * bytes), the error names the file, what is left passes the whole-file
 * check and holds no *.tmp; after the filesystem grows, --plan no longer
 * says so and the rerun resumes to the clean tables. */
START_TEST(full_disk_then_resume)
{
    char mnt[400], out[500], clean[400], log[500];
    snprintf(mnt, sizeof mnt, "%s/full", tdir);
    snprintf(out, sizeof out, "%s/t", mnt);
    snprintf(clean, sizeof clean, "%s/full-clean", tdir);
    snprintf(log, sizeof log, "%s/full.log", tdir);
    ck_assert_int_eq(mkdir(mnt, 0755), 0);
    if (mount("tmpfs", mnt, "tmpfs", 0, "size=100k") != 0) {
        printf("check_crash: full_disk_then_resume skipped: cannot mount a tmpfs here (%s; "
               "needs root or CAP_SYS_ADMIN)\n",
               strerror(errno));
        return;
    }
    ck_assert_int_eq(run(gen_argv("--max-stones", "4", clean), NULL), 0);
    char *plan[] = {GEN_BIN, "-v", "nine", "--max-stones", "4", "-o", out, "--plan", NULL};
    struct tl_result r;
    tl_run_argv(&r, NULL, plan);
    bool short_said = r.code == 0 && strstr(r.out, " GB free there: not enough");
    tl_result_free(&r);
    int rc = run(gen_argv("--max-stones", "4", out), log);
    size_t len;
    char *text = (char *)tl_read_file(log, &len);
    text[len] = 0;
    bool named = strstr(text, ".mmtb") && strstr(text, "No space left on device");
    int tmps = rc != 0 ? check_dir(out) : -1;
    /* no ck_assert until the tmpfs is unmounted */
    char *iv[] = {PROBE_BIN, "integrity", "-t", out, NULL};
    tl_run_argv(&r, NULL, iv);
    int integ = r.code;
    tl_result_free(&r);
    bool grown = mount("tmpfs", mnt, "tmpfs", MS_REMOUNT, "size=16m") == 0;
    tl_run_argv(&r, NULL, plan);
    bool enough_said = r.code == 0 && strstr(r.out, " GB free there\n") &&
                       !strstr(r.out, "not enough");
    tl_result_free(&r);
    int rc2 = grown ? run(gen_argv("--max-stones", "4", out), NULL) : -1;
    if (rc2 == 0)
        same_files(clean, out);
    umount2(mnt, MNT_DETACH);
    ck_assert_msg(short_said, "--plan did not say that 100 KiB is not enough");
    ck_assert_msg(enough_said, "--plan on 16 MiB did not say that it is enough");
    ck_assert_msg(rc == 2, "a full disk exits %d", rc);
    ck_assert_msg(named, "message: %s", text);
    ck_assert_int_eq(tmps, 0);
    ck_assert_int_eq(integ, 0); /* the finished part holds */
    ck_assert(grown);
    ck_assert_int_eq(rc2, 0);
    free(text);
}
END_TEST

/* ---------------------------------------------------------------------- */

/* argv of mmtb-gen verify -t DIR --ledger L --json --threads 2 (static). */
static char **verify_argv(const char *dir, const char *ledger)
{
    static char *argv[14];
    static char d[600], l[600];
    snprintf(d, sizeof d, "%s", dir);
    snprintf(l, sizeof l, "%s", ledger);
    char *v[] = {GEN_BIN, "verify", "-t", d, "--ledger", l, "--json", "--threads", "2", NULL};
    memcpy(argv, v, sizeof v);
    return argv;
}

/* The --json report of a finished verify in log: sectors, positions, how
 * many came from the ledger; no mismatch allowed. */
static void verify_report(const char *log, int *nsect, unsigned long long *positions,
                          int *from_ledger)
{
    size_t len = 0;
    char *text = (char *)tl_read_file(log, &len);
    text[len] = 0;
    *nsect = *from_ledger = 0;
    *positions = 0;
    for (char *p = strstr(text, "{\"sector\""); p; p = strstr(p + 1, "{\"sector\"")) {
        char name[16];
        unsigned long long chk = 0, bad = 0;
        ck_assert_int_eq(sscanf(p, "{\"sector\":\"%15[^\"]\",\"checked\":%llu,\"mismatches\":%llu",
                                name, &chk, &bad),
                         3);
        ck_assert_uint_eq(bad, 0);
        (*nsect)++;
        *positions += chk;
        *from_ledger += strncmp(strchr(p, '}') - 13, "\"ledger\":true", 13) == 0;
    }
    free(text);
}

/* Lines of a file; it must end with a newline. */
static int file_lines(const char *path)
{
    size_t len = 0;
    char *text = (char *)tl_read_file(path, &len);
    int n = 0;
    for (size_t i = 0; i < len; i++)
        n += text[i] == '\n';
    ck_assert_msg(len == 0 || text[len - 1] == '\n', "%s: a cut-short last line left", path);
    free(text);
    return n;
}

/* verify --ledger on nine's movement phase up to 4 stones, killed twice at
 * random moments of a clean run's length, then run to the end: every
 * sector reported once, the positions the clean run checked, no mismatch;
 * the ledger has one line per sector (none twice, none cut short); a run
 * after that checks nothing again. */
START_TEST(kill_verify_resumes)
{
    char dir[400], led[400], log[400];
    snprintf(dir, sizeof dir, "%s/vk", tdir);
    snprintf(led, sizeof led, "%s/vk.ledger", tdir);
    snprintf(log, sizeof log, "%s/vk.log", tdir);
    ck_assert_int_eq(run(gen_argv("--max-stones", "4", dir), NULL), 0);
    unlink(led);
    unlink(log);
    double t0 = now();
    ck_assert_int_eq(run(verify_argv(dir, led), log), 0);
    /* the kills fall in the first 60 % of the clean run's time (H): a clean
     * run slowed by other work on the machine would place later ones after
     * a faster run's end, and kill nothing */
    double T = now() - t0, H = 0.6 * T;
    int n0, nl;
    unsigned long long pos0, pos;
    verify_report(log, &n0, &pos0, &nl);
    ck_assert_int_eq(nl, 0);
    ck_assert_int_eq(file_lines(led), 1 + n0);
    unsigned seed = 7u;
    int kills = 0, partial = 0, rounds = rounds_env(4);
    for (int r = 0; r < rounds; r++) {
        unlink(led);
        double first = H * ((r % rounds) + (double)rand_r(&seed) / RAND_MAX) / rounds;
        if (run_and_kill(verify_argv(dir, led), first)) {
            kills++;
            int lines = access(led, F_OK) == 0 ? file_lines(led) : 0;
            partial += lines > 1 && lines < 1 + n0;
        }
        if (run_and_kill(verify_argv(dir, led), (H - first) * rand_r(&seed) / RAND_MAX))
            kills++;
        unlink(log);
        ck_assert_int_eq(run(verify_argv(dir, led), log), 0);
        int n;
        verify_report(log, &n, &pos, &nl);
        ck_assert_int_eq(n, n0);
        ck_assert_uint_eq(pos, pos0);
        ck_assert_int_eq(file_lines(led), 1 + n0);
        unlink(log);
        ck_assert_int_eq(run(verify_argv(dir, led), log), 0);
        verify_report(log, &n, &pos, &nl);
        ck_assert_int_eq(nl, n0);
        ck_assert_uint_eq(pos, pos0);
    }
    printf("check_crash: verify --ledger: clean run %.2f s, %d sectors, %d kills (%d with the "
           "ledger part-way), every finished run complete\n",
           T, n0, kills, partial);
    fflush(stdout);
    ck_assert_int_ge(kills, rounds);
}
END_TEST

/* argv of mmtb-gen -v nine --max-stones 4 -o OUT ... --verify-behind L
 * --pack-behind, with checkpoints every 0.6 s (static storage). */
static char **behind_argv(const char *out, const char *ledger)
{
    static char *argv[20];
    static char o[600], l[600];
    snprintf(o, sizeof o, "%s", out);
    snprintf(l, sizeof l, "%s", ledger);
    char *v[] = {GEN_BIN,     "-v",   "nine",         "--max-stones",    "4", "-o",
                 o,           "--quiet", "--threads", "2",               "--checkpoint",
                 "0.01",      "--verify-behind",       l, "--pack-behind", NULL};
    memcpy(argv, v, sizeof v);
    return argv;
}

/* A solve with --verify-behind and --pack-behind killed twice at random
 * moments of a clean run's length, then run to the end: the files are
 * those of a plain solve packed afterwards (so nothing was packed before
 * what reads it was verified: the verify would have failed on it), and the
 * ledger has one line per sector, none twice. */
START_TEST(kill_solve_behind_resumes)
{
    char clean[400], work[400], led[400], cmd[1000];
    snprintf(clean, sizeof clean, "%s/sb-clean", tdir);
    snprintf(work, sizeof work, "%s/sb-work", tdir);
    snprintf(led, sizeof led, "%s/sb.ledger", tdir);
    ck_assert_int_eq(run(gen_argv("--max-stones", "4", clean), NULL), 0);
    char *pk[] = {GEN_BIN, "pack", "-t", clean, "--quiet", NULL};
    ck_assert_int_eq(run(pk, NULL), 0);
    snprintf(cmd, sizeof cmd, "rm -rf '%s' '%s'", work, led);
    ck_assert_int_eq(system(cmd), 0);
    double t0 = now();
    ck_assert_int_eq(run(behind_argv(work, led), NULL), 0);
    double T = now() - t0;
    same_files(clean, work);
    int nsect = file_lines(led) - 1;
    ck_assert_int_eq(nsect, 4); /* 3-3, 4-3, 3-4, 4-4 */
    unsigned seed = 23u;
    int kills = 0, rounds = rounds_env(4);
    for (int r = 0; r < rounds || (kills < rounds && r < 4 * rounds); r++) {
        ck_assert_int_eq(system(cmd), 0);
        double first = T * ((r % rounds) + (double)rand_r(&seed) / RAND_MAX) / rounds;
        kills += run_and_kill(behind_argv(work, led), first);
        kills += run_and_kill(behind_argv(work, led), (T - first) * rand_r(&seed) / RAND_MAX);
        ck_assert_int_eq(run(behind_argv(work, led), NULL), 0);
        same_files(clean, work);
        ck_assert_int_eq(file_lines(led), 1 + nsect);
    }
    printf("check_crash: --verify-behind --pack-behind: clean run %.2f s, %d kills, every rerun "
           "the packed tables, one ledger line a sector\n",
           T, kills);
    fflush(stdout);
    ck_assert_int_ge(kills, rounds);
}
END_TEST

int main(void)
{
    snprintf(tdir, sizeof tdir, "/tmp/check_crash_XXXXXX");
    if (!mkdtemp(tdir)) {
        fprintf(stderr, "mkdtemp: %s\n", strerror(errno));
        return EXIT_FAILURE;
    }
    Suite *s = suite_create("crash");
    TCase *tk = tcase_create("kill");
    tcase_set_timeout(tk, 1200);
    tcase_add_test(tk, kill_anywhere_resumes_identical);
    tcase_add_test(tk, kill_while_writing_resumes_identical);
    suite_add_tcase(s, tk);
    /* ctest runs this case as its own test, check_crash_verify, beside the others */
    TCase *tv = tcase_create("verify");
    tcase_set_timeout(tv, 1200);
    tcase_set_tags(tv, "verify");
    tcase_add_test(tv, kill_verify_resumes);
    tcase_add_test(tv, kill_solve_behind_resumes);
    suite_add_tcase(s, tv);
    TCase *te = tcase_create("errors");
    tcase_set_timeout(te, 300);
    tcase_add_test(te, read_only_directory);
    tcase_add_test(te, missing_child_tables);
    tcase_add_test(te, full_disk_then_resume);
    suite_add_tcase(s, te);
    return tl_run_suite(s, tdir, "check_crash");
}
