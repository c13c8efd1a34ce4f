/*
 * tbcache.c - per-thread probing contexts: a zstd decompression context, a
 * bounded LRU cache of decompressed blocks (hash table plus doubly linked
 * list), and the bulk read mmtb_tb_read.  A context is never shared, so
 * nothing here locks; the shared handle is only read.
 */
#include "tbinternal.h"

#include <stdlib.h>
#include <string.h>

/* A cached block.  key = sector position << 42 | plane << 41 | block
 * (positions < 2^20, blocks < 2^30). */
struct centry {
    uint64_t key;
    uint8_t *data;
    size_t size;
    struct centry *prev, *next; /* LRU list, most recent first */
    struct centry *hnext;       /* hash chain */
};

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
};

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
    free(e);
}

/* Read, check and decompress one block; on success it becomes the most
 * recent cache entry.  Entries are evicted first until the new one fits
 * the budget (at least one block is always kept: the new one). */
static int load_block(mmtb_ctx *ctx, uint64_t key, const struct tb_sector *sec, int plane,
                      uint64_t b, struct centry **out)
{
    const struct mmtb_tf_block *t = &sec->tab[plane][b];
    size_t n = mmtb_tf_block_raw_size(&sec->h, &sec->l, plane, b);
    uint64_t ns = mmtb_tf_block_nslots(&sec->h, &sec->l, plane, b);
    if (t->csize > ctx->ccap) {
        uint8_t *p = realloc(ctx->cbuf, t->csize);
        if (!p)
            return MMTB_ERR_NOMEM;
        ctx->cbuf = p;
        ctx->ccap = t->csize;
    }
    while (ctx->lru.next != &ctx->lru && ctx->used + n > ctx->budget)
        evict_one(ctx);
    struct centry *e = calloc(1, sizeof *e);
    uint8_t *data = malloc(n ? n : 1);
    if (!e || !data) {
        free(e);
        free(data);
        return MMTB_ERR_NOMEM;
    }
    int rc = tb_pread(sec->fd, ctx->cbuf, t->csize, t->offset);
    if (rc == MMTB_OK)
        rc = mmtb_tf_block_decompress(ctx->dctx, ctx->cbuf, t, data, n);
    if (rc == MMTB_OK)
        rc = plane == MMTB_TF_WDL ? mmtb_tf_check_wdl(data, ns)
                                  : mmtb_tf_check_dtc(data, ns, sec->h.dtc_width, sec->max_dtc);
    if (rc != MMTB_OK) {
        free(e);
        free(data);
        return rc;
    }
    e->key = key;
    e->data = data;
    e->size = n;
    size_t h = bucket_of(ctx, key);
    e->hnext = ctx->buckets[h];
    ctx->buckets[h] = e;
    lru_push_front(ctx, e);
    ctx->used += n;
    *out = e;
    return MMTB_OK;
}

int ctx_block(mmtb_ctx *ctx, int si, const struct tb_sector *sec, int plane, uint64_t b,
              const uint8_t **raw)
{
    uint64_t key = (uint64_t)si << 42 | (uint64_t)plane << 41 | b;
    struct centry *e = ctx->buckets[bucket_of(ctx, key)];
    while (e && e->key != key)
        e = e->hnext;
    if (e) {
        if (ctx->lru.next != e) {
            lru_unlink(e);
            lru_push_front(ctx, e);
        }
    } else {
        int rc = load_block(ctx, key, sec, plane, b, &e);
        if (rc != MMTB_OK)
            return rc;
    }
    *raw = e->data;
    return MMTB_OK;
}

int ctx_slot(mmtb_ctx *ctx, int si, const struct tb_sector *sec, uint64_t slot, bool want_dtc,
             unsigned *code, unsigned *dtc)
{
    const uint8_t *raw;
    if (slot >= sec->h.slots)
        return MMTB_ERR_CORRUPT;
    int rc = ctx_block(ctx, si, sec, MMTB_TF_WDL, slot >> sec->h.wdl_block_log2, &raw);
    if (rc != MMTB_OK)
        return rc;
    *code = mmtb_tf_wdl_get(raw, slot & (sec->l.block_slots[0] - 1));
    *dtc = 0;
    if (!want_dtc || sec->h.dtc_width == 0)
        return MMTB_OK;
    rc = ctx_block(ctx, si, sec, MMTB_TF_DTC, slot >> sec->h.dtc_block_log2, &raw);
    if (rc != MMTB_OK)
        return rc;
    *dtc = mmtb_tf_dtc_get(raw, slot & (sec->l.block_slots[1] - 1), sec->h.dtc_width);
    return MMTB_OK;
}

/* Copy slots [first, first + count) out of the blocks of one plane. */
static int read_plane(mmtb_ctx *ctx, int si, const struct tb_sector *sec, int plane,
                      uint64_t first, uint64_t count, uint8_t *wdl, uint16_t *dtc)
{
    int log2 = plane == MMTB_TF_WDL ? sec->h.wdl_block_log2 : sec->h.dtc_block_log2;
    uint64_t bs = sec->l.block_slots[plane];
    uint64_t i = 0;
    while (i < count) {
        uint64_t slot = first + i, b = slot >> log2, j = slot & (bs - 1);
        uint64_t n = bs - j < count - i ? bs - j : count - i;
        const uint8_t *raw;
        int rc = ctx_block(ctx, si, sec, plane, b, &raw);
        if (rc != MMTB_OK)
            return rc;
        if (plane == MMTB_TF_WDL)
            for (uint64_t k = 0; k < n; k++)
                wdl[i + k] = (uint8_t)mmtb_tf_wdl_get(raw, j + k);
        else if (sec->h.dtc_width == 1)
            for (uint64_t k = 0; k < n; k++)
                dtc[i + k] = raw[j + k];
        else
            for (uint64_t k = 0; k < n; k++)
                dtc[i + k] = (uint16_t)mmtb_tf_dtc_get(raw, j + k, 2);
        i += n;
    }
    return MMTB_OK;
}

int mmtb_tb_read(mmtb_ctx *ctx, struct mmtb_sector s, uint64_t first, uint64_t count,
                 uint8_t *wdl, uint16_t *dtc)
{
    if (!ctx || (count && !wdl))
        return MMTB_ERR_INVALID;
    int si = tb_find(ctx->tb, s);
    if (si < 0)
        return si;
    const struct tb_sector *sec;
    int rc = tb_sector_ready(ctx->tb, si, &sec);
    if (rc != MMTB_OK)
        return rc;
    if (first > sec->h.slots || count > sec->h.slots - first)
        return MMTB_ERR_INVALID;
    rc = read_plane(ctx, si, sec, MMTB_TF_WDL, first, count, wdl, NULL);
    if (rc != MMTB_OK || !dtc)
        return rc;
    if (sec->h.dtc_width == 0) {
        memset(dtc, 0, count * sizeof *dtc);
        return MMTB_OK;
    }
    return read_plane(ctx, si, sec, MMTB_TF_DTC, first, count, NULL, dtc);
}
