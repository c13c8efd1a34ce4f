/*
 * check_threads.c - generated tables do not depend on the thread count:
 * mmtb-gen (the built program, as users run it) solves nine up to 4 stones
 * and a placement start with --threads 1, 2 and 3, and every file of the
 * three directories (sector files and MANIFEST) must be the same, byte for
 * byte, with the same names.
 */
#define _GNU_SOURCE
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "testlib_cli.h"
#include "testlib_util.h"

#define MAXFILES 64

static char tdir[256];

/* Solve `-v nine A1 A2` with 1, 2 and 3 threads; compare every file of the
 * 2- and 3-thread runs with the 1-thread run's.  Returns the files compared. */
static int same_for_threads(const char *a1, const char *a2, const char *tag)
{
    char out[3][400];
    for (int t = 1; t <= 3; t++) {
        snprintf(out[t - 1], sizeof out[0], "%s/%s-t%d", tdir, tag, t);
        char threads[16];
        snprintf(threads, sizeof threads, "%d", t);
        char *argv[] = {GEN_BIN, "-v", "nine", (char *)a1, (char *)a2, "-o", out[t - 1],
                        "--quiet", "--threads", threads, NULL};
        int pid = tl_spawn(argv, NULL);
        ck_assert_int_gt(pid, 0);
        ck_assert_msg(tl_wait(pid) == 0, "mmtb-gen %s %s --threads %d failed", a1, a2, t);
    }
    static char names[3][MAXFILES][64];
    int n = tl_list_files(out[0], names[0], MAXFILES);
    ck_assert_int_ge(n, 2); /* at least one sector file and the MANIFEST */
    for (int t = 1; t < 3; t++) {
        ck_assert_int_eq(tl_list_files(out[t], names[t], MAXFILES), n);
        for (int i = 0; i < n; i++) {
            ck_assert_str_eq(names[t][i], names[0][i]);
            char p0[600], p1[600];
            snprintf(p0, sizeof p0, "%.400s/%.63s", out[0], names[0][i]);
            snprintf(p1, sizeof p1, "%.400s/%.63s", out[t], names[0][i]);
            size_t l0, l1;
            uint8_t *b0 = tl_read_file(p0, &l0), *b1 = tl_read_file(p1, &l1);
            ck_assert_msg(l0 == l1 && memcmp(b0, b1, l0) == 0,
                          "%s differs between --threads 1 and --threads %d", names[0][i], t + 1);
            free(b0);
            free(b1);
        }
    }
    printf("check_threads: nine %s %s: %d files identical with 1, 2 and 3 threads\n", a1, a2, n);
    fflush(stdout);
    return n;
}

/* The movement phase up to 4 stones a side (every sector solved by the
 * parallel level loop and written by the parallel compressor). */
START_TEST(movement_up_to_4_stones)
{
    same_for_threads("--max-stones", "4", "m4");
}
END_TEST

/* A placement start, 3 v 3 stones in hand: placement sectors and their
 * successors down to the movement phase. */
START_TEST(placement_start_3_3)
{
    same_for_threads("--start", "3,3", "s33");
}
END_TEST

int main(void)
{
    snprintf(tdir, sizeof tdir, "/tmp/check_threads_XXXXXX");
    if (!mkdtemp(tdir)) {
        fprintf(stderr, "mkdtemp: %s\n", strerror(errno));
        return EXIT_FAILURE;
    }
    Suite *s = suite_create("threads");
    TCase *tc = tcase_create("identical");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, movement_up_to_4_stones);
    tcase_add_test(tc, placement_start_3_3);
    suite_add_tcase(s, tc);
    return tl_run_suite(s, tdir, "check_threads");
}
