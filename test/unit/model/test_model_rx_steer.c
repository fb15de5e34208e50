/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The device's Rx path skips classification while the root table it cached
 * has no matchers: frames still go to the miss queue, and a matcher
 * published later (host memory only, no register write) is seen by the very
 * next frame, as is its removal.
 */
#include "tally_mt.h"
#include "tally_test.h"
#include "steer/steer_test_util.h"

static const uint8_t own_mac[6] = { 0x02, 0, 0, 0, 0, 0 };

/* Inject n UDP frames to dport; count what arrives on queues 0 and 1. */
static void
send(struct mt_dev *d, struct mt_rxq *q0, struct mt_rxq *q1, uint16_t dport,
     uint32_t n, uint32_t got[2])
{
	static uint8_t f[128], r[2048];
	struct mt_rx_info info;
	uint32_t i;

	got[0] = got[1] = 0;
	for (i = 0; i < n; i++) {
		mt_udp_frame(f, 100, own_mac, 1, 2, 7, dport, i);
		tally_model_inject(d->m, f, 100);
	}
	while (mt_rxq_recv(q0, r, sizeof(r), &info) > 0)
		got[0]++;
	while (mt_rxq_recv(q1, r, sizeof(r), &info) > 0)
		got[1]++;
}

static int
test_matcher_after_idle_bursts(void)
{
	struct tally_cnt_pool_config pc = { 0 };
	struct tally_steer_config sc = { 0 };
	struct tally_steer_action act = { .fate = TALLY_STEER_FATE_QUEUE, .arg = 1 };
	struct tally_steer_matcher *mt;
	struct tally_steer_table *t;
	struct tally_steer_ctx *ctx;
	struct tally_cnt_pool *pool;
	struct tally_steer_rule *r;
	struct tally_match_key mk, v;
	struct tally_fence fence;
	struct mt_rxq q0, q1;
	struct arena a;
	struct mt_dev d;
	uint32_t got[2];
	uint64_t base;

	TEST_ASSERT_EQ(mt_open(&d, NULL), 0, "create");
	TEST_ASSERT_EQ(mt_rxq_start(&d, &q0, 0, 6, 2048, false), 0, "rxq 0");
	TEST_ASSERT_EQ(mt_rxq_start(&d, &q1, 1, 6, 2048, false), 0, "rxq 1");
	/* the steering arena mapped too (the rings are in the mt arena) */
	TEST_ASSERT_EQ(arena_init(&a, 16u << 20), 0, "");
	base = (uint64_t)(uintptr_t)a.base;
	TEST_ASSERT_EQ(mt_map(&d, base, base, a.len), TALLY_XLT_OK, "");
	mt_port(&d, TALLY_CTRL_STEER | TALLY_CTRL_PROMISC);
	tally_fence_init(&fence, &d.io);
	pc.io = &d.io;
	pc.fence = &fence;
	TEST_ASSERT_EQ(tally_cnt_pool_create(&pc, &pool), 0, "");
	sc.io = &d.io;
	sc.fence = &fence;
	sc.cnt = pool;
	sc.mem = arena_ops(&a);
	TEST_ASSERT_EQ(tally_steer_ctx_create(&sc, &ctx), 0, "");
	TEST_ASSERT_EQ(tally_steer_table_create(ctx, 0, &t), 0, "");

	/* empty root table: the first frame builds the device's cache, the
	 * next ones skip classification; all take the miss queue */
	send(&d, &q0, &q1, 80, 3, got);
	TEST_ASSERT(got[0] == 3 && got[1] == 0, "no rules: %u/%u", got[0], got[1]);
	send(&d, &q0, &q1, 80, 2, got);
	TEST_ASSERT(got[0] == 2 && got[1] == 0, "no rules: %u/%u", got[0], got[1]);

	memset(&mk, 0, sizeof(mk));
	key_put(&mk, TALLY_MK(TALLY_MS_OUTER, TALLY_L24_UDP_DPORT), 0xffff, 2);
	TEST_ASSERT_EQ(tally_steer_matcher_create(t, 1, &mk, &mt), 0, "");
	memset(&v, 0, sizeof(v));
	key_put(&v, TALLY_MK(TALLY_MS_OUTER, TALLY_L24_UDP_DPORT), 80, 2);
	TEST_ASSERT_EQ(tally_steer_rule_insert(mt, &v, &act, &r), 0, "");
	send(&d, &q0, &q1, 80, 4, got);
	TEST_ASSERT(got[0] == 0 && got[1] == 4, "rule published: %u/%u", got[0], got[1]);
	send(&d, &q0, &q1, 81, 2, got);
	TEST_ASSERT(got[0] == 2 && got[1] == 0, "other port misses: %u/%u", got[0], got[1]);

	TEST_ASSERT_EQ(tally_steer_rule_delete(r), 0, "");
	TEST_ASSERT_EQ(tally_steer_matcher_destroy(mt), 0, "");
	TEST_ASSERT_EQ(tally_steer_ctx_sync(ctx, 1000000), 0, "");
	send(&d, &q0, &q1, 80, 3, got);
	TEST_ASSERT(got[0] == 3 && got[1] == 0, "matcher gone: %u/%u", got[0], got[1]);
	TEST_ASSERT_U64_EQ(mt_stat(&d, TALLY_STAT_RX_PKTS), 14, "");
	TEST_ASSERT_EQ(mt_rd(&d, TALLY_REG_FAULT_CNT), 0, "no faults");

	tally_steer_ctx_destroy(ctx);
	tally_cnt_pool_destroy(pool);
	tally_fence_fini(&fence);
	mt_close(&d);
	arena_fini(&a);
	return TEST_SUCCESS;
}

static const struct tally_test_case cases[] = {
	TEST_CASE(test_matcher_after_idle_bursts),
};

TEST_MAIN("model-rx_steer", cases)
