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
 * - the writer runs on rank 0; each other rank packs and compresses the
 *   blocks of its own slots and sends them (split_write); the file is the
 *   same bytes as mmtb-gen's.
 * The solved sectors the pair reads are loaded whole by every rank: what
 * is divided is the pair's own state (see docs/SCALING.md).
 */
#include "job.h"

#include <stdio.h>
#include <string.h>

#include "tablefile.h"
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
int split_exchange_updates(struct job *j, int pi, uint64_t **got, size_t *ngot)
{
    *got = NULL;
    *ngot = 0;
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
    uint64_t round = rlen;
    for (int q = 0; len && q < K; q++)
        round += len[q];
    sp->round_peak = round > sp->round_peak ? round : sp->round_peak;
    if (rc == MMTB_OK) {
        /* for this rank's partitions only */
        const uint64_t *e = recv;
        for (size_t k = 0; k < rlen / sizeof *e; k++) {
            uint64_t slot = e[k] >> 8;
            if (slot < sp->lo[pi] || slot >= sp->hi[pi]) {
                snprintf(sp->err, sizeof sp->err, "an update for slot %llu not held here",
                         (unsigned long long)slot);
                rc = MMTB_ERR_CORRUPT;
                break;
            }
        }
    } else if (rc == MMTB_ERR_NOMEM) {
        snprintf(sp->err, sizeof sp->err, "out of memory");
    }
    if (rc == MMTB_OK) {
        *got = recv;
        *ngot = rlen / sizeof **got;
    } else {
        free(recv);
    }
    if (send)
        for (int q = 0; q < K; q++)
            free(send[q]);
    free(send);
    free(len);
    return rc;
}

/*
 * Writing.  Rank 0 runs the writer (tablewrite.c) and makes the blocks of
 * its own slots; the blocks of the other ranks' slots are made by them
 * (mmtb_table_make_blocks: packed and compressed exactly as the writer
 * would) and sent to it compressed.  At the start of each plane rank 0
 * tells every other rank to make all its blocks of that plane (with the
 * DTW width, known once the W/D/L plane has been counted), and goes on
 * with its own meanwhile; then it asks for them a run at a time.  Blocks
 * never straddle two ranks: the runs are whole partitions.
 */
_Static_assert(MMTB_TF_WDL_BLOCK_LOG2 <= PART_SHIFT && MMTB_TF_DTW_BLOCK_LOG2 <= PART_SHIFT,
               "a block must lie in one partition");

enum { REQ_DONE = 0, REQ_PLANE = 1, REQ_BLOCKS = 2 };

/* A request of rank 0: REQ_PLANE (member, plane, count = DTW width) or
 * REQ_BLOCKS (member, plane, blocks [first, first + count)). */
struct split_req {
    uint64_t op, mi, plane, first, count;
};

static void fill_member(void *ctx, uint64_t first, uint64_t count, uint8_t *wdl, uint16_t *dtw)
{
    state_values(ctx, first, count, wdl, dtw);
}

/* Rank 0's view of the other ranks' blocks of member mi. */
struct split_src {
    struct job *j;
    int mi;
    uint8_t *buf; /* an answer */
    size_t cap;
};

static bool src_remote(void *ctx, uint64_t first_slot)
{
    struct split_src *c = ctx;
    return split_owner(c->j->sp, c->mi, first_slot >> PART_SHIFT) != c->j->sp->rank;
}

static int src_plane_start(void *ctx, int plane, int dtw_width)
{
    struct split_src *c = ctx;
    struct split *sp = c->j->sp;
    struct split_req q = {REQ_PLANE, (uint64_t)c->mi, (uint64_t)plane, 0, (uint64_t)dtw_width};
    for (int r = 0; r < sp->nranks; r++) {
        if (r == sp->rank)
            continue;
        int rc = sp->t->fetch(sp->t->ctx, r, &q, sizeof q, NULL, 0, NULL, sp->err, sizeof sp->err);
        if (rc != MMTB_OK)
            return rc;
    }
    return MMTB_OK;
}

static int src_get(void *ctx, int plane, uint64_t b, uint64_t n, uint8_t *buf, size_t bound,
                   struct mmtb_made_block *made)
{
    struct split_src *c = ctx;
    struct split *sp = c->j->sp;
    int log = plane == MMTB_TF_WDL ? MMTB_TF_WDL_BLOCK_LOG2 : MMTB_TF_DTW_BLOCK_LOG2;
    for (uint64_t k = 0; k < n;) {
        /* the blocks of one rank */
        int r = split_owner(sp, c->mi, ((b + k) << log) >> PART_SHIFT);
        uint64_t e = k + 1;
        while (e < n && split_owner(sp, c->mi, ((b + e) << log) >> PART_SHIFT) == r)
            e++;
        size_t need = (size_t)(e - k) * (sizeof *made + bound);
        if (need > c->cap) {
            free(c->buf);
            c->buf = malloc(need);
            c->cap = c->buf ? need : 0;
            if (!c->buf)
                return MMTB_ERR_NOMEM;
        }
        struct split_req q = {REQ_BLOCKS, (uint64_t)c->mi, (uint64_t)plane, b + k, e - k};
        size_t got = 0;
        int rc = sp->t->fetch(sp->t->ctx, r, &q, sizeof q, c->buf, need, &got, sp->err,
                              sizeof sp->err);
        if (rc != MMTB_OK)
            return rc;
        size_t at = (size_t)(e - k) * sizeof *made;
        if (got < at) {
            snprintf(sp->err, sizeof sp->err, "rank %d sent %zu bytes for %llu blocks", r, got,
                     (unsigned long long)(e - k));
            return MMTB_ERR_CORRUPT;
        }
        memcpy(made + k, c->buf, at);
        for (uint64_t x = k; x < e; x++) {
            if (made[x].rc != MMTB_OK)
                continue;
            if (made[x].csize > bound || at + made[x].csize > got) {
                snprintf(sp->err, sizeof sp->err, "rank %d sent a block too long", r);
                return MMTB_ERR_CORRUPT;
            }
            memcpy(buf + x * bound, c->buf + at, made[x].csize);
            at += made[x].csize;
        }
        k = e;
    }
    return MMTB_OK;
}

/* The other ranks: make the blocks of their slots when told, send them when
 * asked, until rank 0 says it is done. */
static int serve(struct job *j, const struct mmtb_write_opts *wo)
{
    struct split *sp = j->sp;
    uint8_t *bytes = NULL, *out = NULL;
    struct mmtb_made_block *made = NULL;
    uint64_t *at = NULL; /* where each made block's bytes start */
    uint64_t ob0 = 0, ob1 = 0, plane = 0, mi = 0;
    int made_rc = MMTB_ERR_INVALID; /* no plane made yet */
    size_t outcap = 0;
    int rc;
    for (;;) {
        struct split_req q;
        size_t len = 0;
        rc = sp->t->serve_next(sp->t->ctx, &q, sizeof q, &len, sp->err, sizeof sp->err);
        if (rc != MMTB_OK || len == 0)
            break;
        if (len != sizeof q || q.mi >= (uint64_t)j->nm || q.plane > 1) {
            snprintf(sp->err, sizeof sp->err, "a request of rank 0 not understood");
            rc = MMTB_ERR_CORRUPT;
            break;
        }
        if (q.op == REQ_PLANE) {
            free(bytes);
            free(made);
            free(at);
            bytes = NULL;
            mi = q.mi;
            plane = q.plane;
            int log = plane == MMTB_TF_WDL ? MMTB_TF_WDL_BLOCK_LOG2 : MMTB_TF_DTW_BLOCK_LOG2;
            uint64_t bs = (uint64_t)1 << log, slots = j->m[mi].slots;
            uint64_t nblocks = plane == MMTB_TF_DTW && q.count == 0 ? 0 : (slots + bs - 1) >> log;
            ob0 = (sp->lo[mi] + bs - 1) >> log;
            ob1 = (sp->hi[mi] + bs - 1) >> log;
            ob1 = ob1 < nblocks ? ob1 : nblocks;
            ob0 = ob0 < ob1 ? ob0 : ob1;
            made = calloc((size_t)(ob1 - ob0) + 1, sizeof *made);
            at = calloc((size_t)(ob1 - ob0) + 1, sizeof *at);
            made_rc = made && at ? MMTB_OK : MMTB_ERR_NOMEM;
            if (made_rc == MMTB_OK)
                made_rc = mmtb_table_make_blocks(j->v, j->m[mi].s, slots, fill_member,
                                                 &j->m[mi], wo, (int)plane, (int)q.count, ob0,
                                                 ob1, &bytes, made);
            for (uint64_t k = 0; made_rc == MMTB_OK && k < ob1 - ob0; k++)
                at[k + 1] = at[k] + (made[k].rc == MMTB_OK ? made[k].csize : 0);
            continue;
        }
        if (q.op != REQ_BLOCKS || q.mi != mi || q.plane != plane || q.first < ob0 ||
            q.count > ob1 - q.first) {
            snprintf(sp->err, sizeof sp->err, "rank 0 asked for blocks not made here");
            rc = MMTB_ERR_CORRUPT;
            break;
        }
        if (made_rc != MMTB_OK) {
            snprintf(sp->err, sizeof sp->err, "making blocks: %s", mmtb_strerror(made_rc));
            rc = made_rc;
            break;
        }
        uint64_t k0 = q.first - ob0;
        size_t head = (size_t)q.count * sizeof *made, body = at[k0 + q.count] - at[k0];
        if (head + body > outcap) {
            free(out);
            out = malloc(head + body);
            outcap = out ? head + body : 0;
            if (!out) {
                snprintf(sp->err, sizeof sp->err, "out of memory");
                rc = MMTB_ERR_NOMEM;
                break;
            }
        }
        memcpy(out, made + k0, head);
        memcpy(out + head, bytes + at[k0], body);
        sp->sent_values += head + body;
        rc = sp->t->serve_reply(sp->t->ctx, out, head + body, sp->err, sizeof sp->err);
        if (rc != MMTB_OK)
            break;
    }
    free(bytes);
    free(made);
    free(at);
    free(out);
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
    struct mmtb_write_opts wo;
    memset(&wo, 0, sizeof wo);
    wo.zstd_level = o->zstd_level;
    wo.dtw_zstd_level = o->dtw_zstd_level;
    if (sp->rank == 0) {
        for (int i = 0; i < j->nm && res.rc == MMTB_OK; i++) {
            struct split_src c = {j, i, NULL, 0};
            struct mmtb_block_source src = {&c, src_remote, src_plane_start, src_get};
            wo.remote = &src;
            res.rc = mmtb_table_write_sector(o->outdir, j->v, ss[i], j->m[i].slots, fill_member,
                                             &j->m[i], &wo, &res.st[i], err, errlen);
            free(c.buf);
            if (res.rc != MMTB_OK && sp->err[0] && !strstr(err, sp->err))
                snprintf(err + strlen(err), errlen - strlen(err), " (%s)", sp->err);
        }
        /* the others stop serving, whatever happened here */
        for (int r = 1; r < sp->nranks; r++) {
            int frc = t->fetch(t->ctx, r, NULL, 0, NULL, 0, NULL, sp->err, sizeof sp->err);
            if (frc != MMTB_OK && res.rc == MMTB_OK) {
                snprintf(err, errlen, "%s", sp->err);
                res.rc = frc;
            }
        }
    } else {
        int rc = serve(j, &wo);
        if (rc != MMTB_OK) {
            snprintf(err, errlen, "serving blocks to rank 0: %s", sp->err);
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
    return MMTB_OK;
}
