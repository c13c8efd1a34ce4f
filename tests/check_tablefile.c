/*
 * check_tablefile.c - tests of format/tablefile.c and the sector file as a
 * whole: XXH64 against known values and zstd's own frame checksums, header
 * and manifest round trips, value packing, block round trips, the golden
 * file (tests/data/golden: committed bytes whose hash and values are
 * asserted), and corrupt fixtures built from a valid file (truncations, bad
 * magic, flipped bytes anywhere, wrong checksums, reserved bits, foreign
 * fingerprint, newer version) that must give an error, never a crash or a
 * wrong value.
 *
 * Regenerating the golden file (only when the format version changes):
 *   MMTB_WRITE_GOLDEN=tests/data/golden/three-diag build/tests/check_tablefile
 * then update GOLDEN_HASH below to the value the test prints.
 */
#include <check.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mmtb.h"
#include "sectorio.h"
#include "sector_index.h"
#include "tablefile.h"
#include "tablewrite.h"
#include "variant.h"
#include "testlib_util.h"

#ifndef MMTB_SOURCE_DIR
#error "MMTB_SOURCE_DIR must name the source tree"
#endif

#define GOLDEN_DIR MMTB_SOURCE_DIR "/tests/data/golden/three-diag"
/* XXH64 of the committed golden 3-3.mmtb (see the comment at the top). */
#define GOLDEN_HASH 0x9033a5bde7b2b0aeULL
/* zstd release the golden file was written with: byte-exact regeneration
 * is only compared under the same release. */
#define GOLDEN_ZSTD 10504

/* ---- helpers ------------------------------------------------------------ */

static void write_file(const char *path, const uint8_t *buf, size_t len)
{
    FILE *f = fopen(path, "wb");
    ck_assert_msg(f != NULL, "cannot create %s", path);
    ck_assert(fwrite(buf, 1, len, f) == len);
    fclose(f);
}

static void copy_file(const char *from, const char *to)
{
    size_t n;
    uint8_t *b = tl_read_file(from, &n);
    write_file(to, b, n);
    free(b);
}

static uint64_t rng_state = 0x9E3779B97F4A7C15ULL;
static uint64_t rnd(void)
{
    /* xorshift64* */
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 0x2545F4914F6CDD1DULL;
}

/* ---- patterned sector values (the golden file and the fixtures) --------- */

/* The values of slot i: runs of losses, draws and wins; depths up to 299
 * (two-byte DTW plane); non-canonical slots unused. */
struct pattern {
    const mmtb_index *ix;
    struct mmtb_sector s;
};

static void pattern_value(uint64_t i, uint8_t *wdl, uint16_t *dtw)
{
    unsigned c = (unsigned)((i / 7) % 3);
    *wdl = (uint8_t)c;
    *dtw = c == 2 ? (uint16_t)(1 + i % 299) : c == 0 ? (uint16_t)(i % 290) : 0;
}

static void pattern_fill(void *ctx, uint64_t first, uint64_t count, uint8_t *wdl, uint16_t *dtw)
{
    const struct pattern *pt = ctx;
    for (uint64_t k = 0; k < count; k++) {
        if (!mmtb_index_slot_is_canonical(pt->ix, pt->s, first + k)) {
            wdl[k] = 3;
            dtw[k] = 0;
        } else {
            pattern_value(first + k, &wdl[k], &dtw[k]);
        }
    }
}

/* Write the pattern sector 3-3 of three-diag (and its MANIFEST) to dir. */
static void write_pattern(const char *dir, const struct mmtb_variant *v, const mmtb_index *ix,
                          struct mmtb_sector_stats *st)
{
    struct mmtb_sector s = {3, 3, 0, 0};
    struct pattern pt = {ix, s};
    /* the writer settings of the golden file: W/D/L at zstd level 17, DTW at 12 */
    struct mmtb_write_opts wo = {.zstd_level = 17, .wdl_block_log2 = 10, .dtw_block_log2 = 10, .dtw_zstd_level = 12};
    char err[256] = "";
    int rc = mmtb_table_write_manifest(dir, v, &s, 1, err, sizeof err);
    ck_assert_msg(rc == MMTB_OK, "manifest: %s", err);
    rc = mmtb_table_write_sector(dir, v, s, mmtb_index_slots(ix, s), pattern_fill, &pt, &wo, st,
                                 err, sizeof err);
    ck_assert_msg(rc == MMTB_OK, "write: %s", err);
}

/* ---- XXH64 -------------------------------------------------------------- */

START_TEST(xxh64_known)
{
    /* The published value for the empty input, seed 0. */
    ck_assert_uint_eq(mmtb_xxh64("", 0, 0), 0xEF46DB3751D8E999ULL);
    /* zstd stores the low 32 bits of XXH64(content, 0) after a frame with
     * the checksum flag: an independent implementation to compare with. */
    ZSTD_CCtx *c = ZSTD_createCCtx();
    ZSTD_CCtx_setParameter(c, ZSTD_c_checksumFlag, 1);
    static uint8_t buf[3000], out[4000];
    for (size_t i = 0; i < sizeof buf; i++)
        buf[i] = (uint8_t)(rnd() % 5);
    for (size_t n = 0; n < sizeof buf; n += n < 80 ? 1 : 97) {
        size_t z = ZSTD_compress2(c, out, sizeof out, buf, n);
        ck_assert(!ZSTD_isError(z));
        uint32_t want = (uint32_t)out[z - 4] | (uint32_t)out[z - 3] << 8 |
                        (uint32_t)out[z - 2] << 16 | (uint32_t)out[z - 1] << 24;
        ck_assert_uint_eq((uint32_t)mmtb_xxh64(buf, n, 0), want);
        /* Streaming in uneven pieces gives the same digest. */
        struct mmtb_xxh64_state st;
        mmtb_xxh64_init(&st, 0);
        for (size_t k = 0; k < n;) {
            size_t t = rnd() % 45;
            if (t > n - k)
                t = n - k;
            mmtb_xxh64_update(&st, buf + k, t);
            k += t;
        }
        ck_assert_uint_eq(mmtb_xxh64_digest(&st), mmtb_xxh64(buf, n, 0));
    }
    ZSTD_freeCCtx(c);
}
END_TEST

/* ---- header ------------------------------------------------------------- */

static struct mmtb_tf_header sample_header(void)
{
    struct mmtb_tf_header h;
    memset(&h, 0, sizeof h);
    h.version = MMTB_TF_VERSION;
    h.fingerprint = 0x0123456789abcdefULL;
    strcpy(h.name, "nine");
    h.descriptor_len = 1234;
    h.sector = (struct mmtb_sector){5, 4, 0, 0};
    h.index_scheme = 1;
    h.value_encoding = MMTB_TF_VALUE_ENCODING;
    h.wdl_block_log2 = 18;
    h.dtw_block_log2 = 16;
    h.slots = 1000000;
    h.canonical = 999000;
    h.wins = 500000;
    h.draws = 400000;
    h.losses = 99000;
    h.max_win = 301;
    h.max_loss = 12;
    h.dtw_width = 2;
    h.wdl_data_bytes = 9999;
    h.dtw_data_bytes = 77777;
    h.meta_hash = 0xfeedfacecafebeefULL;
    return h;
}

START_TEST(header_round_trip)
{
    struct mmtb_tf_header h = sample_header(), d;
    uint8_t b[MMTB_TF_HEADER_SIZE];
    mmtb_tf_header_encode(&h, b);
    ck_assert_int_eq(mmtb_tf_header_decode(b, sizeof b, &d), MMTB_OK);
    ck_assert_uint_eq(d.fingerprint, h.fingerprint);
    ck_assert_str_eq(d.name, "nine");
    ck_assert_uint_eq(d.descriptor_len, 1234);
    ck_assert(d.sector.w == 5 && d.sector.b == 4 && d.sector.w_hand == 0 && d.sector.b_hand == 0);
    ck_assert_uint_eq(d.slots, h.slots);
    ck_assert_uint_eq(d.canonical, h.canonical);
    ck_assert_uint_eq(d.wins, h.wins);
    ck_assert_uint_eq(d.draws, h.draws);
    ck_assert_uint_eq(d.losses, h.losses);
    ck_assert_int_eq(d.max_win, 301);
    ck_assert_int_eq(d.max_loss, 12);
    ck_assert_uint_eq(d.dtw_width, 2);
    ck_assert_uint_eq(d.wdl_data_bytes, 9999);
    ck_assert_uint_eq(d.dtw_data_bytes, 77777);
    ck_assert_uint_eq(d.meta_hash, h.meta_hash);
    ck_assert_uint_eq(d.header_hash, h.header_hash);
    /* Byte positions the spec pins (FORMAT.md, "Sector header"). */
    ck_assert_mem_eq(b, "\x89MMTB\r\n\x1a", 8);
    ck_assert_uint_eq(b[8], 2);
    ck_assert_uint_eq(b[10], 160);
    ck_assert_uint_eq(b[64], 5);
    ck_assert_uint_eq(b[65], 4);
    ck_assert_uint_eq(b[71], 2);
    ck_assert_uint_eq(b[80] | b[81] << 8 | b[82] << 16, 1000000);

    /* Layout follows from the header. */
    struct mmtb_tf_layout l;
    ck_assert_int_eq(mmtb_tf_layout(&d, &l), MMTB_OK);
    ck_assert_uint_eq(l.nblocks[0], 4);  /* 1e6 / 2^18 rounded up */
    ck_assert_uint_eq(l.nblocks[1], 16); /* 1e6 / 2^16 rounded up */
    ck_assert_uint_eq(l.table_off[0], 160 + 1240);
    ck_assert_uint_eq(l.table_off[1], 160 + 1240 + 16 * 4);
    ck_assert_uint_eq(l.meta_end, 160 + 1240 + 16 * 20);
    ck_assert_uint_eq(l.file_size, l.meta_end + 9999 + 77777 + 32);
}
END_TEST

/* Encode h after `patch` changed it and expect `want` from the decoder. */
static void expect_header(struct mmtb_tf_header h, int want, const char *what)
{
    uint8_t b[MMTB_TF_HEADER_SIZE];
    struct mmtb_tf_header d;
    mmtb_tf_header_encode(&h, b);
    ck_assert_msg(mmtb_tf_header_decode(b, sizeof b, &d) == want, "%s", what);
}

START_TEST(header_rejects)
{
    struct mmtb_tf_header h = sample_header(), x;
    uint8_t b[MMTB_TF_HEADER_SIZE];
    struct mmtb_tf_header d;
    expect_header(h, MMTB_OK, "valid");
    x = h, x.wins++;
    expect_header(x, MMTB_ERR_CORRUPT, "counts do not add up");
    x = h, x.canonical = x.slots + 1, x.draws += x.slots + 1 - h.canonical;
    expect_header(x, MMTB_ERR_CORRUPT, "more canonical than slots");
    x = h, x.dtw_width = 1;
    expect_header(x, MMTB_ERR_CORRUPT, "DTW width too small for the depths");
    x = h, x.max_win = 0;
    expect_header(x, MMTB_ERR_CORRUPT, "a win in 0");
    x = h, x.max_loss = -1;
    expect_header(x, MMTB_ERR_CORRUPT, "no loss depth with losses");
    x = h, x.wdl_block_log2 = 9;
    expect_header(x, MMTB_ERR_CORRUPT, "block too small");
    x = h, x.wdl_block_log2 = 23;
    expect_header(x, MMTB_ERR_CORRUPT, "block too large");
    x = h, x.dtw_block_log2 = 19;
    expect_header(x, MMTB_ERR_CORRUPT, "DTW blocks larger than W/D/L blocks");
    x = h, x.dtw_data_bytes = 2 * (h.wins + h.losses + h.slots - h.canonical) + 1;
    expect_header(x, MMTB_ERR_CORRUPT, "DTW data larger than the decided slots allow");
    x = h, x.wdl_data_bytes = (h.slots + 3) / 4 + 1;
    expect_header(x, MMTB_ERR_CORRUPT, "W/D/L data larger than raw");
    x = h, x.descriptor_len = 0;
    expect_header(x, MMTB_ERR_CORRUPT, "empty descriptor");
    x = h, x.index_scheme = 0;
    expect_header(x, MMTB_ERR_CORRUPT, "index scheme 0");
    x = h, x.sector.w = 20, x.sector.b = 13;
    expect_header(x, MMTB_ERR_CORRUPT, "more stones than points");
    x = h, x.name[0] = 0;
    expect_header(x, MMTB_ERR_CORRUPT, "empty name");
    x = h, x.version = 3;
    expect_header(x, MMTB_ERR_UNSUPPORTED, "newer version");
    x = h, x.version = 1;
    expect_header(x, MMTB_ERR_UNSUPPORTED, "version 1 (depths to conversion)");
    x = h, x.value_encoding = 3;
    expect_header(x, MMTB_ERR_UNSUPPORTED, "unknown value encoding");
    /* packed (encoding 2): the width is the losses' (max_loss 12: one
     * byte, though max_win is 301), and the plane holds at most an entry
     * per loss and wasted slot (99,000 + 1,000) */
    x = h, x.value_encoding = MMTB_TF_VALUE_LOSSES;
    expect_header(x, MMTB_ERR_CORRUPT, "packed with the width of the wins");
    x.dtw_width = 1;
    expect_header(x, MMTB_OK, "packed, one byte a loss");
    ck_assert_int_eq(mmtb_tf_header_dtw_width(&x), 1);
    x.dtw_data_bytes = 100000;
    expect_header(x, MMTB_OK, "packed, every loss and wasted slot stored raw");
    x.dtw_data_bytes = 100001;
    expect_header(x, MMTB_ERR_CORRUPT, "packed, more depth bytes than losses");

    /* Reserved bytes, flags and the name's padding, with a valid hash; and
     * the count table's two fields (60..63, 74) one without the other. */
    static const int reserved[] = {12, 13, 14, 15, 60, 61, 62, 63, 74, 75, 76, 77, 78, 79, 40};
    for (size_t i = 0; i < sizeof reserved / sizeof reserved[0]; i++) {
        mmtb_tf_header_encode(&h, b);
        b[reserved[i]] = 0x10;
        uint64_t hh = mmtb_xxh64(b, 152, 0);
        for (int k = 0; k < 8; k++)
            b[152 + k] = (uint8_t)(hh >> (8 * k));
        ck_assert_msg(mmtb_tf_header_decode(b, sizeof b, &d) == MMTB_ERR_CORRUPT,
                      "reserved byte %d", reserved[i]);
    }
    /* Any single flipped bit: corrupt, or (version field) unsupported. */
    for (int i = 0; i < MMTB_TF_HEADER_SIZE; i++) {
        mmtb_tf_header_encode(&h, b);
        b[i] ^= (uint8_t)(1u << (i % 8));
        int rc = mmtb_tf_header_decode(b, sizeof b, &d);
        if (i == 8 || i == 9)
            ck_assert_int_eq(rc, MMTB_ERR_UNSUPPORTED);
        else
            ck_assert_msg(rc == MMTB_ERR_CORRUPT, "flip at %d gives %d", i, rc);
    }
    /* Short buffers. */
    mmtb_tf_header_encode(&h, b);
    for (size_t n = 0; n < MMTB_TF_HEADER_SIZE; n += 13)
        ck_assert_int_eq(mmtb_tf_header_decode(b, n, &d), MMTB_ERR_CORRUPT);
}
END_TEST

/* Meta region of h (a zero descriptor replaced by 'd's) with the count
 * table c; returns its size. */
static uint64_t meta_with_counts(struct mmtb_tf_header *h, const uint32_t *c, uint8_t **out,
                                 struct mmtb_tf_layout *l)
{
    ck_assert_int_eq(mmtb_tf_layout(h, l), MMTB_OK);
    uint64_t size = mmtb_tf_meta_size(l);
    char *desc = malloc(h->descriptor_len);
    memset(desc, 'd', h->descriptor_len);
    struct mmtb_tf_block *t0 = calloc(l->nblocks[0] + 1, sizeof *t0);
    struct mmtb_tf_block *t1 = calloc(l->nblocks[1] + 1, sizeof *t1);
    /* W/D/L blocks of their derived raw size, stored raw; DTW blocks empty */
    for (uint64_t i = 0; i < l->nblocks[0]; i++)
        t0[i].csize = t0[i].raw_size = (uint32_t)mmtb_tf_block_raw_max(h, l, 0, i);
    h->wdl_data_bytes = (h->slots + 3) / 4;
    h->dtw_data_bytes = 0;
    *out = malloc(size);
    h->meta_hash = mmtb_tf_meta_encode(h, l, desc, c, t0, t1, *out);
    free(desc);
    free(t0);
    free(t1);
    return size;
}

/*
 * The count table (FORMAT.md, "Count table"): header fields at bytes 60
 * and 74, the table right after the descriptor, 4 bytes an entry padded
 * to 8; round trip, and the decoder's refusals: an entry above 255 * 2^L,
 * non-zero padding, L outside 8..22, more blocks than the slots allow.
 */
START_TEST(count_table)
{
    struct mmtb_tf_header h = sample_header(), d;
    h.count_block_log2 = 10;
    h.count_blocks = 5; /* odd: 4 bytes of padding */
    uint32_t c[5] = {0, 7, 255u << 10, 1, 99};
    struct mmtb_tf_layout l;
    uint8_t *meta;
    uint64_t size = meta_with_counts(&h, c, &meta, &l);
    uint8_t b[MMTB_TF_HEADER_SIZE];
    mmtb_tf_header_encode(&h, b);
    ck_assert_uint_eq(b[74], 10);
    ck_assert_uint_eq(b[60], 5);
    ck_assert_int_eq(mmtb_tf_header_decode(b, sizeof b, &d), MMTB_OK);
    ck_assert_uint_eq(d.count_block_log2, 10);
    ck_assert_uint_eq(d.count_blocks, 5);
    ck_assert_uint_eq(l.count_off, 160 + 1240);
    ck_assert_uint_eq(l.table_off[0], 160 + 1240 + 24);
    const uint8_t *ct = meta + 1240;
    ck_assert_uint_eq(ct[4], 7);
    ck_assert_uint_eq(ct[8] | ct[9] << 8 | ct[10] << 16, 255u << 10);
    const char *desc;
    uint32_t got[6];
    struct mmtb_tf_block t0[8], t1[32];
    ck_assert_int_eq(mmtb_tf_meta_decode(&d, &l, meta, size, &desc, got, t0, t1), MMTB_OK);
    ck_assert_mem_eq(got, c, sizeof c);
    ck_assert_int_eq(mmtb_tf_meta_decode(&d, &l, meta, size, &desc, NULL, t0, t1), MMTB_OK);
    /* the padding after an odd count, then an entry too large: each with
     * a valid hash */
    meta[1240 + 20] = 1;
    d.meta_hash = mmtb_xxh64(meta, size, 0);
    ck_assert_int_eq(mmtb_tf_meta_decode(&d, &l, meta, size, &desc, got, t0, t1),
                     MMTB_ERR_CORRUPT);
    free(meta);
    c[2] = (255u << 10) + 1;
    size = meta_with_counts(&h, c, &meta, &l);
    ck_assert_int_eq(mmtb_tf_meta_decode(&h, &l, meta, size, &desc, got, t0, t1),
                     MMTB_ERR_CORRUPT);
    free(meta);
    /* header: L out of range, more blocks than slots */
    struct mmtb_tf_header x = h;
    x.count_block_log2 = 7;
    expect_header(x, MMTB_ERR_CORRUPT, "count blocks of 2^7");
    x.count_block_log2 = 23;
    expect_header(x, MMTB_ERR_CORRUPT, "count blocks of 2^23");
    x = h, x.count_blocks = (uint32_t)((h.slots >> 10) + 2);
    expect_header(x, MMTB_ERR_CORRUPT, "more count blocks than slots");
    x = h, x.count_blocks = (uint32_t)((h.slots >> 10) + 1);
    expect_header(x, MMTB_OK, "as many count blocks as the slots allow");
}
END_TEST

/* ---- planes and blocks -------------------------------------------------- */

START_TEST(pack_wdl_round_trip)
{
    for (size_t n = 1; n < 300; n += 1 + n / 16) {
        uint8_t wdl[300], raw[80];
        for (size_t i = 0; i < n; i++)
            wdl[i] = (uint8_t)(rnd() % 4);
        mmtb_tf_pack_wdl(wdl, n, raw);
        ck_assert_int_eq(mmtb_tf_check_wdl(raw, n), MMTB_OK);
        /* unpacked again from every start, for every length */
        for (size_t j = 0; j < n; j++)
            for (size_t m = 0; j + m <= n; m += 1 + m / 8) {
                uint8_t out[300];
                mmtb_tf_unpack_wdl(raw, j, m, out);
                /* one test a slot, Check's assertion only on a failure:
                 * a call per slot is seconds under the sanitizers */
                for (size_t i = 0; i < m; i++)
                    if (out[i] != (wdl[j + i] == 3 ? MMTB_TF_DRAW : wdl[j + i]))
                        ck_abort_msg("%zu slots unpacked from %zu of %zu: slot %zu is %u, not %u",
                                     m, j, n, i, out[i], wdl[j + i]);
            }
        uint64_t decided = 0, won = 0;
        for (size_t i = 0; i < n; i++) {
            unsigned want = wdl[i] == 3 ? MMTB_TF_DRAW : wdl[i]; /* unused: stored as draws */
            ck_assert_uint_eq(mmtb_tf_wdl_get(raw, i), want);
            decided += want != MMTB_TF_DRAW;
            won += want == MMTB_TF_WIN;
            /* counting decided and won slots over any prefix and from any start */
            ck_assert_uint_eq(mmtb_tf_count_decided(raw, 0, i + 1), decided);
            ck_assert_uint_eq(mmtb_tf_count_wins(raw, 0, i + 1), won);
        }
        for (size_t a = 0; a <= n; a++)
            for (size_t b = a; b <= n; b += 1 + b / 8) {
                uint64_t c = 0, cw = 0, cl = 0;
                for (size_t i = a; i < b; i++) {
                    c += mmtb_tf_wdl_get(raw, i) != MMTB_TF_DRAW;
                    cw += wdl[i] == MMTB_TF_WIN;
                    cl += wdl[i] == MMTB_TF_LOSS;
                }
                ck_assert_uint_eq(mmtb_tf_count_decided(raw, a, b), c);
                ck_assert_uint_eq(mmtb_tf_count_wins(raw, a, b), cw);
                ck_assert_uint_eq(mmtb_tf_count_losses(raw, a, b), cl);
                ck_assert_uint_eq(mmtb_tf_count_depths(MMTB_TF_VALUE_ENCODING, raw, a, b), c);
                ck_assert_uint_eq(mmtb_tf_count_depths(MMTB_TF_VALUE_LOSSES, raw, a, b), cl);
            }
        /* Padding bits of the last byte must be zero; code 3 is invalid. */
        if (n % 4) {
            raw[n / 4] |= (uint8_t)(1u << 7);
            ck_assert_int_eq(mmtb_tf_check_wdl(raw, n), MMTB_ERR_CORRUPT);
            raw[n / 4] &= 0x7f;
        }
        raw[0] |= 3;
        ck_assert_int_eq(mmtb_tf_check_wdl(raw, n), MMTB_ERR_CORRUPT);
    }
}
END_TEST

/* Store depth x as entry i of a raw DTW block of the given width. */
static void put_depth(uint8_t *raw, int i, int width, unsigned x)
{
    if (width == 1) {
        raw[i] = (uint8_t)x;
    } else {
        raw[2 * i] = (uint8_t)x;
        raw[2 * i + 1] = (uint8_t)(x >> 8);
    }
}

START_TEST(pack_dtw_round_trip)
{
    for (int width = 1; width <= 2; width++) {
        uint8_t wdl[100], raw[200];
        uint16_t dtw[100];
        for (int i = 0; i < 100; i++) {
            wdl[i] = (uint8_t)(rnd() % 4);
            dtw[i] = (uint16_t)(rnd() % (width == 1 ? 256 : 65536));
        }
        size_t bytes = mmtb_tf_pack_dtw(MMTB_TF_VALUE_ENCODING, wdl, dtw, 100, width, raw);
        uint64_t k = 0;
        for (int i = 0; i < 100; i++) {
            if (wdl[i] != MMTB_TF_WIN && wdl[i] != MMTB_TF_LOSS)
                continue; /* draws and unused slots have no entry */
            ck_assert_uint_eq(mmtb_tf_dtw_get(raw, k, width), dtw[i]);
            k++;
        }
        ck_assert_uint_eq(bytes, k * (uint64_t)width);
        ck_assert_int_eq(mmtb_tf_check_dtw(raw, k, width, 65535), MMTB_OK);
        /* packed: the losses' entries only */
        bytes = mmtb_tf_pack_dtw(MMTB_TF_VALUE_LOSSES, wdl, dtw, 100, width, raw);
        k = 0;
        for (int i = 0; i < 100; i++)
            if (wdl[i] == MMTB_TF_LOSS)
                ck_assert_uint_eq(mmtb_tf_dtw_get(raw, k++, width), dtw[i]);
        ck_assert_uint_eq(bytes, k * (uint64_t)width);
    }
    uint8_t raw[4] = {5, 0, 7, 1}; /* 5 and 263 */
    ck_assert_int_eq(mmtb_tf_check_dtw(raw, 2, 2, 263), MMTB_OK);
    ck_assert_int_eq(mmtb_tf_check_dtw(raw, 2, 2, 262), MMTB_ERR_CORRUPT);
    ck_assert_int_eq(mmtb_tf_check_dtw(raw, 4, 1, 7), MMTB_OK);
    ck_assert_int_eq(mmtb_tf_check_dtw(raw, 4, 1, 6), MMTB_ERR_CORRUPT);
    /* one value above the limit anywhere in a longer block (the checker
     * takes the largest in vector-sized steps, then a shorter tail) */
    uint8_t big[2 * 301];
    for (int width = 1; width <= 2; width++)
        for (int at = 0; at < 301; at += 3) {
            for (int i = 0; i < 301; i++)
                put_depth(big, i, width, (unsigned)(i % 200));
            ck_assert_int_eq(mmtb_tf_check_dtw(big, 301, width, 199), MMTB_OK);
            put_depth(big, at, width, 200);
            ck_assert_int_eq(mmtb_tf_check_dtw(big, 301, width, 199), MMTB_ERR_CORRUPT);
            ck_assert_int_eq(mmtb_tf_check_dtw(big, 301, width, 200), MMTB_OK);
        }
    ck_assert_int_eq(mmtb_tf_dtw_width(-1, -1), 0);
    ck_assert_int_eq(mmtb_tf_dtw_width(-1, 0), 0);
    ck_assert_int_eq(mmtb_tf_dtw_width(1, -1), 1);
    ck_assert_int_eq(mmtb_tf_dtw_width(255, 3), 1);
    ck_assert_int_eq(mmtb_tf_dtw_width(3, 256), 2);
}
END_TEST

/* Compress and expand one raw block; returns the stored size. */
static uint32_t block_round_trip(const uint8_t *raw, size_t n)
{
    ZSTD_CCtx *c = ZSTD_createCCtx();
    ZSTD_DCtx *d = ZSTD_createDCtx();
    size_t cap = mmtb_tf_block_bound(n);
    uint8_t *dst = malloc(cap), *back = malloc(n);
    struct mmtb_tf_block b = {0, 0, (uint32_t)n, 0};
    ck_assert_int_eq(mmtb_tf_block_compress(c, 12, raw, n, dst, cap, &b.csize, &b.hash), MMTB_OK);
    ck_assert_uint_le(b.csize, n);
    ck_assert_int_eq(mmtb_tf_block_decompress(d, dst, &b, back), MMTB_OK);
    ck_assert_mem_eq(back, raw, n);
    /* Any flipped bit of the stored bytes is caught by the block hash. */
    for (uint32_t i = 0; i < b.csize; i += 1 + b.csize / 50) {
        dst[i] ^= 0x20;
        ck_assert_int_eq(mmtb_tf_block_decompress(d, dst, &b, back), MMTB_ERR_CORRUPT);
        dst[i] ^= 0x20;
    }
    /* A wrong raw size or hash is caught. */
    if (b.csize < n) {
        b.raw_size = (uint32_t)n - 1;
        ck_assert_int_eq(mmtb_tf_block_decompress(d, dst, &b, back), MMTB_ERR_CORRUPT);
        b.raw_size = (uint32_t)n + 1;
        ck_assert_int_eq(mmtb_tf_block_decompress(d, dst, &b, back), MMTB_ERR_CORRUPT);
        b.raw_size = (uint32_t)n;
    }
    b.hash ^= 1;
    ck_assert_int_eq(mmtb_tf_block_decompress(d, dst, &b, back), MMTB_ERR_CORRUPT);
    uint32_t cs = b.csize;
    free(dst);
    free(back);
    ZSTD_freeCCtx(c);
    ZSTD_freeDCtx(d);
    return cs;
}

START_TEST(block_round_trips)
{
    enum { N = 65536 };
    uint8_t *wdl = malloc(4 * N), *raw = malloc(2 * 4 * N);
    uint16_t *dtw = malloc(4 * N * sizeof *dtw);
    /* Random bytes do not compress: stored raw. */
    for (int i = 0; i < N; i++)
        raw[i] = (uint8_t)rnd();
    ck_assert_uint_eq(block_round_trip(raw, N), N);
    /* Random W/D/L values. */
    for (int i = 0; i < 4 * N; i++)
        wdl[i] = (uint8_t)(rnd() % 3);
    mmtb_tf_pack_wdl(wdl, 4 * N, raw);
    block_round_trip(raw, N);
    /* All draws: almost nothing. */
    memset(wdl, MMTB_TF_DRAW, 4 * N);
    mmtb_tf_pack_wdl(wdl, 4 * N, raw);
    ck_assert_uint_lt(block_round_trip(raw, N), 100);
    /* One- and two-byte DTW, odd lengths. */
    for (int i = 0; i < N; i++) {
        wdl[i] = (uint8_t)(rnd() % 3);
        dtw[i] = wdl[i] == 1 ? 0 : (uint16_t)(rnd() % 40);
    }
    block_round_trip(raw, mmtb_tf_pack_dtw(MMTB_TF_VALUE_ENCODING, wdl, dtw, N - 3, 1, raw));
    for (int i = 0; i < N; i++)
        dtw[i] = (uint16_t)(dtw[i] * 97);
    block_round_trip(raw, mmtb_tf_pack_dtw(MMTB_TF_VALUE_ENCODING, wdl, dtw, N - 5, 2, raw));
    block_round_trip(raw, 1);
    /* An empty block (a DTW block of draws) is stored as nothing. */
    {
        ZSTD_CCtx *c = ZSTD_createCCtx();
        ZSTD_DCtx *d = ZSTD_createDCtx();
        uint8_t dst[64], back[1];
        struct mmtb_tf_block b = {0, 7, 0, 0};
        ck_assert_int_eq(mmtb_tf_block_compress(c, 12, raw, 0, dst, sizeof dst, &b.csize, &b.hash),
                         MMTB_OK);
        ck_assert_uint_eq(b.csize, 0);
        ck_assert_int_eq(mmtb_tf_block_decompress(d, dst, &b, back), MMTB_OK);
        b.hash ^= 1;
        ck_assert_int_eq(mmtb_tf_block_decompress(d, dst, &b, back), MMTB_ERR_CORRUPT);
        ZSTD_freeCCtx(c);
        ZSTD_freeDCtx(d);
    }
    free(wdl);
    free(raw);
    free(dtw);
}
END_TEST

/* ---- names and manifest ------------------------------------------------- */

START_TEST(sector_names)
{
    char buf[48];
    struct mmtb_sector s;
    mmtb_tf_sector_filename((struct mmtb_sector){3, 4, 0, 0}, buf, sizeof buf);
    ck_assert_str_eq(buf, "3-4.mmtb");
    mmtb_tf_sector_filename((struct mmtb_sector){3, 4, 5, 0}, buf, sizeof buf);
    ck_assert_str_eq(buf, "3-4-5-0.mmtb");
    ck_assert_int_eq(mmtb_tf_sector_name_parse("9-8", 3, &s), MMTB_OK);
    ck_assert(s.w == 9 && s.b == 8 && s.w_hand == 0 && s.b_hand == 0);
    ck_assert_int_eq(mmtb_tf_sector_name_parse("0-0-9-9", 7, &s), MMTB_OK);
    ck_assert(s.w == 0 && s.b == 0 && s.w_hand == 9 && s.b_hand == 9);
    static const char *bad[] = {"", "3", "3-", "-3", "03-3", "3-3-0-0", "3-3-1", "3--3",
                                "3-3-1-1-1", "33-3", "3-3 ", "x-3", "3-3-1-100"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        ck_assert_msg(mmtb_tf_sector_name_parse(bad[i], strlen(bad[i]), &s) == MMTB_ERR_PARSE,
                      "%s", bad[i]);
}
END_TEST

static char *sample_manifest(size_t *len, struct mmtb_manifest *m)
{
    static struct mmtb_sector sectors[] = {{3, 3, 0, 0}, {4, 3, 0, 0}, {3, 4, 0, 0}, {0, 0, 9, 9}};
    static struct mmtb_manifest_file files[] = {{{4, 3, 0, 0}, 12345, 0xabcdef0123456789ULL}};
    static char desc[] = "name demo\n\nline | with bar\n\ttab";
    memset(m, 0, sizeof *m);
    strcpy(m->name, "demo");
    m->fingerprint = 0x1122334455667788ULL;
    m->descriptor = desc;
    m->descriptor_len = strlen(desc);
    m->index_scheme = 1;
    m->nsectors = 4;
    m->sectors = sectors;
    m->nfiles = 1;
    m->files = files;
    char *text;
    ck_assert_int_eq(mmtb_manifest_format(m, &text, len), MMTB_OK);
    return text;
}

START_TEST(manifest_round_trip)
{
    struct mmtb_manifest m, d;
    size_t len;
    char *text = sample_manifest(&len, &m), err[200];
    ck_assert_int_eq(mmtb_manifest_parse(text, len, &d, err, sizeof err), MMTB_OK);
    ck_assert_str_eq(d.name, "demo");
    ck_assert_uint_eq(d.fingerprint, m.fingerprint);
    ck_assert_uint_eq(d.descriptor_len, m.descriptor_len);
    ck_assert_mem_eq(d.descriptor, m.descriptor, m.descriptor_len);
    ck_assert_int_eq(d.nsectors, 4);
    ck_assert_int_eq(d.sectors[3].w_hand, 9);
    ck_assert_int_eq(d.nfiles, 1);
    ck_assert_uint_eq(d.files[0].size, 12345);
    ck_assert_uint_eq(d.files[0].file_hash, 0xabcdef0123456789ULL);
    ck_assert_int_eq(mmtb_manifest_find_sector(&d, (struct mmtb_sector){3, 4, 0, 0}), 2);
    ck_assert_int_eq(mmtb_manifest_find_file(&d, (struct mmtb_sector){3, 4, 0, 0}), -1);
    mmtb_manifest_clear(&d);
    /* The text starts as the spec says. */
    ck_assert(strncmp(text, "mmtb-manifest 2\nvariant demo 1122334455667788\n", 46) == 0);
    /* A descriptor that ends in a newline survives too. */
    static char desc2[] = "a\n\nb\n";
    m.descriptor = desc2;
    m.descriptor_len = 5;
    char *t2;
    size_t l2;
    ck_assert_int_eq(mmtb_manifest_format(&m, &t2, &l2), MMTB_OK);
    ck_assert_int_eq(mmtb_manifest_parse(t2, l2, &d, err, sizeof err), MMTB_OK);
    ck_assert_uint_eq(d.descriptor_len, 5);
    ck_assert_mem_eq(d.descriptor, desc2, 5);
    mmtb_manifest_clear(&d);
    free(t2);
    free(text);
}
END_TEST

START_TEST(manifest_rejects)
{
    struct mmtb_manifest m, d;
    size_t len;
    char *text = sample_manifest(&len, &m), err[200];
    /* Every truncation and every flipped byte is corrupt. */
    for (size_t n = 0; n < len; n++)
        ck_assert_msg(mmtb_manifest_parse(text, n, &d, err, sizeof err) == MMTB_ERR_CORRUPT,
                      "truncated at %zu", n);
    for (size_t i = 0; i < len; i++) {
        text[i] ^= 0x01;
        int rc = mmtb_manifest_parse(text, len, &d, err, sizeof err);
        /* "mmtb-manifest 2" -> "mmtb-manifest 3": an unsupported version */
        ck_assert_msg(rc == MMTB_ERR_CORRUPT || (i == 14 && rc == MMTB_ERR_UNSUPPORTED),
                      "flip at %zu gives %d", i, rc);
        text[i] ^= 0x01;
    }
    /* A newer version is unsupported, not corrupt. */
    text[14] = '4';
    ck_assert_int_eq(mmtb_manifest_parse(text, len, &d, err, sizeof err), MMTB_ERR_UNSUPPORTED);
    /* Version 1 (depths to conversion) says what to do. */
    text[14] = '1';
    ck_assert_int_eq(mmtb_manifest_parse(text, len, &d, err, sizeof err), MMTB_ERR_UNSUPPORTED);
    ck_assert_msg(strstr(err, "version 1 (depths to the next capture)") &&
                      strstr(err, "generate the tables again"),
                  "%s", err);
    free(text);
    /* A control character in the descriptor cannot be written. */
    static char bad[] = "x\ry";
    m.descriptor = bad;
    m.descriptor_len = 3;
    ck_assert_int_eq(mmtb_manifest_format(&m, &text, &len), MMTB_ERR_INVALID);
}
END_TEST

/* ---- the solver's coded reads (gen/sectorio.c, gen/vcode.h) ------------- */

/* Depths to win up to 599 plies, wins odd and losses even. */
static void dtw_value(uint64_t i, uint8_t *wdl, uint16_t *dtw)
{
    unsigned c = (unsigned)((i / 7) % 3);
    *wdl = (uint8_t)c;
    *dtw = c == 1 ? 0 : (uint16_t)(2 * (i % 300) + (c == 2));
}

static void dtw_fill(void *ctx, uint64_t first, uint64_t count, uint8_t *wdl, uint16_t *dtw)
{
    const struct pattern *pt = ctx;
    for (uint64_t k = 0; k < count; k++) {
        if (!mmtb_index_slot_is_canonical(pt->ix, pt->s, first + k))
            wdl[k] = 3, dtw[k] = 0;
        else
            dtw_value(first + k, &wdl[k], &dtw[k]);
    }
}

/* A sector read a byte a slot gives back every value and depth, the deep
 * ones (above VC_MAX_DEPTH) from the list beside; a table whose depths
 * break the parity (the golden pattern's) is refused as corrupt. */
START_TEST(coded_reads)
{
    struct mmtb_variant *v = tl_load_variant("three-diag");
    mmtb_index *ix = NULL;
    ck_assert_int_eq(mmtb_index_create(&ix, v, 3), MMTB_OK);
    struct mmtb_sector s = {3, 3, 0, 0};
    struct pattern pt = {ix, s};
    char dir[64], err[256] = "";
    tl_make_tmpdir(dir, sizeof dir, "tf");
    ck_assert_int_eq(mmtb_table_write_manifest(dir, v, &s, 1, err, sizeof err), MMTB_OK);
    uint64_t slots = mmtb_index_slots(ix, s);
    ck_assert_int_eq(mmtb_table_write_sector(dir, v, s, slots, dtw_fill, &pt, NULL, NULL, err,
                                             sizeof err),
                     MMTB_OK);
    mmtb_tb *tb = NULL;
    ck_assert_int_eq(mmtb_tb_open(&tb, dir, NULL), MMTB_OK);
    uint8_t *code = malloc(slots);
    struct vdeep deep;
    ck_assert_int_eq(gen_read_coded(tb, s, 0, slots, code, &deep, NULL, 0), MMTB_OK);
    uint64_t checked = 0, deep_seen = 0;
    for (uint64_t i = 0; i < slots; i++) {
        if (!mmtb_index_slot_is_canonical(ix, s, i))
            continue;
        uint8_t w;
        uint16_t d;
        dtw_value(i, &w, &d);
        ck_assert_int_eq(vc_wdl(code[i]), w);
        ck_assert_int_eq(vc_depth(code[i], &deep, i), d);
        deep_seen += d > VC_MAX_DEPTH && w != 1;
        checked++;
    }
    ck_assert_uint_gt(deep_seen, 50);
    ck_assert_uint_eq(deep.n, deep_seen);
    free(deep.e);
    mmtb_tb_close(tb);
    tb = NULL;
    ck_assert_int_eq(mmtb_tb_open(&tb, GOLDEN_DIR, NULL), MMTB_OK);
    ck_assert_int_eq(gen_read_coded(tb, s, 0, slots, code, &deep, NULL, 0), MMTB_ERR_CORRUPT);
    free(deep.e);
    mmtb_tb_close(tb);
    free(code);
    tl_rmdir_all(dir);
    mmtb_index_free(ix);
    mmtb_variant_free(v);
    printf("coded_reads: %llu positions, %llu deep\n", (unsigned long long)checked,
           (unsigned long long)deep_seen);
}
END_TEST

/* ---- the golden file ---------------------------------------------------- */

/* Decode a whole sector file with the format layer only and compare every
 * canonical slot with the pattern. */
static void check_pattern_file(const uint8_t *f, size_t len, const mmtb_index *ix)
{
    struct mmtb_tf_header h;
    struct mmtb_tf_layout l;
    struct mmtb_tf_footer ft;
    struct mmtb_sector s = {3, 3, 0, 0};
    const char *desc;
    ck_assert_int_eq(mmtb_tf_header_decode(f, len, &h), MMTB_OK);
    ck_assert_int_eq(mmtb_tf_layout(&h, &l), MMTB_OK);
    ck_assert_uint_eq(l.file_size, len);
    ck_assert_str_eq(h.name, "three-diag");
    ck_assert(h.sector.w == 3 && h.sector.b == 3);
    ck_assert_uint_eq(h.dtw_width, 2);
    struct mmtb_tf_block *t0 = calloc(l.nblocks[0] + 1, sizeof *t0);
    struct mmtb_tf_block *t1 = calloc(l.nblocks[1] + 1, sizeof *t1);
    ck_assert_int_eq(mmtb_tf_meta_decode(&h, &l, f + 160, mmtb_tf_meta_size(&l), &desc, NULL, t0, t1),
                     MMTB_OK);
    ck_assert_int_eq(mmtb_tf_footer_decode(f + l.footer_off, 32, &h, &ft), MMTB_OK);
    ck_assert_uint_eq(ft.file_hash, mmtb_xxh64(f, l.footer_off, 0));
    ZSTD_DCtx *d = ZSTD_createDCtx();
    uint64_t wins = 0, draws = 0, losses = 0;
    /* One block per plane at this size: the DTW entries follow the
     * decided slots of the W/D/L block in order. */
    ck_assert_uint_eq(l.nblocks[0], 1);
    ck_assert_uint_eq(l.nblocks[1], 1);
    uint8_t *wraw = malloc(t0[0].raw_size), *draw = malloc(t1[0].raw_size + 1);
    ck_assert_int_eq(mmtb_tf_block_decompress(d, f + t0[0].offset, &t0[0], wraw), MMTB_OK);
    ck_assert_int_eq(mmtb_tf_block_decompress(d, f + t1[0].offset, &t1[0], draw), MMTB_OK);
    uint64_t k = 0;
    for (uint64_t slot = 0; slot < h.slots; slot++) {
        unsigned code = mmtb_tf_wdl_get(wraw, slot);
        uint16_t depth = 0;
        if (code != MMTB_TF_DRAW)
            depth = (uint16_t)mmtb_tf_dtw_get(draw, k++, 2);
        if (ix && !mmtb_index_slot_is_canonical(ix, s, slot)) {
            ck_assert_uint_eq(code, MMTB_TF_DRAW); /* the writer's choice for unused slots */
            continue;
        }
        uint8_t w;
        uint16_t dt;
        pattern_value(slot, &w, &dt);
        ck_assert_uint_eq(code, w);
        ck_assert_uint_eq(depth, dt);
        wins += w == 2, draws += w == 1, losses += w == 0;
    }
    ck_assert_uint_eq(2 * k, t1[0].raw_size);
    free(wraw);
    free(draw);
    if (ix) {
        ck_assert_uint_eq(h.wins, wins);
        ck_assert_uint_eq(h.draws, draws);
        ck_assert_uint_eq(h.losses, losses);
    }
    ZSTD_freeDCtx(d);
    free(t0);
    free(t1);
}

START_TEST(golden_file)
{
    struct mmtb_variant *v = tl_load_variant("three-diag");
    mmtb_index *ix = NULL;
    ck_assert_int_eq(mmtb_index_create(&ix, v, 3), MMTB_OK);
    const char *gen = getenv("MMTB_WRITE_GOLDEN");
    if (gen && *gen) {
        mkdir(gen, 0777);
        write_pattern(gen, v, ix, NULL);
        char p[4096];
        size_t n;
        snprintf(p, sizeof p, "%s/3-3.mmtb", gen);
        uint8_t *f = tl_read_file(p, &n);
        fprintf(stderr, "golden written to %s: %zu bytes, GOLDEN_HASH 0x%016llxULL\n", gen, n,
                (unsigned long long)mmtb_xxh64(f, n, 0));
        free(f);
    }
    size_t n;
    uint8_t *f = tl_read_file(GOLDEN_DIR "/3-3.mmtb", &n);
    ck_assert_msg(mmtb_xxh64(f, n, 0) == GOLDEN_HASH, "golden file hash %016llx",
                  (unsigned long long)mmtb_xxh64(f, n, 0));
    /* Readable with the format layer alone, values as written. */
    struct mmtb_tf_header h;
    ck_assert_int_eq(mmtb_tf_header_decode(f, n, &h), MMTB_OK);
    bool same_variant = h.fingerprint == v->fingerprint;
    check_pattern_file(f, n, same_variant ? ix : NULL);

    /* Same variant text and zstd release: the writer reproduces the bytes. */
    if (same_variant && ZSTD_versionNumber() == GOLDEN_ZSTD) {
        char dir[64], p[4096];
        tl_make_tmpdir(dir, sizeof dir, "tf");
        write_pattern(dir, v, ix, NULL);
        snprintf(p, sizeof p, "%s/3-3.mmtb", dir);
        size_t n2;
        uint8_t *f2 = tl_read_file(p, &n2);
        ck_assert_uint_eq(n2, n);
        ck_assert_mem_eq(f2, f, n);
        free(f2);
        tl_rmdir_all(dir);
    }
    /* The committed directory opens through libmmtb too. */
    if (same_variant) {
        mmtb_tb *tb = NULL;
        mmtb_ctx *ctx = NULL;
        ck_assert_int_eq(mmtb_tb_open(&tb, GOLDEN_DIR, NULL), MMTB_OK);
        ck_assert_int_eq(mmtb_tb_verify_sector(tb, (struct mmtb_sector){3, 3, 0, 0}, NULL, 0),
                         MMTB_OK);
        ck_assert_int_eq(mmtb_ctx_create(&ctx, tb, 0), MMTB_OK);
        uint8_t w;
        uint16_t dt;
        ck_assert_int_eq(mmtb_tb_read(ctx, (struct mmtb_sector){3, 3, 0, 0}, 0, 1, &w, &dt),
                         MMTB_OK);
        mmtb_ctx_free(ctx);
        mmtb_tb_close(tb);
    }
    free(f);
    mmtb_index_free(ix);
    mmtb_variant_free(v);
}
END_TEST

/* ---- corrupt fixtures --------------------------------------------------- */

struct fixture {
    char dir[64];
    char path[4096];
    uint8_t *good;
    size_t len;
    struct mmtb_variant *v;
    mmtb_index *ix;
    uint64_t slots;
};

static void fixture_make(struct fixture *fx)
{
    fx->v = tl_load_variant("three-diag");
    ck_assert_int_eq(mmtb_index_create(&fx->ix, fx->v, 3), MMTB_OK);
    tl_make_tmpdir(fx->dir, sizeof fx->dir, "tf");
    write_pattern(fx->dir, fx->v, fx->ix, NULL);
    snprintf(fx->path, sizeof fx->path, "%s/3-3.mmtb", fx->dir);
    fx->good = tl_read_file(fx->path, &fx->len);
    fx->slots = mmtb_index_slots(fx->ix, (struct mmtb_sector){3, 3, 0, 0});
}

static void fixture_free(struct fixture *fx)
{
    tl_rmdir_all(fx->dir);
    free(fx->good);
    mmtb_index_free(fx->ix);
    mmtb_variant_free(fx->v);
}

/* Install bytes as the sector file, open the directory and read every slot.
 * Returns the first error, or MMTB_OK when every canonical value read is the
 * pattern's (a wrong value fails the test at once). */
static int try_file(struct fixture *fx, const uint8_t *bytes, size_t len, unsigned flags)
{
    write_file(fx->path, bytes, len);
    struct mmtb_tb_opts o = {0, flags, NULL, 0};
    mmtb_tb *tb = NULL;
    mmtb_ctx *ctx = NULL;
    struct mmtb_sector s = {3, 3, 0, 0};
    int rc = mmtb_tb_open(&tb, fx->dir, &o);
    ck_assert_int_eq(rc, MMTB_OK); /* the manifest is intact */
    ck_assert_int_eq(mmtb_ctx_create(&ctx, tb, 1), MMTB_OK);
    uint8_t *w = malloc(fx->slots);
    uint16_t *d = malloc(fx->slots * sizeof *d);
    rc = mmtb_tb_read(ctx, s, 0, fx->slots, w, d);
    if (rc == MMTB_OK) {
        for (uint64_t i = 0; i < fx->slots; i++) {
            if (!mmtb_index_slot_is_canonical(fx->ix, s, i))
                continue;
            uint8_t pw;
            uint16_t pd;
            pattern_value(i, &pw, &pd);
            ck_assert_msg(w[i] == pw && d[i] == pd, "slot %llu read wrong",
                          (unsigned long long)i);
        }
    }
    int rc2 = mmtb_tb_verify_sector(tb, s, NULL, 0);
    /* The whole-file check never passes a file the block reads reject. */
    ck_assert(rc == MMTB_OK || rc2 != MMTB_OK);
    /* The file hash alone passes exactly the file as written: any byte
     * changed, cut or added fails it, with the reason named. */
    char why[200] = "";
    int rc3 = mmtb_tb_verify_sector_hash(tb, s, why, sizeof why);
    bool same = len == fx->len && memcmp(bytes, fx->good, len) == 0;
    ck_assert_msg((rc3 == MMTB_OK) == same, "hash check %d on a file %s the one written: %s",
                  rc3, same ? "equal to" : "unlike", why);
    ck_assert(same || strstr(why, "3-3.mmtb") != NULL);
    if (rc == MMTB_OK)
        rc = rc2;
    free(w);
    free(d);
    mmtb_ctx_free(ctx);
    mmtb_tb_close(tb);
    return rc;
}

/* Rewrite the header hash after a deliberate change. */
static void rehash_header(uint8_t *f)
{
    uint64_t hh = mmtb_xxh64(f, 152, 0);
    for (int k = 0; k < 8; k++)
        f[152 + k] = (uint8_t)(hh >> (8 * k));
}

START_TEST(corrupt_fixtures)
{
    struct fixture fx;
    fixture_make(&fx);
    uint8_t *b = malloc(fx.len);
    ck_assert_int_eq(try_file(&fx, fx.good, fx.len, 0), MMTB_OK);

    /* Truncated anywhere (every offset: the file is small). */
    for (size_t n = 0; n < fx.len; n += 1 + (n > 200) * 3)
        ck_assert_msg(try_file(&fx, fx.good, n, 0) == MMTB_ERR_CORRUPT, "truncated at %zu", n);
    /* Bad magic. */
    memcpy(b, fx.good, fx.len);
    b[1] = 'X';
    ck_assert_int_eq(try_file(&fx, b, fx.len, 0), MMTB_ERR_CORRUPT);
    /* Newer version (hash made valid): unsupported. */
    memcpy(b, fx.good, fx.len);
    b[8] = 3;
    rehash_header(b);
    ck_assert_int_eq(try_file(&fx, b, fx.len, 0), MMTB_ERR_UNSUPPORTED);
    /* Reserved bits set, hash made valid. */
    memcpy(b, fx.good, fx.len);
    b[12] = 1;
    rehash_header(b);
    ck_assert_int_eq(try_file(&fx, b, fx.len, 0), MMTB_ERR_CORRUPT);
    /* A foreign fingerprint, hash made valid: a mismatch. */
    memcpy(b, fx.good, fx.len);
    b[16] ^= 0x5a;
    rehash_header(b);
    ck_assert_int_eq(try_file(&fx, b, fx.len, 0), MMTB_ERR_MISMATCH);
    /* Wrong block checksum in the table (table hash made valid). */
    memcpy(b, fx.good, fx.len);
    struct mmtb_tf_header h;
    struct mmtb_tf_layout l;
    ck_assert_int_eq(mmtb_tf_header_decode(b, fx.len, &h), MMTB_OK);
    mmtb_tf_layout(&h, &l);
    b[l.table_off[0] + 8] ^= 1;
    uint64_t mh = mmtb_xxh64(b + 160, mmtb_tf_meta_size(&l), 0);
    for (int k = 0; k < 8; k++)
        b[144 + k] = (uint8_t)(mh >> (8 * k));
    rehash_header(b);
    ck_assert_int_eq(try_file(&fx, b, fx.len, 0), MMTB_ERR_CORRUPT);
    /* Extra bytes at the end. */
    uint8_t *longer = malloc(fx.len + 1);
    memcpy(longer, fx.good, fx.len);
    longer[fx.len] = 0;
    ck_assert_int_eq(try_file(&fx, longer, fx.len + 1, 0), MMTB_ERR_CORRUPT);
    free(longer);

    /* Every single flipped bit anywhere: an error, never a wrong value;
     * with MMTB_OPEN_VERIFY caught when the file is opened. */
    for (size_t i = 0; i < fx.len; i++) {
        memcpy(b, fx.good, fx.len);
        b[i] ^= (uint8_t)(1u << (i % 8));
        int rc = try_file(&fx, b, fx.len, 0);
        ck_assert_msg(rc == MMTB_ERR_CORRUPT || rc == MMTB_ERR_MISMATCH ||
                          rc == MMTB_ERR_UNSUPPORTED,
                      "flip at %zu gives %d", i, rc);
        if (i % 7 == 0) {
            struct mmtb_tb_opts o = {0, MMTB_OPEN_VERIFY, NULL, 0};
            mmtb_tb *tb = NULL;
            struct mmtb_sector_stats st;
            ck_assert_int_eq(mmtb_tb_open(&tb, fx.dir, &o), MMTB_OK);
            ck_assert_int_ne(mmtb_tb_sector_stats(tb, (struct mmtb_sector){3, 3, 0, 0}, &st),
                             MMTB_OK);
            mmtb_tb_close(tb);
        }
    }
    free(b);
    fixture_free(&fx);
}
END_TEST

/* A damaged or foreign MANIFEST stops the open with a clean error. */
START_TEST(corrupt_manifest)
{
    struct fixture fx;
    fixture_make(&fx);
    char mpath[4096], err[256];
    snprintf(mpath, sizeof mpath, "%s/MANIFEST", fx.dir);
    size_t n;
    uint8_t *m = tl_read_file(mpath, &n);
    struct mmtb_tb_opts o = {0, 0, err, sizeof err};
    mmtb_tb *tb = NULL;
    for (size_t cut = 0; cut < n; cut += 5) {
        write_file(mpath, m, cut);
        ck_assert_int_eq(mmtb_tb_open(&tb, fx.dir, &o), MMTB_ERR_CORRUPT);
        ck_assert_ptr_null(tb);
        ck_assert(err[0] != 0);
    }
    /* Another variant's manifest in the directory: the writer refuses. */
    write_file(mpath, m, n);
    struct mmtb_variant *other = tl_load_variant("three");
    struct mmtb_sector s = {3, 3, 0, 0};
    ck_assert_int_eq(mmtb_table_write_manifest(fx.dir, other, &s, 1, err, sizeof err),
                     MMTB_ERR_MISMATCH);
    /* A sector file of another variant is a mismatch at first use. */
    char odir[64], opath[4096];
    tl_make_tmpdir(odir, sizeof odir, "tf");
    mmtb_index *oix = NULL;
    ck_assert_int_eq(mmtb_index_create(&oix, other, 3), MMTB_OK);
    struct pattern pt = {oix, s};
    ck_assert_int_eq(mmtb_table_write_sector(odir, other, s, mmtb_index_slots(oix, s),
                                             pattern_fill, &pt, NULL, NULL, err, sizeof err),
                     MMTB_OK);
    snprintf(opath, sizeof opath, "%s/3-3.mmtb", odir);
    copy_file(opath, fx.path);
    ck_assert_int_eq(mmtb_tb_open(&tb, fx.dir, NULL), MMTB_OK);
    ck_assert_int_eq(mmtb_tb_sector_stats(tb, s, NULL), MMTB_ERR_MISMATCH);
    struct mmtb_sector_info info;
    ck_assert_int_eq(mmtb_tb_sector_info(tb, 0, &info), MMTB_OK);
    ck_assert_int_eq(info.status, MMTB_ERR_MISMATCH);
    ck_assert(strstr(info.detail, "three") != NULL);
    mmtb_tb_close(tb);
    tl_rmdir_all(odir);
    mmtb_index_free(oix);
    mmtb_variant_free(other);
    free(m);
    fixture_free(&fx);
}
END_TEST

/* ---- blocks made elsewhere (split pairs) ---------------------------------- */

/* A block source that makes every block of a plane with
 * mmtb_table_make_blocks when the plane starts and hands over those of the
 * odd runs of 4,096 slots; `damage` flips a byte of the bytes it hands
 * over (keeping the hashes it reports). */
struct far_src {
    const struct mmtb_variant *v;
    struct pattern pt;
    uint64_t slots;
    const struct mmtb_write_opts *wo;
    uint8_t *bytes;
    struct mmtb_made_block *made;
    uint64_t *at, nblocks;
    int plane, starts, gets;
    bool damage;
};

static bool far_remote(void *ctx, uint64_t first_slot)
{
    (void)ctx;
    return (first_slot >> 12) & 1;
}

static int far_plane_start(void *ctx, int plane, int dtw_width)
{
    struct far_src *f = ctx;
    free(f->bytes);
    free(f->made);
    free(f->at);
    int log = plane ? f->wo->dtw_block_log2 : f->wo->wdl_block_log2;
    f->nblocks = plane && !dtw_width ? 0 : (f->slots + ((uint64_t)1 << log) - 1) >> log;
    f->made = calloc(f->nblocks + 1, sizeof *f->made);
    f->at = calloc(f->nblocks + 1, sizeof *f->at);
    ck_assert(f->made && f->at);
    f->plane = plane;
    f->starts++;
    int rc = mmtb_table_make_blocks(f->v, f->pt.s, f->slots, pattern_fill, &f->pt, f->wo, plane,
                                    dtw_width, 0, f->nblocks, &f->bytes, f->made);
    for (uint64_t k = 0; rc == MMTB_OK && k < f->nblocks; k++)
        f->at[k + 1] = f->at[k] + f->made[k].csize;
    return rc;
}

static int far_get(void *ctx, int plane, uint64_t b, uint64_t n, uint8_t *buf, size_t bound,
                   struct mmtb_made_block *made)
{
    struct far_src *f = ctx;
    ck_assert_int_eq(plane, f->plane);
    ck_assert(b + n <= f->nblocks);
    for (uint64_t k = 0; k < n; k++) {
        made[k] = f->made[b + k];
        ck_assert(made[k].csize <= bound);
        memcpy(buf + k * bound, f->bytes + f->at[b + k], made[k].csize);
        if (f->damage && made[k].csize > 8)
            buf[k * bound + made[k].csize / 2] ^= 0x20;
        f->gets++;
    }
    return MMTB_OK;
}

START_TEST(blocks_made_elsewhere)
{
    struct mmtb_variant *v = tl_load_variant("nine");
    mmtb_index *ix = NULL;
    ck_assert_int_eq(mmtb_index_create(&ix, v, 3), MMTB_OK);
    struct mmtb_sector s = {3, 3, 0, 0};
    uint64_t slots = mmtb_index_slots(ix, s);
    struct pattern pt = {ix, s};
    char d1[64], d2[64], d3[64], p1[4096], p2[4096], p3[4096], err[512] = "";
    tl_make_tmpdir(d1, sizeof d1, "tf");
    tl_make_tmpdir(d2, sizeof d2, "tf");
    tl_make_tmpdir(d3, sizeof d3, "tf");
    /* W/D/L and DTW blocks of 1,024 slots: both planes have
     * blocks on both sides of every 4,096-slot boundary */
    struct mmtb_write_opts wo = {.zstd_level = 3, .wdl_block_log2 = 10, .dtw_block_log2 = 10};
    struct mmtb_sector_stats st1, st2;
    ck_assert_msg(mmtb_table_write_sector(d1, v, s, slots, pattern_fill, &pt, &wo, &st1, err,
                                          sizeof err) == MMTB_OK,
                  "%s", err);
    struct far_src f = {v, pt, slots, &wo, NULL, NULL, NULL, 0, 0, 0, 0, false};
    struct mmtb_block_source src = {&f, far_remote, far_plane_start, far_get};
    struct mmtb_write_opts wo2 = wo;
    wo2.remote = &src;
    ck_assert_msg(mmtb_table_write_sector(d2, v, s, slots, pattern_fill, &pt, &wo2, &st2, err,
                                          sizeof err) == MMTB_OK,
                  "%s", err);
    ck_assert_int_eq(f.starts, 2);
    ck_assert_msg(f.gets > 100, "%d blocks made elsewhere", f.gets);
    ck_assert(st1.canonical == st2.canonical && st1.wins == st2.wins &&
              st1.losses == st2.losses && st1.max_win == st2.max_win);
    snprintf(p1, sizeof p1, "%s/3-3.mmtb", d1);
    snprintf(p2, sizeof p2, "%s/3-3.mmtb", d2);
    size_t n1, n2;
    uint8_t *f1 = tl_read_file(p1, &n1), *f2 = tl_read_file(p2, &n2);
    ck_assert_msg(n1 == n2 && memcmp(f1, f2, n1) == 0, "the files differ (%zu, %zu bytes)", n1,
                  n2);
    /* a block damaged on its way: the read-back refuses the file */
    f.damage = true;
    int rc = mmtb_table_write_sector(d3, v, s, slots, pattern_fill, &pt, &wo2, NULL, err,
                                     sizeof err);
    snprintf(p3, sizeof p3, "%s/3-3.mmtb", d3);
    struct stat sb;
    ck_assert_msg(rc == MMTB_ERR_CORRUPT && stat(p3, &sb) != 0, "rc %d: %s", rc, err);
    free(f1);
    free(f2);
    free(f.bytes);
    free(f.made);
    free(f.at);
    tl_rmdir_all(d1);
    tl_rmdir_all(d2);
    tl_rmdir_all(d3);
    mmtb_index_free(ix);
    mmtb_variant_free(v);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("tablefile");
    TCase *tc = tcase_create("encoding");
    tcase_add_test(tc, xxh64_known);
    tcase_add_test(tc, header_round_trip);
    tcase_add_test(tc, header_rejects);
    tcase_add_test(tc, count_table);
    tcase_add_test(tc, pack_wdl_round_trip);
    tcase_add_test(tc, pack_dtw_round_trip);
    tcase_add_test(tc, block_round_trips);
    tcase_add_test(tc, sector_names);
    tcase_add_test(tc, manifest_round_trip);
    tcase_add_test(tc, manifest_rejects);
    suite_add_tcase(s, tc);
    tc = tcase_create("files");
    tcase_set_timeout(tc, 240);
    tcase_add_test(tc, golden_file);
    tcase_add_test(tc, coded_reads);
    tcase_add_test(tc, corrupt_fixtures);
    tcase_add_test(tc, corrupt_manifest);
    tcase_add_test(tc, blocks_made_elsewhere);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
