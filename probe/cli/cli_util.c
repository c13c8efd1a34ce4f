/*
 * cli_util.c - helpers shared by the mmtb-probe subcommands: a small option
 * parser (no global state, unlike getopt), error messages, JSON string
 * escaping, names for colours and values, and opening tables with the
 * exit code of a table error.  Depends on format/ and mmtb.h; calls no
 * subcommand's file.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "probe_cli.h"

void cli_parser_init(struct cli_parser *p, int argc, char **argv)
{
    p->argc = argc;
    p->argv = argv;
    p->i = 1;
    p->only_pos = false;
    p->cmd = argv[0];
}

/* Find the option with long name `name` (length n), or NULL. */
static const struct cli_opt *find_long(const struct cli_opt *opts, const char *name, size_t n)
{
    for (; opts->lname || opts->sname; opts++)
        if (opts->lname && strlen(opts->lname) == n && strncmp(opts->lname, name, n) == 0)
            return opts;
    return NULL;
}

static const struct cli_opt *find_short(const struct cli_opt *opts, char c)
{
    for (; opts->lname || opts->sname; opts++)
        if (opts->sname == c)
            return opts;
    return NULL;
}

/*
 * One step of the parser.  Words are returned in order; options may appear
 * anywhere before "--".  Only "--..." and '-' followed by a letter are
 * options: "-", "- - w 9 9" and the like are words (positions).
 */
int cli_next(struct cli_parser *p, const struct cli_opt *opts, const char **arg)
{
    *arg = NULL;
    while (p->i < p->argc) {
        char *a = p->argv[p->i++];
        if (p->only_pos || a[0] != '-' || !(a[1] == '-' || isalpha((unsigned char)a[1]))) {
            *arg = a;
            return CLI_POSITIONAL;
        }
        if (strcmp(a, "--") == 0) {
            p->only_pos = true;
            continue;
        }
        const struct cli_opt *o;
        const char *inline_val = NULL;
        if (a[1] == '-') {
            const char *eq = strchr(a + 2, '=');
            size_t n = eq ? (size_t)(eq - (a + 2)) : strlen(a + 2);
            o = find_long(opts, a + 2, n);
            if (!o) {
                cli_usage_error(p->cmd, "unknown option '%.*s'", (int)(n + 2), a);
                return CLI_BAD;
            }
            if (eq) {
                if (!o->has_arg) {
                    cli_usage_error(p->cmd, "option '--%s' takes no value", o->lname);
                    return CLI_BAD;
                }
                inline_val = eq + 1;
            }
        } else {
            o = find_short(opts, a[1]);
            if (!o) {
                cli_usage_error(p->cmd, "unknown option '%s'", a);
                return CLI_BAD;
            }
            if (a[2] != '\0') {
                if (!o->has_arg) {
                    cli_usage_error(p->cmd, "unknown option '%s'", a);
                    return CLI_BAD;
                }
                inline_val = a + 2;
            }
        }
        if (o->has_arg) {
            if (inline_val) {
                *arg = inline_val;
            } else if (p->i < p->argc) {
                *arg = p->argv[p->i++];
            } else {
                cli_usage_error(p->cmd, "option '%s' needs a value", a);
                return CLI_BAD;
            }
        }
        return o->id;
    }
    return CLI_END;
}

bool cli_parse_long(const char *s, long lo, long hi, long *out)
{
    char *end;
    if (!s || !*s || isspace((unsigned char)*s))
        return false;
    errno = 0;
    long x = strtol(s, &end, 10);
    if (errno || *end != '\0' || x < lo || x > hi)
        return false;
    *out = x;
    return true;
}

static void verror(const char *cmd, const char *fmt, va_list ap)
{
    if (cmd)
        fprintf(stderr, "%s %s: ", CLI_PROG, cmd);
    else
        fprintf(stderr, "%s: ", CLI_PROG);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
}

void cli_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    verror(cmd, fmt, ap);
    va_end(ap);
}

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    verror(cmd, fmt, ap);
    va_end(ap);
    if (cmd)
        fprintf(stderr, "Try '%s %s --help'.\n", CLI_PROG, cmd);
    else
        fprintf(stderr, "Try '%s --help'.\n", CLI_PROG);
    return CLI_EXIT_INPUT;
}

char *cli_join(int n, char *const *words)
{
    size_t len = 1;
    for (int i = 0; i < n; i++)
        len += strlen(words[i]) + 1;
    char *s = malloc(len), *q = s;
    if (!s)
        return NULL;
    *q = '\0';
    for (int i = 0; i < n; i++) {
        size_t k = strlen(words[i]);
        if (i)
            *q++ = ' ';
        memcpy(q, words[i], k);
        q += k;
        *q = '\0';
    }
    return s;
}

bool cli_load_variant(const char *cmd, const char *name, struct mmtb_variant **v)
{
    char err[256] = "";
    int rc = mmtb_variant_load(v, name, err, sizeof err);
    if (rc == MMTB_OK)
        return true;
    *v = NULL;
    cli_error(cmd, "variant '%s': %s", name, err[0] ? err : mmtb_strerror(rc));
    const char *const *names = mmtb_variant_builtin_names();
    if (names && names[0]) {
        fprintf(stderr, "Built-in variants:");
        for (int i = 0; names[i]; i++)
            fprintf(stderr, " %s", names[i]);
        fprintf(stderr, " (or the path of a variant file)\n");
    }
    return false;
}

/* "256M" -> 268435456: a decimal number with an optional K, M or G
 * (powers of 1024); 1 byte .. 1 TiB. */
bool cli_parse_bytes(const char *s, size_t *out)
{
    char *end;
    if (!s || *s < '0' || *s > '9')
        return false;
    errno = 0;
    unsigned long long x = strtoull(s, &end, 10);
    if (errno)
        return false;
    unsigned shift = 0;
    switch (*end) {
    case 'k':
    case 'K':
        shift = 10;
        break;
    case 'm':
    case 'M':
        shift = 20;
        break;
    case 'g':
    case 'G':
        shift = 30;
        break;
    case '\0':
        break;
    default:
        return false;
    }
    if (*end && end[1] != '\0')
        return false;
    if (x == 0 || x > (1ULL << 40) >> shift)
        return false;
    *out = (size_t)(x << shift);
    return true;
}

/* JSON string escaping per RFC 8259: quote, backslash and control characters
 * are escaped; other bytes pass through (the input is UTF-8 or ASCII). */
void cli_json_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
        switch (*c) {
        case '"':
            fputs("\\\"", f);
            break;
        case '\\':
            fputs("\\\\", f);
            break;
        case '\n':
            fputs("\\n", f);
            break;
        case '\r':
            fputs("\\r", f);
            break;
        case '\t':
            fputs("\\t", f);
            break;
        default:
            if (*c < 0x20 || *c == 0x7f)
                fprintf(f, "\\u%04x", *c);
            else
                fputc(*c, f);
        }
    }
    fputc('"', f);
}

const char *cli_colour_name(int c, bool capital)
{
    if (capital)
        return c == MMTB_WHITE ? "White" : "Black";
    return c == MMTB_WHITE ? "white" : "black";
}

const char *cli_wdl_name(int wdl)
{
    return wdl > 0 ? "win" : wdl < 0 ? "loss" : "draw";
}

void cli_format_points(const struct mmtb_variant *v, uint32_t mask, const char *sep,
                       char *buf, size_t len)
{
    size_t used = 0;
    if (len == 0)
        return;
    buf[0] = '\0';
    if (!mask) {
        snprintf(buf, len, "-");
        return;
    }
    for (int i = 0; i < v->npoints; i++) {
        if (!(mask >> i & 1))
            continue;
        int n = snprintf(buf + used, len - used, "%s%s", used ? sep : "", v->point_name[i]);
        if (n < 0 || (size_t)n >= len - used)
            return;
        used += (size_t)n;
    }
}

/* ---------------------------------------------------------------------- */
/* tables                                                                 */
/* ---------------------------------------------------------------------- */

/* The exit code for a status from libmmtb. */
int cli_table_exit(int status)
{
    /* 1 for input the rules reject, 2 for anything the tables cannot answer */
    return status == MMTB_ERR_INVALID || status == MMTB_ERR_PARSE ? CLI_EXIT_INPUT
                                                                    : CLI_EXIT_TABLE;
}

/* Open a table directory (and a probe context when ctx is not NULL),
 * printing the error on failure. */
bool cli_open_tables(const char *cmd, const char *dir, mmtb_tb **tb, mmtb_ctx **ctx)
{
    char err[256] = "";
    struct mmtb_tb_opts opts = {0};
    opts.err = err;
    opts.errlen = sizeof err;
    *tb = NULL;
    if (ctx)
        *ctx = NULL;
    int rc = mmtb_tb_open(tb, dir, &opts);
    if (rc != MMTB_OK) {
        cli_error(cmd, "cannot open tables in '%s': %s", dir, err[0] ? err : mmtb_strerror(rc));
        *tb = NULL;
        return false;
    }
    if (ctx && (rc = mmtb_ctx_create(ctx, *tb, 0)) != MMTB_OK) {
        cli_error(cmd, "cannot create a probe context: %s", mmtb_strerror(rc));
        mmtb_tb_close(*tb);
        *tb = NULL;
        return false;
    }
    return true;
}

/* "win in 17", "loss in 4", "draw"; "win" without the depth. */
void cli_format_value(int wdl, int dtw, bool with_dtw, char *buf, size_t len)
{
    if (wdl == MMTB_DRAW || !with_dtw)
        snprintf(buf, len, "%s", cli_wdl_name(wdl));
    else
        snprintf(buf, len, "%s in %d", cli_wdl_name(wdl), dtw);
}
