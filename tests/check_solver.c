/*
 * check_solver.c - quick tests of the solver's own rules code and of a
 * tiny solve: gen/succ.c (successors and quiet predecessors on bitboards)
 * against format/movegen.c on random positions of every variant but
 * Twelve Men's Morris (movement and placement sectors), and the local
 * consistency of every value of a solved Three Men's Morris (diagonals)
 * movement sector, read through mmtb_probe / mmtb_probe_moves.
 */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ban_index.h"
#include "../gen/succ.h"
#include "mmtb.h"
#include "movegen.h"
#include "notation.h"
#include "sector_index.h"
#include "solve.h"
#include "variant.h"

/* Random positions per variant and kind of sector (movement, placement). */
#define SAMPLES 3000

/* Assertions for inner loops: only call into Check when they fail. */
#define REQUIRE(cond)                                                                              \
    do {                                                                                           \
        if (!(cond))                                                                               \
            ck_abort_msg("Assertion '%s' failed", #cond);                                          \
    } while (0)

static struct mmtb_variant *load(const char *name)
{
    struct mmtb_variant *v = NULL;
    char err[256] = "";
    int st = mmtb_variant_load(&v, name, err, sizeof err);
    ck_assert_msg(st == MMTB_OK, "loading %s: %s", name, err);
    return v;
}

/* xorshift64*: reproducible pseudo-random numbers. */
static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static uint64_t rnd(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 0x2545f4914f6cdd1dull;
}
static int rnd_below(int n)
{
    return (int)(rnd() % (uint64_t)n);
}

/* k random points of the board outside `taken`. */
static uint32_t random_points(const struct mmtb_variant *v, uint32_t taken, int k)
{
    uint32_t m = 0;
    while (k > 0) {
        int p = rnd_below(v->npoints);
        uint32_t bit = UINT32_C(1) << p;
        if ((taken | m) & bit)
            continue;
        m |= bit;
        k--;
    }
    return m;
}

static bool has_mill(const struct mmtb_variant *v, uint32_t set)
{
    for (int i = 0; i < v->nmills; i++)
        if ((set & v->mill[i]) == v->mill[i])
            return true;
    return false;
}

/* The position (mover, opp) of sector s with the mover as White to move. */
static struct mmtb_pos make_pos(struct mmtb_sector s, uint32_t mover, uint32_t opp)
{
    struct mmtb_pos p;
    memset(&p, 0, sizeof p);
    p.stones[MMTB_WHITE] = mover;
    p.stones[MMTB_BLACK] = opp;
    p.hand[MMTB_WHITE] = s.w_hand;
    p.hand[MMTB_BLACK] = s.b_hand;
    p.side = MMTB_WHITE;
    p.ban_from = p.ban_to = -1;
    return p;
}

/*
 * A random sector the solver could be asked to solve: each side has at
 * least min_stones (board + hand) and at most `stones`; placement = at
 * least one stone in hand somewhere.
 */
static struct mmtb_sector random_sector(const struct mmtb_variant *v, bool placement)
{
    for (;;) {
        struct mmtb_sector s = {0, 0, 0, 0};
        int tw = v->min_stones + rnd_below(v->stones - v->min_stones + 1);
        int tb = v->min_stones + rnd_below(v->stones - v->min_stones + 1);
        if (placement) {
            s.w_hand = (uint8_t)rnd_below(tw + 1);
            s.b_hand = (uint8_t)rnd_below(tb + 1);
            if (s.w_hand == 0 && s.b_hand == 0)
                continue;
        }
        s.w = (uint8_t)(tw - s.w_hand);
        s.b = (uint8_t)(tb - s.b_hand);
        if (s.w + s.b <= v->npoints)
            return s;
    }
}

/* ------------------------------------------------------------------------
 * Successors.
 * ---------------------------------------------------------------------- */

/* One successor as a sortable pair of words: kind, capture flag and (for a
 * stored position) its sector and masks. */
struct skey {
    uint64_t a, b;
};

static struct skey key_of(int kind, int capture, struct mmtb_sector t, uint32_t mover, uint32_t opp)
{
    struct skey k;
    if (kind == SUCC_WIN) {
        k.a = (uint64_t)1 << 40 | (uint64_t)(capture != 0) << 32;
        k.b = 0;
    } else {
        k.a = (uint64_t)(capture != 0) << 32 | (uint64_t)t.w << 24 | (uint64_t)t.b << 16 |
              (uint64_t)t.w_hand << 8 | t.b_hand;
        k.b = (uint64_t)mover << 32 | opp;
    }
    return k;
}

static int cmp_key(const void *x, const void *y)
{
    const struct skey *a = x, *b = y;
    if (a->a != b->a)
        return a->a < b->a ? -1 : 1;
    if (a->b != b->b)
        return a->b < b->b ? -1 : 1;
    return 0;
}

static int cmp_u64(const void *x, const void *y)
{
    uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
    return a < b ? -1 : a > b;
}

/* Whether the solver sees position (mover, opp) of sector t as a lost
 * game: succ_terminal says so, or it has no successor at all. */
static int solver_terminal(const struct mmtb_variant *v, struct mmtb_sector t, uint32_t mover,
                           uint32_t opp, struct succ *buf)
{
    int st = succ_terminal(v, t, mover, opp);
    if (st != MMTB_NOT_TERMINAL)
        return st;
    return succ_generate(v, t, mover, opp, buf) == 0 ? MMTB_LOSS : MMTB_NOT_TERMINAL;
}

static void describe(const struct mmtb_variant *v, struct mmtb_sector s, uint32_t mover,
                     uint32_t opp, char *buf, size_t len)
{
    struct mmtb_pos p = make_pos(s, mover, opp);
    char sn[32];
    mmtb_sector_format(s, sn, sizeof sn);
    if (mmtb_pos_format(v, &p, buf, len) < 0)
        snprintf(buf, len, "?");
    size_t k = strlen(buf);
    snprintf(buf + k, len - k, " (sector %s)", sn);
}

/*
 * succ_generate against mmtb_gen_moves + mmtb_pos_apply on one position:
 * the terminal verdicts agree, and the successor multisets are equal (a
 * move that ends the game at once -- opponent below min_stones, or a mill
 * in a first-mill-wins variant -- is SUCC_WIN; every other one a SUCC_POS
 * with its sector and masks; the capture flags agree).  Every stored
 * successor is terminal for movegen exactly when the solver sees it as
 * lost at once (or drawn), and its sector is one of mmtb_sector_moves_to.
 * Returns the number of disagreements (and prints the first).
 */
static int check_successors(const struct mmtb_variant *v, struct mmtb_sector s, uint32_t mover,
                            uint32_t opp, struct succ *sc, struct succ *tmp,
                            struct mmtb_move *moves, struct skey *k1, struct skey *k2)
{
    char buf[256];
    struct mmtb_pos p = make_pos(s, mover, opp);
    REQUIRE(mmtb_pos_validate(v, &p, NULL, 0) == MMTB_OK);
    int t = mmtb_pos_terminal(v, &p);
    int st = solver_terminal(v, s, mover, opp, tmp);
    if (t != st) {
        describe(v, s, mover, opp, buf, sizeof buf);
        fprintf(stderr, "%s %s: movegen terminal %d, succ terminal %d\n", v->name, buf, t, st);
        return 1;
    }
    if (t != MMTB_NOT_TERMINAL)
        return 0;
    int nm = mmtb_gen_moves(v, &p, moves);
    int ns = succ_generate(v, s, mover, opp, sc);
    REQUIRE(nm > 0);
    struct mmtb_sector tos[8];
    int nto = mmtb_sector_moves_to(v, s, tos);
    int bad = 0;
    for (int i = 0; i < nm; i++) {
        struct mmtb_pos q;
        mmtb_pos_apply(v, &p, &moves[i], &q);
        REQUIRE(q.side == MMTB_BLACK);
        uint32_t qm = q.stones[MMTB_BLACK], qo = q.stones[MMTB_WHITE];
        bool capture = moves[i].remove >= 0;
        if (__builtin_popcount(qm) + q.hand[MMTB_BLACK] < v->min_stones ||
            (v->first_mill_wins && has_mill(v, qo))) {
            REQUIRE(mmtb_pos_terminal(v, &q) == MMTB_LOSS);
            k1[i] = key_of(SUCC_WIN, capture, (struct mmtb_sector){0, 0, 0, 0}, 0, 0);
            continue;
        }
        struct mmtb_sector qs = mmtb_pos_sector(&q);
        k1[i] = key_of(SUCC_POS, capture, qs, qm, qo);
        /* The successor's own verdicts agree. */
        int qt = mmtb_pos_terminal(v, &q), qst = solver_terminal(v, qs, qm, qo, tmp);
        if (qt != qst && bad++ == 0) {
            describe(v, qs, qm, qo, buf, sizeof buf);
            fprintf(stderr, "%s %s: movegen terminal %d, succ terminal %d\n", v->name, buf, qt,
                    qst);
        }
        bool listed = false;
        for (int k = 0; k < nto; k++)
            listed = listed || mmtb_sector_eq(tos[k], qs);
        if (!listed && bad++ == 0) {
            char sn[32];
            mmtb_sector_format(qs, sn, sizeof sn);
            describe(v, s, mover, opp, buf, sizeof buf);
            fprintf(stderr, "%s %s: a move leads to sector %s, not in mmtb_sector_moves_to\n",
                    v->name, buf, sn);
        }
    }
    /* succ_generate_counted writes the same list without the quiet moves
     * into the partner sector, in the same order, and counts those. */
    int nq = -1, nc = succ_generate_counted(v, s, mover, opp, tmp, &nq), kq = 0, kc = 0;
    struct mmtb_sector partner = sector_partner(s);
    for (int i = 0; i < ns; i++) {
        if (sc[i].kind == SUCC_POS && !sc[i].capture && mmtb_sector_eq(sc[i].t, partner)) {
            kq++;
            continue;
        }
        const struct succ *c = kc < nc ? &tmp[kc] : NULL;
        kc++;
        if (!c || c->kind != sc[i].kind || c->capture != sc[i].capture ||
            !mmtb_sector_eq(c->t, sc[i].t) || c->mover != sc[i].mover || c->opp != sc[i].opp)
            kc = nc + 1;
    }
    if ((kq != nq || kc != nc) && bad++ == 0) {
        describe(v, s, mover, opp, buf, sizeof buf);
        fprintf(stderr, "%s %s: succ_generate_counted gives %d + %d quiet, expected %d + %d\n",
                v->name, buf, nc, nq, ns - kq, kq);
    }
    /* succ_generate_placed (counting or not) writes the same list without
     * the placements that remove nothing, in the same order, and gives
     * their points. */
    for (int counted = 0; counted < 2; counted++) {
        uint32_t placed = 0, want = 0;
        int np = -1, n2 = succ_generate_placed(v, s, mover, opp, tmp, counted ? &np : NULL,
                                               &placed);
        int k = 0, kq2 = 0;
        bool same = true;
        for (int i = 0; i < ns; i++) {
            if (counted && sc[i].kind == SUCC_POS && !sc[i].capture &&
                mmtb_sector_eq(sc[i].t, partner)) {
                kq2++;
                continue;
            }
            if (s.w_hand > 0 && sc[i].kind == SUCC_POS && !sc[i].capture &&
                sc[i].t.w == s.b && sc[i].t.b == s.w + 1 && sc[i].t.b_hand == s.w_hand - 1) {
                uint32_t to = sc[i].opp & ~mover;
                same = same && sc[i].mover == opp && __builtin_popcount(to) == 1 && !(want & to);
                want |= to;
                continue;
            }
            const struct succ *c = k < n2 ? &tmp[k] : NULL;
            k++;
            same = same && c && c->kind == sc[i].kind && c->capture == sc[i].capture &&
                   mmtb_sector_eq(c->t, sc[i].t) && c->mover == sc[i].mover &&
                   c->opp == sc[i].opp;
        }
        same = same && k == n2 && placed == want && (!counted || np == kq2);
        if (!same && bad++ == 0) {
            describe(v, s, mover, opp, buf, sizeof buf);
            fprintf(stderr, "%s %s: succ_generate_placed (counted %d) gives %d + %08x placed\n",
                    v->name, buf, counted, n2, (unsigned)placed);
        }
    }
    /* succ_placements gives the same moves as masks: the quiet
     * placements, the closing ones and what each may remove (every pair a
     * successor), or a win at once */
    if (s.w_hand > 0 && !v->place_or_move && (v->full & ~(mover | opp))) {
        uint32_t quiet = 0, closers = 0, removable = 0, wq = 0, wc = 0, wr = 0;
        bool win = succ_placements(v, s, mover, opp, &quiet, &closers, &removable), wwin = false;
        int ncap = 0;
        for (int i = 0; i < ns; i++) {
            if (sc[i].kind == SUCC_WIN && !sc[i].capture) {
                wwin = true;
            } else if (sc[i].capture) {
                wc |= sc[i].opp & ~mover;
                wr |= opp & ~sc[i].mover;
                ncap++;
            } else {
                wq |= sc[i].opp & ~mover;
            }
        }
        bool same = win == wwin &&
                    (win || (quiet == wq && closers == wc && removable == wr &&
                             ncap == __builtin_popcount(wc) * __builtin_popcount(wr)));
        if (!same && bad++ == 0) {
            describe(v, s, mover, opp, buf, sizeof buf);
            fprintf(stderr, "%s %s: succ_placements gives %d, %08x quiet, %08x closing, %08x removable\n",
                    v->name, buf, (int)win, (unsigned)quiet, (unsigned)closers, (unsigned)removable);
        }
    }
    for (int i = 0; i < ns; i++)
        k2[i] = key_of(sc[i].kind, sc[i].capture, sc[i].t, sc[i].mover, sc[i].opp);
    qsort(k1, (size_t)nm, sizeof *k1, cmp_key);
    qsort(k2, (size_t)ns, sizeof *k2, cmp_key);
    if (nm != ns || memcmp(k1, k2, (size_t)nm * sizeof *k1) != 0) {
        if (bad++ == 0) {
            describe(v, s, mover, opp, buf, sizeof buf);
            fprintf(stderr, "%s %s: %d moves from movegen, %d successors from succ\n", v->name, buf,
                    nm, ns);
        }
    }
    return bad;
}

/*
 * succ_quiet_preds against brute force on one position p = (mover, opp) of
 * sector s: every candidate q of the partner sector whose mover's stones
 * differ from opp by at most one moved stone (and the other side's are
 * `mover`) is played out with movegen; q belongs to the set when one of its
 * moves removes nothing and yields p, unless p is a game already over by
 * the first-mill rule (see `ends`).  The same set must come from
 * succ_quiet_preds and from mmtb_gen_predecessors(MMTB_PRED_QUIET)
 * restricted to the partner sector.  Returns 1 on a disagreement.
 */
static int check_quiet_preds(const struct mmtb_variant *v, struct mmtb_sector s, uint32_t mover,
                             uint32_t opp, struct mmtb_move *moves, uint32_t *pm, uint32_t *po,
                             struct mmtb_pos *pp, uint64_t *a, uint64_t *b, uint64_t *c)
{
    struct mmtb_sector ps = sector_partner(s);
    uint32_t empty = v->full & ~(mover | opp);
    int na = 0;
    /* A move into p ends the game at once when p's opponent has a mill in a
     * first-mill-wins variant: the solver takes it as a win (SUCC_WIN), not
     * as a move to p, so such a q is no quiet predecessor of p. */
    bool ends = v->first_mill_wins && has_mill(v, opp);
    /* candidates: opp itself (a pass) and opp with one stone t moved to f */
    for (int step = -1; step < v->npoints; step++) {
        if (step >= 0 && !(opp & (UINT32_C(1) << step)))
            continue;
        uint32_t froms = step < 0 ? 1 : empty;
        for (; froms; froms &= froms - 1) {
            uint32_t cand =
                step < 0 ? opp
                         : (opp & ~(UINT32_C(1) << step)) | (UINT32_C(1) << __builtin_ctz(froms));
            struct mmtb_pos q = make_pos(ps, cand, mover);
            int nm = mmtb_gen_moves(v, &q, moves);
            REQUIRE(nm >= 0);
            for (int i = 0; i < nm; i++) {
                if (moves[i].remove >= 0)
                    continue;
                struct mmtb_pos r;
                mmtb_pos_apply(v, &q, &moves[i], &r);
                if (ends)
                    continue;
                if (r.stones[MMTB_BLACK] == mover && r.stones[MMTB_WHITE] == opp &&
                    r.hand[MMTB_BLACK] == s.w_hand && r.hand[MMTB_WHITE] == s.b_hand &&
                    r.remove == 0) {
                    a[na++] = (uint64_t)cand << 32 | mover;
                    break;
                }
            }
        }
    }
    int nb = succ_quiet_preds(v, s, mover, opp, pm, po);
    for (int i = 0; i < nb; i++)
        b[i] = (uint64_t)pm[i] << 32 | po[i];
    struct mmtb_pos p = make_pos(s, mover, opp);
    int ng = mmtb_gen_predecessors(v, &p, MMTB_PRED_QUIET, pp, MMTB_MAX_MOVES);
    REQUIRE(ng >= 0);
    int nc = 0;
    for (int i = 0; i < ng && !ends; i++)
        if (pp[i].side == MMTB_BLACK && pp[i].hand[MMTB_BLACK] == s.b_hand &&
            pp[i].hand[MMTB_WHITE] == s.w_hand &&
            __builtin_popcount(pp[i].stones[MMTB_BLACK]) == s.b)
            c[nc++] = (uint64_t)pp[i].stones[MMTB_BLACK] << 32 | pp[i].stones[MMTB_WHITE];
    qsort(a, (size_t)na, sizeof *a, cmp_u64);
    qsort(b, (size_t)nb, sizeof *b, cmp_u64);
    qsort(c, (size_t)nc, sizeof *c, cmp_u64);
    if (na == nb && na == nc && !memcmp(a, b, (size_t)na * sizeof *a) &&
        !memcmp(a, c, (size_t)na * sizeof *a))
        return 0;
    char buf[256];
    describe(v, s, mover, opp, buf, sizeof buf);
    fprintf(stderr, "%s %s: quiet predecessors: brute force %d, succ %d, movegen %d\n", v->name,
            buf, na, nb, nc);
    return 1;
}

/* Random positions of variant v: movement sectors, placement sectors,
 * movement sectors where the mover flies, and crowded movement positions
 * (the opponent first on the mover's neighbours: blocked movers, passes). */
static void check_variant_rules(struct mmtb_variant *v)
{
    struct succ *sc = malloc(MMTB_MAX_MOVES * sizeof *sc);
    struct succ *tmp = malloc(MMTB_MAX_MOVES * sizeof *tmp);
    struct mmtb_move *moves = malloc(MMTB_MAX_MOVES * sizeof *moves);
    struct skey *k1 = malloc(MMTB_MAX_MOVES * sizeof *k1);
    struct skey *k2 = malloc(MMTB_MAX_MOVES * sizeof *k2);
    uint32_t *pm = malloc(MMTB_MAX_MOVES * sizeof *pm), *po = malloc(MMTB_MAX_MOVES * sizeof *po);
    struct mmtb_pos *pp = malloc(MMTB_MAX_MOVES * sizeof *pp);
    uint64_t *a = malloc(MMTB_MAX_MOVES * sizeof *a), *b = malloc(MMTB_MAX_MOVES * sizeof *b),
             *c = malloc(MMTB_MAX_MOVES * sizeof *c);
    ck_assert(sc && tmp && moves && k1 && k2 && pm && po && pp && a && b && c);
    int bad_succ = 0, bad_pred = 0, terminal = 0, passes = 0, total = 0;
    for (int kind = 0; kind < 4; kind++) {
        for (int k = 0; k < SAMPLES; k++) {
            struct mmtb_sector s = random_sector(v, kind == 1);
            if (kind == 3) { /* crowded: opp first on the mover's neighbours */
                s.w_hand = s.b_hand = 0;
                s.w = (uint8_t)(v->stones - rnd_below(2));
                s.b = (uint8_t)(v->stones - rnd_below(3));
                while (s.w + s.b > v->npoints - 1)
                    s.b--, s.w -= s.w > s.b;
                if (s.w < v->min_stones || s.b < v->min_stones)
                    continue;
                uint32_t mover = random_points(v, 0, s.w), near = 0;
                for (uint32_t m = mover; m; m &= m - 1)
                    near |= v->adj[__builtin_ctz(m)];
                near &= ~mover;
                uint32_t opp = 0;
                int left = s.b;
                for (; near && left > 0 && rnd_below(8) != 0; left--) {
                    uint32_t pick = near;
                    for (int r = rnd_below(__builtin_popcount(near)); r > 0; r--)
                        pick &= pick - 1;
                    opp |= pick & -pick;
                    near &= ~(pick & -pick);
                }
                opp |= random_points(v, mover | opp, left);
                struct mmtb_pos p = make_pos(s, mover, opp);
                terminal += mmtb_pos_terminal(v, &p) != MMTB_NOT_TERMINAL;
                passes += mmtb_gen_moves(v, &p, moves) == 1 && moves[0].from == MMTB_MOVE_PASS;
                total++;
                bad_succ += check_successors(v, s, mover, opp, sc, tmp, moves, k1, k2) != 0;
                bad_pred += check_quiet_preds(v, s, mover, opp, moves, pm, po, pp, a, b, c);
                continue;
            }
            if (kind == 2) { /* a flying mover, if the variant flies */
                if (v->fly < v->min_stones)
                    break;
                s.w = (uint8_t)(v->min_stones + rnd_below(v->fly - v->min_stones + 1));
                s.w_hand = 0;
                if (s.w + s.b > v->npoints)
                    continue;
            }
            /* the sectors whose positions carry more than their stones
             * (Shah's placement: the first-mill owner) are solved on
             * movegen itself (init.c, levels.c); succ.c never sees them */
            if (mmtb_ban_index_applies(v, s))
                continue;
            uint32_t mover = random_points(v, 0, s.w);
            uint32_t opp = random_points(v, mover, s.b);
            struct mmtb_pos p = make_pos(s, mover, opp);
            terminal += mmtb_pos_terminal(v, &p) != MMTB_NOT_TERMINAL;
            total++;
            bad_succ += check_successors(v, s, mover, opp, sc, tmp, moves, k1, k2) != 0;
            bad_pred += check_quiet_preds(v, s, mover, opp, moves, pm, po, pp, a, b, c);
        }
    }
    fprintf(stderr,
            "%s: %d positions (%d terminal, %d blocked passing), %d successor and %d "
            "predecessor disagreements\n",
            v->name, total, terminal, passes, bad_succ, bad_pred);
    free(sc);
    free(tmp);
    free(moves);
    free(k1);
    free(k2);
    free(pm);
    free(po);
    free(pp);
    free(a);
    free(b);
    free(c);
    ck_assert_msg(bad_succ == 0, "%s: %d positions whose successors differ", v->name, bad_succ);
    ck_assert_msg(bad_pred == 0, "%s: %d positions whose quiet predecessors differ", v->name,
                  bad_pred);
}

/* Every built-in variant except those with Twelve Men's no-reclose rule
 * (succ.c does not model it; the solver takes those on movegen.c). */
START_TEST(test_succ_matches_movegen)
{
    const char *const *names = mmtb_variant_builtin_names();
    int n = 0;
    for (int i = 0; names[i]; i++) {
        struct mmtb_variant *v = load(names[i]);
        if (!v->no_reclose) {
            check_variant_rules(v);
            n++;
        }
        mmtb_variant_free(v);
    }
    ck_assert_int_ge(n, 8);
}
END_TEST

/* Rules no built-in uses: passing when blocked, immune mills, a minimum of
 * 4 stones; Shah's trapped rule with flying; on Nine Men's Morris's board. */
START_TEST(test_succ_matches_movegen_rare_rules)
{
    static const char *const repl[][2] = {
        {"removal standard", "removal immune\nno-move pass"},
        {"removal standard", "removal any\nmin-stones 4\nplace-captures no"},
        {"removal standard", "removal standard\nplace-or-move yes\nfull-board-draw yes"},
        {"removal standard", "removal any\nno-move pass\ntrapped-capture no\nboth-trapped draw"},
    };
    const char *text = mmtb_variant_builtin_text("nine");
    ck_assert_ptr_nonnull(text);
    for (size_t k = 0; k < sizeof repl / sizeof repl[0]; k++) {
        const char *at = strstr(text, repl[k][0]);
        ck_assert_ptr_nonnull(at);
        size_t len = strlen(text) + 128;
        char *t2 = malloc(len);
        ck_assert_ptr_nonnull(t2);
        snprintf(t2, len, "%.*s%s%s", (int)(at - text), text, repl[k][1], at + strlen(repl[k][0]));
        struct mmtb_variant *v = NULL;
        char err[256] = "";
        int rc = mmtb_variant_parse(&v, t2, strlen(t2), "test", err, sizeof err);
        ck_assert_msg(rc == MMTB_OK, "%s", err);
        snprintf(v->name, sizeof v->name, "nine-rules%zu", k + 1);
        check_variant_rules(v);
        mmtb_variant_free(v);
        free(t2);
    }
}
END_TEST

/* ------------------------------------------------------------------------
 * A tiny solve, checked position by position.
 * ---------------------------------------------------------------------- */

static void remove_tree(const char *path)
{
    DIR *d = opendir(path);
    if (d) {
        struct dirent *e;
        while ((e = readdir(d)) != NULL) {
            if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
                continue;
            char sub[4096];
            snprintf(sub, sizeof sub, "%s/%s", path, e->d_name);
            struct stat st;
            if (lstat(sub, &st) == 0 && S_ISDIR(st.st_mode))
                remove_tree(sub);
            else
                unlink(sub);
        }
        closedir(d);
    }
    rmdir(path);
}

/* The table directory of the solve tcase: made and removed by its unchecked
 * fixture, in the runner's process, so it goes even when a test fails
 * (Check ends a failing forked test with _exit). */
static char solve_dir[64];

static void solve_dir_setup(void)
{
    snprintf(solve_dir, sizeof solve_dir, "/tmp/mmtb-check-solver-XXXXXX");
    if (!mkdtemp(solve_dir))
        solve_dir[0] = '\0';
}

static void solve_dir_teardown(void)
{
    if (solve_dir[0])
        remove_tree(solve_dir);
    solve_dir[0] = '\0';
}

/* Is a better than b for the side choosing (win by smaller depth, draw,
 * loss by larger depth)? */
static bool better(struct mmtb_value a, struct mmtb_value b)
{
    if (a.wdl != b.wdl)
        return a.wdl > b.wdl;
    if (a.wdl == MMTB_WIN)
        return a.dtw < b.dtw;
    if (a.wdl == MMTB_LOSS)
        return a.dtw > b.dtw;
    return false;
}

/*
 * Solve the movement sector of Three Men's Morris with diagonals and check
 * every one of its positions: mmtb_probe_moves lists exactly the legal
 * moves, each with the value derived from probing its successor (win in 1
 * into a lost game; a capture's value at depth 1; else the successor's
 * negated value one ply deeper), best first; the position's own value is
 * the best of them (a loss in 0 when the game is over).  That is: a win in
 * d has a move to a loss in d - 1 and none shorter, a loss's depth is its
 * longest defence and every move loses, a draw has a drawing move and no
 * winning one.
 */
START_TEST(test_three_diag_consistent)
{
    ck_assert_msg(solve_dir[0], "no temporary directory under /tmp");
    const char *dir = solve_dir;
    struct mmtb_solve_opts o;
    memset(&o, 0, sizeof o);
    o.variant = "three-diag";
    o.outdir = dir;
    o.max_stones = 3;
    o.threads = 2;
    o.quiet = true;
    o.report = stderr;
    char err[512] = "";
    int rc = mmtb_solve(&o, err, sizeof err);
    ck_assert_msg(rc == MMTB_OK, "mmtb_solve: %s (%s)", mmtb_strerror(rc), err);

    mmtb_tb *tb = NULL;
    rc = mmtb_tb_open(&tb, dir, NULL);
    ck_assert_int_eq(rc, MMTB_OK);
    mmtb_ctx *ctx = NULL;
    ck_assert_int_eq(mmtb_ctx_create(&ctx, tb, 0), MMTB_OK);
    const struct mmtb_variant *v = mmtb_tb_variant(tb);
    struct mmtb_move_value *mv = malloc(MMTB_MAX_MOVES * sizeof *mv);
    struct mmtb_move *moves = malloc(MMTB_MAX_MOVES * sizeof *moves);
    ck_assert(mv && moves);
    int n = 0, counts[3] = {0, 0, 0}, bad = 0;
    struct mmtb_sector s = {3, 3, 0, 0};
    for (uint32_t mover = 0; mover <= v->full; mover++) {
        if (__builtin_popcount(mover) != 3)
            continue;
        for (uint32_t opp = 0; opp <= v->full; opp++) {
            if (__builtin_popcount(opp) != 3 || (opp & mover))
                continue;
            struct mmtb_pos p = make_pos(s, mover, opp);
            struct mmtb_value pv;
            REQUIRE(mmtb_probe(ctx, &p, &pv) == MMTB_OK);
            int nmv = mmtb_probe_moves(ctx, &p, mv, MMTB_MAX_MOVES);
            int nm = mmtb_gen_moves(v, &p, moves);
            REQUIRE(nmv >= 0 && nm >= 0);
            n++;
            counts[pv.wdl + 1]++;
            bool ok = nmv == nm;
            /* each legal move with its value, derived here */
            struct mmtb_value best = {MMTB_LOSS, -1};
            for (int i = 0; ok && i < nm; i++) {
                struct mmtb_pos q;
                mmtb_pos_apply(v, &p, &moves[i], &q);
                struct mmtb_value e, qv;
                int qt = mmtb_pos_terminal(v, &q);
                if (qt == MMTB_LOSS) {
                    e.wdl = MMTB_WIN, e.dtw = 1;
                } else if (qt == MMTB_DRAW) {
                    e.wdl = MMTB_DRAW, e.dtw = -1;
                } else {
                    REQUIRE(mmtb_probe(ctx, &q, &qv) == MMTB_OK);
                    e.wdl = -qv.wdl;
                    e.dtw = qv.wdl == MMTB_DRAW ? -1 : qv.dtw + 1;
                }
                if (i == 0 || better(e, best))
                    best = e;
                /* the same move in probe_moves' list, with the same value */
                bool found = false;
                for (int k = 0; k < nmv && !found; k++)
                    found = mv[k].move.from == moves[i].from && mv[k].move.to == moves[i].to &&
                            mv[k].move.remove == moves[i].remove && mv[k].value.wdl == e.wdl &&
                            mv[k].value.dtw == e.dtw;
                ok = found;
            }
            /* best first */
            for (int k = 1; ok && k < nmv; k++)
                ok = !better(mv[k].value, mv[k - 1].value);
            if (ok) {
                if (nm == 0)
                    ok = mmtb_pos_terminal(v, &p) != MMTB_NOT_TERMINAL && pv.wdl == MMTB_LOSS &&
                         pv.dtw == 0;
                else
                    ok = pv.wdl == best.wdl && pv.dtw == best.dtw && mv[0].value.wdl == pv.wdl &&
                         mv[0].value.dtw == pv.dtw;
            }
            if (!ok && bad++ < 10) {
                char buf[128];
                mmtb_pos_format(v, &p, buf, sizeof buf);
                fprintf(stderr, "three-diag %s: value %d/%d inconsistent with its moves\n", buf,
                        pv.wdl, pv.dtw);
            }
        }
    }
    free(mv);
    free(moves);
    mmtb_ctx_free(ctx);
    mmtb_tb_close(tb);
    fprintf(stderr, "three-diag 3-3: %d positions, %d wins, %d draws, %d losses\n", n, counts[2],
            counts[1], counts[0]);
    ck_assert_int_eq(n, 1680); /* C(9,3) * C(6,3) */
    ck_assert_int_eq(bad, 0);
}
END_TEST

/* succ_live_moved (a side's live restrictions after one of its stones
 * moved, from its mill counts before) against mmtb_live_ban_set on the
 * stones after the move, for every move of random positions of each
 * built-in variant whose mills have 3 points, and for every placement;
 * every landing point not the other side's counts (flying included). */
START_TEST(test_live_moved_matches)
{
    const char *const *names = mmtb_variant_builtin_names();
    int nvar = 0;
    long checked = 0, nonempty = 0, bad = 0;
    for (int i = 0; names[i]; i++) {
        struct mmtb_variant *v = load(names[i]);
        if (!succ_mills_ok(v)) {
            mmtb_variant_free(v);
            continue;
        }
        nvar++;
        for (int rep = 0; rep < 400; rep++) {
            int max = v->stones < v->npoints / 2 ? v->stones : v->npoints / 2;
            uint32_t own = random_points(v, 0, 1 + rnd_below(max));
            uint32_t oth = random_points(v, own, rnd_below(max + 1));
            struct succ_mills m;
            succ_mills_of(v, own, oth, &m);
            for (uint32_t rs = own | UINT32_C(1) << 31; rs; rs &= rs - 1) {
                int r = __builtin_ctz(rs) == 31 ? -1 : __builtin_ctz(rs); /* -1: placed */
                for (uint32_t as = v->full & ~(own | oth); as; as &= as - 1) {
                    int a = __builtin_ctz(as);
                    uint32_t own2 = (r < 0 ? own : own & ~(UINT32_C(1) << r)) | UINT32_C(1) << a;
                    uint64_t got[MMTB_MAX_BANS / 64], want[MMTB_MAX_BANS / 64];
                    succ_live_moved(v, &m, own2, r, a, got);
                    mmtb_live_ban_set(v, own2, oth, want);
                    checked++;
                    bool same = true, any = false;
                    for (int w = 0; w < MMTB_MAX_BANS / 64; w++) {
                        same = same && got[w] == want[w];
                        any = any || want[w];
                    }
                    nonempty += any;
                    if (!same && bad++ < 5)
                        fprintf(stderr, "%s: own %#x oth %#x move %d -> %d: live sets differ\n",
                                v->name, own, oth, r, a);
                }
            }
        }
        mmtb_variant_free(v);
    }
    ck_assert_int_ge(nvar, 6);
    ck_assert_msg(nonempty > checked / 20, "only %ld of %ld moves leave a restriction live",
                  nonempty, checked);
    ck_assert_msg(bad == 0, "%ld of %ld moves give other live restrictions", bad, checked);
}
END_TEST

/* What bans.c takes from the live sets instead of a mill test per code:
 * a restriction bites exactly when it is live (succ_ban_bites against
 * mmtb_live_ban_set, every code); one of ours, live here, bites after the
 * opponent's stone slid back from -> to (the predecessor) unless its point
 * is `from`; one of the opponent's, live here, bites after a quiet move or
 * placement of ours onto `to` unless its point is `to` (flights too); and succ_earned
 * earns the code to -> from exactly for a slide out of a complete mill. */
static bool in_set(const uint64_t *set, int c)
{
    return set[c >> 6] >> (c & 63) & 1;
}

START_TEST(test_bites_from_live_sets)
{
    const char *const *names = mmtb_variant_builtin_names();
    long checked = 0, live = 0, bad = 0;
    for (int i = 0; names[i]; i++) {
        struct mmtb_variant *v = load(names[i]);
        for (int rep = 0; rep < 300; rep++) {
            int max = v->stones < v->npoints / 2 ? v->stones : v->npoints / 2;
            uint32_t M = random_points(v, 0, 1 + rnd_below(max));
            uint32_t O = random_points(v, M, 1 + rnd_below(max));
            uint32_t empty = v->full & ~(M | O);
            uint64_t F[MMTB_MAX_BANS / 64], T[MMTB_MAX_BANS / 64];
            mmtb_live_ban_set(v, M, O, F);
            mmtb_live_ban_set(v, O, M, T);
            for (int c = 0; c < v->nedges && c < MMTB_MAX_BANS; c++, checked++) {
                bad += succ_ban_bites(v, M, O, c) != in_set(F, c);
                live += in_set(F, c);
            }
            for (uint32_t ts = O; ts; ts &= ts - 1) { /* the opponent's stone on `to` */
                int to = __builtin_ctz(ts);
                for (uint32_t fs = empty; fs; fs &= fs - 1) { /* slides and flights */
                    int from = __builtin_ctz(fs);
                    uint32_t Oq = (O & ~(1u << to)) | 1u << from;
                    for (int c = 0; c < v->nedges && c < MMTB_MAX_BANS; c++, checked++)
                        if (in_set(F, c))
                            bad += succ_ban_bites(v, M, Oq, c) != (v->edge_x[c] != from);
                }
            }
            for (uint32_t as = empty; as; as &= as - 1) { /* ours onto `to` */
                int to = __builtin_ctz(as);
                for (uint32_t rs = M | UINT32_C(1) << 31; rs; rs &= rs - 1) {
                    int from = __builtin_ctz(rs) == 31 ? -1 : __builtin_ctz(rs);
                    uint32_t M2 = (from < 0 ? M : M & ~(1u << from)) | 1u << to;
                    for (int c = 0; c < v->nedges && c < MMTB_MAX_BANS; c++, checked++)
                        if (in_set(T, c))
                            bad += succ_ban_bites(v, O, M2, c) != (v->edge_x[c] != to);
                    int want = from >= 0 && (mmtb_variant_in_mill(v, M) >> from & 1)
                                   ? mmtb_edge_code(v, to, from)
                                   : -1;
                    bad += succ_earned(v, M, from, to) != want;
                    checked++;
                }
            }
        }
        mmtb_variant_free(v);
    }
    ck_assert_msg(live > 1000, "only %ld live restrictions met", live);
    ck_assert_msg(bad == 0, "%ld of %ld checks disagree", bad, checked);
}
END_TEST

static Suite *solver_suite(void)
{
    Suite *s = suite_create("solver");
    TCase *tc = tcase_create("rules");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_succ_matches_movegen);
    tcase_add_test(tc, test_succ_matches_movegen_rare_rules);
    tcase_add_test(tc, test_live_moved_matches);
    tcase_add_test(tc, test_bites_from_live_sets);
    suite_add_tcase(s, tc);
    tc = tcase_create("solve");
    tcase_add_unchecked_fixture(tc, solve_dir_setup, solve_dir_teardown);
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_three_diag_consistent);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(solver_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
