/*
 * tbopen.c - the shared table handle: reads and checks the directory's
 * MANIFEST and variant, opens sector files lazily (one mutex plus an atomic
 * state per sector, Fathom style), builds the index on first use, and
 * reports per-sector information (whole-file verification: tbverify.c).
 * Depends on format/ only; no global state.
 */
#include "mmtb_integrity.h"
#include "tbinternal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
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
/* Open files within a budget                                               */
/* ------------------------------------------------------------------------ */

/*
 * A game has thousands of sector files (Lasker Morris 2,482) and a process
 * commonly a limit of 1024 descriptors.  The handle keeps the files it read
 * last open, at most fd_budget of them idle (a quarter of the process's
 * limit when the handle opens, 4 to 4096), in a list by last use; the
 * others are opened again when read.  A read holds its file (fd_users) so
 * that it is never closed under it.  All under fd_lock.
 */
#define FD_BUDGET_MAX 4096

static int fd_budget(void)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY)
        return FD_BUDGET_MAX;
    rlim_t quarter = rl.rlim_cur / 4;
    return quarter < 4 ? 4 : quarter > FD_BUDGET_MAX ? FD_BUDGET_MAX : (int)quarter;
}

static void fd_unlink(mmtb_tb *tb, struct tb_sector *sec)
{
    if (sec->fd_prev >= 0)
        tb->sec[sec->fd_prev].fd_next = sec->fd_next;
    else
        tb->fd_head = sec->fd_next;
    if (sec->fd_next >= 0)
        tb->sec[sec->fd_next].fd_prev = sec->fd_prev;
    else
        tb->fd_tail = sec->fd_prev;
    sec->fd_prev = sec->fd_next = -1;
}

static void fd_push_front(mmtb_tb *tb, struct tb_sector *sec)
{
    int i = (int)(sec - tb->sec);
    sec->fd_prev = -1;
    sec->fd_next = tb->fd_head;
    if (tb->fd_head >= 0)
        tb->sec[tb->fd_head].fd_prev = i;
    else
        tb->fd_tail = i;
    tb->fd_head = i;
}

/* Close sec's open file and take it off the list. */
static void fd_close(mmtb_tb *tb, struct tb_sector *sec)
{
    fd_unlink(tb, sec);
    close(sec->fd);
    sec->fd = -1;
    tb->fd_open--;
}

/* Close idle files, least recently used first, until at most keep are
 * open (files in use stay open). */
static void fd_trim(mmtb_tb *tb, int keep)
{
    int i = tb->fd_tail;
    while (i >= 0 && tb->fd_open > keep) {
        struct tb_sector *sec = &tb->sec[i];
        int prev = sec->fd_prev;
        if (sec->fd_users == 0)
            fd_close(tb, sec);
        i = prev;
    }
}

/* open(2) for reading; when the process is out of descriptors, this
 * handle's idle files are closed and the open is tried once more. */
static int open_file(mmtb_tb *tb, const char *path)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0 && (errno == EMFILE || errno == ENFILE)) {
        pthread_mutex_lock(&tb->fd_lock);
        fd_trim(tb, 0);
        pthread_mutex_unlock(&tb->fd_lock);
        fd = open(path, O_RDONLY | O_CLOEXEC);
    }
    return fd;
}

/* A file load_sector opened and checked joins the list, unused. */
static void fd_adopt(mmtb_tb *tb, struct tb_sector *sec, int fd)
{
    pthread_mutex_lock(&tb->fd_lock);
    sec->fd = fd;
    fd_push_front(tb, sec);
    tb->fd_open++;
    fd_trim(tb, tb->fd_budget);
    pthread_mutex_unlock(&tb->fd_lock);
}

/* Open sector sec's file again: it must be the file load_sector checked,
 * by size and footer (whose hash covers every other byte). */
static int fd_reopen(mmtb_tb *tb, const struct tb_sector *sec, int *out, char *detail,
                     size_t dlen)
{
    char name[48], path[4096];
    mmtb_tf_sector_filename(sec->s, name, sizeof name);
    snprintf(path, sizeof path, "%s/%s", tb->dir, name);
    int fd = open_file(tb, path);
    if (fd < 0) {
        msg(detail, dlen, "%s: cannot be opened again: %s", name, strerror(errno));
        return MMTB_ERR_IO;
    }
    struct stat st;
    uint8_t fb[MMTB_TF_FOOTER_SIZE];
    struct mmtb_tf_footer f;
    int rc = fstat(fd, &st) == 0 ? MMTB_OK : MMTB_ERR_IO;
    if (rc == MMTB_OK && (uint64_t)st.st_size != sec->l.file_size)
        rc = MMTB_ERR_CORRUPT;
    if (rc == MMTB_OK)
        rc = mmtb_file_pread(fd, fb, sizeof fb, sec->l.footer_off);
    if (rc == MMTB_OK)
        rc = mmtb_tf_footer_decode(fb, sizeof fb, &sec->h, &f);
    if (rc == MMTB_OK && f.file_hash != sec->footer.file_hash)
        rc = MMTB_ERR_CORRUPT;
    if (rc != MMTB_OK) {
        close(fd);
        msg(detail, dlen, "%s: %s", name,
            rc == MMTB_ERR_IO ? "read error on opening it again"
                              : "replaced or changed since the handle opened it");
        return rc == MMTB_ERR_IO ? rc : MMTB_ERR_CORRUPT;
    }
    *out = fd;
    return MMTB_OK;
}

int tb_file_acquire(const mmtb_tb *ctb, int i, int *fd, char *detail, size_t dlen)
{
    mmtb_tb *tb = (mmtb_tb *)ctb; /* the list of open files only */
    struct tb_sector *sec = &tb->sec[i];
    pthread_mutex_lock(&tb->fd_lock);
    if (sec->fd >= 0) {
        sec->fd_users++;
        if (tb->fd_head != i) {
            fd_unlink(tb, sec);
            fd_push_front(tb, sec);
        }
        *fd = sec->fd;
        pthread_mutex_unlock(&tb->fd_lock);
        return MMTB_OK;
    }
    pthread_mutex_unlock(&tb->fd_lock);
    /* open outside the lock; two threads may race, the second file closes */
    int nfd;
    int rc = fd_reopen(tb, sec, &nfd, detail, dlen);
    if (rc != MMTB_OK)
        return rc;
    pthread_mutex_lock(&tb->fd_lock);
    if (sec->fd >= 0) {
        close(nfd);
        fd_unlink(tb, sec);
    } else {
        sec->fd = nfd;
        tb->fd_open++;
    }
    sec->fd_users++;
    fd_push_front(tb, sec);
    *fd = sec->fd;
    fd_trim(tb, tb->fd_budget);
    pthread_mutex_unlock(&tb->fd_lock);
    return MMTB_OK;
}

void tb_file_release(const mmtb_tb *ctb, int i)
{
    mmtb_tb *tb = (mmtb_tb *)ctb;
    pthread_mutex_lock(&tb->fd_lock);
    tb->sec[i].fd_users--;
    pthread_mutex_unlock(&tb->fd_lock);
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
    if (!tb->sec || !tb->keys)
        return MMTB_ERR_NOMEM;
    for (int i = 0; i < tb->n; i++) {
        struct mmtb_sector s = tb->m.sectors[i];
        tb->sec[i].s = s;
        tb->sec[i].fd = -1;
        tb->sec[i].fd_prev = tb->sec[i].fd_next = -1;
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
    tb->fd_budget = fd_budget();
    tb->fd_head = tb->fd_tail = -1;
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
    for (int i = 0; tb->sec && i < tb->n; i++) {
        if (tb->sec[i].fd >= 0)
            close(tb->sec[i].fd);
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
 * Open and check the file of sector sec (with the lock held): header,
 * fingerprint, sector, index scheme, slot and canonical counts against the
 * index, size, metadata, footer, the manifest's record, and with
 * MMTB_OPEN_VERIFY the whole file.  Returns MMTB_OK or the reason; detail
 * gets a message.
 */
static int load_sector(mmtb_tb *tb, struct tb_sector *sec)
{
    char name[48], path[4096];
    char *detail = sec->detail;
    size_t dlen = sizeof sec->detail;
    mmtb_tf_sector_filename(sec->s, name, sizeof name);
    snprintf(path, sizeof path, "%s/%s", tb->dir, name);
    detail[0] = 0;
    int fd = open_file(tb, path);
    if (fd < 0) {
        int missing = errno == ENOENT;
        msg(detail, dlen, "%s: %s", name, missing ? "not solved yet (no file)" : strerror(errno));
        return missing ? MMTB_ERR_MISSING : MMTB_ERR_IO;
    }
    uint8_t hb[MMTB_TF_HEADER_SIZE], fb[MMTB_TF_FOOTER_SIZE];
    struct mmtb_tf_header *h = &sec->h;
    struct stat st;
    uint8_t *meta = NULL;
    uint32_t *counts = NULL;
    const char *desc;
    int rc = fstat(fd, &st) == 0 ? MMTB_OK : MMTB_ERR_IO;
    if (rc == MMTB_OK)
        rc = mmtb_file_pread(fd, hb, sizeof hb, 0);
    if (rc == MMTB_OK)
        rc = mmtb_tf_header_decode(hb, sizeof hb, h);
    if (rc != MMTB_OK) {
        msg(detail, dlen, "%s: bad header: %s", name, mmtb_strerror(rc));
        goto fail;
    }
    if (h->fingerprint != tb->v->fingerprint || strcmp(h->name, tb->v->name) != 0) {
        rc = MMTB_ERR_MISMATCH;
        msg(detail, dlen, "%s: a table of variant %s (%016llx), not %s (%016llx)", name, h->name,
            (unsigned long long)h->fingerprint, tb->v->name,
            (unsigned long long)tb->v->fingerprint);
        goto fail;
    }
    if (h->index_scheme != MMTB_INDEX_SCHEME) {
        rc = MMTB_ERR_MISMATCH;
        msg(detail, dlen, "%s: index scheme %u, not %d", name, h->index_scheme,
            MMTB_INDEX_SCHEME);
        goto fail;
    }
    if (!mmtb_sector_eq(h->sector, sec->s)) {
        rc = MMTB_ERR_CORRUPT;
        msg(detail, dlen, "%s: holds another sector", name);
        goto fail;
    }
    rc = index_locked(tb); /* the caller holds the lock */
    if (rc != MMTB_OK) {
        msg(detail, dlen, "cannot build the index: %s", mmtb_strerror(rc));
        goto fail;
    }
    /* no_reclose, and Shah's placement sectors: the slots of the index with
     * restrictions or the first-mill owner (FORMAT.md, "Index scheme 1
     * with restrictions" and "... with the first-mill owner"), whose
     * canonical count has no closed form.  With restrictions the file's
     * count table (FORMAT.md, "Count table") spares the walk over the
     * sector that building the index takes without it. */
    bool bans = mmtb_ban_index_applies(tb->v, sec->s);
    if (h->count_blocks && (!bans || !tb->v->no_reclose)) {
        rc = MMTB_ERR_CORRUPT;
        msg(detail, dlen, "%s: a count table in a sector without restrictions", name);
        goto fail;
    }
    if (bans && !h->count_blocks && !sec->bx) {
        rc = mmtb_ban_index_create(&sec->bx, tb->ix, sec->s);
        if (rc != MMTB_OK) {
            msg(detail, dlen, "cannot build the index with %s: %s",
                tb->v->no_reclose ? "restrictions" : "the first-mill owner", mmtb_strerror(rc));
            goto fail;
        }
    }
    mmtb_tf_layout(h, &sec->l);
    if ((uint64_t)st.st_size != sec->l.file_size) {
        rc = MMTB_ERR_CORRUPT;
        msg(detail, dlen, "%s: %llu bytes, the header says %llu (truncated?)", name,
            (unsigned long long)st.st_size, (unsigned long long)sec->l.file_size);
        goto fail;
    }
    uint64_t msize = mmtb_tf_meta_size(&sec->l);
    meta = malloc(msize ? msize : 1);
    counts = malloc(((uint64_t)h->count_blocks + 1) * sizeof *counts);
    sec->tab[0] = malloc((sec->l.nblocks[0] + 1) * sizeof *sec->tab[0]);
    sec->tab[1] = malloc((sec->l.nblocks[1] + 1) * sizeof *sec->tab[1]);
    if (!meta || !counts || !sec->tab[0] || !sec->tab[1]) {
        rc = MMTB_ERR_NOMEM;
        msg(detail, dlen, "out of memory");
        goto fail;
    }
    rc = mmtb_file_pread(fd, meta, msize, MMTB_TF_HEADER_SIZE);
    if (rc == MMTB_OK)
        rc = mmtb_tf_meta_decode(h, &sec->l, meta, msize, &desc, counts, sec->tab[0],
                                 sec->tab[1]);
    if (rc == MMTB_OK && (h->descriptor_len != tb->v->text_len ||
                          memcmp(desc, tb->v->text, tb->v->text_len) != 0))
        rc = MMTB_ERR_CORRUPT;
    if (rc != MMTB_OK) {
        msg(detail, dlen, "%s: bad block tables: %s", name, mmtb_strerror(rc));
        goto fail;
    }
    if (h->count_blocks && !sec->bx) {
        rc = mmtb_ban_index_open(&sec->bx, tb->ix, sec->s, h->count_block_log2, counts,
                                 h->count_blocks);
        if (rc != MMTB_OK) {
            msg(detail, dlen, "%s: the count table does not fit the sector: %s", name,
                mmtb_strerror(rc));
            goto fail;
        }
    }
    if (sec->bx ? h->slots != mmtb_ban_index_slots(sec->bx) || h->canonical > h->slots
                : h->slots != mmtb_index_slots(tb->ix, sec->s) ||
                      h->canonical != mmtb_index_canonical(tb->v, sec->s)) {
        rc = MMTB_ERR_CORRUPT;
        msg(detail, dlen, "%s: slot or position counts differ from the index", name);
        goto fail;
    }
    rc = mmtb_file_pread(fd, fb, sizeof fb, sec->l.footer_off);
    if (rc == MMTB_OK)
        rc = mmtb_tf_footer_decode(fb, sizeof fb, h, &sec->footer);
    if (rc != MMTB_OK) {
        msg(detail, dlen, "%s: bad footer: %s", name, mmtb_strerror(rc));
        goto fail;
    }
    int k = mmtb_manifest_find_file(&tb->m, sec->s);
    if (k >= 0 && (tb->m.files[k].size != sec->l.file_size ||
                   tb->m.files[k].file_hash != sec->footer.file_hash)) {
        rc = MMTB_ERR_CORRUPT;
        msg(detail, dlen, "%s: not the file the manifest records", name);
        goto fail;
    }
    sec->max_dtc = (uint32_t)(h->max_win > h->max_loss ? h->max_win : h->max_loss);
    if (h->max_win < 0 && h->max_loss < 0)
        sec->max_dtc = 0;
    fd_adopt(tb, sec, fd);
    if (tb->flags & MMTB_OPEN_VERIFY) {
        struct mmtb_verify_result res = {0};
        rc = tb_verify_whole(tb, (int)(sec - tb->sec), NULL, &res, detail, dlen);
        if (rc != MMTB_OK) {
            /* the file is the list's now: closed there, not by fail */
            pthread_mutex_lock(&tb->fd_lock);
            if (sec->fd >= 0)
                fd_close(tb, sec);
            pthread_mutex_unlock(&tb->fd_lock);
            fd = -1;
            goto fail;
        }
    }
    free(meta);
    free(counts);
    return MMTB_OK;

fail:
    free(meta);
    free(counts);
    free(sec->tab[0]);
    free(sec->tab[1]);
    sec->tab[0] = sec->tab[1] = NULL;
    if (fd >= 0)
        close(fd);
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
        /* sec->detail is only written under the lock; copy it there. */
        pthread_mutex_lock((pthread_mutex_t *)&tb->lock);
        snprintf(info->detail, sizeof info->detail, "%s", sec->detail);
        pthread_mutex_unlock((pthread_mutex_t *)&tb->lock);
        return MMTB_OK;
    }
    header_stats(&sec->h, &info->stats);
    info->file_bytes = sec->l.file_size;
    info->wdl_bytes = sec->h.wdl_data_bytes;
    info->dtc_bytes = sec->h.dtc_data_bytes;
    info->dtc_width = sec->h.dtc_width;
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

int mmtb_tb_verify_sector(const mmtb_tb *tb, struct mmtb_sector s, char *err, size_t errlen)
{
    if (err && errlen)
        err[0] = 0;
    if (!tb)
        return MMTB_ERR_INVALID;
    int i = tb_find(tb, s);
    if (i < 0) {
        msg(err, errlen, "sector %u-%u-%u-%u is not in the game", s.w, s.b, s.w_hand, s.b_hand);
        return i;
    }
    const struct tb_sector *sec;
    int rc = tb_sector_ready(tb, i, &sec);
    if (rc != MMTB_OK) {
        pthread_mutex_lock((pthread_mutex_t *)&tb->lock);
        msg(err, errlen, "%s", sec->detail);
        pthread_mutex_unlock((pthread_mutex_t *)&tb->lock);
        return rc;
    }
    struct mmtb_verify_result res = {0};
    return tb_verify_whole(tb, i, NULL, &res, err, errlen);
}

void tb_sector_detail(const mmtb_tb *tb, int i, char *buf, size_t len)
{
    pthread_mutex_lock((pthread_mutex_t *)&tb->lock);
    snprintf(buf, len, "%s", tb->sec[i].detail);
    pthread_mutex_unlock((pthread_mutex_t *)&tb->lock);
}
