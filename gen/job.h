/*
 * job.h - private to the solver (gen/): one job, a sector pair being solved,
 * its working state byte per slot, the solved sectors it reads, and the
 * stages that work on it (deps.c, init.c with settle.c, levels.c, bans.c
 * for positions with re-close restrictions, values.c; pair.c runs them in
 * order, schedule.c orders the pairs).  solve.h stays the public interface;
 * nothing outside the solver includes this file.
 *
 * A slot is a position of the sector index (sector_index.h), or, where the
 * positions carry state (mmtb_ban_index_applies: Twelve's restrictions,
 * Shah's first-mill owner while placing), a position with its state in the
 * index with state (ban_index.h); every stage treats both alike but for
 * how it finds a slot's moves.
 *
 * A sector and its partner (same stones, other side to move) are solved
 * together, because quiet moves lead from one to the other (two placement
 * sectors, where no move does, are solved one after the other).  Every other
 * move leads into a sector solved earlier ("external"): captures, and in the
 * placement phase the placements.  Those are read back through libmmtb
 * (deps.c) and looked up by the init pass (init.c); the quiet moves are
 * resolved by the retrograde levels (levels.c).
 *
 * Working state, one byte per index slot:
 *   0x01..0x7d  unresolved; the number of in-pair moves (quiet moves into
 *               the partner sector) whose result is not yet known to be a
 *               win for the opponent (on movegen.c's per-position path:
 *               distinct successor slots), plus a bias of 1 per reason
 *               the position can no longer be lost
 *   0x7e        a draw that no in-pair result changes
 *   0x7f        slot not used by the index (non-canonical)
 *   0x80 + d    decided in d plies (d < ST_DEEP_FROM): a win when d is odd,
 *               a loss when d is even (the depth to win: the game ends with
 *               the loser to move, lost in 0)
 *   0xfe, 0xff  a loss, a win, in ST_DEEP_FROM plies or more
 * Deep depths are rare (nine 6-6: 62 K of 28.5 M decided positions): the
 * exact depth is in the job's list of deep positions for that level, which
 * is also what the levels from ST_DEEP_FROM on walk instead of the array.
 * Positions still unresolved at the end are draws.
 */
#ifndef MMTB_JOB_H
#define MMTB_JOB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ban_index.h"
#include "held.h"
#include "helpers.h"
#include "mmtb.h"
#include "mmtb_common.h"
#include "progress.h"
#include "sector_index.h"
#include "solve.h"
#include "succ.h"
#include "variant.h"
#include "vcode.h"

#define ST_UNUSED 0x7fu
#define ST_DRAWN 0x7eu /* a draw no update changes; every state >= this one is final */
#define ST_MAX_COUNT 0x7du
#define ST_RESOLVED 0x80u
#define ST_DEEP_FROM 126u /* depths from here on are in the deep lists */
#define ST_DEEP_LOSS 0xfeu
#define ST_DEEP_WIN 0xffu
#define MAX_DEPTH 0x3ffeu
#define MAX_LEVELS ((int)MAX_DEPTH + 2)
#define DEEP_SLOT_BITS 47 /* a deep entry: depth << 48 | member << 47 | slot */

#define CHUNK_SHIFT 12
#define CHUNK ((uint64_t)1 << CHUNK_SHIFT)
/* Scattered writes (the level updates, the by-opponent init) are queued
 * per partition of 2^PART_SHIFT slots, 512 KiB of state, applied in cache. */
#define PART_SHIFT 19
/* The init pass walks placement sectors by the side not to move in batches
 * of this many chunks, queueing one 8-byte write per slot (init.c). */
#define INIT_BATCH_CHUNKS 1024

/* A solved sector held in memory for look-ups. */
struct dep {
    struct mmtb_sector s;
    uint64_t slots;
    uint8_t *code;     /* value and depth a byte a slot (vcode.h) */
    struct vdeep deep; /* the depths too deep for the byte */
    /* code is held by the side NOT to move: the value of position (m, o) of
     * s is at the slot of (o, m) in the colour-swapped sector (see
     * dep_swap in deps.c) */
    bool swapped;
};

/* A growable array of 64-bit entries: the deep lists and the init pass's
 * queued writes. */
struct vec64 {
    uint64_t *e;
    size_t n, cap;
};

static inline bool vec64_push(struct vec64 *b, uint64_t x)
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
    /* Positions that carry state beyond their stones (the re-close
     * restrictions, Shah's first-mill owner: mmtb_ban_index_applies) are
     * numbered by this index, and the stages reach them as whole positions
     * through the rules of movegen.h (member_pos); NULL: the sector index,
     * and the bitboard rules of succ.h. */
    mmtb_ban_index *bx;
    /* with restrictions on bitboards (bans.c): the first slot of the
     * states of each chunk of scheme 1 slots, nbchunks + 1 of them */
    uint64_t *bfirst;
    uint64_t nbchunks;
    uint64_t slots;
    uint8_t *st;
    /* the init pass by the opponent's stones where nearly every position
     * keeps a bucket entry: each slot's bucket_code, held back so that the
     * entries go to the buckets in slot order (init_member_plain) */
    uint16_t *bpend;
    int partner; /* index of the partner member, or -1 */
    /* Per chunk of CHUNK slots: something was decided at the level being
     * processed (cur) / at the next level (next).  Levels past the deepest
     * value set by the init pass only scan flagged chunks. */
    uint8_t *flag_cur, *flag_next;
    /* the depths below ST_DEEP_FROM the init pass decided, two words a
     * chunk (levels.c) */
    uint64_t *imask;
    /* after the levels: every deep position, slot << 14 | depth, sorted */
    uint64_t *deep;
    size_t ndeep;
};

/* The levels' updates queued for one partition of a partner array
 * (levels.c): offset in the partition << UPD_OFF_SHIFT | UPD_LOST (the
 * position moved to is lost) | moves (UPD_MOVES: how many of the
 * predecessor's moves lead there). */
struct updbuf {
    uint32_t *e;
    size_t n, cap;
};
#define UPD_MOVES 0x7fu
#define UPD_LOST (1u << 7)
#define UPD_OFF_SHIFT 8

/* The levels' updates of states with restrictions (bans.c), queued by the
 * partition of their stones' scheme 1 slot i: the offset of i in the
 * partition << SUPD_I_SHIFT | 1 + the state's place among i's states
 * << UPD_OFF_SHIFT | UPD_LOST | moves.  The partition's applier finds the
 * state's slot (mmtb_ban_index_first of i, plus its place) where the
 * counts of i's neighbours are in cache, so the rank of a predecessor
 * reads none. */
struct supdbuf {
    uint64_t *e;
    size_t n, cap;
};
#define SUPD_I_SHIFT 16

/* The levels' per-thread scratch (levels.c, bans.c). */
struct pred_scratch;
struct bans_scratch;

/*
 * A pair split across the ranks of a transport (split.c): each member's
 * partitions (PART_SHIFT slots) are cut into nranks contiguous runs, run r
 * held by rank r.  This rank holds, inits and decides the slots [lo[i],
 * hi[i]) of member i; the level updates of other ranks' slots are sent to
 * them, and rank 0 writes the tables, fetching the others' values.
 */
struct split {
    const struct mmtb_transport *t;
    int rank, nranks;
    uint64_t lo[2], hi[2];
    uint64_t *plo[2];    /* member i: the first partition of rank r, [nranks + 1] */
    uint64_t *dplo[16];  /* the same for solved sector j->deps[k] */
    uint64_t sent_updates; /* bytes of level updates this rank sent */
    uint64_t sent_values;  /* bytes of compressed blocks it sent to rank 0 */
    uint64_t sent_lookups; /* bytes of init look-ups and their answers it sent */
    uint64_t round_peak;   /* the most bytes of updates a round sent and received */
    char err[256];       /* a failed transport call's message */
};

/* One job: a pair (or a lone sector) being solved, what every stage works on. */
struct job {
    const struct mmtb_variant *v;
    const mmtb_index *ix;
    struct member m[2];
    int nm;
    struct dep deps[16];
    int ndeps;
    /* members with state (bx): the solved sectors they read, whole, and
     * the tables, kept open through the init pass for the values no
     * table stores (Shah's openings, probed) */
    struct held held;
    mmtb_tb *tb;
    int rule_err;          /* a rules call failed inside a parallel region */
    const char *why;       /* an internal check that failed, said in the error */
    struct bstream *bst;   /* buckets.c: per thread and level */
    int spill_fd;          /* buckets.c: the file the streams go to, -1: memory only */
    uint64_t spill_end;    /* its bytes written */
    size_t spill_seg;      /* a stream goes there when it holds this many bytes */
    int spill_err;         /* a write or read of it failed inside a parallel region */
    uint64_t bucket_peak;  /* the buckets' bytes after the init pass (--verbose): */
    uint64_t bucket_written; /* their capacity, and the bytes written */
    uint64_t bucket_disk;  /* the bytes of them written to disk (spill_fd) */
    /* positions decided at depth >= deep_from: member << 47 | slot, per
     * depth, gathered from the per-thread lists of new ones */
    struct vec64 *deep;     /* [MAX_LEVELS] */
    struct vec64 *deep_new; /* per thread: depth << 48 | member << 47 | slot */
    int too_many;           /* a position has more in-pair moves than a counter holds */
    unsigned deep_from;     /* depths from here on are deep: ST_DEEP_FROM normally */
    uint64_t *mhist[2];    /* positions of each member decided per depth */
    uint64_t undecided[2]; /* positions of each member still counting */
    int forward;           /* -1: levels never forward, 1: whenever possible, 0: by cost */
    bool plain_init;       /* members with restrictions that none of their positions
                              carries: the plain init (sectors_plain_init) */
    bool base_blocks;      /* a placing member's states without restrictions by the
                              plain init (bans_base_by_blocks) */
    bool own_walk;         /* tests: placement sectors initialised in their own order */
    bool no_blocks;        /* tests: no block passes in the init (init.c) */
    size_t bucket_round;   /* bytes of a bucket stream per round (buckets.c) */
    int last_level;        /* deepest level with work known so far */
    int oom;               /* an allocation failed inside a parallel region */
    int any_inpair;        /* some position has an in-pair successor */
    struct progress *prog;
    /* level updates: nthreads * nparts buffers (levels_setup) */
    int nthreads;
    uint64_t nparts;
    struct updbuf *upd;
    /* state updates by their stones' slot: nthreads * nsparts buffers,
     * when the pair has restrictions and is not split (levels_setup) */
    uint64_t nsparts;
    struct supdbuf *supd;
    struct pred_scratch *ps; /* per thread */
    struct bans_scratch **bs; /* per thread, for bans.c's levels */
    struct split *sp;        /* NULL: this process holds the whole pair */
    struct {
        const char *dir;  /* the table directory (checkpoint.c) */
        char name[96];    /* NAME.ckpt: the members' sector names */
        double every;     /* seconds between saves; <= 0: none */
        double last;      /* when the pair began, or was last saved or restored */
        int kill_after;   /* tests: SIGKILL right after this many saves (0: never) */
        int saves;
        bool quiet, verbose;
    } ckpt;
};

/* ------------------------------------------------------ shared helpers */

/* A full update buffer e of *cap entries of `size` bytes, doubled: the
 * new array (*cap updated), or NULL with j->oom set when it cannot grow. */
static inline void *upd_grow(struct job *j, void *e, size_t *cap, size_t size)
{
    size_t nc = *cap ? 2 * *cap : 256;
    void *ne = realloc(e, nc * size);
    if (!ne)
        __atomic_store_n(&j->oom, 1, __ATOMIC_RELAXED);
    else
        *cap = nc;
    return ne;
}

/* Queue update e in buffer b (growing it; j->oom when it cannot). */
static inline void upd_push(struct job *j, struct updbuf *b, uint32_t e)
{
    if (b->n == b->cap) {
        uint32_t *ne = upd_grow(j, b->e, &b->cap, sizeof *ne);
        if (!ne)
            return;
        b->e = ne;
    }
    b->e[b->n++] = e;
}

/* Queue the update of slot q of the member whose partitions bufs holds:
 * a lost successor, or `moves` of its counted moves known to lose. */
static inline void upd_queue(struct job *j, struct updbuf *bufs, uint64_t q, bool lost,
                             uint32_t moves)
{
    uint32_t off = (uint32_t)(q & (((uint64_t)1 << PART_SHIFT) - 1));
    upd_push(j, &bufs[q >> PART_SHIFT],
             off << UPD_OFF_SHIFT | (lost ? UPD_LOST : moves & UPD_MOVES));
}

/* Queue the update of state `place` (1 + its place among the slot's
 * states, 1..255: the scheme 1 slot itself goes through upd_queue) of
 * scheme 1 slot i of the member whose state partitions sbufs holds. */
static inline void supd_queue(struct job *j, struct supdbuf *sbufs, uint64_t i, unsigned place,
                              bool lost, uint32_t moves)
{
    struct supdbuf *b = &sbufs[i >> PART_SHIFT];
    if (b->n == b->cap) {
        uint64_t *ne = upd_grow(j, b->e, &b->cap, sizeof *ne);
        if (!ne)
            return;
        b->e = ne;
    }
    uint64_t off = i & (((uint64_t)1 << PART_SHIFT) - 1);
    b->e[b->n++] = off << SUPD_I_SHIFT | (uint64_t)place << UPD_OFF_SHIFT |
                   (lost ? UPD_LOST : moves & UPD_MOVES);
}

/* The state byte a position decided at depth d has (a win when win), or 0,
 * a byte no decided position has, when the parity of d says otherwise. */
static inline uint8_t st_want(const struct job *j, bool win, unsigned d)
{
    if (win != (bool)(d & 1))
        return 0;
    return (uint8_t)(d < j->deep_from ? ST_RESOLVED + d : win ? ST_DEEP_WIN : ST_DEEP_LOSS);
}

/* The state byte of a position decided at depth d (a win when win); a win
 * at an even depth or a loss at an odd one is an error of the rules' model,
 * reported as j->rule_err. */
static inline uint8_t st_decided(struct job *j, bool win, unsigned d)
{
    if (win != (bool)(d & 1)) {
        __atomic_store_n(&j->why, "a win at an even depth or a loss at an odd one",
                         __ATOMIC_RELAXED);
        __atomic_store_n(&j->rule_err, MMTB_ERR_INVALID, __ATOMIC_RELAXED);
    }
    return (uint8_t)(d < j->deep_from ? ST_RESOLVED + d : win ? ST_DEEP_WIN : ST_DEEP_LOSS);
}

/* Whether the decided state byte x is a win. */
static inline bool st_win(uint8_t x)
{
    return x >= ST_DEEP_LOSS ? x == ST_DEEP_WIN : ((x - ST_RESOLVED) & 1);
}

/*
 * Sectors of the re-close rule where both sides still have stones in hand
 * (and no stone slides while others are in hand): no position there
 * carries a restriction (they are earned and carried only by slides), and
 * each move is a placement, which earns none and leaves the opponent none
 * to carry, so it leads to its successor's own scheme 1 slot even where
 * that sector has restriction states.  Their init is the plain one
 * (init_member_plain, with the block pass), reading the solved sectors'
 * scheme 1 slots; their index with restrictions stays, for the writer.
 */
static inline bool sectors_plain_init(const struct mmtb_variant *v, const struct mmtb_sector *ss,
                                      int nss)
{
    if (!v->no_reclose || v->first_mill_removal || v->place_or_move || !succ_models_bans(v))
        return false;
    for (int i = 0; i < nss; i++)
        if (ss[i].w_hand == 0 || ss[i].b_hand == 0)
            return false;
    return true;
}

/* Does the job's first member carry state?  (Both do, or neither.) */
static inline bool job_has_state(const struct job *j)
{
    return j->m[0].bx != NULL;
}

/* The whole position of slot `slot` of member me (with state), White to
 * move as the sector's side to move. */
static inline void member_pos(const struct member *me, uint64_t slot, struct mmtb_pos *p)
{
    memset(p, 0, sizeof *p);
    p->side = MMTB_WHITE;
    p->hand[0] = me->s.w_hand;
    p->hand[1] = me->s.b_hand;
    mmtb_ban_index_unrank_pos(me->bx, slot, p);
}

/* Sort a[0..n) and drop repeats; returns the new count (a position's moves
 * by insertion, its unmoves with restrictions, thousands, by qsort). */
static inline int u64_sort_unique(uint64_t *a, int n)
{
    if (n > 64) {
        qsort(a, (size_t)n, sizeof *a, mmtb_cmp_u64);
    } else {
        for (int i = 1; i < n; i++) {
            uint64_t x = a[i];
            int k = i;
            for (; k > 0 && a[k - 1] > x; k--)
                a[k] = a[k - 1];
            a[k] = x;
        }
    }
    int u = 0;
    for (int i = 0; i < n; i++)
        if (u == 0 || a[u - 1] != a[i])
            a[u++] = a[i];
    return u;
}

/* The member that is sector s, or -1. */
static inline int member_of(const struct job *j, struct mmtb_sector s)
{
    for (int i = 0; i < j->nm; i++)
        if (mmtb_sector_eq(j->m[i].s, s))
            return i;
    return -1;
}

/* The solved sector s, or NULL. */
static inline const struct dep *dep_of(const struct job *j, struct mmtb_sector s)
{
    for (int i = 0; i < j->ndeps; i++)
        if (mmtb_sector_eq(j->deps[i].s, s))
            return &j->deps[i];
    return NULL;
}

/* Note that slot (member mi) was decided at depth d >= deep_from. */
static inline bool deep_push(struct vec64 *v, int mi, uint64_t slot, unsigned d)
{
    return vec64_push(v, (uint64_t)d << 48 | (uint64_t)mi << DEEP_SLOT_BITS | slot);
}

/* Raise j->last_level to at least d.  Threads of the init pass raise it
 * from bucket_add and a critical section (tally_init_depths'), so it is
 * an atomic maximum: a lost raise would leave a bucket's level unvisited. */
static inline void raise_last_level(struct job *j, int d)
{
    int cur = __atomic_load_n(&j->last_level, __ATOMIC_RELAXED);
    while (d > cur &&
           !__atomic_compare_exchange_n(&j->last_level, &cur, d, false, __ATOMIC_RELAXED,
                                        __ATOMIC_RELAXED))
        ;
}

/*
 * buckets.c: the outside results that take effect at a later level, entry
 * slot << 2 | member << 1 | is_win.  buckets_setup after j->nthreads is set;
 * bucket_add from any thread of a parallel region (sets j->oom when out of
 * memory; raises j->last_level).  The levels take a level in rounds:
 * buckets_rounds of them, each stream's round r decoded into update
 * buffers by buckets_scatter (round after round with one cursor per stream
 * and member, starting zeroed), the entries of member mi only, as updates
 * of 1 move (or lost); then buckets_drop empties the level.  buckets_any:
 * whether the level holds an entry.  buckets_bytes: the memory they hold
 * (the streams' capacity), and in *written the bytes written (what is
 * resident: a stream's capacity beyond them is not touched).
 *
 * With buckets_spill_open (a pair over its memory, pair_memory_fit), a
 * stream's bytes go to that file (created and unlinked at once, so that
 * nothing of it outlives the process) a segment at a time as they are
 * written (seg bytes or more; 0: 1 MiB), and buckets_load reads a level's back before the levels take
 * it: the same bytes, so the same tables.  buckets_load returns MMTB_OK,
 * MMTB_ERR_NOMEM or MMTB_ERR_IO; a failed write sets j->spill_err.
 * buckets_spilled: the bytes written to the file.
 */
struct bstream;
#define BUCKET_ROUND ((size_t)1 << 20) /* bytes of a stream per round (default) */
struct bucket_cursor {
    size_t at, i; /* the round's first byte, the next entry's */
    uint64_t last;
};
int buckets_setup(struct job *j);
int buckets_spill_open(struct job *j, const char *path, size_t seg);
void buckets_free(struct job *j);
void bucket_add(struct job *j, int level, uint64_t entry);
bool buckets_any(const struct job *j, int level);
uint64_t buckets_rounds(const struct job *j, int level);
void buckets_scatter(struct job *j, int level, int stream, int mi, struct bucket_cursor *c,
                     struct updbuf *bufs);
void buckets_drop(struct job *j, int level);
int buckets_load(struct job *j, int level);
uint64_t buckets_bytes(const struct job *j, uint64_t *written);
uint64_t buckets_spilled(const struct job *j);
/* For checkpoint.c: thread t's stream of a level, its bytes in *b (*n of
 * them; in *owned, malloc'd, to be freed, when read back from the file,
 * else NULL), MMTB_OK, MMTB_ERR_NOMEM or MMTB_ERR_IO; and a saved stream's
 * bytes b (malloc'd, n of them; taken, and freed when not kept) put back
 * as thread t's stream (appended, coded again, when t holds one of that
 * level already: the saving run had more threads).  buckets_restore
 * returns MMTB_OK, MMTB_ERR_NOMEM, or MMTB_ERR_CORRUPT when the bytes end
 * inside an entry. */
int buckets_stream(const struct job *j, int level, int t, const uint8_t **b, size_t *n,
                   uint8_t **owned);
int buckets_restore(struct job *j, int level, int t, uint8_t *b, size_t n);

/* A bucket entry of a position held back (settle_state's defer): level
 * (1..MAX_LEVELS-1) and is_win in 16 bits, never 0.  buckets_add_codes:
 * the entries of member mi's slots whose code[] is not 0, added in slot
 * order (each thread a contiguous run of them, so every stream stays in
 * order and its varints short), from a parallel region's threads. */
static inline uint16_t bucket_code(int level, int win)
{
    return (uint16_t)((unsigned)level << 1 | (unsigned)win);
}
void buckets_add_codes(struct job *j, int mi, const uint16_t *code, uint64_t n);

/* Whether nearly every position of sector s keeps a bucket entry: where
 * stones may slide while others are in hand and the side to move has some,
 * a placement deeper than one ply (the init holds those entries back,
 * init_member_plain; pair_memory plans them). */
static inline bool buckets_dense(const struct mmtb_variant *v, struct mmtb_sector s)
{
    return v->place_or_move && s.w_hand > 0;
}

/* Add one thread's count of the positions of member mi its init pass
 * decided, per depth up to maxd (hist may be NULL), to the job's; call
 * inside `omp critical(mmtb_hist)`. */
static inline void tally_init_depths(struct job *j, int mi, const uint64_t *hist, int maxd)
{
    for (int d = 0; hist && d <= maxd; d++)
        j->mhist[mi][d] += hist[d];
    raise_last_level(j, maxd);
}

/* Move the deep positions the threads found into the per-depth lists. */
static inline int deep_collect(struct job *j)
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

/* The slots of member mi this process holds: [*lo, *hi). */
static inline void member_range(const struct job *j, int mi, uint64_t *lo, uint64_t *hi)
{
    *lo = j->sp ? j->sp->lo[mi] : 0;
    *hi = j->sp ? j->sp->hi[mi] : j->m[mi].slots;
}

/* A successor in an already solved sector, ranked, waiting for its value
 * (init.c), or with its value already known (have: from another rank of a
 * split pair, or read by the init of positions with state). */
struct ext_look {
    const struct dep *d;
    uint64_t r;
    bool have; /* w and dtw hold the value */
    uint8_t w;
    uint16_t dtw;
};

/*
 * settle.c: the state byte of position `slot` of member mi from its n
 * outside successors ext[0..n) (their values read or known) and its nin
 * in-pair moves still open; queues the outside result deeper than 1 in
 * the buckets (buckets.c), or with defer leaves it in *defer as its
 * bucket_code (0: none) for the caller to queue.  *resolved_depth: the
 * depth decided, or -1.
 */
uint8_t settle_state(struct job *j, int mi, uint64_t slot, int nin, int n,
                     const struct ext_look *ext, int *resolved_depth, uint16_t *defer);

/* ------------------------------------------------------------ the stages */

/*
 * deps.c: list the solved sectors the moves of the pair lead to (j->deps,
 * with the depths only where a placement that removes nothing leads),
 * read them from the table directory dir through libmmtb, and, when swap,
 * re-file those only captures lead into by the side not to move.  Returns
 * MMTB_OK or a status (a message in err when a file cannot be read).
 */
int deps_load(struct job *j, const char *dir, bool swap, char *err, size_t errlen);

/* deps.c: the bytes deps_load(j, ..., swap) will hold at its peak (j's
 * members set; j itself is not changed). */
uint64_t deps_bytes(const struct job *j, bool swap);

/* deps.c: the same for a pair with state: the solved sectors read whole
 * into j->held, the tables left open in j->tb (Shah's openings, which no
 * table stores, are probed there). */
int deps_load_held(struct job *j, const char *dir, char *err, size_t errlen);
/* deps.c: the held sectors' scheme 1 slots seen as the job's solved sectors
 * (on), for the plain init of a member's states without restrictions
 * (bans_base_by_blocks); off before deps_free, which frees what deps own. */
void deps_view_held(struct job *j, bool on);

/* The slots sector s has with its restrictions, as the memory plans count
 * them: exactly up to 4 M positions, beyond from a sample of 2^18 (within
 * 1 % on twelve-nine's large sectors, format/ban_index.h), so that a plan
 * of twelve's 1,586 sectors takes seconds. */
static inline uint64_t plan_state_slots(const mmtb_index *ix, struct mmtb_sector s)
{
    uint64_t base = mmtb_index_slots(ix, s);
    return mmtb_ban_index_count(ix, s, base <= ((uint64_t)1 << 22) ? base : (uint64_t)1 << 18,
                                NULL);
}

/* deps.c: what deps_load_held will hold, in bytes (plan_state_slots of
 * each sector with restrictions; j's members set). */
uint64_t deps_held_bytes(const struct job *j);

/* deps.c: release the solved sectors' arrays. */
void deps_free(struct job *j);

/* init.c: true when member me is walked grouped by the side not to move
 * (placement sectors); the others are walked in their own slot order. */
bool init_by_opponent(const struct job *j, const struct member *me);

/*
 * init.c: the first state byte of every slot of every member, from the
 * terminal rules and the external successors' values; queues the deeper
 * external results in the buckets.  Returns MMTB_OK, MMTB_ERR_NOMEM,
 * MMTB_ERR_UNSUPPORTED (a position has more in-pair moves than a counter
 * holds) or MMTB_ERR_INVALID (canonical slots missed).
 */
int init_pass(struct job *j);

/*
 * bans.c: the positions with re-close restrictions on bitboards, grouped by
 * their stones, where the variant's other rules are those succ.c models
 * (succ_models_bans; a job with state of another variant goes through the
 * per-position path of init.c and levels.c).  bans_setup: each member's
 * bfirst (after the indexes are built); bans_init_member: the init pass of
 * member mi; bans_level_unit: the level work of chunk c of scheme 1 slots
 * of member me (its states' predecessors in pa queued in bufs, as
 * levels.c's level_chunk does).  Statuses as init_pass.
 */
bool bans_job(const struct job *j);
bool bans_base_by_blocks(const struct job *j, const struct member *me);
int bans_setup(struct job *j);
int bans_init_member(struct job *j, int mi);
struct bans_scratch *bans_scratch_new(const struct mmtb_variant *v);
void bans_scratch_free(struct bans_scratch *b);
void bans_level_unit(struct job *j, const struct member *me, const struct member *pa, uint64_t c,
                     uint8_t want_loss, uint8_t want_win, struct updbuf *bufs,
                     struct bans_scratch *b);
/* bans.c: the same for one decided slot (the deep levels' lists). */
void bans_level_slot(struct job *j, const struct member *me, const struct member *pa,
                     uint64_t slot, bool lost, struct updbuf *bufs, struct bans_scratch *b);

/* levels.c: the levels' update buffers and scratch for j->nthreads threads
 * (once the members are set).  Returns MMTB_OK or MMTB_ERR_NOMEM. */
int levels_setup(struct job *j);

/* levels.c: resolve the in-pair moves level by level, from level 0, or
 * from level `from` of a job restored from its checkpoint (from >= 0;
 * -1: a job fresh from its init pass); saves the job at a level's start
 * when its checkpoint is due.  Returns MMTB_OK, MMTB_ERR_NOMEM or
 * MMTB_ERR_UNSUPPORTED (a depth beyond MAX_DEPTH), or MMTB_SOLVE_STOPPED at a
 * level's start once the run is to stop (ckpt_stopping; saved first). */
int levels_pass(struct job *j, int from);

/*
 * checkpoint.c: a pair's level state saved in the table directory as
 * NAME.ckpt and restored from it.  ckpt_setup: after job_setup, names the
 * file and starts the interval (every seconds; <= 0: never saved).
 * ckpt_due: whether a save is due (never for a split pair).  ckpt_save:
 * the job as it is at the start of level `level`; a failure is reported on
 * stderr (unless quiet) and ends the saves, never the solve.  ckpt_load:
 * the job from NAME.ckpt, after job_setup and before anything is solved:
 * MMTB_OK with the level to go on from in *level, MMTB_ERR_MISSING when
 * there is none, another status when it is of another pair, variant or
 * version, or damaged (reported; the job's arrays are then overwritten in
 * part, and the caller sets the job up again).  ckpt_remove: the file (and
 * a save's NAME.ckpt.tmp a kill left), before the pair's tables are written.
 */
void ckpt_setup(struct job *j, const char *dir, double every, int kill_after, bool quiet);
/* The checkpoint's file name of the pair ss[0..nss): "9-8+8-9.ckpt".  And
 * the level a checkpoint of that pair in dir goes on from, read from its
 * header only (the rest is checked when it is restored), or -1 when there
 * is none of this version (--plan). */
void ckpt_file_name(const struct mmtb_sector *ss, int nss, char *buf, size_t len);
int ckpt_peek(const char *dir, const struct mmtb_sector *ss, int nss);
bool ckpt_due(const struct job *j);
void ckpt_save(struct job *j, int level);
/* The run stops at (or after) progress_now() time t (0: never): ckpt_due
 * then says a save is due, and ckpt_stopping that the run is to stop
 * (--stop-after).  Process-wide, as the signal's request. */
void ckpt_stop_at(double t);
bool ckpt_stopping(void);
int ckpt_load(struct job *j, int *level);
void ckpt_remove(const struct job *j);

/* levels.c: each member's deep positions in slot order for the writer
 * (member.deep), checked against the state bytes.  Returns MMTB_OK,
 * MMTB_ERR_NOMEM or MMTB_ERR_INVALID. */
int levels_finish(struct job *j);

/* levels.c: the scratch levels_setup allocates per thread, in bytes (with
 * the unmove buffers of positions with state when state). */
uint64_t levels_scratch_bytes(bool state);

/* levels.c: release what levels_setup allocated. */
void levels_free(struct job *j);

/*
 * pair.c: solve one pair ss[0..nss) (or a lone sector, nss 1) of variant v
 * from the solved sectors in o->outdir, and write its tables there (split:
 * together with the other ranks of o->transport, split.c);
 * stats[i] receives the statistics of ss[i].  tag names the pair in the
 * progress display and the --verbose phase times.  Returns MMTB_OK or a
 * status with a message in err.
 */
int pair_solve(const struct mmtb_solve_opts *o, const struct mmtb_variant *v,
               const mmtb_index *ix, const struct mmtb_sector *ss, int nss, bool split,
               bool spill,
               struct mmtb_sector_stats *stats, struct progress *prog, const char *tag,
               char *err, size_t errlen);

/* What a pair needs in memory, in bytes, by part (pair_memory). */
struct pair_mem {
    uint64_t state;  /* the members' state bytes and chunk flags */
    uint64_t buckets; /* the outside results that wait for their level (buckets.c) */
    uint64_t deps;   /* the solved sectors it reads, at their peak */
    uint64_t work;   /* the init pass's queued writes (placement sectors);
                      * the levels' update buffers and the writer's scratch:
                      * an allowance per thread, from measurements */
    uint64_t total;
    uint64_t slots;  /* the members' slots (with restrictions, if any) */
    uint64_t buckets_disk; /* with spill: the buckets' bytes on disk instead */
    bool spill;      /* the buckets go to disk (pair_memory_fit) */
    bool plain_init; /* restrictions that none of its positions carries: the
                      * plain init (sectors_plain_init) */
};

/*
 * pair.c: what solving pair ss[0..nss) with the options o and the current
 * OpenMP thread count needs on top of what the process already holds
 * (the index tables): *out, by part; with nsplit > 1, what one of nsplit
 * ranks needs for its part of the pair split among them.  Allocates
 * nothing.
 */
void pair_memory(const struct mmtb_solve_opts *o, const struct mmtb_variant *v,
                 const mmtb_index *ix, const struct mmtb_sector *ss, int nss, int nsplit,
                 struct pair_mem *out);
/* Whether a pair planned *pm (nsplit ranks), with base bytes held by the
 * process already, keeps its buckets on disk: when they are forced there
 * (o->buckets_to_disk > 0), or when the pair would be over o->memory_limit
 * (without one, 90 % of the machine's memory) with them in memory and
 * never (< 0) or split; then pm->spill is set and its buckets and total
 * are what stays in memory. */
void pair_memory_fit(const struct mmtb_solve_opts *o, uint64_t base, int nsplit,
                     struct pair_mem *pm);

/*
 * split.c: cut the members of j among the transport's ranks (j->sp, with
 * the ranges), and release it.  split_setup returns MMTB_OK or
 * MMTB_ERR_NOMEM.
 */
int split_setup(struct job *j, const struct mmtb_transport *t);
void split_free(struct job *j);

/* split.c: the rank holding partition p of member mi. */
int split_owner(const struct split *sp, int mi, uint64_t p);

/* split.c: cut a sector of `slots` slots among the ranks: (*plo)[r] the
 * first partition of rank r (malloc'd, nranks + 1 entries); this rank's
 * slots in [*lo, *hi).  Returns MMTB_OK or MMTB_ERR_NOMEM. */
int split_cut(const struct split *sp, uint64_t slots, uint64_t **plo, uint64_t *lo,
              uint64_t *hi);

/* split.c: the rank holding slot r of solved sector j->deps[k]. */
static inline int split_dep_owner(const struct split *sp, int k, uint64_t r)
{
    uint64_t p = r >> PART_SHIFT;
    int o = 0;
    while (o + 1 < sp->nranks && p >= sp->dplo[k][o + 1])
        o++;
    return o;
}

/* split.c: v[0..n) combined over the ranks (sum, or maximum when max). */
int split_reduce(struct job *j, uint64_t *v, int n, bool max);

/*
 * split.c: send the level updates this rank found for partitions of
 * member pi that other ranks hold (j->upd, which it empties) to them, and
 * receive those the others found for this rank's (one exchange among all
 * ranks): *got, malloc'd, *ngot entries, each slot << 8 | the low byte of
 * the update (UPD_LOST | moves), every slot checked to be this rank's.
 * Returns MMTB_OK or a status (j->sp->err says what failed).
 */
int split_exchange_updates(struct job *j, int pi, uint64_t **got, size_t *ngot);

/*
 * split.c: write the members' tables from all ranks' states (rank 0
 * writes, fetching the others' values; they serve them) and give every
 * rank the statistics.  Returns MMTB_OK or a status with a message in err.
 */
int split_write(struct job *j, const struct mmtb_solve_opts *o, const struct mmtb_sector *ss,
                struct mmtb_sector_stats *stats, char *err, size_t errlen);

/* values.c: the table values of member me's slots [first, first + count)
 * from the states the levels left (and the deep list of levels_finish),
 * for the writers (pair.c, split.c); called in parallel for disjoint
 * ranges. */
void state_values(const struct member *me, uint64_t first, uint64_t count, uint8_t *wdl,
                  uint16_t *dtw);

#endif
