/*
 * check_movegen.c - tests of format/movegen.c: Sanmill's legal-move oracle,
 * perft from the start positions (published and hand-counted values),
 * terminal positions, hand-checked move lists, the Twelve Men's re-close
 * rule, and predecessors as the exact inverse of move generation.  Needs
 * ../shared/reference (a missing oracle is a failure, not a skip).
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

/* ---- helpers ------------------------------------------------------------ */

static struct mmtb_variant *load(const char *name)
{
    struct mmtb_variant *v = NULL;
    char err[256] = "";
    int rc = mmtb_variant_load(&v, name, err, sizeof err);
    ck_assert_msg(rc == MMTB_OK && v, "loading variant %s: %d %s", name, rc, err);
    return v;
}

/* A variant made from a built-in's text with extra rule lines inserted
 * after its "removal" line (and that line replaced when `removal` is set). */
static struct mmtb_variant *custom(const char *base, const char *removal, const char *extra)
{
    const char *text = mmtb_variant_builtin_text(base);
    ck_assert_msg(text != NULL, "no built-in %s", base);
    size_t cap = strlen(text) + 512;
    char *buf = malloc(cap);
    ck_assert(buf);
    const char *r = strstr(text, "\nremoval ");
    ck_assert(r);
    r++;
    const char *eol = strchr(r, '\n');
    ck_assert(eol);
    size_t pre = (size_t)(r - text);
    memcpy(buf, text, pre);
    int k = snprintf(buf + pre, cap - pre, "%.*s\n%s\n", removal ? (int)strlen(removal) : (int)(eol - r),
                     removal ? removal : r, extra);
    strcpy(buf + pre + (size_t)k, eol + 1);
    struct mmtb_variant *v = NULL;
    char err[256] = "";
    int rc = mmtb_variant_parse(&v, buf, strlen(buf), "test:custom", err, sizeof err);
    ck_assert_msg(rc == MMTB_OK && v, "custom variant (%s, %s): %d %s", base, extra, rc, err);
    free(buf);
    return v;
}

static struct mmtb_pos pos(const struct mmtb_variant *v, const char *text)
{
    struct mmtb_pos p;
    char err[256] = "";
    int rc = mmtb_pos_parse(v, text, &p, err, sizeof err);
    ck_assert_msg(rc == MMTB_OK, "parsing '%s': %s", text, err);
    return p;
}

static bool pos_eq(const struct mmtb_pos *a, const struct mmtb_pos *b)
{
    return a->stones[0] == b->stones[0] && a->stones[1] == b->stones[1] &&
           a->hand[0] == b->hand[0] && a->hand[1] == b->hand[1] && a->side == b->side &&
           a->remove == b->remove && a->ban_from == b->ban_from && a->ban_to == b->ban_to &&
           a->first_mill == b->first_mill;
}

static int pt(const struct mmtb_variant *v, const char *name)
{
    int i = mmtb_variant_point(v, name);
    ck_assert_msg(i >= 0, "no square %s", name);
    return i;
}

/* Does the move list contain this token (as printed by mmtb_move_format)? */
static bool has_move(const struct mmtb_variant *v, const struct mmtb_move *m, int n,
                     const char *token)
{
    char b[64];
    for (int i = 0; i < n; i++) {
        mmtb_move_format(v, &m[i], b, sizeof b);
        if (!strcmp(b, token))
            return true;
    }
    return false;
}

/* ---- the Sanmill oracle ------------------------------------------------- */

/* A tiny reader for the oracle file: only the fields we need.  The file is
 * trusted to be JSON; the reader checks what it relies on. */
struct step {
    char fen[128];
    char (*legal)[8];
    int nlegal;
};

static char *slurp(const char *path, size_t *len)
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
    if (len)
        *len = (size_t)n;
    return buf;
}

/* Read a JSON string starting at *s (which must point at '"'); no escapes
 * are expected in this file. */
static const char *json_string(const char *s, char *out, size_t cap)
{
    ck_assert_msg(*s == '"', "oracle: expected a string at '%.20s'", s);
    s++;
    size_t n = 0;
    while (*s && *s != '"') {
        ck_assert_msg(*s != '\\', "oracle: unexpected escape");
        ck_assert_msg(n + 1 < cap, "oracle: string too long");
        out[n++] = *s++;
    }
    ck_assert(*s == '"');
    out[n] = 0;
    return s + 1;
}

static const char *skip_ws(const char *s)
{
    while (*s == ' ' || *s == '\n' || *s == '\r' || *s == '\t')
        s++;
    return s;
}

/* Find `"key":` after s and return the first non-blank after the colon. */
static const char *json_key(const char *s, const char *key)
{
    char pat[64];
    snprintf(pat, sizeof pat, "\"%s\"", key);
    const char *k = strstr(s, pat);
    if (!k)
        return NULL;
    k = skip_ws(k + strlen(pat));
    ck_assert_msg(*k == ':', "oracle: no ':' after %s", pat);
    return skip_ws(k + 1);
}

static int read_oracle(struct step **out, unsigned long long perft[6])
{
    char *text = slurp(MMTB_SHARED_DIR "/reference/sanmill/nine-legacy-oracle.json", NULL);
    /* "perft": [[1, 24], [2, 552], ...] */
    const char *s = json_key(text, "perft");
    ck_assert_msg(s && *s == '[', "oracle: no perft array");
    for (int d = 1; d <= 5; d++) {
        s = skip_ws(s + 1);
        ck_assert_msg(*s == '[', "oracle: perft entry %d", d);
        char *e;
        long depth = strtol(s + 1, &e, 10);
        ck_assert_int_eq(depth, d);
        s = skip_ws(e);
        ck_assert(*s == ',');
        perft[d] = strtoull(s + 1, &e, 10);
        s = skip_ws(e);
        ck_assert(*s == ']');
        s = skip_ws(s + 1);
        if (d < 5)
            ck_assert(*s == ',');
    }
    int cap = 2048, n = 0;
    struct step *st = calloc((size_t)cap, sizeof *st);
    ck_assert(st);
    const char *c = json_key(text, "trajectories");
    ck_assert_msg(c, "oracle: no trajectories");
    while ((c = json_key(c, "fen"))) {
        ck_assert(n < cap);
        c = json_string(c, st[n].fen, sizeof st[n].fen);
        c = json_key(c, "legal_uci");
        ck_assert_msg(c && *c == '[', "oracle: step %d has no legal_uci", n);
        st[n].legal = calloc(64, sizeof *st[n].legal);
        c = skip_ws(c + 1);
        while (*c != ']') {
            ck_assert_msg(st[n].nlegal < 64, "oracle: too many moves");
            c = json_string(c, st[n].legal[st[n].nlegal++], 8);
            c = skip_ws(c);
            if (*c == ',')
                c = skip_ws(c + 1);
        }
        n++;
    }
    free(text);
    *out = st;
    return n;
}

static int cmp_str8(const void *a, const void *b)
{
    return strcmp((const char *)a, (const char *)b);
}

START_TEST(oracle_moves)
{
    struct mmtb_variant *v = load("nine");
    struct step *st;
    unsigned long long perft[6];
    int n = read_oracle(&st, perft);
    ck_assert_int_eq(n, 1142);
    int removal_steps = 0, fly_steps = 0;
    for (int i = 0; i < n; i++) {
        struct mmtb_pos p = pos(v, st[i].fen);
        struct mmtb_move mv[MMTB_MAX_MOVES];
        int nm = mmtb_gen_moves(v, &p, mv);
        ck_assert_msg(nm >= 0, "step %d: gen_moves %d", i, nm);
        char(*ours)[8] = calloc((size_t)nm + 1, sizeof *ours);
        int k = 0;
        for (int j = 0; j < nm; j++) {
            struct mmtb_move m = mv[j];
            if (p.remove == 0)
                m.remove = -1; /* Sanmill removes in a separate action */
            else
                ck_assert(m.from == -1 && m.to == -1);
            mmtb_move_format(v, &m, ours[k], 8);
            int dup = 0;
            for (int q = 0; q < k; q++)
                dup |= !strcmp(ours[q], ours[k]);
            if (!dup)
                k++;
        }
        qsort(ours, (size_t)k, 8, cmp_str8);
        qsort(st[i].legal, (size_t)st[i].nlegal, 8, cmp_str8);
        char a[1024] = "", b[1024] = "";
        for (int j = 0; j < k; j++)
            snprintf(a + strlen(a), sizeof a - strlen(a), "%s ", ours[j]);
        for (int j = 0; j < st[i].nlegal; j++)
            snprintf(b + strlen(b), sizeof b - strlen(b), "%s ", st[i].legal[j]);
        ck_assert_msg(!strcmp(a, b), "step %d (%s):\n ours:   %s\n oracle: %s", i, st[i].fen,
                      a, b);
        removal_steps += p.remove > 0;
        fly_steps += p.remove == 0 && p.hand[p.side] == 0 && mmtb_pos_can_fly(v, &p, p.side);
        free(ours);
        free(st[i].legal);
    }
    /* The oracle exercises removals and flying. */
    ck_assert_int_eq(removal_steps, 60);
    ck_assert_int_gt(fly_steps, 0);
    free(st);
    mmtb_variant_free(v);
}
END_TEST

/* ---- perft ------------------------------------------------------------- */

/* Sanmill-style action count at the last ply: distinct first actions. */
static uint64_t actions_at(const struct mmtb_variant *v, const struct mmtb_pos *p, int depth)
{
    struct mmtb_move mv[MMTB_MAX_MOVES];
    int n = mmtb_gen_moves(v, p, mv);
    ck_assert(n >= 0);
    if (depth == 1) {
        uint64_t distinct = 0;
        for (int i = 0; i < n; i++) {
            bool seen = false;
            for (int j = 0; j < i && !seen; j++)
                seen = mv[j].from == mv[i].from && mv[j].to == mv[i].to;
            distinct += !seen;
        }
        return distinct;
    }
    uint64_t sum = 0;
    for (int i = 0; i < n; i++) {
        struct mmtb_pos q;
        mmtb_pos_apply(v, p, &mv[i], &q);
        sum += actions_at(v, &q, depth - 1);
    }
    return sum;
}

START_TEST(perft_nine)
{
    struct mmtb_variant *v = load("nine");
    struct mmtb_pos p;
    mmtb_pos_start(v, &p);
    struct step *st;
    unsigned long long oracle[6];
    int n = read_oracle(&st, oracle);
    for (int i = 0; i < n; i++)
        free(st[i].legal);
    free(st);
    const uint64_t want[5] = {0, 24, 552, 12144, 255024};
    for (int d = 1; d <= 4; d++) {
        ck_assert_uint_eq(want[d], oracle[d]);
        ck_assert_uint_eq(mmtb_perft(v, &p, d), want[d]);
    }
    ck_assert_uint_eq(oracle[5], 5100480);
    ck_assert_uint_eq(actions_at(v, &p, 5), 5100480);
    ck_assert_uint_eq(mmtb_perft(v, &p, 0), 1);
    mmtb_variant_free(v);
}
END_TEST

/* Hand-counted perft values of the other variants. */
START_TEST(perft_others)
{
    struct mmtb_pos p;
    /* Three Men's: 9*8*7*6*5 placements; the sixth ply only follows the
     * five-ply sequences whose white stones are not a line: 6 lines (8 with
     * diagonals) * 3! orders * 6*5 black choices are mills. */
    struct mmtb_variant *v = load("three");
    mmtb_pos_start(v, &p);
    ck_assert_uint_eq(mmtb_perft(v, &p, 1), 9);
    ck_assert_uint_eq(mmtb_perft(v, &p, 5), 15120);
    ck_assert_uint_eq(mmtb_perft(v, &p, 6), (15120 - 6 * 6 * 30) * 4);
    mmtb_variant_free(v);
    v = load("three-diag");
    mmtb_pos_start(v, &p);
    ck_assert_uint_eq(mmtb_perft(v, &p, 6), (15120 - 8 * 6 * 30) * 4);
    mmtb_variant_free(v);
    /* Six Men's: 16 then 15 placements. */
    v = load("six");
    mmtb_pos_start(v, &p);
    ck_assert_uint_eq(mmtb_perft(v, &p, 2), 16 * 15);
    ck_assert_uint_eq(mmtb_perft(v, &p, 3), 16 * 15 * 14);
    mmtb_variant_free(v);
    /* Lasker: at ply 3 White places (22) or moves its stone A to an empty
     * neighbour: sum over (A, B != A) of deg(A) - [B adj A] = 22 * 64. */
    v = load("lasker");
    mmtb_pos_start(v, &p);
    ck_assert_uint_eq(mmtb_perft(v, &p, 2), 552);
    ck_assert_uint_eq(mmtb_perft(v, &p, 3), 12144 + 22 * 64);
    mmtb_variant_free(v);
    const char *same[] = {"nine-nofly", "nine-diag", "twelve", "morabaraba"};
    for (int i = 0; i < 4; i++) {
        v = load(same[i]);
        mmtb_pos_start(v, &p);
        ck_assert_uint_eq(mmtb_perft(v, &p, 3), 12144);
        mmtb_variant_free(v);
    }
}
END_TEST

/* ---- terminal positions and hand-checked move lists ------------------- */

START_TEST(terminal_cases)
{
    struct mmtb_variant *v = load("nine");
    struct mmtb_move mv[MMTB_MAX_MOVES];
    struct mmtb_pos p;

    /* Two stones on the board, none in hand: lost. */
    p = pos(v, "a7,d7 a1,d1,g1 w");
    ck_assert_int_eq(mmtb_pos_terminal(v, &p), MMTB_LOSS);
    ck_assert_int_eq(mmtb_gen_moves(v, &p, mv), 0);
    /* Two stones in all during placement: also lost. */
    p = pos(v, "- a1,d1,g1 w 2 6");
    ck_assert_int_eq(mmtb_pos_terminal(v, &p), MMTB_LOSS);
    /* ... but three in all is not. */
    p = pos(v, "a7 a1,d1,g1 w 2 6");
    ck_assert_int_eq(mmtb_pos_terminal(v, &p), MMTB_NOT_TERMINAL);

    /* Blocked: White's four corners each touch two black middles. */
    p = pos(v, "a7,g7,a1,g1 d7,a4,g4,d1 w");
    ck_assert_int_eq(mmtb_pos_terminal(v, &p), MMTB_LOSS);
    ck_assert_int_eq(mmtb_gen_moves(v, &p, mv), 0);
    /* With Black to move it goes on: d7-d6, a4-b4, g4-f4, d1-d2. */
    p.side = MMTB_BLACK;
    ck_assert_int_eq(mmtb_pos_terminal(v, &p), MMTB_NOT_TERMINAL);
    ck_assert_int_eq(mmtb_gen_moves(v, &p, mv), 4);
    /* With three stones White flies: 3 stones * 17 empty points, and no
     * flight closes a mill (each line through two white stones holds a
     * black one). */
    p = pos(v, "a7,g7,a1 d7,a4,g4,d1 w");
    ck_assert_int_eq(mmtb_pos_terminal(v, &p), MMTB_NOT_TERMINAL);
    ck_assert_int_eq(mmtb_gen_moves(v, &p, mv), 51);
    ck_assert(has_move(v, mv, 51, "a1-d5"));
    mmtb_variant_free(v);

    /* Without flying the three stones are stuck. */
    v = load("nine-nofly");
    p = pos(v, "a7,g7,a1 d7,a4,g4,d1 w");
    ck_assert_int_eq(mmtb_pos_terminal(v, &p), MMTB_LOSS);
    mmtb_variant_free(v);

    /* First mill wins: Black faces a white row. */
    v = load("three");
    p = pos(v, "a1,b1,c1 a2,b2 b 0 1");
    ck_assert_int_eq(mmtb_pos_terminal(v, &p), MMTB_LOSS);
    ck_assert_int_eq(mmtb_gen_moves(v, &p, mv), 0);
    /* The mill-closing placement is listed without a removal and ends the
     * game. */
    p = pos(v, "a1,b1 a2,b2 w 1 1");
    int n = mmtb_gen_moves(v, &p, mv);
    ck_assert_int_eq(n, 5);
    for (int i = 0; i < n; i++)
        ck_assert_int_eq(mv[i].remove, -1);
    struct mmtb_move m = {-1, (int8_t)pt(v, "c1"), -1};
    struct mmtb_pos q;
    mmtb_pos_apply(v, &p, &m, &q);
    ck_assert_int_eq(mmtb_pos_terminal(v, &q), MMTB_LOSS);
    /* Three Men's movement: a blocked side loses. a1 b1 / a2 b2 c3 ... */
    p = pos(v, "a1,a2,b1 a3,b2,c1 w");
    ck_assert_int_eq(mmtb_pos_terminal(v, &p), MMTB_LOSS);
    mmtb_variant_free(v);

    /* Morabaraba: a full board with nothing in hand is a draw. */
    v = load("morabaraba");
    uint32_t w = 0;
    for (int i = 0, k = 0; i < v->npoints; i++)
        if (k < 12 && (i % 2 == 0)) {
            w |= BIT(i);
            k++;
        }
    p.stones[0] = w;
    p.stones[1] = v->full & ~w;
    p.hand[0] = p.hand[1] = 0;
    p.side = MMTB_WHITE;
    p.remove = 0;
    p.ban_from = p.ban_to = -1;
    p.first_mill = MMTB_FIRST_MILL_NONE;
    ck_assert_int_eq(mmtb_pos_validate(v, &p, NULL, 0), MMTB_OK);
    ck_assert_int_eq(mmtb_pos_terminal(v, &p), MMTB_DRAW);
    ck_assert_int_eq(mmtb_gen_moves(v, &p, mv), 0);
    mmtb_variant_free(v);
    /* The same board in Twelve Men's: no move, no draw rule: lost. */
    v = load("twelve");
    ck_assert_int_eq(mmtb_pos_terminal(v, &p), MMTB_LOSS);
    mmtb_variant_free(v);

    /* A variant whose blocked player passes. */
    v = custom("nine", NULL, "no-move pass");
    p = pos(v, "a7,g7,a1,g1 d7,a4,g4,d1 w");
    ck_assert_int_eq(mmtb_pos_terminal(v, &p), MMTB_NOT_TERMINAL);
    ck_assert_int_eq(mmtb_gen_moves(v, &p, mv), 1);
    ck_assert_int_eq(mv[0].from, MMTB_MOVE_PASS);
    mmtb_pos_apply(v, &p, &mv[0], &q);
    p.side = MMTB_BLACK;
    ck_assert(pos_eq(&p, &q));
    mmtb_variant_free(v);
}
END_TEST

START_TEST(move_lists)
{
    struct mmtb_variant *v = load("nine");
    struct mmtb_move mv[MMTB_MAX_MOVES];
    struct mmtb_pos p;
    int n;

    p = pos(v, "- - w 9 9");
    ck_assert_int_eq(mmtb_gen_moves(v, &p, mv), 24);

    /* Placing a7 closes a7-d7-g7; Black's b6-d6-f6 is a mill, so only b4
     * may go: 17 quiet placements and a7xb4. */
    p = pos(v, "d7,g7 b6,d6,f6,b4 w 7 5");
    n = mmtb_gen_moves(v, &p, mv);
    ck_assert_int_eq(n, 18);
    ck_assert(has_move(v, mv, n, "a7xb4"));
    ck_assert(!has_move(v, mv, n, "a7"));
    ck_assert(!has_move(v, mv, n, "a7xd6"));
    /* All black stones in mills: any of them (standard rule). */
    p = pos(v, "d7,g7 b6,d6,f6 w 7 6");
    n = mmtb_gen_moves(v, &p, mv);
    ck_assert_int_eq(n, 18 + 3);
    ck_assert(has_move(v, mv, n, "a7xd6"));
    /* Closing two mills at once still removes one stone: a7 closes
     * a7-d7-g7 and a7-a4-a1. */
    p = pos(v, "d7,g7,a4,a1 b4,f4 w 5 7");
    n = mmtb_gen_moves(v, &p, mv);
    ck_assert_int_eq(n, (24 - 6 - 1) + 2);
    struct mmtb_move m;
    char err[128];
    ck_assert_int_eq(mmtb_move_parse(v, "a7xf4", &m, err, sizeof err), MMTB_OK);
    struct mmtb_pos q;
    mmtb_pos_apply(v, &p, &m, &q);
    ck_assert(pos_eq(&q, &(struct mmtb_pos){.stones = {p.stones[0] | BIT(pt(v, "a7")),
                                                       BIT(pt(v, "b4"))},
                                            .hand = {4, 7},
                                            .side = 1,
                                            .remove = 0,
                                            .ban_from = -1,
                                            .ban_to = -1}));
    /* A closing slide against an empty opposing board: remove = -1. */
    p = pos(v, "d7,g7,a4,b2 - w 0 3");
    n = mmtb_gen_moves(v, &p, mv);
    ck_assert(has_move(v, mv, n, "a4-a7"));

    /* Gasser's Fig. 9: Black flies with 3 stones; no line holds two black
     * stones, so 3 * 18 flights and no mill. */
    p = pos(v, "d7,g7,g1 a4,g4,d5 b");
    n = mmtb_gen_moves(v, &p, mv);
    ck_assert_int_eq(n, 54);
    for (int i = 0; i < n; i++)
        ck_assert_int_eq(mv[i].remove, -1);

    /* A pending removal (FEN action r) lists removals only. */
    p = pos(v, "******@*/******@O/****O*@O b p r 3 6 3 6 0 1 0 0 0 0 0 0 1");
    n = mmtb_gen_moves(v, &p, mv);
    ck_assert_int_eq(n, 3);
    for (int i = 0; i < n; i++) {
        ck_assert(mv[i].from == -1 && mv[i].to == -1 && mv[i].remove >= 0);
        mmtb_pos_apply(v, &p, &mv[i], &q);
        ck_assert_int_eq(q.remove, 0);
        ck_assert_int_eq(q.side, MMTB_WHITE);
        ck_assert_int_eq(__builtin_popcount(q.stones[0]), 2);
    }
    mmtb_variant_free(v);

    /* Placement that does not capture (custom rule) and the immune rule. */
    v = custom("nine", NULL, "place-captures no");
    p = pos(v, "d7,g7 b6,d6,f6,b4 w 7 5");
    n = mmtb_gen_moves(v, &p, mv);
    ck_assert_int_eq(n, 18);
    ck_assert(has_move(v, mv, n, "a7"));
    mmtb_variant_free(v);
    v = custom("nine", "removal immune", "");
    p = pos(v, "d7,g7 b6,d6,f6 w 7 6");
    n = mmtb_gen_moves(v, &p, mv);
    ck_assert_int_eq(n, 19);
    ck_assert(has_move(v, mv, n, "a7"));
    mmtb_variant_free(v);
    v = custom("nine", "removal any", "");
    p = pos(v, "d7,g7 b6,d6,f6,b4 w 7 5");
    n = mmtb_gen_moves(v, &p, mv);
    ck_assert_int_eq(n, 17 + 4);
    mmtb_variant_free(v);

    /* Lasker: with stones in hand, place (20 empty) or slide (d7 to a7,
     * g7, d6; a4 to a7, a1, b4). */
    v = load("lasker");
    p = pos(v, "d7,a4 g1,d1 w 8 8");
    n = mmtb_gen_moves(v, &p, mv);
    ck_assert_int_eq(n, 20 + 3 + 3);
    ck_assert(has_move(v, mv, n, "d7-g7"));
    ck_assert(has_move(v, mv, n, "a4-a1"));
    mmtb_variant_free(v);
}
END_TEST

/* Twelve Men's: a stone slid out of a mill may not close it again on its
 * owner's next turn; afterwards it may. */
START_TEST(twelve_no_reclose)
{
    struct mmtb_variant *v = load("twelve");
    struct mmtb_move mv[MMTB_MAX_MOVES];
    struct mmtb_pos p = pos(v, "a7,d7,g7,c4 b2,d2,f4 w"), q;
    struct mmtb_move m;
    char err[128];
    int n;
    ck_assert_int_eq(mmtb_move_parse(v, "a7-a4", &m, err, sizeof err), MMTB_OK);
    mmtb_pos_apply(v, &p, &m, &q);
    ck_assert_int_eq(mmtb_pos_validate(v, &q, err, sizeof err), MMTB_OK);
    p = q;
    ck_assert_int_eq(mmtb_move_parse(v, "f4-e4", &m, err, sizeof err), MMTB_OK);
    mmtb_pos_apply(v, &p, &m, &q);
    ck_assert_int_eq(mmtb_pos_validate(v, &q, err, sizeof err), MMTB_OK);
    ck_assert_int_ne(q.ban_from, -1);
    int bf = -1, bt = -1;
    ck_assert(mmtb_pos_ban(v, &q, MMTB_WHITE, &bf, &bt));
    ck_assert_int_eq(bf, pt(v, "a4"));
    ck_assert_int_eq(bt, pt(v, "a7"));
    ck_assert(!mmtb_pos_ban(v, &q, MMTB_BLACK, NULL, NULL));
    p = q;
    n = mmtb_gen_moves(v, &p, mv);
    ck_assert(!has_move(v, mv, n, "a4-a7"));
    ck_assert(!has_move(v, mv, n, "a4-a7xb2"));
    ck_assert(has_move(v, mv, n, "a4-a1"));
    ck_assert(has_move(v, mv, n, "a4-b4"));
    /* Without the restriction the same board allows a4-a7 with removal of
     * any of the three black stones. */
    struct mmtb_pos free_ = pos(v, "a4,d7,g7,c4 b2,d2,e4 w");
    int nf = mmtb_gen_moves(v, &free_, mv);
    ck_assert_int_eq(nf, n + 3);
    ck_assert(has_move(v, mv, nf, "a4-a7xe4"));
    /* White plays c4-c5, Black e4-f4: the restriction is gone. */
    n = mmtb_gen_moves(v, &p, mv);
    ck_assert_int_eq(mmtb_move_parse(v, "c4-c5", &m, err, sizeof err), MMTB_OK);
    mmtb_pos_apply(v, &p, &m, &q);
    ck_assert_int_eq(mmtb_pos_validate(v, &q, err, sizeof err), MMTB_OK);
    p = q;
    ck_assert_int_eq(mmtb_move_parse(v, "e4-f4", &m, err, sizeof err), MMTB_OK);
    mmtb_pos_apply(v, &p, &m, &q);
    ck_assert_int_eq(q.ban_from, -1);
    ck_assert_int_eq(q.ban_to, -1);
    n = mmtb_gen_moves(v, &q, mv);
    ck_assert(has_move(v, mv, n, "a4-a7xf4"));

    /* Both restrictions alive at once: Black leaves its mill b2-d2-f2
     * while White's restriction is pending, then White is restricted. */
    p = pos(v, "a7,d7,g7,c4 b2,d2,f2 w");
    ck_assert_int_eq(mmtb_move_parse(v, "a7-a4", &m, err, sizeof err), MMTB_OK);
    mmtb_pos_apply(v, &p, &m, &q);
    p = q;
    ck_assert_int_eq(mmtb_move_parse(v, "f2-f4", &m, err, sizeof err), MMTB_OK);
    mmtb_pos_apply(v, &p, &m, &q);
    ck_assert_int_ne(q.ban_from, -1);
    ck_assert_int_ne(q.ban_to, -1);
    ck_assert_int_eq(mmtb_pos_validate(v, &q, err, sizeof err), MMTB_OK);
    ck_assert(mmtb_pos_ban(v, &q, MMTB_BLACK, &bf, &bt));
    ck_assert_int_eq(bf, pt(v, "f4"));
    ck_assert_int_eq(bt, pt(v, "f2"));
    p = q;
    n = mmtb_gen_moves(v, &p, mv);
    ck_assert(!has_move(v, mv, n, "a4-a7xb2"));
    ck_assert_int_eq(mmtb_move_parse(v, "c4-c5", &m, err, sizeof err), MMTB_OK);
    mmtb_pos_apply(v, &p, &m, &q);
    p = q; /* Black to move: may not slide f4-f2 back. */
    n = mmtb_gen_moves(v, &p, mv);
    ck_assert(!has_move(v, mv, n, "f4-f2"));
    ck_assert(!has_move(v, mv, n, "f4-f2xa4"));
    ck_assert(has_move(v, mv, n, "f4-g4"));

    /* Restrictions are rejected in variants without the rule. */
    struct mmtb_variant *nine = load("nine");
    p = pos(nine, "a4,d7,g7 b2,d2,f4 w");
    p.ban_from = 3;
    ck_assert_int_eq(mmtb_pos_validate(nine, &p, err, sizeof err), MMTB_ERR_INVALID);
    mmtb_variant_free(nine);
    mmtb_variant_free(v);
}
END_TEST

/* ---- predecessors ------------------------------------------------------ */

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static uint32_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (uint32_t)(rng_state >> 11);
}

/* Both directions of "predecessors invert moves" at p:
 * (a) every q in preds(p, QUIET) (resp. CAPTURE) is a valid position with a
 *     quiet (resp. capturing) legal move to p, and appears once;
 * (b) for every legal move of p, p is among the predecessors of the result,
 *     under the flag of the move's kind. */
static long check_inverse_at(const struct mmtb_variant *v, const struct mmtb_pos *p,
                             struct mmtb_pos *buf, int cap)
{
    char err[160], s1[160], s2[160];
    struct mmtb_move mv[MMTB_MAX_MOVES];
    long checked = 0;
    for (int kind = 0; kind < 2; kind++) {
        unsigned flag = kind ? MMTB_PRED_CAPTURE : MMTB_PRED_QUIET;
        int n = mmtb_gen_predecessors(v, p, flag, buf, cap);
        ck_assert_msg(n >= 0, "preds: %d", n);
        for (int i = 0; i < n; i++) {
            const struct mmtb_pos *q = &buf[i];
            mmtb_pos_format(v, q, s1, sizeof s1);
            mmtb_pos_format(v, p, s2, sizeof s2);
            ck_assert_msg(mmtb_pos_validate(v, q, err, sizeof err) == MMTB_OK,
                          "%s: predecessor %s of %s invalid: %s", v->name, s1, s2, err);
            ck_assert(q->remove == 0);
            ck_assert(v->no_reclose || (q->ban_from == -1 && q->ban_to == -1));
            for (int j = 0; j < i; j++)
                ck_assert_msg(!pos_eq(q, &buf[j]), "%s: duplicate predecessor %s", v->name,
                              s1);
            int nm = mmtb_gen_moves(v, q, mv);
            bool found = false;
            for (int j = 0; j < nm && !found; j++) {
                if ((mv[j].remove >= 0) != (kind == 1))
                    continue;
                struct mmtb_pos r;
                mmtb_pos_apply(v, q, &mv[j], &r);
                found = pos_eq(&r, p);
            }
            ck_assert_msg(found, "%s: %s predecessor %s has no move to %s", v->name,
                          kind ? "capture" : "quiet", s1, s2);
            checked++;
        }
    }
    int nm = mmtb_gen_moves(v, p, mv);
    for (int j = 0; j < nm; j++) {
        struct mmtb_pos r;
        mmtb_pos_apply(v, p, &mv[j], &r);
        unsigned flag = mv[j].remove >= 0 ? MMTB_PRED_CAPTURE : MMTB_PRED_QUIET;
        int n = mmtb_gen_predecessors(v, &r, flag, buf, cap);
        ck_assert(n >= 0);
        bool found = false;
        for (int i = 0; i < n && !found; i++)
            found = pos_eq(&buf[i], p);
        mmtb_pos_format(v, p, s1, sizeof s1);
        mmtb_pos_format(v, &r, s2, sizeof s2);
        mmtb_move_format(v, &mv[j], err, sizeof err);
        ck_assert_msg(found, "%s: %s --%s--> %s, but not among its predecessors", v->name, s1,
                      err, s2);
        checked++;
    }
    return checked;
}

/* Random games from the start (reachable positions) and random boards
 * (every stone count, hands, either side to move). */
static void inverse_property(struct mmtb_variant *v, int games, int boards)
{
    int cap = 1 << 14;
    struct mmtb_pos *buf = malloc((size_t)cap * sizeof *buf);
    ck_assert(buf);
    struct mmtb_move mv[MMTB_MAX_MOVES];
    long checked = 0, banned = 0;
    rng_state = 0x9e3779b97f4a7c15ull ^ (uint64_t)v->npoints;
    for (int g = 0; g < games; g++) {
        struct mmtb_pos p;
        mmtb_pos_start(v, &p);
        for (int ply = 0; ply < 200; ply++) {
            checked += check_inverse_at(v, &p, buf, cap);
            banned += p.ban_from >= 0 || p.ban_to >= 0;
            int n = mmtb_gen_moves(v, &p, mv);
            if (n <= 0)
                break;
            /* A uniformly random legal move. */
            int k = (int)(rnd() % (uint32_t)n);
            struct mmtb_pos q;
            mmtb_pos_apply(v, &p, &mv[k], &q);
            p = q;
        }
    }
    for (int b = 0; b < boards; b++) {
        struct mmtb_pos p = {{0, 0}, {0, 0}, 0, 0, -1, -1, 0};
        int tot[2];
        for (int c = 0; c < 2; c++) {
            tot[c] = (int)(rnd() % (uint32_t)(v->stones + 1));
            int on = (int)(rnd() % (uint32_t)(tot[c] + 1));
            if (rnd() % 2)
                on = tot[c]; /* movement phase half of the time */
            for (int k = 0; k < on; k++) {
                int i;
                do
                    i = (int)(rnd() % (uint32_t)v->npoints);
                while ((p.stones[0] | p.stones[1]) & BIT(i));
                p.stones[c] |= BIT(i);
            }
            p.hand[c] = (uint8_t)(tot[c] - on);
        }
        p.side = (uint8_t)(rnd() % 2);
        /* no_reclose: a random live restriction for each side that can
         * have one, two times in three */
        for (int k = 0; v->no_reclose && k < 2; k++) {
            int c = k == 0 ? p.side : p.side ^ 1;
            int8_t live[MMTB_MAX_BANS];
            int n = p.hand[c] ? 0 : mmtb_live_bans(v, p.stones[c], p.stones[c ^ 1], live);
            int8_t code = n && rnd() % 3 ? live[rnd() % (uint32_t)n] : -1;
            if (k == 0)
                p.ban_from = code;
            else
                p.ban_to = code;
        }
        if (mmtb_pos_validate(v, &p, NULL, 0) != MMTB_OK)
            continue;
        checked += check_inverse_at(v, &p, buf, cap);
        banned += p.ban_from >= 0 || p.ban_to >= 0;
    }
    ck_assert_int_gt(checked, 1000);
    if (v->no_reclose)
        ck_assert_int_gt(banned, 50);
    free(buf);
}

START_TEST(preds_inverse)
{
    static const char *const names[] = {"nine",   "nine-nofly", "nine-diag",  "morabaraba",
                                        "lasker", "six",        "three",      "three-diag",
                                        "shah",   "twelve"};
    struct mmtb_variant *v = load(names[_i]);
    inverse_property(v, 6, 400);
    mmtb_variant_free(v);
}
END_TEST

START_TEST(preds_inverse_custom)
{
    /* Rules no built-in (except twelve and shah) exercises: 0-3 removal
     * and passes; 4, 5: Shah's rules on the six board (trapped sides are
     * common); 6-8: no-reclose with flying, with passes and with moving
     * while stones are in hand. */
    static const char *const base[] = {"nine", "nine", "six",  "six",   "six",
                                       "six",  "nine", "six",  "lasker"};
    static const char *const removal[] = {"removal immune", "removal any", NULL, NULL,
                                          "removal any",    "removal standard", NULL, NULL,
                                          NULL};
    static const char *const shah[] = {"place-captures no\nno-move pass\nfirst-mill-removal "
                                       "yes\ntrapped-capture no\nboth-trapped draw",
                                       "no-move pass\ntrapped-capture no"};
    static const char *const extra[] = {"",
                                        "",
                                        "no-move pass",
                                        "place-captures no",
                                        shah[0],
                                        shah[1],
                                        "no-reclose yes",
                                        "no-reclose yes\nno-move pass",
                                        "no-reclose yes"};
    struct mmtb_variant *v = custom(base[_i], removal[_i], extra[_i]);
    if (_i == 4 || _i == 5)
        ck_assert(!v->trapped_capture);
    inverse_property(v, 4, 400);
    mmtb_variant_free(v);
}
END_TEST

/* Hand-checked predecessor lists. */
START_TEST(preds_small)
{
    struct mmtb_variant *v = load("nine");
    struct mmtb_pos buf[4096];
    /* After White's first placement: the only predecessor is the start. */
    struct mmtb_pos p = pos(v, "d7 - b 8 9"), s;
    mmtb_pos_start(v, &s);
    int n = mmtb_gen_predecessors(v, &p, MMTB_PRED_QUIET | MMTB_PRED_CAPTURE, buf, 4096);
    ck_assert_int_eq(n, 1);
    ck_assert(pos_eq(&buf[0], &s));
    ck_assert_int_eq(mmtb_gen_predecessors(v, &p, MMTB_PRED_CAPTURE, buf, 4096), 0);
    /* The start position has none. */
    ck_assert_int_eq(mmtb_gen_predecessors(v, &s, MMTB_PRED_QUIET | MMTB_PRED_CAPTURE, buf, 4096), 0);
    /* White (4 stones, none in hand) has just slid: to d7 from a7 or d6,
     * to g1 from d1, to b2 from b4 or d2 (g7's neighbours are taken): 5
     * slides; or it placed its last stone on any of its 4 points (then
     * Black, to move, has none in hand: unreachable in play, but a legal
     * move under the rules): 9 in all, no captures. */
    p = pos(v, "d7,g7,g1,b2 a4,g4,d5 b");
    n = mmtb_gen_predecessors(v, &p, MMTB_PRED_QUIET, buf, 4096);
    ck_assert_int_eq(n, 9);
    int placed = 0;
    for (int i = 0; i < n; i++)
        placed += buf[i].hand[MMTB_WHITE] == 1;
    ck_assert_int_eq(placed, 4);
    ck_assert_int_eq(mmtb_gen_predecessors(v, &p, MMTB_PRED_CAPTURE, buf, 4096), 0);
    /* Cap too small. */
    ck_assert_int_eq(mmtb_gen_predecessors(v, &p, MMTB_PRED_QUIET, buf, 2), MMTB_ERR_INVALID);
    mmtb_variant_free(v);
}
END_TEST

/* twelve-immune (document 002's optional rule): a mill removes no stone
 * that stands in a mill, diagonal mills included, and nothing at all when
 * every opposing stone does; twelve removes any. */
START_TEST(twelve_immune_removal)
{
    struct mmtb_variant *v = load("twelve-immune"), *t = load("twelve");
    ck_assert_int_eq(v->removal, MMTB_REMOVE_IMMUNE);
    struct mmtb_move mv[MMTB_MAX_MOVES];
    /* g4-g7 closes a7-d7-g7.  Black's b2 stands in b2-d2-f2 and in the
     * diagonal a1-b2-c3; only e4 is in no mill. */
    const char *board = "a7,d7,g4 b2,d2,f2,a1,c3,e4 w";
    struct mmtb_pos p = pos(v, board);
    int n = mmtb_gen_moves(v, &p, mv);
    ck_assert(has_move(v, mv, n, "g4-g7xe4"));
    ck_assert(!has_move(v, mv, n, "g4-g7"));
    static const char *const immune[] = {"g4-g7xb2", "g4-g7xd2", "g4-g7xf2", "g4-g7xa1",
                                         "g4-g7xc3"};
    for (int i = 0; i < 5; i++)
        ck_assert_msg(!has_move(v, mv, n, immune[i]), "%s listed", immune[i]);
    struct mmtb_pos pt_ = pos(t, board);
    int nt = mmtb_gen_moves(t, &pt_, mv);
    ck_assert_int_eq(nt, n + 5);
    for (int i = 0; i < 5; i++)
        ck_assert_msg(has_move(t, mv, nt, immune[i]), "twelve lacks %s", immune[i]);
    /* Every black stone in a mill: the mill is closed and removes nothing. */
    p = pos(v, "a7,d7,g4 b2,d2,f2,a1,c3 w");
    n = mmtb_gen_moves(v, &p, mv);
    ck_assert(has_move(v, mv, n, "g4-g7"));
    for (int i = 0; i < n; i++)
        ck_assert_int_eq(mv[i].remove, -1);
    struct mmtb_pos q;
    struct mmtb_move m;
    char err[128];
    ck_assert_int_eq(mmtb_move_parse(v, "g4-g7", &m, err, sizeof err), MMTB_OK);
    mmtb_pos_apply(v, &p, &m, &q);
    ck_assert_int_eq(__builtin_popcount(q.stones[MMTB_BLACK]), 5);
    ck_assert_int_eq(q.side, MMTB_BLACK);
    mmtb_variant_free(v);
    mmtb_variant_free(t);
}
END_TEST

/* twelve-nine (document 002's "Nine-man variation"): the diagonals still
 * carry slides but close no mill; twelve's diagonals do both, nine-nofly
 * has none. */
START_TEST(twelve_nine_diagonals)
{
    struct mmtb_variant *v = load("twelve-nine"), *t = load("twelve"), *n9 = load("nine-nofly");
    ck_assert_int_eq(v->stones, 9);
    ck_assert_int_eq(v->nlines, 20);
    ck_assert_int_eq(v->nmills, 16);
    struct mmtb_move mv[MMTB_MAX_MOVES];
    /* b4-b6 fills the diagonal a7-b6-c5; a7-b6 and c5-b6 are diagonal slides. */
    const char *board = "a7,c5,b4 d2,f4,g1 w";
    struct mmtb_pos p = pos(v, board);
    int n = mmtb_gen_moves(v, &p, mv);
    ck_assert(has_move(v, mv, n, "a7-b6"));
    ck_assert(has_move(v, mv, n, "c5-b6"));
    ck_assert(has_move(v, mv, n, "b4-b6"));
    ck_assert(!has_move(v, mv, n, "b4-b6xd2"));
    for (int i = 0; i < n; i++)
        ck_assert_int_eq(mv[i].remove, -1);
    ck_assert(!mmtb_closes_mill(v, p.stones[0] | BIT(pt(v, "b6")), pt(v, "b6")));
    /* twelve: the same slide closes the diagonal mill. */
    struct mmtb_pos pt_ = pos(t, board);
    n = mmtb_gen_moves(t, &pt_, mv);
    ck_assert(has_move(t, mv, n, "b4-b6xd2"));
    ck_assert(!has_move(t, mv, n, "b4-b6"));
    /* nine-nofly: no diagonal slide at all. */
    struct mmtb_pos pn = pos(n9, board);
    n = mmtb_gen_moves(n9, &pn, mv);
    ck_assert(!has_move(n9, mv, n, "a7-b6"));
    ck_assert(!has_move(n9, mv, n, "c5-b6"));
    ck_assert(has_move(n9, mv, n, "b4-b6"));
    mmtb_variant_free(v);
    mmtb_variant_free(t);
    mmtb_variant_free(n9);
}
END_TEST

/* Apply the move `token` (which must be legal in p) to p. */
static struct mmtb_pos play(const struct mmtb_variant *v, const struct mmtb_pos *p,
                            const char *token)
{
    struct mmtb_move mv[MMTB_MAX_MOVES], m;
    char err[128];
    int n = mmtb_gen_moves(v, p, mv);
    ck_assert_msg(has_move(v, mv, n, token), "%s is not legal", token);
    ck_assert_int_eq(mmtb_move_parse(v, token, &m, err, sizeof err), MMTB_OK);
    struct mmtb_pos q;
    mmtb_pos_apply(v, p, &m, &q);
    ck_assert_int_eq(mmtb_pos_validate(v, &q, err, sizeof err), MMTB_OK);
    return q;
}

/* Shah's placement: mills remove nothing; the first one's placer becomes the
 * first-mill owner, and a later mill of the other side does not change it. */
START_TEST(shah_first_mill)
{
    struct mmtb_variant *v = load("shah");
    struct mmtb_move mv[MMTB_MAX_MOVES];
    struct mmtb_pos p;
    mmtb_pos_start(v, &p);
    ck_assert_int_eq(p.first_mill, MMTB_FIRST_MILL_NONE);
    static const char *const game[] = {"a7", "f6", "d7", "f4", "g7", "f2"};
    for (int i = 0; i < 6; i++) {
        int n = mmtb_gen_moves(v, &p, mv);
        ck_assert_int_eq(n, 24 - i); /* one move per empty point, no removals */
        for (int k = 0; k < n; k++)
            ck_assert_int_eq(mv[k].remove, -1);
        p = play(v, &p, game[i]);
        ck_assert_int_eq(p.first_mill,
                         i < 4 ? MMTB_FIRST_MILL_NONE : MMTB_FIRST_MILL_OF(MMTB_WHITE));
    }
    ck_assert_int_eq(__builtin_popcount(p.stones[MMTB_BLACK]), 3);
    ck_assert_int_eq(__builtin_popcount(p.stones[MMTB_WHITE]), 3);
    /* while placing, the board decides the owner unless both have a mill
     * (here both do: a7-d7-g7 and f6-f4-f2): a mill without an owner, or an
     * owner without a mill, is no position of the game */
    ck_assert_int_eq(mmtb_pos_validate(v, &p, NULL, 0), MMTB_OK);
    struct mmtb_pos q = p;
    q.first_mill = MMTB_FIRST_MILL_OF(MMTB_BLACK);
    ck_assert_int_eq(mmtb_pos_validate(v, &q, NULL, 0), MMTB_OK);
    q.first_mill = MMTB_FIRST_MILL_NONE;
    char err[200] = "";
    ck_assert_int_eq(mmtb_pos_validate(v, &q, err, sizeof err), MMTB_ERR_INVALID);
    ck_assert_msg(strstr(err, "no first-mill owner") != NULL, "%s", err);
    /* black's f2 back in hand: only white has a mill */
    q.stones[MMTB_BLACK] &= ~(UINT32_C(1) << mmtb_variant_point(v, "f2"));
    q.hand[MMTB_BLACK]++;
    q.side = MMTB_BLACK;
    q.first_mill = MMTB_FIRST_MILL_OF(MMTB_BLACK);
    ck_assert_int_eq(mmtb_pos_validate(v, &q, NULL, 0), MMTB_ERR_INVALID);
    q.first_mill = MMTB_FIRST_MILL_OF(MMTB_WHITE);
    ck_assert_int_eq(mmtb_pos_validate(v, &q, NULL, 0), MMTB_OK);
    /* once both hands are empty no owner is needed: the movement phase */
    q = p;
    q.first_mill = MMTB_FIRST_MILL_NONE;
    q.hand[0] = q.hand[1] = 0;
    ck_assert_int_eq(mmtb_pos_validate(v, &q, NULL, 0), MMTB_OK);
    /* the sides place in turn: the side to move has as many stones in hand
     * as the other or one more (else one would slide while the other
     * places, and a slid mill would have no owner) */
    q = p;
    q.hand[q.side ^ 1] = (uint8_t)(q.hand[q.side] - 1);
    ck_assert_int_eq(mmtb_pos_validate(v, &q, NULL, 0), MMTB_OK);
    q.hand[q.side ^ 1] = (uint8_t)(q.hand[q.side] - 2);
    ck_assert_int_eq(mmtb_pos_validate(v, &q, err, sizeof err), MMTB_ERR_INVALID);
    ck_assert_msg(strstr(err, "as many stones in hand as the other or one more"), "%s", err);
    q.hand[q.side] = 0;
    q.hand[q.side ^ 1] = 1;
    ck_assert_int_eq(mmtb_pos_validate(v, &q, NULL, 0), MMTB_ERR_INVALID);
    /* no removal is pending while placing: a placement captures nothing
     * (found by fuzz_pos: such a position parsed, and its removals led to
     * positions that break the rule of the hands above) */
    struct mmtb_pos r;
    ck_assert_int_ne(mmtb_pos_parse(v, "O@@O**@@/*@*O@OO*/*O**@OO@ b p r 8 0 8 1 0 1 0 0 0 0 0 0 1",
                                    &r, err, sizeof err),
                     MMTB_OK);
    ck_assert_msg(strstr(err, "black to remove with 1 still to place") != NULL, "%s", err);
    q = p; /* white to move with 9 in hand, a mill each */
    q.remove = 1;
    q.first_mill = MMTB_FIRST_MILL_NONE;
    ck_assert_int_eq(mmtb_pos_validate(v, &q, err, sizeof err), MMTB_ERR_INVALID);
    ck_assert_msg(strstr(err, "still to place") != NULL, "%s", err);
    /* in the movement phase a slid mill removes as usual */
    q.hand[0] = q.hand[1] = 0;
    ck_assert_int_eq(mmtb_pos_validate(v, &q, err, sizeof err), MMTB_OK);
    mmtb_variant_free(v);
}
END_TEST

/* Shah's opening: on the full board the first-mill owner removes any
 * opposing stone; the other side only passes; without an owner the full
 * board is a drawn game. */
START_TEST(shah_opening)
{
    struct mmtb_variant *v = load("shah");
    struct mmtb_move mv[MMTB_MAX_MOVES];
    const char *white = "d5,e5,e4,e3,d3,c3,c4,c5,d6,a7,d7,g7";
    const char *black = "f6,f4,f2,d2,b2,b4,b6,g4,g1,d1,a1,a4";
    char text[200];
    snprintf(text, sizeof text, "%s %s w first-mill=w", white, black);
    struct mmtb_pos p = pos(v, text);
    ck_assert_int_eq(p.first_mill, MMTB_FIRST_MILL_OF(MMTB_WHITE));
    ck_assert_int_eq(mmtb_pos_terminal(v, &p), MMTB_NOT_TERMINAL);
    int n = mmtb_gen_moves(v, &p, mv);
    ck_assert_int_eq(n, 12); /* any black stone, even those in mills */
    for (int k = 0; k < n; k++)
        ck_assert(mv[k].from == -1 && mv[k].to == -1 && mv[k].remove >= 0);
    ck_assert(has_move(v, mv, n, "xf4")); /* f2-f4-f6 is a mill */
    struct mmtb_pos q = play(v, &p, "xa1");
    ck_assert_int_eq(q.first_mill, MMTB_FIRST_MILL_NONE);
    ck_assert_int_eq(q.side, MMTB_BLACK);
    ck_assert_int_eq(__builtin_popcount(q.stones[MMTB_BLACK]), 11);
    /* Black slides into a1 from a4, d1 or b2.  a4-a1 closes a1-d1-g1, but
     * White has no slide (a1's neighbours are all black): no capture. */
    n = mmtb_gen_moves(v, &q, mv);
    ck_assert_int_eq(n, 3);
    ck_assert(has_move(v, mv, n, "a4-a1"));
    ck_assert(has_move(v, mv, n, "d1-a1"));
    ck_assert(has_move(v, mv, n, "b2-a1"));
    for (int k = 0; k < n; k++)
        ck_assert_int_eq(mv[k].remove, -1);
    /* White passes while trapped, then may slide once a1 is free again. */
    struct mmtb_pos r = play(v, &q, "d1-a1");
    n = mmtb_gen_moves(v, &r, mv);
    ck_assert_int_eq(n, 1);
    ck_assert_int_eq(mv[0].from, MMTB_MOVE_PASS);
    r = play(v, &q, "a4-a1");
    ck_assert_int_eq(__builtin_popcount(r.stones[MMTB_WHITE]), 12);
    n = mmtb_gen_moves(v, &r, mv);
    ck_assert(has_move(v, mv, n, "a7-a4")); /* a4 freed */
    /* The owner is not to move: a pass, which hands it the removal. */
    snprintf(text, sizeof text, "%s %s b first-mill=w", white, black);
    p = pos(v, text);
    n = mmtb_gen_moves(v, &p, mv);
    ck_assert_int_eq(n, 1);
    ck_assert_int_eq(mv[0].from, MMTB_MOVE_PASS);
    q = play(v, &p, "pass");
    ck_assert_int_eq(q.side, MMTB_WHITE);
    ck_assert_int_eq(q.first_mill, MMTB_FIRST_MILL_OF(MMTB_WHITE));
    /* No owner: nobody removes, nobody slides: drawn (both-trapped draw). */
    snprintf(text, sizeof text, "%s %s w", white, black);
    p = pos(v, text);
    ck_assert_int_eq(mmtb_pos_terminal(v, &p), MMTB_DRAW);
    ck_assert_int_eq(mmtb_gen_moves(v, &p, mv), 0);
    /* An owner must hold a mill; no owner outside Shah. */
    char err[160];
    snprintf(text, sizeof text, "d5,e5,e4 f6,d6 w first-mill=b");
    struct mmtb_pos bad;
    ck_assert_int_ne(mmtb_pos_parse(v, text, &bad, err, sizeof err), MMTB_OK);
    ck_assert_ptr_nonnull(strstr(err, "no mill"));
    struct mmtb_variant *t = load("twelve");
    p = pos(t, "a7,d7,g7 f6,f4,f2 w");
    p.first_mill = MMTB_FIRST_MILL_OF(MMTB_WHITE);
    ck_assert_int_eq(mmtb_pos_validate(t, &p, err, sizeof err), MMTB_ERR_INVALID);
    mmtb_variant_free(t);
    mmtb_variant_free(v);
}
END_TEST

/* Shah's trapped rule: a side with no slide passes; a mill closed while the
 * opponent is already trapped removes nothing, the mill that traps them
 * removes as usual. */
START_TEST(shah_trapped)
{
    struct mmtb_variant *v = load("shah");
    struct mmtb_move mv[MMTB_MAX_MOVES];
    /* Black a7, d7, a4 are boxed in by b6, g7, d6, a1, b4. */
    struct mmtb_pos p = pos(v, "b6,g7,d6,a1,b4,d2 a7,d7,a4 w");
    int n = mmtb_gen_moves(v, &p, mv);
    ck_assert(has_move(v, mv, n, "d2-b2")); /* closes b2-b4-b6 */
    ck_assert(!has_move(v, mv, n, "d2-b2xa7"));
    for (int k = 0; k < n; k++)
        ck_assert_int_eq(mv[k].remove, -1);
    /* With Black to move: a pass, and the game goes on. */
    p.side = MMTB_BLACK;
    ck_assert_int_eq(mmtb_pos_terminal(v, &p), MMTB_NOT_TERMINAL);
    n = mmtb_gen_moves(v, &p, mv);
    ck_assert_int_eq(n, 1);
    ck_assert_int_eq(mv[0].from, MMTB_MOVE_PASS);
    struct mmtb_pos q = play(v, &p, "pass");
    ck_assert(q.stones[0] == p.stones[0] && q.stones[1] == p.stones[1]);
    ck_assert_int_eq(q.side, MMTB_WHITE);
    /* d6 still free: d5-d6 closes b6-d6-f6 and traps Black, and captures. */
    p = pos(v, "b6,f6,g7,a1,b4,d5 a7,d7,a4 w");
    n = mmtb_gen_moves(v, &p, mv);
    ck_assert(has_move(v, mv, n, "d5-d6xa7"));
    ck_assert(has_move(v, mv, n, "d5-d6xd7"));
    ck_assert(has_move(v, mv, n, "d5-d6xa4"));
    ck_assert(!has_move(v, mv, n, "d5-d6"));
    /* Shah with trapped-capture yes: the boxed-in mill captures. */
    const char *text = mmtb_variant_builtin_text("shah");
    const char *k = strstr(text, "trapped-capture no\n");
    ck_assert_ptr_nonnull(k);
    char *buf = malloc(strlen(text) + 8);
    ck_assert_ptr_nonnull(buf);
    size_t pre = (size_t)(k - text);
    memcpy(buf, text, pre);
    strcpy(buf + pre, "trapped-capture yes\n");
    strcat(buf, k + strlen("trapped-capture no\n"));
    struct mmtb_variant *c = NULL;
    char err[160];
    ck_assert_int_eq(mmtb_variant_parse(&c, buf, strlen(buf), "test", err, sizeof err), MMTB_OK);
    ck_assert(c->trapped_capture);
    p = pos(c, "b6,g7,d6,a1,b4,d2 a7,d7,a4 w");
    n = mmtb_gen_moves(c, &p, mv);
    ck_assert(has_move(c, mv, n, "d2-b2xa7"));
    ck_assert(!has_move(c, mv, n, "d2-b2"));
    free(buf);
    mmtb_variant_free(c);
    mmtb_variant_free(v);
}
END_TEST

/* Nine Men's Morris (documents 000, 001, 003): a stone moved out of a mill
 * may move back at once and close it again, removing a stone each time. */
START_TEST(nine_reform_mill)
{
    struct mmtb_variant *v = load("nine");
    struct mmtb_pos p = pos(v, "a7,d7,g7,c4 b2,d2,f4 w");
    p = play(v, &p, "a7-a4");
    p = play(v, &p, "f4-e4");
    p = play(v, &p, "a4-a7xb2");
    ck_assert_int_eq(__builtin_popcount(p.stones[MMTB_BLACK]), 2);
    mmtb_variant_free(v);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("movegen");
    TCase *tc = tcase_create("oracle");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, oracle_moves);
    suite_add_tcase(s, tc);
    tc = tcase_create("perft");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, perft_nine);
    tcase_add_test(tc, perft_others);
    suite_add_tcase(s, tc);
    tc = tcase_create("rules");
    tcase_add_test(tc, terminal_cases);
    tcase_add_test(tc, move_lists);
    tcase_add_test(tc, twelve_no_reclose);
    tcase_add_test(tc, twelve_immune_removal);
    tcase_add_test(tc, twelve_nine_diagonals);
    tcase_add_test(tc, shah_first_mill);
    tcase_add_test(tc, shah_opening);
    tcase_add_test(tc, shah_trapped);
    tcase_add_test(tc, nine_reform_mill);
    suite_add_tcase(s, tc);
    tc = tcase_create("predecessors");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, preds_small);
    tcase_add_loop_test(tc, preds_inverse, 0, 9);
    tcase_add_loop_test(tc, preds_inverse_custom, 0, 9);
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
