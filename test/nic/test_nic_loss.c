/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Device loss is a state of the port (doc/guides/nics/tally.rst, "Device
 * loss"): a port whose tally-nic is killed mid-traffic
 *  - gets one RTE_ETH_EVENT_INTR_RMV, from the EAL interrupt thread, with
 *    nobody asking for the link;
 *  - then answers every operation the way the guide says: what would
 *    program or read the device fails with EIO (rte_flow: type
 *    UNSPECIFIED, message "device is gone"), what releases succeeds,
 *    software state (statistics, link) still reads;
 *  - closes once: a second close, and two closes at the same time (one
 *    from a thread of the application, one from an EAL alarm, as testpmd's
 *    removal handling does) neither crash nor block.
 * Runs with TALLY_TEST_NIC set (every port's device is a tally-nic).
 */
#include <pthread.h>

#include <rte_alarm.h>
#include <rte_flow.h>

#include "tally_dpdk_test.h"

#define LOSS_WAIT_MS	3000	/* the loss is seen well within this */

static unsigned int rmv_events;
static pthread_t rmv_thread;
static int rmv_close_port = -1;	/* the callback closes this port */
static int rmv_close_rc;

static int
on_rmv(uint16_t port, enum rte_eth_event_type ev, void *arg, void *ret)
{
	RTE_SET_USED(arg);
	RTE_SET_USED(ret);
	if (ev != RTE_ETH_EVENT_INTR_RMV)
		return 0;
	rmv_thread = pthread_self();
	if (rmv_close_port == (int)port)
		rmv_close_rc = rte_eth_dev_close(port);
	__atomic_add_fetch(&rmv_events, 1, __ATOMIC_RELEASE);
	return 0;
}

static void
nic_kill(const char *name)
{
	pid_t pid = tdt_nic_pid(name);

	if (pid <= 0)
		return;
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

/* A port on a fresh tally-nic, started, with traffic through it. */
static int
port_up(char *name, size_t len)
{
	struct tdt_port_conf pc = { .nb_rxq = 1, .nb_txq = 1 };
	int port = tdt_port_create("wire=loop", name, len);

	if (port < 0)
		return port;
	if (tdt_port_setup((uint16_t)port, &pc) != 0 ||
	    rte_eth_dev_callback_register((uint16_t)port, RTE_ETH_EVENT_INTR_RMV,
					  on_rmv, NULL) != 0 ||
	    tdt_loop_frames((uint16_t)port, 32) != 32) {
		tdt_port_destroy((uint16_t)port, name);
		return -EIO;
	}
	return port;
}

/* Waits for the removal event without asking for the link; events seen. */
static unsigned int
rmv_wait(unsigned int want)
{
	unsigned int i;

	for (i = 0; i < LOSS_WAIT_MS / 10; i++) {
		if (__atomic_load_n(&rmv_events, __ATOMIC_ACQUIRE) >= want)
			break;
		rte_delay_us_sleep(10 * 1000);
	}
	return __atomic_load_n(&rmv_events, __ATOMIC_ACQUIRE);
}

static const struct rte_flow_attr flow_attr = { .ingress = 1 };
static const struct rte_flow_item flow_pat[] = {
	{ .type = RTE_FLOW_ITEM_TYPE_ETH },
	{ .type = RTE_FLOW_ITEM_TYPE_END },
};
static const struct rte_flow_action flow_act[] = {
	{ .type = RTE_FLOW_ACTION_TYPE_COUNT },
	{ .type = RTE_FLOW_ACTION_TYPE_END },
};

/* rc and err are the "device is gone" error. */
static int
gone_error(int rc, const struct rte_flow_error *err)
{
	TEST_ASSERT_EQ(rc, -EIO, "");
	TEST_ASSERT_EQ(rte_errno, EIO, "");
	TEST_ASSERT_EQ(err->type, RTE_FLOW_ERROR_TYPE_UNSPECIFIED, "");
	TEST_ASSERT(err->message != NULL && strcmp(err->message, "device is gone") == 0,
		    "message '%s'", err->message ? err->message : "(null)");
	return TEST_SUCCESS;
}

/* The flow API on a port whose device is gone (flow, h: made before). */
static int
flow_after_loss(uint16_t port, struct rte_flow *flow, struct rte_flow_action_handle *h)
{
	const struct rte_flow_action count = { .type = RTE_FLOW_ACTION_TYPE_COUNT };
	const struct rte_flow_indir_action_conf ic = { .ingress = 1 };
	struct rte_flow_port_info pi;
	struct rte_flow_queue_info qi;
	struct rte_flow_query_count qc;
	struct rte_flow_error err;
	struct rte_flow *f;

	memset(&err, 0, sizeof(err));
	f = rte_flow_create(port, &flow_attr, flow_pat, flow_act, &err);
	TEST_ASSERT(f == NULL, "create after the loss");
	TEST_ASSERT_EQ(gone_error(-rte_errno, &err), TEST_SUCCESS, "create");
	memset(&err, 0, sizeof(err));
	TEST_ASSERT_EQ(gone_error(rte_flow_validate(port, &flow_attr, flow_pat, flow_act,
						    &err), &err), TEST_SUCCESS, "validate");
	memset(&qc, 0, sizeof(qc));
	TEST_ASSERT_EQ(gone_error(rte_flow_query(port, flow, &count, &qc, &err), &err),
		       TEST_SUCCESS, "query");
	TEST_ASSERT_EQ(gone_error(rte_flow_isolate(port, 1, &err), &err), TEST_SUCCESS,
		       "isolate");
	TEST_ASSERT_EQ(gone_error(rte_flow_info_get(port, &pi, &qi, &err), &err),
		       TEST_SUCCESS, "info_get");
	TEST_ASSERT_EQ(gone_error(rte_flow_get_aged_flows(port, NULL, 0, &err), &err),
		       TEST_SUCCESS, "aged flows");
	TEST_ASSERT(rte_flow_action_handle_create(port, &ic, &count, &err) == NULL, "");
	TEST_ASSERT_EQ(gone_error(-rte_errno, &err), TEST_SUCCESS, "handle create");
	TEST_ASSERT_EQ(gone_error(rte_flow_action_handle_query(port, h, &qc, &err), &err),
		       TEST_SUCCESS, "handle query");
	/* releasing succeeds: what the device held is gone with it */
	TEST_ASSERT_EQ(rte_flow_destroy(port, flow, &err), 0, "destroy");
	TEST_ASSERT_EQ(rte_flow_action_handle_destroy(port, h, &err), 0, "handle destroy");
	TEST_ASSERT_EQ(rte_flow_flush(port, &err), 0, "flush");
	return TEST_SUCCESS;
}

/* ethdev on a port whose device is gone. */
static int
ethdev_after_loss(uint16_t port)
{
	struct rte_ether_addr mac = {{ 0x02, 0x11, 0x22, 0x33, 0x44, 0x55 }};
	struct rte_mbuf *tx[8], *rx[8];
	struct rte_eth_link link;
	struct rte_eth_stats st;
	unsigned int i;

	for (i = 0; i < RTE_DIM(tx); i++)
		tx[i] = tdt_mbuf_build(64, i, 1);
	TEST_ASSERT_EQ(rte_eth_tx_burst(port, 0, tx, RTE_DIM(tx)), 0, "Tx after the loss");
	tdt_free_all(tx, RTE_DIM(tx));
	TEST_ASSERT_EQ(rte_eth_rx_burst(port, 0, rx, RTE_DIM(rx)), 0, "Rx after the loss");
	TEST_ASSERT_EQ(rte_eth_dev_set_mtu(port, 1400), -EIO, "");
	TEST_ASSERT_EQ(rte_eth_promiscuous_enable(port), -EIO, "");
	TEST_ASSERT_EQ(rte_eth_dev_default_mac_addr_set(port, &mac), -EIO, "");
	TEST_ASSERT_EQ(rte_eth_dev_mac_addr_add(port, &mac, 0), -EIO, "");
	TEST_ASSERT_EQ(rte_eth_dev_set_link_down(port), -EIO, "");
	TEST_ASSERT_EQ(rte_eth_dev_set_link_up(port), -EIO, "");
	mac.addr_bytes[0] = 0x01;
	TEST_ASSERT_EQ(rte_eth_dev_set_mc_addr_list(port, &mac, 1), -EIO, "");
	TEST_ASSERT_EQ(rte_eth_dev_set_mc_addr_list(port, NULL, 0), -EIO, "");
	TEST_ASSERT_EQ(rte_eth_stats_get(port, &st), 0, "");
	TEST_ASSERT(st.ipackets >= 32, "the counts before the loss stay");
	TEST_ASSERT_EQ(rte_eth_stats_reset(port), 0, "");
	TEST_ASSERT_EQ(tdt_xstat(port, "dev_faults"), 0, "no fault, and no all-ones register");
	TEST_ASSERT_EQ(rte_eth_link_get_nowait(port, &link), 0, "");
	TEST_ASSERT_EQ(link.link_status, RTE_ETH_LINK_DOWN, "");
	return TEST_SUCCESS;
}

static int
test_loss_is_a_state(void)
{
	struct rte_flow_action_handle *h;
	const struct rte_flow_indir_action_conf ic = { .ingress = 1 };
	const struct rte_flow_action count = { .type = RTE_FLOW_ACTION_TYPE_COUNT };
	struct rte_flow_error err;
	struct rte_flow *flow;
	uint64_t t0, hz = rte_get_timer_hz();
	char name[32];
	int port;

	__atomic_store_n(&rmv_events, 0, __ATOMIC_RELEASE);
	port = port_up(name, sizeof(name));
	TEST_ASSERT(port >= 0, "port %d", port);
	flow = rte_flow_create((uint16_t)port, &flow_attr, flow_pat, flow_act, &err);
	TEST_ASSERT(flow != NULL, "%s", err.message ? err.message : "");
	h = rte_flow_action_handle_create((uint16_t)port, &ic, &count, &err);
	TEST_ASSERT(h != NULL, "%s", err.message ? err.message : "");

	nic_kill(name);
	/* the port notices by itself: nobody asks for the link */
	TEST_ASSERT_EQ(rmv_wait(1), 1, "one removal event within %u ms", LOSS_WAIT_MS);
	TEST_ASSERT(!pthread_equal(rmv_thread, pthread_self()),
		    "the event comes from EAL's interrupt thread");

	TEST_ASSERT_EQ(flow_after_loss((uint16_t)port, flow, h), TEST_SUCCESS, "");
	TEST_ASSERT_EQ(ethdev_after_loss((uint16_t)port), TEST_SUCCESS, "");
	TEST_ASSERT_EQ(rte_eth_dev_start((uint16_t)port), 0, "still started");
	TEST_ASSERT_EQ(rte_eth_dev_stop((uint16_t)port), 0, "");
	TEST_ASSERT_EQ(rte_eth_dev_start((uint16_t)port), -EIO, "");
	t0 = rte_get_timer_cycles();
	TEST_ASSERT_EQ(rte_eth_dev_close((uint16_t)port), 0, "");
	TEST_ASSERT(rte_get_timer_cycles() - t0 < 5 * hz, "close took too long");
	/* a second close: the port is no more */
	TEST_ASSERT_EQ(rte_eth_dev_close((uint16_t)port), -ENODEV, "");
	TEST_ASSERT_EQ(rmv_wait(2), 1, "still one removal event");
	rte_eal_hotplug_remove("vdev", name);
	tdt_nic_stop(name);
	return TEST_SUCCESS;
}

/* ---- two closes at once ------------------------------------------------- */

struct race {
	uint16_t port;
	uint64_t go;			/* TSC: both close then */
	int thread_rc;
	int alarm_rc;
	unsigned int alarm_done;
};

static void *
race_thread(void *arg)
{
	struct race *r = arg;

	while (rte_get_timer_cycles() < r->go)
		rte_pause();
	r->thread_rc = rte_eth_dev_close(r->port);
	return NULL;
}

static void
race_alarm(void *arg)
{
	struct race *r = arg;

	r->alarm_rc = rte_eth_dev_close(r->port);
	__atomic_store_n(&r->alarm_done, 1, __ATOMIC_RELEASE);
}

/*
 * Round i: the device is killed; then the port is closed from a thread and
 * from an EAL alarm at once, either after the removal event (even rounds)
 * or at once, while the port is noticing the loss and its removal event
 * may be delivered in between (odd rounds; there the event's callback
 * closes the port too, as an application may). Offsets of a few hundred
 * microseconds between the two vary who comes first.
 */
static int
race_round(unsigned int i)
{
	uint64_t hz = rte_get_timer_hz();
	struct race r = { 0 };
	pthread_t th;
	char name[32];
	int port, j;

	__atomic_store_n(&rmv_events, 0, __ATOMIC_RELEASE);
	port = port_up(name, sizeof(name));
	TEST_ASSERT(port >= 0, "round %u: port %d", i, port);
	rmv_close_port = (i & 1) ? port : -1;
	rmv_close_rc = 0;
	nic_kill(name);
	if (!(i & 1))
		TEST_ASSERT_EQ(rmv_wait(1), 1, "round %u", i);
	TEST_ASSERT_EQ(rte_eth_dev_stop((uint16_t)port), 0, "round %u", i);
	r.port = (uint16_t)port;
	/* the alarm fires 2 ms from now; the thread closes 2 ms +- 0.3 */
	r.go = rte_get_timer_cycles() + hz / 500 + ((int)(i % 3) - 1) * (int64_t)hz / 3333;
	TEST_ASSERT_EQ(pthread_create(&th, NULL, race_thread, &r), 0, "");
	TEST_ASSERT_EQ(rte_eal_alarm_set(2000, race_alarm, &r), 0, "");
	pthread_join(th, NULL);
	for (j = 0; j < 500 && !__atomic_load_n(&r.alarm_done, __ATOMIC_ACQUIRE); j++)
		rte_delay_us_sleep(10 * 1000);
	TEST_ASSERT(r.alarm_done, "round %u: the alarm's close did not return", i);
	/* each close returns 0, or -ENODEV when the other one had already
	 * released the port */
	TEST_ASSERT(r.thread_rc == 0 || r.thread_rc == -ENODEV, "round %u: %d", i, r.thread_rc);
	TEST_ASSERT(r.alarm_rc == 0 || r.alarm_rc == -ENODEV, "round %u: %d", i, r.alarm_rc);
	TEST_ASSERT(!rte_eth_dev_is_valid_port((uint16_t)port), "round %u: released", i);
	/* an event still on its way finds no port */
	rte_delay_us_sleep(200 * 1000);
	TEST_ASSERT(rmv_events <= 1, "round %u: %u removal events", i, rmv_events);
	TEST_ASSERT(rmv_close_rc == 0 || rmv_close_rc == -ENODEV, "round %u: %d", i,
		    rmv_close_rc);
	rmv_close_port = -1;
	rte_eal_hotplug_remove("vdev", name);
	tdt_nic_stop(name);
	return TEST_SUCCESS;
}

static int
test_close_races_close(void)
{
	unsigned int i;

	for (i = 0; i < 6; i++)
		if (race_round(i) != TEST_SUCCESS)
			return TEST_FAILED;
	return TEST_SUCCESS;
}

static const struct tally_test_case cases[] = {
	TEST_CASE(test_loss_is_a_state),
	TEST_CASE(test_close_races_close),
};

int
main(void)
{
	int rc;

	if (tdt_nic_path() == NULL) {
		fprintf(stderr, "TALLY_TEST_NIC is not set\n");
		return TEST_SKIPPED;
	}
	tdt_eal_init("tally-nic-loss");
	rc = tally_test_run("nic-loss", cases, RTE_DIM(cases));
	rte_eal_cleanup();
	return rc;
}
