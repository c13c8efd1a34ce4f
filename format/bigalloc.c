/*
 * bigalloc.c - large arrays on huge pages (bigalloc.h).
 */
#include "bigalloc.h"

#include <stdlib.h>
#include <sys/mman.h>

void *mmtb_alloc_big(size_t bytes)
{
    const size_t huge = (size_t)2 << 20;
    if (bytes < huge)
        return malloc(bytes ? bytes : 1);
    size_t n = (bytes + huge - 1) / huge * huge;
    void *p = aligned_alloc(huge, n);
#ifdef MADV_HUGEPAGE
    if (p)
        madvise(p, n, MADV_HUGEPAGE);
#endif
    return p;
}
