/*
 * notation.h - positions and moves as text: the simple form
 * "WHITE BLACK SIDE [WHITE_HAND BLACK_HAND] [RESTRICTIONS]" (e.g.
 * "d7,g7,g1 a4,g4,d5 b", "- - w 9 9", "a7,d7,b6 a1,d1,g4 b w:b6-c5"),
 * Sanmill FEN on the 24-point boards (plus an 18th field, the
 * restrictions, when one is set), and move tokens "d6",
 * "d6-d5", "d6-d5xb4", "xb4".  Pure functions; errors name the offending
 * field.  The functions are public: declared in mmtb_rules.h (mmtb_pos_parse,
 * mmtb_pos_format, mmtb_fen_supported, mmtb_pos_format_fen, mmtb_move_parse,
 * mmtb_move_format), defined in notation.c.
 */
#ifndef MMTB_NOTATION_H
#define MMTB_NOTATION_H

#include "mmtb_rules.h"
#include "variant.h"

#endif
