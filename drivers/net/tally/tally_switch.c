/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The device a port belongs to (spec 2.3): which ethdev is which of its
 * ports, the switch domain they share, and which port takes the device's
 * transfer rules (port 0, while its flow engine lives), and how its ports'
 * windows lie in the BAR. Below every other file of the PMD that needs it:
 * the probes (vdev, device process, PCI), dev_infos_get and the transfer
 * rules (tally_flow_xfer.c).
 */
#include <string.h>

#include <ethdev_vdev.h>
#include <rte_malloc.h>

#include "tally_pmd.h"
#include "tally_logs.h"
#include "tally_mp.h"

struct tally_switch *
tally_switch_new(const char *name, uint8_t nb_ports)
{
	struct tally_switch *sw;
	uint16_t domain;
	unsigned int i;

	if (nb_ports == 0 || nb_ports > TALLY_MAX_PORTS)
		return NULL;
	sw = rte_zmalloc("tally_switch", sizeof(*sw), 0);
	if (sw == NULL)
		return NULL;
	rte_spinlock_init(&sw->lock);
	sw->nb_ports = nb_ports;
	for (i = 0; i < TALLY_MAX_PORTS; i++)
		sw->eth_port[i] = RTE_MAX_ETHPORTS;
	sw->domain_id = RTE_ETH_DEV_SWITCH_DOMAIN_ID_INVALID;
	if (rte_eth_switch_domain_alloc(&domain) == 0)
		sw->domain_id = domain;
	else
		TALLY_INIT_LOG(WARNING, "%s: no switch domain id left", name);
	snprintf(sw->name, sizeof(sw->name), "%s", name);
	sw->refs = 1;	/* the creator's */
	return sw;
}

void
tally_switch_put(struct tally_switch *sw)
{
	bool last;

	rte_spinlock_lock(&sw->lock);
	last = --sw->refs == 0;
	rte_spinlock_unlock(&sw->lock);
	if (!last)
		return;
	if (sw->domain_id != RTE_ETH_DEV_SWITCH_DOMAIN_ID_INVALID)
		rte_eth_switch_domain_free(sw->domain_id);
	rte_free(sw);
}

void
tally_switch_attach(struct tally_switch *sw, struct tally_adapter *ad, uint8_t index)
{
	rte_spinlock_lock(&sw->lock);
	sw->eth_port[index] = ad->eth_dev->data->port_id;
	sw->refs++;
	rte_spinlock_unlock(&sw->lock);
	ad->sw = sw;
	ad->sw_port = index;
}

void
tally_switch_detach(struct tally_adapter *ad)
{
	struct tally_switch *sw = ad->sw;

	if (sw == NULL)
		return;
	rte_spinlock_lock(&sw->lock);
	sw->eth_port[ad->sw_port] = RTE_MAX_ETHPORTS;
	if (sw->proxy == ad)
		sw->proxy = NULL;
	rte_spinlock_unlock(&sw->lock);
	ad->sw = NULL;
	tally_switch_put(sw);
}

int
tally_switch_index_of(const struct tally_adapter *ad, uint16_t port_id)
{
	struct tally_switch *sw = ad->sw;
	int idx = -1;
	unsigned int i;

	if (sw == NULL)
		return -1;
	rte_spinlock_lock(&sw->lock);
	for (i = 0; i < sw->nb_ports; i++)
		if (sw->eth_port[i] == port_id)
			idx = (int)i;
	rte_spinlock_unlock(&sw->lock);
	return idx;
}

uint16_t
tally_switch_proxy_port(const struct tally_adapter *ad)
{
	uint16_t p;

	rte_spinlock_lock(&ad->sw->lock);
	p = ad->sw->eth_port[0];
	rte_spinlock_unlock(&ad->sw->lock);
	return p;
}

int
tally_switch_port_name(const char *name, unsigned int i, char *buf, size_t len)
{
	int n = i == 0 ? snprintf(buf, len, "%s", name) : snprintf(buf, len, "%s_p%u", name, i);

	if (n < 0 || (size_t)n >= len) {
		TALLY_INIT_LOG(ERR, "%s: name too long for port %u", name, i);
		return -ENAMETOOLONG;
	}
	return 0;
}

struct rte_eth_dev *
tally_switch_port_alloc(struct rte_device *device, unsigned int i)
{
	char pname[RTE_ETH_NAME_MAX_LEN];
	struct rte_eth_dev *dev;

	if (i == 0 || tally_switch_port_name(device->name, i, pname, sizeof(pname)) != 0)
		return NULL;
	dev = rte_eth_dev_allocate(pname);
	if (dev == NULL)
		return NULL;
	dev->data->dev_private = rte_zmalloc_socket(pname, sizeof(struct tally_adapter),
						    RTE_CACHE_LINE_SIZE, device->numa_node);
	if (dev->data->dev_private == NULL) {
		rte_eth_dev_release_port(dev);
		return NULL;
	}
	dev->device = device;
	dev->data->numa_node = device->numa_node;
	return dev;
}

struct rte_eth_dev *
tally_switch_vdev_port(struct rte_vdev_device *vdev, unsigned int i)
{
	if (i == 0)
		return rte_eth_vdev_allocate(vdev, sizeof(struct tally_adapter));
	return tally_switch_port_alloc(&vdev->device, i);
}

int
tally_switch_layout(const char *name, const volatile uint8_t *bar, size_t len,
		    size_t min_win, unsigned int *n, size_t *win)
{
	uint32_t ver, port, stride;

	if (len < min_win ||
	    *(const volatile uint32_t *)(bar + TALLY_REG_SIG) != TALLY_SIGNATURE)
		return -ENODEV;
	ver = *(const volatile uint32_t *)(bar + TALLY_REG_VERSION);
	*n = 1;
	*win = len;
	if (TALLY_FIELD_GET(ver, TALLY_VERSION_MINOR_M) < 3)
		return 0;
	port = *(const volatile uint32_t *)(bar + TALLY_REG_PORT);
	stride = *(const volatile uint32_t *)(bar + TALLY_REG_PORT_STRIDE);
	*n = TALLY_FIELD_GET(port, TALLY_PORT_COUNT_M);
	if (*n <= 1) {
		*n = 1;
		return 0;
	}
	if (*n > TALLY_MAX_PORTS || stride < min_win || (uint64_t)stride * *n > len) {
		TALLY_INIT_LOG(ERR, "%s: bad port layout: %u ports of 0x%x bytes in a %zu-byte BAR",
			       name, *n, stride, len);
		return -EIO;
	}
	*win = stride;
	return 0;
}

int
tally_switch_join_ports(const char *name, unsigned int n, tally_switch_join_fn join,
			void *arg)
{
	char pname[RTE_ETH_NAME_MAX_LEN];
	struct rte_eth_dev *dev;
	unsigned int i;
	int rc = 0;

	for (i = 1; rc == 0 && i < n; i++) {
		rc = tally_switch_port_name(name, i, pname, sizeof(pname));
		if (rc != 0)
			break;
		dev = tally_mp_secondary_port(pname);
		if (dev == NULL)
			continue;	/* closed in the primary */
		rc = join(dev, i, pname, arg);
	}
	return rc;
}
