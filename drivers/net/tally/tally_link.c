/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The link: what ethdev reports, the link status change event, link
 * control, and the multicast list (spec 2.2) - what a bonding or fail-safe
 * port asks of its members besides the MAC table (tally_mac.c).
 *
 * - The link is up while the port is started, the device is there and
 *   reports STATUS.LINK_UP: not held down (CTRL.LINK_DOWN) and the wire has
 *   carrier (wire=if: the interface is up and running).
 * - dev_set_link_down/up hold the link down or let it up. The device keeps
 *   the state across stop/start (only a reset lets the link up again).
 *   While it is held down the port takes nothing from its wire and drops
 *   every frame it is given (tx_wire_drop). Any time after probe; after
 *   the loss -EIO.
 * - With intr_conf.lsc each change of the link ethdev reports while the
 *   port is started is followed by exactly one RTE_ETH_EVENT_INTR_LSC, from
 *   an EAL alarm on the interrupt thread (tally_port_link_event()), never
 *   from inside an operation. A change the ops make is reported at once; a
 *   change of the device's own (the carrier) within TALLY_LINK_WATCH_US, by
 *   the link watch, an EAL alarm armed from probe to close. Both compare
 *   and report under the adapter's link_lock, so one change is one event.
 * - set_mc_addr_list replaces the whole multicast list: at most
 *   TALLY_MC_FILTERS multicast addresses (-ENOSPC beyond, -EINVAL for an
 *   address that is not multicast), nothing changed on error; 0 addresses
 *   clear it.
 * Link control and the multicast list are for the primary process only
 * (the secondary ops refuse them).
 */
#include <rte_alarm.h>

#include "tally_pmd.h"
#include "tally_hal_io.h"
#include "tally_logs.h"

#define TALLY_LINK_WATCH_US	100000	/* how often the link watch looks */

/* Down once the device is gone; the loss seen here is reported as the loss
 * watch would (tally_port_lost(): the event comes from an alarm). */
int
tally_link_refresh(struct rte_eth_dev *dev)
{
	struct tally_adapter *ad = tally_adapter(dev);
	struct tally_hal_dev *hal = tally_proc_hal(dev);
	struct rte_eth_link link = {
		.link_speed = RTE_ETH_SPEED_NUM_100G,
		.link_duplex = RTE_ETH_LINK_FULL_DUPLEX,
		.link_autoneg = RTE_ETH_LINK_FIXED,
	};

	link.link_status = ad->started ? RTE_ETH_LINK_UP : RTE_ETH_LINK_DOWN;
	if (tally_port_gone(dev)) {
		link.link_status = RTE_ETH_LINK_DOWN;
	} else {
		if (ad->started && !tally_hal_link_up(hal))
			link.link_status = RTE_ETH_LINK_DOWN;
		if (ad->hal_open && tally_hal_gone(hal)) {
			link.link_status = RTE_ETH_LINK_DOWN;
			tally_port_lost(dev);
		}
	}
	if (link.link_status == RTE_ETH_LINK_DOWN)
		link.link_speed = RTE_ETH_SPEED_NUM_NONE;
	return rte_eth_linkstatus_set(dev, &link);
}

/* With intr_conf.lsc ethdev reads dev_link without calling this: start,
 * stop, the link ops and the link watch keep it current. */
int
tally_link_update(struct rte_eth_dev *dev, int wait)
{
	int rc;

	RTE_SET_USED(wait);
	rc = tally_port_enter(dev, TALLY_PORT_SOFT);
	if (rc != 0)
		return rc;
	rc = tally_link_refresh(dev);
	tally_port_leave(dev);
	return rc;
}

/* Refresh the link; a change of a started port with intr_conf.lsc gets its
 * event. Caller inside the port. */
static void
tally_link_check(struct rte_eth_dev *dev)
{
	struct tally_adapter *ad = tally_adapter(dev);
	int old;

	rte_spinlock_lock(&ad->link_lock);
	old = dev->data->dev_link.link_status;
	(void)tally_link_refresh(dev);
	if (dev->data->dev_link.link_status != old && dev->data->dev_started &&
	    dev->data->dev_conf.intr_conf.lsc)
		tally_port_link_event(dev);
	rte_spinlock_unlock(&ad->link_lock);
}

static void
tally_link_watch(void *arg)
{
	uint16_t port = (uint16_t)(uintptr_t)arg;
	struct rte_eth_dev *dev = &rte_eth_devices[port];

	/* gone or closing: nothing more to watch */
	if (tally_port_enter(dev, TALLY_PORT_DEVICE) != 0)
		return;
	if (dev->data->dev_started && dev->data->dev_conf.intr_conf.lsc)
		tally_link_check(dev);
	if (rte_eal_alarm_set(TALLY_LINK_WATCH_US, tally_link_watch, arg) != 0)
		TALLY_DRV_LOG(ERR, "port %u: link watch stopped: %s", port,
			      rte_strerror(rte_errno));
	tally_port_leave(dev);
}

void
tally_link_watch_start(struct rte_eth_dev *dev)
{
	void *arg = (void *)(uintptr_t)dev->data->port_id;

	rte_spinlock_init(&tally_adapter(dev)->link_lock);
	if (rte_eal_alarm_set(TALLY_LINK_WATCH_US, tally_link_watch, arg) != 0)
		TALLY_DRV_LOG(ERR, "port %u: no link watch: %s; link changes of the device raise no event",
			      dev->data->port_id, rte_strerror(rte_errno));
}

/* From close, once no operation is inside the port: a watch that runs now
 * is waited for, and what it re-armed goes too. */
void
tally_link_watch_stop(struct rte_eth_dev *dev)
{
	rte_eal_alarm_cancel(tally_link_watch, (void *)(uintptr_t)dev->data->port_id);
}

static int
tally_link_set(struct rte_eth_dev *dev, bool up)
{
	struct tally_adapter *ad = tally_adapter(dev);
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
	if (rc == 0)
		tally_link_check(dev);
	tally_port_leave(dev);
	return rc;
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
