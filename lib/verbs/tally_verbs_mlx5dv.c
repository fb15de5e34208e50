/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mlx5dv flow matchers and flows: fte_match_param buffers go to the device
 * unchanged (the Tally match key is that layout). Short buffers are
 * zero-extended to 512 bytes; buffers may be up to 640 bytes (the kernel's
 * mlx5_ib_match_params) with the tail beyond 512 zero.
 *
 * Actions: DEST_IBV_QP, DROP, DEFAULT_MISS, TAG. Every flow counts into a
 * private flow counter, read with tally_verbs_flow_read(). DEVX objects
 * (DEST_DEVX, COUNTERS_DEVX, COUNTERS_DEVX_WITH_OFFSET) are not provided:
 * EOPNOTSUPP, as for IBV_COUNTER (never implemented by mlx5) and
 * IBV_FLOW_ACTION.
 *
 * Two entry points for flows, as rdma-core >= 60.2: mlx5dv_create_flow
 * (MLX5_1.6) strides the action array by 16 bytes (the legacy struct),
 * __mlx5dv_create_flow (MLX5_1.25.1) by the caller's sizeof.
 */
#include <stdlib.h>
#include <string.h>

#include <tally/tally_match.h>

#include "tally_verbs_priv.h"
#include "tally_verbs_spec.h"

#define TALLY_MLX5_LEGACY_STRIDE 16
#define TALLY_MLX5_ACT_WITH_OFFSET 8	/* MLX5DV_FLOW_ACTION_COUNTERS_DEVX_WITH_OFFSET */

struct mlx5dv_flow_matcher *
mlx5dv_create_flow_matcher(struct ibv_context *context,
			   struct mlx5dv_flow_matcher_attr *attr)
{
	struct tally_verbs_ctx *ctx = tally_verbs_ctx_of(context);
	struct tally_verbs_matcher *m;
	int rc;

	if (ctx == NULL || attr == NULL) {
		errno = EINVAL;
		return NULL;
	}
	if (attr->comp_mask & ~(uint64_t)MLX5DV_FLOW_MATCHER_MASK_FT_TYPE ||
	    attr->type != IBV_FLOW_ATTR_NORMAL) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	if ((attr->comp_mask & MLX5DV_FLOW_MATCHER_MASK_FT_TYPE) &&
	    attr->ft_type != MLX5DV_FLOW_TABLE_TYPE_NIC_RX) {
		errno = EOPNOTSUPP;	/* only the NIC Rx domain is steered */
		return NULL;
	}
	if (attr->flags & ~(uint32_t)IBV_FLOW_ATTR_FLAGS_EGRESS) {
		errno = EINVAL;
		return NULL;
	}
	if (attr->flags & IBV_FLOW_ATTR_FLAGS_EGRESS) {
		errno = EOPNOTSUPP;	/* the device has no Tx steering */
		return NULL;
	}
	m = tally_verbs_handle_new(sizeof(*m), ctx);
	if (m == NULL)
		return NULL;
	rc = tally_verbs_match_copy(attr->match_mask, m->mask);
	/* mask bits only in sections match_criteria_enable turns on */
	if (rc == 0)
		rc = tally_verbs_match_criteria(m->mask, attr->match_criteria_enable);
	if (rc) {
		tally_verbs_handle_put(m);
		errno = rc;
		return NULL;
	}
	m->context = context;
	m->port_id = ctx->port_id;
	m->priority = attr->priority;
	m->criteria = attr->match_criteria_enable;
	tally_verbs_handle_publish(m, TALLY_VERBS_T_MATCHER);
	return (struct mlx5dv_flow_matcher *)m;
}

/* EBUSY while flows use it (the kernel's answer for mlx5): it is kept. */
int
mlx5dv_destroy_flow_matcher(struct mlx5dv_flow_matcher *matcher)
{
	struct tally_verbs_matcher *m;
	int rc = 0;

	pthread_mutex_lock(&tally_verbs_lock);
	m = tally_verbs_matcher_of(matcher);
	if (m == NULL)
		rc = EINVAL;
	else if (m->flows > 0)
		rc = EBUSY;
	else if (!tally_verbs_handle_kill(m, TALLY_VERBS_T_MATCHER))
		rc = EINVAL;
	pthread_mutex_unlock(&tally_verbs_lock);
	if (rc == 0)
		tally_verbs_handle_put(m);
	return rc;
}

/* Reserve (under the lock) a use of a live matcher for a new flow. */
static struct tally_verbs_matcher *
matcher_get(struct mlx5dv_flow_matcher *matcher)
{
	struct tally_verbs_matcher *m;

	pthread_mutex_lock(&tally_verbs_lock);
	m = tally_verbs_matcher_of(matcher);
	if (m != NULL)
		m->flows++;
	pthread_mutex_unlock(&tally_verbs_lock);
	return m;
}

static void
matcher_put(struct tally_verbs_matcher *m)
{
	pthread_mutex_lock(&tally_verbs_lock);
	m->flows--;
	pthread_mutex_unlock(&tally_verbs_lock);
}

struct ibv_flow *
__mlx5dv_create_flow(struct mlx5dv_flow_matcher *matcher,
		     struct mlx5dv_flow_match_parameters *match_value,
		     size_t num_actions, struct mlx5dv_flow_action_attr actions_attr[],
		     size_t attr_len)
{
	struct tally_verbs_matcher *m;
	struct rte_pmd_tally_rule_attr act = { .fate = RTE_PMD_TALLY_FATE_NONE };
	uint8_t value[TALLY_MATCH_KEY_LEN];
	struct tally_verbs_qp *qp = NULL;
	struct mlx5dv_devx_obj *devx = NULL;
	unsigned int dests = 0;
	struct ibv_flow *f;
	bool tagged = false;
	size_t i;
	int rc;

	if (attr_len < TALLY_MLX5_LEGACY_STRIDE || (num_actions > 0 && actions_attr == NULL)) {
		errno = EINVAL;
		return NULL;
	}
	m = matcher_get(matcher);
	if (m == NULL) {
		errno = EINVAL;
		return NULL;
	}
	rc = tally_verbs_match_copy(match_value, value);
	for (i = 0; rc == 0 && i < TALLY_MATCH_KEY_LEN; i++)
		if (value[i] & ~m->mask[i])
			rc = EINVAL;	/* value bits outside the mask */
	for (i = 0; rc == 0 && i < num_actions; i++) {
		const struct mlx5dv_flow_action_attr *a = (const void *)
			((const uint8_t *)actions_attr + i * attr_len);

		switch ((int)a->type) {
		case MLX5DV_FLOW_ACTION_DEST_IBV_QP:
			qp = tally_verbs_qp_of(a->qp);
			if (qp == NULL || qp->ibqp.qp_type != IBV_QPT_RAW_PACKET ||
			    qp->port_id != m->port_id) {
				rc = EINVAL;
				break;
			}
			act.fate = RTE_PMD_TALLY_FATE_QUEUE;
			act.queue = qp->rxq;
			dests++;
			break;
		case MLX5DV_FLOW_ACTION_DROP:
			act.fate = RTE_PMD_TALLY_FATE_DROP;
			dests++;
			break;
		case MLX5DV_FLOW_ACTION_DEFAULT_MISS:
			act.fate = RTE_PMD_TALLY_FATE_DEFAULT;
			dests++;
			break;
		case MLX5DV_FLOW_ACTION_COUNTERS_DEVX:
			if (devx != NULL ||
			    tally_verbs_devx_counter(a->obj, m->port_id, &act.counter) != 0) {
				rc = devx != NULL ? EOPNOTSUPP : EINVAL;
				break;
			}
			devx = a->obj;
			act.flags |= RTE_PMD_TALLY_RULE_COUNT;
			break;
		case MLX5DV_FLOW_ACTION_TAG:
			if (tagged) {
				rc = EINVAL;
				break;
			}
			tagged = true;
			act.flags |= RTE_PMD_TALLY_RULE_MARK;
			act.mark = a->tag_value;
			break;
		default:	/* IBV_COUNTER, IBV_FLOW_ACTION, DEVX, unknown */
			rc = EOPNOTSUPP;
			break;
		}
		if (rc == 0 && dests > 1)
			rc = EOPNOTSUPP;
	}
	if (rc) {
		matcher_put(m);
		errno = rc;
		return NULL;
	}
	/* with a DEVX counter the flow counts there, else into its own */
	f = tally_verbs_flow_install(to_tally_ctx(m->context), qp, m->port_id,
				     m->mask, value, m->priority, &act, NULL, devx == NULL);
	if (f == NULL) {
		rc = errno;
		matcher_put(m);
		errno = rc;
		return NULL;
	}
	pthread_mutex_lock(&tally_verbs_lock);
	to_tally_flow(f)->matcher = m;	/* its use is the one reserved */
	if (devx != NULL) {
		to_tally_flow(f)->devx = devx;
		tally_verbs_devx_use(devx, 1);
	}
	pthread_mutex_unlock(&tally_verbs_lock);
	return f;
}

struct ibv_flow *
mlx5dv_create_flow(struct mlx5dv_flow_matcher *matcher,
		   struct mlx5dv_flow_match_parameters *match_value,
		   size_t num_actions, struct mlx5dv_flow_action_attr actions_attr[])
{
	return __mlx5dv_create_flow(matcher, match_value, num_actions, actions_attr,
				    TALLY_MLX5_LEGACY_STRIDE);
}
