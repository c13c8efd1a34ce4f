/*
 * banbuild.h - the index of a sector with state (ban_index.h), built on
 * every thread: the walk over its scheme 1 slots is most of what loading
 * such a sector costs (twelve-nine's 7-7: 0.43 G slots, 19 s on one
 * thread).  Private to gen/.
 */
#ifndef MMTB_BANBUILD_H
#define MMTB_BANBUILD_H

#include "ban_index.h"

/* mmtb_ban_index_create of sector s, its ranges walked in parallel: same
 * index, same statuses. */
int gen_ban_index_create(mmtb_ban_index **out, const mmtb_index *ix, struct mmtb_sector s);

#endif
