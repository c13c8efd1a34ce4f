/*
 * checkpoint.c - a pair's progress through its levels, saved to the table
 * directory and taken up again, so that a pair that takes hours is not
 * begun again from its init when the run is killed (a session's end, a
 * machine taken away).  At the start of a level, once the job's checkpoint
 * interval has passed since the pair began or since the last save, the
 * whole state the levels work on is written to DIR/NAME.ckpt (NAME.ckpt.tmp,
 * fsync, rename): the state bytes, chunk flags and init depth masks of each
 * member, the depth histograms, the deep lists and the buckets of the
 * levels still to come.  A rerun that meets the file restores the job from
 * it and goes on at that level, skipping the load and the init; the tables
 * it writes are those of a run never stopped.  The file is removed when the
 * pair's tables are about to be written.
 *
 * The file is private to this build of the solver (native byte order, the
 * meaning of the state bytes in job.h), one zstd frame with its content
 * checksum: a file of another version, variant or pair, or one damaged, is
 * reported and set aside, and the pair is solved from its start; a
 * checkpoint never makes a run fail.  Pairs split across ranks (split.c)
 * are not saved.  A save can also be asked for: mmtb_solve_checkpoint_on(sig)
 * makes signal sig (mmtb-gen: SIGUSR1) save the pair at the start of its next
 * level, or of the next pair's first level, whatever the interval says.
 */
#include "job.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>

#include "tablefile.h"
#include "tablewrite.h"

#define CKPT_MAGIC "MMTBCKPT"
/* Bump when the meaning of what is saved changes (job.h's state bytes,
 * the buckets' entries, the order of the sections). */
#define CKPT_VERSION 1u
#define CKPT_ENDIAN 0x01020304u
#define CKPT_END 0xffffffffu
#define CKPT_IO ((size_t)1 << 20) /* bytes of file read or written at a time */

struct ckpt_head {
    char magic[8];
    uint32_t version, endian;
    uint32_t text_len; /* the variant's descriptor, after this header */
    uint32_t nm, deep_from, nthreads;
    int32_t level, last_level, any_inpair, pad;
    struct mmtb_sector s[2];
    uint64_t slots[2], undecided[2];
    uint64_t bucket_peak, bucket_written;
};

/* ------------------------------------------------------------ streams */

struct ck_out {
    int fd;
    ZSTD_CCtx *z;
    uint8_t *buf;
    int rc;
    uint64_t bytes; /* written to the file */
};

static void out_drain(struct ck_out *o, const void *p, size_t n, ZSTD_EndDirective end)
{
    ZSTD_inBuffer in = {p, n, 0};
    for (;;) {
        if (o->rc != MMTB_OK)
            return;
        ZSTD_outBuffer out = {o->buf, CKPT_IO, 0};
        size_t left = ZSTD_compressStream2(o->z, &out, &in, end);
        if (ZSTD_isError(left)) {
            o->rc = MMTB_ERR_NOMEM;
            return;
        }
        for (size_t w = 0; w < out.pos;) {
            ssize_t k = write(o->fd, o->buf + w, out.pos - w);
            if (k < 0 && errno == EINTR)
                continue;
            if (k <= 0) {
                o->rc = MMTB_ERR_IO;
                return;
            }
            w += (size_t)k;
        }
        o->bytes += out.pos;
        if (end == ZSTD_e_end ? left == 0 : in.pos == in.size)
            return;
    }
}

static void put(struct ck_out *o, const void *p, size_t n)
{
    out_drain(o, p, n, ZSTD_e_continue);
}

static void put32(struct ck_out *o, uint32_t x)
{
    put(o, &x, sizeof x);
}

static void put64(struct ck_out *o, uint64_t x)
{
    put(o, &x, sizeof x);
}

struct ck_in {
    int fd;
    ZSTD_DCtx *z;
    uint8_t *buf;
    ZSTD_inBuffer in;
    size_t last; /* ZSTD_decompressStream's last return: 0 at the frame's end */
    bool eof;
    int rc;
};

/* A checkpoint file opened for reading (in->fd < 0 when it cannot be, errno
 * saying why), and its buffers released. */
static void in_open(struct ck_in *in, const char *path)
{
    *in = (struct ck_in){-1, ZSTD_createDCtx(), malloc(CKPT_IO), {NULL, 0, 0}, 1, false, MMTB_OK};
    in->fd = open(path, O_RDONLY);
    if (in->fd >= 0 && (!in->z || !in->buf))
        in->rc = MMTB_ERR_NOMEM;
}

static void in_close(struct ck_in *in)
{
    if (in->fd >= 0)
        close(in->fd);
    ZSTD_freeDCtx(in->z);
    free(in->buf);
}

/* Read exactly n bytes of the frame into p; false (and i->rc) when the file
 * is damaged, ends early or cannot be read. */
static bool get(struct ck_in *i, void *p, size_t n)
{
    ZSTD_outBuffer out = {p, n, 0};
    while (i->rc == MMTB_OK && out.pos < out.size) {
        if (i->in.pos == i->in.size && !i->eof) {
            ssize_t k = read(i->fd, i->buf, CKPT_IO);
            if (k < 0 && errno == EINTR)
                continue;
            if (k < 0) {
                i->rc = MMTB_ERR_IO;
                break;
            }
            i->eof = k == 0;
            i->in = (ZSTD_inBuffer){i->buf, (size_t)k, 0};
        }
        size_t before = out.pos, ipos = i->in.pos;
        i->last = ZSTD_decompressStream(i->z, &out, &i->in);
        if (ZSTD_isError(i->last) || (i->eof && out.pos == before && i->in.pos == ipos))
            i->rc = MMTB_ERR_CORRUPT;
    }
    return i->rc == MMTB_OK;
}

static bool get32(struct ck_in *i, uint32_t *x)
{
    return get(i, x, sizeof *x);
}

static bool get64(struct ck_in *i, uint64_t *x)
{
    return get(i, x, sizeof *x);
}

/* The frame ends here, its checksum checked, and nothing follows it. */
static bool get_end(struct ck_in *i)
{
    uint8_t extra;
    while (i->rc == MMTB_OK && i->last != 0) {
        ZSTD_outBuffer out = {&extra, 1, 0};
        if (i->in.pos == i->in.size) {
            ssize_t k = read(i->fd, i->buf, CKPT_IO);
            if (k <= 0) {
                i->rc = k < 0 ? MMTB_ERR_IO : MMTB_ERR_CORRUPT;
                break;
            }
            i->in = (ZSTD_inBuffer){i->buf, (size_t)k, 0};
        }
        i->last = ZSTD_decompressStream(i->z, &out, &i->in);
        if (ZSTD_isError(i->last) || out.pos)
            i->rc = MMTB_ERR_CORRUPT;
    }
    if (i->rc == MMTB_OK && (i->in.pos < i->in.size || read(i->fd, &extra, 1) != 0))
        i->rc = MMTB_ERR_CORRUPT;
    return i->rc == MMTB_OK;
}

/* ------------------------------------------------------------ the job */

static uint64_t nchunks_of(const struct member *me)
{
    return (me->slots + CHUNK - 1) / CHUNK;
}

void ckpt_file_name(const struct mmtb_sector *ss, int nss, char *buf, size_t len)
{
    char a[40] = "", b[40] = "";
    mmtb_tf_sector_name(ss[0], a, sizeof a);
    if (nss > 1)
        mmtb_tf_sector_name(ss[1], b, sizeof b);
    snprintf(buf, len, "%s%s%s.ckpt", a, nss > 1 ? "+" : "", b);
}

void ckpt_setup(struct job *j, const char *dir, double every, int kill_after, bool quiet)
{
    j->ckpt.dir = dir;
    j->ckpt.every = every;
    j->ckpt.kill_after = kill_after;
    j->ckpt.quiet = quiet;
    j->ckpt.last = progress_now();
    struct mmtb_sector ss[2] = {j->m[0].s, j->m[j->nm > 1].s};
    ckpt_file_name(ss, j->nm, j->ckpt.name, sizeof j->ckpt.name);
}

/* Set by the signal handler, taken by the next save. */
static volatile sig_atomic_t requested;

static void on_request(int sig)
{
    (void)sig;
    requested = 1;
}

int mmtb_solve_checkpoint_on(int sig)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_request;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    return sigaction(sig, &sa, NULL) == 0 ? MMTB_OK : MMTB_ERR_INVALID;
}

/* When the run is to stop (progress_now's clock; 0: never). */
static double stop_at;

void ckpt_stop_at(double t)
{
    stop_at = t;
}

bool ckpt_stopping(void)
{
    return stop_at > 0 && progress_now() >= stop_at;
}

bool ckpt_due(const struct job *j)
{
    return j->ckpt.dir && j->ckpt.every > 0 && !j->sp &&
           (requested || ckpt_stopping() || progress_now() - j->ckpt.last >= j->ckpt.every);
}

/* The checkpoint's path in the job's directory (+ suffix). */
static void ckpt_path(const struct job *j, const char *suffix, char *buf, size_t len)
{
    snprintf(buf, len, "%s/%s%s", j->ckpt.dir, j->ckpt.name, suffix);
}

/* A line on stderr about the checkpoint, "DIR/NAME: ...", unless quiet. */
__attribute__((format(printf, 2, 3))) static void say(const struct job *j, const char *fmt, ...)
{
    if (j->ckpt.quiet)
        return;
    fprintf(stderr, "%s/%s: ", j->ckpt.dir, j->ckpt.name);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

static void save_body(struct job *j, struct ck_out *o, int level)
{
    struct ckpt_head h;
    memset(&h, 0, sizeof h);
    memcpy(h.magic, CKPT_MAGIC, 8);
    h.version = CKPT_VERSION;
    h.endian = CKPT_ENDIAN;
    h.text_len = (uint32_t)j->v->text_len;
    h.nm = (uint32_t)j->nm;
    h.deep_from = j->deep_from;
    h.nthreads = (uint32_t)j->nthreads;
    h.level = level;
    h.last_level = j->last_level;
    h.any_inpair = j->any_inpair;
    for (int i = 0; i < j->nm; i++) {
        h.s[i] = j->m[i].s;
        h.slots[i] = j->m[i].slots;
        h.undecided[i] = j->undecided[i];
    }
    h.bucket_peak = j->bucket_peak;
    h.bucket_written = j->bucket_written;
    put(o, &h, sizeof h);
    put(o, j->v->text, j->v->text_len);
    for (int i = 0; i < j->nm; i++) {
        const struct member *me = &j->m[i];
        put(o, me->st, me->slots);
        put(o, me->flag_cur, nchunks_of(me) + 1);
        put(o, me->imask, (2 * nchunks_of(me) + 2) * sizeof *me->imask);
        put(o, j->mhist[i], (MAX_LEVELS + 1) * sizeof *j->mhist[i]);
    }
    for (int d = 0; d < MAX_LEVELS; d++)
        if (j->deep[d].n) {
            put32(o, (uint32_t)d);
            put64(o, j->deep[d].n);
            put(o, j->deep[d].e, j->deep[d].n * sizeof *j->deep[d].e);
        }
    put32(o, CKPT_END);
    for (int d = level; d < MAX_LEVELS; d++)
        for (int t = 0; t < j->nthreads; t++) {
            size_t n;
            const uint8_t *b;
            uint8_t *owned;
            int rc = buckets_stream(j, d, t, &b, &n, &owned);
            if (rc != MMTB_OK && o->rc == MMTB_OK)
                o->rc = rc;
            if (rc == MMTB_OK && n) {
                put32(o, (uint32_t)d);
                put32(o, (uint32_t)t);
                put64(o, n);
                put(o, b, n);
            }
            free(owned);
        }
    put32(o, CKPT_END);
    put(o, CKPT_MAGIC, 8);
}

void ckpt_save(struct job *j, int level)
{
    char path[4200], tmp[4200];
    ckpt_path(j, "", path, sizeof path);
    ckpt_path(j, ".tmp", tmp, sizeof tmp);
    bool asked = requested || ckpt_stopping(); /* (a signal during the save asks for the next) */
    requested = 0;
    double t0 = progress_now();
    struct ck_out o = {-1, ZSTD_createCCtx(), malloc(CKPT_IO), MMTB_OK, 0};
    if (!o.z || !o.buf)
        o.rc = MMTB_ERR_NOMEM;
    if (o.rc == MMTB_OK) {
        ZSTD_CCtx_setParameter(o.z, ZSTD_c_compressionLevel, 1);
        ZSTD_CCtx_setParameter(o.z, ZSTD_c_checksumFlag, 1);
        /* (a libzstd without threads refuses this; it then compresses alone) */
        if (j->nthreads > 1)
            ZSTD_CCtx_setParameter(o.z, ZSTD_c_nbWorkers, j->nthreads);
        o.fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (o.fd < 0)
            o.rc = MMTB_ERR_IO;
    }
    int err = 0;
    if (o.rc == MMTB_OK) {
        save_body(j, &o, level);
        out_drain(&o, NULL, 0, ZSTD_e_end);
        err = errno;
        if (o.rc == MMTB_OK && fsync(o.fd) != 0)
            o.rc = MMTB_ERR_IO, err = errno;
    } else {
        err = errno;
    }
    if (o.fd >= 0 && close(o.fd) != 0 && o.rc == MMTB_OK)
        o.rc = MMTB_ERR_IO, err = errno;
    if (o.rc == MMTB_OK && rename(tmp, path) != 0)
        o.rc = MMTB_ERR_IO, err = errno;
    ZSTD_freeCCtx(o.z);
    free(o.buf);
    if (o.rc != MMTB_OK) {
        unlink(tmp);
        /* the solve goes on; only its saves stop */
        say(j, "cannot save the pair's progress (%s); going on without checkpoints",
            o.rc == MMTB_ERR_IO ? strerror(err) : mmtb_strerror(o.rc));
        j->ckpt.every = -1;
        return;
    }
    mmtb_table_sync_dir(j->ckpt.dir);
    j->ckpt.saves++;
    j->ckpt.last = progress_now();
    if (j->ckpt.verbose || (asked && !j->ckpt.quiet))
        fprintf(stderr, "%s: level %d saved%s, %.1f MiB in %.2fs\n", j->ckpt.name, level,
                asked ? " as asked" : "", (double)o.bytes / (1 << 20), j->ckpt.last - t0);
    /* tests: a run killed just after its kill_after-th save (counted over
     * the process, so that a kill can land early in a later pair) */
    static int saves_in_process;
    if (j->ckpt.kill_after && ++saves_in_process >= j->ckpt.kill_after)
        raise(SIGKILL);
}

/* The sections after the header, into the job; MMTB_OK or the reason. */
static int load_body(struct job *j, struct ck_in *in, const struct ckpt_head *h)
{
    for (int i = 0; i < j->nm; i++) {
        struct member *me = &j->m[i];
        free(me->imask);
        me->imask = malloc((2 * nchunks_of(me) + 2) * sizeof *me->imask);
        if (!me->imask)
            return MMTB_ERR_NOMEM;
        if (!get(in, me->st, me->slots) || !get(in, me->flag_cur, nchunks_of(me) + 1) ||
            !get(in, me->imask, (2 * nchunks_of(me) + 2) * sizeof *me->imask) ||
            !get(in, j->mhist[i], (MAX_LEVELS + 1) * sizeof *j->mhist[i]))
            return in->rc;
        memset(me->flag_next, 0, nchunks_of(me) + 1);
    }
    uint32_t d, t;
    uint64_t n;
    while (get32(in, &d) && d != CKPT_END) {
        if (d >= MAX_LEVELS || j->deep[d].n || !get64(in, &n) || n > ((uint64_t)1 << 40))
            return in->rc != MMTB_OK ? in->rc : MMTB_ERR_CORRUPT;
        uint64_t *e = malloc(n * sizeof *e);
        if (!e)
            return MMTB_ERR_NOMEM;
        j->deep[d] = (struct vec64){e, n, n};
        if (!get(in, e, n * sizeof *e))
            return in->rc;
    }
    while (in->rc == MMTB_OK && get32(in, &d) && d != CKPT_END) {
        if (d >= MAX_LEVELS || (int32_t)d < h->level || !get32(in, &t) || t >= h->nthreads ||
            !get64(in, &n) || n == 0 || n > ((uint64_t)1 << 40))
            return in->rc != MMTB_OK ? in->rc : MMTB_ERR_CORRUPT;
        uint8_t *b = malloc(n);
        if (!b)
            return MMTB_ERR_NOMEM;
        if (!get(in, b, n)) {
            free(b);
            return in->rc;
        }
        int rc = buckets_restore(j, (int)d, (int)(t % (uint32_t)j->nthreads), b, n);
        if (rc != MMTB_OK)
            return rc;
    }
    char end[8];
    if (in->rc != MMTB_OK || !get(in, end, 8) || memcmp(end, CKPT_MAGIC, 8) || !get_end(in))
        return in->rc != MMTB_OK ? in->rc : MMTB_ERR_CORRUPT;
    j->last_level = h->last_level;
    j->any_inpair = h->any_inpair;
    j->bucket_peak = h->bucket_peak;
    j->bucket_written = h->bucket_written;
    for (int i = 0; i < j->nm; i++)
        j->undecided[i] = h->undecided[i];
    return MMTB_OK;
}

/* What makes header h not a checkpoint of this version for the pair
 * ss[0..nss), or NULL when it is one. */
static const char *head_pair_why(const struct ckpt_head *h, const struct mmtb_sector *ss, int nss)
{
    if (memcmp(h->magic, CKPT_MAGIC, 8))
        return "not a checkpoint";
    if (h->version != CKPT_VERSION || h->endian != CKPT_ENDIAN)
        return "written by another version of mmtb-gen";
    if (h->nm != (uint32_t)nss || h->level < 0 || h->level >= (int32_t)MAX_DEPTH ||
        h->last_level < h->level)
        return "of another pair or variant";
    for (int i = 0; i < nss; i++)
        if (memcmp(&h->s[i], &ss[i], sizeof ss[i]))
            return "of another pair";
    return NULL;
}

/* Whether the header belongs to this job (same build format, variant,
 * pair and depth path); why says what differs. */
static bool head_fits(const struct job *j, const struct ckpt_head *h, const char **why)
{
    struct mmtb_sector ss[2] = {j->m[0].s, j->m[j->nm > 1].s};
    *why = head_pair_why(h, ss, j->nm);
    if (!*why &&
        (h->text_len != j->v->text_len || h->deep_from != j->deep_from || h->nthreads == 0))
        *why = "of another pair or variant";
    for (int i = 0; !*why && i < j->nm; i++)
        if (h->slots[i] != j->m[i].slots)
            *why = "of another pair";
    return !*why;
}

int ckpt_load(struct job *j, int *level)
{
    *level = -1;
    if (!j->ckpt.dir || j->sp)
        return MMTB_ERR_MISSING;
    char path[4200];
    ckpt_path(j, "", path, sizeof path);
    struct ck_in in;
    in_open(&in, path);
    if (in.fd < 0) {
        int e = errno;
        in_close(&in);
        if (e == ENOENT)
            return MMTB_ERR_MISSING;
        say(j, "cannot read it (%s); solving the pair from its start", strerror(e));
        return MMTB_ERR_IO;
    }
    struct ckpt_head h;
    const char *why = NULL;
    char *text = NULL;
    int rc = in.rc;
    if (rc == MMTB_OK && !get(&in, &h, sizeof h))
        rc = in.rc;
    if (rc == MMTB_OK && !head_fits(j, &h, &why))
        rc = MMTB_ERR_MISMATCH;
    if (rc == MMTB_OK && !(text = malloc(h.text_len + 1)))
        rc = MMTB_ERR_NOMEM;
    if (rc == MMTB_OK && !get(&in, text, h.text_len))
        rc = in.rc;
    if (rc == MMTB_OK && memcmp(text, j->v->text, h.text_len)) {
        why = "of another variant";
        rc = MMTB_ERR_MISMATCH;
    }
    if (rc == MMTB_OK)
        rc = load_body(j, &in, &h);
    free(text);
    in_close(&in);
    if (rc != MMTB_OK) {
        say(j, "%s%s; solving the pair from its start",
            why                    ? why
            : rc == MMTB_ERR_NOMEM ? "out of memory reading it"
                                   : "damaged",
            rc == MMTB_ERR_CORRUPT ? " (it ends early or its checksum fails)" : "");
        return rc;
    }
    *level = h.level;
    j->ckpt.last = progress_now();
    return MMTB_OK;
}

int ckpt_peek(const char *dir, const struct mmtb_sector *ss, int nss)
{
    char name[96], path[4200];
    ckpt_file_name(ss, nss, name, sizeof name);
    snprintf(path, sizeof path, "%s/%s", dir, name);
    struct ck_in in;
    in_open(&in, path);
    struct ckpt_head h;
    bool ok = in.fd >= 0 && get(&in, &h, sizeof h) && !head_pair_why(&h, ss, nss);
    in_close(&in);
    return ok ? h.level : -1;
}

void ckpt_remove(const struct job *j)
{
    if (!j->ckpt.dir || j->sp)
        return;
    char path[4200], tmp[4200];
    ckpt_path(j, "", path, sizeof path);
    ckpt_path(j, ".tmp", tmp, sizeof tmp); /* (a save cut by a kill leaves it) */
    bool gone = unlink(path) == 0;
    gone = unlink(tmp) == 0 || gone;
    if (gone)
        mmtb_table_sync_dir(j->ckpt.dir);
}
