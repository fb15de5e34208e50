/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * How the driver reaches a Tally device: the transport.
 *
 * Three transports implement the same contract:
 *  - "bar":   a memory-mapped PCI BAR (VFIO). Registers are 32-bit MMIO loads
 *             and stores; `service` is NULL (the device runs by itself).
 *  - "model": the in-process software device (lib/model). Register stores go
 *             through the model's decoder; `service` lets the device run a
 *             step on the caller's thread (the only way it runs without a
 *             model thread; a help to the thread when it has one).
 *  - "posted": a BAR that is shared memory (the device process, directly or
 *             behind ivshmem): register stores are posted to the mailbox of
 *             tally_mbox.h; see lib/hal/tally_hal_posted.h.
 *
 * In both, `bar` points at the start of the register file (offset 0 of
 * tally_regs.h) and memory-like blocks (statistics, counter banks) are read
 * with plain 64-bit loads from it.
 *
 * Thread-safety: read32/write32/service may be called from any thread;
 * the transport serialises what it must.
 */
#ifndef TALLY_IO_H
#define TALLY_IO_H

#include <stddef.h>
#include <stdint.h>

struct tally_io_ops {
	const char *name;
	uint32_t (*read32)(void *ctx, uint32_t off);
	void (*write32)(void *ctx, uint32_t off, uint32_t val);
	/* Let the device make progress (poll the wire, process doorbells).
	 * May be NULL. Returns the number of frames moved, never negative. */
	unsigned int (*service)(void *ctx);
	/* 0 while the device answers, -ENODEV once it is gone (a device
	 * process that exited, a removed function). May be NULL: always 0. */
	int (*state)(void *ctx);
};

struct tally_io {
	const struct tally_io_ops *ops;
	void *ctx;
	volatile uint8_t *bar;	/* register file start */
	size_t bar_len;
};

#endif /* TALLY_IO_H */
