/*
 * tablewrite.c - the table writer: statistics, the two value planes
 * compressed block by block in parallel and written in order, header and
 * block tables, a read-back verification, the footer, the atomic rename,
 * and MANIFEST upkeep.  Byte layout comes from format/tablefile.h; this file
 * owns only the file handling.  Output does not depend on the thread count.
 */
#include "tablewrite.h"

#include "ban_index.h"
#include "fileio.h"
#include "sector_index.h"
#include "helpers.h"
#include "tablefile.h"

#include <errno.h>
#include <fcntl.h>
#include <omp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

/* Blocks handled per batch and thread: one batch is filled, packed and
 * compressed in parallel, then written sequentially. */
#define BLOCKS_PER_THREAD 16

int mmtb_table_sector_path(const char *dir, struct mmtb_sector s, char *buf, size_t len)
{
    char name[48];
    mmtb_tf_sector_filename(s, name, sizeof name);
    return snprintf(buf, len, "%s/%s", dir, name);
}

/* ------------------------------------------------------------------------ */
/* Small file helpers                                                        */
/* ------------------------------------------------------------------------ */

/* pwrite all of buf at off, retrying short writes. */
static int pwrite_all(int fd, const void *buf, size_t n, uint64_t off)
{
    return mmtb_table_pwrite(fd, buf, n, off);
}

int mmtb_table_pwrite(int fd, const void *buf, size_t n, uint64_t off)
{
    const uint8_t *p = buf;
    while (n > 0) {
        ssize_t w = pwrite(fd, p, n, (off_t)off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            if (w == 0)
                errno = EIO; /* nothing written: no errno of its own */
            return MMTB_ERR_IO; /* errno says why (ENOSPC for a full disk) */
        }
        p += w;
        n -= (size_t)w;
        off += (uint64_t)w;
    }
    return MMTB_OK;
}

int mmtb_table_pread(int fd, void *buf, size_t n, uint64_t off)
{
    return mmtb_file_pread(fd, buf, n, off); /* format/fileio.c */
}

/* fsync a directory so that a rename in it is durable. */
static void sync_dir(const char *dir)
{
    mmtb_table_sync_dir(dir);
}

void mmtb_table_sync_dir(const char *dir)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY);
    if (fd >= 0) {
        fsync(fd);
        close(fd);
    }
}

/* Write a small file atomically: PATH.tmp, fsync, rename, fsync the dir. */
static int write_atomic(const char *dir, const char *name, const char *data, size_t len)
{
    char path[4096], tmp[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    snprintf(tmp, sizeof tmp, "%s/%s.tmp", dir, name);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0)
        return MMTB_ERR_IO;
    int rc = pwrite_all(fd, data, len, 0);
    if (rc == MMTB_OK && fsync(fd) != 0)
        rc = MMTB_ERR_IO;
    if (close(fd) != 0)
        rc = MMTB_ERR_IO;
    if (rc == MMTB_OK && rename(tmp, path) != 0)
        rc = MMTB_ERR_IO;
    if (rc != MMTB_OK)
        unlink(tmp);
    else
        sync_dir(dir);
    return rc;
}

/* ------------------------------------------------------------------------ */
/* MANIFEST                                                                  */
/* ------------------------------------------------------------------------ */

/* The manifest is read, changed and written back under an exclusive
 * flock of the directory itself (no extra file), so that several processes
 * writing sectors into one directory (mmtb-gen-mpi) never lose each other's
 * entries.  Returns the descriptor to pass to dir_unlock, or -1 when the
 * directory cannot be opened or locked (errno). */
static int dir_lock(const char *dir)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    while (flock(fd, LOCK_EX) != 0) {
        if (errno != EINTR) {
            int e = errno;
            close(fd);
            errno = e;
            return -1;
        }
    }
    return fd;
}

static void dir_unlock(int fd)
{
    flock(fd, LOCK_UN);
    close(fd);
}

/* Load DIR/MANIFEST.  MMTB_ERR_MISSING when there is none. */
static int manifest_load(const char *dir, struct mmtb_manifest *m, char *err, size_t errlen)
{
    char path[4096], *text;
    size_t len;
    memset(m, 0, sizeof *m);
    snprintf(path, sizeof path, "%s/%s", dir, MMTB_MANIFEST_NAME);
    int rc = mmtb_file_slurp(path, &text, &len);
    if (rc == MMTB_ERR_MISSING)
        return rc;
    if (rc != MMTB_OK)
        return mmtb_fail(err, errlen, rc, "%s: cannot read: %s", path, mmtb_strerror(rc));
    char perr[256];
    rc = mmtb_manifest_parse(text, len, m, perr, sizeof perr);
    free(text);
    if (rc == MMTB_ERR_UNSUPPORTED) /* tables of another version: never overwritten */
        return mmtb_fail(err, errlen, rc, "%s: %s (remove the directory, or write to another one)",
                    dir, perr);
    if (rc != MMTB_OK)
        return mmtb_fail(err, errlen, rc, "%s: %s", dir, perr);
    return MMTB_OK;
}

static int manifest_store(const char *dir, const struct mmtb_manifest *m, char *err,
                          size_t errlen)
{
    char *text;
    size_t len;
    int rc = mmtb_manifest_format(m, &text, &len);
    if (rc != MMTB_OK)
        return mmtb_fail(err, errlen, rc, "cannot format the manifest: %s", mmtb_strerror(rc));
    rc = write_atomic(dir, MMTB_MANIFEST_NAME, text, len);
    free(text);
    if (rc != MMTB_OK)
        return mmtb_fail(err, errlen, rc, "%s/%s: cannot write: %s", dir, MMTB_MANIFEST_NAME,
                    strerror(errno));
    return MMTB_OK;
}

/* The manifest must describe this variant and index scheme. */
static int manifest_matches(const char *dir, const struct mmtb_manifest *m,
                            const struct mmtb_variant *v, char *err, size_t errlen)
{
    if (m->fingerprint != v->fingerprint || m->index_scheme != MMTB_INDEX_SCHEME)
        return mmtb_fail(err, errlen, MMTB_ERR_MISMATCH,
                    "%s: the tables there are of variant %s (fingerprint %016llx, index scheme "
                    "%d), not %s (%016llx, %d)",
                    dir, m->name, (unsigned long long)m->fingerprint, m->index_scheme, v->name,
                    (unsigned long long)v->fingerprint, MMTB_INDEX_SCHEME);
    return MMTB_OK;
}

/* Append s to the game list unless it is there. */
static int manifest_add_sector(struct mmtb_manifest *m, struct mmtb_sector s)
{
    if (mmtb_manifest_find_sector(m, s) >= 0)
        return MMTB_OK;
    struct mmtb_sector *ns = realloc(m->sectors, (size_t)(m->nsectors + 1) * sizeof *ns);
    if (!ns)
        return MMTB_ERR_NOMEM;
    m->sectors = ns;
    m->sectors[m->nsectors++] = s;
    return MMTB_OK;
}

/* Set the file entry of sector s (which must be in the game).  A new entry
 * goes where the game lists s, so that the file lines are in game order
 * whatever order the files were finished in: a resumed or repaired run
 * writes the same MANIFEST as a run that was never interrupted. */
static int manifest_set_file(struct mmtb_manifest *m, struct mmtb_sector s, uint64_t size,
                             uint64_t hash)
{
    int k = mmtb_manifest_find_file(m, s);
    if (k < 0) {
        struct mmtb_manifest_file *nf = realloc(m->files, (size_t)(m->nfiles + 1) * sizeof *nf);
        if (!nf)
            return MMTB_ERR_NOMEM;
        m->files = nf;
        int g = mmtb_manifest_find_sector(m, s);
        for (k = 0; k < m->nfiles && mmtb_manifest_find_sector(m, m->files[k].sector) < g; k++)
            ;
        memmove(&m->files[k + 1], &m->files[k], (size_t)(m->nfiles - k) * sizeof *nf);
        m->nfiles++;
    }
    m->files[k].sector = s;
    m->files[k].size = size;
    m->files[k].file_hash = hash;
    return MMTB_OK;
}

static int write_manifest_locked(const char *dir, const struct mmtb_variant *v,
                                 const struct mmtb_sector *game, int n, char *err,
                                 size_t errlen)
{
    if (!dir || !v || (n > 0 && !game) || n < 0)
        return mmtb_fail(err, errlen, MMTB_ERR_INVALID, "bad arguments");
    struct mmtb_manifest m;
    int rc = manifest_load(dir, &m, err, errlen);
    if (rc == MMTB_ERR_MISSING) {
        memset(&m, 0, sizeof m);
        snprintf(m.name, sizeof m.name, "%s", v->name);
        m.fingerprint = v->fingerprint;
        m.index_scheme = MMTB_INDEX_SCHEME;
        m.descriptor = malloc(v->text_len + 1);
        if (!m.descriptor)
            return mmtb_fail(err, errlen, MMTB_ERR_NOMEM, "out of memory");
        memcpy(m.descriptor, v->text, v->text_len);
        m.descriptor[v->text_len] = 0;
        m.descriptor_len = v->text_len;
        rc = MMTB_OK;
    } else if (rc != MMTB_OK) {
        return rc;
    } else if ((rc = manifest_matches(dir, &m, v, err, errlen)) != MMTB_OK) {
        mmtb_manifest_clear(&m);
        return rc;
    }
    for (int i = 0; i < n && rc == MMTB_OK; i++)
        rc = manifest_add_sector(&m, game[i]);
    if (rc != MMTB_OK)
        rc = mmtb_fail(err, errlen, rc, "out of memory");
    else
        rc = manifest_store(dir, &m, err, errlen);
    mmtb_manifest_clear(&m);
    return rc;
}

int mmtb_table_write_manifest(const char *dir, const struct mmtb_variant *v,
                              const struct mmtb_sector *game, int n, char *err, size_t errlen)
{
    if (!dir)
        return mmtb_fail(err, errlen, MMTB_ERR_INVALID, "bad arguments");
    int lk = dir_lock(dir);
    if (lk < 0)
        return mmtb_fail(err, errlen, MMTB_ERR_IO, "%s: cannot lock: %s", dir, strerror(errno));
    int rc = write_manifest_locked(dir, v, game, n, err, errlen);
    dir_unlock(lk);
    return rc;
}

/* Before a sector file is replaced: drop its manifest entry (so a crash
 * never leaves an entry describing another file), and check the variant.
 * No manifest: nothing to do. */
static int manifest_forget_locked(const char *dir, const struct mmtb_variant *v,
                                  struct mmtb_sector s, char *err, size_t errlen)
{
    struct mmtb_manifest m;
    int rc = manifest_load(dir, &m, err, errlen);
    if (rc == MMTB_ERR_MISSING)
        return MMTB_OK;
    if (rc != MMTB_OK)
        return rc;
    rc = manifest_matches(dir, &m, v, err, errlen);
    int k = mmtb_manifest_find_file(&m, s);
    if (rc == MMTB_OK && k >= 0) {
        /* keep the others in order (manifest_set_file) */
        memmove(&m.files[k], &m.files[k + 1], (size_t)(m.nfiles - k - 1) * sizeof *m.files);
        m.nfiles--;
        rc = manifest_store(dir, &m, err, errlen);
    }
    mmtb_manifest_clear(&m);
    return rc;
}

/* After a sector file is in place: record it (adding s to the game if
 * needed).  No manifest: nothing to do. */
static int manifest_record_locked(const char *dir, const struct mmtb_variant *v,
                                  struct mmtb_sector s, uint64_t size, uint64_t hash,
                                  char *err, size_t errlen)
{
    struct mmtb_manifest m;
    int rc = manifest_load(dir, &m, err, errlen);
    if (rc == MMTB_ERR_MISSING)
        return MMTB_OK;
    if (rc != MMTB_OK)
        return rc;
    rc = manifest_matches(dir, &m, v, err, errlen);
    if (rc == MMTB_OK &&
        (manifest_add_sector(&m, s) != MMTB_OK || manifest_set_file(&m, s, size, hash) != MMTB_OK))
        rc = mmtb_fail(err, errlen, MMTB_ERR_NOMEM, "out of memory");
    if (rc == MMTB_OK)
        rc = manifest_store(dir, &m, err, errlen);
    mmtb_manifest_clear(&m);
    return rc;
}

/* manifest_forget and manifest_record under the directory's lock. */
static int manifest_forget(const char *dir, const struct mmtb_variant *v, struct mmtb_sector s,
                           char *err, size_t errlen)
{
    int lk = dir_lock(dir);
    if (lk < 0)
        return mmtb_fail(err, errlen, MMTB_ERR_IO, "%s: cannot lock: %s", dir, strerror(errno));
    int rc = manifest_forget_locked(dir, v, s, err, errlen);
    dir_unlock(lk);
    return rc;
}

static int manifest_record(const char *dir, const struct mmtb_variant *v, struct mmtb_sector s,
                           uint64_t size, uint64_t hash, char *err, size_t errlen)
{
    int lk = dir_lock(dir);
    if (lk < 0)
        return mmtb_fail(err, errlen, MMTB_ERR_IO, "%s: cannot lock: %s", dir, strerror(errno));
    int rc = manifest_record_locked(dir, v, s, size, hash, err, errlen);
    dir_unlock(lk);
    return rc;
}

int mmtb_table_file_footer(const char *dir, struct mmtb_sector s, struct mmtb_tf_footer *f,
                           char *err, size_t errlen)
{
    char path[4096];
    uint8_t hb[MMTB_TF_HEADER_SIZE], fb[MMTB_TF_FOOTER_SIZE];
    struct mmtb_tf_header h;
    struct mmtb_tf_layout l;
    mmtb_table_sector_path(dir, s, path, sizeof path);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return mmtb_fail(err, errlen, MMTB_ERR_IO, "%s: %s", path, strerror(errno));
    int rc = mmtb_table_pread(fd, hb, sizeof hb, 0);
    if (rc == MMTB_OK)
        rc = mmtb_tf_header_decode(hb, sizeof hb, &h);
    if (rc == MMTB_OK)
        rc = mmtb_tf_layout(&h, &l);
    if (rc == MMTB_OK)
        rc = mmtb_table_pread(fd, fb, sizeof fb, l.footer_off);
    if (rc == MMTB_OK)
        rc = mmtb_tf_footer_decode(fb, sizeof fb, &h, f);
    close(fd);
    if (rc != MMTB_OK)
        return mmtb_fail(err, errlen, rc, "%s: %s", path, mmtb_strerror(rc));
    return MMTB_OK;
}

int mmtb_table_record_file(const char *dir, const struct mmtb_variant *v, struct mmtb_sector s,
                           char *err, size_t errlen)
{
    struct mmtb_tf_footer f;
    int rc = mmtb_table_file_footer(dir, s, &f, err, errlen);
    if (rc != MMTB_OK)
        return rc;
    struct mmtb_manifest m;
    rc = manifest_load(dir, &m, err, errlen);
    if (rc == MMTB_ERR_MISSING)
        return MMTB_OK;
    if (rc != MMTB_OK)
        return rc;
    int k = mmtb_manifest_find_file(&m, s);
    bool same = k >= 0 && m.files[k].size == f.file_size && m.files[k].file_hash == f.file_hash;
    mmtb_manifest_clear(&m);
    return same ? MMTB_OK : manifest_record(dir, v, s, f.file_size, f.file_hash, err, errlen);
}

/* ------------------------------------------------------------------------ */
/* Sector files                                                              */
/* ------------------------------------------------------------------------ */

/* Per-block statistics, merged in block order. */
struct bstats {
    uint64_t canonical, wins, draws, losses;
    int32_t max_win, max_loss;
    int rc; /* MMTB_ERR_INVALID for a value outside the rules */
};

/* Per-thread scratch: fill buffers, a raw block, a compressed block. */
struct scratch {
    uint8_t *wdl;
    uint16_t *dtw;
    uint8_t *raw, *raw2;
    ZSTD_CCtx *cctx;
    ZSTD_DCtx *dctx;
};

/* The state of one sector write. */
struct writer {
    const struct mmtb_variant *v;
    mmtb_fill_fn fill;
    void *fctx;
    int level[2]; /* zstd level per plane */
    int fd;
    struct mmtb_tf_header h;
    struct mmtb_tf_layout l;
    struct mmtb_tf_block *tab[2]; /* block tables */
    int nthreads;
    struct scratch *sc;
    size_t bound; /* compressed buffer size per block */
    uint8_t *batch;  /* nthreads * BLOCKS_PER_THREAD compressed blocks */
    struct bstats *bst;
    int *brc;
    /* per block of each plane: XXH64 of its raw bytes, taken when it was
     * compressed and checked when it is read back */
    uint64_t *raw_hash[2];
    /* blocks made elsewhere (split pairs): the source and, per block of a
     * batch, whether it came from there */
    const struct mmtb_block_source *src;
    struct mmtb_made_block *made;
    bool *far;
    const uint32_t *counts; /* the count table (h.count_blocks entries) */
};

/* Fill n slots from first and, with bs, check the values against the
 * rules, counting them into *bs (the W/D/L pass; the DTW pass fills the
 * same values again). */
static void fill_checked(struct writer *w, struct scratch *sc, uint64_t first, uint64_t n,
                         struct bstats *bs)
{
    memset(sc->dtw, 0, n * sizeof *sc->dtw);
    w->fill(w->fctx, first, n, sc->wdl, sc->dtw);
    if (!bs)
        return;
    /* counts, largest depths and the rule checks as sums and maxima, without
     * a branch per slot (a loop the compiler vectorises) */
    uint32_t loss = 0, draw = 0, win = 0;
    uint16_t max_win = 0, max_loss = 0, bad = 0;
    const uint8_t *restrict wdl = sc->wdl;
    const uint16_t *restrict dtw = sc->dtw;
    for (uint64_t i = 0; i < n; i++) {
        uint16_t c = wdl[i], d = dtw[i];
        uint16_t is_loss = (uint16_t)-(c == MMTB_TF_LOSS), is_win = (uint16_t)-(c == MMTB_TF_WIN);
        uint16_t is_draw = (uint16_t)-(c == MMTB_TF_DRAW);
        loss += is_loss & 1u;
        draw += is_draw & 1u;
        win += is_win & 1u;
        max_loss = (uint16_t)((is_loss & d) > max_loss ? is_loss & d : max_loss);
        max_win = (uint16_t)((is_win & d) > max_win ? is_win & d : max_win);
        /* a draw has depth 0, a win a depth above 0; no code above 3 */
        bad |= (uint16_t)((is_draw & d) | (is_win & (uint16_t)(d == 0)) | (c > MMTB_TF_UNUSED));
    }
    memset(bs, 0, sizeof *bs);
    bs->losses = loss;
    bs->draws = draw;
    bs->wins = win;
    bs->max_loss = loss ? max_loss : -1;
    bs->max_win = win ? max_win : -1;
    bs->rc = bad ? MMTB_ERR_INVALID : MMTB_OK;
    bs->canonical = bs->wins + bs->draws + bs->losses;
}

static void merge_stats(struct bstats *a, const struct bstats *b)
{
    a->canonical += b->canonical;
    a->wins += b->wins;
    a->draws += b->draws;
    a->losses += b->losses;
    if (b->max_win > a->max_win)
        a->max_win = b->max_win;
    if (b->max_loss > a->max_loss)
        a->max_loss = b->max_loss;
    if (b->rc != MMTB_OK)
        a->rc = b->rc;
}

/* Fill and pack block b of a plane into sc->raw; returns its raw size
 * (for the DTW plane: width x the decided slots). */
static size_t pack_block(struct writer *w, struct scratch *sc, int plane, uint64_t b,
                         struct bstats *bs)
{
    uint64_t first = b * w->l.block_slots[plane];
    uint64_t n = mmtb_tf_block_nslots(&w->h, &w->l, plane, b);
    fill_checked(w, sc, first, n, bs);
    if (plane == MMTB_TF_DTW)
        return mmtb_tf_pack_dtw(w->h.value_encoding, sc->wdl, sc->dtw, n, w->h.dtw_width, sc->raw);
    mmtb_tf_pack_wdl(sc->wdl, n, sc->raw);
    return mmtb_tf_block_raw_max(&w->h, &w->l, plane, b);
}

/* Compress every block of a plane, a batch at a time in parallel, and
 * write the batch in block order from the plane's data offset.  Fills the
 * plane's block table and its data size.  With total (the W/D/L plane)
 * the blocks' statistics are summed there, and a block whose values break
 * the rules ends the pass with total->rc set; without it (the DTW plane,
 * written after the W/D/L plane has checked the same values) nothing is
 * counted. */
static int pass_plane(struct writer *w, int plane, uint64_t *bytes, struct bstats *total)
{
    if (total) {
        memset(total, 0, sizeof *total);
        total->max_win = total->max_loss = -1;
    }
    uint64_t nb = w->l.nblocks[plane];
    uint64_t per_batch = (uint64_t)w->nthreads * BLOCKS_PER_THREAD;
    uint64_t off = w->l.data_off[plane];
    if (w->src) {
        int rc = w->src->plane_start(w->src->ctx, plane, w->h.dtw_width);
        if (rc != MMTB_OK)
            return rc;
    }
    for (uint64_t b0 = 0; b0 < nb; b0 += per_batch) {
        uint64_t nbatch = nb - b0 < per_batch ? nb - b0 : per_batch;
        for (uint64_t k = 0; k < nbatch; k++)
            w->far[k] = w->src &&
                        w->src->remote(w->src->ctx, (b0 + k) * w->l.block_slots[plane]);
#pragma omp parallel for schedule(dynamic, 1) num_threads(w->nthreads)
        for (uint64_t k = 0; k < nbatch; k++) {
            if (w->far[k])
                continue;
            struct scratch *sc = &w->sc[omp_get_thread_num()];
            struct mmtb_tf_block *t = &w->tab[plane][b0 + k];
            size_t n = pack_block(w, sc, plane, b0 + k, total ? &w->bst[k] : NULL);
            t->raw_size = (uint32_t)n;
            w->raw_hash[plane][b0 + k] = mmtb_xxh64(sc->raw, n, 0);
            w->brc[k] = mmtb_tf_block_compress(sc->cctx, w->level[plane], sc->raw, n,
                                               w->batch + k * w->bound, w->bound, &t->csize,
                                               &t->hash);
        }
        /* the blocks made elsewhere, a run at a time */
        for (uint64_t k = 0; k < nbatch;) {
            if (!w->far[k]) {
                k++;
                continue;
            }
            uint64_t e = k;
            while (e < nbatch && w->far[e])
                e++;
            int rc = w->src->get(w->src->ctx, plane, b0 + k, e - k, w->batch + k * w->bound,
                                 w->bound, w->made + k);
            if (rc != MMTB_OK)
                return rc;
            for (uint64_t x = k; x < e; x++) {
                const struct mmtb_made_block *m = &w->made[x];
                struct mmtb_tf_block *t = &w->tab[plane][b0 + x];
                t->raw_size = m->raw_size;
                t->csize = m->csize;
                t->hash = m->hash;
                w->raw_hash[plane][b0 + x] = m->raw_hash;
                w->brc[x] = m->rc;
                if (total) {
                    struct bstats *bs = &w->bst[x];
                    bs->canonical = m->canonical;
                    bs->wins = m->wins;
                    bs->draws = m->draws;
                    bs->losses = m->losses;
                    bs->max_win = m->max_win;
                    bs->max_loss = m->max_loss;
                    bs->rc = m->bad ? MMTB_ERR_INVALID : MMTB_OK;
                }
            }
            k = e;
        }
        for (uint64_t k = 0; k < nbatch; k++) {
            struct mmtb_tf_block *t = &w->tab[plane][b0 + k];
            if (w->brc[k] != MMTB_OK)
                return w->brc[k];
            if (total) {
                merge_stats(total, &w->bst[k]);
                if (total->rc != MMTB_OK)
                    return MMTB_OK;
            }
            t->offset = off;
            int rc = pwrite_all(w->fd, w->batch + k * w->bound, t->csize, off);
            if (rc != MMTB_OK)
                return rc;
            off += t->csize;
        }
    }
    *bytes = off - w->l.data_off[plane];
    return MMTB_OK;
}

/* The last pass: read the file back through the format decoders exactly as a
 * reader would, hash it, and compare every block with the hash of the raw
 * bytes it was compressed from; the wins, losses and DTW entries are
 * counted again from the decompressed blocks.  Returns the XXH64 of bytes
 * [0, footer_off). */
static int pass_verify(struct writer *w, uint64_t *file_hash, char *why, size_t whylen)
{
    struct mmtb_xxh64_state st;
    struct mmtb_tf_header h;
    struct mmtb_tf_layout l;
    uint8_t hb[MMTB_TF_HEADER_SIZE];
    int rc = mmtb_table_pread(w->fd, hb, sizeof hb, 0);
    if (rc != MMTB_OK)
        return mmtb_fail(why, whylen, rc, "cannot read the header back");
    rc = mmtb_tf_header_decode(hb, sizeof hb, &h);
    if (rc != MMTB_OK || h.header_hash != w->h.header_hash)
        return mmtb_fail(why, whylen, MMTB_ERR_CORRUPT, "header reads back wrong");
    mmtb_tf_layout(&h, &l);
    uint64_t msize = mmtb_tf_meta_size(&l);
    uint8_t *meta = malloc(msize ? msize : 1);
    struct mmtb_tf_block *t0 = malloc((l.nblocks[0] + 1) * sizeof *t0);
    struct mmtb_tf_block *t1 = malloc((l.nblocks[1] + 1) * sizeof *t1);
    uint32_t *counts = malloc(((uint64_t)h.count_blocks + 1) * sizeof *counts);
    const char *desc;
    if (!meta || !t0 || !t1 || !counts) {
        rc = mmtb_fail(why, whylen, MMTB_ERR_NOMEM, "out of memory");
        goto out;
    }
    rc = mmtb_table_pread(w->fd, meta, msize, MMTB_TF_HEADER_SIZE);
    if (rc == MMTB_OK)
        rc = mmtb_tf_meta_decode(&h, &l, meta, msize, &desc, counts, t0, t1);
    if (rc != MMTB_OK || memcmp(desc, w->v->text, w->v->text_len) != 0 ||
        h.count_blocks != w->h.count_blocks ||
        (h.count_blocks && memcmp(counts, w->counts, h.count_blocks * sizeof *counts) != 0)) {
        rc = mmtb_fail(why, whylen, MMTB_ERR_CORRUPT, "block tables read back wrong");
        goto out;
    }
    mmtb_xxh64_init(&st, 0);
    mmtb_xxh64_update(&st, hb, sizeof hb);
    mmtb_xxh64_update(&st, meta, msize);

    uint64_t wins = 0, losses = 0, entries = 0;
    uint64_t per_batch = (uint64_t)w->nthreads * BLOCKS_PER_THREAD;
    for (int plane = 0; plane < 2; plane++) {
        struct mmtb_tf_block *t = plane ? t1 : t0;
        uint64_t nb = l.nblocks[plane];
        for (uint64_t b0 = 0; b0 < nb; b0 += per_batch) {
            uint64_t nbatch = nb - b0 < per_batch ? nb - b0 : per_batch;
            /* The batch's blocks are contiguous: one read, hashed in order. */
            uint64_t start = t[b0].offset;
            uint64_t len = t[b0 + nbatch - 1].offset + t[b0 + nbatch - 1].csize - start;
            rc = len ? mmtb_table_pread(w->fd, w->batch, len, start) : MMTB_OK;
            if (rc != MMTB_OK) {
                rc = mmtb_fail(why, whylen, rc, "cannot read blocks back");
                goto out;
            }
            mmtb_xxh64_update(&st, w->batch, len);
#pragma omp parallel for schedule(dynamic, 1) num_threads(w->nthreads)
            for (uint64_t k = 0; k < nbatch; k++) {
                struct scratch *sc = &w->sc[omp_get_thread_num()];
                uint64_t b = b0 + k;
                uint64_t ns = mmtb_tf_block_nslots(&h, &l, plane, b);
                size_t n = t[b].raw_size;
                int r = n == w->tab[plane][b].raw_size ? MMTB_OK : MMTB_ERR_CORRUPT;
                if (r == MMTB_OK)
                    r = mmtb_tf_block_decompress(sc->dctx, w->batch + (t[b].offset - start), &t[b],
                                                 sc->raw2);
                if (r == MMTB_OK)
                    r = plane ? mmtb_tf_check_dtw(sc->raw2, n / h.dtw_width, h.dtw_width,
                                                  (uint32_t)(h.max_win > h.max_loss ? h.max_win
                                                                                   : h.max_loss))
                              : mmtb_tf_check_wdl(sc->raw2, ns);
                /* against the hash of what was compressed: filling and
                 * packing the block again would cost a third of the write */
                if (r == MMTB_OK && mmtb_xxh64(sc->raw2, n, 0) != w->raw_hash[plane][b])
                    r = MMTB_ERR_CORRUPT;
                if (r == MMTB_OK && plane == MMTB_TF_WDL) {
                    w->bst[k].wins = mmtb_tf_count_wins(sc->raw2, 0, ns);
                    w->bst[k].losses = mmtb_tf_count_decided(sc->raw2, 0, ns) - w->bst[k].wins;
                }
                w->brc[k] = r;
            }
            for (uint64_t k = 0; k < nbatch; k++) {
                if (w->brc[k] != MMTB_OK) {
                    rc = mmtb_fail(why, whylen, MMTB_ERR_CORRUPT,
                              "%s block %llu reads back wrong", plane ? "DTW" : "W/D/L",
                              (unsigned long long)(b0 + k));
                    goto out;
                }
                if (plane == MMTB_TF_WDL) {
                    wins += w->bst[k].wins;
                    losses += w->bst[k].losses;
                } else {
                    entries += t[b0 + k].raw_size / h.dtw_width;
                }
            }
        }
    }
    /* Counted again from the stored bytes: unused slots are stored as
     * draws, so the decided slots are the canonical wins and losses, and
     * each has one DTW entry when there is a DTW plane. */
    if (wins != h.wins || losses != h.losses || (h.dtw_width && entries != wins + losses)) {
        rc = mmtb_fail(why, whylen, MMTB_ERR_CORRUPT, "counts differ on the second reading");
        goto out;
    }
    *file_hash = mmtb_xxh64_digest(&st);
    rc = MMTB_OK;
out:
    free(meta);
    free(t0);
    free(t1);
    free(counts);
    return rc;
}

static void free_writer(struct writer *w)
{
    if (w->sc) {
        for (int i = 0; i < w->nthreads; i++) {
            free(w->sc[i].wdl);
            free(w->sc[i].dtw);
            free(w->sc[i].raw);
            free(w->sc[i].raw2);
            ZSTD_freeCCtx(w->sc[i].cctx);
            ZSTD_freeDCtx(w->sc[i].dctx);
        }
        free(w->sc);
    }
    free(w->tab[0]);
    free(w->tab[1]);
    free(w->raw_hash[0]);
    free(w->raw_hash[1]);
    free(w->batch);
    free(w->bst);
    free(w->brc);
    free(w->made);
    free(w->far);
}

/* Allocate the per-thread scratch and the batch buffers. */
static int alloc_writer(struct writer *w)
{
    uint64_t maxslots = w->l.block_slots[0] > w->l.block_slots[1] ? w->l.block_slots[0]
                                                                    : w->l.block_slots[1];
    size_t maxraw = (size_t)(w->l.block_slots[0] / 4 > w->l.block_slots[1] * 2
                                 ? w->l.block_slots[0] / 4
                                 : w->l.block_slots[1] * 2);
    uint64_t per_batch = (uint64_t)w->nthreads * BLOCKS_PER_THREAD;
    w->bound = mmtb_tf_block_bound(maxraw);
    w->sc = calloc((size_t)w->nthreads, sizeof *w->sc);
    w->batch = malloc(per_batch * w->bound);
    w->bst = calloc(per_batch, sizeof *w->bst);
    w->brc = calloc(per_batch, sizeof *w->brc);
    w->made = calloc(per_batch, sizeof *w->made);
    w->far = calloc(per_batch, sizeof *w->far);
    w->tab[0] = calloc(w->l.nblocks[0] + 1, sizeof *w->tab[0]);
    w->tab[1] = calloc(w->l.nblocks[1] + 1, sizeof *w->tab[1]);
    w->raw_hash[0] = calloc(w->l.nblocks[0] + 1, sizeof *w->raw_hash[0]);
    if (!w->sc || !w->batch || !w->bst || !w->brc || !w->made || !w->far || !w->tab[0] ||
        !w->tab[1] || !w->raw_hash[0])
        return MMTB_ERR_NOMEM;
    for (int i = 0; i < w->nthreads; i++) {
        struct scratch *sc = &w->sc[i];
        sc->wdl = malloc(maxslots);
        sc->dtw = malloc(maxslots * sizeof *sc->dtw);
        sc->raw = malloc(maxraw);
        sc->raw2 = malloc(maxraw);
        sc->cctx = ZSTD_createCCtx();
        sc->dctx = ZSTD_createDCtx();
        if (!sc->wdl || !sc->dtw || !sc->raw || !sc->raw2 || !sc->cctx || !sc->dctx)
            return MMTB_ERR_NOMEM;
    }
    return MMTB_OK;
}

/* The whole write into an open .tmp file: statistics, both planes, header
 * and tables, verification, footer. */
static int write_file(struct writer *w, struct mmtb_sector_stats *stats, uint64_t *size,
                      uint64_t *hash, char *why, size_t whylen)
{
    struct bstats total;
    /* The scratch sizes do not depend on the statistics; the DTW width
     * does (the provisional width 2 gives the largest scratch). */
    int rc = mmtb_tf_layout(&w->h, &w->l);
    if (rc == MMTB_OK)
        rc = alloc_writer(w);
    if (rc != MMTB_OK)
        return mmtb_fail(why, whylen, rc, "out of memory");
    /* The W/D/L plane first, counting the values on the way.  Its data
     * start after the block tables, which for any DTW width but 0 take the
     * same room: only a sector with no decided position of depth above 0
     * (no DTW plane) has them start earlier, and is written again. */
    for (int again = 0; again < 2; again++) {
        uint64_t wdl_off = w->l.data_off[MMTB_TF_WDL];
        rc = pass_plane(w, MMTB_TF_WDL, &w->h.wdl_data_bytes, &total);
        if (rc != MMTB_OK)
            return mmtb_fail(why, whylen, rc, "writing blocks: %s",
                        rc == MMTB_ERR_IO ? strerror(errno) : mmtb_strerror(rc));
        if (total.rc != MMTB_OK)
            return mmtb_fail(why, whylen, MMTB_ERR_INVALID,
                        "the values break the rules (a win in 0, or a draw with a depth)");
        /* Readers check the count against the index: catch a wrong unused mark here
         * (the index with restrictions or a first-mill owner has no
         * closed-form count). */
        uint64_t want = mmtb_index_canonical(w->v, w->h.sector);
        if (!mmtb_ban_index_applies(w->v, w->h.sector) && total.canonical != want)
            return mmtb_fail(why, whylen, MMTB_ERR_INVALID,
                        "%llu slots marked canonical, the index scheme has %llu canonical "
                        "positions",
                        (unsigned long long)total.canonical, (unsigned long long)want);
        w->h.canonical = total.canonical;
        w->h.wins = total.wins;
        w->h.draws = total.draws;
        w->h.losses = total.losses;
        w->h.max_win = total.max_win;
        w->h.max_loss = total.max_loss;
        w->h.dtw_width = (uint8_t)mmtb_tf_dtw_width(total.max_win, total.max_loss);
        mmtb_tf_layout(&w->h, &w->l);
        if (w->l.data_off[MMTB_TF_WDL] == wdl_off)
            break;
        if (again)
            return mmtb_fail(why, whylen, MMTB_ERR_INVALID, "the W/D/L data moved twice");
        if (ftruncate(w->fd, 0) != 0)
            return mmtb_fail(why, whylen, MMTB_ERR_IO, "rewriting the W/D/L plane: %s",
                        strerror(errno));
    }
    free(w->tab[1]);
    w->tab[1] = calloc(w->l.nblocks[1] + 1, sizeof *w->tab[1]);
    w->raw_hash[1] = calloc(w->l.nblocks[1] + 1, sizeof *w->raw_hash[1]);
    if (!w->tab[1] || !w->raw_hash[1])
        return mmtb_fail(why, whylen, MMTB_ERR_NOMEM, "out of memory");
    /* the DTW data start after the W/D/L data */
    rc = pass_plane(w, MMTB_TF_DTW, &w->h.dtw_data_bytes, NULL);
    if (rc != MMTB_OK)
        return mmtb_fail(why, whylen, rc, "writing blocks: %s",
                    rc == MMTB_ERR_IO ? strerror(errno) : mmtb_strerror(rc));
    mmtb_tf_layout(&w->h, &w->l);

    /* Header and metadata region go in front of the data. */
    uint64_t msize = mmtb_tf_meta_size(&w->l);
    uint8_t *meta = malloc(msize);
    uint8_t hb[MMTB_TF_HEADER_SIZE];
    if (!meta)
        return mmtb_fail(why, whylen, MMTB_ERR_NOMEM, "out of memory");
    w->h.meta_hash =
        mmtb_tf_meta_encode(&w->h, &w->l, w->v->text, w->counts, w->tab[0], w->tab[1], meta);
    mmtb_tf_header_encode(&w->h, hb);
    rc = pwrite_all(w->fd, meta, msize, MMTB_TF_HEADER_SIZE);
    free(meta);
    if (rc == MMTB_OK)
        rc = pwrite_all(w->fd, hb, sizeof hb, 0);
    if (rc == MMTB_OK && fsync(w->fd) != 0)
        rc = MMTB_ERR_IO;
    if (rc != MMTB_OK)
        return mmtb_fail(why, whylen, rc, "writing the header: %s", strerror(errno));

    rc = pass_verify(w, hash, why, whylen);
    if (rc != MMTB_OK)
        return rc;

    struct mmtb_tf_footer f = {w->l.file_size, *hash, w->h.header_hash};
    uint8_t fb[MMTB_TF_FOOTER_SIZE], fb2[MMTB_TF_FOOTER_SIZE];
    struct mmtb_tf_footer f2;
    mmtb_tf_footer_encode(&f, fb);
    rc = pwrite_all(w->fd, fb, sizeof fb, w->l.footer_off);
    if (rc == MMTB_OK && fsync(w->fd) != 0)
        rc = MMTB_ERR_IO;
    if (rc != MMTB_OK)
        return mmtb_fail(why, whylen, rc, "writing the footer: %s", strerror(errno));
    struct stat sb;
    if (mmtb_table_pread(w->fd, fb2, sizeof fb2, w->l.footer_off) != MMTB_OK ||
        mmtb_tf_footer_decode(fb2, sizeof fb2, &w->h, &f2) != MMTB_OK || f2.file_hash != *hash ||
        fstat(w->fd, &sb) != 0 || (uint64_t)sb.st_size != w->l.file_size)
        return mmtb_fail(why, whylen, MMTB_ERR_CORRUPT, "the footer reads back wrong");

    *size = w->l.file_size;
    if (stats) {
        stats->slots = w->h.slots;
        stats->canonical = w->h.canonical;
        stats->wins = w->h.wins;
        stats->draws = w->h.draws;
        stats->losses = w->h.losses;
        stats->max_win = w->h.max_win;
        stats->max_loss = w->h.max_loss;
    }
    return MMTB_OK;
}

int mmtb_table_write_sector(const char *dir, const struct mmtb_variant *v, struct mmtb_sector s,
                            uint64_t slots, mmtb_fill_fn fill, void *ctx,
                            const struct mmtb_write_opts *o, struct mmtb_sector_stats *stats,
                            char *err, size_t errlen)
{
    char name[48], path[4096], tmp[4200], why[256] = "";
    if (!dir || !v || !fill || !v->text)
        return mmtb_fail(err, errlen, MMTB_ERR_INVALID, "bad arguments");
    mmtb_tf_sector_name(s, name, sizeof name);
    int level = o ? o->zstd_level : 0;
    int dlevel = o && o->dtw_zstd_level ? o->dtw_zstd_level : level;
    if (level < 0 || level > ZSTD_maxCLevel() || dlevel < 0 || dlevel > ZSTD_maxCLevel())
        return mmtb_fail(err, errlen, MMTB_ERR_INVALID, "zstd level %d outside 1..%d",
                    level < 0 || level > ZSTD_maxCLevel() ? level : dlevel, ZSTD_maxCLevel());
    int wlog = o && o->wdl_block_log2 ? o->wdl_block_log2 : MMTB_TF_WDL_BLOCK_LOG2;
    int dlog = o && o->dtw_block_log2 ? o->dtw_block_log2 : MMTB_TF_DTW_BLOCK_LOG2;
    if (wlog < MMTB_TF_MIN_BLOCK_LOG2 || wlog > MMTB_TF_MAX_BLOCK_LOG2 ||
        dlog < MMTB_TF_MIN_BLOCK_LOG2 || dlog > wlog)
        return mmtb_fail(err, errlen, MMTB_ERR_INVALID,
                    "block sizes outside 2^%d..2^%d slots, or DTW blocks larger than W/D/L "
                    "blocks",
                    MMTB_TF_MIN_BLOCK_LOG2, MMTB_TF_MAX_BLOCK_LOG2);
    if (slots > MMTB_TF_MAX_SLOTS || v->text_len == 0 || v->text_len > MMTB_TF_MAX_DESCRIPTOR ||
        strlen(v->name) == 0 || strlen(v->name) > 31 || s.w + s.b > MMTB_MAX_POINTS)
        return mmtb_fail(err, errlen, MMTB_ERR_INVALID, "sector %s: cannot be stored", name);
    if ((size_t)mmtb_table_sector_path(dir, s, path, sizeof path) >= sizeof path)
        return mmtb_fail(err, errlen, MMTB_ERR_INVALID, "directory name too long");
    snprintf(tmp, sizeof tmp, "%s.tmp", path);

    int rc = manifest_forget(dir, v, s, err, errlen);
    if (rc != MMTB_OK)
        return rc;

    struct writer w;
    memset(&w, 0, sizeof w);
    w.v = v;
    w.fill = fill;
    w.fctx = ctx;
    w.level[MMTB_TF_WDL] = level ? level : MMTB_TF_WDL_LEVEL;
    w.level[MMTB_TF_DTW] = dlevel ? dlevel : MMTB_TF_DTW_LEVEL;
    w.nthreads = omp_get_max_threads();
    w.src = o ? o->remote : NULL;
    w.h.version = MMTB_TF_VERSION;
    w.h.fingerprint = v->fingerprint;
    snprintf(w.h.name, sizeof w.h.name, "%s", v->name);
    w.h.descriptor_len = (uint32_t)v->text_len;
    w.h.sector = s;
    w.h.index_scheme = MMTB_INDEX_SCHEME;
    w.h.value_encoding = MMTB_TF_VALUE_ENCODING;
    w.h.wdl_block_log2 = (uint8_t)wlog;
    w.h.dtw_block_log2 = (uint8_t)dlog;
    w.h.dtw_width = 2; /* provisional, for the scratch sizes */
    w.h.slots = slots;
    if (o && o->count_blocks) {
        w.counts = o->counts;
        w.h.count_blocks = o->count_blocks;
        w.h.count_block_log2 = (uint8_t)o->count_block_log2;
        struct mmtb_tf_layout l;
        if (!o->counts || mmtb_tf_layout(&w.h, &l) != MMTB_OK)
            return mmtb_fail(err, errlen, MMTB_ERR_INVALID, "sector %s: a bad count table", name);
    }
    w.fd = open(tmp, O_RDWR | O_CREAT | O_TRUNC, 0644);
    if (w.fd < 0)
        return mmtb_fail(err, errlen, MMTB_ERR_IO, "%s: cannot create: %s", tmp, strerror(errno));

    uint64_t size = 0, hash = 0;
    rc = write_file(&w, stats, &size, &hash, why, sizeof why);
    if (close(w.fd) != 0 && rc == MMTB_OK)
        rc = mmtb_fail(why, sizeof why, MMTB_ERR_IO, "closing: %s", strerror(errno));
    free_writer(&w);
    if (rc == MMTB_OK && rename(tmp, path) != 0)
        rc = mmtb_fail(why, sizeof why, MMTB_ERR_IO, "renaming: %s", strerror(errno));
    if (rc != MMTB_OK) {
        unlink(tmp);
        return mmtb_fail(err, errlen, rc, "%s: %s", tmp, why);
    }
    sync_dir(dir);
    return manifest_record(dir, v, s, size, hash, err, errlen);
}

int mmtb_table_make_blocks(const struct mmtb_variant *v, struct mmtb_sector s, uint64_t slots,
                           mmtb_fill_fn fill, void *ctx, const struct mmtb_write_opts *o,
                           int plane, int dtw_width, uint64_t b0, uint64_t b1, uint8_t **bytes,
                           struct mmtb_made_block *made)
{
    *bytes = NULL;
    struct writer w;
    memset(&w, 0, sizeof w);
    w.v = v;
    w.fill = fill;
    w.fctx = ctx;
    int level = o ? o->zstd_level : 0;
    int dlevel = o && o->dtw_zstd_level ? o->dtw_zstd_level : level;
    w.level[MMTB_TF_WDL] = level ? level : MMTB_TF_WDL_LEVEL;
    w.level[MMTB_TF_DTW] = dlevel ? dlevel : MMTB_TF_DTW_LEVEL;
    w.nthreads = omp_get_max_threads();
    w.h.sector = s;
    w.h.wdl_block_log2 = (uint8_t)(o && o->wdl_block_log2 ? o->wdl_block_log2
                                                         : MMTB_TF_WDL_BLOCK_LOG2);
    w.h.dtw_block_log2 = (uint8_t)(o && o->dtw_block_log2 ? o->dtw_block_log2
                                                         : MMTB_TF_DTW_BLOCK_LOG2);
    w.h.dtw_width = 2; /* the scratch of the largest width, as the writer's */
    w.h.slots = slots;
    w.h.descriptor_len = (uint32_t)v->text_len;
    int rc = mmtb_tf_layout(&w.h, &w.l);
    if (rc == MMTB_OK)
        rc = alloc_writer(&w);
    w.h.dtw_width = (uint8_t)dtw_width;
    if (rc == MMTB_OK)
        rc = mmtb_tf_layout(&w.h, &w.l);
    if (rc == MMTB_OK && (b1 > w.l.nblocks[plane] || b0 > b1))
        rc = MMTB_ERR_INVALID;
    uint64_t per_batch = (uint64_t)w.nthreads * BLOCKS_PER_THREAD, used = 0, cap = 0;
    uint8_t *out = NULL;
    for (uint64_t c0 = b0; c0 < b1 && rc == MMTB_OK; c0 += per_batch) {
        uint64_t nbatch = b1 - c0 < per_batch ? b1 - c0 : per_batch;
#pragma omp parallel for schedule(dynamic, 1) num_threads(w.nthreads)
        for (uint64_t k = 0; k < nbatch; k++) {
            struct scratch *sc = &w.sc[omp_get_thread_num()];
            struct mmtb_made_block *m = &made[c0 - b0 + k];
            struct bstats bs;
            size_t n = pack_block(&w, sc, plane, c0 + k, plane == MMTB_TF_WDL ? &bs : NULL);
            memset(m, 0, sizeof *m);
            m->raw_size = (uint32_t)n;
            m->raw_hash = mmtb_xxh64(sc->raw, n, 0);
            m->rc = mmtb_tf_block_compress(sc->cctx, w.level[plane], sc->raw, n,
                                           w.batch + k * w.bound, w.bound, &m->csize, &m->hash);
            if (plane == MMTB_TF_WDL) {
                m->canonical = bs.canonical;
                m->wins = bs.wins;
                m->draws = bs.draws;
                m->losses = bs.losses;
                m->max_win = bs.max_win;
                m->max_loss = bs.max_loss;
                m->bad = bs.rc != MMTB_OK;
            }
        }
        for (uint64_t k = 0; k < nbatch && rc == MMTB_OK; k++) {
            const struct mmtb_made_block *m = &made[c0 - b0 + k];
            if (m->rc != MMTB_OK || m->csize == 0)
                continue; /* (an error: the writer reports it) */
            if (used + m->csize > cap) {
                uint64_t nc = cap ? 2 * cap : (uint64_t)1 << 20;
                while (nc < used + m->csize)
                    nc *= 2;
                uint8_t *no = realloc(out, nc);
                if (!no) {
                    rc = MMTB_ERR_NOMEM;
                    break;
                }
                out = no;
                cap = nc;
            }
            memcpy(out + used, w.batch + k * w.bound, m->csize);
            used += m->csize;
        }
    }
    free_writer(&w);
    if (rc != MMTB_OK) {
        free(out);
        return rc;
    }
    *bytes = out ? out : malloc(1);
    return *bytes ? MMTB_OK : MMTB_ERR_NOMEM;
}
