/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Frames handed from Tx to Rx by reference within one step (defer_tx, the
 * loop wire): Rx gets the frames in the Tx buffers, no Tx completion (phase,
 * completion counter, HEAD) is visible while the wire still reads the
 * frame's buffer, frames beyond a burst are copied before their buffers can
 * be reused, FIFO order holds across
 * held-wire frames, chains and more than a burst, and a random mix of
 * traffic (misses, filtered, runts, oversize, chains, bad descriptors, a held
 * wire, two Tx queues) gives exactly the statistics, counters, completions
 * and received frames of the same model with a loop wire that always copies.
 */
#include <stdlib.h>
#include <string.h>

#include "tally_model_priv.h"
#include "tally_mt.h"
#include "tally_test.h"

static const uint8_t own_mac[6] = { 0x02, 0, 0, 0, 0, 0 };
static const uint8_t other_mac[6] = { 0x02, 0, 0, 0, 0, 9 };

static int
open_dev(struct mt_dev *d, int defer)
{
	struct tally_model_config cfg;

	mt_config(&cfg);
	cfg.defer_tx = defer;
	return mt_open(d, &cfg);
}

static void
ccnt_attach(struct mt_dev *d, uint32_t qreg, uint32_t idx)
{
	mt_wr(d, qreg + TALLY_Q_CCNT, TALLY_Q_CCNT_EN | idx);
}

static uint64_t
ccnt(struct mt_dev *d, uint32_t idx, bool err)
{
	return mt_rd64(d, mt_rd(d, TALLY_REG_CCNT_OFF) + idx * 16 + (err ? 8 : 0));
}

/* ---- the wire wrapped: nothing of the step's Tx is published early ------ */

static struct {
	struct mt_dev *d;
	struct mt_txq *tq;
	uint32_t reaped;	/* Tx completions the test took before the step */
	uint32_t q_head;	/* Tx HEAD before the step */
	uint64_t cc;		/* Tx completion counter 1 before the step */
	unsigned int peeks, settles, early;
	unsigned int in_place;	/* frames Rx was given in the Tx buffers */
} chk;

static struct tally_wire_ops wrapped;

/* No completion after the ones reaped (up to the last posted) carries its
 * new phase, the counter and HEAD have not moved. */
static void
chk_unpublished(void)
{
	struct mt_txq *q = chk.tq;
	const struct tally_tx_cqe *c;
	uint32_t i;
	uint8_t want;

	for (i = chk.reaped; i != q->prod; i++) {
		c = &q->cq[i & (q->size - 1)];
		want = ((i / q->size) & 1) ^ 1;
		if (__atomic_load_n(&c->phase, __ATOMIC_ACQUIRE) == want) {
			chk.early++;
			return;
		}
	}
	if (ccnt(chk.d, 1, false) != chk.cc ||
	    mt_rd(chk.d, TALLY_TXQ_REG(q->id, TALLY_Q_HEAD)) != chk.q_head)
		chk.early++;
}

static unsigned int
chk_peek_burst(struct tally_model *m, struct tally_model_rx_in *in, unsigned int max)
{
	const uint8_t *bufs = chk.tq->bufs;
	unsigned int n, k;

	chk.peeks++;
	chk_unpublished();
	n = tally_wire_loop_ops.rx_peek_burst(m, in, max);
	for (k = 0; k < n; k++)
		if (in[k].frame >= bufs && in[k].frame < bufs + (size_t)chk.tq->size * MT_TX_SLOT)
			chk.in_place++;
	return n;
}

static void
chk_settle(struct tally_model *m)
{
	chk.settles++;
	chk_unpublished();
	tally_wire_loop_ops.tx_settle(m);
	chk_unpublished();
}

static bool
frame_is(const uint8_t *r, int n, uint32_t len, uint32_t seed)
{
	uint8_t f[MT_FRAME_MAX];

	mt_udp_frame(f, len, own_mac, seed, 2, 3, 4, seed);
	return n == (int)len && memcmp(f, r, len) == 0;
}

/* The wire wrapped by the checks above, for Tx queue tq. */
static void
chk_wrap(struct mt_dev *d, struct mt_txq *tq)
{
	wrapped = tally_wire_loop_ops;
	wrapped.rx_peek_burst = chk_peek_burst;
	wrapped.tx_settle = chk_settle;
	d->m->wire = &wrapped;
	memset(&chk, 0, sizeof(chk));
	chk.d = d;
	chk.tq = tq;
}

/*
 * 40 frames in one step, 16 Rx descriptors: Rx gets all 40 in the Tx
 * buffers, writes 16 (the one copy) and misses 24, whose references are
 * simply dropped; no Tx completion shows before that.
 */
static int
test_by_reference(void)
{
	static uint8_t f[MT_FRAME_MAX], r[MT_FRAME_MAX];
	struct mt_rx_info info;
	struct mt_dev d;
	struct mt_rxq rq;
	struct mt_txq tq;
	uint32_t i, errors = 0;
	int n;

	TEST_ASSERT_EQ(open_dev(&d, 1), 0, "create");
	TEST_ASSERT_EQ(mt_rxq_start(&d, &rq, 0, 4, 2048, false), 0, "rxq");
	TEST_ASSERT_EQ(mt_txq_start(&d, &tq, 0, 8), 0, "txq");
	ccnt_attach(&d, TALLY_TXQ_REG(0, 0), 1);
	mt_port(&d, 0);
	chk_wrap(&d, &tq);
	for (i = 0; i < 40; i++) {
		mt_udp_frame(f, 60 + i, own_mac, i, 2, 3, 4, i);
		TEST_ASSERT_EQ(mt_tx_send(&tq, f, 60 + i, 1), 0, "frame %u", i);
	}
	TEST_ASSERT_EQ(mt_service(&d), 40 + 40, "40 sent, 40 off the wire");
	TEST_ASSERT_EQ(chk.in_place, 40, "Rx got them in the Tx buffers");
	TEST_ASSERT_EQ(chk.early, 0, "no completion before Rx had them");
	TEST_ASSERT_EQ(mt_tx_reap_all(&tq, &errors), 40, "");
	TEST_ASSERT_EQ(errors, 0, "");
	TEST_ASSERT_U64_EQ(ccnt(&d, 1, false), 40, "");
	memset(tq.bufs, 0xee, (size_t)tq.size * MT_TX_SLOT);
	for (i = 0; i < 16; i++) {
		n = mt_rxq_recv(&rq, r, sizeof(r), &info);
		TEST_ASSERT(frame_is(r, n, 60 + i, i), "frame %u", i);
	}
	TEST_ASSERT_U64_EQ(mt_stat(&d, TALLY_STAT_RX_MISSED), 24, "");
	TEST_ASSERT_U64_EQ(mt_stat(&d, TALLY_STAT_RX_PKTS), 16, "");
	TEST_ASSERT_U64_EQ(mt_stat(&d, TALLY_STAT_TX_PKTS), 40, "");
	TEST_ASSERT_EQ(mt_service(&d), 0, "nothing left on the wire");
	d.m->wire = &tally_wire_loop_ops;
	mt_close(&d);
	return TEST_SUCCESS;
}

/*
 * 100 frames in one step, 16 Rx descriptors: the 65th frame finds no room
 * by reference and moves the first 64 into the wire's ring (then it and the
 * rest are copied); 64 leave the wire (16 written, 48 missed) and 36 wait
 * in the ring. No completion shows before the frames are out of the Tx
 * buffers; the test then overwrites every Tx buffer and receives the
 * leftovers intact.
 */
static int
test_leftovers_copied_before_completion(void)
{
	static uint8_t f[MT_FRAME_MAX], r[MT_FRAME_MAX];
	struct mt_rx_info info;
	struct mt_dev d;
	struct mt_rxq rq;
	struct mt_txq tq;
	uint32_t i, errors = 0;
	int n;

	TEST_ASSERT_EQ(open_dev(&d, 1), 0, "create");
	TEST_ASSERT_EQ(mt_rxq_start(&d, &rq, 0, 4, 2048, false), 0, "rxq");
	TEST_ASSERT_EQ(mt_txq_start(&d, &tq, 0, 8), 0, "txq");
	ccnt_attach(&d, TALLY_TXQ_REG(0, 0), 1);
	mt_port(&d, 0);
	chk_wrap(&d, &tq);
	for (i = 0; i < 100; i++) {
		mt_udp_frame(f, 60 + i, own_mac, i, 2, 3, 4, i);
		TEST_ASSERT_EQ(mt_tx_send(&tq, f, 60 + i, 1), 0, "frame %u", i);
	}
	TEST_ASSERT_EQ(mt_tx_reap_all(&tq, NULL), 0, "deferred: nothing sent yet");
	TEST_ASSERT_EQ(mt_service(&d), 100 + 64, "100 sent, 64 off the wire");
	TEST_ASSERT_EQ(chk.in_place, 0, "all in the ring");
	TEST_ASSERT_EQ(chk.peeks, 1, "");
	TEST_ASSERT_EQ(chk.settles, 1, "");
	TEST_ASSERT_EQ(chk.early, 0, "no completion before the wire let go");
	TEST_ASSERT_EQ(mt_tx_reap_all(&tq, &errors), 100, "then all of them");
	TEST_ASSERT_EQ(errors, 0, "");
	TEST_ASSERT_U64_EQ(ccnt(&d, 1, false), 100, "");
	TEST_ASSERT_EQ(mt_rd(&d, TALLY_TXQ_REG(0, TALLY_Q_HEAD)), 100, "");
	/* the driver reuses its buffers at once */
	memset(tq.bufs, 0xee, (size_t)tq.size * MT_TX_SLOT);
	for (i = 0; i < 16; i++) {
		n = mt_rxq_recv(&rq, r, sizeof(r), &info);
		TEST_ASSERT(frame_is(r, n, 60 + i, i), "frame %u", i);
	}
	TEST_ASSERT_U64_EQ(mt_stat(&d, TALLY_STAT_RX_MISSED), 48, "");
	chk.reaped = 100;
	chk.q_head = 100;
	chk.cc = 100;
	TEST_ASSERT_EQ(mt_service(&d), 36, "the leftovers, from the ring");
	for (i = 64; i < 80; i++) {
		n = mt_rxq_recv(&rq, r, sizeof(r), &info);
		TEST_ASSERT(frame_is(r, n, 60 + i, i), "left-over frame %u intact", i);
	}
	TEST_ASSERT_EQ(mt_rxq_recv(&rq, r, sizeof(r), &info), 0, "");
	TEST_ASSERT_EQ(chk.early, 0, "");
	TEST_ASSERT_U64_EQ(mt_stat(&d, TALLY_STAT_RX_MISSED), 48 + 20, "");
	TEST_ASSERT_U64_EQ(mt_stat(&d, TALLY_STAT_RX_PKTS), 32, "");
	TEST_ASSERT_U64_EQ(mt_stat(&d, TALLY_STAT_RX_WIRE_PKTS), 100, "");
	TEST_ASSERT_U64_EQ(mt_stat(&d, TALLY_STAT_TX_PKTS), 100, "");
	TEST_ASSERT_EQ(mt_service(&d), 0, "wire empty");
	d.m->wire = &tally_wire_loop_ops;
	mt_close(&d);
	return TEST_SUCCESS;
}

/*
 * One step over a ring wrap with frames the fast burst sends (completions
 * written only when published) before and after others (an ERR_DMA frame,
 * a chain): no completion shows before Rx is done, then each one carries
 * its own length and status, in ring order.
 */
static int
test_held_mixed(void)
{
	static const struct { uint16_t len; uint8_t status; } want[] = {
		{ 61, TALLY_TXC_OK }, { 62, TALLY_TXC_OK }, { 63, TALLY_TXC_OK },
		{ 0, TALLY_TXC_ERR_DMA },
		{ 64, TALLY_TXC_OK }, { 65, TALLY_TXC_OK },
		{ 0, TALLY_TXC_OK }, { 300, TALLY_TXC_OK },	/* chain */
		{ 66, TALLY_TXC_OK }, { 67, TALLY_TXC_OK }, { 68, TALLY_TXC_OK },
	};
	static uint8_t f[MT_FRAME_MAX];
	struct tally_tx_desc bad = { .addr = 0x10, .len = 64, .flags = TALLY_TXD_F_EOP };
	struct tally_tx_cqe c;
	struct mt_dev d;
	struct mt_rxq rq;
	struct mt_txq tq;
	uint32_t i, errors = 0;

	TEST_ASSERT_EQ(open_dev(&d, 1), 0, "create");
	TEST_ASSERT_EQ(mt_rxq_start(&d, &rq, 0, 6, 2048, false), 0, "rxq");
	TEST_ASSERT_EQ(mt_txq_start(&d, &tq, 0, 4), 0, "txq of 16");
	ccnt_attach(&d, TALLY_TXQ_REG(0, 0), 1);
	mt_port(&d, 0);
	for (i = 0; i < 10; i++) {
		mt_udp_frame(f, 60, own_mac, i, 2, 3, 4, i);
		TEST_ASSERT_EQ(mt_tx_send(&tq, f, 60, 1), 0, "frame %u", i);
	}
	TEST_ASSERT_EQ(mt_service(&d), 20, "");
	TEST_ASSERT_EQ(mt_tx_reap_all(&tq, &errors), 10, "");
	chk_wrap(&d, &tq);
	chk.reaped = 10;
	chk.q_head = 10;
	chk.cc = 10;
	for (i = 0; i < 3; i++) {
		mt_udp_frame(f, 61 + i, own_mac, i, 2, 3, 4, i);
		TEST_ASSERT_EQ(mt_tx_send(&tq, f, 61 + i, 1), 0, "");
	}
	TEST_ASSERT_EQ(mt_tx_post(&tq, &bad, 1), 0, "ERR_DMA");
	for (i = 0; i < 2; i++) {
		mt_udp_frame(f, 64 + i, own_mac, i, 2, 3, 4, i);
		TEST_ASSERT_EQ(mt_tx_send(&tq, f, 64 + i, 1), 0, "");
	}
	mt_udp_frame(f, 300, own_mac, 9, 2, 3, 4, 9);
	TEST_ASSERT_EQ(mt_tx_send(&tq, f, 300, 2), 0, "chain");
	for (i = 0; i < 3; i++) {
		mt_udp_frame(f, 66 + i, own_mac, i, 2, 3, 4, i);
		TEST_ASSERT_EQ(mt_tx_send(&tq, f, 66 + i, 1), 0, "");
	}
	TEST_ASSERT_EQ(tq.prod, 21, "11 descriptors, over the wrap");
	TEST_ASSERT_EQ(mt_service(&d), 10 + 9, "10 frames sent, 9 off the wire");
	TEST_ASSERT_EQ(chk.peeks, 1, "");
	TEST_ASSERT_EQ(chk.early, 0, "no completion before Rx had the frames");
	for (i = 0; i < 11; i++) {
		TEST_ASSERT_EQ(mt_tx_reap(&tq, &c), 1, "completion %u", i);
		TEST_ASSERT_EQ(c.len, want[i].len, "completion %u", i);
		TEST_ASSERT_EQ(c.status, want[i].status, "completion %u", i);
	}
	TEST_ASSERT_EQ(mt_tx_reap(&tq, &c), 0, "no more");
	TEST_ASSERT_U64_EQ(ccnt(&d, 1, false), 10 + 10, "");
	TEST_ASSERT_U64_EQ(ccnt(&d, 1, true), 1, "");
	TEST_ASSERT_EQ(mt_rd(&d, TALLY_TXQ_REG(0, TALLY_Q_HEAD)), 21, "");
	TEST_ASSERT_U64_EQ(mt_stat(&d, TALLY_STAT_RX_PKTS), 10 + 9, "");
	d.m->wire = &tally_wire_loop_ops;
	mt_close(&d);
	return TEST_SUCCESS;
}

/*
 * FIFO order across every way in: frames copied into the ring while the wire
 * was held, then (ring drained) singles by reference, a chain (which settles
 * them), singles after it, a frame too long for a reference, and more than a
 * burst of singles, all in one step.
 */
static int
test_fifo_order(void)
{
	static uint8_t f[MT_FRAME_MAX], r[MT_FRAME_MAX];
	struct mt_rx_info info;
	struct mt_dev d;
	struct mt_rxq rq;
	struct mt_txq tq;
	uint32_t i, seq = 0, got = 0, len[256], nseg;
	int n;

	TEST_ASSERT_EQ(open_dev(&d, 1), 0, "create");
	TEST_ASSERT_EQ(mt_rxq_start(&d, &rq, 0, 8, 4096, false), 0, "rxq");
	TEST_ASSERT_EQ(mt_txq_start(&d, &tq, 0, 8), 0, "txq");
	mt_port(&d, 0);
	tally_model_hold_wire(d.m, 1);
	for (i = 0; i < 5; i++, seq++) {
		len[seq] = 100 + seq;
		mt_udp_frame(f, len[seq], own_mac, seq, 2, 3, 4, seq);
		TEST_ASSERT_EQ(mt_tx_send(&tq, f, len[seq], 1), 0, "");
	}
	TEST_ASSERT_EQ(mt_service(&d), 5, "held: into the ring");
	TEST_ASSERT_EQ(mt_tx_reap_all(&tq, NULL), 5, "");
	tally_model_hold_wire(d.m, 0);
	/* ring not empty: these are copied, behind the held ones */
	for (i = 0; i < 3; i++, seq++) {
		len[seq] = 100 + seq;
		mt_udp_frame(f, len[seq], own_mac, seq, 2, 3, 4, seq);
		TEST_ASSERT_EQ(mt_tx_send(&tq, f, len[seq], 1), 0, "");
	}
	TEST_ASSERT_EQ(mt_service(&d), 3 + 8, "");
	TEST_ASSERT_EQ(mt_tx_reap_all(&tq, NULL), 3, "");
	/* ring empty: references, then every other kind of frame */
	for (i = 0; i < 90; i++, seq++) {
		nseg = 1;
		len[seq] = 100 + seq;
		if (i == 3 || i == 20)
			nseg = 2;			/* a chain */
		if (i == 10)
			len[seq] = 3000;		/* beyond a reference */
		mt_udp_frame(f, len[seq], own_mac, seq, 2, 3, 4, seq);
		TEST_ASSERT_EQ(mt_tx_send(&tq, f, len[seq], nseg), 0, "frame %u", seq);
	}
	mt_wr(&d, TALLY_REG_MTU, 4000);
	TEST_ASSERT_EQ(mt_service(&d), 90 + 64, "");
	TEST_ASSERT_EQ(mt_tx_reap_all(&tq, NULL), 90 + 3,
		       "two chains of two, 3000 bytes in two Tx slots");
	memset(tq.bufs, 0xee, (size_t)tq.size * MT_TX_SLOT);
	TEST_ASSERT_EQ(mt_service(&d), 90 - 64, "");
	while ((n = mt_rxq_recv(&rq, r, sizeof(r), &info)) != 0) {
		TEST_ASSERT(got < seq && frame_is(r, n, len[got], got),
			    "frame %u in order and intact", got);
		got++;
	}
	TEST_ASSERT_EQ(got, seq, "every frame");
	TEST_ASSERT_U64_EQ(mt_stat(&d, TALLY_STAT_RX_MISSED), 0, "");
	mt_close(&d);
	return TEST_SUCCESS;
}

/* ---- the same traffic with and without references ------------------------ */

struct outcome {
	uint64_t stat[TALLY_STAT_NUM];
	uint64_t qstat[3][4];		/* rxq 0, txq 0, txq 1: pkts bytes drops errors */
	uint64_t cc[4][2];
	uint32_t q_head[3];
	uint32_t nrx, ntxc[2];
	uint64_t rx_hash, txc_hash[2];
};

static void
drain(struct mt_rxq *rq, struct mt_txq *tq, struct outcome *o, uint32_t max)
{
	static uint8_t r[MT_FRAME_MAX];
	struct tally_tx_cqe c;
	struct mt_rx_info info;
	uint32_t k, i;
	int n;

	for (k = 0; k < max; k++) {
		n = mt_rxq_recv(rq, r, sizeof(r), &info);
		if (n == 0)
			break;
		o->nrx++;
		o->rx_hash = mt_fnv(o->rx_hash, &n, sizeof(n));
		o->rx_hash = mt_fnv(o->rx_hash, &info, sizeof(info));
		if (n > 0)
			o->rx_hash = mt_fnv(o->rx_hash, r, (size_t)n);
	}
	for (i = 0; i < 2; i++) {
		while (mt_tx_reap(&tq[i], &c)) {
			o->ntxc[i]++;
			o->txc_hash[i] = mt_fnv(o->txc_hash[i], &c, sizeof(c));
		}
	}
}

/* The loop wire without its by-reference ops: the step copies. */
static struct tally_wire_ops copying;

static int
run_mix(bool refs, struct outcome *o)
{
	static uint8_t f[MT_FRAME_MAX];
	struct tally_tx_desc bad[2];
	struct mt_dev d;
	struct mt_rxq rq;
	struct mt_txq tq[2];
	uint32_t round, i, k, len, x = 12345, q, nseg;
	const uint8_t *dst;

	memset(o, 0, sizeof(*o));
	TEST_ASSERT_EQ(open_dev(&d, 1), 0, "create");
	copying = tally_wire_loop_ops;
	copying.tx_ref_room = NULL;
	copying.tx_ref_put = NULL;
	copying.tx_settle = NULL;
	if (!refs)
		d.m->wire = &copying;
	TEST_ASSERT_EQ(mt_rxq_start(&d, &rq, 0, 5, 2048, false), 0, "rxq");
	TEST_ASSERT_EQ(mt_txq_start(&d, &tq[0], 0, 8), 0, "txq 0");
	TEST_ASSERT_EQ(mt_txq_start(&d, &tq[1], 1, 6), 0, "txq 1");
	ccnt_attach(&d, TALLY_RXQ_REG(0, 0), 3);
	ccnt_attach(&d, TALLY_TXQ_REG(0, 0), 1);
	ccnt_attach(&d, TALLY_TXQ_REG(1, 0), 2);
	mt_port(&d, 0);
	for (round = 0; round < 400; round++) {
		x = x * 1103515245u + 12345u;
		tally_model_hold_wire(d.m, (x >> 28) == 0);	/* 1 round in 16 */
		q = round & 1;
		k = (x >> 8) % (q == 0 ? 150 : 40);
		for (i = 0; i < k; i++) {
			x = x * 1103515245u + 12345u;
			len = 60 + (x >> 8) % 1455;
			nseg = 1;
			dst = own_mac;
			switch ((x >> 20) % 32) {
			case 0: dst = other_mac; break;		/* filtered */
			case 1: len = 10; break;		/* runt */
			case 2: len = 1600; break;		/* over the MTU */
			case 3: nseg = 2; break;		/* chain */
			case 4: len = 5000; break;		/* chain of 3 */
			case 5:					/* ERR_DMA */
				memset(bad, 0, sizeof(bad));
				bad[0].addr = 0x10;
				bad[0].len = 64;
				bad[0].flags = TALLY_TXD_F_EOP;
				if (mt_tx_post(&tq[q], bad, 1) == 0)
					continue;
				break;
			case 6:					/* ERR_DESC */
				memset(bad, 0, sizeof(bad));
				bad[0].addr = (uint64_t)(uintptr_t)tq[q].bufs;
				bad[1].addr = bad[0].addr;
				bad[1].len = 64;
				bad[1].flags = TALLY_TXD_F_EOP;
				if (mt_tx_post(&tq[q], bad, 2) == 0)
					continue;
				break;
			default: break;
			}
			mt_udp_frame(f, len, dst, round, i, q, 4, x);
			if (mt_tx_send(&tq[q], f, len, nseg) != 0)
				break;	/* ring full: a busy wire */
		}
		mt_service(&d);
		if ((x >> 12) & 1)
			mt_service(&d);
		drain(&rq, tq, o, (x >> 13) % 40);
	}
	tally_model_hold_wire(d.m, 0);
	for (i = 0; i < 10000; i++) {
		k = mt_service(&d);
		drain(&rq, tq, o, 64);
		if (k == 0)
			break;
	}
	mt_stats(&d, o->stat);
	for (i = 0; i < 4; i++) {
		o->qstat[0][i] = mt_rd64(&d, TALLY_RXQ_REG(0, TALLY_Q_STAT_PKTS + 8 * i));
		o->qstat[1][i] = mt_rd64(&d, TALLY_TXQ_REG(0, TALLY_Q_STAT_PKTS + 8 * i));
		o->qstat[2][i] = mt_rd64(&d, TALLY_TXQ_REG(1, TALLY_Q_STAT_PKTS + 8 * i));
		o->cc[i][0] = ccnt(&d, i, false);
		o->cc[i][1] = ccnt(&d, i, true);
	}
	o->q_head[0] = mt_rd(&d, TALLY_RXQ_REG(0, TALLY_Q_HEAD));
	o->q_head[1] = mt_rd(&d, TALLY_TXQ_REG(0, TALLY_Q_HEAD));
	o->q_head[2] = mt_rd(&d, TALLY_TXQ_REG(1, TALLY_Q_HEAD));
	TEST_ASSERT_EQ(tq[0].cons, tq[0].prod, "every Tx frame completed");
	TEST_ASSERT_EQ(tq[1].cons, tq[1].prod, "");
	d.m->wire = &tally_wire_loop_ops;
	mt_close(&d);
	return TEST_SUCCESS;
}

static int
test_same_as_copying(void)
{
	static struct outcome a, b;
	uint32_t i;

	TEST_ASSERT_EQ(run_mix(false, &a), TEST_SUCCESS, "copying");
	TEST_ASSERT_EQ(run_mix(true, &b), TEST_SUCCESS, "by reference");
	i = mt_stats_diff(a.stat, b.stat);
	TEST_ASSERT(i == TALLY_STAT_NUM, "port stat %s: %llu, %llu", tally_port_stat_name(i),
		    (unsigned long long)b.stat[i], (unsigned long long)a.stat[i]);
	for (i = 0; i < 12; i++)
		TEST_ASSERT_U64_EQ(b.qstat[i / 4][i % 4], a.qstat[i / 4][i % 4],
				   "queue %u stat %u", i / 4, i % 4);
	for (i = 0; i < 8; i++)
		TEST_ASSERT_U64_EQ(b.cc[i / 2][i % 2], a.cc[i / 2][i % 2], "ccnt %u", i);
	for (i = 0; i < 3; i++)
		TEST_ASSERT_EQ(b.q_head[i], a.q_head[i], "HEAD %u", i);
	TEST_ASSERT_EQ(b.nrx, a.nrx, "frames received");
	TEST_ASSERT_U64_EQ(b.rx_hash, a.rx_hash, "the same frames, in order");
	TEST_ASSERT_EQ(b.ntxc[0], a.ntxc[0], "");
	TEST_ASSERT_EQ(b.ntxc[1], a.ntxc[1], "");
	TEST_ASSERT_U64_EQ(b.txc_hash[0], a.txc_hash[0], "the same completions");
	TEST_ASSERT_U64_EQ(b.txc_hash[1], a.txc_hash[1], "");
	/* the mix did what it is for */
	TEST_ASSERT(a.stat[TALLY_STAT_RX_MISSED] > 1000, "misses: %llu",
		    (unsigned long long)a.stat[TALLY_STAT_RX_MISSED]);
	TEST_ASSERT(a.stat[TALLY_STAT_RX_FILTERED] > 0 && a.stat[TALLY_STAT_RX_ERR_RUNT] > 0 &&
		    a.stat[TALLY_STAT_RX_ERR_OVERSIZE] > 0 && a.stat[TALLY_STAT_TX_ERRORS] > 0 &&
		    a.stat[TALLY_STAT_DMA_FAULTS] > 0 && a.cc[1][1] > 0, "every kind");
	TEST_ASSERT(a.nrx > 1000, "");
	return TEST_SUCCESS;
}

static const struct tally_test_case cases[] = {
	TEST_CASE(test_by_reference),
	TEST_CASE(test_leftovers_copied_before_completion),
	TEST_CASE(test_held_mixed),
	TEST_CASE(test_fifo_order),
	TEST_CASE(test_same_as_copying),
};

TEST_MAIN("model-txref", cases)
