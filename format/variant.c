/*
 * variant.c - Morris variants as data: the descriptor parser and validator,
 * the canonical re-serialisation and its fingerprint, the compiled-in
 * built-ins, and the symmetry group computed from the board.  Depends only
 * on variant.h and the C library; no threads, no I/O beyond reading a
 * descriptor file in mmtb_variant_load.
 */

/*
 * Descriptor text format (also documented in docs/VARIANTS.md)
 * ------------------------------------------------------------
 * Line oriented.  '#' starts a comment that runs to the end of the line;
 * blank lines are ignored; otherwise a line is `KEY VALUE...`, the fields
 * separated by spaces or tabs (a trailing '\r' is whitespace too).  Control
 * bytes other than tab/CR are errors outside comments.  Keys may come in any
 * order; each scalar key at most once.
 *
 *   KEY                  VALUE                 DEFAULT   NOTES
 *   name                 ID                    required  1-31 characters of [a-z0-9-]
 *   title                TEXT...               the name  free text to the end of the
 *                                                        line, up to 95 bytes; runs of
 *                                                        whitespace become one space
 *   stones               N                     required  per side; 1..MMTB_MAX_POINTS/2
 *                                                        and at most half the points
 *   flying               off | N               off       a side with at most N stones
 *                                                        (board + hand) flies;
 *                                                        1 <= N <= stones
 *   min-stones           N                     3         a side with fewer stones
 *                                                        (board + hand) has lost;
 *                                                        1 <= N <= stones
 *   removal              standard|any|immune   standard
 *   place-captures       yes | no              yes
 *   first-mill-wins      yes | no              no
 *   no-move              lose | pass           lose
 *   full-board-draw      yes | no              no
 *   place-or-move        yes | no              no        Lasker
 *   no-reclose           yes | no              no        Twelve Men's
 *   first-mill-removal   yes | no              no        Shah; needs place-captures,
 *                                                        first-mill-wins, place-or-move
 *                                                        and no-reclose all "no"
 *   trapped-capture      yes | no              yes       Shah: no
 *   both-trapped         pass | draw           pass      Shah: draw
 *   point                NAME X Y              -         one entry per point
 *   line                 P1 P2 ...             -         one entry per board line
 *   mill                 P1 P2 ...             -         one entry per mill
 *
 * point: the order of the point lines is the point index (bit index).  NAME
 * is [a-z][0-9]+ (at most 15 characters); X and Y are 0..127 grid
 * coordinates with y increasing upwards (a1 = 0 0).  At most
 * MMTB_MAX_POINTS points, no two with the same name or the same
 * coordinates.
 *
 * line: at least 2 distinct points; consecutive points are adjacent (a
 * stone slides between them).  At most MMTB_MAX_LINES lines, no line twice
 * (in either direction); every point must be on some line.
 *
 * mill: at least 2 distinct points that are consecutive points along one
 * line (either direction).  At most MMTB_MAX_MILLS mills, no two with the
 * same points.
 *
 * name, stones and at least one point, line and mill are required.  Mills
 * are numbered in the order given (bit m of mills_at[]).  Errors are
 * reported as "SOURCE:LINE: problem"; problems found only after the whole
 * text is read (a missing key, the symmetry group) name the last line.
 *
 * Canonical form (struct mmtb_variant.text): every key in the order of the
 * table above, defaults included, one space between fields, no comments,
 * each line ending in '\n': name, title, stones, flying, min-stones,
 * removal, place-captures, first-mill-wins, no-move, full-board-draw,
 * place-or-move, no-reclose, then first-mill-removal, trapped-capture and
 * both-trapped only when not at their defaults, the points in index order,
 * the lines as given, the mills in the order given, each written in the
 * direction of the first line that contains it.  fingerprint = 64-bit
 * FNV-1a of those bytes.
 *
 * Symmetry: every permutation of the points that maps the adjacency onto
 * itself and the set of mills onto itself, found by backtracking (points in
 * breadth-first order along the adjacency, pruned on degree, mill count,
 * adjacency to the points already mapped and on completed mills).  The
 * permutations are sorted lexicographically by their arrays sym[g][0..n-1];
 * the identity is therefore sym[0].  More than MMTB_MAX_SYMS is an error.
 */
#include "variant.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The table generated from data/variants/ by embed_variants.cmake. */
struct mmtb_builtin_variant {
    const char *name;
    const char *text;
};
extern const struct mmtb_builtin_variant mmtb_builtin_variants[];

#define MAX_FILE_BYTES (1u << 20) /* descriptor files larger than this are refused */
#define MAX_TOKENS (MMTB_MAX_POINTS + 2)
#define SYM_NODE_BUDGET 20000000L /* backtracking nodes before giving up */

enum key {
    K_NAME,
    K_TITLE,
    K_STONES,
    K_FLYING,
    K_MIN_STONES,
    K_REMOVAL,
    K_PLACE_CAPTURES,
    K_FIRST_MILL_WINS,
    K_NO_MOVE,
    K_FULL_BOARD_DRAW,
    K_PLACE_OR_MOVE,
    K_NO_RECLOSE,
    K_FIRST_MILL_REMOVAL,
    K_TRAPPED_CAPTURE,
    K_BOTH_TRAPPED,
    K_POINT,
    K_LINE,
    K_MILL,
    NKEYS
};

static const char *const key_names[NKEYS] = {
    "name",          "title",          "stones",          "flying",  "min-stones",
    "removal",       "place-captures", "first-mill-wins", "no-move", "full-board-draw",
    "place-or-move", "no-reclose",     "first-mill-removal", "trapped-capture",
    "both-trapped",  "point",          "line",            "mill",
};

static const char *const removal_names[] = {"standard", "any", "immune"};
static const char *const nomove_names[] = {"lose", "pass"};
static const char *const trapped_names[] = {"pass", "draw"};

struct tok {
    const char *p;
    size_t n;
};

/* A `line` or `mill` entry remembered by pass 1 for the later passes. */
struct deferred {
    unsigned long lineno;
    size_t start, end; /* byte range of the text line */
};

struct parser {
    const char *src;
    size_t len;
    const char *source;
    char *err;
    size_t errlen;
    struct mmtb_variant *v;
    unsigned long key_line[NKEYS]; /* line of the (first) scalar key; 0: unseen */
    unsigned long point_line[MMTB_MAX_POINTS];
    unsigned long last_line;
    int ndef_lines, ndef_mills;
    struct deferred def_lines[MMTB_MAX_LINES], def_mills[MMTB_MAX_MILLS];
    int mill_line[MMTB_MAX_MILLS];  /* the line a mill lies on (canonical order) */
    int mill_start[MMTB_MAX_MILLS]; /* index of its first point along that line */
    int mill_len[MMTB_MAX_MILLS];
};

/* Write "SOURCE:LINE: message" into the caller's buffer; returns
 * MMTB_ERR_PARSE. */
static int fail(struct parser *ps, unsigned long lineno, const char *fmt, ...)
{
    if (ps->err && ps->errlen > 0) {
        int n = snprintf(ps->err, ps->errlen, "%s:%lu: ", ps->source, lineno);
        if (n >= 0 && (size_t)n < ps->errlen) {
            va_list ap;
            va_start(ap, fmt);
            vsnprintf(ps->err + n, ps->errlen - (size_t)n, fmt, ap);
            va_end(ap);
        }
    }
    return MMTB_ERR_PARSE;
}

/* A token made printable for an error message: at most 24 bytes, anything
 * outside printable ASCII shown as '?', "..." when cut. */
static const char *show(const struct tok *t, char buf[32])
{
    size_t n = t->n < 24 ? t->n : 24, i;
    for (i = 0; i < n; i++) {
        unsigned char c = (unsigned char)t->p[i];
        buf[i] = (c > 0x20 && c < 0x7f) ? (char)c : '?';
    }
    if (t->n > n) {
        memcpy(buf + n, "...", 3);
        n += 3;
    }
    buf[n] = '\0';
    return buf;
}

/* True when the token is exactly the string s. */
static bool tok_is(const struct tok *t, const char *s)
{
    size_t n = strlen(s);
    return t->n == n && memcmp(t->p, s, n) == 0;
}

/* Field separators (a CR before the newline is one too). */
static bool is_space(unsigned char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

/*
 * Split the text line [start, end) into tokens after cutting the comment.
 * Returns the number of tokens, or a negative status after reporting (bad
 * control byte, more than `max` tokens).  *rest points just past the first
 * token (for `title`).
 */
static int tokenize(struct parser *ps, unsigned long lineno, size_t start, size_t end,
                    struct tok *toks, int max, size_t *rest)
{
    const char *s = ps->src;
    const char *hash = memchr(s + start, '#', end - start);
    size_t cut = hash ? (size_t)(hash - s) : end, i = start;
    int n = 0;
    for (size_t j = start; j < cut; j++) {
        unsigned char c = (unsigned char)s[j];
        if ((c < 0x20 && !is_space(c)) || c == 0x7f)
            return fail(ps, lineno, "invalid control byte 0x%02x", c);
    }
    *rest = cut;
    while (i < cut) {
        while (i < cut && is_space((unsigned char)s[i]))
            i++;
        if (i == cut)
            break;
        size_t b = i;
        while (i < cut && !is_space((unsigned char)s[i]))
            i++;
        if (n == max) {
            char buf[32];
            return fail(ps, lineno, "too many values for '%s'", show(&toks[0], buf));
        }
        toks[n].p = s + b;
        toks[n].n = i - b;
        if (n++ == 0) {
            *rest = i;
            if (tok_is(&toks[0], "title"))
                break; /* free text follows */
        }
    }
    return n;
}

/* A decimal number 0..limit from a token; false when it is not one. */
static bool parse_num(const struct tok *t, long limit, long *out)
{
    long v = 0;
    if (t->n == 0 || t->n > 9)
        return false;
    for (size_t i = 0; i < t->n; i++) {
        if (t->p[i] < '0' || t->p[i] > '9')
            return false;
        v = v * 10 + (t->p[i] - '0');
    }
    if (v > limit)
        return false;
    *out = v;
    return true;
}

/* A number in [lo, hi] for key k, or an error naming the key and range. */
static int want_num(struct parser *ps, unsigned long lineno, const char *what, const struct tok *t,
                    long lo, long hi, long *out)
{
    char buf[32];
    if (!parse_num(t, hi, out) || *out < lo)
        return fail(ps, lineno, "bad number '%s' for %s (expected %ld..%ld)", show(t, buf), what,
                    lo, hi);
    return MMTB_OK;
}

/* Index of a word in a list, or an error listing the choices. */
static int want_word(struct parser *ps, unsigned long lineno, enum key k, const struct tok *t,
                     const char *const *words, int nwords, int *out)
{
    char buf[32], choices[64] = "";
    for (int i = 0; i < nwords; i++) {
        if (tok_is(t, words[i])) {
            *out = i;
            return MMTB_OK;
        }
        strcat(choices, i == 0 ? "" : i == nwords - 1 ? " or " : ", ");
        strcat(choices, words[i]);
    }
    return fail(ps, lineno, "'%s' expects %s, not '%s'", key_names[k], choices, show(t, buf));
}

/* yes/no for key k. */
static int want_bool(struct parser *ps, unsigned long lineno, enum key k, const struct tok *t,
                     bool *out)
{
    static const char *const yn[] = {"no", "yes"};
    int i = 0, rc = want_word(ps, lineno, k, t, yn, 2, &i);
    *out = i == 1;
    return rc;
}

/* Point index of a token, or -1. */
static int find_point(const struct mmtb_variant *v, const struct tok *t)
{
    for (int p = 0; p < v->npoints; p++)
        if (strlen(v->point_name[p]) == t->n && memcmp(v->point_name[p], t->p, t->n) == 0)
            return p;
    return -1;
}

/* A point name is a lower-case letter followed by digits, at most 15 bytes. */
static bool valid_point_name(const struct tok *t)
{
    if (t->n < 2 || t->n >= MMTB_MAX_NAME || t->p[0] < 'a' || t->p[0] > 'z')
        return false;
    for (size_t i = 1; i < t->n; i++)
        if (t->p[i] < '0' || t->p[i] > '9')
            return false;
    return true;
}

/* A line or mill entry, remembered for pass 2 (it names points that may
 * come later in the file). */
static int defer_entry(struct parser *ps, int k, unsigned long lineno, size_t start, size_t end)
{
    bool line = k == K_LINE;
    int *cnt = line ? &ps->ndef_lines : &ps->ndef_mills;
    if (*cnt == (line ? MMTB_MAX_LINES : MMTB_MAX_MILLS))
        return fail(ps, lineno, "too many %ss (at most %d)", key_names[k],
                    line ? MMTB_MAX_LINES : MMTB_MAX_MILLS);
    struct deferred *d = line ? &ps->def_lines[*cnt] : &ps->def_mills[*cnt];
    d->lineno = lineno;
    d->start = start;
    d->end = end;
    ++*cnt;
    return MMTB_OK;
}

/* 'point NAME X Y': a new point with a valid, unused name and coordinates. */
static int parse_point(struct parser *ps, unsigned long lineno, const struct tok *t, int n)
{
    struct mmtb_variant *v = ps->v;
    char buf[32];
    long x = 0, y = 0;
    int rc;
    if (n != 4)
        return fail(ps, lineno, "'point' expects NAME X Y");
    if (!valid_point_name(&t[1]))
        return fail(ps, lineno, "bad point name '%s' (a letter a-z then digits, at most %d bytes)",
                    show(&t[1], buf), MMTB_MAX_NAME - 1);
    int dup = find_point(v, &t[1]);
    if (dup >= 0)
        return fail(ps, lineno, "duplicate point '%s' (first on line %lu)", show(&t[1], buf),
                    ps->point_line[dup]);
    if (v->npoints == MMTB_MAX_POINTS)
        return fail(ps, lineno, "too many points (at most %d)", MMTB_MAX_POINTS);
    if ((rc = want_num(ps, lineno, "point x", &t[2], 0, 127, &x)) < 0 ||
        (rc = want_num(ps, lineno, "point y", &t[3], 0, 127, &y)) < 0)
        return rc;
    for (int p = 0; p < v->npoints; p++)
        if (v->x[p] == x && v->y[p] == y)
            return fail(ps, lineno, "point '%s' has the coordinates of '%s'", show(&t[1], buf),
                        v->point_name[p]);
    int p = v->npoints++;
    memcpy(v->point_name[p], t[1].p, t[1].n);
    v->point_name[p][t[1].n] = '\0';
    v->x[p] = (int8_t)x;
    v->y[p] = (int8_t)y;
    ps->point_line[p] = lineno;
    return MMTB_OK;
}

/* 'title TEXT': free text from src[rest..end), whitespace runs collapsed,
 * at most 95 bytes. */
static int parse_title(struct parser *ps, unsigned long lineno, size_t rest, size_t end)
{
    struct mmtb_variant *v = ps->v;
    size_t len = 0;
    bool space = false;
    for (size_t i = rest; i < end; i++) {
        unsigned char c = (unsigned char)ps->src[i];
        if (c == '#')
            break;
        if (is_space(c)) {
            space = len > 0;
            continue;
        }
        if (len + (space ? 1 : 0) + 1 >= sizeof v->title)
            return fail(ps, lineno, "title too long (at most %zu bytes)", sizeof v->title - 1);
        if (space)
            v->title[len++] = ' ';
        space = false;
        v->title[len++] = (char)c;
    }
    v->title[len] = '\0';
    if (len == 0)
        return fail(ps, lineno, "'title' needs a text");
    return MMTB_OK;
}

/* 'name NAME': a-z, 0-9 and '-', short enough for v->name. */
static int parse_name(struct parser *ps, unsigned long lineno, const struct tok *val)
{
    struct mmtb_variant *v = ps->v;
    char buf[32];
    if (val->n >= sizeof v->name)
        return fail(ps, lineno, "name too long (at most %zu characters)", sizeof v->name - 1);
    for (size_t i = 0; i < val->n; i++) {
        char c = val->p[i];
        if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-'))
            return fail(ps, lineno, "bad name '%s' (use a-z, 0-9 and '-')", show(val, buf));
    }
    memcpy(v->name, val->p, val->n);
    v->name[val->n] = '\0';
    return MMTB_OK;
}

/* 'flying off' or 'flying N': the stone count at which a side flies. */
static int parse_flying(struct parser *ps, unsigned long lineno, const struct tok *val)
{
    char buf[32];
    long num = 0;
    if (tok_is(val, "off")) {
        ps->v->fly = 0;
        return MMTB_OK;
    }
    if (!parse_num(val, MMTB_MAX_POINTS / 2, &num) || num < 1)
        return fail(ps, lineno, "'flying' expects off or a number 1..%d, not '%s'",
                    MMTB_MAX_POINTS / 2, show(val, buf));
    ps->v->fly = (int)num;
    return MMTB_OK;
}

/* A scalar key k with its one value val, stored in the variant. */
static int parse_value(struct parser *ps, unsigned long lineno, int k, const struct tok *val)
{
    struct mmtb_variant *v = ps->v;
    long num = 0;
    int rc = MMTB_OK, w = 0;
    switch (k) {
    case K_NAME:
        return parse_name(ps, lineno, val);
    case K_STONES:
        rc = want_num(ps, lineno, "'stones'", val, 1, MMTB_MAX_POINTS / 2, &num);
        v->stones = (int)num;
        break;
    case K_FLYING:
        return parse_flying(ps, lineno, val);
    case K_MIN_STONES:
        rc = want_num(ps, lineno, "'min-stones'", val, 1, MMTB_MAX_POINTS / 2, &num);
        v->min_stones = (int)num;
        break;
    case K_REMOVAL:
        rc = want_word(ps, lineno, K_REMOVAL, val, removal_names, 3, &w);
        v->removal = w;
        break;
    case K_NO_MOVE:
        rc = want_word(ps, lineno, K_NO_MOVE, val, nomove_names, 2, &w);
        v->nomove = w;
        break;
    case K_PLACE_CAPTURES:
        rc = want_bool(ps, lineno, K_PLACE_CAPTURES, val, &v->place_captures);
        break;
    case K_FIRST_MILL_WINS:
        rc = want_bool(ps, lineno, K_FIRST_MILL_WINS, val, &v->first_mill_wins);
        break;
    case K_FULL_BOARD_DRAW:
        rc = want_bool(ps, lineno, K_FULL_BOARD_DRAW, val, &v->full_board_draw);
        break;
    case K_PLACE_OR_MOVE:
        rc = want_bool(ps, lineno, K_PLACE_OR_MOVE, val, &v->place_or_move);
        break;
    case K_NO_RECLOSE:
        rc = want_bool(ps, lineno, K_NO_RECLOSE, val, &v->no_reclose);
        break;
    case K_FIRST_MILL_REMOVAL:
        rc = want_bool(ps, lineno, K_FIRST_MILL_REMOVAL, val, &v->first_mill_removal);
        break;
    case K_TRAPPED_CAPTURE:
        rc = want_bool(ps, lineno, K_TRAPPED_CAPTURE, val, &v->trapped_capture);
        break;
    case K_BOTH_TRAPPED:
        rc = want_word(ps, lineno, K_BOTH_TRAPPED, val, trapped_names, 2, &w);
        v->both_trapped_draw = w == 1;
        break;
    default:
        break;
    }
    return rc;
}

/* Pass 1: the scalar keys and the points; line/mill entries are remembered. */
static int parse_key(struct parser *ps, unsigned long lineno, size_t start, size_t end)
{
    struct tok t[MAX_TOKENS];
    size_t rest;
    char buf[32];
    int n = tokenize(ps, lineno, start, end, t, MAX_TOKENS, &rest);
    if (n <= 0)
        return n;
    int k;
    for (k = 0; k < NKEYS; k++)
        if (tok_is(&t[0], key_names[k]))
            break;
    if (k == NKEYS)
        return fail(ps, lineno, "unknown key '%s'", show(&t[0], buf));
    if (k == K_LINE || k == K_MILL)
        return defer_entry(ps, k, lineno, start, end);
    if (k == K_POINT)
        return parse_point(ps, lineno, t, n);
    if (ps->key_line[k])
        return fail(ps, lineno, "duplicate key '%s' (first on line %lu)", key_names[k],
                    ps->key_line[k]);
    ps->key_line[k] = lineno;
    if (k == K_TITLE)
        return parse_title(ps, lineno, rest, end);
    if (n != 2)
        return fail(ps, lineno, "'%s' expects exactly one value", key_names[k]);
    return parse_value(ps, lineno, k, &t[1]);
}

/* Resolve the point names t[1..n-1] of a line or mill entry into idx[];
 * every name must be known and appear once. */
static int resolve_points(struct parser *ps, const struct deferred *d, const char *what,
                          const struct tok *t, int n, int8_t *idx, uint32_t *mask)
{
    char buf[32];
    *mask = 0;
    for (int i = 1; i < n; i++) {
        int p = find_point(ps->v, &t[i]);
        if (p < 0)
            return fail(ps, d->lineno, "unknown point '%s' in %s", show(&t[i], buf), what);
        if (*mask & (1u << p))
            return fail(ps, d->lineno, "point '%s' appears twice in the %s", show(&t[i], buf),
                        what);
        *mask |= 1u << p;
        idx[i - 1] = (int8_t)p;
    }
    return MMTB_OK;
}

/* Pass 2: one `line` entry. */
static int parse_line(struct parser *ps, const struct deferred *d)
{
    struct mmtb_variant *v = ps->v;
    struct tok t[MAX_TOKENS];
    size_t rest;
    int8_t idx[MAX_TOKENS];
    uint32_t mask;
    int n = tokenize(ps, d->lineno, d->start, d->end, t, MAX_TOKENS, &rest), rc;
    if (n < 0)
        return n;
    if (n < 3)
        return fail(ps, d->lineno, "a line needs at least 2 points");
    if ((rc = resolve_points(ps, d, "line", t, n, idx, &mask)) < 0)
        return rc;
    int len = n - 1;
    for (int l = 0; l < v->nlines; l++) {
        if (v->line_len[l] != len)
            continue;
        bool fwd = true, rev = true;
        for (int i = 0; i < len; i++) {
            fwd = fwd && v->line[l][i] == idx[i];
            rev = rev && v->line[l][len - 1 - i] == idx[i];
        }
        if (fwd || rev)
            return fail(ps, d->lineno, "duplicate line (same as line %lu)",
                        ps->def_lines[l].lineno);
    }
    int l = v->nlines++;
    v->line_len[l] = (uint8_t)len;
    for (int i = 0; i < len; i++) {
        v->line[l][i] = idx[i];
        if (i > 0) {
            v->adj[idx[i]] |= 1u << idx[i - 1];
            v->adj[idx[i - 1]] |= 1u << idx[i];
        }
    }
    return MMTB_OK;
}

/* Pass 3: one `mill` entry; it must be consecutive points of a line. */
static int parse_mill(struct parser *ps, const struct deferred *d)
{
    struct mmtb_variant *v = ps->v;
    struct tok t[MAX_TOKENS];
    size_t rest;
    int8_t idx[MAX_TOKENS];
    uint32_t mask;
    int n = tokenize(ps, d->lineno, d->start, d->end, t, MAX_TOKENS, &rest), rc;
    if (n < 0)
        return n;
    if (n < 3)
        return fail(ps, d->lineno, "a mill needs at least 2 points");
    if ((rc = resolve_points(ps, d, "mill", t, n, idx, &mask)) < 0)
        return rc;
    int len = n - 1, found = -1, start = 0;
    for (int l = 0; l < v->nlines && found < 0; l++) {
        int at = -1;
        for (int i = 0; i < v->line_len[l]; i++)
            if (v->line[l][i] == idx[0])
                at = i;
        if (at < 0)
            continue;
        bool fwd = at + len <= v->line_len[l], rev = at - len + 1 >= 0;
        for (int j = 0; j < len; j++) {
            fwd = fwd && v->line[l][at + j] == idx[j];
            rev = rev && v->line[l][at - j] == idx[j];
        }
        if (fwd || rev) {
            found = l;
            start = fwd ? at : at - len + 1;
        }
    }
    if (found < 0) {
        char names[96] = "";
        for (int i = 0; i < len && strlen(names) + MMTB_MAX_NAME + 1 < sizeof names; i++) {
            strcat(names, i ? "-" : "");
            strcat(names, v->point_name[idx[i]]);
        }
        return fail(ps, d->lineno, "mill %s is not consecutive points of one line", names);
    }
    for (int m = 0; m < v->nmills; m++)
        if (v->mill[m] == mask)
            return fail(ps, d->lineno, "duplicate mill (same points as line %lu)",
                        ps->def_mills[m].lineno);
    int m = v->nmills++;
    v->mill[m] = mask;
    ps->mill_line[m] = found;
    ps->mill_start[m] = start;
    ps->mill_len[m] = len;
    for (int i = 0; i < len; i++)
        v->mills_at[idx[i]] |= 1ull << m;
    if (len == 3)
        v->mills3 |= 1ull << m;
    return MMTB_OK;
}

/* ---- symmetry ---------------------------------------------------------- */

struct symsearch {
    const struct mmtb_variant *v;
    int order[MMTB_MAX_POINTS];  /* points in the order they are assigned */
    int anchor[MMTB_MAX_POINTS]; /* an earlier neighbour of order[k], or -1 */
    int deg[MMTB_MAX_POINTS], nmill[MMTB_MAX_POINTS];
    int8_t img[MMTB_MAX_POINTS]; /* the permutation being built */
    uint32_t assigned, used;     /* points mapped so far; their images */
    int count;
    bool overflow;
    long nodes;
    int8_t (*out)[MMTB_MAX_POINTS];
};

/* Image of mask m under the (partial) permutation img. */
static uint32_t image(const int8_t *img, uint32_t m)
{
    uint32_t r = 0;
    while (m) {
        int p = __builtin_ctz(m);
        m &= m - 1;
        r |= 1u << img[p];
    }
    return r;
}

/* True when mask m is one of the mills. */
static bool is_mill(const struct mmtb_variant *v, uint32_t m)
{
    for (int i = 0; i < v->nmills; i++)
        if (v->mill[i] == m)
            return true;
    return false;
}

/* Extend the partial permutation at order position k. */
static void sym_extend(struct symsearch *s, int k)
{
    const struct mmtb_variant *v = s->v;
    if (s->overflow)
        return;
    if (++s->nodes > SYM_NODE_BUDGET) {
        s->overflow = true;
        return;
    }
    if (k == v->npoints) {
        if (s->count == MMTB_MAX_SYMS) {
            s->overflow = true;
            return;
        }
        memcpy(s->out[s->count++], s->img, sizeof s->img);
        return;
    }
    int p = s->order[k];
    uint32_t cand = s->anchor[k] >= 0 ? v->adj[s->img[s->anchor[k]]] : v->full;
    cand &= ~s->used;
    uint32_t before = s->assigned;
    uint32_t nb = v->adj[p] & before; /* earlier neighbours of p */
    uint32_t nb_img = image(s->img, nb);
    while (cand) {
        int q = __builtin_ctz(cand);
        cand &= cand - 1;
        if (s->deg[q] != s->deg[p] || s->nmill[q] != s->nmill[p])
            continue;
        if ((v->adj[q] & s->used) != nb_img)
            continue;
        s->img[p] = (int8_t)q;
        s->assigned = before | (1u << p);
        s->used |= 1u << q;
        /* Every mill through p that is now complete must map onto a mill. */
        bool ok = true;
        uint64_t ms = v->mills_at[p];
        while (ms && ok) {
            int m = __builtin_ctzll(ms);
            ms &= ms - 1;
            if ((v->mill[m] & ~s->assigned) == 0)
                ok = is_mill(v, image(s->img, v->mill[m]));
        }
        if (ok)
            sym_extend(s, k + 1);
        s->used &= ~(1u << q);
        s->assigned = before;
        if (s->overflow)
            return;
    }
}

/* Lexicographic order of two sym[] rows (entries are 0..31, so bytewise). */
static int cmp_perm(const void *a, const void *b)
{
    return memcmp(a, b, MMTB_MAX_POINTS);
}

/* Fill nsyms, sym, sym_inv and symtab.  Returns MMTB_OK, MMTB_ERR_NOMEM,
 * or MMTB_ERR_PARSE (unreported) when the group has more than MMTB_MAX_SYMS
 * elements or the search exceeds its node budget. */
static int compute_symmetries(struct mmtb_variant *v)
{
    struct symsearch *s = calloc(1, sizeof *s);
    if (!s)
        return MMTB_ERR_NOMEM;
    s->v = v;
    s->out = v->sym;
    /* Breadth-first order along the adjacency, components by lowest point. */
    uint32_t seen = 0;
    int n = 0;
    for (int root = 0; root < v->npoints; root++) {
        if (seen & (1u << root))
            continue;
        int head = n;
        seen |= 1u << root;
        s->order[n] = root;
        s->anchor[n++] = -1;
        while (head < n) {
            int p = s->order[head++];
            uint32_t nb = v->adj[p] & ~seen;
            while (nb) {
                int q = __builtin_ctz(nb);
                nb &= nb - 1;
                seen |= 1u << q;
                s->order[n] = q;
                s->anchor[n++] = p;
            }
        }
    }
    for (int p = 0; p < v->npoints; p++) {
        s->deg[p] = __builtin_popcount(v->adj[p]);
        s->nmill[p] = __builtin_popcountll(v->mills_at[p]);
    }
    sym_extend(s, 0);
    bool ok = !s->overflow;
    v->nsyms = s->count;
    free(s);
    if (!ok || v->nsyms == 0)
        return MMTB_ERR_PARSE;
    /* Unused tail entries are zero (calloc) so the sort is well defined. */
    qsort(v->sym, (size_t)v->nsyms, sizeof v->sym[0], cmp_perm);
    for (int g = 0; g < v->nsyms; g++) {
        int8_t inv[MMTB_MAX_POINTS] = {0};
        for (int p = 0; p < v->npoints; p++)
            inv[v->sym[g][p]] = (int8_t)p;
        for (int h = 0; h < v->nsyms; h++)
            if (memcmp(inv, v->sym[h], MMTB_MAX_POINTS) == 0)
                v->sym_inv[g] = (uint8_t)h;
        /* byte b's image: that of b without its lowest point, plus the
         * image of that point (one step an entry) */
        for (int k = 0; k < 4; k++) {
            v->symtab[g][k][0] = 0;
            for (int b = 1; b < 256; b++) {
                int i = 8 * k + __builtin_ctz((unsigned)b);
                v->symtab[g][k][b] = v->symtab[g][k][b & (b - 1)] |
                                     (i < v->npoints ? 1u << v->sym[g][i] : 0);
            }
        }
    }
    return MMTB_OK;
}

/* ---- canonical text ---------------------------------------------------- */

struct sbuf {
    char *p;
    size_t len, cap;
};

/* Append formatted text; the caller sized the buffer for the worst case. */
static void put(struct sbuf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap);
    va_end(ap);
    if (n > 0)
        b->len += (size_t)n < b->cap - b->len ? (size_t)n : b->cap - b->len - 1;
}

/* Write v->text/text_len/fingerprint; false when out of memory. */
static bool make_canonical(struct mmtb_variant *v, const struct parser *ps)
{
    /* Bound: header keys + title + points + (lines + mills) of 32 names each. */
    size_t cap = 512 + sizeof v->title + MMTB_MAX_POINTS * (MMTB_MAX_NAME + 16) +
                 (MMTB_MAX_LINES + MMTB_MAX_MILLS) * (8 + MMTB_MAX_POINTS * MMTB_MAX_NAME);
    struct sbuf b = {malloc(cap), 0, cap};
    if (!b.p)
        return false;
    static const char *const yn[] = {"no", "yes"};
    put(&b, "name %s\ntitle %s\nstones %d\n", v->name, v->title, v->stones);
    if (v->fly)
        put(&b, "flying %d\n", v->fly);
    else
        put(&b, "flying off\n");
    put(&b,
        "min-stones %d\nremoval %s\nplace-captures %s\nfirst-mill-wins "
        "%s\nno-move %s\n",
        v->min_stones, removal_names[v->removal], yn[v->place_captures], yn[v->first_mill_wins],
        nomove_names[v->nomove]);
    put(&b, "full-board-draw %s\nplace-or-move %s\nno-reclose %s\n", yn[v->full_board_draw],
        yn[v->place_or_move], yn[v->no_reclose]);
    /* Keys added later are written only when they differ from the default,
     * so that the variants written before them keep their fingerprint. */
    if (v->first_mill_removal)
        put(&b, "first-mill-removal yes\n");
    if (!v->trapped_capture)
        put(&b, "trapped-capture no\n");
    if (v->both_trapped_draw)
        put(&b, "both-trapped draw\n");
    for (int p = 0; p < v->npoints; p++)
        put(&b, "point %s %d %d\n", v->point_name[p], v->x[p], v->y[p]);
    for (int l = 0; l < v->nlines; l++) {
        put(&b, "line");
        for (int i = 0; i < v->line_len[l]; i++)
            put(&b, " %s", v->point_name[v->line[l][i]]);
        put(&b, "\n");
    }
    for (int m = 0; m < v->nmills; m++) {
        put(&b, "mill");
        for (int i = 0; i < ps->mill_len[m]; i++)
            put(&b, " %s", v->point_name[v->line[ps->mill_line[m]][ps->mill_start[m] + i]]);
        put(&b, "\n");
    }
    char *shrunk = realloc(b.p, b.len + 1);
    v->text = shrunk ? shrunk : b.p;
    v->text_len = b.len;
    /* FNV-1a 64: h = (h ^ byte) * 0x100000001b3, starting at 0xcbf29ce484222325.
     */
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < b.len; i++) {
        h ^= (unsigned char)v->text[i];
        h *= 0x100000001b3ull;
    }
    v->fingerprint = h;
    return true;
}

/* ---- public API -------------------------------------------------------- */

/* Required keys, checked after pass 1; reported on the last line. */
static int check_required(struct parser *ps)
{
    unsigned long last = ps->last_line;
    if (!ps->key_line[K_NAME])
        return fail(ps, last, "missing required key 'name'");
    if (!ps->key_line[K_STONES])
        return fail(ps, last, "missing required key 'stones'");
    if (ps->v->npoints == 0)
        return fail(ps, last, "missing required key 'point'");
    return MMTB_OK;
}

/* Ranges that depend on other keys, checked after all passes so that
 * problems of the board itself are reported first. */
static int check_ranges(struct parser *ps)
{
    struct mmtb_variant *v = ps->v;
    if (2 * v->stones > v->npoints)
        return fail(ps, ps->key_line[K_STONES], "%d stones per side do not fit on %d points",
                    v->stones, v->npoints);
    if (v->fly > v->stones)
        return fail(ps, ps->key_line[K_FLYING], "flying at %d exceeds the %d stones", v->fly,
                    v->stones);
    if (v->min_stones > v->stones) /* the default 3: name the stones line */
        return fail(ps, ps->key_line[K_MIN_STONES] ? ps->key_line[K_MIN_STONES]
                                                   : ps->key_line[K_STONES],
                    "min-stones %d exceeds the %d stones", v->min_stones, v->stones);
    if (v->first_mill_removal &&
        (v->place_captures || v->first_mill_wins || v->place_or_move || v->no_reclose))
        return fail(ps, ps->key_line[K_FIRST_MILL_REMOVAL],
                    "first-mill-removal yes needs place-captures no, first-mill-wins no, "
                    "place-or-move no and no-reclose no");
    return MMTB_OK;
}

/* Parse in three passes (scalars and points, lines, mills), validate,
 * compute the symmetry group and the canonical text. */
int mmtb_variant_parse(struct mmtb_variant **out, const char *text, size_t len, const char *source,
                       char *err, size_t errlen)
{
    if (err && errlen)
        err[0] = '\0';
    if (!out || (!text && len))
        return MMTB_ERR_INVALID;
    *out = NULL;
    if (!source)
        source = "<text>";
    struct parser *ps = calloc(1, sizeof *ps);
    struct mmtb_variant *v = calloc(1, sizeof *v);
    if (!ps || !v) {
        free(ps);
        free(v);
        if (err && errlen)
            snprintf(err, errlen, "%s: out of memory", source);
        return MMTB_ERR_NOMEM;
    }
    ps->src = text;
    ps->len = len;
    ps->source = source;
    ps->err = err;
    ps->errlen = errlen;
    ps->v = v;
    v->min_stones = 3;
    v->place_captures = true;
    v->removal = MMTB_REMOVE_STANDARD;
    v->nomove = MMTB_NOMOVE_LOSES;
    v->trapped_capture = true;

    int rc = MMTB_OK;
    size_t pos = 0;
    unsigned long lineno = 0;
    while (pos < len && rc == MMTB_OK) {
        const char *nl = memchr(text + pos, '\n', len - pos);
        size_t end = nl ? (size_t)(nl - text) : len;
        rc = parse_key(ps, ++lineno, pos, end);
        pos = end + 1;
    }
    ps->last_line = lineno ? lineno : 1;
    if (rc == MMTB_OK)
        rc = check_required(ps);
    for (int i = 0; i < ps->ndef_lines && rc == MMTB_OK; i++)
        rc = parse_line(ps, &ps->def_lines[i]);
    if (rc == MMTB_OK && v->nlines == 0)
        rc = fail(ps, ps->last_line, "missing required key 'line'");
    for (int p = 0; p < v->npoints && rc == MMTB_OK; p++)
        if (!v->adj[p])
            rc = fail(ps, ps->point_line[p], "point '%s' is on no line", v->point_name[p]);
    for (int i = 0; i < ps->ndef_mills && rc == MMTB_OK; i++)
        rc = parse_mill(ps, &ps->def_mills[i]);
    if (rc == MMTB_OK && v->nmills == 0)
        rc = fail(ps, ps->last_line, "missing required key 'mill'");
    if (rc == MMTB_OK)
        rc = check_ranges(ps);
    if (rc == MMTB_OK) {
        if (!ps->key_line[K_TITLE])
            memcpy(v->title, v->name, sizeof v->name);
        v->full = v->npoints == 32 ? 0xffffffffu : (1u << v->npoints) - 1;
        int e = 0;
        for (int p = 0; p < v->npoints; p++) {
            v->edge_first[p] = (int16_t)e;
            for (uint32_t a = v->adj[p]; a; a &= a - 1, e++) {
                v->edge_y[e] = (int8_t)p;
                v->edge_x[e] = (int8_t)__builtin_ctz(a);
            }
        }
        v->edge_first[v->npoints] = (int16_t)e;
        v->nedges = e;
        rc = compute_symmetries(v);
        if (rc == MMTB_ERR_PARSE)
            rc = fail(ps, ps->last_line, "the board has more than %d symmetries", MMTB_MAX_SYMS);
    }
    if (rc == MMTB_OK && !make_canonical(v, ps))
        rc = MMTB_ERR_NOMEM;
    if (rc == MMTB_ERR_NOMEM) {
        if (err && errlen)
            snprintf(err, errlen, "%s: out of memory", source);
        rc = MMTB_ERR_NOMEM;
    }
    free(ps);
    if (rc != MMTB_OK) {
        free(v);
        return rc;
    }
    *out = v;
    return MMTB_OK;
}

/* The embedded text of a built-in, or NULL. */
const char *mmtb_variant_builtin_text(const char *name)
{
    if (!name)
        return NULL;
    for (const struct mmtb_builtin_variant *b = mmtb_builtin_variants; b->name; b++)
        if (strcmp(b->name, name) == 0)
            return b->text;
    return NULL;
}

/*
 * The names as a NULL-terminated array.  The generated table stores
 * name/text pairs, so the list is built once on first use; a three-state
 * flag (0 empty, 1 being filled, 2 ready) keeps concurrent first calls safe
 * without linking a thread library.
 */
#define MAX_BUILTINS 64
const char *const *mmtb_variant_builtin_names(void)
{
    static const char *names[MAX_BUILTINS + 1];
    static int state;
    if (__atomic_load_n(&state, __ATOMIC_ACQUIRE) != 2) {
        int expect = 0;
        if (__atomic_compare_exchange_n(&state, &expect, 1, false, __ATOMIC_ACQ_REL,
                                        __ATOMIC_ACQUIRE)) {
            int n = 0;
            for (const struct mmtb_builtin_variant *b = mmtb_builtin_variants;
                 b->name && n < MAX_BUILTINS; b++)
                names[n++] = b->name;
            names[n] = NULL;
            __atomic_store_n(&state, 2, __ATOMIC_RELEASE);
        } else {
            while (__atomic_load_n(&state, __ATOMIC_ACQUIRE) != 2)
                ;
        }
    }
    return names;
}

/* A built-in by name, else a descriptor file (at most 1 MiB). */
int mmtb_variant_load(struct mmtb_variant **out, const char *name_or_path, char *err, size_t errlen)
{
    if (err && errlen)
        err[0] = '\0';
    if (!out || !name_or_path)
        return MMTB_ERR_INVALID;
    *out = NULL;
    const char *text = mmtb_variant_builtin_text(name_or_path);
    if (text) {
        char source[64];
        snprintf(source, sizeof source, "builtin:%s", name_or_path);
        return mmtb_variant_parse(out, text, strlen(text), source, err, errlen);
    }
    FILE *f = fopen(name_or_path, "rb");
    if (!f) {
        int e = errno;
        if (err && errlen)
            snprintf(err, errlen, "%s: cannot open: %s", name_or_path, strerror(e));
        return MMTB_ERR_IO;
    }
    char *buf = malloc(MAX_FILE_BYTES + 1);
    if (!buf) {
        fclose(f);
        if (err && errlen)
            snprintf(err, errlen, "%s: out of memory", name_or_path);
        return MMTB_ERR_NOMEM;
    }
    size_t n = fread(buf, 1, MAX_FILE_BYTES + 1, f);
    int rerr = ferror(f) ? errno : 0;
    fclose(f);
    int rc;
    if (rerr) {
        if (err && errlen)
            snprintf(err, errlen, "%s: cannot read: %s", name_or_path, strerror(rerr));
        rc = MMTB_ERR_IO;
    } else if (n > MAX_FILE_BYTES) {
        if (err && errlen)
            snprintf(err, errlen, "%s:1: descriptor larger than %u bytes", name_or_path,
                     MAX_FILE_BYTES);
        rc = MMTB_ERR_PARSE;
    } else {
        rc = mmtb_variant_parse(out, buf, n, name_or_path, err, errlen);
    }
    free(buf);
    return rc;
}

/* Free a variant and its canonical text. */
void mmtb_variant_free(struct mmtb_variant *v)
{
    if (!v)
        return;
    free(v->text);
    free(v);
}

/* Point index of a square name (exact, or ignoring case), or -1. */
int mmtb_variant_point(const struct mmtb_variant *v, const char *name)
{
    if (!v || !name)
        return -1;
    for (int p = 0; p < v->npoints; p++) {
        const char *a = v->point_name[p], *b = name;
        while (*a && (*a == *b || (*b >= 'A' && *b <= 'Z' && *a == *b - 'A' + 'a'))) {
            a++;
            b++;
        }
        if (!*a && !*b)
            return p;
    }
    return -1;
}

