/*
 * mmtb-gen-mpi - mmtb-gen on MPI: `mpirun -np N mmtb-gen-mpi -v VARIANT -o DIR`
 * takes mmtb-gen's options (cli.c) and solves the game's sector pairs on N
 * ranks that share the table directory (schedule.c plans who solves what;
 * this file is only the transport: a broadcast of rank 0's view of the
 * directory and one small message per pair written).  The tables are the
 * same bytes as mmtb-gen's.  Exit codes as mmtb-gen's; a failed rank stops
 * the whole run (MPI_Abort), and a rerun resumes.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "solve.h"

#define TAG_DONE 21

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
    if (MPI_Init(&argc, &argv) != MPI_SUCCESS) {
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
    if (code >= 0) {
        MPI_Finalize();
        return code;
    }
    struct mpi_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    struct mmtb_transport t = {me, n, &ctx, t_share, t_announce, t_next};
    c.solve.transport = &t;
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
