/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mlx5dv matchers and flows from raw fte_match_param bytes (big-endian PRM
 * layout, verbs-api.md §5): outer dmac, IPv4 addresses (one partial mask),
 * UDP ports; traffic steered to a QP and counted exactly (each mlx5dv flow
 * counts; read with tally_verbs_flow_read, or into a DEVX flow counter).
 * Malformed buffers are refused.
 */
#include "tv_test.h"

#define LEN	96

static const uint8_t dmac[6] = { 0x02, 0x11, 0x22, 0x33, 0x44, 0x55 };
static const uint8_t smac[6] = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x09 };

struct match_buf {
	size_t match_sz;
	uint8_t b[640];
};

static struct tv_qp q;

/* Outer section: dmac @8, src IPv4 @44, dst IPv4 @60, udp sport @28, dport @30. */
static void
put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static void
put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static struct mlx5dv_flow_matcher *
matcher(struct match_buf *mask, uint8_t criteria, uint16_t prio)
{
	struct mlx5dv_flow_matcher_attr a = {
		.type = IBV_FLOW_ATTR_NORMAL,
		.priority = prio,
		.match_criteria_enable = criteria,
		.match_mask = (struct mlx5dv_flow_match_parameters *)mask,
		.comp_mask = MLX5DV_FLOW_MATCHER_MASK_FT_TYPE,
		.ft_type = MLX5DV_FLOW_TABLE_TYPE_NIC_RX,
	};

	return mlx5dv_create_flow_matcher(tv_ctx, &a);
}

static int
setup(void)
{
	return tv_setup(&q);
}

static int
test_five_tuple_steer_count(void)
{
	struct match_buf mask = { .match_sz = 64 }, val = { .match_sz = 64 };
	struct mlx5dv_flow_action_attr act[2];
	struct mlx5dv_flow_matcher *m;
	struct ibv_flow *f;
	uint8_t frame[LEN];
	uint64_t p, b;

	TEST_ASSERT_EQ(setup(), 0, "setup");
	memset(mask.b + 8, 0xff, 6);		/* dmac */
	put32(mask.b + 44, 0xffffff00);		/* src IPv4 /24: partial */
	put32(mask.b + 60, 0xffffffff);		/* dst IPv4 */
	put16(mask.b + 28, 0xffff);		/* udp sport */
	put16(mask.b + 30, 0xffff);		/* udp dport */
	m = matcher(&mask, 1 << 0, 0);
	TEST_ASSERT(m != NULL, "matcher: errno %d", errno);
	memcpy(val.b + 8, dmac, 6);
	put32(val.b + 44, 0x0a000100);
	put32(val.b + 60, 0x0a000202);
	put16(val.b + 28, 5000);
	put16(val.b + 30, 6000);
	memset(act, 0, sizeof(act));
	act[0].type = MLX5DV_FLOW_ACTION_DEST_IBV_QP;
	act[0].qp = q.qp;
	act[1].type = MLX5DV_FLOW_ACTION_TAG;
	act[1].tag_value = 0x1234;
	f = mlx5dv_create_flow(m, (struct mlx5dv_flow_match_parameters *)&val, 2, act);
	TEST_ASSERT(f != NULL, "flow: errno %d", errno);

	TEST_ASSERT_EQ(tv_post_recv(&q, 16), 0, "");
	tv_frame(frame, LEN, dmac, smac, 0x0a000107, 0x0a000202, 5000, 6000);
	TEST_ASSERT_EQ(tv_send(&q, frame, LEN, 9), 0, "matching (src in the /24)");
	tv_frame(frame, LEN, dmac, smac, 0x0a000207, 0x0a000202, 5000, 6000);
	TEST_ASSERT_EQ(tv_send(&q, frame, LEN, 2), 0, "src outside the /24");
	tv_frame(frame, LEN, dmac, smac, 0x0a000107, 0x0a000202, 5000, 6001);
	TEST_ASSERT_EQ(tv_send(&q, frame, LEN, 2), 0, "other dport");
	TEST_ASSERT_EQ(tv_recv(&q, 9, LEN), 9, "steered to the QP");
	TEST_ASSERT_EQ(tally_verbs_flow_read(f, &p, &b), 0, "read");
	TEST_ASSERT_U64_EQ(p, 9, "packets");
	TEST_ASSERT_U64_EQ(b, 9 * LEN, "bytes");
	TEST_ASSERT_EQ(ibv_destroy_flow(f), 0, "");
	TEST_ASSERT_EQ(mlx5dv_destroy_flow_matcher(m), 0, "");
	return TEST_SUCCESS;
}

/* DEVX flow counter, as rdma-core's test_counter_qp_flow uses it: PRM
 * ALLOC_FLOW_COUNTER, a flow with COUNTERS_DEVX, QUERY_FLOW_COUNTER with and
 * without the clear bit; destroy refused while a flow counts into it. */
static int
test_devx_flow_counter(void)
{
	struct match_buf mask = { .match_sz = 64 }, val = { .match_sz = 64 };
	uint8_t ain[16] = { 0x09, 0x39 }, aout[16];
	uint8_t qin[32] = { 0x09, 0x3b }, qout[32 + 16];
	struct mlx5dv_flow_action_attr act[2];
	struct mlx5dv_flow_matcher *m;
	struct mlx5dv_devx_obj *cnt;
	struct ibv_flow *f;
	uint8_t frame[LEN];
	uint32_t id;
	uint64_t pk, oc;
	int i;

	TEST_ASSERT_EQ(setup(), 0, "setup");
	cnt = mlx5dv_devx_obj_create(tv_ctx, ain, sizeof(ain), aout, sizeof(aout));
	TEST_ASSERT(cnt != NULL, "alloc: errno %d", errno);
	TEST_ASSERT_EQ(aout[0], 0, "status");
	id = (uint32_t)aout[8] << 24 | (uint32_t)aout[9] << 16 |
	     (uint32_t)aout[10] << 8 | aout[11];
	memset(mask.b + 8, 0xff, 6);
	m = matcher(&mask, 1 << 0, 0);
	TEST_ASSERT(m != NULL, "");
	memcpy(val.b + 8, dmac, 6);
	memset(act, 0, sizeof(act));
	act[0].type = MLX5DV_FLOW_ACTION_DEST_IBV_QP;
	act[0].qp = q.qp;
	act[1].type = MLX5DV_FLOW_ACTION_COUNTERS_DEVX;
	act[1].obj = cnt;
	f = mlx5dv_create_flow(m, (struct mlx5dv_flow_match_parameters *)&val, 2, act);
	TEST_ASSERT(f != NULL, "flow: errno %d", errno);
	TEST_ASSERT_EQ(mlx5dv_devx_obj_destroy(cnt), EBUSY, "in use");

	TEST_ASSERT_EQ(tv_post_recv(&q, 16), 0, "");
	tv_frame(frame, LEN, dmac, smac, 0x0a000107, 0x0a000202, 5000, 6000);
	TEST_ASSERT_EQ(tv_send(&q, frame, LEN, 7), 0, "");
	TEST_ASSERT_EQ(tv_recv(&q, 7, LEN), 7, "");

	for (i = 0; i < 4; i++)
		qin[28 + i] = (uint8_t)(id >> (24 - 8 * i));
	qin[24] = 0x80;		/* clear after reading */
	TEST_ASSERT_EQ(mlx5dv_devx_obj_query(cnt, qin, sizeof(qin), qout, sizeof(qout)),
		       0, "query");
	for (pk = 0, oc = 0, i = 0; i < 8; i++) {
		pk = pk << 8 | qout[16 + i];
		oc = oc << 8 | qout[24 + i];
	}
	TEST_ASSERT_U64_EQ(pk, 7, "packets");
	TEST_ASSERT_U64_EQ(oc, 7 * LEN, "octets");
	qin[24] = 0;
	TEST_ASSERT_EQ(mlx5dv_devx_obj_query(cnt, qin, sizeof(qin), qout, sizeof(qout)),
		       0, "");
	for (pk = 0, i = 0; i < 8; i++)
		pk = pk << 8 | qout[16 + i];
	TEST_ASSERT_U64_EQ(pk, 0, "cleared by the first query");

	qin[31] ^= 1;	/* not this object's counter */
	TEST_ASSERT_EQ(mlx5dv_devx_obj_query(cnt, qin, sizeof(qin), qout, sizeof(qout)),
		       EINVAL, "");
	ain[15] = 1;	/* a bulk of 128 */
	errno = 0;
	TEST_ASSERT(mlx5dv_devx_obj_create(tv_ctx, ain, sizeof(ain), aout, sizeof(aout)) == NULL, "");
	TEST_ASSERT_EQ(errno, EOPNOTSUPP, "bulk");
	ain[0] = 0x0a;	/* another command */
	ain[15] = 0;
	errno = 0;
	TEST_ASSERT(mlx5dv_devx_obj_create(tv_ctx, ain, sizeof(ain), aout, sizeof(aout)) == NULL, "");
	TEST_ASSERT_EQ(errno, EOPNOTSUPP, "opcode");

	TEST_ASSERT_EQ(ibv_destroy_flow(f), 0, "");
	TEST_ASSERT_EQ(mlx5dv_devx_obj_destroy(cnt), 0, "");
	TEST_ASSERT_EQ(mlx5dv_devx_obj_destroy(cnt), EINVAL, "twice");
	TEST_ASSERT_EQ(mlx5dv_destroy_flow_matcher(m), 0, "");
	return TEST_SUCCESS;
}

/* The tag reaches the completion (extended CQ, flow tag) */
static int
test_tag_and_short_smac_matcher(void)
{
	struct ibv_cq_init_attr_ex cx = {
		.cqe = 64, .wc_flags = IBV_WC_EX_WITH_BYTE_LEN | IBV_WC_EX_WITH_FLOW_TAG,
	};
	struct match_buf mask = { .match_sz = 6 }, val = { .match_sz = 6 };
	struct mlx5dv_flow_action_attr act[2];
	struct mlx5dv_flow_matcher *m;
	struct ibv_qp_init_attr ia;
	struct ibv_poll_cq_attr pa = { 0 };
	struct ibv_qp_attr qa;
	struct ibv_cq_ex *cq;
	struct ibv_qp *qp;
	struct ibv_flow *f;
	uint8_t frame[LEN];
	uint8_t src[6] = { 0x02, 0xab, 0xcd, 0xef, 0x00, 0x01 };
	unsigned int got = 0;
	uint64_t t0;

	TEST_ASSERT_EQ(setup(), 0, "setup");
	cq = ibv_create_cq_ex(tv_ctx, &cx);
	TEST_ASSERT(cq != NULL, "cq_ex: errno %d", errno);
	memset(&ia, 0, sizeof(ia));
	ia.send_cq = q.scq;
	ia.recv_cq = ibv_cq_ex_to_cq(cq);
	ia.cap.max_recv_wr = 16;
	ia.cap.max_recv_sge = 1;
	ia.qp_type = IBV_QPT_RAW_PACKET;
	qp = ibv_create_qp(tv_pd, &ia);
	TEST_ASSERT(qp != NULL, "qp");
	memset(&qa, 0, sizeof(qa));
	qa.qp_state = IBV_QPS_INIT;
	qa.port_num = 1;
	TEST_ASSERT_EQ(ibv_modify_qp(qp, &qa, IBV_QP_STATE | IBV_QP_PORT), 0, "");
	qa.qp_state = IBV_QPS_RTR;
	TEST_ASSERT_EQ(ibv_modify_qp(qp, &qa, IBV_QP_STATE), 0, "");
	/* as tests/test_mlx5_flow.py: a 6-byte smac mask, zero-extended */
	memset(mask.b, 0xff, 6);
	memcpy(val.b, src, 6);
	m = matcher(&mask, 1 << 0, 1);
	TEST_ASSERT(m != NULL, "matcher");
	memset(act, 0, sizeof(act));
	act[0].type = MLX5DV_FLOW_ACTION_DEST_IBV_QP;
	act[0].qp = qp;
	act[1].type = MLX5DV_FLOW_ACTION_TAG;
	act[1].tag_value = 0xbeef;
	/* the new entry point with the caller's stride */
	f = __mlx5dv_create_flow(m, (struct mlx5dv_flow_match_parameters *)&val, 2, act,
				 sizeof(act[0]));
	TEST_ASSERT(f != NULL, "flow: errno %d", errno);
	{
		struct ibv_sge sge = { .addr = (uintptr_t)q.buf, .length = TV_BUF,
				       .lkey = q.mr->lkey };
		struct ibv_recv_wr wr = { .wr_id = 77, .sg_list = &sge, .num_sge = 1 }, *bad;

		TEST_ASSERT_EQ(ibv_post_recv(qp, &wr, &bad), 0, "");
	}
	tv_frame(frame, LEN, dmac, src, 1, 2, 3, 4);
	TEST_ASSERT_EQ(tv_send(&q, frame, LEN, 1), 0, "");
	t0 = tv_now_ms();
	while (got == 0 && tv_now_ms() - t0 < 1000) {
		if (ibv_start_poll(cq, &pa) != 0)
			continue;
		TEST_ASSERT_EQ(cq->wr_id, 77, "");
		TEST_ASSERT_EQ(cq->status, IBV_WC_SUCCESS, "");
		TEST_ASSERT_EQ(ibv_wc_read_opcode(cq), IBV_WC_RECV, "");
		TEST_ASSERT_EQ(ibv_wc_read_byte_len(cq), LEN, "");
		TEST_ASSERT_EQ(ibv_wc_read_flow_tag(cq), 0xbeef, "tag");
		got++;
		ibv_end_poll(cq);
	}
	TEST_ASSERT_EQ(got, 1, "received");
	TEST_ASSERT_EQ(ibv_destroy_flow(f), 0, "");
	TEST_ASSERT_EQ(mlx5dv_destroy_flow_matcher(m), 0, "");
	TEST_ASSERT_EQ(ibv_destroy_qp(qp), 0, "");
	TEST_ASSERT_EQ(ibv_destroy_cq(ibv_cq_ex_to_cq(cq)), 0, "");
	return TEST_SUCCESS;
}

static int
test_drop(void)
{
	struct match_buf mask = { .match_sz = 64 }, val = { .match_sz = 64 };
	struct mlx5dv_flow_action_attr act = { .type = MLX5DV_FLOW_ACTION_DROP };
	struct mlx5dv_flow_matcher *m;
	struct ibv_flow *f;
	uint8_t frame[LEN];
	uint64_t p, b;

	TEST_ASSERT_EQ(setup(), 0, "setup");
	put32(mask.b + 60, 0xffffffff);
	put32(val.b + 60, 0x0a0a0a0a);
	m = matcher(&mask, 1, 0);
	f = mlx5dv_create_flow(m, (struct mlx5dv_flow_match_parameters *)&val, 1, &act);
	TEST_ASSERT(f != NULL, "flow: errno %d", errno);
	tv_frame(frame, LEN, dmac, smac, 1, 0x0a0a0a0a, 3, 4);
	TEST_ASSERT_EQ(tv_send(&q, frame, LEN, 4), 0, "");
	TEST_ASSERT_EQ(tv_recv(&q, 0, 0), 0, "dropped");
	TEST_ASSERT_EQ(tally_verbs_flow_read(f, &p, &b), 0, "");
	TEST_ASSERT_U64_EQ(p, 4, "drops counted");
	TEST_ASSERT_EQ(ibv_destroy_flow(f), 0, "");
	TEST_ASSERT_EQ(mlx5dv_destroy_flow_matcher(m), 0, "");
	return TEST_SUCCESS;
}

static int
test_malformed_rejected(void)
{
	struct match_buf mask = { .match_sz = 64 }, val = { .match_sz = 64 };
	struct mlx5dv_flow_action_attr act[2];
	struct mlx5dv_flow_matcher *m;
	struct mlx5dv_flow_matcher_attr ma;

	TEST_ASSERT_EQ(setup(), 0, "setup");
	memset(act, 0, sizeof(act));
	/* mask bits in misc (section 1) without the MISC enable bit */
	mask.match_sz = 128;
	mask.b[64 + 20] = 0xff;
	TV_ASSERT_NULL_ERRNO(matcher(&mask, 1, 0), EINVAL, "misc not enabled");
	m = matcher(&mask, 3, 0);
	TEST_ASSERT(m != NULL, "misc enabled");
	TEST_ASSERT_EQ(mlx5dv_destroy_flow_matcher(m), 0, "");
	mask.b[64 + 20] = 0;
	mask.match_sz = 0;
	TV_ASSERT_NULL_ERRNO(matcher(&mask, 1, 0), EINVAL, "empty buffer");
	mask.match_sz = 641;
	TV_ASSERT_NULL_ERRNO(matcher(&mask, 1, 0), EINVAL, "too long");
	mask.match_sz = 640;
	mask.b[600] = 1;
	TV_ASSERT_NULL_ERRNO(matcher(&mask, 0x7f, 0), EINVAL, "bits beyond the key");
	mask.b[600] = 0;
	memset(&ma, 0, sizeof(ma));
	ma.type = IBV_FLOW_ATTR_SNIFFER;
	ma.match_mask = (struct mlx5dv_flow_match_parameters *)&mask;
	TV_ASSERT_NULL_ERRNO(mlx5dv_create_flow_matcher(tv_ctx, &ma), EOPNOTSUPP, "type");
	ma.type = IBV_FLOW_ATTR_NORMAL;
	ma.flags = IBV_FLOW_ATTR_FLAGS_EGRESS;
	TV_ASSERT_NULL_ERRNO(mlx5dv_create_flow_matcher(tv_ctx, &ma), EOPNOTSUPP,
			     "egress: no Tx steering");

	mask.match_sz = 64;
	put32(mask.b + 60, 0xffffff00);
	m = matcher(&mask, 1, 0);
	TEST_ASSERT(m != NULL, "matcher");
	put32(val.b + 60, 0x0a000001);	/* low byte outside the mask */
	act[0].type = MLX5DV_FLOW_ACTION_DEST_IBV_QP;
	act[0].qp = q.qp;
	TV_ASSERT_NULL_ERRNO(mlx5dv_create_flow(m, (void *)&val, 1, act), EINVAL,
			     "value outside mask");
	put32(val.b + 60, 0x0a000000);
	act[1].type = MLX5DV_FLOW_ACTION_IBV_COUNTER;
	TV_ASSERT_NULL_ERRNO(mlx5dv_create_flow(m, (void *)&val, 2, act), EOPNOTSUPP,
			     "IBV_COUNTER: never implemented by mlx5");
	act[1].type = MLX5DV_FLOW_ACTION_COUNTERS_DEVX;
	act[1].obj = NULL;
	TV_ASSERT_NULL_ERRNO(mlx5dv_create_flow(m, (void *)&val, 2, act), EINVAL,
			     "DEVX: not a DEVX object of this library");
	act[1].type = MLX5DV_FLOW_ACTION_DROP;
	TV_ASSERT_NULL_ERRNO(mlx5dv_create_flow(m, (void *)&val, 2, act), EOPNOTSUPP, "two fates");
	TEST_ASSERT_EQ(mlx5dv_destroy_flow_matcher(m), 0, "");
	return TEST_SUCCESS;
}

static const struct tally_test_case cases[] = {
	TEST_CASE(test_five_tuple_steer_count),
	TEST_CASE(test_tag_and_short_smac_matcher),
	TEST_CASE(test_drop),
	TEST_CASE(test_devx_flow_counter),
	TEST_CASE(test_malformed_rejected),
};

TEST_MAIN("verbs-mlx5dv", cases)
