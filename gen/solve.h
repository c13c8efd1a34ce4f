/*
 * solve.h - the retrograde solver: solves the sectors of a variant's game in
 * dependency order and writes them as table files, and the verifier that
 * re-derives every stored value from its successors.  Reads solved sectors
 * back through libmmtb (mmtb.h).  Uses OpenMP inside each sector.
 * mmtb_solve is schedule.c (its stages: job.h); mmtb_verify is verify.c.
 */
#ifndef MMTB_SOLVE_H
#define MMTB_SOLVE_H

#include "mmtb_common.h"
#include <stdio.h>

/*
 * Several processes solving one game together (mmtb-gen-mpi): every rank
 * runs mmtb_solve with the same options and its own transport; the pairs
 * are shared out by a fixed plan that respects their dependencies, each
 * rank writes its pairs' tables into the shared directory and announces
 * them.  The callbacks return MMTB_OK or a status (a message in err).
 */
struct mmtb_transport {
    int rank, nranks;
    void *ctx;
    /* copy rank 0's len bytes at buf to every other rank */
    int (*share)(void *ctx, void *buf, size_t len, char *err, size_t errlen);
    /* send msg (len bytes) to every other rank */
    int (*announce)(void *ctx, const void *msg, size_t len, char *err, size_t errlen);
    /* wait for the next message another rank announced (len bytes) */
    int (*next)(void *ctx, void *msg, size_t len, char *err, size_t errlen);
    /*
     * A pair split across all ranks (split.c): every rank calls these in
     * the same order.  exchange sends send[r] (sendlen[r] bytes; the own
     * rank's is not sent) to every rank r and returns in *recv (malloc'd,
     * the caller frees) what the others sent this one, in rank order:
     * recvlen[r] bytes from rank r (recvlen has nranks entries).  reduce combines n values over the ranks (the sum, or
     * the maximum when max).  Writing: rank 0 sends rank r a request with
     * fetch and, when respcap is not 0, waits for its answer (at most
     * respcap bytes, *resplen received; with resplen NULL exactly
     * respcap); a request of reqlen 0 ends r's serving.  The other ranks
     * take requests with serve_next (the request's length; 0: serving is
     * over) and answer those that want one with serve_reply.  NULL in a
     * transport that cannot split.
     */
    int (*exchange)(void *ctx, void *const *send, const size_t *sendlen, void **recv,
                    size_t *recvlen, char *err, size_t errlen);
    int (*reduce)(void *ctx, uint64_t *v, int n, bool max, char *err, size_t errlen);
    int (*fetch)(void *ctx, int rank, const void *req, size_t reqlen, void *resp, size_t respcap,
                 size_t *resplen, char *err, size_t errlen);
    int (*serve_next)(void *ctx, void *req, size_t reqcap, size_t *reqlen, char *err,
                      size_t errlen);
    int (*serve_reply)(void *ctx, const void *resp, size_t len, char *err, size_t errlen);
};

#define CKPT_MINUTES 30 /* mmtb_solve_opts.checkpoint_minutes's default */

/* mmtb_solve's status when it stopped as stop_after asked (not an error:
 * the same options go on from there). */
#define MMTB_SOLVE_STOPPED 1

struct mmtb_solve_opts {
    const char *variant; /* built-in name or descriptor file */
    const char *outdir;  /* table directory (created if needed) */
    int start_w_hand;    /* stones in hand at the start; both 0: movement phase only */
    int start_b_hand;
    int max_stones;      /* movement phase: at most this many stones a side (0: all) */
    const struct mmtb_sector *only; /* if n_only > 0: solve these and what they need */
    int n_only;
    int threads;         /* 0: OpenMP default */
    int zstd_level;      /* both planes; 0: writer default */
    int dtw_zstd_level;  /* the DTW plane; 0: zstd_level, or the writer default */
    bool quiet;          /* no progress display, no per-sector lines */
    FILE *report;        /* per-sector lines and the summary (NULL: stdout) */
    bool json;           /* summary as JSON on `report` */
    bool verbose;        /* phase times per sector on stderr */
    int deep_from;       /* tests: depths from here on (1..125) take the solver's
                          * rare-depth path; 0: from 63, as in normal runs */
    int forward;         /* tests: -1 levels only backward, 1 forward wherever
                          * possible, 0: each level the cheaper way */
    int swap_deps;       /* tests: -1 solved sectors kept in their own order,
                          * 0: re-filed by the side not to move where it helps */
    int init_walk;       /* tests: -1 placement sectors initialised in their own
                          * order, 0: grouped by the opponent's stones, a block
                          * of them at a time where it can, 1: grouped, one
                          * position at a time */
    bool state_init;     /* tests: the re-close rule's placement sectors initialised
                          * as every sector with restrictions (gen/bans.c): with both
                          * hands full not the plain way (sectors_plain_init), with
                          * one not their states without restrictions by the plain
                          * init first (bans_base_by_blocks) */
    int buckets_to_disk; /* the outside results that wait for their level kept in a
                          * file: 0 for a pair over memory_limit (without one, 90 %
                          * of the machine's memory) with them in memory, 1 for
                          * every pair (tests), -1 never */
    size_t bucket_spill_seg; /* tests: with the buckets on disk, a stream's bytes are
                              * written there when it holds this many (0: 1 MiB) */
    int bucket_round;    /* tests: bytes of each bucket stream the levels take
                          * per round (buckets.c); 0: 1 MiB */
    uint64_t memory_limit; /* bytes a process may hold (0: no limit): a pair that
                            * needs more is refused before anything is solved,
                            * MMTB_ERR_NOMEM with the pair and the bytes in err */
    bool plan;           /* print each pair's slots, memory, bytes on disk and time
                          * (--plan), solve nothing; outdir may be NULL, else its
                          * solved sectors are marked */
    double checkpoint_minutes; /* a pair's levels are saved to outdir (NAME.ckpt) at
                                * a level's start once this many minutes have passed
                                * since the pair began or was last saved, and a rerun
                                * goes on from there; 0: CKPT_MINUTES; < 0: never
                                * saved (a checkpoint found is still taken up) */
    double stop_after;         /* > 0: once this many seconds have passed since the run
                                * began, the pair under way is saved at its next level's
                                * start (as a checkpoint) and the run stops there, or no
                                * new pair starts: MMTB_SOLVE_STOPPED, the pairs left in
                                * err (not with a transport) */
    int checkpoint_kill;       /* tests: the process kills itself (SIGKILL) right
                                * after the run's Nth save, as a killed run would */
    int *resumed;              /* if not NULL: incremented for each pair restored
                                * from its checkpoint */
    const char *verify_behind; /* if not NULL: each pair's sectors are verified as soon as
                                * they are written, into this ledger (ledger.h), and a
                                * rerun first verifies the solved sectors it lacks
                                * (behind.h; not with a transport) */
    bool pack_behind;          /* with verify_behind: each sector is packed (pack.h) once
                                * it and every pair that reads it are verified */
    uint64_t *mismatches;      /* out, if not NULL: the mismatches the verify behind found
                                * (the run stops at the first pair with any) */
    const struct mmtb_transport *transport; /* NULL: this process solves everything */
    uint64_t split_slots; /* with a transport that can split: pairs of at least this
                           * many slots are solved by all ranks together, each
                           * holding a part of the states (0: only pairs over
                           * memory_limit that fit when split) */
};

/*
 * Solve the game described by opts; sectors already present and valid in
 * outdir are kept (resume).  Returns MMTB_OK, MMTB_SOLVE_STOPPED (stop_after)
 * or a status, with a message in err.
 */
int mmtb_solve(const struct mmtb_solve_opts *opts, char *err, size_t errlen);

/*
 * From now on, signal sig (mmtb-gen: SIGUSR1) asks the solve under way in
 * this process to save its pair's progress (checkpoint.c) at the start of
 * its next level, or of the next pair's first level, without waiting for
 * the interval; the run goes on.  Nothing is saved when checkpoints are off
 * (checkpoint_minutes < 0) or for a split pair.  Returns MMTB_OK or
 * MMTB_ERR_INVALID (sigaction refused sig).
 */
int mmtb_solve_checkpoint_on(int sig);

struct gen_verify_opts {
    const char *dir;
    const struct mmtb_sector *only; /* if n_only > 0: verify only these sectors */
    int n_only;
    int threads;
    bool quiet;
    FILE *report;
    bool json;
    uint64_t *mismatches; /* out: total mismatches found */
    bool verbose;         /* after each sector, how far the run is (stderr) */
    const char *ledger;   /* if not NULL: skip the sectors this ledger (ledger.h) records
                           * clean with the same files, and record each sector found clean */
    bool no_total;        /* no closing line (a solve's --verify-behind: one line a sector) */
    bool by_rules;        /* sectors with restrictions position by position by the rules
                           * of format/movegen.c, not on the solver's bitboards */
};

/*
 * Re-derive every stored value of every sector in dir (or of opts->only)
 * from its successors (one ply forward) and count disagreements (with a
 * ledger, sectors it records clean are counted as it records them, not
 * checked again).  Returns
 * MMTB_OK when the check ran (mismatches may still be non-zero),
 * MMTB_ERR_INVALID when a sector of opts->only is not in the game or not
 * solved, or another status.
 */
int mmtb_verify(const struct gen_verify_opts *opts, char *err, size_t errlen);

#endif
