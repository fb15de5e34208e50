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
 * Read a pair {a, b} of a bank entry with the torn-read guard: load a, then
 * b, then a again, until both loads of a agree.
 */
static inline void
tally_hal_bank_pair_read(const volatile uint8_t *entry, uint64_t *a,
			 uint64_t *b)
{
	const uint64_t *pa = (const uint64_t *)(uintptr_t)entry;
	const uint64_t *pb = pa + 1;
	uint64_t a0, a1, bv;

	a1 = __atomic_load_n(pa, __ATOMIC_ACQUIRE);
	do {
		a0 = a1;
		bv = __atomic_load_n(pb, __ATOMIC_ACQUIRE);
		a1 = __atomic_load_n(pa, __ATOMIC_ACQUIRE);
	} while (TALLY_UNLIKELY(a0 != a1));
	*a = a0;
	*b = bv;
}

/*
 * Read flow counter `idx` of the device counter bank. Lock-free, any thread.
 *
 * Contract:
 *  - Width: both values are full 64-bit counters; they wrap at 2^64 and
 *    never need software extension.
 *  - Device order: for every frame the device adds packets first, then
 *    bytes, each an atomic 64-bit add. This read loads packets, bytes, then
 *    packets again and retries until the two packet loads agree. So bytes
 *    never include a frame that packets does not; packets may include at most
 *    the frames in flight (one per device writer) whose bytes land just after
 *    the read. Each 64-bit load is single-copy atomic (aligned).
 *  - No reset in hardware: the bank only increases (device reset zeroes it).
 *    "Reset" of a counter is a software baseline that upper layers keep and
 *    subtract; this function always returns raw device values.
 *  - Returns 0, or -EINVAL when idx is outside the bank.
 */
static inline int
tally_hal_cnt_read(const struct tally_hal_dev *dev, uint32_t idx,
		   uint64_t *pkts, uint64_t *bytes)
{
	if (TALLY_UNLIKELY(idx >= dev->cnt_num))
		return -EINVAL;
	tally_hal_bank_pair_read(dev->io.bar + dev->cnt_off +
				 (size_t)idx * sizeof(struct tally_cnt_entry),
				 pkts, bytes);
	return 0;
}

/*
 * Read completion counter `idx`: completions and completions in error.
 * Same contract as tally_hal_cnt_read() (completions added before errors,
 * 64-bit, lock-free), except that the driver may also set or add through
 * tally_hal_ccnt_cmd().
 */
static inline int
tally_hal_ccnt_read(const struct tally_hal_dev *dev, uint32_t idx,
		    uint64_t *comps, uint64_t *errs)
{
	if (TALLY_UNLIKELY(idx >= dev->ccnt_num))
		return -EINVAL;
	tally_hal_bank_pair_read(dev->io.bar + dev->ccnt_off +
				 (size_t)idx * sizeof(struct tally_ccnt_entry),
				 comps, errs);
	return 0;
}

#endif /* TALLY_HAL_IO_H */
