/*
 * check_notation.c - tests of format/notation.c: every FEN of Sanmill's
 * oracle parses and prints back unchanged, round trips of the simple form,
 * FEN and move tokens on random positions of every variant, malformed input
 * rejected with a message naming the field, and a fuzz loop that must
 * never crash.  Needs ../shared/reference (missing is a failure).
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "movegen.h"
#include "notation.h"

#ifndef MMTB_SHARED_DIR
#error "MMTB_SHARED_DIR must name the shared reference directory"
#endif

#define BIT(i) (UINT32_C(1) << (i))

static const char *const all_variants[] = {"nine",       "nine-nofly", "nine-diag",
                                           "twelve",     "morabaraba", "lasker",
                                           "six",        "three",      "three-diag",
                                           "shah",       "twelve-immune", "twelve-nine"};
#define NVARIANTS 12

static struct mmtb_variant *load(const char *name)
{
    struct mmtb_variant *v = NULL;
    char err[256] = "";
    int rc = mmtb_variant_load(&v, name, err, sizeof err);
    ck_assert_msg(rc == MMTB_OK && v, "loading variant %s: %d %s", name, rc, err);
    return v;
}

static bool pos_eq(const struct mmtb_pos *a, const struct mmtb_pos *b)
{
    return a->stones[0] == b->stones[0] && a->stones[1] == b->stones[1] &&
           a->hand[0] == b->hand[0] && a->hand[1] == b->hand[1] && a->side == b->side &&
           a->remove == b->remove && a->ban_from == b->ban_from && a->ban_to == b->ban_to &&
           a->first_mill == b->first_mill;
}

static uint64_t rng_state = 0x2545f4914f6cdd1dull;
static uint32_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (uint32_t)(rng_state >> 11);
}

/* A random valid position of v (any stone counts, hands, side). */
static struct mmtb_pos random_pos(const struct mmtb_variant *v)
{
    for (;;) {
        struct mmtb_pos p = {{0, 0}, {0, 0}, 0, 0, -1, -1, 0};
        for (int c = 0; c < 2; c++) {
            int tot = (int)(rnd() % (uint32_t)(v->stones + 1));
            int on = (int)(rnd() % (uint32_t)(tot + 1));
            for (int k = 0; k < on; k++) {
                int i;
                do
                    i = (int)(rnd() % (uint32_t)v->npoints);
                while ((p.stones[0] | p.stones[1]) & BIT(i));
                p.stones[c] |= BIT(i);
            }
            p.hand[c] = (uint8_t)(tot - on);
        }
        p.side = (uint8_t)(rnd() % 2);
        /* Twelve's re-close restrictions: a live one for each side half of
         * the time it can have one. */
        for (int k = 0; v->no_reclose && k < 2; k++) {
            int c = k == 0 ? p.side : p.side ^ 1;
            int8_t live[MMTB_MAX_BANS];
            int n = mmtb_live_bans(v, p.stones[c], p.stones[c ^ 1], live);
            int8_t code = n && rnd() % 2 ? live[rnd() % (uint32_t)n] : -1;
            if (k == 0)
                p.ban_from = code;
            else
                p.ban_to = code;
        }
        if (mmtb_pos_validate(v, &p, NULL, 0) == MMTB_OK)
            return p;
    }
}

/* ---- oracle FENs --------------------------------------------------------- */

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    ck_assert_msg(f != NULL, "cannot open %s (the shared reference is required)", path);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    ck_assert(buf);
    ck_assert(fread(buf, 1, (size_t)n, f) == (size_t)n);
    buf[n] = 0;
    fclose(f);
    return buf;
}

/* Every "fen" string value of the oracle file (a tiny purpose-built reader:
 * `"fen"`, optional blanks, ':', blanks, a string without escapes). */
static int oracle_fens(char (**out)[128])
{
    char *text = slurp(MMTB_SHARED_DIR "/reference/sanmill/nine-legacy-oracle.json");
    char(*fens)[128] = calloc(2048, sizeof *fens);
    ck_assert(fens);
    int n = 0;
    for (const char *c = text; (c = strstr(c, "\"fen\""));) {
        c += 5;
        while (*c == ' ' || *c == '\n')
            c++;
        ck_assert_msg(*c == ':', "oracle: no ':' after \"fen\"");
        c++;
        while (*c == ' ' || *c == '\n')
            c++;
        ck_assert_msg(*c == '"', "oracle: fen is not a string");
        const char *e = strchr(c + 1, '"');
        ck_assert(e && e - c - 1 < 128 && n < 2048);
        memcpy(fens[n], c + 1, (size_t)(e - c - 1));
        fens[n][e - c - 1] = 0;
        ck_assert_msg(!memchr(fens[n], '\\', (size_t)(e - c - 1)), "oracle: escape in fen");
        n++;
        c = e + 1;
    }
    free(text);
    *out = fens;
    return n;
}

START_TEST(oracle_fen_round_trip)
{
    struct mmtb_variant *v = load("nine");
    char(*fens)[128];
    int n = oracle_fens(&fens);
    ck_assert_int_eq(n, 1142);
    int with_removal = 0;
    for (int i = 0; i < n; i++) {
        struct mmtb_pos p, q;
        char err[256], out[256], simple[256];
        int rc = mmtb_pos_parse(v, fens[i], &p, err, sizeof err);
        ck_assert_msg(rc == MMTB_OK, "FEN %d '%s': %s", i, fens[i], err);
        ck_assert_int_eq(mmtb_pos_validate(v, &p, err, sizeof err), MMTB_OK);
        /* The oracle's history fields are all 0 0 0 0 0 0 1 and its phase
         * and action letters follow our rule, so the print is identical. */
        int len = mmtb_pos_format_fen(v, &p, out, sizeof out);
        ck_assert_int_eq(len, (int)strlen(out));
        ck_assert_msg(!strcmp(out, fens[i]), "FEN %d: printed\n%s\nfor\n%s", i, out, fens[i]);
        ck_assert_int_eq(mmtb_pos_parse(v, out, &q, err, sizeof err), MMTB_OK);
        ck_assert(pos_eq(&p, &q));
        /* Simple form round trip (it has no pending removal). */
        mmtb_pos_format(v, &p, simple, sizeof simple);
        ck_assert_msg(mmtb_pos_parse(v, simple, &q, err, sizeof err) == MMTB_OK, "%s: %s",
                      simple, err);
        q.remove = p.remove;
        ck_assert(pos_eq(&p, &q));
        with_removal += p.remove > 0;
    }
    ck_assert_int_eq(with_removal, 60);
    free(fens);
    mmtb_variant_free(v);
}
END_TEST

/* Hand-checked FEN <-> position pairs. */
START_TEST(fen_known)
{
    struct mmtb_variant *v = load("nine");
    struct mmtb_pos p, s;
    char err[256], out[256];
    mmtb_pos_start(v, &s);
    ck_assert_int_eq(
        mmtb_pos_parse(v, "********/********/******** w p p 0 9 0 9 0 0 0 0 0 0 0 0 1", &p, err,
                       sizeof err),
        MMTB_OK);
    ck_assert(pos_eq(&p, &s));
    mmtb_pos_format_fen(v, &s, out, sizeof out);
    ck_assert_str_eq(out, "********/********/******** w p p 0 9 0 9 0 0 0 0 0 0 0 0 1");
    /* Gasser's Fig. 9: White d7 g7 g1, Black a4 g4 d5, Black to move.
     * Inner d5 e5 e4 e3 d3 c3 c4 c5; middle empty; outer d7 g7 g4 g1 d1 a1
     * a4 a7. */
    ck_assert_int_eq(mmtb_pos_parse(v, "d7,g7,g1 a4,g4,d5 b", &p, err, sizeof err), MMTB_OK);
    mmtb_pos_format_fen(v, &p, out, sizeof out);
    ck_assert_str_eq(out, "@*******/********/OO@O**@* b m s 3 0 3 0 0 0 0 0 0 0 0 0 1");
    mmtb_pos_format(v, &p, out, sizeof out);
    ck_assert_str_eq(out, "d7,g7,g1 d5,g4,a4 b");
    /* Ready phase and mill history are accepted (history ignored). */
    ck_assert_int_eq(
        mmtb_pos_parse(v, "********/********/******** w r p 0 9 0 9 0 0 8 16 0 0 3 12 7", &p,
                       err, sizeof err),
        MMTB_OK);
    ck_assert(pos_eq(&p, &s));
    /* Placement phase with a pending removal after the last stone. */
    ck_assert_int_eq(
        mmtb_pos_parse(v, "OOO*****/@@@@@@@@/OOOOOO@* w p r 9 0 9 0 1 0 0 0 0 0 0 0 1", &p,
                       err, sizeof err),
        MMTB_OK);
    ck_assert_int_eq(p.remove, 1);
    ck_assert_int_eq(p.side, MMTB_WHITE);
    mmtb_pos_format_fen(v, &p, out, sizeof out);
    ck_assert_str_eq(out, "OOO*****/@@@@@@@@/OOOOOO@* w m r 9 0 9 0 1 0 0 0 0 0 0 0 1");
    mmtb_variant_free(v);

    /* FEN on every 24-point built-in, not on the others. */
    for (int i = 0; i < NVARIANTS; i++) {
        v = load(all_variants[i]);
        bool fen = v->npoints == 24;
        ck_assert_int_eq(mmtb_fen_supported(v), fen);
        mmtb_pos_start(v, &s);
        int rc = mmtb_pos_format_fen(v, &s, out, sizeof out);
        if (!fen) {
            ck_assert_int_eq(rc, MMTB_ERR_UNSUPPORTED);
            rc = mmtb_pos_parse(v, "********/********/******** w p p 0 9 0 9 0 0 0 0 0 0 0 0 1",
                                &p, err, sizeof err);
            ck_assert_int_eq(rc, MMTB_ERR_PARSE);
        }
        mmtb_variant_free(v);
    }
}
END_TEST

/* Random positions of every variant: simple form and FEN both ways; move
 * tokens of their legal moves both ways. */
START_TEST(round_trips)
{
    struct mmtb_variant *v = load(all_variants[_i]);
    char err[256], out[1024], small[8];
    struct mmtb_move mv[MMTB_MAX_MOVES];
    for (int k = 0; k < 500; k++) {
        struct mmtb_pos p = random_pos(v), q;
        int len = mmtb_pos_format(v, &p, out, sizeof out);
        ck_assert_int_eq(len, (int)strlen(out));
        /* snprintf semantics: the full length even when truncated. */
        ck_assert_int_eq(mmtb_pos_format(v, &p, small, sizeof small), len);
        ck_assert_int_eq((int)strlen(small), len < 8 ? len : 7);
        ck_assert_msg(mmtb_pos_parse(v, out, &q, err, sizeof err) == MMTB_OK, "%s: %s", out, err);
        ck_assert_msg(pos_eq(&p, &q), "simple form %s does not round-trip", out);
        if (mmtb_fen_supported(v)) {
            len = mmtb_pos_format_fen(v, &p, out, sizeof out);
            ck_assert_int_eq(len, (int)strlen(out));
            ck_assert_msg(mmtb_pos_parse(v, out, &q, err, sizeof err) == MMTB_OK, "%s: %s", out,
                          err);
            ck_assert_msg(pos_eq(&p, &q), "FEN %s does not round-trip", out);
        }
        int n = mmtb_gen_moves(v, &p, mv);
        ck_assert(n >= 0);
        for (int j = 0; j < n; j++) {
            struct mmtb_move m;
            mmtb_move_format(v, &mv[j], out, sizeof out);
            ck_assert_msg(mmtb_move_parse(v, out, &m, err, sizeof err) == MMTB_OK, "%s: %s",
                          out, err);
            ck_assert_msg(m.from == mv[j].from && m.to == mv[j].to && m.remove == mv[j].remove,
                          "move %s does not round-trip", out);
        }
    }
    mmtb_variant_free(v);
}
END_TEST

START_TEST(move_tokens)
{
    struct mmtb_variant *v = load("nine");
    struct mmtb_move m;
    char err[256], out[64];
    int d6 = mmtb_variant_point(v, "d6"), d5 = mmtb_variant_point(v, "d5"),
        b4 = mmtb_variant_point(v, "b4");
    struct {
        const char *text;
        int from, to, remove;
    } good[] = {
        {"d6", -1, d6, -1},          {"d6-d5", d6, d5, -1}, {"d6-d5xb4", d6, d5, b4},
        {"d6xb4", -1, d6, b4},       {"xb4", -1, -1, b4},   {"pass", MMTB_MOVE_PASS, -1, -1},
        {"  d6-d5xb4\n", d6, d5, b4}, {"x-", -1, -1, -1},
    };
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        ck_assert_msg(mmtb_move_parse(v, good[i].text, &m, err, sizeof err) == MMTB_OK, "%s: %s",
                      good[i].text, err);
        ck_assert_int_eq(m.from, good[i].from);
        ck_assert_int_eq(m.to, good[i].to);
        ck_assert_int_eq(m.remove, good[i].remove);
        mmtb_move_format(v, &m, out, sizeof out);
        char trimmed[32];
        sscanf(good[i].text, "%31s", trimmed);
        ck_assert_str_eq(out, trimmed);
    }
    const char *bad[] = {"", "h9", "d6-", "-d5", "d6-h9", "xq1", "d6-d5xzz", "d6 d5", "d6--d5",
                         "x", "d6x", "passx"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err[0] = 0;
        ck_assert_msg(mmtb_move_parse(v, bad[i], &m, err, sizeof err) == MMTB_ERR_PARSE,
                      "'%s' accepted", bad[i]);
        ck_assert_msg(err[0] != 0, "'%s': no message", bad[i]);
    }
    ck_assert_int_eq(mmtb_move_parse(v, "h9", &m, err, sizeof err), MMTB_ERR_PARSE);
    ck_assert_msg(strstr(err, "h9"), "message does not name the square: %s", err);
    mmtb_variant_free(v);
}
END_TEST

/* Malformed positions: each fails with a message that names the field. */
/* Shah's first-mill owner in both forms: every position of random games
 * round-trips (the owner is set in many of them), and bad fields are
 * refused with a message. */
START_TEST(shah_first_mill_round_trip)
{
    struct mmtb_variant *v = load("shah");
    char err[256], out[1024];
    struct mmtb_move mv[MMTB_MAX_MOVES];
    int owned = 0, seen = 0;
    for (int g = 0; g < 40; g++) {
        struct mmtb_pos p, q;
        mmtb_pos_start(v, &p);
        for (int ply = 0; ply < 60; ply++) {
            for (int form = 0; form < 2; form++) {
                if (form == 0)
                    mmtb_pos_format(v, &p, out, sizeof out);
                else
                    mmtb_pos_format_fen(v, &p, out, sizeof out);
                ck_assert_msg(mmtb_pos_parse(v, out, &q, err, sizeof err) == MMTB_OK, "%s: %s",
                              out, err);
                ck_assert_msg(pos_eq(&p, &q), "%s does not round-trip", out);
                bool has = strstr(out, "first-mill=") != NULL;
                ck_assert_int_eq(has, p.first_mill != MMTB_FIRST_MILL_NONE);
            }
            seen++;
            owned += p.first_mill != MMTB_FIRST_MILL_NONE;
            int n = mmtb_gen_moves(v, &p, mv);
            if (n <= 0)
                break;
            mmtb_pos_apply(v, &p, &mv[rnd() % (uint32_t)n], &q);
            p = q;
        }
    }
    ck_assert_int_gt(owned, 100);
    ck_assert_int_gt(seen - owned, 100);
    struct mmtb_pos p;
    ck_assert_int_eq(mmtb_pos_parse(v, "a7,d7,g7 f6,f4 b 9 10 first-mill=w", &p, err, sizeof err),
                     MMTB_OK);
    ck_assert_int_eq(p.first_mill, MMTB_FIRST_MILL_OF(MMTB_WHITE));
    ck_assert_int_eq(mmtb_pos_parse(v, "a7,d7,g7 f6,f4 b 9 10 first-mill=x", &p, err, sizeof err),
                     MMTB_ERR_PARSE);
    ck_assert_ptr_nonnull(strstr(err, "first-mill=w or first-mill=b"));
    ck_assert_int_eq(mmtb_pos_parse(v, "a7,d7,g7 f6,f4 b 9 10 first-mill=b", &p, err, sizeof err),
                     MMTB_ERR_PARSE);
    ck_assert_ptr_nonnull(strstr(err, "no mill"));
    ck_assert_int_eq(mmtb_pos_parse(v, "a7,d7,g7 f6,f4 b 9 10 first-mill=w extra", &p, err,
                                    sizeof err),
                     MMTB_ERR_PARSE);
    struct mmtb_variant *nine = load("nine");
    ck_assert_int_eq(mmtb_pos_parse(nine, "a7,d7,g7 f6 b 6 8 first-mill=w", &p, err, sizeof err),
                     MMTB_ERR_PARSE);
    ck_assert_ptr_nonnull(strstr(err, "no first-mill-removal"));
    ck_assert_int_eq(mmtb_pos_parse(nine,
                                    "********/*@@@****/OO*****O w p p 3 6 3 6 0 0 0 0 0 0 0 0 1 "
                                    "first-mill=w",
                                    &p, err, sizeof err),
                     MMTB_ERR_PARSE);
    mmtb_variant_free(nine);
    mmtb_variant_free(v);
}
END_TEST

START_TEST(malformed)
{
    struct mmtb_variant *v = load("nine");
    static const struct {
        const char *text, *want;
    } cases[] = {
        {"d7,g7 a4 x", "field 3 (side): expected 'w' or 'b', got 'x'"},
        {"h9 - w", "field 1 (white): unknown square 'h9'"},
        {"d7,d7 - w", "field 1 (white): square d7 listed twice"},
        {"d7 a4,d7 w", "field 2 (black): square d7 listed twice"},
        {"d7,,g7 - w", "field 1 (white): empty square name"},
        {"- - w 9", "expected 3 or 5 fields"},
        {"- - w 9 9 9", "expected 3 or 5 fields"},
        {"- - w x 9", "field 4 (white hand)"},
        {"- - w 9 10", "field 5 (black hand)"},
        {"a1,a4,a7,d7,g7,g4,g1,d1,b2 - w 1 0", "white has 10 stones, the variant allows 9"},
        {"", "expected 3 or 5 fields"},
        {"********/*******/******** w p p 0 9 0 9 0 0 0 0 0 0 0 0 1", "field 1 (board)"},
        {"*******X/********/******** w p p 0 9 0 9 0 0 0 0 0 0 0 0 1", "field 1 (board): cell 8 (c5)"},
        {"********/********/******** x p p 0 9 0 9 0 0 0 0 0 0 0 0 1", "field 2 (side)"},
        {"********/********/******** w q p 0 9 0 9 0 0 0 0 0 0 0 0 1", "field 3 (phase)"},
        {"********/********/******** w p z 0 9 0 9 0 0 0 0 0 0 0 0 1", "field 4 (action)"},
        {"O*******/********/******** w p p 0 8 0 9 0 0 0 0 0 0 0 0 1", "field 5 (white on board)"},
        {"********/********/******** w p p 0 nine 0 9 0 0 0 0 0 0 0 0 1", "field 6 (white in hand)"},
        {"********/********/******** w p p 0 9 0 19 0 0 0 0 0 0 0 0 1", "field 8 (black in hand)"},
        {"********/********/******** w p p 0 9 0 9 0 1 0 0 0 0 0 0 1", "field 10 (black to remove)"},
        {"********/********/******** w p p 0 9 0 9 0 0 a 0 0 0 0 0 1", "field 11 (last mill square)"},
        {"********/********/******** w p p 0 9 0 9 0 0 0 0 0 0 0 0 x", "field 17 (move number)"},
        {"********/********/******** w m p 0 9 0 9 0 0 0 0 0 0 0 0 1", "field 3 (phase)"},
        {"********/********/******** w p r 0 9 0 9 0 0 0 0 0 0 0 0 1", "field 4 (action)"},
        {"********/********/******** w p s 0 9 0 9 0 0 0 0 0 0 0 0 1", "field 4 (action)"},
        {"********/********/******** w p p 0 9 0 9 0 0 0 0 0 0 0 0", "expected 17 fields"},
        {"O*******/********/******** w r p 1 8 0 9 0 0 0 0 0 0 0 0 1", "field 3 (phase)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct mmtb_pos p;
        char err[256] = "";
        int rc = mmtb_pos_parse(v, cases[i].text, &p, err, sizeof err);
        ck_assert_msg(rc == MMTB_ERR_PARSE, "'%s' gave %d, expected a parse error",
                      cases[i].text, rc);
        ck_assert_msg(strstr(err, cases[i].want), "'%s': message '%s' lacks '%s'", cases[i].text,
                      err, cases[i].want);
    }
    mmtb_variant_free(v);
}
END_TEST

/* Random mutations of valid strings: never a crash; whatever parses is
 * valid and round-trips. */
START_TEST(fuzz)
{
    struct mmtb_variant *v = load(_i == 0 ? "nine" : "six");
    static const char alphabet[] = "abcdefgx1234567890-,/ *O@wbprms\t";
    char err[256], buf[512], out[512];
    int parsed = 0;
    rng_state = 12345u + (uint64_t)_i;
    for (int it = 0; it < 4000; it++) {
        struct mmtb_pos p = random_pos(v), q;
        int kind = (int)(rnd() % 3);
        if (kind == 0 && mmtb_fen_supported(v))
            mmtb_pos_format_fen(v, &p, buf, sizeof buf);
        else if (kind == 2) {
            struct mmtb_move mv[MMTB_MAX_MOVES];
            int n = mmtb_gen_moves(v, &p, mv);
            if (n <= 0)
                continue;
            mmtb_move_format(v, &mv[rnd() % (uint32_t)n], buf, sizeof buf);
        } else
            mmtb_pos_format(v, &p, buf, sizeof buf);
        int nmut = 1 + (int)(rnd() % 4);
        for (int k = 0; k < nmut; k++) {
            size_t len = strlen(buf);
            size_t at = len ? rnd() % len : 0;
            switch (rnd() % 4) {
            case 0: /* replace */
                if (len)
                    buf[at] = alphabet[rnd() % (sizeof alphabet - 1)];
                break;
            case 1: /* delete */
                if (len)
                    memmove(buf + at, buf + at + 1, len - at);
                break;
            case 2: /* insert */
                if (len + 2 < sizeof buf) {
                    memmove(buf + at + 1, buf + at, len - at + 1);
                    buf[at] = alphabet[rnd() % (sizeof alphabet - 1)];
                }
                break;
            default: /* truncate */
                buf[at] = 0;
                break;
            }
        }
        if (kind == 2) {
            struct mmtb_move m;
            if (mmtb_move_parse(v, buf, &m, err, sizeof err) == MMTB_OK) {
                mmtb_move_format(v, &m, out, sizeof out);
                struct mmtb_move m2;
                ck_assert_int_eq(mmtb_move_parse(v, out, &m2, err, sizeof err), MMTB_OK);
                ck_assert(m.from == m2.from && m.to == m2.to && m.remove == m2.remove);
            }
            continue;
        }
        int rc = mmtb_pos_parse(v, buf, &q, err, sizeof err);
        if (rc == MMTB_OK) {
            parsed++;
            ck_assert_msg(mmtb_pos_validate(v, &q, err, sizeof err) == MMTB_OK, "%s: %s", buf,
                          err);
            mmtb_pos_format(v, &q, out, sizeof out);
            struct mmtb_pos r;
            ck_assert_int_eq(mmtb_pos_parse(v, out, &r, err, sizeof err), MMTB_OK);
            r.remove = q.remove;
            ck_assert(pos_eq(&q, &r));
        } else {
            ck_assert_int_eq(rc, MMTB_ERR_PARSE);
            ck_assert(err[0] != 0);
        }
    }
    ck_assert_int_gt(parsed, 0);
    mmtb_variant_free(v);
}
END_TEST

/* Twelve's re-close restrictions in both notations: a known position, the
 * field's place, and the malformed forms. */
START_TEST(restrictions)
{
    struct mmtb_variant *v = load("twelve"), *nine = load("nine");
    char err[256], out[256];
    struct mmtb_pos p;
    int y, x;
    /* White slid c5 -> b6 out of the mill c5-d5-e5; black is to move, so
     * the restriction is the other side's (ban_to). */
    const char *text = "d5,e5,b6 g4,d1,a1 b w:b6-c5";
    ck_assert_msg(mmtb_pos_parse(v, text, &p, err, sizeof err) == MMTB_OK, "%s", err);
    ck_assert_int_eq(p.ban_from, -1);
    ck_assert_int_eq(p.ban_to, mmtb_edge_code(v, mmtb_variant_point(v, "b6"),
                                              mmtb_variant_point(v, "c5")));
    ck_assert(mmtb_pos_ban(v, &p, MMTB_WHITE, &y, &x));
    ck_assert_str_eq(v->point_name[y], "b6");
    ck_assert_str_eq(v->point_name[x], "c5");
    ck_assert(!mmtb_pos_ban(v, &p, MMTB_BLACK, NULL, NULL));
    mmtb_pos_format(v, &p, out, sizeof out);
    ck_assert_str_eq(out, text);
    /* With white to move it is white's own (ban_from), and the slide back
     * is missing from the legal moves. */
    ck_assert(mmtb_pos_parse(v, "d5,e5,b6 g4,d1,a1 w 0 0 w:b6-c5", &p, err, sizeof err) ==
              MMTB_OK);
    ck_assert_int_ne(p.ban_from, -1);
    ck_assert_int_eq(p.ban_to, -1);
    struct mmtb_move mv[MMTB_MAX_MOVES];
    int n = mmtb_gen_moves(v, &p, mv);
    for (int i = 0; i < n; i++)
        ck_assert(!(mv[i].from == mmtb_variant_point(v, "b6") &&
                    mv[i].to == mmtb_variant_point(v, "c5")));
    mmtb_pos_format(v, &p, out, sizeof out);
    ck_assert_str_eq(out, "d5,e5,b6 g4,d1,a1 w w:b6-c5");
    /* FEN: an 18th field. */
    int len = mmtb_pos_format_fen(v, &p, out, sizeof out);
    ck_assert_int_eq(len, (int)strlen(out));
    ck_assert_msg(strstr(out, " 0 0 0 0 0 0 1 w:b6-c5") != NULL, "%s", out);
    struct mmtb_pos q;
    ck_assert(mmtb_pos_parse(v, out, &q, err, sizeof err) == MMTB_OK);
    ck_assert(pos_eq(&p, &q));
    /* Both sides. */
    text = "d5,e5,b6 e3,d3,b2 w w:b6-c5,b:b2-c3";
    ck_assert_msg(mmtb_pos_parse(v, text, &p, err, sizeof err) == MMTB_OK, "%s", err);
    ck_assert_int_ne(p.ban_from, -1);
    ck_assert_int_ne(p.ban_to, -1);
    mmtb_pos_format(v, &p, out, sizeof out);
    ck_assert_str_eq(out, text);
    ck_assert(mmtb_pos_parse(v, "d5,e5,b6 e3,d3,b2 w b:b2-c3,w:b6-c5", &q, err, sizeof err) ==
              MMTB_OK);
    ck_assert(pos_eq(&p, &q));
    static const char *const bad[] = {
        "d5,e5,b6 g4,d1,a1 b w:b6-d6",         /* restricts nothing */
        "d5,e5,b6 g4,d1,a1 b w:b6-a1",         /* not neighbours */
        "d5,e5,b6 g4,d1,a1 b w:b6-z9",         /* unknown square */
        "d5,e5,b6 g4,d1,a1 b x:b6-c5",         /* no such colour */
        "d5,e5,b6 g4,d1,a1 b w:b6c5",          /* no dash */
        "d5,e5,b6 g4,d1,a1 b w:b6-c5,w:b6-c5", /* twice */
        "d5,e5,b6 g4,d1,a1 b 0 w:b6-c5",       /* half a hand */
        "d5,e5,b6 g4,d1,a1 b 0 0 w:b6-c5 x",   /* too many fields */
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        err[0] = 0;
        ck_assert_msg(mmtb_pos_parse(v, bad[i], &p, err, sizeof err) == MMTB_ERR_PARSE, "%s",
                      bad[i]);
        ck_assert(err[0] != 0);
    }
    err[0] = 0;
    ck_assert(mmtb_pos_parse(nine, "d5,e5,b6 g4,d1,a1 b w:b6-c5", &p, err, sizeof err) ==
              MMTB_ERR_PARSE);
    ck_assert_msg(strstr(err, "re-close") != NULL, "%s", err);
    mmtb_variant_free(nine);
    mmtb_variant_free(v);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("notation");
    TCase *tc = tcase_create("fen");
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, oracle_fen_round_trip);
    tcase_add_test(tc, fen_known);
    suite_add_tcase(s, tc);
    tc = tcase_create("round_trips");
    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, round_trips, 0, NVARIANTS);
    tcase_add_test(tc, move_tokens);
    tcase_add_test(tc, malformed);
    tcase_add_test(tc, shah_first_mill_round_trip);
    tcase_add_test(tc, restrictions);
    tcase_add_loop_test(tc, fuzz, 0, 2);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
