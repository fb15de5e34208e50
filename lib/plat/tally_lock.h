/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The flow engine's lock: one word, taken with one atomic exchange and
 * released with one plain release store. It guards short critical sections
 * (one rule create or destroy, one batch of queued operations): an
 * uncontended acquire and release cost a few instructions and one locked
 * operation, against two locked operations and about fifty instructions for
 * a pthread mutex, which is a measurable share of a rule delete.
 *
 * A waiter spins (test, then exchange) for a while, then yields the CPU
 * between attempts, so a holder that was preempted, or one in a long
 * control operation (creating a matcher, flushing millions of rules), gets
 * the CPU back instead of a waiter burning its time slice. No fairness and
 * no recursion; never held across a call that may wait for another lock
 * holder.
 *
 * Statistics, written by the holder only (relaxed stores under the lock,
 * read by anyone with relaxed loads): `taken` counts acquisitions and
 * `waited` those that found the lock held.
 */
#ifndef TALLY_LOCK_H
#define TALLY_LOCK_H

#include <stdbool.h>
#include <stdint.h>

struct tally_lock {
	uint32_t held;		/* 0 free, 1 held */
	uint32_t rsvd;
	uint64_t taken;		/* acquisitions */
	uint64_t waited;	/* acquisitions that had to wait */
};

#define TALLY_LOCK_INIT	{ 0, 0, 0, 0 }

void tally_lock_init(struct tally_lock *l);
/* Out of line: wait until the lock is free and take it. */
void tally_lock_wait(struct tally_lock *l);

static inline void
tally_lock_count(struct tally_lock *l)
{
	__atomic_store_n(&l->taken, __atomic_load_n(&l->taken, __ATOMIC_RELAXED) + 1,
			 __ATOMIC_RELAXED);
}

/* acquire: pairs with the release store in tally_unlock() */
static inline void
tally_lock(struct tally_lock *l)
{
	if (__builtin_expect(__atomic_exchange_n(&l->held, 1, __ATOMIC_ACQUIRE) != 0, 0))
		tally_lock_wait(l);
	tally_lock_count(l);
}

/* true when taken (without waiting) */
static inline bool
tally_trylock(struct tally_lock *l)
{
	if (__atomic_load_n(&l->held, __ATOMIC_RELAXED) != 0 ||
	    __atomic_exchange_n(&l->held, 1, __ATOMIC_ACQUIRE) != 0)
		return false;
	tally_lock_count(l);
	return true;
}

static inline void
tally_unlock(struct tally_lock *l)
{
	__atomic_store_n(&l->held, 0, __ATOMIC_RELEASE);
}

static inline uint64_t
tally_lock_taken(const struct tally_lock *l)
{
	return __atomic_load_n(&l->taken, __ATOMIC_RELAXED);
}

static inline uint64_t
tally_lock_waited(const struct tally_lock *l)
{
	return __atomic_load_n(&l->waited, __ATOMIC_RELAXED);
}

#endif /* TALLY_LOCK_H */
