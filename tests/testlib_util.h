/*
 * testlib_util.h - small helpers shared by the Check suites: loading a
 * variant, temporary directories, reading whole files.  They fail the
 * calling test (ck_assert) instead of returning errors.
 */
#ifndef MMTB_TESTLIB_UTIL_H
#define MMTB_TESTLIB_UTIL_H

#include <check.h>
#include <stddef.h>
#include <stdint.h>

struct mmtb_variant;

/* A built-in variant or descriptor file; fails the test when it does not load. */
struct mmtb_variant *tl_load_variant(const char *name);

/* Create a fresh directory /tmp/mmtb-TAG-XXXXXX into buf. */
void tl_make_tmpdir(char *buf, size_t len, const char *tag);

/* The names of the files in dir (not those starting with "."), sorted, into
 * names (at most cap of them; more fails the test, as does a directory that
 * cannot be opened); their number. */
int tl_list_files(const char *dir, char names[][64], int cap);

/* Remove a directory and the files in it (not recursive). */
void tl_rmdir_all(const char *dir);

/* A whole file in a malloc'd buffer (one spare byte), its size in *len;
 * fails the test when the file cannot be read. */
uint8_t *tl_read_file(const char *path, size_t *len);

/* Shah's keys (first-mill-removal, trapped-capture no, both-trapped draw,
 * removal any, no flying) on the 3 x 3 board with both diagonals, 4 stones
 * a side: a descriptor text small enough for whole-game checks. */
extern const char tl_three_shah[];

/* Run suite s (CK_NORMAL), then remove tmpdir and everything below it (a
 * suite's generated tables; NULL: nothing); name labels a failed removal.
 * Returns the suite's exit status: EXIT_SUCCESS when no test failed. */
int tl_run_suite(Suite *s, const char *tmpdir, const char *name);

#endif
