/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Tally hardware abstraction layer: the control path of the device.
 *
 * What: `struct tally_hal_dev` wraps a transport (struct tally_io, see
 * tally_io.h) and knows the register map (tally_regs.h). It opens and resets
 * the device, programs the DMA translation table, queues, port control and
 * RSS, and reads
 * statistics, faults and the counter banks. It uses nothing from DPDK: the
 * PMD, the verbs shim and the unit tests all use it.
 *
 * Invariants:
 *  - After tally_hal_open() succeeded the identity fields below are valid and
 *    never change; the device is freshly reset (queues off, banks zero).
 *  - Every function returns 0 or a negative errno; none allocate memory.
 *  - The hot path (doorbells, completion polling, counter reads) lives in
 *    tally_hal_io.h as static inline helpers.
 *
 * Threads: control functions (open, reset, queue create/enable/disable,
 * port control, RSS) are called from one control thread at a time (the
 * caller serialises them). Statistics, fault and counter reads may be called
 * from any thread at any time. The translation and completion-counter
 * command helpers serialise themselves with a lock each (their registers
 * are shared operand/command sets), so memory events may map and unmap from
 * any thread.
 */
#ifndef TALLY_HAL_H
#define TALLY_HAL_H

#include <stdbool.h>
#include <stdint.h>

#include <tally/tally_bits.h>
#include <tally/tally_cnt_bank.h>
#include <tally/tally_desc.h>
#include <tally/tally_io.h>
#include <tally/tally_regs.h>

#include "tally_plat.h"

/* How long the HAL waits for the device to complete a reset. */
#define TALLY_HAL_RESET_TIMEOUT_NS	(1000ull * 1000 * 1000)

struct tally_hal_dev {
	struct tally_io io;		/* transport, copied at open */
	/* identity, read once at open */
	uint32_t version;		/* raw VERSION register */
	uint32_t caps;			/* TALLY_CAP_* */
	uint32_t bar_size;
	uint16_t nb_rxq;		/* device Rx queues */
	uint16_t nb_txq;		/* device Tx queues */
	uint8_t ring_min_log2;
	uint8_t ring_max_log2;
	uint32_t cnt_num;		/* flow counter bank entries */
	uint32_t cnt_off;		/* BAR offset of the flow counter bank */
	uint32_t ccnt_num;		/* completion counter bank entries */
	uint32_t ccnt_off;		/* BAR offset of that bank */
	uint32_t max_frame;		/* bytes without FCS */
	uint32_t xlt_max;		/* translations the device holds */
	uint8_t mac[6];
	/* ports (spec 2.3; one port before): this window's index, the
	 * device's port count and the distance between two windows */
	uint8_t port_index;
	uint8_t nb_ports;
	uint32_t port_stride;
	/* serialise the completion-counter and translation command registers */
	bool ccnt_lock;
	bool xlt_lock;
	uint32_t fault_count;		/* last FAULT_CNT read (atomic): what a
					 * device that is gone still reports */
	/* the device runs by itself (no service hook: a device process, a
	 * function): the ring lines it touched are on another CPU */
	bool remote;
};

struct tally_hal_qstats {
	uint64_t packets;
	uint64_t bytes;
	uint64_t drops;			/* Rx: no descriptor; Tx: wire refused */
	uint64_t errors;		/* Rx: DMA faults; Tx: bad descriptor/DMA */
};

struct tally_hal_fault {
	uint32_t count;			/* faults since reset */
	uint32_t cause;			/* enum tally_fault of the last one */
	uint64_t addr;			/* address of the last DMA fault */
	bool pending;			/* STATUS.FAULT */
};

/* ---- device ------------------------------------------------------------- */

/*
 * Bind dev to the transport, check the signature (-ENODEV) and the major spec
 * version (-ENOTSUP), reset the device (-ETIMEDOUT) and read the identity.
 */
int tally_hal_open(struct tally_hal_dev *dev, const struct tally_io *io);
/* Reset the device (queues off, translations, RSS and stats cleared). */
int tally_hal_reset(struct tally_hal_dev *dev);
/* Quiesce the device (a reset, unless it is gone); dev must not be used
 * afterwards. */
void tally_hal_close(struct tally_hal_dev *dev);

static inline unsigned int
tally_hal_version_major(const struct tally_hal_dev *dev)
{
	return TALLY_FIELD_GET(dev->version, TALLY_VERSION_MAJOR_M);
}

static inline unsigned int
tally_hal_version_minor(const struct tally_hal_dev *dev)
{
	return TALLY_FIELD_GET(dev->version, TALLY_VERSION_MINOR_M);
}

/* ---- DMA translation ---------------------------------------------------- */

/*
 * Translate [iova, iova + len) to [bus, bus + len) (whole TALLY_XLT_PAGE
 * pages). 0; -EINVAL misaligned or empty; -EEXIST a page is mapped already;
 * -ENOSPC the device's table is full; -EFAULT the device cannot reach that
 * bus range; -ENODEV the device is gone. Nothing changes on failure.
 */
int tally_hal_xlt_map(struct tally_hal_dev *dev, uint64_t iova, uint64_t bus,
		      uint64_t len);
/* Remove every mapped page of [iova, iova + len): 0, or -ENOENT when none
 * was mapped. On return the device no longer reaches those pages. */
int tally_hal_xlt_unmap(struct tally_hal_dev *dev, uint64_t iova, uint64_t len);
/* Remove every translation (a reset does too). */
int tally_hal_xlt_clear(struct tally_hal_dev *dev);
/* Translations in the device's table (it may join adjacent ones). */
uint32_t tally_hal_xlt_count(const struct tally_hal_dev *dev);

/* ---- queues ------------------------------------------------------------- */

/*
 * Program the rings of a queue (disabled): descriptor ring IOVA, completion
 * ring IOVA and log2 of the entry count, which must lie within the device's
 * ring limits. The rings are sampled at enable; the caller zeroes the
 * completion ring before enabling.
 */
int tally_hal_rxq_create(struct tally_hal_dev *dev, unsigned int qid,
			 uint64_t ring_iova, uint64_t cq_iova,
			 unsigned int log2_size);
int tally_hal_txq_create(struct tally_hal_dev *dev, unsigned int qid,
			 uint64_t ring_iova, uint64_t cq_iova,
			 unsigned int log2_size);
/* Enable: HEAD and producer restart at 0, expected completion phase 1. */
int tally_hal_rxq_enable(struct tally_hal_dev *dev, unsigned int qid,
			 bool scatter);
int tally_hal_txq_enable(struct tally_hal_dev *dev, unsigned int qid);
/* Disable: stops at once, in-flight descriptors are dropped. */
int tally_hal_rxq_disable(struct tally_hal_dev *dev, unsigned int qid);
int tally_hal_txq_disable(struct tally_hal_dev *dev, unsigned int qid);
/* Attach (en) or detach a completion counter to a queue. */
int tally_hal_rxq_ccnt_attach(struct tally_hal_dev *dev, unsigned int qid,
			      uint32_t ccnt_idx, bool en);
int tally_hal_txq_ccnt_attach(struct tally_hal_dev *dev, unsigned int qid,
			      uint32_t ccnt_idx, bool en);

/* ---- port control ------------------------------------------------------- */

/* Clear then set TALLY_CTRL_* bits (read-modify-write of CTRL). */
void tally_hal_ctrl_update(struct tally_hal_dev *dev, uint32_t set,
			   uint32_t clear);
uint32_t tally_hal_ctrl_get(const struct tally_hal_dev *dev);
void tally_hal_set_mtu(struct tally_hal_dev *dev, uint32_t mtu);
/*
 * Unicast MAC filter (spec 2.1). tally_hal_mac_filters() is how many entries
 * the device has: TALLY_MAC_FILTERS, or 1 (only the factory MAC, not
 * writable) before 2.1. set/clear return -EINVAL for an index beyond it and
 * -ENOTSUP when the device has no table.
 */
unsigned int tally_hal_mac_filters(const struct tally_hal_dev *dev);
int tally_hal_mac_set(struct tally_hal_dev *dev, unsigned int idx, const uint8_t mac[6]);
int tally_hal_mac_clear(struct tally_hal_dev *dev, unsigned int idx);
/*
 * Multicast filter (spec 2.2): tally_hal_mc_filters() entries, 0 before 2.2.
 * set/clear return -EINVAL for an index beyond it and -ENOTSUP when the
 * device has no table.
 */
unsigned int tally_hal_mc_filters(const struct tally_hal_dev *dev);
int tally_hal_mc_set(struct tally_hal_dev *dev, unsigned int idx, const uint8_t mac[6]);
int tally_hal_mc_clear(struct tally_hal_dev *dev, unsigned int idx);
/* Hold the link down (CTRL.LINK_DOWN, spec 2.2) or let it up: -ENOTSUP
 * before 2.2, -ENODEV once the device is gone. */
int tally_hal_link_set(struct tally_hal_dev *dev, bool up);
/* Link up: the device answers and reports STATUS.LINK_UP. */
bool tally_hal_link_up(const struct tally_hal_dev *dev);
/* The device no longer answers (tally_io_ops.state): a device process that
 * exited, a removed function. Control operations then fail with -ENODEV. */
bool tally_hal_gone(const struct tally_hal_dev *dev);
/* key: TALLY_RSS_KEY_LEN bytes. */
void tally_hal_rss_set_key(struct tally_hal_dev *dev, const uint8_t *key);
/* reta: TALLY_RSS_RETA_SIZE queue numbers (< nb_rxq). */
int tally_hal_rss_set_reta(struct tally_hal_dev *dev, const uint8_t *reta);
/* hf: enum tally_rss_hf bits. */
void tally_hal_rss_set_hf(struct tally_hal_dev *dev, uint32_t hf);

/* ---- statistics and faults ---------------------------------------------- */

/* All port statistics (enum tally_port_stat order); plain 64-bit loads. */
void tally_hal_port_stats(const struct tally_hal_dev *dev,
			  uint64_t st[TALLY_STAT_NUM]);
uint64_t tally_hal_port_stat(const struct tally_hal_dev *dev,
			     enum tally_port_stat s);
int tally_hal_rxq_stats(const struct tally_hal_dev *dev, unsigned int qid,
			struct tally_hal_qstats *st);
int tally_hal_txq_stats(const struct tally_hal_dev *dev, unsigned int qid,
			struct tally_hal_qstats *st);
/* Read the fault registers; clear (W1C) the cause when `clear`. A device
 * that is gone reports the last count read and nothing else. */
void tally_hal_fault_read(struct tally_hal_dev *dev, struct tally_hal_fault *f,
			  bool clear);
const char *tally_hal_fault_str(uint32_t cause);

/* ---- completion counters ------------------------------------------------ */

/* Set or add to a completion counter (enum tally_ccnt_cmd); serialised. */
int tally_hal_ccnt_cmd(struct tally_hal_dev *dev, uint32_t idx,
		       enum tally_ccnt_cmd cmd, uint64_t val);

#endif /* TALLY_HAL_H */
