/*
 * tbinternal.h - libmmtb's private structures and the calls between its
 * files, from the bottom up: tbfile.c (sector file descriptors, reads),
 * tbverify.c (the whole-file pass), tbopen.c (the handle, the manifest,
 * lazily opened sectors), tbcache.c (contexts, block cache, bulk reads),
 * tbprobe.c (positions, moves, PVs) and tbintegrity.c (the verify entry
 * points).  Each calls only files before it.  Not installed; nothing
 * outside probe/lib includes it.
 */
#ifndef MMTB_TBINTERNAL_H
#define MMTB_TBINTERNAL_H

#include "mmtb.h"
#include "ban_index.h"
#include "fileio.h"
#include "helpers.h"
#include "movegen.h"
#include "sector_index.h"
#include "tablefile.h"
#include "variant.h"

#include <pthread.h>
#include <stdatomic.h>

/* Sector states (tb_sector.state); negative values are cached errors. */
enum { SEC_UNTRIED = 0, SEC_READY = 1 };

/* One sector of the game and, once opened, its file. */
struct tb_sector {
    struct mmtb_sector s;
    atomic_int state;             /* SEC_*, or a permanent error status */
    /* The open file (tb->fd_lock guards these four): -1 while closed to
     * stay within the handle's budget of descriptors (tb_file_acquire). */
    int fd;
    int fd_users;                 /* reads in flight on fd */
    int fd_prev, fd_next;         /* the handle's list of open files, by last use */
    /* Valid when state == SEC_READY (published with release ordering). */
    struct mmtb_tf_header h;
    struct mmtb_tf_layout l;
    struct mmtb_tf_block *tab[2]; /* block tables of both planes */
    mmtb_ban_index *bx;           /* sectors of mmtb_ban_index_applies: the index with
                                   * restrictions or the first-mill owner */
    uint32_t max_dtw;             /* largest stored depth, for block checks */
    struct mmtb_tf_footer footer;
    char detail[160];             /* why the sector is unusable */
};

struct mmtb_tb {
    char *dir;
    struct mmtb_variant *v;
    struct mmtb_manifest m;
    int n;                 /* sectors in the game */
    struct tb_sector *sec; /* in manifest order */
    uint64_t *keys;        /* sorted (sector key << 32 | position), for look-up by sector */
    size_t cache_bytes;
    unsigned flags;
    int max_stones;        /* largest w or b of the game, for the index */
    pthread_mutex_t lock;  /* guards lazy opening of sectors and the index */
    /* Open sector files: at most fd_budget idle ones are kept (a game has
     * thousands of sectors, a process often a limit of 1024 descriptors).
     * Taken after lock, never before it. */
    pthread_mutex_t fd_lock;
    int fd_open, fd_budget;
    int fd_head, fd_tail;  /* most and least recently used (-1: none) */
    atomic_int ix_state;   /* 0 not built, 1 built, negative: the build failed */
    mmtb_index *ix;
};

/* ---- tbfile.c: the sector files' descriptors ---- */

/* The descriptor budget, an empty list, and every sector closed (tb->sec
 * may still be NULL). */
void tb_files_init(mmtb_tb *tb);

/* Close every open sector file (on mmtb_tb_close). */
void tb_files_close(mmtb_tb *tb);

/* open(2) a sector file for reading; out of descriptors, the handle's idle
 * files are closed and the open is tried once more.  -1 and errno as
 * open. */
int tb_file_open(mmtb_tb *tb, const char *path);

/* A file load_sector opened and checked joins the list, unused; dropped
 * again (closed) when a later check of it fails. */
void tb_file_adopt(mmtb_tb *tb, struct tb_sector *sec, int fd);
void tb_file_drop(mmtb_tb *tb, struct tb_sector *sec);

/* The descriptor of ready sector i for reads, reopened if it was closed
 * (the file must still be the one opened: size and footer), and held open
 * until tb_file_release.  MMTB_OK, MMTB_ERR_IO (cannot be opened) or
 * MMTB_ERR_CORRUPT (another file now); detail gets why.  Thread-safe. */
int tb_file_acquire(const mmtb_tb *tb, int i, int *fd, char *detail, size_t dlen);
void tb_file_release(const mmtb_tb *tb, int i);

/* Acquire, mmtb_file_pread n bytes at off, release.  detail is written
 * only when the file could not be opened again.  Thread-safe. */
int tb_file_read(const mmtb_tb *tb, int i, void *buf, size_t n, uint64_t off, char *detail,
                 size_t dlen);

/* ---- tbverify.c: the whole-file pass ---- */

/*
 * Verify the whole file of a ready sector in one sequential pass: problems
 * go to opts->problem and into *res (zeroed by the caller), the first
 * one's message also into first.  Returns MMTB_OK when the file holds,
 * else the first problem's status (or MMTB_ERR_NOMEM).
 */
struct mmtb_verify_opts;
struct mmtb_verify_result;
int tb_verify_whole(const mmtb_tb *tb, int si, const struct mmtb_verify_opts *opts,
                    struct mmtb_verify_result *res, char *first, size_t firstlen);

/* The file hash alone of a ready sector: every byte before the footer
 * read and hashed against the footer's file_hash; no block decompressed.
 * MMTB_OK, or the status with a message in err (may be NULL). */
int tb_hash_whole(const mmtb_tb *tb, int si, char *err, size_t errlen);

/* Report one problem of sector si's file as a whole (MMTB_PLANE_FILE),
 * as tb_verify_whole reports its own, for a file that cannot be read. */
void tb_verify_report_file(const mmtb_tb *tb, int si, const struct mmtb_verify_opts *opts,
                           struct mmtb_verify_result *res, int status, const char *message);

/* ---- tbopen.c: the handle ---- */

/* Position of sector s in tb->sec, or MMTB_ERR_NOT_IN_GAME. */
int tb_find(const mmtb_tb *tb, struct mmtb_sector s);

/* The sector at position i, opened if needed.  MMTB_OK or the reason it is
 * unusable (MMTB_ERR_MISSING, MMTB_ERR_CORRUPT, ...).  Thread-safe. */
int tb_sector_ready(const mmtb_tb *tb, int i, const struct tb_sector **out);

/* The index, built on first use.  Thread-safe. */
int tb_index(const mmtb_tb *tb, const mmtb_index **out);

/* The message of why sector i is unusable (copied under the lock). */
void tb_sector_detail(const mmtb_tb *tb, int i, char *buf, size_t len);

/* ---- tbcache.c: contexts and their block caches ---- */

/* Record on ctx where the last table error happened (mmtb_ctx_error). */
void ctx_set_error(mmtb_ctx *ctx, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A block of a plane of a ready sector, from the context's cache or read,
 * checked and decompressed into it.  *raw stays valid until the next call
 * on the context. */
int ctx_block(mmtb_ctx *ctx, int si, const struct tb_sector *sec, int plane, uint64_t b,
              const uint8_t **raw);

/* The stored value of one slot: code 0..2, and its dtw when want_dtw;
 * CTX_DTW_SEARCH for a win of a packed sector (value encoding 2), whose
 * depth only a search of its moves gives. */
#define CTX_DTW_SEARCH 0xffffffffu
int ctx_slot(mmtb_ctx *ctx, int si, const struct tb_sector *sec, uint64_t slot, bool want_dtw,
             unsigned *code, unsigned *dtw);

/* The context's handle and scratch space for probe_moves. */
const mmtb_tb *ctx_tb(const mmtb_ctx *ctx);
struct mmtb_move_value *ctx_scratch(mmtb_ctx *ctx);

#endif
