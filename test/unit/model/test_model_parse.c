/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Frame parser paths: the fast path for common frames gives exactly what
 * the general path gives, whatever the pkt held before, and a reused pkt
 * (the device's Rx burst slots, tally_model_parse_reuse()) never shows key
 * bytes of an earlier frame. The light parse (no match key) gives the same
 * packet type, flags and RSS hash as the full one, and leaves the reused key
 * as the full parse needs to find it.
 */
#include <stdlib.h>

#include <tally/tally_desc.h>

#include "tally_model_priv.h"
#include "tally_mt.h"
#include "tally_test.h"

#define FMAX	160

static uint32_t seed = 0x2545f491u;

static uint32_t
rnd(void)
{
	seed ^= seed << 13;
	seed ^= seed >> 17;
	seed ^= seed << 5;
	return seed;
}

static void
put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

/* Ethernet/IPv4/TCP or UDP, and now and then something that leaves the fast
 * path: VLAN tags, IPv6, IP options, fragments, DF, ICMP, other protocols,
 * VXLAN, cut short. Returns the length. */
static uint32_t
gen_frame(uint8_t *f, uint32_t r)
{
	uint32_t off = 12, i, n, ihl = 5, len;
	uint8_t proto;

	for (i = 0; i < FMAX; i++)
		f[i] = (uint8_t)rnd();
	n = (r & 7) == 0 ? 1 + (r >> 3) % 2 : 0;	/* VLAN tags */
	for (i = 0; i < n; i++) {
		static const uint16_t tpid[] = { 0x8100, 0x88a8, 0x9100 };

		put16(f + off, tpid[rnd() % 3]);
		off += 4;
	}
	if ((r >> 5) % 16 == 0) {
		put16(f + off, 0x86dd);
		f[off + 2] = (uint8_t)(0x60 | (f[off + 2] & 0x0f));
		f[off + 2 + 6] = (rnd() & 1) ? 6 : 17;
		len = off + 2 + 40 + 20;
		goto cut;
	}
	put16(f + off, (r >> 9) % 32 == 0 ? (uint16_t)rnd() : 0x0800);
	off += 2;
	if ((r >> 14) % 16 == 0)
		ihl = 5 + (r >> 18) % 11;
	f[off] = (uint8_t)(0x40 | ihl);
	if ((r >> 22) % 16 == 0)
		f[off] = (uint8_t)rnd();	/* any version */
	switch ((r >> 26) % 8) {
	case 0: put16(f + off + 6, 0x2000); break;		/* MF */
	case 1: put16(f + off + 6, (uint16_t)(rnd() & 0x1fff)); break;
	case 2: put16(f + off + 6, 0x4000); break;		/* DF only */
	default: put16(f + off + 6, 0); break;
	}
	switch (rnd() % 16) {
	case 0: proto = 1; break;
	case 1: proto = (uint8_t)rnd(); break;
	default: proto = (rnd() & 1) ? 6 : 17; break;
	}
	f[off + 9] = proto;
	off += ihl * 4;
	if (proto == 17 && rnd() % 8 == 0 && off + 8 + 8 + 14 + 20 <= FMAX) {
		put16(f + off + 2, TALLY_VXLAN_UDP_PORT);
		f[off + 8] = 0x08;
		put16(f + off + 16 + 12, 0x0800);
		f[off + 16 + 14] = 0x45;
	}
	len = off + (proto == 6 ? 20 : 8) + rnd() % 16;
cut:
	if (rnd() % 8 == 0)
		len = rnd() % (len + 1);	/* cut anywhere */
	return len > FMAX ? FMAX : len;
}

/* Every field of the parse but the key. */
static int
fields_same(const struct tally_model_pkt *a, const struct tally_model_pkt *b,
	    uint32_t iter)
{
	TEST_ASSERT(a->frame == b->frame && a->len == b->len, "iter %u: frame", iter);
	TEST_ASSERT_EQ(a->ptype, b->ptype, "iter %u", iter);
	TEST_ASSERT_EQ(a->has_vlan, b->has_vlan, "iter %u", iter);
	TEST_ASSERT_EQ(a->l3, b->l3, "iter %u", iter);
	TEST_ASSERT_EQ(a->l4, b->l4, "iter %u", iter);
	TEST_ASSERT(memcmp(a->src, b->src, 16) == 0, "iter %u: src", iter);
	TEST_ASSERT(memcmp(a->dst, b->dst, 16) == 0, "iter %u: dst", iter);
	TEST_ASSERT_EQ(a->sport, b->sport, "iter %u", iter);
	TEST_ASSERT_EQ(a->dport, b->dport, "iter %u", iter);
	return TEST_SUCCESS;
}

static int
pkt_same(const struct tally_model_pkt *a, const struct tally_model_pkt *b,
	 uint32_t iter)
{
	uint32_t i;

	if (fields_same(a, b, iter) != TEST_SUCCESS)
		return TEST_FAILED;
	for (i = 0; i < TALLY_MATCH_KEY_LEN; i++)
		TEST_ASSERT(a->key.b[i] == b->key.b[i],
			    "iter %u: key byte %u is %#x, general path %#x", iter, i,
			    a->key.b[i], b->key.b[i]);
	return TEST_SUCCESS;
}

/* tally_model_parse() on a pkt full of junk == the general path alone. */
static int
test_fast_equals_general(void)
{
	static struct tally_model_pkt p, ref;
	uint8_t *f = malloc(FMAX);
	uint32_t i, len, fast = 0;

	TEST_ASSERT(f != NULL, "");
	for (i = 0; i < 200000; i++) {
		len = gen_frame(f, rnd());
		memset(&p, (int)(i & 0xff), sizeof(p));
		tally_model_parse(f, len, &p);
		tally_model_parse_ref(f, len, &ref);
		if (pkt_same(&p, &ref, i) != TEST_SUCCESS) {
			free(f);
			return TEST_FAILED;
		}
		fast += len >= 54 && f[12] == 8 && f[13] == 0 && f[14] == 0x45 &&
			(f[23] == 6 || f[23] == 17) && (f[20] & 0x3f) == 0 && f[21] == 0;
	}
	free(f);
	TEST_ASSERT(fast > 40000, "only %u frames of the fast path kind", fast);
	return TEST_SUCCESS;
}

/* One reused pkt, random frames: every result as from a fresh pkt. */
static int
test_reuse_sequence(void)
{
	static struct tally_model_pkt p, ref;
	uint8_t *f = malloc(FMAX);
	uint8_t dirty = 0;
	uint32_t i, len;

	TEST_ASSERT(f != NULL, "");
	memset(&p, 0, sizeof(p));
	for (i = 0; i < 200000; i++) {
		len = gen_frame(f, rnd());
		tally_model_parse_reuse(f, len, &p, &dirty);
		tally_model_parse_ref(f, len, &ref);
		if (pkt_same(&p, &ref, i) != TEST_SUCCESS) {
			free(f);
			return TEST_FAILED;
		}
	}
	free(f);
	return TEST_SUCCESS;
}

static const uint8_t vxlan_frame[] = {
	/* outer: QinQ, IPv4/UDP to 4789 */
	0x02, 0, 0, 0, 0, 1, 0x02, 0, 0, 0, 0, 2,
	0x88, 0xa8, 0x00, 0x05, 0x81, 0x00, 0x00, 0x07, 0x08, 0x00,
	0x45, 0, 0, 0, 0, 0, 0, 0, 64, 17, 0, 0, 10, 0, 0, 1, 10, 0, 0, 2,
	0x30, 0x39, 0x12, 0xb5, 0, 0, 0, 0,
	0x08, 0, 0, 0, 0xab, 0xcd, 0xef, 0,		/* VXLAN, VNI abcdef */
	/* inner: IPv6/UDP */
	0x02, 0, 0, 0, 0, 3, 0x02, 0, 0, 0, 0, 4, 0x86, 0xdd,
	0x60, 0x01, 0x23, 0x45, 0, 8, 17, 64,
	0x20, 1, 0xd, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1,
	0x20, 1, 0xd, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2,
	0x04, 0xd2, 0x16, 0x2e, 0, 8, 0, 0,
};

static const uint8_t icmp_frame[] = {
	0x02, 0, 0, 0, 0, 1, 0x02, 0, 0, 0, 0, 2, 0x08, 0x00,
	0x45, 0, 0, 0, 0, 0, 0, 0, 64, 1, 0, 0, 10, 0, 0, 1, 10, 0, 0, 2,
	8, 0, 0, 0, 0x12, 0x34, 0, 1,
};

static const uint8_t tcp_frame[] = {
	0x02, 0, 0, 0, 0, 1, 0x02, 0, 0, 0, 0, 2, 0x08, 0x00,
	0x45, 0, 0, 0, 0, 0, 0, 0, 64, 6, 0, 0, 10, 0, 0, 1, 10, 0, 0, 2,
	0x30, 0x39, 0, 80, 0, 0, 0, 0, 0, 0, 0, 0, 0x50, 0x12, 4, 0, 0, 0, 0, 0,
};

/* A frame that fills misc, inner and misc3, then a plain TCP frame in the
 * same pkt: the sections the TCP frame has no fields for read as zero. */
static int
test_reuse_clears_earlier_sections(void)
{
	static struct tally_model_pkt p, ref;
	uint8_t dirty = 0;
	uint32_t i;

	memset(&p, 0, sizeof(p));
	tally_model_parse_reuse(vxlan_frame, sizeof(vxlan_frame), &p, &dirty);
	TEST_ASSERT(p.ptype & TALLY_PTYPE_TUNNEL_VXLAN, "VXLAN parsed");
	TEST_ASSERT_EQ(p.key.b[TALLY_MK(TALLY_MS_MISC, TALLY_MISC_VXLAN_VNI)], 0xab, "VNI");
	TEST_ASSERT_EQ(p.key.b[TALLY_MK(TALLY_MS_INNER, TALLY_L24_IP_PROTOCOL)], 17, "inner");
	TEST_ASSERT(p.key.b[TALLY_MK(TALLY_MS_MISC, TALLY_MISC_SECOND_TAGS)] != 0, "QinQ");
	tally_model_parse_reuse(icmp_frame, sizeof(icmp_frame), &p, &dirty);
	TEST_ASSERT_EQ(p.key.b[TALLY_MK(TALLY_MS_MISC3, TALLY_MISC3_ICMP_TYPE)], 8, "ICMP");
	for (i = TALLY_MS_OFF(TALLY_MS_MISC); i < TALLY_MS_OFF(TALLY_MS_MISC3); i++)
		TEST_ASSERT_EQ(p.key.b[i], 0, "byte %u after the ICMP frame", i);
	tally_model_parse_reuse(vxlan_frame, sizeof(vxlan_frame), &p, &dirty);
	tally_model_parse_reuse(tcp_frame, sizeof(tcp_frame), &p, &dirty);
	TEST_ASSERT_EQ(p.l4, TALLY_PTYPE_L4_TCP, "");
	TEST_ASSERT_EQ(dirty, 0, "a plain TCP frame writes the outer section only");
	for (i = TALLY_MATCH_SECTION_LEN; i < TALLY_MATCH_KEY_LEN; i++)
		TEST_ASSERT_EQ(p.key.b[i], 0, "byte %u after the TCP frame", i);
	tally_model_parse_ref(tcp_frame, sizeof(tcp_frame), &ref);
	return pkt_same(&p, &ref, 0);
}

static const uint8_t vlan_tcp_frame[] = {
	0x02, 0, 0, 0, 0, 1, 0x02, 0, 0, 0, 0, 2, 0x81, 0x00, 0x00, 0x07, 0x08, 0x00,
	0x45, 0, 0, 0, 0, 0, 0, 0, 64, 6, 0, 0, 10, 0, 0, 1, 10, 0, 0, 2,
	0x30, 0x39, 0, 80, 0, 0, 0, 0, 0, 0, 0, 0, 0x50, 0x12, 4, 0, 0, 0, 0, 0,
};

/* IPv6, a fragment header (first fragment), UDP */
static const uint8_t v6_frag_frame[] = {
	0x02, 0, 0, 0, 0, 1, 0x02, 0, 0, 0, 0, 2, 0x86, 0xdd,
	0x60, 0, 0, 0, 0, 16, 44, 64,
	0x20, 1, 0xd, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1,
	0x20, 1, 0xd, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2,
	17, 0, 0, 1, 0, 0, 0, 9,
	0x04, 0xd2, 0x16, 0x2e, 0, 8, 0, 0,
};

/* IPv6 ICMPv6 echo */
static const uint8_t icmp6_frame[] = {
	0x02, 0, 0, 0, 0, 1, 0x02, 0, 0, 0, 0, 2, 0x86, 0xdd,
	0x60, 0, 0, 0, 0, 8, 58, 64,
	0x20, 1, 0xd, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1,
	0x20, 1, 0xd, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2,
	128, 0, 0, 0, 0, 1, 0, 1,
};

/* Everything but the key equal, and the RSS hash of every kind. */
static int
light_same(struct mt_dev *d, const struct tally_model_pkt *a,
	   const struct tally_model_pkt *b, uint32_t iter)
{
	uint32_t hf, ha = 0, hb = 0;
	bool oka, okb;

	if (fields_same(a, b, iter) != TEST_SUCCESS)
		return TEST_FAILED;
	for (hf = 1; hf < 64; hf++) {
		oka = tally_model_rss_hash(d->m, a, hf, &ha);
		okb = tally_model_rss_hash(d->m, b, hf, &hb);
		TEST_ASSERT_EQ(oka, okb, "iter %u hf %#x", iter, hf);
		TEST_ASSERT(!oka || ha == hb, "iter %u hf %#x: hash %#x, full %#x",
			    iter, hf, ha, hb);
	}
	return TEST_SUCCESS;
}

static int
light_one(struct mt_dev *d, const uint8_t *f, uint32_t len, struct tally_model_pkt *p,
	  uint8_t *dirty, uint32_t iter)
{
	static struct tally_model_pkt ref;

	tally_model_parse_light(f, len, p, dirty);
	tally_model_parse_ref(f, len, &ref);
	return light_same(d, p, &ref, iter);
}

/*
 * One reused pkt, random and fixed frames (IPv4, IPv6 with extension
 * headers, VLAN, TCP, UDP, ICMP, ICMPv6, fragments, VXLAN, cut short,
 * malformed), light parses with now and then a full one: every light result
 * as the full parse's, and every full result still exact (the key the light
 * parse leaves behind is one the full parse clears correctly).
 */
static int
test_light_equals_full(void)
{
	static const struct { const uint8_t *f; uint32_t len; } fixed[] = {
		{ vxlan_frame, sizeof(vxlan_frame) },
		{ icmp_frame, sizeof(icmp_frame) },
		{ tcp_frame, sizeof(tcp_frame) },
		{ vlan_tcp_frame, sizeof(vlan_tcp_frame) },
		{ v6_frag_frame, sizeof(v6_frag_frame) },
		{ icmp6_frame, sizeof(icmp6_frame) },
		{ tcp_frame, 40 },	/* TCP header cut short */
		{ tcp_frame, 13 },	/* runt */
	};
	static struct tally_model_pkt p, ref;
	struct tally_model_config cfg;
	struct mt_dev d;
	uint8_t *f = malloc(FMAX);
	uint8_t dirty = 0;
	uint32_t i, k, len, light_fast = 0;
	int rc = TEST_SUCCESS;

	TEST_ASSERT(f != NULL, "");
	mt_config(&cfg);
	if (mt_open(&d, &cfg) != 0) {
		free(f);
		TEST_ASSERT(false, "create");
	}
	for (k = 0; k < TALLY_RSS_KEY_LEN / 4; k++)
		mt_wr(&d, TALLY_REG_RSS_KEY(k), 0x6d5a56da * (k + 1) + k);
	memset(&p, 0, sizeof(p));
	for (i = 0; i < 8; i++) {
		rc = light_one(&d, fixed[i].f, fixed[i].len, &p, &dirty, i);
		if (rc != TEST_SUCCESS)
			goto out;
	}
	if (p.ptype != 0 || p.l3 != 0) {
		printf("runt: packet type %#x\n", p.ptype);
		rc = TEST_FAILED;
		goto out;
	}
	for (i = 0; i < 100000; i++) {
		len = gen_frame(f, rnd());
		if (i % 5 == 4) {
			tally_model_parse_reuse(f, len, &p, &dirty);
			tally_model_parse_ref(f, len, &ref);
			rc = pkt_same(&p, &ref, i);
		} else {
			memcpy(&ref.key, &p.key, sizeof(p.key));
			rc = light_one(&d, f, len, &p, &dirty, i);
			if (rc == TEST_SUCCESS &&
			    memcmp(&ref.key, &p.key, sizeof(p.key)) == 0)
				light_fast++;
		}
		if (rc != TEST_SUCCESS)
			goto out;
	}
	/* the light path proper (key untouched) took most frames */
	if (light_fast < 20000) {
		printf("only %u frames took the light path\n", light_fast);
		rc = TEST_FAILED;
	}
out:
	mt_close(&d);
	free(f);
	return rc;
}

static const struct tally_test_case cases[] = {
	TEST_CASE(test_fast_equals_general),
	TEST_CASE(test_reuse_sequence),
	TEST_CASE(test_reuse_clears_earlier_sections),
	TEST_CASE(test_light_equals_full),
};

TEST_MAIN("model-parse", cases)
