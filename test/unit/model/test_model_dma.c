/* SPDX-License-Identifier: BSD-3-Clause */
/* DMA checking: bad Rx/Tx addresses and region straddles are counted faults,
 * error completions, and the queue keeps working. */
#include "tally_model_dev.h"
#include "tally_mt.h"
#include "tally_test.h"

static const uint8_t own_mac[6] = { 0x02, 0, 0, 0, 0, 0 };

static int
test_bad_rx_buffer(void)
{
	static uint8_t outside[4096], f[256], r[2048];
	struct mt_rx_info info;
	struct mt_dev d;
	struct mt_rxq rq;
	uint32_t slot;

	TEST_ASSERT_EQ(mt_open(&d, NULL), 0, "create");
	TEST_ASSERT_EQ(mt_rxq_start(&d, &rq, 0, 4, 2048, false), 0, "rxq");
	mt_port(&d, 0);
	/* descriptor 0 points outside every region, descriptor 1 at address 0 */
	rq.ring[0].addr = (uint64_t)(uintptr_t)outside;
	rq.ring[1].addr = 0;
	mt_udp_frame(f, sizeof(f), own_mac, 1, 2, 3, 4, 5);
	TEST_ASSERT_EQ(tally_model_inject(d.m, f, sizeof(f)), 0, "");
	TEST_ASSERT_EQ(tally_model_inject(d.m, f, sizeof(f)), 0, "");
	TEST_ASSERT_EQ(tally_model_inject(d.m, f, sizeof(f)), 0, "");
	TEST_ASSERT_EQ(outside[0], 0, "nothing written outside");
	TEST_ASSERT_EQ(mt_rxq_recv(&rq, r, sizeof(r), &info), -1, "");
	TEST_ASSERT(info.flags & TALLY_RXC_F_ERR, "");
	TEST_ASSERT_EQ(info.err, TALLY_RXC_ERR_DMA, "");
	TEST_ASSERT_EQ(mt_rxq_recv(&rq, r, sizeof(r), &info), -1, "");
	TEST_ASSERT_EQ(mt_rxq_recv(&rq, r, sizeof(r), &info), (int)sizeof(f), "continues");
	TEST_ASSERT(memcmp(r, f, sizeof(f)) == 0, "");
	TEST_ASSERT_EQ(mt_rd(&d, TALLY_REG_FAULT_CNT), 2, "");
	TEST_ASSERT_EQ(mt_rd(&d, TALLY_REG_FAULT_CAUSE), TALLY_FAULT_DMA, "");
	TEST_ASSERT_EQ(mt_rd(&d, TALLY_REG_FAULT_ADDR_LO), 0, "last address");
	TEST_ASSERT(mt_rd(&d, TALLY_REG_STATUS) & TALLY_STATUS_FAULT, "");
	TEST_ASSERT_U64_EQ(mt_stat(&d, TALLY_STAT_DMA_FAULTS), 2, "");
	TEST_ASSERT_U64_EQ(mt_rd64(&d, TALLY_RXQ_REG(0, TALLY_Q_STAT_ERRORS)), 2, "");
	TEST_ASSERT_U64_EQ(mt_stat(&d, TALLY_STAT_RX_PKTS), 1, "");
	/* zero buf_len is a descriptor error */
	slot = rq.cons & (rq.size - 1);
	rq.ring[slot].buf_len = 0;
	tally_model_inject(d.m, f, sizeof(f));
	TEST_ASSERT_EQ(mt_rxq_recv(&rq, r, sizeof(r), &info), -1, "");
	TEST_ASSERT_EQ(info.err, TALLY_RXC_ERR_DESC, "");
	TEST_ASSERT_U64_EQ(mt_stat(&d, TALLY_STAT_DESC_FAULTS), 1, "");
	mt_close(&d);
	return TEST_SUCCESS;
}

static int
test_bad_tx_address(void)
{
	static uint8_t outside[256], f[256], r[2048];
	struct tally_tx_desc dv[2];
	struct tally_tx_cqe c;
	struct mt_rx_info info;
	struct mt_dev d;
	struct mt_rxq rq;
	struct mt_txq tq;
	uint8_t *in;

	TEST_ASSERT_EQ(mt_open(&d, NULL), 0, "create");
	TEST_ASSERT_EQ(mt_rxq_start(&d, &rq, 0, 4, 2048, false), 0, "rxq");
	TEST_ASSERT_EQ(mt_txq_start(&d, &tq, 0, 4), 0, "txq");
	mt_port(&d, 0);
	in = mt_alloc(&d, 256);
	memset(dv, 0, sizeof(dv));
	dv[0].addr = (uint64_t)(uintptr_t)in;
	dv[0].len = 100;
	dv[1].addr = (uint64_t)(uintptr_t)outside;
	dv[1].len = 100;
	dv[1].flags = TALLY_TXD_F_EOP;
	TEST_ASSERT_EQ(mt_tx_post(&tq, dv, 2), 0, "");
	TEST_ASSERT_EQ(mt_tx_reap(&tq, &c), 1, "");
	TEST_ASSERT_EQ(c.status, TALLY_TXC_ERR_DMA, "status on every segment");
	TEST_ASSERT_EQ(mt_tx_reap(&tq, &c), 1, "");
	TEST_ASSERT_EQ(c.status, TALLY_TXC_ERR_DMA, "");
	dv[0].addr = ~0ull - 10;	/* wraps the address space */
	dv[0].flags = TALLY_TXD_F_EOP;
	TEST_ASSERT_EQ(mt_tx_post(&tq, dv, 1), 0, "");
	TEST_ASSERT_EQ(mt_tx_reap(&tq, &c), 1, "");
	TEST_ASSERT_EQ(c.status, TALLY_TXC_ERR_DMA, "");
	TEST_ASSERT_U64_EQ(mt_stat(&d, TALLY_STAT_DMA_FAULTS), 2, "");
	TEST_ASSERT_U64_EQ(mt_stat(&d, TALLY_STAT_TX_PKTS), 0, "");
	TEST_ASSERT_U64_EQ(mt_rd64(&d, TALLY_TXQ_REG(0, TALLY_Q_STAT_ERRORS)), 2, "");
	/* the queue continues */
	mt_udp_frame(f, sizeof(f), own_mac, 1, 2, 3, 4, 5);
	TEST_ASSERT_EQ(mt_tx_send(&tq, f, sizeof(f), 2), 0, "");
	TEST_ASSERT_EQ(mt_tx_reap_all(&tq, NULL), 2, "");
	mt_service(&d);
	TEST_ASSERT_EQ(mt_rxq_recv(&rq, r, sizeof(r), &info), (int)sizeof(f), "");
	mt_close(&d);
	return TEST_SUCCESS;
}

static int
test_region_straddle(void)
{
	static uint8_t f[512], r[2048];
	struct tally_tx_desc dv;
	struct tally_tx_cqe c;
	struct mt_rx_info info;
	struct mt_dev d;
	struct mt_rxq rq;
	struct mt_txq tq;
	uint64_t end;

	TEST_ASSERT_EQ(mt_open(&d, NULL), 0, "create");
	TEST_ASSERT_EQ(mt_rxq_start(&d, &rq, 0, 4, 2048, false), 0, "rxq");
	TEST_ASSERT_EQ(mt_txq_start(&d, &tq, 0, 4), 0, "txq");
	mt_port(&d, 0);
	end = (uint64_t)(uintptr_t)d.arena + MT_ARENA_LEN;
	/* Tx segment whose last 10 bytes lie past the region */
	memset(&dv, 0, sizeof(dv));
	dv.addr = end - 90;
	dv.len = 100;
	dv.flags = TALLY_TXD_F_EOP;
	TEST_ASSERT_EQ(mt_tx_post(&tq, &dv, 1), 0, "");
	TEST_ASSERT_EQ(mt_tx_reap(&tq, &c), 1, "");
	TEST_ASSERT_EQ(c.status, TALLY_TXC_ERR_DMA, "");
	TEST_ASSERT_EQ(mt_rd(&d, TALLY_REG_FAULT_ADDR_LO), (uint32_t)(end - 90), "");
	TEST_ASSERT_EQ(mt_rd(&d, TALLY_REG_FAULT_ADDR_HI), (uint32_t)((end - 90) >> 32), "");
	/* exactly up to the end is fine */
	dv.addr = end - 100;
	mt_udp_frame(d.arena + MT_ARENA_LEN - 100, 100, own_mac, 1, 2, 3, 4, 5);
	TEST_ASSERT_EQ(mt_tx_post(&tq, &dv, 1), 0, "");
	TEST_ASSERT_EQ(mt_tx_reap(&tq, &c), 1, "");
	TEST_ASSERT_EQ(c.status, TALLY_TXC_OK, "");
	/* Rx buffer straddling the end: 512-byte frame into [end-256, end+256) */
	mt_service(&d);
	TEST_ASSERT_EQ(mt_rxq_recv(&rq, r, sizeof(r), &info), 100, "");
	rq.ring[rq.cons & (rq.size - 1)].addr = end - 256;
	mt_udp_frame(f, sizeof(f), own_mac, 1, 2, 3, 4, 5);
	tally_model_inject(d.m, f, sizeof(f));
	TEST_ASSERT_EQ(mt_rxq_recv(&rq, r, sizeof(r), &info), -1, "");
	TEST_ASSERT_EQ(info.err, TALLY_RXC_ERR_DMA, "");
	/* a second region right after the first is still a different region */
	TEST_ASSERT_U64_EQ(mt_stat(&d, TALLY_STAT_DMA_FAULTS), 2, "");
	tally_model_inject(d.m, f, sizeof(f));
	TEST_ASSERT_EQ(mt_rxq_recv(&rq, r, sizeof(r), &info), (int)sizeof(f), "continues");
	mt_close(&d);
	return TEST_SUCCESS;
}

static int
test_region_slots(void)
{
	static uint8_t a[4096];
	struct mt_dev d;
	uint64_t base = (uint64_t)(uintptr_t)a;

	TEST_ASSERT_EQ(mt_open(&d, NULL), 0, "create");
	TEST_ASSERT(tally_model_dma(d.m, base, 16) == NULL, "not mapped");
	mt_wr(&d, TALLY_REG_DMA_ADDR_LO(31), (uint32_t)base);
	mt_wr(&d, TALLY_REG_DMA_ADDR_HI(31), (uint32_t)(base >> 32));
	mt_wr(&d, TALLY_REG_DMA_LEN_LO(31), sizeof(a));
	TEST_ASSERT(tally_model_dma(d.m, base, 16) == NULL, "not before LEN_HI");
	mt_wr(&d, TALLY_REG_DMA_LEN_HI(31), 0);
	TEST_ASSERT(tally_model_dma(d.m, base, sizeof(a)) == a, "whole region");
	TEST_ASSERT(tally_model_dma(d.m, base + 1, sizeof(a)) == NULL, "one past");
	TEST_ASSERT(tally_model_dma(d.m, base - 1, 2) == NULL, "one before");
	mt_wr(&d, TALLY_REG_DMA_LEN_LO(31), 0);
	mt_wr(&d, TALLY_REG_DMA_LEN_HI(31), 0);
	TEST_ASSERT(tally_model_dma(d.m, base, 16) == NULL, "removed");
	TEST_ASSERT_U64_EQ(mt_stat(&d, TALLY_STAT_DMA_FAULTS), 5, "");
	mt_close(&d);
	return TEST_SUCCESS;
}

static const struct tally_test_case cases[] = {
	TEST_CASE(test_bad_rx_buffer),
	TEST_CASE(test_bad_tx_address),
	TEST_CASE(test_region_straddle),
	TEST_CASE(test_region_slots),
};

TEST_MAIN("model-dma", cases)
