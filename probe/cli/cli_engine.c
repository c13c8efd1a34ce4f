/*
 * cli_engine.c - `mmtb-probe engine`: perfect play from the tables behind a
 * line protocol in the style of the UCI-like protocol Mill engines and GUIs
 * speak (Sanmill's): uci / isready / ucinewgame / setoption / position /
 * go / stop / quit, moves as Sanmill's actions (a removal is its own action,
 * "xb4").  Reads stdin, answers on stdout; never exits on bad input.  The
 * differences from Sanmill's engine are listed in docs/CLI.md.
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "mmtb.h"
#include "movegen.h"
#include "notation.h"
#include "probe_cli.h"
#include "sector_index.h"

#ifndef MMTB_VERSION
#define MMTB_VERSION "0.1.0"
#endif

static const char engine_help[] =
    "Usage: mmtb-probe engine -t DIR\n"
    "\n"
    "Perfect play from the tables in DIR behind a UCI-like line protocol on\n"
    "standard input and output, as Mill GUIs and match runners speak it:\n"
    "\n"
    "  uci                  -> id name ..., the options, uciok\n"
    "  isready              -> readyok\n"
    "  ucinewgame           back to the variant's start\n"
    "  position startpos [moves M...]\n"
    "  position fen POSITION [moves M...]   (Sanmill FEN or the simple form)\n"
    "  go [anything]        -> info lines, then bestmove MOVE\n"
    "  setoption name NAME value VALUE\n"
    "  d                    show the position (simple form and FEN)\n"
    "  stop                 (answers come at once: nothing to stop)\n"
    "  quit\n"
    "\n"
    "Moves are Sanmill's actions: d6 (place), d6-d5 (slide or fly), xb4 (the\n"
    "removal after a mill, asked for with a second go); a whole turn d6-d5xb4\n"
    "is accepted in move lists too.  bestmove keeps the position's value at\n"
    "the best depth.  Options: Random (false: the first of the best moves;\n"
    "true: one of them at random), Seed (the random seed, default 1),\n"
    "WholeTurn (true: answer d6-d5xb4 instead of d6-d5 then xb4),\n"
    "FallbackLegal (true: outside the tables, answer a legal move that is\n"
    "not perfect play, said so in an info string; false: bestmove (none)).\n"
    "Errors are reported as 'info string error: ...'; the engine goes on.\n"
    "\n"
    "Options:\n"
    "  -t, --tables DIR   table directory (required)\n"
    "  -h, --help         show this help\n"
    "\n"
    "Exit codes: 0 after quit or end of input; 1 bad usage; 2 the tables\n"
    "cannot be opened.\n";

struct engine {
    const char *dir;
    mmtb_tb *tb;
    mmtb_ctx *ctx;
    const struct mmtb_variant *v;
    struct mmtb_pos pos;
    bool valid;       /* pos is a position the last `position` command set up */
    char why[240];    /* why not valid */
    bool random, whole, fallback;
    uint64_t seed, rng;
    struct mmtb_move_value *mv;
    struct mmtb_move *legal;
};

/* xorshift64*: the engine's reproducible random numbers. */
static uint64_t rnd(struct engine *e)
{
    e->rng ^= e->rng >> 12;
    e->rng ^= e->rng << 25;
    e->rng ^= e->rng >> 27;
    return e->rng * 2685821657736338717ull;
}

static void reseed(struct engine *e)
{
    e->rng = e->seed * 0x9e3779b97f4a7c15ull + 0x632be59bd9b4e019ull;
    if (!e->rng)
        e->rng = 1;
}

/* Say something the GUI shows but does not parse. */
static void info_string(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void info_string(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    printf("info string ");
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
}

/* "position startpos|fen POSITION [moves ...]" */
static void cmd_position(struct engine *e, char *args)
{
    /* the move list follows the word "moves" */
    char *moves = strstr(args, " moves"), *end_moves = NULL;
    while (moves && moves[6] != '\0' && !isspace((unsigned char)moves[6]))
        moves = strstr(moves + 1, " moves");
    if (moves) {
        *moves = '\0';
        end_moves = moves + 6;
    }
    while (isspace((unsigned char)*args))
        args++;
    e->valid = false;
    char err[200] = "";
    if (strncmp(args, "startpos", 8) == 0 && (args[8] == '\0' || isspace((unsigned char)args[8]))) {
        mmtb_pos_start(e->v, &e->pos);
    } else if (strncmp(args, "fen ", 4) == 0) {
        if (mmtb_pos_parse(e->v, args + 4, &e->pos, err, sizeof err) != MMTB_OK) {
            snprintf(e->why, sizeof e->why, "bad position: %s", err);
            info_string("error: %s", e->why);
            return;
        }
    } else {
        snprintf(e->why, sizeof e->why, "expected 'position startpos' or 'position fen ...'");
        info_string("error: %s", e->why);
        return;
    }
    if (end_moves) {
        int k = 0;
        for (char *save, *t = strtok_r(end_moves, " \t", &save); t;
             t = strtok_r(NULL, " \t", &save)) {
            k++;
            if (cli_apply_action(e->v, &e->pos, t, err, sizeof err) != MMTB_OK) {
                snprintf(e->why, sizeof e->why, "move %d: %s", k, err);
                info_string("error: %s", e->why);
                return;
            }
        }
    }
    e->valid = true;
}

/* The action of move m to announce: the whole turn, or only its first
 * half when the removal is announced on its own. */
static void action_text(const struct engine *e, const struct mmtb_move *m, char *buf, size_t len)
{
    struct mmtb_move a = *m;
    if (!e->whole && e->pos.remove == 0 && a.to >= 0)
        a.remove = -1;
    mmtb_move_format(e->v, &a, buf, len);
}

/* "info ..." lines for the value, then "bestmove". */
static void cmd_go(struct engine *e)
{
    char mb[64];
    if (!e->valid) {
        info_string("error: no valid position (%s)", e->why[0] ? e->why : "none set");
        printf("bestmove (none)\n");
        return;
    }
    int t = mmtb_pos_terminal(e->v, &e->pos);
    if (t != MMTB_NOT_TERMINAL) {
        info_string("the game is over: %s", t == MMTB_LOSS ? "the side to move has lost" : "drawn");
        printf("bestmove (none)\n");
        return;
    }
    int n = mmtb_probe_moves(e->ctx, &e->pos, e->mv, MMTB_MAX_MOVES);
    if (n < 0) {
        char why[200];
        struct mmtb_sector s = mmtb_pos_sector(&e->pos);
        char name[32];
        mmtb_sector_format(s, name, sizeof name);
        snprintf(why, sizeof why, "%s (sector %s, tables %s)", mmtb_strerror(n), name, e->dir);
        int k = mmtb_gen_moves(e->v, &e->pos, e->legal);
        if (e->fallback && k > 0) {
            action_text(e, &e->legal[0], mb, sizeof mb);
            info_string("not perfect play: the tables cannot answer: %s; a legal move instead", why);
            printf("bestmove %s\n", mb);
        } else {
            info_string("the tables cannot answer: %s", why);
            printf("bestmove (none)\n");
        }
        return;
    }
    int nbest = 1;
    while (nbest < n && cli_value_equal(&e->mv[nbest].value, &e->mv[0].value))
        nbest++;
    int pick = e->random ? (int)(rnd(e) % (uint64_t)nbest) : 0;
    const struct mmtb_value *val = &e->mv[0].value;
    action_text(e, &e->mv[pick].move, mb, sizeof mb);
    /* standard tokens: a win or loss as a mate score in moves (2 plies a
     * move, rounded up), a draw as 0; wdl in per mille */
    if (val->wdl == MMTB_DRAW)
        printf("info depth 0 score cp 0 wdl 0 1000 0 pv %s\n", mb);
    else
        printf("info depth %d score mate %d wdl %s pv %s\n", val->dtw,
               val->wdl == MMTB_WIN ? (val->dtw + 1) / 2 : -((val->dtw + 1) / 2),
               val->wdl == MMTB_WIN ? "1000 0 0" : "0 0 1000", mb);
    char vb[48];
    cli_format_value(val->wdl, val->dtw, true, vb, sizeof vb);
    info_string("perfect play: %s%s for %s, %d best move%s of %d", vb,
                val->wdl == MMTB_DRAW ? "" : " plies", cli_colour_name(e->pos.side, false), nbest,
                nbest == 1 ? "" : "s", n);
    printf("bestmove %s\n", mb);
}

/* Parse "true"/"false". */
static bool parse_bool(const char *s, bool *out)
{
    if (!strcasecmp(s, "true") || !strcmp(s, "1")) {
        *out = true;
        return true;
    }
    if (!strcasecmp(s, "false") || !strcmp(s, "0")) {
        *out = false;
        return true;
    }
    return false;
}

/* "setoption name NAME [value VALUE]" */
static void cmd_setoption(struct engine *e, char *args)
{
    char *name = strstr(args, "name ");
    if (!name) {
        info_string("error: expected 'setoption name NAME value VALUE'");
        return;
    }
    name += 5;
    char *value = strstr(name, " value ");
    const char *val = "";
    if (value) {
        *value = '\0';
        val = value + 7;
    }
    while (isspace((unsigned char)*name))
        name++;
    for (size_t n = strlen(name); n && isspace((unsigned char)name[n - 1]);)
        name[--n] = '\0';
    bool b;
    long x;
    if (!strcasecmp(name, "Random") || !strcasecmp(name, "WholeTurn") ||
        !strcasecmp(name, "FallbackLegal")) {
        if (!parse_bool(val, &b)) {
            info_string("error: option %s takes true or false, got '%.40s'", name, val);
            return;
        }
        if (!strcasecmp(name, "Random"))
            e->random = b;
        else if (!strcasecmp(name, "WholeTurn"))
            e->whole = b;
        else
            e->fallback = b;
    } else if (!strcasecmp(name, "Seed")) {
        if (!cli_parse_long(val, 0, 0x7fffffffL, &x)) {
            info_string("error: option Seed takes 0..2147483647, got '%.40s'", val);
            return;
        }
        e->seed = (uint64_t)x;
        reseed(e);
    } else {
        info_string("error: no such option: %.60s", name);
    }
}

/* Answer one command line; false after quit. */
static bool engine_line(struct engine *e, char *line)
{
    while (isspace((unsigned char)*line))
        line++;
    for (size_t n = strlen(line); n && isspace((unsigned char)line[n - 1]);)
        line[--n] = '\0';
    char *args = line;
    while (*args && !isspace((unsigned char)*args))
        args++;
    if (*args)
        *args++ = '\0';
    if (!*line)
        return true;
    if (!strcmp(line, "quit"))
        return false;
    if (!strcmp(line, "uci")) {
        printf("id name mmtb-probe %s (perfect play: %s)\n", MMTB_VERSION, e->v->name);
        printf("id author the mmtb developers\n");
        printf("option name Random type check default false\n");
        printf("option name Seed type spin default 1 min 0 max 2147483647\n");
        printf("option name WholeTurn type check default false\n");
        printf("option name FallbackLegal type check default false\n");
        printf("uciok\n");
    } else if (!strcmp(line, "isready")) {
        printf("readyok\n");
    } else if (!strcmp(line, "ucinewgame")) {
        mmtb_pos_start(e->v, &e->pos);
        e->valid = true;
        reseed(e);
    } else if (!strcmp(line, "position")) {
        cmd_position(e, args);
    } else if (!strcmp(line, "go")) {
        cmd_go(e);
    } else if (!strcmp(line, "setoption")) {
        cmd_setoption(e, args);
    } else if (!strcmp(line, "stop") || !strcmp(line, "ponderhit")) {
        /* every answer is given at once: nothing is running */
    } else if (!strcmp(line, "d")) {
        char s[160], f[160];
        mmtb_pos_format(e->v, &e->pos, s, sizeof s);
        if (mmtb_pos_format_fen(e->v, &e->pos, f, sizeof f) < 0)
            snprintf(f, sizeof f, "-");
        info_string("position %s%s; fen %s", s, e->valid ? "" : " (not valid)", f);
    } else {
        info_string("error: unknown command: %.80s", line);
    }
    fflush(stdout);
    return true;
}

int cli_cmd_engine(int argc, char **argv)
{
    enum { O_TABLES = 1, O_HELP };
    static const struct cli_opt opts[] = {{"tables", 't', true, O_TABLES},
                                          {"help", 'h', false, O_HELP},
                                          {NULL, 0, false, 0}};
    struct cli_parser ps;
    struct engine e;
    memset(&e, 0, sizeof e);
    const char *arg;
    int id;
    cli_parser_init(&ps, argc, argv);
    while ((id = cli_next(&ps, opts, &arg)) != CLI_END) {
        switch (id) {
        case CLI_BAD:
            return CLI_EXIT_INPUT;
        case O_TABLES:
            e.dir = arg;
            break;
        case O_HELP:
            fputs(engine_help, stdout);
            return CLI_EXIT_OK;
        default:
            return cli_usage_error(ps.cmd, "unexpected argument '%s'", arg);
        }
    }
    if (!e.dir)
        return cli_usage_error(ps.cmd, "missing -t DIR (the table directory)");
    if (!cli_open_tables(ps.cmd, e.dir, &e.tb, &e.ctx))
        return CLI_EXIT_TABLE;
    e.v = mmtb_tb_variant(e.tb);
    e.mv = malloc(sizeof *e.mv * MMTB_MAX_MOVES);
    e.legal = malloc(sizeof *e.legal * MMTB_MAX_MOVES);
    int ret = CLI_EXIT_OK;
    if (!e.mv || !e.legal) {
        cli_error(ps.cmd, "out of memory");
        ret = CLI_EXIT_TABLE;
    } else {
        e.seed = 1;
        reseed(&e);
        mmtb_pos_start(e.v, &e.pos);
        e.valid = true;
        char *line = NULL;
        size_t cap = 0;
        while (getline(&line, &cap, stdin) >= 0 && engine_line(&e, line))
            ;
        free(line);
    }
    free(e.legal);
    free(e.mv);
    mmtb_ctx_free(e.ctx);
    mmtb_tb_close(e.tb);
    return ret;
}
