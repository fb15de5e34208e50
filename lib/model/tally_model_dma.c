/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The device's DMA translation table (tally_regs.h, "DMA translation").
 *
 * Design
 *  - The table is an array of translations sorted by IOVA, none overlapping
 *    (struct tally_model_xlt). A translation keeps the host pointer its
 *    first page reached when it was mapped, as `delta` = host - IOVA: the
 *    bus is reached once, at MAP time, through cfg.bus_map (the in-process
 *    device's bus is the process's own address space: host = bus).
 *    Translations that continue each other in IOVA and in host memory are
 *    joined (whatever their bus addresses), so a driver that maps page by
 *    page still gets one translation per contiguous run.
 *  - Lookups: a direct-mapped cache of translations (tally_model_priv.h,
 *    the TLB), indexed by the 2 MiB unit of the IOVA, answers the data path
 *    inline; a miss binary-searches the array and fills the slot. MAP never
 *    invalidates anything (it only adds); UNMAP and CLEAR empty the cache,
 *    the classification cache, and disable queues whose rings went away
 *    (tally_model_queue_revalidate(), here: the queue file is above).
 *  - An access must lie inside one (joined) translation. Accesses that span
 *    two translations whose host memory does not continue are DMA faults:
 *    the model cannot hand out one pointer for them (doc/model.md).
 *
 * Everything here runs under the model lock.
 */
#include <string.h>

#include "tally_model_priv.h"

/* ---- the sorted array ----------------------------------------------------- */

/* Index of the first translation that ends after iova (n when none). */
static uint32_t
xlt_find(const struct tally_model_xlt *x, uint64_t iova)
{
	uint32_t lo = 0, hi = x->n;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		const struct tally_model_ext *e = &x->ext[mid];

		if (e->iova + e->len <= iova)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Room for `need` translations (a MAP that inserts, an UNMAP that splits
 * one in two): -ENOSPC beyond XLT_MAX or without memory. */
static int
xlt_reserve(struct tally_model_xlt *x, uint32_t need)
{
	struct tally_model_ext *ne;
	uint32_t cap;

	if (need <= x->cap)
		return 0;
	if (need > TALLY_MODEL_XLT_MAX)
		return -ENOSPC;
	cap = x->cap ? x->cap * 2 : 64;
	while (cap < need)
		cap *= 2;
	if (cap > TALLY_MODEL_XLT_MAX)
		cap = TALLY_MODEL_XLT_MAX;
	ne = tally_zmalloc(sizeof(*ne) * cap);
	if (ne == NULL)
		return -ENOSPC;
	if (x->n != 0)
		memcpy(ne, x->ext, sizeof(*ne) * x->n);
	tally_free(x->ext);
	x->ext = ne;
	x->cap = cap;
	return 0;
}

static void
xlt_insert_at(struct tally_model_xlt *x, uint32_t i, const struct tally_model_ext *e)
{
	memmove(&x->ext[i + 1], &x->ext[i], sizeof(x->ext[0]) * (x->n - i));
	x->ext[i] = *e;
	x->n++;
}

static void
xlt_remove_at(struct tally_model_xlt *x, uint32_t i)
{
	memmove(&x->ext[i], &x->ext[i + 1], sizeof(x->ext[0]) * (x->n - i - 1));
	x->n--;
}

static bool
xlt_joins(const struct tally_model_ext *a, const struct tally_model_ext *b)
{
	return a->iova + a->len == b->iova && a->delta == b->delta;
}

static void
xlt_release(struct tally_model *m, const struct tally_model_ext *e, uint64_t off,
	    uint64_t len)
{
	if (m->cfg.bus_unmap != NULL)
		m->cfg.bus_unmap(m->cfg.bus_arg, (void *)(uintptr_t)(e->iova + e->delta + off),
				 len);
}

static bool
xlt_range_ok(uint64_t a, uint64_t len)
{
	return len != 0 && (a % TALLY_XLT_PAGE) == 0 && (len % TALLY_XLT_PAGE) == 0 &&
	       a + len - 1 >= a;
}

static enum tally_xlt_status
xlt_map(struct tally_model *m, uint64_t iova, uint64_t bus, uint64_t len)
{
	struct tally_model_xlt *x = &m->xlt;
	struct tally_model_ext e;
	uint32_t i;
	void *host;

	if (!xlt_range_ok(iova, len) || !xlt_range_ok(bus, len))
		return TALLY_XLT_EINVAL;
	i = xlt_find(x, iova);
	if (i < x->n && x->ext[i].iova < iova + len)
		return TALLY_XLT_EEXIST;
	if (m->cfg.bus_map != NULL)
		host = m->cfg.bus_map(m->cfg.bus_arg, iova, bus, len);
	else
		host = (void *)(uintptr_t)bus;
	if (host == NULL)
		return TALLY_XLT_EBUS;
	e.iova = iova;
	e.len = len;
	e.delta = (uint64_t)(uintptr_t)host - iova;
	/* a MAP that joins a neighbour takes no room; an insert does */
	if (!(i > 0 && xlt_joins(&x->ext[i - 1], &e)) &&
	    !(i < x->n && xlt_joins(&e, &x->ext[i])) && xlt_reserve(x, x->n + 1) != 0) {
		if (m->cfg.bus_unmap != NULL)
			m->cfg.bus_unmap(m->cfg.bus_arg, host, len);
		return TALLY_XLT_ENOSPC;
	}
	if (i > 0 && xlt_joins(&x->ext[i - 1], &e)) {
		x->ext[i - 1].len += len;
		if (i < x->n && xlt_joins(&x->ext[i - 1], &x->ext[i])) {
			x->ext[i - 1].len += x->ext[i].len;
			xlt_remove_at(x, i);
		}
	} else if (i < x->n && xlt_joins(&e, &x->ext[i])) {
		x->ext[i].iova = iova;
		x->ext[i].len += len;
	} else {
		xlt_insert_at(x, i, &e);
	}
	x->pages += len / TALLY_XLT_PAGE;
	return TALLY_XLT_OK;
}

/* Disable q (BAD_QUEUE fault) when its rings no longer translate to where
 * they did at enable. */
static void
tally_model_queue_revalidate(struct tally_model *m, struct tally_model_queue *q)
{
	size_t n = (size_t)q->mask + 1;
	size_t cqe = q->is_tx ? sizeof(struct tally_tx_cqe) : sizeof(struct tally_rx_cqe);

	if (!q->en)
		return;
	if (tally_model_dma_lookup(m, q->ring_iova, n * 16) == q->ring &&
	    tally_model_dma_lookup(m, q->cq_iova, n * cqe) == q->cq)
		return;
	/* the rings' memory was unmapped under a running queue */
	q->en = false;
	tally_model_bar_wr(m, tally_model_q_reg(q, TALLY_Q_CTRL),
			   tally_model_bar_rd(m, tally_model_q_reg(q, TALLY_Q_CTRL)) &
			   ~TALLY_Q_CTRL_EN);
	tally_model_fault(m, TALLY_FAULT_BAD_QUEUE, q->ring_iova);
}

/* After translations went away: nothing the device kept may point there. */
static void
xlt_forget(struct tally_model *m)
{
	unsigned int i;

	memset(m->tlb, 0, sizeof(m->tlb));
	tally_model_cls_invalidate(m);
	for (i = 0; i < TALLY_MAX_QUEUES; i++) {
		tally_model_queue_revalidate(m, &m->rxq[i]);
		tally_model_queue_revalidate(m, &m->txq[i]);
	}
}

static enum tally_xlt_status
xlt_unmap(struct tally_model *m, uint64_t iova, uint64_t len)
{
	struct tally_model_xlt *x = &m->xlt;
	uint64_t end = iova + len, removed = 0;
	uint32_t i;

	if (!xlt_range_ok(iova, len))
		return TALLY_XLT_EINVAL;
	i = xlt_find(x, iova);
	/* only a range strictly inside one translation splits it: room for
	 * that first, or nothing changes */
	if (i < x->n && x->ext[i].iova < iova && x->ext[i].iova + x->ext[i].len > end &&
	    xlt_reserve(x, x->n + 1) != 0)
		return TALLY_XLT_ENOSPC;
	while (i < x->n && x->ext[i].iova < end) {
		struct tally_model_ext *e = &x->ext[i];
		uint64_t lo = TALLY_MAX(e->iova, iova);
		uint64_t hi = TALLY_MIN(e->iova + e->len, end);

		xlt_release(m, e, lo - e->iova, hi - lo);
		removed += hi - lo;
		if (lo > e->iova && hi < e->iova + e->len) {
			/* the middle goes: split (room reserved above) */
			struct tally_model_ext tail = *e;

			tail.iova = hi;
			tail.len = e->iova + e->len - hi;
			e->len = lo - e->iova;
			xlt_insert_at(x, i + 1, &tail);
			break;
		}
		if (lo > e->iova) {		/* the tail goes */
			e->len = lo - e->iova;
			i++;
		} else if (hi < e->iova + e->len) {	/* the head goes */
			e->len -= hi - e->iova;
			e->iova = hi;
			break;
		} else {
			xlt_remove_at(x, i);
		}
	}
	if (removed == 0)
		return TALLY_XLT_ENOENT;
	x->pages -= removed / TALLY_XLT_PAGE;
	xlt_forget(m);
	return TALLY_XLT_OK;
}

void
tally_model_xlt_forget_host(struct tally_model *m, const void *host, size_t len)
{
	uint64_t lo = (uint64_t)(uintptr_t)host, hi = lo + len;
	struct tally_model_xlt *x = &m->xlt;
	enum tally_xlt_status st;
	uint32_t i;

	tally_model_lock(m);
	for (i = 0; i < x->n;) {
		const struct tally_model_ext *e = &x->ext[i];
		uint64_t h = e->iova + e->delta;
		uint64_t a = TALLY_MAX(h, lo), b = TALLY_MIN(h + e->len, hi);

		if (a >= b) {
			i++;
			continue;
		}
		TALLY_LOG(WARNING, "IOVA 0x%llx: its memory is going away: unmapped",
			  (unsigned long long)(e->iova + (a - h)));
		/* the array changes: look at this index again (what stays
		 * of it no longer meets the range). No room to split (a full
		 * table): the whole translation goes. A misaligned host
		 * range cannot come from a MAP: left as it is. */
		st = xlt_unmap(m, e->iova + (a - h), b - a);
		if (st == TALLY_XLT_ENOSPC)
			st = xlt_unmap(m, e->iova, e->len);
		if (st != TALLY_XLT_OK)
			i++;
	}
	tally_model_bar_wr(m, TALLY_REG_XLT_COUNT, x->n);
	tally_model_unlock(m);
}

void
tally_model_xlt_clear(struct tally_model *m)
{
	struct tally_model_xlt *x = &m->xlt;
	uint32_t i;

	for (i = 0; i < x->n; i++)
		xlt_release(m, &x->ext[i], 0, x->ext[i].len);
	x->n = 0;
	x->pages = 0;
	xlt_forget(m);
}

void
tally_model_xlt_free(struct tally_model *m)
{
	tally_model_xlt_clear(m);
	tally_free(m->xlt.ext);
	memset(&m->xlt, 0, sizeof(m->xlt));
}

static uint64_t
xlt_reg64(const struct tally_model *m, uint32_t lo)
{
	return (uint64_t)tally_model_bar_rd(m, lo) |
	       (uint64_t)tally_model_bar_rd(m, lo + 4) << 32;
}

void
tally_model_xlt_cmd(struct tally_model *m, uint32_t cmd)
{
	uint64_t iova = xlt_reg64(m, TALLY_REG_XLT_IOVA_LO);
	uint64_t bus = xlt_reg64(m, TALLY_REG_XLT_BUS_LO);
	uint64_t len = xlt_reg64(m, TALLY_REG_XLT_LEN_LO);
	enum tally_xlt_status st;

	switch (cmd) {
	case TALLY_XLT_CMD_MAP:
		st = xlt_map(m, iova, bus, len);
		break;
	case TALLY_XLT_CMD_UNMAP:
		st = xlt_unmap(m, iova, len);
		break;
	case TALLY_XLT_CMD_CLEAR:
		tally_model_xlt_clear(m);
		st = TALLY_XLT_OK;
		break;
	default:
		st = TALLY_XLT_EINVAL;
		break;
	}
	if (st != TALLY_XLT_OK)
		TALLY_LOG(INFO, "translation command %u [0x%llx, +0x%llx) -> 0x%llx: status %d",
			  cmd, (unsigned long long)iova, (unsigned long long)len,
			  (unsigned long long)bus, (int)st);
	tally_model_bar_wr(m, TALLY_REG_XLT_STATUS, (uint32_t)st);
	tally_model_bar_wr(m, TALLY_REG_XLT_COUNT, m->xlt.n);
}

/* ---- lookups -------------------------------------------------------------- */

void *
tally_model_dma_lookup(struct tally_model *m, uint64_t iova, size_t len)
{
	const struct tally_model_xlt *x = &m->xlt;
	const struct tally_model_ext *e;
	struct tally_model_tlb *t;
	uint32_t i;

	if (len == 0)
		return NULL;
	t = tally_model_tlb_slot(m, iova);
	if (tally_model_tlb_has(t, iova, len))
		return (void *)(uintptr_t)(iova + t->delta);
	i = xlt_find(x, iova);
	if (i == x->n)
		return NULL;
	e = &x->ext[i];
	if (iova < e->iova || len > e->len - (iova - e->iova))
		return NULL;
	t->base = e->iova;
	t->len = e->len;
	t->delta = e->delta;
	m->tlb_last = (uint32_t)(t - m->tlb);
	return (void *)(uintptr_t)(iova + e->delta);
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
