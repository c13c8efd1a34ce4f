/*
 * check_pack.c - `mmtb-gen pack` (gen/pack.c) and the probes of packed
 * tables (value encoding 2: the depths of losses only, a win's depth found
 * by searching its moves).  The packed directory must answer every probe
 * exactly as the unpacked one it was made from: value and depth of every
 * position of whole sectors (nine 3-3, 3-4 and 4-3, where the depths run to
 * 33), and value, depth and move list along random games of variants with
 * placement, re-close restrictions, Lasker's place-or-slide and Shah's
 * opening.  Also: the W/D/L plane is kept byte for byte, a rerun packs
 * nothing, a pack stopped before its manifest update is finished by the
 * rerun, bulk reads of depths and the solver refuse packed sectors with a
 * message that says why.
 */
#define _GNU_SOURCE
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mmtb.h"
#include "mmtb_integrity.h"
#include "pack.h"
#include "sector_index.h"
#include "solve.h"
#include "tablefile.h"
#include "testlib_util.h"

static char tdir[256];

/* Solve variant into dir (start hands wh, bh, or the movement phase up to
 * max_stones; only: a sector list or NULL). */
static void solve(const char *dir, const char *variant, int wh, int bh, int max_stones,
                  const char *only)
{
    struct mmtb_solve_opts o;
    memset(&o, 0, sizeof o);
    o.variant = variant;
    o.outdir = dir;
    o.start_w_hand = wh;
    o.start_b_hand = bh;
    o.max_stones = max_stones;
    o.threads = 2;
    o.quiet = true;
    struct mmtb_sector sec[4];
    if (only) {
        o.n_only = 0;
        char buf[64];
        snprintf(buf, sizeof buf, "%s", only);
        for (char *t = strtok(buf, ","); t && o.n_only < 4; t = strtok(NULL, ","))
            ck_assert_int_eq(mmtb_sector_parse(t, &sec[o.n_only++]), MMTB_OK);
        o.only = sec;
    }
    char err[256] = "";
    ck_assert_msg(mmtb_solve(&o, err, sizeof err) == MMTB_OK, "%s", err);
}

/* Copy every file of directory from into a new directory to. */
static void copy_dir(const char *from, const char *to)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "rm -rf '%s' && cp -r '%s' '%s'", to, from, to);
    ck_assert_int_eq(system(cmd), 0);
}

static struct mmtb_pack_result pack(const char *dir)
{
    struct mmtb_pack_opts o = {0};
    o.dir = dir;
    o.quiet = true;
    o.threads = 2;
    struct mmtb_pack_result r;
    char err[512] = "";
    ck_assert_msg(mmtb_pack(&o, &r, err, sizeof err) == MMTB_OK, "%s", err);
    return r;
}

struct pair {
    mmtb_tb *tb[2];
    mmtb_ctx *ctx[2];
};

static void pair_open(struct pair *p, const char *full, const char *packed)
{
    const char *d[2] = {full, packed};
    for (int i = 0; i < 2; i++) {
        ck_assert_int_eq(mmtb_tb_open(&p->tb[i], d[i], NULL), MMTB_OK);
        ck_assert_int_eq(mmtb_ctx_create(&p->ctx[i], p->tb[i], (size_t)64 << 20), MMTB_OK);
    }
}

static void pair_close(struct pair *p)
{
    for (int i = 0; i < 2; i++) {
        mmtb_ctx_free(p->ctx[i]);
        mmtb_tb_close(p->tb[i]);
    }
}

/* The same value, depth and W/D/L-only value from both directories; the
 * number of wins compared (whose depth the packed side searched for). */
static int same_value(struct pair *p, const struct mmtb_pos *pos, const char *where)
{
    struct mmtb_value a, b;
    int wa, wb;
    ck_assert_int_eq(mmtb_probe(p->ctx[0], pos, &a), MMTB_OK);
    int rc = mmtb_probe(p->ctx[1], pos, &b);
    ck_assert_msg(rc == MMTB_OK, "%s: packed probe failed: %s (%s)", where, mmtb_strerror(rc),
                  mmtb_ctx_error(p->ctx[1]));
    ck_assert_msg(a.wdl == b.wdl && a.dtw == b.dtw, "%s: unpacked %d/%d, packed %d/%d", where,
                  a.wdl, a.dtw, b.wdl, b.dtw);
    ck_assert_int_eq(mmtb_probe_wdl(p->ctx[0], pos, &wa), MMTB_OK);
    ck_assert_int_eq(mmtb_probe_wdl(p->ctx[1], pos, &wb), MMTB_OK);
    ck_assert_int_eq(wa, a.wdl);
    ck_assert_int_eq(wb, a.wdl);
    return a.wdl == MMTB_WIN;
}

/* Every canonical position of sector s (no restrictions) compared. */
static void compare_sector(struct pair *p, const char *name, uint64_t *wins)
{
    struct mmtb_sector s;
    ck_assert_int_eq(mmtb_sector_parse(name, &s), MMTB_OK);
    const mmtb_index *ix = mmtb_tb_index(p->tb[0]);
    struct mmtb_index_iter it;
    mmtb_index_iter_start(&it, ix, s, 0, mmtb_index_slots(ix, s));
    uint64_t slot;
    uint32_t mover, opp;
    bool canonical;
    while (mmtb_index_iter_next(&it, &slot, &mover, &opp, &canonical)) {
        if (!canonical)
            continue;
        struct mmtb_pos pos = {{mover, opp}, {s.w_hand, s.b_hand}, 0, 0, -1, -1,
                               MMTB_FIRST_MILL_NONE};
        if (mmtb_pos_terminal(mmtb_tb_variant(p->tb[0]), &pos) != MMTB_NOT_TERMINAL)
            continue;
        char where[64];
        snprintf(where, sizeof where, "sector %s slot %llu", name, (unsigned long long)slot);
        *wins += (uint64_t)same_value(p, &pos, where);
    }
}

/* Random games from the start with hands wh, bh: at every position the
 * value and the whole move list (moves, values, depths, order) agree. */
static void compare_walks(struct pair *p, int wh, int bh, int games, unsigned seed,
                          uint64_t *wins, uint64_t *moves)
{
    const struct mmtb_variant *v = mmtb_tb_variant(p->tb[0]);
    struct mmtb_move_value *ma = malloc(MMTB_MAX_MOVES * sizeof *ma);
    struct mmtb_move_value *mb = malloc(MMTB_MAX_MOVES * sizeof *mb);
    ck_assert(ma && mb);
    srand(seed);
    for (int g = 0; g < games; g++) {
        struct mmtb_pos pos;
        mmtb_pos_start(v, &pos);
        pos.hand[0] = (uint8_t)wh;
        pos.hand[1] = (uint8_t)bh;
        for (int ply = 0; ply < 200; ply++) {
            if (mmtb_pos_terminal(v, &pos) != MMTB_NOT_TERMINAL)
                break;
            char where[64];
            snprintf(where, sizeof where, "game %d ply %d", g, ply);
            *wins += (uint64_t)same_value(p, &pos, where);
            int na = mmtb_probe_moves(p->ctx[0], &pos, ma, MMTB_MAX_MOVES);
            int nb = mmtb_probe_moves(p->ctx[1], &pos, mb, MMTB_MAX_MOVES);
            ck_assert_int_gt(na, 0);
            ck_assert_msg(na == nb, "%s: %d moves unpacked, %d packed (%s)", where, na, nb,
                          mmtb_ctx_error(p->ctx[1]));
            for (int i = 0; i < na; i++) {
                ck_assert(ma[i].move.from == mb[i].move.from && ma[i].move.to == mb[i].move.to &&
                          ma[i].move.remove == mb[i].move.remove);
                ck_assert_msg(ma[i].value.wdl == mb[i].value.wdl &&
                                  ma[i].value.dtw == mb[i].value.dtw,
                              "%s move %d: unpacked %d/%d, packed %d/%d", where, i,
                              ma[i].value.wdl, ma[i].value.dtw, mb[i].value.wdl,
                              mb[i].value.dtw);
            }
            *moves += (uint64_t)na;
            struct mmtb_pos next;
            mmtb_pos_apply(v, &pos, &ma[rand() % na].move, &next);
            pos = next;
        }
    }
    free(ma);
    free(mb);
}

/* Sizes of both planes of every sector: the W/D/L plane the same, the DTW
 * plane no larger; returns the packed directory's total bytes. */
static uint64_t compare_sizes(struct pair *p, uint64_t *full_bytes)
{
    uint64_t total = 0;
    *full_bytes = 0;
    int n = mmtb_tb_sector_count(p->tb[0]);
    ck_assert_int_eq(n, mmtb_tb_sector_count(p->tb[1]));
    for (int i = 0; i < n; i++) {
        struct mmtb_sector_info a, b;
        ck_assert_int_eq(mmtb_tb_sector_info(p->tb[0], i, &a), MMTB_OK);
        ck_assert_int_eq(mmtb_tb_sector_info(p->tb[1], i, &b), MMTB_OK);
        ck_assert_int_eq(a.status, b.status);
        if (a.status != MMTB_OK)
            continue;
        ck_assert_msg(b.wdl_bytes == a.wdl_bytes, "sector %d: W/D/L plane changed", i);
        ck_assert(b.dtw_bytes <= a.dtw_bytes);
        ck_assert(memcmp(&a.stats, &b.stats, sizeof a.stats) == 0);
        total += b.file_bytes;
        *full_bytes += a.file_bytes;
    }
    return total;
}

/* nine 3-3, 3-4, 4-3 (and what they need): every position. */
START_TEST(test_pack_nine_whole_sectors)
{
    char full[300], packed[300];
    snprintf(full, sizeof full, "%s/nine34", tdir);
    snprintf(packed, sizeof packed, "%s/nine34-packed", tdir);
    solve(full, "nine", 0, 0, 4, "3-4,4-3");
    copy_dir(full, packed);
    struct mmtb_pack_result r = pack(packed);
    ck_assert_int_gt(r.packed, 0);
    ck_assert_int_eq(r.already, 0);
    ck_assert(r.bytes_after < r.bytes_before);
    struct pair p;
    pair_open(&p, full, packed);
    uint64_t fb, pb = compare_sizes(&p, &fb);
    ck_assert(pb < fb);
    uint64_t wins = 0;
    compare_sector(&p, "3-3", &wins);
    compare_sector(&p, "3-4", &wins);
    compare_sector(&p, "4-3", &wins);
    ck_assert_uint_gt(wins, 100000); /* the searched depths were really compared */
    /* the published longest wins hold in the packed tables too */
    struct mmtb_sector_stats st;
    struct mmtb_sector s;
    ck_assert_int_eq(mmtb_sector_parse("3-4", &s), MMTB_OK);
    ck_assert_int_eq(mmtb_tb_sector_stats(p.tb[1], s, &st), MMTB_OK);
    ck_assert_int_eq(st.max_win, 33);
    pair_close(&p);

    /* a rerun finds everything packed */
    r = pack(packed);
    ck_assert_int_eq(r.packed, 0);
    ck_assert_int_gt(r.already, 0);
}
END_TEST

/* The whole game of games with state: along random games every value,
 * depth and move list agrees. */
static void walk_case(const char *variant, int wh, int bh, int games)
{
    char full[300], packed[300];
    snprintf(full, sizeof full, "%s/%s-%d%d", tdir, variant, wh, bh);
    snprintf(packed, sizeof packed, "%s/%s-%d%d-packed", tdir, variant, wh, bh);
    solve(full, variant, wh, bh, 0, NULL);
    copy_dir(full, packed);
    pack(packed);
    struct pair p;
    pair_open(&p, full, packed);
    uint64_t fb;
    compare_sizes(&p, &fb);
    uint64_t wins = 0, moves = 0;
    compare_walks(&p, wh, bh, games, 7, &wins, &moves);
    ck_assert_uint_gt(wins, 50);
    ck_assert_uint_gt(moves, 1000);
    pair_close(&p);
}

START_TEST(test_pack_games_with_state)
{
    walk_case("twelve", 3, 3, 300);       /* re-close restrictions */
    walk_case("twelve-immune", 3, 3, 100);
    walk_case("lasker", 3, 3, 300);       /* place or slide */
    walk_case("shah", 3, 3, 300);         /* the first-mill owner's opening */
    walk_case("six", 4, 4, 300);          /* placement with captures, removals */
}
END_TEST

/* What cannot work on packed tables says so: a bulk read of depths, and
 * the solver extending the directory. */
START_TEST(test_pack_refusals)
{
    char dir[300];
    snprintf(dir, sizeof dir, "%s/refuse", tdir);
    solve(dir, "nine", 0, 0, 3, NULL);
    pack(dir);
    mmtb_tb *tb;
    mmtb_ctx *ctx;
    ck_assert_int_eq(mmtb_tb_open(&tb, dir, NULL), MMTB_OK);
    ck_assert_int_eq(mmtb_ctx_create(&ctx, tb, 0), MMTB_OK);
    struct mmtb_sector s;
    ck_assert_int_eq(mmtb_sector_parse("3-3", &s), MMTB_OK);
    uint8_t wdl[64];
    uint16_t dtw[64];
    ck_assert_int_eq(mmtb_tb_read(ctx, s, 0, 64, wdl, NULL), MMTB_OK);
    ck_assert_int_eq(mmtb_tb_read(ctx, s, 0, 64, wdl, dtw), MMTB_ERR_UNSUPPORTED);
    ck_assert_ptr_nonnull(strstr(mmtb_ctx_error(ctx), "packed"));
    /* integrity holds */
    ck_assert_int_eq(mmtb_tb_verify_sector(tb, s, NULL, 0), MMTB_OK);
    mmtb_ctx_free(ctx);
    mmtb_tb_close(tb);

    struct mmtb_solve_opts o;
    memset(&o, 0, sizeof o);
    o.variant = "nine";
    o.outdir = dir;
    o.max_stones = 4;
    o.threads = 2;
    o.quiet = true;
    char err[512] = "";
    ck_assert_int_ne(mmtb_solve(&o, err, sizeof err), MMTB_OK);
    ck_assert_msg(strstr(err, "packed") != NULL, "solver's message: %s", err);
}
END_TEST

/* A pack stopped after a file's rename, before its manifest line: the
 * directory reads that sector as replaced behind the manifest's back; the
 * rerun records it and everything answers again. */
START_TEST(test_pack_resumes)
{
    char full[300], dir[300], man[400], saved[400];
    snprintf(full, sizeof full, "%s/resume-full", tdir);
    snprintf(dir, sizeof dir, "%s/resume", tdir);
    solve(full, "nine", 0, 0, 4, "4-3");
    copy_dir(full, dir);
    snprintf(man, sizeof man, "%s/MANIFEST", dir);
    snprintf(saved, sizeof saved, "%s/MANIFEST.saved", tdir);
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "cp '%s' '%s'", man, saved);
    ck_assert_int_eq(system(cmd), 0);
    pack(dir);
    snprintf(cmd, sizeof cmd, "cp '%s' '%s'", saved, man); /* the old lines back */
    ck_assert_int_eq(system(cmd), 0);
    mmtb_tb *tb;
    ck_assert_int_eq(mmtb_tb_open(&tb, dir, NULL), MMTB_OK);
    struct mmtb_sector s;
    ck_assert_int_eq(mmtb_sector_parse("4-3", &s), MMTB_OK);
    ck_assert_int_eq(mmtb_tb_sector_stats(tb, s, NULL), MMTB_ERR_CORRUPT);
    mmtb_tb_close(tb);
    struct mmtb_pack_result r = pack(dir);
    ck_assert_int_eq(r.packed, 0);
    ck_assert_int_gt(r.already, 0);
    struct pair p;
    pair_open(&p, full, dir);
    uint64_t wins = 0;
    compare_sector(&p, "4-3", &wins);
    ck_assert_uint_gt(wins, 1000);
    pair_close(&p);
}
END_TEST

static Suite *pack_suite(void)
{
    Suite *s = suite_create("pack");
    TCase *tc = tcase_create("pack");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, test_pack_nine_whole_sectors);
    tcase_add_test(tc, test_pack_games_with_state);
    tcase_add_test(tc, test_pack_refusals);
    tcase_add_test(tc, test_pack_resumes);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    snprintf(tdir, sizeof tdir, "/tmp/mmtb-pack-XXXXXX");
    if (!mkdtemp(tdir)) {
        perror("mkdtemp");
        return EXIT_FAILURE;
    }
    return tl_run_suite(pack_suite(), tdir, "pack");
}
