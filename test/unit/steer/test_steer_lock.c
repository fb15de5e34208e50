/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The flow engine's lock (lib/plat/tally_lock.h): mutual exclusion under
 * contention (two threads adding to one unprotected counter, plus a check
 * that nobody else is inside), try-lock semantics, the statistics
 * (acquisitions, waits), and fairness (first come, first served).
 */
#include <pthread.h>
#include <sched.h>
#include <time.h>

#include "tally_test.h"
#include "tally_lock.h"

#define LK_ITERS	500000u

struct lk_shared {
	struct tally_lock lock;
	uint64_t sum;		/* written only under the lock */
	uint32_t inside;	/* threads in the critical section */
	uint32_t overlaps;	/* times a thread found another inside */
	pthread_barrier_t go;
};

static void *
lk_worker(void *arg)
{
	struct lk_shared *s = arg;
	volatile uint64_t *sum = &s->sum;
	uint64_t v;
	uint32_t i;

	pthread_barrier_wait(&s->go);
	for (i = 0; i < LK_ITERS; i++) {
		tally_lock(&s->lock);
		if (__atomic_fetch_add(&s->inside, 1, __ATOMIC_RELAXED) != 0)
			__atomic_fetch_add(&s->overlaps, 1, __ATOMIC_RELAXED);
		v = *sum;	/* a read-modify-write another holder would break */
		*sum = v + 1;
		__atomic_fetch_sub(&s->inside, 1, __ATOMIC_RELAXED);
		tally_unlock(&s->lock);
	}
	return NULL;
}

static int
test_exclusion(void)
{
	static struct lk_shared s;
	pthread_t t[2];
	unsigned int i;

	tally_lock_init(&s.lock);
	pthread_barrier_init(&s.go, NULL, 2);
	for (i = 0; i < 2; i++)
		TEST_ASSERT_EQ(pthread_create(&t[i], NULL, lk_worker, &s), 0, "thread");
	for (i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	pthread_barrier_destroy(&s.go);
	TEST_ASSERT_EQ(s.overlaps, 0, "two threads inside at once");
	TEST_ASSERT_EQ(s.sum, 2ull * LK_ITERS, "increments lost");
	TEST_ASSERT_EQ(tally_lock_taken(&s.lock), 2ull * LK_ITERS, "acquisitions");
	TEST_ASSERT(tally_lock_waited(&s.lock) <= tally_lock_taken(&s.lock), "waits");
	return TEST_SUCCESS;
}

static uint32_t lk_inside;	/* the waiter had the lock */

static void *
lk_waiter(void *arg)
{
	struct tally_lock *l = arg;

	tally_lock(l);		/* waits for the main thread's hold */
	__atomic_store_n(&lk_inside, 1, __ATOMIC_RELAXED);
	tally_unlock(l);
	return NULL;
}

/* Until the waiter has drawn its ticket (one holder, one waiter). */
static void
lk_wait_for_waiter(const struct tally_lock *l)
{
	while (__atomic_load_n(&l->next, __ATOMIC_RELAXED) -
	       __atomic_load_n(&l->owner, __ATOMIC_RELAXED) != 2)
		sched_yield();
}

static int
test_try_and_stats(void)
{
	struct tally_lock l = TALLY_LOCK_INIT;
	pthread_t t;

	TEST_ASSERT(tally_trylock(&l), "free lock");
	TEST_ASSERT(!tally_trylock(&l), "held lock taken again");
	tally_unlock(&l);
	TEST_ASSERT_EQ(tally_lock_taken(&l), 1, "a failed try is no acquisition");
	tally_lock(&l);
	TEST_ASSERT(!tally_trylock(&l), "held lock taken again");
	tally_unlock(&l);
	TEST_ASSERT_EQ(tally_lock_taken(&l), 2, "");
	TEST_ASSERT_EQ(tally_lock_waited(&l), 0, "nobody waited");

	/* a second thread that finds the lock held waits, then gets it */
	tally_lock(&l);
	TEST_ASSERT_EQ(pthread_create(&t, NULL, lk_waiter, &l), 0, "thread");
	lk_wait_for_waiter(&l);
	nanosleep(&(struct timespec){ 0, 200000000 }, NULL);	/* it spins, then yields */
	TEST_ASSERT(!tally_trylock(&l), "a try with a waiter in line");
	tally_unlock(&l);
	pthread_join(t, NULL);
	TEST_ASSERT_EQ(tally_lock_taken(&l), 4, "");
	TEST_ASSERT_EQ(tally_lock_waited(&l), 1, "the waiter counted");
	TEST_ASSERT(!tally_lock_busy(&l), "released");
	return TEST_SUCCESS;
}

/* Fair: a holder that releases and asks again comes after a waiter. */
static int
test_fair(void)
{
	struct tally_lock l = TALLY_LOCK_INIT;
	pthread_t t;

	__atomic_store_n(&lk_inside, 0, __ATOMIC_RELAXED);
	tally_lock(&l);
	TEST_ASSERT_EQ(pthread_create(&t, NULL, lk_waiter, &l), 0, "thread");
	lk_wait_for_waiter(&l);
	tally_unlock(&l);
	tally_lock(&l);
	TEST_ASSERT_EQ(__atomic_load_n(&lk_inside, __ATOMIC_RELAXED), 1,
		       "the waiter had the lock before the holder had it again");
	tally_unlock(&l);
	pthread_join(t, NULL);
	TEST_ASSERT(!tally_lock_busy(&l), "released");
	return TEST_SUCCESS;
}

static const struct tally_test_case cases[] = {
	TEST_CASE(test_exclusion),
	TEST_CASE(test_try_and_stats),
	TEST_CASE(test_fair),
};

int
main(void)
{
	return tally_test_run("steer-lock", cases, sizeof(cases) / sizeof(cases[0]));
}
