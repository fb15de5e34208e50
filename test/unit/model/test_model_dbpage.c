/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The doorbell page (CAPS.DB_PAGE) end to end: a device with a shared-memory
 * BAR (cfg.posted, as the device process runs it) polled by a thread of its
 * own, and a driver that reaches it only through the posted transport
 * (lib/hal/tally_hal_posted.c). Queue doorbells must take the page, not the
 * mailbox, once nothing else is pending; a register read must see what they
 * rang; a doorbell must not overtake a write posted before it, and an
 * older line the mailbox overtook must not be taken; enabling a
 * queue again must not take the old line as a doorbell; a line more than a
 * ring ahead is a BAD_QUEUE fault, and a disabled queue's line is ignored.
 * The device thread naps between polls, so a read that did not wait for
 * the page would see the device behind.
 */
#include <pthread.h>
#include <sys/mman.h>
#include <unistd.h>

#include "tally_hal_posted.h"
#include "tally_mt.h"
#include "tally_test.h"

struct dev_thread {
	struct tally_model *m;
	int stop;
	int pause;		/* the device applies nothing while set */
	int paused;		/* ... and says so */
	pthread_t th;
};

static void *
dev_run(void *arg)
{
	struct dev_thread *t = arg;

	while (!__atomic_load_n(&t->stop, __ATOMIC_ACQUIRE)) {
		if (__atomic_load_n(&t->pause, __ATOMIC_ACQUIRE)) {
			__atomic_store_n(&t->paused, 1, __ATOMIC_RELEASE);
			usleep(100);
			continue;
		}
		__atomic_store_n(&t->paused, 0, __ATOMIC_RELEASE);
		tally_model_mbox_poll(t->m);
		tally_model_step(t->m);
		usleep(50);
	}
	return NULL;
}

struct fixture {
	struct mt_dev d;
	struct dev_thread t;
	struct tally_posted p;
	struct tally_mbox *mb;
	volatile uint8_t *bar;	/* the device's, shared with the driver */
};

static void
dev_pause(struct fixture *f, int on)
{
	__atomic_store_n(&f->t.pause, on, __ATOMIC_RELEASE);
	while (on && !__atomic_load_n(&f->t.paused, __ATOMIC_ACQUIRE))
		usleep(50);
}

/* The model with a posted BAR, its thread, a session; the arena mapped
 * through the posted transport. */
static int
fx_open(struct fixture *f)
{
	struct tally_model_config cfg;
	char err[256];
	uint64_t base;
	size_t len;

	memset(f, 0, sizeof(*f));
	mt_config(&cfg);
	cfg.posted = 1;
	if (tally_model_create(&cfg, &f->d.m, err, sizeof(err)) != 0)
		return -1;
	f->t.m = f->d.m;
	if (pthread_create(&f->t.th, NULL, dev_run, &f->t) != 0)
		return -1;
	f->bar = (volatile uint8_t *)(uintptr_t)tally_model_bar(f->d.m, &len);
	f->mb = (struct tally_mbox *)(uintptr_t)(f->bar + TALLY_MBOX_OFF);
	if (tally_posted_attach(&f->p, f->bar, len, "dbpage", &f->d.io) != 0)
		return -1;
	f->d.arena = mmap(NULL, MT_ARENA_LEN, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (f->d.arena == MAP_FAILED)
		return -1;
	base = (uint64_t)(uintptr_t)f->d.arena;
	if (mt_map(&f->d, base, base, MT_ARENA_LEN) != TALLY_XLT_OK)
		return -1;
	mt_port(&f->d, TALLY_CTRL_PROMISC);
	return 0;
}

/* fx_open() and Tx queue 0 of 2^log2 slots started. */
static int
fx_open_txq(struct fixture *f, struct mt_txq *tq, uint32_t log2)
{
	if (fx_open(f) != 0)
		return -1;
	return mt_txq_start(&f->d, tq, 0, log2);
}

static void
fx_close(struct fixture *f)
{
	tally_posted_detach(&f->p);
	__atomic_store_n(&f->t.stop, 1, __ATOMIC_RELEASE);
	pthread_join(f->t.th, NULL);
	munmap(f->d.arena, MT_ARENA_LEN);
	tally_model_destroy(f->d.m);
}

static uint64_t
reserved(const struct fixture *f)
{
	return __atomic_load_n(&f->mb->reserve, __ATOMIC_ACQUIRE);
}

static uint32_t
db_line(const struct fixture *f, uint32_t off)
{
	return __atomic_load_n((const volatile uint32_t *)(f->bar + off), __ATOMIC_ACQUIRE);
}

static const uint8_t dst[6] = { 0x02, 0, 0, 0, 0, 1 };

/* Doorbells take the page; a read right after one sees it rung. */
static int
test_page(void)
{
	struct fixture f;
	struct mt_rxq rq;
	struct mt_txq tq;
	uint8_t frame[128], out[256];
	struct mt_rx_info info;
	uint64_t r0;
	uint32_t i, got = 0;
	int len;

	TEST_ASSERT(fx_open(&f) == 0, "open");
	TEST_ASSERT(mt_rd(&f.d, TALLY_REG_CAPS) & TALLY_CAP_DB_PAGE, "CAPS.DB_PAGE");
	TEST_ASSERT(mt_rxq_start(&f.d, &rq, 0, 8, 2048, false) == 0, "rxq");
	TEST_ASSERT(mt_txq_start(&f.d, &tq, 0, 8) == 0, "txq");
	/* an enable came before: its read flushed it, nothing pends */
	r0 = reserved(&f);
	for (i = 0; i < 64; i++) {
		mt_udp_frame(frame, sizeof(frame), dst, 1, 2, 3, 4, i);
		TEST_ASSERT(mt_tx_send(&tq, frame, sizeof(frame), 1) == 0, "send %u", i);
		/* the read flushes the doorbell: the device took it */
		TEST_ASSERT_EQ(mt_rd(&f.d, TALLY_TXQ_REG(0, TALLY_Q_HEAD)), tq.prod,
			       "Tx head after doorbell %u", i);
	}
	TEST_ASSERT_EQ(reserved(&f), r0, "no doorbell took the mailbox");
	TEST_ASSERT_EQ(db_line(&f, TALLY_DB_TXQ(0)), tq.prod, "the Tx line holds prod");
	for (i = 0; i < 200 && got < 64; i++) {
		len = mt_rxq_recv(&rq, out, sizeof(out), &info);
		if (len == 0) {
			usleep(200);
			continue;
		}
		TEST_ASSERT_EQ(len, (int)sizeof(frame), "frame %u length", got);
		mt_udp_frame(frame, sizeof(frame), dst, 1, 2, 3, 4, got);
		TEST_ASSERT(memcmp(out, frame, sizeof(frame)) == 0, "frame %u bytes", got);
		got++;
	}
	TEST_ASSERT_EQ(got, 64, "frames looped back");
	/* the Rx doorbells (refills) took the page too */
	TEST_ASSERT_EQ(reserved(&f), r0, "no Rx doorbell took the mailbox");
	TEST_ASSERT_EQ(db_line(&f, TALLY_DB_RXQ(0)), rq.prod, "the Rx line holds prod");
	TEST_ASSERT_EQ(mt_stat(&f.d, TALLY_STAT_RX_PKTS), 64, "port Rx");
	TEST_ASSERT_EQ(mt_rd(&f.d, TALLY_REG_FAULT_CNT), 0, "no fault");
	fx_close(&f);
	return TEST_SUCCESS;
}

/* A doorbell behind a posted write that is not applied yet takes the
 * mailbox, after it: the completion counter attached first counts. */
static int
test_order(void)
{
	struct fixture f;
	struct mt_txq tq;
	uint8_t frame[96];
	uint64_t r0;

	TEST_ASSERT(fx_open_txq(&f, &tq, 8) == 0, "open, txq");
	dev_pause(&f, 1);
	r0 = reserved(&f);
	mt_wr(&f.d, TALLY_TXQ_REG(0, TALLY_Q_CCNT), TALLY_Q_CCNT_EN | 5);
	mt_udp_frame(frame, sizeof(frame), dst, 1, 2, 3, 4, 7);
	TEST_ASSERT(mt_tx_send(&tq, frame, sizeof(frame), 1) == 0, "send");
	TEST_ASSERT_EQ(reserved(&f), r0 + 2, "attach and doorbell both in the mailbox");
	TEST_ASSERT_EQ(db_line(&f, TALLY_DB_TXQ(0)), 0, "the line untouched");
	dev_pause(&f, 0);
	TEST_ASSERT_EQ(mt_rd(&f.d, TALLY_TXQ_REG(0, TALLY_Q_HEAD)), 1, "sent");
	TEST_ASSERT_EQ(mt_rd64(&f.d, mt_rd(&f.d, TALLY_REG_CCNT_OFF) + 5 * 16), 1,
		       "counted: the attach came first");
	/* nothing pending any more: the next one takes the page */
	TEST_ASSERT(mt_tx_send(&tq, frame, sizeof(frame), 1) == 0, "send");
	TEST_ASSERT_EQ(reserved(&f), r0 + 2, "the page");
	TEST_ASSERT_EQ(mt_rd(&f.d, TALLY_TXQ_REG(0, TALLY_Q_HEAD)), 2, "sent");
	TEST_ASSERT_EQ(mt_rd64(&f.d, mt_rd(&f.d, TALLY_REG_CCNT_OFF) + 5 * 16), 2, "counted");
	fx_close(&f);
	return TEST_SUCCESS;
}

/* A line the mailbox overtook: a doorbell stored to the page while the
 * device did not poll, then a posted write, then the next doorbell, which
 * takes the mailbox behind it. The device applies the mailbox first and
 * then reads the older line: it must not move the producer back (the
 * frame rung last would wait, or the producer would fall behind the head,
 * a BAD_QUEUE fault). */
static int
test_overtaken(void)
{
	struct fixture f;
	struct mt_txq tq;
	uint8_t frame[96];
	uint64_t r0;
	uint32_t i;

	TEST_ASSERT(fx_open_txq(&f, &tq, 6) == 0, "open, txq");
	mt_udp_frame(frame, sizeof(frame), dst, 1, 2, 3, 4, 1);
	for (i = 0; i < 10; i++)
		TEST_ASSERT(mt_tx_send(&tq, frame, sizeof(frame), 1) == 0, "send %u", i);
	TEST_ASSERT_EQ(mt_rd(&f.d, TALLY_TXQ_REG(0, TALLY_Q_HEAD)), 10, "sent");
	dev_pause(&f, 1);
	r0 = reserved(&f);
	TEST_ASSERT(mt_tx_send(&tq, frame, sizeof(frame), 1) == 0, "send 11");
	TEST_ASSERT_EQ(db_line(&f, TALLY_DB_TXQ(0)), 11, "11 on the line");
	mt_wr(&f.d, TALLY_TXQ_REG(0, TALLY_Q_CCNT), TALLY_Q_CCNT_EN | 3);
	TEST_ASSERT(mt_tx_send(&tq, frame, sizeof(frame), 1) == 0, "send 12");
	TEST_ASSERT_EQ(reserved(&f), r0 + 2, "the attach and 12 in the mailbox");
	TEST_ASSERT_EQ(db_line(&f, TALLY_DB_TXQ(0)), 11, "the line still 11");
	dev_pause(&f, 0);
	TEST_ASSERT_EQ(mt_rd(&f.d, TALLY_TXQ_REG(0, TALLY_Q_HEAD)), 12, "both sent");
	usleep(2000);	/* more polls of the line */
	TEST_ASSERT_EQ(mt_rd(&f.d, TALLY_REG_FAULT_CNT), 0, "no fault");
	TEST_ASSERT_EQ(mt_rd(&f.d, TALLY_TXQ_REG(0, TALLY_Q_HEAD)), 12, "head stays");
	/* the page rings on */
	TEST_ASSERT(mt_tx_send(&tq, frame, sizeof(frame), 1) == 0, "send 13");
	TEST_ASSERT_EQ(reserved(&f), r0 + 2, "13 took the page");
	TEST_ASSERT_EQ(mt_rd(&f.d, TALLY_TXQ_REG(0, TALLY_Q_HEAD)), 13, "sent");
	fx_close(&f);
	return TEST_SUCCESS;
}

/* Disable, enable again: the old line is not a doorbell (head restarts at
 * 0, the old prod would be a fault); the queue works on. */
static int
test_reenable(void)
{
	struct fixture f;
	struct mt_txq tq;
	uint8_t frame[96];
	uint32_t i;

	TEST_ASSERT(fx_open_txq(&f, &tq, 6) == 0, "open, txq");
	mt_udp_frame(frame, sizeof(frame), dst, 1, 2, 3, 4, 1);
	for (i = 0; i < 40; i++) {
		TEST_ASSERT(mt_tx_send(&tq, frame, sizeof(frame), 1) == 0, "send %u", i);
		mt_tx_reap_all(&tq, NULL);
	}
	TEST_ASSERT_EQ(mt_rd(&f.d, TALLY_TXQ_REG(0, TALLY_Q_HEAD)), 40, "sent");
	TEST_ASSERT_EQ(db_line(&f, TALLY_DB_TXQ(0)), 40, "the line");
	mt_wr(&f.d, TALLY_TXQ_REG(0, TALLY_Q_CTRL), 0);
	TEST_ASSERT(mt_txq_start(&f.d, &tq, 0, 6) == 0, "txq again");
	TEST_ASSERT_EQ(db_line(&f, TALLY_DB_TXQ(0)), 0, "the line zeroed before the enable");
	usleep(2000);	/* polls of the enabled queue */
	TEST_ASSERT_EQ(mt_rd(&f.d, TALLY_REG_FAULT_CNT), 0, "no fault");
	TEST_ASSERT_EQ(mt_rd(&f.d, TALLY_TXQ_REG(0, TALLY_Q_HEAD)), 0, "head restarted");
	for (i = 0; i < 3; i++)
		TEST_ASSERT(mt_tx_send(&tq, frame, sizeof(frame), 1) == 0, "send %u", i);
	TEST_ASSERT_EQ(mt_rd(&f.d, TALLY_TXQ_REG(0, TALLY_Q_HEAD)), 3, "sent again");
	fx_close(&f);
	return TEST_SUCCESS;
}

/* A line more than a ring ahead of the device is refused with BAD_QUEUE
 * (as a Q_DOORBELL write is); a disabled queue's line is not read. */
static int
test_bad_line(void)
{
	volatile uint32_t *line;
	struct fixture f;
	struct mt_txq tq;

	TEST_ASSERT(fx_open_txq(&f, &tq, 6) == 0, "open, txq");
	line = (volatile uint32_t *)(f.bar + TALLY_DB_TXQ(1));	/* queue 1: disabled */
	__atomic_store_n(line, 1000, __ATOMIC_RELEASE);
	usleep(2000);
	TEST_ASSERT_EQ(mt_rd(&f.d, TALLY_REG_FAULT_CNT), 0, "a disabled queue's line is ignored");
	line = (volatile uint32_t *)(f.bar + TALLY_DB_TXQ(0));
	__atomic_store_n(line, 65, __ATOMIC_RELEASE);	/* ring of 64 */
	usleep(2000);
	TEST_ASSERT_EQ(mt_rd(&f.d, TALLY_REG_FAULT_CNT), 1, "one fault");
	TEST_ASSERT_EQ(mt_rd(&f.d, TALLY_REG_FAULT_CAUSE), TALLY_FAULT_BAD_QUEUE, "BAD_QUEUE");
	TEST_ASSERT_EQ(mt_rd(&f.d, TALLY_TXQ_REG(0, TALLY_Q_HEAD)), 0, "nothing sent");
	fx_close(&f);
	return TEST_SUCCESS;
}

static const struct tally_test_case cases[] = {
	TEST_CASE(test_page),
	TEST_CASE(test_order),
	TEST_CASE(test_overtaken),
	TEST_CASE(test_reenable),
	TEST_CASE(test_bad_line),
};

TEST_MAIN("model-dbpage", cases)
