/*
 * testlib_naive_game.c - the whole-game oracle: every position reachable
 * from a start (stones in hand, White to move) as an explicit graph, with
 * everything struct mmtb_pos holds beyond the stones (hands, side, Shah's
 * first-mill owner) as part of the state, and a retrograde analysis over
 * it.  Moves come from format/movegen.c (generate, apply, game over); the
 * predecessors are the forward edges reversed, not movegen's unmoves.  No
 * symmetry, no sectors, no index: nothing of sector_index.c, ban_index.c,
 * gen/ or probe/.
 *
 * Depth to win (DTW): plies to the end of the game, the winner minimising
 * and the loser maximising, across captures and phases.  A lost game over
 * is a loss in 0; every move, one that removes a stone included, is worth
 * the value of the position it leads to, negated, at that position's depth
 * + 1.  Since removals lower the stones a colour has (board and hand), the
 * states are solved by material (the two colours' totals, lowest sum
 * first): a removal leads into a material solved before, whose values are
 * final at any depth, every other move stays in the same one.  Inside a
 * material, level L decides the wins and losses of depth L; a state is
 * looked at on level L when one of its moves' outcomes became known at
 * depth L: a successor of the same material decided at L - 1, or a removal
 * into a state decided at L - 1 (all states on level 1).
 */
#include "testlib_naive.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "movegen.h"

enum { G_OPEN = 0, G_WIN, G_LOSS, G_DRAW };

/* A state's key: the two colours' stones, then hands, side, Shah's
 * first-mill owner and the re-close restrictions of the two sides
 * (everything the oracle tells states apart by). */
struct gslot {
    uint64_t stones;
    uint32_t rest;
    uint32_t index1;
};

struct naive_game {
    const struct mmtb_variant *v;
    struct mmtb_pos *pos;
    uint64_t n, cap;
    /* hash of the states, each slot with its state's key (one random
     * access a look-up, not two): index + 1, 0 empty */
    struct gslot *slot;
    uint64_t mask;
    /* forward edges (CSR): target << 1 | removes */
    uint64_t *first;
    uint32_t *edge;
    uint64_t nedges, edge_cap;
    uint8_t *val;
    int32_t *dtw;
    double seconds;
};

static struct gslot slot_key(const struct mmtb_pos *p)
{
    struct gslot k;
    k.stones = (uint64_t)p->stones[0] | (uint64_t)p->stones[1] << 32;
    k.rest = (uint32_t)p->hand[0] | (uint32_t)p->hand[1] << 6 | (uint32_t)p->side << 12 |
             (uint32_t)p->first_mill << 13 | (uint32_t)(uint8_t)p->ban_from << 15 |
             (uint32_t)(uint8_t)p->ban_to << 23;
    k.index1 = 0;
    return k;
}

static uint64_t key_hash(const struct gslot *k)
{
    uint64_t h = k->stones * 0x9e3779b97f4a7c15ull ^
                 (k->rest + 0x632be59bd9b4e019ull) * 0xbf58476d1ce4e5b9ull;
    return h ^ (h >> 31);
}

static bool grow_hash(struct naive_game *g)
{
    uint64_t size = (g->mask + 1) * 2;
    struct gslot *s = calloc(size, sizeof *s);
    if (!s)
        return false;
    for (uint64_t i = 0; i <= g->mask; i++) {
        if (!g->slot[i].index1)
            continue;
        uint64_t h = key_hash(&g->slot[i]) & (size - 1);
        while (s[h].index1)
            h = (h + 1) & (size - 1);
        s[h] = g->slot[i];
    }
    free(g->slot);
    g->slot = s;
    g->mask = size - 1;
    return true;
}

/* The index of state p, added when new; -1 when out of memory. */
static int64_t intern(struct naive_game *g, const struct mmtb_pos *p)
{
    struct gslot k = slot_key(p);
    uint64_t h = key_hash(&k) & g->mask;
    for (; g->slot[h].index1; h = (h + 1) & g->mask)
        if (g->slot[h].stones == k.stones && g->slot[h].rest == k.rest)
            return g->slot[h].index1 - 1;
    if (g->n == g->cap) {
        uint64_t nc = g->cap ? 2 * g->cap : 4096;
        struct mmtb_pos *np = realloc(g->pos, nc * sizeof *np);
        if (!np)
            return -1;
        g->pos = np;
        g->cap = nc;
    }
    g->pos[g->n] = *p;
    k.index1 = (uint32_t)(g->n + 1);
    g->slot[h] = k;
    g->n++;
    if (2 * g->n > g->mask && !grow_hash(g))
        return -1;
    return (int64_t)g->n - 1;
}

static bool push_edge(struct naive_game *g, uint32_t e)
{
    if (g->nedges == g->edge_cap) {
        uint64_t nc = g->edge_cap ? 2 * g->edge_cap : 65536;
        uint32_t *ne = realloc(g->edge, nc * sizeof *ne);
        if (!ne)
            return false;
        g->edge = ne;
        g->edge_cap = nc;
    }
    g->edge[g->nedges++] = e;
    return true;
}

static int material(const struct mmtb_pos *p)
{
    return __builtin_popcount(p->stones[0]) + p->hand[0] + __builtin_popcount(p->stones[1]) +
           p->hand[1];
}

void naive_game_free(struct naive_game *g)
{
    if (!g)
        return;
    free(g->pos);
    free(g->slot);
    free(g->first);
    free(g->edge);
    free(g->val);
    free(g->dtw);
    free(g);
}

static struct naive_game *fail(struct naive_game *g, char *err, size_t errlen, const char *msg)
{
    snprintf(err, errlen, "%s", msg);
    naive_game_free(g);
    return NULL;
}

/* The value of state i from its successors at level L (see the top):
 * G_WIN or G_LOSS (of depth L), G_OPEN, or -1 when every move loses and the
 * deepest loss is shallower than L (a level was missed). */
static int evaluate(const struct naive_game *g, uint64_t i, int L)
{
    bool all_lost_for_us = true;
    int deepest = 0;
    for (uint64_t k = g->first[i]; k < g->first[i + 1]; k++) {
        uint32_t t = g->edge[k] >> 1;
        int depth = g->dtw[t] + 1;
        switch (g->val[t]) {
        case G_LOSS:
            if (depth == L)
                return G_WIN;
            /* a win, but not at L: a faster one was found at its level, or
             * this one is for a later level */
            all_lost_for_us = false;
            break;
        case G_WIN:
            deepest = depth > deepest ? depth : deepest;
            break;
        default:
            all_lost_for_us = false;
        }
    }
    if (all_lost_for_us && deepest < L)
        return -1;
    return all_lost_for_us && deepest == L ? G_LOSS : G_OPEN;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

struct naive_game *naive_game_solve(const struct mmtb_variant *v, int w_hand, int b_hand, char *err,
                                    size_t errlen)
{
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    if (v->stones > 63)
        return fail(NULL, err, errlen, "more than 63 stones a side do not fit the oracle's key");
    struct naive_game *g = calloc(1, sizeof *g);
    if (!g)
        return fail(g, err, errlen, "out of memory");
    g->v = v;
    g->mask = 4095;
    g->slot = calloc(g->mask + 1, sizeof *g->slot);
    struct mmtb_move *mv = malloc(MMTB_MAX_MOVES * sizeof *mv);
    struct mmtb_pos *succ = malloc(MMTB_MAX_MOVES * sizeof *succ);
    if (!g->slot || !mv || !succ) {
        free(mv), free(succ);
        return fail(g, err, errlen, "out of memory");
    }
    struct mmtb_pos start;
    mmtb_pos_start(v, &start);
    start.hand[0] = (uint8_t)w_hand;
    start.hand[1] = (uint8_t)b_hand;
    if (intern(g, &start) < 0) {
        free(mv), free(succ);
        return fail(g, err, errlen, "out of memory");
    }
    /* breadth first: state i's edges are the i-th run of the edge list */
    uint64_t fcap = 4096;
    g->first = malloc(fcap * sizeof *g->first);
    for (uint64_t i = 0; g->first && i < g->n; i++) {
        if (i + 2 > fcap) {
            fcap *= 2;
            uint64_t *nf = realloc(g->first, fcap * sizeof *nf);
            if (!nf)
                break;
            g->first = nf;
        }
        g->first[i] = g->nedges;
        struct mmtb_pos p = g->pos[i];
        if (mmtb_pos_terminal(v, &p) != MMTB_NOT_TERMINAL)
            continue;
        int n = mmtb_gen_moves(v, &p, mv);
        if (n <= 0) {
            free(mv), free(succ);
            return fail(g, err, errlen, "a position that is not over has no move");
        }
        /* the successors first, their slots fetched ahead: most of the
         * build's time is these look-ups, each at a random address */
        for (int k = 0; k < n; k++) {
            struct mmtb_pos *q = &succ[k];
            mmtb_pos_apply(v, &p, &mv[k], q);
            if (q->remove != 0 || q->side == p.side ||
                material(q) != material(&p) - (mv[k].remove >= 0 ? 1 : 0)) {
                free(mv), free(succ);
                return fail(g, err, errlen, "a whole turn that does not end the turn");
            }
            struct gslot key = slot_key(q);
            __builtin_prefetch(&g->slot[key_hash(&key) & g->mask]);
        }
        for (int k = 0; k < n; k++) {
            int64_t t = intern(g, &succ[k]);
            if (t < 0 || t >= (int64_t)1 << 31 ||
                !push_edge(g, (uint32_t)t << 1 | (mv[k].remove >= 0))) {
                free(mv), free(succ);
                return fail(g, err, errlen, "out of memory");
            }
        }
    }
    free(mv), free(succ);
    if (!g->first)
        return fail(g, err, errlen, "out of memory");
    g->first[g->n] = g->nedges;
    free(g->slot);
    g->slot = NULL;

    /* predecessors through moves that remove nothing (CSR of the reversed
     * edges), and the states of each material */
    uint64_t *rfirst = calloc(g->n + 1, sizeof *rfirst);
    uint32_t *redge = malloc((g->nedges + 1) * sizeof *redge);
    g->val = calloc(g->n, 1);
    g->dtw = malloc(g->n * sizeof *g->dtw);
    uint32_t *order = malloc((g->n + 1) * sizeof *order);
    uint32_t *stamp = calloc(g->n, sizeof *stamp);
    uint32_t *cand = malloc((g->n + 1) * sizeof *cand), *next = malloc((g->n + 1) * sizeof *next);
    uint32_t *dec = malloc((g->n + 1) * sizeof *dec);
    uint8_t *decv = malloc(g->n + 1);
    uint64_t *due = malloc((g->nedges + 1) * sizeof *due);
    if (!rfirst || !redge || !g->val || !g->dtw || !order || !stamp || !cand || !next || !dec ||
        !decv || !due) {
        free(rfirst), free(redge), free(order), free(stamp), free(cand), free(next);
        free(dec), free(decv), free(due);
        return fail(g, err, errlen, "out of memory");
    }
    for (uint64_t k = 0; k < g->nedges; k++)
        if (!(g->edge[k] & 1))
            rfirst[(g->edge[k] >> 1) + 1]++;
    for (uint64_t i = 0; i < g->n; i++)
        rfirst[i + 1] += rfirst[i];
    uint64_t *fill = malloc((g->n + 1) * sizeof *fill);
    if (!fill) {
        free(rfirst), free(redge), free(order), free(stamp), free(cand), free(next);
        free(dec), free(decv), free(due);
        return fail(g, err, errlen, "out of memory");
    }
    memcpy(fill, rfirst, g->n * sizeof *fill);
    for (uint64_t i = 0; i < g->n; i++)
        for (uint64_t k = g->first[i]; k < g->first[i + 1]; k++)
            if (!(g->edge[k] & 1))
                redge[fill[g->edge[k] >> 1]++] = (uint32_t)i;
    free(fill);
    int maxmat = 0;
    for (uint64_t i = 0; i < g->n; i++)
        maxmat = material(&g->pos[i]) > maxmat ? material(&g->pos[i]) : maxmat;
    uint64_t no = 0;
    for (int m = 0; m <= maxmat; m++)
        for (uint64_t i = 0; i < g->n; i++)
            if (material(&g->pos[i]) == m)
                order[no++] = (uint32_t)i;

    /* material by material: the game-over states, then level L decides the
     * wins and losses of depth L among the states one of whose outcomes
     * became known at depth L (all states at L = 1): a same-material
     * successor decided at L - 1 (through the reversed edges), or a removal
     * into an earlier material's state of depth L - 1 (from `due`, the
     * removals' levels sorted: level << 32 | state) */
    uint32_t round = 0;
    for (uint64_t a = 0; a < no;) {
        int m = material(&g->pos[order[a]]);
        uint64_t b = a;
        while (b < no && material(&g->pos[order[b]]) == m)
            b++;
        uint64_t nc = 0, ndue = 0;
        for (uint64_t k = a; k < b; k++) {
            uint32_t i = order[k];
            int t = mmtb_pos_terminal(v, &g->pos[i]);
            g->val[i] = t == MMTB_LOSS ? G_LOSS : t == MMTB_DRAW ? G_DRAW : G_OPEN;
            g->dtw[i] = t == MMTB_LOSS ? 0 : -1;
            if (g->val[i] != G_OPEN)
                continue;
            cand[nc++] = i;
            for (uint64_t e = g->first[i]; e < g->first[i + 1]; e++) {
                uint32_t t2 = g->edge[e] >> 1;
                if ((g->edge[e] & 1) && (g->val[t2] == G_WIN || g->val[t2] == G_LOSS))
                    due[ndue++] = (uint64_t)(g->dtw[t2] + 1) << 32 | i;
            }
        }
        qsort(due, ndue, sizeof *due, cmp_u64);
        uint64_t di = 0;
        for (int L = 1; nc > 0 || di < ndue; L++) {
            round++;
            for (uint64_t k = 0; k < nc; k++)
                stamp[cand[k]] = round;
            for (; di < ndue && (due[di] >> 32) <= (uint64_t)L; di++) {
                uint32_t q = (uint32_t)due[di];
                if (g->val[q] == G_OPEN && stamp[q] != round) {
                    stamp[q] = round;
                    cand[nc++] = q;
                }
            }
            /* decide first, reading levels < L only; then publish */
            uint64_t nd = 0;
            for (uint64_t k = 0; k < nc; k++) {
                int r = evaluate(g, cand[k], L);
                if (r < 0) {
                    free(rfirst), free(redge), free(order), free(stamp), free(cand), free(next);
                    free(dec), free(decv), free(due);
                    return fail(g, err, errlen, "a loss missed its level");
                }
                if (r != G_OPEN) {
                    dec[nd] = cand[k];
                    decv[nd++] = (uint8_t)r;
                }
            }
            for (uint64_t k = 0; k < nd; k++) {
                g->val[dec[k]] = decv[k];
                g->dtw[dec[k]] = L;
            }
            round++;
            uint64_t nn = 0;
            for (uint64_t k = 0; k < nd; k++)
                for (uint64_t r = rfirst[dec[k]]; r < rfirst[dec[k] + 1]; r++) {
                    uint32_t q = redge[r];
                    if (g->val[q] == G_OPEN && stamp[q] != round) {
                        stamp[q] = round;
                        next[nn++] = q;
                    }
                }
            uint32_t *tmp = cand;
            cand = next;
            next = tmp;
            nc = nn;
        }
        for (uint64_t k = a; k < b; k++)
            if (g->val[order[k]] == G_OPEN)
                g->val[order[k]] = G_DRAW;
        a = b;
    }
    free(rfirst), free(redge), free(order), free(stamp), free(cand), free(next);
    free(dec), free(decv), free(due);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    g->seconds = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    return g;
}

uint64_t naive_game_states(const struct naive_game *g)
{
    return g->n;
}

double naive_game_seconds(const struct naive_game *g)
{
    return g->seconds;
}

void naive_game_state(const struct naive_game *g, uint64_t i, struct mmtb_pos *p, int *wdl,
                      int *dtw)
{
    *p = g->pos[i];
    *wdl = g->val[i] == G_WIN ? MMTB_WIN : g->val[i] == G_LOSS ? MMTB_LOSS : MMTB_DRAW;
    *dtw = g->val[i] == G_DRAW ? -1 : g->dtw[i];
}

int naive_game_edges(const struct naive_game *g, uint64_t i, uint64_t *out, int cap)
{
    int n = 0;
    for (uint64_t k = g->first[i]; k < g->first[i + 1] && n < cap; k++)
        out[n++] = g->edge[k];
    return n;
}
