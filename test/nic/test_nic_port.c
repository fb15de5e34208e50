/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A DPDK port whose device process dies mid-traffic: the driver reports the
 * link down and a removal event, bursts and flow calls return without
 * hanging, and a restarted device with a re-probed port works again.
 * A port whose BAR file shrinks under it (truncated by someone): no SIGBUS
 * reaches the application, the device counts as lost.
 * Runs with TALLY_TEST_NIC set (every port's device is a tally-nic).
 */
#include <sys/mman.h>

#include <rte_flow.h>

#include "tally_dpdk_test.h"

static int rmv_events;

/* The rule both cases make: every frame counted. */
static const struct rte_flow_item pat[] = {
	{ .type = RTE_FLOW_ITEM_TYPE_ETH },
	{ .type = RTE_FLOW_ITEM_TYPE_END },
};
static const struct rte_flow_action act[] = {
	{ .type = RTE_FLOW_ACTION_TYPE_COUNT },
	{ .type = RTE_FLOW_ACTION_TYPE_END },
};
static const struct rte_flow_attr attr = { .ingress = 1 };

static int
on_rmv(uint16_t port, enum rte_eth_event_type ev, void *arg, void *ret)
{
	RTE_SET_USED(port);
	RTE_SET_USED(arg);
	RTE_SET_USED(ret);
	if (ev == RTE_ETH_EVENT_INTR_RMV)
		__atomic_add_fetch(&rmv_events, 1, __ATOMIC_RELEASE);
	return 0;
}

static int
test_device_killed_midtraffic(void)
{
	struct tdt_port_conf pc = { .nb_rxq = 1, .nb_txq = 1 };
	struct rte_mbuf *tx[32];
	struct rte_eth_link link;
	struct rte_eth_stats st;
	struct rte_flow_error err;
	char name[32];
	uint64_t t0, hz = rte_get_timer_hz();
	unsigned int i, k;
	int port;
	pid_t pid;

	port = tdt_port_create("wire=loop", name, sizeof(name));
	TEST_ASSERT(port >= 0, "create %d", port);
	TEST_ASSERT_EQ(tdt_port_setup((uint16_t)port, &pc), 0, "");
	TEST_ASSERT_EQ(rte_eth_dev_callback_register((uint16_t)port,
		RTE_ETH_EVENT_INTR_RMV, on_rmv, NULL), 0, "");
	TEST_ASSERT_EQ(tdt_loop_frames((uint16_t)port, 32), 32, "traffic before");
	TEST_ASSERT_EQ(rte_eth_link_get_nowait((uint16_t)port, &link), 0, "");
	TEST_ASSERT_EQ(link.link_status, RTE_ETH_LINK_UP, "");

	pid = tdt_nic_pid(name);
	TEST_ASSERT(pid > 0, "");
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);

	/* bursts keep returning: the ring fills, nothing blocks for long */
	t0 = rte_get_timer_cycles();
	for (k = 0; k < 64; k++) {
		uint16_t sent;

		for (i = 0; i < RTE_DIM(tx); i++)
			tx[i] = tdt_mbuf_build(64, i, 1);
		sent = rte_eth_tx_burst((uint16_t)port, 0, tx, RTE_DIM(tx));
		tdt_free_all(tx + sent, RTE_DIM(tx) - sent);
		(void)rte_eth_rx_burst((uint16_t)port, 0, tx, RTE_DIM(tx));
	}
	TEST_ASSERT(rte_get_timer_cycles() - t0 < 10 * hz, "bursts took too long");
	/* the link goes down within the loss timeout */
	t0 = rte_get_timer_cycles();
	do {
		TEST_ASSERT_EQ(rte_eth_link_get_nowait((uint16_t)port, &link), 0, "");
		if (link.link_status == RTE_ETH_LINK_DOWN)
			break;
		rte_delay_ms(50);
	} while (rte_get_timer_cycles() - t0 < 5 * hz);
	TEST_ASSERT_EQ(link.link_status, RTE_ETH_LINK_DOWN, "");
	/* the removal event comes from EAL's interrupt thread */
	for (k = 0; k < 100 && !__atomic_load_n(&rmv_events, __ATOMIC_ACQUIRE); k++)
		rte_delay_ms(10);
	TEST_ASSERT_EQ(rmv_events, 1, "one removal event");
	TEST_ASSERT_EQ(rte_eth_stats_get((uint16_t)port, &st), 0, "");
	/* a flow call returns (whatever it says) */
	t0 = rte_get_timer_cycles();
	(void)rte_flow_create((uint16_t)port, &attr, pat, act, &err);
	TEST_ASSERT(rte_get_timer_cycles() - t0 < 10 * hz, "flow create hung");
	tdt_port_destroy((uint16_t)port, name);

	/* a new device, a new port: traffic again */
	port = tdt_port_create("wire=loop", name, sizeof(name));
	TEST_ASSERT(port >= 0, "re-create %d", port);
	TEST_ASSERT_EQ(tdt_port_setup((uint16_t)port, &pc), 0, "");
	TEST_ASSERT_EQ(tdt_loop_frames((uint16_t)port, 32), 32, "traffic after");
	tdt_port_destroy((uint16_t)port, name);
	return TEST_SUCCESS;
}

/*
 * tally-nic --bar FILE: the BAR is a file in /dev/shm that root (or the
 * device's user) may truncate. After the truncation the application's
 * bursts, flow calls, counter reads and statistics touch the BAR: each
 * access past the file's new end would raise SIGBUS; the driver's guard
 * turns the mapping into zero pages and the device counts as lost. The
 * device process guards its own mapping of the file: it stops with status
 * 1 and a log line.
 */
static int
test_bar_shrinks(void)
{
	struct tdt_port_conf pc = { .nb_rxq = 1, .nb_txq = 1 };
	struct rte_flow_query_count qc = { .reset = 0 };
	struct rte_mbuf *tx[32];
	struct rte_eth_link link;
	struct rte_eth_stats st;
	struct rte_flow_error err;
	struct rte_flow *flow;
	char bar[96], sock[96], args[128], name[32] = "net_tally_shrink0";
	uint64_t t0, hz = rte_get_timer_hz();
	unsigned int i, k;
	struct stat sb;
	uint16_t port;
	pid_t pid;
	int rc = TEST_FAILED, status = 0;

	snprintf(bar, sizeof(bar), "/dev/shm/tally-tdt-%d-shrink.bar", (int)getpid());
	snprintf(sock, sizeof(sock), "/tmp/tally-tdt-%d-shrink.sock", (int)getpid());
	unlink(bar);
	unlink(sock);
	pid = fork();
	if (pid == 0) {
		execl(tdt_nic_path(), "tally-nic", "--bar", bar, "--socket", sock,
		      "--log-level", "1", "wire=loop", (char *)NULL);
		_exit(127);
	}
	TEST_ASSERT(pid > 0, "fork");
	for (i = 0; i < 500 && !(stat(sock, &sb) == 0 && S_ISSOCK(sb.st_mode)); i++)
		usleep(10000);
	snprintf(args, sizeof(args), "dev=%s", sock);
	if (rte_eal_hotplug_add("vdev", name, args) != 0 ||
	    rte_eth_dev_get_port_by_name(name, &port) != 0) {
		fprintf(stderr, "  FAIL: probe %s\n", args);
		goto out_nic;
	}
	__atomic_store_n(&rmv_events, 0, __ATOMIC_RELEASE);
	if (tdt_port_setup(port, &pc) != 0 ||
	    rte_eth_dev_callback_register(port, RTE_ETH_EVENT_INTR_RMV, on_rmv, NULL) != 0 ||
	    tdt_loop_frames(port, 32) != 32) {
		fprintf(stderr, "  FAIL: traffic before the truncation\n");
		goto out_port;
	}
	flow = rte_flow_create(port, &attr, pat, act, &err);
	if (flow == NULL) {
		fprintf(stderr, "  FAIL: flow create before the truncation\n");
		goto out_port;
	}

	if (truncate(bar, 0) != 0) {
		fprintf(stderr, "  FAIL: truncate: %s\n", strerror(errno));
		goto out_port;
	}
	/* every path that touches the BAR, none may fault */
	for (k = 0; k < 16; k++) {
		uint16_t sent;

		for (i = 0; i < RTE_DIM(tx); i++)
			tx[i] = tdt_mbuf_build(64, i, 1);
		sent = rte_eth_tx_burst(port, 0, tx, RTE_DIM(tx));
		tdt_free_all(tx + sent, RTE_DIM(tx) - sent);
		sent = rte_eth_rx_burst(port, 0, tx, RTE_DIM(tx));
		tdt_free_all(tx, sent);
	}
	(void)rte_flow_query(port, flow, act, &qc, &err);
	(void)rte_eth_stats_get(port, &st);
	(void)rte_eth_xstats_reset(port);
	(void)rte_flow_create(port, &attr, pat, act, &err);
	t0 = rte_get_timer_cycles();
	do {
		if (rte_eth_link_get_nowait(port, &link) != 0 ||
		    link.link_status == RTE_ETH_LINK_DOWN)
			break;
		rte_delay_ms(50);
	} while (rte_get_timer_cycles() - t0 < 5 * hz);
	/* the removal event comes from EAL's interrupt thread */
	for (k = 0; k < 100 && !__atomic_load_n(&rmv_events, __ATOMIC_ACQUIRE); k++)
		rte_delay_ms(10);
	if (link.link_status != RTE_ETH_LINK_DOWN || rmv_events != 1) {
		fprintf(stderr, "  FAIL: link %u, %d removal events\n",
			link.link_status, rmv_events);
		goto out_port;
	}
	/* the device itself stops, with status 1, not of SIGBUS */
	for (i = 0; i < 500 && waitpid(pid, &status, WNOHANG) != pid; i++)
		usleep(10000);
	if (i == 500 || !WIFEXITED(status) || WEXITSTATUS(status) != 1) {
		fprintf(stderr, "  FAIL: tally-nic %s (status 0x%x)\n",
			i == 500 ? "still running" : "did not exit with 1", status);
		goto out_port;
	}
	pid = -1;
	rc = TEST_SUCCESS;
out_port:
	rte_eal_hotplug_remove("vdev", name);
out_nic:
	if (pid > 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
	unlink(bar);
	unlink(sock);
	return rc;
}

static const struct tally_test_case cases[] = {
	TEST_CASE(test_device_killed_midtraffic),
	TEST_CASE(test_bar_shrinks),
};

int
main(void)
{
	int rc;

	if (tdt_nic_path() == NULL) {
		fprintf(stderr, "TALLY_TEST_NIC is not set\n");
		return TEST_SKIPPED;
	}
	tdt_eal_init("tally-nic-port");
	rc = tally_test_run("nic-port", cases, RTE_DIM(cases));
	rte_eal_cleanup();
	return rc;
}
