/* SPDX-License-Identifier: BSD-3-Clause */
/* DMA region checking and fault recording. */
#include "tally_model_priv.h"

void
tally_model_dma_region_update(struct tally_model *m, unsigned int i)
{
	uint64_t base = (uint64_t)tally_model_bar_rd(m, TALLY_REG_DMA_ADDR_LO(i)) |
			(uint64_t)tally_model_bar_rd(m, TALLY_REG_DMA_ADDR_HI(i)) << 32;
	uint64_t len = (uint64_t)tally_model_bar_rd(m, TALLY_REG_DMA_LEN_LO(i)) |
		       (uint64_t)tally_model_bar_rd(m, TALLY_REG_DMA_LEN_HI(i)) << 32;

	tally_model_cls_invalidate(m);	/* cached pointers were checked against the old regions */
	m->dma[i].base = base;
	m->dma[i].len = 0;
	if (len != 0 && base + len - 1 < base) {
		/* wraps the address space: the slot stays unused */
		tally_model_fault(m, TALLY_FAULT_DMA, base);
		return;
	}
	m->dma[i].len = len;
}

static inline bool
tally_model_region_has(const struct tally_model_region *r, uint64_t iova, size_t len)
{
	return r->len != 0 && iova >= r->base && iova - r->base < r->len &&
	       len <= r->len - (iova - r->base);
}

/* Buffers of one burst nearly always lie in the region the last one did
 * (one mempool): that region is tried first, the others in order after. */
void *
tally_model_dma_lookup(struct tally_model *m, uint64_t iova, size_t len)
{
	uint32_t last = m->dma_last % TALLY_DMA_REGION_MAX;
	unsigned int i;

	if (len == 0)
		return NULL;
	if (!tally_model_region_has(&m->dma[last], iova, len)) {
		for (i = 0; i < TALLY_DMA_REGION_MAX; i++)
			if (tally_model_region_has(&m->dma[i], iova, len))
				break;
		if (i == TALLY_DMA_REGION_MAX)
			return NULL;
		m->dma_last = i;
	}
	if (m->cfg.xlate != NULL)
		return m->cfg.xlate(m->cfg.xlate_arg, iova, len);
	return (void *)(uintptr_t)iova;
}

void *
tally_model_dma(struct tally_model *m, uint64_t iova, size_t len)
{
	void *p = tally_model_dma_lookup(m, iova, len);

	if (p == NULL)
		tally_model_fault(m, TALLY_FAULT_DMA, iova);
	return p;
}

void *
tally_model_dma_obj(struct tally_model *m, uint64_t iova, size_t len,
		    size_t align, enum tally_fault cause)
{
	void *p;

	if ((iova & (align - 1)) != 0) {
		tally_model_fault(m, cause, iova);
		return NULL;
	}
	p = tally_model_dma(m, iova, len);
	if (p != NULL && ((uintptr_t)p & (align - 1)) != 0) {
		/* the translation moved it off its alignment */
		tally_model_fault(m, cause, iova);
		return NULL;
	}
	return p;
}

void
tally_model_fault(struct tally_model *m, enum tally_fault cause, uint64_t addr)
{
	tally_model_bar_wr(m, TALLY_REG_FAULT_CNT,
			   tally_model_bar_rd(m, TALLY_REG_FAULT_CNT) + 1);
	tally_model_bar_wr(m, TALLY_REG_FAULT_CAUSE, (uint32_t)cause);
	tally_model_bar_wr(m, TALLY_REG_FAULT_ADDR_LO, (uint32_t)addr);
	tally_model_bar_wr(m, TALLY_REG_FAULT_ADDR_HI, (uint32_t)(addr >> 32));
	tally_model_bar_wr(m, TALLY_REG_STATUS,
			   tally_model_bar_rd(m, TALLY_REG_STATUS) | TALLY_STATUS_FAULT);
	if (cause == TALLY_FAULT_DMA)
		tally_model_stat_add(m, TALLY_STAT_DMA_FAULTS, 1);
	else if (cause == TALLY_FAULT_BAD_DESC)
		tally_model_stat_add(m, TALLY_STAT_DESC_FAULTS, 1);
	TALLY_LOG(NOTICE, "fault cause %d addr 0x%llx", (int)cause,
		  (unsigned long long)addr);
}
