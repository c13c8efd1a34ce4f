/*
 * variant.h - a Morris variant as runtime data: the board (points, lines,
 * mills), the rule flags, and the symmetry group computed from the board.
 * Descriptors are parsed from text (data/variants/NAME.txt, also compiled in as
 * the built-ins).  Pure functions; no threads, no global mutable state.
 */
#ifndef MMTB_VARIANT_H
#define MMTB_VARIANT_H

#include "mmtb_common.h"

/* Which opposing stones a mill may remove. */
enum mmtb_removal {
    MMTB_REMOVE_STANDARD = 0, /* not from a mill, unless all are in mills */
    MMTB_REMOVE_ANY = 1,      /* any stone */
    MMTB_REMOVE_IMMUNE = 2,   /* never from a mill; no removal if all are */
};

/* What a side to move without a legal move does. */
enum mmtb_nomove {
    MMTB_NOMOVE_LOSES = 0,
    MMTB_NOMOVE_PASSES = 1,
};

/*
 * A variant.  Allocated by mmtb_variant_parse/mmtb_variant_load, immutable
 * afterwards, freed with mmtb_variant_free; safe to share between threads.
 */
/* Population count of a board mask: the instruction where the build has
 * it, else a few shifts inline (the compiler's fallback is a library call,
 * which was a fifth of the re-close solver's time). */
static inline int mmtb_popcount32(uint32_t x)
{
#ifdef __POPCNT__
    return __builtin_popcount(x);
#else
    x = x - ((x >> 1) & 0x55555555u);
    x = (x & 0x33333333u) + ((x >> 2) & 0x33333333u);
    x = (x + (x >> 4)) & 0x0f0f0f0fu;
    return (int)((x * 0x01010101u) >> 24);
#endif
}

struct mmtb_variant {
    char name[32];  /* short identifier, e.g. "nine" */
    char title[96]; /* human title, e.g. "Nine Men's Morris" */

    /* Board. */
    int npoints;
    char point_name[MMTB_MAX_POINTS][MMTB_MAX_NAME];
    int8_t x[MMTB_MAX_POINTS], y[MMTB_MAX_POINTS]; /* drawing grid, 0-based, y up */
    uint32_t adj[MMTB_MAX_POINTS];                 /* neighbours along the lines */
    uint32_t full;                                 /* mask of all points */
    int nlines;
    uint8_t line_len[MMTB_MAX_LINES];
    int8_t line[MMTB_MAX_LINES][MMTB_MAX_POINTS]; /* points in order along the line */
    int nmills;
    uint32_t mill[MMTB_MAX_MILLS];         /* each a mask of its points; 0 beyond
                                              nmills (mmtb_variant_nmills_vec) */
    uint64_t mills_at[MMTB_MAX_POINTS];    /* bit m set when mill m contains point */
    uint64_t mills3;                       /* bit m set when mill m has 3 points */
    /* Directed edges Y->X along the lines, numbered by Y then X (the codes
     * of the re-close restrictions): edge_first[Y] is the code of Y's first,
     * nedges their number, edge_y/edge_x the two ends of each code. */
    int nedges;
    int16_t edge_first[MMTB_MAX_POINTS + 1];
    int8_t edge_y[MMTB_MAX_POINTS * MMTB_MAX_POINTS], edge_x[MMTB_MAX_POINTS * MMTB_MAX_POINTS];

    /* Rules. */
    int stones;          /* stones per side at the start */
    int fly;             /* 0: never; N: a side with at most N stones (board + hand) flies */
    int min_stones;      /* a side with fewer stones (board + hand) has lost; default 3 */
    int removal;         /* enum mmtb_removal */
    bool place_captures; /* a mill closed by a placement removes a stone */
    bool first_mill_wins;
    int nomove;          /* enum mmtb_nomove */
    bool full_board_draw;/* a full board when placement ends is a draw */
    bool place_or_move;  /* Lasker: while stones remain in hand, place or move */
    bool no_reclose;     /* Twelve Men's "may not close the same mill again" */
    bool first_mill_removal; /* Shah: placement mills remove nothing; the side that
                                closed the first one opens the movement phase by
                                removing an opposing stone (struct mmtb_pos.first_mill) */
    bool trapped_capture;    /* a mill removes a stone even when the opponent has no
                                move at the start of the turn; default true (Shah: false) */
    bool both_trapped_draw;  /* no move for either side is a drawn game (else the
                                no-move rule applies) */

    /* Symmetry group: every permutation of the points that preserves the
     * adjacency and the set of mills.  sym[0] is the identity; sym_inv[g] is
     * the index of the inverse of g. */
    int nsyms;
    int8_t sym[MMTB_MAX_SYMS][MMTB_MAX_POINTS];
    uint8_t sym_inv[MMTB_MAX_SYMS];
    /* symtab[g][k][byte] = image under g of the points of byte k of a mask;
     * mmtb_sym_apply() ORs four look-ups. */
    uint32_t symtab[MMTB_MAX_SYMS][4][256];

    /* The descriptor in canonical text form (what is written into every
     * table header) and its 64-bit FNV-1a fingerprint. */
    char *text;
    size_t text_len;
    uint64_t fingerprint;
};

/*
 * Parse a descriptor from text.  `source` names the text in error messages
 * (a file name, or "builtin:nine").  On failure returns MMTB_ERR_PARSE (or
 * MMTB_ERR_NOMEM) and writes "SOURCE:LINE: problem" into err.
 */
int mmtb_variant_parse(struct mmtb_variant **out, const char *text, size_t len,
                       const char *source, char *err, size_t errlen);

/*
 * Load a variant by built-in name ("nine", "six", ...) or from a file path
 * (anything containing '/' or ending in ".txt", or any name that is not a
 * built-in).  Errors as mmtb_variant_parse, plus MMTB_ERR_IO.
 */
int mmtb_variant_load(struct mmtb_variant **out, const char *name_or_path,
                      char *err, size_t errlen);

/* Free a variant (NULL is accepted). */
void mmtb_variant_free(struct mmtb_variant *v);

/* The built-in variants: a NULL-terminated list of names, and the text of one
 * (NULL when there is no such built-in). */
const char *const *mmtb_variant_builtin_names(void);
const char *mmtb_variant_builtin_text(const char *name);

/* Point index of a square name, or -1. */
int mmtb_variant_point(const struct mmtb_variant *v, const char *name);

/* Image of a point mask under symmetry g. */
static inline uint32_t mmtb_sym_apply(const struct mmtb_variant *v, int g, uint32_t m)
{
    const uint32_t(*t)[256] = v->symtab[g];
    return t[0][m & 0xff] | t[1][(m >> 8) & 0xff] | t[2][(m >> 16) & 0xff] | t[3][m >> 24];
}

/* More than three neighbours a point on average: a board with diagonals
 * (Morabaraba's, nine-diag's, three-diag's), whose positions have more
 * moves and more captures than a board's without; the solver's plans
 * (gen/plan.c, gen/pair.c) allow for it. */
static inline bool mmtb_variant_dense(const struct mmtb_variant *v)
{
    int deg = 0;
    for (int p = 0; p < v->npoints; p++)
        deg += mmtb_popcount32(v->adj[p]);
    return deg > 3 * v->npoints;
}

/* The number of mills rounded up to 8, for loops that a zero mask leaves
 * unchanged: mill[] is 0 beyond nmills (the parser's struct is zeroed), so
 * such a loop runs whole vectors of mills and no scalar tail. */
_Static_assert(MMTB_MAX_MILLS % 8 == 0, "the rounded count must stay within mill[]");
static inline int mmtb_variant_nmills_vec(const struct mmtb_variant *v)
{
    return (v->nmills + 7) & ~7;
}

/* Mask of the points of colour-mask `own` that lie in a closed mill: the
 * union of the mills whose points all belong to own (a zero mask adds
 * nothing).  Inline and without a branch a mill, so that the compiler runs
 * it over several mills at once (the solver's move generators call it for
 * nearly every position). */
static inline uint32_t mmtb_variant_in_mill(const struct mmtb_variant *v, uint32_t own)
{
    uint32_t r = 0;
    for (int m = 0; m < mmtb_variant_nmills_vec(v); m++)
        r |= (own & v->mill[m]) == v->mill[m] ? v->mill[m] : 0;
    return r;
}

/* True when placing/moving a stone of `own` (which already includes it) on
 * point p closes at least one mill through p. */
static inline bool mmtb_closes_mill(const struct mmtb_variant *v, uint32_t own, int p)
{
    uint64_t ms = v->mills_at[p];
    while (ms) {
        int m = __builtin_ctzll(ms);
        ms &= ms - 1;
        if ((own & v->mill[m]) == v->mill[m])
            return true;
    }
    return false;
}

#endif
