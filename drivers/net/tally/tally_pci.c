/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * PCI probe: a Tally function (BAR 0) or a QEMU ivshmem-plain function whose
 * BAR 2 carries the software device's register file. The transport is plain
 * MMIO on the mapped BAR; the device runs by itself (no service hook); a
 * removed function is told by its signature reading all ones.
 *
 * A device of several ports (spec 2.3) behind one function: port i's
 * register window is at i * PORT_STRIDE in the BAR; each gets an ethdev
 * (port 0 named after the function, the others "<name>_p<i>",
 * tally_switch.c) driving its own window, all in one switch. Removal,
 * rte_dev_dma_map() and a secondary's probe go to every port.
 */
#include <stdlib.h>
#include <string.h>

#include <ethdev_pci.h>
#include <rte_io.h>
#include <rte_malloc.h>
#include <rte_vfio.h>

#include <tally/tally_mbox.h>
#include <tally/tally_pci_ids.h>
#include <tally/tally_regs.h>

#include "tally_pmd.h"
#include "tally_hal_posted.h"
#include "tally_logs.h"
#include "tally_mp.h"

static uint32_t
tally_mmio_read32(void *ctx, uint32_t off)
{
	return rte_read32(RTE_PTR_ADD(ctx, off));
}

static void
tally_mmio_write32(void *ctx, uint32_t off, uint32_t val)
{
	rte_write32(val, RTE_PTR_ADD(ctx, off));
}

/* A function that is gone (surprise removal) reads all ones; the
 * signature register never does. */
static int
tally_mmio_state(void *ctx)
{
	return rte_read32(RTE_PTR_ADD(ctx, TALLY_REG_SIG)) == UINT32_MAX ? -ENODEV : 0;
}

static const struct tally_io_ops tally_mmio_ops = {
	.name = "pci-bar",
	.read32 = tally_mmio_read32,
	.write32 = tally_mmio_write32,
	.service = NULL,
	.state = tally_mmio_state,
};

static const struct rte_pci_id tally_pci_id_table[] = {
	{ RTE_PCI_DEVICE(TALLY_PCI_VENDOR_ID, TALLY_PCI_DEVICE_ID) },
	{ RTE_PCI_DEVICE(TALLY_IVSHMEM_VENDOR_ID, TALLY_IVSHMEM_DEVICE_ID) },
	{ .vendor_id = 0 },
};

/* The BAR index is a property of the PCI identity. */
static int
tally_pci_bar(const struct rte_pci_device *pdev)
{
	if (pdev->id.vendor_id == TALLY_IVSHMEM_VENDOR_ID &&
	    pdev->id.device_id == TALLY_IVSHMEM_DEVICE_ID)
		return TALLY_IVSHMEM_BAR;
	return TALLY_PCI_BAR;
}

static bool
tally_pci_is_ivshmem(const struct rte_pci_device *pdev)
{
	return tally_pci_bar(pdev) == TALLY_IVSHMEM_BAR;
}

static void
tally_pci_posted_fini(struct tally_adapter *ad)
{
	struct tally_posted *p = ad->transport_priv;

	if (p == NULL)
		return;
	tally_posted_detach(p);
	rte_free(p);
	ad->transport_priv = NULL;
}

/* The minimum bytes of a port's window: the registers, and the mailbox
 * when the BAR is shared memory. */
static size_t
tally_pci_min_win(const struct rte_mem_resource *res)
{
	if (rte_read32(RTE_PTR_ADD(res->addr, TALLY_REG_CAPS)) & TALLY_CAP_POSTED)
		return TALLY_MBOX_OFF + TALLY_MBOX_LEN;
	return TALLY_STATS_OFF;
}

/*
 * The transport of a port's window [win, win + len) of the BAR: plain MMIO,
 * or, when the BAR is shared memory (CAPS.POSTED: the device process
 * behind ivshmem), posted writes through the window's mailbox.
 */
static int
tally_pci_transport(struct tally_adapter *ad, void *win, size_t len, const char *name,
		    struct tally_io *io)
{
	struct tally_posted *p;
	int rc;

	memset(io, 0, sizeof(*io));
	if (!(rte_read32(RTE_PTR_ADD(win, TALLY_REG_CAPS)) & TALLY_CAP_POSTED)) {
		io->ops = &tally_mmio_ops;
		io->ctx = win;
		io->bar = win;
		io->bar_len = len;
		return 0;
	}
	p = rte_zmalloc("tally_posted", sizeof(*p), 0);
	if (p == NULL)
		return -ENOMEM;
	rc = tally_posted_attach(p, win, len, name, io);
	if (rc != 0) {
		rte_free(p);
		TALLY_INIT_LOG(ERR, "%s: cannot attach to the device: %s",
			       name, strerror(-rc));
		return rc;
	}
	ad->transport_priv = p;
	tally_proc(ad->eth_dev)->transport_fini = tally_pci_posted_fini;
	return 0;
}

/* A secondary process's port on its window: post into the primary's
 * session when the BAR is shared memory. */
static int
tally_pci_join_port(struct rte_pci_device *pdev, struct rte_eth_dev *dev, void *win,
		    size_t len, const char *name)
{
	struct tally_posted *p = NULL;
	struct tally_io io;
	int rc;

	memset(&io, 0, sizeof(io));
	if (rte_read32(RTE_PTR_ADD(win, TALLY_REG_CAPS)) & TALLY_CAP_POSTED) {
		p = calloc(1, sizeof(*p));
		rc = p == NULL ? -ENOMEM : tally_posted_join(p, win, len, name, &io);
		if (rc != 0) {
			free(p);
			rte_eth_dev_release_port(dev);
			return rc;
		}
	} else {
		io.ops = &tally_mmio_ops;
		io.ctx = win;
		io.bar = win;
		io.bar_len = len;
	}
	return tally_mp_secondary_attach(dev, &pdev->device, &io, p, NULL, 0);
}

struct tally_pci_join {
	struct rte_pci_device *pdev;
	void *bar;
	size_t win;
};

static int
tally_pci_join_one(struct rte_eth_dev *dev, unsigned int i, const char *pname, void *arg)
{
	struct tally_pci_join *j = arg;

	return tally_pci_join_port(j->pdev, dev, RTE_PTR_ADD(j->bar, i * j->win), j->win,
				   pname);
}

/* A secondary process: EAL mapped the BAR here too; every port the
 * primary made, each on its window. */
static int
tally_pci_probe_secondary(struct rte_pci_device *pdev, const struct rte_mem_resource *res)
{
	const char *name = pdev->device.name;
	struct tally_pci_join j = { .pdev = pdev, .bar = res->addr };
	struct rte_eth_dev *dev;
	unsigned int n;
	size_t win;
	int rc;

	dev = tally_mp_secondary_port(name);
	if (dev == NULL)
		return -ENODEV;
	rc = tally_switch_layout(name, res->addr, res->len, tally_pci_min_win(res), &n, &win);
	if (rc != 0) {
		rte_eth_dev_release_port(dev);
		return rc;
	}
	j.win = win;
	rc = tally_pci_join_port(pdev, dev, res->addr, win, name);
	return rc == 0 ? tally_switch_join_ports(name, n, tally_pci_join_one, &j) : rc;
}

/* Port i of the function on its window, in sw. */
static int
tally_pci_port_init(struct rte_pci_device *pdev, struct tally_switch *sw, unsigned int i,
		    void *win, size_t len)
{
	char pname[RTE_ETH_NAME_MAX_LEN];
	struct tally_adapter *ad;
	struct rte_eth_dev *dev;
	struct tally_io io;
	int rc;

	rc = tally_switch_port_name(pdev->device.name, i, pname, sizeof(pname));
	if (rc != 0)
		return rc;
	dev = i == 0 ? rte_eth_dev_pci_allocate(pdev, sizeof(struct tally_adapter)) :
		       tally_switch_port_alloc(&pdev->device, i);
	if (dev == NULL)
		return -ENOMEM;
	if (tally_mp_proc_new(dev) == NULL) {
		rte_eth_dev_release_port(dev);
		return -ENOMEM;
	}
	ad = tally_adapter(dev);
	ad->eth_dev = dev;
	/* behind the IOMMU, the device sees EAL's IOVAs; the software device
	 * behind ivshmem reads guest RAM by guest-physical address */
	ad->dma_bus = tally_pci_is_ivshmem(pdev) ? TALLY_DMA_BUS_GPA : TALLY_DMA_BUS_IOVA;
	tally_switch_attach(sw, ad, (uint8_t)i);
	rc = tally_pci_transport(ad, win, len, pname, &io);
	if (rc == 0)
		rc = tally_ethdev_init(dev, &io, NULL);
	else
		tally_switch_detach(ad);
	if (rc != 0) {
		tally_pci_posted_fini(ad);
		tally_mp_proc_free(dev);
		rte_eth_dev_release_port(dev);
		return rc;
	}
	rte_eth_dev_probing_finish(dev);
	TALLY_INIT_LOG(INFO, "%s: port %u on BAR%d", pname, dev->data->port_id,
		       tally_pci_bar(pdev));
	return 0;
}

/* Port i of the function if this process has it (not closed). */
static struct rte_eth_dev *
tally_pci_port(struct rte_pci_device *pdev, unsigned int i)
{
	char pname[RTE_ETH_NAME_MAX_LEN];
	struct rte_eth_dev *dev;

	if (tally_switch_port_name(pdev->device.name, i, pname, sizeof(pname)) != 0)
		return NULL;
	dev = rte_eth_dev_allocated(pname);
	if (dev == NULL || dev->device != &pdev->device || dev->state == RTE_ETH_DEV_UNUSED)
		return NULL;	/* closed, or not one of ours */
	return dev;
}

static int
tally_pci_uninit(struct rte_eth_dev *dev)
{
	if (rte_eal_process_type() != RTE_PROC_PRIMARY)
		return tally_mp_secondary_close(dev);
	return tally_dev_close(dev);
}

static int
tally_pci_probe(struct rte_pci_driver *drv, struct rte_pci_device *pdev)
{
	const char *name = pdev->device.name;
	const struct rte_mem_resource *res;
	struct tally_switch *sw = NULL;
	struct rte_eth_dev *dev;
	int bar = tally_pci_bar(pdev);
	unsigned int n = 1, i;
	size_t win;
	int rc;

	RTE_SET_USED(drv);
	res = &pdev->mem_resource[bar];
	if (res->addr == NULL || res->len < TALLY_STATS_OFF ||
	    rte_read32(res->addr) != TALLY_SIGNATURE) {
		if (tally_pci_is_ivshmem(pdev)) {
			/* not ours: let another driver have it */
			TALLY_INIT_LOG(INFO, "%s: ivshmem BAR%d is not a Tally device",
				       pdev->device.name, bar);
			return 1;
		}
		TALLY_INIT_LOG(ERR, "%s: BAR%d unmapped or without the Tally signature",
			       pdev->device.name, bar);
		return -ENODEV;
	}
	if (rte_eal_process_type() != RTE_PROC_PRIMARY)
		return tally_pci_probe_secondary(pdev, res);
	rc = tally_switch_layout(name, res->addr, res->len, tally_pci_min_win(res), &n, &win);
	if (rc == 0 && (sw = tally_switch_new(name, (uint8_t)n)) == NULL)
		rc = -ENOMEM;
	if (rc != 0)
		return rc;
	for (i = 0; i < n && rc == 0; i++)
		rc = tally_pci_port_init(pdev, sw, i, RTE_PTR_ADD(res->addr, i * win), win);
	tally_switch_put(sw);
	if (rc != 0) {
		/* the ports before: closed, port 0 last */
		while (i-- > 0) {
			dev = tally_pci_port(pdev, i);
			if (dev == NULL)
				continue;
			tally_dev_close(dev);
			rte_eth_dev_release_port(dev);
		}
		return rc;
	}
	if (n > 1)
		TALLY_INIT_LOG(INFO, "%s: %u ports, a window every 0x%zx bytes of BAR%d",
			       name, n, win, bar);
	return 0;
}

/* Every port of the function, the others before port 0 (the transfer
 * proxy), which the generic remove finds by the function's name. */
static int
tally_pci_remove(struct rte_pci_device *pdev)
{
	struct rte_eth_dev *dev;
	int i, rc = 0;

	for (i = TALLY_MAX_PORTS - 1; i > 0; i--) {
		dev = tally_pci_port(pdev, (unsigned int)i);
		if (dev == NULL)
			continue;
		tally_pci_uninit(dev);
		if (rte_eth_dev_release_port(dev) != 0)
			rc = -EIO;
	}
	if (rte_eth_dev_pci_generic_remove(pdev, tally_pci_uninit) != 0)
		rc = -EIO;
	return rc;
}

static bool
tally_pci_vfio(const struct rte_pci_device *pdev)
{
	return !tally_pci_is_ivshmem(pdev) && pdev->kdrv == RTE_PCI_KDRV_VFIO;
}

/* Undo tally_dma_map() on ports [0, upto) of the function. */
static void
tally_pci_dma_unmap_ports(struct rte_pci_device *pdev, unsigned int upto, void *addr,
			  uint64_t iova, size_t len)
{
	struct rte_eth_dev *dev;
	unsigned int i;

	for (i = 0; i < upto; i++)
		if ((dev = tally_pci_port(pdev, i)) != NULL)
			(void)tally_dma_unmap(tally_adapter(dev), addr, iova, len);
}

/*
 * rte_dev_dma_map(): external memory the application brings. With a
 * dma_map of the driver's own the bus no longer maps the IOMMU itself, so a
 * function behind VFIO gets that first (once for the function); then the
 * table of every port (each has its own).
 */
static int
tally_pci_dma_map(struct rte_pci_device *pdev, void *addr, uint64_t iova, size_t len)
{
	struct rte_eth_dev *dev;
	unsigned int i;
	int rc = 0;

	if (tally_pci_port(pdev, 0) == NULL)
		return -ENODEV;
	if (tally_pci_vfio(pdev) &&
	    rte_vfio_container_dma_map(RTE_VFIO_DEFAULT_CONTAINER_FD,
				       (uintptr_t)addr, iova, len) != 0)
		return -rte_errno;
	for (i = 0; i < TALLY_MAX_PORTS; i++) {
		dev = tally_pci_port(pdev, i);
		if (dev == NULL)
			continue;
		rc = tally_dma_map(tally_adapter(dev), addr, iova, len);
		if (rc != 0)
			break;
	}
	if (rc != 0) {
		tally_pci_dma_unmap_ports(pdev, i, addr, iova, len);
		if (tally_pci_vfio(pdev))
			(void)rte_vfio_container_dma_unmap(RTE_VFIO_DEFAULT_CONTAINER_FD,
							   (uintptr_t)addr, iova, len);
	}
	return rc;
}

static int
tally_pci_dma_unmap(struct rte_pci_device *pdev, void *addr, uint64_t iova, size_t len)
{
	struct rte_eth_dev *dev;
	unsigned int i;
	int rc = 0, r;

	if (tally_pci_port(pdev, 0) == NULL)
		return -ENODEV;
	for (i = 0; i < TALLY_MAX_PORTS; i++) {
		dev = tally_pci_port(pdev, i);
		if (dev == NULL)
			continue;
		r = tally_dma_unmap(tally_adapter(dev), addr, iova, len);
		if (rc == 0)
			rc = r;
	}
	if (tally_pci_vfio(pdev))
		(void)rte_vfio_container_dma_unmap(RTE_VFIO_DEFAULT_CONTAINER_FD,
						   (uintptr_t)addr, iova, len);
	return rc;
}

static struct rte_pci_driver tally_pci_driver = {
	.id_table = tally_pci_id_table,
	.drv_flags = RTE_PCI_DRV_NEED_MAPPING,
	.probe = tally_pci_probe,
	.remove = tally_pci_remove,
	.dma_map = tally_pci_dma_map,
	.dma_unmap = tally_pci_dma_unmap,
};

RTE_PMD_REGISTER_PCI(net_tally_pci, tally_pci_driver);
RTE_PMD_REGISTER_PCI_TABLE(net_tally_pci, tally_pci_id_table);
RTE_PMD_REGISTER_KMOD_DEP(net_tally_pci, "vfio-pci");
