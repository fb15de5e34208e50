/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Large zeroed host arrays (written bitmaps of hash arrays, rule handles,
 * counter pool state) straight from the kernel, not from malloc: a page never touched
 * costs no memory, and freeing returns everything at once. An array that is
 * filled densely or accessed at random may ask for transparent huge pages
 * (where the kernel offers them, e.g. transparent_hugepage=madvise): then
 * filling it takes one page fault per 2 MiB instead of 512, and random
 * accesses miss the TLB far less. Host memory only: the device never reads
 * these.
 */
#ifndef TALLY_HMEM_H
#define TALLY_HMEM_H

#include <stdbool.h>
#include <stddef.h>

#define TALLY_HMEM_HUGE_SZ	((size_t)2 << 20)

/* size bytes reading zero, or NULL. huge: 2 MiB aligned and advised as
 * huge-page memory (sizes below 2 MiB are never huge); otherwise advised
 * never to be huge (for sparsely written arrays). */
void *tally_hmem_alloc(size_t size, bool huge);
/* p from tally_hmem_alloc() with the same size (NULL is ignored). */
void tally_hmem_free(void *p, size_t size);
/* Write every page of [p, p + len) once (memory that reads zero already),
 * so that filling it later takes no page faults: one madvise call where
 * the kernel can populate whole pages, else a store per page. */
void tally_hmem_populate(void *p, size_t len);

#endif /* TALLY_HMEM_H */
