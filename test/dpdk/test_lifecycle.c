/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Port lifecycle on net_tally: configure/start/stop/restart/close with 1 and
 * 8 queues, queue setup refused on a started port, reconfigure after stop,
 * device info and link state.
 */
#include "tally_dpdk_test.h"

static int
check_cycle(uint16_t nq)
{
	struct tdt_port_conf pc = { .nb_rxq = nq, .nb_txq = nq };
	struct rte_eth_link link;
	char name[32];
	int port, rc, i;
	uint16_t before = rte_eth_dev_count_avail();

	port = tdt_port_create("", name, sizeof(name));
	TEST_ASSERT(port >= 0, "create: %d", port);
	TEST_ASSERT_EQ(rte_eth_dev_count_avail(), before + 1, "");
	for (i = 0; i < 2; i++) {
		rc = tdt_port_setup(port, &pc);
		TEST_ASSERT_EQ(rc, 0, "setup round %d", i);
		TEST_ASSERT_EQ(rte_eth_link_get_nowait(port, &link), 0, "");
		TEST_ASSERT_EQ(link.link_status, RTE_ETH_LINK_UP, "");
		TEST_ASSERT_EQ(link.link_speed, RTE_ETH_SPEED_NUM_100G, "");
		TEST_ASSERT_EQ(link.link_duplex, RTE_ETH_LINK_FULL_DUPLEX, "");
		/* no runtime queue setup */
		TEST_ASSERT(rte_eth_rx_queue_setup(port, 0, TDT_NB_DESC, 0, NULL,
						   tdt_pool) < 0, "rx setup on started port");
		TEST_ASSERT(rte_eth_tx_queue_setup(port, 0, TDT_NB_DESC, 0, NULL) < 0,
			    "tx setup on started port");
		/* restart without reconfigure */
		TEST_ASSERT_EQ(rte_eth_dev_stop(port), 0, "");
		TEST_ASSERT_EQ(rte_eth_link_get_nowait(port, &link), 0, "");
		TEST_ASSERT_EQ(link.link_status, RTE_ETH_LINK_DOWN, "");
		TEST_ASSERT_EQ(rte_eth_dev_start(port), 0, "restart");
		TEST_ASSERT_EQ(rte_eth_dev_stop(port), 0, "");
		/* reconfigure after stop: the other queue count */
		pc.nb_rxq = pc.nb_txq = (nq == 1) ? 8 : 1;
	}
	TEST_ASSERT_EQ(rte_eth_dev_close(port), 0, "");
	TEST_ASSERT_EQ(rte_eth_dev_count_avail(), before, "");
	rte_eal_hotplug_remove("vdev", name);
	return TEST_SUCCESS;
}

static int
test_cycle_1q(void)
{
	return check_cycle(1);
}

static int
test_cycle_8q(void)
{
	return check_cycle(8);
}

static int
test_dev_info(void)
{
	struct rte_eth_dev_info info;
	struct rte_ether_addr mac;
	char name[32], fw[64];
	int port;

	port = tdt_port_create("rxq=2,txq=3,mac=02:11:22:33:44:55", name,
			       sizeof(name));
	TEST_ASSERT(port >= 0, "create: %d", port);
	TEST_ASSERT_EQ(rte_eth_dev_info_get(port, &info), 0, "");
	TEST_ASSERT_EQ(info.max_rx_queues, 2, "");
	TEST_ASSERT_EQ(info.max_tx_queues, 3, "");
	TEST_ASSERT(info.max_rx_pktlen >= 9216, "%u", info.max_rx_pktlen);
	TEST_ASSERT_EQ(info.reta_size, 128, "");
	TEST_ASSERT_EQ(info.hash_key_size, 40, "");
	TEST_ASSERT((info.flow_type_rss_offloads & RTE_ETH_RSS_IP) == RTE_ETH_RSS_IP, "");
	TEST_ASSERT(info.rx_offload_capa & RTE_ETH_RX_OFFLOAD_SCATTER, "");
	TEST_ASSERT(info.tx_offload_capa & RTE_ETH_TX_OFFLOAD_MULTI_SEGS, "");
	TEST_ASSERT_EQ(info.default_rxportconf.ring_size, 256, "");
	TEST_ASSERT(info.dev_capa & RTE_ETH_DEV_CAPA_FLOW_RULE_KEEP, "");
	TEST_ASSERT_EQ(rte_eth_macaddr_get(port, &mac), 0, "");
	TEST_ASSERT(memcmp(mac.addr_bytes, "\x02\x11\x22\x33\x44\x55", 6) == 0, "mac");
	TEST_ASSERT_EQ(rte_eth_dev_fw_version_get(port, fw, sizeof(fw)), 0, "");
	TEST_ASSERT(strncmp(fw, "tally-spec 2.", 13) == 0, "%s", fw);
	/* more queues than the device has */
	TEST_ASSERT(rte_eth_dev_configure(port, 3, 1, &(struct rte_eth_conf){ 0 }) < 0, "");
	/* descriptor counts must be powers of two in range */
	TEST_ASSERT_EQ(rte_eth_dev_configure(port, 1, 1, &(struct rte_eth_conf){ 0 }), 0, "");
	TEST_ASSERT(rte_eth_rx_queue_setup(port, 0, 100, 0, NULL, tdt_pool) < 0, "");
	TEST_ASSERT(rte_eth_tx_queue_setup(port, 0, 8, 0, NULL) < 0, "");
	TEST_ASSERT_EQ(rte_pmd_tally_dump(port, stdout), 0, "");
	tdt_port_destroy(port, name);
	return TEST_SUCCESS;
}

static int
test_default_port(void)
{
	/* --vdev net_tally0 with no arguments probed at EAL init */
	struct tdt_port_conf pc = { .nb_rxq = 1, .nb_txq = 1 };
	int port = tdt_port_by_name("net_tally0");

	TEST_ASSERT(port >= 0, "net_tally0 missing");
	TEST_ASSERT_EQ(tdt_port_setup(port, &pc), 0, "");
	TEST_ASSERT_EQ(rte_eth_dev_stop(port), 0, "");
	TEST_ASSERT_EQ(rte_pmd_tally_model_step(port) >= 0, 1, "");
	TEST_ASSERT_EQ(rte_pmd_tally_model_step(RTE_MAX_ETHPORTS - 1), -ENODEV, "");
	return TEST_SUCCESS;
}

static const struct tally_test_case cases[] = {
	TEST_CASE(test_default_port),
	TEST_CASE(test_cycle_1q),
	TEST_CASE(test_cycle_8q),
	TEST_CASE(test_dev_info),
};

int
main(void)
{
	int rc;

	tdt_eal_init("tally-lifecycle");
	rc = tally_test_run("dpdk-lifecycle", cases, RTE_DIM(cases));
	rte_eal_cleanup();
	return rc;
}
