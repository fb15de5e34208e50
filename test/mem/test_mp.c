/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A Tally port in a secondary process, the symmetric_mp way: the primary
 * sets the port up (two queues, a rule sending the test's UDP flow to queue
 * 1 with a counter) and then only waits; a secondary process sends on Tx
 * queue 1 and receives every frame, intact, on Rx queue 1, reads the
 * statistics and the rule's counter (which the primary reads for it), and
 * is refused, with EPERM, what only the primary may do.
 *
 *   test_mp                      the primary; runs itself as the secondary
 *   test_mp --secondary PREFIX PORT_NAME COUNTER_ID
 *
 * With TALLY_TEST_NIC=<tally-nic> the device is a tally-nic process. Exits
 * 77 when the machine has no huge pages free.
 */
#include <rte_flow.h>

#include "tally_mem_test.h"

#define NB_FRAMES	1000
#define FRAME_LEN	200
#define CHUNK		64

/* ---- the secondary ------------------------------------------------------- */

static int
sec_refusals(uint16_t port)
{
	const struct rte_flow_item pattern[] = {
		{ .type = RTE_FLOW_ITEM_TYPE_ETH },
		{ .type = RTE_FLOW_ITEM_TYPE_END },
	};
	const struct rte_flow_action actions[] = {
		{ .type = RTE_FLOW_ACTION_TYPE_DROP },
		{ .type = RTE_FLOW_ACTION_TYPE_END },
	};
	const struct rte_flow_attr attr = { .ingress = 1 };
	struct rte_ether_addr mac = {{ 0x02, 0x11, 0x22, 0x33, 0x44, 0x55 }};
	struct rte_flow_error err;

	/* (configure is ethdev's -EBUSY first, the port runs; and ethdev
	 * points this process's burst functions at dummies before it asks
	 * the driver to stop) */
	TEST_ASSERT_EQ(rte_eth_promiscuous_disable(port), -EPERM, "");
	TEST_ASSERT_EQ(rte_eth_dev_set_mtu(port, 1400), -EPERM, "");
	TEST_ASSERT_EQ(rte_eth_dev_default_mac_addr_set(port, &mac), -EPERM, "");
	TEST_ASSERT_EQ(rte_eth_dev_mac_addr_add(port, &mac, 0), -EPERM, "");
	/* no remove op in a secondary: ethdev refuses before it clears */
	TEST_ASSERT_EQ(rte_eth_dev_mac_addr_remove(port, &mac), -ENOTSUP, "");
	mac.addr_bytes[0] = 0x01;
	TEST_ASSERT_EQ(rte_eth_dev_set_mc_addr_list(port, &mac, 1), -EPERM, "");
	TEST_ASSERT_EQ(rte_eth_dev_set_link_down(port), -EPERM, "");
	TEST_ASSERT_EQ(rte_eth_dev_set_link_up(port), -EPERM, "");
	TEST_ASSERT_EQ(rte_eth_dev_rx_queue_stop(port, 0), -EPERM, "");
	memset(&err, 0, sizeof(err));
	TEST_ASSERT_EQ(rte_flow_validate(port, &attr, pattern, actions, &err), -EPERM,
		       "%s", err.message ? err.message : "");
	TEST_ASSERT(rte_flow_create(port, &attr, pattern, actions, &err) == NULL, "");
	return TEST_SUCCESS;
}

static int
sec_traffic(uint16_t port, uint32_t cnt_id)
{
	struct rte_mbuf *tx[CHUNK], *rx[CHUNK];
	struct rte_eth_stats st0, st1;
	uint64_t pkts, bytes;
	unsigned int i, k, c, got;

	TEST_ASSERT_EQ(rte_eth_stats_get(port, &st0), 0, "");
	for (i = 0; i < NB_FRAMES; i += c) {
		c = RTE_MIN(NB_FRAMES - i, (unsigned int)CHUNK);
		for (k = 0; k < c; k++) {
			tx[k] = tdt_mbuf_build(FRAME_LEN, i + k, 1);
			TEST_ASSERT(tx[k] != NULL, "");
		}
		TEST_ASSERT_EQ(tdt_tx_all(port, 1, tx, c), c, "sent on queue 1");
		/* queue 1 only: the rule steers the flow there */
		got = 0;
		{
			uint64_t t0 = rte_get_timer_cycles(), hz = rte_get_timer_hz();

			while (got < c && rte_get_timer_cycles() - t0 < 2 * hz)
				got += rte_eth_rx_burst(port, 1, rx + got, (uint16_t)(c - got));
		}
		TEST_ASSERT_EQ(got, c, "received on queue 1, frames %u..", i);
		for (k = 0; k < got; k++)
			TEST_ASSERT_EQ(tdt_mbuf_check(rx[k], FRAME_LEN, i + k), 0, "frame %u", i + k);
		tdt_free_all(rx, got);
	}
	TEST_ASSERT_EQ(rte_eth_stats_get(port, &st1), 0, "");
	TEST_ASSERT_U64_EQ(st1.ipackets - st0.ipackets, NB_FRAMES, "");
	TEST_ASSERT_U64_EQ(st1.q_ipackets[1] - st0.q_ipackets[1], NB_FRAMES, "");
	TEST_ASSERT_U64_EQ(st1.opackets - st0.opackets, NB_FRAMES, "");
	TEST_ASSERT_U64_EQ(tdt_xstat(port, "dma_faults"), 0, "");
	/* the rule's counter: the primary reads it for us */
	TEST_ASSERT_EQ(rte_pmd_tally_counter_read(port, cnt_id, &pkts, &bytes), 0, "");
	TEST_ASSERT_U64_EQ(pkts, NB_FRAMES, "");
	TEST_ASSERT_U64_EQ(bytes, (uint64_t)NB_FRAMES * FRAME_LEN, "");
	TEST_ASSERT_EQ(rte_pmd_tally_counter_read(port, 1u << 30, &pkts, &bytes) < 0, 1, "");
	return TEST_SUCCESS;
}

static int
secondary(char **argv)
{
	char fp[96];
	char *eal[] = { argv[0], (char *)"-l", (char *)"1", (char *)"--proc-type=secondary",
			fp, (char *)"--no-pci", (char *)"--log-level=pmd.net.tally*:notice" };
	uint32_t cnt_id = (uint32_t)strtoul(argv[4], NULL, 0);
	uint16_t port;
	int rc;

	snprintf(fp, sizeof(fp), "--file-prefix=%s", argv[2]);
	if (rte_eal_init((int)RTE_DIM(eal), eal) < 0) {
		fprintf(stderr, "secondary: rte_eal_init: %s\n", rte_strerror(rte_errno));
		return 1;
	}
	if (rte_eth_dev_get_port_by_name(argv[3], &port) != 0) {
		fprintf(stderr, "secondary: no port %s\n", argv[3]);
		return 1;
	}
	/* the primary's pool: mbufs sent here stay on the primary's ring until
	 * their completions come back, so they must outlive this process */
	tdt_pool = rte_mempool_lookup("tdt_pool");
	if (tdt_pool == NULL)
		return 1;
	rc = sec_refusals(port);
	if (rc == TEST_SUCCESS)
		rc = sec_traffic(port, cnt_id);
	rte_eal_cleanup();
	printf("secondary: %s\n", rc == TEST_SUCCESS ? "ok" : "FAILED");
	return rc == TEST_SUCCESS ? 0 : 1;
}

/* ---- the primary ---------------------------------------------------------- */

static struct rte_flow *
steer_to_q1(uint16_t port)
{
	const struct rte_flow_item_udp spec = { .hdr.dst_port = RTE_BE16(4790) };
	const struct rte_flow_item_udp mask = { .hdr.dst_port = RTE_BE16(0xffff) };
	const struct rte_flow_action_queue q1 = { .index = 1 };
	const struct rte_flow_item pattern[] = {
		{ .type = RTE_FLOW_ITEM_TYPE_ETH },
		{ .type = RTE_FLOW_ITEM_TYPE_IPV4 },
		{ .type = RTE_FLOW_ITEM_TYPE_UDP, .spec = &spec, .mask = &mask },
		{ .type = RTE_FLOW_ITEM_TYPE_END },
	};
	const struct rte_flow_action actions[] = {
		{ .type = RTE_FLOW_ACTION_TYPE_COUNT },
		{ .type = RTE_FLOW_ACTION_TYPE_QUEUE, .conf = &q1 },
		{ .type = RTE_FLOW_ACTION_TYPE_END },
	};
	const struct rte_flow_attr attr = { .ingress = 1 };
	struct rte_flow_error err;

	return rte_flow_create(port, &attr, pattern, actions, &err);
}

static int
run_secondary(const char *self, const char *prefix, const char *name, uint32_t id)
{
	char idbuf[16];
	int status;
	pid_t pid;

	snprintf(idbuf, sizeof(idbuf), "%u", id);
	pid = fork();
	if (pid == 0) {
		/* a sanitizer build: EAL's vdev bus never frees the device list
		 * a secondary receives from the primary (not ours to report) */
		char asan[512];

		snprintf(asan, sizeof(asan), "%s:detect_leaks=0",
			 getenv("ASAN_OPTIONS") ? getenv("ASAN_OPTIONS") : "");
		setenv("ASAN_OPTIONS", asan, 1);
		execl(self, self, "--secondary", prefix, name, idbuf, (char *)NULL);
		_exit(127);
	}
	TEST_ASSERT(pid > 0, "");
	TEST_ASSERT_EQ(waitpid(pid, &status, 0), pid, "");
	TEST_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0, "secondary status 0x%x", status);
	return TEST_SUCCESS;
}

static int
primary(const char *self, const char *prefix)
{
	struct tdt_port_conf pc = { .nb_rxq = 2, .nb_txq = 2, .promisc = true };
	struct rte_eth_stats st;
	uint64_t pkts, bytes;
	struct rte_flow *f;
	char name[32];
	uint32_t id;
	int port, rc;

	port = tdt_port_create("", name, sizeof(name));
	TEST_ASSERT(port >= 0, "%d", port);
	pc.mp = tdt_pool;
	TEST_ASSERT_EQ(tdt_port_setup((uint16_t)port, &pc), 0, "");
	f = steer_to_q1((uint16_t)port);
	TEST_ASSERT(f != NULL, "");
	TEST_ASSERT_EQ(rte_pmd_tally_flow_counter((uint16_t)port, f, &id), 0, "");
	/* the primary polls nothing from here on */
	rc = run_secondary(self, prefix, name, id);
	if (rc != TEST_SUCCESS)
		return rc;
	TEST_ASSERT_EQ(rte_pmd_tally_counter_read((uint16_t)port, id, &pkts, &bytes), 0, "");
	TEST_ASSERT_U64_EQ(pkts, NB_FRAMES, "");
	TEST_ASSERT_EQ(rte_eth_stats_get((uint16_t)port, &st), 0, "");
	TEST_ASSERT_U64_EQ(st.q_ipackets[1], NB_FRAMES, "");
	TEST_ASSERT_U64_EQ(st.q_ipackets[0], 0, "");
	tdt_port_destroy((uint16_t)port, name);
	return TEST_SUCCESS;
}

int
main(int argc, char **argv)
{
	char prefix[64], fp[96];
	/* memory far from where libraries (and a sanitizer's shadow) land, so
	 * the secondary can map it at the same addresses */
	char *eal[] = { argv[0], (char *)"-l", (char *)"0", fp, (char *)"--no-pci",
			(char *)"--base-virtaddr=0x200000000000",
			(char *)"--log-level=pmd.net.tally*:notice" };
	int rc;

	if (rte_pmd_tally_model_step(RTE_MAX_ETHPORTS) != -ENODEV)
		return 1;	/* keeps the PMD linked */
	if (argc == 5 && strcmp(argv[1], "--secondary") == 0)
		return secondary(argv);
	tmt_need_huge(256);
	snprintf(prefix, sizeof(prefix), "tally-mp-%d", (int)getpid());
	snprintf(fp, sizeof(fp), "--file-prefix=%s", prefix);
	if (tdt_nic_path() != NULL)
		atexit(tdt_nic_stop_all);
	if (rte_eal_init((int)RTE_DIM(eal), eal) < 0) {
		fprintf(stderr, "rte_eal_init: %s\n", rte_strerror(rte_errno));
		tmt_huge_files_remove(prefix);
		return 1;
	}
	tdt_pool = rte_pktmbuf_pool_create("tdt_pool", TDT_NB_MBUF, 256, 0,
					   RTE_MBUF_DEFAULT_BUF_SIZE, rte_socket_id());
	rc = tdt_pool != NULL ? primary(argv[0], prefix) : TEST_FAILED;
	printf("mp: primary %s\n", rc == TEST_SUCCESS ? "ok" : "FAILED");
	rte_eal_cleanup();
	tmt_huge_files_remove(prefix);
	{
		char dir[PATH_MAX];

		snprintf(dir, sizeof(dir), "rm -rf /var/run/dpdk/%s", prefix);
		if (system(dir) != 0)
			rc = TEST_FAILED;
	}
	return rc == TEST_SUCCESS ? 0 : 1;
}
