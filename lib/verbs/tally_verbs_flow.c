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
 * IP protocol, a VLAN TCI mask matches "has a customer VLAN tag". The walk
 * over header specs is tally_verbs_spec.c; action specs are parsed here.
 */
#include <stdlib.h>
#include <string.h>

#include <tally/tally_match.h>

#include "tally_verbs_priv.h"
#include "tally_verbs_spec.h"

struct flow_parse {
	struct tally_verbs_spec_key key;
	struct tally_verbs_qp *qp;
	struct rte_pmd_tally_rule_attr act;
	struct tally_verbs_counters *cnt;
	unsigned int ncount;
	bool tagged;
};

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
flow_action(void *arg, const struct ibv_flow_spec *s, uint32_t type)
{
	struct flow_parse *fp = arg;

	return spec_action(fp, s, type, fp->qp);
}

static int
flow_parse(struct flow_parse *fp, struct ibv_flow_attr *attr,
	   struct tally_verbs_qp *qp)
{
	fp->qp = qp;
	return tally_verbs_spec_walk(&fp->key, attr, flow_action, fp);
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
	return tally_verbs_flow_install(qp->ctx, qp, qp->port_id, fp.key.mask, fp.key.value,
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
