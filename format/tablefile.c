/*
 * tablefile.c - encode and decode the bytes of sector files and MANIFEST
 * texts exactly as format/FORMAT.md specifies them.  Pure functions on
 * memory buffers: no file I/O, no threads, no global state.  Decoders trust
 * nothing: every field is range-checked before it is used.
 */
#include "tablefile.h"
#include "helpers.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Magic numbers (FORMAT.md): the start is PNG-like, catching text-mode
 * transfers; the end magic is its byte reverse. */
static const uint8_t tf_magic[8] = {0x89, 'M', 'M', 'T', 'B', '\r', '\n', 0x1a};
static const uint8_t tf_end_magic[8] = {0x1a, '\n', '\r', 'B', 'T', 'M', 'M', 0x89};

/* ------------------------------------------------------------------------ */
/* Little-endian access                                                      */
/* ------------------------------------------------------------------------ */

static uint16_t get16(const uint8_t *p)
{
    return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t get32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* One load on little-endian hosts (the compiler folds the memcpy). */
static uint64_t get64(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    v = __builtin_bswap64(v);
#endif
    return v;
}

static void put16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}

static void put32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static void put64(uint8_t *p, uint64_t v)
{
    put32(p, (uint32_t)v);
    put32(p + 4, (uint32_t)(v >> 32));
}

static bool all_zero(const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (p[i])
            return false;
    return true;
}

/* ------------------------------------------------------------------------ */
/* XXH64, written from the algorithm's description (xxhash_spec.md):         */
/* four 64-bit lanes over 32-byte stripes, then the tail in 8/4/1-byte       */
/* steps, then an avalanche.                                                 */
/* ------------------------------------------------------------------------ */

#define XXP1 0x9E3779B185EBCA87ULL
#define XXP2 0xC2B2AE3D27D4EB4FULL
#define XXP3 0x165667B19E3779F9ULL
#define XXP4 0x85EBCA77C2B2AE63ULL
#define XXP5 0x27D4EB2F165667C5ULL

static uint64_t rotl64(uint64_t x, int r)
{
    return (x << r) | (x >> (64 - r));
}

/* round(acc, lane) = rotl(acc + lane * P2, 31) * P1 */
static uint64_t xx_round(uint64_t acc, uint64_t lane)
{
    acc += lane * XXP2;
    acc = rotl64(acc, 31);
    return acc * XXP1;
}

/* merge(acc, v) = (acc ^ round(0, v)) * P1 + P4 */
static uint64_t xx_merge(uint64_t acc, uint64_t v)
{
    acc ^= xx_round(0, v);
    return acc * XXP1 + XXP4;
}

/* The tail (fewer than 32 bytes) and the final avalanche. */
static uint64_t xx_finish(uint64_t acc, const uint8_t *p, size_t n)
{
    while (n >= 8) {
        acc ^= xx_round(0, get64(p));
        acc = rotl64(acc, 27) * XXP1 + XXP4;
        p += 8;
        n -= 8;
    }
    if (n >= 4) {
        acc ^= (uint64_t)get32(p) * XXP1;
        acc = rotl64(acc, 23) * XXP2 + XXP3;
        p += 4;
        n -= 4;
    }
    while (n > 0) {
        acc ^= (uint64_t)*p * XXP5;
        acc = rotl64(acc, 11) * XXP1;
        p++;
        n--;
    }
    acc ^= acc >> 33;
    acc *= XXP2;
    acc ^= acc >> 29;
    acc *= XXP3;
    acc ^= acc >> 32;
    return acc;
}

void mmtb_xxh64_init(struct mmtb_xxh64_state *st, uint64_t seed)
{
    memset(st, 0, sizeof *st);
    st->seed = seed;
    st->v[0] = seed + XXP1 + XXP2;
    st->v[1] = seed + XXP2;
    st->v[2] = seed;
    st->v[3] = seed - XXP1;
}

/* Consume whole 32-byte stripes, buffering the remainder. */
void mmtb_xxh64_update(struct mmtb_xxh64_state *st, const void *buf, size_t len)
{
    const uint8_t *p = buf;
    if (len == 0)
        return;
    st->total += len;
    if (st->nbuf) {
        size_t take = 32 - st->nbuf < len ? 32 - st->nbuf : len;
        memcpy(st->buf + st->nbuf, p, take);
        st->nbuf += (unsigned)take;
        p += take;
        len -= take;
        if (st->nbuf < 32)
            return;
        for (int i = 0; i < 4; i++)
            st->v[i] = xx_round(st->v[i], get64(st->buf + 8 * i));
        st->nbuf = 0;
    }
    while (len >= 32) {
        for (int i = 0; i < 4; i++)
            st->v[i] = xx_round(st->v[i], get64(p + 8 * i));
        p += 32;
        len -= 32;
    }
    memcpy(st->buf, p, len);
    st->nbuf = (unsigned)len;
}

/* acc = rotl(v1,1) + rotl(v2,7) + rotl(v3,12) + rotl(v4,18), merged with
 * each lane, when at least one stripe was seen; else seed + P5.  Then
 * acc += total length, then the tail. */
uint64_t mmtb_xxh64_digest(const struct mmtb_xxh64_state *st)
{
    uint64_t acc;
    if (st->total >= 32) {
        acc = rotl64(st->v[0], 1) + rotl64(st->v[1], 7) + rotl64(st->v[2], 12) +
              rotl64(st->v[3], 18);
        for (int i = 0; i < 4; i++)
            acc = xx_merge(acc, st->v[i]);
    } else {
        acc = st->seed + XXP5;
    }
    acc += st->total;
    return xx_finish(acc, st->buf, st->nbuf);
}

uint64_t mmtb_xxh64(const void *buf, size_t len, uint64_t seed)
{
    struct mmtb_xxh64_state st;
    mmtb_xxh64_init(&st, seed);
    mmtb_xxh64_update(&st, buf, len);
    return mmtb_xxh64_digest(&st);
}

/* ------------------------------------------------------------------------ */
/* Header                                                                    */
/* ------------------------------------------------------------------------ */

/* Field offsets of the fixed header (FORMAT.md, "Sector header"). */
enum {
    H_MAGIC = 0,
    H_VERSION = 8,
    H_HEADER_SIZE = 10,
    H_FLAGS = 12,
    H_FINGERPRINT = 16,
    H_NAME = 24,
    H_DESC_LEN = 56,
    H_COUNT_BLOCKS = 60,
    H_SECTOR = 64,
    H_SCHEME = 68,
    H_ENCODING = 70,
    H_DTW_WIDTH = 71,
    H_WDL_LOG2 = 72,
    H_DTW_LOG2 = 73,
    H_COUNT_LOG2 = 74,
    H_RESERVED2 = 75,
    H_SLOTS = 80,
    H_CANONICAL = 88,
    H_WINS = 96,
    H_DRAWS = 104,
    H_LOSSES = 112,
    H_MAX_WIN = 120,
    H_MAX_LOSS = 124,
    H_WDL_BYTES = 128,
    H_DTW_BYTES = 136,
    H_META_HASH = 144,
    H_HEADER_HASH = 152,
};

int mmtb_tf_dtw_width(int32_t max_win, int32_t max_loss)
{
    int32_t m = max_win > max_loss ? max_win : max_loss;
    if (m <= 0)
        return 0;
    return m <= 255 ? 1 : 2;
}

int mmtb_tf_header_dtw_width(const struct mmtb_tf_header *h)
{
    return mmtb_tf_dtw_width(h->value_encoding == MMTB_TF_VALUE_LOSSES ? -1 : h->max_win,
                             h->max_loss);
}

void mmtb_tf_header_encode(struct mmtb_tf_header *h, uint8_t out[MMTB_TF_HEADER_SIZE])
{
    memset(out, 0, MMTB_TF_HEADER_SIZE);
    memcpy(out + H_MAGIC, tf_magic, 8);
    put16(out + H_VERSION, h->version);
    put16(out + H_HEADER_SIZE, MMTB_TF_HEADER_SIZE);
    put64(out + H_FINGERPRINT, h->fingerprint);
    memcpy(out + H_NAME, h->name, strnlen(h->name, sizeof h->name - 1));
    put32(out + H_DESC_LEN, h->descriptor_len);
    put32(out + H_COUNT_BLOCKS, h->count_blocks);
    out[H_SECTOR + 0] = h->sector.w;
    out[H_SECTOR + 1] = h->sector.b;
    out[H_SECTOR + 2] = h->sector.w_hand;
    out[H_SECTOR + 3] = h->sector.b_hand;
    put16(out + H_SCHEME, h->index_scheme);
    out[H_ENCODING] = h->value_encoding;
    out[H_DTW_WIDTH] = h->dtw_width;
    out[H_WDL_LOG2] = h->wdl_block_log2;
    out[H_DTW_LOG2] = h->dtw_block_log2;
    out[H_COUNT_LOG2] = h->count_block_log2;
    put64(out + H_SLOTS, h->slots);
    put64(out + H_CANONICAL, h->canonical);
    put64(out + H_WINS, h->wins);
    put64(out + H_DRAWS, h->draws);
    put64(out + H_LOSSES, h->losses);
    put32(out + H_MAX_WIN, (uint32_t)h->max_win);
    put32(out + H_MAX_LOSS, (uint32_t)h->max_loss);
    put64(out + H_WDL_BYTES, h->wdl_data_bytes);
    put64(out + H_DTW_BYTES, h->dtw_data_bytes);
    put64(out + H_META_HASH, h->meta_hash);
    h->header_hash = mmtb_xxh64(out, H_HEADER_HASH, 0);
    put64(out + H_HEADER_HASH, h->header_hash);
}

/* A variant name: 1..31 printable ASCII characters other than space. */
static bool name_ok(const char *s, size_t n)
{
    if (n == 0 || n > 31)
        return false;
    for (size_t i = 0; i < n; i++)
        if (s[i] <= ' ' || s[i] > '~')
            return false;
    return true;
}

/* A depth field: -1 exactly when the count is zero, else min..65535. */
static bool depth_ok(int32_t d, uint64_t count, int32_t min)
{
    if (count == 0)
        return d == -1;
    return d >= min && d <= 65535;
}

int mmtb_tf_header_decode(const uint8_t *b, size_t len, struct mmtb_tf_header *h)
{
    memset(h, 0, sizeof *h);
    if (len < MMTB_TF_HEADER_SIZE || memcmp(b + H_MAGIC, tf_magic, 8) != 0)
        return MMTB_ERR_CORRUPT;
    /* The version comes before the hash: a newer file may place it elsewhere. */
    h->version = get16(b + H_VERSION);
    if (h->version != MMTB_TF_VERSION)
        return MMTB_ERR_UNSUPPORTED;
    if (get16(b + H_HEADER_SIZE) != MMTB_TF_HEADER_SIZE)
        return MMTB_ERR_CORRUPT;
    h->header_hash = get64(b + H_HEADER_HASH);
    if (mmtb_xxh64(b, H_HEADER_HASH, 0) != h->header_hash)
        return MMTB_ERR_CORRUPT;
    if (get32(b + H_FLAGS) != 0 || !all_zero(b + H_RESERVED2, 5))
        return MMTB_ERR_CORRUPT;

    h->fingerprint = get64(b + H_FINGERPRINT);
    const char *nm = (const char *)b + H_NAME;
    size_t nlen = strnlen(nm, 32);
    if (nlen == 32 || !name_ok(nm, nlen) || !all_zero(b + H_NAME + nlen, 32 - nlen))
        return MMTB_ERR_CORRUPT;
    memcpy(h->name, nm, nlen);
    h->name[nlen] = 0;

    h->descriptor_len = get32(b + H_DESC_LEN);
    if (h->descriptor_len == 0 || h->descriptor_len > MMTB_TF_MAX_DESCRIPTOR)
        return MMTB_ERR_CORRUPT;
    h->sector.w = b[H_SECTOR];
    h->sector.b = b[H_SECTOR + 1];
    h->sector.w_hand = b[H_SECTOR + 2];
    h->sector.b_hand = b[H_SECTOR + 3];
    if (h->sector.w + h->sector.b > MMTB_MAX_POINTS || h->sector.w_hand > MMTB_MAX_POINTS ||
        h->sector.b_hand > MMTB_MAX_POINTS)
        return MMTB_ERR_CORRUPT;
    h->index_scheme = get16(b + H_SCHEME);
    if (h->index_scheme == 0)
        return MMTB_ERR_CORRUPT;
    h->value_encoding = b[H_ENCODING];
    if (h->value_encoding != MMTB_TF_VALUE_ENCODING && h->value_encoding != MMTB_TF_VALUE_LOSSES)
        return h->value_encoding == 0 ? MMTB_ERR_CORRUPT : MMTB_ERR_UNSUPPORTED;
    h->dtw_width = b[H_DTW_WIDTH];
    h->wdl_block_log2 = b[H_WDL_LOG2];
    h->dtw_block_log2 = b[H_DTW_LOG2];
    h->count_block_log2 = b[H_COUNT_LOG2];
    h->count_blocks = get32(b + H_COUNT_BLOCKS);
    if (h->wdl_block_log2 < MMTB_TF_MIN_BLOCK_LOG2 || h->wdl_block_log2 > MMTB_TF_MAX_BLOCK_LOG2 ||
        h->dtw_block_log2 < MMTB_TF_MIN_BLOCK_LOG2 || h->dtw_block_log2 > h->wdl_block_log2)
        return MMTB_ERR_CORRUPT;

    h->slots = get64(b + H_SLOTS);
    h->canonical = get64(b + H_CANONICAL);
    h->wins = get64(b + H_WINS);
    h->draws = get64(b + H_DRAWS);
    h->losses = get64(b + H_LOSSES);
    h->max_win = (int32_t)get32(b + H_MAX_WIN);
    h->max_loss = (int32_t)get32(b + H_MAX_LOSS);
    /* Each count is at most 2^40, so the sum cannot overflow. */
    if (h->slots > MMTB_TF_MAX_SLOTS || h->canonical > h->slots || h->wins > h->slots ||
        h->draws > h->slots || h->losses > h->slots ||
        h->wins + h->draws + h->losses != h->canonical)
        return MMTB_ERR_CORRUPT;
    if (!depth_ok(h->max_win, h->wins, 1) || !depth_ok(h->max_loss, h->losses, 0))
        return MMTB_ERR_CORRUPT;
    if (h->dtw_width != mmtb_tf_header_dtw_width(h))
        return MMTB_ERR_CORRUPT;

    h->wdl_data_bytes = get64(b + H_WDL_BYTES);
    h->dtw_data_bytes = get64(b + H_DTW_BYTES);
    h->meta_hash = get64(b + H_META_HASH);
    /* A stored W/D/L block has 1..raw bytes, a DTW block 0..raw bytes, so
     * the planes' data sizes are bounded by their raw sizes. */
    struct mmtb_tf_layout l;
    if (mmtb_tf_layout(h, &l) != MMTB_OK)
        return MMTB_ERR_CORRUPT;
    uint64_t wdl_raw = (h->slots + 3) / 4;
    uint64_t decided = (h->value_encoding == MMTB_TF_VALUE_LOSSES ? 0 : h->wins) + h->losses +
                       (h->slots - h->canonical);
    if (h->wdl_data_bytes < l.nblocks[0] || h->wdl_data_bytes > wdl_raw ||
        h->dtw_data_bytes > decided * h->dtw_width)
        return MMTB_ERR_CORRUPT;
    return MMTB_OK;
}

/* Offsets of everything (FORMAT.md, "File layout"):
 *   header | descriptor, zero-padded to a multiple of 8 | W/D/L table |
 *   DTW table | W/D/L blocks | DTW blocks | footer. */
int mmtb_tf_layout(const struct mmtb_tf_header *h, struct mmtb_tf_layout *l)
{
    memset(l, 0, sizeof *l);
    if (h->slots > MMTB_TF_MAX_SLOTS || h->descriptor_len > MMTB_TF_MAX_DESCRIPTOR ||
        h->wdl_block_log2 < MMTB_TF_MIN_BLOCK_LOG2 || h->wdl_block_log2 > MMTB_TF_MAX_BLOCK_LOG2 ||
        h->dtw_block_log2 < MMTB_TF_MIN_BLOCK_LOG2 || h->dtw_block_log2 > h->wdl_block_log2 ||
        h->dtw_width > 2 || h->wdl_data_bytes > MMTB_TF_MAX_SLOTS ||
        h->dtw_data_bytes > 2 * MMTB_TF_MAX_SLOTS)
        return MMTB_ERR_CORRUPT;
    /* A count table: both fields or neither; its blocks cover at most the
     * slots (the scheme 1 slots it counts are fewer). */
    if ((h->count_block_log2 == 0) != (h->count_blocks == 0) ||
        (h->count_blocks && (h->count_block_log2 < MMTB_TF_MIN_COUNT_LOG2 ||
                             h->count_block_log2 > MMTB_TF_MAX_COUNT_LOG2 ||
                             ((uint64_t)h->count_blocks - 1) << h->count_block_log2 >= h->slots)))
        return MMTB_ERR_CORRUPT;
    l->block_slots[0] = (uint64_t)1 << h->wdl_block_log2;
    l->block_slots[1] = (uint64_t)1 << h->dtw_block_log2;
    l->nblocks[0] = (h->slots + l->block_slots[0] - 1) >> h->wdl_block_log2;
    l->nblocks[1] = h->dtw_width ? (h->slots + l->block_slots[1] - 1) >> h->dtw_block_log2 : 0;
    l->descriptor_off = MMTB_TF_HEADER_SIZE;
    l->count_off = l->descriptor_off + ((h->descriptor_len + 7u) & ~(uint64_t)7);
    l->table_off[0] = l->count_off + 8 * (((uint64_t)h->count_blocks + 1) / 2);
    l->table_off[1] = l->table_off[0] + MMTB_TF_TABLE_ENTRY * l->nblocks[0];
    l->meta_end = l->table_off[1] + MMTB_TF_TABLE_ENTRY * l->nblocks[1];
    l->data_off[0] = l->meta_end;
    l->data_off[1] = l->data_off[0] + h->wdl_data_bytes;
    l->footer_off = l->data_off[1] + h->dtw_data_bytes;
    l->file_size = l->footer_off + MMTB_TF_FOOTER_SIZE;
    return MMTB_OK;
}

uint64_t mmtb_tf_meta_size(const struct mmtb_tf_layout *l)
{
    return l->meta_end - MMTB_TF_HEADER_SIZE;
}

uint64_t mmtb_tf_meta_encode(const struct mmtb_tf_header *h, const struct mmtb_tf_layout *l,
                             const char *descriptor, const uint32_t *counts,
                             const struct mmtb_tf_block *wdl, const struct mmtb_tf_block *dtw,
                             uint8_t *out)
{
    uint64_t size = mmtb_tf_meta_size(l);
    memset(out, 0, size);
    memcpy(out, descriptor, h->descriptor_len);
    for (uint64_t k = 0; k < h->count_blocks; k++)
        put32(out + (l->count_off - MMTB_TF_HEADER_SIZE) + 4 * k, counts[k]);
    for (int pl = 0; pl < 2; pl++) {
        const struct mmtb_tf_block *t = pl ? dtw : wdl;
        uint8_t *p = out + (l->table_off[pl] - MMTB_TF_HEADER_SIZE);
        for (uint64_t i = 0; i < l->nblocks[pl]; i++) {
            uint8_t *e = p + MMTB_TF_TABLE_ENTRY * i;
            put32(e, t[i].csize);
            put32(e + 4, t[i].raw_size);
            put32(e + 8, t[i].hash); /* e + 12: reserved, zero */
        }
    }
    return mmtb_xxh64(out, size, 0);
}

int mmtb_tf_meta_decode(const struct mmtb_tf_header *h, const struct mmtb_tf_layout *l,
                        const uint8_t *buf, size_t len, const char **descriptor,
                        uint32_t *counts, struct mmtb_tf_block *wdl, struct mmtb_tf_block *dtw)
{
    uint64_t size = mmtb_tf_meta_size(l);
    if (len != size || mmtb_xxh64(buf, len, 0) != h->meta_hash)
        return MMTB_ERR_CORRUPT;
    if (memchr(buf, 0, h->descriptor_len) != NULL)
        return MMTB_ERR_CORRUPT;
    uint64_t pad_end = l->count_off - MMTB_TF_HEADER_SIZE;
    if (!all_zero(buf + h->descriptor_len, pad_end - h->descriptor_len))
        return MMTB_ERR_CORRUPT;
    *descriptor = (const char *)buf;
    /* the count table: each block of 2^log2 scheme 1 slots owns at most 255
     * restriction slots per slot; an odd count leaves 4 zero bytes */
    const uint8_t *ct = buf + pad_end;
    for (uint64_t k = 0; k < h->count_blocks; k++) {
        uint32_t c = get32(ct + 4 * k);
        if ((uint64_t)c > (uint64_t)255 << h->count_block_log2)
            return MMTB_ERR_CORRUPT;
        if (counts)
            counts[k] = c;
    }
    if (h->count_blocks % 2 && get32(ct + 4 * (uint64_t)h->count_blocks) != 0)
        return MMTB_ERR_CORRUPT;
    for (int pl = 0; pl < 2; pl++) {
        struct mmtb_tf_block *t = pl ? dtw : wdl;
        const uint8_t *p = buf + (l->table_off[pl] - MMTB_TF_HEADER_SIZE);
        uint64_t off = l->data_off[pl];
        uint64_t end = off + (pl ? h->dtw_data_bytes : h->wdl_data_bytes);
        for (uint64_t i = 0; i < l->nblocks[pl]; i++) {
            const uint8_t *e = p + MMTB_TF_TABLE_ENTRY * i;
            t[i].offset = off;
            t[i].csize = get32(e);
            t[i].raw_size = get32(e + 4);
            t[i].hash = get32(e + 8);
            size_t max = mmtb_tf_block_raw_max(h, l, pl, i);
            /* W/D/L: exactly the derived size; DTW: whole values, any
             * number of them up to every slot; stored: 0 only when empty. */
            if (get32(e + 12) != 0 || t[i].raw_size > max ||
                (pl == MMTB_TF_WDL ? t[i].raw_size != max : t[i].raw_size % h->dtw_width != 0) ||
                t[i].csize > t[i].raw_size || (t[i].csize == 0) != (t[i].raw_size == 0))
                return MMTB_ERR_CORRUPT;
            off += t[i].csize;
            if (off > end)
                return MMTB_ERR_CORRUPT;
        }
        if (off != end)
            return MMTB_ERR_CORRUPT;
    }
    return MMTB_OK;
}

/* ------------------------------------------------------------------------ */
/* Footer                                                                    */
/* ------------------------------------------------------------------------ */

void mmtb_tf_footer_encode(const struct mmtb_tf_footer *f, uint8_t out[MMTB_TF_FOOTER_SIZE])
{
    put64(out, f->file_size);
    put64(out + 8, f->file_hash);
    put64(out + 16, f->header_hash);
    memcpy(out + 24, tf_end_magic, 8);
}

int mmtb_tf_footer_decode(const uint8_t *buf, size_t len, const struct mmtb_tf_header *h,
                          struct mmtb_tf_footer *f)
{
    struct mmtb_tf_layout l;
    if (len != MMTB_TF_FOOTER_SIZE || mmtb_tf_layout(h, &l) != MMTB_OK)
        return MMTB_ERR_CORRUPT;
    f->file_size = get64(buf);
    f->file_hash = get64(buf + 8);
    f->header_hash = get64(buf + 16);
    if (memcmp(buf + 24, tf_end_magic, 8) != 0 || f->file_size != l.file_size ||
        f->header_hash != h->header_hash)
        return MMTB_ERR_CORRUPT;
    return MMTB_OK;
}

/* ------------------------------------------------------------------------ */
/* Value planes                                                              */
/* ------------------------------------------------------------------------ */

uint64_t mmtb_tf_block_nslots(const struct mmtb_tf_header *h, const struct mmtb_tf_layout *l,
                              int plane, uint64_t b)
{
    uint64_t first = b * l->block_slots[plane];
    if (b >= l->nblocks[plane])
        return 0;
    return h->slots - first < l->block_slots[plane] ? h->slots - first : l->block_slots[plane];
}

size_t mmtb_tf_block_raw_max(const struct mmtb_tf_header *h, const struct mmtb_tf_layout *l,
                             int plane, uint64_t b)
{
    uint64_t n = mmtb_tf_block_nslots(h, l, plane, b);
    return plane == MMTB_TF_WDL ? (size_t)((n + 3) / 4) : (size_t)(n * h->dtw_width);
}

/* A slot's code as stored: its low two bits, an unused slot as a draw. */
static inline uint8_t stored_code(uint8_t c)
{
    c &= 3u;
    return (uint8_t)(c == MMTB_TF_UNUSED ? MMTB_TF_DRAW : c);
}

void mmtb_tf_pack_wdl(const uint8_t *restrict wdl, size_t n, uint8_t *restrict raw)
{
    /* whole bytes four slots at a time (a loop the compiler vectorises),
     * then the last byte's slots */
    size_t nb = n / 4;
    for (size_t q = 0; q < nb; q++)
        raw[q] = (uint8_t)(stored_code(wdl[4 * q]) | stored_code(wdl[4 * q + 1]) << 2 |
                           stored_code(wdl[4 * q + 2]) << 4 | stored_code(wdl[4 * q + 3]) << 6);
    if (n & 3) {
        raw[nb] = 0;
        for (size_t j = 4 * nb; j < n; j++)
            raw[nb] |= (uint8_t)(stored_code(wdl[j]) << (2 * (j & 3)));
    }
}

void mmtb_tf_unpack_wdl(const uint8_t *restrict raw, uint64_t j, uint64_t n,
                        uint8_t *restrict out)
{
    /* the slots before the first whole byte one at a time, the whole bytes
     * four slots at once (a loop the compiler vectorises), then the rest */
    uint64_t k = 0;
    for (; k < n && ((j + k) & 3); k++)
        out[k] = (uint8_t)mmtb_tf_wdl_get(raw, j + k);
    const uint8_t *b = raw + ((j + k) >> 2);
    uint64_t nb = (n - k) >> 2;
    uint8_t *o = out + k;
    for (uint64_t q = 0; q < nb; q++) {
        uint8_t x = b[q];
        o[4 * q] = x & 3u;
        o[4 * q + 1] = (x >> 2) & 3u;
        o[4 * q + 2] = (x >> 4) & 3u;
        o[4 * q + 3] = x >> 6;
    }
    for (k += 4 * nb; k < n; k++)
        out[k] = (uint8_t)mmtb_tf_wdl_get(raw, j + k);
}

size_t mmtb_tf_pack_dtw(int enc, const uint8_t *wdl, const uint16_t *dtw, size_t n, int width,
                        uint8_t *raw)
{
    size_t k = 0;
    for (size_t j = 0; j < n; j++) {
        if (!mmtb_tf_has_depth(enc, wdl[j]))
            continue;
        raw[k++] = (uint8_t)dtw[j];
        if (width == 2)
            raw[k++] = (uint8_t)(dtw[j] >> 8);
    }
    return k;
}

/* Number of set bits of y, whose bits are all at even positions (one per
 * 2-bit field): add neighbouring fields into 4-bit, then 8-bit sums, then
 * all bytes into the top one.  Portable and branch-free (no popcnt). */
static uint64_t count_pairs(uint64_t y)
{
    y = (y & 0x3333333333333333ULL) + ((y >> 2) & 0x3333333333333333ULL);
    y = (y + (y >> 4)) & 0x0F0F0F0F0F0F0F0FULL;
    return (y * 0x0101010101010101ULL) >> 56;
}

/* The slots of [from, to) of a raw W/D/L block that are decided (code
 * loss or win), or with `wins` only those that are won.  With draw = 01,
 * x ^ 0x55.. turns every draw into 00 and leaves the other (valid) codes
 * non-zero, so the decided slots of a word are the fields set in
 * (y | y >> 1) & 0x55..; a win (10) is a field whose high bit is set and
 * low bit clear, (x >> 1) & ~x & 0x55...  The ends are counted slot by
 * slot. */
enum count_kind { COUNT_DECIDED, COUNT_WINS, COUNT_LOSSES };

static bool counts_code(enum count_kind k, unsigned c)
{
    return k == COUNT_WINS ? c == MMTB_TF_WIN : k == COUNT_LOSSES ? c == MMTB_TF_LOSS
                                                                 : c != MMTB_TF_DRAW;
}

/* A loss (00) is a field with neither bit set: ~(x | x >> 1) & 0x55... */
static uint64_t count_slots(const uint8_t *raw, uint64_t from, uint64_t to, enum count_kind k)
{
    uint64_t count = 0;
    while (from < to && (from & 31) != 0)
        count += counts_code(k, mmtb_tf_wdl_get(raw, from++));
    while (to - from >= 32) {
        uint64_t x = get64(raw + (from >> 2)), y = x ^ 0x5555555555555555ULL;
        uint64_t f = k == COUNT_WINS ? x >> 1 & ~x : k == COUNT_LOSSES ? ~(x | x >> 1) : y | y >> 1;
        count += count_pairs(f & 0x5555555555555555ULL);
        from += 32;
    }
    while (from < to)
        count += counts_code(k, mmtb_tf_wdl_get(raw, from++));
    return count;
}

uint64_t mmtb_tf_count_decided(const uint8_t *raw, uint64_t from, uint64_t to)
{
    return count_slots(raw, from, to, COUNT_DECIDED);
}

uint64_t mmtb_tf_count_wins(const uint8_t *raw, uint64_t from, uint64_t to)
{
    return count_slots(raw, from, to, COUNT_WINS);
}

uint64_t mmtb_tf_count_losses(const uint8_t *raw, uint64_t from, uint64_t to)
{
    return count_slots(raw, from, to, COUNT_LOSSES);
}

uint64_t mmtb_tf_count_depths(int enc, const uint8_t *raw, uint64_t from, uint64_t to)
{
    return count_slots(raw, from, to, enc == MMTB_TF_VALUE_LOSSES ? COUNT_LOSSES : COUNT_DECIDED);
}

/* A word holds code 3 somewhere when some pair of bits is 11:
 * (x & (x >> 1) & 0x55..) != 0.  ORed over the block, tested once. */
int mmtb_tf_check_wdl(const uint8_t *raw, size_t n)
{
    size_t full = n / 4, i = 0;
    uint64_t bad = 0;
    for (; i + 8 <= full; i += 8) {
        uint64_t x = get64(raw + i);
        bad |= x & (x >> 1);
    }
    for (; i < full; i++)
        bad |= (uint64_t)(raw[i] & (raw[i] >> 1));
    if (bad & 0x5555555555555555ULL)
        return MMTB_ERR_CORRUPT;
    if (n % 4) {
        uint8_t last = raw[full];
        uint8_t used = (uint8_t)((1u << (2 * (n % 4))) - 1);
        if ((last & ~used) || (last & (last >> 1) & 0x55))
            return MMTB_ERR_CORRUPT;
    }
    return MMTB_OK;
}

int mmtb_tf_check_dtw(const uint8_t *raw, size_t n, int width, uint32_t max_dtw)
{
    /* the largest value, then one comparison: loops the compiler vectorises */
    unsigned top = 0;
    if (width == 1) {
        uint8_t m = 0;
        for (size_t j = 0; j < n; j++)
            m = raw[j] > m ? raw[j] : m;
        top = m;
    } else {
        uint16_t m = 0;
        for (size_t j = 0; j < n; j++) {
            uint16_t x = (uint16_t)(raw[2 * j] | raw[2 * j + 1] << 8);
            m = x > m ? x : m;
        }
        top = m;
    }
    return top > max_dtw ? MMTB_ERR_CORRUPT : MMTB_OK;
}

/* ------------------------------------------------------------------------ */
/* Blocks                                                                    */
/* ------------------------------------------------------------------------ */

size_t mmtb_tf_block_bound(size_t n)
{
    size_t z = ZSTD_compressBound(n);
    return z > n ? z : n;
}

int mmtb_tf_block_compress(ZSTD_CCtx *cctx, int level, const uint8_t *raw, size_t n,
                           uint8_t *dst, size_t cap, uint32_t *csize, uint32_t *hash)
{
    if (cap < mmtb_tf_block_bound(n) || n > UINT32_MAX)
        return MMTB_ERR_INVALID;
    if (n == 0) {
        *csize = 0;
        *hash = (uint32_t)mmtb_xxh64(dst, 0, 0);
        return MMTB_OK;
    }
    size_t z = ZSTD_compressCCtx(cctx, dst, cap, raw, n, level);
    if (ZSTD_isError(z))
        return MMTB_ERR_NOMEM; /* with cap >= the bound, only allocation can fail */
    /* A frame no smaller than the block is replaced by the raw bytes. */
    if (z >= n) {
        memcpy(dst, raw, n);
        z = n;
    }
    *csize = (uint32_t)z;
    *hash = (uint32_t)mmtb_xxh64(dst, z, 0);
    return MMTB_OK;
}

int mmtb_tf_block_decompress(ZSTD_DCtx *dctx, const uint8_t *src, const struct mmtb_tf_block *b,
                             uint8_t *raw)
{
    size_t n = b->raw_size;
    if (b->csize > n || (b->csize == 0) != (n == 0) ||
        (uint32_t)mmtb_xxh64(src, b->csize, 0) != b->hash)
        return MMTB_ERR_CORRUPT;
    if (b->csize == n) {
        if (n)
            memcpy(raw, src, n);
        return MMTB_OK;
    }
    /* The frame must announce exactly n bytes and produce them. */
    unsigned long long fcs = ZSTD_getFrameContentSize(src, b->csize);
    if (fcs != n)
        return MMTB_ERR_CORRUPT;
    size_t r = ZSTD_decompressDCtx(dctx, raw, n, src, b->csize);
    if (ZSTD_isError(r) || r != n)
        return MMTB_ERR_CORRUPT;
    return MMTB_OK;
}

/* ------------------------------------------------------------------------ */
/* Names                                                                     */
/* ------------------------------------------------------------------------ */

int mmtb_tf_sector_name(struct mmtb_sector s, char *buf, size_t len)
{
    if (s.w_hand == 0 && s.b_hand == 0)
        return snprintf(buf, len, "%u-%u", s.w, s.b);
    return snprintf(buf, len, "%u-%u-%u-%u", s.w, s.b, s.w_hand, s.b_hand);
}

int mmtb_tf_sector_filename(struct mmtb_sector s, char *buf, size_t len)
{
    char name[32];
    mmtb_tf_sector_name(s, name, sizeof name);
    return snprintf(buf, len, "%s%s", name, MMTB_TF_SUFFIX);
}

/* Two or four decimal numbers 0..32 (no leading zeros) joined by '-'; the
 * four-number form only when a hand is non-zero, so each sector has one
 * name. */
int mmtb_tf_sector_name_parse(const char *t, size_t len, struct mmtb_sector *s)
{
    unsigned v[4];
    int k = 0;
    size_t i = 0;
    while (k < 4) {
        if (i >= len || t[i] < '0' || t[i] > '9')
            return MMTB_ERR_PARSE;
        unsigned x = 0;
        size_t start = i;
        while (i < len && t[i] >= '0' && t[i] <= '9' && i - start < 3)
            x = 10 * x + (unsigned)(t[i++] - '0');
        if ((t[start] == '0' && i - start > 1) || x > MMTB_MAX_POINTS)
            return MMTB_ERR_PARSE;
        v[k++] = x;
        if (i == len)
            break;
        if (t[i] != '-')
            return MMTB_ERR_PARSE;
        i++;
    }
    if (i != len || (k != 2 && k != 4))
        return MMTB_ERR_PARSE;
    if (k == 2)
        v[2] = v[3] = 0;
    else if (v[2] == 0 && v[3] == 0)
        return MMTB_ERR_PARSE;
    if (v[0] + v[1] > MMTB_MAX_POINTS)
        return MMTB_ERR_PARSE;
    s->w = (uint8_t)v[0];
    s->b = (uint8_t)v[1];
    s->w_hand = (uint8_t)v[2];
    s->b_hand = (uint8_t)v[3];
    return MMTB_OK;
}

/* ------------------------------------------------------------------------ */
/* MANIFEST                                                                  */
/* ------------------------------------------------------------------------ */

int mmtb_manifest_find_sector(const struct mmtb_manifest *m, struct mmtb_sector s)
{
    for (int i = 0; i < m->nsectors; i++)
        if (mmtb_sector_eq(m->sectors[i], s))
            return i;
    return -1;
}

int mmtb_manifest_find_file(const struct mmtb_manifest *m, struct mmtb_sector s)
{
    for (int i = 0; i < m->nfiles; i++)
        if (mmtb_sector_eq(m->files[i].sector, s))
            return i;
    return -1;
}

void mmtb_manifest_clear(struct mmtb_manifest *m)
{
    free(m->descriptor);
    free(m->sectors);
    free(m->files);
    memset(m, 0, sizeof *m);
}

/* A growable text buffer for the formatter. */
struct sbuf {
    char *p;
    size_t len, cap;
    bool oom;
};

static void sb_add(struct sbuf *b, const char *s, size_t n)
{
    if (b->oom)
        return;
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap < b->len + n + 1)
            cap *= 2;
        char *q = realloc(b->p, cap);
        if (!q) {
            b->oom = true;
            return;
        }
        b->p = q;
        b->cap = cap;
    }
    memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = 0;
}

static void sb_printf(struct sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sb_printf(struct sbuf *b, const char *fmt, ...)
{
    char tmp[256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= sizeof tmp) {
        b->oom = true; /* never happens: callers print short fields */
        return;
    }
    sb_add(b, tmp, (size_t)n);
}

/* Descriptor text the "| " lines can carry: printable bytes, tabs and
 * newlines (no carriage returns or other control bytes, no NUL). */
static bool descriptor_ok(const char *d, size_t n)
{
    if (n == 0 || n > MMTB_TF_MAX_DESCRIPTOR)
        return false;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)d[i];
        if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7f)
            return false;
    }
    return true;
}

/* The text form (FORMAT.md, "Manifest"):
 *   mmtb-manifest 2
 *   variant NAME FINGERPRINT
 *   index-scheme N
 *   descriptor NBYTES
 *   | line ...
 *   game NSECTORS
 *   sector W-B[-WH-BH] ...
 *   files NFILES
 *   file W-B[-WH-BH] FILENAME SIZE HASH ...
 *   end HASH                (XXH64 of every byte before this line) */
int mmtb_manifest_format(const struct mmtb_manifest *m, char **out, size_t *len)
{
    *out = NULL;
    *len = 0;
    size_t nlen = strnlen(m->name, sizeof m->name);
    if (!name_ok(m->name, nlen) || !descriptor_ok(m->descriptor, m->descriptor_len) ||
        m->nsectors < 0 || m->nfiles < 0 || m->index_scheme <= 0)
        return MMTB_ERR_INVALID;
    struct sbuf b = {0};
    char name[32];
    sb_printf(&b, "mmtb-manifest %d\n", MMTB_MANIFEST_VERSION);
    sb_printf(&b, "variant %s %016llx\n", m->name, (unsigned long long)m->fingerprint);
    sb_printf(&b, "index-scheme %d\n", m->index_scheme);
    sb_printf(&b, "descriptor %zu\n", m->descriptor_len);
    const char *d = m->descriptor, *end = d + m->descriptor_len;
    while (d < end) {
        const char *nl = memchr(d, '\n', (size_t)(end - d));
        size_t n = nl ? (size_t)(nl - d) : (size_t)(end - d);
        sb_add(&b, "| ", 2);
        sb_add(&b, d, n);
        sb_add(&b, "\n", 1);
        d += n + (nl ? 1 : 0);
    }
    sb_printf(&b, "game %d\n", m->nsectors);
    for (int i = 0; i < m->nsectors; i++) {
        mmtb_tf_sector_name(m->sectors[i], name, sizeof name);
        sb_printf(&b, "sector %s\n", name);
    }
    sb_printf(&b, "files %d\n", m->nfiles);
    for (int i = 0; i < m->nfiles; i++) {
        char fname[48];
        mmtb_tf_sector_name(m->files[i].sector, name, sizeof name);
        mmtb_tf_sector_filename(m->files[i].sector, fname, sizeof fname);
        sb_printf(&b, "file %s %s %llu %016llx\n", name, fname,
                  (unsigned long long)m->files[i].size, (unsigned long long)m->files[i].file_hash);
    }
    if (!b.oom) {
        uint64_t h = mmtb_xxh64(b.p, b.len, 0);
        sb_printf(&b, "end %016llx\n", (unsigned long long)h);
    }
    if (b.oom) {
        free(b.p);
        return MMTB_ERR_NOMEM;
    }
    *out = b.p;
    *len = b.len;
    return MMTB_OK;
}

/* Line cursor of the manifest parser. */
struct mparse {
    const char *p, *end;
    const char *line; /* current line, without its newline */
    size_t len;
    int lineno;
    char *err;
    size_t errlen;
};

/* Take the next line; false at the end of the text or for a last line
 * without a newline (a truncated file). */
static bool mp_next(struct mparse *mp)
{
    if (mp->p >= mp->end)
        return false;
    const char *nl = memchr(mp->p, '\n', (size_t)(mp->end - mp->p));
    if (!nl)
        return false;
    mp->line = mp->p;
    mp->len = (size_t)(nl - mp->p);
    mp->p = nl + 1;
    mp->lineno++;
    return true;
}

static int mp_fail(struct mparse *mp, const char *what)
{
    if (mp->err && mp->errlen)
        snprintf(mp->err, mp->errlen, "MANIFEST:%d: %s", mp->lineno, what);
    return MMTB_ERR_CORRUPT;
}

/* If the current line is "KEY rest", point *rest at rest and return true. */
static bool mp_key(const struct mparse *mp, const char *key, const char **rest, size_t *rlen)
{
    size_t k = strlen(key);
    if (mp->len < k + 2 || memcmp(mp->line, key, k) != 0 || mp->line[k] != ' ')
        return false;
    *rest = mp->line + k + 1;
    *rlen = mp->len - k - 1;
    return true;
}

/* A decimal number without sign or leading zeros, at most max. */
static bool parse_u64(const char *s, size_t n, uint64_t max, uint64_t *out)
{
    if (n == 0 || n > 20 || (s[0] == '0' && n > 1))
        return false;
    uint64_t x = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return false;
        unsigned d = (unsigned)(s[i] - '0');
        if (x > (max - d) / 10)
            return false;
        x = 10 * x + d;
    }
    *out = x;
    return true;
}

/* Exactly 16 lower-case hex digits. */
static bool parse_hex64(const char *s, size_t n, uint64_t *out)
{
    if (n != 16)
        return false;
    uint64_t x = 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        unsigned d;
        if (c >= '0' && c <= '9')
            d = (unsigned)(c - '0');
        else if (c >= 'a' && c <= 'f')
            d = (unsigned)(c - 'a' + 10);
        else
            return false;
        x = x << 4 | d;
    }
    *out = x;
    return true;
}

/* Split "a b c" into exactly n space-separated, non-empty fields. */
static bool split_fields(const char *s, size_t len, int n, const char **f, size_t *fl)
{
    int k = 0;
    size_t i = 0;
    while (k < n) {
        size_t start = i;
        while (i < len && s[i] != ' ')
            i++;
        if (i == start)
            return false;
        f[k] = s + start;
        fl[k] = i - start;
        k++;
        if (i == len)
            break;
        i++; /* the single space */
    }
    return k == n && i == len;
}

/* The version line, first: a newer manifest is unsupported, not corrupt. */
static int manifest_version(struct mparse *mp)
{
    const char *rest;
    size_t rlen;
    uint64_t x;
    if (!mp_next(mp) || !mp_key(mp, "mmtb-manifest", &rest, &rlen))
        return mp_fail(mp, "not an mmtb manifest");
    if (!parse_u64(rest, rlen, 1000000, &x))
        return mp_fail(mp, "bad version");
    if (x != MMTB_MANIFEST_VERSION) {
        if (mp->err && mp->errlen && x == 1) /* the depths of version 1 were DTC */
            snprintf(mp->err, mp->errlen,
                     "MANIFEST: version 1 (depths to the next capture) is not supported; "
                     "this mmtb reads version %d (depths to win): generate the tables again",
                     MMTB_MANIFEST_VERSION);
        else if (mp->err && mp->errlen)
            snprintf(mp->err, mp->errlen, "MANIFEST: version %llu is not supported",
                     (unsigned long long)x);
        return MMTB_ERR_UNSUPPORTED;
    }
    return MMTB_OK;
}

/* The end line's hash covers everything before it: checked before any
 * other line is trusted. */
static int manifest_end_hash(struct mparse *mp, const char *text, size_t len)
{
    const char *last = NULL;
    if (len < 2 || text[len - 1] != '\n')
        return mp_fail(mp, "truncated (no end line)");
    for (const char *q = text + len - 1; q > text; q--)
        if (q[-1] == '\n') {
            last = q;
            break;
        }
    uint64_t want;
    if (!last || (size_t)(text + len - 1 - last) != 4 + 16 || memcmp(last, "end ", 4) != 0 ||
        !parse_hex64(last + 4, 16, &want))
        return mp_fail(mp, "truncated (no end line)");
    if (mmtb_xxh64(text, (size_t)(last - text), 0) != want)
        return mp_fail(mp, "checksum mismatch");
    return MMTB_OK;
}

/* The lines "variant", "index-scheme" and "descriptor NBYTES" into m and
 * *dlen. */
static int manifest_head(struct mparse *mp, struct mmtb_manifest *m, size_t *dlen)
{
    const char *rest, *f[2];
    size_t rlen, fl[2];
    uint64_t x;
    if (!mp_next(mp) || !mp_key(mp, "variant", &rest, &rlen) ||
        !split_fields(rest, rlen, 2, f, fl) || !name_ok(f[0], fl[0]) ||
        !parse_hex64(f[1], fl[1], &m->fingerprint))
        return mp_fail(mp, "expected \"variant NAME FINGERPRINT\"");
    memcpy(m->name, f[0], fl[0]);
    m->name[fl[0]] = 0;

    if (!mp_next(mp) || !mp_key(mp, "index-scheme", &rest, &rlen) ||
        !parse_u64(rest, rlen, 65535, &x) || x == 0)
        return mp_fail(mp, "expected \"index-scheme N\"");
    m->index_scheme = (int)x;

    if (!mp_next(mp) || !mp_key(mp, "descriptor", &rest, &rlen) ||
        !parse_u64(rest, rlen, MMTB_TF_MAX_DESCRIPTOR, &x) || x == 0)
        return mp_fail(mp, "expected \"descriptor NBYTES\"");
    *dlen = (size_t)x;
    return MMTB_OK;
}

/* The descriptor's dlen bytes from its "| text" lines, each followed by
 * '\n'; the last '\n' is dropped when NBYTES says the text did not end
 * with one. */
static int manifest_descriptor(struct mparse *mp, struct mmtb_manifest *m, size_t dlen)
{
    m->descriptor = malloc(dlen + 2);
    if (!m->descriptor)
        return MMTB_ERR_NOMEM;
    size_t got = 0;
    while (got < dlen) {
        if (!mp_next(mp) || mp->len < 2 || mp->line[0] != '|' || mp->line[1] != ' ' ||
            got + mp->len - 1 > dlen + 1)
            return mp_fail(mp, "bad descriptor line");
        memcpy(m->descriptor + got, mp->line + 2, mp->len - 2);
        got += mp->len - 2;
        m->descriptor[got++] = '\n';
    }
    if (got != dlen && got != dlen + 1)
        return mp_fail(mp, "descriptor length mismatch");
    m->descriptor[dlen] = 0;
    m->descriptor_len = dlen;
    if (!descriptor_ok(m->descriptor, dlen))
        return mp_fail(mp, "bad descriptor text");
    return MMTB_OK;
}

/* "game NSECTORS" and its sector lines, each sector once. */
static int manifest_sectors(struct mparse *mp, struct mmtb_manifest *m)
{
    const char *rest;
    size_t rlen;
    uint64_t x;
    if (!mp_next(mp) || !mp_key(mp, "game", &rest, &rlen) || !parse_u64(rest, rlen, 1 << 20, &x))
        return mp_fail(mp, "expected \"game NSECTORS\"");
    m->nsectors = (int)x;
    m->sectors = calloc(x ? x : 1, sizeof *m->sectors);
    if (!m->sectors)
        return MMTB_ERR_NOMEM;
    for (int i = 0; i < m->nsectors; i++) {
        struct mmtb_sector s;
        if (!mp_next(mp) || !mp_key(mp, "sector", &rest, &rlen) ||
            mmtb_tf_sector_name_parse(rest, rlen, &s) != MMTB_OK)
            return mp_fail(mp, "expected \"sector W-B[-WH-BH]\"");
        /* Quadratic, but manifests list at most a few thousand sectors. */
        if (mmtb_manifest_find_sector(m, s) >= 0)
            return mp_fail(mp, "sector listed twice");
        m->sectors[i] = s;
    }
    return MMTB_OK;
}

/* One "file SECTOR FILENAME SIZE HASH" line into *mf; the name must be
 * the sector's. */
static int manifest_file_line(struct mparse *mp, struct mmtb_manifest_file *mf)
{
    const char *rest, *f[4];
    size_t rlen, fl[4];
    char want[48];
    if (!mp_next(mp) || !mp_key(mp, "file", &rest, &rlen) || !split_fields(rest, rlen, 4, f, fl) ||
        mmtb_tf_sector_name_parse(f[0], fl[0], &mf->sector) != MMTB_OK ||
        !parse_u64(f[2], fl[2], UINT64_MAX, &mf->size) || !parse_hex64(f[3], fl[3], &mf->file_hash))
        return mp_fail(mp, "expected \"file SECTOR FILENAME SIZE HASH\"");
    mmtb_tf_sector_filename(mf->sector, want, sizeof want);
    if (fl[1] != strlen(want) || memcmp(f[1], want, fl[1]) != 0)
        return mp_fail(mp, "file name is not the sector's");
    return MMTB_OK;
}

/* "files NFILES" and its file lines, each of a sector of the game, once. */
static int manifest_files(struct mparse *mp, struct mmtb_manifest *m)
{
    const char *rest;
    size_t rlen;
    uint64_t x;
    if (!mp_next(mp) || !mp_key(mp, "files", &rest, &rlen) ||
        !parse_u64(rest, rlen, (uint64_t)m->nsectors, &x))
        return mp_fail(mp, "expected \"files NFILES\" (at most NSECTORS)");
    int nfiles = (int)x;
    m->files = calloc(x ? x : 1, sizeof *m->files);
    if (!m->files)
        return MMTB_ERR_NOMEM;
    for (int i = 0; i < nfiles; i++) {
        struct mmtb_manifest_file mf;
        int rc = manifest_file_line(mp, &mf);
        if (rc != MMTB_OK)
            return rc;
        if (mmtb_manifest_find_sector(m, mf.sector) < 0 ||
            mmtb_manifest_find_file(m, mf.sector) >= 0)
            return mp_fail(mp, "file of a sector not in the game, or listed twice");
        m->files[m->nfiles++] = mf;
    }
    return MMTB_OK;
}

int mmtb_manifest_parse(const char *text, size_t len, struct mmtb_manifest *m, char *err,
                        size_t errlen)
{
    struct mparse mp = {.p = text, .end = text + len, .err = err, .errlen = errlen};
    size_t dlen = 0;
    memset(m, 0, sizeof *m);
    if (err && errlen)
        err[0] = 0;

    /* Failures up to the descriptor's length leave nothing to free. */
    int rc = manifest_version(&mp);
    if (rc == MMTB_OK)
        rc = manifest_end_hash(&mp, text, len);
    if (rc == MMTB_OK)
        rc = manifest_head(&mp, m, &dlen);
    if (rc != MMTB_OK)
        return rc;

    rc = manifest_descriptor(&mp, m, dlen);
    if (rc == MMTB_OK)
        rc = manifest_sectors(&mp, m);
    if (rc == MMTB_OK)
        rc = manifest_files(&mp, m);
    if (rc == MMTB_OK &&
        (!mp_next(&mp) || mp.p != mp.end || mp.len < 4 || memcmp(mp.line, "end ", 4) != 0))
        rc = mp_fail(&mp, "expected the end line last");
    if (rc != MMTB_OK)
        mmtb_manifest_clear(m);
    return rc;
}
