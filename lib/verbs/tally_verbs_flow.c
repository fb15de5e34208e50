/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ibv_create_flow / ibv_destroy_flow: ibv_flow_spec lists translated into
 * the device's match key (fte_match_param layout) and installed as one raw
 * rule per flow (rte_pmd_tally_rule_create), steering to the QP's Rx queue.
 *
 * The spec walk copies libibverbs: num_of_specs specs starting right after
 * the attr, each advanced by its hdr.size; attr->size and attr->comp_mask
 * are not used; IPV4_EXT, IPV6 and VXLAN_TUNNEL have a variable filter size
 * ((hdr.size - 8) / 2; smaller than ours -> EINVAL, larger only with zero
 * extra mask bytes, else EOPNOTSUPP); INNER only on header specs; unknown
 * type -> EINVAL. Values are ANDed with their masks. Implied fields are set
 * like mlx5 does: IPv4/IPv6 specs match ip_version, TCP/UDP specs match the
 * IP protocol, a VLAN TCI mask matches "has a customer VLAN tag".
 */
#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>

#include <tally/tally_match.h>

#include "tally_verbs_priv.h"

/* Largest spec accepted (the biggest libibverbs spec, IPv6, is 88 bytes;
 * variable-size filters may carry zero padding). */
#define SPEC_MAX_SIZE	512

struct flow_parse {
	uint8_t mask[TALLY_MATCH_KEY_LEN];
	uint8_t value[TALLY_MATCH_KEY_LEN];
	struct rte_pmd_tally_rule_attr act;
	struct tally_verbs_counters *cnt;
	unsigned int ncount;
	bool tagged;
};

static void
key_set(struct flow_parse *fp, uint32_t off, const void *val, const void *mask,
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
key_set_u8(struct flow_parse *fp, uint32_t off, uint8_t val, uint8_t mask)
{
	key_set(fp, off, &val, &mask, 1);
}

static void
ip_version(struct flow_parse *fp, uint32_t sec, uint8_t ver)
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
spec_eth(struct flow_parse *fp, const struct ibv_flow_spec_eth *s, uint32_t sec)
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
spec_ipv4(struct flow_parse *fp, const struct ibv_flow_spec_ipv4 *s, uint32_t sec)
{
	if (s->size < sizeof(*s))
		return EINVAL;
	key_set(fp, sec + TALLY_L24_SRC_IPV4, &s->val.src_ip, &s->mask.src_ip, 4);
	key_set(fp, sec + TALLY_L24_DST_IPV4, &s->val.dst_ip, &s->mask.dst_ip, 4);
	ip_version(fp, sec, 4);
	return 0;
}

static int
spec_ipv4_ext(struct flow_parse *fp, const uint8_t *spec, uint16_t size, uint32_t sec)
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
spec_ipv6(struct flow_parse *fp, const uint8_t *spec, uint16_t size, uint32_t sec,
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
spec_l4(struct flow_parse *fp, const struct ibv_flow_spec_tcp_udp *s, uint32_t sec,
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
spec_vxlan(struct flow_parse *fp, const uint8_t *spec, uint16_t size)
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

static int
spec_action(struct flow_parse *fp, const struct ibv_flow_spec *s, uint32_t type,
	    struct tally_verbs_qp *qp)
{
	switch (type) {
	case IBV_FLOW_SPEC_ACTION_TAG:
		if (s->hdr.size < sizeof(s->flow_tag) || fp->tagged)
			return EINVAL;
		fp->tagged = true;
		fp->act.flags |= RTE_PMD_TALLY_RULE_MARK;
		fp->act.mark = s->flow_tag.tag_id;
		return 0;
	case IBV_FLOW_SPEC_ACTION_DROP:
		if (s->hdr.size < sizeof(s->drop))
			return EINVAL;
		fp->act.fate = RTE_PMD_TALLY_FATE_DROP;
		return 0;
	case IBV_FLOW_SPEC_ACTION_COUNT:
		if (s->hdr.size < sizeof(s->flow_count) || ++fp->ncount > 1)
			return EINVAL;
		fp->cnt = tally_verbs_counters_of(s->flow_count.counters);
		if (fp->cnt == NULL)
			return EINVAL;	/* destroyed, or never ours */
		if (fp->cnt->npoints == 0 || fp->cnt->port_id != qp->port_id)
			return EINVAL;	/* attach was never called / other device */
		return 0;
	case IBV_FLOW_SPEC_ACTION_HANDLE:
		return EOPNOTSUPP;
	default:
		return EINVAL;
	}
}

static int
flow_parse(struct flow_parse *fp, struct ibv_flow_attr *attr,
	   struct tally_verbs_qp *qp)
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
			rc = inner ? EINVAL : spec_action(fp, s, type, qp);
			break;
		}
		p += hdr.size;
	}
	return rc;
}

struct ibv_flow *
tally_verbs_flow_install(struct tally_verbs_ctx *ctx, struct tally_verbs_qp *qp,
			 uint16_t port_id,
			 const uint8_t *mask, const uint8_t *value,
			 uint16_t priority, const struct rte_pmd_tally_rule_attr *act,
			 struct tally_verbs_counters *cnt, bool own_counter)
{
	struct rte_pmd_tally_rule_attr a = *act;
	struct tally_verbs_flow *f;
	int rc = 0;

	f = tally_verbs_handle_new(sizeof(*f), ctx);
	if (f == NULL)
		return NULL;
	a.priority = priority;
	pthread_mutex_lock(&tally_verbs_lock);
	/* what the flow pins must still be live now that the lock is held */
	if ((qp != NULL && !tally_verbs_handle_ok(qp, TALLY_VERBS_T_QP)) ||
	    (cnt != NULL && !tally_verbs_handle_ok(cnt, TALLY_VERBS_T_COUNTERS)))
		rc = EINVAL;
	else if (cnt != NULL) {
		rc = tally_verbs_counters_bind(cnt, &a.counter);
		a.flags |= RTE_PMD_TALLY_RULE_COUNT;
	} else if (own_counter) {
		rc = -rte_pmd_tally_counter_alloc(port_id, &a.counter);
		a.flags |= RTE_PMD_TALLY_RULE_COUNT;
	}
	if (rc == 0) {
		rc = -rte_pmd_tally_rule_create(port_id, mask, value, &a, &f->rule);
		if (rc && cnt != NULL)
			tally_verbs_counters_unbind(cnt);
		if (rc && own_counter)
			rte_pmd_tally_counter_free(port_id, a.counter);
	}
	if (rc == 0 && qp != NULL)
		qp->flows++;
	pthread_mutex_unlock(&tally_verbs_lock);
	if (rc) {
		tally_verbs_handle_put(f);
		errno = rc == ENOSPC ? ENOMEM : rc;
		return NULL;
	}
	f->port_id = port_id;
	f->qp = qp;
	f->cnt = cnt;
	f->own_counter = own_counter;
	f->counter = a.counter;
	f->ibflow.context = &ctx->vctx.context;
	tally_verbs_handle_publish(f, TALLY_VERBS_T_FLOW);
	return &f->ibflow;
}

struct ibv_flow *
tally_verbs_create_flow(struct ibv_qp *ibqp, struct ibv_flow_attr *attr)
{
	struct tally_verbs_qp *qp = tally_verbs_qp_of(ibqp);
	struct flow_parse fp;
	int rc;

	if (qp == NULL || attr == NULL || ibqp->qp_type != IBV_QPT_RAW_PACKET) {
		errno = EINVAL;
		return NULL;
	}
	if (attr->type != IBV_FLOW_ATTR_NORMAL) {
		errno = EOPNOTSUPP;	/* default/sniffer domains: not modelled */
		return NULL;
	}
	if (attr->flags & ~(uint32_t)(IBV_FLOW_ATTR_FLAGS_DONT_TRAP |
				      IBV_FLOW_ATTR_FLAGS_EGRESS)) {
		errno = EINVAL;
		return NULL;
	}
	if (attr->flags) {
		errno = EOPNOTSUPP;	/* no Tx steering, no deliver-and-continue */
		return NULL;
	}
	if (attr->port != 1) {
		errno = EINVAL;
		return NULL;
	}
	memset(&fp, 0, sizeof(fp));
	fp.act.fate = RTE_PMD_TALLY_FATE_QUEUE;
	fp.act.queue = qp->rxq;
	rc = flow_parse(&fp, attr, qp);
	if (rc) {
		errno = rc;
		return NULL;
	}
	return tally_verbs_flow_install(qp->ctx, qp, qp->port_id, fp.mask, fp.value,
					attr->priority, &fp.act, fp.cnt, false);
}

int
tally_verbs_destroy_flow(struct ibv_flow *ibflow)
{
	struct tally_verbs_flow *f;
	int rc;

	pthread_mutex_lock(&tally_verbs_lock);
	f = tally_verbs_flow_of(ibflow);
	rc = f == NULL ? EINVAL : -rte_pmd_tally_rule_destroy(f->port_id, f->rule);
	if (rc == 0 && !tally_verbs_handle_kill(f, TALLY_VERBS_T_FLOW))
		rc = EINVAL;
	if (rc == 0) {
		if (f->cnt != NULL)
			tally_verbs_counters_unbind(f->cnt);
		if (f->own_counter)
			rte_pmd_tally_counter_free(f->port_id, f->counter);
		if (f->devx != NULL)
			tally_verbs_devx_use(f->devx, -1);
		if (f->qp != NULL)
			f->qp->flows--;
		if (f->matcher != NULL)
			f->matcher->flows--;
	}
	pthread_mutex_unlock(&tally_verbs_lock);
	if (rc == 0)
		tally_verbs_handle_put(f);
	return rc;
}

int
tally_verbs_flow_read(struct ibv_flow *ibflow, uint64_t *packets, uint64_t *bytes)
{
	struct tally_verbs_flow *f = tally_verbs_flow_of(ibflow);
	uint32_t id;

	if (f == NULL || packets == NULL || bytes == NULL)
		return EINVAL;
	if (f->cnt != NULL && f->cnt->has_dev)
		id = f->cnt->dev_id;
	else if (f->own_counter || f->devx != NULL)
		id = f->counter;
	else
		return EINVAL;
	return -rte_pmd_tally_counter_read(f->port_id, id, packets, bytes);
}
