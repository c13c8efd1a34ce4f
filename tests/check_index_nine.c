/*
 * check_index_nine.c - slow tests of format/sector_index on the full
 * Nine Men's Morris board (k <= 9 tables): every subset's lookup entry,
 * random positions of all 49 movement sectors, and the whole sectors 3-3,
 * 4-3, 3-4 and 4-4 slot by slot, all against the brute-force reference
 * (testlib_index).
 */
#include <check.h>
#include <stdlib.h>

#include "sector_index.h"
#include "testlib_index.h"

#define SAMPLES_PER_SECTOR 20000

/* Inner-loop assertions that call into Check only on failure (a passing
 * ck_assert_* costs a system call). */
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

static struct mmtb_variant *nine;
static mmtb_index *ix, *ixp; /* automatic and portable rank code */
static struct tref_index ref;

static void setup(void)
{
    char err[256] = "";
    ck_assert_msg(mmtb_variant_load(&nine, "nine", err, sizeof err) == MMTB_OK, "%s", err);
    ck_assert_int_eq(nine->npoints, 24);
    ck_assert_int_eq(nine->nsyms, 16);
    ck_assert_int_eq(mmtb_index_create(&ix, nine, 9), MMTB_OK);
    ck_assert_int_eq(mmtb_index_create(&ixp, nine, 9), MMTB_OK);
    mmtb_index_set_portable(ixp, true);
    tref_index_init(&ref, nine, 9);
}

static void teardown(void)
{
    tref_index_free(&ref);
    mmtb_index_free(ixp);
    mmtb_index_free(ix);
    mmtb_variant_free(nine);
}

static struct mmtb_sector sec(int w, int b)
{
    struct mmtb_sector s = {(uint8_t)w, (uint8_t)b, 0, 0};
    return s;
}

static uint64_t rank2(struct mmtb_sector s, uint32_t mover, uint32_t opp)
{
    uint64_t slot = mmtb_index_rank(ix, s, mover, opp);
    REQUIRE_EQ(mmtb_index_rank(ixp, s, mover, opp), slot);
    return slot;
}

/* Every k-subset M, k <= 9: (M, no opponent) ranks to the position of M's
 * canonical subset in the reference's sorted list, i.e. every lookup
 * entry of the library names the right canonical subset. */
START_TEST(test_every_subset)
{
    for (int k = 0; k <= 9; k++) {
        struct mmtb_sector s = sec(k, 0);
        REQUIRE_EQ(mmtb_index_slots(ix, s), ref.ncanon[k]);
        uint64_t total = tref_binom(24, k);
        uint64_t m = ((uint64_t)1 << k) - 1;
        for (uint64_t i = 0; i < total; i++, m = k ? tref_next_subset(m) : m)
            REQUIRE_EQ(rank2(s, (uint32_t)m, 0), tref_rank(&ref, k, 0, (uint32_t)m, 0));
    }
}
END_TEST

/*
 * Random positions of the 49 movement sectors: the slot is in range and
 * equals the reference rank, every symmetric image has the same slot, and
 * the slot is canonical and unranks into the position's orbit.
 */
START_TEST(test_random_positions)
{
    uint64_t seed = 20260101;
    for (int w = 3; w <= 9; w++)
        for (int b = 3; b <= 9; b++) {
            struct mmtb_sector s = sec(w, b);
            uint64_t slots = mmtb_index_slots(ix, s);
            REQUIRE(slots >= mmtb_index_canonical(nine, s));
            for (int i = 0; i < SAMPLES_PER_SECTOR; i++) {
                uint32_t mo = tref_rand_subset(&seed, nine->full, w);
                uint32_t op = tref_rand_subset(&seed, nine->full & ~mo, b);
                uint64_t slot = rank2(s, mo, op);
                REQUIRE(slot < slots);
                REQUIRE_EQ(slot, tref_rank(&ref, w, b, mo, op));
                for (int g = 1; g < nine->nsyms; g++)
                    REQUIRE_EQ(rank2(s, tref_img(&ref, g, mo), tref_img(&ref, g, op)), slot);
                REQUIRE(mmtb_index_slot_is_canonical(ix, s, slot));
                uint32_t m2, o2;
                mmtb_index_unrank(ix, s, slot, &m2, &o2);
                REQUIRE_EQ(tref_canon_pos(&ref, m2, o2), tref_canon_pos(&ref, mo, op));
                mmtb_index_unrank(ixp, s, slot, &m2, &o2);
                REQUIRE_EQ(tref_canon_pos(&ref, m2, o2), tref_canon_pos(&ref, mo, op));
            }
        }
}
END_TEST

/*
 * Whole sectors slot by slot: canonical slots round-trip, agree with the
 * reference and with every symmetric image; a wasted slot's position
 * ranks to a canonical slot of the same orbit; the canonical slots number
 * the orbits (Burnside in the test and in the library).
 */
static void check_whole_sector(struct mmtb_sector s)
{
    uint64_t slots = mmtb_index_slots(ix, s), ncanon = 0;
    REQUIRE_EQ(slots, tref_slots(&ref, s.w, s.b));
    for (uint64_t slot = 0; slot < slots; slot++) {
        uint32_t mo, op;
        mmtb_index_unrank(ix, s, slot, &mo, &op);
        REQUIRE_EQ(__builtin_popcount(mo), s.w);
        REQUIRE_EQ(__builtin_popcount(op), s.b);
        REQUIRE_EQ(mo & op, 0);
        REQUIRE_EQ((mo | op) & ~nine->full, 0);
        uint64_t r = rank2(s, mo, op);
        REQUIRE_EQ(r, tref_rank(&ref, s.w, s.b, mo, op));
        bool canon = mmtb_index_slot_is_canonical(ix, s, slot);
        REQUIRE_EQ(mmtb_index_slot_is_canonical(ixp, s, slot), canon);
        REQUIRE_EQ(canon, r == slot);
        if (!canon) {
            REQUIRE(mmtb_index_slot_is_canonical(ix, s, r));
            continue;
        }
        ncanon++;
        for (int g = 1; g < nine->nsyms; g++)
            REQUIRE_EQ(rank2(s, tref_img(&ref, g, mo), tref_img(&ref, g, op)), slot);
    }
    REQUIRE_EQ(ncanon, tref_orbits(nine, s.w, s.b));
    REQUIRE_EQ(ncanon, mmtb_index_canonical(nine, s));
}

START_TEST(test_whole_3_3)
{
    check_whole_sector(sec(3, 3));
}
END_TEST

START_TEST(test_whole_4_3_and_3_4)
{
    check_whole_sector(sec(4, 3));
    check_whole_sector(sec(3, 4));
}
END_TEST

START_TEST(test_whole_4_4)
{
    check_whole_sector(sec(4, 4));
}
END_TEST

static Suite *index_nine_suite(void)
{
    Suite *su = suite_create("index_nine");
    TCase *tc = tcase_create("nine");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, test_every_subset);
    tcase_add_test(tc, test_random_positions);
    tcase_add_test(tc, test_whole_3_3);
    tcase_add_test(tc, test_whole_4_3_and_3_4);
    tcase_add_test(tc, test_whole_4_4);
    suite_add_tcase(su, tc);
    return su;
}

int main(void)
{
    SRunner *sr = srunner_create(index_nine_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
