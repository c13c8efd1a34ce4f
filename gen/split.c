/*
 * split.c - one sector pair solved by all the ranks of a transport together
 * (mmtb-gen-mpi --split, or a pair over --memory whose part fits): each
 * rank holds a contiguous run of each member's partitions (job.h's struct
 * split) and runs the stages on it alone; this file is what they share.
 *
 * - init (init.c) walks only this rank's range, in the members' own order;
 * - the levels (levels.c) find the predecessors of this rank's decided
 *   positions anywhere in the partner and queue them per partition as
 *   always; after each round of chunks a rank applies its own partitions'
 *   and sends the others' to their holders in one exchange
 *   (split_exchange_updates).  A level's updates commute, so the values
 *   are those of the whole pair on one process;
 * - the writer runs on rank 0, which fetches the values of the other
 *   ranks' slots from them as it fills its blocks (split_write); the file
 *   is the same bytes as mmtb-gen's.
 * The solved sectors the pair reads are loaded whole by every rank: what
 * is divided is the pair's own state (see docs/SCALING.md).
 */
#include "job.h"

#include <stdio.h>
#include <string.h>

#include "tablewrite.h"

int split_cut(const struct split *sp, uint64_t slots, uint64_t **plo, uint64_t *lo,
              uint64_t *hi)
{
    uint64_t np = (slots + ((uint64_t)1 << PART_SHIFT) - 1) >> PART_SHIFT;
    uint64_t *c = malloc((size_t)(sp->nranks + 1) * sizeof *c);
    *plo = c;
    if (!c)
        return MMTB_ERR_NOMEM;
    for (int r = 0; r <= sp->nranks; r++)
        c[r] = np * (uint64_t)r / (uint64_t)sp->nranks;
    uint64_t a = c[sp->rank] << PART_SHIFT, b = c[sp->rank + 1] << PART_SHIFT;
    *lo = a < slots ? a : slots;
    *hi = b < slots ? b : slots;
    return MMTB_OK;
}

int split_setup(struct job *j, const struct mmtb_transport *t)
{
    struct split *sp = calloc(1, sizeof *sp);
    if (!sp)
        return MMTB_ERR_NOMEM;
    j->sp = sp;
    sp->t = t;
    sp->rank = t->rank;
    sp->nranks = t->nranks;
    for (int i = 0; i < j->nm; i++)
        if (split_cut(sp, j->m[i].slots, &sp->plo[i], &sp->lo[i], &sp->hi[i]) != MMTB_OK)
            return MMTB_ERR_NOMEM;
    return MMTB_OK;
}

void split_free(struct job *j)
{
    if (!j->sp)
        return;
    for (int i = 0; i < 2; i++)
        free(j->sp->plo[i]);
    for (int k = 0; k < 16; k++)
        free(j->sp->dplo[k]);
    free(j->sp);
    j->sp = NULL;
}

int split_owner(const struct split *sp, int mi, uint64_t p)
{
    int r = 0;
    while (r + 1 < sp->nranks && p >= sp->plo[mi][r + 1])
        r++;
    return r;
}

int split_reduce(struct job *j, uint64_t *v, int n, bool max)
{
    const struct mmtb_transport *t = j->sp->t;
    return t->reduce(t->ctx, v, n, max, j->sp->err, sizeof j->sp->err);
}

/*
 * An update sent to another rank is 64 bits: the slot in the member << 8 |
 * the low byte of the queued update (UPD_LOST | moves).
 */
int split_exchange_updates(struct job *j, int pi, unsigned d, uint64_t *found)
{
    struct split *sp = j->sp;
    const int K = sp->nranks;
    uint64_t **send = calloc((size_t)K, sizeof *send);
    size_t *len = calloc((size_t)K, sizeof *len);
    int rc = send && len ? MMTB_OK : MMTB_ERR_NOMEM;
    for (int q = 0; q < K && rc == MMTB_OK; q++) {
        if (q == sp->rank)
            continue;
        size_t n = 0;
        for (uint64_t p = sp->plo[pi][q]; p < sp->plo[pi][q + 1]; p++)
            for (int t = 0; t < j->nthreads; t++)
                n += j->upd[(size_t)t * j->nparts + p].n;
        send[q] = malloc((n ? n : 1) * sizeof **send);
        if (!send[q]) {
            rc = MMTB_ERR_NOMEM;
            break;
        }
        size_t k = 0;
        for (uint64_t p = sp->plo[pi][q]; p < sp->plo[pi][q + 1]; p++)
            for (int t = 0; t < j->nthreads; t++) {
                struct updbuf *b = &j->upd[(size_t)t * j->nparts + p];
                for (size_t x = 0; x < b->n; x++)
                    send[q][k++] = ((p << PART_SHIFT) | (b->e[x] >> UPD_OFF_SHIFT)) << 8 |
                                   (b->e[x] & 0xffu);
                b->n = 0;
            }
        len[q] = n * sizeof **send;
        sp->sent_updates += len[q];
    }
    void *recv = NULL;
    size_t rlen = 0, *rl = calloc((size_t)K, sizeof *rl);
    if (rc == MMTB_OK && !rl)
        rc = MMTB_ERR_NOMEM;
    if (rc == MMTB_OK)
        rc = sp->t->exchange(sp->t->ctx, (void *const *)send, len, &recv, rl, sp->err,
                             sizeof sp->err);
    for (int q = 0; rl && q < K; q++)
        rlen += rl[q];
    free(rl);
    uint64_t n = 0, round = rlen;
    for (int q = 0; len && q < K; q++)
        round += len[q];
    sp->round_peak = round > sp->round_peak ? round : sp->round_peak;
    if (rc == MMTB_OK) {
        /* in this rank's partitions: applied here, one at a time (two ranks
         * may have sent updates of one slot) */
        const uint64_t *e = recv;
        for (size_t k = 0; k < rlen / sizeof *e; k++) {
            uint64_t slot = e[k] >> 8;
            if (slot < sp->lo[pi] || slot >= sp->hi[pi]) {
                snprintf(sp->err, sizeof sp->err, "an update for slot %llu not held here",
                         (unsigned long long)slot);
                rc = MMTB_ERR_CORRUPT;
                break;
            }
            n += levels_apply_one(j, pi, slot, (uint32_t)(e[k] & 0xffu), d);
        }
    } else if (rc == MMTB_ERR_NOMEM) {
        snprintf(sp->err, sizeof sp->err, "out of memory");
    }
    free(recv);
    if (send)
        for (int q = 0; q < K; q++)
            free(send[q]);
    free(send);
    free(len);
    *found = n;
    return j->oom ? MMTB_ERR_NOMEM : rc;
}

/* A request of rank 0 for values: member, first slot, count. */
struct fill_req {
    uint64_t mi, first, count;
};

struct split_fill {
    struct job *j;
    int mi;
    int failed; /* a fetch failed: the file must not stand */
};

/* The writer's fill on rank 0: this rank's slots from its own states, the
 * others' fetched (wdl bytes, then depths as 2 little-endian bytes). */
static void split_fill(void *ctx, uint64_t first, uint64_t count, uint8_t *wdl, uint16_t *dtc)
{
    struct split_fill *f = ctx;
    struct split *sp = f->j->sp;
    const struct member *me = &f->j->m[f->mi];
    uint64_t end = first + count;
    for (uint64_t at = first; at < end;) {
        int r = split_owner(sp, f->mi, at >> PART_SHIFT);
        uint64_t stop = sp->plo[f->mi][r + 1] << PART_SHIFT;
        uint64_t n = (stop < end ? stop : end) - at;
        uint8_t *w = wdl + (at - first);
        uint16_t *t = dtc + (at - first);
        if (r == sp->rank) {
            pair_fill_values(me, at, n, w, t);
        } else {
            uint8_t *buf = malloc(3 * n);
            int rc = buf ? MMTB_OK : MMTB_ERR_NOMEM;
            struct fill_req q = {(uint64_t)f->mi, at, n};
            if (rc == MMTB_OK) {
#pragma omp critical(mmtb_split_fetch)
                rc = sp->t->fetch(sp->t->ctx, r, &q, sizeof q, buf, 3 * n, sp->err,
                                  sizeof sp->err);
            }
            if (rc != MMTB_OK) {
                __atomic_store_n(&f->failed, 1, __ATOMIC_RELAXED);
                memset(w, 3, n);
                memset(t, 0, n * sizeof *t);
            } else {
                memcpy(w, buf, n);
                for (uint64_t k = 0; k < n; k++)
                    t[k] = (uint16_t)(buf[n + 2 * k] | buf[n + 2 * k + 1] << 8);
            }
            free(buf);
        }
        at += n;
    }
}

/* The other ranks: answer rank 0's requests until it says it is done. */
static int serve(struct job *j)
{
    struct split *sp = j->sp;
    uint8_t *buf = NULL, *w = NULL;
    uint16_t *t = NULL;
    uint64_t cap = 0;
    int rc;
    for (;;) {
        struct fill_req q;
        size_t len = 0;
        rc = sp->t->serve_next(sp->t->ctx, &q, sizeof q, &len, sp->err, sizeof sp->err);
        if (rc != MMTB_OK || len == 0)
            break;
        if (len != sizeof q || q.mi >= (uint64_t)j->nm || q.first < sp->lo[q.mi] ||
            q.count > sp->hi[q.mi] - q.first) {
            snprintf(sp->err, sizeof sp->err, "rank 0 asked for values not held here");
            rc = MMTB_ERR_CORRUPT;
            break;
        }
        if (q.count > cap) {
            free(buf);
            free(w);
            free(t);
            cap = q.count;
            buf = malloc(3 * cap);
            w = malloc(cap);
            t = malloc(cap * sizeof *t);
            if (!buf || !w || !t) {
                snprintf(sp->err, sizeof sp->err, "out of memory");
                rc = MMTB_ERR_NOMEM;
                break;
            }
        }
        pair_fill_values(&j->m[q.mi], q.first, q.count, w, t);
        memcpy(buf, w, q.count);
        for (uint64_t k = 0; k < q.count; k++) {
            buf[q.count + 2 * k] = (uint8_t)t[k];
            buf[q.count + 2 * k + 1] = (uint8_t)(t[k] >> 8);
        }
        sp->sent_values += 3 * q.count;
        rc = sp->t->serve_reply(sp->t->ctx, buf, 3 * q.count, sp->err, sizeof sp->err);
        if (rc != MMTB_OK)
            break;
    }
    free(buf);
    free(w);
    free(t);
    return rc;
}

int split_write(struct job *j, const struct mmtb_solve_opts *o, const struct mmtb_sector *ss,
                struct mmtb_sector_stats *stats, char *err, size_t errlen)
{
    struct split *sp = j->sp;
    const struct mmtb_transport *t = sp->t;
    struct {
        int32_t rc;
        struct mmtb_sector_stats st[2];
    } res;
    memset(&res, 0, sizeof res);
    int rc = MMTB_OK;
    if (sp->rank == 0) {
        for (int i = 0; i < j->nm && res.rc == MMTB_OK; i++) {
            struct split_fill f = {j, i, 0};
            struct mmtb_write_opts wo;
            memset(&wo, 0, sizeof wo);
            wo.zstd_level = o->zstd_level;
            wo.dtc_zstd_level = o->dtc_zstd_level;
            res.rc = mmtb_table_write_sector(o->outdir, j->v, ss[i], j->m[i].slots, split_fill,
                                             &f, &wo, &res.st[i], err, errlen);
            if (res.rc == MMTB_OK && f.failed) {
                /* (the transport stops the run first; should it not, no
                 * file made of stand-in values may stay) */
                char path[4096], name[32];
                mmtb_sector_format(ss[i], name, sizeof name);
                snprintf(path, sizeof path, "%s/%s.mmtb", o->outdir, name);
                remove(path);
                snprintf(err, errlen, "fetching values from another rank: %s", sp->err);
                res.rc = MMTB_ERR_IO;
            }
        }
        /* the others stop serving, whatever happened here */
        for (int r = 1; r < sp->nranks; r++) {
            int frc = t->fetch(t->ctx, r, NULL, 0, NULL, 0, sp->err, sizeof sp->err);
            if (frc != MMTB_OK && res.rc == MMTB_OK) {
                snprintf(err, errlen, "%s", sp->err);
                res.rc = frc;
            }
        }
    } else {
        rc = serve(j);
        if (rc != MMTB_OK) {
            snprintf(err, errlen, "serving values to rank 0: %s", sp->err);
            return rc;
        }
    }
    int src = t->share(t->ctx, &res, sizeof res, err, errlen);
    if (src != MMTB_OK)
        return src;
    if (res.rc != MMTB_OK) {
        if (sp->rank != 0)
            snprintf(err, errlen, "rank 0 could not write the pair");
        return res.rc;
    }
    for (int i = 0; i < j->nm; i++)
        stats[i] = res.st[i];
    return rc;
}
