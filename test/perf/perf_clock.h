/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The clocks of the benchmarks, with or without DPDK: seconds as doubles,
 * monotonic wall time and the calling thread's CPU time.
 */
#ifndef PERF_CLOCK_H
#define PERF_CLOCK_H

#include <time.h>

static inline double
perf_clock_s(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static inline double
perf_now_s(void)
{
	return perf_clock_s(CLOCK_MONOTONIC);
}

/* CPU time of the calling thread. */
static inline double
perf_cpu_s(void)
{
	return perf_clock_s(CLOCK_THREAD_CPUTIME_ID);
}

#endif /* PERF_CLOCK_H */
