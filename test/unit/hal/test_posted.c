/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The posted-write transport against a device that is alive but does not
 * do its work: a thread plays the device on a BAR in plain memory, ticks the
 * heartbeat and acknowledges the session, then either applies nothing or
 * claims an applied count beyond anything posted. The driver's writes and
 * reads must give up within the loss timeout (TALLY_MBOX_LOST_US), mark the
 * device lost and say so through `state`; against an honest device they
 * work. Each case runs under alarm(): a wait that never ends fails the test
 * instead of hanging it.
 */
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>

#include <tally/tally_regs.h>

#include "tally_hal_posted.h"
#include "tally_plat.h"
#include "tally_test.h"

#define BAR_LEN		(64u << 10)

enum dev_kind {
	DEV_HONEST,		/* applies every posted write */
	DEV_STUCK,		/* applies nothing */
	DEV_LIAR,		/* cons far beyond what was posted */
};

struct fake_dev {
	uint8_t *bar;
	struct tally_mbox *mb;
	enum dev_kind kind;
	int stop;
	pthread_t th;
};

static void *
dev_run(void *arg)
{
	struct fake_dev *d = arg;
	struct tally_mbox *mb = d->mb;
	uint64_t s, c;

	while (!__atomic_load_n(&d->stop, __ATOMIC_ACQUIRE)) {
		__atomic_fetch_add(&mb->heartbeat, 1, __ATOMIC_RELAXED);
		s = __atomic_load_n(&mb->session, __ATOMIC_ACQUIRE);
		if (s != 0 && s != __atomic_load_n(&mb->session_ack, __ATOMIC_RELAXED)) {
			__atomic_store_n(&mb->cons, d->kind == DEV_LIAR ? 1ull << 40 : 0,
					 __ATOMIC_RELAXED);
			__atomic_store_n(&mb->session_ack, s, __ATOMIC_RELEASE);
		}
		if (d->kind == DEV_HONEST) {
			c = __atomic_load_n(&mb->cons, __ATOMIC_RELAXED);
			while (__atomic_load_n(&mb->entries[c % TALLY_MBOX_ENTRIES].seq,
					       __ATOMIC_ACQUIRE) == c + 1) {
				const struct tally_mbox_entry *e =
					&mb->entries[c % TALLY_MBOX_ENTRIES];

				if (e->off + 4 <= TALLY_MBOX_OFF)
					memcpy(d->bar + e->off, &e->val, 4);
				__atomic_store_n(&mb->cons, ++c, __ATOMIC_RELEASE);
			}
		}
		usleep(200);
	}
	return NULL;
}

static int
dev_start(struct fake_dev *d, enum dev_kind kind)
{
	uint32_t v;

	memset(d, 0, sizeof(*d));
	d->bar = aligned_alloc(4096, BAR_LEN);
	if (d->bar == NULL)
		return -1;
	memset(d->bar, 0, BAR_LEN);
	v = TALLY_SIGNATURE;
	memcpy(d->bar + TALLY_REG_SIG, &v, 4);
	v = TALLY_CAP_POSTED;
	memcpy(d->bar + TALLY_REG_CAPS, &v, 4);
	d->mb = (struct tally_mbox *)(void *)(d->bar + TALLY_MBOX_OFF);
	d->mb->entries_log2 = TALLY_MBOX_LOG2;
	__atomic_store_n(&d->mb->magic, TALLY_MBOX_MAGIC, __ATOMIC_RELEASE);
	d->kind = kind;
	return pthread_create(&d->th, NULL, dev_run, d);
}

static void
dev_stop(struct fake_dev *d)
{
	__atomic_store_n(&d->stop, 1, __ATOMIC_RELEASE);
	pthread_join(d->th, NULL);
	free(d->bar);
}

/* Post more writes than the mailbox holds, then read a register. */
static int
run(enum dev_kind kind, bool want_lost)
{
	struct tally_posted p;
	struct fake_dev d;
	struct tally_io io;
	uint64_t t0;
	uint32_t i, v;
	int rc;

	TEST_ASSERT(dev_start(&d, kind) == 0, "device thread");
	rc = tally_posted_attach(&p, d.bar, BAR_LEN, "test", &io);
	if (rc != 0) {
		dev_stop(&d);
		TEST_ASSERT_EQ(rc, 0, "attach");
	}
	t0 = tally_time_ns();
	alarm(20);
	for (i = 0; i < TALLY_MBOX_ENTRIES + 8; i++)
		io.ops->write32(io.ctx, TALLY_REG_CTRL, i);
	v = io.ops->read32(io.ctx, TALLY_REG_CTRL);
	alarm(0);
	rc = io.ops->state(io.ctx);
	tally_posted_detach(&p);
	dev_stop(&d);
	if (want_lost) {
		TEST_ASSERT(tally_posted_lost(&p), "the device counts as lost");
		TEST_ASSERT_EQ(rc, -ENODEV, "state");
		TEST_ASSERT_EQ(v, UINT32_MAX, "a read of a lost device");
		/* given up after about the loss timeout, not at once */
		TEST_ASSERT(tally_time_ns() - t0 >= (uint64_t)TALLY_MBOX_LOST_US * 1000,
			    "gave up too early");
	} else {
		TEST_ASSERT(!tally_posted_lost(&p), "an honest device is not lost");
		TEST_ASSERT_EQ(rc, 0, "state");
		TEST_ASSERT_EQ(v, TALLY_MBOX_ENTRIES + 7, "the last write read back");
	}
	return TEST_SUCCESS;
}

static int test_honest(void) { return run(DEV_HONEST, false); }
static int test_stuck(void) { return run(DEV_STUCK, true); }
static int test_liar(void) { return run(DEV_LIAR, true); }

static const struct tally_test_case cases[] = {
	TEST_CASE(test_honest),
	TEST_CASE(test_stuck),
	TEST_CASE(test_liar),
};

TEST_MAIN("hal-posted", cases)
