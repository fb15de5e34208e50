/* SPDX-License-Identifier: BSD-3-Clause */
/* Flow counter pool: alloc/free/ref, deferred reuse, baseline reset. */
#include <errno.h>
#include <string.h>

#include "tally_plat.h"
#include "tally_hmem.h"
#include "tally_cnt.h"

#define CNT_FREE	(1u << 31)	/* state: free or pending, next in low bits */
#define CNT_NIL		(CNT_FREE - 1)	/* end of a list */
#define CNT_REF_MAX	(CNT_FREE - 2)

/* Bytes of the pool's `based` bitmap. */
static size_t
cnt_based_len(uint32_t num)
{
	return ((size_t)num + 63) / 64 * sizeof(uint64_t);
}

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
	tally_lock_init(&pool->own_lock);
	pool->lock = cfg->lock != NULL ? cfg->lock : &pool->own_lock;
	pool->num = num;
	/* baselines: 4 KiB pages, touched only where one is not zero; state:
	 * filled densely in allocation order */
	pool->slot = tally_hmem_alloc((size_t)num * sizeof(pool->slot[0]), false);
	pool->state = tally_hmem_alloc((size_t)num * sizeof(uint32_t), true);
	pool->based = tally_hmem_alloc(cnt_based_len(num), false);
	if (pool->slot == NULL || pool->state == NULL || pool->based == NULL) {
		tally_cnt_pool_destroy(pool);
		return -ENOMEM;
	}
	pool->bank = (const volatile struct tally_cnt_entry *)
		(const volatile void *)(io->bar + bank_off) + cfg->first;
	pool->first = cfg->first;
	pool->fence = cfg->fence;
	/* low indices first: [fresh, num) were never handed out, so a large
	 * bank costs no start-up time and no memory until used */
	pool->free_head = CNT_NIL;
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
	tally_hmem_free(pool->slot, (size_t)pool->num * sizeof(pool->slot[0]));
	tally_hmem_free(pool->state, (size_t)pool->num * sizeof(uint32_t));
	tally_hmem_free(pool->based, cnt_based_len(pool->num));
	tally_free(pool);
}

void
tally_cnt_pool_populate(struct tally_cnt_pool *pool, uint32_t n)
{
	if (pool != NULL && n != 0)
		tally_hmem_populate(pool->state, (size_t)TALLY_MIN(n, pool->num) *
				    sizeof(pool->state[0]));
}

/* Sequence-locked baseline write; concurrent writers exclude each other.
 * With dp/db, also returns what the new baseline removes (new - old), read
 * from the same bank load, so a read-and-reset loses no frame. Without
 * (allocation), a baseline that would not change is not written, so a
 * counter never reused leaves its baseline page untouched. */
static void
cnt_set_baseline(struct tally_cnt_pool *pool, uint32_t i, uint64_t *dp,
		 uint64_t *db)
{
	struct tally_cnt_slot *s = &pool->slot[i];
	uint32_t seq;
	uint64_t p, b;

	if (dp == NULL) {
		/* allocation: nobody resets or reads a free counter, and the
		 * device no longer adds to it (its fence completed) */
		tally_cnt_bank_read(&pool->bank[i], &p, &b);
		if (__atomic_load_n(&s->life_pkts, __ATOMIC_RELAXED) != p ||
		    __atomic_load_n(&s->life_bytes, __ATOMIC_RELAXED) != b) {
			__atomic_store_n(&s->life_pkts, p, __ATOMIC_RELAXED);
			__atomic_store_n(&s->life_bytes, b, __ATOMIC_RELAXED);
		}
		if (__atomic_load_n(&s->base_pkts, __ATOMIC_RELAXED) == p &&
		    __atomic_load_n(&s->base_bytes, __ATOMIC_RELAXED) == b)
			return;
	}
	seq = __atomic_load_n(&s->seq, __ATOMIC_RELAXED);
	for (;;) {
		if (!(seq & 1) &&
		    __atomic_compare_exchange_n(&s->seq, &seq, seq + 1, 0,
						__ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
			break;
		seq = __atomic_load_n(&s->seq, __ATOMIC_RELAXED);
	}
	/* readers look at the slot from now on (before the baseline moves;
	 * the release store of seq below publishes both) */
	if (!tally_cnt_based(pool, i))
		__atomic_fetch_or(&pool->based[i >> 6], 1ull << (i & 63), __ATOMIC_RELAXED);
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

unsigned int
tally_cnt_reclaim_locked(struct tally_cnt_pool *pool)
{
	unsigned int n = 0;

	while (pool->nbatch > 0) {
		struct tally_cnt_batch *bt = &pool->batch[pool->batch_head];

		if (!tally_fence_done(pool->fence, bt->ticket))
			break;
		/* the whole batch goes on top of the free list at once */
		pool->state[bt->tail] = CNT_FREE | pool->free_head;
		pool->free_head = bt->head;
		pool->nfree += bt->n;
		pool->npending -= bt->n;
		n += bt->n;
		pool->batch_head = (pool->batch_head + 1) % TALLY_CNT_BATCHES;
		pool->nbatch--;
	}
	return n;
}

unsigned int
tally_cnt_reclaim(struct tally_cnt_pool *pool)
{
	unsigned int n;

	tally_lock(pool->lock);
	n = tally_cnt_reclaim_locked(pool);
	tally_unlock(pool->lock);
	return n;
}

int
tally_cnt_alloc_locked(struct tally_cnt_pool *pool, uint32_t *idx)
{
	uint32_t i;

	if (pool->nfree == 0 && pool->fresh == pool->num && pool->nbatch > 0) {
		uint32_t t = pool->batch[pool->batch_head].ticket;

		if (!tally_fence_done(pool->fence, t)) {
			if ((int32_t)(tally_fence_ticket(pool->fence) - t) <= 0)
				tally_fence_request(pool->fence);
		}
		tally_cnt_reclaim_locked(pool);
	}
	if (pool->nfree == 0 && pool->fresh == pool->num)
		return pool->nbatch > 0 ? -EAGAIN : -ENOSPC;
	if (pool->nfree > 0) {
		i = pool->free_head;
		pool->free_head = pool->state[i] & ~CNT_FREE;
		pool->nfree--;
		cnt_set_baseline(pool, i, NULL, NULL);
	} else {
		uint64_t p, b;

		/* never handed out: its baseline is zero, or the bank value
		 * a reset of the free index saw; banks only grow, so with the
		 * bank at zero the baseline is zero too and the baseline array
		 * stays untouched */
		i = pool->fresh++;
		tally_cnt_bank_read(&pool->bank[i], &p, &b);
		if (p != 0 || b != 0)
			cnt_set_baseline(pool, i, NULL, NULL);
	}
	/* pairs with the acquire CAS in tally_cnt_ref() */
	__atomic_store_n(&pool->state[i], 1, __ATOMIC_RELEASE);
	*idx = pool->first + i;
	return 0;
}

int
tally_cnt_alloc(struct tally_cnt_pool *pool, uint32_t *idx)
{
	int rc;

	tally_lock(pool->lock);
	rc = tally_cnt_alloc_locked(pool, idx);
	tally_unlock(pool->lock);
	return rc;
}

static bool
cnt_allocated(uint32_t st)
{
	return st != 0 && !(st & CNT_FREE);
}

int
tally_cnt_ref(struct tally_cnt_pool *pool, uint32_t idx)
{
	uint32_t i = idx - pool->first, ref;

	if (i >= pool->num)
		return -EINVAL;
	ref = __atomic_load_n(&pool->state[i], __ATOMIC_ACQUIRE);
	do {
		if (!cnt_allocated(ref))
			return -ENOENT;
		if (ref == CNT_REF_MAX)
			return -EOVERFLOW;
	} while (!__atomic_compare_exchange_n(&pool->state[i], &ref, ref + 1,
					      1, __ATOMIC_ACQUIRE,
					      __ATOMIC_ACQUIRE));
	return 0;
}

/* Append counter i to the pending batch of the current fence ticket. */
static inline __attribute__((always_inline)) void
cnt_pend_locked(struct tally_cnt_pool *pool, uint32_t i)
{
	uint32_t t = tally_fence_ticket(pool->fence);
	struct tally_cnt_batch *bt = NULL;

	if (pool->nbatch > 0)
		bt = &pool->batch[(pool->batch_head + pool->nbatch - 1) %
				  TALLY_CNT_BATCHES];
	pool->state[i] = CNT_FREE | CNT_NIL;
	if (bt != NULL && (bt->ticket == t || pool->nbatch == TALLY_CNT_BATCHES)) {
		/* a full ring merges into the last batch under the newer
		 * ticket: later reuse, never earlier */
		bt->ticket = t;
		pool->state[bt->tail] = CNT_FREE | i;
		bt->tail = i;
		bt->n++;
	} else {
		bt = &pool->batch[(pool->batch_head + pool->nbatch) % TALLY_CNT_BATCHES];
		bt->ticket = t;
		bt->head = i;
		bt->tail = i;
		bt->n = 1;
		pool->nbatch++;
	}
	pool->npending++;
}

/* Drop one reference without the lock if others remain. Returns 1 when the
 * caller holds the last one (still counted), 0 when done, or -errno. */
static inline __attribute__((always_inline)) int
cnt_unref(struct tally_cnt_pool *pool, uint32_t i)
{
	uint32_t ref = __atomic_load_n(&pool->state[i], __ATOMIC_ACQUIRE);

	do {
		if (!cnt_allocated(ref))
			return -ENOENT;
		if (ref == 1)
			return 1;
	} while (!__atomic_compare_exchange_n(&pool->state[i], &ref, ref - 1,
					      1, __ATOMIC_ACQ_REL,
					      __ATOMIC_ACQUIRE));
	return 0;
}

int
tally_cnt_free_locked(struct tally_cnt_pool *pool, uint32_t idx)
{
	uint32_t i = idx - pool->first;
	int rc;

	if (i >= pool->num)
		return -EINVAL;
	rc = cnt_unref(pool, i);
	if (rc <= 0)
		return rc;
	/* the last reference, freed with plain stores: only a holder of a
	 * reference takes another (tally_cnt_ref() is called for a counter
	 * its caller holds: an indirect action's, a verbs counters object's)
	 * or drops one, so while ours is the only one no other thread changes
	 * the state (no compare-and-swap, which would also wait for every
	 * store of the caller, a rule's delete, to reach the cache) */
	cnt_pend_locked(pool, i);
	return 0;
}

int
tally_cnt_free(struct tally_cnt_pool *pool, uint32_t idx)
{
	uint32_t i = idx - pool->first;
	int rc;

	if (i >= pool->num)
		return -EINVAL;
	rc = cnt_unref(pool, i);
	if (rc <= 0)
		return rc;
	tally_lock(pool->lock);
	cnt_pend_locked(pool, i);	/* as in tally_cnt_free_locked() */
	tally_unlock(pool->lock);
	return 0;
}

uint32_t
tally_cnt_refcnt(const struct tally_cnt_pool *pool, uint32_t idx)
{
	uint32_t i = idx - pool->first, st;

	if (i >= pool->num)
		return 0;
	st = __atomic_load_n(&pool->state[i], __ATOMIC_ACQUIRE);
	return cnt_allocated(st) ? st : 0;
}

int
tally_cnt_read_reset(struct tally_cnt_pool *pool, uint32_t idx, uint64_t *pkts,
		     uint64_t *bytes)
{
	uint32_t i = idx - pool->first;
	uint64_t p, b;

	if (i >= pool->num)
		return -EINVAL;
	cnt_set_baseline(pool, i, pkts != NULL ? pkts : &p, bytes != NULL ? bytes : &b);
	return 0;
}

int
tally_cnt_reset(struct tally_cnt_pool *pool, uint32_t idx)
{
	return tally_cnt_read_reset(pool, idx, NULL, NULL);
}

void
tally_cnt_pool_stats_locked(struct tally_cnt_pool *pool, uint32_t *in_use,
			    uint32_t *free_now, uint32_t *pending)
{
	if (in_use != NULL)
		*in_use = pool->fresh - pool->nfree - pool->npending;
	if (free_now != NULL)
		*free_now = pool->nfree + (pool->num - pool->fresh);
	if (pending != NULL)
		*pending = pool->npending;
}

void
tally_cnt_pool_stats(struct tally_cnt_pool *pool, uint32_t *in_use,
		     uint32_t *free_now, uint32_t *pending)
{
	tally_lock(pool->lock);
	tally_cnt_pool_stats_locked(pool, in_use, free_now, pending);
	tally_unlock(pool->lock);
}
