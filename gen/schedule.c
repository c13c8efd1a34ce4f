/*
 * schedule.c - mmtb_solve: the sectors of the game in dependency order,
 * those the run needs (--sectors and what they lead to), the ones already
 * solved in the directory (kept: a rerun resumes), the pairs handed one by
 * one to pair_solve (pair.c), the per-sector lines and the summary.  Knows
 * nothing of how a pair is solved.
 */
#include "job.h"

#include <errno.h>
#include <omp.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include "mmtb.h"
#include "tablewrite.h"

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
        if (!sector_eq(list[i], s))
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
static bool already_solved(const char *dir, struct mmtb_sector s, struct mmtb_sector_stats *st)
{
    mmtb_tb *tb = NULL;
    if (mmtb_tb_open(&tb, dir, NULL) != MMTB_OK)
        return false;
    bool ok = mmtb_tb_sector_stats(tb, s, st) == MMTB_OK &&
              mmtb_tb_verify_sector(tb, s, NULL, 0) == MMTB_OK;
    mmtb_tb_close(tb);
    return ok;
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

int mmtb_solve(const struct mmtb_solve_opts *o, char *err, size_t errlen)
{
    struct mmtb_variant *v = NULL;
    mmtb_index *ix = NULL;
    struct mmtb_sector *list = NULL;
    bool *need = NULL;
    struct mmtb_sector_stats *all = NULL;
    FILE *rep = o->report ? o->report : stdout;
    int rc = mmtb_variant_load(&v, o->variant, err, errlen);
    if (rc != MMTB_OK)
        return rc;
    if (v->no_reclose) {
        snprintf(err, errlen,
                 "variant %s: the no-reclose rule needs per-position history the sector "
                 "tables do not hold; it cannot be solved",
                 v->name);
        rc = MMTB_ERR_UNSUPPORTED;
        goto out;
    }
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
                found = found || sector_eq(list[k], o->only[i]);
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
                    if (sector_eq(list[k], sector_partner(list[i])))
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
    if (make_dirs(o->outdir) != 0) {
        snprintf(err, errlen, "%s: cannot create directory: %s", o->outdir, strerror(errno));
        rc = MMTB_ERR_IO;
        goto out;
    }
    rc = mmtb_table_write_manifest(o->outdir, v, list, n, err, errlen);
    if (rc != MMTB_OK)
        goto out;

    struct progress prog;
    progress_init(&prog, o->quiet);
    int todo = 0;
    for (int i = 0; i < n; i++)
        todo += need[i];
    if (!o->quiet && !o->json)
        fprintf(rep, "%-10s %14s %14s %14s %14s %5s %5s %9s\n", "sector", "canonical", "wins",
                "draws", "losses", "maxW", "maxL", "time");
    double t_all = progress_now();
    uint64_t solved_positions = 0;
    int done = 0;
    for (int i = 0; i < n; i++) {
        if (!need[i])
            continue;
        /* a pair: this sector and its partner if it follows */
        struct mmtb_sector ss[2] = {list[i], list[i]};
        int nss = 1;
        if (i + 1 < n && need[i + 1] && sector_eq(list[i + 1], sector_partner(list[i])) &&
            !sector_eq(list[i], list[i + 1]) && partners_linked(v, list[i]))
            ss[nss++] = list[++i];
        int first = i - (nss - 1);
        bool have = true;
        for (int k = 0; k < nss; k++)
            have = have && already_solved(o->outdir, ss[k], &all[first + k]);
        double t0 = progress_now();
        char tag[64], nm[32];
        mmtb_sector_format(ss[0], nm, sizeof nm);
        snprintf(tag, sizeof tag, "[%d/%d] %s", done + 1, todo, nm);
        /* kept files: make sure the manifest records them (a kill may have
         * come between a rename and the manifest update) */
        for (int k = 0; have && k < nss && rc == MMTB_OK; k++)
            rc = mmtb_table_record_file(o->outdir, v, ss[k], err, errlen);
        if (rc != MMTB_OK)
            goto out;
        if (!have) {
            rc = pair_solve(o, v, ix, ss, nss, &all[first], &prog, tag, err, errlen);
            progress_clear(&prog);
            if (rc != MMTB_OK)
                goto out;
        }
        double secs = progress_now() - t0;
        for (int k = 0; k < nss; k++) {
            if (!have)
                solved_positions += all[first + k].slots;
            if (!o->quiet && !o->json)
                print_stats_line(rep, ss[k], &all[first + k], secs / nss,
                                 have ? "(already solved)" : "");
        }
        done += nss;
    }
    double total = progress_now() - t_all;
    uint64_t can = 0, w = 0, d = 0, l = 0;
    for (int i = 0; i < n; i++)
        if (need[i]) {
            can += all[i].canonical;
            w += all[i].wins;
            d += all[i].draws;
            l += all[i].losses;
        }
    int nthreads = omp_get_max_threads();
    double rate = total > 0 ? (double)solved_positions / total : 0;
    if (o->json) {
        fprintf(rep,
                "{\"variant\":\"%s\",\"sectors\":%d,\"canonical\":%llu,\"wins\":%llu,"
                "\"draws\":%llu,\"losses\":%llu,\"seconds\":%.3f,\"slots_solved\":%llu,"
                "\"slots_per_second\":%.0f,\"threads\":%d,\"peak_rss_mib\":%.1f}\n",
                v->name, todo, (unsigned long long)can, (unsigned long long)w,
                (unsigned long long)d, (unsigned long long)l, total,
                (unsigned long long)solved_positions, rate, nthreads, peak_rss_mib());
    } else if (!o->quiet) {
        fprintf(rep,
                "total: %d sectors, %llu canonical positions (%llu wins, %llu draws, %llu "
                "losses)\n%.2f s, %.2f M slots/s (%.2f M/s per thread, %d threads), peak RSS "
                "%.0f MiB\n",
                todo, (unsigned long long)can, (unsigned long long)w, (unsigned long long)d,
                (unsigned long long)l, total, rate / 1e6, rate / 1e6 / nthreads, nthreads,
                peak_rss_mib());
    }
    rc = MMTB_OK;
out:
    mmtb_index_free(ix);
    mmtb_variant_free(v);
    free(list);
    free(need);
    free(all);
    return rc;
}
