/*
 * helpers.h - small inline helpers that more than one module needs, written
 * once here: sector equality, the qsort comparator of uint64_t keys, a
 * binary search in sorted slot << shift | value lists, a list of
 * restriction codes as a bit set, and the error path of functions that
 * return a status with a message.
 * Depends on mmtb_common.h only.  Internal: not installed (static inline
 * functions in an installed header would count as undeclared exports).
 */
#ifndef MMTB_HELPERS_H
#define MMTB_HELPERS_H

#include "mmtb_common.h"

#include <stdarg.h>
#include <stdio.h>

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

/* The first of the n sorted keys e[] whose key >> shift is at least k (n when
 * none): a look-up in a sorted list of slot << shift | value entries. */
static inline size_t mmtb_lower_bound_shifted(const uint64_t *e, size_t n, uint64_t k, int shift)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (e[mid] >> shift < k)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The n codes c[] (each below 128: MMTB_MAX_BANS) as a set, bit c of word
 * c / 64. */
static inline void mmtb_code_set(const int8_t *c, int n, uint64_t set[2])
{
    set[0] = set[1] = 0;
    for (int i = 0; i < n; i++)
        set[c[i] >> 6] |= (uint64_t)1 << (c[i] & 63);
}

/* Write a message (printf format) to err, errlen bytes (nothing when err is
 * NULL or errlen 0), and return rc. */
static inline int mmtb_fail(char *err, size_t errlen, int rc, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static inline int mmtb_fail(char *err, size_t errlen, int rc, const char *fmt, ...)
{
    if (err && errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return rc;
}

#endif
