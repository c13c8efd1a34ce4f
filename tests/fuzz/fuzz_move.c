/*
 * fuzz_move.c - libFuzzer target: mmtb_move_parse.  The first byte picks
 * the built-in variant, the rest is the move token.  A move that parses
 * (or "pass") must format and parse back to the same move.
 */
#include <string.h>

#include "fuzz_util.h"
#include "mmtb_common.h"
#include "notation.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    const struct mmtb_variant *v = fuzz_variant(data[0]);
    char *text = fuzz_cstr(data + 1, size - 1);
    struct mmtb_move m, m2;
    char err[200], buf[128];
    if (mmtb_move_parse(v, text, &m, err, sizeof err) == MMTB_OK) {
        FUZZ_ASSERT((m.from == MMTB_MOVE_PASS || (m.from >= -1 && m.from < v->npoints)) &&
                    m.to >= -1 && m.to < v->npoints && m.remove >= -1 && m.remove < v->npoints);
        int n = mmtb_move_format(v, &m, buf, sizeof buf);
        FUZZ_ASSERT(n > 0 && (size_t)n < sizeof buf);
        if (mmtb_move_parse(v, buf, &m2, err, sizeof err) != MMTB_OK)
            fuzz_fail("'%s' does not parse back: %s", buf, err);
        FUZZ_ASSERT(m.from == m2.from && m.to == m2.to && m.remove == m2.remove);
    } else {
        FUZZ_ASSERT(err[0] != '\0');
    }
    free(text);
    return 0;
}
