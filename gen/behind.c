/*
 * behind.c - a solve's verify and pack behind it (behind.h).  Each pair is
 * verified through mmtb_verify on its own sectors, with the ledger, so a
 * pair the ledger records clean with the same files costs only the look-up;
 * packing goes through mmtb_pack on the sectors of one pair at a time.
 */
#include "behind.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"
#include "ledger.h"
#include "pack.h"
#include "sector_index.h"
#include "solve.h"

struct behind {
    const char *dir, *ledger;
    bool pack, quiet;
    int threads;
    const struct mmtb_sector *list;
    const struct behind_pair *P;
    int np;
    bool *verified; /* per pair: recorded clean in the ledger */
    int *npacked;   /* per pair: how many of its sectors are packed */
    int *unread;    /* per pair: the pairs that read it not yet verified */
    int n_verified, n_packed;
};

int behind_open(struct behind **out, const char *dir, const char *ledger_path, bool pack,
                const struct mmtb_sector *list, const struct behind_pair *pairs, int np,
                int threads, bool quiet, char *err, size_t errlen)
{
    *out = NULL;
    struct behind *b = calloc(1, sizeof *b);
    if (!b)
        return mmtb_fail(err, errlen, MMTB_ERR_NOMEM, "out of memory");
    *b = (struct behind){dir, ledger_path, pack, quiet, threads, list, pairs, np, NULL, NULL,
                         NULL, 0, 0};
    b->verified = calloc((size_t)(np > 0 ? np : 1), sizeof *b->verified);
    b->npacked = calloc((size_t)(np > 0 ? np : 1), sizeof *b->npacked);
    b->unread = calloc((size_t)(np > 0 ? np : 1), sizeof *b->unread);
    if (!b->verified || !b->npacked || !b->unread) {
        behind_close(b);
        return mmtb_fail(err, errlen, MMTB_ERR_NOMEM, "out of memory");
    }
    for (int q = 0; q < np; q++)
        for (int e = 0; e < pairs[q].ndeps; e++)
            b->unread[pairs[q].deps[e]]++;
    for (int p = 0; p < np; p++)
        for (int k = 0; k < pairs[p].nss; k++) {
            bool packed = false;
            int rc = mmtb_pack_is_packed(dir, list[pairs[p].first + k], &packed, err, errlen);
            if (rc != MMTB_OK) {
                behind_close(b);
                return rc;
            }
            b->npacked[p] += packed;
        }
    *out = b;
    return MMTB_OK;
}

/* The names of pair p's sectors, "8-5 5-8". */
static void pair_name(const struct behind *b, int p, char *out, size_t len)
{
    out[0] = '\0';
    for (int k = 0; k < b->P[p].nss; k++) {
        char nm[32];
        mmtb_sector_format(b->list[b->P[p].first + k], nm, sizeof nm);
        size_t at = strlen(out);
        snprintf(out + at, len - at, "%s%s", k ? " " : "", nm);
    }
}

/* Pair p, or a pair it reads, has a packed sector: p was verified before
 * that sector was packed (the invariant), so the ledger must name each of
 * its sectors; its files can no longer be checked against the entries. */
static int verified_before_packing(struct behind *b, int p, char *err, size_t errlen)
{
    struct mmtb_ledger *l = NULL;
    int rc = mmtb_ledger_open(&l, b->ledger, err, errlen);
    for (int k = 0; rc == MMTB_OK && k < b->P[p].nss; k++) {
        char nm[32];
        mmtb_sector_format(b->list[b->P[p].first + k], nm, sizeof nm);
        if (!mmtb_ledger_has_name(l, nm))
            rc = mmtb_fail(err, errlen, MMTB_ERR_INVALID,
                           "sector %s is solved but not in the ledger %s, and it or a sector "
                           "its moves lead to is packed, so it cannot be verified now (was "
                           "the directory packed by `mmtb-gen pack`, or the ledger replaced?)",
                           nm, b->ledger);
    }
    mmtb_ledger_close(l);
    return rc;
}

static int verify_pair(struct behind *b, int p, uint64_t *mismatches, char *err, size_t errlen)
{
    const struct behind_pair *q = &b->P[p];
    bool packed = b->npacked[p] > 0;
    for (int d = 0; d < q->ndeps && !packed; d++)
        packed = b->npacked[q->deps[d]] > 0;
    if (packed)
        return verified_before_packing(b, p, err, errlen);
    uint64_t bad = 0;
    struct gen_verify_opts vo = {0};
    vo.dir = b->dir;
    vo.only = &b->list[q->first];
    vo.n_only = q->nss;
    vo.threads = b->threads;
    vo.quiet = b->quiet;
    vo.report = stderr;
    vo.no_total = true;
    vo.mismatches = &bad;
    vo.ledger = b->ledger;
    int rc = mmtb_verify(&vo, err, errlen);
    if (rc != MMTB_OK)
        return rc;
    if (bad) {
        char nm[80];
        pair_name(b, p, nm, sizeof nm);
        *mismatches += bad;
        return mmtb_fail(err, errlen, MMTB_ERR_CORRUPT,
                         "the verify behind the solve found %llu mismatches in %s; the run "
                         "stops with the tables as written (the ledger does not record them)",
                         (unsigned long long)bad, nm);
    }
    return MMTB_OK;
}

static int pack_pair(struct behind *b, int p, char *err, size_t errlen)
{
    struct mmtb_pack_opts po = {0};
    po.dir = b->dir;
    po.only = &b->list[b->P[p].first];
    po.n_only = b->P[p].nss;
    po.threads = b->threads;
    po.quiet = b->quiet;
    po.report = stderr;
    struct mmtb_pack_result res;
    int rc = mmtb_pack(&po, &res, err, errlen);
    if (rc == MMTB_OK) {
        b->n_packed += b->P[p].nss - b->npacked[p];
        b->npacked[p] = b->P[p].nss;
    }
    return rc;
}

int behind_step(struct behind *b, const bool *done, uint64_t *mismatches, char *err,
                size_t errlen)
{
    for (int p = 0; p < b->np; p++)
        if (done[p] && !b->verified[p]) {
            int rc = verify_pair(b, p, mismatches, err, errlen);
            if (rc != MMTB_OK)
                return rc;
            b->verified[p] = true;
            b->n_verified += b->P[p].nss;
            for (int e = 0; e < b->P[p].ndeps; e++)
                b->unread[b->P[p].deps[e]]--;
        }
    /* a pair is packed once it and every pair that reads it are verified */
    for (int p = 0; b->pack && p < b->np; p++)
        if (b->npacked[p] < b->P[p].nss && b->verified[p] && b->unread[p] == 0) {
            int rc = pack_pair(b, p, err, errlen);
            if (rc != MMTB_OK)
                return rc;
        }
    return MMTB_OK;
}

void behind_counts(const struct behind *b, int *verified, int *packed)
{
    *verified = b ? b->n_verified : 0;
    *packed = b ? b->n_packed : 0;
}

void behind_close(struct behind *b)
{
    if (!b)
        return;
    free(b->verified);
    free(b->npacked);
    free(b->unread);
    free(b);
}
