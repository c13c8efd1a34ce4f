/*
 * cli_rules.c - the mmtb-probe subcommands that need only the rules, no
 * tables: `moves` (legal moves of a position), `perft` (move-path counts)
 * and `sectors` (the sectors of a variant with their sizes).  Depends on
 * format/ only.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "ban_index.h"
#include "movegen.h"
#include "notation.h"
#include "probe_cli.h"
#include "sector_index.h"

/*
 * Parse the position given as the words words[0..n-1] (joined with spaces),
 * or the start position when n == 0.  Prints the error naming the field and
 * returns false on bad input.  *text receives the joined text (malloc'd, or
 * NULL for the start).
 */
static bool read_position(const char *cmd, const struct mmtb_variant *v, int n,
                          char *const *words, struct mmtb_pos *p, char **text)
{
    char err[256] = "";
    *text = NULL;
    if (n == 0) {
        mmtb_pos_start(v, p);
        return true;
    }
    *text = cli_join(n, words);
    if (!*text) {
        cli_error(cmd, "out of memory");
        return false;
    }
    int rc = mmtb_pos_parse(v, *text, p, err, sizeof err);
    if (rc != MMTB_OK) {
        cli_error(cmd, "bad position '%.*s%s': %s", CLI_QUOTE(*text), err[0] ? err : mmtb_strerror(rc));
        return false;
    }
    return true;
}

/* Collect the positional words of a subcommand into a malloc'd array. */
static char **words_alloc(int argc)
{
    return calloc((size_t)argc + 1, sizeof(char *));
}

/* ---------------------------------------------------------------------- */
/* moves                                                                  */
/* ---------------------------------------------------------------------- */

static const char moves_help[] =
    "Usage: mmtb-probe moves [-v VARIANT] [--quiet] [--json] [--play MOVES] [POSITION]\n"
    "\n"
    "List the legal moves (whole turns: placement, slide or flight, with the\n"
    "removal when it closes a mill: d6, d6-d5, d6-d5xb4, xb4) of a position,\n"
    "one per line, after a drawing of the position.\n"
    "\n"
    "POSITION is the simple form 'WHITE BLACK SIDE [WHITE_HAND BLACK_HAND]'\n"
    "(e.g. 'd7,g7,g1 a4,g4,d5 b', '- - w 9 9') or a Sanmill FEN; it may be\n"
    "given as one quoted argument or as several words.  Default: the start.\n"
    "\n"
    "Options:\n"
    "  -v, --variant VARIANT  built-in name or variant file (default: nine)\n"
    "  -q, --quiet            only the moves, one per line\n"
    "  -j, --json             one JSON object: position, side, remove (removals\n"
    "                         pending), game_over, count, moves\n"
    "  -p, --play MOVES       first play MOVES (one argument, separated by\n"
    "                         spaces) from POSITION: whole turns, or Sanmill's\n"
    "                         actions (d6-d5 then xb4); then list the moves of\n"
    "                         the position reached (JSON: position is that one)\n"
    "  -h, --help             show this help\n"
    "\n"
    "Exit codes: 0 success, 1 bad usage, unknown variant, malformed position\n"
    "or an illegal move in --play.\n";

/* Play the whole turns or actions of play (separated by spaces) from *p;
 * false, after saying which move failed and why, on an illegal one. */
static bool play_moves(const char *cmd, const struct mmtb_variant *v, struct mmtb_pos *p,
                       const char *play)
{
    char *list = strdup(play), why[240];
    int k = 0;
    bool ok = list != NULL;
    for (char *save, *t = list ? strtok_r(list, " \t", &save) : NULL; t && ok;
         t = strtok_r(NULL, " \t", &save)) {
        k++;
        if (cli_apply_action(v, p, t, why, sizeof why) != MMTB_OK) {
            cli_error(cmd, "--play, move %d: %s", k, why);
            ok = false;
        }
    }
    free(list);
    return ok;
}

/* The moves of p as one JSON object; text is the position as given, or
 * NULL to print p's own form. */
static void print_moves_json(const struct mmtb_variant *v, const struct mmtb_pos *p,
                             const char *text, int term, const struct mmtb_move *moves, int n)
{
    char buf[64], pbuf[512];
    printf("{\"position\":");
    if (text) {
        cli_json_str(stdout, text);
    } else {
        mmtb_pos_format(v, p, pbuf, sizeof pbuf);
        cli_json_str(stdout, pbuf);
    }
    printf(",\"side\":\"%s\",\"remove\":%d,\"game_over\":", cli_colour_name(p->side, false),
           p->remove);
    if (term == MMTB_NOT_TERMINAL)
        printf("null");
    else
        printf("\"%s\"", cli_wdl_name(term));
    printf(",\"count\":%d,\"moves\":[", n);
    for (int i = 0; i < n; i++) {
        mmtb_move_format(v, &moves[i], buf, sizeof buf);
        if (i)
            putchar(',');
        cli_json_str(stdout, buf);
    }
    printf("]}\n");
}

/* The moves of p, one per line, after (unless quiet) a drawing of p and
 * their count or the game's end. */
static void print_moves_text(const struct mmtb_variant *v, const struct mmtb_pos *p, int term,
                             const struct mmtb_move *moves, int n, bool quiet)
{
    char buf[64];
    if (!quiet) {
        cli_draw_position(stdout, v, p);
        if (term != MMTB_NOT_TERMINAL)
            printf("\nGame over: the side to move has %s.\n", term == MMTB_LOSS ? "lost" : "drawn");
        else
            printf("\n%d legal move%s:\n", n, n == 1 ? "" : "s");
    }
    for (int i = 0; i < n; i++) {
        mmtb_move_format(v, &moves[i], buf, sizeof buf);
        printf("%s\n", buf);
    }
}

int cli_cmd_moves(int argc, char **argv)
{
    enum { O_VARIANT = 1, O_QUIET, O_JSON, O_PLAY, O_HELP };
    static const struct cli_opt opts[] = {
        {"variant", 'v', true, O_VARIANT}, {"quiet", 'q', false, O_QUIET},
        {"play", 'p', true, O_PLAY},       {"json", 'j', false, O_JSON},
        {"help", 'h', false, O_HELP},      {NULL, 0, false, 0}};
    struct cli_parser ps;
    const char *arg, *vname = "nine", *play = NULL;
    bool quiet = false, json = false;
    int id, nw = 0, ret = CLI_EXIT_INPUT;
    char **words = words_alloc(argc), *text = NULL;
    struct mmtb_variant *v = NULL;
    struct mmtb_move *moves = NULL;

    if (!words)
        return CLI_EXIT_INPUT;
    cli_parser_init(&ps, argc, argv);
    while ((id = cli_next(&ps, opts, &arg)) != CLI_END) {
        switch (id) {
        case CLI_BAD:
            goto out_words;
        case O_VARIANT:
            vname = arg;
            break;
        case O_QUIET:
            quiet = true;
            break;
        case O_JSON:
            json = true;
            break;
        case O_PLAY:
            play = arg;
            break;
        case O_HELP:
            fputs(moves_help, stdout);
            ret = CLI_EXIT_OK;
            goto out_words;
        default:
            words[nw++] = (char *)arg;
        }
    }
    if (!cli_load_variant(ps.cmd, vname, &v))
        goto out_words;
    struct mmtb_pos p;
    if (!read_position(ps.cmd, v, nw, words, &p, &text))
        goto out_variant;
    moves = malloc(sizeof *moves * MMTB_MAX_MOVES);
    if (!moves) {
        cli_error(ps.cmd, "out of memory");
        goto out_variant;
    }
    if (play) {
        /* the position reached is the one listed (and printed in JSON) */
        bool ok = play_moves(ps.cmd, v, &p, play);
        free(text);
        text = NULL;
        if (!ok)
            goto out_moves;
    }
    int term = mmtb_pos_terminal(v, &p);
    int n = term == MMTB_NOT_TERMINAL ? mmtb_gen_moves(v, &p, moves) : 0;
    if (n < 0) {
        cli_error(ps.cmd, "cannot generate moves: %s", mmtb_strerror(n));
        goto out_moves;
    }
    if (json)
        print_moves_json(v, &p, text, term, moves, n);
    else
        print_moves_text(v, &p, term, moves, n, quiet);
    ret = CLI_EXIT_OK;
out_moves:
    free(moves);
out_variant:
    free(text);
    mmtb_variant_free(v);
out_words:
    free(words);
    return ret;
}

/* ---------------------------------------------------------------------- */
/* perft                                                                  */
/* ---------------------------------------------------------------------- */

static const char perft_help[] =
    "Usage: mmtb-probe perft [-v VARIANT] -d DEPTH [--divide] [POSITION]\n"
    "\n"
    "Count the sequences of DEPTH whole turns (a mill and its removal are one\n"
    "turn) from POSITION (default: the start) and print the count.  With\n"
    "--divide, first print each legal move with the count below it\n"
    "('MOVE: COUNT'), then 'total: COUNT'.\n"
    "\n"
    "Options:\n"
    "  -v, --variant VARIANT  built-in name or variant file (default: nine)\n"
    "  -d, --depth DEPTH      number of turns, 0..64 (required)\n"
    "      --divide           per-move counts\n"
    "  -h, --help             show this help\n"
    "\n"
    "Exit codes: 0 success, 1 bad usage, unknown variant or malformed position.\n";

int cli_cmd_perft(int argc, char **argv)
{
    enum { O_VARIANT = 1, O_DEPTH, O_DIVIDE, O_HELP };
    static const struct cli_opt opts[] = {{"variant", 'v', true, O_VARIANT},
                                          {"depth", 'd', true, O_DEPTH},
                                          {"divide", 0, false, O_DIVIDE},
                                          {"help", 'h', false, O_HELP},
                                          {NULL, 0, false, 0}};
    struct cli_parser ps;
    const char *arg, *vname = "nine";
    long depth = -1;
    bool divide = false;
    int id, nw = 0, ret = CLI_EXIT_INPUT;
    char **words = words_alloc(argc), *text = NULL;
    struct mmtb_variant *v = NULL;
    struct mmtb_move *moves = NULL;

    if (!words)
        return CLI_EXIT_INPUT;
    cli_parser_init(&ps, argc, argv);
    while ((id = cli_next(&ps, opts, &arg)) != CLI_END) {
        switch (id) {
        case CLI_BAD:
            goto out_words;
        case O_VARIANT:
            vname = arg;
            break;
        case O_DEPTH:
            if (!cli_parse_long(arg, 0, 64, &depth)) {
                cli_usage_error(ps.cmd, "bad depth '%s' (want 0..64)", arg);
                goto out_words;
            }
            break;
        case O_DIVIDE:
            divide = true;
            break;
        case O_HELP:
            fputs(perft_help, stdout);
            ret = CLI_EXIT_OK;
            goto out_words;
        default:
            words[nw++] = (char *)arg;
        }
    }
    if (depth < 0) {
        cli_usage_error(ps.cmd, "missing -d DEPTH");
        goto out_words;
    }
    if (!cli_load_variant(ps.cmd, vname, &v))
        goto out_words;
    struct mmtb_pos p;
    if (!read_position(ps.cmd, v, nw, words, &p, &text))
        goto out_variant;
    if (!divide || depth == 0) {
        printf("%" PRIu64 "\n", mmtb_perft(v, &p, (int)depth));
        ret = CLI_EXIT_OK;
        goto out_variant;
    }
    moves = malloc(sizeof *moves * MMTB_MAX_MOVES);
    if (!moves) {
        cli_error(ps.cmd, "out of memory");
        goto out_variant;
    }
    int n = mmtb_pos_terminal(v, &p) == MMTB_NOT_TERMINAL ? mmtb_gen_moves(v, &p, moves) : 0;
    if (n < 0) {
        cli_error(ps.cmd, "cannot generate moves: %s", mmtb_strerror(n));
        goto out_moves;
    }
    uint64_t total = 0;
    for (int i = 0; i < n; i++) {
        struct mmtb_pos q;
        char buf[64];
        mmtb_pos_apply(v, &p, &moves[i], &q);
        uint64_t c = mmtb_perft(v, &q, (int)depth - 1);
        total += c;
        mmtb_move_format(v, &moves[i], buf, sizeof buf);
        printf("%s: %" PRIu64 "\n", buf, c);
    }
    printf("total: %" PRIu64 "\n", total);
    ret = CLI_EXIT_OK;
out_moves:
    free(moves);
out_variant:
    free(text);
    mmtb_variant_free(v);
out_words:
    free(words);
    return ret;
}

/* ---------------------------------------------------------------------- */
/* sectors                                                                */
/* ---------------------------------------------------------------------- */

static const char sectors_help[] =
    "Usage: mmtb-probe sectors [-v VARIANT] [--start W,B] [--max-stones N] [--json]\n"
    "\n"
    "List every sector a game of the variant needs (stone counts with the side\n"
    "to move first: on the board w, b; in hand w_hand, b_hand), in solving\n"
    "order, with its number of positions (no symmetry reduction), canonical\n"
    "positions (one per symmetry orbit) and index slots.  When a listed\n"
    "sector's positions carry more than the stones (Twelve's re-close\n"
    "restrictions, Shah's first-mill owner) a column \"table\" adds the slots\n"
    "each table holds with that state (above 1,048,576 stone slots estimated\n"
    "from a sample, marked ~).\n"
    "\n"
    "Options:\n"
    "  -v, --variant VARIANT  built-in name or variant file (default: nine)\n"
    "  -s, --start W,B        stones in hand at the start (default: the\n"
    "                         variant's own, e.g. 9,9); 0,0 lists the movement\n"
    "                         sectors only\n"
    "  -m, --max-stones N     at most N stones of a side on the board\n"
    "  -j, --json             one JSON array of objects with the fields w, b,\n"
    "                         w_hand, b_hand, positions, canonical, slots,\n"
    "                         table_slots, table_slots_exact\n"
    "  -h, --help             show this help\n"
    "\n"
    "Exit codes: 0 success, 1 bad usage or unknown variant.\n";

/* Parse "W,B" (two numbers in 0..max separated by a comma). */
static bool parse_pair(const char *s, long max, long *a, long *b)
{
    const char *comma = strchr(s, ',');
    char first[32];
    if (!comma || (size_t)(comma - s) >= sizeof first)
        return false;
    memcpy(first, s, (size_t)(comma - s));
    first[comma - s] = '\0';
    return cli_parse_long(first, 0, max, a) && cli_parse_long(comma + 1, 0, max, b);
}

/* The slots the table of sector s holds: its index slots, and with the
 * state its positions carry (Twelve's restrictions, Shah's first-mill
 * owner) the slots of that state too; *exact false when estimated from a
 * sample (more than TABLE_VISIT slots to walk). */
enum { TABLE_VISIT = 1 << 20 };
static uint64_t table_slots(const mmtb_index *ix, struct mmtb_sector s, bool *exact)
{
    return mmtb_ban_index_count(ix, s, TABLE_VISIT, exact);
}

static void print_table_slots(uint64_t slots, bool exact)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%s%" PRIu64, exact ? "" : "~", slots);
    printf(" %15s", buf);
}

/* The sectors a game of v from sw, sb stones in hand needs, into a
 * malloc'd *sec (its length not known in advance: grown until it fits);
 * their count, or -1 after saying why there is none. */
static int list_sectors(const char *cmd, const struct mmtb_variant *v, long sw, long sb,
                        long max_stones, struct mmtb_sector **sec)
{
    int n = MMTB_ERR_INVALID;
    for (int cap = 256; cap <= (1 << 20) && n == MMTB_ERR_INVALID; cap *= 4) {
        free(*sec);
        *sec = malloc(sizeof **sec * (size_t)cap);
        if (!*sec) {
            cli_error(cmd, "out of memory");
            return -1;
        }
        n = mmtb_sector_list(v, (int)sw, (int)sb, (int)max_stones, *sec, cap);
    }
    if (n < 0) {
        cli_error(cmd, "cannot list the sectors: %s", mmtb_strerror(n));
        return -1;
    }
    return n;
}

/* The sectors sec[0..n) as one JSON array; slots null without an index. */
static void print_sectors_json(const struct mmtb_variant *v, const mmtb_index *ix,
                               const struct mmtb_sector *sec, int n)
{
    printf("[");
    for (int i = 0; i < n; i++) {
        uint64_t pos = mmtb_index_positions(v, sec[i]);
        uint64_t can = mmtb_index_canonical(v, sec[i]);
        printf("%s\n{\"w\":%d,\"b\":%d,\"w_hand\":%d,\"b_hand\":%d,\"positions\":%" PRIu64
               ",\"canonical\":%" PRIu64 ",\"slots\":",
               i ? "," : "", sec[i].w, sec[i].b, sec[i].w_hand, sec[i].b_hand, pos, can);
        if (ix) {
            bool exact;
            uint64_t tsl = table_slots(ix, sec[i], &exact);
            printf("%" PRIu64 ",\"table_slots\":%" PRIu64 ",\"table_slots_exact\":%s}",
                   mmtb_index_slots(ix, sec[i]), tsl, exact ? "true" : "false");
        } else {
            printf("null,\"table_slots\":null,\"table_slots_exact\":false}");
        }
    }
    printf("\n]\n");
}

/* Column sums of the text table. */
struct sector_totals {
    uint64_t positions, canonical, slots, table_slots;
    bool table_exact;
};

/* One row of the text table for sector s, added to *tot; the slot
 * columns "-" without an index, the "table" column only when stateful. */
static void print_sector_row(const struct mmtb_variant *v, const mmtb_index *ix,
                             struct mmtb_sector s, bool stateful, struct sector_totals *tot)
{
    char id_buf[32];
    uint64_t pos = mmtb_index_positions(v, s);
    uint64_t can = mmtb_index_canonical(v, s);
    mmtb_sector_format(s, id_buf, sizeof id_buf);
    tot->positions += pos;
    tot->canonical += can;
    printf("%-12s %3d %3d %6d %6d %16" PRIu64 " %14" PRIu64, id_buf, s.w, s.b, s.w_hand, s.b_hand,
           pos, can);
    if (!ix) {
        printf(" %14s %7s\n", "-", "-");
        return;
    }
    uint64_t sl = mmtb_index_slots(ix, s);
    tot->slots += sl;
    printf(" %14" PRIu64 " %6.2f%%", sl,
           sl ? 100.0 * ((double)sl - (double)can) / (double)sl : 0.0);
    if (stateful) {
        bool exact;
        uint64_t tsl = table_slots(ix, s, &exact);
        tot->table_slots += tsl;
        tot->table_exact &= exact;
        print_table_slots(tsl, exact);
    }
    printf("\n");
}

/* The sectors sec[0..n) as a text table with a total line; the "table"
 * column where some sector's table holds more than its index. */
static void print_sectors_text(const struct mmtb_variant *v, const mmtb_index *ix,
                               const struct mmtb_sector *sec, int n)
{
    struct sector_totals tot = {0, 0, 0, 0, true};
    bool stateful = false;
    for (int i = 0; ix && i < n; i++)
        stateful |= mmtb_ban_index_applies(v, sec[i]);
    printf("%-12s %3s %3s %6s %6s %16s %14s %14s %7s", "sector", "w", "b", "w_hand", "b_hand",
           "positions", "canonical", "slots", "waste");
    printf(stateful ? " %15s\n" : "\n", "table");
    for (int i = 0; i < n; i++)
        print_sector_row(v, ix, sec[i], stateful, &tot);
    char buf[32];
    snprintf(buf, sizeof buf, "total (%d)", n);
    printf("%-34s %16" PRIu64 " %14" PRIu64, buf, tot.positions, tot.canonical);
    if (ix) {
        uint64_t ts = tot.slots;
        printf(" %14" PRIu64 " %6.2f%%", ts,
               ts ? 100.0 * ((double)ts - (double)tot.canonical) / (double)ts : 0.0);
        if (stateful)
            print_table_slots(tot.table_slots, tot.table_exact);
        printf("\n");
    } else
        printf(" %14s %7s\n", "-", "-");
}

int cli_cmd_sectors(int argc, char **argv)
{
    enum { O_VARIANT = 1, O_START, O_MAX, O_JSON, O_HELP };
    static const struct cli_opt opts[] = {
        {"variant", 'v', true, O_VARIANT}, {"start", 's', true, O_START},
        {"max-stones", 'm', true, O_MAX},  {"json", 'j', false, O_JSON},
        {"help", 'h', false, O_HELP},      {NULL, 0, false, 0}};
    struct cli_parser ps;
    const char *arg, *vname = "nine", *start = NULL;
    long max_stones = 0, sw = -1, sb = -1;
    bool json = false;
    int id, ret = CLI_EXIT_INPUT;
    struct mmtb_variant *v = NULL;
    struct mmtb_sector *sec = NULL;
    mmtb_index *ix = NULL;

    cli_parser_init(&ps, argc, argv);
    while ((id = cli_next(&ps, opts, &arg)) != CLI_END) {
        switch (id) {
        case CLI_BAD:
            return CLI_EXIT_INPUT;
        case O_VARIANT:
            vname = arg;
            break;
        case O_START:
            start = arg;
            break;
        case O_MAX:
            if (!cli_parse_long(arg, 1, MMTB_MAX_POINTS, &max_stones))
                return cli_usage_error(ps.cmd, "bad --max-stones '%s'", arg);
            break;
        case O_JSON:
            json = true;
            break;
        case O_HELP:
            fputs(sectors_help, stdout);
            return CLI_EXIT_OK;
        default:
            return cli_usage_error(ps.cmd, "unexpected argument '%s'", arg);
        }
    }
    if (!cli_load_variant(ps.cmd, vname, &v))
        return CLI_EXIT_INPUT;
    sw = sb = v->stones;
    if (start && !parse_pair(start, v->stones, &sw, &sb)) {
        cli_usage_error(ps.cmd, "bad --start '%s' (want W,B with 0..%d stones each)", start,
                        v->stones);
        goto out;
    }
    if (max_stones > v->stones) {
        cli_usage_error(ps.cmd, "--max-stones %ld exceeds the variant's %d stones", max_stones,
                        v->stones);
        goto out;
    }
    int n = list_sectors(ps.cmd, v, sw, sb, max_stones, &sec);
    if (n < 0)
        goto out;
    int rc = mmtb_index_create(&ix, v, v->stones);
    if (rc != MMTB_OK) {
        cli_error(ps.cmd, "no index for this variant (%s); slots not shown", mmtb_strerror(rc));
        ix = NULL;
    }
    if (json)
        print_sectors_json(v, ix, sec, n);
    else
        print_sectors_text(v, ix, sec, n);
    ret = CLI_EXIT_OK;
out:
    mmtb_index_free(ix);
    free(sec);
    mmtb_variant_free(v);
    return ret;
}
