/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Posted-write mailbox: how a device whose BAR is plain shared memory sees
 * register writes.
 *
 * A real function decodes MMIO stores as they arrive. When the BAR is a
 * shared-memory file (the device process `tally-nic`, on the host or behind
 * QEMU's ivshmem-plain), stores to it do not trap, so the device advertises
 * TALLY_CAP_POSTED and the driver posts every register write, in order, to
 * this mailbox instead of storing to the register. The device applies the
 * posted writes in order, with exactly the side effects the register map
 * gives a direct store. Everything else is unchanged: register reads and the
 * memory-like blocks (statistics, counter banks) are loads from the BAR.
 *
 * Layout: struct tally_mbox at TALLY_MBOX_OFF in the BAR. Each part that
 * one side writes sits on its own cache line.
 *
 * Protocol
 *  - Attach: the driver stores 0 to `reserve`, then a new non-zero
 *    `session` (release). The device then drops every posted entry, resets
 *    itself as a write of TALLY_RESET_MAGIC would, sets `cons` to 0 and
 *    finally stores `session_ack` = `session` (release). The driver posts
 *    nothing until it has loaded that value (acquire, pairs with the
 *    device's store).
 *  - Post write number n (n = 0, 1, ... within a session): reserve n with
 *    one atomic add on `reserve`, wait until n - cons < TALLY_MBOX_ENTRIES,
 *    fill entries[n % ENTRIES].off/val, then store its `seq` = n + 1
 *    (release). Several driver threads, in one process or several, may post
 *    at once: the counter lives here, in the shared memory.
 *  - Join: another process of the same driver (a DPDK secondary process)
 *    posts into the running session without attaching: it checks that
 *    `session_ack` equals `session` and is not 0, then posts as above.
 *    Joining resets nothing; the session's owner alone attaches and ends it.
 *  - The device loads entries[cons % ENTRIES].seq (acquire, pairs with the
 *    driver's release store); when it equals cons + 1 it applies the write,
 *    then stores cons + 1 to `cons` (release). An entry whose write is not
 *    yet published stops the device until it is.
 *  - Reads flush: like a PCIe read behind posted writes, a driver register
 *    read first waits until `cons` (acquire, pairs with the device's store)
 *    has reached every write posted before it, so it sees their effects.
 *  - Liveness: the device increments `heartbeat` at least every
 *    TALLY_MBOX_HEARTBEAT_US while it runs, idle or not. A driver that waits
 *    on the mailbox and sees no heartbeat change for TALLY_MBOX_LOST_US
 *    treats the device as gone: register reads return all ones (as from a
 *    removed PCIe function), writes are dropped, the link is down.
 *  - Reset (a posted write of TALLY_RESET_MAGIC) leaves this block alone.
 */
#ifndef TALLY_MBOX_H
#define TALLY_MBOX_H

#include <stdint.h>

#include "tally_bits.h"

#define TALLY_MBOX_OFF			0x4000	/* BAR offset when CAPS.POSTED */
#define TALLY_MBOX_MAGIC		0x58424d54u	/* bytes "TMBX" */
#define TALLY_MBOX_LOG2			8
#define TALLY_MBOX_ENTRIES		(1u << TALLY_MBOX_LOG2)
#define TALLY_MBOX_HEARTBEAT_US		1000
#define TALLY_MBOX_LOST_US		2000000

struct tally_mbox_entry {
	uint32_t off;			/* register offset */
	uint32_t val;			/* value stored to it */
	uint64_t seq;			/* n + 1 once published; 0 empty */
};
TALLY_STATIC_SIZE(struct tally_mbox_entry, 16);

struct tally_mbox {
	/* device-written identity */
	uint32_t magic;			/* RO: TALLY_MBOX_MAGIC */
	uint32_t entries_log2;		/* RO: TALLY_MBOX_LOG2 */
	uint8_t pad0[56];
	/* driver-written */
	uint64_t session;		/* driver: attach with a new non-zero value */
	uint64_t reserve;		/* drivers: writes reserved this session */
	uint8_t pad1[48];
	/* device-written */
	uint64_t session_ack;		/* device: session it serves */
	uint64_t cons;			/* device: writes applied in this session */
	uint8_t pad2[48];
	uint64_t heartbeat;		/* device: ticks while it runs */
	uint8_t pad3[56];
	struct tally_mbox_entry entries[TALLY_MBOX_ENTRIES];
};
TALLY_STATIC_SIZE(struct tally_mbox, 256 + TALLY_MBOX_ENTRIES * 16);

#define TALLY_MBOX_LEN			((uint32_t)sizeof(struct tally_mbox))

#endif /* TALLY_MBOX_H */
