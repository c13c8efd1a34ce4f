/*
 * cli_svg.c - SVG pictures for papers and docs: a variant's board or a
 * position with the value of every move marked as serve's page marks them
 * (board --svg, probe --svg), and the statistics of a table directory,
 * per-sector W/D/L shares and the DTW histogram (stats --svg).  Standalone
 * SVG 1.1 documents, no scripts, no external resources.  Depends on
 * format/ and mmtb.h.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mmtb_integrity.h"
#include "probe_cli.h"
#include "sector_index.h"

/* The colours of serve's page: win, draw, loss. */
static const char *wdl_colour(int wdl)
{
    return wdl > 0 ? "#17803a" : wdl < 0 ? "#c0262d" : "#8a94a2";
}

/* Text content with the five XML special characters escaped. */
static void svg_text(FILE *f, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '&':
            fputs("&amp;", f);
            break;
        case '<':
            fputs("&lt;", f);
            break;
        case '>':
            fputs("&gt;", f);
            break;
        case '"':
            fputs("&quot;", f);
            break;
        case '\'':
            fputs("&apos;", f);
            break;
        default:
            fputc(*s, f);
        }
    }
}

static void svg_open(FILE *f, double w, double h)
{
    fprintf(f,
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
            "viewBox=\"0 0 %.0f %.0f\" font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\">\n",
            w, h, w, h);
}

/* ---------------------------------------------------------------------- */
/* Boards and positions                                                    */
/* ---------------------------------------------------------------------- */

/* Where things go: one grid unit is `cell` pixels (at most 110, the board
 * at most 440 wide), y upwards in the variant, a band for each hand. */
struct geom {
    int minx, maxy;
    double cell, pad, top, band, stone, w, h;
};

static void geom_make(const struct mmtb_variant *v, bool hands, struct geom *g)
{
    int minx = 127, maxx = -128, miny = 127, maxy = -128;
    for (int i = 0; i < v->npoints; i++) {
        minx = v->x[i] < minx ? v->x[i] : minx;
        maxx = v->x[i] > maxx ? v->x[i] : maxx;
        miny = v->y[i] < miny ? v->y[i] : miny;
        maxy = v->y[i] > maxy ? v->y[i] : maxy;
    }
    if (v->npoints == 0)
        minx = maxx = miny = maxy = 0;
    int ext = maxx - minx > maxy - miny ? maxx - minx : maxy - miny;
    g->minx = minx;
    g->maxy = maxy;
    g->cell = fmin(110.0, 440.0 / (ext > 0 ? ext : 1));
    g->pad = 40;
    g->top = 34; /* the caption */
    g->band = hands ? 44 : 0;
    g->stone = fmin(g->cell * 0.3, 26.0);
    g->w = (maxx - minx) * g->cell + 2 * g->pad;
    g->h = g->top + (maxy - miny) * g->cell + 2 * g->pad + 2 * g->band;
}

static double gx(const struct geom *g, const struct mmtb_variant *v, int i)
{
    return g->pad + (v->x[i] - g->minx) * g->cell;
}

static double gy(const struct geom *g, const struct mmtb_variant *v, int i)
{
    return g->top + g->band + g->pad + (g->maxy - v->y[i]) * g->cell;
}

/* The point a move is shown at before any click on serve's page: the
 * stone it removes (a pending removal), the point it places on, or the
 * stone it moves.  -1 for a pass. */
static int move_anchor(const struct mmtb_move *m)
{
    if (m->from < 0 && m->to < 0)
        return m->remove;
    if (m->from == -1)
        return m->to;
    return m->from >= 0 ? m->from : -1;
}

/* "+9" (a win in 9), "-8" (a loss in 8) or "=" (a draw). */
static void short_value(const struct mmtb_value *val, char *buf, size_t len)
{
    if (val->wdl == MMTB_DRAW)
        snprintf(buf, len, "=");
    else
        snprintf(buf, len, "%c%d", val->wdl > 0 ? '+' : '-', val->dtw);
}

/* A row of n stones of colour c in hand, with its label, at height y. */
static void draw_hand(FILE *f, const struct mmtb_pos *p, int c, double y)
{
    fprintf(f, "<text x=\"12\" y=\"%.1f\" font-size=\"13\" fill=\"#3b3024\"%s>%s%s in hand: %d</text>\n",
            y + 5, p->side == c ? " font-weight=\"bold\"" : "", cli_colour_name(c, true),
            p->side == c ? " \xe2\x96\xb6" : "", p->hand[c]);
    for (int i = 0; i < p->hand[c]; i++)
        fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"8\" fill=\"%s\" stroke=\"%s\" stroke-width=\"1.5\"/>\n",
                170.0 + i * 20, y, c == MMTB_WHITE ? "#fbfaf5" : "#26221e",
                c == MMTB_WHITE ? "#5b5142" : "#000");
}

/* The board: its lines, then the points with their names (below left of
 * each point, clear of a stone on it; larger without a position). */
static void draw_board(FILE *f, const struct mmtb_variant *v, const struct geom *g,
                       bool with_pos)
{
    for (int l = 0; l < v->nlines; l++)
        for (int k = 0; k + 1 < v->line_len[l]; k++) {
            int a = v->line[l][k], b = v->line[l][k + 1];
            fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#4a3b28\" stroke-width=\"3\"/>\n",
                    gx(g, v, a), gy(g, v, a), gx(g, v, b), gy(g, v, b));
        }
    for (int i = 0; i < v->npoints; i++) {
        double x = gx(g, v, i), y = gy(g, v, i);
        fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"5\" fill=\"#4a3b28\"/>\n", x, y);
        double off = with_pos ? g->stone : 8;
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"%d\" fill=\"#6d5a40\" text-anchor=\"end\">",
                x - off * 0.7, y + off + 12, with_pos ? 11 : 14);
        svg_text(f, v->point_name[i]);
        fprintf(f, "</text>\n");
    }
}

/* The stones on the board and in both hands. */
static void draw_stones(FILE *f, const struct mmtb_variant *v, const struct geom *g,
                        const struct mmtb_pos *p)
{
    for (int i = 0; i < v->npoints; i++) {
        int c = p->stones[MMTB_WHITE] >> i & 1 ? MMTB_WHITE : p->stones[MMTB_BLACK] >> i & 1 ? MMTB_BLACK : -1;
        if (c < 0)
            continue;
        fprintf(f, "<circle class=\"stone\" data-point=\"");
        svg_text(f, v->point_name[i]);
        fprintf(f, "\" data-colour=\"%s\" cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\" fill=\"%s\" stroke=\"%s\" stroke-width=\"2\"/>\n",
                cli_colour_name(c, false), gx(g, v, i), gy(g, v, i), g->stone,
                c == MMTB_WHITE ? "#fbfaf5" : "#26221e", c == MMTB_WHITE ? "#5b5142" : "#000");
    }
    draw_hand(f, p, MMTB_BLACK, g->top + g->band / 2);
    draw_hand(f, p, MMTB_WHITE, g->h - g->band / 2 - 4);
}

/* Each stone's best move as an arrow (the n moves mv come best first). */
static void draw_arrows(FILE *f, const struct mmtb_variant *v, const struct geom *g,
                        const struct mmtb_move_value *mv, int n)
{
    uint32_t seen = 0;
    for (int k = 0; mv && k < n; k++) {
        const struct mmtb_move *m = &mv[k].move;
        if (m->from < 0 || m->to < 0 || (seen >> m->from & 1))
            continue;
        seen |= 1u << m->from;
        double x1 = gx(g, v, m->from), y1 = gy(g, v, m->from);
        double x2 = gx(g, v, m->to), y2 = gy(g, v, m->to);
        double d = hypot(x2 - x1, y2 - y1), s = d > 0 ? g->stone / d : 0;
        double ex = x2 - (x2 - x1) * s, ey = y2 - (y2 - y1) * s; /* stop at the stone's edge */
        double ax = (x2 - x1) / (d > 0 ? d : 1), ay = (y2 - y1) / (d > 0 ? d : 1);
        fprintf(f, "<g class=\"arrow\" opacity=\"0.75\"><line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"4\"/>",
                x1 + ax * g->stone, y1 + ay * g->stone, ex, ey, wdl_colour(mv[k].value.wdl));
        /* an arrowhead: a triangle at (ex, ey) pointing along (ax, ay) */
        fprintf(f, "<polygon points=\"%.1f,%.1f %.1f,%.1f %.1f,%.1f\" fill=\"%s\"/></g>\n", ex, ey,
                ex - ax * 12 - ay * 6, ey - ay * 12 + ax * 6, ex - ax * 12 + ay * 6,
                ey - ay * 12 - ax * 6, wdl_colour(mv[k].value.wdl));
    }
}

/* Marks: the best value through each point a first click may choose. */
static void draw_marks(FILE *f, const struct mmtb_variant *v, const struct geom *g,
                       const struct mmtb_pos *p, const struct mmtb_move_value *mv, int n)
{
    char vb[64];
    uint32_t seen = 0;
    for (int k = 0; mv && k < n; k++) {
        int a = move_anchor(&mv[k].move);
        if (a < 0 || (seen >> a & 1))
            continue;
        seen |= 1u << a;
        bool stone = ((p->stones[0] | p->stones[1]) >> a & 1) != 0;
        bool white = (p->stones[MMTB_WHITE] >> a & 1) != 0;
        const char *col = wdl_colour(mv[k].value.wdl);
        double x = gx(g, v, a), y = gy(g, v, a);
        short_value(&mv[k].value, vb, sizeof vb);
        fprintf(f, "<g class=\"mark\" data-point=\"");
        svg_text(f, v->point_name[a]);
        fprintf(f, "\" data-wdl=\"%s\">", cli_wdl_name(mv[k].value.wdl));
        if (stone)
            fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\" fill=\"none\" stroke=\"%s\" stroke-width=\"5\"/>",
                    x, y, g->stone - 2, col);
        else
            fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\" fill=\"%s\" opacity=\"0.9\"/>", x, y,
                    fmin(g->stone * 0.75, 18.0), col);
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"12\" font-weight=\"bold\" text-anchor=\"middle\" fill=\"%s\">%s</text></g>\n",
                x, y + 4, white ? col : "#fff", vb);
    }
}

enum { LIST_MAX = 32 }; /* moves listed beside the board; the rest are counted */

/* The position's text under the board, and beside it the first nlist
 * moves with their values, best first ("... N more" as the last line
 * when nlist is LIST_MAX + 1). */
static void draw_move_list(FILE *f, const struct mmtb_variant *v, const struct geom *g,
                           const struct mmtb_pos *p, const struct mmtb_move_value *mv, int n,
                           int nlist)
{
    char buf[MMTB_TEXT_MAX], vb[64];
    double lx = g->w + 14, ly = g->top + 24;
    mmtb_pos_format(v, p, buf, sizeof buf);
    fprintf(f, "<text x=\"8\" y=\"%.1f\" font-size=\"12\" fill=\"#6d5a40\">", g->h + 12);
    svg_text(f, buf);
    fprintf(f, "</text>\n");
    if (mv)
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"14\" font-weight=\"bold\" fill=\"#3b3024\">%s</text>\n",
                lx, ly, n ? "Moves, best first" : "Game over");
    for (int k = 0; k < nlist; k++) {
        double y = ly + 22 + 20.0 * k;
        if (k == LIST_MAX) {
            fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"13\" fill=\"#555\">... %d more</text>\n",
                    lx, y, n - LIST_MAX);
            break;
        }
        mmtb_move_format(v, &mv[k].move, buf, sizeof buf);
        cli_format_value(mv[k].value.wdl, mv[k].value.dtw, true, vb, sizeof vb);
        fprintf(f, "<g class=\"move\" data-wdl=\"%s\"><circle cx=\"%.1f\" cy=\"%.1f\" r=\"5\" fill=\"%s\"/>"
                   "<text x=\"%.1f\" y=\"%.1f\" font-size=\"13\" fill=\"#222\">",
                cli_wdl_name(mv[k].value.wdl), lx + 5, y - 4, wdl_colour(mv[k].value.wdl), lx + 16, y);
        svg_text(f, buf);
        fprintf(f, "</text><text x=\"%.1f\" y=\"%.1f\" font-size=\"13\" fill=\"%s\">%s</text></g>\n",
                lx + 130, y, wdl_colour(mv[k].value.wdl), vb);
    }
}

void cli_svg_position(FILE *f, const struct mmtb_variant *v, const struct mmtb_pos *p,
                      const struct mmtb_value *val, const struct mmtb_move_value *mv, int n)
{
    struct geom g;
    char vb[64];
    geom_make(v, p != NULL, &g);
    int nlist = mv ? (n > LIST_MAX ? LIST_MAX + 1 : n) : 0;
    double listw = mv ? 250 : 0;
    /* the caption is about 9.5 pixels a character at 16 pixels bold */
    char caption[256];
    vb[0] = '\0';
    if (p && val)
        cli_format_value(val->wdl, val->dtw, true, vb, sizeof vb);
    snprintf(caption, sizeof caption, "%s%s%s%s%s", v->title, vb[0] ? ": " : "",
             vb[0] ? cli_colour_name(p->side, false) : "", vb[0] ? " to move, " : "", vb);
    double h = fmax(g.h + (p ? 20 : 0), g.top + 40 + 20.0 * nlist + 20);
    svg_open(f, fmax(g.w + listw, 16 + 9.5 * (double)strlen(caption)), h);
    fprintf(f, "<rect width=\"100%%\" height=\"100%%\" fill=\"#f3efe6\"/>\n");
    fprintf(f, "<rect x=\"4\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" rx=\"8\" fill=\"#e2c98f\"/>\n",
            g.top, g.w - 8, g.h - g.top - 4);

    /* caption: the variant, and the value of the position */
    fprintf(f, "<text x=\"8\" y=\"22\" font-size=\"16\" font-weight=\"bold\" fill=\"#3b3024\">");
    svg_text(f, caption);
    fprintf(f, "</text>\n");
    draw_board(f, v, &g, p != NULL);
    if (p) {
        draw_stones(f, v, &g, p);
        draw_arrows(f, v, &g, mv, n);
        draw_marks(f, v, &g, p, mv, n);
        draw_move_list(f, v, &g, p, mv, n, nlist);
    }
    fprintf(f, "</svg>\n");
}

/* ---------------------------------------------------------------------- */
/* Statistics                                                              */
/* ---------------------------------------------------------------------- */

/* Percent with one decimal of a share of a total (0 for an empty total). */
static double pct(uint64_t part, uint64_t total)
{
    return total ? 100.0 * (double)part / (double)total : 0.0;
}

/* A count with thousands separators. */
static void commas(uint64_t x, char *buf, size_t len)
{
    char tmp[32];
    int n = snprintf(tmp, sizeof tmp, "%" PRIu64, x), j = 0;
    for (int i = 0; i < n && (size_t)j + 2 < len; i++) {
        if (i && (n - i) % 3 == 0)
            buf[j++] = ',';
        buf[j++] = tmp[i];
    }
    buf[j] = '\0';
}

/*
 * Count the canonical positions of sector s by value and DTW: win_hist[d]
 * and loss_hist[d] (d <= maxd) grow by the wins and losses in d plies.
 * Reads the sector in chunks through ctx; a packed sector (`mmtb-gen
 * pack`, whose wins' depths are not stored) position by position through
 * mmtb_probe instead.  Returns MMTB_OK or the read's error.
 */
static int count_sector(mmtb_ctx *ctx, const mmtb_index *ix, struct mmtb_sector s, int maxd,
                        uint64_t *win_hist, uint64_t *loss_hist)
{
    enum { CHUNK = 1 << 16 };
    uint64_t slots = mmtb_index_slots(ix, s);
    uint8_t *wdl = malloc(CHUNK);
    uint16_t *dtw = malloc(sizeof *dtw * CHUNK);
    int rc = wdl && dtw ? MMTB_OK : MMTB_ERR_NOMEM;
    struct mmtb_index_iter it;
    mmtb_index_iter_start(&it, ix, s, 0, slots);
    bool packed = false;
    for (uint64_t lo = 0; rc == MMTB_OK && lo < slots; lo += CHUNK) {
        uint64_t cnt = slots - lo < CHUNK ? slots - lo : CHUNK;
        rc = mmtb_tb_read(ctx, s, lo, cnt, wdl, packed ? NULL : dtw);
        if (rc == MMTB_ERR_UNSUPPORTED && !packed) {
            packed = true;
            rc = mmtb_tb_read(ctx, s, lo, cnt, wdl, NULL);
        }
        for (uint64_t i = 0; rc == MMTB_OK && i < cnt; i++) {
            uint64_t slot;
            uint32_t mover, opp;
            bool canonical;
            if (!mmtb_index_iter_next(&it, &slot, &mover, &opp, &canonical))
                break;
            if (!canonical || wdl[i] == 1)
                continue; /* wasted slots, draws */
            int d = dtw[i];
            if (packed) {
                struct mmtb_pos p = {{mover, opp}, {s.w_hand, s.b_hand}, 0, 0, -1, -1, 0};
                struct mmtb_value v;
                rc = mmtb_probe(ctx, &p, &v);
                d = v.dtw;
            }
            if (rc == MMTB_OK && d >= 0 && d <= maxd) /* dtw > maxd cannot be (header) */
                (wdl[i] == 2 ? win_hist : loss_hist)[d]++;
        }
    }
    free(wdl);
    free(dtw);
    return rc;
}

/* What the statistics picture shows: the usable sectors, their totals, and
 * the positions per depth. */
struct stats_pic {
    struct mmtb_sector_info *info; /* the usable sectors, nshow of them */
    int nshow, bad;                /* bad: sectors left out (named on stderr) */
    struct mmtb_sector_stats tot;
    int argwin, argloss;           /* sectors of the longest win and loss, or -1 */
    int maxd;                      /* the largest depth of either */
    uint64_t *win_hist, *loss_hist; /* per depth 0..maxd */
};

/* Read every sector's information; the usable ones go into sp->info (room
 * for all) and its totals, the others are named on stderr. */
static void collect_sectors(const mmtb_tb *tb, const char *cmd, struct stats_pic *sp)
{
    int n = mmtb_tb_sector_count(tb);
    for (int i = 0; i < n; i++) {
        if (mmtb_tb_sector_info(tb, i, &sp->info[sp->nshow]) != MMTB_OK)
            continue;
        struct mmtb_sector_info *in = &sp->info[sp->nshow];
        if (in->status != MMTB_OK) {
            char name[32];
            mmtb_sector_format(in->sector, name, sizeof name);
            cli_error(cmd, "sector %s: %s%s%s", name, mmtb_strerror(in->status),
                      in->detail[0] ? ": " : "", in->detail);
            sp->bad++;
            continue;
        }
        sp->tot.canonical += in->stats.canonical;
        sp->tot.wins += in->stats.wins;
        sp->tot.draws += in->stats.draws;
        sp->tot.losses += in->stats.losses;
        if (in->stats.max_win > sp->tot.max_win)
            sp->tot.max_win = in->stats.max_win, sp->argwin = sp->nshow;
        if (in->stats.max_loss > sp->tot.max_loss)
            sp->tot.max_loss = in->stats.max_loss, sp->argloss = sp->nshow;
        sp->nshow++;
    }
}

/* Count the usable sectors' wins and losses by depth into the histograms
 * (allocated here).  Returns MMTB_OK, or the error that stopped it (named
 * on stderr when a read failed). */
static int count_depths(const mmtb_tb *tb, const char *cmd, struct stats_pic *sp)
{
    const mmtb_index *ix = mmtb_tb_index(tb);
    sp->maxd = sp->tot.max_win > sp->tot.max_loss ? sp->tot.max_win : sp->tot.max_loss;
    if (sp->maxd < 0)
        sp->maxd = 0;
    sp->win_hist = calloc((size_t)sp->maxd + 1, sizeof *sp->win_hist);
    sp->loss_hist = calloc((size_t)sp->maxd + 1, sizeof *sp->loss_hist);
    mmtb_ctx *ctx = NULL;
    int rc = sp->win_hist && sp->loss_hist ? mmtb_ctx_create(&ctx, tb, 0) : MMTB_ERR_NOMEM;
    for (int i = 0; rc == MMTB_OK && i < sp->nshow; i++) {
        rc = count_sector(ctx, ix, sp->info[i].sector, sp->maxd, sp->win_hist, sp->loss_hist);
        if (rc != MMTB_OK) {
            char name[32];
            mmtb_sector_format(sp->info[i].sector, name, sizeof name);
            cli_error(cmd, "sector %s: %s: %s", name, mmtb_strerror(rc), mmtb_ctx_error(ctx));
        }
    }
    mmtb_ctx_free(ctx);
    return rc;
}

/* The picture's layout: a caption, one bar per sector, then the histogram. */
struct stats_layout {
    double left, barw, rowh, top;
    double hist_top, hist_h, binw, width, height;
};

static void stats_layout(const struct stats_pic *sp, struct stats_layout *l)
{
    l->left = 110, l->barw = 420, l->rowh = 16, l->top = 78;
    l->hist_top = l->top + l->rowh * sp->nshow + 70, l->hist_h = 140;
    l->binw = fmax(3.0, fmin(24.0, 600.0 / (sp->maxd + 1)));
    l->width = fmax(l->left + l->barw + 190, l->left + l->binw * (sp->maxd + 1) + 60);
    l->height = l->hist_top + 2 * l->hist_h + 70;
}

/* The caption and the sector bars: each sector's W/D/L shares and its
 * longest win and loss (bold for the longest of all). */
static void draw_sector_bars(FILE *f, const mmtb_tb *tb, const char *dir,
                             const struct stats_pic *sp, const struct stats_layout *l)
{
    const struct mmtb_sector_stats *tot = &sp->tot;
    const double left = l->left, barw = l->barw, rowh = l->rowh, top = l->top;
    char a[32];
    fprintf(f, "<rect width=\"100%%\" height=\"100%%\" fill=\"#fbfaf5\"/>\n");
    fprintf(f, "<text x=\"10\" y=\"24\" font-size=\"17\" font-weight=\"bold\">");
    svg_text(f, mmtb_tb_variant(tb)->title);
    fprintf(f, ": tables in ");
    svg_text(f, dir);
    fprintf(f, "</text>\n");
    commas(tot->canonical, a, sizeof a);
    fprintf(f, "<text x=\"10\" y=\"46\" font-size=\"13\">%d sectors, %s canonical positions: "
               "<tspan fill=\"%s\">%.1f%% wins</tspan>, <tspan fill=\"%s\">%.1f%% draws</tspan>, "
               "<tspan fill=\"%s\">%.1f%% losses</tspan> for the side to move</text>\n",
            sp->nshow, a, wdl_colour(MMTB_WIN), pct(tot->wins, tot->canonical), wdl_colour(MMTB_DRAW),
            pct(tot->draws, tot->canonical), wdl_colour(MMTB_LOSS), pct(tot->losses, tot->canonical));
    fprintf(f, "<text x=\"10\" y=\"%.1f\" font-size=\"12\" fill=\"#555\">sector (side to move first)"
               "</text><text x=\"%.1f\" y=\"%.1f\" font-size=\"12\" fill=\"#555\">longest win / loss</text>\n",
            top - 8, left + barw + 10, top - 8);
    for (int i = 0; i < sp->nshow; i++) {
        const struct mmtb_sector_stats *s = &sp->info[i].stats;
        double y = top + rowh * i, x = left;
        uint64_t part[3] = {s->wins, s->draws, s->losses};
        int val[3] = {MMTB_WIN, MMTB_DRAW, MMTB_LOSS};
        char name[32];
        mmtb_sector_format(sp->info[i].sector, name, sizeof name);
        fprintf(f, "<g class=\"sector\" data-sector=\"%s\" data-wins=\"%" PRIu64 "\" data-draws=\"%" PRIu64
                   "\" data-losses=\"%" PRIu64 "\"><text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" text-anchor=\"end\">%s</text>",
                name, s->wins, s->draws, s->losses, left - 8, y + 11, name);
        for (int k = 0; k < 3; k++) {
            double w = s->canonical ? barw * (double)part[k] / (double)s->canonical : 0;
            if (w > 0)
                fprintf(f, "<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.1f\" fill=\"%s\"/>", x, y + 1,
                        w, rowh - 3, wdl_colour(val[k]));
            x += w;
        }
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\"%s>%d / %d</text></g>\n", left + barw + 10,
                y + 11, i == sp->argwin || i == sp->argloss ? " font-weight=\"bold\"" : "",
                (int)s->max_win, (int)s->max_loss);
    }
}

/* The histogram: wins above the axis, losses below, log scale, the longest
 * win and loss named with their sectors. */
static void draw_histogram(FILE *f, const struct stats_pic *sp, const struct stats_layout *l)
{
    const double left = l->left, hist_top = l->hist_top, hist_h = l->hist_h, binw = l->binw;
    const int maxd = sp->maxd;
    const uint64_t *win_hist = sp->win_hist, *loss_hist = sp->loss_hist;
    char a[32], b[32], c[32], d[32];
    double axis = hist_top + hist_h + 10;
    uint64_t hmax = 1;
    for (int k = 0; k <= maxd; k++) {
        hmax = win_hist[k] > hmax ? win_hist[k] : hmax;
        hmax = loss_hist[k] > hmax ? loss_hist[k] : hmax;
    }
    /* bar height = hist_h * log10(1 + count) / log10(1 + hmax) */
    double scale = hist_h / log10(1.0 + (double)hmax);
    fprintf(f, "<text x=\"10\" y=\"%.1f\" font-size=\"14\" font-weight=\"bold\">Depth to win "
               "(plies), canonical positions per depth, log scale</text>\n",
            hist_top - 22);
    commas(hmax, a, sizeof a);
    fprintf(f, "<text x=\"10\" y=\"%.1f\" font-size=\"11\" fill=\"%s\">wins</text>"
               "<text x=\"10\" y=\"%.1f\" font-size=\"11\" fill=\"%s\">losses</text>"
               "<text x=\"10\" y=\"%.1f\" font-size=\"10\" fill=\"#555\">top: %s</text>\n",
            hist_top + 12, wdl_colour(MMTB_WIN), axis + hist_h, wdl_colour(MMTB_LOSS), hist_top + 26, a);
    for (int k = 0; k <= maxd; k++) {
        double x = left + binw * k;
        double hw = scale * log10(1.0 + (double)win_hist[k]);
        double hl = scale * log10(1.0 + (double)loss_hist[k]);
        if (win_hist[k])
            fprintf(f, "<rect class=\"win\" data-dtw=\"%d\" data-count=\"%" PRIu64 "\" x=\"%.2f\" y=\"%.2f\" "
                       "width=\"%.2f\" height=\"%.2f\" fill=\"%s\"/>\n",
                    k, win_hist[k], x, axis - hw, binw * 0.85, hw, wdl_colour(MMTB_WIN));
        if (loss_hist[k])
            fprintf(f, "<rect class=\"loss\" data-dtw=\"%d\" data-count=\"%" PRIu64 "\" x=\"%.2f\" y=\"%.2f\" "
                       "width=\"%.2f\" height=\"%.2f\" fill=\"%s\"/>\n",
                    k, loss_hist[k], x, axis + 1, binw * 0.85, hl, wdl_colour(MMTB_LOSS));
    }
    fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#333\"/>\n", left - 4, axis + 0.5,
            left + binw * (maxd + 1), axis + 0.5);
    int step = maxd > 100 ? 20 : maxd > 40 ? 10 : maxd > 15 ? 5 : 1;
    for (int k = 0; k <= maxd; k += step)
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"10\" text-anchor=\"middle\" fill=\"#555\">%d</text>\n",
                left + binw * (k + 0.42), axis + hist_h + 22, k);
    /* the longest win and loss stand out: named with their sectors */
    const struct mmtb_sector_stats *tot = &sp->tot;
    if (sp->argwin >= 0 && tot->max_win >= 0) {
        mmtb_sector_format(sp->info[sp->argwin].sector, b, sizeof b);
        commas(win_hist[tot->max_win], c, sizeof c);
        double x = left + binw * tot->max_win + binw / 2;
        fprintf(f, "<text class=\"longest-win\" x=\"%.1f\" y=\"%.1f\" font-size=\"12\" font-weight=\"bold\" "
                   "fill=\"%s\" text-anchor=\"%s\">longest win: %d plies (%s, sector %s)</text>\n",
                x, hist_top + 4, wdl_colour(MMTB_WIN), x > l->width / 2 ? "end" : "start", tot->max_win, c, b);
    }
    if (sp->argloss >= 0 && tot->max_loss >= 0) {
        mmtb_sector_format(sp->info[sp->argloss].sector, b, sizeof b);
        commas(loss_hist[tot->max_loss], d, sizeof d);
        double x = left + binw * tot->max_loss + binw / 2;
        fprintf(f, "<text class=\"longest-loss\" x=\"%.1f\" y=\"%.1f\" font-size=\"12\" font-weight=\"bold\" "
                   "fill=\"%s\" text-anchor=\"%s\">longest loss: %d plies (%s, sector %s)</text>\n",
                x, axis + hist_h + 40, wdl_colour(MMTB_LOSS), x > l->width / 2 ? "end" : "start", tot->max_loss, d, b);
    }
}

int cli_svg_stats(FILE *f, const mmtb_tb *tb, const char *dir, const char *cmd)
{
    int n = mmtb_tb_sector_count(tb);
    struct stats_pic sp = {.tot = {0, 0, 0, 0, 0, -1, -1}, .argwin = -1, .argloss = -1};
    sp.info = calloc((size_t)(n > 0 ? n : 1), sizeof *sp.info);
    if (!sp.info)
        return MMTB_ERR_NOMEM;
    collect_sectors(tb, cmd, &sp);
    int rc = count_depths(tb, cmd, &sp);
    if (rc == MMTB_OK) {
        struct stats_layout l;
        stats_layout(&sp, &l);
        svg_open(f, l.width, l.height);
        draw_sector_bars(f, tb, dir, &sp, &l);
        draw_histogram(f, &sp, &l);
        fprintf(f, "</svg>\n");
    }
    free(sp.win_hist);
    free(sp.loss_hist);
    free(sp.info);
    return rc != MMTB_OK ? rc : sp.bad ? MMTB_ERR_MISSING : MMTB_OK;
}
