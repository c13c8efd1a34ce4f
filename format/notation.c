/*
 * notation.c - positions and moves as text: the simple form, Sanmill FEN on
 * the 24-point boards, and move tokens.  Depends on variant.h (square
 * names) and movegen.h (position validation) only; no I/O.  Parse errors
 * are MMTB_ERR_PARSE with a message naming the offending field.
 *
 * Two optional extra fields, one per family of variants (no variant has
 * both rules), each the last field of either form and a FEN's 18th (our
 * extension; Sanmill writes 17 fields):
 *  - Twelve Men's re-close restrictions (variants with no_reclose), written
 *    only when a restriction is alive: "w:g4-g7" (white's stone on g4 may
 *    not slide back to g7 if that closes a mill), "b:...", or both
 *    comma-separated, white first;
 *  - Shah's first-mill owner (struct mmtb_pos.first_mill), "first-mill=w"
 *    or "first-mill=b", written only when an owner is set and accepted only
 *    in variants with first-mill-removal.
 * What a printed FEN loses: Sanmill's mill history (fields 11-15 are
 * written 0), the plies since the last capture (written 0) and the move
 * number (written 1).  The simple form carries no pending removal.
 */
#include "notation.h"

#include "helpers.h"
#include "movegen.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#define BIT(i) (UINT32_C(1) << (i))

/* Sanmill's board order: inner, middle, outer square, each clockwise from
 * the top middle point. */
static const char *const fen_square[24] = {
    "d5", "e5", "e4", "e3", "d3", "c3", "c4", "c5", /* inner */
    "d6", "f6", "f4", "f2", "d2", "b2", "b4", "b6", /* middle */
    "d7", "g7", "g4", "g1", "d1", "a1", "a4", "a7", /* outer */
};

static const char *const colour_name[2] = {"white", "black"};

/* A token of the input: start and length. */
struct tok {
    const char *s;
    size_t n;
};

/* Split text at whitespace into at most max tokens; returns the number of
 * tokens found (which may exceed max: the extra ones are counted only). */
static int tokenize(const char *text, struct tok *t, int max)
{
    int n = 0;
    const char *c = text;
    for (;;) {
        while (*c && isspace((unsigned char)*c))
            c++;
        if (!*c)
            break;
        const char *b = c;
        while (*c && !isspace((unsigned char)*c))
            c++;
        if (n < max) {
            t[n].s = b;
            t[n].n = (size_t)(c - b);
        }
        n++;
    }
    return n;
}

/* Copy a token into a NUL-terminated buffer (truncated, marked with "..."
 * when too long) for error messages. */
static const char *tokstr(struct tok t, char *buf, size_t len)
{
    if (t.n + 1 <= len) {
        memcpy(buf, t.s, t.n);
        buf[t.n] = 0;
    } else {
        snprintf(buf, len, "%.*s...", (int)(len - 4), t.s);
    }
    for (char *c = buf; *c; c++)
        if (!isprint((unsigned char)*c))
            *c = '?';
    return buf;
}

/* Point index of a square name given by pointer and length, or -1. */
static int square(const struct mmtb_variant *v, const char *s, size_t n)
{
    char name[MMTB_MAX_NAME];
    if (n == 0 || n >= sizeof name)
        return -1;
    memcpy(name, s, n);
    name[n] = 0;
    return mmtb_variant_point(v, name);
}

/* Parse a non-negative decimal number of at most 19 digits. */
static bool number(struct tok t, unsigned long long *out)
{
    if (t.n == 0 || t.n > 19)
        return false;
    unsigned long long x = 0;
    for (size_t i = 0; i < t.n; i++) {
        if (!isdigit((unsigned char)t.s[i]))
            return false;
        x = x * 10 + (unsigned)(t.s[i] - '0');
    }
    *out = x;
    return true;
}

/* A number field in [lo, hi]. */
static int number_field(struct tok t, int field, const char *what, long lo, long hi,
                        long *out, char *err, size_t errlen)
{
    unsigned long long x;
    char b[24];
    if (!number(t, &x) || (long long)x < lo || x > (unsigned long long)hi)
        return mmtb_fail(err, errlen, MMTB_ERR_PARSE,
                         "field %d (%s): expected a number from %ld to %ld, got '%s'", field, what,
                         lo, hi, tokstr(t, b, sizeof b));
    *out = (long)x;
    return MMTB_OK;
}

/* The side field: 'w' or 'b'. */
static int side_field(struct tok t, int field, uint8_t *side, char *err, size_t errlen)
{
    char b[24];
    if (t.n == 1 && (t.s[0] == 'w' || t.s[0] == 'b')) {
        *side = t.s[0] == 'w' ? MMTB_WHITE : MMTB_BLACK;
        return MMTB_OK;
    }
    return mmtb_fail(err, errlen, MMTB_ERR_PARSE, "field %d (side): expected 'w' or 'b', got '%s'",
                     field, tokstr(t, b, sizeof b));
}

/* A comma-separated square list, or "-" for none. */
static int squares_field(const struct mmtb_variant *v, struct tok t, int field,
                         const char *what, uint32_t seen, uint32_t *mask, char *err,
                         size_t errlen)
{
    char b[40];
    *mask = 0;
    if (t.n == 1 && t.s[0] == '-')
        return MMTB_OK;
    const char *c = t.s, *end = t.s + t.n;
    for (;;) {
        const char *e = memchr(c, ',', (size_t)(end - c));
        if (!e)
            e = end;
        struct tok sq = {c, (size_t)(e - c)};
        if (sq.n == 0)
            return mmtb_fail(err, errlen, MMTB_ERR_PARSE,
                             "field %d (%s): empty square name in '%s'", field, what,
                             tokstr(t, b, sizeof b));
        int pt = square(v, sq.s, sq.n);
        if (pt < 0)
            return mmtb_fail(err, errlen, MMTB_ERR_PARSE, "field %d (%s): unknown square '%s'",
                             field, what, tokstr(sq, b, sizeof b));
        if ((*mask | seen) & BIT(pt))
            return mmtb_fail(err, errlen, MMTB_ERR_PARSE, "field %d (%s): square %s listed twice",
                             field, what, v->point_name[pt]);
        *mask |= BIT(pt);
        if (e == end)
            break;
        c = e + 1;
    }
    return MMTB_OK;
}

/* The optional last field "first-mill=w|b" of either form: when t is that
 * field, set *fm and return 1; return 0 when t is something else; a
 * malformed value is a parse error. */
#define FIRST_MILL_KEY "first-mill="
static int first_mill_field(const struct mmtb_variant *v, struct tok t, int field, uint8_t *fm,
                            char *err, size_t errlen)
{
    size_t k = sizeof FIRST_MILL_KEY - 1;
    char b[40];
    if (t.n < k || strncmp(t.s, FIRST_MILL_KEY, k) != 0)
        return 0;
    if (!v->first_mill_removal)
        return mmtb_fail(err, errlen, MMTB_ERR_PARSE,
                         "field %d (first mill): variant %s has no first-mill-removal", field,
                         v->name);
    if (t.n != k + 1 || (t.s[k] != 'w' && t.s[k] != 'b'))
        return mmtb_fail(err, errlen, MMTB_ERR_PARSE,
                         "field %d (first mill): expected first-mill=w or "
                         "first-mill=b, got '%s'",
                         field, tokstr(t, b, sizeof b));
    *fm = MMTB_FIRST_MILL_OF(t.s[k] == 'w' ? MMTB_WHITE : MMTB_BLACK);
    return 1;
}

/* The restrictions field ("w:Y-X", "b:Y-X" or both, comma-separated): sets
 * q->ban_from/ban_to for q->side (already parsed).  Whether each restriction
 * bites is left to mmtb_pos_validate. */
static int bans_field(const struct mmtb_variant *v, struct tok t, int field,
                      struct mmtb_pos *q, char *err, size_t errlen)
{
    char b[40];
    bool seen[2] = {false, false};
    const char *c = t.s, *end = t.s + t.n;
    for (;;) {
        const char *e = memchr(c, ',', (size_t)(end - c));
        if (!e)
            e = end;
        struct tok it = {c, (size_t)(e - c)};
        const char *dash = it.n > 2 ? memchr(it.s + 2, '-', it.n - 2) : NULL;
        if (it.n < 2 || (it.s[0] != 'w' && it.s[0] != 'b') || it.s[1] != ':' || !dash)
            return mmtb_fail(
                err, errlen, MMTB_ERR_PARSE,
                "field %d (restrictions): expected 'w:FROM-TO' or 'b:FROM-TO', got '%s'", field,
                tokstr(it, b, sizeof b));
        int col = it.s[0] == 'w' ? MMTB_WHITE : MMTB_BLACK;
        int y = square(v, it.s + 2, (size_t)(dash - it.s - 2));
        int x = square(v, dash + 1, (size_t)(e - dash - 1));
        if (y < 0 || x < 0)
            return mmtb_fail(err, errlen, MMTB_ERR_PARSE,
                             "field %d (restrictions): unknown square in '%s'", field,
                             tokstr(it, b, sizeof b));
        if (seen[col])
            return mmtb_fail(err, errlen, MMTB_ERR_PARSE,
                             "field %d (restrictions): two restrictions for %s", field,
                             colour_name[col]);
        seen[col] = true;
        if (!v->no_reclose)
            return mmtb_fail(err, errlen, MMTB_ERR_PARSE,
                             "field %d (restrictions): variant %s has no re-close rule", field,
                             v->name);
        int code = mmtb_edge_code(v, y, x);
        if (code < 0 || code >= MMTB_MAX_BANS)
            return mmtb_fail(err, errlen, MMTB_ERR_PARSE,
                             "field %d (restrictions): %s and %s are not neighbours", field,
                             v->point_name[y], v->point_name[x]);
        if (col == q->side)
            q->ban_from = (int8_t)code;
        else
            q->ban_to = (int8_t)code;
        if (e == end)
            break;
        c = e + 1;
    }
    return MMTB_OK;
}

/* Final check shared by both notations: validate, as a parse error. */
static int finish(const struct mmtb_variant *v, const struct mmtb_pos *p, char *err,
                  size_t errlen)
{
    char why[160];
    if (mmtb_pos_validate(v, p, why, sizeof why) != MMTB_OK)
        return mmtb_fail(err, errlen, MMTB_ERR_PARSE, "%s", why);
    return MMTB_OK;
}

/* The simple form: WHITE BLACK SIDE [WHITE_HAND BLACK_HAND] [RESTRICTIONS]. */
static int parse_simple(const struct mmtb_variant *v, const char *text, struct mmtb_pos *p,
                        char *err, size_t errlen)
{
    struct tok t[6];
    int n = tokenize(text, t, 6);
    struct mmtb_pos q;
    memset(&q, 0, sizeof q);
    q.ban_from = q.ban_to = -1;
    int rc, fields = n;
    bool bans = false; /* the restrictions: the last field, the only one with a ':' */
    if ((n == 4 || n == 6) && (rc = first_mill_field(v, t[n - 1], n, &q.first_mill, err, errlen))) {
        if (rc < 0)
            return rc;
        n--;
    } else if ((n == 4 || n == 6) && memchr(t[n - 1].s, ':', t[n - 1].n)) {
        bans = true;
        n--;
    }
    if (n != 3 && n != 5)
        return mmtb_fail(err, errlen, MMTB_ERR_PARSE,
                         "expected 3 or 5 fields (WHITE BLACK SIDE [WHITE_HAND BLACK_HAND]), "
                         "then first-mill=w|b in Shah or the re-close restrictions, got %d",
                         fields);
    if ((rc = squares_field(v, t[0], 1, "white", 0, &q.stones[0], err, errlen)) ||
        (rc = squares_field(v, t[1], 2, "black", q.stones[0], &q.stones[1], err, errlen)) ||
        (rc = side_field(t[2], 3, &q.side, err, errlen)))
        return rc;
    if (n == 5) {
        long h[2];
        if ((rc = number_field(t[3], 4, "white hand", 0, v->stones, &h[0], err, errlen)) ||
            (rc = number_field(t[4], 5, "black hand", 0, v->stones, &h[1], err, errlen)))
            return rc;
        q.hand[0] = (uint8_t)h[0];
        q.hand[1] = (uint8_t)h[1];
    }
    if (bans && (rc = bans_field(v, t[n], n + 1, &q, err, errlen)))
        return rc;
    if ((rc = finish(v, &q, err, errlen)))
        return rc;
    *p = q;
    return MMTB_OK;
}

bool mmtb_fen_supported(const struct mmtb_variant *v)
{
    if (!v || v->npoints != 24)
        return false;
    for (int i = 0; i < 24; i++)
        if (mmtb_variant_point(v, fen_square[i]) < 0)
            return false;
    return true;
}

/* What each Sanmill FEN field holds, by its 1-based number. */
static const char *const fen_field_name[18] = {
    "",
    "board",
    "side",
    "phase",
    "action",
    "white on board",
    "white in hand",
    "black on board",
    "black in hand",
    "white to remove",
    "black to remove",
    "last mill square",
    "last mill square",
    "last mill square",
    "last mill square",
    "formed mills",
    "plies since capture",
    "move number",
};

/* Checks the field count, 17, or 18 with first-mill=w|b (read into q) or
 * the restrictions (*bans set, read later). */
static int fen_count_fields(const struct mmtb_variant *v, const struct tok *t, int n,
                            struct mmtb_pos *q, bool *bans, char *err, size_t errlen)
{
    int rc;
    if (n == 18 && (rc = first_mill_field(v, t[17], 18, &q->first_mill, err, errlen))) {
        if (rc < 0)
            return rc;
        n--;
    } else if (n == 18) {
        *bans = true;
        n--;
    }
    if (n != 17)
        return mmtb_fail(
            err, errlen, MMTB_ERR_PARSE,
            "FEN: expected 17 fields (18 with first-mill=w|b or the restrictions), got %d", n);
    return MMTB_OK;
}

/* Field 1: three groups of eight cells, 'O' white, '@' black, '*' empty. */
static int fen_board(const struct mmtb_variant *v, struct tok t, struct mmtb_pos *q, char *err,
                     size_t errlen)
{
    char b[40];
    if (t.n != 26 || t.s[8] != '/' || t.s[17] != '/')
        return mmtb_fail(err, errlen, MMTB_ERR_PARSE,
                         "field 1 (board): expected 3 groups of 8 cells separated by '/', got '%s'",
                         tokstr(t, b, sizeof b));
    for (int i = 0; i < 24; i++) {
        char c = t.s[i + i / 8];
        int pt = mmtb_variant_point(v, fen_square[i]);
        if (c == 'O')
            q->stones[0] |= BIT(pt);
        else if (c == '@')
            q->stones[1] |= BIT(pt);
        else if (c != '*')
            return mmtb_fail(err, errlen, MMTB_ERR_PARSE,
                             "field 1 (board): cell %d (%s) is '%c', expected 'O', '@' or '*'",
                             i + 1, fen_square[i], isprint((unsigned char)c) ? c : '?');
    }
    return MMTB_OK;
}

/* Fields 3 and 4: the phase (r, p, m, o) and the action (p, s, r). */
static int fen_phase_action(const struct tok *t, char *phase, char *action, char *err,
                            size_t errlen)
{
    char b[40];
    if (t[2].n != 1 || !strchr("rpmo", t[2].s[0]))
        return mmtb_fail(err, errlen, MMTB_ERR_PARSE,
                         "field 3 (phase): expected 'r', 'p', 'm' or 'o', got '%s'",
                         tokstr(t[2], b, sizeof b));
    if (t[3].n != 1 || !strchr("psr", t[3].s[0]))
        return mmtb_fail(err, errlen, MMTB_ERR_PARSE,
                         "field 4 (action): expected 'p', 's' or 'r', got '%s'",
                         tokstr(t[3], b, sizeof b));
    *phase = t[2].s[0];
    *action = t[3].s[0];
    return MMTB_OK;
}

/* Fields 5 to 17, numbers: the stones on the board must match field 1;
 * the hands and the removal pending (of the side to move only) go to q. */
static int fen_counts(const struct mmtb_variant *v, const struct tok *t, struct mmtb_pos *q,
                      char *err, size_t errlen)
{
    const char *const *what = fen_field_name;
    long num[18];
    int rc;
    for (int f = 5; f <= 17; f++) {
        long hi = f <= 8 ? v->stones : f <= 10 ? 3 : 2147483647L;
        if ((rc = number_field(t[f - 1], f, what[f], 0, hi, &num[f], err, errlen)))
            return rc;
    }
    for (int c = 0; c < 2; c++) {
        int f = 5 + 2 * c;
        int on = __builtin_popcount(q->stones[c]);
        if (num[f] != on)
            return mmtb_fail(err, errlen, MMTB_ERR_PARSE,
                             "field %d (%s): %ld, but the board shows %d %s stones", f, what[f],
                             num[f], on, colour_name[c]);
        q->hand[c] = (uint8_t)num[f + 1];
    }
    int s = q->side;
    if (num[10 - s] != 0)
        return mmtb_fail(err, errlen, MMTB_ERR_PARSE, "field %d (%s): %ld, but %s is not to move",
                         10 - s, what[10 - s], num[10 - s], colour_name[s ^ 1]);
    q->remove = (uint8_t)num[9 + s];
    return MMTB_OK;
}

/* The phase and the action must agree with the hands, the removal
 * pending and the board in q. */
static int fen_phase_agrees(const struct mmtb_variant *v, const struct mmtb_pos *q, char phase,
                            char action, char *err, size_t errlen)
{
    const char *const *what = fen_field_name;
    int s = q->side;
    bool in_hand = q->hand[0] || q->hand[1];
    if (action == 'r' && q->remove == 0)
        return mmtb_fail(err, errlen, MMTB_ERR_PARSE,
                         "field 4 (action): 'r' (remove), but field %d (%s) is 0", 9 + s,
                         what[9 + s]);
    if (action != 'r' && q->remove != 0)
        return mmtb_fail(err, errlen, MMTB_ERR_PARSE,
                         "field 4 (action): '%c', but field %d (%s) is %d", action, 9 + s,
                         what[9 + s], q->remove);
    if (action == 'p' && q->hand[s] == 0)
        return mmtb_fail(err, errlen, MMTB_ERR_PARSE,
                         "field 4 (action): 'p' (place), but %s has no stone in hand",
                         colour_name[s]);
    if (action == 's' && q->hand[s] != 0 && !v->place_or_move)
        return mmtb_fail(err, errlen, MMTB_ERR_PARSE,
                         "field 4 (action): 's' (move), but %s has stones in hand", colour_name[s]);
    if (phase == 'm' && in_hand)
        return mmtb_fail(err, errlen, MMTB_ERR_PARSE,
                         "field 3 (phase): 'm' (moving), but stones are in hand");
    if (phase == 'p' && !in_hand && q->remove == 0)
        return mmtb_fail(err, errlen, MMTB_ERR_PARSE,
                         "field 3 (phase): 'p' (placing), but no stones are in hand");
    if (phase == 'r' && (q->stones[0] | q->stones[1]))
        return mmtb_fail(err, errlen, MMTB_ERR_PARSE,
                         "field 3 (phase): 'r' (ready), but the board is not empty");
    return MMTB_OK;
}

/* Sanmill FEN, 17 fields (see KNOWN_RESULTS.md). */
static int parse_fen(const struct mmtb_variant *v, const char *text, struct mmtb_pos *p, char *err,
                     size_t errlen)
{
    if (!mmtb_fen_supported(v))
        return mmtb_fail(err, errlen, MMTB_ERR_PARSE,
                         "FEN needs a 24-point board with the standard square names; "
                         "variant %s has none",
                         v->name);
    struct tok t[18];
    int n = tokenize(text, t, 18);
    struct mmtb_pos q;
    memset(&q, 0, sizeof q);
    q.ban_from = q.ban_to = -1;
    bool bans = false; /* an 18th field other than first-mill=: the restrictions */
    char phase = 0, action = 0;
    int rc;
    if ((rc = fen_count_fields(v, t, n, &q, &bans, err, errlen)) ||
        (rc = fen_board(v, t[0], &q, err, errlen)) ||
        (rc = side_field(t[1], 2, &q.side, err, errlen)) ||
        (rc = fen_phase_action(t, &phase, &action, err, errlen)) ||
        (rc = fen_counts(v, t, &q, err, errlen)) ||
        (rc = fen_phase_agrees(v, &q, phase, action, err, errlen)))
        return rc;
    if (bans && (rc = bans_field(v, t[17], 18, &q, err, errlen)))
        return rc;

    if ((rc = finish(v, &q, err, errlen)))
        return rc;
    *p = q;
    return MMTB_OK;
}

int mmtb_pos_parse(const struct mmtb_variant *v, const char *text, struct mmtb_pos *p,
                   char *err, size_t errlen)
{
    if (err && errlen)
        err[0] = 0;
    if (!v || !text || !p)
        return mmtb_fail(err, errlen, MMTB_ERR_PARSE, "no variant, text or position");
    if (strchr(text, '/'))
        return parse_fen(v, text, p, err, errlen);
    return parse_simple(v, text, p, err, errlen);
}

/* Append to a bounded buffer, tracking the full length (snprintf style). */
struct out {
    char *buf;
    size_t len, n;
};

static void put(struct out *o, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    size_t room = o->n < o->len ? o->len - o->n : 0;
    int k = vsnprintf(room ? o->buf + o->n : NULL, room, fmt, ap);
    va_end(ap);
    if (k > 0)
        o->n += (size_t)k;
}

/* The restrictions field, when a restriction is set (" w:g4-g7,b:..."). */
static void put_bans(const struct mmtb_variant *v, const struct mmtb_pos *p, struct out *o)
{
    bool first = true;
    for (int c = 0; c < 2; c++) {
        int y, x;
        if (!mmtb_pos_ban(v, p, c, &y, &x))
            continue;
        put(o, "%s%c:%s-%s", first ? " " : ",", c ? 'b' : 'w', v->point_name[y],
            v->point_name[x]);
        first = false;
    }
}

int mmtb_pos_format(const struct mmtb_variant *v, const struct mmtb_pos *p, char *buf,
                    size_t len)
{
    struct out o = {buf, len, 0};
    if (buf && len)
        buf[0] = 0;
    for (int c = 0; c < 2; c++) {
        uint32_t m = p->stones[c] & v->full;
        if (c)
            put(&o, " ");
        if (!m)
            put(&o, "-");
        for (bool first = true; m; m &= m - 1, first = false)
            put(&o, "%s%s", first ? "" : ",", v->point_name[__builtin_ctz(m)]);
    }
    put(&o, " %c", p->side ? 'b' : 'w');
    if (p->hand[0] || p->hand[1])
        put(&o, " %d %d", p->hand[0], p->hand[1]);
    if (p->first_mill == MMTB_FIRST_MILL_OF(MMTB_WHITE) || p->first_mill == MMTB_FIRST_MILL_OF(MMTB_BLACK))
        put(&o, " " FIRST_MILL_KEY "%c", p->first_mill == MMTB_FIRST_MILL_OF(MMTB_WHITE) ? 'w' : 'b');
    put_bans(v, p, &o);
    return (int)o.n;
}

int mmtb_pos_format_fen(const struct mmtb_variant *v, const struct mmtb_pos *p, char *buf,
                        size_t len)
{
    if (!mmtb_fen_supported(v))
        return MMTB_ERR_UNSUPPORTED;
    char board[27];
    for (int i = 0, k = 0; i < 24; i++) {
        if (i && i % 8 == 0)
            board[k++] = '/';
        int pt = mmtb_variant_point(v, fen_square[i]);
        board[k++] = (p->stones[0] & BIT(pt)) ? 'O' : (p->stones[1] & BIT(pt)) ? '@' : '*';
    }
    board[26] = 0;
    int s = p->side & 1;
    char phase = (p->hand[0] || p->hand[1]) ? 'p' : 'm';
    char action = p->remove ? 'r' : p->hand[s] ? 'p' : 's';
    int rem[2] = {0, 0};
    rem[s] = p->remove;
    const char *fm = p->first_mill == MMTB_FIRST_MILL_OF(MMTB_WHITE)   ? " " FIRST_MILL_KEY "w"
                     : p->first_mill == MMTB_FIRST_MILL_OF(MMTB_BLACK) ? " " FIRST_MILL_KEY "b"
                                                                       : "";
    struct out o = {buf, len, 0};
    if (buf && len)
        buf[0] = 0;
    put(&o, "%s %c %c %c %d %d %d %d %d %d 0 0 0 0 0 0 1%s", board, s ? 'b' : 'w', phase,
        action, __builtin_popcount(p->stones[0]), p->hand[0], __builtin_popcount(p->stones[1]),
        p->hand[1], rem[0], rem[1], fm);
    put_bans(v, p, &o);
    return (int)o.n;
}

/* Move tokens: "pass", "xb4" (removal; "x-" when nothing is removable),
 * "d6", "d6xb4", "d6-d5", "d6-d5xb4". */
int mmtb_move_parse(const struct mmtb_variant *v, const char *text, struct mmtb_move *m,
                    char *err, size_t errlen)
{
    char b[40];
    if (err && errlen)
        err[0] = 0;
    if (!v || !text || !m)
        return mmtb_fail(err, errlen, MMTB_ERR_PARSE, "no variant, text or move");
    struct tok t[2];
    int nt = tokenize(text, t, 2);
    if (nt != 1)
        return mmtb_fail(err, errlen, MMTB_ERR_PARSE,
                         "move: expected one token like d6, d6-d5, d6-d5xb4 or xb4, "
                         "got %d tokens",
                         nt);
    const char *s = t[0].s, *end = s + t[0].n;
    struct mmtb_move r = {-1, -1, -1};
    if (t[0].n == 4 && !memcmp(s, "pass", 4)) {
        r.from = MMTB_MOVE_PASS;
        *m = r;
        return MMTB_OK;
    }
    /* Pure removal. */
    if (s[0] == 'x' && square(v, s, t[0].n) < 0) {
        struct tok sq = {s + 1, t[0].n - 1};
        if (sq.n == 1 && sq.s[0] == '-') {
            *m = r;
            return MMTB_OK;
        }
        int pt = square(v, sq.s, sq.n);
        if (pt < 0)
            return mmtb_fail(err, errlen, MMTB_ERR_PARSE,
                             "move '%s': unknown square '%s' after 'x'", tokstr(t[0], b, 20),
                             tokstr(sq, b + 20, 20));
        r.remove = (int8_t)pt;
        *m = r;
        return MMTB_OK;
    }
    /* [FROM-]TO[xREMOVE]: try each split at an 'x' whose sides are squares,
     * then the whole rest as TO. */
    const char *dash = memchr(s, '-', t[0].n);
    const char *rest = s;
    if (dash) {
        struct tok fr = {s, (size_t)(dash - s)};
        int pt = square(v, fr.s, fr.n);
        if (pt < 0)
            return mmtb_fail(err, errlen, MMTB_ERR_PARSE,
                             "move '%s': unknown square '%s' before '-'", tokstr(t[0], b, 20),
                             tokstr(fr, b + 20, 20));
        r.from = (int8_t)pt;
        rest = dash + 1;
    }
    int to = square(v, rest, (size_t)(end - rest));
    if (to < 0) {
        for (const char *x = rest; x < end; x++) {
            if (*x != 'x')
                continue;
            int a = square(v, rest, (size_t)(x - rest));
            int c = square(v, x + 1, (size_t)(end - x - 1));
            if (a >= 0 && c >= 0) {
                to = a;
                r.remove = (int8_t)c;
                break;
            }
        }
    }
    if (to < 0) {
        struct tok tt = {rest, (size_t)(end - rest)};
        return mmtb_fail(err, errlen, MMTB_ERR_PARSE,
                         "move '%s': cannot read '%s' as SQUARE or SQUARExSQUARE",
                         tokstr(t[0], b, 20), tokstr(tt, b + 20, 20));
    }
    r.to = (int8_t)to;
    *m = r;
    return MMTB_OK;
}

int mmtb_move_format(const struct mmtb_variant *v, const struct mmtb_move *m, char *buf,
                     size_t len)
{
    struct out o = {buf, len, 0};
    if (buf && len)
        buf[0] = 0;
    if (m->from == MMTB_MOVE_PASS)
        return snprintf(buf, len, "pass");
    if (m->to < 0)
        return snprintf(buf, len, "x%s", m->remove >= 0 ? v->point_name[m->remove] : "-");
    if (m->from >= 0)
        put(&o, "%s-", v->point_name[m->from]);
    put(&o, "%s", v->point_name[m->to]);
    if (m->remove >= 0)
        put(&o, "x%s", v->point_name[m->remove]);
    return (int)o.n;
}
