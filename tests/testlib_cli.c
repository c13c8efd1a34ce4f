/*
 * testlib_cli.c - running the built programs from a test (stdin fed, stdout
 * and stderr captured, crashes and sanitizer reports failing the test) and
 * a small strict JSON parser (RFC 8259) to check --json output as JSON.
 * Shared by the suites that drive mmtb-probe and mmtb-gen as users do.
 */
#define _GNU_SOURCE
#include <check.h>
#include <ctype.h>
#include <fcntl.h>
#include <errno.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testlib_cli.h"

extern char **environ;
/* ---------------------------------------------------------------------- */
/* Running a program                                                      */
/* ---------------------------------------------------------------------- */



/* A temporary file, already unlinked; the descriptor keeps it alive. */
static int temp_fd(void)
{
    char name[] = "/tmp/check_cli_XXXXXX";
    int fd = mkstemp(name);
    ck_assert_msg(fd >= 0, "mkstemp: %s", strerror(errno));
    unlink(name);
    return fd;
}

char *tl_slurp(int fd)
{
    off_t len = lseek(fd, 0, SEEK_END);
    ck_assert(len >= 0);
    char *buf = malloc((size_t)len + 1);
    ck_assert(buf != NULL);
    lseek(fd, 0, SEEK_SET);
    size_t got = 0;
    while (got < (size_t)len) {
        ssize_t n = read(fd, buf + got, (size_t)len - got);
        ck_assert(n > 0);
        got += (size_t)n;
    }
    buf[len] = '\0';
    return buf;
}

/* Run argv (argv[0] a path) with `input` on stdin (NULL: empty). */
void tl_run_argv(struct tl_result *r, const char *input, char *const argv[])
{
    int in = temp_fd(), out = temp_fd(), err = temp_fd();
    if (input) {
        size_t len = strlen(input);
        ck_assert(write(in, input, len) == (ssize_t)len);
        lseek(in, 0, SEEK_SET);
    }
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, in, 0);
    posix_spawn_file_actions_adddup2(&fa, out, 1);
    posix_spawn_file_actions_adddup2(&fa, err, 2);
    pid_t pid;
    int rc = posix_spawn(&pid, argv[0], &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    ck_assert_msg(rc == 0, "cannot run %s: %s", argv[0], strerror(rc));
    int status;
    ck_assert(waitpid(pid, &status, 0) == pid);
    r->code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    r->out = tl_slurp(out);
    r->err = tl_slurp(err);
    close(in);
    close(out);
    close(err);
}

/* Run mmtb-probe with the NULL-terminated arguments that follow. */
void tl_run(struct tl_result *r, const char *input, ...)
{
    char *argv[64];
    int n = 0;
    va_list ap;
    argv[n++] = PROBE_BIN;
    va_start(ap, input);
    const char *a;
    while ((a = va_arg(ap, const char *)) != NULL) {
        ck_assert(n < 63);
        argv[n++] = (char *)a;
    }
    va_end(ap);
    argv[n] = NULL;
    tl_run_argv(r, input, argv);
    /* A crash or a sanitizer report is never acceptable, whatever the input. */
    ck_assert_msg(r->code < 128, "mmtb-probe killed by signal %d; stderr:\n%s", r->code - 128,
                  r->err);
    ck_assert_msg(strstr(r->err, "Sanitizer") == NULL && strstr(r->err, "runtime error") == NULL,
                  "sanitizer report:\n%s", r->err);
}

int tl_spawn(char *const argv[], const char *log)
{
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 1, log ? log : "/dev/null",
                                     O_WRONLY | O_CREAT | O_APPEND, 0644);
    posix_spawn_file_actions_adddup2(&fa, 1, 2);
    pid_t pid;
    int rc = posix_spawn(&pid, argv[0], &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    return rc == 0 ? (int)pid : -1;
}

int tl_wait(int pid)
{
    int status;
    pid_t r;
    while ((r = waitpid((pid_t)pid, &status, 0)) < 0 && errno == EINTR)
        ;
    if (r != (pid_t)pid)
        return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

void tl_result_free(struct tl_result *r)
{
    free(r->out);
    free(r->err);
}

/* Number of lines of s (each terminated by '\n'). */
int tl_count_lines(const char *s)
{
    int n = 0;
    for (; *s; s++)
        n += *s == '\n';
    return n;
}

/* ---------------------------------------------------------------------- */
/* A small strict JSON parser (RFC 8259), enough to check our output      */
/* ---------------------------------------------------------------------- */





static void skip_ws(const char **p)
{
    while (**p == ' ' || **p == '\t' || **p == '\n' || **p == '\r')
        (*p)++;
}

static bool parse_value(const char **p, struct tl_jv *v, int depth);

/* A string literal; the decoded text is only needed for ASCII here, so a
 * \uXXXX escape is checked and decoded to '?' unless it is ASCII. */
static bool parse_string(const char **p, char **out)
{
    const char *q = *p;
    if (*q != '"')
        return false;
    q++;
    size_t cap = strlen(q) + 1, len = 0;
    char *s = malloc(cap);
    ck_assert(s != NULL);
    for (;;) {
        unsigned char c = (unsigned char)*q++;
        if (c == '"')
            break;
        if (c < 0x20) { /* includes the terminating NUL */
            free(s);
            return false;
        }
        if (c == '\\') {
            char e = *q++;
            const char *map = strchr("\"\\/bfnrt", e);
            if (e && map) {
                s[len++] = "\"\\/\b\f\n\r\t"[map - "\"\\/bfnrt"];
            } else if (e == 'u') {
                unsigned x = 0;
                for (int i = 0; i < 4; i++) {
                    if (!isxdigit((unsigned char)q[i])) {
                        free(s);
                        return false;
                    }
                    x = x * 16 + (unsigned)(isdigit((unsigned char)q[i])
                                                ? q[i] - '0'
                                                : tolower((unsigned char)q[i]) - 'a' + 10);
                }
                q += 4;
                s[len++] = x < 0x80 ? (char)x : '?';
            } else {
                free(s);
                return false;
            }
        } else {
            s[len++] = (char)c;
        }
    }
    s[len] = '\0';
    *out = s;
    *p = q;
    return true;
}

static bool parse_number(const char **p, struct tl_jv *v)
{
    const char *q = *p, *start = q;
    if (*q == '-')
        q++;
    if (*q == '0')
        q++;
    else if (isdigit((unsigned char)*q))
        while (isdigit((unsigned char)*q))
            q++;
    else
        return false;
    bool integer = true;
    if (*q == '.') {
        integer = false;
        q++;
        if (!isdigit((unsigned char)*q))
            return false;
        while (isdigit((unsigned char)*q))
            q++;
    }
    if (*q == 'e' || *q == 'E') {
        integer = false;
        q++;
        if (*q == '+' || *q == '-')
            q++;
        if (!isdigit((unsigned char)*q))
            return false;
        while (isdigit((unsigned char)*q))
            q++;
    }
    v->t = J_NUM;
    v->num = strtod(start, NULL);
    v->is_uint = integer && *start != '-';
    if (v->is_uint)
        v->u = strtoull(start, NULL, 10);
    *p = q;
    return true;
}

static bool parse_value(const char **p, struct tl_jv *v, int depth)
{
    memset(v, 0, sizeof *v);
    if (depth > 64)
        return false;
    skip_ws(p);
    const char *q = *p;
    if (strncmp(q, "null", 4) == 0) {
        v->t = J_NULL;
        *p = q + 4;
        return true;
    }
    if (strncmp(q, "true", 4) == 0 || strncmp(q, "false", 5) == 0) {
        v->t = J_BOOL;
        v->b = *q == 't';
        *p = q + (v->b ? 4 : 5);
        return true;
    }
    if (*q == '"') {
        v->t = J_STR;
        return parse_string(p, &v->s);
    }
    if (*q == '[' || *q == '{') {
        bool obj = *q == '{';
        char close = obj ? '}' : ']';
        v->t = obj ? J_OBJ : J_ARR;
        int cap = 8;
        v->item = calloc((size_t)cap, sizeof *v->item);
        v->key = calloc((size_t)cap, sizeof *v->key);
        ck_assert(v->item && v->key);
        (*p)++;
        skip_ws(p);
        if (**p == close) {
            (*p)++;
            return true;
        }
        for (;;) {
            if (v->n == cap) {
                cap *= 2;
                v->item = realloc(v->item, sizeof *v->item * (size_t)cap);
                v->key = realloc(v->key, sizeof *v->key * (size_t)cap);
                ck_assert(v->item && v->key);
            }
            /* count the member first, so json_free releases it on failure */
            struct tl_jv *it = &v->item[v->n];
            memset(it, 0, sizeof *it);
            v->key[v->n++] = NULL;
            if (obj) {
                skip_ws(p);
                if (!parse_string(p, &v->key[v->n - 1]))
                    return false;
                skip_ws(p);
                if (**p != ':')
                    return false;
                (*p)++;
            }
            if (!parse_value(p, it, depth + 1))
                return false;
            skip_ws(p);
            if (**p == ',') {
                (*p)++;
                continue;
            }
            if (**p == close) {
                (*p)++;
                return true;
            }
            return false;
        }
    }
    return parse_number(p, v);
}

static void json_free_inner(struct tl_jv *v)
{
    for (int i = 0; i < v->n; i++) {
        json_free_inner(&v->item[i]);
        if (v->key)
            free(v->key[i]);
    }
    free(v->item);
    free(v->key);
    free(v->s);
}

/* Parse a whole document (surrounding white space allowed); NULL if it is
 * not valid JSON. */
struct tl_jv *tl_json_parse(const char *text)
{
    struct tl_jv *v = malloc(sizeof *v);
    ck_assert(v != NULL);
    const char *p = text;
    if (!parse_value(&p, v, 0)) {
        json_free_inner(v);
        free(v);
        return NULL;
    }
    skip_ws(&p);
    if (*p) {
        json_free_inner(v);
        free(v);
        return NULL;
    }
    return v;
}

void tl_json_free(struct tl_jv *v)
{
    if (v) {
        json_free_inner(v);
        free(v);
    }
}

/* Member `key` of an object (NULL when absent or v is not an object). */
const struct tl_jv *tl_jget(const struct tl_jv *v, const char *key)
{
    if (!v || v->t != J_OBJ)
        return NULL;
    for (int i = 0; i < v->n; i++)
        if (strcmp(v->key[i], key) == 0)
            return &v->item[i];
    return NULL;
}

/* Member `key`, which must be a non-negative integer. */
unsigned long long tl_jget_u(const struct tl_jv *v, const char *key)
{
    const struct tl_jv *x = tl_jget(v, key);
    ck_assert_msg(x && x->t == J_NUM && x->is_uint, "field '%s' missing or not an integer", key);
    return x->u;
}

const char *tl_jget_s(const struct tl_jv *v, const char *key)
{
    const struct tl_jv *x = tl_jget(v, key);
    ck_assert_msg(x && x->t == J_STR, "field '%s' missing or not a string", key);
    return x->s;
}

bool tl_jget_b(const struct tl_jv *v, const char *key)
{
    const struct tl_jv *x = tl_jget(v, key);
    ck_assert_msg(x && x->t == J_BOOL, "field '%s' missing or not true/false", key);
    return x->b;
}
