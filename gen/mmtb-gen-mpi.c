/*
 * mmtb-gen-mpi - mmtb-gen on MPI: `mpirun -np N mmtb-gen-mpi -v VARIANT -o DIR`
 * takes mmtb-gen's options (cli.c) and solves the game's sector pairs on N
 * ranks that share the table directory (schedule.c plans who solves what;
 * this file is only the transport: a broadcast of rank 0's view of the
 * directory and one small message per pair written; for a pair split among
 * the ranks (split.c), an all-to-all exchange of level updates per round,
 * reductions, and rank 0's requests for values as it writes).  The tables
 * are the same bytes as mmtb-gen's.  Exit codes as mmtb-gen's; a failed rank stops
 * the whole run (MPI_Abort), and a rerun resumes.
 */
#include <mpi.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "solve.h"

#define TAG_DONE 21
#define TAG_REQ 22  /* rank 0 asks for values (split pairs) */
#define TAG_RESP 23 /* and gets them */

struct mpi_ctx {
    bool started;      /* the first collective call was made */
    MPI_Request *reqs; /* the announcements still being sent */
    void **bufs;       /* their copies of the message, one per announcement */
    int nreq, capreq, nbuf, capbuf;
};

/* err receives MPI's text of mpi_rc after what. */
static int mpi_fail(int mpi_rc, const char *what, char *err, size_t errlen)
{
    char s[MPI_MAX_ERROR_STRING];
    int n = 0;
    MPI_Error_string(mpi_rc, s, &n);
    snprintf(err, errlen, "MPI %s failed: %s", what, s);
    return MMTB_ERR_IO;
}

static int t_share(void *ctx, void *buf, size_t len, char *err, size_t errlen)
{
    ((struct mpi_ctx *)ctx)->started = true;
    int rc = MPI_Bcast(buf, (int)len, MPI_BYTE, 0, MPI_COMM_WORLD);
    return rc == MPI_SUCCESS ? MMTB_OK : mpi_fail(rc, "broadcast", err, errlen);
}

/* One non-blocking send per other rank; the message is copied and kept
 * until the sends complete at the end (finish). */
static int t_announce(void *ctx, const void *msg, size_t len, char *err, size_t errlen)
{
    struct mpi_ctx *c = ctx;
    int me, n;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    if (c->nreq + n > c->capreq) {
        int cap = 2 * (c->nreq + n);
        MPI_Request *r = realloc(c->reqs, (size_t)cap * sizeof *r);
        if (!r)
            goto nomem;
        c->reqs = r;
        c->capreq = cap;
    }
    if (c->nbuf == c->capbuf) {
        int cap = c->capbuf ? 2 * c->capbuf : 64;
        void **b = realloc(c->bufs, (size_t)cap * sizeof *b);
        if (!b)
            goto nomem;
        c->bufs = b;
        c->capbuf = cap;
    }
    void *copy = malloc(len);
    if (!copy)
        goto nomem;
    memcpy(copy, msg, len);
    c->bufs[c->nbuf++] = copy;
    for (int r = 0; r < n; r++) {
        if (r == me)
            continue;
        int rc = MPI_Isend(copy, (int)len, MPI_BYTE, r, TAG_DONE, MPI_COMM_WORLD,
                           &c->reqs[c->nreq++]);
        if (rc != MPI_SUCCESS)
            return mpi_fail(rc, "send", err, errlen);
    }
    return MMTB_OK;
nomem:
    snprintf(err, errlen, "out of memory");
    return MMTB_ERR_NOMEM;
}

static int t_next(void *ctx, void *msg, size_t len, char *err, size_t errlen)
{
    (void)ctx;
    MPI_Status st;
    int rc = MPI_Recv(msg, (int)len, MPI_BYTE, MPI_ANY_SOURCE, TAG_DONE, MPI_COMM_WORLD, &st);
    if (rc != MPI_SUCCESS)
        return mpi_fail(rc, "receive", err, errlen);
    int got = 0;
    MPI_Get_count(&st, MPI_BYTE, &got);
    if (got != (int)len) {
        snprintf(err, errlen, "rank %d sent a message of %d bytes, expected %zu", st.MPI_SOURCE,
                 got, len);
        return MMTB_ERR_CORRUPT;
    }
    return MMTB_OK;
}

/* All-to-all of byte buffers: the sizes first, then the bytes. */
static int t_exchange(void *ctx, void *const *send, const size_t *sendlen, void **recv,
                      size_t *recvlen, char *err, size_t errlen)
{
    (void)ctx;
    int me, n;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    int *sc = calloc((size_t)n, sizeof *sc), *rcnt = calloc((size_t)n, sizeof *rcnt);
    int *sd = calloc((size_t)n, sizeof *sd), *rd = calloc((size_t)n, sizeof *rd);
    char *sbuf = NULL, *rbuf = NULL;
    int rc = MMTB_ERR_NOMEM;
    *recv = NULL;
    for (int r = 0; r < n; r++)
        recvlen[r] = 0;
    if (!sc || !rcnt || !sd || !rd)
        goto out;
    size_t stot = 0;
    for (int r = 0; r < n; r++) {
        size_t l = r == me ? 0 : sendlen[r];
        if (l > (size_t)INT32_MAX || stot + l > (size_t)INT32_MAX) {
            snprintf(err, errlen, "a round of updates of more than 2 GiB");
            rc = MMTB_ERR_UNSUPPORTED;
            goto out;
        }
        sc[r] = (int)l;
        sd[r] = (int)stot;
        stot += l;
    }
    int mrc = MPI_Alltoall(sc, 1, MPI_INT, rcnt, 1, MPI_INT, MPI_COMM_WORLD);
    if (mrc != MPI_SUCCESS) {
        rc = mpi_fail(mrc, "all-to-all", err, errlen);
        goto out;
    }
    size_t rtot = 0;
    for (int r = 0; r < n; r++) {
        rd[r] = (int)rtot;
        rtot += (size_t)rcnt[r];
    }
    if (rtot > (size_t)INT32_MAX) {
        snprintf(err, errlen, "a round of updates of more than 2 GiB");
        rc = MMTB_ERR_UNSUPPORTED;
        goto out;
    }
    sbuf = malloc(stot ? stot : 1);
    rbuf = malloc(rtot ? rtot : 1);
    if (!sbuf || !rbuf)
        goto out;
    for (int r = 0; r < n; r++)
        if (sc[r])
            memcpy(sbuf + sd[r], send[r], (size_t)sc[r]);
    mrc = MPI_Alltoallv(sbuf, sc, sd, MPI_BYTE, rbuf, rcnt, rd, MPI_BYTE, MPI_COMM_WORLD);
    if (mrc != MPI_SUCCESS) {
        rc = mpi_fail(mrc, "all-to-all", err, errlen);
        goto out;
    }
    *recv = rbuf;
    for (int r = 0; r < n; r++)
        recvlen[r] = (size_t)rcnt[r];
    rbuf = NULL;
    rc = MMTB_OK;
out:
    if (rc == MMTB_ERR_NOMEM)
        snprintf(err, errlen, "out of memory");
    free(sc);
    free(rcnt);
    free(sd);
    free(rd);
    free(sbuf);
    free(rbuf);
    return rc;
}

static int t_reduce(void *ctx, uint64_t *v, int n, bool max, char *err, size_t errlen)
{
    (void)ctx;
    int rc = MPI_Allreduce(MPI_IN_PLACE, v, n, MPI_UINT64_T, max ? MPI_MAX : MPI_SUM,
                           MPI_COMM_WORLD);
    return rc == MPI_SUCCESS ? MMTB_OK : mpi_fail(rc, "reduction", err, errlen);
}

static int t_fetch(void *ctx, int rank, const void *req, size_t reqlen, void *resp,
                   size_t respcap, size_t *resplen, char *err, size_t errlen)
{
    (void)ctx;
    int rc = MPI_Send(req, (int)reqlen, MPI_BYTE, rank, TAG_REQ, MPI_COMM_WORLD);
    if (rc != MPI_SUCCESS)
        return mpi_fail(rc, "send", err, errlen);
    if (respcap == 0)
        return MMTB_OK;
    if (respcap > (size_t)INT32_MAX) {
        snprintf(err, errlen, "an answer of more than 2 GiB");
        return MMTB_ERR_UNSUPPORTED;
    }
    MPI_Status st;
    rc = MPI_Recv(resp, (int)respcap, MPI_BYTE, rank, TAG_RESP, MPI_COMM_WORLD, &st);
    if (rc != MPI_SUCCESS)
        return mpi_fail(rc, "receive", err, errlen);
    int got = 0;
    MPI_Get_count(&st, MPI_BYTE, &got);
    if (resplen)
        *resplen = (size_t)got;
    else if ((size_t)got != respcap) {
        snprintf(err, errlen, "rank %d answered %d bytes, expected %zu", rank, got, respcap);
        return MMTB_ERR_CORRUPT;
    }
    return MMTB_OK;
}

static int t_serve_next(void *ctx, void *req, size_t reqcap, size_t *reqlen, char *err,
                        size_t errlen)
{
    (void)ctx;
    MPI_Status st;
    int rc = MPI_Recv(req, (int)reqcap, MPI_BYTE, 0, TAG_REQ, MPI_COMM_WORLD, &st);
    if (rc != MPI_SUCCESS)
        return mpi_fail(rc, "receive", err, errlen);
    int got = 0;
    MPI_Get_count(&st, MPI_BYTE, &got);
    *reqlen = (size_t)got;
    return MMTB_OK;
}

static int t_serve_reply(void *ctx, const void *resp, size_t len, char *err, size_t errlen)
{
    (void)ctx;
    int rc = MPI_Send(resp, (int)len, MPI_BYTE, 0, TAG_RESP, MPI_COMM_WORLD);
    return rc == MPI_SUCCESS ? MMTB_OK : mpi_fail(rc, "send", err, errlen);
}

/* Complete the announcements and release their copies. */
static int finish(struct mpi_ctx *c)
{
    int rc = c->nreq ? MPI_Waitall(c->nreq, c->reqs, MPI_STATUSES_IGNORE) : MPI_SUCCESS;
    for (int i = 0; i < c->nbuf; i++)
        free(c->bufs[i]);
    free(c->bufs);
    free(c->reqs);
    return rc;
}

int main(int argc, char **argv)
{
    /* rank 0's writer fetches values from its worker threads, one at a
     * time (split pairs) */
    int provided = MPI_THREAD_SINGLE;
    if (MPI_Init_thread(&argc, &argv, MPI_THREAD_SERIALIZED, &provided) != MPI_SUCCESS) {
        fprintf(stderr, "mmtb-gen-mpi: MPI_Init failed\n");
        return 2;
    }
    /* errors come back as codes, reported with the rank that saw them */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int me = 0, n = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    static struct gen_cli c;
    /* every rank parses; rank 0 speaks */
    int code = gen_cli_parse(&c, "mmtb-gen-mpi", argc, argv, me == 0 ? stdout : NULL,
                             me == 0 ? stderr : NULL);
    char err[512] = "";
    if (code < 0 && c.verify) {
        /* verify reads the tables on rank 0 alone */
        if (me == 0) {
            int rc = mmtb_verify(&c.verify_opts, err, sizeof err);
            if (rc != MMTB_OK)
                fprintf(stderr, "mmtb-gen-mpi verify: %s\n", err);
            code = rc != MMTB_OK ? gen_cli_exit_code(rc) : c.mismatches ? 3 : 0;
        }
        MPI_Bcast(&code, 1, MPI_INT, 0, MPI_COMM_WORLD);
    }
    if (code < 0 && c.pack) {
        /* pack rewrites files on rank 0 alone */
        if (me == 0) {
            int rc = mmtb_pack(&c.pack_opts, NULL, err, sizeof err);
            if (rc != MMTB_OK)
                fprintf(stderr, "mmtb-gen-mpi pack: %s\n", err);
            code = rc != MMTB_OK ? gen_cli_exit_code(rc) : 0;
        }
        MPI_Bcast(&code, 1, MPI_INT, 0, MPI_COMM_WORLD);
    }
    if (code >= 0) {
        MPI_Finalize();
        return code;
    }
    struct mpi_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    struct mmtb_transport t = {me,         n,        &ctx,         t_share,
                               t_announce, t_next,   t_exchange,   t_reduce,
                               t_fetch,    t_serve_next, t_serve_reply};
    if (provided < MPI_THREAD_SERIALIZED) {
        /* this MPI cannot take calls from the writer's threads: no split pairs */
        t.exchange = NULL;
    }
    c.solve.transport = &t;
    /* SIGUSR1 (mpirun passes it on to every rank) saves each rank's pair at
     * its next level, as in mmtb-gen; split pairs are not saved */
    if (mmtb_solve_checkpoint_on(SIGUSR1) != MMTB_OK && me == 0)
        fprintf(stderr, "mmtb-gen-mpi: cannot catch SIGUSR1; a checkpoint cannot be asked for\n");
    int rc = mmtb_solve(&c.solve, err, sizeof err);
    if (rc != MMTB_OK) {
        /* before the first broadcast every rank fails alike: rank 0 says so */
        if (me == 0 || ctx.started)
            fprintf(stderr, "mmtb-gen-mpi: rank %d of %d: %s\n", me, n, err);
        fflush(stderr);
        MPI_Abort(MPI_COMM_WORLD, gen_cli_exit_code(rc));
        return gen_cli_exit_code(rc);
    }
    rc = finish(&ctx);
    if (rc == MPI_SUCCESS)
        rc = MPI_Barrier(MPI_COMM_WORLD);
    if (rc != MPI_SUCCESS) {
        mpi_fail(rc, "finish", err, sizeof err);
        fprintf(stderr, "mmtb-gen-mpi: rank %d of %d: %s\n", me, n, err);
        MPI_Abort(MPI_COMM_WORLD, 2);
        return 2;
    }
    MPI_Finalize();
    return 0;
}
