/*
 * schedule.c - mmtb_solve: the sectors of the game in dependency order,
 * those the run needs (--sectors and what they lead to), the ones already
 * solved in the directory (kept: a rerun resumes), the pairs and the pairs
 * each reads, the plan that shares them among the ranks of a transport
 * (mmtb-gen-mpi; one process: all of them, in order), the pairs handed one
 * by one to pair_solve (pair.c), the per-sector lines and the summary.
 * Knows nothing of how a pair is solved, nor of MPI (solve.h's callbacks).
 */
#include "job.h"

#include "ban_index.h"
#include "behind.h"
#include "plan.h"

#include <errno.h>
#include <omp.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "mmtb.h"
#include "tablewrite.h"

/* The bytes the process holds now (resident), 0 when unknown. */
static uint64_t rss_bytes(void)
{
    FILE *f = fopen("/proc/self/statm", "r");
    unsigned long long size = 0, res = 0;
    if (!f)
        return 0;
    if (fscanf(f, "%llu %llu", &size, &res) != 2)
        res = 0;
    fclose(f);
    return (uint64_t)res * (uint64_t)sysconf(_SC_PAGESIZE);
}

static double peak_rss_mib(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_maxrss / 1024.0;
}

/* mkdir -p: create dir and its missing parents.  Returns 0 or -1 (errno). */
static int make_dirs(const char *dir)
{
    char path[4096];
    size_t n = strlen(dir);
    if (n == 0 || n >= sizeof path) {
        errno = ENAMETOOLONG;
        return -1;
    }
    memcpy(path, dir, n + 1);
    for (size_t i = 1; i <= n; i++) {
        if (path[i] != '/' && path[i] != 0)
            continue;
        char c = path[i];
        path[i] = 0;
        if (mkdir(path, 0777) != 0 && errno != EEXIST)
            return -1;
        path[i] = c;
    }
    struct stat st;
    if (stat(dir, &st) != 0)
        return -1;
    if (!S_ISDIR(st.st_mode)) {
        errno = ENOTDIR;
        return -1;
    }
    return 0;
}

/* Add s and, recursively, every sector of the game it leads to. */
static void mark_needed(const struct mmtb_variant *v, const struct mmtb_sector *list, int n,
                        bool *need, struct mmtb_sector s)
{
    for (int i = 0; i < n; i++) {
        if (!mmtb_sector_eq(list[i], s))
            continue;
        if (need[i])
            return;
        need[i] = true;
        struct mmtb_sector t[8];
        int k = mmtb_sector_moves_to(v, s, t);
        for (int q = 0; q < k; q++)
            mark_needed(v, list, n, need, t[q]);
        return;
    }
}

/* Can a move lead from sector s to its partner (same stones, other side to
 * move)?  Quiet moves and passes can.  A placement always leads out of the
 * pair, so where both sides still place (outside place-or-move rules, and
 * with no passes when the board is full) the two sectors are independent
 * and are solved one after the other, with half the memory. */
static bool partners_linked(const struct mmtb_variant *v, struct mmtb_sector s)
{
    return s.w_hand == 0 || s.b_hand == 0 || v->place_or_move ||
           v->nomove == MMTB_NOMOVE_PASSES;
}

/* True when the directory already holds a valid table of sector s: one
 * that opens and whose every byte is as its writer hashed it (the writer
 * checked its values before; a changed byte, cut or bit rot, fails). */
static bool already_solved(const mmtb_tb *tb, struct mmtb_sector s, struct mmtb_sector_stats *st)
{
    return tb && mmtb_tb_sector_stats(tb, s, st) == MMTB_OK &&
           mmtb_tb_verify_sector_hash(tb, s, NULL, 0) == MMTB_OK;
}

static void print_stats_line(FILE *f, struct mmtb_sector s, const struct mmtb_sector_stats *st,
                             double secs, const char *note)
{
    char name[32];
    mmtb_sector_format(s, name, sizeof name);
    fprintf(f, "%-10s %14llu %14llu %14llu %14llu %5d %5d %8.2fs %s\n", name,
            (unsigned long long)st->canonical, (unsigned long long)st->wins,
            (unsigned long long)st->draws, (unsigned long long)st->losses, st->max_win,
            st->max_loss, secs, note);
}

/* A pair to solve (or a lone sector): list[first..first+nss). */
struct pair {
    int first, nss;
    bool have;    /* already solved in the directory */
    int ord;      /* 1 + the needed sectors before it: the [k/todo] of the display */
    int ndeps;    /* the pairs its moves lead into */
    int deps[16];
    int owner;    /* the rank that solves it (-1: all ranks, split) */
    bool split;   /* solved by all ranks together, each holding a part (split.c) */
};

/* What a rank announces when it has written a pair (mmtb_transport). */
struct pair_done {
    int32_t pair, rank;
    double secs, peak_rss_mib;
    struct mmtb_sector_stats st[2];
};

/* Group the needed sectors of list[0..n) into pairs (a sector and its
 * partner when it follows and moves link them), in list order, which is
 * dependency order; pair_of[i] receives the pair of list[i] (-1: not
 * needed).  Returns the number of pairs. */
static int make_pairs(const struct mmtb_variant *v, const struct mmtb_sector *list, int n,
                      const bool *need, struct pair *P, int *pair_of)
{
    int np = 0, ord = 1;
    for (int i = 0; i < n; i++)
        pair_of[i] = -1;
    for (int i = 0; i < n; i++) {
        if (!need[i])
            continue;
        struct pair *q = &P[np];
        q->first = i;
        q->nss = 1;
        q->ord = ord;
        if (i + 1 < n && need[i + 1] && mmtb_sector_eq(list[i + 1], sector_partner(list[i])) &&
            !mmtb_sector_eq(list[i], list[i + 1]) && partners_linked(v, list[i]))
            q->nss = 2;
        for (int k = 0; k < q->nss; k++)
            pair_of[i + k] = np;
        for (int k = 0; k < q->nss; k++) {
            struct mmtb_sector ch[8];
            int nc = mmtb_sector_moves_to(v, list[i + k], ch);
            for (int c = 0; c < nc; c++) {
                int at = -1;
                for (int x = 0; x < i && at < 0; x++)
                    if (mmtb_sector_eq(list[x], ch[c]))
                        at = pair_of[x];
                bool dup = at < 0;
                for (int e = 0; e < q->ndeps && !dup; e++)
                    dup = q->deps[e] == at;
                if (!dup && q->ndeps < 16)
                    q->deps[q->ndeps++] = at;
            }
        }
        ord += q->nss;
        i += q->nss - 1;
        np++;
    }
    return np;
}

/*
 * Share the pairs not yet solved among nranks ranks, the same way on every
 * rank: in dependency order, each pair goes to the rank that can start it
 * first (the ranks' loads and the pairs' finishing times estimated by
 * their index slots; ties to the lowest rank).  Every rank then solves
 * its pairs in list order, so the first pair nobody has finished always
 * has its inputs and its rank free: the plan cannot deadlock.
 */
static void plan_owners(const mmtb_index *ix, const struct mmtb_sector *list, struct pair *P,
                        int np, int nranks)
{
    double *busy = calloc((size_t)(nranks > 0 ? nranks : 1), sizeof *busy);
    double *fin = calloc((size_t)np, sizeof *fin);
    for (int p = 0; p < np; p++) {
        P[p].owner = 0; /* (out of memory for the plan: rank 0 solves everything) */
        if (nranks <= 1 || P[p].have || !fin || !busy)
            continue;
        double ready = 0, cost = 0;
        for (int d = 0; d < P[p].ndeps; d++)
            ready = fin[P[p].deps[d]] > ready ? fin[P[p].deps[d]] : ready;
        for (int k = 0; k < P[p].nss; k++)
            cost += (double)mmtb_index_slots(ix, list[P[p].first + k]);
        if (P[p].split) {
            /* every rank takes a part, once all are free */
            double s = ready;
            for (int r = 0; r < nranks; r++)
                s = busy[r] > s ? busy[r] : s;
            P[p].owner = -1;
            fin[p] = s + cost / nranks;
            for (int r = 0; r < nranks; r++)
                busy[r] = fin[p];
            continue;
        }
        int best = 0;
        double best_start = 0;
        for (int r = 0; r < nranks; r++) {
            double s = busy[r] > ready ? busy[r] : ready;
            if (r == 0 || s < best_start) {
                best = r;
                best_start = s;
            }
        }
        P[p].owner = best;
        fin[p] = busy[best] = best_start + cost;
    }
    free(fin);
    free(busy);
}

/* The per-sector lines of pair q (its time shared among its sectors). */
static void print_pair(FILE *rep, const struct mmtb_sector *list,
                       const struct mmtb_sector_stats *all, const struct pair *q, double secs,
                       const char *note)
{
    for (int k = 0; k < q->nss; k++)
        print_stats_line(rep, list[q->first + k], &all[q->first + k], secs / q->nss, note);
}

/* How much of the run is done, in index slots (the measure of work), for
 * --verbose: slots of every needed pair, of those finished before this
 * run, and of those finished so far. */
struct share {
    uint64_t total, kept, done;
    double t0;
};

/* (for sectors whose positions carry state, estimated from 64 K positions
 * a sector: a few ms each, where planning's count takes seconds) */
static uint64_t pair_slots(const mmtb_index *ix, const struct mmtb_sector *list,
                           const struct pair *q)
{
    uint64_t n = 0;
    for (int k = 0; k < q->nss; k++)
        n += mmtb_ban_index_count(ix, list[q->first + k], (uint64_t)1 << 16, NULL);
    return n;
}

/* A pair was written (by this rank or, announced, by another): note it,
 * take its statistics, count it, and print its lines when this rank
 * reports; with --verbose, how far the whole run is, on stderr. */
static void took_news(const struct mmtb_solve_opts *o, FILE *rep, bool quiet,
                      const mmtb_index *ix, const struct mmtb_sector *list,
                      struct mmtb_sector_stats *all, const struct pair *P, int np, bool *done,
                      const struct pair_done *msg, int *left, uint64_t *solved, double *peak,
                      struct share *sh)
{
    int p = msg->pair;
    if (p < 0 || p >= np || done[p])
        return;
    done[p] = true;
    (*left)--;
    for (int k = 0; k < P[p].nss; k++) {
        all[P[p].first + k] = msg->st[k];
        *solved += msg->st[k].slots;
    }
    *peak = msg->peak_rss_mib > *peak ? msg->peak_rss_mib : *peak;
    if (!quiet && !o->json)
        print_pair(rep, list, all, &P[p], msg->secs, "");
    if (!quiet && o->verbose) {
        sh->done += pair_slots(ix, list, &P[p]);
        progress_share_line("slots", sh->done, sh->kept, sh->total, sh->t0);
    }
}

/* What pair q needs in memory (pair_memory); on a
 * pair split over nsplit ranks, what one rank needs: its part of the
 * states (whole partitions, and the huge pages at its ends) and the
 * exchange buffers; with base bytes held already, its buckets on disk when
 * it would not fit with them (pair_memory_fit).  Returns MMTB_OK or a
 * status. */
static int pair_need(const struct mmtb_solve_opts *o, const struct mmtb_variant *v,
                     const mmtb_index *ix, const struct mmtb_sector *list, const struct pair *q,
                     int nsplit, uint64_t base, struct pair_mem *pm)
{
    pair_memory(o, v, ix, &list[q->first], q->nss, nsplit, pm);
    pair_memory_fit(o, base, nsplit, pm);
    return MMTB_OK;
}

/*
 * Which pairs all ranks solve together (mmtb-gen-mpi with more than one
 * rank): those of at least o->split_slots slots, and those over
 * o->memory_limit whose split part fits.  base is what a process holds
 * already (rank 0's, the same on every rank, so every rank decides
 * alike).  A pair whose positions carry state (restrictions, a
 * first-mill owner) is not split yet.
 */
static void plan_splits(const struct mmtb_solve_opts *o, const struct mmtb_variant *v,
                        const mmtb_index *ix, const struct mmtb_sector *list, struct pair *P,
                        int np, const struct mmtb_transport *t, uint64_t base)
{
    if (!t || t->nranks < 2 || !t->exchange)
        return;
    for (int p = 0; p < np; p++) {
        if (P[p].have || mmtb_ban_index_applies(v, list[P[p].first]))
            continue;
        struct pair_mem whole, part;
        pair_need(o, v, ix, list, &P[p], 1, base, &whole);
        pair_need(o, v, ix, list, &P[p], t->nranks, base, &part);
        P[p].split = (o->split_slots && whole.slots >= o->split_slots) ||
                     (o->memory_limit && base + whole.total > o->memory_limit &&
                      base + part.total <= o->memory_limit);
    }
}

/*
 * --memory: every pair this rank is to solve must fit in o->memory_limit
 * with what the process already holds (base: the index tables); the
 * first that does not is refused, named with its bytes by part.  With
 * --verbose, each pair's plan is printed.  Returns MMTB_OK or
 * MMTB_ERR_NOMEM.
 */
static int check_memory(const struct mmtb_solve_opts *o, const struct mmtb_variant *v,
                        const mmtb_index *ix, const struct mmtb_sector *list,
                        const struct pair *P, int np, int me, char *err, size_t errlen)
{
    uint64_t base = rss_bytes();
    int rc = MMTB_OK;
    for (int p = 0; p < np; p++) {
        if (P[p].have || (P[p].owner != me && !P[p].split))
            continue;
        struct pair_mem pm;
        int nsplit = P[p].split ? o->transport->nranks : 1;
        int mrc = pair_need(o, v, ix, list, &P[p], nsplit, base, &pm);
        if (mrc != MMTB_OK) {
            snprintf(err, errlen, "cannot plan the memory of a pair: %s", mmtb_strerror(mrc));
            return mrc;
        }
        char names[48], b[32];
        mmtb_sector_format(list[P[p].first], names, sizeof names);
        if (P[p].nss == 2) {
            mmtb_sector_format(list[P[p].first + 1], b, sizeof b);
            snprintf(names + strlen(names), sizeof names - strlen(names), " and %s", b);
        }
        uint64_t need = base + pm.total;
        char part[64] = "";
        if (nsplit > 1)
            snprintf(part, sizeof part, ", split over %d ranks: rank %d's part", nsplit, me);
        else if (pm.spill)
            snprintf(part, sizeof part, "; the buckets on disk, %.1f MiB",
                     pm.buckets_disk / 1048576.0);
        if (o->verbose)
            fprintf(stderr,
                    "%s: plan %.1f MiB (state %.1f, buckets %.1f, solved sectors %.1f, work %.1f, "
                    "base %.1f), %llu slots%s\n",
                    names, need / 1048576.0, pm.state / 1048576.0, pm.buckets / 1048576.0,
                    pm.deps / 1048576.0, pm.work / 1048576.0, base / 1048576.0,
                    (unsigned long long)pm.slots, part);
        if (rc == MMTB_OK && o->memory_limit && need > o->memory_limit) {
            snprintf(err, errlen,
                     "sectors %s need %llu bytes (%.2f GiB: %llu of states, %llu of waiting "
                     "outside results, %llu of solved sectors read, %llu of working buffers "
                     "for %d threads, %llu held already), over the memory limit of %llu bytes "
                     "(%.2f GiB)",
                     names, (unsigned long long)need, need / 1073741824.0,
                     (unsigned long long)pm.state, (unsigned long long)pm.buckets,
                     (unsigned long long)pm.deps,
                     (unsigned long long)pm.work, omp_get_max_threads(),
                     (unsigned long long)base, (unsigned long long)o->memory_limit,
                     o->memory_limit / 1073741824.0);
            rc = MMTB_ERR_NOMEM;
            if (!o->verbose)
                break;
        }
    }
    return rc;
}

/* The bytes free to an unprivileged writer on the file system of dir, or of
 * the nearest directory above it that exists (dir is created by the run);
 * UINT64_MAX when there is no dir or statvfs fails. */
static uint64_t disk_free_bytes(const char *dir)
{
    if (!dir)
        return UINT64_MAX;
    char path[4096];
    snprintf(path, sizeof path, "%s", dir[0] ? dir : ".");
    struct statvfs fs;
    while (statvfs(path, &fs) != 0) { /* up one directory: "a/b" "a" ".", "/a" "/" */
        if (errno != ENOENT || !strcmp(path, "."))
            return UINT64_MAX;
        char *slash = strrchr(path, '/');
        if (slash)
            slash[slash == path] = 0;
        else
            snprintf(path, sizeof path, ".");
    }
    return (uint64_t)fs.f_bavail * fs.f_frsize;
}

/* --plan: every pair's plan printed (plan.c), nothing solved; an error
 * when a pair is over the memory limit. */
static int print_plan(const struct mmtb_solve_opts *o, const struct mmtb_variant *v,
                      const mmtb_index *ix, const struct mmtb_sector *list, const struct pair *P,
                      int np, int swh, int sbh, char *err, size_t errlen)
{
    struct plan_row *rows = calloc((size_t)np, sizeof *rows);
    if (!rows) {
        snprintf(err, errlen, "out of memory");
        return MMTB_ERR_NOMEM;
    }
    uint64_t base = rss_bytes();
    for (int p = 0; p < np; p++) {
        rows[p].nss = P[p].nss;
        rows[p].have = P[p].have;
        for (int k = 0; k < P[p].nss; k++)
            rows[p].s[k] = list[P[p].first + k];
        rows[p].ckpt_level =
            o->outdir && !P[p].have ? ckpt_peek(o->outdir, rows[p].s, P[p].nss) : -1;
        pair_need(o, v, ix, list, &P[p], 1, base, &rows[p].pm);
        rows[p].ndeps = P[p].ndeps;
        rows[p].deps = P[p].deps;
    }
    int over = plan_print(o->report ? o->report : stdout, o->json, v, swh, sbh, rows, np, base,
                          o->memory_limit, disk_free_bytes(o->outdir),
                          (o->verify_behind ? PLAN_VERIFY_BEHIND : 0) |
                              (o->pack_behind ? PLAN_PACK_BEHIND : 0));
    free(rows);
    if (over) {
        snprintf(err, errlen, "%d pairs need more than the memory limit of %llu bytes", over,
                 (unsigned long long)o->memory_limit);
        return MMTB_ERR_NOMEM;
    }
    return MMTB_OK;
}

/* What one run of mmtb_solve holds, for its steps below. */
struct run {
    const struct mmtb_solve_opts *o;
    struct mmtb_variant *v;
    mmtb_index *ix;
    struct mmtb_sector *list; /* the sectors of the game, in dependency order */
    bool *need;               /* the ones this run solves */
    struct mmtb_sector_stats *all;
    int n, todo, swh, sbh;
    struct pair *P;
    int *pair_of;
    bool *done;
    int np;
    FILE *rep;
    const struct mmtb_transport *t;
    int me;
    bool quiet;
    struct behind_pair *bp; /* the pairs as behind.c sees them */
    struct behind *bh;      /* --verify-behind: NULL without */
};

/* The start the options give (the variant's own for -1), checked: a side
 * short of stones, or Shah's hands in an order the game never has, is an
 * error. */
static int check_start(struct run *r, char *err, size_t errlen)
{
    const struct mmtb_variant *v = r->v;
    r->swh = r->o->start_w_hand < 0 ? v->stones : r->o->start_w_hand;
    r->sbh = r->o->start_b_hand < 0 ? v->stones : r->o->start_b_hand;
    int swh = r->swh, sbh = r->sbh;
    if ((swh > 0 || sbh > 0) && (swh < v->min_stones || sbh < v->min_stones)) {
        /* the empty board with fewer stones than min-stones for a side is a
         * game already lost before the first move: nothing to solve */
        snprintf(err, errlen,
                 "start %d,%d: a side with fewer than %d stones (min-stones of %s) has lost "
                 "before the first move; give each side at least %d",
                 swh, sbh, v->min_stones, v->name, v->min_stones);
        return MMTB_ERR_INVALID;
    }
    if (v->first_mill_removal && (swh > 0 || sbh > 0) && swh != sbh && swh != sbh + 1) {
        /* the first-mill owner is only the board's when nothing moves
         * while stones are placed: White must place last or with Black */
        snprintf(err, errlen,
                 "start %d,%d: in %s (first-mill-removal) a side would slide while the other "
                 "still places; give White as many stones as Black, or one more",
                 swh, sbh, v->name);
        return MMTB_ERR_INVALID;
    }
    return MMTB_OK;
}

/* The sectors of the game (r->list, r->n) and those this run needs:
 * all, or those --sectors names with what they need and their partners. */
static int list_sectors(struct run *r, int cap, char *err, size_t errlen)
{
    const struct mmtb_solve_opts *o = r->o;
    r->n = mmtb_sector_list(r->v, r->swh, r->sbh, o->max_stones, r->list, cap);
    if (r->n < 0) {
        snprintf(err, errlen, "cannot list the sectors of %s", r->v->name);
        return r->n;
    }
    int n = r->n;
    if (o->n_only <= 0) {
        for (int i = 0; i < n; i++)
            r->need[i] = true;
        return MMTB_OK;
    }
    for (int i = 0; i < o->n_only; i++) {
        bool found = false;
        for (int k = 0; k < n; k++)
            found = found || mmtb_sector_eq(r->list[k], o->only[i]);
        if (!found) {
            char name[32];
            mmtb_sector_format(o->only[i], name, sizeof name);
            snprintf(err, errlen, "sector %s is not part of this game of %s", name, r->v->name);
            return MMTB_ERR_INVALID;
        }
        mark_needed(r->v, r->list, n, r->need, o->only[i]);
    }
    /* partners are solved together */
    for (int i = 0; i < n; i++)
        if (r->need[i])
            for (int k = 0; k < n; k++)
                if (mmtb_sector_eq(r->list[k], sector_partner(r->list[i])))
                    r->need[k] = true;
    return MMTB_OK;
}

/* The index tables for the largest side of any sector, and (rank 0, not
 * --plan) the directory with its manifest. */
static int prepare(struct run *r, char *err, size_t errlen)
{
    int maxw = 0;
    for (int i = 0; i < r->n; i++) {
        int a = r->list[i].w + r->list[i].w_hand, b = r->list[i].b + r->list[i].b_hand;
        maxw = a > maxw ? a : maxw;
        maxw = b > maxw ? b : maxw;
    }
    int rc = mmtb_index_create(&r->ix, r->v, maxw);
    if (rc != MMTB_OK) {
        snprintf(err, errlen, "cannot build the index tables: %s", mmtb_strerror(rc));
        return rc;
    }
    /* rank 0 prepares the directory; the others wait for its list of
     * what is already solved (share) before they touch it */
    if (r->me != 0 || r->o->plan)
        return MMTB_OK;
    if (make_dirs(r->o->outdir) != 0) {
        snprintf(err, errlen, "%s: cannot create directory: %s", r->o->outdir, strerror(errno));
        return MMTB_ERR_IO;
    }
    return mmtb_table_write_manifest(r->o->outdir, r->v, r->list, r->n, err, errlen);
}

/* The pairs, and which of them the directory holds already (rank 0 reads
 * it and shares what it found): kept files are recorded in the manifest (a
 * kill may have come between a rename and the manifest update).  One
 * handle reads them all (recording a file changes no other sector's
 * entry). */
static int find_kept(struct run *r, char *err, size_t errlen)
{
    r->P = calloc((size_t)r->n, sizeof *r->P);
    r->pair_of = malloc((size_t)r->n * sizeof *r->pair_of);
    r->done = calloc((size_t)r->n, sizeof *r->done);
    if (!r->P || !r->pair_of || !r->done) {
        snprintf(err, errlen, "out of memory");
        return MMTB_ERR_NOMEM;
    }
    r->np = make_pairs(r->v, r->list, r->n, r->need, r->P, r->pair_of);
    struct pair *P = r->P;
    int rc = MMTB_OK;
    mmtb_tb *kept = NULL;
    if (r->me == 0 && (!r->o->outdir || mmtb_tb_open(&kept, r->o->outdir, NULL) != MMTB_OK))
        kept = NULL; /* nothing usable is kept: every pair is solved */
    for (int p = 0; r->me == 0 && p < r->np && rc == MMTB_OK; p++) {
        bool have = true;
        for (int k = 0; k < P[p].nss; k++)
            have = have && already_solved(kept, r->list[P[p].first + k], &r->all[P[p].first + k]);
        for (int k = 0; have && !r->o->plan && k < P[p].nss && rc == MMTB_OK; k++)
            rc = mmtb_table_record_file(r->o->outdir, r->v, r->list[P[p].first + k], err, errlen);
        P[p].have = have;
    }
    mmtb_tb_close(kept);
    const struct mmtb_transport *t = r->t;
    if (rc != MMTB_OK || !t)
        return rc;
    for (int p = 0; p < r->np; p++)
        r->done[p] = P[p].have;
    rc = t->share(t->ctx, r->done, (size_t)r->np * sizeof *r->done, err, errlen);
    if (rc == MMTB_OK)
        rc = t->share(t->ctx, r->all, (size_t)r->n * sizeof *r->all, err, errlen);
    for (int p = 0; rc == MMTB_OK && p < r->np; p++)
        P[p].have = r->done[p];
    return rc;
}

/* Who solves which pair: the split ones (all ranks, on rank 0's base, so
 * that every rank plans the same), then each rank's share. */
static int share_pairs(struct run *r, char *err, size_t errlen)
{
    const struct mmtb_transport *t = r->t;
    if (t && t->nranks > 1 && t->exchange) {
        uint64_t base = rss_bytes();
        int rc = t->share(t->ctx, &base, sizeof base, err, errlen);
        if (rc != MMTB_OK)
            return rc;
        plan_splits(r->o, r->v, r->ix, r->list, r->P, r->np, t, base);
    }
    plan_owners(r->ix, r->list, r->P, r->np, t ? t->nranks : 1);
    return MMTB_OK;
}

/* --verify-behind (rank 0 alone: not with a transport): the pairs as
 * behind.c reads them, and which sectors are packed already. */
static int start_behind(struct run *r, char *err, size_t errlen)
{
    const struct mmtb_solve_opts *o = r->o;
    if (o->pack_behind && !o->verify_behind) {
        snprintf(err, errlen, "--pack-behind needs --verify-behind LEDGER (a sector is packed "
                              "only once it is verified: packed tables cannot be verified)");
        return MMTB_ERR_INVALID;
    }
    if (!o->verify_behind || o->plan)
        return MMTB_OK;
    if (r->t) {
        snprintf(err, errlen, "--verify-behind is not available with mmtb-gen-mpi; verify the "
                              "tables afterwards with `mmtb-gen verify --ledger`");
        return MMTB_ERR_UNSUPPORTED;
    }
    r->bp = calloc((size_t)(r->np > 0 ? r->np : 1), sizeof *r->bp);
    if (!r->bp) {
        snprintf(err, errlen, "out of memory");
        return MMTB_ERR_NOMEM;
    }
    for (int p = 0; p < r->np; p++)
        r->bp[p] = (struct behind_pair){r->P[p].first, r->P[p].nss, r->P[p].ndeps, r->P[p].deps};
    return behind_open(&r->bh, o->outdir, o->verify_behind, o->pack_behind, r->list, r->bp,
                       r->np, o->threads, r->quiet, err, errlen);
}

/* What the run's progress and summary count as it goes. */
struct tally {
    struct share sh;
    uint64_t solved_positions;
    double peak;
    int left; /* pairs solved by nobody yet, as far as this rank knows */
};

/* Solve pair p (this rank's, or a split one) once the pairs it reads are
 * written, and tell the others. */
static int solve_one(struct run *r, int p, struct progress *prog, struct tally *ty, char *err,
                     size_t errlen)
{
    const struct mmtb_solve_opts *o = r->o;
    const struct mmtb_transport *t = r->t;
    struct pair *P = r->P;
    int rc;
    /* the pairs it reads must be written: take the others' news until they are */
    for (int d = 0; d < P[p].ndeps; d++)
        while (!r->done[P[p].deps[d]]) {
            struct pair_done msg;
            rc = t->next(t->ctx, &msg, sizeof msg, err, errlen);
            if (rc != MMTB_OK)
                return rc;
            took_news(o, r->rep, r->quiet, r->ix, r->list, r->all, P, r->np, r->done, &msg,
                      &ty->left, &ty->solved_positions, &ty->peak, &ty->sh);
        }
    double t0 = progress_now();
    char tag[64], nm[32];
    mmtb_sector_format(r->list[P[p].first], nm, sizeof nm);
    snprintf(tag, sizeof tag, "[%d/%d] %s", P[p].ord, r->todo, nm);
    struct pair_mem pm; /* its buckets on disk when it would not fit with them */
    pair_need(o, r->v, r->ix, r->list, &P[p], P[p].split ? t->nranks : 1, rss_bytes(), &pm);
    rc = pair_solve(o, r->v, r->ix, &r->list[P[p].first], P[p].nss, P[p].split, pm.spill,
                    &r->all[P[p].first], prog, tag, err, errlen);
    progress_clear(prog);
    if (rc != MMTB_OK)
        return rc;
    struct pair_done msg;
    memset(&msg, 0, sizeof msg);
    msg.pair = p;
    msg.rank = r->me;
    msg.secs = progress_now() - t0;
    msg.peak_rss_mib = peak_rss_mib();
    for (int k = 0; k < P[p].nss; k++)
        msg.st[k] = r->all[P[p].first + k];
    if (P[p].split) {
        /* every rank solved it: nothing to announce; the largest part's peak */
        uint64_t kib = (uint64_t)(msg.peak_rss_mib * 1024);
        rc = t->reduce(t->ctx, &kib, 1, true, err, errlen);
        if (rc != MMTB_OK)
            return rc;
        msg.peak_rss_mib = (double)kib / 1024;
    } else if (t && t->nranks > 1) {
        rc = t->announce(t->ctx, &msg, sizeof msg, err, errlen);
        if (rc != MMTB_OK)
            return rc;
    }
    took_news(o, r->rep, r->quiet, r->ix, r->list, r->all, P, r->np, r->done, &msg, &ty->left,
              &ty->solved_positions, &ty->peak, &ty->sh);
    return MMTB_OK;
}

/* The run stops as --stop-after asked: MMTB_SOLVE_STOPPED, with what is
 * left in err. */
static int stopped(const struct run *r, const struct tally *ty, char *err, size_t errlen)
{
    double s = r->o->stop_after;
    snprintf(err, errlen,
             "stopped as asked (--stop-after %.*f %s): %d of %d pairs left, the one under way "
             "saved at its level unless checkpoints are off; the same command goes on",
             s < 600 ? 1 : 0, s < 600 ? s : s / 60, s < 600 ? "s" : "min", ty->left, r->np);
    return MMTB_SOLVE_STOPPED;
}

/* Every pair in order: those already solved reported, this rank's solved,
 * then the others' news until every rank has heard of every pair. */
static int solve_pairs(struct run *r, struct tally *ty, char *err, size_t errlen)
{
    const struct mmtb_solve_opts *o = r->o;
    struct pair *P = r->P;
    struct progress prog;
    progress_init(&prog, r->quiet);
    if (!r->quiet && !o->json)
        fprintf(r->rep, "%-10s %14s %14s %14s %14s %5s %5s %9s\n", "sector", "canonical", "wins",
                "draws", "losses", "maxW", "maxL", "time");
    ty->sh = (struct share){0, 0, 0, progress_now()};
    for (int p = 0; p < r->np && !r->quiet && o->verbose; p++) {
        uint64_t ps = pair_slots(r->ix, r->list, &P[p]);
        ty->sh.total += ps;
        ty->sh.kept += P[p].have ? ps : 0;
    }
    ty->sh.done = ty->sh.kept;
    ty->solved_positions = 0;
    ty->peak = peak_rss_mib();
    ty->left = 0;
    for (int p = 0; p < r->np; p++) {
        r->done[p] = P[p].have;
        ty->left += !P[p].have;
    }
    uint64_t bad = 0;
    int rc = r->bh ? behind_step(r->bh, r->done, o->mismatches ? o->mismatches : &bad, err,
                                 errlen)
                   : MMTB_OK;
    if (rc != MMTB_OK)
        return rc;
    for (int p = 0; p < r->np; p++) {
        if (P[p].have) {
            if (!r->quiet && !o->json)
                print_pair(r->rep, r->list, r->all, &P[p], 0, "(already solved)");
            continue;
        }
        if (P[p].owner != r->me && !P[p].split)
            continue;
        if (ckpt_stopping())
            return stopped(r, ty, err, errlen);
        rc = solve_one(r, p, &prog, ty, err, errlen);
        if (rc == MMTB_SOLVE_STOPPED)
            return stopped(r, ty, err, errlen);
        /* (past the stop, the verify behind is left to the rerun) */
        if (rc == MMTB_OK && r->bh && !ckpt_stopping())
            rc = behind_step(r->bh, r->done, o->mismatches ? o->mismatches : &bad, err, errlen);
        if (rc != MMTB_OK)
            return rc;
    }
    /* the others' last pairs: every rank hears of every pair before it ends */
    while (ty->left > 0) {
        struct pair_done msg;
        rc = r->t->next(r->t->ctx, &msg, sizeof msg, err, errlen);
        if (rc != MMTB_OK)
            return rc;
        took_news(o, r->rep, r->quiet, r->ix, r->list, r->all, P, r->np, r->done, &msg,
                  &ty->left, &ty->solved_positions, &ty->peak, &ty->sh);
    }
    return MMTB_OK;
}

/* The summary: the sectors solved, their values, the time, the rate and
 * the peak (rank 0; as JSON with --json). */
static void report_total(const struct run *r, struct tally *ty)
{
    const struct mmtb_solve_opts *o = r->o;
    const struct mmtb_transport *t = r->t;
    FILE *rep = r->rep;
    double total = progress_now() - ty->sh.t0;
    double peak = peak_rss_mib() > ty->peak ? peak_rss_mib() : ty->peak;
    uint64_t can = 0, w = 0, d = 0, l = 0;
    for (int i = 0; i < r->n; i++)
        if (r->need[i]) {
            can += r->all[i].canonical;
            w += r->all[i].wins;
            d += r->all[i].draws;
            l += r->all[i].losses;
        }
    int nthreads = omp_get_max_threads();
    int nranks = t ? t->nranks : 1;
    double rate = total > 0 ? (double)ty->solved_positions / total : 0;
    if (r->me != 0)
        return; /* rank 0 reports */
    int nver = 0, npack = 0;
    behind_counts(r->bh, &nver, &npack);
    if (o->json) {
        char ranks[32] = "", behind[96] = "";
        if (t)
            snprintf(ranks, sizeof ranks, ",\"ranks\":%d", nranks);
        if (r->bh)
            snprintf(behind, sizeof behind, ",\"verified_behind\":%d,\"packed_behind\":%d",
                     nver, npack);
        fprintf(rep,
                "{\"variant\":\"%s\",\"sectors\":%d,\"canonical\":%llu,\"wins\":%llu,"
                "\"draws\":%llu,\"losses\":%llu,\"seconds\":%.3f,\"slots_solved\":%llu,"
                "\"slots_per_second\":%.0f,\"threads\":%d%s,\"peak_rss_mib\":%.1f%s}\n",
                r->v->name, r->todo, (unsigned long long)can, (unsigned long long)w,
                (unsigned long long)d, (unsigned long long)l, total,
                (unsigned long long)ty->solved_positions, rate, nthreads, ranks, peak, behind);
    } else if (!o->quiet) {
        char ranks[48] = "";
        if (t)
            snprintf(ranks, sizeof ranks, " on each of %d ranks", nranks);
        fprintf(rep,
                "total: %d sectors, %llu canonical positions (%llu wins, %llu draws, %llu "
                "losses)\n%.2f s, %.2f M slots/s (%.2f M/s per thread, %d threads%s), peak RSS "
                "%.0f MiB%s\n",
                r->todo, (unsigned long long)can, (unsigned long long)w, (unsigned long long)d,
                (unsigned long long)l, total, rate / 1e6, rate / 1e6 / nthreads / nranks,
                nthreads, ranks, peak, t ? " (the largest rank)" : "");
        if (r->bh)
            fprintf(rep, "verified behind the solve: %d sectors clean (ledger %s)%s", nver,
                    o->verify_behind, o->pack_behind ? "" : "\n");
        if (r->bh && o->pack_behind)
            fprintf(rep, "; packed %d\n", npack);
    }
}

int mmtb_solve(const struct mmtb_solve_opts *o, char *err, size_t errlen)
{
    struct run r;
    memset(&r, 0, sizeof r);
    r.o = o;
    r.rep = o->report ? o->report : stdout;
    r.t = o->transport;
    r.me = r.t ? r.t->rank : 0;
    r.quiet = o->quiet || r.me != 0; /* rank 0 reports */
    if (o->stop_after > 0 && r.t) {
        snprintf(err, errlen, "--stop-after is not available with mmtb-gen-mpi; stop the run "
                              "with `kill -USR1` and then a kill (checkpoints)");
        return MMTB_ERR_UNSUPPORTED;
    }
    ckpt_stop_at(o->stop_after > 0 && !o->plan ? progress_now() + o->stop_after : 0);
    if (o->split_slots && !(r.t && r.t->exchange)) {
        snprintf(err, errlen, "--split needs mmtb-gen-mpi (ranks to split pairs among)");
        return MMTB_ERR_INVALID;
    }
    int rc = mmtb_variant_load(&r.v, o->variant, err, errlen);
    if (rc != MMTB_OK)
        return rc;
    if (o->threads > 0)
        omp_set_num_threads(o->threads);
    const int cap = 4096;
    r.list = malloc(cap * sizeof *r.list);
    r.need = calloc(cap, sizeof *r.need);
    r.all = calloc(cap, sizeof *r.all);
    if (!r.list || !r.need || !r.all) {
        rc = MMTB_ERR_NOMEM;
        snprintf(err, errlen, "out of memory");
    }
    if (rc == MMTB_OK)
        rc = check_start(&r, err, errlen);
    if (rc == MMTB_OK)
        rc = list_sectors(&r, cap, err, errlen);
    if (rc == MMTB_OK)
        rc = prepare(&r, err, errlen);
    if (rc == MMTB_OK)
        rc = find_kept(&r, err, errlen);
    if (rc == MMTB_OK)
        rc = share_pairs(&r, err, errlen);
    if (rc == MMTB_OK)
        rc = start_behind(&r, err, errlen);
    if (rc == MMTB_OK && o->plan && r.me == 0) /* (rank 0 prints the plan) */
        rc = print_plan(o, r.v, r.ix, r.list, r.P, r.np, r.swh, r.sbh, err, errlen);
    else if (rc == MMTB_OK && (o->memory_limit || o->verbose))
        rc = check_memory(o, r.v, r.ix, r.list, r.P, r.np, r.me, err, errlen);
    if (rc == MMTB_OK && !o->plan) {
        for (int i = 0; i < r.n; i++)
            r.todo += r.need[i];
        struct tally ty;
        rc = solve_pairs(&r, &ty, err, errlen);
        if (rc == MMTB_OK)
            report_total(&r, &ty);
    }
    mmtb_index_free(r.ix);
    mmtb_variant_free(r.v);
    free(r.list);
    free(r.need);
    free(r.all);
    free(r.P);
    free(r.pair_of);
    free(r.done);
    behind_close(r.bh);
    free(r.bp);
    return rc;
}
