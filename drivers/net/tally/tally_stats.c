/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Basic and extended statistics.
 *
 * Sources: the device's port statistics block and per-queue statistics
 * (memory-like 64-bit values in the BAR, read with plain loads through the
 * HAL), plus the few software counters of the burst functions. The device
 * never resets them; stats_reset and xstats_reset record a software baseline
 * (one shared baseline, so either reset clears both views) that every read
 * subtracts.
 *
 * xstats layout: every port statistic (enum tally_port_stat order), the
 * driver's tx_rejected, dev_faults (device faults of every cause: DMA,
 * descriptors, registers, queue set-up, steering entries), the gauge
 * flow_counters_in_use (counters the flow engine has handed out),
 * rx_cqe_bad_len and rx_cqe_bad_chain (Rx completions the driver refused:
 * faults of the device it found, each also in the queue's errors and in
 * ierrors), then rx_q<i>_{packets,bytes,drops,errors} for each
 * configured Rx queue and tx_q<i>_{...} for each configured Tx queue. ethdev
 * prepends its generic rx_good_packets ... tx_errors from stats_get; the
 * device's TX_ERRORS is therefore named tx_desc_errors here.
 *
 * Tx losses, each frame counted once (doc/guides/nics/tally.rst):
 *   oerrors = tx_wire_drop + tx_rejected + frames the device completed with
 *             a descriptor or DMA error (its queues' ERRORS, every queue)
 *           = sum over the configured queues of tx_q<i>_errors + tx_q<i>_drops
 * tx_desc_errors counts descriptors, not frames, and only descriptor and DMA
 * errors: a diagnostic, never added to oerrors.
 */
#include <stdio.h>
#include <string.h>

#include "tally_hal_io.h"
#include "tally_pmd.h"
#include "tally_flow.h"
#include "tally_logs.h"
#include "tally_mp.h"

static const char *const tally_q_stat_names[] = {
	"packets", "bytes", "drops", "errors",
};
#define TALLY_Q_XSTATS	RTE_DIM(tally_q_stat_names)
#define TALLY_DRV_XSTATS	5	/* tx_rejected, dev_faults, flow_counters_in_use,
				 * rx_cqe_bad_len, rx_cqe_bad_chain */

/* Current values minus baselines, for one consistent pass: the counters that
 * have a reset baseline, plus the gauges that do not. */
struct tally_stats_now {
	struct tally_stats_base c;
	uint64_t cnt_in_use;		/* gauge: no baseline */
};

static uint16_t
tally_nb_rxq(const struct rte_eth_dev *dev)
{
	return RTE_MIN(dev->data->nb_rx_queues, TALLY_PMD_MAX_QUEUES);
}

static uint16_t
tally_nb_txq(const struct rte_eth_dev *dev)
{
	return RTE_MIN(dev->data->nb_tx_queues, TALLY_PMD_MAX_QUEUES);
}

static void
tally_q_sub(struct tally_hal_qstats *a, const struct tally_hal_qstats *b)
{
	a->packets -= b->packets;
	a->bytes -= b->bytes;
	a->drops -= b->drops;
	a->errors -= b->errors;
}

/* Raw values (no baseline), used for both reads and resets. */
static void
tally_stats_raw(struct rte_eth_dev *dev, struct tally_stats_now *n)
{
	struct tally_adapter *ad = tally_adapter(dev);
	struct tally_hal_dev *hal = tally_proc_hal(dev);
	struct tally_hal_fault flt;
	uint16_t i;

	memset(n, 0, sizeof(*n));
	tally_hal_port_stats(hal, n->c.port);
	for (i = 0; i < tally_nb_rxq(dev); i++) {
		struct tally_rxq *rxq = dev->data->rx_queues[i];

		tally_hal_rxq_stats(hal, i, &n->c.rxq[i]);
		n->c.rxq[i].errors += ad->retired.rx_errors[i];
		if (rxq != NULL) {
			n->c.rxq[i].errors += rxq->sw_errors + rxq->bad_len +
					      rxq->bad_chain;
			n->c.rx_bad_len += rxq->bad_len;
			n->c.rx_bad_chain += rxq->bad_chain;
		}
	}
	n->c.rx_bad_len += ad->retired.rx_bad_len;
	n->c.rx_bad_chain += ad->retired.rx_bad_chain;
	for (i = 0; i < RTE_MIN(ad->max_txq, TALLY_PMD_MAX_QUEUES); i++) {
		struct tally_hal_qstats q;

		if (tally_hal_txq_stats(hal, i, &q) == 0)
			n->c.tx_bad_frames += q.errors;
	}
	for (i = 0; i < tally_nb_txq(dev); i++) {
		struct tally_txq *txq = dev->data->tx_queues[i];

		tally_hal_txq_stats(hal, i, &n->c.txq[i]);
		n->c.txq[i].errors += ad->retired.tx_rejected[i];
		n->c.tx_rejected += ad->retired.tx_rejected[i];
		if (txq != NULL) {
			n->c.txq[i].errors += txq->sw_rejected;
			n->c.tx_rejected += txq->sw_rejected;
		}
	}
	n->c.rx_nombuf = dev->data->rx_mbuf_alloc_failed;
	tally_hal_fault_read(hal, &flt, false);
	n->c.dev_faults = flt.count;
	n->cnt_in_use = tally_mp_cnt_in_use(dev);
}

static void
tally_stats_now(struct rte_eth_dev *dev, struct tally_stats_now *n)
{
	struct tally_stats_base *b = &tally_adapter(dev)->base;
	uint16_t i;

	tally_stats_raw(dev, n);
	for (i = 0; i < TALLY_STAT_NUM; i++)
		n->c.port[i] -= b->port[i];
	for (i = 0; i < TALLY_PMD_MAX_QUEUES; i++) {
		tally_q_sub(&n->c.rxq[i], &b->rxq[i]);
		tally_q_sub(&n->c.txq[i], &b->txq[i]);
	}
	n->c.tx_rejected -= b->tx_rejected;
	n->c.tx_bad_frames -= b->tx_bad_frames;
	n->c.rx_nombuf -= b->rx_nombuf;
	n->c.dev_faults -= b->dev_faults;
	n->c.rx_bad_len -= b->rx_bad_len;
	n->c.rx_bad_chain -= b->rx_bad_chain;
}

void
tally_stats_rx_refused(struct rte_eth_dev *dev, uint64_t *bad_len,
		       uint64_t *bad_chain)
{
	struct tally_adapter *ad = tally_adapter(dev);
	uint16_t i;

	*bad_len = ad->retired.rx_bad_len;
	*bad_chain = ad->retired.rx_bad_chain;
	for (i = 0; i < tally_nb_rxq(dev); i++) {
		const struct tally_rxq *rxq = dev->data->rx_queues[i];

		if (rxq != NULL) {
			*bad_len += rxq->bad_len;
			*bad_chain += rxq->bad_chain;
		}
	}
}

int
tally_stats_get(struct rte_eth_dev *dev, struct rte_eth_stats *st)
{
	struct tally_stats_now n;
	uint16_t i;

	tally_stats_now(dev, &n);
	st->ipackets = n.c.port[TALLY_STAT_RX_PKTS];
	st->ibytes = n.c.port[TALLY_STAT_RX_BYTES];
	st->opackets = n.c.port[TALLY_STAT_TX_PKTS];
	st->obytes = n.c.port[TALLY_STAT_TX_BYTES];
	st->imissed = n.c.port[TALLY_STAT_RX_MISSED];
	st->ierrors = n.c.port[TALLY_STAT_RX_ERR_RUNT] +
		      n.c.port[TALLY_STAT_RX_ERR_OVERSIZE] +
		      n.c.port[TALLY_STAT_RX_ERR_TRUNC] +
		      n.c.port[TALLY_STAT_RX_ERR_DAMAGED] +
		      n.c.rx_bad_len + n.c.rx_bad_chain;
	st->oerrors = n.c.port[TALLY_STAT_TX_WIRE_DROP] + n.c.tx_rejected +
		      n.c.tx_bad_frames;
	st->rx_nombuf = n.c.rx_nombuf;
	for (i = 0; i < tally_nb_rxq(dev) && i < RTE_ETHDEV_QUEUE_STAT_CNTRS; i++) {
		st->q_ipackets[i] = n.c.rxq[i].packets;
		st->q_ibytes[i] = n.c.rxq[i].bytes;
		st->q_errors[i] = n.c.rxq[i].errors;
	}
	for (i = 0; i < tally_nb_txq(dev) && i < RTE_ETHDEV_QUEUE_STAT_CNTRS; i++) {
		st->q_opackets[i] = n.c.txq[i].packets;
		st->q_obytes[i] = n.c.txq[i].bytes;
	}
	return 0;
}

int
tally_stats_reset(struct rte_eth_dev *dev)
{
	struct tally_stats_base *b = &tally_adapter(dev)->base;
	struct tally_stats_now n;

	tally_stats_raw(dev, &n);
	*b = n.c;
	return 0;
}

int
tally_xstats_reset(struct rte_eth_dev *dev)
{
	return tally_stats_reset(dev);
}

static unsigned int
tally_xstats_count(const struct rte_eth_dev *dev)
{
	return TALLY_STAT_NUM + TALLY_DRV_XSTATS +
	       TALLY_Q_XSTATS * (tally_nb_rxq(dev) + tally_nb_txq(dev));
}

static void
tally_q_values(const struct tally_hal_qstats *q, uint64_t v[TALLY_Q_XSTATS])
{
	v[0] = q->packets;
	v[1] = q->bytes;
	v[2] = q->drops;
	v[3] = q->errors;
}

int
tally_xstats_get(struct rte_eth_dev *dev, struct rte_eth_xstat *xs,
		 unsigned int n)
{
	unsigned int total = tally_xstats_count(dev), k = 0, i, j;
	struct tally_stats_now now;
	uint64_t v[TALLY_Q_XSTATS];

	if (xs == NULL || n < total)
		return total;
	tally_stats_now(dev, &now);
	for (i = 0; i < TALLY_STAT_NUM; i++, k++)
		xs[k] = (struct rte_eth_xstat){ .id = k, .value = now.c.port[i] };
	xs[k] = (struct rte_eth_xstat){ .id = k, .value = now.c.tx_rejected };
	k++;
	xs[k] = (struct rte_eth_xstat){ .id = k, .value = now.c.dev_faults };
	k++;
	xs[k] = (struct rte_eth_xstat){ .id = k, .value = now.cnt_in_use };
	k++;
	xs[k] = (struct rte_eth_xstat){ .id = k, .value = now.c.rx_bad_len };
	k++;
	xs[k] = (struct rte_eth_xstat){ .id = k, .value = now.c.rx_bad_chain };
	k++;
	for (i = 0; i < tally_nb_rxq(dev); i++) {
		tally_q_values(&now.c.rxq[i], v);
		for (j = 0; j < TALLY_Q_XSTATS; j++, k++)
			xs[k] = (struct rte_eth_xstat){ .id = k, .value = v[j] };
	}
	for (i = 0; i < tally_nb_txq(dev); i++) {
		tally_q_values(&now.c.txq[i], v);
		for (j = 0; j < TALLY_Q_XSTATS; j++, k++)
			xs[k] = (struct rte_eth_xstat){ .id = k, .value = v[j] };
	}
	return k;
}

int
tally_xstats_get_names(struct rte_eth_dev *dev,
		       struct rte_eth_xstat_name *names, unsigned int n)
{
	unsigned int total = tally_xstats_count(dev), k = 0, i, j;

	if (names == NULL || n < total)
		return total;
	for (i = 0; i < TALLY_STAT_NUM; i++, k++)
		snprintf(names[k].name, sizeof(names[k].name), "%s",
			 tally_port_stat_name(i));
	snprintf(names[k].name, sizeof(names[k].name), "tx_rejected");
	k++;
	snprintf(names[k].name, sizeof(names[k].name), "dev_faults");
	k++;
	snprintf(names[k].name, sizeof(names[k].name), "flow_counters_in_use");
	k++;
	snprintf(names[k].name, sizeof(names[k].name), "rx_cqe_bad_len");
	k++;
	snprintf(names[k].name, sizeof(names[k].name), "rx_cqe_bad_chain");
	k++;
	for (i = 0; i < tally_nb_rxq(dev); i++)
		for (j = 0; j < TALLY_Q_XSTATS; j++, k++)
			snprintf(names[k].name, sizeof(names[k].name),
				 "rx_q%u_%s", i, tally_q_stat_names[j]);
	for (i = 0; i < tally_nb_txq(dev); i++)
		for (j = 0; j < TALLY_Q_XSTATS; j++, k++)
			snprintf(names[k].name, sizeof(names[k].name),
				 "tx_q%u_%s", i, tally_q_stat_names[j]);
	return k;
}
