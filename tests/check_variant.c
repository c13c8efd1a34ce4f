/*
 * check_variant.c - tests of format/variant.c and format/status.c: the
 * built-in descriptors, the symmetry groups (checked against groups built
 * independently from the coordinates), the canonical text and fingerprint,
 * the validation messages, and a fuzz test of the parser.
 */
#include "variant.h"

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const expected_names[] = {
    "lasker", "morabaraba", "nine",       "nine-diag", "nine-nofly", "shah",
    "six",    "three",      "three-diag", "twelve",    "twelve-immune", "twelve-nine",
};
#define NBUILTIN ((int)(sizeof expected_names / sizeof expected_names[0]))

/* A built-in by name; fails the test when it does not load. */
static struct mmtb_variant *load(const char *name)
{
    struct mmtb_variant *v = NULL;
    char err[256] = "";
    int rc = mmtb_variant_load(&v, name, err, sizeof err);
    ck_assert_msg(rc == MMTB_OK, "loading %s: %d %s", name, rc, err);
    ck_assert_ptr_nonnull(v);
    return v;
}

static int pt(const struct mmtb_variant *v, const char *name)
{
    int p = mmtb_variant_point(v, name);
    ck_assert_msg(p >= 0, "no point %s in %s", name, v->name);
    return p;
}

/* Image of a mask under a permutation, point by point. */
static uint32_t slow_apply(const int8_t *perm, int n, uint32_t m)
{
    uint32_t r = 0;
    for (int p = 0; p < n; p++)
        if (m >> p & 1)
            r |= 1u << perm[p];
    return r;
}

/* Index of a permutation in the variant's group, or -1. */
static int find_sym(const struct mmtb_variant *v, const int8_t *perm)
{
    for (int g = 0; g < v->nsyms; g++)
        if (memcmp(v->sym[g], perm, (size_t)v->npoints) == 0)
            return g;
    return -1;
}

static bool is_mill(const struct mmtb_variant *v, uint32_t m)
{
    for (int i = 0; i < v->nmills; i++)
        if (v->mill[i] == m)
            return true;
    return false;
}

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static uint64_t rnd(void)
{
    /* xorshift64* */
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 0x2545f4914f6cdd1dull;
}

/* FNV-1a 64, written independently of variant.c. */
static uint64_t fnv1a(const void *data, size_t n)
{
    const unsigned char *p = data;
    uint64_t h = 14695981039346656037ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 1099511628211ull;
    return h;
}

/* ---- built-ins --------------------------------------------------------- */

START_TEST(test_builtin_list)
{
    const char *const *names = mmtb_variant_builtin_names();
    int n = 0;
    bool found[NBUILTIN] = {false};
    for (; names[n]; n++) {
        ck_assert_int_lt(n, NBUILTIN);
        int k = 0;
        while (k < NBUILTIN && strcmp(names[n], expected_names[k]) != 0)
            k++;
        ck_assert_msg(k < NBUILTIN && !found[k], "unexpected built-in %s", names[n]);
        found[k] = true;
        ck_assert_ptr_nonnull(mmtb_variant_builtin_text(names[n]));
    }
    ck_assert_int_eq(n, NBUILTIN);
    ck_assert_ptr_eq(mmtb_variant_builtin_names(), names); /* built once */
    ck_assert_ptr_null(mmtb_variant_builtin_text("ten"));
    ck_assert_ptr_null(mmtb_variant_builtin_text(NULL));
}
END_TEST

START_TEST(test_builtin_parses)
{
    const char *name = expected_names[_i];
    struct mmtb_variant *v = load(name);
    ck_assert_str_eq(v->name, name);
    ck_assert_int_gt(strlen(v->title), 0);
    ck_assert_int_eq(v->min_stones, 3);
    bool shah = strcmp(name, "shah") == 0;
    ck_assert_int_eq(v->nomove, shah ? MMTB_NOMOVE_PASSES : MMTB_NOMOVE_LOSES);
    ck_assert_int_eq(v->first_mill_removal, shah);
    ck_assert_int_eq(v->trapped_capture, !shah);
    ck_assert_int_eq(v->both_trapped_draw, shah);
    ck_assert_uint_eq(v->full, v->npoints == 32 ? 0xffffffffu : (1u << v->npoints) - 1);
    /* mills_at agrees with the mill masks. */
    for (int p = 0; p < v->npoints; p++)
        for (int m = 0; m < v->nmills; m++)
            ck_assert_int_eq((int)(v->mills_at[p] >> m & 1), (int)(v->mill[m] >> p & 1));
    /* adjacency is symmetric, irreflexive and follows the lines. */
    for (int p = 0; p < v->npoints; p++) {
        ck_assert_uint_eq(v->adj[p] >> p & 1, 0);
        for (int q = 0; q < v->npoints; q++)
            ck_assert_uint_eq(v->adj[p] >> q & 1, v->adj[q] >> p & 1);
    }
    mmtb_variant_free(v);
}
END_TEST

/* Built-in text equals the shipped data file, byte for byte. */
START_TEST(test_builtin_matches_file)
{
    const char *name = expected_names[_i];
    char path[1024];
    snprintf(path, sizeof path, "%s/data/variants/%s.txt", MMTB_SOURCE_DIR, name);
    FILE *f = fopen(path, "rb");
    ck_assert_msg(f != NULL, "%s: %s", path, strerror(errno));
    static char buf[1 << 16];
    size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    const char *text = mmtb_variant_builtin_text(name);
    ck_assert_uint_eq(strlen(text), n);
    ck_assert_int_eq(memcmp(text, buf, n), 0);
    /* Loading the file by path gives the same variant. */
    struct mmtb_variant *a = load(name), *b = load(path);
    ck_assert_uint_eq(a->fingerprint, b->fingerprint);
    mmtb_variant_free(a);
    mmtb_variant_free(b);
}
END_TEST

/* Rule flags of each built-in, as the issue specifies them. */
START_TEST(test_builtin_rules)
{
    static const struct {
        const char *name;
        int points, lines, mills, stones, fly, removal;
        bool first_mill, full_draw, place_or_move, no_reclose;
    } want[] = {
        {"nine", 24, 16, 16, 9, 3, MMTB_REMOVE_STANDARD, false, false, false, false},
        {"nine-nofly", 24, 16, 16, 9, 0, MMTB_REMOVE_STANDARD, false, false, false, false},
        {"nine-diag", 24, 20, 20, 9, 3, MMTB_REMOVE_STANDARD, false, false, false, false},
        {"twelve", 24, 20, 20, 12, 0, MMTB_REMOVE_ANY, false, false, false, true},
        {"twelve-immune", 24, 20, 20, 12, 0, MMTB_REMOVE_IMMUNE, false, false, false, true},
        {"twelve-nine", 24, 20, 16, 9, 0, MMTB_REMOVE_ANY, false, false, false, true},
        {"morabaraba", 24, 20, 20, 12, 3, MMTB_REMOVE_STANDARD, false, true, false, false},
        {"lasker", 24, 16, 16, 10, 3, MMTB_REMOVE_STANDARD, false, false, true, false},
        {"shah", 24, 20, 20, 12, 0, MMTB_REMOVE_ANY, false, false, false, false},
        {"six", 16, 12, 8, 6, 3, MMTB_REMOVE_STANDARD, false, false, false, false},
        {"three", 9, 6, 6, 3, 0, MMTB_REMOVE_ANY, true, false, false, false},
        {"three-diag", 9, 8, 8, 3, 0, MMTB_REMOVE_ANY, true, false, false, false},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        struct mmtb_variant *v = load(want[i].name);
        ck_assert_int_eq(v->npoints, want[i].points);
        ck_assert_int_eq(v->nlines, want[i].lines);
        ck_assert_int_eq(v->nmills, want[i].mills);
        ck_assert_int_eq(v->stones, want[i].stones);
        ck_assert_int_eq(v->fly, want[i].fly);
        ck_assert_int_eq(v->removal, want[i].removal);
        ck_assert_int_eq(v->place_captures, strcmp(want[i].name, "shah") != 0);
        ck_assert_int_eq(v->first_mill_wins, want[i].first_mill);
        ck_assert_int_eq(v->full_board_draw, want[i].full_draw);
        ck_assert_int_eq(v->place_or_move, want[i].place_or_move);
        ck_assert_int_eq(v->no_reclose, want[i].no_reclose);
        mmtb_variant_free(v);
    }
}
END_TEST

/* The 24-point board: Sanmill FEN point order, coordinates, adjacency. */
START_TEST(test_board24)
{
    static const char *const fen_order[24] = {
        "d5", "e5", "e4", "e3", "d3", "c3", "c4", "c5", "d6", "f6", "f4", "f2",
        "d2", "b2", "b4", "b6", "d7", "g7", "g4", "g1", "d1", "a1", "a4", "a7",
    };
    struct mmtb_variant *v = load("nine"), *d = load("twelve");
    for (int p = 0; p < 24; p++) {
        ck_assert_str_eq(v->point_name[p], fen_order[p]);
        ck_assert_int_eq(v->x[p], fen_order[p][0] - 'a');
        ck_assert_int_eq(v->y[p], fen_order[p][1] - '1');
        ck_assert_str_eq(d->point_name[p], fen_order[p]);
    }
    ck_assert_uint_eq(v->adj[pt(v, "d7")],
                      1u << pt(v, "a7") | 1u << pt(v, "g7") | 1u << pt(v, "d6"));
    ck_assert_uint_eq(v->adj[pt(v, "d6")], 1u << pt(v, "d7") | 1u << pt(v, "d5") |
                                               1u << pt(v, "b6") | 1u << pt(v, "f6"));
    ck_assert_uint_eq(v->adj[pt(v, "a7")], 1u << pt(v, "d7") | 1u << pt(v, "a4"));
    ck_assert_uint_eq(d->adj[pt(d, "a7")],
                      1u << pt(d, "d7") | 1u << pt(d, "a4") | 1u << pt(d, "b6"));
    ck_assert_uint_eq(d->adj[pt(d, "b6")], 1u << pt(d, "d6") | 1u << pt(d, "b4") |
                                               1u << pt(d, "a7") | 1u << pt(d, "c5"));
    /* Degrees: 2 at the 12 corners, 3 at the outer and inner middles, 4 at
     * the middle square's middles. */
    int deg[5] = {0};
    for (int p = 0; p < 24; p++)
        deg[__builtin_popcount(v->adj[p])]++;
    ck_assert_int_eq(deg[2], 12);
    ck_assert_int_eq(deg[3], 8);
    ck_assert_int_eq(deg[4], 4);
    /* 32 edges without diagonals, 40 with. */
    int e = 0, ed = 0;
    for (int p = 0; p < 24; p++) {
        e += __builtin_popcount(v->adj[p]);
        ed += __builtin_popcount(d->adj[p]);
    }
    ck_assert_int_eq(e, 64);
    ck_assert_int_eq(ed, 80);
    /* Name lookup. */
    ck_assert_int_eq(mmtb_variant_point(v, "d5"), 0);
    ck_assert_int_eq(mmtb_variant_point(v, "a7"), 23);
    ck_assert_int_eq(mmtb_variant_point(v, "A7"), 23);
    ck_assert_int_eq(mmtb_variant_point(v, "d4"), -1);
    ck_assert_int_eq(mmtb_variant_point(v, "a"), -1);
    ck_assert_int_eq(mmtb_variant_point(v, "a77"), -1);
    ck_assert_int_eq(mmtb_variant_point(v, ""), -1);
    ck_assert_int_eq(mmtb_variant_point(v, NULL), -1);
    mmtb_variant_free(v);
    mmtb_variant_free(d);
}
END_TEST

START_TEST(test_board_small)
{
    struct mmtb_variant *s = load("six"), *t = load("three"), *td = load("three-diag");
    static const char *const six_order[16] = {"c4", "d4", "d3", "d2", "c2", "b2", "b3", "b4",
                                              "c5", "e5", "e3", "e1", "c1", "a1", "a3", "a5"};
    for (int p = 0; p < 16; p++) {
        ck_assert_str_eq(s->point_name[p], six_order[p]);
        ck_assert_int_eq(s->x[p], six_order[p][0] - 'a');
        ck_assert_int_eq(s->y[p], six_order[p][1] - '1');
    }
    ck_assert_uint_eq(s->adj[pt(s, "c5")],
                      1u << pt(s, "a5") | 1u << pt(s, "e5") | 1u << pt(s, "c4"));
    ck_assert_uint_eq(s->adj[pt(s, "a1")], 1u << pt(s, "a3") | 1u << pt(s, "c1"));
    ck_assert(!is_mill(s, 1u << pt(s, "c5") | 1u << pt(s, "c4")));
    for (int p = 0; p < 9; p++) {
        char name[3] = {(char)('a' + p % 3), (char)('1' + p / 3), 0};
        ck_assert_int_eq(mmtb_variant_point(t, name), p);
        ck_assert_int_eq(t->x[p], p % 3);
        ck_assert_int_eq(t->y[p], p / 3);
    }
    ck_assert_int_eq(__builtin_popcount(t->adj[pt(t, "b2")]), 4);
    ck_assert_int_eq(__builtin_popcount(td->adj[pt(td, "b2")]), 8);
    ck_assert_int_eq(__builtin_popcount(td->adj[pt(td, "a1")]), 3);
    ck_assert(is_mill(td, 1u << pt(td, "a3") | 1u << pt(td, "b2") | 1u << pt(td, "c1")));
    ck_assert(!is_mill(t, 1u << pt(t, "a3") | 1u << pt(t, "b2") | 1u << pt(t, "c1")));
    mmtb_variant_free(s);
    mmtb_variant_free(t);
    mmtb_variant_free(td);
}
END_TEST

START_TEST(test_in_mill)
{
    struct mmtb_variant *v = load("nine");
    uint32_t mill = 1u << pt(v, "a7") | 1u << pt(v, "d7") | 1u << pt(v, "g7");
    uint32_t own = mill | 1u << pt(v, "b4") | 1u << pt(v, "a4");
    ck_assert_uint_eq(mmtb_variant_in_mill(v, own), mill);
    ck_assert_uint_eq(mmtb_variant_in_mill(v, own & ~(1u << pt(v, "d7"))), 0);
    own |= 1u << pt(v, "a1"); /* a1-a4-a7 closes too */
    ck_assert_uint_eq(mmtb_variant_in_mill(v, own), mill | 1u << pt(v, "a1") | 1u << pt(v, "a4"));
    ck_assert_uint_eq(mmtb_variant_in_mill(v, v->full), v->full);
    ck_assert(mmtb_closes_mill(v, own, pt(v, "a1")));
    ck_assert(!mmtb_closes_mill(v, own, pt(v, "b4")));
    mmtb_variant_free(v);
}
END_TEST

/* mmtb_variant_in_mill runs over the mills rounded up to 8: the masks
 * past nmills must be 0, and the result must equal the points of own
 * that some complete mill through them holds, on every built-in board. */
START_TEST(test_in_mill_every_board)
{
    for (const char *const *n = mmtb_variant_builtin_names(); *n; n++) {
        struct mmtb_variant *v = load(*n);
        for (int m = v->nmills; m < mmtb_variant_nmills_vec(v); m++)
            ck_assert_msg(v->mill[m] == 0, "%s: mill %d past nmills is not 0", *n, m);
        uint64_t x = 0x9e3779b97f4a7c15ull;
        for (int t = 0; t < 20000; t++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            /* dense and sparse sets both */
            uint32_t own = (uint32_t)x & (uint32_t)(x >> 32 | (t & 1 ? x >> 20 : 0)) & v->full;
            uint32_t want = 0;
            for (int p = 0; p < v->npoints; p++)
                for (uint64_t ms = v->mills_at[p]; ms; ms &= ms - 1)
                    if ((v->mill[__builtin_ctzll(ms)] & ~own) == 0)
                        want |= 1u << p;
            ck_assert_msg(mmtb_variant_in_mill(v, own) == want, "%s: in_mill(%#x) = %#x, not %#x",
                          *n, own, mmtb_variant_in_mill(v, own), want);
            for (int p = 0; p < v->npoints; p++)
                if (own >> p & 1)
                    ck_assert(mmtb_closes_mill(v, own, p) == (bool)(want >> p & 1));
        }
        mmtb_variant_free(v);
    }
}
END_TEST

/* ---- symmetry ---------------------------------------------------------- */

START_TEST(test_group_order)
{
    static const struct {
        const char *name;
        int order;
    } want[] = {{"nine", 16},   {"nine-nofly", 16}, {"nine-diag", 16},
                {"twelve", 16}, {"twelve-immune", 16}, {"twelve-nine", 16}, {"morabaraba", 16}, {"lasker", 16}, {"shah", 16},
                {"six", 16},    {"three", 8},       {"three-diag", 8}};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        struct mmtb_variant *v = load(want[i].name);
        ck_assert_msg(v->nsyms == want[i].order, "%s: %d symmetries", want[i].name, v->nsyms);
        mmtb_variant_free(v);
    }
    /* A hexagon has 12 symmetries, but only 6 keep the mills {a,b}, {c,d},
     * {e,f} (every point is in one mill, so only the mill test tells). */
    static const char hex[] = "name hex\nstones 3\n"
                              "point a1 1 0\npoint b1 2 0\npoint c1 3 1\n"
                              "point d1 2 2\npoint e1 1 2\npoint f1 0 1\n"
                              "line a1 b1 c1 d1 e1 f1\nline f1 a1\n"
                              "mill a1 b1\nmill c1 d1\nmill e1 f1\n";
    static const char hex_all[] = "name hex\nstones 3\n"
                                  "point a1 1 0\npoint b1 2 0\npoint c1 3 1\n"
                                  "point d1 2 2\npoint e1 1 2\npoint f1 0 1\n"
                                  "line a1 b1 c1 d1 e1 f1\nline f1 a1\n"
                                  "mill a1 b1\nmill c1 d1\nmill e1 f1\n"
                                  "mill b1 c1\nmill d1 e1\nmill f1 a1\n";
    struct mmtb_variant *v;
    char err[256];
    ck_assert_msg(mmtb_variant_parse(&v, hex, strlen(hex), "hex", err, sizeof err) == MMTB_OK, "%s",
                  err);
    ck_assert_int_eq(v->nsyms, 6);
    mmtb_variant_free(v);
    ck_assert(mmtb_variant_parse(&v, hex_all, strlen(hex_all), "hex", err, sizeof err) == MMTB_OK);
    ck_assert_int_eq(v->nsyms, 12);
    mmtb_variant_free(v);
}
END_TEST

/* Every element is a permutation preserving adjacency and mills; sym[0] is
 * the identity; the list is strictly sorted and closed under composition. */
START_TEST(test_sym_invariants)
{
    struct mmtb_variant *v = load(expected_names[_i]);
    int n = v->npoints;
    for (int p = 0; p < n; p++)
        ck_assert_int_eq(v->sym[0][p], p);
    for (int g = 0; g < v->nsyms; g++) {
        const int8_t *s = v->sym[g];
        uint32_t seen = 0;
        for (int p = 0; p < n; p++) {
            ck_assert(s[p] >= 0 && s[p] < n);
            seen |= 1u << s[p];
        }
        ck_assert_uint_eq(seen, v->full);
        for (int p = 0; p < n; p++)
            ck_assert_uint_eq(v->adj[s[p]], slow_apply(s, n, v->adj[p]));
        for (int m = 0; m < v->nmills; m++)
            ck_assert(is_mill(v, slow_apply(s, n, v->mill[m])));
        if (g > 0)
            ck_assert_int_lt(memcmp(v->sym[g - 1], s, (size_t)n), 0);
        for (int h = 0; h < v->nsyms; h++) {
            int8_t c[MMTB_MAX_POINTS];
            for (int p = 0; p < n; p++)
                c[p] = v->sym[h][s[p]];
            ck_assert_int_ge(find_sym(v, c), 0);
        }
    }
    mmtb_variant_free(v);
}
END_TEST

START_TEST(test_sym_inv)
{
    struct mmtb_variant *v = load(expected_names[_i]);
    for (int g = 0; g < v->nsyms; g++) {
        int h = v->sym_inv[g];
        ck_assert_int_lt(h, v->nsyms);
        for (int p = 0; p < v->npoints; p++) {
            ck_assert_int_eq(v->sym[h][v->sym[g][p]], p);
            ck_assert_int_eq(v->sym[g][v->sym[h][p]], p);
        }
    }
    ck_assert_int_eq(v->sym_inv[0], 0);
    mmtb_variant_free(v);
}
END_TEST

START_TEST(test_symtab)
{
    struct mmtb_variant *v = load(expected_names[_i]);
    rng_state = 12345 + (uint64_t)_i;
    for (int g = 0; g < v->nsyms; g++) {
        for (int k = 0; k < 2000; k++) {
            uint32_t m = (uint32_t)rnd() & v->full;
            uint32_t img = mmtb_sym_apply(v, g, m);
            ck_assert_uint_eq(img, slow_apply(v->sym[g], v->npoints, m));
            ck_assert_int_eq(__builtin_popcount(img), __builtin_popcount(m));
            ck_assert_uint_eq(mmtb_sym_apply(v, v->sym_inv[g], img), m);
        }
        ck_assert_uint_eq(mmtb_sym_apply(v, g, v->full), v->full);
        ck_assert_uint_eq(mmtb_sym_apply(v, g, 0), 0);
    }
    mmtb_variant_free(v);
}
END_TEST

/* The permutation taking point p to the point at f(x, y); -1s if a point
 * has no image. */
static void perm_from_coords(const struct mmtb_variant *v, int size, int kind, int8_t *perm)
{
    int m = size - 1;
    for (int p = 0; p < v->npoints; p++) {
        int x = v->x[p], y = v->y[p], nx, ny;
        switch (kind) {
        case 0:
            nx = y, ny = m - x;
            break; /* rotate 90 degrees clockwise */
        case 1:
            nx = m - x, ny = y;
            break; /* mirror left-right */
        default:
            nx = x, ny = y;
            break;
        }
        perm[p] = -1;
        for (int q = 0; q < v->npoints; q++)
            if (v->x[q] == nx && v->y[q] == ny)
                perm[p] = (int8_t)q;
        ck_assert_int_ge(perm[p], 0);
    }
}

static void compose(const int8_t *a, const int8_t *b, int n, int8_t *out) /* a after b */
{
    for (int p = 0; p < n; p++)
        out[p] = a[b[p]];
}

/* The group generated (independently of variant.c) by a rotation, a mirror
 * and, on the two-square boards, the inner/outer exchange must be exactly
 * the computed group. */
static void check_generated_group(const char *name, int size, const char *const *swap)
{
    struct mmtb_variant *v = load(name);
    int n = v->npoints;
    int8_t gen[3][MMTB_MAX_POINTS], elems[128][MMTB_MAX_POINTS];
    perm_from_coords(v, size, 0, gen[0]);
    perm_from_coords(v, size, 1, gen[1]);
    int ngen = 2;
    if (swap) {
        for (int p = 0; p < n; p++)
            gen[2][p] = (int8_t)p;
        for (int i = 0; swap[i]; i += 2) {
            int a = pt(v, swap[i]), b = pt(v, swap[i + 1]);
            gen[2][a] = (int8_t)b;
            gen[2][b] = (int8_t)a;
        }
        ngen = 3;
        ck_assert_msg(find_sym(v, gen[2]) >= 0, "%s: exchange not in the group", name);
    }
    ck_assert_msg(find_sym(v, gen[0]) >= 0, "%s: rotation not in the group", name);
    ck_assert_msg(find_sym(v, gen[1]) >= 0, "%s: mirror not in the group", name);
    /* Closure by breadth-first multiplication. */
    int ne = 1;
    for (int p = 0; p < n; p++)
        elems[0][p] = (int8_t)p;
    for (int i = 0; i < ne; i++)
        for (int j = 0; j < ngen; j++) {
            int8_t c[MMTB_MAX_POINTS];
            compose(gen[j], elems[i], n, c);
            int k;
            for (k = 0; k < ne; k++)
                if (memcmp(elems[k], c, (size_t)n) == 0)
                    break;
            if (k == ne) {
                ck_assert_int_lt(ne, 128);
                memcpy(elems[ne++], c, (size_t)n);
            }
        }
    ck_assert_int_eq(ne, v->nsyms);
    for (int i = 0; i < ne; i++)
        ck_assert_int_ge(find_sym(v, elems[i]), 0);
    mmtb_variant_free(v);
}

START_TEST(test_group_generated)
{
    static const char *const swap24[] = {"a7", "c5", "d7", "d5", "g7", "e5", "g4", "e4", "g1",
                                         "e3", "d1", "d3", "a1", "c3", "a4", "c4", NULL};
    static const char *const swap6[] = {"a5", "b4", "c5", "c4", "e5", "d4", "e3", "d3", "e1",
                                        "d2", "c1", "c2", "a1", "b2", "a3", "b3", NULL};
    check_generated_group("nine", 7, swap24);
    check_generated_group("nine-diag", 7, swap24);
    check_generated_group("twelve", 7, swap24);
    check_generated_group("morabaraba", 7, swap24);
    check_generated_group("six", 5, swap6);
    check_generated_group("three", 3, NULL);
    check_generated_group("three-diag", 3, NULL);
}
END_TEST

/* Next permutation in lexicographic order; false after the last. */
static bool next_perm(int8_t *a, int n)
{
    int i = n - 2;
    while (i >= 0 && a[i] > a[i + 1])
        i--;
    if (i < 0)
        return false;
    int j = n - 1;
    while (a[j] < a[i])
        j--;
    int8_t t = a[i];
    a[i] = a[j];
    a[j] = t;
    for (int l = i + 1, r = n - 1; l < r; l++, r--) {
        t = a[l];
        a[l] = a[r];
        a[r] = t;
    }
    return true;
}

/* Random small boards: the computed group must equal the list of all
 * permutations (enumerated in lexicographic order) that preserve the
 * adjacency and the set of mills. */
START_TEST(test_group_bruteforce)
{
    rng_state = 777;
    int checked = 0, too_many = 0;
    for (int iter = 0; iter < 600; iter++) {
        char text[2048];
        int n = 4 + (int)(rnd() % 4), len = 0;
        len += snprintf(text + len, sizeof text - len, "name r\nstones 2\nmin-stones 2\n");
        for (int p = 0; p < n; p++)
            len += snprintf(text + len, sizeof text - len, "point a%d %d 0\n", p, p);
        int nl = 2 + (int)(rnd() % 7);
        int lines[8][3], ll[8];
        for (int l = 0; l < nl; l++) {
            ll[l] = 2 + (int)(rnd() % 2);
            uint32_t used = 0;
            len += snprintf(text + len, sizeof text - len, "line");
            for (int i = 0; i < ll[l]; i++) {
                int p;
                do
                    p = (int)(rnd() % (uint64_t)n);
                while (used >> p & 1);
                used |= 1u << p;
                lines[l][i] = p;
                len += snprintf(text + len, sizeof text - len, " a%d", p);
            }
            len += snprintf(text + len, sizeof text - len, "\n");
        }
        for (int l = 0; l < nl; l++) {
            if (l > 0 && rnd() % 2)
                continue;
            len += snprintf(text + len, sizeof text - len, "mill");
            for (int i = 0; i < ll[l]; i++)
                len += snprintf(text + len, sizeof text - len, " a%d", lines[l][i]);
            len += snprintf(text + len, sizeof text - len, "\n");
        }
        struct mmtb_variant *v = NULL;
        char err[256];
        int rc = mmtb_variant_parse(&v, text, (size_t)len, "rand", err, sizeof err);
        if (rc != MMTB_OK) {
            ck_assert_int_eq(rc, MMTB_ERR_PARSE);
            if (strstr(err, "symmetries"))
                too_many++;
            continue; /* a duplicate line or mill, or a point on no line */
        }
        /* Brute force, in lexicographic order. */
        int8_t perm[MMTB_MAX_POINTS];
        int count = 0;
        for (int p = 0; p < n; p++)
            perm[p] = (int8_t)p;
        do {
            bool ok = true;
            for (int p = 0; p < n && ok; p++)
                ok = v->adj[perm[p]] == slow_apply(perm, n, v->adj[p]);
            for (int m = 0; m < v->nmills && ok; m++)
                ok = is_mill(v, slow_apply(perm, n, v->mill[m]));
            if (ok) {
                ck_assert_int_lt(count, v->nsyms);
                ck_assert_int_eq(memcmp(v->sym[count], perm, (size_t)n), 0);
                count++;
            }
        } while (next_perm(perm, n));
        ck_assert_int_eq(count, v->nsyms);
        checked++;
        mmtb_variant_free(v);
    }
    ck_assert_int_gt(checked, 100);
}
END_TEST

/* The order of the group elements is part of the index scheme: pin it by
 * the images of a few points for the standard board. */
START_TEST(test_sym_order_is_lexicographic)
{
    struct mmtb_variant *v = load("nine");
    /* sym[1] is the smallest non-identity array: it must fix as long a
     * prefix as possible, so no other element is smaller. */
    for (int g = 2; g < v->nsyms; g++)
        ck_assert_int_lt(memcmp(v->sym[1], v->sym[g], 24), 0);
    /* Element images of d5 (point 0) are non-decreasing along the list. */
    for (int g = 1; g < v->nsyms; g++)
        ck_assert_int_le(v->sym[g - 1][0], v->sym[g][0]);
    /* d5 maps onto each middle point of the inner and outer squares twice
     * (once with a reflection). */
    static const char *const mids[8] = {"d5", "e4", "d3", "c4", "d7", "g4", "d1", "a4"};
    for (int i = 0; i < 8; i++) {
        int c = 0;
        for (int g = 0; g < v->nsyms; g++)
            c += v->sym[g][0] == pt(v, mids[i]);
        ck_assert_int_eq(c, 2);
    }
    mmtb_variant_free(v);
}
END_TEST

/* ---- canonical text ---------------------------------------------------- */

static void assert_same_variant(const struct mmtb_variant *a, const struct mmtb_variant *b)
{
    ck_assert_str_eq(a->name, b->name);
    ck_assert_str_eq(a->title, b->title);
    ck_assert_int_eq(a->npoints, b->npoints);
    ck_assert_int_eq(memcmp(a->point_name, b->point_name, sizeof a->point_name), 0);
    ck_assert_int_eq(memcmp(a->x, b->x, sizeof a->x), 0);
    ck_assert_int_eq(memcmp(a->y, b->y, sizeof a->y), 0);
    ck_assert_int_eq(memcmp(a->adj, b->adj, sizeof a->adj), 0);
    ck_assert_uint_eq(a->full, b->full);
    ck_assert_int_eq(a->nlines, b->nlines);
    ck_assert_int_eq(memcmp(a->line_len, b->line_len, sizeof a->line_len), 0);
    ck_assert_int_eq(memcmp(a->line, b->line, sizeof a->line), 0);
    ck_assert_int_eq(a->nmills, b->nmills);
    ck_assert_int_eq(memcmp(a->mill, b->mill, sizeof a->mill), 0);
    ck_assert_int_eq(memcmp(a->mills_at, b->mills_at, sizeof a->mills_at), 0);
    ck_assert_int_eq(a->stones, b->stones);
    ck_assert_int_eq(a->fly, b->fly);
    ck_assert_int_eq(a->min_stones, b->min_stones);
    ck_assert_int_eq(a->removal, b->removal);
    ck_assert_int_eq(a->place_captures, b->place_captures);
    ck_assert_int_eq(a->first_mill_wins, b->first_mill_wins);
    ck_assert_int_eq(a->nomove, b->nomove);
    ck_assert_int_eq(a->full_board_draw, b->full_board_draw);
    ck_assert_int_eq(a->place_or_move, b->place_or_move);
    ck_assert_int_eq(a->no_reclose, b->no_reclose);
    ck_assert_int_eq(a->nsyms, b->nsyms);
    ck_assert_int_eq(memcmp(a->sym, b->sym, sizeof a->sym), 0);
    ck_assert_int_eq(memcmp(a->sym_inv, b->sym_inv, sizeof a->sym_inv), 0);
    ck_assert_int_eq(memcmp(a->symtab, b->symtab, sizeof a->symtab), 0);
    ck_assert_uint_eq(a->text_len, b->text_len);
    ck_assert_int_eq(memcmp(a->text, b->text, a->text_len), 0);
    ck_assert_uint_eq(a->fingerprint, b->fingerprint);
}

START_TEST(test_canonical_roundtrip)
{
    struct mmtb_variant *v = load(expected_names[_i]), *w = NULL;
    char err[256];
    ck_assert_uint_eq(strlen(v->text), v->text_len);
    ck_assert_uint_eq(v->fingerprint, fnv1a(v->text, v->text_len));
    int rc = mmtb_variant_parse(&w, v->text, v->text_len, "canonical", err, sizeof err);
    ck_assert_msg(rc == MMTB_OK, "%s", err);
    assert_same_variant(v, w);
    /* The canonical text has no comments, no blank lines, single spaces,
     * and every key. */
    ck_assert_ptr_null(strchr(v->text, '#'));
    ck_assert_ptr_null(strstr(v->text, "\n\n"));
    ck_assert_ptr_null(strstr(v->text, "  "));
    ck_assert_ptr_null(strchr(v->text, '\t'));
    ck_assert_int_eq(v->text[v->text_len - 1], '\n');
    static const char *const keys[] = {"name ",
                                       "\ntitle ",
                                       "\nstones ",
                                       "\nflying ",
                                       "\nmin-stones ",
                                       "\nremoval ",
                                       "\nplace-captures ",
                                       "\nfirst-mill-wins ",
                                       "\nno-move ",
                                       "\nfull-board-draw ",
                                       "\nplace-or-move ",
                                       "\nno-reclose ",
                                       "\npoint ",
                                       "\nline ",
                                       "\nmill "};
    const char *prev = v->text;
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
        const char *at = strstr(v->text, keys[k]);
        ck_assert_msg(at != NULL && at >= prev, "key %s missing or out of order", keys[k]);
        prev = at;
    }
    mmtb_variant_free(v);
    mmtb_variant_free(w);
}
END_TEST

START_TEST(test_fingerprints_distinct)
{
    uint64_t fp[NBUILTIN];
    for (int i = 0; i < NBUILTIN; i++) {
        struct mmtb_variant *v = load(expected_names[i]);
        fp[i] = v->fingerprint;
        for (int j = 0; j < i; j++)
            ck_assert_msg(fp[i] != fp[j], "%s and %s share a fingerprint", expected_names[i],
                          expected_names[j]);
        mmtb_variant_free(v);
    }
}
END_TEST

START_TEST(test_fnv_reference)
{
    /* Published FNV-1a 64 test vectors, to validate the test's own copy. */
    ck_assert_uint_eq(fnv1a("", 0), 0xcbf29ce484222325ull);
    ck_assert_uint_eq(fnv1a("a", 1), 0xaf63dc4c8601ec8cull);
    ck_assert_uint_eq(fnv1a("foobar", 6), 0x85944171f73967e8ull);
}
END_TEST

/* Comments, blank lines, tabs, CRLF, key order and defaults do not change
 * the variant; a reversed mill is written in line order. */
/* Shah's keys: written in the canonical text only when not at their
 * defaults (so a descriptor that spells the defaults has the fingerprint of
 * one that omits them, as before the keys existed), parsed back, and
 * refused in combinations the rules do not cover. */
START_TEST(test_shah_keys)
{
    static const char base[] = "name t\nstones 3\n"
                               "point a1 0 0\npoint b1 1 0\npoint c1 2 0\n"
                               "point a2 0 1\npoint b2 1 1\npoint c2 2 1\n"
                               "line a1 b1 c1\nline a2 b2 c2\nline a1 a2\nmill a1 b1 c1\n";
    char text[1024], err[256];
    struct mmtb_variant *a, *b, *c;
    ck_assert(mmtb_variant_parse(&a, base, strlen(base), "a", err, sizeof err) == MMTB_OK);
    ck_assert_ptr_null(strstr(a->text, "first-mill-removal"));
    ck_assert_ptr_null(strstr(a->text, "trapped"));
    snprintf(text, sizeof text, "%sfirst-mill-removal no\ntrapped-capture yes\nboth-trapped pass\n",
             base);
    ck_assert(mmtb_variant_parse(&b, text, strlen(text), "b", err, sizeof err) == MMTB_OK);
    ck_assert_uint_eq(a->fingerprint, b->fingerprint);
    ck_assert_str_eq(a->text, b->text);
    mmtb_variant_free(b);
    snprintf(text, sizeof text,
             "%splace-captures no\nfirst-mill-removal yes\ntrapped-capture no\nboth-trapped draw\n",
             base);
    ck_assert_msg(mmtb_variant_parse(&b, text, strlen(text), "b", err, sizeof err) == MMTB_OK,
                  "%s", err);
    ck_assert(b->first_mill_removal && !b->trapped_capture && b->both_trapped_draw);
    ck_assert_ptr_nonnull(strstr(b->text, "\nfirst-mill-removal yes\ntrapped-capture no\n"
                                          "both-trapped draw\npoint "));
    ck_assert_uint_ne(a->fingerprint, b->fingerprint);
    ck_assert(mmtb_variant_parse(&c, b->text, b->text_len, "c", err, sizeof err) == MMTB_OK);
    ck_assert_str_eq(c->text, b->text);
    mmtb_variant_free(c);
    mmtb_variant_free(b);
    /* first-mill-removal needs captureless placement. */
    snprintf(text, sizeof text, "%sfirst-mill-removal yes\n", base);
    ck_assert_int_eq(mmtb_variant_parse(&b, text, strlen(text), "b", err, sizeof err),
                     MMTB_ERR_PARSE);
    ck_assert_ptr_nonnull(strstr(err, "needs place-captures no"));
    snprintf(text, sizeof text, "%sboth-trapped lose\n", base);
    ck_assert_int_eq(mmtb_variant_parse(&b, text, strlen(text), "b", err, sizeof err),
                     MMTB_ERR_PARSE);
    ck_assert_ptr_nonnull(strstr(err, "'both-trapped' expects pass or draw"));
    snprintf(text, sizeof text, "%strapped-capture maybe\n", base);
    ck_assert_int_eq(mmtb_variant_parse(&b, text, strlen(text), "b", err, sizeof err),
                     MMTB_ERR_PARSE);
    mmtb_variant_free(a);
}
END_TEST

START_TEST(test_canonical_normalises)
{
    static const char a[] = "name t\nstones 3\n"
                            "point a1 0 0\npoint b1 1 0\npoint c1 2 0\n"
                            "point a2 0 1\npoint b2 1 1\npoint c2 2 1\n"
                            "line a1 b1 c1\nline a2 b2 c2\nline a1 a2\nmill a1 b1 c1\n";
    static const char b[] = "# a comment\r\n\r\n  mill   c1 b1 a1 # reversed\r\n"
                            "line a1\tb1 c1\r\nline a2 b2 c2\nline a1 a2\n"
                            "point a1 0 0\npoint b1 1 0\npoint c1 2 0\n"
                            "point a2 0 1\npoint b2 1 1\npoint c2 2 1\n"
                            "stones 3\nflying off\nmin-stones 3\nremoval standard\n"
                            "place-captures yes\nfirst-mill-wins no\nno-move lose\n"
                            "full-board-draw no\nplace-or-move no\nno-reclose no\n"
                            "title   t   \nname t";
    struct mmtb_variant *va, *vb;
    char err[256];
    ck_assert_msg(mmtb_variant_parse(&va, a, strlen(a), "a", err, sizeof err) == MMTB_OK, "%s",
                  err);
    ck_assert_msg(mmtb_variant_parse(&vb, b, strlen(b), "b", err, sizeof err) == MMTB_OK, "%s",
                  err);
    assert_same_variant(va, vb);
    ck_assert_str_eq(va->title, "t");
    ck_assert_ptr_nonnull(strstr(va->text, "\nmill a1 b1 c1\n"));
    /* A rule change changes the fingerprint. */
    struct mmtb_variant *vc;
    char c[sizeof a + 32];
    snprintf(c, sizeof c, "%sflying 3\n", a);
    ck_assert(mmtb_variant_parse(&vc, c, strlen(c), "c", err, sizeof err) == MMTB_OK);
    ck_assert_uint_ne(vc->fingerprint, va->fingerprint);
    /* The board is the path c2-b2-a2-a1-b1-c1; its reversal swaps the rows,
     * but only the first row is a mill. */
    ck_assert_int_eq(va->nsyms, 1);
    mmtb_variant_free(va);
    mmtb_variant_free(vb);
    mmtb_variant_free(vc);
}
END_TEST

/* ---- errors ------------------------------------------------------------ */

/* Lines 1-12 of a valid descriptor; error cases replace or append lines. */
#define BASE_HEAD "name t\nstones 3\n"
#define BASE_POINTS                                                                                \
    "point a1 0 0\npoint b1 1 0\npoint c1 2 0\npoint a2 0 1\npoint b2 1 "                          \
    "1\npoint c2 2 1\n"
#define BASE_LINES "line a1 b1 c1\nline a2 b2 c2\nline a1 a2\n"
#define BASE_MILLS "mill a1 b1 c1\n"
#define BASE BASE_HEAD BASE_POINTS BASE_LINES BASE_MILLS

/* Parse and expect MMTB_ERR_PARSE with "err:LINE: " and `what` in the message.
 */
static void expect_error(const char *text, size_t len, unsigned long line, const char *what)
{
    struct mmtb_variant *v = (struct mmtb_variant *)1;
    char err[512], prefix[64];
    int rc = mmtb_variant_parse(&v, text, len, "err", err, sizeof err);
    ck_assert_msg(rc == MMTB_ERR_PARSE, "expected a parse error (%s), got %d", what, rc);
    ck_assert_ptr_null(v);
    snprintf(prefix, sizeof prefix, "err:%lu: ", line);
    ck_assert_msg(strncmp(err, prefix, strlen(prefix)) == 0, "'%s' does not start with '%s'", err,
                  prefix);
    ck_assert_msg(strstr(err, what) != NULL, "'%s' does not mention '%s'", err, what);
}

static void expect_error_str(const char *text, unsigned long line, const char *what)
{
    expect_error(text, strlen(text), line, what);
}

START_TEST(test_base_is_valid)
{
    struct mmtb_variant *v;
    char err[256];
    ck_assert_msg(mmtb_variant_parse(&v, BASE, strlen(BASE), "b", err, sizeof err) == MMTB_OK, "%s",
                  err);
    ck_assert_int_eq(v->npoints, 6);
    mmtb_variant_free(v);
}
END_TEST

START_TEST(test_errors)
{
    expect_error_str(BASE "colour red\n", 13, "unknown key 'colour'");
    expect_error_str(BASE "stones 2\n", 13, "duplicate key 'stones' (first on line 2)");
    expect_error_str(BASE "title x\ntitle y\n", 14, "duplicate key 'title'");
    expect_error_str("stones 3\n" BASE_POINTS BASE_LINES BASE_MILLS, 11,
                     "missing required key 'name'");
    expect_error_str("name t\n" BASE_POINTS BASE_LINES BASE_MILLS, 11,
                     "missing required key 'stones'");
    expect_error_str(BASE_HEAD BASE_POINTS BASE_LINES, 11, "missing required key 'mill'");
    expect_error_str(BASE_HEAD, 2, "missing required key 'point'");
    expect_error_str("name t\nstones 3x\n" BASE_POINTS BASE_LINES BASE_MILLS, 2, "bad number");
    expect_error_str("name t\nstones 99999999999999999999999\n" BASE_POINTS BASE_LINES, 2,
                     "bad number");
    expect_error_str("name t\nstones -3\n", 2, "bad number");
    expect_error_str("name t\nstones 0\n", 2, "bad number");
    expect_error_str("name t\nstones 17\n", 2, "bad number");
    expect_error_str("name t\nstones 3 4\n", 2, "exactly one value");
    expect_error_str("name t\nstones\n", 2, "exactly one value");
    expect_error_str(BASE "line a1 z9\n", 13, "unknown point 'z9'");
    expect_error_str(BASE "mill a1 q2\n", 13, "unknown point 'q2'");
    expect_error_str(BASE "point a1 5 5\n", 13, "duplicate point 'a1' (first on line 3)");
    expect_error_str(BASE "point d1 0 0\n", 13, "coordinates of 'a1'");
    expect_error_str(BASE "point A1 5 5\n", 13, "bad point name");
    expect_error_str(BASE "point a1x 5 5\n", 13, "bad point name");
    expect_error_str(BASE "point d1 5\n", 13, "NAME X Y");
    expect_error_str(BASE "point d1 5 500\n", 13, "bad number '500'");
    expect_error_str(BASE "mill a1 c1\n", 13, "not consecutive points of one line");
    expect_error_str(BASE "mill a1 c2\n", 13, "not consecutive points of one line");
    expect_error_str(BASE "mill a1 c1 b1\n", 13, "not consecutive points of one line");
    expect_error_str(BASE "mill c1 a1\n", 13, "not consecutive points of one line");
    expect_error_str(BASE "mill b2 a1\n", 13, "not consecutive points of one line");
    expect_error_str(BASE "mill c1 b1 a1\n", 13, "duplicate mill (same points as line 12)");
    expect_error_str(BASE "mill a1\n", 13, "at least 2 points");
    expect_error_str(BASE "mill a1 b1 a1\n", 13, "appears twice");
    expect_error_str(BASE "line c1 b1 a1\n", 13, "duplicate line (same as line 9)");
    expect_error_str(BASE "line a1\n", 13, "at least 2 points");
    expect_error_str(BASE "line a1 b2 a1\n", 13, "appears twice");
    expect_error_str(BASE "point d5 5 5\n", 13, "point 'd5' is on no line");
    expect_error_str(BASE "place-captures maybe\n", 13, "expects no or yes, not 'maybe'");
    expect_error_str(BASE "first-mill-wins 1\n", 13, "expects no or yes");
    expect_error_str(BASE "removal some\n", 13, "expects standard, any or immune");
    expect_error_str(BASE "no-move skip\n", 13, "expects lose or pass");
    expect_error_str(BASE "flying 0\n", 13, "'flying' expects off or a number");
    expect_error_str(BASE "flying 4\n", 13, "flying at 4 exceeds the 3 stones");
    expect_error_str(BASE "min-stones 5\n", 13, "min-stones 5 exceeds");
    expect_error_str("name t\nstones 4\n" BASE_POINTS BASE_LINES BASE_MILLS, 2,
                     "do not fit on 6 points");
    expect_error_str("name T\nstones 3\n", 1, "bad name 'T'");
    expect_error_str("name abcdefghijklmnopqrstuvwxyz0123456\n", 1, "name too long");
    expect_error_str(BASE "title \n", 13, "'title' needs a text");
    expect_error_str(BASE "title # only a comment\n", 13, "'title' needs a text");
    {
        char t[512];
        snprintf(t, sizeof t, "%stitle %0100d\n", BASE, 7);
        expect_error_str(t, 13, "title too long");
    }
    expect_error_str(BASE "stones\x01 3\n", 13, "invalid control byte 0x01");
    /* A NUL byte in the middle of a line. */
    static const char nul[] = BASE "name\0t\n";
    expect_error(nul, sizeof nul - 1, 13, "invalid control byte 0x00");
    /* ... but inside a comment it is only a comment. */
    static const char nulc[] = BASE "# x\0y\n";
    struct mmtb_variant *v;
    char err[256];
    ck_assert_int_eq(mmtb_variant_parse(&v, nulc, sizeof nulc - 1, "c", err, sizeof err), MMTB_OK);
    mmtb_variant_free(v);
    /* Line numbers count lines without a final newline and CRLF lines. */
    expect_error_str(BASE "\r\n\r\nbogus", 15, "unknown key 'bogus'");
    /* Problems found after the text is read name its last line. */
    expect_error_str(BASE_HEAD BASE_POINTS "\n\n", 10, "missing required key 'line'");
}
END_TEST

/* Limits: points, lines, mills, line length, symmetries, long lines. */
START_TEST(test_error_limits)
{
    static char t[1 << 17];
    size_t n;
    /* 33 points: the 33rd is on line 35. */
    n = (size_t)snprintf(t, sizeof t, "name t\nstones 3\n");
    for (int i = 0; i < 33; i++)
        n += (size_t)snprintf(t + n, sizeof t - n, "point a%d %d 0\n", i, i);
    expect_error(t, n, 35, "too many points (at most 32)");

    /* 32 points on one long line: 65 lines and 65 mills. */
    n = (size_t)snprintf(t, sizeof t, "name t\nstones 3\n");
    for (int i = 0; i < 32; i++)
        n += (size_t)snprintf(t + n, sizeof t - n, "point a%d %d 0\n", i, i);
    size_t base = n; /* 34 lines so far */
    n += (size_t)snprintf(t + n, sizeof t - n, "line");
    for (int i = 0; i < 32; i++)
        n += (size_t)snprintf(t + n, sizeof t - n, " a%d", i);
    n += (size_t)snprintf(t + n, sizeof t - n, "\nmill a0 a1 a2\n"); /* lines 35, 36 */
    {
        struct mmtb_variant *v;
        char err[256];
        ck_assert_msg(mmtb_variant_parse(&v, t, n, "ok", err, sizeof err) == MMTB_OK, "%s", err);
        ck_assert_int_eq(v->nsyms, 1); /* the reversal moves the only mill */
        ck_assert_int_eq(v->line_len[0], 32);
        mmtb_variant_free(v);
    }
    size_t with_line = n;
    for (int i = 0; i < 65; i++)
        n += (size_t)snprintf(t + n, sizeof t - n, "line a%d a%d\n", i % 31, i % 31 + 1);
    /* One line so far; the 64th added one (line 36 + 64) is the 65th. */
    expect_error(t, n, 36 + 64, "too many lines (at most 64)");
    n = with_line;
    int k = 0;
    for (int len = 2; k < 65; len++)
        for (int s = 0; s + len <= 32 && k < 65; s++) {
            if (len == 3 && s == 0)
                continue; /* already there */
            n += (size_t)snprintf(t + n, sizeof t - n, "mill");
            for (int i = s; i < s + len; i++)
                n += (size_t)snprintf(t + n, sizeof t - n, " a%d", i);
            n += (size_t)snprintf(t + n, sizeof t - n, "\n");
            k++;
        }
    expect_error(t, n, 36 + 64, "too many mills (at most 64)");
    /* A line listing 33 points is refused without overflow. */
    n = base;
    n += (size_t)snprintf(t + n, sizeof t - n, "line");
    for (int i = 0; i < 40; i++)
        n += (size_t)snprintf(t + n, sizeof t - n, " a%d", i % 32);
    n += (size_t)snprintf(t + n, sizeof t - n, "\n");
    expect_error(t, n, 35, "too many values for 'line'");

    /* A star with 6 arms has 720 symmetries. */
    expect_error_str("name star\nstones 3\npoint c0 0 0\n"
                     "point a1 1 0\npoint a2 2 0\npoint a3 3 0\n"
                     "point a4 4 0\npoint a5 5 0\npoint a6 6 0\n"
                     "line c0 a1\nline c0 a2\nline c0 a3\nline c0 a4\nline c0 a5\nline c0 a6\n"
                     "mill c0 a1\nmill c0 a2\nmill c0 a3\nmill c0 a4\nmill c0 a5\nmill c0 "
                     "a6\n",
                     21, "more than 64 symmetries");

    /* A very long line and a huge number. */
    n = (size_t)snprintf(t, sizeof t, BASE "min-stones ");
    memset(t + n, '9', 100000);
    n += 100000;
    expect_error(t, n, 13, "bad number '999999999999999999999999...'");
    n = (size_t)snprintf(t, sizeof t, BASE);
    memset(t + n, 'k', 100000);
    n += 100000;
    expect_error(t, n, 13, "unknown key");
}
END_TEST

START_TEST(test_error_buffers)
{
    struct mmtb_variant *v;
    static const char bad[] = BASE "colour red\n";
    char small[8];
    memset(small, 'x', sizeof small);
    ck_assert_int_eq(mmtb_variant_parse(&v, bad, strlen(bad), "source", small, sizeof small),
                     MMTB_ERR_PARSE);
    ck_assert_uint_eq(strlen(small), sizeof small - 1);
    ck_assert_int_eq(mmtb_variant_parse(&v, bad, strlen(bad), "source", NULL, 0), MMTB_ERR_PARSE);
    ck_assert_int_eq(mmtb_variant_parse(&v, bad, strlen(bad), NULL, small, 1), MMTB_ERR_PARSE);
    ck_assert_str_eq(small, "");
    ck_assert_int_eq(mmtb_variant_parse(NULL, bad, strlen(bad), "s", NULL, 0), MMTB_ERR_INVALID);
    ck_assert_int_eq(mmtb_variant_parse(&v, NULL, 5, "s", NULL, 0), MMTB_ERR_INVALID);
    expect_error(NULL, 0, 1, "missing required key 'name'");
    expect_error("", 0, 1, "missing required key 'name'");
}
END_TEST

START_TEST(test_load_errors)
{
    struct mmtb_variant *v = (struct mmtb_variant *)1;
    char err[1024], want[1024];
    const char *path = MMTB_BINARY_DIR "/no/such/variant.txt";
    ck_assert_int_eq(mmtb_variant_load(&v, path, err, sizeof err), MMTB_ERR_IO);
    ck_assert_ptr_null(v);
    snprintf(want, sizeof want, "%s: cannot open: %s", path, strerror(ENOENT));
    ck_assert_str_eq(err, want);
    ck_assert_int_eq(mmtb_variant_load(&v, "no-such-builtin", err, sizeof err), MMTB_ERR_IO);
    ck_assert_ptr_nonnull(strstr(err, "no-such-builtin: cannot open: "));
    /* A malformed file names itself and the line. */
    char tmp[512];
    snprintf(tmp, sizeof tmp, "%s/check_variant_bad.txt", MMTB_BINARY_DIR);
    FILE *f = fopen(tmp, "wb");
    ck_assert_ptr_nonnull(f);
    fputs(BASE "mill a1 c1\n", f);
    fclose(f);
    ck_assert_int_eq(mmtb_variant_load(&v, tmp, err, sizeof err), MMTB_ERR_PARSE);
    snprintf(want, sizeof want, "%s:13: ", tmp);
    ck_assert_msg(strncmp(err, want, strlen(want)) == 0, "%s", err);
    remove(tmp);
}
END_TEST

START_TEST(test_strerror)
{
    static const int codes[] = {
        MMTB_OK,          MMTB_ERR_INVALID,    MMTB_ERR_NOMEM,    MMTB_ERR_IO,
        MMTB_ERR_CORRUPT, MMTB_ERR_MISSING,    MMTB_ERR_MISMATCH, MMTB_ERR_UNSUPPORTED,
        MMTB_ERR_PARSE,   MMTB_ERR_NOT_IN_GAME};
    const int n = (int)(sizeof codes / sizeof codes[0]);
    for (int i = 0; i < n; i++) {
        const char *s = mmtb_strerror(codes[i]);
        ck_assert_ptr_nonnull(s);
        ck_assert_int_gt(strlen(s), 0);
        ck_assert_str_ne(s, "unknown status");
        for (int j = 0; j < i; j++)
            ck_assert_str_ne(s, mmtb_strerror(codes[j]));
    }
    ck_assert_str_eq(mmtb_strerror(1), "unknown status");
    ck_assert_str_eq(mmtb_strerror(-10), "unknown status");
    ck_assert_str_eq(mmtb_strerror(-1000000), "unknown status");
}
END_TEST

/* ---- fuzz -------------------------------------------------------------- */

/* Random mutations of the built-in texts: the parser must never crash
 * (ASan/UBSan builds check memory), and must either accept (then the
 * canonical text round-trips) or fail with a "SOURCE:LINE: ..." message. */
START_TEST(test_fuzz)
{
    static const char interesting[] = " \n\t\r#-0123456789abcdgxyz\0\x7f\x80\xff";
    rng_state = 20240601;
    int accepted = 0, rejected = 0;
    for (int iter = 0; iter < 4000; iter++) {
        const char *src = mmtb_variant_builtin_text(expected_names[rnd() % NBUILTIN]);
        size_t len = strlen(src), cap = len + 70000;
        char *buf = malloc(cap);
        ck_assert_ptr_nonnull(buf);
        memcpy(buf, src, len);
        int nmut = 1 + (int)(rnd() % 6);
        for (int m = 0; m < nmut; m++) {
            size_t at = len ? (size_t)(rnd() % (len + 1)) : 0;
            unsigned char c = (rnd() & 1)
                                  ? (unsigned char)interesting[rnd() % (sizeof interesting - 1)]
                                  : (unsigned char)rnd();
            switch (rnd() % 8) {
            case 0:
            case 1: /* overwrite a byte */
                if (at < len)
                    buf[at] = (char)c;
                break;
            case 2:
            case 3: /* insert a byte */
                memmove(buf + at + 1, buf + at, len - at);
                buf[at] = (char)c;
                len++;
                break;
            case 4:
            case 5: /* delete a byte */
                if (at < len) {
                    memmove(buf + at, buf + at + 1, len - at - 1);
                    len--;
                }
                break;
            case 6: /* truncate */
                len = at;
                break;
            default: /* a long run of one byte */
                if (len + 60000 < cap) {
                    size_t run = (size_t)(rnd() % 60000);
                    memmove(buf + at + run, buf + at, len - at);
                    memset(buf + at, c, run);
                    len += run;
                }
                break;
            }
        }
        /* Exactly len bytes, unterminated, so ASan catches over-reads. */
        char *text = malloc(len ? len : 1);
        ck_assert_ptr_nonnull(text);
        memcpy(text, buf, len);
        free(buf);
        struct mmtb_variant *v = NULL;
        char err[256];
        err[0] = 'x';
        int rc = mmtb_variant_parse(&v, text, len, "fuzz", err, sizeof err);
        if (rc == MMTB_OK) {
            accepted++;
            struct mmtb_variant *w = NULL;
            ck_assert_int_eq(mmtb_variant_parse(&w, v->text, v->text_len, "re", err, sizeof err),
                             MMTB_OK);
            ck_assert_uint_eq(w->fingerprint, v->fingerprint);
            ck_assert_int_ge(v->nsyms, 1);
            for (int p = 0; p < v->npoints; p++)
                ck_assert_int_eq(v->sym[0][p], p);
            mmtb_variant_free(w);
            mmtb_variant_free(v);
        } else {
            rejected++;
            ck_assert_int_eq(rc, MMTB_ERR_PARSE);
            ck_assert_ptr_null(v);
            ck_assert_int_gt(strlen(err), 0);
            ck_assert_msg(strncmp(err, "fuzz:", 5) == 0, "%s", err);
            unsigned long line = 0;
            ck_assert_msg(sscanf(err, "fuzz:%lu: ", &line) == 1 && line >= 1, "%s", err);
        }
        free(text);
    }
    /* Both outcomes must occur, or the mutations are not testing anything. */
    ck_assert_int_gt(accepted, 100);
    ck_assert_int_gt(rejected, 1000);
}
END_TEST

static Suite *variant_suite(void)
{
    Suite *s = suite_create("variant");
    TCase *tc = tcase_create("builtin");
    tcase_add_test(tc, test_builtin_list);
    tcase_add_loop_test(tc, test_builtin_parses, 0, NBUILTIN);
    tcase_add_loop_test(tc, test_builtin_matches_file, 0, NBUILTIN);
    tcase_add_test(tc, test_builtin_rules);
    tcase_add_test(tc, test_board24);
    tcase_add_test(tc, test_board_small);
    tcase_add_test(tc, test_in_mill);
    suite_add_tcase(s, tc);

    /* 20,000 sets on every built-in board: 12.7 s (7.6 s of CPU) alone
     * under the sanitizers on 2026-12-05's machine, past the 4 s default */
    tc = tcase_create("in_mill");
    tcase_add_test(tc, test_in_mill_every_board);
    tcase_set_timeout(tc, 60);
    suite_add_tcase(s, tc);

    /* test_group_bruteforce takes 0.4 s under the sanitizers, but went past Check's default
     * 4 s in a full scripts/test beside a solve (2026-12-05): room for a loaded machine */
    tc = tcase_create("symmetry");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_group_order);
    tcase_add_loop_test(tc, test_sym_invariants, 0, NBUILTIN);
    tcase_add_loop_test(tc, test_sym_inv, 0, NBUILTIN);
    tcase_add_loop_test(tc, test_symtab, 0, NBUILTIN);
    tcase_add_test(tc, test_group_generated);
    tcase_add_test(tc, test_group_bruteforce);
    tcase_add_test(tc, test_sym_order_is_lexicographic);
    suite_add_tcase(s, tc);

    tc = tcase_create("canonical");
    tcase_add_loop_test(tc, test_canonical_roundtrip, 0, NBUILTIN);
    tcase_add_test(tc, test_shah_keys);
    tcase_add_test(tc, test_fingerprints_distinct);
    tcase_add_test(tc, test_fnv_reference);
    tcase_add_test(tc, test_canonical_normalises);
    suite_add_tcase(s, tc);

    tc = tcase_create("errors");
    tcase_add_test(tc, test_base_is_valid);
    tcase_add_test(tc, test_errors);
    tcase_add_test(tc, test_error_limits);
    tcase_add_test(tc, test_error_buffers);
    tcase_add_test(tc, test_load_errors);
    tcase_add_test(tc, test_strerror);
    suite_add_tcase(s, tc);

    tc = tcase_create("fuzz");
    tcase_add_test(tc, test_fuzz);
    tcase_set_timeout(tc, 240);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(variant_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
