/*
 * levels.c - the retrograde levels of a job: from the state bytes the init
 * pass left (init.c), resolves the quiet moves inside the pair level by
 * level, backward or forward, and hands each member's deep positions to
 * the writer (pair.c).  Works on the job's arrays only; reads no file.
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
 * Winners take the shortest and losers the longest way to the end of the
 * game (depth to win), which the level order gives for free.
 * External results of depth > 1 (every capture or placement not ending the game) enter
 * through per-level buckets as if they were in-pair successors resolved at
 * that level.  The result does not depend on thread scheduling: every
 * position's value and depth is a function of the levels alone.
 */
#include "job.h"

#include <omp.h>
#include <string.h>

#include "movegen.h"


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
    /* positions with state: a decided position's unmoves (PRED_CAP) and
     * their slots */
    struct mmtb_pos *pred;
    uint64_t *pr;
};

/* The unmoves of a position with state: one per combination of the
 * restrictions its predecessor may carry, thousands at most. */
#define PRED_CAP (1 << 15)

/* Per thread, one update buffer per partition of the largest member, and
 * the scratch of the levels. */
int levels_setup(struct job *j)
{
    for (int i = 0; i < j->nm; i++) {
        uint64_t np = (j->m[i].slots >> PART_SHIFT) + 1;
        j->nparts = np > j->nparts ? np : j->nparts;
    }
    j->upd = calloc((size_t)j->nthreads * j->nparts, sizeof *j->upd);
    j->ps = calloc((size_t)j->nthreads, sizeof *j->ps);
    if (!j->upd || !j->ps)
        return MMTB_ERR_NOMEM;
    if (bans_job(j)) {
        /* a split pair places each state as it queues it (split.c sends
         * the updates of other ranks' slots by slot) */
        for (int i = 0; i < j->nm && !j->sp; i++) {
            uint64_t np = j->m[i].bx ? (mmtb_ban_index_base(j->m[i].bx) >> PART_SHIFT) + 1 : 0;
            j->nsparts = np > j->nsparts ? np : j->nsparts;
        }
        j->supd = j->nsparts ? calloc((size_t)j->nthreads * j->nsparts, sizeof *j->supd) : NULL;
        if (j->nsparts && !j->supd)
            return MMTB_ERR_NOMEM;
        j->bs = calloc((size_t)j->nthreads, sizeof *j->bs);
        for (int t = 0; j->bs && t < j->nthreads; t++)
            if (!(j->bs[t] = bans_scratch_new(j->v)))
                return MMTB_ERR_NOMEM;
        if (!j->bs)
            return MMTB_ERR_NOMEM;
    }
    for (int t = 0; t < j->nthreads && job_has_state(j); t++) {
        j->ps[t].pred = malloc(PRED_CAP * sizeof *j->ps[t].pred);
        j->ps[t].pr = malloc(PRED_CAP * sizeof *j->ps[t].pr);
        if (!j->ps[t].pred || !j->ps[t].pr)
            return MMTB_ERR_NOMEM;
    }
    return MMTB_OK;
}

uint64_t levels_scratch_bytes(bool state)
{
    return sizeof(struct pred_scratch) +
           (state ? PRED_CAP * (sizeof(struct mmtb_pos) + sizeof(uint64_t)) : 0);
}

void levels_free(struct job *j)
{
    for (int t = 0; j->bs && t < j->nthreads; t++)
        bans_scratch_free(j->bs[t]);
    free(j->bs);
    for (int t = 0; j->ps && t < j->nthreads; t++) {
        free(j->ps[t].pred);
        free(j->ps[t].pr);
    }
    if (j->upd)
        for (size_t i = 0; i < (size_t)j->nthreads * j->nparts; i++)
            free(j->upd[i].e);
    free(j->upd);
    if (j->supd)
        for (size_t i = 0; i < (size_t)j->nthreads * j->nsparts; i++)
            free(j->supd[i].e);
    free(j->supd);
    free(j->ps);
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
    /* (relaxed: the states of two partitions may share a chunk) */
    __atomic_store_n(&m->flag_next[k >> CHUNK_SHIFT], 1, __ATOMIC_RELAXED);
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
 * An update is 32 bits: offset in the partition << 8 | lost << 7 | moves
 * (job.h's UPD_ bits).
 */
#define BATCH_CHUNKS 256 /* source chunks between two applications */
/* The same for a member with restrictions (level_member_bans), whose units
 * are chunks of scheme 1 slots with their states: a larger batch gives each
 * partition more updates to apply at a time, which paid on large pairs for
 * a little more memory in the buffers; the plain path keeps 256, where the
 * larger buffers raised the peak (docs/PERFORMANCE.md, "The levels'
 * batches of a member with restrictions"). */
#define BANS_BATCH_CHUNKS 1024
_Static_assert(ST_MAX_COUNT <= UPD_MOVES, "moves must fit an update");
_Static_assert(PART_SHIFT + UPD_OFF_SHIFT <= 32, "offset must fit an update");
_Static_assert(PART_SHIFT >= CHUNK_SHIFT, "a chunk's flag belongs to one partition");


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
        upd_queue(j, bufs, q, lost, moves);
    }
}

/* queue_preds for a position with state (slot of member me): its unmoves
 * through the rules of movegen.h, each distinct predecessor slot once (the
 * init pass counted distinct successor slots). */
static void queue_preds_state(struct job *j, const struct member *me, const struct member *pa,
                              uint64_t slot, bool lost, struct updbuf *bufs,
                              struct pred_scratch *ps)
{
    struct mmtb_pos p;
    member_pos(me, slot, &p);
    int n = mmtb_gen_predecessors(j->v, &p, MMTB_PRED_QUIET, ps->pred, PRED_CAP);
    if (n < 0) {
        __atomic_store_n(&j->rule_err, n, __ATOMIC_RELAXED);
        return;
    }
    int np = 0;
    for (int i = 0; i < n; i++)
        if (mmtb_sector_eq(mmtb_pos_sector(&ps->pred[i]), pa->s))
            ps->pr[np++] = mmtb_ban_index_rank_pos(pa->bx, &ps->pred[i]);
    np = u64_sort_unique(ps->pr, np);
    for (int k = 0; k < np; k++)
        upd_queue(j, bufs, ps->pr[k], lost, 1);
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

/* Apply the queued state updates of state partition p of member pi (the
 * states of its scheme 1 slots [p << PART_SHIFT, ...), a contiguous range
 * no other partition's states share) at level d; returns the positions
 * decided.  A state's slot is its scheme 1 slot's first state plus its
 * place: the counts that give the first are those of the partition's own
 * slots, in cache after the first few. */
static uint64_t apply_state_partition(struct job *j, int pi, uint64_t p, unsigned d,
                                      struct vec64 *deep)
{
    const mmtb_ban_index *bx = j->m[pi].bx;
    const uint8_t *st = j->m[pi].st;
    const uint64_t base = p << PART_SHIFT;
    uint64_t found = 0, at[APPLY_AHEAD];
    for (int t = 0; t < j->nthreads; t++) {
        struct supdbuf *b = &j->supd[(size_t)t * j->nsparts + p];
        /* three steps APPLY_AHEAD entries apart: the counts of entry k
         * fetched, the slot of entry k - A found and its state fetched,
         * entry k - 2A applied (its at[] read before k - A's is written
         * there) */
        const size_t A = APPLY_AHEAD;
        for (size_t k = 0; k < b->n + 2 * A; k++) {
            if (k >= 2 * A) {
                uint64_t e = b->e[k - 2 * A];
                found += retro_update(j, pi, at[k % A], e & UPD_LOST, (unsigned)(e & UPD_MOVES),
                                      d, deep);
            }
            if (k >= A && k - A < b->n) {
                uint64_t e = b->e[k - A];
                at[k % A] = mmtb_ban_index_first(bx, base + (e >> SUPD_I_SHIFT)) +
                            ((e >> UPD_OFF_SHIFT) & 0xff) - 1;
                __builtin_prefetch(&st[at[k % A]], 1);
            }
            if (k < b->n)
                mmtb_ban_index_first_fetch(bx, base + (b->e[k] >> SUPD_I_SHIFT));
        }
        b->n = 0;
    }
    return found;
}

/* Both kinds of partition of the partner pa (member pi) at level d, each
 * kind applied whole before the other: a state's slot lies in a partition
 * of the first kind too. */
static uint64_t apply_all(struct job *j, int pi, unsigned d, struct vec64 *deep)
{
    uint64_t found = 0, nparts = (j->m[pi].slots >> PART_SHIFT) + 1;
#pragma omp for schedule(dynamic, 8)
    for (uint64_t p = 0; p < nparts; p++)
        found += apply_partition(j, pi, p, d, deep);
    if (j->supd && j->m[pi].bx) {
        uint64_t nsp = (mmtb_ban_index_base(j->m[pi].bx) >> PART_SHIFT) + 1;
#pragma omp for schedule(dynamic, 8)
        for (uint64_t p = 0; p < nsp; p++)
            found += apply_state_partition(j, pi, p, d, deep);
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
            lost = !st_win(me->st[i]);
        } else if (!want_loss || !want_win) {
            /* one state a level (a win's depth is odd, a loss's even):
             * memchr's vector loop finds the next */
            const uint8_t *q = memchr(me->st + i, want_loss | want_win, src->hi - i);
            if (!q)
                break;
            i = (uint64_t)(q - me->st);
            lost = want_loss != 0;
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
        if (me->bfirst) {
            bans_level_slot(j, me, pa, i, lost, bufs, j->bs[omp_get_thread_num()]);
            continue;
        }
        if (me->bx) {
            queue_preds_state(j, me, pa, i, lost, bufs, ps);
            continue;
        }
        uint32_t mover, opp;
        walk_to(j, &it, &walking, me->s, i, src->hi, &mover, &opp);
        queue_preds(j, me, pa, mover, opp, it.nstab, lost, bufs, ps);
    }
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
    const uint8_t want_loss = st_want(j, false, d), want_win = st_want(j, true, d);
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
 * A position costs forward somewhat more than backward (its successors'
 * states are cache misses; the backward updates are applied in cache), so
 * forward pays when fewer than 3/4 as many positions are counting as were
 * decided; that happens at the early even levels, where one side's
 * positions are nearly all settled (docs/PERFORMANCE.md has the
 * measurements).  Deep levels are backward: their state bytes do not tell
 * the depth.
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

/* The positions of unit of work c of member me at a level: chunk c, or
 * (deep levels, list) piece c of the sorted list; false when chunk c has
 * nothing decided at the level. */
static bool level_unit(const struct member *me, const uint64_t *list, size_t nlist,
                       uint64_t c, struct level_src *src)
{
    *src = (struct level_src){c * CHUNK, c * CHUNK + CHUNK, NULL, 0};
    if (list) {
        src->list = list + c * DEEP_PIECE;
        src->n = nlist - c * DEEP_PIECE < DEEP_PIECE ? nlist - c * DEEP_PIECE : DEEP_PIECE;
        src->lo = src->list[0] & (((uint64_t)1 << DEEP_SLOT_BITS) - 1);
        src->hi = me->slots;
    } else if (!me->flag_cur[c]) {
        return false;
    }
    if (src->hi > me->slots)
        src->hi = me->slots;
    return true;
}

/*
 * level_member on a split pair: this rank walks its own chunks (or its deep
 * positions of depth d, list), in rounds of a batch of chunks; after each
 * round it applies the updates of its own partitions of the partner and
 * exchanges the others' with the other ranks (split.c).  Every rank makes
 * as many rounds as the busiest one, so the exchanges pair up.  The result
 * is that of the whole pair: a level's updates commute.
 */
static int level_member_split(struct job *j, int mi, unsigned d, bool deep_level,
                              const uint64_t *list, size_t nlist, uint8_t want_loss,
                              uint8_t want_win, uint64_t *newly)
{
    struct member *me = &j->m[mi];
    const struct member *pa = &j->m[me->partner];
    const struct split *sp = j->sp;
    /* this rank's units of work: chunks of its range, or pieces of its list */
    uint64_t u0, u1;
    if (deep_level) {
        u0 = 0;
        u1 = (nlist + DEEP_PIECE - 1) / DEEP_PIECE;
    } else {
        u0 = sp->lo[mi] / CHUNK;
        u1 = (sp->hi[mi] + CHUNK - 1) / CHUNK;
    }
    /* the batches with work, in order */
    uint64_t nb = 0, cap = (u1 - u0 + BATCH_CHUNKS - 1) / BATCH_CHUNKS;
    uint64_t *batch = malloc((cap ? cap : 1) * sizeof *batch);
    if (!batch)
        return MMTB_ERR_NOMEM;
    for (uint64_t b0 = u0; b0 < u1; b0 += BATCH_CHUNKS) {
        uint64_t b1 = b0 + BATCH_CHUNKS < u1 ? b0 + BATCH_CHUNKS : u1;
        if (deep_level || memchr(me->flag_cur + b0, 1, b1 - b0))
            batch[nb++] = b0;
    }
    uint64_t rounds = nb;
    int rc = split_reduce(j, &rounds, 1, true);
    const uint64_t plo = sp->plo[me->partner][sp->rank], phi = sp->plo[me->partner][sp->rank + 1];
    uint64_t found = 0;
    for (uint64_t r = 0; r < rounds && rc == MMTB_OK; r++) {
        uint64_t b0 = r < nb ? batch[r] : u1, b1 = b0 + BATCH_CHUNKS < u1 ? b0 + BATCH_CHUNKS : u1;
        uint64_t here = 0;
#pragma omp parallel reduction(+ : here)
        {
            struct updbuf *bufs = &j->upd[(size_t)omp_get_thread_num() * j->nparts];
            struct pred_scratch *ps = &j->ps[omp_get_thread_num()];
            struct vec64 *deep = &j->deep_new[omp_get_thread_num()];
#pragma omp for schedule(dynamic, 16)
            for (uint64_t c = b0; c < b1; c++) {
                struct level_src src;
                if (!level_unit(me, list, nlist, c, &src))
                    continue;
                if (!list && src.hi > sp->hi[mi])
                    src.hi = sp->hi[mi];
                level_chunk(j, me, pa, &src, want_loss, want_win, bufs, ps);
            }
#pragma omp for schedule(dynamic, 8)
            for (uint64_t p = plo; p < phi; p++)
                here += apply_partition(j, me->partner, p, d, deep);
        }
        found += here;
        /* the others' updates of this rank's slots, applied one at a time
         * (two ranks may have sent updates of one slot) */
        uint64_t *got = NULL;
        size_t ngot = 0;
        rc = split_exchange_updates(j, me->partner, &got, &ngot);
        for (size_t k = 0; k < ngot; k++)
            found += retro_update(j, me->partner, got[k] >> 8, got[k] & UPD_LOST,
                                  (unsigned)(got[k] & UPD_MOVES), d, &j->deep_new[0]);
        free(got);
        if (rc == MMTB_OK && j->oom)
            rc = MMTB_ERR_NOMEM;
    }
    free(batch);
    count_decided(j, me->partner, d + 1, found);
    *newly += found;
    return rc;
}

/* level_member for a member with restrictions on bitboards (bans.c): its
 * units are the chunks of scheme 1 slots with their states. */
static void level_member_bans(struct job *j, int mi, unsigned d, uint8_t want_loss,
                              uint8_t want_win, uint64_t *newly)
{
    struct member *me = &j->m[mi];
    struct member *pa = &j->m[me->partner];
    const uint64_t nunits = me->nbchunks;
    uint64_t found = 0;
#pragma omp parallel reduction(+ : found)
    {
        struct updbuf *bufs = &j->upd[(size_t)omp_get_thread_num() * j->nparts];
        struct bans_scratch *bs = j->bs[omp_get_thread_num()];
        struct vec64 *deep = &j->deep_new[omp_get_thread_num()];
        for (uint64_t b0 = 0; b0 < nunits; b0 += BANS_BATCH_CHUNKS) {
            uint64_t b1 = b0 + BANS_BATCH_CHUNKS < nunits ? b0 + BANS_BATCH_CHUNKS : nunits;
#pragma omp for schedule(dynamic, 4)
            for (uint64_t c = b0; c < b1; c++)
                bans_level_unit(j, me, pa, c, want_loss, want_win, bufs, bs);
            found += apply_all(j, me->partner, d, deep);
        }
    }
    count_decided(j, me->partner, d + 1, found);
    *newly += found;
}

/* Propagate from every position of member mi decided at depth d. */
static int level_member(struct job *j, int mi, unsigned d, uint64_t *newly)
{
    struct member *me = &j->m[mi];
    if (me->partner < 0)
        return MMTB_OK;
    struct member *pa = &j->m[me->partner];
    /* nothing of mi decided at d, nothing to pass on (the early levels of
     * a pair whose exits are deep; a split rank's count is its own) */
    if (!j->sp && j->mhist[mi][d] == 0)
        return MMTB_OK;
    if (!j->sp && level_forward(j, mi, d)) {
        uint64_t found = forward_member(j, mi, d);
        count_decided(j, me->partner, d + 1, found);
        *newly += found;
        return MMTB_OK;
    }
    const uint64_t chunk = CHUNK;
    uint64_t nchunks = (me->slots + chunk - 1) / chunk;
    uint8_t want_loss = st_want(j, false, d), want_win = st_want(j, true, d);
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
        if (nlist == 0 && !j->sp)
            return MMTB_OK; /* nothing of this member at depth d (dl->e may be NULL) */
        list = nlist ? dl->e + a : NULL;
        nchunks = (nlist + DEEP_PIECE - 1) / DEEP_PIECE;
    }
    if (j->sp) /* (a split rank with none still takes part in the exchanges) */
        return level_member_split(j, mi, d, d >= j->deep_from, list, nlist, want_loss, want_win,
                                  newly);
    if (me->bfirst && !list) {
        level_member_bans(j, mi, d, want_loss, want_win, newly);
        return MMTB_OK;
    }
    uint64_t found = 0;
#pragma omp parallel reduction(+ : found)
    {
        struct updbuf *bufs = &j->upd[(size_t)omp_get_thread_num() * j->nparts];
        struct pred_scratch *ps = &j->ps[omp_get_thread_num()];
        struct vec64 *deep = &j->deep_new[omp_get_thread_num()];
        for (uint64_t b0 = 0; b0 < nchunks; b0 += BATCH_CHUNKS) {
            uint64_t b1 = b0 + BATCH_CHUNKS < nchunks ? b0 + BATCH_CHUNKS : nchunks;
            if (!list && !memchr(me->flag_cur + b0, 1, b1 - b0))
                continue; /* every thread skips alike: flag_cur is read-only here */
#pragma omp for schedule(dynamic, 16)
            for (uint64_t c = b0; c < b1; c++) {
                struct level_src src;
                if (!level_unit(me, list, nlist, c, &src))
                    continue;
                level_chunk(j, me, pa, &src, want_loss, want_win, bufs, ps);
            }
            found += apply_all(j, me->partner, d, deep);
        }
    }
    count_decided(j, me->partner, d + 1, found);
    *newly += found;
    return MMTB_OK;
}

/*
 * The buckets of level d: the outside results that take effect now, as
 * updates of the level (one counted move less, or a lost successor),
 * applied partition by partition like the levels' own, in rounds of every
 * stream (buckets.c).  Adds the positions decided to *newly; returns
 * MMTB_OK or MMTB_ERR_NOMEM.
 */
static int take_buckets(struct job *j, unsigned d, uint64_t *newly)
{
    int rc = buckets_load(j, (int)d); /* those written to disk, read back */
    if (rc != MMTB_OK)
        return rc;
    if (!buckets_any(j, (int)d))
        return MMTB_OK;
    struct bucket_cursor *cur = malloc((size_t)j->nthreads * sizeof *cur);
    if (!cur)
        return MMTB_ERR_NOMEM;
    const uint64_t rounds = buckets_rounds(j, (int)d);
    for (int mi = 0; mi < j->nm; mi++) {
        memset(cur, 0, (size_t)j->nthreads * sizeof *cur);
        const uint64_t nparts = (j->m[mi].slots >> PART_SHIFT) + 1;
        uint64_t found = 0;
#pragma omp parallel reduction(+ : found)
        {
            struct updbuf *bufs = &j->upd[(size_t)omp_get_thread_num() * j->nparts];
            struct vec64 *deep = &j->deep_new[omp_get_thread_num()];
            for (uint64_t r = 0; r < rounds; r++) {
#pragma omp for schedule(dynamic, 1)
                for (int s = 0; s < j->nthreads; s++)
                    buckets_scatter(j, (int)d, s, mi, &cur[s], bufs);
#pragma omp for schedule(dynamic, 8)
                for (uint64_t p = 0; p < nparts; p++)
                    found += apply_partition(j, mi, p, d, deep);
            }
        }
        count_decided(j, mi, d + 1, found);
        *newly += found;
    }
    free(cur);
    buckets_drop(j, (int)d);
    return j->oom ? MMTB_ERR_NOMEM : MMTB_OK;
}

/*
 * Before the levels: the positions of member mi still counting
 * (j->undecided), and the depths below deep_from that the init pass
 * decided in each chunk, a bit each (me->imask, two words a chunk).  Under
 * the depth to win the init pass decides positions at every depth up to
 * the deepest outside result, and the levels find them through the chunk
 * flags (flag_init_depth) instead of walking every chunk at each of those
 * levels.
 */
static int init_marks(struct job *j, int mi)
{
    struct member *me = &j->m[mi];
    const uint8_t *st = me->st;
    uint64_t u = 0, lo, hi;
    member_range(j, mi, &lo, &hi);
    uint64_t nchunks = (me->slots + CHUNK - 1) / CHUNK;
    free(me->imask);
    me->imask = calloc(2 * nchunks + 2, sizeof *me->imask);
    if (!me->imask)
        return MMTB_ERR_NOMEM;
    uint64_t c0 = lo / CHUNK, c1 = (hi + CHUNK - 1) / CHUNK;
#pragma omp parallel for reduction(+ : u) schedule(static)
    for (uint64_t c = c0; c < c1; c++) {
        uint64_t a = c * CHUNK > lo ? c * CHUNK : lo, b = (c + 1) * CHUNK < hi ? (c + 1) * CHUNK : hi;
        uint64_t m0 = 0, m1 = 0;
        for (uint64_t i = a; i < b; i++) {
            uint8_t x = st[i];
            u += x < ST_DRAWN;
            if (x >= ST_RESOLVED && x < ST_DEEP_LOSS) {
                unsigned dd = x - ST_RESOLVED;
                if (dd < 64)
                    m0 |= (uint64_t)1 << dd;
                else
                    m1 |= (uint64_t)1 << (dd - 64);
            }
        }
        me->imask[2 * c] = m0;
        me->imask[2 * c + 1] = m1;
    }
    j->undecided[mi] = u;
    return MMTB_OK;
}

/* Flag the chunks of me where the init pass decided positions at depth d
 * (< ST_DEEP_FROM), for level d. */
static void flag_init_depth(struct member *me, unsigned d)
{
    uint64_t nchunks = (me->slots + CHUNK - 1) / CHUNK, bit = (uint64_t)1 << (d & 63);
    for (uint64_t c = 0; c < nchunks; c++)
        if (me->imask[2 * c + (d >> 6)] & bit)
            me->flag_cur[c] = 1;
}

static int levels_from(struct job *j, int from);

/* The levels in order, from 0 to the deepest one with work: the buckets of
 * the level, then each member's decided positions, then the flags of the
 * next level. */
int levels_pass(struct job *j, int from)
{
    if (from >= 0)
        return levels_from(j, from);
    if (j->sp) {
        /* every rank goes through the same levels */
        uint64_t m[2] = {(uint64_t)j->any_inpair, (uint64_t)j->last_level};
        int rc = split_reduce(j, m, 2, true);
        if (rc != MMTB_OK)
            return rc;
        j->any_inpair = (int)m[0];
        j->last_level = (int)m[1];
    }
    /* The quiet-move relation is symmetric: without in-pair successors
     * there are no in-pair predecessors either (placement sectors). */
    if (!j->any_inpair)
        return MMTB_OK;
    for (int mi = 0; mi < j->nm; mi++)
        if (init_marks(j, mi) != MMTB_OK)
            return MMTB_ERR_NOMEM;
    return levels_from(j, 0);
}

/* The levels from level `from` on (a level's start is where the job may
 * be saved, and where a restored one goes on). */
static int levels_from(struct job *j, int from)
{
    for (int d = from; d <= j->last_level; d++) {
        if (ckpt_due(j))
            ckpt_save(j, d);
        if (!j->sp && ckpt_stopping())
            return MMTB_SOLVE_STOPPED; /* saved just now, unless checkpoints are off */
        if (d >= (int)MAX_DEPTH)
            return MMTB_ERR_UNSUPPORTED; /* depth beyond what the deep lists hold */
        if (d >= (int)j->deep_from && j->deep[d].n > 1)
            qsort(j->deep[d].e, j->deep[d].n, sizeof *j->deep[d].e, mmtb_cmp_u64);
        for (int mi = 0; mi < j->nm && d < (int)j->deep_from; mi++)
            flag_init_depth(&j->m[mi], (unsigned)d);
        uint64_t newly = 0;
        int brc = take_buckets(j, (unsigned)d, &newly);
        if (brc != MMTB_OK)
            return brc;
        for (int mi = 0; mi < j->nm; mi++) {
            int rc = level_member(j, mi, (unsigned)d, &newly);
            if (rc != MMTB_OK)
                return rc;
        }
        if (j->sp) {
            /* the others' news decide whether there is a next level */
            uint64_t v[2] = {newly, (uint64_t)j->oom};
            int rc = split_reduce(j, v, 2, true);
            if (rc != MMTB_OK)
                return rc;
            newly = v[0];
            if (v[1])
                return MMTB_ERR_NOMEM;
        }
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
        if (j->rule_err)
            return j->rule_err;
    }
    return MMTB_OK;
}

/* Gather each member's deep positions, slot << 14 | depth, in slot order,
 * for the writer. */
int levels_finish(struct job *j)
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
        qsort(me->deep, me->ndeep, sizeof *me->deep, mmtb_cmp_u64);
        /* one entry per deep state, or the writer would take wrong depths */
        uint64_t ndeep_st = 0, lo, hi;
        member_range(j, mi, &lo, &hi);
#pragma omp parallel for reduction(+ : ndeep_st) schedule(static)
        for (uint64_t i = lo; i < hi; i++)
            ndeep_st += me->st[i] >= ST_DEEP_LOSS;
        bool ok = ndeep_st == me->ndeep;
        for (size_t k = 0; ok && k < me->ndeep; k++)
            ok = me->st[me->deep[k] >> 14] >= ST_DEEP_LOSS &&
                 (k == 0 || me->deep[k] >> 14 != me->deep[k - 1] >> 14);
        if (!ok)
            return MMTB_ERR_INVALID;
    }
    return MMTB_OK;
}
