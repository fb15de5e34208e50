/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What one random memory access costs on this machine (a benchmark, not a
 * test): the floor under a synchronous rule insert or delete, which touches
 * one random hash slot per call.
 *
 * Over an array of SIZE MiB (2 MiB pages where the kernel gives them, else
 * 4 KiB), prints ns per access for:
 *   chase        dependent random reads (each address comes from the last
 *                read): the full latency of one miss;
 *   independent  random reads whose addresses are known ahead: the
 *                throughput when misses overlap (what a batch achieves);
 *   insert/read  an insert-like operation: hash, prefetch the slot, WORK
 *                stores and multiplies of other work, then read the slot
 *                and write it (a probe, then the entry);
 *   insert/blind the same operation writing the slot without reading it
 *                (what an insert that knows the slot is free would cost).
 * The two insert lines minus "work" (the same loop on a 4 MiB array, which
 * stays in cache) give the stall a slot access adds to one call. Last, the
 * first-touch rate of fresh memory (page faults, zeroing) in MB/s, with
 * 4 KiB pages and with transparent huge pages asked for: what filling a
 * pre-sized array or a rule slab pays once. First of all, the clock the
 * core runs at (a chain of dependent 64-bit multiplies, 3 cycles each on
 * every x86 core since 2008), next to the TSC's: a VM's vCPU may run far
 * from its TSC's rate, and cycles counted with the TSC then mislead.
 *
 * usage: mem_latency [size_mib [work]]   (default 256 60)
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "perf_clock.h"

#define HUGE_SZ		(2u << 20)
#define LINE		64u
#define SLOT		32u
#define STEPS		3000000u

static volatile uint64_t ml_sink[64];

static uint64_t
ml_next(uint64_t x)
{
	return x * 6364136223846793005ull + 1442695040888963407ull;
}

/* WORK stores and multiplies: the rest of a create call */
static __attribute__((noinline)) uint64_t
ml_work(uint64_t x, unsigned int work)
{
	unsigned int i;

	for (i = 0; i < work; i++) {
		ml_sink[i & 63] = x;
		x = ml_next(x);
	}
	return x;
}

/* A fresh mapping of len bytes, 2 MiB aligned, with huge pages asked for or
 * refused; *touch_s: the time its first touch took (one write per page). */
static uint8_t *
ml_map(size_t len, bool huge, double *touch_s)
{
	uintptr_t p = (uintptr_t)mmap(NULL, len + HUGE_SZ, PROT_READ | PROT_WRITE,
				      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	volatile uint8_t *a;
	size_t off;
	double t;

	if ((void *)p == MAP_FAILED)
		return NULL;
	a = (volatile uint8_t *)((p + HUGE_SZ - 1) & ~(uintptr_t)(HUGE_SZ - 1));
#if defined(MADV_HUGEPAGE) && defined(MADV_NOHUGEPAGE)
	(void)madvise((void *)(uintptr_t)a, len, huge ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
#endif
	t = perf_now_s();
	for (off = 0; off < len; off += 4096)
		a[off] = 0;
	*touch_s = perf_now_s() - t;
	return (uint8_t *)(uintptr_t)a;
}

static uint8_t *
ml_alloc(size_t len)
{
	double t;

	return ml_map(len, true, &t);
}

/* First-touch rate of a fresh len-byte mapping, in MB/s (unmapped after). */
static double
ml_touch_rate(size_t len, bool huge)
{
	double t = 0;
	uint8_t *a = ml_map(len, huge, &t);

	if (a == NULL)
		return 0;
	munmap(a, len);		/* the touched pages (not the alignment slack) */
	return t > 0 ? (double)len / 1e6 / t : 0;
}

/* a random cyclic permutation of the lines, written as a pointer chain */
static int
ml_chain(uint8_t *a, size_t nl, uint64_t **order)
{
	uint64_t *o = malloc(nl * sizeof(*o)), x = 1, t;
	size_t i, j;

	if (o == NULL)
		return -1;
	for (i = 0; i < nl; i++)
		o[i] = i;
	for (i = nl - 1; i > 0; i--) {
		x = ml_next(x);
		j = (size_t)((x >> 16) % (i + 1));
		t = o[i];
		o[i] = o[j];
		o[j] = t;
	}
	for (i = 0; i < nl; i++)
		*(uint64_t *)(void *)(a + o[i] * LINE) = o[(i + 1) % nl] * LINE;
	*order = o;
	return 0;
}

static double
ml_chase(const uint8_t *a, uint64_t start, uint64_t *sum)
{
	uint64_t off = start;
	double t = perf_now_s();
	uint32_t i;

	for (i = 0; i < STEPS; i++)
		off = *(const uint64_t *)(const void *)(a + off);
	*sum += off;
	return (perf_now_s() - t) / STEPS * 1e9;
}

static double
ml_independent(const uint8_t *a, const uint64_t *order, size_t nl, uint64_t *sum)
{
	double t = perf_now_s();
	uint64_t s = 0;
	uint32_t i;

	for (i = 0; i < STEPS; i++)
		s += *(const uint64_t *)(const void *)(a + order[i % nl] * LINE);
	*sum += s;
	return (perf_now_s() - t) / STEPS * 1e9;
}

/* one insert-like operation per step; blind: write without reading */
static double
ml_insert(uint8_t *a, size_t len, unsigned int work, int blind, uint64_t *sum)
{
	size_t ns = len / SLOT;
	uint64_t x = 88172645463325252ull, busy = 0;
	double t = perf_now_s();
	uint32_t i;

	for (i = 0; i < STEPS; i++) {
		uint32_t *e = (uint32_t *)(void *)(a + ((x ^ (x >> 29)) % ns) * SLOT);

		__builtin_prefetch(e, 1, 3);
		x = ml_work(x, work);
		if (!blind && e[0] != 0) {
			busy++;
			continue;
		}
		e[1] = (uint32_t)x;
		e[2] = (uint32_t)(x >> 32);
		e[3] = i;
		e[0] = i | 1;
	}
	*sum += busy;
	return (perf_now_s() - t) / STEPS * 1e9;
}

#if defined(__x86_64__)
#define CLOCK_MULS	300000000u

/* GHz the core runs a chain of dependent multiplies at (3 cycles each). */
static double
ml_core_ghz(uint64_t *sum)
{
	uint64_t x = 3;
	double t = perf_now_s();
	uint32_t i;

	for (i = 0; i < CLOCK_MULS / 4; i++)
		__asm__ volatile("imul %0, %0\n\timul %0, %0\n\t"
				 "imul %0, %0\n\timul %0, %0" : "+r"(x));
	t = perf_now_s() - t;
	*sum += x;
	return 3.0 * CLOCK_MULS / t * 1e-9;
}

/* GHz of the TSC, over 100 ms. */
static double
ml_tsc_ghz(void)
{
	uint64_t c = __builtin_ia32_rdtsc();
	double t = perf_now_s(), t1;

	while ((t1 = perf_now_s()) - t < 0.1)
		;
	return (double)(__builtin_ia32_rdtsc() - c) / (t1 - t) * 1e-9;
}
#endif

int
main(int argc, char **argv)
{
	size_t len = (size_t)(argc > 1 ? strtoul(argv[1], NULL, 0) : 256) << 20;
	unsigned int work = argc > 2 ? (unsigned int)strtoul(argv[2], NULL, 0) : 60;
	size_t small = (size_t)4 << 20;
	uint64_t *order, sum = 0;
	uint8_t *a, *c;
	double work_ns;

	if (len < small || (a = ml_alloc(len)) == NULL || (c = ml_alloc(small)) == NULL ||
	    ml_chain(a, len / LINE, &order) != 0) {
		fprintf(stderr, "usage: mem_latency [size_mib >= 4 [work]] (or no memory)\n");
		return 1;
	}
#if defined(__x86_64__)
	printf("core clock     %7.2f GHz (dependent multiplies), TSC %.2f GHz\n",
	       ml_core_ghz(&sum), ml_tsc_ghz());
#endif
	printf("array %zu MiB, work %u stores and multiplies per insert\n", len >> 20, work);
	printf("chase          %7.1f ns/access\n", ml_chase(a, order[0] * LINE, &sum));
	printf("independent    %7.1f ns/access\n", ml_independent(a, order, len / LINE, &sum));
	memset(a, 0, len);	/* every slot free again */
	work_ns = ml_insert(c, small, work, 1, &sum);
	printf("work (4 MiB)   %7.1f ns/insert\n", work_ns);
	printf("insert/read    %7.1f ns/insert\n", ml_insert(a, len, work, 0, &sum));
	memset(a, 0, len);
	printf("insert/blind   %7.1f ns/insert\n", ml_insert(a, len, work, 1, &sum));
	printf("first touch, 4 KiB pages   %7.0f MB/s\n", ml_touch_rate(len, false));
	printf("first touch, huge pages    %7.0f MB/s\n", ml_touch_rate(len, true));
	printf("(checksum %" PRIu64 ")\n", sum & 1);
	return 0;
}
