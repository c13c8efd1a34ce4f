/*
 * check_verify.c - tests of verifying games and engines against the tables:
 * `mmtb-probe annotate`, `check` and `engine` (through a pipe, as a GUI or
 * a match runner drives it), run as users run them.
 * Expected verdicts come from known facts (three-diag is won only by
 * opening in the centre; a completed mill ends it), from the rules (illegal
 * moves designed by hand), and from libmmtb's move list probed in-process
 * (mmtb_probe_moves), a path the commands do not take.
 */
#define _GNU_SOURCE
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mmtb.h"
#include "movegen.h"
#include "notation.h"
#include "testlib_cli.h"
#include "testlib_util.h"

extern char **environ;

static char tdir[256];                 /* the generated tables live below it */
static char t3d[300], t6[300], tn3[300]; /* three-diag, six, nine up to 3 stones */
static char t3m[300];                    /* three-diag's movement phase only */

/* Write text to a new file in tdir; returns its path (static buffer per slot). */
static const char *write_input(int slot, const char *text)
{
    static char path[8][400];
    snprintf(path[slot], sizeof path[slot], "%s/input%d.txt", tdir, slot);
    FILE *f = fopen(path[slot], "w");
    ck_assert_msg(f != NULL, "cannot write %s", path[slot]);
    fputs(text, f);
    fclose(f);
    return path[slot];
}

/* The value of move `mv` (text) from position `pos` and the position's
 * value, by libmmtb's mmtb_probe_moves in this process. */
struct expect {
    struct mmtb_value pos, move;
    bool best;
};

static struct expect expect_move(const char *dir, const char *pos, const char *mv)
{
    mmtb_tb *tb;
    mmtb_ctx *ctx;
    ck_assert_int_eq(mmtb_tb_open(&tb, dir, NULL), MMTB_OK);
    ck_assert_int_eq(mmtb_ctx_create(&ctx, tb, 0), MMTB_OK);
    const struct mmtb_variant *v = mmtb_tb_variant(tb);
    struct mmtb_pos p;
    struct mmtb_move m;
    ck_assert_int_eq(mmtb_pos_parse(v, pos, &p, NULL, 0), MMTB_OK);
    ck_assert_int_eq(mmtb_move_parse(v, mv, &m, NULL, 0), MMTB_OK);
    struct mmtb_move_value *all = malloc(sizeof *all * MMTB_MAX_MOVES);
    ck_assert(all != NULL);
    int n = mmtb_probe_moves(ctx, &p, all, MMTB_MAX_MOVES);
    ck_assert_int_gt(n, 0);
    struct expect e = {all[0].value, {0, 0}, false};
    bool found = false;
    for (int i = 0; i < n; i++)
        if (all[i].move.from == m.from && all[i].move.to == m.to &&
            all[i].move.remove == m.remove) {
            e.move = all[i].value;
            found = true;
        }
    ck_assert_msg(found, "%s is not a legal move of %s", mv, pos);
    e.best = e.move.wdl == e.pos.wdl && (e.pos.wdl == MMTB_DRAW || e.move.dtw == e.pos.dtw);
    free(all);
    mmtb_ctx_free(ctx);
    mmtb_tb_close(tb);
    return e;
}

static const char *wdl_name(int wdl)
{
    return wdl > 0 ? "win" : wdl < 0 ? "loss" : "draw";
}

/* A JSON value object {"wdl":..,"dtw":..} must equal v. */
static void assert_value(const struct tl_jv *j, const struct mmtb_value *v, const char *what)
{
    ck_assert_msg(j && j->t == J_OBJ, "%s: not an object", what);
    ck_assert_str_eq(tl_jget_s(j, "wdl"), wdl_name(v->wdl));
    const struct tl_jv *d = tl_jget(j, "dtw");
    ck_assert_msg(d != NULL, "%s: no dtw", what);
    if (v->wdl == MMTB_DRAW)
        ck_assert_msg(d->t == J_NULL, "%s: a draw's dtw must be null", what);
    else
        ck_assert_msg(d->t == J_NUM && d->is_uint && (int)d->u == v->dtw,
                      "%s: dtw %g, expected %d", what, d->num, v->dtw);
}

/* Item i of a JSON array member. */
static const struct tl_jv *jitem(const struct tl_jv *v, const char *key, int i)
{
    const struct tl_jv *a = tl_jget(v, key);
    ck_assert_msg(a && a->t == J_ARR, "'%s' missing or not an array", key);
    ck_assert_msg(i < a->n, "'%s' has %d items, wanted item %d", key, a->n, i);
    return &a->item[i];
}

/* ---------------------------------------------------------------------- */
/* annotate                                                               */
/* ---------------------------------------------------------------------- */

/* Three Men's Morris with diagonals is won only by opening in the centre:
 * b2 is best; a corner opening throws the win away.  Every ply's values
 * must be those of libmmtb's move list. */
START_TEST(annotate_three_diag_error_at_known_ply)
{
    const char *in = write_input(0, "# a game with a White error at ply 3\n"
                                    "1. b2 a1 2. c1 a3 1/2-1/2\n");
    struct tl_result r;
    tl_run(&r, NULL, "annotate", "-t", t3d, "--json", in, NULL);
    ck_assert_msg(r.code == 0, "exit %d: %s", r.code, r.err);
    struct tl_jv *doc = tl_json_parse(r.out);
    ck_assert_msg(doc != NULL, "not JSON:\n%s", r.out);
    const struct tl_jv *g = jitem(doc, "games", 0);
    ck_assert_int_eq(tl_jget_u(g, "line"), 2);
    ck_assert_str_eq(tl_jget_s(g, "result"), "1/2-1/2");
    static const char *const pos[] = {"- - w 3 3", "b2 - b 2 3", "b2 a1 w 2 2", "b2,c1 a1 b 1 2"};
    static const char *const mv[] = {"b2", "a1", "c1", "a3"};
    int errors = 0;
    for (int i = 0; i < 4; i++) {
        struct expect e = expect_move(t3d, pos[i], mv[i]);
        const struct tl_jv *p = jitem(g, "plies", i);
        ck_assert_int_eq(tl_jget_u(p, "ply"), (unsigned)i + 1);
        ck_assert_str_eq(tl_jget_s(p, "mover"), i % 2 ? "black" : "white");
        ck_assert_str_eq(tl_jget_s(p, "move"), mv[i]);
        /* the position before the ply, the same one as pos[i] */
        struct mmtb_variant *v3 = tl_load_variant("three-diag");
        struct mmtb_pos a, b;
        ck_assert_int_eq(mmtb_pos_parse(v3, tl_jget_s(p, "position"), &a, NULL, 0), MMTB_OK);
        ck_assert_int_eq(mmtb_pos_parse(v3, pos[i], &b, NULL, 0), MMTB_OK);
        ck_assert_msg(a.stones[0] == b.stones[0] && a.stones[1] == b.stones[1] &&
                          a.hand[0] == b.hand[0] && a.hand[1] == b.hand[1] && a.side == b.side,
                      "ply %d: position %s, expected %s", i + 1, tl_jget_s(p, "position"), pos[i]);
        mmtb_variant_free(v3);
        assert_value(tl_jget(p, "before"), &e.pos, "before");
        assert_value(tl_jget(p, "after"), &e.move, "after");
        const char *verdict = tl_jget_s(p, "verdict");
        if (e.best)
            ck_assert_str_eq(verdict, "best");
        else if (e.move.wdl == e.pos.wdl)
            ck_assert_str_eq(verdict, "keeps");
        else {
            ck_assert_str_eq(verdict, "error");
            errors++;
        }
    }
    /* the known facts: b2 keeps the first player's win, c1 after b2 a1 does not
     * (b2 is the only winning opening and the win must be kept by White) */
    ck_assert_str_eq(tl_jget_s(jitem(g, "plies", 0), "verdict"), "best");
    const struct tl_jv *p3 = jitem(g, "plies", 2);
    ck_assert_str_eq(tl_jget_s(p3, "verdict"), "error");
    ck_assert_str_eq(tl_jget_s(tl_jget(p3, "before"), "wdl"), "win");
    const struct tl_jv *best = tl_jget(p3, "best");
    ck_assert_msg(best && best->t == J_ARR && best->n >= 1, "an error lists the best moves");
    const struct tl_jv *s = tl_jget(g, "summary");
    ck_assert_int_eq(tl_jget_u(s, "errors"), (unsigned)errors);
    ck_assert_int_eq(tl_jget_u(s, "first_error_ply"), 3);
    ck_assert_int_eq(tl_jget_u(tl_jget(s, "errors_by_side"), "white"), 1);
    tl_json_free(doc);
    tl_result_free(&r);

    /* opening in a corner is already an error at ply 1 */
    tl_run(&r, "a1 b2\n", "annotate", "-t", t3d, "--json", NULL);
    ck_assert_int_eq(r.code, 0);
    doc = tl_json_parse(r.out);
    ck_assert(doc != NULL);
    const struct tl_jv *p1 = jitem(jitem(doc, "games", 0), "plies", 0);
    ck_assert_str_eq(tl_jget_s(p1, "verdict"), "error");
    ck_assert_str_eq(tl_jget_s(p1, "error"), "win->draw");
    const struct tl_jv *b0 = jitem(p1, "best", 0);
    ck_assert(b0->t == J_STR && strcmp(b0->s, "b2") == 0);
    tl_json_free(doc);
    tl_result_free(&r);
}
END_TEST

/* A game that ends in White's mill (first mill wins) was won by White; a
 * record that says 0-1 contradicts it, one that says 1-0 agrees. */
START_TEST(annotate_recorded_result_against_the_tables)
{
    const char *in = write_input(1, "b2 a1 c2 a2 a3 c1 b2-b3 a1-b1 c2-c3 0-1\n"
                                    "b2 a1 c2 a2 a3 c1 b2-b3 a1-b1 c2-c3 1-0\n"
                                    "b2 a1 *\n");
    struct tl_result r;
    tl_run(&r, NULL, "annotate", "-t", t3d, "--json", in, NULL);
    ck_assert_msg(r.code == 0, "exit %d: %s", r.code, r.err);
    struct tl_jv *doc = tl_json_parse(r.out);
    ck_assert(doc != NULL);
    for (int gi = 0; gi < 2; gi++) {
        const struct tl_jv *s = tl_jget(jitem(doc, "games", gi), "summary");
        ck_assert_str_eq(tl_jget_s(s, "predicted_result"), "1-0");
        const struct tl_jv *fin = tl_jget(s, "final");
        ck_assert_str_eq(tl_jget_s(fin, "side"), "black");
        ck_assert_str_eq(tl_jget_s(fin, "wdl"), "loss");
        ck_assert_int_eq(tl_jget_u(fin, "dtw"), 0); /* lost by the rules */
        const struct tl_jv *ag = tl_jget(s, "result_agrees");
        ck_assert(ag && ag->t == J_BOOL);
        ck_assert_int_eq(ag->b, gi == 1);
    }
    /* "*" is no result: nothing to compare */
    const struct tl_jv *ag = tl_jget(tl_jget(jitem(doc, "games", 2), "summary"), "result_agrees");
    ck_assert(ag && ag->t == J_NULL);
    ck_assert_int_eq(tl_jget_u(tl_jget(doc, "summary"), "result_disagreements"), 1);
    tl_json_free(doc);
    tl_result_free(&r);

    /* the text form says so too */
    tl_run(&r, NULL, "annotate", "-t", t3d, "--summary", in, NULL);
    ck_assert_int_eq(r.code, 0);
    ck_assert_msg(strstr(r.out, "recorded 0-1 DISAGREES"), "%s", r.out);
    ck_assert_msg(strstr(r.out, "recorded 1-0 agrees"), "%s", r.out);
    tl_result_free(&r);
}
END_TEST

/* The record grammar: move numbers, a removal as its own token, comments,
 * [FEN] and [Result] headers, and games from stdin. */
START_TEST(annotate_grammar)
{
    /* nine up to 3 stones: White flies b2-g7 closing a7-d7-g7 and removes f4,
     * the one black stone outside a mill; written four ways */
    const char *game = "[Event \"test\"]\n"
                       "[FEN \"a7,d7,b2 a1,d1,g1,f4 w\"]\n"
                       "[Result \"1-0\"]\n"
                       "1. b2-g7 xf4 {the mill} 1... a1-a4 ; a comment\n"
                       "[FEN \"a7,d7,b2 a1,d1,g1,f4 w\"]\n"
                       "1.b2-g7xf4 a1-a4\n";
    struct tl_result r;
    tl_run(&r, game, "annotate", "-t", tn3, "--json", NULL);
    ck_assert_msg(r.code == 0, "exit %d: %s", r.code, r.err);
    struct tl_jv *doc = tl_json_parse(r.out);
    ck_assert_msg(doc != NULL, "%s", r.out);
    ck_assert_int_eq(tl_jget_u(tl_jget(doc, "summary"), "games"), 2);
    /* the start as the simple form writes it (points in board order) */
    struct mmtb_variant *nine = tl_load_variant("nine");
    struct mmtb_pos sp;
    char start[128];
    ck_assert_int_eq(mmtb_pos_parse(nine, "a7,d7,b2 a1,d1,g1,f4 w", &sp, NULL, 0), MMTB_OK);
    mmtb_pos_format(nine, &sp, start, sizeof start);
    mmtb_variant_free(nine);
    for (int gi = 0; gi < 2; gi++) {
        const struct tl_jv *g = jitem(doc, "games", gi);
        ck_assert_str_eq(tl_jget_s(g, "start"), start);
        ck_assert_int_eq(tl_jget(g, "plies")->n, 2);
        ck_assert_str_eq(tl_jget_s(jitem(g, "plies", 0), "move"), "b2-g7xf4");
        /* White's 3 v 4 sector is not in tables made up to 3 stones */
        ck_assert_str_eq(tl_jget_s(jitem(g, "plies", 0), "verdict"), "unknown");
        char want[400];
        snprintf(want, sizeof want, "sector 3-4 not in %s", tn3);
        ck_assert_str_eq(tl_jget_s(jitem(g, "plies", 0), "unknown"), want);
        /* after the capture the game is back in the tables (3 v 3) */
        struct expect e = expect_move(tn3, "a7,d7,g7 a1,d1,g1 b", "a1-a4");
        const struct tl_jv *p2 = jitem(g, "plies", 1);
        assert_value(tl_jget(p2, "before"), &e.pos, "before");
        assert_value(tl_jget(p2, "after"), &e.move, "after");
    }
    const struct tl_jv *res = tl_jget(jitem(doc, "games", 0), "result");
    ck_assert(res && res->t == J_STR && !strcmp(res->s, "1-0"));
    ck_assert(tl_jget(jitem(doc, "games", 1), "result")->t == J_NULL);
    ck_assert_int_eq(tl_jget_u(tl_jget(doc, "summary"), "unknown"), 2);
    tl_json_free(doc);
    tl_result_free(&r);
}
END_TEST

/* An illegal move stops its game with a message naming line and ply; the
 * next game is still annotated and the exit code is 1.  A truncated move,
 * a bad [FEN] and a missing file are errors of the same kind. */
START_TEST(annotate_illegal_and_truncated)
{
    const char *in = write_input(2, "b2 a1\n"
                                    "b2 b2 c1\n"
                                    "b2 a1 c\n"
                                    "[FEN \"b2 - w 3\"]\n"
                                    "a1\n"
                                    "b2 a1 c2 a2 a3 c1 b2-b3 a1-b1 c2-c3 b1-b2\n"
                                    "a1 b2 1-0\n");
    struct tl_result r;
    tl_run(&r, NULL, "annotate", "-t", t3d, in, NULL);
    ck_assert_int_eq(r.code, 1);
    ck_assert_msg(strstr(r.err, "line 2, ply 2: b2 is not legal: b2 is occupied"), "%s", r.err);
    ck_assert_msg(strstr(r.err, "line 3, ply 3: move 'c': "), "%s", r.err);
    ck_assert_msg(strstr(r.err, "line 4: bad start position 'b2 - w 3': "), "%s", r.err);
    ck_assert_msg(strstr(r.err, "line 6, ply 10: b1-b2 is not legal: the game is over: black has lost"),
                  "%s", r.err);
    ck_assert_msg(strstr(r.out, "summary: 6 games"), "%s", r.out);
    ck_assert_msg(strstr(r.out, "4 games with an illegal move"), "%s", r.out);
    tl_result_free(&r);

    tl_run(&r, NULL, "annotate", "-t", t3d, "--json", in, NULL);
    ck_assert_int_eq(r.code, 1);
    struct tl_jv *doc = tl_json_parse(r.out);
    ck_assert_msg(doc != NULL, "%s", r.out);
    const struct tl_jv *ill = tl_jget(jitem(doc, "games", 1), "illegal");
    ck_assert(ill && ill->t == J_OBJ);
    ck_assert_int_eq(tl_jget_u(ill, "ply"), 2);
    ck_assert_str_eq(tl_jget_s(ill, "move"), "b2");
    ck_assert(tl_jget(jitem(doc, "games", 0), "illegal")->t == J_NULL);
    /* the last game comes after the bad ones and is judged whole */
    ck_assert_int_eq(tl_jget(jitem(doc, "games", 5), "plies")->n, 2);
    tl_json_free(doc);
    tl_result_free(&r);

    tl_run(&r, NULL, "annotate", "-t", t3d, "/nonexistent/games.txt", NULL);
    ck_assert_int_eq(r.code, 1);
    ck_assert_msg(strstr(r.err, "cannot read '/nonexistent/games.txt'"), "%s", r.err);
    tl_result_free(&r);
    tl_run(&r, NULL, "annotate", "-t", t3d, "--start", "zz", NULL);
    ck_assert_int_eq(r.code, 1);
    tl_result_free(&r);
    tl_run(&r, "b2\n", "annotate", "-t", "/nonexistent/tables", NULL);
    ck_assert_int_eq(r.code, 2);
    tl_result_free(&r);
}
END_TEST


/* Endgames from games of Sanmill's engine against itself (SkillLevel 10,
 * scripts/match seed 17), cut where both sides have three stones, with the
 * verdicts read off `mmtb-probe probe` on nine's 3-3 tables by hand:
 *  game 29, plies 75-78: f4,b4,d7 d6,f6,b6 w is a draw (f4-c4, f4-g7,
 *    b4-e4, b4-a7 keep it); d7-e4 gives Black a win in 15 (only d6-g4), so
 *    it is a loss in 16: draw->loss; Black's f6-g4 is a loss in 22 where
 *    d6-g4 wins: win->loss; White's e4-f6 keeps the win in 21 (best);
 *    Black's b6-f2 loses in 12 where g4-f2 loses in 20: keeps.
 *  game 8, plies 57-58: d6,f2,a4 b2,b4,b6 w wins in 23 only by d6-f6;
 *    f2-d5 draws: win->draw; Black's b2-d7 keeps the draw (best). */
START_TEST(annotate_sanmill_endgames)
{
    const char *in = write_input(5, "[Event \"sanmill self-play, game 29, plies 75-78\"]\n"
                                    "[FEN \"f4,b4,d7 d6,f6,b6 w\"]\n"
                                    "d7-e4 f6-g4 e4-f6 b6-f2 *\n"
                                    "[Event \"sanmill self-play, game 8, plies 57-58\"]\n"
                                    "[FEN \"d6,f2,a4 b2,b4,b6 w\"]\n"
                                    "f2-d5 b2-d7 *\n");
    static const struct {
        int game, ply;
        const char *verdict, *error;
        struct mmtb_value before, after;
        const char *best0;
    } want[] = {
        {0, 0, "error", "draw->loss", {MMTB_DRAW, -1}, {MMTB_LOSS, 16}, "f4-c4"},
        {0, 1, "error", "win->loss", {MMTB_WIN, 15}, {MMTB_LOSS, 22}, "d6-g4"},
        {0, 2, "best", NULL, {MMTB_WIN, 21}, {MMTB_WIN, 21}, NULL},
        {0, 3, "keeps", NULL, {MMTB_LOSS, 20}, {MMTB_LOSS, 12}, "g4-f2"},
        {1, 0, "error", "win->draw", {MMTB_WIN, 23}, {MMTB_DRAW, -1}, "d6-f6"},
        {1, 1, "best", NULL, {MMTB_DRAW, -1}, {MMTB_DRAW, -1}, NULL},
    };
    struct tl_result r;
    tl_run(&r, NULL, "annotate", "-t", tn3, "--json", in, NULL);
    ck_assert_msg(r.code == 0, "exit %d: %s", r.code, r.err);
    struct tl_jv *doc = tl_json_parse(r.out);
    ck_assert_msg(doc != NULL, "%s", r.out);
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        const struct tl_jv *p = jitem(jitem(doc, "games", want[i].game), "plies", want[i].ply);
        ck_assert_str_eq(tl_jget_s(p, "verdict"), want[i].verdict);
        if (want[i].error)
            ck_assert_str_eq(tl_jget_s(p, "error"), want[i].error);
        assert_value(tl_jget(p, "before"), &want[i].before, "before");
        assert_value(tl_jget(p, "after"), &want[i].after, "after");
        if (want[i].best0)
            ck_assert_str_eq(jitem(p, "best", 0)->s, want[i].best0);
    }
    const struct tl_jv *s0 = tl_jget(jitem(doc, "games", 0), "summary");
    ck_assert_int_eq(tl_jget_u(tl_jget(s0, "errors_by_side"), "white"), 1);
    ck_assert_int_eq(tl_jget_u(tl_jget(s0, "errors_by_side"), "black"), 1);
    ck_assert_int_eq(tl_jget_u(s0, "first_error_ply"), 1);
    tl_json_free(doc);
    tl_result_free(&r);
}
END_TEST

/* ---------------------------------------------------------------------- */
/* check                                                                  */
/* ---------------------------------------------------------------------- */

/* Illegal engine moves, each designed by hand to break one rule, get the
 * reason a player would give. */
START_TEST(check_illegal_moves_name_the_rule)
{
    /* White a7 d7 f6 g4 (4 stones: no flying), Black a1 d1 g1 (a mill) and b4 */
    static const char *const cases[][2] = {
        {"a7,d7,f6,g4 a1,d1,g1,b4 w ; a7-a1", "a1 is occupied"},
        {"a7,d7,f6,g4 a1,d1,g1,b4 w ; a7-g7", "g7 is not next to a7 and White may not fly"},
        {"a7,d7,f6,g4 a1,d1,g1,b4 w ; a1-a4", "a1 is not a white stone"},
        {"a7,d7,f6,g4 a1,d1,g1,b4 w ; d6", "White has no stones left to place"},
        {"a7,d7,f6,g4 a1,d1,g1,b4 w ; g4-g7",
         "g4-g7 closes a mill: name the stone to remove (g4-g7xPOINT)"},
        {"a7,d7,f6,g4 a1,d1,g1,b4 w ; g4-g7xa1",
         "a1 stands in a mill and black has stones outside mills"},
        {"a7,d7,f6,g4 a1,d1,g1,b4 w ; g4-g7 xd7", "d7 is not a black stone"},
        {"a7,d7,f6,g4 a1,d1,g1,b4 w ; f6-f4xb4", "f6-f4 closes no mill, so it removes nothing"},
        {"a7,d7,g7 a1,d1 b ; a1-a4", "the game is over: black has lost"},
        {"a7 a1 w 8 8 ; a7-a4", "White still has stones to place"},
    };
    int n = (int)(sizeof cases / sizeof cases[0]);
    char text[4096] = "";
    for (int i = 0; i < n; i++) {
        strcat(text, cases[i][0]);
        strcat(text, "\n");
    }
    strcat(text, "a7,d7,f6,g4 a1,d1,g1,b4 w ; g4-g7xb4\n"); /* legal, outside the tables */
    struct tl_result r;
    tl_run(&r, text, "check", "-t", tn3, "--threads", "2", NULL);
    ck_assert_int_eq(r.code, 1);
    for (int i = 0; i < n; i++) {
        char want[300];
        const char *mv = strchr(cases[i][0], ';') + 2;
        snprintf(want, sizeof want, "line %d: %s is not legal: %s\n", i + 1, mv, cases[i][1]);
        ck_assert_msg(strstr(r.err, want), "missing '%s' in:\n%s", want, r.err);
    }
    char want[400];
    snprintf(want, sizeof want, "%d: unknown  g4-g7xb4     sector 4-4 not in %s", n + 1, tn3);
    ck_assert_msg(strstr(r.out, want), "missing '%s' in:\n%s", want, r.out);
    ck_assert_msg(strstr(r.out, "0 judged, 1 unknown, 10 invalid"), "%s", r.out);
    tl_result_free(&r);
}
END_TEST

/* Known verdicts on three-diag's opening, the summary's counts, and
 * malformed lines (truncated, no separator, two moves). */
START_TEST(check_known_verdicts_and_summary)
{
    const char *in = write_input(3, "# the three kinds of opening\n"
                                    "- - w 3 3 ; b2\n"
                                    "- - w 3 3 ; a1 ; a corner\n"
                                    "- - w 3 3 bm b1;\n"
                                    "\n"
                                    "- - w 3 3 ;\n"
                                    "- - w 3 3\n"
                                    "- - w 3 3 ; a1 a2\n"
                                    "- - w 3 ; b2\n");
    struct expect corner = expect_move(t3d, "- - w 3 3", "a1");
    struct expect edge = expect_move(t3d, "- - w 3 3", "b1");
    ck_assert_int_eq(corner.pos.wdl, MMTB_WIN); /* the first player wins ... */
    ck_assert(!corner.best && !edge.best);        /* ... only from the centre */
    struct tl_result r;
    tl_run(&r, NULL, "check", "-t", t3d, "--json", in, NULL);
    ck_assert_int_eq(r.code, 1);
    struct tl_jv *doc = tl_json_parse(r.out);
    ck_assert_msg(doc != NULL, "%s", r.out);
    ck_assert_str_eq(tl_jget_s(jitem(doc, "positions", 0), "verdict"), "best");
    ck_assert_str_eq(tl_jget_s(jitem(doc, "positions", 1), "verdict"), "error");
    ck_assert_str_eq(tl_jget_s(jitem(doc, "positions", 1), "phase"), "placement");
    ck_assert_str_eq(tl_jget_s(jitem(doc, "positions", 1), "sector"), "0-0-3-3");
    assert_value(tl_jget(jitem(doc, "positions", 1), "after"), &corner.move, "corner");
    assert_value(tl_jget(jitem(doc, "positions", 2), "after"), &edge.move, "edge");
    ck_assert_int_eq(tl_jget_u(jitem(doc, "positions", 2), "line"), 4);
    for (int i = 3; i < 7; i++)
        ck_assert_str_eq(tl_jget_s(jitem(doc, "positions", i), "verdict"), "invalid");
    const struct tl_jv *s = tl_jget(doc, "summary");
    ck_assert_int_eq(tl_jget_u(s, "lines"), 7);
    ck_assert_int_eq(tl_jget_u(s, "judged"), 3);
    ck_assert_int_eq(tl_jget_u(s, "best"), 1);
    ck_assert_int_eq(tl_jget_u(s, "errors"), 2);
    ck_assert_int_eq(tl_jget_u(s, "invalid"), 4);
    ck_assert_int_eq(tl_jget_u(tl_jget(tl_jget(s, "by_phase"), "placement"), "errors"), 2);
    /* the worst error throws away the win for the fastest loss */
    const struct tl_jv *w0 = jitem(s, "worst", 0);
    ck_assert_str_eq(tl_jget_s(w0, "move"), edge.move.wdl < corner.move.wdl ? "b1" : "a1");
    ck_assert_str_eq(tl_jget_s(w0, "best"), "b2");
    tl_json_free(doc);
    tl_result_free(&r);
}
END_TEST

/* Every legal move of positions along random games on Six Men's Morris:
 * each verdict equals the one derived from mmtb_probe_moves, every
 * position has at least one best move, and the output does not depend on
 * the number of threads. */
START_TEST(check_every_move_agrees_with_the_move_list)
{
    mmtb_tb *tb;
    mmtb_ctx *ctx;
    ck_assert_int_eq(mmtb_tb_open(&tb, t6, NULL), MMTB_OK);
    ck_assert_int_eq(mmtb_ctx_create(&ctx, tb, 0), MMTB_OK);
    const struct mmtb_variant *v = mmtb_tb_variant(tb);
    struct mmtb_move_value *all = malloc(sizeof *all * MMTB_MAX_MOVES);
    size_t cap = 1 << 20, len = 0;
    char *text = malloc(cap);
    char (*want)[8] = malloc(sizeof *want * 20000);
    ck_assert(all && text && want);
    int nl = 0, npos = 0;
    unsigned seed = 12345;
    for (int game = 0; game < 12; game++) {
        struct mmtb_pos p;
        mmtb_pos_start(v, &p);
        for (int ply = 0; ply < 40; ply++) {
            int n = mmtb_probe_moves(ctx, &p, all, MMTB_MAX_MOVES);
            ck_assert_int_ge(n, 0);
            if (n == 0)
                break;
            char ps[128];
            mmtb_pos_format(v, &p, ps, sizeof ps);
            npos++;
            for (int i = 0; i < n && nl < 20000; i++) {
                char mb[64];
                mmtb_move_format(v, &all[i].move, mb, sizeof mb);
                if (len + 256 > cap)
                    ck_assert((text = realloc(text, cap *= 2)) != NULL);
                len += (size_t)sprintf(text + len, "%s ; %s\n", ps, mb);
                const struct mmtb_value *a = &all[i].value, *b = &all[0].value;
                bool best = a->wdl == b->wdl && (a->wdl == MMTB_DRAW || a->dtw == b->dtw);
                snprintf(want[nl++], 8, "%s", best ? "best" : a->wdl == b->wdl ? "keeps" : "error");
            }
            seed = seed * 1103515245u + 12345u;
            struct mmtb_pos q;
            mmtb_pos_apply(v, &p, &all[(seed >> 16) % (unsigned)n].move, &q);
            p = q;
        }
    }
    const char *in = write_input(4, text);
    struct tl_result r1, r3;
    tl_run(&r1, NULL, "check", "-t", t6, "--threads", "1", in, NULL);
    tl_run(&r3, NULL, "check", "-t", t6, "--threads", "3", in, NULL);
    ck_assert_msg(r1.code == 0, "exit %d: %s", r1.code, r1.err);
    ck_assert_str_eq(r1.out, r3.out);
    /* line i of the output starts "i: VERDICT" */
    const char *o = r1.out;
    int bests = 0;
    for (int i = 0; i < nl; i++) {
        char head[32];
        snprintf(head, sizeof head, "%d: ", i + 1);
        ck_assert_msg(strncmp(o, head, strlen(head)) == 0, "line %d out of order", i + 1);
        const char *vd = o + strlen(head);
        const char *w = strcmp(want[i], "error") == 0 ? "ERROR" : want[i];
        ck_assert_msg(strncmp(vd, w, strlen(w)) == 0, "line %d: expected %s, got %.20s", i + 1,
                      w, vd);
        bests += strcmp(want[i], "best") == 0;
        o = strchr(o, '\n') + 1;
    }
    ck_assert_int_ge(bests, npos);
    ck_assert_int_gt(npos, 100);
    tl_result_free(&r1);
    tl_result_free(&r3);
    free(want);
    free(text);
    free(all);
    mmtb_ctx_free(ctx);
    mmtb_tb_close(tb);
}
END_TEST


/* ---------------------------------------------------------------------- */
/* engine                                                                 */
/* ---------------------------------------------------------------------- */

/* The lines of `out` that start with `word `, in order (at most max). */
static int lines_starting(const char *out, const char *word, char lines[][128], int max)
{
    int n = 0;
    size_t wl = strlen(word);
    for (const char *l = out; *l && n < max;) {
        const char *e = strchr(l, '\n');
        size_t len = e ? (size_t)(e - l) : strlen(l);
        if (len > wl && !strncmp(l, word, wl) && l[wl] == ' ') {
            snprintf(lines[n], 128, "%.*s", (int)(len - wl - 1), l + wl + 1);
            n++;
        }
        l += len + (e != NULL);
    }
    return n;
}

/* The protocol's handshake, and the known answer: on three-diag the only
 * winning opening is the centre, so `position startpos` + `go` must answer
 * b2 with a win in the info line. */
START_TEST(engine_three_diag_answers_the_centre)
{
    struct tl_result r;
    tl_run(&r, "uci\nisready\nucinewgame\nposition startpos\ngo movetime 100\nquit\nd\n", "engine",
           "-t", t3d, NULL);
    ck_assert_msg(r.code == 0, "exit %d: %s", r.code, r.err);
    ck_assert_msg(strstr(r.out, "id name mmtb-probe "), "%s", r.out);
    static const char *const opts[] = {"Random type check default false",
                                       "Seed type spin default 1 min 0 max 2147483647",
                                       "WholeTurn type check default false",
                                       "FallbackLegal type check default false"};
    for (int i = 0; i < 4; i++) {
        char want[128];
        snprintf(want, sizeof want, "option name %s\n", opts[i]);
        ck_assert_msg(strstr(r.out, want), "no '%s' in:\n%s", want, r.out);
    }
    char *uciok = strstr(r.out, "uciok\n"), *ready = strstr(r.out, "readyok\n");
    ck_assert_msg(uciok && ready && uciok < ready, "%s", r.out);
    char best[4][128];
    ck_assert_int_eq(lines_starting(r.out, "bestmove", best, 4), 1);
    ck_assert_str_eq(best[0], "b2");
    struct expect e = expect_move(t3d, "- - w 3 3", "b2");
    char want[128];
    snprintf(want, sizeof want, "info depth %d score mate %d wdl 1000 0 0 pv b2\n", e.pos.dtw,
             (e.pos.dtw + 1) / 2);
    ck_assert_int_eq(e.pos.wdl, MMTB_WIN);
    ck_assert_msg(strstr(r.out, want), "no '%s' in:\n%s", want, r.out);
    /* nothing after quit was read */
    ck_assert_msg(!strstr(r.out, "info string position"), "%s", r.out);
    tl_result_free(&r);
}
END_TEST

/* A mill-closing turn is two actions: the move, then (same side, second
 * go) the removal; with WholeTurn the turn comes whole.  Nine, 3 v 3:
 * White flies b2-g7 closing a7-d7-g7, and any removal leaves Black two
 * stones, so every one of the three is a best answer. */
START_TEST(engine_removal_in_two_actions)
{
    const char *fen = "a7,d7,b2 a1,d1,f4 w";
    char in[1024];
    snprintf(in, sizeof in,
             "position fen %s\ngo\n"
             "position fen %s moves b2-g7\ngo\n"
             "position fen %s moves b2-g7 xd1\ngo\n"
             "position fen %s moves b2-g7xd1\ngo\n"
             "setoption name WholeTurn value true\n"
             "position fen %s\ngo\n",
             fen, fen, fen, fen, fen);
    struct tl_result r;
    tl_run(&r, in, "engine", "-t", tn3, NULL);
    ck_assert_msg(r.code == 0, "exit %d: %s", r.code, r.err);
    char best[8][128];
    ck_assert_int_eq(lines_starting(r.out, "bestmove", best, 8), 5);
    ck_assert_str_eq(best[0], "b2-g7");
    ck_assert_msg(!strcmp(best[1], "xa1") || !strcmp(best[1], "xd1") || !strcmp(best[1], "xf4"),
                  "removal %s", best[1]);
    ck_assert_str_eq(best[2], "(none)"); /* Black is down to two stones */
    ck_assert_str_eq(best[3], "(none)");
    ck_assert_msg(strstr(r.out, "info string the game is over: the side to move has lost\n"), "%s",
                  r.out);
    ck_assert_msg(!strncmp(best[4], "b2-g7x", 6), "whole turn %s", best[4]);
    struct expect e = expect_move(tn3, fen, best[4]);
    ck_assert(e.best);
    ck_assert_int_eq(e.move.wdl, MMTB_WIN);
    ck_assert_int_eq(e.move.dtw, 1);
    tl_result_free(&r);
}
END_TEST

/* Every answer of the engine is one of the best moves that libmmtb lists,
 * on positions along random Six Men's Morris games (one engine process,
 * whole turns); with Random the answers are still best, vary among the
 * best moves, and repeat exactly for the same seed. */
START_TEST(engine_answers_are_best_moves)
{
    mmtb_tb *tb;
    mmtb_ctx *ctx;
    ck_assert_int_eq(mmtb_tb_open(&tb, t6, NULL), MMTB_OK);
    ck_assert_int_eq(mmtb_ctx_create(&ctx, tb, 0), MMTB_OK);
    const struct mmtb_variant *v = mmtb_tb_variant(tb);
    struct mmtb_move_value *all = malloc(sizeof *all * MMTB_MAX_MOVES);
    enum { NPOS = 240 };
    char (*pos)[128] = malloc(sizeof *pos * NPOS);
    size_t cap = NPOS * 160;
    char *in = malloc(cap);
    ck_assert(all && pos && in);
    size_t len = (size_t)sprintf(in, "setoption name WholeTurn value true\n");
    int np = 0;
    unsigned seed = 777;
    while (np < NPOS) {
        struct mmtb_pos p;
        mmtb_pos_start(v, &p);
        for (int ply = 0; ply < 30 && np < NPOS; ply++) {
            int n = mmtb_probe_moves(ctx, &p, all, MMTB_MAX_MOVES);
            ck_assert_int_ge(n, 0);
            if (n == 0)
                break;
            mmtb_pos_format(v, &p, pos[np], sizeof pos[np]);
            len += (size_t)sprintf(in + len, "position fen %s\ngo\n", pos[np]);
            np++;
            seed = seed * 1103515245u + 12345u;
            struct mmtb_pos q;
            mmtb_pos_apply(v, &p, &all[(seed >> 16) % (unsigned)n].move, &q);
            p = q;
        }
    }
    struct tl_result r;
    tl_run(&r, in, "engine", "-t", t6, NULL);
    ck_assert_msg(r.code == 0, "exit %d: %s", r.code, r.err);
    char (*best)[128] = malloc(sizeof *best * NPOS);
    ck_assert(best != NULL);
    ck_assert_int_eq(lines_starting(r.out, "bestmove", best, NPOS), NPOS);
    for (int i = 0; i < NPOS; i++) {
        struct expect e = expect_move(t6, pos[i], best[i]);
        ck_assert_msg(e.best, "%s: engine answered %s, not a best move", pos[i], best[i]);
    }
    tl_result_free(&r);

    /* Random: the start of six has many best moves (every placement draws?
     * whatever they are, the answers must be among them) */
    char rin[4096];
    len = (size_t)sprintf(rin, "setoption name Random value true\nsetoption name Seed value 42\n");
    for (int i = 0; i < 40; i++)
        len += (size_t)sprintf(rin + len, "position startpos\ngo\n");
    struct tl_result r1, r2;
    tl_run(&r1, rin, "engine", "-t", t6, NULL);
    tl_run(&r2, rin, "engine", "-t", t6, NULL);
    ck_assert_int_eq(r1.code, 0);
    ck_assert_str_eq(r1.out, r2.out); /* same seed, same answers */
    ck_assert_int_eq(lines_starting(r1.out, "bestmove", best, NPOS), 40);
    struct mmtb_pos start;
    mmtb_pos_start(v, &start);
    char sp[128];
    mmtb_pos_format(v, &start, sp, sizeof sp);
    int n = mmtb_probe_moves(ctx, &start, all, MMTB_MAX_MOVES), nbest = 0;
    while (nbest < n && all[nbest].value.wdl == all[0].value.wdl &&
           (all[0].value.wdl == MMTB_DRAW || all[nbest].value.dtw == all[0].value.dtw))
        nbest++;
    ck_assert_int_gt(nbest, 1);
    int distinct = 0;
    for (int i = 0; i < 40; i++) {
        ck_assert_msg(expect_move(t6, sp, best[i]).best, "random answer %s is not best", best[i]);
        bool seen = false;
        for (int j = 0; j < i; j++)
            seen |= !strcmp(best[j], best[i]);
        distinct += !seen;
    }
    ck_assert_int_gt(distinct, 1);
    tl_result_free(&r1);
    tl_result_free(&r2);
    free(best);
    free(in);
    free(pos);
    free(all);
    mmtb_ctx_free(ctx);
    mmtb_tb_close(tb);
}
END_TEST

/* Bad input never stops the engine: an illegal move list, an unknown
 * command or option, a bad option value; outside the tables it says so and
 * answers (none), or with FallbackLegal a legal move marked as not
 * perfect play.  Bad usage and missing tables are exit 1 and 2. */
START_TEST(engine_bad_input_and_outside_the_tables)
{
    struct tl_result r;
    tl_run(&r,
           "position startpos moves b2 b2\ngo\n"
           "position nowhere\n"
           "position fen - - w 9\n"
           "frobnicate\n"
           "setoption name Hash value 16\n"
           "setoption name Random value maybe\n"
           "setoption name Seed value -3\n"
           "position fen a7,d7,f6,c4 a1,d1,g1 w\ngo\n"
           "setoption name FallbackLegal value true\ngo\n"
           "isready\n",
           "engine", "-t", tn3, NULL);
    ck_assert_msg(r.code == 0, "exit %d: %s", r.code, r.err);
    static const char *const said[] = {
        "info string error: move 2: b2 is not legal: b2 is occupied\n",
        "info string error: no valid position (move 2: b2 is not legal: b2 is occupied)\n",
        "info string error: expected 'position startpos' or 'position fen ...'\n",
        "info string error: bad position: ",
        "info string error: unknown command: frobnicate\n",
        "info string error: no such option: Hash\n",
        "info string error: option Random takes true or false, got 'maybe'\n",
        "info string error: option Seed takes 0..2147483647, got '-3'\n",
        "info string the tables cannot answer: ",
        "info string not perfect play: the tables cannot answer: ",
    };
    for (size_t i = 0; i < sizeof said / sizeof said[0]; i++)
        ck_assert_msg(strstr(r.out, said[i]), "no '%s' in:\n%s", said[i], r.out);
    char want[400];
    snprintf(want, sizeof want, "(sector 4-3, tables %s)", tn3);
    ck_assert_msg(strstr(r.out, want), "no '%s' in:\n%s", want, r.out);
    char best[4][128];
    ck_assert_int_eq(lines_starting(r.out, "bestmove", best, 4), 3);
    ck_assert_str_eq(best[0], "(none)");
    ck_assert_str_eq(best[1], "(none)");
    /* the fallback is a legal move of the position (White has 4 stones, so
     * it slides), checked by the rules library */
    struct mmtb_variant *nine = tl_load_variant("nine");
    struct mmtb_pos p;
    struct mmtb_move m, *legal = malloc(sizeof *legal * MMTB_MAX_MOVES);
    ck_assert(legal != NULL);
    ck_assert_int_eq(mmtb_pos_parse(nine, "a7,d7,f6,c4 a1,d1,g1 w", &p, NULL, 0), MMTB_OK);
    ck_assert_int_eq(mmtb_move_parse(nine, best[2], &m, NULL, 0), MMTB_OK);
    int n = mmtb_gen_moves(nine, &p, legal);
    bool found = false;
    for (int i = 0; i < n; i++)
        found |= legal[i].from == m.from && legal[i].to == m.to;
    ck_assert_msg(found, "fallback %s is not legal", best[2]);
    free(legal);
    mmtb_variant_free(nine);
    ck_assert_msg(strstr(r.out, "readyok\n"), "the engine stopped early:\n%s", r.out);
    tl_result_free(&r);

    tl_run(&r, "", "engine", NULL);
    ck_assert_int_eq(r.code, 1);
    ck_assert_msg(strstr(r.err, "missing -t DIR"), "%s", r.err);
    tl_result_free(&r);
    tl_run(&r, "uci\n", "engine", "-t", "/nonexistent/tables", NULL);
    ck_assert_int_eq(r.code, 2);
    tl_result_free(&r);
}
END_TEST

/* `moves --play`, the match runner's referee: Sanmill's actions (a
 * mill-closing move, then its removal) and whole turns reach the same
 * position; an illegal action is an error naming it. */
START_TEST(moves_play_actions)
{
    struct tl_result r;
    tl_run(&r, NULL, "moves", "-v", "nine", "--json", "--play", "b2-g7", "a7,d7,b2 a1,d1,f4 w", NULL);
    ck_assert_msg(r.code == 0, "exit %d: %s", r.code, r.err);
    struct tl_jv *doc = tl_json_parse(r.out);
    ck_assert_msg(doc != NULL, "%s", r.out);
    ck_assert_str_eq(tl_jget_s(doc, "side"), "white");
    ck_assert_int_eq(tl_jget_u(doc, "remove"), 1);
    ck_assert_int_eq(tl_jget_u(doc, "count"), 3); /* xa1, xd1, xf4 */
    tl_json_free(doc);
    tl_result_free(&r);

    struct tl_result a, b;
    tl_run(&a, NULL, "moves", "-v", "nine", "--json", "--play", "b2-g7 xf4", "a7,d7,b2 a1,d1,f4 w", NULL);
    tl_run(&b, NULL, "moves", "-v", "nine", "--json", "--play", "b2-g7xf4", "a7,d7,b2 a1,d1,f4 w", NULL);
    ck_assert_int_eq(a.code, 0);
    ck_assert_str_eq(a.out, b.out);
    doc = tl_json_parse(a.out);
    ck_assert(doc != NULL);
    ck_assert_str_eq(tl_jget_s(doc, "side"), "black");
    ck_assert_str_eq(tl_jget_s(doc, "game_over"), "loss");
    tl_json_free(doc);
    tl_result_free(&a);
    tl_result_free(&b);

    tl_run(&r, NULL, "moves", "-v", "three-diag", "--play", "b2 a1 b2", NULL);
    ck_assert_int_eq(r.code, 1);
    ck_assert_msg(strstr(r.err, "--play, move 3: b2 is not legal: b2 is occupied"), "%s", r.err);
    tl_result_free(&r);
}
END_TEST


/* scripts/match, the match runner, drives two engines through pipes and
 * judges the games with annotate.  The perfect player (engine 1) against
 * a player that has only three-diag's movement tables and falls back to
 * the first legal move while placing (engine 2): the perfect player makes
 * no error; the other opens in a corner as White, an error (only b2 keeps
 * the win), so it has errors; the runner's counts add up. */
START_TEST(match_runner_judges_the_games)
{
    char perfect[400], weak[400], games[400];
    snprintf(perfect, sizeof perfect, "%s engine -t %s", PROBE_BIN, t3d);
    snprintf(weak, sizeof weak, "%s/weak.sh", tdir);
    FILE *f = fopen(weak, "w");
    ck_assert(f != NULL);
    fprintf(f, "#!/bin/sh\n(echo 'setoption name FallbackLegal value true'; cat) | "
               "exec %s engine -t %s\n", PROBE_BIN, t3m);
    fclose(f);
    ck_assert_int_eq(chmod(weak, 0755), 0);
    snprintf(games, sizeof games, "%s/match.games", tdir);
    char *argv[] = {"/usr/bin/env", "python3", MMTB_SOURCE_DIR "/scripts/match", "-t", t3d,
                    "-e", perfect, "-e", weak, "-n", "6", "--random-plies", "0", "--json",
                    "--probe", PROBE_BIN, "--games-out", games, NULL};
    struct tl_result r;
    tl_run_argv(&r, NULL, argv);
    ck_assert_msg(r.code == 0, "exit %d: %s", r.code, r.err);
    struct tl_jv *doc = tl_json_parse(r.out);
    ck_assert_msg(doc != NULL, "%s", r.out);
    ck_assert_str_eq(tl_jget_s(doc, "variant"), "three-diag");
    const struct tl_jv *e1 = tl_jget(tl_jget(doc, "engines"), "engine 1");
    const struct tl_jv *e2 = tl_jget(tl_jget(doc, "engines"), "engine 2");
    ck_assert(e1 && e2);
    ck_assert_int_eq(tl_jget_u(e1, "errors"), 0);
    ck_assert_int_ge(tl_jget_u(e2, "errors"), 3); /* one per game as White at least */
    /* its errors are all made while placing: it has the movement tables */
    const struct tl_jv *ph = tl_jget(tl_jget(e2, "by_phase"), "placement");
    ck_assert_int_eq(tl_jget_u(ph, "errors"), tl_jget_u(e2, "errors"));
    ck_assert_int_eq(tl_jget_u(e2, "games_with_errors"), 3);
    /* the worst: a win thrown away in the first move, a corner instead of b2 */
    const struct tl_jv *w0 = jitem(e2, "worst", 0);
    ck_assert_str_eq(tl_jget_s(w0, "position"), "- - w 3 3");
    ck_assert_str_eq(tl_jget_s(w0, "best"), "b2");
    ck_assert_int_eq(tl_jget_u(w0, "ply"), 1);
    /* the perfect player never loses; as White it wins every game */
    ck_assert_int_eq(tl_jget_u(e1, "losses"), 0);
    ck_assert_int_ge(tl_jget_u(e1, "wins"), 3);
    const struct tl_jv *ann = tl_jget(doc, "annotate");
    ck_assert_int_eq(tl_jget_u(ann, "games"), 6);
    ck_assert_int_eq(tl_jget_u(ann, "illegal_games"), 0);
    ck_assert_int_eq(tl_jget_u(ann, "result_disagreements"), 0);
    ck_assert_int_eq(tl_jget_u(e1, "plies") + tl_jget_u(e2, "plies"), tl_jget_u(ann, "judged"));
    ck_assert_int_eq(tl_jget_u(e1, "errors") + tl_jget_u(e2, "errors"), tl_jget_u(ann, "errors"));

    /* --judge: the games file judged again gives the same figures */
    char *judge[] = {"/usr/bin/env", "python3", MMTB_SOURCE_DIR "/scripts/match", "-t", t3d,
                     "--judge", games, "--json", "--probe", PROBE_BIN, NULL};
    struct tl_result rj;
    tl_run_argv(&rj, NULL, judge);
    ck_assert_msg(rj.code == 0, "exit %d: %s", rj.code, rj.err);
    struct tl_jv *dj = tl_json_parse(rj.out);
    ck_assert_msg(dj != NULL, "%s", rj.out);
    static const char *const keys[] = {"wins", "draws", "losses", "plies", "errors",
                                       "games_with_errors"};
    for (int k = 0; k < 6; k++) {
        ck_assert_int_eq(tl_jget_u(tl_jget(tl_jget(dj, "engines"), "engine 1"), keys[k]),
                         tl_jget_u(e1, keys[k]));
        ck_assert_int_eq(tl_jget_u(tl_jget(tl_jget(dj, "engines"), "engine 2"), keys[k]),
                         tl_jget_u(e2, keys[k]));
    }
    tl_json_free(dj);
    tl_result_free(&rj);
    tl_json_free(doc);
    tl_result_free(&r);

    /* the games file is annotate's input as it stands: every game White's
     * first move is b2 when the perfect player is White, a1 otherwise */
    tl_run(&r, NULL, "annotate", "-t", t3d, "--json", games, NULL);
    ck_assert_msg(r.code == 0, "exit %d: %s", r.code, r.err);
    doc = tl_json_parse(r.out);
    ck_assert(doc != NULL);
    for (int g = 0; g < 6; g++)
        ck_assert_str_eq(tl_jget_s(jitem(jitem(doc, "games", g), "plies", 0), "move"),
                         g % 2 == 0 ? "b2" : "a1");
    tl_json_free(doc);
    tl_result_free(&r);

    /* an engine that cannot be started is exit 2 with a message */
    char *bad[] = {"/usr/bin/env", "python3", MMTB_SOURCE_DIR "/scripts/match", "-t", t3d,
                   "-e", "/nonexistent/engine", "--probe", PROBE_BIN, NULL};
    tl_run_argv(&r, NULL, bad);
    ck_assert_int_eq(r.code, 2);
    ck_assert_msg(strstr(r.err, "cannot start '/nonexistent/engine'"), "%s", r.err);
    tl_result_free(&r);
}
END_TEST

/* Write an engine script under tdir that answers every `go` with
 * `bestmove ANSWER`; its path goes to path. */
static void answering_engine(char *path, size_t len, const char *answer)
{
    snprintf(path, len, "%s/answer-%s.sh", tdir, answer);
    FILE *f = fopen(path, "w");
    ck_assert(f != NULL);
    fprintf(f, "#!/bin/sh\nwhile read -r cmd rest; do case $cmd in\n"
               "uci) echo uciok;; isready) echo readyok;; go) echo 'bestmove %s';;\n"
               "quit) exit 0;; esac; done\n", answer);
    fclose(f);
    ck_assert_int_eq(chmod(path, 0755), 0);
}

/* Run two games of the perfect player (engine 2) against an engine that
 * answers ANSWER at once (engine 1, White in game 1); the JSON summary. */
static struct tl_jv *claim_match(const char *answer, const char *no_move)
{
    char perfect[400], other[400];
    snprintf(perfect, sizeof perfect, "%s engine -t %s", PROBE_BIN, t3d);
    answering_engine(other, sizeof other, answer);
    char *argv[] = {"/usr/bin/env", "python3", MMTB_SOURCE_DIR "/scripts/match", "-t", t3d,
                    "-e", other, "-e", perfect, "-n", "2", "--random-plies", "0", "--json",
                    "--probe", PROBE_BIN, "--no-move", (char *)no_move, NULL};
    struct tl_result r;
    tl_run_argv(&r, NULL, argv);
    ck_assert_msg(r.code == 0, "exit %d: %s", r.code, r.err);
    struct tl_jv *doc = tl_json_parse(r.out);
    ck_assert_msg(doc != NULL, "%s", r.out);
    tl_result_free(&r);
    return doc;
}

/* An engine may end a game with `bestmove draw` (a claim; Sanmill's engine
 * claims under its own repetition and N-move rules) or with no move.  On
 * three-diag, White wins from the start (b2) and Black, after b2, loses:
 * the claimant claims once as White (in a won position: it gave a win
 * away) and once as Black (in a lost one).  No move is a loss, or a claim
 * with --no-move draw. */
START_TEST(match_runner_scores_draw_claims)
{
    struct tl_jv *doc = claim_match("draw", "loss");
    const struct tl_jv *e1 = tl_jget(tl_jget(doc, "engines"), "engine 1");
    const struct tl_jv *e2 = tl_jget(tl_jget(doc, "engines"), "engine 2");
    ck_assert_int_eq(tl_jget_u(e1, "draws"), 2);
    ck_assert_int_eq(tl_jget_u(e2, "draws"), 2);
    const struct tl_jv *c = tl_jget(e1, "draw_claims");
    ck_assert_int_eq(tl_jget_u(c, "total"), 2);
    ck_assert_int_eq(tl_jget_u(c, "win"), 1);
    ck_assert_int_eq(tl_jget_u(c, "loss"), 1);
    ck_assert_int_eq(tl_jget_u(tl_jget(e2, "draw_claims"), "total"), 0);
    const struct tl_jv *g2 = jitem(doc, "results", 1);
    ck_assert_str_eq(tl_jget_s(g2, "reason"), "engine 1 claimed a draw (bestmove draw)");
    ck_assert_int_eq(tl_jget_u(g2, "actions"), 1); /* the perfect player's b2 */
    tl_json_free(doc);

    doc = claim_match("none", "loss");
    e1 = tl_jget(tl_jget(doc, "engines"), "engine 1");
    ck_assert_int_eq(tl_jget_u(e1, "losses"), 2);
    ck_assert_int_eq(tl_jget_u(tl_jget(e1, "draw_claims"), "total"), 0);
    ck_assert_str_eq(tl_jget_s(jitem(doc, "results", 0), "reason"),
                     "engine 1 gave no move (bestmove none)");
    tl_json_free(doc);

    doc = claim_match("none", "draw");
    e1 = tl_jget(tl_jget(doc, "engines"), "engine 1");
    ck_assert_int_eq(tl_jget_u(e1, "draws"), 2);
    c = tl_jget(e1, "draw_claims");
    ck_assert_int_eq(tl_jget_u(c, "total"), 2);
    ck_assert_int_eq(tl_jget_u(c, "win"), 1);
    ck_assert_int_eq(tl_jget_u(c, "loss"), 1);
    tl_json_free(doc);
}
END_TEST

/* ---------------------------------------------------------------------- */

/* Run mmtb-gen with the given arguments; false when it fails. */
static bool gen(const char *variant, const char *extra, const char *out)
{
    char *argv[10];
    int n = 0;
    argv[n++] = GEN_BIN;
    argv[n++] = "-v";
    argv[n++] = (char *)variant;
    char e1[32] = "", e2[32] = "";
    if (extra) {
        sscanf(extra, "%31s %31s", e1, e2);
        argv[n++] = e1;
        if (e2[0])
            argv[n++] = e2;
    }
    argv[n++] = "-o";
    argv[n++] = (char *)out;
    argv[n++] = "--quiet";
    argv[n] = NULL;
    pid_t pid;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    int rc = posix_spawn(&pid, GEN_BIN, &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    int status = 0;
    return rc == 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
           WEXITSTATUS(status) == 0;
}

int main(void)
{
    /* the tables, made once by the real generator (no OpenMP in this process) */
    snprintf(tdir, sizeof tdir, "/tmp/check_verify_XXXXXX");
    if (!mkdtemp(tdir)) {
        fprintf(stderr, "mkdtemp: %s\n", strerror(errno));
        return EXIT_FAILURE;
    }
    snprintf(t3d, sizeof t3d, "%s/three-diag", tdir);
    snprintf(t6, sizeof t6, "%s/six", tdir);
    snprintf(tn3, sizeof tn3, "%s/nine3", tdir);
    snprintf(t3m, sizeof t3m, "%s/three-diag-moves", tdir);
    if (!gen("three-diag", "--start", t3d) || !gen("six", "--start", t6) ||
        !gen("nine", "--max-stones 3", tn3) || !gen("three-diag", NULL, t3m)) {
        fprintf(stderr, "check_verify: mmtb-gen failed to make the test tables\n");
        return EXIT_FAILURE;
    }

    Suite *s = suite_create("verify");
    TCase *ta = tcase_create("annotate");
    tcase_set_timeout(ta, 120);
    tcase_add_test(ta, annotate_three_diag_error_at_known_ply);
    tcase_add_test(ta, annotate_recorded_result_against_the_tables);
    tcase_add_test(ta, annotate_grammar);
    tcase_add_test(ta, annotate_illegal_and_truncated);
    tcase_add_test(ta, annotate_sanmill_endgames);
    suite_add_tcase(s, ta);
    TCase *tc = tcase_create("check");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, check_illegal_moves_name_the_rule);
    tcase_add_test(tc, check_known_verdicts_and_summary);
    tcase_add_test(tc, check_every_move_agrees_with_the_move_list);
    suite_add_tcase(s, tc);
    TCase *te = tcase_create("engine");
    tcase_set_timeout(te, 300);
    tcase_add_test(te, engine_three_diag_answers_the_centre);
    tcase_add_test(te, engine_removal_in_two_actions);
    tcase_add_test(te, engine_answers_are_best_moves);
    tcase_add_test(te, engine_bad_input_and_outside_the_tables);
    tcase_add_test(te, moves_play_actions);
    tcase_add_test(te, match_runner_judges_the_games);
    tcase_add_test(te, match_runner_scores_draw_claims);
    suite_add_tcase(s, te);

    return tl_run_suite(s, tdir, "check_verify");
}
