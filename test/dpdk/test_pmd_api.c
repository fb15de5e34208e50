/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rte_pmd_tally raw rules, flow counters and completion counters over the
 * loopback wire, with exact values; raw rules next to rte_flow rules.
 */
#include <rte_flow.h>

#include "tally_dpdk_test.h"

#define FRAME_LEN	128
#define NB_FRAMES	70	/* dst IP 10.1.0.1 + i % 7: 10 frames each */

static uint16_t port;
static char port_name[64];

static int
port_up(void)
{
	struct tdt_port_conf pc = { .nb_rxq = 2, .nb_txq = 2, .promisc = true };
	int p = tdt_port_create("", port_name, sizeof(port_name));

	if (p < 0)
		return p;
	port = (uint16_t)p;
	return tdt_port_setup(port, &pc);
}

static void
port_down(void)
{
	tdt_port_destroy(port, port_name);
}

/* Send NB_FRAMES frames; return how many arrived on each queue. */
static int
traffic(unsigned int per_q[2])
{
	struct rte_mbuf *tx[NB_FRAMES], *rx[NB_FRAMES];
	uint16_t q[NB_FRAMES];
	unsigned int i, n;

	for (i = 0; i < NB_FRAMES; i++) {
		tx[i] = tdt_mbuf_build(FRAME_LEN, i, 1);
		if (tx[i] == NULL)
			return -1;
	}
	if (tdt_tx_all(port, 0, tx, NB_FRAMES) != NB_FRAMES)
		return -1;
	n = tdt_rx_all(port, 2, rx, q, NB_FRAMES, NB_FRAMES + 1);
	per_q[0] = per_q[1] = 0;
	for (i = 0; i < RTE_MIN(n, (unsigned int)NB_FRAMES); i++)
		per_q[q[i]]++;
	tdt_free_all(rx, RTE_MIN(n, (unsigned int)NB_FRAMES));
	return 0;
}

/* mask/value on the outer destination IPv4 address. */
static void
key_dst_ip(uint8_t *mask, uint8_t *value, uint32_t ip)
{
	memset(mask, 0, RTE_PMD_TALLY_MATCH_LEN);
	memset(value, 0, RTE_PMD_TALLY_MATCH_LEN);
	memset(mask + 60, 0xff, 4);
	value[60] = (uint8_t)(ip >> 24);
	value[61] = (uint8_t)(ip >> 16);
	value[62] = (uint8_t)(ip >> 8);
	value[63] = (uint8_t)ip;
}

static int
test_rule_queue_count(void)
{
	uint8_t mask[RTE_PMD_TALLY_MATCH_LEN], value[RTE_PMD_TALLY_MATCH_LEN];
	struct rte_pmd_tally_rule_attr a = {
		.flags = RTE_PMD_TALLY_RULE_COUNT,
		.fate = RTE_PMD_TALLY_FATE_QUEUE,
		.queue = 1,
	};
	struct rte_pmd_tally_rule *r;
	unsigned int per_q[2];
	uint64_t p, b;

	TEST_ASSERT_EQ(port_up(), 0, "port");
	TEST_ASSERT_EQ(rte_pmd_tally_counter_alloc(port, &a.counter), 0, "alloc");
	key_dst_ip(mask, value, 0x0a010001);
	TEST_ASSERT_EQ(rte_pmd_tally_rule_create(port, mask, value, &a, &r), 0, "create");
	TEST_ASSERT_EQ(traffic(per_q), 0, "traffic");
	TEST_ASSERT_EQ(per_q[1], NB_FRAMES / 7, "steered to queue 1");
	TEST_ASSERT_EQ(per_q[0], NB_FRAMES - NB_FRAMES / 7, "default queue");
	TEST_ASSERT_EQ(rte_pmd_tally_counter_read(port, a.counter, &p, &b), 0, "read");
	TEST_ASSERT_U64_EQ(p, NB_FRAMES / 7, "packets");
	TEST_ASSERT_U64_EQ(b, NB_FRAMES / 7 * FRAME_LEN, "bytes");
	TEST_ASSERT_EQ(rte_pmd_tally_counter_reset(port, a.counter), 0, "reset");
	TEST_ASSERT_EQ(rte_pmd_tally_counter_read(port, a.counter, &p, &b), 0, "read");
	TEST_ASSERT_U64_EQ(p + b, 0, "after reset");
	/* the rule holds its own reference: freeing the id keeps it counting */
	TEST_ASSERT_EQ(rte_pmd_tally_counter_free(port, a.counter), 0, "free");
	TEST_ASSERT_EQ(traffic(per_q), 0, "traffic");
	TEST_ASSERT_EQ(rte_pmd_tally_counter_read(port, a.counter, &p, &b), 0, "read");
	TEST_ASSERT_U64_EQ(p, NB_FRAMES / 7, "packets after free");
	TEST_ASSERT_EQ(rte_pmd_tally_rule_destroy(port, r), 0, "destroy");
	TEST_ASSERT_EQ(rte_pmd_tally_counter_free(port, a.counter), -ENOENT, "freed");
	port_down();
	return TEST_SUCCESS;
}

static int
test_rule_drop_mark(void)
{
	uint8_t mask[RTE_PMD_TALLY_MATCH_LEN], value[RTE_PMD_TALLY_MATCH_LEN];
	struct rte_pmd_tally_rule_attr drop = {
		.flags = RTE_PMD_TALLY_RULE_COUNT, .fate = RTE_PMD_TALLY_FATE_DROP,
		.priority = 1,
	};
	struct rte_pmd_tally_rule_attr pass = {
		.flags = RTE_PMD_TALLY_RULE_COUNT | RTE_PMD_TALLY_RULE_MARK,
		.fate = RTE_PMD_TALLY_FATE_PASSTHRU, .mark = 7,
	};
	struct rte_pmd_tally_rule *r1, *r2;
	unsigned int per_q[2];
	uint64_t p, b;

	TEST_ASSERT_EQ(port_up(), 0, "port");
	TEST_ASSERT_EQ(rte_pmd_tally_counter_alloc(port, &drop.counter), 0, "alloc");
	TEST_ASSERT_EQ(rte_pmd_tally_counter_alloc(port, &pass.counter), 0, "alloc");
	key_dst_ip(mask, value, 0x0a010002);
	TEST_ASSERT_EQ(rte_pmd_tally_rule_create(port, mask, value, &drop, &r1), 0, "drop");
	/* empty mask at priority 0: every frame, then the walk goes on */
	memset(mask, 0, sizeof(mask));
	memset(value, 0, sizeof(value));
	TEST_ASSERT_EQ(rte_pmd_tally_rule_create(port, mask, value, &pass, &r2), 0, "pass");
	TEST_ASSERT_EQ(traffic(per_q), 0, "traffic");
	TEST_ASSERT_EQ(per_q[0], NB_FRAMES - NB_FRAMES / 7, "dropped one in 7");
	TEST_ASSERT_EQ(rte_pmd_tally_counter_read(port, drop.counter, &p, &b), 0, "read");
	TEST_ASSERT_U64_EQ(p, NB_FRAMES / 7, "drop packets");
	TEST_ASSERT_EQ(rte_pmd_tally_counter_read(port, pass.counter, &p, &b), 0, "read");
	TEST_ASSERT_U64_EQ(p, NB_FRAMES, "passthru packets");
	TEST_ASSERT_U64_EQ(b, (uint64_t)NB_FRAMES * FRAME_LEN, "passthru bytes");
	TEST_ASSERT_EQ(rte_pmd_tally_rule_destroy(port, r1), 0, "destroy");
	TEST_ASSERT_EQ(rte_pmd_tally_rule_destroy(port, r2), 0, "destroy");
	TEST_ASSERT_EQ(rte_pmd_tally_counter_free(port, drop.counter), 0, "free");
	TEST_ASSERT_EQ(rte_pmd_tally_counter_free(port, pass.counter), 0, "free");
	port_down();
	return TEST_SUCCESS;
}

static int
test_rule_errors(void)
{
	uint8_t mask[RTE_PMD_TALLY_MATCH_LEN], value[RTE_PMD_TALLY_MATCH_LEN];
	struct rte_pmd_tally_rule_attr a = { .fate = RTE_PMD_TALLY_FATE_QUEUE };
	struct rte_pmd_tally_rule *r, *r2;
	uint32_t id;

	TEST_ASSERT_EQ(port_up(), 0, "port");
	key_dst_ip(mask, value, 0x0a010003);
	TEST_ASSERT_EQ(rte_pmd_tally_rule_create(RTE_MAX_ETHPORTS, mask, value, &a, &r),
		       -ENODEV, "not a port");
	value[0] = 1;	/* outside the mask */
	TEST_ASSERT_EQ(rte_pmd_tally_rule_create(port, mask, value, &a, &r), -EINVAL, "value");
	value[0] = 0;
	a.queue = 2;
	TEST_ASSERT_EQ(rte_pmd_tally_rule_create(port, mask, value, &a, &r), -EINVAL, "queue");
	a.queue = 0;
	a.fate = 99;
	TEST_ASSERT_EQ(rte_pmd_tally_rule_create(port, mask, value, &a, &r), -EINVAL, "fate");
	a.fate = RTE_PMD_TALLY_FATE_QUEUE;
	a.flags = 1u << 7;
	TEST_ASSERT_EQ(rte_pmd_tally_rule_create(port, mask, value, &a, &r), -EINVAL, "flags");
	a.flags = RTE_PMD_TALLY_RULE_COUNT;
	TEST_ASSERT_EQ(rte_pmd_tally_counter_alloc(port, &id), 0, "alloc");
	a.counter = id + 1;	/* never allocated */
	TEST_ASSERT_EQ(rte_pmd_tally_rule_create(port, mask, value, &a, &r), -ENOENT, "counter");
	a.flags = 0;
	a.group = 1u << 20;
	TEST_ASSERT_EQ(rte_pmd_tally_rule_create(port, mask, value, &a, &r), -EINVAL, "group");
	a.group = 0;
	TEST_ASSERT_EQ(rte_pmd_tally_rule_create(port, mask, value, &a, &r), 0, "create");
	TEST_ASSERT_EQ(rte_pmd_tally_rule_create(port, mask, value, &a, &r2), -EEXIST, "dup");
	TEST_ASSERT_EQ(rte_pmd_tally_rule_destroy(port, NULL), -EINVAL, "NULL");
	TEST_ASSERT_EQ(rte_pmd_tally_rule_destroy(port, r), 0, "destroy");
	TEST_ASSERT_EQ(rte_pmd_tally_counter_free(port, id), 0, "free");
	TEST_ASSERT_EQ(rte_pmd_tally_counter_free(port, id), -ENOENT, "double free");
	port_down();
	return TEST_SUCCESS;
}

/* An rte_flow rule and a raw rule side by side; both read paths agree. */
static int
test_rte_flow_counter(void)
{
	uint8_t mask[RTE_PMD_TALLY_MATCH_LEN], value[RTE_PMD_TALLY_MATCH_LEN];
	struct rte_flow_attr attr = { .ingress = 1 };
	struct rte_flow_item_ipv4 ipv = { .hdr.dst_addr = RTE_BE32(0x0a010004) };
	struct rte_flow_item_ipv4 ipm = { .hdr.dst_addr = RTE_BE32(0xffffffff) };
	struct rte_flow_item pattern[] = {
		{ .type = RTE_FLOW_ITEM_TYPE_ETH },
		{ .type = RTE_FLOW_ITEM_TYPE_IPV4, .spec = &ipv, .mask = &ipm },
		{ .type = RTE_FLOW_ITEM_TYPE_END },
	};
	struct rte_flow_action_queue qa = { .index = 1 };
	struct rte_flow_action actions[] = {
		{ .type = RTE_FLOW_ACTION_TYPE_COUNT },
		{ .type = RTE_FLOW_ACTION_TYPE_QUEUE, .conf = &qa },
		{ .type = RTE_FLOW_ACTION_TYPE_END },
	};
	struct rte_pmd_tally_rule_attr a = {
		.flags = RTE_PMD_TALLY_RULE_COUNT, .fate = RTE_PMD_TALLY_FATE_QUEUE,
		.queue = 1,
	};
	struct rte_flow_query_count qc = { 0 };
	struct rte_flow_action count = { .type = RTE_FLOW_ACTION_TYPE_COUNT };
	struct rte_flow_error err;
	struct rte_pmd_tally_rule *r;
	struct rte_flow *f;
	unsigned int per_q[2];
	uint32_t fid;
	uint64_t p, b;

	TEST_ASSERT_EQ(port_up(), 0, "port");
	f = rte_flow_create(port, &attr, pattern, actions, &err);
	TEST_ASSERT(f != NULL, "rte_flow: %s", err.message ? err.message : "");
	TEST_ASSERT_EQ(rte_pmd_tally_counter_alloc(port, &a.counter), 0, "alloc");
	key_dst_ip(mask, value, 0x0a010005);
	TEST_ASSERT_EQ(rte_pmd_tally_rule_create(port, mask, value, &a, &r), 0, "raw");
	TEST_ASSERT_EQ(traffic(per_q), 0, "traffic");
	TEST_ASSERT_EQ(per_q[1], 2 * NB_FRAMES / 7, "both rules steer");
	TEST_ASSERT_EQ(rte_pmd_tally_flow_counter(port, f, &fid), 0, "flow counter");
	TEST_ASSERT_EQ(rte_pmd_tally_counter_read(port, fid, &p, &b), 0, "read");
	TEST_ASSERT_EQ(rte_flow_query(port, f, &count, &qc, &err), 0, "query");
	TEST_ASSERT_U64_EQ(qc.hits, NB_FRAMES / 7, "rte_flow hits");
	TEST_ASSERT_U64_EQ(p, qc.hits, "same packets");
	TEST_ASSERT_U64_EQ(b, qc.bytes, "same bytes");
	TEST_ASSERT_U64_EQ(b, NB_FRAMES / 7 * FRAME_LEN, "bytes");
	TEST_ASSERT_EQ(rte_pmd_tally_counter_read(port, a.counter, &p, &b), 0, "read");
	TEST_ASSERT_U64_EQ(p, NB_FRAMES / 7, "raw packets");
	/* rte_flow_flush leaves raw rules alone */
	TEST_ASSERT_EQ(rte_flow_flush(port, &err), 0, "flush");
	TEST_ASSERT_EQ(traffic(per_q), 0, "traffic");
	TEST_ASSERT_EQ(per_q[1], NB_FRAMES / 7, "raw rule still steers");
	TEST_ASSERT_EQ(rte_pmd_tally_flow_counter(port, NULL, &fid), -ENOENT, "no flow");
	TEST_ASSERT_EQ(rte_pmd_tally_rule_destroy(port, r), 0, "destroy");
	TEST_ASSERT_EQ(rte_pmd_tally_counter_free(port, a.counter), 0, "free");
	port_down();
	return TEST_SUCCESS;
}

static int
test_ccnt(void)
{
	uint64_t c, e;
	unsigned int per_q[2];
	uint32_t id, id2;

	TEST_ASSERT_EQ(port_up(), 0, "port");
	TEST_ASSERT(rte_pmd_tally_ccnt_num(port) > 1, "bank");
	TEST_ASSERT_EQ(rte_pmd_tally_ccnt_alloc(port, &id), 0, "alloc");
	TEST_ASSERT_EQ(rte_pmd_tally_ccnt_alloc(port, &id2), 0, "alloc");
	TEST_ASSERT(id != id2, "distinct");
	TEST_ASSERT_EQ(rte_pmd_tally_ccnt_attach(port, id, RTE_PMD_TALLY_CCNT_TX, 0), 0, "tx");
	TEST_ASSERT_EQ(rte_pmd_tally_ccnt_attach(port, id, RTE_PMD_TALLY_CCNT_RX, 0), 0, "rx");
	TEST_ASSERT_EQ(rte_pmd_tally_ccnt_attach(port, id2, RTE_PMD_TALLY_CCNT_RX, 0),
		       -EBUSY, "queue taken");
	TEST_ASSERT_EQ(rte_pmd_tally_ccnt_attach(port, id2, RTE_PMD_TALLY_CCNT_RX, 1), 0, "rx1");
	TEST_ASSERT_EQ(rte_pmd_tally_ccnt_attach(port, id2, RTE_PMD_TALLY_CCNT_RX, 99),
		       -EINVAL, "bad queue");
	TEST_ASSERT_EQ(traffic(per_q), 0, "traffic");
	TEST_ASSERT_EQ(per_q[0], NB_FRAMES, "all on queue 0");
	TEST_ASSERT_EQ(rte_pmd_tally_ccnt_read(port, id, &c, &e), 0, "read");
	TEST_ASSERT_U64_EQ(c, 2 * NB_FRAMES, "tx + rx completions");
	TEST_ASSERT_U64_EQ(e, 0, "errors");
	TEST_ASSERT_EQ(rte_pmd_tally_ccnt_read(port, id2, &c, &e), 0, "read");
	TEST_ASSERT_U64_EQ(c, 0, "queue 1 idle");
	TEST_ASSERT_EQ(rte_pmd_tally_ccnt_update(port, id2, RTE_PMD_TALLY_CCNT_SET, 40), 0, "set");
	TEST_ASSERT_EQ(rte_pmd_tally_ccnt_update(port, id2, RTE_PMD_TALLY_CCNT_ADD, 2), 0, "add");
	TEST_ASSERT_EQ(rte_pmd_tally_ccnt_update(port, id2, RTE_PMD_TALLY_CCNT_SET_ERR, 5), 0, "");
	TEST_ASSERT_EQ(rte_pmd_tally_ccnt_update(port, id2, RTE_PMD_TALLY_CCNT_ADD_ERR, 1), 0, "");
	TEST_ASSERT_EQ(rte_pmd_tally_ccnt_read(port, id2, &c, &e), 0, "read");
	TEST_ASSERT_U64_EQ(c, 42, "set + add");
	TEST_ASSERT_U64_EQ(e, 6, "errors set + add");
	TEST_ASSERT_EQ(rte_pmd_tally_ccnt_update(port, id2, 9, 1), -EINVAL, "bad op");
	TEST_ASSERT_EQ(rte_pmd_tally_ccnt_free(port, id), -EBUSY, "attached");
	TEST_ASSERT_EQ(rte_pmd_tally_ccnt_detach(port, RTE_PMD_TALLY_CCNT_TX, 0), 0, "detach");
	TEST_ASSERT_EQ(rte_pmd_tally_ccnt_detach(port, RTE_PMD_TALLY_CCNT_TX, 0), -ENOENT, "");
	TEST_ASSERT_EQ(traffic(per_q), 0, "traffic");
	TEST_ASSERT_EQ(rte_pmd_tally_ccnt_read(port, id, &c, &e), 0, "read");
	TEST_ASSERT_U64_EQ(c, 3 * NB_FRAMES, "only rx counted now");
	TEST_ASSERT_EQ(rte_pmd_tally_ccnt_detach(port, RTE_PMD_TALLY_CCNT_RX, 0), 0, "detach");
	TEST_ASSERT_EQ(rte_pmd_tally_ccnt_detach(port, RTE_PMD_TALLY_CCNT_RX, 1), 0, "detach");
	TEST_ASSERT_EQ(rte_pmd_tally_ccnt_free(port, id), 0, "free");
	TEST_ASSERT_EQ(rte_pmd_tally_ccnt_free(port, id2), 0, "free");
	TEST_ASSERT_EQ(rte_pmd_tally_ccnt_free(port, id2), -ENOENT, "double free");
	/* a fresh allocation reads zero */
	TEST_ASSERT_EQ(rte_pmd_tally_ccnt_alloc(port, &id), 0, "alloc");
	TEST_ASSERT_EQ(rte_pmd_tally_ccnt_read(port, id, &c, &e), 0, "read");
	TEST_ASSERT_U64_EQ(c + e, 0, "zeroed");
	TEST_ASSERT_EQ(rte_pmd_tally_ccnt_free(port, id), 0, "free");
	port_down();
	return TEST_SUCCESS;
}

static const struct tally_test_case cases[] = {
	TEST_CASE(test_rule_queue_count),
	TEST_CASE(test_rule_drop_mark),
	TEST_CASE(test_rule_errors),
	TEST_CASE(test_rte_flow_counter),
	TEST_CASE(test_ccnt),
};

int
main(void)
{
	int rc;

	tdt_eal_init("pmd-api");
	rc = tally_test_run("pmd_api", cases, RTE_DIM(cases));
	rte_eal_cleanup();
	return rc;
}
