/*
 * cli_serve.c - the `serve` subcommand: the tables behind an HTTP API
 * (/api/probe, /api/stats, /api/variant) and the board page (web/board.html,
 * embedded at build time) on libmicrohttpd's thread pool.  One mmtb_tb
 * handle is shared; each request borrows a probe context from a pool, so no
 * two threads ever use one context.  Built only when libmicrohttpd was found
 * (MMTB_HAVE_MHD); otherwise the command says so.  Depends on mmtb.h,
 * format/ and libmicrohttpd.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "probe_cli.h"

static const char serve_help[] =
    "Usage: mmtb-probe serve -t DIR [--port N] [--bind ADDR] [--threads N] [--verbose]\n"
    "\n"
    "Serve the tables in DIR over HTTP: a JSON API and a page that draws the\n"
    "board and shows the value of every move (open http://ADDR:PORT/).\n"
    "\n"
    "Endpoints (GET or HEAD; every answer carries Access-Control-Allow-Origin: *):\n"
    "  /                          the board page (HTML, SVG, JavaScript; no\n"
    "                             external resources)\n"
    "  /api/probe?position=POS    value of POS (either notation, URL-encoded)\n"
    "                             and of every move, best first; &pv=N adds a\n"
    "                             principal variation of at most N plies\n"
    "  /api/stats                 per-sector statistics (as stats --json)\n"
    "  /api/variant               the board and the rules of the tables' variant\n"
    "Status codes: 200; 400 bad or missing position; 404 a position outside the\n"
    "tables or an unknown path; 405 a method other than GET and HEAD; 414 a\n"
    "request line or position over the size limit; 500 a damaged table.\n"
    "Errors are JSON: {\"error\": MESSAGE}.  Details: docs/CLI.md.\n"
    "\n"
    "Options:\n"
    "  -t, --tables DIR   table directory (required)\n"
    "  -p, --port N       TCP port, 0..65535 (default 8080; 0: any free port)\n"
    "  -b, --bind ADDR    IPv4 or IPv6 address to listen on (default 127.0.0.1)\n"
    "  -n, --threads N    worker threads, 1..64 (default 4)\n"
    "      --verbose      one line per request on standard error\n"
    "  -h, --help         show this help\n"
    "\n"
    "Once listening it prints 'listening on http://ADDR:PORT/' on standard\n"
    "output; SIGINT or SIGTERM stops it cleanly (exit 0).\n"
#ifndef MMTB_HAVE_MHD
    "\n"
    "This build has no HTTP server: libmicrohttpd was not found when it was\n"
    "built (install libmicrohttpd-dev, e.g. with scripts/setup, and rebuild).\n"
#endif
    "\n"
    "Exit codes: 0 stopped by a signal; 1 bad usage, cannot listen, or no\n"
    "HTTP server in this build; 2 the tables cannot be opened.\n";

#ifndef MMTB_HAVE_MHD

/* Without libmicrohttpd: only the help, and an error for anything else. */
int cli_cmd_serve(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            fputs(serve_help, stdout);
            return CLI_EXIT_OK;
        }
    cli_error(argv[0], "this build has no HTTP server: libmicrohttpd was not found when it "
                       "was built (install libmicrohttpd-dev and rebuild)");
    return CLI_EXIT_INPUT;
}

#else

#include <arpa/inet.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <sys/socket.h>

#include "mmtb_integrity.h"
#include "movegen.h"
#include "sector_index.h"

/* The page, from web/board.html (generated serve_page.c). */
extern const char cli_serve_page[];
extern const size_t cli_serve_page_len;

/* Limits: the bytes MHD may use per connection (the request line and the
 * headers must fit, else MHD answers 414 or 431 itself), the longest
 * position text accepted, the longest principal variation served. */
#define SERVE_CONN_MEMORY (16u * 1024u)
#define SERVE_MAX_POSITION 1024
#define SERVE_MAX_PV 200
#define SERVE_MAX_CONNECTIONS 256u
#define SERVE_TIMEOUT_S 30u

/* A probe context with the scratch space one request needs; kept in a
 * free list between requests. */
struct worker {
    mmtb_ctx *ctx;
    struct mmtb_move_value *mv; /* MMTB_MAX_MOVES */
    struct mmtb_move *pv;       /* SERVE_MAX_PV */
    struct worker *next;
};

struct server {
    mmtb_tb *tb;
    const struct mmtb_variant *v;
    bool verbose;
    pthread_mutex_t lock; /* guards free_list and all */
    struct worker *free_list;
    struct worker **all; /* every worker created, to free at the end */
    int nall, capall;
};

/* ---------------------------------------------------------------------- */
/* The context pool                                                        */
/* ---------------------------------------------------------------------- */

static void worker_free(struct worker *w)
{
    if (!w)
        return;
    mmtb_ctx_free(w->ctx);
    free(w->mv);
    free(w->pv);
    free(w);
}

/* Take a free worker, or make a new one (at most one per concurrent
 * request, so at most one per MHD thread).  NULL when out of memory. */
static struct worker *worker_get(struct server *s)
{
    pthread_mutex_lock(&s->lock);
    struct worker *w = s->free_list;
    if (w)
        s->free_list = w->next;
    pthread_mutex_unlock(&s->lock);
    if (w)
        return w;

    w = calloc(1, sizeof *w);
    if (!w)
        return NULL;
    w->mv = malloc(sizeof *w->mv * MMTB_MAX_MOVES);
    w->pv = malloc(sizeof *w->pv * SERVE_MAX_PV);
    if (!w->mv || !w->pv || mmtb_ctx_create(&w->ctx, s->tb, 0) != MMTB_OK) {
        worker_free(w);
        return NULL;
    }
    pthread_mutex_lock(&s->lock);
    if (s->nall == s->capall) {
        int cap = s->capall ? 2 * s->capall : 16;
        struct worker **a = realloc(s->all, sizeof *a * (size_t)cap);
        if (!a) {
            pthread_mutex_unlock(&s->lock);
            worker_free(w);
            return NULL;
        }
        s->all = a;
        s->capall = cap;
    }
    s->all[s->nall++] = w;
    pthread_mutex_unlock(&s->lock);
    return w;
}

static void worker_put(struct server *s, struct worker *w)
{
    pthread_mutex_lock(&s->lock);
    w->next = s->free_list;
    s->free_list = w;
    pthread_mutex_unlock(&s->lock);
}

/* ---------------------------------------------------------------------- */
/* Responses                                                              */
/* ---------------------------------------------------------------------- */

/* A response body being written (open_memstream). */
struct body {
    FILE *f;
    char *buf;
    size_t len;
};

static bool body_open(struct body *b)
{
    b->buf = NULL;
    b->len = 0;
    b->f = open_memstream(&b->buf, &b->len);
    return b->f != NULL;
}

/* Queue a response with the given status and content type; takes the
 * malloc'd data (NULL with len 0 for an empty body). */
static enum MHD_Result send_buffer(struct server *s, struct MHD_Connection *conn,
                                   const char *method, const char *url, unsigned status,
                                   const char *type, char *data, size_t len, bool persistent)
{
    struct MHD_Response *r = MHD_create_response_from_buffer(
        len, data, persistent ? MHD_RESPMEM_PERSISTENT : MHD_RESPMEM_MUST_FREE);
    if (!r) {
        if (!persistent)
            free(data);
        return MHD_NO;
    }
    MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
    MHD_add_response_header(r, MHD_HTTP_HEADER_ACCESS_CONTROL_ALLOW_ORIGIN, "*");
    MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
    if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
        MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
    enum MHD_Result ret = MHD_queue_response(conn, status, r);
    MHD_destroy_response(r);
    if (s->verbose)
        fprintf(stderr, "%s %s %s -> %u (%zu bytes)\n", CLI_PROG, method, url, status, len);
    return ret;
}

/* Finish a JSON body and queue it. */
static enum MHD_Result send_json(struct server *s, struct MHD_Connection *conn,
                                 const char *method, const char *url, unsigned status,
                                 struct body *b)
{
    fputc('\n', b->f);
    if (fclose(b->f) != 0) {
        free(b->buf);
        return MHD_NO;
    }
    return send_buffer(s, conn, method, url, status, "application/json", b->buf, b->len, false);
}

/* Copy text for a JSON string, bytes outside printable ASCII replaced by
 * '?' (a request may carry any bytes; the JSON must stay valid UTF-8), at
 * most 100 characters of it followed by "...". */
static void sanitize(const char *in, char *out, size_t len)
{
    size_t i = 0;
    for (; in[i] && i + 4 < len && i < 100; i++)
        out[i] = (unsigned char)in[i] >= 0x20 && (unsigned char)in[i] < 0x7f ? in[i] : '?';
    if (in[i] && i + 4 <= len) {
        memcpy(out + i, "...", 3);
        i += 3;
    }
    out[i] = '\0';
}

/* Queue {"error": MESSAGE}. */
static enum MHD_Result send_error(struct server *s, struct MHD_Connection *conn,
                                  const char *method, const char *url, unsigned status,
                                  const char *fmt, ...) __attribute__((format(printf, 6, 7)));
static enum MHD_Result send_error(struct server *s, struct MHD_Connection *conn,
                                  const char *method, const char *url, unsigned status,
                                  const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    struct body b;
    if (!body_open(&b))
        return MHD_NO;
    fputs("{\"error\":", b.f);
    cli_json_str(b.f, msg);
    fputs("}", b.f);
    return send_json(s, conn, method, url, status, &b);
}

/* ---------------------------------------------------------------------- */
/* /api/probe                                                              */
/* ---------------------------------------------------------------------- */

/* Write a value's "wdl" and "dtw" members (dtw null for a draw). */
static void json_value_members(FILE *f, const struct mmtb_value *val)
{
    fprintf(f, "\"wdl\":\"%s\",\"dtw\":", cli_wdl_name(val->wdl));
    if (val->wdl == MMTB_DRAW)
        fputs("null", f);
    else
        fprintf(f, "%d", val->dtw);
}

/* A point's name as a JSON string, or null for -1 (none). */
static void json_point(FILE *f, const struct mmtb_variant *v, int pt)
{
    if (pt < 0 || pt >= v->npoints)
        fputs("null", f);
    else
        cli_json_str(f, v->point_name[pt]);
}

/* A mask's points as a JSON array of names. */
static void json_points(FILE *f, const struct mmtb_variant *v, uint32_t mask)
{
    fputc('[', f);
    bool first = true;
    for (int i = 0; i < v->npoints; i++)
        if (mask >> i & 1) {
            fputs(first ? "" : ",", f);
            cli_json_str(f, v->point_name[i]);
            first = false;
        }
    fputc(']', f);
}

/*
 * The probe answer: position (simple form), fen (24-point boards, else
 * null), side, the stones (white, black, white_hand, black_hand, remove),
 * wdl, dtw, game_over, moves best first (move, wdl, dtw, from, to, remove,
 * after), pv when asked for, variant and fingerprint.
 */
static void write_probe(FILE *f, const struct server *s, const struct mmtb_pos *p,
                        const struct mmtb_value *val, const struct mmtb_move_value *mv, int n,
                        const struct mmtb_move *pv, int npv)
{
    const struct mmtb_variant *v = s->v;
    char buf[MMTB_TEXT_MAX];
    mmtb_pos_format(v, p, buf, sizeof buf);
    fputs("{\"position\":", f);
    cli_json_str(f, buf);
    fputs(",\"fen\":", f);
    if (mmtb_fen_supported(v) && mmtb_pos_format_fen(v, p, buf, sizeof buf) >= 0)
        cli_json_str(f, buf);
    else
        fputs("null", f);
    fprintf(f, ",\"side\":\"%s\",\"white\":", cli_colour_name(p->side, false));
    json_points(f, v, p->stones[MMTB_WHITE]);
    fputs(",\"black\":", f);
    json_points(f, v, p->stones[MMTB_BLACK]);
    fprintf(f, ",\"white_hand\":%d,\"black_hand\":%d,\"remove\":%d,", p->hand[MMTB_WHITE],
            p->hand[MMTB_BLACK], p->remove);
    json_value_members(f, val);
    int term = mmtb_pos_terminal(v, p);
    fprintf(f, ",\"game_over\":%s",
            term == MMTB_LOSS ? "\"loss\"" : term == MMTB_DRAW ? "\"draw\"" : "null");
    fputs(",\"moves\":[", f);
    for (int i = 0; i < n; i++) {
        struct mmtb_pos q;
        mmtb_move_format(v, &mv[i].move, buf, sizeof buf);
        fputs(i ? ",{\"move\":" : "{\"move\":", f);
        cli_json_str(f, buf);
        fputc(',', f);
        json_value_members(f, &mv[i].value);
        fputs(",\"from\":", f);
        json_point(f, v, mv[i].move.from);
        fputs(",\"to\":", f);
        json_point(f, v, mv[i].move.to);
        fputs(",\"remove\":", f);
        json_point(f, v, mv[i].move.remove);
        mmtb_pos_apply(v, p, &mv[i].move, &q);
        mmtb_pos_format(v, &q, buf, sizeof buf);
        fputs(",\"after\":", f);
        cli_json_str(f, buf);
        fputc('}', f);
    }
    fputc(']', f);
    if (pv) {
        fputs(",\"pv\":[", f);
        for (int i = 0; i < npv; i++) {
            mmtb_move_format(v, &pv[i], buf, sizeof buf);
            fputs(i ? "," : "", f);
            cli_json_str(f, buf);
        }
        fputc(']', f);
    }
    fputs(",\"variant\":", f);
    cli_json_str(f, v->name);
    fprintf(f, ",\"fingerprint\":\"%016" PRIx64 "\"}", v->fingerprint);
}

/* Why a probe of p failed with a missing or foreign sector: p's own sector
 * or, when that one is present, a position it leads to. */
static void outside_message(const struct server *s, const struct mmtb_pos *p, char *msg,
                            size_t len)
{
    struct mmtb_sector_stats st;
    char name[32];
    if (mmtb_pos_terminal(s->v, p) == MMTB_NOT_TERMINAL && p->remove == 0) {
        struct mmtb_sector sec = mmtb_pos_sector(p);
        if (mmtb_tb_sector_stats(s->tb, sec, &st) != MMTB_OK) {
            mmtb_sector_format(sec, name, sizeof name);
            snprintf(msg, len, "position outside the tables: sector %s is not in them", name);
            return;
        }
    }
    snprintf(msg, len, "position outside the tables: a position it leads to is in a sector "
                       "that is not in them");
}

static enum MHD_Result api_probe(struct server *s, struct MHD_Connection *conn,
                                 const char *method, const char *url)
{
    const char *given = MHD_lookup_connection_value(conn, MHD_GET_ARGUMENT_KIND, "position");
    const char *pvarg = MHD_lookup_connection_value(conn, MHD_GET_ARGUMENT_KIND, "pv");
    char q[160], err[256] = "";
    long pvmax = 0;
    if (!given || !given[0])
        return send_error(s, conn, method, url, MHD_HTTP_BAD_REQUEST,
                          "missing parameter 'position' (/api/probe?position=POSITION)");
    if (strlen(given) > SERVE_MAX_POSITION)
        return send_error(s, conn, method, url, MHD_HTTP_URI_TOO_LONG,
                          "position too long: %zu bytes (at most %d)", strlen(given),
                          SERVE_MAX_POSITION);
    if (pvarg && !cli_parse_long(pvarg, 0, SERVE_MAX_PV, &pvmax)) {
        sanitize(pvarg, q, sizeof q);
        return send_error(s, conn, method, url, MHD_HTTP_BAD_REQUEST,
                          "bad parameter pv '%s': expected 0..%d", q, SERVE_MAX_PV);
    }
    struct mmtb_pos p;
    int rc = mmtb_pos_parse(s->v, given, &p, err, sizeof err);
    if (rc != MMTB_OK) {
        char e2[256];
        sanitize(given, q, sizeof q);
        sanitize(err[0] ? err : mmtb_strerror(rc), e2, sizeof e2);
        return send_error(s, conn, method, url, MHD_HTTP_BAD_REQUEST, "bad position '%s': %s",
                          q, e2);
    }

    struct worker *w = worker_get(s);
    if (!w)
        return send_error(s, conn, method, url, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory");
    struct mmtb_value val = {MMTB_DRAW, -1};
    int n, npv = 0;
    rc = mmtb_probe(w->ctx, &p, &val);
    n = rc == MMTB_OK ? mmtb_probe_moves(w->ctx, &p, w->mv, MMTB_MAX_MOVES) : rc;
    if (n >= 0 && pvarg) {
        /* a drawn line goes on for ever: at most 20 plies of it */
        int cap = val.wdl == MMTB_DRAW && pvmax > 20 ? 20 : (int)pvmax;
        npv = cap > 0 ? mmtb_probe_pv(w->ctx, &p, w->pv, cap) : 0;
        if (npv < 0)
            n = npv;
    }
    enum MHD_Result ret;
    if (n < 0) {
        char msg[300];
        unsigned status;
        if (n == MMTB_ERR_NOT_IN_GAME || n == MMTB_ERR_MISSING) {
            outside_message(s, &p, msg, sizeof msg);
            status = MHD_HTTP_NOT_FOUND;
        } else if (n == MMTB_ERR_INVALID || n == MMTB_ERR_PARSE || n == MMTB_ERR_UNSUPPORTED) {
            snprintf(msg, sizeof msg, "position not answered: %s", mmtb_strerror(n));
            status = n == MMTB_ERR_UNSUPPORTED ? MHD_HTTP_NOT_FOUND : MHD_HTTP_BAD_REQUEST;
        } else {
            /* a damaged or unreadable table: named on the server's side */
            cli_error("serve", "%s: %s", mmtb_strerror(n), mmtb_ctx_error(w->ctx));
            snprintf(msg, sizeof msg, "the tables cannot answer: %s", mmtb_strerror(n));
            status = MHD_HTTP_INTERNAL_SERVER_ERROR;
        }
        worker_put(s, w);
        return send_error(s, conn, method, url, status, "%s", msg);
    }
    if (n > MMTB_MAX_MOVES)
        n = MMTB_MAX_MOVES;
    struct body b;
    if (!body_open(&b)) {
        worker_put(s, w);
        return MHD_NO;
    }
    write_probe(b.f, s, &p, &val, w->mv, n, pvarg ? w->pv : NULL, npv);
    worker_put(s, w);
    ret = send_json(s, conn, method, url, MHD_HTTP_OK, &b);
    return ret;
}

/* ---------------------------------------------------------------------- */
/* /api/stats and /api/variant                                            */
/* ---------------------------------------------------------------------- */

/* {"variant", "fingerprint", "sectors": [stats --json rows], "unusable":
 * [names of sectors without a usable file]}. */
static enum MHD_Result api_stats(struct server *s, struct MHD_Connection *conn,
                                 const char *method, const char *url)
{
    struct body b;
    if (!body_open(&b))
        return MHD_NO;
    int n = mmtb_tb_sector_count(s->tb), shown = 0, bad = 0;
    fputs("{\"variant\":", b.f);
    cli_json_str(b.f, s->v->name);
    fprintf(b.f, ",\"fingerprint\":\"%016" PRIx64 "\",\"sectors\":[", s->v->fingerprint);
    for (int pass = 0; pass < 2; pass++) {
        /* pass 0: the usable sectors' rows; pass 1: the others' names */
        for (int i = 0; i < n; i++) {
            struct mmtb_sector_info info;
            char name[32];
            if (mmtb_tb_sector_info(s->tb, i, &info) != MMTB_OK ||
                (info.status == MMTB_OK) != (pass == 0))
                continue;
            if (pass == 0) {
                fputs(shown++ ? ",\n" : "\n", b.f);
                cli_stats_json_row(b.f, &info);
            } else {
                mmtb_sector_format(info.sector, name, sizeof name);
                fputs(bad++ ? "," : "", b.f);
                cli_json_str(b.f, name);
            }
        }
        fputs(pass == 0 ? "],\"unusable\":[" : "]}", b.f);
    }
    return send_json(s, conn, method, url, MHD_HTTP_OK, &b);
}

static const char *removal_name(int r)
{
    return r == MMTB_REMOVE_ANY ? "any" : r == MMTB_REMOVE_IMMUNE ? "immune" : "standard";
}

/* The start the tables hold: the empty board with the most stones in hand
 * whose sector the manifest lists (a directory solved `--start 4,4` holds
 * `- - w 4 4`), else the variant's own start (movement-only tables, where
 * the page asks for a position). */
static void tables_start(const struct server *s, struct mmtb_pos *p)
{
    mmtb_pos_start(s->v, p);
    for (int h = s->v->stones; h > 0; h--) {
        struct mmtb_sector e = {0, 0, (uint8_t)h, (uint8_t)h};
        if (mmtb_tb_sector_find(s->tb, e) >= 0) {
            p->hand[0] = p->hand[1] = (uint8_t)h;
            return;
        }
    }
}

/*
 * The variant as the page needs it to draw and explain the board: name,
 * title, fingerprint, points [{name, x, y}] (descriptor order, y upwards),
 * lines and mills (arrays of point names, in line order), the rule flags,
 * fen (whether FEN applies) and start (the start the tables hold).
 */
static enum MHD_Result api_variant(struct server *s, struct MHD_Connection *conn,
                                   const char *method, const char *url)
{
    const struct mmtb_variant *v = s->v;
    struct body b;
    char buf[MMTB_TEXT_MAX];
    if (!body_open(&b))
        return MHD_NO;
    FILE *f = b.f;
    fputs("{\"name\":", f);
    cli_json_str(f, v->name);
    fputs(",\"title\":", f);
    cli_json_str(f, v->title);
    fprintf(f, ",\"fingerprint\":\"%016" PRIx64 "\",\"points\":[", v->fingerprint);
    for (int i = 0; i < v->npoints; i++) {
        fputs(i ? ",{\"name\":" : "{\"name\":", f);
        cli_json_str(f, v->point_name[i]);
        fprintf(f, ",\"x\":%d,\"y\":%d}", v->x[i], v->y[i]);
    }
    fputs("],\"lines\":[", f);
    for (int l = 0; l < v->nlines; l++) {
        fputs(l ? ",[" : "[", f);
        for (int k = 0; k < v->line_len[l]; k++) {
            fputs(k ? "," : "", f);
            cli_json_str(f, v->point_name[v->line[l][k]]);
        }
        fputc(']', f);
    }
    fputs("],\"mills\":[", f);
    for (int m = 0; m < v->nmills; m++) {
        fputs(m ? "," : "", f);
        json_points(f, v, v->mill[m]);
    }
    struct mmtb_pos start;
    tables_start(s, &start);
    mmtb_pos_format(v, &start, buf, sizeof buf);
    fprintf(f,
            "],\"stones\":%d,\"fly\":%d,\"min_stones\":%d,\"removal\":\"%s\","
            "\"place_captures\":%s,\"first_mill_wins\":%s,\"nomove\":\"%s\","
            "\"full_board_draw\":%s,\"place_or_move\":%s,\"no_reclose\":%s,\"fen\":%s,"
            "\"start\":",
            v->stones, v->fly, v->min_stones, removal_name(v->removal),
            v->place_captures ? "true" : "false", v->first_mill_wins ? "true" : "false",
            v->nomove == MMTB_NOMOVE_PASSES ? "passes" : "loses",
            v->full_board_draw ? "true" : "false", v->place_or_move ? "true" : "false",
            v->no_reclose ? "true" : "false", mmtb_fen_supported(v) ? "true" : "false");
    cli_json_str(f, buf);
    fputc('}', f);
    return send_json(s, conn, method, url, MHD_HTTP_OK, &b);
}

/* ---------------------------------------------------------------------- */
/* The request handler and the daemon                                      */
/* ---------------------------------------------------------------------- */

/* MHD's access handler: called once per request here (GET and HEAD carry
 * no body; anything else is refused before its body is read). */
static enum MHD_Result handle(void *cls, struct MHD_Connection *conn, const char *url,
                              const char *method, const char *version, const char *upload_data,
                              size_t *upload_data_size, void **con_cls)
{
    struct server *s = cls;
    (void)version;
    (void)upload_data;
    (void)con_cls;
    if (strcmp(method, MHD_HTTP_METHOD_GET) != 0 && strcmp(method, MHD_HTTP_METHOD_HEAD) != 0)
        return send_error(s, conn, method, url, MHD_HTTP_METHOD_NOT_ALLOWED,
                          "method not allowed: only GET and HEAD");
    if (*upload_data_size != 0)
        return send_error(s, conn, method, url, MHD_HTTP_BAD_REQUEST, "a GET takes no body");
    if (strcmp(url, "/") == 0 || strcmp(url, "/index.html") == 0)
        return send_buffer(s, conn, method, url, MHD_HTTP_OK, "text/html; charset=utf-8",
                           (char *)cli_serve_page, cli_serve_page_len, true);
    if (strcmp(url, "/api/probe") == 0)
        return api_probe(s, conn, method, url);
    if (strcmp(url, "/api/stats") == 0)
        return api_stats(s, conn, method, url);
    if (strcmp(url, "/api/variant") == 0)
        return api_variant(s, conn, method, url);
    char q[160];
    sanitize(url, q, sizeof q);
    return send_error(s, conn, method, url, MHD_HTTP_NOT_FOUND,
                      "no such path '%s' (/, /api/probe, /api/stats, /api/variant)", q);
}

/* MHD's own error messages (cannot bind, out of memory, ...), only with
 * --verbose: a client that misbehaves must not fill the log. */
static void mhd_log(void *cls, const char *fmt, va_list ap)
{
    const struct server *s = cls;
    if (!s->verbose)
        return;
    fprintf(stderr, "%s serve: libmicrohttpd: ", CLI_PROG);
    vfprintf(stderr, fmt, ap);
}

/* Parse ADDR (IPv4 or IPv6) and PORT into *ss; false if ADDR is neither. */
static bool make_addr(const char *addr, int port, struct sockaddr_storage *ss, bool *v6)
{
    memset(ss, 0, sizeof *ss);
    struct sockaddr_in *a4 = (struct sockaddr_in *)ss;
    struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)ss;
    if (inet_pton(AF_INET, addr, &a4->sin_addr) == 1) {
        a4->sin_family = AF_INET;
        a4->sin_port = htons((uint16_t)port);
        *v6 = false;
        return true;
    }
    if (inet_pton(AF_INET6, addr, &a6->sin6_addr) == 1) {
        a6->sin6_family = AF_INET6;
        a6->sin6_port = htons((uint16_t)port);
        *v6 = true;
        return true;
    }
    return false;
}

int cli_cmd_serve(int argc, char **argv)
{
    enum { O_TABLES = 1, O_PORT, O_BIND, O_THREADS, O_VERBOSE, O_HELP };
    static const struct cli_opt opts[] = {{"tables", 't', true, O_TABLES},
                                          {"port", 'p', true, O_PORT},
                                          {"bind", 'b', true, O_BIND},
                                          {"threads", 'n', true, O_THREADS},
                                          {"verbose", 0, false, O_VERBOSE},
                                          {"help", 'h', false, O_HELP},
                                          {NULL, 0, false, 0}};
    struct cli_parser ps;
    const char *arg, *dir = NULL, *bind_addr = "127.0.0.1";
    long port = 8080, threads = 4;
    bool verbose = false;
    int id;

    cli_parser_init(&ps, argc, argv);
    while ((id = cli_next(&ps, opts, &arg)) != CLI_END) {
        switch (id) {
        case CLI_BAD:
            return CLI_EXIT_INPUT;
        case O_TABLES:
            dir = arg;
            break;
        case O_PORT:
            if (!cli_parse_long(arg, 0, 65535, &port))
                return cli_usage_error(ps.cmd, "bad --port '%s' (0..65535)", arg);
            break;
        case O_BIND:
            bind_addr = arg;
            break;
        case O_THREADS:
            if (!cli_parse_long(arg, 1, 64, &threads))
                return cli_usage_error(ps.cmd, "bad --threads '%s' (1..64)", arg);
            break;
        case O_VERBOSE:
            verbose = true;
            break;
        case O_HELP:
            fputs(serve_help, stdout);
            return CLI_EXIT_OK;
        default:
            return cli_usage_error(ps.cmd, "unexpected argument '%s'", arg);
        }
    }
    if (!dir)
        return cli_usage_error(ps.cmd, "missing -t DIR (the table directory)");
    struct sockaddr_storage ss;
    bool v6;
    if (!make_addr(bind_addr, (int)port, &ss, &v6))
        return cli_usage_error(ps.cmd, "bad --bind '%s' (an IPv4 or IPv6 address)", bind_addr);

    struct server s = {0};
    s.verbose = verbose;
    if (!cli_open_tables(ps.cmd, dir, &s.tb, NULL))
        return CLI_EXIT_TABLE;
    s.v = mmtb_tb_variant(s.tb);
    pthread_mutex_init(&s.lock, NULL);

    /* SIGINT and SIGTERM are blocked in every thread (MHD's threads inherit
     * the mask) and taken by sigwait below; SIGPIPE is ignored. */
    sigset_t stop;
    sigemptyset(&stop);
    sigaddset(&stop, SIGINT);
    sigaddset(&stop, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &stop, NULL);
    signal(SIGPIPE, SIG_IGN);

    int ret = CLI_EXIT_OK;
    unsigned flags = MHD_USE_AUTO | MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ERROR_LOG |
                     (v6 ? MHD_USE_IPv6 : 0);
    struct MHD_Daemon *d = MHD_start_daemon(
        flags, (uint16_t)port, NULL, NULL, handle, &s, MHD_OPTION_EXTERNAL_LOGGER, mhd_log, &s,
        MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&ss, MHD_OPTION_THREAD_POOL_SIZE,
        (unsigned)threads, MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)SERVE_CONN_MEMORY,
        MHD_OPTION_CONNECTION_LIMIT, SERVE_MAX_CONNECTIONS, MHD_OPTION_CONNECTION_TIMEOUT,
        SERVE_TIMEOUT_S, MHD_OPTION_END);
    if (!d) {
        cli_error(ps.cmd, "cannot listen on %s port %ld: %s", bind_addr, port,
                  errno ? strerror(errno) : "libmicrohttpd could not start");
        ret = CLI_EXIT_INPUT;
        goto out;
    }
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
    int bound = info ? (int)info->port : (int)port;
    printf("%s serve: %s (%s), listening on http://%s%s%s:%d/\n", CLI_PROG, s.v->title,
           s.v->name, v6 ? "[" : "", bind_addr, v6 ? "]" : "", bound);
    fflush(stdout);

    int sig = 0;
    while (sigwait(&stop, &sig) != 0)
        ;
    if (verbose)
        fprintf(stderr, "%s serve: signal %d, stopping\n", CLI_PROG, sig);
    MHD_stop_daemon(d);
out:
    for (int i = 0; i < s.nall; i++)
        worker_free(s.all[i]);
    free(s.all);
    pthread_mutex_destroy(&s.lock);
    mmtb_tb_close(s.tb);
    return ret;
}

#endif /* MMTB_HAVE_MHD */
