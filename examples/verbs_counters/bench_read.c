/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Benchmark (not a test): cost of one counter read through
 * ibv_read_counters() (PACKETS and BYTES points) next to
 * rte_pmd_tally_counter_read() (tally_cnt_read() underneath), on a counter
 * bound to a live flow. Usage: verbs_counters_bench [iterations]
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <infiniband/verbs.h>
#include <rte_pmd_tally.h>
#include <tally_verbs.h>

struct flow_spec {
	struct ibv_flow_attr attr;
	struct ibv_flow_spec_eth eth;
	struct ibv_flow_spec_counter_action count;
} __attribute__((packed, aligned(8)));

static double
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

int
main(int argc, char **argv)
{
	unsigned long iters = argc > 1 ? strtoul(argv[1], NULL, 0) : 10000000ul;
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_qp_init_attr qia = { .qp_type = IBV_QPT_RAW_PACKET };
	struct ibv_counter_attach_attr at = { .counter_desc = IBV_COUNTER_PACKETS };
	struct ibv_context *ctx;
	struct ibv_counters *cnt;
	struct flow_spec fs;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_flow *flow;
	uint64_t v[2], p, b, sink = 0;
	uint32_t id;
	uint16_t port;
	unsigned long i;
	double t0, t1, t2;

	if (list == NULL || list[0] == NULL)
		return 1;
	ctx = ibv_open_device(list[0]);
	cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	qia.send_cq = cq;
	qia.recv_cq = cq;
	qp = ibv_create_qp(ibv_alloc_pd(ctx), &qia);
	cnt = ibv_create_counters(ctx, NULL);
	ibv_attach_counters_point_flow(cnt, &at, NULL);
	at.counter_desc = IBV_COUNTER_BYTES;
	at.index = 1;
	ibv_attach_counters_point_flow(cnt, &at, NULL);
	memset(&fs, 0, sizeof(fs));
	fs.attr.type = IBV_FLOW_ATTR_NORMAL;
	fs.attr.num_of_specs = 2;
	fs.attr.port = 1;
	fs.eth.type = IBV_FLOW_SPEC_ETH;
	fs.eth.size = sizeof(fs.eth);
	fs.eth.val.dst_mac[0] = 0x02;
	memset(fs.eth.mask.dst_mac, 0xff, 6);
	fs.count.type = IBV_FLOW_SPEC_ACTION_COUNT;
	fs.count.size = sizeof(fs.count);
	fs.count.counters = cnt;
	flow = ibv_create_flow(qp, (struct ibv_flow_attr *)(void *)&fs);
	if (flow == NULL || tally_verbs_port_id(ctx, &port) != 0 ||
	    rte_pmd_tally_counter_alloc(port, &id) != 0)
		return 1;

	t0 = now_ns();
	for (i = 0; i < iters; i++) {
		ibv_read_counters(cnt, v, 2, IBV_READ_COUNTERS_ATTR_PREFER_CACHED);
		sink += v[0];
	}
	t1 = now_ns();
	for (i = 0; i < iters; i++) {
		rte_pmd_tally_counter_read(port, id, &p, &b);
		sink += p;
	}
	t2 = now_ns();
	printf("iterations %lu\n", iters);
	printf("ibv_read_counters (2 points)   %6.1f ns/call\n", (t1 - t0) / (double)iters);
	printf("rte_pmd_tally_counter_read     %6.1f ns/call\n", (t2 - t1) / (double)iters);
	rte_pmd_tally_counter_free(port, id);
	ibv_destroy_flow(flow);
	ibv_destroy_counters(cnt);
	return sink == UINT64_MAX;	/* keep the loops */
}
