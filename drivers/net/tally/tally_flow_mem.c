/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Device-visible memory for the steering engine (lib/steer's mem ops).
 *
 * Small structures (roots, matcher descriptors, lists) come from DPDK
 * memory. Large ones (hash arrays, >= 2 MiB) are read by the device at
 * random, one entry per lookup or insert: on 4 KiB pages nearly every one
 * of those reads misses the TLB. When EAL runs without huge pages
 * (--no-huge, where its memory is shared memory that gets no transparent
 * huge pages) and the device is the in-process model, whose bus is this
 * process's address space, large blocks come instead from a host window:
 * one anonymous mapping, reserved once (no memory until touched), advised
 * for transparent huge pages and mapped whole in the device's translation
 * table at probe (tally_dma.c). Blocks are whole 2 MiB units,
 * first fit. The window is reserved inaccessible (PROT_NONE, like EAL's own
 * reservations), so an application's mlockall() - testpmd's - populates
 * nothing; a block is made accessible when allocated (populated then if the
 * process locks its memory) and replaced by a fresh inaccessible mapping
 * when freed, so it costs nothing while free and reads zero when reused.
 * One exception: the part the port's first, pre-sized array will take is
 * made accessible and populated at probe (tally_flow_mem_populate()), as
 * EAL populates its huge pages at start, so that the first create does not
 * fault in tens or hundreds of MB.
 *
 * With huge pages (EAL's normal mode), the window is made of 2 MiB
 * hugetlbfs pages instead (MAP_HUGETLB), so that the device's random reads
 * see the same TLB reach as in DPDK memory. DPDK's heap there grows on
 * demand and gives freed pages back, so it cannot hold the first array's
 * pages from probe on the way the window does. A hugetlbfs page is never
 * touched before MADV_POPULATE_WRITE has made it resident (at probe for
 * the populated part, at allocation for every other block): with no huge
 * page left, that call fails and the block comes from DPDK memory, where
 * a first touch would have raised SIGBUS. Without MADV_POPULATE_WRITE, or
 * without free huge pages at probe, large blocks come from DPDK memory.
 * devarg steer_mem=eal keeps everything in DPDK memory.
 *
 * Calls come from lib/steer under the port's engine lock; the window keeps
 * a lock of its own anyway, since it costs nothing next to an mmap call.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <rte_eal.h>
#include <rte_malloc.h>

#include "tally_pmd.h"
#include "tally_flow_priv.h"
#include "tally_hmem.h"
#include "tally_logs.h"

#define FLOW_MEM_UNIT		((size_t)2 << 20)
/* <linux/mman.h>'s, which glibc's <sys/mman.h> leaves out */
#if defined(MAP_HUGETLB) && defined(MAP_HUGE_SHIFT) && !defined(MAP_HUGE_2MB)
#define MAP_HUGE_2MB		(21 << MAP_HUGE_SHIFT)
#endif
/* Virtual space reserved for the window: MAP_NORESERVE, so only what is
 * touched is memory. */
#define FLOW_MEM_WINDOW		((size_t)64 << 30)
#define FLOW_MEM_UNITS		(FLOW_MEM_WINDOW / FLOW_MEM_UNIT)

struct tally_flow_mem {
	pthread_mutex_t lock;
	uint8_t *base;			/* FLOW_MEM_WINDOW bytes, unit aligned */
	void *map;			/* the mapping as made (for munmap) */
	size_t map_len;
	size_t used;			/* bytes in blocks now */
	size_t populated;		/* bytes from base made resident at probe */
	bool hugetlb;			/* MAP_HUGETLB pages, else transparent */
	int socket;			/* DPDK memory: the port's socket */
	uint64_t bits[FLOW_MEM_UNITS / 64];	/* unit in use */
};

static bool
flow_mem_bit(const struct tally_flow_mem *fm, size_t u)
{
	return (fm->bits[u / 64] >> (u % 64)) & 1;
}

static void
flow_mem_mark(struct tally_flow_mem *fm, size_t u, size_t n, bool on)
{
	size_t i;

	for (i = u; i < u + n; i++) {
		if (on)
			fm->bits[i / 64] |= 1ull << (i % 64);
		else
			fm->bits[i / 64] &= ~(1ull << (i % 64));
	}
}

/* First run of n free units, or SIZE_MAX. */
static size_t
flow_mem_find(const struct tally_flow_mem *fm, size_t n)
{
	size_t u = 0, run = 0;

	while (u < FLOW_MEM_UNITS) {
		if (run == 0 && fm->bits[u / 64] == UINT64_MAX) {
			u = (u / 64 + 1) * 64;	/* a full word */
			continue;
		}
		if (flow_mem_bit(fm, u))
			run = 0;
		else if (++run == n)
			return u + 1 - n;
		u++;
	}
	return SIZE_MAX;
}

static void
flow_mem_advise(void *p, size_t len)
{
#ifdef MADV_HUGEPAGE
	/* a hint: without transparent huge pages this is plain memory */
	(void)madvise(p, len, MADV_HUGEPAGE);
#else
	RTE_SET_USED(p);
	RTE_SET_USED(len);
#endif
}

/* A fresh inaccessible mapping of the window's kind at p (MAP_FIXED when
 * p is set); MAP_FAILED on error. */
static void *
flow_mem_map(const struct tally_flow_mem *fm, void *p, size_t len)
{
	int flags = MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE;

	if (p != NULL)
		flags |= MAP_FIXED;
#if defined(MAP_HUGETLB) && defined(MAP_HUGE_2MB)
	if (fm->hugetlb)
		flags |= MAP_HUGETLB | MAP_HUGE_2MB;
#endif
	p = mmap(p, len, PROT_NONE, flags, -1, 0);
	if (p != MAP_FAILED && !fm->hugetlb)
		flow_mem_advise(p, len);
	return p;
}

/* Make len bytes at p (whole units) accessible and resident: 0, or -1 with
 * the block inaccessible again. A hugetlbfs block must be resident before
 * anything touches it (see the top). */
static int
flow_mem_open(struct tally_flow_mem *fm, void *p, size_t len)
{
	if (mprotect(p, len, PROT_READ | PROT_WRITE) != 0)
		return -1;
	if (!fm->hugetlb)
		return 0;
#ifdef MADV_POPULATE_WRITE
	if (madvise(p, len, MADV_POPULATE_WRITE) == 0)
		return 0;
#endif
	/* no huge page left: give back what was populated */
	if (flow_mem_map(fm, p, len) == MAP_FAILED)
		TALLY_FLOW_LOG(ERR, "cannot release %zu bytes of the steering window: %s",
			       len, strerror(errno));
	return -1;
}

int
tally_flow_mem_init(struct tally_flow_ctx *fc, const struct tally_adapter *ad)
{
	struct tally_flow_mem *fm;
	uintptr_t p, a;

	fm = rte_zmalloc("tally_flow_mem", sizeof(*fm), 0);
	if (fm == NULL)
		return -ENOMEM;
	pthread_mutex_init(&fm->lock, NULL);
	fm->socket = fc->dev->data->numa_node;
	fc->mem = fm;
	if (tally_proc(ad->eth_dev)->model == NULL || ad->steer_mem_eal)
		return 0;
	fm->map_len = FLOW_MEM_WINDOW + FLOW_MEM_UNIT;
	if (rte_eal_has_hugepages()) {
#if defined(MAP_HUGETLB) && defined(MAP_HUGE_2MB) && defined(MADV_POPULATE_WRITE)
		fm->hugetlb = true;
		fm->map_len = FLOW_MEM_WINDOW;	/* huge page aligned already */
#else
		return 0;
#endif
	}
	fm->map = flow_mem_map(fm, NULL, fm->map_len);
	if (fm->map == MAP_FAILED) {
		/* e.g. strict overcommit, or no 2 MiB pages: DPDK memory only */
		TALLY_FLOW_LOG(INFO, "no host window for steering memory: %s",
			       strerror(errno));
		fm->map = NULL;
		return 0;
	}
	/* a private hugetlbfs page shared with a child after fork() would
	 * need a free huge page for its copy when written */
	if (fm->hugetlb)
		(void)madvise(fm->map, fm->map_len, MADV_DONTFORK);
	p = (uintptr_t)fm->map;
	a = (p + FLOW_MEM_UNIT - 1) & ~(uintptr_t)(FLOW_MEM_UNIT - 1);
	fm->base = (uint8_t *)a;
	return 0;
}

void
tally_flow_mem_fini(struct tally_flow_ctx *fc)
{
	struct tally_flow_mem *fm = fc->mem;

	if (fm == NULL)
		return;
	if (fm->map != NULL)
		munmap(fm->map, fm->map_len);
	pthread_mutex_destroy(&fm->lock);
	rte_free(fm);
	fc->mem = NULL;
}

bool
tally_flow_mem_window(const struct tally_flow_ctx *fc, uint64_t *iova, uint64_t *len)
{
	if (fc == NULL || fc->mem == NULL || fc->mem->base == NULL)
		return false;
	*iova = (uintptr_t)fc->mem->base;
	*len = FLOW_MEM_WINDOW;
	return true;
}

size_t
tally_flow_mem_window_used(const struct tally_flow_ctx *fc)
{
	return fc->mem != NULL ? fc->mem->used : 0;
}

bool
tally_flow_mem_window_hugetlb(const struct tally_flow_ctx *fc)
{
	return fc != NULL && fc->mem != NULL && fc->mem->base != NULL && fc->mem->hugetlb;
}

size_t
tally_flow_mem_window_populated(const struct tally_flow_ctx *fc)
{
	return fc->mem != NULL ? fc->mem->populated : 0;
}

void
tally_flow_mem_populate(struct tally_flow_ctx *fc, size_t bytes)
{
	struct tally_flow_mem *fm = fc->mem;
	size_t len = (bytes + FLOW_MEM_UNIT - 1) & ~(FLOW_MEM_UNIT - 1);

	/* arrays below a unit never come from the window */
	if (fm == NULL || fm->base == NULL || bytes < FLOW_MEM_UNIT || len > FLOW_MEM_WINDOW)
		return;
	pthread_mutex_lock(&fm->lock);
	/* the units stay free and zero: the first blocks allocated, first
	 * fit, take them (tally_flow_mem_alloc() finds them accessible) */
	if (fm->used == 0 && fm->populated == 0 && flow_mem_open(fm, fm->base, len) == 0) {
		if (!fm->hugetlb)
			tally_hmem_populate(fm->base, len);
		fm->populated = len;
	}
	pthread_mutex_unlock(&fm->lock);
}

static bool
flow_mem_in_window(const struct tally_flow_mem *fm, const void *p)
{
	return fm->base != NULL && (const uint8_t *)p >= fm->base &&
	       (const uint8_t *)p < fm->base + FLOW_MEM_WINDOW;
}

void *
tally_flow_mem_alloc(void *arg, size_t size, size_t align, uint64_t *iova)
{
	struct tally_flow_mem *fm = arg;
	size_t n, u;
	void *p;

	if (fm->base != NULL && size >= FLOW_MEM_UNIT && align <= FLOW_MEM_UNIT) {
		n = (size + FLOW_MEM_UNIT - 1) / FLOW_MEM_UNIT;
		pthread_mutex_lock(&fm->lock);
		u = flow_mem_find(fm, n);
		p = u != SIZE_MAX ? fm->base + u * FLOW_MEM_UNIT : NULL;
		/* zero: never touched, or replaced when freed */
		if (p != NULL && flow_mem_open(fm, p, n * FLOW_MEM_UNIT) != 0)
			p = NULL;
		if (p != NULL) {
			flow_mem_mark(fm, u, n, true);
			fm->used += n * FLOW_MEM_UNIT;
		}
		pthread_mutex_unlock(&fm->lock);
		if (p != NULL) {
			*iova = (uintptr_t)p;
			return p;
		}
		/* window full (or no memory for a locked process, or no
		 * huge page left): DPDK memory below */
	}
	p = rte_zmalloc_socket("tally_steer", size, align, fm->socket);
	if (p != NULL)
		*iova = (uintptr_t)p;	/* IOVA = VA (tally_dma.c) */
	return p;
}

void
tally_flow_mem_free(void *arg, void *ptr, size_t size)
{
	struct tally_flow_mem *fm = arg;
	size_t n, u;

	if (ptr == NULL)
		return;
	if (!flow_mem_in_window(fm, ptr)) {
		rte_free(ptr);
		return;
	}
	u = (size_t)((uint8_t *)ptr - fm->base) / FLOW_MEM_UNIT;
	n = (size + FLOW_MEM_UNIT - 1) / FLOW_MEM_UNIT;
	pthread_mutex_lock(&fm->lock);
	/* a fresh inaccessible mapping in its place: the pages go back to
	 * the kernel (even locked ones, which MADV_DONTNEED refuses) and
	 * the block reads zero when reused */
	if (flow_mem_map(fm, ptr, n * FLOW_MEM_UNIT) == MAP_FAILED) {
		/* keep the block out of use rather than hand out stale memory */
		TALLY_FLOW_LOG(ERR, "cannot release %zu bytes of the steering window: %s",
			       n * FLOW_MEM_UNIT, strerror(errno));
	} else {
		flow_mem_mark(fm, u, n, false);
		fm->used -= n * FLOW_MEM_UNIT;
	}
	pthread_mutex_unlock(&fm->lock);
}
