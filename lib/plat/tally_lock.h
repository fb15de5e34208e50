/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The flow engine's lock: a ticket lock. Taking it is one atomic add (the
 * caller's ticket), releasing it one plain release store (the next ticket
 * may go in). It guards short critical sections (one rule create or
 * destroy, one batch of queued operations): an uncontended acquire and
 * release cost a few instructions and one locked operation, against two
 * locked operations and about fifty instructions for a pthread mutex, which
 * is a measurable share of a rule delete.
 *
 * Fair: waiters get the lock in the order they asked for it, so a thread
 * that creates and destroys rules back to back cannot starve another that
 * needs the lock now and then (a counter query with reset, a flush). A
 * waiter spins (plain loads of the owner's ticket) for a while, then yields
 * the CPU between checks, so a holder that was preempted, or one in a long
 * control operation (creating a matcher, flushing millions of rules), gets
 * the CPU back instead of a waiter burning its time slice. No recursion;
 * never held across a call that may wait for another lock holder.
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
	uint32_t next;		/* the next ticket to hand out */
	uint32_t owner;		/* the ticket that holds (or may take) the lock */
	uint64_t taken;		/* acquisitions */
	uint64_t waited;	/* acquisitions that had to wait */
};

#define TALLY_LOCK_INIT	{ 0, 0, 0, 0 }

void tally_lock_init(struct tally_lock *l);
/* Out of line: wait until ticket t owns the lock. */
void tally_lock_wait(struct tally_lock *l, uint32_t t);

static inline void
tally_lock_count(struct tally_lock *l)
{
	__atomic_store_n(&l->taken, __atomic_load_n(&l->taken, __ATOMIC_RELAXED) + 1,
			 __ATOMIC_RELAXED);
}

static inline void
tally_lock(struct tally_lock *l)
{
	uint32_t t = __atomic_fetch_add(&l->next, 1, __ATOMIC_RELAXED);

	/* acquire: pairs with the release store in tally_unlock() */
	if (__builtin_expect(__atomic_load_n(&l->owner, __ATOMIC_ACQUIRE) != t, 0))
		tally_lock_wait(l, t);
	tally_lock_count(l);
}

/* true when taken (without waiting: only when nobody holds or waits) */
static inline bool
tally_trylock(struct tally_lock *l)
{
	uint32_t o = __atomic_load_n(&l->owner, __ATOMIC_RELAXED), t = o;

	/* acquire: pairs with the release store in tally_unlock() */
	if (!__atomic_compare_exchange_n(&l->next, &t, o + 1, false, __ATOMIC_ACQUIRE,
					 __ATOMIC_RELAXED))
		return false;
	tally_lock_count(l);
	return true;
}

static inline void
tally_unlock(struct tally_lock *l)
{
	/* only the holder writes owner */
	__atomic_store_n(&l->owner, __atomic_load_n(&l->owner, __ATOMIC_RELAXED) + 1,
			 __ATOMIC_RELEASE);
}

/* Held, or with waiters (a snapshot). */
static inline bool
tally_lock_busy(const struct tally_lock *l)
{
	return __atomic_load_n(&l->next, __ATOMIC_RELAXED) !=
	       __atomic_load_n(&l->owner, __ATOMIC_RELAXED);
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
