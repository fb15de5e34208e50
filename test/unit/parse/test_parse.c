/* SPDX-License-Identifier: BSD-3-Clause */
/* Frame parser: frames -> match key bytes, per header, and robustness. */
#include <stdlib.h>

#include <tally/tally_desc.h>

#include "tally_model_dev.h"
#include "tally_model_priv.h"
#include "tally_test.h"

#define OUT(f)	TALLY_MK(TALLY_MS_OUTER, f)
#define IN(f)	TALLY_MK(TALLY_MS_INNER, f)
#define MISC(f)	TALLY_MK(TALLY_MS_MISC, f)
#define MISC3(f) TALLY_MK(TALLY_MS_MISC3, f)

static const uint8_t dmac[6] = { 0x01, 0x50, 0x56, 0x19, 0x20, 0xa7 };
static const uint8_t smac[6] = { 0x24, 0x8a, 0x07, 0xa5, 0x28, 0xc8 };

struct fb {
	uint8_t b[256];
	uint32_t n;
};

static void
put(struct fb *f, const void *p, uint32_t len)
{
	memcpy(f->b + f->n, p, len);
	f->n += len;
}

static void
put8(struct fb *f, uint8_t v)
{
	f->b[f->n++] = v;
}

static void
put16(struct fb *f, uint16_t v)
{
	put8(f, (uint8_t)(v >> 8));
	put8(f, (uint8_t)v);
}

static void
put_eth(struct fb *f, uint16_t et)
{
	put(f, dmac, 6);
	put(f, smac, 6);
	put16(f, et);
}

static void
put_ipv4(struct fb *f, uint8_t proto, uint32_t src, uint32_t dst, uint16_t frag,
	 int opt_words)
{
	put8(f, (uint8_t)(0x45 + opt_words));
	put8(f, 0xb9);			/* dscp 46, ecn 1 */
	put16(f, 100);
	put16(f, 1);
	put16(f, frag);
	put8(f, 64);
	put8(f, proto);
	put16(f, 0);
	put16(f, (uint16_t)(src >> 16));
	put16(f, (uint16_t)src);
	put16(f, (uint16_t)(dst >> 16));
	put16(f, (uint16_t)dst);
	while (opt_words-- > 0) {
		put16(f, 0x0101);	/* NOP NOP NOP NOP */
		put16(f, 0x0101);
	}
}

static void
put_udp(struct fb *f, uint16_t sport, uint16_t dport)
{
	put16(f, sport);
	put16(f, dport);
	put16(f, 8);
	put16(f, 0);
}

static void
put_tcp(struct fb *f, uint16_t sport, uint16_t dport, uint16_t flags)
{
	put16(f, sport);
	put16(f, dport);
	put16(f, 0);
	put16(f, 0);
	put16(f, 0);
	put16(f, 0);
	put16(f, (uint16_t)(0x5000 | flags));
	put16(f, 1024);
	put16(f, 0);
	put16(f, 0);
}

static uint16_t
kget16(const struct tally_model_pkt *p, unsigned int off)
{
	return (uint16_t)(p->key.b[off] << 8 | p->key.b[off + 1]);
}

static uint32_t
kget32(const struct tally_model_pkt *p, unsigned int off)
{
	return (uint32_t)kget16(p, off) << 16 | kget16(p, off + 2);
}

static int
test_eth_ipv4_udp(void)
{
	struct fb f = { .n = 0 };
	struct tally_model_pkt p;

	put_eth(&f, 0x0800);
	put_ipv4(&f, 17, 0x01010101, 0x02020202, 0, 0);
	put_udp(&f, 1234, 5678);
	tally_model_parse(f.b, f.n, &p);
	TEST_ASSERT(memcmp(&p.key.b[OUT(TALLY_L24_DMAC)], dmac, 6) == 0, "dmac");
	TEST_ASSERT(memcmp(&p.key.b[OUT(TALLY_L24_SMAC)], smac, 6) == 0, "smac");
	TEST_ASSERT_EQ(kget16(&p, OUT(TALLY_L24_ETHERTYPE)), 0x0800, "");
	TEST_ASSERT_EQ(p.key.b[OUT(TALLY_L24_FLAGS)], 4 << 1, "ip_version 4 only");
	TEST_ASSERT_EQ(p.key.b[OUT(TALLY_L24_IP_PROTOCOL)], 17, "");
	TEST_ASSERT_EQ(p.key.b[OUT(TALLY_L24_IP_DSCP_ECN)], 0xb9, "");
	TEST_ASSERT_EQ(p.key.b[OUT(TALLY_L24_TTL_HOPLIMIT)], 64, "");
	TEST_ASSERT_EQ(kget32(&p, OUT(TALLY_L24_SRC_IPV4)), 0x01010101, "");
	TEST_ASSERT_EQ(kget32(&p, OUT(TALLY_L24_DST_IPV4)), 0x02020202, "");
	TEST_ASSERT_EQ(kget16(&p, OUT(TALLY_L24_UDP_SPORT)), 1234, "");
	TEST_ASSERT_EQ(kget16(&p, OUT(TALLY_L24_UDP_DPORT)), 5678, "");
	TEST_ASSERT_EQ(kget16(&p, OUT(TALLY_L24_TCP_SPORT)), 0, "tcp fields stay 0");
	TEST_ASSERT_EQ(p.l3, TALLY_PTYPE_L3_IPV4, "");
	TEST_ASSERT_EQ(p.l4, TALLY_PTYPE_L4_UDP, "");
	TEST_ASSERT_EQ(p.sport, 1234, "");
	TEST_ASSERT_EQ(p.dport, 5678, "");
	TEST_ASSERT_EQ(p.ptype, TALLY_FIELD_PREP(TALLY_PTYPE_L3_M, TALLY_PTYPE_L3_IPV4) |
		       TALLY_FIELD_PREP(TALLY_PTYPE_L4_M, TALLY_PTYPE_L4_UDP), "");
	return TEST_SUCCESS;
}

static int
test_vlan_qinq(void)
{
	struct fb f = { .n = 0 };
	struct tally_model_pkt p;

	put_eth(&f, 0x88a8);
	put16(&f, 0x6064);		/* prio 3, vid 100 */
	put16(&f, 0x8100);
	put16(&f, 0x00c8);		/* vid 200 */
	put16(&f, 0x0800);
	put_ipv4(&f, 6, 0x0a000001, 0x0a000002, 0, 0);
	put_tcp(&f, 80, 443, 0x012);
	tally_model_parse(f.b, f.n, &p);
	TEST_ASSERT_EQ(kget16(&p, OUT(TALLY_L24_VLAN)), 0x6064, "first tag TCI");
	TEST_ASSERT_EQ(kget16(&p, MISC(TALLY_MISC_OUTER_SECOND_VLAN)), 0x00c8, "");
	TEST_ASSERT(p.key.b[OUT(TALLY_L24_FLAGS)] & TALLY_L24_F_SVLAN, "svlan");
	TEST_ASSERT(!(p.key.b[OUT(TALLY_L24_FLAGS)] & TALLY_L24_F_CVLAN), "not cvlan");
	TEST_ASSERT_EQ(p.key.b[MISC(TALLY_MISC_SECOND_TAGS)],
		       TALLY_MISC_F_OUTER_SECOND_CVLAN, "");
	TEST_ASSERT_EQ(kget16(&p, OUT(TALLY_L24_ETHERTYPE)), 0x0800, "innermost type");
	TEST_ASSERT_EQ(kget16(&p, OUT(TALLY_L24_TCP_DPORT)), 443, "");
	TEST_ASSERT_EQ(p.key.b[OUT(TALLY_L24_TCP_FLAGS)], 0x12, "SYN|ACK");
	TEST_ASSERT(p.has_vlan, "");
	TEST_ASSERT_EQ(p.l4, TALLY_PTYPE_L4_TCP, "");
	return TEST_SUCCESS;
}

static int
test_ipv4_options_and_fragments(void)
{
	struct fb f = { .n = 0 };
	struct tally_model_pkt p;

	put_eth(&f, 0x0800);
	put_ipv4(&f, 17, 1, 2, 0x2000, 2);	/* MF, offset 0, ihl 7 */
	put_udp(&f, 7, 9);
	tally_model_parse(f.b, f.n, &p);
	TEST_ASSERT_EQ(p.key.b[OUT(TALLY_L24_IHL_OK)] >> 4, 7, "ihl");
	TEST_ASSERT(p.key.b[OUT(TALLY_L24_FLAGS)] & TALLY_L24_F_FRAG, "first frag");
	TEST_ASSERT_EQ(kget16(&p, OUT(TALLY_L24_UDP_DPORT)), 9, "first fragment has L4");

	f.n = 0;
	put_eth(&f, 0x0800);
	put_ipv4(&f, 17, 1, 2, 0x0010, 0);	/* offset 16*8 */
	put_udp(&f, 7, 9);
	tally_model_parse(f.b, f.n, &p);
	TEST_ASSERT(p.key.b[OUT(TALLY_L24_FLAGS)] & TALLY_L24_F_FRAG, "");
	TEST_ASSERT_EQ(kget16(&p, OUT(TALLY_L24_UDP_DPORT)), 0, "later fragment: no L4");
	TEST_ASSERT_EQ(p.l4, TALLY_PTYPE_L4_FRAG, "");
	return TEST_SUCCESS;
}

/* The fragment fields: IPv4 flags and offset as they are, the offset
 * classes (>= 1, >= 8 units), the IPv6 fragment header's data and next
 * header; a frame that is no fragment leaves them 0 but for DF. */
static uint8_t
frag_class(const struct tally_model_pkt *p)
{
	return p->key.b[MISC(TALLY_MISC_FRAG_CLASS)];
}

static int
test_fragment_fields(void)
{
	static const struct {
		uint16_t frag;		/* IPv4 flags and offset */
		uint8_t is_frag, cls;
	} v4[] = {
		{ 0x0000, 0, 0 },
		{ 0x4000, 0, 0 },	/* DF */
		{ 0x2000, 1, 0 },	/* first */
		{ 0x2001, 1, TALLY_MISC_F_OUTER_FRAG_OFF1 },
		{ 0x0007, 1, TALLY_MISC_F_OUTER_FRAG_OFF1 },	/* last, 56 bytes on */
		{ 0x0008, 1, TALLY_MISC_F_OUTER_FRAG_OFF1 | TALLY_MISC_F_OUTER_FRAG_OFF8 },
		{ 0x3fff, 1, TALLY_MISC_F_OUTER_FRAG_OFF1 | TALLY_MISC_F_OUTER_FRAG_OFF8 },
		{ 0x8000, 0, 0 },	/* the reserved bit alone */
	};
	static const struct {
		uint16_t data;		/* IPv6 frag_data: offset 15:3, M 0 */
		uint8_t cls;
	} v6[] = {
		{ 0x0001, 0 },
		{ 0x0000, 0 },		/* an atomic fragment */
		{ 0x0008, TALLY_MISC_F_OUTER_FRAG_OFF1 },
		{ 0x0039, TALLY_MISC_F_OUTER_FRAG_OFF1 },	/* offset 7, M */
		{ 0x0040, TALLY_MISC_F_OUTER_FRAG_OFF1 | TALLY_MISC_F_OUTER_FRAG_OFF8 },
	};
	struct tally_model_pkt p, r;
	struct fb f;
	unsigned int i;

	for (i = 0; i < sizeof(v4) / sizeof(v4[0]); i++) {
		f.n = 0;
		put_eth(&f, 0x0800);
		put_ipv4(&f, 17, 1, 2, v4[i].frag, 0);
		put_udp(&f, 7, 9);
		tally_model_parse(f.b, f.n, &p);
		tally_model_parse_ref(f.b, f.n, &r);
		TEST_ASSERT(memcmp(&p.key, &r.key, sizeof(p.key)) == 0,
			    "ipv4 0x%04x: fast and general parse agree", v4[i].frag);
		TEST_ASSERT_EQ(kget16(&p, OUT(TALLY_L24_FRAG_DATA)), v4[i].frag,
			       "ipv4 0x%04x: flags and offset", v4[i].frag);
		TEST_ASSERT_EQ(!!(p.key.b[OUT(TALLY_L24_FLAGS)] & TALLY_L24_F_FRAG),
			       v4[i].is_frag, "ipv4 0x%04x: frag bit", v4[i].frag);
		TEST_ASSERT_EQ(frag_class(&p), v4[i].cls, "ipv4 0x%04x: classes", v4[i].frag);
	}
	for (i = 0; i < sizeof(v6) / sizeof(v6[0]); i++) {
		f.n = 0;
		put_eth(&f, 0x86dd);
		put16(&f, 0x6000);
		put16(&f, 0);
		put16(&f, 24);
		put8(&f, 44);		/* fragment header */
		put8(&f, 64);
		memset(f.b + f.n, 0x11, 32);
		f.n += 32;
		put8(&f, 44);		/* first fragment header, next: another */
		put8(&f, 0);
		put16(&f, v6[i].data);
		put16(&f, 0x1234);
		put16(&f, 0x5678);
		put8(&f, 17);		/* the second one (not matched), next: UDP */
		put8(&f, 0);
		put16(&f, 0xfff9);
		put16(&f, 0);
		put16(&f, 0);
		put_udp(&f, 7, 9);
		tally_model_parse(f.b, f.n, &p);
		TEST_ASSERT(p.key.b[OUT(TALLY_L24_FLAGS)] & TALLY_L24_F_FRAG, "ipv6: frag bit");
		TEST_ASSERT_EQ(kget16(&p, OUT(TALLY_L24_FRAG_DATA)), v6[i].data,
			       "ipv6 0x%04x: the first header's frag_data", v6[i].data);
		TEST_ASSERT_EQ(p.key.b[MISC(TALLY_MISC_OUTER_IPV6_FRAG_NH)], 44,
			       "ipv6: the first header's next header");
		TEST_ASSERT_EQ(frag_class(&p), v6[i].cls, "ipv6 0x%04x: classes", v6[i].data);
	}
	/* no fragment header: all 0 */
	f.n = 0;
	put_eth(&f, 0x86dd);
	put16(&f, 0x6000);
	put16(&f, 0);
	put16(&f, 8);
	put8(&f, 17);
	put8(&f, 64);
	memset(f.b + f.n, 0x11, 32);
	f.n += 32;
	put_udp(&f, 7, 9);
	tally_model_parse(f.b, f.n, &p);
	TEST_ASSERT_EQ(kget16(&p, OUT(TALLY_L24_FRAG_DATA)), 0, "");
	TEST_ASSERT_EQ(p.key.b[MISC(TALLY_MISC_OUTER_IPV6_FRAG_NH)], 0, "");
	TEST_ASSERT_EQ(frag_class(&p), 0, "");
	TEST_ASSERT(!(p.key.b[OUT(TALLY_L24_FLAGS)] & TALLY_L24_F_FRAG), "");
	return TEST_SUCCESS;
}

static int
test_ipv6_ext_tcp(void)
{
	struct fb f = { .n = 0 };
	struct tally_model_pkt p;
	uint8_t src[16], dst[16];
	int i;

	for (i = 0; i < 16; i++) {
		src[i] = (uint8_t)(0xa0 + i);
		dst[i] = (uint8_t)(0xb0 + i);
	}
	put_eth(&f, 0x86dd);
	put16(&f, 0x6abc);		/* tc 0xab, flow label 0xcdef5 */
	put16(&f, 0xdef5);
	put16(&f, 28);
	put8(&f, 0);			/* hop-by-hop */
	put8(&f, 33);
	put(&f, src, 16);
	put(&f, dst, 16);
	put8(&f, 6);			/* hbh: next = TCP, len 0 (8 bytes) */
	put8(&f, 0);
	put16(&f, 0);
	put16(&f, 0);
	put16(&f, 0);
	put_tcp(&f, 1000, 2000, 0x100);	/* NS flag: bit 8 */
	tally_model_parse(f.b, f.n, &p);
	TEST_ASSERT_EQ(TALLY_FIELD_GET(p.key.b[OUT(TALLY_L24_FLAGS)], TALLY_L24_F_IPVER_M), 6, "");
	TEST_ASSERT_EQ(p.key.b[OUT(TALLY_L24_IP_PROTOCOL)], 6, "L4 after ext header");
	TEST_ASSERT_EQ(p.key.b[OUT(TALLY_L24_IP_DSCP_ECN)], 0xab, "traffic class");
	TEST_ASSERT_EQ(p.key.b[OUT(TALLY_L24_TTL_HOPLIMIT)], 33, "");
	TEST_ASSERT(memcmp(&p.key.b[OUT(TALLY_L24_SRC_IP)], src, 16) == 0, "");
	TEST_ASSERT(memcmp(&p.key.b[OUT(TALLY_L24_DST_IP)], dst, 16) == 0, "");
	TEST_ASSERT_EQ(kget32(&p, MISC(TALLY_MISC_OUTER_IPV6_FLOW_LABEL)), 0xcdef5, "");
	TEST_ASSERT_EQ(kget16(&p, OUT(TALLY_L24_TCP_SPORT)), 1000, "");
	TEST_ASSERT_EQ(p.key.b[OUT(TALLY_L24_FLAGS)] & TALLY_L24_F_TCPFLAG8, 1, "NS bit");
	TEST_ASSERT_EQ(p.l3, TALLY_PTYPE_L3_IPV6, "");
	return TEST_SUCCESS;
}

static int
test_icmp(void)
{
	struct fb f = { .n = 0 };
	struct tally_model_pkt p;

	put_eth(&f, 0x0800);
	put_ipv4(&f, 1, 1, 2, 0, 0);
	put8(&f, 8);			/* echo request */
	put8(&f, 0);
	put16(&f, 0);
	put16(&f, 0x1234);		/* id */
	put16(&f, 0x0005);		/* seq */
	tally_model_parse(f.b, f.n, &p);
	TEST_ASSERT_EQ(p.key.b[MISC3(TALLY_MISC3_ICMP_TYPE)], 8, "");
	TEST_ASSERT_EQ(p.key.b[MISC3(TALLY_MISC3_ICMP_CODE)], 0, "");
	TEST_ASSERT_EQ(kget32(&p, MISC3(TALLY_MISC3_ICMP_HEADER_DATA)), 0x12340005, "");
	TEST_ASSERT_EQ(p.l4, TALLY_PTYPE_L4_ICMP, "");
	return TEST_SUCCESS;
}

static uint32_t
build_vxlan(struct fb *f)
{
	f->n = 0;
	put_eth(f, 0x0800);
	put_ipv4(f, 17, 0xc0a80001, 0xc0a80002, 0, 0);
	put_udp(f, 40000, TALLY_VXLAN_UDP_PORT);
	put8(f, 0x08);
	put8(f, 0);
	put16(f, 0);
	put8(f, 0x12);
	put8(f, 0x34);
	put8(f, 0x56);
	put8(f, 0);
	put_eth(f, 0x0800);
	put_ipv4(f, 6, 0x0b000001, 0x0b000002, 0, 0);
	put_tcp(f, 22, 2222, 0x02);
	return f->n;
}

static int
test_vxlan_inner(void)
{
	struct fb f;
	struct tally_model_pkt p;

	build_vxlan(&f);
	tally_model_parse(f.b, f.n, &p);
	TEST_ASSERT_EQ(kget32(&p, MISC(TALLY_MISC_VXLAN_VNI)) >> 8, 0x123456, "vni");
	TEST_ASSERT(p.ptype & TALLY_PTYPE_TUNNEL_VXLAN, "");
	TEST_ASSERT_EQ(kget16(&p, OUT(TALLY_L24_UDP_DPORT)), 4789, "");
	TEST_ASSERT(memcmp(&p.key.b[IN(TALLY_L24_DMAC)], dmac, 6) == 0, "inner dmac");
	TEST_ASSERT_EQ(kget32(&p, IN(TALLY_L24_SRC_IPV4)), 0x0b000001, "");
	TEST_ASSERT_EQ(p.key.b[IN(TALLY_L24_IP_PROTOCOL)], 6, "");
	TEST_ASSERT_EQ(kget16(&p, IN(TALLY_L24_TCP_DPORT)), 2222, "");
	TEST_ASSERT_EQ(p.l4, TALLY_PTYPE_L4_UDP, "RSS facts are outer");
	TEST_ASSERT_EQ(p.dport, 4789, "");
	return TEST_SUCCESS;
}

/* Every prefix of a full frame parses without reading past it, and every key
 * byte it sets agrees with the full parse (a cut header is dropped whole or
 * partially, never invented). */
static int
test_truncated_prefixes(void)
{
	struct fb f;
	struct tally_model_pkt full, p;
	uint32_t len, n, i;

	n = build_vxlan(&f);
	tally_model_parse(f.b, n, &full);
	for (len = 0; len <= n; len++) {
		uint8_t *copy = malloc(len ? len : 1);

		memcpy(copy, f.b, len);
		tally_model_parse(copy, len, &p);
		for (i = 0; i < TALLY_MATCH_KEY_LEN; i++)
			TEST_ASSERT((p.key.b[i] & ~full.key.b[i]) == 0,
				    "len %u byte %u: %#x not in full parse %#x",
				    len, i, p.key.b[i], full.key.b[i]);
		free(copy);
	}
	return TEST_SUCCESS;
}

static int
test_random_garbage(void)
{
	struct tally_model_pkt p;
	uint8_t *buf;
	uint32_t seed = 12345, i, j, len;

	for (i = 0; i < 200000; i++) {
		seed = seed * 1103515245u + 12345u;
		len = (seed >> 8) % 200;
		buf = malloc(len ? len : 1);
		for (j = 0; j < len; j++) {
			seed = seed * 1103515245u + 12345u;
			buf[j] = (uint8_t)(seed >> 16);
		}
		/* steer some frames into the interesting paths */
		if (len >= 14 && (i & 3) == 0) {
			buf[12] = (i & 4) ? 0x86 : 0x08;
			buf[13] = (i & 4) ? 0xdd : 0x00;
			if (len > 14)
				buf[14] = (i & 4) ? 0x60 : 0x45;
		}
		tally_model_parse(buf, len, &p);
		TEST_ASSERT_EQ(p.len, len, "");
		free(buf);
	}
	return TEST_SUCCESS;
}

static const struct tally_test_case cases[] = {
	TEST_CASE(test_eth_ipv4_udp),
	TEST_CASE(test_vlan_qinq),
	TEST_CASE(test_ipv4_options_and_fragments),
	TEST_CASE(test_fragment_fields),
	TEST_CASE(test_ipv6_ext_tcp),
	TEST_CASE(test_icmp),
	TEST_CASE(test_vxlan_inner),
	TEST_CASE(test_truncated_prefixes),
	TEST_CASE(test_random_garbage),
};

TEST_MAIN("parse", cases)
