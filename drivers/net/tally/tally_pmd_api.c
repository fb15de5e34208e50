/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rte_pmd_tally_* public functions (rte_pmd_tally.h).
 */
#include <inttypes.h>

#include "tally_hal_io.h"
#include "tally_model.h"
#include "tally_pmd.h"
#include "tally_flow.h"
#include "rte_pmd_tally.h"

int
rte_pmd_tally_model_step(uint16_t port_id)
{
	struct tally_adapter *ad = tally_adapter_from_port(port_id);
	struct tally_model *model;

	if (ad == NULL || ad->closed)
		return -ENODEV;
	model = tally_proc(ad->eth_dev)->model;
	if (model == NULL) {
		/* the device runs by itself; a register read waits until it
		 * has applied every write posted before (doorbells included) */
		(void)tally_hal_read32(&ad->hal, TALLY_REG_STATUS);
		return 0;
	}
	return (int)tally_model_step(model);
}

static void
tally_dump_queues(struct rte_eth_dev *dev, FILE *f)
{
	struct tally_adapter *ad = tally_adapter(dev);
	struct tally_hal_qstats qs;
	uint16_t i;

	for (i = 0; i < dev->data->nb_rx_queues; i++) {
		struct tally_rxq *q = dev->data->rx_queues[i];

		if (q == NULL)
			continue;
		tally_hal_rxq_stats(&ad->hal, i, &qs);
		fprintf(f, "  rxq %u: %s desc %u buf %u scatter %d prod %u cons %u head %u"
			" pkts %" PRIu64 " bytes %" PRIu64 " drops %" PRIu64
			" errors %" PRIu64 "\n", i, q->started ? "on" : "off",
			q->nb_desc, q->buf_len, q->scatter, q->prod, q->cons,
			tally_hal_read32(&ad->hal, TALLY_RXQ_REG(i, TALLY_Q_HEAD)),
			qs.packets, qs.bytes, qs.drops, qs.errors);
	}
	for (i = 0; i < dev->data->nb_tx_queues; i++) {
		struct tally_txq *q = dev->data->tx_queues[i];

		if (q == NULL)
			continue;
		tally_hal_txq_stats(&ad->hal, i, &qs);
		fprintf(f, "  txq %u: %s desc %u prod %u cons %u head %u rejected %" PRIu64
			" pkts %" PRIu64 " bytes %" PRIu64 " drops %" PRIu64
			" errors %" PRIu64 "\n", i, q->started ? "on" : "off",
			q->nb_desc, q->prod, q->cons,
			tally_hal_read32(&ad->hal, TALLY_TXQ_REG(i, TALLY_Q_HEAD)),
			q->sw_rejected, qs.packets, qs.bytes, qs.drops, qs.errors);
	}
}

int
rte_pmd_tally_dump(uint16_t port_id, FILE *f)
{
	struct tally_adapter *ad = tally_adapter_from_port(port_id);
	struct tally_hal_dev *hal;
	struct tally_hal_fault flt;
	struct tally_dma_stats ds;
	uint64_t st[TALLY_STAT_NUM], wiova, wlen;
	unsigned int i;

	if (ad == NULL || ad->closed)
		return -ENODEV;
	if (f == NULL)
		return -EINVAL;
	hal = &ad->hal;
	fprintf(f, "tally port %u (%s): spec %u.%u via %s\n", port_id,
		ad->eth_dev->data->name, tally_hal_version_major(hal),
		tally_hal_version_minor(hal), hal->io.ops->name);
	fprintf(f, "  caps 0x%08x queues rx %u tx %u rings 2^%u..2^%u max_frame %u\n",
		hal->caps, hal->nb_rxq, hal->nb_txq, hal->ring_min_log2,
		hal->ring_max_log2, hal->max_frame);
	fprintf(f, "  counters %u @0x%x comp_counters %u @0x%x\n",
		hal->cnt_num, hal->cnt_off, hal->ccnt_num, hal->ccnt_off);
	tally_dma_stats(ad, &ds);
	fprintf(f, "  dma: %u/%u translations, %" PRIu64 " MiB mapped, %" PRIu64
		" maps, %" PRIu64 " unmaps, %" PRIu64 " map errors\n",
		ds.translations, hal->xlt_max, ds.mapped_bytes >> 20, ds.maps,
		ds.unmaps, ds.map_errors);
	if (tally_flow_mem_window(ad->flow, &wiova, &wlen))
		fprintf(f, "  steering memory: host window 0x%" PRIx64 "+0x%" PRIx64
			", %zu bytes in use, %zu populated at probe, %s pages\n", wiova, wlen,
			tally_flow_mem_window_used(ad->flow),
			tally_flow_mem_window_populated(ad->flow),
			tally_flow_mem_window_hugetlb(ad->flow) ? "hugetlbfs" : "transparent huge");
	else
		fprintf(f, "  steering memory: DPDK\n");
	fprintf(f, "  ctrl 0x%08x status 0x%08x mtu %u rss_hf 0x%x\n",
		tally_hal_ctrl_get(hal), tally_hal_read32(hal, TALLY_REG_STATUS),
		tally_hal_read32(hal, TALLY_REG_MTU),
		tally_hal_read32(hal, TALLY_REG_RSS_HF));
	tally_hal_fault_read(hal, &flt, false);
	fprintf(f, "  faults %u last %s addr 0x%" PRIx64 "%s\n", flt.count,
		tally_hal_fault_str(flt.cause), flt.addr,
		flt.pending ? " (pending)" : "");
	tally_hal_port_stats(hal, st);
	for (i = 0; i < TALLY_STAT_NUM; i++)
		fprintf(f, "  %-16s %" PRIu64 "\n", tally_port_stat_name(i), st[i]);
	tally_dump_queues(ad->eth_dev, f);
	return 0;
}
