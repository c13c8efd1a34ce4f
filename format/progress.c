/*
 * progress.c - stderr progress line: label, percentage, rate, ETA.  Shared
 * by mmtb-gen and mmtb-probe; no OpenMP, nothing from gen/ or probe/.
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

/* "12h 05m", "5m 03s", "7s" */
static void fmt_span(double secs, char *buf, size_t len)
{
    long t = secs > 0 ? (long)(secs + 0.5) : 0;
    if (t >= 3600)
        snprintf(buf, len, "%ldh %02ldm", t / 3600, t / 60 % 60);
    else if (t >= 60)
        snprintf(buf, len, "%ldm %02lds", t / 60, t % 60);
    else
        snprintf(buf, len, "%lds", t);
}

void progress_share_line(const char *units, uint64_t done, uint64_t kept, uint64_t total,
                         double t0)
{
    if (!total)
        return;
    double el = progress_now() - t0, mine = done > kept ? (double)(done - kept) : 0;
    char e[32], r[32] = "?";
    fmt_span(el, e, sizeof e);
    if (mine > 0)
        fmt_span(el / mine * (double)(total - done), r, sizeof r);
    bool g = total >= 1000000000u;
    fprintf(stderr, "progress: %.1f%% of %.2f %s%s, %s so far, about %s left at this run's rate\n",
            100.0 * (double)done / (double)total, (double)total / (g ? 1e9 : 1e6), g ? "G " : "M ",
            units, e, r);
}
