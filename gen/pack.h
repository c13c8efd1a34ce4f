/*
 * pack.h - `mmtb-gen pack`: rewrite the finished sector files of a table
 * directory in value encoding 2 (format/FORMAT.md, "Packed sectors"): the
 * W/D/L plane byte for byte, the DTW plane cut down to the depths of the
 * losses.  A reader finds a win's depth by searching its moves, one ply.
 */
#ifndef MMTB_PACK_H
#define MMTB_PACK_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "mmtb.h"

struct mmtb_pack_opts {
    const char *dir;
    int zstd_level; /* of the new DTW blocks; 0: the writer's default (6) */
    int threads;    /* 0: all cores */
    const struct mmtb_sector *only; /* if n_only > 0: pack only these sectors */
    int n_only;
    bool quiet;     /* no line per sector */
    bool json;      /* the summary as one JSON object */
    FILE *report;   /* NULL: stdout */
};

/* What a pack did. */
struct mmtb_pack_result {
    int packed;         /* sector files rewritten */
    int already;        /* found packed (left alone; their manifest lines checked) */
    int without_depths; /* no wins with a depth to drop (left alone) */
    uint64_t bytes_before, bytes_after; /* of the files rewritten */
};

/*
 * Pack every finished sector file of opts->dir (or of opts->only).  Each file is written as
 * NAME.tmp, fsync'd, read back and compared with what was meant, renamed
 * over NAME, and its manifest line updated; an interrupted pack leaves
 * every file either as it was or packed, and a rerun finishes the rest.
 * Returns MMTB_OK (res filled in when not NULL) or a status with a message
 * in err naming the file.
 */
int mmtb_pack(const struct mmtb_pack_opts *opts, struct mmtb_pack_result *res, char *err,
              size_t errlen);

/* Whether sector s's file in dir is packed (*packed; false when it has no
 * file).  Returns MMTB_OK or a status with the file named in err. */
int mmtb_pack_is_packed(const char *dir, struct mmtb_sector s, bool *packed, char *err,
                        size_t errlen);

#endif
