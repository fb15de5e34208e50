/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What handing a cache line from one CPU to another costs on this machine
 * (a benchmark, not a test): the floor under a device that runs on one
 * core and a driver that runs on another (tally-nic and a forwarding
 * lcore), whose descriptors, completions and doorbells are lines each side
 * writes and the other reads.
 *
 * Two threads, pinned to CPU A and CPU B, prints ns for:
 *   pingpong  one line, each thread waits for the other's value and writes
 *             its own: half a round trip = one dependent hand-over;
 *   stream    the writer fills 64-byte slots of a ring of RING lines and
 *             publishes its index every BURST slots, the reader waits for
 *             the index and reads every slot (a burst of descriptors): ns
 *             per line moved, hand-overs overlapping.
 *
 * usage: core_latency [cpu_a [cpu_b [seconds]]]   (default 0 1 1)
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "perf_clock.h"
#include "perf_cpu.h"

#define LINE	64
#define RING	1024u		/* lines in the stream ring */
#define BURST	32u		/* lines per published index */

struct line {
	volatile uint64_t v;
	uint8_t pad[LINE - sizeof(uint64_t)];
} __attribute__((aligned(LINE)));

static struct line ping, pong;
static struct line ring[RING];
static struct line prod, cons;
static volatile int go, stop;
static volatile uint64_t cl_sink;

struct arg {
	int cpu;
	volatile int ready;	/* 1 pinned, -1 could not pin */
	uint64_t lines;		/* stream: lines read */
};

/* The second thread's start: pinned to its CPU, then waiting for `go`.
 * false: it could not be pinned (and returns). */
static bool
cl_partner_ready(struct arg *a)
{
	a->ready = perf_pin_self(a->cpu) == 0 ? 1 : -1;
	if (a->ready < 0)
		return false;
	while (!go)
		;
	return true;
}

/* Start fn on CPU b->cpu and pin this thread to cpu_a; 0 when both are
 * pinned (then `go` is set), else -1 with the second thread ended. */
static int
cl_pair_start(pthread_t *t, void *(*fn)(void *), struct arg *b, int cpu_a)
{
	go = stop = 0;
	b->ready = 0;
	if (pthread_create(t, NULL, fn, b) != 0)
		return -1;
	while (b->ready == 0)
		;
	if (b->ready < 0 || perf_pin_self(cpu_a) != 0) {
		stop = go = 1;
		pthread_join(*t, NULL);
		return -1;
	}
	go = 1;
	return 0;
}

static void
cl_pair_stop(pthread_t t)
{
	stop = 1;
	pthread_join(t, NULL);
}

/* the second thread of pingpong: answers every value with the same */
static void *
pong_main(void *p)
{
	struct arg *a = p;
	uint64_t want = 1;

	if (!cl_partner_ready(a))
		return NULL;
	while (!stop) {
		if (ping.v == want) {
			pong.v = want;
			want++;
		}
	}
	return NULL;
}

static double
run_pingpong(int cpu_a, int cpu_b, double secs)
{
	struct arg b = { .cpu = cpu_b };
	pthread_t t;
	uint64_t i = 0;
	double t0, t1;

	ping.v = pong.v = 0;
	if (cl_pair_start(&t, pong_main, &b, cpu_a) != 0)
		return -1;
	t0 = perf_now_s();
	do {
		uint64_t k;

		for (k = 0; k < 1000; k++) {
			ping.v = ++i;
			while (pong.v != i)
				;
		}
		t1 = perf_now_s();
	} while (t1 - t0 < secs);
	cl_pair_stop(t);
	return (t1 - t0) * 1e9 / (double)i / 2;
}

/* the reader of stream: every line of every published burst */
static void *
reader_main(void *p)
{
	struct arg *a = p;
	uint64_t seen = 0, sum = 0;

	if (!cl_partner_ready(a))
		return NULL;
	while (!stop) {
		uint64_t avail = prod.v;

		while (seen < avail) {
			sum += ring[seen % RING].v;
			seen++;
		}
		cons.v = seen;
	}
	a->lines = seen;
	cl_sink = sum;
	return NULL;
}

static double
run_stream(int cpu_a, int cpu_b, double secs)
{
	struct arg b = { .cpu = cpu_b };
	pthread_t t;
	uint64_t w = 0;
	double t0, t1;

	prod.v = cons.v = 0;
	if (cl_pair_start(&t, reader_main, &b, cpu_a) != 0)
		return -1;
	t0 = perf_now_s();
	do {
		uint32_t k;

		/* room for a burst: the reader is less than a ring behind */
		while (w + BURST - cons.v > RING)
			;
		for (k = 0; k < BURST; k++, w++)
			ring[w % RING].v = w;
		prod.v = w;
		t1 = perf_now_s();
	} while (t1 - t0 < secs);
	cl_pair_stop(t);
	return (t1 - t0) * 1e9 / (double)b.lines;
}

int
main(int argc, char **argv)
{
	int a = argc > 1 ? atoi(argv[1]) : 0;
	int b = argc > 2 ? atoi(argv[2]) : 1;
	double secs = argc > 3 ? atof(argv[3]) : 1.0;
	double pp, st;

	pp = run_pingpong(a, b, secs);
	st = run_stream(a, b, secs);
	if (pp < 0 || st < 0) {
		fprintf(stderr, "core_latency: cannot pin threads to CPUs %d and %d\n", a, b);
		return 1;
	}
	printf("cpus %d -> %d\n", a, b);
	printf("pingpong     %7.1f ns/hand-over   one line, each side waits for the other\n", pp);
	printf("stream       %7.1f ns/line        bursts of %u lines, index published per burst\n",
	       st, BURST);
	return 0;
}
