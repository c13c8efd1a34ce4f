/*
 * movegen.h - the rules at work: legal whole-turn moves, applying them,
 * terminal positions, predecessors ("unmoves") and perft.  Depends only on
 * variant.h; pure functions, no threads.  The public part (mmtb_pos_start,
 * mmtb_pos_validate, mmtb_gen_moves, mmtb_pos_apply, mmtb_pos_terminal) is
 * declared in mmtb_rules.h; this header adds what only the project uses.
 */
#ifndef MMTB_MOVEGEN_H
#define MMTB_MOVEGEN_H

#include "mmtb_rules.h"
#include "variant.h"

/* True when colour c may fly (the variant has flying and c has at most `fly`
 * stones on board plus in hand). */
bool mmtb_pos_can_fly(const struct mmtb_variant *v, const struct mmtb_pos *p, int c);

/*
 * Predecessors: every position q (with remove == 0) that has a legal move
 * leading to p, written to out[] (room for `cap`).  flags select which kinds:
 * MMTB_PRED_QUIET  moves that removed nothing (slides, flights, placements,
 *                  passes),
 * MMTB_PRED_CAPTURE moves that closed a mill and removed a stone of the side
 *                  to move in p.
 * With no_reclose, p's restrictions must be valid (else there is none) and
 * each q comes once per pair of live restrictions it may carry that leads
 * to p's.  Returns the count, or a negative status (MMTB_ERR_INVALID if cap
 * is too small; MMTB_ERR_UNSUPPORTED for a no_reclose board with more than
 * MMTB_MAX_BANS directed edges).  Each q appears once.
 */
#define MMTB_PRED_QUIET 1u
#define MMTB_PRED_CAPTURE 2u
int mmtb_gen_predecessors(const struct mmtb_variant *v, const struct mmtb_pos *p,
                          unsigned flags, struct mmtb_pos *out, int cap);

/*
 * The Twelve Men's re-close restriction of colour c in p (variants with
 * no_reclose; see movegen.c for how ban_from/ban_to encode it): true when c
 * may not slide its stone on *from to *to if that closes a mill, on c's
 * current turn (c == p->side) or on its next one (c != p->side).
 */
bool mmtb_pos_ban(const struct mmtb_variant *v, const struct mmtb_pos *p, int c, int *from,
                  int *to);

/*
 * Edge codes of the no_reclose restrictions (movegen.c): the code of the
 * directed edge Y->X (X a neighbour of Y), -1 when they are not neighbours;
 * and back, false when the code is out of range.
 */
int mmtb_edge_code(const struct mmtb_variant *v, int y, int x);
bool mmtb_edge_points(const struct mmtb_variant *v, int code, int *y, int *x);

/*
 * The restrictions that would bite for a colour with stones `own` against
 * `oth`: the codes of the edges Y->X with a stone of own on Y, X empty and
 * the slide Y->X closing a mill of own, in increasing code order, written to
 * out[] (room for MMTB_MAX_BANS).  Returns the count.  A restriction field
 * of a valid position is -1 or one of these.
 */
#define MMTB_MAX_BANS 128
int mmtb_live_bans(const struct mmtb_variant *v, uint32_t own, uint32_t oth, int8_t *out);

/* The same codes as a set: bit c % 64 of set[c / 64] for code c. */
void mmtb_live_ban_set(const struct mmtb_variant *v, uint32_t own, uint32_t oth,
                       uint64_t set[MMTB_MAX_BANS / 64]);

/* Number of move sequences of `depth` whole turns from p (perft). */
uint64_t mmtb_perft(const struct mmtb_variant *v, const struct mmtb_pos *p, int depth);

/* The sector of a position (side to move first). */
static inline struct mmtb_sector mmtb_pos_sector(const struct mmtb_pos *p)
{
    struct mmtb_sector s;
    s.w = (uint8_t)mmtb_popcount32(p->stones[p->side]);
    s.b = (uint8_t)mmtb_popcount32(p->stones[p->side ^ 1]);
    s.w_hand = p->hand[p->side];
    s.b_hand = p->hand[p->side ^ 1];
    return s;
}

#endif
