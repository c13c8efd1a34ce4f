/*
 * deps.c - the solved sectors a job reads: which sectors outside the pair
 * its moves lead to, their values (and depths where needed) read whole
 * into memory through the probe API (libmmtb, sectorio.c), their re-filing
 * by the side not to move (dep_swap), and their release.  The only stage
 * that reads table files; it knows nothing of the state bytes.
 */
#include "job.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bigalloc.h"
#include "mmtb.h"
#include "sectorio.h"

/* The sectors outside the pair that moves of member s lead to (the sector
 * graph of sector_index.c), and whether a placement that removes nothing
 * leads there (quiet: such a sector is not re-filed, dep_swap). */
static void add_deps(struct job *j, struct mmtb_sector s, bool quiet[16])
{
    struct mmtb_sector t[8];
    int n = mmtb_sector_moves_to(j->v, s, t);
    struct mmtb_sector quiet_place = {s.b, (uint8_t)(s.w + 1), s.b_hand, (uint8_t)(s.w_hand - 1)};
    for (int i = 0; i < n; i++) {
        if (member_of(j, t[i]) >= 0)
            continue;
        int k;
        for (k = 0; k < j->ndeps; k++)
            if (mmtb_sector_eq(j->deps[k].s, t[i]))
                break;
        if (k == j->ndeps) {
            j->deps[j->ndeps].s = t[i];
            quiet[j->ndeps++] = false;
        }
        quiet[k] = quiet[k] || (s.w_hand > 0 && mmtb_sector_eq(t[i], quiet_place));
    }
}

/* The solved sectors j's members read, listed in a copy *t of j (j keeps
 * no deps), with quiet of each. */
static void list_deps(const struct job *j, struct job *t, bool quiet[16])
{
    *t = *j;
    t->ndeps = 0;
    memset(quiet, 0, 16 * sizeof *quiet);
    for (int i = 0; i < t->nm; i++)
        add_deps(t, t->m[i].s, quiet);
}

/* Load an already solved sector fully into memory (in parallel ranges). */
static int load_dep(mmtb_tb *tb, struct dep *d, const mmtb_index *ix, uint64_t lo, uint64_t hi,
                    char *err, size_t errlen)
{
    d->slots = mmtb_index_slots(ix, d->s);
    d->code = mmtb_alloc_big(d->slots);
    if (!d->code)
        return MMTB_ERR_NOMEM;
    /* (a split rank reads its run only; the rest of the array is never
     * touched, so never resident) */
    char why[256] = "";
    int rc = gen_read_coded(tb, d->s, lo, hi < d->slots ? hi : d->slots, d->code, &d->deep, why,
                            sizeof why);
    if (rc != MMTB_OK) {
        char name[32];
        mmtb_sector_format(d->s, name, sizeof name);
        snprintf(err, errlen, "reading solved sector %s: %s%s", name,
                 why[0] ? why : mmtb_strerror(rc),
                 rc == MMTB_ERR_CORRUPT ? " (a value whose depth has the wrong parity: not "
                                          "a table of depths to win?)"
                                        : "");
    }
    return rc;
}

static int cmp_u64(const void *a, const void *b)
{
    return mmtb_cmp_u64(a, b);
}

/* Note a deep depth at slot `at` of a re-filed sector. */
static void deep_refile(struct vdeep *nd, size_t *cap, uint64_t at, int depth, int *oom)
{
#pragma omp critical(mmtb_deep_refile)
    {
        if (nd->n == *cap) {
            size_t nc = *cap ? 2 * *cap : 256;
            uint64_t *ne = realloc(nd->e, nc * sizeof *ne);
            if (ne)
                nd->e = ne, *cap = nc;
        }
        if (nd->n < *cap)
            nd->e[nd->n++] = at << 16 | (uint64_t)depth;
        else
            *oom = 1;
    }
}

/*
 * Re-file the values of dep d by the side not to move: slot k of the
 * colour-swapped sector (b, w) holds the value of the position of d whose
 * masks are those of k exchanged.  Done for the sectors only captures lead
 * into, when the positions are walked in their own order (movement): all
 * captures of one move, and of every position with the same side to move,
 * then share that side's look-up and symmetry and land in one small block
 * of the array, where in d's own order each would be a cache miss of its
 * own.  One rank per position of d, as the walk goes; the positions are
 * read in groups so that their look-ups overlap.
 */
static int dep_swap(const struct job *j, struct dep *d)
{
    struct mmtb_sector ts = sector_partner(d->s);
    uint64_t tslots = mmtb_index_slots(j->ix, ts);
    uint8_t *t = mmtb_alloc_big(tslots);
    if (!t)
        return MMTB_ERR_NOMEM;
    uint64_t nchunks = (tslots + CHUNK - 1) / CHUNK;
    struct vdeep nd = {NULL, 0};
    size_t cap = 0;
    int oom = 0;
#pragma omp parallel for schedule(dynamic, 16)
    for (uint64_t c = 0; c < nchunks; c++) {
        uint64_t lo = c * CHUNK, hi = lo + CHUNK < tslots ? lo + CHUNK : tslots;
        struct mmtb_index_iter it;
        mmtb_index_iter_start(&it, j->ix, ts, lo, hi);
        uint64_t at[16], r[16], i;
        uint32_t mv[16], op[16], mover, opp;
        int nst[16], n = 0;
        bool canonical, more = true;
        while (more) {
            more = mmtb_index_iter_next(&it, &i, &mover, &opp, &canonical);
            if (more && !canonical) {
                t[i] = VC_UNUSED;
                continue;
            }
            if (more) {
                at[n] = i;
                mv[n] = opp; /* the position of d: the masks exchanged */
                op[n++] = mover;
                if (n < 16)
                    continue;
            }
            mmtb_index_rank_stab_many(j->ix, d->s, mv, op, n, r, nst);
            for (int k = 0; k < n; k++)
                __builtin_prefetch(&d->code[r[k]]);
            for (int k = 0; k < n; k++) {
                t[at[k]] = d->code[r[k]];
                if (t[at[k]] >= VC_DEEP_LOSS) /* rare: re-filed under the lock */
                    deep_refile(&nd, &cap, at[k], vc_depth(t[at[k]], &d->deep, r[k]), &oom);
            }
            n = 0;
        }
    }
    free(d->code);
    free(d->deep.e);
    d->code = t;
    d->deep = nd;
    if (nd.n)
        qsort(nd.e, nd.n, sizeof *nd.e, cmp_u64);
    d->slots = tslots;
    d->swapped = true;
    return oom ? MMTB_ERR_NOMEM : MMTB_OK;
}

/* The solved sectors of the pair, loaded (and re-filed when swap) before
 * the init pass. */
int deps_load(struct job *j, const char *dir, bool swap, char *err, size_t errlen)
{
    bool quiet[16] = {false};
    for (int i = 0; i < j->nm; i++)
        add_deps(j, j->m[i].s, quiet);
    if (!j->ndeps)
        return MMTB_OK;
    mmtb_tb *tb = NULL;
    struct mmtb_tb_opts topts;
    memset(&topts, 0, sizeof topts);
    int rc = mmtb_tb_open(&tb, dir, &topts);
    if (rc != MMTB_OK) {
        snprintf(err, errlen, "%s: cannot open tables: %s", dir, mmtb_strerror(rc));
        return rc;
    }
    for (int i = 0; i < j->ndeps && rc == MMTB_OK; i++) {
        uint64_t lo = 0, hi = UINT64_MAX;
        if (j->sp && split_cut(j->sp, mmtb_index_slots(j->ix, j->deps[i].s), &j->sp->dplo[i],
                               &lo, &hi) != MMTB_OK)
            rc = MMTB_ERR_NOMEM;
        if (rc == MMTB_OK)
            rc = load_dep(tb, &j->deps[i], j->ix, lo, hi, err, errlen);
    }
    mmtb_tb_close(tb);
    /* (a split rank holds a run of each: nothing to re-file) */
    for (int i = 0; i < j->ndeps && rc == MMTB_OK && swap && !j->sp; i++)
        if (!quiet[i])
            rc = dep_swap(j, &j->deps[i]);
    return rc;
}

/* What deps_load will hold at its peak, in bytes: every solved sector's
 * values (and depths), and while one is re-filed (dep_swap) its new copy
 * beside the others, those before it already re-filed. */
uint64_t deps_bytes(const struct job *j, bool swap)
{
    struct job t;
    bool quiet[16];
    list_deps(j, &t, quiet);
    uint64_t held = 0, peak = 0, size[16], swapped[16];
    for (int i = 0; i < t.ndeps; i++) {
        size[i] = mmtb_index_slots(t.ix, t.deps[i].s);
        swapped[i] = swap && !quiet[i] ? mmtb_index_slots(t.ix, sector_partner(t.deps[i].s))
                                          : 0;
        held += size[i];
    }
    peak = held;
    for (int i = 0; i < t.ndeps; i++) {
        if (!swapped[i])
            continue;
        /* dep_swap of i: the old array and the new one, then the old freed */
        peak = held + swapped[i] > peak ? held + swapped[i] : peak;
        held = held - size[i] + swapped[i];
    }
    return peak > held ? peak : held;
}

int deps_load_held(struct job *j, const char *dir, char *err, size_t errlen)
{
    bool quiet[16] = {false};
    for (int i = 0; i < j->nm; i++)
        add_deps(j, j->m[i].s, quiet);
    if (!j->ndeps)
        return MMTB_OK;
    int rc = mmtb_tb_open(&j->tb, dir, NULL);
    if (rc != MMTB_OK) {
        snprintf(err, errlen, "%s: cannot open tables: %s", dir, mmtb_strerror(rc));
        return rc;
    }
    for (int i = 0; i < j->ndeps && rc == MMTB_OK; i++) {
        char why[256] = "";
        rc = held_load(&j->held, j->tb, j->ix, j->deps[i].s, why, sizeof why);
        if (rc != MMTB_OK) {
            char name[32];
            mmtb_sector_format(j->deps[i].s, name, sizeof name);
            snprintf(err, errlen, "reading solved sector %s: %s", name,
                     why[0] ? why : mmtb_strerror(rc));
        }
    }
    return rc;
}

void deps_view_held(struct job *j, bool on)
{
    for (int i = 0; i < j->ndeps; i++) {
        struct dep *d = &j->deps[i];
        const struct held_sector *hs = on ? held_find(&j->held, d->s) : NULL;
        d->code = hs ? hs->code : NULL;
        d->deep = hs ? hs->deep : (struct vdeep){0};
        d->slots = hs ? mmtb_index_slots(j->ix, d->s) : 0;
        d->swapped = false;
    }
}

uint64_t deps_held_bytes(const struct job *j)
{
    struct job t;
    bool quiet[16];
    list_deps(j, &t, quiet);
    uint64_t held = 0;
    for (int i = 0; i < t.ndeps; i++) {
        struct mmtb_sector s = t.deps[i].s;
        held += plan_state_slots(t.ix, s);
        /* an index with restrictions: a byte per position of the sector */
        if (t.v->no_reclose)
            held += mmtb_index_slots(t.ix, s);
    }
    return held;
}

/* Their arrays, at the end of the job. */
void deps_free(struct job *j)
{
    held_free(&j->held);
    mmtb_tb_close(j->tb);
    j->tb = NULL;
    for (int i = 0; i < j->ndeps; i++) {
        free(j->deps[i].code);
        free(j->deps[i].deep.e);
    }
}
