/*
 * mmtb_common.h - types shared by every mmtb module and by users of libmmtb:
 * status codes, positions, moves, sectors.  Plain data only; this header has
 * no dependencies beyond the C standard library and is installed next to
 * mmtb.h.
 */
#ifndef MMTB_COMMON_H
#define MMTB_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Limits of a variant descriptor.  Points are bits of a uint32_t. */
#define MMTB_MAX_POINTS 32
#define MMTB_MAX_MILLS 64
#define MMTB_MAX_LINES 64
#define MMTB_MAX_SYMS 64
#define MMTB_MAX_NAME 16 /* point names, including the terminating NUL */
/* Upper bound on whole-turn moves from one position (placement or flight
 * times removals); generators check it and fail with MMTB_ERR_INVALID. */
#define MMTB_MAX_MOVES 2048

/*
 * Status codes.  Every function that can fail returns one of these (or a
 * non-negative count); the values are pinned and never reused.
 */
enum mmtb_status {
    MMTB_OK = 0,
    MMTB_ERR_INVALID = -1,     /* bad argument, or input that breaks the rules */
    MMTB_ERR_NOMEM = -2,       /* allocation failed */
    MMTB_ERR_IO = -3,          /* a file could not be read or written */
    MMTB_ERR_CORRUPT = -4,     /* a table file's bytes are damaged */
    MMTB_ERR_MISSING = -5,     /* the sector this needs is not in the directory */
    MMTB_ERR_MISMATCH = -6,    /* table of another variant or index scheme */
    MMTB_ERR_UNSUPPORTED = -7, /* format version or rule not supported */
    MMTB_ERR_PARSE = -8,       /* malformed text (position, move, descriptor) */
    MMTB_ERR_NOT_IN_GAME = -9, /* position outside the solved game */
};

/* A human-readable description of a status code (a static string, for
 * any int; unknown codes get a generic text).  Thread-safe. */
const char *mmtb_strerror(int status);

/* Colours.  White moves first from the start position. */
enum mmtb_colour { MMTB_WHITE = 0, MMTB_BLACK = 1 };

/*
 * A position.  stones[c] has bit i set when colour c occupies point i (point
 * numbering is the order of the variant descriptor).  hand[c] counts the
 * stones colour c still has to place.  side is the colour to move.
 *
 * remove is the number of opposing stones the side to move must remove
 * before anything else (Sanmill FEN action 'r': a mill was closed and the
 * removal is pending); 0 in every stored position.
 *
 * ban_from/ban_to hold the Twelve Men's rule "a stone moved out of a mill
 * may not close that mill again on its owner's next turn", one pending
 * restriction per side, encoded as described in format/movegen.c; decode
 * them with mmtb_pos_ban().  Both are -1 when no restriction applies (always,
 * outside variants with no_reclose).
 *
 * first_mill is Shah's "the player who was the first one to create a mill"
 * (variants with first_mill_removal): MMTB_FIRST_MILL_NONE (0, the default,
 * and always outside those variants and once the movement phase has begun)
 * or MMTB_FIRST_MILL_OF(colour).  While it is set with both hands empty,
 * that colour's next turn is the removal that opens the movement phase.
 */
#define MMTB_FIRST_MILL_NONE 0
#define MMTB_FIRST_MILL_OF(c) ((uint8_t)(1 + (c)))
struct mmtb_pos {
    uint32_t stones[2];
    uint8_t hand[2];
    uint8_t side;
    uint8_t remove;
    int8_t ban_from;
    int8_t ban_to;
    uint8_t first_mill;
};

/*
 * A whole turn.  from is the point left (-1 for a placement, MMTB_MOVE_PASS
 * for a pass); to is the point reached (-1 for a pure removal, i.e. a move
 * from a position with remove > 0); remove is the opposing stone removed
 * after a mill (-1 when none).
 */
#define MMTB_MOVE_PASS (-2)
struct mmtb_move {
    int8_t from;
    int8_t to;
    int8_t remove;
};

/*
 * A sector: stone counts with the side to move first.  Colours are
 * normalised away: (w, b, w_hand, b_hand) always means "the side to move has
 * w stones on the board and w_hand in hand; its opponent b and b_hand".
 */
struct mmtb_sector {
    uint8_t w, b, w_hand, b_hand;
};

/* Game-theoretic values for the side to move. */
enum mmtb_wdl { MMTB_LOSS = -1, MMTB_DRAW = 0, MMTB_WIN = 1 };

#ifdef __cplusplus
}
#endif
#endif
