/*
 * fuzz_variant.c - libFuzzer target: mmtb_variant_parse, the variant
 * descriptor language of docs/VARIANTS.md (the input is the text, not
 * NUL-terminated).  A descriptor that parses must re-parse from its
 * canonical text to the same canonical text and fingerprint, and its start
 * position must have moves the rules accept.
 */
#include <string.h>

#include "fuzz_util.h"
#include "mmtb_common.h"
#include "movegen.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct mmtb_variant *v = NULL, *w = NULL;
    char err[300];
    if (mmtb_variant_parse(&v, (const char *)data, size, "fuzz", err, sizeof err) != MMTB_OK) {
        FUZZ_ASSERT(v == NULL && err[0] != '\0');
        return 0;
    }
    FUZZ_ASSERT(v->npoints > 0 && v->npoints <= MMTB_MAX_POINTS && v->nsyms >= 1);
    if (mmtb_variant_parse(&w, v->text, v->text_len, "canonical", err, sizeof err) != MMTB_OK)
        fuzz_fail("canonical text does not parse: %s\n%s", err, v->text);
    FUZZ_ASSERT(w->text_len == v->text_len && !memcmp(w->text, v->text, v->text_len));
    FUZZ_ASSERT(w->fingerprint == v->fingerprint && w->nsyms == v->nsyms);

    struct mmtb_pos p;
    static struct mmtb_move moves[MMTB_MAX_MOVES];
    mmtb_pos_start(v, &p);
    FUZZ_ASSERT(mmtb_pos_validate(v, &p, err, sizeof err) == MMTB_OK);
    if (mmtb_pos_terminal(v, &p) == MMTB_NOT_TERMINAL) {
        int k = mmtb_gen_moves(v, &p, moves);
        FUZZ_ASSERT(k >= 0 && k <= MMTB_MAX_MOVES);
        for (int i = 0; i < k; i++) {
            struct mmtb_pos q;
            mmtb_pos_apply(v, &p, &moves[i], &q);
            FUZZ_ASSERT(mmtb_pos_validate(v, &q, err, sizeof err) == MMTB_OK);
        }
    }
    mmtb_variant_free(w);
    mmtb_variant_free(v);
    return 0;
}
