/*
 * mmtb_integrity.h - libmmtb's integrity checks: a whole sector file read
 * in one sequential pass with every problem reported by file, plane and
 * block, and the detail of the last failed probe on a context.  Part of the
 * public API next to mmtb.h (include that first); no OpenMP, no global
 * state.
 */
#ifndef MMTB_INTEGRITY_H
#define MMTB_INTEGRITY_H

#include "mmtb.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Planes as integrity reports name them; MMTB_PLANE_FILE for a problem of
 * the file as a whole (header, metadata, footer, file hash, absence). */
#define MMTB_PLANE_FILE (-1)
#define MMTB_PLANE_WDL 0
#define MMTB_PLANE_DTW 1

/* One problem found by mmtb_tb_verify_file.  The strings live until the
 * callback returns. */
struct mmtb_verify_problem {
    int sector;          /* position of the sector in the game's list */
    const char *file;    /* the sector file's name, e.g. "4-3.mmtb" */
    int plane;           /* MMTB_PLANE_* */
    int64_t block;       /* block index within the plane, -1 with MMTB_PLANE_FILE */
    int status;          /* MMTB_ERR_CORRUPT, MMTB_ERR_MISSING, MMTB_ERR_MISMATCH, MMTB_ERR_IO, ... */
    const char *message; /* one line naming the file, and the plane and block when there is one */
};

/* Options of mmtb_tb_verify_file; NULL means all defaults. */
struct mmtb_verify_opts {
    /* Called for each problem, from the calling thread (may be NULL). */
    void (*problem)(void *arg, const struct mmtb_verify_problem *p);
    /* Called after each read with the number of bytes just read (may be NULL). */
    void (*progress)(void *arg, uint64_t bytes);
    void *arg;
    size_t read_bytes; /* size of each sequential read; 0: 8 MiB */
    int max_problems;  /* block problems listed per file, the rest counted in one
                          more problem; 0: 100 */
};

/* What mmtb_tb_verify_file found. */
struct mmtb_verify_result {
    bool present;    /* the sector has a file */
    bool listed;     /* the manifest has a `file` line for it */
    uint64_t bytes;  /* bytes read */
    int problems;    /* problems reported (0: the file holds, or is absent and not listed) */
    int status;      /* MMTB_OK, or the status of the first problem */
};

/*
 * Check the file of sector i (0 <= i < mmtb_tb_sector_count) completely, in
 * one sequential pass with large reads: the header and its hash, the
 * metadata hash and block tables, the footer, the manifest's record of the
 * file, every block's hash, that every block decompresses to its size and
 * holds only valid values (no W/D/L code 3, zero padding bits, no depth
 * above the header's, as many depths as decided slots), and the file hash.
 * A damaged block does not stop the pass: each one is reported.  A sector
 * without a file is a problem only when the manifest lists a file for it.
 * Returns MMTB_OK with *res filled in (res->problems says whether the file
 * holds), or MMTB_ERR_INVALID (bad arguments) / MMTB_ERR_NOMEM.  Thread-safe:
 * run it for different sectors in parallel, each thread with its own
 * buffers (it allocates about twice read_bytes, at most twice the file's
 * size, plus its largest decompressed block: at most 8 MiB).
 */
int mmtb_tb_verify_file(const mmtb_tb *tb, int i, const struct mmtb_verify_opts *opts,
                        struct mmtb_verify_result *res);

/*
 * After a probe or read on ctx returned MMTB_ERR_CORRUPT (or another table
 * error), a message saying where: the file, and for a damaged block its
 * plane, index and offset ("4-3.mmtb: W/D/L block 1 of 4 (2035 bytes at
 * offset 3208) is damaged").  "" when nothing has failed on ctx; the text of
 * the last failure otherwise (it is not cleared by later successes).  Valid
 * until the next call on ctx; same thread rules as the context.
 */
const char *mmtb_ctx_error(const mmtb_ctx *ctx);

#ifdef __cplusplus
}
#endif

#endif
