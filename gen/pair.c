/*
 * pair.c - one sector pair (or a lone sector) from start to finish: the
 * job's memory, its stages in order (deps.c, init.c, levels.c), the phase
 * times of --verbose, and the writing of its tables through tablewrite.c,
 * which reads the state bytes through fill_values.  A pair with a
 * checkpoint in the directory (checkpoint.c) is restored from it and goes
 * straight to its levels.  Knows nothing of the order of the pairs
 * (schedule.c).
 */
#include "job.h"

#include <errno.h>
#include <omp.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "banbuild.h"
#include "bigalloc.h"
#include "mmtb.h"
#include "sectorio.h"
#include "tablewrite.h"

struct fill_ctx {
    const struct member *me;
};

static void fill_values(void *ctx, uint64_t first, uint64_t count, uint8_t *wdl, uint16_t *dtw)
{
    state_values(((const struct fill_ctx *)ctx)->me, first, count, wdl, dtw);
}

/* The count table of a member with restrictions (FORMAT.md), so that
 * readers rank without walking the sector; none for the first-mill owner,
 * which has nothing per slot.  *counts is the caller's to free. */
static int count_table(const struct member *me, const struct mmtb_variant *v,
                       struct mmtb_write_opts *wo, uint32_t **counts)
{
    *counts = NULL;
    if (!me->bx || !v->no_reclose)
        return MMTB_OK;
    uint64_t n = mmtb_ban_index_blocks(me->bx, MMTB_BAN_BLOCK_LOG2);
    *counts = malloc(n * sizeof **counts);
    if (!*counts)
        return MMTB_ERR_NOMEM;
    mmtb_ban_index_block_counts(me->bx, MMTB_BAN_BLOCK_LOG2, *counts);
    wo->counts = *counts;
    wo->count_blocks = (uint32_t)n;
    wo->count_block_log2 = MMTB_BAN_BLOCK_LOG2;
    return MMTB_OK;
}

/* Release everything a job holds (any of it may be NULL). */
static void job_free(struct job *j)
{
    for (int i = 0; i < j->nm; i++) {
        mmtb_ban_index_free(j->m[i].bx);
        free(j->m[i].bfirst);
        free(j->m[i].st);
        free(j->m[i].flag_cur);
        free(j->m[i].flag_next);
        free(j->m[i].imask);
        free(j->m[i].deep);
    }
    deps_free(j);
    buckets_free(j);
    if (j->deep)
        for (int i = 0; i < MAX_LEVELS; i++)
            free(j->deep[i].e);
    free(j->deep);
    if (j->deep_new)
        for (int i = 0; i < j->nthreads; i++)
            free(j->deep_new[i].e);
    free(j->deep_new);
    free(j->mhist[0]);
    free(j->mhist[1]);
    levels_free(j);
    split_free(j);
}

/* The working allowance per thread (the levels' update buffers, which keep
 * their largest size, the writer's blocks and zstd contexts) and for the
 * job's per-level lists; see docs/SCALING.md for the measurements. */
#define WORK_PER_THREAD ((uint64_t)24 << 20)
#define WORK_FIXED ((uint64_t)16 << 20)

/* A split rank's exchange buffers: the look-ups of an init round and the
 * updates of a level round, sent and received.  An allowance of 64 bytes
 * a slot held, at most 128 MiB, above the largest level round measured
 * (docs/SCALING.md). */
#define SPLIT_WORK_MAX ((uint64_t)128 << 20)
/* A split rank's run of an array touches the 2 MiB pages at its ends. */
#define SPLIT_EDGES ((uint64_t)4 << 20)

/* The buckets (buckets.c) of a member without state, at their capacity
 * (the streams grow by doubling, and the heap keeps what they outgrew).  A
 * position keeps at most one entry.  Where stones may slide while others
 * are in hand nearly every position whose side to move has stones in hand
 * keeps one (a placement deeper than one ply): the init pass holds their
 * codes back, two bytes a slot, and adds them in slot order at its end
 * (init_member_plain), when they take about two bytes a slot with the
 * streams' room (measured 2026-12-01 on Lasker's 7 v 7 game: 1.97 on
 * 6-6-1-1, 550 MiB for the pair 7-6-0-1 / 6-7-1-0; 5.9 to 6.7 before, in
 * the walk's order): 2 + 3 allowed.  Elsewhere only a position with a
 * capture keeps one, and a pure placement position has no move inside its
 * pair: 0.3 bytes a slot, above the most measured (the pairs of 10 M slots
 * or more: Lasker's 7 v 7 movement pairs 0.28, nine's 6 v 6 0.05); on a
 * board with diagonals, where most positions have a capture, 1.3 (above
 * the most measured, Morabaraba's whole game with depths to win: 8-8 1.24,
 * 8-7 / 7-8 and 9-7 / 7-9 1.08, 6-6 0.50; 2026-12-03). */
static uint64_t bucket_allowance(const struct mmtb_variant *v, struct mmtb_sector s,
                                 uint64_t slots)
{
    if (buckets_dense(v, s))
        return 5 * slots;
    return s.w_hand == 0 ? slots / 10 * (mmtb_variant_dense(v) ? 13 : 3) : 0;
}

/* pair_memory for a pair whose positions carry state: its slots as
 * plan_state_slots counts them;
 * the index with restrictions holds a byte per position of the sector; the
 * solved sectors are read whole (held.h), and each thread has a probe
 * context and the levels' unmove buffers. */
static void pair_memory_state(const struct job *j, struct pair_mem *out)
{
    uint64_t nth = (uint64_t)omp_get_max_threads();
    for (int i = 0; i < j->nm; i++) {
        uint64_t slots = plan_state_slots(j->ix, j->m[i].s);
        out->slots += slots;
        out->state += slots + 2 * ((slots + CHUNK - 1) / CHUNK + 1);
        if (j->v->no_reclose)
            out->state += mmtb_index_slots(j->ix, j->m[i].s);
        /* the buckets of outside results that wait for their level
         * (buckets.c): a movement position with a capture keeps one until
         * the capture's depth.  What the streams hold written (their
         * unwritten room is not resident) grows with the pair: twelve's 6-6
         * 1.2 bytes a slot; twelve-nine's whole game, 2026-12-05, 7-7 1.46,
         * 8-6 1.40, 9-6 1.45, 8-7 1.54, 8-8 1.57, 9-7 1.58: 1.6 */
        if (j->m[i].s.w_hand == 0 && j->m[i].s.b_hand == 0)
            out->buckets += slots + slots / 5 * 3;
    }
    out->work = WORK_FIXED + nth * (WORK_PER_THREAD + levels_scratch_bytes(true));
    for (int i = 0; i < j->nm; i++) {
        /* a placing member's states without restrictions by the plain init
         * (bans_base_by_blocks): its batch of queued writes, as below */
        const struct member *me = &j->m[i];
        if (me->s.w_hand == 0 || !succ_models_bans(j->v))
            continue;
        uint64_t slots = plan_state_slots(j->ix, me->s), batch = INIT_BATCH_CHUNKS * CHUNK;
        out->work += 2 * 8 * (batch < slots ? batch : slots) +
                     nth * ((slots >> PART_SHIFT) + 1) * 1024 * 8;
    }
    out->deps = deps_held_bytes(j) +
                nth * (GEN_PROBE_CACHE + ((uint64_t)1 << 20));
    out->total = out->state + out->buckets + out->deps + out->work;
}

/* What a pair whose buckets are on disk keeps of them in memory: each
 * stream's last segment (buckets.c's SPILL_SEG, 1 MiB) for every level,
 * and then the level the levels take, read back */
#define SPILL_HELD ((uint64_t)256 << 20)

void pair_memory_fit(const struct mmtb_solve_opts *o, uint64_t base, int nsplit,
                     struct pair_mem *pm)
{
    pm->spill = false;
    pm->buckets_disk = 0;
    uint64_t nth = (uint64_t)omp_get_max_threads(), held = SPILL_HELD * nth;
    if (o->buckets_to_disk < 0 || nsplit > 1)
        return;
    if (o->buckets_to_disk == 0) {
        if (pm->buckets <= held)
            return;
        uint64_t limit = o->memory_limit;
        if (!limit) {
            long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
            limit = pages > 0 && size > 0 ? (uint64_t)pages * (uint64_t)size / 10 * 9 : 0;
        }
        if (!limit || base + pm->total <= limit)
            return;
    }
    pm->spill = true;
    pm->buckets_disk = pm->buckets;
    if (pm->buckets > held) {
        pm->total -= pm->buckets - held;
        pm->buckets = held;
    }
}

void pair_memory(const struct mmtb_solve_opts *o, const struct mmtb_variant *v,
                 const mmtb_index *ix, const struct mmtb_sector *ss, int nss, int nsplit,
                 struct pair_mem *out)
{
    struct job j;
    memset(&j, 0, sizeof j);
    memset(out, 0, sizeof *out);
    struct split one_of; /* (only its presence matters: init's walk order) */
    memset(&one_of, 0, sizeof one_of);
    if (nsplit > 1)
        j.sp = &one_of;
    j.own_walk = o->init_walk < 0;
    j.no_blocks = o->init_walk > 0;
    j.v = v;
    j.ix = ix;
    j.nm = nss;
    for (int i = 0; i < nss; i++)
        j.m[i].s = ss[i];
    j.plain_init = !o->state_init && sectors_plain_init(v, ss, nss);
    out->plain_init = j.plain_init;
    if (mmtb_ban_index_applies(v, ss[0]) && !j.plain_init) {
        pair_memory_state(&j, out);
        return;
    }
    for (int i = 0; i < nss; i++) {
        j.m[i].slots = mmtb_index_slots(ix, ss[i]);
        out->slots += j.m[i].slots;
        /* st, flag_cur and flag_next (pair_solve); with restrictions, the
         * index's byte a position too */
        out->state += j.m[i].slots + 2 * ((j.m[i].slots + CHUNK - 1) / CHUNK + 1);
        if (j.plain_init)
            out->state += j.m[i].slots;
        out->buckets += bucket_allowance(v, ss[i], j.m[i].slots);
    }
    bool own_order = true;
    uint64_t nth = (uint64_t)omp_get_max_threads();
    out->work = WORK_FIXED + WORK_PER_THREAD * nth;
    for (int i = 0; i < nss; i++) {
        if (!init_by_opponent(&j, &j.m[i]))
            continue;
        own_order = false;
        /* a batch's writes, 8 bytes a slot, in vectors that double as they
         * grow (so twice), and each thread's first 1024 entries of each
         * partition */
        uint64_t batch = INIT_BATCH_CHUNKS * CHUNK, nparts = (j.m[i].slots >> PART_SHIFT) + 1;
        uint64_t q = 2 * 8 * (batch < j.m[i].slots ? batch : j.m[i].slots) +
                     nth * nparts * 1024 * 8;
        out->work = q + WORK_FIXED + WORK_PER_THREAD * nth > out->work
                        ? q + WORK_FIXED + WORK_PER_THREAD * nth
                        : out->work;
    }
    out->deps = deps_bytes(&j, own_order && o->swap_deps >= 0 && nsplit <= 1);
    if (nsplit > 1) {
        /* a rank's run of the states and of each solved sector */
        uint64_t x = 64 * out->slots / (uint64_t)nsplit;
        out->state = out->state / (uint64_t)nsplit + (uint64_t)nss * SPLIT_EDGES;
        out->buckets /= (uint64_t)nsplit;
        out->deps = out->deps / (uint64_t)nsplit + 6 * SPLIT_EDGES;
        out->work += x < SPLIT_WORK_MAX ? x : SPLIT_WORK_MAX;
    }
    out->total = out->state + out->buckets + out->deps + out->work;
}

/* The job's members (their indexes, state arrays and flags), the split
 * ranges, the levels' buffers and the lists of a job.  Returns MMTB_OK or a
 * status (a message in err for anything but memory). */
static int job_setup(struct job *j, const struct mmtb_solve_opts *o, const struct mmtb_variant *v,
                     const mmtb_index *ix, const struct mmtb_sector *ss, int nss, bool split,
                     const char *tag, char *err, size_t errlen)
{
    j->v = v;
    j->ix = ix;
    j->nm = nss;
    j->own_walk = o->init_walk < 0;
    j->no_blocks = o->init_walk > 0;
    j->plain_init = !o->state_init && sectors_plain_init(v, ss, nss);
    j->base_blocks = !o->state_init;
    j->bucket_round = o->bucket_round > 0 ? (size_t)o->bucket_round : BUCKET_ROUND;
    j->deep_from =
        o->deep_from > 0 && o->deep_from < (int)ST_DEEP_FROM ? (unsigned)o->deep_from : ST_DEEP_FROM;
    for (int i = 0; i < nss; i++) {
        struct member *me = &j->m[i];
        me->s = ss[i];
        if (mmtb_ban_index_applies(v, ss[i])) {
            int rc = gen_ban_index_create(&me->bx, ix, ss[i]);
            if (rc != MMTB_OK) {
                snprintf(err, errlen, "%s: cannot build the index with %s: %s", tag,
                         v->no_reclose ? "restrictions" : "the first-mill owner",
                         mmtb_strerror(rc));
                return rc;
            }
        }
        me->slots = me->bx ? mmtb_ban_index_slots(me->bx) : mmtb_index_slots(ix, ss[i]);
        me->st = mmtb_alloc_big(me->slots);
        size_t nf = (size_t)((me->slots + CHUNK - 1) / CHUNK + 1);
        me->flag_cur = calloc(nf, 1);
        me->flag_next = calloc(nf, 1);
        if (!me->st || !me->flag_cur || !me->flag_next)
            return MMTB_ERR_NOMEM;
    }
    for (int i = 0; i < nss; i++)
        j->m[i].partner = member_of(j, sector_partner(ss[i]));
    /* a split pair: this rank's ranges (the state arrays are whole in
     * address space, but only the range is ever touched, so only it is
     * resident) */
    if (split && split_setup(j, o->transport) != MMTB_OK)
        return MMTB_ERR_NOMEM;
    j->nthreads = omp_get_max_threads();
    if (levels_setup(j) != MMTB_OK)
        return MMTB_ERR_NOMEM;
    if (buckets_setup(j) != MMTB_OK)
        return MMTB_ERR_NOMEM;
    j->deep = calloc(MAX_LEVELS, sizeof *j->deep);
    j->deep_new = calloc((size_t)j->nthreads, sizeof *j->deep_new);
    j->mhist[0] = calloc(MAX_LEVELS + 1, sizeof *j->mhist[0]);
    j->mhist[1] = calloc(MAX_LEVELS + 1, sizeof *j->mhist[1]);
    /* (forward levels read the successors' states, which a split rank
     * may not hold) */
    j->forward = o->forward < 0 || j->sp || job_has_state(j) ? -1 : o->forward > 0;
    if (!j->deep || !j->deep_new || !j->mhist[0] || !j->mhist[1])
        return MMTB_ERR_NOMEM;
    return MMTB_OK;
}

/* The message of a failed init pass (rc) or levels pass (levels). */
static void stage_error(const struct job *j, int rc, bool levels, const char *tag, char *err,
                        size_t errlen)
{
    if (j->rule_err)
        snprintf(err, errlen, "%s: %s: %s%s%s", tag, levels ? "levels" : "init",
                 mmtb_strerror(j->rule_err), j->why ? ": " : "", j->why ? j->why : "");
    else if (rc == MMTB_ERR_IO)
        snprintf(err, errlen, "%s %s: the file of the waiting outside results (%s/%s.buckets.tmp, "
                 "unlinked): a write or read failed (the disk full?)",
                 tag, levels ? "levels" : "init", j->ckpt.dir, j->ckpt.name);
    else if (levels && rc == MMTB_ERR_NOMEM)
        snprintf(err, errlen, "out of memory");
    else if (levels && j->sp && rc != MMTB_ERR_UNSUPPORTED)
        snprintf(err, errlen, "%s levels: %s", tag, j->sp->err);
    else if (levels)
        snprintf(err, errlen, "depth to win exceeds %u plies", (unsigned)MAX_DEPTH);
    else if (j->sp && j->sp->err[0])
        snprintf(err, errlen, "%s init: %s", tag, j->sp->err);
    else if (rc == MMTB_ERR_NOMEM)
        snprintf(err, errlen, "out of memory");
    else if (rc == MMTB_ERR_UNSUPPORTED)
        snprintf(err, errlen,
                 "%s: a position has more than %u moves into the partner sector, more "
                 "than the solver's one-byte counters hold",
                 tag, ST_MAX_COUNT - 2);
    else
        snprintf(err, errlen, "%s: internal error in the init pass: %s (%s)", tag,
                 j->why ? j->why : "positions missed", mmtb_strerror(rc));
}

/* Write the members' tables (a split pair through split.c). */
static int write_members(struct job *j, const struct mmtb_solve_opts *o,
                         const struct mmtb_sector *ss, struct mmtb_sector_stats *stats,
                         const char *tag, char *err, size_t errlen)
{
    if (j->sp)
        return split_write(j, o, ss, stats, err, errlen);
    int rc = MMTB_OK;
    for (int i = 0; i < j->nm && rc == MMTB_OK; i++) {
        struct fill_ctx fc = {&j->m[i]};
        struct mmtb_write_opts wo;
        memset(&wo, 0, sizeof wo);
        wo.zstd_level = o->zstd_level;
        wo.dtw_zstd_level = o->dtw_zstd_level;
        uint32_t *counts = NULL;
        rc = count_table(&j->m[i], j->v, &wo, &counts);
        if (rc == MMTB_OK)
            rc = mmtb_table_write_sector(o->outdir, j->v, ss[i], j->m[i].slots, fill_values, &fc,
                                         &wo, &stats[i], err, errlen);
        else
            snprintf(err, errlen, "%s: out of memory", tag);
        free(counts);
    }
    return rc;
}

/* --verbose: the phase times (t: load, init, levels, write started), and
 * for a split pair what this rank held and sent. */
static void report_phases(const struct job *j, const char *tag, const double t[4])
{
    if (j->sp) {
        uint64_t held = 0;
        for (int i = 0; i < j->nm; i++)
            held += j->sp->hi[i] - j->sp->lo[i];
        fprintf(stderr,
                "%s: rank %d of %d: load %.2fs init %.2fs levels %.2fs (%d) write %.2fs; "
                "%llu of %llu slots held here; sent %llu bytes of updates (%.2f a slot held), "
                "%llu of init look-ups and answers, %llu of blocks for the writer; %llu bytes in the "
                "largest level round\n",
                tag, j->sp->rank, j->sp->nranks, t[1] - t[0], t[2] - t[1], t[3] - t[2],
                j->last_level, progress_now() - t[3], (unsigned long long)held,
                (unsigned long long)(j->m[0].slots + (j->nm > 1 ? j->m[1].slots : 0)),
                (unsigned long long)j->sp->sent_updates,
                held ? (double)j->sp->sent_updates / (double)held : 0.0,
                (unsigned long long)j->sp->sent_lookups, (unsigned long long)j->sp->sent_values,
                (unsigned long long)j->sp->round_peak);
    } else {
        fprintf(stderr,
                "%s: load %.2fs init %.2fs levels %.2fs (%d) write %.2fs; buckets %.1f MiB "
                "(%.1f written)",
                tag, t[1] - t[0], t[2] - t[1], t[3] - t[2], j->last_level, progress_now() - t[3],
                (double)j->bucket_peak / (1 << 20), (double)j->bucket_written / (1 << 20));
        if (j->bucket_disk)
            fprintf(stderr, ", %.1f MiB to disk", (double)j->bucket_disk / (1 << 20));
        fputc('\n', stderr);
    }
}

/* The job of a pair, set up (its message in err), with its checkpoint named. */
static int pair_setup(struct job *j, const struct mmtb_solve_opts *o, const struct mmtb_variant *v,
                      const mmtb_index *ix, const struct mmtb_sector *ss, int nss, bool split,
                      struct progress *prog, const char *tag, char *err, size_t errlen)
{
    memset(j, 0, sizeof *j);
    j->prog = prog;
    int rc = job_setup(j, o, v, ix, ss, nss, split, tag, err, errlen);
    if (rc == MMTB_ERR_NOMEM)
        snprintf(err, errlen, "out of memory");
    if (rc != MMTB_OK)
        return rc;
    double every = o->checkpoint_minutes < 0    ? -1.0
                   : o->checkpoint_minutes == 0 ? 60.0 * CKPT_MINUTES
                                                : 60.0 * o->checkpoint_minutes;
    ckpt_setup(j, o->outdir, every, o->checkpoint_kill, o->quiet);
    j->ckpt.verbose = o->verbose;
    return MMTB_OK;
}

/* Solve one pair (or a lone sector) and write it: the job's memory, then
 * the stages in order, with their phase times for --verbose. */
int pair_solve(const struct mmtb_solve_opts *o, const struct mmtb_variant *v,
               const mmtb_index *ix, const struct mmtb_sector *ss, int nss, bool split,
               bool spill,
               struct mmtb_sector_stats *stats, struct progress *prog, const char *tag,
               char *err, size_t errlen)
{
    struct job j;
    double t[4] = {0, 0, 0, 0}; /* load, init, levels, write */
    char label[96];
    int from = -1; /* the level a checkpoint restores the job at */
    int rc = pair_setup(&j, o, v, ix, ss, nss, split, prog, tag, err, errlen);
    if (rc != MMTB_OK)
        goto out;
    t[0] = progress_now();
    int lrc = ckpt_load(&j, &from);
    if (lrc == MMTB_OK) {
        if (bans_job(&j) && bans_setup(&j) != MMTB_OK) {
            snprintf(err, errlen, "out of memory");
            rc = MMTB_ERR_NOMEM;
            goto out;
        }
        if (o->verbose)
            fprintf(stderr, "%s: restored from %s/%s at level %d\n", tag, o->outdir,
                    j.ckpt.name, from);
        if (o->resumed)
            (*o->resumed)++;
        t[1] = t[2] = progress_now();
        goto levels;
    }
    if (lrc != MMTB_ERR_MISSING) {
        /* a checkpoint that did not fit may have overwritten some of the
         * job: set up afresh */
        job_free(&j);
        rc = pair_setup(&j, o, v, ix, ss, nss, split, prog, tag, err, errlen);
        if (rc != MMTB_OK)
            goto out;
        t[0] = progress_now();
    }
    /* the solved sectors are re-filed for walks in the members' own order */
    bool own_order = true;
    for (int i = 0; i < nss; i++)
        own_order = own_order && !init_by_opponent(&j, &j.m[i]);
    bool held = job_has_state(&j) && !j.plain_init;
    rc = held ? deps_load_held(&j, o->outdir, err, errlen)
              : deps_load(&j, o->outdir, own_order && o->swap_deps >= 0, err, errlen);
    if (rc != MMTB_OK)
        goto out;
    snprintf(label, sizeof label, "%s init", tag);
    progress_phase(prog, label);
    t[1] = progress_now();
    if (spill) { /* the buckets on disk: a file nothing outlives (buckets.c) */
        char path[4200];
        snprintf(path, sizeof path, "%s/%s.buckets.tmp", j.ckpt.dir, j.ckpt.name);
        rc = buckets_spill_open(&j, path, o->bucket_spill_seg);
        if (rc != MMTB_OK) {
            snprintf(err, errlen, "%s: cannot create it for the waiting outside results: %s",
                     path, strerror(errno));
            goto out;
        }
    }
    rc = init_pass(&j);
    if (rc == MMTB_OK && j.spill_err)
        rc = MMTB_ERR_IO;
    j.bucket_peak = buckets_bytes(&j, &j.bucket_written); /* their peak: the levels drain them */
    j.bucket_disk = buckets_spilled(&j);
    /* the solved sectors are not read again: released before the levels */
    if (held)
        deps_free(&j);
    if (rc != MMTB_OK) {
        stage_error(&j, rc, false, tag, err, errlen);
        goto out;
    }
    t[2] = progress_now();
levels:
    snprintf(label, sizeof label, "%s levels", tag);
    progress_phase(prog, label);
    rc = levels_pass(&j, from);
    if (rc == MMTB_SOLVE_STOPPED)
        goto out;
    if (rc != MMTB_OK) {
        stage_error(&j, rc, true, tag, err, errlen);
        goto out;
    }
    rc = levels_finish(&j);
    if (rc != MMTB_OK) {
        snprintf(err, errlen, "%s", rc == MMTB_ERR_NOMEM ? "out of memory"
                                                          : "internal error: the deep positions "
                                                            "do not match their states");
        goto out;
    }
    t[3] = progress_now();
    snprintf(label, sizeof label, "%s write", tag);
    progress_phase(prog, label);
    /* removed before the write, not after: a kill between the last rename
     * and the removal would leave the checkpoint of a pair that no rerun
     * solves again (a kill in the write costs the pair instead) */
    ckpt_remove(&j);
    rc = write_members(&j, o, ss, stats, tag, err, errlen);
    if (rc == MMTB_OK && o->verbose)
        report_phases(&j, tag, t);
out:
    job_free(&j);
    return rc;
}
