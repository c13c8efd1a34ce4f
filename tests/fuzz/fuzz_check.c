/*
 * fuzz_check.c - libFuzzer target: the line grammar of `mmtb-probe check`
 * ("POSITION ; MOVE", "POSITION bm MOVE", comments after a second ';') and
 * the judging of each line on real tables (three-diag from the empty
 * board, made once by mmtb-gen).  cli_check.c is included to reach its
 * static stream reader; the command is not changed.  The first input byte
 * picks the output (bit 0: JSON, bit 1: summaries only) and the threads
 * (bit 2: 2 instead of 1), the rest is the file.  Invariants: no crash; the
 * counts add up (lines = judged + unknown + invalid, judged = best + keeps
 * + errors, every error of one kind and one phase); undamaged tables give
 * no table error.
 */
#include "../../probe/cli/cli_check.c"

#include "fuzz_util.h"

static mmtb_tb *tb;
static struct item *items;
static uint32_t *sec_judged, *sec_err;
static struct worst worst[11];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    const char *dir = fuzz_tables("three-diag", "--start");
    FUZZ_ASSERT(mmtb_tb_open(&tb, dir, NULL) == MMTB_OK);
    items = malloc(sizeof *items * CHECK_BATCH);
    sec_judged = calloc(SECTOR_KEYS, sizeof *sec_judged);
    sec_err = calloc(SECTOR_KEYS, sizeof *sec_err);
    FUZZ_ASSERT(items && sec_judged && sec_err);
    fuzz_silence_stdout();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    struct check c;
    memset(&c, 0, sizeof c);
    c.cmd = "check";
    c.dir = "fuzz";
    c.tb = tb;
    c.v = mmtb_tb_variant(tb);
    c.json = data[0] & 1;
    c.summary_only = data[0] & 2;
    c.threads = data[0] & 4 ? 2 : 1;
    c.nworst = 10;
    c.cache = (size_t)1 << 20;
    /* the per-sector tallies are only summed for the summary, which is
     * not run here: shared across inputs, never cleared (8 MiB) */
    c.sec_judged = sec_judged;
    c.sec_err = sec_err;
    c.worst = worst;
    FILE *f = fmemopen((void *)(data + 1), size - 1 ? size - 1 : 1, "r");
    FUZZ_ASSERT(f != NULL);
    bool ok = size > 1 ? check_stream(&c, f, items) : true;
    fclose(f);
    free_slots(&c);
    FUZZ_ASSERT(ok);
    FUZZ_ASSERT(c.table_rc == MMTB_OK);
    FUZZ_ASSERT(c.lines == c.judged + c.unknown + c.invalid);
    FUZZ_ASSERT(c.judged == c.best + c.keeps + c.errors);
    FUZZ_ASSERT(c.errors == c.kinds[0] + c.kinds[1] + c.kinds[2]);
    FUZZ_ASSERT(c.judged == c.phase_judged[0] + c.phase_judged[1] + c.phase_judged[2]);
    FUZZ_ASSERT(c.errors == c.phase_err[0] + c.phase_err[1] + c.phase_err[2]);
    FUZZ_ASSERT(c.nw <= c.nworst && c.nw <= c.errors);
    return 0;
}
