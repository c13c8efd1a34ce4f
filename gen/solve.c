/*
 * solve.c - level-synchronous retrograde analysis with OpenMP.
 *
 * A sector and its partner (same stones, other side to move) are solved
 * together, because quiet moves lead from one to the other (two placement
 * sectors, where no move does, are solved one after the other).  Every other
 * move leads into a sector solved earlier ("external"): captures, and in the
 * placement phase the placements.  Those are read back through libmmtb.
 * The init pass looks each position's external successors up in them, a
 * batch of positions at a time so that the cache misses overlap; a sector
 * only captures lead into is first re-filed by the side not to move
 * (dep_swap), which puts the captures of one move side by side.
 *
 * Working state, one byte per index slot:
 *   0x01..0x7d  unresolved; the number of in-pair moves (quiet moves into
 *               the partner sector) whose result is not yet known to be a
 *               win for the opponent, plus a bias of 1 per reason the
 *               position can no longer be lost
 *   0x7e        a draw that no in-pair result changes
 *   0x7f        slot not used by the index (non-canonical)
 *   0x80 | d    loss for the side to move in d plies
 *   0xc0 | d    win in d plies
 * Depths d of 63 (ST_DEEP) and more are rare (a few per mille of the
 * positions of the deepest sectors): their byte says ST_DEEP, and the exact
 * depth is in the job's list of deep positions for that level, which is
 * also what the levels from 63 on walk instead of the array.
 * Positions still unresolved at the end are draws.
 *
 * Level d resolves, from every position decided at depth d, its quiet
 * predecessors: a loss at d makes each predecessor a win at d+1; a win at d
 * takes from each predecessor's counter the moves that lead to it, and a
 * counter reaching 0 makes a loss at d+1.  When few positions of the
 * partner are still counting, the level goes forward instead: each of those
 * looks at its own successors (forward_member); the result is the same.
 *
 * Counting moves rather than distinct successor slots keeps the init pass
 * free of ranking.  Positions are stored once per orbit of the symmetry
 * group G, so the moves from Q into the orbit of P are found from P's side:
 * if the unmoves of P reach Q's orbit b times, then, counting the moves
 * between the two orbits both ways, |orbit(Q)| * a = |orbit(P)| * b, so Q
 * has a = b * |Stab(Q)| / |Stab(P)| moves into P's orbit.
 *
 * Winners take the shortest and losers the longest way to the next capture
 * (depth to conversion), which the level order gives for free.
 * External results of depth > 1 (placements in Lasker-style games) enter
 * through per-level buckets as if they were in-pair successors resolved at
 * that level.  The result does not depend on thread scheduling: every
 * position's value and depth is a function of the levels alone.
 */
#include "solve.h"

#include <errno.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include "mmtb.h"
#include "movegen.h"
#include "progress.h"
#include "sectorio.h"
#include "sector_index.h"
#include "succ.h"
#include "tablewrite.h"
#include "variant.h"

#define ST_UNUSED 0x7fu
#define ST_DRAWN 0x7eu /* a draw no update changes; every state >= this one is final */
#define ST_MAX_COUNT 0x7du
#define ST_RESOLVED 0x80u
#define ST_WIN 0x40u
#define ST_DEPTH 0x3fu
#define ST_DEEP 0x3fu /* the depth is ST_DEEP or more: see the deep lists */
#define MAX_DEPTH 0x3ffeu
#define MAX_LEVELS ((int)MAX_DEPTH + 2)
#define DEEP_SLOT_BITS 47 /* a deep entry: depth << 48 | member << 47 | slot */

/* A solved sector held in memory for look-ups. */
struct dep {
    struct mmtb_sector s;
    uint64_t slots;
    uint8_t *wdl;  /* 0 loss, 1 draw, 2 win (for the side to move there) */
    uint16_t *dtc; /* NULL when only captures lead there */
    /* wdl is held by the side NOT to move: the value of position (m, o) of
     * s is at the slot of (o, m) in the colour-swapped sector (see
     * dep_swap) */
    bool swapped;
};

/* A growable array of 64-bit entries: the per-level buckets of external
 * results (slot << 2 | member << 1 | is_win) and the init pass's queued
 * writes. */
struct vec64 {
    uint64_t *e;
    size_t n, cap;
};

static bool vec64_push(struct vec64 *b, uint64_t x)
{
    if (b->n == b->cap) {
        size_t nc = b->cap ? 2 * b->cap : 1024;
        uint64_t *ne = realloc(b->e, nc * sizeof *ne);
        if (!ne)
            return false;
        b->e = ne;
        b->cap = nc;
    }
    b->e[b->n++] = x;
    return true;
}

/* One sector being solved (a member of the pair). */
struct member {
    struct mmtb_sector s;
    uint64_t slots;
    uint8_t *st;
    int partner; /* index of the partner member, or -1 */
    /* Per chunk of CHUNK slots: something was decided at the level being
     * processed (cur) / at the next level (next).  Levels past the deepest
     * value set by the init pass only scan flagged chunks. */
    uint8_t *flag_cur, *flag_next;
    /* after the levels: every deep position, slot << 14 | depth, sorted */
    uint64_t *deep;
    size_t ndeep;
};

/* Updates queued for one partition of a partner array. */
struct updbuf {
    uint32_t *e;
    size_t n, cap;
};

_Static_assert(ST_DRAWN == 0x7e, "forward_member's scan of eight states at once");
#define FWD_GROUP 16        /* positions */
#define FWD_GROUP_SLOTS 256 /* successors */

/* Per-thread scratch of the levels: the predecessors of one position
 * (backward), the successors of a group of positions (forward). */
struct pred_scratch {
    uint32_t pm[MMTB_MAX_MOVES], po[MMTB_MAX_MOVES];
    uint64_t r[MMTB_MAX_MOVES];
    int cnt[MMTB_MAX_MOVES], nst[MMTB_MAX_MOVES];
    struct succ sc[MMTB_MAX_MOVES]; /* the forward levels' other successors */
    /* forward levels: the successors' slots of a group of positions, whose
     * states are fetched together */
    uint64_t fr[FWD_GROUP_SLOTS + MMTB_MAX_MOVES];
    struct {
        uint64_t slot;
        uint32_t at, n;
    } fq[FWD_GROUP];
};

#define CHUNK_SHIFT 12
#define CHUNK ((uint64_t)1 << CHUNK_SHIFT)
/* Scattered writes (the level updates, the by-opponent init) are queued
 * per partition of 2^PART_SHIFT slots, 512 KiB of state, applied in cache. */
#define PART_SHIFT 19

struct job {
    const struct mmtb_variant *v;
    const mmtb_index *ix;
    struct member m[2];
    int nm;
    struct dep deps[16];
    int ndeps;
    struct vec64 *buckets; /* [MAX_LEVELS], allocated lazily */
    /* positions decided at depth >= deep_from: member << 47 | slot, per
     * depth, gathered from the per-thread lists of new ones */
    struct vec64 *deep;     /* [MAX_LEVELS] */
    struct vec64 *deep_new; /* per thread: depth << 48 | member << 47 | slot */
    int too_many;           /* a position has more in-pair moves than a counter holds */
    unsigned deep_from;     /* depths from here on are deep: ST_DEEP normally */
    uint64_t *mhist[2];    /* positions of each member decided per depth */
    uint64_t undecided[2]; /* positions of each member still counting */
    int forward;           /* -1: levels never forward, 1: whenever possible, 0: by cost */
    int last_level;        /* deepest level with work known so far */
    int oom;               /* an allocation failed inside a parallel region */
    int init_max;          /* deepest value decided by the init pass */
    int any_inpair;        /* some position has an in-pair successor */
    struct progress *prog;
    /* level updates: nthreads * nparts buffers (see level_member) */
    int nthreads;
    uint64_t nparts;
    struct updbuf *upd;
    struct pred_scratch *ps; /* per thread */
};

/* ---------------------------------------------------------------- helpers */

/* The state byte of a position decided at depth d (a win when win). */
static inline uint8_t st_decided(const struct job *j, bool win, unsigned d)
{
    return (uint8_t)(ST_RESOLVED | (win ? ST_WIN : 0) | (d < j->deep_from ? d : ST_DEEP));
}

static int member_of(const struct job *j, struct mmtb_sector s)
{
    for (int i = 0; i < j->nm; i++)
        if (sector_eq(j->m[i].s, s))
            return i;
    return -1;
}

static const struct dep *dep_of(const struct job *j, struct mmtb_sector s)
{
    for (int i = 0; i < j->ndeps; i++)
        if (sector_eq(j->deps[i].s, s))
            return &j->deps[i];
    return NULL;
}

/*
 * Merge repeated values of a[0..n) (order of first appearance kept) and
 * count them: afterwards a[0..*n) are distinct, cnt[k] says how often a[k]
 * occurred, and aux[k] is the aux value of its first occurrence.  Several
 * unmoves can reach one orbit (symmetric images share a slot).  A
 * per-thread open-addressing set, emptied in O(1) by bumping a generation
 * tag; n <= MMTB_MAX_MOVES is at most half its size, so probes stay short.
 */
#define DEDUP_BITS 12
struct dedup {
    uint32_t gen;
    uint32_t tag[1u << DEDUP_BITS];
    uint64_t key[1u << DEDUP_BITS];
    int at[1u << DEDUP_BITS]; /* where the key stands in the output */
};
static _Thread_local struct dedup dd;

static void dedupe_count(uint64_t *a, int *aux, int *cnt, int *n)
{
    if (++dd.gen == 0) {
        memset(dd.tag, 0, sizeof dd.tag);
        dd.gen = 1;
    }
    const uint32_t mask = (1u << DEDUP_BITS) - 1;
    int u = 0;
    for (int i = 0; i < *n; i++) {
        uint64_t x = a[i];
        uint32_t h = (uint32_t)((x * 0x9e3779b97f4a7c15ull) >> (64 - DEDUP_BITS));
        while (dd.tag[h] == dd.gen && dd.key[h] != x)
            h = (h + 1) & mask;
        if (dd.tag[h] == dd.gen) {
            cnt[dd.at[h]]++;
            continue;
        }
        dd.tag[h] = dd.gen;
        dd.key[h] = x;
        dd.at[h] = u;
        cnt[u] = 1;
        aux[u] = aux[i];
        a[u++] = x;
    }
    *n = u;
}

static void bucket_add(struct job *j, int level, uint64_t entry)
{
#pragma omp critical(mmtb_bucket)
    {
        if (!vec64_push(&j->buckets[level], entry))
            j->oom = 1;
        if (level > j->last_level)
            j->last_level = level;
    }
}

/* Note that slot (member mi) was decided at depth d >= deep_from. */
static bool deep_push(struct vec64 *v, int mi, uint64_t slot, unsigned d)
{
    return vec64_push(v, (uint64_t)d << 48 | (uint64_t)mi << DEEP_SLOT_BITS | slot);
}

/* Move the deep positions the threads found into the per-depth lists. */
static int deep_collect(struct job *j)
{
    for (int t = 0; t < j->nthreads; t++) {
        struct vec64 *v = &j->deep_new[t];
        for (size_t k = 0; k < v->n; k++) {
            uint64_t e = v->e[k];
            if (!vec64_push(&j->deep[e >> 48], e & (((uint64_t)1 << 48) - 1)))
                return MMTB_ERR_NOMEM;
        }
        v->n = 0;
    }
    return MMTB_OK;
}

/* ------------------------------------------------------------------ init */

/*
 * The init pass in two steps, so that the look-ups of many positions are
 * in flight at once: init_gather generates a position's successors, ranks
 * the external ones and starts their look-ups (cache misses in solved
 * sectors of hundreds of megabytes); init_settle reads them, once a batch
 * of positions has been gathered.
 */
#define INIT_GROUP 16                          /* positions per batch */
#define INIT_EXT_CAP (2 * MMTB_MAX_MOVES)      /* external successors per batch */

/* A successor in an already solved sector, ranked, waiting for its value. */
struct ext_look {
    const struct dep *d;
    uint64_t r;
    bool capture;
};

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
        __builtin_prefetch(&x->d->wdl[x->r]);
    }
}

/*
 * First step for one canonical position (slot of member mi): terminal
 * values, the count of in-pair successors, and the external successors
 * ranked with their look-ups started.  A position decided without
 * look-ups (no move, an immediate win) is settled here.
 */
static void init_gather(struct job *j, int mi, uint64_t slot, uint32_t mover, uint32_t opp,
                        struct init_scratch *is)
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
    /* Quiet moves into the partner are only counted (see the top). */
    int nin = 0;
    int n = me->partner >= 0 ? succ_generate_counted(v, me->s, mover, opp, sc, &nin)
                             : succ_generate(v, me->s, mover, opp, sc);
    if (n + nin == 0) {
        is->pos[p].state = st_decided(j, false, 0);
        is->pos[p].depth = 0;
        return;
    }
    /* Placements that remove nothing all lead to positions of one sector
     * whose side to move is our opponent: those are ranked together.  So
     * are the captures of one move into a swapped sector: they share the
     * side not to move. */
    struct ext_look *ext = is->ext + is->next;
    int next = 0, nq = 0, nr = 0;
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
        ext[next].capture = sc[i].capture;
        if (d->swapped) {
            if (nr && (d != rd || sc[i].opp != rnm)) {
                rank_group(j, sector_partner(rd->s), rnm, is->ropp, is->rat, nr, is->r, ext);
                nr = 0;
            }
            rd = d;
            rnm = sc[i].opp;
            is->rat[nr] = next;
            is->ropp[nr++] = sc[i].mover;
        } else if (sc[i].mover == opp && (nq == 0 || sector_eq(sc[i].t, qt))) {
            qt = sc[i].t;
            is->qat[nq] = next;
            is->qopp[nq++] = sc[i].opp;
        } else {
            ext[next].r = mmtb_index_rank(j->ix, sc[i].t, sc[i].mover, sc[i].opp);
            __builtin_prefetch(&d->wdl[ext[next].r]);
        }
        next++;
    }
    if (nr)
        rank_group(j, sector_partner(rd->s), rnm, is->ropp, is->rat, nr, is->r, ext);
    if (nq)
        rank_group(j, qt, opp, is->qopp, is->qat, nq, is->r, ext);
    is->pos[p].first = is->next;
    is->pos[p].n = next;
    is->pos[p].nin = nin;
    is->next += next;
}

/* Second step: the state byte of gathered position p from its external
 * successors' values and its in-pair count; may add bucket entries. */
static uint8_t init_settle(struct job *j, int mi, const struct init_scratch *is, int p,
                           int *resolved_depth)
{
    uint64_t slot = is->pos[p].slot;
    int nin = is->pos[p].nin;
    const struct ext_look *ext = is->ext + is->pos[p].first;
    *resolved_depth = -1;
    int best_win = 0, worst_loss = 0;
    bool draw = false;
    for (int i = 0; i < is->pos[p].n; i++) {
        const struct dep *d = ext[i].d;
        uint64_t r = ext[i].r;
        int w = d->wdl[r];
        int depth = ext[i].capture ? 1 : (d->dtc ? d->dtc[r] : 0) + 1;
        if (w == 0) { /* the opponent loses there */
            if (depth == 1) {
                *resolved_depth = 1;
                return st_decided(j, true, 1);
            }
            if (!best_win || depth < best_win)
                best_win = depth;
        } else if (w == 1) {
            draw = true;
        } else if (depth > worst_loss) {
            worst_loss = depth;
        }
    }
    if (nin > 0 && !j->any_inpair)
        __atomic_store_n(&j->any_inpair, 1, __ATOMIC_RELAXED);

    if (best_win && (best_win == 1 || nin == 0)) {
        *resolved_depth = best_win;
        return st_decided(j, true, (unsigned)best_win);
    }
    if (nin == 0) {
        if (draw)
            return ST_DRAWN;
        *resolved_depth = worst_loss;
        return st_decided(j, false, (unsigned)worst_loss);
    }
    /* the counter and its biases (at most 2) must fit below ST_DRAWN */
    if (nin > (int)ST_MAX_COUNT - 2) {
        __atomic_store_n(&j->too_many, 1, __ATOMIC_RELAXED);
        return ST_DRAWN;
    }
    uint8_t c = (uint8_t)nin;
    if (best_win) {
        c++; /* can no longer be lost */
        bucket_add(j, best_win - 1, slot << 2 | (uint64_t)mi << 1 | 1);
    } else {
        if (draw)
            c++;
        if (worst_loss > 1) {
            c++;
            bucket_add(j, worst_loss - 1, slot << 2 | (uint64_t)mi << 1 | 0);
        }
    }
    return c;
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
 * wherever it lies.  Movement positions have few external successors and
 * are walked in their own order.
 */
static bool init_by_opponent(const struct job *j, const struct member *me)
{
    return me->s.w_hand > 0 && !j->v->place_or_move;
}

/*
 * Writes of the by-opponent walk land anywhere in the member's array; one
 * cache and TLB miss each would cost more than the rest of the work.  They
 * are queued per thread and partition of the array (as the level updates
 * below) and applied partition by partition after each batch of chunks.
 * An entry is offset in the partition << 16 | state byte.
 */
#define INIT_BATCH_CHUNKS 1024

static int init_pass(struct job *j)
{
    const uint64_t chunk = CHUNK;
    const int nth = omp_get_max_threads();
    for (int mi = 0; mi < j->nm; mi++) {
        struct member *me = &j->m[mi];
        bool by_opp = init_by_opponent(j, me);
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
            struct init_scratch *is = malloc(sizeof *is);
            uint64_t *hist = calloc(MAX_LEVELS, sizeof *hist);
            struct vec64 *mine = ib ? &ib[(size_t)omp_get_thread_num() * nparts] : NULL;
            struct vec64 *deep = &j->deep_new[omp_get_thread_num()];
            int maxd = 0;
            if (!is || !hist) {
#pragma omp atomic write
                fail = 1;
            }
            for (uint64_t b0 = 0; b0 < nchunks; b0 += INIT_BATCH_CHUNKS) {
                uint64_t b1 = b0 + INIT_BATCH_CHUNKS < nchunks ? b0 + INIT_BATCH_CHUNKS : nchunks;
#pragma omp for schedule(dynamic, 16)
                for (uint64_t c = b0; c < b1; c++) {
                    if (fail)
                        continue;
                    uint64_t lo = c * chunk, hi = lo + chunk < wslots ? lo + chunk : wslots;
                    struct mmtb_index_iter it;
                    mmtb_index_iter_start(&it, j->ix, ws, lo, hi);
                    uint64_t i, seen = 0;
                    uint32_t mover, opp;
                    bool canonical, more = true;
                    is->npos = is->next = 0;
                    while (more) {
                        more = mmtb_index_iter_next(&it, &i, &mover, &opp, &canonical);
                        if (more && !canonical) {
                            if (!by_opp)
                                me->st[i] = ST_UNUSED;
                            continue;
                        }
                        if (more) {
                            if (by_opp) {
                                init_gather(j, mi, mmtb_index_rank(j->ix, me->s, opp, mover),
                                            opp, mover, is);
                                seen++;
                            } else {
                                init_gather(j, mi, i, mover, opp, is);
                            }
                            if (is->npos < INIT_GROUP &&
                                is->next + MMTB_MAX_MOVES <= INIT_EXT_CAP)
                                continue;
                        }
                        /* settle the batch gathered */
                        for (int p = 0; p < is->npos; p++) {
                            int rd = is->pos[p].depth;
                            uint8_t x = is->pos[p].n < 0 ? is->pos[p].state
                                                         : init_settle(j, mi, is, p, &rd);
                            uint64_t k = is->pos[p].slot;
                            if (by_opp) {
                                uint64_t off = k & (((uint64_t)1 << PART_SHIFT) - 1);
                                if (!vec64_push(&mine[k >> PART_SHIFT], off << 16 | x))
                                    __atomic_store_n(&fail, 1, __ATOMIC_RELAXED);
                            } else {
                                me->st[k] = x;
                            }
                            if (rd >= (int)j->deep_from && !deep_push(deep, mi, k, (unsigned)rd))
                                __atomic_store_n(&fail, 1, __ATOMIC_RELAXED);
                            if (rd >= 0) {
                                hist[rd]++;
                                if (rd > maxd)
                                    maxd = rd;
                            }
                        }
                        is->npos = is->next = 0;
                    }
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
                for (uint64_t p = 0; p < nparts; p++) {
                    uint8_t *base = me->st + (p << PART_SHIFT);
                    for (int t = 0; t < nth; t++) {
                        struct vec64 *q = &ib[(size_t)t * nparts + p];
                        for (size_t k = 0; k < q->n; k++)
                            base[q->e[k] >> 16] = (uint8_t)q->e[k];
                        q->n = 0;
                    }
                }
            }
#pragma omp critical(mmtb_hist)
            {
                if (hist)
                    for (int d = 0; d <= maxd; d++)
                        j->mhist[mi][d] += hist[d];
                if (maxd > j->last_level)
                    j->last_level = maxd;
                if (maxd > j->init_max)
                    j->init_max = maxd;
            }
            free(is);
            free(hist);
        }
        if (ib)
            for (size_t k = 0; k < (size_t)nth * nparts; k++)
                free(ib[k].e);
        free(ib);
        if (fail || j->oom)
            return MMTB_ERR_NOMEM;
        /* one visit per orbit, so every canonical slot was written */
        if (by_opp && visited != mmtb_index_canonical(j->v, me->s))
            return MMTB_ERR_INVALID;
    }
    if (j->too_many)
        return MMTB_ERR_UNSUPPORTED;
    return deep_collect(j);
}

/* ------------------------------------------------------------ retrograde */

/* Apply the news "moves of slot k (member mi) lead to positions decided at
 * depth d" to k: when they are lost there, k is won at d+1; else `moves`
 * of k's remaining moves are known to lose, and k is lost at d+1 when none
 * is left.  Returns true when k became decided (a deep one is noted in
 * `deep`).  Each slot has one writer at a time (see level_member and
 * forward_member), so no read-modify-write needs to be atomic. */
static inline __attribute__((always_inline)) bool
retro_update(struct job *j, int mi, uint64_t k, bool succ_lost, unsigned moves, unsigned d,
             struct vec64 *deep)
{
    struct member *m = &j->m[mi];
    uint8_t cur = m->st[k], nx;
    if (cur >= ST_DRAWN)
        return false;
    if (succ_lost)
        nx = st_decided(j, true, d + 1);
    else if (cur <= moves) /* == moves; less would be a counting bug */
        nx = st_decided(j, false, d + 1);
    else
        nx = (uint8_t)(cur - moves);
    /* relaxed: forward_member's threads may read the slot meanwhile */
    __atomic_store_n(&m->st[k], nx, __ATOMIC_RELAXED);
    if (nx < ST_DRAWN)
        return false;
    m->flag_next[k >> CHUNK_SHIFT] = 1;
    if (d + 1 >= j->deep_from && !deep_push(deep, mi, k, d + 1))
        __atomic_store_n(&j->oom, 1, __ATOMIC_RELAXED);
    return true;
}

/*
 * The updates of a level are not applied where they are found: the partner
 * array is gigabytes, so each would be a cache miss, serialised by its
 * atomic update.  Instead each thread appends them to one buffer per
 * partition of the partner array (PART slots, a cache-sized piece), and
 * after a batch of source chunks every partition is applied by one thread,
 * in cache and without atomics.  Within a level the order of updates does
 * not matter (a position with a lost successor never counts down to 0), so
 * the result is the same for any thread count and batch size.
 *
 * An update is 32 bits: offset in the partition << 8 | lost << 7 | moves.
 */
#define UPD_MOVES 0x7fu
#define UPD_LOST (1u << 7)
#define UPD_OFF_SHIFT 8
#define BATCH_CHUNKS 256 /* source chunks between two applications */
_Static_assert(ST_MAX_COUNT <= UPD_MOVES, "moves must fit an update");
_Static_assert(PART_SHIFT + UPD_OFF_SHIFT <= 32, "offset must fit an update");
_Static_assert(PART_SHIFT >= CHUNK_SHIFT, "a chunk's flag belongs to one partition");

static void upd_push(struct job *j, struct updbuf *b, uint32_t e)
{
    if (b->n == b->cap) {
        size_t nc = b->cap ? 2 * b->cap : 256;
        uint32_t *ne = realloc(b->e, nc * sizeof *ne);
        if (!ne) {
            __atomic_store_n(&j->oom, 1, __ATOMIC_RELAXED);
            return;
        }
        b->e = ne;
        b->cap = nc;
    }
    b->e[b->n++] = e;
}

/* Find the quiet predecessors of position (mover, opp) of member me
 * (decided at the current level: lost when `lost`; stab_p the order of its
 * stabilizer) and queue their updates in this thread's buffers. */
static void queue_preds(struct job *j, const struct member *me, const struct member *pa,
                        uint32_t mover, uint32_t opp, int stab_p, bool lost,
                        struct updbuf *bufs, struct pred_scratch *ps)
{
    int n = succ_quiet_preds(j->v, me->s, mover, opp, ps->pm, ps->po);
    if (n == 0)
        return;
    mmtb_index_rank_stab_many(j->ix, pa->s, ps->pm, ps->po, n, ps->r, ps->nst);
    /* A slot met cnt times takes cnt * nst / stab_p moves off (all its
     * occurrences are one orbit: one stabilizer order nst).  Only when
     * stab_p > 1 must the occurrences be summed before the division; else
     * each may go on its own with nst moves (the sum is the same, and the
     * order of updates within a level does not matter), and so may a lost
     * one, which takes no moves off.  That saves the look-up in the dedup
     * set for nearly every position. */
    bool each = lost || stab_p == 1;
    if (!each)
        dedupe_count(ps->r, ps->nst, ps->cnt, &n);
    for (int k = 0; k < n; k++) {
        uint64_t q = ps->r[k];
        /* at most the predecessor's in-pair moves, which its counter held */
        uint32_t moves =
            lost ? 0 : each ? (uint32_t)ps->nst[k] : (uint32_t)(ps->cnt[k] * ps->nst[k] / stab_p);
        uint32_t off = (uint32_t)(q & (((uint64_t)1 << PART_SHIFT) - 1));
        upd_push(j, &bufs[q >> PART_SHIFT],
                 off << UPD_OFF_SHIFT | (lost ? UPD_LOST : 0) | (moves & UPD_MOVES));
    }
}

#define APPLY_AHEAD 16

/* Apply the queued updates of partition p of member pi (all threads'
 * buffers) at level d; returns the positions decided. */
static uint64_t apply_partition(struct job *j, int pi, uint64_t p, unsigned d,
                                struct vec64 *deep)
{
    const uint8_t *st = j->m[pi].st;
    uint64_t base = p << PART_SHIFT, found = 0;
    for (int t = 0; t < j->nthreads; t++) {
        struct updbuf *b = &j->upd[(size_t)t * j->nparts + p];
        for (size_t k = 0; k < b->n; k++) {
            uint32_t e = b->e[k];
            /* the partition is about the size of L2: fetch ahead */
            if (k + APPLY_AHEAD < b->n)
                __builtin_prefetch(&st[base + (b->e[k + APPLY_AHEAD] >> UPD_OFF_SHIFT)], 1);
            found += retro_update(j, pi, base + (e >> UPD_OFF_SHIFT), e & UPD_LOST,
                                  e & UPD_MOVES, d, deep);
        }
        b->n = 0;
    }
    return found;
}

/* The decided positions of member mi in [lo, hi) at level d: every slot
 * whose state is want_loss or want_win, or (deep levels, list != NULL) the
 * sorted slots list[0..n) of that range. */
struct level_src {
    uint64_t lo, hi;
    const uint64_t *list;
    size_t n;
};

/* The masks of slot i of sector s, met walking up through [i, hi): the
 * first call starts the walk, later ones step from the slot before, which
 * takes a few steps (iter carries the stabilizer order along). */
static void walk_to(const struct job *j, struct mmtb_index_iter *it, bool *walking,
                    struct mmtb_sector s, uint64_t i, uint64_t hi, uint32_t *mover, uint32_t *opp)
{
    if (!*walking)
        mmtb_index_iter_start(it, j->ix, s, i, hi);
    else
        mmtb_index_iter_skip_to(it, i);
    *walking = true;
    uint64_t slot;
    bool canonical;
    mmtb_index_iter_next(it, &slot, mover, opp, &canonical);
}

/* Does some byte of w equal c?  A byte of v = w ^ c is zero where w holds
 * c, and v has a zero byte exactly when (v - 0x01..) & ~v & 0x80.. is not
 * 0. */
static inline bool word_has_byte(uint64_t w, uint8_t c)
{
    uint64_t v = w ^ (0x0101010101010101ull * c);
    return ((v - 0x0101010101010101ull) & ~v & 0x8080808080808080ull) != 0;
}

static void level_chunk(struct job *j, const struct member *me, const struct member *pa,
                        const struct level_src *src, uint8_t want_loss, uint8_t want_win,
                        struct updbuf *bufs, struct pred_scratch *ps)
{
    /* the decided positions are visited in slot order: a walk finds each
     * from the last in a few steps */
    struct mmtb_index_iter it;
    bool walking = false;
    size_t li = 0;
    for (uint64_t i = src->lo; i < src->hi; i++) {
        bool lost;
        if (src->list) {
            if (li == src->n)
                break;
            i = src->list[li++] & (((uint64_t)1 << DEEP_SLOT_BITS) - 1);
            lost = !(me->st[i] & ST_WIN);
        } else {
            if (i + 8 <= src->hi && (i & 7) == 0) {
                /* skip 8 bytes holding neither state */
                uint64_t w;
                memcpy(&w, me->st + i, 8);
                if (!word_has_byte(w, want_loss) && !word_has_byte(w, want_win)) {
                    i += 7;
                    continue;
                }
            }
            uint8_t x = me->st[i];
            if (x != want_loss && x != want_win)
                continue;
            lost = x == want_loss;
        }
        uint32_t mover, opp;
        walk_to(j, &it, &walking, me->s, i, src->hi, &mover, &opp);
        queue_preds(j, me, pa, mover, opp, it.nstab, lost, bufs, ps);
    }
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

#define DEEP_PIECE 1024 /* deep positions per unit of work */

/*
 * The forward way through a level: instead of the predecessors of every
 * position of member mi decided at depth d (the backward way above), visit
 * every position of the partner still counting and look at its quiet
 * successors (all in mi): one lost at d makes it a win at d+1, and each
 * that is won at d takes one move off its counter, which is what the
 * backward way would have subtracted (moves, not orbits, are counted both
 * ways).  Successors share their side to move, so they are ranked
 * together, and a position settled long ago costs nothing.  The result is
 * the same; which way is cheaper depends on how many positions are still
 * counting against how many were decided at d (level_forward).
 *
 * Each thread writes only the slots of its own chunks.  When the partner is
 * the member itself (w = b), the slots read may be in other threads'
 * chunks: reads and writes are relaxed atomics, and a slot being written
 * is never one that is read as decided at d.
 */
static uint64_t forward_apply(struct job *j, int mi, unsigned d, struct pred_scratch *ps, int nq,
                              struct vec64 *deep)
{
    const uint8_t *st = j->m[mi].st;
    const uint8_t want_loss = st_decided(j, false, d), want_win = st_decided(j, true, d);
    uint64_t found = 0;
    for (int q = 0; q < nq; q++) {
        const uint64_t *r = ps->fr + ps->fq[q].at;
        bool lost = false;
        unsigned wins = 0;
        for (uint32_t k = 0; k < ps->fq[q].n && !lost; k++) {
            uint8_t x = __atomic_load_n(&st[r[k]], __ATOMIC_RELAXED);
            lost = x == want_loss;
            wins += x == want_win;
        }
        if (lost || wins) /* the flag set is of this thread's chunk */
            found += retro_update(j, j->m[mi].partner, ps->fq[q].slot, lost, wins, d, deep);
    }
    return found;
}

static uint64_t forward_member(struct job *j, int mi, unsigned d)
{
    const struct member *me = &j->m[mi];
    const struct member *pa = &j->m[me->partner];
    const uint64_t nchunks = (pa->slots + CHUNK - 1) / CHUNK;
    uint64_t found = 0;
#pragma omp parallel reduction(+ : found)
    {
        struct pred_scratch *ps = &j->ps[omp_get_thread_num()];
        struct vec64 *deep = &j->deep_new[omp_get_thread_num()];
#pragma omp for schedule(dynamic, 16)
        for (uint64_t c = 0; c < nchunks; c++) {
            uint64_t lo = c * CHUNK, hi = lo + CHUNK < pa->slots ? lo + CHUNK : pa->slots;
            struct mmtb_index_iter it;
            bool walking = false;
            int nq = 0;
            uint32_t used = 0;
            for (uint64_t i = lo; i < hi; i++) {
                if (i + 8 <= hi && (i & 7) == 0) {
                    /* a byte b counts when b < ST_DRAWN (0x7e): bit 7 clear
                     * in b and in (b & 0x7f) + 2, per byte without carries */
                    uint64_t w;
                    memcpy(&w, pa->st + i, 8);
                    uint64_t u = (w & 0x7f7f7f7f7f7f7f7full) + 0x0202020202020202ull;
                    if (!(~(w | u) & 0x8080808080808080ull)) {
                        i += 7;
                        continue;
                    }
                }
                if (pa->st[i] >= ST_DRAWN)
                    continue;
                uint32_t mover, opp;
                walk_to(j, &it, &walking, pa->s, i, hi, &mover, &opp);
                int n = succ_quiet_succs(j->v, pa->s, mover, opp, ps->sc, ps->pm);
                uint64_t *r = ps->fr + used;
                mmtb_index_rank_same_mover(j->ix, me->s, opp, ps->pm, n, r);
                for (int k = 0; k < n; k++)
                    __builtin_prefetch(&me->st[r[k]]);
                ps->fq[nq].slot = i;
                ps->fq[nq].at = used;
                ps->fq[nq++].n = (uint32_t)n;
                used += (uint32_t)n;
                if (nq == FWD_GROUP || used >= FWD_GROUP_SLOTS) {
                    /* the group's states were fetched meanwhile */
                    found += forward_apply(j, mi, d, ps, nq, deep);
                    nq = 0;
                    used = 0;
                }
            }
            found += forward_apply(j, mi, d, ps, nq, deep);
        }
    }
    return found;
}

/*
 * Forward or backward at level d from member mi?  Backward works once per
 * position decided at d, forward once per position of the partner still
 * counting, and both then handle about as many moves of the partner's side.
 * Measured per position (nine 8-5 and 9-6, 2 threads): backward 90-165 ns,
 * forward 110-185 ns (its successors' states are cache misses; the
 * backward updates are applied in cache).  Forward pays when fewer than
 * 3/4 as many positions are counting as were decided; that happens at the
 * early even levels, where one side's positions are nearly all settled
 * (9-6: levels 2 and 4 went from 32 and 19 s to 19 and 1.7 s).  Deep levels
 * are backward: their state bytes do not tell the depth.
 */
static bool level_forward(const struct job *j, int mi, unsigned d)
{
    if (j->forward < 0 || d >= j->deep_from)
        return false;
    return j->forward > 0 || 4 * j->undecided[j->m[mi].partner] < 3 * j->mhist[mi][d];
}

/* n positions of member mi were decided at depth d. */
static void count_decided(struct job *j, int mi, unsigned d, uint64_t n)
{
    j->mhist[mi][d] += n;
    j->undecided[mi] -= n;
}

/* Propagate from every position of member mi decided at depth d. */
static void level_member(struct job *j, int mi, unsigned d, uint64_t *newly)
{
    struct member *me = &j->m[mi];
    if (me->partner < 0)
        return;
    struct member *pa = &j->m[me->partner];
    if (level_forward(j, mi, d)) {
        uint64_t found = forward_member(j, mi, d);
        count_decided(j, me->partner, d + 1, found);
        *newly += found;
        return;
    }
    const uint64_t chunk = CHUNK;
    uint64_t nchunks = (me->slots + chunk - 1) / chunk;
    uint64_t nparts = (pa->slots >> PART_SHIFT) + 1;
    bool all = (int)d <= j->init_max;
    uint8_t want_loss = st_decided(j, false, d), want_win = st_decided(j, true, d);
    /* deep levels: this member's part of the sorted list of depth d */
    const uint64_t *list = NULL;
    size_t nlist = 0;
    if (d >= j->deep_from) {
        const struct vec64 *dl = &j->deep[d];
        uint64_t key = (uint64_t)mi << DEEP_SLOT_BITS;
        size_t a = 0;
        while (a < dl->n && dl->e[a] < key)
            a++;
        while (a + nlist < dl->n && (dl->e[a + nlist] >> DEEP_SLOT_BITS) == (uint64_t)mi)
            nlist++;
        if (nlist == 0)
            return; /* nothing of this member at depth d (dl->e may be NULL) */
        list = dl->e + a;
        nchunks = (nlist + DEEP_PIECE - 1) / DEEP_PIECE;
    }
    uint64_t found = 0;
#pragma omp parallel reduction(+ : found)
    {
        struct updbuf *bufs = &j->upd[(size_t)omp_get_thread_num() * j->nparts];
        struct pred_scratch *ps = &j->ps[omp_get_thread_num()];
        struct vec64 *deep = &j->deep_new[omp_get_thread_num()];
        for (uint64_t b0 = 0; b0 < nchunks; b0 += BATCH_CHUNKS) {
            uint64_t b1 = b0 + BATCH_CHUNKS < nchunks ? b0 + BATCH_CHUNKS : nchunks;
            if (!list && !all && !memchr(me->flag_cur + b0, 1, b1 - b0))
                continue; /* every thread skips alike: flag_cur is read-only here */
#pragma omp for schedule(dynamic, 16)
            for (uint64_t c = b0; c < b1; c++) {
                struct level_src src = {c * chunk, c * chunk + chunk, NULL, 0};
                if (list) {
                    src.list = list + c * DEEP_PIECE;
                    src.n = nlist - c * DEEP_PIECE < DEEP_PIECE ? nlist - c * DEEP_PIECE
                                                                : DEEP_PIECE;
                    src.lo = src.list[0] & (((uint64_t)1 << DEEP_SLOT_BITS) - 1);
                    src.hi = me->slots;
                } else if (!all && !me->flag_cur[c]) {
                    continue;
                }
                if (src.hi > me->slots)
                    src.hi = me->slots;
                level_chunk(j, me, pa, &src, want_loss, want_win, bufs, ps);
            }
#pragma omp for schedule(dynamic, 8)
            for (uint64_t p = 0; p < nparts; p++)
                found += apply_partition(j, me->partner, p, d, deep);
        }
    }
    count_decided(j, me->partner, d + 1, found);
    *newly += found;
}

/* Bucket entries of level d: external results that take effect now. */
static uint64_t level_buckets(struct job *j, unsigned d)
{
    struct vec64 *b = &j->buckets[d];
    uint64_t found = 0;
    for (size_t i = 0; i < b->n; i++) {
        uint64_t e = b->e[i];
        int mi = (int)((e >> 1) & 1);
        if (retro_update(j, mi, e >> 2, e & 1, 1, d, &j->deep_new[0])) {
            found++;
            count_decided(j, mi, d + 1, 1);
        }
    }
    free(b->e);
    b->e = NULL;
    b->n = b->cap = 0;
    return found;
}

static int retro_pass(struct job *j)
{
    /* The quiet-move relation is symmetric: without in-pair successors
     * there are no in-pair predecessors either (placement sectors). */
    if (!j->any_inpair)
        return MMTB_OK;
    for (int mi = 0; mi < j->nm; mi++) {
        const uint8_t *st = j->m[mi].st;
        uint64_t u = 0;
#pragma omp parallel for reduction(+ : u) schedule(static)
        for (uint64_t i = 0; i < j->m[mi].slots; i++)
            u += st[i] < ST_DRAWN;
        j->undecided[mi] = u;
    }
    for (int d = 0; d <= j->last_level; d++) {
        if (d >= (int)MAX_DEPTH)
            return MMTB_ERR_UNSUPPORTED; /* depth beyond what the deep lists hold */
        if (d >= (int)j->deep_from && j->deep[d].n > 1)
            qsort(j->deep[d].e, j->deep[d].n, sizeof *j->deep[d].e, cmp_u64);
        uint64_t newly = level_buckets(j, (unsigned)d);
        for (int mi = 0; mi < j->nm; mi++)
            level_member(j, mi, (unsigned)d, &newly);
        if (newly && d + 1 > j->last_level)
            j->last_level = d + 1;
        for (int mi = 0; mi < j->nm; mi++) {
            struct member *me = &j->m[mi];
            uint8_t *t = me->flag_cur;
            me->flag_cur = me->flag_next;
            me->flag_next = t;
            memset(me->flag_next, 0, (me->slots + CHUNK - 1) / CHUNK + 1);
        }
        progress_update(j->prog, (uint64_t)d + 1, (uint64_t)j->last_level + 1);
        if (j->oom || deep_collect(j) != MMTB_OK)
            return MMTB_ERR_NOMEM;
    }
    return MMTB_OK;
}

/* Gather each member's deep positions, slot << 14 | depth, in slot order,
 * for the writer. */
static int deep_finish(struct job *j)
{
    for (int mi = 0; mi < j->nm; mi++) {
        struct member *me = &j->m[mi];
        size_t n = 0;
        for (int d = (int)j->deep_from; d < MAX_LEVELS; d++)
            for (size_t k = 0; k < j->deep[d].n; k++)
                n += (j->deep[d].e[k] >> DEEP_SLOT_BITS) == (uint64_t)mi;
        me->deep = malloc((n ? n : 1) * sizeof *me->deep);
        if (!me->deep)
            return MMTB_ERR_NOMEM;
        for (int d = (int)j->deep_from; d < MAX_LEVELS; d++)
            for (size_t k = 0; k < j->deep[d].n; k++) {
                uint64_t e = j->deep[d].e[k];
                if ((e >> DEEP_SLOT_BITS) == (uint64_t)mi)
                    me->deep[me->ndeep++] =
                        (e & (((uint64_t)1 << DEEP_SLOT_BITS) - 1)) << 14 | (uint64_t)d;
            }
        qsort(me->deep, me->ndeep, sizeof *me->deep, cmp_u64);
        /* one entry per deep state, or the writer would take wrong depths */
        uint64_t ndeep_st = 0;
#pragma omp parallel for reduction(+ : ndeep_st) schedule(static)
        for (uint64_t i = 0; i < me->slots; i++)
            ndeep_st += (me->st[i] | ST_WIN) == (ST_RESOLVED | ST_WIN | ST_DEEP);
        bool ok = ndeep_st == me->ndeep;
        for (size_t k = 0; ok && k < me->ndeep; k++)
            ok = (me->st[me->deep[k] >> 14] | ST_WIN) == (ST_RESOLVED | ST_WIN | ST_DEEP) &&
                 (k == 0 || me->deep[k] >> 14 != me->deep[k - 1] >> 14);
        if (!ok)
            return MMTB_ERR_INVALID;
    }
    return MMTB_OK;
}

/* ---------------------------------------------------------------- output */

struct fill_ctx {
    const struct member *me;
};

/* Convert working state to table values for the writer (called in
 * parallel for disjoint ranges). */
static void fill_values(void *ctx, uint64_t first, uint64_t count, uint8_t *wdl, uint16_t *dtc)
{
    const struct member *me = ((const struct fill_ctx *)ctx)->me;
    /* the first deep entry at or after `first` */
    size_t lo = 0, hi = me->ndeep;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (me->deep[mid] >> 14 < first)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (uint64_t i = 0; i < count; i++) {
        uint8_t x = me->st[first + i];
        if (x == ST_UNUSED) {
            wdl[i] = 3;
            dtc[i] = 0;
        } else if (x & ST_RESOLVED) {
            wdl[i] = (x & ST_WIN) ? 2 : 0;
            dtc[i] = x & ST_DEPTH;
            if (dtc[i] == ST_DEEP) /* there is one: see deep_finish */
                dtc[i] = (uint16_t)(me->deep[lo++] & 0x3fff);
        } else {
            wdl[i] = 1;
            dtc[i] = 0;
        }
    }
}

/* ------------------------------------------------------------ dependencies */

/* Load an already solved sector fully into memory (in parallel ranges). */
static int load_dep(mmtb_tb *tb, struct dep *d, const mmtb_index *ix, bool need_dtc, char *err,
                    size_t errlen)
{
    d->slots = mmtb_index_slots(ix, d->s);
    d->wdl = gen_alloc_big(d->slots);
    d->dtc = need_dtc ? gen_alloc_big(d->slots * sizeof *d->dtc) : NULL;
    if (!d->wdl || (need_dtc && !d->dtc))
        return MMTB_ERR_NOMEM;
    int rc = gen_read_sector(tb, d->s, d->slots, d->wdl, d->dtc);
    if (rc != MMTB_OK) {
        char name[32];
        mmtb_sector_format(d->s, name, sizeof name);
        snprintf(err, errlen, "reading solved sector %s: %s", name, mmtb_strerror(rc));
    }
    return rc;
}

/*
 * Re-file the values of dep d by the side not to move: slot k of the
 * colour-swapped sector (b, w) holds the value of the position of d whose
 * masks are those of k exchanged.  Done for the sectors only captures lead
 * into, when the positions are walked in their own order (movement): all
 * captures of one move, and of every position with the same side to move,
 * then share that side's look-up and symmetry and land in one small block
 * of the array, where in d's own order each would be a cache miss of its
 * own.  One rank per position of d, as the walk goes; the positions are
 * read in groups so that their look-ups overlap.
 */
static int dep_swap(const struct job *j, struct dep *d)
{
    struct mmtb_sector ts = sector_partner(d->s);
    uint64_t tslots = mmtb_index_slots(j->ix, ts);
    uint8_t *t = gen_alloc_big(tslots);
    if (!t)
        return MMTB_ERR_NOMEM;
    uint64_t nchunks = (tslots + CHUNK - 1) / CHUNK;
#pragma omp parallel for schedule(dynamic, 16)
    for (uint64_t c = 0; c < nchunks; c++) {
        uint64_t lo = c * CHUNK, hi = lo + CHUNK < tslots ? lo + CHUNK : tslots;
        struct mmtb_index_iter it;
        mmtb_index_iter_start(&it, j->ix, ts, lo, hi);
        uint64_t at[16], r[16], i;
        uint32_t mv[16], op[16], mover, opp;
        int nst[16], n = 0;
        bool canonical, more = true;
        while (more) {
            more = mmtb_index_iter_next(&it, &i, &mover, &opp, &canonical);
            if (more && !canonical) {
                t[i] = 3;
                continue;
            }
            if (more) {
                at[n] = i;
                mv[n] = opp; /* the position of d: the masks exchanged */
                op[n++] = mover;
                if (n < 16)
                    continue;
            }
            mmtb_index_rank_stab_many(j->ix, d->s, mv, op, n, r, nst);
            for (int k = 0; k < n; k++)
                __builtin_prefetch(&d->wdl[r[k]]);
            for (int k = 0; k < n; k++)
                t[at[k]] = d->wdl[r[k]];
            n = 0;
        }
    }
    free(d->wdl);
    d->wdl = t;
    d->slots = tslots;
    d->swapped = true;
    return MMTB_OK;
}

static void free_job(struct job *j)
{
    for (int i = 0; i < j->nm; i++) {
        free(j->m[i].st);
        free(j->m[i].flag_cur);
        free(j->m[i].flag_next);
        free(j->m[i].deep);
    }
    for (int i = 0; i < j->ndeps; i++) {
        free(j->deps[i].wdl);
        free(j->deps[i].dtc);
    }
    if (j->buckets)
        for (int i = 0; i < MAX_LEVELS; i++)
            free(j->buckets[i].e);
    free(j->buckets);
    if (j->deep)
        for (int i = 0; i < MAX_LEVELS; i++)
            free(j->deep[i].e);
    free(j->deep);
    if (j->deep_new)
        for (int i = 0; i < j->nthreads; i++)
            free(j->deep_new[i].e);
    free(j->deep_new);
    free(j->mhist[0]);
    free(j->mhist[1]);
    if (j->upd)
        for (size_t i = 0; i < (size_t)j->nthreads * j->nparts; i++)
            free(j->upd[i].e);
    free(j->upd);
    free(j->ps);
}

/* The sectors outside the pair that moves of member s lead to (the sector
 * graph of sector_index.c), and whether a placement that removes nothing
 * leads there, so that its depths are needed too. */
static void add_deps(struct job *j, struct mmtb_sector s, bool need_dtc[16])
{
    struct mmtb_sector t[8];
    int n = mmtb_sector_moves_to(j->v, s, t);
    struct mmtb_sector quiet_place = {s.b, (uint8_t)(s.w + 1), s.b_hand, (uint8_t)(s.w_hand - 1)};
    for (int i = 0; i < n; i++) {
        if (member_of(j, t[i]) >= 0)
            continue;
        int k;
        for (k = 0; k < j->ndeps; k++)
            if (sector_eq(j->deps[k].s, t[i]))
                break;
        if (k == j->ndeps) {
            j->deps[j->ndeps].s = t[i];
            need_dtc[j->ndeps++] = false;
        }
        need_dtc[k] = need_dtc[k] || (s.w_hand > 0 && sector_eq(t[i], quiet_place));
    }
}

/* ------------------------------------------------------------------ driver */

static double peak_rss_mib(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_maxrss / 1024.0;
}

/* Solve one pair (or a lone sector) and write it.  stats[i] receives the
 * per-member statistics. */
static int solve_pair(const struct mmtb_solve_opts *o, const struct mmtb_variant *v,
                      const mmtb_index *ix, const struct mmtb_sector *ss, int nss,
                      struct mmtb_sector_stats *stats, struct progress *prog, const char *tag,
                      char *err, size_t errlen)
{
    struct job j;
    memset(&j, 0, sizeof j);
    double t_load = 0, t_init = 0, t_levels = 0, t_write = 0;
    j.v = v;
    j.ix = ix;
    j.nm = nss;
    j.prog = prog;
    j.deep_from = o->deep_from > 0 && o->deep_from < (int)ST_DEEP ? (unsigned)o->deep_from : ST_DEEP;
    int rc = MMTB_ERR_NOMEM;
    for (int i = 0; i < nss; i++) {
        j.m[i].s = ss[i];
        j.m[i].slots = mmtb_index_slots(ix, ss[i]);
        j.m[i].st = gen_alloc_big(j.m[i].slots);
        size_t nf = (size_t)((j.m[i].slots + CHUNK - 1) / CHUNK + 1);
        j.m[i].flag_cur = calloc(nf, 1);
        j.m[i].flag_next = calloc(nf, 1);
        if (!j.m[i].st || !j.m[i].flag_cur || !j.m[i].flag_next)
            goto out;
    }
    for (int i = 0; i < nss; i++)
        j.m[i].partner = member_of(&j, sector_partner(ss[i]));
    j.nthreads = omp_get_max_threads();
    for (int i = 0; i < nss; i++) {
        uint64_t np = (j.m[i].slots >> PART_SHIFT) + 1;
        j.nparts = np > j.nparts ? np : j.nparts;
    }
    j.upd = calloc((size_t)j.nthreads * j.nparts, sizeof *j.upd);
    j.ps = malloc((size_t)j.nthreads * sizeof *j.ps);
    if (!j.upd || !j.ps)
        goto out;
    j.buckets = calloc(MAX_LEVELS, sizeof *j.buckets);
    j.deep = calloc(MAX_LEVELS, sizeof *j.deep);
    j.deep_new = calloc((size_t)j.nthreads, sizeof *j.deep_new);
    j.mhist[0] = calloc(MAX_LEVELS + 1, sizeof *j.mhist[0]);
    j.mhist[1] = calloc(MAX_LEVELS + 1, sizeof *j.mhist[1]);
    j.forward = o->forward < 0 ? -1 : o->forward > 0;
    if (!j.buckets || !j.deep || !j.deep_new || !j.mhist[0] || !j.mhist[1])
        goto out;

    t_load = progress_now();
    bool need_dtc[16] = {false};
    for (int i = 0; i < nss; i++)
        add_deps(&j, ss[i], need_dtc);
    if (j.ndeps) {
        mmtb_tb *tb = NULL;
        struct mmtb_tb_opts topts;
        memset(&topts, 0, sizeof topts);
        rc = mmtb_tb_open(&tb, o->outdir, &topts);
        if (rc != MMTB_OK) {
            snprintf(err, errlen, "%s: cannot open tables: %s", o->outdir, mmtb_strerror(rc));
            goto out;
        }
        for (int i = 0; i < j.ndeps && rc == MMTB_OK; i++)
            rc = load_dep(tb, &j.deps[i], ix, need_dtc[i], err, errlen);
        mmtb_tb_close(tb);
        if (rc != MMTB_OK)
            goto out;
        bool own_order = true;
        for (int i = 0; i < nss; i++)
            own_order = own_order && !init_by_opponent(&j, &j.m[i]);
        for (int i = 0; i < j.ndeps && own_order && o->swap_deps >= 0; i++)
            if (!j.deps[i].dtc && (rc = dep_swap(&j, &j.deps[i])) != MMTB_OK)
                goto out;
    }

    char label[96];
    snprintf(label, sizeof label, "%s init", tag);
    progress_phase(prog, label);
    t_init = progress_now();
    rc = init_pass(&j);
    if (rc != MMTB_OK) {
        if (rc == MMTB_ERR_NOMEM)
            snprintf(err, errlen, "out of memory");
        else if (rc == MMTB_ERR_UNSUPPORTED)
            snprintf(err, errlen,
                     "%s: a position has more than %u moves into the partner sector, more "
                     "than the solver's one-byte counters hold",
                     tag, ST_MAX_COUNT - 2);
        else
            snprintf(err, errlen, "internal error: init pass missed positions");
        goto out;
    }
    snprintf(label, sizeof label, "%s levels", tag);
    progress_phase(prog, label);
    t_levels = progress_now();
    rc = retro_pass(&j);
    if (rc != MMTB_OK) {
        if (rc == MMTB_ERR_NOMEM)
            snprintf(err, errlen, "out of memory");
        else
            snprintf(err, errlen, "depth to conversion exceeds %u plies", (unsigned)MAX_DEPTH);
        goto out;
    }
    rc = deep_finish(&j);
    if (rc != MMTB_OK) {
        snprintf(err, errlen, "%s", rc == MMTB_ERR_NOMEM ? "out of memory"
                                                          : "internal error: the deep positions "
                                                            "do not match their states");
        goto out;
    }
    t_write = progress_now();
    snprintf(label, sizeof label, "%s write", tag);
    progress_phase(prog, label);
    for (int i = 0; i < nss; i++) {
        struct fill_ctx fc = {&j.m[i]};
        struct mmtb_write_opts wo;
        memset(&wo, 0, sizeof wo);
        wo.zstd_level = o->zstd_level;
        wo.dtc_zstd_level = o->dtc_zstd_level;
        rc = mmtb_table_write_sector(o->outdir, v, ss[i], j.m[i].slots, fill_values, &fc, &wo,
                                     &stats[i], err, errlen);
        if (rc != MMTB_OK)
            goto out;
    }
    if (o->verbose)
        fprintf(stderr, "%s: load %.2fs init %.2fs levels %.2fs (%d) write %.2fs\n", tag,
                t_init - t_load, t_levels - t_init, t_write - t_levels, j.last_level,
                progress_now() - t_write);
    rc = MMTB_OK;
out:
    free_job(&j);
    return rc;
}

/* mkdir -p: create dir and its missing parents.  Returns 0 or -1 (errno). */
static int make_dirs(const char *dir)
{
    char path[4096];
    size_t n = strlen(dir);
    if (n == 0 || n >= sizeof path) {
        errno = ENAMETOOLONG;
        return -1;
    }
    memcpy(path, dir, n + 1);
    for (size_t i = 1; i <= n; i++) {
        if (path[i] != '/' && path[i] != 0)
            continue;
        char c = path[i];
        path[i] = 0;
        if (mkdir(path, 0777) != 0 && errno != EEXIST)
            return -1;
        path[i] = c;
    }
    struct stat st;
    if (stat(dir, &st) != 0)
        return -1;
    if (!S_ISDIR(st.st_mode)) {
        errno = ENOTDIR;
        return -1;
    }
    return 0;
}

/* Add s and, recursively, every sector of the game it leads to. */
static void mark_needed(const struct mmtb_variant *v, const struct mmtb_sector *list, int n,
                        bool *need, struct mmtb_sector s)
{
    for (int i = 0; i < n; i++) {
        if (!sector_eq(list[i], s))
            continue;
        if (need[i])
            return;
        need[i] = true;
        struct mmtb_sector t[8];
        int k = mmtb_sector_moves_to(v, s, t);
        for (int q = 0; q < k; q++)
            mark_needed(v, list, n, need, t[q]);
        return;
    }
}

/* Can a move lead from sector s to its partner (same stones, other side to
 * move)?  Quiet moves and passes can.  A placement always leads out of the
 * pair, so where both sides still place (outside place-or-move rules, and
 * with no passes when the board is full) the two sectors are independent
 * and are solved one after the other, with half the memory. */
static bool partners_linked(const struct mmtb_variant *v, struct mmtb_sector s)
{
    return s.w_hand == 0 || s.b_hand == 0 || v->place_or_move ||
           v->nomove == MMTB_NOMOVE_PASSES;
}

/* True when the directory already holds a valid table of sector s. */
static bool already_solved(const char *dir, struct mmtb_sector s, struct mmtb_sector_stats *st)
{
    mmtb_tb *tb = NULL;
    if (mmtb_tb_open(&tb, dir, NULL) != MMTB_OK)
        return false;
    bool ok = mmtb_tb_sector_stats(tb, s, st) == MMTB_OK &&
              mmtb_tb_verify_sector(tb, s, NULL, 0) == MMTB_OK;
    mmtb_tb_close(tb);
    return ok;
}

static void print_stats_line(FILE *f, struct mmtb_sector s, const struct mmtb_sector_stats *st,
                             double secs, const char *note)
{
    char name[32];
    mmtb_sector_format(s, name, sizeof name);
    fprintf(f, "%-10s %14llu %14llu %14llu %14llu %5d %5d %8.2fs %s\n", name,
            (unsigned long long)st->canonical, (unsigned long long)st->wins,
            (unsigned long long)st->draws, (unsigned long long)st->losses, st->max_win,
            st->max_loss, secs, note);
}

int mmtb_solve(const struct mmtb_solve_opts *o, char *err, size_t errlen)
{
    struct mmtb_variant *v = NULL;
    mmtb_index *ix = NULL;
    struct mmtb_sector *list = NULL;
    bool *need = NULL;
    struct mmtb_sector_stats *all = NULL;
    FILE *rep = o->report ? o->report : stdout;
    int rc = mmtb_variant_load(&v, o->variant, err, errlen);
    if (rc != MMTB_OK)
        return rc;
    if (v->no_reclose) {
        snprintf(err, errlen,
                 "variant %s: the no-reclose rule needs per-position history the sector "
                 "tables do not hold; it cannot be solved",
                 v->name);
        rc = MMTB_ERR_UNSUPPORTED;
        goto out;
    }
    if (o->threads > 0)
        omp_set_num_threads(o->threads);

    int cap = 4096;
    list = malloc(cap * sizeof *list);
    need = calloc(cap, sizeof *need);
    all = calloc(cap, sizeof *all);
    if (!list || !need || !all) {
        rc = MMTB_ERR_NOMEM;
        snprintf(err, errlen, "out of memory");
        goto out;
    }
    int swh = o->start_w_hand < 0 ? v->stones : o->start_w_hand;
    int sbh = o->start_b_hand < 0 ? v->stones : o->start_b_hand;
    if ((swh > 0 || sbh > 0) && (swh < v->min_stones || sbh < v->min_stones)) {
        /* the empty board with fewer stones than min-stones for a side is a
         * game already lost before the first move: nothing to solve */
        snprintf(err, errlen,
                 "start %d,%d: a side with fewer than %d stones (min-stones of %s) has lost "
                 "before the first move; give each side at least %d",
                 swh, sbh, v->min_stones, v->name, v->min_stones);
        rc = MMTB_ERR_INVALID;
        goto out;
    }
    int n = mmtb_sector_list(v, swh, sbh, o->max_stones, list, cap);
    if (n < 0) {
        rc = n;
        snprintf(err, errlen, "cannot list the sectors of %s", v->name);
        goto out;
    }
    if (o->n_only > 0) {
        for (int i = 0; i < o->n_only; i++) {
            bool found = false;
            for (int k = 0; k < n; k++)
                found = found || sector_eq(list[k], o->only[i]);
            if (!found) {
                char name[32];
                mmtb_sector_format(o->only[i], name, sizeof name);
                snprintf(err, errlen, "sector %s is not part of this game of %s", name, v->name);
                rc = MMTB_ERR_INVALID;
                goto out;
            }
            mark_needed(v, list, n, need, o->only[i]);
        }
        /* partners are solved together */
        for (int i = 0; i < n; i++)
            if (need[i])
                for (int k = 0; k < n; k++)
                    if (sector_eq(list[k], sector_partner(list[i])))
                        need[k] = true;
    } else {
        for (int i = 0; i < n; i++)
            need[i] = true;
    }

    int maxw = 0;
    for (int i = 0; i < n; i++) {
        int a = list[i].w + list[i].w_hand, b = list[i].b + list[i].b_hand;
        maxw = a > maxw ? a : maxw;
        maxw = b > maxw ? b : maxw;
    }
    rc = mmtb_index_create(&ix, v, maxw);
    if (rc != MMTB_OK) {
        snprintf(err, errlen, "cannot build the index tables: %s", mmtb_strerror(rc));
        goto out;
    }
    if (make_dirs(o->outdir) != 0) {
        snprintf(err, errlen, "%s: cannot create directory: %s", o->outdir, strerror(errno));
        rc = MMTB_ERR_IO;
        goto out;
    }
    rc = mmtb_table_write_manifest(o->outdir, v, list, n, err, errlen);
    if (rc != MMTB_OK)
        goto out;

    struct progress prog;
    progress_init(&prog, o->quiet);
    int todo = 0;
    for (int i = 0; i < n; i++)
        todo += need[i];
    if (!o->quiet && !o->json)
        fprintf(rep, "%-10s %14s %14s %14s %14s %5s %5s %9s\n", "sector", "canonical", "wins",
                "draws", "losses", "maxW", "maxL", "time");
    double t_all = progress_now();
    uint64_t solved_positions = 0;
    int done = 0;
    for (int i = 0; i < n; i++) {
        if (!need[i])
            continue;
        /* a pair: this sector and its partner if it follows */
        struct mmtb_sector ss[2] = {list[i], list[i]};
        int nss = 1;
        if (i + 1 < n && need[i + 1] && sector_eq(list[i + 1], sector_partner(list[i])) &&
            !sector_eq(list[i], list[i + 1]) && partners_linked(v, list[i]))
            ss[nss++] = list[++i];
        int first = i - (nss - 1);
        bool have = true;
        for (int k = 0; k < nss; k++)
            have = have && already_solved(o->outdir, ss[k], &all[first + k]);
        double t0 = progress_now();
        char tag[64], nm[32];
        mmtb_sector_format(ss[0], nm, sizeof nm);
        snprintf(tag, sizeof tag, "[%d/%d] %s", done + 1, todo, nm);
        /* kept files: make sure the manifest records them (a kill may have
         * come between a rename and the manifest update) */
        for (int k = 0; have && k < nss && rc == MMTB_OK; k++)
            rc = mmtb_table_record_file(o->outdir, v, ss[k], err, errlen);
        if (rc != MMTB_OK)
            goto out;
        if (!have) {
            rc = solve_pair(o, v, ix, ss, nss, &all[first], &prog, tag, err, errlen);
            progress_clear(&prog);
            if (rc != MMTB_OK)
                goto out;
        }
        double secs = progress_now() - t0;
        for (int k = 0; k < nss; k++) {
            if (!have)
                solved_positions += all[first + k].slots;
            if (!o->quiet && !o->json)
                print_stats_line(rep, ss[k], &all[first + k], secs / nss,
                                 have ? "(already solved)" : "");
        }
        done += nss;
    }
    double total = progress_now() - t_all;
    uint64_t can = 0, w = 0, d = 0, l = 0;
    for (int i = 0; i < n; i++)
        if (need[i]) {
            can += all[i].canonical;
            w += all[i].wins;
            d += all[i].draws;
            l += all[i].losses;
        }
    int nthreads = omp_get_max_threads();
    double rate = total > 0 ? (double)solved_positions / total : 0;
    if (o->json) {
        fprintf(rep,
                "{\"variant\":\"%s\",\"sectors\":%d,\"canonical\":%llu,\"wins\":%llu,"
                "\"draws\":%llu,\"losses\":%llu,\"seconds\":%.3f,\"slots_solved\":%llu,"
                "\"slots_per_second\":%.0f,\"threads\":%d,\"peak_rss_mib\":%.1f}\n",
                v->name, todo, (unsigned long long)can, (unsigned long long)w,
                (unsigned long long)d, (unsigned long long)l, total,
                (unsigned long long)solved_positions, rate, nthreads, peak_rss_mib());
    } else if (!o->quiet) {
        fprintf(rep,
                "total: %d sectors, %llu canonical positions (%llu wins, %llu draws, %llu "
                "losses)\n%.2f s, %.2f M slots/s (%.2f M/s per thread, %d threads), peak RSS "
                "%.0f MiB\n",
                todo, (unsigned long long)can, (unsigned long long)w, (unsigned long long)d,
                (unsigned long long)l, total, rate / 1e6, rate / 1e6 / nthreads, nthreads,
                peak_rss_mib());
    }
    rc = MMTB_OK;
out:
    mmtb_index_free(ix);
    mmtb_variant_free(v);
    free(list);
    free(need);
    free(all);
    return rc;
}
