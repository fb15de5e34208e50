/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * How much two CPUs of this machine add up to (a benchmark, not a test):
 * the ceiling over any "two queues >= N x one queue" figure. Each kind of
 * work below shares nothing between the threads (no line, no lock, its
 * own memory), so two CPUs that are whole cores do twice the work of one;
 * two vCPUs that are hyperthreads of one core, or a host that runs
 * something else on the second CPU's core, do less.
 *
 * For each kind of work, ROUNDS rounds of: the work alone on CPU A, alone
 * on CPU B, then on both at once; prints the operations per second of
 * each (median [min-max] of the rounds) and the ratio both / the mean of
 * the two alone (2.00: two whole cores).
 *   alu     independent integer multiplies and adds, registers only;
 *   l2      dependent random reads in a private 1 MiB array (the caches of
 *           one core);
 *   dram    random reads, 16 independent chains, each thread its own
 *           256 MiB array (memory bandwidth and latency shared by both).
 *
 * usage: cpu_scaling [cpu_a [cpu_b [rounds [seconds]]]]   (default 0 1 5 0.3)
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "perf_clock.h"
#include "perf_cpu.h"

#define CS_CHAINS	16u
#define CS_MAX_ROUNDS	15

enum cs_kind { CS_ALU, CS_L2, CS_DRAM, CS_NKINDS };

static const char *const cs_name[CS_NKINDS] = { "alu", "l2", "dram" };
static const size_t cs_size[CS_NKINDS] = { 0, (size_t)1 << 20, (size_t)256 << 20 };

struct cs_thread {
	pthread_t tid;
	int cpu;
	enum cs_kind kind;
	double seconds;
	uint32_t *chain;	/* random cycle over the array's 64-byte lines */
	size_t nlines;
	uint64_t ops;
	uint64_t sink;
	volatile int *go;
};

/* A random cycle through n lines, line i's first word holding the next
 * line's index (Sattolo's shuffle). */
static uint32_t *
cs_chain_new(size_t bytes, size_t *nlines)
{
	size_t n = bytes / 64, i, j;
	uint32_t *a, *perm, t;
	uint64_t x = 88172645463325252ull;

	a = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (a == MAP_FAILED)
		return NULL;
	(void)madvise(a, bytes, MADV_HUGEPAGE);
	perm = malloc(n * sizeof(*perm));
	if (perm == NULL) {
		munmap(a, bytes);
		return NULL;
	}
	for (i = 0; i < n; i++)
		perm[i] = (uint32_t)i;
	for (i = n - 1; i > 0; i--) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		j = (size_t)(x % i);
		t = perm[i];
		perm[i] = perm[j];
		perm[j] = t;
	}
	for (i = 0; i < n; i++)
		a[(size_t)perm[i] * 16] = perm[(i + 1) % n];
	free(perm);
	*nlines = n;
	return a;
}

/* One timing check per 4096 operations. */
static void *
cs_run(void *arg)
{
	struct cs_thread *t = arg;
	uint64_t ops = 0, a = 1, b = 3, c = 5, d = 7;
	uint32_t p[CS_CHAINS];
	double end;
	unsigned int i, k;

	if (perf_pin_self(t->cpu) != 0) {
		t->ops = 0;
		return NULL;
	}
	for (k = 0; k < CS_CHAINS; k++)
		p[k] = (uint32_t)(t->nlines ? (t->nlines / CS_CHAINS) * k : 0);
	while (!*t->go)
		;
	end = perf_now_s() + t->seconds;
	do {
		switch (t->kind) {
		case CS_ALU:
			for (i = 0; i < 1024; i++) {
				a = a * 0x9E3779B97F4A7C15ull + b;
				b = b * 0xC2B2AE3D27D4EB4Full + c;
				c = c * 0x165667B19E3779F9ull + d;
				d = d * 0x27D4EB2F165667C5ull + a;
			}
			ops += 4096;
			break;
		case CS_L2:
			for (i = 0; i < 4096; i++)
				p[0] = t->chain[(size_t)p[0] * 16];
			ops += 4096;
			break;
		default:
			for (i = 0; i < 4096 / CS_CHAINS; i++)
				for (k = 0; k < CS_CHAINS; k++)
					p[k] = t->chain[(size_t)p[k] * 16];
			ops += 4096;
			break;
		}
	} while (perf_now_s() < end);
	for (k = 0; k < CS_CHAINS; k++)
		a += p[k];
	t->sink = a + b + c + d;
	t->ops = ops;
	return NULL;
}

/* Run the threads of ts[0..n) at once; their rates (ops/s) in rate[]. */
static int
cs_round(struct cs_thread *ts, unsigned int n, double *rate)
{
	volatile int go = 0;
	unsigned int i;

	for (i = 0; i < n; i++) {
		ts[i].go = &go;
		if (pthread_create(&ts[i].tid, NULL, cs_run, &ts[i]) != 0)
			return -1;
	}
	go = 1;
	for (i = 0; i < n; i++) {
		pthread_join(ts[i].tid, NULL);
		if (ts[i].ops == 0)
			return -1;
		rate[i] = (double)ts[i].ops / ts[i].seconds;
	}
	return 0;
}

static int
cs_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double
cs_median(double *v, unsigned int n)
{
	qsort(v, n, sizeof(*v), cs_cmp);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void
cs_print(const char *what, double *v, unsigned int n, double scale)
{
	double m = cs_median(v, n);	/* sorts v[] */

	printf("  %-22s %8.1f [%.1f-%.1f]\n", what, m / scale, v[0] / scale, v[n - 1] / scale);
}

int
main(int argc, char **argv)
{
	int cpu[2] = { argc > 1 ? atoi(argv[1]) : 0, argc > 2 ? atoi(argv[2]) : 1 };
	unsigned int rounds = argc > 3 ? (unsigned int)atoi(argv[3]) : 5;
	double seconds = argc > 4 ? atof(argv[4]) : 0.3;
	double alone[2][CS_MAX_ROUNDS], both[2][CS_MAX_ROUNDS], ratio[CS_MAX_ROUNDS];
	struct cs_thread ts[2];
	unsigned int k, r, i;
	double m;

	if (rounds < 1 || rounds > CS_MAX_ROUNDS || seconds <= 0) {
		fprintf(stderr, "usage: cpu_scaling [cpu_a [cpu_b [rounds(1-%d) [seconds]]]]\n",
			CS_MAX_ROUNDS);
		return 2;
	}
	printf("cpu_scaling: CPUs %d and %d, %u rounds of %.2f s; M operations/s,"
	       " median [min-max]\n", cpu[0], cpu[1], rounds, seconds);
	for (k = 0; k < CS_NKINDS; k++) {
		memset(ts, 0, sizeof(ts));
		for (i = 0; i < 2; i++) {
			ts[i].cpu = cpu[i];
			ts[i].kind = (enum cs_kind)k;
			ts[i].seconds = seconds;
			if (cs_size[k] != 0) {
				ts[i].chain = cs_chain_new(cs_size[k], &ts[i].nlines);
				if (ts[i].chain == NULL) {
					fprintf(stderr, "cpu_scaling: no memory\n");
					return 1;
				}
			}
		}
		for (r = 0; r < rounds; r++) {
			double b[2];

			if (cs_round(&ts[0], 1, &alone[0][r]) != 0 ||
			    cs_round(&ts[1], 1, &alone[1][r]) != 0 ||
			    cs_round(ts, 2, b) != 0) {
				fprintf(stderr, "cpu_scaling: cannot run on CPUs %d and %d\n",
					cpu[0], cpu[1]);
				return 1;
			}
			both[0][r] = b[0];
			both[1][r] = b[1];
			ratio[r] = (b[0] + b[1]) / ((alone[0][r] + alone[1][r]) / 2);
		}
		printf("%s:\n", cs_name[k]);
		cs_print("alone, CPU A", alone[0], rounds, 1e6);
		cs_print("alone, CPU B", alone[1], rounds, 1e6);
		cs_print("both, CPU A", both[0], rounds, 1e6);
		cs_print("both, CPU B", both[1], rounds, 1e6);
		m = cs_median(ratio, rounds);	/* sorts ratio[] */
		printf("  both / alone          %8.2f [%.2f-%.2f]\n", m, ratio[0], ratio[rounds - 1]);
		for (i = 0; i < 2; i++)
			if (ts[i].chain != NULL)
				munmap(ts[i].chain, cs_size[k]);
	}
	return 0;
}
