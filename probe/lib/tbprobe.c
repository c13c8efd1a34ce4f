/*
 * tbprobe.c - probing positions: terminal positions by the rules, pending
 * removals and Shah's opening (the first-mill owner's removal, or the other
 * side's pass before it) by their best move, everything else by rank and
 * look-up;
 * every legal move with its value (best first), and principal variations.
 * The move-value convention here is the one the solver stores: a move takes
 * its successor's value, negated, one ply deeper (depth to win).  A win of
 * a packed sector (value encoding 2: the depths of losses only) gets its
 * depth from its winning moves, whose successors' losses are stored.
 */
#include "tbinternal.h"

#include <stdlib.h>
#include <string.h>

/* Ordering score of a value: wins (shorter better) > draws > losses
 * (longer better).  Without depths (WDL-only probes) only the class
 * counts. */
static long score(const struct mmtb_value *x)
{
    if (x->wdl == MMTB_WIN)
        return 3000000L - x->dtw;
    if (x->wdl == MMTB_DRAW)
        return 2000000L;
    return 1000000L + x->dtw;
}

/* Reject what the tables cannot answer before touching them. */
static int check_pos(const struct mmtb_variant *v, const struct mmtb_pos *p)
{
    if (mmtb_pos_validate(v, p, NULL, 0) != MMTB_OK)
        return MMTB_ERR_INVALID;
    return MMTB_OK;
}

/* Which depths a caller needs, for the side to move of the position it
 * asks about: a win's, a loss's, both, or none (W/D/L only).  Every depth
 * not wanted is reported as 0. */
enum { WANT_NONE = 0, WANT_WIN = 1, WANT_LOSS = 2, WANT_BOTH = 3 };

/* The same need seen from the other side. */
static unsigned flip(unsigned want)
{
    return (want & WANT_WIN) << 1 | (want & WANT_LOSS) >> 1;
}

static int eval_pos(mmtb_ctx *ctx, const struct mmtb_pos *p, unsigned want,
                    struct mmtb_value *out);

/*
 * Value of move m from p for the side that makes it, from q = apply(p, m):
 *   q with the same side to move (more removals pending): q's value;
 *   otherwise the negated value of q at q's depth + 1 (depth to win, a
 *   capture like any other move).  A q lost by the rules is a loss in 0, so
 *   the move wins in 1.
 */
static int eval_move(mmtb_ctx *ctx, const struct mmtb_pos *p, const struct mmtb_move *m,
                     unsigned want, struct mmtb_value *out)
{
    const struct mmtb_variant *v = ctx_tb(ctx)->v;
    struct mmtb_pos q;
    struct mmtb_value vq;
    mmtb_pos_apply(v, p, m, &q);
    bool same = q.side == p->side;
    int rc = eval_pos(ctx, &q, same ? want : flip(want), &vq);
    if (rc != MMTB_OK)
        return rc;
    if (same) {
        *out = vq;
        return MMTB_OK;
    }
    out->wdl = -vq.wdl;
    if (vq.wdl == MMTB_DRAW)
        out->dtw = -1;
    else if (!(want & (out->wdl == MMTB_WIN ? WANT_WIN : WANT_LOSS)))
        out->dtw = 0;
    else
        out->dtw = vq.dtw + 1;
    return MMTB_OK;
}

/*
 * The depth of p, a win of a packed sector: the fastest of its winning
 * moves.  Each leads to a loss of the other side, whose depth is stored
 * (or to a pending removal whose best removal does), so the search is one
 * ply, two through a removal.  A stored win without a winning move is a
 * damaged or mismatched table.
 */
static int search_win(mmtb_ctx *ctx, const struct mmtb_pos *p, int *dtw)
{
    const struct mmtb_variant *v = ctx_tb(ctx)->v;
    struct mmtb_move moves[MMTB_MAX_MOVES];
    int n = mmtb_gen_moves(v, p, moves);
    if (n < 0)
        return n;
    int best = -1;
    for (int i = 0; i < n; i++) {
        struct mmtb_value mv;
        int rc = eval_move(ctx, p, &moves[i], WANT_WIN, &mv);
        if (rc != MMTB_OK)
            return rc;
        if (mv.wdl == MMTB_WIN && (best < 0 || mv.dtw < best))
            best = mv.dtw;
    }
    if (best < 0) {
        char name[48];
        mmtb_tf_sector_filename(mmtb_pos_sector(p), name, sizeof name);
        ctx_set_error(ctx, "%s: a position stored as a win has no winning move "
                           "(damaged tables, or sectors of different solves)", name);
        return MMTB_ERR_CORRUPT;
    }
    *dtw = best;
    return MMTB_OK;
}

/* Look a stored position up: rank its stones in its sector's table. */
static int lookup(mmtb_ctx *ctx, const struct mmtb_pos *p, unsigned want,
                  struct mmtb_value *out)
{
    const mmtb_tb *tb = ctx_tb(ctx);
    struct mmtb_sector s = mmtb_pos_sector(p);
    int si = tb_find(tb, s);
    if (si < 0)
        return si;
    const struct tb_sector *sec;
    int rc = tb_sector_ready(tb, si, &sec);
    if (rc != MMTB_OK) {
        char detail[200];
        tb_sector_detail(tb, si, detail, sizeof detail);
        ctx_set_error(ctx, "%s", detail);
        return rc;
    }
    const mmtb_index *ix;
    rc = tb_index(tb, &ix);
    if (rc != MMTB_OK)
        return rc;
    uint64_t slot = sec->bx ? mmtb_ban_index_rank_pos(sec->bx, p)
                            : mmtb_index_rank(ix, s, p->stones[p->side], p->stones[p->side ^ 1]);
    unsigned code, dtw;
    rc = ctx_slot(ctx, si, sec, slot, want != WANT_NONE, &code, &dtw);
    if (rc != MMTB_OK)
        return rc;
    switch (code) {
    case MMTB_TF_WIN:
        out->wdl = MMTB_WIN;
        out->dtw = 0;
        if (dtw != CTX_DTW_SEARCH)
            out->dtw = (int)dtw;
        else if (want & WANT_WIN)
            return search_win(ctx, p, &out->dtw);
        break;
    case MMTB_TF_LOSS:
        out->wdl = MMTB_LOSS;
        out->dtw = (int)dtw;
        break;
    default:
        out->wdl = MMTB_DRAW;
        out->dtw = -1;
    }
    return MMTB_OK;
}

/* The value of p: by the rules when the game is over, by the best move
 * when a removal is pending or p is Shah's opening (positions no table
 * stores: FORMAT.md), else from the table. */
static int eval_pos(mmtb_ctx *ctx, const struct mmtb_pos *p, unsigned want,
                    struct mmtb_value *out)
{
    const struct mmtb_variant *v = ctx_tb(ctx)->v;
    int t = mmtb_pos_terminal(v, p);
    if (t == MMTB_LOSS) {
        out->wdl = MMTB_LOSS;
        out->dtw = 0;
        return MMTB_OK;
    }
    if (t == MMTB_DRAW) {
        out->wdl = MMTB_DRAW;
        out->dtw = -1;
        return MMTB_OK;
    }
    bool opening = v->first_mill_removal && p->first_mill != MMTB_FIRST_MILL_NONE &&
                   p->hand[0] == 0 && p->hand[1] == 0;
    if (p->remove == 0 && !opening)
        return lookup(ctx, p, want, out);

    struct mmtb_move moves[MMTB_MAX_MOVES];
    int n = mmtb_gen_moves(v, p, moves);
    if (n < 0)
        return n;
    if (n == 0)
        return MMTB_ERR_INVALID; /* a pending removal with nothing to remove (the
                                  * opening always lists a removal or a pass) */
    for (int i = 0; i < n; i++) {
        struct mmtb_value mv;
        int rc = eval_move(ctx, p, &moves[i], want, &mv);
        if (rc != MMTB_OK)
            return rc;
        if (i == 0 || score(&mv) > score(out))
            *out = mv;
    }
    return MMTB_OK;
}

int mmtb_probe(mmtb_ctx *ctx, const struct mmtb_pos *p, struct mmtb_value *out)
{
    if (!ctx || !p || !out)
        return MMTB_ERR_INVALID;
    int rc = check_pos(ctx_tb(ctx)->v, p);
    if (rc != MMTB_OK)
        return rc;
    return eval_pos(ctx, p, WANT_BOTH, out);
}

int mmtb_probe_wdl(mmtb_ctx *ctx, const struct mmtb_pos *p, int *wdl)
{
    if (!ctx || !p || !wdl)
        return MMTB_ERR_INVALID;
    int rc = check_pos(ctx_tb(ctx)->v, p);
    if (rc != MMTB_OK)
        return rc;
    struct mmtb_value val;
    rc = eval_pos(ctx, p, WANT_NONE, &val);
    if (rc == MMTB_OK)
        *wdl = val.wdl;
    return rc;
}

int mmtb_probe_move(mmtb_ctx *ctx, const struct mmtb_pos *p, const struct mmtb_move *m,
                    struct mmtb_value *out)
{
    if (!ctx || !p || !m || !out)
        return MMTB_ERR_INVALID;
    const struct mmtb_variant *v = ctx_tb(ctx)->v;
    int rc = check_pos(v, p);
    if (rc != MMTB_OK)
        return rc;
    if (mmtb_pos_terminal(v, p) != MMTB_NOT_TERMINAL)
        return MMTB_ERR_INVALID;
    /* only a move the generator lists may be applied */
    struct mmtb_move moves[MMTB_MAX_MOVES];
    int n = mmtb_gen_moves(v, p, moves);
    if (n < 0)
        return n;
    for (int i = 0; i < n; i++)
        if (moves[i].from == m->from && moves[i].to == m->to && moves[i].remove == m->remove)
            return eval_move(ctx, p, m, WANT_BOTH, out);
    return MMTB_ERR_INVALID;
}

/* Best first; the move-list position breaks ties (a stable order). */
struct ranked {
    long score;
    int pos;
};

static int cmp_ranked(const void *a, const void *b)
{
    const struct ranked *x = a, *y = b;
    if (x->score != y->score)
        return x->score > y->score ? -1 : 1;
    return (x->pos > y->pos) - (x->pos < y->pos);
}

int mmtb_probe_moves(mmtb_ctx *ctx, const struct mmtb_pos *p, struct mmtb_move_value *out,
                     int cap)
{
    if (!ctx || !p || cap < 0 || (cap > 0 && !out))
        return MMTB_ERR_INVALID;
    const struct mmtb_variant *v = ctx_tb(ctx)->v;
    int rc = check_pos(v, p);
    if (rc != MMTB_OK)
        return rc;
    if (mmtb_pos_terminal(v, p) != MMTB_NOT_TERMINAL)
        return 0;
    struct mmtb_move moves[MMTB_MAX_MOVES];
    int n = mmtb_gen_moves(v, p, moves);
    if (n <= 0)
        return n;
    struct mmtb_move_value *mv = ctx_scratch(ctx);
    struct ranked *rk = malloc((size_t)n * sizeof *rk);
    if (!rk)
        return MMTB_ERR_NOMEM;
    for (int i = 0; i < n; i++) {
        mv[i].move = moves[i];
        rc = eval_move(ctx, p, &moves[i], WANT_BOTH, &mv[i].value);
        if (rc != MMTB_OK) {
            free(rk);
            return rc;
        }
        rk[i].score = score(&mv[i].value);
        rk[i].pos = i;
    }
    qsort(rk, (size_t)n, sizeof *rk, cmp_ranked);
    for (int i = 0; i < n && i < cap; i++)
        out[i] = mv[rk[i].pos];
    free(rk);
    return n;
}

int mmtb_probe_pv(mmtb_ctx *ctx, const struct mmtb_pos *p, struct mmtb_move *out, int cap)
{
    if (!ctx || !p || cap < 0 || (cap > 0 && !out))
        return MMTB_ERR_INVALID;
    const struct mmtb_variant *v = ctx_tb(ctx)->v;
    struct mmtb_pos cur = *p;
    int k = 0;
    while (k < cap) {
        struct mmtb_move_value best;
        int n = mmtb_probe_moves(ctx, &cur, &best, 1);
        if (n < 0)
            return n;
        if (n == 0)
            break;
        out[k++] = best.move;
        struct mmtb_pos next;
        mmtb_pos_apply(v, &cur, &best.move, &next);
        cur = next;
    }
    return k;
}
