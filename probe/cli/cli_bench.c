/*
 * cli_bench.c - `mmtb-probe bench`: probe speed and table size of a table
 * directory (start-up, cold and warm probes, a small cache, several threads,
 * bytes and bits per position, peak RSS).  A measuring tool on top of the
 * public libmmtb API; depends on mmtb.h, format/ and POSIX (pthreads,
 * posix_fadvise, getrusage) only.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "helpers.h"
#include "mmtb.h"
#include "movegen.h"
#include "notation.h"
#include "probe_cli.h"
#include "sector_index.h"
#include "tablefile.h"

static const char bench_help[] =
    "Usage: mmtb-probe bench -t DIR [--count N] [--seed S] [--cache BYTES]\n"
    "                        [--small-cache BYTES] [--cold N] [--threads T]\n"
    "                        [--drop-caches] [--json] [--write-check FILE]\n"
    "\n"
    "Measure probing on the tables in DIR.  N positions are drawn uniformly\n"
    "from the canonical positions of the sectors present (a random slot of a\n"
    "sector chosen by its size, kept when canonical; with re-close restrictions\n"
    "the stored states, restrictions included), shown to the library as a\n"
    "random symmetric image with White to move.  Then:\n"
    "  start     mmtb_tb_open, mmtb_ctx_create and the first probe of a fresh\n"
    "            handle (builds the index, opens the sector file)\n"
    "  first     the N probes of a fresh handle and context: every block is\n"
    "            read and decompressed the first time it is needed\n"
    "  fresh     one probe in each of --cold fresh contexts (same handle): one\n"
    "            block read and decompressed per plane the probe needs\n"
    "  warm      the same N probes again in the same context, best of 3 (a\n"
    "            small N is repeated to make at least 100000 probes); the\n"
    "            report says what the cache held after the first pass, and\n"
    "            FULL when it could take no further block: then 'warm' probes\n"
    "            may still decompress blocks, and N is not repeated\n"
    "  small     the N probes with a --small-cache context (second pass)\n"
    "  threads   with --threads T: T threads on the handle, each with its own\n"
    "            context, each probing all N positions (repeated as for warm)\n"
    "            after a warm-up pass; the aggregate rate\n"
    "each with W/D/L only (mmtb_probe_wdl) and with depth (mmtb_probe).  Also:\n"
    "bytes on disk, bits per canonical position, peak RSS of the process.\n"
    "'Cold' means cold in libmmtb's block cache: the OS page cache may still\n"
    "hold the files unless --drop-caches is given.\n"
    "\n"
    "Options:\n"
    "  -t, --tables DIR       table directory (required)\n"
    "  -n, --count N          positions (default 100000)\n"
    "  -s, --seed S           random seed (default 1)\n"
    "  -c, --cache BYTES      block cache of the first/warm/thread contexts\n"
    "                         (default 256M; suffixes K, M, G: powers of 1024)\n"
    "      --small-cache BYTES  block cache of the small-cache run (default 1M)\n"
    "      --cold N           fresh contexts for the 'fresh' rows (default:\n"
    "                         the smaller of 1000 and --count; 0 skips them)\n"
    "  -T, --threads T        add the multi-threaded rows (1..256)\n"
    "      --write-check FILE write the sample as input of 'mmtb-probe check'\n"
    "                         (each position that is not over, with one of its\n"
    "                         legal moves drawn at random) and measure nothing\n"
    "      --drop-caches      posix_fadvise(POSIX_FADV_DONTNEED) on the sector\n"
    "                         files before each cold phase and before each\n"
    "                         fresh-context probe\n"
    "  -j, --json             one JSON object instead of the text report\n"
    "  -h, --help             show this help\n"
    "\n"
    "Exit codes:\n"
    "  0  success\n"
    "  1  bad usage\n"
    "  2  the directory cannot be opened, no sector is usable, or a probe\n"
    "     failed or disagreed between the W/D/L-only and the full probe\n";

struct bench_opts {
    const char *dir;
    long count, cold;
    uint64_t seed;
    size_t cache, small_cache;
    int threads;
    bool json, drop;
    const char *write_check; /* write the sample as `check` input and stop */
};

/* One measured row: probes, elapsed nanoseconds and, for individually
 * timed probes, the median and 99th percentile. */
struct row {
    const char *phase, *values;
    uint64_t probes, ns;
    int64_t median, p99; /* -1 when not measured per probe */
    bool done;
};

enum {
    R_OPEN,
    R_CTX,
    R_FIRST1_WDL,
    R_FIRST1_DTW,
    R_FIRST_WDL,
    R_FIRST_DTW,
    R_FRESH_WDL,
    R_FRESH_DTW,
    R_WARM_WDL,
    R_WARM_DTW,
    R_SMALL_WDL,
    R_SMALL_DTW,
    R_THR_WDL,
    R_THR_DTW,
    R_COUNT
};

/* What the report needs besides the rows. */
struct bench_state {
    const struct bench_opts *o;
    const char *cmd;
    const struct mmtb_variant *v;
    int nsectors, usable, dropped;
    uint64_t canonical, slots, bytes, wdl_bytes, dtw_bytes;
    uint64_t wins, draws, losses, terminal;
    uint64_t restricted;         /* sample positions with a re-close restriction */
    struct mmtb_sector *present; /* usable sectors */
    struct mmtb_pos *pos;        /* the sample */
    int8_t *ref;                 /* W/D/L of each sample position (first pass) */
    int8_t *out;                 /* scratch results */
    struct row rows[R_COUNT];
    /* The first-pass context's cache after that pass, [0] W/D/L only, [1]
     * with depth: what the warm passes start from (see held_full). */
    struct {
        size_t bytes, blocks;
    } held[2];
};

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* splitmix64: a small, well-mixed generator; the state is the seed. */
static uint64_t rnd_next(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

/* Uniform in [0, n), n > 0: reject the top partial range (2^64 mod n). */
static uint64_t rnd_below(uint64_t *s, uint64_t n)
{
    uint64_t lim = (uint64_t)0 - ((uint64_t)0 - n) % n; /* 2^64 - (2^64 mod n), mod 2^64 */
    for (;;) {
        uint64_t r = rnd_next(s);
        if (lim == 0 || r < lim)
            return r % n;
    }
}


/* Drop the sector files of the usable sectors from the OS page cache.
 * Only clean pages can go, so the first call flushes pages the solver may
 * have left dirty (fdatasync, slow: not on every call).  Returns the number
 * of files advised. */
static int drop_caches(struct bench_state *st)
{
    int n = 0;
    bool sync = st->dropped == 0;
    for (int i = 0; i < st->usable; i++) {
        char name[48], path[4096];
        mmtb_tf_sector_filename(st->present[i], name, sizeof name);
        snprintf(path, sizeof path, "%s/%s", st->o->dir, name);
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
            continue;
        if (sync)
            (void)fdatasync(fd);
        if (posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED) == 0)
            n++;
        close(fd);
    }
    return n;
}

/* Before a cold phase: drop the page cache when asked. */
static void before_cold(struct bench_state *st)
{
    if (st->o->drop)
        st->dropped = drop_caches(st);
}

/* Print a probe failure and return the exit code for it. */
static int probe_failed(struct bench_state *st, const struct mmtb_pos *p, int rc)
{
    char buf[256];
    mmtb_pos_format(st->v, p, buf, sizeof buf);
    cli_error(st->cmd, "probe of '%s' failed: %s", buf, mmtb_strerror(rc));
    return CLI_EXIT_TABLE;
}

/* Probe one position: W/D/L only, or with depth (the W/D/L is kept). */
static int probe1(mmtb_ctx *ctx, const struct mmtb_pos *p, bool dtw, int *wdl)
{
    if (!dtw)
        return mmtb_probe_wdl(ctx, p, wdl);
    struct mmtb_value val = {MMTB_DRAW, -1};
    int rc = mmtb_probe(ctx, p, &val);
    *wdl = val.wdl;
    return rc;
}

/*
 * Probe pos[first..n) then pos[0..first) with ctx, writing each W/D/L to
 * out[] and the elapsed time to *ns.  Returns MMTB_OK or the first failing
 * status (*bad = its position).
 */
static int run_pass(mmtb_ctx *ctx, const struct mmtb_pos *pos, long n, long first, bool dtw,
                    int8_t *out, uint64_t *ns, long *bad)
{
    uint64_t t0 = now_ns();
    for (long k = 0; k < n; k++) {
        long i = first + k < n ? first + k : first + k - n;
        int wdl = MMTB_DRAW;
        int rc = probe1(ctx, &pos[i], dtw, &wdl);
        if (rc != MMTB_OK) {
            *bad = i;
            return rc;
        }
        out[i] = (int8_t)wdl;
    }
    *ns = now_ns() - t0;
    return MMTB_OK;
}

/* Whether the first pass of plane set dtw (0: W/D/L only, 1: with depth)
 * left the cache full: one more block of the average charge would not fit,
 * so blocks may have been evicted and the warm passes may decompress some
 * again.  False before that pass ran (no block held). */
static bool held_full(const struct bench_state *st, int dtw)
{
    size_t b = st->held[dtw].bytes, n = st->held[dtw].blocks;
    return n > 0 && b + b / n > st->o->cache;
}

/* Passes over the sample in one warm measurement: enough for at least
 * 100000 probes, so that a small --count still gives a readable time; one
 * when the first pass filled the cache (its probes decompress blocks, so
 * one pass is readable and 100000 would take minutes). */
static long warm_reps(const struct bench_state *st, bool dtw)
{
    if (held_full(st, dtw))
        return 1;
    return (100000 + st->o->count - 1) / st->o->count;
}

/* Positions where out[] disagrees with the reference W/D/L. */
static long mismatches(const struct bench_state *st, const int8_t *out, long n)
{
    long m = 0;
    for (long i = 0; i < n; i++)
        m += out[i] != st->ref[i];
    return m;
}

/* Report positions whose W/D/L differs from the first pass (0 when none);
 * returns the exit code. */
static int check_same(struct bench_state *st, const int8_t *out, long n, const char *what)
{
    long m = mismatches(st, out, n);
    if (m == 0)
        return CLI_EXIT_OK;
    cli_error(st->cmd, "%s: %ld positions with another W/D/L than in the first pass", what, m);
    return CLI_EXIT_TABLE;
}

static void set_row(struct bench_state *st, int r, const char *phase, const char *values,
                    uint64_t probes, uint64_t ns)
{
    struct row *w = &st->rows[r];
    w->phase = phase;
    w->values = values;
    w->probes = probes;
    w->ns = ns;
    w->median = w->p99 = -1;
    w->done = true;
}

/* ---------------------------------------------------------------------- */
/* The sample                                                             */
/* ---------------------------------------------------------------------- */

/* The edge code y->x mapped by symmetry g: g(y)->g(x); -1 stays -1. */
static int sym_edge(const struct mmtb_variant *v, int g, int code)
{
    int y, x;
    if (code < 0 || !mmtb_edge_points(v, code, &y, &x))
        return -1;
    return mmtb_edge_code(v, v->sym[g][y], v->sym[g][x]);
}

/*
 * Sizes of the usable sectors and a sample of st->o->count positions:
 * a slot drawn uniformly from all slots of the usable sectors (so sectors
 * are weighted by size), redrawn until canonical, which makes the draw
 * uniform over canonical positions; unranked (side to move White, hands
 * from the sector) and mapped by a random symmetry.  With re-close
 * restrictions (no_reclose) the draw is over the scheme 1 slots, and a
 * canonical position P is kept with probability (|F| + 1)(|T| + 1) / 256
 * (its restriction combinations, none included: at most 256 by
 * format/ban_index.h) and given one of them at random: uniform over the
 * stored states, restrictions included, without building any sector's
 * index.
 */
static int make_sample(struct bench_state *st, mmtb_tb *tb)
{
    const struct bench_opts *o = st->o;
    st->nsectors = mmtb_tb_sector_count(tb);
    st->present = calloc((size_t)st->nsectors + 1, sizeof *st->present);
    uint64_t *cum = calloc((size_t)st->nsectors + 1, sizeof *cum); /* slots before sector i */
    const mmtb_index *ix = mmtb_tb_index(tb);
    if (!st->present || !cum) {
        free(cum);
        cli_error(st->cmd, "out of memory");
        return CLI_EXIT_TABLE;
    }
    bool bans = st->v->no_reclose;
    uint64_t drawn = 0; /* the slots drawn from */
    for (int i = 0; i < st->nsectors; i++) {
        struct mmtb_sector_info info;
        char name[32];
        if (mmtb_tb_sector_info(tb, i, &info) != MMTB_OK)
            continue;
        mmtb_sector_format(info.sector, name, sizeof name);
        if (info.status != MMTB_OK) {
            if (!o->json)
                cli_error(st->cmd, "sector %s left out: %s%s%s", name, mmtb_strerror(info.status),
                          info.detail[0] ? ": " : "", info.detail);
            continue;
        }
        if (info.stats.slots == 0 || info.stats.canonical == 0 || !ix)
            continue;
        cum[st->usable] = drawn;
        st->present[st->usable++] = info.sector;
        st->canonical += info.stats.canonical;
        st->slots += info.stats.slots;
        drawn += bans ? mmtb_index_slots(ix, info.sector) : info.stats.slots;
        st->bytes += info.file_bytes;
        st->wdl_bytes += info.wdl_bytes;
        st->dtw_bytes += info.dtw_bytes;
    }
    cum[st->usable] = drawn;
    if (st->usable == 0 || !ix) {
        free(cum);
        cli_error(st->cmd, "no usable sector in '%s'", o->dir);
        return CLI_EXIT_TABLE;
    }
    uint64_t rs = o->seed;
    for (long k = 0; k < o->count; k++) {
        uint64_t r, slot;
        int lo, hi, fb = -1, tb_ = -1;
        struct mmtb_sector s;
        uint32_t mover, opp;
        for (;;) {
            r = rnd_below(&rs, drawn);
            lo = 0; /* the last sector with cum[lo] <= r */
            hi = st->usable - 1;
            while (lo < hi) {
                int mid = (lo + hi + 1) / 2;
                if (cum[mid] <= r)
                    lo = mid;
                else
                    hi = mid - 1;
            }
            s = st->present[lo];
            slot = r - cum[lo];
            if (!mmtb_index_slot_is_canonical(ix, s, slot))
                continue;
            mmtb_index_unrank(ix, s, slot, &mover, &opp);
            if (!bans)
                break;
            /* the restrictions a side may hold: none with stones in hand */
            int8_t F[MMTB_MAX_BANS], T[MMTB_MAX_BANS];
            int nf = s.w_hand ? 0 : mmtb_live_bans(st->v, mover, opp, F);
            int nt = s.b_hand ? 0 : mmtb_live_bans(st->v, opp, mover, T);
            uint64_t c = rnd_below(&rs, 256);
            if (c >= (uint64_t)((nf + 1) * (nt + 1)))
                continue;
            int a = (int)c / (nt + 1), b = (int)c % (nt + 1);
            fb = a ? F[a - 1] : -1;
            tb_ = b ? T[b - 1] : -1;
            break;
        }
        int g = (int)rnd_below(&rs, (uint64_t)st->v->nsyms);
        struct mmtb_pos *p = &st->pos[k];
        memset(p, 0, sizeof *p);
        p->stones[MMTB_WHITE] = mmtb_sym_apply(st->v, g, mover);
        p->stones[MMTB_BLACK] = mmtb_sym_apply(st->v, g, opp);
        p->hand[MMTB_WHITE] = s.w_hand;
        p->hand[MMTB_BLACK] = s.b_hand;
        p->side = MMTB_WHITE;
        p->remove = 0;
        p->ban_from = (int8_t)sym_edge(st->v, g, fb);
        p->ban_to = (int8_t)sym_edge(st->v, g, tb_);
        p->first_mill = MMTB_FIRST_MILL_NONE;
        st->restricted += fb >= 0 || tb_ >= 0;
        if (mmtb_pos_terminal(st->v, p) != MMTB_NOT_TERMINAL)
            st->terminal++;
    }
    free(cum);
    return CLI_EXIT_OK;
}

/* Write the sample as `check` input: "POSITION ; MOVE", a legal move
 * drawn with the sample's generator; positions where the game is over are
 * left out.  Returns an exit code. */
static int write_check_input(const struct bench_state *st)
{
    FILE *f = fopen(st->o->write_check, "w");
    if (!f) {
        cli_error(st->cmd, "cannot write '%s': %s", st->o->write_check, strerror(errno));
        return CLI_EXIT_INPUT;
    }
    struct mmtb_move *mv = malloc(sizeof *mv * MMTB_MAX_MOVES);
    uint64_t rs = st->o->seed ^ 0x9e3779b97f4a7c15ull;
    long written = 0;
    for (long k = 0; mv && k < st->o->count; k++) {
        const struct mmtb_pos *p = &st->pos[k];
        int n = mmtb_pos_terminal(st->v, p) == MMTB_NOT_TERMINAL ? mmtb_gen_moves(st->v, p, mv) : 0;
        if (n <= 0)
            continue;
        char pb[160], mb[64];
        mmtb_pos_format(st->v, p, pb, sizeof pb);
        mmtb_move_format(st->v, &mv[rnd_below(&rs, (uint64_t)n)], mb, sizeof mb);
        fprintf(f, "%s ; %s\n", pb, mb);
        written++;
    }
    free(mv);
    if (fclose(f) != 0 || !mv) {
        cli_error(st->cmd, "cannot write '%s'", st->o->write_check);
        return CLI_EXIT_INPUT;
    }
    if (!st->o->json)
        printf("%ld positions with a random legal move written to %s\n", written,
               st->o->write_check);
    return CLI_EXIT_OK;
}

/* ---------------------------------------------------------------------- */
/* Phases                                                                 */
/* ---------------------------------------------------------------------- */

/* Open a fresh handle and context; times go to rows R_OPEN / R_CTX when
 * record is set. */
static int fresh_handle(struct bench_state *st, mmtb_tb **tb, mmtb_ctx **ctx, bool record)
{
    char err[256] = "";
    struct mmtb_tb_opts topts = {0};
    topts.err = err;
    topts.errlen = sizeof err;
    uint64_t t0 = now_ns();
    int rc = mmtb_tb_open(tb, st->o->dir, &topts);
    uint64_t t1 = now_ns();
    if (rc != MMTB_OK) {
        cli_error(st->cmd, "cannot open tables in '%s': %s", st->o->dir,
                  err[0] ? err : mmtb_strerror(rc));
        return CLI_EXIT_TABLE;
    }
    rc = mmtb_ctx_create(ctx, *tb, st->o->cache);
    uint64_t t2 = now_ns();
    if (rc != MMTB_OK) {
        cli_error(st->cmd, "cannot create a probe context: %s", mmtb_strerror(rc));
        mmtb_tb_close(*tb);
        *tb = NULL;
        return CLI_EXIT_TABLE;
    }
    if (record) {
        set_row(st, R_OPEN, "start: mmtb_tb_open", "-", 1, t1 - t0);
        set_row(st, R_CTX, "start: mmtb_ctx_create", "-", 1, t2 - t1);
    }
    return CLI_EXIT_OK;
}

/*
 * On a fresh handle (page cache dropped first with --drop-caches): the first
 * probe alone, the first pass over the sample, then the best of three warm
 * passes in the same context.  The handle stays open in *keep when keep is
 * not NULL (closed otherwise).
 */
static int phase_first_warm(struct bench_state *st, bool dtw, mmtb_tb **keep)
{
    const struct bench_opts *o = st->o;
    mmtb_tb *tb;
    mmtb_ctx *ctx;
    before_cold(st);
    int ret = fresh_handle(st, &tb, &ctx, !dtw);
    if (ret != CLI_EXIT_OK)
        return ret;
    int8_t *res = dtw ? st->out : st->ref;
    long bad = 0;
    uint64_t ns1 = 0, ns = 0, best = UINT64_MAX;
    int rc = run_pass(ctx, st->pos, 1, 0, dtw, res, &ns1, &bad);
    if (rc == MMTB_OK && o->count > 1) {
        rc = run_pass(ctx, st->pos + 1, o->count - 1, 0, dtw, res + 1, &ns, &bad);
        bad++; /* run_pass counted from pos + 1 */
    }
    if (rc != MMTB_OK) {
        ret = probe_failed(st, &st->pos[bad], rc);
        goto out;
    }
    set_row(st, dtw ? R_FIRST1_DTW : R_FIRST1_WDL, "start: first probe", dtw ? "wdl+dtw" : "wdl", 1,
            ns1);
    mmtb_ctx_cache_usage(ctx, &st->held[dtw].bytes, &st->held[dtw].blocks);
    set_row(st, dtw ? R_FIRST_DTW : R_FIRST_WDL, "cold: first pass, fresh handle",
            dtw ? "wdl+dtw" : "wdl", (uint64_t)o->count, ns1 + ns);
    if (dtw && (ret = check_same(st, res, o->count, "mmtb_probe")) != CLI_EXIT_OK)
        goto out;
    if (!dtw)
        for (long i = 0; i < o->count; i++) {
            st->wins += st->ref[i] == MMTB_WIN;
            st->draws += st->ref[i] == MMTB_DRAW;
            st->losses += st->ref[i] == MMTB_LOSS;
        }
    for (int rep = 0; rep < 3; rep++) {
        uint64_t sum = 0;
        for (long k = 0; k < warm_reps(st, dtw); k++) {
            rc = run_pass(ctx, st->pos, o->count, 0, dtw, st->out, &ns, &bad);
            if (rc != MMTB_OK) {
                ret = probe_failed(st, &st->pos[bad], rc);
                goto out;
            }
            sum += ns;
        }
        if (sum < best)
            best = sum;
    }
    if ((ret = check_same(st, st->out, o->count, "warm pass")) != CLI_EXIT_OK)
        goto out;
    set_row(st, dtw ? R_WARM_DTW : R_WARM_WDL, "warm: same context, best of 3",
            dtw ? "wdl+dtw" : "wdl", (uint64_t)o->count * (uint64_t)warm_reps(st, dtw), best);
out:
    mmtb_ctx_free(ctx);
    if (keep && ret == CLI_EXIT_OK)
        *keep = tb;
    else
        mmtb_tb_close(tb);
    return ret;
}

/* One probe in each of o->cold fresh contexts on an open handle (sector
 * files already open), each timed alone: mean, median and p99. */
static int phase_fresh(struct bench_state *st, mmtb_tb *tb, bool dtw)
{
    long n = st->o->cold;
    if (n <= 0)
        return CLI_EXIT_OK;
    uint64_t *t = malloc((size_t)n * sizeof *t), sum = 0;
    if (!t) {
        cli_error(st->cmd, "out of memory");
        return CLI_EXIT_TABLE;
    }
    for (long i = 0; i < n; i++) {
        mmtb_ctx *ctx;
        before_cold(st); /* with --drop-caches: each probe reads from the disk */
        int rc = mmtb_ctx_create(&ctx, tb, st->o->small_cache);
        if (rc != MMTB_OK) {
            free(t);
            cli_error(st->cmd, "cannot create a probe context: %s", mmtb_strerror(rc));
            return CLI_EXIT_TABLE;
        }
        int wdl = MMTB_DRAW;
        uint64_t t0 = now_ns();
        rc = probe1(ctx, &st->pos[i], dtw, &wdl);
        t[i] = now_ns() - t0;
        mmtb_ctx_free(ctx);
        if (rc != MMTB_OK) {
            free(t);
            return probe_failed(st, &st->pos[i], rc);
        }
        sum += t[i];
        if (wdl != st->ref[i]) {
            free(t);
            cli_error(st->cmd,
                      "fresh context: position %ld has another W/D/L than in the first pass", i);
            return CLI_EXIT_TABLE;
        }
    }
    qsort(t, (size_t)n, sizeof *t, mmtb_cmp_u64);
    int r = dtw ? R_FRESH_DTW : R_FRESH_WDL;
    set_row(st, r, "cold: 1 probe per fresh context", dtw ? "wdl+dtw" : "wdl", (uint64_t)n, sum);
    st->rows[r].median = (int64_t)t[n / 2];
    st->rows[r].p99 = (int64_t)t[(n * 99) / 100 < n ? (n * 99) / 100 : n - 1];
    free(t);
    return CLI_EXIT_OK;
}

/* A context with the small cache: one pass to reach the steady state, then
 * a timed pass. */
static int phase_small(struct bench_state *st, mmtb_tb *tb, bool dtw)
{
    mmtb_ctx *ctx;
    long bad = 0;
    uint64_t ns = 0;
    int rc = mmtb_ctx_create(&ctx, tb, st->o->small_cache);
    if (rc != MMTB_OK) {
        cli_error(st->cmd, "cannot create a probe context: %s", mmtb_strerror(rc));
        return CLI_EXIT_TABLE;
    }
    rc = run_pass(ctx, st->pos, st->o->count, 0, dtw, st->out, &ns, &bad);
    if (rc == MMTB_OK)
        rc = run_pass(ctx, st->pos, st->o->count, 0, dtw, st->out, &ns, &bad);
    mmtb_ctx_free(ctx);
    if (rc != MMTB_OK)
        return probe_failed(st, &st->pos[bad], rc);
    if (check_same(st, st->out, st->o->count, "small cache") != CLI_EXIT_OK)
        return CLI_EXIT_TABLE;
    set_row(st, dtw ? R_SMALL_DTW : R_SMALL_WDL, "small cache: second pass",
            dtw ? "wdl+dtw" : "wdl", (uint64_t)st->o->count, ns);
    return CLI_EXIT_OK;
}

/* One thread of the multi-threaded run. */
struct thr {
    struct bench_state *st;
    mmtb_tb *tb;
    pthread_barrier_t *bar;
    long first; /* where this thread starts in the sample */
    bool dtw;
    int rc;
    long bad, wrong;
    int8_t *out;
};

/* Own context, a warm-up pass, then (between the two barriers the main
 * thread times) the measured pass.  Always reaches both barriers. */
static void *thr_main(void *arg)
{
    struct thr *t = arg;
    const struct bench_state *st = t->st;
    mmtb_ctx *ctx = NULL;
    uint64_t ns;
    t->rc = t->out ? mmtb_ctx_create(&ctx, t->tb, st->o->cache) : MMTB_ERR_NOMEM;
    if (t->rc == MMTB_OK)
        t->rc = run_pass(ctx, st->pos, st->o->count, t->first, t->dtw, t->out, &ns, &t->bad);
    pthread_barrier_wait(t->bar);
    for (long k = 0; k < warm_reps(st, t->dtw) && t->rc == MMTB_OK; k++)
        t->rc = run_pass(ctx, st->pos, st->o->count, t->first, t->dtw, t->out, &ns, &t->bad);
    pthread_barrier_wait(t->bar);
    if (t->rc == MMTB_OK)
        t->wrong = mismatches(st, t->out, st->o->count);
    mmtb_ctx_free(ctx);
    return NULL;
}

/* T threads on the shared handle, each probing the whole sample from its
 * own starting point; the aggregate rate over the measured passes. */
static int phase_threads(struct bench_state *st, mmtb_tb *tb, bool dtw)
{
    int nt = st->o->threads, ret = CLI_EXIT_OK;
    struct thr *t = calloc((size_t)nt, sizeof *t);
    pthread_t *id = calloc((size_t)nt, sizeof *id);
    pthread_barrier_t bar;
    if (!t || !id || pthread_barrier_init(&bar, NULL, (unsigned)nt + 1) != 0) {
        free(t);
        free(id);
        cli_error(st->cmd, "cannot start threads");
        return CLI_EXIT_TABLE;
    }
    int started = 0;
    for (int i = 0; i < nt; i++) {
        t[i].st = st;
        t[i].tb = tb;
        t[i].bar = &bar;
        t[i].first = (long)((uint64_t)st->o->count * (uint64_t)i / (uint64_t)nt);
        t[i].dtw = dtw;
        t[i].out = malloc((size_t)st->o->count);
        if (pthread_create(&id[i], NULL, thr_main, &t[i]) != 0)
            break;
        started++;
    }
    if (started < nt) {
        /* the barrier expects nt + 1 parties: unusable; give up loudly */
        cli_error(st->cmd, "cannot start %d threads", nt);
        exit(CLI_EXIT_TABLE);
    }
    pthread_barrier_wait(&bar);
    uint64_t t0 = now_ns();
    pthread_barrier_wait(&bar);
    uint64_t ns = now_ns() - t0;
    for (int i = 0; i < nt; i++)
        pthread_join(id[i], NULL);
    for (int i = 0; i < nt && ret == CLI_EXIT_OK; i++) {
        if (t[i].rc != MMTB_OK)
            ret = probe_failed(st, &st->pos[t[i].bad], t[i].rc);
        else if (t[i].wrong) {
            cli_error(st->cmd, "thread %d: %ld positions with another W/D/L", i, t[i].wrong);
            ret = CLI_EXIT_TABLE;
        }
    }
    for (int i = 0; i < nt; i++)
        free(t[i].out);
    pthread_barrier_destroy(&bar);
    free(t);
    free(id);
    if (ret == CLI_EXIT_OK)
        set_row(st, dtw ? R_THR_DTW : R_THR_WDL, "threads: own contexts, warm",
                dtw ? "wdl+dtw" : "wdl",
                (uint64_t)st->o->count * (uint64_t)warm_reps(st, dtw) * (uint64_t)nt, ns);
    return ret;
}

/* ---------------------------------------------------------------------- */
/* Report                                                                 */
/* ---------------------------------------------------------------------- */

/* bits per canonical position = 8 * bytes / canonical */
static double bits(uint64_t bytes, uint64_t canonical)
{
    return canonical ? 8.0 * (double)bytes / (double)canonical : 0.0;
}

static double rate(const struct row *r)
{
    return r->ns ? (double)r->probes * 1e9 / (double)r->ns : 0.0;
}

static double per_probe(const struct row *r)
{
    return r->probes ? (double)r->ns / (double)r->probes : 0.0;
}

static const char *row_key(int r)
{
    static const char *keys[R_COUNT] = {
        "open",           "ctx_create",     "first_probe_wdl", "first_probe_dtw",
        "first_pass_wdl", "first_pass_dtw", "fresh_ctx_wdl",   "fresh_ctx_dtw",
        "warm_wdl",       "warm_dtw",       "small_cache_wdl", "small_cache_dtw",
        "threads_wdl",    "threads_dtw"};
    return keys[r];
}

static void human_bytes(uint64_t b, char *buf, size_t len)
{
    if (b >= (1u << 30))
        snprintf(buf, len, "%.2f GiB", (double)b / (1u << 30));
    else if (b >= (1u << 20))
        snprintf(buf, len, "%.1f MiB", (double)b / (1u << 20));
    else if (b >= 1024)
        snprintf(buf, len, "%.1f KiB", (double)b / (1u << 10));
    else
        snprintf(buf, len, "%" PRIu64 " bytes", b);
}

static void report_text(const struct bench_state *st, long rss_kib)
{
    const struct bench_opts *o = st->o;
    char cb[32], sb[32], db[32];
    double n = (double)o->count;
    human_bytes(o->cache, cb, sizeof cb);
    human_bytes(o->small_cache, sb, sizeof sb);
    human_bytes(st->bytes, db, sizeof db);
    printf("Benchmark of the tables in %s: %s (%s)\n\n", o->dir, st->v->title, st->v->name);
    printf("%-12s %d of %d usable\n", "sectors", st->usable, st->nsectors);
    printf("%-12s %" PRIu64 " canonical, %" PRIu64 " index slots\n", "positions", st->canonical,
           st->slots);
    printf("%-12s %" PRIu64 " bytes (%s) in sector files: W/D/L plane %" PRIu64
           ", DTW plane %" PRIu64 "\n",
           "on disk", st->bytes, db, st->wdl_bytes, st->dtw_bytes);
    printf("%-12s %.3f per canonical position (W/D/L plane %.3f, DTW plane %.3f)\n", "bits",
           bits(st->bytes, st->canonical), bits(st->wdl_bytes, st->canonical),
           bits(st->dtw_bytes, st->canonical));
    printf("%-12s %ld positions, seed %" PRIu64 ": uniform over the canonical positions,\n",
           "sample", o->count, o->seed);
    printf("%-12s each a random symmetric image with White to move\n", "");
    if (st->v->no_reclose)
        printf("%-12s %.1f%% with a re-close restriction (stored states, restrictions included)\n",
               "", 100.0 * (double)st->restricted / n);
    printf("%-12s %.1f%% wins, %.1f%% draws, %.1f%% losses; %.1f%% over by the rules\n", "values",
           100.0 * (double)st->wins / n, 100.0 * (double)st->draws / n,
           100.0 * (double)st->losses / n, 100.0 * (double)st->terminal / n);
    printf("%-12s %s per context (first, warm, threads), %s (small cache, fresh contexts)\n",
           "caches", cb, sb);
    if (o->drop)
        printf("%-12s 'cold' = cold in libmmtb's cache and in the OS page cache: before each\n"
               "%-12s cold phase and each fresh-context probe, posix_fadvise(DONTNEED) on\n"
               "%-12s the %d sector files (a first pass still re-reads blocks from the\n"
               "%-12s page cache once a neighbouring block brought them in)\n",
               "note", "", "", st->dropped, "");
    else
        printf("%-12s 'cold' = cold in libmmtb's block cache only: the OS page cache may\n"
               "%-12s still hold the files (--drop-caches drops them first)\n",
               "note", "");
    printf("\n%-34s %-8s %10s %10s %12s %10s %10s %10s\n", "phase", "values", "probes", "seconds",
           "probes/s", "ns/probe", "median ns", "p99 ns");
    for (int r = 0; r < R_COUNT; r++) {
        const struct row *w = &st->rows[r];
        if (!w->done)
            continue;
        char label[64], med[24] = "-", p99[24] = "-", rt[24] = "-";
        if (r == R_THR_WDL || r == R_THR_DTW)
            snprintf(label, sizeof label, "threads: %d, own contexts, warm", o->threads);
        else
            snprintf(label, sizeof label, "%s", w->phase);
        if (w->median >= 0) {
            snprintf(med, sizeof med, "%" PRId64, w->median);
            snprintf(p99, sizeof p99, "%" PRId64, w->p99);
        }
        if (w->probes > 1)
            snprintf(rt, sizeof rt, "%.0f", rate(w));
        printf("%-34s %-8s %10" PRIu64 " %10.4f %12s %10.0f %10s %10s\n", label, w->values,
               w->probes, (double)w->ns / 1e9, rt, per_probe(w), med, p99);
    }
    for (int d = 0; d < 2; d++) {
        if (!st->rows[d ? R_FIRST_DTW : R_FIRST_WDL].done)
            continue;
        char hb[32];
        human_bytes(st->held[d].bytes, hb, sizeof hb);
        printf("%s%-12s %s in %zu block%s after the first pass (%s)%s\n", d ? "" : "\n",
               d ? "" : "warm cache", hb, st->held[d].blocks, st->held[d].blocks == 1 ? "" : "s",
               d ? "wdl+dtw" : "wdl", held_full(st, d) ? ": FULL" : ", room left");
    }
    if (held_full(st, 0) || held_full(st, 1))
        printf("%-12s the %s cache is full after the first pass, so the 'warm' rows may\n"
               "%-12s still decompress blocks (one pass each, not repeated); a smaller\n"
               "%-12s --count or a larger --cache measures a warm cache\n",
               "note", cb, "", "");
    printf("\n%-12s %ld KiB (%.1f MiB), whole process at the end\n", "peak RSS", rss_kib,
           (double)rss_kib / 1024.0);
}

static void report_json(const struct bench_state *st, long rss_kib)
{
    const struct bench_opts *o = st->o;
    printf("{\"tables\":");
    cli_json_str(stdout, o->dir);
    printf(",\"variant\":");
    cli_json_str(stdout, st->v->name);
    printf(",\"sectors\":%d,\"sectors_usable\":%d,\"canonical\":%" PRIu64 ",\"slots\":%" PRIu64
           ",\"bytes\":%" PRIu64 ",\"wdl_bytes\":%" PRIu64 ",\"dtw_bytes\":%" PRIu64
           ",\"bits_per_position\":%.4f,\"wdl_bits_per_position\":%.4f"
           ",\"dtw_bits_per_position\":%.4f",
           st->nsectors, st->usable, st->canonical, st->slots, st->bytes, st->wdl_bytes,
           st->dtw_bytes, bits(st->bytes, st->canonical), bits(st->wdl_bytes, st->canonical),
           bits(st->dtw_bytes, st->canonical));
    printf(",\"count\":%ld,\"seed\":%" PRIu64 ",\"cache_bytes\":%zu,\"small_cache_bytes\":%zu"
           ",\"cold\":%ld,\"threads\":%d,\"drop_caches\":%s",
           o->count, o->seed, o->cache, o->small_cache, o->cold, o->threads,
           o->drop ? "true" : "false");
    printf(",\"wins\":%" PRIu64 ",\"draws\":%" PRIu64 ",\"losses\":%" PRIu64
           ",\"terminal\":%" PRIu64 ",\"restricted\":%" PRIu64,
           st->wins, st->draws, st->losses, st->terminal, st->restricted);
    for (int r = 0; r < R_COUNT; r++) {
        const struct row *w = &st->rows[r];
        printf(",\"%s\":", row_key(r));
        if (!w->done) {
            printf("null");
            continue;
        }
        printf("{\"probes\":%" PRIu64 ",\"ns\":%" PRIu64 ",\"ns_per_probe\":%.0f", w->probes, w->ns,
               per_probe(w));
        if (w->probes > 1)
            printf(",\"probes_per_second\":%.0f", rate(w));
        if (w->median >= 0)
            printf(",\"median_ns\":%" PRId64 ",\"p99_ns\":%" PRId64, w->median, w->p99);
        printf("}");
    }
    for (int d = 0; d < 2; d++) {
        printf(",\"warm_cache_%s\":", d ? "dtw" : "wdl");
        if (!st->rows[d ? R_FIRST_DTW : R_FIRST_WDL].done)
            printf("null");
        else
            printf("{\"bytes\":%zu,\"blocks\":%zu,\"full\":%s}", st->held[d].bytes,
                   st->held[d].blocks, held_full(st, d) ? "true" : "false");
    }
    printf(",\"peak_rss_kib\":%ld}\n", rss_kib);
}

/* ---------------------------------------------------------------------- */
/* Options and the run                                                    */
/* ---------------------------------------------------------------------- */

enum {
    O_TABLES = 1,
    O_COUNT,
    O_SEED,
    O_CACHE,
    O_SMALL,
    O_COLD,
    O_THREADS,
    O_DROP,
    O_JSON,
    O_WRITE_CHECK,
    O_HELP
};

/* Returned by bench_option and parse_bench_opts when the bench is to run. */
#define BENCH_GO (-1)

/* Option id with its argument arg into *o: BENCH_GO, or the exit code
 * (after --help or a usage error). */
static int bench_option(struct bench_opts *o, int id, const char *arg, const char *cmd)
{
    long x;
    switch (id) {
    case CLI_BAD:
        return CLI_EXIT_INPUT;
    case O_TABLES:
        o->dir = arg;
        break;
    case O_COUNT:
        if (!cli_parse_long(arg, 1, 100000000, &x))
            return cli_usage_error(cmd, "bad --count '%s' (1..100000000)", arg);
        o->count = x;
        break;
    case O_SEED:
        if (!cli_parse_long(arg, 0, 0x7fffffffL, &x))
            return cli_usage_error(cmd, "bad --seed '%s' (0..2147483647)", arg);
        o->seed = (uint64_t)x;
        break;
    case O_CACHE:
    case O_SMALL: {
        size_t *dst = id == O_CACHE ? &o->cache : &o->small_cache;
        if (!cli_parse_bytes(arg, dst) || *dst == 0)
            return cli_usage_error(cmd, "bad --%s '%s' (bytes, at least 1, e.g. 1048576 or 1M)",
                                   id == O_CACHE ? "cache" : "small-cache", arg);
        break;
    }
    case O_COLD:
        if (!cli_parse_long(arg, 0, 1000000, &x))
            return cli_usage_error(cmd, "bad --cold '%s' (0..1000000)", arg);
        o->cold = x;
        break;
    case O_THREADS:
        if (!cli_parse_long(arg, 1, 256, &x))
            return cli_usage_error(cmd, "bad --threads '%s' (1..256)", arg);
        o->threads = (int)x;
        break;
    case O_DROP:
        o->drop = true;
        break;
    case O_JSON:
        o->json = true;
        break;
    case O_WRITE_CHECK:
        o->write_check = arg;
        break;
    case O_HELP:
        fputs(bench_help, stdout);
        return CLI_EXIT_OK;
    default:
        return cli_usage_error(cmd, "unexpected argument '%s'", arg);
    }
    return BENCH_GO;
}

/* Read the options into *o (defaults already set): BENCH_GO, or the exit
 * code (after --help or a usage error). */
static int parse_bench_opts(int argc, char **argv, struct bench_opts *o, const char **cmd)
{
    static const struct cli_opt opts[] = {
        {"tables", 't', true, O_TABLES},   {"count", 'n', true, O_COUNT},
        {"seed", 's', true, O_SEED},       {"cache", 'c', true, O_CACHE},
        {"small-cache", 0, true, O_SMALL}, {"cold", 0, true, O_COLD},
        {"threads", 'T', true, O_THREADS}, {"drop-caches", 0, false, O_DROP},
        {"json", 'j', false, O_JSON},      {"write-check", 0, true, O_WRITE_CHECK},
        {"help", 'h', false, O_HELP},      {NULL, 0, false, 0}};
    struct cli_parser ps;
    const char *arg;
    int id, rc;

    cli_parser_init(&ps, argc, argv);
    *cmd = ps.cmd;
    while ((id = cli_next(&ps, opts, &arg)) != CLI_END)
        if ((rc = bench_option(o, id, arg, ps.cmd)) != BENCH_GO)
            return rc;
    if (!o->dir)
        return cli_usage_error(ps.cmd, "missing -t DIR (the table directory)");
    if (o->cold < 0)
        o->cold = o->count < 1000 ? o->count : 1000;
    else if (o->cold > o->count)
        o->cold = o->count;
    return BENCH_GO;
}

/* The sample from the tables of info, then (unless --write-check writes
 * it out instead) every phase and the report.  *tb is the handle of the
 * later phases, for the caller to close. */
static int run_bench(struct bench_state *st, mmtb_tb *info, mmtb_tb **tb)
{
    const struct bench_opts *o = st->o;
    int ret = make_sample(st, info);
    if (ret == CLI_EXIT_OK && o->write_check)
        return write_check_input(st);
    /* W/D/L only first: its results are the reference the others must match */
    if (ret == CLI_EXIT_OK)
        ret = phase_first_warm(st, false, NULL);
    if (ret == CLI_EXIT_OK)
        ret = phase_first_warm(st, true, tb);
    if (ret == CLI_EXIT_OK)
        ret = phase_fresh(st, *tb, false);
    if (ret == CLI_EXIT_OK)
        ret = phase_fresh(st, *tb, true);
    if (ret == CLI_EXIT_OK)
        ret = phase_small(st, *tb, false);
    if (ret == CLI_EXIT_OK)
        ret = phase_small(st, *tb, true);
    if (ret == CLI_EXIT_OK && o->threads > 0)
        ret = phase_threads(st, *tb, false);
    if (ret == CLI_EXIT_OK && o->threads > 0)
        ret = phase_threads(st, *tb, true);
    if (ret == CLI_EXIT_OK) {
        struct rusage ru;
        getrusage(RUSAGE_SELF, &ru);
        if (o->json)
            report_json(st, ru.ru_maxrss);
        else
            report_text(st, ru.ru_maxrss);
    }
    return ret;
}

int cli_cmd_bench(int argc, char **argv)
{
    struct bench_opts o = {.count = 100000,
                           .cold = -1, /* min(1000, count) */
                           .seed = 1,
                           .cache = (size_t)256 << 20,
                           .small_cache = (size_t)1 << 20};
    const char *cmd;
    int ret = parse_bench_opts(argc, argv, &o, &cmd);
    if (ret != BENCH_GO)
        return ret;

    struct bench_state st;
    memset(&st, 0, sizeof st);
    st.o = &o;
    st.cmd = cmd;
    mmtb_tb *info = NULL, *tb = NULL;
    if (!cli_open_tables(cmd, o.dir, &info, NULL))
        return CLI_EXIT_TABLE;
    st.v = mmtb_tb_variant(info);
    st.pos = malloc((size_t)o.count * sizeof *st.pos);
    st.ref = malloc((size_t)o.count);
    st.out = malloc((size_t)o.count);
    if (!st.pos || !st.ref || !st.out) {
        cli_error(cmd, "out of memory");
        ret = CLI_EXIT_TABLE;
    } else {
        ret = run_bench(&st, info, &tb);
    }
    mmtb_tb_close(tb);
    mmtb_tb_close(info);
    free(st.present);
    free(st.pos);
    free(st.ref);
    free(st.out);
    return ret;
}
