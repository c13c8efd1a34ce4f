/*
 * check_probe.c - tests of libmmtb (probe/lib) on tables written by the
 * writer (gen/tablewrite.c): bulk reads and probes of every position and
 * every symmetric image against known values (synthetic patterns, and the
 * nine 3-3 sector solved by the naive oracle in testlib_naive.c, which must
 * match the published counts), the move-value convention (a stored value
 * equals its best move's), pending removals, principal variations, a tiny
 * cache, two threads with their own contexts, thread-count independent
 * output, and the errors: missing sector, sector outside the game, invalid
 * positions, empty and nonexistent directories.
 */
#include <check.h>
#include <dirent.h>
#include <omp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mmtb.h"
#include "mmtb_integrity.h"
#include "movegen.h"
#include "notation.h"
#include "ban_index.h"
#include "sector_index.h"
#include "tablefile.h"
#include "tablewrite.h"
#include "testlib_naive.h"
#include "variant.h"
#include "testlib_util.h"

#define BIT(i) (UINT32_C(1) << (i))

/* The move-list checks of nine_33_solved look at every position, or at
 * every third one in sanitizer builds (still about 57,000). */
#if defined(__SANITIZE_ADDRESS__)
#define MOVES_STRIDE 3
#else
#define MOVES_STRIDE 1
#endif

/* ---- helpers ------------------------------------------------------------ */

static struct mmtb_pos make_pos(uint32_t mover, uint32_t opp, int side)
{
    struct mmtb_pos p;
    memset(&p, 0, sizeof p);
    p.stones[side] = mover;
    p.stones[side ^ 1] = opp;
    p.side = (uint8_t)side;
    p.ban_from = p.ban_to = -1;
    return p;
}

static mmtb_tb *open_tb(const char *dir)
{
    char err[256] = "";
    struct mmtb_tb_opts o = {0, 0, err, sizeof err};
    mmtb_tb *tb = NULL;
    int rc = mmtb_tb_open(&tb, dir, &o);
    ck_assert_msg(rc == MMTB_OK, "open %s: %d %s", dir, rc, err);
    return tb;
}

static bool same_value(const struct mmtb_value *a, const struct mmtb_value *b)
{
    return a->wdl == b->wdl && a->dtw == b->dtw;
}

/* ---- patterned values --------------------------------------------------- */

/* Values of slot i of a synthetic sector: a mix of runs and scatter, depths
 * below 200 (one-byte DTW plane). */
static void pattern_value(uint64_t i, uint8_t *wdl, uint16_t *dtw)
{
    uint64_t h = (i * 0x9E3779B97F4A7C15ULL) >> 40;
    unsigned c = (i / 11) % 5 == 0 ? (unsigned)(h % 3) : (unsigned)((i / 400) % 3);
    *wdl = (uint8_t)c;
    *dtw = c == 2 ? (uint16_t)(1 + h % 150) : c == 0 ? (uint16_t)(h % 180) : 0;
}

struct pattern {
    const mmtb_index *ix;
    struct mmtb_sector s;
};

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

/* Expected probe answer for a stored position under the pattern. */
static struct mmtb_value pattern_expect(const struct mmtb_variant *v, const struct mmtb_pos *p,
                                        uint64_t slot)
{
    struct mmtb_value e;
    int t = mmtb_pos_terminal(v, p);
    if (t == MMTB_LOSS) {
        e.wdl = MMTB_LOSS;
        e.dtw = 0;
        return e;
    }
    if (t == MMTB_DRAW) {
        e.wdl = MMTB_DRAW;
        e.dtw = -1;
        return e;
    }
    uint8_t w;
    uint16_t d;
    pattern_value(slot, &w, &d);
    e.wdl = (int)w - 1;
    e.dtw = w == 1 ? -1 : d;
    return e;
}

/* Every canonical slot of sector s read into w, d holds the pattern;
 * returns how many there are. */
static uint64_t check_pattern_read(const mmtb_index *ix, struct mmtb_sector s, uint64_t slots,
                                   const uint8_t *w, const uint16_t *d)
{
    uint64_t canon = 0;
    for (uint64_t i = 0; i < slots; i++) {
        ck_assert_uint_le(w[i], 2);
        if (!mmtb_index_slot_is_canonical(ix, s, i))
            continue;
        canon++;
        uint8_t pw;
        uint16_t pd;
        pattern_value(i, &pw, &pd);
        ck_assert_uint_eq(w[i], pw);
        ck_assert_uint_eq(d[i], pd);
    }
    return canon;
}

/* Write a pattern sector (and a manifest listing `game`) into dir. */
static void write_pattern(const char *dir, const struct mmtb_variant *v, const mmtb_index *ix,
                          struct mmtb_sector s, const struct mmtb_sector *game, int ngame,
                          int block_log2)
{
    struct pattern pt = {ix, s};
    struct mmtb_write_opts wo = {.wdl_block_log2 = block_log2, .dtw_block_log2 = block_log2};
    char err[256] = "";
    int rc = mmtb_table_write_manifest(dir, v, game, ngame, err, sizeof err);
    ck_assert_msg(rc == MMTB_OK, "manifest: %s", err);
    rc = mmtb_table_write_sector(dir, v, s, mmtb_index_slots(ix, s), pattern_fill, &pt, &wo, NULL,
                                 err, sizeof err);
    ck_assert_msg(rc == MMTB_OK, "write: %s", err);
}

/* ---- synthetic tables --------------------------------------------------- */

/* three-diag 3-3: every slot read back in bulk, every canonical position
 * probed as White and as Black to move, under every symmetry. */
START_TEST(synthetic_every_position)
{
    struct mmtb_variant *v0 = tl_load_variant("three-diag");
    mmtb_index *ix0 = NULL;
    ck_assert_int_eq(mmtb_index_create(&ix0, v0, 3), MMTB_OK);
    struct mmtb_sector s = {3, 3, 0, 0};
    char dir[64];
    tl_make_tmpdir(dir, sizeof dir, "probe");
    write_pattern(dir, v0, ix0, s, &s, 1, 0);

    mmtb_tb *tb = open_tb(dir);
    const struct mmtb_variant *v = mmtb_tb_variant(tb);
    const mmtb_index *ix = mmtb_tb_index(tb);
    ck_assert_ptr_nonnull(ix);
    ck_assert_uint_eq(v->fingerprint, v0->fingerprint);
    ck_assert_int_eq(mmtb_tb_sector_count(tb), 1);
    ck_assert_int_eq(mmtb_tb_sector_find(tb, s), 0);
    mmtb_ctx *ctx = NULL;
    ck_assert_int_eq(mmtb_ctx_create(&ctx, tb, 0), MMTB_OK);

    uint64_t slots = mmtb_index_slots(ix, s), canon;
    uint8_t *w = malloc(slots), *w2 = malloc(slots);
    uint16_t *d = malloc(slots * sizeof *d);
    ck_assert_int_eq(mmtb_tb_read(ctx, s, 0, slots, w, d), MMTB_OK);
    ck_assert_int_eq(mmtb_tb_read(ctx, s, 0, slots, w2, NULL), MMTB_OK);
    ck_assert_mem_eq(w, w2, slots);
    canon = check_pattern_read(ix, s, slots, w, d);
    /* Statistics from the header. */
    struct mmtb_sector_stats st;
    ck_assert_int_eq(mmtb_tb_sector_stats(tb, s, &st), MMTB_OK);
    ck_assert_uint_eq(st.slots, slots);
    ck_assert_uint_eq(st.canonical, canon);
    ck_assert_uint_eq(st.canonical, mmtb_index_canonical(v, s));
    struct mmtb_sector_info info;
    ck_assert_int_eq(mmtb_tb_sector_info(tb, 0, &info), MMTB_OK);
    ck_assert_int_eq(info.status, MMTB_OK);
    ck_assert_int_eq(info.dtw_width, 1);
    ck_assert_uint_eq(info.stats.wins, st.wins);
    ck_assert_int_eq(mmtb_tb_sector_info(tb, 1, &info), MMTB_ERR_INVALID);
    struct mmtb_sector key;
    ck_assert_int_eq(mmtb_tb_sector_key(tb, 0, &key), MMTB_OK);
    ck_assert(memcmp(&key, &s, sizeof key) == 0); /* the sector written above */
    ck_assert_int_eq(mmtb_tb_sector_key(tb, 1, &key), MMTB_ERR_INVALID);
    ck_assert_int_eq(mmtb_tb_sector_key(tb, -1, &key), MMTB_ERR_INVALID);

    /* Sub-ranges agree with the whole. */
    for (uint64_t first = 0; first < slots; first += 37) {
        uint8_t ww[50];
        uint16_t dd[50];
        uint64_t n = slots - first < 50 ? slots - first : 50;
        ck_assert_int_eq(mmtb_tb_read(ctx, s, first, n, ww, dd), MMTB_OK);
        ck_assert_mem_eq(ww, w + first, n);
        ck_assert_mem_eq(dd, d + first, n * sizeof *dd);
    }
    ck_assert_int_eq(mmtb_tb_read(ctx, s, slots, 0, w, d), MMTB_OK);
    ck_assert_int_eq(mmtb_tb_read(ctx, s, slots - 1, 2, w, d), MMTB_ERR_INVALID);
    ck_assert_int_eq(mmtb_tb_read(ctx, s, UINT64_MAX, 2, w, d), MMTB_ERR_INVALID);

    /* Probes: every canonical position, both colours, every symmetry. */
    uint64_t probes = 0;
    for (uint64_t i = 0; i < slots; i++) {
        if (!mmtb_index_slot_is_canonical(ix, s, i))
            continue;
        uint32_t m, o;
        mmtb_index_unrank(ix, s, i, &m, &o);
        for (int g = 0; g < v->nsyms; g++)
            for (int side = 0; side < 2; side++) {
                struct mmtb_pos p =
                    make_pos(mmtb_sym_apply(v, g, m), mmtb_sym_apply(v, g, o), side);
                struct mmtb_value got, want = pattern_expect(v, &p, i);
                int wdl;
                ck_assert_int_eq(mmtb_probe(ctx, &p, &got), MMTB_OK);
                ck_assert_msg(same_value(&got, &want), "slot %llu sym %d: %d/%d, want %d/%d",
                              (unsigned long long)i, g, got.wdl, got.dtw, want.wdl, want.dtw);
                ck_assert_int_eq(mmtb_probe_wdl(ctx, &p, &wdl), MMTB_OK);
                ck_assert_int_eq(wdl, want.wdl);
                probes++;
            }
    }
    ck_assert_uint_eq(probes, canon * 2 * (uint64_t)v->nsyms);

    free(w);
    free(w2);
    free(d);
    mmtb_ctx_free(ctx);
    mmtb_tb_close(tb);
    tl_rmdir_all(dir);
    mmtb_index_free(ix0);
    mmtb_variant_free(v0);
}
END_TEST

/* Draws, wins and losses that keep to the rules in the canonical slots of
 * a sector, but one value against them at slot 1000 (kind 0: a win in 0
 * plies, 1: a draw with a depth, 2: a code above 3; 3: none). */
struct bad_ctx {
    int kind;
    const mmtb_index *ix;
    struct mmtb_sector s;
};

static void bad_fill(void *ctx, uint64_t first, uint64_t count, uint8_t *wdl, uint16_t *dtw)
{
    const struct bad_ctx *b = ctx;
    for (uint64_t k = 0; k < count; k++) {
        uint64_t i = first + k;
        wdl[k] = i % 7 == 0 ? 2 : i % 11 == 0 ? 0 : 1;
        dtw[k] = (uint16_t)(i % 7 == 0 ? 2 * (i % 5) + 1 : i % 11 == 0 ? 2 * (i % 3) : 0);
        if (!mmtb_index_slot_is_canonical(b->ix, b->s, i))
            wdl[k] = 3, dtw[k] = 0;
        if (i == 1000 && b->kind < 3) {
            wdl[k] = (uint8_t)(b->kind == 0 ? 2 : b->kind == 1 ? 1 : 4);
            dtw[k] = (uint16_t)(b->kind == 1 ? 6 : 0);
        }
    }
}

/* Errors: sectors missing or outside the game, invalid positions, bad
 * directories. */
START_TEST(errors)
{
    struct mmtb_variant *v = tl_load_variant("nine");
    mmtb_index *ix = NULL;
    ck_assert_int_eq(mmtb_index_create(&ix, v, 4), MMTB_OK);
    struct mmtb_sector game[3] = {{3, 3, 0, 0}, {4, 3, 0, 0}, {3, 4, 0, 0}};
    char dir[64], err[256];
    tl_make_tmpdir(dir, sizeof dir, "probe");
    write_pattern(dir, v, ix, game[0], game, 3, 0);
    mmtb_tb *tb = open_tb(dir);
    mmtb_ctx *ctx = NULL;
    ck_assert_int_eq(mmtb_ctx_create(&ctx, tb, 0), MMTB_OK);
    struct mmtb_value val;
    struct mmtb_pos p = make_pos(BIT(0) | BIT(1) | BIT(3) | BIT(9), BIT(4) | BIT(10) | BIT(20), 0);
    ck_assert_int_eq(mmtb_probe(ctx, &p, &val), MMTB_ERR_MISSING);
    ck_assert_int_eq(mmtb_tb_sector_stats(tb, game[1], NULL), MMTB_ERR_MISSING);
    struct mmtb_sector_info info;
    ck_assert_int_eq(mmtb_tb_sector_info(tb, 1, &info), MMTB_OK);
    ck_assert_int_eq(info.status, MMTB_ERR_MISSING);
    ck_assert(strstr(info.detail, "4-3.mmtb") != NULL);
    uint8_t w;
    ck_assert_int_eq(mmtb_tb_read(ctx, game[1], 0, 1, &w, NULL), MMTB_ERR_MISSING);
    p.stones[1] |= BIT(21);
    ck_assert_int_eq(mmtb_probe(ctx, &p, &val), MMTB_ERR_NOT_IN_GAME);
    ck_assert_int_eq(mmtb_tb_sector_find(tb, (struct mmtb_sector){4, 4, 0, 0}),
                     MMTB_ERR_NOT_IN_GAME);
    ck_assert_int_eq(mmtb_tb_read(ctx, (struct mmtb_sector){4, 4, 0, 0}, 0, 1, &w, NULL),
                     MMTB_ERR_NOT_IN_GAME);
    ck_assert_int_eq(mmtb_tb_verify_sector(tb, (struct mmtb_sector){4, 4, 0, 0}, err, sizeof err),
                     MMTB_ERR_NOT_IN_GAME);
    /* Overlapping colours, stones off the board: invalid. */
    p = make_pos(BIT(0) | BIT(1) | BIT(2), BIT(2) | BIT(5) | BIT(6), 0);
    ck_assert_int_eq(mmtb_probe(ctx, &p, &val), MMTB_ERR_INVALID);
    p = make_pos(BIT(0) | BIT(1) | BIT(30), BIT(5) | BIT(6) | BIT(7), 0);
    ck_assert_int_eq(mmtb_probe(ctx, &p, &val), MMTB_ERR_INVALID);
    ck_assert_int_eq(mmtb_probe(ctx, NULL, &val), MMTB_ERR_INVALID);
    /* A Twelve Men's ban means nothing in nine: invalid. */
    p = make_pos(BIT(0) | BIT(1) | BIT(3), BIT(5) | BIT(6) | BIT(7), 0);
    p.ban_from = 0;
    p.ban_to = 2;
    ck_assert_int_eq(mmtb_probe(ctx, &p, &val), MMTB_ERR_INVALID);

    /* A sector written after the open is found (missing is not cached). */
    struct pattern pt = {ix, game[1]};
    ck_assert_int_eq(mmtb_table_write_sector(dir, v, game[1], mmtb_index_slots(ix, game[1]),
                                             pattern_fill, &pt, NULL, NULL, err, sizeof err),
                     MMTB_OK);
    p = make_pos(BIT(0) | BIT(1) | BIT(3) | BIT(9), BIT(4) | BIT(10) | BIT(20), 0);
    ck_assert_int_eq(mmtb_probe(ctx, &p, &val), MMTB_OK);
    mmtb_ctx_free(ctx);
    mmtb_tb_close(tb);

    /* The manifest now records both files; a replaced file is caught. */
    char path[4096], path2[4096];
    snprintf(path, sizeof path, "%s/3-4.mmtb", dir);
    snprintf(path2, sizeof path2, "%s/4-3.mmtb", dir);
    ck_assert_int_eq(rename(path2, path), 0);
    tb = open_tb(dir);
    ck_assert_int_eq(mmtb_tb_sector_stats(tb, game[2], NULL), MMTB_ERR_CORRUPT);
    mmtb_tb_close(tb);

    /* Directories: nonexistent, not a directory, empty. */
    mmtb_tb *t2 = (mmtb_tb *)&err; /* must be reset to NULL */
    struct mmtb_tb_opts o = {0, 0, err, sizeof err};
    ck_assert_int_eq(mmtb_tb_open(&t2, "/nonexistent/mmtb", &o), MMTB_ERR_IO);
    ck_assert_ptr_null(t2);
    ck_assert(strstr(err, "/nonexistent/mmtb") != NULL);
    ck_assert_int_eq(mmtb_tb_open(&t2, "/etc/passwd", &o), MMTB_ERR_IO);
    char empty[64];
    tl_make_tmpdir(empty, sizeof empty, "probe");
    ck_assert_int_eq(mmtb_tb_open(&t2, empty, &o), MMTB_ERR_MISSING);
    ck_assert_ptr_null(t2);
    ck_assert(strstr(err, "MANIFEST") != NULL);
    ck_assert_int_eq(mmtb_tb_open(&t2, NULL, NULL), MMTB_ERR_INVALID);
    ck_assert_int_eq(mmtb_tb_open(NULL, empty, NULL), MMTB_ERR_INVALID);
    mmtb_tb_close(NULL);
    mmtb_ctx_free(NULL);
    tl_rmdir_all(empty);

    /* The writer refuses values that break the rules, and leaves no file. */
    struct mmtb_sector s44 = {4, 4, 0, 0};
    ck_assert(mmtb_index_slot_is_canonical(ix, s44, 1000));
    for (int kind = 0; kind < 3; kind++) {
        struct bad_ctx bc = {kind, ix, s44};
        ck_assert_int_eq(mmtb_table_write_sector(dir, v, s44, mmtb_index_slots(ix, s44),
                                                 bad_fill, &bc, NULL, NULL, err, sizeof err),
                         MMTB_ERR_INVALID);
        ck_assert(strstr(err, "4-4.mmtb.tmp") != NULL);
        snprintf(path, sizeof path, "%s/4-4.mmtb.tmp", dir);
        ck_assert_int_ne(access(path, F_OK), 0);
        snprintf(path, sizeof path, "%s/4-4.mmtb", dir);
        ck_assert_int_ne(access(path, F_OK), 0);
    }
    /* the same values without the bad one are written */
    struct bad_ctx good = {3, ix, s44};
    ck_assert_msg(mmtb_table_write_sector(dir, v, s44, mmtb_index_slots(ix, s44), bad_fill, &good,
                                          NULL, NULL, err, sizeof err) == MMTB_OK,
                  "%s", err);
    ck_assert_int_eq(access(path, F_OK), 0);
    tl_rmdir_all(dir);
    mmtb_index_free(ix);
    mmtb_variant_free(v);
}
END_TEST

/* Write sector s of nine with patterned values under n threads; return the
 * file's bytes. */
static uint8_t *write_with_threads(int n, const struct mmtb_variant *v, const mmtb_index *ix,
                                   struct mmtb_sector s, size_t *len)
{
    char dir[64], path[4096], err[256];
    tl_make_tmpdir(dir, sizeof dir, "probe");
    omp_set_num_threads(n);
    struct pattern pt = {ix, s};
    struct mmtb_write_opts wo = {.zstd_level = 3, .wdl_block_log2 = 10, .dtw_block_log2 = 10};
    ck_assert_int_eq(mmtb_table_write_sector(dir, v, s, mmtb_index_slots(ix, s), pattern_fill, &pt,
                                             &wo, NULL, err, sizeof err),
                     MMTB_OK);
    snprintf(path, sizeof path, "%s/%u-%u.mmtb", dir, s.w, s.b);
    uint8_t *b = tl_read_file(path, len);
    tl_rmdir_all(dir);
    return b;
}

START_TEST(thread_count_independent)
{
    struct mmtb_variant *v = tl_load_variant("nine");
    mmtb_index *ix = NULL;
    ck_assert_int_eq(mmtb_index_create(&ix, v, 4), MMTB_OK);
    struct mmtb_sector s = {4, 3, 0, 0};
    size_t n1, n2, n3;
    uint8_t *a = write_with_threads(1, v, ix, s, &n1);
    uint8_t *b = write_with_threads(2, v, ix, s, &n2);
    uint8_t *c = write_with_threads(3, v, ix, s, &n3);
    ck_assert_uint_eq(n1, n2);
    ck_assert_uint_eq(n1, n3);
    ck_assert_mem_eq(a, b, n1);
    ck_assert_mem_eq(a, c, n1);
    free(a);
    free(b);
    free(c);
    mmtb_index_free(ix);
    mmtb_variant_free(v);
}
END_TEST

/* Every canonical slot a draw, or (with ctx) a loss in 0 at every slot
 * whose number is a multiple of 7: no depth above 0, so no DTW plane. */
static void flat_fill(void *ctx, uint64_t first, uint64_t count, uint8_t *wdl, uint16_t *dtw)
{
    const struct pattern *pt = ctx;
    for (uint64_t k = 0; k < count; k++) {
        bool canon = mmtb_index_slot_is_canonical(pt->ix, pt->s, first + k);
        wdl[k] = !canon ? 3 : (first + k) % 7 == 0 ? 0 : 1;
        dtw[k] = 0;
    }
}

/* A sector without a DTW plane has its block tables end, and its W/D/L
 * data start, earlier than the writer first assumes: the plane is written
 * again in its place, and the file reads back whole. */
START_TEST(no_dtw_plane)
{
    struct mmtb_variant *v = tl_load_variant("nine");
    mmtb_index *ix = NULL;
    ck_assert_int_eq(mmtb_index_create(&ix, v, 4), MMTB_OK);
    struct mmtb_sector s = {4, 3, 0, 0};
    char dir[64], err[256] = "";
    tl_make_tmpdir(dir, sizeof dir, "probe");
    ck_assert_int_eq(mmtb_table_write_manifest(dir, v, &s, 1, err, sizeof err), MMTB_OK);
    struct pattern pt = {ix, s};
    struct mmtb_write_opts wo = {.wdl_block_log2 = 10, .dtw_block_log2 = 10};
    int rc = mmtb_table_write_sector(dir, v, s, mmtb_index_slots(ix, s), flat_fill, &pt, &wo,
                                     NULL, err, sizeof err);
    ck_assert_msg(rc == MMTB_OK, "write: %s", err);
    mmtb_tb *tb = open_tb(dir);
    struct mmtb_sector_info info;
    ck_assert_int_eq(mmtb_tb_sector_info(tb, 0, &info), MMTB_OK);
    ck_assert_int_eq(info.status, MMTB_OK);
    ck_assert_int_eq(info.dtw_width, 0);
    uint64_t slots = mmtb_index_slots(ix, s), losses = 0, draws = 0;
    uint8_t *w = malloc(slots);
    uint16_t *d = malloc(slots * sizeof *d);
    mmtb_ctx *ctx = NULL;
    ck_assert_int_eq(mmtb_ctx_create(&ctx, tb, 0), MMTB_OK);
    ck_assert_int_eq(mmtb_tb_read(ctx, s, 0, slots, w, d), MMTB_OK);
    for (uint64_t i = 0; i < slots; i++) {
        if (!mmtb_index_slot_is_canonical(ix, s, i))
            continue;
        ck_assert_uint_eq(w[i], i % 7 == 0 ? 0 : 1);
        ck_assert_uint_eq(d[i], 0);
        losses += i % 7 == 0;
        draws += i % 7 != 0;
    }
    ck_assert_uint_eq(info.stats.losses, losses);
    ck_assert_uint_eq(info.stats.draws, draws);
    ck_assert_uint_eq(info.stats.wins, 0);
    mmtb_ctx_free(ctx);
    free(w);
    free(d);
    mmtb_tb_close(tb);
    tl_rmdir_all(dir);
    mmtb_index_free(ix);
    mmtb_variant_free(v);
}
END_TEST

/* ---- threads and a tiny cache ------------------------------------------- */

struct worker {
    const mmtb_tb *tb;
    size_t cache;
    uint64_t seed;
    int n;
    struct mmtb_pos *pos;
    struct mmtb_value *out;
    int rc;
};

/* Probe the positions in a random order (each thread its own), storing the
 * answers by position. */
static void *worker_run(void *arg)
{
    struct worker *wk = arg;
    mmtb_ctx *ctx = NULL;
    wk->rc = mmtb_ctx_create(&ctx, wk->tb, wk->cache);
    uint64_t x = wk->seed;
    for (int k = 0; k < wk->n && wk->rc == MMTB_OK; k++) {
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        int i = (int)((x >> 33) % (uint64_t)wk->n);
        wk->rc = mmtb_probe(ctx, &wk->pos[i], &wk->out[i]);
        if (wk->rc == MMTB_OK && k % 3 == 0)
            wk->rc = mmtb_probe(ctx, &wk->pos[k], &wk->out[k]);
    }
    mmtb_ctx_free(ctx);
    return NULL;
}

/* Two workers on tb with one-byte caches (seeds 1 and 2) over pos[0..n):
 * answers into o1 and o2; both must succeed. */
static void two_workers(const mmtb_tb *tb, struct mmtb_pos *pos, int n, struct mmtb_value *o1,
                        struct mmtb_value *o2)
{
    struct worker w1 = {tb, 1, 1, n, pos, o1, 0}, w2 = {tb, 1, 2, n, pos, o2, 0};
    pthread_t t1, t2;
    ck_assert_int_eq(pthread_create(&t1, NULL, worker_run, &w1), 0);
    ck_assert_int_eq(pthread_create(&t2, NULL, worker_run, &w2), 0);
    pthread_join(t1, NULL);
    pthread_join(t2, NULL);
    ck_assert_int_eq(w1.rc, MMTB_OK);
    ck_assert_int_eq(w2.rc, MMTB_OK);
}

START_TEST(threads_and_tiny_cache)
{
    struct mmtb_variant *v0 = tl_load_variant("nine");
    mmtb_index *ix0 = NULL;
    ck_assert_int_eq(mmtb_index_create(&ix0, v0, 3), MMTB_OK);
    struct mmtb_sector s = {3, 3, 0, 0};
    char dir[64];
    tl_make_tmpdir(dir, sizeof dir, "probe");
    write_pattern(dir, v0, ix0, s, &s, 1, 10); /* 1024-slot blocks: ~170 of them */

    /* Positions: canonical ones under random symmetries and colours. */
    mmtb_tb *tb = open_tb(dir); /* fresh: both threads race to open the sector */
    const struct mmtb_variant *v = mmtb_tb_variant(tb);
    uint64_t slots = mmtb_index_slots(ix0, s);
    enum { N = 40000 };
    struct mmtb_pos *pos = malloc(N * sizeof *pos);
    struct mmtb_value *want = malloc(N * sizeof *want);
    uint64_t x = 12345;
    for (int k = 0; k < N; k++) {
        uint64_t slot;
        do {
            x = x * 6364136223846793005ULL + 1442695040888963407ULL;
            slot = (x >> 20) % slots;
        } while (!mmtb_index_slot_is_canonical(ix0, s, slot));
        uint32_t m, o;
        mmtb_index_unrank(ix0, s, slot, &m, &o);
        int g = (int)((x >> 8) % (uint64_t)v->nsyms);
        pos[k] = make_pos(mmtb_sym_apply(v, g, m), mmtb_sym_apply(v, g, o), (int)(x & 1));
        want[k] = pattern_expect(v, &pos[k], slot);
    }
    struct mmtb_value *o1 = calloc(N, sizeof *o1), *o2 = calloc(N, sizeof *o2);
    two_workers(tb, pos, N, o1, o2);
    /* Every position was probed by each thread at least once (k % 3 == 0
     * covers a third, the random order the rest); compare what was set. */
    for (int k = 0; k < N; k++) {
        if (k % 3 == 0) {
            ck_assert(same_value(&o1[k], &want[k]));
            ck_assert(same_value(&o2[k], &want[k]));
        }
        if (o1[k].wdl || o1[k].dtw)
            ck_assert(same_value(&o1[k], &want[k]));
        if (o2[k].wdl || o2[k].dtw)
            ck_assert(same_value(&o2[k], &want[k]));
    }
    /* A single context with a large cache agrees, and keeps every block it
     * read; one with a budget of a few blocks never holds more than it. */
    mmtb_ctx *ctx = NULL, *small = NULL;
    const size_t budget = 3000; /* a W/D/L block of 1024 slots costs 256 + 20 bytes */
    ck_assert_int_eq(mmtb_ctx_create(&ctx, tb, 64 << 20), MMTB_OK);
    ck_assert_int_eq(mmtb_ctx_create(&small, tb, budget), MMTB_OK);
    size_t bytes = 1, blocks = 1, most = 0;
    mmtb_ctx_cache_usage(small, &bytes, &blocks);
    ck_assert(bytes == 0 && blocks == 0);
    for (int k = 0; k < N; k += 7) {
        struct mmtb_value got;
        ck_assert_int_eq(mmtb_probe(ctx, &pos[k], &got), MMTB_OK);
        ck_assert(same_value(&got, &want[k]));
        ck_assert_int_eq(mmtb_probe(small, &pos[k], &got), MMTB_OK);
        ck_assert(same_value(&got, &want[k]));
        mmtb_ctx_cache_usage(small, &bytes, &blocks);
        ck_assert_uint_le(bytes, budget);
        ck_assert_uint_ge(blocks, 1);
        most = bytes > most ? bytes : most;
    }
    ck_assert_uint_gt(most, budget / 2); /* the budget is used, not just respected */
    mmtb_ctx_cache_usage(ctx, &bytes, &blocks);
    ck_assert_uint_gt(bytes, 20 * budget); /* ~170 W/D/L blocks and their DTW blocks */
    ck_assert_uint_ge(blocks, 170);
    mmtb_ctx_free(small);
    mmtb_ctx_free(ctx);
    free(pos);
    free(want);
    free(o1);
    free(o2);
    mmtb_tb_close(tb);
    tl_rmdir_all(dir);
    mmtb_index_free(ix0);
    mmtb_variant_free(v0);
}
END_TEST

/* ---- nine 3-3, really solved -------------------------------------------- */

struct naive_fill {
    const struct naive *n;
    const mmtb_index *ix;
    struct mmtb_sector s;
};

/* Values from the naive oracle, slot by slot. */
static void naive_fill(void *ctx, uint64_t first, uint64_t count, uint8_t *wdl, uint16_t *dtw)
{
    const struct naive_fill *nf = ctx;
    for (uint64_t k = 0; k < count; k++) {
        wdl[k] = 3;
        dtw[k] = 0;
        if (!mmtb_index_slot_is_canonical(nf->ix, nf->s, first + k))
            continue;
        uint32_t m, o;
        int w, d;
        mmtb_index_unrank(nf->ix, nf->s, first + k, &m, &o);
        if (naive_value(nf->n, m, o, &w, &d) != 0)
            continue; /* leaves an unused slot: the stats check catches it */
        wdl[k] = (uint8_t)(w + 1);
        dtw[k] = d < 0 ? 0 : (uint16_t)d;
    }
}

START_TEST(nine_33_solved)
{
    char err[256] = "";
    struct mmtb_variant *v0 = tl_load_variant("nine");
    struct naive *nv = naive_solve(v0, 3, err, sizeof err);
    ck_assert_msg(nv != NULL, "naive solve: %s", err);
    mmtb_index *ix0 = NULL;
    ck_assert_int_eq(mmtb_index_create(&ix0, v0, 4), MMTB_OK);
    struct mmtb_sector s = {3, 3, 0, 0};
    struct mmtb_sector game[3] = {{3, 3, 0, 0}, {4, 3, 0, 0}, {3, 4, 0, 0}};
    char dir[64];
    tl_make_tmpdir(dir, sizeof dir, "probe");
    ck_assert_int_eq(mmtb_table_write_manifest(dir, v0, game, 3, err, sizeof err), MMTB_OK);
    struct naive_fill nf = {nv, ix0, s};
    struct mmtb_sector_stats st;
    ck_assert_int_eq(mmtb_table_write_sector(dir, v0, s, mmtb_index_slots(ix0, s), naive_fill, &nf,
                                             NULL, &st, err, sizeof err),
                     MMTB_OK);
    /* The published counts (KNOWN_RESULTS.md). */
    ck_assert_uint_eq(st.canonical, 169626);
    ck_assert_uint_eq(st.wins, 140621);
    ck_assert_uint_eq(st.losses, 28736);
    ck_assert_uint_eq(st.draws, 269);
    ck_assert_int_eq(st.max_win, 25);
    ck_assert_int_eq(st.max_loss, 26);

    mmtb_tb *tb = open_tb(dir);
    const struct mmtb_variant *v = mmtb_tb_variant(tb);
    const mmtb_index *ix = mmtb_tb_index(tb);
    mmtb_ctx *ctx = NULL;
    ck_assert_int_eq(mmtb_ctx_create(&ctx, tb, 0), MMTB_OK);
    struct mmtb_sector_stats st2;
    ck_assert_int_eq(mmtb_tb_sector_stats(tb, s, &st2), MMTB_OK);
    ck_assert_mem_eq(&st, &st2, sizeof st);
    ck_assert_int_eq(mmtb_tb_verify_sector(tb, s, err, sizeof err), MMTB_OK);

    /* Every canonical position: the probe is the oracle's value, and equals
     * the value of its best move when the game is not over; the move list
     * is sorted best first; the WDL-only probe agrees. */
    uint64_t slots = mmtb_index_slots(ix, s), checked = 0, removal_checks = 0;
    struct mmtb_move_value *mv = malloc(MMTB_MAX_MOVES * sizeof *mv);
    for (uint64_t i = 0; i < slots; i++) {
        if (!mmtb_index_slot_is_canonical(ix, s, i))
            continue;
        uint32_t m, o;
        int w, d, wdl;
        mmtb_index_unrank(ix, s, i, &m, &o);
        ck_assert_int_eq(naive_value(nv, m, o, &w, &d), 0);
        struct mmtb_pos p = make_pos(m, o, (int)(i & 1));
        struct mmtb_value got;
        ck_assert_int_eq(mmtb_probe(ctx, &p, &got), MMTB_OK);
        ck_assert_msg(got.wdl == w && got.dtw == d, "slot %llu: %d/%d, oracle %d/%d",
                      (unsigned long long)i, got.wdl, got.dtw, w, d);
        ck_assert_int_eq(mmtb_probe_wdl(ctx, &p, &wdl), MMTB_OK);
        ck_assert_int_eq(wdl, w);
        if (i % MOVES_STRIDE != 0)
            continue;
        int n = mmtb_probe_moves(ctx, &p, mv, MMTB_MAX_MOVES);
        ck_assert_int_ge(n, 0);
        if (mmtb_pos_terminal(v, &p) != MMTB_NOT_TERMINAL) {
            ck_assert_int_eq(n, 0);
            continue;
        }
        ck_assert_int_gt(n, 0);
        ck_assert_msg(same_value(&mv[0].value, &got), "slot %llu: best move %d/%d, probe %d/%d",
                      (unsigned long long)i, mv[0].value.wdl, mv[0].value.dtw, got.wdl, got.dtw);
        for (int k = 1; k < n; k++) {
            const struct mmtb_value *a = &mv[k - 1].value, *b = &mv[k].value;
            ck_assert(a->wdl >= b->wdl);
            if (a->wdl == b->wdl && a->wdl == MMTB_WIN)
                ck_assert(a->dtw <= b->dtw);
            if (a->wdl == b->wdl && a->wdl == MMTB_LOSS)
                ck_assert(a->dtw >= b->dtw);
        }
        /* cap smaller than the list: the best ones, the full count. */
        struct mmtb_move_value one;
        ck_assert_int_eq(mmtb_probe_moves(ctx, &p, &one, 1), n);
        ck_assert(same_value(&one.value, &got));
        checked++;

        /* "After the mill, before the removal": for a mill-closing slide,
         * the position with the removal pending is worth the best of the
         * removals, each the value of the whole move. */
        if (i % 5 == 0) {
            for (int k = 0; k < n; k++) {
                const struct mmtb_move *mm = &mv[k].move;
                if (mm->remove < 0)
                    continue;
                struct mmtb_pos q = p;
                q.stones[p.side] = (p.stones[p.side] & ~BIT(mm->from)) | BIT(mm->to);
                q.remove = 1;
                struct mmtb_value best = {0, 0}, vq;
                bool any = false;
                for (int j = 0; j < n; j++)
                    if (mv[j].move.from == mm->from && mv[j].move.to == mm->to && !any) {
                        best = mv[j].value; /* the list is sorted: the first is best */
                        any = true;
                    }
                ck_assert_int_eq(mmtb_probe(ctx, &q, &vq), MMTB_OK);
                ck_assert_msg(same_value(&vq, &best), "pending removal after slot %llu",
                              (unsigned long long)i);
                struct mmtb_move_value r[32];
                int nr = mmtb_probe_moves(ctx, &q, r, 32);
                ck_assert_int_gt(nr, 0);
                ck_assert(r[0].move.from == -1 && r[0].move.to == -1);
                ck_assert(same_value(&r[0].value, &best));
                removal_checks++;
                break;
            }
        }
    }
    ck_assert_uint_gt(checked, 160000 / MOVES_STRIDE);
    ck_assert_uint_gt(removal_checks, 100);

    /* Gasser's Fig. 9: White d7 g7 g1, Black a4 g4 d5, Black to move loses
     * in 26 plies; the principal variation plays it out to the end of the game. */
    struct mmtb_pos p;
    ck_assert_int_eq(mmtb_pos_parse(v, "d7,g7,g1 a4,g4,d5 b", &p, err, sizeof err), MMTB_OK);
    struct mmtb_value val;
    ck_assert_int_eq(mmtb_probe(ctx, &p, &val), MMTB_OK);
    ck_assert_int_eq(val.wdl, MMTB_LOSS);
    ck_assert_int_eq(val.dtw, 26);
    struct mmtb_move pv[64];
    int npv = mmtb_probe_pv(ctx, &p, pv, 64);
    ck_assert_int_eq(npv, 26);
    struct mmtb_pos cur = p;
    for (int k = 0; k < npv; k++) {
        struct mmtb_value vk;
        ck_assert_int_eq(mmtb_probe(ctx, &cur, &vk), MMTB_OK);
        ck_assert_int_eq(vk.dtw, 26 - k); /* one ply closer each move */
        ck_assert_int_eq(vk.wdl, k % 2 ? MMTB_WIN : MMTB_LOSS);
        struct mmtb_pos next;
        mmtb_pos_apply(v, &cur, &pv[k], &next);
        cur = next;
    }
    ck_assert_int_eq(pv[npv - 1].remove >= 0, 1); /* the last move captures */
    ck_assert_int_eq(mmtb_pos_terminal(v, &cur), MMTB_LOSS);
    ck_assert_int_eq(mmtb_probe_pv(ctx, &p, pv, 5), 5);

    free(mv);
    mmtb_ctx_free(ctx);
    mmtb_tb_close(tb);
    tl_rmdir_all(dir);
    mmtb_index_free(ix0);
    naive_free(nv);
    mmtb_variant_free(v0);
}
END_TEST

/* ---- re-close sectors and their count table ---------------------------- */

/* Every slot of a sector with restrictions: the pattern's value (no slot
 * marked unused: the index with restrictions has no closed-form count). */
static void ban_fill(void *ctx, uint64_t first, uint64_t count, uint8_t *wdl, uint16_t *dtw)
{
    (void)ctx;
    for (uint64_t k = 0; k < count; k++)
        pattern_value(first + k, &wdl[k], &dtw[k]);
}

/* Write twelve's sectors ss[0..n) into dir, with a count table of blocks
 * of 2^log2 slots (log2 0: none); bump adds 1 to the first count. */
static void write_ban_dir(const char *dir, const struct mmtb_variant *v, mmtb_ban_index **bx,
                          const struct mmtb_sector *ss, int n, int log2, int bump)
{
    char err[256] = "";
    int rc = mmtb_table_write_manifest(dir, v, ss, n, err, sizeof err);
    ck_assert_msg(rc == MMTB_OK, "manifest: %s", err);
    for (int i = 0; i < n; i++) {
        struct mmtb_write_opts wo = {.wdl_block_log2 = 10, .dtw_block_log2 = 10};
        uint32_t *counts = NULL;
        if (log2) {
            uint64_t nb = mmtb_ban_index_blocks(bx[i], log2);
            counts = malloc(nb * sizeof *counts);
            ck_assert_int_eq(mmtb_ban_index_block_counts(bx[i], log2, counts), MMTB_OK);
            counts[0] += (uint32_t)bump;
            wo.counts = counts;
            wo.count_blocks = (uint32_t)nb;
            wo.count_block_log2 = log2;
        }
        rc = mmtb_table_write_sector(dir, v, ss[i], mmtb_ban_index_slots(bx[i]), ban_fill, NULL,
                                     &wo, NULL, err, sizeof err);
        ck_assert_msg(rc == MMTB_OK, "write: %s", err);
        free(counts);
    }
}

/*
 * twelve 3-3 and 3-3-1-0 written with a count table (the solver's way,
 * blocks of 2^8 slots here) and without one (tables of earlier writers):
 * every state of both sectors, restrictions included, probes to the value
 * of the slot the built index gives it, from both directories, and from
 * two threads racing on a fresh handle.  A count table whose total is off
 * is refused at open with a message.
 */
START_TEST(reclose_count_table)
{
    struct mmtb_variant *v = tl_load_variant("twelve");
    mmtb_index *ix = NULL;
    ck_assert_int_eq(mmtb_index_create(&ix, v, 3), MMTB_OK);
    const struct mmtb_sector ss[2] = {{3, 3, 0, 0}, {3, 3, 1, 0}};
    mmtb_ban_index *bx[2];
    for (int i = 0; i < 2; i++)
        ck_assert_int_eq(mmtb_ban_index_create(&bx[i], ix, ss[i]), MMTB_OK);
    char with[64], without[64], bad[64];
    tl_make_tmpdir(with, sizeof with, "probe");
    tl_make_tmpdir(without, sizeof without, "probe");
    tl_make_tmpdir(bad, sizeof bad, "probe");
    write_ban_dir(with, v, bx, ss, 2, 8, 0);
    write_ban_dir(without, v, bx, ss, 2, 0, 0);
    write_ban_dir(bad, v, bx, ss, 2, 8, 1);

    /* the file holds the table: ceil(scheme 1 slots / 2^8) entries */
    char path[128];
    snprintf(path, sizeof path, "%s/3-3.mmtb", with);
    size_t len = 0;
    uint8_t *file = tl_read_file(path, &len);
    struct mmtb_tf_header h;
    ck_assert_int_eq(mmtb_tf_header_decode(file, len, &h), MMTB_OK);
    ck_assert_uint_eq(h.count_block_log2, 8);
    ck_assert_uint_eq(h.count_blocks, (mmtb_index_slots(ix, ss[0]) + 255) / 256);
    free(file);

    mmtb_tb *tw = open_tb(with), *to = open_tb(without);
    mmtb_ctx *cw = NULL, *co = NULL;
    ck_assert_int_eq(mmtb_ctx_create(&cw, tw, 0), MMTB_OK);
    ck_assert_int_eq(mmtb_ctx_create(&co, to, 0), MMTB_OK);
    uint64_t probed = 0, banned = 0;
    enum { MAXB = 40000 };
    struct mmtb_pos *bpos = malloc(MAXB * sizeof *bpos);
    struct mmtb_value *bwant = malloc(MAXB * sizeof *bwant);
    for (int i = 0; i < 2; i++) {
        uint64_t slots = mmtb_ban_index_slots(bx[i]);
        for (uint64_t slot = 0; slot < slots; slot++) {
            struct mmtb_pos p = make_pos(0, 0, MMTB_WHITE);
            p.hand[MMTB_WHITE] = ss[i].w_hand;
            p.hand[MMTB_BLACK] = ss[i].b_hand;
            mmtb_ban_index_unrank_pos(bx[i], slot, &p);
            if (mmtb_ban_index_rank_pos(bx[i], &p) != slot)
                continue; /* a wasted slot */
            struct mmtb_value e = pattern_expect(v, &p, slot), a, b;
            ck_assert_int_eq(mmtb_probe(cw, &p, &a), MMTB_OK);
            ck_assert_int_eq(mmtb_probe(co, &p, &b), MMTB_OK);
            if (!same_value(&a, &e) || !same_value(&b, &e))
                ck_abort_msg("sector %d slot %llu: %d/%d and %d/%d, expected %d/%d", i,
                             (unsigned long long)slot, a.wdl, a.dtw, b.wdl, b.dtw, e.wdl, e.dtw);
            probed++;
            if (p.ban_from >= 0 || p.ban_to >= 0) {
                if (banned < MAXB) {
                    bpos[banned] = p;
                    bwant[banned] = e;
                }
                banned++;
            }
        }
    }
    ck_assert(banned > 10000 && probed > banned);

    /* Two threads on a fresh handle, in their own random orders: both
     * count the same blocks on first use (format/ban_index.c publishes one
     * copy) and get the same answers. */
    int nb = banned < MAXB ? (int)banned : MAXB;
    mmtb_tb *t2 = open_tb(with);
    struct mmtb_value *o1 = calloc((size_t)nb, sizeof *o1), *o2 = calloc((size_t)nb, sizeof *o2);
    two_workers(t2, bpos, nb, o1, o2);
    for (int k = 0; k < nb; k += 3) /* every third is probed by both for sure */
        ck_assert(same_value(&o1[k], &bwant[k]) && same_value(&o2[k], &bwant[k]));
    free(o1);
    free(o2);
    mmtb_tb_close(t2);

    /* one count too many: the sector is refused, with the reason */
    mmtb_tb *tbad = open_tb(bad);
    struct mmtb_sector_info info;
    ck_assert_int_eq(mmtb_tb_sector_info(tbad, 0, &info), MMTB_OK);
    ck_assert_int_eq(info.status, MMTB_ERR_CORRUPT);
    ck_assert_msg(strstr(info.detail, "3-3.mmtb: slot or position counts differ") != NULL, "%s",
                  info.detail);
    mmtb_ctx *cb = NULL;
    ck_assert_int_eq(mmtb_ctx_create(&cb, tbad, 0), MMTB_OK);
    struct mmtb_value val;
    struct mmtb_pos p = make_pos(0, 0, MMTB_WHITE);
    mmtb_ban_index_unrank_pos(bx[0], 5, &p);
    ck_assert_int_eq(mmtb_probe(cb, &p, &val), MMTB_ERR_CORRUPT);

    free(bpos);
    free(bwant);
    mmtb_ctx_free(cb);
    mmtb_ctx_free(cw);
    mmtb_ctx_free(co);
    mmtb_tb_close(tbad);
    mmtb_tb_close(tw);
    mmtb_tb_close(to);
    tl_rmdir_all(with);
    tl_rmdir_all(without);
    tl_rmdir_all(bad);
    for (int i = 0; i < 2; i++)
        mmtb_ban_index_free(bx[i]);
    mmtb_index_free(ix);
    mmtb_variant_free(v);
}
END_TEST

/* ---- more sector files than descriptors --------------------------------- */

static int open_fds(void)
{
    DIR *d = opendir("/proc/self/fd");
    ck_assert_ptr_nonnull(d);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        n += e->d_name[0] != '.';
    closedir(d);
    return n - 1; /* the directory's own descriptor */
}

/* Write path again from bytes b (len), flipping byte flip unless it is
 * negative, through a new file renamed over it: another inode. */
static void rewrite_file(const char *path, const uint8_t *b, size_t len, long flip)
{
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.new", path);
    FILE *f = fopen(tmp, "wb");
    ck_assert_ptr_nonnull(f);
    for (size_t i = 0; i < len; i++)
        fputc((long)i == flip ? b[i] ^ 0x5a : b[i], f);
    ck_assert_int_eq(fclose(f), 0);
    ck_assert_int_eq(rename(tmp, path), 0);
}

/* Lasker from 3 stones each: 11 sector files, read under a limit of
 * descriptors two short of keeping them all open.  Every
 * sector is read whole three times round, one block cached, then its
 * statistics and a whole-file check.  The handle's open files stay within
 * its budget (a quarter of the limit, at least 4); a file replaced by the same bytes
 * still reads, a file replaced by other bytes is refused by name. */
START_TEST(more_sectors_than_descriptors)
{
    struct mmtb_variant *v0 = tl_load_variant("lasker");
    struct mmtb_sector game[64];
    int n = mmtb_sector_list(v0, 3, 3, 0, game, 64);
    ck_assert_int_eq(n, 11);
    mmtb_index *ix0 = NULL;
    ck_assert_int_eq(mmtb_index_create(&ix0, v0, 3), MMTB_OK);
    char dir[64];
    tl_make_tmpdir(dir, sizeof dir, "probe-fds");
    for (int i = 0; i < n; i++)
        write_pattern(dir, v0, ix0, game[i], game, n, 0);

    struct rlimit saved, low;
    ck_assert_int_eq(getrlimit(RLIMIT_NOFILE, &saved), 0);
    ck_assert(saved.rlim_max == RLIM_INFINITY || saved.rlim_max >= 16);
    /* a limit two short of the descriptors the files would take all open */
    int base = open_fds();
    int limit = base + n - 2, budget = limit / 4 < 4 ? 4 : limit / 4; /* tbopen.c's */
    ck_assert_int_le(base + budget + 2, limit); /* room for the test's own files */
    low = saved;
    low.rlim_cur = (rlim_t)limit;
    ck_assert_int_eq(setrlimit(RLIMIT_NOFILE, &low), 0);

    mmtb_tb *tb = open_tb(dir);
    mmtb_ctx *ctx = NULL;
    ck_assert_int_eq(mmtb_ctx_create(&ctx, tb, 1), MMTB_OK);
    uint64_t most = 0;
    for (int i = 0; i < n; i++)
        most = mmtb_index_slots(ix0, game[i]) > most ? mmtb_index_slots(ix0, game[i]) : most;
    uint8_t *w = malloc(most);
    uint16_t *d = malloc(most * sizeof *d);
    int peak = 0;
    for (int round = 0; round < 3; round++)
        for (int i = 0; i < n; i++) {
            uint64_t slots = mmtb_index_slots(ix0, game[i]);
            int rc = mmtb_tb_read(ctx, game[i], 0, slots, w, d);
            ck_assert_msg(rc == MMTB_OK, "round %d sector %d: %d %s", round, i, rc,
                          mmtb_ctx_error(ctx));
            check_pattern_read(ix0, game[i], slots, w, d);
            struct mmtb_sector_stats st;
            ck_assert_int_eq(mmtb_tb_sector_stats(tb, game[i], &st), MMTB_OK);
            ck_assert_uint_eq(st.slots, slots);
            char err[200];
            rc = mmtb_tb_verify_sector(tb, game[i], err, sizeof err);
            ck_assert_msg(rc == MMTB_OK, "verify sector %d: %s", i, err);
            int now = open_fds() - base;
            peak = now > peak ? now : peak;
        }
    ck_assert_int_le(peak, budget);
    ck_assert_int_ge(peak, 1);

    /* game[0] was read first, so its file is closed by now. */
    char name[48], path[4200];
    mmtb_tf_sector_filename(game[0], name, sizeof name);
    snprintf(path, sizeof path, "%s/%s", dir, name);
    size_t len;
    uint8_t *bytes = tl_read_file(path, &len);
    uint64_t slots0 = mmtb_index_slots(ix0, game[0]);
    rewrite_file(path, bytes, len, -1);
    mmtb_ctx_free(ctx);
    ck_assert_int_eq(mmtb_ctx_create(&ctx, tb, 1), MMTB_OK);
    ck_assert_int_eq(mmtb_tb_read(ctx, game[0], 0, slots0, w, d), MMTB_OK);
    for (int i = 1; i < n; i++) /* close game[0]'s file again */
        ck_assert_int_eq(mmtb_tb_read(ctx, game[i], 0, 1, w, d), MMTB_OK);
    rewrite_file(path, bytes, len, (long)len - 1);
    mmtb_ctx_free(ctx);
    ck_assert_int_eq(mmtb_ctx_create(&ctx, tb, 1), MMTB_OK);
    int rc = mmtb_tb_read(ctx, game[0], 0, slots0, w, d);
    ck_assert_int_eq(rc, MMTB_ERR_CORRUPT);
    ck_assert_msg(strstr(mmtb_ctx_error(ctx), name) &&
                      strstr(mmtb_ctx_error(ctx), "replaced or changed"),
                  "%s", mmtb_ctx_error(ctx));
    ck_assert_int_eq(mmtb_tb_read(ctx, game[1], 0, 1, w, d), MMTB_OK); /* the others read on */

    free(bytes);
    free(w);
    free(d);
    mmtb_ctx_free(ctx);
    mmtb_tb_close(tb);
    ck_assert_int_eq(open_fds(), base);
    ck_assert_int_eq(setrlimit(RLIMIT_NOFILE, &saved), 0);
    tl_rmdir_all(dir);
    mmtb_index_free(ix0);
    mmtb_variant_free(v0);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("probe");
    TCase *tc = tcase_create("synthetic");
    tcase_set_timeout(tc, 240);
    tcase_add_test(tc, synthetic_every_position);
    tcase_add_test(tc, errors);
    tcase_add_test(tc, thread_count_independent);
    tcase_add_test(tc, no_dtw_plane);
    tcase_add_test(tc, threads_and_tiny_cache);
    tcase_add_test(tc, more_sectors_than_descriptors);
    suite_add_tcase(s, tc);
    tc = tcase_create("solved");
    tcase_set_timeout(tc, 280);
    tcase_add_test(tc, nine_33_solved);
    tcase_add_test(tc, reclose_count_table);
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
