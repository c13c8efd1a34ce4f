/*
 * fuzz_engine.c - libFuzzer target: the line protocol of `mmtb-probe
 * engine` (uci, isready, ucinewgame, position with moves, go, setoption,
 * d, unknown commands) on real tables (three-diag from the empty board,
 * made once by mmtb-gen).  cli_engine.c is included to reach its static
 * line handler; the command is not changed.  Each input line goes to the
 * handler as the command's loop gives it.  Invariants: no crash; the
 * engine goes on after every line but `quit`; whenever it holds a position
 * as valid, the position is valid for the variant.
 */
#include "../../probe/cli/cli_engine.c"

#include "fuzz_util.h"

static mmtb_tb *tb;
static mmtb_ctx *ctx;
static struct mmtb_move_value *mv;
static struct mmtb_move *legal;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    const char *dir = fuzz_tables("three-diag", "--start");
    FUZZ_ASSERT(mmtb_tb_open(&tb, dir, NULL) == MMTB_OK);
    FUZZ_ASSERT(mmtb_ctx_create(&ctx, tb, 0) == MMTB_OK);
    mv = malloc(sizeof *mv * MMTB_MAX_MOVES);
    legal = malloc(sizeof *legal * MMTB_MAX_MOVES);
    FUZZ_ASSERT(mv && legal);
    fuzz_silence_stdout();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct engine e;
    memset(&e, 0, sizeof e);
    e.dir = "fuzz";
    e.tb = tb;
    e.ctx = ctx;
    e.v = mmtb_tb_variant(tb);
    e.mv = mv;
    e.legal = legal;
    e.seed = 1;
    reseed(&e);
    mmtb_pos_start(e.v, &e.pos);
    e.valid = true;
    char *text = fuzz_cstr(data, size);
    char err[200];
    /* lines as getline gives them: up to and with each '\n' */
    for (char *s = text; *s;) {
        char *nl = strchr(s, '\n');
        char *next = nl ? nl + 1 : s + strlen(s);
        char save = *next;
        *next = '\0';
        bool more = engine_line(&e, s);
        *next = save;
        FUZZ_ASSERT(!e.valid || mmtb_pos_validate(e.v, &e.pos, err, sizeof err) == MMTB_OK);
        if (!more)
            break;
        s = next;
    }
    free(text);
    return 0;
}
