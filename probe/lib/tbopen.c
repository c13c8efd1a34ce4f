/*
 * tbopen.c - the shared table handle: reads and checks the directory's
 * MANIFEST and variant, opens and checks sector files lazily (one mutex
 * plus an atomic state per sector, Fathom style), builds the index on first
 * use, and reports per-sector information.  Descriptors are tbfile.c's,
 * the whole-file pass of MMTB_OPEN_VERIFY tbverify.c's.  Depends on
 * format/ only; no global state.
 */
#include "mmtb_integrity.h"
#include "tbinternal.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Largest game a handle accepts (the sector look-up packs positions into
 * 32 bits; real games have at most a few thousand sectors). */
#define MAX_GAME_SECTORS (1 << 20)

static void msg(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void msg(char *err, size_t errlen, const char *fmt, ...)
{
    if (!err || !errlen)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

/* ------------------------------------------------------------------------ */
/* Sector look-up                                                            */
/* ------------------------------------------------------------------------ */

/* 8 bits per count (each is at most 32). */
static uint32_t sector_key(struct mmtb_sector s)
{
    return (uint32_t)s.w << 24 | (uint32_t)s.b << 16 | (uint32_t)s.w_hand << 8 | s.b_hand;
}

/* Binary search in keys[] = sector key << 32 | position, sorted. */
int tb_find(const mmtb_tb *tb, struct mmtb_sector s)
{
    uint32_t k = sector_key(s);
    int lo = 0, hi = tb->n - 1;
    while (lo <= hi) {
        int mid = lo + (hi - lo) / 2;
        uint32_t km = (uint32_t)(tb->keys[mid] >> 32);
        if (km == k)
            return (int)(uint32_t)tb->keys[mid];
        if (km < k)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return MMTB_ERR_NOT_IN_GAME;
}

int mmtb_tb_sector_find(const mmtb_tb *tb, struct mmtb_sector s)
{
    if (!tb)
        return MMTB_ERR_INVALID;
    return tb_find(tb, s);
}

int mmtb_tb_sector_key(const mmtb_tb *tb, int i, struct mmtb_sector *s)
{
    if (!tb || !s || i < 0 || i >= tb->n)
        return MMTB_ERR_INVALID;
    *s = tb->sec[i].s;
    return MMTB_OK;
}

/* ------------------------------------------------------------------------ */
/* Open and close                                                            */
/* ------------------------------------------------------------------------ */

/* Everything mmtb_tb_open checks, on a zeroed handle. */
static int open_tables(mmtb_tb *tb, const char *dir, char *err, size_t errlen)
{
    struct stat st;
    if (stat(dir, &st) != 0) {
        msg(err, errlen, "%s: %s", dir, strerror(errno));
        return MMTB_ERR_IO;
    }
    if (!S_ISDIR(st.st_mode)) {
        msg(err, errlen, "%s: not a directory", dir);
        return MMTB_ERR_IO;
    }
    size_t dl = strlen(dir);
    if (dl > 3800) {
        msg(err, errlen, "directory name too long");
        return MMTB_ERR_INVALID;
    }
    if (!(tb->dir = malloc(dl + 1)))
        return MMTB_ERR_NOMEM;
    memcpy(tb->dir, dir, dl + 1);

    char path[4096], *text = NULL, perr[200];
    size_t len = 0;
    snprintf(path, sizeof path, "%s/%s", dir, MMTB_MANIFEST_NAME);
    int rc = mmtb_file_slurp(path, &text, &len);
    if (rc != MMTB_OK) {
        msg(err, errlen, "%s: %s", path,
            rc == MMTB_ERR_MISSING ? "no manifest: not a table directory" : mmtb_strerror(rc));
        return rc;
    }
    rc = mmtb_manifest_parse(text, len, &tb->m, perr, sizeof perr);
    free(text);
    if (rc != MMTB_OK) {
        msg(err, errlen, "%s: %s", dir, perr);
        return rc;
    }
    if (tb->m.index_scheme != MMTB_INDEX_SCHEME) {
        msg(err, errlen, "%s: index scheme %d; this library reads %d", path, tb->m.index_scheme,
            MMTB_INDEX_SCHEME);
        return MMTB_ERR_MISMATCH;
    }
    rc = mmtb_variant_parse(&tb->v, tb->m.descriptor, tb->m.descriptor_len, path, perr,
                            sizeof perr);
    if (rc != MMTB_OK) {
        msg(err, errlen, "%s: the variant descriptor does not parse: %s", path, perr);
        return rc == MMTB_ERR_NOMEM ? rc : MMTB_ERR_CORRUPT;
    }
    /* The descriptor must be canonical text of the variant the manifest names. */
    if (tb->v->fingerprint != tb->m.fingerprint || strcmp(tb->v->name, tb->m.name) != 0 ||
        tb->v->text_len != tb->m.descriptor_len ||
        memcmp(tb->v->text, tb->m.descriptor, tb->v->text_len) != 0) {
        msg(err, errlen, "%s: the descriptor does not match the variant line", path);
        return MMTB_ERR_CORRUPT;
    }
    if (tb->m.nsectors > MAX_GAME_SECTORS) {
        msg(err, errlen, "%s: too many sectors", path);
        return MMTB_ERR_CORRUPT;
    }

    tb->n = tb->m.nsectors;
    tb->sec = calloc((size_t)tb->n + 1, sizeof *tb->sec);
    tb->keys = malloc(((size_t)tb->n + 1) * sizeof *tb->keys);
    tb_files_init(tb); /* before any return: a zeroed fd would be closed as 0 */
    if (!tb->sec || !tb->keys)
        return MMTB_ERR_NOMEM;
    for (int i = 0; i < tb->n; i++) {
        struct mmtb_sector s = tb->m.sectors[i];
        tb->sec[i].s = s;
        atomic_init(&tb->sec[i].state, SEC_UNTRIED);
        if (s.w + s.b > tb->v->npoints || s.w_hand > tb->v->stones || s.b_hand > tb->v->stones) {
            msg(err, errlen, "%s: sector %u-%u-%u-%u does not fit the variant", path, s.w, s.b,
                s.w_hand, s.b_hand);
            return MMTB_ERR_CORRUPT;
        }
        if (s.w > tb->max_stones)
            tb->max_stones = s.w;
        if (s.b > tb->max_stones)
            tb->max_stones = s.b;
        tb->keys[i] = (uint64_t)sector_key(s) << 32 | (uint32_t)i;
    }
    qsort(tb->keys, (size_t)tb->n, sizeof *tb->keys, mmtb_cmp_u64);
    return MMTB_OK;
}

int mmtb_tb_open(mmtb_tb **out, const char *dir, const struct mmtb_tb_opts *opts)
{
    char *err = opts ? opts->err : NULL;
    size_t errlen = opts ? opts->errlen : 0;
    if (err && errlen)
        err[0] = 0;
    if (!out || !dir) {
        msg(err, errlen, "mmtb_tb_open: NULL argument");
        return MMTB_ERR_INVALID;
    }
    *out = NULL;
    mmtb_tb *tb = calloc(1, sizeof *tb);
    if (!tb)
        return MMTB_ERR_NOMEM;
    if (pthread_mutex_init(&tb->lock, NULL) != 0) {
        free(tb);
        return MMTB_ERR_NOMEM;
    }
    if (pthread_mutex_init(&tb->fd_lock, NULL) != 0) {
        pthread_mutex_destroy(&tb->lock);
        free(tb);
        return MMTB_ERR_NOMEM;
    }
    atomic_init(&tb->ix_state, 0);
    tb->cache_bytes = opts && opts->cache_bytes ? opts->cache_bytes : MMTB_DEFAULT_CACHE_BYTES;
    tb->flags = opts ? opts->flags : 0;
    int rc = open_tables(tb, dir, err, errlen);
    if (rc != MMTB_OK) {
        if (rc == MMTB_ERR_NOMEM && err && errlen && !err[0])
            msg(err, errlen, "out of memory");
        mmtb_tb_close(tb);
        return rc;
    }
    *out = tb;
    return MMTB_OK;
}

void mmtb_tb_close(mmtb_tb *tb)
{
    if (!tb)
        return;
    tb_files_close(tb);
    for (int i = 0; tb->sec && i < tb->n; i++) {
        free(tb->sec[i].tab[0]);
        free(tb->sec[i].tab[1]);
        mmtb_ban_index_free(tb->sec[i].bx);
    }
    free(tb->sec);
    free(tb->keys);
    mmtb_index_free(tb->ix);
    mmtb_variant_free(tb->v);
    mmtb_manifest_clear(&tb->m);
    free(tb->dir);
    pthread_mutex_destroy(&tb->fd_lock);
    pthread_mutex_destroy(&tb->lock);
    free(tb);
}

const struct mmtb_variant *mmtb_tb_variant(const mmtb_tb *tb)
{
    return tb ? tb->v : NULL;
}

int mmtb_tb_sector_count(const mmtb_tb *tb)
{
    return tb ? tb->n : 0;
}

/* Build the index with tb->lock held, unless that happened before; a
 * failure is remembered. */
static int index_locked(mmtb_tb *tb)
{
    int st = atomic_load_explicit(&tb->ix_state, memory_order_relaxed);
    if (st == 0) {
        int rc = mmtb_index_create(&tb->ix, tb->v, tb->max_stones);
        st = rc == MMTB_OK ? 1 : rc;
        atomic_store_explicit(&tb->ix_state, st, memory_order_release);
    }
    return st == 1 ? MMTB_OK : st;
}

/* The index, built on first use: an atomic load on the fast path. */
int tb_index(const mmtb_tb *ctb, const mmtb_index **out)
{
    mmtb_tb *tb = (mmtb_tb *)ctb; /* lazily initialised members only */
    int st = atomic_load_explicit(&tb->ix_state, memory_order_acquire);
    if (st == 0) {
        pthread_mutex_lock(&tb->lock);
        st = index_locked(tb) == MMTB_OK ? 1 : atomic_load(&tb->ix_state);
        pthread_mutex_unlock(&tb->lock);
    }
    *out = st == 1 ? tb->ix : NULL;
    return st == 1 ? MMTB_OK : st;
}

const struct mmtb_index *mmtb_tb_index(const mmtb_tb *tb)
{
    const mmtb_index *ix = NULL;
    if (tb)
        tb_index(tb, &ix);
    return ix;
}

/* ------------------------------------------------------------------------ */
/* Sector files                                                              */
/* ------------------------------------------------------------------------ */

/*
 * Opening a sector's file is the steps below, the checks of FORMAT.md's
 * "Reading", step 2 (the slot counts come after the metadata, which holds
 * the count table some sectors count by).  Each step says in sec->detail
 * why it failed and returns the status (MMTB_OK to go on).  The caller
 * holds tb->lock.
 */

/* Write why sec is unusable into sec->detail, and return rc. */
static int sector_fail(struct tb_sector *sec, int rc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int sector_fail(struct tb_sector *sec, int rc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(sec->detail, sizeof sec->detail, fmt, ap);
    va_end(ap);
    return rc;
}

/* Decode the header into sec->h and check that it is a table of this
 * variant, index scheme and sector; *size gets the file's size. */
static int read_header(const mmtb_tb *tb, struct tb_sector *sec, int fd, const char *name,
                       uint64_t *size)
{
    uint8_t hb[MMTB_TF_HEADER_SIZE];
    struct mmtb_tf_header *h = &sec->h;
    struct stat st;
    int rc = fstat(fd, &st) == 0 ? MMTB_OK : MMTB_ERR_IO;
    if (rc == MMTB_OK)
        rc = mmtb_file_pread(fd, hb, sizeof hb, 0);
    if (rc == MMTB_OK)
        rc = mmtb_tf_header_decode(hb, sizeof hb, h);
    if (rc != MMTB_OK)
        return sector_fail(sec, rc, "%s: bad header: %s", name, mmtb_strerror(rc));
    *size = (uint64_t)st.st_size;
    if (h->fingerprint != tb->v->fingerprint || strcmp(h->name, tb->v->name) != 0)
        return sector_fail(sec, MMTB_ERR_MISMATCH,
                           "%s: a table of variant %s (%016llx), not %s (%016llx)", name, h->name,
                           (unsigned long long)h->fingerprint, tb->v->name,
                           (unsigned long long)tb->v->fingerprint);
    if (h->index_scheme != MMTB_INDEX_SCHEME)
        return sector_fail(sec, MMTB_ERR_MISMATCH, "%s: index scheme %u, not %d", name,
                           h->index_scheme, MMTB_INDEX_SCHEME);
    if (!mmtb_sector_eq(h->sector, sec->s))
        return sector_fail(sec, MMTB_ERR_CORRUPT, "%s: holds another sector", name);
    return MMTB_OK;
}

/*
 * The index the sector's slots are counted by.  no_reclose, and Shah's
 * placement sectors: the slots of the index with restrictions or the
 * first-mill owner (FORMAT.md, "Index scheme 1 with restrictions" and
 * "... with the first-mill owner"), whose canonical count has no closed
 * form.  With restrictions the file's count table (FORMAT.md, "Count
 * table") spares the walk over the sector that building the index takes
 * without it: that index is built later, from the table (check_counts).
 */
static int prepare_index(mmtb_tb *tb, struct tb_sector *sec, const char *name)
{
    int rc = index_locked(tb);
    if (rc != MMTB_OK)
        return sector_fail(sec, rc, "cannot build the index: %s", mmtb_strerror(rc));
    bool bans = mmtb_ban_index_applies(tb->v, sec->s);
    if (sec->h.count_blocks && (!bans || !tb->v->no_reclose))
        return sector_fail(sec, MMTB_ERR_CORRUPT,
                           "%s: a count table in a sector without restrictions", name);
    if (bans && !sec->h.count_blocks && !sec->bx) {
        rc = mmtb_ban_index_create(&sec->bx, tb->ix, sec->s);
        if (rc != MMTB_OK)
            return sector_fail(sec, rc, "cannot build the index with %s: %s",
                               tb->v->no_reclose ? "restrictions" : "the first-mill owner",
                               mmtb_strerror(rc));
    }
    return MMTB_OK;
}

/* The layout the header implies (sec->l) against the file's size (before
 * anything the header sizes is allocated), then the metadata region: the
 * descriptor, which must be the variant's, the count table into *counts
 * and the block tables into sec->tab (all allocated here; the caller frees
 * *counts, and sec->tab on failure). */
static int read_block_tables(const mmtb_tb *tb, struct tb_sector *sec, int fd, const char *name,
                             uint64_t size, uint32_t **counts)
{
    const struct mmtb_tf_header *h = &sec->h;
    mmtb_tf_layout(h, &sec->l);
    if (size != sec->l.file_size)
        return sector_fail(sec, MMTB_ERR_CORRUPT,
                           "%s: %llu bytes, the header says %llu (truncated?)", name,
                           (unsigned long long)size, (unsigned long long)sec->l.file_size);
    uint64_t msize = mmtb_tf_meta_size(&sec->l);
    uint8_t *meta = malloc(msize ? msize : 1);
    *counts = malloc(((uint64_t)h->count_blocks + 1) * sizeof **counts);
    sec->tab[0] = malloc((sec->l.nblocks[0] + 1) * sizeof *sec->tab[0]);
    sec->tab[1] = malloc((sec->l.nblocks[1] + 1) * sizeof *sec->tab[1]);
    if (!meta || !*counts || !sec->tab[0] || !sec->tab[1]) {
        free(meta);
        return sector_fail(sec, MMTB_ERR_NOMEM, "out of memory");
    }
    const char *desc;
    int rc = mmtb_file_pread(fd, meta, msize, MMTB_TF_HEADER_SIZE);
    if (rc == MMTB_OK)
        rc = mmtb_tf_meta_decode(h, &sec->l, meta, msize, &desc, *counts, sec->tab[0], sec->tab[1]);
    if (rc == MMTB_OK &&
        (h->descriptor_len != tb->v->text_len || memcmp(desc, tb->v->text, tb->v->text_len) != 0))
        rc = MMTB_ERR_CORRUPT;
    free(meta);
    if (rc != MMTB_OK)
        return sector_fail(sec, rc, "%s: bad block tables: %s", name, mmtb_strerror(rc));
    return MMTB_OK;
}

/* The index with restrictions from the file's count table, when it has
 * one, then the header's slot and canonical counts against the index. */
static int check_counts(const mmtb_tb *tb, struct tb_sector *sec, const char *name,
                        const uint32_t *counts)
{
    const struct mmtb_tf_header *h = &sec->h;
    if (h->count_blocks && !sec->bx) {
        int rc = mmtb_ban_index_open(&sec->bx, tb->ix, sec->s, h->count_block_log2, counts,
                                     h->count_blocks);
        if (rc != MMTB_OK)
            return sector_fail(sec, rc, "%s: the count table does not fit the sector: %s", name,
                               mmtb_strerror(rc));
    }
    if (sec->bx ? h->slots != mmtb_ban_index_slots(sec->bx) || h->canonical > h->slots
                : h->slots != mmtb_index_slots(tb->ix, sec->s) ||
                      h->canonical != mmtb_index_canonical(tb->v, sec->s))
        return sector_fail(sec, MMTB_ERR_CORRUPT,
                           "%s: slot or position counts differ from the index", name);
    return MMTB_OK;
}

/* The footer into sec->footer, and the file against the manifest's record
 * of it (size and file hash) when it has one. */
static int check_footer(const mmtb_tb *tb, struct tb_sector *sec, int fd, const char *name)
{
    uint8_t fb[MMTB_TF_FOOTER_SIZE];
    int rc = mmtb_file_pread(fd, fb, sizeof fb, sec->l.footer_off);
    if (rc == MMTB_OK)
        rc = mmtb_tf_footer_decode(fb, sizeof fb, &sec->h, &sec->footer);
    if (rc != MMTB_OK)
        return sector_fail(sec, rc, "%s: bad footer: %s", name, mmtb_strerror(rc));
    int k = mmtb_manifest_find_file(&tb->m, sec->s);
    if (k >= 0 && (tb->m.files[k].size != sec->l.file_size ||
                   tb->m.files[k].file_hash != sec->footer.file_hash))
        return sector_fail(sec, MMTB_ERR_CORRUPT, "%s: not the file the manifest records", name);
    return MMTB_OK;
}

/* The steps above on an open file; the block tables stay in sec. */
static int check_file(mmtb_tb *tb, struct tb_sector *sec, int fd, const char *name)
{
    uint64_t size = 0;
    int rc = read_header(tb, sec, fd, name, &size);
    if (rc == MMTB_OK)
        rc = prepare_index(tb, sec, name);
    if (rc != MMTB_OK)
        return rc;
    uint32_t *counts = NULL;
    rc = read_block_tables(tb, sec, fd, name, size, &counts);
    if (rc == MMTB_OK)
        rc = check_counts(tb, sec, name, counts);
    free(counts);
    if (rc == MMTB_OK)
        rc = check_footer(tb, sec, fd, name);
    return rc;
}

/*
 * Open and check the file of sector sec (with the lock held): header,
 * fingerprint, sector, index scheme, slot and canonical counts against the
 * index, size, metadata, footer, the manifest's record, and with
 * MMTB_OPEN_VERIFY the whole file.  Returns MMTB_OK or the reason;
 * sec->detail gets a message.
 */
static int load_sector(mmtb_tb *tb, struct tb_sector *sec)
{
    char name[48], path[4096];
    mmtb_tf_sector_filename(sec->s, name, sizeof name);
    snprintf(path, sizeof path, "%s/%s", tb->dir, name);
    sec->detail[0] = 0;
    int fd = tb_file_open(tb, path);
    if (fd < 0) {
        int missing = errno == ENOENT;
        return sector_fail(sec, missing ? MMTB_ERR_MISSING : MMTB_ERR_IO, "%s: %s", name,
                           missing ? "not solved yet (no file)" : strerror(errno));
    }
    int rc = check_file(tb, sec, fd, name);
    if (rc == MMTB_OK) {
        const struct mmtb_tf_header *h = &sec->h;
        /* The largest depth the DTW plane may hold: a packed sector's are
         * losses only. */
        int32_t mw = h->value_encoding == MMTB_TF_VALUE_LOSSES ? -1 : h->max_win;
        sec->max_dtw = (uint32_t)(mw > h->max_loss ? mw : h->max_loss);
        if (mw < 0 && h->max_loss < 0)
            sec->max_dtw = 0;
        tb_file_adopt(tb, sec, fd);
        fd = -1; /* the list's now: closed there */
        if (tb->flags & MMTB_OPEN_VERIFY) {
            struct mmtb_verify_result res = {0};
            rc = tb_verify_whole(tb, (int)(sec - tb->sec), NULL, &res, sec->detail,
                                 sizeof sec->detail);
            if (rc != MMTB_OK)
                tb_file_drop(tb, sec);
        }
    }
    if (rc != MMTB_OK) {
        free(sec->tab[0]);
        free(sec->tab[1]);
        sec->tab[0] = sec->tab[1] = NULL;
        if (fd >= 0)
            close(fd);
    }
    return rc;
}

/* Fast path: an atomic load.  Slow path under the lock.  A missing file
 * (or an I/O error) is not remembered, so a file written later is found;
 * any other failure is. */
int tb_sector_ready(const mmtb_tb *ctb, int i, const struct tb_sector **out)
{
    mmtb_tb *tb = (mmtb_tb *)ctb; /* lazily initialised members only */
    struct tb_sector *sec = &tb->sec[i];
    int st = atomic_load_explicit(&sec->state, memory_order_acquire);
    if (st == SEC_UNTRIED) {
        pthread_mutex_lock(&tb->lock);
        st = atomic_load_explicit(&sec->state, memory_order_relaxed);
        if (st == SEC_UNTRIED) {
            int rc = load_sector(tb, sec);
            if (rc == MMTB_OK)
                atomic_store_explicit(&sec->state, SEC_READY, memory_order_release);
            else if (rc != MMTB_ERR_MISSING && rc != MMTB_ERR_IO && rc != MMTB_ERR_NOMEM)
                atomic_store_explicit(&sec->state, rc, memory_order_release);
            st = rc == MMTB_OK ? SEC_READY : rc;
        }
        pthread_mutex_unlock(&tb->lock);
    }
    *out = sec;
    return st == SEC_READY ? MMTB_OK : st;
}

/* ------------------------------------------------------------------------ */
/* Information                                                               */
/* ------------------------------------------------------------------------ */

static void header_stats(const struct mmtb_tf_header *h, struct mmtb_sector_stats *st)
{
    st->slots = h->slots;
    st->canonical = h->canonical;
    st->wins = h->wins;
    st->draws = h->draws;
    st->losses = h->losses;
    st->max_win = h->max_win;
    st->max_loss = h->max_loss;
}

int mmtb_tb_sector_info(const mmtb_tb *tb, int i, struct mmtb_sector_info *info)
{
    if (!tb || !info || i < 0 || i >= tb->n)
        return MMTB_ERR_INVALID;
    const struct tb_sector *sec;
    memset(info, 0, sizeof *info);
    info->sector = tb->sec[i].s;
    info->status = tb_sector_ready(tb, i, &sec);
    if (info->status != MMTB_OK) {
        tb_sector_detail(tb, i, info->detail, sizeof info->detail);
        return MMTB_OK;
    }
    header_stats(&sec->h, &info->stats);
    info->file_bytes = sec->l.file_size;
    info->wdl_bytes = sec->h.wdl_data_bytes;
    info->dtw_bytes = sec->h.dtw_data_bytes;
    info->dtw_width = sec->h.dtw_width;
    return MMTB_OK;
}

int mmtb_tb_sector_stats(const mmtb_tb *tb, struct mmtb_sector s, struct mmtb_sector_stats *stats)
{
    if (!tb)
        return MMTB_ERR_INVALID;
    int i = tb_find(tb, s);
    if (i < 0)
        return i;
    const struct tb_sector *sec;
    int rc = tb_sector_ready(tb, i, &sec);
    if (rc == MMTB_OK && stats)
        header_stats(&sec->h, stats);
    return rc;
}

/* sec->detail is only written under the lock; it is copied there. */
void tb_sector_detail(const mmtb_tb *tb, int i, char *buf, size_t len)
{
    pthread_mutex_lock((pthread_mutex_t *)&tb->lock);
    snprintf(buf, len, "%s", tb->sec[i].detail);
    pthread_mutex_unlock((pthread_mutex_t *)&tb->lock);
}
