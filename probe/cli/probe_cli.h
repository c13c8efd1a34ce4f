/*
 * probe_cli.h - internals of the mmtb-probe command: the subcommands, option
 * parsing, JSON output helpers and the board drawing they share.  Private to
 * probe/cli/; depends on format/ and (for the table subcommands) mmtb.h.
 */
#ifndef MMTB_PROBE_CLI_H
#define MMTB_PROBE_CLI_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "mmtb.h"
#include "mmtb_common.h"
#include "variant.h"

#define CLI_PROG "mmtb-probe"

/* Exit codes, part of the stable interface (docs/CLI.md). */
#define CLI_EXIT_OK 0
#define CLI_EXIT_INPUT 1 /* usage error or bad input */
#define CLI_EXIT_TABLE 2 /* a table is missing or corrupt */

/* ---- subcommands: each takes argv[0] = its own name ---- */
int cli_cmd_board(int argc, char **argv);
int cli_cmd_moves(int argc, char **argv);
int cli_cmd_perft(int argc, char **argv);
int cli_cmd_sectors(int argc, char **argv);
int cli_cmd_probe(int argc, char **argv);
int cli_cmd_stats(int argc, char **argv);
int cli_cmd_play(int argc, char **argv);
int cli_cmd_bench(int argc, char **argv);
int cli_cmd_annotate(int argc, char **argv);
int cli_cmd_check(int argc, char **argv);
int cli_cmd_engine(int argc, char **argv);
int cli_cmd_integrity(int argc, char **argv);
int cli_cmd_serve(int argc, char **argv);

/* ---- option parsing ---- */

/* One option: long name (without "--"), short letter (0 for none), whether
 * it takes a value, and the id cli_next returns for it. */
struct cli_opt {
    const char *lname;
    char sname;
    bool has_arg;
    int id;
};

/* What cli_next returns besides an option id (ids must be positive). */
#define CLI_POSITIONAL 0 /* a non-option word; *arg points at it */
#define CLI_END (-1)     /* no more arguments */
#define CLI_BAD (-2)     /* unknown option or missing value (message printed) */

struct cli_parser {
    int argc;
    char **argv;
    int i;         /* next argument to look at */
    bool only_pos; /* after "--": everything is positional */
    const char *cmd;
};

/* Start parsing argv[1..] of subcommand argv[0]. */
void cli_parser_init(struct cli_parser *p, int argc, char **argv);

/*
 * Next option or word.  Accepts "-x VALUE", "-xVALUE", "--long VALUE",
 * "--long=VALUE", flags "-x" / "--long", and "--" to end the options.  An
 * argument is an option only when it starts with "--" or with '-' and a
 * letter: "-" and "- - w 9 9" are words (the simple form uses "-" for "no
 * stones").
 */
int cli_next(struct cli_parser *p, const struct cli_opt *opts, const char **arg);

/* Parse a decimal integer in [lo, hi]; false (nothing printed) if it is not
 * one. */
bool cli_parse_long(const char *s, long lo, long hi, long *out);

/* Parse a byte count "268435456", "256K", "256M", "1G" (powers of 1024;
 * 1 byte .. 1 TiB); false when it is not one. */
bool cli_parse_bytes(const char *s, size_t *out);

/* Print "mmtb-probe CMD: MESSAGE" to stderr. */
void cli_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The usual "see --help" ending for usage errors; returns CLI_EXIT_INPUT. */
int cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Arguments for "%.*s%s": user text quoted in a message, cut at 100
 * characters with "..." so that a huge input gives a readable message. */
#define CLI_QUOTE(s) (int)(strlen(s) > 100 ? 100 : strlen(s)), (s), (strlen(s) > 100 ? "..." : "")

/* Join words with single spaces into a malloc'd string (NULL on no memory). */
char *cli_join(int n, char *const *words);

/* Load a variant by name or path; prints the error and returns false. */
bool cli_load_variant(const char *cmd, const char *name, struct mmtb_variant **v);

/* ---- JSON output ---- */

/* Write s as a JSON string literal, quotes included. */
void cli_json_str(FILE *f, const char *s);

/* ---- text helpers ---- */

/* "White" / "Black" (capitalised) or "white" / "black". */
const char *cli_colour_name(int c, bool capital);

/* "win" / "draw" / "loss" for enum mmtb_wdl. */
const char *cli_wdl_name(int wdl);

/* A point mask as names joined by `sep` ("-" when empty). */
void cli_format_points(const struct mmtb_variant *v, uint32_t mask, const char *sep,
                       char *buf, size_t len);

/* ---- tables (cli_util.c) ---- */

/* Exit code for a libmmtb status: CLI_EXIT_INPUT for a position the rules
 * reject (MMTB_ERR_INVALID, MMTB_ERR_PARSE), CLI_EXIT_TABLE otherwise. */
int cli_table_exit(int status);

/* Open the tables in dir and, when ctx is not NULL, a probe context; on
 * failure print the problem and return false (exit with CLI_EXIT_TABLE). */
bool cli_open_tables(const char *cmd, const char *dir, mmtb_tb **tb, mmtb_ctx **ctx);

/* "win in 17", "loss in 4", "draw" (without " in N" when !with_dtw). */
void cli_format_value(int wdl, int dtw, bool with_dtw, char *buf, size_t len);

/* ---- stats (cli_probe.c) ---- */

/* One sector's statistics as an object of `stats --json` (fields w, b,
 * w_hand, b_hand, canonical, wins, draws, losses, max_win, max_loss). */
void cli_stats_json_row(FILE *f, const struct mmtb_sector_info *info);

/* ---- judging played moves (cli_verdict.c; annotate and check) ---- */

/* Verdicts on a played move, for the side that made it. */
enum cli_verdict {
    CLI_BEST = 0, /* keeps the position's value at its depth */
    CLI_KEEPS,    /* keeps win/draw/loss at another depth */
    CLI_ERROR,    /* makes it worse: win->draw, win->loss or draw->loss */
    CLI_UNKNOWN,  /* the tables cannot tell (status says why) */
};

/* Best moves kept by a judgement (the count goes on past it). */
#define CLI_MAX_BEST 64

struct cli_judgement {
    int status;                /* MMTB_OK, or why the verdict is unknown */
    int verdict;               /* enum cli_verdict */
    struct mmtb_value before;  /* the position's value for the mover */
    struct mmtb_value after;   /* the played move's value for the mover */
    int nbest;                 /* best moves when the played one is not one; else 0 */
    struct mmtb_move best[CLI_MAX_BEST];
    char unknown[160];         /* with CLI_UNKNOWN: "sector 8-9-1-0 not in DIR", ... */
};

/*
 * Read one whole turn from tokens tok[0..ntok): a move token, and a removal
 * written as the next token ("d6-d5 xb4") when the move has none.  *used is
 * the number of tokens taken.  Returns MMTB_OK or MMTB_ERR_PARSE with the
 * reason in err (the move parser's message, which names the token).
 */
int cli_parse_turn(const struct mmtb_variant *v, char *const *tok, int ntok, int *used,
                   struct mmtb_move *m, char *err, size_t len);

/*
 * Apply one action to *p as Sanmill's protocol writes them: a whole turn
 * (d6, d6-d5, d6-d5xb4, xb4 when a removal is pending), or the first half
 * of a mill-closing turn (d6-d5), which leaves the removal pending
 * (p->remove = 1, same side to move).  Returns MMTB_OK, MMTB_ERR_PARSE or
 * MMTB_ERR_INVALID with the reason in why ("d6-d5 is not legal: ...").
 */
int cli_apply_action(const struct mmtb_variant *v, struct mmtb_pos *p, const char *tok, char *why,
                     size_t len);

/* MMTB_OK when m is a legal move of p; otherwise MMTB_ERR_INVALID with the
 * first rule it breaks in why ("d5 is occupied", "the game is over: ..."). */
int cli_match_move(const struct mmtb_variant *v, const struct mmtb_pos *p,
                   const struct mmtb_move *m, char *why, size_t len);

/*
 * Judge the legal move m of p with the tables: the position's and the
 * move's value for the mover, the verdict, and the best moves when m is not
 * one (scratch: room for MMTB_MAX_MOVES).  Returns MMTB_OK, or the probe's
 * status with verdict CLI_UNKNOWN and the sector at fault named in
 * out->unknown (dir is the directory named there).
 */
int cli_judge(const mmtb_tb *tb, mmtb_ctx *ctx, const char *dir, const struct mmtb_pos *p,
              const struct mmtb_move *m, struct mmtb_move_value *scratch,
              struct cli_judgement *out);

/* Equal values: same wdl and, unless a draw, the same dtw. */
bool cli_value_equal(const struct mmtb_value *a, const struct mmtb_value *b);

/* "best", "keeps", "error", "unknown". */
const char *cli_verdict_name(int verdict);

/* "win->draw", "win->loss" or "draw->loss" for an error; NULL otherwise. */
const char *cli_error_kind(const struct cli_judgement *j);

/* "placement" (the mover has stones in hand), "flying" or "movement". */
const char *cli_phase_name(const struct mmtb_variant *v, const struct mmtb_pos *p);

/* The game's result under perfect play from a value of `side` to move:
 * "1-0", "0-1" or "1/2-1/2". */
const char *cli_result_of(int side, const struct mmtb_value *val);

/* {"wdl":"win","dtw":13} / {"wdl":"draw","dtw":null}. */
void cli_json_value(FILE *f, const struct mmtb_value *val);

/* The kept best moves joined by sep, "(+N more)" past CLI_MAX_BEST. */
void cli_format_best(const struct mmtb_variant *v, const struct cli_judgement *j,
                     const char *sep, char *buf, size_t len);

/* ---- board drawing (cli_board.c) ---- */

/*
 * Draw the board as ASCII art: point names (or, with a position, 'O' for
 * White, '@' for Black and '.' for empty points when the board has
 * row/column labels), connected along the variant's lines.
 */
void cli_draw_board(FILE *f, const struct mmtb_variant *v, const struct mmtb_pos *p);

/* Draw a position with a status block: side to move, stones on board and in
 * hand, a pending removal, and the simple form / FEN. */
void cli_draw_position(FILE *f, const struct mmtb_variant *v, const struct mmtb_pos *p);

/* ---- SVG pictures (cli_svg.c) ---- */

/*
 * A standalone SVG document of the board of v: with p NULL, the points
 * with their names; else the stones, the hands and the value val, and with
 * mv (the n moves of mmtb_probe_moves, best first) each move's value
 * marked as serve's page marks it (the best value through each point a
 * first click chooses, each stone's best move as an arrow) and listed.
 */
void cli_svg_position(FILE *f, const struct mmtb_variant *v, const struct mmtb_pos *p,
                      const struct mmtb_value *val, const struct mmtb_move_value *mv, int n);

/*
 * A standalone SVG document of the statistics of the tables of tb (named
 * dir in the caption): per sector the W/D/L shares and the longest win and
 * loss, then the histogram of wins and losses by DTW (log scale), the
 * longest win and loss named with their sectors.  Reads every value of
 * every usable sector.  Problems are reported with cli_error(cmd, ...).
 * Returns MMTB_OK, MMTB_ERR_MISSING when a sector was unusable (the others
 * are drawn), or the error that stopped it (nothing usable written).
 */
int cli_svg_stats(FILE *f, const mmtb_tb *tb, const char *dir, const char *cmd);

#endif
