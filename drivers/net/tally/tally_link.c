/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Link control and the multicast list (spec 2.2), what a bonding or
 * fail-safe port asks of its members besides the MAC table (tally_mac.c).
 *
 * - dev_set_link_down/up hold the port's link down (CTRL.LINK_DOWN) or let
 *   it up. The device keeps the state across stop/start (only a reset lets
 *   the link up again). While the link is down the port takes nothing from
 *   its wire and drops every frame it is given (tx_wire_drop). Any time
 *   after probe; after the loss -EIO.
 * - Each change of the link ethdev reports while intr_conf.lsc is set is
 *   followed by RTE_ETH_EVENT_INTR_LSC, from an EAL alarm on the interrupt
 *   thread (tally_port_link_event()), never from inside the operation.
 * - set_mc_addr_list replaces the whole multicast list: at most
 *   TALLY_MC_FILTERS multicast addresses (-ENOSPC beyond, -EINVAL for an
 *   address that is not multicast), nothing changed on error; 0 addresses
 *   clear it.
 * Primary process only (the secondary ops refuse them).
 */
#include "tally_ethdev.h"
#include "tally_logs.h"

static int
tally_link_set(struct rte_eth_dev *dev, bool up)
{
	struct tally_adapter *ad = tally_adapter(dev);
	int old = dev->data->dev_link.link_status;
	int rc = tally_port_enter(dev, TALLY_PORT_DEVICE);

	if (rc != 0)
		return rc;
	rc = tally_hal_link_set(&ad->hal, up);
	if (rc == -ENOTSUP)
		TALLY_DRV_LOG(ERR, "port %u: the device has no link control (spec %u.%u < 2.2)",
			      dev->data->port_id, tally_hal_version_major(&ad->hal),
			      tally_hal_version_minor(&ad->hal));
	else if (rc == -ENODEV)
		rc = -EIO;
	tally_port_leave(dev);
	if (rc != 0)
		return rc;
	(void)tally_link_update(dev, 0);
	if (dev->data->dev_link.link_status != old && dev->data->dev_conf.intr_conf.lsc)
		tally_port_link_event(dev);
	return 0;
}

int
tally_dev_set_link_up(struct rte_eth_dev *dev)
{
	return tally_link_set(dev, true);
}

int
tally_dev_set_link_down(struct rte_eth_dev *dev)
{
	return tally_link_set(dev, false);
}

static int
tally_mc_check(struct rte_eth_dev *dev, const struct rte_ether_addr *set, uint32_t n,
	       unsigned int max)
{
	uint32_t i;

	if (max == 0) {
		TALLY_DRV_LOG(ERR, "port %u: the device has no multicast filter (spec < 2.2)",
			      dev->data->port_id);
		return -ENOTSUP;
	}
	if (set == NULL && n != 0)
		return -EINVAL;
	if (n > max) {
		TALLY_DRV_LOG(ERR, "port %u: %u multicast addresses, the filter holds %u",
			      dev->data->port_id, n, max);
		return -ENOSPC;
	}
	for (i = 0; i < n; i++)
		if (!rte_is_multicast_ether_addr(&set[i])) {
			TALLY_DRV_LOG(ERR, "port %u: multicast list entry %u is not a multicast address",
				      dev->data->port_id, i);
			return -EINVAL;
		}
	return 0;
}

int
tally_set_mc_addr_list(struct rte_eth_dev *dev, struct rte_ether_addr *set,
		       uint32_t n)
{
	struct tally_adapter *ad = tally_adapter(dev);
	unsigned int i, max;
	int rc = tally_port_enter(dev, TALLY_PORT_DEVICE);

	if (rc != 0)
		return rc;
	max = tally_hal_mc_filters(&ad->hal);
	rc = tally_mc_check(dev, set, n, max);
	for (i = 0; rc == 0 && i < max; i++)
		rc = i < n ? tally_hal_mc_set(&ad->hal, i, set[i].addr_bytes) :
			     tally_hal_mc_clear(&ad->hal, i);
	tally_port_leave(dev);
	return rc;
}
