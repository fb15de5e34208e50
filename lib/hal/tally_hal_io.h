/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Tally HAL hot path: register access, doorbells, completion polling and
 * counter-bank reads, all static inline.
 *
 * Ordering rules (see tally_desc.h):
 *  - Doorbells: descriptors are plain stores to host memory; the release
 *    fence in tally_hal_*q_doorbell() orders them before the doorbell store
 *    the device acts on.
 *  - Completions: the acquire load of `phase` in tally_hal_*_cqe_ready()
 *    pairs with the device's release store of `phase` after it wrote the rest
 *    of the completion; fields are read only after it returned true.
 *  - Memory-like BAR blocks (statistics, banks) are read with plain aligned
 *    64-bit loads, never through read32 (no side effects, no tearing).
 *
 * Threads: a queue's doorbell and completion helpers are called by the one
 * thread that owns the queue. Counter reads may be called from any thread.
 */
#ifndef TALLY_HAL_IO_H
#define TALLY_HAL_IO_H

#include "tally_hal.h"

static inline uint32_t
tally_hal_read32(const struct tally_hal_dev *dev, uint32_t off)
{
	return dev->io.ops->read32(dev->io.ctx, off);
}

static inline void
tally_hal_write32(const struct tally_hal_dev *dev, uint32_t off, uint32_t val)
{
	dev->io.ops->write32(dev->io.ctx, off, val);
}

/* Plain 64-bit load from a memory-like BAR block (8-byte aligned offset). */
static inline uint64_t
tally_hal_read64(const struct tally_hal_dev *dev, uint32_t off)
{
	const uint64_t *p = (const uint64_t *)(uintptr_t)(dev->io.bar + off);

	return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

/* Let the device make progress (in-process model without its own thread).
 * Returns frames moved; 0 when the transport needs no service. */
static inline unsigned int
tally_hal_service(const struct tally_hal_dev *dev)
{
	if (dev->io.ops->service == NULL)
		return 0;
	return dev->io.ops->service(dev->io.ctx);
}

/* Publish descriptors up to the free-running producer index `prod`. */
static inline void
tally_hal_rxq_doorbell(const struct tally_hal_dev *dev, unsigned int qid,
		       uint32_t prod)
{
	tally_wmb();
	tally_hal_write32(dev, TALLY_RXQ_REG(qid, TALLY_Q_DOORBELL), prod);
}

static inline void
tally_hal_txq_doorbell(const struct tally_hal_dev *dev, unsigned int qid,
		       uint32_t prod)
{
	tally_wmb();
	tally_hal_write32(dev, TALLY_TXQ_REG(qid, TALLY_Q_DOORBELL), prod);
}

/* True when the Rx completion carries the expected phase (it is new). */
static inline bool
tally_hal_rx_cqe_ready(const struct tally_rx_cqe *cqe, uint8_t phase)
{
	/* acquire: pairs with the device's release store of phase */
	return __atomic_load_n(&cqe->phase, __ATOMIC_ACQUIRE) == phase;
}

static inline bool
tally_hal_tx_cqe_ready(const struct tally_tx_cqe *cqe, uint8_t phase)
{
	/* acquire: pairs with the device's release store of phase */
	return __atomic_load_n(&cqe->phase, __ATOMIC_ACQUIRE) == phase;
}

/*
 * Read completion counter `idx`: completions and completions in error.
 * Contract: tally_cnt_bank_read() (the device adds completions before
 * errors; 64-bit; lock-free; any thread). Unlike flow counters, the driver
 * may also set or add through tally_hal_ccnt_cmd(). Flow counters are read
 * through tally_cnt_read() (lib/steer/tally_cnt.h), which adds the software
 * reset baseline.
 */
static inline int
tally_hal_ccnt_read(const struct tally_hal_dev *dev, uint32_t idx,
		    uint64_t *comps, uint64_t *errs)
{
	if (TALLY_UNLIKELY(idx >= dev->ccnt_num))
		return -EINVAL;
	tally_cnt_bank_read(dev->io.bar + dev->ccnt_off +
			    (size_t)idx * sizeof(struct tally_ccnt_entry),
			    comps, errs);
	return 0;
}

#endif /* TALLY_HAL_IO_H */
