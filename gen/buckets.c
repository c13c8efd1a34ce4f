/*
 * buckets.c - the per-level buckets of a job: outside results (a capture or
 * placement into a solved sector) that decide a position, or let it be lost,
 * only at a later level.  Under the depth to win most outside results are
 * deeper than one ply, so a pair may hold millions of them: each thread
 * appends to its own stream per level (no lock), and an entry is stored as
 * the varint of its distance from the thread's previous entry of that level,
 * which the init pass's walk in slot order keeps small (two to three bytes
 * where a plain entry takes eight).
 *
 * Entry: slot << 2 | member << 1 | is_win.  Varint v: v >> 1 is the distance
 * from the previous entry when v & 1 is 0, the entry itself when it is 1
 * (the first entry, or one below the previous).
 *
 * The levels take a level's entries as updates by partition (levels.c's
 * apply_partition), in rounds of j->bucket_round bytes of each stream, so
 * that every thread works and the updates are applied in cache.
 *
 * A pair too large for memory with its buckets keeps them in a file
 * instead (buckets_spill_open): a stream's bytes are written there each
 * time they reach j->spill_seg (SPILL_SEG by default), as a segment of its
 * own (an entry's varint is never cut: a stream is written out after a
 * whole entry), and the stream's coding goes on from its last entry, so a
 * level read back (buckets_load) is the bytes it would have held.
 */
#include "job.h"

#include <fcntl.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tablewrite.h"

#define SPILL_SEG ((size_t)1 << 20)

struct bstream {
    uint8_t *b;
    size_t n, cap;
    uint64_t last;
    struct vec64 seg; /* its bytes in the file, before b's: offset, length, ... */
};

int buckets_setup(struct job *j)
{
    j->spill_fd = -1;
    j->bst = calloc((size_t)j->nthreads * MAX_LEVELS, sizeof *j->bst);
    return j->bst ? MMTB_OK : MMTB_ERR_NOMEM;
}

int buckets_spill_open(struct job *j, const char *path, size_t seg)
{
    j->spill_seg = seg ? seg : SPILL_SEG;
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0)
        return MMTB_ERR_IO;
    unlink(path); /* its bytes live as long as the descriptor */
    j->spill_fd = fd;
    j->spill_end = 0;
    return MMTB_OK;
}

void buckets_free(struct job *j)
{
    if (!j->bst) /* (spill_fd is set with it) */
        return;
    for (size_t i = 0; i < (size_t)j->nthreads * MAX_LEVELS; i++) {
        free(j->bst[i].b);
        free(j->bst[i].seg.e);
    }
    free(j->bst);
    j->bst = NULL;
    if (j->spill_fd >= 0)
        close(j->spill_fd);
    j->spill_fd = -1;
}

/* Stream s's bytes in memory written to the file as a segment; false when
 * the write or the segment list failed. */
static bool stream_spill(struct job *j, struct bstream *s)
{
    uint64_t off = __atomic_fetch_add(&j->spill_end, (uint64_t)s->n, __ATOMIC_RELAXED);
    if (mmtb_table_pwrite(j->spill_fd, s->b, s->n, off) != MMTB_OK ||
        !vec64_push(&s->seg, off) || !vec64_push(&s->seg, s->n))
        return false;
    s->n = 0;
    return true;
}

/* Stream s's bytes, those in the file first, into buf. */
static bool stream_gather(const struct job *j, const struct bstream *s, uint8_t *buf)
{
    size_t at = 0;
    for (size_t k = 0; k < s->seg.n; k += 2) {
        if (mmtb_table_pread(j->spill_fd, buf + at, s->seg.e[k + 1], s->seg.e[k]) != MMTB_OK)
            return false;
        at += s->seg.e[k + 1];
    }
    if (s->n)
        memcpy(buf + at, s->b, s->n);
    return true;
}

/* Stream s's bytes, those in the file first, read back into *buf
 * (malloc'd, *n bytes): MMTB_OK, MMTB_ERR_NOMEM or MMTB_ERR_IO. */
static int stream_read_back(const struct job *j, const struct bstream *s, uint8_t **buf,
                            size_t *n)
{
    *n = s->n;
    for (size_t k = 0; k < s->seg.n; k += 2)
        *n += s->seg.e[k + 1];
    if (!(*buf = malloc(*n)))
        return MMTB_ERR_NOMEM;
    if (!stream_gather(j, s, *buf)) {
        free(*buf);
        *buf = NULL;
        return MMTB_ERR_IO;
    }
    return MMTB_OK;
}

/* Append entry to stream s; false when out of memory. */
static bool stream_push(struct bstream *s, uint64_t entry)
{
    if (s->cap - s->n < 10) {
        size_t nc = s->cap ? 2 * s->cap : 64;
        uint8_t *nb = realloc(s->b, nc);
        if (!nb)
            return false;
        s->b = nb;
        s->cap = nc;
    }
    uint64_t v = entry > s->last ? (entry - s->last) << 1 : entry << 1 | 1;
    s->last = entry;
    while (v >= 0x80) {
        s->b[s->n++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    s->b[s->n++] = (uint8_t)v;
    return true;
}

/* The entry of the varint at b[*i] (advanced past it), after last. */
static uint64_t stream_next(const uint8_t *b, size_t *i, uint64_t last)
{
    uint64_t v = 0;
    for (int sh = 0;; sh += 7) {
        uint8_t x = b[(*i)++];
        v |= (uint64_t)(x & 0x7f) << sh;
        if (!(x & 0x80))
            break;
    }
    return (v & 1) ? v >> 1 : last + (v >> 1);
}

void bucket_add(struct job *j, int level, uint64_t entry)
{
    int t = omp_get_thread_num();
    struct bstream *s = &j->bst[(size_t)t * MAX_LEVELS + level];
    if (!stream_push(s, entry)) {
        __atomic_store_n(&j->oom, 1, __ATOMIC_RELAXED);
        return;
    }
    if (j->spill_fd >= 0 && s->n >= j->spill_seg && !stream_spill(j, s))
        __atomic_store_n(&j->spill_err, 1, __ATOMIC_RELAXED);
    raise_last_level(j, level);
}

int buckets_stream(const struct job *j, int level, int t, const uint8_t **b, size_t *n,
                   uint8_t **owned)
{
    const struct bstream *s = &j->bst[(size_t)t * MAX_LEVELS + level];
    *owned = NULL;
    *b = s->b;
    *n = s->n;
    if (!s->seg.n)
        return MMTB_OK;
    int rc = stream_read_back(j, s, owned, n);
    *b = *owned;
    return rc;
}

int buckets_load(struct job *j, int level)
{
    for (int t = 0; t < j->nthreads; t++) {
        struct bstream *s = &j->bst[(size_t)t * MAX_LEVELS + level];
        if (!s->seg.n)
            continue;
        uint8_t *b;
        size_t n;
        int rc = stream_read_back(j, s, &b, &n);
        if (rc != MMTB_OK)
            return rc;
        free(s->b);
        free(s->seg.e);
        *s = (struct bstream){b, n, n, s->last, {NULL, 0, 0}};
    }
    return MMTB_OK;
}

uint64_t buckets_spilled(const struct job *j)
{
    return j->spill_end; /* (0 unless buckets_spill_open) */
}

int buckets_restore(struct job *j, int level, int t, uint8_t *b, size_t n)
{
    struct bstream *s = &j->bst[(size_t)t * MAX_LEVELS + level];
    /* the bytes must be whole varints: a cut one would read past them */
    if (n && (b[n - 1] & 0x80)) {
        free(b);
        return MMTB_ERR_CORRUPT;
    }
    uint64_t last = 0;
    if (!s->n && !s->seg.n) {
        for (size_t i = 0; i < n;)
            last = stream_next(b, &i, last);
        free(s->b);
        free(s->seg.e);
        *s = (struct bstream){b, n, n, last, {NULL, 0, 0}};
        return MMTB_OK;
    }
    /* another stream is there already (the saving run had more threads):
     * these entries coded again after its own */
    int rc = MMTB_OK;
    for (size_t i = 0; i < n && rc == MMTB_OK;) {
        last = stream_next(b, &i, last);
        if (!stream_push(s, last))
            rc = MMTB_ERR_NOMEM;
    }
    free(b);
    return rc;
}

bool buckets_any(const struct job *j, int level)
{
    for (int t = 0; t < j->nthreads; t++) {
        const struct bstream *s = &j->bst[(size_t)t * MAX_LEVELS + level];
        if (s->n || s->seg.n)
            return true;
    }
    return false;
}

uint64_t buckets_rounds(const struct job *j, int level)
{
    uint64_t r = 0;
    for (int t = 0; t < j->nthreads; t++) {
        size_t bytes = j->bst[(size_t)t * MAX_LEVELS + level].n;
        uint64_t n = (bytes + j->bucket_round - 1) / j->bucket_round;
        r = n > r ? n : r;
    }
    return r;
}

void buckets_scatter(struct job *j, int level, int stream, int mi, struct bucket_cursor *c,
                     struct updbuf *bufs)
{
    const struct bstream *s = &j->bst[(size_t)stream * MAX_LEVELS + level];
    size_t end = c->at + j->bucket_round < s->n ? c->at + j->bucket_round : s->n;
    size_t i = c->i;
    uint64_t last = c->last;
    while (i < end) {
        last = stream_next(s->b, &i, last);
        if ((int)((last >> 1) & 1) != mi)
            continue;
        /* is_win: a lost outside successor, won here; else one of the
         * moves the counter holds is known to lose */
        upd_queue(j, bufs, last >> 2, last & 1, 1);
    }
    c->i = i;
    c->last = last;
    c->at += j->bucket_round;
}

void buckets_drop(struct job *j, int level)
{
    for (int t = 0; t < j->nthreads; t++) {
        struct bstream *s = &j->bst[(size_t)t * MAX_LEVELS + level];
        free(s->b);
        free(s->seg.e);
        *s = (struct bstream){NULL, 0, 0, 0, {NULL, 0, 0}};
    }
}

uint64_t buckets_bytes(const struct job *j, uint64_t *written)
{
    uint64_t n = 0, w = 0;
    for (size_t i = 0; j->bst && i < (size_t)j->nthreads * MAX_LEVELS; i++) {
        n += j->bst[i].cap;
        w += j->bst[i].n;
    }
    *written = w;
    return n;
}

void buckets_add_codes(struct job *j, int mi, const uint16_t *code, uint64_t n)
{
#pragma omp for schedule(static)
    for (uint64_t k = 0; k < n; k++)
        if (code[k])
            bucket_add(j, code[k] >> 1, k << 2 | (uint64_t)mi << 1 | (code[k] & 1u));
}
