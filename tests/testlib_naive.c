/*
 * testlib_naive.c - the naive oracle solver of the movement phase (see
 * testlib_naive.h).  Its own combinadic indexing of every arrangement of the
 * stones (no symmetry), an explicit successor graph built with
 * format/movegen.c, and a forward level iteration.  Must not use
 * sector_index.c, gen/ or probe/: it exists to disagree with them when they
 * are wrong.
 *
 * Depths are depth to win (DTW): plies to the end of the game, the winner
 * minimising and the loser maximising, across captures.  A side to move that
 * has lost by the rules has lost in 0; every move, a capture included, is
 * worth the value of the position it leads to, negated, one ply deeper.
 * Sectors are solved by increasing stones, so a capture leads into a sector
 * solved before (or ends the game) and its outcome is known, at any depth,
 * before the levels of the capturing sector start.
 */
#include "testlib_naive.h"

#include "movegen.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NV_MAXS 16 /* most stones a side the oracle handles */

/*
 * Value word of a position (one uint16_t each): 0 while undecided (and for
 * the draws left at the end); V_DECIDED | d a loss in d plies;
 * V_DECIDED | V_WIN | d a win in d plies.
 */
#define V_DECIDED 0x8000u
#define V_WIN 0x4000u
#define V_DEPTH 0x3fffu

/* What a position's moves that leave the pair say about it (one byte each);
 * the depths of the capture outcomes are in struct member's cwin and closs. */
#define X_DRAW 1u      /* a move ends the game drawn, or captures into a drawn one */
#define X_TERM_LOSS 2u /* the position itself is a lost game (loss in 0) */
#define X_TERM_DRAW 4u /* the position itself is a drawn game */

struct nsector {
    uint64_t off;  /* first global index */
    uint64_t size; /* C(np, w) * C(np - w, b) */
    uint64_t cb;   /* C(np - w, b): positions per arrangement of the mover */
    struct naive_stats st;
};

struct naive {
    const struct mmtb_variant *v;
    int np, lo, hi;
    bool thin; /* only the sectors where a side has lo stones */
    uint64_t C[33][33];
    struct nsector sec[NV_MAXS + 1][NV_MAXS + 1];
    uint64_t total;
    uint16_t *val;
    double secs;
};

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void set_err(char *err, size_t errlen, const char *fmt, ...)
{
    if (!err || !errlen)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

/* ---------------------------------------------------------------- indexing */

/*
 * Colex rank of a set of points: sum over its j-th smallest point p_j
 * (j = 1..k) of C(p_j, j).  Masks of k bits in increasing numeric order have
 * ranks 0, 1, 2, ... (that is how naive_unrank enumerates them).
 */
static uint64_t rank_set(const struct naive *n, uint32_t m)
{
    uint64_t r = 0;
    for (int j = 1; m; j++, m &= m - 1)
        r += n->C[__builtin_ctz(m)][j];
    return r;
}

/* Colex rank of `sub` among the points not in `taken`: each point p of sub
 * counts as p - |taken below p|. */
static uint64_t rank_within(const struct naive *n, uint32_t sub, uint32_t taken)
{
    uint64_t r = 0;
    for (int j = 1; sub; j++, sub &= sub - 1) {
        int p = __builtin_ctz(sub);
        int q = p - __builtin_popcount(taken & ((UINT32_C(1) << p) - 1));
        r += n->C[q][j];
    }
    return r;
}

/* Inverse of rank_set for k-sets: take the largest p with C(p, j) <= r,
 * for j = k down to 1. */
static uint32_t unrank_set(const struct naive *n, uint64_t r, int k, int npts)
{
    uint32_t m = 0;
    int p = npts - 1;
    for (int j = k; j >= 1; j--) {
        while (n->C[p][j] > r)
            p--;
        r -= n->C[p][j];
        m |= UINT32_C(1) << p;
        p--;
    }
    return m;
}

/* The points of the board outside `taken`, increasing; returns how many. */
static int free_points(const struct naive *n, uint32_t taken, int8_t *fr)
{
    int k = 0;
    for (int p = 0; p < n->np; p++)
        if (!(taken & (UINT32_C(1) << p)))
            fr[k++] = (int8_t)p;
    return k;
}

/* Spread a compressed set (bit c = the c-th free point) onto the board. */
static uint32_t deposit(uint32_t sub, const int8_t *fr)
{
    uint32_t m = 0;
    for (; sub; sub &= sub - 1)
        m |= UINT32_C(1) << fr[__builtin_ctz(sub)];
    return m;
}

/* Next mask with the same number of bits (Gosper's hack); callers stop by
 * count before it runs off the board. */
static uint32_t next_comb(uint32_t x)
{
    uint32_t c = x & -x, r = x + c;
    return (((r ^ x) >> 2) / c) | r;
}

/* Whether sector (w, b) is one the oracle solves (or solved). */
static bool in_range(const struct naive *n, int w, int b)
{
    if (w < n->lo || w > n->hi || b < n->lo || b > n->hi)
        return false;
    return !n->thin || w == n->lo || b == n->lo;
}

/* Global index of (mover, opp): offset of the sector + rank(mover) *
 * C(np - w, b) + rank of opp among the points the mover leaves free. */
static uint64_t gindex(const struct naive *n, uint32_t mover, uint32_t opp)
{
    const struct nsector *s = &n->sec[__builtin_popcount(mover)][__builtin_popcount(opp)];
    return s->off + rank_set(n, mover) * s->cb + rank_within(n, opp, mover);
}

/*
 * Walk every position of sector (w, b) in index order.  Usage:
 *   struct walk wk; walk_start(n, &wk, w, b);
 *   do { ... wk.mover, wk.opp, wk.i ... } while (walk_next(n, &wk));
 */
struct walk {
    int w, b;
    uint64_t nm, no;    /* C(np, w), C(np - w, b) */
    uint64_t rm, ro, i; /* rank of the mover, of opp within the free points; index */
    uint32_t mover, copp, opp;
    int8_t fr[MMTB_MAX_POINTS];
};

static void walk_start(const struct naive *n, struct walk *wk, int w, int b)
{
    wk->w = w;
    wk->b = b;
    wk->nm = n->C[n->np][w];
    wk->no = n->C[n->np - w][b];
    wk->rm = wk->ro = wk->i = 0;
    wk->mover = (UINT32_C(1) << w) - 1;
    free_points(n, wk->mover, wk->fr);
    wk->copp = (UINT32_C(1) << b) - 1;
    wk->opp = deposit(wk->copp, wk->fr);
}

static bool walk_next(const struct naive *n, struct walk *wk)
{
    wk->i++;
    if (++wk->ro < wk->no) {
        wk->copp = next_comb(wk->copp);
    } else {
        if (++wk->rm >= wk->nm)
            return false;
        wk->ro = 0;
        wk->mover = next_comb(wk->mover);
        free_points(n, wk->mover, wk->fr);
        wk->copp = (UINT32_C(1) << wk->b) - 1;
    }
    wk->opp = deposit(wk->copp, wk->fr);
    return true;
}

/* ------------------------------------------------------------ the graph */

/* Per sector of the pair being solved: the moves that stay in the pair
 * (quiet moves into the partner sector) and a summary of the others. */
struct member {
    int w, b;
    uint8_t *nq;     /* quiet successors per position */
    uint8_t *ext;    /* X_* flags per position */
    uint16_t *cwin;  /* per position: the least depth of a winning capture
                        (the target's loss depth + 1), 0 when none */
    uint16_t *closs; /* per position: the greatest depth of a losing capture
                        (the target's win depth + 1), 0 when none */
    uint32_t *blk;   /* rank(opp): the block of the partner sector (positions
                        with q's mover = opp) that holds the quiet successors */
    uint8_t *chg[2]; /* per block of this sector: something was decided in it
                        at the previous level [0] / at this level [1] */
    uint16_t *succ;  /* successors, position by position: q's index within
                        q's mover block (see build_member) */
    uint64_t nsucc, cap;
};

static void member_free(struct member *m)
{
    free(m->nq);
    free(m->ext);
    free(m->cwin);
    free(m->closs);
    free(m->blk);
    free(m->chg[0]);
    free(m->chg[1]);
    free(m->succ);
    memset(m, 0, sizeof *m);
}

static bool push_succ(struct member *m, uint16_t s)
{
    if (m->nsucc == m->cap) {
        uint64_t nc = m->cap ? m->cap + m->cap / 2 : (1u << 20);
        uint16_t *ns = realloc(m->succ, nc * sizeof *ns);
        if (!ns)
            return false;
        m->succ = ns;
        m->cap = nc;
    }
    m->succ[m->nsucc++] = s;
    return true;
}

/*
 * Build the graph of sector (w, b): for each position, its terminal state,
 * its quiet successors and the outcomes of its other moves.  A quiet move
 * leads to q = (opp, mover') in sector (b, w); q's index there is
 * rank(opp) * C(np - b, w) + rank_within(mover', opp), and the first term
 * is the same for every move of the position, so only the second is stored
 * (it fits 16 bits for every board the tests use; checked).  A capture
 * leads to (opp - x, mover') in sector (b - 1, w), solved earlier (fewer
 * stones), or to a game over (a lost game: a loss in 0); its outcome is the
 * target's value negated at the target's depth + 1.
 */
static int build_member(struct naive *n, struct member *m, char *err, size_t errlen)
{
    const struct mmtb_variant *v = n->v;
    const struct nsector *s = &n->sec[m->w][m->b];
    m->nq = malloc(s->size);
    m->ext = malloc(s->size);
    m->cwin = malloc(s->size * sizeof *m->cwin);
    m->closs = malloc(s->size * sizeof *m->closs);
    m->blk = malloc(s->size * sizeof *m->blk);
    m->chg[0] = calloc(n->C[n->np][m->w], 1);
    m->chg[1] = calloc(n->C[n->np][m->w], 1);
    if (!m->nq || !m->ext || !m->cwin || !m->closs || !m->blk || !m->chg[0] || !m->chg[1]) {
        set_err(err, errlen, "out of memory");
        return -1;
    }
    if (n->C[n->np - m->b][m->w] > 65536 || n->sec[m->b][m->w].size > UINT32_MAX) {
        set_err(err, errlen, "sector %d-%d: successor index does not fit", m->b, m->w);
        return -1;
    }
    struct mmtb_move *moves = malloc(MMTB_MAX_MOVES * sizeof *moves);
    if (!moves) {
        set_err(err, errlen, "out of memory");
        return -1;
    }
    int rc = 0;
    struct walk wk;
    walk_start(n, &wk, m->w, m->b);
    do {
        /* cpos[p]: the place of point p among the points opp leaves free
         * (rank_within(., opp) without the popcounts). */
        int8_t cpos[MMTB_MAX_POINTS];
        for (int p = 0, c = 0; p < n->np; p++) {
            cpos[p] = (int8_t)c;
            c += !(wk.opp & (UINT32_C(1) << p));
        }
        struct mmtb_pos p;
        memset(&p, 0, sizeof p);
        p.stones[MMTB_WHITE] = wk.mover;
        p.stones[MMTB_BLACK] = wk.opp;
        p.side = MMTB_WHITE;
        p.ban_from = p.ban_to = -1;
        uint8_t e = 0;
        unsigned nq = 0, cwin = 0, closs = 0;
        int t = mmtb_pos_terminal(v, &p);
        if (t == MMTB_LOSS) {
            e = X_TERM_LOSS;
        } else if (t == MMTB_DRAW) {
            e = X_TERM_DRAW;
        } else {
            int nm = mmtb_gen_moves(v, &p, moves);
            if (nm <= 0) {
                char buf[160];
                naive_format(v, wk.mover, wk.opp, buf, sizeof buf);
                set_err(err, errlen, "%s: not terminal but mmtb_gen_moves gives %d", buf, nm);
                rc = -1;
                break;
            }
            for (int k = 0; k < nm; k++) {
                struct mmtb_pos q;
                mmtb_pos_apply(v, &p, &moves[k], &q);
                uint32_t qm = q.stones[MMTB_BLACK], qo = q.stones[MMTB_WHITE];
                bool removed = __builtin_popcount(qm) < m->b;
                if (q.side != MMTB_BLACK || q.hand[0] || q.hand[1] ||
                    __builtin_popcount(qo) != m->w || removed != (moves[k].remove >= 0) ||
                    (!removed && qm != wk.opp)) {
                    char buf[160];
                    naive_format(v, wk.mover, wk.opp, buf, sizeof buf);
                    set_err(err, errlen, "%s: move %d gives an unexpected successor", buf, k);
                    rc = -1;
                    break;
                }
                if (!removed) {
                    uint64_t r = 0;
                    int j = 1;
                    for (uint32_t x = qo; x; x &= x - 1)
                        r += n->C[cpos[__builtin_ctz(x)]][j++];
                    if (!push_succ(m, (uint16_t)r)) {
                        set_err(err, errlen, "out of memory");
                        rc = -1;
                        break;
                    }
                    nq++;
                    continue;
                }
                /* the capture's outcome for the mover: a win or a loss
                 * at depth dq (the target's depth + 1), or a draw */
                int tq = mmtb_pos_terminal(v, &q);
                unsigned dq = 0;
                bool qwin = false;
                if (tq == MMTB_LOSS) {
                    dq = 1;
                    qwin = true;
                } else if (tq == MMTB_DRAW) {
                    e |= X_DRAW;
                } else if (!in_range(n, m->b - 1, m->w)) {
                    char buf[160];
                    naive_format(v, wk.mover, wk.opp, buf, sizeof buf);
                    set_err(err, errlen, "%s: a capture leads outside the solved sectors", buf);
                    rc = -1;
                    break;
                } else {
                    uint16_t y = n->val[gindex(n, qm, qo)];
                    if (!(y & V_DECIDED)) {
                        e |= X_DRAW;
                    } else {
                        dq = (y & V_DEPTH) + 1u;
                        qwin = !(y & V_WIN);
                    }
                }
                if (dq > V_DEPTH) {
                    set_err(err, errlen, "depth beyond %u", V_DEPTH);
                    rc = -1;
                    break;
                }
                if (dq && qwin && (cwin == 0 || dq < cwin))
                    cwin = dq;
                if (dq && !qwin && dq > closs)
                    closs = dq;
            }
            if (rc)
                break;
            if (nq > 255) {
                set_err(err, errlen, "more than 255 quiet moves in sector %d-%d", m->w, m->b);
                rc = -1;
                break;
            }
        }
        m->nq[wk.i] = (uint8_t)nq;
        m->ext[wk.i] = e;
        m->cwin[wk.i] = (uint16_t)cwin;
        m->closs[wk.i] = (uint16_t)closs;
        m->blk[wk.i] = (uint32_t)rank_set(n, wk.opp);
    } while (walk_next(n, &wk));
    free(moves);
    return rc;
}

/*
 * One level d of the forward iteration over member m (partner pm).  An
 * undecided position becomes
 *   a win at d   if some move's outcome is a win at d given what levels < d
 *                decided: a capture whose target is lost in d - 1 (cwin ==
 *                d; a capture that ends the game is one with d = 1), or a
 *                quiet move to a loss at d - 1;
 *   a loss at d  if every move's outcome is a loss whose depth is known
 *                (quiet moves to wins at d' < d count d' + 1, losing
 *                captures their closs) and the largest is d; at d = 0 the
 *                lost games.
 * A win at d found at level d is the fastest: a faster one would have been
 * found at its own level.  A position decided at this level holds depth d,
 * which no test at this level accepts (they all want depths below d), so
 * updating in place is the same as updating after the level.  Returns the
 * number decided, or -1 for a position whose moves are all decided losses
 * of smaller depth (which level iteration rules out).
 */
static int64_t level_member(struct naive *n, struct member *m, const struct member *pm, unsigned d)
{
    const struct nsector *s = &n->sec[m->w][m->b], *ps = &n->sec[pm->w][pm->b];
    uint16_t *val = n->val + s->off;
    const uint16_t want_loss = d ? (uint16_t)(V_DECIDED | (d - 1)) : 0;
    const uint16_t *pval = n->val + ps->off;
    int64_t decided = 0;
    uint64_t soff = 0;
    for (uint64_t i = 0; i < s->size; i++) {
        const uint16_t *sl = m->succ + soff;
        unsigned cnt = m->nq[i];
        soff += cnt;
        if (val[i])
            continue;
        uint8_t e = m->ext[i];
        if (e & X_TERM_DRAW)
            continue;
        if (d == 0) {
            if (e & X_TERM_LOSS) {
                val[i] = V_DECIDED | 0;
                decided++;
                m->chg[1][i / s->cb] = 1;
            }
            continue;
        }
        /* From level 2 on, a decision needs a quiet successor decided at
         * d - 1 or a capture whose outcome has depth d: skip a position
         * when neither holds (nothing was decided in its successors' block
         * at d - 1). */
        if (d >= 2 && !pm->chg[0][m->blk[i]] && m->cwin[i] != d && m->closs[i] != d)
            continue;
        bool win = m->cwin[i] == d;
        bool all_lost = !(e & X_DRAW) && m->cwin[i] == 0;
        unsigned maxd = m->closs[i];
        if (!win) {
            const uint16_t *pv = pval + (uint64_t)m->blk[i] * ps->cb;
            for (unsigned k = 0; k < cnt; k++) {
                uint16_t y = pv[sl[k]];
                if (y == want_loss) {
                    win = true;
                    break;
                }
                if ((y & (V_DECIDED | V_WIN)) == (V_DECIDED | V_WIN) && (y & V_DEPTH) < d) {
                    if ((y & V_DEPTH) + 1u > maxd)
                        maxd = (y & V_DEPTH) + 1u;
                } else {
                    all_lost = false;
                }
            }
        }
        if (win) {
            val[i] = (uint16_t)(V_DECIDED | V_WIN | d);
        } else if (all_lost && maxd <= d) {
            if (maxd != d)
                return -1;
            val[i] = (uint16_t)(V_DECIDED | d);
        } else {
            continue; /* a draw so far, or a capture that loses deeper */
        }
        decided++;
        m->chg[1][i / s->cb] = 1;
    }
    return decided;
}

/* The largest depth of a capture outcome in member m (0 when none). */
static unsigned deepest_capture(const struct naive *n, const struct member *m)
{
    unsigned dmax = 0;
    for (uint64_t i = 0; i < n->sec[m->w][m->b].size; i++) {
        if (m->cwin[i] > dmax)
            dmax = m->cwin[i];
        if (m->closs[i] > dmax)
            dmax = m->closs[i];
    }
    return dmax;
}

/* Solve sector (w, b) together with its partner (b, w). */
static int solve_pair(struct naive *n, int w, int b, char *err, size_t errlen)
{
    struct member m[2];
    memset(m, 0, sizeof m);
    int nm = w == b ? 1 : 2;
    m[0].w = w, m[0].b = b;
    m[1].w = b, m[1].b = w;
    int rc = 0;
    double t0 = now_seconds();
    for (int k = 0; k < nm && rc == 0; k++)
        rc = build_member(n, &m[k], err, errlen);
    double t1 = now_seconds();
    unsigned levels = 0, dcap = 0;
    for (int k = 0; k < nm && rc == 0; k++) {
        unsigned dk = deepest_capture(n, &m[k]);
        dcap = dk > dcap ? dk : dcap;
    }
    /* A decision at level d + 1 >= 2 needs one at level d or a capture
     * outcome of depth d + 1: the levels end at the first d >= 1 that
     * decides nothing with no capture outcome deeper than d. */
    for (unsigned d = 0; rc == 0; d++) {
        if (d > V_DEPTH) {
            set_err(err, errlen, "depth beyond %u", V_DEPTH);
            rc = -1;
            break;
        }
        int64_t got = 0;
        for (int k = 0; k < nm; k++) {
            int64_t g = level_member(n, &m[k], &m[nm == 1 ? 0 : 1 - k], d);
            if (g < 0) {
                set_err(err, errlen, "sector %d-%d, level %u: a loss missed its level", m[k].w,
                        m[k].b, d);
                rc = -1;
                break;
            }
            got += g;
        }
        /* This level's changes become the previous level's. */
        for (int k = 0; k < nm; k++) {
            uint64_t nb = n->C[n->np][m[k].w];
            memcpy(m[k].chg[0], m[k].chg[1], nb);
            memset(m[k].chg[1], 0, nb);
        }
        levels = d + 1;
        if (d >= 1 && got == 0 && d >= dcap)
            break;
    }
    if (getenv("NAIVE_VERBOSE"))
        fprintf(stderr, "naive %s %d-%d: graph %.2fs (%llu+%llu edges), %u levels %.2fs\n",
                n->v->name, w, b, t1 - t0, (unsigned long long)m[0].nsucc,
                (unsigned long long)m[1].nsucc, levels, now_seconds() - t1);
    for (int k = 0; k < 2; k++)
        member_free(&m[k]);
    return rc;
}

/* Counts of one solved sector. */
static void count_sector(struct naive *n, int w, int b)
{
    struct nsector *s = &n->sec[w][b];
    struct naive_stats *st = &s->st;
    memset(st, 0, sizeof *st);
    st->max_win = st->max_loss = -1;
    st->positions = s->size;
    for (uint64_t i = 0; i < s->size; i++) {
        uint16_t y = n->val[s->off + i];
        int dd = y & V_DEPTH;
        if (!(y & V_DECIDED)) {
            st->draws++;
        } else if (y & V_WIN) {
            st->wins++;
            if (dd > st->max_win)
                st->max_win = dd;
        } else {
            st->losses++;
            if (dd > st->max_loss)
                st->max_loss = dd;
        }
    }
}

/* naive_solve and naive_solve_thin: every sector of the range, or only
 * those where a side has the fewest stones (thin). */
static struct naive *solve_sectors(const struct mmtb_variant *v, int max_stones, bool thin,
                                   char *err, size_t errlen)
{
    double t0 = now_seconds();
    if (!v || v->npoints < 1 || v->npoints > 32 ||
        v->full != (v->npoints == 32 ? UINT32_MAX : (UINT32_C(1) << v->npoints) - 1)) {
        set_err(err, errlen, "unsupported board");
        return NULL;
    }
    if (max_stones > NV_MAXS || max_stones < v->min_stones || 2 * max_stones > v->npoints ||
        max_stones > v->stones || v->min_stones < 1) {
        set_err(err, errlen, "unsupported stone range %d..%d", v->min_stones, max_stones);
        return NULL;
    }
    struct naive *n = calloc(1, sizeof *n);
    if (!n) {
        set_err(err, errlen, "out of memory");
        return NULL;
    }
    n->v = v;
    n->np = v->npoints;
    n->lo = v->min_stones;
    n->hi = max_stones;
    n->thin = thin;
    /* Pascal's triangle; C(p, j) = 0 for j > p. */
    for (int p = 0; p <= 32; p++) {
        n->C[p][0] = 1;
        for (int j = 1; j <= p; j++)
            n->C[p][j] = n->C[p - 1][j - 1] + (j < p ? n->C[p - 1][j] : 0);
    }
    for (int w = n->lo; w <= n->hi; w++)
        for (int b = n->lo; b <= n->hi; b++) {
            if (!in_range(n, w, b))
                continue;
            struct nsector *s = &n->sec[w][b];
            s->cb = n->C[n->np - w][b];
            s->size = n->C[n->np][w] * s->cb;
            s->off = n->total;
            n->total += s->size;
        }
    n->val = calloc(n->total ? n->total : 1, sizeof *n->val);
    if (!n->val) {
        set_err(err, errlen, "out of memory (%llu positions)", (unsigned long long)n->total);
        naive_free(n);
        return NULL;
    }
    /* Pairs by increasing total: captures only lead to smaller totals. */
    for (int tot = 2 * n->lo; tot <= 2 * n->hi; tot++)
        for (int w = n->lo; w <= n->hi && 2 * w <= tot; w++) {
            int b = tot - w;
            if (!in_range(n, w, b))
                continue;
            if (solve_pair(n, w, b, err, errlen) != 0) {
                naive_free(n);
                return NULL;
            }
            count_sector(n, w, b);
            if (b != w)
                count_sector(n, b, w);
        }
    n->secs = now_seconds() - t0;
    return n;
}

struct naive *naive_solve(const struct mmtb_variant *v, int max_stones, char *err, size_t errlen)
{
    return solve_sectors(v, max_stones, false, err, errlen);
}

struct naive *naive_solve_thin(const struct mmtb_variant *v, int max_stones, char *err,
                               size_t errlen)
{
    return solve_sectors(v, max_stones, true, err, errlen);
}

void naive_free(struct naive *n)
{
    if (!n)
        return;
    free(n->val);
    free(n);
}

int naive_min_stones(const struct naive *n)
{
    return n->lo;
}

int naive_max_stones(const struct naive *n)
{
    return n->hi;
}

double naive_seconds(const struct naive *n)
{
    return n->secs;
}

uint64_t naive_sector_size(const struct naive *n, int w, int b)
{
    return in_range(n, w, b) ? n->sec[w][b].size : 0;
}

void naive_unrank(const struct naive *n, int w, int b, uint64_t i, uint32_t *mover, uint32_t *opp)
{
    const struct nsector *s = &n->sec[w][b];
    uint32_t m = unrank_set(n, i / s->cb, w, n->np);
    int8_t fr[MMTB_MAX_POINTS];
    free_points(n, m, fr);
    *mover = m;
    *opp = deposit(unrank_set(n, i % s->cb, b, n->np - w), fr);
}

uint64_t naive_rank(const struct naive *n, uint32_t mover, uint32_t opp)
{
    return gindex(n, mover, opp) - n->sec[__builtin_popcount(mover)][__builtin_popcount(opp)].off;
}

/* Decode a value word. */
static void decode(uint16_t y, int *wdl, int *dtw)
{
    if (!(y & V_DECIDED)) {
        *wdl = MMTB_DRAW;
        *dtw = -1;
    } else {
        *wdl = (y & V_WIN) ? MMTB_WIN : MMTB_LOSS;
        *dtw = y & V_DEPTH;
    }
}

int naive_value(const struct naive *n, uint32_t mover, uint32_t opp, int *wdl, int *dtw)
{
    if ((mover & opp) || ((mover | opp) & ~n->v->full) ||
        !in_range(n, __builtin_popcount(mover), __builtin_popcount(opp)))
        return -1;
    decode(n->val[gindex(n, mover, opp)], wdl, dtw);
    return 0;
}

void naive_value_at(const struct naive *n, int w, int b, uint64_t i, int *wdl, int *dtw)
{
    decode(n->val[n->sec[w][b].off + i], wdl, dtw);
}

int naive_sector_stats(const struct naive *n, int w, int b, struct naive_stats *out)
{
    if (!in_range(n, w, b))
        return -1;
    *out = n->sec[w][b].st;
    return 0;
}

/* ------------------------------------------------------------- symmetry */

/* Image of a mask under symmetry g, from per-byte tables built from
 * v->sym[g] (point i goes to v->sym[g][i]). */
static uint32_t sym_image(uint32_t (*tab)[4][256], int g, uint32_t m)
{
    return tab[g][0][m & 0xff] | tab[g][1][(m >> 8) & 0xff] | tab[g][2][(m >> 16) & 0xff] |
           tab[g][3][m >> 24];
}

uint64_t naive_orbits(struct naive *n)
{
    const struct mmtb_variant *v = n->v;
    int ns = v->nsyms;
    uint32_t(*tab)[4][256] = calloc((size_t)ns, sizeof *tab);
    if (!tab)
        return UINT64_MAX;
    for (int g = 0; g < ns; g++)
        for (int k = 0; k < 4; k++)
            for (int x = 0; x < 256; x++) {
                uint32_t img = 0;
                for (int j = 0; j < 8; j++)
                    if ((x >> j) & 1) {
                        int p = 8 * k + j;
                        if (p < n->np)
                            img |= UINT32_C(1) << v->sym[g][p];
                    }
                tab[g][k][x] = img;
            }
    uint64_t bad = 0;
    for (int w = n->lo; w <= n->hi; w++)
        for (int b = n->lo; b <= n->hi; b++) {
            if (!in_range(n, w, b))
                continue;
            struct naive_stats *st = &n->sec[w][b].st;
            st->canonical = st->cwins = st->cdraws = st->closses = 0;
            const uint16_t *val = n->val + n->sec[w][b].off;
            struct walk wk;
            walk_start(n, &wk, w, b);
            do {
                /* The orbit's representative: the image with the least
                 * (mover, opp) pair. */
                uint64_t key = (uint64_t)wk.mover << 32 | wk.opp, best = key;
                for (int g = 1; g < ns; g++) {
                    uint64_t k2 =
                        (uint64_t)sym_image(tab, g, wk.mover) << 32 | sym_image(tab, g, wk.opp);
                    if (k2 < best)
                        best = k2;
                }
                uint16_t y = val[wk.i];
                if (best == key) {
                    st->canonical++;
                    if (!(y & V_DECIDED))
                        st->cdraws++;
                    else if (y & V_WIN)
                        st->cwins++;
                    else
                        st->closses++;
                } else if (n->val[gindex(n, (uint32_t)(best >> 32), (uint32_t)best)] != y) {
                    bad++;
                }
            } while (walk_next(n, &wk));
        }
    free(tab);
    return bad;
}

void naive_format(const struct mmtb_variant *v, uint32_t mover, uint32_t opp, char *buf, size_t len)
{
    size_t k = 0;
    const uint32_t sets[2] = {mover, opp};
    if (len == 0)
        return;
    buf[0] = '\0';
    for (int c = 0; c < 2; c++) {
        if (!sets[c])
            k += (size_t)snprintf(buf + k, k < len ? len - k : 0, "-");
        for (uint32_t m = sets[c]; m; m &= m - 1) {
            if (k >= len)
                break;
            k += (size_t)snprintf(buf + k, len - k, "%s%s", m == sets[c] ? "" : ",",
                                  v->point_name[__builtin_ctz(m)]);
        }
        if (k < len)
            k += (size_t)snprintf(buf + k, len - k, " ");
    }
    if (k < len)
        snprintf(buf + k, len - k, "w");
}

/* ------------------------------------------------------------------------
 * The re-close restriction oracle (naive_ban_*): one sector, every
 * arrangement times the live restriction pairs, no symmetry.  Depths are
 * DTW as above; in this sector a move that removes a stone leaves the
 * opponent fewer than min_stones, a lost game over (a loss in 0), so it
 * wins in 1, and every other move stays in the sector.
 * ---------------------------------------------------------------------- */

struct naive_ban {
    const struct mmtb_variant *v;
    int np, k;
    uint64_t cm, co;     /* C(np, k), C(np - k, k) */
    uint64_t npos;       /* cm * co arrangements */
    uint64_t *first;     /* per arrangement: its first state; npos + 1 entries */
    uint64_t nstates;
    uint32_t *succ_off;  /* per state: its successors in succ[]; nstates + 1 */
    uint32_t *succ;
    uint8_t *flags;      /* NB_WIN1, NB_DRAW */
    uint16_t *val;       /* V_DECIDED | V_WIN | depth, as the main oracle */
};

#define NB_WIN1 1u /* a move ends the game won (a capture, here): a win in 1 */
#define NB_DRAW 2u /* a move ends the game drawn */

/* C(a, b) for 0 <= a, b <= 32, from a table filled once (Pascal's rule). */
static uint64_t nb_C[33][33];
static uint64_t nb_binom(int a, int b)
{
    if (nb_C[0][0] == 0)
        for (int i = 0; i <= 32; i++)
            for (int j = 0; j <= i; j++)
                nb_C[i][j] = j == 0 || j == i ? 1 : nb_C[i - 1][j - 1] + nb_C[i - 1][j];
    return b < 0 || b > a ? 0 : nb_C[a][b];
}

/* Colex rank of the k-subset x of {0..n-1}. */
static uint64_t nb_colex(uint32_t x)
{
    uint64_t r = 0;
    int i = 1;
    for (; x; x &= x - 1, i++)
        r += nb_binom(__builtin_ctz(x), i);
    return r;
}

/* The k-subset of colex rank r (largest element first). */
static uint32_t nb_uncolex(uint64_t r, int k)
{
    uint32_t x = 0;
    for (int i = k; i >= 1; i--) {
        int q = i - 1;
        while (nb_binom(q + 1, i) <= r)
            q++;
        x |= UINT32_C(1) << q;
        r -= nb_binom(q, i);
    }
    return x;
}

/* Squeeze the bits of o that lie outside m together (o's rank among the
 * free points), and the inverse. */
static uint32_t nb_squeeze(uint32_t o, uint32_t m, int np)
{
    uint32_t r = 0;
    for (int i = 0, j = 0; i < np; i++) {
        if (m & (UINT32_C(1) << i))
            continue;
        if (o & (UINT32_C(1) << i))
            r |= UINT32_C(1) << j;
        j++;
    }
    return r;
}
static uint32_t nb_spread(uint32_t x, uint32_t m, int np)
{
    uint32_t r = 0;
    for (int i = 0, j = 0; i < np; i++) {
        if (m & (UINT32_C(1) << i))
            continue;
        if (x & (UINT32_C(1) << j))
            r |= UINT32_C(1) << i;
        j++;
    }
    return r;
}

static uint64_t nb_pos_index(const struct naive_ban *nb, uint32_t m, uint32_t o)
{
    return nb_colex(m) * nb->co + nb_colex(nb_squeeze(o, m, nb->np));
}

static void nb_pos_at(const struct naive_ban *nb, uint64_t i, uint32_t *m, uint32_t *o)
{
    *m = nb_uncolex(i / nb->co, nb->k);
    *o = nb_spread(nb_uncolex(i % nb->co, nb->k), *m, nb->np);
}

static int nb_find(const int8_t *list, int n, int code)
{
    for (int i = 0; i < n; i++)
        if (list[i] == code)
            return i;
    return -2;
}

/* The state of position (m, o) with restrictions f (mover) and t, or
 * UINT64_MAX when a restriction is not live. */
static uint64_t nb_state(const struct naive_ban *nb, uint32_t m, uint32_t o, int f, int t)
{
    if (f < 0 && t < 0)
        return nb->first[nb_pos_index(nb, m, o)];
    int8_t F[MMTB_MAX_BANS], T[MMTB_MAX_BANS];
    int nf = mmtb_live_bans(nb->v, m, o, F), nt = mmtb_live_bans(nb->v, o, m, T);
    int a = f < 0 ? 0 : 1 + nb_find(F, nf, f), b = t < 0 ? 0 : 1 + nb_find(T, nt, t);
    if (a < 0 || b < 0)
        return UINT64_MAX;
    return nb->first[nb_pos_index(nb, m, o)] + (uint64_t)(a * (nt + 1) + b);
}

void naive_ban_state(const struct naive_ban *nb, uint64_t i, struct mmtb_pos *p, int *wdl,
                     int *dtw)
{
    /* the arrangement: the last one whose first state is <= i */
    uint64_t lo = 0, hi = nb->npos;
    while (hi - lo > 1) {
        uint64_t mid = lo + (hi - lo) / 2;
        if (nb->first[mid] <= i)
            lo = mid;
        else
            hi = mid;
    }
    memset(p, 0, sizeof *p);
    nb_pos_at(nb, lo, &p->stones[0], &p->stones[1]);
    p->side = MMTB_WHITE;
    int8_t F[MMTB_MAX_BANS], T[MMTB_MAX_BANS];
    mmtb_live_bans(nb->v, p->stones[0], p->stones[1], F);
    int nt = mmtb_live_bans(nb->v, p->stones[1], p->stones[0], T);
    int k = (int)(i - nb->first[lo]), a = k / (nt + 1), b = k % (nt + 1);
    p->ban_from = (int8_t)(a ? F[a - 1] : -1);
    p->ban_to = (int8_t)(b ? T[b - 1] : -1);
    uint16_t x = nb->val[i];
    if (!(x & V_DECIDED)) {
        *wdl = MMTB_DRAW;
        *dtw = -1;
    } else {
        *wdl = (x & V_WIN) ? MMTB_WIN : MMTB_LOSS;
        *dtw = x & V_DEPTH;
    }
}

uint64_t naive_ban_states(const struct naive_ban *nb)
{
    return nb->nstates;
}

void naive_ban_free(struct naive_ban *nb)
{
    if (!nb)
        return;
    free(nb->first);
    free(nb->succ_off);
    free(nb->succ);
    free(nb->flags);
    free(nb->val);
    free(nb);
}

struct naive_ban *naive_ban_solve(const struct mmtb_variant *v, int stones, char *err,
                                  size_t errlen)
{
    struct naive_ban *nb = calloc(1, sizeof *nb);
    if (!nb) {
        set_err(err, errlen, "out of memory");
        return NULL;
    }
    nb->v = v;
    nb->np = v->npoints;
    nb->k = stones;
    nb->cm = nb_binom(nb->np, stones);
    nb->co = nb_binom(nb->np - stones, stones);
    nb->npos = nb->cm * nb->co;
    nb->first = malloc((nb->npos + 1) * sizeof *nb->first);
    if (!v->no_reclose || stones != v->min_stones || !nb->first) {
        set_err(err, errlen, "naive_ban_solve: needs a no_reclose variant, min_stones a side");
        naive_ban_free(nb);
        return NULL;
    }
    int8_t F[MMTB_MAX_BANS], T[MMTB_MAX_BANS];
    uint64_t total = 0;
    for (uint64_t i = 0; i < nb->npos; i++) {
        uint32_t m, o;
        nb_pos_at(nb, i, &m, &o);
        nb->first[i] = total;
        total += (uint64_t)(mmtb_live_bans(v, m, o, F) + 1) * (uint64_t)(mmtb_live_bans(v, o, m, T) + 1);
    }
    nb->first[nb->npos] = total;
    nb->nstates = total;
    nb->succ_off = malloc((total + 1) * sizeof *nb->succ_off);
    nb->flags = calloc(total, 1);
    nb->val = calloc(total, sizeof *nb->val);
    size_t cap = (size_t)total * 8, n = 0;
    nb->succ = malloc(cap * sizeof *nb->succ);
    if (!nb->succ_off || !nb->flags || !nb->val || !nb->succ || total >= UINT32_MAX) {
        set_err(err, errlen, "out of memory");
        naive_ban_free(nb);
        return NULL;
    }
    /* the successor graph */
    struct mmtb_move mv[MMTB_MAX_MOVES];
    uint64_t pi = 0;
    uint32_t pm = 0, po = 0;
    int nf = 0, nt = 0;
    for (uint64_t i = 0; i < total; i++) {
        struct mmtb_pos p, q;
        if (i == 0 || nb->first[pi + 1] <= i) {
            while (nb->first[pi + 1] <= i)
                pi++;
            nb_pos_at(nb, pi, &pm, &po);
            nf = mmtb_live_bans(v, pm, po, F);
            nt = mmtb_live_bans(v, po, pm, T);
        }
        memset(&p, 0, sizeof p);
        p.stones[0] = pm;
        p.stones[1] = po;
        int k = (int)(i - nb->first[pi]), a = k / (nt + 1), b = k % (nt + 1);
        (void)nf;
        p.ban_from = (int8_t)(a ? F[a - 1] : -1);
        p.ban_to = (int8_t)(b ? T[b - 1] : -1);
        nb->succ_off[i] = (uint32_t)n;
        int t = mmtb_pos_terminal(v, &p);
        if (t != MMTB_NOT_TERMINAL) {
            nb->val[i] = t == MMTB_LOSS ? V_DECIDED : 0;
            nb->flags[i] |= t == MMTB_LOSS ? 0 : NB_DRAW;
            continue;
        }
        int nm = mmtb_gen_moves(v, &p, mv);
        for (int j = 0; j < nm; j++) {
            mmtb_pos_apply(v, &p, &mv[j], &q);
            int tq = mmtb_pos_terminal(v, &q);
            if (tq == MMTB_LOSS) {
                nb->flags[i] |= NB_WIN1;
                continue;
            }
            if (tq == MMTB_DRAW) {
                nb->flags[i] |= NB_DRAW;
                continue;
            }
            uint32_t qm = q.stones[q.side], qo = q.stones[q.side ^ 1];
            uint64_t st = __builtin_popcount(qm) == stones && __builtin_popcount(qo) == stones
                              ? nb_state(nb, qm, qo, q.ban_from, q.ban_to)
                              : UINT64_MAX;
            if (st == UINT64_MAX) {
                set_err(err, errlen, "naive_ban_solve: a move leaves the sector or the states");
                naive_ban_free(nb);
                return NULL;
            }
            if (n == cap) {
                cap *= 2;
                uint32_t *ns = realloc(nb->succ, cap * sizeof *ns);
                if (!ns) {
                    set_err(err, errlen, "out of memory");
                    naive_ban_free(nb);
                    return NULL;
                }
                nb->succ = ns;
            }
            nb->succ[n++] = (uint32_t)st;
        }
    }
    nb->succ_off[total] = (uint32_t)n;
    /* forward levels: level d decides what the values of depth < d decide
     * (a win at d: a move to a loss at d - 1, or at d = 1 a capture; a loss
     * at d: every move to a win, the deepest at d - 1).  Every outcome
     * outside the states has depth 1, so a level that decides nothing is
     * the last. */
    uint64_t *news = malloc(total * sizeof *news);
    if (!news) {
        set_err(err, errlen, "out of memory");
        naive_ban_free(nb);
        return NULL;
    }
    /* the undecided states, kept in a list that shrinks level by level */
    uint32_t *open = malloc(total * sizeof *open);
    if (!open) {
        free(news);
        set_err(err, errlen, "out of memory");
        naive_ban_free(nb);
        return NULL;
    }
    size_t nopen = 0;
    for (uint64_t i = 0; i < total; i++)
        if (!(nb->val[i] & V_DECIDED))
            open[nopen++] = (uint32_t)i;
    for (unsigned d = 1;; d++) {
        size_t nn = 0, keep = 0;
        for (size_t oi = 0; oi < nopen; oi++) {
            uint64_t i = open[oi];
            if (nb->val[i] & V_DECIDED)
                continue;
            open[keep++] = (uint32_t)i;
            if (nb->flags[i] & NB_DRAW && !(nb->flags[i] & NB_WIN1) &&
                nb->succ_off[i] == nb->succ_off[i + 1])
                continue;
            if (nb->val[i] == 0 && d == 1 && (nb->flags[i] & NB_WIN1)) {
                news[nn++] = i << 16 | V_DECIDED | V_WIN | 1;
                continue;
            }
            bool win = false, all_won = !(nb->flags[i] & (NB_DRAW | NB_WIN1));
            unsigned deepest = 0;
            for (uint32_t e = nb->succ_off[i]; e < nb->succ_off[i + 1]; e++) {
                uint16_t x = nb->val[nb->succ[e]];
                if ((x & V_DECIDED) && !(x & V_WIN) && (x & V_DEPTH) == d - 1)
                    win = true;
                if (!(x & V_DECIDED) || !(x & V_WIN))
                    all_won = false;
                else if ((x & V_DEPTH) > deepest)
                    deepest = x & V_DEPTH;
            }
            if (win)
                news[nn++] = i << 16 | V_DECIDED | V_WIN | d;
            else if (all_won && deepest + 1 == d)
                news[nn++] = i << 16 | V_DECIDED | d;
        }
        nopen = keep;
        if (nn == 0)
            break;
        for (size_t j = 0; j < nn; j++)
            nb->val[news[j] >> 16] = (uint16_t)(news[j] & 0xffff);
    }
    free(open);
    free(news);
    return nb;
}
