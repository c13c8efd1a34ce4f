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
#include "plan.h"

#include <errno.h>
#include <omp.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
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

/* True when the directory already holds a valid table of sector s. */
static bool already_solved(const mmtb_tb *tb, struct mmtb_sector s, struct mmtb_sector_stats *st)
{
    return tb && mmtb_tb_sector_stats(tb, s, st) == MMTB_OK &&
           mmtb_tb_verify_sector(tb, s, NULL, 0) == MMTB_OK;
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

static uint64_t pair_slots(const mmtb_index *ix, const struct mmtb_sector *list,
                           const struct pair *q)
{
    uint64_t n = 0;
    for (int k = 0; k < q->nss; k++)
        n += mmtb_index_slots(ix, list[q->first + k]);
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
    sh->done += pair_slots(ix, list, &P[p]);
    if (!quiet && o->verbose)
        progress_share_line("slots", sh->done, sh->kept, sh->total, sh->t0);
}

/* What pair q needs in memory (pair_memory); on a
 * pair split over nsplit ranks, what one rank needs: its part of the
 * states (whole partitions, and the huge pages at its ends) and the
 * exchange buffers.  Returns MMTB_OK or a status. */
static int pair_need(const struct mmtb_solve_opts *o, const struct mmtb_variant *v,
                     const mmtb_index *ix, const struct mmtb_sector *list, const struct pair *q,
                     int nsplit, struct pair_mem *pm)
{
    pair_memory(o, v, ix, &list[q->first], q->nss, nsplit, pm);
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
        pair_need(o, v, ix, list, &P[p], 1, &whole);
        pair_need(o, v, ix, list, &P[p], t->nranks, &part);
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
        int mrc = pair_need(o, v, ix, list, &P[p], nsplit, &pm);
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
        if (o->verbose)
            fprintf(stderr,
                    "%s: plan %.1f MiB (state %.1f, solved sectors %.1f, work %.1f, base %.1f), "
                    "%llu slots%s\n",
                    names, need / 1048576.0, pm.state / 1048576.0, pm.deps / 1048576.0,
                    pm.work / 1048576.0, base / 1048576.0, (unsigned long long)pm.slots, part);
        if (rc == MMTB_OK && o->memory_limit && need > o->memory_limit) {
            snprintf(err, errlen,
                     "sectors %s need %llu bytes (%.2f GiB: %llu of states, %llu of solved "
                     "sectors read, %llu of working buffers for %d threads, %llu held "
                     "already), over the memory limit of %llu bytes (%.2f GiB)",
                     names, (unsigned long long)need, need / 1073741824.0,
                     (unsigned long long)pm.state, (unsigned long long)pm.deps,
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
    for (int p = 0; p < np; p++) {
        rows[p].nss = P[p].nss;
        rows[p].have = P[p].have;
        for (int k = 0; k < P[p].nss; k++)
            rows[p].s[k] = list[P[p].first + k];
        pair_need(o, v, ix, list, &P[p], 1, &rows[p].pm);
    }
    int over = plan_print(o->report ? o->report : stdout, o->json, v, swh, sbh, rows, np,
                          rss_bytes(), o->memory_limit);
    free(rows);
    if (over) {
        snprintf(err, errlen, "%d pairs need more than the memory limit of %llu bytes", over,
                 (unsigned long long)o->memory_limit);
        return MMTB_ERR_NOMEM;
    }
    return MMTB_OK;
}

int mmtb_solve(const struct mmtb_solve_opts *o, char *err, size_t errlen)
{
    struct mmtb_variant *v = NULL;
    mmtb_index *ix = NULL;
    struct mmtb_sector *list = NULL;
    bool *need = NULL;
    struct mmtb_sector_stats *all = NULL;
    struct pair *P = NULL;
    int *pair_of = NULL;
    bool *done = NULL;
    FILE *rep = o->report ? o->report : stdout;
    const struct mmtb_transport *t = o->transport;
    int me = t ? t->rank : 0;
    bool quiet = o->quiet || me != 0; /* rank 0 reports */
    if (o->split_slots && !(t && t->exchange)) {
        snprintf(err, errlen, "--split needs mmtb-gen-mpi (ranks to split pairs among)");
        return MMTB_ERR_INVALID;
    }
    int rc = mmtb_variant_load(&v, o->variant, err, errlen);
    if (rc != MMTB_OK)
        return rc;
    if (o->threads > 0)
        omp_set_num_threads(o->threads);

    int cap = 4096;
    list = malloc(cap * sizeof *list);
    need = calloc(cap, sizeof *need);
    all = calloc(cap, sizeof *all);
    if (!list || !need || !all) {
        rc = MMTB_ERR_NOMEM;
        snprintf(err, errlen, "out of memory");
        goto out;
    }
    int swh = o->start_w_hand < 0 ? v->stones : o->start_w_hand;
    int sbh = o->start_b_hand < 0 ? v->stones : o->start_b_hand;
    if ((swh > 0 || sbh > 0) && (swh < v->min_stones || sbh < v->min_stones)) {
        /* the empty board with fewer stones than min-stones for a side is a
         * game already lost before the first move: nothing to solve */
        snprintf(err, errlen,
                 "start %d,%d: a side with fewer than %d stones (min-stones of %s) has lost "
                 "before the first move; give each side at least %d",
                 swh, sbh, v->min_stones, v->name, v->min_stones);
        rc = MMTB_ERR_INVALID;
        goto out;
    }
    if (v->first_mill_removal && (swh > 0 || sbh > 0) && swh != sbh && swh != sbh + 1) {
        /* the first-mill owner is only the board's when nothing moves
         * while stones are placed: White must place last or with Black */
        snprintf(err, errlen,
                 "start %d,%d: in %s (first-mill-removal) a side would slide while the other "
                 "still places; give White as many stones as Black, or one more",
                 swh, sbh, v->name);
        rc = MMTB_ERR_INVALID;
        goto out;
    }
    int n = mmtb_sector_list(v, swh, sbh, o->max_stones, list, cap);
    if (n < 0) {
        rc = n;
        snprintf(err, errlen, "cannot list the sectors of %s", v->name);
        goto out;
    }
    if (o->n_only > 0) {
        for (int i = 0; i < o->n_only; i++) {
            bool found = false;
            for (int k = 0; k < n; k++)
                found = found || mmtb_sector_eq(list[k], o->only[i]);
            if (!found) {
                char name[32];
                mmtb_sector_format(o->only[i], name, sizeof name);
                snprintf(err, errlen, "sector %s is not part of this game of %s", name, v->name);
                rc = MMTB_ERR_INVALID;
                goto out;
            }
            mark_needed(v, list, n, need, o->only[i]);
        }
        /* partners are solved together */
        for (int i = 0; i < n; i++)
            if (need[i])
                for (int k = 0; k < n; k++)
                    if (mmtb_sector_eq(list[k], sector_partner(list[i])))
                        need[k] = true;
    } else {
        for (int i = 0; i < n; i++)
            need[i] = true;
    }

    int maxw = 0;
    for (int i = 0; i < n; i++) {
        int a = list[i].w + list[i].w_hand, b = list[i].b + list[i].b_hand;
        maxw = a > maxw ? a : maxw;
        maxw = b > maxw ? b : maxw;
    }
    rc = mmtb_index_create(&ix, v, maxw);
    if (rc != MMTB_OK) {
        snprintf(err, errlen, "cannot build the index tables: %s", mmtb_strerror(rc));
        goto out;
    }
    /* rank 0 prepares the directory; the others wait for its list of
     * what is already solved (share) before they touch it */
    if (me == 0 && !o->plan && make_dirs(o->outdir) != 0) {
        snprintf(err, errlen, "%s: cannot create directory: %s", o->outdir, strerror(errno));
        rc = MMTB_ERR_IO;
        goto out;
    }
    if (me == 0 && !o->plan)
        rc = mmtb_table_write_manifest(o->outdir, v, list, n, err, errlen);
    if (rc != MMTB_OK)
        goto out;

    P = calloc((size_t)n, sizeof *P);
    pair_of = malloc((size_t)n * sizeof *pair_of);
    done = calloc((size_t)n, sizeof *done);
    if (!P || !pair_of || !done) {
        rc = MMTB_ERR_NOMEM;
        snprintf(err, errlen, "out of memory");
        goto out;
    }
    int np = make_pairs(v, list, n, need, P, pair_of);
    /* kept files: make sure the manifest records them (a kill may have
     * come between a rename and the manifest update).  One handle reads
     * them all (recording a file changes no other sector's entry). */
    mmtb_tb *kept = NULL;
    if (me == 0 && (!o->outdir || mmtb_tb_open(&kept, o->outdir, NULL) != MMTB_OK))
        kept = NULL; /* nothing usable is kept: every pair is solved */
    for (int p = 0; me == 0 && p < np; p++) {
        bool have = true;
        for (int k = 0; k < P[p].nss; k++)
            have = have && already_solved(kept, list[P[p].first + k], &all[P[p].first + k]);
        for (int k = 0; have && !o->plan && k < P[p].nss && rc == MMTB_OK; k++)
            rc = mmtb_table_record_file(o->outdir, v, list[P[p].first + k], err, errlen);
        if (rc != MMTB_OK) {
            mmtb_tb_close(kept);
            goto out;
        }
        P[p].have = have;
    }
    mmtb_tb_close(kept);
    if (t) {
        for (int p = 0; p < np; p++)
            done[p] = P[p].have;
        rc = t->share(t->ctx, done, (size_t)np * sizeof *done, err, errlen);
        if (rc == MMTB_OK)
            rc = t->share(t->ctx, all, (size_t)n * sizeof *all, err, errlen);
        if (rc != MMTB_OK)
            goto out;
        for (int p = 0; p < np; p++)
            P[p].have = done[p];
    }
    if (t && t->nranks > 1 && t->exchange) {
        /* rank 0's base, so that every rank plans the same splits */
        uint64_t base = rss_bytes();
        rc = t->share(t->ctx, &base, sizeof base, err, errlen);
        if (rc != MMTB_OK)
            goto out;
        plan_splits(o, v, ix, list, P, np, t, base);
    }
    plan_owners(ix, list, P, np, t ? t->nranks : 1);
    if (o->plan) {
        rc = print_plan(o, v, ix, list, P, np, swh, sbh, err, errlen);
        goto out;
    }
    if (o->memory_limit || o->verbose) {
        rc = check_memory(o, v, ix, list, P, np, me, err, errlen);
        if (rc != MMTB_OK)
            goto out;
    }

    struct progress prog;
    progress_init(&prog, quiet);
    int todo = 0;
    for (int i = 0; i < n; i++)
        todo += need[i];
    if (!quiet && !o->json)
        fprintf(rep, "%-10s %14s %14s %14s %14s %5s %5s %9s\n", "sector", "canonical", "wins",
                "draws", "losses", "maxW", "maxL", "time");
    double t_all = progress_now();
    struct share sh = {0, 0, 0, t_all};
    for (int p = 0; p < np; p++) {
        uint64_t ps = pair_slots(ix, list, &P[p]);
        sh.total += ps;
        sh.kept += P[p].have ? ps : 0;
    }
    sh.done = sh.kept;
    uint64_t solved_positions = 0;
    double peak = peak_rss_mib();
    int left = 0; /* pairs solved by nobody yet, as far as this rank knows */
    for (int p = 0; p < np; p++) {
        done[p] = P[p].have;
        left += !P[p].have;
    }
    for (int p = 0; p < np; p++) {
        if (P[p].have) {
            if (!quiet && !o->json)
                print_pair(rep, list, all, &P[p], 0, "(already solved)");
            continue;
        }
        if (P[p].owner != me && !P[p].split)
            continue;
        /* the pairs it reads must be written: take the others' news until they are */
        for (int d = 0; d < P[p].ndeps; d++)
            while (!done[P[p].deps[d]]) {
                struct pair_done msg;
                rc = t->next(t->ctx, &msg, sizeof msg, err, errlen);
                if (rc != MMTB_OK)
                    goto out;
                took_news(o, rep, quiet, ix, list, all, P, np, done, &msg, &left,
                          &solved_positions, &peak, &sh);
            }
        double t0 = progress_now();
        char tag[64], nm[32];
        mmtb_sector_format(list[P[p].first], nm, sizeof nm);
        snprintf(tag, sizeof tag, "[%d/%d] %s", P[p].ord, todo, nm);
        rc = pair_solve(o, v, ix, &list[P[p].first], P[p].nss, P[p].split, &all[P[p].first],
                        &prog, tag, err, errlen);
        progress_clear(&prog);
        if (rc != MMTB_OK)
            goto out;
        struct pair_done msg;
        memset(&msg, 0, sizeof msg);
        msg.pair = p;
        msg.rank = me;
        msg.secs = progress_now() - t0;
        msg.peak_rss_mib = peak_rss_mib();
        for (int k = 0; k < P[p].nss; k++)
            msg.st[k] = all[P[p].first + k];
        if (P[p].split) {
            /* every rank solved it: nothing to announce; the largest part's peak */
            uint64_t kib = (uint64_t)(msg.peak_rss_mib * 1024);
            rc = t->reduce(t->ctx, &kib, 1, true, err, errlen);
            if (rc != MMTB_OK)
                goto out;
            msg.peak_rss_mib = (double)kib / 1024;
        } else if (t && t->nranks > 1) {
            rc = t->announce(t->ctx, &msg, sizeof msg, err, errlen);
            if (rc != MMTB_OK)
                goto out;
        }
        took_news(o, rep, quiet, ix, list, all, P, np, done, &msg, &left, &solved_positions,
                  &peak, &sh);
    }
    /* the others' last pairs: every rank hears of every pair before it ends */
    while (left > 0) {
        struct pair_done msg;
        rc = t->next(t->ctx, &msg, sizeof msg, err, errlen);
        if (rc != MMTB_OK)
            goto out;
        took_news(o, rep, quiet, ix, list, all, P, np, done, &msg, &left, &solved_positions,
                  &peak, &sh);
    }
    double total = progress_now() - t_all;
    peak = peak_rss_mib() > peak ? peak_rss_mib() : peak;
    uint64_t can = 0, w = 0, d = 0, l = 0;
    for (int i = 0; i < n; i++)
        if (need[i]) {
            can += all[i].canonical;
            w += all[i].wins;
            d += all[i].draws;
            l += all[i].losses;
        }
    int nthreads = omp_get_max_threads();
    int nranks = t ? t->nranks : 1;
    double rate = total > 0 ? (double)solved_positions / total : 0;
    if (me != 0) {
        /* rank 0 reports */
    } else if (o->json) {
        char ranks[32] = "";
        if (t)
            snprintf(ranks, sizeof ranks, ",\"ranks\":%d", nranks);
        fprintf(rep,
                "{\"variant\":\"%s\",\"sectors\":%d,\"canonical\":%llu,\"wins\":%llu,"
                "\"draws\":%llu,\"losses\":%llu,\"seconds\":%.3f,\"slots_solved\":%llu,"
                "\"slots_per_second\":%.0f,\"threads\":%d%s,\"peak_rss_mib\":%.1f}\n",
                v->name, todo, (unsigned long long)can, (unsigned long long)w,
                (unsigned long long)d, (unsigned long long)l, total,
                (unsigned long long)solved_positions, rate, nthreads, ranks, peak);
    } else if (!o->quiet) {
        char ranks[48] = "";
        if (t)
            snprintf(ranks, sizeof ranks, " on each of %d ranks", nranks);
        fprintf(rep,
                "total: %d sectors, %llu canonical positions (%llu wins, %llu draws, %llu "
                "losses)\n%.2f s, %.2f M slots/s (%.2f M/s per thread, %d threads%s), peak RSS "
                "%.0f MiB%s\n",
                todo, (unsigned long long)can, (unsigned long long)w, (unsigned long long)d,
                (unsigned long long)l, total, rate / 1e6, rate / 1e6 / nthreads / nranks,
                nthreads, ranks, peak, t ? " (the largest rank)" : "");
    }
    rc = MMTB_OK;
out:
    mmtb_index_free(ix);
    mmtb_variant_free(v);
    free(list);
    free(need);
    free(all);
    free(P);
    free(pair_of);
    free(done);
    return rc;
}
