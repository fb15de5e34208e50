/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A legacy verbs program counting a traffic class: a RAW_PACKET QP, a flow
 * eth / ipv4 / udp steering to it with a counters object (PACKETS at index
 * 0, BYTES at 1), print "flow ready", receive for `seconds` (default 2),
 * then read the counters with ibv_read_counters and print
 *   "ibv_read_counters: packets P bytes B".
 * Written against rdma-core's <infiniband/verbs.h> only; devtools/demo.sh
 * runs it on a Tally port replaying test/data/demo.pcap, the traffic the
 * testpmd part of the demo counts with rte_flow.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <infiniband/verbs.h>

#define NB_BUF	64
#define BUF_LEN	2048

struct flow_spec {
	struct ibv_flow_attr attr;
	struct ibv_flow_spec_eth eth;
	struct ibv_flow_spec_ipv4 ip;
	struct ibv_flow_spec_tcp_udp udp;
	struct ibv_flow_spec_counter_action count;
} __attribute__((packed, aligned(8)));

static uint8_t bufs[NB_BUF][BUF_LEN];

static int
fail(const char *what, int err)
{
	fprintf(stderr, "%s: %s\n", what, strerror(err));
	return 1;
}

static int
post_recv(struct ibv_qp *qp, struct ibv_mr *mr, unsigned int i)
{
	struct ibv_sge sge = { (uintptr_t)bufs[i], BUF_LEN, mr->lkey };
	struct ibv_recv_wr wr = { .wr_id = i, .sg_list = &sge, .num_sge = 1 };
	struct ibv_recv_wr *bad;

	return ibv_post_recv(qp, &wr, &bad);
}

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int
main(int argc, char **argv)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_qp_init_attr qia = { .qp_type = IBV_QPT_RAW_PACKET };
	struct ibv_qp_attr qa = { .qp_state = IBV_QPS_INIT, .port_num = 1 };
	struct ibv_counter_attach_attr at = { .counter_desc = IBV_COUNTER_PACKETS };
	double secs = argc > 1 ? atof(argv[1]) : 2, end;
	struct ibv_context *ctx;
	struct ibv_counters *cnt;
	struct flow_spec fs;
	struct ibv_flow *flow;
	struct ibv_mr *mr;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	uint64_t val[2], got = 0;
	unsigned int i;
	int ret;

	if (list == NULL || list[0] == NULL)
		return fail("no RDMA device", errno ? errno : ENODEV);
	ctx = ibv_open_device(list[0]);
	ibv_free_device_list(list);
	if (ctx == NULL)
		return fail("ibv_open_device", errno);
	pd = ibv_alloc_pd(ctx);
	cq = ibv_create_cq(ctx, NB_BUF, NULL, NULL, 0);
	if (pd == NULL || cq == NULL)
		return fail("pd/cq", errno);
	qia.send_cq = cq;
	qia.recv_cq = cq;
	qia.cap.max_recv_wr = NB_BUF;
	qia.cap.max_recv_sge = 1;
	qp = ibv_create_qp(pd, &qia);
	if (qp == NULL)
		return fail("ibv_create_qp", errno);
	if (ibv_modify_qp(qp, &qa, IBV_QP_STATE | IBV_QP_PORT))
		return fail("INIT", EINVAL);
	qa.qp_state = IBV_QPS_RTR;
	if (ibv_modify_qp(qp, &qa, IBV_QP_STATE))
		return fail("RTR", EINVAL);
	mr = ibv_reg_mr(pd, bufs, sizeof(bufs), IBV_ACCESS_LOCAL_WRITE);
	if (mr == NULL)
		return fail("ibv_reg_mr", errno);
	for (i = 0; i < NB_BUF; i++)
		if (post_recv(qp, mr, i))
			return fail("ibv_post_recv", EINVAL);

	cnt = ibv_create_counters(ctx, &(struct ibv_counters_init_attr){ 0 });
	if (cnt == NULL)
		return fail("ibv_create_counters", errno);
	if ((ret = ibv_attach_counters_point_flow(cnt, &at, NULL)) != 0)
		return fail("attach PACKETS", ret);
	at.counter_desc = IBV_COUNTER_BYTES;
	at.index = 1;
	if ((ret = ibv_attach_counters_point_flow(cnt, &at, NULL)) != 0)
		return fail("attach BYTES", ret);

	/* eth / ipv4 / udp, every field wildcarded: the UDP spec alone asks for
	 * IPv4 protocol 17, as on mlx5 */
	memset(&fs, 0, sizeof(fs));
	fs.attr.type = IBV_FLOW_ATTR_NORMAL;
	fs.attr.size = sizeof(fs);
	fs.attr.num_of_specs = 4;
	fs.attr.port = 1;
	fs.eth.type = IBV_FLOW_SPEC_ETH;
	fs.eth.size = sizeof(fs.eth);
	fs.ip.type = IBV_FLOW_SPEC_IPV4;
	fs.ip.size = sizeof(fs.ip);
	fs.udp.type = IBV_FLOW_SPEC_UDP;
	fs.udp.size = sizeof(fs.udp);
	fs.count.type = IBV_FLOW_SPEC_ACTION_COUNT;
	fs.count.size = sizeof(fs.count);
	fs.count.counters = cnt;
	flow = ibv_create_flow(qp, (struct ibv_flow_attr *)(void *)&fs);
	if (flow == NULL)
		return fail("ibv_create_flow", errno);
	printf("flow ready\n");	/* whoever holds the traffic may let it go */
	fflush(stdout);

	for (end = now() + secs; now() < end;) {
		struct ibv_wc wc[16];
		int n = ibv_poll_cq(cq, 16, wc), k;

		for (k = 0; k < n; k++) {
			got++;
			if (post_recv(qp, mr, (unsigned int)wc[k].wr_id))
				return fail("ibv_post_recv", EINVAL);
		}
	}
	ret = ibv_read_counters(cnt, val, 2, IBV_READ_COUNTERS_ATTR_PREFER_CACHED);
	if (ret)
		return fail("ibv_read_counters", ret);
	printf("received %" PRIu64 " frames on the QP\n", got);
	printf("ibv_read_counters: packets %" PRIu64 " bytes %" PRIu64 "\n",
	       val[0], val[1]);
	ibv_destroy_flow(flow);
	ibv_destroy_counters(cnt);
	ibv_destroy_qp(qp);
	ibv_dereg_mr(mr);
	ibv_destroy_cq(cq);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	return 0;
}
