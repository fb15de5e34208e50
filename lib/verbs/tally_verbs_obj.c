/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Control-path objects: device and port queries, PD, MR, CQ, RAW_PACKET QP
 * and its state machine.
 */
#include <stdlib.h>
#include <string.h>

#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_pmd_tally.h>

#include "tally_verbs_priv.h"

#undef ibv_query_port
#undef ibv_reg_mr
#undef ibv_reg_mr_iova

#define TALLY_VERBS_VENDOR_ID	0x1af4
#define TALLY_VERBS_PART_ID	0x7a11

static uint32_t mr_keys = 0x100;

/* ---- queries ------------------------------------------------------------------ */

static void
device_attr_fill(struct tally_verbs_ctx *c, struct ibv_device_attr *a)
{
	struct tally_verbs_port *p = c->dev->port;
	int ncc = rte_pmd_tally_ccnt_num(c->port_id);

	memset(a, 0, sizeof(*a));
	snprintf(a->fw_ver, sizeof(a->fw_ver), "tally-1.0");
	a->node_guid = c->dev->guid;
	a->sys_image_guid = c->dev->guid;
	a->max_mr_size = UINT64_MAX;
	a->page_size_cap = 4096;
	a->vendor_id = TALLY_VERBS_VENDOR_ID;
	a->vendor_part_id = TALLY_VERBS_PART_ID;
	a->max_qp = p->nb_q - p->first_q;
	a->max_qp_wr = TALLY_VERBS_MAX_WR;
	a->device_cap_flags = IBV_DEVICE_MANAGED_FLOW_STEERING;
	a->max_sge = TALLY_VERBS_MAX_SGE;
	a->max_cq = 1024;
	a->max_cqe = TALLY_VERBS_MAX_CQE;
	a->max_mr = 1 << 20;
	a->max_pd = 1 << 20;
	a->atomic_cap = IBV_ATOMIC_NONE;
	a->phys_port_cnt = 1;
	(void)ncc;
}

int
ibv_query_device(struct ibv_context *context, struct ibv_device_attr *attr)
{
	if (context == NULL || attr == NULL)
		return EINVAL;
	device_attr_fill(to_tally_ctx(context), attr);
	return 0;
}

int
tally_verbs_query_device_ex(struct ibv_context *context,
			    const struct ibv_query_device_ex_input *input,
			    struct ibv_device_attr_ex *attr, size_t attr_size)
{
	struct ibv_device_attr_ex a;

	if (input != NULL && input->comp_mask != 0)
		return EINVAL;
	if (attr_size < sizeof(struct ibv_device_attr))
		return EINVAL;
	memset(&a, 0, sizeof(a));
	device_attr_fill(to_tally_ctx(context), &a.orig_attr);
	a.raw_packet_caps = 0;
	a.max_wq_type_rq = 0;
	memset(attr, 0, attr_size);
	memcpy(attr, &a, attr_size < sizeof(a) ? attr_size : sizeof(a));
	return 0;
}

static void
port_attr_fill(struct tally_verbs_ctx *c, struct ibv_port_attr *a)
{
	struct rte_eth_link link;

	memset(a, 0, sizeof(*a));
	memset(&link, 0, sizeof(link));
	if (rte_eth_link_get_nowait(c->port_id, &link) != 0)
		link.link_status = RTE_ETH_LINK_DOWN;	/* port gone: down */
	a->state = link.link_status ? IBV_PORT_ACTIVE : IBV_PORT_DOWN;
	a->max_mtu = IBV_MTU_4096;
	a->active_mtu = IBV_MTU_1024;
	a->gid_tbl_len = 1;
	a->max_msg_sz = TALLY_VERBS_MAX_FRAME;
	a->pkey_tbl_len = 1;
	a->active_width = 2;	/* 4x */
	a->active_speed = 32;	/* 25 Gb/s per lane class */
	a->phys_state = link.link_status ? 5 : 3;	/* LinkUp / Disabled */
	a->link_layer = IBV_LINK_LAYER_ETHERNET;
}

int
tally_verbs_query_port(struct ibv_context *context, uint8_t port_num,
		       struct ibv_port_attr *attr, size_t len)
{
	struct ibv_port_attr a;

	if (port_num != 1 || attr == NULL)
		return EINVAL;
	port_attr_fill(to_tally_ctx(context), &a);
	/* the caller's struct may be older or newer than ours */
	memset(attr, 0, len);
	memcpy(attr, &a, len < sizeof(a) ? len : sizeof(a));
	return 0;
}

int ibv_query_port(struct ibv_context *context, uint8_t port_num,
		   struct _compat_ibv_port_attr *port_attr);

int
ibv_query_port(struct ibv_context *context, uint8_t port_num,
	       struct _compat_ibv_port_attr *port_attr)
{
	return tally_verbs_query_port(context, port_num,
				      (struct ibv_port_attr *)port_attr,
				      offsetof(struct ibv_port_attr, port_cap_flags2));
}

int
ibv_query_gid(struct ibv_context *context, uint8_t port_num, int index,
	      union ibv_gid *gid)
{
	struct tally_verbs_ctx *c;

	if (context == NULL || gid == NULL || port_num != 1 || index != 0)
		return -1;
	c = to_tally_ctx(context);
	memset(gid, 0, sizeof(*gid));
	gid->raw[0] = 0xfe;
	gid->raw[1] = 0x80;
	memcpy(&gid->raw[8], &c->dev->guid, 8);
	return 0;
}

/* ---- PD / MR --------------------------------------------------------------------- */

struct ibv_pd *
ibv_alloc_pd(struct ibv_context *context)
{
	struct tally_verbs_pd *pd = calloc(1, sizeof(*pd));

	if (pd == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	pd->ibpd.context = context;
	tally_verbs_live_add(&pd->live, &pd->ibpd);
	return &pd->ibpd;
}

int
ibv_dealloc_pd(struct ibv_pd *pd)
{
	if (!tally_verbs_live_del(pd))
		return EINVAL;
	free(TALLY_VERBS_CONTAINER(pd, struct tally_verbs_pd, ibpd));
	return 0;
}

struct ibv_mr *
ibv_reg_mr_iova2(struct ibv_pd *pd, void *addr, size_t length, uint64_t iova,
		 unsigned int access)
{
	struct tally_verbs_mr *mr;

	if (pd == NULL || (addr == NULL && length != 0)) {
		errno = EINVAL;
		return NULL;
	}
	mr = calloc(1, sizeof(*mr));
	if (mr == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	mr->ibmr.context = pd->context;
	mr->ibmr.pd = pd;
	mr->ibmr.addr = addr;
	mr->ibmr.length = length;
	mr->ibmr.lkey = __atomic_fetch_add(&mr_keys, 1, __ATOMIC_RELAXED);
	mr->ibmr.rkey = mr->ibmr.lkey;
	mr->ibmr.handle = mr->ibmr.lkey;
	tally_verbs_live_add(&mr->live, &mr->ibmr);
	return &mr->ibmr;
}

struct ibv_mr *ibv_reg_mr(struct ibv_pd *pd, void *addr, size_t length, int access);
struct ibv_mr *ibv_reg_mr_iova(struct ibv_pd *pd, void *addr, size_t length,
			       uint64_t iova, int access);

struct ibv_mr *
ibv_reg_mr(struct ibv_pd *pd, void *addr, size_t length, int access)
{
	return ibv_reg_mr_iova2(pd, addr, length, (uintptr_t)addr, (unsigned int)access);
}

struct ibv_mr *
ibv_reg_mr_iova(struct ibv_pd *pd, void *addr, size_t length, uint64_t iova,
		int access)
{
	return ibv_reg_mr_iova2(pd, addr, length, iova, (unsigned int)access);
}

int
ibv_dereg_mr(struct ibv_mr *mr)
{
	if (!tally_verbs_live_del(mr))
		return EINVAL;
	free(TALLY_VERBS_CONTAINER(mr, struct tally_verbs_mr, ibmr));
	return 0;
}

/* ---- CQ ----------------------------------------------------------------------------- */

struct ibv_comp_channel *
ibv_create_comp_channel(struct ibv_context *context)
{
	errno = EOPNOTSUPP;
	return NULL;
}

int
ibv_destroy_comp_channel(struct ibv_comp_channel *channel)
{
	return EOPNOTSUPP;
}

static struct tally_verbs_cq *
cq_new(struct ibv_context *context, int cqe, void *cq_context)
{
	struct tally_verbs_cq *cq;
	uint32_t size = 64;

	if (cqe <= 0 || cqe > TALLY_VERBS_MAX_CQE) {
		errno = EINVAL;
		return NULL;
	}
	while (size < (uint32_t)cqe + 1)
		size <<= 1;
	cq = calloc(1, sizeof(*cq));
	if (cq != NULL)
		cq->ring = calloc(size, sizeof(*cq->ring));
	if (cq == NULL || cq->ring == NULL) {
		free(cq);
		errno = ENOMEM;
		return NULL;
	}
	cq->size = size;
	cq->ibcq.context = context;
	cq->ibcq.cq_context = cq_context;
	cq->ibcq.cqe = (int)size - 1;
	pthread_mutex_init(&cq->ibcq.mutex, NULL);
	pthread_cond_init(&cq->ibcq.cond, NULL);
	tally_verbs_live_add(&cq->live, &cq->ibcq);
	return cq;
}

struct ibv_cq *
ibv_create_cq(struct ibv_context *context, int cqe, void *cq_context,
	      struct ibv_comp_channel *channel, int comp_vector)
{
	struct tally_verbs_cq *cq;

	if (context == NULL) {
		errno = EINVAL;
		return NULL;
	}
	if (channel != NULL) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	cq = cq_new(context, cqe, cq_context);
	return cq != NULL ? ibv_cq_ex_to_cq(&cq->ibcq) : NULL;
}

#define TALLY_VERBS_CQ_EX_FLAGS	(IBV_WC_EX_WITH_BYTE_LEN | IBV_WC_EX_WITH_QP_NUM | \
				 IBV_WC_EX_WITH_FLOW_TAG)

struct ibv_cq_ex *
tally_verbs_create_cq_ex(struct ibv_context *context,
			 struct ibv_cq_init_attr_ex *attr)
{
	struct tally_verbs_cq *cq;

	if (attr == NULL) {
		errno = EINVAL;
		return NULL;
	}
	if (attr->comp_mask & ~(uint32_t)(IBV_CQ_INIT_ATTR_MASK_FLAGS |
					  IBV_CQ_INIT_ATTR_MASK_PD)) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (attr->channel != NULL || (attr->wc_flags & ~(uint64_t)TALLY_VERBS_CQ_EX_FLAGS)) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	cq = cq_new(context, (int)attr->cqe, attr->cq_context);
	if (cq == NULL)
		return NULL;
	tally_verbs_cq_ex_ops(cq);
	return &cq->ibcq;
}

int
ibv_destroy_cq(struct ibv_cq *ibcq)
{
	struct tally_verbs_cq *cq;

	if (!tally_verbs_live_has(ibcq))
		return EINVAL;
	cq = to_tally_cq(ibcq);
	if (cq->nb_rq > 0)
		return EBUSY;
	if (!tally_verbs_live_del(ibcq))
		return EINVAL;
	free(cq->ring);
	free(cq);
	return 0;
}

int
ibv_resize_cq(struct ibv_cq *cq, int cqe)
{
	return EOPNOTSUPP;
}

int
ibv_get_cq_event(struct ibv_comp_channel *channel, struct ibv_cq **cq,
		 void **cq_context)
{
	errno = EOPNOTSUPP;
	return -1;
}

void
ibv_ack_cq_events(struct ibv_cq *cq, unsigned int nevents)
{
}

/* ---- QP --------------------------------------------------------------------------- */

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

static struct ibv_qp *
qp_create(struct ibv_context *context, struct ibv_pd *pd,
	  struct ibv_qp_init_attr *a)
{
	struct tally_verbs_ctx *c = to_tally_ctx(context);
	struct tally_verbs_qp *qp;
	uint32_t rsize = 16;
	uint16_t q;
	int rc;

	if (a->qp_type != IBV_QPT_RAW_PACKET) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (a->srq != NULL) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (a->send_cq == NULL || a->recv_cq == NULL ||
	    a->cap.max_send_wr > TALLY_VERBS_MAX_WR ||
	    a->cap.max_recv_wr > TALLY_VERBS_MAX_WR ||
	    a->cap.max_send_sge > TALLY_VERBS_MAX_SGE ||
	    a->cap.max_recv_sge > TALLY_VERBS_MAX_SGE) {
		errno = EINVAL;
		return NULL;
	}
	while (rsize < a->cap.max_recv_wr + 1)
		rsize <<= 1;
	qp = calloc(1, sizeof(*qp));
	if (qp != NULL)
		qp->rwr = calloc(rsize, sizeof(*qp->rwr));
	if (qp == NULL || qp->rwr == NULL) {
		free(qp);
		errno = ENOMEM;
		return NULL;
	}
	pthread_mutex_lock(&tally_verbs_lock);
	rc = tally_verbs_queue_get(c->dev->port, &q);
	if (rc == 0) {
		rc = cq_add_rq(to_tally_cq(a->recv_cq), qp);
		if (rc)
			tally_verbs_queue_put(c->dev->port, q);
	}
	pthread_mutex_unlock(&tally_verbs_lock);
	if (rc) {
		free(qp->rwr);
		free(qp);
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
	qp->ibqp.context = context;
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
	tally_verbs_live_add(&qp->live, &qp->ibqp);
	return &qp->ibqp;
}

struct ibv_qp *
ibv_create_qp(struct ibv_pd *pd, struct ibv_qp_init_attr *attr)
{
	if (pd == NULL || attr == NULL) {
		errno = EINVAL;
		return NULL;
	}
	return qp_create(pd->context, pd, attr);
}

struct ibv_qp *
tally_verbs_create_qp_ex(struct ibv_context *context,
			 struct ibv_qp_init_attr_ex *ax)
{
	struct ibv_qp_init_attr a;

	if (ax->comp_mask & ~(uint32_t)IBV_QP_INIT_ATTR_PD) {
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
	return qp_create(context, ax->pd, &a);
}

/* Completions in error for every posted receive (QP to ERR). */
static void
qp_flush_recv(struct tally_verbs_qp *qp, bool complete)
{
	struct tally_verbs_cq *cq = to_tally_cq(qp->ibqp.recv_cq);

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
	struct tally_verbs_qp *qp;
	enum ibv_qp_state cur;

	if (ibqp == NULL || attr == NULL || !(attr_mask & IBV_QP_STATE))
		return EINVAL;
	qp = to_tally_qp(ibqp);
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
	struct tally_verbs_qp *qp;

	if (ibqp == NULL || attr == NULL)
		return EINVAL;
	qp = to_tally_qp(ibqp);
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

	if (!tally_verbs_live_has(ibqp))
		return EINVAL;
	qp = to_tally_qp(ibqp);
	pthread_mutex_lock(&tally_verbs_lock);
	if (qp->flows > 0) {
		pthread_mutex_unlock(&tally_verbs_lock);
		return EBUSY;
	}
	if (!tally_verbs_live_del(ibqp)) {
		pthread_mutex_unlock(&tally_verbs_lock);
		return EINVAL;
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
	cq_del_rq(to_tally_cq(ibqp->recv_cq), qp);
	qp_drain(qp);
	tally_verbs_queue_put(qp->port, qp->rxq);
	pthread_mutex_unlock(&tally_verbs_lock);
	free(qp->rwr);
	free(qp);
	return 0;
}

struct ibv_qp_ex *
ibv_qp_to_qp_ex(struct ibv_qp *qp)
{
	return NULL;
}
