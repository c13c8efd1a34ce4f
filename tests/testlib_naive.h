/*
 * testlib_naive.h - naive, independent solvers, the oracles the real solver
 * (gen/) is checked against: the movement phase, Twelve's re-close
 * restrictions and the whole game.  Explicit game graphs, no symmetry, no
 * unmoves: their own indexing and level iterations.  Moves come from
 * format/movegen.c; they must not use sector_index.c, ban_index.c, succ.c
 * or anything in gen/ or probe/.
 *
 * Every depth is depth to win (DTW): plies to the end of the game, the
 * winner minimising and the loser maximising, across captures and phases.
 * A side to move that has lost by the rules (too few stones, no legal move)
 * has lost in 0; every move, a capture included, is worth the value of the
 * position it leads to, negated, at that position's depth + 1.
 */
#ifndef TESTLIB_NAIVE_H
#define TESTLIB_NAIVE_H

#include "variant.h"

/* A solved naive game (opaque). */
struct naive;

/*
 * Counts of one movement sector (w stones for the side to move, b for its
 * opponent, nothing in hand).  positions/wins/draws/losses count every
 * arrangement of the stones; max_win/max_loss are the largest DTW of a
 * win/loss in plies (-1 when none).  The canonical fields count symmetry
 * orbits (one position per orbit of v->sym) and are filled only after
 * naive_orbits().
 */
struct naive_stats {
    uint64_t positions, wins, draws, losses;
    int max_win, max_loss;
    uint64_t canonical, cwins, cdraws, closses;
};

/*
 * Solve every movement sector with v->min_stones..max_stones stones a side
 * (no stones in hand) of variant v.  Sectors are solved by increasing
 * total stones; a sector and its partner (same stones, other side to move)
 * together.  Returns NULL on failure (out of memory, a rule outcome the
 * oracle does not expect) with a message in err.  v must outlive the result.
 */
struct naive *naive_solve(const struct mmtb_variant *v, int max_stones, char *err, size_t errlen);
void naive_free(struct naive *n);

/*
 * As naive_solve, but only the sectors where one side has v->min_stones
 * stones (for nine up to 5: 3-3, 3-4, 4-3, 3-5 and 5-3).  A capture from
 * one of them ends the game or leads into another, so they can be solved
 * without the rest (3-5 without 4-4, 4-5, 5-5).  The other sectors of the
 * range count as not solved.
 */
struct naive *naive_solve_thin(const struct mmtb_variant *v, int max_stones, char *err,
                               size_t errlen);

/* Stone range of the solved sectors. */
int naive_min_stones(const struct naive *n);
int naive_max_stones(const struct naive *n);

/* Number of positions of sector (w, b): C(npoints, w) * C(npoints - w, b);
 * 0 when the sector was not solved. */
uint64_t naive_sector_size(const struct naive *n, int w, int b);

/* The i-th position of sector (w, b), 0 <= i < naive_sector_size. */
void naive_unrank(const struct naive *n, int w, int b, uint64_t i, uint32_t *mover, uint32_t *opp);

/* Index of (mover, opp) inside its sector (the inverse of naive_unrank). */
uint64_t naive_rank(const struct naive *n, uint32_t mover, uint32_t opp);

/*
 * Value of a position for the side to move (mover's stones, opp's stones):
 * *wdl is MMTB_WIN/MMTB_DRAW/MMTB_LOSS and *dtw the depth to win in
 * plies, -1 for a draw.  Returns 0, or -1 when the position is outside the
 * solved sectors or malformed.
 */
int naive_value(const struct naive *n, uint32_t mover, uint32_t opp, int *wdl, int *dtw);

/* As naive_value, for the i-th position of sector (w, b). */
void naive_value_at(const struct naive *n, int w, int b, uint64_t i, int *wdl, int *dtw);

/* Counts of sector (w, b); returns 0, or -1 when the sector was not solved. */
int naive_sector_stats(const struct naive *n, int w, int b, struct naive_stats *out);

/*
 * Count the symmetry orbits of every solved sector and their values (the
 * canonical fields of naive_stats), with a minimum-image function built
 * from v->sym alone.  Also checks that every position has the value of the
 * least image of its orbit; returns the number of positions where it does
 * not (0 for a correct solve of a correct rules engine).
 */
uint64_t naive_orbits(struct naive *n);

/* Seconds the solve took (wall clock). */
double naive_seconds(const struct naive *n);

/* Format a position as "WHITE BLACK SIDE" with the mover as White, e.g.
 * "a1,b2,c3 a2,b1,c1 w". */
void naive_format(const struct mmtb_variant *v, uint32_t mover, uint32_t opp, char *buf,
                  size_t len);


/*
 * The oracle for Twelve's re-close restrictions (variants with no_reclose):
 * the one movement sector with `stones` a side where every capture ends the
 * game (stones == v->min_stones), every state a position plus a live
 * restriction (or none) for each side, no symmetry.  Its own indexing (all
 * arrangements, then the live restriction pairs of each, as mmtb_live_bans
 * lists them), a successor graph from format/movegen.c and a forward level
 * iteration (DTW: a capture ends the game there, a win in 1).  Returns NULL
 * with a message in err on failure (out of memory, a move leaving the
 * sector without ending the game).
 */
struct naive_ban;
struct naive_ban *naive_ban_solve(const struct mmtb_variant *v, int stones, char *err,
                                  size_t errlen);
void naive_ban_free(struct naive_ban *nb);

/* Number of states, and state i: the position (White to move, the mover)
 * and its value for the side to move (dtw -1 for a draw). */
uint64_t naive_ban_states(const struct naive_ban *nb);
void naive_ban_state(const struct naive_ban *nb, uint64_t i, struct mmtb_pos *p, int *wdl,
                     int *dtw);

/*
 * The whole-game oracle (testlib_naive_game.c): every position reachable
 * from the start with w_hand and b_hand stones in hand (White to move) as
 * an explicit graph, hands, side, Shah's first-mill owner and the
 * re-close restrictions included, no symmetry; values (DTW across captures
 * and phases) by a retrograde analysis over the reversed edges, material
 * by material, a removal carrying its target's depth + 1.  Returns NULL
 * with a message in err on failure.
 */
struct naive_game;
struct naive_game *naive_game_solve(const struct mmtb_variant *v, int w_hand, int b_hand,
                                    char *err, size_t errlen);
void naive_game_free(struct naive_game *g);
uint64_t naive_game_states(const struct naive_game *g);
double naive_game_seconds(const struct naive_game *g);

/* State i (0 <= i < naive_game_states): the position and its value for the
 * side to move (dtw -1 for a draw). */
void naive_game_state(const struct naive_game *g, uint64_t i, struct mmtb_pos *p, int *wdl,
                      int *dtw);

/* The moves of state i as edges: successor state << 1 | 1 when the move
 * removed a stone; at most cap of them into out.  Returns the count. */
int naive_game_edges(const struct naive_game *g, uint64_t i, uint64_t *out, int cap);

#endif
