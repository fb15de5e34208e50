/* SPDX-License-Identifier: BSD-3-Clause */
/* Flow counter pool: allocation at scale, deferred reuse, sharing, reads. */
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "tally_test.h"
#include "steer_test_util.h"

#define NCNT	4096

struct cnt_env {
	struct fake_dev dev;
	struct tally_fence fence;
	struct tally_cnt_pool *pool;
};

static int
env_init(struct cnt_env *e, uint32_t counters, uint32_t first, uint32_t num)
{
	struct tally_cnt_pool_config cfg = { 0 };

	if (fake_dev_init(&e->dev, counters) != 0)
		return -ENOMEM;
	tally_fence_init(&e->fence, &e->dev.io);
	cfg.io = &e->dev.io;
	cfg.fence = &e->fence;
	cfg.first = first;
	cfg.num = num;
	return tally_cnt_pool_create(&cfg, &e->pool);
}

static void
env_fini(struct cnt_env *e)
{
	tally_cnt_pool_destroy(e->pool);
	tally_fence_fini(&e->fence);
	fake_dev_fini(&e->dev);
}

/* Counter idx reads exactly pkts packets and bytes bytes. */
static int
cnt_expect(struct tally_cnt_pool *pool, uint32_t idx, uint64_t pkts, uint64_t bytes)
{
	uint64_t p, b;

	TEST_ASSERT_EQ(tally_cnt_read(pool, idx, &p, &b), 0, "counter %u", idx);
	TEST_ASSERT_U64_EQ(p, pkts, "counter %u packets", idx);
	TEST_ASSERT_U64_EQ(b, bytes, "counter %u bytes", idx);
	return TEST_SUCCESS;
}

static int
test_alloc_all_then_enospc(void)
{
	static uint8_t seen[NCNT];
	struct cnt_env e;
	uint32_t i, idx, in_use;

	TEST_ASSERT_EQ(env_init(&e, NCNT, 0, 0), 0, "pool create");
	memset(seen, 0, sizeof(seen));
	for (i = 0; i < NCNT; i++) {
		TEST_ASSERT_EQ(tally_cnt_alloc(e.pool, &idx), 0, "alloc %u", i);
		TEST_ASSERT(idx < NCNT && !seen[idx], "index %u unique", idx);
		seen[idx] = 1;
	}
	TEST_ASSERT_EQ(tally_cnt_alloc(e.pool, &idx), -ENOSPC, "exhausted");
	tally_cnt_pool_stats(e.pool, &in_use, NULL, NULL);
	TEST_ASSERT_EQ(in_use, NCNT, "");
	env_fini(&e);
	return TEST_SUCCESS;
}

static int
test_sub_range(void)
{
	struct cnt_env e;
	uint32_t idx, i;

	TEST_ASSERT_EQ(env_init(&e, NCNT, 1000, 10), 0, "pool create");
	for (i = 0; i < 10; i++) {
		TEST_ASSERT_EQ(tally_cnt_alloc(e.pool, &idx), 0, "");
		TEST_ASSERT(idx >= 1000 && idx < 1010, "idx %u in range", idx);
	}
	TEST_ASSERT_EQ(tally_cnt_alloc(e.pool, &idx), -ENOSPC, "");
	TEST_ASSERT_EQ(tally_cnt_ref(e.pool, 999), -EINVAL, "outside the pool");
	TEST_ASSERT_EQ(tally_cnt_free(e.pool, 1010), -EINVAL, "outside the pool");
	env_fini(&e);
	return TEST_SUCCESS;
}

static int
test_deferred_reuse_until_fence(void)
{
	struct cnt_env e;
	uint32_t i, idx, victim, pending;

	TEST_ASSERT_EQ(env_init(&e, 16, 0, 0), 0, "pool create");
	e.dev.auto_fence = false;
	for (i = 0; i < 16; i++)
		TEST_ASSERT_EQ(tally_cnt_alloc(e.pool, &idx), 0, "");
	victim = 7;
	TEST_ASSERT_EQ(tally_cnt_free(e.pool, victim), 0, "");
	tally_cnt_pool_stats(e.pool, NULL, NULL, &pending);
	TEST_ASSERT_EQ(pending, 1, "freed counter waits for a fence");
	/* fence not complete: not handed out, and a fence was requested */
	TEST_ASSERT_EQ(tally_cnt_alloc(e.pool, &idx), -EAGAIN, "");
	TEST_ASSERT(e.dev.fences >= 1, "alloc requested a fence");
	TEST_ASSERT_EQ(tally_cnt_alloc(e.pool, &idx), -EAGAIN, "still pending");
	fake_dev_fence_complete(&e.dev);
	TEST_ASSERT_EQ(tally_cnt_alloc(e.pool, &idx), 0, "reusable after fence");
	TEST_ASSERT_EQ(idx, victim, "");
	/* a fence completed before the free does not release it */
	TEST_ASSERT_EQ(tally_cnt_free(e.pool, 3), 0, "");
	TEST_ASSERT_EQ(tally_cnt_reclaim(e.pool), 0, "old fence does not count");
	tally_fence_request(&e.fence);
	TEST_ASSERT_EQ(tally_cnt_reclaim(e.pool), 0, "requested but not done");
	fake_dev_fence_complete(&e.dev);
	TEST_ASSERT_EQ(tally_cnt_reclaim(e.pool), 1, "");
	env_fini(&e);
	return TEST_SUCCESS;
}

static int
test_shared_refcount(void)
{
	struct cnt_env e;
	uint32_t idx, pending;

	TEST_ASSERT_EQ(env_init(&e, 64, 0, 0), 0, "pool create");
	e.dev.auto_fence = false;
	TEST_ASSERT_EQ(tally_cnt_alloc(e.pool, &idx), 0, "");
	TEST_ASSERT_EQ(tally_cnt_refcnt(e.pool, idx), 1, "");
	TEST_ASSERT_EQ(tally_cnt_ref(e.pool, idx), 0, "");
	TEST_ASSERT_EQ(tally_cnt_ref(e.pool, idx), 0, "");
	TEST_ASSERT_EQ(tally_cnt_refcnt(e.pool, idx), 3, "");
	TEST_ASSERT_EQ(tally_cnt_free(e.pool, idx), 0, "");
	TEST_ASSERT_EQ(tally_cnt_free(e.pool, idx), 0, "");
	tally_cnt_pool_stats(e.pool, NULL, NULL, &pending);
	TEST_ASSERT_EQ(pending, 0, "still referenced");
	TEST_ASSERT_EQ(tally_cnt_free(e.pool, idx), 0, "last reference");
	TEST_ASSERT_EQ(tally_cnt_refcnt(e.pool, idx), 0, "");
	tally_cnt_pool_stats(e.pool, NULL, NULL, &pending);
	TEST_ASSERT_EQ(pending, 1, "");
	TEST_ASSERT_EQ(tally_cnt_ref(e.pool, idx), -ENOENT, "freed");
	TEST_ASSERT_EQ(tally_cnt_free(e.pool, idx), -ENOENT, "double free");
	TEST_ASSERT_EQ(tally_cnt_ref(e.pool, idx + 1), -ENOENT, "never allocated");
	env_fini(&e);
	return TEST_SUCCESS;
}

static int
test_read_reset_baseline(void)
{
	struct cnt_env e;
	struct tally_cnt_entry *c;
	uint64_t p, b;
	uint32_t idx, idx2;

	TEST_ASSERT_EQ(env_init(&e, 64, 0, 0), 0, "pool create");
	c = fake_dev_cnt(&e.dev, 0);
	c->packets = 100;	/* stale value from a previous owner */
	c->bytes = 6400;
	TEST_ASSERT_EQ(tally_cnt_alloc(e.pool, &idx), 0, "");
	TEST_ASSERT_EQ(idx, 0, "");
	TEST_ASSERT_EQ(cnt_expect(e.pool, idx, 0, 0), TEST_SUCCESS, "new owner reads 0");
	c->packets += 5;
	c->bytes += 500;
	TEST_ASSERT_EQ(cnt_expect(e.pool, idx, 5, 500), TEST_SUCCESS, "");
	TEST_ASSERT_EQ(tally_cnt_reset(e.pool, idx), 0, "");
	TEST_ASSERT_EQ(cnt_expect(e.pool, idx, 0, 0), TEST_SUCCESS, "after reset");
	c->packets += 2;
	c->bytes += 120;
	TEST_ASSERT_EQ(cnt_expect(e.pool, idx, 2, 120), TEST_SUCCESS, "");
	/* 64-bit wrap of the bank value is handled modulo 2^64 */
	TEST_ASSERT_EQ(tally_cnt_alloc(e.pool, &idx2), 0, "");
	c = fake_dev_cnt(&e.dev, idx2);
	c->packets = UINT64_MAX;
	c->bytes = UINT64_MAX - 10;
	TEST_ASSERT_EQ(tally_cnt_reset(e.pool, idx2), 0, "");
	c->packets += 3;
	c->bytes += 300;
	TEST_ASSERT_EQ(cnt_expect(e.pool, idx2, 3, 300), TEST_SUCCESS, "across the wrap");
	TEST_ASSERT_EQ(tally_cnt_read(e.pool, 64, &p, &b), -EINVAL, "out of range");
	env_fini(&e);
	return TEST_SUCCESS;
}

static int
test_alloc_free_churn(void)
{
	struct cnt_env e;
	uint32_t *held, i, n = 0, idx;
	unsigned int seed = 1;

	TEST_ASSERT_EQ(env_init(&e, NCNT, 0, 0), 0, "pool create");
	held = calloc(NCNT, sizeof(*held));
	TEST_ASSERT(held != NULL, "");
	for (i = 0; i < 200000; i++) {
		if (n < NCNT && (n == 0 || rand_r(&seed) % 3 != 0)) {
			int rc = tally_cnt_alloc(e.pool, &idx);

			TEST_ASSERT_EQ(rc, 0, "alloc at step %u (n %u)", i, n);
			TEST_ASSERT_EQ(tally_cnt_refcnt(e.pool, idx), 1, "");
			held[n++] = idx;
		} else {
			uint32_t k = (uint32_t)rand_r(&seed) % n;

			TEST_ASSERT_EQ(tally_cnt_free(e.pool, held[k]), 0, "");
			held[k] = held[--n];
		}
	}
	free(held);
	env_fini(&e);
	return TEST_SUCCESS;
}

/*
 * Pending reuse in batches, one per fence ticket: a batch becomes reusable
 * as a whole when its fence completes, batches in order; more tickets than
 * the batch ring holds merge into the last batch (later reuse, never
 * earlier).
 */
static int
test_pending_batches(void)
{
	struct cnt_env e;
	uint32_t i, idx, pending, free_now, n;
	uint32_t seen[3 * TALLY_CNT_BATCHES + 8] = { 0 };

	TEST_ASSERT_EQ(env_init(&e, 3 * TALLY_CNT_BATCHES + 8, 0, 0), 0, "");
	e.dev.auto_fence = false;
	n = 3 * TALLY_CNT_BATCHES + 8;
	for (i = 0; i < n; i++)
		TEST_ASSERT_EQ(tally_cnt_alloc(e.pool, &idx), 0, "");
	/* batch 1: 0..2 under one ticket */
	for (i = 0; i < 3; i++)
		TEST_ASSERT_EQ(tally_cnt_free(e.pool, i), 0, "");
	tally_fence_request(&e.fence);
	/* batch 2: 3..4 */
	TEST_ASSERT_EQ(tally_cnt_free(e.pool, 3), 0, "");
	TEST_ASSERT_EQ(tally_cnt_free(e.pool, 4), 0, "");
	fake_dev_fence_complete(&e.dev);	/* completes batch 1's fence only */
	tally_fence_request(&e.fence);
	tally_cnt_pool_stats(e.pool, NULL, &free_now, &pending);
	TEST_ASSERT_EQ(pending, 5, "");
	TEST_ASSERT_EQ(free_now, 0, "");
	TEST_ASSERT_EQ(tally_cnt_reclaim(e.pool), 3, "the first batch, whole");
	for (i = 0; i < 3; i++) {
		TEST_ASSERT_EQ(tally_cnt_alloc(e.pool, &idx), 0, "");
		TEST_ASSERT(idx < 3 && !seen[idx], "index %u from batch 1", idx);
		seen[idx] = 1;
	}
	TEST_ASSERT_EQ(tally_cnt_alloc(e.pool, &idx), -EAGAIN, "batch 2 waits");
	fake_dev_fence_complete(&e.dev);
	TEST_ASSERT_EQ(tally_cnt_reclaim(e.pool), 2, "");
	/* one ticket per free, more than the ring holds: all still reused
	 * only once their fences completed */
	for (i = 5; i < n; i++) {
		TEST_ASSERT_EQ(tally_cnt_free(e.pool, i), 0, "");
		tally_fence_request(&e.fence);
	}
	tally_cnt_pool_stats(e.pool, NULL, NULL, &pending);
	TEST_ASSERT_EQ(pending, n - 5, "");
	TEST_ASSERT_EQ(tally_cnt_reclaim(e.pool), 0, "no fence completed");
	fake_dev_fence_complete(&e.dev);
	TEST_ASSERT_EQ(tally_cnt_reclaim(e.pool), n - 5, "");
	tally_cnt_pool_stats(e.pool, NULL, &free_now, &pending);
	TEST_ASSERT_EQ(pending, 0, "");
	TEST_ASSERT_EQ(free_now, n - 3, "");
	env_fini(&e);
	return TEST_SUCCESS;
}

/* Resident KiB of the mapping holding p (smaps Rss: a page only read,
 * i.e. the shared zero page, does not count), or -1. */
static long
vma_rss_kb(const void *p)
{
	FILE *f = fopen("/proc/self/smaps", "r");
	char line[256];
	bool in = false;
	long kb = -1;

	if (f == NULL)
		return -1;
	while (fgets(line, sizeof(line), f) != NULL) {
		unsigned long lo, hi;

		if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 && strchr(line, '-') < strchr(line, ' ')) {
			in = (uintptr_t)p >= lo && (uintptr_t)p < hi;
			continue;
		}
		if (in && sscanf(line, "Rss: %ld kB", &kb) == 1)
			break;
	}
	fclose(f);
	return kb;
}

/* A counter handed out with a zero bank value writes no baseline, so its
 * baseline page stays untouched; one with a non-zero value gets a
 * baseline and reads 0. */
static int
test_baseline_only_when_needed(void)
{
	struct cnt_env e;
	uint32_t i, idx;

	TEST_ASSERT_EQ(env_init(&e, 65536, 0, 0), 0, "");
	for (i = 0; i < 40000; i++)
		TEST_ASSERT_EQ(tally_cnt_alloc(e.pool, &idx), 0, "");
	TEST_ASSERT_EQ(vma_rss_kb(e.pool->slot), 0, "no baseline written");
	fake_dev_cnt(&e.dev, 50000)->packets = 7;
	fake_dev_cnt(&e.dev, 50000)->bytes = 700;
	for (; i <= 50000; i++)
		TEST_ASSERT_EQ(tally_cnt_alloc(e.pool, &idx), 0, "");
	TEST_ASSERT_EQ(idx, 50000, "");
	TEST_ASSERT_EQ(vma_rss_kb(e.pool->slot), 4, "one baseline page");
	TEST_ASSERT_EQ(cnt_expect(e.pool, idx, 0, 0), TEST_SUCCESS, "new owner reads 0");
	env_fini(&e);
	return TEST_SUCCESS;
}

/* Resident 4 KiB pages of [p, p + len), p page aligned. */
static long
resident_pages(const void *p, size_t len)
{
	size_t n = (len + 4095) / 4096, i;
	unsigned char *vec = malloc(n);
	long r = 0;

	if (vec == NULL || mincore((void *)p, len, vec) != 0) {
		free(vec);
		return -1;
	}
	for (i = 0; i < n; i++)
		r += vec[i] & 1;
	free(vec);
	return r;
}

/* The state of the first n counters is made resident ahead of their
 * allocation (it is untouched before); n beyond the pool is clamped. */
static int
test_populate_state(void)
{
	const uint32_t num = 1u << 20, n = 600000;
	const size_t len = (size_t)n * sizeof(uint32_t);
	struct cnt_env e;
	uint32_t idx;

	TEST_ASSERT_EQ(env_init(&e, num, 0, 0), 0, "pool create");
	TEST_ASSERT_EQ(resident_pages(e.pool->state, len), 0, "state untouched at creation");
	tally_cnt_pool_populate(e.pool, n);
	TEST_ASSERT_EQ(resident_pages(e.pool->state, len), (long)((len + 4095) / 4096),
		       "state of %u counters resident", n);
	tally_cnt_pool_populate(e.pool, UINT32_MAX);
	TEST_ASSERT_EQ(resident_pages(e.pool->state, (size_t)num * sizeof(uint32_t)),
		       (long)((size_t)num * sizeof(uint32_t) / 4096), "clamped to the pool");
	/* populated state is still free state: allocation starts at 0 */
	TEST_ASSERT_EQ(tally_cnt_alloc(e.pool, &idx), 0, "alloc");
	TEST_ASSERT_EQ(idx, 0, "first counter");
	env_fini(&e);
	return TEST_SUCCESS;
}

static const struct tally_test_case cases[] = {
	TEST_CASE(test_alloc_all_then_enospc),
	TEST_CASE(test_sub_range),
	TEST_CASE(test_deferred_reuse_until_fence),
	TEST_CASE(test_shared_refcount),
	TEST_CASE(test_read_reset_baseline),
	TEST_CASE(test_alloc_free_churn),
	TEST_CASE(test_pending_batches),
	TEST_CASE(test_baseline_only_when_needed),
	TEST_CASE(test_populate_state),
};

TEST_MAIN("steer-cnt", cases)
