/*
 * tablewrite.h - writing solved sectors and the directory MANIFEST in the
 * format of format/FORMAT.md.  The solver hands over values through a fill
 * callback; blocks are compressed in parallel (OpenMP) and written in order,
 * so the bytes do not depend on the number of threads.  Files appear
 * atomically (NAME.tmp, fsync, verify, rename).
 */
#ifndef MMTB_TABLEWRITE_H
#define MMTB_TABLEWRITE_H

#include "mmtb.h"
#include "variant.h"

/*
 * Fill values for slots [first, first + count): wdl[i] 0 = loss, 1 = draw,
 * 2 = win, 3 = unused (a non-canonical slot); dtw[i] in plies (0 for draws
 * and unused slots).  Called concurrently from several threads on disjoint
 * ranges, twice per slot (the writer makes separate passes for the
 * statistics and W/D/L plane and for the DTW plane; a sector without a DTW
 * plane gets its W/D/L pass twice), so it must return the same values each
 * time.
 */
typedef void (*mmtb_fill_fn)(void *ctx, uint64_t first, uint64_t count, uint8_t *wdl,
                             uint16_t *dtw);

/*
 * A block packed and compressed by another process (a pair split among
 * ranks, gen/split.c): what the writer needs of it besides its bytes.
 */
struct mmtb_made_block {
    uint64_t raw_hash; /* of the raw bytes, checked when read back */
    uint32_t csize;    /* stored bytes */
    uint32_t hash;     /* of the stored bytes (the block table's) */
    uint32_t raw_size;
    int32_t rc;        /* MMTB_OK, or the compressor's error */
    /* the W/D/L plane: its values' statistics */
    uint64_t canonical, wins, draws, losses;
    int32_t max_win, max_loss;
    int32_t bad; /* a value outside the rules */
};

/*
 * Blocks whose slots another process holds.  Before each plane the writer
 * calls plane_start with the settings the blocks must be made with; for
 * the blocks [b, b + n) of a plane that remote() says lie elsewhere (whole
 * blocks always do, or always do not), get() returns each one's
 * description in made[k] and its bytes at buf + k * bound.  The calls
 * come from one thread.  Return MMTB_OK or a status.
 */
struct mmtb_block_source {
    void *ctx;
    bool (*remote)(void *ctx, uint64_t first_slot);
    int (*plane_start)(void *ctx, int plane, int dtw_width);
    int (*get)(void *ctx, int plane, uint64_t b, uint64_t n, uint8_t *buf, size_t bound,
               struct mmtb_made_block *made);
};

/* Writer options; a NULL pointer or zeros mean the defaults. */
struct mmtb_write_opts {
    int zstd_level;     /* 1..22 for both planes; 0 = 15 for W/D/L, 6 for DTW */
    int wdl_block_log2; /* slots per W/D/L block = 2^this, 10..22; 0 = 18 (64 KiB) */
    int dtw_block_log2; /* slots per DTW block = 2^this, 10..wdl_block_log2; 0 = 14 */
    int dtw_zstd_level; /* 1..22 for the DTW plane; 0 = zstd_level (or its default) */
    const struct mmtb_block_source *remote; /* NULL: every block is made here */
    /* The count table of a sector with re-close restrictions (FORMAT.md,
     * "Count table"; mmtb_ban_index_block_counts): count_blocks entries
     * for blocks of 2^count_block_log2 scheme 1 slots.  NULL / 0: none
     * (readers then walk the sector to rank). */
    const uint32_t *counts;
    uint32_t count_blocks;
    int count_block_log2;
};

/*
 * Write sector s of variant v (slots index slots) as DIR/<name>
 * (mmtb_table_sector_path), and record it in DIR/MANIFEST when that exists.
 * Statistics are computed from the filled values (canonical = slots with
 * wdl != 3) and returned in *stats (may be NULL).  The file is written as
 * NAME.tmp, fsync'd, read back and checked against the hashes of the
 * blocks' raw bytes and the counts, then
 * renamed over NAME; on any error the .tmp is removed, nothing else
 * changes, and a message goes to err.
 * Returns MMTB_OK, MMTB_ERR_IO, MMTB_ERR_NOMEM, MMTB_ERR_INVALID (bad
 * arguments or values: a win of depth 0, a depth above 65535, a draw with a
 * depth), MMTB_ERR_MISMATCH (the manifest belongs to another variant) or
 * MMTB_ERR_CORRUPT (the read-back differs: a bug or failing disk).
 * Uses OpenMP threads inside; call it from one thread at a time per
 * directory.
 */
int mmtb_table_write_sector(const char *dir, const struct mmtb_variant *v, struct mmtb_sector s,
                            uint64_t slots, mmtb_fill_fn fill, void *ctx,
                            const struct mmtb_write_opts *o, struct mmtb_sector_stats *stats,
                            char *err, size_t errlen);

/*
 * Create or update DIR/MANIFEST for variant v with the game's sectors
 * game[0..n).  An existing manifest must be of the same variant
 * (fingerprint) or MMTB_ERR_MISMATCH is returned; its game list is extended
 * by the new sectors (never shrunk, so earlier runs' sectors stay in the
 * game) and its file entries are kept.  Written atomically (MANIFEST.tmp, fsync, rename).  Returns MMTB_OK,
 * MMTB_ERR_IO, MMTB_ERR_NOMEM, MMTB_ERR_MISMATCH, MMTB_ERR_CORRUPT (an
 * unreadable existing manifest; it is left alone) with a message in err.
 */
int mmtb_table_write_manifest(const char *dir, const struct mmtb_variant *v,
                              const struct mmtb_sector *game, int n, char *err, size_t errlen);

/*
 * Record the finished file of sector s (already in DIR and checked by the
 * caller) in the MANIFEST when its `file` line is absent or differs: a run
 * killed between a sector's rename and the manifest update leaves the file
 * without its line, and the rerun that keeps the file adds it.  Reads the
 * file's footer for its size and hash.  No manifest: nothing to do.
 * Returns MMTB_OK or an error with a message in err.
 */
int mmtb_table_record_file(const char *dir, const struct mmtb_variant *v, struct mmtb_sector s,
                           char *err, size_t errlen);

/* Read the footer of sector s's file in DIR (after its header, which must
 * decode): *f gets the file's size and its recorded file_hash.  Returns
 * MMTB_OK, or MMTB_ERR_IO / MMTB_ERR_CORRUPT with the path in err. */
struct mmtb_tf_footer;
int mmtb_table_file_footer(const char *dir, struct mmtb_sector s, struct mmtb_tf_footer *f,
                           char *err, size_t errlen);

/* pread exactly n bytes at off of fd: MMTB_OK, MMTB_ERR_IO, or
 * MMTB_ERR_CORRUPT when the file ends first. */
int mmtb_table_pread(int fd, void *buf, size_t n, uint64_t off);

/* pwrite exactly n bytes at off of fd, retrying short writes: MMTB_OK or
 * MMTB_ERR_IO (errno says why). */
int mmtb_table_pwrite(int fd, const void *buf, size_t n, uint64_t off);

/* fsync directory dir, so that a rename in it is durable (best effort). */
void mmtb_table_sync_dir(const char *dir);

/* "DIR/<file name of sector s>" (snprintf semantics). */
int mmtb_table_sector_path(const char *dir, struct mmtb_sector s, char *buf, size_t len);

/*
 * The other side of a block source: make the blocks [b0, b1) of a plane of
 * sector s (slots slots) with the values of fill, as
 * mmtb_table_write_sector with the options o would for the DTW width
 * dtw_width, into *bytes (malloc'd, the blocks one after the other) and
 * made[0 .. b1 - b0).  Uses the OpenMP threads.  Returns MMTB_OK or a
 * status.
 */
int mmtb_table_make_blocks(const struct mmtb_variant *v, struct mmtb_sector s, uint64_t slots,
                           mmtb_fill_fn fill, void *ctx, const struct mmtb_write_opts *o,
                           int plane, int dtw_width, uint64_t b0, uint64_t b1, uint8_t **bytes,
                           struct mmtb_made_block *made);

#endif
