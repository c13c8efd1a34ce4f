/*
 * tbverify.c - whole-file verification of sector files: one sequential
 * pass of large reads that hashes the file for its file_hash and checks
 * each block (hash, decompression, values, DTW sizes against the decided
 * slots) as soon as it is in the buffer, reporting every damaged block by
 * plane and index.  Used by mmtb_tb_verify_file (mmtb-probe integrity) and
 * mmtb_tb_verify_sector (tbintegrity.c) and by MMTB_OPEN_VERIFY (tbopen.c);
 * and the lighter pass of the file hash alone (mmtb_tb_verify_sector_hash);
 * reads through tbfile.c and calls nothing else of probe/lib.
 */
#define _GNU_SOURCE
#include "mmtb_integrity.h"
#include "tbinternal.h"

#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_READ ((size_t)8 << 20)
#define DEFAULT_MAX_PROBLEMS 100
#define UNKNOWN UINT64_MAX /* decided slots of a DTW block whose W/D/L block is damaged */

/* One run over one file: where problems go and what was found so far. */
struct vrun {
    int si;
    char file[48];
    const struct mmtb_verify_opts *o;
    struct mmtb_verify_result *res;
    int block_problems, suppressed, max_problems;
    char *first;      /* optional: the first problem's message */
    size_t firstlen;
};

/* Report one problem: to the callback, into the result, and as the first
 * message when it is one. */
static void report(struct vrun *r, int plane, int64_t block, int status, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static void report(struct vrun *r, int plane, int64_t block, int status, const char *fmt, ...)
{
    if (plane != MMTB_PLANE_FILE && ++r->block_problems > r->max_problems) {
        r->suppressed++;
        return;
    }
    char text[320];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    if (r->res->problems++ == 0) {
        r->res->status = status;
        if (r->first && r->firstlen)
            snprintf(r->first, r->firstlen, "%s", text);
    }
    if (r->o && r->o->problem) {
        struct mmtb_verify_problem p = {r->si, r->file, plane, block, status, text};
        r->o->problem(r->o->arg, &p);
    }
}

static const char *plane_name(int plane)
{
    return plane == MMTB_TF_WDL ? "W/D/L" : "DTW";
}

/*
 * Check the stored bytes src of block b of a plane and expand them into
 * raw: the block hash, decompression to exactly raw_size bytes, then the
 * values (n codes or n depths).  On failure says which check failed.
 */
static int check_block(struct vrun *r, const struct tb_sector *sec, ZSTD_DCtx *dctx, int plane,
                       uint64_t b, const uint8_t *src, uint8_t *raw, uint64_t n)
{
    const struct mmtb_tf_block *t = &sec->tab[plane][b];
    int rc = mmtb_tf_block_decompress(dctx, src, t, raw);
    const char *why = NULL;
    if (rc != MMTB_OK)
        why = (uint32_t)mmtb_xxh64(src, t->csize, 0) != t->hash
                  ? "checksum mismatch"
                  : "does not decompress to its size";
    else if (plane == MMTB_TF_WDL ? mmtb_tf_check_wdl(raw, n) != MMTB_OK
                                  : mmtb_tf_check_dtw(raw, n, sec->h.dtw_width, sec->max_dtw) !=
                                        MMTB_OK)
        why = plane == MMTB_TF_WDL ? "invalid values (code 3 or padding bits)"
                                   : "a depth above the sector's largest";
    if (!why)
        return MMTB_OK;
    report(r, plane, (int64_t)b, MMTB_ERR_CORRUPT,
           "%s: %s block %llu of %llu (%u bytes at offset %llu): %s", r->file, plane_name(plane),
           (unsigned long long)b, (unsigned long long)sec->l.nblocks[plane], t->csize,
           (unsigned long long)t->offset, why);
    return MMTB_ERR_CORRUPT;
}

/* The block cursor: plane and block index of the next block to check, in
 * file order (W/D/L blocks, then DTW blocks). */
struct cursor {
    int plane;
    uint64_t b;
};

static const struct mmtb_tf_block *cur_block(const struct tb_sector *sec, struct cursor *c)
{
    while (c->plane < 2 && c->b >= sec->l.nblocks[c->plane]) {
        c->plane++;
        c->b = 0;
    }
    return c->plane < 2 ? &sec->tab[c->plane][c->b] : NULL;
}

/*
 * The pass over bytes [0, F) of a ready sector: read in chunks of `chunk`
 * bytes into buf (room for chunk plus the largest stored block), hash every
 * byte, and check each block once all its bytes are in the buffer.  The
 * unprocessed tail of a chunk (the start of a block) moves to the front.
 */
static int verify_pass(struct vrun *r, const struct tb_sector *sec, int fd, size_t chunk)
{
    const struct mmtb_tf_header *h = &sec->h;
    const struct mmtb_tf_layout *l = &sec->l;
    /* Buffers sized by this file, not by the format's largest block (8 MiB):
     * a pass over a small file allocates little.  The block tables were
     * checked on open: a W/D/L block expands to exactly its slots' bytes, a
     * DTW block to at most its slots' depths, so rawcap holds any of them;
     * reads never need to be larger than the file. */
    size_t maxblock = 0, rawcap = 1;
    for (int pl = 0; pl < 2; pl++)
        for (uint64_t b = 0; b < l->nblocks[pl]; b++) {
            if (sec->tab[pl][b].csize > maxblock)
                maxblock = sec->tab[pl][b].csize;
            if (sec->tab[pl][b].raw_size > rawcap)
                rawcap = sec->tab[pl][b].raw_size;
        }
    if (chunk > l->file_size)
        chunk = (size_t)l->file_size;
    size_t cap = chunk + maxblock;
    uint8_t *buf = malloc(cap), *raw = malloc(rawcap);
    uint64_t *decided = malloc((l->nblocks[1] + 1) * sizeof *decided);
    ZSTD_DCtx *dctx = ZSTD_createDCtx();
    int rc = MMTB_OK;
    if (!buf || !raw || !decided || !dctx) {
        rc = MMTB_ERR_NOMEM;
        goto out;
    }
    for (uint64_t d = 0; d < l->nblocks[1]; d++)
        decided[d] = UNKNOWN;
#ifdef POSIX_FADV_SEQUENTIAL
    posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
#endif
    struct mmtb_xxh64_state st;
    mmtb_xxh64_init(&st, 0);
    int per = 1 << (h->wdl_block_log2 - h->dtw_block_log2); /* DTW blocks per W/D/L block */
    struct cursor c = {0, 0};
    uint64_t base = 0, have = 0; /* buf holds file bytes [base, base + have) */
    for (;;) {
        const struct mmtb_tf_block *t;
        while ((t = cur_block(sec, &c)) && t->offset + t->csize <= base + have) {
            const uint8_t *src = buf + (t->offset - base);
            if (c.plane == MMTB_TF_WDL) {
                uint64_t ns = mmtb_tf_block_nslots(h, l, MMTB_TF_WDL, c.b);
                if (check_block(r, sec, dctx, MMTB_TF_WDL, c.b, src, raw, ns) == MMTB_OK)
                    for (uint64_t d = c.b * (uint64_t)per;
                         d < l->nblocks[1] && d < (c.b + 1) * (uint64_t)per; d++) {
                        uint64_t a = (d - c.b * (uint64_t)per) << h->dtw_block_log2;
                        decided[d] = mmtb_tf_count_depths(
                            h->value_encoding, raw, a, a + mmtb_tf_block_nslots(h, l, MMTB_TF_DTW, d));
                    }
            } else if (decided[c.b] != UNKNOWN && decided[c.b] * h->dtw_width != t->raw_size) {
                report(r, MMTB_TF_DTW, (int64_t)c.b, MMTB_ERR_CORRUPT,
                       "%s: DTW block %llu of %llu (%u bytes at offset %llu): %u bytes of "
                       "depths for %llu %s slots",
                       r->file, (unsigned long long)c.b, (unsigned long long)l->nblocks[1],
                       t->csize, (unsigned long long)t->offset, t->raw_size,
                       (unsigned long long)decided[c.b],
                       h->value_encoding == MMTB_TF_VALUE_LOSSES ? "lost" : "decided");
            } else {
                check_block(r, sec, dctx, MMTB_TF_DTW, c.b, src, raw,
                            t->raw_size / (h->dtw_width ? h->dtw_width : 1));
            }
            c.b++;
        }
        if (base + have >= l->footer_off)
            break;
        /* Keep only the start of the next block, then read on. */
        uint64_t keep = t && t->offset < base + have ? t->offset : base + have;
        memmove(buf, buf + (keep - base), (size_t)(base + have - keep));
        have -= keep - base;
        base = keep;
        uint64_t left = l->footer_off - (base + have);
        size_t n = left < chunk ? (size_t)left : chunk;
        rc = mmtb_file_pread(fd, buf + have, n, base + have);
        if (rc != MMTB_OK) {
            report(r, MMTB_PLANE_FILE, -1, rc, "%s: %s at offset %llu", r->file,
                   rc == MMTB_ERR_IO ? "read error" : "ends early",
                   (unsigned long long)(base + have));
            rc = MMTB_OK; /* reported */
            goto out;
        }
        mmtb_xxh64_update(&st, buf + have, n);
        have += n;
        r->res->bytes += n;
        if (r->o && r->o->progress)
            r->o->progress(r->o->arg, n);
    }
    r->res->bytes += MMTB_TF_FOOTER_SIZE; /* read when the file was opened */
    if (r->suppressed)
        report(r, MMTB_PLANE_FILE, -1, MMTB_ERR_CORRUPT, "%s: %d more damaged blocks not listed",
               r->file, r->suppressed);
    if (mmtb_xxh64_digest(&st) != sec->footer.file_hash)
        report(r, MMTB_PLANE_FILE, -1, MMTB_ERR_CORRUPT,
               "%s: file hash mismatch (bytes 0..%llu against the footer's)", r->file,
               (unsigned long long)l->footer_off);
out:
    ZSTD_freeDCtx(dctx);
    free(buf);
    free(raw);
    free(decided);
    return rc;
}

int tb_verify_whole(const mmtb_tb *tb, int si, const struct mmtb_verify_opts *o,
                    struct mmtb_verify_result *res, char *first, size_t firstlen)
{
    const struct tb_sector *sec = &tb->sec[si];
    struct vrun r = {.si = si, .o = o, .res = res, .first = first, .firstlen = firstlen};
    r.max_problems = o && o->max_problems > 0 ? o->max_problems : DEFAULT_MAX_PROBLEMS;
    mmtb_tf_sector_filename(sec->s, r.file, sizeof r.file);
    size_t chunk = o && o->read_bytes ? o->read_bytes : DEFAULT_READ;
    int fd;
    char why[160];
    int rc = tb_file_acquire(tb, si, &fd, why, sizeof why);
    if (rc != MMTB_OK) {
        report(&r, MMTB_PLANE_FILE, -1, rc, "%s", why);
        return res->status;
    }
    rc = verify_pass(&r, sec, fd, chunk);
    tb_file_release(tb, si);
    if (rc == MMTB_ERR_NOMEM && first && firstlen)
        snprintf(first, firstlen, "%s: out of memory", r.file);
    return rc != MMTB_OK ? rc : res->status;
}

int tb_hash_whole(const mmtb_tb *tb, int si, char *err, size_t errlen)
{
    const struct tb_sector *sec = &tb->sec[si];
    char file[48];
    mmtb_tf_sector_filename(sec->s, file, sizeof file);
    uint64_t end = sec->l.footer_off;
    size_t cap = end < DEFAULT_READ ? (size_t)(end ? end : 1) : DEFAULT_READ;
    uint8_t *buf = malloc(cap);
    if (!buf)
        return MMTB_ERR_NOMEM;
    int fd, rc = tb_file_acquire(tb, si, &fd, err, errlen);
    if (rc != MMTB_OK) {
        free(buf);
        return rc;
    }
#ifdef POSIX_FADV_SEQUENTIAL
    posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
#endif
    struct mmtb_xxh64_state st;
    mmtb_xxh64_init(&st, 0);
    for (uint64_t at = 0; at < end && rc == MMTB_OK; at += cap) {
        size_t n = end - at < cap ? (size_t)(end - at) : cap;
        rc = mmtb_file_pread(fd, buf, n, at);
        if (rc != MMTB_OK && err && errlen)
            snprintf(err, errlen, "%s: %s at offset %llu", file,
                     rc == MMTB_ERR_IO ? "read error" : "ends early", (unsigned long long)at);
        else if (rc == MMTB_OK)
            mmtb_xxh64_update(&st, buf, n);
    }
    tb_file_release(tb, si);
    free(buf);
    if (rc == MMTB_OK && mmtb_xxh64_digest(&st) != sec->footer.file_hash) {
        rc = MMTB_ERR_CORRUPT;
        if (err && errlen)
            snprintf(err, errlen, "%s: file hash mismatch (bytes 0..%llu against the footer's)",
                     file, (unsigned long long)end);
    }
    return rc;
}

void tb_verify_report_file(const mmtb_tb *tb, int si, const struct mmtb_verify_opts *o,
                           struct mmtb_verify_result *res, int status, const char *message)
{
    struct vrun r = {.si = si, .o = o, .res = res};
    mmtb_tf_sector_filename(tb->sec[si].s, r.file, sizeof r.file);
    report(&r, MMTB_PLANE_FILE, -1, status, "%s", message);
}
