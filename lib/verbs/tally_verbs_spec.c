/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The parsing half of ibv_create_flow and mlx5dv flow matchers, with no
 * DPDK and no library state (the fuzz targets of test/fuzz call it as is):
 * ibv_flow_spec lists and fte_match_param buffers into the device's match
 * key. The rules of the walk are in tally_verbs_flow.c's header comment.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "tally_verbs_spec.h"

/* Largest spec accepted (the biggest libibverbs spec, IPv6, is 88 bytes;
 * variable-size filters may carry zero padding). */
#define SPEC_MAX_SIZE	512

#define TALLY_MLX5_MATCH_MAX	640

static void
key_set(struct tally_verbs_spec_key *fp, uint32_t off, const void *val, const void *mask,
	uint32_t len)
{
	const uint8_t *v = val, *m = mask;
	uint32_t i;

	for (i = 0; i < len; i++) {
		fp->mask[off + i] |= m[i];
		fp->value[off + i] = (uint8_t)((fp->value[off + i] & ~m[i]) | (v[i] & m[i]));
	}
}

static void
key_set_u8(struct tally_verbs_spec_key *fp, uint32_t off, uint8_t val, uint8_t mask)
{
	key_set(fp, off, &val, &mask, 1);
}

static void
ip_version(struct tally_verbs_spec_key *fp, uint32_t sec, uint8_t ver)
{
	key_set_u8(fp, sec + TALLY_L24_FLAGS, (uint8_t)(ver << 1), TALLY_L24_F_IPVER_M);
}

/* Variable-size filter: fs = (size - 8) / 2 must cover `known` bytes, which
 * are copied to val and mask (the mask half may sit at any alignment). */
static int
var_filter(const uint8_t *spec, uint16_t size, uint32_t known, void *val,
	   void *mask)
{
	const uint8_t *m;
	uint32_t fs, i;

	if (size < 8)
		return EINVAL;
	fs = (uint32_t)(size - 8) / 2;
	if (fs < known)
		return EINVAL;
	m = spec + 8 + fs;
	for (i = known; i < fs; i++)
		if (m[i] != 0)
			return EOPNOTSUPP;
	memcpy(val, spec + 8, known);
	memcpy(mask, m, known);
	return 0;
}

static int
spec_eth(struct tally_verbs_spec_key *fp, const struct ibv_flow_spec_eth *s, uint32_t sec)
{
	if (s->size < sizeof(*s))
		return EINVAL;
	key_set(fp, sec + TALLY_L24_DMAC, s->val.dst_mac, s->mask.dst_mac, 6);
	key_set(fp, sec + TALLY_L24_SMAC, s->val.src_mac, s->mask.src_mac, 6);
	key_set(fp, sec + TALLY_L24_ETHERTYPE, &s->val.ether_type,
		&s->mask.ether_type, 2);
	if (s->mask.vlan_tag) {
		key_set(fp, sec + TALLY_L24_VLAN, &s->val.vlan_tag, &s->mask.vlan_tag, 2);
		key_set_u8(fp, sec + TALLY_L24_FLAGS, TALLY_L24_F_CVLAN, TALLY_L24_F_CVLAN);
	}
	return 0;
}

static int
spec_ipv4(struct tally_verbs_spec_key *fp, const struct ibv_flow_spec_ipv4 *s, uint32_t sec)
{
	if (s->size < sizeof(*s))
		return EINVAL;
	key_set(fp, sec + TALLY_L24_SRC_IPV4, &s->val.src_ip, &s->mask.src_ip, 4);
	key_set(fp, sec + TALLY_L24_DST_IPV4, &s->val.dst_ip, &s->mask.dst_ip, 4);
	ip_version(fp, sec, 4);
	return 0;
}

static int
spec_ipv4_ext(struct tally_verbs_spec_key *fp, const uint8_t *spec, uint16_t size, uint32_t sec)
{
	struct ibv_flow_ipv4_ext_filter v, m;
	int rc = var_filter(spec, size, sizeof(v), &v, &m);

	if (rc)
		return rc;
	if (m.flags)
		return EOPNOTSUPP;
	key_set(fp, sec + TALLY_L24_SRC_IPV4, &v.src_ip, &m.src_ip, 4);
	key_set(fp, sec + TALLY_L24_DST_IPV4, &v.dst_ip, &m.dst_ip, 4);
	key_set(fp, sec + TALLY_L24_IP_PROTOCOL, &v.proto, &m.proto, 1);
	key_set(fp, sec + TALLY_L24_IP_DSCP_ECN, &v.tos, &m.tos, 1);
	key_set(fp, sec + TALLY_L24_TTL_HOPLIMIT, &v.ttl, &m.ttl, 1);
	ip_version(fp, sec, 4);
	return 0;
}

static int
spec_ipv6(struct tally_verbs_spec_key *fp, const uint8_t *spec, uint16_t size, uint32_t sec,
	  bool inner)
{
	struct ibv_flow_ipv6_filter v, m;
	uint32_t lv, lm;
	int rc = var_filter(spec, size, sizeof(v), &v, &m);

	if (rc)
		return rc;
	key_set(fp, sec + TALLY_L24_SRC_IP, v.src_ip, m.src_ip, 16);
	key_set(fp, sec + TALLY_L24_DST_IP, v.dst_ip, m.dst_ip, 16);
	key_set(fp, sec + TALLY_L24_IP_PROTOCOL, &v.next_hdr, &m.next_hdr, 1);
	key_set(fp, sec + TALLY_L24_IP_DSCP_ECN, &v.traffic_class, &m.traffic_class, 1);
	key_set(fp, sec + TALLY_L24_TTL_HOPLIMIT, &v.hop_limit, &m.hop_limit, 1);
	lm = ntohl(m.flow_label);
	if (lm & ~0xfffffu)
		return EINVAL;
	if (lm) {
		lv = htonl(ntohl(v.flow_label) & lm);
		lm = htonl(lm);
		key_set(fp, TALLY_MK(TALLY_MS_MISC, inner ? TALLY_MISC_INNER_IPV6_FLOW_LABEL :
				     TALLY_MISC_OUTER_IPV6_FLOW_LABEL), &lv, &lm, 4);
	}
	ip_version(fp, sec, 6);
	return 0;
}

static int
spec_l4(struct tally_verbs_spec_key *fp, const struct ibv_flow_spec_tcp_udp *s, uint32_t sec,
	bool tcp)
{
	if (s->size < sizeof(*s))
		return EINVAL;
	key_set(fp, sec + (tcp ? TALLY_L24_TCP_DPORT : TALLY_L24_UDP_DPORT),
		&s->val.dst_port, &s->mask.dst_port, 2);
	key_set(fp, sec + (tcp ? TALLY_L24_TCP_SPORT : TALLY_L24_UDP_SPORT),
		&s->val.src_port, &s->mask.src_port, 2);
	key_set_u8(fp, sec + TALLY_L24_IP_PROTOCOL, tcp ? 6 : 17, 0xff);
	return 0;
}

static int
spec_vxlan(struct tally_verbs_spec_key *fp, const uint8_t *spec, uint16_t size)
{
	struct ibv_flow_tunnel_filter v, m;
	uint32_t vv, vm;
	int rc = var_filter(spec, size, sizeof(v), &v, &m);

	if (rc)
		return rc;
	vm = ntohl(m.tunnel_id);
	if (vm & ~0xffffffu)
		return EINVAL;
	vv = htonl(ntohl(v.tunnel_id) << 8);
	vm = htonl(vm << 8);
	key_set(fp, TALLY_MK(TALLY_MS_MISC, TALLY_MISC_VXLAN_VNI), &vv, &vm, 3);
	return 0;
}

int
tally_verbs_spec_walk(struct tally_verbs_spec_key *fp, const struct ibv_flow_attr *attr,
		      tally_verbs_spec_action_fn action, void *arg)
{
	const uint8_t *p = (const uint8_t *)(attr + 1);
	/* Specs follow each other at their hdr.size, so in a packed buffer
	 * (as the man pages build them) they are not aligned: each is copied
	 * into an aligned buffer before its fields are read. */
	union {
		struct ibv_flow_spec s;
		uint8_t raw[SPEC_MAX_SIZE];
	} buf;
	const struct ibv_flow_spec *s = &buf.s;
	unsigned int i;
	int rc = 0;

	for (i = 0; i < attr->num_of_specs && rc == 0; i++) {
		struct ibv_flow_spec_hdr_wire {
			uint32_t type;
			uint16_t size;
		} hdr;
		uint32_t type, sec;
		bool inner;

		memcpy(&hdr.type, p, sizeof(hdr.type));
		memcpy(&hdr.size, p + offsetof(struct ibv_flow_spec_eth, size),
		       sizeof(hdr.size));
		if (hdr.size < sizeof(s->hdr) || hdr.size > sizeof(buf))
			return EINVAL;
		memset(&buf, 0, sizeof(buf));
		memcpy(&buf, p, hdr.size);
		type = s->hdr.type & ~(uint32_t)IBV_FLOW_SPEC_INNER;
		inner = (s->hdr.type & IBV_FLOW_SPEC_INNER) != 0;
		sec = TALLY_MS_OFF(inner ? TALLY_MS_INNER : TALLY_MS_OUTER);
		switch (type) {
		case IBV_FLOW_SPEC_ETH:
			rc = spec_eth(fp, &s->eth, sec);
			break;
		case IBV_FLOW_SPEC_IPV4:
			rc = spec_ipv4(fp, &s->ipv4, sec);
			break;
		case IBV_FLOW_SPEC_IPV4_EXT:
			rc = spec_ipv4_ext(fp, buf.raw, s->hdr.size, sec);
			break;
		case IBV_FLOW_SPEC_IPV6:
			rc = spec_ipv6(fp, buf.raw, s->hdr.size, sec, inner);
			break;
		case IBV_FLOW_SPEC_TCP:
		case IBV_FLOW_SPEC_UDP:
			rc = spec_l4(fp, &s->tcp_udp, sec, type == IBV_FLOW_SPEC_TCP);
			break;
		case IBV_FLOW_SPEC_ESP:
		case IBV_FLOW_SPEC_MPLS:
			rc = EOPNOTSUPP;	/* known, not matched by the device */
			break;
		case IBV_FLOW_SPEC_VXLAN_TUNNEL:
			rc = inner ? EINVAL : spec_vxlan(fp, buf.raw, s->hdr.size);
			break;
		case IBV_FLOW_SPEC_GRE:
			rc = inner ? EINVAL : EOPNOTSUPP;
			break;
		default:
			rc = inner ? EINVAL : action(arg, s, type);
			break;
		}
		p += hdr.size;
	}
	return rc;
}

/* Zero-extend p into key; EINVAL for a bad size or a non-zero tail. */
int
tally_verbs_match_copy(const struct mlx5dv_flow_match_parameters *p, uint8_t *key)
{
	const uint8_t *b;
	size_t i;

	if (p == NULL || p->match_sz == 0 || p->match_sz > TALLY_MLX5_MATCH_MAX)
		return EINVAL;
	b = (const uint8_t *)p->match_buf;
	memset(key, 0, TALLY_MATCH_KEY_LEN);
	memcpy(key, b, p->match_sz < TALLY_MATCH_KEY_LEN ? p->match_sz : TALLY_MATCH_KEY_LEN);
	for (i = TALLY_MATCH_KEY_LEN; i < p->match_sz; i++)
		if (b[i] != 0)
			return EINVAL;
	return 0;
}

int
tally_verbs_match_criteria(const uint8_t *mask, uint8_t criteria)
{
	unsigned int s, i;

	for (s = 0; s < TALLY_MATCH_SECTIONS; s++) {
		bool enabled = s < 7 && (criteria & (1u << s));

		for (i = 0; i < TALLY_MATCH_SECTION_LEN && !enabled; i++)
			if (mask[TALLY_MS_OFF(s) + i] != 0)
				return EINVAL;
	}
	return 0;
}
