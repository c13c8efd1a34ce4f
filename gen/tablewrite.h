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
 * 2 = win, 3 = unused (a non-canonical slot); dtc[i] in plies (0 for draws
 * and unused slots).  Called concurrently from several threads on disjoint
 * ranges, twice per slot (the writer makes separate passes for the
 * statistics and W/D/L plane and for the DTC plane; a sector without a DTC
 * plane gets its W/D/L pass twice), so it must return the same values each
 * time.
 */
typedef void (*mmtb_fill_fn)(void *ctx, uint64_t first, uint64_t count, uint8_t *wdl,
                             uint16_t *dtc);

/* Writer options; a NULL pointer or zeros mean the defaults. */
struct mmtb_write_opts {
    int zstd_level;     /* 1..22 for both planes; 0 = 15 for W/D/L, 6 for DTC */
    int wdl_block_log2; /* slots per W/D/L block = 2^this, 10..22; 0 = 18 (64 KiB) */
    int dtc_block_log2; /* slots per DTC block = 2^this, 10..wdl_block_log2; 0 = 14 */
    int dtc_zstd_level; /* 1..22 for the DTC plane; 0 = zstd_level (or its default) */
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

/* "DIR/<file name of sector s>" (snprintf semantics). */
int mmtb_table_sector_path(const char *dir, struct mmtb_sector s, char *buf, size_t len);

#endif
