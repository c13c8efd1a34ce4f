/*
 * testlib_util.c - helpers shared by the Check suites (see testlib_util.h).
 */
#define _GNU_SOURCE
#include "testlib_util.h"

#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "variant.h"

struct mmtb_variant *tl_load_variant(const char *name)
{
    struct mmtb_variant *v = NULL;
    char err[256] = "";
    int rc = mmtb_variant_load(&v, name, err, sizeof err);
    ck_assert_msg(rc == MMTB_OK && v, "loading variant %s: %d %s", name, rc, err);
    return v;
}

void tl_make_tmpdir(char *buf, size_t len, const char *tag)
{
    snprintf(buf, len, "/tmp/mmtb-%s-XXXXXX", tag);
    ck_assert_ptr_nonnull(mkdtemp(buf));
}

int tl_list_files(const char *dir, char names[][64], int cap)
{
    DIR *d = opendir(dir);
    ck_assert_msg(d != NULL, "cannot open %s: %s", dir, strerror(errno));
    int n = 0;
    for (struct dirent *e; (e = readdir(d));) {
        if (e->d_name[0] == '.')
            continue;
        ck_assert_int_lt(n, cap);
        snprintf(names[n++], 64, "%.63s", e->d_name);
    }
    closedir(d);
    qsort(names, (size_t)n, 64, (int (*)(const void *, const void *))strcmp);
    return n;
}

void tl_rmdir_all(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    char path[4096];
    while ((e = readdir(d)) != NULL) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        unlink(path);
    }
    closedir(d);
    rmdir(dir);
}

uint8_t *tl_read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    ck_assert_msg(f != NULL, "cannot open %s", path);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    ck_assert(n >= 0);
    uint8_t *buf = malloc((size_t)n + 1);
    ck_assert_ptr_nonnull(buf);
    ck_assert(fread(buf, 1, (size_t)n, f) == (size_t)n);
    fclose(f);
    *len = (size_t)n;
    return buf;
}

int tl_run_suite(Suite *s, const char *tmpdir, const char *name)
{
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    if (tmpdir) {
        char cmd[600];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
        if (system(cmd) != 0)
            fprintf(stderr, "%s: could not remove %s\n", name, tmpdir);
    }
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

const char tl_three_shah[] =
    "name three-shah\nstones 4\nflying off\nremoval any\nplace-captures no\nno-move pass\n"
    "first-mill-removal yes\ntrapped-capture no\nboth-trapped draw\n"
    "point a1 0 0\npoint b1 1 0\npoint c1 2 0\npoint a2 0 1\npoint b2 1 1\npoint c2 2 1\n"
    "point a3 0 2\npoint b3 1 2\npoint c3 2 2\n"
    "line a1 b1 c1\nline a2 b2 c2\nline a3 b3 c3\nline a1 a2 a3\nline b1 b2 b3\n"
    "line c1 c2 c3\nline a1 b2 c3\nline a3 b2 c1\n"
    "mill a1 b1 c1\nmill a2 b2 c2\nmill a3 b3 c3\nmill a1 a2 a3\nmill b1 b2 b3\n"
    "mill c1 c2 c3\nmill a1 b2 c3\nmill a3 b2 c1\n";
