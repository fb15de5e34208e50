/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * An application built outside the tree from the installed driver with
 * `pkg-config libdpdk-tally` only: EAL on one net_tally vdev whose wire
 * replays a pcap, an rte_flow rule eth / ipv4 / udp with COUNT and QUEUE,
 * frames polled in, then the rule's counter read twice: rte_flow_query and
 * rte_pmd_tally_counter_read on the id rte_pmd_tally_flow_counter gives.
 * Prints "flow hits H bytes B; pmd packets P bytes Q" and exits 0 when the
 * two agree and H == argv's expected count. usage: APP EXPECTED_HITS EAL...
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_flow.h>
#include <rte_mbuf.h>
#include <rte_pmd_tally.h>

static int
port_up(uint16_t port, struct rte_mempool *mp)
{
	struct rte_eth_conf conf;

	memset(&conf, 0, sizeof(conf));
	if (rte_eth_dev_configure(port, 1, 1, &conf) != 0 ||
	    rte_eth_rx_queue_setup(port, 0, 512, 0, NULL, mp) != 0 ||
	    rte_eth_tx_queue_setup(port, 0, 512, 0, NULL) != 0)
		return -1;
	return rte_eth_dev_start(port);
}

static struct rte_flow *
udp_count_rule(uint16_t port)
{
	struct rte_flow_attr attr = { .ingress = 1 };
	struct rte_flow_item pattern[] = {
		{ .type = RTE_FLOW_ITEM_TYPE_ETH },
		{ .type = RTE_FLOW_ITEM_TYPE_IPV4 },
		{ .type = RTE_FLOW_ITEM_TYPE_UDP },
		{ .type = RTE_FLOW_ITEM_TYPE_END },
	};
	struct rte_flow_action_queue queue = { .index = 0 };
	struct rte_flow_action actions[] = {
		{ .type = RTE_FLOW_ACTION_TYPE_COUNT },
		{ .type = RTE_FLOW_ACTION_TYPE_QUEUE, .conf = &queue },
		{ .type = RTE_FLOW_ACTION_TYPE_END },
	};
	struct rte_flow_error err;
	struct rte_flow *flow;

	flow = rte_flow_create(port, &attr, pattern, actions, &err);
	if (flow == NULL)
		fprintf(stderr, "rte_flow_create: %s\n",
			err.message ? err.message : "(no message)");
	return flow;
}

int
main(int argc, char **argv)
{
	struct rte_flow_action count = { .type = RTE_FLOW_ACTION_TYPE_COUNT };
	struct rte_flow_query_count qc = { .reset = 0 };
	struct rte_mbuf *pkts[32];
	struct rte_flow_error err;
	struct rte_mempool *mp;
	struct rte_flow *flow;
	uint64_t expect, packets = 0, bytes = 0;
	uint32_t id;
	uint16_t n;
	int i, ret;

	if (argc < 2)
		return 2;
	expect = strtoull(argv[1], NULL, 0);
	ret = rte_eal_init(argc - 1, argv + 1);
	if (ret < 0)
		return 2;
	mp = rte_pktmbuf_pool_create("app", 2048, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE, 0);
	if (mp == NULL || rte_eth_dev_count_avail() != 1 || port_up(0, mp) != 0)
		return 3;
	flow = udp_count_rule(0);
	if (flow == NULL)
		return 4;
	/* The inline model runs in the burst calls: poll until the wire is quiet. */
	for (i = 0; i < 2000; i++) {
		n = rte_eth_rx_burst(0, 0, pkts, 32);
		rte_pktmbuf_free_bulk(pkts, n);
	}
	if (rte_flow_query(0, flow, &count, &qc, &err) != 0 ||
	    rte_pmd_tally_flow_counter(0, flow, &id) != 0 ||
	    rte_pmd_tally_counter_read(0, id, &packets, &bytes) != 0)
		return 5;
	printf("flow hits %" PRIu64 " bytes %" PRIu64 "; pmd packets %" PRIu64
	       " bytes %" PRIu64 "\n", qc.hits, qc.bytes, packets, bytes);
	ret = qc.hits == expect && qc.hits == packets && qc.bytes == bytes ? 0 : 1;
	rte_flow_destroy(0, flow, &err);
	rte_eth_dev_stop(0);
	rte_eth_dev_close(0);
	rte_eal_cleanup();
	return ret;
}
