/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ethdev control ops shared by the vdev and PCI probes.
 *
 * Every op of the primary enters the port (tally_port_state.c) for what it
 * needs. After the device is gone (doc/guides/nics/tally.rst, "Device
 * loss") what would program the device fails with -EIO: configure, start,
 * queue setup and start, MTU, MAC address set and add, the multicast list,
 * link up and down, promiscuous and all-multicast, RSS hash and RETA
 * updates. What undoes, releases or reads software state succeeds: stop,
 * close, queue stop and release, MAC address removal (ethdev's copy only),
 * link (down), statistics and their reset (baselines), device and queue
 * info, RSS and RETA queries.
 */
#include <stdlib.h>
#include <string.h>

#include <rte_malloc.h>
#include <rte_memory.h>

#include "tally_hal_io.h"
#include "tally_compat.h"
#include "tally_dma.h"
#include "tally_pmd.h"
#include "tally_flow.h"
#include "tally_logs.h"
#include "tally_mp.h"
#include "tally_rxtx.h"

/* The Toeplitz key most NICs ship as default (Microsoft RSS verification). */
static const uint8_t tally_default_rss_key[TALLY_RSS_KEY_LEN] = {
	0x6d, 0x5a, 0x56, 0xda, 0x25, 0x5b, 0x0e, 0xc2,
	0x41, 0x67, 0x25, 0x3d, 0x43, 0xa3, 0x8f, 0xb0,
	0xd0, 0xca, 0x2b, 0xcb, 0xae, 0x7b, 0x30, 0xb4,
	0x77, 0xcb, 0x2d, 0xa3, 0x80, 0x30, 0xf2, 0x0c,
	0x6a, 0x42, 0xb7, 0x3b, 0xbe, 0xac, 0x01, 0xfa,
};

static int
tally_dev_configure_locked(struct rte_eth_dev *dev)
{
	struct tally_adapter *ad = tally_adapter(dev);
	struct rte_eth_conf *conf = &dev->data->dev_conf;
	enum rte_eth_rx_mq_mode mq = conf->rxmode.mq_mode;
	struct rte_eth_rss_conf *rss = &conf->rx_adv_conf.rss_conf;

	if (mq != RTE_ETH_MQ_RX_NONE && mq != RTE_ETH_MQ_RX_RSS) {
		TALLY_DRV_LOG(ERR, "port %u: rx mq_mode %d not supported",
			      dev->data->port_id, mq);
		return -EINVAL;
	}
	if (conf->txmode.mq_mode != RTE_ETH_MQ_TX_NONE) {
		TALLY_DRV_LOG(ERR, "port %u: tx mq_mode %d not supported",
			      dev->data->port_id, conf->txmode.mq_mode);
		return -EINVAL;
	}
	if (mq == RTE_ETH_MQ_RX_RSS) {
		if (rss->rss_hf & ~TALLY_PMD_RSS_HF) {
			TALLY_DRV_LOG(ERR, "port %u: rss_hf 0x%" PRIx64 " not supported",
				      dev->data->port_id, rss->rss_hf & ~TALLY_PMD_RSS_HF);
			return -EINVAL;
		}
		if (rss->rss_key != NULL && rss->rss_key_len != TALLY_RSS_KEY_LEN) {
			TALLY_DRV_LOG(ERR, "port %u: rss key length %u, need %u",
				      dev->data->port_id, rss->rss_key_len,
				      TALLY_RSS_KEY_LEN);
			return -EINVAL;
		}
		if (rss->rss_key != NULL)
			memcpy(ad->rss_key, rss->rss_key, TALLY_RSS_KEY_LEN);
		ad->rss_hf = rss->rss_hf;
		conf->rxmode.offloads |= RTE_ETH_RX_OFFLOAD_RSS_HASH;
	}
	ad->reta_user = false;
	tally_reta_default(ad, dev->data->nb_rx_queues);
	return 0;
}

static int
tally_dev_configure(struct rte_eth_dev *dev)
{
	int rc = tally_port_enter(dev, TALLY_PORT_DEVICE);

	if (rc != 0)
		return rc;
	rc = tally_dev_configure_locked(dev);
	tally_port_leave(dev);
	return rc;
}

static void
tally_queues_stop_all(struct rte_eth_dev *dev)
{
	uint16_t i;

	for (i = 0; i < dev->data->nb_rx_queues; i++)
		tally_rx_queue_stop(dev, i);
	for (i = 0; i < dev->data->nb_tx_queues; i++)
		tally_tx_queue_stop(dev, i);
}

static uint32_t
tally_ctrl_bits(struct rte_eth_dev *dev)
{
	uint32_t ctrl = TALLY_CTRL_ENABLE;

	if (dev->data->promiscuous)
		ctrl |= TALLY_CTRL_PROMISC;
	if (dev->data->all_multicast)
		ctrl |= TALLY_CTRL_ALLMULTI;
	if (tally_rss_enabled(dev) && dev->data->nb_rx_queues > 1)
		ctrl |= TALLY_CTRL_RSS;
	return ctrl;
}

static int
tally_dev_start_locked(struct rte_eth_dev *dev)
{
	struct tally_adapter *ad = tally_adapter(dev);
	uint16_t i;
	int rc;

	for (i = 0; i < dev->data->nb_rx_queues; i++)
		if (dev->data->rx_queues[i] == NULL) {
			TALLY_DRV_LOG(ERR, "port %u: rx queue %u not set up",
				      dev->data->port_id, i);
			return -EINVAL;
		}
	for (i = 0; i < dev->data->nb_tx_queues; i++)
		if (dev->data->tx_queues[i] == NULL) {
			TALLY_DRV_LOG(ERR, "port %u: tx queue %u not set up",
				      dev->data->port_id, i);
			return -EINVAL;
		}
	tally_hal_set_mtu(&ad->hal, dev->data->mtu);
	if (!ad->reta_user)
		tally_reta_default(ad, dev->data->nb_rx_queues);
	rc = tally_rss_program(dev);
	if (rc != 0)
		goto err;
	for (i = 0; i < dev->data->nb_rx_queues; i++) {
		struct tally_rxq *rxq = dev->data->rx_queues[i];

		if (rxq->deferred_start)
			continue;
		rc = tally_rx_queue_start(dev, i);
		if (rc != 0)
			goto err_queues;
	}
	for (i = 0; i < dev->data->nb_tx_queues; i++) {
		struct tally_txq *txq = dev->data->tx_queues[i];

		if (txq->deferred_start)
			continue;
		rc = tally_tx_queue_start(dev, i);
		if (rc != 0)
			goto err_queues;
	}
	tally_set_rxtx_functions(dev);
	tally_hal_ctrl_update(&ad->hal, tally_ctrl_bits(dev),
			      TALLY_CTRL_RSS | TALLY_CTRL_PROMISC |
			      TALLY_CTRL_ALLMULTI);
	ad->started = true;
	/* up, unless held down (tally_link.c) */
	(void)tally_link_refresh(dev);
	return 0;

err_queues:
	tally_queues_stop_all(dev);
err:
	return rc;
}

/* Also after the loss: the writes go nowhere, the queues' mbufs come back. */
static void
tally_dev_stop_locked(struct rte_eth_dev *dev)
{
	struct tally_adapter *ad = tally_adapter(dev);

	tally_hal_ctrl_update(&ad->hal, 0, TALLY_CTRL_ENABLE);
	tally_queues_stop_all(dev);
	ad->started = false;
	(void)tally_link_refresh(dev);
}

static int
tally_dev_start(struct rte_eth_dev *dev)
{
	int rc = tally_port_enter(dev, TALLY_PORT_DEVICE);

	if (rc != 0)
		return rc;
	rc = tally_dev_start_locked(dev);
	/* the device went while starting: the real bursts would go back in */
	if (rc == 0 && tally_port_gone(dev)) {
		tally_dev_stop_locked(dev);
		rc = -EIO;
	}
	tally_port_leave(dev);
	return rc;
}

static int
tally_dev_stop(struct rte_eth_dev *dev)
{
	int rc = tally_port_enter(dev, TALLY_PORT_SOFT);

	if (rc != 0)
		return rc;
	tally_dev_stop_locked(dev);
	tally_port_leave(dev);
	return 0;
}

/*
 * Once, from whichever thread comes first (the application's, or EAL's
 * interrupt thread running a removal handler); a close that comes second
 * waits for the first and returns 0. After the loss nothing here waits for
 * the device.
 */
int
tally_dev_close(struct rte_eth_dev *dev)
{
	struct tally_adapter *ad;
	uint16_t i;

	if (rte_eal_process_type() != RTE_PROC_PRIMARY)
		return 0;
	if (!tally_port_close_begin(dev))
		return 0;
	tally_link_watch_stop(dev);
	ad = tally_adapter(dev);
	if (ad->started)
		tally_dev_stop_locked(dev);
	for (i = 0; i < dev->data->nb_rx_queues; i++)
		tally_rx_queue_release(dev, i);
	for (i = 0; i < dev->data->nb_tx_queues; i++)
		tally_tx_queue_release(dev, i);
	tally_dma_fini(ad);
	tally_flow_fini(ad);
	if (ad->hal_open)
		tally_hal_close(&ad->hal);
	ad->hal_open = false;
	if (tally_proc(dev)->transport_fini != NULL)
		tally_proc(dev)->transport_fini(ad);
	tally_proc(dev)->transport_fini = NULL;
	tally_mp_proc_free(dev);
	tally_switch_detach(ad);
	ad->closed = true;
	tally_port_close_end(dev);
	return 0;
}

static int
tally_ctrl_bit(struct rte_eth_dev *dev, uint32_t bit, bool on)
{
	struct tally_adapter *ad = tally_adapter(dev);
	int rc = tally_port_enter(dev, TALLY_PORT_DEVICE);

	if (rc != 0)
		return rc;
	tally_hal_ctrl_update(&ad->hal, on ? bit : 0, on ? 0 : bit);
	tally_port_leave(dev);
	return 0;
}

static int
tally_promiscuous_enable(struct rte_eth_dev *dev)
{
	return tally_ctrl_bit(dev, TALLY_CTRL_PROMISC, true);
}

static int
tally_promiscuous_disable(struct rte_eth_dev *dev)
{
	return tally_ctrl_bit(dev, TALLY_CTRL_PROMISC, false);
}

static int
tally_allmulticast_enable(struct rte_eth_dev *dev)
{
	return tally_ctrl_bit(dev, TALLY_CTRL_ALLMULTI, true);
}

static int
tally_allmulticast_disable(struct rte_eth_dev *dev)
{
	return tally_ctrl_bit(dev, TALLY_CTRL_ALLMULTI, false);
}

static int
tally_mtu_set(struct rte_eth_dev *dev, uint16_t mtu)
{
	struct tally_adapter *ad = tally_adapter(dev);
	int rc = tally_port_enter(dev, TALLY_PORT_DEVICE);

	if (rc != 0)
		return rc;
	if ((uint32_t)mtu + RTE_ETHER_HDR_LEN > ad->max_frame)
		rc = -EINVAL;
	else
		tally_hal_set_mtu(&ad->hal, mtu);
	tally_port_leave(dev);
	return rc;
}

TALLY_PTYPES_GET_DEFINE(tally_supported_ptypes_get, tally_supported_ptypes)

static int
tally_rx_metadata_negotiate(struct rte_eth_dev *dev, uint64_t *features)
{
	RTE_SET_USED(dev);
	*features &= RTE_ETH_RX_METADATA_USER_MARK | RTE_ETH_RX_METADATA_USER_FLAG;
	return 0;
}

/* ---- the ops as ethdev calls them: inside the port ---------------------------
 *
 * Each op enters the port for what it needs (tally_port_state.c): the
 * TALLY_PORT_DEVICE ones fail with -EIO once the device is gone; all fail
 * with -ENODEV while another thread closes the port. A void op then does
 * nothing.
 */

static int
tally_op_dev_infos_get(struct rte_eth_dev *dev, struct rte_eth_dev_info *info)
{
	int rc = tally_port_enter(dev, TALLY_PORT_SOFT);

	if (rc != 0)
		return rc;
	rc = tally_dev_infos_get(dev, info);
	tally_port_leave(dev);
	return rc;
}

static int
tally_op_fw_version_get(struct rte_eth_dev *dev, char *fw, size_t len)
{
	int rc = tally_port_enter(dev, TALLY_PORT_SOFT);

	if (rc != 0)
		return rc;
	rc = tally_fw_version_get(dev, fw, len);
	tally_port_leave(dev);
	return rc;
}

static int
tally_op_rss_hash_update(struct rte_eth_dev *dev, struct rte_eth_rss_conf *conf)
{
	int rc = tally_port_enter(dev, TALLY_PORT_DEVICE);

	if (rc != 0)
		return rc;
	rc = tally_rss_hash_update(dev, conf);
	tally_port_leave(dev);
	return rc;
}

static int
tally_op_rss_hash_conf_get(struct rte_eth_dev *dev, struct rte_eth_rss_conf *conf)
{
	int rc = tally_port_enter(dev, TALLY_PORT_SOFT);

	if (rc != 0)
		return rc;
	rc = tally_rss_hash_conf_get(dev, conf);
	tally_port_leave(dev);
	return rc;
}

static int
tally_op_reta_update(struct rte_eth_dev *dev, struct rte_eth_rss_reta_entry64 *reta,
		     uint16_t size)
{
	int rc = tally_port_enter(dev, TALLY_PORT_DEVICE);

	if (rc != 0)
		return rc;
	rc = tally_reta_update(dev, reta, size);
	tally_port_leave(dev);
	return rc;
}

static int
tally_op_reta_query(struct rte_eth_dev *dev, struct rte_eth_rss_reta_entry64 *reta,
		    uint16_t size)
{
	int rc = tally_port_enter(dev, TALLY_PORT_SOFT);

	if (rc != 0)
		return rc;
	rc = tally_reta_query(dev, reta, size);
	tally_port_leave(dev);
	return rc;
}

static int
tally_op_stats_get(struct rte_eth_dev *dev, struct rte_eth_stats *st)
{
	int rc = tally_port_enter(dev, TALLY_PORT_SOFT);

	if (rc != 0)
		return rc;
	rc = tally_stats_get(dev, st);
	tally_port_leave(dev);
	return rc;
}

static int
tally_op_stats_reset(struct rte_eth_dev *dev)
{
	int rc = tally_port_enter(dev, TALLY_PORT_SOFT);

	if (rc != 0)
		return rc;
	rc = tally_stats_reset(dev);
	tally_port_leave(dev);
	return rc;
}

static int
tally_op_xstats_get(struct rte_eth_dev *dev, struct rte_eth_xstat *xs, unsigned int n)
{
	int rc = tally_port_enter(dev, TALLY_PORT_SOFT);

	if (rc != 0)
		return rc;
	rc = tally_xstats_get(dev, xs, n);
	tally_port_leave(dev);
	return rc;
}

static int
tally_op_xstats_get_names(struct rte_eth_dev *dev, struct rte_eth_xstat_name *names,
			  unsigned int n)
{
	int rc = tally_port_enter(dev, TALLY_PORT_SOFT);

	if (rc != 0)
		return rc;
	rc = tally_xstats_get_names(dev, names, n);
	tally_port_leave(dev);
	return rc;
}

static int
tally_op_xstats_reset(struct rte_eth_dev *dev)
{
	int rc = tally_port_enter(dev, TALLY_PORT_SOFT);

	if (rc != 0)
		return rc;
	rc = tally_xstats_reset(dev);
	tally_port_leave(dev);
	return rc;
}

static int
tally_op_priv_dump(struct rte_eth_dev *dev, FILE *f)
{
	int rc = tally_port_enter(dev, TALLY_PORT_SOFT);

	if (rc != 0)
		return rc;
	rc = tally_dev_priv_dump(dev, f);
	tally_port_leave(dev);
	return rc;
}

static void
tally_op_rxq_info_get(struct rte_eth_dev *dev, uint16_t qid, struct rte_eth_rxq_info *qinfo)
{
	if (tally_port_enter(dev, TALLY_PORT_SOFT) != 0)
		return;
	tally_rxq_info_get(dev, qid, qinfo);
	tally_port_leave(dev);
}

static void
tally_op_txq_info_get(struct rte_eth_dev *dev, uint16_t qid, struct rte_eth_txq_info *qinfo)
{
	if (tally_port_enter(dev, TALLY_PORT_SOFT) != 0)
		return;
	tally_txq_info_get(dev, qid, qinfo);
	tally_port_leave(dev);
}

static int
tally_op_rxq_setup(struct rte_eth_dev *dev, uint16_t qid, uint16_t nb_desc,
		   unsigned int socket_id, const struct rte_eth_rxconf *conf,
		   struct rte_mempool *mp)
{
	int rc = tally_port_enter(dev, TALLY_PORT_DEVICE);

	if (rc != 0)
		return rc;
	rc = tally_rx_queue_setup(dev, qid, nb_desc, socket_id, conf, mp);
	tally_port_leave(dev);
	return rc;
}

static int
tally_op_txq_setup(struct rte_eth_dev *dev, uint16_t qid, uint16_t nb_desc,
		   unsigned int socket_id, const struct rte_eth_txconf *conf)
{
	int rc = tally_port_enter(dev, TALLY_PORT_DEVICE);

	if (rc != 0)
		return rc;
	rc = tally_tx_queue_setup(dev, qid, nb_desc, socket_id, conf);
	tally_port_leave(dev);
	return rc;
}

static void
tally_op_rxq_release(struct rte_eth_dev *dev, uint16_t qid)
{
	if (tally_port_enter(dev, TALLY_PORT_SOFT) != 0)
		return;
	tally_rx_queue_release(dev, qid);
	tally_port_leave(dev);
}

static void
tally_op_txq_release(struct rte_eth_dev *dev, uint16_t qid)
{
	if (tally_port_enter(dev, TALLY_PORT_SOFT) != 0)
		return;
	tally_tx_queue_release(dev, qid);
	tally_port_leave(dev);
}

/* Queue start programs the device; stop also works without it. */
static int
tally_op_queue_ctl(struct rte_eth_dev *dev, uint16_t qid, bool start,
		   int (*ctl)(struct rte_eth_dev *dev, uint16_t qid))
{
	int rc = tally_port_enter(dev, start ? TALLY_PORT_DEVICE : TALLY_PORT_SOFT);

	if (rc != 0)
		return rc;
	rc = ctl(dev, qid);
	tally_port_leave(dev);
	return rc;
}

static int
tally_op_rxq_start(struct rte_eth_dev *dev, uint16_t qid)
{
	return tally_op_queue_ctl(dev, qid, true, tally_rx_queue_start);
}

static int
tally_op_rxq_stop(struct rte_eth_dev *dev, uint16_t qid)
{
	return tally_op_queue_ctl(dev, qid, false, tally_rx_queue_stop);
}

static int
tally_op_txq_start(struct rte_eth_dev *dev, uint16_t qid)
{
	return tally_op_queue_ctl(dev, qid, true, tally_tx_queue_start);
}

static int
tally_op_txq_stop(struct rte_eth_dev *dev, uint16_t qid)
{
	return tally_op_queue_ctl(dev, qid, false, tally_tx_queue_stop);
}

const struct eth_dev_ops tally_eth_dev_ops = {
	.dev_configure = tally_dev_configure,
	.dev_start = tally_dev_start,
	.dev_stop = tally_dev_stop,
	.dev_close = tally_dev_close,
	.link_update = tally_link_update,
	.promiscuous_enable = tally_promiscuous_enable,
	.promiscuous_disable = tally_promiscuous_disable,
	.allmulticast_enable = tally_allmulticast_enable,
	.allmulticast_disable = tally_allmulticast_disable,
	.mtu_set = tally_mtu_set,
	.mac_addr_set = tally_mac_addr_set,
	.mac_addr_add = tally_mac_addr_add,
	.mac_addr_remove = tally_mac_addr_remove,
	.set_mc_addr_list = tally_set_mc_addr_list,
	.dev_set_link_up = tally_dev_set_link_up,
	.dev_set_link_down = tally_dev_set_link_down,
	.stats_get = tally_op_stats_get,
	.stats_reset = tally_op_stats_reset,
	.xstats_get = tally_op_xstats_get,
	.xstats_reset = tally_op_xstats_reset,
	.xstats_get_names = tally_op_xstats_get_names,
	.dev_infos_get = tally_op_dev_infos_get,
	.rxq_info_get = tally_op_rxq_info_get,
	.txq_info_get = tally_op_txq_info_get,
	.eth_dev_priv_dump = tally_op_priv_dump,
	.fw_version_get = tally_op_fw_version_get,
	.dev_supported_ptypes_get = tally_supported_ptypes_get,
	.rx_queue_start = tally_op_rxq_start,
	.rx_queue_stop = tally_op_rxq_stop,
	.tx_queue_start = tally_op_txq_start,
	.tx_queue_stop = tally_op_txq_stop,
	.rx_queue_setup = tally_op_rxq_setup,
	.rx_queue_release = tally_op_rxq_release,
	.tx_queue_setup = tally_op_txq_setup,
	.tx_queue_release = tally_op_txq_release,
	.rss_hash_update = tally_op_rss_hash_update,
	.rss_hash_conf_get = tally_op_rss_hash_conf_get,
	.reta_update = tally_op_reta_update,
	.reta_query = tally_op_reta_query,
	.rx_metadata_negotiate = tally_rx_metadata_negotiate,
	.flow_ops_get = tally_flow_ops_get,
};

/*
 * Common init for both probes: open the device through `io`, size the port
 * from the device identity and install the ops. The probe made the port's
 * tally_proc (tally_mp_proc_new()) first. On failure nothing is left open;
 * the caller releases the port, its transport and its tally_proc.
 */
int
tally_ethdev_init(struct rte_eth_dev *dev, const struct tally_io *io,
		  const struct rte_ether_addr *mac)
{
	struct tally_adapter *ad = tally_adapter(dev);
	int rc;

	ad->eth_dev = dev;
	rc = tally_hal_open(&ad->hal, io);
	if (rc != 0) {
		TALLY_INIT_LOG(ERR, "%s: cannot open device: %s",
			       dev->data->name, strerror(-rc));
		tally_switch_detach(ad);	/* the probe's reference, if it took one */
		return rc;
	}
	ad->hal_open = true;
	if (ad->sw == NULL) {
		/* a probe that knows the device as this one port */
		struct tally_switch *sw = tally_switch_new(dev->data->name, 1);

		if (sw == NULL) {
			rc = -ENOMEM;
			goto err;
		}
		tally_switch_attach(sw, ad, 0);
		tally_switch_put(sw);
	}
	if (ad->hal.port_index != ad->sw_port) {
		TALLY_INIT_LOG(ERR, "%s: the device calls this window port %u, not %u",
			       dev->data->name, ad->hal.port_index, ad->sw_port);
		rc = -EIO;
		goto err;
	}
	ad->max_rxq = RTE_MIN(ad->hal.nb_rxq, TALLY_PMD_MAX_QUEUES);
	ad->max_txq = RTE_MIN(ad->hal.nb_txq, TALLY_PMD_MAX_QUEUES);
	ad->max_frame = ad->hal.max_frame;
	if (ad->max_frame < RTE_ETHER_MAX_LEN) {
		TALLY_INIT_LOG(ERR, "%s: device max frame %u < %u", dev->data->name,
			       ad->max_frame, RTE_ETHER_MAX_LEN);
		rc = -EIO;
		goto err;
	}
	memcpy(ad->rss_key, tally_default_rss_key, TALLY_RSS_KEY_LEN);
	ad->rss_hf = RTE_ETH_RSS_IP | RTE_ETH_RSS_TCP | RTE_ETH_RSS_UDP;
	tally_reta_default(ad, 1);

	dev->data->mac_addrs = rte_zmalloc("tally_mac", RTE_ETHER_ADDR_LEN *
					   tally_hal_mac_filters(&ad->hal), 0);
	if (dev->data->mac_addrs == NULL) {
		rc = -ENOMEM;
		goto err;
	}
	if (mac != NULL)
		rte_ether_addr_copy(mac, &dev->data->mac_addrs[0]);
	else
		memcpy(dev->data->mac_addrs[0].addr_bytes, ad->hal.mac,
		       RTE_ETHER_ADDR_LEN);
	tally_mp_primary_init(dev);
	rc = tally_flow_init(ad);
	if (rc != 0)
		goto err;
	rc = tally_dma_init(ad, ad->dma_bus, tally_proc(dev)->dma_share, ad->transport_priv);
	if (rc != 0) {
		tally_flow_fini(ad);
		goto err;
	}
	dev->dev_ops = &tally_eth_dev_ops;
	tally_flow_async_attach(dev);
	/* link status change events: tally_link.c */
	dev->data->dev_flags |= RTE_ETH_DEV_FLOW_OPS_THREAD_SAFE | RTE_ETH_DEV_INTR_LSC;
	/* our own per-queue xstats: no ethdev autofill */
	dev->data->dev_flags &= ~RTE_ETH_DEV_AUTOFILL_QUEUE_XSTATS;
	dev->data->dev_link.link_speed = RTE_ETH_SPEED_NUM_NONE;
	dev->data->dev_link.link_duplex = RTE_ETH_LINK_FULL_DUPLEX;
	dev->data->dev_link.link_status = RTE_ETH_LINK_DOWN;
	tally_set_rxtx_functions(dev);
	dev->rx_descriptor_status = tally_rx_descriptor_status;
	dev->tx_descriptor_status = tally_tx_descriptor_status;
	tally_port_state_init(dev);
	tally_link_watch_start(dev);
	TALLY_INIT_LOG(INFO, "%s: port %u, %u rxq %u txq, max frame %u",
		       dev->data->name, dev->data->port_id, ad->max_rxq,
		       ad->max_txq, ad->max_frame);
	return 0;
err:
	tally_switch_detach(ad);
	tally_hal_close(&ad->hal);
	ad->hal_open = false;
	return rc;
}

/* ---- secondary processes (tally_mp.c) ------------------------------------ */

static int
tally_primary_only(struct rte_eth_dev *dev, const char *what)
{
	TALLY_DRV_LOG(ERR, "port %u: %s: only the primary process may do this",
		      dev->data->port_id, what);
	return -EPERM;
}

static int
tally_sec_configure(struct rte_eth_dev *dev)
{
	return tally_primary_only(dev, "configure");
}

static int
tally_sec_start(struct rte_eth_dev *dev)
{
	return tally_primary_only(dev, "start");
}

static int
tally_sec_stop(struct rte_eth_dev *dev)
{
	return tally_primary_only(dev, "stop");
}

static int
tally_sec_promisc(struct rte_eth_dev *dev)
{
	return tally_primary_only(dev, "promiscuous mode");
}

static int
tally_sec_allmulti(struct rte_eth_dev *dev)
{
	return tally_primary_only(dev, "all-multicast mode");
}

static int
tally_sec_mac_addr_set(struct rte_eth_dev *dev, struct rte_ether_addr *addr)
{
	RTE_SET_USED(addr);
	return tally_primary_only(dev, "MAC address");
}

static int
tally_sec_mac_addr_add(struct rte_eth_dev *dev, struct rte_ether_addr *addr,
		       uint32_t index, uint32_t vmdq)
{
	RTE_SET_USED(addr);
	RTE_SET_USED(index);
	RTE_SET_USED(vmdq);
	return tally_primary_only(dev, "MAC address");
}

static int
tally_sec_link_set(struct rte_eth_dev *dev)
{
	return tally_primary_only(dev, "link up/down");
}

static int
tally_sec_mc_addr_list(struct rte_eth_dev *dev, struct rte_ether_addr *set, uint32_t n)
{
	RTE_SET_USED(set);
	RTE_SET_USED(n);
	return tally_primary_only(dev, "multicast list");
}

static int
tally_sec_mtu_set(struct rte_eth_dev *dev, uint16_t mtu)
{
	RTE_SET_USED(mtu);
	return tally_primary_only(dev, "MTU");
}

static int
tally_sec_rxq_setup(struct rte_eth_dev *dev, uint16_t qid, uint16_t nb_desc,
		    unsigned int socket_id, const struct rte_eth_rxconf *conf,
		    struct rte_mempool *mp)
{
	RTE_SET_USED(qid);
	RTE_SET_USED(nb_desc);
	RTE_SET_USED(socket_id);
	RTE_SET_USED(conf);
	RTE_SET_USED(mp);
	return tally_primary_only(dev, "Rx queue setup");
}

static int
tally_sec_txq_setup(struct rte_eth_dev *dev, uint16_t qid, uint16_t nb_desc,
		    unsigned int socket_id, const struct rte_eth_txconf *conf)
{
	RTE_SET_USED(qid);
	RTE_SET_USED(nb_desc);
	RTE_SET_USED(socket_id);
	RTE_SET_USED(conf);
	return tally_primary_only(dev, "Tx queue setup");
}

static int
tally_sec_queue_ctl(struct rte_eth_dev *dev, uint16_t qid)
{
	RTE_SET_USED(qid);
	return tally_primary_only(dev, "queue start/stop");
}

static int
tally_sec_rss_update(struct rte_eth_dev *dev, struct rte_eth_rss_conf *conf)
{
	RTE_SET_USED(conf);
	return tally_primary_only(dev, "RSS hash update");
}

static int
tally_sec_reta_update(struct rte_eth_dev *dev, struct rte_eth_rss_reta_entry64 *reta,
		      uint16_t size)
{
	RTE_SET_USED(reta);
	RTE_SET_USED(size);
	return tally_primary_only(dev, "RETA update");
}

static int
tally_sec_close(struct rte_eth_dev *dev)
{
	return tally_mp_secondary_close(dev);
}

/* What a secondary may do: read, poll its queues, reset statistics (the
 * baselines are shared); the rest is refused by name. */
const struct eth_dev_ops tally_eth_dev_ops_secondary = {
	.dev_configure = tally_sec_configure,
	.dev_start = tally_sec_start,
	.dev_stop = tally_sec_stop,
	.dev_close = tally_sec_close,
	.link_update = tally_link_update,
	.promiscuous_enable = tally_sec_promisc,
	.promiscuous_disable = tally_sec_promisc,
	.allmulticast_enable = tally_sec_allmulti,
	.allmulticast_disable = tally_sec_allmulti,
	.mtu_set = tally_sec_mtu_set,
	.mac_addr_set = tally_sec_mac_addr_set,
	.mac_addr_add = tally_sec_mac_addr_add,
	.set_mc_addr_list = tally_sec_mc_addr_list,
	.dev_set_link_up = tally_sec_link_set,
	.dev_set_link_down = tally_sec_link_set,
	/* no mac_addr_remove: ethdev answers -ENOTSUP before it clears its
	 * shared copy of the address (the op has no result to refuse with) */
	.stats_get = tally_stats_get,
	.stats_reset = tally_stats_reset,
	.xstats_get = tally_xstats_get,
	.xstats_reset = tally_xstats_reset,
	.xstats_get_names = tally_xstats_get_names,
	.dev_infos_get = tally_dev_infos_get,
	.rxq_info_get = tally_rxq_info_get,
	.txq_info_get = tally_txq_info_get,
	.fw_version_get = tally_fw_version_get,
	.dev_supported_ptypes_get = tally_supported_ptypes_get,
	.rx_queue_start = tally_sec_queue_ctl,
	.rx_queue_stop = tally_sec_queue_ctl,
	.tx_queue_start = tally_sec_queue_ctl,
	.tx_queue_stop = tally_sec_queue_ctl,
	.rx_queue_setup = tally_sec_rxq_setup,
	.tx_queue_setup = tally_sec_txq_setup,
	.rss_hash_update = tally_sec_rss_update,
	.rss_hash_conf_get = tally_rss_hash_conf_get,
	.reta_update = tally_sec_reta_update,
	.reta_query = tally_reta_query,
	.flow_ops_get = tally_flow_ops_get_secondary,
};
