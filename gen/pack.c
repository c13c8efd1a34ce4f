/*
 * pack.c - `mmtb-gen pack` (pack.h): a sector file of value encoding 1
 * rewritten in value encoding 2.  Header, descriptor, count table and
 * W/D/L blocks are carried over as they are; each DTW block is expanded,
 * cut down to its losses' depths (in the width of the largest loss) and
 * compressed again, the W/D/L plane telling which entries are losses.
 * Blocks are packed in parallel (OpenMP) and written in order, so the
 * bytes do not depend on the number of threads.
 */
#include "pack.h"

#include "fileio.h"
#include "progress.h"
#include "helpers.h"
#include "tablefile.h"
#include "tablewrite.h"

#include <errno.h>
#include <fcntl.h>
#include <omp.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A sector file as read: its header, layout and metadata region. */
struct src {
    int fd;
    struct mmtb_tf_header h;
    struct mmtb_tf_layout l;
    uint8_t *meta; /* bytes [MMTB_TF_HEADER_SIZE, meta_end) */
    const char *desc;
    uint32_t *counts;
    struct mmtb_tf_block *tab[2];
};

/* A DTW block of the packed file: its stored bytes and table entry. */
struct nblock {
    uint8_t *bytes;
    struct mmtb_tf_block t;
};

static void src_free(struct src *s)
{
    if (s->fd >= 0)
        close(s->fd);
    free(s->meta);
    free(s->counts);
    free(s->tab[0]);
    free(s->tab[1]);
    memset(s, 0, sizeof *s);
    s->fd = -1;
}

/* Open and decode a sector file's header and metadata (their hashes and
 * ranges checked by the decoders). */
static int src_open(const char *path, struct src *s)
{
    uint8_t hb[MMTB_TF_HEADER_SIZE];
    memset(s, 0, sizeof *s);
    s->fd = open(path, O_RDONLY | O_CLOEXEC);
    if (s->fd < 0)
        return MMTB_ERR_IO;
    int rc = mmtb_file_pread(s->fd, hb, sizeof hb, 0);
    if (rc == MMTB_OK)
        rc = mmtb_tf_header_decode(hb, sizeof hb, &s->h);
    if (rc == MMTB_OK)
        rc = mmtb_tf_layout(&s->h, &s->l);
    if (rc != MMTB_OK)
        return rc;
    uint64_t ms = mmtb_tf_meta_size(&s->l);
    s->meta = malloc(ms ? ms : 1);
    s->counts = malloc((s->h.count_blocks ? s->h.count_blocks : 1) * sizeof *s->counts);
    s->tab[0] = malloc((s->l.nblocks[0] + 1) * sizeof *s->tab[0]);
    s->tab[1] = malloc((s->l.nblocks[1] + 1) * sizeof *s->tab[1]);
    if (!s->meta || !s->counts || !s->tab[0] || !s->tab[1])
        return MMTB_ERR_NOMEM;
    rc = mmtb_file_pread(s->fd, s->meta, ms, MMTB_TF_HEADER_SIZE);
    if (rc == MMTB_OK)
        rc = mmtb_tf_meta_decode(&s->h, &s->l, s->meta, ms, &s->desc,
                                 s->h.count_blocks ? s->counts : NULL, s->tab[0], s->tab[1]);
    return rc;
}

/* Per-thread buffers. */
struct scratch {
    ZSTD_DCtx *dctx;
    ZSTD_CCtx *cctx;
    uint8_t *cbuf, *wraw, *draw, *out, *check;
    size_t ccap;
};

static void scratch_free(struct scratch *sc)
{
    ZSTD_freeDCtx(sc->dctx);
    ZSTD_freeCCtx(sc->cctx);
    free(sc->cbuf);
    free(sc->wraw);
    free(sc->draw);
    free(sc->out);
    free(sc->check);
}

static int scratch_alloc(struct scratch *sc, const struct src *s)
{
    size_t wmax = (size_t)(s->l.block_slots[0] + 3) / 4;
    size_t dmax = (size_t)s->l.block_slots[1] * 2;
    sc->ccap = mmtb_tf_block_bound(wmax > dmax ? wmax : dmax);
    sc->dctx = ZSTD_createDCtx();
    sc->cctx = ZSTD_createCCtx();
    sc->cbuf = malloc(sc->ccap);
    sc->wraw = malloc(wmax);
    sc->draw = malloc(dmax);
    sc->out = malloc(dmax);
    sc->check = malloc(dmax);
    return sc->dctx && sc->cctx && sc->cbuf && sc->wraw && sc->draw && sc->out && sc->check
               ? MMTB_OK
               : MMTB_ERR_NOMEM;
}

/* Read and expand block b of a plane of s into raw. */
static int read_block(const struct src *s, struct scratch *sc, int plane, uint64_t b, uint8_t *raw)
{
    const struct mmtb_tf_block *t = &s->tab[plane][b];
    int rc = t->csize ? mmtb_file_pread(s->fd, sc->cbuf, t->csize, t->offset) : MMTB_OK;
    return rc == MMTB_OK ? mmtb_tf_block_decompress(sc->dctx, sc->cbuf, t, raw) : rc;
}

/*
 * The packed DTW blocks inside W/D/L block b: each old block's entries (one
 * per decided slot, checked against the W/D/L codes) kept for the losses,
 * in width w2, compressed at level and expanded again to be compared.
 */
static int pack_wdl_block(const struct src *s, struct scratch *sc, int w2, int level, uint64_t b,
                          struct nblock *nb)
{
    const struct mmtb_tf_header *h = &s->h;
    uint64_t ns = mmtb_tf_block_nslots(h, &s->l, MMTB_TF_WDL, b);
    int rc = read_block(s, sc, MMTB_TF_WDL, b, sc->wraw);
    if (rc == MMTB_OK)
        rc = mmtb_tf_check_wdl(sc->wraw, ns);
    uint64_t per = (uint64_t)1 << (h->wdl_block_log2 - h->dtw_block_log2);
    for (uint64_t d = b * per; rc == MMTB_OK && d < s->l.nblocks[1] && d < (b + 1) * per; d++) {
        uint64_t a = (d - b * per) << h->dtw_block_log2;
        uint64_t n = mmtb_tf_block_nslots(h, &s->l, MMTB_TF_DTW, d);
        uint64_t decided = mmtb_tf_count_decided(sc->wraw, a, a + n);
        if (decided * h->dtw_width != s->tab[1][d].raw_size)
            return MMTB_ERR_CORRUPT;
        rc = read_block(s, sc, MMTB_TF_DTW, d, sc->draw);
        if (rc != MMTB_OK)
            return rc;
        size_t m = 0;
        for (uint64_t j = a, k = 0; j < a + n; j++) {
            unsigned c = mmtb_tf_wdl_get(sc->wraw, j);
            if (c == MMTB_TF_DRAW)
                continue;
            unsigned v = mmtb_tf_dtw_get(sc->draw, k++, h->dtw_width);
            if (c != MMTB_TF_LOSS)
                continue;
            if (v > (unsigned)h->max_loss)
                return MMTB_ERR_CORRUPT;
            sc->out[m++] = (uint8_t)v;
            if (w2 == 2)
                sc->out[m++] = (uint8_t)(v >> 8);
        }
        uint8_t *dst = malloc(mmtb_tf_block_bound(m));
        if (!dst)
            return MMTB_ERR_NOMEM;
        nb[d].bytes = dst;
        nb[d].t.raw_size = (uint32_t)m;
        rc = mmtb_tf_block_compress(sc->cctx, level, sc->out, m, dst, mmtb_tf_block_bound(m),
                                    &nb[d].t.csize, &nb[d].t.hash);
        if (rc == MMTB_OK && m)
            rc = mmtb_tf_block_decompress(sc->dctx, dst, &nb[d].t, sc->check);
        if (rc == MMTB_OK && m && memcmp(sc->check, sc->out, m) != 0)
            rc = MMTB_ERR_CORRUPT; /* the compressor gave back other bytes */
    }
    return rc;
}

/* Sequential writes to the new file, hashed as they go. */
struct out {
    int fd;
    uint64_t off;
    struct mmtb_xxh64_state st;
};

static int out_put(struct out *o, const void *buf, size_t n)
{
    int rc = mmtb_table_pwrite(o->fd, buf, n, o->off);
    if (rc == MMTB_OK) {
        mmtb_xxh64_update(&o->st, buf, n);
        o->off += n;
    }
    return rc;
}

/* The whole of a written file hashed again from the disk: its bytes
 * [0, end) must hash to want. */
static int read_back(const char *tmp, uint64_t end, uint64_t want)
{
    int fd = open(tmp, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return MMTB_ERR_IO;
    size_t chunk = (size_t)4 << 20;
    uint8_t *buf = malloc(chunk);
    int rc = buf ? MMTB_OK : MMTB_ERR_NOMEM;
    struct mmtb_xxh64_state st;
    mmtb_xxh64_init(&st, 0);
    for (uint64_t off = 0; rc == MMTB_OK && off < end; off += chunk) {
        size_t n = end - off < chunk ? (size_t)(end - off) : chunk;
        rc = mmtb_file_pread(fd, buf, n, off);
        if (rc == MMTB_OK)
            mmtb_xxh64_update(&st, buf, n);
    }
    free(buf);
    close(fd);
    if (rc == MMTB_OK && mmtb_xxh64_digest(&st) != want)
        rc = MMTB_ERR_CORRUPT;
    return rc;
}

/* Write the packed file of s to tmp: header, metadata, the W/D/L blocks
 * copied, the new DTW blocks, the footer; fsync'd and read back.  *size:
 * the file's size. */
static int write_packed(const struct src *s, struct mmtb_tf_header *h2, const struct nblock *nb,
                        const char *tmp, uint64_t *size)
{
    struct mmtb_tf_layout l2;
    struct mmtb_tf_block *t2 = malloc((s->l.nblocks[1] + 1) * sizeof *t2);
    if (!t2)
        return MMTB_ERR_NOMEM;
    uint64_t nd = h2->dtw_width ? s->l.nblocks[1] : 0;
    h2->dtw_data_bytes = 0;
    for (uint64_t d = 0; d < nd; d++) {
        t2[d] = nb[d].t;
        h2->dtw_data_bytes += nb[d].t.csize;
    }
    int rc = mmtb_tf_layout(h2, &l2);
    uint64_t ms = mmtb_tf_meta_size(&l2);
    uint8_t *meta = rc == MMTB_OK ? malloc(ms ? ms : 1) : NULL;
    size_t chunk = (size_t)4 << 20;
    uint8_t *buf = malloc(chunk);
    if (rc == MMTB_OK && (!meta || !buf))
        rc = MMTB_ERR_NOMEM;
    struct out o = {-1, 0, {0}};
    if (rc == MMTB_OK) {
        h2->meta_hash = mmtb_tf_meta_encode(h2, &l2, s->desc, h2->count_blocks ? s->counts : NULL,
                                            s->tab[0], t2, meta);
        o.fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (o.fd < 0)
            rc = MMTB_ERR_IO;
        mmtb_xxh64_init(&o.st, 0);
    }
    uint8_t hb[MMTB_TF_HEADER_SIZE];
    if (rc == MMTB_OK) {
        mmtb_tf_header_encode(h2, hb);
        rc = out_put(&o, hb, sizeof hb);
    }
    if (rc == MMTB_OK)
        rc = out_put(&o, meta, ms);
    for (uint64_t off = 0; rc == MMTB_OK && off < s->h.wdl_data_bytes; off += chunk) {
        uint64_t left = s->h.wdl_data_bytes - off;
        size_t n = left < chunk ? (size_t)left : chunk;
        rc = mmtb_file_pread(s->fd, buf, n, s->l.data_off[0] + off);
        if (rc == MMTB_OK)
            rc = out_put(&o, buf, n);
    }
    for (uint64_t d = 0; rc == MMTB_OK && d < nd; d++)
        rc = out_put(&o, nb[d].bytes, nb[d].t.csize);
    if (rc == MMTB_OK && o.off != l2.footer_off)
        rc = MMTB_ERR_CORRUPT;
    struct mmtb_tf_footer f = {l2.file_size, mmtb_xxh64_digest(&o.st), h2->header_hash};
    *size = l2.file_size;
    uint8_t fb[MMTB_TF_FOOTER_SIZE];
    if (rc == MMTB_OK) {
        mmtb_tf_footer_encode(&f, fb);
        rc = mmtb_table_pwrite(o.fd, fb, sizeof fb, o.off);
    }
    if (rc == MMTB_OK && fsync(o.fd) != 0)
        rc = MMTB_ERR_IO;
    if (o.fd >= 0 && close(o.fd) != 0 && rc == MMTB_OK)
        rc = MMTB_ERR_IO;
    if (rc == MMTB_OK)
        rc = read_back(tmp, l2.footer_off, f.file_hash);
    free(t2);
    free(meta);
    free(buf);
    return rc;
}

/* Pack one sector file s (value encoding 1) of dir in place; *size: the
 * packed file's size. */
static int pack_file(const char *dir, struct mmtb_sector sec, const struct src *s, int level,
                     int threads, uint64_t *size, char *err, size_t errlen)
{
    char path[4096], tmp[4200];
    mmtb_table_sector_path(dir, sec, path, sizeof path);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    struct mmtb_tf_header h2 = s->h;
    h2.value_encoding = MMTB_TF_VALUE_LOSSES;
    h2.dtw_width = (uint8_t)mmtb_tf_header_dtw_width(&h2);
    uint64_t nd = h2.dtw_width ? s->l.nblocks[1] : 0;
    struct nblock *nb = calloc(nd + 1, sizeof *nb);
    if (!nb)
        return mmtb_fail(err, errlen, MMTB_ERR_NOMEM, "%s: out of memory", path);
    int rc = MMTB_OK;
    if (nd) {
#pragma omp parallel num_threads(threads)
        {
            struct scratch sc = {0};
            int lrc = scratch_alloc(&sc, s);
#pragma omp for schedule(dynamic, 1)
            for (uint64_t b = 0; b < s->l.nblocks[0]; b++)
                if (lrc == MMTB_OK)
                    lrc = pack_wdl_block(s, &sc, h2.dtw_width, level, b, nb);
#pragma omp critical(mmtb_pack)
            if (lrc != MMTB_OK && rc == MMTB_OK)
                rc = lrc;
            scratch_free(&sc);
        }
    }
    if (rc == MMTB_OK)
        rc = write_packed(s, &h2, nb, tmp, size);
    for (uint64_t d = 0; d < nd; d++)
        free(nb[d].bytes);
    free(nb);
    if (rc != MMTB_OK) {
        int e = errno;
        unlink(tmp);
        return mmtb_fail(err, errlen, rc, "%s: %s", path,
                    rc == MMTB_ERR_IO ? strerror(e)
                    : rc == MMTB_ERR_CORRUPT
                        ? "damaged (a block whose depths do not match its W/D/L codes, or "
                          "a read-back that differs); the file is left as it was"
                        : mmtb_strerror(rc));
    }
    if (rename(tmp, path) != 0) {
        int e = errno;
        unlink(tmp);
        return mmtb_fail(err, errlen, MMTB_ERR_IO, "%s: %s", path, strerror(e));
    }
    mmtb_table_sync_dir(dir);
    return MMTB_OK;
}

/* Whether opts asks for sector s. */
static bool wanted(const struct mmtb_pack_opts *opts, struct mmtb_sector s)
{
    bool in = opts->n_only <= 0;
    for (int k = 0; k < opts->n_only && !in; k++)
        in = mmtb_sector_eq(opts->only[k], s);
    return in;
}

int mmtb_pack_is_packed(const char *dir, struct mmtb_sector sec, bool *packed, char *err,
                        size_t errlen)
{
    char path[4096];
    mmtb_table_sector_path(dir, sec, path, sizeof path);
    struct src s;
    int rc = src_open(path, &s);
    int e = errno;
    *packed = rc == MMTB_OK && s.h.value_encoding == MMTB_TF_VALUE_LOSSES;
    src_free(&s);
    if (rc == MMTB_ERR_IO && e == ENOENT)
        return MMTB_OK;
    if (rc != MMTB_OK)
        return mmtb_fail(err, errlen, rc, "%s: %s", path,
                         rc == MMTB_ERR_IO ? strerror(e) : mmtb_strerror(rc));
    return MMTB_OK;
}

int mmtb_pack(const struct mmtb_pack_opts *opts, struct mmtb_pack_result *res, char *err,
              size_t errlen)
{
    struct mmtb_pack_result r = {0};
    if (!opts || !opts->dir)
        return mmtb_fail(err, errlen, MMTB_ERR_INVALID, "no table directory");
    FILE *rep = opts->report ? opts->report : stdout;
    int level = opts->zstd_level ? opts->zstd_level : MMTB_TF_DTW_LEVEL;
    int threads = opts->threads > 0 ? opts->threads : omp_get_max_threads();
    char openerr[512] = "";
    struct mmtb_tb_opts to = {0};
    to.err = openerr;
    to.errlen = sizeof openerr;
    mmtb_tb *tb = NULL;
    int rc = mmtb_tb_open(&tb, opts->dir, &to);
    if (rc != MMTB_OK)
        return mmtb_fail(err, errlen, rc, "%s", openerr[0] ? openerr : mmtb_strerror(rc));
    const struct mmtb_variant *v = mmtb_tb_variant(tb);
    int n = mmtb_tb_sector_count(tb);
    /* the progress display counts the bytes of the files present */
    uint64_t total = 0, done = 0;
    for (int i = 0; i < n; i++) {
        struct mmtb_sector sec;
        char path[4096];
        struct stat st;
        mmtb_tb_sector_key(tb, i, &sec);
        mmtb_table_sector_path(opts->dir, sec, path, sizeof path);
        if (wanted(opts, sec) && stat(path, &st) == 0)
            total += (uint64_t)st.st_size;
    }
    struct progress prog;
    progress_init(&prog, opts->quiet);
    progress_phase(&prog, "pack");
    for (int i = 0; i < n && rc == MMTB_OK; i++) {
        struct mmtb_sector sec;
        char path[4096], name[48];
        mmtb_tb_sector_key(tb, i, &sec);
        if (!wanted(opts, sec))
            continue;
        mmtb_table_sector_path(opts->dir, sec, path, sizeof path);
        mmtb_tf_sector_filename(sec, name, sizeof name);
        struct src s;
        rc = src_open(path, &s);
        if (rc == MMTB_ERR_IO && errno == ENOENT) { /* not solved: nothing to pack */
            src_free(&s);
            rc = MMTB_OK;
            continue;
        }
        if (rc != MMTB_OK) {
            int e = errno;
            src_free(&s);
            rc = mmtb_fail(err, errlen, rc, "%s: %s", path,
                      rc == MMTB_ERR_IO ? strerror(e) : mmtb_strerror(rc));
            break;
        }
        done += s.l.file_size;
        if (s.h.value_encoding == MMTB_TF_VALUE_LOSSES) {
            src_free(&s);
            r.already++;
            /* a run stopped between the rename and the manifest line */
            rc = mmtb_table_record_file(opts->dir, v, sec, err, errlen);
            continue;
        }
        uint64_t before = s.l.file_size, after = 0;
        rc = pack_file(opts->dir, sec, &s, level, threads, &after, err, errlen);
        src_free(&s);
        if (rc == MMTB_OK)
            rc = mmtb_table_record_file(opts->dir, v, sec, err, errlen);
        if (rc != MMTB_OK)
            break;
        r.packed++;
        r.bytes_before += before;
        r.bytes_after += after;
        progress_clear(&prog);
        if (!opts->quiet && !opts->json)
            fprintf(rep, "%s: %llu -> %llu bytes\n", name, (unsigned long long)before,
                    (unsigned long long)after);
        fflush(rep);
        progress_update(&prog, done, total);
    }
    progress_clear(&prog);
    mmtb_tb_close(tb);
    if (rc != MMTB_OK)
        return rc;
    if (opts->json)
        fprintf(rep,
                "{\"packed\":%d,\"already_packed\":%d,\"bytes_before\":%llu,"
                "\"bytes_after\":%llu}\n",
                r.packed, r.already, (unsigned long long)r.bytes_before,
                (unsigned long long)r.bytes_after);
    else if (!opts->quiet)
        fprintf(rep, "packed %d sector files: %llu -> %llu bytes (%.1f %%); %d already packed\n",
                r.packed, (unsigned long long)r.bytes_before, (unsigned long long)r.bytes_after,
                r.bytes_before ? 100.0 * (double)r.bytes_after / (double)r.bytes_before : 100.0,
                r.already);
    if (res)
        *res = r;
    return MMTB_OK;
}
