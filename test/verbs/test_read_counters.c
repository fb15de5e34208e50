/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The EXAMPLE of ibv_read_counters(3), with its defects fixed: it compiles,
 * the flow attr is packed (the COUNT spec right after the ETH spec, where
 * the by-size spec walk looks for it), the source MAC is not matched (mask
 * 0), and traffic flows over the loopback wire. Exact values:
 * PACKETS == N and BYTES == N * L (L = frame length without FCS).
 */
#include "tv_test.h"

#define N	25
#define L	100

struct flow_with_count {
	struct ibv_flow_attr attr;
	struct ibv_flow_spec_eth spec_eth;
	struct ibv_flow_spec_counter_action spec_count;
} __attribute__((packed, aligned(8)));

static const uint8_t dmac[6] = { 0x00, 0x01, 0x02, 0x03, 0x04, 0x05 };
static const uint8_t other[6] = { 0x00, 0x01, 0x02, 0x03, 0x04, 0x06 };
static const uint8_t smac[6] = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x01 };

static int
example(struct tv_qp *t, uint32_t pk_idx, uint32_t by_idx, uint32_t nvals)
{
	struct ibv_counters_init_attr init_attr = { 0 };
	struct ibv_counter_attach_attr attach_attr = { 0 };
	struct flow_with_count flow_attr;
	struct ibv_counters *counters;
	struct ibv_flow *flow;
	uint64_t *values;
	uint8_t frame[L];
	int ret, loop;

	counters = ibv_create_counters(t->qp->context, &init_attr);
	TEST_ASSERT(counters != NULL, "create_counters: errno %d", errno);
	attach_attr.counter_desc = IBV_COUNTER_PACKETS;
	attach_attr.index = pk_idx;
	ret = ibv_attach_counters_point_flow(counters, &attach_attr, NULL);
	TEST_ASSERT(ret != ENOTSUP, "not supported");
	TEST_ASSERT_EQ(ret, 0, "attach packets");
	attach_attr.counter_desc = IBV_COUNTER_BYTES;
	attach_attr.index = by_idx;
	ret = ibv_attach_counters_point_flow(counters, &attach_attr, NULL);
	TEST_ASSERT_EQ(ret, 0, "attach bytes");

	memset(&flow_attr, 0, sizeof(flow_attr));
	flow_attr.attr.comp_mask = 0;
	flow_attr.attr.type = IBV_FLOW_ATTR_NORMAL;
	flow_attr.attr.size = sizeof(flow_attr);
	flow_attr.attr.priority = 0;
	flow_attr.attr.num_of_specs = 2;
	flow_attr.attr.port = 1;
	flow_attr.attr.flags = 0;
	flow_attr.spec_eth.type = IBV_FLOW_SPEC_ETH;
	flow_attr.spec_eth.size = sizeof(struct ibv_flow_spec_eth);
	memcpy(flow_attr.spec_eth.val.dst_mac, dmac, 6);
	memset(flow_attr.spec_eth.mask.dst_mac, 0xff, 6);
	/* src_mac: mask 0 (the man page's all-ones mask would need src 0) */
	flow_attr.spec_count.type = IBV_FLOW_SPEC_ACTION_COUNT;
	flow_attr.spec_count.size = sizeof(struct ibv_flow_spec_counter_action);
	flow_attr.spec_count.counters = counters;
	TEST_ASSERT_EQ(offsetof(struct flow_with_count, spec_count), 60, "packed");

	flow = ibv_create_flow(t->qp, (struct ibv_flow_attr *)(void *)&flow_attr);
	TEST_ASSERT(flow != NULL, "create_flow: errno %d", errno);

	TEST_ASSERT_EQ(tv_post_recv(t, N), 0, "post_recv");
	tv_frame(frame, L, dmac, smac, 0x0a000001, 0x0a000002, 1000, 2000);
	TEST_ASSERT_EQ(tv_send(t, frame, L, N), 0, "send");
	tv_frame(frame, L, other, smac, 0x0a000001, 0x0a000002, 1000, 2000);
	TEST_ASSERT_EQ(tv_send(t, frame, L, 3), 0, "send others");
	TEST_ASSERT_EQ(tv_recv(t, N, L), N, "received by the flow's QP");

	values = calloc(nvals, sizeof(uint64_t));
	for (loop = 3; --loop;) {	/* the example reads in a loop */
		ret = ibv_read_counters(counters, values, nvals,
					IBV_READ_COUNTERS_ATTR_PREFER_CACHED);
		TEST_ASSERT_EQ(ret, 0, "read");
		printf("PACKETS = %" PRIu64 ", BYTES = %" PRIu64 "\n",
		       values[pk_idx], values[by_idx]);
	}
	if (pk_idx == by_idx) {
		TEST_ASSERT_U64_EQ(values[pk_idx], (uint64_t)N + (uint64_t)N * L,
				   "points on one index are summed");
	} else {
		TEST_ASSERT_U64_EQ(values[pk_idx], N, "PACKETS");
		TEST_ASSERT_U64_EQ(values[by_idx], (uint64_t)N * L, "BYTES");
	}
	free(values);
	TEST_ASSERT_EQ(ibv_destroy_flow(flow), 0, "destroy flow");
	TEST_ASSERT_EQ(ibv_destroy_counters(counters), 0, "destroy counters");
	return TEST_SUCCESS;
}

static int
test_man_page_example(void)
{
	struct tv_qp t;
	int rc;

	TEST_ASSERT_EQ(tv_open(), 0, "open");
	TEST_ASSERT_EQ(tv_qp_create(&t, true), 0, "qp");
	rc = example(&t, 0, 1, 2);
	tv_qp_destroy(&t);
	return rc;
}

static int
test_example_reversed_indices(void)
{
	struct tv_qp t;
	int rc;

	TEST_ASSERT_EQ(tv_open(), 0, "open");
	TEST_ASSERT_EQ(tv_qp_create(&t, true), 0, "qp");
	rc = example(&t, 5, 2, 6);
	tv_qp_destroy(&t);
	return rc;
}

static int
test_example_summed_index(void)
{
	struct tv_qp t;
	int rc;

	TEST_ASSERT_EQ(tv_open(), 0, "open");
	TEST_ASSERT_EQ(tv_qp_create(&t, true), 0, "qp");
	rc = example(&t, 0, 0, 1);
	tv_qp_destroy(&t);
	return rc;
}

static const struct tally_test_case cases[] = {
	TEST_CASE(test_man_page_example),
	TEST_CASE(test_example_reversed_indices),
	TEST_CASE(test_example_summed_index),
};

TEST_MAIN("verbs-read-counters", cases)
