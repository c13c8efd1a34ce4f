/*
 * vcode.h - a solved position's value and depth in one byte, the form in
 * which the solver and the verifier hold the solved sectors they look up
 * (deps.c, held.c, verify.c), with the few depths too deep for the byte
 * kept beside it.  Private to gen/.
 *
 * Under the depth to win, a win's depth is odd and a loss's even (the
 * game ends with the loser to move, lost in 0), so the depth alone gives
 * the value: code = depth + 2 for depths up to VC_MAX_DEPTH, and above it
 * VC_DEEP_LOSS or VC_DEEP_WIN with the depth in the sorted list.  A table
 * whose values and depths disagree in parity is refused when read
 * (gen_read_coded, sectorio.h).
 */
#ifndef MMTB_VCODE_H
#define MMTB_VCODE_H

#include <stddef.h>
#include <stdint.h>

#include "helpers.h"

#define VC_DRAW 0u
#define VC_UNUSED 1u /* a slot no position uses */
#define VC_MAX_DEPTH 251
#define VC_DEEP_LOSS 254u
#define VC_DEEP_WIN 255u

/* The depths above VC_MAX_DEPTH: slot << 16 | depth, sorted. */
struct vdeep {
    uint64_t *e;
    size_t n;
};

/* The code of wdl (0 loss, 1 draw, 2 win, 3 unused) at depth d, or -1 when
 * the depth's parity contradicts the value.  Deep depths take a code of
 * VC_DEEP_*: the caller records them. */
static inline int vc_pack(int wdl, int d)
{
    if (wdl == 1 || wdl == 3)
        return wdl == 1 ? (int)VC_DRAW : (int)VC_UNUSED;
    if ((d & 1) != (wdl == 2))
        return -1;
    return d <= VC_MAX_DEPTH ? d + 2 : wdl == 2 ? (int)VC_DEEP_WIN : (int)VC_DEEP_LOSS;
}

/* 0 loss, 1 draw (or unused), 2 win for the side to move. */
static inline int vc_wdl(uint8_t c)
{
    if (c < 2)
        return 1;
    if (c >= VC_DEEP_LOSS)
        return c == VC_DEEP_WIN ? 2 : 0;
    return (c & 1) ? 2 : 0; /* depth = c - 2: odd for a win */
}

/* The depth of a decided slot whose code is c (0 for a draw). */
static inline int vc_depth(uint8_t c, const struct vdeep *deep, uint64_t slot)
{
    if (c < 2)
        return 0;
    if (c < VC_DEEP_LOSS)
        return c - 2;
    size_t lo = mmtb_lower_bound_shifted(deep->e, deep->n, slot, 16);
    return lo < deep->n && deep->e[lo] >> 16 == slot ? (int)(deep->e[lo] & 0xffff) : 0;
}

#endif
