/*
 * mmtb_rules.h - the rules and the notation as libmmtb's users and the rest
 * of the project both see them: the start position, validation, legal
 * moves, applying them, game over; positions and moves as text.  Declared
 * once here, defined in format/ (movegen.c, notation.c); installed next to
 * mmtb.h, which includes it.  Depends only on mmtb_common.h.
 *
 * Every function takes the variant (struct mmtb_variant, opaque outside
 * format/; a handle gives it with mmtb_tb_variant) and needs no table.
 * All are pure: thread-safe, no allocation, nothing kept between calls.
 */
#ifndef MMTB_RULES_H
#define MMTB_RULES_H

#include "mmtb_common.h"

#ifdef __cplusplus
extern "C" {
#endif

struct mmtb_variant; /* format/variant.h; opaque to libmmtb's users */

/* ---- The rules ---- */

/* The start position of the variant: empty board, all stones in hand,
 * White to move. */
void mmtb_pos_start(const struct mmtb_variant *v, struct mmtb_pos *p);

/*
 * Check that p is a well-formed position of the variant: stones inside the
 * board, colours disjoint, counts within the variant's stones, remove and
 * ban fields consistent (a restriction must bite, and its side must be able
 * to slide: no stones in hand unless the variant has place_or_move; a
 * first-mill owner must have a mill, and while stones are placed a mill on
 * the board needs an owner).  Returns MMTB_OK or MMTB_ERR_INVALID with a
 * reason in err (err may be NULL).
 */
int mmtb_pos_validate(const struct mmtb_variant *v, const struct mmtb_pos *p, char *err,
                      size_t errlen);

/*
 * The legal whole turns of the side to move, written to out (room for
 * MMTB_MAX_MOVES moves, owned by the caller).  A move that closes a mill is
 * listed once per stone it may remove (or once with remove = -1 when the
 * rule leaves nothing removable).  With p->remove > 0 only the removals
 * are listed (from = to = -1).  When the side to move has no legal move and
 * the variant passes, one pass move is listed.  Returns the count (0 when
 * the game is over, see mmtb_pos_terminal) or a negative status.
 */
int mmtb_gen_moves(const struct mmtb_variant *v, const struct mmtb_pos *p, struct mmtb_move *out);

/* Apply a move that mmtb_gen_moves listed for p, writing the position it
 * leads to (the other side to move) to *out. */
void mmtb_pos_apply(const struct mmtb_variant *v, const struct mmtb_pos *p,
                    const struct mmtb_move *m, struct mmtb_pos *out);

/*
 * Is the game over in p?  MMTB_LOSS when the side to move has lost by the
 * rules (fewer than the variant's minimum of stones; no legal move and the
 * variant does not pass; in a first-mill-wins variant, the opponent has a
 * mill on the board), MMTB_DRAW when the rules end the game drawn (a full
 * board after placement in a variant with full_board_draw), and
 * MMTB_NOT_TERMINAL when the game goes on.
 */
#define MMTB_NOT_TERMINAL 2
int mmtb_pos_terminal(const struct mmtb_variant *v, const struct mmtb_pos *p);

/* ---- Positions and moves as text ---- */

/* Room for any position or move text of any variant, with its NUL. */
#define MMTB_TEXT_MAX 640

/*
 * Parse a position in either notation: the simple form "WHITE BLACK SIDE
 * [WHITE_HAND BLACK_HAND] [RESTRICTIONS]" ("d7,g7,g1 a4,g4,d5 b",
 * "- - w 9 9", "a7,d7,b6 a1,d1,g4 b w:b6-c5") or, on the 24-point boards,
 * Sanmill FEN (recognised by its '/' separators; an 18th field holds the
 * restrictions when one is set).  The result is checked as
 * mmtb_pos_validate does.  Returns MMTB_OK, or MMTB_ERR_PARSE with a
 * message naming the offending field in err (err may be NULL).
 */
int mmtb_pos_parse(const struct mmtb_variant *v, const char *text, struct mmtb_pos *p, char *err,
                   size_t errlen);

/* Write p in the simple form into buf (hands written when either is
 * non-zero, the re-close restrictions when one is set).  Returns the
 * length of the whole text as snprintf does (cut to len - 1 bytes when
 * longer; MMTB_TEXT_MAX bytes always suffice). */
int mmtb_pos_format(const struct mmtb_variant *v, const struct mmtb_pos *p, char *buf, size_t len);

/* True when the variant's board has the 24 standard square names, so
 * Sanmill FEN applies. */
bool mmtb_fen_supported(const struct mmtb_variant *v);

/* Write p as a Sanmill FEN (17 fields) into buf.  Returns the length
 * written (snprintf semantics; MMTB_TEXT_MAX bytes suffice), or
 * MMTB_ERR_UNSUPPORTED when the board has no FEN. */
int mmtb_pos_format_fen(const struct mmtb_variant *v, const struct mmtb_pos *p, char *buf,
                        size_t len);

/* Parse a move token ("d6", "d6xb4", "d6-d5", "d6-d5xb4", "xb4", "pass";
 * "x-" for a mill that leaves nothing removable).  Checks the syntax
 * and the square names only; whether the move is legal in a position is
 * the caller's business (compare with mmtb_gen_moves).  Returns MMTB_OK or
 * MMTB_ERR_PARSE with a message in err (err may be NULL). */
int mmtb_move_parse(const struct mmtb_variant *v, const char *text, struct mmtb_move *m, char *err,
                    size_t errlen);

/* Write a move token into buf (snprintf semantics; MMTB_TEXT_MAX bytes
 * suffice). */
int mmtb_move_format(const struct mmtb_variant *v, const struct mmtb_move *m, char *buf,
                     size_t len);

#ifdef __cplusplus
}
#endif
#endif
