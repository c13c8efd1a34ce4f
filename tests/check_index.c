/*
 * check_index.c - quick tests of format/sector_index: the symmetry-reduced
 * index against a brute-force reference (testlib_index) on whole small
 * sectors, orbit counts (including the published total for Nine Men's
 * Morris), the sector graph and its solving order, and the sector names.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ban_index.h"
#include "movegen.h"
#include "sector_index.h"
#include "testlib_index.h"
#include "testlib_util.h"

/* Sectors with more positions than this are checked slot by slot instead
 * of position by position. */
#define FULL_LIMIT 3000000

/*
 * Assertions for the inner loops.  Check's ck_assert_* records its location
 * through a pipe on every call, even when it passes, which costs a system
 * call per check; these only call into Check when they fail.
 */
#define REQUIRE(cond)                                                                              \
    do {                                                                                           \
        if (!(cond))                                                                               \
            ck_abort_msg("Assertion '%s' failed", #cond);                                          \
    } while (0)
#define REQUIRE_EQ(x, y)                                                                           \
    do {                                                                                           \
        unsigned long long x_ = (x), y_ = (y);                                                     \
        if (x_ != y_)                                                                              \
            ck_abort_msg("Assertion '%s == %s' failed: %llu != %llu", #x, #y, x_, y_);             \
    } while (0)

static struct mmtb_variant *load(const char *name)
{
    struct mmtb_variant *v = NULL;
    char err[256] = "";
    int st = mmtb_variant_load(&v, name, err, sizeof err);
    ck_assert_msg(st == MMTB_OK, "loading %s: %s", name, err);
    return v;
}

static struct mmtb_sector sec(int w, int b, int wh, int bh)
{
    struct mmtb_sector s = {(uint8_t)w, (uint8_t)b, (uint8_t)wh, (uint8_t)bh};
    return s;
}

static bool sec_eq(struct mmtb_sector a, struct mmtb_sector b)
{
    return a.w == b.w && a.b == b.b && a.w_hand == b.w_hand && a.b_hand == b.b_hand;
}

/* ------------------------------------------------------------------------
 * Whole-sector checks.
 * ---------------------------------------------------------------------- */

/*
 * Both rank implementations (ix automatic, ixp portable) agree; returns
 * the slot.
 */
static uint64_t rank2(const mmtb_index *ix, const mmtb_index *ixp, struct mmtb_sector s,
                      uint32_t mover, uint32_t opp)
{
    uint64_t slot = mmtb_index_rank(ix, s, mover, opp);
    REQUIRE_EQ(mmtb_index_rank(ixp, s, mover, opp), slot);
    return slot;
}

/*
 * mmtb_index_rank_stab (both implementations) gives rank's slot, and as
 * the stabilizer's order the number of symmetries that fix both stone sets,
 * counted here point by point.
 */
static void check_rank_stab(const mmtb_index *ix, const mmtb_index *ixp,
                            const struct tref_index *ref, struct mmtb_sector s, uint32_t mover,
                            uint32_t opp, uint64_t slot)
{
    int fixed = 0;
    for (int g = 0; g < ref->v->nsyms; g++)
        fixed += tref_img(ref, g, mover) == mover && tref_img(ref, g, opp) == opp;
    int n1 = -1, n2 = -1;
    REQUIRE_EQ(mmtb_index_rank_stab(ix, s, mover, opp, &n1), slot);
    REQUIRE_EQ(mmtb_index_rank_stab(ixp, s, mover, opp, &n2), slot);
    REQUIRE_EQ(n1, fixed);
    REQUIRE_EQ(n2, fixed);
    REQUIRE_EQ(ref->v->nsyms % fixed, 0); /* Lagrange */
}

/*
 * Every orbit of s, found by enumerating all positions and keeping each
 * orbit's smallest member c: rank(c) is in range and equals the reference
 * rank, every image g(c) (so every position of the sector) has the same
 * slot, and no two orbits share a slot.  Then every slot: the slots
 * reached are exactly those slot_is_canonical reports, they unrank to a
 * position that ranks back, and their number is the brute-force orbit
 * count, Burnside's count and the library's count.
 */
static void check_sector_positions(const struct mmtb_variant *v, const mmtb_index *ix,
                                   const mmtb_index *ixp, const struct tref_index *ref,
                                   struct mmtb_sector s)
{
    int n = v->npoints, w = s.w, b = s.b;
    uint64_t slots = mmtb_index_slots(ix, s);
    REQUIRE_EQ(slots, tref_slots(ref, w, b));
    REQUIRE_EQ(mmtb_index_slots(ixp, s), slots);
    uint8_t *hit = calloc(slots ? slots : 1, 1);
    REQUIRE(hit != NULL);
    uint64_t npos = 0, orbits = 0;
    uint64_t ms = tref_binom(n, w), os = tref_binom(n - w, b);
    uint64_t m = ((uint64_t)1 << w) - 1;
    for (uint64_t i = 0; i < ms; i++, m = w ? tref_next_subset(m) : m) {
        uint32_t mover = (uint32_t)m, e = v->full & ~mover;
        uint64_t x = ((uint64_t)1 << b) - 1;
        for (uint64_t j = 0; j < os; j++, x = b ? tref_next_subset(x) : x) {
            uint32_t opp = tref_deposit((uint32_t)x, e);
            npos++;
            if (!tref_pos_is_canonical(ref, mover, opp))
                continue;
            orbits++;
            uint64_t slot = rank2(ix, ixp, s, mover, opp);
            REQUIRE(slot < slots);
            REQUIRE_EQ(slot, tref_rank(ref, w, b, mover, opp));
            for (int g = 1; g < v->nsyms; g++)
                REQUIRE_EQ(rank2(ix, ixp, s, tref_img(ref, g, mover), tref_img(ref, g, opp)), slot);
            for (int g = 0; g < v->nsyms; g++)
                check_rank_stab(ix, ixp, ref, s, tref_img(ref, g, mover), tref_img(ref, g, opp),
                                slot);
            REQUIRE(!hit[slot]); /* two orbits in one slot */
            hit[slot] = 1;
        }
    }
    REQUIRE_EQ(npos, tref_binom(n, w) * tref_binom(n - w, b));
    REQUIRE_EQ(npos, mmtb_index_positions(v, s));
    REQUIRE_EQ(orbits, tref_orbits(v, w, b));
    REQUIRE_EQ(orbits, mmtb_index_canonical(v, s));
    for (uint64_t slot = 0; slot < slots; slot++) {
        bool canon = mmtb_index_slot_is_canonical(ix, s, slot);
        REQUIRE_EQ(canon, hit[slot]);
        REQUIRE_EQ(mmtb_index_slot_is_canonical(ixp, s, slot), canon);
        uint32_t mo, op, mo2, op2;
        mmtb_index_unrank(ix, s, slot, &mo, &op);
        mmtb_index_unrank(ixp, s, slot, &mo2, &op2);
        REQUIRE_EQ(mo, mo2);
        REQUIRE_EQ(op, op2);
        REQUIRE_EQ(__builtin_popcount(mo), w);
        REQUIRE_EQ(__builtin_popcount(op), b);
        REQUIRE_EQ(mo & op, 0);
        REQUIRE_EQ((mo | op) & ~v->full, 0);
        if (canon)
            REQUIRE_EQ(rank2(ix, ixp, s, mo, op), slot);
        else
            REQUIRE(rank2(ix, ixp, s, mo, op) != slot);
    }
    REQUIRE(slots >= orbits);
    free(hit);
}

/*
 * The same sector checked from the slots only (for sectors too large to
 * enumerate): each slot's position has the right shape, ranks as the
 * reference says, and canonical slots round-trip and are shared by every
 * symmetric image; wasted slots rank elsewhere; canonical slots number
 * the orbits.
 */
static void check_sector_slots(const struct mmtb_variant *v, const mmtb_index *ix,
                               const mmtb_index *ixp, const struct tref_index *ref,
                               struct mmtb_sector s)
{
    int w = s.w, b = s.b;
    uint64_t slots = mmtb_index_slots(ix, s), ncanon = 0;
    REQUIRE_EQ(slots, tref_slots(ref, w, b));
    for (uint64_t slot = 0; slot < slots; slot++) {
        uint32_t mo, op;
        mmtb_index_unrank(ix, s, slot, &mo, &op);
        REQUIRE_EQ(__builtin_popcount(mo), w);
        REQUIRE_EQ(__builtin_popcount(op), b);
        REQUIRE_EQ(mo & op, 0);
        uint64_t r = rank2(ix, ixp, s, mo, op);
        REQUIRE_EQ(r, tref_rank(ref, w, b, mo, op));
        bool canon = mmtb_index_slot_is_canonical(ix, s, slot);
        REQUIRE_EQ(canon, r == slot);
        if (!canon)
            continue;
        ncanon++;
        for (int g = 1; g < v->nsyms; g++)
            REQUIRE_EQ(rank2(ix, ixp, s, tref_img(ref, g, mo), tref_img(ref, g, op)), slot);
    }
    REQUIRE_EQ(ncanon, tref_orbits(v, w, b));
    REQUIRE_EQ(ncanon, mmtb_index_canonical(v, s));
    REQUIRE_EQ(mmtb_index_positions(v, s),
               tref_binom(v->npoints, w) * tref_binom(v->npoints - w, b));
}

/*
 * The sequential walk agrees with unrank, slot_is_canonical and
 * rank_stab's stabilizer order: a walk over the whole sector returns every
 * slot in order; walks started anywhere and
 * advanced by mmtb_index_iter_skip_to over gaps short (stepped) and long
 * (restarted) return the slot asked for, until the end of their range.
 */
static void check_walks(const mmtb_index *ix, struct mmtb_sector s)
{
    uint64_t slots = mmtb_index_slots(ix, s);
    struct mmtb_index_iter it;
    uint64_t slot, expect = 0;
    uint32_t mo, op, m2, o2;
    bool canon;
    mmtb_index_iter_start(&it, ix, s, 0, slots);
    while (mmtb_index_iter_next(&it, &slot, &mo, &op, &canon)) {
        REQUIRE_EQ(slot, expect);
        mmtb_index_unrank(ix, s, slot, &m2, &o2);
        REQUIRE_EQ(mo, m2);
        REQUIRE_EQ(op, o2);
        REQUIRE_EQ(canon, mmtb_index_slot_is_canonical(ix, s, slot));
        if (canon) { /* the stabilizer order the walk reports is rank's */
            int nst = 0;
            REQUIRE_EQ(mmtb_index_rank_stab(ix, s, mo, op, &nst), slot);
            REQUIRE_EQ(it.nstab, nst);
        }
        expect++;
    }
    REQUIRE_EQ(expect, slots);
    uint64_t x = 0x9e3779b97f4a7c15ull ^ slots;
    for (int walk = 0; walk < 20 && slots > 0; walk++) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        uint64_t first = (x >> 17) % slots, end = first + (x >> 40) % (slots - first + 1);
        mmtb_index_iter_start(&it, ix, s, first, end);
        for (uint64_t want = first; want < end;) {
            mmtb_index_iter_skip_to(&it, want);
            REQUIRE(mmtb_index_iter_next(&it, &slot, &mo, &op, &canon));
            REQUIRE_EQ(slot, want);
            mmtb_index_unrank(ix, s, slot, &m2, &o2);
            REQUIRE_EQ(mo, m2);
            REQUIRE_EQ(op, o2);
            x = x * 6364136223846793005ull + 1442695040888963407ull;
            /* mostly short gaps, now and then one past the stepping limit */
            want += 1 + ((x >> 60) == 0 ? (x >> 20) % 5000 : (x >> 20) % 40);
        }
        REQUIRE(!mmtb_index_iter_next(&it, &slot, &mo, &op, &canon) || slot < end);
    }
}

/*
 * Ranking several opponent sets of one mover at once (in one call, or
 * prepared once and ranked one by one) gives what ranking each gives: for movers spread over the sector (every symmetric image of
 * each, so stabilizers and non-identity symmetries occur), the opponent
 * sets one stone step away from a stored one.
 */
static void check_same_mover(const struct mmtb_variant *v, const mmtb_index *ix,
                             struct mmtb_sector s)
{
    uint64_t slots = mmtb_index_slots(ix, s);
    uint32_t *opps = malloc(MMTB_MAX_MOVES * sizeof *opps);
    uint64_t *got = malloc(MMTB_MAX_MOVES * sizeof *got);
    ck_assert(opps && got);
    for (uint64_t slot = 0; slot < slots; slot += slots / 97 + 1) {
        uint32_t mo, op;
        mmtb_index_unrank(ix, s, slot, &mo, &op);
        uint32_t empty = v->full & ~(mo | op);
        for (int g = 0; g < v->nsyms; g++) {
            int n = 0;
            opps[n++] = mmtb_sym_apply(v, g, op);
            for (uint32_t f = op; f && s.b; f &= f - 1)
                for (uint32_t e = empty; e && n < MMTB_MAX_MOVES; e &= e - 1)
                    opps[n++] = mmtb_sym_apply(v, g, op ^ (f & -f) ^ (e & -e));
            uint32_t gm = mmtb_sym_apply(v, g, mo);
            mmtb_index_rank_same_mover(ix, s, gm, opps, n, got);
            struct mmtb_index_mover pm;
            mmtb_index_mover_prepare(ix, s, gm, &pm);
            for (int k = 0; k < n; k++) {
                REQUIRE_EQ(got[k], mmtb_index_rank(ix, s, gm, opps[k]));
                REQUIRE_EQ(mmtb_index_rank_prepared(ix, &pm, opps[k]), got[k]);
            }
        }
    }
    free(opps);
    free(got);
}

/*
 * Ranking positions with their own movers at once (more than one group of
 * look-ups) gives what ranking each gives, stabilizer orders included: the
 * movers one stone step away from a stored one, under every symmetry.
 */
static void check_stab_many(const struct mmtb_variant *v, const mmtb_index *ix,
                            struct mmtb_sector s)
{
    uint64_t slots = mmtb_index_slots(ix, s);
    uint32_t *movers = malloc(MMTB_MAX_MOVES * sizeof *movers);
    uint32_t *opps = malloc(MMTB_MAX_MOVES * sizeof *opps);
    uint64_t *got = malloc(MMTB_MAX_MOVES * sizeof *got);
    int *nst = malloc(MMTB_MAX_MOVES * sizeof *nst);
    ck_assert(movers && opps && got && nst);
    for (uint64_t slot = 0; slot < slots; slot += slots / 61 + 1) {
        uint32_t mo, op;
        mmtb_index_unrank(ix, s, slot, &mo, &op);
        uint32_t empty = v->full & ~(mo | op);
        int n = 0;
        for (int g = 0; g < v->nsyms; g++) {
            movers[n] = mmtb_sym_apply(v, g, mo);
            opps[n++] = mmtb_sym_apply(v, g, op);
            for (uint32_t f = mo; f; f &= f - 1)
                for (uint32_t e = empty; e && n < MMTB_MAX_MOVES; e &= e - 1) {
                    movers[n] = mmtb_sym_apply(v, g, mo ^ (f & -f) ^ (e & -e));
                    opps[n++] = mmtb_sym_apply(v, g, op);
                }
        }
        mmtb_index_rank_stab_many(ix, s, movers, opps, n, got, nst);
        for (int k = 0; k < n; k++) {
            int want = 0;
            REQUIRE_EQ(got[k], mmtb_index_rank_stab(ix, s, movers[k], opps[k], &want));
            REQUIRE_EQ(nst[k], want);
        }
    }
    free(movers);
    free(opps);
    free(got);
    free(nst);
}

/*
 * The one-stone extensions of positions with a plain canonical mover (no
 * symmetry of its own) are the slots ranking gives, relative to the
 * mover's block; every other mover set has no plain block.  For positions
 * spread over sector s, each of its movers' symmetric images, and every
 * set of empty points added.
 */
static void check_rank_added(const struct mmtb_variant *v, const mmtb_index *ix,
                             struct mmtb_sector s)
{
    struct mmtb_sector t = s;
    t.b++;
    if (s.w + t.b > v->npoints)
        return;
    uint64_t slots = mmtb_index_slots(ix, s);
    uint32_t got[MMTB_MAX_POINTS];
    int plain = 0;
    for (uint64_t slot = 0; slot < slots; slot += slots / 89 + 1) {
        uint32_t mo, op;
        mmtb_index_unrank(ix, s, slot, &mo, &op);
        uint32_t empty = v->full & ~(mo | op);
        for (int g = 0; g < v->nsyms; g++) {
            uint32_t gm = mmtb_sym_apply(v, g, mo), go = mmtb_sym_apply(v, g, op);
            uint32_t ge = mmtb_sym_apply(v, g, empty);
            uint64_t base = mmtb_index_plain_block(ix, t, gm);
            /* plain: gm is what its positions' slots hold, and only the
             * identity maps it to itself */
            uint32_t um, uo;
            mmtb_index_unrank(ix, t, mmtb_index_rank(ix, t, gm, go | (ge & -ge)), &um, &uo);
            bool want = um == gm;
            for (int h = 1; h < v->nsyms; h++)
                want = want && mmtb_sym_apply(v, h, gm) != gm;
            REQUIRE_EQ(base != UINT64_MAX, want);
            if (base == UINT64_MAX)
                continue;
            plain++;
            /* all empty points, then every other one */
            for (int pass = 0; pass < 2; pass++) {
                uint32_t add = ge;
                if (pass)
                    for (uint32_t e = ge, k = 0; e; e &= e - 1, k++)
                        if (k & 1)
                            add &= ~(e & -e);
                int n = mmtb_index_rank_added(ix, gm, go, add, got);
                REQUIRE_EQ(n, __builtin_popcount(add));
                int k = 0;
                for (uint32_t e = add; e; e &= e - 1, k++)
                    REQUIRE_EQ(base + got[k], mmtb_index_rank(ix, t, gm, go | (e & -e)));
            }
        }
    }
    /* a mover with symmetries of its own has no plain block (the empty set
     * is fixed by every symmetry) */
    if (v->nsyms > 1) {
        struct mmtb_sector z = {0, t.b, 0, 0};
        REQUIRE_EQ(mmtb_index_plain_block(ix, z, 0), UINT64_MAX);
    }
    /* every sector of more than a few stones has plain movers */
    if (s.w >= 4 && s.w <= 6)
        REQUIRE(plain > 0);
}

/* Every sector (w, b) with w, b <= max_stones and w + b <= limit of a
 * variant, by positions or by slots, with both rank implementations. */
static void check_variant(const char *name, int max_stones, int limit)
{
    struct mmtb_variant *v = load(name);
    mmtb_index *ix = NULL, *ixp = NULL;
    ck_assert_int_eq(mmtb_index_create(&ix, v, max_stones), MMTB_OK);
    ck_assert_int_eq(mmtb_index_create(&ixp, v, max_stones), MMTB_OK);
    ck_assert_ptr_eq(mmtb_index_variant(ix), v);
    ck_assert(!mmtb_index_set_portable(ixp, true));
    struct tref_index ref;
    tref_index_init(&ref, v, max_stones);
    for (int w = 0; w <= max_stones; w++)
        for (int b = 0; b <= max_stones && w + b <= limit && w + b <= v->npoints; b++) {
            struct mmtb_sector s = sec(w, b, 0, 0);
            if (mmtb_index_positions(v, s) <= FULL_LIMIT)
                check_sector_positions(v, ix, ixp, &ref, s);
            else
                check_sector_slots(v, ix, ixp, &ref, s);
            check_walks(ix, s);
            check_walks(ixp, s);
            check_same_mover(v, ix, s);
            check_same_mover(v, ixp, s);
            check_stab_many(v, ix, s);
            check_stab_many(v, ixp, s);
            check_rank_added(v, ix, s);
            check_rank_added(v, ixp, s);
        }
    tref_index_free(&ref);
    mmtb_index_free(ixp);
    mmtb_index_free(ix);
    mmtb_variant_free(v);
}

START_TEST(test_three_whole_sectors)
{
    check_variant("three", 3, 9);
    check_variant("three-diag", 3, 9);
}
END_TEST

START_TEST(test_six_whole_sectors)
{
    check_variant("six", 6, 16);
}
END_TEST

START_TEST(test_nine_small_sectors)
{
    check_variant("nine", 6, 6);
}
END_TEST

/* Hands do not change the index: a sector with stones in hand has the
 * slots and ranks of the same board counts without. */
START_TEST(test_hands_do_not_matter)
{
    struct mmtb_variant *v = load("nine");
    mmtb_index *ix = NULL;
    ck_assert_int_eq(mmtb_index_create(&ix, v, 9), MMTB_OK);
    const int cases[][4] = {{0, 0, 9, 9}, {0, 1, 9, 8}, {2, 3, 7, 6}, {1, 3, 7, 6}, {5, 4, 1, 1}};
    uint64_t seed = 7;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct mmtb_sector s = sec(cases[i][0], cases[i][1], cases[i][2], cases[i][3]);
        struct mmtb_sector t = sec(s.w, s.b, 0, 0);
        ck_assert_uint_eq(mmtb_index_slots(ix, s), mmtb_index_slots(ix, t));
        ck_assert_uint_eq(mmtb_index_canonical(v, s), mmtb_index_canonical(v, t));
        ck_assert_uint_eq(mmtb_index_positions(v, s), mmtb_index_positions(v, t));
        for (int k = 0; k < 1000; k++) {
            uint32_t mo = tref_rand_subset(&seed, v->full, s.w);
            uint32_t op = tref_rand_subset(&seed, v->full & ~mo, s.b);
            REQUIRE_EQ(mmtb_index_rank(ix, s, mo, op), mmtb_index_rank(ix, t, mo, op));
        }
    }
    mmtb_index_free(ix);
    mmtb_variant_free(v);
}
END_TEST

/* Counts of the empty sector and of a sector that does not fit. */
START_TEST(test_counts_edge_cases)
{
    struct mmtb_variant *v = load("three");
    mmtb_index *ix = NULL;
    ck_assert_int_eq(mmtb_index_create(&ix, v, 3), MMTB_OK);
    ck_assert_uint_eq(mmtb_index_slots(ix, sec(0, 0, 0, 0)), 1);
    ck_assert_uint_eq(mmtb_index_canonical(v, sec(0, 0, 0, 0)), 1);
    ck_assert_uint_eq(mmtb_index_positions(v, sec(0, 0, 0, 0)), 1);
    /* one stone on the 3x3 board: corner, edge or centre */
    ck_assert_uint_eq(mmtb_index_canonical(v, sec(1, 0, 0, 0)), 3);
    ck_assert_uint_eq(mmtb_index_slots(ix, sec(1, 0, 0, 0)), 3);
    ck_assert_uint_eq(mmtb_index_positions(v, sec(5, 5, 0, 0)), 0);
    ck_assert_uint_eq(mmtb_index_canonical(v, sec(5, 5, 0, 0)), 0);
    ck_assert_uint_eq(mmtb_index_slots(ix, sec(4, 1, 0, 0)), 0); /* w > max_stones */
    ck_assert(
        !mmtb_index_slot_is_canonical(ix, sec(3, 3, 0, 0), mmtb_index_slots(ix, sec(3, 3, 0, 0))));
    mmtb_index_free(ix);
    mmtb_variant_free(v);
}
END_TEST

/* The worked example of FORMAT.md, computed by hand: Three Men's Morris,
 * points a1 b1 c1 a2 b2 c2 a3 b3 c3 = 0..8. */
START_TEST(test_three_worked_example)
{
    struct mmtb_variant *v = load("three");
    mmtb_index *ix = NULL;
    ck_assert_int_eq(mmtb_index_create(&ix, v, 3), MMTB_OK);
    const uint32_t a1 = 1u << 0, b1 = 1u << 1, a2 = 1u << 3, b2 = 1u << 4, c3 = 1u << 8;
    struct mmtb_sector s = sec(1, 1, 0, 0);
    ck_assert_uint_eq(mmtb_index_slots(ix, s), 24);
    ck_assert_uint_eq(mmtb_index_canonical(v, s), 12);
    ck_assert_uint_eq(mmtb_index_rank(ix, s, c3, b2), 3);
    uint32_t mo, op;
    mmtb_index_unrank(ix, s, 3, &mo, &op);
    ck_assert_uint_eq(mo, a1);
    ck_assert_uint_eq(op, b2);
    mmtb_index_unrank(ix, s, 2, &mo, &op);
    ck_assert_uint_eq(mo, a1);
    ck_assert_uint_eq(op, a2);
    ck_assert(!mmtb_index_slot_is_canonical(ix, s, 2));
    ck_assert_uint_eq(mmtb_index_rank(ix, s, a1, a2), 0);
    mmtb_index_unrank(ix, s, 0, &mo, &op);
    ck_assert_uint_eq(op, b1);
    ck_assert(mmtb_index_slot_is_canonical(ix, s, 0));
    mmtb_index_free(ix);
    mmtb_variant_free(v);
}
END_TEST

/* Tables that would be too large are refused before anything big is
 * allocated: a 32-point board of four concentric squares. */
START_TEST(test_create_limits)
{
    char text[8192];
    size_t len = 0;
    len += (size_t)snprintf(text + len, sizeof text - len, "name rings\nstones 8\n");
    static const int dx[8] = {0, 1, 1, 1, 0, -1, -1, -1}, dy[8] = {1, 1, 0, -1, -1, -1, 0, 1};
    for (int r = 0; r < 4; r++)
        for (int i = 0; i < 8; i++)
            len += (size_t)snprintf(text + len, sizeof text - len, "point p%d %d %d\n", 8 * r + i,
                                    4 + (r + 1) * dx[i], 4 + (r + 1) * dy[i]);
    for (int r = 0; r < 4; r++)
        for (int c = 1; c < 8; c += 2)
            len += (size_t)snprintf(text + len, sizeof text - len,
                                    "line p%d p%d p%d\nmill p%d p%d p%d\n", 8 * r + c,
                                    8 * r + (c + 1) % 8, 8 * r + (c + 2) % 8, 8 * r + c,
                                    8 * r + (c + 1) % 8, 8 * r + (c + 2) % 8);
    for (int i = 0; i < 8; i += 2)
        len += (size_t)snprintf(text + len, sizeof text - len, "line p%d p%d p%d p%d\n", i, 8 + i,
                                16 + i, 24 + i);
    ck_assert_uint_lt(len, sizeof text - 1);
    struct mmtb_variant *v = NULL;
    char err[256] = "";
    ck_assert_msg(mmtb_variant_parse(&v, text, len, "test:rings", err, sizeof err) == MMTB_OK, "%s",
                  err);
    ck_assert_int_eq(v->npoints, 32);
    static int dummy;
    mmtb_index *ix = (mmtb_index *)&dummy; /* must be reset to NULL on failure */
    ck_assert_int_eq(mmtb_index_create(&ix, v, 16), MMTB_ERR_UNSUPPORTED);
    ck_assert_ptr_null(ix);
    ck_assert_int_eq(mmtb_index_create(&ix, v, -1), MMTB_ERR_INVALID);
    ck_assert_ptr_null(ix);
    ck_assert_int_eq(mmtb_index_create(&ix, v, 3), MMTB_OK);
    struct tref_index ref;
    tref_index_init(&ref, v, 3);
    check_sector_slots(v, ix, ix, &ref, sec(2, 2, 0, 0));
    tref_index_free(&ref);
    mmtb_index_free(ix);
    mmtb_variant_free(v);

    /* max_stones beyond the board is clamped to the board */
    v = load("three");
    ck_assert_int_eq(mmtb_index_create(&ix, v, 20), MMTB_OK);
    ck_assert_uint_eq(mmtb_index_slots(ix, sec(9, 0, 0, 0)), 1);
    mmtb_index_free(ix);
    mmtb_index_free(NULL);
    mmtb_variant_free(v);
}
END_TEST

/* The 49 movement sectors of Nine Men's Morris: the published total of
 * canonical positions and the binomial total, sector by sector against the
 * library; every slot count covers its canonical positions. */
START_TEST(test_nine_published_totals)
{
    struct mmtb_variant *v = load("nine");
    ck_assert_int_eq(v->npoints, 24);
    ck_assert_int_eq(v->nsyms, 16);
    mmtb_index *ix = NULL;
    ck_assert_int_eq(mmtb_index_create(&ix, v, 9), MMTB_OK);
    uint64_t canon = 0, pos = 0, slots = 0;
    int sectors = 0;
    for (int w = 3; w <= 9; w++)
        for (int b = 3; b <= 9; b++) {
            struct mmtb_sector s = sec(w, b, 0, 0);
            uint64_t c = tref_orbits(v, w, b);
            uint64_t p = tref_binom(24, w) * tref_binom(24 - w, b);
            ck_assert_uint_eq(mmtb_index_canonical(v, s), c);
            ck_assert_uint_eq(mmtb_index_positions(v, s), p);
            ck_assert_uint_ge(mmtb_index_slots(ix, s), c);
            /* an orbit has at most 16 positions */
            ck_assert_uint_ge(16 * c, p);
            canon += c;
            pos += p;
            slots += mmtb_index_slots(ix, s);
            sectors++;
        }
    ck_assert_int_eq(sectors, 49);
    ck_assert_uint_eq(canon, 8904593601ull);
    ck_assert_uint_eq(pos, 142430121724ull);
    /* the scheme's waste on these sectors stays below 5 % */
    ck_assert_uint_lt(slots - canon, canon / 20);
    mmtb_index_free(ix);
    mmtb_variant_free(v);
}
END_TEST

/* ------------------------------------------------------------------------
 * Sector graph.
 * ---------------------------------------------------------------------- */

static int find_sector(const struct mmtb_sector *list, int cnt, struct mmtb_sector s)
{
    for (int i = 0; i < cnt; i++)
        if (sec_eq(list[i], s))
            return i;
    return -1;
}

/*
 * The solving order: each sector's successors are in the list (closed) and
 * come earlier, except its partner (b, w, bh, wh), which stands right next
 * to it; no sector appears twice.
 */
static void check_order(const struct mmtb_variant *v, const struct mmtb_sector *list, int cnt)
{
    for (int i = 0; i < cnt; i++) {
        REQUIRE_EQ(find_sector(list, cnt, list[i]), i);
        struct mmtb_sector next[8];
        int k = mmtb_sector_moves_to(v, list[i], next);
        REQUIRE(k >= 0 && k <= 8);
        for (int j = 0; j < k; j++) {
            int at = find_sector(list, cnt, next[j]);
            if (at < 0)
                ck_abort_msg("successor %d-%d-%d-%d of %d-%d-%d-%d missing", next[j].w, next[j].b,
                             next[j].w_hand, next[j].b_hand, list[i].w, list[i].b, list[i].w_hand,
                             list[i].b_hand);
            bool partner = next[j].w == list[i].b && next[j].b == list[i].w &&
                           next[j].w_hand == list[i].b_hand && next[j].b_hand == list[i].w_hand;
            if (partner && at != i)
                REQUIRE_EQ(abs(at - i), 1);
            else if (at > i)
                ck_abort_msg("%d-%d-%d-%d (at %d) needs %d-%d-%d-%d (at %d)", list[i].w, list[i].b,
                             list[i].w_hand, list[i].b_hand, i, next[j].w, next[j].b,
                             next[j].w_hand, next[j].b_hand, at);
        }
    }
}

START_TEST(test_nine_movement_list)
{
    struct mmtb_variant *v = load("nine");
    struct mmtb_sector list[256];
    int cnt = mmtb_sector_list(v, 0, 0, 0, list, 256);
    ck_assert_int_eq(cnt, 49);
    for (int w = 3; w <= 9; w++)
        for (int b = 3; b <= 9; b++)
            ck_assert_int_ge(find_sector(list, cnt, sec(w, b, 0, 0)), 0);
    check_order(v, list, cnt);
    /* 3-3 has no successor but itself, so it comes first */
    ck_assert(sec_eq(list[0], sec(3, 3, 0, 0)));
    /* max_stones limits the sides; too small a buffer is an error */
    ck_assert_int_eq(mmtb_sector_list(v, 0, 0, 5, list, 256), 9);
    check_order(v, list, 9);
    ck_assert_int_eq(mmtb_sector_list(v, 0, 0, 0, list, 48), MMTB_ERR_INVALID);
    ck_assert_int_eq(mmtb_sector_list(v, -1, 0, 0, list, 256), MMTB_ERR_INVALID);
    mmtb_variant_free(v);
}
END_TEST

/* A capture from the movement sector (w, b) of nine: to (b-1, w) unless
 * that leaves fewer than 3; a quiet move to the partner. */
START_TEST(test_nine_moves_to)
{
    struct mmtb_variant *v = load("nine");
    struct mmtb_sector out[8];
    ck_assert_int_eq(mmtb_sector_moves_to(v, sec(5, 4, 0, 0), out), 2);
    ck_assert_int_ge(find_sector(out, 2, sec(4, 5, 0, 0)), 0);
    ck_assert_int_ge(find_sector(out, 2, sec(3, 5, 0, 0)), 0);
    ck_assert_int_eq(mmtb_sector_moves_to(v, sec(5, 3, 0, 0), out), 1);
    ck_assert(sec_eq(out[0], sec(3, 5, 0, 0)));
    /* placement: quiet and capture; the capture needs three stones */
    ck_assert_int_eq(mmtb_sector_moves_to(v, sec(2, 2, 7, 7), out), 2);
    ck_assert_int_ge(find_sector(out, 2, sec(2, 3, 7, 6)), 0);
    ck_assert_int_ge(find_sector(out, 2, sec(1, 3, 7, 6)), 0);
    ck_assert_int_eq(mmtb_sector_moves_to(v, sec(1, 1, 8, 8), out), 1);
    ck_assert(sec_eq(out[0], sec(1, 2, 8, 7)));
    /* the last placement leads into the movement phase */
    ck_assert_int_eq(mmtb_sector_moves_to(v, sec(8, 9, 1, 0), out), 2);
    ck_assert_int_ge(find_sector(out, 2, sec(9, 9, 0, 0)), 0);
    ck_assert_int_ge(find_sector(out, 2, sec(8, 9, 0, 0)), 0);
    mmtb_variant_free(v);
}
END_TEST

/*
 * The sector graph of Nine Men's Morris written out independently: from
 * (w, b, wh, bh) a placement (wh > 0) gives (b, w+1, bh, wh-1), a slide or
 * flight (wh = 0) gives (b, w, bh, 0), and either with a capture one stone
 * fewer for the opponent; results where the opponent keeps fewer than 3
 * stones (board plus hand) end the game.  With need_mill, a capture also
 * needs the mover to have 3 stones on the board after the move.  Returns
 * the number of sectors reachable from (0, 0, 9, 9).
 */
static int nine_closure(bool need_mill, struct mmtb_sector *out, int cap)
{
    int cnt = 0;
    out[cnt++] = sec(0, 0, 9, 9);
    for (int i = 0; i < cnt; i++) {
        struct mmtb_sector s = out[i], next[2];
        int w = s.w, b = s.b, wh = s.w_hand, bh = s.b_hand, k = 0;
        int w2 = wh > 0 ? w + 1 : w, wh2 = wh > 0 ? wh - 1 : 0;
        if (w2 + b > 24 || (wh == 0 && w + b == 24))
            continue;
        next[k++] = sec(b, w2, bh, wh2);
        if (b > 0 && (!need_mill || w2 >= 3))
            next[k++] = sec(b - 1, w2, bh, wh2);
        for (int j = 0; j < k; j++) {
            if (next[j].w + next[j].w_hand < 3 || find_sector(out, cnt, next[j]) >= 0)
                continue;
            ck_assert_int_lt(cnt, cap);
            out[cnt++] = next[j];
        }
    }
    return cnt;
}

/*
 * The library's list for the real start of nine is exactly the closure
 * above with the mill condition; without it, the closure has the 498
 * sectors of Malom's complete standard game (KNOWN_RESULTS.md), which
 * shows that the condition only drops sectors where a side has lost a
 * stone to a "mill" of fewer than three stones.
 */
START_TEST(test_nine_start_list_independent)
{
    struct mmtb_variant *v = load("nine");
    static struct mmtb_sector list[4096], mine[4096], loose[4096];
    int cnt = mmtb_sector_list(v, 9, 9, 0, list, 4096);
    int nmine = nine_closure(true, mine, 4096);
    ck_assert_int_eq(cnt, nmine);
    for (int i = 0; i < nmine; i++)
        ck_assert_int_ge(find_sector(list, cnt, mine[i]), 0);
    int nloose = nine_closure(false, loose, 4096);
    ck_assert_int_eq(nloose, 498);
    for (int i = 0; i < nloose; i++) {
        struct mmtb_sector s = loose[i];
        if (find_sector(list, cnt, s) >= 0)
            continue;
        /* a dropped sector: some side has lost more stones than the other
         * could have captured with 3 stones on the board */
        int placed_w = 9 - s.w_hand, placed_b = 9 - s.b_hand;
        ck_assert(s.w < placed_w || s.b < placed_b);
    }
    mmtb_variant_free(v);
}
END_TEST

/*
 * The real start of nine: contains the start and all 49 movement sectors,
 * the start comes last (everything is reached from it), and every sector
 * is consistent with alternating placement from 9 v 9: the side to move
 * has placed as many stones as the other (equal hands) or one fewer, no
 * side has more stones than it placed, and both keep at least 3.
 */
START_TEST(test_nine_start_list)
{
    struct mmtb_variant *v = load("nine");
    static struct mmtb_sector list[4096];
    int cnt = mmtb_sector_list(v, 9, 9, 0, list, 4096);
    ck_assert_int_gt(cnt, 49);
    check_order(v, list, cnt);
    ck_assert(sec_eq(list[cnt - 1], sec(0, 0, 9, 9)));
    for (int w = 3; w <= 9; w++)
        for (int b = 3; b <= 9; b++)
            ck_assert_int_ge(find_sector(list, cnt, sec(w, b, 0, 0)), 0);
    for (int i = 0; i < cnt; i++) {
        struct mmtb_sector s = list[i];
        ck_assert(s.w_hand == s.b_hand || s.w_hand == s.b_hand + 1);
        ck_assert_int_le(s.w + s.w_hand, 9);
        ck_assert_int_le(s.b + s.b_hand, 9);
        ck_assert_int_ge(s.w + s.w_hand, 3);
        ck_assert_int_ge(s.b + s.b_hand, 3);
    }
    /* White's first placement; Black's reply; a mill of White's first three
     * stones taking one of Black's two */
    ck_assert_int_ge(find_sector(list, cnt, sec(0, 1, 9, 8)), 0);
    ck_assert_int_ge(find_sector(list, cnt, sec(1, 1, 8, 8)), 0);
    ck_assert_int_ge(find_sector(list, cnt, sec(1, 3, 7, 6)), 0);
    /* a side that lost a stone to a mill of two stones cannot exist */
    ck_assert_int_lt(find_sector(list, cnt, sec(0, 2, 8, 7)), 0);
    /* an unequal start: White 4, Black 5 in hand */
    cnt = mmtb_sector_list(v, 4, 5, 0, list, 4096);
    ck_assert_int_gt(cnt, 0);
    ck_assert(sec_eq(list[cnt - 1], sec(0, 0, 4, 5)));
    check_order(v, list, cnt);
    ck_assert_int_eq(mmtb_sector_list(v, 9, 9, 0, list, 10), MMTB_ERR_INVALID);
    mmtb_variant_free(v);
}
END_TEST

/* Three Men's Morris: no captures (the first mill wins), so every sector
 * keeps all 3 + 3 stones and the game ends in the movement sector 3-3. */
START_TEST(test_three_start_list)
{
    struct mmtb_variant *v = load("three");
    struct mmtb_sector list[64];
    int cnt = mmtb_sector_list(v, 3, 3, 0, list, 64);
    ck_assert_int_eq(cnt, 7); /* hands 3-3, 3-2, 2-2, 2-1, 1-1, 1-0, 0-0 */
    for (int i = 0; i < cnt; i++) {
        ck_assert_int_eq(list[i].w + list[i].w_hand, 3);
        ck_assert_int_eq(list[i].b + list[i].b_hand, 3);
    }
    ck_assert(sec_eq(list[0], sec(3, 3, 0, 0)));
    check_order(v, list, cnt);
    mmtb_variant_free(v);
}
END_TEST

/* Every built-in variant: both lists in a valid order. */
START_TEST(test_all_variants_order)
{
    const char *const *names = mmtb_variant_builtin_names();
    static struct mmtb_sector list[8192];
    int nv = 0;
    for (; names[nv]; nv++) {
        struct mmtb_variant *v = load(names[nv]);
        int cnt = mmtb_sector_list(v, 0, 0, 0, list, 8192);
        ck_assert_int_gt(cnt, 0);
        check_order(v, list, cnt);
        cnt = mmtb_sector_list(v, v->stones, v->stones, 0, list, 8192);
        ck_assert_int_gt(cnt, 0);
        check_order(v, list, cnt);
        ck_assert(sec_eq(list[cnt - 1], sec(0, 0, v->stones, v->stones)));
        mmtb_variant_free(v);
    }
    ck_assert_int_ge(nv, 9);
}
END_TEST

/* Lasker (place or move): quiet moves with stones in hand go to the
 * partner, so partner sectors with hands must stand together. */
START_TEST(test_lasker_partners)
{
    struct mmtb_variant *v = load("lasker");
    ck_assert(v->place_or_move);
    struct mmtb_sector out[8];
    int k = mmtb_sector_moves_to(v, sec(4, 3, 5, 6), out);
    ck_assert_int_ge(find_sector(out, k, sec(3, 4, 6, 5)), 0); /* a move */
    ck_assert_int_ge(find_sector(out, k, sec(3, 5, 6, 4)), 0); /* a placement */
    ck_assert_int_ge(find_sector(out, k, sec(2, 4, 6, 5)), 0); /* a move with a capture */
    ck_assert_int_ge(find_sector(out, k, sec(2, 5, 6, 4)), 0); /* a placement with a capture */
    ck_assert_int_eq(k, 4);
    mmtb_variant_free(v);
}
END_TEST

/* A variant whose blocked side passes: the pass is a move to the partner,
 * even from a full board; first-mill-wins variants never capture. */
START_TEST(test_pass_and_no_capture_rules)
{
    const char *base = mmtb_variant_builtin_text("nine");
    ck_assert_ptr_nonnull(base);
    size_t blen = strlen(base);
    char *text = malloc(blen + 64);
    memcpy(text, base, blen);
    strcpy(text + blen, "\nno-move pass\n");
    struct mmtb_variant *v = NULL;
    char err[256] = "";
    ck_assert_msg(mmtb_variant_parse(&v, text, strlen(text), "test:pass", err, sizeof err) ==
                      MMTB_OK,
                  "%s", err);
    ck_assert_int_eq(v->nomove, MMTB_NOMOVE_PASSES);
    struct mmtb_sector out[8];
    ck_assert_int_eq(mmtb_sector_moves_to(v, sec(12, 12, 0, 0), out), 1);
    ck_assert(sec_eq(out[0], sec(12, 12, 0, 0)));
    ck_assert_int_eq(mmtb_sector_moves_to(v, sec(5, 4, 0, 0), out), 2);
    mmtb_variant_free(v);
    free(text);

    v = load("three-diag");
    ck_assert(v->first_mill_wins);
    ck_assert_int_eq(mmtb_sector_moves_to(v, sec(3, 3, 0, 0), out), 1);
    ck_assert_int_eq(mmtb_sector_moves_to(v, sec(2, 3, 1, 0), out), 1);
    ck_assert(sec_eq(out[0], sec(3, 3, 0, 0)));
    mmtb_variant_free(v);
}
END_TEST

/* ------------------------------------------------------------------------
 * Names.
 * ---------------------------------------------------------------------- */

START_TEST(test_format_parse)
{
    char buf[32];
    ck_assert_int_eq(mmtb_sector_format(sec(3, 4, 0, 0), buf, sizeof buf), 3);
    ck_assert_str_eq(buf, "3-4");
    ck_assert_int_eq(mmtb_sector_format(sec(0, 1, 9, 8), buf, sizeof buf), 7);
    ck_assert_str_eq(buf, "0-1-9-8");
    ck_assert_int_eq(mmtb_sector_format(sec(12, 10, 0, 2), buf, sizeof buf), 9);
    ck_assert_str_eq(buf, "12-10-0-2");
    ck_assert_int_eq(mmtb_sector_format(sec(12, 10, 0, 2), buf, 9), MMTB_ERR_INVALID);
    ck_assert_int_eq(mmtb_sector_format(sec(1, 1, 0, 0), buf, 0), MMTB_ERR_INVALID);

    struct mmtb_sector s;
    ck_assert_int_eq(mmtb_sector_parse("9-3", &s), MMTB_OK);
    ck_assert(sec_eq(s, sec(9, 3, 0, 0)));
    ck_assert_int_eq(mmtb_sector_parse("0-0-9-9", &s), MMTB_OK);
    ck_assert(sec_eq(s, sec(0, 0, 9, 9)));
    ck_assert_int_eq(mmtb_sector_parse("32-0-0-32", &s), MMTB_OK);
    ck_assert(sec_eq(s, sec(32, 0, 0, 32)));
    ck_assert_int_eq(mmtb_sector_parse("3-3-0-0", &s), MMTB_OK);
    ck_assert(sec_eq(s, sec(3, 3, 0, 0)));

    static const char *const bad[] = {
        "",          "3",    "3-",           "-3-3",  "3--3",  "3-3-", "3-3-1",
        "3-3-1-1-1", "33-3", "03-3",         "3-3 ",  " 3-3",  "3-a",  "+3-3",
        "3-3-0-0x",  "3_3",  "4294967299-3", "3-3\n", "3.0-3", "x",    "-",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        s = sec(1, 2, 3, 4);
        ck_assert_msg(mmtb_sector_parse(bad[i], &s) == MMTB_ERR_PARSE, "accepted '%s'", bad[i]);
    }
    ck_assert_int_eq(mmtb_sector_parse(NULL, &s), MMTB_ERR_PARSE);

    /* round trip over every sector of the nine start */
    struct mmtb_variant *v = load("nine");
    static struct mmtb_sector list[4096];
    int cnt = mmtb_sector_list(v, 9, 9, 0, list, 4096);
    for (int i = 0; i < cnt; i++) {
        ck_assert_int_gt(mmtb_sector_format(list[i], buf, sizeof buf), 0);
        ck_assert_int_eq(mmtb_sector_parse(buf, &s), MMTB_OK);
        ck_assert(sec_eq(s, list[i]));
    }
    mmtb_variant_free(v);
}
END_TEST

/* ------------------------------------------------------------------------
 * Twelve's re-close restrictions (ban_index.h).
 * ---------------------------------------------------------------------- */

/* The image of edge code c under symmetry g (-1 stays -1). */
static int sym_edge(const struct mmtb_variant *v, int g, int c)
{
    int y, x;
    if (c < 0)
        return -1;
    REQUIRE(mmtb_edge_points(v, c, &y, &x));
    return mmtb_edge_code(v, v->sym[g][y], v->sym[g][x]);
}

/* Number of symmetries mapping the state (m, o, f, t) to (m2, o2, f2, t2);
 * with the same state on both sides, the order of its stabilizer. */
static int maps_to(const struct mmtb_variant *v, uint32_t m, uint32_t o, int f, int t, uint32_t m2,
                   uint32_t o2, int f2, int t2)
{
    int n = 0;
    for (int g = 0; g < v->nsyms; g++)
        n += mmtb_sym_apply(v, g, m) == m2 && mmtb_sym_apply(v, g, o) == o2 &&
             sym_edge(v, g, f) == f2 && sym_edge(v, g, t) == t2;
    return n;
}

/*
 * A whole twelve sector with every combination of live restrictions: every
 * slot unranks to a valid position; every state ranks to a canonical slot
 * holding a symmetric image of it, as do its images; and the canonical
 * slots number the orbits (Burnside: the stabilizer orders of all states
 * sum to |G| times the orbits).  Returns the states with a restriction.
 */
static uint64_t check_ban_sector(const struct mmtb_variant *v, const mmtb_index *ix,
                                 struct mmtb_sector s)
{
    mmtb_ban_index *bx = NULL;
    ck_assert_int_eq(mmtb_ban_index_create(&bx, ix, s), MMTB_OK);
    uint64_t slots = mmtb_ban_index_slots(bx), base = mmtb_ban_index_base(bx);
    REQUIRE_EQ(base, mmtb_index_slots(ix, s));
    ck_assert(slots > base);
    struct mmtb_pos p = {{0, 0}, {s.w_hand, s.b_hand}, MMTB_WHITE, 0, -1, -1, 0};
    uint64_t canonical = 0;
    char why[160];
    for (uint64_t slot = 0; slot < slots; slot++) {
        mmtb_ban_index_unrank_pos(bx, slot, &p);
        if (mmtb_pos_validate(v, &p, why, sizeof why) != MMTB_OK)
            ck_abort_msg("slot %llu: %s", (unsigned long long)slot, why);
        REQUIRE_EQ(__builtin_popcount(p.stones[0]), s.w);
        REQUIRE_EQ(__builtin_popcount(p.stones[1]), s.b);
        canonical += mmtb_ban_index_rank_pos(bx, &p) == slot;
    }
    uint64_t stab_sum = 0, banned = 0;
    int8_t F[MMTB_MAX_BANS], T[MMTB_MAX_BANS];
    uint32_t lim = UINT32_C(1) << v->npoints;
    for (uint32_t m = (1u << s.w) - 1; m < lim; m = (uint32_t)tref_next_subset(m)) {
        uint32_t e = v->full & ~m;
        for (uint32_t x = (1u << s.b) - 1; x < (1u << (v->npoints - s.w));
             x = (uint32_t)tref_next_subset(x)) {
            uint32_t o = tref_deposit(x, e);
            int nf = s.w_hand ? 0 : mmtb_live_bans(v, m, o, F);
            int nt = s.b_hand ? 0 : mmtb_live_bans(v, o, m, T);
            for (int a = -1; a < nf; a++)
                for (int b = -1; b < nt; b++) {
                    int f = a < 0 ? -1 : F[a], t = b < 0 ? -1 : T[b];
                    uint64_t r = mmtb_ban_index_rank(bx, m, o, f, t);
                    REQUIRE(r < slots);
                    REQUIRE((f < 0 && t < 0) == (r < base));
                    uint32_t m2, o2;
                    int f2, t2;
                    mmtb_ban_index_unrank(bx, r, &m2, &o2, &f2, &t2);
                    if (maps_to(v, m, o, f, t, m2, o2, f2, t2) == 0)
                        ck_abort_msg("slot %llu holds no image of the state",
                                     (unsigned long long)r);
                    REQUIRE_EQ(mmtb_ban_index_rank(bx, m2, o2, f2, t2), r);
                    /* the stones ranked once: the same slot, in one step or
                     * two (with the state's own live codes mapped), and the
                     * state's stabilizer */
                    struct mmtb_ban_rank br, br2;
                    int nst = 0;
                    mmtb_ban_index_rank_stones(bx, m, o, &br);
                    REQUIRE_EQ(mmtb_ban_index_rank_state_stab(bx, &br, f, t, &nst), r);
                    REQUIRE_EQ(nst, maps_to(v, m, o, f, t, m, o, f, t));
                    uint64_t fs[2] = {0, 0}, ts[2] = {0, 0};
                    for (int k = 0; k < nf; k++)
                        fs[F[k] >> 6] |= (uint64_t)1 << (F[k] & 63);
                    for (int k = 0; k < nt; k++)
                        ts[T[k] >> 6] |= (uint64_t)1 << (T[k] & 63);
                    mmtb_ban_index_rank_begin(bx, m, o, &br2);
                    mmtb_ban_index_rank_end(bx, &br2, fs, ts);
                    REQUIRE_EQ(mmtb_ban_index_rank_state(bx, &br2, f, t), r);
                    /* the stones without their first state, the state by
                     * its place among them (the solver's levels) */
                    struct mmtb_ban_rank br3;
                    int nst3 = 0;
                    mmtb_ban_index_rank_begin_stones(bx, m, o, &br3);
                    mmtb_ban_index_rank_end_stones(bx, &br3, fs, ts);
                    int k3 = mmtb_ban_index_state_offset(bx, &br3, f, t, &nst3);
                    REQUIRE_EQ(k3 < 0 ? br3.slot0
                                      : mmtb_ban_index_first(bx, br3.slot0) + (uint64_t)k3,
                               r);
                    REQUIRE_EQ(nst3, nst);
                    /* a slot with restrictions: its scheme 1 slot owns it */
                    if (r >= base) {
                        uint64_t first, i = mmtb_ban_index_owner(bx, r, &first);
                        REQUIRE_EQ(i, br.slot0);
                        REQUIRE_EQ(first, mmtb_ban_index_first(bx, i));
                        REQUIRE(r >= first &&
                                r < first + (uint64_t)mmtb_ban_index_states(bx, i));
                    }
                    int g = (int)((m ^ o) % (uint32_t)v->nsyms);
                    REQUIRE_EQ(mmtb_ban_index_rank(bx, mmtb_sym_apply(v, g, m),
                                                   mmtb_sym_apply(v, g, o), sym_edge(v, g, f),
                                                   sym_edge(v, g, t)),
                               r);
                    stab_sum += (uint64_t)maps_to(v, m, o, f, t, m, o, f, t);
                    banned += f >= 0 || t >= 0;
                }
        }
    }
    REQUIRE_EQ(stab_sum, canonical * (uint64_t)v->nsyms);
    /* every slot's first state, the base itself included, against the
     * states summed one slot at a time */
    uint64_t before = base;
    for (uint64_t i = 0; i <= base; i++) {
        REQUIRE_EQ(mmtb_ban_index_first(bx, i), before);
        before += i < base ? (uint64_t)mmtb_ban_index_states(bx, i) : 0;
    }
    REQUIRE_EQ(before, slots);
    mmtb_ban_index_free(bx);
    return banned;
}

START_TEST(test_twelve_ban_sectors)
{
    struct mmtb_variant *v = load("twelve");
    mmtb_index *ix = NULL;
    ck_assert_int_eq(mmtb_index_create(&ix, v, 4), MMTB_OK);
    /* movement: both sides may carry one; placement: only the side
     * without stones in hand */
    ck_assert(check_ban_sector(v, ix, sec(3, 3, 0, 0)) > 0);
    ck_assert(check_ban_sector(v, ix, sec(3, 3, 1, 0)) > 0);
    ck_assert(check_ban_sector(v, ix, sec(4, 2, 0, 0)) > 0);
    /* a variant without the rule has no restriction index */
    struct mmtb_variant *nine = load("nine");
    mmtb_index *ixn = NULL;
    mmtb_ban_index *bx = NULL;
    ck_assert_int_eq(mmtb_index_create(&ixn, nine, 3), MMTB_OK);
    ck_assert_int_eq(mmtb_ban_index_create(&bx, ixn, sec(3, 3, 0, 0)), MMTB_ERR_INVALID);
    ck_assert(bx == NULL);
    mmtb_index_free(ixn);
    mmtb_variant_free(nine);
    mmtb_index_free(ix);
    mmtb_variant_free(v);
}
END_TEST

/*
 * The first state slot of the end of the scheme 1 slots is the sector's
 * size: for every sector of twelve and twelve-nine up to 4 stones a side in
 * play and hand, and for twelve's 7-2 (3,017,568 scheme 1 slots, the
 * smallest whose count is a multiple of the runs the prefix sums are kept
 * in, 32), where an entry past the last run, never written, was once read
 * (ctest runs this suite with MALLOC_PERTURB_, so that such memory is not
 * zero by chance; twelve-nine's 6-3 once stopped a solve that way).
 */
static int check_first_at_end(const struct mmtb_variant *v, const mmtb_index *ix,
                              struct mmtb_sector s)
{
    mmtb_ban_index *bx = NULL;
    if (mmtb_ban_index_create(&bx, ix, s) != MMTB_OK)
        return 0;
    uint64_t base = mmtb_ban_index_base(bx), end = mmtb_ban_index_first(bx, base);
    ck_assert_msg(end == mmtb_ban_index_slots(bx), "%s %d-%d-%d-%d: the states end at %llu, not %llu",
                  v->name, s.w, s.b, s.w_hand, s.b_hand, (unsigned long long)end,
                  (unsigned long long)mmtb_ban_index_slots(bx));
    mmtb_ban_index_free(bx);
    return base % 32 == 0 ? 2 : 1;
}

/*
 * The index built in parts (mmtb_ban_index_create_range over ranges of
 * one, two and three runs of MMTB_BAN_CREATE_ALIGN slots, last range first,
 * as threads may finish them) is the one built whole: the same slots, and
 * the same first state slot and number of states for every scheme 1 slot
 * up to the base.  Ranges that do not start or end a run are refused.
 */
static void check_parts(const struct mmtb_variant *v, const mmtb_index *ix, struct mmtb_sector s)
{
    const uint64_t A = MMTB_BAN_CREATE_ALIGN;
    mmtb_ban_index *whole = NULL, *bx = NULL;
    ck_assert_int_eq(mmtb_ban_index_create(&whole, ix, s), MMTB_OK);
    ck_assert_int_eq(mmtb_ban_index_create_begin(&bx, ix, s), MMTB_OK);
    uint64_t base = mmtb_ban_index_base(bx), n = 0, *lo = malloc((base / A + 2) * sizeof *lo);
    for (uint64_t at = 0; at < base; at += A * (n % 3 + 1))
        lo[n++] = at;
    lo[n] = base;
    if (base > A) {
        ck_assert_int_eq(mmtb_ban_index_create_range(bx, 1, A), MMTB_ERR_INVALID);
        ck_assert_int_eq(mmtb_ban_index_create_range(bx, 0, A - 1), MMTB_ERR_INVALID);
    }
    ck_assert_int_eq(mmtb_ban_index_create_range(bx, 0, base + 1), MMTB_ERR_INVALID);
    for (uint64_t k = n; k-- > 0;)
        ck_assert_int_eq(mmtb_ban_index_create_range(bx, lo[k], lo[k + 1]), MMTB_OK);
    mmtb_ban_index_create_end(bx);
    ck_assert_msg(mmtb_ban_index_slots(bx) == mmtb_ban_index_slots(whole), "%s %d-%d-%d-%d: %llu slots in parts, %llu whole",
                  v->name, s.w, s.b, s.w_hand, s.b_hand,
                  (unsigned long long)mmtb_ban_index_slots(bx),
                  (unsigned long long)mmtb_ban_index_slots(whole));
    for (uint64_t i = 0; i <= base; i++) {
        REQUIRE_EQ(mmtb_ban_index_first(bx, i), mmtb_ban_index_first(whole, i));
        if (i < base)
            ck_assert_int_eq(mmtb_ban_index_states(bx, i), mmtb_ban_index_states(whole, i));
    }
    free(lo);
    mmtb_ban_index_free(bx);
    mmtb_ban_index_free(whole);
}

/* Both, on every such sector up to 4 stones a side and on twelve's 7-2. */
START_TEST(test_ban_first_at_end)
{
    static const char *const names[] = {"twelve", "twelve-nine"};
    int n = 0;
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
        struct mmtb_variant *v = load(names[k]);
        mmtb_index *ix = NULL;
        ck_assert_int_eq(mmtb_index_create(&ix, v, 4), MMTB_OK);
        for (int w = 1; w <= 4; w++)
            for (int b = 1; b <= 4; b++)
                for (int wh = 0; wh + w <= 4; wh++)
                    for (int bh = 0; bh + b <= 4; bh++)
                        if (mmtb_ban_index_applies(v, sec(w, b, wh, bh))) {
                            n += check_first_at_end(v, ix, sec(w, b, wh, bh)) > 0;
                            check_parts(v, ix, sec(w, b, wh, bh));
                        }
        mmtb_index_free(ix);
        mmtb_variant_free(v);
    }
    ck_assert_int_ge(n, 50);
    struct mmtb_variant *v = load("twelve");
    mmtb_index *ix = NULL;
    ck_assert_int_eq(mmtb_index_create(&ix, v, 7), MMTB_OK);
    ck_assert_int_eq(check_first_at_end(v, ix, sec(7, 2, 0, 0)), 2);
    check_parts(v, ix, sec(7, 2, 0, 0));
    mmtb_index_free(ix);
    mmtb_variant_free(v);
}
END_TEST

/*
 * An index opened from a count table (mmtb_ban_index_open) numbers every
 * slot as the built one: the same slots, each slot unranks to the same
 * state and that state ranks back the same (every slot of 3-3 with blocks
 * of 2^8 slots, a sample of the rest), for blocks of 2^8, 2^10 and 2^22
 * slots (one block holding the whole sector).  Bad tables are
 * refused: a wrong number of blocks, a count above what a block can own.
 */
START_TEST(test_twelve_ban_open)
{
    struct mmtb_variant *v = load("twelve");
    mmtb_index *ix = NULL;
    ck_assert_int_eq(mmtb_index_create(&ix, v, 4), MMTB_OK);
    const struct mmtb_sector ss[] = {sec(3, 3, 0, 0), sec(4, 2, 0, 1), sec(3, 4, 0, 0)};
    const int logs[] = {8, 10, 22};
    for (int i = 0; i < 3; i++) {
        mmtb_ban_index *bx = NULL;
        ck_assert_int_eq(mmtb_ban_index_create(&bx, ix, ss[i]), MMTB_OK);
        uint64_t slots = mmtb_ban_index_slots(bx);
        for (int k = 0; k < 3; k++) {
            uint64_t n = mmtb_ban_index_blocks(bx, logs[k]);
            REQUIRE_EQ(n, (mmtb_index_slots(ix, ss[i]) + ((uint64_t)1 << logs[k]) - 1) >> logs[k]);
            uint32_t *c = malloc(n * sizeof *c);
            ck_assert_int_eq(mmtb_ban_index_block_counts(bx, logs[k], c), MMTB_OK);
            mmtb_ban_index *lx = NULL;
            ck_assert_int_eq(mmtb_ban_index_open(&lx, ix, ss[i], logs[k], c, n), MMTB_OK);
            REQUIRE_EQ(mmtb_ban_index_slots(lx), slots);
            /* an opened index has no counts of its own to give */
            ck_assert_int_eq(mmtb_ban_index_block_counts(lx, logs[k], c), MMTB_ERR_INVALID);
            /* unranking from a table counts up to 2^log2 positions */
            uint64_t step = i == 0 && k == 0 ? 1 : k < 2 ? 29 : 4099;
            for (uint64_t slot = 0; slot < slots; slot += step) {
                uint32_t m, o, m2, o2;
                int f, t, f2, t2;
                mmtb_ban_index_unrank(bx, slot, &m, &o, &f, &t);
                mmtb_ban_index_unrank(lx, slot, &m2, &o2, &f2, &t2);
                if (m != m2 || o != o2 || f != f2 || t != t2)
                    ck_abort_msg("sector %d, 2^%d: slot %llu unranks differently", i, logs[k],
                                 (unsigned long long)slot);
                REQUIRE_EQ(mmtb_ban_index_rank(lx, m, o, f, t), mmtb_ban_index_rank(bx, m, o, f, t));
            }
            mmtb_ban_index_free(lx);
            /* refused: one block too few or too many, a count too large */
            lx = NULL;
            ck_assert_int_eq(mmtb_ban_index_open(&lx, ix, ss[i], logs[k], c, n - 1),
                             MMTB_ERR_CORRUPT);
            ck_assert_int_eq(mmtb_ban_index_open(&lx, ix, ss[i], logs[k], c, n + 1),
                             MMTB_ERR_CORRUPT);
            uint32_t keep = c[0];
            c[0] = (uint32_t)(255u << logs[k]) + 1;
            ck_assert_int_eq(mmtb_ban_index_open(&lx, ix, ss[i], logs[k], c, n), MMTB_ERR_CORRUPT);
            c[0] = keep;
            ck_assert_int_eq(mmtb_ban_index_open(&lx, ix, ss[i], 7, c, n), MMTB_ERR_INVALID);
            ck_assert(lx == NULL);
            free(c);
        }
        mmtb_ban_index_free(bx);
    }
    mmtb_index_free(ix);
    mmtb_variant_free(v);
}
END_TEST

/* mmtb_ban_index_count: exactly the built index's slots when it may visit
 * the whole sector; from a sample of a twentieth within 5 %; the
 * scheme 1 slots for a sector where neither side may carry a restriction
 * and for a variant without the rule. */
/*
 * Each scheme 1 slot's count of restriction states in bx (the index works
 * them out a walk at a time, from sets of each side's stones alone and
 * tables of their bytes) against the lists of mmtb_live_bans for the
 * position on its own: (|F| + 1)(|T| + 1) - 1 for a canonical slot, 0 for
 * a wasted one.  Beyond a million slots, every 7th run of 4,096.
 */
static void states_per_slot_agree(const struct mmtb_variant *v, const mmtb_index *ix,
                                  const mmtb_ban_index *bx, struct mmtb_sector s)
{
    int8_t F[MMTB_MAX_BANS], T[MMTB_MAX_BANS];
    uint64_t base = mmtb_ban_index_base(bx), with = 0;
    uint64_t run = 4096, step = base > 1000000 ? 7 * run : run;
    for (uint64_t lo = 0; lo < base; lo += step) {
        struct mmtb_index_iter it;
        mmtb_index_iter_start(&it, ix, s, lo, lo + run < base ? lo + run : base);
        uint64_t slot;
        uint32_t m, o;
        bool canon;
        while (mmtb_index_iter_next(&it, &slot, &m, &o, &canon)) {
            int nf = s.w_hand ? 0 : mmtb_live_bans(v, m, o, F);
            int nt = s.b_hand ? 0 : mmtb_live_bans(v, o, m, T);
            int want = canon ? (nf + 1) * (nt + 1) - 1 : 0;
            if (mmtb_ban_index_states(bx, slot) != want)
                ck_abort_msg("sector %d-%d-%d-%d slot %llu: %d states, the live lists give %d",
                             s.w, s.b, s.w_hand, s.b_hand, (unsigned long long)slot,
                             mmtb_ban_index_states(bx, slot), want);
            with += want > 0;
        }
    }
    ck_assert_msg(with > 0, "sector %d-%d-%d-%d: no slot with a restriction looked at", s.w, s.b,
                  s.w_hand, s.b_hand);
}

/* The slots of a sector with restrictions: counted exactly from every
 * position or estimated from a part, against the index; and each slot's
 * count of states (above), where both sides slide and where one places. */
START_TEST(test_twelve_ban_count)
{
    struct mmtb_variant *v = load("twelve");
    mmtb_index *ix = NULL;
    ck_assert_int_eq(mmtb_index_create(&ix, v, 5), MMTB_OK);
    const struct mmtb_sector ss[] = {sec(3, 3, 0, 0), sec(4, 3, 0, 0), sec(4, 2, 0, 1),
                                     sec(5, 4, 0, 0)};
    for (int i = 0; i < 4; i++) {
        mmtb_ban_index *bx = NULL;
        ck_assert_int_eq(mmtb_ban_index_create(&bx, ix, ss[i]), MMTB_OK);
        uint64_t slots = mmtb_ban_index_slots(bx), base = mmtb_ban_index_base(bx);
        ck_assert(slots > base);
        states_per_slot_agree(v, ix, bx, ss[i]);
        bool exact = false;
        REQUIRE_EQ(mmtb_ban_index_count(ix, ss[i], base, &exact), slots);
        ck_assert(exact);
        uint64_t est = mmtb_ban_index_count(ix, ss[i], base / 20, &exact);
        ck_assert(!exact);
        ck_assert_msg(est > base && (double)est > 0.95 * (double)slots &&
                          (double)est < 1.05 * (double)slots,
                      "sector %d: estimate %llu for %llu slots", i, (unsigned long long)est,
                      (unsigned long long)slots);
        mmtb_ban_index_free(bx);
    }
    mmtb_ban_index *bp = NULL; /* the mover still places */
    ck_assert_int_eq(mmtb_ban_index_create(&bp, ix, sec(5, 3, 1, 0)), MMTB_OK);
    states_per_slot_agree(v, ix, bp, sec(5, 3, 1, 0));
    mmtb_ban_index_free(bp);
    bool exact = false;
    REQUIRE_EQ(mmtb_ban_index_count(ix, sec(3, 3, 1, 1), 1000, &exact),
               mmtb_index_slots(ix, sec(3, 3, 1, 1)));
    ck_assert(exact);
    struct mmtb_variant *nine = load("nine");
    mmtb_index *ixn = NULL;
    ck_assert_int_eq(mmtb_index_create(&ixn, nine, 3), MMTB_OK);
    REQUIRE_EQ(mmtb_ban_index_count(ixn, sec(3, 3, 0, 0), 1000, NULL),
               mmtb_index_slots(ixn, sec(3, 3, 0, 0)));
    mmtb_index_free(ixn);
    mmtb_variant_free(nine);
    mmtb_index_free(ix);
    mmtb_variant_free(v);
}
END_TEST

/*
 * Shah's first-mill owner (ban_index.h, first_mill_removal): a whole
 * placement sector, every arrangement with every owner the game allows
 * (none without a mill, the side with a mill, either when both have one):
 * each ranks to a slot holding a symmetric image with the same owner,
 * relative to the side to move, as do its images; each used slot
 * unranks to a valid position; the used slots number the orbits
 * (Burnside) and are the scheme 1 canonical positions plus those where
 * both sides have a mill.  Returns the states with the opponent as owner
 * while both have a mill (the second half's).
 */
static uint64_t check_owner_sector(const struct mmtb_variant *v, const mmtb_index *ix,
                                   struct mmtb_sector s)
{
    mmtb_ban_index *bx = NULL;
    ck_assert(mmtb_ban_index_applies(v, s));
    ck_assert_int_eq(mmtb_ban_index_create(&bx, ix, s), MMTB_OK);
    uint64_t slots = mmtb_ban_index_slots(bx), base = mmtb_ban_index_base(bx);
    REQUIRE_EQ(base, mmtb_index_slots(ix, s));
    REQUIRE_EQ(slots, 2 * base);
    bool exact = false;
    REQUIRE_EQ(mmtb_ban_index_count(ix, s, 1, &exact), slots);
    ck_assert(exact);
    /* both colours as the side to move: the owner is relative to it */
    for (int side = 0; side < 2; side++) {
        struct mmtb_pos p = {{0, 0}, {0, 0}, (uint8_t)side, 0, -1, -1, 0};
        p.hand[side] = s.w_hand;
        p.hand[side ^ 1] = s.b_hand;
        uint64_t used = 0, both_canon = 0;
        char why[160];
        for (uint64_t slot = 0; slot < slots; slot++) {
            mmtb_ban_index_unrank_pos(bx, slot, &p);
            if (mmtb_ban_index_rank_pos(bx, &p) != slot)
                continue;
            used++;
            if (mmtb_pos_validate(v, &p, why, sizeof why) != MMTB_OK)
                ck_abort_msg("slot %llu: %s", (unsigned long long)slot, why);
            REQUIRE_EQ(__builtin_popcount(p.stones[side]), s.w);
            REQUIRE_EQ(__builtin_popcount(p.stones[side ^ 1]), s.b);
            both_canon += slot >= base;
        }
        uint64_t stab_sum = 0, extra = 0;
        uint32_t lim = UINT32_C(1) << v->npoints;
        for (uint32_t m = (1u << s.w) - 1; m < lim; m = (uint32_t)tref_next_subset(m)) {
            uint32_t e = v->full & ~m;
            for (uint32_t x = (1u << s.b) - 1; x < (1u << (v->npoints - s.w));
                 x = (uint32_t)tref_next_subset(x)) {
                uint32_t o = tref_deposit(x, e);
                bool mm = mmtb_variant_in_mill(v, m) != 0, om = mmtb_variant_in_mill(v, o) != 0;
                for (int owner = 0; owner < 3; owner++) {
                    /* 0 none, 1 the side to move, 2 its opponent */
                    if ((owner == 0) != (!mm && !om) || (owner == 1 && !mm) || (owner == 2 && !om))
                        continue;
                    p.stones[side] = m;
                    p.stones[side ^ 1] = o;
                    p.first_mill = owner == 0   ? MMTB_FIRST_MILL_NONE
                                   : owner == 1 ? MMTB_FIRST_MILL_OF(side)
                                                : MMTB_FIRST_MILL_OF(side ^ 1);
                    REQUIRE_EQ(mmtb_pos_validate(v, &p, NULL, 0), MMTB_OK);
                    uint64_t r = mmtb_ban_index_rank_pos(bx, &p);
                    REQUIRE(r < slots);
                    REQUIRE_EQ(r >= base, owner == 2 && mm);
                    struct mmtb_pos q = p;
                    mmtb_ban_index_unrank_pos(bx, r, &q);
                    REQUIRE_EQ(q.first_mill, p.first_mill);
                    int images = 0;
                    for (int g = 0; g < v->nsyms; g++)
                        images += mmtb_sym_apply(v, g, m) == q.stones[side] &&
                                  mmtb_sym_apply(v, g, o) == q.stones[side ^ 1];
                    if (images == 0)
                        ck_abort_msg("slot %llu holds no image of the state",
                                     (unsigned long long)r);
                    int g = (int)((m ^ o) % (uint32_t)v->nsyms);
                    q = p;
                    q.stones[side] = mmtb_sym_apply(v, g, m);
                    q.stones[side ^ 1] = mmtb_sym_apply(v, g, o);
                    REQUIRE_EQ(mmtb_ban_index_rank_pos(bx, &q), r);
                    for (int h = 0; h < v->nsyms; h++)
                        stab_sum += mmtb_sym_apply(v, h, m) == m && mmtb_sym_apply(v, h, o) == o;
                    extra += owner == 2 && mm;
                }
            }
        }
        REQUIRE_EQ(stab_sum, used * (uint64_t)v->nsyms);
        REQUIRE_EQ(used, mmtb_index_canonical(v, s) + both_canon);
        if (side == 1) {
            mmtb_ban_index_free(bx);
            return extra;
        }
    }
    return 0;
}

/* tl_three_shah: its placement sectors are small enough to walk whole, with
 * mills of both sides in many positions. */
START_TEST(test_shah_owner_sectors)
{
    struct mmtb_variant *t = NULL;
    char err[256] = "";
    ck_assert_msg(mmtb_variant_parse(&t, tl_three_shah, strlen(tl_three_shah), "three-shah", err,
                                     sizeof err) ==
                      MMTB_OK,
                  "%s", err);
    mmtb_index *it = NULL;
    ck_assert_int_eq(mmtb_index_create(&it, t, 4), MMTB_OK);
    /* mills of both sides, of one side only, of none */
    ck_assert(check_owner_sector(t, it, sec(3, 3, 1, 1)) > 0);
    ck_assert(check_owner_sector(t, it, sec(3, 4, 1, 0)) > 0);
    ck_assert(check_owner_sector(t, it, sec(2, 3, 2, 1)) == 0);
    ck_assert(check_owner_sector(t, it, sec(1, 1, 3, 3)) == 0);
    mmtb_index_free(it);
    mmtb_variant_free(t);

    struct mmtb_variant *v = load("shah");
    mmtb_index *ix = NULL;
    ck_assert_int_eq(mmtb_index_create(&ix, v, 4), MMTB_OK);
    ck_assert_int_eq(check_owner_sector(v, ix, sec(2, 2, 2, 2)), 0);
    /* the movement sectors keep scheme 1 */
    ck_assert(!mmtb_ban_index_applies(v, sec(4, 4, 0, 0)));
    mmtb_ban_index *bx = NULL;
    ck_assert_int_eq(mmtb_ban_index_create(&bx, ix, sec(4, 4, 0, 0)), MMTB_ERR_INVALID);
    REQUIRE_EQ(mmtb_ban_index_count(ix, sec(4, 4, 0, 0), 1, NULL),
               mmtb_index_slots(ix, sec(4, 4, 0, 0)));
    mmtb_index_free(ix);
    mmtb_variant_free(v);
}
END_TEST

static Suite *index_suite(void)
{
    Suite *su = suite_create("index");
    TCase *tc = tcase_create("index");
    /* under the sanitizers with three suites and a solve sharing 2 cores,
     * test_ban_first_at_end outlasted 240 s (2026-12-02) */
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, test_three_whole_sectors);
    tcase_add_test(tc, test_six_whole_sectors);
    tcase_add_test(tc, test_nine_small_sectors);
    tcase_add_test(tc, test_hands_do_not_matter);
    tcase_add_test(tc, test_counts_edge_cases);
    tcase_add_test(tc, test_three_worked_example);
    tcase_add_test(tc, test_create_limits);
    tcase_add_test(tc, test_nine_published_totals);
    tcase_add_test(tc, test_twelve_ban_sectors);
    tcase_add_test(tc, test_ban_first_at_end);
    tcase_add_test(tc, test_twelve_ban_count);
    tcase_add_test(tc, test_twelve_ban_open);
    tcase_add_test(tc, test_shah_owner_sectors);
    suite_add_tcase(su, tc);
    TCase *tg = tcase_create("sectors");
    tcase_add_test(tg, test_nine_movement_list);
    tcase_add_test(tg, test_nine_moves_to);
    tcase_add_test(tg, test_nine_start_list);
    tcase_add_test(tg, test_nine_start_list_independent);
    tcase_add_test(tg, test_three_start_list);
    tcase_add_test(tg, test_all_variants_order);
    tcase_add_test(tg, test_lasker_partners);
    tcase_add_test(tg, test_pass_and_no_capture_rules);
    tcase_add_test(tg, test_format_parse);
    suite_add_tcase(su, tg);
    return su;
}

int main(void)
{
    SRunner *sr = srunner_create(index_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
