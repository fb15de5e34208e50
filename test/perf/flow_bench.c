/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rte_flow benchmark on a net_tally port (not a test): N rules
 * eth / ipv4 src is <i> / udp -> count / queue 0, created with
 * rte_flow_create (rules/s), memory per rule (rte_malloc heap delta plus
 * host malloc delta from mallinfo2, divided by N), rte_flow_query ns on a
 * hot rule and on random rules among N (reset=0 and reset=1),
 * rte_flow_action_handle_query ns on an indirect COUNT, then
 * rte_flow_destroy of every rule (rules/s).
 *
 * With FLOW_BENCH_FLOOR=<path of librte_net_flowfloor.so> in the
 * environment the same runs on the floor PMD (test/perf/flowfloor_pmd.c,
 * the least work a PMD can do per call) instead, without the indirect
 * COUNT, which the floor has not: devtools/bench-flow-query.sh puts the two
 * side by side.
 *
 * Create and destroy rates are also given by the thread's CPU time ("cpu"),
 * which a loaded machine distorts less, and memory also as the resident
 * set growth (everything, mappings outside malloc included).
 *
 * usage: flow_bench [rules [eal_mem_mb [queries]]]
 *        (default 1000000 2048 10000000)
 */
#include <inttypes.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_flow.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>

#include "perf_port.h"
#include "tally_dpdk_test.h"

/* Resident bytes of the process. */
static double
rss_bytes(void)
{
	unsigned long size = 0, res = 0;
	FILE *f = fopen("/proc/self/statm", "r");

	if (f == NULL)
		return 0;
	if (fscanf(f, "%lu %lu", &size, &res) != 2)
		res = 0;
	fclose(f);
	return (double)res * (double)sysconf(_SC_PAGESIZE);
}

static size_t
host_used(void)
{
	struct mallinfo2 mi = mallinfo2();

	return mi.uordblks + mi.hblkhd;
}

static uint64_t
xorshift(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static int
port_setup(uint16_t port)
{
	int rc = perf_port_queues(port, "fb_pool");

	return rc == 0 ? rte_eth_dev_start(port) : rc;
}

static const struct rte_flow_action count_action = {
	.type = RTE_FLOW_ACTION_TYPE_COUNT,
};

int
main(int argc, char **argv)
{
	uint32_t nrules = argc > 1 ? (uint32_t)strtoul(argv[1], NULL, 0) : 1000000;
	unsigned long mem = argc > 2 ? strtoul(argv[2], NULL, 0) : 2048;
	uint64_t nq = argc > 3 ? strtoull(argv[3], NULL, 0) : 10000000;
	char vdev[64];
	const struct rte_flow_attr attr = { .ingress = 1 };
	const struct rte_flow_item_ipv4 ip_mask = {
		.hdr.src_addr = RTE_BE32(0xffffffff),
	};
	const struct rte_flow_action_queue queue = { .index = 0 };
	struct rte_flow_item_ipv4 ip_spec;
	struct rte_flow_item pattern[] = {
		{ .type = RTE_FLOW_ITEM_TYPE_ETH },
		{ .type = RTE_FLOW_ITEM_TYPE_IPV4, .spec = &ip_spec, .mask = &ip_mask },
		{ .type = RTE_FLOW_ITEM_TYPE_UDP },
		{ .type = RTE_FLOW_ITEM_TYPE_END },
	};
	const struct rte_flow_action actions[] = {
		{ .type = RTE_FLOW_ACTION_TYPE_COUNT },
		{ .type = RTE_FLOW_ACTION_TYPE_QUEUE, .conf = &queue },
		{ .type = RTE_FLOW_ACTION_TYPE_END },
	};
	const struct rte_flow_indir_action_conf ic = { .ingress = 1 };
	struct rte_flow_action_handle *handle;
	struct rte_flow_query_count qc;
	struct rte_flow_error err;
	struct rte_flow **flows;
	uint32_t *idx, i;
	uint64_t q, seed = 88172645463325252ull, sink = 0;
	size_t heap0, host0, heap1, host1;
	double t0, t1, c0, c1, rss0;
	uint16_t port = 0;
	const char *floor_so = perf_floor_so("FLOW_BENCH_FLOOR");

	snprintf(vdev, sizeof(vdev), "%s,counters=%u", perf_vdev_name(floor_so),
		 nrules + 1 > 1048576 ? nrules + 1 : 1048576);
	if (perf_eal_init_plugin(argv[0], "0", mem, "flow-bench", vdev, floor_so) != 0)
		return 1;
	if (port_setup(port) != 0) {
		fprintf(stderr, "port setup failed\n");
		return 1;
	}
	flows = calloc(nrules, sizeof(*flows));
	idx = malloc(sizeof(*idx) * (nq < nrules ? nq : nrules));
	if (flows == NULL || idx == NULL)
		return 1;
	for (i = 0; i < (nq < nrules ? nq : nrules); i++)
		idx[i] = (uint32_t)(xorshift(&seed) % nrules);
	printf("flow_bench: %s, %u rules eth / ipv4 src is <i> / udp -> count / queue 0\n",
	       floor_so != NULL ? "net_flowfloor" : "net_tally", nrules);

	heap0 = tdt_heap_used();
	host0 = host_used();
	rss0 = rss_bytes();
	c0 = perf_cpu_s();
	t0 = perf_now_s();
	for (i = 0; i < nrules; i++) {
		ip_spec.hdr.src_addr = rte_cpu_to_be_32(i);
		flows[i] = rte_flow_create(port, &attr, pattern, actions, &err);
		if (flows[i] == NULL) {
			fprintf(stderr, "create %u: %s\n", i,
				err.message ? err.message : "?");
			return 1;
		}
	}
	t1 = perf_now_s();
	c1 = perf_cpu_s();
	heap1 = tdt_heap_used();
	host1 = host_used();
	printf("create:  %10.0f rules/s  (%.1f ns/rule, %.3f s; cpu %.0f rules/s)\n",
	       nrules / (t1 - t0), (t1 - t0) * 1e9 / nrules, t1 - t0,
	       nrules / (c1 - c0));
	printf("memory:  %10.1f bytes/rule resident set growth\n",
	       (rss_bytes() - rss0) / nrules);
	printf("memory:  %10.1f bytes/rule  (rte_malloc %.1f + host malloc %.1f)\n",
	       ((double)(heap1 - heap0) + (double)(host1 - host0)) / nrules,
	       (double)(heap1 - heap0) / nrules, (double)(host1 - host0) / nrules);

	/* hot rule */
	memset(&qc, 0, sizeof(qc));
	t0 = perf_now_s();
	for (q = 0; q < nq; q++) {
		qc.reset = 0;
		rte_flow_query(port, flows[nrules / 2], &count_action, &qc, &err);
		sink += qc.hits;
	}
	t1 = perf_now_s();
	printf("query hot rule, reset=0:        %6.1f ns/query\n", (t1 - t0) * 1e9 / nq);
	/* random rules */
	t0 = perf_now_s();
	for (q = 0; q < nq; q++) {
		qc.reset = 0;
		rte_flow_query(port, flows[idx[q % nrules]], &count_action, &qc, &err);
		sink += qc.hits;
	}
	t1 = perf_now_s();
	printf("query random of %u, reset=0: %6.1f ns/query\n", nrules,
	       (t1 - t0) * 1e9 / nq);
	t0 = perf_now_s();
	for (q = 0; q < nq; q++) {
		qc.reset = 1;
		rte_flow_query(port, flows[idx[q % nrules]], &count_action, &qc, &err);
		sink += qc.hits;
	}
	t1 = perf_now_s();
	printf("query random of %u, reset=1: %6.1f ns/query\n", nrules,
	       (t1 - t0) * 1e9 / nq);

	if (floor_so != NULL)
		goto destroy;	/* the floor has no indirect actions */
	handle = rte_flow_action_handle_create(port, &ic, &count_action, &err);
	if (handle == NULL) {
		fprintf(stderr, "handle: %s\n", err.message ? err.message : "?");
		return 1;
	}
	t0 = perf_now_s();
	for (q = 0; q < nq; q++) {
		qc.reset = 0;
		rte_flow_action_handle_query(port, handle, &qc, &err);
		sink += qc.hits;
	}
	t1 = perf_now_s();
	printf("action_handle_query, reset=0:   %6.1f ns/query\n", (t1 - t0) * 1e9 / nq);
	rte_flow_action_handle_destroy(port, handle, &err);

destroy:
	c0 = perf_cpu_s();
	t0 = perf_now_s();
	for (i = 0; i < nrules; i++) {
		if (rte_flow_destroy(port, flows[i], &err) != 0) {
			fprintf(stderr, "destroy %u: %s\n", i,
				err.message ? err.message : "?");
			return 1;
		}
	}
	t1 = perf_now_s();
	c1 = perf_cpu_s();
	printf("destroy: %10.0f rules/s  (%.1f ns/rule, %.3f s; cpu %.0f rules/s)\n",
	       nrules / (t1 - t0), (t1 - t0) * 1e9 / nrules, t1 - t0,
	       nrules / (c1 - c0));
	if (sink == UINT64_MAX)
		printf("\n");
	free(flows);
	free(idx);
	rte_eth_dev_stop(port);
	rte_eth_dev_close(port);
	rte_eal_cleanup();
	return 0;
}
