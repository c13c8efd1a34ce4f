/*
 * bigalloc.h - large arrays on huge pages.  The solver, the verifier and
 * the indexes with restriction states look up entries at random in arrays
 * of up to gigabytes, where 4 KiB pages make nearly every access a TLB
 * miss as well as a cache miss.
 */
#ifndef MMTB_BIGALLOC_H
#define MMTB_BIGALLOC_H

#include <stddef.h>

/*
 * Allocate an array of `bytes` (released with free): from 2 MiB on, on
 * 2 MiB boundaries with a request for transparent huge pages (a hint the
 * kernel may ignore).  Returns NULL when out of memory.
 */
void *mmtb_alloc_big(size_t bytes);

#endif
