/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What a port says about itself: dev_infos_get (limits and capabilities,
 * from the device's registers where it has them), the firmware version (the
 * spec version the device reports) and the packet types Rx sets.
 */
#include <stdio.h>

#include "tally_compat.h"
#include "tally_pmd.h"
#include "tally_rxtx.h"

int
tally_dev_infos_get(struct rte_eth_dev *dev, struct rte_eth_dev_info *info)
{
	struct tally_adapter *ad = tally_adapter(dev);
	uint32_t max_desc = TALLY_PMD_MAX_DESC;
	uint32_t min_desc = TALLY_PMD_MIN_DESC;

	if (ad->hal.ring_max_log2 < 15)
		max_desc = 1u << ad->hal.ring_max_log2;
	if ((1u << ad->hal.ring_min_log2) > min_desc)
		min_desc = 1u << ad->hal.ring_min_log2;

	info->max_rx_queues = ad->max_rxq;
	info->max_tx_queues = ad->max_txq;
	info->max_mac_addrs = tally_hal_mac_filters(&ad->hal);
	info->min_rx_bufsize = TALLY_PMD_MIN_RX_BUF;
	info->max_rx_pktlen = ad->max_frame;
	info->min_mtu = RTE_ETHER_MIN_MTU;
	info->max_mtu = ad->max_frame - RTE_ETHER_HDR_LEN;
	info->rx_offload_capa = RTE_ETH_RX_OFFLOAD_SCATTER |
				RTE_ETH_RX_OFFLOAD_RSS_HASH;
	info->rx_queue_offload_capa = RTE_ETH_RX_OFFLOAD_SCATTER;
	info->tx_offload_capa = RTE_ETH_TX_OFFLOAD_MULTI_SEGS |
				RTE_ETH_TX_OFFLOAD_MBUF_FAST_FREE;
	info->tx_queue_offload_capa = RTE_ETH_TX_OFFLOAD_MULTI_SEGS |
				      RTE_ETH_TX_OFFLOAD_MBUF_FAST_FREE;
	info->reta_size = TALLY_RSS_RETA_SIZE;
	info->hash_key_size = TALLY_RSS_KEY_LEN;
	info->flow_type_rss_offloads = TALLY_PMD_RSS_HF;
	info->rx_desc_lim = (struct rte_eth_desc_lim) {
		.nb_max = max_desc, .nb_min = min_desc, .nb_align = min_desc,
	};
	info->tx_desc_lim = (struct rte_eth_desc_lim) {
		.nb_max = max_desc, .nb_min = min_desc, .nb_align = min_desc,
		.nb_seg_max = TALLY_TX_MAX_SEGS, .nb_mtu_seg_max = TALLY_TX_MAX_SEGS,
	};
	info->default_rxportconf.ring_size = TALLY_PMD_DEFAULT_DESC;
	info->default_txportconf.ring_size = TALLY_PMD_DEFAULT_DESC;
	info->default_rxportconf.burst_size = TALLY_PMD_BURST;
	info->default_txportconf.burst_size = TALLY_PMD_BURST;
	info->default_rxportconf.nb_queues = 1;
	info->default_txportconf.nb_queues = 1;
	info->speed_capa = RTE_ETH_LINK_SPEED_100G | RTE_ETH_LINK_SPEED_FIXED;
	info->dev_capa = RTE_ETH_DEV_CAPA_FLOW_RULE_KEEP |
			 RTE_ETH_DEV_CAPA_FLOW_SHARED_OBJECT_KEEP;
	if (ad->sw != NULL) {
		/* every port of a device is in its switch domain (spec 2.3) */
		info->switch_info.name = ad->sw->name;
		info->switch_info.domain_id = ad->sw->domain_id;
		info->switch_info.port_id = ad->sw_port;
	}
	return 0;
}

int
tally_fw_version_get(struct rte_eth_dev *dev, char *fw, size_t len)
{
	struct tally_adapter *ad = tally_adapter(dev);
	int n;

	n = snprintf(fw, len, "tally-spec %u.%u", tally_hal_version_major(&ad->hal),
		     tally_hal_version_minor(&ad->hal));
	if (n < 0)
		return -EINVAL;
	return (size_t)n + 1 > len ? n + 1 : 0;
}

/* *n packet types, then RTE_PTYPE_UNKNOWN for the releases that look for it */
const uint32_t *
tally_supported_ptypes(struct rte_eth_dev *dev, size_t *n)
{
	static const uint32_t ptypes[] = {
		RTE_PTYPE_L2_ETHER,
		RTE_PTYPE_L2_ETHER_VLAN,
		RTE_PTYPE_L3_IPV4_EXT_UNKNOWN,
		RTE_PTYPE_L3_IPV6_EXT_UNKNOWN,
		RTE_PTYPE_L4_TCP,
		RTE_PTYPE_L4_UDP,
		RTE_PTYPE_L4_ICMP,
		RTE_PTYPE_L4_FRAG,
		RTE_PTYPE_TUNNEL_VXLAN,
		RTE_PTYPE_UNKNOWN,
	};

	*n = 0;
	if (dev->rx_pkt_burst != tally_rx_burst)
		return NULL;
	*n = RTE_DIM(ptypes) - 1;
	return ptypes;
}
