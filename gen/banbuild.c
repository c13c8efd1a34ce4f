/*
 * banbuild.c - a sector's index with state, its ranges counted on every
 * thread (banbuild.h).
 */
#include "banbuild.h"

/* Scheme 1 slots per range: small enough to share the walk out evenly,
 * large enough that a range costs far more than taking it. */
#define RANGE ((uint64_t)MMTB_BAN_CREATE_ALIGN << 12)

int gen_ban_index_create(mmtb_ban_index **out, const mmtb_index *ix, struct mmtb_sector s)
{
    int rc = mmtb_ban_index_create_begin(out, ix, s);
    if (rc != MMTB_OK)
        return rc;
    mmtb_ban_index *bx = *out;
    uint64_t base = mmtb_ban_index_base(bx), n = (base + RANGE - 1) / RANGE;
    int bad = MMTB_OK;
#pragma omp parallel for schedule(dynamic, 1)
    for (uint64_t k = 0; k < n; k++) {
        uint64_t hi = (k + 1) * RANGE < base ? (k + 1) * RANGE : base;
        int r = mmtb_ban_index_create_range(bx, k * RANGE, hi);
        if (r != MMTB_OK) {
#pragma omp atomic write
            bad = r;
        }
    }
    if (bad != MMTB_OK) {
        mmtb_ban_index_free(bx);
        *out = NULL;
        return bad;
    }
    mmtb_ban_index_create_end(bx);
    return MMTB_OK;
}
