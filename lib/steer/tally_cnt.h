/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Flow counter pool over the device's flow counter bank (tally_cnt_bank.h).
 *
 * What: hands out indices of the bank (the 23-bit CNT field of steering
 * entries), keeps reference counts for shared counters (one counter named by
 * many rules, DPDK indirect COUNT actions, verbs counters objects), and reads
 * counters. It owns no device memory: the bank lives in the BAR.
 *
 * Index layout: a counter id IS the bank index (bits 22:0, < TALLY_CNT_MAX);
 * a pool manages the range [first, first + num) of the bank.
 *
 *   31         24 23                                       0
 *  +-------------+------------------------------------------+
 *  |  0 (rsvd)   |  bank index (bit 23 is 0)                |
 *  +-------------+------------------------------------------+
 *
 * Life cycle: tally_cnt_alloc() -> ref 1, baseline = current bank value (a
 * new owner reads 0). Every rule that names the counter takes a reference
 * (tally_cnt_ref) and drops it on delete (tally_cnt_free). When the last
 * reference goes, the index enters a deferred-reuse ring tagged with a fence
 * ticket; it is handed out again only after FENCE_DONE reaches that ticket,
 * i.e. after the device provably stopped adding to it on behalf of the old
 * rules. So a new owner never inherits a stale increment.
 * Alloc/free/ref are O(1): a LIFO list of reusable indices (then the
 * never-used ones, lowest first) plus a FIFO of pending batches (one per
 * fence ticket; a whole batch becomes reusable at once). Both lists are
 * linked through the per-counter state word, so the pool keeps 4 bytes per
 * counter plus a reset baseline that only counters that need one touch.
 *
 * Reading (tally_cnt_read) - the contract:
 *  - Lock-free, no register access: plain aligned 64-bit atomic loads of the
 *    {packets, bytes} pair at io->bar + CNT_OFF + 16 * idx.
 *  - Width: both fields are full 64-bit values that only increase (wrap at
 *    2^64; arithmetic is modulo 2^64, so a baseline across a wrap is fine).
 *  - Ordering and torn-read guard: the device adds packets first, then bytes,
 *    each with an atomic 64-bit add. The reader loads packets, bytes, packets
 *    (acquire) and retries until the two packet loads agree. Then every frame
 *    included in `bytes` is included in `packets`; `bytes` may lag by the
 *    frames in flight at the instant of the read (never more than that).
 *  - Reset is a software baseline: tally_cnt_reset() snapshots the bank
 *    value (with the same guard) into a per-counter {packets, bytes} pair
 *    published under a per-counter sequence lock; readers load the baseline
 *    pair first (retrying while a reset is writing it), then the bank, and
 *    return bank - baseline. Because the bank only grows and the baseline
 *    was taken from it earlier, a read never returns a negative (wrapped)
 *    value nor a mix of two baselines. The device is never written.
 *
 * Thread-safety: tally_cnt_read/reset may run on any thread concurrently with
 * everything, without locks. alloc/free/ref/reclaim take the pool lock
 * (ref and free of a counter with other references are lock-free atomics;
 * only a holder of a reference takes or drops one, so the last one is
 * released with plain stores).
 * The pool lock may be a lock of its user (config `lock`): a user holding it
 * calls the _locked variants, so that one acquisition covers its own state
 * and the pool's. create/destroy are not concurrent with anything.
 */
#ifndef TALLY_CNT_H
#define TALLY_CNT_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <pthread.h>

#include <tally/tally_cnt_bank.h>
#include <tally/tally_io.h>
#include <tally/tally_regs.h>
#include "tally_fence.h"
#include "tally_lock.h"

struct tally_cnt_pool_config {
	const struct tally_io *io;	/* the device; bank at read32(CNT_OFF) */
	struct tally_fence *fence;	/* the device's fence sequencer */
	uint32_t first;			/* first bank index managed */
	uint32_t num;			/* 0 = up to the end of the bank */
	struct tally_lock *lock;		/* optional: a lock shared with the pool's
					 * user (the steering context's), so one
					 * acquisition covers both; NULL = own */
};

/* Per-counter reset baseline (private). Written only when it changes (a
 * reset, or a counter handed out again with a non-zero bank value): the
 * array is reserved for the whole range but a counter whose baseline stays
 * zero - every never-reused counter - costs no memory. */
struct tally_cnt_slot {
	uint64_t base_pkts;		/* baseline, under seq */
	uint64_t base_bytes;
	uint32_t seq;			/* odd while a reset writes the baseline */
	uint32_t rsvd;
	uint64_t life_pkts;		/* the bank value at allocation (resets */
	uint64_t life_bytes;		/* leave it): tally_cnt_read_life() */
};

/* Counters freed while one fence ticket was current, linked through their
 * state words, oldest first. */
struct tally_cnt_batch {
	uint32_t ticket;
	uint32_t head;
	uint32_t tail;
	uint32_t n;
};

#define TALLY_CNT_BATCHES	64	/* pending batches; more merge into the last */

/* The pool (fields private; visible for the inline read). */
struct tally_cnt_pool {
	const volatile struct tally_cnt_entry *bank;	/* bank entry `first` */
	uint32_t first;
	uint32_t num;
	struct tally_cnt_slot *slot;	/* [num], touched only when non-zero */
	/* [num / 64 rounded up]: bit i set once slot i's baseline may not
	 * be zero (set before the baseline is written, never cleared: a
	 * baseline is a bank value, and a bank only grows). A read of a
	 * counter whose bit is clear skips the slot, which lies on a page
	 * of its own for every 85 counters, a TLB miss for a random one. */
	uint64_t *based;
	/* [num]: the reference count of an allocated counter (1..2^31 - 2);
	 * CNT_FREE | next of a free or pending one (lists below); 0 never
	 * handed out. 4 bytes per counter is all the pool touches per rule. */
	uint32_t *state;
	struct tally_fence *fence;
	struct tally_lock *lock;		/* own_lock or the configured one */
	struct tally_lock own_lock;
	uint32_t free_head;		/* LIFO of reusable counters */
	uint32_t nfree;
	uint32_t fresh;			/* [fresh, num) never handed out */
	uint32_t npending;		/* in batches */
	struct tally_cnt_batch batch[TALLY_CNT_BATCHES];	/* FIFO ring */
	uint32_t batch_head;
	uint32_t nbatch;
};

int tally_cnt_pool_create(const struct tally_cnt_pool_config *cfg,
			  struct tally_cnt_pool **out);
void tally_cnt_pool_destroy(struct tally_cnt_pool *pool);
/* Make the state of the first n counters resident now (the counters are
 * handed out lowest first), so that allocating them takes no page fault:
 * with huge pages, a fault zeroes 2 MiB under the caller's lock. */
void tally_cnt_pool_populate(struct tally_cnt_pool *pool, uint32_t n);

/* New counter with one reference, reading 0. -ENOSPC: none free and none
 * pending; -EAGAIN: only counters still waiting for a fence (one was
 * requested; retry later). */
int tally_cnt_alloc(struct tally_cnt_pool *pool, uint32_t *idx);
/* The same with the pool lock held by the caller. */
int tally_cnt_alloc_locked(struct tally_cnt_pool *pool, uint32_t *idx);
/* One more reference to an allocated counter. -EINVAL out of range,
 * -ENOENT not allocated. */
int tally_cnt_ref(struct tally_cnt_pool *pool, uint32_t idx);
/* Drop one reference; the last one sends the index to deferred reuse. */
int tally_cnt_free(struct tally_cnt_pool *pool, uint32_t idx);
int tally_cnt_free_locked(struct tally_cnt_pool *pool, uint32_t idx);
/* References held (0 = free or pending). */
uint32_t tally_cnt_refcnt(const struct tally_cnt_pool *pool, uint32_t idx);
/* Move every pending index whose fence completed back to the free stack.
 * Returns the number moved. */
unsigned int tally_cnt_reclaim(struct tally_cnt_pool *pool);
unsigned int tally_cnt_reclaim_locked(struct tally_cnt_pool *pool);
void tally_cnt_pool_stats(struct tally_cnt_pool *pool, uint32_t *in_use,
			  uint32_t *free_now, uint32_t *pending);
void tally_cnt_pool_stats_locked(struct tally_cnt_pool *pool, uint32_t *in_use,
				 uint32_t *free_now, uint32_t *pending);

/* Set the software baseline to the current value (the counter reads 0). */
int tally_cnt_reset(struct tally_cnt_pool *pool, uint32_t idx);
/* Read and reset as one step: returns the values since allocation or the
 * last reset and moves the baseline by exactly those values, so a frame
 * counted between the read and the reset is never lost (a read followed by
 * tally_cnt_reset() would lose it). Lock-free w.r.t. readers; resets of one
 * counter exclude each other. */
int tally_cnt_read_reset(struct tally_cnt_pool *pool, uint32_t idx,
			 uint64_t *pkts, uint64_t *bytes);

/* Whether counter i (pool index) has a baseline that may not be zero. */
static inline bool
tally_cnt_based(const struct tally_cnt_pool *pool, uint32_t i)
{
	return (__atomic_load_n(&pool->based[i >> 6], __ATOMIC_RELAXED) >> (i & 63)) & 1;
}

/* Packets and bytes since allocation, whatever resets moved the baseline
 * (what an operator's view shows: an application's resets are its own).
 * Lock-free; 0 or -EINVAL. */
static inline int
tally_cnt_read_life(const struct tally_cnt_pool *pool, uint32_t idx, uint64_t *pkts,
		    uint64_t *bytes)
{
	const struct tally_cnt_slot *s;
	uint32_t i = idx - pool->first;
	uint64_t p, b;

	if (i >= pool->num)
		return -EINVAL;
	s = &pool->slot[i];
	/* written at allocation, before any rule could name the counter */
	tally_cnt_bank_read(&pool->bank[i], &p, &b);
	*pkts = p - __atomic_load_n(&s->life_pkts, __ATOMIC_RELAXED);
	*bytes = b - __atomic_load_n(&s->life_bytes, __ATOMIC_RELAXED);
	return 0;
}

/*
 * THE counter read: packets and bytes since allocation or the last reset.
 * Lock-free; see the contract at the top. Returns 0 or -EINVAL (index not
 * managed by this pool).
 */
static inline int
tally_cnt_read(const struct tally_cnt_pool *pool, uint32_t idx, uint64_t *pkts,
	       uint64_t *bytes)
{
	const struct tally_cnt_slot *s;
	uint64_t bp, bb, p, b;
	uint32_t s1, s2, i = idx - pool->first;

	if (i >= pool->num)
		return -EINVAL;
	/* never reset nor reused with counts: the baseline is zero (a reset
	 * racing with this read orders after it, as with the slot read) */
	if (!tally_cnt_based(pool, i)) {
		tally_cnt_bank_read(&pool->bank[i], pkts, bytes);
		return 0;
	}
	s = &pool->slot[i];
	/* the bank entry and the baseline are on different lines: fetch the
	 * bank entry while the baseline is being read (two misses overlap) */
	__builtin_prefetch((const void *)&pool->bank[i], 0, 0);
	for (;;) {
		/* pairs with the release store ending tally_cnt_reset() */
		s1 = __atomic_load_n(&s->seq, __ATOMIC_ACQUIRE);
		if (s1 & 1)
			continue;
		bp = __atomic_load_n(&s->base_pkts, __ATOMIC_RELAXED);
		bb = __atomic_load_n(&s->base_bytes, __ATOMIC_RELAXED);
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		s2 = __atomic_load_n(&s->seq, __ATOMIC_RELAXED);
		if (s1 == s2)
			break;
	}
	/* bank loads are acquire, so they happen after the baseline loads */
	tally_cnt_bank_read(&pool->bank[i], &p, &b);
	*pkts = p - bp;
	*bytes = b - bb;
	return 0;
}

#endif /* TALLY_CNT_H */
