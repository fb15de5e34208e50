/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rte_flow pattern -> Tally match key.
 *
 * Supported items are data: for each, the per-byte mask of what the device
 * can match (a user mask must be a subset), the byte ranges copied into the
 * key, and a hook for fields that are not plain byte copies and for the
 * fields an item implies (an ipv4 item implies ip_version 4, a udp item
 * implies ip_protocol 17, a vxlan item implies outer UDP port 4789).
 * Items after vxlan describe the inner headers and fill the inner section.
 *
 * Size: the item and action tables, the key helpers every item uses and the
 * fragment-range solver are one unit; split, the tables' helpers would all
 * become exported functions of the flow engine.
 */
#include <stdbool.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_ethdev.h>
#include <rte_flow.h>

#include "tally_flow.h"
#include "tally_steer_place.h"

/* Where a field lands: the L2-L4 section of the current header stack (outer,
 * or inner after vxlan), or a fixed section. */
enum key_sec {
	KS_L24,
	KS_MISC,
	KS_MISC3,
};

struct field_copy {
	uint16_t item_off;	/* byte offset in the item struct */
	uint16_t key_off;	/* byte offset in the section */
	uint8_t len;
	uint8_t sec;		/* enum key_sec */
};

enum layer {
	LAYER_L2 = 1,
	LAYER_VLAN,
	LAYER_L3,
	LAYER_L3_EXT,		/* IPv6 extension headers */
	LAYER_L4,
	LAYER_TUNNEL,
};

struct parse_state {
	struct tally_flow_match *m;
	struct tally_flow_trace *trace;	/* where spec bytes land, or NULL */
	const uint8_t *spec_lo, *spec_hi;	/* the current item's spec */
	uint8_t item_idx;		/* its index in the pattern */
	int inner;		/* after vxlan */
	int layer;		/* highest layer seen in this stack */
	int vlans;		/* VLAN items in this stack */
	uint8_t ipver;		/* 4/6 when an L3 item was seen */
	const struct rte_flow_item *next; /* next non-void item */
	struct rte_flow_error *error;
};

struct item_desc {
	enum rte_flow_item_type type;
	const char *name;
	uint8_t layer;		/* enum layer */
	uint8_t outer_only;
	size_t size;
	const void *nic_mask;
	const void *default_mask;
	const struct field_copy *copies;
	unsigned int ncopies;
	/* special fields and implied matches; spec/mask are never NULL here */
	int (*extra)(struct parse_state *ps, const struct rte_flow_item *item,
		     const void *spec, const void *mask);
	/* the one field that takes a range (last), a 16-bit fragment field:
	 * its byte offset in the item, 0 for none */
	uint16_t range_off;
};

/* ---- key helpers ---------------------------------------------------------- */

static uint8_t *
sec_base(struct tally_match_key *k, const struct parse_state *ps, enum key_sec s)
{
	switch (s) {
	case KS_MISC:
		return k->b + TALLY_MS_OFF(TALLY_MS_MISC);
	case KS_MISC3:
		return k->b + TALLY_MS_OFF(TALLY_MS_MISC3);
	case KS_L24:
	default:
		return k->b + TALLY_MS_OFF(ps->inner ? TALLY_MS_INNER : TALLY_MS_OUTER);
	}
}

static uint8_t
sec_bit(const struct parse_state *ps, enum key_sec s)
{
	switch (s) {
	case KS_MISC:
		return 1u << TALLY_MS_MISC;
	case KS_MISC3:
		return 1u << TALLY_MS_MISC3;
	case KS_L24:
	default:
		return 1u << (ps->inner ? TALLY_MS_INNER : TALLY_MS_OUTER);
	}
}

/* The trace of a template's parse (tally_flow_parse_trace()): a value read
 * from the item's spec is a field the key builder copies; any other is a
 * constant, whose mask bits the builder must leave alone. */
static void
trace_add(struct parse_state *ps, uint32_t key_off, const uint8_t *val,
	  const uint8_t *mask, unsigned int len)
{
	struct tally_flow_trace *t = ps->trace;
	unsigned int i;

	if (val >= ps->spec_lo && val + len <= ps->spec_hi) {
		if (t->n == RTE_DIM(t->f)) {
			t->ok = false;
			return;
		}
		t->f[t->n++] = (struct tally_flow_trace_field){
			.item = ps->item_idx, .item_off = (uint16_t)(val - ps->spec_lo),
			.key_off = (uint16_t)key_off, .len = (uint8_t)len,
		};
		return;
	}
	for (i = 0; i < len; i++)
		t->cmask.b[key_off + i] |= mask[i];
}

/* A field the parser computes bit for bit (not a byte copy): its nbits bits
 * from bit `from` of the item's big-endian value at item_off (of vlen
 * bytes) land on the key bits from bit `to` of the big-endian value at key
 * byte key_off (of klen bytes), already matched as computed values; they are
 * the builder's to fill, not constants. */
static void
trace_bits(struct parse_state *ps, enum key_sec sec, uint32_t item_off, uint32_t vlen,
	   uint32_t from, uint32_t key_off, uint32_t klen, uint32_t to, uint32_t nbits)
{
	struct tally_flow_trace *t = ps->trace;
	uint32_t k, base = (uint32_t)(sec_base(&ps->m->mask, ps, sec) - ps->m->mask.b);

	for (k = 0; k < nbits; k++) {
		uint32_t ib = from + k, kb = to + k;
		uint32_t ibyte = item_off + vlen - 1 - ib / 8, kbyte = base + key_off + klen - 1 - kb / 8;

		if (t->n == RTE_DIM(t->f)) {
			t->ok = false;
			return;
		}
		t->f[t->n++] = (struct tally_flow_trace_field){
			.item = ps->item_idx, .item_off = (uint16_t)ibyte, .len = 1,
			.key_off = (uint16_t)kbyte, .bit = true,
			.item_bit = (uint8_t)(ib % 8), .key_bit = (uint8_t)(kb % 8),
		};
		t->cmask.b[kbyte] &= (uint8_t)~(1u << (kb % 8));
	}
}

/* Match `len` bytes at section offset `off` against value under mask. A bit
 * already matched with another value is a conflict. */
static int
key_set(struct parse_state *ps, const struct rte_flow_item *item, enum key_sec s,
	unsigned int off, const uint8_t *val, const uint8_t *mask, unsigned int len)
{
	uint8_t *km, *kv;
	unsigned int i;
	uint8_t any = 0;

	for (i = 0; i < len; i++)
		any |= mask[i];
	if (any == 0)
		return 0;	/* nothing matched: the common case of zero masks */
	km = sec_base(&ps->m->mask, ps, s) + off;
	kv = sec_base(&ps->m->value, ps, s) + off;
	if (unlikely(ps->trace != NULL))
		trace_add(ps, km - ps->m->mask.b, val, mask, len);
	for (i = 0; i < len; i++) {
		uint8_t both = km[i] & mask[i];

		if ((kv[i] & both) != (val[i] & both))
			return rte_flow_error_set(ps->error, EINVAL,
				RTE_FLOW_ERROR_TYPE_ITEM, item,
				"item conflicts with a field matched by an earlier item");
		km[i] |= mask[i];
		kv[i] |= val[i] & mask[i];
	}
	ps->m->criteria |= sec_bit(ps, s);
	return 0;
}

/* Match a field an item implies (full mask over `bits`). */
static int
key_imply(struct parse_state *ps, const struct rte_flow_item *item, enum key_sec s,
	  unsigned int off, uint8_t val, uint8_t bits)
{
	return key_set(ps, item, s, off, &val, &bits, 1);
}

static int
key_imply16(struct parse_state *ps, const struct rte_flow_item *item,
	    enum key_sec s, unsigned int off, uint16_t val)
{
	uint8_t v[2] = { (uint8_t)(val >> 8), (uint8_t)val };
	static const uint8_t full[2] = { 0xff, 0xff };

	return key_set(ps, item, s, off, v, full, 2);
}

static int
imply_ip_protocol(struct parse_state *ps, const struct rte_flow_item *item,
		  uint8_t proto)
{
	return key_imply(ps, item, KS_L24, TALLY_L24_IP_PROTOCOL, proto, 0xff);
}

/* ---- eth ---------------------------------------------------------------- */

static const struct rte_flow_item_eth eth_nic_mask = {
	.hdr.dst_addr.addr_bytes = "\xff\xff\xff\xff\xff\xff",
	.hdr.src_addr.addr_bytes = "\xff\xff\xff\xff\xff\xff",
	.hdr.ether_type = RTE_BE16(0xffff),
	.has_vlan = 1,
};

static const struct field_copy eth_copies[] = {
	{ offsetof(struct rte_flow_item_eth, hdr.dst_addr), TALLY_L24_DMAC, 6, KS_L24 },
	{ offsetof(struct rte_flow_item_eth, hdr.src_addr), TALLY_L24_SMAC, 6, KS_L24 },
};

static int
tpid_bit(uint16_t tpid, uint8_t *bit)
{
	if (tpid == RTE_ETHER_TYPE_VLAN)
		*bit = TALLY_L24_F_CVLAN;
	else if (tpid == RTE_ETHER_TYPE_QINQ || tpid == RTE_ETHER_TYPE_QINQ1)
		*bit = TALLY_L24_F_SVLAN;
	else
		return -EINVAL;
	return 0;
}

/* Where the has_vlan bit field is in struct rte_flow_item_eth: its byte
 * and the bit in it. */
static void
has_vlan_pos(uint32_t *byte, uint32_t *bit)
{
	struct rte_flow_item_eth e;
	const uint8_t *b = (const uint8_t *)&e;
	uint32_t i;

	memset(&e, 0, sizeof(e));
	e.has_vlan = 1;
	for (i = 0; i < sizeof(e) && b[i] == 0; i++)
		;
	*byte = i;
	*bit = (uint32_t)__builtin_ctz(b[i]);
}

static int
eth_extra(struct parse_state *ps, const struct rte_flow_item *item,
	  const void *spec, const void *mask)
{
	const struct rte_flow_item_eth *s = spec, *mk = mask;
	uint16_t type = rte_be_to_cpu_16(s->hdr.ether_type);
	uint16_t tmask = rte_be_to_cpu_16(mk->hdr.ether_type);
	bool tpid = ps->next != NULL && ps->next->type == RTE_FLOW_ITEM_TYPE_VLAN;
	uint8_t bit;
	int ret;

	if (mk->has_vlan) {
		/* Both tag bits, whatever the value (one mask per pattern
		 * shape): 0 is no tag of either kind; 1 is the kind the TPID
		 * names, else a C-tag, as the device cannot OR the two bits. */
		uint8_t v = 0;

		if (s->has_vlan)
			v = tpid && tmask == 0xffff && tpid_bit(type, &bit) == 0 ?
			    bit : TALLY_L24_F_CVLAN;
		ret = key_imply(ps, item, KS_L24, TALLY_L24_FLAGS, v,
				TALLY_L24_F_CVLAN | TALLY_L24_F_SVLAN);
		if (ret)
			return ret;
	}
	if (unlikely(ps->trace != NULL) && mk->has_vlan) {
		uint32_t hv_byte, hv_bit;

		has_vlan_pos(&hv_byte, &hv_bit);
		if (tpid && tmask != 0)
			ps->trace->ok = false;	/* the bit depends on the type */
		else
			trace_bits(ps, KS_L24, hv_byte, 1, hv_bit,
				   TALLY_L24_FLAGS, 1, 7, 1);	/* the C-tag bit */
	}
	if (tmask == 0)
		return 0;
	if (tpid) {
		/* type is the TPID of the tag that follows */
		if (tmask != 0xffff || tpid_bit(type, &bit) != 0)
			return rte_flow_error_set(ps->error, ENOTSUP,
				RTE_FLOW_ERROR_TYPE_ITEM_SPEC, item,
				"eth type before vlan must be a full-mask TPID 0x8100, 0x88a8 or 0x9100");
		return key_imply(ps, item, KS_L24, TALLY_L24_FLAGS, bit, bit);
	}
	return key_set(ps, item, KS_L24, TALLY_L24_ETHERTYPE,
		       (const uint8_t *)&s->hdr.ether_type,
		       (const uint8_t *)&mk->hdr.ether_type, 2);
}

/* ---- vlan ----------------------------------------------------------------- */

/* every vlan field lands in a place that depends on the tag position */
static const struct field_copy vlan_copies[] = {
	{ 0, 0, 0, KS_L24 },
};

static const struct rte_flow_item_vlan vlan_nic_mask = {
	.hdr.vlan_tci = RTE_BE16(0xffff),
	.hdr.eth_proto = RTE_BE16(0xffff),
};

/*
 * The inner_type of the only vlan item. The device's ethertype is the type
 * after the last of up to two tags, so: a TPID names the second tag's kind;
 * any other type is the ethertype, and no second tag may follow.
 */
static int
vlan_first_inner_type(struct parse_state *ps, const struct rte_flow_item *item,
		      const struct rte_flow_item_vlan *s,
		      const struct rte_flow_item_vlan *mk)
{
	uint16_t type = rte_be_to_cpu_16(s->hdr.eth_proto);
	uint8_t c = ps->inner ? TALLY_MISC_F_INNER_SECOND_CVLAN : TALLY_MISC_F_OUTER_SECOND_CVLAN;
	uint8_t sv = ps->inner ? TALLY_MISC_F_INNER_SECOND_SVLAN : TALLY_MISC_F_OUTER_SECOND_SVLAN;
	uint8_t bit;
	int ret;

	if (ps->trace != NULL)
		ps->trace->ok = false;	/* the key's layout depends on the value */
	if (mk->hdr.eth_proto == RTE_BE16(0xffff) && tpid_bit(type, &bit) == 0)
		return key_imply(ps, item, KS_MISC, TALLY_MISC_SECOND_TAGS,
				 type == RTE_ETHER_TYPE_VLAN ? c : sv, c | sv);
	ret = key_imply(ps, item, KS_MISC, TALLY_MISC_SECOND_TAGS, 0, c | sv);
	if (ret == 0)
		ret = key_set(ps, item, KS_L24, TALLY_L24_ETHERTYPE,
			      (const uint8_t *)&s->hdr.eth_proto,
			      (const uint8_t *)&mk->hdr.eth_proto, 2);
	return ret;
}

static int
vlan_extra(struct parse_state *ps, const struct rte_flow_item *item,
	   const void *spec, const void *mask)
{
	const struct rte_flow_item_vlan *s = spec, *mk = mask;
	unsigned int tci_off;
	enum key_sec sec;
	uint8_t bit;
	int ret;

	if (ps->vlans == 0) {
		uint8_t tags = TALLY_L24_F_CVLAN | TALLY_L24_F_SVLAN;
		uint8_t tm = sec_base(&ps->m->mask, ps, KS_L24)[TALLY_L24_FLAGS] & tags;

		sec = KS_L24;
		tci_off = TALLY_L24_VLAN;
		if (tm != 0 && !(sec_base(&ps->m->value, ps, KS_L24)[TALLY_L24_FLAGS] & tm))
			return rte_flow_error_set(ps->error, EINVAL,
				RTE_FLOW_ERROR_TYPE_ITEM, item,
				"vlan item after eth has_vlan is 0");
		/* a vlan item requires a tag; the C-tag bit unless eth named S */
		if (tm == 0) {
			ret = key_imply(ps, item, KS_L24, TALLY_L24_FLAGS,
					TALLY_L24_F_CVLAN, TALLY_L24_F_CVLAN);
			if (ret)
				return ret;
		}
	} else {
		sec = KS_MISC;
		tci_off = ps->inner ? TALLY_MISC_INNER_SECOND_VLAN :
				      TALLY_MISC_OUTER_SECOND_VLAN;
		bit = ps->inner ? TALLY_MISC_F_INNER_SECOND_CVLAN :
				  TALLY_MISC_F_OUTER_SECOND_CVLAN;
		ret = key_imply(ps, item, KS_MISC, TALLY_MISC_SECOND_TAGS, bit, bit);
		if (ret)
			return ret;
	}
	ps->vlans++;
	ret = key_set(ps, item, sec, tci_off, (const uint8_t *)&s->hdr.vlan_tci,
		      (const uint8_t *)&mk->hdr.vlan_tci, 2);
	if (ret)
		return ret;
	if (mk->hdr.eth_proto == 0)
		return 0;
	if (ps->next != NULL && ps->next->type == RTE_FLOW_ITEM_TYPE_VLAN)
		return rte_flow_error_set(ps->error, ENOTSUP,
			RTE_FLOW_ERROR_TYPE_ITEM_MASK, item,
			"vlan inner_type before a second vlan item is not supported");
	if (ps->vlans == 1)
		return vlan_first_inner_type(ps, item, s, mk);
	return key_set(ps, item, KS_L24, TALLY_L24_ETHERTYPE,
		       (const uint8_t *)&s->hdr.eth_proto,
		       (const uint8_t *)&mk->hdr.eth_proto, 2);
}

/* ---- ipv4 ----------------------------------------------------------------- */

static const struct rte_flow_item_ipv4 ipv4_nic_mask = {
	.hdr.type_of_service = 0xff,
	.hdr.fragment_offset = RTE_BE16(0xffff),	/* flags and offset */
	.hdr.time_to_live = 0xff,
	.hdr.next_proto_id = 0xff,
	.hdr.src_addr = RTE_BE32(0xffffffff),
	.hdr.dst_addr = RTE_BE32(0xffffffff),
};

static const struct field_copy ipv4_copies[] = {
	{ offsetof(struct rte_flow_item_ipv4, hdr.type_of_service), TALLY_L24_IP_DSCP_ECN, 1, KS_L24 },
	{ offsetof(struct rte_flow_item_ipv4, hdr.fragment_offset), TALLY_L24_FRAG_DATA, 2, KS_L24 },
	{ offsetof(struct rte_flow_item_ipv4, hdr.time_to_live), TALLY_L24_TTL_HOPLIMIT, 1, KS_L24 },
	{ offsetof(struct rte_flow_item_ipv4, hdr.next_proto_id), TALLY_L24_IP_PROTOCOL, 1, KS_L24 },
	{ offsetof(struct rte_flow_item_ipv4, hdr.src_addr), TALLY_L24_SRC_IPV4, 4, KS_L24 },
	{ offsetof(struct rte_flow_item_ipv4, hdr.dst_addr), TALLY_L24_DST_IPV4, 4, KS_L24 },
};

static int
ipv4_extra(struct parse_state *ps, const struct rte_flow_item *item,
	   const void *spec, const void *mask)
{
	ps->ipver = 4;
	return key_imply(ps, item, KS_L24, TALLY_L24_FLAGS,
			 TALLY_FIELD_PREP(TALLY_L24_F_IPVER_M, 4), TALLY_L24_F_IPVER_M);
}

/* ---- ipv6 ----------------------------------------------------------------- */

static const struct rte_flow_item_ipv6 ipv6_nic_mask = {
	.hdr.vtc_flow = RTE_BE32(0x0fffffff),	/* traffic class, flow label */
	.hdr.proto = 0xff,
	.hdr.hop_limits = 0xff,
	/* braced: uint8_t[16] before 24.11, struct rte_ipv6_addr since */
	.hdr.src_addr = { "\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff" },
	.hdr.dst_addr = { "\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff" },
	.has_frag_ext = 1,
};

static const struct field_copy ipv6_copies[] = {
	{ offsetof(struct rte_flow_item_ipv6, hdr.proto), TALLY_L24_IP_PROTOCOL, 1, KS_L24 },
	{ offsetof(struct rte_flow_item_ipv6, hdr.hop_limits), TALLY_L24_TTL_HOPLIMIT, 1, KS_L24 },
	{ offsetof(struct rte_flow_item_ipv6, hdr.src_addr), TALLY_L24_SRC_IP, 16, KS_L24 },
	{ offsetof(struct rte_flow_item_ipv6, hdr.dst_addr), TALLY_L24_DST_IP, 16, KS_L24 },
};

static int
ipv6_extra(struct parse_state *ps, const struct rte_flow_item *item,
	   const void *spec, const void *mask)
{
	const struct rte_flow_item_ipv6 *s = spec, *mk = mask;
	uint32_t v = rte_be_to_cpu_32(s->hdr.vtc_flow);
	uint32_t m = rte_be_to_cpu_32(mk->hdr.vtc_flow);
	uint8_t tc_v = (uint8_t)(v >> 20), tc_m = (uint8_t)(m >> 20);
	uint8_t fl_v[4] = { 0, (uint8_t)((v >> 16) & 0x0f), (uint8_t)(v >> 8), (uint8_t)v };
	uint8_t fl_m[4] = { 0, (uint8_t)((m >> 16) & 0x0f), (uint8_t)(m >> 8), (uint8_t)m };
	int ret;

	ps->ipver = 6;
	ret = key_imply(ps, item, KS_L24, TALLY_L24_FLAGS,
			TALLY_FIELD_PREP(TALLY_L24_F_IPVER_M, 6), TALLY_L24_F_IPVER_M);
	if (ret == 0)
		ret = key_set(ps, item, KS_L24, TALLY_L24_IP_DSCP_ECN, &tc_v, &tc_m, 1);
	if (ret == 0)
		ret = key_set(ps, item, KS_MISC, ps->inner ?
			      TALLY_MISC_INNER_IPV6_FLOW_LABEL :
			      TALLY_MISC_OUTER_IPV6_FLOW_LABEL, fl_v, fl_m, 4);
	if (unlikely(ps->trace != NULL) && ret == 0) {
		uint32_t vo = offsetof(struct rte_flow_item_ipv6, hdr.vtc_flow);

		/* traffic class: value bits 27..20; flow label: 19..0 */
		if (tc_m != 0)
			trace_bits(ps, KS_L24, vo, 4, 20, TALLY_L24_IP_DSCP_ECN, 1, 0, 8);
		if (m & 0xfffff)
			trace_bits(ps, KS_MISC, vo, 4, 0, ps->inner ?
				   TALLY_MISC_INNER_IPV6_FLOW_LABEL :
				   TALLY_MISC_OUTER_IPV6_FLOW_LABEL, 4, 0, 20);
	}
	if (ret == 0 && mk->has_frag_ext)
		ret = key_imply(ps, item, KS_L24, TALLY_L24_FLAGS,
				s->has_frag_ext ? TALLY_L24_F_FRAG : 0, TALLY_L24_F_FRAG);
	return ret;
}

/* ---- ipv6_frag_ext -------------------------------------------------------- */

static const struct rte_flow_item_ipv6_frag_ext ipv6_frag_ext_nic_mask = {
	.hdr.next_header = 0xff,
	.hdr.frag_data = RTE_BE16(0xffff),
};

/* what DPDK leaves undefined: all the device matches */
static const struct rte_flow_item_ipv6_frag_ext rte_flow_item_ipv6_frag_ext_mask = {
	.hdr.next_header = 0xff,
	.hdr.frag_data = RTE_BE16(0xffff),
};

static const struct field_copy ipv6_frag_ext_copies[] = {
	{ offsetof(struct rte_flow_item_ipv6_frag_ext, hdr.frag_data), TALLY_L24_FRAG_DATA, 2, KS_L24 },
};

static int
ipv6_frag_ext_extra(struct parse_state *ps, const struct rte_flow_item *item,
		    const void *spec, const void *mask)
{
	const struct rte_flow_item_ipv6_frag_ext *s = spec, *mk = mask;
	int ret;

	if (ps->ipver != 6)
		return rte_flow_error_set(ps->error, EINVAL,
			RTE_FLOW_ERROR_TYPE_ITEM, item,
			"ipv6_frag_ext item must follow an ipv6 item");
	/* the device matches the first fragment header of a packet */
	ret = key_imply(ps, item, KS_L24, TALLY_L24_FLAGS, TALLY_L24_F_FRAG,
			TALLY_L24_F_FRAG);
	if (ret == 0)
		ret = key_set(ps, item, KS_MISC, ps->inner ?
			      TALLY_MISC_INNER_IPV6_FRAG_NH : TALLY_MISC_OUTER_IPV6_FRAG_NH,
			      &s->hdr.next_header, &mk->hdr.next_header, 1);
	return ret;
}

/* ---- tcp / udp ------------------------------------------------------------ */

static const struct rte_flow_item_tcp tcp_nic_mask = {
	.hdr.src_port = RTE_BE16(0xffff),
	.hdr.dst_port = RTE_BE16(0xffff),
	.hdr.data_off = 0x01,		/* the NS flag, TCP flag bit 8 */
	.hdr.tcp_flags = 0xff,
};

static const struct field_copy tcp_copies[] = {
	{ offsetof(struct rte_flow_item_tcp, hdr.src_port), TALLY_L24_TCP_SPORT, 2, KS_L24 },
	{ offsetof(struct rte_flow_item_tcp, hdr.dst_port), TALLY_L24_TCP_DPORT, 2, KS_L24 },
	{ offsetof(struct rte_flow_item_tcp, hdr.tcp_flags), TALLY_L24_TCP_FLAGS, 1, KS_L24 },
	/* bit 0 of both bytes */
	{ offsetof(struct rte_flow_item_tcp, hdr.data_off), TALLY_L24_FLAGS, 1, KS_L24 },
};

static int
tcp_extra(struct parse_state *ps, const struct rte_flow_item *item,
	  const void *spec, const void *mask)
{
	return imply_ip_protocol(ps, item, IPPROTO_TCP);
}

static const struct rte_flow_item_udp udp_nic_mask = {
	.hdr.src_port = RTE_BE16(0xffff),
	.hdr.dst_port = RTE_BE16(0xffff),
};

static const struct field_copy udp_copies[] = {
	{ offsetof(struct rte_flow_item_udp, hdr.src_port), TALLY_L24_UDP_SPORT, 2, KS_L24 },
	{ offsetof(struct rte_flow_item_udp, hdr.dst_port), TALLY_L24_UDP_DPORT, 2, KS_L24 },
};

static int
udp_extra(struct parse_state *ps, const struct rte_flow_item *item,
	  const void *spec, const void *mask)
{
	return imply_ip_protocol(ps, item, IPPROTO_UDP);
}

/* ---- icmp / icmp6 ---------------------------------------------------------- */

static const struct rte_flow_item_icmp icmp_nic_mask = {
	.hdr.icmp_type = 0xff,
	.hdr.icmp_code = 0xff,
	.hdr.icmp_ident = RTE_BE16(0xffff),
	.hdr.icmp_seq_nb = RTE_BE16(0xffff),
};

static const struct field_copy icmp_copies[] = {
	{ offsetof(struct rte_flow_item_icmp, hdr.icmp_type), TALLY_MISC3_ICMP_TYPE, 1, KS_MISC3 },
	{ offsetof(struct rte_flow_item_icmp, hdr.icmp_code), TALLY_MISC3_ICMP_CODE, 1, KS_MISC3 },
	{ offsetof(struct rte_flow_item_icmp, hdr.icmp_ident), TALLY_MISC3_ICMP_HEADER_DATA, 4, KS_MISC3 },
};

static int
icmp_extra(struct parse_state *ps, const struct rte_flow_item *item,
	   const void *spec, const void *mask)
{
	if (ps->ipver == 6)
		return rte_flow_error_set(ps->error, EINVAL,
			RTE_FLOW_ERROR_TYPE_ITEM, item, "icmp item after ipv6: use icmp6");
	return imply_ip_protocol(ps, item, IPPROTO_ICMP);
}

static const struct rte_flow_item_icmp6 icmp6_nic_mask = {
	.type = 0xff,
	.code = 0xff,
};

static const struct field_copy icmp6_copies[] = {
	{ offsetof(struct rte_flow_item_icmp6, type), TALLY_MISC3_ICMPV6_TYPE, 1, KS_MISC3 },
	{ offsetof(struct rte_flow_item_icmp6, code), TALLY_MISC3_ICMPV6_CODE, 1, KS_MISC3 },
};

static int
icmp6_extra(struct parse_state *ps, const struct rte_flow_item *item,
	    const void *spec, const void *mask)
{
	if (ps->ipver == 4)
		return rte_flow_error_set(ps->error, EINVAL,
			RTE_FLOW_ERROR_TYPE_ITEM, item, "icmp6 item after ipv4: use icmp");
	return imply_ip_protocol(ps, item, IPPROTO_ICMPV6);
}

/* ---- vxlan ---------------------------------------------------------------- */

static const struct rte_flow_item_vxlan vxlan_nic_mask = {
	.vni = "\xff\xff\xff",
};

static const struct field_copy vxlan_copies[] = {
	{ offsetof(struct rte_flow_item_vxlan, vni), TALLY_MISC_VXLAN_VNI, 3, KS_MISC },
};

static int
vxlan_extra(struct parse_state *ps, const struct rte_flow_item *item,
	    const void *spec, const void *mask)
{
	int ret;

	ret = imply_ip_protocol(ps, item, IPPROTO_UDP);
	if (ret == 0)
		ret = key_imply16(ps, item, KS_L24, TALLY_L24_UDP_DPORT,
				  TALLY_VXLAN_UDP_PORT);
	return ret;
}

/* ---- the catalogue -------------------------------------------------------- */

#define ITEM_R(TYPE, nm, lay, outer, st, copies_, extra_, range_)		\
	{ .type = RTE_FLOW_ITEM_TYPE_##TYPE, .name = #nm, .layer = (lay),	\
	  .outer_only = (outer), .size = sizeof(struct rte_flow_item_##st),	\
	  .nic_mask = &st##_nic_mask, .default_mask = &rte_flow_item_##st##_mask, \
	  .copies = (copies_), .ncopies = RTE_DIM(copies_), .extra = (extra_), \
	  .range_off = (range_) }
#define ITEM(TYPE, nm, lay, outer, st, cp, ex) ITEM_R(TYPE, nm, lay, outer, st, cp, ex, 0)

/* Parsed by devtools/check-flow-doc.sh: each entry starts a line with ITEM( or ITEM_R(. */
static const struct item_desc items[] = {
	ITEM(ETH, eth, LAYER_L2, 0, eth, eth_copies, eth_extra),
	ITEM(ICMP, icmp, LAYER_L4, 1, icmp, icmp_copies, icmp_extra),
	ITEM(ICMP6, icmp6, LAYER_L4, 1, icmp6, icmp6_copies, icmp6_extra),
	ITEM_R(IPV4, ipv4, LAYER_L3, 0, ipv4, ipv4_copies, ipv4_extra,
	       offsetof(struct rte_flow_item_ipv4, hdr.fragment_offset)),
	ITEM(IPV6, ipv6, LAYER_L3, 0, ipv6, ipv6_copies, ipv6_extra),
	ITEM_R(IPV6_FRAG_EXT, ipv6_frag_ext, LAYER_L3_EXT, 0, ipv6_frag_ext,
	       ipv6_frag_ext_copies, ipv6_frag_ext_extra,
	       offsetof(struct rte_flow_item_ipv6_frag_ext, hdr.frag_data)),
	ITEM(TCP, tcp, LAYER_L4, 0, tcp, tcp_copies, tcp_extra),
	ITEM(UDP, udp, LAYER_L4, 0, udp, udp_copies, udp_extra),
	ITEM(VLAN, vlan, LAYER_VLAN, 0, vlan, vlan_copies, vlan_extra),
	ITEM(VXLAN, vxlan, LAYER_TUNNEL, 1, vxlan, vxlan_copies, vxlan_extra),
};

static const struct item_desc *
find_item(enum rte_flow_item_type type)
{
	unsigned int i;

	for (i = 0; i < RTE_DIM(items); i++)
		if (items[i].type == type)
			return &items[i];
	return NULL;
}

int
tally_flow_item_masks(enum rte_flow_item_type type, size_t *size,
		      const void **default_mask)
{
	const struct item_desc *d = find_item(type);

	if (d == NULL)
		return -ENOTSUP;
	*size = d->size;
	*default_mask = d->default_mask;
	return 0;
}

static const struct rte_flow_item *
next_item(const struct rte_flow_item *item)
{
	do {
		item++;
	} while (item->type == RTE_FLOW_ITEM_TYPE_VOID);
	return item->type == RTE_FLOW_ITEM_TYPE_END ? NULL : item;
}

/* Layer order inside one header stack: L2, up to two VLANs, L3, L4, tunnel. */
static int
check_order(struct parse_state *ps, const struct item_desc *d,
	    const struct rte_flow_item *item)
{
	if (ps->inner && d->outer_only)
		return rte_flow_error_set(ps->error, ENOTSUP,
			RTE_FLOW_ERROR_TYPE_ITEM, item,
			d->layer == LAYER_TUNNEL ? "nested tunnels are not supported" :
			"item not supported after vxlan (inner headers)");
	if (d->layer == LAYER_VLAN) {
		if (ps->layer > LAYER_VLAN || ps->vlans >= 2)
			return rte_flow_error_set(ps->error, ENOTSUP,
				RTE_FLOW_ERROR_TYPE_ITEM, item,
				"vlan item must follow eth, at most two per header stack");
		return 0;
	}
	if (d->layer <= ps->layer)
		return rte_flow_error_set(ps->error, EINVAL,
			RTE_FLOW_ERROR_TYPE_ITEM, item,
			"item out of order: each header layer at most once, outermost first");
	return 0;
}

/* True if mask has a bit outside nic; *any tells whether mask has any bit.
 * Word at a time: this runs for every item of every rule created. */
static bool
mask_outside(const uint8_t *mask, const uint8_t *nic, size_t size, bool *any)
{
	uint64_t m, n, bad = 0, all = 0;
	size_t i;

	for (i = 0; i + 8 <= size; i += 8) {
		memcpy(&m, mask + i, 8);
		memcpy(&n, nic + i, 8);
		bad |= m & ~n;
		all |= m;
	}
	for (; i < size; i++) {
		bad |= mask[i] & ~nic[i];
		all |= mask[i];
	}
	*any = all != 0;
	return bad != 0;
}

/* ---- ranges -------------------------------------------------------------- */

/*
 * A range (last) on a 16-bit fragment field: lo <= (field & mask) <= hi.
 * The device matches the field under a value/mask and, per header stack,
 * the frag bit and two offset classes (offset >= 1, offset >= 8, in 8-byte
 * units). A range is accepted when exactly the fields it allows pass one
 * such match: the tightest match holding every allowed field is found, and
 * it must allow no other. The field has 2^16 values, so both are counted.
 */
enum { RC_FRAG = 1, RC_OFF1 = 2, RC_OFF8 = 4 };

struct frag_range {
	uint16_t v, m;		/* the field's value/mask */
	uint8_t cv, cm;		/* RC_* classes: value/mask */
};

static uint8_t
frag_classes(uint16_t x, bool ipv6)
{
	/* IPv4: flags 15:13, offset 12:0; IPv6 frag_data: offset 15:3, M 0 */
	uint16_t off = ipv6 ? (uint16_t)(x >> 3) : (uint16_t)(x & 0x1fff);
	bool frag = ipv6 || (x & 0x3fff) != 0;

	return (uint8_t)((frag ? RC_FRAG : 0) | (off >= 1 ? RC_OFF1 : 0) |
			 (off >= 8 ? RC_OFF8 : 0));
}

static int
frag_range_solve(uint16_t lo, uint16_t hi, uint16_t mask, bool ipv6,
		 struct frag_range *r)
{
	uint32_t x, in = 0, fit = 0;
	uint16_t ones = 0xffff, seen = 0;
	uint8_t cand = 0xff, cor = 0, c;

	for (x = 0; x <= 0xffff; x++) {
		uint16_t f = (uint16_t)x & mask;

		if (f < lo || f > hi)
			continue;
		in++;
		ones &= (uint16_t)x;
		seen |= (uint16_t)x;
		c = frag_classes((uint16_t)x, ipv6);
		cand &= c;
		cor |= c;
	}
	if (in == 0)
		return -EINVAL;
	r->m = (uint16_t)~(ones ^ seen);
	r->v = ones & r->m;
	r->cm = (uint8_t)(~(cand ^ cor) & (RC_FRAG | RC_OFF1 | RC_OFF8));
	r->cv = cand & r->cm;
	for (x = 0; x <= 0xffff; x++)
		if (((uint16_t)x & r->m) == r->v &&
		    (frag_classes((uint16_t)x, ipv6) & r->cm) == r->cv)
			fit++;
	return fit == in ? 0 : -ENOTSUP;
}

/* Match the range of item's range field; the item's copies skip it. */
static int
key_range(struct parse_state *ps, const struct item_desc *d,
	  const struct rte_flow_item *item, uint16_t lo, uint16_t hi, uint16_t mask)
{
	bool ipv6 = d->type == RTE_FLOW_ITEM_TYPE_IPV6_FRAG_EXT;
	uint8_t off1 = ps->inner ? TALLY_MISC_F_INNER_FRAG_OFF1 : TALLY_MISC_F_OUTER_FRAG_OFF1;
	uint8_t off8 = ps->inner ? TALLY_MISC_F_INNER_FRAG_OFF8 : TALLY_MISC_F_OUTER_FRAG_OFF8;
	uint8_t v[2], m[2], cv, cm;
	struct frag_range r;
	int ret;

	ret = frag_range_solve(lo & mask, hi & mask, mask, ipv6, &r);
	if (ret == -EINVAL)
		return rte_flow_error_set(ps->error, EINVAL,
			RTE_FLOW_ERROR_TYPE_ITEM_LAST, item->last,
			"empty range: last is below spec under the mask");
	if (ret != 0)
		return rte_flow_error_set(ps->error, ENOTSUP,
			RTE_FLOW_ERROR_TYPE_ITEM_LAST, item->last,
			"fragment range not matchable: the device matches a value/mask, fragment or not, and offset >= 1 or >= 8 (8-byte units)");
	v[0] = (uint8_t)(r.v >> 8);
	v[1] = (uint8_t)r.v;
	m[0] = (uint8_t)(r.m >> 8);
	m[1] = (uint8_t)r.m;
	ret = key_set(ps, item, KS_L24, TALLY_L24_FRAG_DATA, v, m, 2);
	if (ret == 0 && (r.cm & RC_FRAG))
		ret = key_imply(ps, item, KS_L24, TALLY_L24_FLAGS,
				(r.cv & RC_FRAG) ? TALLY_L24_F_FRAG : 0, TALLY_L24_F_FRAG);
	/* the offset classes of this header stack */
	cm = (uint8_t)((r.cm & RC_OFF1 ? off1 : 0) | (r.cm & RC_OFF8 ? off8 : 0));
	cv = (uint8_t)((r.cv & RC_OFF1 ? off1 : 0) | (r.cv & RC_OFF8 ? off8 : 0));
	if (ret == 0 && cm != 0)
		ret = key_set(ps, item, KS_MISC, TALLY_MISC_FRAG_CLASS, &cv, &cm, 1);
	return ret;
}

static inline uint16_t
rd_be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

/*
 * An item's last: ignored where it is zero or equal to spec (rte_flow's
 * rule), a range on the item's range field, refused anywhere else.
 * *range tells whether the range field is a range.
 */
static int
check_last(struct parse_state *ps, const struct item_desc *d,
	   const struct rte_flow_item *item, bool *range)
{
	const uint8_t *last = item->last, *spec = item->spec;
	bool zero = true, same = true;
	size_t i, ro = d->range_off;

	*range = false;
	if (spec == NULL)
		return rte_flow_error_set(ps->error, EINVAL,
			RTE_FLOW_ERROR_TYPE_ITEM_LAST, last, "last without spec");
	for (i = 0; i < d->size; i++) {
		if (ro != 0 && (i == ro || i == ro + 1))
			continue;
		zero &= last[i] == 0;
		same &= last[i] == spec[i];
	}
	if (!zero && !same)
		return rte_flow_error_set(ps->error, ENOTSUP,
			RTE_FLOW_ERROR_TYPE_ITEM_LAST, last,
			d->range_off != 0 ?
			"ranges (last) are supported on the fragment field only" :
			"ranges (last) are not supported on this item");
	if (ro != 0) {
		uint16_t l = rd_be16(last + ro);

		*range = l != 0 && l != rd_be16(spec + ro);
	}
	return 0;
}

static int
parse_item(struct parse_state *ps, const struct item_desc *d,
	   const struct rte_flow_item *item)
{
	static const uint8_t zero[sizeof(struct rte_flow_item_ipv6)];
	const uint8_t *spec = item->spec, *mask = item->mask;
	const uint8_t *nic = d->nic_mask;
	bool any, range = false;
	unsigned int i;
	int ret;

	if (item->last != NULL) {
		ret = check_last(ps, d, item, &range);
		if (ret)
			return ret;
	}
	if (spec == NULL) {
		spec = zero;
		mask = zero;
	} else if (mask == NULL) {
		mask = d->default_mask;
	}
	ps->spec_lo = item->spec;
	ps->spec_hi = item->spec != NULL ? spec + d->size : NULL;
	if (mask_outside(mask, nic, d->size, &any))
		return rte_flow_error_set(ps->error, ENOTSUP,
			RTE_FLOW_ERROR_TYPE_ITEM_MASK, item,
			"mask covers a field the device cannot match");
	if (range) {
		const uint8_t *l = item->last;

		ret = key_range(ps, d, item, rd_be16(spec + d->range_off),
				rd_be16(l + d->range_off), rd_be16(mask + d->range_off));
		if (ret)
			return ret;
	}
	for (i = 0; any && i < d->ncopies; i++) {
		const struct field_copy *c = &d->copies[i];

		if (c->len == 0 || (range && c->item_off == d->range_off))
			continue;
		ret = key_set(ps, item, c->sec, c->key_off, spec + c->item_off,
			      mask + c->item_off, c->len);
		if (ret)
			return ret;
	}
	return d->extra != NULL ? d->extra(ps, item, spec, mask) : 0;
}

static int
parse_pattern(const struct rte_flow_item pattern[], struct tally_flow_match *m,
	      struct tally_flow_trace *trace, struct rte_flow_error *error)
{
	const struct rte_flow_item *item;
	struct parse_state ps;
	int ret;

	memset(m, 0, sizeof(*m));
	memset(&ps, 0, sizeof(ps));
	ps.m = m;
	ps.trace = trace;
	ps.error = error;
	if (pattern == NULL)
		return rte_flow_error_set(error, EINVAL,
			RTE_FLOW_ERROR_TYPE_ITEM_NUM, NULL, "NULL pattern");
	for (item = pattern; item->type != RTE_FLOW_ITEM_TYPE_END; item++) {
		const struct item_desc *d;

		if (item->type == RTE_FLOW_ITEM_TYPE_VOID)
			continue;
		d = find_item(item->type);
		if (d == NULL)
			return rte_flow_error_set(error, ENOTSUP,
				RTE_FLOW_ERROR_TYPE_ITEM, item, "item type not supported");
		ret = check_order(&ps, d, item);
		if (ret)
			return ret;
		ps.next = next_item(item);
		ps.item_idx = (uint8_t)(item - pattern);
		ret = parse_item(&ps, d, item);
		if (ret)
			return ret;
		if (d->layer == LAYER_TUNNEL) {
			ps.inner = 1;
			ps.layer = 0;
			ps.vlans = 0;
			ps.ipver = 0;
		} else if (d->layer != LAYER_VLAN) {
			ps.layer = d->layer;
		} else {
			ps.layer = LAYER_L2;
		}
	}
	/* TCP and UDP rules with the same port masks share a matcher: every
	 * user of a parsed pattern (rules, templates, key builders) sees the
	 * same placement */
	tally_steer_merge_ports(&m->mask, &m->value);
	return 0;
}

int
tally_flow_parse_pattern(const struct rte_flow_item pattern[],
			 struct tally_flow_match *m, struct rte_flow_error *error)
{
	return parse_pattern(pattern, m, NULL, error);
}

int
tally_flow_parse_trace(const struct rte_flow_item pattern[], struct tally_flow_match *m,
		       struct tally_flow_trace *trace)
{
	struct rte_flow_error err;

	memset(trace, 0, sizeof(*trace));
	trace->ok = true;
	if (parse_pattern(pattern, m, trace, &err) != 0)
		return -EINVAL;
	return trace->ok ? 0 : -ENOTSUP;
}

/* ---- attributes ------------------------------------------------------------ */

#define TALLY_FLOW_MAX_PRIORITY	0xffff

int
tally_flow_parse_attr(const struct rte_flow_attr *attr,
		      const struct tally_flow_limits *lim,
		      struct rte_flow_error *error)
{
	if (attr == NULL)
		return rte_flow_error_set(error, EINVAL,
			RTE_FLOW_ERROR_TYPE_ATTR, NULL, "NULL attributes");
	if (attr->egress)
		return rte_flow_error_set(error, ENOTSUP,
			RTE_FLOW_ERROR_TYPE_ATTR_EGRESS, attr,
			"egress rules are not supported");
	if (attr->transfer)
		return rte_flow_error_set(error, ENOTSUP,
			RTE_FLOW_ERROR_TYPE_ATTR_TRANSFER, attr,
			"transfer rules go to the device's switch (rte_flow_create, validate)");
	if (!attr->ingress)
		return rte_flow_error_set(error, EINVAL,
			RTE_FLOW_ERROR_TYPE_ATTR_INGRESS, attr,
			"rules must be ingress");
	if (attr->group >= lim->max_groups)
		return rte_flow_error_set(error, ENOTSUP,
			RTE_FLOW_ERROR_TYPE_ATTR_GROUP, attr,
			"group beyond the device's table count");
	if (attr->priority > TALLY_FLOW_MAX_PRIORITY)
		return rte_flow_error_set(error, ENOTSUP,
			RTE_FLOW_ERROR_TYPE_ATTR_PRIORITY, attr,
			"priority above 65535");
	return 0;
}

/* ---- actions --------------------------------------------------------------- */

struct rss_hf_map {
	uint64_t eth;
	uint32_t dev;
};

static const struct rss_hf_map rss_hf_map[] = {
	{ RTE_ETH_RSS_IPV4 | RTE_ETH_RSS_FRAG_IPV4 | RTE_ETH_RSS_NONFRAG_IPV4_OTHER,
	  TALLY_RSS_HF_IPV4 },
	{ RTE_ETH_RSS_NONFRAG_IPV4_TCP, TALLY_RSS_HF_IPV4_TCP },
	{ RTE_ETH_RSS_NONFRAG_IPV4_UDP, TALLY_RSS_HF_IPV4_UDP },
	/* _EX: hashed on the fixed header's addresses, as the port-level RSS
	 * does (RTE_ETH_RSS_IP, the default types, includes IPV6_EX) */
	{ RTE_ETH_RSS_IPV6 | RTE_ETH_RSS_FRAG_IPV6 | RTE_ETH_RSS_NONFRAG_IPV6_OTHER |
	  RTE_ETH_RSS_IPV6_EX, TALLY_RSS_HF_IPV6 },
	{ RTE_ETH_RSS_NONFRAG_IPV6_TCP | RTE_ETH_RSS_IPV6_TCP_EX, TALLY_RSS_HF_IPV6_TCP },
	{ RTE_ETH_RSS_NONFRAG_IPV6_UDP | RTE_ETH_RSS_IPV6_UDP_EX, TALLY_RSS_HF_IPV6_UDP },
};

/* The device's hash types of ethdev's; *left: the types it has none for. */
static uint32_t
rss_map(uint64_t types, uint64_t *left)
{
	uint32_t dev = 0;
	unsigned int i;

	*left = types;
	for (i = 0; i < RTE_DIM(rss_hf_map); i++) {
		if (types & rss_hf_map[i].eth) {
			dev |= rss_hf_map[i].dev;
			*left &= ~rss_hf_map[i].eth;
		}
	}
	return dev;
}

uint32_t
tally_rss_hf_to_dev(uint64_t rss_hf)
{
	uint64_t left;

	return rss_map(rss_hf, &left);
}

static int
act_fate(struct tally_flow_acts *a, const struct rte_flow_action *act,
	 enum tally_steer_fate fate, uint32_t arg, struct rte_flow_error *error)
{
	if (a->fate != NULL)
		return rte_flow_error_set(error, ENOTSUP,
			RTE_FLOW_ERROR_TYPE_ACTION, act,
			"more than one fate action (queue, rss, drop, jump, passthru)");
	a->fate = act;
	a->act.fate = fate;
	a->act.arg = arg;
	return 0;
}

static int
act_rss(struct tally_flow_acts *a, const struct rte_flow_action *act,
	const struct tally_flow_limits *lim, struct rte_flow_error *error)
{
	const struct rte_flow_action_rss *rss = act->conf;
	uint64_t types, left;
	unsigned int i;

	if (rss == NULL)
		return rte_flow_error_set(error, EINVAL,
			RTE_FLOW_ERROR_TYPE_ACTION_CONF, act, "rss needs a configuration");
	if (rss->func != RTE_ETH_HASH_FUNCTION_DEFAULT &&
	    rss->func != RTE_ETH_HASH_FUNCTION_TOEPLITZ)
		return rte_flow_error_set(error, ENOTSUP,
			RTE_FLOW_ERROR_TYPE_ACTION_CONF, act,
			"rss hash function must be default or toeplitz");
	if (rss->level > 1)
		return rte_flow_error_set(error, ENOTSUP,
			RTE_FLOW_ERROR_TYPE_ACTION_CONF, act,
			"rss on inner headers is not supported");
	if (rss->key_len != 0 && (rss->key_len != TALLY_RSS_KEY_LEN || rss->key == NULL ||
				  memcmp(rss->key, lim->rss_key, TALLY_RSS_KEY_LEN) != 0))
		return rte_flow_error_set(error, ENOTSUP,
			RTE_FLOW_ERROR_TYPE_ACTION_CONF, act,
			"rss key must be empty or equal the port key");
	if (rss->queue_num == 0 || rss->queue_num > TALLY_FLOW_MAX_RSS_QUEUES ||
	    rss->queue == NULL)
		return rte_flow_error_set(error, ENOTSUP,
			RTE_FLOW_ERROR_TYPE_ACTION_CONF, act,
			"rss needs 1 to 16 queues");
	for (i = 0; i < rss->queue_num; i++) {
		if (rss->queue[i] >= lim->nb_rx_queues)
			return rte_flow_error_set(error, EINVAL,
				RTE_FLOW_ERROR_TYPE_ACTION_CONF, act,
				"rss queue index out of range");
		a->rss_queues[i] = rss->queue[i];
	}
	a->rss_nq = (uint16_t)rss->queue_num;
	types = rss->types ? rss->types : RTE_ETH_RSS_IP;
	a->rss_hf = rss_map(types, &left);
	if (left != 0)
		return rte_flow_error_set(error, ENOTSUP,
			RTE_FLOW_ERROR_TYPE_ACTION_CONF, act,
			"rss types beyond ipv4/ipv6 with tcp/udp ports are not supported");
	return act_fate(a, act, TALLY_STEER_FATE_RSS, 0, error);
}

static int
act_void(struct tally_flow_acts *a, const struct rte_flow_action *act,
	 const struct tally_flow_limits *lim, struct rte_flow_error *error)
{
	return 0;
}

/* count and indirect (an indirect COUNT handle) */
static int
act_count(struct tally_flow_acts *a, const struct rte_flow_action *act,
	  const struct tally_flow_limits *lim, struct rte_flow_error *error)
{
	if (a->count != NULL || a->indirect != NULL)
		return rte_flow_error_set(error, ENOTSUP,
			RTE_FLOW_ERROR_TYPE_ACTION, act,
			"one count (inline or indirect) per rule");
	if (act->type == RTE_FLOW_ACTION_TYPE_COUNT) {
		a->count = act;
	} else {
		if (act->conf == NULL)
			return rte_flow_error_set(error, EINVAL,
				RTE_FLOW_ERROR_TYPE_ACTION_CONF, act,
				"indirect action needs a handle");
		a->indirect = act;
	}
	a->act.flags |= TALLY_STEER_A_COUNT;
	return 0;
}

static int
act_age(struct tally_flow_acts *a, const struct rte_flow_action *act,
	const struct tally_flow_limits *lim, struct rte_flow_error *error)
{
	const struct rte_flow_action_age *age = act->conf;

	if (a->age != NULL)
		return rte_flow_error_set(error, ENOTSUP,
			RTE_FLOW_ERROR_TYPE_ACTION, act, "one age per rule");
	if (age == NULL)
		return rte_flow_error_set(error, EINVAL,
			RTE_FLOW_ERROR_TYPE_ACTION_CONF, act, "age needs a timeout");
	if (age->timeout == 0)
		return rte_flow_error_set(error, EINVAL,
			RTE_FLOW_ERROR_TYPE_ACTION_CONF, act,
			"age timeout must be at least 1 second");
	if (age->reserved != 0)
		return rte_flow_error_set(error, EINVAL,
			RTE_FLOW_ERROR_TYPE_ACTION_CONF, act,
			"age reserved bits must be zero");
	a->age = act;
	return 0;
}

/* mark and flag */
static int
act_mark(struct tally_flow_acts *a, const struct rte_flow_action *act,
	 const struct tally_flow_limits *lim, struct rte_flow_error *error)
{
	bool mark = act->type == RTE_FLOW_ACTION_TYPE_MARK;

	if (mark && act->conf == NULL)
		return rte_flow_error_set(error, EINVAL,
			RTE_FLOW_ERROR_TYPE_ACTION_CONF, act, "mark needs an id");
	if (a->act.flags & (TALLY_STEER_A_MARK | TALLY_STEER_A_FLAG))
		return rte_flow_error_set(error, ENOTSUP,
			RTE_FLOW_ERROR_TYPE_ACTION, act,
			"one mark or flag per rule");
	if (!mark) {
		a->act.flags |= TALLY_STEER_A_FLAG;
		return 0;
	}
	a->act.flags |= TALLY_STEER_A_MARK;
	a->act.mark = ((const struct rte_flow_action_mark *)act->conf)->id;
	return 0;
}

static int
act_queue(struct tally_flow_acts *a, const struct rte_flow_action *act,
	  const struct tally_flow_limits *lim, struct rte_flow_error *error)
{
	const struct rte_flow_action_queue *q = act->conf;

	if (q == NULL)
		return rte_flow_error_set(error, EINVAL,
			RTE_FLOW_ERROR_TYPE_ACTION_CONF, act, "queue needs an index");
	if (q->index >= lim->nb_rx_queues)
		return rte_flow_error_set(error, EINVAL,
			RTE_FLOW_ERROR_TYPE_ACTION_CONF, act,
			"queue index out of range");
	return act_fate(a, act, TALLY_STEER_FATE_QUEUE, q->index, error);
}

static int
act_drop(struct tally_flow_acts *a, const struct rte_flow_action *act,
	 const struct tally_flow_limits *lim, struct rte_flow_error *error)
{
	return act_fate(a, act, TALLY_STEER_FATE_DROP, 0, error);
}

static int
act_passthru(struct tally_flow_acts *a, const struct rte_flow_action *act,
	     const struct tally_flow_limits *lim, struct rte_flow_error *error)
{
	return act_fate(a, act, TALLY_STEER_FATE_PASSTHRU, 0, error);
}

static int
act_jump(struct tally_flow_acts *a, const struct rte_flow_action *act,
	 const struct tally_flow_limits *lim, struct rte_flow_error *error)
{
	const struct rte_flow_action_jump *j = act->conf;

	if (j == NULL)
		return rte_flow_error_set(error, EINVAL,
			RTE_FLOW_ERROR_TYPE_ACTION_CONF, act, "jump needs a group");
	if (j->group >= lim->max_groups)
		return rte_flow_error_set(error, ENOTSUP,
			RTE_FLOW_ERROR_TYPE_ACTION_CONF, act,
			"jump group beyond the device's table count");
	return act_fate(a, act, TALLY_STEER_FATE_JUMP, j->group, error);
}

typedef int (*act_fn)(struct tally_flow_acts *a, const struct rte_flow_action *act,
		      const struct tally_flow_limits *lim, struct rte_flow_error *error);

/* The actions the device has, one per line: the parser, the templates
 * (tally_flow_action_supported()) and devtools/check-flow-doc.sh (against
 * features/tally.ini) all read this table. */
#define ACTION(TYPE, fn)	[RTE_FLOW_ACTION_TYPE_##TYPE] = (fn)
static const act_fn action_table[] = {
	ACTION(VOID, act_void),
	ACTION(COUNT, act_count),
	ACTION(INDIRECT, act_count),
	ACTION(AGE, act_age),
	ACTION(MARK, act_mark),
	ACTION(FLAG, act_mark),
	ACTION(QUEUE, act_queue),
	ACTION(RSS, act_rss),
	ACTION(DROP, act_drop),
	ACTION(PASSTHRU, act_passthru),
	ACTION(JUMP, act_jump),
};

static inline act_fn
action_fn(enum rte_flow_action_type type)
{
	return (unsigned int)type < RTE_DIM(action_table) ? action_table[type] : NULL;
}

bool
tally_flow_action_supported(enum rte_flow_action_type type)
{
	return action_fn(type) != NULL;
}

int
tally_flow_parse_actions(const struct rte_flow_action actions[],
			 const struct tally_flow_limits *lim,
			 struct tally_flow_acts *a, struct rte_flow_error *error)
{
	const struct rte_flow_action *act;
	int ret;

	memset(a, 0, sizeof(*a));
	if (actions == NULL)
		return rte_flow_error_set(error, EINVAL,
			RTE_FLOW_ERROR_TYPE_ACTION_NUM, NULL, "NULL action list");
	for (act = actions; act->type != RTE_FLOW_ACTION_TYPE_END; act++) {
		act_fn fn = action_fn(act->type);

		if (fn == NULL)
			return rte_flow_error_set(error, ENOTSUP,
				RTE_FLOW_ERROR_TYPE_ACTION, act, "action type not supported");
		ret = fn(a, act, lim, error);
		if (ret)
			return ret;
	}
	if (a->age != NULL && a->indirect != NULL)
		return rte_flow_error_set(error, ENOTSUP,
			RTE_FLOW_ERROR_TYPE_ACTION, a->age,
			"age watches the rule's own counter: not with an indirect count");
	if (a->age != NULL)
		a->act.flags |= TALLY_STEER_A_COUNT;
	if (a->act.fate == TALLY_STEER_FATE_DROP &&
	    (a->act.flags & (TALLY_STEER_A_MARK | TALLY_STEER_A_FLAG)))
		return rte_flow_error_set(error, ENOTSUP,
			RTE_FLOW_ERROR_TYPE_ACTION, a->fate,
			"mark or flag with drop has no effect");
	return 0;
}
