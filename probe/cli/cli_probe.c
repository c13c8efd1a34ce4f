/*
 * cli_probe.c - the mmtb-probe subcommands that read solved tables through
 * libmmtb: `probe` (value, depth and move values of positions, optionally
 * a principal variation) and `stats` (per-sector statistics from the file
 * headers).  Depends on mmtb.h and format/.
 */
#include <ctype.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "mmtb.h"
#include "mmtb_integrity.h"
#include "movegen.h"
#include "notation.h"
#include "probe_cli.h"
#include "sector_index.h"

/* ---------------------------------------------------------------------- */
/* probe                                                                  */
/* ---------------------------------------------------------------------- */

static const char probe_help[] =
    "Usage: mmtb-probe probe -t DIR [--json] [--pv] [--wdl-only] [POSITION...]\n"
    "       mmtb-probe probe -t DIR --svg POSITION\n"
    "\n"
    "Look positions up in the solved tables in DIR: the value for the side to\n"
    "move (win, draw or loss) with the depth to win (DTW: plies until the\n"
    "end of the game, the winner hurrying, the loser delaying), and every legal move with the\n"
    "value it leads to for the side that moves, best first.\n"
    "\n"
    "Each POSITION is one argument, in the simple form 'WHITE BLACK SIDE\n"
    "[WHITE_HAND BLACK_HAND]' (quote it: it has spaces), e.g.\n"
    "'d7,g7,g1 a4,g4,d5 b', or as a Sanmill FEN.  Without positions, they are\n"
    "read from standard input, one per line (blank lines and lines starting\n"
    "with '#' are skipped).\n"
    "\n"
    "Options:\n"
    "  -t, --tables DIR   table directory (required)\n"
    "  -j, --json         one JSON object per line per position, with the\n"
    "                     fields position (as given), wdl (\"win\", \"draw\" or\n"
    "                     \"loss\" for the side to move), dtw (plies, null for a\n"
    "                     draw) and moves (array of {move, wdl, dtw}, the value\n"
    "                     for the side that moves, best first)\n"
    "  -p, --pv           add the principal variation (JSON: pv, an array of\n"
    "                     moves), played to the end of the game, at most\n"
    "                     --pv-max plies (a draw: at most 20)\n"
    "      --pv-max N     longest principal variation (default 1000)\n"
    "  -w, --wdl-only     only win/draw/loss: reads no depth data; dtw fields\n"
    "                     are left out and moves are ordered wins, draws, losses\n"
    "  -s, --svg          an SVG picture of the one POSITION instead: the board,\n"
    "                     the stones, and every move's value marked on it as\n"
    "                     serve's page marks them (not with --json, --pv or\n"
    "                     --wdl-only)\n"
    "  -h, --help         show this help\n"
    "\n"
    "Exit codes:\n"
    "  0  every position answered\n"
    "  1  bad usage, or a malformed or illegal position (reported on stderr;\n"
    "     the other positions are still answered)\n"
    "  2  a table is missing or corrupt, or the position lies outside the\n"
    "     solved game (2 wins over 1 when both happen)\n";

struct probe_opts {
    bool json, pv, wdl_only, svg;
    int pv_max;
    int answered;   /* positions printed so far (text: blank line between) */
    bool from_args; /* positions come from argv (hint about quoting) */
};

/* Values of the moves of p with W/D/L only: each successor probed with
 * mmtb_probe_wdl, negated; best first (wins, draws, losses), ties in
 * generator order. */
static int moves_wdl_only(mmtb_ctx *ctx, const struct mmtb_variant *v, const struct mmtb_pos *p,
                          struct mmtb_move_value *out)
{
    struct mmtb_move *mv = malloc(sizeof *mv * MMTB_MAX_MOVES);
    if (!mv)
        return MMTB_ERR_NOMEM;
    int n = mmtb_pos_terminal(v, p) == MMTB_NOT_TERMINAL ? mmtb_gen_moves(v, p, mv) : 0;
    int k = 0;
    for (int bucket = MMTB_WIN; bucket >= MMTB_LOSS && n >= 0; bucket--) {
        for (int i = 0; i < n; i++) {
            struct mmtb_pos q;
            int wdl;
            mmtb_pos_apply(v, p, &mv[i], &q);
            int rc = mmtb_probe_wdl(ctx, &q, &wdl);
            if (rc != MMTB_OK) {
                n = rc;
                break;
            }
            if (-wdl != bucket)
                continue;
            out[k].move = mv[i];
            out[k].value.wdl = -wdl;
            out[k].value.dtw = -1;
            k++;
        }
    }
    free(mv);
    return n;
}

/* Print the text form of one answer. */
static void print_text(const struct mmtb_variant *v, const char *given, const struct mmtb_pos *p,
                       const struct mmtb_value *val, const struct mmtb_move_value *mv, int n,
                       const struct mmtb_move *pv, int npv, const struct probe_opts *o)
{
    char vb[64], mb[64];
    cli_format_value(val->wdl, val->dtw, !o->wdl_only, vb, sizeof vb);
    printf("%s\n", given);
    printf("%s to move: %s", cli_colour_name(p->side, true), vb);
    if (val->wdl != MMTB_DRAW && !o->wdl_only)
        printf(" plies");
    if (n == 0)
        printf(" (game over)");
    printf("\n");
    for (int i = 0; i < n; i++) {
        mmtb_move_format(v, &mv[i].move, mb, sizeof mb);
        cli_format_value(mv[i].value.wdl, mv[i].value.dtw, !o->wdl_only, vb, sizeof vb);
        printf("  %-12s %s\n", mb, vb);
    }
    if (o->pv) {
        printf("PV:");
        for (int i = 0; i < npv; i++) {
            mmtb_move_format(v, &pv[i], mb, sizeof mb);
            printf(" %s", mb);
        }
        printf("\n");
    }
}

/* Write a value's "wdl" and (unless wdl-only) "dtw" members. */
static void json_value(const struct mmtb_value *val, const struct probe_opts *o)
{
    printf("\"wdl\":\"%s\"", cli_wdl_name(val->wdl));
    if (o->wdl_only)
        return;
    if (val->wdl == MMTB_DRAW)
        printf(",\"dtw\":null");
    else
        printf(",\"dtw\":%d", val->dtw);
}

static void print_json(const struct mmtb_variant *v, const char *given,
                       const struct mmtb_value *val, const struct mmtb_move_value *mv, int n,
                       const struct mmtb_move *pv, int npv, const struct probe_opts *o)
{
    char mb[64];
    printf("{\"position\":");
    cli_json_str(stdout, given);
    printf(",");
    json_value(val, o);
    printf(",\"moves\":[");
    for (int i = 0; i < n; i++) {
        mmtb_move_format(v, &mv[i].move, mb, sizeof mb);
        printf("%s{\"move\":", i ? "," : "");
        cli_json_str(stdout, mb);
        printf(",");
        json_value(&mv[i].value, o);
        printf("}");
    }
    printf("]");
    if (o->pv) {
        printf(",\"pv\":[");
        for (int i = 0; i < npv; i++) {
            mmtb_move_format(v, &pv[i], mb, sizeof mb);
            if (i)
                printf(",");
            cli_json_str(stdout, mb);
        }
        printf("]");
    }
    printf("}\n");
}

/*
 * Answer one position: parse, probe, list the moves, print.  Returns the
 * exit code for it (0, 1 or 2); errors go to stderr.
 */
static int probe_one(const char *cmd, mmtb_ctx *ctx, const struct mmtb_variant *v,
                     const char *given, struct probe_opts *o, struct mmtb_move_value *mv,
                     struct mmtb_move *pv)
{
    char err[256] = "";
    struct mmtb_pos p;
    int rc = mmtb_pos_parse(v, given, &p, err, sizeof err);
    if (rc != MMTB_OK) {
        cli_error(cmd, "bad position '%.*s%s': %s%s", CLI_QUOTE(given), err[0] ? err : mmtb_strerror(rc),
                  o->from_args && !strchr(given, ' ')
                      ? " (a position with spaces must be one quoted argument)"
                      : "");
        return CLI_EXIT_INPUT;
    }
    struct mmtb_value val = {MMTB_DRAW, -1};
    int n, npv = 0;
    if (o->wdl_only) {
        rc = mmtb_probe_wdl(ctx, &p, &val.wdl);
        n = rc == MMTB_OK ? moves_wdl_only(ctx, v, &p, mv) : rc;
    } else {
        rc = mmtb_probe(ctx, &p, &val);
        n = rc == MMTB_OK ? mmtb_probe_moves(ctx, &p, mv, MMTB_MAX_MOVES) : rc;
    }
    if (n >= 0 && o->pv) {
        int cap = val.wdl == MMTB_DRAW && o->pv_max > 20 ? 20 : o->pv_max;
        npv = mmtb_probe_pv(ctx, &p, pv, cap);
        if (npv < 0)
            n = npv;
    }
    if (n < 0) {
        /* a table error names the file (and block) it happened in */
        bool file = n == MMTB_ERR_CORRUPT || n == MMTB_ERR_IO || n == MMTB_ERR_MISSING ||
                    n == MMTB_ERR_MISMATCH;
        const char *where = file ? mmtb_ctx_error(ctx) : "";
        cli_error(cmd, "position '%.*s%s': %s%s%s", CLI_QUOTE(given), mmtb_strerror(n),
                  where[0] ? ": " : "", where);
        return cli_table_exit(n);
    }
    if (n > MMTB_MAX_MOVES)
        n = MMTB_MAX_MOVES;
    if (o->svg) {
        cli_svg_position(stdout, v, &p, &val, mv, n);
    } else if (o->json) {
        print_json(v, given, &val, mv, n, pv, npv, o);
    } else {
        if (o->answered)
            printf("\n");
        print_text(v, given, &p, &val, mv, n, pv, npv, o);
    }
    o->answered++;
    fflush(stdout);
    return CLI_EXIT_OK;
}

/* Strip surrounding white space in place. */
static char *trim(char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    size_t n = strlen(s);
    while (n && isspace((unsigned char)s[n - 1]))
        s[--n] = '\0';
    return s;
}

static int worse(int a, int b)
{
    return a > b ? a : b;
}

int cli_cmd_probe(int argc, char **argv)
{
    enum { O_TABLES = 1, O_JSON, O_PV, O_PVMAX, O_WDL, O_SVG, O_HELP };
    static const struct cli_opt opts[] = {{"tables", 't', true, O_TABLES},
                                          {"json", 'j', false, O_JSON},
                                          {"pv", 'p', false, O_PV},
                                          {"pv-max", 0, true, O_PVMAX},
                                          {"wdl-only", 'w', false, O_WDL},
                                          {"svg", 's', false, O_SVG},
                                          {"help", 'h', false, O_HELP},
                                          {NULL, 0, false, 0}};
    struct cli_parser ps;
    struct probe_opts o = {false, false, false, false, 1000, 0, false};
    const char *arg, *dir = NULL;
    int id, nw = 0, ret = CLI_EXIT_OK;
    long x;
    char **words = calloc((size_t)argc + 1, sizeof *words);
    if (!words)
        return CLI_EXIT_INPUT;

    cli_parser_init(&ps, argc, argv);
    while ((id = cli_next(&ps, opts, &arg)) != CLI_END) {
        switch (id) {
        case CLI_BAD:
            free(words);
            return CLI_EXIT_INPUT;
        case O_TABLES:
            dir = arg;
            break;
        case O_JSON:
            o.json = true;
            break;
        case O_PV:
            o.pv = true;
            break;
        case O_PVMAX:
            if (!cli_parse_long(arg, 1, 100000, &x)) {
                free(words);
                return cli_usage_error(ps.cmd, "bad --pv-max '%s'", arg);
            }
            o.pv_max = (int)x;
            break;
        case O_WDL:
            o.wdl_only = true;
            break;
        case O_SVG:
            o.svg = true;
            break;
        case O_HELP:
            fputs(probe_help, stdout);
            free(words);
            return CLI_EXIT_OK;
        default:
            words[nw++] = (char *)arg;
        }
    }
    if (!dir) {
        free(words);
        return cli_usage_error(ps.cmd, "missing -t DIR (the table directory)");
    }
    if (o.svg && (o.json || o.pv || o.wdl_only || nw != 1)) {
        free(words);
        return cli_usage_error(ps.cmd, "--svg takes exactly one POSITION and no --json, --pv "
                                       "or --wdl-only");
    }

    mmtb_tb *tb;
    mmtb_ctx *ctx;
    if (!cli_open_tables(ps.cmd, dir, &tb, &ctx)) {
        free(words);
        return CLI_EXIT_TABLE;
    }
    const struct mmtb_variant *v = mmtb_tb_variant(tb);
    struct mmtb_move_value *mv = malloc(sizeof *mv * MMTB_MAX_MOVES);
    struct mmtb_move *pv = malloc(sizeof *pv * (size_t)o.pv_max);
    if (!mv || !pv) {
        cli_error(ps.cmd, "out of memory");
        ret = CLI_EXIT_TABLE;
        goto out;
    }
    if (nw > 0) {
        o.from_args = true;
        for (int i = 0; i < nw; i++)
            ret = worse(ret, probe_one(ps.cmd, ctx, v, words[i], &o, mv, pv));
    } else {
        char *line = NULL;
        size_t cap = 0;
        while (getline(&line, &cap, stdin) >= 0) {
            char *s = trim(line);
            if (*s == '\0' || *s == '#')
                continue;
            ret = worse(ret, probe_one(ps.cmd, ctx, v, s, &o, mv, pv));
        }
        free(line);
    }
out:
    free(pv);
    free(mv);
    free(words);
    mmtb_ctx_free(ctx);
    mmtb_tb_close(tb);
    return ret;
}

/* ---------------------------------------------------------------------- */
/* stats                                                                  */
/* ---------------------------------------------------------------------- */

/* One sector's statistics as `stats --json` writes them (also served by
 * `serve` at /api/stats): {"w", "b", "w_hand", "b_hand", "canonical",
 * "wins", "draws", "losses", "max_win", "max_loss"}. */
void cli_stats_json_row(FILE *f, const struct mmtb_sector_info *info)
{
    const struct mmtb_sector_stats *s = &info->stats;
    fprintf(f,
            "{\"w\":%d,\"b\":%d,\"w_hand\":%d,\"b_hand\":%d,\"canonical\":%" PRIu64
            ",\"wins\":%" PRIu64 ",\"draws\":%" PRIu64 ",\"losses\":%" PRIu64
            ",\"max_win\":%d,\"max_loss\":%d}",
            info->sector.w, info->sector.b, info->sector.w_hand, info->sector.b_hand,
            s->canonical, s->wins, s->draws, s->losses, (int)s->max_win, (int)s->max_loss);
}

static const char stats_help[] =
    "Usage: mmtb-probe stats -t DIR [--json | --svg]\n"
    "\n"
    "Per-sector statistics of the solved tables in DIR, read from the file\n"
    "headers: canonical positions (one per symmetry orbit) that are wins,\n"
    "draws and losses for the side to move, and the longest win and loss\n"
    "(DTW in plies; -1 when there is none).  The text table adds the bytes on\n"
    "disk and the bits per canonical position (whole file, and the W/D/L\n"
    "plane alone) and a totals line.\n"
    "\n"
    "Options:\n"
    "  -t, --tables DIR   table directory (required)\n"
    "  -j, --json         a JSON array of objects with the fields w, b,\n"
    "                     w_hand, b_hand, canonical, wins, draws, losses,\n"
    "                     max_win, max_loss (side to move first)\n"
    "  -s, --svg          an SVG picture instead: per sector the W/D/L shares\n"
    "                     and the longest win and loss, and the histogram of\n"
    "                     wins and losses by DTW (reads every value)\n"
    "  -h, --help         show this help\n"
    "\n"
    "Exit codes:\n"
    "  0  success\n"
    "  1  bad usage\n"
    "  2  the directory cannot be opened, or a sector of the game is missing\n"
    "     or corrupt (the usable sectors are still listed)\n";

int cli_cmd_stats(int argc, char **argv)
{
    enum { O_TABLES = 1, O_JSON, O_SVG, O_HELP };
    static const struct cli_opt opts[] = {{"tables", 't', true, O_TABLES},
                                          {"json", 'j', false, O_JSON},
                                          {"svg", 's', false, O_SVG},
                                          {"help", 'h', false, O_HELP},
                                          {NULL, 0, false, 0}};
    struct cli_parser ps;
    const char *arg, *dir = NULL;
    bool json = false, svg = false;
    int id, ret = CLI_EXIT_OK;

    cli_parser_init(&ps, argc, argv);
    while ((id = cli_next(&ps, opts, &arg)) != CLI_END) {
        switch (id) {
        case CLI_BAD:
            return CLI_EXIT_INPUT;
        case O_TABLES:
            dir = arg;
            break;
        case O_JSON:
            json = true;
            break;
        case O_SVG:
            svg = true;
            break;
        case O_HELP:
            fputs(stats_help, stdout);
            return CLI_EXIT_OK;
        default:
            return cli_usage_error(ps.cmd, "unexpected argument '%s'", arg);
        }
    }
    if (!dir)
        return cli_usage_error(ps.cmd, "missing -t DIR (the table directory)");
    if (json && svg)
        return cli_usage_error(ps.cmd, "--json and --svg exclude each other");
    mmtb_tb *tb;
    if (!cli_open_tables(ps.cmd, dir, &tb, NULL))
        return CLI_EXIT_TABLE;
    if (svg) {
        int rc = cli_svg_stats(stdout, tb, dir, ps.cmd);
        mmtb_tb_close(tb);
        return rc == MMTB_OK ? CLI_EXIT_OK : CLI_EXIT_TABLE;
    }

    const struct mmtb_variant *v = mmtb_tb_variant(tb);
    int n = mmtb_tb_sector_count(tb), shown = 0, bad = 0;
    struct mmtb_sector_stats tot = {0, 0, 0, 0, 0, -1, -1};
    uint64_t tbytes = 0, twdl = 0;

    if (json) {
        printf("[");
    } else {
        printf("Tables in %s: %s (%s), %d sector%s\n\n", dir, v->title, v->name, n,
               n == 1 ? "" : "s");
        printf("%-12s %13s %13s %13s %13s %7s %8s %13s %8s %8s\n", "sector", "canonical", "wins",
               "draws", "losses", "max_win", "max_loss", "bytes", "bits/pos", "wdl bits");
    }
    for (int i = 0; i < n; i++) {
        struct mmtb_sector_info info;
        char name[32];
        if (mmtb_tb_sector_info(tb, i, &info) != MMTB_OK)
            continue;
        mmtb_sector_format(info.sector, name, sizeof name);
        if (info.status != MMTB_OK) {
            cli_error(ps.cmd, "sector %s: %s%s%s", name, mmtb_strerror(info.status),
                      info.detail[0] ? ": " : "", info.detail);
            bad++;
            continue;
        }
        const struct mmtb_sector_stats *s = &info.stats;
        if (json) {
            fputs(shown ? ",\n" : "\n", stdout);
            cli_stats_json_row(stdout, &info);
        } else {
            /* bits per canonical position = 8 * bytes / canonical */
            double c = s->canonical ? (double)s->canonical : 1.0;
            printf("%-12s %13" PRIu64 " %13" PRIu64 " %13" PRIu64 " %13" PRIu64
                   " %7d %8d %13" PRIu64 " %8.3f %8.3f\n",
                   name, s->canonical, s->wins, s->draws, s->losses, (int)s->max_win,
                   (int)s->max_loss, info.file_bytes, 8.0 * (double)info.file_bytes / c,
                   8.0 * (double)info.wdl_bytes / c);
        }
        shown++;
        tot.canonical += s->canonical;
        tot.wins += s->wins;
        tot.draws += s->draws;
        tot.losses += s->losses;
        if (s->max_win > tot.max_win)
            tot.max_win = s->max_win;
        if (s->max_loss > tot.max_loss)
            tot.max_loss = s->max_loss;
        tbytes += info.file_bytes;
        twdl += info.wdl_bytes;
    }
    if (json) {
        printf("%s]\n", shown ? "\n" : "");
    } else {
        char label[32];
        double c = tot.canonical ? (double)tot.canonical : 1.0;
        snprintf(label, sizeof label, "total (%d)", shown);
        printf("%-12s %13" PRIu64 " %13" PRIu64 " %13" PRIu64 " %13" PRIu64
               " %7d %8d %13" PRIu64 " %8.3f %8.3f\n",
               label, tot.canonical, tot.wins, tot.draws, tot.losses, (int)tot.max_win,
               (int)tot.max_loss, tbytes, 8.0 * (double)tbytes / c, 8.0 * (double)twdl / c);
    }
    if (bad) {
        cli_error(ps.cmd, "%d of %d sectors missing or unusable", bad, n);
        ret = CLI_EXIT_TABLE;
    }
    mmtb_tb_close(tb);
    return ret;
}
