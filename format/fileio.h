/*
 * fileio.h - the two file reads both sides need: a pread that retries until
 * it has every byte, and a whole small file (the MANIFEST) read into
 * memory.  The only file I/O in format/; no threads, no policy beyond the
 * status each failure maps to.  Internal: not installed.
 */
#ifndef MMTB_FILEIO_H
#define MMTB_FILEIO_H

#include "mmtb_common.h"

/* Largest file mmtb_file_slurp reads (a manifest of the largest game is a
 * few hundred KiB). */
#define MMTB_SLURP_MAX ((size_t)64 << 20)

/*
 * Read exactly n bytes of fd at offset off into buf, retrying short reads
 * and EINTR.  Returns MMTB_OK, MMTB_ERR_IO on a read error, or
 * MMTB_ERR_CORRUPT when the file ends first (the caller expected the
 * bytes: a file shorter than its own layout says is damaged).  Thread-safe
 * on a shared fd (pread moves no file offset).
 */
int mmtb_file_pread(int fd, void *buf, size_t n, uint64_t off);

/*
 * Read the whole regular file at path into a malloc'd buffer with a NUL
 * after its last byte (*out, freed by the caller; *len its length without
 * the NUL).  Returns MMTB_OK, MMTB_ERR_MISSING (no such file),
 * MMTB_ERR_IO (cannot be opened or read, not a regular file, or shorter
 * when read than when measured: it changed under us), MMTB_ERR_CORRUPT
 * (larger than MMTB_SLURP_MAX: no file this project reads whole is that
 * large) or MMTB_ERR_NOMEM.  On failure *out is NULL and *len 0.
 * Thread-safe.
 */
int mmtb_file_slurp(const char *path, char **out, size_t *len);

#endif
