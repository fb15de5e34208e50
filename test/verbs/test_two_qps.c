/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Two RAW_PACKET QPs on one port exchange frames over the loopback wire,
 * as rdma-core's tests/test_flow.py does: multicast dst 01:50:56:19:20:a7,
 * src 24:8a:07:a5:28:c8 with the bitwise src mask 24:8a:07:a5:28:c8, flows
 * (ETH + IPV4_EXT + UDP) steering each UDP port to its QP, flow counters and
 * completion counters exact, payload compared byte for byte.
 */
#include "tv_test.h"

#define NA	12	/* frames A -> B */
#define NB	7	/* frames B -> A */
#define LEN	128

static const uint8_t dmac[6] = { 0x01, 0x50, 0x56, 0x19, 0x20, 0xa7 };
static const uint8_t smac[6] = { 0x24, 0x8a, 0x07, 0xa5, 0x28, 0xc8 };

struct udp_flow {
	struct ibv_flow_attr attr;
	struct ibv_flow_spec_eth eth;
	struct ibv_flow_spec_ipv4_ext ip;
	struct ibv_flow_spec_tcp_udp udp;
	struct ibv_flow_spec_counter_action count;
} __attribute__((packed, aligned(8)));

static struct ibv_flow *
udp_flow(struct tv_qp *t, uint16_t dport, struct ibv_counters *c)
{
	struct udp_flow f;

	memset(&f, 0, sizeof(f));
	f.attr.type = IBV_FLOW_ATTR_NORMAL;
	f.attr.size = sizeof(f.attr);	/* as pyverbs: not used by the walk */
	f.attr.num_of_specs = 4;
	f.attr.port = 1;
	f.eth.type = IBV_FLOW_SPEC_ETH;
	f.eth.size = sizeof(f.eth);
	memcpy(f.eth.val.dst_mac, dmac, 6);
	memset(f.eth.mask.dst_mac, 0xff, 6);
	memcpy(f.eth.val.src_mac, smac, 6);
	memcpy(f.eth.mask.src_mac, smac, 6);
	f.ip.type = IBV_FLOW_SPEC_IPV4_EXT;
	f.ip.size = sizeof(f.ip);
	f.ip.val.src_ip = htonl(0x01010101);
	f.ip.mask.src_ip = 0xffffffff;
	f.ip.val.dst_ip = htonl(0x02020202);
	f.ip.mask.dst_ip = 0xffffffff;
	f.ip.val.proto = 17;
	f.ip.mask.proto = 0xff;
	f.udp.type = IBV_FLOW_SPEC_UDP;
	f.udp.size = sizeof(f.udp);
	f.udp.val.dst_port = htons(dport);
	f.udp.mask.dst_port = 0xffff;
	f.count.type = IBV_FLOW_SPEC_ACTION_COUNT;
	f.count.size = sizeof(f.count);
	f.count.counters = c;
	return ibv_create_flow(t->qp, (struct ibv_flow_attr *)(void *)&f);
}

static struct ibv_counters *
pkts_bytes(void)
{
	struct ibv_counters *c = ibv_create_counters(tv_ctx, NULL);
	struct ibv_counter_attach_attr a = { .counter_desc = IBV_COUNTER_PACKETS, .index = 0 };

	ibv_attach_counters_point_flow(c, &a, NULL);
	a.counter_desc = IBV_COUNTER_BYTES;
	a.index = 1;
	ibv_attach_counters_point_flow(c, &a, NULL);
	return c;
}

static struct ibv_comp_cntr *
cc_new(void)
{
	struct ibv_comp_cntr_init_attr a = { .type = IBV_COMP_CNTR_TYPE_WRS };

	return ibv_create_comp_cntr(tv_ctx, &a);
}

static int
cc_attach(struct tv_qp *t, struct ibv_comp_cntr *c, uint32_t ops)
{
	struct ibv_qp_attach_comp_cntr_attr a = { .op_mask = ops };

	return ibv_qp_attach_comp_cntr(t->qp, c, &a);
}

static uint64_t
cc_val(struct ibv_comp_cntr *c)
{
	uint64_t v = UINT64_MAX;

	ibv_read_comp_cntr(c, &v);
	return v;
}

static int
test_exchange(void)
{
	struct tv_qp a, b;
	struct ibv_counters *ca, *cb;
	struct ibv_comp_cntr *cc_send, *cc_recv_a, *cc_recv_b;
	struct ibv_flow *fa, *fb;
	uint8_t frame[LEN], other[6] = { 0 };
	uint64_t v[2];

	TEST_ASSERT_EQ(tv_open(), 0, "open");
	TEST_ASSERT_EQ(tv_qp_create(&a, false), 0, "qp a");
	TEST_ASSERT_EQ(tv_qp_create(&b, false), 0, "qp b");
	/* completion counters attach in INIT; one counter on two QPs sums */
	cc_send = cc_new();
	cc_recv_a = cc_new();
	cc_recv_b = cc_new();
	TEST_ASSERT(cc_send && cc_recv_a && cc_recv_b, "comp counters");
	TEST_ASSERT_EQ(cc_attach(&a, cc_send, IBV_QP_ATTACH_COMP_CNTR_OP_SEND), 0, "");
	TEST_ASSERT_EQ(cc_attach(&b, cc_send, IBV_QP_ATTACH_COMP_CNTR_OP_SEND), 0, "");
	TEST_ASSERT_EQ(cc_attach(&a, cc_recv_a, IBV_QP_ATTACH_COMP_CNTR_OP_RECV), 0, "");
	TEST_ASSERT_EQ(cc_attach(&b, cc_recv_b, IBV_QP_ATTACH_COMP_CNTR_OP_RECV), 0, "");
	TEST_ASSERT_EQ(tv_qp_rts(&a), 0, "rts a");
	TEST_ASSERT_EQ(tv_qp_rts(&b), 0, "rts b");
	ca = pkts_bytes();
	cb = pkts_bytes();
	fa = udp_flow(&a, 1111, ca);
	fb = udp_flow(&b, 2222, cb);
	TEST_ASSERT(fa != NULL && fb != NULL, "flows: errno %d", errno);
	TEST_ASSERT_EQ(tv_post_recv(&a, NB), 0, "");
	TEST_ASSERT_EQ(tv_post_recv(&b, NA), 0, "");

	tv_frame(frame, LEN, dmac, smac, 0x01010101, 0x02020202, 1234, 2222);
	TEST_ASSERT_EQ(tv_send(&a, frame, LEN, NA), 0, "a -> b");
	tv_frame(frame, LEN, dmac, smac, 0x01010101, 0x02020202, 1234, 1111);
	TEST_ASSERT_EQ(tv_send(&b, frame, LEN, NB), 0, "b -> a");
	/* src MAC outside the bitwise mask's value: matches neither flow */
	tv_frame(frame, LEN, dmac, other, 0x01010101, 0x02020202, 1234, 1111);
	TEST_ASSERT_EQ(tv_send(&b, frame, LEN, 3), 0, "unmatched");

	TEST_ASSERT_EQ(tv_recv(&b, NA, LEN), NA, "b received");
	TEST_ASSERT_EQ(tv_recv(&a, NB, LEN), NB, "a received");
	/* payload of the last frame a received, byte for byte */
	tv_frame(frame, LEN, dmac, smac, 0x01010101, 0x02020202, 1234, 1111);
	TEST_ASSERT(memcmp(a.buf + (size_t)(NB - 1) * TV_BUF, frame, LEN) == 0, "payload");

	TEST_ASSERT_EQ(ibv_read_counters(ca, v, 2, 0), 0, "");
	TEST_ASSERT_U64_EQ(v[0], NB, "flow a packets");
	TEST_ASSERT_U64_EQ(v[1], (uint64_t)NB * LEN, "flow a bytes");
	TEST_ASSERT_EQ(ibv_read_counters(cb, v, 2, 0), 0, "");
	TEST_ASSERT_U64_EQ(v[0], NA, "flow b packets");
	TEST_ASSERT_U64_EQ(v[1], (uint64_t)NA * LEN, "flow b bytes");
	TEST_ASSERT_U64_EQ(cc_val(cc_send), NA + NB + 3, "sends of both QPs");
	TEST_ASSERT_U64_EQ(cc_val(cc_recv_a), NB, "receives of a");
	TEST_ASSERT_U64_EQ(cc_val(cc_recv_b), NA, "receives of b");

	TEST_ASSERT_EQ(ibv_destroy_qp(a.qp), EBUSY, "a flow steers to it");
	TEST_ASSERT_EQ(ibv_destroy_flow(fa), 0, "");
	TEST_ASSERT_EQ(ibv_destroy_flow(fb), 0, "");
	TEST_ASSERT_EQ(ibv_destroy_counters(ca), 0, "");
	TEST_ASSERT_EQ(ibv_destroy_counters(cb), 0, "");
	TEST_ASSERT_EQ(ibv_destroy_comp_cntr(cc_send), EBUSY, "attached");
	tv_qp_destroy(&a);
	tv_qp_destroy(&b);
	TEST_ASSERT_EQ(ibv_destroy_comp_cntr(cc_send), 0, "");
	TEST_ASSERT_EQ(ibv_destroy_comp_cntr(cc_recv_a), 0, "");
	TEST_ASSERT_EQ(ibv_destroy_comp_cntr(cc_recv_b), 0, "");
	return TEST_SUCCESS;
}

/* The same handle on two flows accumulates. */
static int
test_shared_counters(void)
{
	struct tv_qp a, b;
	struct ibv_counters *c;
	struct ibv_flow *f1, *f2;
	uint8_t frame[LEN];
	uint64_t v[2];

	TEST_ASSERT_EQ(tv_open(), 0, "open");
	TEST_ASSERT_EQ(tv_qp_create(&a, true), 0, "qp a");
	TEST_ASSERT_EQ(tv_qp_create(&b, true), 0, "qp b");
	c = pkts_bytes();
	f1 = udp_flow(&a, 3333, c);
	f2 = udp_flow(&b, 4444, c);
	TEST_ASSERT(f1 != NULL && f2 != NULL, "flows: errno %d", errno);
	TEST_ASSERT_EQ(tv_post_recv(&a, 20), 0, "");
	TEST_ASSERT_EQ(tv_post_recv(&b, 20), 0, "");
	tv_frame(frame, LEN, dmac, smac, 0x01010101, 0x02020202, 1, 3333);
	TEST_ASSERT_EQ(tv_send(&a, frame, LEN, 5), 0, "");
	tv_frame(frame, LEN, dmac, smac, 0x01010101, 0x02020202, 1, 4444);
	TEST_ASSERT_EQ(tv_send(&a, frame, LEN, 6), 0, "");
	TEST_ASSERT_EQ(tv_recv(&a, 5, LEN), 5, "");
	TEST_ASSERT_EQ(tv_recv(&b, 6, LEN), 6, "");
	TEST_ASSERT_EQ(ibv_read_counters(c, v, 2, 0), 0, "");
	TEST_ASSERT_U64_EQ(v[0], 11, "both flows into one handle");
	TEST_ASSERT_U64_EQ(v[1], 11 * LEN, "");
	TEST_ASSERT_EQ(ibv_destroy_flow(f1), 0, "");
	TEST_ASSERT_EQ(ibv_read_counters(c, v, 2, 0), 0, "still bound to f2");
	TEST_ASSERT_EQ(ibv_destroy_flow(f2), 0, "");
	TEST_ASSERT_EQ(ibv_read_counters(c, v, 2, 0), EINVAL, "unbound");
	TEST_ASSERT_EQ(ibv_destroy_counters(c), 0, "");
	tv_qp_destroy(&a);
	tv_qp_destroy(&b);
	return TEST_SUCCESS;
}

static const struct tally_test_case cases[] = {
	TEST_CASE(test_exchange),
	TEST_CASE(test_shared_counters),
};

TEST_MAIN("verbs-two-qps", cases)
