/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The benchmarks' threads, with or without DPDK: pin the calling thread.
 */
#ifndef PERF_CPU_H
#define PERF_CPU_H

#include <pthread.h>
#include <sched.h>

/* Pin the calling thread to cpu: 0 or an errno value. */
static inline int
perf_pin_self(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

#endif /* PERF_CPU_H */
