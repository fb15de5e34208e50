/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Link control on the loop wire (spec 2.2), what a bonding port does to a
 * member: rte_eth_dev_set_link_down/up change the link ethdev reports,
 * raise exactly one RTE_ETH_EVENT_INTR_LSC per change when intr_conf.lsc is
 * set (none otherwise), and while the link is down nothing comes back over
 * the loop: every frame sent counts once as tx_wire_drop. The state is the
 * device's: it survives stop/start. On the interface wire the link follows
 * the interface's carrier (a veth pair in a network namespace of our own;
 * skipped without one), and its changes raise the event too.
 */
#include <sched.h>

#include "tally_dpdk_test.h"

#define NB_FRAMES	40
#define EVENT_MS	1000

static uint32_t lsc_events;
static bool own_netns;

static int
on_lsc(uint16_t port, enum rte_eth_event_type type, void *arg, void *ret)
{
	RTE_SET_USED(port);
	RTE_SET_USED(arg);
	RTE_SET_USED(ret);
	if (type == RTE_ETH_EVENT_INTR_LSC)
		__atomic_add_fetch(&lsc_events, 1, __ATOMIC_RELAXED);
	return 0;
}

/* The events seen after waiting for want of them (or EVENT_MS), plus what
 * comes in a further 100 ms. */
static uint32_t
events_after(uint32_t want)
{
	uint64_t end = rte_get_timer_cycles() + rte_get_timer_hz() * EVENT_MS / 1000;

	while (__atomic_load_n(&lsc_events, __ATOMIC_RELAXED) < want &&
	       rte_get_timer_cycles() < end)
		rte_delay_ms(1);
	rte_delay_ms(100);
	return __atomic_load_n(&lsc_events, __ATOMIC_RELAXED);
}

static int
link_is(uint16_t port, uint16_t status)
{
	struct rte_eth_link l;

	TEST_ASSERT_EQ(rte_eth_link_get_nowait(port, &l), 0, "link get");
	TEST_ASSERT_EQ(l.link_status, status, "link status");
	if (status == RTE_ETH_LINK_UP)
		TEST_ASSERT_EQ(l.link_speed, RTE_ETH_SPEED_NUM_100G, "speed");
	else
		TEST_ASSERT_EQ(l.link_speed, RTE_ETH_SPEED_NUM_NONE, "speed");
	return TEST_SUCCESS;
}

/* NB_FRAMES over the loop: want_back of them return, the rest are
 * tx_wire_drop; every frame is accepted for sending. */
static int
loop_expect(uint16_t port, unsigned int want_back)
{
	struct rte_mbuf *b[NB_FRAMES], *in[NB_FRAMES];
	uint64_t d0 = tdt_xstat(port, "tx_wire_drop");
	unsigned int i, sent, got;

	TEST_ASSERT(d0 != UINT64_MAX, "no tx_wire_drop xstat");
	for (i = 0; i < NB_FRAMES; i++) {
		b[i] = tdt_mbuf_build(64, i, 1);
		TEST_ASSERT(b[i] != NULL, "alloc");
	}
	sent = tdt_tx_all(port, 0, b, NB_FRAMES);
	tdt_free_all(b + sent, NB_FRAMES - sent);
	TEST_ASSERT_EQ(sent, NB_FRAMES, "tx");
	got = tdt_rx_all(port, 1, in, NULL, RTE_DIM(in), NB_FRAMES);
	tdt_free_all(in, RTE_MIN(got, (unsigned int)NB_FRAMES));
	TEST_ASSERT_EQ(got, want_back, "frames back over the loop");
	TEST_ASSERT_U64_EQ(tdt_xstat(port, "tx_wire_drop") - d0, NB_FRAMES - want_back,
			   "tx_wire_drop");
	return TEST_SUCCESS;
}

static int
with_port_on(const char *devargs, bool lsc, int (*body)(uint16_t port))
{
	struct rte_eth_conf conf = { .intr_conf = { .lsc = lsc } };
	char name[32];
	int port, rc;

	port = tdt_port_create(devargs, name, sizeof(name));
	TEST_ASSERT(port >= 0, "probe: %d", port);
	rc = rte_eth_dev_configure((uint16_t)port, 1, 1, &conf);
	if (rc == 0)
		rc = rte_eth_rx_queue_setup((uint16_t)port, 0, TDT_NB_DESC, rte_socket_id(),
					    NULL, tdt_pool);
	if (rc == 0)
		rc = rte_eth_tx_queue_setup((uint16_t)port, 0, TDT_NB_DESC, rte_socket_id(),
					    NULL);
	if (rc == 0)
		rc = rte_eth_dev_callback_register((uint16_t)port, RTE_ETH_EVENT_INTR_LSC,
						   on_lsc, NULL);
	__atomic_store_n(&lsc_events, 0, __ATOMIC_RELAXED);
	if (rc == 0)
		rc = rte_eth_dev_start((uint16_t)port);
	if (rc == 0)
		rc = body((uint16_t)port);
	else
		fprintf(stderr, "  port setup: %d\n", rc);
	rte_eth_dev_callback_unregister((uint16_t)port, RTE_ETH_EVENT_INTR_LSC, on_lsc, NULL);
	tdt_port_destroy((uint16_t)port, name);
	return rc == 0 ? TEST_SUCCESS : TEST_FAILED;
}

static int
body_down_up(uint16_t port)
{
	struct rte_eth_dev_info info;

	TEST_ASSERT_EQ(rte_eth_dev_info_get(port, &info), 0, "");
	TEST_ASSERT(*info.dev_flags & RTE_ETH_DEV_INTR_LSC, "port has the LSC event");
	TEST_ASSERT_EQ(link_is(port, RTE_ETH_LINK_UP), 0, "started");
	TEST_ASSERT_EQ(loop_expect(port, NB_FRAMES), 0, "link up");
	TEST_ASSERT_EQ(events_after(0), 0, "no event before a change");

	TEST_ASSERT_EQ(rte_eth_dev_set_link_down(port), 0, "link down");
	TEST_ASSERT_EQ(link_is(port, RTE_ETH_LINK_DOWN), 0, "after link down");
	TEST_ASSERT_EQ(events_after(1), 1, "one event for link down");
	TEST_ASSERT_EQ(loop_expect(port, 0), 0, "link down");
	/* no change, no event */
	TEST_ASSERT_EQ(rte_eth_dev_set_link_down(port), 0, "link down again");
	TEST_ASSERT_EQ(events_after(2), 1, "no event without a change");
	/* the device keeps it down across stop/start */
	TEST_ASSERT_EQ(rte_eth_dev_stop(port), 0, "");
	TEST_ASSERT_EQ(rte_eth_dev_start(port), 0, "");
	TEST_ASSERT_EQ(link_is(port, RTE_ETH_LINK_DOWN), 0, "down after restart");
	TEST_ASSERT_EQ(loop_expect(port, 0), 0, "down after restart");

	TEST_ASSERT_EQ(rte_eth_dev_set_link_up(port), 0, "link up");
	TEST_ASSERT_EQ(link_is(port, RTE_ETH_LINK_UP), 0, "after link up");
	TEST_ASSERT_EQ(events_after(2), 2, "one event for link up");
	TEST_ASSERT_EQ(loop_expect(port, NB_FRAMES), 0, "link up again");
	return TEST_SUCCESS;
}

/* Stopped: the state is set, ethdev reports down either way, no event. */
static int
body_stopped(uint16_t port)
{
	TEST_ASSERT_EQ(rte_eth_dev_stop(port), 0, "");
	TEST_ASSERT_EQ(rte_eth_dev_set_link_down(port), 0, "link down, stopped");
	TEST_ASSERT_EQ(link_is(port, RTE_ETH_LINK_DOWN), 0, "stopped");
	TEST_ASSERT_EQ(rte_eth_dev_start(port), 0, "");
	TEST_ASSERT_EQ(link_is(port, RTE_ETH_LINK_DOWN), 0, "held down at start");
	TEST_ASSERT_EQ(loop_expect(port, 0), 0, "held down at start");
	TEST_ASSERT_EQ(rte_eth_dev_set_link_up(port), 0, "link up");
	TEST_ASSERT_EQ(link_is(port, RTE_ETH_LINK_UP), 0, "up");
	TEST_ASSERT_EQ(events_after(1), 1, "one event: the change while started");
	TEST_ASSERT_EQ(loop_expect(port, NB_FRAMES), 0, "up");
	return TEST_SUCCESS;
}

/* intr_conf.lsc not set: the link changes, no event. */
static int
body_no_lsc(uint16_t port)
{
	TEST_ASSERT_EQ(rte_eth_dev_set_link_down(port), 0, "link down");
	TEST_ASSERT_EQ(link_is(port, RTE_ETH_LINK_DOWN), 0, "down");
	TEST_ASSERT_EQ(loop_expect(port, 0), 0, "down");
	TEST_ASSERT_EQ(rte_eth_dev_set_link_up(port), 0, "link up");
	TEST_ASSERT_EQ(link_is(port, RTE_ETH_LINK_UP), 0, "up");
	TEST_ASSERT_EQ(loop_expect(port, NB_FRAMES), 0, "up");
	TEST_ASSERT_EQ(events_after(0), 0, "no event without intr_conf.lsc");
	return TEST_SUCCESS;
}

/* The interface wire: tlk0, whose veth peer tlk1 goes down and up. */
static int
body_carrier(uint16_t port)
{
	TEST_ASSERT_EQ(link_is(port, RTE_ETH_LINK_UP), 0, "carrier");
	TEST_ASSERT_EQ(events_after(0), 0, "no event before a change");
	TEST_ASSERT_EQ(system("ip link set tlk1 down"), 0, "peer down");
	TEST_ASSERT_EQ(events_after(1), 1, "one event for the carrier lost");
	TEST_ASSERT_EQ(link_is(port, RTE_ETH_LINK_DOWN), 0, "no carrier");
	TEST_ASSERT_EQ(system("ip link set tlk1 up"), 0, "peer up");
	TEST_ASSERT_EQ(events_after(2), 2, "one event for the carrier back");
	TEST_ASSERT_EQ(link_is(port, RTE_ETH_LINK_UP), 0, "carrier back");
	/* held down beats the carrier, and the other way round */
	TEST_ASSERT_EQ(rte_eth_dev_set_link_down(port), 0, "link down");
	TEST_ASSERT_EQ(events_after(3), 3, "held down");
	TEST_ASSERT_EQ(system("ip link set tlk1 down"), 0, "peer down");
	rte_delay_ms(200);	/* Linux marks tlk0 not running (IFF_RUNNING) */
	TEST_ASSERT_EQ(rte_eth_dev_set_link_up(port), 0, "link up");
	TEST_ASSERT_EQ(events_after(4), 3, "no carrier: still down, no event");
	TEST_ASSERT_EQ(link_is(port, RTE_ETH_LINK_DOWN), 0, "no carrier");
	TEST_ASSERT_EQ(system("ip link set tlk1 up"), 0, "peer up");
	TEST_ASSERT_EQ(events_after(4), 4, "carrier back");
	TEST_ASSERT_EQ(link_is(port, RTE_ETH_LINK_UP), 0, "up");
	return TEST_SUCCESS;
}

static int test_down_up(void) { return with_port_on("", true, body_down_up); }
static int test_stopped(void) { return with_port_on("", true, body_stopped); }
static int test_no_lsc(void) { return with_port_on("", false, body_no_lsc); }

static int
test_carrier(void)
{
	int rc;

	if (!own_netns) {
		printf("  skipped: no network namespace of our own (needs root)\n");
		return TEST_SKIPPED;
	}
	if (system("ip link add tlk0 type veth peer name tlk1 && ip link set tlk0 up && "
		   "ip link set tlk1 up") != 0) {
		printf("  skipped: no veth pair (ip link add failed)\n");
		return TEST_SKIPPED;
	}
	rc = with_port_on("wire=if,iface=tlk0", true, body_carrier);
	if (system("ip link del tlk0") != 0)
		printf("  ip link del tlk0 failed\n");
	return rc;
}

static const struct tally_test_case cases[] = {
	TEST_CASE(test_down_up),
	TEST_CASE(test_stopped),
	TEST_CASE(test_no_lsc),
	TEST_CASE(test_carrier),
};

int
main(void)
{
	int rc;

	/* a namespace of our own for the veth pair (all threads in it) */
	own_netns = geteuid() == 0 && unshare(CLONE_NEWNET) == 0;
	tdt_eal_init("tally-link");
	rc = tally_test_run("dpdk-link", cases, RTE_DIM(cases));
	rte_eal_cleanup();
	return rc;
}
