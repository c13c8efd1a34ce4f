/*
 * progress.c - stderr progress line: label, percentage, rate, ETA.
 */
#define _POSIX_C_SOURCE 200809L
#include "progress.h"

#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

double progress_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void progress_init(struct progress *p, bool quiet)
{
    memset(p, 0, sizeof *p);
    p->on = !quiet && isatty(STDERR_FILENO);
}

void progress_phase(struct progress *p, const char *label)
{
    snprintf(p->label, sizeof p->label, "%s", label);
    p->t0 = p->last = progress_now();
}

void progress_update(struct progress *p, uint64_t done, uint64_t total)
{
    if (!p->on)
        return;
    double now = progress_now();
    if (now - p->last < 0.2 && done < total)
        return;
    p->last = now;
    double el = now - p->t0;
    double frac = total ? (double)done / (double)total : 1.0;
    double rate = el > 0 ? (double)done / el : 0;
    double eta = (frac > 0 && frac < 1) ? el * (1 - frac) / frac : 0;
    fprintf(stderr, "\r\033[K%s %5.1f%% %7.2f M/s ETA %d:%02d", p->label, 100 * frac,
            rate / 1e6, (int)eta / 60, (int)eta % 60);
    fflush(stderr);
}

void progress_clear(struct progress *p)
{
    if (p->on) {
        fprintf(stderr, "\r\033[K");
        fflush(stderr);
    }
}
