/*
 * notation.h - positions and moves as text: the simple form
 * "WHITE BLACK SIDE [WHITE_HAND BLACK_HAND] [RESTRICTIONS]" (e.g.
 * "d7,g7,g1 a4,g4,d5 b", "- - w 9 9", "a7,d7,b6 a1,d1,g4 b w:b6-c5"),
 * Sanmill FEN on the 24-point boards (plus an 18th field, the
 * restrictions, when one is set), and move tokens "d6",
 * "d6-d5", "d6-d5xb4", "xb4".  Pure functions; errors name the offending
 * field.
 */
#ifndef MMTB_NOTATION_H
#define MMTB_NOTATION_H

#include "variant.h"

/*
 * Parse a position in either notation (FEN is recognised by its '/'
 * separators).  Returns MMTB_OK, or MMTB_ERR_PARSE with a message naming
 * the field in err.  The result is validated with mmtb_pos_validate.
 */
int mmtb_pos_parse(const struct mmtb_variant *v, const char *text, struct mmtb_pos *p,
                   char *err, size_t errlen);

/* Print in the simple form; hands are written when either is non-zero, the
 * re-close restrictions when one is set.  Returns the length written
 * (snprintf semantics). */
int mmtb_pos_format(const struct mmtb_variant *v, const struct mmtb_pos *p, char *buf,
                    size_t len);

/* True when the variant's board has the 24 standard square names, so FEN
 * applies. */
bool mmtb_fen_supported(const struct mmtb_variant *v);

/* Print as a Sanmill FEN (17 fields).  Returns the length written, or
 * MMTB_ERR_UNSUPPORTED when the board has no FEN. */
int mmtb_pos_format_fen(const struct mmtb_variant *v, const struct mmtb_pos *p, char *buf,
                        size_t len);

/* Move tokens.  Parsing checks the syntax and the square names only;
 * legality is the caller's business (compare with mmtb_gen_moves). */
int mmtb_move_parse(const struct mmtb_variant *v, const char *text, struct mmtb_move *m,
                    char *err, size_t errlen);
int mmtb_move_format(const struct mmtb_variant *v, const struct mmtb_move *m, char *buf,
                     size_t len);

#endif
