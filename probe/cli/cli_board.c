/*
 * cli_board.c - ASCII drawings of a variant's board (from the points' x,y
 * and its lines) and of positions on it, and the `board` subcommand that
 * describes a variant: diagram, points, lines, mills, rules, symmetries.
 * Depends on format/ only.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "movegen.h"
#include "notation.h"
#include "probe_cli.h"

/* Geometry of a drawing: one text cell per point, COLSTEP characters per x
 * unit (the widest name plus " - "), two text rows per y unit. */
struct layout {
    int minx, maxx, miny, maxy;
    int namew, colstep;
    bool labels;                    /* names are column letter + row label */
    char col_label[MMTB_MAX_POINTS]; /* indexed by x - minx */
    char row_label[MMTB_MAX_POINTS][MMTB_MAX_NAME];
    int margin;                     /* width of the row-label column */
    int width, height;
};

/*
 * Do the names follow the "column letter + row label" pattern, one letter
 * per x and one label per y (a1..g7 on the 24-point boards)?  Then the
 * drawing gets axis labels and a position diagram can leave names out.
 */
static bool find_labels(const struct mmtb_variant *v, struct layout *L)
{
    bool col_set[MMTB_MAX_POINTS] = {false}, row_set[MMTB_MAX_POINTS] = {false};
    if (L->maxx - L->minx >= MMTB_MAX_POINTS || L->maxy - L->miny >= MMTB_MAX_POINTS)
        return false;
    for (int i = 0; i < v->npoints; i++) {
        const char *name = v->point_name[i];
        int cx = v->x[i] - L->minx, ry = v->y[i] - L->miny;
        if (strlen(name) < 2)
            return false;
        if (!col_set[cx]) {
            L->col_label[cx] = name[0];
            col_set[cx] = true;
        } else if (L->col_label[cx] != name[0]) {
            return false;
        }
        if (!row_set[ry]) {
            snprintf(L->row_label[ry], MMTB_MAX_NAME, "%s", name + 1);
            row_set[ry] = true;
        } else if (strcmp(L->row_label[ry], name + 1) != 0) {
            return false;
        }
    }
    return true;
}

static void make_layout(const struct mmtb_variant *v, struct layout *L)
{
    memset(L, 0, sizeof *L);
    L->minx = L->miny = 127;
    L->maxx = L->maxy = -128;
    for (int i = 0; i < v->npoints; i++) {
        int w = (int)strlen(v->point_name[i]);
        if (w > L->namew)
            L->namew = w;
        if (v->x[i] < L->minx)
            L->minx = v->x[i];
        if (v->x[i] > L->maxx)
            L->maxx = v->x[i];
        if (v->y[i] < L->miny)
            L->miny = v->y[i];
        if (v->y[i] > L->maxy)
            L->maxy = v->y[i];
    }
    if (v->npoints == 0)
        L->minx = L->maxx = L->miny = L->maxy = 0;
    L->colstep = L->namew + 3;
    L->labels = find_labels(v, L);
    if (L->labels) {
        int w = 0;
        for (int y = 0; y <= L->maxy - L->miny; y++)
            if ((int)strlen(L->row_label[y]) > w)
                w = (int)strlen(L->row_label[y]);
        L->margin = w + 2;
    }
    L->width = L->margin + (L->maxx - L->minx) * L->colstep + L->namew;
    L->height = (L->maxy - L->miny) * 2 + 1;
}

/* Canvas column and row of point i (row 0 at the top). */
static int pcol(const struct layout *L, const struct mmtb_variant *v, int i)
{
    return L->margin + (v->x[i] - L->minx) * L->colstep;
}

static int prow(const struct layout *L, const struct mmtb_variant *v, int i)
{
    return (L->maxy - v->y[i]) * 2;
}

/* The text shown at point i: its name, or with a position a stone mark. */
static const char *cell_text(const struct mmtb_variant *v, const struct layout *L,
                             const struct mmtb_pos *p, int i)
{
    if (!p)
        return v->point_name[i];
    if (p->stones[MMTB_WHITE] >> i & 1)
        return "O";
    if (p->stones[MMTB_BLACK] >> i & 1)
        return "@";
    return L->labels ? "." : v->point_name[i];
}

/*
 * Draw the segment between points a and b on the canvas: '-' between the
 * cells of a horizontal segment (one blank either side), '|' under the
 * first character for a vertical one, '\' or '/' on the rows in between
 * for a diagonal, on the straight line joining the centres of the names.
 */
static void draw_segment(char *canvas, const struct layout *L, const struct mmtb_variant *v,
                         const struct mmtb_pos *p, int a, int b)
{
    int ca = pcol(L, v, a), ra = prow(L, v, a), cb = pcol(L, v, b), rb = prow(L, v, b);
    if (ra == rb) {
        if (ca > cb) {
            int t = a;
            a = b;
            b = t;
            t = ca;
            ca = cb;
            cb = t;
        }
        int from = ca + (int)strlen(cell_text(v, L, p, a)) + 1, to = cb - 2;
        for (int c = from; c <= to; c++)
            canvas[ra * L->width + c] = '-';
        return;
    }
    if (ra > rb) {
        int t = ra;
        ra = rb;
        rb = t;
        t = ca;
        ca = cb;
        cb = t;
    }
    for (int r = ra + 1; r < rb; r++) {
        char ch = ca == cb ? '|' : (cb > ca ? '\\' : '/');
        /* centre of the name cells: c + (namew - 1) / 2, interpolated */
        double t = (double)(r - ra) / (rb - ra);
        double x = ca + (cb - ca) * t + (ca == cb ? 0 : (L->namew - 1) / 2.0);
        int c = (int)(x + 0.5);
        if (c >= 0 && c < L->width)
            canvas[r * L->width + c] = ch;
    }
}

void cli_draw_board(FILE *f, const struct mmtb_variant *v, const struct mmtb_pos *p)
{
    struct layout L;
    make_layout(v, &L);
    char *canvas = malloc((size_t)L.width * L.height);
    if (!canvas)
        return;
    memset(canvas, ' ', (size_t)L.width * L.height);
    for (int l = 0; l < v->nlines; l++)
        for (int k = 0; k + 1 < v->line_len[l]; k++)
            draw_segment(canvas, &L, v, p, v->line[l][k], v->line[l][k + 1]);
    for (int i = 0; i < v->npoints; i++) {
        const char *t = cell_text(v, &L, p, i);
        memcpy(canvas + prow(&L, v, i) * L.width + pcol(&L, v, i), t, strlen(t));
    }
    if (L.labels)
        for (int y = L.maxy; y >= L.miny; y--)
            memcpy(canvas + (L.maxy - y) * 2 * L.width, L.row_label[y - L.miny],
                   strlen(L.row_label[y - L.miny]));
    for (int r = 0; r < L.height; r++) {
        int n = L.width;
        while (n > 0 && canvas[r * L.width + n - 1] == ' ')
            n--;
        fprintf(f, "%.*s\n", n, canvas + r * L.width);
    }
    if (L.labels) {
        fprintf(f, "%*s", L.margin, "");
        for (int x = L.minx; x <= L.maxx; x++)
            fprintf(f, "%c%*s", L.col_label[x - L.minx] ? L.col_label[x - L.minx] : ' ',
                    x < L.maxx ? L.colstep - 1 : 0, "");
        fputc('\n', f);
    }
    free(canvas);
}

void cli_draw_position(FILE *f, const struct mmtb_variant *v, const struct mmtb_pos *p)
{
    char buf[512];
    cli_draw_board(f, v, p);
    fputc('\n', f);
    for (int c = 0; c < 2; c++)
        fprintf(f, "%s (%s): %d on the board, %d in hand\n", cli_colour_name(c, true),
                c == MMTB_WHITE ? "O" : "@", __builtin_popcount(p->stones[c]), p->hand[c]);
    fprintf(f, "%s to move", cli_colour_name(p->side, true));
    if (p->remove)
        fprintf(f, ", must first remove %d opposing stone%s", p->remove,
                p->remove == 1 ? "" : "s");
    fputc('\n', f);
    for (int c = 0; c < 2; c++) {
        int y, x;
        if (mmtb_pos_ban(v, p, c, &y, &x))
            fprintf(f, "%s may not slide %s-%s to close a mill again on %s turn\n",
                    cli_colour_name(c, true), v->point_name[y], v->point_name[x],
                    c == p->side ? "this" : "its next");
    }
    if (mmtb_pos_format(v, p, buf, sizeof buf) >= 0)
        fprintf(f, "Position: %s\n", buf);
    if (mmtb_fen_supported(v) && mmtb_pos_format_fen(v, p, buf, sizeof buf) >= 0)
        fprintf(f, "FEN: %s\n", buf);
}

/* ---------------------------------------------------------------------- */
/* The `board` subcommand                                                  */
/* ---------------------------------------------------------------------- */

static const char board_help[] =
    "Usage: mmtb-probe board [-v VARIANT] [--svg [POSITION]]\n"
    "\n"
    "Describe a variant: the board drawn with its square names, the points,\n"
    "lines and mills, the rule flags and the order of the symmetry group.\n"
    "\n"
    "Options:\n"
    "  -v, --variant VARIANT  built-in name or variant file (default: nine)\n"
    "  -s, --svg              instead, an SVG picture of the board with its\n"
    "                         square names, or of POSITION (either notation)\n"
    "                         with the stones on the board and in hand\n"
    "  -h, --help             show this help\n"
    "\n"
    "Exit codes: 0 success, 1 bad usage or unknown variant.\n";

/* Print a mill's points in the order of a line that contains them all (the
 * natural reading order), falling back to point order. */
static void print_mill(const struct mmtb_variant *v, uint32_t mill)
{
    for (int l = 0; l < v->nlines; l++) {
        uint32_t on = 0;
        for (int k = 0; k < v->line_len[l]; k++)
            on |= 1u << v->line[l][k];
        if ((on & mill) != mill)
            continue;
        bool first = true;
        for (int k = 0; k < v->line_len[l]; k++)
            if (mill >> v->line[l][k] & 1) {
                printf("%s%s", first ? "" : "-", v->point_name[v->line[l][k]]);
                first = false;
            }
        return;
    }
    char buf[MMTB_MAX_POINTS * MMTB_MAX_NAME];
    cli_format_points(v, mill, "-", buf, sizeof buf);
    fputs(buf, stdout);
}

static const char *yes_no(bool b)
{
    return b ? "yes" : "no";
}

static void print_rules(const struct mmtb_variant *v)
{
    printf("Rules:\n");
    printf("  stones per side          %d\n", v->stones);
    if (v->fly > 0)
        printf("  flying                   with at most %d stone%s (board + hand)\n", v->fly,
               v->fly == 1 ? "" : "s");
    else
        printf("  flying                   never\n");
    printf("  a side loses below       %d stones (board + hand)\n", v->min_stones);
    printf("  a mill may remove        %s\n",
           v->removal == MMTB_REMOVE_ANY      ? "any stone"
           : v->removal == MMTB_REMOVE_IMMUNE ? "only stones not in a mill (immune)"
                                              : "stones not in a mill, unless all are in mills");
    printf("  placement captures       %s\n", yes_no(v->place_captures));
    printf("  first mill wins          %s\n", yes_no(v->first_mill_wins));
    printf("  no legal move            %s\n", v->nomove == MMTB_NOMOVE_PASSES ? "passes" : "loses");
    printf("  full board is a draw     %s\n", yes_no(v->full_board_draw));
    printf("  place or move (Lasker)   %s\n", yes_no(v->place_or_move));
    printf("  no re-closing a mill     %s\n", yes_no(v->no_reclose));
}

/* board --svg: the board, or the position given as words, as SVG. */
static int board_svg(const char *cmd, const struct mmtb_variant *v, int nw, char **words)
{
    if (nw == 0) {
        cli_svg_position(stdout, v, NULL, NULL, NULL, 0);
        return CLI_EXIT_OK;
    }
    char *text = cli_join(nw, words), err[256] = "";
    struct mmtb_pos p;
    if (!text) {
        cli_error(cmd, "out of memory");
        return CLI_EXIT_INPUT;
    }
    int rc = mmtb_pos_parse(v, text, &p, err, sizeof err);
    if (rc != MMTB_OK) {
        cli_error(cmd, "bad position '%.*s%s': %s", CLI_QUOTE(text), err[0] ? err : mmtb_strerror(rc));
        free(text);
        return CLI_EXIT_INPUT;
    }
    free(text);
    cli_svg_position(stdout, v, &p, NULL, NULL, 0);
    return CLI_EXIT_OK;
}

int cli_cmd_board(int argc, char **argv)
{
    static const struct cli_opt opts[] = {{"variant", 'v', true, 1},
                                          {"help", 'h', false, 2},
                                          {"svg", 's', false, 3},
                                          {NULL, 0, false, 0}};
    struct cli_parser ps;
    const char *arg, *vname = "nine";
    bool svg = false;
    int id, nw = 0, ret;
    char **words = calloc((size_t)argc + 1, sizeof *words);
    if (!words)
        return CLI_EXIT_INPUT;
    cli_parser_init(&ps, argc, argv);
    while ((id = cli_next(&ps, opts, &arg)) != CLI_END) {
        switch (id) {
        case CLI_BAD:
            free(words);
            return CLI_EXIT_INPUT;
        case 1:
            vname = arg;
            break;
        case 2:
            fputs(board_help, stdout);
            free(words);
            return CLI_EXIT_OK;
        case 3:
            svg = true;
            break;
        default:
            words[nw++] = (char *)arg; /* a position: only with --svg */
        }
    }
    if (nw > 0 && !svg) {
        ret = cli_usage_error(ps.cmd, "unexpected argument '%s'", words[0]);
        free(words);
        return ret;
    }
    struct mmtb_variant *v;
    if (!cli_load_variant(ps.cmd, vname, &v)) {
        free(words);
        return CLI_EXIT_INPUT;
    }
    if (svg) {
        ret = board_svg(ps.cmd, v, nw, words);
        free(words);
        mmtb_variant_free(v);
        return ret;
    }
    free(words);

    printf("%s (%s)\n\n", v->title, v->name);
    cli_draw_board(stdout, v, NULL);
    printf("\nPoints (%d):", v->npoints);
    for (int i = 0; i < v->npoints; i++)
        printf(" %s", v->point_name[i]);
    printf("\n\nLines (%d):\n", v->nlines);
    for (int l = 0; l < v->nlines; l++) {
        printf("  ");
        for (int k = 0; k < v->line_len[l]; k++)
            printf("%s%s", k ? "-" : "", v->point_name[v->line[l][k]]);
        printf("\n");
    }
    printf("\nMills (%d):\n", v->nmills);
    for (int m = 0; m < v->nmills; m++) {
        printf("  ");
        print_mill(v, v->mill[m]);
        printf("\n");
    }
    printf("\n");
    print_rules(v);
    printf("\nSymmetry group order: %d\n", v->nsyms);
    printf("Fingerprint: %016" PRIx64 "\n", v->fingerprint);
    mmtb_variant_free(v);
    return CLI_EXIT_OK;
}
