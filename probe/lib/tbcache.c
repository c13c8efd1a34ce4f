/*
 * tbcache.c - per-thread probing contexts: a zstd decompression context, a
 * bounded LRU cache of decompressed blocks (hash table plus doubly linked
 * list), and the bulk read mmtb_tb_read.  A context is never shared, so
 * nothing here locks; the shared handle is only read.
 */
#include "mmtb_integrity.h"
#include "tbinternal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A cached block.  key = sector position << 42 | plane << 41 | block
 * (positions < 2^20, blocks < 2^31). */
struct centry {
    uint64_t key;
    uint8_t *data;
    uint32_t *cum; /* W/D/L blocks: slots with a depth entry (decided, or in a packed
                    * sector the losses) before slot 256 c, c = 0..chunks */
    size_t size;   /* bytes charged to the budget */
    struct centry *prev, *next; /* LRU list, most recent first */
    struct centry *hnext;       /* hash chain */
};

/* Slots per prefix-count chunk of a cached W/D/L block; DTW blocks (at
 * least 2^10 slots) start on chunk boundaries. */
#define CHUNK 256

struct mmtb_ctx {
    const mmtb_tb *tb;
    ZSTD_DCtx *dctx;
    size_t budget, used;
    struct centry **buckets;
    size_t nbuckets; /* a power of two */
    struct centry lru; /* sentinel: lru.next is the most recent */
    uint8_t *cbuf;     /* compressed bytes of the block being read */
    size_t ccap;
    struct mmtb_move_value *scratch; /* MMTB_MAX_MOVES entries, for probe_moves */
    char error[256];                 /* where the last table error happened */
};

void ctx_set_error(mmtb_ctx *ctx, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(ctx->error, sizeof ctx->error, fmt, ap);
    va_end(ap);
}

const char *mmtb_ctx_error(const mmtb_ctx *ctx)
{
    return ctx ? ctx->error : "";
}

/* Name the damaged block of a failed read in the context's error. */
static void block_error(mmtb_ctx *ctx, const struct tb_sector *sec, int plane, uint64_t b,
                        const char *why)
{
    char name[48];
    const struct mmtb_tf_block *t = &sec->tab[plane][b];
    mmtb_tf_sector_filename(sec->s, name, sizeof name);
    ctx_set_error(ctx, "%s: %s block %llu of %llu (%u bytes at offset %llu) %s", name,
                  plane == MMTB_TF_WDL ? "W/D/L" : "DTW", (unsigned long long)b,
                  (unsigned long long)sec->l.nblocks[plane], t->csize,
                  (unsigned long long)t->offset, why);
}

const mmtb_tb *ctx_tb(const mmtb_ctx *ctx)
{
    return ctx->tb;
}

struct mmtb_move_value *ctx_scratch(mmtb_ctx *ctx)
{
    return ctx->scratch;
}

/* Fibonacci hashing of the key into the bucket array. */
static size_t bucket_of(const mmtb_ctx *ctx, uint64_t key)
{
    return (size_t)((key * 0x9E3779B97F4A7C15ULL) >> 20) & (ctx->nbuckets - 1);
}

int mmtb_ctx_create(mmtb_ctx **out, const mmtb_tb *tb, size_t cache_bytes)
{
    if (!out || !tb)
        return MMTB_ERR_INVALID;
    *out = NULL;
    mmtb_ctx *ctx = calloc(1, sizeof *ctx);
    if (!ctx)
        return MMTB_ERR_NOMEM;
    ctx->tb = tb;
    ctx->budget = cache_bytes ? cache_bytes : tb->cache_bytes;
    /* About two buckets per 64 KiB block the budget holds. */
    size_t want = ctx->budget / 32768 + 16;
    ctx->nbuckets = 16;
    while (ctx->nbuckets < want && ctx->nbuckets < ((size_t)1 << 24))
        ctx->nbuckets *= 2;
    ctx->buckets = calloc(ctx->nbuckets, sizeof *ctx->buckets);
    ctx->dctx = ZSTD_createDCtx();
    ctx->scratch = malloc(MMTB_MAX_MOVES * sizeof *ctx->scratch);
    ctx->lru.next = ctx->lru.prev = &ctx->lru;
    if (!ctx->buckets || !ctx->dctx || !ctx->scratch) {
        mmtb_ctx_free(ctx);
        return MMTB_ERR_NOMEM;
    }
    *out = ctx;
    return MMTB_OK;
}

void mmtb_ctx_free(mmtb_ctx *ctx)
{
    if (!ctx)
        return;
    if (ctx->lru.next) {
        struct centry *e = ctx->lru.next;
        while (e != &ctx->lru) {
            struct centry *n = e->next;
            free(e->data);
            free(e->cum);
            free(e);
            e = n;
        }
    }
    free(ctx->buckets);
    ZSTD_freeDCtx(ctx->dctx);
    free(ctx->cbuf);
    free(ctx->scratch);
    free(ctx);
}

static void lru_unlink(struct centry *e)
{
    e->prev->next = e->next;
    e->next->prev = e->prev;
}

static void lru_push_front(mmtb_ctx *ctx, struct centry *e)
{
    e->next = ctx->lru.next;
    e->prev = &ctx->lru;
    ctx->lru.next->prev = e;
    ctx->lru.next = e;
}

void mmtb_ctx_cache_usage(const mmtb_ctx *ctx, size_t *bytes, size_t *blocks)
{
    size_t n = 0;
    for (const struct centry *e = ctx->lru.next; e != &ctx->lru; e = e->next)
        n++;
    if (bytes)
        *bytes = ctx->used;
    if (blocks)
        *blocks = n;
}

/* Remove the least recently used entry from list, hash table and budget. */
static void evict_one(mmtb_ctx *ctx)
{
    struct centry *e = ctx->lru.prev;
    struct centry **pp = &ctx->buckets[bucket_of(ctx, e->key)];
    while (*pp != e)
        pp = &(*pp)->hnext;
    *pp = e->hnext;
    lru_unlink(e);
    ctx->used -= e->size;
    free(e->data);
    free(e->cum);
    free(e);
}

/* The cached entry of key, or NULL. */
static struct centry *cache_find(const mmtb_ctx *ctx, uint64_t key)
{
    struct centry *e = ctx->buckets[bucket_of(ctx, key)];
    while (e && e->key != key)
        e = e->hnext;
    return e;
}

static uint64_t block_key(int si, int plane, uint64_t b)
{
    return (uint64_t)si << 42 | (uint64_t)plane << 41 | b;
}

/* Read, check and decompress one block; on success it becomes the most
 * recent cache entry.  Entries are evicted first until the new one fits
 * the budget (at least one block is always kept: the new one).  DTW blocks
 * must already have been checked against their W/D/L block (raw size =
 * width x decided slots). */
static int load_block(mmtb_ctx *ctx, uint64_t key, int si, const struct tb_sector *sec,
                      int plane, uint64_t b, struct centry **out)
{
    const struct mmtb_tf_block *t = &sec->tab[plane][b];
    size_t n = t->raw_size;
    uint64_t ns = mmtb_tf_block_nslots(&sec->h, &sec->l, plane, b);
    size_t chunks = plane == MMTB_TF_WDL ? (size_t)((ns + CHUNK - 1) / CHUNK) : 0;
    size_t charge = n + (plane == MMTB_TF_WDL ? (chunks + 1) * sizeof(uint32_t) : 0);
    if (t->csize > ctx->ccap) {
        uint8_t *p = realloc(ctx->cbuf, t->csize);
        if (!p)
            return MMTB_ERR_NOMEM;
        ctx->cbuf = p;
        ctx->ccap = t->csize;
    }
    while (ctx->lru.next != &ctx->lru && ctx->used + charge > ctx->budget)
        evict_one(ctx);
    struct centry *e = calloc(1, sizeof *e);
    uint8_t *data = malloc(n ? n : 1);
    uint32_t *cum = plane == MMTB_TF_WDL ? malloc((chunks + 1) * sizeof *cum) : NULL;
    if (!e || !data || (plane == MMTB_TF_WDL && !cum)) {
        free(e);
        free(data);
        free(cum);
        return MMTB_ERR_NOMEM;
    }
    int rc = MMTB_OK;
    char why[160] = ""; /* why the file could not be opened again */
    if (t->csize)
        rc = tb_file_read(ctx->tb, si, ctx->cbuf, t->csize, t->offset, why, sizeof why);
    if (rc == MMTB_OK)
        rc = mmtb_tf_block_decompress(ctx->dctx, ctx->cbuf, t, data);
    if (rc == MMTB_OK)
        rc = plane == MMTB_TF_WDL
                 ? mmtb_tf_check_wdl(data, ns)
                 : mmtb_tf_check_dtw(data, n / sec->h.dtw_width, sec->h.dtw_width, sec->max_dtw);
    if (rc != MMTB_OK) {
        if (why[0])
            ctx_set_error(ctx, "%s", why);
        else
            block_error(ctx, sec, plane, b, rc == MMTB_ERR_IO ? "cannot be read" : "is damaged");
        free(e);
        free(data);
        free(cum);
        return rc;
    }
    /* cum[c] = slots with a depth entry in [0, min(CHUNK c, ns)) of the block. */
    if (cum) {
        cum[0] = 0;
        for (size_t c = 0; c < chunks; c++) {
            uint64_t hi = (c + 1) * CHUNK < ns ? (c + 1) * CHUNK : ns;
            cum[c + 1] = cum[c] + (uint32_t)mmtb_tf_count_depths(sec->h.value_encoding, data,
                                                                  c * CHUNK, hi);
        }
    }
    e->key = key;
    e->data = data;
    e->cum = cum;
    e->size = charge;
    size_t h = bucket_of(ctx, key);
    e->hnext = ctx->buckets[h];
    ctx->buckets[h] = e;
    lru_push_front(ctx, e);
    ctx->used += charge;
    *out = e;
    return MMTB_OK;
}

/* The cache entry of a block, loaded if needed (see ctx_block). */
static int get_entry(mmtb_ctx *ctx, int si, const struct tb_sector *sec, int plane, uint64_t b,
                     struct centry **out)
{
    uint64_t key = block_key(si, plane, b);
    struct centry *e = cache_find(ctx, key);
    if (e) {
        if (ctx->lru.next != e) {
            lru_unlink(e);
            lru_push_front(ctx, e);
        }
    } else {
        int rc = load_block(ctx, key, si, sec, plane, b, &e);
        if (rc != MMTB_OK)
            return rc;
    }
    *out = e;
    return MMTB_OK;
}

int ctx_block(mmtb_ctx *ctx, int si, const struct tb_sector *sec, int plane, uint64_t b,
              const uint8_t **raw)
{
    struct centry *e;
    int rc = get_entry(ctx, si, sec, plane, b, &e);
    if (rc == MMTB_OK)
        *raw = e->data;
    return rc;
}

/* Slots with a depth entry in [from, to) of a cached W/D/L block of sector
 * sec: whole chunks from its prefix counts, the partial chunk at the end by
 * counting. */
static uint64_t entries_before(const struct tb_sector *sec, const struct centry *w,
                               uint64_t from, uint64_t to)
{
    uint64_t cf = from / CHUNK, ct = to / CHUNK; /* from is a chunk start */
    return w->cum[ct] - w->cum[cf] +
           mmtb_tf_count_depths(sec->h.value_encoding, w->data, ct * CHUNK, to);
}

/*
 * Where the depths of DTW block d are, seen from the cached W/D/L block w
 * that contains it (DTW blocks nest in W/D/L blocks and start on chunk
 * boundaries): *a is the block's first slot relative to w.  Before the DTW
 * block is first loaded, its stored size must be width x its slots with an
 * entry (decided, or in a packed sector lost).
 */
static int dtw_locate(mmtb_ctx *ctx, int si, const struct tb_sector *sec, uint64_t d,
                      const struct centry *w, uint64_t *a)
{
    uint64_t first = d << sec->h.dtw_block_log2;
    *a = first & (sec->l.block_slots[0] - 1);
    if (cache_find(ctx, block_key(si, MMTB_TF_DTW, d)))
        return MMTB_OK;
    uint64_t n = mmtb_tf_block_nslots(&sec->h, &sec->l, MMTB_TF_DTW, d);
    uint64_t entries = entries_before(sec, w, *a, *a + n);
    if (entries * sec->h.dtw_width == sec->tab[1][d].raw_size)
        return MMTB_OK;
    block_error(ctx, sec, MMTB_TF_DTW, d,
                sec->h.value_encoding == MMTB_TF_VALUE_LOSSES
                    ? "does not hold a depth for each lost slot"
                    : "does not hold a depth for each decided slot");
    return MMTB_ERR_CORRUPT;
}

int ctx_slot(mmtb_ctx *ctx, int si, const struct tb_sector *sec, uint64_t slot, bool want_dtw,
             unsigned *code, unsigned *dtw)
{
    struct centry *w;
    const uint8_t *raw;
    if (slot >= sec->h.slots)
        return MMTB_ERR_CORRUPT;
    int rc = get_entry(ctx, si, sec, MMTB_TF_WDL, slot >> sec->h.wdl_block_log2, &w);
    if (rc != MMTB_OK)
        return rc;
    uint64_t j = slot & (sec->l.block_slots[0] - 1);
    *code = mmtb_tf_wdl_get(w->data, j);
    *dtw = 0;
    if (!want_dtw || *code == MMTB_TF_DRAW)
        return MMTB_OK;
    if (!mmtb_tf_has_depth(sec->h.value_encoding, *code)) {
        *dtw = CTX_DTW_SEARCH; /* a win of a packed sector */
        return MMTB_OK;
    }
    if (sec->h.dtw_width == 0)
        return MMTB_OK;
    /* The depth is entry k of the DTW block: k = slots with an entry
     * before this one in the DTW block, counted in the W/D/L block. */
    uint64_t d = slot >> sec->h.dtw_block_log2, a;
    rc = dtw_locate(ctx, si, sec, d, w, &a);
    if (rc != MMTB_OK)
        return rc;
    uint64_t k = entries_before(sec, w, a, j);
    if ((k + 1) * sec->h.dtw_width > sec->tab[1][d].raw_size) {
        block_error(ctx, sec, MMTB_TF_DTW, d, "has too few depths");
        return MMTB_ERR_CORRUPT;
    }
    rc = ctx_block(ctx, si, sec, MMTB_TF_DTW, d, &raw); /* may evict w */
    if (rc != MMTB_OK)
        return rc;
    *dtw = mmtb_tf_dtw_get(raw, k, sec->h.dtw_width);
    return MMTB_OK;
}

/* Copy the codes of slots [first, first + count) out of the W/D/L blocks. */
static int read_wdl(mmtb_ctx *ctx, int si, const struct tb_sector *sec, uint64_t first,
                    uint64_t count, uint8_t *wdl)
{
    uint64_t bs = sec->l.block_slots[0];
    for (uint64_t i = 0; i < count;) {
        uint64_t slot = first + i, j = slot & (bs - 1);
        uint64_t n = bs - j < count - i ? bs - j : count - i;
        const uint8_t *raw;
        int rc = ctx_block(ctx, si, sec, MMTB_TF_WDL, slot >> sec->h.wdl_block_log2, &raw);
        if (rc != MMTB_OK)
            return rc;
        mmtb_tf_unpack_wdl(raw, j, n, wdl + i);
        i += n;
    }
    return MMTB_OK;
}

/* The depths raw[k .. k + need) (width bytes each) given in order to the
 * need slots of wdl[0..n) that are not draws, 0 to the draws; the caller
 * has checked that the block holds them, and need > 0.  Without a branch
 * per slot: a draw reads the entry the next decided slot takes (past the
 * last decided one, the last entry). */
static void spread_depths(const uint8_t *raw, uint64_t k, uint64_t need, int width,
                          const uint8_t *wdl, uint64_t n, uint16_t *dtw)
{
    const uint64_t last = k + need - 1;
    for (uint64_t q = 0; q < n; q++) {
        unsigned decided = wdl[q] != MMTB_TF_DRAW;
        uint64_t e = k < last ? k : last;
        dtw[q] = (uint16_t)(mmtb_tf_dtw_get(raw, e, width) & -decided);
        k += decided;
    }
}

/* The depths of slots [first, first + count), whose codes wdl[] holds: DTW
 * block by DTW block, the entry of the range's first decided slot is found
 * by counting in the W/D/L block, the rest follow in order. */
static int read_dtw(mmtb_ctx *ctx, int si, const struct tb_sector *sec, uint64_t first,
                    uint64_t count, const uint8_t *wdl, uint16_t *dtw)
{
    uint64_t bs = sec->l.block_slots[1];
    int width = sec->h.dtw_width;
    for (uint64_t i = 0; i < count;) {
        uint64_t slot = first + i, d = slot >> sec->h.dtw_block_log2;
        uint64_t n = bs - (slot & (bs - 1)) < count - i ? bs - (slot & (bs - 1)) : count - i;
        struct centry *w;
        const uint8_t *raw;
        uint64_t a;
        int rc = get_entry(ctx, si, sec, MMTB_TF_WDL, slot >> sec->h.wdl_block_log2, &w);
        if (rc == MMTB_OK)
            rc = dtw_locate(ctx, si, sec, d, w, &a);
        if (rc != MMTB_OK)
            return rc;
        uint64_t k = entries_before(sec, w, a, slot & (sec->l.block_slots[0] - 1));
        uint64_t have = sec->tab[1][d].raw_size / (uint64_t)width;
        rc = ctx_block(ctx, si, sec, MMTB_TF_DTW, d, &raw);
        if (rc != MMTB_OK)
            return rc;
        uint64_t need = 0;
        for (uint64_t q = i; q < i + n; q++)
            need += wdl[q] != MMTB_TF_DRAW;
        if (k + need > have) {
            block_error(ctx, sec, MMTB_TF_DTW, d, "has too few depths");
            return MMTB_ERR_CORRUPT;
        }
        if (need)
            spread_depths(raw, k, need, width, wdl + i, n, dtw + i);
        else
            memset(dtw + i, 0, n * sizeof *dtw);
        i += n;
    }
    return MMTB_OK;
}

int mmtb_tb_read(mmtb_ctx *ctx, struct mmtb_sector s, uint64_t first, uint64_t count,
                 uint8_t *wdl, uint16_t *dtw)
{
    if (!ctx || (count && !wdl))
        return MMTB_ERR_INVALID;
    int si = tb_find(ctx->tb, s);
    if (si < 0)
        return si;
    const struct tb_sector *sec;
    int rc = tb_sector_ready(ctx->tb, si, &sec);
    if (rc != MMTB_OK) {
        tb_sector_detail(ctx->tb, si, ctx->error, sizeof ctx->error);
        return rc;
    }
    if (first > sec->h.slots || count > sec->h.slots - first)
        return MMTB_ERR_INVALID;
    rc = read_wdl(ctx, si, sec, first, count, wdl);
    if (rc != MMTB_OK || !dtw)
        return rc;
    if (sec->h.value_encoding == MMTB_TF_VALUE_LOSSES) {
        char name[48];
        mmtb_tf_sector_filename(sec->s, name, sizeof name);
        ctx_set_error(ctx,
                      "%s is packed (`mmtb-gen pack`: the depths of losses only, a win's "
                      "found by searching its moves); reading its depths in bulk, as the "
                      "solver and `mmtb-gen verify` do, needs the unpacked table",
                      name);
        return MMTB_ERR_UNSUPPORTED;
    }
    if (sec->h.dtw_width == 0) {
        memset(dtw, 0, count * sizeof *dtw);
        return MMTB_OK;
    }
    return read_dtw(ctx, si, sec, first, count, wdl, dtw);
}
