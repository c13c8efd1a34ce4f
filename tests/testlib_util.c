/*
 * testlib_util.c - helpers shared by the Check suites (see testlib_util.h).
 */
#define _GNU_SOURCE
#include "testlib_util.h"

#include <check.h>
#include <dirent.h>
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
