/* SPDX-License-Identifier: BSD-3-Clause */
/* Flow counter pool: alloc/free/ref, deferred reuse, baseline reset. */
#include <errno.h>
#include <string.h>

#include "tally_plat.h"
#include "tally_cnt.h"

int
tally_cnt_pool_create(const struct tally_cnt_pool_config *cfg,
		      struct tally_cnt_pool **out)
{
	const struct tally_io *io = cfg->io;
	struct tally_cnt_pool *pool;
	uint32_t bank_num, bank_off, num;

	if (io == NULL || cfg->fence == NULL || out == NULL)
		return -EINVAL;
	bank_num = io->ops->read32(io->ctx, TALLY_REG_CNT_NUM);
	bank_off = io->ops->read32(io->ctx, TALLY_REG_CNT_OFF);
	if (bank_num > TALLY_CNT_MAX)
		bank_num = TALLY_CNT_MAX;
	if (cfg->first >= bank_num)
		return -EINVAL;
	num = cfg->num != 0 ? cfg->num : bank_num - cfg->first;
	if (num > bank_num - cfg->first)
		return -EINVAL;
	if (bank_off % 16 != 0 ||
	    (uint64_t)bank_off + (uint64_t)bank_num * 16 > io->bar_len)
		return -EINVAL;
	pool = tally_zmalloc(sizeof(*pool));
	if (pool == NULL)
		return -ENOMEM;
	pthread_mutex_init(&pool->lock, NULL);
	pool->slot = tally_zmalloc((size_t)num * sizeof(pool->slot[0]));
	pool->free_stack = tally_zmalloc((size_t)num * sizeof(uint32_t));
	pool->ring = tally_zmalloc((size_t)num * sizeof(pool->ring[0]));
	if (pool->slot == NULL || pool->free_stack == NULL || pool->ring == NULL) {
		tally_cnt_pool_destroy(pool);
		return -ENOMEM;
	}
	pool->bank = (const volatile struct tally_cnt_entry *)
		(const volatile void *)(io->bar + bank_off) + cfg->first;
	pool->first = cfg->first;
	pool->num = num;
	pool->fence = cfg->fence;
	/* low indices first: [fresh, num) were never handed out, so a large
	 * bank costs no start-up time and untouched stack memory */
	pool->nfree = 0;
	pool->fresh = 0;
	*out = pool;
	return 0;
}

void
tally_cnt_pool_destroy(struct tally_cnt_pool *pool)
{
	if (pool == NULL)
		return;
	pthread_mutex_destroy(&pool->lock);
	tally_free(pool->slot);
	tally_free(pool->free_stack);
	tally_free(pool->ring);
	tally_free(pool);
}

/* Sequence-locked baseline write; concurrent writers exclude each other.
 * With dp/db, also returns what the new baseline removes (new - old), read
 * from the same bank load, so a read-and-reset loses no frame. */
static void
cnt_set_baseline(struct tally_cnt_pool *pool, uint32_t i, uint64_t *dp,
		 uint64_t *db)
{
	struct tally_cnt_slot *s = &pool->slot[i];
	uint32_t seq = __atomic_load_n(&s->seq, __ATOMIC_RELAXED);
	uint64_t p, b;

	for (;;) {
		if (!(seq & 1) &&
		    __atomic_compare_exchange_n(&s->seq, &seq, seq + 1, 0,
						__ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
			break;
		seq = __atomic_load_n(&s->seq, __ATOMIC_RELAXED);
	}
	__atomic_thread_fence(__ATOMIC_RELEASE);
	tally_cnt_bank_read(&pool->bank[i], &p, &b);
	if (dp != NULL) {
		/* the baseline only changes under seq, which we hold */
		*dp = p - __atomic_load_n(&s->base_pkts, __ATOMIC_RELAXED);
		*db = b - __atomic_load_n(&s->base_bytes, __ATOMIC_RELAXED);
	}
	__atomic_store_n(&s->base_pkts, p, __ATOMIC_RELAXED);
	__atomic_store_n(&s->base_bytes, b, __ATOMIC_RELAXED);
	/* pairs with the acquire load of seq in tally_cnt_read() */
	__atomic_store_n(&s->seq, seq + 2, __ATOMIC_RELEASE);
}

static unsigned int
cnt_reclaim_locked(struct tally_cnt_pool *pool)
{
	unsigned int n = 0;

	while (pool->ring_len > 0) {
		struct tally_cnt_pending *e = &pool->ring[pool->ring_head];

		if (!tally_fence_done(pool->fence, e->ticket))
			break;
		pool->free_stack[pool->nfree++] = e->idx;
		pool->ring_head = (pool->ring_head + 1) % pool->num;
		pool->ring_len--;
		n++;
	}
	return n;
}

unsigned int
tally_cnt_reclaim(struct tally_cnt_pool *pool)
{
	unsigned int n;

	pthread_mutex_lock(&pool->lock);
	n = cnt_reclaim_locked(pool);
	pthread_mutex_unlock(&pool->lock);
	return n;
}

int
tally_cnt_alloc(struct tally_cnt_pool *pool, uint32_t *idx)
{
	uint32_t i;

	pthread_mutex_lock(&pool->lock);
	if (pool->nfree == 0 && pool->fresh == pool->num && pool->ring_len > 0) {
		uint32_t t = pool->ring[pool->ring_head].ticket;

		if (!tally_fence_done(pool->fence, t)) {
			if ((int32_t)(tally_fence_ticket(pool->fence) - t) <= 0)
				tally_fence_request(pool->fence);
		}
		cnt_reclaim_locked(pool);
	}
	if (pool->nfree == 0 && pool->fresh == pool->num) {
		int rc = pool->ring_len > 0 ? -EAGAIN : -ENOSPC;

		pthread_mutex_unlock(&pool->lock);
		return rc;
	}
	i = pool->nfree > 0 ? pool->free_stack[--pool->nfree] : pool->fresh++;
	cnt_set_baseline(pool, i, NULL, NULL);
	/* pairs with the acquire CAS in tally_cnt_ref() */
	__atomic_store_n(&pool->slot[i].ref, 1, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&pool->lock);
	*idx = pool->first + i;
	return 0;
}

int
tally_cnt_ref(struct tally_cnt_pool *pool, uint32_t idx)
{
	uint32_t i = idx - pool->first, ref;

	if (i >= pool->num)
		return -EINVAL;
	ref = __atomic_load_n(&pool->slot[i].ref, __ATOMIC_ACQUIRE);
	do {
		if (ref == 0)
			return -ENOENT;
		if (ref == UINT32_MAX)
			return -EOVERFLOW;
	} while (!__atomic_compare_exchange_n(&pool->slot[i].ref, &ref, ref + 1,
					      1, __ATOMIC_ACQUIRE,
					      __ATOMIC_ACQUIRE));
	return 0;
}

int
tally_cnt_free(struct tally_cnt_pool *pool, uint32_t idx)
{
	uint32_t i = idx - pool->first, ref;
	struct tally_cnt_pending *e;

	if (i >= pool->num)
		return -EINVAL;
	ref = __atomic_load_n(&pool->slot[i].ref, __ATOMIC_ACQUIRE);
	do {
		if (ref == 0)
			return -ENOENT;
		if (ref == 1)
			break;
	} while (!__atomic_compare_exchange_n(&pool->slot[i].ref, &ref, ref - 1,
					      1, __ATOMIC_ACQ_REL,
					      __ATOMIC_ACQUIRE));
	if (ref != 1)
		return 0;
	/* Last reference: drop it under the lock so the ring stays consistent
	 * with concurrent ref attempts (which fail once ref is 0). */
	pthread_mutex_lock(&pool->lock);
	ref = 1;
	if (!__atomic_compare_exchange_n(&pool->slot[i].ref, &ref, 0, 0,
					 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
		pthread_mutex_unlock(&pool->lock);
		return tally_cnt_free(pool, idx);	/* raced with a ref */
	}
	e = &pool->ring[(pool->ring_head + pool->ring_len) % pool->num];
	e->idx = i;
	e->ticket = tally_fence_ticket(pool->fence);
	pool->ring_len++;
	pthread_mutex_unlock(&pool->lock);
	return 0;
}

uint32_t
tally_cnt_refcnt(const struct tally_cnt_pool *pool, uint32_t idx)
{
	uint32_t i = idx - pool->first;

	if (i >= pool->num)
		return 0;
	return __atomic_load_n(&pool->slot[i].ref, __ATOMIC_ACQUIRE);
}

int
tally_cnt_read_reset(struct tally_cnt_pool *pool, uint32_t idx, uint64_t *pkts,
		     uint64_t *bytes)
{
	uint32_t i = idx - pool->first;

	if (i >= pool->num)
		return -EINVAL;
	cnt_set_baseline(pool, i, pkts, bytes);
	return 0;
}

int
tally_cnt_reset(struct tally_cnt_pool *pool, uint32_t idx)
{
	return tally_cnt_read_reset(pool, idx, NULL, NULL);
}

void
tally_cnt_pool_stats(struct tally_cnt_pool *pool, uint32_t *in_use,
		     uint32_t *free_now, uint32_t *pending)
{
	pthread_mutex_lock(&pool->lock);
	if (in_use != NULL)
		*in_use = pool->fresh - pool->nfree - pool->ring_len;
	if (free_now != NULL)
		*free_now = pool->nfree + (pool->num - pool->fresh);
	if (pending != NULL)
		*pending = pool->ring_len;
	pthread_mutex_unlock(&pool->lock);
}
