/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Data path of RAW_PACKET QPs: post_send copies the work request's
 * gather list into an mbuf and sends it on the QP's Tx queue; post_recv
 * queues the scatter list; poll_cq receives from the Rx queues of the QPs
 * bound to the CQ into posted buffers, then returns completions.
 *
 * Every entry checks its QP or CQ handle (lock-free, tally_verbs_handle.c):
 * a destroyed or foreign one gets EINVAL (poll_cq: -EINVAL; the cq_ex
 * readers: 0) and nothing is read through it.
 *
 * One thread at a time per QP and per CQ (like the ethdev queues). Send
 * completions are generated once the Tx burst took the frame (the device
 * has then accepted it; in the in-process model it is already on the wire).
 */
#include <string.h>

#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_pmd_tally.h>

#include "tally_verbs_priv.h"

#define TX_RETRIES	64

int
tally_verbs_cq_push(struct tally_verbs_cq *cq, const struct tally_verbs_wc *wc)
{
	if (cq->tail - cq->head >= cq->size) {
		cq->overruns++;
		return ENOMEM;
	}
	cq->ring[cq->tail & (cq->size - 1)] = *wc;
	cq->tail++;
	return 0;
}

/* ---- send ---------------------------------------------------------------------- */

static int
send_one(struct tally_verbs_qp *qp, const struct ibv_send_wr *wr)
{
	struct rte_mbuf *m;
	uint32_t len = 0;
	unsigned int tries = 0;
	char *p;
	int i;

	if (wr->opcode != IBV_WR_SEND || wr->num_sge < 0 ||
	    (uint32_t)wr->num_sge > (qp->max_send_sge ? qp->max_send_sge : 1))
		return EINVAL;
	for (i = 0; i < wr->num_sge; i++)
		len += wr->sg_list[i].length;
	m = rte_pktmbuf_alloc(qp->port->mp);
	if (m == NULL)
		return ENOMEM;
	if (len < RTE_ETHER_HDR_LEN || len > rte_pktmbuf_tailroom(m)) {
		rte_pktmbuf_free(m);
		return EINVAL;
	}
	p = rte_pktmbuf_append(m, (uint16_t)len);
	for (i = 0; i < wr->num_sge; i++) {
		memcpy(p, (const void *)(uintptr_t)wr->sg_list[i].addr,
		       wr->sg_list[i].length);
		p += wr->sg_list[i].length;
	}
	while (rte_eth_tx_burst(qp->port_id, qp->txq, &m, 1) == 0) {
		if (++tries > TX_RETRIES) {
			rte_pktmbuf_free(m);
			return ENOMEM;
		}
		rte_pmd_tally_model_step(qp->port_id);
	}
	/* let an in-process device take the frame off its wire now, so Rx
	 * classification and counting do not wait for a receive poll */
	rte_pmd_tally_model_step(qp->port_id);
	if ((wr->send_flags & IBV_SEND_SIGNALED) || qp->sq_sig_all) {
		struct tally_verbs_wc wc = {
			.wr_id = wr->wr_id, .status = IBV_WC_SUCCESS,
			.opcode = IBV_WC_SEND, .byte_len = len,
			.qp_num = qp->ibqp.qp_num,
		};

		tally_verbs_cq_push(qp->scq, &wc);
	}
	return 0;
}

int
tally_verbs_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr,
		      struct ibv_send_wr **bad)
{
	struct tally_verbs_qp *qp = tally_verbs_qp_of(ibqp);
	int rc;

	if (qp == NULL || ibqp->state != IBV_QPS_RTS) {
		*bad = wr;
		return EINVAL;
	}
	for (; wr != NULL; wr = wr->next) {
		rc = send_one(qp, wr);
		if (rc) {
			*bad = wr;
			return rc;
		}
	}
	return 0;
}

/* ---- receive ------------------------------------------------------------------ */

int
tally_verbs_post_recv(struct ibv_qp *ibqp, struct ibv_recv_wr *wr,
		      struct ibv_recv_wr **bad)
{
	struct tally_verbs_qp *qp = tally_verbs_qp_of(ibqp);

	if (qp == NULL) {
		*bad = wr;
		return EINVAL;
	}
	for (; wr != NULL; wr = wr->next) {
		struct tally_verbs_rwr *r;

		if (wr->num_sge < 0 || (uint32_t)wr->num_sge >
		    (qp->max_recv_sge ? qp->max_recv_sge : 1)) {
			*bad = wr;
			return EINVAL;
		}
		if (qp->rwr_tail - qp->rwr_head >= qp->rwr_size - 1) {
			*bad = wr;
			return ENOMEM;
		}
		r = &qp->rwr[qp->rwr_tail & (qp->rwr_size - 1)];
		r->wr_id = wr->wr_id;
		r->num_sge = wr->num_sge;
		memcpy(r->sge, wr->sg_list, sizeof(r->sge[0]) * (size_t)wr->num_sge);
		qp->rwr_tail++;
		if (ibqp->state == IBV_QPS_ERR) {
			struct tally_verbs_wc wc = {
				.wr_id = wr->wr_id, .status = IBV_WC_WR_FLUSH_ERR,
				.opcode = IBV_WC_RECV, .qp_num = ibqp->qp_num,
			};

			qp->rwr_head++;
			tally_verbs_cq_push(qp->rcq, &wc);
		}
	}
	return 0;
}

/* Copy a received frame into the next posted buffers. */
static void
recv_one(struct tally_verbs_qp *qp, struct tally_verbs_cq *cq, struct rte_mbuf *m)
{
	struct tally_verbs_rwr *r = &qp->rwr[qp->rwr_head & (qp->rwr_size - 1)];
	struct tally_verbs_wc wc = {
		.wr_id = r->wr_id, .status = IBV_WC_SUCCESS, .opcode = IBV_WC_RECV,
		.byte_len = m->pkt_len, .qp_num = qp->ibqp.qp_num,
	};
	uint32_t off = 0;
	int i;

	qp->rwr_head++;
	for (i = 0; i < r->num_sge && off < m->pkt_len; i++) {
		uint32_t n = RTE_MIN(r->sge[i].length, m->pkt_len - off);
		void *dst = (void *)(uintptr_t)r->sge[i].addr;
		const void *src = rte_pktmbuf_read(m, off, n, dst);

		if (src != NULL && src != dst)
			memcpy(dst, src, n);
		off += n;
	}
	if (off < m->pkt_len)
		wc.status = IBV_WC_LOC_LEN_ERR;
	if (m->ol_flags & RTE_MBUF_F_RX_FDIR_ID)
		wc.flow_tag = m->hash.fdir.hi;
	tally_verbs_cq_push(cq, &wc);
	rte_pktmbuf_free(m);
}

/*
 * Receive into every QP of the CQ that is ready and has buffers posted:
 * as many frames as it has buffers posted (and the CQ has room for), as a
 * NIC writing straight into posted buffers would, so frames do not wait
 * (and overflow) in the Rx ring while buffers are free.
 */
static void
cq_refill(struct tally_verbs_cq *cq)
{
	unsigned int i;

	for (i = 0; i < cq->nb_rq; i++) {
		struct tally_verbs_qp *qp = cq->rq[i];
		struct rte_mbuf *m[32];
		uint32_t want = qp->rwr_tail - qp->rwr_head;
		uint32_t room = cq->size - (cq->tail - cq->head);
		uint16_t n, k, req;

		if (qp->ibqp.state != IBV_QPS_RTR && qp->ibqp.state != IBV_QPS_RTS)
			continue;
		want = RTE_MIN(want, room);
		while (want > 0) {
			req = (uint16_t)RTE_MIN(want, 32u);
			n = rte_eth_rx_burst(qp->port_id, qp->rxq, m, req);
			for (k = 0; k < n; k++)
				recv_one(qp, cq, m[k]);
			want -= n;
			if (n < req)
				break;
		}
	}
}

static void
wc_fill(struct ibv_wc *wc, const struct tally_verbs_wc *w)
{
	memset(wc, 0, sizeof(*wc));
	wc->wr_id = w->wr_id;
	wc->status = w->status;
	wc->opcode = w->opcode;
	wc->byte_len = w->byte_len;
	wc->qp_num = w->qp_num;
}

int
tally_verbs_poll_cq(struct ibv_cq *ibcq, int n, struct ibv_wc *wc)
{
	struct tally_verbs_cq *cq = tally_verbs_cq_of(ibcq);
	int i;

	if (cq == NULL)
		return -EINVAL;	/* man page: negative on failure */
	if (n <= 0)
		return 0;
	if (cq->tail - cq->head < (uint32_t)n)
		cq_refill(cq);
	for (i = 0; i < n && cq->head != cq->tail; i++, cq->head++)
		wc_fill(&wc[i], &cq->ring[cq->head & (cq->size - 1)]);
	return i;
}

int
tally_verbs_req_notify_cq(struct ibv_cq *cq, int solicited_only)
{
	return TALLY_VERBS_UNSUP(tally_verbs_cq_of, cq);
}

/* ---- extended CQ -------------------------------------------------------------- */

static int
cqx_next(struct ibv_cq_ex *ibcq)
{
	struct tally_verbs_cq *cq = tally_verbs_cqx_of(ibcq);

	if (cq == NULL)
		return EINVAL;
	if (cq->head == cq->tail)
		cq_refill(cq);
	if (cq->head == cq->tail)
		return ENOENT;
	cq->cur = cq->ring[cq->head & (cq->size - 1)];
	cq->head++;
	ibcq->wr_id = cq->cur.wr_id;
	ibcq->status = cq->cur.status;
	return 0;
}

static int
cqx_start_poll(struct ibv_cq_ex *ibcq, struct ibv_poll_cq_attr *attr)
{
	if (tally_verbs_cqx_of(ibcq) == NULL || (attr != NULL && attr->comp_mask != 0))
		return EINVAL;
	return cqx_next(ibcq);
}

static void
cqx_end_poll(struct ibv_cq_ex *ibcq)
{
}

static enum ibv_wc_opcode
cqx_read_opcode(struct ibv_cq_ex *ibcq)
{
	const struct tally_verbs_cq *cq = tally_verbs_cqx_of(ibcq);

	return cq != NULL ? cq->cur.opcode : 0;
}

static uint32_t
cqx_read_vendor_err(struct ibv_cq_ex *ibcq)
{
	return 0;
}

static uint32_t
cqx_read_byte_len(struct ibv_cq_ex *ibcq)
{
	const struct tally_verbs_cq *cq = tally_verbs_cqx_of(ibcq);

	return cq != NULL ? cq->cur.byte_len : 0;
}

static uint32_t
cqx_read_qp_num(struct ibv_cq_ex *ibcq)
{
	const struct tally_verbs_cq *cq = tally_verbs_cqx_of(ibcq);

	return cq != NULL ? cq->cur.qp_num : 0;
}

static unsigned int
cqx_read_wc_flags(struct ibv_cq_ex *ibcq)
{
	const struct tally_verbs_cq *cq = tally_verbs_cqx_of(ibcq);

	return cq != NULL ? cq->cur.wc_flags : 0;
}

/* IB addressing and immediate data: none on Ethernet, read as 0 (the
 * completion's wc_flags never has IBV_WC_WITH_IMM). */
static __be32
cqx_read_imm_data(struct ibv_cq_ex *ibcq)
{
	return 0;
}

/* src_qp, slid */
static uint32_t
cqx_read_zero32(struct ibv_cq_ex *ibcq)
{
	return 0;
}

/* sl, dlid_path_bits */
static uint8_t
cqx_read_zero8(struct ibv_cq_ex *ibcq)
{
	return 0;
}

static uint32_t
cqx_read_flow_tag(struct ibv_cq_ex *ibcq)
{
	const struct tally_verbs_cq *cq = tally_verbs_cqx_of(ibcq);

	return cq != NULL ? cq->cur.flow_tag : 0;
}

void
tally_verbs_cq_ex_ops(struct tally_verbs_cq *cq)
{
	cq->ibcq.start_poll = cqx_start_poll;
	cq->ibcq.next_poll = cqx_next;
	cq->ibcq.end_poll = cqx_end_poll;
	cq->ibcq.read_opcode = cqx_read_opcode;
	cq->ibcq.read_vendor_err = cqx_read_vendor_err;
	cq->ibcq.read_byte_len = cqx_read_byte_len;
	cq->ibcq.read_qp_num = cqx_read_qp_num;
	cq->ibcq.read_wc_flags = cqx_read_wc_flags;
	cq->ibcq.read_imm_data = cqx_read_imm_data;
	cq->ibcq.read_src_qp = cqx_read_zero32;
	cq->ibcq.read_slid = cqx_read_zero32;
	cq->ibcq.read_sl = cqx_read_zero8;
	cq->ibcq.read_dlid_path_bits = cqx_read_zero8;
	cq->ibcq.read_flow_tag = cqx_read_flow_tag;
}
