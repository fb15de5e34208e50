/* SPDX-License-Identifier: BSD-3-Clause */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include "tally_lock.h"
#include "tally_plat.h"

int tally_plat_prefetchw;

/* The CPU features the inline helpers of tally_plat.h test, read once
 * before main() or when the library is loaded. */
__attribute__((constructor)) static void
plat_cpu_init(void)
{
#if defined(__x86_64__) || defined(__i386__)
	unsigned int a, b, c, d;

	if (__get_cpuid(0x80000001u, &a, &b, &c, &d) && (c & bit_PRFCHW))
		tally_plat_prefetchw = 1;
#endif
}

static tally_log_sink_t log_sink;
static enum tally_log_level log_level = TALLY_LOG_WARNING;

void
tally_plat_set_log_sink(tally_log_sink_t sink)
{
	log_sink = sink;
}

void
tally_plat_set_log_level(enum tally_log_level level)
{
	log_level = level;
}

void
tally_plat_log(enum tally_log_level level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (log_sink != NULL)
		log_sink(level, fmt, ap);
	else if (level <= log_level)
		vfprintf(stderr, fmt, ap);
	va_end(ap);
}

void *
tally_zmalloc(size_t size)
{
	return calloc(1, size);
}

void *
tally_zmalloc_aligned(size_t size, size_t align)
{
	void *p;

	if (align < sizeof(void *))
		align = sizeof(void *);
	size = (size + align - 1) / align * align;
	if (posix_memalign(&p, align, size) != 0)
		return NULL;
	memset(p, 0, size);
	return p;
}

void
tally_free(void *p)
{
	free(p);
}

uint64_t
tally_time_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* ---- the flow engine's lock (tally_lock.h) ---- */

#define TALLY_LOCK_SPINS	256	/* tests between yields */

void
tally_lock_init(struct tally_lock *l)
{
	memset(l, 0, sizeof(*l));
}

void
tally_lock_wait(struct tally_lock *l, uint32_t t)
{
	unsigned int i;

	for (;;) {
		for (i = 0; i < TALLY_LOCK_SPINS; i++) {
			/* acquire: pairs with the release store in tally_unlock() */
			if (__atomic_load_n(&l->owner, __ATOMIC_ACQUIRE) == t)
				goto taken;
			tally_cpu_relax();
		}
		sched_yield();
	}
taken:
	__atomic_store_n(&l->waited, __atomic_load_n(&l->waited, __ATOMIC_RELAXED) + 1,
			 __ATOMIC_RELAXED);
}
