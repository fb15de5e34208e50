/* SPDX-License-Identifier: BSD-3-Clause */
/* Completion counters: set/add commands and queue attach counting. */
#include "tally_mt.h"
#include "tally_test.h"

static const uint8_t own_mac[6] = { 0x02, 0, 0, 0, 0, 0 };

static void
ccnt_cmd(struct mt_dev *d, uint32_t idx, uint64_t val, uint32_t cmd)
{
	mt_wr(d, TALLY_REG_CCNT_IDX, idx);
	mt_wr(d, TALLY_REG_CCNT_VAL_LO, (uint32_t)val);
	mt_wr(d, TALLY_REG_CCNT_VAL_HI, (uint32_t)(val >> 32));
	mt_wr(d, TALLY_REG_CCNT_CMD, cmd);
}

static uint64_t
ccnt(struct mt_dev *d, uint32_t idx, bool err)
{
	return mt_rd64(d, mt_rd(d, TALLY_REG_CCNT_OFF) + idx * 16 + (err ? 8 : 0));
}

static int
test_ccnt_commands(void)
{
	struct mt_dev d;

	TEST_ASSERT_EQ(mt_open(&d, NULL), 0, "create");
	ccnt_cmd(&d, 2, 5, TALLY_CCNT_CMD_SET_COMP);
	ccnt_cmd(&d, 2, 3, TALLY_CCNT_CMD_ADD_COMP);
	ccnt_cmd(&d, 2, 1, TALLY_CCNT_CMD_SET_ERR);
	ccnt_cmd(&d, 2, 2, TALLY_CCNT_CMD_ADD_ERR);
	TEST_ASSERT_U64_EQ(ccnt(&d, 2, false), 8, "");
	TEST_ASSERT_U64_EQ(ccnt(&d, 2, true), 3, "");
	ccnt_cmd(&d, 63, 0x123456789ull, TALLY_CCNT_CMD_SET_COMP);
	ccnt_cmd(&d, 63, 0x100000000ull, TALLY_CCNT_CMD_ADD_COMP);
	TEST_ASSERT_U64_EQ(ccnt(&d, 63, false), 0x223456789ull, "64-bit operand");
	TEST_ASSERT_EQ(mt_rd(&d, TALLY_REG_CCNT_CMD), 0, "WO");
	TEST_ASSERT_EQ(mt_rd(&d, TALLY_REG_CCNT_IDX), 63, "RW");
	TEST_ASSERT_EQ(mt_rd(&d, TALLY_REG_FAULT_CNT), 0, "");
	ccnt_cmd(&d, 64, 1, TALLY_CCNT_CMD_SET_COMP);
	TEST_ASSERT_EQ(mt_rd(&d, TALLY_REG_FAULT_CNT), 1, "index out of range");
	TEST_ASSERT_EQ(mt_rd(&d, TALLY_REG_FAULT_CAUSE), TALLY_FAULT_BAD_REG, "");
	ccnt_cmd(&d, 2, 1, 99);
	TEST_ASSERT_EQ(mt_rd(&d, TALLY_REG_FAULT_CNT), 2, "unknown command");
	TEST_ASSERT_U64_EQ(ccnt(&d, 2, false), 8, "unchanged");
	mt_close(&d);
	return TEST_SUCCESS;
}

static int
test_ccnt_queue_attach(void)
{
	static uint8_t f[256], r[2048], outside[64];
	struct tally_tx_desc bad;
	struct mt_rx_info info;
	struct mt_dev d;
	struct mt_rxq rq;
	struct mt_txq tq;
	uint32_t i;

	TEST_ASSERT_EQ(mt_open(&d, NULL), 0, "create");
	TEST_ASSERT_EQ(mt_rxq_start(&d, &rq, 0, 5, 2048, false), 0, "rxq");
	TEST_ASSERT_EQ(mt_txq_start(&d, &tq, 0, 6), 0, "txq");
	mt_port(&d, 0);
	mt_wr(&d, TALLY_RXQ_REG(0, TALLY_Q_CCNT), TALLY_Q_CCNT_EN | 1);
	mt_wr(&d, TALLY_TXQ_REG(0, TALLY_Q_CCNT), TALLY_Q_CCNT_EN | 2);
	for (i = 0; i < 10; i++) {
		mt_udp_frame(f, 200, own_mac, i, 2, 3, 4, i);
		TEST_ASSERT_EQ(mt_tx_send(&tq, f, 200, 2), 0, "");
	}
	TEST_ASSERT_U64_EQ(ccnt(&d, 2, false), 20, "one per Tx completion");
	mt_service(&d);
	TEST_ASSERT_U64_EQ(ccnt(&d, 1, false), 10, "one per Rx completion");
	for (i = 0; i < 10; i++)
		TEST_ASSERT_EQ(mt_rxq_recv(&rq, r, sizeof(r), &info), 200, "");
	/* error completions count as errors */
	rq.ring[rq.cons & (rq.size - 1)].addr = (uint64_t)(uintptr_t)outside;
	tally_model_inject(d.m, f, 200);
	memset(&bad, 0, sizeof(bad));
	bad.addr = (uint64_t)(uintptr_t)outside;
	bad.len = 60;
	bad.flags = TALLY_TXD_F_EOP;
	TEST_ASSERT_EQ(mt_tx_reap_all(&tq, NULL), 20, "");
	TEST_ASSERT_EQ(mt_tx_post(&tq, &bad, 1), 0, "");
	TEST_ASSERT_U64_EQ(ccnt(&d, 1, true), 1, "");
	TEST_ASSERT_U64_EQ(ccnt(&d, 2, true), 1, "");
	TEST_ASSERT_U64_EQ(ccnt(&d, 1, false), 10, "");
	/* detach stops counting; a bad index faults */
	mt_wr(&d, TALLY_TXQ_REG(0, TALLY_Q_CCNT), 2);
	mt_tx_reap_all(&tq, NULL);
	TEST_ASSERT_EQ(mt_tx_send(&tq, f, 200, 1), 0, "");
	TEST_ASSERT_U64_EQ(ccnt(&d, 2, false), 20, "detached");
	mt_wr(&d, TALLY_TXQ_REG(0, TALLY_Q_CCNT), TALLY_Q_CCNT_EN | 64);
	TEST_ASSERT_EQ(mt_rd(&d, TALLY_REG_FAULT_CAUSE), TALLY_FAULT_BAD_QUEUE, "");
	mt_close(&d);
	return TEST_SUCCESS;
}

static const struct tally_test_case cases[] = {
	TEST_CASE(test_ccnt_commands),
	TEST_CASE(test_ccnt_queue_attach),
};

TEST_MAIN("model-ccnt", cases)
