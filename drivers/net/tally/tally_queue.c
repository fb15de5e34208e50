/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Rx/Tx queue control: setup, release, start, stop.
 *
 * Memory: one rte_zmalloc block per queue holds the descriptor ring followed
 * by the completion ring (4 KiB aligned); the device is given its virtual
 * address, which its translation table maps (tally_dma.c). The software
 * ring of mbuf pointers is separate.
 */
#include <string.h>

#include <rte_malloc.h>
#include <rte_mbuf.h>

#include "tally_hal_io.h"
#include "tally_pmd.h"
#include "tally_logs.h"

static int
tally_check_nb_desc(struct rte_eth_dev *dev, uint16_t nb_desc)
{
	struct tally_adapter *ad = tally_adapter(dev);
	uint32_t lo = RTE_MAX((uint32_t)TALLY_PMD_MIN_DESC, 1u << ad->hal.ring_min_log2);
	uint32_t hi = RTE_MIN((uint32_t)TALLY_PMD_MAX_DESC,
			      1u << ad->hal.ring_max_log2);

	if (!rte_is_power_of_2(nb_desc) || nb_desc < lo || nb_desc > hi) {
		TALLY_DRV_LOG(ERR, "port %u: %u descriptors: need a power of two in %u..%u",
			      dev->data->port_id, nb_desc, lo, hi);
		return -EINVAL;
	}
	return 0;
}

static void *
tally_ring_alloc(const char *what, size_t size, unsigned int socket,
		 uint64_t *iova)
{
	void *mem = rte_zmalloc_socket(what, size, TALLY_PMD_RING_ALIGN, socket);

	if (mem == NULL && socket != (unsigned int)SOCKET_ID_ANY)
		mem = rte_zmalloc_socket(what, size, TALLY_PMD_RING_ALIGN,
					 SOCKET_ID_ANY);
	if (mem == NULL)
		return NULL;
	*iova = (uint64_t)(uintptr_t)mem;
	return mem;
}

/* ---- Rx ----------------------------------------------------------------- */

static void
tally_rxq_free_mbufs(struct tally_rxq *rxq)
{
	uint16_t i;

	for (i = 0; i < rxq->nb_desc; i++) {
		if (rxq->sw_ring[i] != NULL)
			rte_pktmbuf_free_seg(rxq->sw_ring[i]);
		rxq->sw_ring[i] = NULL;
	}
	if (rxq->pkt_first != NULL)
		rte_pktmbuf_free(rxq->pkt_first);
	rxq->pkt_first = NULL;
	rxq->pkt_last = NULL;
}

void
tally_rx_queue_release(struct rte_eth_dev *dev, uint16_t qid)
{
	struct tally_adapter *ad = tally_adapter(dev);
	struct tally_rxq *rxq = dev->data->rx_queues[qid];

	if (rxq == NULL)
		return;
	if (rxq->started)
		tally_rx_queue_stop(dev, qid);
	ad->retired.rx_errors[qid] += rxq->sw_errors + rxq->bad_len + rxq->bad_chain;
	ad->retired.rx_bad_len += rxq->bad_len;
	ad->retired.rx_bad_chain += rxq->bad_chain;
	rte_free(rxq->sw_ring);
	rte_free(rxq->mem);
	rte_free(rxq);
	dev->data->rx_queues[qid] = NULL;
}

int
tally_rx_queue_setup(struct rte_eth_dev *dev, uint16_t qid, uint16_t nb_desc,
		     unsigned int socket_id, const struct rte_eth_rxconf *conf,
		     struct rte_mempool *mp)
{
	struct tally_adapter *ad = tally_adapter(dev);
	struct tally_rxq *rxq;
	uint32_t room;
	int rc;

	if (qid >= ad->max_rxq)
		return -EINVAL;
	rc = tally_check_nb_desc(dev, nb_desc);
	if (rc != 0)
		return rc;
	room = rte_pktmbuf_data_room_size(mp);
	if (room < RTE_PKTMBUF_HEADROOM + TALLY_PMD_MIN_RX_BUF) {
		TALLY_DRV_LOG(ERR, "port %u rxq %u: mbuf data room %u too small",
			      dev->data->port_id, qid, room);
		return -EINVAL;
	}
	tally_rx_queue_release(dev, qid);

	rxq = rte_zmalloc_socket("tally_rxq", sizeof(*rxq), RTE_CACHE_LINE_SIZE,
				 socket_id);
	if (rxq == NULL)
		return -ENOMEM;
	rxq->sw_ring = rte_zmalloc_socket("tally_rxq_sw",
					  sizeof(rxq->sw_ring[0]) * nb_desc,
					  RTE_CACHE_LINE_SIZE, socket_id);
	rxq->mem = tally_ring_alloc("tally_rxq_ring",
				    (sizeof(struct tally_rx_desc) +
				     sizeof(struct tally_rx_cqe)) * nb_desc,
				    socket_id, &rxq->ring_iova);
	if (rxq->sw_ring == NULL || rxq->mem == NULL) {
		rte_free(rxq->sw_ring);
		rte_free(rxq->mem);
		rte_free(rxq);
		return -ENOMEM;
	}
	rxq->ring = rxq->mem;
	rxq->cq = (struct tally_rx_cqe *)(rxq->ring + nb_desc);
	rxq->cq_iova = rxq->ring_iova + sizeof(struct tally_rx_desc) * nb_desc;
	rxq->mp = mp;
	rxq->alloc_failed = &dev->data->rx_mbuf_alloc_failed;
	rxq->nb_desc = nb_desc;
	rxq->mask = nb_desc - 1;
	rxq->buf_len = RTE_MIN(room - RTE_PKTMBUF_HEADROOM, (uint32_t)UINT16_MAX);
	rxq->port_id = dev->data->port_id;
	rxq->qid = qid;
	rxq->socket_id = socket_id;
	rxq->offloads = conf->offloads | dev->data->dev_conf.rxmode.offloads;
	rxq->scatter = (rxq->offloads & RTE_ETH_RX_OFFLOAD_SCATTER) != 0;
	rxq->deferred_start = conf->rx_deferred_start != 0;
	rxq->max_pkt = ad->max_frame;
	rxq->max_segs = rxq->scatter ?
		(uint16_t)RTE_MIN((ad->max_frame + rxq->buf_len - 1) / rxq->buf_len,
				  (uint32_t)UINT16_MAX) : 1;
	if (!rxq->scatter &&
	    (uint32_t)dev->data->mtu + RTE_ETHER_HDR_LEN > rxq->buf_len)
		TALLY_DRV_LOG(NOTICE, "port %u rxq %u: frames above %u bytes will be dropped (no scatter)",
			      dev->data->port_id, qid, rxq->buf_len);
	dev->data->rx_queues[qid] = rxq;
	return 0;
}

int
tally_rx_queue_start(struct rte_eth_dev *dev, uint16_t qid)
{
	struct tally_adapter *ad = tally_adapter(dev);
	struct tally_rxq *rxq = dev->data->rx_queues[qid];
	uint16_t i;
	int rc;

	if (rxq == NULL)
		return -EINVAL;
	if (rxq->started)
		return 0;
	memset(rxq->cq, 0, sizeof(*rxq->cq) * rxq->nb_desc);
	if (rte_pktmbuf_alloc_bulk(rxq->mp, rxq->sw_ring, rxq->nb_desc) != 0) {
		TALLY_DRV_LOG(ERR, "port %u rxq %u: cannot allocate %u mbufs",
			      dev->data->port_id, qid, rxq->nb_desc);
		memset(rxq->sw_ring, 0, sizeof(rxq->sw_ring[0]) * rxq->nb_desc);
		return -ENOMEM;
	}
	for (i = 0; i < rxq->nb_desc; i++) {
		rxq->ring[i].addr = tally_mbuf_rx_iova(rxq->sw_ring[i]);
		rxq->ring[i].buf_len = rxq->buf_len;
	}
	rxq->cons = 0;
	rxq->prod = rxq->nb_desc;
	rxq->phase = 1;
	rxq->skip = false;
	rc = tally_hal_rxq_create(&ad->hal, qid, rxq->ring_iova, rxq->cq_iova,
				  rte_log2_u32(rxq->nb_desc));
	if (rc == 0)
		rc = tally_hal_rxq_enable(&ad->hal, qid, rxq->scatter);
	if (rc != 0) {
		tally_rxq_free_mbufs(rxq);
		return rc;
	}
	tally_hal_rxq_doorbell(&ad->hal, qid, rxq->prod);
	rxq->started = true;
	dev->data->rx_queue_state[qid] = RTE_ETH_QUEUE_STATE_STARTED;
	return 0;
}

int
tally_rx_queue_stop(struct rte_eth_dev *dev, uint16_t qid)
{
	struct tally_adapter *ad = tally_adapter(dev);
	struct tally_rxq *rxq = dev->data->rx_queues[qid];

	if (rxq == NULL)
		return -EINVAL;
	if (rxq->started) {
		tally_hal_rxq_disable(&ad->hal, qid);
		tally_rxq_free_mbufs(rxq);
		rxq->started = false;
	}
	dev->data->rx_queue_state[qid] = RTE_ETH_QUEUE_STATE_STOPPED;
	return 0;
}

void
tally_rxq_info_get(struct rte_eth_dev *dev, uint16_t qid,
		   struct rte_eth_rxq_info *qinfo)
{
	struct tally_rxq *rxq = dev->data->rx_queues[qid];

	qinfo->mp = rxq->mp;
	qinfo->scattered_rx = rxq->scatter;
	qinfo->nb_desc = rxq->nb_desc;
	qinfo->rx_buf_size = rxq->buf_len;
	qinfo->conf.offloads = rxq->offloads;
	qinfo->conf.rx_deferred_start = rxq->deferred_start;
	qinfo->queue_state = dev->data->rx_queue_state[qid];
}

/* ---- Tx ----------------------------------------------------------------- */

static void
tally_txq_free_mbufs(struct tally_txq *txq)
{
	uint16_t i;

	for (i = 0; i < txq->nb_desc; i++) {
		if (txq->sw_ring[i] != NULL)
			rte_pktmbuf_free_seg(txq->sw_ring[i]);
		txq->sw_ring[i] = NULL;
	}
}

void
tally_tx_queue_release(struct rte_eth_dev *dev, uint16_t qid)
{
	struct tally_txq *txq = dev->data->tx_queues[qid];

	if (txq == NULL)
		return;
	if (txq->started)
		tally_tx_queue_stop(dev, qid);
	tally_adapter(dev)->retired.tx_rejected[qid] += txq->sw_rejected;
	rte_free(txq->sw_ring);
	rte_free(txq->mem);
	rte_free(txq);
	dev->data->tx_queues[qid] = NULL;
}

int
tally_tx_queue_setup(struct rte_eth_dev *dev, uint16_t qid, uint16_t nb_desc,
		     unsigned int socket_id, const struct rte_eth_txconf *conf)
{
	struct tally_adapter *ad = tally_adapter(dev);
	struct tally_txq *txq;
	int rc;

	if (qid >= ad->max_txq)
		return -EINVAL;
	rc = tally_check_nb_desc(dev, nb_desc);
	if (rc != 0)
		return rc;
	tally_tx_queue_release(dev, qid);

	txq = rte_zmalloc_socket("tally_txq", sizeof(*txq), RTE_CACHE_LINE_SIZE,
				 socket_id);
	if (txq == NULL)
		return -ENOMEM;
	txq->sw_ring = rte_zmalloc_socket("tally_txq_sw",
					  sizeof(txq->sw_ring[0]) * nb_desc,
					  RTE_CACHE_LINE_SIZE, socket_id);
	txq->mem = tally_ring_alloc("tally_txq_ring",
				    (sizeof(struct tally_tx_desc) +
				     sizeof(struct tally_tx_cqe)) * nb_desc,
				    socket_id, &txq->ring_iova);
	if (txq->sw_ring == NULL || txq->mem == NULL) {
		rte_free(txq->sw_ring);
		rte_free(txq->mem);
		rte_free(txq);
		return -ENOMEM;
	}
	txq->ring = txq->mem;
	txq->cq = (struct tally_tx_cqe *)(txq->ring + nb_desc);
	txq->cq_iova = txq->ring_iova + sizeof(struct tally_tx_desc) * nb_desc;
	txq->port_id = dev->data->port_id;
	txq->nb_desc = nb_desc;
	txq->mask = nb_desc - 1;
	txq->max_frame = ad->max_frame;
	txq->qid = qid;
	txq->socket_id = socket_id;
	txq->offloads = conf->offloads | dev->data->dev_conf.txmode.offloads;
	txq->fast_free = (txq->offloads & RTE_ETH_TX_OFFLOAD_MBUF_FAST_FREE) != 0;
	txq->deferred_start = conf->tx_deferred_start != 0;
	dev->data->tx_queues[qid] = txq;
	return 0;
}

int
tally_tx_queue_start(struct rte_eth_dev *dev, uint16_t qid)
{
	struct tally_adapter *ad = tally_adapter(dev);
	struct tally_txq *txq = dev->data->tx_queues[qid];
	int rc;

	if (txq == NULL)
		return -EINVAL;
	if (txq->started)
		return 0;
	memset(txq->ring, 0, sizeof(*txq->ring) * txq->nb_desc);
	memset(txq->cq, 0, sizeof(*txq->cq) * txq->nb_desc);
	txq->cons = 0;
	txq->prod = 0;
	txq->slow_end = 0;
	txq->phase = 1;
	rc = tally_hal_txq_create(&ad->hal, qid, txq->ring_iova, txq->cq_iova,
				  rte_log2_u32(txq->nb_desc));
	if (rc == 0)
		rc = tally_hal_txq_enable(&ad->hal, qid);
	if (rc != 0)
		return rc;
	txq->started = true;
	dev->data->tx_queue_state[qid] = RTE_ETH_QUEUE_STATE_STARTED;
	return 0;
}

int
tally_tx_queue_stop(struct rte_eth_dev *dev, uint16_t qid)
{
	struct tally_adapter *ad = tally_adapter(dev);
	struct tally_txq *txq = dev->data->tx_queues[qid];

	if (txq == NULL)
		return -EINVAL;
	if (txq->started) {
		tally_hal_txq_disable(&ad->hal, qid);
		tally_txq_free_mbufs(txq);
		txq->started = false;
	}
	dev->data->tx_queue_state[qid] = RTE_ETH_QUEUE_STATE_STOPPED;
	return 0;
}

void
tally_txq_info_get(struct rte_eth_dev *dev, uint16_t qid,
		   struct rte_eth_txq_info *qinfo)
{
	struct tally_txq *txq = dev->data->tx_queues[qid];

	qinfo->nb_desc = txq->nb_desc;
	qinfo->conf.offloads = txq->offloads;
	qinfo->conf.tx_deferred_start = txq->deferred_start;
	qinfo->queue_state = dev->data->tx_queue_state[qid];
}

/*
 * Descriptor status (rte_eth_rx/tx_descriptor_status). Read-only: loads the
 * completion phase with acquire (as the burst functions do) and never
 * consumes anything, so it may run on the queue's lcore between bursts.
 * Ring indices are free-running from 0 at queue start and the expected phase
 * starts at 1 and flips on every pass over the ring, so the phase a
 * completion for index j carries is 1 ^ ((j / nb_desc) & 1).
 */
static inline uint8_t
tally_desc_phase(uint32_t j, uint16_t nb_desc)
{
	return 1 ^ ((j / nb_desc) & 1);
}

/* offset counts from the next descriptor rx_burst will look at. Every slot
 * is posted to the device, so a slot is DONE (a completion waits) or AVAIL. */
int
tally_rx_descriptor_status(void *queue, uint16_t offset)
{
	struct tally_rxq *rxq = queue;
	uint32_t j;

	/* ethdev passes the queue without checking it exists */
	if (rxq == NULL || offset >= rxq->nb_desc)
		return -EINVAL;
	if (!rxq->started)
		return RTE_ETH_RX_DESC_UNAVAIL;
	j = rxq->cons + offset;
	return tally_hal_rx_cqe_ready(&rxq->cq[j & rxq->mask],
				      tally_desc_phase(j, rxq->nb_desc)) ?
		RTE_ETH_RX_DESC_DONE : RTE_ETH_RX_DESC_AVAIL;
}

/* offset counts from the next descriptor tx_burst will fill. The slot is
 * either free (DONE: reclaimed, or never used) or still holds a descriptor
 * given to the device: DONE once its completion is written (tx_burst will
 * reclaim it), FULL while the device has not sent it. */
int
tally_tx_descriptor_status(void *queue, uint16_t offset)
{
	struct tally_txq *txq = queue;
	uint32_t inflight, ahead, j;

	if (txq == NULL || offset >= txq->nb_desc)
		return -EINVAL;
	if (!txq->started)
		return RTE_ETH_TX_DESC_UNAVAIL;
	inflight = txq->prod - txq->cons;
	ahead = inflight + offset;
	if (ahead < txq->nb_desc)
		return RTE_ETH_TX_DESC_DONE;
	j = txq->cons + (ahead - txq->nb_desc);
	return tally_hal_tx_cqe_ready(&txq->cq[j & txq->mask],
				      tally_desc_phase(j, txq->nb_desc)) ?
		RTE_ETH_TX_DESC_DONE : RTE_ETH_TX_DESC_FULL;
}
