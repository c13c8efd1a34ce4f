/*
 * check_errors.c - every documented error is given: the tables "Errors by
 * command" of docs/CLI.md and "Errors" of docs/VARIANTS.md are read from
 * the docs, and each row's example is run (the built mmtb-probe, from a
 * directory that holds the table sets the examples name); its exit code
 * must be the row's and its output must contain the row's message.  A
 * command section of CLI.md whose `Exit codes:` line names a code that no
 * row of that command gives fails too, so a newly documented error needs
 * a row, and a row needs an example that gives it.
 */
#define _GNU_SOURCE
#include <check.h>
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "testlib_cli.h"
#include "testlib_util.h"

#define MAXROWS 200

static char tdir[256];

struct row {
    char doc[16];       /* CLI.md or VARIANTS.md */
    int line;           /* in the doc */
    char cmd[32];       /* the command column */
    int code;           /* the exit column */
    char msg[300];      /* the first `...` of the message column */
    char example[600];  /* the `...` of the example column */
};

/* Cut a table line into its cells (a `\|` is a '|' inside a cell); the
 * number of cells. */
static int cells(char *s, char *cell[], int max)
{
    int n = 0;
    char *w = s;
    if (*s != '|')
        return 0;
    s++;
    cell[n++] = w;
    for (; *s && *s != '\n'; s++) {
        if (s[0] == '\\' && s[1] == '|') {
            *w++ = '|';
            s++;
        } else if (*s == '|') {
            *w++ = '\0';
            if (n == max)
                break;
            cell[n++] = w;
        } else {
            *w++ = *s;
        }
    }
    *w = '\0';
    return n - 1; /* the text after the last '|' is not a cell */
}

/* The text between the first pair of backquotes of s into buf ("" if none). */
static void first_code(const char *s, char *buf, size_t len)
{
    const char *a = strchr(s, '`'), *b = a ? strchr(a + 1, '`') : NULL;
    if (!a || !b) {
        buf[0] = '\0';
        return;
    }
    snprintf(buf, len, "%.*s", (int)(b - a - 1), a + 1);
}

/* The whole of a doc, NUL-terminated. */
static char *read_doc(const char *name)
{
    char path[400];
    snprintf(path, sizeof path, "%s/docs/%s", MMTB_SOURCE_DIR, name);
    size_t len;
    char *text = (char *)tl_read_file(path, &len);
    text[len] = '\0';
    return text;
}

/* The rows of the table whose header line starts with `header`, found
 * after the heading line `heading` of doc.  Returns the number of rows. */
static int read_rows(const char *doc, const char *heading, const char *header, struct row *rows,
                     int max)
{
    char *text = read_doc(doc);
    char *h = strstr(text, heading);
    ck_assert_msg(h != NULL, "%s: no heading '%s'", doc, heading);
    char *t = strstr(h, header);
    ck_assert_msg(t != NULL, "%s: no table '%s' after '%s'", doc, header, heading);
    int line = 1;
    for (char *p = text; p < t; p++)
        line += *p == '\n';
    int n = 0;
    char *s = strchr(t, '\n') + 1; /* header */
    s = strchr(s, '\n') + 1;       /* |---| */
    line += 2;
    while (*s == '|') {
        char *next = strchr(s, '\n');
        char *c[8];
        int nc = cells(s, c, 8);
        ck_assert_msg(nc == 4, "%s:%d: %d cells, expected 4", doc, line, nc);
        ck_assert_int_lt(n, max);
        struct row *r = &rows[n++];
        snprintf(r->doc, sizeof r->doc, "%s", doc);
        r->line = line;
        char *cmd = c[0];
        while (isspace((unsigned char)*cmd))
            cmd++;
        snprintf(r->cmd, sizeof r->cmd, "%.*s", (int)strcspn(cmd, " |"), cmd);
        r->code = atoi(c[1]);
        first_code(c[2], r->msg, sizeof r->msg);
        first_code(c[3], r->example, sizeof r->example);
        ck_assert_msg(r->msg[0] && r->example[0], "%s:%d: message or example missing", doc, line);
        if (!next)
            break;
        s = next + 1;
        line++;
    }
    free(text);
    return n;
}

/* Undo printf's escapes \n, \t, \NNN (octal), \\ in place. */
static void unescape(char *s)
{
    char *w = s;
    for (; *s; s++) {
        if (*s == '\\' && s[1] >= '0' && s[1] <= '7') {
            int c = 0;
            for (int k = 0; k < 3 && s[1] >= '0' && s[1] <= '7'; k++)
                c = c * 8 + (*++s - '0');
            *w++ = (char)c;
        } else if (*s == '\\' && s[1]) {
            s++;
            *w++ = *s == 'n' ? '\n' : *s == 't' ? '\t' : *s;
        } else {
            *w++ = *s;
        }
    }
    *w = '\0';
}

/* Split a command line in place into words (single quotes group, as in a
 * shell); the number of words. */
static int words(char *s, char *w[], int max)
{
    int n = 0;
    while (*s) {
        while (*s == ' ')
            s++;
        if (!*s)
            break;
        ck_assert_int_lt(n, max - 1);
        char *out = s;
        w[n++] = out;
        while (*s && *s != ' ') {
            if (*s == '\'') {
                for (s++; *s && *s != '\''; s++)
                    *out++ = *s;
                if (*s)
                    s++;
            } else {
                *out++ = *s++;
            }
        }
        if (*s)
            s++;
        *out = '\0';
    }
    w[n] = NULL;
    return n;
}

/*
 * Run one row's example: `[printf 'TEXT' | ][printf 'TEXT' > FILE && ]
 * mmtb-probe ARGS` from tdir; its exit code and output (standard error,
 * then standard output) are checked.
 */
static void run_row(const struct row *r)
{
    char ex[600], *s = ex, *input = NULL;
    snprintf(ex, sizeof ex, "%s", r->example);
    if (strncmp(s, "printf '", 8) == 0) {
        char *text = s + 8, *end = strchr(text, '\'');
        ck_assert_msg(end, "%s:%d: unterminated printf", r->doc, r->line);
        *end = '\0';
        unescape(text);
        s = end + 1;
        while (*s == ' ')
            s++;
        if (s[0] == '|') {
            input = text;
            s++;
        } else if (s[0] == '>') {
            char file[64];
            ck_assert(sscanf(s + 1, " %63s", file) == 1);
            char path[400];
            snprintf(path, sizeof path, "%s/%s", tdir, file);
            FILE *f = fopen(path, "w");
            ck_assert(f && fputs(text, f) >= 0 && fclose(f) == 0);
            s = strstr(s, "&&");
            ck_assert_msg(s, "%s:%d: expected '&&' after the file", r->doc, r->line);
            s += 2;
        }
        while (*s == ' ')
            s++;
    }
    ck_assert_msg(strncmp(s, "mmtb-probe", 10) == 0, "%s:%d: the example must run mmtb-probe",
                  r->doc, r->line);
    char *argv[40];
    words(s, argv, 40);
    argv[0] = PROBE_BIN;
    struct tl_result res;
    tl_run_argv(&res, input, argv);
    size_t n = strlen(res.err) + strlen(res.out) + 2;
    char *all = malloc(n);
    ck_assert(all);
    snprintf(all, n, "%s\n%s", res.err, res.out);
    ck_assert_msg(res.code == r->code, "%s:%d: `%s` exits %d, the doc says %d (%s)", r->doc,
                  r->line, r->example, res.code, r->code, res.err);
    ck_assert_msg(strstr(all, r->msg) != NULL, "%s:%d: `%s` does not say '%s' (it says: %s)",
                  r->doc, r->line, r->example, r->msg, all);
    free(all);
    tl_result_free(&res);
}

/* ---------------------------------------------------------------------- */

static struct row rows[MAXROWS];

/* Every row of CLI.md's table gives its exit code and message. */
START_TEST(cli_rows_give_their_errors)
{
    int n = read_rows("CLI.md", "### Errors by command", "| command | exit | message | example |",
                      rows, MAXROWS);
    ck_assert_int_ge(n, 40);
    for (int i = 0; i < n; i++)
        run_row(&rows[i]);
    printf("check_errors: CLI.md: %d documented errors given\n", n);
}
END_TEST

/* mmtb-gen never writes into a directory of another table format: it says
 * which version it found, what to do, and exits 1 with the files untouched. */
START_TEST(gen_refuses_old_format)
{
    char dir[400];
    snprintf(dir, sizeof dir, "%s/tables/old-format", tdir);
    char *argv[] = {GEN_BIN, "-v", "three-diag", "--start", "-o", dir, "--quiet", NULL};
    struct tl_result res;
    tl_run_argv(&res, NULL, argv);
    ck_assert_int_eq(res.code, 1);
    ck_assert_msg(strstr(res.err, "version 1 (depths to the next capture) is not supported") &&
                      strstr(res.err, "remove the directory, or write to another one"),
                  "%s", res.err);
    tl_result_free(&res);
    char path[420], line[64] = "";
    snprintf(path, sizeof path, "%s/MANIFEST", dir);
    FILE *f = fopen(path, "r");
    ck_assert(f && fgets(line, sizeof line, f));
    fclose(f);
    ck_assert_str_eq(line, "mmtb-manifest 1\n");
}
END_TEST

static bool sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* `mmtb-gen pack` as a user runs it: a copy of three-diag packed, probed
 * as the unpacked tables answer, packed again (nothing to do), then refused
 * by verify and by the solver, and the usage errors. */
START_TEST(gen_pack_cli)
{
    char dir[400];
    snprintf(dir, sizeof dir, "%s/tables/packed", tdir);
    ck_assert(sh("rm -rf '%s' && cp -r '%s/tables/three-diag' '%s'", dir, tdir, dir));
    char *pack[] = {GEN_BIN, "pack", "-t", dir, NULL};
    struct tl_result res;
    tl_run_argv(&res, NULL, pack);
    ck_assert_msg(res.code == 0 && strstr(res.out, "packed 7 sector files"), "%s%s", res.out,
                  res.err);
    tl_result_free(&res);
    tl_run_argv(&res, NULL, pack);
    ck_assert_msg(res.code == 0 && strstr(res.out, "packed 0 sector files") &&
                      strstr(res.out, "7 already packed"),
                  "%s", res.out);
    tl_result_free(&res);
    /* the same answers, depths of wins included (three-diag's start is won) */
    const char *pos[] = {"- - w 3 3", "b2 - b 2 3", "b2 a1 w 2 2", "b2,a1 c3,a3 b 1 1"};
    for (size_t i = 0; i < sizeof pos / sizeof *pos; i++) {
        struct tl_result a, b;
        tl_run(&a, NULL, "probe", "-t", "tables/three-diag", "--json", pos[i], NULL);
        tl_run(&b, NULL, "probe", "-t", "tables/packed", "--json", pos[i], NULL);
        ck_assert_int_eq(a.code, 0);
        ck_assert_int_eq(b.code, 0);
        ck_assert_str_eq(a.out, b.out);
        tl_result_free(&a);
        tl_result_free(&b);
    }
    char *verify[] = {GEN_BIN, "verify", "-t", dir, "--quiet", NULL};
    tl_run_argv(&res, NULL, verify);
    ck_assert_msg(res.code == 1 && strstr(res.err, "is packed") &&
                      strstr(res.err, "needs the unpacked table"),
                  "%d %s", res.code, res.err);
    tl_result_free(&res);
    char *usage[] = {GEN_BIN, "pack", NULL};
    tl_run_argv(&res, NULL, usage);
    ck_assert_msg(res.code == 1 && strstr(res.err, "pack: -t DIR is required"), "%s", res.err);
    tl_result_free(&res);
    char *nodir[] = {GEN_BIN, "pack", "-t", "no/such", NULL};
    tl_run_argv(&res, NULL, nodir);
    ck_assert_msg(res.code == 2 && strstr(res.err, "mmtb-gen pack:"), "%d %s", res.code,
                  res.err);
    tl_result_free(&res);
}
END_TEST

/* Every exit code a command's `Exit codes:` line names (other than 0) has
 * a row of that command in the table. */
START_TEST(cli_exit_codes_have_rows)
{
    int n = read_rows("CLI.md", "### Errors by command", "| command | exit | message | example |",
                      rows, MAXROWS);
    char *text = read_doc("CLI.md");
    int checked = 0;
    for (char *sec = strstr(text, "\n## "); sec; sec = strstr(sec + 1, "\n## ")) {
        char name[32];
        if (sscanf(sec + 4, "%31s", name) != 1)
            continue;
        char *end = strstr(sec + 1, "\n## ");
        char *ec = strstr(sec, "\nExit codes: ");
        if (!ec || (end && ec > end))
            continue;
        /* codes: the digit at the start of the line's text and after each "; " */
        char para[1000];
        snprintf(para, sizeof para, "%.*s", (int)strcspn(ec + 1, "\n") + 400, ec + 13);
        char *stop = strstr(para, "\n\n");
        if (stop)
            *stop = '\0';
        for (char *p = para; p; p = strstr(p, "; ")) {
            p += p == para ? 0 : 2;
            if (!isdigit((unsigned char)p[0]) || p[0] == '0')
                continue;
            int code = p[0] - '0';
            bool found = false;
            for (int i = 0; i < n; i++)
                found |= rows[i].code == code && strcmp(rows[i].cmd, name) == 0;
            ck_assert_msg(found, "CLI.md: '%s' documents exit %d, no row of the errors table "
                          "gives it", name, code);
            checked++;
        }
    }
    free(text);
    ck_assert_int_ge(checked, 12); /* the docs' lines were found */
    printf("check_errors: CLI.md: %d exit codes of %s have rows\n", checked, "the commands");
}
END_TEST

/* Every row of VARIANTS.md's table gives its message (exit 1). */
START_TEST(variant_rows_give_their_errors)
{
    int n = read_rows("VARIANTS.md", "### Errors", "| problem | exit | message | example |", rows,
                      MAXROWS);
    ck_assert_int_ge(n, 20);
    for (int i = 0; i < n; i++)
        run_row(&rows[i]);
    printf("check_errors: VARIANTS.md: %d documented errors given\n", n);
}
END_TEST

/* ---------------------------------------------------------------------- */

/* Run a shell command; false when it fails. */
static bool sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static bool sh(const char *fmt, ...)
{
    char cmd[2000];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    return system(cmd) == 0;
}

/* Flip one byte (xor 0x55) at the middle of a file. */
static bool flip_middle(const char *path)
{
    FILE *f = fopen(path, "r+b");
    if (!f || fseek(f, 0, SEEK_END) != 0)
        return false;
    long mid = ftell(f) / 2;
    int c;
    bool ok = fseek(f, mid, SEEK_SET) == 0 && (c = fgetc(f)) != EOF &&
              fseek(f, mid, SEEK_SET) == 0 && fputc(c ^ 0x55, f) != EOF;
    return fclose(f) == 0 && ok;
}

/* The table sets the examples name, under tdir/tables/ (made before the
 * tests run; the examples run with tdir as the working directory). */
static bool make_tables(void)
{
    const char *g = GEN_BIN;
    char path[400];
    snprintf(path, sizeof path, "%s/tables/t4-damaged/4-3.mmtb", tdir);
    return sh("cd '%s' && mkdir tables && "
              "'%s' -v three-diag --start -o tables/three-diag --quiet && "
              "'%s' -v nine --max-stones 3 -o tables/t3 --quiet && "
              "'%s' -v nine --max-stones 4 -o tables/t4-damaged --quiet && "
              "cp -r tables/three-diag tables/missing && rm tables/missing/3-3.mmtb && "
              "cp -r tables/three-diag tables/bad-manifest && "
              "sed -i 's/^index-scheme 1/index-scheme 2/' tables/bad-manifest/MANIFEST && "
              "mkdir tables/manifest-only && cp tables/three-diag/MANIFEST tables/manifest-only/ && "
              "cp -r tables/three-diag tables/old-format && "
              "sed -i '1s/^mmtb-manifest 2$/mmtb-manifest 1/' tables/old-format/MANIFEST",
              tdir, g, g, g) &&
           flip_middle(path);
}

int main(void)
{
    snprintf(tdir, sizeof tdir, "/tmp/check_errors_XXXXXX");
    if (!mkdtemp(tdir)) {
        fprintf(stderr, "mkdtemp: %s\n", strerror(errno));
        return EXIT_FAILURE;
    }
    if (!make_tables() || chdir(tdir) != 0) {
        fprintf(stderr, "check_errors: cannot make the tables in %s\n", tdir);
        return EXIT_FAILURE;
    }
    Suite *s = suite_create("errors");
    TCase *tc = tcase_create("documented");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, cli_rows_give_their_errors);
    tcase_add_test(tc, cli_exit_codes_have_rows);
    tcase_add_test(tc, variant_rows_give_their_errors);
    tcase_add_test(tc, gen_refuses_old_format);
    tcase_add_test(tc, gen_pack_cli);
    suite_add_tcase(s, tc);
    return tl_run_suite(s, tdir, "check_errors");
}
