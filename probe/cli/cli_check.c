/*
 * cli_check.c - `mmtb-probe check`: engines' chosen moves in bulk, one
 * "POSITION ; MOVE" per line, judged against perfect play on several
 * threads (one libmmtb context each), printed in input order, with a
 * summary by verdict, phase and sector and the worst errors.  Judging is
 * cli_verdict.c's; the line grammar is documented in docs/CLI.md.
 */
#include <ctype.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mmtb.h"
#include "movegen.h"
#include "notation.h"
#include "probe_cli.h"
#include "sector_index.h"

static const char check_help[] =
    "Usage: mmtb-probe check -t DIR [--json] [--summary] [--threads N] [--worst K]\n"
    "                        [--cache BYTES] [FILE...]\n"
    "\n"
    "Judge moves chosen by an engine against perfect play.  Each input line\n"
    "is a position (simple form or Sanmill FEN), a separator and the move:\n"
    "\n"
    "  POSITION ; MOVE          e.g.  d7,g7,g1 a4,g4,d5 b ; g4-f4\n"
    "  POSITION bm MOVE[;]      (EPD style)\n"
    "\n"
    "MOVE is a whole turn (d6, d6-d5, d6-d5xb4) or a move and its removal as\n"
    "two tokens (d6-d5 xb4).  Text after a further ';' is a comment; blank\n"
    "lines and lines starting with '#' are skipped.  Without FILE (or with\n"
    "'-') the lines are read from standard input.\n"
    "\n"
    "Each line gets a verdict: best (keeps the value at the best depth),\n"
    "keeps (same win/draw/loss, other depth), error (win->draw, win->loss,\n"
    "draw->loss; with the best moves), unknown (outside the tables) or invalid\n"
    "(an unreadable line, position or move, or an illegal move).  The summary\n"
    "gives the counts and rates, errors by phase and by sector, and the worst\n"
    "errors (wins thrown away, the shortest first).  Output is in input order\n"
    "and the same for any number of threads.\n"
    "\n"
    "Options:\n"
    "  -t, --tables DIR   table directory (required)\n"
    "  -j, --json         one JSON document (fields in docs/CLI.md)\n"
    "  -s, --summary      only the summary, no line per position\n"
    "  -n, --threads N    threads (default: the number of processors)\n"
    "      --worst K      how many worst errors and sectors to list (default 10)\n"
    "  -c, --cache BYTES  block cache per thread (default 256M; K, M, G suffixes)\n"
    "  -h, --help         show this help\n"
    "\n"
    "Exit codes:\n"
    "  0  every line judged (unknown ones included)\n"
    "  1  bad usage, an unreadable file, or an invalid line (the others are\n"
    "     still judged)\n"
    "  2  the tables cannot be opened or a table is corrupt\n";

/* Lines judged per batch: read, judged on the threads, printed. */
#define CHECK_BATCH 8192

/* One input line and what became of it. */
struct item {
    int line;
    char *text;       /* the line (owned); position and move point into it */
    char *pos, *move;
    int status;       /* MMTB_OK, or the line is invalid (msg says why) */
    char msg[240];
    struct mmtb_pos p;
    struct mmtb_move m;
    struct cli_judgement j;
};

/* A worst error kept for the summary. */
struct worst {
    int line;
    char pos[160], move[64], best[200];
    struct mmtb_value before, after;
};

/* Sector tallies, by the 5-bit packed stone counts of the side to move. */
#define SECTOR_KEY(s) (((unsigned)(s).w & 31) << 15 | ((unsigned)(s).b & 31) << 10 | \
                       ((unsigned)(s).w_hand & 31) << 5 | ((unsigned)(s).b_hand & 31))
#define SECTOR_KEYS (1u << 20)

/* One thread's libmmtb context and move scratch. */
struct slot {
    mmtb_ctx *ctx;
    struct mmtb_move_value *scratch;
};

struct check {
    const char *cmd, *dir;
    mmtb_tb *tb;
    const struct mmtb_variant *v;
    bool json, summary_only;
    int threads, nworst;
    size_t cache;                       /* block cache per thread */
    long lines, judged, best, keeps, errors, unknown, invalid;
    long kinds[3];                      /* win->draw, win->loss, draw->loss */
    long phase_judged[3], phase_err[3]; /* placement, movement, flying */
    uint32_t *sec_judged, *sec_err;
    struct worst *worst;
    int nw;
    int table_rc;
    long printed;
    struct slot slot[64]; /* per thread: its context and scratch */
};

static const char *const phase_names[3] = {"placement", "movement", "flying"};

static int phase_index(const struct mmtb_variant *v, const struct mmtb_pos *p)
{
    const char *ph = cli_phase_name(v, p);
    return ph[0] == 'p' ? 0 : ph[0] == 'm' ? 1 : 2;
}

/* Cut a line into its position and move; false with msg when it has no
 * separator or an empty side. */
static bool split_line(struct item *it)
{
    char *s = it->text, *bm = strstr(s, " bm "), *rest;
    if (bm) {
        *bm = '\0';
        rest = bm + 4;
    } else {
        char *sep = strchr(s, ';');
        if (!sep) {
            snprintf(it->msg, sizeof it->msg,
                     "line %d: expected 'POSITION ; MOVE' or 'POSITION bm MOVE'", it->line);
            return false;
        }
        *sep = '\0';
        rest = sep + 1;
    }
    char *end = strchr(rest, ';'); /* the move ends at ';', a comment may follow */
    if (end)
        *end = '\0';
    /* trim both parts */
    while (isspace((unsigned char)*s))
        s++;
    for (size_t n = strlen(s); n && isspace((unsigned char)s[n - 1]);)
        s[--n] = '\0';
    while (isspace((unsigned char)*rest))
        rest++;
    for (size_t n = strlen(rest); n && isspace((unsigned char)rest[n - 1]);)
        rest[--n] = '\0';
    it->pos = s;
    it->move = rest;
    if (!*s || !*rest) {
        snprintf(it->msg, sizeof it->msg, "line %d: %s is missing", it->line,
                 *s ? "the move" : "the position");
        return false;
    }
    return true;
}

/* Parse, check and judge one line (on a worker thread). */
static void judge_item(const struct check *c, mmtb_ctx *ctx, struct mmtb_move_value *scratch,
                       struct item *it)
{
    char err[200] = "";
    it->status = MMTB_ERR_PARSE;
    if (!split_line(it))
        return;
    if (mmtb_pos_parse(c->v, it->pos, &it->p, err, sizeof err) != MMTB_OK) {
        snprintf(it->msg, sizeof it->msg, "line %d: bad position '%.*s%s': %s", it->line,
                 CLI_QUOTE(it->pos), err);
        return;
    }
    /* the move: one token, or a move and its removal */
    char buf[128], *tok[3];
    int ntok = 0, used;
    snprintf(buf, sizeof buf, "%s", it->move);
    for (char *save, *t = strtok_r(buf, " \t", &save); t && ntok < 3;
         t = strtok_r(NULL, " \t", &save))
        tok[ntok++] = t;
    if (cli_parse_turn(c->v, tok, ntok, &used, &it->m, err, sizeof err) != MMTB_OK) {
        snprintf(it->msg, sizeof it->msg, "line %d: %s", it->line, err);
        return;
    }
    if (used != ntok) {
        snprintf(it->msg, sizeof it->msg, "line %d: expected one move (and its removal), got '%.*s%s'",
                 it->line, CLI_QUOTE(it->move));
        return;
    }
    if (cli_match_move(c->v, &it->p, &it->m, err, sizeof err) != MMTB_OK) {
        snprintf(it->msg, sizeof it->msg, "line %d: %.*s%s is not legal: %s", it->line,
                 CLI_QUOTE(it->move), err);
        it->status = MMTB_ERR_INVALID;
        return;
    }
    it->status = MMTB_OK;
    cli_judge(c->tb, ctx, c->dir, &it->p, &it->m, scratch, &it->j);
}

struct worker {
    const struct check *c;
    struct slot *slot; /* the worker's context, kept from batch to batch */
    struct item *items;
    int n, tid, nthreads;
    int rc; /* MMTB_OK or why the worker could not start */
};

/* Judge items tid, tid + T, ... with the context of slot tid, created on
 * its first batch and kept for the next ones, so that its block cache
 * stays warm over the whole input (batches run one after another). */
static void *worker_run(void *arg)
{
    struct worker *w = arg;
    struct slot *s = w->slot;
    if (!s->scratch)
        s->scratch = malloc(sizeof *s->scratch * MMTB_MAX_MOVES);
    w->rc = !s->scratch ? MMTB_ERR_NOMEM
            : s->ctx    ? MMTB_OK
                        : mmtb_ctx_create(&s->ctx, w->c->tb, w->c->cache);
    if (w->rc == MMTB_OK)
        for (int i = w->tid; i < w->n; i += w->nthreads)
            judge_item(w->c, s->ctx, s->scratch, &w->items[i]);
    return NULL;
}

/* Free the threads' contexts and scratch (before the handle is closed). */
static void free_slots(struct check *c)
{
    for (int t = 0; t < 64; t++) {
        mmtb_ctx_free(c->slot[t].ctx);
        free(c->slot[t].scratch);
        c->slot[t] = (struct slot){NULL, NULL};
    }
}

/* Keep the nworst worst errors: wins thrown away first, the shortest win
 * first; then draws thrown away, the fastest loss first. */
static long worst_key(const struct mmtb_value *before, const struct mmtb_value *after)
{
    if (before->wdl == MMTB_WIN)
        return (long)before->dtw * 4 + (after->wdl == MMTB_LOSS ? 0 : 1);
    return 1000000L + (after->dtw < 0 ? 0 : after->dtw);
}

static void keep_worst(struct check *c, const struct item *it)
{
    long k = worst_key(&it->j.before, &it->j.after);
    int at = c->nw;
    while (at > 0 && worst_key(&c->worst[at - 1].before, &c->worst[at - 1].after) > k)
        at--;
    if (at >= c->nworst)
        return;
    int last = c->nw < c->nworst ? c->nw : c->nworst - 1;
    memmove(&c->worst[at + 1], &c->worst[at], sizeof *c->worst * (size_t)(last - at));
    if (c->nw < c->nworst)
        c->nw++;
    struct worst *w = &c->worst[at];
    w->line = it->line;
    snprintf(w->pos, sizeof w->pos, "%s", it->pos);
    mmtb_move_format(c->v, &it->m, w->move, sizeof w->move);
    cli_format_best(c->v, &it->j, ", ", w->best, sizeof w->best);
    w->before = it->j.before;
    w->after = it->j.after;
}

/* Count one judged item and print its line. */
static void report_item(struct check *c, struct item *it)
{
    c->lines++;
    char mb[64] = "", b[48] = "", a[48] = "", best[400] = "";
    if (it->status != MMTB_OK) {
        c->invalid++;
        cli_error(c->cmd, "%s", it->msg);
    } else {
        mmtb_move_format(c->v, &it->m, mb, sizeof mb);
        const struct cli_judgement *j = &it->j;
        if (j->verdict == CLI_UNKNOWN) {
            c->unknown++;
            if (j->status != MMTB_ERR_MISSING && j->status != MMTB_ERR_NOT_IN_GAME &&
                j->status != MMTB_ERR_UNSUPPORTED)
                c->table_rc = j->status;
        } else {
            int ph = phase_index(c->v, &it->p);
            unsigned key = SECTOR_KEY(mmtb_pos_sector(&it->p));
            c->judged++;
            c->phase_judged[ph]++;
            c->sec_judged[key]++;
            c->best += j->verdict == CLI_BEST;
            c->keeps += j->verdict == CLI_KEEPS;
            if (j->verdict == CLI_ERROR) {
                const char *k = cli_error_kind(j);
                c->errors++;
                c->phase_err[ph]++;
                c->sec_err[key]++;
                c->kinds[!strcmp(k, "win->draw") ? 0 : !strcmp(k, "win->loss") ? 1 : 2]++;
                keep_worst(c, it);
            }
            cli_format_value(j->before.wdl, j->before.dtw, true, b, sizeof b);
            cli_format_value(j->after.wdl, j->after.dtw, true, a, sizeof a);
            if (j->nbest)
                cli_format_best(c->v, j, ", ", best, sizeof best);
        }
    }
    if (c->summary_only)
        return;
    const struct cli_judgement *j = &it->j;
    if (c->json) {
        printf("%s{\"line\":%d,\"position\":", c->printed++ ? ",\n" : "", it->line);
        if (it->pos)
            cli_json_str(stdout, it->pos);
        else
            printf("null");
        if (it->status != MMTB_OK) {
            printf(",\"verdict\":\"invalid\",\"message\":");
            cli_json_str(stdout, it->msg);
            printf("}");
            return;
        }
        printf(",\"move\":");
        cli_json_str(stdout, mb);
        char sec[32];
        mmtb_sector_format(mmtb_pos_sector(&it->p), sec, sizeof sec);
        printf(",\"mover\":\"%s\",\"phase\":\"%s\",\"sector\":\"%s\",\"verdict\":\"%s\"",
               cli_colour_name(it->p.side, false), cli_phase_name(c->v, &it->p), sec,
               cli_verdict_name(j->verdict));
        if (j->verdict == CLI_UNKNOWN) {
            printf(",\"before\":null,\"after\":null,\"unknown\":");
            cli_json_str(stdout, j->unknown);
            printf("}");
            return;
        }
        printf(",\"before\":");
        cli_json_value(stdout, &j->before);
        printf(",\"after\":");
        cli_json_value(stdout, &j->after);
        if (j->verdict == CLI_ERROR)
            printf(",\"error\":\"%s\"", cli_error_kind(j));
        if (j->nbest) {
            printf(",\"best\":[");
            for (int i = 0; i < j->nbest && i < CLI_MAX_BEST; i++) {
                mmtb_move_format(c->v, &j->best[i], mb, sizeof mb);
                printf("%s", i ? "," : "");
                cli_json_str(stdout, mb);
            }
            printf("]");
        }
        printf("}");
        return;
    }
    if (it->status != MMTB_OK)
        printf("%d: invalid: %s\n", it->line, it->msg);
    else if (j->verdict == CLI_UNKNOWN)
        printf("%d: unknown  %-12s %s\n", it->line, mb, j->unknown);
    else if (j->verdict == CLI_BEST)
        printf("%d: best     %-12s %s\n", it->line, mb, b);
    else
        printf("%d: %-8s %-12s %s -> %s; best: %s\n", it->line,
               j->verdict == CLI_ERROR ? "ERROR" : "keeps", mb, b, a, best);
}

/* Judge a batch on the threads, then count and print it in order. */
static void run_batch(struct check *c, struct item *items, int n)
{
    struct worker w[64];
    pthread_t th[64];
    int T = c->threads < n ? c->threads : n;
    for (int t = 0; t < T; t++) {
        w[t] = (struct worker){c, &c->slot[t], items, n, t, T, MMTB_OK};
        if (T == 1 || pthread_create(&th[t], NULL, worker_run, &w[t]) != 0) {
            worker_run(&w[t]);
            th[t] = 0;
        }
    }
    for (int t = 0; t < T; t++) {
        if (T > 1 && th[t])
            pthread_join(th[t], NULL);
        if (w[t].rc != MMTB_OK)
            c->table_rc = w[t].rc;
    }
    for (int i = 0; i < n; i++) {
        report_item(c, &items[i]);
        free(items[i].text);
    }
}

static double rate(long part, long whole)
{
    return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

/* The sectors with the most errors, at most c->nworst of them, into keys[];
 * returns how many. */
static int top_sectors(const struct check *c, unsigned *keys)
{
    int n = 0;
    for (unsigned k = 0; k < SECTOR_KEYS; k++) {
        if (!c->sec_err[k])
            continue;
        int at = n;
        while (at > 0 && c->sec_err[keys[at - 1]] < c->sec_err[k])
            at--;
        if (at >= c->nworst)
            continue;
        int last = n < c->nworst ? n : c->nworst - 1;
        memmove(&keys[at + 1], &keys[at], sizeof *keys * (size_t)(last - at));
        keys[at] = k;
        if (n < c->nworst)
            n++;
    }
    return n;
}

static void key_name(unsigned k, char *buf, size_t len)
{
    struct mmtb_sector s = {(uint8_t)(k >> 15 & 31), (uint8_t)(k >> 10 & 31),
                            (uint8_t)(k >> 5 & 31), (uint8_t)(k & 31)};
    mmtb_sector_format(s, buf, len);
}

static void print_summary(const struct check *c)
{
    unsigned *keys = malloc(sizeof *keys * (size_t)(c->nworst + 1));
    int nk = keys ? top_sectors(c, keys) : 0;
    char name[32];
    if (c->json) {
        printf("%s\"summary\":{\"lines\":%ld,\"judged\":%ld,\"best\":%ld,\"keeps\":%ld,"
               "\"errors\":%ld,\"unknown\":%ld,\"invalid\":%ld,",
               c->summary_only ? "" : "],", c->lines, c->judged, c->best, c->keeps, c->errors,
               c->unknown, c->invalid);
        printf("\"rates\":{\"best\":%.6f,\"keeps\":%.6f,\"errors\":%.6f},",
               rate(c->best, c->judged) / 100, rate(c->keeps, c->judged) / 100,
               rate(c->errors, c->judged) / 100);
        printf("\"error_kinds\":{\"win->draw\":%ld,\"win->loss\":%ld,\"draw->loss\":%ld},",
               c->kinds[0], c->kinds[1], c->kinds[2]);
        printf("\"by_phase\":{");
        for (int i = 0; i < 3; i++)
            printf("%s\"%s\":{\"judged\":%ld,\"errors\":%ld}", i ? "," : "", phase_names[i],
                   c->phase_judged[i], c->phase_err[i]);
        printf("},\"by_sector\":[");
        for (int i = 0; i < nk; i++) {
            key_name(keys[i], name, sizeof name);
            printf("%s{\"sector\":\"%s\",\"judged\":%u,\"errors\":%u}", i ? "," : "", name,
                   c->sec_judged[keys[i]], c->sec_err[keys[i]]);
        }
        printf("],\"worst\":[");
        for (int i = 0; i < c->nw; i++) {
            const struct worst *w = &c->worst[i];
            printf("%s{\"line\":%d,\"position\":", i ? "," : "", w->line);
            cli_json_str(stdout, w->pos);
            printf(",\"move\":");
            cli_json_str(stdout, w->move);
            printf(",\"before\":");
            cli_json_value(stdout, &w->before);
            printf(",\"after\":");
            cli_json_value(stdout, &w->after);
            printf(",\"best\":");
            cli_json_str(stdout, w->best);
            printf("}");
        }
        printf("]}}\n");
        free(keys);
        return;
    }
    printf("%ssummary: %ld line%s: %ld judged, %ld unknown, %ld invalid\n",
           c->summary_only ? "" : "\n", c->lines, c->lines == 1 ? "" : "s", c->judged,
           c->unknown, c->invalid);
    printf("  best    %10ld  %6.2f %%\n", c->best, rate(c->best, c->judged));
    printf("  keeps   %10ld  %6.2f %%\n", c->keeps, rate(c->keeps, c->judged));
    printf("  errors  %10ld  %6.2f %%  (win->draw %ld, win->loss %ld, draw->loss %ld)\n",
           c->errors, rate(c->errors, c->judged), c->kinds[0], c->kinds[1], c->kinds[2]);
    printf("  by phase:   %10s %10s %8s\n", "judged", "errors", "rate");
    for (int i = 0; i < 3; i++)
        printf("  %-10s  %10ld %10ld %7.2f %%\n", phase_names[i], c->phase_judged[i],
               c->phase_err[i], rate(c->phase_err[i], c->phase_judged[i]));
    if (nk) {
        printf("  sectors with the most errors:\n");
        for (int i = 0; i < nk; i++) {
            key_name(keys[i], name, sizeof name);
            printf("    %-12s %8u errors of %8u judged\n", name, c->sec_err[keys[i]],
                   c->sec_judged[keys[i]]);
        }
    }
    if (c->nw) {
        printf("  worst errors:\n");
        for (int i = 0; i < c->nw; i++) {
            const struct worst *w = &c->worst[i];
            char b[48], a[48];
            cli_format_value(w->before.wdl, w->before.dtw, true, b, sizeof b);
            cli_format_value(w->after.wdl, w->after.dtw, true, a, sizeof a);
            printf("    line %d: %s in '%s': %s -> %s; best: %s\n", w->line, w->move, w->pos, b,
                   a, w->best);
        }
    }
    free(keys);
}

/* Read, judge and print every line of one stream, a batch at a time. */
static bool check_stream(struct check *c, FILE *f, struct item *items)
{
    char *line = NULL;
    size_t cap = 0;
    int n = 0, lineno = 0;
    bool ok = true;
    while (getline(&line, &cap, f) >= 0) {
        lineno++;
        char *s = line;
        while (isspace((unsigned char)*s))
            s++;
        if (*s == '\0' || *s == '#')
            continue;
        memset(&items[n], 0, sizeof items[n]);
        items[n].line = lineno;
        if (!(items[n].text = strdup(s))) {
            cli_error(c->cmd, "out of memory");
            ok = false;
            break;
        }
        if (++n == CHECK_BATCH) {
            run_batch(c, items, n);
            n = 0;
        }
    }
    if (n)
        run_batch(c, items, n);
    free(line);
    return ok;
}

/* Returned by parse_check_opts when the check is to run. */
#define CHECK_GO (-1)

/* Read the options into *c (defaults already set) and the input files
 * into files[0..*nfiles): CHECK_GO, or the exit code (after --help or a
 * usage error). */
static int parse_check_opts(int argc, char **argv, struct check *c, char **files, int *nfiles)
{
    enum { O_TABLES = 1, O_JSON, O_SUMMARY, O_THREADS, O_WORST, O_CACHE, O_HELP };
    static const struct cli_opt opts[] = {
        {"tables", 't', true, O_TABLES},    {"json", 'j', false, O_JSON},
        {"summary", 's', false, O_SUMMARY}, {"threads", 'n', true, O_THREADS},
        {"worst", 0, true, O_WORST},        {"cache", 'c', true, O_CACHE},
        {"help", 'h', false, O_HELP},       {NULL, 0, false, 0}};
    struct cli_parser ps;
    const char *arg;
    int id;
    long x;
    cli_parser_init(&ps, argc, argv);
    c->cmd = ps.cmd;
    while ((id = cli_next(&ps, opts, &arg)) != CLI_END) {
        switch (id) {
        case CLI_BAD:
            return CLI_EXIT_INPUT;
        case O_TABLES:
            c->dir = arg;
            break;
        case O_JSON:
            c->json = true;
            break;
        case O_SUMMARY:
            c->summary_only = true;
            break;
        case O_THREADS:
            if (!cli_parse_long(arg, 1, 64, &x))
                return cli_usage_error(ps.cmd, "bad --threads '%s' (1 to 64)", arg);
            c->threads = (int)x;
            break;
        case O_WORST:
            if (!cli_parse_long(arg, 0, 10000, &x))
                return cli_usage_error(ps.cmd, "bad --worst '%s' (0 to 10000)", arg);
            c->nworst = (int)x;
            break;
        case O_CACHE:
            if (!cli_parse_bytes(arg, &c->cache))
                return cli_usage_error(ps.cmd, "bad --cache '%s' (bytes, e.g. 64M)", arg);
            break;
        case O_HELP:
            fputs(check_help, stdout);
            return CLI_EXIT_OK;
        default:
            files[(*nfiles)++] = (char *)arg;
        }
    }
    if (!c->dir)
        return cli_usage_error(ps.cmd, "missing -t DIR (the table directory)");
    return CHECK_GO;
}

/* Check the lines of files[0..nfiles) ("-" or none: standard input), with
 * the opening of the JSON report before them; CLI_EXIT_INPUT when a file
 * cannot be read (the others are still checked), else CLI_EXIT_OK. */
static int check_files(struct check *c, char **files, int nfiles, struct item *items)
{
    int ret = CLI_EXIT_OK;
    if (c->json) {
        printf("{\"tables\":");
        cli_json_str(stdout, c->dir);
        printf(",\"variant\":");
        cli_json_str(stdout, c->v->name);
        printf(",%s", c->summary_only ? "" : "\"positions\":[\n");
    }
    if (nfiles == 0)
        files[nfiles++] = "-";
    for (int i = 0; i < nfiles; i++) {
        FILE *f = strcmp(files[i], "-") == 0 ? stdin : fopen(files[i], "r");
        if (!f) {
            cli_error(c->cmd, "cannot read '%s': %s", files[i], strerror(errno));
            ret = CLI_EXIT_INPUT;
            continue;
        }
        if (!check_stream(c, f, items))
            c->table_rc = MMTB_ERR_NOMEM;
        if (f != stdin)
            fclose(f);
    }
    if (c->json && !c->summary_only)
        printf("\n");
    return ret;
}

int cli_cmd_check(int argc, char **argv)
{
    struct check c;
    memset(&c, 0, sizeof c);
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    c.threads = ncpu > 0 ? (int)(ncpu < 64 ? ncpu : 64) : 1;
    c.nworst = 10;
    c.cache = (size_t)256 << 20;
    int nfiles = 0, ret;
    char **files = calloc((size_t)argc + 1, sizeof *files);
    struct item *items = NULL;
    if (!files)
        return CLI_EXIT_TABLE;
    ret = parse_check_opts(argc, argv, &c, files, &nfiles);
    if (ret == CHECK_GO && !cli_open_tables(c.cmd, c.dir, &c.tb, NULL))
        ret = CLI_EXIT_TABLE;
    if (ret != CHECK_GO) {
        free(files);
        return ret;
    }
    c.v = mmtb_tb_variant(c.tb);
    c.sec_judged = calloc(SECTOR_KEYS, sizeof *c.sec_judged);
    c.sec_err = calloc(SECTOR_KEYS, sizeof *c.sec_err);
    c.worst = calloc((size_t)c.nworst + 1, sizeof *c.worst);
    items = malloc(sizeof *items * CHECK_BATCH);
    if (!c.sec_judged || !c.sec_err || !c.worst || !items) {
        cli_error(c.cmd, "out of memory");
        ret = CLI_EXIT_TABLE;
        goto out;
    }
    ret = check_files(&c, files, nfiles, items);
    print_summary(&c);
    if (c.invalid && ret == CLI_EXIT_OK)
        ret = CLI_EXIT_INPUT;
    if (c.table_rc != MMTB_OK) {
        cli_error(c.cmd, "tables in '%s': %s", c.dir, mmtb_strerror(c.table_rc));
        ret = CLI_EXIT_TABLE;
    }
out:
    free_slots(&c);
    free(items);
    free(c.worst);
    free(c.sec_err);
    free(c.sec_judged);
    free(files);
    mmtb_tb_close(c.tb);
    return ret;
}
