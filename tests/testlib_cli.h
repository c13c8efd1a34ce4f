/*
 * testlib_cli.h - test helpers for driving the built programs: run one with
 * input on stdin and capture its output and exit code, and parse JSON
 * output strictly.  They fail the calling test (ck_assert) on any problem.
 */
#ifndef MMTB_TESTLIB_CLI_H
#define MMTB_TESTLIB_CLI_H

#include <stdbool.h>

#define PROBE_BIN MMTB_BINARY_DIR "/probe/mmtb-probe"
#define GEN_BIN MMTB_BINARY_DIR "/gen/mmtb-gen"

/* What a program did: exit code (128 + signal if killed), stdout, stderr. */
struct tl_result {
    int code; /* exit status; 128 + signal if killed */
    char *out, *err;
};

/* Run argv (argv[0] a path) with `input` on stdin (NULL: empty). */
void tl_run_argv(struct tl_result *r, const char *input, char *const argv[]);

/* Run mmtb-probe with the NULL-terminated arguments that follow; a crash or
 * a sanitizer report fails the test. */
void tl_run(struct tl_result *r, const char *input, ...);

void tl_result_free(struct tl_result *r);

/* Start argv (argv[0] a path) in the background with stdin from /dev/null
 * and stdout and stderr appended to the file `log` (NULL: /dev/null).
 * Returns its pid, or -1 when it cannot start.  No ck_assert: usable from a
 * suite's main before the tests run. */
int tl_spawn(char *const argv[], const char *log);

/* Wait for a child started by tl_spawn: its exit status, 128 + the signal
 * when a signal ended it, -1 when waitpid fails. */
int tl_wait(int pid);

/* The whole content of an open file descriptor (read from its start), in a
 * malloc'd NUL-terminated buffer. */
char *tl_slurp(int fd);

/* Number of lines of s (each terminated by '\n'). */
int tl_count_lines(const char *s);

/* A parsed JSON value. */
enum jtype { J_NULL, J_BOOL, J_NUM, J_STR, J_ARR, J_OBJ };

struct tl_jv {
    enum jtype t;
    bool b;
    double num;
    bool is_uint; /* a non-negative integer literal, exact in u */
    unsigned long long u;
    char *s;         /* J_STR */
    int n;           /* J_ARR, J_OBJ: number of items */
    struct tl_jv *item; /* J_ARR, J_OBJ */
    char **key;      /* J_OBJ */
};

/* Parse a whole document (surrounding white space allowed); NULL if it is
 * not valid JSON. */
struct tl_jv *tl_json_parse(const char *text);
void tl_json_free(struct tl_jv *v);

/* Member `key` of an object (NULL when absent or v is not an object). */
const struct tl_jv *tl_jget(const struct tl_jv *v, const char *key);

/* Member `key`, which must be a non-negative integer / a string / true or
 * false. */
unsigned long long tl_jget_u(const struct tl_jv *v, const char *key);
const char *tl_jget_s(const struct tl_jv *v, const char *key);
bool tl_jget_b(const struct tl_jv *v, const char *key);

#endif
