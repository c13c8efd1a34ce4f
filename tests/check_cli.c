/*
 * check_cli.c - tests of the mmtb-probe command as users run it: spawns the
 * built binary, feeds stdin, and checks stdout, stderr and exit codes against
 * known answers (published counts, hand-derived move lists, solved values).
 * Includes a small strict JSON parser so --json output is checked as JSON.
 * The probe/stats/play tests need tables made by mmtb-gen (see main()).
 */
#define _GNU_SOURCE /* strcasestr, nftw */
#include <check.h>
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testlib_cli.h"
#include "testlib_util.h"

extern char **environ;

/* The Gasser Fig. 9 position: Black to move loses in 26 plies. */
#define FIG9 "d7,g7,g1 a4,g4,d5 b"


/* A fresh temporary directory in dir (a mkdtemp template) and out = dir/t,
 * the table directory the test writes into. */
static void tmp_out(char *dir, char *out, size_t len)
{
    ck_assert(mkdtemp(dir) != NULL);
    snprintf(out, len, "%s/t", dir);
}

START_TEST(json_parser_self_test)
{
    /* the checker must itself reject what is not JSON */
    static const char *const good[] = {"[]", "{}", " [1, -2.5e3, \"a\\n\\u0041\", null, true]",
                                       "{\"a\":{\"b\":[false]}}"};
    static const char *const bad[] = {"",       "[",         "[1,]",     "{\"a\" 1}", "01",
                                      "\"a\nb\"", "[1] x",     "{a:1}",    "\"\\x\"",   "-",
                                      "[.5]",   "nul",       "{\"a\":}", "[\"\\u12\"]"};
    for (size_t i = 0; i < sizeof good / sizeof *good; i++) {
        struct tl_jv *v = tl_json_parse(good[i]);
        ck_assert_msg(v != NULL, "rejected %s", good[i]);
        tl_json_free(v);
    }
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        struct tl_jv *v = tl_json_parse(bad[i]);
        ck_assert_msg(v == NULL, "accepted %s", bad[i]);
    }
}
END_TEST

/* ---------------------------------------------------------------------- */
/* Help, version, usage errors                                            */
/* ---------------------------------------------------------------------- */

static const char *const subcommands[] = {"board", "moves", "perft", "sectors",
                                          "probe", "stats", "play"};

START_TEST(help_for_every_command_exits_0)
{
    struct tl_result r;
    tl_run(&r, NULL, "--help", NULL);
    ck_assert_int_eq(r.code, 0);
    for (size_t i = 0; i < sizeof subcommands / sizeof *subcommands; i++)
        ck_assert_msg(strstr(r.out, subcommands[i]) != NULL, "top-level help lacks %s",
                      subcommands[i]);
    tl_result_free(&r);
    for (size_t i = 0; i < sizeof subcommands / sizeof *subcommands; i++) {
        tl_run(&r, NULL, subcommands[i], "--help", NULL);
        ck_assert_msg(r.code == 0, "%s --help exited %d", subcommands[i], r.code);
        ck_assert_msg(strstr(r.out, "Usage:") != NULL, "%s --help has no usage", subcommands[i]);
        ck_assert_msg(strstr(r.out, "Exit codes") != NULL, "%s --help lacks exit codes",
                      subcommands[i]);
        tl_result_free(&r);
        tl_run(&r, NULL, subcommands[i], "-h", NULL);
        ck_assert_int_eq(r.code, 0);
        tl_result_free(&r);
    }
    tl_run(&r, NULL, "--version", NULL);
    ck_assert_int_eq(r.code, 0);
    ck_assert(strstr(r.out, "mmtb-probe") != NULL);
    tl_result_free(&r);
}
END_TEST

START_TEST(usage_errors_exit_1_with_message)
{
    struct tl_result r;
    tl_run(&r, NULL, "frobnicate", NULL);
    ck_assert_int_eq(r.code, 1);
    ck_assert(strstr(r.err, "unknown command") != NULL);
    ck_assert(strstr(r.err, "frobnicate") != NULL);
    tl_result_free(&r);

    tl_run(&r, NULL, "board", "--no-such-option", NULL);
    ck_assert_int_eq(r.code, 1);
    ck_assert(strstr(r.err, "--no-such-option") != NULL);
    tl_result_free(&r);

    tl_run(&r, NULL, "perft", "-v", "nine", NULL); /* no depth */
    ck_assert_int_eq(r.code, 1);
    ck_assert(strstr(r.err, "-d") != NULL);
    tl_result_free(&r);

    tl_run(&r, NULL, "perft", "-d", "three", NULL);
    ck_assert_int_eq(r.code, 1);
    ck_assert(strstr(r.err, "depth") != NULL);
    tl_result_free(&r);

    tl_run(&r, NULL, "board", "-v", NULL); /* option without its value */
    ck_assert_int_eq(r.code, 1);
    ck_assert(r.err[0] != '\0');
    tl_result_free(&r);

    tl_run(&r, NULL, "sectors", "--start", "9", NULL);
    ck_assert_int_eq(r.code, 1);
    ck_assert(strstr(r.err, "--start") != NULL);
    tl_result_free(&r);

    /* the table commands need -t */
    static const char *const need_t[] = {"probe", "stats", "play"};
    for (int i = 0; i < 3; i++) {
        tl_run(&r, NULL, need_t[i], NULL);
        ck_assert_msg(r.code == 1, "%s without -t exited %d", need_t[i], r.code);
        ck_assert_msg(strstr(r.err, "-t") != NULL, "%s: no mention of -t: %s", need_t[i], r.err);
        tl_result_free(&r);
    }
}
END_TEST

START_TEST(unknown_variant_exits_1)
{
    static const char *const cmds[] = {"board", "moves", "sectors"};
    struct tl_result r;
    for (int i = 0; i < 3; i++) {
        tl_run(&r, NULL, cmds[i], "-v", "no-such-variant", NULL);
        ck_assert_msg(r.code == 1, "%s exited %d", cmds[i], r.code);
        ck_assert(strstr(r.err, "no-such-variant") != NULL);
        ck_assert(r.out[0] == '\0' || strstr(r.out, "no-such-variant") == NULL);
        tl_result_free(&r);
    }
    tl_run(&r, NULL, "perft", "-v", "/nonexistent/variant.txt", "-d", "1", NULL);
    ck_assert_int_eq(r.code, 1);
    ck_assert(strstr(r.err, "/nonexistent/variant.txt") != NULL);
    tl_result_free(&r);
}
END_TEST

/* ---------------------------------------------------------------------- */
/* board                                                                  */
/* ---------------------------------------------------------------------- */

START_TEST(board_nine_has_16_mills_and_16_symmetries)
{
    struct tl_result r;
    tl_run(&r, NULL, "board", "-v", "nine", NULL);
    ck_assert_int_eq(r.code, 0);
    ck_assert(strstr(r.out, "Mills (16):") != NULL);
    ck_assert(strstr(r.out, "Symmetry group order: 16") != NULL);
    ck_assert(strstr(r.out, "Points (24):") != NULL);
    /* mills from the reference list, in reading order */
    static const char *const mills[] = {"a7-d7-g7", "b2-b4-b6", "c3-d3-e3", "d7-d6-d5",
                                        "a4-b4-c4", "e4-f4-g4", "d3-d2-d1"};
    for (size_t i = 0; i < sizeof mills / sizeof *mills; i++) {
        /* a mill may be printed in either direction */
        char rev[16] = "";
        const char *m = mills[i];
        snprintf(rev, sizeof rev, "%.2s-%.2s-%.2s", m + 6, m + 3, m);
        ck_assert_msg(strstr(r.out, m) || strstr(r.out, rev), "mill %s not listed", m);
    }
    /* every square name appears in the drawing, which comes before the lists */
    const char *lists = strstr(r.out, "Points (");
    for (char c = 'a'; c <= 'g'; c++)
        for (char d = '1'; d <= '7'; d++) {
            char sq[3] = {c, d, 0};
            const char *at = strstr(r.out, sq);
            bool on_board = (c == 'd' || d == '4' || abs(c - 'd') == abs(d - '4')) &&
                            !(c == 'd' && d == '4');
            if (on_board)
                ck_assert_msg(at && at < lists, "%s missing from the drawing", sq);
        }
    tl_result_free(&r);

    /* the default variant is nine */
    tl_run(&r, NULL, "board", NULL);
    ck_assert_int_eq(r.code, 0);
    ck_assert(strstr(r.out, "Mills (16):") != NULL);
    tl_result_free(&r);
}
END_TEST

START_TEST(board_other_variants)
{
    struct tl_result r;
    tl_run(&r, NULL, "board", "-v", "three-diag", NULL);
    ck_assert_int_eq(r.code, 0);
    ck_assert(strstr(r.out, "Mills (8):") != NULL);
    ck_assert(strstr(r.out, "Symmetry group order: 8") != NULL);
    tl_result_free(&r);

    tl_run(&r, NULL, "board", "-v", "six", NULL);
    ck_assert_int_eq(r.code, 0);
    ck_assert(strstr(r.out, "Symmetry group order: 16") != NULL);
    ck_assert(strstr(r.out, "Points (16):") != NULL);
    tl_result_free(&r);

    tl_run(&r, NULL, "board", "-v", "morabaraba", NULL);
    ck_assert_int_eq(r.code, 0);
    ck_assert(strstr(r.out, "Mills (20):") != NULL);
    ck_assert(strstr(r.out, "Symmetry group order: 16") != NULL);
    tl_result_free(&r);

    /* a variant file path works like a built-in name */
    tl_run(&r, NULL, "board", "-v", MMTB_SOURCE_DIR "/data/variants/nine.txt", NULL);
    ck_assert_int_eq(r.code, 0);
    ck_assert(strstr(r.out, "Mills (16):") != NULL);
    tl_result_free(&r);
}
END_TEST

/* ---------------------------------------------------------------------- */
/* perft                                                                  */
/* ---------------------------------------------------------------------- */

START_TEST(perft_nine_start)
{
    /* 24, 24*23, 24*23*22: no mill is possible in the first three plies;
     * 12144 is also Sanmill's published figure. */
    static const char *const want[] = {"1\n", "24\n", "552\n", "12144\n"};
    static const char *const depth[] = {"0", "1", "2", "3"};
    struct tl_result r;
    for (int d = 0; d < 4; d++) {
        tl_run(&r, NULL, "perft", "-v", "nine", "-d", depth[d], NULL);
        ck_assert_int_eq(r.code, 0);
        ck_assert_str_eq(r.out, want[d]);
        tl_result_free(&r);
    }
    /* the start position given explicitly, simple form and FEN */
    tl_run(&r, NULL, "perft", "-d", "3", "- - w 9 9", NULL);
    ck_assert_int_eq(r.code, 0);
    ck_assert_str_eq(r.out, "12144\n");
    tl_result_free(&r);
    tl_run(&r, NULL, "perft", "-d", "2", "********/********/********", "w", "p", "p", "0", "9", "0",
        "9", "0", "0", "0", "0", "0", "0", "0", "0", "1", NULL);
    ck_assert_int_eq(r.code, 0);
    ck_assert_str_eq(r.out, "552\n");
    tl_result_free(&r);
}
END_TEST

START_TEST(perft_divide_sums_to_total)
{
    struct tl_result r;
    tl_run(&r, NULL, "perft", "-v", "nine", "-d", "3", "--divide", NULL);
    ck_assert_int_eq(r.code, 0);
    /* 24 placements, each followed by 23 * 22 sequences, then the total */
    ck_assert_int_eq(tl_count_lines(r.out), 25);
    ck_assert(strstr(r.out, "d6: 506\n") != NULL);
    ck_assert(strstr(r.out, "total: 12144\n") != NULL);
    tl_result_free(&r);
}
END_TEST

START_TEST(perft_three_diag_start)
{
    /* three-diag: no mill can be closed before each side has 3 stones, so
     * the first four plies are 9*8*7*6 = 3024 sequences */
    struct tl_result r;
    tl_run(&r, NULL, "perft", "-v", "three-diag", "-d", "4", NULL);
    ck_assert_int_eq(r.code, 0);
    ck_assert_str_eq(r.out, "3024\n");
    tl_result_free(&r);
}
END_TEST

/* ---------------------------------------------------------------------- */
/* moves                                                                  */
/* ---------------------------------------------------------------------- */

static const char *const nine_squares[24] = {
    "a1", "a4", "a7", "b2", "b4", "b6", "c3", "c4", "c5", "d1", "d2", "d3",
    "d5", "d6", "d7", "e3", "e4", "e5", "f2", "f4", "f6", "g1", "g4", "g7"};

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * Gasser's Fig. 9: White d7 g7 g1, Black a4 g4 d5, Black to move.  Black has
 * 3 stones and flies: each of its 3 stones to each of the 18 empty points.
 * None of these closes a mill (no two black stones share a line), so the
 * moves are exactly the 54 tokens "FROM-TO".
 */
static char **fig9_moves(void)
{
    static const char *const black[] = {"a4", "g4", "d5"};
    static const char *const occupied[] = {"d7", "g7", "g1", "a4", "g4", "d5"};
    char **m = malloc(sizeof *m * 54);
    int n = 0;
    for (int f = 0; f < 3; f++)
        for (int t = 0; t < 24; t++) {
            bool occ = false;
            for (int k = 0; k < 6; k++)
                occ |= strcmp(nine_squares[t], occupied[k]) == 0;
            if (occ)
                continue;
            m[n] = malloc(8);
            snprintf(m[n], 8, "%s-%s", black[f], nine_squares[t]);
            n++;
        }
    ck_assert_int_eq(n, 54);
    qsort(m, 54, sizeof *m, cmp_str);
    return m;
}

static void free_list(char **m, int n)
{
    for (int i = 0; i < n; i++)
        free(m[i]);
    free(m);
}

/* Split output into sorted lines (caller frees). */
static char **split_lines(const char *s, int *n)
{
    int cap = tl_count_lines(s) + 1, k = 0;
    char **l = malloc(sizeof *l * (size_t)cap);
    while (*s) {
        const char *e = strchr(s, '\n');
        size_t len = e ? (size_t)(e - s) : strlen(s);
        l[k] = strndup(s, len);
        k++;
        s += len + (e ? 1 : 0);
    }
    qsort(l, (size_t)k, sizeof *l, cmp_str);
    *n = k;
    return l;
}

START_TEST(moves_fig9_flying)
{
    char **want = fig9_moves();
    struct tl_result r;
    int n;

    /* as several words */
    tl_run(&r, NULL, "moves", "-v", "nine", "--quiet", "d7,g7,g1", "a4,g4,d5", "b", NULL);
    ck_assert_int_eq(r.code, 0);
    char **got = split_lines(r.out, &n);
    ck_assert_int_eq(n, 54);
    for (int i = 0; i < 54; i++)
        ck_assert_str_eq(got[i], want[i]);
    free_list(got, n);
    tl_result_free(&r);

    /* as one word, with the drawing */
    tl_run(&r, NULL, "moves", FIG9, NULL);
    ck_assert_int_eq(r.code, 0);
    ck_assert(strstr(r.out, "54 legal moves") != NULL);
    ck_assert(strstr(r.out, "Black to move") != NULL);
    for (int i = 0; i < 54; i++) {
        char line[16];
        snprintf(line, sizeof line, "\n%s\n", want[i]);
        ck_assert_msg(strstr(r.out, line) != NULL, "%s missing", want[i]);
    }
    tl_result_free(&r);

    /* JSON */
    tl_run(&r, NULL, "moves", "--json", FIG9, NULL);
    ck_assert_int_eq(r.code, 0);
    struct tl_jv *j = tl_json_parse(r.out);
    ck_assert_msg(j != NULL, "not JSON: %s", r.out);
    ck_assert_str_eq(tl_jget_s(j, "position"), FIG9);
    ck_assert_str_eq(tl_jget_s(j, "side"), "black");
    ck_assert_int_eq(tl_jget_u(j, "count"), 54);
    const struct tl_jv *mv = tl_jget(j, "moves");
    ck_assert(mv && mv->t == J_ARR && mv->n == 54);
    char **jm = malloc(sizeof *jm * 54);
    for (int i = 0; i < 54; i++) {
        ck_assert(mv->item[i].t == J_STR);
        jm[i] = strdup(mv->item[i].s);
    }
    qsort(jm, 54, sizeof *jm, cmp_str);
    for (int i = 0; i < 54; i++)
        ck_assert_str_eq(jm[i], want[i]);
    free_list(jm, 54);
    tl_json_free(j);
    tl_result_free(&r);
    free_list(want, 54);
}
END_TEST

START_TEST(moves_mill_lists_each_removal)
{
    /* White a7 d7 to move with a stone in hand: placing g7 closes the mill
     * a7-d7-g7 and removes one of Black's two loose stones b4, f4; the other
     * 19 empty points are plain placements: 21 moves. */
    struct tl_result r;
    tl_run(&r, NULL, "moves", "-q", "a7,d7 b4,f4 w 7 7", NULL);
    ck_assert_int_eq(r.code, 0);
    ck_assert_int_eq(tl_count_lines(r.out), 21);
    ck_assert(strstr(r.out, "g7xb4\n") != NULL);
    ck_assert(strstr(r.out, "g7xf4\n") != NULL);
    ck_assert(strstr(r.out, "\ng7\n") == NULL && strncmp(r.out, "g7\n", 3) != 0);
    tl_result_free(&r);
}
END_TEST

START_TEST(moves_bad_position_names_the_field)
{
    struct tl_result r;
    tl_run(&r, NULL, "moves", "d7,g7,zz a4,g4,d5 b", NULL);
    ck_assert_int_eq(r.code, 1);
    ck_assert(strstr(r.err, "zz") != NULL);
    ck_assert(r.out[0] == '\0');
    tl_result_free(&r);

    tl_run(&r, NULL, "moves", "d7,g7,g1 a4,g4,d5 x", NULL);
    ck_assert_int_eq(r.code, 1);
    ck_assert_msg(strcasestr(r.err, "side") != NULL, "side not named: %s", r.err);
    tl_result_free(&r);

    tl_run(&r, NULL, "moves", "d7,g7,g1 d7,g4,d5 b", NULL); /* d7 twice */
    ck_assert_int_eq(r.code, 1);
    ck_assert(r.err[0] != '\0');
    tl_result_free(&r);

    tl_run(&r, NULL, "moves", "--json", "not a position at all", NULL);
    ck_assert_int_eq(r.code, 1);
    ck_assert(r.err[0] != '\0');
    tl_result_free(&r);
}
END_TEST

/* ---------------------------------------------------------------------- */
/* sectors                                                                */
/* ---------------------------------------------------------------------- */

static unsigned long long binom(int n, int k)
{
    unsigned long long r = 1;
    if (k < 0 || k > n)
        return 0;
    for (int i = 1; i <= k; i++)
        r = r * (unsigned long long)(n - k + i) / (unsigned long long)i;
    return r;
}

/* Check the common shape of a `sectors --json` array on an n-point board:
 * every object has the seven fields, positions = C(n,w) C(n-w,b), and
 * positions/symmetries <= canonical <= positions <= ... , slots >= canonical. */
static void check_sector_array(const struct tl_jv *j, int npoints, int nsyms,
                               unsigned long long *sum_canonical)
{
    ck_assert(j && j->t == J_ARR);
    *sum_canonical = 0;
    for (int i = 0; i < j->n; i++) {
        const struct tl_jv *o = &j->item[i];
        ck_assert_int_eq(o->n, 9);
        int w = (int)tl_jget_u(o, "w"), b = (int)tl_jget_u(o, "b");
        (void)tl_jget_u(o, "w_hand");
        (void)tl_jget_u(o, "b_hand");
        unsigned long long pos = tl_jget_u(o, "positions"), can = tl_jget_u(o, "canonical");
        unsigned long long slots = tl_jget_u(o, "slots");
        ck_assert_uint_eq(pos, binom(npoints, w) * binom(npoints - w, b));
        ck_assert(can <= pos && can * (unsigned long long)nsyms >= pos);
        ck_assert(slots >= can);
        /* nine's and three's positions are their stones: the table has the index's slots */
        ck_assert_uint_eq(tl_jget_u(o, "table_slots"), slots);
        ck_assert(tl_jget_b(o, "table_slots_exact"));
        *sum_canonical += can;
    }
}

START_TEST(sectors_nine_movement_json)
{
    struct tl_result r;
    tl_run(&r, NULL, "sectors", "-v", "nine", "--start", "0,0", "--json", NULL);
    ck_assert_int_eq(r.code, 0);
    struct tl_jv *j = tl_json_parse(r.out);
    ck_assert_msg(j != NULL, "sectors --json is not valid JSON");
    ck_assert_int_eq(j->n, 49); /* 3..9 stones a side, ordered */
    unsigned long long can, pos = 0;
    check_sector_array(j, 24, 16, &can);
    for (int i = 0; i < j->n; i++) {
        ck_assert_uint_eq(tl_jget_u(&j->item[i], "w_hand"), 0);
        ck_assert_uint_eq(tl_jget_u(&j->item[i], "b_hand"), 0);
        pos += tl_jget_u(&j->item[i], "positions");
    }
    ck_assert_uint_eq(can, 8904593601ULL);   /* published */
    ck_assert_uint_eq(pos, 142430121724ULL); /* binomial count */
    tl_json_free(j);
    tl_result_free(&r);

    /* the text table has the same total */
    tl_run(&r, NULL, "sectors", "-v", "nine", "--start", "0,0", NULL);
    ck_assert_int_eq(r.code, 0);
    ck_assert(strstr(r.out, "8904593601") != NULL);
    ck_assert(strstr(r.out, "142430121724") != NULL);
    ck_assert_int_eq(tl_count_lines(r.out), 1 + 49 + 1);
    tl_result_free(&r);

    /* --max-stones narrows it: 3..4 stones a side = 4 sectors */
    tl_run(&r, NULL, "sectors", "--start", "0,0", "--max-stones", "4", "--json", NULL);
    ck_assert_int_eq(r.code, 0);
    j = tl_json_parse(r.out);
    ck_assert(j != NULL);
    ck_assert_int_eq(j->n, 4);
    tl_json_free(j);
    tl_result_free(&r);
}
END_TEST

START_TEST(sectors_three_json_is_valid)
{
    struct tl_result r;
    tl_run(&r, NULL, "sectors", "-v", "three", "--json", NULL);
    ck_assert_int_eq(r.code, 0);
    struct tl_jv *j = tl_json_parse(r.out);
    ck_assert_msg(j != NULL, "sectors -v three --json is not valid JSON");
    ck_assert(j->n >= 2);
    unsigned long long can;
    check_sector_array(j, 9, 8, &can);
    /* the start sector (nothing on the board, 3 in hand each) is listed */
    bool start = false;
    for (int i = 0; i < j->n; i++)
        start |= tl_jget_u(&j->item[i], "w") == 0 && tl_jget_u(&j->item[i], "b") == 0 &&
                 tl_jget_u(&j->item[i], "w_hand") == 3 && tl_jget_u(&j->item[i], "b_hand") == 3;
    ck_assert(start);
    tl_json_free(j);
    tl_result_free(&r);
}
END_TEST

/* ---------------------------------------------------------------------- */
/* Tables: probe, stats, play (need mmtb-gen)                             */
/* ---------------------------------------------------------------------- */

static int rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw);

/* Directory with the solved nine 3-3 sector, set up by main(). */
static char tables_nine3[1024];
static char tables_error[512];

static void need_tables(void)
{
    ck_assert_msg(tables_nine3[0] != '\0', "no tables: %s", tables_error);
}

START_TEST(probe_fig9_loses_in_26)
{
    need_tables();
    struct tl_result r;
    tl_run(&r, NULL, "probe", "-t", tables_nine3, "--json", FIG9, NULL);
    ck_assert_msg(r.code == 0, "exit %d: %s", r.code, r.err);
    ck_assert_int_eq(tl_count_lines(r.out), 1);
    struct tl_jv *j = tl_json_parse(r.out);
    ck_assert_msg(j != NULL, "not JSON: %s", r.out);
    ck_assert_str_eq(tl_jget_s(j, "position"), FIG9);
    ck_assert_str_eq(tl_jget_s(j, "wdl"), "loss");
    ck_assert_uint_eq(tl_jget_u(j, "dtw"), 26);
    const struct tl_jv *mv = tl_jget(j, "moves");
    ck_assert(mv && mv->t == J_ARR);
    ck_assert_int_eq(mv->n, 54);
    char **want = fig9_moves();
    for (int i = 0; i < mv->n; i++) {
        const struct tl_jv *m = &mv->item[i];
        /* a lost position has only losing moves; the best delays longest */
        ck_assert_str_eq(tl_jget_s(m, "wdl"), "loss");
        unsigned long long d = tl_jget_u(m, "dtw");
        ck_assert(d <= 26);
        if (i == 0)
            ck_assert_uint_eq(d, 26);
        else
            ck_assert(d <= tl_jget_u(&mv->item[i - 1], "dtw"));
        const char *tok = tl_jget_s(m, "move");
        ck_assert(bsearch(&tok, want, 54, sizeof *want, cmp_str) != NULL);
    }
    free_list(want, 54);
    tl_json_free(j);
    tl_result_free(&r);

    /* text output names the value */
    tl_run(&r, NULL, "probe", "-t", tables_nine3, FIG9, NULL);
    ck_assert_int_eq(r.code, 0);
    ck_assert_msg(strstr(r.out, "loss in 26") != NULL, "%s", r.out);
    tl_result_free(&r);
}
END_TEST

START_TEST(probe_pv_and_wdl_only)
{
    need_tables();
    struct tl_result r;
    tl_run(&r, NULL, "probe", "-t", tables_nine3, "--json", "--pv", FIG9, NULL);
    ck_assert_int_eq(r.code, 0);
    struct tl_jv *j = tl_json_parse(r.out);
    ck_assert(j != NULL);
    const struct tl_jv *pv = tl_jget(j, "pv"), *mv = tl_jget(j, "moves");
    ck_assert(pv && pv->t == J_ARR && pv->n >= 1);
    /* played out to the end: a loss in 26 plies is 26 moves long */
    ck_assert_int_eq(pv->n, 26);
    ck_assert(pv->item[0].t == J_STR);
    /* the PV starts with a move of the best value */
    bool found = false;
    for (int i = 0; i < mv->n; i++)
        if (strcmp(tl_jget_s(&mv->item[i], "move"), pv->item[0].s) == 0)
            found = tl_jget_u(&mv->item[i], "dtw") == 26;
    ck_assert(found);
    tl_json_free(j);
    tl_result_free(&r);

    tl_run(&r, NULL, "probe", "-t", tables_nine3, "--json", "--wdl-only", FIG9, NULL);
    ck_assert_int_eq(r.code, 0);
    j = tl_json_parse(r.out);
    ck_assert(j != NULL);
    ck_assert_str_eq(tl_jget_s(j, "wdl"), "loss");
    mv = tl_jget(j, "moves");
    ck_assert(mv && mv->n == 54);
    tl_json_free(j);
    tl_result_free(&r);
}
END_TEST

START_TEST(probe_reads_stdin_and_continues_after_bad_input)
{
    need_tables();
    struct tl_result r;
    /* White to move in the mirrored position: a 3-3 position either way */
    tl_run(&r, FIG9 "\nthis is not a position\n\n" FIG9 "\n", "probe", "-t", tables_nine3, "--json",
        NULL);
    ck_assert_int_eq(r.code, 1); /* one bad line */
    ck_assert_int_eq(tl_count_lines(r.out), 2);
    ck_assert(r.err[0] != '\0');
    const char *second = strchr(r.out, '\n') + 1;
    struct tl_jv *a = tl_json_parse(second);
    ck_assert(a != NULL);
    ck_assert_str_eq(tl_jget_s(a, "wdl"), "loss");
    tl_json_free(a);
    tl_result_free(&r);

    /* several positions as arguments, one malformed: answer the rest, exit 1 */
    tl_run(&r, NULL, "probe", "-t", tables_nine3, "d7,g7,g1 a4,g4,q9 b", FIG9, NULL);
    ck_assert_int_eq(r.code, 1);
    ck_assert(strstr(r.err, "q9") != NULL);
    ck_assert(strstr(r.out, "loss in 26") != NULL);
    tl_result_free(&r);
}
END_TEST

START_TEST(probe_table_problems_exit_2)
{
    need_tables();
    struct tl_result r;
    tl_run(&r, NULL, "probe", "-t", "/nonexistent/tables", FIG9, NULL);
    ck_assert_int_eq(r.code, 2);
    ck_assert(strstr(r.err, "/nonexistent/tables") != NULL);
    tl_result_free(&r);

    tl_run(&r, NULL, "stats", "-t", "/nonexistent/tables", NULL);
    ck_assert_int_eq(r.code, 2);
    tl_result_free(&r);

    /* a 4-3 position: its sector is not in a 3-3 table set */
    tl_run(&r, NULL, "probe", "-t", tables_nine3, "d7,g7,g1,a1 a4,g4,d5 w", NULL);
    ck_assert_int_eq(r.code, 2);
    ck_assert(r.err[0] != '\0');
    tl_result_free(&r);
}
END_TEST

/* Copy the table directory `from` into a new temporary directory, cutting
 * every sector file (not the manifest) to half its size; returns the copy. */
static char *truncated_copy(const char *from)
{
    char *to = strdup("/tmp/check_cli_cut_XXXXXX");
    ck_assert(to && mkdtemp(to));
    DIR *d = opendir(from);
    ck_assert(d != NULL);
    struct dirent *e;
    int cut = 0;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        char src[2048], dst[2048];
        snprintf(src, sizeof src, "%s/%s", from, e->d_name);
        snprintf(dst, sizeof dst, "%s/%s", to, e->d_name);
        int in = open(src, O_RDONLY), out = open(dst, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        ck_assert(in >= 0 && out >= 0);
        char *data = tl_slurp(in);
        off_t len = lseek(in, 0, SEEK_END);
        bool sector = strcmp(e->d_name, "MANIFEST") != 0;
        size_t keep = sector ? (size_t)len / 2 : (size_t)len;
        ck_assert(write(out, data, keep) == (ssize_t)keep);
        cut += sector;
        free(data);
        close(in);
        close(out);
    }
    closedir(d);
    ck_assert(cut > 0);
    return to;
}

START_TEST(truncated_tables_exit_2)
{
    need_tables();
    char *dir = truncated_copy(tables_nine3);
    struct tl_result r;
    tl_run(&r, NULL, "stats", "-t", dir, "--json", NULL);
    ck_assert_int_eq(r.code, 2);
    ck_assert(strstr(r.err, "corrupt") != NULL);
    struct tl_jv *j = tl_json_parse(r.out); /* still valid JSON, without the bad sector */
    ck_assert(j != NULL && j->t == J_ARR && j->n == 0);
    tl_json_free(j);
    tl_result_free(&r);

    tl_run(&r, NULL, "probe", "-t", dir, "--json", FIG9, NULL);
    ck_assert_int_eq(r.code, 2);
    ck_assert(strstr(r.err, "corrupt") != NULL);
    ck_assert(r.out[0] == '\0');
    tl_result_free(&r);
    nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
    free(dir);
}
END_TEST

START_TEST(stats_nine_3_3_published)
{
    need_tables();
    struct tl_result r;
    tl_run(&r, NULL, "stats", "-t", tables_nine3, "--json", NULL);
    ck_assert_msg(r.code == 0, "exit %d: %s", r.code, r.err);
    struct tl_jv *j = tl_json_parse(r.out);
    ck_assert_msg(j != NULL && j->t == J_ARR, "not a JSON array: %s", r.out);
    ck_assert_int_eq(j->n, 1);
    const struct tl_jv *o = &j->item[0];
    ck_assert_uint_eq(tl_jget_u(o, "w"), 3);
    ck_assert_uint_eq(tl_jget_u(o, "b"), 3);
    ck_assert_uint_eq(tl_jget_u(o, "w_hand"), 0);
    ck_assert_uint_eq(tl_jget_u(o, "b_hand"), 0);
    ck_assert_uint_eq(tl_jget_u(o, "wins"), 140621);
    ck_assert_uint_eq(tl_jget_u(o, "losses"), 28736);
    ck_assert_uint_eq(tl_jget_u(o, "draws"), 269);
    ck_assert_uint_eq(tl_jget_u(o, "canonical"), 140621 + 28736 + 269);
    ck_assert_uint_eq(tl_jget_u(o, "max_win"), 25);
    ck_assert_uint_eq(tl_jget_u(o, "max_loss"), 26);
    tl_json_free(j);
    tl_result_free(&r);

    tl_run(&r, NULL, "stats", "-t", tables_nine3, NULL);
    ck_assert_int_eq(r.code, 0);
    ck_assert(strstr(r.out, "140621") != NULL);
    ck_assert(strstr(r.out, "total") != NULL);
    tl_result_free(&r);
}
END_TEST

/* bench says what the first pass left in the cache, and FULL when the
 * cache could take no further block: nine up to 4 v 4 has 23 W/D/L blocks,
 * more than a 200 KiB cache holds (about three) and fewer than 256 MiB. */
START_TEST(bench_reports_the_warm_cache)
{
    char dir[] = "/tmp/check_cli_bench_XXXXXX";
    char out[600];
    tmp_out(dir, out, sizeof out);
    struct tl_result r;
    char *gen[] = {GEN_BIN, "-v", "nine", "--max-stones", "4", "-o", out, "--quiet",
                   "--threads", "1", NULL};
    tl_run_argv(&r, NULL, gen);
    ck_assert_msg(r.code == 0, "exit %d: %s", r.code, r.err);
    tl_result_free(&r);
    for (int small = 0; small < 2; small++) {
        const char *cache = small ? "200K" : "256M";
        char *argv[] = {PROBE_BIN, "bench", "-t",  out,           "--count", "2000",
                        "--cold",  "0",     "--cache", (char *)cache, "--json",  NULL};
        tl_run_argv(&r, NULL, argv);
        ck_assert_msg(r.code == 0, "bench: exit %d: %s", r.code, r.err);
        struct tl_jv *j = tl_json_parse(r.out);
        ck_assert_msg(j != NULL, "not JSON: %s", r.out);
        for (int d = 0; d < 2; d++) {
            const struct tl_jv *h = tl_jget(j, d ? "warm_cache_dtw" : "warm_cache_wdl");
            ck_assert_msg(h && h->t == J_OBJ, "%s", r.out);
            unsigned long long bytes = tl_jget_u(h, "bytes"), blocks = tl_jget_u(h, "blocks");
            ck_assert_msg(blocks >= 1 && bytes >= blocks, "%s", r.out);
            ck_assert_msg(tl_jget_b(h, "full") == (small == 1), "%s", r.out);
            if (small)
                ck_assert_msg(blocks <= 4 && bytes <= 200 * 1024, "%llu blocks, %llu bytes",
                              blocks, bytes);
            else
                ck_assert_msg(blocks >= 20, "%llu blocks", blocks);
        }
        /* with a full cache a warm pass is not repeated to 100000 probes */
        const struct tl_jv *w = tl_jget(j, "warm_wdl");
        ck_assert_msg(w && w->t == J_OBJ, "%s", r.out);
        ck_assert_uint_eq(tl_jget_u(w, "probes"), small ? 2000 : 100000);
        tl_json_free(j);
        tl_result_free(&r);
        /* the text report says it in words */
        char *text[] = {PROBE_BIN, "bench", "-t", out, "--count", "2000", "--cold", "0",
                        "--cache", (char *)cache, NULL};
        tl_run_argv(&r, NULL, text);
        ck_assert_msg(r.code == 0, "bench: exit %d: %s", r.code, r.err);
        ck_assert_msg((strstr(r.out, "the 200.0 KiB cache is full") != NULL) == (small == 1),
                      "%s", r.out);
        ck_assert_msg((strstr(r.out, "room left") != NULL) == (small == 0), "%s", r.out);
        tl_result_free(&r);
    }
    char *zero[] = {PROBE_BIN, "bench", "-t", out, "--cache", "0", NULL};
    tl_run_argv(&r, NULL, zero);
    ck_assert_msg(r.code == 1 && strstr(r.err, "--cache '0'"), "exit %d: %s", r.code, r.err);
    tl_result_free(&r);
    nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}
END_TEST

/* mmtb-gen verify --sectors: a listed sector is checked (exit 0, its line
 * printed); a malformed item or a sector outside the game exits 1 naming it;
 * --verbose says how far the run is. */
START_TEST(verify_listed_sectors)
{
    need_tables();
    struct tl_result r;
    char *ok[] = {GEN_BIN, "verify", "-t", tables_nine3, "--sectors", "3-3", NULL};
    tl_run_argv(&r, NULL, ok);
    ck_assert_msg(r.code == 0, "exit %d: %s", r.code, r.err);
    ck_assert_msg(strstr(r.out, "3-3") && strstr(r.out, "mismatches 0"), "%s", r.out);
    tl_result_free(&r);
    char *bad[] = {GEN_BIN, "verify", "-t", tables_nine3, "--sectors", "3-3,4-x", NULL};
    tl_run_argv(&r, NULL, bad);
    ck_assert_int_eq(r.code, 1);
    ck_assert_msg(strstr(r.err, "'4-x'") != NULL, "%s", r.err);
    tl_result_free(&r);
    char *out[] = {GEN_BIN, "verify", "-t", tables_nine3, "--sectors", "9-9", NULL};
    tl_run_argv(&r, NULL, out);
    ck_assert_int_eq(r.code, 1);
    ck_assert_msg(strstr(r.err, "9-9") != NULL, "%s", r.err);
    tl_result_free(&r);
    /* --verbose: the share done after each sector, of nine 3-3's 169,626 positions */
    char *vb[] = {GEN_BIN, "verify", "-t", tables_nine3, "--verbose", NULL};
    tl_run_argv(&r, NULL, vb);
    ck_assert_int_eq(r.code, 0);
    ck_assert_msg(strstr(r.err, "progress: 100.0% of 0.17 M positions"), "%s", r.err);
    tl_result_free(&r);
}
END_TEST

/* mmtb-gen verify --ledger, as a user meets it: the first run records the
 * sector, the second takes it from the ledger (said on its line and in the
 * summary); a line cut short by a kill is dropped and the file goes on; a
 * malformed line or a file that is not a ledger exits 1 naming file and
 * line; a ledger another verify holds exits 2; a sector with Twelve's
 * restrictions (verified by its own path) is recorded and skipped alike. */
static void append_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "a");
    ck_assert(f != NULL);
    fputs(text, f);
    fclose(f);
}

START_TEST(verify_ledger_resumes)
{
    need_tables();
    char dir[] = "/tmp/check_cli_ledger_XXXXXX";
    ck_assert(mkdtemp(dir) != NULL);
    char led[600];
    snprintf(led, sizeof led, "%s/verified", dir);
    char *argv[] = {GEN_BIN, "verify", "-t", tables_nine3, "--ledger", led, NULL};
    struct tl_result r;
    tl_run_argv(&r, NULL, argv);
    ck_assert_msg(r.code == 0, "exit %d: %s", r.code, r.err);
    ck_assert_msg(strstr(r.out, "3-3") && !strstr(r.out, "(ledger)") &&
                      strstr(r.out, "0 recorded clean in the ledger"),
                  "%s", r.out);
    tl_result_free(&r);
    size_t len = 0;
    char *text = (char *)tl_read_file(led, &len);
    text[len] = 0;
    /* the magic line and one entry: 3-3, 16 hex digits, its positions */
    char name[16], hex[32];
    unsigned long long n = 0;
    ck_assert_msg(sscanf(text, "mmtb-verify-ledger 1\n%15s %31s %llu", name, hex, &n) == 3, "%s",
                  text);
    ck_assert_str_eq(name, "3-3");
    ck_assert_uint_eq(strlen(hex), 16);
    ck_assert_uint_eq(n, 140621 + 28736 + 269); /* nine 3-3's positions (Gasser) */
    free(text);

    append_text(led, "4-4 0123"); /* a write cut short */
    tl_run_argv(&r, NULL, argv);
    ck_assert_msg(r.code == 0, "exit %d: %s", r.code, r.err);
    ck_assert_msg(strstr(r.out, "(ledger)") && strstr(r.out, "1 recorded clean in the ledger") &&
                      strstr(r.out, "169626 positions, 0 mismatches"),
                  "%s", r.out);
    tl_result_free(&r);
    text = (char *)tl_read_file(led, &len);
    text[len] = 0;
    ck_assert(len > 0 && text[len - 1] == '\n' && !strstr(text, "4-4"));
    free(text);

    char *js[] = {GEN_BIN, "verify", "-t", tables_nine3, "--ledger", led, "--json", NULL};
    tl_run_argv(&r, NULL, js);
    ck_assert_int_eq(r.code, 0);
    ck_assert_msg(strstr(r.out, "\"sector\":\"3-3\"") && strstr(r.out, "\"ledger\":true"), "%s",
                  r.out);
    tl_result_free(&r);

    append_text(led, "4-4 nothex 12\n");
    tl_run_argv(&r, NULL, argv);
    ck_assert_int_eq(r.code, 1);
    ck_assert_msg(strstr(r.err, led) && strstr(r.err, ":3:"), "%s", r.err);
    tl_result_free(&r);

    ck_assert_int_eq(truncate(led, 0), 0);
    append_text(led, "sector 3-3 is fine\n");
    tl_run_argv(&r, NULL, argv);
    ck_assert_int_eq(r.code, 1);
    ck_assert_msg(strstr(r.err, ":1:") && strstr(r.err, "not a verify ledger"), "%s", r.err);
    tl_result_free(&r);

    /* held by another verify (a lock taken here) */
    ck_assert_int_eq(unlink(led), 0);
    int fd = open(led, O_RDWR | O_CREAT, 0644);
    ck_assert(fd >= 0);
    ck_assert_int_eq(flock(fd, LOCK_EX), 0);
    tl_run_argv(&r, NULL, argv);
    ck_assert_int_eq(r.code, 2);
    ck_assert_msg(strstr(r.err, "in use"), "%s", r.err);
    tl_result_free(&r);
    close(fd);
    unlink(led);

    /* a sector with Twelve's restrictions (verify's own path) is recorded too */
    char t12[600];
    snprintf(t12, sizeof t12, "%s/twelve3", dir);
    char *solve[] = {GEN_BIN, "-v", "twelve", "--max-stones", "3", "-o", t12, "--quiet", NULL};
    tl_run_argv(&r, NULL, solve);
    ck_assert_msg(r.code == 0, "exit %d: %s", r.code, r.err);
    tl_result_free(&r);
    char *v12[] = {GEN_BIN, "verify", "-t", t12, "--ledger", led, "--json", NULL};
    for (int run = 0; run < 2; run++) {
        tl_run_argv(&r, NULL, v12);
        ck_assert_msg(r.code == 0, "exit %d: %s", r.code, r.err);
        ck_assert_msg(strstr(r.out, "\"sector\":\"3-3\"") &&
                          (strstr(r.out, "\"ledger\":true") != NULL) == (run == 1),
                      "run %d: %s", run, r.out);
        tl_result_free(&r);
    }
    unlink(led);
    char cmd[700];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    ck_assert_int_eq(system(cmd), 0);
}
END_TEST

/* mmtb-gen --verbose says after each pair how far the run is, by slots:
 * the shares never fall, the last is 100%, and a rerun after one file was
 * deleted starts above 0 (the kept sectors count as done) and solves only
 * that pair. */
static void progress_shares(const char *err, double *first, double *last, int *n)
{
    *n = 0;
    double prev = -1;
    for (const char *p = strstr(err, "progress: "); p; p = strstr(p + 1, "progress: ")) {
        double pc = -1, tot = 0;
        ck_assert_msg(sscanf(p, "progress: %lf%% of %lf", &pc, &tot) == 2, "%.80s", p);
        ck_assert_msg(pc >= prev && pc <= 100.0 && tot > 0, "%.80s", p);
        if ((*n)++ == 0)
            *first = pc;
        prev = *last = pc;
    }
}

START_TEST(gen_verbose_progress)
{
    char dir[] = "/tmp/check_cli_progress_XXXXXX";
    char out[600], f33[700];
    tmp_out(dir, out, sizeof out);
    snprintf(f33, sizeof f33, "%s/t/3-3.mmtb", dir);
    char *argv[] = {GEN_BIN, "-v", "nine", "--start", "3,3", "-o", out, "--verbose", NULL};
    struct tl_result r;
    tl_run_argv(&r, NULL, argv);
    ck_assert_msg(r.code == 0, "exit %d: %s", r.code, r.err);
    double first = 0, last = 0;
    int n = 0;
    progress_shares(r.err, &first, &last, &n);
    ck_assert_int_ge(n, 5); /* one per pair solved */
    ck_assert(last == 100.0);
    ck_assert(strstr(r.err, "left at this run's rate") != NULL);
    tl_result_free(&r);
    ck_assert_int_eq(unlink(f33), 0);
    tl_run_argv(&r, NULL, argv);
    ck_assert_msg(r.code == 0, "exit %d: %s", r.code, r.err);
    progress_shares(r.err, &first, &last, &n);
    ck_assert_int_eq(n, 1);
    ck_assert(last == 100.0);
    tl_result_free(&r);
    char cmd[700];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    ck_assert_int_eq(system(cmd), 0);
}
END_TEST

/* The memory plan counts the outside results that wait for their level
 * (gen/buckets.c): Lasker's positions with stones in hand keep one for
 * nearly every position, as much as their state bytes or more.  For every
 * pair of lasker --start 4,4, the bytes --verbose says its buckets took
 * (their capacity, and of it the bytes written) are within what its plan
 * line allowed for them. */
START_TEST(gen_plan_counts_buckets)
{
    char dir[] = "/tmp/check_cli_buckets_XXXXXX";
    char out[600];
    tmp_out(dir, out, sizeof out);
    char *argv[] = {GEN_BIN, "-v", "lasker", "--start", "4,4", "-o", out, "--verbose", NULL};
    struct tl_result r;
    tl_run_argv(&r, NULL, argv);
    ck_assert_msg(r.code == 0, "exit %d: %s", r.code, r.err);
    char name[64][16];
    double allowed[64];
    int np = 0, checked = 0, filled = 0;
    for (const char *p = r.err; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
        char nm[16];
        double mib, st, bk, w;
        const char *pl = strstr(p, ": plan ");
        if (np < 64 && pl && pl < strchr(p, '\n') && sscanf(p, "%15[0-9-]", nm) == 1 &&
            sscanf(pl, ": plan %lf MiB (state %lf, buckets %lf,", &mib, &st, &bk) == 3) {
            snprintf(name[np], sizeof name[np], "%s", nm);
            allowed[np++] = bk;
            continue;
        }
        const char *b = strstr(p, "; buckets ");
        const char *e = strchr(p, '\n');
        if (*p != '[' || !b || (e && b > e))
            continue;
        const char *c = strstr(p, "] ");
        ck_assert_msg(c && sscanf(c, "] %15[0-9-]:", nm) == 1, "%.80s", p);
        ck_assert_msg(sscanf(b, "; buckets %lf MiB (%lf written)", &mib, &w) == 2, "%.80s", b);
        int i = 0;
        while (i < np && strcmp(name[i], nm) != 0)
            i++;
        ck_assert_msg(i < np, "no plan line for %s", nm);
        /* the figures are printed to a tenth of a MiB */
        ck_assert_msg(w <= mib && mib <= allowed[i] + 0.05, "%s: buckets %.1f MiB (%.1f written), "
                      "%.1f MiB planned", nm, mib, w, allowed[i]);
        checked++;
        filled += w >= 0.2;
    }
    ck_assert_int_ge(np, 20); /* 22 pairs */
    ck_assert_int_eq(checked, np);
    ck_assert_int_ge(filled, 1);
    tl_result_free(&r);
    char cmd[700];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    ck_assert_int_eq(system(cmd), 0);
}
END_TEST

/* A variant with more quiet moves than the solver's one-byte counter
 * holds: five flying stones against one on 32 points have 5 x 26 = 130
 * moves.  mmtb-gen must refuse it with the limit named, exit 1, and leave
 * no file for that pair (its captures end the game: nothing else is
 * solved). */
START_TEST(gen_refuses_counter_overflow)
{
    char dir[] = "/tmp/check_cli_wide_XXXXXX";
    ck_assert(mkdtemp(dir) != NULL);
    char vpath[600], out[600], f51[700], f15[700], f41[700], f51tmp[700];
    snprintf(vpath, sizeof vpath, "%s/wide.txt", dir);
    snprintf(out, sizeof out, "%s/t", dir);
    FILE *f = fopen(vpath, "w");
    ck_assert(f != NULL);
    fprintf(f, "name wide\nstones 5\nflying 5\nmin-stones 1\n");
    for (int i = 1; i <= 32; i++)
        fprintf(f, "point p%d %d %d\n", i, (i - 1) % 8, (i - 1) / 8);
    fprintf(f, "line");
    for (int i = 1; i <= 32; i++)
        fprintf(f, " p%d", i);
    fprintf(f, "\nmill p1 p2 p3\n");
    ck_assert(fclose(f) == 0);
    struct tl_result r;
    char *argv[] = {GEN_BIN, "-v", vpath, "--sectors", "5-1", "-o", out, "--quiet", NULL};
    tl_run_argv(&r, NULL, argv);
    ck_assert_msg(r.code == 1, "exit %d: %s", r.code, r.err);
    ck_assert_msg(strstr(r.err, "more than 123 moves") != NULL, "%s", r.err);
    snprintf(f51, sizeof f51, "%s/5-1.mmtb", out);
    snprintf(f15, sizeof f15, "%s/1-5.mmtb", out);
    snprintf(f41, sizeof f41, "%s/4-1.mmtb", out);
    snprintf(f51tmp, sizeof f51tmp, "%s/5-1.mmtb.tmp", out);
    struct stat sb;
    ck_assert_msg(stat(f51, &sb) != 0 && stat(f15, &sb) != 0, "a file for the refused pair");
    ck_assert_msg(stat(f41, &sb) != 0 && stat(f51tmp, &sb) != 0, "left a file behind");
    tl_result_free(&r);
    nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}
END_TEST

/* --memory: a limit below what the first pair needs refuses it before
 * anything is solved (exit 4, the pair and its bytes named, no sector
 * file); a generous one changes nothing; a malformed one is bad usage. */
START_TEST(gen_memory_limit)
{
    char dir[] = "/tmp/check_cli_mem_XXXXXX";
    char out[600], f33[700];
    tmp_out(dir, out, sizeof out);
    snprintf(f33, sizeof f33, "%s/3-3.mmtb", out);
    struct tl_result r;
    char *low[] = {GEN_BIN, "-v", "nine", "--max-stones", "3", "-o", out, "--quiet",
                   "--memory", "1M", NULL};
    tl_run_argv(&r, NULL, low);
    ck_assert_msg(r.code == 4, "exit %d: %s", r.code, r.err);
    unsigned long long need = 0;
    const char *at = strstr(r.err, "sectors 3-3 need ");
    ck_assert_msg(at && sscanf(at, "sectors 3-3 need %llu bytes", &need) == 1, "%s", r.err);
    /* at least one state byte per canonical position of 3-3 (169,626) */
    ck_assert_msg(need > (1u << 20) && need > 169626, "%s", r.err);
    ck_assert_msg(strstr(r.err, "limit of 1048576 bytes") != NULL, "%s", r.err);
    struct stat sb;
    ck_assert_msg(stat(f33, &sb) != 0, "a sector was solved over the limit");
    tl_result_free(&r);
    char *high[] = {GEN_BIN, "-v", "nine", "--max-stones", "3", "-o", out, "--quiet",
                    "--memory", "4G", NULL};
    tl_run_argv(&r, NULL, high);
    ck_assert_msg(r.code == 0 && stat(f33, &sb) == 0, "exit %d: %s", r.code, r.err);
    tl_result_free(&r);
    char *bad[] = {GEN_BIN, "-v", "nine", "-o", out, "--memory", "lots", NULL};
    tl_run_argv(&r, NULL, bad);
    ck_assert_msg(r.code == 1 && strstr(r.err, "--memory") != NULL, "exit %d: %s", r.code, r.err);
    tl_result_free(&r);
    nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}
END_TEST

/* --checkpoint: 0 saves every level of a pair (said with --verbose), the
 * files are those of a run that never saves (off) and no NAME.ckpt stays
 * once the pair is written; a save that fails is said once and the run
 * goes on to the same files; a malformed value is bad usage.  (Kills and
 * resumes: check_checkpoint.) */
START_TEST(gen_checkpoint_option)
{
    char dir[] = "/tmp/check_cli_ckpt_XXXXXX";
    char out[600], off[700], a[800], b[800], ck[800];
    tmp_out(dir, out, sizeof out);
    snprintf(off, sizeof off, "%s-off", out);
    struct tl_result r;
    char *every[] = {GEN_BIN, "-v", "nine", "--max-stones", "3", "-o", out, "--quiet",
                     "--verbose", "--checkpoint", "0", NULL};
    tl_run_argv(&r, NULL, every);
    ck_assert_msg(r.code == 0, "exit %d: %s", r.code, r.err);
    ck_assert_msg(strstr(r.err, "3-3.ckpt: level 1 saved") != NULL, "%s", r.err);
    tl_result_free(&r);
    char *never[] = {GEN_BIN, "-v", "nine", "--max-stones", "3", "-o", off, "--quiet",
                     "--verbose", "--checkpoint", "off", NULL};
    tl_run_argv(&r, NULL, never);
    ck_assert_msg(r.code == 0 && !strstr(r.err, "saved"), "exit %d: %s", r.code, r.err);
    tl_result_free(&r);
    struct stat sb;
    snprintf(ck, sizeof ck, "%s/3-3.ckpt", out);
    ck_assert_msg(stat(ck, &sb) != 0, "%s left behind", ck);
    snprintf(a, sizeof a, "%s/3-3.mmtb", out);
    snprintf(b, sizeof b, "%s/3-3.mmtb", off);
    size_t la, lb;
    uint8_t *x = tl_read_file(a, &la), *y = tl_read_file(b, &lb);
    ck_assert_msg(la == lb && !memcmp(x, y, la), "%s and %s differ", a, b);
    free(x);
    free(y);
    /* a save that cannot be written (its .tmp name taken by a directory)
     * is said once and ends the saves, not the run: the same bytes */
    char unw[700], blocker[800], c[800];
    snprintf(unw, sizeof unw, "%s-unwritable", out);
    ck_assert_int_eq(mkdir(unw, 0755), 0);
    snprintf(blocker, sizeof blocker, "%s/3-3.ckpt.tmp", unw);
    ck_assert_int_eq(mkdir(blocker, 0755), 0);
    char *blocked[] = {GEN_BIN, "-v", "nine", "--max-stones", "3", "-o", unw, "--checkpoint",
                       "0", NULL};
    tl_run_argv(&r, NULL, blocked);
    ck_assert_msg(r.code == 0, "exit %d: %s", r.code, r.err);
    const char *said = strstr(r.err, "3-3.ckpt: cannot save the pair's progress");
    ck_assert_msg(said && !strstr(said + 20, "cannot save"), "%s", r.err);
    tl_result_free(&r);
    snprintf(c, sizeof c, "%s/3-3.mmtb", unw);
    size_t lc;
    uint8_t *z = tl_read_file(c, &lc);
    x = tl_read_file(b, &lb);
    ck_assert_msg(lc == lb && !memcmp(x, z, lc), "%s and %s differ", c, b);
    free(x);
    free(z);
    const char *bad[] = {"soon", "-5", "", "3x"};
    for (int i = 0; i < 4; i++) {
        char val[16];
        snprintf(val, sizeof val, "%s", bad[i]);
        char *argv[] = {GEN_BIN, "-v", "nine", "-o", out, "--checkpoint", val, NULL};
        tl_run_argv(&r, NULL, argv);
        ck_assert_msg(r.code == 1 && strstr(r.err, "--checkpoint") != NULL, "'%s': exit %d: %s",
                      bad[i], r.code, r.err);
        tl_result_free(&r);
    }
    nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}
END_TEST

/* --split is for mmtb-gen-mpi: mmtb-gen refuses it as bad usage before
 * creating anything; a malformed count is bad usage too. */
START_TEST(gen_split_usage)
{
    char dir[] = "/tmp/check_cli_split_XXXXXX";
    char out[600];
    tmp_out(dir, out, sizeof out);
    struct tl_result r;
    char *one[] = {GEN_BIN, "-v", "nine", "--max-stones", "3", "-o", out, "--split", "1", NULL};
    tl_run_argv(&r, NULL, one);
    ck_assert_msg(r.code == 1 && strstr(r.err, "--split needs mmtb-gen-mpi") != NULL,
                  "exit %d: %s", r.code, r.err);
    struct stat sb;
    ck_assert_msg(stat(out, &sb) != 0, "the table directory was created");
    tl_result_free(&r);
    const char *bad_values[] = {"0", "lots", "-5", "12Q"};
    for (int i = 0; i < 4; i++) {
        char *bad[] = {GEN_BIN, "-v", "nine", "-o", out, "--split", (char *)bad_values[i], NULL};
        tl_run_argv(&r, NULL, bad);
        ck_assert_msg(r.code == 1 && strstr(r.err, "--split: expected a number of slots") != NULL,
                      "--split %s: exit %d: %s", bad_values[i], r.code, r.err);
        tl_result_free(&r);
    }
    nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}
END_TEST

/* --stop-after: no time at all stops before the first pair (exit 5, the
 * pairs left named, no sector file); durations that are not one are bad
 * usage. */
START_TEST(gen_stop_after)
{
    char dir[] = "/tmp/check_cli_stop_XXXXXX";
    char out[600], f33[700];
    tmp_out(dir, out, sizeof out);
    snprintf(f33, sizeof f33, "%s/3-3.mmtb", out);
    struct tl_result r;
    char *now[] = {GEN_BIN, "-v", "nine", "--max-stones", "4", "-o", out, "--quiet",
                   "--stop-after", "0", NULL};
    tl_run_argv(&r, NULL, now);
    ck_assert_msg(r.code == 5 && strstr(r.err, "stopped as asked") &&
                      strstr(r.err, "3 of 3 pairs left"),
                  "exit %d: %s", r.code, r.err);
    ck_assert_int_ne(access(f33, F_OK), 0);
    tl_result_free(&r);
    const char *bad_values[] = {"abc", "-5", "5x", "2h50", "m", ""};
    for (int i = 0; i < 6; i++) {
        char *bad[] = {GEN_BIN, "-v", "nine", "-o", out, "--stop-after", (char *)bad_values[i],
                       NULL};
        tl_run_argv(&r, NULL, bad);
        ck_assert_msg(r.code == 1 && strstr(r.err, "--stop-after: expected a time"),
                      "--stop-after '%s': exit %d: %s", bad_values[i], r.code, r.err);
        tl_result_free(&r);
    }
    char *fine[] = {GEN_BIN, "-v", "nine", "--max-stones", "4", "-o", out, "--quiet",
                    "--stop-after", "1h30m", NULL};
    tl_run_argv(&r, NULL, fine);
    ck_assert_msg(r.code == 0 && access(f33, F_OK) == 0, "exit %d: %s", r.code, r.err);
    tl_result_free(&r);
    nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}
END_TEST

/* --verify-behind and --pack-behind: --pack-behind alone is bad usage
 * before anything is created; a run with both reports every sector
 * verified and packed (JSON), each verify's line on stderr, and the
 * ledger one line a sector. */
START_TEST(gen_verify_behind)
{
    char dir[] = "/tmp/check_cli_behind_XXXXXX";
    char out[600], ledger[700];
    tmp_out(dir, out, sizeof out);
    snprintf(ledger, sizeof ledger, "%s.ledger", out);
    struct tl_result r;
    char *alone[] = {GEN_BIN, "-v", "nine", "--max-stones", "3", "-o", out, "--pack-behind", NULL};
    tl_run_argv(&r, NULL, alone);
    ck_assert_msg(r.code == 1 && strstr(r.err, "--pack-behind needs --verify-behind") != NULL,
                  "exit %d: %s", r.code, r.err);
    struct stat sb;
    ck_assert_msg(stat(out, &sb) != 0, "the table directory was created");
    tl_result_free(&r);
    char *both[] = {GEN_BIN, "-v", "nine", "--max-stones", "4", "-o", out, "--verify-behind",
                    ledger, "--pack-behind", "--json", NULL};
    tl_run_argv(&r, NULL, both);
    ck_assert_msg(r.code == 0, "exit %d: %s", r.code, r.err);
    struct tl_jv *j = tl_json_parse(r.out);
    ck_assert_msg(j && j->t == J_OBJ, "not a JSON object: %s", r.out);
    ck_assert_uint_eq(tl_jget_u(j, "verified_behind"), 4); /* 3-3, 4-3, 3-4, 4-4 */
    ck_assert_uint_eq(tl_jget_u(j, "packed_behind"), 4);
    tl_json_free(j);
    ck_assert_msg(strstr(r.err, "4-4        checked") && strstr(r.err, "mismatches 0"), "%s",
                  r.err);
    tl_result_free(&r);
    size_t len = 0;
    char *text = (char *)tl_read_file(ledger, &len);
    int lines = 0;
    for (size_t i = 0; i < len; i++)
        lines += text[i] == '\n';
    free(text);
    ck_assert_int_eq(lines, 5);
    unlink(ledger);
    nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}
END_TEST

/* The sum of `sectors ARGS --json`'s table_slots, each of them exact. */
static unsigned long long sectors_table_slots(const char *variant, const char *start,
                                              const char *max_stones)
{
    struct tl_result r;
    if (max_stones)
        tl_run(&r, NULL, "sectors", "-v", variant, "--start", start, "--max-stones", max_stones,
               "--json", NULL);
    else
        tl_run(&r, NULL, "sectors", "-v", variant, "--start", start, "--json", NULL);
    ck_assert_msg(r.code == 0, "exit %d: %s", r.code, r.err);
    struct tl_jv *j = tl_json_parse(r.out);
    ck_assert_msg(j && j->t == J_ARR, "not a JSON array: %s", r.out);
    unsigned long long sum = 0;
    for (int i = 0; i < j->n; i++) {
        ck_assert(tl_jget_b(&j->item[i], "table_slots_exact"));
        sum += tl_jget_u(&j->item[i], "table_slots");
    }
    tl_json_free(j);
    tl_result_free(&r);
    return sum;
}

/* --memory on a variant with the re-close rule plans the slots with
 * restrictions: the states it names are at least a byte for each slot that
 * a run of the same sector reports solving, which is more than the index
 * without restrictions has (a plan by that index would be below). */
START_TEST(gen_memory_limit_reclose)
{
    char dir[] = "/tmp/check_cli_memrc_XXXXXX";
    char out[600], out2[600];
    tmp_out(dir, out, sizeof out);
    snprintf(out2, sizeof out2, "%s/u", dir);
    struct tl_result r;
    char *run[] = {GEN_BIN, "-v", "twelve", "--max-stones", "3", "-o", out, "--quiet",
                   "--json", "--threads", "1", NULL};
    tl_run_argv(&r, NULL, run);
    ck_assert_msg(r.code == 0, "exit %d: %s", r.code, r.err);
    unsigned long long slots = 0, canonical = 0;
    const char *at = strstr(r.out, "\"slots_solved\":");
    ck_assert_msg(at && sscanf(at, "\"slots_solved\":%llu", &slots) == 1, "%s", r.out);
    at = strstr(r.out, "\"canonical\":");
    ck_assert_msg(at && sscanf(at, "\"canonical\":%llu", &canonical) == 1, "%s", r.out);
    ck_assert_msg(slots > canonical, "restrictions add slots: %llu <= %llu", slots, canonical);
    /* the tables hold the slots `sectors` counts with the restrictions */
    ck_assert_uint_eq(sectors_table_slots("twelve", "0,0", "3"), slots);
    tl_result_free(&r);
    /* bench draws states with restrictions too (ranked through the files'
     * count tables): about slots - canonical scheme 1 positions' worth */
    char *bench[] = {PROBE_BIN, "bench", "-t", out, "--count", "4000", "--cold", "0",
                     "--json", NULL};
    tl_run_argv(&r, NULL, bench);
    ck_assert_msg(r.code == 0, "bench: exit %d: %s", r.code, r.err);
    unsigned long long restricted = 0;
    at = strstr(r.out, "\"restricted\":");
    ck_assert_msg(at && sscanf(at, "\"restricted\":%llu", &restricted) == 1, "%s", r.out);
    ck_assert_msg(restricted > 100 && restricted < 3900, "%llu of 4000 restricted", restricted);
    tl_result_free(&r);
    char *low[] = {GEN_BIN, "-v", "twelve", "--max-stones", "3", "-o", out2, "--quiet",
                   "--memory", "1M", "--threads", "1", NULL};
    tl_run_argv(&r, NULL, low);
    ck_assert_msg(r.code == 4, "exit %d: %s", r.code, r.err);
    unsigned long long need = 0, states = 0;
    at = strstr(r.err, "sectors 3-3 need ");
    ck_assert_msg(at && sscanf(at, "sectors 3-3 need %llu bytes (%*f GiB: %llu of states",
                               &need, &states) == 2,
                  "%s", r.err);
    ck_assert_msg(states >= slots && need > states, "states %llu for %llu slots: %s", states,
                  slots, r.err);
    tl_result_free(&r);
    nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}
END_TEST

/* The plan's time and buckets by the board: Morabaraba's and nine-diag's
 * points have more neighbours than nine's (diagonals), so the same pairs
 * (the same slots: one board's points and symmetries) take longer at their
 * rates and keep more captures for later levels, the two boards with
 * diagonals alike. */
static struct tl_jv *plan_json(const char *variant)
{
    char *argv[] = {GEN_BIN, "-v", (char *)variant, "--start", "4,4", "--plan", "--json",
                    "--quiet", NULL};
    struct tl_result r;
    tl_run_argv(&r, NULL, argv);
    ck_assert_msg(r.code == 0, "%s: exit %d: %s", variant, r.code, r.err);
    struct tl_jv *j = tl_json_parse(r.out);
    ck_assert_msg(j != NULL, "not JSON: %s", r.out);
    tl_result_free(&r);
    return j;
}

START_TEST(gen_plan_rates_by_board)
{
    struct tl_jv *nine = plan_json("nine"), *mora = plan_json("morabaraba"),
                 *diag = plan_json("nine-diag");
    const struct tl_jv *pn = tl_jget(nine, "pairs"), *pm = tl_jget(mora, "pairs"),
                       *pd = tl_jget(diag, "pairs");
    ck_assert(pn && pm && pd && pn->n > 10 && pm->n == pn->n && pd->n == pn->n);
    for (int i = 0; i < pn->n; i++) {
        const struct tl_jv *a = &pn->item[i], *b = &pm->item[i], *c = &pd->item[i];
        ck_assert_uint_eq(tl_jget_u(a, "slots"), tl_jget_u(b, "slots"));
        ck_assert_str_eq(tl_jget(a, "kind")->s, tl_jget(b, "kind")->s);
        ck_assert_msg(tl_jget(b, "seconds")->num >= tl_jget(a, "seconds")->num,
                      "pair %d: morabaraba %.1f s against nine %.1f s", i,
                      tl_jget(b, "seconds")->num, tl_jget(a, "seconds")->num);
        ck_assert(tl_jget(c, "seconds")->num == tl_jget(b, "seconds")->num);
        /* room for the buckets of a movement pair's captures: more where
         * most positions have one */
        if (strcmp(tl_jget(a, "kind")->s, "movement") == 0 && tl_jget_u(a, "bucket_bytes") > 0)
            ck_assert_msg(tl_jget_u(b, "bucket_bytes") > 3 * tl_jget_u(a, "bucket_bytes"),
                          "pair %d: buckets %llu against nine's %llu", i,
                          tl_jget_u(b, "bucket_bytes"), tl_jget_u(a, "bucket_bytes"));
    }
    ck_assert_msg(tl_jget(mora, "seconds")->num > 1.1 * tl_jget(nine, "seconds")->num,
                  "morabaraba %.1f s, nine %.1f s", tl_jget(mora, "seconds")->num,
                  tl_jget(nine, "seconds")->num);
    tl_json_free(nine);
    tl_json_free(mora);
    tl_json_free(diag);
}
END_TEST

/* The re-close games' movement pairs: the more one side outnumbers the
 * other, the fewer positions the levels decide, and the faster a slot
 * solved (twelve-nine's whole game, docs/PERFORMANCE.md): the plan's time
 * a slot falls with |w - b|, and is longer than the same pair of the game
 * without the rule (Morabaraba's board, no state). */
static double plan_per_slot(const struct tl_jv *pairs, const char *first)
{
    for (int i = 0; i < pairs->n; i++) {
        const struct tl_jv *p = &pairs->item[i], *s = tl_jget(p, "sectors");
        if (s && s->n >= 1 && strcmp(s->item[0].s, first) == 0)
            return tl_jget(p, "seconds")->num / (double)tl_jget_u(p, "slots");
    }
    ck_abort_msg("no pair %s in the plan", first);
    return 0;
}

START_TEST(gen_plan_reclose_by_balance)
{
    char *argv[] = {GEN_BIN, "-v", "twelve", "--max-stones", "6", "--plan", "--json", "--quiet",
                    NULL};
    struct tl_result r;
    tl_run_argv(&r, NULL, argv);
    ck_assert_msg(r.code == 0, "exit %d: %s", r.code, r.err);
    struct tl_jv *j = tl_json_parse(r.out), *m = plan_json("morabaraba");
    ck_assert_msg(j != NULL, "not JSON: %s", r.out);
    const struct tl_jv *pairs = tl_jget(j, "pairs");
    double s66 = plan_per_slot(pairs, "6-6"), s65 = plan_per_slot(pairs, "6-5"),
           s64 = plan_per_slot(pairs, "6-4"), s63 = plan_per_slot(pairs, "6-3");
    ck_assert_msg(s66 > s65 && s65 > s64 && s64 > s63, "per slot: 6-6 %g 6-5 %g 6-4 %g 6-3 %g",
                  s66, s65, s64, s63);
    /* morabaraba's plan from 4,4 holds its movement pair 4-4 */
    ck_assert_msg(plan_per_slot(pairs, "4-4") > 2 * plan_per_slot(tl_jget(m, "pairs"), "4-4"),
                  "twelve's 4-4 %g s a slot against morabaraba's %g",
                  plan_per_slot(pairs, "4-4"), plan_per_slot(tl_jget(m, "pairs"), "4-4"));
    tl_json_free(j);
    tl_json_free(m);
    tl_result_free(&r);
}
END_TEST

/* A pair over --memory with its waiting outside results in memory keeps
 * them on disk when that makes it fit: twelve's 6-5 / 5-6 and 6-6 plan
 * about 1.25 and 1.5 GiB on one thread, 0.45 GiB of it buckets; under a
 * limit of 1300M both go to disk and every pair fits, and no pair does
 * without the limit (the machine's memory is far above them). */
static const struct tl_jv *plan_pair(const struct tl_jv *j, const char *first)
{
    const struct tl_jv *pairs = tl_jget(j, "pairs");
    for (int i = 0; pairs && i < pairs->n; i++)
        if (!strcmp(tl_jget(&pairs->item[i], "sectors")->item[0].s, first))
            return &pairs->item[i];
    ck_abort_msg("no pair %s in the plan", first);
    return NULL;
}

START_TEST(gen_plan_buckets_on_disk)
{
    char *lim[] = {GEN_BIN, "-v", "twelve", "--max-stones", "6", "--threads", "1", "--plan",
                   "--json", "--quiet", "--memory", "1300M", NULL};
    char *free_[] = {GEN_BIN, "-v", "twelve", "--max-stones", "6", "--threads", "1", "--plan",
                     "--json", "--quiet", NULL};
    struct tl_result r, f;
    tl_run_argv(&r, NULL, lim);
    ck_assert_msg(r.code == 0, "exit %d: %s", r.code, r.err);
    tl_run_argv(&f, NULL, free_);
    ck_assert_msg(f.code == 0, "exit %d: %s", f.code, f.err);
    struct tl_jv *a = tl_json_parse(r.out), *b = tl_json_parse(f.out);
    ck_assert(a && b);
    ck_assert_uint_eq(tl_jget_u(a, "pairs_over_limit"), 0);
    const unsigned long long limit = 1300ull << 20;
    ck_assert_uint_le(tl_jget_u(a, "max_memory_bytes"), limit);
    const struct tl_jv *d = plan_pair(a, "6-6"), *m = plan_pair(b, "6-6");
    ck_assert_uint_gt(tl_jget_u(d, "bucket_disk_bytes"), 300ull << 20);
    ck_assert_uint_eq(tl_jget_u(m, "bucket_disk_bytes"), 0);
    ck_assert_uint_gt(tl_jget_u(m, "memory_bytes"), limit);
    ck_assert_uint_eq(tl_jget_u(m, "bucket_bytes"), tl_jget_u(d, "bucket_disk_bytes"));
    ck_assert_uint_lt(tl_jget_u(d, "memory_bytes"),
                      tl_jget_u(m, "memory_bytes") - tl_jget_u(d, "bucket_disk_bytes") / 2);
    /* a pair that fits keeps them in memory */
    ck_assert_uint_eq(tl_jget_u(plan_pair(a, "6-4"), "bucket_disk_bytes"), 0);
    ck_assert_ptr_nonnull(strstr(r.out, "\"bucket_disk_bytes\""));
    tl_json_free(a);
    tl_json_free(b);
    tl_result_free(&r);
    tl_result_free(&f);
}
END_TEST

/* --plan prints every pair without solving: as many pairs and slots as a
 * run of the same game then solves (the counts of these small sectors are
 * exact), nothing written where -o points, the pairs solved there marked
 * once they are; --memory below a pair's plan exits 4. */
START_TEST(gen_plan)
{
    char dir[] = "/tmp/check_cli_plan_XXXXXX";
    char out[600];
    tmp_out(dir, out, sizeof out);
    struct tl_result r;
    char *plan[] = {GEN_BIN, "-v", "twelve", "--max-stones", "4", "-o", out, "--plan",
                    "--json", NULL};
    tl_run_argv(&r, NULL, plan);
    ck_assert_msg(r.code == 0, "exit %d: %s", r.code, r.err);
    struct tl_jv *j = tl_json_parse(r.out);
    ck_assert_msg(j != NULL, "not JSON: %s", r.out);
    const struct tl_jv *pairs = tl_jget(j, "pairs");
    ck_assert(pairs && pairs->t == J_ARR);
    /* 3-3, 4-3 with 3-4, 4-4 */
    ck_assert_int_eq(pairs->n, 3);
    ck_assert_int_eq(tl_jget_u(j, "total_pairs"), 3);
    ck_assert_int_eq(tl_jget_u(j, "pairs_left"), 3);
    unsigned long long sum = 0, maxmem = 0;
    for (int i = 0; i < pairs->n; i++) {
        const struct tl_jv *p = &pairs->item[i];
        unsigned long long slots = tl_jget_u(p, "slots"), mem = tl_jget_u(p, "memory_bytes");
        ck_assert(slots > 0 && mem > slots && tl_jget_u(p, "disk_bytes") < slots);
        ck_assert(tl_jget(p, "seconds") && tl_jget(p, "sectors")->t == J_ARR);
        sum += slots;
        maxmem = mem > maxmem ? mem : maxmem;
    }
    ck_assert_uint_eq(tl_jget_u(j, "total_slots"), sum);
    ck_assert_uint_eq(tl_jget_u(j, "max_memory_bytes"), maxmem);
    /* the bytes still to write, all of them, and the bytes free where DIR
     * is to be (its parent's file system: DIR does not exist yet) */
    unsigned long long disk = tl_jget_u(j, "disk_bytes");
    ck_assert(disk > 0 && tl_jget_u(j, "disk_left_bytes") == disk);
    ck_assert(tl_jget(j, "verify_seconds") == NULL); /* no verify behind */
    struct statvfs fs;
    ck_assert_int_eq(statvfs(dir, &fs), 0);
    double free_now = (double)fs.f_bavail * (double)fs.f_frsize,
           told = (double)tl_jget_u(j, "disk_free_bytes");
    ck_assert_msg(told > 0.9 * free_now && told < 1.1 * free_now + 1e6,
                  "disk_free_bytes %.0f, statvfs %.0f", told, free_now);
    tl_json_free(j);
    tl_result_free(&r);
    /* --pack-behind: at most what is written unpacked, at least half of it
     * (the end, every file packed to about half), less here (3-3 is packed
     * once 4-3 and 3-4, which read it, are verified, before 4-4 is written) */
    char *packed[] = {GEN_BIN, "-v", "twelve", "--max-stones", "4", "-o", out, "--plan", "--json",
                      "--verify-behind", "L", "--pack-behind", NULL};
    tl_run_argv(&r, NULL, packed);
    ck_assert_msg(r.code == 0 && (j = tl_json_parse(r.out)) != NULL, "exit %d: %s%s", r.code,
                  r.out, r.err);
    unsigned long long peak = tl_jget_u(j, "disk_left_bytes");
    ck_assert_msg(peak >= disk / 2 && peak < disk, "packed behind %llu, unpacked %llu", peak, disk);
    /* the verify behind: its time beside the solve's (slots at 2.7 M/s with state) */
    const struct tl_jv *vs = tl_jget(j, "verify_seconds");
    ck_assert_msg(vs && vs->t == J_NUM && vs->num > 0.9 * sum / 2.7e6 && vs->num < 1.1 * sum / 2.7e6,
                  "%s", r.out);
    tl_json_free(j);
    tl_result_free(&r);
    char *text[] = {GEN_BIN, "-v", "twelve", "--max-stones", "4", "-o", out, "--plan", NULL};
    tl_run_argv(&r, NULL, text);
    ck_assert_msg(r.code == 0 && strstr(r.out, "of tables still to write, ") &&
                      strstr(r.out, " GB free there\n"),
                  "exit %d: %s", r.code, r.out);
    tl_result_free(&r);
    struct stat sb;
    ck_assert_msg(stat(out, &sb) != 0, "--plan created %s", out);

    char *run[] = {GEN_BIN, "-v", "twelve", "--max-stones", "4", "-o", out, "--quiet", "--json",
                   NULL};
    tl_run_argv(&r, NULL, run);
    ck_assert_msg(r.code == 0, "exit %d: %s", r.code, r.err);
    unsigned long long solved = 0;
    const char *at = strstr(r.out, "\"slots_solved\":");
    ck_assert_msg(at && sscanf(at, "\"slots_solved\":%llu", &solved) == 1, "%s", r.out);
    ck_assert_uint_eq(solved, sum);
    tl_result_free(&r);

    tl_run_argv(&r, NULL, plan);
    ck_assert_msg(r.code == 0, "exit %d: %s", r.code, r.err);
    j = tl_json_parse(r.out);
    ck_assert_msg(j != NULL, "not JSON: %s", r.out);
    ck_assert_int_eq(tl_jget_u(j, "pairs_left"), 0);
    ck_assert(tl_jget_b(&tl_jget(j, "pairs")->item[0], "solved"));
    ck_assert_uint_eq(tl_jget_u(j, "disk_left_bytes"), 0);
    ck_assert_uint_eq(tl_jget_u(j, "disk_bytes"), disk);
    tl_json_free(j);
    tl_result_free(&r);

    char *low[] = {GEN_BIN, "-v", "twelve", "--max-stones", "4", "--plan", "--memory", "1M",
                   NULL};
    tl_run_argv(&r, NULL, low);
    ck_assert_msg(r.code == 4, "exit %d: %s", r.code, r.err);
    ck_assert_msg(strstr(r.out, "OVER THE LIMIT") && strstr(r.err, "memory limit"), "%s%s",
                  r.out, r.err);
    /* no -o: the free bytes are not known, and the text does not tell them */
    ck_assert_msg(!strstr(r.out, "free there"), "%s", r.out);
    tl_result_free(&r);
    char *nodir[] = {GEN_BIN, "-v", "twelve", "--max-stones", "4", "--plan", "--json", NULL};
    tl_run_argv(&r, NULL, nodir);
    ck_assert_msg(r.code == 0 && strstr(r.out, "\"disk_free_bytes\":null"), "exit %d: %s",
                  r.code, r.out);
    tl_result_free(&r);
    nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}
END_TEST

/* A start where a side has fewer stones than min-stones is a game lost
 * before the first move: mmtb-gen refuses it with the rule named, exit 1,
 * and writes nothing (it used to crash on nine --start 2,2). */
START_TEST(gen_refuses_a_start_below_min_stones)
{
    char dir[] = "/tmp/check_cli_start_XXXXXX";
    char out[600];
    tmp_out(dir, out, sizeof out);
    static const char *const starts[] = {"2,2", "3,2", "9,1"};
    for (int i = 0; i < 3; i++) {
        struct tl_result r;
        char *argv[] = {GEN_BIN, "-v", "nine", "--start", (char *)starts[i], "-o", out, "--quiet",
                        NULL};
        tl_run_argv(&r, NULL, argv);
        ck_assert_msg(r.code == 1, "--start %s: exit %d: %s", starts[i], r.code, r.err);
        ck_assert_msg(strstr(r.err, "fewer than 3 stones (min-stones of nine)") != NULL, "%s",
                      r.err);
        struct stat sb;
        ck_assert_msg(stat(out, &sb) != 0, "--start %s left %s behind", starts[i], out);
        tl_result_free(&r);
    }
    nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}
END_TEST

/*
 * Shah from the empty board with 3 stones a side, end to end: mmtb-gen
 * --start 3,3 solves it (placement sectors with the first-mill owner),
 * verify re-derives every value, and probe and play answer positions whose
 * values follow from the rules by hand: with 3 stones a side the opening
 * removal leaves the other side 2, a lost game.  So the owner to move wins
 * in 1 (its removal); the other side to move passes and loses in 2; a
 * placement that closes the first mill with the other's last stone still
 * to come wins in 3; a mill without an owner while placing is refused.
 */
START_TEST(gen_shah_from_the_empty_board)
{
    char dir[] = "/tmp/check_cli_shah_XXXXXX";
    char out[1100];
    tmp_out(dir, out, sizeof out);
    struct tl_result r;
    char *gen[] = {GEN_BIN, "-v", "shah", "--start", "3,3", "-o", out, "--quiet", "--json", NULL};
    tl_run_argv(&r, NULL, gen);
    ck_assert_msg(r.code == 0, "exit %d: %s", r.code, r.err);
    /* the tables hold the slots `sectors` counts with the owner: twice the
     * index's in a placement sector */
    unsigned long long slots = 0;
    const char *at = strstr(r.out, "\"slots_solved\":");
    ck_assert_msg(at && sscanf(at, "\"slots_solved\":%llu", &slots) == 1, "%s", r.out);
    ck_assert_uint_eq(sectors_table_slots("shah", "3,3", NULL), slots);
    tl_result_free(&r);
    char *ver[] = {GEN_BIN, "verify", "-t", out, NULL};
    tl_run_argv(&r, NULL, ver);
    ck_assert_msg(r.code == 0 && strstr(r.out, " 0 mismatches"), "exit %d: %s%s", r.code, r.out,
                  r.err);
    tl_result_free(&r);

    static const struct {
        const char *pos, *wdl;
        unsigned dtw;
    } want[] = {
        {"a7,d7,g7 a1,d1,g1 w first-mill=w", "win", 1},
        {"a7,d7,g7 a1,d1,g1 w first-mill=b", "loss", 2},
        {"a7,d7,g7 a1,d1,g1 b first-mill=b", "win", 1},
        {"a7,d7 a1,d1 w 1 1", "win", 3},
        {"a7,d7,g7 a1,d1 b 0 1 first-mill=w", "loss", 2},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        tl_run(&r, NULL, "probe", "-t", out, "--json", want[i].pos, NULL);
        ck_assert_msg(r.code == 0, "%s: exit %d: %s", want[i].pos, r.code, r.err);
        struct tl_jv *j = tl_json_parse(r.out);
        ck_assert_msg(j != NULL, "not JSON: %s", r.out);
        ck_assert_str_eq(tl_jget_s(j, "wdl"), want[i].wdl);
        ck_assert_uint_eq(tl_jget_u(j, "dtw"), want[i].dtw);
        tl_json_free(j);
        tl_result_free(&r);
    }
    /* the waiting side's only move is the pass; the owner's are its removals */
    tl_run(&r, NULL, "probe", "-t", out, "a7,d7,g7 a1,d1,g1 w first-mill=b", NULL);
    ck_assert_msg(strstr(r.out, "pass") != NULL, "%s", r.out);
    tl_result_free(&r);
    tl_run(&r, NULL, "probe", "-t", out, "a7,d7,g7 a1,d1,g1 w first-mill=w", NULL);
    ck_assert_msg(strstr(r.out, "xa1") && strstr(r.out, "xd1") && strstr(r.out, "xg1"), "%s",
                  r.out);
    tl_result_free(&r);
    /* a start where a side would slide while the other places is refused */
    char out2[1100];
    snprintf(out2, sizeof out2, "%s/u", dir);
    char *uneven[] = {GEN_BIN, "-v", "shah", "--start", "3,4", "-o", out2, "--quiet", NULL};
    tl_run_argv(&r, NULL, uneven);
    ck_assert_int_eq(r.code, 1);
    ck_assert_msg(strstr(r.err, "would slide while the other still places"), "%s", r.err);
    tl_result_free(&r);
    /* a mill while placing needs its owner */
    tl_run(&r, NULL, "probe", "-t", out, "a7,d7,g7 a1,d1 b 0 1", NULL);
    ck_assert_int_eq(r.code, 1);
    ck_assert_msg(strstr(r.err, "first-mill owner") != NULL, "%s", r.err);
    tl_result_free(&r);
    /* play from the start of this game (3 in hand): the program places
     * White's stones, the human Black's; a placement closing no mill */
    tl_run(&r, "a1\nquit\n", "play", "-t", out, "--human", "black", "--start", "- - w 3 3",
           NULL);
    ck_assert_msg(r.code == 0, "exit %d: %s", r.code, r.err);
    ck_assert_msg(strstr(r.out, "draw") || strstr(r.out, "Draw"), "%s", r.out);
    tl_result_free(&r);
    nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}
END_TEST

START_TEST(play_against_tables_from_a_pipe)
{
    need_tables();
    struct tl_result r;
    /* Black (the human) is lost; help, a bad token, an illegal move, the
     * move list, then a legal flight; the program answers and states the
     * value; EOF ends the game. */
    tl_run(&r, "help\nbogus\nd7-d6\nmoves\na4-a1\n", "play", "-t", tables_nine3, "--human",
        "black", "--start", FIG9, NULL);
    ck_assert_msg(r.code == 0, "exit %d: %s", r.code, r.err);
    ck_assert_msg(strstr(r.out, "bogus") != NULL, "no message for bad input:\n%s", r.out);
    ck_assert_msg(strstr(r.out, "d7-d6") != NULL, "no message for illegal move:\n%s", r.out);
    ck_assert_msg(strstr(r.out, "a4-a7") != NULL, "move list missing:\n%s", r.out);
    ck_assert_msg(strstr(r.out, "White wins in") != NULL, "no value:\n%s", r.out);
    tl_result_free(&r);

    /* the program moves first when the human plays the other side */
    tl_run(&r, "quit\n", "play", "-t", tables_nine3, "--human", "white", "--start", FIG9, NULL);
    ck_assert_int_eq(r.code, 0);
    ck_assert(strstr(r.out, "White wins in") != NULL);
    tl_result_free(&r);

    tl_run(&r, "", "play", "-t", tables_nine3, "--human", "purple", NULL);
    ck_assert_int_eq(r.code, 1);
    ck_assert(strstr(r.err, "purple") != NULL);
    tl_result_free(&r);
}
END_TEST

/* ---------------------------------------------------------------------- */

static int rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb;
    (void)flag;
    (void)ftw;
    return remove(path);
}

/*
 * The solved nine 3-3 sector for the table tests: MMTB_CLI_TABLES names a
 * ready directory (a ctest fixture can set it); otherwise mmtb-gen makes one
 * in a temporary directory, removed at the end.
 */
static bool make_tables(char *tmpdir, size_t len)
{
    const char *env = getenv("MMTB_CLI_TABLES");
    if (env && *env) {
        snprintf(tables_nine3, sizeof tables_nine3, "%s", env);
        return false;
    }
    snprintf(tmpdir, len, "/tmp/check_cli_tables_XXXXXX");
    if (!mkdtemp(tmpdir)) {
        snprintf(tables_error, sizeof tables_error, "mkdtemp: %s", strerror(errno));
        return false;
    }
    char out[600];
    snprintf(out, sizeof out, "%s/nine3", tmpdir);
    char *argv[] = {GEN_BIN, "-v", "nine", "--max-stones", "3", "-o", out, NULL};
    pid_t pid;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    int rc = posix_spawn(&pid, GEN_BIN, &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    int status = 0;
    if (rc != 0)
        snprintf(tables_error, sizeof tables_error, "cannot run %s: %s", GEN_BIN, strerror(rc));
    else if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
        snprintf(tables_error, sizeof tables_error, "%s -v nine --max-stones 3 failed", GEN_BIN);
    else
        snprintf(tables_nine3, sizeof tables_nine3, "%s", out);
    return true;
}

int main(void)
{
    char tmpdir[256] = "";
    bool cleanup = make_tables(tmpdir, sizeof tmpdir);

    Suite *s = suite_create("cli");
    TCase *tc = tcase_create("rules");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, json_parser_self_test);
    tcase_add_test(tc, help_for_every_command_exits_0);
    tcase_add_test(tc, usage_errors_exit_1_with_message);
    tcase_add_test(tc, unknown_variant_exits_1);
    tcase_add_test(tc, board_nine_has_16_mills_and_16_symmetries);
    tcase_add_test(tc, board_other_variants);
    tcase_add_test(tc, perft_nine_start);
    tcase_add_test(tc, perft_divide_sums_to_total);
    tcase_add_test(tc, perft_three_diag_start);
    tcase_add_test(tc, moves_fig9_flying);
    tcase_add_test(tc, moves_mill_lists_each_removal);
    tcase_add_test(tc, moves_bad_position_names_the_field);
    tcase_add_test(tc, sectors_nine_movement_json);
    tcase_add_test(tc, sectors_three_json_is_valid);
    tcase_add_test(tc, gen_refuses_counter_overflow);
    tcase_add_test(tc, gen_verbose_progress);
    tcase_add_test(tc, gen_plan_counts_buckets);
    tcase_add_test(tc, gen_refuses_a_start_below_min_stones);
    tcase_add_test(tc, gen_memory_limit);
    tcase_add_test(tc, gen_checkpoint_option);
    tcase_add_test(tc, gen_memory_limit_reclose);
    tcase_add_test(tc, gen_plan);
    tcase_add_test(tc, gen_plan_rates_by_board);
    tcase_add_test(tc, gen_plan_reclose_by_balance);
    tcase_add_test(tc, gen_plan_buckets_on_disk);
    tcase_add_test(tc, gen_split_usage);
    tcase_add_test(tc, gen_verify_behind);
    tcase_add_test(tc, gen_stop_after);
    suite_add_tcase(s, tc);

    /* solves a game from the empty board: longer under the sanitizers */
    TCase *ts = tcase_create("shah");
    tcase_set_timeout(ts, 300);
    tcase_add_test(ts, gen_shah_from_the_empty_board);
    suite_add_tcase(s, ts);

    TCase *tt = tcase_create("tables");
    tcase_set_timeout(tt, 120);
    tcase_add_test(tt, probe_fig9_loses_in_26);
    tcase_add_test(tt, probe_pv_and_wdl_only);
    tcase_add_test(tt, probe_reads_stdin_and_continues_after_bad_input);
    tcase_add_test(tt, probe_table_problems_exit_2);
    tcase_add_test(tt, stats_nine_3_3_published);
    tcase_add_test(tt, truncated_tables_exit_2);
    tcase_add_test(tt, play_against_tables_from_a_pipe);
    tcase_add_test(tt, bench_reports_the_warm_cache);
    tcase_add_test(tt, verify_listed_sectors);
    tcase_add_test(tt, verify_ledger_resumes);
    suite_add_tcase(s, tt);

    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    if (cleanup && tmpdir[0])
        nftw(tmpdir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
