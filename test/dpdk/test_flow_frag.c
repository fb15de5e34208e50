/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fragment matching as Open vSwitch and other applications ask for it:
 * IPv4 fragment_offset spec/mask and the last ranges that the device can
 * express, has_vlan, IPv6 has_frag_ext and the ipv6_frag_ext item, the TCP
 * NS flag. Real fragments of every kind (not a fragment with and without DF,
 * first, middle, last, an offset under 64 bytes, IPv6 first and later, VLAN
 * and QinQ) go over the loop wire; every rule counts and marks, and each
 * count and each received frame's mark and queue is checked exactly. Then
 * the ranges and item orders the device cannot express are refused with
 * their exact cause and leave no rule behind.
 */
#include <rte_flow.h>

#include "flow_test_util.h"

#define NQ		4
#define MAX_RULES	16

/* ---- frames ---------------------------------------------------------------- */

enum frame_kind {
	FK_V4,		/* UDP, not a fragment */
	FK_V4_DF,	/* same with DF */
	FK_V4_FIRST,	/* MF, offset 0 */
	FK_V4_MIDDLE,	/* MF, offset 185 (1480 bytes) */
	FK_V4_LAST,	/* offset 185 */
	FK_V4_TINY,	/* MF, offset 3 (24 bytes) */
	FK_V6,		/* UDP, no fragment header */
	FK_V6_FIRST,	/* fragment header, offset 0, M */
	FK_V6_LATER,	/* offset 185, M */
	FK_V6_TINY,	/* offset 2 */
	FK_V4_TCP_NS,	/* TCP with the NS flag */
	FK_V4_TCP,	/* TCP without it */
};

struct frame {
	enum frame_kind kind;
	uint32_t dst;		/* IPv4 destination, or last word of the IPv6 one */
	uint16_t tpid, tpid2;	/* 0: untagged; outer (and inner) tag */
};

static const uint8_t v6_dst_prefix[12] = { 0x20, 0x01, 0x0d, 0xb8 };

static uint32_t
build(uint8_t *f, const struct frame *fr)
{
	static const uint16_t v4_frag[] = {
		[FK_V4] = 0, [FK_V4_DF] = 0x4000, [FK_V4_FIRST] = 0x2000,
		[FK_V4_MIDDLE] = 0x2000 | 185, [FK_V4_LAST] = 185, [FK_V4_TINY] = 0x2000 | 3,
		[FK_V4_TCP_NS] = 0, [FK_V4_TCP] = 0,
	};
	static const uint16_t v6_frag[] = {
		[FK_V6_FIRST] = 0x0001, [FK_V6_LATER] = 185 << 3 | 1, [FK_V6_TINY] = 2 << 3,
	};
	uint32_t n = 12, l4, plen = 16;
	bool v6 = fr->kind >= FK_V6 && fr->kind <= FK_V6_TINY;
	bool tcp = fr->kind == FK_V4_TCP_NS || fr->kind == FK_V4_TCP;
	uint8_t proto = tcp ? IPPROTO_TCP : IPPROTO_UDP;

	memset(f, 0, 128);
	memset(f, 0xff, 6);
	memcpy(f + 6, "\x02\x00\x00\x00\x00\x42", 6);
	if (fr->tpid != 0) {
		f[n++] = (uint8_t)(fr->tpid >> 8); f[n++] = (uint8_t)fr->tpid;
		f[n++] = 0x00; f[n++] = 100;		/* vid 100 */
	}
	if (fr->tpid2 != 0) {
		f[n++] = (uint8_t)(fr->tpid2 >> 8); f[n++] = (uint8_t)fr->tpid2;
		f[n++] = 0x00; f[n++] = 200;
	}
	f[n++] = v6 ? 0x86 : 0x08;
	f[n++] = v6 ? 0xdd : 0x00;
	if (!v6) {
		uint16_t fo = v4_frag[fr->kind];

		f[n] = 0x45;
		f[n + 3] = 20 + 20;
		f[n + 6] = (uint8_t)(fo >> 8);
		f[n + 7] = (uint8_t)fo;
		f[n + 8] = 64;
		f[n + 9] = proto;
		f[n + 12] = 10;
		f[n + 15] = 1;
		f[n + 16] = 10; f[n + 17] = (uint8_t)(fr->dst >> 16);
		f[n + 18] = (uint8_t)(fr->dst >> 8); f[n + 19] = (uint8_t)fr->dst;
		l4 = n + 20;
	} else {
		bool frag = fr->kind != FK_V6;

		f[n] = 0x60;
		f[n + 5] = (uint8_t)(plen + (frag ? 8 : 0));
		f[n + 6] = frag ? 44 : IPPROTO_UDP;
		f[n + 7] = 64;
		f[n + 8] = 0xfe; f[n + 9] = 0x80; f[n + 23] = 1;
		memcpy(f + n + 24, v6_dst_prefix, 12);
		f[n + 36] = (uint8_t)(fr->dst >> 24); f[n + 37] = (uint8_t)(fr->dst >> 16);
		f[n + 38] = (uint8_t)(fr->dst >> 8); f[n + 39] = (uint8_t)fr->dst;
		l4 = n + 40;
		if (frag) {
			uint16_t fd = v6_frag[fr->kind];

			f[l4] = IPPROTO_UDP;
			f[l4 + 2] = (uint8_t)(fd >> 8);
			f[l4 + 3] = (uint8_t)fd;
			f[l4 + 7] = 9;		/* identification */
			l4 += 8;
		}
	}
	f[l4] = 0x30; f[l4 + 1] = 0x39;		/* source port 12345 */
	f[l4 + 2] = 0x00; f[l4 + 3] = 53;
	if (tcp) {
		f[l4 + 12] = (uint8_t)(0x50 | (fr->kind == FK_V4_TCP_NS));
		f[l4 + 13] = 0x10;		/* ACK */
		plen = 20;
	} else {
		f[l4 + 5] = 16;
	}
	return RTE_MAX(l4 + plen, 64u);
}

/* ---- rules ----------------------------------------------------------------- */

struct rule {
	struct rte_flow *f;
	uint32_t mark;
	uint16_t queue;
};

static struct rule rules[MAX_RULES];
static unsigned int nrules;

static int
add_rule(uint16_t port, const struct rte_flow_item *pattern, const char *what)
{
	static const struct rte_flow_attr attr = { .ingress = 1 };
	struct rule *r = &rules[nrules];
	struct rte_flow_action_mark mark = { .id = 100 + nrules };
	struct rte_flow_action_queue queue = { .index = (uint16_t)(1 + nrules % (NQ - 1)) };
	struct rte_flow_action actions[] = {
		{ .type = RTE_FLOW_ACTION_TYPE_COUNT },
		{ .type = RTE_FLOW_ACTION_TYPE_MARK, .conf = &mark },
		{ .type = RTE_FLOW_ACTION_TYPE_QUEUE, .conf = &queue },
		{ .type = RTE_FLOW_ACTION_TYPE_END },
	};
	struct rte_flow_error err = { 0 };

	TEST_ASSERT(nrules < MAX_RULES, "too many rules");
	TEST_ASSERT_EQ(rte_flow_validate(port, &attr, pattern, actions, &err), 0,
		       "%s: validate: %s", what, err.message ? err.message : "?");
	r->f = rte_flow_create(port, &attr, pattern, actions, &err);
	TEST_ASSERT(r->f != NULL, "%s: %s", what, err.message ? err.message : "?");
	r->mark = mark.id;
	r->queue = queue.index;
	nrules++;
	return TEST_SUCCESS;
}

static int
hits(uint16_t port, unsigned int i, uint64_t *n)
{
	struct rte_flow_action count = { .type = RTE_FLOW_ACTION_TYPE_COUNT };
	struct rte_flow_query_count qc = { .reset = 1 };
	struct rte_flow_error err;

	TEST_ASSERT_EQ(rte_flow_query(port, rules[i].f, &count, &qc, &err), 0, "query");
	*n = qc.hits;
	return TEST_SUCCESS;
}

/* Send each frame `times` times; every frame must come back, on the queue
 * and with the mark of rule want[i] (-1: no rule, queue 0 and no mark). */
static int
send_expect(uint16_t port, const struct frame *fr, const int *want,
	    unsigned int nf, unsigned int times)
{
	uint64_t exp[MAX_RULES] = { 0 }, got;
	unsigned int i, k;

	for (i = 0; i < nf; i++) {
		struct rte_mbuf *m[8], *in[8];
		uint16_t q[8];
		unsigned int r;
		uint8_t buf[128];
		uint32_t len = build(buf, &fr[i]);

		TEST_ASSERT(times <= RTE_DIM(m), "times");
		for (k = 0; k < times; k++) {
			m[k] = rte_pktmbuf_alloc(tdt_pool);
			TEST_ASSERT(m[k] != NULL, "alloc");
			memcpy(rte_pktmbuf_append(m[k], (uint16_t)len), buf, len);
		}
		TEST_ASSERT_EQ(tdt_tx_all(port, 0, m, times), times, "tx");
		r = tdt_rx_all(port, NQ, in, q, RTE_DIM(in), times);
		TEST_ASSERT_EQ(r, times, "frame %u (kind %d dst %#x): received", i,
			       fr[i].kind, fr[i].dst);
		for (k = 0; k < r; k++) {
			bool marked = in[k]->ol_flags & RTE_MBUF_F_RX_FDIR_ID;

			if (want[i] < 0) {
				TEST_ASSERT(!marked, "frame %u (kind %d): marked %u, no rule wanted",
					    i, fr[i].kind, in[k]->hash.fdir.hi);
				TEST_ASSERT_EQ(q[k], 0, "frame %u: queue", i);
			} else {
				TEST_ASSERT(marked && in[k]->hash.fdir.hi == rules[want[i]].mark,
					    "frame %u (kind %d dst %#x): mark %u, want rule %d",
					    i, fr[i].kind, fr[i].dst,
					    marked ? in[k]->hash.fdir.hi : 0, want[i]);
				TEST_ASSERT_EQ(q[k], rules[want[i]].queue, "frame %u: queue", i);
			}
		}
		tdt_free_all(in, r);
		if (want[i] >= 0)
			exp[want[i]] += times;
	}
	for (i = 0; i < nrules; i++) {
		TEST_ASSERT_EQ(hits(port, i, &got), TEST_SUCCESS, "");
		TEST_ASSERT_U64_EQ(got, exp[i], "rule %u: hits", i);
	}
	return TEST_SUCCESS;
}

static int
with_port(int (*body)(uint16_t port))
{
	struct tdt_port_conf pc = { .nb_rxq = NQ, .nb_txq = 1, .promisc = true };
	char name[32];
	int port, rc;

	port = tdt_port_create("", name, sizeof(name));
	TEST_ASSERT(port >= 0, "port");
	rc = tdt_port_setup((uint16_t)port, &pc);
	if (rc == 0)
		rc = body((uint16_t)port);
	rte_flow_flush((uint16_t)port, NULL);
	nrules = 0;
	tdt_port_destroy((uint16_t)port, name);
	return rc;
}

#define IPV4_DST(a)	RTE_BE32(0x0a000000 | (a))

/* ---- IPv4: what Open vSwitch sends, and the other forms -------------------- */

static int
ipv4_body(uint16_t port)
{
	const struct rte_flow_item_eth eth = { .hdr.ether_type = RTE_BE16(0x0800) };
	const struct rte_flow_item_eth eth_m = { .hdr.ether_type = RTE_BE16(0xffff),
						 .has_vlan = 1 };
	struct rte_flow_item_ipv4 s[6], m[6], l[6];
	struct rte_flow_item pat[6][3];
	unsigned int i;

	memset(s, 0, sizeof(s));
	memset(m, 0, sizeof(m));
	memset(l, 0, sizeof(l));
	/* 0: not a fragment (OVS frag=no) */
	s[0].hdr.fragment_offset = RTE_BE16(0);
	m[0].hdr.fragment_offset = RTE_BE16(0x3fff);
	/* 1: first fragment (OVS frag=first) */
	s[1].hdr.fragment_offset = RTE_BE16(0x2000);
	m[1].hdr.fragment_offset = RTE_BE16(0x3fff);
	/* 2: later fragment as OVS sends it: offset 8..0x1fff */
	s[2].hdr.fragment_offset = RTE_BE16(8);
	m[2].hdr.fragment_offset = RTE_BE16(0x1fff);
	l[2].hdr.fragment_offset = RTE_BE16(0x1fff);
	/* 3: the rest of the later fragments: offset 1..7 */
	s[3].hdr.fragment_offset = RTE_BE16(1);
	m[3].hdr.fragment_offset = RTE_BE16(0x1fff);
	l[3].hdr.fragment_offset = RTE_BE16(7);
	/* 4: any fragment (MF or offset), on another destination */
	s[4].hdr.fragment_offset = RTE_BE16(1);
	m[4].hdr.fragment_offset = RTE_BE16(0x3fff);
	l[4].hdr.fragment_offset = RTE_BE16(0x3fff);
	/* 5: a last fragment (no MF, offset >= 1), on a third destination */
	s[5].hdr.fragment_offset = RTE_BE16(1);
	m[5].hdr.fragment_offset = RTE_BE16(0x3fff);
	l[5].hdr.fragment_offset = RTE_BE16(0x1fff);
	for (i = 0; i < 6; i++) {
		s[i].hdr.dst_addr = IPV4_DST(i < 4 ? 1 : i - 2);
		m[i].hdr.dst_addr = RTE_BE32(0xffffffff);
		l[i].hdr.dst_addr = 0;		/* 0 in last: no range */
		pat[i][0] = (struct rte_flow_item){ .type = RTE_FLOW_ITEM_TYPE_ETH,
						    .spec = &eth, .mask = &eth_m };
		pat[i][1] = (struct rte_flow_item){ .type = RTE_FLOW_ITEM_TYPE_IPV4,
			.spec = &s[i], .mask = &m[i],
			.last = l[i].hdr.fragment_offset != 0 ? &l[i] : NULL };
		pat[i][2] = (struct rte_flow_item){ .type = RTE_FLOW_ITEM_TYPE_END };
		if (add_rule(port, pat[i], "ipv4 fragment rule") != TEST_SUCCESS)
			return TEST_FAILED;
	}
	{
		const struct frame fr[] = {
			{ FK_V4, 1, 0, 0 }, { FK_V4_DF, 1, 0, 0 }, { FK_V4_FIRST, 1, 0, 0 },
			{ FK_V4_MIDDLE, 1, 0, 0 }, { FK_V4_LAST, 1, 0, 0 },
			{ FK_V4_TINY, 1, 0, 0 },
			{ FK_V4, 2, 0, 0 }, { FK_V4_FIRST, 2, 0, 0 }, { FK_V4_MIDDLE, 2, 0, 0 },
			{ FK_V4_LAST, 2, 0, 0 }, { FK_V4_TINY, 2, 0, 0 },
			{ FK_V4, 3, 0, 0 }, { FK_V4_FIRST, 3, 0, 0 }, { FK_V4_MIDDLE, 3, 0, 0 },
			{ FK_V4_LAST, 3, 0, 0 }, { FK_V4_TINY, 3, 0, 0 },
			/* has_vlan is 0: a tagged frame of either kind is not the rule's */
			{ FK_V4, 1, RTE_ETHER_TYPE_VLAN, 0 }, { FK_V4, 1, RTE_ETHER_TYPE_QINQ, 0 },
		};
		const int want[] = {
			0, 0, 1, 2, 2, 3,
			-1, 4, 4, 4, 4,
			-1, -1, -1, 5, -1,
			-1, -1,
		};

		RTE_BUILD_BUG_ON(RTE_DIM(fr) != RTE_DIM(want));
		return send_expect(port, fr, want, RTE_DIM(fr), 3);
	}
}

static int
test_ipv4_fragments(void)
{
	return with_port(ipv4_body);
}

/* ---- IPv6 ------------------------------------------------------------------ */

static int
ipv6_body(uint16_t port)
{
	const struct rte_flow_item_eth eth = { .hdr.ether_type = RTE_BE16(0x86dd) };
	const struct rte_flow_item_eth eth_m = { .hdr.ether_type = RTE_BE16(0xffff),
						 .has_vlan = 1 };
	struct rte_flow_item_ipv6 s = { 0 }, m = { 0 };
	struct rte_flow_item_ipv6_frag_ext fs[2], fm[2], fl[2];
	struct rte_flow_item pat[4];

	memset(fs, 0, sizeof(fs));
	memset(fm, 0, sizeof(fm));
	memset(fl, 0, sizeof(fl));
	memcpy(&s.hdr.dst_addr, v6_dst_prefix, 12);
	((uint8_t *)&s.hdr.dst_addr)[15] = 1;
	memset(&m.hdr.dst_addr, 0xff, 16);
	m.has_frag_ext = 1;
	pat[0] = (struct rte_flow_item){ .type = RTE_FLOW_ITEM_TYPE_ETH, .spec = &eth,
					 .mask = &eth_m };
	pat[1] = (struct rte_flow_item){ .type = RTE_FLOW_ITEM_TYPE_IPV6, .spec = &s,
					 .mask = &m };
	pat[2] = (struct rte_flow_item){ .type = RTE_FLOW_ITEM_TYPE_END };
	pat[3] = pat[2];
	/* 0: no fragment header (OVS frag=no) */
	s.has_frag_ext = 0;
	if (add_rule(port, pat, "ipv6 has_frag_ext 0") != TEST_SUCCESS)
		return TEST_FAILED;
	/* 1: first fragment, UDP (OVS frag=first: the protocol in the item) */
	s.has_frag_ext = 1;
	fs[0].hdr.frag_data = RTE_BE16(0x0001);
	fm[0].hdr.frag_data = RTE_BE16(0xfff9);
	fs[0].hdr.next_header = IPPROTO_UDP;
	fm[0].hdr.next_header = 0xff;
	pat[2] = (struct rte_flow_item){ .type = RTE_FLOW_ITEM_TYPE_IPV6_FRAG_EXT,
					 .spec = &fs[0], .mask = &fm[0] };
	if (add_rule(port, pat, "ipv6 first fragment") != TEST_SUCCESS)
		return TEST_FAILED;
	/* 2: later fragments as OVS sends them: frag_data 8..0xfff8 under 0xfff8 */
	fs[1].hdr.frag_data = RTE_BE16(8);
	fm[1].hdr.frag_data = RTE_BE16(0xfff8);
	fl[1].hdr.frag_data = RTE_BE16(0xfff8);
	pat[2] = (struct rte_flow_item){ .type = RTE_FLOW_ITEM_TYPE_IPV6_FRAG_EXT,
					 .spec = &fs[1], .mask = &fm[1], .last = &fl[1] };
	if (add_rule(port, pat, "ipv6 later fragment") != TEST_SUCCESS)
		return TEST_FAILED;
	{
		const struct frame fr[] = {
			{ FK_V6, 1, 0, 0 }, { FK_V6_FIRST, 1, 0, 0 },
			{ FK_V6_LATER, 1, 0, 0 }, { FK_V6_TINY, 1, 0, 0 },
			{ FK_V6, 2, 0, 0 }, { FK_V6_LATER, 2, 0, 0 },
		};
		const int want[] = { 0, 1, 2, 2, -1, -1 };

		return send_expect(port, fr, want, RTE_DIM(fr), 3);
	}
}

static int
test_ipv6_fragments(void)
{
	return with_port(ipv6_body);
}

/* ---- VLAN and the TCP NS flag ------------------------------------------------ */

static int
vlan_body(uint16_t port)
{
	/* OVS: eth has_vlan 1 type <TPID> / vlan tci inner_type 0x800 / ipv4 ... */
	const struct rte_flow_item_eth eth = { .hdr.ether_type = RTE_BE16(0x8100),
					       .has_vlan = 1 };
	const struct rte_flow_item_eth eth_q = { .hdr.ether_type = RTE_BE16(0x88a8),
						 .has_vlan = 1 };
	const struct rte_flow_item_eth eth_m = { .hdr.ether_type = RTE_BE16(0xffff),
						 .has_vlan = 1 };
	const struct rte_flow_item_vlan vlan = { .hdr.vlan_tci = RTE_BE16(100),
						 .hdr.eth_proto = RTE_BE16(0x0800) };
	const struct rte_flow_item_vlan vlan_m = { .hdr.vlan_tci = RTE_BE16(0xefff),
						   .hdr.eth_proto = RTE_BE16(0xffff) };
	const struct rte_flow_item_vlan vlan_qq = { .hdr.vlan_tci = RTE_BE16(100),
						    .hdr.eth_proto = RTE_BE16(0x8100) };
	struct rte_flow_item_ipv4 s = { 0 }, m = { 0 };
	const struct rte_flow_item_tcp tcp = { .hdr.data_off = 0x01 };
	const struct rte_flow_item_tcp tcp_m = { .hdr.data_off = 0x01 };
	struct rte_flow_item pat[5];

	s.hdr.dst_addr = IPV4_DST(7);
	m.hdr.dst_addr = RTE_BE32(0xffffffff);
	m.hdr.fragment_offset = RTE_BE16(0x3fff);
	pat[0] = (struct rte_flow_item){ .type = RTE_FLOW_ITEM_TYPE_ETH, .spec = &eth,
					 .mask = &eth_m };
	pat[1] = (struct rte_flow_item){ .type = RTE_FLOW_ITEM_TYPE_VLAN, .spec = &vlan,
					 .mask = &vlan_m };
	pat[2] = (struct rte_flow_item){ .type = RTE_FLOW_ITEM_TYPE_IPV4, .spec = &s,
					 .mask = &m };
	pat[3] = (struct rte_flow_item){ .type = RTE_FLOW_ITEM_TYPE_END };
	if (add_rule(port, pat, "vlan ipv4 not a fragment") != TEST_SUCCESS)
		return TEST_FAILED;
	pat[0].spec = &eth_q;
	s.hdr.dst_addr = IPV4_DST(8);
	if (add_rule(port, pat, "S-tag ipv4 not a fragment") != TEST_SUCCESS)
		return TEST_FAILED;
	/* TCP with NS */
	memset(&m, 0, sizeof(m));
	s.hdr.dst_addr = IPV4_DST(9);
	m.hdr.dst_addr = RTE_BE32(0xffffffff);
	pat[0] = (struct rte_flow_item){ .type = RTE_FLOW_ITEM_TYPE_ETH };
	pat[1] = (struct rte_flow_item){ .type = RTE_FLOW_ITEM_TYPE_IPV4, .spec = &s,
					 .mask = &m };
	pat[2] = (struct rte_flow_item){ .type = RTE_FLOW_ITEM_TYPE_TCP, .spec = &tcp,
					 .mask = &tcp_m };
	pat[3] = (struct rte_flow_item){ .type = RTE_FLOW_ITEM_TYPE_END };
	if (add_rule(port, pat, "tcp NS") != TEST_SUCCESS)
		return TEST_FAILED;
	/* QinQ as OVS sees it: one tag whose payload type is the C-tag's TPID */
	pat[0] = (struct rte_flow_item){ .type = RTE_FLOW_ITEM_TYPE_ETH, .spec = &eth_q,
					 .mask = &eth_m };
	pat[1] = (struct rte_flow_item){ .type = RTE_FLOW_ITEM_TYPE_VLAN, .spec = &vlan_qq,
					 .mask = &vlan_m };
	pat[2] = (struct rte_flow_item){ .type = RTE_FLOW_ITEM_TYPE_END };
	if (add_rule(port, pat, "qinq") != TEST_SUCCESS)
		return TEST_FAILED;
	{
		const struct frame fr[] = {
			{ FK_V4, 7, RTE_ETHER_TYPE_VLAN, 0 }, { FK_V4_DF, 7, RTE_ETHER_TYPE_VLAN, 0 },
			{ FK_V4_FIRST, 7, RTE_ETHER_TYPE_VLAN, 0 }, { FK_V4, 7, 0, 0 },
			{ FK_V4, 7, RTE_ETHER_TYPE_QINQ, 0 },
			{ FK_V4, 8, RTE_ETHER_TYPE_QINQ, 0 },
			{ FK_V4, 8, RTE_ETHER_TYPE_QINQ, RTE_ETHER_TYPE_VLAN },
			{ FK_V4, 8, RTE_ETHER_TYPE_VLAN, 0 },
			{ FK_V4_TCP_NS, 9, 0, 0 }, { FK_V4_TCP, 9, 0, 0 },
		};
		/* the S-tag's payload in the QinQ frame is a C-tag, not IPv4 */
		const int want[] = { 0, 0, -1, -1, -1, 1, 3, -1, 2, -1 };

		return send_expect(port, fr, want, RTE_DIM(fr), 2);
	}
}

static int
test_vlan_and_tcp(void)
{
	return with_port(vlan_body);
}

/* ---- refused ----------------------------------------------------------------- */

/* The port's rule count, from its rte_flow_dev_dump. */
static int
dump_rules(uint16_t port, uint64_t *n)
{
	char what[32];

	snprintf(what, sizeof(what), "tally port %u: ", port);
	return dump_count(port, what, n);
}

static int
refuse(uint16_t port, const struct rte_flow_item *pattern, int err_no,
       enum rte_flow_error_type type, const char *cause)
{
	static const struct rte_flow_attr attr = { .ingress = 1 };
	static const struct rte_flow_action actions[] = {
		{ .type = RTE_FLOW_ACTION_TYPE_COUNT },
		{ .type = RTE_FLOW_ACTION_TYPE_DROP },
		{ .type = RTE_FLOW_ACTION_TYPE_END },
	};
	struct rte_flow_error err = { 0 };
	int ret;

	ret = rte_flow_validate(port, &attr, pattern, actions, &err);
	TEST_ASSERT_EQ(ret, -err_no, "%s: validate returns %d", cause, ret);
	TEST_ASSERT_EQ(err.type, type, "%s: error type", cause);
	TEST_ASSERT(err.message != NULL && strstr(err.message, cause) != NULL,
		    "%s: message %s", cause, err.message ? err.message : "(none)");
	rte_errno = 0;
	TEST_ASSERT(rte_flow_create(port, &attr, pattern, actions, &err) == NULL,
		    "%s: created", cause);
	TEST_ASSERT_EQ(rte_errno, err_no, "%s: rte_errno", cause);
	return TEST_SUCCESS;
}

static int
refused_body(uint16_t port)
{
	struct rte_flow_item_ipv4 s = { 0 }, m = { 0 }, l = { 0 };
	struct rte_flow_item_ipv6 s6 = { 0 }, m6 = { 0 };
	struct rte_flow_item_ipv6_frag_ext fs = { 0 }, fm = { 0 }, fl = { 0 };
	struct rte_flow_item_eth eth = { .has_vlan = 0 }, eth_m = { .has_vlan = 1 };
	struct rte_flow_item_udp us = { 0 }, ul = { 0 };
	struct rte_flow_item pat[4] = {
		{ .type = RTE_FLOW_ITEM_TYPE_ETH },
		{ .type = RTE_FLOW_ITEM_TYPE_IPV4, .spec = &s, .mask = &m, .last = &l },
		{ .type = RTE_FLOW_ITEM_TYPE_END },
		{ .type = RTE_FLOW_ITEM_TYPE_END },
	};
	struct rte_flow_error err;
	uint64_t before, after;

	TEST_ASSERT_EQ(dump_rules(port, &before), 0, "dump");
	/* offset 16..0x1fff: no value/mask and no class says it */
	s.hdr.fragment_offset = RTE_BE16(16);
	m.hdr.fragment_offset = RTE_BE16(0x1fff);
	l.hdr.fragment_offset = RTE_BE16(0x1fff);
	if (refuse(port, pat, ENOTSUP, RTE_FLOW_ERROR_TYPE_ITEM_LAST,
		   "fragment range not matchable") != TEST_SUCCESS)
		return TEST_FAILED;
	/* an empty range */
	s.hdr.fragment_offset = RTE_BE16(0x100);
	l.hdr.fragment_offset = RTE_BE16(8);
	if (refuse(port, pat, EINVAL, RTE_FLOW_ERROR_TYPE_ITEM_LAST,
		   "empty range") != TEST_SUCCESS)
		return TEST_FAILED;
	/* a range on another field */
	s.hdr.fragment_offset = 0;
	l.hdr.fragment_offset = 0;
	s.hdr.src_addr = RTE_BE32(0x0a000001);
	l.hdr.src_addr = RTE_BE32(0x0a000009);
	m.hdr.src_addr = RTE_BE32(0xffffffff);
	if (refuse(port, pat, ENOTSUP, RTE_FLOW_ERROR_TYPE_ITEM_LAST,
		   "supported on the fragment field only") != TEST_SUCCESS)
		return TEST_FAILED;
	/* last equal to spec is no range; a last of zero neither */
	l.hdr.src_addr = s.hdr.src_addr;
	TEST_ASSERT_EQ(rte_flow_validate(port, &(struct rte_flow_attr){ .ingress = 1 }, pat,
		(const struct rte_flow_action[]){ { .type = RTE_FLOW_ACTION_TYPE_DROP },
						  { .type = RTE_FLOW_ACTION_TYPE_END } }, &err),
		       0, "last == spec: %s", err.message ? err.message : "?");
	/* last without spec */
	pat[1].spec = NULL;
	pat[1].mask = NULL;
	if (refuse(port, pat, EINVAL, RTE_FLOW_ERROR_TYPE_ITEM_LAST,
		   "last without spec") != TEST_SUCCESS)
		return TEST_FAILED;
	/* a range on an item without one */
	us.hdr.dst_port = RTE_BE16(53);
	ul.hdr.dst_port = RTE_BE16(60);
	pat[1] = (struct rte_flow_item){ .type = RTE_FLOW_ITEM_TYPE_UDP, .spec = &us,
					 .last = &ul };
	if (refuse(port, pat, ENOTSUP, RTE_FLOW_ERROR_TYPE_ITEM_LAST,
		   "not supported on this item") != TEST_SUCCESS)
		return TEST_FAILED;
	/* ipv6_frag_ext after ipv4, and with nothing before it */
	memset(&s, 0, sizeof(s));
	memset(&m, 0, sizeof(m));
	pat[1] = (struct rte_flow_item){ .type = RTE_FLOW_ITEM_TYPE_IPV4, .spec = &s,
					 .mask = &m };
	pat[2] = (struct rte_flow_item){ .type = RTE_FLOW_ITEM_TYPE_IPV6_FRAG_EXT };
	if (refuse(port, pat, EINVAL, RTE_FLOW_ERROR_TYPE_ITEM,
		   "must follow an ipv6 item") != TEST_SUCCESS)
		return TEST_FAILED;
	pat[1] = pat[2];
	pat[2] = (struct rte_flow_item){ .type = RTE_FLOW_ITEM_TYPE_END };
	if (refuse(port, pat, EINVAL, RTE_FLOW_ERROR_TYPE_ITEM,
		   "must follow an ipv6 item") != TEST_SUCCESS)
		return TEST_FAILED;
	/* the identification is not matchable; a range there is no range
	 * the device has */
	fs.hdr.id = RTE_BE32(9);
	fm.hdr.id = RTE_BE32(0xffffffff);
	pat[1] = (struct rte_flow_item){ .type = RTE_FLOW_ITEM_TYPE_IPV6, .spec = &s6,
					 .mask = &m6 };
	pat[2] = (struct rte_flow_item){ .type = RTE_FLOW_ITEM_TYPE_IPV6_FRAG_EXT,
					 .spec = &fs, .mask = &fm };
	if (refuse(port, pat, ENOTSUP, RTE_FLOW_ERROR_TYPE_ITEM_MASK,
		   "mask covers a field the device cannot match") != TEST_SUCCESS)
		return TEST_FAILED;
	fm.hdr.id = 0;
	fs.hdr.id = 0;
	fs.hdr.frag_data = RTE_BE16(0x10);	/* offset 2 .. */
	fm.hdr.frag_data = RTE_BE16(0xfff8);
	fl.hdr.frag_data = RTE_BE16(0x20);	/* .. 4 */
	fl.hdr.id = RTE_BE32(9);
	pat[2].last = &fl;
	if (refuse(port, pat, ENOTSUP, RTE_FLOW_ERROR_TYPE_ITEM_LAST,
		   "supported on the fragment field only") != TEST_SUCCESS)
		return TEST_FAILED;
	fl.hdr.id = 0;
	if (refuse(port, pat, ENOTSUP, RTE_FLOW_ERROR_TYPE_ITEM_LAST,
		   "fragment range not matchable") != TEST_SUCCESS)
		return TEST_FAILED;
	/* has_frag_ext 0 and a fragment header item contradict */
	m6.has_frag_ext = 1;
	pat[2].last = NULL;
	fs.hdr.frag_data = 0;
	fm.hdr.frag_data = 0;
	if (refuse(port, pat, EINVAL, RTE_FLOW_ERROR_TYPE_ITEM,
		   "conflicts with a field matched by an earlier item") != TEST_SUCCESS)
		return TEST_FAILED;
	/* a vlan item after has_vlan 0 */
	pat[0] = (struct rte_flow_item){ .type = RTE_FLOW_ITEM_TYPE_ETH, .spec = &eth,
					 .mask = &eth_m };
	pat[1] = (struct rte_flow_item){ .type = RTE_FLOW_ITEM_TYPE_VLAN };
	pat[2] = (struct rte_flow_item){ .type = RTE_FLOW_ITEM_TYPE_END };
	if (refuse(port, pat, EINVAL, RTE_FLOW_ERROR_TYPE_ITEM,
		   "vlan item after eth has_vlan is 0") != TEST_SUCCESS)
		return TEST_FAILED;
	TEST_ASSERT_EQ(dump_rules(port, &after), 0, "dump");
	TEST_ASSERT_U64_EQ(after, before, "refused rules left nothing");
	return TEST_SUCCESS;
}

static int
test_refused(void)
{
	return with_port(refused_body);
}

static const struct tally_test_case cases[] = {
	TEST_CASE(test_ipv4_fragments),
	TEST_CASE(test_ipv6_fragments),
	TEST_CASE(test_vlan_and_tcp),
	TEST_CASE(test_refused),
};

int
main(void)
{
	int rc;

	tdt_eal_init("tally-flow-frag");
	rc = tally_test_run("dpdk-flow-frag", cases, RTE_DIM(cases));
	rte_eal_cleanup();
	return rc;
}
