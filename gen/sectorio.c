/*
 * sectorio.c - whole-sector reads for gen/: ranges of 4 Mi slots spread
 * over the OpenMP threads, one libmmtb context per thread.
 */
#include "sectorio.h"

#include <omp.h>
#include <stdlib.h>
#include <sys/mman.h>

int gen_read_range(mmtb_tb *tb, struct mmtb_sector s, uint64_t first, uint64_t end,
                   uint8_t *wdl, uint16_t *dtw)
{
    const uint64_t piece = (uint64_t)1 << 22;
    uint64_t slots = end > first ? end - first : 0;
    uint64_t npieces = (slots + piece - 1) / piece;
    int rc = MMTB_OK;
#pragma omp parallel
    {
        mmtb_ctx *ctx = NULL;
        int lrc = mmtb_ctx_create(&ctx, tb, (size_t)1 << 20);
#pragma omp for schedule(dynamic, 1)
        for (uint64_t p = 0; p < npieces; p++) {
            if (lrc != MMTB_OK)
                continue;
            uint64_t lo = first + p * piece, n = lo + piece < end ? piece : end - lo;
            lrc = mmtb_tb_read(ctx, s, lo, n, wdl + lo, dtw ? dtw + lo : NULL);
        }
        if (lrc != MMTB_OK) {
#pragma omp critical(mmtb_read_sector)
            rc = lrc;
        }
        mmtb_ctx_free(ctx);
    }
    return rc;
}

/* See sectorio.h; aligned_alloc memory is released with free. */
void *gen_alloc_big(size_t bytes)
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
