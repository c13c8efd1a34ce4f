/*
 * progress.h - a one-line progress display with rate and ETA on stderr for
 * long phases of mmtb-gen and mmtb-probe.  Silent when stderr is not a
 * terminal or when the caller asks for quiet.  Not thread-safe: call from
 * one thread.  For the programs only: it prints, so it is built apart from
 * libmmtb (format/CMakeLists.txt, mmtb_progress).
 */
#ifndef MMTB_PROGRESS_H
#define MMTB_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>

struct progress {
    bool on;        /* drawing enabled */
    double t0;      /* start of the current phase */
    double last;    /* time of the last redraw */
    char label[96]; /* e.g. "[3/49] 5-4 init" */
};

/* Wall-clock seconds (monotonic). */
double progress_now(void);

/* Enable unless quiet or stderr is not a terminal. */
void progress_init(struct progress *p, bool quiet);

/* Start a phase with a label (copied). */
void progress_phase(struct progress *p, const char *label);

/* Redraw (at most ~5 times a second) with done of total units. */
void progress_update(struct progress *p, uint64_t done, uint64_t total);

/* Erase the line. */
void progress_clear(struct progress *p);

/*
 * For logs (--verbose; printed whether or not stderr is a terminal): one
 * line on stderr saying how far a whole run is, `progress: 12.3% of 139.16
 * G slots, 48m 10s so far, about 5h 43m left at this run's rate`.  done and
 * total in units (such as "slots"), kept of done were done before the run
 * began (they do not count in its rate), t0 its start (progress_now).
 */
void progress_share_line(const char *units, uint64_t done, uint64_t kept, uint64_t total,
                         double t0);

#endif
