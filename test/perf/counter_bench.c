/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Counter read cost on one net_tally port (a benchmark, not a test): a rule
 * eth / ipv4 -> count / queue 0 with frames through the loop wire, then
 * rte_flow_query (reset=0) and rte_pmd_tally_counter_read on its counter,
 * ns/call over N calls each. The port's device is the in-process model, or
 * the device process when DEVARGS is dev=<socket> (reads then load from the
 * other process's BAR, as from MMIO).
 *
 * usage: counter_bench [DEVARGS [CALLS]]   (default "" 10000000)
 */
#include <inttypes.h>
#include <time.h>

#include <rte_flow.h>

#include "tally_dpdk_test.h"

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int
main(int argc, char **argv)
{
	const char *devargs = argc > 1 ? argv[1] : "";
	unsigned long calls = argc > 2 ? strtoul(argv[2], NULL, 0) : 10000000ul;
	struct tdt_port_conf pc = { .nb_rxq = 1, .nb_txq = 1 };
	const struct rte_flow_item pat[] = {
		{ .type = RTE_FLOW_ITEM_TYPE_ETH },
		{ .type = RTE_FLOW_ITEM_TYPE_IPV4 },
		{ .type = RTE_FLOW_ITEM_TYPE_END },
	};
	const struct rte_flow_action_queue q0 = { .index = 0 };
	const struct rte_flow_action act[] = {
		{ .type = RTE_FLOW_ACTION_TYPE_COUNT },
		{ .type = RTE_FLOW_ACTION_TYPE_QUEUE, .conf = &q0 },
		{ .type = RTE_FLOW_ACTION_TYPE_END },
	};
	const struct rte_flow_action count = { .type = RTE_FLOW_ACTION_TYPE_COUNT };
	const struct rte_flow_attr attr = { .ingress = 1 };
	struct rte_flow_query_count qc = { .reset = 0 };
	struct rte_mbuf *tx[32], *rx[64];
	struct rte_flow_error err;
	struct rte_flow *flow;
	uint64_t pkts = 0, bytes = 0, sum = 0;
	uint32_t id;
	unsigned long i;
	unsigned int k, got;
	char name[32];
	double t0, t1;
	int port;

	/* the port under test is created after EAL; EAL's own is in-process */
	unsetenv("TALLY_TEST_NIC");
	tdt_eal_init("counter-bench");
	port = tdt_port_create(devargs, name, sizeof(name));
	if (port < 0 || tdt_port_setup((uint16_t)port, &pc) != 0) {
		fprintf(stderr, "port '%s': %d\n", devargs, port);
		return 1;
	}
	flow = rte_flow_create((uint16_t)port, &attr, pat, act, &err);
	if (flow == NULL ||
	    rte_pmd_tally_flow_counter((uint16_t)port, flow, &id) != 0) {
		fprintf(stderr, "flow: %s\n", err.message ? err.message : "?");
		return 1;
	}
	for (k = 0; k < RTE_DIM(tx); k++)
		tx[k] = tdt_mbuf_build(64, k, 1);
	tdt_tx_all((uint16_t)port, 0, tx, RTE_DIM(tx));
	got = tdt_rx_all((uint16_t)port, 1, rx, NULL, RTE_DIM(rx), RTE_DIM(tx));
	tdt_free_all(rx, got);

	t0 = now_s();
	for (i = 0; i < calls; i++) {
		rte_flow_query((uint16_t)port, flow, &count, &qc, &err);
		sum += qc.hits;
	}
	t1 = now_s();
	printf("rte_flow_query:             %6.1f ns/call (hits %" PRIu64 ")\n",
	       (t1 - t0) * 1e9 / (double)calls, (uint64_t)qc.hits);
	t0 = now_s();
	for (i = 0; i < calls; i++) {
		rte_pmd_tally_counter_read((uint16_t)port, id, &pkts, &bytes);
		sum += pkts;
	}
	t1 = now_s();
	printf("rte_pmd_tally_counter_read: %6.1f ns/call (packets %" PRIu64 ")\n",
	       (t1 - t0) * 1e9 / (double)calls, pkts);
	if (sum == 0 || pkts != got)
		fprintf(stderr, "warning: %u frames looped, counter says %" PRIu64 "\n",
			got, pkts);
	rte_flow_destroy((uint16_t)port, flow, &err);
	tdt_port_destroy((uint16_t)port, name);
	return 0;
}
