/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Transfer rules on a device of several ports (spec 2.3, the switch): the
 * ports' ethdevs and their switch_info, the transfer proxy, and real frames
 * through the switch with exact counts. Every port's wire is a loop: a frame
 * port 0's host sends comes back into port 0's wire and so enters the
 * switch from port 0; one the switch sends to port 1's wire comes back into
 * port 1 (which has no rule for it) and lands in port 1's queue. Each case
 * checks where every frame ended (which port's queue, or nowhere), its
 * bytes, the rule's counter through rte_flow_query, and the ports' switch
 * statistics. Then every refusal, with its exact errno and cause, and the
 * life cycle: destroy through the wrong port, flush of one port's rules,
 * and the device's rules going with port 0.
 */
#include <rte_flow.h>

#include "tally_dpdk_test.h"

#define NB		24	/* frames per case */
#define LEN		64

struct dev3 {
	char name[64];
	uint16_t p[3];
};

static int
dev3_create(struct dev3 *d, const char *args)
{
	char pname[80];
	int port, i;

	port = tdt_port_create(args, d->name, sizeof(d->name));
	if (port < 0)
		return port;
	d->p[0] = (uint16_t)port;
	for (i = 1; i < 3; i++) {
		snprintf(pname, sizeof(pname), "%s_p%d", d->name, i);
		port = tdt_port_by_name(pname);
		if (port < 0)
			return -ENODEV;
		d->p[i] = (uint16_t)port;
	}
	return 0;
}

static int
dev3_setup(struct dev3 *d)
{
	struct tdt_port_conf pc = { .nb_rxq = 1, .nb_txq = 1, .promisc = true };
	int i;

	for (i = 0; i < 3; i++)
		TEST_ASSERT_EQ(tdt_port_setup(d->p[i], &pc), 0, "setup port %d", i);
	return TEST_SUCCESS;
}

static void
dev3_destroy(struct dev3 *d)
{
	int i;

	for (i = 2; i >= 0; i--) {
		rte_eth_dev_stop(d->p[i]);
		rte_eth_dev_close(d->p[i]);
	}
	rte_eal_hotplug_remove("vdev", d->name);
	tdt_nic_stop(d->name);
}

/* Send NB frames (tdt_mbuf_build(LEN, i)) on port `from`, or tagged ones
 * (vid) when vid != 0; then count what each port's queue received, keeping
 * the first frame of port `keep` in *first. */
static int
send_and_count(struct dev3 *d, int from, uint16_t vid, unsigned int got[3], int keep,
	       uint8_t *first, uint32_t *first_len)
{
	struct rte_mbuf *tx[NB], *rx[NB * 2];
	unsigned int i, n;
	int k;

	for (i = 0; i < NB; i++) {
		tx[i] = tdt_mbuf_build(LEN, i, 1);
		TEST_ASSERT(tx[i] != NULL, "mbuf");
		if (vid != 0) {
			uint8_t *p = (uint8_t *)rte_pktmbuf_prepend(tx[i], 4);

			TEST_ASSERT(p != NULL, "prepend");
			memmove(p, p + 4, 12);
			p[12] = 0x81;
			p[13] = 0x00;
			p[14] = (uint8_t)(vid >> 8);
			p[15] = (uint8_t)vid;
		}
	}
	TEST_ASSERT_EQ(tdt_tx_all(d->p[from], 0, tx, NB), NB, "tx");
	for (k = 0; k < 3; k++)
		rte_pmd_tally_model_step(d->p[k]);
	for (k = 0; k < 3; k++) {
		n = tdt_rx_all(d->p[k], 1, rx, NULL, RTE_DIM(rx), NB);
		got[k] = n;
		if (k == keep && n > 0 && first != NULL) {
			const void *p = rte_pktmbuf_read(rx[0], 0, rx[0]->pkt_len, first);

			*first_len = rx[0]->pkt_len;
			if (p != NULL && p != first)
				memcpy(first, p, rx[0]->pkt_len);
		}
		tdt_free_all(rx, RTE_MIN(n, (unsigned int)RTE_DIM(rx)));
	}
	return TEST_SUCCESS;
}

static int
count_is(uint16_t port, struct rte_flow *f, uint64_t hits, uint64_t bytes)
{
	struct rte_flow_query_count qc = { .reset = 0 };
	struct rte_flow_action a[] = {
		{ .type = RTE_FLOW_ACTION_TYPE_COUNT },
		{ .type = RTE_FLOW_ACTION_TYPE_END },
	};
	struct rte_flow_error err;

	TEST_ASSERT_EQ(rte_flow_query(port, f, a, &qc, &err), 0, "query: %s",
		       err.message ? err.message : "");
	TEST_ASSERT(qc.hits_set && qc.bytes_set, "hits and bytes set");
	TEST_ASSERT_U64_EQ(qc.hits, hits, "hits");
	TEST_ASSERT_U64_EQ(qc.bytes, bytes, "bytes");
	return TEST_SUCCESS;
}

static const struct rte_flow_attr xattr = { .transfer = 1 };

/* eth / ipv4 / udp dst 4790 (every frame tdt builds) */
static struct rte_flow_item_udp udp_spec = { .hdr.dst_port = RTE_BE16(4790) };
static struct rte_flow_item_udp udp_mask = { .hdr.dst_port = RTE_BE16(0xffff) };

static void
pattern_udp(struct rte_flow_item *it, const struct rte_flow_item *source)
{
	int n = 0;

	if (source != NULL)
		it[n++] = *source;
	it[n++] = (struct rte_flow_item){ .type = RTE_FLOW_ITEM_TYPE_ETH };
	it[n++] = (struct rte_flow_item){ .type = RTE_FLOW_ITEM_TYPE_IPV4 };
	it[n++] = (struct rte_flow_item){ .type = RTE_FLOW_ITEM_TYPE_UDP,
					  .spec = &udp_spec, .mask = &udp_mask };
	it[n] = (struct rte_flow_item){ .type = RTE_FLOW_ITEM_TYPE_END };
}

/* ---- the device and its ethdevs -------------------------------------------- */

static int
test_ports_and_switch_info(void)
{
	struct rte_eth_dev_info info[3], one;
	struct rte_flow_error err;
	char name1[80];
	struct dev3 d;
	uint16_t proxy;
	int i, p1;

	TEST_ASSERT_EQ(dev3_create(&d, "ports=3,counters=65536"), 0, "device of 3 ports");
	for (i = 0; i < 3; i++) {
		TEST_ASSERT_EQ(rte_eth_dev_info_get(d.p[i], &info[i]), 0, "info %d", i);
		TEST_ASSERT(info[i].switch_info.name != NULL, "switch name");
		TEST_ASSERT(strcmp(info[i].switch_info.name, d.name) == 0, "switch name %s",
			    info[i].switch_info.name);
		TEST_ASSERT_EQ(info[i].switch_info.domain_id, info[0].switch_info.domain_id,
			       "one domain");
		TEST_ASSERT_EQ(info[i].switch_info.port_id, i, "port index");
		TEST_ASSERT_EQ(rte_flow_pick_transfer_proxy(d.p[i], &proxy, &err), 0,
			       "proxy of port %d", i);
		TEST_ASSERT_EQ(proxy, d.p[0], "port 0 is the proxy");
	}
	TEST_ASSERT(info[0].switch_info.domain_id != RTE_ETH_DEV_SWITCH_DOMAIN_ID_INVALID,
		    "a domain");
	/* the ports' MACs: port 0's plus the index */
	{
		struct rte_ether_addr m0, m2;

		TEST_ASSERT_EQ(rte_eth_macaddr_get(d.p[0], &m0), 0, "mac 0");
		TEST_ASSERT_EQ(rte_eth_macaddr_get(d.p[2], &m2), 0, "mac 2");
		TEST_ASSERT_EQ(m2.addr_bytes[5], (uint8_t)(m0.addr_bytes[5] + 2), "mac + 2");
	}
	/* a one-port device is a switch domain of its own */
	p1 = tdt_port_create("", name1, sizeof(name1));
	TEST_ASSERT(p1 >= 0, "one-port device");
	TEST_ASSERT_EQ(rte_eth_dev_info_get((uint16_t)p1, &one), 0, "info");
	TEST_ASSERT(one.switch_info.domain_id != info[0].switch_info.domain_id,
		    "another domain");
	TEST_ASSERT_EQ(one.switch_info.port_id, 0, "port 0");
	TEST_ASSERT_EQ(rte_flow_pick_transfer_proxy((uint16_t)p1, &proxy, &err), 0, "proxy");
	TEST_ASSERT_EQ(proxy, p1, "its own proxy");
	tdt_port_destroy((uint16_t)p1, name1);
	dev3_destroy(&d);
	/* every ethdev of the device went with it */
	snprintf(name1, sizeof(name1), "%s_p2", d.name);
	TEST_ASSERT_EQ(tdt_port_by_name(name1), -1, "port 2 gone");
	return TEST_SUCCESS;
}

static int
test_bad_ports_devargs(void)
{
	char name[64];

	TEST_ASSERT(tdt_port_create("ports=9", name, sizeof(name)) < 0, "9 ports");
	TEST_ASSERT(tdt_port_create("ports=0", name, sizeof(name)) < 0, "0 ports");
	TEST_ASSERT(tdt_port_create("ports=2,p2_wire=none", name, sizeof(name)) < 0,
		    "a setting for port 2 of 2");
	TEST_ASSERT(tdt_port_create("ports=2,p1_wire=bogus", name, sizeof(name)) < 0,
		    "bad value");
	return TEST_SUCCESS;
}

/* ---- frames through the switch ----------------------------------------------- */

static struct rte_flow *
create(uint16_t port, const struct rte_flow_attr *attr, const struct rte_flow_item *it,
       const struct rte_flow_action *a)
{
	struct rte_flow_error err = { 0 };
	struct rte_flow *f = rte_flow_create(port, attr, it, a, &err);

	if (f == NULL)
		fprintf(stderr, "  create: %s (%d)\n", err.message ? err.message : "?",
			rte_errno);
	return f;
}

static int
test_forward_wire_host_drop(void)
{
	struct rte_flow_action_port_id to1 = { .id = 0 };
	struct rte_flow_action_ethdev rep = { 0 };
	struct rte_flow_item it[6];
	struct rte_flow *f;
	unsigned int got[3];
	uint8_t first[256];
	uint32_t flen = 0;
	struct dev3 d;
	uint64_t tx1;

	TEST_ASSERT_EQ(dev3_create(&d, "ports=3,counters=65536"), 0, "device");
	TEST_ASSERT_EQ(dev3_setup(&d), TEST_SUCCESS, "setup");
	pattern_udp(it, NULL);

	/* 1. port 0's wire -> port 1's wire (OVS's port_id action) */
	to1.id = d.p[1];
	{
		struct rte_flow_action a[] = {
			{ .type = RTE_FLOW_ACTION_TYPE_COUNT },
			{ .type = RTE_FLOW_ACTION_TYPE_PORT_ID, .conf = &to1 },
			{ .type = RTE_FLOW_ACTION_TYPE_END },
		};

		f = create(d.p[0], &xattr, it, a);
		TEST_ASSERT(f != NULL, "port_id rule");
		TEST_ASSERT_EQ(send_and_count(&d, 0, 0, got, 1, first, &flen), 0, "send");
		TEST_ASSERT_EQ(got[0], 0, "nothing for port 0's host");
		TEST_ASSERT_EQ(got[1], NB, "all came in on port 1");
		TEST_ASSERT_EQ(got[2], 0, "nothing on port 2");
		TEST_ASSERT_EQ(flen, LEN, "length");
		{
			uint8_t want[LEN];

			tdt_frame_fill(want, LEN, 0);
			TEST_ASSERT(memcmp(first, want, LEN) == 0, "bytes unchanged");
		}
		TEST_ASSERT_EQ(count_is(d.p[0], f, NB, NB * LEN), 0, "count");
		TEST_ASSERT_U64_EQ(tdt_xstat(d.p[0], "sw_to_wire"), NB, "sw_to_wire");
		TEST_ASSERT_U64_EQ(tdt_xstat(d.p[1], "tx_packets"), NB,
				   "port 1 put them on its wire");
		TEST_ASSERT_EQ(rte_flow_destroy(d.p[0], f, NULL), 0, "destroy");
	}
	/* 2. port 0's wire -> port 1's queues (port_representor): not on its wire */
	tx1 = tdt_xstat(d.p[1], "tx_packets");
	rep.port_id = d.p[1];
	{
		struct rte_flow_action a[] = {
			{ .type = RTE_FLOW_ACTION_TYPE_COUNT },
			{ .type = RTE_FLOW_ACTION_TYPE_PORT_REPRESENTOR, .conf = &rep },
			{ .type = RTE_FLOW_ACTION_TYPE_END },
		};

		f = create(d.p[0], &xattr, it, a);
		TEST_ASSERT(f != NULL, "port_representor rule");
		TEST_ASSERT_EQ(send_and_count(&d, 0, 0, got, 1, NULL, NULL), 0, "send");
		TEST_ASSERT_EQ(got[0], 0, "nothing for port 0");
		TEST_ASSERT_EQ(got[1], NB, "port 1's queue");
		TEST_ASSERT_U64_EQ(tdt_xstat(d.p[1], "tx_packets"), tx1, "not on port 1's wire");
		TEST_ASSERT_U64_EQ(tdt_xstat(d.p[0], "sw_to_host"), NB, "sw_to_host");
		TEST_ASSERT_EQ(count_is(d.p[0], f, NB, NB * LEN), 0, "count");
		TEST_ASSERT_EQ(rte_flow_destroy(d.p[0], f, NULL), 0, "destroy");
	}
	/* 3. drop, counted */
	{
		struct rte_flow_action a[] = {
			{ .type = RTE_FLOW_ACTION_TYPE_COUNT },
			{ .type = RTE_FLOW_ACTION_TYPE_DROP },
			{ .type = RTE_FLOW_ACTION_TYPE_END },
		};

		f = create(d.p[0], &xattr, it, a);
		TEST_ASSERT(f != NULL, "drop rule");
		TEST_ASSERT_EQ(send_and_count(&d, 0, 0, got, -1, NULL, NULL), 0, "send");
		TEST_ASSERT_EQ(got[0] + got[1] + got[2], 0, "all dropped");
		TEST_ASSERT_U64_EQ(tdt_xstat(d.p[0], "sw_drop"), NB, "sw_drop");
		TEST_ASSERT_EQ(count_is(d.p[0], f, NB, NB * LEN), 0, "count");
		TEST_ASSERT_EQ(rte_flow_destroy(d.p[0], f, NULL), 0, "destroy");
	}
	/* 4. count without a fate: the frame goes on to its own port */
	{
		struct rte_flow_action a[] = {
			{ .type = RTE_FLOW_ACTION_TYPE_COUNT },
			{ .type = RTE_FLOW_ACTION_TYPE_END },
		};

		f = create(d.p[0], &xattr, it, a);
		TEST_ASSERT(f != NULL, "count rule");
		TEST_ASSERT_EQ(send_and_count(&d, 0, 0, got, -1, NULL, NULL), 0, "send");
		TEST_ASSERT_EQ(got[0], NB, "port 0's own queue");
		TEST_ASSERT_EQ(got[1] + got[2], 0, "nowhere else");
		TEST_ASSERT_EQ(count_is(d.p[0], f, NB, NB * LEN), 0, "count");
		TEST_ASSERT_EQ(rte_flow_destroy(d.p[0], f, NULL), 0, "destroy");
	}
	/* no rule: as without a switch */
	TEST_ASSERT_EQ(send_and_count(&d, 0, 0, got, -1, NULL, NULL), 0, "send");
	TEST_ASSERT_EQ(got[0], NB, "no rule: port 0");
	dev3_destroy(&d);
	return TEST_SUCCESS;
}

/* The traffic source: explicit items, the implicit one (the port the rule
 * is created through), and any port (an item without spec). */
static int
test_traffic_source(void)
{
	struct rte_flow_item_ethdev src1 = { 0 };
	struct rte_flow_item source;
	struct rte_flow_item it[6];
	struct rte_flow *f, *g;
	unsigned int got[3];
	struct dev3 d;
	struct rte_flow_action drop[] = {
		{ .type = RTE_FLOW_ACTION_TYPE_COUNT },
		{ .type = RTE_FLOW_ACTION_TYPE_DROP },
		{ .type = RTE_FLOW_ACTION_TYPE_END },
	};

	TEST_ASSERT_EQ(dev3_create(&d, "ports=3,counters=65536"), 0, "device");
	TEST_ASSERT_EQ(dev3_setup(&d), TEST_SUCCESS, "setup");
	/* created on port 0, for frames from port 1's wire */
	src1.port_id = d.p[1];
	source = (struct rte_flow_item){ .type = RTE_FLOW_ITEM_TYPE_REPRESENTED_PORT,
					 .spec = &src1 };
	pattern_udp(it, &source);
	f = create(d.p[0], &xattr, it, drop);
	TEST_ASSERT(f != NULL, "represented_port source");
	TEST_ASSERT_EQ(send_and_count(&d, 0, 0, got, -1, NULL, NULL), 0, "from 0");
	TEST_ASSERT_EQ(got[0], NB, "port 0's frames pass");
	TEST_ASSERT_EQ(send_and_count(&d, 1, 0, got, -1, NULL, NULL), 0, "from 1");
	TEST_ASSERT_EQ(got[1], 0, "port 1's dropped");
	TEST_ASSERT_EQ(count_is(d.p[0], f, NB, NB * LEN), 0, "count");
	TEST_ASSERT_EQ(rte_flow_destroy(d.p[0], f, NULL), 0, "destroy");
	/* created on port 2, no source item: port 2's wire only */
	pattern_udp(it, NULL);
	f = create(d.p[2], &xattr, it, drop);
	TEST_ASSERT(f != NULL, "implicit source");
	TEST_ASSERT_EQ(send_and_count(&d, 1, 0, got, -1, NULL, NULL), 0, "from 1");
	TEST_ASSERT_EQ(got[1], NB, "port 1's pass");
	TEST_ASSERT_EQ(send_and_count(&d, 2, 0, got, -1, NULL, NULL), 0, "from 2");
	TEST_ASSERT_EQ(got[2], 0, "port 2's dropped");
	TEST_ASSERT_EQ(count_is(d.p[2], f, NB, NB * LEN), 0, "count via port 2");
	/* the rule is port 2's: port 0 (the proxy) cannot destroy it */
	TEST_ASSERT(rte_flow_destroy(d.p[0], f, NULL) != 0, "not port 0's");
	TEST_ASSERT_EQ(rte_flow_destroy(d.p[2], f, NULL), 0, "destroy via port 2");
	/* a source item without spec: every port (port_id item) */
	source = (struct rte_flow_item){ .type = RTE_FLOW_ITEM_TYPE_PORT_ID };
	pattern_udp(it, &source);
	g = create(d.p[1], &xattr, it, drop);
	TEST_ASSERT(g != NULL, "any source");
	TEST_ASSERT_EQ(send_and_count(&d, 0, 0, got, -1, NULL, NULL), 0, "from 0");
	TEST_ASSERT_EQ(got[0], 0, "port 0's dropped");
	TEST_ASSERT_EQ(send_and_count(&d, 2, 0, got, -1, NULL, NULL), 0, "from 2");
	TEST_ASSERT_EQ(got[2], 0, "port 2's dropped");
	TEST_ASSERT_EQ(count_is(d.p[1], g, 2 * NB, 2 * NB * LEN), 0, "count");
	TEST_ASSERT_EQ(rte_flow_destroy(d.p[1], g, NULL), 0, "destroy");
	dev3_destroy(&d);
	return TEST_SUCCESS;
}

/* What a port's host transmits enters the switch too (port_representor
 * item): a rule for port 1's host drops its frames before its wire; one for
 * port 2's host hands them to port 0's queues without any wire. Neither
 * takes frames from a wire, and the host's port counts them as the switch's,
 * not as transmitted. */
static int
test_host_source(void)
{
	struct rte_flow_item_ethdev h1 = { 0 }, h2 = { 0 };
	struct rte_flow_action_ethdev rep0 = { 0 };
	struct rte_flow_action_port_id to1 = { 0 };
	struct rte_flow_item source, it[6], wit[6];
	struct rte_flow *f, *g, *w;
	unsigned int got[3];
	struct dev3 d;
	struct rte_flow_action drop[] = {
		{ .type = RTE_FLOW_ACTION_TYPE_COUNT },
		{ .type = RTE_FLOW_ACTION_TYPE_DROP },
		{ .type = RTE_FLOW_ACTION_TYPE_END },
	};
	struct rte_flow_action to_host0[] = {
		{ .type = RTE_FLOW_ACTION_TYPE_COUNT },
		{ .type = RTE_FLOW_ACTION_TYPE_PORT_REPRESENTOR, .conf = &rep0 },
		{ .type = RTE_FLOW_ACTION_TYPE_END },
	};
	struct rte_flow_action fwd1[] = {
		{ .type = RTE_FLOW_ACTION_TYPE_PORT_ID, .conf = &to1 },
		{ .type = RTE_FLOW_ACTION_TYPE_END },
	};

	TEST_ASSERT_EQ(dev3_create(&d, "ports=3,counters=65536"), 0, "device");
	TEST_ASSERT_EQ(dev3_setup(&d), TEST_SUCCESS, "setup");
	h1.port_id = d.p[1];
	h2.port_id = d.p[2];
	rep0.port_id = d.p[0];
	to1.id = d.p[1];
	source = (struct rte_flow_item){ .type = RTE_FLOW_ITEM_TYPE_PORT_REPRESENTOR,
					 .spec = &h1 };
	pattern_udp(it, &source);
	f = create(d.p[0], &xattr, it, drop);
	TEST_ASSERT(f != NULL, "port 1's host: drop");
	TEST_ASSERT_EQ(send_and_count(&d, 1, 0, got, -1, NULL, NULL), 0, "from 1's host");
	TEST_ASSERT_EQ(got[0] + got[1] + got[2], 0, "dropped before the wire");
	TEST_ASSERT_EQ(count_is(d.p[0], f, NB, NB * LEN), 0, "count");
	TEST_ASSERT_U64_EQ(tdt_xstat(d.p[1], "sw_drop"), NB, "port 1's sw_drop");
	TEST_ASSERT_U64_EQ(tdt_xstat(d.p[1], "tx_packets"), 0, "nothing on port 1's wire");
	/* frames entering from port 1's wire are not its host's: port 0's
	 * frames sent there come back in port 1 untouched by the drop rule */
	pattern_udp(wit, NULL);
	w = create(d.p[0], &xattr, wit, fwd1);
	TEST_ASSERT(w != NULL, "port 0's wire to port 1's");
	TEST_ASSERT_EQ(send_and_count(&d, 0, 0, got, -1, NULL, NULL), 0, "from 0");
	TEST_ASSERT_EQ(got[1], NB, "port 1's wire frames pass the host rule");
	TEST_ASSERT_EQ(count_is(d.p[0], f, NB, NB * LEN), 0, "host rule unchanged");
	TEST_ASSERT_EQ(rte_flow_destroy(d.p[0], w, NULL), 0, "destroy");
	TEST_ASSERT_EQ(rte_flow_destroy(d.p[0], f, NULL), 0, "destroy");
	/* port 2's host to port 0's queues, no wire on the way */
	source.spec = &h2;
	pattern_udp(it, &source);
	g = create(d.p[2], &xattr, it, to_host0);
	TEST_ASSERT(g != NULL, "port 2's host to port 0's queues");
	TEST_ASSERT_EQ(send_and_count(&d, 2, 0, got, -1, NULL, NULL), 0, "from 2's host");
	TEST_ASSERT_EQ(got[0], NB, "port 0's queue");
	TEST_ASSERT_EQ(got[1] + got[2], 0, "nowhere else");
	TEST_ASSERT_U64_EQ(tdt_xstat(d.p[2], "sw_to_host"), NB, "port 2's sw_to_host");
	TEST_ASSERT_U64_EQ(tdt_xstat(d.p[2], "tx_packets"), 0, "nothing on port 2's wire");
	TEST_ASSERT_EQ(count_is(d.p[2], g, NB, NB * LEN), 0, "count");
	TEST_ASSERT_EQ(rte_flow_destroy(d.p[2], g, NULL), 0, "destroy");
	/* no rule left: the switch is off, hosts send to their wires again */
	TEST_ASSERT_EQ(send_and_count(&d, 1, 0, got, -1, NULL, NULL), 0, "from 1");
	TEST_ASSERT_EQ(got[1], NB, "port 1's loop");
	dev3_destroy(&d);
	return TEST_SUCCESS;
}

/* VLAN and MAC edits on the way to another port's wire: the bytes port 1
 * receives. */
static int
test_edits(void)
{
	struct rte_flow_action_of_push_vlan push = { .ethertype = RTE_BE16(0x8100) };
	struct rte_flow_action_of_set_vlan_vid vid = { .vlan_vid = RTE_BE16(100) };
	struct rte_flow_action_of_set_vlan_pcp pcp = { .vlan_pcp = 3 };
	struct rte_flow_action_set_mac dmac = { .mac_addr = { 2, 0xd, 0xd, 0xd, 0xd, 0xd } };
	struct rte_flow_action_ethdev to1 = { 0 };
	struct rte_flow_item_vlan vlan_spec = { .hdr.vlan_tci = RTE_BE16(7) };
	struct rte_flow_item_vlan vlan_mask = { .hdr.vlan_tci = RTE_BE16(0x0fff) };
	struct rte_flow_item vit[5] = {
		{ .type = RTE_FLOW_ITEM_TYPE_ETH },
		{ .type = RTE_FLOW_ITEM_TYPE_VLAN, .spec = &vlan_spec, .mask = &vlan_mask },
		{ .type = RTE_FLOW_ITEM_TYPE_END },
	};
	struct rte_flow_item it[6];
	uint8_t want[LEN + 4], first[256];
	unsigned int got[3];
	uint32_t flen = 0;
	struct rte_flow *f;
	struct dev3 d;

	TEST_ASSERT_EQ(dev3_create(&d, "ports=3,counters=65536"), 0, "device");
	TEST_ASSERT_EQ(dev3_setup(&d), TEST_SUCCESS, "setup");
	to1.port_id = d.p[1];
	pattern_udp(it, NULL);
	{
		struct rte_flow_action a[] = {
			{ .type = RTE_FLOW_ACTION_TYPE_OF_PUSH_VLAN, .conf = &push },
			{ .type = RTE_FLOW_ACTION_TYPE_OF_SET_VLAN_VID, .conf = &vid },
			{ .type = RTE_FLOW_ACTION_TYPE_OF_SET_VLAN_PCP, .conf = &pcp },
			{ .type = RTE_FLOW_ACTION_TYPE_SET_MAC_DST, .conf = &dmac },
			{ .type = RTE_FLOW_ACTION_TYPE_COUNT },
			{ .type = RTE_FLOW_ACTION_TYPE_REPRESENTED_PORT, .conf = &to1 },
			{ .type = RTE_FLOW_ACTION_TYPE_END },
		};

		f = create(d.p[0], &xattr, it, a);
		TEST_ASSERT(f != NULL, "push and set");
		TEST_ASSERT_EQ(send_and_count(&d, 0, 0, got, 1, first, &flen), 0, "send");
		TEST_ASSERT_EQ(got[1], NB, "port 1");
		TEST_ASSERT_EQ(flen, LEN + 4, "a tag longer");
		tdt_frame_fill(want + 4, LEN, 0);
		memcpy(want, "\x02\x0d\x0d\x0d\x0d\x0d", 6);
		memmove(want + 6, want + 10, 6);
		want[12] = 0x81;
		want[13] = 0x00;
		want[14] = 3 << 5;
		want[15] = 100;
		TEST_ASSERT(memcmp(first, want, LEN + 4) == 0, "pushed tag and new dmac");
		TEST_ASSERT_EQ(count_is(d.p[0], f, NB, NB * LEN), 0,
			       "counted as it entered the switch");
		TEST_ASSERT_EQ(rte_flow_destroy(d.p[0], f, NULL), 0, "destroy");
	}
	/* tagged frames with vid 7: pop, forward */
	{
		struct rte_flow_action a[] = {
			{ .type = RTE_FLOW_ACTION_TYPE_OF_POP_VLAN },
			{ .type = RTE_FLOW_ACTION_TYPE_REPRESENTED_PORT, .conf = &to1 },
			{ .type = RTE_FLOW_ACTION_TYPE_END },
		};

		f = create(d.p[0], &xattr, vit, a);
		TEST_ASSERT(f != NULL, "pop");
		TEST_ASSERT_EQ(send_and_count(&d, 0, 7, got, 1, first, &flen), 0, "send");
		TEST_ASSERT_EQ(got[1], NB, "port 1");
		TEST_ASSERT_EQ(flen, LEN, "tag gone");
		tdt_frame_fill(want, LEN, 0);
		TEST_ASSERT(memcmp(first, want, LEN) == 0, "the frame as built");
		TEST_ASSERT_EQ(rte_flow_destroy(d.p[0], f, NULL), 0, "destroy");
	}
	/* set the VID of the tag there is; no destination: on to port 0 */
	{
		struct rte_flow_action a[] = {
			{ .type = RTE_FLOW_ACTION_TYPE_OF_SET_VLAN_VID, .conf = &vid },
			{ .type = RTE_FLOW_ACTION_TYPE_END },
		};

		f = create(d.p[0], &xattr, vit, a);
		TEST_ASSERT(f != NULL, "set vid");
		TEST_ASSERT_EQ(send_and_count(&d, 0, 7, got, 0, first, &flen), 0, "send");
		TEST_ASSERT_EQ(got[0], NB, "port 0 itself");
		TEST_ASSERT_EQ(flen, LEN + 4, "still tagged");
		TEST_ASSERT_EQ(first[14], 0, "vid high");
		TEST_ASSERT_EQ(first[15], 100, "vid 100");
		TEST_ASSERT_EQ(rte_flow_destroy(d.p[0], f, NULL), 0, "destroy");
	}
	dev3_destroy(&d);
	return TEST_SUCCESS;
}

/* A jump between transfer groups, counted in both; an indirect COUNT of
 * port 0 named by a rule created through port 1. */
static int
test_jump_and_indirect(void)
{
	struct rte_flow_action_jump j1 = { .group = 1 };
	struct rte_flow_action_ethdev to2 = { 0 };
	struct rte_flow_indir_action_conf ic = { .transfer = 1 };
	struct rte_flow_action cnt = { .type = RTE_FLOW_ACTION_TYPE_COUNT };
	struct rte_flow_action_handle *h, *h1;
	struct rte_flow_attr g1 = { .transfer = 1, .group = 1 };
	struct rte_flow_query_count qc = { 0 };
	struct rte_flow_item it[6];
	struct rte_flow_error err;
	struct rte_flow *f0, *f1;
	unsigned int got[3];
	struct dev3 d;

	TEST_ASSERT_EQ(dev3_create(&d, "ports=3,counters=65536"), 0, "device");
	TEST_ASSERT_EQ(dev3_setup(&d), TEST_SUCCESS, "setup");
	to2.port_id = d.p[2];
	pattern_udp(it, NULL);
	h = rte_flow_action_handle_create(d.p[0], &ic, &cnt, &err);
	TEST_ASSERT(h != NULL, "transfer indirect count on the proxy");
	/* not on another port: its counters are not the switch's */
	h1 = rte_flow_action_handle_create(d.p[1], &ic, &cnt, &err);
	TEST_ASSERT(h1 == NULL, "transfer indirect on port 1");
	TEST_ASSERT_EQ(rte_errno, ENOTSUP, "errno");
	TEST_ASSERT_EQ(err.type, RTE_FLOW_ERROR_TYPE_ATTR, "cause");
	{
		struct rte_flow_action a0[] = {
			{ .type = RTE_FLOW_ACTION_TYPE_COUNT },
			{ .type = RTE_FLOW_ACTION_TYPE_JUMP, .conf = &j1 },
			{ .type = RTE_FLOW_ACTION_TYPE_END },
		};
		struct rte_flow_action a1[] = {
			{ .type = RTE_FLOW_ACTION_TYPE_INDIRECT, .conf = h },
			{ .type = RTE_FLOW_ACTION_TYPE_REPRESENTED_PORT, .conf = &to2 },
			{ .type = RTE_FLOW_ACTION_TYPE_END },
		};
		struct rte_flow_item_ethdev src1 = { 0 };
		struct rte_flow_item source = { .type = RTE_FLOW_ITEM_TYPE_REPRESENTED_PORT,
						.spec = &src1 };
		struct rte_flow_item it1[6];

		src1.port_id = d.p[1];
		pattern_udp(it1, &source);
		f0 = create(d.p[1], &xattr, it, a0);
		TEST_ASSERT(f0 != NULL, "group 0 jump");
		f1 = create(d.p[1], &g1, it1, a1);
		TEST_ASSERT(f1 != NULL, "group 1 to port 2, indirect count");
	}
	TEST_ASSERT_EQ(send_and_count(&d, 1, 0, got, -1, NULL, NULL), 0, "send");
	TEST_ASSERT_EQ(got[1], 0, "not port 1's");
	TEST_ASSERT_EQ(got[2], NB, "port 2's");
	TEST_ASSERT_EQ(count_is(d.p[1], f0, NB, NB * LEN), 0, "group 0 count");
	TEST_ASSERT_EQ(rte_flow_action_handle_query(d.p[0], h, &qc, &err), 0, "handle query");
	TEST_ASSERT_U64_EQ(qc.hits, NB, "indirect hits");
	TEST_ASSERT_U64_EQ(qc.bytes, NB * LEN, "indirect bytes");
	/* in use: the handle stays */
	TEST_ASSERT(rte_flow_action_handle_destroy(d.p[0], h, &err) != 0, "busy");
	/* port 1's flush takes its two rules, and only those */
	TEST_ASSERT_EQ(rte_flow_flush(d.p[1], &err), 0, "flush port 1");
	TEST_ASSERT(rte_flow_destroy(d.p[1], f0, &err) != 0, "gone");
	TEST_ASSERT_EQ(rte_errno, EINVAL, "errno");
	TEST_ASSERT_EQ(send_and_count(&d, 1, 0, got, -1, NULL, NULL), 0, "send");
	TEST_ASSERT_EQ(got[1], NB, "port 1's own again");
	TEST_ASSERT_EQ(rte_flow_action_handle_destroy(d.p[0], h, &err), 0, "free now");
	dev3_destroy(&d);
	return TEST_SUCCESS;
}

/* ---- refusals ---------------------------------------------------------------- */

static int
refused(uint16_t port, const struct rte_flow_attr *attr, const struct rte_flow_item *it,
	const struct rte_flow_action *a, int eno, enum rte_flow_error_type type,
	const void *cause)
{
	struct rte_flow_error err = { 0 };

	TEST_ASSERT_EQ(rte_flow_validate(port, attr, it, a, &err), -eno, "validate: %s",
		       err.message ? err.message : "");
	TEST_ASSERT_EQ(err.type, type, "cause type: %s", err.message ? err.message : "");
	if (cause != NULL)
		TEST_ASSERT(err.cause == cause, "cause: %s", err.message ? err.message : "");
	memset(&err, 0, sizeof(err));
	TEST_ASSERT(rte_flow_create(port, attr, it, a, &err) == NULL, "create");
	TEST_ASSERT_EQ(rte_errno, eno, "errno");
	TEST_ASSERT_EQ(err.type, type, "create cause type");
	return TEST_SUCCESS;
}

static int
test_refusals(void)
{
	struct rte_flow_attr ing = { .transfer = 1, .ingress = 1 };
	struct rte_flow_action_ethdev other = { 0 }, to1 = { 0 };
	struct rte_flow_action_of_push_vlan push_ip = { .ethertype = RTE_BE16(0x0800) };
	struct rte_flow_action_of_push_vlan push = { .ethertype = RTE_BE16(0x8100) };
	struct rte_flow_action_of_set_vlan_vid vid = { .vlan_vid = RTE_BE16(100) };
	struct rte_flow_action_of_set_vlan_vid badvid = { .vlan_vid = RTE_BE16(5000) };
	struct rte_flow_action_mark mark = { .id = 1 };
	struct rte_flow_item_ethdev rsrc = { 0 };
	struct rte_flow_item_ethdev part_mask = { .port_id = 0xff };
	struct rte_flow_action_handle *h1;
	struct rte_flow_indir_action_conf ic = { .ingress = 1 };
	struct rte_flow_action cnt = { .type = RTE_FLOW_ACTION_TYPE_COUNT };
	struct rte_flow_item it[6], partial[6], two[7];
	struct rte_flow_item src;
	struct rte_flow_error err;
	char name1[64];
	struct dev3 d;
	int one;

	TEST_ASSERT_EQ(dev3_create(&d, "ports=3,counters=65536"), 0, "device");
	one = tdt_port_create("", name1, sizeof(name1));
	TEST_ASSERT(one >= 0, "another device");
	other.port_id = (uint16_t)one;
	to1.port_id = d.p[1];
	pattern_udp(it, NULL);
	rsrc.port_id = d.p[1];
	src = (struct rte_flow_item){ .type = RTE_FLOW_ITEM_TYPE_REPRESENTED_PORT,
				      .spec = &rsrc, .mask = &part_mask };
	pattern_udp(partial, &src);
	src.mask = NULL;
	two[0] = src;
	pattern_udp(two + 1, &src);
	{
		struct rte_flow_action drop[] = {
			{ .type = RTE_FLOW_ACTION_TYPE_DROP },
			{ .type = RTE_FLOW_ACTION_TYPE_END },
		};
		struct rte_flow_action to_other[] = {
			{ .type = RTE_FLOW_ACTION_TYPE_REPRESENTED_PORT, .conf = &other },
			{ .type = RTE_FLOW_ACTION_TYPE_END },
		};
		struct rte_flow_action with_mark[] = {
			{ .type = RTE_FLOW_ACTION_TYPE_MARK, .conf = &mark },
			{ .type = RTE_FLOW_ACTION_TYPE_DROP },
			{ .type = RTE_FLOW_ACTION_TYPE_END },
		};
		struct rte_flow_action two_fates[] = {
			{ .type = RTE_FLOW_ACTION_TYPE_DROP },
			{ .type = RTE_FLOW_ACTION_TYPE_REPRESENTED_PORT, .conf = &to1 },
			{ .type = RTE_FLOW_ACTION_TYPE_END },
		};
		struct rte_flow_action edit_drop[] = {
			{ .type = RTE_FLOW_ACTION_TYPE_OF_POP_VLAN },
			{ .type = RTE_FLOW_ACTION_TYPE_DROP },
			{ .type = RTE_FLOW_ACTION_TYPE_END },
		};
		struct rte_flow_action vid_then_push[] = {
			{ .type = RTE_FLOW_ACTION_TYPE_OF_SET_VLAN_VID, .conf = &vid },
			{ .type = RTE_FLOW_ACTION_TYPE_OF_PUSH_VLAN, .conf = &push },
			{ .type = RTE_FLOW_ACTION_TYPE_END },
		};
		struct rte_flow_action push_ipv4[] = {
			{ .type = RTE_FLOW_ACTION_TYPE_OF_PUSH_VLAN, .conf = &push_ip },
			{ .type = RTE_FLOW_ACTION_TYPE_END },
		};
		struct rte_flow_action vid_5000[] = {
			{ .type = RTE_FLOW_ACTION_TYPE_OF_SET_VLAN_VID, .conf = &badvid },
			{ .type = RTE_FLOW_ACTION_TYPE_END },
		};

		/* ethdev refuses it before the driver sees it */
		TEST_ASSERT_EQ(refused(d.p[0], &ing, it, drop, EINVAL,
				       RTE_FLOW_ERROR_TYPE_ATTR, NULL), 0, "ingress");
		TEST_ASSERT_EQ(refused(d.p[0], &xattr, partial, drop, ENOTSUP,
				       RTE_FLOW_ERROR_TYPE_ITEM_MASK, &partial[0]), 0,
			       "partial source mask");
		TEST_ASSERT_EQ(refused(d.p[0], &xattr, two, drop, ENOTSUP,
				       RTE_FLOW_ERROR_TYPE_ITEM, &two[1]), 0, "two sources");
		TEST_ASSERT_EQ(refused(d.p[0], &xattr, it, to_other, EINVAL,
				       RTE_FLOW_ERROR_TYPE_ACTION_CONF, &to_other[0]), 0,
			       "a port of another device");
		TEST_ASSERT_EQ(refused(d.p[0], &xattr, it, with_mark, ENOTSUP,
				       RTE_FLOW_ERROR_TYPE_ACTION, &with_mark[0]), 0, "mark");
		TEST_ASSERT_EQ(refused(d.p[0], &xattr, it, two_fates, ENOTSUP,
				       RTE_FLOW_ERROR_TYPE_ACTION, &two_fates[1]), 0, "two fates");
		TEST_ASSERT_EQ(refused(d.p[0], &xattr, it, edit_drop, ENOTSUP,
				       RTE_FLOW_ERROR_TYPE_ACTION, &edit_drop[0]), 0, "edit and drop");
		TEST_ASSERT_EQ(refused(d.p[0], &xattr, it, vid_then_push, ENOTSUP,
				       RTE_FLOW_ERROR_TYPE_ACTION, &vid_then_push[1]), 0,
			       "set vid before push");
		TEST_ASSERT_EQ(refused(d.p[0], &xattr, it, push_ipv4, ENOTSUP,
				       RTE_FLOW_ERROR_TYPE_ACTION_CONF, &push_ipv4[0]), 0,
			       "push 0x0800");
		TEST_ASSERT_EQ(refused(d.p[0], &xattr, it, vid_5000, EINVAL,
				       RTE_FLOW_ERROR_TYPE_ACTION_CONF, &vid_5000[0]), 0, "vid 5000");
		/* an indirect count of port 1 (its own bank): not the switch's */
		h1 = rte_flow_action_handle_create(d.p[1], &ic, &cnt, &err);
		TEST_ASSERT(h1 != NULL, "port 1's indirect count");
		{
			struct rte_flow_action ind[] = {
				{ .type = RTE_FLOW_ACTION_TYPE_INDIRECT, .conf = h1 },
				{ .type = RTE_FLOW_ACTION_TYPE_DROP },
				{ .type = RTE_FLOW_ACTION_TYPE_END },
			};

			TEST_ASSERT_EQ(refused(d.p[1], &xattr, it, ind, EINVAL,
					       RTE_FLOW_ERROR_TYPE_ACTION_CONF, &ind[0]), 0,
				       "port 1's indirect in a transfer rule");
		}
		TEST_ASSERT_EQ(rte_flow_action_handle_destroy(d.p[1], h1, &err), 0, "free");
		/* the ports' own rules still refuse what only transfer rules take */
		{
			struct rte_flow_attr in = { .ingress = 1 };

			TEST_ASSERT(rte_flow_validate(d.p[0], &in, it, to_other, &err) != 0,
				    "port action in an ingress rule");
		}
	}
	tdt_port_destroy((uint16_t)one, name1);
	dev3_destroy(&d);
	return TEST_SUCCESS;
}

/* The device's transfer rules live on port 0: closing it takes them, and
 * the other ports' transfer calls fail with EIO; their own rules go on. */
static int
test_proxy_closed(void)
{
	struct rte_flow_item it[6];
	struct rte_flow_error err;
	struct rte_flow_attr in = { .ingress = 1 };
	unsigned int got[3];
	struct rte_flow *f;
	struct dev3 d;
	uint16_t proxy;
	struct rte_flow_action drop[] = {
		{ .type = RTE_FLOW_ACTION_TYPE_DROP },
		{ .type = RTE_FLOW_ACTION_TYPE_END },
	};

	TEST_ASSERT_EQ(dev3_create(&d, "ports=3,counters=65536"), 0, "device");
	TEST_ASSERT_EQ(dev3_setup(&d), TEST_SUCCESS, "setup");
	pattern_udp(it, NULL);
	f = create(d.p[1], &xattr, it, drop);
	TEST_ASSERT(f != NULL, "transfer rule via port 1");
	TEST_ASSERT_EQ(rte_eth_dev_stop(d.p[0]), 0, "stop 0");
	TEST_ASSERT_EQ(rte_eth_dev_close(d.p[0]), 0, "close 0");
	TEST_ASSERT(rte_flow_create(d.p[1], &xattr, it, drop, &err) == NULL, "no proxy");
	TEST_ASSERT_EQ(rte_errno, EIO, "errno");
	TEST_ASSERT(rte_flow_pick_transfer_proxy(d.p[1], &proxy, &err) != 0, "no proxy");
	/* port 1's frames are no longer dropped by the switch */
	TEST_ASSERT_EQ(send_and_count(&d, 1, 0, got, -1, NULL, NULL), 0, "send");
	TEST_ASSERT_EQ(got[1], NB, "port 1 works");
	f = create(d.p[1], &in, it, drop);
	TEST_ASSERT(f != NULL, "port 1's own rule");
	TEST_ASSERT_EQ(rte_flow_flush(d.p[1], &err), 0, "flush");
	dev3_destroy(&d);
	return TEST_SUCCESS;
}

static const struct tally_test_case cases[] = {
	TEST_CASE(test_ports_and_switch_info),
	TEST_CASE(test_bad_ports_devargs),
	TEST_CASE(test_forward_wire_host_drop),
	TEST_CASE(test_traffic_source),
	TEST_CASE(test_host_source),
	TEST_CASE(test_edits),
	TEST_CASE(test_jump_and_indirect),
	TEST_CASE(test_refusals),
	TEST_CASE(test_proxy_closed),
};

int
main(void)
{
	int rc;

	tdt_eal_init("tally-transfer");
	rc = tally_test_run("dpdk-transfer", cases, RTE_DIM(cases));
	rte_eal_cleanup();
	return rc;
}
