/* SPDX-License-Identifier: BSD-3-Clause */
/* Rings: wrap-around, Tx gather, bad chains, a busy wire, Rx scatter, misses,
 * filters. */
#include <stdlib.h>

#include "tally_mt.h"
#include "tally_test.h"

static const uint8_t own_mac[6] = { 0x02, 0, 0, 0, 0, 0 };

static uint32_t
frame_len(uint32_t i)
{
	return 60 + (i * 97) % 1455;	/* 60..1514 */
}

static int
test_wrap_around(void)
{
	static uint8_t f[MT_FRAME_MAX], r[MT_FRAME_MAX];
	struct mt_rx_info info;
	struct mt_dev d;
	struct mt_rxq rq;
	struct mt_txq tq;
	uint64_t bytes = 0;
	uint32_t i, j, sent = 0, got = 0, errors = 0;
	int n;

	TEST_ASSERT_EQ(mt_open(&d, NULL), 0, "create");
	TEST_ASSERT_EQ(mt_rxq_start(&d, &rq, 0, 4, 2048, false), 0, "rxq");
	TEST_ASSERT_EQ(mt_txq_start(&d, &tq, 0, 4), 0, "txq");
	mt_port(&d, 0);
	/* 16-entry rings, 200 frames in batches of 7: a dozen wraps each */
	for (i = 0; i < 200; i += 7) {
		for (j = i; j < i + 7 && j < 200; j++) {
			mt_udp_frame(f, frame_len(j), own_mac, j, 2, 3, 4, j);
			TEST_ASSERT_EQ(mt_tx_send(&tq, f, frame_len(j), 1), 0, "frame %u", j);
			sent++;
			bytes += frame_len(j);
		}
		TEST_ASSERT_EQ(mt_tx_reap_all(&tq, &errors), j - i, "tx completions");
		TEST_ASSERT_EQ(mt_service(&d), j - i, "frames moved");
		for (; got < j; got++) {
			n = mt_rxq_recv(&rq, r, sizeof(r), &info);
			TEST_ASSERT_EQ(n, frame_len(got), "frame %u", got);
			mt_udp_frame(f, frame_len(got), own_mac, got, 2, 3, 4, got);
			TEST_ASSERT(memcmp(f, r, (size_t)n) == 0, "bytes of frame %u", got);
			TEST_ASSERT_EQ(info.ncqe, 1, "");
		}
		TEST_ASSERT_EQ(mt_rxq_recv(&rq, r, sizeof(r), &info), 0, "nothing extra");
	}
	TEST_ASSERT_EQ(errors, 0, "");
	TEST_ASSERT_EQ(mt_rd(&d, TALLY_RXQ_REG(0, TALLY_Q_HEAD)), 200, "rx head");
	TEST_ASSERT_EQ(mt_rd(&d, TALLY_TXQ_REG(0, TALLY_Q_HEAD)), 200, "tx head");
	TEST_ASSERT_U64_EQ(mt_stat(&d, TALLY_STAT_TX_PKTS), sent, "");
	TEST_ASSERT_U64_EQ(mt_stat(&d, TALLY_STAT_TX_BYTES), bytes, "");
	TEST_ASSERT_U64_EQ(mt_stat(&d, TALLY_STAT_RX_PKTS), sent, "");
	TEST_ASSERT_U64_EQ(mt_stat(&d, TALLY_STAT_RX_BYTES), bytes, "");
	TEST_ASSERT_U64_EQ(mt_stat(&d, TALLY_STAT_RX_WIRE_PKTS), sent, "");
	TEST_ASSERT_U64_EQ(mt_rd64(&d, TALLY_RXQ_REG(0, TALLY_Q_STAT_BYTES)), bytes, "");
	TEST_ASSERT_U64_EQ(mt_rd64(&d, TALLY_TXQ_REG(0, TALLY_Q_STAT_PKTS)), sent, "");
	TEST_ASSERT_EQ(mt_rd(&d, TALLY_REG_FAULT_CNT), 0, "");
	mt_close(&d);
	return TEST_SUCCESS;
}

static int
test_tx_gather(void)
{
	static uint8_t f[MT_FRAME_MAX], r[MT_FRAME_MAX];
	struct tally_tx_cqe c;
	struct mt_rx_info info;
	struct mt_dev d;
	struct mt_rxq rq;
	struct mt_txq tq;
	uint32_t segs, k, len;

	TEST_ASSERT_EQ(mt_open(&d, NULL), 0, "create");
	TEST_ASSERT_EQ(mt_rxq_start(&d, &rq, 0, 4, 9216, false), 0, "rxq");
	TEST_ASSERT_EQ(mt_txq_start(&d, &tq, 0, 5), 0, "txq");
	mt_port(&d, 0);
	mt_wr(&d, TALLY_REG_MTU, 9000);
	for (segs = 1; segs <= TALLY_TX_MAX_SEGS; segs++) {
		len = 100 + segs * 500;
		mt_udp_frame(f, len, own_mac, segs, 2, 3, 4, segs);
		TEST_ASSERT_EQ(mt_tx_send(&tq, f, len, segs), 0, "segs %u", segs);
		for (k = 0; k < segs; k++) {
			TEST_ASSERT_EQ(mt_tx_reap(&tq, &c), 1, "completion %u", k);
			TEST_ASSERT_EQ(c.status, TALLY_TXC_OK, "");
			TEST_ASSERT_EQ(c.len, k + 1 == segs ? len : 0, "");
		}
		TEST_ASSERT_EQ(mt_tx_reap(&tq, &c), 0, "one per descriptor");
		mt_service(&d);
		TEST_ASSERT_EQ(mt_rxq_recv(&rq, r, sizeof(r), &info), len, "");
		TEST_ASSERT(memcmp(f, r, len) == 0, "bytes, %u segments", segs);
	}
	TEST_ASSERT_U64_EQ(mt_stat(&d, TALLY_STAT_TX_PKTS), TALLY_TX_MAX_SEGS, "");
	mt_close(&d);
	return TEST_SUCCESS;
}

static int
test_tx_bad_chains(void)
{
	struct tally_tx_desc dv[20];
	struct tally_tx_cqe c;
	struct mt_dev d;
	struct mt_txq tq;
	uint8_t *buf;
	uint32_t i, errors = 0;

	TEST_ASSERT_EQ(mt_open(&d, NULL), 0, "create");
	TEST_ASSERT_EQ(mt_txq_start(&d, &tq, 0, 6), 0, "txq");
	mt_port(&d, 0);
	buf = mt_alloc(&d, 16384);
	memset(dv, 0, sizeof(dv));
	for (i = 0; i < 20; i++) {
		dv[i].addr = (uint64_t)(uintptr_t)buf;
		dv[i].len = 60;
	}
	/* zero-length middle segment: the whole frame is ERR_DESC */
	dv[1].len = 0;
	dv[2].flags = TALLY_TXD_F_EOP;
	TEST_ASSERT_EQ(mt_tx_post(&tq, dv, 3), 0, "");
	for (i = 0; i < 3; i++) {
		TEST_ASSERT_EQ(mt_tx_reap(&tq, &c), 1, "");
		TEST_ASSERT_EQ(c.status, TALLY_TXC_ERR_DESC, "");
	}
	TEST_ASSERT_U64_EQ(mt_stat(&d, TALLY_STAT_DESC_FAULTS), 1, "");
	/* 20 descriptors, EOP on the last: too many segments */
	dv[1].len = 60;
	dv[2].flags = 0;
	dv[19].flags = TALLY_TXD_F_EOP;
	TEST_ASSERT_EQ(mt_tx_post(&tq, dv, 20), 0, "");
	TEST_ASSERT_EQ(mt_tx_reap_all(&tq, &errors), 20, "");
	TEST_ASSERT_EQ(errors, 20, "every descriptor of the chain in error");
	/* a frame longer than max_frame */
	for (i = 0; i < 2; i++)
		dv[i].len = 9000;
	dv[0].flags = 0;
	dv[1].flags = TALLY_TXD_F_EOP;
	TEST_ASSERT_EQ(mt_tx_post(&tq, dv, 2), 0, "");
	TEST_ASSERT_EQ(mt_tx_reap(&tq, &c), 1, "");
	TEST_ASSERT_EQ(c.status, TALLY_TXC_ERR_DESC, "");
	TEST_ASSERT_EQ(mt_tx_reap(&tq, &c), 1, "");
	/* no EOP yet: the device waits, then completes when it arrives */
	dv[0].len = 60;
	dv[1].len = 60;
	TEST_ASSERT_EQ(mt_tx_post(&tq, dv, 1), 0, "");
	TEST_ASSERT_EQ(mt_tx_reap(&tq, &c), 0, "waiting for EOP");
	TEST_ASSERT_EQ(mt_tx_post(&tq, &dv[1], 1), 0, "");
	TEST_ASSERT_EQ(mt_tx_reap(&tq, &c), 1, "");
	TEST_ASSERT_EQ(c.status, TALLY_TXC_OK, "");
	TEST_ASSERT_EQ(mt_tx_reap(&tq, &c), 1, "");
	TEST_ASSERT_EQ(c.len, 120, "");
	TEST_ASSERT_U64_EQ(mt_stat(&d, TALLY_STAT_TX_PKTS), 1, "");
	TEST_ASSERT_U64_EQ(mt_stat(&d, TALLY_STAT_TX_ERRORS), 25, "");
	TEST_ASSERT_U64_EQ(mt_rd64(&d, TALLY_TXQ_REG(0, TALLY_Q_STAT_ERRORS)), 3, "");
	/* a doorbell more than a ring ahead is ignored with a fault */
	mt_wr(&d, TALLY_TXQ_REG(0, TALLY_Q_DOORBELL), tq.prod + 1000);
	TEST_ASSERT_EQ(mt_rd(&d, TALLY_REG_FAULT_CAUSE), TALLY_FAULT_BAD_QUEUE, "");
	mt_close(&d);
	return TEST_SUCCESS;
}

/* The loop wire's FIFO (1024 frames) full: back-pressure, never a loss. The
 * frames wait on their rings, each step sends what the wire drained, and the
 * queues take turns. */
static int
test_tx_wire_busy(void)
{
	static uint8_t f[128];
	struct tally_tx_cqe c;
	struct mt_dev d;
	struct mt_rxq rq;
	struct mt_txq t0, t1;
	uint32_t i, errors = 0, done0, done1;

	TEST_ASSERT_EQ(mt_open(&d, NULL), 0, "create");
	TEST_ASSERT_EQ(mt_rxq_start(&d, &rq, 0, 4, 2048, false), 0, "rxq");
	TEST_ASSERT_EQ(mt_txq_start(&d, &t0, 0, 11), 0, "txq 0");
	TEST_ASSERT_EQ(mt_txq_start(&d, &t1, 1, 4), 0, "txq 1");
	mt_port(&d, 0);
	mt_udp_frame(f, 100, own_mac, 1, 2, 3, 4, 5);
	for (i = 0; i < 1100; i++)
		TEST_ASSERT_EQ(mt_tx_send(&t0, f, 100, 1), 0, "");
	TEST_ASSERT_EQ(mt_tx_reap_all(&t0, &errors), 1024, "the FIFO takes 1024");
	for (i = 0; i < 10; i++)
		TEST_ASSERT_EQ(mt_tx_send(&t1, f, 100, 1), 0, "");
	TEST_ASSERT_EQ(mt_tx_reap(&t1, &c), 0, "busy wire: the frames wait");
	TEST_ASSERT_U64_EQ(mt_stat(&d, TALLY_STAT_TX_PKTS), 1024, "");
	/* step 1: both queues find the wire busy, 64 frames leave the FIFO
	 * (16 fill the Rx ring, 48 are missed) */
	TEST_ASSERT_EQ(mt_service(&d), 64, "");
	TEST_ASSERT_U64_EQ(mt_stat(&d, TALLY_STAT_TX_PKTS), 1024, "");
	TEST_ASSERT_U64_EQ(mt_stat(&d, TALLY_STAT_RX_PKTS), 16, "");
	TEST_ASSERT_U64_EQ(mt_stat(&d, TALLY_STAT_RX_MISSED), 48, "");
	/* step 2 serves queue 1 first: all of its frames go */
	mt_service(&d);
	TEST_ASSERT_EQ(mt_tx_reap_all(&t1, &errors), 10, "queue 1 not starved");
	TEST_ASSERT_EQ(mt_tx_reap_all(&t0, &errors), 54, "");
	TEST_ASSERT_U64_EQ(mt_stat(&d, TALLY_STAT_TX_PKTS), 1088, "");
	done0 = 1024 + 54;
	done1 = 10;
	while (mt_service(&d) > 0)
		done0 += mt_tx_reap_all(&t0, &errors);
	TEST_ASSERT_EQ(done0 + done1, 1110, "every frame completed");
	TEST_ASSERT_EQ(errors, 0, "none in error");
	TEST_ASSERT_U64_EQ(mt_stat(&d, TALLY_STAT_TX_PKTS), 1110, "");
	TEST_ASSERT_U64_EQ(mt_stat(&d, TALLY_STAT_RX_PKTS), 16, "");
	TEST_ASSERT_U64_EQ(mt_stat(&d, TALLY_STAT_RX_MISSED), 1094, "");
	TEST_ASSERT_U64_EQ(mt_stat(&d, TALLY_STAT_TX_WIRE_DROP), 0, "");
	TEST_ASSERT_U64_EQ(mt_stat(&d, TALLY_STAT_TX_ERRORS), 0, "");
	TEST_ASSERT_U64_EQ(mt_rd64(&d, TALLY_TXQ_REG(0, TALLY_Q_STAT_DROPS)), 0, "");
	TEST_ASSERT_U64_EQ(mt_rd64(&d, TALLY_TXQ_REG(0, TALLY_Q_STAT_PKTS)), 1100, "");
	TEST_ASSERT_U64_EQ(mt_rd64(&d, TALLY_TXQ_REG(1, TALLY_Q_STAT_PKTS)), 10, "");
	mt_close(&d);
	return TEST_SUCCESS;
}

/* Deferred Tx (the step processes doorbells): frames a step could not send
 * (port disabled, busy wire) are sent by later steps without another
 * doorbell, on any pair of queues (here 6 and 2, so the round robin wraps
 * past the last queue), and the queues still take turns. */
static int
test_tx_deferred_pending(void)
{
	static uint8_t f[128];
	struct tally_model_config cfg;
	struct mt_dev d;
	struct mt_rxq rq;
	struct mt_txq t6, t2;
	uint32_t i, errors = 0, done6 = 0, done2 = 0, steps;

	mt_config(&cfg);
	cfg.defer_tx = 1;
	TEST_ASSERT_EQ(mt_open(&d, &cfg), 0, "create");
	TEST_ASSERT_EQ(mt_rxq_start(&d, &rq, 0, 4, 2048, false), 0, "rxq");
	TEST_ASSERT_EQ(mt_txq_start(&d, &t6, 6, 11), 0, "txq 6");
	TEST_ASSERT_EQ(mt_txq_start(&d, &t2, 2, 4), 0, "txq 2");
	mt_udp_frame(f, 100, own_mac, 1, 2, 3, 4, 5);
	for (i = 0; i < 5; i++)
		TEST_ASSERT_EQ(mt_tx_send(&t6, f, 100, 1), 0, "");
	TEST_ASSERT_EQ(mt_service(&d), 0, "port disabled: nothing sent");
	mt_port(&d, 0);
	TEST_ASSERT_EQ(mt_service(&d), 5 + 5, "then sent, with no new doorbell");
	TEST_ASSERT_EQ(mt_tx_reap_all(&t6, &errors), 5, "");
	TEST_ASSERT_EQ(mt_service(&d), 0, "nothing left");
	/* 1100 frames: the FIFO takes 1024 in the first step */
	for (i = 0; i < 1100; i++)
		TEST_ASSERT_EQ(mt_tx_send(&t6, f, 100, 1), 0, "");
	for (i = 0; i < 10; i++)
		TEST_ASSERT_EQ(mt_tx_send(&t2, f, 100, 1), 0, "");
	for (steps = 0; steps < 100 && done6 + done2 < 1110; steps++) {
		mt_service(&d);
		done6 += mt_tx_reap_all(&t6, &errors);
		done2 += mt_tx_reap_all(&t2, &errors);
		if (steps == 3)
			TEST_ASSERT_EQ(done2, 10, "queue 2 not starved");
	}
	TEST_ASSERT_EQ(done6, 1100, "every frame of queue 6, no new doorbell");
	TEST_ASSERT_EQ(done2, 10, "");
	TEST_ASSERT_EQ(errors, 0, "");
	TEST_ASSERT_U64_EQ(mt_stat(&d, TALLY_STAT_TX_PKTS), 1115, "");
	TEST_ASSERT_U64_EQ(mt_rd64(&d, TALLY_TXQ_REG(6, TALLY_Q_STAT_PKTS)), 1105, "");
	TEST_ASSERT_U64_EQ(mt_rd64(&d, TALLY_TXQ_REG(2, TALLY_Q_STAT_PKTS)), 10, "");
	TEST_ASSERT_EQ(mt_rd(&d, TALLY_TXQ_REG(6, TALLY_Q_HEAD)), 1105, "");
	mt_close(&d);
	return TEST_SUCCESS;
}

static int
test_rx_scatter(void)
{
	static uint8_t f[MT_FRAME_MAX], r[MT_FRAME_MAX];
	struct tally_rx_cqe *c;
	struct mt_rx_info info;
	struct mt_dev d;
	struct mt_rxq sq, nq;
	uint32_t k;

	TEST_ASSERT_EQ(mt_open(&d, NULL), 0, "create");
	TEST_ASSERT_EQ(mt_rxq_start(&d, &sq, 0, 4, 256, true), 0, "rxq");
	TEST_ASSERT_EQ(mt_rxq_start(&d, &nq, 1, 4, 256, false), 0, "rxq");
	mt_port(&d, 0);
	mt_udp_frame(f, 1000, own_mac, 1, 2, 3, 4, 5);
	TEST_ASSERT_EQ(tally_model_inject(d.m, f, 1000), 0, "");
	for (k = 0; k < 4; k++) {
		c = &sq.cq[k];
		TEST_ASSERT_EQ(c->phase, 1, "");
		TEST_ASSERT_EQ(c->len, k < 3 ? 256 : 232, "");
		TEST_ASSERT_EQ(!!(c->flags & TALLY_RXC_F_MORE), k < 3, "");
	}
	TEST_ASSERT_EQ(mt_rxq_recv(&sq, r, sizeof(r), &info), 1000, "");
	TEST_ASSERT_EQ(info.ncqe, 4, "");
	TEST_ASSERT(memcmp(f, r, 1000) == 0, "");
	/* 5 frames of 1000 bytes need 20 > 16 descriptors: later ones missed */
	for (k = 0; k < 5; k++)
		tally_model_inject(d.m, f, 1000);
	TEST_ASSERT_U64_EQ(mt_stat(&d, TALLY_STAT_RX_PKTS), 5, "");
	TEST_ASSERT_U64_EQ(mt_stat(&d, TALLY_STAT_RX_MISSED), 1, "");
	for (k = 0; k < 4; k++)
		TEST_ASSERT_EQ(mt_rxq_recv(&sq, r, sizeof(r), &info), 1000, "");
	/* without scatter the frame does not fit one buffer */
	mt_wr(&d, TALLY_REG_STEER_MISS_QUEUE, 1);
	TEST_ASSERT_EQ(tally_model_inject(d.m, f, 1000), 0, "");
	TEST_ASSERT_U64_EQ(mt_stat(&d, TALLY_STAT_RX_ERR_OVERSIZE), 1, "");
	TEST_ASSERT_EQ(mt_rd(&d, TALLY_RXQ_REG(1, TALLY_Q_HEAD)), 0, "not consumed");
	TEST_ASSERT_EQ(tally_model_inject(d.m, f, 200), 0, "");
	TEST_ASSERT_EQ(mt_rxq_recv(&nq, r, sizeof(r), &info), 200, "");
	mt_close(&d);
	return TEST_SUCCESS;
}

static int
test_rx_filter_and_drops(void)
{
	static const uint8_t other[6] = { 0x02, 9, 9, 9, 9, 9 };
	static const uint8_t mcast[6] = { 0x01, 0, 0x5e, 0, 0, 1 };
	static const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	static uint8_t f[2048], r[2048];
	struct mt_rx_info info;
	struct mt_dev d;
	struct mt_rxq rq;
	uint32_t i;

	TEST_ASSERT_EQ(mt_open(&d, NULL), 0, "create");
	mt_udp_frame(f, 100, own_mac, 1, 2, 3, 4, 5);
	TEST_ASSERT_EQ(tally_model_inject(d.m, f, 100), -ENETDOWN, "port off");
	TEST_ASSERT_EQ(mt_rxq_start(&d, &rq, 0, 4, 2048, false), 0, "rxq");
	mt_port(&d, 0);
	TEST_ASSERT_EQ(tally_model_inject(d.m, f, 100), 0, "own");
	mt_udp_frame(f, 100, bcast, 1, 2, 3, 4, 5);
	tally_model_inject(d.m, f, 100);
	mt_udp_frame(f, 100, other, 1, 2, 3, 4, 5);
	tally_model_inject(d.m, f, 100);
	mt_udp_frame(f, 100, mcast, 1, 2, 3, 4, 5);
	tally_model_inject(d.m, f, 100);
	TEST_ASSERT_U64_EQ(mt_stat(&d, TALLY_STAT_RX_PKTS), 2, "");
	TEST_ASSERT_U64_EQ(mt_stat(&d, TALLY_STAT_RX_FILTERED), 2, "");
	mt_port(&d, TALLY_CTRL_ALLMULTI);
	tally_model_inject(d.m, f, 100);
	TEST_ASSERT_U64_EQ(mt_stat(&d, TALLY_STAT_RX_PKTS), 3, "allmulti");
	mt_port(&d, TALLY_CTRL_PROMISC);
	mt_udp_frame(f, 100, other, 1, 2, 3, 4, 5);
	tally_model_inject(d.m, f, 100);
	TEST_ASSERT_U64_EQ(mt_stat(&d, TALLY_STAT_RX_PKTS), 4, "promisc");
	/* runts, MTU */
	TEST_ASSERT_EQ(tally_model_inject(d.m, NULL, 0), 0, "");
	tally_model_inject(d.m, f, 13);
	TEST_ASSERT_U64_EQ(mt_stat(&d, TALLY_STAT_RX_ERR_RUNT), 2, "");
	mt_udp_frame(f, 1519, own_mac, 1, 2, 3, 4, 5);
	tally_model_inject(d.m, f, 1519);
	TEST_ASSERT_U64_EQ(mt_stat(&d, TALLY_STAT_RX_ERR_OVERSIZE), 1, "MTU+18");
	tally_model_inject(d.m, f, 1518);
	TEST_ASSERT_U64_EQ(mt_stat(&d, TALLY_STAT_RX_PKTS), 5, "MTU+18 fits");
	TEST_ASSERT_U64_EQ(mt_stat(&d, TALLY_STAT_RX_WIRE_PKTS), 7, "");
	/* 5 pending + 11 more fill the ring, the 17th is missed */
	for (i = 0; i < 12; i++)
		tally_model_inject(d.m, f, 100);
	TEST_ASSERT_U64_EQ(mt_stat(&d, TALLY_STAT_RX_MISSED), 1, "");
	TEST_ASSERT_U64_EQ(mt_rd64(&d, TALLY_RXQ_REG(0, TALLY_Q_STAT_DROPS)), 1, "");
	for (i = 0; i < 16; i++)
		TEST_ASSERT(mt_rxq_recv(&rq, r, sizeof(r), &info) > 0, "frame %u", i);
	/* miss queue outside the device, and a disabled queue */
	mt_wr(&d, TALLY_REG_STEER_MISS_QUEUE, 9);
	tally_model_inject(d.m, f, 100);
	mt_wr(&d, TALLY_REG_STEER_MISS_QUEUE, 0);
	mt_wr(&d, TALLY_RXQ_REG(0, TALLY_Q_CTRL), 0);
	tally_model_inject(d.m, f, 100);
	TEST_ASSERT_U64_EQ(mt_stat(&d, TALLY_STAT_RX_MISSED), 3, "");
	mt_close(&d);
	return TEST_SUCCESS;
}

static const struct tally_test_case cases[] = {
	TEST_CASE(test_wrap_around),
	TEST_CASE(test_tx_gather),
	TEST_CASE(test_tx_bad_chains),
	TEST_CASE(test_tx_wire_busy),
	TEST_CASE(test_tx_deferred_pending),
	TEST_CASE(test_rx_scatter),
	TEST_CASE(test_rx_filter_and_drops),
};

TEST_MAIN("model-ring", cases)
