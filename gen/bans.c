/*
 * bans.c - the init and level work of the positions that carry Twelve
 * Men's re-close restrictions (no_reclose), on bitboards and grouped by
 * their stones.  A position's stones hold up to (|F| + 1) * (|T| + 1)
 * states, one per pair of restrictions the two sides may carry
 * (format/ban_index.h); their moves and unmoves are those of the stones
 * (succ.c) less what a restriction forbids, and what they lead to differs
 * only in the restrictions carried.  So the successors (init) or the
 * predecessors (levels) of the stones are generated and their stones ranked
 * once, and each state takes from them what applies to it: the rules of
 * format/movegen.c, read per state in a few bit operations.
 *
 * A state counts its in-pair moves, unranked, and a decided state takes
 * from each predecessor the moves that lead into its orbit, found from its
 * own side with the stabilizers of the two states (levels.c says why; the
 * restrictions map with the stones, so states are positions like any
 * other there).  The slots of
 * a chunk of scheme 1 slots [c * CHUNK, ...) and of their states
 * [bfirst[c], bfirst[c + 1]) are one unit of work.
 */
#include "job.h"

#include <omp.h>
#include <string.h>

#include "movegen.h"

/* One successor of a position's stones, its stones ranked in its sector. */
struct bsucc {
    int8_t from, to, earned; /* the move; the restriction it earns, or -1 */
    bool win, capture;
    int mi;                        /* the member it lies in, or -1: hs */
    const struct held_sector *hs;  /* the solved sector it lies in */
    const mmtb_ban_index *bx;      /* its sector's index */
    uint32_t qm, qo;               /* its stones, its side to move first */
    struct mmtb_ban_rank r;
};

/* One quiet predecessor of a position's stones, ranked in the partner. */
struct bpred {
    uint64_t qf[2], qt[2]; /* the live restrictions of its mover and of ours there */
    struct mmtb_ban_rank r;
};

/* The move back to it: what belongs to the move, not to the stones. */
struct bmove {
    int8_t from, to, earned;
    const struct bpred *p;
};

/* A predecessor's stones ranked, kept by the stones: a set of stones is
 * the predecessor of many positions decided at one level (every slide of
 * one of the opponent's stones leads back to it), and those positions lie
 * near each other in slot order, so a thread meets it again soon (about
 * half of the ranks of twelve's 5-5 levels).  What belongs to the move is
 * kept beside it (struct bmove), which points into the cache; an entry
 * used by the stones at hand (stamp) is not taken for another of their
 * predecessors. */
#define PCACHE_BITS 12
struct pcache {
    uint64_t key; /* 1 + (the predecessor's mover << 32 | its opponent), 0: empty */
    const struct member *pa;
    uint64_t stamp; /* the stone_preds call that last used it */
    struct bpred p;
};

#define SLOTS_CAP (MMTB_MAX_MOVES * 8) /* a state's successor or predecessor slots */
struct bans_scratch {
    struct succ sc[MMTB_MAX_MOVES];
    struct bsucc bs[MMTB_MAX_MOVES];
    struct bmove bm[MMTB_MAX_MOVES];
    struct bpred bp[MMTB_MAX_MOVES]; /* predecessors no cache entry was free for */
    uint64_t stamp;
    uint32_t pm[MMTB_MAX_MOVES], po[MMTB_MAX_MOVES];
    uint64_t slots[SLOTS_CAP];
    struct ext_look ext[MMTB_MAX_MOVES];
    uint64_t into[MMTB_MAX_POINTS][MMTB_MAX_BANS / 64]; /* succ_into_table */
    uint64_t marks[CHUNK / 64];        /* a level unit's stones with a state decided */
    struct pcache pc[1 << PCACHE_BITS];
};

bool bans_job(const struct job *j)
{
    return job_has_state(j) && succ_models_bans(j->v);
}

/*
 * Member me places: its state without restrictions (the first, k = 0) has
 * only placements, which earn no restriction and leave the opponent none
 * to carry, so each leads to its successor's own scheme 1 slot, as in a
 * sector without state.  Those states, most of the member's, are
 * initialised by the plain init with its block pass (init.c), the solved
 * sectors seen by their scheme 1 slots (deps_view_held); the states with
 * restrictions are then initialised here, position by position, in the
 * walk by the opponent's stones, which skips the positions without any
 * (init_unit_by_opp).  Its conditions imply bans_by_opponent's.
 */
bool bans_base_by_blocks(const struct job *j, const struct member *me)
{
    return j->base_blocks && bans_job(j) && !j->plain_init && me->s.w_hand > 0 && !j->sp &&
           !j->own_walk;
}

struct bans_scratch *bans_scratch_new(const struct mmtb_variant *v)
{
    struct bans_scratch *b = calloc(1, sizeof *b);
    if (b)
        succ_into_table(v, b->into);
    return b;
}

void bans_scratch_free(struct bans_scratch *b)
{
    free(b);
}

int bans_setup(struct job *j)
{
    for (int mi = 0; mi < j->nm; mi++) {
        struct member *me = &j->m[mi];
        uint64_t base = mmtb_ban_index_base(me->bx), n = (base + CHUNK - 1) / CHUNK;
        me->bfirst = malloc((n + 1) * sizeof *me->bfirst);
        if (!me->bfirst)
            return MMTB_ERR_NOMEM;
#pragma omp parallel for schedule(dynamic, 64)
        for (uint64_t c = 0; c <= n; c++)
            me->bfirst[c] = mmtb_ban_index_first(me->bx, c * CHUNK < base ? c * CHUNK : base);
        me->nbchunks = n;
    }
    return MMTB_OK;
}

/* ------------------------------------------------------------------ init */

/*
 * The quiet placements of a position met in the walk by the opponent's
 * stones, ranked without a look-up: the walk's stones (M', O') have O'
 * canonical with no symmetry of its own, so every (O', M' | p) is its own
 * representative, in O''s block of the sector qt at base + rel[the rank of
 * p among the empty points] (mmtb_index_rank_added).  The position itself
 * is the representative (M, O) = g(M', O'), so its placement of point p
 * is ranked through ginv = g's inverse.
 */
struct place_hint {
    struct mmtb_sector qt;
    uint64_t base;
    uint32_t empty; /* the walk's empty points */
    int ginv;
    uint32_t rel[MMTB_MAX_POINTS];
};

/* The successors of stones (M, O) of member me into b->bs, ranked;
 * returns their count, or a negative status.  T, nt: the opponent's live
 * restrictions here (succ_live_lists); with none, a successor that earns
 * none is only ever looked up without restrictions (its scheme 1 slot), and
 * its rank is not completed (the placements of a pair where both sides
 * place, say). */
static int stone_succs(struct job *j, const struct member *me, uint32_t M, uint32_t O,
                       const int8_t *T, int nt, const struct place_hint *ph,
                       struct bans_scratch *b)
{
    const struct mmtb_variant *v = j->v;
    int n = succ_generate(v, me->s, M, O, b->sc);
    uint32_t in_mill = n ? mmtb_variant_in_mill(v, M) : 0;
    for (int k = 0; k < n; k++) {
        const struct succ *sc = &b->sc[k];
        struct bsucc *x = &b->bs[k];
        x->mi = -1;
        succ_move_ends(M, sc->opp, &x->from, &x->to);
        x->earned = (int8_t)succ_earned_in(v, M, in_mill, x->from, x->to);
        x->win = sc->kind == SUCC_WIN;
        x->capture = sc->capture;
        if (x->win)
            continue;
        x->qm = sc->mover;
        x->qo = sc->opp;
        x->mi = x->capture ? -1 : member_of(j, sc->t);
        if (x->mi >= 0)
            continue; /* in the pair: only counted (see levels) */
        x->hs = held_find(&j->held, sc->t);
        if (!x->hs || !x->hs->bx) {
            __atomic_store_n(&j->why, "a successor's solved sector is not held",
                             __ATOMIC_RELAXED);
            return MMTB_ERR_INVALID;
        }
        x->bx = x->hs->bx;
        if (ph && !x->capture && mmtb_sector_eq(sc->t, ph->qt)) {
            int p = v->sym[ph->ginv][x->to];
            uint32_t at = ph->rel[mmtb_popcount32(ph->empty & ((1u << p) - 1))];
            mmtb_ban_index_rank_begin_at(x->bx, x->qm, x->qo, ph->base + at, ph->ginv, &x->r);
        } else {
            mmtb_ban_index_rank_begin(x->bx, x->qm, x->qo, &x->r);
        }
        __builtin_prefetch(&x->hs->code[x->r.slot0]);
    }
    /* the successors' live restrictions from ours and the opponent's here:
     * a move changes the emptiness of its two points, a capture more */
    struct succ_mills mm = {0, 0, 0};
    bool fast = succ_mills_ok(v), counted = false;
    uint64_t lo[2] = {0, 0}; /* the opponent's live restrictions here, when it has none in hand */
    for (int q = 0; q < nt; q++)
        lo[T[q] >> 6] |= (uint64_t)1 << (T[q] & 63);
    for (int k = 0; k < n; k++) {
        struct bsucc *x = &b->bs[k];
        if (x->win || x->mi >= 0 || (nt == 0 && x->earned < 0))
            continue;
        if (!fast) {
            mmtb_ban_index_rank_end(x->bx, &x->r, NULL, NULL);
            continue;
        }
        struct mmtb_sector t = x->hs->s;
        uint64_t fs[2] = {0, 0}, ts[2] = {0, 0};
        if (t.w_hand == 0) { /* the opponent's, to move there */
            if (x->capture) {
                mmtb_live_ban_set(v, x->qm, x->qo, fs);
            } else {
                fs[0] = lo[0] & ~b->into[x->to][0];
                fs[1] = lo[1] & ~b->into[x->to][1];
                if (x->from >= 0)
                    succ_live_into(v, O, x->from, fs);
            }
        }
        if (t.b_hand == 0) { /* ours after the move */
            if (!counted)
                succ_mills_of(v, M, O, &mm);
            counted = true;
            struct succ_mills m2 = mm;
            if (x->capture)
                m2.blocked = succ_mills_blocked(v, x->qm);
            succ_live_moved(v, &m2, x->qo, x->from, x->to, ts);
        }
        mmtb_ban_index_rank_end(x->bx, &x->r, fs, ts);
    }
    return n;
}

/* The state byte of the state (f, t) of the stones whose n successors are
 * in b->bs (slot `slot` of member mi); *rd the depth decided, or -1. */
static uint8_t state_value(struct job *j, int mi, uint64_t slot, int f, int t, int n,
                           struct bans_scratch *b, int *rd)
{
    const struct mmtb_variant *v = j->v;
    int fy = f >= 0 ? v->edge_y[f] : -2, fx = f >= 0 ? v->edge_x[f] : -2;
    int nin = 0, next = 0, moves = 0;
    /* the successors' states ranked and their reads started, then read:
     * a read is a cache miss in a sector of its own */
    uint64_t rs[MMTB_MAX_MOVES];
    int16_t out[MMTB_MAX_MOVES];
    for (int k = 0; k < n; k++) {
        const struct bsucc *x = &b->bs[k];
        if (x->from == fy && x->to == fx)
            continue; /* the restriction forbids this slide (it closes a mill) */
        moves++;
        if (x->win) {
            *rd = 1;
            return st_decided(j, true, 1);
        }
        if (x->mi >= 0) {
            nin++;
            continue;
        }
        /* t, live here, bites there unless our stone now stands on its
         * point X or a capture broke its mill */
        bool bites = t >= 0 && (x->capture ? succ_ban_bites(v, x->qm, x->qo, t)
                                           : v->edge_x[t] != x->to);
        int nf = bites ? t : -1;
        rs[next] = mmtb_ban_index_rank_state(x->bx, &x->r, nf, x->earned);
        __builtin_prefetch(&x->hs->code[rs[next]]);
        out[next++] = (int16_t)k;
    }
    for (int q = 0; q < next; q++) {
        const struct bsucc *x = &b->bs[out[q]];
        struct ext_look *e = &b->ext[q];
        e->d = NULL;
        e->have = true;
        uint8_t c = x->hs->code[rs[q]];
        e->w = (uint8_t)vc_wdl(c);
        e->dtw = (uint16_t)vc_depth(c, &x->hs->deep, rs[q]);
    }
    if (!moves) {
        *rd = 0;
        return st_decided(j, false, 0);
    }
    return settle_state(j, mi, slot, nin, next, b->ext, rd, NULL);
}

/* Per thread of the init: what settles the bookkeeping of the levels. */
struct init_tally {
    uint64_t *hist;
    int maxd;
    struct vec64 *deep;
    int fail;
};

static void tally(struct job *j, struct init_tally *ta, int mi, uint64_t slot, int rd)
{
    if (rd < 0)
        return;
    ta->hist[rd]++;
    ta->maxd = rd > ta->maxd ? rd : ta->maxd;
    if (rd >= (int)j->deep_from && !deep_push(ta->deep, mi, slot, (unsigned)rd))
        ta->fail = MMTB_ERR_NOMEM;
}

/*
 * The states of one canonical position of member mi: scheme 1 slot i, its
 * states with restrictions from `first` on (`counted` of them by the
 * index), its stones (M, O) the slot's representative, nstab the order of
 * its stabilizer.  Returns the number of states with restrictions it has
 * (K - 1, which must be `counted`), or a negative status.
 */
static int init_stones(struct job *j, int mi, uint64_t i, uint64_t first, int counted, uint32_t M,
                       uint32_t O, int nstab, const struct place_hint *ph, bool skip_base,
                       struct bans_scratch *b, struct init_tally *ta)
{
    struct member *me = &j->m[mi];
    int8_t F[MMTB_MAX_BANS], T[MMTB_MAX_BANS];
    int nf = 0, nt = 0;
    /* none counted: neither side has a live restriction (the lists and
     * the index's counts come from the same mmtb_live_bans); where there
     * are some, the lists must give as many states as the index holds */
    if (counted)
        succ_live_lists(j->v, me->s, M, O, F, &nf, T, &nt);
    int K = (nf + 1) * (nt + 1);
    if (K - 1 != counted) {
        __atomic_store_n(&j->why, "a position's restriction states differ from the index's",
                         __ATOMIC_RELAXED);
        return MMTB_ERR_INVALID;
    }
    struct mmtb_ban_rank self;
    if (nstab > 1) /* some states are images of others: the least is kept */
        mmtb_ban_index_rank_stones(me->bx, M, O, &self);
    int term = succ_terminal(j->v, me->s, M, O);
    int n = term == MMTB_NOT_TERMINAL ? stone_succs(j, me, M, O, T, nt, ph, b) : 0;
    if (n < 0)
        return n;
    for (int k = skip_base ? 1 : 0; k < K; k++) {
        uint64_t slot = k ? first + (uint64_t)k - 1 : i;
        int f, t, rd = -1;
        succ_state_bans(k, F, T, nt, &f, &t);
        if (k && nstab > 1 && mmtb_ban_index_rank_state(me->bx, &self, f, t) != slot) {
            me->st[slot] = ST_UNUSED;
            continue;
        }
        uint8_t x;
        if (term == MMTB_LOSS) {
            x = st_decided(j, false, 0);
            rd = 0;
        } else if (term == MMTB_DRAW) {
            x = ST_DRAWN;
        } else {
            x = state_value(j, mi, slot, f, t, n, b, &rd);
        }
        me->st[slot] = x;
        tally(j, ta, mi, slot, rd);
    }
    return K - 1;
}

/* Init the scheme 1 slots of chunk c of member mi and all their states,
 * in slot order. */
static void init_unit(struct job *j, int mi, uint64_t c, struct bans_scratch *b,
                      struct init_tally *ta)
{
    struct member *me = &j->m[mi];
    uint64_t base = mmtb_ban_index_base(me->bx), lo = c * CHUNK;
    uint64_t hi = lo + CHUNK < base ? lo + CHUNK : base, first = me->bfirst[c];
    const uint8_t *cnt = mmtb_ban_index_counts(me->bx);
    struct mmtb_index_iter it;
    mmtb_index_iter_start(&it, j->ix, me->s, lo, hi);
    uint64_t i;
    uint32_t M, O;
    bool canonical;
    while (mmtb_index_iter_next(&it, &i, &M, &O, &canonical)) {
        if (!canonical) {
            me->st[i] = ST_UNUSED;
            continue;
        }
        int r = init_stones(j, mi, i, first, cnt[i], M, O, it.nstab, NULL, false, b, ta);
        if (r < 0) {
            ta->fail = r;
            return;
        }
        first += (uint64_t)r;
    }
    if (first != me->bfirst[c + 1]) {
        __atomic_store_n(&j->why, "the restriction states of a chunk differ from the index's",
                         __ATOMIC_RELAXED);
        ta->fail = MMTB_ERR_INVALID;
    }
}

/* The hint for the placements of the position whose rank in its own index
 * is r (its stones those of the walk), or NULL when the walk's opponent set
 * has symmetries of its own; ph->base is kept for the last O' asked about
 * (*block_of: the walk meets each O' in a run of positions). */
static const struct place_hint *place_hint_for(const struct job *j, const struct mmtb_ban_rank *r,
                                               struct place_hint *ph, uint32_t *block_of)
{
    if (r->nsym != 1)
        return NULL;
    if (r->opp != *block_of) {
        *block_of = r->opp;
        ph->base = mmtb_index_plain_block(j->ix, ph->qt, r->opp);
    }
    if (ph->base == UINT64_MAX)
        return NULL;
    ph->ginv = j->v->sym_inv[r->sym[0]];
    ph->empty = j->v->full & ~(r->mover | r->opp);
    mmtb_index_rank_added(j->ix, r->opp, r->mover, ph->empty, ph->rel);
    return ph;
}

/*
 * The walk by the opponent's stones (init.c's init_by_opponent says why):
 * chunk c of the colour-swapped sector, each canonical slot (O, M) of it
 * our position (M, O), ranked in our index (its scheme 1 slot, its
 * states' first slot and the representative whose states they are) a
 * group at a time, so that the reads of their ranks overlap.  Returns the
 * positions seen.
 */
#define BY_OPP_GROUP 16
static uint64_t init_unit_by_opp(struct job *j, int mi, uint64_t c, bool skip_base,
                                 struct bans_scratch *b, struct init_tally *ta)
{
    struct member *me = &j->m[mi];
    struct mmtb_sector ws = sector_partner(me->s);
    uint64_t wslots = mmtb_index_slots(j->ix, ws), lo = c * CHUNK, seen = 0;
    struct mmtb_index_iter it;
    mmtb_index_iter_start(&it, j->ix, ws, lo, lo + CHUNK < wslots ? lo + CHUNK : wslots);
    const uint8_t *cnt = mmtb_ban_index_counts(me->bx);
    struct place_hint ph = {.qt = {me->s.b, (uint8_t)(me->s.w + 1), me->s.b_hand,
                                   (uint8_t)(me->s.w_hand - 1)}};
    uint32_t block_of = UINT32_MAX; /* the O' whose block ph.base is: none yet */
    bool more = true;
    while (more) {
        struct mmtb_ban_rank r[BY_OPP_GROUP];
        int nstab[BY_OPP_GROUP], ng = 0;
        uint64_t w;
        uint32_t qo, qm;
        bool canonical;
        while (ng < BY_OPP_GROUP && (more = mmtb_index_iter_next(&it, &w, &qo, &qm, &canonical))) {
            if (!canonical)
                continue;
            if (skip_base && !succ_any_live(j->v, me->s, qm, qo)) {
                seen++; /* its one state is done (bans_base_by_blocks) */
                continue;
            }
            nstab[ng] = it.nstab;
            mmtb_ban_index_rank_begin(me->bx, qm, qo, &r[ng]);
            __builtin_prefetch(&me->st[r[ng++].slot0], 1);
        }
        /* the first state's slot of each (prefix sums that rank_begin
         * fetched), and the writes of their states started */
        uint64_t first[BY_OPP_GROUP];
        for (int g = 0; g < ng; g++) {
            first[g] = mmtb_ban_index_first(me->bx, r[g].slot0);
            if (cnt[r[g].slot0])
                __builtin_prefetch(&me->st[first[g]], 1);
        }
        for (int g = 0; g < ng; g++) {
            uint64_t i = r[g].slot0;
            int k = init_stones(j, mi, i, first[g], cnt[i], r[g].rm, r[g].ro, nstab[g],
                                place_hint_for(j, &r[g], &ph, &block_of), skip_base, b, ta);
            if (k < 0) {
                ta->fail = k;
                return seen;
            }
            seen++;
        }
    }
    return seen;
}

/* Whether member me's init walks the colour-swapped sector (placements:
 * every successor of a position lies in the block of the opponent's
 * stones). */
static bool bans_by_opponent(const struct job *j, const struct member *me)
{
    return me->s.w_hand > 0 && !j->v->place_or_move && !j->sp && !j->own_walk;
}

int bans_init_member(struct job *j, int mi)
{
    struct member *me = &j->m[mi];
    bool skip_base = bans_base_by_blocks(j, me);
    bool by_opp = bans_by_opponent(j, me);
    uint64_t done = 0, seen = 0;
    uint64_t n = by_opp ? (mmtb_index_slots(j->ix, sector_partner(me->s)) + CHUNK - 1) / CHUNK
                        : me->nbchunks;
    int fail = MMTB_OK;
    if (by_opp && !skip_base) /* the slots no position's walk writes */
#pragma omp parallel for schedule(static)
        for (uint64_t c = 0; c < (me->slots + CHUNK - 1) / CHUNK; c++) {
            uint64_t lo = c * CHUNK;
            memset(me->st + lo, ST_UNUSED, lo + CHUNK < me->slots ? CHUNK : me->slots - lo);
        }
#pragma omp parallel
    {
        struct bans_scratch *b = bans_scratch_new(j->v);
        struct init_tally ta = {calloc(MAX_LEVELS, sizeof(uint64_t)), 0,
                                &j->deep_new[omp_get_thread_num()], MMTB_OK};
        if (!b || !ta.hist)
            ta.fail = MMTB_ERR_NOMEM;
#pragma omp for schedule(dynamic, 1) reduction(+ : seen)
        for (uint64_t c = 0; c < n; c++) {
            if (ta.fail != MMTB_OK || __atomic_load_n(&fail, __ATOMIC_RELAXED))
                continue;
            if (by_opp)
                seen += init_unit_by_opp(j, mi, c, skip_base, b, &ta);
            else
                init_unit(j, mi, c, b, &ta);
            uint64_t dn = __atomic_add_fetch(&done, 1, __ATOMIC_RELAXED);
            if (omp_get_thread_num() == 0)
                progress_update(j->prog, dn, n);
        }
#pragma omp critical(mmtb_hist)
        {
            if (ta.fail != MMTB_OK && fail == MMTB_OK)
                fail = ta.fail;
            tally_init_depths(j, mi, ta.hist, ta.maxd);
        }
        free(ta.hist);
        bans_scratch_free(b);
    }
    /* one visit per orbit, so every canonical position was written */
    if (fail == MMTB_OK && by_opp && seen != mmtb_index_canonical(j->v, me->s)) {
        j->why = "the walk by the opponent's stones missed positions";
        fail = MMTB_ERR_INVALID;
    }
    return fail;
}

/* ---------------------------------------------------------------- levels */

/* The quiet predecessors of stones (M, O) of member me into b->bm, their
 * stones ranked in the partner pa; returns the count. */
static int stone_preds(struct job *j, const struct member *me, const struct member *pa,
                       uint32_t M, uint32_t O, const uint64_t F[2], struct bans_scratch *b)
{
    const struct mmtb_variant *v = j->v;
    int n = succ_quiet_preds(v, me->s, M, O, b->pm, b->po);
    struct bpred *miss[MMTB_MAX_MOVES];
    int8_t missk[MMTB_MAX_MOVES];
    int nmiss = 0;
    uint64_t stamp = ++b->stamp;
    uint32_t holes_o = n ? succ_mill_holes(v, O) : 0;
    for (int k = 0; k < n; k++) {
        struct bmove *m = &b->bm[k];
        uint32_t Oq = b->pm[k]; /* the opponent before its move; M is unchanged */
        succ_move_ends(Oq, O, &m->from, &m->to);
        m->earned = (int8_t)succ_earned_in(v, Oq, holes_o, m->from, m->to);
        uint64_t key = ((uint64_t)Oq << 32 | M) + 1;
        struct pcache *e = &b->pc[(key * 0x9E3779B97F4A7C15ull) >> (64 - PCACHE_BITS)];
        if (e->key == key && e->pa == pa) {
            e->stamp = stamp;
            m->p = &e->p;
            continue;
        }
        struct bpred *p = &b->bp[k];
        if (e->stamp != stamp) { /* else another predecessor here holds it */
            e->key = key;
            e->pa = pa;
            e->stamp = stamp;
            p = &e->p;
        }
        m->p = p;
        miss[nmiss] = p;
        missk[nmiss++] = (int8_t)k;
        mmtb_ban_index_rank_begin_stones(pa->bx, Oq, M, &p->r);
    }
    struct succ_mills om;
    bool moved = pa->s.w_hand == 0 && nmiss && succ_mills_ok(v);
    if (moved)
        succ_mills_of(v, O, M, &om);
    for (int q = 0; q < nmiss; q++) {
        struct bpred *p = miss[q];
        const struct bmove *m = &b->bm[missk[q]];
        uint32_t Oq = b->pm[missk[q]];
        /* the opponent's live restrictions there, all of them for the rank */
        p->qf[0] = p->qf[1] = 0;
        if (moved)
            succ_live_moved(v, &om, Oq, m->to, m->from, p->qf);
        else if (pa->s.w_hand == 0)
            mmtb_live_ban_set(v, Oq, M, p->qf);
        /* ours there: ours here (F) but for those into `from`, which the
         * opponent's stone fills there, and those into `to`, empty there */
        p->qt[0] = F[0] & ~b->into[m->from][0];
        p->qt[1] = F[1] & ~b->into[m->from][1];
        if (pa->s.b_hand == 0)
            succ_live_into(v, M, m->to, p->qt);
        mmtb_ban_index_rank_end_stones(pa->bx, &p->r, p->qf, p->qt);
    }
    return n;
}

/* The predecessor states of state (f, t) of stones (M, O) whose stone
 * predecessors are b->bm[0..n), into b->slots as their stones' scheme 1
 * slot << 16 | their place (0: that slot, else 1 + the place among its
 * states) << 8 | the order of their stabilizer; returns the count.  A
 * predecessor's state: the opponent's restriction spent by its move (none,
 * or one of its live ones other than the move itself), and ours, carried
 * into (f, t) by the move (f itself, when f bites there; else
 * none, or one that stops biting with the move).  fs: ours live here (F as
 * a set).  A pair with levels has no stones in hand, so a restriction of
 * ours bites here when it is live here, and f, live here, bites there
 * unless the opponent's stone stood on its point X there (X = from): M is
 * the same and X was empty here. */
static int state_preds(struct job *j, const struct member *pa, const uint64_t fs[2], int f, int t,
                       int n, struct bans_scratch *b)
{
    const struct mmtb_variant *v = j->v;
    int np = 0;
    for (int k = 0; k < n; k++) {
        const struct bmove *m = &b->bm[k];
        if (m->earned != t)
            continue;
        const struct bpred *p = m->p;
        int ts[MMTB_MAX_BANS + 1], nts = 0;
        if (f >= 0) {
            if (v->edge_x[f] == m->from) /* its point held there: it does not bite */
                continue;
            ts[nts++] = f;
        } else {
            ts[nts++] = -1;
            for (int w = 0; w < 2; w++)
                for (uint64_t s = p->qt[w] & ~fs[w]; s; s &= s - 1)
                    ts[nts++] = w * 64 + __builtin_ctzll(s);
        }
        /* the mover's there: none, or one of its live ones but the one the
         * move spends (the restriction the move spends is not one it could
         * carry) */
        uint64_t q[2] = {p->qf[0], p->qf[1]};
        if ((q[0] | q[1]) && (v->adj[m->from] & (1u << m->to))) {
            int spent = succ_edge_code(v, m->from, m->to); /* a slide, not a flight */
            q[spent >> 6] &= ~((uint64_t)1 << (spent & 63));
        }
        int nq = 1 + __builtin_popcountll(q[0]) + __builtin_popcountll(q[1]);
        if (np + nq * nts > SLOTS_CAP) {
            __atomic_store_n(&j->rule_err, MMTB_ERR_UNSUPPORTED, __ATOMIC_RELAXED);
            return 0;
        }
        /* none: the stones' own slot for none of ours either */
        const uint64_t s0 = p->r.slot0 << 16;
        int a = 0;
        if (ts[0] < 0) {
            b->slots[np++] = s0 | (uint64_t)p->r.nsym;
            a = 1;
        }
        for (int nst; a < nts; a++) {
            int k = mmtb_ban_index_state_offset(pa->bx, &p->r, -1, ts[a], &nst);
            b->slots[np++] = s0 | (uint64_t)(k + 1) << 8 | (uint64_t)nst;
        }
        for (int w = 0; w < 2; w++)
            for (uint64_t s = q[w]; s; s &= s - 1) {
                int fq = w * 64 + __builtin_ctzll(s);
                for (int c = 0, nst; c < nts; c++) {
                    int k = mmtb_ban_index_state_offset(pa->bx, &p->r, fq, ts[c], &nst);
                    b->slots[np++] = s0 | (uint64_t)(k + 1) << 8 | (uint64_t)nst;
                }
            }
    }
    return np;
}

/* Queue the updates of state (f, t) of stones (M, O), decided (lost when
 * lost; nst the order of its stabilizer) at this level, for its
 * predecessors in pa: a lost one makes them won, a won one takes from each
 * the moves into its orbit, cnt * |Stab(Q)| / |Stab(S)| for a slot met cnt
 * times.  n: the stones' predecessors in b->bm. */
static void state_updates(struct job *j, const struct member *pa, const uint64_t fs[2], int f,
                          int t, int nst, bool lost, int n, struct updbuf *bufs,
                          struct bans_scratch *b)
{
    int np = state_preds(j, pa, fs, f, t, n, b);
    if (!lost && nst > 1) /* a slot's occurrences summed before the division */
        qsort(b->slots, (size_t)np, sizeof *b->slots, mmtb_cmp_u64);
    struct supdbuf *sbufs = j->supd ? &j->supd[(size_t)omp_get_thread_num() * j->nsparts] : NULL;
    for (int q = 0; q < np;) {
        uint64_t key = b->slots[q], i = key >> 16;
        unsigned place = (unsigned)(key >> 8) & 0xff;
        uint32_t moves = 0;
        if (lost) {
            q++;
        } else if (nst == 1) {
            moves = (uint32_t)(key & 0xff);
            q++;
        } else {
            int cnt = 0;
            for (; q < np && b->slots[q] == key; q++)
                cnt++;
            moves = (uint32_t)cnt * (uint32_t)(key & 0xff) / (uint32_t)nst;
        }
        /* a state's slot is found when its partition is applied, but by a
         * split pair (which sends the updates of other ranks' slots) */
        if (place && sbufs)
            supd_queue(j, sbufs, i, place, lost, moves);
        else
            upd_queue(j, bufs, place ? mmtb_ban_index_first(pa->bx, i) + place - 1 : i, lost,
                      moves);
    }
}

/* Mark in marks (bit i - lo) the scheme 1 slots i of [lo, hi) with a state
 * in st equal to a or b: their own slot, or one of their states in
 * [flo, fhi) (cnt: the states of each).  Returns whether any is. */
static bool unit_marks(const uint8_t *st, const uint8_t *cnt, uint64_t lo, uint64_t hi,
                       uint64_t flo, uint64_t fhi, uint8_t a, uint8_t b, uint64_t *marks)
{
    const uint64_t ka = 0x0101010101010101ull * a, kb = 0x0101010101010101ull * b;
    bool any = false;
    memset(marks, 0, CHUNK / 8);
    for (int pass = 0; pass < 2; pass++) {
        uint64_t r0 = pass ? flo : lo, r1 = pass ? fhi : hi, i = lo, first = flo;
        for (uint64_t r = r0; r < r1; r++) {
            if ((r & 7) == 0 && r + 8 <= r1) { /* skip 8 bytes holding neither */
                uint64_t w, x, y;
                memcpy(&w, st + r, 8);
                x = w ^ ka;
                y = w ^ kb;
                if (!(((x - 0x0101010101010101ull) & ~x & 0x8080808080808080ull) |
                      ((y - 0x0101010101010101ull) & ~y & 0x8080808080808080ull))) {
                    r += 7;
                    continue;
                }
            }
            if (st[r] != a && st[r] != b)
                continue;
            uint64_t owner = r;
            if (pass) { /* the scheme 1 slot whose states hold r */
                while (first + cnt[i] <= r)
                    first += cnt[i++];
                owner = i;
            }
            marks[(owner - lo) >> 6] |= (uint64_t)1 << ((owner - lo) & 63);
            any = true;
        }
    }
    return any;
}

void bans_level_unit(struct job *j, const struct member *me, const struct member *pa, uint64_t c,
                     uint8_t want_loss, uint8_t want_win, struct updbuf *bufs,
                     struct bans_scratch *b)
{
    const struct mmtb_variant *v = j->v;
    const uint8_t *cnt = mmtb_ban_index_counts(me->bx);
    uint64_t base = mmtb_ban_index_base(me->bx), lo = c * CHUNK;
    uint64_t hi = lo + CHUNK < base ? lo + CHUNK : base;
    uint64_t flo = me->bfirst[c], fhi = me->bfirst[c + 1];
    if (!me->flag_cur[c] &&
        (fhi == flo || !memchr(me->flag_cur + (flo >> CHUNK_SHIFT), 1,
                               ((fhi - 1) >> CHUNK_SHIFT) - (flo >> CHUNK_SHIFT) + 1)))
        return;
    if (!unit_marks(me->st, cnt, lo, hi, flo, fhi, want_loss, want_win, b->marks))
        return;
    /* the marked stones in slot order: a walk reaches each from the last */
    struct mmtb_index_iter it;
    bool walking = false;
    uint64_t at = lo, first = flo;
    int8_t F[MMTB_MAX_BANS], T[MMTB_MAX_BANS];
    for (int w = 0; w < (int)(CHUNK / 64); w++)
        for (uint64_t bits = b->marks[w]; bits; bits &= bits - 1) {
            uint64_t i = lo + (uint64_t)w * 64 + (uint64_t)__builtin_ctzll(bits), slot;
            for (; at < i; at++)
                first += cnt[at];
            if (!walking)
                mmtb_index_iter_start(&it, j->ix, me->s, i, hi);
            else
                mmtb_index_iter_skip_to(&it, i);
            walking = true;
            uint32_t M, O;
            bool canonical;
            mmtb_index_iter_next(&it, &slot, &M, &O, &canonical);
            int K = cnt[i] + 1, n = -1, nf = 0, nt = 0;
            uint64_t fs[2] = {0, 0}; /* set with the stones' work below */
            for (int k = 0; k < K; k++) {
                uint64_t s = k ? first + (uint64_t)k - 1 : i;
                uint8_t x = me->st[s];
                if (x != want_loss && x != want_win)
                    continue;
                if (n < 0) { /* the first state decided here: the stones' work */
                    /* the index counted their states, K = (nf + 1) * (nt + 1)
                     * (the init checked it against the live lists): with one,
                     * neither side has a live restriction */
                    if (K > 1)
                        succ_live_lists(v, me->s, M, O, F, &nf, T, &nt);
                    mmtb_code_set(F, nf, fs);
                    n = stone_preds(j, me, pa, M, O, fs, b);
                }
                int f, t, nst = 1;
                succ_state_bans(k, F, T, nt, &f, &t);
                if (it.nstab > 1) {
                    struct mmtb_ban_rank self;
                    mmtb_ban_index_rank_stones(me->bx, M, O, &self);
                    mmtb_ban_index_rank_state_stab(me->bx, &self, f, t, &nst);
                }
                state_updates(j, pa, fs, f, t, nst, x == want_loss, n, bufs, b);
            }
        }
}

void bans_level_slot(struct job *j, const struct member *me, const struct member *pa,
                     uint64_t slot, bool lost, struct updbuf *bufs, struct bans_scratch *b)
{
    uint64_t i = slot, first = 0;
    if (slot >= mmtb_ban_index_base(me->bx))
        i = mmtb_ban_index_owner(me->bx, slot, &first);
    uint32_t M, O;
    mmtb_index_unrank(j->ix, me->s, i, &M, &O);
    int8_t F[MMTB_MAX_BANS], T[MMTB_MAX_BANS];
    int nf, nt, f, t, nst;
    succ_live_lists(j->v, me->s, M, O, F, &nf, T, &nt);
    succ_state_bans(slot == i ? 0 : (int)(slot - first) + 1, F, T, nt, &f, &t);
    struct mmtb_ban_rank self;
    mmtb_ban_index_rank_stones(me->bx, M, O, &self);
    mmtb_ban_index_rank_state_stab(me->bx, &self, f, t, &nst);
    uint64_t fs[2];
    mmtb_code_set(F, nf, fs);
    int n = stone_preds(j, me, pa, M, O, fs, b);
    state_updates(j, pa, fs, f, t, nst, lost, n, bufs, b);
}
