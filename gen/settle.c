/*
 * settle.c - the first state byte of one position from what its moves lead
 * to: the results of its successors outside the pair (solved sectors, or
 * the rules' own ends) and the number of its in-pair moves still open,
 * with the bucket entries of the deeper outside results for the levels
 * (levels.c).  The one place that turns successors' values into a state;
 * the init passes (init.c, bans.c) call it.
 */
#include "job.h"

uint8_t settle_state(struct job *j, int mi, uint64_t slot, int nin, int n,
                     const struct ext_look *ext, int *resolved_depth, uint16_t *defer)
{
    *resolved_depth = -1;
    if (defer)
        *defer = 0;
    int best_win = 0, worst_loss = 0;
    bool draw = false;
    for (int i = 0; i < n; i++) {
        const struct dep *d = ext[i].d;
        uint64_t r = ext[i].r;
        int w = ext[i].have ? ext[i].w : vc_wdl(d->code[r]);
        int depth = (ext[i].have ? ext[i].dtw : vc_depth(d->code[r], &d->deep, r)) + 1;
        if (w == 0) { /* the opponent loses there */
            if (depth == 1) {
                *resolved_depth = 1;
                return st_decided(j, true, 1);
            }
            if (!best_win || depth < best_win)
                best_win = depth;
        } else if (w == 1) {
            draw = true;
        } else if (depth > worst_loss) {
            worst_loss = depth;
        }
    }
    if (nin > 0 && !j->any_inpair)
        __atomic_store_n(&j->any_inpair, 1, __ATOMIC_RELAXED);

    if (best_win && (best_win == 1 || nin == 0)) {
        *resolved_depth = best_win;
        return st_decided(j, true, (unsigned)best_win);
    }
    if (nin == 0) {
        if (draw)
            return ST_DRAWN;
        *resolved_depth = worst_loss;
        return st_decided(j, false, (unsigned)worst_loss);
    }
    /* the counter and its biases (at most 2) must fit below ST_DRAWN */
    if (nin > (int)ST_MAX_COUNT - 2) {
        __atomic_store_n(&j->too_many, 1, __ATOMIC_RELAXED);
        return ST_DRAWN;
    }
    uint8_t c = (uint8_t)nin;
    int level = 0, win = 0;
    if (best_win) {
        c++; /* can no longer be lost */
        level = best_win - 1;
        win = 1;
    } else {
        if (draw)
            c++;
        if (worst_loss > 1) {
            c++;
            level = worst_loss - 1;
        }
    }
    if (level && defer)
        *defer = bucket_code(level, win);
    else if (level)
        bucket_add(j, level, slot << 2 | (uint64_t)mi << 1 | (uint64_t)win);
    return c;
}
