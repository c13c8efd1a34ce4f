/*
 * fuzz_annotate.c - libFuzzer target: the game-record grammar of
 * `mmtb-probe annotate` (header lines, comments, move numbers, moves and
 * removals, results) on real tables (three-diag from the empty board, made
 * once by mmtb-gen).  cli_annotate.c is included to reach its static stream
 * reader; the command itself is not changed.  The first input byte picks
 * the output (bit 0: JSON, bit 1: summaries only), the rest is the file.
 * Invariants: no crash; with undamaged tables the exit code is 0 or 1
 * (never a table error), and the totals add up (plies = judged + unknown,
 * judged = best + keeps + errors, errors split by side, at most one illegal
 * move per game).
 */
#include "../../probe/cli/cli_annotate.c"

#include "fuzz_util.h"

static mmtb_tb *tb;
static mmtb_ctx *ctx;
static struct mmtb_move_value *scratch;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    const char *dir = fuzz_tables("three-diag", "--start");
    FUZZ_ASSERT(mmtb_tb_open(&tb, dir, NULL) == MMTB_OK);
    FUZZ_ASSERT(mmtb_ctx_create(&ctx, tb, 0) == MMTB_OK);
    scratch = malloc(sizeof *scratch * MMTB_MAX_MOVES);
    FUZZ_ASSERT(scratch != NULL);
    fuzz_silence_stdout();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    struct annotate a;
    memset(&a, 0, sizeof a);
    a.cmd = "annotate";
    a.dir = "fuzz";
    a.tb = tb;
    a.ctx = ctx;
    a.v = mmtb_tb_variant(tb);
    a.json = data[0] & 1;
    a.summary_only = data[0] & 2;
    a.scratch = scratch;
    mmtb_pos_start(a.v, &a.start);
    FILE *f = fmemopen((void *)(data + 1), size - 1 ? size - 1 : 1, "r");
    FUZZ_ASSERT(f != NULL);
    if (size > 1)
        annotate_stream(&a, f);
    fclose(f);
    const struct tally *t = &a.file;
    FUZZ_ASSERT(a.exit_code == CLI_EXIT_OK || a.exit_code == CLI_EXIT_INPUT);
    FUZZ_ASSERT(t->plies == t->judged + t->unknown);
    FUZZ_ASSERT(t->judged == t->best + t->keeps + t->errors);
    FUZZ_ASSERT(t->errors == t->err_side[0] + t->err_side[1]);
    FUZZ_ASSERT(t->illegal <= t->games && t->disagree <= t->games);
    FUZZ_ASSERT((t->illegal > 0) <= (a.exit_code == CLI_EXIT_INPUT));
    return 0;
}
