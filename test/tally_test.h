/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Minimal EAL-free test harness: a suite is a table of named cases; each case
 * returns TEST_SUCCESS, TEST_FAILED or TEST_SKIPPED. tally_test_run() prints
 * one line per case and returns the process exit code (0 pass, 1 fail,
 * 77 when every case skipped).
 */
#ifndef TALLY_TEST_H
#define TALLY_TEST_H

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define TEST_SUCCESS	0
#define TEST_FAILED	(-1)
#define TEST_SKIPPED	77

#define TEST_ASSERT(cond, fmt, ...) do {					\
	if (!(cond)) {								\
		fprintf(stderr, "  FAIL %s:%d: %s: " fmt "\n", __FILE__,	\
			__LINE__, #cond, ##__VA_ARGS__);			\
		return TEST_FAILED;						\
	}									\
} while (0)

#define TEST_ASSERT_EQ(a, b, fmt, ...) do {					\
	long long _a = (long long)(a), _b = (long long)(b);			\
	if (_a != _b) {								\
		fprintf(stderr, "  FAIL %s:%d: %s == %s (%lld != %lld): " fmt "\n",\
			__FILE__, __LINE__, #a, #b, _a, _b, ##__VA_ARGS__);	\
		return TEST_FAILED;						\
	}									\
} while (0)

#define TEST_ASSERT_U64_EQ(a, b, fmt, ...) do {					\
	uint64_t _a = (uint64_t)(a), _b = (uint64_t)(b);			\
	if (_a != _b) {								\
		fprintf(stderr, "  FAIL %s:%d: %s == %s (%" PRIu64 " != %" PRIu64 "): " fmt "\n",\
			__FILE__, __LINE__, #a, #b, _a, _b, ##__VA_ARGS__);	\
		return TEST_FAILED;						\
	}									\
} while (0)

/* Randomised tests: a small reproducible generator (xorshift32; the state
 * must not be 0) and a per-run seed to print, so a failure can be replayed. */
static inline uint32_t
tally_test_rand(uint32_t *state)
{
	uint32_t x = *state;

	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	*state = x;
	return x;
}

/* A seed of its own for each run, or TALLY_TEST_SEED's (to run again a
 * seed a failure printed). */
static inline uint32_t
tally_test_random_seed(void)
{
	const char *env = getenv("TALLY_TEST_SEED");
	uint32_t s = (uint32_t)time(NULL) ^ (uint32_t)getpid();

	if (env != NULL && *env != '\0')
		s = (uint32_t)strtoul(env, NULL, 0);
	return s != 0 ? s : 1;
}

struct tally_test_case {
	const char *name;
	int (*fn)(void);
};

#define TEST_CASE(f)	{ #f, f }

static inline int
tally_test_run(const char *suite, const struct tally_test_case *cases, size_t n)
{
	size_t i, pass = 0, fail = 0, skip = 0;

	for (i = 0; i < n; i++) {
		int rc = cases[i].fn();

		if (rc == TEST_SUCCESS)
			pass++;
		else if (rc == TEST_SKIPPED)
			skip++;
		else
			fail++;
		printf("%s: %-48s %s\n", suite, cases[i].name,
		       rc == TEST_SUCCESS ? "ok" :
		       rc == TEST_SKIPPED ? "skipped" : "FAILED");
		fflush(stdout);
	}
	printf("%s: %zu passed, %zu failed, %zu skipped\n", suite, pass, fail, skip);
	if (fail)
		return 1;
	return (skip == n && n > 0) ? TEST_SKIPPED : 0;
}

#define TEST_MAIN(suite, cases)							\
int main(void) { return tally_test_run(suite, cases, sizeof(cases) / sizeof(cases[0])); }

#endif /* TALLY_TEST_H */
