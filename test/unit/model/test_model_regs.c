/* SPDX-License-Identifier: BSD-3-Clause */
/* Register semantics: identity, RO/W1C/WO/unknown, reset, fence, layout. */
#include <tally/tally_cnt_bank.h>

#include "tally_model_dev.h"
#include "tally_mt.h"
#include "tally_test.h"

static int
test_identity(void)
{
	struct tally_model_config cfg;
	struct mt_dev d;
	uint32_t caps;

	mt_config(&cfg);
	cfg.rx_queues = 3;
	cfg.tx_queues = 5;
	cfg.max_frame = 2000;
	cfg.mac[5] = 0x42;
	TEST_ASSERT_EQ(mt_open(&d, &cfg), 0, "create");
	TEST_ASSERT_EQ(mt_rd(&d, TALLY_REG_SIG), TALLY_SIGNATURE, "");
	TEST_ASSERT_EQ(mt_rd(&d, TALLY_REG_VERSION), 0x00020003, "");
	caps = mt_rd(&d, TALLY_REG_CAPS);
	TEST_ASSERT_EQ(caps, TALLY_CAP_RSS | TALLY_CAP_RX_SCATTER | TALLY_CAP_TX_GATHER |
		       TALLY_CAP_STEER | TALLY_CAP_CNT | TALLY_CAP_CCNT |
		       TALLY_CAP_XLT | TALLY_CAP_SWITCH, "one port: the switch too");
	TEST_ASSERT_EQ(mt_rd(&d, TALLY_REG_PORT), 0 | 1 << 8, "port 0 of 1");
	TEST_ASSERT_EQ(mt_rd(&d, TALLY_REG_PORT_STRIDE), 0, "one port");
	TEST_ASSERT_EQ(mt_rd(&d, TALLY_REG_BAR_SIZE), d.io.bar_len, "");
	TEST_ASSERT_EQ(mt_rd(&d, TALLY_REG_QUEUES), 3 | 5 << 8, "");
	TEST_ASSERT_EQ(mt_rd(&d, TALLY_REG_RING_LIMITS), 4 | 15 << 8, "");
	TEST_ASSERT_EQ(mt_rd(&d, TALLY_REG_CNT_NUM), 4096, "");
	TEST_ASSERT_EQ(mt_rd(&d, TALLY_REG_CNT_OFF), TALLY_CNT_BANK_OFF, "");
	TEST_ASSERT_EQ(mt_rd(&d, TALLY_REG_CCNT_NUM), 64, "");
	TEST_ASSERT_EQ(mt_rd(&d, TALLY_REG_CCNT_OFF), TALLY_CNT_BANK_OFF + 4096 * 16, "");
	TEST_ASSERT_EQ(mt_rd(&d, TALLY_REG_CCNT_OFF) % 4096, 0, "4K aligned");
	TEST_ASSERT(mt_rd(&d, TALLY_REG_CCNT_OFF) + 64 * 16 <= d.io.bar_len, "fits");
	TEST_ASSERT_EQ(mt_rd(&d, TALLY_REG_MAX_FRAME), 2000, "");
	TEST_ASSERT_EQ(mt_rd(&d, TALLY_REG_XLT_MAX), 1u << 20, "");
	TEST_ASSERT_EQ(mt_rd(&d, TALLY_REG_XLT_COUNT), 1, "the arena");
	TEST_ASSERT_EQ(mt_rd(&d, TALLY_REG_MAC_LO), 0x02, "");
	TEST_ASSERT_EQ(mt_rd(&d, TALLY_REG_MAC_HI), 0x4200, "");
	TEST_ASSERT_EQ(mt_rd(&d, TALLY_REG_STATUS),
		       TALLY_STATUS_READY | TALLY_STATUS_LINK_UP, "");
	TEST_ASSERT_EQ(mt_rd(&d, TALLY_REG_MTU), 1500, "");
	TEST_ASSERT(d.io.bar != NULL && ((uintptr_t)d.io.bar & 4095) == 0, "aligned BAR");
	TEST_ASSERT(d.io.ops->service != NULL && d.io.ops->name != NULL, "");
	mt_close(&d);
	return TEST_SUCCESS;
}

static int
test_ro_and_unknown(void)
{
	static const uint32_t bad[] = {
		TALLY_REG_SIG, TALLY_REG_CAPS, TALLY_REG_STATUS, TALLY_REG_FAULT_CNT,
		TALLY_REG_FENCE_DONE, TALLY_REG_STAT(TALLY_STAT_RX_PKTS),
		TALLY_RXQ_REG(0, TALLY_Q_HEAD), TALLY_RXQ_REG(0, TALLY_Q_STAT_PKTS),
		TALLY_REG_MAC_LO, TALLY_REG_MAC_HI, TALLY_REG_RSS_HF + 4,
		0x0038, 0x0202 /* unaligned */, TALLY_RXQ_REG(2, TALLY_Q_CTRL),
		TALLY_TXQ_REG(15, TALLY_Q_RING_LO), TALLY_CNT_BANK_OFF, 0x7ffffff0,
	};
	struct tally_model_config cfg;
	struct mt_dev d;
	uint32_t i;

	mt_config(&cfg);
	cfg.rx_queues = 2;
	cfg.tx_queues = 2;
	TEST_ASSERT_EQ(mt_open(&d, &cfg), 0, "create");
	for (i = 0; i < TALLY_ARRAY_SIZE(bad); i++) {
		mt_wr(&d, bad[i], 0xdeadbeef);
		TEST_ASSERT_EQ(mt_rd(&d, TALLY_REG_FAULT_CNT), i + 1, "offset 0x%x", bad[i]);
		TEST_ASSERT_EQ(mt_rd(&d, TALLY_REG_FAULT_CAUSE), TALLY_FAULT_BAD_REG, "");
		TEST_ASSERT_EQ(mt_rd(&d, TALLY_REG_FAULT_ADDR_LO), bad[i], "");
	}
	TEST_ASSERT_EQ(mt_rd(&d, TALLY_REG_SIG), TALLY_SIGNATURE, "RO write ignored");
	TEST_ASSERT_EQ(mt_rd(&d, TALLY_REG_FENCE_DONE), 0, "");
	TEST_ASSERT(mt_rd(&d, TALLY_REG_STATUS) & TALLY_STATUS_FAULT, "");
	TEST_ASSERT_EQ(mt_rd(&d, 0x7ffffff0), 0, "read past the BAR");
	/* W1C: writing other bits keeps the cause; writing its bits clears it */
	mt_wr(&d, TALLY_REG_FAULT_CAUSE, 0x1);
	TEST_ASSERT_EQ(mt_rd(&d, TALLY_REG_FAULT_CAUSE), TALLY_FAULT_BAD_REG, "");
	mt_wr(&d, TALLY_REG_FAULT_CAUSE, TALLY_FAULT_BAD_REG);
	TEST_ASSERT_EQ(mt_rd(&d, TALLY_REG_FAULT_CAUSE), 0, "");
	TEST_ASSERT(!(mt_rd(&d, TALLY_REG_STATUS) & TALLY_STATUS_FAULT), "");
	TEST_ASSERT_EQ(mt_rd(&d, TALLY_REG_FAULT_CNT), TALLY_ARRAY_SIZE(bad), "count kept");
	mt_close(&d);
	return TEST_SUCCESS;
}

static int
test_rw_wo_fence(void)
{
	struct mt_dev d;

	TEST_ASSERT_EQ(mt_open(&d, NULL), 0, "create");
	mt_wr(&d, TALLY_REG_MTU, 9000);
	mt_wr(&d, TALLY_REG_RSS_RETA(31), 0x01020304);
	mt_wr(&d, TALLY_REG_STEER_ROOT_LO, 0x1000);
	TEST_ASSERT_EQ(mt_rd(&d, TALLY_REG_MTU), 9000, "");
	TEST_ASSERT_EQ(mt_rd(&d, TALLY_REG_RSS_RETA(31)), 0x01020304, "");
	TEST_ASSERT_EQ(tally_model_reg(d.m, TALLY_REG_STEER_ROOT_LO), 0x1000, "");
	mt_wr(&d, TALLY_REG_FENCE, 77);
	TEST_ASSERT_EQ(mt_rd(&d, TALLY_REG_FENCE), 0, "WO reads 0");
	TEST_ASSERT_EQ(tally_model_reg(d.m, TALLY_REG_FENCE), 77, "last written");
	TEST_ASSERT_EQ(mt_rd(&d, TALLY_REG_FENCE_DONE), 77, "fence done");
	mt_wr(&d, TALLY_RXQ_REG(0, TALLY_Q_DOORBELL), 5);
	TEST_ASSERT_EQ(mt_rd(&d, TALLY_RXQ_REG(0, TALLY_Q_DOORBELL)), 0, "WO reads 0");
	TEST_ASSERT_EQ(mt_rd(&d, TALLY_REG_FAULT_CNT), 0, "no fault");
	mt_close(&d);
	return TEST_SUCCESS;
}

static int
test_reset(void)
{
	struct mt_dev d;
	struct mt_rxq rq;
	uint32_t ccnt_off;

	TEST_ASSERT_EQ(mt_open(&d, NULL), 0, "create");
	TEST_ASSERT_EQ(mt_rxq_start(&d, &rq, 0, 4, 2048, false), 0, "rxq");
	mt_port(&d, TALLY_CTRL_PROMISC | TALLY_CTRL_RSS);
	mt_wr(&d, TALLY_REG_MTU, 4000);
	mt_wr(&d, TALLY_REG_RSS_KEY(3), 0xabcd);
	mt_wr(&d, 0x0038, 1);	/* a fault */
	/* counters: one flow counter hit (device-internal entry) and a ccnt set */
	tally_model_cnt_add(d.m, 7, 100);
	ccnt_off = mt_rd(&d, TALLY_REG_CCNT_OFF);
	mt_wr(&d, TALLY_REG_CCNT_IDX, 3);
	mt_wr(&d, TALLY_REG_CCNT_VAL_LO, 9);
	mt_wr(&d, TALLY_REG_CCNT_CMD, TALLY_CCNT_CMD_SET_COMP);
	TEST_ASSERT_U64_EQ(mt_rd64(&d, TALLY_CNT_BANK_OFF + 7 * 16), 1, "");
	TEST_ASSERT_U64_EQ(mt_rd64(&d, TALLY_CNT_BANK_OFF + 7 * 16 + 8), 100, "");
	TEST_ASSERT_U64_EQ(mt_rd64(&d, ccnt_off + 3 * 16), 9, "");
	{
		uint8_t f[64];

		mt_udp_frame(f, sizeof(f), (const uint8_t[6]){ 2, 0, 0, 0, 0, 0 },
			     1, 2, 3, 4, 0);
		TEST_ASSERT_EQ(tally_model_inject(d.m, f, sizeof(f)), 0, "");
	}
	TEST_ASSERT_U64_EQ(mt_stat(&d, TALLY_STAT_RX_PKTS), 1, "");

	mt_wr(&d, TALLY_REG_RESET, TALLY_RESET_MAGIC);
	TEST_ASSERT_EQ(mt_rd(&d, TALLY_REG_RESET), 0, "reads back 0");
	TEST_ASSERT_EQ(mt_rd(&d, TALLY_REG_STATUS),
		       TALLY_STATUS_READY | TALLY_STATUS_LINK_UP, "");
	TEST_ASSERT_EQ(mt_rd(&d, TALLY_REG_CTRL), 0, "");
	TEST_ASSERT_EQ(mt_rd(&d, TALLY_REG_MTU), 1500, "");
	TEST_ASSERT_EQ(mt_rd(&d, TALLY_REG_RSS_KEY(3)), 0, "");
	TEST_ASSERT_EQ(mt_rd(&d, TALLY_REG_FAULT_CNT), 0, "");
	TEST_ASSERT_EQ(mt_rd(&d, TALLY_REG_XLT_COUNT), 0, "translations cleared");
	TEST_ASSERT_EQ(mt_rd(&d, TALLY_RXQ_REG(0, TALLY_Q_CTRL)), 0, "queue off");
	TEST_ASSERT_U64_EQ(mt_stat(&d, TALLY_STAT_RX_PKTS), 0, "");
	TEST_ASSERT_U64_EQ(mt_rd64(&d, TALLY_RXQ_REG(0, TALLY_Q_STAT_PKTS)), 0, "");
	TEST_ASSERT_U64_EQ(mt_rd64(&d, TALLY_CNT_BANK_OFF + 7 * 16), 0, "");
	TEST_ASSERT_U64_EQ(mt_rd64(&d, TALLY_CNT_BANK_OFF + 7 * 16 + 8), 0, "");
	TEST_ASSERT_U64_EQ(mt_rd64(&d, ccnt_off + 3 * 16), 0, "");
	TEST_ASSERT_EQ(mt_rd(&d, TALLY_REG_SIG), TALLY_SIGNATURE, "identity kept");
	TEST_ASSERT_EQ(mt_rd(&d, TALLY_REG_CNT_NUM), 4096, "identity kept");
	/* regions are gone: enabling a queue now faults */
	mt_wr(&d, TALLY_RXQ_REG(0, TALLY_Q_SIZE), 4);
	mt_wr(&d, TALLY_RXQ_REG(0, TALLY_Q_CTRL), TALLY_Q_CTRL_EN);
	TEST_ASSERT_EQ(mt_rd(&d, TALLY_RXQ_REG(0, TALLY_Q_CTRL)), 0, "stays off");
	TEST_ASSERT_EQ(mt_rd(&d, TALLY_REG_FAULT_CAUSE), TALLY_FAULT_BAD_QUEUE, "");
	mt_close(&d);
	return TEST_SUCCESS;
}

static int
test_queue_enable_checks(void)
{
	static const struct {
		uint32_t log2;
		uint64_t ring_delta;	/* from a valid ring */
	} bad[] = { { 3, 0 }, { 16, 0 }, { 0, 0 }, { 4, 8 }, { 10, 1ull << 40 } };
	struct mt_dev d;
	uint64_t ring, cq;
	uint32_t i, base = TALLY_TXQ_REG(1, 0);

	TEST_ASSERT_EQ(mt_open(&d, NULL), 0, "create");
	ring = (uint64_t)(uintptr_t)mt_alloc(&d, 1 << 20);
	cq = (uint64_t)(uintptr_t)mt_alloc(&d, 1 << 20);
	for (i = 0; i < TALLY_ARRAY_SIZE(bad); i++) {
		uint64_t r = ring + bad[i].ring_delta;

		mt_wr(&d, base + TALLY_Q_RING_LO, (uint32_t)r);
		mt_wr(&d, base + TALLY_Q_RING_HI, (uint32_t)(r >> 32));
		mt_wr(&d, base + TALLY_Q_CQ_LO, (uint32_t)cq);
		mt_wr(&d, base + TALLY_Q_CQ_HI, (uint32_t)(cq >> 32));
		mt_wr(&d, base + TALLY_Q_SIZE, bad[i].log2);
		mt_wr(&d, base + TALLY_Q_CTRL, TALLY_Q_CTRL_EN);
		TEST_ASSERT_EQ(mt_rd(&d, base + TALLY_Q_CTRL), 0, "case %u", i);
		TEST_ASSERT_EQ(mt_rd(&d, TALLY_REG_FAULT_CAUSE), TALLY_FAULT_BAD_QUEUE, "");
		TEST_ASSERT_EQ(mt_rd(&d, TALLY_REG_FAULT_CNT), i + 1, "");
	}
	mt_wr(&d, base + TALLY_Q_RING_LO, (uint32_t)ring);
	mt_wr(&d, base + TALLY_Q_RING_HI, (uint32_t)(ring >> 32));
	mt_wr(&d, base + TALLY_Q_SIZE, 15);
	mt_wr(&d, base + TALLY_Q_CTRL, TALLY_Q_CTRL_EN);
	TEST_ASSERT_EQ(mt_rd(&d, base + TALLY_Q_CTRL), TALLY_Q_CTRL_EN, "max size ok");
	TEST_ASSERT_EQ(mt_rd(&d, base + TALLY_Q_HEAD), 0, "");
	mt_close(&d);
	return TEST_SUCCESS;
}

/* Frame to dst injected: 1 when it reached the Rx queue, 0 when filtered. */
static int
mac_pass(struct mt_dev *d, const uint8_t dst[6])
{
	uint64_t pk = mt_stat(d, TALLY_STAT_RX_PKTS), fl = mt_stat(d, TALLY_STAT_RX_FILTERED);
	uint8_t f[64];

	mt_udp_frame(f, sizeof(f), dst, 1, 2, 3, 4, 0);
	if (tally_model_inject(d->m, f, sizeof(f)) != 0)
		return -1;
	if (mt_stat(d, TALLY_STAT_RX_PKTS) == pk + 1 && mt_stat(d, TALLY_STAT_RX_FILTERED) == fl)
		return 1;
	if (mt_stat(d, TALLY_STAT_RX_PKTS) == pk && mt_stat(d, TALLY_STAT_RX_FILTERED) == fl + 1)
		return 0;
	return -1;
}

static void
mac_entry(struct mt_dev *d, unsigned int i, const uint8_t m[6], bool valid)
{
	mt_wr(d, TALLY_REG_MAC_FILTER_LO(i), (uint32_t)m[0] | (uint32_t)m[1] << 8 |
	      (uint32_t)m[2] << 16 | (uint32_t)m[3] << 24);
	mt_wr(d, TALLY_REG_MAC_FILTER_HI(i), (uint32_t)m[4] | (uint32_t)m[5] << 8 |
	      (valid ? TALLY_MAC_FILTER_VALID : 0));
}

/* The unicast MAC filter table: reset state, match, clear, primary, reset. */
static int
test_mac_filter(void)
{
	static const uint8_t fac[6] = { 2, 0, 0, 0, 0, 0x42 };
	static const uint8_t x[6] = { 2, 9, 9, 9, 9, 1 };
	static const uint8_t y[6] = { 2, 9, 9, 9, 9, 2 };
	static const uint8_t mc[6] = { 1, 0, 0x5e, 0, 0, 7 };
	struct tally_model_config cfg;
	struct mt_dev d;
	struct mt_rxq rq;
	unsigned int i;

	mt_config(&cfg);
	cfg.mac[5] = 0x42;
	TEST_ASSERT_EQ(mt_open(&d, &cfg), 0, "create");
	TEST_ASSERT_EQ(mt_rxq_start(&d, &rq, 0, 6, 2048, false), 0, "rxq");
	mt_port(&d, 0);
	TEST_ASSERT_EQ(mt_rd(&d, TALLY_REG_MAC_FILTER_LO(0)), 0x02, "entry 0 = factory");
	TEST_ASSERT_EQ(mt_rd(&d, TALLY_REG_MAC_FILTER_HI(0)), 0x4200 | TALLY_MAC_FILTER_VALID, "");
	for (i = 1; i < TALLY_MAC_FILTERS; i++)
		TEST_ASSERT_EQ(mt_rd(&d, TALLY_REG_MAC_FILTER_HI(i)), 0, "entry %u clear", i);
	TEST_ASSERT_EQ(mac_pass(&d, fac), 1, "factory");
	TEST_ASSERT_EQ(mac_pass(&d, x), 0, "unknown");
	mac_entry(&d, 15, x, false);
	TEST_ASSERT_EQ(mac_pass(&d, x), 0, "written, not valid");
	mac_entry(&d, 15, x, true);
	TEST_ASSERT_EQ(mac_pass(&d, x), 1, "entry 15");
	TEST_ASSERT_EQ(mac_pass(&d, y), 0, "other");
	mac_entry(&d, 3, mc, true);
	TEST_ASSERT_EQ(mac_pass(&d, mc), 1, "multicast entry, no ALLMULTI");
	mt_wr(&d, TALLY_REG_MAC_FILTER_HI(15), 0);
	TEST_ASSERT_EQ(mac_pass(&d, x), 0, "entry 15 cleared");
	mac_entry(&d, 0, y, true);
	TEST_ASSERT_EQ(mac_pass(&d, fac), 0, "old primary");
	TEST_ASSERT_EQ(mac_pass(&d, y), 1, "new primary");
	TEST_ASSERT_EQ(mt_rd(&d, TALLY_REG_MAC_LO), 0x02, "factory MAC kept");
	TEST_ASSERT_EQ(mt_rd(&d, TALLY_REG_FAULT_CNT), 0, "no fault");
	mt_wr(&d, TALLY_REG_RESET, TALLY_RESET_MAGIC);
	TEST_ASSERT_EQ(mt_rd(&d, TALLY_REG_MAC_FILTER_HI(0)), 0x4200 | TALLY_MAC_FILTER_VALID,
		       "reset: factory primary");
	TEST_ASSERT_EQ(mt_rd(&d, TALLY_REG_MAC_FILTER_HI(3)), 0, "reset: entry 3 clear");
	mt_close(&d);
	return TEST_SUCCESS;
}

static void
mc_entry(struct mt_dev *d, unsigned int i, const uint8_t m[6], bool valid)
{
	mt_wr(d, TALLY_REG_MC_FILTER_LO(i), (uint32_t)m[0] | (uint32_t)m[1] << 8 |
	      (uint32_t)m[2] << 16 | (uint32_t)m[3] << 24);
	mt_wr(d, TALLY_REG_MC_FILTER_HI(i), (uint32_t)m[4] | (uint32_t)m[5] << 8 |
	      (valid ? TALLY_MAC_FILTER_VALID : 0));
}

/* The multicast filter table (2.2): apart from the unicast one, cleared by
 * reset. */
static int
test_mc_filter(void)
{
	static const uint8_t mc[6] = { 1, 0, 0x5e, 0, 0, 7 };
	static const uint8_t mc2[6] = { 1, 0, 0x5e, 0, 0, 8 };
	struct tally_model_config cfg;
	struct mt_dev d;
	struct mt_rxq rq;
	unsigned int i;

	mt_config(&cfg);
	TEST_ASSERT_EQ(mt_open(&d, &cfg), 0, "create");
	TEST_ASSERT_EQ(mt_rxq_start(&d, &rq, 0, 6, 2048, false), 0, "rxq");
	mt_port(&d, 0);
	for (i = 0; i < TALLY_MC_FILTERS; i++)
		TEST_ASSERT_EQ(mt_rd(&d, TALLY_REG_MC_FILTER_HI(i)), 0, "entry %u clear", i);
	TEST_ASSERT_EQ(mac_pass(&d, mc), 0, "no entry");
	mc_entry(&d, 15, mc, false);
	TEST_ASSERT_EQ(mac_pass(&d, mc), 0, "written, not valid");
	mc_entry(&d, 15, mc, true);
	TEST_ASSERT_EQ(mac_pass(&d, mc), 1, "entry 15");
	TEST_ASSERT_EQ(mac_pass(&d, mc2), 0, "other");
	/* both tables full: every entry of each still counts */
	for (i = 0; i < TALLY_MC_FILTERS; i++) {
		uint8_t a[6] = { 1, 0, 0x5e, 1, 0, (uint8_t)i };

		mc_entry(&d, i, a, true);
	}
	for (i = 1; i < TALLY_MAC_FILTERS; i++) {
		uint8_t a[6] = { 2, 0, 0, 1, 0, (uint8_t)i };

		mac_entry(&d, i, a, true);
	}
	for (i = 0; i < TALLY_MC_FILTERS; i++) {
		uint8_t a[6] = { 1, 0, 0x5e, 1, 0, (uint8_t)i };
		uint8_t u[6] = { 2, 0, 0, 1, 0, (uint8_t)i };

		TEST_ASSERT_EQ(mac_pass(&d, a), 1, "multicast entry %u", i);
		if (i != 0)
			TEST_ASSERT_EQ(mac_pass(&d, u), 1, "unicast entry %u", i);
	}
	TEST_ASSERT_EQ(mac_pass(&d, mc), 0, "entry 15 replaced");
	TEST_ASSERT_EQ(mt_rd(&d, TALLY_REG_FAULT_CNT), 0, "no fault");
	mt_wr(&d, TALLY_REG_RESET, TALLY_RESET_MAGIC);
	TEST_ASSERT_EQ(mt_rd(&d, TALLY_REG_MC_FILTER_HI(3)), 0, "reset: entry 3 clear");
	mt_close(&d);
	return TEST_SUCCESS;
}

/* CTRL.LINK_DOWN (2.2): STATUS.LINK_UP follows it, nothing is received while
 * it is set, reset clears it. */
static int
test_link_down(void)
{
	static const uint8_t bc[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	struct tally_model_config cfg;
	struct mt_dev d;
	struct mt_rxq rq;

	mt_config(&cfg);
	TEST_ASSERT_EQ(mt_open(&d, &cfg), 0, "create");
	TEST_ASSERT_EQ(mt_rxq_start(&d, &rq, 0, 6, 2048, false), 0, "rxq");
	mt_port(&d, 0);
	TEST_ASSERT_EQ(mac_pass(&d, bc), 1, "link up");
	mt_wr(&d, TALLY_REG_CTRL, mt_rd(&d, TALLY_REG_CTRL) | TALLY_CTRL_LINK_DOWN);
	TEST_ASSERT_EQ(mt_rd(&d, TALLY_REG_STATUS), TALLY_STATUS_READY, "link down");
	TEST_ASSERT_EQ(mac_pass(&d, bc), -1, "nothing taken while down");
	mt_wr(&d, TALLY_REG_CTRL, mt_rd(&d, TALLY_REG_CTRL) & ~TALLY_CTRL_LINK_DOWN);
	TEST_ASSERT_EQ(mt_rd(&d, TALLY_REG_STATUS),
		       TALLY_STATUS_READY | TALLY_STATUS_LINK_UP, "link up again");
	TEST_ASSERT_EQ(mac_pass(&d, bc), 1, "up again");
	mt_wr(&d, TALLY_REG_CTRL, TALLY_CTRL_ENABLE | TALLY_CTRL_LINK_DOWN);
	mt_wr(&d, TALLY_REG_RESET, TALLY_RESET_MAGIC);
	TEST_ASSERT_EQ(mt_rd(&d, TALLY_REG_CTRL), 0, "reset clears CTRL");
	TEST_ASSERT_EQ(mt_rd(&d, TALLY_REG_STATUS),
		       TALLY_STATUS_READY | TALLY_STATUS_LINK_UP, "reset: link up");
	TEST_ASSERT_EQ(mt_rd(&d, TALLY_REG_FAULT_CNT), 0, "no fault");
	mt_close(&d);
	return TEST_SUCCESS;
}

static const struct tally_test_case cases[] = {
	TEST_CASE(test_identity),
	TEST_CASE(test_ro_and_unknown),
	TEST_CASE(test_rw_wo_fence),
	TEST_CASE(test_reset),
	TEST_CASE(test_queue_enable_checks),
	TEST_CASE(test_mac_filter),
	TEST_CASE(test_mc_filter),
	TEST_CASE(test_link_down),
};

TEST_MAIN("model-regs", cases)
