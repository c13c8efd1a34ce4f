/*
 * probe_example.c - a first libmmtb program, built against the installed
 * library (see CMakeLists.txt here, or: cc probe_example.c $(pkg-config
 * --cflags --libs mmtb)).  Opens a table directory, probes the position
 * given on the command line and prints its value, the best moves and every
 * move's value:  probe_example DIR POSITION
 */
#include <mmtb.h>

#include <stdio.h>
#include <string.h>

/* "win 5", "loss 0" or "draw": a value for the side to move. */
static void print_value(const struct mmtb_value *v)
{
    if (v->wdl == MMTB_DRAW)
        printf("draw");
    else
        printf("%s %d", v->wdl == MMTB_WIN ? "win" : "loss", v->dtw);
}

/* Probe one position on an open handle: the value, then the moves that keep
 * it (the best ones, all with the first move's value), then every move. */
static int probe_one(const mmtb_tb *tb, const char *text)
{
    const struct mmtb_variant *v = mmtb_tb_variant(tb);
    char err[256];
    struct mmtb_pos p;
    int rc = mmtb_pos_parse(v, text, &p, err, sizeof err);
    if (rc != MMTB_OK) {
        fprintf(stderr, "bad position: %s\n", err);
        return rc;
    }
    mmtb_ctx *ctx; /* one per thread; this program has one thread */
    rc = mmtb_ctx_create(&ctx, tb, 0);
    if (rc != MMTB_OK) {
        fprintf(stderr, "context: %s\n", mmtb_strerror(rc));
        return rc;
    }
    struct mmtb_value val;
    static struct mmtb_move_value moves[MMTB_MAX_MOVES];
    int n = MMTB_OK;
    rc = mmtb_probe(ctx, &p, &val);
    if (rc == MMTB_OK)
        n = mmtb_probe_moves(ctx, &p, moves, MMTB_MAX_MOVES);
    if (rc == MMTB_OK && n < 0)
        rc = n;
    if (rc != MMTB_OK) {
        fprintf(stderr, "probe: %s\n", mmtb_strerror(rc));
        mmtb_ctx_free(ctx);
        return rc;
    }
    char buf[MMTB_TEXT_MAX];
    mmtb_pos_format(v, &p, buf, sizeof buf);
    printf("position %s\nvalue ", buf);
    print_value(&val);
    printf("\nbest");
    for (int i = 0; i < n && moves[i].value.wdl == moves[0].value.wdl &&
                    moves[i].value.dtw == moves[0].value.dtw;
         i++) {
        mmtb_move_format(v, &moves[i].move, buf, sizeof buf);
        printf(" %s", buf);
    }
    printf("\n");
    for (int i = 0; i < n; i++) {
        mmtb_move_format(v, &moves[i].move, buf, sizeof buf);
        printf("move %s ", buf);
        print_value(&moves[i].value);
        printf("\n");
    }
    mmtb_ctx_free(ctx);
    return MMTB_OK;
}

/* Open DIR, probe POSITION, close.  Exit 0 on success, 1 on any error. */
int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s DIR POSITION\n", argv[0]);
        return 2;
    }
    /* The header this was compiled with and the library it runs with. */
    printf("libmmtb %s (header %d.%d.%d)\n", mmtb_version(), MMTB_VERSION_MAJOR,
           MMTB_VERSION_MINOR, MMTB_VERSION_PATCH);
    char err[256] = "";
    struct mmtb_tb_opts opts;
    memset(&opts, 0, sizeof opts);
    opts.err = err;
    opts.errlen = sizeof err;
    mmtb_tb *tb;
    int rc = mmtb_tb_open(&tb, argv[1], &opts);
    if (rc != MMTB_OK) {
        fprintf(stderr, "%s: %s (%s)\n", argv[1], err, mmtb_strerror(rc));
        return 1;
    }
    printf("variant %s (%s)\n", mmtb_variant_name(mmtb_tb_variant(tb)),
           mmtb_variant_title(mmtb_tb_variant(tb)));
    rc = probe_one(tb, argv[2]);
    mmtb_tb_close(tb);
    return rc == MMTB_OK ? 0 : 1;
}
