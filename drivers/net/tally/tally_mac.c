/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * MAC address operations over the device's unicast MAC filter table (spec
 * 2.1): entry i of the table is dev->data->mac_addrs[i], entry 0 the
 * primary. ethdev keeps mac_addrs[] (it copies an address in after a
 * successful set/add and clears it after remove) and re-adds every entry
 * at start; these ops only program the device. Primary process only.
 */
#include "tally_pmd.h"
#include "tally_logs.h"

int
tally_mac_addr_set(struct rte_eth_dev *dev, struct rte_ether_addr *addr)
{
	struct tally_adapter *ad = tally_adapter(dev);
	int rc = tally_port_enter(dev, TALLY_PORT_DEVICE);

	if (rc != 0)
		return rc;
	rc = tally_hal_mac_set(&ad->hal, 0, addr->addr_bytes);
	tally_port_leave(dev);
	return rc;
}

int
tally_mac_addr_add(struct rte_eth_dev *dev, struct rte_ether_addr *addr,
		   uint32_t index, uint32_t vmdq)
{
	struct tally_adapter *ad = tally_adapter(dev);
	int rc;

	if (vmdq != 0) {
		TALLY_DRV_LOG(ERR, "port %u: MAC address pool %u: no VMDq pools",
			      dev->data->port_id, vmdq);
		return -ENOTSUP;
	}
	if (index == 0 || index >= tally_hal_mac_filters(&ad->hal))
		return -EINVAL;
	rc = tally_port_enter(dev, TALLY_PORT_DEVICE);
	if (rc != 0)
		return rc;
	rc = tally_hal_mac_set(&ad->hal, index, addr->addr_bytes);
	tally_port_leave(dev);
	return rc;
}

/* No result to give: after the loss only ethdev's copy is cleared. */
void
tally_mac_addr_remove(struct rte_eth_dev *dev, uint32_t index)
{
	struct tally_adapter *ad = tally_adapter(dev);

	if (index == 0 || index >= tally_hal_mac_filters(&ad->hal))
		return;
	if (tally_port_enter(dev, TALLY_PORT_DEVICE) != 0)
		return;
	(void)tally_hal_mac_clear(&ad->hal, index);
	tally_port_leave(dev);
}
