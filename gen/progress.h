/*
 * progress.h - a one-line progress display with rate and ETA on stderr for
 * long solver phases.  Silent when stderr is not a terminal or when the
 * caller asks for quiet.  Not thread-safe: call from one thread.
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

#endif
