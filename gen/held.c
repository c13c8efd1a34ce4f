/*
 * held.c - solved sectors held whole in memory (held.h): read once through
 * libmmtb (sectorio.c), looked up by rank.
 */
#include "held.h"

#include <stdlib.h>
#include <string.h>

#include "banbuild.h"
#include "bigalloc.h"
#include "movegen.h"
#include "sectorio.h"
#include "succ.h"

const struct held_sector *held_find(const struct held *h, struct mmtb_sector s)
{
    for (int i = 0; i < h->n; i++)
        if (mmtb_sector_eq(h->h[i].s, s))
            return &h->h[i];
    return NULL;
}

int held_load(struct held *h, mmtb_tb *tb, const mmtb_index *ix, struct mmtb_sector s,
              char *why, size_t whylen)
{
    if (held_find(h, s))
        return MMTB_OK;
    if (h->n == HELD_MAX)
        return MMTB_ERR_INVALID;
    struct held_sector *hs = &h->h[h->n++];
    memset(hs, 0, sizeof *hs);
    hs->s = s;
    const struct mmtb_variant *v = mmtb_index_variant(ix);
    if (mmtb_ban_index_applies(v, s)) {
        int rc = gen_ban_index_create(&hs->bx, ix, s);
        if (rc != MMTB_OK)
            return rc;
    }
    hs->slots = hs->bx ? mmtb_ban_index_slots(hs->bx) : mmtb_index_slots(ix, s);
    hs->code = mmtb_alloc_big(hs->slots);
    if (!hs->code)
        return MMTB_ERR_NOMEM;
    return gen_read_coded(tb, s, 0, hs->slots, hs->code, &hs->deep, why, whylen);
}

uint64_t held_slot(const struct held_sector *hs, const mmtb_index *ix, const struct mmtb_pos *p)
{
    return hs->bx ? mmtb_ban_index_rank_pos(hs->bx, p)
                  : mmtb_index_rank(ix, hs->s, p->stones[p->side], p->stones[p->side ^ 1]);
}

const struct held_sector *held_locate(const struct held *h, const mmtb_index *ix,
                                      const struct mmtb_pos *q, uint64_t *slot)
{
    bool opening = q->first_mill != MMTB_FIRST_MILL_NONE && q->hand[0] == 0 && q->hand[1] == 0;
    const struct held_sector *hs = opening ? NULL : held_find(h, mmtb_pos_sector(q));
    if (hs)
        *slot = held_slot(hs, ix, q);
    return hs;
}

int held_value(const struct held *h, const mmtb_index *ix, mmtb_ctx *ctx, const struct mmtb_pos *q,
               struct mmtb_value *val)
{
    uint64_t slot;
    const struct held_sector *hs = held_locate(h, ix, q, &slot);
    if (!hs)
        return ctx ? mmtb_probe(ctx, q, val) : MMTB_ERR_MISSING;
    held_read(hs, slot, val);
    return MMTB_OK;
}

void held_free(struct held *h)
{
    for (int i = 0; i < h->n; i++) {
        mmtb_ban_index_free(h->h[i].bx);
        free(h->h[i].code);
        free(h->h[i].deep.e);
    }
    memset(h, 0, sizeof *h);
}
