/*
 * reclose.c - the solver of the sectors whose positions carry more than
 * their stones (mmtb_ban_index_applies): every sector of a variant with
 * no_reclose (Twelve Men's Morris: the re-close restrictions), and the
 * placement sectors of one with first_mill_removal (Shah: the first-mill
 * owner).  One pair (or lone sector) at a time, a level-synchronous
 * retrograde analysis over the sector index with that state
 * (format/ban_index.h), on the rules as format/movegen.c states them
 * (moves, apply, predecessors with restrictions); the solved sectors the
 * pair reads are held in memory (read through libmmtb; Shah's openings,
 * which no table stores, are probed).  Plainer and slower per position
 * than the stages of pair.c, which know nothing of such state; schedule.c
 * picks this file for those sectors.
 *
 * Per slot: its value (undecided, loss, win, unused, draw), depth, the
 * number of distinct in-pair successor slots not yet known to be wins for
 * the opponent, whether a move outside the pair already draws or wins
 * ("no loss"), and the deepest loss through such a move.  A successor slot
 * is counted once however many moves reach its orbit; when it is decided,
 * each distinct predecessor slot hears of it once, which keeps the counts
 * exact under symmetry.  Level L decides the wins and losses of depth L:
 * wins one ply above a loss of L - 1, or by a move outside the pair of
 * depth L; losses when the last counted successor became a win (at depth
 * max(L, deepest outside loss)).
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ban_index.h"
#include "held.h"
#include "job.h"
#include "mmtb.h"
#include "movegen.h"
#include "sectorio.h"
#include "tablewrite.h"

/* V_QUEUED: open, and queued as a win for the next level (a win found
 * again in the same level is not queued twice) */
enum { V_OPEN = 0, V_LOSS = 1, V_WIN = 2, V_UNUSED = 3, V_DRAW = 4, V_QUEUED = 5 };

#define PRED_CAP (1 << 15)
#define FRONT_SLICE ((size_t)1 << 16) /* positions of a level handled at once */

struct rmember {
    struct mmtb_sector s;
    mmtb_ban_index *bx;
    uint64_t slots;
    uint8_t *val, *cnt, *noloss;
    uint16_t *dtc, *extl;
};

struct rjob {
    const struct mmtb_variant *v;
    const mmtb_index *ix;
    struct rmember m[2];
    int nm;
    struct held deps; /* the solved sectors its moves lead to */
    struct vec64 *bucket; /* per level: member << 63 | slot << 1 | win */
    int nlevels;
    bool inpair; /* some move leads from a member to a member (not so in
                  * placement pairs: then the levels only record) */
};

static int rmember_of(const struct rjob *j, struct mmtb_sector s)
{
    for (int i = 0; i < j->nm; i++)
        if (sector_eq(j->m[i].s, s))
            return i;
    return -1;
}

/*
 * The solved sectors outside the pair that its moves lead to (the sector
 * graph), each with whether a move that removes nothing leads there (then
 * its depths are needed too), into d[] (at most 16); returns the count.
 * Also *inpair: whether a move leads from a member to a member.
 */
static int pair_deps(const struct mmtb_variant *v, const struct mmtb_sector *ss, int nss,
                     struct mmtb_sector d[16], bool need_dtc[16], bool *inpair)
{
    int nd = 0;
    *inpair = false;
    for (int i = 0; i < nss; i++) {
        struct mmtb_sector next[8];
        int nn = mmtb_sector_moves_to(v, ss[i], next);
        for (int k = 0; k < nn; k++) {
            bool member = false;
            for (int m = 0; m < nss; m++)
                member = member || sector_eq(next[k], ss[m]);
            *inpair = *inpair || member;
            if (member)
                continue;
            struct mmtb_sector t = next[k];
            bool quiet = held_quiet(ss[i], t);
            int f = 0;
            while (f < nd && !sector_eq(d[f], t))
                f++;
            if (f == nd) {
                if (nd == 16)
                    continue; /* (never: a sector has at most 8 successors) */
                d[nd] = t;
                need_dtc[nd++] = false;
            }
            need_dtc[f] = need_dtc[f] || quiet;
        }
    }
    return nd;
}

/* Read the pair's solved sectors into memory (j->deps). */
static int load_deps(struct rjob *j, mmtb_tb *tb, const struct mmtb_sector *ss, int nss,
                     char *err, size_t errlen)
{
    struct mmtb_sector d[16];
    bool need_dtc[16], inpair;
    int nd = pair_deps(j->v, ss, nss, d, need_dtc, &inpair);
    int rc = MMTB_OK, i = 0;
    for (; i < nd && rc == MMTB_OK; i++)
        rc = held_load(&j->deps, tb, j->ix, d[i], need_dtc[i]);
    if (rc != MMTB_OK) {
        char name[32];
        mmtb_sector_format(d[i - 1], name, sizeof name);
        snprintf(err, errlen, "reading solved sector %s: %s", name, mmtb_strerror(rc));
    }
    return rc;
}

static inline uint64_t entry(int mi, uint64_t slot, bool win)
{
    return (uint64_t)mi << 63 | slot << 1 | (win ? 1u : 0u);
}

/* The position stored in a slot of member me, White to move. */
static void slot_pos(const struct rmember *me, uint64_t slot, struct mmtb_pos *p)
{
    memset(p, 0, sizeof *p);
    p->side = MMTB_WHITE;
    p->hand[0] = me->s.w_hand;
    p->hand[1] = me->s.b_hand;
    mmtb_ban_index_unrank_pos(me->bx, slot, p);
}

/* Sort and drop duplicates; returns the new length. */
static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}
static int uniq(uint64_t *a, int n)
{
    qsort(a, (size_t)n, sizeof *a, cmp_u64);
    int k = 0;
    for (int i = 0; i < n; i++)
        if (k == 0 || a[k - 1] != a[i])
            a[k++] = a[i];
    return k;
}

/*
 * Init: every slot's first state from the rules and the solved sectors.
 * Pushes the outside wins and the losses with no in-pair move into the
 * per-thread lists out[t] (level << 40 is not needed: the depth travels
 * in the high bits of a second word), as pairs (depth, entry).
 */
static int init_member(struct rjob *j, int mi, mmtb_tb *tb, struct vec64 *outs)
{
    struct rmember *me = &j->m[mi];
    const struct mmtb_variant *v = j->v;
    int rc = MMTB_OK;
#pragma omp parallel
    {
        int t = omp_get_thread_num();
        struct vec64 *out = &outs[t];
        mmtb_ctx *ctx = NULL;
        int lrc = tb ? mmtb_ctx_create(&ctx, tb, GEN_PROBE_CACHE) : MMTB_OK;
        struct mmtb_move *mv = malloc(MMTB_MAX_MOVES * sizeof *mv);
        uint64_t *succ = malloc(MMTB_MAX_MOVES * sizeof *succ);
        if (!mv || !succ)
            lrc = MMTB_ERR_NOMEM;
#pragma omp for schedule(dynamic, 4096)
        for (uint64_t slot = 0; slot < me->slots; slot++) {
            if (lrc != MMTB_OK)
                continue;
            struct mmtb_pos p;
            slot_pos(me, slot, &p);
            if (mmtb_ban_index_rank_pos(me->bx, &p) != slot) {
                me->val[slot] = V_UNUSED;
                continue;
            }
            int term = mmtb_pos_terminal(v, &p);
            if (term == MMTB_LOSS) {
                me->val[slot] = V_LOSS;
                me->dtc[slot] = 0;
                continue;
            }
            if (term == MMTB_DRAW) {
                me->val[slot] = V_DRAW;
                continue;
            }
            int n = mmtb_gen_moves(v, &p, mv);
            if (n < 0) {
                lrc = n;
                continue;
            }
            int ns = 0, winmin = 0, lossmax = 0;
            bool draw = false;
            for (int k = 0; k < n; k++) {
                struct mmtb_pos q;
                mmtb_pos_apply(v, &p, &mv[k], &q);
                int tq = mmtb_pos_terminal(v, &q);
                if (tq == MMTB_LOSS) {
                    winmin = 1;
                    continue;
                }
                if (tq == MMTB_DRAW) {
                    draw = true;
                    continue;
                }
                int qm = rmember_of(j, mmtb_pos_sector(&q));
                if (qm >= 0 && mv[k].remove < 0) {
                    succ[ns++] = mmtb_ban_index_rank_pos(j->m[qm].bx, &q);
                    continue;
                }
                struct mmtb_value val;
                int prc = held_value(&j->deps, j->ix, ctx, &q, &val);
                if (prc != MMTB_OK) {
                    lrc = prc;
                    break;
                }
                int d = mv[k].remove >= 0 ? 1 : val.dtc + 1;
                if (val.wdl == MMTB_LOSS)
                    winmin = winmin == 0 || d < winmin ? d : winmin;
                else if (val.wdl == MMTB_DRAW)
                    draw = true;
                else
                    lossmax = d > lossmax ? d : lossmax;
            }
            ns = uniq(succ, ns);
            if (ns > 255 || (ns > 0 && !me->cnt)) {
                lrc = MMTB_ERR_UNSUPPORTED;
                continue;
            }
            if (!me->cnt) {
                /* no move stays in the pair: decided here, no levels */
                me->val[slot] = winmin > 0 ? V_WIN : draw ? V_DRAW : V_LOSS;
                me->dtc[slot] = (uint16_t)(winmin > 0 ? winmin : draw ? 0 : lossmax);
                continue;
            }
            me->cnt[slot] = (uint8_t)ns;
            me->noloss[slot] = draw || winmin > 0;
            me->extl[slot] = (uint16_t)lossmax;
            if (winmin > 0) {
                if (!vec64_push(out, (uint64_t)winmin) || !vec64_push(out, entry(mi, slot, true)))
                    lrc = MMTB_ERR_NOMEM;
            } else if (ns == 0 && !draw) {
                if (!vec64_push(out, (uint64_t)lossmax) || !vec64_push(out, entry(mi, slot, false)))
                    lrc = MMTB_ERR_NOMEM;
            } else if (ns == 0) {
                me->val[slot] = V_DRAW;
            }
        }
        free(mv);
        free(succ);
        mmtb_ctx_free(ctx);
#pragma omp critical
        if (lrc != MMTB_OK && rc == MMTB_OK)
            rc = lrc;
    }
    return rc;
}

/* Queue entry e for level d. */
static int push_level(struct rjob *j, unsigned d, uint64_t e)
{
    if (d >= (unsigned)MAX_LEVELS)
        return MMTB_ERR_UNSUPPORTED;
    if ((int)d >= j->nlevels)
        j->nlevels = (int)d + 1;
    return vec64_push(&j->bucket[d], e) ? MMTB_OK : MMTB_ERR_NOMEM;
}

/* The levels: decide, tell the predecessors, until nothing is queued. */
static int levels(struct rjob *j, int nthreads)
{
    const struct mmtb_variant *v = j->v;
    struct vec64 front = {0};
    struct vec64 *outs = calloc((size_t)nthreads, sizeof *outs);
    if (!outs)
        return MMTB_ERR_NOMEM;
    int rc = MMTB_OK;
    for (int L = 0; L < j->nlevels && rc == MMTB_OK; L++) {
        front.n = 0;
        struct vec64 *b = &j->bucket[L];
        for (size_t k = 0; k < b->n; k++) {
            uint64_t e = b->e[k];
            struct rmember *me = &j->m[e >> 63];
            uint64_t slot = (e >> 1) & (((uint64_t)1 << 62) - 1);
            if (me->val[slot] != V_OPEN && me->val[slot] != V_QUEUED)
                continue;
            me->val[slot] = (e & 1) ? V_WIN : V_LOSS;
            me->dtc[slot] = (uint16_t)L;
            if (!vec64_push(&front, e)) {
                rc = MMTB_ERR_NOMEM;
                break;
            }
        }
        free(b->e);
        memset(b, 0, sizeof *b);
        if (rc != MMTB_OK || front.n == 0 || !j->inpair)
            continue;
        /* the predecessor slots of each decided position, per thread, a
         * slice of the front at a time (the lists hold tens of entries per
         * position: a whole front at once would be the peak of the solve);
         * what a slice finds goes to later levels only, so slicing changes
         * nothing */
        for (size_t c0 = 0; c0 < front.n && rc == MMTB_OK; c0 += FRONT_SLICE) {
            size_t c1 = front.n - c0 > FRONT_SLICE ? c0 + FRONT_SLICE : front.n;
#pragma omp parallel
            {
                int t = omp_get_thread_num();
                struct vec64 *out = &outs[t];
                out->n = 0;
                struct mmtb_pos *pred = malloc(PRED_CAP * sizeof *pred);
                uint64_t *ps = malloc(PRED_CAP * sizeof *ps);
                int lrc = pred && ps ? MMTB_OK : MMTB_ERR_NOMEM;
#pragma omp for schedule(dynamic, 256)
                for (size_t k = c0; k < c1; k++) {
                    if (lrc != MMTB_OK)
                        continue;
                    uint64_t e = front.e[k];
                    int mi = (int)(e >> 63);
                    struct mmtb_pos p;
                    slot_pos(&j->m[mi], (e >> 1) & (((uint64_t)1 << 62) - 1), &p);
                    int n = mmtb_gen_predecessors(v, &p, MMTB_PRED_QUIET, pred, PRED_CAP);
                    if (n < 0) {
                        lrc = n;
                        continue;
                    }
                    int np = 0;
                    for (int i = 0; i < n; i++) {
                        int qm = rmember_of(j, mmtb_pos_sector(&pred[i]));
                        if (qm >= 0)
                            ps[np++] =
                                entry(qm, mmtb_ban_index_rank_pos(j->m[qm].bx, &pred[i]), !(e & 1));
                    }
                    np = uniq(ps, np);
                    for (int i = 0; i < np && lrc == MMTB_OK; i++)
                        if (!vec64_push(out, ps[i]))
                            lrc = MMTB_ERR_NOMEM;
                }
                free(pred);
                free(ps);
#pragma omp critical
                if (lrc != MMTB_OK && rc == MMTB_OK)
                    rc = lrc;
            }
            /* apply them: a loss makes its predecessors wins one ply on; a win
             * takes one from their counts */
            for (int t = 0; t < nthreads && rc == MMTB_OK; t++) {
                for (size_t k = 0; k < outs[t].n && rc == MMTB_OK; k++) {
                    uint64_t e = outs[t].e[k];
                    struct rmember *me = &j->m[e >> 63];
                    uint64_t slot = (e >> 1) & (((uint64_t)1 << 62) - 1);
                    if (me->val[slot] != V_OPEN)
                        continue;
                    if (e & 1) {
                        me->val[slot] = V_QUEUED;
                        rc = push_level(j, (unsigned)L + 1, e);
                    } else if (--me->cnt[slot] == 0 && !me->noloss[slot]) {
                        unsigned d =
                            (unsigned)L + 1 > me->extl[slot] ? (unsigned)L + 1 : me->extl[slot];
                        rc = push_level(j, d, e);
                    }
                }
            }
        }
    }
    for (int t = 0; t < nthreads; t++)
        free(outs[t].e);
    free(outs);
    free(front.e);
    return rc;
}

static void fill(void *ctx, uint64_t first, uint64_t count, uint8_t *wdl, uint16_t *dtc)
{
    const struct rmember *me = ctx;
    for (uint64_t i = 0; i < count; i++) {
        uint8_t x = me->val[first + i];
        wdl[i] = x == V_LOSS ? 0 : x == V_WIN ? 2 : x == V_UNUSED ? 3 : 1;
        dtc[i] = x == V_LOSS || x == V_WIN ? me->dtc[first + i] : 0;
    }
}

static void rjob_free(struct rjob *j)
{
    for (int i = 0; i < j->nm; i++) {
        struct rmember *me = &j->m[i];
        mmtb_ban_index_free(me->bx);
        free(me->val);
        free(me->cnt);
        free(me->noloss);
        free(me->dtc);
        free(me->extl);
    }
    if (j->bucket)
        for (int i = 0; i < MAX_LEVELS; i++)
            free(j->bucket[i].e);
    free(j->bucket);
    held_free(&j->deps);
}

/*
 * What reclose_pair_solve needs, by part: per slot its value and depth,
 * and where moves stay in the pair its count, no-loss flag and deepest
 * outside loss (7 bytes in all), the restriction index (a byte per
 * position); the level queues, bounded by 12 bytes a slot, and a slice's
 * updates (docs/SCALING.md: measured on twelve); the solved sectors it
 * reads, whole (a byte a slot, two more where a quiet move leads, and
 * their restriction indexes), and per thread the predecessor buffers and
 * a probe context.  Placement pairs (no move stays in the pair) need
 * 3 bytes a slot and no queues.  The slots with restrictions are counted
 * exactly up to 4 M positions a sector, estimated from a sample beyond.
 */
int reclose_pair_memory(const mmtb_index *ix, const struct mmtb_sector *ss, int nss,
                        struct pair_mem *out)
{
    memset(out, 0, sizeof *out);
    const struct mmtb_variant *v = mmtb_index_variant(ix);
    uint64_t nth = (uint64_t)omp_get_max_threads();
    struct mmtb_sector d[16];
    bool need_dtc[16], inpair;
    int nd = pair_deps(v, ss, nss, d, need_dtc, &inpair);
    for (int i = 0; i < nss; i++) {
        uint64_t base = mmtb_index_slots(ix, ss[i]);
        uint64_t slots = mmtb_ban_index_count(ix, ss[i], (uint64_t)1 << 22, NULL);
        out->slots += slots;
        out->state += (inpair ? 7 : 3) * slots + (v->no_reclose ? base : 0);
        out->work += inpair ? 12 * slots : 0;
    }
    if (inpair) {
        /* a slice's updates: 8 bytes each, some 32 a position, in lists
         * that double as they grow (so 16 bytes an update); a slice is at
         * most a quarter of the pair */
        uint64_t upd = 32 * (uint64_t)FRONT_SLICE, q = out->work / 12;
        out->work += 16 * (upd < 4 * q ? upd : 4 * q);
    }
    out->work += (uint64_t)4 << 20; /* fixed: the writer, the level lists */
    out->work += nth * (PRED_CAP * (sizeof(struct mmtb_pos) + 8) + ((uint64_t)1 << 20));
    out->deps = nth * (GEN_PROBE_CACHE + ((uint64_t)1 << 20));
    for (int i = 0; i < nd; i++) {
        uint64_t slots = mmtb_ban_index_count(ix, d[i], (uint64_t)1 << 22, NULL);
        out->deps += slots * (need_dtc[i] ? 3 : 1) +
                     (v->no_reclose ? mmtb_index_slots(ix, d[i]) : 0);
    }
    out->total = out->state + out->deps + out->work;
    return MMTB_OK;
}

int reclose_pair_solve(const struct mmtb_solve_opts *o, const struct mmtb_variant *v,
                       const mmtb_index *ix, const struct mmtb_sector *ss, int nss,
                       struct mmtb_sector_stats *stats, struct progress *prog, const char *tag,
                       char *err, size_t errlen)
{
    struct rjob j;
    memset(&j, 0, sizeof j);
    j.v = v;
    j.ix = ix;
    j.nm = nss;
    {
        struct mmtb_sector d[16];
        bool need_dtc[16];
        pair_deps(v, ss, nss, d, need_dtc, &j.inpair);
    }
    mmtb_tb *tb = NULL;
    struct vec64 *outs = NULL;
    int nthreads = omp_get_max_threads();
    double t0 = progress_now(), t1 = t0, t2 = t0, t3 = t0;
    char label[96];
    snprintf(label, sizeof label, "%s index", tag);
    progress_phase(prog, label);
    int rc = MMTB_OK;
    for (int i = 0; i < nss && rc == MMTB_OK; i++) {
        struct rmember *me = &j.m[i];
        me->s = ss[i];
        rc = mmtb_ban_index_create(&me->bx, ix, ss[i]);
        if (rc != MMTB_OK) {
            snprintf(err, errlen, "%s: cannot build the index with %s: %s", tag,
                     v->no_reclose ? "restrictions" : "the first-mill owner", mmtb_strerror(rc));
            goto out;
        }
        me->slots = mmtb_ban_index_slots(me->bx);
        me->val = gen_alloc_big(me->slots);
        me->dtc = gen_alloc_big(me->slots * sizeof *me->dtc);
        if (j.inpair) {
            /* counts and the outside results for the levels */
            me->cnt = gen_alloc_big(me->slots);
            me->noloss = gen_alloc_big(me->slots);
            me->extl = gen_alloc_big(me->slots * sizeof *me->extl);
        }
        if (!me->val || !me->dtc || (j.inpair && (!me->cnt || !me->noloss || !me->extl)))
            rc = MMTB_ERR_NOMEM;
        else
            memset(me->val, V_OPEN, me->slots);
    }
    j.bucket = calloc(MAX_LEVELS, sizeof *j.bucket);
    outs = calloc((size_t)nthreads, sizeof *outs);
    if (rc != MMTB_OK || !j.bucket || !outs) {
        rc = MMTB_ERR_NOMEM;
        snprintf(err, errlen, "out of memory");
        goto out;
    }
    /* the solved sectors, if the manifest lists any yet: read whole into
     * memory (a table look-up at random decompresses a block for nearly
     * every probe), the probe kept for Shah's openings */
    if (mmtb_tb_open(&tb, o->outdir, NULL) != MMTB_OK)
        tb = NULL;
    if (tb && (rc = load_deps(&j, tb, ss, nss, err, errlen)) != MMTB_OK)
        goto out;

    t1 = progress_now();
    snprintf(label, sizeof label, "%s init", tag);
    progress_phase(prog, label);
    for (int i = 0; i < nss && rc == MMTB_OK; i++) {
        rc = init_member(&j, i, tb, outs);
        for (int t = 0; t < nthreads && rc == MMTB_OK; t++) {
            for (size_t k = 0; k + 1 < outs[t].n && rc == MMTB_OK; k += 2)
                rc = push_level(&j, (unsigned)outs[t].e[k], outs[t].e[k + 1]);
            /* queued: the lists go (they would stay through the levels) */
            free(outs[t].e);
            memset(&outs[t], 0, sizeof outs[t]);
        }
    }
    held_free(&j.deps);
    if (rc != MMTB_OK) {
        snprintf(err, errlen, "%s: init: %s", tag, mmtb_strerror(rc));
        goto out;
    }
    t2 = progress_now();
    snprintf(label, sizeof label, "%s levels", tag);
    progress_phase(prog, label);
    rc = levels(&j, nthreads);
    if (rc != MMTB_OK) {
        snprintf(err, errlen, "%s: levels: %s", tag, mmtb_strerror(rc));
        goto out;
    }
    t3 = progress_now();
    snprintf(label, sizeof label, "%s write", tag);
    progress_phase(prog, label);
    mmtb_tb_close(tb);
    tb = NULL;
    for (int i = 0; i < nss; i++) {
        struct mmtb_write_opts wo;
        memset(&wo, 0, sizeof wo);
        wo.zstd_level = o->zstd_level;
        wo.dtc_zstd_level = o->dtc_zstd_level;
        /* the count table, so that readers rank without walking the sector
         * (none for the first-mill owner, which has nothing per slot) */
        uint32_t *counts = NULL;
        if (v->no_reclose) {
            uint64_t n = mmtb_ban_index_blocks(j.m[i].bx, MMTB_BAN_BLOCK_LOG2);
            counts = malloc(n * sizeof *counts);
            if (!counts) {
                rc = MMTB_ERR_NOMEM;
                snprintf(err, errlen, "%s: out of memory", tag);
                goto out;
            }
            mmtb_ban_index_block_counts(j.m[i].bx, MMTB_BAN_BLOCK_LOG2, counts);
            wo.counts = counts;
            wo.count_blocks = (uint32_t)n;
            wo.count_block_log2 = MMTB_BAN_BLOCK_LOG2;
        }
        rc = mmtb_table_write_sector(o->outdir, v, ss[i], j.m[i].slots, fill, &j.m[i], &wo,
                                     &stats[i], err, errlen);
        free(counts);
        if (rc != MMTB_OK)
            goto out;
    }
    if (o->verbose)
        fprintf(stderr, "%s: index %.2fs init %.2fs levels %.2fs (%d) write %.2fs\n", tag, t1 - t0,
                t2 - t1, t3 - t2, j.nlevels, progress_now() - t3);
out:
    if (outs)
        for (int t = 0; t < nthreads; t++)
            free(outs[t].e);
    free(outs);
    mmtb_tb_close(tb);
    rjob_free(&j);
    return rc;
}
