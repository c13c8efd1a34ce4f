/*
 * values.c - a member's state bytes, as the levels left them, turned into
 * the values the tables store: win, draw or loss, the depth (the deep ones
 * from the sorted list of levels_finish) and the unused slots.  For both
 * writers, pair.c's and a split pair's (split.c); called in parallel for
 * disjoint ranges.
 */
#include "job.h"

/* The values of the n slots from `first`, one at a time: the deep depths
 * from the sorted list. */
static void values_slow(const struct member *me, uint64_t first, uint64_t n, uint8_t *wdl,
                        uint16_t *dtw)
{
    /* the first deep entry at or after `first` */
    size_t lo = mmtb_lower_bound_shifted(me->deep, me->ndeep, first, 14);
    for (uint64_t i = 0; i < n; i++) {
        uint8_t x = me->st[first + i];
        if (x == ST_UNUSED) {
            wdl[i] = 3;
            dtw[i] = 0;
        } else if (x & ST_RESOLVED) {
            wdl[i] = st_win(x) ? 2 : 0;
            dtw[i] = (uint16_t)(x - ST_RESOLVED);
            if (x >= ST_DEEP_LOSS) /* there is one: see levels_finish */
                dtw[i] = (uint16_t)(me->deep[lo++] & 0x3fff);
        } else {
            wdl[i] = 1;
            dtw[i] = 0;
        }
    }
}

/* values_slow without a branch per slot (a loop the compiler vectorises),
 * for a run without deep states; returns non-zero, the run unfinished, when
 * it has one.  A decided state is ST_RESOLVED + d, a win when d is odd, and
 * so are ST_DEEP_LOSS and ST_DEEP_WIN (d = 126, 127). */
_Static_assert(ST_RESOLVED == 0x80 && ST_DEEP_LOSS == 0xfe && ST_DEEP_WIN == 0xff,
               "the run's masks");
static unsigned values_run(const uint8_t *restrict st, uint64_t n, uint8_t *restrict wdl,
                           uint16_t *restrict dtw)
{
    uint8_t deep = 0;
    for (uint64_t i = 0; i < n; i++) {
        uint8_t x = st[i];
        uint8_t decided = (uint8_t)-(x >> 7), d = x & 0x7f;
        uint8_t undecided = (uint8_t)(x == ST_UNUSED ? 3 : 1);
        wdl[i] = (uint8_t)((decided & (uint8_t)((d & 1) << 1)) | (~decided & undecided));
        dtw[i] = (uint16_t)(decided & d);
        deep |= (uint8_t)(x >= ST_DEEP_LOSS);
    }
    return deep;
}

#define VALUES_RUN 4096
void state_values(const struct member *me, uint64_t first, uint64_t count, uint8_t *wdl,
                  uint16_t *dtw)
{
    for (uint64_t r = 0; r < count; r += VALUES_RUN) {
        uint64_t n = count - r < VALUES_RUN ? count - r : VALUES_RUN;
        if (values_run(me->st + first + r, n, wdl + r, dtw + r))
            values_slow(me, first + r, n, wdl + r, dtw + r);
    }
}
