/*
 * verify.c - `mmtb-gen verify`: re-derives every stored value of a table
 * directory from its successors, one ply forward, and counts disagreements
 * (Gasser's consistency check).  Wins and losses carry their depth, so a
 * wrong win or loss cannot hide; a draw is checked for having a drawing and
 * no winning move.  Reads tables only through libmmtb: each sector and the
 * sectors its moves lead to are read whole into memory first, and the
 * successors' look-ups of a batch of positions are started together; the
 * plain sectors are walked grouped by the side not to move, which keeps
 * those look-ups in a few cached blocks.  With a ledger (ledger.h) the
 * sectors it records clean, with the same files, are not checked again.
 */
#include "solve.h"

#include <errno.h>
#include <fcntl.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ban_index.h"
#include "held.h"
#include "helpers.h"
#include "ledger.h"
#include "mmtb.h"
#include "movegen.h"
#include "progress.h"
#include "sectorio.h"
#include "sector_index.h"
#include "succ.h"
#include "tablefile.h"
#include "tablewrite.h"
#include "variant.h"

/* Hold sector s and the sectors its moves lead to in h; on failure err
 * names the file that could not be read. */
static int hold_with_successors(mmtb_tb *tb, const mmtb_index *ix, struct mmtb_sector s,
                                struct held *h, char *err, size_t errlen)
{
    struct mmtb_sector t[8], at = s; /* at: the sector being read */
    int nt = mmtb_sector_moves_to(mmtb_tb_variant(tb), s, t);
    char why[256] = "";
    int rc = held_load(h, tb, ix, s, why, sizeof why);
    for (int k = 0; k < nt && rc == MMTB_OK; k++)
        rc = held_load(h, tb, ix, at = t[k], why, sizeof why);
    if (rc != MMTB_OK) {
        struct mmtb_sector_info info = {0};
        int ai = mmtb_tb_sector_find(tb, at);
        if (ai >= 0)
            mmtb_tb_sector_info(tb, ai, &info);
        char name[32], an[32];
        mmtb_sector_format(s, name, sizeof name);
        mmtb_sector_format(at, an, sizeof an);
        snprintf(err, errlen, "sector %s: %s %s cannot be read: %s", name,
                 mmtb_sector_eq(at, s) ? "its table" : "the table of its successor", an,
                 why[0] ? why : info.detail[0] ? info.detail : mmtb_strerror(rc));
        held_free(h);
    }
    return rc;
}

/* A successor of a position being derived, ranked in its loaded sector. */
struct look {
    const struct held_sector *l;
    uint64_t r;
};

/* A position of a batch: its slot, its looks lk[first .. first + nl), and
 * what its moves already said: a move that wins at once (win1), or a
 * value by the rules (w >= 0); no move at all is no look and no win1. */
struct pending {
    uint64_t slot;
    uint32_t first, nl;
    int w, d;
    bool win1;
};

/* Positions derived together: every successor of a batch is ranked and its
 * look-up started (cache misses in arrays of gigabytes) before any is
 * read, so that many misses are in flight at once. */
#define BATCH_POS 128
#define BATCH_LOOKS ((uint32_t)1 << 16)
#define OWN_GROUP 16 /* positions whose own slots are ranked together */

/*
 * The movers of successors prepared for ranking (mmtb_index_mover_prepare),
 * kept by sector and mover set with the held sector they lie in.  The walk
 * goes by the side not to move, O: the successors of one block of it have
 * O as their mover (the moves that remove nothing) or O less one stone
 * (the captures), so each mover is prepared once a block instead of once a
 * successor.  Direct-mapped: an entry is replaced by the next key that
 * maps to it.
 */
#define VPREP_BITS 6
struct vprep {
    struct vprep_e {
        uint64_t key; /* vprep_key, 0: empty */
        const struct held_sector *l;
        struct mmtb_index_mover m;
        uint64_t block; /* mmtb_index_plain_block of the mover */
    } e[1 << VPREP_BITS];
    struct vprep_e *last; /* the entry found last (a run of quiet moves) */
};

/* The sector's four counts and the mover set; never 0, since a sector
 * where moves lead has stones on the board or in hand. */
_Static_assert(sizeof(struct mmtb_sector) == 4, "a sector packs into 32 bits");
static inline uint64_t vprep_key(struct mmtb_sector t, uint32_t mover)
{
    uint32_t x;
    memcpy(&x, &t, sizeof x);
    return (uint64_t)x << 32 | mover;
}

/* The entry of (t, mover), prepared now if it is not there; NULL when
 * sector t is not held. */
static inline const struct vprep_e *vprep_get(struct vprep *pc, const mmtb_index *ix,
                                              const struct held *h, struct mmtb_sector t,
                                              uint32_t mover)
{
    uint64_t key = vprep_key(t, mover);
    if (pc->last && pc->last->key == key)
        return pc->last;
    struct vprep_e *e = &pc->e[((key ^ key >> 29) * 0x9e3779b97f4a7c15ull) >> (64 - VPREP_BITS)];
    if (e->key != key) {
        const struct held_sector *l = held_find(h, t);
        if (!l)
            return NULL;
        e->key = key;
        e->l = l;
        mmtb_index_mover_prepare(ix, t, mover, &e->m);
        e->block = mmtb_index_plain_block(ix, t, mover);
    }
    return pc->last = e;
}

/* Append the successor at slot r of held sector l to the batch, its read
 * started. */
static inline void look_push(struct look *lk, uint32_t *nlk, struct pending *pd,
                             const struct held_sector *l, uint64_t r)
{
    __builtin_prefetch(&l->code[r]);
    lk[(*nlk)++] = (struct look){l, r};
    pd->nl++;
}

/*
 * derive_begin's successors of a placing side (s.w_hand > 0, stones in hand
 * that cannot slide), from the placements' masks (succ_placements): the
 * placements that remove nothing lead to the opponent's block of their
 * sector, where their slots follow from ours without ranking each
 * (mmtb_index_rank_added) when that block is plain; each capture is ranked
 * from its prepared mover.  Returns 0, -1 (a sector not held), or 1,
 * having added nothing, when it leaves the position to the general path (a
 * placement that wins at once, a capture that wins, no placement at all).
 */
static int derive_placements(const struct mmtb_variant *v, const mmtb_index *ix,
                             struct mmtb_sector s, uint32_t mover, uint32_t opp,
                             const struct held *h, struct vprep *pc, struct look *lk,
                             uint32_t *nlk, struct pending *pd)
{
    uint32_t quiet, closers, removable;
    if (succ_placements(v, s, mover, opp, &quiet, &closers, &removable))
        return 1;
    struct mmtb_sector qt = {s.b, (uint8_t)(s.w + 1), s.b_hand, (uint8_t)(s.w_hand - 1)};
    struct mmtb_sector ct = {(uint8_t)(s.b - 1), (uint8_t)(s.w + 1), s.b_hand,
                             (uint8_t)(s.w_hand - 1)};
    if ((closers && ct.w + ct.w_hand < v->min_stones) || !(quiet | closers))
        return 1;
    if (quiet) {
        const struct vprep_e *e = vprep_get(pc, ix, h, qt, opp);
        if (!e)
            return -1;
        if (e->block != UINT64_MAX) {
            uint32_t rel[MMTB_MAX_POINTS];
            int k = mmtb_index_rank_added(ix, opp, mover, quiet, rel);
            for (int i = 0; i < k; i++)
                look_push(lk, nlk, pd, e->l, e->block + rel[i]);
        } else {
            for (uint32_t q = quiet; q; q &= q - 1)
                look_push(lk, nlk, pd, e->l,
                          mmtb_index_rank_prepared(ix, &e->m, mover | (q & -q)));
        }
    }
    for (uint32_t c = closers; c; c &= c - 1) {
        uint32_t nm = mover | (c & -c);
        for (uint32_t r = removable; r; r &= r - 1) {
            const struct vprep_e *e = vprep_get(pc, ix, h, ct, opp ^ (r & -r));
            if (!e)
                return -1;
            look_push(lk, nlk, pd, e->l, mmtb_index_rank_prepared(ix, &e->m, nm));
        }
    }
    return 0;
}

/*
 * Start deriving the position (mover, opp) of sector s into pd (whose slot
 * the caller sets): the rules' verdict, or its successors ranked,
 * prefetched and appended to lk (from *nlk on).
 * Returns 0, or -1 when a successor sector is not loaded (cannot check).
 * sc has room for MMTB_MAX_MOVES.
 */
static int derive_begin(const struct mmtb_variant *v, const mmtb_index *ix, struct mmtb_sector s,
                        uint32_t mover, uint32_t opp, const struct held *h, struct vprep *pc,
                        struct succ *sc, struct look *lk, uint32_t *nlk, struct pending *pd)
{
    pd->first = *nlk;
    pd->nl = 0;
    pd->win1 = false;
    pd->w = -1;
    pd->d = 0;
    int term = succ_terminal(v, s, mover, opp);
    if (term == MMTB_LOSS || term == MMTB_DRAW) {
        pd->w = term == MMTB_LOSS ? 0 : 1;
        return 0;
    }
    if (s.w_hand > 0 && !v->place_or_move) {
        int rc = derive_placements(v, ix, s, mover, opp, h, pc, lk, nlk, pd);
        if (rc < 0)
            *nlk = pd->first;
        if (rc <= 0)
            return rc;
    }
    int n = succ_generate(v, s, mover, opp, sc);
    for (int i = 0; i < n; i++) {
        if (sc[i].kind == SUCC_WIN) {
            pd->win1 = true;
            continue;
        }
        const struct vprep_e *e = vprep_get(pc, ix, h, sc[i].t, sc[i].mover);
        if (!e) {
            *nlk = pd->first;
            return -1;
        }
        look_push(lk, nlk, pd, e->l, mmtb_index_rank_prepared(ix, &e->m, sc[i].opp));
    }
    return 0;
}

/* The value of a position from its successors' values: the quickest win,
 * else a draw, else the slowest loss (0 plies with no successor).  Each
 * successor is added with its own value for its side to move (0 loss, 1
 * draw, 2 win) and depth. */
struct vbest {
    int best_win, worst_loss;
    bool draw;
};

static inline void vbest_add(struct vbest *b, int wdl, int depth)
{
    if (wdl == 0)
        b->best_win = !b->best_win || depth + 1 < b->best_win ? depth + 1 : b->best_win;
    else if (wdl == 1)
        b->draw = true;
    else if (depth + 1 > b->worst_loss)
        b->worst_loss = depth + 1;
}

/* wdl 0/1/2 (loss, draw, win for the side to move) and depth (0 for a draw) */
static inline void vbest_get(const struct vbest *b, int *wdl, int *depth)
{
    if (b->best_win)
        *wdl = 2, *depth = b->best_win;
    else if (b->draw)
        *wdl = 1, *depth = 0;
    else
        *wdl = 0, *depth = b->worst_loss;
}

/* Finish a position begun by derive_begin: wdl 0/1/2 (loss, draw, win for
 * the side to move) and depth (0 for a draw), from its successors' stored
 * values: the quickest win, else a draw, else the slowest loss. */
static void derive_end(const struct pending *pd, const struct look *lk, int *out_wdl,
                       int *out_dtw)
{
    if (pd->w >= 0) {
        *out_wdl = pd->w, *out_dtw = pd->d;
        return;
    }
    struct vbest b = {pd->win1 ? 1 : 0, 0, false};
    for (uint32_t k = pd->first; k < pd->first + pd->nl; k++) {
        const struct held_sector *l = lk[k].l;
        uint64_t r = lk[k].r;
        vbest_add(&b, vc_wdl(l->code[r]), vc_depth(l->code[r], &l->deep, r));
    }
    vbest_get(&b, out_wdl, out_dtw);
}

/* A successor of a position of verify_by_rules: over by the rules (tq), or
 * held (hs, slot), or probed. */
struct hlook {
    const struct held_sector *hs;
    uint64_t slot;
    int tq;
    struct mmtb_value probed;
};

/*
 * The count table of sector s's file in dir (FORMAT.md, "Count table"),
 * which readers rank by, against the counts of bx, built from the
 * positions (a table that sums right but puts a count in the wrong block
 * passes every check at open and misranks).  A file without one (earlier
 * writers) passes.  Returns MMTB_OK, or MMTB_ERR_CORRUPT / MMTB_ERR_IO /
 * MMTB_ERR_NOMEM with a message in err.
 */
static int check_count_table(const char *dir, struct mmtb_sector s, const mmtb_ban_index *bx,
                             char *err, size_t errlen)
{
    char path[4096], name[32];
    mmtb_table_sector_path(dir, s, path, sizeof path);
    mmtb_sector_format(s, name, sizeof name);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return MMTB_ERR_IO;
    }
    uint8_t hb[MMTB_TF_HEADER_SIZE];
    struct mmtb_tf_header h;
    struct mmtb_tf_layout l;
    uint8_t *meta = NULL;
    uint32_t *got = NULL, *want = NULL;
    const char *desc;
    int rc = mmtb_table_pread(fd, hb, sizeof hb, 0);
    if (rc == MMTB_OK)
        rc = mmtb_tf_header_decode(hb, sizeof hb, &h);
    if (rc == MMTB_OK)
        rc = mmtb_tf_layout(&h, &l);
    if (rc != MMTB_OK || h.count_blocks == 0)
        goto out;
    uint64_t msize = mmtb_tf_meta_size(&l), n = h.count_blocks;
    meta = malloc(msize);
    got = malloc(n * sizeof *got);
    want = malloc(n * sizeof *want);
    struct mmtb_tf_block *t0 = malloc((l.nblocks[0] + 1) * sizeof *t0);
    struct mmtb_tf_block *t1 = malloc((l.nblocks[1] + 1) * sizeof *t1);
    rc = meta && got && want && t0 && t1 ? MMTB_OK : MMTB_ERR_NOMEM;
    if (rc == MMTB_OK)
        rc = mmtb_table_pread(fd, meta, msize, MMTB_TF_HEADER_SIZE);
    if (rc == MMTB_OK)
        rc = mmtb_tf_meta_decode(&h, &l, meta, msize, &desc, got, t0, t1);
    free(t0);
    free(t1);
    if (rc != MMTB_OK)
        goto out;
    if (n != mmtb_ban_index_blocks(bx, h.count_block_log2) ||
        mmtb_ban_index_block_counts(bx, h.count_block_log2, want) != MMTB_OK) {
        rc = MMTB_ERR_CORRUPT;
        snprintf(err, errlen, "%s: %llu count table entries, the sector has %llu blocks", path,
                 (unsigned long long)n,
                 (unsigned long long)mmtb_ban_index_blocks(bx, h.count_block_log2));
        goto out;
    }
    for (uint64_t k = 0; k < n; k++)
        if (got[k] != want[k]) {
            rc = MMTB_ERR_CORRUPT;
            snprintf(err, errlen,
                     "%s: count table entry %llu is %lu, the positions of its block give %lu",
                     path, (unsigned long long)k, (unsigned long)got[k],
                     (unsigned long)want[k]);
            goto out;
        }
out:
    if (rc != MMTB_OK && !err[0])
        snprintf(err, errlen, "%s: cannot read its count table: %s", path, mmtb_strerror(rc));
    close(fd);
    free(meta);
    free(got);
    free(want);
    return rc;
}

/* The value (wdl 0/1/2, depth) of position p by the rules of
 * format/movegen.c from its successors' values (verify_by_rules); mv and
 * lk have room for MMTB_MAX_MOVES.  Returns MMTB_OK or a probe's status. */
static int rules_derive(const struct mmtb_variant *v, const mmtb_index *ix, const struct held *h,
                        mmtb_ctx *ctx, const struct mmtb_pos *p, struct mmtb_move *mv,
                        struct hlook *lk, int *w, int *d)
{
    int term = mmtb_pos_terminal(v, p), lrc = MMTB_OK;
    *w = term == MMTB_DRAW ? 1 : 0;
    *d = 0;
    if (term == MMTB_DRAW || term == MMTB_LOSS)
        return MMTB_OK;
    int n = mmtb_gen_moves(v, p, mv);
    struct vbest b = {0, 0, false};
    /* every successor located and its look-up started before any is read */
    for (int k = 0; k < n && lrc == MMTB_OK; k++) {
        struct mmtb_pos q;
        mmtb_pos_apply(v, p, &mv[k], &q);
        int tq = mmtb_pos_terminal(v, &q);
        lk[k].hs = NULL;
        lk[k].tq = tq;
        if (tq == MMTB_LOSS || tq == MMTB_DRAW)
            continue;
        lk[k].hs = held_locate(h, ix, &q, &lk[k].slot);
        if (lk[k].hs)
            __builtin_prefetch(&lk[k].hs->code[lk[k].slot]);
        else
            lrc = mmtb_probe(ctx, &q, &lk[k].probed);
    }
    for (int k = 0; k < n && lrc == MMTB_OK; k++) {
        struct mmtb_value qv;
        if (lk[k].tq == MMTB_LOSS)
            qv = (struct mmtb_value){.wdl = MMTB_LOSS, .dtw = 0};
        else if (lk[k].tq == MMTB_DRAW)
            qv = (struct mmtb_value){.wdl = MMTB_DRAW, .dtw = -1};
        else if (lk[k].hs)
            held_read(lk[k].hs, lk[k].slot, &qv);
        else
            qv = lk[k].probed;
        vbest_add(&b, qv.wdl == MMTB_LOSS ? 0 : qv.wdl == MMTB_DRAW ? 1 : 2, qv.dtw);
    }
    vbest_get(&b, w, d);
    return lrc;
}

/*
 * A successor's stones ranked in its held sector, kept by the stones.  The
 * walk of verify_stones goes by the side not to move, O, so the positions
 * in a row share O, and the quiet successors (O, M') of one are those of
 * many: every M one slide away from M' leads there.  A thread meets the
 * same successor stones again soon, and ranks them once.  An entry used by
 * the stones at hand (stamp) is not taken for another of their successors;
 * rank_end is done when a state first needs more than the scheme 1 slot.
 */
#define VCACHE_BITS 14
struct vrank {
    uint64_t key; /* 1 + (its mover << 32 | its opponent), 0: empty */
    const struct held_sector *hs;
    uint64_t stamp; /* the stone set that last used it */
    bool ended;
    struct mmtb_ban_rank r;
};

/* A successor of the stones of a position of verify_stones: the move, the
 * restriction it earns (or -1), and its stones ranked in its held sector
 * (e; not when it wins at once). */
struct vstone {
    int8_t from, to, earned;
    bool win;
    struct vrank *e;
};

/* A state derived, to be compared with what its slot stores. */
struct vpend {
    uint64_t slot;
    int w, d;
};

/* A thread's work space of verify_stones. */
struct vscratch {
    struct succ sc[MMTB_MAX_MOVES];
    struct vstone x[MMTB_MAX_MOVES];
    struct vrank spill[MMTB_MAX_MOVES]; /* successors no cache entry was free for */
    uint64_t stamp;
    struct vpend pend[256]; /* the states of the last stones, to be compared */
    int npend;
    uint64_t into[MMTB_MAX_POINTS][MMTB_MAX_BANS / 64]; /* succ_into_table */
    struct vrank cache[1 << VCACHE_BITS];
};

/* The successors of stones (M, O) of sector s into b->x, their stones
 * ranked in their held sectors (from b->cache when they were lately),
 * with their live restrictions worked out from the two sides' here;
 * returns the count, or -1 when one's sector is not held.  nt, lo: the
 * opponent's live restrictions here, their number and set; with none, a
 * successor that earns none is only looked up in its scheme 1 slot, and
 * its rank may stop there. */
static int stone_succs(const struct mmtb_variant *v, const struct held *h, struct mmtb_sector s,
                       uint32_t M, uint32_t O, int nt, const uint64_t *lo, struct vscratch *b)
{
    struct succ *sc = b->sc;
    struct vstone *x = b->x;
    int n = succ_generate(v, s, M, O, sc);
    uint64_t stamp = ++b->stamp;
    const struct held_sector *l = NULL;
    uint64_t key[MMTB_MAX_MOVES]; /* the stones' keys, their cache entries fetched first */
    for (int k = 0; k < n; k++) {
        key[k] = ((uint64_t)sc[k].mover << 32 | sc[k].opp) + 1;
        __builtin_prefetch(&b->cache[(key[k] * 0x9E3779B97F4A7C15ull) >> (64 - VCACHE_BITS)]);
    }
    uint32_t in_mill = n ? mmtb_variant_in_mill(v, M) : 0;
    for (int k = 0; k < n; k++) {
        succ_move_ends(M, sc[k].opp, &x[k].from, &x[k].to);
        x[k].earned = (int8_t)succ_earned_in(v, M, in_mill, x[k].from, x[k].to);
        x[k].win = sc[k].kind == SUCC_WIN;
        if (x[k].win)
            continue;
        /* successors in a row are mostly in one sector */
        if (!l || !mmtb_sector_eq(sc[k].t, l->s))
            l = held_find(h, sc[k].t);
        if (!l || !l->bx)
            return -1;
        struct vrank *e = &b->cache[(key[k] * 0x9E3779B97F4A7C15ull) >> (64 - VCACHE_BITS)];
        if (e->key == key[k] && e->hs == l) {
            e->stamp = stamp;
            x[k].e = e;
            continue;
        }
        if (e->stamp == stamp) /* another successor here holds it */
            e = &b->spill[k];
        *e = (struct vrank){.key = key[k], .hs = l, .stamp = stamp, .ended = false};
        mmtb_ban_index_rank_begin(l->bx, sc[k].mover, sc[k].opp, &e->r);
        __builtin_prefetch(&l->code[e->r.slot0]);
        x[k].e = e;
    }
    /* their live restrictions from the two sides' here: a move changes the
     * emptiness of its two points and our mills' counts at them, a capture
     * the opponent's stones (lo: its live restrictions here) */
    struct succ_mills mm;
    bool counted = false;
    for (int k = 0; k < n; k++) {
        if (x[k].win || x[k].e->ended || (nt == 0 && x[k].earned < 0))
            continue;
        struct vrank *e = x[k].e;
        uint32_t qm = e->r.mover, qo = e->r.opp; /* qm != O: a capture */
        uint64_t fs[MMTB_MAX_BANS / 64] = {0}, ts[MMTB_MAX_BANS / 64] = {0};
        if (!succ_mills_ok(v)) { /* mills of other sizes: from scratch */
            if (sc[k].t.w_hand == 0)
                mmtb_live_ban_set(v, qm, qo, fs);
            if (sc[k].t.b_hand == 0)
                mmtb_live_ban_set(v, qo, qm, ts);
        } else {
            if (sc[k].t.w_hand == 0) { /* the opponent's, to move there */
                if (qm != O) {
                    mmtb_live_ban_set(v, qm, qo, fs);
                } else {
                    for (int w = 0; w < MMTB_MAX_BANS / 64; w++)
                        fs[w] = lo[w] & ~b->into[x[k].to][w];
                    if (x[k].from >= 0)
                        succ_live_into(v, O, x[k].from, fs);
                }
            }
            if (sc[k].t.b_hand == 0) { /* ours after the move */
                if (!counted)
                    succ_mills_of(v, M, O, &mm);
                counted = true;
                struct succ_mills m2 = mm;
                if (qm != O)
                    m2.blocked = succ_mills_blocked(v, qm);
                succ_live_moved(v, &m2, qo, x[k].from, x[k].to, ts);
            }
        }
        mmtb_ban_index_rank_end(e->hs->bx, &e->r, fs, ts);
        if (e->r.nf || e->r.nt) /* its states' bytes, read by state_derive */
            __builtin_prefetch(&e->hs->code[e->r.first]);
        e->ended = true;
    }
    return n;
}

/* The value (wdl 0/1/2, depth) of the state of stones whose n successors
 * are x with the mover's restriction f and the opponent's t, from the
 * successors' stored values: the quickest win, else a draw, else the
 * slowest loss; no move left (all forbidden) is a loss in 0. */
static void state_derive(const struct mmtb_variant *v, const struct vstone *x, int n, int f, int t,
                         int *w, int *d)
{
    int fy = f >= 0 ? v->edge_y[f] : -2, fx = f >= 0 ? v->edge_x[f] : -2;
    struct vbest b = {0, 0, false};
    /* the successors' states ranked and their look-ups started first */
    uint64_t rs[MMTB_MAX_MOVES];
    for (int k = 0; k < n; k++) {
        if (x[k].win || (x[k].from == fy && x[k].to == fx))
            continue;
        const struct vrank *e = x[k].e;
        int bm = t >= 0 && succ_ban_bites(v, e->r.mover, e->r.opp, t) ? t : -1;
        rs[k] = mmtb_ban_index_rank_state(e->hs->bx, &e->r, bm, x[k].earned);
        __builtin_prefetch(&e->hs->code[rs[k]]);
    }
    for (int k = 0; k < n; k++) {
        if (x[k].from == fy && x[k].to == fx)
            continue; /* the restriction forbids this slide */
        if (x[k].win) {
            vbest_add(&b, 0, 0);
            continue;
        }
        const struct held_sector *hs = x[k].e->hs;
        uint8_t c = hs->code[rs[k]];
        vbest_add(&b, vc_wdl(c), vc_depth(c, &hs->deep, rs[k]));
    }
    vbest_get(&b, w, d);
}

/* What a pass over a sector counted. */
struct vcount {
    uint64_t checked, bad, first_bad;
};

/* Count the state in slot `slot` of sector me, whose value re-derived is
 * (w, d). */
static void vcount_add(struct vcount *vc, const struct held_sector *me, uint64_t slot, int w,
                       int d)
{
    vc->checked++;
    if (w != vc_wdl(me->code[slot]) || d != vc_depth(me->code[slot], &me->deep, slot)) {
        vc->bad++;
        vc->first_bad = slot < vc->first_bad ? slot : vc->first_bad;
    }
}

/* Add a thread's counts to the sector's (inside its parallel region). */
static void vcount_merge(struct vcount *to, const struct vcount *from)
{
#pragma omp critical(mmtb_vcount)
    {
        to->checked += from->checked;
        to->bad += from->bad;
        to->first_bad = from->first_bad < to->first_bad ? from->first_bad : to->first_bad;
    }
}

/* The states derived a position ago compared with what me stores. */
static void pend_flush(struct vscratch *b, const struct held_sector *me, struct vcount *vc)
{
    for (int q = 0; q < b->npend; q++)
        vcount_add(vc, me, b->pend[q].slot, b->pend[q].w, b->pend[q].d);
    b->npend = 0;
}

/* The states of stones (M, O) of sector me checked: each canonical state
 * slot once (with a symmetry of the stones, states that are images of
 * each other share one), its value re-derived from the successors of the
 * stones.  Returns MMTB_OK, or MMTB_ERR_INVALID with a reason in *why. */
static int stones_check(const struct mmtb_variant *v, const struct held *h,
                        const struct held_sector *me, uint32_t M, uint32_t O,
                        struct vscratch *b, struct vcount *vc, const char **why)
{
    int8_t F[MMTB_MAX_BANS], T[MMTB_MAX_BANS];
    int nf, nt;
    uint64_t fs[MMTB_MAX_BANS / 64], ts[MMTB_MAX_BANS / 64];
    succ_live_lists(v, me->s, M, O, F, &nf, T, &nt);
    mmtb_code_set(F, nf, fs);
    mmtb_code_set(T, nt, ts);
    /* the stones' own rank begun, its reads in flight while the successors
     * are worked out */
    struct mmtb_ban_rank self;
    mmtb_ban_index_rank_begin(me->bx, M, O, &self);
    __builtin_prefetch(&mmtb_ban_index_counts(me->bx)[self.slot0]);
    int term = succ_terminal(v, me->s, M, O);
    int n = term == MMTB_NOT_TERMINAL ? stone_succs(v, h, me->s, M, O, nt, ts, b) : 0;
    if (n < 0) {
        *why = "a successor's sector is not held";
        return MMTB_ERR_INVALID;
    }
    mmtb_ban_index_rank_end(me->bx, &self, fs, ts);
    int ns = (nf + 1) * (nt + 1);
    if (ns != mmtb_ban_index_states(me->bx, self.slot0) + 1) {
        *why = "a position's restriction states differ from its index's";
        return MMTB_ERR_INVALID;
    }
    /* the last position's states compared now that their reads have had
     * the time of these stones' work; then this position's own slots (the
     * look-ups this walk leaves random), fetched while they are derived */
    pend_flush(b, me, vc);
    int8_t sf[256], st[256]; /* (the index counts a stone set's states in a byte) */
    int nsl = 0;
    for (int k = 0; k < ns; k++) {
        int f, t;
        succ_state_bans(k, F, T, nt, &f, &t);
        uint64_t r = mmtb_ban_index_rank_state(me->bx, &self, f, t);
        bool seen = false;
        for (int q = 0; q < nsl && self.nsym > 1 && !seen; q++)
            seen = b->pend[q].slot == r;
        if (seen)
            continue;
        __builtin_prefetch(&me->code[r]);
        b->pend[nsl].slot = r;
        sf[nsl] = (int8_t)f;
        st[nsl++] = (int8_t)t;
    }
    for (int q = 0; q < nsl; q++) {
        struct vpend *p = &b->pend[q];
        p->w = term == MMTB_DRAW ? 1 : 0;
        p->d = 0;
        if (term == MMTB_NOT_TERMINAL)
            state_derive(v, b->x, n, sf[q], st[q], &p->w, &p->d);
    }
    b->npend = nsl;
    return MMTB_OK;
}

/*
 * Re-close sectors of variants whose other rules gen/succ.c models
 * (succ_models_bans), as the solver sees them: each canonical set of
 * stones once, its successors generated on bitboards and their stones
 * ranked once, then every state of the stones (the restrictions each side
 * carries) re-derived from what those successors' states store.  The
 * stones are walked grouped by the side not to move, O, as verify_plain
 * walks plain positions: the quiet successors of positions in a row share
 * their side to move, their block and mostly their stones (stone_succs).
 */
static int verify_stones(const struct mmtb_variant *v, const mmtb_index *ix, const struct held *h,
                         const struct held_sector *me, struct vcount *out, struct progress *prog,
                         char *why, size_t whylen)
{
    const struct mmtb_sector s = me->s, ws = sector_partner(s);
    const uint64_t chunk = 4096, wslots = mmtb_index_slots(ix, ws);
    const uint64_t nchunks = (wslots + chunk - 1) / chunk;
    uint64_t visited = 0;
    int rc = MMTB_OK;
#pragma omp parallel reduction(+ : visited)
    {
        struct vscratch *b = calloc(1, sizeof *b);
        int lrc = b ? MMTB_OK : MMTB_ERR_NOMEM;
        const char *lwhy = "out of memory";
        struct vcount vc = {0, 0, UINT64_MAX};
        if (b)
            succ_into_table(v, b->into);
#pragma omp for schedule(dynamic, 4)
        for (uint64_t c = 0; c < nchunks; c++) {
            uint64_t lo = c * chunk, hi = lo + chunk < wslots ? lo + chunk : wslots;
            struct mmtb_index_iter it;
            mmtb_index_iter_start(&it, ix, ws, lo, hi);
            uint64_t i;
            uint32_t o_, m_; /* the walk's side to move is our opponent */
            bool canonical;
            while (lrc == MMTB_OK && mmtb_index_iter_next(&it, &i, &o_, &m_, &canonical)) {
                if (!canonical)
                    continue;
                visited++;
                lrc = stones_check(v, h, me, m_, o_, b, &vc, &lwhy);
            }
            if (omp_get_thread_num() == 0)
                progress_update(prog, hi, wslots);
        }
        if (b)
            pend_flush(b, me, &vc);
        free(b);
        vcount_merge(out, &vc);
#pragma omp critical(mmtb_vrc)
        if (lrc != MMTB_OK && rc == MMTB_OK) {
            rc = lrc;
            snprintf(why, whylen, "%s", lwhy);
        }
    }
    /* one visit per orbit of the stones of s */
    uint64_t orbits = mmtb_index_canonical(v, s);
    if (rc == MMTB_OK && visited != orbits) {
        snprintf(why, whylen, "the walk visited %llu stone sets of %llu",
                 (unsigned long long)visited, (unsigned long long)orbits);
        return MMTB_ERR_INVALID;
    }
    return rc;
}

/*
 * Sectors whose positions carry more state, by the rules of
 * format/movegen.c position by position (moves, apply, the rules of game
 * over): every canonical slot of sector me re-derived from its successors'
 * stored values (held in h, or, for Shah's openings, which no table
 * stores, through mmtb_probe).  Independent of the solver's move generator.
 */
static int verify_by_rules(const struct mmtb_variant *v, mmtb_tb *tb, const mmtb_index *ix,
                           const struct held *h, const struct held_sector *me,
                           struct vcount *out, struct progress *prog)
{
    int rc = MMTB_OK;
    const uint64_t chunk = 4096, slots = me->slots, nchunks = (slots + chunk - 1) / chunk;
#pragma omp parallel
    {
        mmtb_ctx *ctx = NULL;
        int lrc = mmtb_ctx_create(&ctx, tb, GEN_PROBE_CACHE);
        struct mmtb_move *mv = malloc(MMTB_MAX_MOVES * sizeof *mv);
        struct hlook *lk = malloc(MMTB_MAX_MOVES * sizeof *lk);
        struct vcount vc = {0, 0, UINT64_MAX};
        if ((!mv || !lk) && lrc == MMTB_OK)
            lrc = MMTB_ERR_NOMEM;
#pragma omp for schedule(dynamic, 4)
        for (uint64_t c = 0; c < nchunks; c++) {
            uint64_t hi = (c + 1) * chunk < slots ? (c + 1) * chunk : slots;
            for (uint64_t i = c * chunk; i < hi && lrc == MMTB_OK; i++) {
                struct mmtb_pos p;
                memset(&p, 0, sizeof p);
                p.hand[0] = me->s.w_hand;
                p.hand[1] = me->s.b_hand;
                mmtb_ban_index_unrank_pos(me->bx, i, &p);
                if (mmtb_ban_index_rank_pos(me->bx, &p) != i)
                    continue;
                int w = 0, d = 0;
                lrc = rules_derive(v, ix, h, ctx, &p, mv, lk, &w, &d);
                if (lrc == MMTB_OK)
                    vcount_add(&vc, me, i, w, d);
            }
            if (omp_get_thread_num() == 0)
                progress_update(prog, hi, slots);
        }
        free(mv);
        free(lk);
        mmtb_ctx_free(ctx);
        vcount_merge(out, &vc);
#pragma omp critical(mmtb_vrc)
        if (lrc != MMTB_OK && rc == MMTB_OK)
            rc = lrc;
    }
    return rc;
}

/* Finish the np positions of a batch and count them. */
static void derive_batch(const struct held_sector *me, struct pending *pd, int *np,
                         const struct look *lk, uint32_t *nlk, struct vcount *vc)
{
    for (int k = 0; k < *np; k++) {
        int w, d;
        derive_end(&pd[k], lk, &w, &d);
        vcount_add(vc, me, pd[k].slot, w, d);
    }
    *np = 0;
    *nlk = 0;
}

/*
 * Plain sectors (no state beyond the stones): every canonical position of
 * sector me re-derived from its successors' stored values (held in h).
 * The positions are walked grouped by the side not to move, O, as the
 * solver's placement init walks them (init_by_opponent in init.c): the
 * moves that remove nothing lead into O's block of their sector and
 * captures into a few blocks of O less a stone, shared by the positions in
 * a row; each position's own stored value is the one look-up left that
 * misses.
 */
static int verify_plain(const struct mmtb_variant *v, const mmtb_index *ix, const struct held *h,
                        const struct held_sector *me, struct vcount *out, struct progress *prog,
                        char *why, size_t whylen)
{
    const struct mmtb_sector s = me->s, ws = sector_partner(s);
    uint64_t visited = 0;
    const uint64_t chunk = 4096;
    uint64_t wslots = mmtb_index_slots(ix, ws), nchunks = (wslots + chunk - 1) / chunk;
#pragma omp parallel reduction(+ : visited)
    {
        struct succ *sc = malloc(MMTB_MAX_MOVES * sizeof *sc);
        struct look *lk = malloc(BATCH_LOOKS * sizeof *lk);
        struct pending *pd = malloc(BATCH_POS * sizeof *pd);
        struct vprep *pc = calloc(1, sizeof *pc);
        struct vcount vc = {0, 0, UINT64_MAX};
#pragma omp for schedule(dynamic, 16)
        for (uint64_t c = 0; c < nchunks; c++) {
            if (!sc || !lk || !pd || !pc)
                continue;
            uint64_t lo = c * chunk, hi = lo + chunk < wslots ? lo + chunk : wslots;
            struct mmtb_index_iter it;
            mmtb_index_iter_start(&it, ix, ws, lo, hi);
            uint64_t i;
            uint32_t o_, m_, nlk = 0; /* the walk's side to move is our opponent */
            bool canonical, more = true;
            int np = 0;
            while (more) {
                /* a group's own slots ranked together, so that their
                 * movers' look-ups overlap */
                uint32_t gm[OWN_GROUP], go[OWN_GROUP];
                uint64_t gs[OWN_GROUP];
                int gst[OWN_GROUP], ng = 0;
                while (ng < OWN_GROUP && (more = mmtb_index_iter_next(&it, &i, &o_, &m_,
                                                                      &canonical)))
                    if (canonical) {
                        gm[ng] = m_;
                        go[ng++] = o_;
                    }
                if (ng)
                    mmtb_index_rank_stab_many(ix, s, gm, go, ng, gs, gst);
                for (int g = 0; g < ng; g++) {
                    __builtin_prefetch(&me->code[gs[g]]);
                    pd[np].slot = gs[g];
                    visited++;
                    if (derive_begin(v, ix, s, gm[g], go[g], h, pc, sc, lk, &nlk, &pd[np]) == 0)
                        np++;
                    /* the batch is full, or could not take another position */
                    if (np == BATCH_POS || nlk + MMTB_MAX_MOVES > BATCH_LOOKS)
                        derive_batch(me, pd, &np, lk, &nlk, &vc);
                }
            }
            derive_batch(me, pd, &np, lk, &nlk, &vc);
            if (omp_get_thread_num() == 0)
                progress_update(prog, hi, wslots);
        }
        free(sc);
        free(lk);
        free(pd);
        free(pc);
        vcount_merge(out, &vc);
    }
    /* one visit per orbit of s */
    uint64_t orbits = mmtb_index_canonical(v, s);
    if (visited != orbits) {
        snprintf(why, whylen, "the walk visited %llu positions of %llu",
                 (unsigned long long)visited, (unsigned long long)orbits);
        return MMTB_ERR_INVALID;
    }
    return MMTB_OK;
}

/*
 * Verify sector s of tb (files in dir): s and the sectors its moves lead to
 * are read whole into memory (held.h, through libmmtb), then every
 * canonical position of s is re-derived from its successors' stored values
 * and compared with its own; *vc counts them.  Plain sectors by
 * verify_plain; sectors whose positions carry restrictions or a
 * first-mill owner (format/ban_index.h: every sector of no_reclose
 * variants, Shah's placement sectors) by verify_stones where gen/succ.c
 * models the rules, else (or with by_rules) by verify_by_rules.  A re-close
 * file's count table is checked first, entry by entry: a wrong one is an
 * error (MMTB_ERR_CORRUPT), not a count of positions.
 */
static int verify_sector(const char *dir, mmtb_tb *tb, const mmtb_index *ix, struct mmtb_sector s,
                         bool by_rules, struct vcount *vc, struct progress *prog, char *err,
                         size_t errlen)
{
    const struct mmtb_variant *v = mmtb_tb_variant(tb);
    struct held h;
    memset(&h, 0, sizeof h);
    int rc = hold_with_successors(tb, ix, s, &h, err, errlen);
    if (rc != MMTB_OK)
        return rc;
    const struct held_sector *me = held_find(&h, s);
    char why[256] = "";
    *vc = (struct vcount){0, 0, UINT64_MAX};
    err[0] = 0;
    if (!mmtb_ban_index_applies(v, s)) {
        rc = verify_plain(v, ix, &h, me, vc, prog, why, sizeof why);
    } else if (v->no_reclose && (rc = check_count_table(dir, s, me->bx, err, errlen)) != MMTB_OK) {
        held_free(&h);
        return rc; /* err names the file and the entry */
    } else if (succ_models_bans(v) && !by_rules) {
        rc = verify_stones(v, ix, &h, me, vc, prog, why, sizeof why);
    } else {
        rc = verify_by_rules(v, tb, ix, &h, me, vc, prog);
    }
    held_free(&h);
    if (rc != MMTB_OK) {
        char name[32];
        mmtb_sector_format(s, name, sizeof name);
        snprintf(err, errlen, "sector %s: %s", name, why[0] ? why : mmtb_strerror(rc));
    }
    return rc;
}

/* Sector s is to be verified: all are, or it is one of o->only. */
static bool wanted(const struct gen_verify_opts *o, struct mmtb_sector s)
{
    for (int k = 0; k < o->n_only; k++)
        if (mmtb_sector_eq(o->only[k], s))
            return true;
    return o->n_only == 0;
}

/* One sector's line of the report: a JSON object (comma-led after the
 * first, nsect > 0) or a text line, nothing with --quiet.  from_ledger: not
 * checked now, the ledger records it clean. */
static void report_sector(FILE *rep, const struct gen_verify_opts *o, const char *name,
                          uint64_t checked, uint64_t bad, uint64_t first_bad, int nsect,
                          bool from_ledger)
{
    if (o->json) {
        fprintf(rep, "%s{\"sector\":\"%s\",\"checked\":%llu,\"mismatches\":%llu%s}",
                nsect ? "," : "", name, (unsigned long long)checked, (unsigned long long)bad,
                from_ledger ? ",\"ledger\":true" : "");
    } else if (!o->quiet) {
        fprintf(rep, "%-10s checked %12llu  mismatches %llu", name, (unsigned long long)checked,
                (unsigned long long)bad);
        if (bad)
            fprintf(rep, " (first at slot %llu)", (unsigned long long)first_bad);
        if (from_ledger)
            fprintf(rep, " (ledger)");
        fprintf(rep, "\n");
    }
    fflush(rep);
}

/* The closing line (the end of the JSON array with --json). */
static void report_total(FILE *rep, const struct gen_verify_opts *o, bool ledger, int nsect,
                         int nskipped, int nledger, uint64_t checked, uint64_t bad)
{
    if (o->json)
        fprintf(rep, "]\n");
    else if (!o->quiet && ledger)
        fprintf(rep,
                "verified %d sectors (%d absent; %d recorded clean in the ledger, not checked "
                "again), %llu positions, %llu mismatches\n",
                nsect, nskipped, nledger, (unsigned long long)checked, (unsigned long long)bad);
    else if (!o->quiet)
        fprintf(rep, "verified %d sectors (%d absent), %llu positions, %llu mismatches\n", nsect,
                nskipped, (unsigned long long)checked, (unsigned long long)bad);
}

int mmtb_verify(const struct gen_verify_opts *o, char *err, size_t errlen)
{
    FILE *rep = o->report ? o->report : stdout;
    mmtb_tb *tb = NULL;
    const mmtb_index *ix = NULL;
    struct mmtb_sector *game = NULL;
    struct mmtb_ledger *ledger = NULL;
    int rc = mmtb_tb_open(&tb, o->dir, NULL);
    if (rc != MMTB_OK) {
        snprintf(err, errlen, "%s: %s", o->dir, mmtb_strerror(rc));
        return rc;
    }
    if (o->threads > 0)
        omp_set_num_threads(o->threads);
    const struct mmtb_variant *v = mmtb_tb_variant(tb);
    int ng = mmtb_tb_sector_count(tb);
    game = malloc((ng > 0 ? (size_t)ng : 1) * sizeof *game);
    if (ng < 0 || !game) {
        rc = ng < 0 ? ng : MMTB_ERR_NOMEM;
        snprintf(err, errlen, "%s: cannot list sectors", o->dir);
        goto out;
    }
    for (int i = 0; i < ng; i++) /* the list only: no file opened */
        mmtb_tb_sector_key(tb, i, &game[i]);
    ix = mmtb_tb_index(tb);
    if (!ix) {
        rc = MMTB_ERR_NOMEM;
        snprintf(err, errlen, "cannot build the index tables");
        goto out;
    }
    for (int k = 0; k < o->n_only; k++) {
        char name[32];
        mmtb_sector_format(o->only[k], name, sizeof name);
        if (mmtb_tb_sector_find(tb, o->only[k]) < 0) {
            rc = MMTB_ERR_INVALID;
            snprintf(err, errlen, "sector %s is not part of the game in %s", name, o->dir);
            goto out;
        }
        if (mmtb_tb_sector_stats(tb, o->only[k], NULL) != MMTB_OK) {
            rc = MMTB_ERR_INVALID;
            snprintf(err, errlen, "sector %s is not solved (or not readable) in %s", name, o->dir);
            goto out;
        }
    }
    if (o->ledger && (rc = mmtb_ledger_open(&ledger, o->ledger, err, errlen)) != MMTB_OK)
        goto out;
    struct progress prog;
    progress_init(&prog, o->quiet);
    uint64_t total_bad = 0, total_checked = 0;
    int nsect = 0, nskipped = 0, nledger = 0;
    /* --verbose: positions of the sectors to verify, and those taken from the ledger */
    uint64_t all_pos = 0, ledger_pos = 0;
    double t0 = progress_now();
    for (int gi = 0; o->verbose && gi < ng; gi++) {
        struct mmtb_sector_stats st;
        if (wanted(o, game[gi]) && mmtb_tb_sector_stats(tb, game[gi], &st) == MMTB_OK)
            all_pos += st.canonical;
    }
    if (o->json)
        fprintf(rep, "[");
    for (int gi = 0; gi < ng; gi++) {
        struct mmtb_sector s = game[gi];
        char name[32];
        mmtb_sector_format(s, name, sizeof name);
        if (!wanted(o, s))
            continue;
        if (mmtb_tb_sector_stats(tb, s, NULL) != MMTB_OK) {
            nskipped++;
            continue;
        }
        uint64_t ident = 0;
        if (ledger) {
            rc = mmtb_ledger_identity(o->dir, v, s, &ident, err, errlen);
            if (rc != MMTB_OK)
                goto out;
            int64_t done = mmtb_ledger_find(ledger, name, ident);
            if (done >= 0) {
                total_checked += (uint64_t)done;
                nledger++;
                report_sector(rep, o, name, (uint64_t)done, 0, 0, nsect++, true);
                ledger_pos += (uint64_t)done;
                continue;
            }
        }
        char label[64];
        snprintf(label, sizeof label, "verify %s", name);
        progress_phase(&prog, label);
        struct vcount vc;
        rc = verify_sector(o->dir, tb, ix, s, o->by_rules, &vc, &prog, err, errlen);
        uint64_t checked = vc.checked, bad = vc.bad, first_bad = vc.first_bad;
        progress_clear(&prog);
        if (rc != MMTB_OK)
            goto out;
        total_bad += bad;
        total_checked += checked;
        report_sector(rep, o, name, checked, bad, first_bad, nsect++, false);
        if (ledger && !bad &&
            (rc = mmtb_ledger_add(ledger, name, ident, checked, err, errlen)) != MMTB_OK)
            goto out;
        if (o->verbose && !o->quiet)
            progress_share_line("positions", total_checked, ledger_pos, all_pos, t0);
    }
    if (!o->no_total)
        report_total(rep, o, ledger != NULL, nsect, nskipped, nledger, total_checked, total_bad);
    if (o->mismatches)
        *o->mismatches = total_bad;
    rc = MMTB_OK;
out:
    mmtb_ledger_close(ledger);
    free(game);
    mmtb_tb_close(tb);
    return rc;
}
