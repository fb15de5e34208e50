/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The one platform header of the device-side layers (lib/hal, lib/steer,
 * lib/model). Everything they need from the OS or from DPDK goes through
 * here, so they build and run without EAL.
 *
 * Logging: messages go to a sink set once at start-up (the PMD routes them
 * to the DPDK log); the default sink writes WARNING and worse to stderr.
 */
#ifndef TALLY_PLAT_H
#define TALLY_PLAT_H

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

enum tally_log_level {
	TALLY_LOG_ERR = 1,
	TALLY_LOG_WARNING = 2,
	TALLY_LOG_NOTICE = 3,
	TALLY_LOG_INFO = 4,
	TALLY_LOG_DEBUG = 5,
};

typedef void (*tally_log_sink_t)(enum tally_log_level level, const char *fmt,
				 va_list ap);

/* Replace the log sink (NULL restores the default). Not thread-safe:
 * call before creating devices. */
void tally_plat_set_log_sink(tally_log_sink_t sink);
void tally_plat_set_log_level(enum tally_log_level level);
void tally_plat_log(enum tally_log_level level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Adds the function name and a newline. */
#define TALLY_LOG(lvl, fmt, ...) \
	tally_plat_log(TALLY_LOG_##lvl, "%s(): " fmt "\n", __func__, ##__VA_ARGS__)

/* Memory: plain C allocation for control structures. */
void *tally_zmalloc(size_t size);
void *tally_zmalloc_aligned(size_t size, size_t align);
void tally_free(void *p);

/* Monotonic time. */
uint64_t tally_time_ns(void);

/* Barriers between host memory and the device. */
#define tally_wmb()	__atomic_thread_fence(__ATOMIC_RELEASE)
#define tally_rmb()	__atomic_thread_fence(__ATOMIC_ACQUIRE)
#define tally_mb()	__atomic_thread_fence(__ATOMIC_SEQ_CST)

/* A spin-wait hint to the CPU (x86 pause, Arm yield), inside busy waits. */
static inline void
tally_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ volatile("yield" ::: "memory");
#endif
}

/* Whether the CPU has prefetchw (CPUID PRFCHW): read at load, 0 before. */
extern int tally_plat_prefetchw;

/*
 * Start fetching the line at p to write it: the line arrives owned, so the
 * store needs no second request to take it from another core's cache. x86
 * spells that prefetchw (CPUID PRFCHW), which neither the x86-64 baseline
 * these layers build for nor DPDK's (-march=corei7) includes: there
 * __builtin_prefetch(p, 1, 3) compiles to a read prefetch. So the
 * instruction is used where the CPU reports it. Like any prefetch, it
 * never faults.
 */
static inline void
tally_prefetch_w(const void *p)
{
#if (defined(__x86_64__) || defined(__i386__)) && !defined(__PRFCHW__)
	if (tally_plat_prefetchw) {
		__asm__ volatile("prefetchw %0" : : "m"(*(const volatile char *)p));
		return;
	}
#endif
	__builtin_prefetch(p, 1, 3);
}

#define TALLY_LIKELY(x)		__builtin_expect(!!(x), 1)
#define TALLY_UNLIKELY(x)	__builtin_expect(!!(x), 0)
#define TALLY_CONTAINER_OF(ptr, type, member) \
	((type *)(void *)((char *)(ptr) - offsetof(type, member)))
#define TALLY_ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define TALLY_MIN(a, b)		((a) < (b) ? (a) : (b))
#define TALLY_MAX(a, b)		((a) > (b) ? (a) : (b))

#endif /* TALLY_PLAT_H */
