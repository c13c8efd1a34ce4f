/*
 * check_known.c - the published facts of ../shared/reference/KNOWN_RESULTS.md,
 * reproduced end to end: mmtb_solve writes tables into a temporary
 * directory, libmmtb reads them back.  Every expected number below comes
 * from the literature (Gasser 1996, Gevay & Danner 2015, independent
 * re-solutions), never from this program's output.
 */
#define _GNU_SOURCE
#include <check.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ban_index.h"
#include "mmtb.h"
#include "movegen.h"
#include "notation.h"
#include "pack.h"
#include "sector_index.h"
#include "solve.h"
#include "tablefile.h"
#include "tablewrite.h"
#include "testlib_util.h"
#include "variant.h"

/* The solver's first rare depth (mmtb_solve_opts.deep_from; 0: default). */
static int g_deep_from;
/* How the levels go (mmtb_solve_opts.forward; 0: by cost). */
static int g_forward;
static int g_swap;
/* How placement sectors are walked by the init pass (mmtb_solve_opts.init_walk). */
static int g_walk;
/* Bytes of a bucket stream the levels take per round (mmtb_solve_opts.bucket_round). */
static int g_round;
/* The re-close rule's sectors with both hands full through the state init
 * (mmtb_solve_opts.state_init). */
static int g_state;
static int g_spill; /* the buckets on disk, a stream written there every g_spill bytes */

/* Solve a game into a fresh temporary directory; returns its path (static
 * storage per call site is not needed: the caller frees). */
/* The options of a quiet 2-thread solve of variant into dir (start wh,bh
 * or the movement phase up to max_stones), the test knobs left at 0. */
static void solve_opts(struct mmtb_solve_opts *o, const char *variant, int wh, int bh,
                       int max_stones, const char *dir)
{
    memset(o, 0, sizeof *o);
    o->variant = variant;
    o->outdir = dir;
    o->start_w_hand = wh;
    o->start_b_hand = bh;
    o->max_stones = max_stones;
    o->threads = 2;
    o->quiet = true;
}

static char *solve_into(const char *variant, int wh, int bh, int max_stones, const char *only)
{
    char *dir = strdup("/tmp/mmtb-known-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(dir));
    struct mmtb_solve_opts o;
    solve_opts(&o, variant, wh, bh, max_stones, dir);
    o.deep_from = g_deep_from;
    o.forward = g_forward;
    o.swap_deps = g_swap;
    o.init_walk = g_walk;
    o.bucket_round = g_round;
    o.state_init = g_state != 0;
    o.buckets_to_disk = g_spill ? 1 : 0;
    o.bucket_spill_seg = (size_t)g_spill;
    struct mmtb_sector sec;
    if (only) {
        ck_assert_int_eq(mmtb_sector_parse(only, &sec), MMTB_OK);
        o.only = &sec;
        o.n_only = 1;
    }
    char err[256] = "";
    int rc = mmtb_solve(&o, err, sizeof err);
    ck_assert_msg(rc == MMTB_OK, "mmtb_solve %s: %s", variant, err);
    return dir;
}

static void remove_dir(char *dir)
{
    tl_rmdir_all(dir);
    free(dir);
}

static void stats_of(mmtb_tb *tb, const char *name, struct mmtb_sector_stats *st)
{
    struct mmtb_sector s;
    ck_assert_int_eq(mmtb_sector_parse(name, &s), MMTB_OK);
    ck_assert_int_eq(mmtb_tb_sector_stats(tb, s, st), MMTB_OK);
}

/* Probe a position given in either notation. */
static struct mmtb_value probe_text(mmtb_tb *tb, const char *text)
{
    struct mmtb_pos p;
    char err[200];
    ck_assert_msg(mmtb_pos_parse(mmtb_tb_variant(tb), text, &p, err, sizeof err) == MMTB_OK,
                  "%s: %s", text, err);
    mmtb_ctx *ctx = NULL;
    ck_assert_int_eq(mmtb_ctx_create(&ctx, tb, 0), MMTB_OK);
    struct mmtb_value val;
    int rc = mmtb_probe(ctx, &p, &val);
    ck_assert_msg(rc == MMTB_OK, "probe %s: %s", text, mmtb_strerror(rc));
    mmtb_ctx_free(ctx);
    return val;
}

/* Gasser 1996 and two re-solutions: sector 3-3 and 4-4 of the standard game,
 * Fig. 9, "in 4-3 every win of the 4-stone side is an immediate mill", and
 * the longest wins and losses to the end of the game of 3-4, 4-3 and 3-5. */
START_TEST(nine_movement_up_to_5)
{
    char *dir = solve_into("nine", 0, 0, 5, NULL);
    mmtb_tb *tb = NULL;
    ck_assert_int_eq(mmtb_tb_open(&tb, dir, NULL), MMTB_OK);
    struct mmtb_sector_stats st;

    stats_of(tb, "3-3", &st);
    ck_assert_uint_eq(st.wins, 140621);
    ck_assert_uint_eq(st.losses, 28736);
    ck_assert_uint_eq(st.draws, 269);
    ck_assert_int_eq(st.max_win, 25);
    ck_assert_int_eq(st.max_loss, 26);

    stats_of(tb, "4-4", &st);
    ck_assert_uint_eq(st.wins, 159);
    ck_assert_uint_eq(st.losses, 29);
    ck_assert_uint_eq(st.draws, 3225409);
    ck_assert_int_eq(st.max_win, 9);
    ck_assert_int_eq(st.max_loss, 8);

    /* depth to win (Malom and the re-solutions) */
    stats_of(tb, "4-3", &st);
    ck_assert_int_eq(st.max_win, 1);
    ck_assert_int_eq(st.max_loss, 32);
    stats_of(tb, "3-4", &st);
    ck_assert_int_eq(st.max_win, 33);
    stats_of(tb, "3-5", &st);
    ck_assert_int_eq(st.max_win, 31);

    struct mmtb_value v = probe_text(tb, "d7,g7,g1 a4,g4,d5 b");
    ck_assert_int_eq(v.wdl, MMTB_LOSS);
    ck_assert_int_eq(v.dtw, 26);
    /* the same position as FEN, and with colours and sides mirrored */
    v = probe_text(tb, "@*******/********/OO@O**@* b m s 3 0 3 0 0 0 0 0 0 0 0 0 1");
    ck_assert_int_eq(v.wdl, MMTB_LOSS);
    ck_assert_int_eq(v.dtw, 26);
    v = probe_text(tb, "a4,g4,d5 d7,g7,g1 w");
    ck_assert_int_eq(v.wdl, MMTB_LOSS);
    ck_assert_int_eq(v.dtw, 26);

    mmtb_tb_close(tb);
    remove_dir(dir);
}
END_TEST

/* The starts of the small games (KNOWN_RESULTS.md, "Other variants"). */
START_TEST(three_diag_centre_only)
{
    char *dir = solve_into("three-diag", 3, 3, 0, NULL);
    mmtb_tb *tb = NULL;
    ck_assert_int_eq(mmtb_tb_open(&tb, dir, NULL), MMTB_OK);
    struct mmtb_value v = probe_text(tb, "- - w 3 3");
    ck_assert_int_eq(v.wdl, MMTB_WIN);
    struct mmtb_pos p;
    char err[100];
    ck_assert_int_eq(mmtb_pos_parse(mmtb_tb_variant(tb), "- - w 3 3", &p, err, sizeof err), MMTB_OK);
    mmtb_ctx *ctx = NULL;
    ck_assert_int_eq(mmtb_ctx_create(&ctx, tb, 0), MMTB_OK);
    struct mmtb_move_value mv[MMTB_MAX_MOVES];
    int n = mmtb_probe_moves(ctx, &p, mv, MMTB_MAX_MOVES);
    ck_assert_int_eq(n, 9);
    int winning = 0;
    for (int i = 0; i < n; i++) {
        if (mv[i].value.wdl != MMTB_WIN)
            continue;
        winning++;
        char name[8];
        mmtb_move_format(mmtb_tb_variant(tb), &mv[i].move, name, sizeof name);
        ck_assert_str_eq(name, "b2");
    }
    ck_assert_int_eq(winning, 1);
    mmtb_ctx_free(ctx);
    mmtb_tb_close(tb);
    remove_dir(dir);
}
END_TEST

START_TEST(six_start_is_draw)
{
    char *dir = solve_into("six", 6, 6, 0, NULL);
    mmtb_tb *tb = NULL;
    ck_assert_int_eq(mmtb_tb_open(&tb, dir, NULL), MMTB_OK);
    struct mmtb_value v = probe_text(tb, "- - w 6 6");
    ck_assert_int_eq(v.wdl, MMTB_DRAW);
    mmtb_tb_close(tb);
    remove_dir(dir);
}
END_TEST

/* Gevay & Danner computed the extended starts of the standard board; the
 * 4 v 4 game is a draw like the full game. */
START_TEST(nine_4v4_start_is_draw)
{
    char *dir = solve_into("nine", 4, 4, 0, NULL);
    mmtb_tb *tb = NULL;
    ck_assert_int_eq(mmtb_tb_open(&tb, dir, NULL), MMTB_OK);
    struct mmtb_value v = probe_text(tb, "- - w 4 4");
    ck_assert_int_eq(v.wdl, MMTB_DRAW);
    v = probe_text(tb, "********/********/******** w p p 0 4 0 4 0 0 0 0 0 0 0 0 1");
    ck_assert_int_eq(v.wdl, MMTB_DRAW);
    /* the 3-3 sector inside this game is the same as in the movement phase */
    struct mmtb_sector_stats st;
    stats_of(tb, "3-3", &st);
    ck_assert_uint_eq(st.wins, 140621);
    ck_assert_uint_eq(st.losses, 28736);
    mmtb_tb_close(tb);
    remove_dir(dir);
}
END_TEST

/* --sectors solves what a sector needs: 3-3 alone gives the published row. */
START_TEST(only_one_sector)
{
    char *dir = solve_into("nine", 0, 0, 0, "3-3");
    mmtb_tb *tb = NULL;
    ck_assert_int_eq(mmtb_tb_open(&tb, dir, NULL), MMTB_OK);
    struct mmtb_sector_stats st;
    stats_of(tb, "3-3", &st);
    ck_assert_uint_eq(st.wins, 140621);
    struct mmtb_sector s44;
    mmtb_sector_parse("4-4", &s44);
    ck_assert_int_eq(mmtb_tb_sector_stats(tb, s44, &st), MMTB_ERR_MISSING);
    mmtb_tb_close(tb);
    remove_dir(dir);
}
END_TEST

/* An interrupted run (a sector file missing, a stale NAME.tmp, a damaged
 * file) is resumed by a rerun: the finished sectors are kept, the rest is
 * solved again to the same bytes. */
START_TEST(rerun_resumes)
{
    char *dir = solve_into("nine", 0, 0, 4, NULL);
    char p44[512], p43[512], tmp[512];
    snprintf(p44, sizeof p44, "%s/4-4.mmtb", dir);
    snprintf(p43, sizeof p43, "%s/4-3.mmtb", dir);
    snprintf(tmp, sizeof tmp, "%s/4-4.mmtb.tmp", dir);
    size_t n44, n43;
    uint8_t *b44 = tl_read_file(p44, &n44), *b43 = tl_read_file(p43, &n43);
    ck_assert_ptr_nonnull(b44);
    ck_assert_ptr_nonnull(b43);
    /* "killed" while writing 4-4; 4-3 damaged on disk */
    ck_assert_int_eq(rename(p44, tmp), 0);
    FILE *f = fopen(p43, "r+b");
    ck_assert_ptr_nonnull(f);
    fseek(f, (long)n43 / 2, SEEK_SET);
    fputc(b43[n43 / 2] ^ 0x55, f);
    fclose(f);

    struct mmtb_solve_opts o;
    memset(&o, 0, sizeof o);
    o.variant = "nine";
    o.outdir = dir;
    o.max_stones = 4;
    o.threads = 1;
    o.quiet = true;
    char err[256] = "";
    ck_assert_msg(mmtb_solve(&o, err, sizeof err) == MMTB_OK, "%s", err);

    size_t m44, m43;
    uint8_t *c44 = tl_read_file(p44, &m44), *c43 = tl_read_file(p43, &m43);
    ck_assert_ptr_nonnull(c44);
    ck_assert_ptr_nonnull(c43);
    ck_assert(m44 == n44 && memcmp(b44, c44, n44) == 0);
    ck_assert(m43 == n43 && memcmp(b43, c43, n43) == 0);
    ck_assert_int_ne(access(tmp, F_OK), 0);
    free(b44), free(b43), free(c44), free(c43);
    remove_dir(dir);
}
END_TEST

/* Solve a game into a fresh directory (returned) and verify it: no
 * mismatch.  *vo is left set up for more runs on it (2 threads, quiet,
 * mismatches counted into *bad). */
static char *solve_verified(const char *variant, int wh, int bh, int max_stones,
                            struct gen_verify_opts *vo, uint64_t *bad)
{
    char *dir = solve_into(variant, wh, bh, max_stones, NULL);
    memset(vo, 0, sizeof *vo);
    vo->dir = dir;
    vo->quiet = true;
    vo->threads = 2;
    vo->mismatches = bad;
    char err[256] = "";
    ck_assert_msg(mmtb_verify(vo, err, sizeof err) == MMTB_OK, "%s: %s", variant, err);
    ck_assert_msg(*bad == 0, "%s: %llu mismatches", variant, (unsigned long long)*bad);
    return dir;
}

/* A table whose values are self-consistent except one flipped position:
 * mmtb-gen verify must notice, and must pass the untouched tables. */
struct tamper {
    const mmtb_index *ix;
    struct mmtb_sector s;
    uint8_t *wdl;
    uint16_t *dtw;
    uint64_t flip;
};

static void tamper_fill(void *ctx, uint64_t first, uint64_t count, uint8_t *wdl, uint16_t *dtw)
{
    const struct tamper *t = ctx;
    for (uint64_t i = 0; i < count; i++) {
        wdl[i] = t->wdl[first + i];
        dtw[i] = t->dtw[first + i];
        if (!mmtb_index_slot_is_canonical(t->ix, t->s, first + i))
            wdl[i] = 3, dtw[i] = 0; /* unused slot */
        if (first + i == t->flip) {
            wdl[i] = wdl[i] == 2 ? 0 : 2; /* a win becomes a loss, anything else a win */
            dtw[i] = wdl[i] == 2 ? 1 : 2;
        }
    }
}

/* t set up to rewrite sector s of tb: its values and depths read, the
 * flip at the first canonical slot from slots / part on.  Returns the
 * sector's slots. */
static uint64_t tamper_setup(mmtb_tb *tb, struct mmtb_sector s, uint64_t part, struct tamper *t)
{
    const mmtb_index *ix = mmtb_tb_index(tb);
    t->ix = ix;
    t->s = s;
    uint64_t slots = mmtb_index_slots(ix, s);
    t->wdl = malloc(slots);
    t->dtw = malloc(slots * sizeof *t->dtw);
    mmtb_ctx *ctx = NULL;
    ck_assert_int_eq(mmtb_ctx_create(&ctx, tb, 0), MMTB_OK);
    ck_assert_int_eq(mmtb_tb_read(ctx, s, 0, slots, t->wdl, t->dtw), MMTB_OK);
    mmtb_ctx_free(ctx);
    t->flip = slots / part;
    while (!mmtb_index_slot_is_canonical(ix, s, t->flip))
        t->flip++;
    return slots;
}

/* Open the tables of dir (*tb) and read sector s into t, as tamper_setup. */
static uint64_t open_tamper(const char *dir, struct mmtb_sector s, mmtb_tb **tb, struct tamper *t)
{
    ck_assert_int_eq(mmtb_tb_open(tb, dir, NULL), MMTB_OK);
    return tamper_setup(*tb, s, 2, t);
}

/* Write t's values as sector t->s of dir (through fill; t's arrays are
 * freed), then verify: mismatches in the whole directory and in that
 * sector alone (at least one: its predecessors in the same sector were
 * derived from the value before the change).  vo is left listing only[0],
 * that sector; its counter (vo->mismatches) is used. */
static void write_and_find(const char *dir, const struct mmtb_variant *v, struct tamper *t,
                           uint64_t slots, mmtb_fill_fn fill, struct gen_verify_opts *vo,
                           struct mmtb_sector only[1])
{
    char err[256] = "";
    struct mmtb_sector_stats st;
    ck_assert_msg(mmtb_table_write_sector(dir, v, t->s, slots, fill, t, NULL, &st, err,
                                          sizeof err) == MMTB_OK,
                  "%s", err);
    free(t->wdl);
    free(t->dtw);
    t->wdl = NULL;
    t->dtw = NULL;
    *vo->mismatches = 0;
    ck_assert_msg(mmtb_verify(vo, err, sizeof err) == MMTB_OK, "%s", err);
    ck_assert_uint_ge(*vo->mismatches, 1);
    only[0] = t->s;
    vo->only = only;
    vo->n_only = 1;
    *vo->mismatches = 0;
    ck_assert_msg(mmtb_verify(vo, err, sizeof err) == MMTB_OK, "%s", err);
    ck_assert_uint_ge(*vo->mismatches, 1);
}

START_TEST(verify_finds_a_wrong_value)
{
    struct gen_verify_opts vo;
    uint64_t bad = 99;
    char err[256] = "";
    char *dir = solve_verified("nine", 0, 0, 3, &vo, &bad);
    mmtb_tb *tb = NULL;
    struct tamper t;
    uint64_t slots = open_tamper(dir, (struct mmtb_sector){3, 3, 0, 0}, &tb, &t);
    struct mmtb_sector only[1];
    write_and_find(dir, mmtb_tb_variant(tb), &t, slots, tamper_fill, &vo, only);
    mmtb_tb_close(tb);

    /* a sector outside the game (beyond 3 stones) is refused by name */
    only[0] = (struct mmtb_sector){4, 3, 0, 0};
    ck_assert_int_eq(mmtb_verify(&vo, err, sizeof err), MMTB_ERR_INVALID);
    ck_assert_msg(strstr(err, "4-3") != NULL, "%s", err);
    remove_dir(dir);
}
END_TEST

/* One verify run with a ledger, its report read back: for each sector of
 * the game, whether it was taken from the ledger (1), checked (0) or not
 * reported (-1), and its mismatches. */
struct ledger_run {
    int from_ledger[8];
    uint64_t bad[8];
    struct mmtb_sector sec[8];
    int n;
};

static void verify_with_ledger(struct gen_verify_opts *vo, const char *ledger,
                               struct ledger_run *lr)
{
    char *text = NULL, err[256] = "";
    size_t len = 0;
    FILE *rep = open_memstream(&text, &len);
    ck_assert(rep != NULL);
    vo->report = rep;
    vo->quiet = false;
    vo->ledger = ledger;
    vo->only = NULL;
    vo->n_only = 0;
    ck_assert_msg(mmtb_verify(vo, err, sizeof err) == MMTB_OK, "%s", err);
    fclose(rep);
    vo->report = NULL;
    vo->quiet = true;
    vo->ledger = NULL;
    for (int k = 0; k < lr->n; k++)
        lr->from_ledger[k] = -1;
    for (char *line = text, *eol; line && *line; line = eol ? eol + 1 : NULL) {
        eol = strchr(line, '\n');
        char nm[32];
        unsigned long long chk = 0, nbad = 0;
        if (sscanf(line, "%31s checked %llu mismatches %llu", nm, &chk, &nbad) != 3)
            continue; /* the summary line */
        for (int k = 0; k < lr->n; k++) {
            char name[32];
            mmtb_sector_format(lr->sec[k], name, sizeof name);
            if (strcmp(name, nm))
                continue;
            lr->bad[k] = nbad;
            lr->from_ledger[k] =
                memmem(line, eol ? (size_t)(eol - line) : strlen(line), "(ledger)", 8) != NULL;
        }
    }
    free(text);
}

static bool sector_is(struct mmtb_sector a, struct mmtb_sector b)
{
    return a.w == b.w && a.b == b.b && a.w_hand == b.w_hand && a.b_hand == b.b_hand;
}

static int count_lines(const char *path)
{
    FILE *f = fopen(path, "r");
    ck_assert(f != NULL);
    int n = 0, c, last = '\n';
    while ((c = fgetc(f)) != EOF)
        n += (last = c) == '\n';
    fclose(f);
    ck_assert_msg(last == '\n', "%s does not end with a newline", path);
    return n;
}

/* verify --ledger: the second run takes every clean sector from the
 * ledger; after 3-3 is rewritten with a wrong value, 3-3 and exactly the
 * sectors whose moves lead into 3-3 (mmtb_sector_moves_to, the rule) are
 * checked again, the rest come from the ledger; a sector with mismatches
 * is never recorded, so the next run checks it again. */
START_TEST(verify_ledger_rechecks_what_changed)
{
    struct gen_verify_opts vo;
    uint64_t bad = 99;
    char *dir = solve_verified("nine", 0, 0, 4, &vo, &bad);
    char ledger[600];
    snprintf(ledger, sizeof ledger, "%s.ledger", dir);
    unlink(ledger);

    mmtb_tb *tb = NULL;
    ck_assert_int_eq(mmtb_tb_open(&tb, dir, NULL), MMTB_OK);
    const struct mmtb_variant *v = mmtb_tb_variant(tb);
    struct ledger_run lr;
    memset(&lr, 0, sizeof lr);
    lr.n = mmtb_tb_sector_count(tb);
    ck_assert_int_eq(lr.n, 4);
    for (int k = 0; k < lr.n; k++)
        mmtb_tb_sector_key(tb, k, &lr.sec[k]);

    verify_with_ledger(&vo, ledger, &lr); /* a new ledger: everything checked */
    for (int k = 0; k < lr.n; k++)
        ck_assert_int_eq(lr.from_ledger[k], 0);
    ck_assert_int_eq(count_lines(ledger), 1 + lr.n);
    verify_with_ledger(&vo, ledger, &lr); /* nothing changed: nothing checked */
    for (int k = 0; k < lr.n; k++)
        ck_assert_int_eq(lr.from_ledger[k], 1);
    ck_assert_int_eq(count_lines(ledger), 1 + lr.n);

    /* 3-3 rewritten with one value flipped */
    struct mmtb_sector s33 = {3, 3, 0, 0};
    struct tamper t;
    uint64_t slots = tamper_setup(tb, s33, 3, &t);
    char err[256] = "";
    struct mmtb_sector_stats st;
    ck_assert_msg(mmtb_table_write_sector(dir, v, s33, slots, tamper_fill, &t, NULL, &st, err,
                                          sizeof err) == MMTB_OK,
                  "%s", err);
    free(t.wdl);
    free(t.dtw);

    int lines = 1 + lr.n;
    for (int round = 0; round < 2; round++) {
        verify_with_ledger(&vo, ledger, &lr);
        int recorded = 0, rechecked = 0;
        for (int k = 0; k < lr.n; k++) {
            struct mmtb_sector to[8];
            int nt = mmtb_sector_moves_to(v, lr.sec[k], to);
            bool touched = sector_is(lr.sec[k], s33);
            for (int q = 0; q < nt; q++)
                touched = touched || sector_is(to[q], s33);
            /* after the first round only the mismatching 3-3 is left */
            bool want_check = round == 0 ? touched : sector_is(lr.sec[k], s33);
            ck_assert_msg(lr.from_ledger[k] == !want_check, "round %d sector %d: ledger %d",
                          round, k, lr.from_ledger[k]);
            if (sector_is(lr.sec[k], s33))
                ck_assert_uint_ge(lr.bad[k], 1);
            rechecked += want_check;
            recorded += want_check && lr.bad[k] == 0;
        }
        ck_assert_int_ge(rechecked, round == 0 ? 2 : 1); /* 3-3 and 3-4 at least */
        lines += recorded; /* the clean ones rechecked: a line each; 3-3 none */
        ck_assert_int_eq(count_lines(ledger), lines);
    }
    mmtb_tb_close(tb);
    unlink(ledger);
    remove_dir(dir);
}
END_TEST

/* The same for the plain path (sectors whose positions carry more than
 * their stones, format/ban_index.h): in the first such sector of the
 * solved game that has a won or lost position, that value is flipped
 * (a win becomes a loss in 2, a loss a win in 1), or only its depth
 * changed by 2 when depth_only; verify must find it. */
static void used_slots_fill(void *ctx, uint64_t first, uint64_t count, uint8_t *wdl,
                            uint16_t *dtw)
{
    const struct tamper *t = ctx;
    memcpy(wdl, t->wdl + first, count);
    memcpy(dtw, t->dtw + first, count * sizeof *dtw);
}

/* A placing side's successors are read where they lie: with the 3-3
 * movement sector rewritten as all draws, the sector whose last
 * placements lead there (2-3-1-0: the side to move places its third
 * stone) no longer derives its stored values, while the sector itself
 * (its own values now consistent with nothing) is not asked about. */
START_TEST(verify_reads_the_placements)
{
    struct gen_verify_opts vo;
    uint64_t bad = 99;
    char err[256] = "";
    char *dir = solve_verified("nine", 3, 3, 0, &vo, &bad);
    struct mmtb_sector s33 = {3, 3, 0, 0}, only[1] = {{2, 3, 1, 0}};
    mmtb_tb *tb = NULL;
    struct tamper t;
    uint64_t slots = open_tamper(dir, s33, &tb, &t);
    for (uint64_t i = 0; i < slots; i++) {
        t.wdl[i] = mmtb_index_slot_is_canonical(t.ix, s33, i) ? MMTB_TF_DRAW : MMTB_TF_UNUSED;
        t.dtw[i] = 0;
    }
    struct mmtb_sector_stats st;
    ck_assert_msg(mmtb_table_write_sector(dir, mmtb_tb_variant(tb), s33, slots, used_slots_fill,
                                          &t, NULL, &st, err, sizeof err) == MMTB_OK,
                  "%s", err);
    free(t.wdl);
    free(t.dtw);
    mmtb_tb_close(tb);
    vo.only = only;
    vo.n_only = 1;
    bad = 0;
    ck_assert_msg(mmtb_verify(&vo, err, sizeof err) == MMTB_OK, "%s", err);
    ck_assert_uint_ge(bad, 1000);
    remove_dir(dir);
}
END_TEST


/* from_base: the first such position among the states with restrictions
 * (or the other first-mill owner), slots from mmtb_ban_index_base on. */
static void tamper_plain(const char *variant, int wh, int bh, int max_stones, bool depth_only,
                         bool from_base)
{
    struct gen_verify_opts vo;
    uint64_t bad = 99;
    char *dir = solve_verified(variant, wh, bh, max_stones, &vo, &bad);

    mmtb_tb *tb = NULL;
    ck_assert_int_eq(mmtb_tb_open(&tb, dir, NULL), MMTB_OK);
    const struct mmtb_variant *v = mmtb_tb_variant(tb);
    const mmtb_index *ix = mmtb_tb_index(tb);
    mmtb_ctx *ctx = NULL;
    ck_assert_int_eq(mmtb_ctx_create(&ctx, tb, 0), MMTB_OK);
    struct tamper t;
    memset(&t, 0, sizeof t);
    t.flip = UINT64_MAX;
    uint64_t slots = 0;
    for (int k = 0; k < mmtb_tb_sector_count(tb) && t.flip == UINT64_MAX; k++) {
        struct mmtb_sector key;
        mmtb_tb_sector_key(tb, k, &key);
        if (!mmtb_ban_index_applies(v, key))
            continue;
        mmtb_ban_index *bx = NULL;
        ck_assert_int_eq(mmtb_ban_index_create(&bx, ix, key), MMTB_OK);
        slots = mmtb_ban_index_slots(bx);
        free(t.wdl);
        free(t.dtw);
        t.wdl = malloc(slots);
        t.dtw = malloc(slots * sizeof *t.dtw);
        ck_assert_int_eq(mmtb_tb_read(ctx, key, 0, slots, t.wdl, t.dtw), MMTB_OK);
        uint64_t i0 = from_base ? mmtb_ban_index_base(bx) : slots / 3;
        for (uint64_t i = i0; i < slots && t.flip == UINT64_MAX; i++) {
            struct mmtb_pos p;
            memset(&p, 0, sizeof p);
            p.hand[0] = key.w_hand;
            p.hand[1] = key.b_hand;
            mmtb_ban_index_unrank_pos(bx, i, &p);
            if (mmtb_ban_index_rank_pos(bx, &p) == i && (t.wdl[i] == 0 || t.wdl[i] == 2) &&
                mmtb_pos_terminal(v, &p) == MMTB_NOT_TERMINAL)
                t.flip = i, t.s = key;
        }
        mmtb_ban_index_free(bx);
    }
    mmtb_ctx_free(ctx);
    ck_assert_msg(t.flip != UINT64_MAX, "%s: no decided position in a sector with more state",
                  variant);
    if (depth_only) {
        t.dtw[t.flip] += 2;
    } else {
        t.wdl[t.flip] = t.wdl[t.flip] == 2 ? 0 : 2;
        t.dtw[t.flip] = t.wdl[t.flip] == 2 ? 1 : 2;
    }
    struct mmtb_sector only[1];
    write_and_find(dir, v, &t, slots, used_slots_fill, &vo, only);
    /* and position by position through format/movegen.c's rules */
    char err[256] = "";
    vo.by_rules = true;
    *vo.mismatches = 0;
    ck_assert_msg(mmtb_verify(&vo, err, sizeof err) == MMTB_OK, "%s", err);
    ck_assert_uint_ge(*vo.mismatches, 1);
    mmtb_tb_close(tb);
    remove_dir(dir);
}

/* verify's JSON report of dir, one way or the other. */
static char *verify_report(const char *dir, bool by_rules)
{
    char *text = NULL, err[256] = "";
    size_t len = 0;
    uint64_t bad = 99;
    FILE *rep = open_memstream(&text, &len);
    ck_assert(rep != NULL);
    struct gen_verify_opts vo = {.dir = dir, .threads = 2, .report = rep, .json = true,
                                 .mismatches = &bad, .by_rules = by_rules};
    ck_assert_msg(mmtb_verify(&vo, err, sizeof err) == MMTB_OK, "%s: %s", dir, err);
    fclose(rep);
    ck_assert_msg(bad == 0, "%s: %llu mismatches", dir, (unsigned long long)bad);
    return text;
}

/* The re-close sectors verified on the solver's bitboards, grouped by
 * stones, and one by one through format/movegen.c's rules: the same
 * positions checked, sector by sector, none disagreeing.  Twelve from its
 * start 4,4; the variants that differ from it in one rule (captures from
 * mills, no diagonal mills) from 3,3, which has their restrictions too and
 * costs 1/80 of 4,4 under the sanitizers (4,4 took a third of CI's time in
 * this suite). */
START_TEST(verify_paths_agree)
{
    static const struct {
        const char *variant;
        int start;
    } games[] = {{"twelve", 4}, {"twelve-immune", 3}, {"twelve-nine", 3}};
    for (size_t k = 0; k < sizeof games / sizeof games[0]; k++) {
        const char *variant = games[k].variant;
        char *dir = solve_into(variant, games[k].start, games[k].start, 0, NULL);
        char *fast = verify_report(dir, false), *rules = verify_report(dir, true);
        ck_assert_msg(strstr(fast, "\"checked\":") != NULL, "%s", fast);
        ck_assert_msg(strcmp(fast, rules) == 0, "%s:\n%s\n%s", variant, fast, rules);
        free(fast);
        free(rules);
        remove_dir(dir);
    }
}
END_TEST

START_TEST(verify_finds_a_wrong_value_with_more_state)
{
    tamper_plain("twelve", 0, 0, 3, false, false); /* re-close restrictions */
    tamper_plain("twelve", 0, 0, 3, true, false);
    tamper_plain("twelve", 0, 0, 3, false, true); /* a state with a restriction */
    tamper_plain("twelve", 0, 0, 3, true, true);
    tamper_plain("shah", 3, 3, 0, false, false); /* the first-mill owner */
    tamper_plain("shah", 3, 3, 0, true, false);
}
END_TEST

/*
 * The count table a re-close sector file carries (FORMAT.md, "Count
 * table"): the solver writes it, readers rank by it, and verify checks it
 * against the positions.  Two counts exchanged between blocks keep every
 * check at open (the total is right) but misrank; verify must refuse the
 * sector, naming the entry.
 */
START_TEST(verify_checks_the_count_table)
{
    struct gen_verify_opts vo;
    uint64_t bad = 99;
    char err[256] = "";
    char *dir = solve_verified("twelve", 0, 0, 3, &vo, &bad);
    mmtb_tb *tb = NULL;
    ck_assert_int_eq(mmtb_tb_open(&tb, dir, NULL), MMTB_OK);
    const struct mmtb_variant *v = mmtb_tb_variant(tb);
    const mmtb_index *ix = mmtb_tb_index(tb);
    struct tamper t;
    memset(&t, 0, sizeof t);
    t.s = (struct mmtb_sector){3, 3, 0, 0};
    mmtb_ban_index *bx = NULL;
    ck_assert_int_eq(mmtb_ban_index_create(&bx, ix, t.s), MMTB_OK);
    uint64_t slots = mmtb_ban_index_slots(bx);
    t.wdl = malloc(slots);
    t.dtw = malloc(slots * sizeof *t.dtw);
    mmtb_ctx *ctx = NULL;
    ck_assert_int_eq(mmtb_ctx_create(&ctx, tb, 0), MMTB_OK);
    ck_assert_int_eq(mmtb_tb_read(ctx, t.s, 0, slots, t.wdl, t.dtw), MMTB_OK);
    mmtb_ctx_free(ctx);
    /* the solver's file has the table, of the default block size */
    char path[512];
    snprintf(path, sizeof path, "%s/3-3.mmtb", dir);
    FILE *f = fopen(path, "rb");
    uint8_t hb[MMTB_TF_HEADER_SIZE];
    ck_assert(f && fread(hb, 1, sizeof hb, f) == sizeof hb);
    fclose(f);
    struct mmtb_tf_header h;
    ck_assert_int_eq(mmtb_tf_header_decode(hb, sizeof hb, &h), MMTB_OK);
    ck_assert_uint_eq(h.count_block_log2, MMTB_BAN_BLOCK_LOG2);
    uint64_t n = mmtb_ban_index_blocks(bx, MMTB_BAN_BLOCK_LOG2);
    ck_assert_uint_eq(h.count_blocks, n);

    /* rewrite it with two unequal neighbouring counts exchanged */
    uint32_t *c = malloc(n * sizeof *c);
    ck_assert_int_eq(mmtb_ban_index_block_counts(bx, MMTB_BAN_BLOCK_LOG2, c), MMTB_OK);
    uint64_t k = n / 2;
    while (k + 1 < n && c[k] == c[k + 1])
        k++;
    ck_assert(k + 1 < n);
    uint32_t x = c[k];
    c[k] = c[k + 1];
    c[k + 1] = x;
    struct mmtb_write_opts wo = {.counts = c,
                                 .count_blocks = (uint32_t)n,
                                 .count_block_log2 = MMTB_BAN_BLOCK_LOG2};
    ck_assert_msg(mmtb_table_write_sector(dir, v, t.s, slots, used_slots_fill, &t, &wo, NULL, err,
                                          sizeof err) == MMTB_OK,
                  "%s", err);
    char want[64];
    snprintf(want, sizeof want, "count table entry %llu is", (unsigned long long)k);
    ck_assert_int_eq(mmtb_verify(&vo, err, sizeof err), MMTB_ERR_CORRUPT);
    ck_assert_msg(strstr(err, "3-3.mmtb") && strstr(err, want), "%s", err);
    mmtb_tb_close(tb);
    free(c);
    free(t.wdl);
    free(t.dtw);
    mmtb_ban_index_free(bx);
    remove_dir(dir);
}
END_TEST

/* Variants without published numbers: their tables must at least be
 * consistent one ply deep (every value re-derived from its successors).
 * Lasker exercises the place-or-move cycles and the per-level buckets. */
static void solve_and_verify(const char *variant, int wh, int bh, int max_stones)
{
    struct gen_verify_opts vo;
    uint64_t bad = 99;
    remove_dir(solve_verified(variant, wh, bh, max_stones, &vo, &bad));
}

START_TEST(other_variants_consistent)
{
    solve_and_verify("lasker", 3, 3, 0);
    solve_and_verify("nine-diag", 0, 0, 3);
    solve_and_verify("morabaraba", 0, 0, 3);
    solve_and_verify("three", 3, 3, 0);
    /* placement sectors with mills and captures: acyclic, so one ply
     * forward checks every value and depth completely */
    solve_and_verify("nine", 4, 4, 0);
}
END_TEST

/* Games whose rules differ only where stones are still in hand play the
 * same movement phase: Morabaraba is nine-diag with 12 stones and a full
 * board drawn after placement, Lasker is nine with 10 stones that may also
 * slide while in hand.  Their movement sectors must hold the same counts
 * and longest wins and losses, sector by sector. */
static void same_movement(const char *a, const char *b, int max_stones)
{
    char *da = solve_into(a, 0, 0, max_stones, NULL), *db = solve_into(b, 0, 0, max_stones, NULL);
    mmtb_tb *ta = NULL, *tb = NULL;
    ck_assert_int_eq(mmtb_tb_open(&ta, da, NULL), MMTB_OK);
    ck_assert_int_eq(mmtb_tb_open(&tb, db, NULL), MMTB_OK);
    int n = mmtb_tb_sector_count(ta);
    ck_assert_int_eq(n, mmtb_tb_sector_count(tb));
    ck_assert_int_ge(n, 4);
    for (int i = 0; i < n; i++) {
        struct mmtb_sector_info ia, ib;
        ck_assert_int_eq(mmtb_tb_sector_info(ta, i, &ia), MMTB_OK);
        ck_assert_int_eq(ia.status, MMTB_OK);
        int j = mmtb_tb_sector_find(tb, ia.sector);
        ck_assert_int_ge(j, 0);
        ck_assert_int_eq(mmtb_tb_sector_info(tb, j, &ib), MMTB_OK);
        ck_assert_int_eq(ib.status, MMTB_OK);
        const struct mmtb_sector_stats *x = &ia.stats, *y = &ib.stats;
        ck_assert_msg(x->slots == y->slots && x->wins == y->wins && x->draws == y->draws &&
                          x->losses == y->losses && x->max_win == y->max_win &&
                          x->max_loss == y->max_loss,
                      "%s and %s differ in sector %d-%d", a, b, ia.sector.w, ia.sector.b);
    }
    mmtb_tb_close(ta);
    mmtb_tb_close(tb);
    remove_dir(da);
    remove_dir(db);
}

START_TEST(shared_rules_same_movement)
{
    same_movement("nine-diag", "morabaraba", 4);
    same_movement("nine", "lasker", 4);
}
END_TEST

/* Every file of directory a is in b with the same bytes, and b has no
 * other files; returns the number of files. */
static int same_files(const char *a, const char *b)
{
    int n = 0, nb = 0;
    DIR *d = opendir(a);
    ck_assert_ptr_nonnull(d);
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        char pa[4096], pb[4096];
        snprintf(pa, sizeof pa, "%s/%s", a, e->d_name);
        snprintf(pb, sizeof pb, "%s/%s", b, e->d_name);
        size_t la = 0, lb = 0;
        uint8_t *ba = tl_read_file(pa, &la), *bb = tl_read_file(pb, &lb);
        ck_assert_msg(ba && bb, "%s or %s cannot be read", pa, pb);
        ck_assert_msg(la == lb && memcmp(ba, bb, la) == 0, "%s and %s differ", pa, pb);
        free(ba);
        free(bb);
        n++;
    }
    closedir(d);
    d = opendir(b);
    ck_assert_ptr_nonnull(d);
    while ((e = readdir(d)) != NULL)
        nb += e->d_name[0] != '.';
    closedir(d);
    ck_assert_int_eq(n, nb);
    return n;
}

/* Solve variant (start wh,bh or the movement phase up to max) into dir
 * with --verify-behind dir.ledger and, when pack, --pack-behind; the
 * status, err filled, *bad the mismatches. */
static int solve_behind(const char *variant, int wh, int bh, int max, const char *dir, bool pack,
                        uint64_t *bad, char *err, size_t errlen)
{
    char ledger[600];
    snprintf(ledger, sizeof ledger, "%s.ledger", dir);
    struct mmtb_solve_opts o;
    solve_opts(&o, variant, wh, bh, max, dir);
    o.verify_behind = ledger;
    o.pack_behind = pack;
    *bad = 0;
    o.mismatches = bad;
    return mmtb_solve(&o, err, errlen);
}

static int ledger_lines(const char *dir)
{
    char ledger[600];
    snprintf(ledger, sizeof ledger, "%s.ledger", dir);
    return count_lines(ledger);
}

static void remove_behind(char *dir)
{
    char ledger[600];
    snprintf(ledger, sizeof ledger, "%s.ledger", dir);
    unlink(ledger);
    remove_dir(dir);
}

/* --verify-behind with --pack-behind: the files are those of a plain solve
 * packed afterwards (every sector verified before anything it reads was
 * packed, or the verify would have failed on a packed file), the ledger
 * records each sector once, and a rerun changes nothing; nine's placement
 * game and twelve-nine's start 3,3 (re-close states). */
START_TEST(verify_and_pack_behind_same_files)
{
    const struct game { const char *variant; int wh, bh, max, nsect; } games[] = {
        {"nine", 4, 4, 0, 18}, {"twelve-nine", 3, 3, 0, 7}};
    for (size_t g = 0; g < sizeof games / sizeof games[0]; g++) {
        const struct game *G = &games[g];
        char *plain = solve_into(G->variant, G->wh, G->bh, G->max, NULL);
        char err[512] = "";
        struct mmtb_pack_opts po = {.dir = plain, .threads = 2, .quiet = true};
        ck_assert_msg(mmtb_pack(&po, NULL, err, sizeof err) == MMTB_OK, "%s", err);
        char *dir = strdup("/tmp/mmtb-behind-XXXXXX");
        ck_assert_ptr_nonnull(mkdtemp(dir));
        uint64_t bad = 99;
        for (int round = 0; round < 2; round++) {
            int rc = solve_behind(G->variant, G->wh, G->bh, G->max, dir, true, &bad, err,
                                  sizeof err);
            ck_assert_msg(rc == MMTB_OK && bad == 0, "%s round %d: %s", G->variant, round, err);
            ck_assert_int_eq(same_files(plain, dir), G->nsect + 1); /* and the manifest */
            ck_assert_int_eq(ledger_lines(dir), 1 + G->nsect);
        }
        remove_dir(plain);
        remove_behind(dir);
    }
}
END_TEST

/* A solved sector with a wrong value: the rerun with --verify-behind
 * verifies the solved sectors first, stops with MMTB_ERR_CORRUPT naming
 * it, solves nothing more and does not record it; tables packed by `pack`
 * with no ledger are refused by name. */
START_TEST(verify_behind_stops_at_a_wrong_value)
{
    char *dir = solve_into("nine", 0, 0, 3, NULL);
    mmtb_tb *tb = NULL;
    struct tamper t;
    uint64_t slots = open_tamper(dir, (struct mmtb_sector){3, 3, 0, 0}, &tb, &t);
    char err[512] = "";
    struct mmtb_sector_stats st;
    ck_assert_msg(mmtb_table_write_sector(dir, mmtb_tb_variant(tb), t.s, slots, tamper_fill, &t,
                                          NULL, &st, err, sizeof err) == MMTB_OK,
                  "%s", err);
    free(t.wdl);
    free(t.dtw);
    mmtb_tb_close(tb);
    uint64_t bad = 0;
    int rc = solve_behind("nine", 0, 0, 4, dir, true, &bad, err, sizeof err);
    ck_assert_int_eq(rc, MMTB_ERR_CORRUPT);
    ck_assert_uint_ge(bad, 1);
    ck_assert_msg(strstr(err, "3-3") && strstr(err, "mismatches"), "%s", err);
    char path[600];
    snprintf(path, sizeof path, "%s/4-4.mmtb", dir);
    ck_assert_int_ne(access(path, F_OK), 0); /* nothing solved after it */
    /* 3-3 is the only sector up to 3 stones: the ledger holds its header alone */
    ck_assert_int_eq(ledger_lines(dir), 1);
    remove_behind(dir);

    dir = solve_into("nine", 0, 0, 3, NULL);
    struct mmtb_pack_opts po = {.dir = dir, .threads = 2, .quiet = true};
    ck_assert_msg(mmtb_pack(&po, NULL, err, sizeof err) == MMTB_OK, "%s", err);
    rc = solve_behind("nine", 0, 0, 3, dir, false, &bad, err, sizeof err);
    ck_assert_int_eq(rc, MMTB_ERR_INVALID);
    ck_assert_msg(strstr(err, "not in the ledger") && strstr(err, "is packed"), "%s", err);
    remove_behind(dir);
}
END_TEST

/* A game to solve: variant, stones in hand at the start (0, 0: the
 * movement phase up to max stones a side). */
struct game {
    const char *variant;
    int wh, bh, max;
};

/* Solve each game once per value of *knob (vals[0] is the normal setting,
 * restored afterwards): every run must write the same files as the first. */
static void same_tables_for(const struct game *games, size_t ng, int *knob, const int *vals,
                            int nv)
{
    for (size_t i = 0; i < ng; i++) {
        char *d[3];
        ck_assert_int_le(nv, 3);
        for (int k = 0; k < nv; k++) {
            *knob = vals[k];
            d[k] = solve_into(games[i].variant, games[i].wh, games[i].bh, games[i].max, NULL);
        }
        *knob = vals[0];
        for (int k = 1; k < nv; k++)
            ck_assert_int_ge(same_files(d[0], d[k]), 2);
        for (int k = 0; k < nv; k++)
            remove_dir(d[k]);
    }
}

/* Depths of 63 and more take another path through the solver (the deep
 * lists, also filled by the init pass in placement sectors), which these
 * games never reach: starting it at depth 1 must give the same tables. */
START_TEST(deep_path_same_tables)
{
    static const struct game games[] = {
        {"lasker", 3, 3, 0}, {"nine", 4, 4, 0}, {"nine-diag", 0, 0, 3}};
    static const int from[] = {0, 1};
    same_tables_for(games, sizeof games / sizeof games[0], &g_deep_from, from, 2);
}
END_TEST

/* Levels forced forward, forced backward and chosen by cost give the same
 * bytes: in-pair moves during placement (lasker), none (nine from 3 v 3 in
 * hand), the movement phase with sectors that are their own partner (nine,
 * nine-diag).  Forced forward is the slow way (nine up to 4: 26 s against
 * 2 s by cost in Release), so the games are the small ones that reach it. */
START_TEST(forward_backward_same_tables)
{
    static const struct game games[] = {
        {"lasker", 3, 3, 0}, {"nine", 3, 3, 0}, {"nine", 0, 0, 3}, {"nine-diag", 0, 0, 3}};
    static const int way[] = {0, -1, 1};
    same_tables_for(games, sizeof games / sizeof games[0], &g_forward, way, 3);
}
END_TEST

/* Solved sectors re-filed by the side not to move (the default, where
 * only captures lead into them and the positions are walked in their own
 * order) and kept as they are give the same bytes: the movement phase
 * (nine and nine-diag up to 4: 4-4's captures read 4-3 and 3-4 re-filed)
 * and placements that also move (lasker). */
START_TEST(swapped_deps_same_tables)
{
    static const struct game games[] = {
        {"nine", 0, 0, 4}, {"nine-diag", 0, 0, 4}, {"lasker", 3, 3, 0}};
    static const int swap[] = {0, -1};
    same_tables_for(games, sizeof games / sizeof games[0], &g_swap, swap, 2);
}
END_TEST

/* The levels take each level's bucket streams in rounds (buckets.c, 1 MiB
 * a stream by default, so small games take one round): rounds of 1 and 7
 * bytes, where the entries' varints straddle the rounds and each round
 * must go on from the last entry of the one before, give the same bytes.
 * Outside results that wait for their level: placements that also slide
 * (lasker), captures in the movement phase (nine). */
START_TEST(bucket_rounds_same_tables)
{
    static const struct game games[] = {
        {"lasker", 3, 3, 0}, {"nine", 0, 0, 4}};
    static const int bytes[] = {0, 1, 7};
    same_tables_for(games, sizeof games / sizeof games[0], &g_round, bytes, 3);
}
END_TEST

/* Placement sectors initialised grouped by the opponent's stones a block
 * at a time (the default), grouped one position at a time, and in their
 * own order give the same bytes: placements with captures (nine from 4 v 4
 * in hand, nine-diag from 3 v 3, morabaraba from 4 v 4, whose captures
 * wait while the opponent is blocked), placements that may also slide
 * (lasker), a first mill that wins (three), and placements whose positions
 * carry re-close restrictions (twelve-nine and twelve from 3 v 3: their
 * quiet placements ranked through the walk's stones, bans.c). */
START_TEST(init_walk_same_tables)
{
    static const struct game games[] = {{"nine", 4, 4, 0},        {"nine-diag", 3, 3, 0},
                                        {"lasker", 3, 3, 0},      {"twelve-nine", 3, 3, 0},
                                        {"twelve", 3, 3, 0},      {"morabaraba", 4, 4, 0},
                                        {"three", 3, 3, 0}};
    static const int walk[] = {0, -1, 1};
    same_tables_for(games, sizeof games / sizeof games[0], &g_walk, walk, 3);
    /* Six Men's Morris whose captures wait while the opponent is blocked:
     * its board fills, so positions where they wait occur (137 in the
     * whole game) */
    const char *text = mmtb_variant_builtin_text("six");
    ck_assert_ptr_nonnull(text);
    char path[] = "/tmp/mmtb-known-six-wait-XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    FILE *f = fdopen(fd, "w");
    ck_assert_ptr_nonnull(f);
    fprintf(f, "%s\ntrapped-capture no\n", text);
    ck_assert_int_eq(fclose(f), 0);
    const struct game wait[] = {{path, 6, 6, 0}};
    same_tables_for(wait, 1, &g_walk, walk, 3);
    unlink(path);
    /* a board that fills when placement ends, a draw there (Morabaraba's
     * rule): six's board with eight stones a side */
    char fpath[] = "/tmp/mmtb-known-six-full-XXXXXX";
    fd = mkstemp(fpath);
    ck_assert_int_ge(fd, 0);
    f = fdopen(fd, "w");
    ck_assert_ptr_nonnull(f);
    const char *stones = strstr(text, "\nstones 6\n");
    ck_assert_ptr_nonnull(stones);
    fprintf(f, "%.*s\nstones 8\n%s\nfull-board-draw yes\n", (int)(stones - text), text,
            stones + strlen("\nstones 6\n"));
    ck_assert_int_eq(fclose(f), 0);
    const struct game full[] = {{fpath, 8, 8, 0}};
    same_tables_for(full, 1, &g_walk, walk, 3);
    unlink(fpath);
}
END_TEST

/* The placement sectors of the re-close rule where both sides still have
 * stones in hand carry no restriction, and go the plain way (job.h,
 * sectors_plain_init); where only the side to move places, its states
 * without restrictions do (gen/bans.c, bans_base_by_blocks): the same
 * bytes as through the init of positions with restrictions alone, the two
 * implementations checking each other, the immune rule and nine stones on
 * the diagonal board included (twelve-nine from 4 v 4, whose sectors where
 * one side places hold states with restrictions; from 3 v 3 none: a mill
 * ends its game). */
START_TEST(reclose_plain_init_same_tables)
{
    static const struct game games[] = {
        {"twelve-nine", 4, 4, 0}, {"twelve", 3, 3, 0}, {"twelve-immune", 3, 3, 0}};
    static const int way[] = {0, 1};
    same_tables_for(games, sizeof games / sizeof games[0], &g_state, way, 2);
}
END_TEST

/* The waiting outside results kept on disk (a pair over its memory), a
 * stream written there after every entry (1 byte) or every 64 bytes (its
 * coding going on across the segments), give the same bytes as kept in
 * memory: captures in the movement phase (nine, and twelve's with its
 * restriction states, to 3 v 3), placements that also slide (lasker), and
 * the whole of twelve-nine from 3 v 3. */
START_TEST(buckets_on_disk_same_tables)
{
    static const struct game games[] = {
        {"nine", 0, 0, 4}, {"lasker", 3, 3, 0}, {"twelve", 0, 0, 3}, {"twelve-nine", 3, 3, 0}};
    static const int seg[] = {0, 1, 64};
    same_tables_for(games, sizeof games / sizeof games[0], &g_spill, seg, 3);
}
END_TEST

static Suite *known_suite(void)
{
    Suite *s = suite_create("known");
    TCase *tc = tcase_create("published");
    tcase_set_timeout(tc, 900);
    tcase_add_test(tc, nine_movement_up_to_5);
    tcase_add_test(tc, three_diag_centre_only);
    tcase_add_test(tc, six_start_is_draw);
    tcase_add_test(tc, nine_4v4_start_is_draw);
    tcase_add_test(tc, only_one_sector);
    tcase_add_test(tc, rerun_resumes);
    tcase_add_test(tc, verify_finds_a_wrong_value);
    tcase_add_test(tc, verify_reads_the_placements);
    tcase_add_test(tc, verify_finds_a_wrong_value_with_more_state);
    tcase_add_test(tc, verify_paths_agree);
    tcase_add_test(tc, verify_checks_the_count_table);
    tcase_add_test(tc, verify_ledger_rechecks_what_changed);
    tcase_add_test(tc, other_variants_consistent);
    tcase_add_test(tc, shared_rules_same_movement);
    tcase_add_test(tc, deep_path_same_tables);
    tcase_add_test(tc, forward_backward_same_tables);
    tcase_add_test(tc, swapped_deps_same_tables);
    tcase_add_test(tc, init_walk_same_tables);
    tcase_add_test(tc, reclose_plain_init_same_tables);
    tcase_add_test(tc, bucket_rounds_same_tables);
    tcase_add_test(tc, buckets_on_disk_same_tables);
    suite_add_tcase(s, tc);
    tc = tcase_create("behind"); /* a solve's --verify-behind and --pack-behind */
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, verify_and_pack_behind_same_files);
    tcase_add_test(tc, verify_behind_stops_at_a_wrong_value);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(known_suite());
    /* The solver runs OpenMP regions; keep them in one process. */
    srunner_set_fork_status(sr, CK_NOFORK);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
