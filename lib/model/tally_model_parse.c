/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Frame parser: raw frame -> match key (mlx5 fte_match_param layout) plus the
 * outer-header facts RSS and the Rx completion need.
 *
 * Parsed: Ethernet; up to two VLAN tags (0x8100 = C-tag, 0x88a8/0x9100 =
 * S-tag); IPv4 with options and fragments; IPv6 with hop-by-hop, routing,
 * fragment and destination-option extension headers; TCP, UDP, ICMP, ICMPv6;
 * VXLAN on UDP port 4789, whose payload (Ethernet, one VLAN tag, IPv4/IPv6,
 * TCP/UDP/ICMP) fills the inner section.
 *
 * Conventions:
 *  - ethertype is the type following the last VLAN tag.
 *  - ip_protocol is the L4 protocol (after IPv6 extension headers).
 *  - frag is set for any IPv4 fragment (MF or offset) and for an IPv6
 *    fragment header; L4 fields are only filled for the first fragment.
 *    The IPv4 flags and offset (or the first IPv6 fragment header's
 *    frag_data and next header) are in the key as they are, and two class
 *    bits per stack tell offset >= 1 (a later fragment) and offset >= 8.
 *  - A header cut short by the end of the frame stops parsing; the fields
 *    filled so far stay (never reads past len).
 *
 * Cost: the common frame (untagged Ethernet, IPv4 without options, TCP or
 * UDP) takes a fast path that composes the outer section in word stores; any
 * other frame takes the general path. Only the sections a frame can fill
 * (outer, misc, inner, misc3) are ever written, so a caller that reuses its
 * tally_model_pkt (the device's Rx burst) passes the sections the previous
 * frame wrote and only those are cleared (tally_model_parse_reuse()).
 * When nothing will read the match key (no classification), the Rx burst
 * asks for the rest alone (tally_model_parse_light()): the common frame then
 * costs a header check and a few stores; any other frame is parsed in full.
 */
#include <stdbool.h>
#include <string.h>

#include <tally/tally_desc.h>

#include "tally_model_priv.h"

#define ETH_HLEN	14
#define ET_IPV4		0x0800
#define ET_IPV6		0x86dd
#define ET_CVLAN	0x8100
#define ET_SVLAN	0x88a8
#define ET_QINQ		0x9100
#define PROTO_ICMP	1
#define PROTO_TCP	6
#define PROTO_UDP	17
#define PROTO_ICMPV6	58

struct parse_out {
	uint8_t *sec;		/* lyr_2_4 section being filled */
	uint8_t *misc;		/* misc section */
	uint8_t *misc3;
	int inner;
	uint8_t l3, l4;
	uint8_t has_vlan;
	uint8_t src[16], dst[16];
	uint16_t sport, dport;
	uint32_t l4_off;	/* offset of UDP payload for VXLAN */
	uint16_t udp_dport;
};

static inline uint16_t
rd16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static void
set_vlan_flags(struct parse_out *o, uint16_t tpid, int second)
{
	uint8_t bit;

	if (!second) {
		bit = tpid == ET_CVLAN ? TALLY_L24_F_CVLAN : TALLY_L24_F_SVLAN;
		o->sec[TALLY_L24_FLAGS] |= bit;
		return;
	}
	if (o->inner)
		bit = tpid == ET_CVLAN ? TALLY_MISC_F_INNER_SECOND_CVLAN :
					 TALLY_MISC_F_INNER_SECOND_SVLAN;
	else
		bit = tpid == ET_CVLAN ? TALLY_MISC_F_OUTER_SECOND_CVLAN :
					 TALLY_MISC_F_OUTER_SECOND_SVLAN;
	o->misc[TALLY_MISC_SECOND_TAGS] |= bit;
}

/* Ethernet + VLAN tags. Returns the L3 offset, or 0 if cut short. */
static uint32_t
parse_l2(const uint8_t *f, uint32_t len, uint32_t off, struct parse_out *o,
	 uint16_t *ethertype)
{
	uint16_t et;
	int tags = 0;

	if (len < off + ETH_HLEN)
		return 0;
	memcpy(&o->sec[TALLY_L24_DMAC], f + off, 6);
	memcpy(&o->sec[TALLY_L24_SMAC], f + off + 6, 6);
	et = rd16(f + off + 12);
	off += ETH_HLEN;
	while ((et == ET_CVLAN || et == ET_SVLAN || et == ET_QINQ) && tags < 2) {
		if (len < off + 4)
			return 0;
		if (tags == 0) {
			memcpy(&o->sec[TALLY_L24_VLAN], f + off, 2);
		} else {
			uint32_t at = o->inner ? TALLY_MISC_INNER_SECOND_VLAN :
						 TALLY_MISC_OUTER_SECOND_VLAN;
			memcpy(&o->misc[at], f + off, 2);
		}
		set_vlan_flags(o, et, tags);
		o->has_vlan = 1;
		et = rd16(f + off + 2);
		off += 4;
		tags++;
	}
	o->sec[TALLY_L24_ETHERTYPE] = (uint8_t)(et >> 8);
	o->sec[TALLY_L24_ETHERTYPE + 1] = (uint8_t)et;
	*ethertype = et;
	return off;
}

static void
set_ip_version(struct parse_out *o, uint8_t ver)
{
	TALLY_FIELD_SET(o->sec[TALLY_L24_FLAGS], TALLY_L24_F_IPVER_M, ver);
}

/* A fragment: the frag bit, and the offset classes of an offset in 8-byte
 * units. */
static void
set_frag(struct parse_out *o, uint16_t offset)
{
	uint8_t off1 = o->inner ? TALLY_MISC_F_INNER_FRAG_OFF1 : TALLY_MISC_F_OUTER_FRAG_OFF1;
	uint8_t off8 = o->inner ? TALLY_MISC_F_INNER_FRAG_OFF8 : TALLY_MISC_F_OUTER_FRAG_OFF8;

	o->sec[TALLY_L24_FLAGS] |= TALLY_L24_F_FRAG;
	o->l4 = TALLY_PTYPE_L4_FRAG;
	if (offset >= 1)
		o->misc[TALLY_MISC_FRAG_CLASS] |= off1;
	if (offset >= 8)
		o->misc[TALLY_MISC_FRAG_CLASS] |= off8;
}

/* IPv4 header. Returns the L4 offset (0 = stop), sets *proto, *first_frag. */
static uint32_t
parse_ipv4(const uint8_t *f, uint32_t len, uint32_t off, struct parse_out *o,
	   uint8_t *proto, int *l4_ok)
{
	uint32_t ihl;
	uint16_t frag;

	if (len < off + 20 || (f[off] >> 4) != 4)
		return 0;
	ihl = (uint32_t)(f[off] & 0x0f) * 4;
	set_ip_version(o, 4);
	o->l3 = TALLY_PTYPE_L3_IPV4;
	o->sec[TALLY_L24_IP_DSCP_ECN] = f[off + 1];
	o->sec[TALLY_L24_IHL_OK] = (uint8_t)((f[off] & 0x0f) << 4);
	o->sec[TALLY_L24_TTL_HOPLIMIT] = f[off + 8];
	o->sec[TALLY_L24_IP_PROTOCOL] = f[off + 9];
	memcpy(&o->sec[TALLY_L24_SRC_IPV4], f + off + 12, 4);
	memcpy(&o->sec[TALLY_L24_DST_IPV4], f + off + 16, 4);
	memcpy(o->src, f + off + 12, 4);
	memcpy(o->dst, f + off + 16, 4);
	*proto = f[off + 9];
	frag = rd16(f + off + 6);
	o->sec[TALLY_L24_FRAG_DATA] = f[off + 6];
	o->sec[TALLY_L24_FRAG_DATA + 1] = f[off + 7];
	*l4_ok = 1;
	if (frag & 0x3fff) {	/* MF or offset */
		set_frag(o, frag & 0x1fff);
		if (frag & 0x1fff)
			*l4_ok = 0;	/* not the first fragment */
	}
	if (ihl < 20 || len < off + ihl)
		return 0;
	return off + ihl;
}

static int
ipv6_is_ext(uint8_t nh)
{
	return nh == 0 || nh == 43 || nh == 44 || nh == 60;
}

static uint32_t
parse_ipv6(const uint8_t *f, uint32_t len, uint32_t off, struct parse_out *o,
	   uint8_t *proto, int *l4_ok)
{
	uint32_t fl, hops = 0;
	uint8_t nh;
	uint8_t *label;

	if (len < off + 40 || (f[off] >> 4) != 6)
		return 0;
	set_ip_version(o, 6);
	o->l3 = TALLY_PTYPE_L3_IPV6;
	o->sec[TALLY_L24_IP_DSCP_ECN] = (uint8_t)(((f[off] & 0x0f) << 4) | (f[off + 1] >> 4));
	o->sec[TALLY_L24_TTL_HOPLIMIT] = f[off + 7];
	memcpy(&o->sec[TALLY_L24_SRC_IP], f + off + 8, 16);
	memcpy(&o->sec[TALLY_L24_DST_IP], f + off + 24, 16);
	memcpy(o->src, f + off + 8, 16);
	memcpy(o->dst, f + off + 24, 16);
	fl = ((uint32_t)(f[off + 1] & 0x0f) << 16) | rd16(f + off + 2);
	label = &o->misc[o->inner ? TALLY_MISC_INNER_IPV6_FLOW_LABEL :
				    TALLY_MISC_OUTER_IPV6_FLOW_LABEL];
	label[1] = (uint8_t)(fl >> 16);
	label[2] = (uint8_t)(fl >> 8);
	label[3] = (uint8_t)fl;
	nh = f[off + 6];
	off += 40;
	*l4_ok = 1;
	while (ipv6_is_ext(nh) && hops++ < 8) {
		if (len < off + 8)
			return 0;
		if (nh == 44) {
			uint16_t fd = rd16(f + off + 2);

			if (!(o->sec[TALLY_L24_FLAGS] & TALLY_L24_F_FRAG)) {
				/* the first fragment header is the one matched */
				memcpy(&o->sec[TALLY_L24_FRAG_DATA], f + off + 2, 2);
				o->misc[o->inner ? TALLY_MISC_INNER_IPV6_FRAG_NH :
					TALLY_MISC_OUTER_IPV6_FRAG_NH] = f[off];
				set_frag(o, fd >> 3);
			}
			if (fd & 0xfff8)
				*l4_ok = 0;
			nh = f[off];
			off += 8;
		} else {
			uint32_t hl = ((uint32_t)f[off + 1] + 1) * 8;

			nh = f[off];
			off += hl;
		}
	}
	if (ipv6_is_ext(nh))
		return 0;
	o->sec[TALLY_L24_IP_PROTOCOL] = nh;
	*proto = nh;
	return len < off ? 0 : off;
}

static void
parse_l4(const uint8_t *f, uint32_t len, uint32_t off, uint8_t proto,
	 struct parse_out *o)
{
	uint16_t tcp_flags;

	switch (proto) {
	case PROTO_TCP:
		if (len < off + 20)
			return;
		memcpy(&o->sec[TALLY_L24_TCP_SPORT], f + off, 4);
		tcp_flags = (uint16_t)(((f[off + 12] & 1) << 8) | f[off + 13]);
		o->sec[TALLY_L24_FLAGS] |= (uint8_t)(tcp_flags >> 8);
		o->sec[TALLY_L24_TCP_FLAGS] = (uint8_t)tcp_flags;
		o->l4 = TALLY_PTYPE_L4_TCP;
		o->sport = rd16(f + off);
		o->dport = rd16(f + off + 2);
		break;
	case PROTO_UDP:
		if (len < off + 8)
			return;
		memcpy(&o->sec[TALLY_L24_UDP_SPORT], f + off, 4);
		o->l4 = TALLY_PTYPE_L4_UDP;
		o->sport = rd16(f + off);
		o->dport = rd16(f + off + 2);
		o->udp_dport = o->dport;
		o->l4_off = off + 8;
		break;
	case PROTO_ICMP:
		o->l4 = TALLY_PTYPE_L4_ICMP;
		if (len < off + 8 || o->misc3 == NULL)
			return;
		o->misc3[TALLY_MISC3_ICMP_TYPE] = f[off];
		o->misc3[TALLY_MISC3_ICMP_CODE] = f[off + 1];
		memcpy(&o->misc3[TALLY_MISC3_ICMP_HEADER_DATA], f + off + 4, 4);
		break;
	case PROTO_ICMPV6:
		o->l4 = TALLY_PTYPE_L4_ICMP;
		if (len < off + 8 || o->misc3 == NULL)
			return;
		o->misc3[TALLY_MISC3_ICMPV6_TYPE] = f[off];
		o->misc3[TALLY_MISC3_ICMPV6_CODE] = f[off + 1];
		memcpy(&o->misc3[TALLY_MISC3_ICMPV6_HEADER_DATA], f + off + 4, 4);
		break;
	default:
		break;
	}
}

/* One header stack (outer or inner) from L2 down. */
static void
parse_stack(const uint8_t *f, uint32_t len, uint32_t off, struct parse_out *o)
{
	uint16_t et = 0;
	uint8_t proto = 0;
	int l4_ok = 0;

	off = parse_l2(f, len, off, o, &et);
	if (off == 0)
		return;
	if (et == ET_IPV4)
		off = parse_ipv4(f, len, off, o, &proto, &l4_ok);
	else if (et == ET_IPV6)
		off = parse_ipv6(f, len, off, o, &proto, &l4_ok);
	else
		return;
	if (off != 0 && l4_ok)
		parse_l4(f, len, off, proto, o);
}

/* The general parser: every header the file comment lists, into a key whose
 * sections other than the outer one are zero; the outer one is cleared here.
 * Returns the sections (TALLY_PARSE_SEC bits) it may have written besides
 * the outer one. */
static uint8_t
parse_general(const uint8_t *frame, uint32_t len, struct tally_model_pkt *pkt)
{
	struct parse_out o, in;
	uint8_t *k = pkt->key.b;
	uint8_t dirty = 0;

	memset(k + TALLY_MS_OFF(TALLY_MS_OUTER), 0, TALLY_MATCH_SECTION_LEN);
	memset(&o, 0, sizeof(o));
	o.sec = k + TALLY_MS_OFF(TALLY_MS_OUTER);
	o.misc = k + TALLY_MS_OFF(TALLY_MS_MISC);
	o.misc3 = k + TALLY_MS_OFF(TALLY_MS_MISC3);
	parse_stack(frame, len, 0, &o);

	pkt->l3 = o.l3;
	pkt->l4 = o.l4;
	pkt->has_vlan = o.has_vlan;
	memcpy(pkt->src, o.src, sizeof(pkt->src));
	memcpy(pkt->dst, o.dst, sizeof(pkt->dst));
	pkt->sport = o.sport;
	pkt->dport = o.dport;
	pkt->ptype = (uint8_t)(TALLY_FIELD_PREP(TALLY_PTYPE_L3_M, o.l3) |
			       TALLY_FIELD_PREP(TALLY_PTYPE_L4_M, o.l4));
	/* misc: second VLAN tags, IPv6 flow label, fragment classes; misc3: ICMP */
	if (o.has_vlan || o.l3 == TALLY_PTYPE_L3_IPV6 || o.l4 == TALLY_PTYPE_L4_FRAG)
		dirty |= TALLY_PARSE_SEC(TALLY_MS_MISC);
	if (o.l4 == TALLY_PTYPE_L4_ICMP)
		dirty |= TALLY_PARSE_SEC(TALLY_MS_MISC3);

	/* VXLAN: UDP/4789 carrying flags with the I bit and a full header. */
	if (o.l4 == TALLY_PTYPE_L4_UDP && o.udp_dport == TALLY_VXLAN_UDP_PORT &&
	    len >= o.l4_off + 8 && (frame[o.l4_off] & 0x08)) {
		memcpy(&o.misc[TALLY_MISC_VXLAN_VNI], frame + o.l4_off + 4, 3);
		pkt->ptype |= TALLY_PTYPE_TUNNEL_VXLAN;
		memset(&in, 0, sizeof(in));
		in.inner = 1;
		in.sec = k + TALLY_MS_OFF(TALLY_MS_INNER);
		in.misc = o.misc;
		/* misc3 has no inner ICMP fields: inner ICMP is not matchable */
		in.misc3 = NULL;
		parse_stack(frame, len, o.l4_off + 8, &in);
		dirty |= TALLY_PARSE_SEC(TALLY_MS_MISC) | TALLY_PARSE_SEC(TALLY_MS_INNER);
	}
	return dirty;
}

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
static inline uint64_t
ld64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static inline uint32_t
ld32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static inline void
st64(uint8_t *p, uint64_t v)
{
	memcpy(p, &v, sizeof(v));
}

/* The fields of an untagged IPv4 TCP/UDP frame's parse besides the key
 * (the fast parse and the light parse store the same). */
static inline void
parse_fast_fields(struct tally_model_pkt *pkt, const uint8_t *ip, const uint8_t *l4,
		  uint8_t l4t)
{
	pkt->l3 = TALLY_PTYPE_L3_IPV4;
	pkt->l4 = l4t;
	pkt->has_vlan = 0;
	st64(pkt->src, ld32(ip + 12));
	st64(pkt->src + 8, 0);
	st64(pkt->dst, ld32(ip + 16));
	st64(pkt->dst + 8, 0);
	pkt->sport = rd16(l4);
	pkt->dport = rd16(l4 + 2);
	pkt->ptype = (uint8_t)(TALLY_FIELD_PREP(TALLY_PTYPE_L3_M, TALLY_PTYPE_L3_IPV4) |
			       TALLY_FIELD_PREP(TALLY_PTYPE_L4_M, l4t));
}

/*
 * The common frame (tally_model_parse_l4t()): the outer section is composed in
 * eight word stores, byte for byte what parse_general() writes, and nothing
 * else of the key is touched. Returns false (nothing written) for any other
 * frame.
 */
static inline bool
parse_fast(const uint8_t *f, uint32_t len, struct tally_model_pkt *pkt)
{
	const uint8_t *ip = f + ETH_HLEN, *l4 = ip + 20;
	uint8_t *k = pkt->key.b + TALLY_MS_OFF(TALLY_MS_OUTER);
	uint8_t l4t = tally_model_parse_l4t(f, len);
	uint64_t w2, w3, ports;

	if (l4t == 0)
		return false;
	ports = ld32(l4);
	/* byte 16 protocol, 17 dscp/ecn, 18 flags (IP version 4) */
	w2 = ip[9] | (uint64_t)ip[1] << 8 |
	     (uint64_t)TALLY_FIELD_PREP(TALLY_L24_F_IPVER_M, 4) << 16;
	/* bytes 24..25 flags and offset (DF and the reserved bit alone here),
	 * 26 ihl, 27 ttl */
	w3 = (uint64_t)ip[6] | (uint64_t)(5u << 4) << 16 | (uint64_t)ip[8] << 24;
	if (l4t == TALLY_PTYPE_L4_TCP)
		/* byte 18 bit 0 = TCP flag bit 8, 19 = flags 7:0, 20..23 ports */
		w2 |= (uint64_t)(l4[12] & 1) << 16 | (uint64_t)l4[13] << 24 |
		      ports << 32;
	else
		w3 |= ports << 32;	/* bytes 28..31 */
	st64(k + 0, ld64(f + 6));			/* smac, ethertype */
	st64(k + 8, ld64(f) & 0x0000ffffffffffffull);	/* dmac, no VLAN */
	st64(k + 16, w2);
	st64(k + 24, w3);
	st64(k + 32, 0);
	st64(k + 40, (uint64_t)ld32(ip + 12) << 32);	/* bytes 44..47 */
	st64(k + 48, 0);
	st64(k + 56, (uint64_t)ld32(ip + 16) << 32);	/* bytes 60..63 */

	parse_fast_fields(pkt, ip, l4, l4t);
	return true;
}

/* parse_fast() less the match key: the same fields, false (nothing
 * written) for any other frame. */
static inline bool
parse_light_fast(const uint8_t *f, uint32_t len, struct tally_model_pkt *pkt)
{
	uint8_t l4t = tally_model_parse_l4t(f, len);

	if (l4t == 0)
		return false;
	parse_fast_fields(pkt, f + ETH_HLEN, f + ETH_HLEN + 20, l4t);
	return true;
}
#else
static inline bool
parse_fast(const uint8_t *f, uint32_t len, struct tally_model_pkt *pkt)
{
	(void)f;
	(void)len;
	(void)pkt;
	return false;
}

static inline bool
parse_light_fast(const uint8_t *f, uint32_t len, struct tally_model_pkt *pkt)
{
	return parse_fast(f, len, pkt);
}
#endif

void
tally_model_parse_reuse(const uint8_t *frame, uint32_t len,
			struct tally_model_pkt *pkt, uint8_t *dirty)
{
	uint8_t *k = pkt->key.b;
	uint32_t d = *dirty & ~TALLY_PARSE_SEC(TALLY_MS_OUTER), s;

	pkt->frame = frame;
	pkt->len = len;
	/* section by section, each in a few vector stores (one memset of the
	 * seven becomes `rep stos`, several times slower at this size) */
	while (d != 0) {
		s = (uint32_t)__builtin_ctz(d);
		d &= d - 1;
		memset(k + TALLY_MS_OFF(s), 0, TALLY_MATCH_SECTION_LEN);
	}
	if (parse_fast(frame, len, pkt)) {
		*dirty = 0;
		return;
	}
	*dirty = parse_general(frame, len, pkt);
}

void
tally_model_parse_light(const uint8_t *frame, uint32_t len,
			struct tally_model_pkt *pkt, uint8_t *dirty)
{
	if (parse_light_fast(frame, len, pkt)) {
		pkt->frame = frame;
		pkt->len = len;
		return;		/* key and *dirty untouched */
	}
	tally_model_parse_reuse(frame, len, pkt, dirty);
}

void
tally_model_parse(const uint8_t *frame, uint32_t len, struct tally_model_pkt *pkt)
{
	uint8_t dirty = TALLY_PARSE_ALL_BUT_OUTER;

	tally_model_parse_reuse(frame, len, pkt, &dirty);
}

void
tally_model_parse_ref(const uint8_t *frame, uint32_t len, struct tally_model_pkt *pkt)
{
	memset(pkt, 0, sizeof(*pkt));
	pkt->frame = frame;
	pkt->len = len;
	(void)parse_general(frame, len, pkt);
}
