/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The device's view of host memory (tally_dma.c): which memory the
 * device's translation table maps, kept equal to EAL's memory as it grows
 * and shrinks, plus what the application maps with rte_dev_dma_map().
 * Every address the PMD gives the device is the virtual address of the
 * memory (IOVA = VA); the bus address it translates to is the transport's.
 */
#ifndef TALLY_DMA_H
#define TALLY_DMA_H

#include <stdint.h>
#include <stddef.h>

struct tally_adapter;

/* What a bus address is on the port's transport. */
enum tally_dma_bus {
	TALLY_DMA_BUS_VA,	/* in-process model: this process's addresses */
	TALLY_DMA_BUS_HOST,	/* device process: VAs of ranges shared over its socket */
	TALLY_DMA_BUS_IOVA,	/* PCI function behind the IOMMU: EAL's IOVA */
	TALLY_DMA_BUS_GPA,	/* ivshmem: guest-physical addresses */
};

/* How memory is shared with a device process before it is mapped
 * (TALLY_DMA_BUS_HOST): each call 0 or -errno; add and del are answered
 * by the next sync. */
struct tally_dma_share_ops {
	int (*add)(void *ctx, int fd, uint64_t bus, uint64_t len, uint64_t off);
	int (*del)(void *ctx, uint64_t bus, uint64_t len);
	int (*sync)(void *ctx);
};

struct tally_dma_stats {
	uint64_t mapped_bytes;	/* EAL and external memory the device reaches */
	uint64_t maps;		/* translations made (runs of pages) */
	uint64_t unmaps;	/* ranges unmapped (memory EAL freed, dma_unmap) */
	uint64_t map_errors;	/* memory the device could not be given */
	uint32_t translations;	/* in the device's table now (joined) */
};

/* Probe, after the HAL is open and the flow engine made: map all memory
 * and follow EAL's memory events. share: TALLY_DMA_BUS_HOST only. */
int tally_dma_init(struct tally_adapter *ad, enum tally_dma_bus bus,
		   const struct tally_dma_share_ops *share, void *share_ctx);
/* Close: stop following, unmap everything. */
void tally_dma_fini(struct tally_adapter *ad);
/* rte_dev_dma_map() / rte_dev_dma_unmap() of external memory: page-aligned
 * addr and len; iova is EAL's (the bus address on a PCI function). */
int tally_dma_map(struct tally_adapter *ad, void *addr, uint64_t iova, size_t len);
int tally_dma_unmap(struct tally_adapter *ad, void *addr, uint64_t iova, size_t len);
void tally_dma_stats(const struct tally_adapter *ad, struct tally_dma_stats *st);
/* Bytes EAL could still add to the heap of `socket`: the free huge pages
 * of its page size there (none without huge pages; with --legacy-mem EAL
 * took what it gets at start). A figure for sizing, not a promise. */
uint64_t tally_dma_growable(int socket);

#endif /* TALLY_DMA_H */
