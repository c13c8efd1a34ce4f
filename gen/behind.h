/*
 * behind.h - what a solve does behind itself (--verify-behind, --pack-behind):
 * once a pair's tables are written, its sectors are verified (verify.c)
 * into a ledger (ledger.h); with packing, every sector that no pair left to
 * verify reads any more is then packed (pack.c).  A rerun first verifies
 * the solved pairs the ledger lacks.  Invariant kept across kills: a
 * sector is packed only once it and every pair that reads it are
 * verified, so a verify never meets a packed file it would have to read.
 * Private to gen/; schedule.c calls it between pairs.
 */
#ifndef MMTB_BEHIND_H
#define MMTB_BEHIND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mmtb.h"

/* A pair of the run: list[first .. first + nss), and the pairs its moves
 * lead into (indices into the same pair array). */
struct behind_pair {
    int first, nss, ndeps;
    const int *deps;
};

struct behind;

/*
 * Start verifying behind a solve of the table directory dir, recording
 * clean sectors in the ledger at ledger_path, and packing when pack.  The
 * pairs are read, not copied: they must outlive b.  Reads which sectors
 * are packed already.  Returns MMTB_OK or a status, a message in err.
 */
int behind_open(struct behind **out, const char *dir, const char *ledger_path, bool pack,
                const struct mmtb_sector *list, const struct behind_pair *pairs, int np,
                int threads, bool quiet, char *err, size_t errlen);

/*
 * Verify, in order, every pair p with done[p] not verified yet, then (when
 * packing) pack the sectors of every verified pair whose readers are all
 * verified.  A pair found with mismatches stops it: MMTB_ERR_CORRUPT, the
 * count added to *mismatches, the pair named in err; its tables are left
 * as they are, and the ledger does not record them.  Otherwise MMTB_OK or
 * another status.
 */
int behind_step(struct behind *b, const bool *done, uint64_t *mismatches, char *err,
                size_t errlen);

/* Sectors verified and packed by this run so far (for the summary). */
void behind_counts(const struct behind *b, int *verified, int *packed);

void behind_close(struct behind *b);

#endif
