/*
 * cli_integrity.c - `mmtb-probe integrity`: checks a whole table directory
 * (the MANIFEST, and every sector file byte by byte through libmmtb's
 * mmtb_tb_verify_file), one file per thread (pthreads), and reports each
 * problem by file, sector, plane and block, with a summary and throughput.
 * Depends on mmtb.h, mmtb_integrity.h, format/ and format/progress.c (the
 * progress line; it has no OpenMP).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "mmtb.h"
#include "mmtb_integrity.h"
#include "probe_cli.h"
#include "progress.h"
#include "tablefile.h"

static const char integrity_help[] =
    "Usage: mmtb-probe integrity -t DIR [--json] [--threads N] [--quiet]\n"
    "\n"
    "Check that a table directory is intact, reading every byte once: the\n"
    "MANIFEST (its hash, its file lines against the files present) and, for\n"
    "every sector file, the header and its hash, the metadata hash and block\n"
    "tables, every block's hash, that every block decompresses and holds valid\n"
    "values, the footer and the whole-file hash.  Each problem is one line\n"
    "naming the file, the sector and, for a damaged block, its plane and index;\n"
    "then a summary with files, bytes, seconds and GB/s.  Sectors of the game\n"
    "without a file (not solved yet) are counted, not problems, unless the\n"
    "MANIFEST lists a file for them.\n"
    "\n"
    "Options:\n"
    "  -t, --tables DIR   table directory (required)\n"
    "  -j, --json         one JSON object: files, bytes, seconds, unsolved,\n"
    "                     problems (array of {file, sector, plane, block,\n"
    "                     message}; plane \"wdl\", \"dtw\" or null, block null\n"
    "                     for the file as a whole) and ok\n"
    "  -n, --threads N    files checked at once (default: the number of processors)\n"
    "  -q, --quiet        no progress line on stderr (it is only shown on a terminal)\n"
    "  -h, --help         show this help\n"
    "\n"
    "Exit codes:\n"
    "  0  every file holds\n"
    "  1  bad usage\n"
    "  2  a problem: a damaged or missing-but-listed file, a damaged MANIFEST,\n"
    "     or no table directory\n";

/* One problem, kept for printing in sector order. */
struct problem {
    int sector; /* -1: the MANIFEST */
    char file[48];
    int plane;
    int64_t block;
    char *message;
};

/* State shared by the worker threads. */
struct job {
    const mmtb_tb *tb;
    const int *order; /* sectors, largest file first */
    int n;
    atomic_int next;       /* next position in order */
    atomic_int done;       /* sectors finished */
    atomic_ullong bytes;   /* bytes read so far (for the progress line) */
    pthread_mutex_t lock;  /* guards the problem list and the counts below */
    struct problem *probs;
    int nprobs, capprobs;
    int files, unsolved, failed; /* failed: MMTB_ERR_NOMEM or worse */
    uint64_t read;               /* bytes of the finished files */
};

/* Append a problem (under the lock). */
static void add_problem(struct job *j, int sector, const char *file, int plane, int64_t block,
                        const char *message)
{
    pthread_mutex_lock(&j->lock);
    if (j->nprobs == j->capprobs) {
        int cap = j->capprobs ? 2 * j->capprobs : 16;
        struct problem *p = realloc(j->probs, (size_t)cap * sizeof *p);
        if (!p) {
            j->failed = 1;
            pthread_mutex_unlock(&j->lock);
            return;
        }
        j->probs = p;
        j->capprobs = cap;
    }
    struct problem *p = &j->probs[j->nprobs];
    p->sector = sector;
    snprintf(p->file, sizeof p->file, "%s", file);
    p->plane = plane;
    p->block = block;
    p->message = strdup(message);
    if (p->message)
        j->nprobs++;
    else
        j->failed = 1;
    pthread_mutex_unlock(&j->lock);
}

static void on_problem(void *arg, const struct mmtb_verify_problem *p)
{
    add_problem(arg, p->sector, p->file, p->plane, p->block, p->message);
}

static void on_progress(void *arg, uint64_t bytes)
{
    struct job *j = arg;
    atomic_fetch_add(&j->bytes, bytes);
}

/* A worker: take the next sector until none is left; its own buffers
 * (mmtb_tb_verify_file allocates them per call). */
static void *worker(void *arg)
{
    struct job *j = arg;
    struct mmtb_verify_opts o = {on_problem, on_progress, j, 0, 0};
    for (;;) {
        int k = atomic_fetch_add(&j->next, 1);
        if (k >= j->n)
            break;
        struct mmtb_verify_result res;
        int rc = mmtb_tb_verify_file(j->tb, j->order[k], &o, &res);
        pthread_mutex_lock(&j->lock);
        if (rc != MMTB_OK)
            j->failed = 1;
        else if (res.present)
            j->files++;
        else if (!res.listed)
            j->unsolved++;
        j->read += res.bytes;
        pthread_mutex_unlock(&j->lock);
        atomic_fetch_add(&j->done, 1);
    }
    return NULL;
}

/* Sort key: sector file sizes, largest first, so that the big files start
 * early and the threads finish together. */
struct sized {
    int sector;
    long long size;
};

static int cmp_sized(const void *a, const void *b)
{
    const struct sized *x = a, *y = b;
    if (x->size != y->size)
        return x->size > y->size ? -1 : 1;
    return x->sector - y->sector;
}

static int cmp_problem(const void *a, const void *b)
{
    const struct problem *x = a, *y = b;
    if (x->sector != y->sector)
        return x->sector - y->sector;
    /* blocks in file order, then the file as a whole */
    int px = x->plane < 0 ? 2 : x->plane, py = y->plane < 0 ? 2 : y->plane;
    if (px != py)
        return px - py;
    return (x->block > y->block) - (x->block < y->block);
}

static const char *plane_json(int plane)
{
    return plane == MMTB_PLANE_WDL ? "\"wdl\"" : plane == MMTB_PLANE_DTW ? "\"dtw\"" : "null";
}

/* Print the result: problem lines and a summary, or one JSON object. */
static void print_report(const mmtb_tb *tb, const struct job *j, uint64_t bytes, double secs,
                         bool json)
{
    double gbs = secs > 0 ? (double)bytes / secs / 1e9 : 0;
    if (!json) {
        for (int i = 0; i < j->nprobs; i++)
            printf("%s\n", j->probs[i].message);
        printf("%d files, %llu bytes in %.2f s (%.2f GB/s)", j->files,
               (unsigned long long)bytes, secs, gbs);
        if (j->unsolved)
            printf("; %d sectors of the game not solved yet", j->unsolved);
        if (j->nprobs)
            printf(": %d problem%s\n", j->nprobs, j->nprobs == 1 ? "" : "s");
        else
            printf(": all hold\n");
        return;
    }
    printf("{\"files\":%d,\"bytes\":%llu,\"seconds\":%.3f,\"gb_per_s\":%.3f,\"unsolved\":%d,"
           "\"problems\":[",
           j->files, (unsigned long long)bytes, secs, gbs, j->unsolved);
    for (int i = 0; i < j->nprobs; i++) {
        const struct problem *p = &j->probs[i];
        printf("%s{\"file\":", i ? "," : "");
        cli_json_str(stdout, p->file);
        printf(",\"sector\":");
        if (p->sector >= 0 && tb) {
            struct mmtb_sector key;
            char name[32];
            mmtb_tb_sector_key(tb, p->sector, &key);
            mmtb_tf_sector_name(key, name, sizeof name);
            cli_json_str(stdout, name);
        } else {
            printf("null");
        }
        printf(",\"plane\":%s,\"block\":", plane_json(p->plane));
        if (p->block >= 0)
            printf("%lld", (long long)p->block);
        else
            printf("null");
        printf(",\"message\":");
        cli_json_str(stdout, p->message);
        printf("}");
    }
    printf("],\"ok\":%s}\n", j->nprobs ? "false" : "true");
}

/* Wait for the workers, drawing the progress line meanwhile. */
static void wait_workers(struct job *j, pthread_t *th, int nt, uint64_t total, bool quiet)
{
    struct progress pg;
    progress_init(&pg, quiet);
    progress_phase(&pg, "integrity");
    while (pg.on && atomic_load(&j->done) < j->n) {
        char label[96];
        snprintf(label, sizeof label, "integrity %d/%d files", atomic_load(&j->done), j->n);
        snprintf(pg.label, sizeof pg.label, "%s", label);
        progress_update(&pg, atomic_load(&j->bytes), total);
        struct timespec ts = {0, 50 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    for (int t = 0; t < nt; t++)
        pthread_join(th[t], NULL);
    progress_clear(&pg);
}

/* What the options of integrity ask for. */
struct integrity_opts {
    const char *dir;
    bool json, quiet;
    int threads;
};

/* Returned by parse_integrity_opts when the check is to run. */
#define INTEGRITY_GO (-1)

/* Read the options into *o: INTEGRITY_GO, or the exit code (after --help
 * or a usage error). */
static int parse_integrity_opts(int argc, char **argv, struct integrity_opts *o, const char **cmd)
{
    enum { O_TABLES = 1, O_JSON, O_THREADS, O_QUIET, O_HELP };
    static const struct cli_opt opts[] = {
        {"tables", 't', true, O_TABLES},   {"json", 'j', false, O_JSON},
        {"threads", 'n', true, O_THREADS}, {"quiet", 'q', false, O_QUIET},
        {"help", 'h', false, O_HELP},      {NULL, 0, false, 0}};
    struct cli_parser ps;
    const char *arg;
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN), x;
    int id;
    o->dir = NULL;
    o->json = o->quiet = false;
    o->threads = ncpu > 0 ? (int)(ncpu < 64 ? ncpu : 64) : 1;
    cli_parser_init(&ps, argc, argv);
    *cmd = ps.cmd;
    while ((id = cli_next(&ps, opts, &arg)) != CLI_END) {
        switch (id) {
        case CLI_BAD:
            return CLI_EXIT_INPUT;
        case O_TABLES:
            o->dir = arg;
            break;
        case O_JSON:
            o->json = true;
            break;
        case O_THREADS:
            if (!cli_parse_long(arg, 1, 64, &x))
                return cli_usage_error(ps.cmd, "bad --threads '%s' (1 to 64)", arg);
            o->threads = (int)x;
            break;
        case O_QUIET:
            o->quiet = true;
            break;
        case O_HELP:
            fputs(integrity_help, stdout);
            return CLI_EXIT_OK;
        default:
            return cli_usage_error(ps.cmd, "unexpected argument '%.*s%s'", CLI_QUOTE(arg));
        }
    }
    if (!o->dir)
        return cli_usage_error(ps.cmd, "missing -t DIR (the table directory)");
    return INTEGRITY_GO;
}

/* The MANIFEST's size in bytes (the open read it whole), 0 if absent. */
static uint64_t manifest_bytes(const char *dir)
{
    char mpath[4200];
    struct stat st;
    snprintf(mpath, sizeof mpath, "%s/%s", dir, MMTB_MANIFEST_NAME);
    return stat(mpath, &st) == 0 ? (uint64_t)st.st_size : 0;
}

/* The tables did not open: report the MANIFEST as the one problem (rc,
 * err its reason) and return the exit code. */
static int report_open_failure(struct job *j, int rc, const char *err, uint64_t bytes, double t0,
                               bool json)
{
    char m[400];
    snprintf(m, sizeof m, "%s: %s", MMTB_MANIFEST_NAME, err[0] ? err : mmtb_strerror(rc));
    add_problem(j, -1, MMTB_MANIFEST_NAME, MMTB_PLANE_FILE, -1, m);
    print_report(NULL, j, bytes, progress_now() - t0, json);
    free(j->probs[0].message);
    free(j->probs);
    return CLI_EXIT_TABLE;
}

/* The n sectors of tb in order[], largest file first (each opened on the
 * way: header, tables, footer); returns the files' total size. */
static uint64_t order_by_size(mmtb_tb *tb, const char *dir, struct sized *sz, int *order, int n)
{
    uint64_t total = 0;
    for (int i = 0; i < n; i++) {
        struct mmtb_sector_info info;
        struct stat st;
        char name[48], path[4300];
        mmtb_tb_sector_info(tb, i, &info); /* opens the file: header, tables, footer */
        mmtb_tf_sector_filename(info.sector, name, sizeof name);
        snprintf(path, sizeof path, "%s/%s", dir, name);
        sz[i].sector = i;
        sz[i].size = stat(path, &st) == 0 ? (long long)st.st_size : 0;
        total += (uint64_t)sz[i].size;
    }
    qsort(sz, (size_t)n, sizeof *sz, cmp_sized);
    for (int i = 0; i < n; i++)
        order[i] = sz[i].sector;
    return total;
}

/* Verify j's sectors on up to threads threads th[] (here when none can
 * start), showing progress over total bytes unless quiet. */
static void verify_sectors(struct job *j, pthread_t *th, int threads, uint64_t total, bool quiet)
{
    int n = j->n;
    int nt = threads < n ? threads : (n ? n : 1), started = 0;
    for (; started < nt; started++)
        if (pthread_create(&th[started], NULL, worker, j) != 0)
            break;
    if (started == 0) {
        worker(j); /* no thread could start: check here */
    }
    wait_workers(j, th, started, total, quiet);
}

int cli_cmd_integrity(int argc, char **argv)
{
    struct integrity_opts o;
    const char *cmd;
    int ret = parse_integrity_opts(argc, argv, &o, &cmd);
    if (ret != INTEGRITY_GO)
        return ret;

    double t0 = progress_now();
    struct job j;
    memset(&j, 0, sizeof j);
    pthread_mutex_init(&j.lock, NULL);
    char err[256] = "";
    struct mmtb_tb_opts to = {0, 0, err, sizeof err};
    mmtb_tb *tb = NULL;
    int rc = mmtb_tb_open(&tb, o.dir, &to);
    uint64_t bytes = manifest_bytes(o.dir);
    if (rc != MMTB_OK)
        return report_open_failure(&j, rc, err, bytes, t0, o.json);

    int n = mmtb_tb_sector_count(tb);
    struct sized *sz = malloc(((size_t)n + 1) * sizeof *sz);
    int *order = malloc(((size_t)n + 1) * sizeof *order);
    pthread_t *th = malloc((size_t)o.threads * sizeof *th);
    ret = CLI_EXIT_TABLE;
    if (!sz || !order || !th) {
        cli_error(cmd, "out of memory");
        goto out;
    }
    uint64_t total = order_by_size(tb, o.dir, sz, order, n);
    j.tb = tb;
    j.order = order;
    j.n = n;
    verify_sectors(&j, th, o.threads, total, o.quiet);
    if (j.failed) {
        cli_error(cmd, "out of memory");
        goto out;
    }
    bytes += j.read;
    if (j.nprobs)
        qsort(j.probs, (size_t)j.nprobs, sizeof *j.probs, cmp_problem);
    print_report(tb, &j, bytes, progress_now() - t0, o.json);
    ret = j.nprobs ? CLI_EXIT_TABLE : CLI_EXIT_OK;
out:
    for (int i = 0; i < j.nprobs; i++)
        free(j.probs[i].message);
    free(j.probs);
    free(sz);
    free(order);
    free(th);
    mmtb_tb_close(tb);
    pthread_mutex_destroy(&j.lock);
    return ret;
}
