/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * RAW_PACKET QPs: creation on a PD with a send and a receive CQ, the state
 * machine of ibv_modify_qp, query and destroy. A QP holds a use of its PD
 * and of both CQs (they refuse destruction with EBUSY meanwhile); every
 * handle passed in is checked before use.
 */
#include <stdlib.h>
#include <string.h>

#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "tally_verbs_priv.h"

static int
cq_add_rq(struct tally_verbs_cq *cq, struct tally_verbs_qp *qp)
{
	if (cq->nb_rq >= TALLY_VERBS_MAX_Q)
		return ENOMEM;
	cq->rq[cq->nb_rq++] = qp;
	return 0;
}

static void
cq_del_rq(struct tally_verbs_cq *cq, struct tally_verbs_qp *qp)
{
	unsigned int i;

	for (i = 0; i < cq->nb_rq; i++)
		if (cq->rq[i] == qp) {
			cq->rq[i] = cq->rq[--cq->nb_rq];
			return;
		}
}

/* Free whatever waits in the QP's Rx queue. */
static void
qp_drain(struct tally_verbs_qp *qp)
{
	struct rte_mbuf *m[32];
	uint16_t n, i;

	do {
		n = rte_eth_rx_burst(qp->port_id, qp->rxq, m, 32);
		for (i = 0; i < n; i++)
			rte_pktmbuf_free(m[i]);
	} while (n > 0);
}

/* The QP's PD and CQs, live and of this context, take one use each (under
 * tally_verbs_lock). */
static int
qp_take_parts(struct tally_verbs_qp *qp, struct tally_verbs_ctx *c,
	      struct ibv_pd *ibpd, const struct ibv_qp_init_attr *a)
{
	struct tally_verbs_pd *pd = tally_verbs_pd_of(ibpd);
	struct tally_verbs_cq *scq = tally_verbs_cq_of(a->send_cq);
	struct tally_verbs_cq *rcq = tally_verbs_cq_of(a->recv_cq);
	struct ibv_context *context = &c->vctx.context;
	int rc;

	if (pd == NULL || scq == NULL || rcq == NULL || pd->ibpd.context != context ||
	    scq->ibcq.context != context || rcq->ibcq.context != context)
		return EINVAL;
	rc = cq_add_rq(rcq, qp);
	if (rc)
		return rc;
	pd->users++;
	scq->users++;
	rcq->users++;
	qp->pd = pd;
	qp->scq = scq;
	qp->rcq = rcq;
	return 0;
}

static void
qp_put_parts(struct tally_verbs_qp *qp)
{
	cq_del_rq(qp->rcq, qp);
	qp->pd->users--;
	qp->scq->users--;
	qp->rcq->users--;
}

static struct ibv_qp *
qp_create(struct tally_verbs_ctx *c, struct ibv_pd *pd, struct ibv_qp_init_attr *a)
{
	struct tally_verbs_qp *qp;
	uint32_t rsize = 16;
	uint16_t q;
	int rc;

	if (a->qp_type != IBV_QPT_RAW_PACKET) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (a->srq != NULL) {
		errno = EINVAL;		/* no SRQ can be ours */
		return NULL;
	}
	if (a->cap.max_send_wr > TALLY_VERBS_MAX_WR ||
	    a->cap.max_recv_wr > TALLY_VERBS_MAX_WR ||
	    a->cap.max_send_sge > TALLY_VERBS_MAX_SGE ||
	    a->cap.max_recv_sge > TALLY_VERBS_MAX_SGE) {
		errno = EINVAL;
		return NULL;
	}
	while (rsize < a->cap.max_recv_wr + 1)
		rsize <<= 1;
	qp = tally_verbs_handle_new(sizeof(*qp), c);
	if (qp == NULL)
		return NULL;
	qp->rwr = calloc(rsize, sizeof(*qp->rwr));
	if (qp->rwr == NULL) {
		tally_verbs_handle_put(qp);
		errno = ENOMEM;
		return NULL;
	}
	pthread_mutex_lock(&tally_verbs_lock);
	rc = qp_take_parts(qp, c, pd, a);
	if (rc == 0) {
		rc = tally_verbs_queue_get(c->dev->port, &q);
		if (rc)
			qp_put_parts(qp);
	}
	pthread_mutex_unlock(&tally_verbs_lock);
	if (rc) {
		free(qp->rwr);
		tally_verbs_handle_put(qp);
		errno = rc < 0 ? -rc : rc;
		return NULL;
	}
	qp->ctx = c;
	qp->port = c->dev->port;
	qp->port_id = c->port_id;
	qp->rxq = q;
	qp->txq = q;
	qp->rwr_size = rsize;
	qp->max_send_wr = a->cap.max_send_wr;
	qp->max_send_sge = a->cap.max_send_sge;
	qp->max_recv_sge = a->cap.max_recv_sge;
	qp->sq_sig_all = a->sq_sig_all != 0;
	qp->ibqp.context = &c->vctx.context;
	qp->ibqp.qp_context = a->qp_context;
	qp->ibqp.pd = pd;
	qp->ibqp.send_cq = a->send_cq;
	qp->ibqp.recv_cq = a->recv_cq;
	qp->ibqp.qp_num = 0x100u + (uint32_t)c->port_id * TALLY_VERBS_MAX_Q + q;
	qp->ibqp.handle = qp->ibqp.qp_num;
	qp->ibqp.state = IBV_QPS_RESET;
	qp->ibqp.qp_type = IBV_QPT_RAW_PACKET;
	pthread_mutex_init(&qp->ibqp.mutex, NULL);
	pthread_cond_init(&qp->ibqp.cond, NULL);
	qp_drain(qp);
	tally_verbs_handle_publish(qp, TALLY_VERBS_T_QP);
	return &qp->ibqp;
}

struct ibv_qp *
ibv_create_qp(struct ibv_pd *pd, struct ibv_qp_init_attr *attr)
{
	struct tally_verbs_pd *p = tally_verbs_pd_of(pd);
	struct tally_verbs_ctx *c = p != NULL ? tally_verbs_ctx_of(p->ibpd.context) : NULL;

	if (c == NULL || attr == NULL) {
		errno = EINVAL;
		return NULL;
	}
	return qp_create(c, pd, attr);
}

struct ibv_qp *
tally_verbs_create_qp_ex(struct ibv_context *context,
			 struct ibv_qp_init_attr_ex *ax)
{
	struct tally_verbs_ctx *c = tally_verbs_ctx_of(context);
	struct ibv_qp_init_attr a;

	if (c == NULL || ax == NULL) {
		errno = EINVAL;
		return NULL;
	}
	/* create_flags 0 asks for nothing: accepted */
	if ((ax->comp_mask & ~(uint32_t)(IBV_QP_INIT_ATTR_PD |
					 IBV_QP_INIT_ATTR_CREATE_FLAGS)) ||
	    ((ax->comp_mask & IBV_QP_INIT_ATTR_CREATE_FLAGS) &&
	     ax->create_flags != 0)) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (!(ax->comp_mask & IBV_QP_INIT_ATTR_PD) || ax->pd == NULL) {
		errno = EINVAL;
		return NULL;
	}
	memset(&a, 0, sizeof(a));
	a.qp_context = ax->qp_context;
	a.send_cq = ax->send_cq;
	a.recv_cq = ax->recv_cq;
	a.srq = ax->srq;
	a.cap = ax->cap;
	a.qp_type = ax->qp_type;
	a.sq_sig_all = ax->sq_sig_all;
	return qp_create(c, ax->pd, &a);
}

/* Completions in error for every posted receive (QP to ERR). */
static void
qp_flush_recv(struct tally_verbs_qp *qp, bool complete)
{
	struct tally_verbs_cq *cq = qp->rcq;

	while (qp->rwr_head != qp->rwr_tail) {
		struct tally_verbs_rwr *r = &qp->rwr[qp->rwr_head & (qp->rwr_size - 1)];
		struct tally_verbs_wc wc = {
			.wr_id = r->wr_id, .status = IBV_WC_WR_FLUSH_ERR,
			.opcode = IBV_WC_RECV, .qp_num = qp->ibqp.qp_num,
		};

		if (complete)
			tally_verbs_cq_push(cq, &wc);
		qp->rwr_head++;
	}
}

/* Transitions of a RAW_PACKET QP and the exact attribute masks they take. */
struct qp_transition {
	enum ibv_qp_state from, to;
	int required, optional;
};

static const struct qp_transition qp_transitions[] = {
	{ IBV_QPS_RESET, IBV_QPS_INIT, IBV_QP_STATE | IBV_QP_PORT, 0 },
	{ IBV_QPS_INIT, IBV_QPS_INIT, IBV_QP_STATE, IBV_QP_PORT },
	{ IBV_QPS_INIT, IBV_QPS_RTR, IBV_QP_STATE, 0 },
	{ IBV_QPS_RTR, IBV_QPS_RTS, IBV_QP_STATE, 0 },
	{ IBV_QPS_RTS, IBV_QPS_RTS, IBV_QP_STATE, 0 },
};

static bool
qp_mask_ok(enum ibv_qp_state cur, enum ibv_qp_state next, int mask)
{
	unsigned int i;

	mask &= ~IBV_QP_CUR_STATE;
	if (next == IBV_QPS_RESET || next == IBV_QPS_ERR)
		return mask == IBV_QP_STATE;
	for (i = 0; i < sizeof(qp_transitions) / sizeof(qp_transitions[0]); i++) {
		const struct qp_transition *t = &qp_transitions[i];

		if (t->from == cur && t->to == next)
			return (mask & t->required) == t->required &&
			       (mask & ~(t->required | t->optional)) == 0;
	}
	return false;
}

int
ibv_modify_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr, int attr_mask)
{
	struct tally_verbs_qp *qp = tally_verbs_qp_of(ibqp);
	enum ibv_qp_state cur;

	if (qp == NULL || attr == NULL || !(attr_mask & IBV_QP_STATE))
		return EINVAL;
	cur = (attr_mask & IBV_QP_CUR_STATE) ? attr->cur_qp_state : ibqp->state;
	if (cur != ibqp->state || !qp_mask_ok(cur, attr->qp_state, attr_mask))
		return EINVAL;
	if ((attr_mask & IBV_QP_PORT) && attr->port_num != 1)
		return EINVAL;
	if (attr->qp_state == IBV_QPS_RESET) {
		qp_flush_recv(qp, false);
		qp_drain(qp);
	} else if (attr->qp_state == IBV_QPS_ERR) {
		qp_flush_recv(qp, true);
	}
	ibqp->state = attr->qp_state;
	return 0;
}

int
ibv_query_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr, int attr_mask,
	     struct ibv_qp_init_attr *init_attr)
{
	struct tally_verbs_qp *qp = tally_verbs_qp_of(ibqp);

	if (qp == NULL || attr == NULL)
		return EINVAL;
	memset(attr, 0, sizeof(*attr));
	attr->qp_state = ibqp->state;
	attr->cur_qp_state = ibqp->state;
	attr->port_num = 1;
	attr->cap.max_send_wr = qp->max_send_wr;
	attr->cap.max_recv_wr = qp->rwr_size - 1;
	attr->cap.max_send_sge = qp->max_send_sge;
	attr->cap.max_recv_sge = qp->max_recv_sge;
	if (init_attr != NULL) {
		memset(init_attr, 0, sizeof(*init_attr));
		init_attr->qp_context = ibqp->qp_context;
		init_attr->send_cq = ibqp->send_cq;
		init_attr->recv_cq = ibqp->recv_cq;
		init_attr->cap = attr->cap;
		init_attr->qp_type = ibqp->qp_type;
		init_attr->sq_sig_all = qp->sq_sig_all;
	}
	return 0;
}

int
ibv_destroy_qp(struct ibv_qp *ibqp)
{
	struct tally_verbs_qp *qp;
	int rc = 0;

	pthread_mutex_lock(&tally_verbs_lock);
	qp = tally_verbs_qp_of(ibqp);
	if (qp == NULL)
		rc = EINVAL;
	else if (qp->flows > 0)
		rc = EBUSY;
	else if (!tally_verbs_handle_kill(qp, TALLY_VERBS_T_QP))
		rc = EINVAL;
	if (rc) {
		pthread_mutex_unlock(&tally_verbs_lock);
		return rc;
	}
	/* completion counters are detached implicitly */
	if (qp->cc_send != NULL) {
		rte_pmd_tally_ccnt_detach(qp->port_id, RTE_PMD_TALLY_CCNT_TX, qp->txq);
		qp->cc_send->attached--;
	}
	if (qp->cc_recv != NULL) {
		rte_pmd_tally_ccnt_detach(qp->port_id, RTE_PMD_TALLY_CCNT_RX, qp->rxq);
		qp->cc_recv->attached--;
	}
	qp_put_parts(qp);
	qp_drain(qp);
	tally_verbs_queue_put(qp->port, qp->rxq);
	pthread_mutex_unlock(&tally_verbs_lock);
	free(qp->rwr);
	tally_verbs_handle_put(qp);
	return 0;
}

struct ibv_qp_ex *
ibv_qp_to_qp_ex(struct ibv_qp *qp)
{
	errno = TALLY_VERBS_UNSUP(tally_verbs_qp_of, qp);
	return NULL;
}
