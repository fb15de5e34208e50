/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A DPDK application and verbs on the same port: the application owns EAL
 * and the port (queue 0), creates an rte_flow rule with COUNT; verbs takes
 * queue 1 (TALLY_VERBS_FIRST_QUEUE=1) for a RAW_PACKET QP and a flow with an
 * ibv_counters. Both rules count; each counter reads the same through both
 * APIs (rte_flow_query / rte_pmd_tally_counter_read, ibv_read_counters /
 * tally_verbs_flow_read - all of them tally_cnt_read()).
 */
#include <rte_flow.h>

#include "tally_dpdk_test.h"
#include "tv_test.h"

#define FRAME_LEN	128
#define NB_FRAMES	70	/* dst 10.1.0.1 + i % 7: 10 frames each */

struct ipv4_count {
	struct ibv_flow_attr attr;
	struct ibv_flow_spec_ipv4 ip;
	struct ibv_flow_spec_counter_action count;
} __attribute__((packed, aligned(8)));

static int
test_rte_flow_and_verbs(void)
{
	struct tdt_port_conf pc = { .nb_rxq = 2, .nb_txq = 2, .promisc = true };
	struct rte_flow_attr attr = { .ingress = 1 };
	struct rte_flow_item_ipv4 ipv = { .hdr.dst_addr = RTE_BE32(0x0a010001) };
	struct rte_flow_item_ipv4 ipm = { .hdr.dst_addr = RTE_BE32(0xffffffff) };
	struct rte_flow_item pattern[] = {
		{ .type = RTE_FLOW_ITEM_TYPE_ETH },
		{ .type = RTE_FLOW_ITEM_TYPE_IPV4, .spec = &ipv, .mask = &ipm },
		{ .type = RTE_FLOW_ITEM_TYPE_END },
	};
	struct rte_flow_action_queue qa = { .index = 0 };
	struct rte_flow_action actions[] = {
		{ .type = RTE_FLOW_ACTION_TYPE_COUNT },
		{ .type = RTE_FLOW_ACTION_TYPE_QUEUE, .conf = &qa },
		{ .type = RTE_FLOW_ACTION_TYPE_END },
	};
	struct rte_flow_action count = { .type = RTE_FLOW_ACTION_TYPE_COUNT };
	struct rte_flow_query_count qc = { 0 };
	struct ibv_counter_attach_attr pa = { .counter_desc = IBV_COUNTER_PACKETS };
	struct rte_mbuf *tx[NB_FRAMES], *rx[NB_FRAMES];
	struct rte_flow_error err;
	struct ipv4_count vf;
	struct ibv_counters *vc;
	struct ibv_flow *vflow;
	struct rte_flow *flow;
	struct tv_qp t;
	uint64_t p, b, v[2];
	uint32_t fid;
	uint16_t vport;
	unsigned int i, n;

	TEST_ASSERT_EQ(tdt_port_setup(0, &pc), 0, "app port");
	flow = rte_flow_create(0, &attr, pattern, actions, &err);
	TEST_ASSERT(flow != NULL, "rte_flow: %s", err.message ? err.message : "");

	setenv("TALLY_VERBS_FIRST_QUEUE", "1", 1);
	TEST_ASSERT_EQ(tv_open(), 0, "verbs on the app's EAL");
	TEST_ASSERT_EQ(tally_verbs_port_id(tv_ctx, &vport), 0, "");
	TEST_ASSERT_EQ(vport, 0, "same port");
	TEST_ASSERT_EQ(tv_qp_create(&t, true), 0, "qp on queue 1");
	vc = ibv_create_counters(tv_ctx, NULL);
	TEST_ASSERT_EQ(ibv_attach_counters_point_flow(vc, &pa, NULL), 0, "");
	pa.counter_desc = IBV_COUNTER_BYTES;
	pa.index = 1;
	TEST_ASSERT_EQ(ibv_attach_counters_point_flow(vc, &pa, NULL), 0, "");
	memset(&vf, 0, sizeof(vf));
	vf.attr.type = IBV_FLOW_ATTR_NORMAL;
	vf.attr.num_of_specs = 2;
	vf.attr.port = 1;
	vf.ip.type = IBV_FLOW_SPEC_IPV4;
	vf.ip.size = sizeof(vf.ip);
	vf.ip.val.dst_ip = htonl(0x0a010002);
	vf.ip.mask.dst_ip = 0xffffffff;
	vf.count.type = IBV_FLOW_SPEC_ACTION_COUNT;
	vf.count.size = sizeof(vf.count);
	vf.count.counters = vc;
	vflow = ibv_create_flow(t.qp, (struct ibv_flow_attr *)(void *)&vf);
	TEST_ASSERT(vflow != NULL, "verbs flow: errno %d", errno);
	TEST_ASSERT_EQ(tv_post_recv(&t, 32), 0, "");

	for (i = 0; i < NB_FRAMES; i++)
		tx[i] = tdt_mbuf_build(FRAME_LEN, i, 1);
	TEST_ASSERT_EQ(tdt_tx_all(0, 0, tx, NB_FRAMES), NB_FRAMES, "app sends");
	n = tdt_rx_all(0, 1, rx, NULL, NB_FRAMES, NB_FRAMES);
	tdt_free_all(rx, RTE_MIN(n, (unsigned int)NB_FRAMES));
	TEST_ASSERT_EQ(n, NB_FRAMES - NB_FRAMES / 7, "app queue: all but the verbs flow's");
	TEST_ASSERT_EQ(tv_recv(&t, NB_FRAMES / 7, FRAME_LEN), NB_FRAMES / 7, "verbs QP");

	TEST_ASSERT_EQ(rte_flow_query(0, flow, &count, &qc, &err), 0, "query");
	TEST_ASSERT_EQ(rte_pmd_tally_flow_counter(0, flow, &fid), 0, "");
	TEST_ASSERT_EQ(rte_pmd_tally_counter_read(0, fid, &p, &b), 0, "");
	TEST_ASSERT_U64_EQ(qc.hits, NB_FRAMES / 7, "rte_flow hits");
	TEST_ASSERT_U64_EQ(qc.bytes, NB_FRAMES / 7 * FRAME_LEN, "rte_flow bytes");
	TEST_ASSERT_U64_EQ(p, qc.hits, "rte_pmd_tally_counter_read == rte_flow_query");
	TEST_ASSERT_U64_EQ(b, qc.bytes, "");
	TEST_ASSERT_EQ(ibv_read_counters(vc, v, 2, 0), 0, "");
	TEST_ASSERT_EQ(tally_verbs_flow_read(vflow, &p, &b), 0, "");
	TEST_ASSERT_U64_EQ(v[0], NB_FRAMES / 7, "verbs packets");
	TEST_ASSERT_U64_EQ(v[1], NB_FRAMES / 7 * FRAME_LEN, "verbs bytes");
	TEST_ASSERT_U64_EQ(p, v[0], "tally_verbs_flow_read == ibv_read_counters");
	TEST_ASSERT_U64_EQ(b, v[1], "");
	TEST_ASSERT_U64_EQ(v[0], qc.hits, "both rules counted alike");

	TEST_ASSERT_EQ(ibv_destroy_flow(vflow), 0, "");
	TEST_ASSERT_EQ(ibv_destroy_counters(vc), 0, "");
	tv_qp_destroy(&t);
	TEST_ASSERT_EQ(rte_flow_destroy(0, flow, &err), 0, "");
	return TEST_SUCCESS;
}

static const struct tally_test_case cases[] = {
	TEST_CASE(test_rte_flow_and_verbs),
};

int
main(void)
{
	int rc;

	tdt_eal_init("verbs-mix");
	rc = tally_test_run("verbs-dpdk-mix", cases, RTE_DIM(cases));
	rte_eal_cleanup();
	return rc;
}
