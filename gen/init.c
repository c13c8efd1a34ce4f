/*
 * init.c - the init pass of a job: every position's first state byte from
 * the rules' terminal values and the values of its external successors in
 * the solved sectors (deps.c), and the in-pair moves it counts for the
 * levels (levels.c).  Works on the job's arrays only; reads no file.
 *
 * The look-ups are batched so that the cache misses of many positions
 * overlap; a sector only captures lead into has been re-filed by the side
 * not to move (dep_swap in deps.c), which puts the captures of one move
 * side by side.  Quiet moves into the partner are only counted, not
 * ranked (levels.c says why that is enough).  External results of depth > 1
 * (placements in Lasker-style games) are queued in per-level buckets that
 * the levels take as in-pair successors resolved at that level.
 *
 * Sectors of pure placement (no slides while stones are in hand) are
 * walked by the opponent's stones a block at a time where they can be
 * (block_pass): every child of the block is read once and folded into all
 * its parents (fold_block), so that a position costs a few vector
 * operations instead of ranking and reading each of its placements.
 */
#include "job.h"

#include "movegen.h"
#include "sectorio.h"

#include <omp.h>
#include <stdio.h>
#include <string.h>


/*
 * The init pass in two steps, so that the look-ups of many positions are
 * in flight at once: init_gather generates a position's successors, ranks
 * the external ones and starts their look-ups (cache misses in solved
 * sectors of hundreds of megabytes); init_settle reads them, once a batch
 * of positions has been gathered.
 */
#define INIT_GROUP 16                          /* positions per batch */
#define INIT_EXT_CAP (2 * MMTB_MAX_MOVES)      /* external successors per batch */


/* Per-thread scratch of the init pass. */
struct init_scratch {
    struct succ sc[MMTB_MAX_MOVES];
    /* placements that remove nothing, ranked together */
    uint32_t qopp[MMTB_MAX_MOVES];
    int qat[MMTB_MAX_MOVES];
    /* a run of captures into a swapped sector, ranked together */
    uint32_t ropp[MMTB_MAX_MOVES];
    int rat[MMTB_MAX_MOVES];
    uint64_t r[MMTB_MAX_MOVES]; /* rank_group's scratch */
    uint32_t rq[MMTB_MAX_MOVES]; /* quiet placements' slots in their block */
    /* the batch: positions and their external successors */
    struct ext_look ext[INIT_EXT_CAP];
    int next;
    struct {
        uint64_t slot;
        int first, n, nin; /* its successors ext[first .. first + n); n < 0: decided */
        uint8_t state;     /* when decided early */
        int depth;
    } pos[INIT_GROUP];
    int npos;
};

/* Position p of the batch decided from the fold of all its moves (bw 0:
 * no lost successor), as settle_state decides a position without in-pair
 * moves. */
static void pos_decided(struct job *j, struct init_scratch *is, int p, unsigned bw, unsigned wl,
                        bool dr)
{
    int d = bw ? (int)bw : dr ? -1 : (int)wl;
    is->pos[p].n = -1;
    is->pos[p].state = d < 0 ? ST_DRAWN : st_decided(j, bw != 0, (unsigned)d);
    is->pos[p].depth = d;
}

/* Rank the group ext[at[0..n)] of successors in sector s that share their
 * side to move (opps[k] the other side of each) and start their look-ups.
 * r: scratch for n slots. */
static void rank_group(const struct job *j, struct mmtb_sector s, uint32_t mover,
                       const uint32_t *opps, const int *at, int n, uint64_t *r,
                       struct ext_look *ext)
{
    mmtb_index_rank_same_mover(j->ix, s, mover, opps, n, r);
    for (int k = 0; k < n; k++) {
        struct ext_look *x = &ext[at[k]];
        x->r = r[k];
        __builtin_prefetch(&x->d->code[x->r]);
    }
}

/* Successors' values folded as settle_state folds them: bw the smallest
 * depth + 1 among those the opponent loses (0: none), wl the largest
 * among those it wins (0: none), dr a draw among them. */
struct fold {
    unsigned bw, wl;
    bool dr;
};

static inline void fold_add(struct fold *f, unsigned w, unsigned depth1)
{
    if (w == 0)
        f->bw = !f->bw || depth1 < f->bw ? depth1 : f->bw;
    else if (w == 1)
        f->dr = true;
    else
        f->wl = depth1 > f->wl ? depth1 : f->wl;
}

static inline void fold_merge(struct fold *f, struct fold g)
{
    if (g.bw)
        fold_add(f, 0, g.bw);
    f->dr |= g.dr;
    if (g.wl)
        fold_add(f, 2, g.wl);
}

/* The value of slot x of sector d as a fold of one successor. */
static inline struct fold code_fold(const struct dep *d, uint64_t x)
{
    struct fold f = {0, 0, false};
    uint8_t c = d->code[x];
    fold_add(&f, (unsigned)vc_wdl(c), (unsigned)vc_depth(c, &d->deep, x) + 1);
    return f;
}

/*
 * A byte of a solved sector's code as settle_state folds a successor's
 * value: bits 0-7 its depth + 1 when the side to move there loses (0xff
 * otherwise), bits 8-15 its depth + 1 when it wins (0 otherwise), bit 16 a
 * draw (an unused slot reads as one, as in vc_wdl), bit 17 a depth beyond
 * the byte (VC_DEEP_*: looked up the slow way).  A table, so that folding
 * a move costs three loads and no branch.
 */
#define FOLD_DRAW (1u << 16)
#define FOLD_DEEP (1u << 17)
#define FOLD_ENTRY(c)                                                                         \
    ((((c) >= 2u && !((c) & 1u)) ? (c) - 1u : 0xffu) |                                         \
     ((((c) & 1u) && (c) >= 3u) ? (c) - 1u : 0u) << 8 | ((c) < 2u ? FOLD_DRAW : 0u) |          \
     ((c) >= VC_DEEP_LOSS ? FOLD_DEEP : 0u))
#define FOLD4(c) FOLD_ENTRY(c), FOLD_ENTRY((c) + 1u), FOLD_ENTRY((c) + 2u), FOLD_ENTRY((c) + 3u)
#define FOLD16(c) FOLD4(c), FOLD4((c) + 4u), FOLD4((c) + 8u), FOLD4((c) + 12u)
#define FOLD64(c) FOLD16(c), FOLD16((c) + 16u), FOLD16((c) + 32u), FOLD16((c) + 48u)
static const uint32_t fold_table[256] = {FOLD64(0u), FOLD64(64u), FOLD64(128u), FOLD64(192u)};

/* The moves to slots r[0..k) of sector d (from base) folded into *f. */
static void fold_codes(const struct dep *d, uint64_t base, const uint32_t *r, int k,
                       struct fold *f)
{
    const uint8_t *code = d->code + base;
    unsigned lo = 0xff, hi = 0, fl = 0;
    for (int i = 0; i < k; i++) {
        uint32_t t = fold_table[code[r[i]]];
        lo = (t & 0xff) < lo ? t & 0xff : lo;
        hi = ((t >> 8) & 0xff) > hi ? (t >> 8) & 0xff : hi;
        fl |= t;
    }
    if (fl & FOLD_DEEP) { /* a depth beyond the byte: the slow way */
        for (int i = 0; i < k; i++)
            fold_merge(f, code_fold(d, base + r[i]));
        return;
    }
    if (lo != 0xff)
        fold_add(f, 0, lo);
    f->dr |= (fl & FOLD_DRAW) != 0;
    if (hi)
        fold_add(f, 2, hi);
}

/*
 * The quiet placements of the walk by the opponent's stones (see
 * init_by_opponent): all lead into the block of the opponent's stones O in
 * the solved sector d, and when O is canonical with no symmetry of its own
 * (nearly always) their slots there follow from the position's own stones
 * without ranking (mmtb_index_rank_added).  base: the block's first slot,
 * UINT64_MAX when O has symmetries (the placements are then ranked).
 */
struct place_block {
    const struct dep *d;
    uint32_t o;
    uint64_t base;
    /* The captures: each leads to (O less a stone y, ...) of sector cd,
     * so a block's captures share |O| side-to-move sets, prepared once
     * each (cm[y], when bit y of ready is set) and their look-ups land in
     * as many blocks of cd.  cd NULL: ranked one by one. */
    const struct dep *cd;
    uint32_t ready;
    struct mmtb_index_mover cm[MMTB_MAX_POINTS];
    /* Pure placement (no slides, succ_placements): the captures after a
     * placement depend only on the stones M' it leaves, and the positions
     * M' less each stone of its new mill share them, so their fold is
     * kept by M''s slot in the block (cap[slot], valid when its stamp is
     * the block's); capwin: every capture wins at once. */
    bool fast, capwin;
    /* sym: O has symmetries of its own, so the quiet placements' slots
     * are ranked (qm: O prepared in the quiet placements' sector) */
    bool sym;
    struct mmtb_index_mover qm;
    uint32_t stamp;
    struct capfold {
        uint32_t stamp;
        struct fold f;
    } *cap;
};

/* The captures after the placement that leaves our stones nm in the
 * block pb (removing each stone of `removable`), folded. */
static struct fold capture_lookup(const struct job *j, struct place_block *pb, uint32_t nm,
                                  uint32_t removable)
{
    const struct dep *d = pb->cd;
    uint64_t r[MMTB_MAX_POINTS];
    int n = 0;
    for (uint32_t t = removable; t; t &= t - 1) {
        int y = __builtin_ctz(t);
        if (!(pb->ready & (1u << y))) {
            mmtb_index_mover_prepare(j->ix, d->s, pb->o & ~(1u << y), &pb->cm[y]);
            pb->ready |= 1u << y;
        }
        r[n] = mmtb_index_rank_prepared(j->ix, &pb->cm[y], nm);
        __builtin_prefetch(&d->code[r[n]]);
        n++;
    }
    struct fold f = {0, 0, false};
    for (int i = 0; i < n; i++)
        fold_merge(&f, code_fold(d, r[i]));
    return f;
}

/* capture_lookup through the block's cache (slot x of nm in the block). */
static struct fold capture_fold(const struct job *j, struct place_block *pb, uint32_t nm,
                                uint32_t x, uint32_t removable)
{
    struct capfold *e = &pb->cap[x];
    if (e->stamp != pb->stamp) {
        e->f = capture_lookup(j, pb, nm, removable);
        e->stamp = pb->stamp;
    }
    return e->f;
}

/* The values of the quiet placements `placed` of (mover, opp) read from
 * their block pb, folded as settle_state folds them: *best_win the
 * smallest depth + 1 among the lost successors (0: none), *draw, and
 * *worst_loss the largest depth + 1 among the won ones. */
static void fold_placed(const struct job *j, const struct place_block *pb, uint32_t mover,
                        uint32_t opp, uint32_t placed, uint32_t *rq, int *best_win, bool *draw,
                        int *worst_loss)
{
    int k = mmtb_index_rank_added(j->ix, opp, mover, placed, rq);
    struct fold f = {0, 0, false};
    fold_codes(pb->d, pb->base, rq, k, &f);
    *best_win = (int)f.bw;
    *draw = f.dr;
    *worst_loss = (int)f.wl;
}

/*
 * The moves of a pure placement position (mover, opp) of the block pb
 * folded (succ_placements): the quiet ones from the block, the captures
 * of each placement that closes a mill from capture_fold.  Returns false
 * when the position needs the general way (captures into a sector read
 * otherwise); else *f is the fold (empty when *win1 is set: a move wins at
 * once).
 */
static bool fold_placements(const struct job *j, struct place_block *pb, struct mmtb_sector s,
                            uint32_t mover, uint32_t opp, uint32_t *rq, struct fold *f,
                            bool *win1)
{
    uint32_t quiet, closers, removable;
    *win1 = false;
    *f = (struct fold){0, 0, false};
    if (succ_placements(j->v, s, mover, opp, &quiet, &closers, &removable)) {
        *win1 = true;
        return true;
    }
    if (closers && pb->capwin) { /* every capture takes the opponent below its minimum */
        *win1 = true;
        return true;
    }
    if ((closers && !pb->cd) || !(quiet | closers)) /* no move: passes may apply */
        return false;
    uint32_t add = quiet | closers;
    uint64_t base = pb->sym ? pb->qm.base : pb->base;
    int k = 0;
    if (!pb->sym)
        k = mmtb_index_rank_added(j->ix, opp, mover, add, rq);
    else
        for (uint32_t t = add; t; t &= t - 1)
            rq[k++] = (uint32_t)(mmtb_index_rank_prepared(j->ix, &pb->qm, mover | (t & -t)) - base);
    /* the closing placements (few), from the highest: each one's slot
     * taken out of rq, the last one's put in its place */
    for (uint32_t t = closers; t; t &= ~(1u << (31 - __builtin_clz(t)))) {
        uint32_t bit = 1u << (31 - __builtin_clz(t));
        int i = __builtin_popcount(add & (bit - 1));
        uint32_t x = rq[i];
        rq[i] = rq[--k];
        fold_merge(f, capture_fold(j, pb, mover | bit, x, removable));
    }
    fold_codes(pb->d, base, rq, k, f);
    return true;
}

/*
 * First step for one canonical position (slot of member mi): terminal
 * values, the count of in-pair successors, and the external successors
 * ranked with their look-ups started.  A position decided without
 * look-ups (no move, an immediate win) is settled here.  pf, when not
 * NULL, is the fold of all the position's placements, taken by a block
 * pass (a variant whose stones may slide while others are in hand): only
 * the slides are generated then.
 */
static void init_gather(struct job *j, int mi, uint64_t slot, uint32_t mover, uint32_t opp,
                        struct place_block *pb, struct init_scratch *is, const struct fold *pf)
{
    const struct mmtb_variant *v = j->v;
    struct member *me = &j->m[mi];
    struct succ *sc = is->sc;
    int p = is->npos++;
    is->pos[p].slot = slot;
    is->pos[p].n = -1;

    int term = succ_terminal(v, me->s, mover, opp);
    if (term == MMTB_LOSS || term == MMTB_DRAW) {
        bool loss = term == MMTB_LOSS;
        is->pos[p].state = loss ? st_decided(j, false, 0) : ST_DRAWN;
        is->pos[p].depth = loss ? 0 : -1;
        return;
    }
    /* Quiet moves into the partner are only counted (see levels.c). */
    struct ext_look *ext = is->ext + is->next;
    int next = 0;
    struct fold f;
    bool win1;
    if (pb && pb->fast && (pb->base != UINT64_MAX || pb->sym) &&
        fold_placements(j, pb, me->s, mover, opp, is->rq, &f, &win1)) {
        pos_decided(j, is, p, win1 ? 1 : f.bw, f.wl, f.dr);
        return;
    }
    int nin = 0;
    uint32_t placed = 0;
    int n;
    if (pf)
        n = succ_generate_slides(v, me->s, mover, opp, sc, &nin);
    else if (pb && pb->base != UINT64_MAX)
        n = succ_generate_placed(v, me->s, mover, opp, sc, me->partner >= 0 ? &nin : NULL,
                                 &placed);
    else
        n = me->partner >= 0 ? succ_generate_counted(v, me->s, mover, opp, sc, &nin)
                             : succ_generate(v, me->s, mover, opp, sc);
    if (n + nin == 0 && !placed && !pf) {
        is->pos[p].state = st_decided(j, false, 0);
        is->pos[p].depth = 0;
        return;
    }
    /* the quiet placements read from their block (or all of them, pf),
     * folded into at most three successors of known value */
    int qwin = pf ? (int)pf->bw : 0, qloss = pf ? (int)pf->wl : 0;
    bool qdraw = pf && pf->dr;
    if (placed)
        fold_placed(j, pb, mover, opp, placed, is->rq, &qwin, &qdraw, &qloss);
    if (qwin == 1) {
        is->pos[p].state = st_decided(j, true, 1);
        is->pos[p].depth = 1;
        return;
    }
    /* Placements that remove nothing all lead to positions of one sector
     * whose side to move is our opponent: those are ranked together.  So
     * are the captures of one move into a swapped sector: they share the
     * side not to move. */
    int nq = 0, nr = 0;
    struct mmtb_sector qt = {0, 0, 0, 0};
    const struct dep *rd = NULL;
    uint32_t rnm = 0;
    for (int i = 0; i < n; i++) {
        if (sc[i].kind == SUCC_WIN) {
            /* a win in 1 whatever the other successors are */
            is->pos[p].state = st_decided(j, true, 1);
            is->pos[p].depth = 1;
            return;
        }
        if (member_of(j, sc[i].t) >= 0) {
            nin++;
            continue;
        }
        const struct dep *d = dep_of(j, sc[i].t);
        ext[next].d = d;
        ext[next].have = false;
        if (d->swapped) {
            if (nr && (d != rd || sc[i].opp != rnm)) {
                rank_group(j, sector_partner(rd->s), rnm, is->ropp, is->rat, nr, is->r, ext);
                nr = 0;
            }
            rd = d;
            rnm = sc[i].opp;
            is->rat[nr] = next;
            is->ropp[nr++] = sc[i].mover;
        } else if (pb && d == pb->cd && sc[i].capture) {
            /* our opponent less the stone y captured */
            int y = __builtin_ctz(opp & ~sc[i].mover);
            if (!(pb->ready & (1u << y))) {
                mmtb_index_mover_prepare(j->ix, d->s, sc[i].mover, &pb->cm[y]);
                pb->ready |= 1u << y;
            }
            ext[next].r = mmtb_index_rank_prepared(j->ix, &pb->cm[y], sc[i].opp);
            __builtin_prefetch(&d->code[ext[next].r]);
        } else if (sc[i].mover == opp && (nq == 0 || mmtb_sector_eq(sc[i].t, qt))) {
            qt = sc[i].t;
            is->qat[nq] = next;
            is->qopp[nq++] = sc[i].opp;
        } else {
            ext[next].r = mmtb_index_rank(j->ix, sc[i].t, sc[i].mover, sc[i].opp);
            __builtin_prefetch(&d->code[ext[next].r]);
        }
        next++;
    }
    if (nr)
        rank_group(j, sector_partner(rd->s), rnm, is->ropp, is->rat, nr, is->r, ext);
    if (nq)
        rank_group(j, qt, opp, is->qopp, is->qat, nq, is->r, ext);
    if (qwin)
        ext[next++] = (struct ext_look){NULL, 0, true, 0, (uint16_t)(qwin - 1)};
    if (qdraw)
        ext[next++] = (struct ext_look){NULL, 0, true, 1, 0};
    if (qloss)
        ext[next++] = (struct ext_look){NULL, 0, true, 2, (uint16_t)(qloss - 1)};
    is->pos[p].first = is->next;
    is->pos[p].n = next;
    is->pos[p].nin = nin;
    is->next += next;
}


/*
 * The first state of one position with state (member mi, slot, the whole
 * position p): its moves through the rules of movegen.h, their results
 * looked up in the held sectors (or probed), then settled as any other
 * position.  The in-pair successors are counted by distinct slot (levels.c
 * takes one off per distinct predecessor slot of a decided position, so
 * the two counts agree without stabilizers).  succ and ext: room for
 * MMTB_MAX_MOVES.  Returns the state byte; *rd the depth decided, or -1.
 */
static uint8_t init_state_pos(struct job *j, int mi, uint64_t slot, const struct mmtb_pos *p,
                              mmtb_ctx *ctx, struct mmtb_move *mv, uint64_t *succ,
                              struct ext_look *ext, int *rd)
{
    const struct mmtb_variant *v = j->v;
    *rd = -1;
    int term = mmtb_pos_terminal(v, p);
    if (term == MMTB_LOSS || term == MMTB_DRAW) {
        *rd = term == MMTB_LOSS ? 0 : -1;
        return term == MMTB_LOSS ? st_decided(j, false, 0) : ST_DRAWN;
    }
    int n = mmtb_gen_moves(v, p, mv);
    if (n <= 0) {
        if (n < 0)
            __atomic_store_n(&j->rule_err, n, __ATOMIC_RELAXED);
        *rd = 0;
        return st_decided(j, false, 0);
    }
    int nin = 0, next = 0;
    for (int k = 0; k < n; k++) {
        struct mmtb_pos q;
        mmtb_pos_apply(v, p, &mv[k], &q);
        int tq = mmtb_pos_terminal(v, &q);
        if (tq == MMTB_LOSS) {
            *rd = 1;
            return st_decided(j, true, 1);
        }
        struct ext_look *x = &ext[next];
        x->d = NULL;
        x->have = true;
        if (tq == MMTB_DRAW) {
            x->w = 1;
            x->dtw = 0;
            next++;
            continue;
        }
        int qm = member_of(j, mmtb_pos_sector(&q));
        if (qm >= 0 && mv[k].remove < 0) {
            succ[nin++] = mmtb_ban_index_rank_pos(j->m[qm].bx, &q);
            continue;
        }
        struct mmtb_value val;
        int prc = held_value(&j->held, j->ix, ctx, &q, &val);
        if (prc != MMTB_OK) {
            __atomic_store_n(&j->rule_err, prc, __ATOMIC_RELAXED);
            return ST_DRAWN;
        }
        x->w = val.wdl == MMTB_LOSS ? 0 : val.wdl == MMTB_DRAW ? 1 : 2;
        x->dtw = (uint16_t)(val.wdl == MMTB_DRAW ? 0 : val.dtw);
        next++;
    }
    nin = u64_sort_unique(succ, nin);
    return settle_state(j, mi, slot, nin, next, ext, rd, NULL);
}

/* The init pass of member mi whose positions carry state, in slot order:
 * a slot whose position ranks elsewhere is not used. */
static int init_member_state(struct job *j, int mi)
{
    struct member *me = &j->m[mi];
    const uint64_t nchunks = (me->slots + CHUNK - 1) / CHUNK;
    uint64_t done = 0;
    int fail = 0;
#pragma omp parallel
    {
        mmtb_ctx *ctx = NULL;
        struct mmtb_move *mv = malloc(MMTB_MAX_MOVES * sizeof *mv);
        uint64_t *succ = malloc(MMTB_MAX_MOVES * sizeof *succ);
        struct ext_look *ext = malloc(MMTB_MAX_MOVES * sizeof *ext);
        uint64_t *hist = calloc(MAX_LEVELS, sizeof *hist);
        struct vec64 *deep = &j->deep_new[omp_get_thread_num()];
        int maxd = 0;
        if (!mv || !succ || !ext || !hist ||
            (j->tb && mmtb_ctx_create(&ctx, j->tb, GEN_PROBE_CACHE) != MMTB_OK))
            __atomic_store_n(&fail, 1, __ATOMIC_RELAXED);
#pragma omp for schedule(dynamic, 1)
        for (uint64_t c = 0; c < nchunks; c++) {
            if (__atomic_load_n(&fail, __ATOMIC_RELAXED))
                continue;
            uint64_t lo = c * CHUNK, hi = lo + CHUNK < me->slots ? lo + CHUNK : me->slots;
            for (uint64_t i = lo; i < hi; i++) {
                struct mmtb_pos p;
                member_pos(me, i, &p);
                if (mmtb_ban_index_rank_pos(me->bx, &p) != i) {
                    me->st[i] = ST_UNUSED;
                    continue;
                }
                int rd;
                me->st[i] = init_state_pos(j, mi, i, &p, ctx, mv, succ, ext, &rd);
                if (rd >= (int)j->deep_from && !deep_push(deep, mi, i, (unsigned)rd))
                    __atomic_store_n(&fail, 1, __ATOMIC_RELAXED);
                if (rd >= 0) {
                    hist[rd]++;
                    maxd = rd > maxd ? rd : maxd;
                }
            }
            uint64_t dn = __atomic_add_fetch(&done, 1, __ATOMIC_RELAXED);
            if (omp_get_thread_num() == 0)
                progress_update(j->prog, dn * CHUNK, me->slots);
        }
#pragma omp critical(mmtb_hist)
        tally_init_depths(j, mi, hist, maxd);
        mmtb_ctx_free(ctx);
        free(mv);
        free(succ);
        free(ext);
        free(hist);
    }
    if (fail || j->oom)
        return MMTB_ERR_NOMEM;
    return j->rule_err ? j->rule_err : MMTB_OK;
}

/*
 * The order of the init walk.  A placement's successors all have the
 * placing side's opponent O as their new side to move, so they lie in one
 * block of the solved sector (the slots of O's canonical set), and so do
 * those of every other position with the same O.  Walking the positions
 * grouped by O keeps that block in cache; walking them in their own slot
 * order would fetch a new block per position, a cache miss per successor.
 * The positions grouped by O are the slots of the colour-swapped sector
 * (b, w, ...), whose index is ordered by its side to move: each of its
 * canonical slots (O, M) is one orbit, (M, O) of ours, written to our slot
 * wherever it lies.  Where stones in hand may also slide (Lasker), the
 * slides into the partner are only counted and their captures lead to O
 * less a stone, so those sectors are walked by O too.  Movement positions
 * have few external successors and are walked in their own order.
 */
bool init_by_opponent(const struct job *j, const struct member *me)
{
    /* a split pair's rank walks its own range (split.c); positions with
     * state are walked by bans.c (the same walk, its own test) or, Shah's,
     * in their own order; a placing member's states without restrictions
     * as positions without state (bans_base_by_blocks) */
    return me->s.w_hand > 0 && !j->sp && !j->own_walk &&
           (!me->bx || j->plain_init || bans_base_by_blocks(j, me));
}

/*
 * Writes of the by-opponent walk land anywhere in the member's array; one
 * cache and TLB miss each would cost more than the rest of the work.  They
 * are queued per thread and partition of the array (as the level updates
 * in levels.c) and applied partition by partition after each batch of chunks.
 * An entry is offset in the partition << 32 | the position's held-back
 * bucket code (member.bpend; 0: none) << 8 | state byte.  INIT_BATCH_CHUNKS
 * is job.h's (pair_memory counts the queues).
 */

/*
 * The init pass of a split pair (split.c): this rank's positions of each
 * member, in rounds of SPLIT_INIT_CHUNKS chunks.  A round gathers its
 * positions and their external successors; the successors' values held by
 * other ranks (each holds a run of every solved sector) are asked of them
 * in one exchange and answered in a second; then the round's positions
 * are settled.  Every rank makes as many rounds as the busiest one, so the
 * exchanges pair up.
 */
#define SPLIT_INIT_CHUNKS 32

/* One thread's gathered positions and external successors of a round. */
struct gathered {
    struct gpos {
        uint64_t slot;
        size_t first;
        int n, nin, depth;
        uint8_t state;
    } *pos;
    size_t npos, cappos;
    struct ext_look *ext;
    size_t next, capext;
};

static bool grow(void **a, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap)
        return true;
    size_t nc = *cap ? *cap : 1024;
    while (nc < need)
        nc *= 2;
    void *na = realloc(*a, nc * size);
    if (!na)
        return false;
    *a = na;
    *cap = nc;
    return true;
}

/* A growable array of 64-bit entries per rank. */
struct per_rank {
    uint64_t *e;
    size_t n, cap;
};

static int push_rank(struct per_rank *q, uint64_t x)
{
    if (!grow((void **)&q->e, &q->cap, q->n + 1, sizeof *q->e))
        return MMTB_ERR_NOMEM;
    q->e[q->n++] = x;
    return MMTB_OK;
}

/* Gather the positions of chunks [b0, b1) of member mi into g (one per
 * thread); non-canonical slots are marked unused on the way. */
static int split_gather(struct job *j, int mi, uint64_t b0, uint64_t b1, struct gathered *g,
                        struct init_scratch *iss)
{
    struct member *me = &j->m[mi];
    const uint64_t hi_all = j->sp->hi[mi];
    int fail = 0;
#pragma omp parallel
    {
        struct gathered *mine = &g[omp_get_thread_num()];
        struct init_scratch *is = &iss[omp_get_thread_num()];
        mine->npos = mine->next = 0;
#pragma omp for schedule(dynamic, 1)
        for (uint64_t c = b0; c < b1; c++) {
            uint64_t lo = c * CHUNK, hi = lo + CHUNK < hi_all ? lo + CHUNK : hi_all;
            struct mmtb_index_iter it;
            mmtb_index_iter_start(&it, j->ix, me->s, lo, hi);
            uint64_t i;
            uint32_t mover, opp;
            bool canonical;
            while (mmtb_index_iter_next(&it, &i, &mover, &opp, &canonical)) {
                if (!canonical) {
                    me->st[i] = ST_UNUSED;
                    continue;
                }
                is->npos = is->next = 0;
                init_gather(j, mi, i, mover, opp, NULL, is, NULL);
                int n = is->pos[0].n > 0 ? is->pos[0].n : 0;
                if (!grow((void **)&mine->pos, &mine->cappos, mine->npos + 1, sizeof *mine->pos) ||
                    !grow((void **)&mine->ext, &mine->capext, mine->next + (size_t)n,
                          sizeof *mine->ext)) {
                    __atomic_store_n(&fail, 1, __ATOMIC_RELAXED);
                    break;
                }
                struct gpos *gp = &mine->pos[mine->npos++];
                gp->slot = i;
                gp->first = mine->next;
                gp->n = is->pos[0].n;
                gp->nin = is->pos[0].nin;
                gp->state = is->pos[0].state;
                gp->depth = is->pos[0].depth;
                if (n > 0)
                    memcpy(mine->ext + mine->next, is->ext + is->pos[0].first,
                           (size_t)n * sizeof *is->ext);
                mine->next += (size_t)n;
            }
        }
    }
    return fail ? MMTB_ERR_NOMEM : MMTB_OK;
}

/*
 * The values of the round's successors that other ranks hold: a request is
 * solved sector << 56 | slot, an answer value | depth << 8 (32 bits), in
 * the order of the requests.
 */
static int split_lookups(struct job *j, struct gathered *g, int nth, struct per_rank *req,
                         struct per_rank *back)
{
    struct split *sp = j->sp;
    const int K = sp->nranks;
    for (int q = 0; q < K; q++)
        req[q].n = back[q].n = 0;
    for (int t = 0; t < nth; t++)
        for (size_t x = 0; x < g[t].next; x++) {
            const struct ext_look *e = &g[t].ext[x];
            int k = (int)(e->d - j->deps);
            int o = split_dep_owner(sp, k, e->r);
            if (o == sp->rank)
                continue;
            if (push_rank(&req[o], (uint64_t)k << 56 | e->r) != MMTB_OK ||
                push_rank(&back[o], (uint64_t)t << 40 | x) != MMTB_OK)
                return MMTB_ERR_NOMEM;
        }
    void *send[64], *recv = NULL, *ans = NULL;
    size_t slen[64], rlen[64], alen[64];
    if (K > 64) {
        snprintf(sp->err, sizeof sp->err, "more than 64 ranks");
        return MMTB_ERR_UNSUPPORTED;
    }
    for (int q = 0; q < K; q++) {
        send[q] = req[q].e;
        slen[q] = req[q].n * sizeof *req[q].e;
        sp->sent_lookups += slen[q];
    }
    int rc = sp->t->exchange(sp->t->ctx, send, slen, &recv, rlen, sp->err, sizeof sp->err);
    /* answer what the others asked, rank by rank */
    uint32_t *a = NULL;
    size_t nrecv = 0;
    for (int q = 0; q < K && rc == MMTB_OK; q++)
        nrecv += rlen[q] / sizeof(uint64_t);
    if (rc == MMTB_OK && !(a = malloc((nrecv ? nrecv : 1) * sizeof *a)))
        rc = MMTB_ERR_NOMEM;
    const uint64_t *rq = recv;
    for (size_t x = 0; x < nrecv && rc == MMTB_OK; x++) {
        /* random reads of gigabyte arrays: start those a few ahead */
        if (x + 16 < nrecv) {
            int kf = (int)(rq[x + 16] >> 56);
            uint64_t rf = rq[x + 16] & (((uint64_t)1 << 56) - 1);
            if (kf < j->ndeps && rf < j->deps[kf].slots)
                __builtin_prefetch(&j->deps[kf].code[rf]);
        }
        int k = (int)(rq[x] >> 56);
        uint64_t r = rq[x] & (((uint64_t)1 << 56) - 1);
        if (k >= j->ndeps || split_dep_owner(sp, k, r) != sp->rank ||
            r >= j->deps[k].slots) {
            snprintf(sp->err, sizeof sp->err, "a look-up of a value not held here");
            rc = MMTB_ERR_CORRUPT;
            break;
        }
        const struct dep *d = &j->deps[k];
        a[x] = (uint32_t)vc_wdl(d->code[r]) | (uint32_t)vc_depth(d->code[r], &d->deep, r) << 8;
    }
    size_t at = 0;
    for (int q = 0; q < K; q++) {
        size_t n = rc == MMTB_OK ? rlen[q] / sizeof(uint64_t) : 0;
        send[q] = a ? a + at : NULL;
        slen[q] = n * sizeof *a;
        sp->sent_lookups += slen[q];
        at += n;
    }
    free(recv);
    if (rc == MMTB_OK)
        rc = sp->t->exchange(sp->t->ctx, send, slen, &ans, alen, sp->err, sizeof sp->err);
    free(a);
    /* the answers to this rank's requests, in their order */
    const uint32_t *an = ans;
    at = 0;
    for (int q = 0; q < K && rc == MMTB_OK; q++) {
        if (alen[q] != req[q].n * sizeof *an) {
            snprintf(sp->err, sizeof sp->err, "rank %d answered %zu look-ups of %zu", q,
                     alen[q] / sizeof *an, req[q].n);
            rc = MMTB_ERR_CORRUPT;
            break;
        }
        for (size_t x = 0; x < req[q].n; x++, at++) {
            uint64_t b = back[q].e[x];
            struct ext_look *e = &g[b >> 40].ext[b & (((uint64_t)1 << 40) - 1)];
            e->have = true;
            e->w = (uint8_t)an[at];
            e->dtw = (uint16_t)(an[at] >> 8);
        }
    }
    free(ans);
    return rc;
}

static int init_pass_split(struct job *j)
{
    struct split *sp = j->sp;
    const int K = sp->nranks, nth = omp_get_max_threads();
    struct gathered *g = calloc((size_t)nth, sizeof *g);
    struct init_scratch *iss = malloc((size_t)nth * sizeof *iss);
    struct per_rank *req = calloc((size_t)K, sizeof *req), *back = calloc((size_t)K, sizeof *back);
    uint64_t *hist = calloc((size_t)nth * MAX_LEVELS, sizeof *hist);
    int rc = g && iss && req && back && hist ? MMTB_OK : MMTB_ERR_NOMEM;
    for (int mi = 0; mi < j->nm && rc == MMTB_OK; mi++) {
        struct member *me = &j->m[mi];
        uint64_t c0 = sp->lo[mi] / CHUNK, c1 = (sp->hi[mi] + CHUNK - 1) / CHUNK;
        uint64_t nb = (c1 - c0 + SPLIT_INIT_CHUNKS - 1) / SPLIT_INIT_CHUNKS, rounds = nb;
        rc = split_reduce(j, &rounds, 1, true);
        for (uint64_t r = 0; r < rounds && rc == MMTB_OK; r++) {
            uint64_t b0 = r < nb ? c0 + r * SPLIT_INIT_CHUNKS : c1;
            uint64_t b1 = b0 + SPLIT_INIT_CHUNKS < c1 ? b0 + SPLIT_INIT_CHUNKS : c1;
            rc = split_gather(j, mi, b0, b1, g, iss);
            /* (a rank out of memory still takes part, with nothing) */
            if (rc != MMTB_OK)
                break;
            rc = split_lookups(j, g, nth, req, back);
            if (rc != MMTB_OK)
                break;
            int fail = 0;
#pragma omp parallel
            {
                int t = omp_get_thread_num();
                struct gathered *mine = &g[t];
                uint64_t *h = hist + (size_t)t * MAX_LEVELS;
                struct vec64 *deep = &j->deep_new[t];
                for (size_t p = 0; p < mine->npos; p++) {
                    /* the look-ups of a position a few ahead, long evicted
                     * since it was gathered */
                    if (p + 8 < mine->npos && mine->pos[p + 8].n > 0) {
                        const struct gpos *ga = &mine->pos[p + 8];
                        for (int x = 0; x < ga->n; x++) {
                            const struct ext_look *e = &mine->ext[ga->first + (size_t)x];
                            if (!e->have)
                                __builtin_prefetch(&e->d->code[e->r]);
                        }
                    }
                    const struct gpos *gp = &mine->pos[p];
                    int rd = gp->depth;
                    uint8_t x = gp->n < 0 ? gp->state
                                          : settle_state(j, mi, gp->slot, gp->nin, gp->n,
                                                        mine->ext + gp->first, &rd, NULL);
                    me->st[gp->slot] = x;
                    if (rd >= (int)j->deep_from && !deep_push(deep, mi, gp->slot, (unsigned)rd))
                        __atomic_store_n(&fail, 1, __ATOMIC_RELAXED);
                    if (rd >= 0)
                        h[rd]++;
                }
            }
            if (fail || j->oom)
                rc = MMTB_ERR_NOMEM;
            progress_update(j->prog, r + 1, rounds);
        }
        /* the depths decided here, for the levels */
        for (int t = 0; t < nth && rc == MMTB_OK; t++)
            for (int d = 0; d < MAX_LEVELS; d++) {
                uint64_t *h = hist + (size_t)t * MAX_LEVELS;
                if (!h[d])
                    continue;
                j->mhist[mi][d] += h[d];
                if (d > j->last_level)
                    j->last_level = d;
                h[d] = 0;
            }
    }
    for (int t = 0; g && t < nth; t++) {
        free(g[t].pos);
        free(g[t].ext);
    }
    for (int q = 0; req && back && q < K; q++) {
        free(req[q].e);
        free(back[q].e);
    }
    free(g);
    free(iss);
    free(req);
    free(back);
    free(hist);
    if (rc == MMTB_OK && j->too_many)
        rc = MMTB_ERR_UNSUPPORTED;
    if (rc == MMTB_OK)
        rc = deep_collect(j);
    return rc;
}

/* Settle the positions gathered in is (member mi): each state byte
 * written to the member, or queued per partition in queue (the walk by the
 * opponent's stones, when not NULL); the depths decided counted in hist
 * and *maxd, the deep ones noted in deep.  False when out of memory. */
static bool settle_batch(struct job *j, int mi, const struct init_scratch *is,
                         struct vec64 *queue, struct vec64 *deep, uint64_t *hist, int *maxd)
{
    bool ok = true;
    bool defer = queue && j->m[mi].bpend;
    for (int p = 0; p < is->npos; p++) {
        int rd = is->pos[p].depth;
        uint16_t bk = 0;
        uint8_t x = is->pos[p].n < 0 ? is->pos[p].state
                                     : settle_state(j, mi, is->pos[p].slot, is->pos[p].nin,
                                                    is->pos[p].n, is->ext + is->pos[p].first,
                                                    &rd, defer ? &bk : NULL);
        uint64_t k = is->pos[p].slot;
        if (queue) {
            uint64_t off = k & (((uint64_t)1 << PART_SHIFT) - 1);
            ok = vec64_push(&queue[k >> PART_SHIFT], off << 32 | (uint64_t)bk << 8 | x) && ok;
        } else {
            j->m[mi].st[k] = x;
        }
        if (rd >= (int)j->deep_from)
            ok = deep_push(deep, mi, k, (unsigned)rd) && ok;
        if (rd >= 0) {
            hist[rd]++;
            *maxd = rd > *maxd ? rd : *maxd;
        }
    }
    return ok;
}

/* One thread's part of the init pass of a member without state: where its
 * positions' states go and what it has counted. */
struct walker {
    struct job *j;
    int mi;
    struct init_scratch *is;
    struct vec64 *queue; /* per partition (the walk by the opponent's stones), or NULL */
    struct vec64 *deep;
    uint64_t *hist;
    int maxd;
    struct place_block pb; /* the walk by the opponent's stones */
    struct mmtb_sector qt; /* the sector of the quiet placements */
    /* block_pass: the size of a block of O in the walked sector ws (0: no
     * block passes), a fold per position of a block, binomials */
    uint64_t bs;
    bool wait; /* captures may wait (succ_captures_wait) */
    struct mmtb_sector ws;
    struct pacc {
        uint16_t bw, wl; /* as struct fold; bw 0xffff: none */
        uint8_t dr;
    } *acc;
    uint8_t *clo, *chi, *plo, *phi; /* block_children's bytes: children, parents */
    uint32_t binom[MMTB_MAX_POINTS + 1][MMTB_MAX_POINTS + 1];
};

/* Settle the positions gathered so far; false when out of memory. */
static bool walker_settle(struct walker *w)
{
    bool ok = settle_batch(w->j, w->mi, w->is, w->queue, w->deep, w->hist, &w->maxd);
    w->is->npos = w->is->next = 0;
    return ok;
}

/* After init_gather: settle when the batch may not hold one more
 * position's successors (*ok false when out of memory). */
static void walker_gathered(struct walker *w, bool *ok)
{
    if (w->is->npos >= INIT_GROUP || w->is->next + MMTB_MAX_MOVES > INIT_EXT_CAP)
        *ok = walker_settle(w) && *ok;
}

/* The walk has come to the block of O: the quiet placements' block in
 * their sector (pb->base, UINT64_MAX when O has symmetries of its own,
 * pb->sym when those are then ranked through pb->qm) and the captures'
 * prepared sets and cache start anew. */
static void place_block_enter(struct walker *w, uint32_t O)
{
    struct place_block *pb = &w->pb;
    pb->o = O;
    pb->base = pb->d ? mmtb_index_plain_block(w->j->ix, w->qt, O) : UINT64_MAX;
    pb->ready = 0;
    pb->stamp++;
    pb->sym = pb->fast && pb->base == UINT64_MAX;
    if (pb->sym)
        mmtb_index_mover_prepare(w->j->ix, w->qt, O, &pb->qm);
}

/* The next subset with as many points in colex order (x > 0). */
static inline uint32_t next_colex(uint32_t x)
{
    uint32_t t = x | (x - 1);
    return (t + 1) | (((~t & (t + 1)) - 1) >> (__builtin_ctz(x) + 1));
}

/* The points pos[i] of the set bits i of x. */
static inline uint32_t deposit(uint32_t x, const uint8_t *pos)
{
    uint32_t m = 0;
    for (; x; x &= x - 1)
        m |= 1u << pos[__builtin_ctz(x)];
    return m;
}

static inline void pacc_add(struct pacc *a, unsigned bw, unsigned wl, bool dr)
{
    a->bw = (uint16_t)(bw < a->bw ? bw : a->bw);
    a->wl = (uint16_t)(wl > a->wl ? wl : a->wl);
    a->dr |= dr;
}

/* p[i] folded with c[i] for i < n (lo: the smallest, hi: the largest). */
static void fold_slice(uint8_t *restrict plo, uint8_t *restrict phi, const uint8_t *restrict clo,
                       const uint8_t *restrict chi, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        plo[i] = clo[i] < plo[i] ? clo[i] : plo[i];
        phi[i] = chi[i] > phi[i] ? chi[i] : phi[i];
    }
}

/*
 * Fold every child of the parents of a block at once: parents are the
 * k-subsets of points 0..m-1 in colex order (p), children the
 * (k+1)-subsets (c).  The parents without point t that lie below it
 * (slots 0..C(t,k)) reach, by adding t, the children whose highest point
 * is t (slots from C(t,k+1), in the same order); the parents whose highest
 * point is t reach the other children with highest point t, which is the
 * same problem one point and one stone smaller.  So every move is one
 * element of a slice folded into a slice, loops the compiler vectorises.
 */
static void fold_block(const struct walker *w, const uint8_t *clo, const uint8_t *chi,
                       uint8_t *plo, uint8_t *phi, int m, int k)
{
    if (k == 0) { /* the empty set: every single point */
        uint8_t lo = *plo, hi = *phi;
        for (int i = 0; i < m; i++) {
            lo = clo[i] < lo ? clo[i] : lo;
            hi = chi[i] > hi ? chi[i] : hi;
        }
        *plo = lo;
        *phi = hi;
        return;
    }
    if (k == 1) { /* both steps over one slice: parents {a}, a < t, and {t} */
        for (int t = 1; t < m; t++) {
            uint32_t co = w->binom[t][2];
            uint8_t lo = plo[t], hi = phi[t];
            for (int a = 0; a < t; a++) {
                uint8_t cl = clo[co + a], ch = chi[co + a];
                plo[a] = cl < plo[a] ? cl : plo[a];
                phi[a] = ch > phi[a] ? ch : phi[a];
                lo = cl < lo ? cl : lo;
                hi = ch > hi ? ch : hi;
            }
            plo[t] = lo;
            phi[t] = hi;
        }
        return;
    }
    for (int t = k; t < m; t++) {
        uint32_t co = w->binom[t][k + 1], po = w->binom[t][k];
        fold_slice(plo, phi, clo + co, chi + co, po);
        fold_block(w, clo + co, chi + co, plo + po, phi + po, t, k - 1);
    }
}

/* The moves of the child x (slot ci of the block, of fold q) to each of
 * its parents x less a point, one at a time: the captures cf where that
 * point is in a mill of x (mp), else q. */
static void child_edges(struct walker *w, uint32_t x, uint32_t mp, struct fold q, struct fold cf)
{
    unsigned qb = q.bw ? q.bw : 0xffffu, cb = cf.bw ? cf.bw : 0xffffu;
    /* the colex terms of x's points e_0 < e_1 < ...: below[t] those
     * before e_t as they are, above[t] those after it one place down */
    uint32_t e[MMTB_MAX_POINTS], below[MMTB_MAX_POINTS + 1], above[MMTB_MAX_POINTS + 1];
    int n = 0;
    below[0] = 0;
    for (uint32_t t = x; t; t &= t - 1, n++) {
        e[n] = (uint32_t)__builtin_ctz(t);
        below[n + 1] = below[n] + w->binom[e[n]][n + 1];
    }
    above[n - 1] = 0;
    for (int t = n - 1; t > 0; t--)
        above[t - 1] = above[t] + w->binom[e[t]][t];
    for (int t = 0; t < n; t++) {
        struct pacc *a = &w->acc[below[t] + above[t]];
        if ((mp >> e[t]) & 1u)
            pacc_add(a, cb, cf.wl, cf.dr);
        else
            pacc_add(a, qb, q.wl, q.dr);
    }
}

/*
 * The children of a block: every set M' of |M| + 1 of the nf points off O
 * (in the points' order fpos), in colex order: its slot in the block of
 * the quiet placements' sector.  Each reaches its parents M' less a point
 * q: by the quiet placement on q, or, when q lies in a mill of M', by the
 * captures that follow it (the same for every such q).  The children
 * without a mill go through fold_block as two bytes each (lo: the depth + 1
 * of a loss, 0xff none; hi: that of a win, 0xff a draw); those with one,
 * and every child when a depth is too deep for a byte, one move at a time
 * into w->acc.  False when nothing went through fold_block.
 */
static bool block_children(struct walker *w, uint32_t O, const uint8_t *fpos, int nf)
{
    struct job *j = w->j;
    const struct mmtb_variant *v = j->v;
    struct place_block *pb = &w->pb;
    const struct dep *d = pb->d;
    int k = j->m[w->mi].s.w + 1; /* stones of a child */
    /* padded to a multiple of 8 with sets no child holds, so that the
     * test of every mill runs in vector registers */
    uint32_t cmill[MMTB_MAX_MILLS + 8];
    int ncm = 0;
    for (int m = 0; m < v->nmills; m++) {
        if (v->mill[m] & O)
            continue;
        uint32_t x = 0;
        for (int i = 0; i < nf; i++)
            x |= ((v->mill[m] >> fpos[i]) & 1u) << i;
        cmill[ncm++] = x;
    }
    uint32_t removable = v->place_captures ? succ_removable(v, O) : 0;
    if (!removable)
        ncm = 0; /* a mill closed removes nothing: every placement is quiet */
    while (ncm % 8)
        cmill[ncm++] = UINT32_MAX;
    const uint8_t *code = d->code + pb->base;
    uint64_t nch = w->binom[nf][k];
    bool vec = true;
    for (uint64_t ci = 0; ci < nch && vec; ci++)
        vec = code[ci] < VC_DEEP_LOSS;
    uint32_t x = (1u << k) - 1;
    for (uint64_t ci = 0; ci < nch; ci++, x = ci < nch ? next_colex(x) : x) {
        uint32_t t = fold_table[code[ci]];
        struct fold q = (t & FOLD_DEEP) ? code_fold(d, pb->base + ci)
                                        : (struct fold){(t & 0xff) == 0xff ? 0 : t & 0xff,
                                                        (t >> 8) & 0xff, (t & FOLD_DRAW) != 0};
        uint32_t mp = 0;
        for (int i = 0; i < ncm; i++)
            mp |= (x & cmill[i]) == cmill[i] ? cmill[i] : 0;
        if (vec && !mp) {
            w->clo[ci] = q.bw ? (uint8_t)q.bw : 0xff;
            w->chi[ci] = q.dr ? 0xff : (uint8_t)q.wl;
            continue;
        }
        if (vec) {
            w->clo[ci] = 0xff;
            w->chi[ci] = 0;
        }
        struct fold cf = {0, 0, false};
        if (mp)
            cf = pb->capwin ? (struct fold){1, 0, false}
                            : capture_lookup(j, pb, deposit(x, fpos), removable);
        child_edges(w, x, mp, q, cf);
    }
    if (vec)
        fold_block(w, w->clo, w->chi, w->plo, w->phi, nf, k - 1);
    return vec;
}

/* A position of the block whose captures wait (its opponent blocked, in
 * a variant where captures then wait): block_children folded captures
 * into it, so it is folded again move by move, where they are quiet. */
static void block_waiting(struct walker *w, uint32_t M, uint32_t O, struct pacc *a)
{
    struct fold f;
    bool win1;
    fold_placements(w->j, &w->pb, w->j->m[w->mi].s, M, O, w->is->rq, &f, &win1);
    *a = (struct pacc){0xffff, 0, 0};
    pacc_add(a, win1 ? 1 : f.bw ? f.bw : 0xffffu, f.wl, f.dr);
}

/*
 * The init pass of one block of the walk by the opponent's stones at a
 * time (pure placement, O canonical with no symmetry of its own): every
 * child of the block is read once, in order, and folded into its parents
 * (block_children), instead of every position reading its children.
 * Then the positions, in the block's order, are settled as init_gather
 * settles them.  Returns false, having done nothing, for a block it does
 * not take; *ok false when out of memory.
 */
static bool block_pass(struct walker *w, uint64_t slot0, bool *ok)
{
    struct job *j = w->j;
    struct place_block *pb = &w->pb;
    uint32_t O, M0;
    mmtb_index_unrank(j->ix, w->ws, slot0, &O, &M0);
    place_block_enter(w, O);
    if (pb->base == UINT64_MAX)
        return false;
    uint8_t fpos[MMTB_MAX_POINTS];
    int nf = 0;
    for (uint32_t t = j->v->full & ~O; t; t &= t - 1)
        fpos[nf++] = (uint8_t)__builtin_ctz(t);
    for (uint64_t p = 0; p < w->bs; p++)
        w->acc[p] = (struct pacc){0xffff, 0, 0};
    memset(w->plo, 0xff, w->bs);
    memset(w->phi, 0, w->bs);
    bool sliced = block_children(w, O, fpos, nf);
    int wn = j->m[w->mi].s.w;
    struct init_scratch *is = w->is;
    uint32_t y = wn ? (1u << wn) - 1 : 0, gm[INIT_GROUP], go[INIT_GROUP];
    struct pacc ga[INIT_GROUP];
    uint64_t gs[INIT_GROUP];
    int gst[INIT_GROUP], ng = 0;
    for (uint64_t p = 0; p < w->bs; p++, y = wn && p < w->bs ? next_colex(y) : y) {
        gm[ng] = deposit(y, fpos);
        go[ng] = O;
        ga[ng] = w->acc[p];
        if (sliced) { /* and what fold_block gave it (hi 0xff: a draw) */
            bool dr = w->phi[p] == 0xff;
            pacc_add(&ga[ng], w->plo[p] == 0xff ? 0xffffu : w->plo[p], dr ? 0 : w->phi[p], dr);
        }
        ng++;
        if (ng < INIT_GROUP && p + 1 < w->bs)
            continue;
        mmtb_index_rank_stab_many(j->ix, j->m[w->mi].s, gm, go, ng, gs, gst);
        for (int k = 0; k < ng; k++) {
            struct pacc *a = &ga[k];
            if (!pb->fast) { /* the placements folded; the slides as usual */
                struct fold f = {a->bw != 0xffff ? a->bw : 0u, a->wl, a->dr != 0};
                init_gather(j, w->mi, gs[k], gm[k], O, NULL, is, &f);
                walker_gathered(w, ok);
                continue;
            }
            if (w->wait && succ_captures_wait(j->v, j->m[w->mi].s, gm[k], O))
                block_waiting(w, gm[k], O, a);
            int q = is->npos++;
            is->pos[q].slot = gs[k];
            pos_decided(j, is, q, a->bw != 0xffff ? a->bw : 0, a->wl, a->dr);
            if (is->npos >= INIT_GROUP)
                *ok = walker_settle(w) && *ok;
        }
        ng = 0;
    }
    return true;
}

/* The positions of the walk `it` over the colour-swapped sector: each of
 * its canonical slots (O, M) is our position (M, O), in groups whose own
 * slots are ranked together, so that the look-ups of their stones
 * overlap.  Returns how many; *ok false when out of memory. */
static uint64_t walk_by_opponent(struct walker *w, struct mmtb_index_iter *it, bool *ok)
{
    struct job *j = w->j;
    struct place_block *pb = &w->pb;
    uint64_t seen = 0, i;
    uint32_t mover, opp;
    bool canonical, more = true;
    while (more) {
        /* a whole block ahead: one pass over it, when block_pass takes it */
        uint64_t at = it->slot;
        if (w->bs && at % w->bs == 0 && at + w->bs <= it->end && block_pass(w, at, ok)) {
            seen += w->bs;
            if (at + w->bs == it->end)
                break;
            mmtb_index_iter_start(it, j->ix, w->ws, at + w->bs, it->end);
            continue;
        }
        uint32_t gm[INIT_GROUP], go[INIT_GROUP];
        uint64_t gs[INIT_GROUP];
        int gst[INIT_GROUP], ng = 0;
        while (ng < INIT_GROUP && !(w->bs && ng && it->slot % w->bs == 0) &&
               (more = mmtb_index_iter_next(it, &i, &mover, &opp, &canonical))) {
            if (!canonical)
                continue;
            gm[ng] = opp;
            go[ng++] = mover;
        }
        if (ng)
            mmtb_index_rank_stab_many(j->ix, j->m[w->mi].s, gm, go, ng, gs, gst);
        for (int k = 0; k < ng; k++) {
            if (go[k] != pb->o)
                place_block_enter(w, go[k]);
            init_gather(j, w->mi, gs[k], gm[k], go[k], pb, w->is, NULL);
            seen++;
            walker_gathered(w, ok);
        }
    }
    return seen;
}

/* The positions of the walk `it` over our own sector, in slot order; the
 * slots that hold no position are marked. */
static void walk_own(struct walker *w, struct mmtb_index_iter *it, bool *ok)
{
    struct member *me = &w->j->m[w->mi];
    uint64_t i;
    uint32_t mover, opp;
    bool canonical;
    while (mmtb_index_iter_next(it, &i, &mover, &opp, &canonical)) {
        if (!canonical) {
            me->st[i] = ST_UNUSED;
            continue;
        }
        init_gather(w->j, w->mi, i, mover, opp, NULL, w->is, NULL);
        walker_gathered(w, ok);
    }
}

/* The solved sectors of member me's quiet placements (sector *qt) and of
 * its captures when they can be read by the block of the opponent's
 * stones (see place_block), or NULL, in *pb; true when its positions are
 * pure placements (pb->fast). */
static bool place_block_of(const struct job *j, const struct member *me, struct mmtb_sector *qt,
                           struct place_block *pb)
{
    *qt = (struct mmtb_sector){me->s.b, (uint8_t)(me->s.w + 1), me->s.b_hand,
                               (uint8_t)(me->s.w_hand - 1)};
    struct mmtb_sector ct = {(uint8_t)(me->s.b - 1), (uint8_t)(me->s.w + 1), me->s.b_hand,
                             (uint8_t)(me->s.w_hand - 1)};
    const struct dep *qd = member_of(j, *qt) < 0 ? dep_of(j, *qt) : NULL;
    const struct dep *cd = me->s.b > 0 && member_of(j, ct) < 0 ? dep_of(j, ct) : NULL;
    *pb = (struct place_block){.d = qd && !qd->swapped ? qd : NULL,
                               .o = UINT32_MAX,
                               .base = UINT64_MAX,
                               .cd = cd && !cd->swapped ? cd : NULL};
    pb->fast = pb->d && !j->v->place_or_move;
    pb->capwin = me->s.b > 0 && ct.w + ct.w_hand < j->v->min_stones;
    return pb->fast;
}

/* C(n, k) for the sizes of a block's slots. */
static uint64_t choose(int n, int k)
{
    uint64_t c = 1;
    for (int i = 1; i <= k; i++)
        c = c * (uint64_t)(n - k + i) / (uint64_t)i;
    return c;
}

/* place_block_of into w, and the captures' cache of a pure placement
 * sector.  False when out of memory. */
static bool place_block_deps(const struct job *j, const struct member *me, struct walker *w)
{
    struct place_block *pb = &w->pb;
    place_block_of(j, me, &w->qt, pb);
    if (pb->fast && pb->cd && !pb->capwin) {
        /* one entry for each slot of a block: the stones M' */
        pb->cap = calloc(choose(j->v->npoints - me->s.b, me->s.w + 1), sizeof *pb->cap);
        return pb->cap != NULL;
    }
    return true;
}

/* The size of a block of O in the walk of member me when block_pass can
 * take its blocks (the quiet placements' and the captures' sectors read by
 * blocks, no rule that ends a position before its moves), else 0.  Of
 * those rules only first_mill_wins can end a placing position: the full
 * board (full_board_draw) needs both hands empty, and a side with a stone
 * in hand and a free point is never blocked (both_trapped_draw).  Where
 * stones may slide while others are in hand, the block pass folds the
 * placements and each position's slides are generated as usual; not
 * where captures may wait (block_waiting is for pure placements). */
static uint64_t block_pass_size(const struct job *j, const struct member *me)
{
    const struct mmtb_variant *v = j->v;
    struct mmtb_sector qt;
    struct place_block pb;
    bool pure = place_block_of(j, me, &qt, &pb);
    if (j->no_blocks || !pb.d || v->first_mill_wins)
        return 0;
    if (!pure && (!v->place_or_move || (v->place_captures && !v->trapped_capture)))
        return 0;
    int nf = v->npoints - me->s.b;
    if (nf <= me->s.w || (me->s.b > 0 && v->place_captures && !pb.capwin && !pb.cd))
        return 0;
    return choose(nf, me->s.w);
}

/* The block pass's scratch in w (bs from block_pass_size; 0: none); false
 * when out of memory. */
static bool block_pass_setup(struct walker *w, struct mmtb_sector ws, uint64_t bs)
{
    w->bs = bs;
    w->ws = ws;
    /* captures wait while the opponent is blocked: it has a move whenever
     * it has a stone in hand */
    w->wait = w->j->v->place_captures && !w->j->v->trapped_capture && w->j->m[w->mi].s.b_hand == 0;
    if (!bs)
        return true;
    for (int n = 0; n <= MMTB_MAX_POINTS; n++)
        for (int k = 0; k <= MMTB_MAX_POINTS; k++)
            w->binom[n][k] = k == 0 ? 1u : n == 0 ? 0u : w->binom[n - 1][k - 1] + w->binom[n - 1][k];
    struct mmtb_sector s = w->j->m[w->mi].s;
    uint64_t nch = choose(w->j->v->npoints - s.b, s.w + 1); /* the children */
    w->acc = malloc(bs * sizeof *w->acc);
    w->plo = malloc(2 * bs);
    w->clo = malloc(2 * nch);
    w->phi = w->plo ? w->plo + bs : NULL;
    w->chi = w->clo ? w->clo + nch : NULL;
    return w->acc && w->plo && w->clo;
}

/* Every thread's queued writes (settle_batch) to partition p of member me,
 * applied and emptied: the state bytes, and the held-back bucket codes. */
static void apply_queued(struct member *me, struct vec64 *ib, int nth, uint64_t nparts,
                         uint64_t p)
{
    uint8_t *base = me->st + (p << PART_SHIFT);
    uint16_t *code = me->bpend ? me->bpend + (p << PART_SHIFT) : NULL;
    for (int t = 0; t < nth; t++) {
        struct vec64 *q = &ib[(size_t)t * nparts + p];
        for (size_t k = 0; k < q->n; k++)
            base[q->e[k] >> 32] = (uint8_t)q->e[k];
        if (code)
            for (size_t k = 0; k < q->n; k++)
                code[q->e[k] >> 32] = (uint16_t)(q->e[k] >> 8);
        q->n = 0;
    }
}

/* The init pass of member mi of a pair without state: its positions in
 * its own slot order, or grouped by the opponent's stones (placement; see
 * init_by_opponent), their writes queued per partition. */
static int init_member_plain(struct job *j, int mi)
{
    const int nth = omp_get_max_threads();
    struct member *me = &j->m[mi];
    bool by_opp = init_by_opponent(j, me);
    /* chunks of whole blocks when block passes are taken, and batches of
     * about as many slots as INIT_BATCH_CHUNKS chunks of CHUNK */
    uint64_t bs = by_opp ? block_pass_size(j, me) : 0;
    const uint64_t chunk = !bs ? CHUNK : bs < CHUNK ? CHUNK / bs * bs : bs;
    const uint64_t batch = INIT_BATCH_CHUNKS * CHUNK / chunk ? INIT_BATCH_CHUNKS * CHUNK / chunk : 1;
    /* the sector walked: our own, or the colour-swapped one */
    struct mmtb_sector ws = by_opp ? sector_partner(me->s) : me->s;
    uint64_t wslots = by_opp ? mmtb_index_slots(j->ix, ws) : me->slots;
    uint64_t nchunks = (wslots + chunk - 1) / chunk;
    uint64_t visited = 0;
    uint64_t nparts = by_opp ? (me->slots >> PART_SHIFT) + 1 : 0;
    struct vec64 *ib = NULL;
    if (by_opp) {
        ib = calloc((size_t)nth * nparts, sizeof *ib);
        if (!ib)
            return MMTB_ERR_NOMEM;
        /* where nearly every position keeps an entry, they are held back
         * and added in slot order: two bytes a slot while the pass runs for
         * two to five bytes an entry less (the walk leaves the slots
         * unordered) */
        if (buckets_dense(j->v, me->s) && me->partner >= 0 &&
            !(me->bpend = calloc(me->slots, sizeof *me->bpend))) {
            free(ib);
            return MMTB_ERR_NOMEM;
        }
#pragma omp parallel for schedule(static)
        for (uint64_t c = 0; c < (me->slots + chunk - 1) / chunk; c++) {
            uint64_t lo = c * chunk, hi = lo + chunk < me->slots ? lo + chunk : me->slots;
            for (uint64_t i = lo; i < hi; i++)
                me->st[i] = ST_UNUSED;
        }
    }
    uint64_t done = 0;
    int fail = 0;
#pragma omp parallel
    {
        struct walker w = {.j = j, .mi = mi, .is = malloc(sizeof *w.is),
                           .queue = ib ? &ib[(size_t)omp_get_thread_num() * nparts] : NULL,
                           .deep = &j->deep_new[omp_get_thread_num()],
                           .hist = calloc(MAX_LEVELS, sizeof *w.hist)};
        bool pb_ok = !by_opp || (place_block_deps(j, me, &w) && block_pass_setup(&w, ws, bs));
        if (!w.is || !w.hist || !pb_ok) {
#pragma omp atomic write
            fail = 1;
        }
        for (uint64_t b0 = 0; b0 < nchunks; b0 += batch) {
            uint64_t b1 = b0 + batch < nchunks ? b0 + batch : nchunks;
#pragma omp for schedule(dynamic, 16)
            for (uint64_t c = b0; c < b1; c++) {
                if (fail)
                    continue;
                uint64_t lo = c * chunk, hi = lo + chunk < wslots ? lo + chunk : wslots, seen = 0;
                struct mmtb_index_iter it;
                mmtb_index_iter_start(&it, j->ix, ws, lo, hi);
                bool ok = true;
                w.is->npos = w.is->next = 0;
                if (by_opp)
                    seen = walk_by_opponent(&w, &it, &ok);
                else
                    walk_own(&w, &it, &ok);
                if (w.is->npos)
                    ok = walker_settle(&w) && ok;
                if (!ok)
                    __atomic_store_n(&fail, 1, __ATOMIC_RELAXED);
                if (omp_get_thread_num() == 0) {
                    uint64_t dn;
#pragma omp atomic read
                    dn = done;
                    progress_update(j->prog, dn * chunk, wslots);
                }
#pragma omp atomic
                done++;
#pragma omp atomic
                visited += seen;
            }
            if (!by_opp)
                continue;
            /* every thread's queue for a partition, in one thread */
#pragma omp for schedule(dynamic, 8)
            for (uint64_t p = 0; p < nparts; p++)
                apply_queued(me, ib, nth, nparts, p);
        }
        if (me->bpend && !fail)
            buckets_add_codes(j, mi, me->bpend, me->slots);
#pragma omp critical(mmtb_hist)
        tally_init_depths(j, mi, w.hist, w.maxd);
        free(w.is);
        free(w.hist);
        free(w.pb.cap);
        free(w.acc);
        free(w.plo);
        free(w.clo);
    }
    if (ib)
        for (size_t k = 0; k < (size_t)nth * nparts; k++)
            free(ib[k].e);
    free(ib);
    free(me->bpend);
    me->bpend = NULL;
    if (fail || j->oom)
        return MMTB_ERR_NOMEM;
    /* one visit per orbit, so every canonical slot was written */
    if (by_opp && visited != mmtb_index_canonical(j->v, me->s))
        return MMTB_ERR_INVALID;
    return MMTB_OK;
}

int init_pass(struct job *j)
{
    if (j->sp)
        return init_pass_split(j);
    if (job_has_state(j) && !j->plain_init) {
        int rc = bans_job(j) ? bans_setup(j) : MMTB_OK;
        for (int mi = 0; mi < j->nm && rc == MMTB_OK; mi++) {
            if (bans_base_by_blocks(j, &j->m[mi])) {
                /* its states without restrictions first, the plain way */
                deps_view_held(j, true);
                rc = init_member_plain(j, mi);
                deps_view_held(j, false);
                if (rc != MMTB_OK)
                    break;
            }
            rc = bans_job(j) ? bans_init_member(j, mi) : init_member_state(j, mi);
        }
        if (rc != MMTB_OK)
            return rc;
        if (j->too_many)
            return MMTB_ERR_UNSUPPORTED;
        return deep_collect(j);
    }
    for (int mi = 0; mi < j->nm; mi++) {
        int rc = init_member_plain(j, mi);
        if (rc != MMTB_OK)
            return rc;
    }
    if (j->too_many)
        return MMTB_ERR_UNSUPPORTED;
    return deep_collect(j);
}
