/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Completion counters (rdma-core 65, IBVERBS_1.18; verbs-api.md §3): an
 * entry of the device's completion-counter bank. Attached to a QP with
 * op_mask SEND it counts the completions of the QP's Tx queue, with RECV
 * those of its Rx queue (counted by the device). Reads are plain loads of
 * the bank entry.
 */
#include <string.h>

#include "tally_verbs_priv.h"

#define TALLY_VERBS_CC_OPS	(IBV_QP_ATTACH_COMP_CNTR_OP_SEND | \
				 IBV_QP_ATTACH_COMP_CNTR_OP_RECV)

int
_ibv_query_comp_cntr_caps(struct ibv_context *context,
			  struct ibv_comp_cntr_caps *caps, size_t caps_size)
{
	struct tally_verbs_ctx *ctx = tally_verbs_ctx_of(context);
	struct ibv_comp_cntr_caps c;
	int n;

	if (ctx == NULL || caps == NULL)
		return EINVAL;
	memset(caps, 0, caps_size);
	if (caps_size < sizeof(c))
		return EINVAL;
	n = rte_pmd_tally_ccnt_num(ctx->port_id);
	if (n <= 0)
		return EOPNOTSUPP;
	c.max_value = UINT64_MAX;
	c.max_counters = (uint32_t)n;
	c.supported_qp_attach_ops = TALLY_VERBS_CC_OPS;
	memcpy(caps, &c, sizeof(c));
	return 0;
}

struct ibv_comp_cntr *
ibv_create_comp_cntr(struct ibv_context *context,
		     struct ibv_comp_cntr_init_attr *attr)
{
	struct tally_verbs_ctx *ctx = tally_verbs_ctx_of(context);
	struct tally_verbs_comp_cntr *cc;
	int rc;

	if (ctx == NULL || attr == NULL) {
		errno = EINVAL;
		return NULL;
	}
	if (attr->comp_mask != 0 || attr->flags != 0 ||
	    attr->type != IBV_COMP_CNTR_TYPE_WRS) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	cc = tally_verbs_handle_new(sizeof(*cc), ctx);
	if (cc == NULL)
		return NULL;
	cc->port_id = ctx->port_id;
	rc = rte_pmd_tally_ccnt_alloc(cc->port_id, &cc->id);
	if (rc) {
		tally_verbs_handle_put(cc);
		errno = rc == -ENOSPC ? ENOMEM : -rc;
		return NULL;
	}
	cc->ibcc.context = context;
	cc->ibcc.handle = cc->id;
	tally_verbs_handle_publish(cc, TALLY_VERBS_T_COMP_CNTR);
	return &cc->ibcc;
}

int
ibv_destroy_comp_cntr(struct ibv_comp_cntr *ibcc)
{
	struct tally_verbs_comp_cntr *cc;
	int rc;

	pthread_mutex_lock(&tally_verbs_lock);
	cc = tally_verbs_cc_of(ibcc);
	if (cc == NULL)
		rc = EINVAL;
	else if (cc->attached)
		rc = EBUSY;
	else
		rc = -rte_pmd_tally_ccnt_free(cc->port_id, cc->id);
	if (rc == 0 && !tally_verbs_handle_kill(cc, TALLY_VERBS_T_COMP_CNTR))
		rc = EINVAL;
	pthread_mutex_unlock(&tally_verbs_lock);
	if (rc == 0)
		tally_verbs_handle_put(cc);
	return rc;
}

static int
cc_update(struct ibv_comp_cntr *ibcc, enum rte_pmd_tally_ccnt_op op, uint64_t v)
{
	struct tally_verbs_comp_cntr *cc = tally_verbs_cc_of(ibcc);

	if (cc == NULL)
		return EINVAL;
	return -rte_pmd_tally_ccnt_update(cc->port_id, cc->id, op, v);
}

/* The exported updates, one operation each: set or add to the count or
 * the error count. */
#define CC_UPDATE_ENTRY(name, op)					\
	int name(struct ibv_comp_cntr *cc, uint64_t v) { return cc_update(cc, op, v); }

CC_UPDATE_ENTRY(ibv_set_comp_cntr, RTE_PMD_TALLY_CCNT_SET)
CC_UPDATE_ENTRY(ibv_set_err_comp_cntr, RTE_PMD_TALLY_CCNT_SET_ERR)
CC_UPDATE_ENTRY(ibv_inc_comp_cntr, RTE_PMD_TALLY_CCNT_ADD)
CC_UPDATE_ENTRY(ibv_inc_err_comp_cntr, RTE_PMD_TALLY_CCNT_ADD_ERR)

static int
cc_read(struct ibv_comp_cntr *ibcc, uint64_t *value, bool err)
{
	struct tally_verbs_comp_cntr *cc = tally_verbs_cc_of(ibcc);
	uint64_t c, e;
	int rc;

	if (cc == NULL || value == NULL)
		return EINVAL;
	rc = rte_pmd_tally_ccnt_read(cc->port_id, cc->id, &c, &e);
	if (rc)
		return -rc;
	*value = err ? e : c;
	return 0;
}

int
ibv_read_comp_cntr(struct ibv_comp_cntr *cc, uint64_t *value)
{
	return cc_read(cc, value, false);
}

int
ibv_read_err_comp_cntr(struct ibv_comp_cntr *cc, uint64_t *value)
{
	return cc_read(cc, value, true);
}

int
ibv_qp_attach_comp_cntr(struct ibv_qp *ibqp, struct ibv_comp_cntr *ibcc,
			struct ibv_qp_attach_comp_cntr_attr *attr)
{
	struct tally_verbs_comp_cntr *cc;
	struct tally_verbs_qp *qp;
	uint32_t ops;
	int rc = 0;

	pthread_mutex_lock(&tally_verbs_lock);
	qp = tally_verbs_qp_of(ibqp);
	cc = tally_verbs_cc_of(ibcc);
	if (qp == NULL || cc == NULL || attr == NULL || attr->comp_mask != 0 ||
	    attr->op_mask == 0) {
		rc = EINVAL;		/* stale or foreign handles, malformed attr */
		goto out;
	}
	ops = attr->op_mask;
	/* bits outside SEND and RECV, defined (RDMA) or not: not supported,
	 * ENOTSUP as the man page says */
	if (ops & ~(uint32_t)TALLY_VERBS_CC_OPS) {
		rc = ENOTSUP;
		goto out;
	}
	if (cc->port_id != qp->port_id ||
	    (ibqp->state != IBV_QPS_RESET && ibqp->state != IBV_QPS_INIT)) {
		rc = EINVAL;
		goto out;
	}
	if (((ops & IBV_QP_ATTACH_COMP_CNTR_OP_SEND) && qp->cc_send != NULL) ||
	    ((ops & IBV_QP_ATTACH_COMP_CNTR_OP_RECV) && qp->cc_recv != NULL)) {
		rc = EBUSY;
		goto out;
	}
	if (ops & IBV_QP_ATTACH_COMP_CNTR_OP_SEND) {
		rc = -rte_pmd_tally_ccnt_attach(qp->port_id, cc->id,
						RTE_PMD_TALLY_CCNT_TX, qp->txq);
		if (rc)
			goto out;
		qp->cc_send = cc;
		cc->attached++;
	}
	if (ops & IBV_QP_ATTACH_COMP_CNTR_OP_RECV) {
		rc = -rte_pmd_tally_ccnt_attach(qp->port_id, cc->id,
						RTE_PMD_TALLY_CCNT_RX, qp->rxq);
		if (rc) {
			if (ops & IBV_QP_ATTACH_COMP_CNTR_OP_SEND) {
				rte_pmd_tally_ccnt_detach(qp->port_id,
							  RTE_PMD_TALLY_CCNT_TX, qp->txq);
				qp->cc_send = NULL;
				cc->attached--;
			}
			goto out;
		}
		qp->cc_recv = cc;
		cc->attached++;
	}
out:
	pthread_mutex_unlock(&tally_verbs_lock);
	return rc;
}
