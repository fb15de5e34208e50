/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * MAC address operations on the loop wire, promiscuous mode off: a frame
 * reaches the port only when its destination is in the port's MAC table
 * (or broadcast); every other frame counts once as rx_filtered. Each case
 * sends a known number of frames to one destination and checks exactly how
 * many arrived and how many were filtered. The multicast list
 * (set_mc_addr_list) is a table of its own, beside the MAC table.
 */
#include "tally_dpdk_test.h"

#define NB_FRAMES	40
#define SETTLE_MS	2000
#define MAC_TABLE	16	/* addresses a port holds, the primary included */
#define MC_TABLE	16	/* multicast list entries (spec 2.2) */

static const struct rte_ether_addr unknown = {{ 0x02, 0x11, 0x22, 0x33, 0x44, 0x01 }};
static const struct rte_ether_addr other = {{ 0x02, 0x11, 0x22, 0x33, 0x44, 0x02 }};
static const struct rte_ether_addr mcast = {{ 0x01, 0x00, 0x5e, 0x00, 0x00, 0x07 }};
static const struct rte_ether_addr mcast2 = {{ 0x01, 0x00, 0x5e, 0x00, 0x00, 0x08 }};

struct result {
	unsigned int rx;
	uint64_t filtered;
};

/* Send NB_FRAMES frames to dst over the loop; count what comes back and
 * what the device filtered until every frame is accounted for (or
 * SETTLE_MS passed). */
static int
send_to(uint16_t port, const struct rte_ether_addr *dst, struct result *r)
{
	struct rte_mbuf *b[NB_FRAMES], *in[32];
	uint64_t f0 = tdt_xstat(port, "rx_filtered"), end;
	unsigned int i, sent;
	uint16_t n;

	TEST_ASSERT(f0 != UINT64_MAX, "no rx_filtered xstat");
	for (i = 0; i < NB_FRAMES; i++) {
		b[i] = tdt_mbuf_build(64, i, 1);
		TEST_ASSERT(b[i] != NULL, "alloc");
		rte_ether_addr_copy(dst, &rte_pktmbuf_mtod(b[i], struct rte_ether_hdr *)->dst_addr);
	}
	sent = tdt_tx_all(port, 0, b, NB_FRAMES);
	tdt_free_all(b + sent, NB_FRAMES - sent);
	TEST_ASSERT_EQ(sent, NB_FRAMES, "tx");
	r->rx = 0;
	r->filtered = 0;
	end = rte_get_timer_cycles() + rte_get_timer_hz() * SETTLE_MS / 1000;
	while (r->rx + r->filtered < NB_FRAMES && rte_get_timer_cycles() < end) {
		rte_pmd_tally_model_step(port);
		n = rte_eth_rx_burst(port, 0, in, RTE_DIM(in));
		tdt_free_all(in, n);
		r->rx += n;
		r->filtered = tdt_xstat(port, "rx_filtered") - f0;
	}
	/* nothing more may turn up */
	tdt_drain(port, 1);
	r->filtered = tdt_xstat(port, "rx_filtered") - f0;
	return TEST_SUCCESS;
}

/* dst: NB_FRAMES received (want_rx) or NB_FRAMES filtered. */
static int
expect(uint16_t port, const struct rte_ether_addr *dst, bool want_rx, const char *what)
{
	struct result r;

	TEST_ASSERT_EQ(send_to(port, dst, &r), TEST_SUCCESS, "%s", what);
	TEST_ASSERT_EQ(r.rx, want_rx ? NB_FRAMES : 0, "%s: received", what);
	TEST_ASSERT_U64_EQ(r.filtered, want_rx ? 0 : NB_FRAMES, "%s: rx_filtered", what);
	return TEST_SUCCESS;
}

static int
with_port(int (*body)(uint16_t port))
{
	struct tdt_port_conf pc = { .nb_rxq = 1, .nb_txq = 1 };
	char name[32];
	int port, rc;

	port = tdt_port_create("", name, sizeof(name));
	TEST_ASSERT(port >= 0, "probe: %d", port);
	rc = tdt_port_setup((uint16_t)port, &pc);
	if (rc == 0 && rte_eth_promiscuous_get((uint16_t)port) == 1)
		rc = rte_eth_promiscuous_disable((uint16_t)port);
	if (rc == 0)
		rc = body((uint16_t)port);
	else
		fprintf(stderr, "  port setup: %d\n", rc);
	tdt_port_destroy((uint16_t)port, name);
	return rc == 0 ? TEST_SUCCESS : TEST_FAILED;
}

static int
count_addrs(uint16_t port, const struct rte_ether_addr *a, int *found)
{
	struct rte_ether_addr ma[32];
	int n, i;

	n = rte_eth_macaddrs_get(port, ma, RTE_DIM(ma));
	TEST_ASSERT_EQ(n, MAC_TABLE, "macaddrs_get returns the table size");
	*found = -1;
	for (i = 0; i < n; i++)
		if (rte_is_same_ether_addr(&ma[i], a))
			*found = i;
	return TEST_SUCCESS;
}

static int
body_add_remove(uint16_t port)
{
	struct rte_ether_addr a = unknown;
	struct rte_eth_dev_info info;
	int idx;

	TEST_ASSERT_EQ(rte_eth_dev_info_get(port, &info), 0, "");
	TEST_ASSERT_EQ(info.max_mac_addrs, MAC_TABLE, "");
	TEST_ASSERT_EQ(expect(port, &unknown, false, "unknown"), 0, "");
	TEST_ASSERT_EQ(rte_eth_dev_mac_addr_add(port, &a, 0), 0, "add");
	TEST_ASSERT_EQ(count_addrs(port, &unknown, &idx), 0, "");
	TEST_ASSERT(idx > 0, "added address listed at %d", idx);
	TEST_ASSERT_EQ(expect(port, &unknown, true, "added"), 0, "");
	TEST_ASSERT_EQ(expect(port, &other, false, "other"), 0, "");
	TEST_ASSERT_EQ(rte_eth_dev_mac_addr_remove(port, &a), 0, "remove");
	TEST_ASSERT_EQ(count_addrs(port, &unknown, &idx), 0, "");
	TEST_ASSERT_EQ(idx, -1, "removed address gone");
	TEST_ASSERT_EQ(expect(port, &unknown, false, "removed"), 0, "");
	return TEST_SUCCESS;
}

static int
body_primary(uint16_t port)
{
	struct rte_ether_addr old, nw = other;
	int idx;

	TEST_ASSERT_EQ(rte_eth_macaddr_get(port, &old), 0, "");
	TEST_ASSERT_EQ(expect(port, &old, true, "factory primary"), 0, "");
	TEST_ASSERT_EQ(expect(port, &nw, false, "new before set"), 0, "");
	TEST_ASSERT_EQ(rte_eth_dev_default_mac_addr_set(port, &nw), 0, "set");
	TEST_ASSERT_EQ(count_addrs(port, &nw, &idx), 0, "");
	TEST_ASSERT_EQ(idx, 0, "new primary at index 0");
	TEST_ASSERT_EQ(expect(port, &old, false, "old primary"), 0, "");
	TEST_ASSERT_EQ(expect(port, &nw, true, "new primary"), 0, "");
	/* kept across stop/start (ethdev re-adds, the device kept it) */
	TEST_ASSERT_EQ(rte_eth_dev_stop(port), 0, "");
	TEST_ASSERT_EQ(rte_eth_dev_start(port), 0, "");
	TEST_ASSERT_EQ(expect(port, &nw, true, "after restart"), 0, "");
	TEST_ASSERT_EQ(expect(port, &old, false, "old after restart"), 0, "");
	return TEST_SUCCESS;
}

static int
body_full(uint16_t port)
{
	struct rte_ether_addr a = unknown;
	int i;

	/* vmdq pools: none */
	TEST_ASSERT_EQ(rte_eth_dev_mac_addr_add(port, &a, 1), -ENOTSUP, "pool 1");
	TEST_ASSERT_EQ(expect(port, &unknown, false, "refused add"), 0, "");
	for (i = 1; i < MAC_TABLE; i++) {
		a.addr_bytes[5] = (uint8_t)(0x40 + i);
		TEST_ASSERT_EQ(rte_eth_dev_mac_addr_add(port, &a, 0), 0, "add %d", i);
	}
	a.addr_bytes[5] = 0x40 + MAC_TABLE;
	TEST_ASSERT_EQ(rte_eth_dev_mac_addr_add(port, &a, 0), -ENOSPC, "17th");
	for (i = 1; i < MAC_TABLE; i++) {
		a.addr_bytes[5] = (uint8_t)(0x40 + i);
		TEST_ASSERT_EQ(expect(port, &a, true, "table entry"), 0, "entry %d", i);
	}
	a.addr_bytes[5] = 0x40 + MAC_TABLE;
	TEST_ASSERT_EQ(expect(port, &a, false, "17th"), 0, "");
	return TEST_SUCCESS;
}

static int
body_mcast(uint16_t port)
{
	struct rte_ether_addr a = mcast;

	TEST_ASSERT_EQ(expect(port, &mcast, false, "multicast, no allmulti"), 0, "");
	TEST_ASSERT_EQ(rte_eth_dev_mac_addr_add(port, &a, 0), 0, "add multicast");
	TEST_ASSERT_EQ(expect(port, &mcast, true, "added multicast"), 0, "");
	TEST_ASSERT_EQ(expect(port, &mcast2, false, "other multicast"), 0, "");
	return TEST_SUCCESS;
}

/* The multicast list (spec 2.2): replaced whole, at most MC_TABLE
 * multicast addresses, refused whole when it cannot be taken. */
static int
body_mc_list(uint16_t port)
{
	struct rte_ether_addr set[MC_TABLE + 1];
	unsigned int i;

	TEST_ASSERT_EQ(rte_eth_allmulticast_get(port), 0, "allmulti off");
	TEST_ASSERT_EQ(expect(port, &mcast, false, "multicast, no list"), 0, "");
	set[0] = mcast;
	TEST_ASSERT_EQ(rte_eth_dev_set_mc_addr_list(port, set, 1), 0, "list of one");
	TEST_ASSERT_EQ(expect(port, &mcast, true, "listed"), 0, "");
	TEST_ASSERT_EQ(expect(port, &mcast2, false, "not listed"), 0, "");
	TEST_ASSERT_EQ(expect(port, &unknown, false, "unicast"), 0, "");
	/* refused lists change nothing */
	for (i = 0; i <= MC_TABLE; i++) {
		set[i] = mcast2;
		set[i].addr_bytes[5] = (uint8_t)(0x80 + i);
	}
	TEST_ASSERT_EQ(rte_eth_dev_set_mc_addr_list(port, set, MC_TABLE + 1), -ENOSPC,
		       "one more than the filter holds");
	set[1] = unknown;
	TEST_ASSERT_EQ(rte_eth_dev_set_mc_addr_list(port, set, 2), -EINVAL,
		       "a unicast address");
	TEST_ASSERT_EQ(rte_eth_dev_set_mc_addr_list(port, NULL, 1), -EINVAL, "NULL list");
	TEST_ASSERT_EQ(expect(port, &mcast, true, "still listed"), 0, "");
	/* a full list replaces the old one */
	set[1] = mcast2;
	set[1].addr_bytes[5] = 0x81;
	TEST_ASSERT_EQ(rte_eth_dev_set_mc_addr_list(port, set, MC_TABLE), 0, "full list");
	TEST_ASSERT_EQ(expect(port, &mcast, false, "replaced"), 0, "");
	for (i = 0; i < MC_TABLE; i++)
		TEST_ASSERT_EQ(expect(port, &set[i], true, "full list entry"), 0, "entry %u", i);
	TEST_ASSERT_EQ(expect(port, &set[MC_TABLE], false, "beyond the list"), 0, "");
	/* kept across stop/start */
	TEST_ASSERT_EQ(rte_eth_dev_stop(port), 0, "");
	TEST_ASSERT_EQ(rte_eth_dev_start(port), 0, "");
	TEST_ASSERT_EQ(expect(port, &set[3], true, "after restart"), 0, "");
	/* the unicast table is apart: a MAC address added still counts */
	set[0] = mcast;
	TEST_ASSERT_EQ(rte_eth_dev_mac_addr_add(port, &set[0], 0), 0, "add multicast MAC");
	TEST_ASSERT_EQ(expect(port, &mcast, true, "MAC table"), 0, "");
	/* an empty list clears it */
	TEST_ASSERT_EQ(rte_eth_dev_set_mc_addr_list(port, NULL, 0), 0, "empty list");
	TEST_ASSERT_EQ(expect(port, &set[3], false, "cleared"), 0, "");
	TEST_ASSERT_EQ(expect(port, &mcast, true, "MAC table untouched"), 0, "");
	return TEST_SUCCESS;
}

static int test_add_remove(void) { return with_port(body_add_remove); }
static int test_primary(void) { return with_port(body_primary); }
static int test_full(void) { return with_port(body_full); }
static int test_mcast(void) { return with_port(body_mcast); }
static int test_mc_list(void) { return with_port(body_mc_list); }

static const struct tally_test_case cases[] = {
	TEST_CASE(test_add_remove),
	TEST_CASE(test_primary),
	TEST_CASE(test_full),
	TEST_CASE(test_mcast),
	TEST_CASE(test_mc_list),
};

int
main(void)
{
	int rc;

	tdt_eal_init("tally-mac");
	rc = tally_test_run("dpdk-mac", cases, RTE_DIM(cases));
	rte_eal_cleanup();
	return rc;
}
