/*
 * cli_annotate.c - `mmtb-probe annotate`: game records in, a verdict per
 * ply out (best / keeps / error / unknown, with the values and the best
 * moves), a summary per game and per file, and whether each recorded
 * result agrees with perfect play.  The record grammar is documented in
 * docs/CLI.md; judging is cli_verdict.c's.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mmtb.h"
#include "mmtb_integrity.h"
#include "movegen.h"
#include "notation.h"
#include "probe_cli.h"

static const char annotate_help[] =
    "Usage: mmtb-probe annotate -t DIR [--json] [--summary] [--start POSITION] [FILE...]\n"
    "\n"
    "Judge every ply of recorded games against perfect play.  Each game is one\n"
    "line of whole turns (d6, d6-d5, d6xb4, d6-d5xb4; a removal may also be its\n"
    "own token: d6-d5 xb4), with optional move numbers (1. d6 f4 2. ...), an\n"
    "optional result at the end (1-0, 0-1, 1/2-1/2, *), and comments in {braces}\n"
    "or after ';'.  Lines starting with '#' are comments; a line [FEN \"POSITION\"]\n"
    "(either notation) sets the start of the next game, [Result \"1-0\"] its\n"
    "result; other [Tag \"...\"] lines are ignored.  Games start from the\n"
    "variant's empty board unless --start or a [FEN] line says otherwise.\n"
    "Without FILE (or with '-') the games are read from standard input.\n"
    "\n"
    "For every ply: the mover, the move, the value before it and the value the\n"
    "move keeps (for the mover), and a verdict: best (the value at the best\n"
    "depth), keeps (the same win/draw/loss at another depth), error (win->draw,\n"
    "win->loss or draw->loss, with the best moves), or unknown (a sector the\n"
    "tables do not hold; the game goes on).  Per game: errors per side, the\n"
    "first error, the value of the last position and whether the recorded\n"
    "result agrees with it.  An illegal move ends its game; the others go on.\n"
    "\n"
    "Options:\n"
    "  -t, --tables DIR      table directory (required)\n"
    "  -j, --json            one JSON document (fields in docs/CLI.md)\n"
    "  -s, --summary         text: only the summaries, no per-ply lines\n"
    "      --start POSITION  start position of games without a [FEN] line\n"
    "  -h, --help            show this help\n"
    "\n"
    "Exit codes:\n"
    "  0  every game read and annotated (unknown plies included)\n"
    "  1  bad usage, an unreadable file, or a game with an illegal or\n"
    "     unreadable move or start position (the other games are annotated)\n"
    "  2  the tables cannot be opened or a table is corrupt\n";

/* Totals over a game or a file. */
struct tally {
    long games, plies, judged, best, keeps, errors, unknown, illegal, disagree;
    long err_side[2];
};

struct annotate {
    const char *cmd, *dir;
    mmtb_tb *tb;
    mmtb_ctx *ctx;
    const struct mmtb_variant *v;
    bool json, summary_only;
    struct mmtb_pos start;     /* --start or the variant's start */
    bool have_next_start;      /* a [FEN] line for the next game */
    struct mmtb_pos next_start;
    char next_start_err[200];  /* a bad [FEN] line: the next game is refused */
    char next_result[16];      /* [Result] of the next game */
    int next_line;             /* line of the first header of the next game */
    struct mmtb_move_value *scratch;
    struct tally file;
    int exit_code;
};

static int worse(int a, int b)
{
    return a > b ? a : b;
}

static void add_tally(struct tally *to, const struct tally *t)
{
    to->games += t->games;
    to->plies += t->plies;
    to->judged += t->judged;
    to->best += t->best;
    to->keeps += t->keeps;
    to->errors += t->errors;
    to->unknown += t->unknown;
    to->illegal += t->illegal;
    to->disagree += t->disagree;
    to->err_side[0] += t->err_side[0];
    to->err_side[1] += t->err_side[1];
}

static bool is_result(const char *s)
{
    return !strcmp(s, "1-0") || !strcmp(s, "0-1") || !strcmp(s, "1/2-1/2") || !strcmp(s, "*");
}

/* Remove {comments} and everything after ';' in place; a comment
 * separates tokens. */
static void strip_comments(char *s)
{
    char *w = s;
    int depth = 0;
    for (char *r = s; *r; r++) {
        if (*r == ';' && depth == 0)
            break;
        if (*r == '{') {
            if (depth++ == 0)
                *w++ = ' ';
        } else if (*r == '}' && depth > 0) {
            depth--;
        } else if (depth == 0) {
            *w++ = *r;
        }
    }
    *w = '\0';
}

/* Split s into whitespace-separated tokens in place; move numbers ("12.",
 * "12...") are dropped and a number glued to a move ("1.d6") is cut off. */
static int tokenize(char *s, char ***out)
{
    int n = 0, cap = 64;
    char **tok = malloc(sizeof *tok * (size_t)cap);
    if (!tok)
        return -1;
    for (char *t = strtok(s, " \t\r\n"); t; t = strtok(NULL, " \t\r\n")) {
        char *d = t;
        while (isdigit((unsigned char)*d))
            d++;
        if (d > t && *d == '.') {
            while (*d == '.')
                d++;
            t = d;
            if (!*t)
                continue;
        }
        if (n == cap) {
            char **g = realloc(tok, sizeof *tok * (size_t)(cap *= 2));
            if (!g) {
                free(tok);
                return -1;
            }
            tok = g;
        }
        tok[n++] = t;
    }
    *out = tok;
    return n;
}

/* One value cell of the text table. */
static void value_cell(const struct mmtb_value *val, char *buf, size_t len)
{
    cli_format_value(val->wdl, val->dtw, true, buf, len);
}

/* Print one judged ply (text or JSON). */
static void print_ply(struct annotate *a, int ply, const struct mmtb_pos *p, const char *move,
                      const struct cli_judgement *j, bool first)
{
    const struct mmtb_variant *v = a->v;
    int mover = p->side;
    char best[1024] = "";
    if (j->nbest)
        cli_format_best(v, j, ", ", best, sizeof best);
    if (a->json) {
        printf("%s{\"ply\":%d,\"mover\":\"%s\",\"move\":", first ? "" : ",", ply,
               cli_colour_name(mover, false));
        cli_json_str(stdout, move);
        char pb[160];
        mmtb_pos_format(v, p, pb, sizeof pb);
        printf(",\"position\":");
        cli_json_str(stdout, pb);
        printf(",\"before\":");
        if (j->verdict == CLI_UNKNOWN)
            printf("null,\"after\":null");
        else {
            cli_json_value(stdout, &j->before);
            printf(",\"after\":");
            cli_json_value(stdout, &j->after);
        }
        printf(",\"verdict\":\"%s\"", cli_verdict_name(j->verdict));
        if (j->verdict == CLI_ERROR)
            printf(",\"error\":\"%s\",\"predicts\":\"%s\"", cli_error_kind(j),
                   cli_result_of(mover, &j->after));
        if (j->nbest) {
            printf(",\"best\":[");
            for (int i = 0; i < j->nbest && i < CLI_MAX_BEST; i++) {
                char mb[64];
                mmtb_move_format(v, &j->best[i], mb, sizeof mb);
                printf("%s", i ? "," : "");
                cli_json_str(stdout, mb);
            }
            printf("]");
        }
        if (j->verdict == CLI_UNKNOWN) {
            printf(",\"unknown\":");
            cli_json_str(stdout, j->unknown);
        }
        printf("}");
        return;
    }
    if (a->summary_only)
        return;
    char b[48] = "", c[48] = "";
    if (j->verdict != CLI_UNKNOWN) {
        value_cell(&j->before, b, sizeof b);
        value_cell(&j->after, c, sizeof c);
    }
    printf("  %4d  %-5s  %-12s %-12s %-12s ", ply, cli_colour_name(mover, false), move, b, c);
    switch (j->verdict) {
    case CLI_ERROR:
        printf("ERROR %s (now %s; best: %s)\n", cli_error_kind(j), cli_result_of(mover, &j->after),
               best);
        break;
    case CLI_KEEPS:
        printf("keeps (best: %s)\n", best);
        break;
    case CLI_UNKNOWN:
        printf("unknown: %s\n", j->unknown);
        break;
    default:
        printf("best\n");
    }
}

/* One game being annotated: where it is, what was found, how it ends. */
struct game {
    struct tally t;
    struct mmtb_pos p; /* the position reached */
    int line;          /* the line of its moves */
    int first_line;    /* its first line (a header's, if any) */
    char result[16];   /* the recorded result, "" when none */
    char illegal[400]; /* why it stopped early, "" when it did not */
    char illegal_move[64];
    int illegal_ply;
    int first_error;       /* ply of the first error, 0 when none */
    int table_rc;          /* the first table error, named once on stderr */
    struct mmtb_value fin; /* the last position's value, when frc is MMTB_OK */
    int frc;
    const char *predicted; /* the result perfect play gives from there, or NULL */
    int agrees;            /* the recorded result agrees: 1, 0, or -1 (nothing to compare) */
};

/* Start a game with what the headers before it set (consumed here). */
static void game_begin(struct annotate *a, struct game *g, int line)
{
    memset(g, 0, sizeof *g);
    g->t.games = 1;
    g->p = a->have_next_start ? a->next_start : a->start;
    g->line = line;
    g->first_line = a->next_line ? a->next_line : line;
    snprintf(g->result, sizeof g->result, "%s", a->next_result);
    if (a->next_start_err[0])
        snprintf(g->illegal, sizeof g->illegal, "line %d: %s", g->first_line, a->next_start_err);
    a->have_next_start = false;
    a->next_start_err[0] = a->next_result[0] = '\0';
    a->next_line = 0;
}

/* The game's first lines: number, line, start and recorded result. */
static void print_game_head(const struct annotate *a, const struct game *g)
{
    char sb[160];
    mmtb_pos_format(a->v, &g->p, sb, sizeof sb);
    if (a->json) {
        printf("%s{\"game\":%ld,\"line\":%d,\"start\":", a->file.games ? "," : "",
               a->file.games + 1, g->first_line);
        cli_json_str(stdout, sb);
        printf(",\"result\":");
        if (g->result[0])
            cli_json_str(stdout, g->result);
        else
            printf("null");
        printf(",\"plies\":[");
    } else {
        printf("%sgame %ld (line %d): start %s%s%s\n", a->file.games ? "\n" : "", a->file.games + 1,
               g->first_line, sb, g->result[0] ? ", recorded " : "", g->result);
        if (!a->summary_only)
            printf("  %4s  %-5s  %-12s %-12s %-12s %s\n", "ply", "mover", "move", "before", "after",
                   "verdict");
    }
}

/* Count a judged ply into the game's tally. */
static void tally_ply(struct game *g, const struct cli_judgement *j, int ply)
{
    g->t.plies++;
    if (j->verdict == CLI_UNKNOWN) {
        g->t.unknown++;
        return;
    }
    g->t.judged++;
    g->t.best += j->verdict == CLI_BEST;
    g->t.keeps += j->verdict == CLI_KEEPS;
    if (j->verdict == CLI_ERROR) {
        g->t.errors++;
        g->t.err_side[g->p.side]++;
        if (!g->first_error)
            g->first_error = ply;
    }
}

/* Read, check, judge and print the turns tok[0..ntok) from g->p on; an
 * unreadable or illegal turn stops the game (g->illegal says why). */
static void judge_plies(struct annotate *a, struct game *g, char **tok, int ntok)
{
    const struct mmtb_variant *v = a->v;
    for (int i = 0, ply = 1; i < ntok; ply++) {
        struct mmtb_move m;
        int used;
        char why[200] = "", mb[64];
        if (cli_parse_turn(v, tok + i, ntok - i, &used, &m, why, sizeof why) != MMTB_OK) {
            g->illegal_ply = ply;
            snprintf(g->illegal_move, sizeof g->illegal_move, "%.60s", tok[i]);
            snprintf(g->illegal, sizeof g->illegal, "line %d, ply %d: %s", g->line, ply, why);
            return;
        }
        if (used == 2)
            snprintf(mb, sizeof mb, "%.30s %.30s", tok[i], tok[i + 1]);
        else
            snprintf(mb, sizeof mb, "%.60s", tok[i]);
        if (cli_match_move(v, &g->p, &m, why, sizeof why) != MMTB_OK) {
            g->illegal_ply = ply;
            snprintf(g->illegal_move, sizeof g->illegal_move, "%s", mb);
            snprintf(g->illegal, sizeof g->illegal, "line %d, ply %d: %s is not legal: %s", g->line,
                     ply, mb, why);
            return;
        }
        i += used;
        mmtb_move_format(v, &m, mb, sizeof mb); /* the whole turn, written our way */
        struct cli_judgement j;
        int rc = cli_judge(a->tb, a->ctx, a->dir, &g->p, &m, a->scratch, &j);
        if (rc != MMTB_OK && rc != MMTB_ERR_MISSING && rc != MMTB_ERR_NOT_IN_GAME &&
            rc != MMTB_ERR_UNSUPPORTED && g->table_rc == MMTB_OK) {
            g->table_rc = rc; /* exit 2; named on standard error once per game */
            const char *where = mmtb_ctx_error(a->ctx); /* file and block */
            cli_error(a->cmd, "line %d, ply %d: %s%s%s", g->line, ply, mmtb_strerror(rc),
                      where[0] ? ": " : "", where);
        }
        tally_ply(g, &j, ply);
        print_ply(a, ply, &g->p, mb, &j, ply == 1);
        struct mmtb_pos q;
        mmtb_pos_apply(v, &g->p, &m, &q);
        g->p = q;
    }
}

/* The last position reached: its value says what perfect play gives, to
 * compare with the recorded result. */
static void judge_final(struct annotate *a, struct game *g)
{
    g->frc = mmtb_probe(a->ctx, &g->p, &g->fin);
    g->predicted = g->frc == MMTB_OK ? cli_result_of(g->p.side, &g->fin) : NULL;
    g->agrees = -1;
    if (g->predicted && g->result[0] && strcmp(g->result, "*") != 0)
        g->agrees = strcmp(g->result, g->predicted) == 0;
    g->t.disagree = g->agrees == 0;
}

/* The end of the game's JSON object: the illegal move, the summary and the
 * final position. */
static void print_game_end_json(const struct game *g, const char *final_pos)
{
    const struct tally *t = &g->t;
    printf("],\"illegal\":");
    if (g->illegal[0]) {
        printf("{\"ply\":%d,\"move\":", g->illegal_ply);
        cli_json_str(stdout, g->illegal_move);
        printf(",\"message\":");
        cli_json_str(stdout, g->illegal);
        printf("}");
    } else {
        printf("null");
    }
    printf(",\"summary\":{\"plies\":%ld,\"judged\":%ld,\"best\":%ld,\"keeps\":%ld,"
           "\"errors\":%ld,\"unknown\":%ld,\"errors_by_side\":{\"white\":%ld,\"black\":%ld},"
           "\"first_error_ply\":",
           t->plies, t->judged, t->best, t->keeps, t->errors, t->unknown, t->err_side[0],
           t->err_side[1]);
    if (g->first_error)
        printf("%d", g->first_error);
    else
        printf("null");
    printf(",\"final\":{\"position\":");
    cli_json_str(stdout, final_pos);
    printf(",\"side\":\"%s\",", cli_colour_name(g->p.side, false));
    if (g->frc != MMTB_OK)
        printf("\"wdl\":null,\"dtw\":null");
    else if (g->fin.wdl == MMTB_DRAW)
        printf("\"wdl\":\"draw\",\"dtw\":null");
    else
        printf("\"wdl\":\"%s\",\"dtw\":%d", cli_wdl_name(g->fin.wdl), g->fin.dtw);
    printf("},\"predicted_result\":");
    if (g->predicted)
        printf("\"%s\"", g->predicted);
    else
        printf("null");
    printf(",\"result_agrees\":%s}}\n", g->agrees < 0 ? "null" : g->agrees ? "true" : "false");
}

/* The game's summary lines of the text table. */
static void print_game_end_text(const struct game *g, const char *final_pos)
{
    const struct tally *t = &g->t;
    if (g->illegal[0])
        printf("  ILLEGAL %s\n", g->illegal);
    printf("  %ld plies: %ld best, %ld keeps, %ld errors (white %ld, black %ld), %ld unknown",
           t->plies, t->best, t->keeps, t->errors, t->err_side[0], t->err_side[1], t->unknown);
    if (g->first_error)
        printf("; first error at ply %d", g->first_error);
    printf("\n  final position %s: ", final_pos);
    if (g->frc == MMTB_OK) {
        char vb[48];
        value_cell(&g->fin, vb, sizeof vb);
        printf("%s to move, %s: perfect play gives %s", cli_colour_name(g->p.side, false), vb,
               g->predicted);
        if (g->agrees == 1)
            printf("; recorded %s agrees", g->result);
        else if (g->agrees == 0)
            printf("; recorded %s DISAGREES", g->result);
    } else {
        printf("not in the tables (%s)", mmtb_strerror(g->frc));
    }
    printf("\n");
}

/*
 * Annotate one game line: its tokens are turns from the game's start.
 * Prints the game (text or one JSON object) and adds to the file's totals.
 */
static void annotate_game(struct annotate *a, char *text, int line)
{
    struct game g;
    game_begin(a, &g, line);
    strip_comments(text);
    char **tok = NULL;
    int ntok = tokenize(text, &tok);
    if (ntok < 0) {
        cli_error(a->cmd, "out of memory");
        a->exit_code = worse(a->exit_code, CLI_EXIT_TABLE);
        return;
    }
    if (ntok > 0 && is_result(tok[ntok - 1]))
        snprintf(g.result, sizeof g.result, "%s", tok[--ntok]);
    if (g.illegal[0])
        ntok = 0; /* a bad start position: no move is read */
    print_game_head(a, &g);
    judge_plies(a, &g, tok, ntok);
    free(tok);

    judge_final(a, &g);
    if (g.illegal[0]) {
        g.t.illegal = 1;
        cli_error(a->cmd, "%s", g.illegal);
        a->exit_code = worse(a->exit_code, CLI_EXIT_INPUT);
    }
    if (g.table_rc != MMTB_OK)
        a->exit_code = worse(a->exit_code, CLI_EXIT_TABLE);
    char sb[160];
    mmtb_pos_format(a->v, &g.p, sb, sizeof sb);
    if (a->json)
        print_game_end_json(&g, sb);
    else
        print_game_end_text(&g, sb);
    if (g.frc != MMTB_OK && g.frc != MMTB_ERR_MISSING && g.frc != MMTB_ERR_NOT_IN_GAME &&
        g.frc != MMTB_ERR_UNSUPPORTED) {
        if (g.table_rc == MMTB_OK)
            cli_error(a->cmd, "line %d: the last position: %s", line, mmtb_strerror(g.frc));
        a->exit_code = worse(a->exit_code, CLI_EXIT_TABLE);
    }
    add_tally(&a->file, &g.t);
}

/* A header line "[Tag "value"]": FEN and Result are used, others ignored. */
static void header_line(struct annotate *a, char *s, int line)
{
    char tag[32];
    int n = 0;
    s++;
    while (isalnum((unsigned char)s[n]) || s[n] == '_')
        n++;
    snprintf(tag, sizeof tag, "%.*s", n < 31 ? n : 31, s);
    char *q1 = strchr(s, '"'), *q2 = q1 ? strrchr(q1 + 1, '"') : NULL;
    if (!a->next_line)
        a->next_line = line;
    if (!q1 || !q2 || !strchr(q2, ']')) {
        if (!strcmp(tag, "FEN") || !strcmp(tag, "Result"))
            snprintf(a->next_start_err, sizeof a->next_start_err,
                     "bad header: expected [%s \"...\"]", tag);
        return;
    }
    *q2 = '\0';
    const char *val = q1 + 1;
    if (!strcmp(tag, "FEN")) {
        char err[160] = "";
        if (mmtb_pos_parse(a->v, val, &a->next_start, err, sizeof err) != MMTB_OK)
            snprintf(a->next_start_err, sizeof a->next_start_err, "bad start position '%.*s%s': %s",
                     CLI_QUOTE(val), err);
        else
            a->have_next_start = true;
    } else if (!strcmp(tag, "Result")) {
        if (is_result(val))
            snprintf(a->next_result, sizeof a->next_result, "%s", val);
        else
            snprintf(a->next_start_err, sizeof a->next_start_err,
                     "bad [Result \"%.20s\"]: expected 1-0, 0-1, 1/2-1/2 or *", val);
    }
}

/* Annotate every game of one input stream. */
static void annotate_stream(struct annotate *a, FILE *f)
{
    char *line = NULL;
    size_t cap = 0;
    int lineno = 0;
    while (getline(&line, &cap, f) >= 0) {
        lineno++;
        char *s = line;
        while (isspace((unsigned char)*s))
            s++;
        if (*s == '\0' || *s == '#')
            continue;
        if (*s == '[') {
            header_line(a, s, lineno);
            continue;
        }
        annotate_game(a, s, lineno);
    }
    free(line);
}

int cli_cmd_annotate(int argc, char **argv)
{
    enum { O_TABLES = 1, O_JSON, O_SUMMARY, O_START, O_HELP };
    static const struct cli_opt opts[] = {{"tables", 't', true, O_TABLES},
                                          {"json", 'j', false, O_JSON},
                                          {"summary", 's', false, O_SUMMARY},
                                          {"start", 0, true, O_START},
                                          {"help", 'h', false, O_HELP},
                                          {NULL, 0, false, 0}};
    struct cli_parser ps;
    struct annotate a;
    memset(&a, 0, sizeof a);
    const char *arg, *start = NULL;
    int id, nfiles = 0;
    char **files = calloc((size_t)argc + 1, sizeof *files);
    if (!files)
        return CLI_EXIT_TABLE;
    cli_parser_init(&ps, argc, argv);
    a.cmd = ps.cmd;
    while ((id = cli_next(&ps, opts, &arg)) != CLI_END) {
        switch (id) {
        case CLI_BAD:
            free(files);
            return CLI_EXIT_INPUT;
        case O_TABLES:
            a.dir = arg;
            break;
        case O_JSON:
            a.json = true;
            break;
        case O_SUMMARY:
            a.summary_only = true;
            break;
        case O_START:
            start = arg;
            break;
        case O_HELP:
            fputs(annotate_help, stdout);
            free(files);
            return CLI_EXIT_OK;
        default:
            files[nfiles++] = (char *)arg;
        }
    }
    if (!a.dir) {
        free(files);
        return cli_usage_error(ps.cmd, "missing -t DIR (the table directory)");
    }
    if (!cli_open_tables(ps.cmd, a.dir, &a.tb, &a.ctx)) {
        free(files);
        return CLI_EXIT_TABLE;
    }
    a.v = mmtb_tb_variant(a.tb);
    mmtb_pos_start(a.v, &a.start);
    if (start) {
        char err[200] = "";
        if (mmtb_pos_parse(a.v, start, &a.start, err, sizeof err) != MMTB_OK) {
            a.exit_code = cli_usage_error(ps.cmd, "bad --start '%.*s%s': %s", CLI_QUOTE(start), err);
            goto out;
        }
    }
    a.scratch = malloc(sizeof *a.scratch * MMTB_MAX_MOVES);
    if (!a.scratch) {
        cli_error(ps.cmd, "out of memory");
        a.exit_code = CLI_EXIT_TABLE;
        goto out;
    }
    if (a.json) {
        printf("{\"tables\":");
        cli_json_str(stdout, a.dir);
        printf(",\"variant\":");
        cli_json_str(stdout, a.v->name);
        printf(",\"games\":[\n");
    }
    if (nfiles == 0)
        files[nfiles++] = "-";
    for (int i = 0; i < nfiles; i++) {
        FILE *f = strcmp(files[i], "-") == 0 ? stdin : fopen(files[i], "r");
        if (!f) {
            cli_error(ps.cmd, "cannot read '%s': %s", files[i], strerror(errno));
            a.exit_code = worse(a.exit_code, CLI_EXIT_INPUT);
            continue;
        }
        annotate_stream(&a, f);
        if (f != stdin)
            fclose(f);
    }
    const struct tally *t = &a.file;
    if (a.json) {
        printf("],\"summary\":{\"games\":%ld,\"plies\":%ld,\"judged\":%ld,\"best\":%ld,"
               "\"keeps\":%ld,\"errors\":%ld,\"unknown\":%ld,\"illegal_games\":%ld,"
               "\"result_disagreements\":%ld,\"errors_by_side\":{\"white\":%ld,\"black\":%ld}}}\n",
               t->games, t->plies, t->judged, t->best, t->keeps, t->errors, t->unknown,
               t->illegal, t->disagree, t->err_side[0], t->err_side[1]);
    } else {
        printf("%ssummary: %ld game%s, %ld plies: %ld best, %ld keeps, %ld errors (white %ld, "
               "black %ld), %ld unknown; %ld game%s with an illegal move; %ld recorded "
               "result%s disagree%s with perfect play\n",
               t->games ? "\n" : "", t->games, t->games == 1 ? "" : "s", t->plies, t->best,
               t->keeps, t->errors, t->err_side[0], t->err_side[1], t->unknown, t->illegal,
               t->illegal == 1 ? "" : "s", t->disagree, t->disagree == 1 ? "" : "s",
               t->disagree == 1 ? "s" : "");
    }
out:
    free(a.scratch);
    free(files);
    mmtb_ctx_free(a.ctx);
    mmtb_tb_close(a.tb);
    return a.exit_code;
}
