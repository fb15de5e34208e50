/* SPDX-License-Identifier: BSD-3-Clause */
/* Large zeroed host arrays: anonymous mappings, optionally huge pages. */
#include <stdint.h>
#include <sys/mman.h>

#include "tally_hmem.h"

static size_t
hmem_len(size_t size)
{
	return (size + 4095) & ~(size_t)4095;
}

void *
tally_hmem_alloc(size_t size, bool huge)
{
	size_t len = hmem_len(size), map;
	bool sparse = !huge;
	uintptr_t p, a;

	if (size == 0)
		return NULL;
	huge = huge && len >= TALLY_HMEM_HUGE_SZ;
	map = huge ? len + TALLY_HMEM_HUGE_SZ : len;
	p = (uintptr_t)mmap(NULL, map, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if ((void *)p == MAP_FAILED)
		return NULL;
	if (!huge) {
#ifdef MADV_NOHUGEPAGE
		/* sparse arrays: a written byte costs a 4 KiB page, not 2 MiB,
		 * even where transparent huge pages are always on */
		if (sparse)
			(void)madvise((void *)p, len, MADV_NOHUGEPAGE);
#endif
		return (void *)p;
	}
	/* keep the 2 MiB aligned part, so every huge page can be a whole one */
	a = (p + TALLY_HMEM_HUGE_SZ - 1) & ~(uintptr_t)(TALLY_HMEM_HUGE_SZ - 1);
	if (a > p)
		munmap((void *)p, a - p);
	if (p + map > a + len)
		munmap((void *)(a + len), p + map - (a + len));
#ifdef MADV_HUGEPAGE
	/* a hint: without transparent huge pages this is plain memory */
	(void)madvise((void *)a, len, MADV_HUGEPAGE);
#endif
	return (void *)a;
}

void
tally_hmem_free(void *p, size_t size)
{
	if (p != NULL)
		munmap(p, hmem_len(size));
}

void
tally_hmem_populate(void *p, size_t len)
{
	uintptr_t lo = ((uintptr_t)p + 4095) & ~(uintptr_t)4095;
	uintptr_t hi = ((uintptr_t)p + len) & ~(uintptr_t)4095;
	volatile uint8_t *b = p;
	size_t off;

	if (len == 0)
		return;
#ifdef MADV_POPULATE_WRITE
	if (hi > lo && madvise((void *)lo, hi - lo, MADV_POPULATE_WRITE) == 0) {
		b[0] = 0;		/* the partial pages at both ends */
		b[len - 1] = 0;
		return;
	}
#endif
	for (off = 0; off < len; off += 4096)
		b[off] = 0;
}
