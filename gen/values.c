/*
 * values.c - a member's state bytes, as the levels left them, turned into
 * the values the tables store: win, draw or loss, the depth (the deep ones
 * from the sorted list of levels_finish) and the unused slots.  For both
 * writers, pair.c's and a split pair's (split.c); called in parallel for
 * disjoint ranges.
 */
#include "job.h"

void state_values(const struct member *me, uint64_t first, uint64_t count, uint8_t *wdl,
                  uint16_t *dtw)
{
    /* the first deep entry at or after `first` */
    size_t lo = mmtb_lower_bound_shifted(me->deep, me->ndeep, first, 14);
    for (uint64_t i = 0; i < count; i++) {
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
