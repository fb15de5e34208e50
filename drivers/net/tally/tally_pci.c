/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * PCI probe: a Tally function (BAR 0) or a QEMU ivshmem-plain function whose
 * BAR 2 carries the software device's register file. The transport is plain
 * MMIO on the mapped BAR; the device runs by itself (no service hook); a
 * removed function is told by its signature reading all ones.
 */
#include <stdlib.h>
#include <string.h>

#include <ethdev_pci.h>
#include <rte_io.h>
#include <rte_malloc.h>
#include <rte_vfio.h>

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

/*
 * The transport of this function: plain MMIO, or, when the BAR is shared
 * memory (CAPS.POSTED: the device process behind ivshmem), posted writes.
 */
static int
tally_pci_transport(struct rte_pci_device *pdev, struct tally_adapter *ad,
		    const struct rte_mem_resource *res, struct tally_io *io)
{
	struct tally_posted *p;
	int rc;

	memset(io, 0, sizeof(*io));
	if (!(rte_read32(RTE_PTR_ADD(res->addr, TALLY_REG_CAPS)) & TALLY_CAP_POSTED)) {
		io->ops = &tally_mmio_ops;
		io->ctx = res->addr;
		io->bar = res->addr;
		io->bar_len = res->len;
		return 0;
	}
	p = rte_zmalloc("tally_posted", sizeof(*p), 0);
	if (p == NULL)
		return -ENOMEM;
	rc = tally_posted_attach(p, res->addr, res->len, pdev->device.name, io);
	if (rc != 0) {
		rte_free(p);
		TALLY_INIT_LOG(ERR, "%s: cannot attach to the device: %s",
			       pdev->device.name, strerror(-rc));
		return rc;
	}
	ad->transport_priv = p;
	tally_proc(ad->eth_dev)->transport_fini = tally_pci_posted_fini;
	return 0;
}

/* A secondary process: EAL mapped the BAR here too; post into the
 * primary's session when the BAR is shared memory. */
static int
tally_pci_probe_secondary(struct rte_pci_device *pdev, const struct rte_mem_resource *res)
{
	struct rte_eth_dev *dev = tally_mp_secondary_port(pdev->device.name);
	struct tally_posted *p = NULL;
	struct tally_io io;
	int rc;

	if (dev == NULL)
		return -ENODEV;
	memset(&io, 0, sizeof(io));
	if (rte_read32(RTE_PTR_ADD(res->addr, TALLY_REG_CAPS)) & TALLY_CAP_POSTED) {
		p = calloc(1, sizeof(*p));
		rc = p == NULL ? -ENOMEM :
		     tally_posted_join(p, res->addr, res->len, pdev->device.name, &io);
		if (rc != 0) {
			free(p);
			rte_eth_dev_release_port(dev);
			return rc;
		}
	} else {
		io.ops = &tally_mmio_ops;
		io.ctx = res->addr;
		io.bar = res->addr;
		io.bar_len = res->len;
	}
	return tally_mp_secondary_attach(dev, &pdev->device, &io, p, NULL, 0);
}

static int
tally_pci_probe(struct rte_pci_driver *drv, struct rte_pci_device *pdev)
{
	const struct rte_mem_resource *res;
	struct rte_eth_dev *dev;
	struct tally_io io;
	int bar = tally_pci_bar(pdev);
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
	dev = rte_eth_dev_pci_allocate(pdev, sizeof(struct tally_adapter));
	if (dev == NULL)
		return -ENOMEM;
	if (tally_mp_proc_new(dev) == NULL) {
		rte_eth_dev_release_port(dev);
		return -ENOMEM;
	}
	tally_adapter(dev)->eth_dev = dev;
	/* behind the IOMMU, the device sees EAL's IOVAs; the software device
	 * behind ivshmem reads guest RAM by guest-physical address */
	tally_adapter(dev)->dma_bus = tally_pci_is_ivshmem(pdev) ?
				      TALLY_DMA_BUS_GPA : TALLY_DMA_BUS_IOVA;
	rc = tally_pci_transport(pdev, tally_adapter(dev), res, &io);
	if (rc == 0)
		rc = tally_ethdev_init(dev, &io, NULL);
	if (rc != 0) {
		tally_pci_posted_fini(tally_adapter(dev));
		tally_mp_proc_free(dev);
		rte_eth_dev_release_port(dev);
		return rc;
	}
	rte_eth_dev_probing_finish(dev);
	TALLY_INIT_LOG(INFO, "%s: port %u on BAR%d", pdev->device.name,
		       dev->data->port_id, bar);
	return 0;
}

static int
tally_pci_uninit(struct rte_eth_dev *dev)
{
	if (rte_eal_process_type() != RTE_PROC_PRIMARY)
		return tally_mp_secondary_close(dev);
	return tally_dev_close(dev);
}

static int
tally_pci_remove(struct rte_pci_device *pdev)
{
	return rte_eth_dev_pci_generic_remove(pdev, tally_pci_uninit);
}

/*
 * rte_dev_dma_map(): external memory the application brings. With a
 * dma_map of the driver's own the bus no longer maps the IOMMU itself, so a
 * function behind VFIO gets that first; then the device's table.
 */
static int
tally_pci_dma_map(struct rte_pci_device *pdev, void *addr, uint64_t iova, size_t len)
{
	struct rte_eth_dev *dev = rte_eth_dev_allocated(pdev->device.name);
	int rc;

	if (dev == NULL)
		return -ENODEV;
	if (!tally_pci_is_ivshmem(pdev) && pdev->kdrv == RTE_PCI_KDRV_VFIO &&
	    rte_vfio_container_dma_map(RTE_VFIO_DEFAULT_CONTAINER_FD,
				       (uintptr_t)addr, iova, len) != 0)
		return -rte_errno;
	rc = tally_dma_map(tally_adapter(dev), addr, iova, len);
	if (rc != 0 && !tally_pci_is_ivshmem(pdev) && pdev->kdrv == RTE_PCI_KDRV_VFIO)
		(void)rte_vfio_container_dma_unmap(RTE_VFIO_DEFAULT_CONTAINER_FD,
						   (uintptr_t)addr, iova, len);
	return rc;
}

static int
tally_pci_dma_unmap(struct rte_pci_device *pdev, void *addr, uint64_t iova, size_t len)
{
	struct rte_eth_dev *dev = rte_eth_dev_allocated(pdev->device.name);
	int rc;

	if (dev == NULL)
		return -ENODEV;
	rc = tally_dma_unmap(tally_adapter(dev), addr, iova, len);
	if (!tally_pci_is_ivshmem(pdev) && pdev->kdrv == RTE_PCI_KDRV_VFIO)
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
