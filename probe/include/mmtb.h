/*
 * mmtb.h - libmmtb, the public probe API of the Morris tablebases: open a
 * directory of solved sectors, read values in bulk, probe positions, list
 * moves with their values, play out principal variations.
 * Depends only on mmtb_common.h (types and status codes) and mmtb_rules.h
 * (the rules and the notation), installed next to it; never links OpenMP,
 * has no global state and never exits or aborts.
 *
 * The functions, by group (each group below under its own banner):
 *   1. open and close   mmtb_tb_open, mmtb_tb_close, mmtb_ctx_create,
 *                       mmtb_ctx_free, mmtb_ctx_cache_usage, mmtb_tb_variant,
 *                       mmtb_tb_index, mmtb_version
 *   2. probe            mmtb_probe, mmtb_probe_wdl, mmtb_probe_moves,
 *                       mmtb_probe_move, mmtb_probe_pv, mmtb_tb_read
 *   3. moves, notation  mmtb_variant_name, mmtb_variant_title, and
 *                       mmtb_rules.h: mmtb_pos_start, mmtb_pos_validate,
 *                       mmtb_gen_moves, mmtb_pos_apply, mmtb_pos_terminal,
 *                       mmtb_pos_parse, mmtb_pos_format, mmtb_fen_supported,
 *                       mmtb_pos_format_fen, mmtb_move_parse, mmtb_move_format
 *   4. statistics       mmtb_tb_sector_count, mmtb_tb_sector_info,
 *                       mmtb_tb_sector_key, mmtb_tb_sector_find,
 *                       mmtb_tb_sector_stats
 *   5. integrity        mmtb_tb_verify_sector, mmtb_tb_verify_sector_hash;
 *                       the whole-file pass and the
 *                       detail of a failed probe: mmtb_integrity.h
 * Each function's comment is its contract: what its parameters must be,
 * what it returns (a status of mmtb_common.h or a count), and whether it
 * is thread-safe.
 *
 * Threads: an mmtb_tb handle is shared by any number of threads (sector
 * files are opened lazily under a mutex); each thread brings its own
 * mmtb_ctx (a zstd decompression context and a bounded block cache).
 *
 * Values: wdl is for the side to move (MMTB_WIN / MMTB_DRAW / MMTB_LOSS);
 * dtw is the depth to win in plies (plies until the end of the game, the
 * winner shortening and the loser lengthening it, across captures and phases),
 * -1 for a draw.  A side to move that has lost by the rules has lost in 0.
 */
#ifndef MMTB_H
#define MMTB_H

#include "mmtb_common.h"
#include "mmtb_rules.h"

/* The library's version; mmtb_version() gives the one it was built as.  The
 * build checks these against the CMake project version. */
#define MMTB_VERSION_MAJOR 0
#define MMTB_VERSION_MINOR 1
#define MMTB_VERSION_PATCH 0

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------
 * 1. Open and close: the shared handle and the per-thread contexts
 * ------------------------------------------------------------------------ */

struct mmtb_variant; /* opaque here (format/variant.h) */
struct mmtb_index;   /* sector_index.h (typedef mmtb_index) */

typedef struct mmtb_tb mmtb_tb;   /* an open table directory (shared) */
typedef struct mmtb_ctx mmtb_ctx; /* per-thread probing context */

/* Default block cache of a context created with cache_bytes 0 when the
 * handle's options do not set one. */
#define MMTB_DEFAULT_CACHE_BYTES ((size_t)4 << 20)

/* Options of mmtb_tb_open; a NULL pointer means all defaults (zeros). */
struct mmtb_tb_opts {
    size_t cache_bytes; /* default cache of contexts created with 0; 0 = MMTB_DEFAULT_CACHE_BYTES */
    unsigned flags;     /* MMTB_OPEN_* */
    char *err;          /* optional: receives a message when mmtb_tb_open fails */
    size_t errlen;      /* size of err */
};
/* Check each sector file's whole-file checksum (reads the whole file) when
 * the file is first opened, instead of only its header and block tables. */
#define MMTB_OPEN_VERIFY 1u

/*
 * Open the table directory `dir`: reads and validates DIR/MANIFEST (variant
 * descriptor, fingerprint, the list of the game's sectors) and builds the
 * symmetry-reduced index of the variant.  Sector files are opened later, the
 * first time a probe needs them; every file's fingerprint, sector and
 * index scheme are checked against the manifest then.  Besides the
 * contexts' caches the handle holds, for a sector with Twelve's
 * restrictions, a byte per scheme 1 slot of the blocks its probes have
 * ranked positions with a restriction in (counted once, on first use, from
 * the file's count table: format/FORMAT.md), or of the whole sector for a
 * file without a count table (built when the file is opened).
 * Open files: the handle keeps the sector files it read last open, at most
 * a quarter of the process's descriptor limit (RLIMIT_NOFILE when it
 * opens; 4 to 4096) idle at once, and opens the others again when a probe
 * needs them; a file found replaced or changed then (size or footer) makes
 * those probes fail with MMTB_ERR_CORRUPT.
 * Returns MMTB_OK and a handle in *tb, or MMTB_ERR_IO (no such directory,
 * unreadable), MMTB_ERR_MISSING (no MANIFEST), MMTB_ERR_CORRUPT (a damaged
 * manifest), MMTB_ERR_UNSUPPORTED (a newer manifest or index scheme),
 * MMTB_ERR_NOMEM, MMTB_ERR_INVALID (NULL arguments); *tb is NULL then and a
 * message is written to opts->err when given.
 * Not thread-safe with respect to *tb until it returns; the handle is owned
 * by the caller and freed with mmtb_tb_close.
 */
int mmtb_tb_open(mmtb_tb **tb, const char *dir, const struct mmtb_tb_opts *opts);

/* Close a handle (NULL is accepted).  Every context created on it must be
 * freed first.  Not thread-safe: no other thread may use the handle. */
void mmtb_tb_close(mmtb_tb *tb);

/*
 * Create a per-thread context on tb with a block cache of at most
 * cache_bytes of decompressed blocks (0: the handle's default; at least one
 * block is always kept).  Returns MMTB_OK, MMTB_ERR_NOMEM or
 * MMTB_ERR_INVALID.  A context is used by one thread at a time; it is owned
 * by the caller and must be freed before the handle is closed.  Thread-safe:
 * any thread may create contexts on a shared handle.
 */
int mmtb_ctx_create(mmtb_ctx **ctx, const mmtb_tb *tb, size_t cache_bytes);

/* Free a context and its cache (NULL is accepted).  The thread that uses
 * the context must be done with it. */
void mmtb_ctx_free(mmtb_ctx *ctx);

/*
 * What the context's block cache holds now: *bytes, the decompressed bytes
 * charged against its budget (block data and per-block counts; at most the
 * budget, or one block's charge when a single block is larger), and
 * *blocks, the number of cached blocks.  Either pointer may be NULL.  For
 * callers sizing caches and for tests; same thread rules as the context.
 */
void mmtb_ctx_cache_usage(const mmtb_ctx *ctx, size_t *bytes, size_t *blocks);

/* The variant of the tables (owned by the handle, valid until close).
 * Thread-safe. */
const struct mmtb_variant *mmtb_tb_variant(const mmtb_tb *tb);

/* The index the handle ranks positions with (owned by the handle; opaque
 * outside the project: mmtb-gen and mmtb_tb_read's callers that know the
 * index use it).  Thread-safe. */
const struct mmtb_index *mmtb_tb_index(const mmtb_tb *tb);

/* The version of the library in use, "MAJOR.MINOR.PATCH" (a static string).
 * Thread-safe. */
const char *mmtb_version(void);

/* ------------------------------------------------------------------------
 * 2. Probe: values of positions and of their moves, bulk reads
 * ------------------------------------------------------------------------ */

/* A value for the side to move: wdl is MMTB_WIN, MMTB_DRAW or MMTB_LOSS;
 * dtw in plies, -1 for a draw. */
struct mmtb_value {
    int wdl;
    int dtw;
};

/*
 * The value of position p for its side to move.  A position where the game
 * is over (mmtb_pos_terminal) is a loss in 0 or a draw without looking at a
 * table; a position with p->remove > 0 takes its best removal, and Shah's
 * opening (both hands empty, a first-mill owner) its best move (the
 * owner's removal, or the other side's pass); any other is looked up (any
 * symmetric image gives the same answer).  In a packed sector (`mmtb-gen
 * pack`) a win's depth is not stored: it is found from the depths of the
 * positions its winning moves lead to, a look-up per move.
 * Returns MMTB_OK, MMTB_ERR_INVALID (p not a valid position of the
 * variant), MMTB_ERR_NOT_IN_GAME (its sector is not in the manifest's game),
 * MMTB_ERR_MISSING (the sector's file is absent), MMTB_ERR_CORRUPT,
 * MMTB_ERR_IO, MMTB_ERR_NOMEM.  Twelve Men's re-close restrictions and
 * Shah's first-mill owner are part of the position (the tables of no_reclose
 * variants, and the placement sectors of first_mill_removal ones, store
 * them).
 * Thread-safe with one context per thread.
 */
int mmtb_probe(mmtb_ctx *ctx, const struct mmtb_pos *p, struct mmtb_value *out);

/*
 * As mmtb_probe, W/D/L only (*wdl is MMTB_WIN, MMTB_DRAW or MMTB_LOSS); never
 * reads the DTW plane.  Same returns and thread safety.
 */
int mmtb_probe_wdl(mmtb_ctx *ctx, const struct mmtb_pos *p, int *wdl);

/* A legal move with the value it leads to, for the side that moves. */
struct mmtb_move_value {
    struct mmtb_move move;
    struct mmtb_value value;
};

/*
 * Every legal move of p (mmtb_gen_moves) with its value, best first: wins by
 * smallest dtw, then draws, then losses by largest dtw; ties keep the order
 * of mmtb_gen_moves.  The value of a move m to q = apply(p, m): a win in 1
 * if q is a lost game for its side to move; else the negated value of q at
 * q's dtw + 1, a capture like any other move.  For every position the tables store, mmtb_probe(p) equals the
 * value of the first move.
 * Writes the best min(count, cap) moves to out and returns the count of
 * legal moves (0 when the game is over; MMTB_MAX_MOVES always suffices), or
 * a negative status as mmtb_probe.  Thread-safe with one context per thread.
 */
int mmtb_probe_moves(mmtb_ctx *ctx, const struct mmtb_pos *p, struct mmtb_move_value *out,
                     int cap);

/*
 * The value of one legal move m of p for the side that makes it, by the
 * rule of mmtb_probe_moves (a win in 1 when it ends the game; else the
 * negated value of the position it leads to, at depth 1 after a capture and
 * at that position's depth + 1 otherwise).  Two look-ups at most, where
 * mmtb_probe_moves makes one per legal move: for checking a chosen move.
 * Returns MMTB_OK, MMTB_ERR_INVALID (m is not one of mmtb_gen_moves(p), or
 * the game is over in p), or a status as mmtb_probe.  Thread-safe with one
 * context per thread.
 */
int mmtb_probe_move(mmtb_ctx *ctx, const struct mmtb_pos *p, const struct mmtb_move *m,
                    struct mmtb_value *out);

/*
 * A principal variation: from p, play a best move (the first of
 * mmtb_probe_moves) for either side until the game is over or cap moves
 * have been written (drawn positions play on until cap).  Returns the number
 * of moves written to out, or a negative status as mmtb_probe.  Thread-safe
 * with one context per thread.
 */
int mmtb_probe_pv(mmtb_ctx *ctx, const struct mmtb_pos *p, struct mmtb_move *out, int cap);

/*
 * Bulk read of the stored values of slots [first, first + count) of sector
 * s, in the writer's encoding: wdl[i] 0 = loss, 1 = draw, 2 = win for the
 * side to move; dtw[i] in plies (0 for a draw).  dtw may be NULL: then only
 * the W/D/L plane is read.  Slots that are not canonical
 * (mmtb_index_slot_is_canonical false) hold unspecified values in 0..2.
 * Returns MMTB_OK, MMTB_ERR_NOT_IN_GAME, MMTB_ERR_MISSING,
 * MMTB_ERR_INVALID (range outside the sector), MMTB_ERR_CORRUPT, MMTB_ERR_IO,
 * or MMTB_ERR_UNSUPPORTED when dtw is not NULL and the sector is packed
 * (`mmtb-gen pack`: its wins' depths are not stored; mmtb_probe finds them
 * by search, and a read with dtw NULL works).
 * Uses and fills the context's cache.  Thread-safe with one context per
 * thread.
 */
int mmtb_tb_read(mmtb_ctx *ctx, struct mmtb_sector s, uint64_t first, uint64_t count,
                 uint8_t *wdl, uint16_t *dtw);

/* ------------------------------------------------------------------------
 * 3. Moves and notation
 * The rules and the text forms are mmtb_rules.h's (included above): they
 * take the variant of an open handle (mmtb_tb_variant) and need no table.
 * ------------------------------------------------------------------------ */

/* The variant's short name ("nine", "three-diag", ...) and its human title
 * ("Nine Men's Morris"); strings owned by the variant.  Thread-safe. */
const char *mmtb_variant_name(const struct mmtb_variant *v);
const char *mmtb_variant_title(const struct mmtb_variant *v);

/* ------------------------------------------------------------------------
 * 4. Statistics: the sectors of the solved game
 * ------------------------------------------------------------------------ */

/*
 * Per-sector statistics, over canonical positions (one per symmetry orbit),
 * values for the side to move.  max_win / max_loss are the largest DTW of a
 * win / loss in plies, -1 when the sector has none.  This is the one
 * definition: the writer (gen/tablewrite.h) reports the same struct.
 */
struct mmtb_sector_stats {
    uint64_t slots;     /* index slots, canonical or not */
    uint64_t canonical; /* canonical positions = wins + draws + losses */
    uint64_t wins, draws, losses;
    int32_t max_win, max_loss;
};

/* Number of sectors of the solved game (from the manifest; 0 for a NULL
 * handle).  Thread-safe. */
int mmtb_tb_sector_count(const mmtb_tb *tb);

/* What is known about one sector of the game. */
struct mmtb_sector_info {
    struct mmtb_sector sector;
    int status; /* MMTB_OK (file present and valid), MMTB_ERR_MISSING,
                   MMTB_ERR_CORRUPT, MMTB_ERR_MISMATCH, MMTB_ERR_IO, ... */
    struct mmtb_sector_stats stats; /* from the file header; zeros unless status is MMTB_OK */
    uint64_t file_bytes;  /* size of the sector file */
    uint64_t wdl_bytes;   /* compressed bytes of the W/D/L plane */
    uint64_t dtw_bytes;   /* compressed bytes of the DTW plane */
    int dtw_width;        /* bytes per slot of the DTW plane (0: no DTW plane) */
    char detail[160];     /* a message when status is not MMTB_OK */
};

/*
 * Information on sector i (0 <= i < mmtb_tb_sector_count, in manifest
 * order), opening its file if that has not happened yet.  Returns MMTB_OK
 * with info filled in (info->status tells whether the file is usable), or
 * MMTB_ERR_INVALID for a bad i.  Thread-safe.
 */
int mmtb_tb_sector_info(const mmtb_tb *tb, int i, struct mmtb_sector_info *info);

/* The key of sector i (0 <= i < mmtb_tb_sector_count, in manifest order)
 * without opening its file, which for a sector with Twelve's restrictions
 * written without a count table (format/FORMAT.md) means walking all its
 * positions.  Returns MMTB_OK (*s set) or MMTB_ERR_INVALID for a bad i.
 * Thread-safe. */
int mmtb_tb_sector_key(const mmtb_tb *tb, int i, struct mmtb_sector *s);

/* Position of sector s in the game's list, MMTB_ERR_NOT_IN_GAME, or
 * MMTB_ERR_INVALID for a NULL handle.  Thread-safe. */
int mmtb_tb_sector_find(const mmtb_tb *tb, struct mmtb_sector s);

/*
 * Statistics of sector s from its file header.  Returns MMTB_OK,
 * MMTB_ERR_NOT_IN_GAME, MMTB_ERR_MISSING (in the game, no file yet), or the
 * error that made the file unusable (MMTB_ERR_CORRUPT, ...).  A missing file
 * is looked for again on every call, so sectors written after the open are
 * found.  Thread-safe.
 */
int mmtb_tb_sector_stats(const mmtb_tb *tb, struct mmtb_sector s, struct mmtb_sector_stats *stats);

/* ------------------------------------------------------------------------
 * 5. Integrity
 * mmtb_integrity.h adds the whole-file pass with every problem reported
 * (mmtb_tb_verify_file) and the detail of a failed probe (mmtb_ctx_error).
 * ------------------------------------------------------------------------ */

/*
 * Check one sector file completely: the whole-file checksum, every block's
 * checksum, every block decompresses and holds only valid values.  Reads the
 * whole file (no cache).  Returns MMTB_OK or the error, with a message in err
 * (may be NULL).  Thread-safe.
 */
int mmtb_tb_verify_sector(const mmtb_tb *tb, struct mmtb_sector s, char *err, size_t errlen);

/*
 * The lighter check: every byte of the sector file read and hashed against
 * its whole-file checksum (the footer's, which the manifest records),
 * nothing decompressed.  Any change to a file since it was written fails
 * it; what it does not re-check is the values the writer checked before it
 * hashed the file.  About four times faster than mmtb_tb_verify_sector;
 * what a solver uses to trust the files of an earlier run.  Returns MMTB_OK
 * or the error, with a message in err (may be NULL).  Thread-safe.
 */
int mmtb_tb_verify_sector_hash(const mmtb_tb *tb, struct mmtb_sector s, char *err,
                               size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
