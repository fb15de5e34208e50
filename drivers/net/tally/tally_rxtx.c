/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Tally data path: Rx and Tx burst functions only.
 *
 * Rx: let the device run (in-process model without a thread), take
 * completions while their phase is the expected one, build mbufs (chains
 * when a frame spans descriptors), repost a fresh mbuf in every consumed
 * slot, then ring the doorbell once.
 * Tx: let the device run, reclaim completed descriptors, map each segment of
 * each frame to one descriptor (EOP on the last), ring the doorbell once.
 * When the ring fills in the middle of a burst, publish what is posted, let
 * the device run and reclaim once more before giving up: a transmit-only
 * application that never calls Rx still makes progress, in every mode.
 *
 * A queue is used by one lcore at a time; nothing here takes a lock.
 */
#include <rte_mbuf.h>
#include <rte_prefetch.h>

#include "tally_hal_io.h"
#include "tally_logs.h"
#include "tally_rxtx.h"

static inline uint32_t
tally_rx_ptype(uint8_t p, uint16_t flags)
{
	uint32_t t = (flags & TALLY_RXC_F_VLAN) ? RTE_PTYPE_L2_ETHER_VLAN :
						  RTE_PTYPE_L2_ETHER;

	switch (TALLY_FIELD_GET(p, TALLY_PTYPE_L3_M)) {
	case TALLY_PTYPE_L3_IPV4:
		t |= RTE_PTYPE_L3_IPV4_EXT_UNKNOWN;
		break;
	case TALLY_PTYPE_L3_IPV6:
		t |= RTE_PTYPE_L3_IPV6_EXT_UNKNOWN;
		break;
	default:
		return t;
	}
	switch (TALLY_FIELD_GET(p, TALLY_PTYPE_L4_M)) {
	case TALLY_PTYPE_L4_TCP: t |= RTE_PTYPE_L4_TCP; break;
	case TALLY_PTYPE_L4_UDP: t |= RTE_PTYPE_L4_UDP; break;
	case TALLY_PTYPE_L4_ICMP: t |= RTE_PTYPE_L4_ICMP; break;
	case TALLY_PTYPE_L4_FRAG: t |= RTE_PTYPE_L4_FRAG; break;
	default: break;
	}
	if (p & TALLY_PTYPE_TUNNEL_VXLAN)
		t |= RTE_PTYPE_TUNNEL_VXLAN;
	return t;
}

/* First segment of a frame: metadata from its first completion. */
static inline void
tally_rx_first(struct tally_rxq *rxq, struct rte_mbuf *m,
	       const struct tally_rx_cqe *c)
{
	uint64_t ol = 0;

	m->port = rxq->port_id;
	m->pkt_len = c->len;
	m->packet_type = tally_rx_ptype(c->ptype, c->flags);
	if (c->flags & TALLY_RXC_F_RSS) {
		m->hash.rss = c->rss_hash;
		ol |= RTE_MBUF_F_RX_RSS_HASH;
	}
	if (c->flags & TALLY_RXC_F_MARK) {
		m->hash.fdir.hi = c->mark;
		ol |= RTE_MBUF_F_RX_FDIR | RTE_MBUF_F_RX_FDIR_ID;
	}
	if (c->flags & TALLY_RXC_F_FLAG)
		ol |= RTE_MBUF_F_RX_FDIR;
	m->ol_flags = ol;
}

static inline void
tally_rx_drop_partial(struct tally_rxq *rxq)
{
	if (rxq->pkt_first != NULL)
		rte_pktmbuf_free(rxq->pkt_first);
	rxq->pkt_first = NULL;
	rxq->pkt_last = NULL;
}

uint16_t
tally_rx_burst(void *queue, struct rte_mbuf **pkts, uint16_t nb_pkts)
{
	struct tally_rxq *rxq = queue;
	struct tally_rx_desc *ring = rxq->ring;
	struct tally_rx_cqe *cq = rxq->cq;
	uint32_t cons = rxq->cons;
	uint32_t start = cons;
	uint16_t nb_rx = 0;

	tally_hal_service(rxq->hal);
	while (nb_rx < nb_pkts) {
		uint32_t idx = cons & rxq->mask;
		const struct tally_rx_cqe *c = &cq[idx];
		struct rte_mbuf *m, *nm;

		if (!tally_hal_rx_cqe_ready(c, rxq->phase))
			break;
		nm = rte_mbuf_raw_alloc(rxq->mp);
		if (unlikely(nm == NULL)) {
			(*rxq->alloc_failed)++;
			break;
		}
		m = rxq->sw_ring[idx];
		rxq->sw_ring[idx] = nm;
		ring[idx].addr = rte_mbuf_data_iova_default(nm);
		ring[idx].buf_len = rxq->buf_len;
		cons++;
		if ((cons & rxq->mask) == 0)
			rxq->phase ^= 1;

		if (unlikely(c->flags & TALLY_RXC_F_ERR)) {
			TALLY_RX_LOG(DEBUG, "rxq %u: completion error %u",
				     rxq->qid, c->err);
			rxq->sw_errors++;
			rte_pktmbuf_free_seg(m);
			tally_rx_drop_partial(rxq);
			continue;
		}
		m->data_off = RTE_PKTMBUF_HEADROOM;
		m->data_len = c->len;
		m->next = NULL;
		m->nb_segs = 1;
		if (rxq->pkt_first == NULL) {
			tally_rx_first(rxq, m, c);
			rxq->pkt_first = m;
		} else {
			rxq->pkt_last->next = m;
			rxq->pkt_first->nb_segs++;
			rxq->pkt_first->pkt_len += c->len;
		}
		rxq->pkt_last = m;
		if (c->flags & TALLY_RXC_F_MORE)
			continue;
		pkts[nb_rx++] = rxq->pkt_first;
		rxq->pkt_first = NULL;
		rxq->pkt_last = NULL;
	}
	if (cons != start) {
		rxq->cons = cons;
		rxq->prod += cons - start;
		tally_hal_rxq_doorbell(rxq->hal, rxq->qid, rxq->prod);
	}
	return nb_rx;
}

/* Free the mbufs of completed descriptors. */
static inline void
tally_tx_reclaim(struct tally_txq *txq)
{
	uint32_t cons = txq->cons;

	while (cons != txq->prod) {
		uint32_t idx = cons & txq->mask;
		const struct tally_tx_cqe *c = &txq->cq[idx];

		if (!tally_hal_tx_cqe_ready(c, txq->phase))
			break;
		if ((txq->ring[idx].flags & TALLY_TXD_F_EOP) &&
		    unlikely(c->status != TALLY_TXC_OK)) {
			TALLY_TX_LOG(DEBUG, "txq %u: status %u", txq->qid,
				     c->status);
			txq->sw_cq_errors++;
		}
		rte_pktmbuf_free_seg(txq->sw_ring[idx]);
		txq->sw_ring[idx] = NULL;
		cons++;
		if ((cons & txq->mask) == 0)
			txq->phase ^= 1;
	}
	txq->cons = cons;
}

static inline bool
tally_tx_frame_ok(const struct tally_txq *txq, const struct rte_mbuf *m)
{
	const struct rte_mbuf *s;

	if (unlikely(m->nb_segs > TALLY_TX_MAX_SEGS || m->pkt_len == 0 ||
		     m->pkt_len > txq->max_frame))
		return false;
	for (s = m; s != NULL; s = s->next)
		if (unlikely(s->data_len == 0))
			return false;
	return true;
}

/* Ring full: publish what is posted, let the device run, harvest. */
static inline uint32_t
tally_tx_make_room(struct tally_txq *txq, uint32_t prod)
{
	if (prod != txq->prod) {
		txq->prod = prod;
		tally_hal_txq_doorbell(txq->hal, txq->qid, prod);
	}
	tally_hal_service(txq->hal);
	tally_tx_reclaim(txq);
	return txq->nb_desc - (prod - txq->cons);
}

uint16_t
tally_tx_burst(void *queue, struct rte_mbuf **pkts, uint16_t nb_pkts)
{
	struct tally_txq *txq = queue;
	uint32_t prod = txq->prod;
	bool retried = false;
	uint16_t nb_tx;

	tally_hal_service(txq->hal);
	tally_tx_reclaim(txq);
	for (nb_tx = 0; nb_tx < nb_pkts; nb_tx++) {
		struct rte_mbuf *m = pkts[nb_tx];
		uint32_t room = txq->nb_desc - (prod - txq->cons);

		if (unlikely(!tally_tx_frame_ok(txq, m))) {
			TALLY_TX_LOG(DEBUG, "txq %u: frame rejected (%u segs, %u bytes)",
				     txq->qid, m->nb_segs, m->pkt_len);
			txq->sw_rejected++;
			break;
		}
		if (unlikely(room < m->nb_segs) && !retried) {
			room = tally_tx_make_room(txq, prod);
			retried = true;
		}
		if (room < m->nb_segs)
			break;
		for (; m != NULL; m = m->next) {
			uint32_t idx = prod & txq->mask;
			struct tally_tx_desc *d = &txq->ring[idx];

			d->addr = rte_mbuf_data_iova(m);
			d->len = m->data_len;
			d->flags = m->next == NULL ? TALLY_TXD_F_EOP : 0;
			txq->sw_ring[idx] = m;
			prod++;
		}
	}
	if (prod != txq->prod) {
		txq->prod = prod;
		tally_hal_txq_doorbell(txq->hal, txq->qid, prod);
	}
	return nb_tx;
}

void
tally_set_rxtx_functions(struct rte_eth_dev *dev)
{
	dev->rx_pkt_burst = tally_rx_burst;
	dev->tx_pkt_burst = tally_tx_burst;
}
