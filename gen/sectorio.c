/*
 * sectorio.c - whole-sector reads for gen/: ranges of 1 Mi slots spread
 * over the OpenMP threads, one libmmtb context per thread, coded a byte a
 * slot (vcode.h).
 */
#include "sectorio.h"

#include "helpers.h"
#include "mmtb_integrity.h"

#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Code one piece read into wdl/dtw (n slots from slot lo) into code;
 * the deep depths appended to *dp.  MMTB_ERR_CORRUPT on a value whose
 * depth's parity contradicts it. */
static int code_slow(const uint8_t *wdl, const uint16_t *dtw, uint64_t lo, uint64_t n,
                      uint8_t *code, struct vdeep *dp, size_t *cap)
{
    for (uint64_t i = 0; i < n; i++) {
        int c = vc_pack(wdl[i], dtw[i]);
        if (c < 0)
            return MMTB_ERR_CORRUPT;
        code[i] = (uint8_t)c;
        if (c < (int)VC_DEEP_LOSS)
            continue;
        if (dp->n == *cap) {
            size_t nc = *cap ? 2 * *cap : 256;
            uint64_t *ne = realloc(dp->e, nc * sizeof *ne);
            if (!ne)
                return MMTB_ERR_NOMEM;
            dp->e = ne, *cap = nc;
        }
        dp->e[dp->n++] = (lo + i) << 16 | dtw[i];
    }
    return MMTB_OK;
}

/* code_slow for a piece, by runs of CODE_RUN slots coded without a branch
 * per slot (code_run: vc_pack of a draw, an unused slot and a depth up to
 * VC_MAX_DEPTH of the right parity); a run with a deep depth or a wrong
 * parity goes again through code_slow, which records or reports it. */
#define CODE_RUN 1024
static unsigned code_run(const uint8_t *restrict wdl, const uint16_t *restrict dtw, uint64_t n,
                         uint8_t *restrict code)
{
    _Static_assert(VC_MAX_DEPTH == 251, "a depth above it has d + 4 or d at 256 or more");
    /* 16-bit arithmetic and masks, no comparison: a loop the compiler
     * vectorises */
    uint16_t odd = 0;
    for (uint64_t i = 0; i < n; i++) {
        uint16_t w = wdl[i], d = dtw[i];
        uint16_t decided = (uint16_t)-((w & 1) ^ 1); /* all ones for a win or a loss */
        uint16_t deep = (uint16_t)(((uint16_t)(d + 4) | d) >> 8);
        /* a win (2) has an odd depth, a loss (0) an even one */
        odd |= (uint16_t)(decided & (((d ^ (w >> 1)) & 1) | deep));
        code[i] = (uint8_t)(((d + 2) & decided) | ((w >> 1) & ~decided));
    }
    return odd;
}

static int code_piece(const uint8_t *wdl, const uint16_t *dtw, uint64_t lo, uint64_t n,
                      uint8_t *code, struct vdeep *dp, size_t *cap)
{
    _Static_assert(VC_DRAW == 0 && VC_UNUSED == 1, "a draw (1) or unused slot (3) codes as w >> 1");
    for (uint64_t r = 0; r < n; r += CODE_RUN) {
        uint64_t e = r + CODE_RUN < n ? r + CODE_RUN : n;
        if (code_run(wdl + r, dtw + r, e - r, code + r)) {
            int rc = code_slow(wdl + r, dtw + r, lo + r, e - r, code + r, dp, cap);
            if (rc != MMTB_OK)
                return rc;
        }
    }
    return MMTB_OK;
}

static int cmp_u64(const void *a, const void *b)
{
    return mmtb_cmp_u64(a, b);
}

int gen_read_coded(mmtb_tb *tb, struct mmtb_sector s, uint64_t first, uint64_t end,
                   uint8_t *code, struct vdeep *deep, char *why, size_t whylen)
{
    const uint64_t piece = (uint64_t)1 << 20;
    uint64_t slots = end > first ? end - first : 0;
    uint64_t npieces = (slots + piece - 1) / piece;
    int rc = MMTB_OK;
    deep->e = NULL;
    deep->n = 0;
#pragma omp parallel
    {
        mmtb_ctx *ctx = NULL;
        int lrc = mmtb_ctx_create(&ctx, tb, (size_t)1 << 20);
        uint8_t *wdl = malloc(piece);
        uint16_t *dtw = malloc(piece * sizeof *dtw);
        struct vdeep dp = {NULL, 0};
        size_t cap = 0;
        if (lrc == MMTB_OK && (!wdl || !dtw))
            lrc = MMTB_ERR_NOMEM;
#pragma omp for schedule(dynamic, 1)
        for (uint64_t p = 0; p < npieces; p++) {
            if (lrc != MMTB_OK)
                continue;
            uint64_t lo = first + p * piece, n = lo + piece < end ? piece : end - lo;
            lrc = mmtb_tb_read(ctx, s, lo, n, wdl, dtw);
            if (lrc == MMTB_OK)
                lrc = code_piece(wdl, dtw, lo, n, code + lo, &dp, &cap);
        }
#pragma omp critical(mmtb_read_sector)
        {
            if (lrc != MMTB_OK) {
                if (rc == MMTB_OK && why && whylen && ctx)
                    snprintf(why, whylen, "%s", mmtb_ctx_error(ctx));
                rc = lrc;
            } else if (dp.n) {
                uint64_t *ne = realloc(deep->e, (deep->n + dp.n) * sizeof *ne);
                if (ne) {
                    memcpy(ne + deep->n, dp.e, dp.n * sizeof *ne);
                    deep->e = ne;
                    deep->n += dp.n;
                } else {
                    rc = MMTB_ERR_NOMEM;
                }
            }
        }
        free(dp.e);
        free(wdl);
        free(dtw);
        mmtb_ctx_free(ctx);
    }
    if (deep->n)
        qsort(deep->e, deep->n, sizeof *deep->e, cmp_u64);
    return rc;
}
