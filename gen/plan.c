/*
 * plan.c - `mmtb-gen --plan`: the pairs of a run with their slots, memory
 * (pair_memory's plan), expected bytes on disk and time, and the totals,
 * as text or JSON.  The time and size are estimates from rates measured on
 * this project's 2-core machine, by kind of pair (docs/SCALING.md lists
 * the runs they come from); memory is the plan --memory checks.
 */
#include "plan.h"

#include <stdlib.h>
#include <string.h>

#include "ban_index.h"

/* Measured rates, slots a second on 2 cores, and sizes, bytes a slot on
 * disk (depths to win, unpacked): by kind of pair, for plain positions
 * (nine's whole game from scratch, 2026-11-28: movement 6.05 M; 0.362 bytes
 * a slot; with the placement init by blocks, 2026-11-29, on a machine that
 * ran the movement phase at 4.87 M: one side placing 13.6 M, both 12.9 M),
 * for positions that may
 * slide while stones are in hand (place_or_move: the rates of Lasker's
 * whole-game sittings of 2026-11-27/28 on its own pairs, with depths to
 * the next capture (movement 2.94-3.06 M, one side placing 1.92-2.40 M, both
 * 1.34-1.61 M), over 0.70, what its start 7,7 took since against then: 38 min
 * 51 s on 2026-12-01 with depths to win, `bd0f165`, on a machine 1.9 times
 * slower (bench-gen's fixed jobs with one build: nine 6,6 1.93, lasker 6,6
 * 1.89), so 20.4 min, against 29 min 9 s; the start 7,7's own largest pairs
 * ran at 5.4, 4.3 and 4.0 M there, but the rate falls with a pair's size
 * and stones in hand, and the whole game's pairs are larger; since the
 * block pass folds their placements, 2026-12-03, the placing rates over
 * what the start 7,7 took then against before by kind of pair, one side
 * placing 620 s against 723 s, both 225 s against 297 s;
 * 0.276 bytes a slot on disk), and for positions
 * with state (re-close restrictions, first-mill owner: twelve-nine's start
 * 6,6 from scratch, 2026-11-29, `cbc5bf7`: movement 2.26 M over all its
 * pairs, 2.04 M its 6-6 and 1.84 M twelve's 6-6, so 1.9 M; both placing
 * 2.99 M; 0.39 bytes a slot up to 6 v 6 with depths to win; one side
 * placing from twelve-nine's whole game, `c12f4de`'s default build, the
 * pairs 7-6-1-0 to 4-9-1-0 alone on the cores: 2.30-4.03 M, so 2.5 M;
 * these stay for Shah's first-mill owner).  The re-close rule's (twelve,
 * twelve-nine, twelve-immune) are refitted from twelve-nine's whole game,
 * sittings 1-6 of 2026-12-05, on a machine that ran twelve-nine's 6-6 at
 * 0.94 M against 2.04 M on 2026-11-29's (docs/PERFORMANCE.md, "The plan's
 * time"): its 19 movement pairs, 25.7 G slots in 30,910 s, ran at 0.51-4.4
 * M, faster the more one side outnumbers the other (fewer positions
 * decided in the levels): 0.62 M x 1.28^|w - b| gives their total and each
 * within a factor of 1.6 (least squares on the log of the rate for the
 * factor, the total for the 0.62); one side placing 10.1 G in 7,438 s,
 * 1.36 M.
 * Plain positions on a board with diagonals (more than three neighbours a
 * point on average: Morabaraba, nine-diag, three-diag) have more moves and
 * fewer draws, so more positions for the levels to decide: Morabaraba's
 * whole game with depths to win, 2026-12-03, `c721abc`, its pairs solved
 * with nothing else on the cores: movement 4.17 M slots/s (2.75 G slots,
 * 8-7 among them), one side placing 11.6 M (2.09 G), both 12.0 M (2.59 G);
 * on disk 0.373 bytes a slot, its whole game (43,190,229,348 bytes; 0.25
 * over its first 9.0 G slots, mostly small sectors, was too little). */
struct rate {
    double slots_per_s[PLAN_KINDS];
    double bytes_per_slot;
    double gap_speedup; /* the movement rate's factor per stone of |w - b| */
};
static const struct rate RATE_PLAIN = {{6.0e6, 13.6e6, 12.9e6}, 0.362, 1.0};
static const struct rate RATE_PLAIN_DIAG = {{4.2e6, 11.6e6, 12.0e6}, 0.373, 1.0};
static const struct rate RATE_PLACE_OR_MOVE = {{4.3e6, 3.5e6, 2.8e6}, 0.28, 1.0};
static const struct rate RATE_STATE = {{1.9e6, 2.5e6, 3.0e6}, 0.39, 1.0};
static const struct rate RATE_RECLOSE = {{0.62e6, 1.36e6, 3.0e6}, 0.39, 1.28};

static enum plan_kind kind_of(struct mmtb_sector s)
{
    int in_hand = (s.w_hand > 0) + (s.b_hand > 0);
    return in_hand == 0 ? PLAN_MOVEMENT : in_hand == 1 ? PLAN_PLACE_ONE : PLAN_PLACE_BOTH;
}

static const struct rate *rate_of(const struct mmtb_variant *v, struct mmtb_sector s)
{
    if (mmtb_ban_index_applies(v, s))
        return v->no_reclose ? &RATE_RECLOSE : &RATE_STATE;
    if (v->place_or_move)
        return &RATE_PLACE_OR_MOVE;
    return mmtb_variant_dense(v) ? &RATE_PLAIN_DIAG : &RATE_PLAIN;
}

static const char *const kind_name[PLAN_KINDS] = {"movement", "one side placing",
                                                  "both placing"};

/* The estimates of one row. */
struct est {
    uint64_t memory, disk;
    double seconds;
    enum plan_kind kind;
    bool state;
};

static struct est estimate(const struct mmtb_variant *v, const struct plan_row *r, uint64_t base)
{
    const struct rate *rt = rate_of(v, r->s[0]);
    struct est e;
    e.kind = kind_of(r->s[0]);
    e.state = mmtb_ban_index_applies(v, r->s[0]);
    e.memory = base + r->pm.total;
    e.disk = (uint64_t)((double)r->pm.slots * rt->bytes_per_slot);
    /* the re-close rule's sectors with both hands full go the plain way
     * (sectors_plain_init): twelve-nine's 7-5-1-1, 133.9 M slots, in 11.8 s
     * of phases alone on the cores (2026-12-05), as fast as Morabaraba's */
    if (r->pm.plain_init)
        rt = mmtb_variant_dense(v) ? &RATE_PLAIN_DIAG : &RATE_PLAIN;
    double rate = rt->slots_per_s[e.kind];
    for (int g = e.kind == PLAN_MOVEMENT ? abs(r->s[0].w - r->s[0].b) : 0; g > 0; g--)
        rate *= rt->gap_speedup;
    e.seconds = (double)r->pm.slots / rate;
    return e;
}

static void names(const struct plan_row *r, char *buf, size_t len, const char *sep)
{
    char b[32];
    mmtb_sector_format(r->s[0], buf, len);
    if (r->nss == 2) {
        mmtb_sector_format(r->s[1], b, sizeof b);
        snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", sep, b);
    }
}

static void human_time(double s, char *buf, size_t len)
{
    if (s < 60)
        snprintf(buf, len, "%.1f s", s);
    else if (s < 3600)
        snprintf(buf, len, "%.1f min", s / 60);
    else
        snprintf(buf, len, "%.1f h", s / 3600);
}

static void print_text(FILE *out, const struct mmtb_variant *v, int sw, int sb,
                       const struct plan_row *rows, int n, uint64_t base, uint64_t limit)
{
    if (sw || sb)
        fprintf(out, "plan of %s from the empty board, %d,%d in hand:\n", v->name, sw, sb);
    else
        fprintf(out, "plan of %s, the movement phase:\n", v->name);
    fprintf(out, "%-26s %14s %12s %12s %10s  %s\n", "pair", "slots", "memory MiB", "disk MB",
            "time", "kind");
    for (int i = 0; i < n; i++) {
        struct est e = estimate(v, &rows[i], base);
        char nm[64], tm[32];
        names(&rows[i], nm, sizeof nm, " ");
        human_time(e.seconds, tm, sizeof tm);
        char ck[48] = "";
        if (rows[i].ckpt_level >= 0)
            snprintf(ck, sizeof ck, " (checkpoint at level %d)", rows[i].ckpt_level);
        fprintf(out, "%-26s %14llu %12.1f %12.1f %10s  %s%s%s%s%s%s\n", nm,
                (unsigned long long)rows[i].pm.slots, e.memory / 1048576.0, e.disk / 1e6, tm,
                kind_name[e.kind], e.state ? ", with state" : "",
                rows[i].pm.spill ? ", buckets on disk" : "",
                rows[i].have ? " (solved already)" : "", ck,
                limit && e.memory > limit ? " OVER THE LIMIT" : "");
    }
}

static void print_json(FILE *out, const struct mmtb_variant *v, int sw, int sb,
                       const struct plan_row *rows, int n, uint64_t base, uint64_t limit)
{
    fprintf(out, "{\"variant\":\"%s\",\"start\":[%d,%d],\"base_bytes\":%llu,\"memory_limit\":%llu,"
                 "\"pairs\":[",
            v->name, sw, sb, (unsigned long long)base, (unsigned long long)limit);
    for (int i = 0; i < n; i++) {
        struct est e = estimate(v, &rows[i], base);
        char nm[64], ck_json[16] = "null";
        names(&rows[i], nm, sizeof nm, "\",\"");
        if (rows[i].ckpt_level >= 0)
            snprintf(ck_json, sizeof ck_json, "%d", rows[i].ckpt_level);
        fprintf(out,
                "%s{\"sectors\":[\"%s\"],\"slots\":%llu,\"memory_bytes\":%llu,"
                "\"bucket_bytes\":%llu,\"bucket_disk_bytes\":%llu,\"disk_bytes\":%llu,"
                "\"seconds\":%.1f,\"kind\":\"%s\",\"state\":%s,\"solved\":%s,"
                "\"checkpoint_level\":%s}",
                i ? "," : "", nm, (unsigned long long)rows[i].pm.slots,
                (unsigned long long)e.memory, (unsigned long long)rows[i].pm.buckets,
                (unsigned long long)rows[i].pm.buckets_disk, (unsigned long long)e.disk, e.seconds,
                kind_name[e.kind], e.state ? "true" : "false", rows[i].have ? "true" : "false",
                ck_json);
    }
    fputs("],", out);
}

/* What packing leaves of a sector file (mmtb-gen pack): nine's whole game
 * 47.7 %, twelve's and twelve-nine's start 5,5 48.2 % (2026-12-06); the
 * small games of Lasker and Morabaraba keep more (start 5,5: 76.6 and
 * 67.3 %), so this is rough for them. */
#define PACK_KEEPS 0.50

/*
 * --pack-behind: the most the run's files take at once beyond what they
 * take now (after the pairs already solved), by the order the run follows
 * (behind.c): each pair written unpacked beside its buckets on disk, then
 * verified, and every pair packed once it and the last pair that reads it
 * are verified.  Checkpoints are not counted.
 */
static uint64_t disk_peak_packed(const struct mmtb_variant *v, const struct plan_row *rows,
                                 int n, uint64_t base)
{
    int *last = malloc((size_t)(n > 0 ? n : 1) * sizeof *last); /* its last reader */
    double *size = malloc((size_t)(n > 0 ? n : 1) * sizeof *size);
    if (!last || !size) {
        free(last);
        free(size);
        return UINT64_MAX;
    }
    for (int p = 0; p < n; p++) {
        last[p] = p;
        size[p] = (double)estimate(v, &rows[p], base).disk;
    }
    for (int q = 0; q < n; q++)
        for (int e = 0; e < rows[q].ndeps; e++)
            if (rows[q].deps[e] >= 0 && rows[q].deps[e] < n && q > last[rows[q].deps[e]])
                last[rows[q].deps[e]] = q;
    double cur = 0, now = 0, peak = 0;
    for (int p = 0; p < n; p++) {
        double during = cur + size[p] + (rows[p].pm.spill ? (double)rows[p].pm.buckets_disk : 0);
        if (!rows[p].have && during > peak)
            peak = during;
        cur += size[p];
        for (int d = 0; d <= p; d++)
            if (last[d] == p)
                cur -= size[d] * (1 - PACK_KEEPS);
        if (rows[p].have)
            now = cur;
    }
    free(last);
    free(size);
    return peak > now ? (uint64_t)(peak - now) : 0;
}

/* The verify's rates, positions a second on 2 cores, taken as slots: the
 * whole games of nine (4.7 M, 2026-11-28, RESULTS.md) and twelve-nine (its
 * second pass of 2026-12-06: about 2.7 M) for positions with state. */
#define VERIFY_RATE_PLAIN 4.7e6
#define VERIFY_RATE_STATE 2.7e6

int plan_print(FILE *out, bool json, const struct mmtb_variant *v, int start_w, int start_b,
               const struct plan_row *rows, int n, uint64_t base, uint64_t limit,
               uint64_t disk_free, int behind)
{
    bool pack_behind = behind & PLAN_PACK_BEHIND;
    double vsecs = 0; /* the verify behind */
    uint64_t slots = 0, disk = 0, maxmem = 0, left_slots = 0, left_disk = 0;
    double secs = 0;
    int over = 0, largest = -1, left = 0;
    for (int i = 0; i < n; i++) {
        struct est e = estimate(v, &rows[i], base);
        slots += rows[i].pm.slots;
        disk += e.disk;
        if (e.memory > maxmem) {
            maxmem = e.memory;
            largest = i;
        }
        over += limit && e.memory > limit;
        if (!rows[i].have) {
            secs += e.seconds;
            if (behind & PLAN_VERIFY_BEHIND)
                vsecs += (double)rows[i].pm.slots /
                         (e.state && !rows[i].pm.plain_init ? VERIFY_RATE_STATE : VERIFY_RATE_PLAIN);
            left_slots += rows[i].pm.slots;
            left_disk += e.disk;
            left++;
        }
    }
    if (pack_behind)
        left_disk = disk_peak_packed(v, rows, n, base);
    char nm[64] = "-";
    if (largest >= 0)
        names(&rows[largest], nm, sizeof nm, " and ");
    if (json) {
        print_json(out, v, start_w, start_b, rows, n, base, limit);
        fprintf(out,
                "\"total_pairs\":%d,\"pairs_left\":%d,\"total_slots\":%llu,\"slots_left\":%llu,"
                "\"max_memory_bytes\":%llu,\"disk_bytes\":%llu,\"disk_left_bytes\":%llu,",
                n, left, (unsigned long long)slots, (unsigned long long)left_slots,
                (unsigned long long)maxmem, (unsigned long long)disk,
                (unsigned long long)left_disk);
        if (disk_free == UINT64_MAX)
            fprintf(out, "\"disk_free_bytes\":null,");
        else
            fprintf(out, "\"disk_free_bytes\":%llu,", (unsigned long long)disk_free);
        if (behind & PLAN_VERIFY_BEHIND)
            fprintf(out, "\"verify_seconds\":%.1f,", vsecs);
        fprintf(out, "\"seconds\":%.1f,\"pairs_over_limit\":%d}\n", secs, over);
        return over;
    }
    print_text(out, v, start_w, start_b, rows, n, base, limit);
    char tm[32];
    human_time(secs, tm, sizeof tm);
    fprintf(out,
            "total: %d pairs (%d to solve), %llu slots (%llu to solve); largest memory "
            "%.2f GiB (%s); about %.2f GB on disk; about %s at the rates measured on 2 cores "
            "(docs/SCALING.md)\n",
            n, left, (unsigned long long)slots, (unsigned long long)left_slots,
            maxmem / 1073741824.0, nm, disk / 1e9, tm);
    if (behind & PLAN_VERIFY_BEHIND) {
        human_time(vsecs, tm, sizeof tm);
        fprintf(out, "verify behind: about %s more (positions verified at 4.7 M/s, 2.7 M/s with "
                     "state, as measured on 2 cores)\n", tm);
    }
    if (limit)
        fprintf(out, "memory limit %.2f GiB: %s\n", limit / 1073741824.0,
                over ? "some pairs are over it (marked)" : "every pair fits");
    if (disk_free != UINT64_MAX)
        fprintf(out, "disk: about %.2f GB %s, %.2f GB free there%s\n", left_disk / 1e9,
                pack_behind ? "more at the most, the tables packed behind the run"
                            : "of tables still to write",
                disk_free / 1e9,
                left_disk > disk_free ? ": not enough (the estimate is rough; see CLI.md)" : "");
    return over;
}
