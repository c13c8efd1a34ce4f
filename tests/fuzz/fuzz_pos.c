/*
 * fuzz_pos.c - libFuzzer target: mmtb_pos_parse (simple form and Sanmill
 * FEN).  The first byte picks the built-in variant, the rest is the text.
 * A position that parses must format in the simple form (and as FEN on the
 * 24-point boards) and parse back to the same position; its moves must
 * format and parse back to themselves and lead to valid positions.
 */
#include <string.h>

#include "fuzz_util.h"
#include "mmtb_common.h"
#include "movegen.h"
#include "notation.h"

/* Same stones, hands and side to move. */
static int same_board(const struct mmtb_pos *a, const struct mmtb_pos *b)
{
    return a->stones[0] == b->stones[0] && a->stones[1] == b->stones[1] &&
           a->hand[0] == b->hand[0] && a->hand[1] == b->hand[1] && a->side == b->side;
}

/* Round trips of the position p of v and of its moves. */
static void check_position(const struct mmtb_variant *v, const struct mmtb_pos *p)
{
    char buf[512], err[200];
    struct mmtb_pos q;
    FUZZ_ASSERT(mmtb_pos_validate(v, p, err, sizeof err) == MMTB_OK);

    int n = mmtb_pos_format(v, p, buf, sizeof buf);
    FUZZ_ASSERT(n > 0 && (size_t)n < sizeof buf);
    /* the simple form has no pending removal: those only go through FEN */
    if (p->remove == 0) {
        if (mmtb_pos_parse(v, buf, &q, err, sizeof err) != MMTB_OK)
            fuzz_fail("simple form '%s' does not parse back: %s", buf, err);
        FUZZ_ASSERT(same_board(p, &q) && q.remove == 0);
    }
    if (mmtb_fen_supported(v)) {
        n = mmtb_pos_format_fen(v, p, buf, sizeof buf);
        FUZZ_ASSERT(n > 0 && (size_t)n < sizeof buf);
        if (mmtb_pos_parse(v, buf, &q, err, sizeof err) != MMTB_OK)
            fuzz_fail("FEN '%s' does not parse back: %s", buf, err);
        FUZZ_ASSERT(same_board(p, &q) && q.remove == p->remove);
    }

    static struct mmtb_move moves[MMTB_MAX_MOVES];
    if (mmtb_pos_terminal(v, p) != MMTB_NOT_TERMINAL)
        return;
    int k = mmtb_gen_moves(v, p, moves);
    FUZZ_ASSERT(k >= 0 && k <= MMTB_MAX_MOVES);
    for (int i = 0; i < k; i++) {
        struct mmtb_move m;
        n = mmtb_move_format(v, &moves[i], buf, sizeof buf);
        FUZZ_ASSERT(n > 0 && (size_t)n < sizeof buf);
        FUZZ_ASSERT(mmtb_move_parse(v, buf, &m, err, sizeof err) == MMTB_OK);
        FUZZ_ASSERT(m.from == moves[i].from && m.to == moves[i].to &&
                    m.remove == moves[i].remove);
        mmtb_pos_apply(v, p, &moves[i], &q);
        FUZZ_ASSERT(mmtb_pos_validate(v, &q, err, sizeof err) == MMTB_OK);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    const struct mmtb_variant *v = fuzz_variant(data[0]);
    char *text = fuzz_cstr(data + 1, size - 1);
    struct mmtb_pos p;
    char err[200];
    if (mmtb_pos_parse(v, text, &p, err, sizeof err) == MMTB_OK)
        check_position(v, &p);
    else
        FUZZ_ASSERT(err[0] != '\0' && memchr(err, '\0', sizeof err) != NULL);
    free(text);
    return 0;
}
