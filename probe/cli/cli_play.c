/*
 * cli_play.c - the `play` subcommand: a game in the terminal between a
 * human, who types moves in standard notation, and perfect play from the
 * tables (the first move of mmtb_probe_moves).  Reads lines until EOF, so a
 * game can be piped in.  Depends on mmtb.h and format/.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mmtb.h"
#include "movegen.h"
#include "notation.h"
#include "probe_cli.h"

static const char play_help[] =
    "Usage: mmtb-probe play -t DIR [--human white|black|none] [--start POSITION]\n"
    "\n"
    "Play against perfect play from the solved tables in DIR.  The board is\n"
    "shown before every move with the value of the position (e.g. 'White wins\n"
    "in 17 plies': plies to the end of the game with best play,\n"
    "the depth to win).  Type moves in standard notation: d6 (place), d6-d5 (slide or\n"
    "fly), d6xb4 or d6-d5xb4 (closing a mill and removing b4), xb4 (a\n"
    "pending removal).  Other input:\n"
    "  moves  list the legal moves      hint  show the value of every move\n"
    "  undo   take back your last move  help  this list\n"
    "  quit   end the game\n"
    "Standard input need not be a terminal: lines are read until end of file.\n"
    "A position that repeats is a draw.\n"
    "\n"
    "Options:\n"
    "  -t, --tables DIR          table directory (required)\n"
    "  -H, --human COLOUR        the side you play: white (default), black, or\n"
    "                            none (the program plays both sides)\n"
    "  -s, --start POSITION      start from POSITION (simple form or FEN, one\n"
    "                            argument) instead of the variant's start\n"
    "  -h, --help                show this help\n"
    "\n"
    "Exit codes: 0 game over, quit or end of input; 1 bad usage or start\n"
    "position; 2 a table is missing or corrupt.\n";

static const char play_commands[] =
    "Moves: d6 (place), d6-d5 (slide or fly), d6xb4 / d6-d5xb4 (close a mill,\n"
    "remove b4), xb4 (pending removal).  Commands: moves (legal moves), hint\n"
    "(every move with its value), undo, help, quit.\n";

/* The game so far: every position, the first being the start. */
struct game {
    struct mmtb_pos *pos;
    int n, cap;
};

static bool game_push(struct game *g, const struct mmtb_pos *p)
{
    if (g->n == g->cap) {
        int cap = g->cap ? 2 * g->cap : 64;
        struct mmtb_pos *q = realloc(g->pos, sizeof *q * (size_t)cap);
        if (!q)
            return false;
        g->pos = q;
        g->cap = cap;
    }
    g->pos[g->n++] = *p;
    return true;
}

static bool pos_equal(const struct mmtb_pos *a, const struct mmtb_pos *b)
{
    return a->stones[0] == b->stones[0] && a->stones[1] == b->stones[1] &&
           a->hand[0] == b->hand[0] && a->hand[1] == b->hand[1] && a->side == b->side &&
           a->remove == b->remove && a->ban_from == b->ban_from && a->ban_to == b->ban_to;
}

static bool move_equal(const struct mmtb_move *a, const struct mmtb_move *b)
{
    return a->from == b->from && a->to == b->to && a->remove == b->remove;
}

/* "White wins in 17 plies" / "Draw with best play", from the winner's view. */
static void print_value(const struct mmtb_pos *p, const struct mmtb_value *val)
{
    if (val->wdl == MMTB_DRAW) {
        printf("Value: draw with best play\n");
        return;
    }
    int winner = val->wdl == MMTB_WIN ? p->side : p->side ^ 1;
    printf("Value: %s wins in %d pl%s\n", cli_colour_name(winner, true), val->dtw,
           val->dtw == 1 ? "y" : "ies");
}

static void list_moves(const struct mmtb_variant *v, const struct mmtb_move_value *mv, int n,
                       bool values)
{
    char mb[64], vb[64];
    for (int i = 0; i < n; i++) {
        mmtb_move_format(v, &mv[i].move, mb, sizeof mb);
        if (values) {
            cli_format_value(mv[i].value.wdl, mv[i].value.dtw, true, vb, sizeof vb);
            printf("  %-12s %s\n", mb, vb);
        } else {
            printf("%s%s", i ? " " : "", mb);
        }
    }
    if (!values)
        printf("\n");
}

/*
 * Match the human's token against the legal moves.  A mill-closing move
 * typed without its removal is rejected with the choices; returns the index
 * of the move, or -1 after printing why not.
 */
static int match_move(const struct mmtb_variant *v, const char *text,
                      const struct mmtb_move_value *mv, int n)
{
    struct mmtb_move m;
    char err[256] = "", mb[64];
    if (mmtb_move_parse(v, text, &m, err, sizeof err) != MMTB_OK) {
        if (err[0])
            printf("%s.  Type 'help' for the notation.\n", err);
        else
            printf("Cannot read '%s'.  Type 'help' for the notation.\n", text);
        return -1;
    }
    for (int i = 0; i < n; i++)
        if (move_equal(&m, &mv[i].move))
            return i;
    int k = 0;
    for (int i = 0; i < n; i++)
        if (mv[i].move.from == m.from && mv[i].move.to == m.to && m.remove < 0 &&
            mv[i].move.remove >= 0) {
            if (k++ == 0)
                printf("'%s' closes a mill: say which stone to remove:", text);
            mmtb_move_format(v, &mv[i].move, mb, sizeof mb);
            printf(" %s", mb);
        }
    if (k) {
        printf("\n");
        return -1;
    }
    printf("Illegal move '%s'.  Type 'moves' for the legal moves.\n", text);
    return -1;
}

/* Read one line from stdin into buf (without the newline); false at EOF.
 * When stdin is not a terminal the line is echoed, so a piped game reads
 * like a transcript. */
static bool read_line(char **line, size_t *cap, bool echo)
{
    ssize_t n = getline(line, cap, stdin);
    if (n < 0)
        return false;
    while (n > 0 && ((*line)[n - 1] == '\n' || (*line)[n - 1] == '\r'))
        (*line)[--n] = '\0';
    if (echo)
        printf("%s\n", *line);
    return true;
}

static char *trim(char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    size_t n = strlen(s);
    while (n && isspace((unsigned char)s[n - 1]))
        s[--n] = '\0';
    for (char *c = s; *c; c++)
        *c = (char)tolower((unsigned char)*c);
    return s;
}

/* The options of `play`. */
struct play_opts {
    const char *dir, *start;
    int human; /* colour, or -1 for none */
};

/* Returned by parse_play_opts when the game is to be played. */
#define PLAY_GO (-1)

/* Read the options into *o: PLAY_GO, or the exit code (after --help or a
 * usage error). */
static int parse_play_opts(int argc, char **argv, struct play_opts *o, const char **cmd)
{
    enum { O_TABLES = 1, O_HUMAN, O_START, O_HELP };
    static const struct cli_opt opts[] = {{"tables", 't', true, O_TABLES},
                                          {"human", 'H', true, O_HUMAN},
                                          {"start", 's', true, O_START},
                                          {"help", 'h', false, O_HELP},
                                          {NULL, 0, false, 0}};
    struct cli_parser ps;
    const char *arg;
    int id;
    o->dir = o->start = NULL;
    o->human = MMTB_WHITE;
    cli_parser_init(&ps, argc, argv);
    *cmd = ps.cmd;
    while ((id = cli_next(&ps, opts, &arg)) != CLI_END) {
        switch (id) {
        case CLI_BAD:
            return CLI_EXIT_INPUT;
        case O_TABLES:
            o->dir = arg;
            break;
        case O_HUMAN:
            if (strcmp(arg, "white") == 0 || strcmp(arg, "w") == 0)
                o->human = MMTB_WHITE;
            else if (strcmp(arg, "black") == 0 || strcmp(arg, "b") == 0)
                o->human = MMTB_BLACK;
            else if (strcmp(arg, "none") == 0)
                o->human = -1;
            else
                return cli_usage_error(ps.cmd, "bad --human '%s' (white, black or none)", arg);
            break;
        case O_START:
            o->start = arg;
            break;
        case O_HELP:
            fputs(play_help, stdout);
            return CLI_EXIT_OK;
        default:
            return cli_usage_error(ps.cmd, "unexpected argument '%s' (quote --start POSITION)",
                                   arg);
        }
    }
    if (!o->dir)
        return cli_usage_error(ps.cmd, "missing -t DIR (the table directory)");
    return PLAY_GO;
}

/* A game being played: the tables, the sides, the positions so far and
 * the input. */
struct play {
    const char *cmd;
    const struct mmtb_variant *v;
    mmtb_ctx *ctx;
    int human;
    struct mmtb_pos p;          /* the position now */
    struct game g;              /* every position before it (and it, once pushed) */
    struct mmtb_move_value *mv; /* p's moves with their values, best first */
    char *line;
    size_t lcap;
    bool echo; /* stdin is not a terminal: echo what is read */
};

/* Is the game over in pl->p, by the rules or by a repeated position?
 * Says so when it is. */
static bool game_over(const struct play *pl)
{
    const struct mmtb_pos *p = &pl->p;
    int term = mmtb_pos_terminal(pl->v, p);
    if (term != MMTB_NOT_TERMINAL) {
        if (term == MMTB_LOSS)
            printf("\nGame over: %s wins.\n", cli_colour_name(p->side ^ 1, true));
        else
            printf("\nGame over: draw.\n");
        return true;
    }
    bool repeated = false;
    for (int i = 0; i + 1 < pl->g.n; i++)
        repeated |= pos_equal(&pl->g.pos[i], p);
    if (repeated) {
        printf("\nGame over: the position repeats, a draw.\n");
        return true;
    }
    return false;
}

/* Back to the last position before this one with the human to move;
 * false (and a message) when there is none. */
static bool take_back(struct play *pl)
{
    int k = pl->g.n - 2;
    while (k >= 0 && pl->g.pos[k].side != pl->human)
        k--;
    if (k < 0) {
        printf("Nothing to undo.\n");
        return false;
    }
    pl->p = pl->g.pos[k];
    pl->g.n = k; /* the game loop pushes p again */
    return true;
}

/* How the human's turn ended. */
enum turn { TURN_MOVED, TURN_UNDONE, TURN_QUIT };

/* The human's turn in pl->p (n legal moves in pl->mv): read lines until a
 * legal move, an undo, quit or the end of the input. */
static enum turn human_turn(struct play *pl, int n)
{
    const struct mmtb_variant *v = pl->v;
    for (;;) {
        printf("%s to move> ", cli_colour_name(pl->p.side, true));
        fflush(stdout);
        if (!read_line(&pl->line, &pl->lcap, pl->echo)) {
            printf("\nEnd of input.\n");
            return TURN_QUIT;
        }
        char *s = trim(pl->line);
        if (*s == '\0')
            continue;
        if (strcmp(s, "quit") == 0 || strcmp(s, "q") == 0 || strcmp(s, "exit") == 0) {
            return TURN_QUIT;
        } else if (strcmp(s, "help") == 0 || strcmp(s, "?") == 0) {
            fputs(play_commands, stdout);
        } else if (strcmp(s, "moves") == 0) {
            list_moves(v, pl->mv, n, false);
        } else if (strcmp(s, "hint") == 0) {
            list_moves(v, pl->mv, n, true);
        } else if (strcmp(s, "undo") == 0) {
            if (take_back(pl))
                return TURN_UNDONE;
        } else {
            int chosen = match_move(v, s, pl->mv, n);
            if (chosen >= 0) {
                struct mmtb_pos q;
                mmtb_pos_apply(v, &pl->p, &pl->mv[chosen].move, &q);
                pl->p = q;
                return TURN_MOVED;
            }
        }
    }
}

/* The game from pl->p on: each position drawn with its value, then a move
 * by perfect play or by the human, until the game is over or the human
 * quits.  Returns the exit code. */
static int play_game(struct play *pl)
{
    const struct mmtb_variant *v = pl->v;
    for (;;) {
        if (!game_push(&pl->g, &pl->p)) {
            cli_error(pl->cmd, "out of memory");
            return CLI_EXIT_TABLE;
        }
        printf("\n");
        cli_draw_position(stdout, v, &pl->p);
        if (game_over(pl))
            return CLI_EXIT_OK;
        struct mmtb_value val;
        int rc = mmtb_probe(pl->ctx, &pl->p, &val);
        int n = rc == MMTB_OK ? mmtb_probe_moves(pl->ctx, &pl->p, pl->mv, MMTB_MAX_MOVES) : rc;
        if (n < 0) {
            cli_error(pl->cmd, "cannot probe this position: %s", mmtb_strerror(n));
            return cli_table_exit(n);
        }
        if (n > MMTB_MAX_MOVES)
            n = MMTB_MAX_MOVES;
        print_value(&pl->p, &val);
        if (n == 0) { /* cannot happen in a position that is not terminal */
            printf("No legal move.\n");
            return CLI_EXIT_OK;
        }
        if (pl->p.side != pl->human) {
            char mb[64];
            mmtb_move_format(v, &pl->mv[0].move, mb, sizeof mb);
            printf("%s plays %s\n", cli_colour_name(pl->p.side, true), mb);
            struct mmtb_pos q;
            mmtb_pos_apply(v, &pl->p, &pl->mv[0].move, &q);
            pl->p = q;
            fflush(stdout);
            continue;
        }
        if (human_turn(pl, n) == TURN_QUIT)
            return CLI_EXIT_OK;
    }
}

int cli_cmd_play(int argc, char **argv)
{
    struct play_opts o;
    const char *cmd;
    int ret = parse_play_opts(argc, argv, &o, &cmd);
    if (ret != PLAY_GO)
        return ret;
    mmtb_tb *tb;
    mmtb_ctx *ctx;
    if (!cli_open_tables(cmd, o.dir, &tb, &ctx))
        return CLI_EXIT_TABLE;
    struct play pl = {.cmd = cmd,
                      .v = mmtb_tb_variant(tb),
                      .ctx = ctx,
                      .human = o.human,
                      .echo = !isatty(STDIN_FILENO)};
    pl.mv = malloc(sizeof *pl.mv * MMTB_MAX_MOVES);
    char err[256] = "";
    if (!pl.mv) {
        cli_error(cmd, "out of memory");
        ret = CLI_EXIT_TABLE;
    } else if (o.start &&
               (ret = mmtb_pos_parse(pl.v, o.start, &pl.p, err, sizeof err)) != MMTB_OK) {
        cli_error(cmd, "bad --start position '%.*s%s': %s", CLI_QUOTE(o.start),
                  err[0] ? err : mmtb_strerror(ret));
        ret = CLI_EXIT_INPUT;
    } else {
        if (!o.start)
            mmtb_pos_start(pl.v, &pl.p);
        printf("%s (%s).  You play %s.  Type 'help' for help.\n", pl.v->title, pl.v->name,
               o.human < 0 ? "no side" : cli_colour_name(o.human, false));
        ret = play_game(&pl);
    }
    free(pl.line);
    free(pl.g.pos);
    free(pl.mv);
    mmtb_ctx_free(ctx);
    mmtb_tb_close(tb);
    return ret;
}
