/*
 * plan.h - private to the solver: what `mmtb-gen --plan` prints before a
 * long run, without solving anything: each pair's slots, memory, expected
 * bytes on disk and time, and the totals.  schedule.c lists the pairs;
 * plan.c estimates and prints.
 */
#ifndef MMTB_PLAN_H
#define MMTB_PLAN_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "job.h"

/* One pair of the run. */
struct plan_row {
    struct mmtb_sector s[2];
    int nss;
    bool have;           /* already solved in the directory */
    int ckpt_level;      /* the level its checkpoint there goes on from, or -1 */
    struct pair_mem pm;  /* what it needs on top of the process's base */
    int ndeps;           /* the rows its moves lead into (earlier rows) */
    const int *deps;
};

/* The kinds of pair whose rates and sizes differ (plan.c measures them). */
enum plan_kind {
    PLAN_MOVEMENT,    /* no stones in hand */
    PLAN_PLACE_ONE,   /* one side with stones in hand */
    PLAN_PLACE_BOTH,  /* both sides with stones in hand */
    PLAN_KINDS
};

/*
 * Print the plan of rows[0..n) for variant v (start: the stones in hand at
 * the start, both 0 for the movement phase) on out, as text or (json) one
 * JSON object; base is what the process holds before any pair; disk_free
 * the bytes free where the tables go (UINT64_MAX: not known), told beside
 * the bytes of the pairs still to solve, or with PLAN_PACK_BEHIND in behind
 * (--pack-behind) the most the run's files take at once beyond what they
 * take now; with PLAN_VERIFY_BEHIND the time adds the verify's.  Returns
 * the number of pairs over limit (0: none, or no limit).
 */
enum { PLAN_VERIFY_BEHIND = 1, PLAN_PACK_BEHIND = 2 };
int plan_print(FILE *out, bool json, const struct mmtb_variant *v, int start_w, int start_b,
               const struct plan_row *rows, int n, uint64_t base, uint64_t limit,
               uint64_t disk_free, int behind);

#endif
