/*
 * helpers.h - small inline helpers that more than one module needs, written
 * once here: sector equality and the qsort comparator of uint64_t keys.
 * Depends on mmtb_common.h only.  Internal: not installed (static inline
 * functions in an installed header would count as undeclared exports).
 */
#ifndef MMTB_HELPERS_H
#define MMTB_HELPERS_H

#include "mmtb_common.h"

/* True when sectors a and b have the same four counts. */
static inline bool mmtb_sector_eq(struct mmtb_sector a, struct mmtb_sector b)
{
    return a.w == b.w && a.b == b.b && a.w_hand == b.w_hand && a.b_hand == b.b_hand;
}

/* qsort comparator: ascending uint64_t. */
static inline int mmtb_cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

#endif
