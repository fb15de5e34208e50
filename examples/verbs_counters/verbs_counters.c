/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A legacy verbs program: flow counters on a RAW_PACKET QP, written against
 * rdma-core's <infiniband/verbs.h> only. Build it with -libverbs for an
 * mlx5 NIC, or with -ltally_verbs for a Tally port (doc/verbs.md).
 *
 * It opens the first device, creates a RAW_PACKET QP, a counters object
 * with PACKETS at index 0 and BYTES at index 1, a flow on a destination MAC
 * that counts into it, sends N frames to that MAC on the same port (the
 * Tally model's wire loops back) and prints the counters.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#define N	32
#define LEN	64

struct flow_spec {
	struct ibv_flow_attr attr;
	struct ibv_flow_spec_eth eth;
	struct ibv_flow_spec_counter_action count;
} __attribute__((packed, aligned(8)));

static const uint8_t mac[6] = { 0x00, 0x01, 0x02, 0x03, 0x04, 0x05 };

static int
fail(const char *what, int err)
{
	fprintf(stderr, "%s: %s\n", what, strerror(err));
	return 1;
}

int
main(void)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_qp_init_attr qia = { .qp_type = IBV_QPT_RAW_PACKET };
	struct ibv_qp_attr qa = { .qp_state = IBV_QPS_INIT, .port_num = 1 };
	struct ibv_counter_attach_attr at = { .counter_desc = IBV_COUNTER_PACKETS };
	struct ibv_context *ctx;
	struct ibv_counters *cnt;
	struct flow_spec fs;
	struct ibv_flow *flow;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	uint8_t frame[LEN];
	uint64_t val[2];
	int i, done = 0, ret;

	if (list == NULL || list[0] == NULL)
		return fail("no RDMA device", errno ? errno : ENODEV);
	ctx = ibv_open_device(list[0]);
	printf("device %s\n", ibv_get_device_name(list[0]));
	ibv_free_device_list(list);
	if (ctx == NULL)
		return fail("ibv_open_device", errno);
	pd = ibv_alloc_pd(ctx);
	cq = ibv_create_cq(ctx, 2 * N, NULL, NULL, 0);
	qia.send_cq = cq;
	qia.recv_cq = cq;
	qia.cap.max_send_wr = N;
	qia.cap.max_send_sge = 1;
	qp = ibv_create_qp(pd, &qia);
	if (qp == NULL)
		return fail("ibv_create_qp", errno);
	if (ibv_modify_qp(qp, &qa, IBV_QP_STATE | IBV_QP_PORT))
		return fail("INIT", EINVAL);
	qa.qp_state = IBV_QPS_RTR;
	ibv_modify_qp(qp, &qa, IBV_QP_STATE);
	qa.qp_state = IBV_QPS_RTS;
	if (ibv_modify_qp(qp, &qa, IBV_QP_STATE))
		return fail("RTS", EINVAL);

	cnt = ibv_create_counters(ctx, &(struct ibv_counters_init_attr){ 0 });
	if (cnt == NULL)
		return fail("ibv_create_counters", errno);
	ret = ibv_attach_counters_point_flow(cnt, &at, NULL);
	if (ret == ENOTSUP)
		return fail("counters not supported", ret);
	at.counter_desc = IBV_COUNTER_BYTES;
	at.index = 1;
	ibv_attach_counters_point_flow(cnt, &at, NULL);

	memset(&fs, 0, sizeof(fs));
	fs.attr.type = IBV_FLOW_ATTR_NORMAL;
	fs.attr.size = sizeof(fs);
	fs.attr.num_of_specs = 2;
	fs.attr.port = 1;
	fs.eth.type = IBV_FLOW_SPEC_ETH;
	fs.eth.size = sizeof(fs.eth);
	memcpy(fs.eth.val.dst_mac, mac, 6);
	memset(fs.eth.mask.dst_mac, 0xff, 6);
	fs.count.type = IBV_FLOW_SPEC_ACTION_COUNT;
	fs.count.size = sizeof(fs.count);
	fs.count.counters = cnt;
	flow = ibv_create_flow(qp, (struct ibv_flow_attr *)(void *)&fs);
	if (flow == NULL)
		return fail("ibv_create_flow", errno);

	memset(frame, 0, sizeof(frame));
	memcpy(frame, mac, 6);
	frame[6] = 0x02;
	frame[12] = 0x88;	/* local experimental ethertype */
	frame[13] = 0xb5;
	mr = ibv_reg_mr(pd, frame, sizeof(frame), 0);
	for (i = 0; i < N; i++) {
		struct ibv_sge sge = { (uintptr_t)frame, LEN, mr->lkey };
		struct ibv_send_wr wr = { .wr_id = (uint64_t)i, .sg_list = &sge, .num_sge = 1,
					  .opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED };
		struct ibv_send_wr *bad;

		if (ibv_post_send(qp, &wr, &bad))
			return fail("ibv_post_send", EINVAL);
	}
	while (done < N) {
		struct ibv_wc wc[8];
		int n = ibv_poll_cq(cq, 8, wc);

		done += n > 0 ? n : 0;
	}
	ret = ibv_read_counters(cnt, val, 2, IBV_READ_COUNTERS_ATTR_PREFER_CACHED);
	if (ret)
		return fail("ibv_read_counters", ret);
	printf("PACKETS = %" PRIu64 ", BYTES = %" PRIu64 " (sent %d frames of %d bytes)\n",
	       val[0], val[1], N, LEN);

	ibv_destroy_flow(flow);
	ibv_destroy_counters(cnt);
	ibv_destroy_qp(qp);
	ibv_dereg_mr(mr);
	ibv_destroy_cq(cq);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	return val[0] == N && val[1] == (uint64_t)N * LEN ? 0 : 1;
}
