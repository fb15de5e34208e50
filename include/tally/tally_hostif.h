/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Host transport: how a driver process reaches the device process
 * (`tally-nic --socket PATH`) on the same machine.
 *
 * A UNIX SOCK_SEQPACKET socket carries fixed-size messages (struct
 * tally_hostif_msg); file descriptors travel as SCM_RIGHTS ancillary data.
 *
 *   driver -> device  HELLO  {version, pid, mode}            mode ATTACH, STATS or JOIN
 *   device -> driver  BAR    {status 0, len = BAR bytes} + the BAR's fd
 *                     BUSY   {status -EBUSY, text}          another driver is attached
 *                     STATS  {text}, repeated, then END      mode STATS only
 *   The HELLO is the connection's first message, without a descriptor,
 *   within 1 s of connecting; otherwise the device answers BUSY {-EPROTO}
 *   (not a HELLO of this version) or {-ETIMEDOUT} (none in time) and
 *   closes the connection; BUSY {-EAGAIN}: too many connections wait for
 *   their HELLO, try again; BUSY {-EACCES}: the user connecting (the
 *   kernel's credentials of the connection) may not use this device, sent
 *   before anything is read. HELLO's pid is informational only. The device
 *   never waits for a client: a client that does not take an answer is
 *   disconnected.
 *   JOIN (a secondary process of the attached driver): the device answers
 *   BAR + fd as for ATTACH, or BUSY {-ENODEV} when no driver is attached,
 *   and closes the connection: the joiner posts into the attached
 *   driver's mailbox session (tally_mbox.h) and shares no memory itself.
 *   driver -> device  MEM    {bus, len, offset} + a memory fd   share a bus range
 *   driver -> device  MEM_DEL {bus, len}                       stop sharing ranges
 *   driver -> device  SYNC
 *   device -> driver  ACK    {status: 0, or the first error since the last SYNC}
 *
 * The MEM ranges are the device's bus: the memory a translation (tally_regs.h,
 * "DMA translation") may name. The driver numbers the bus as it likes (the
 * PMD uses its own virtual addresses); ranges never overlap; bus, len and
 * offset are multiples of the page size and offset + len lies inside the
 * file. Ranges may come and go at any time after the BAR (memory the
 * application allocates or frees): MEM and MEM_DEL are not answered, a SYNC
 * is. A MEM_DEL stops sharing every page of [bus, bus + len) that is shared
 * (cutting ranges that are only partly inside; -ENOSPC when a cut is not
 * possible); translations into those pages are removed first, so the device
 * never touches memory it no longer shares. The driver maps the BAR fd
 * when it arrives and programs the device through it with posted writes
 * (tally_mbox.h); anything a translation does not reach is a DMA fault.
 * Any other message, and a descriptor with any message but MEM, is a
 * protocol error: the device detaches the driver. The connection is the
 * attachment: when it closes (driver exit or crash) the device resets,
 * unmaps the ranges and accepts the next driver. One driver at a time.
 */
#ifndef TALLY_HOSTIF_H
#define TALLY_HOSTIF_H

#include <stdint.h>

#include "tally_bits.h"

#define TALLY_HOSTIF_VERSION	2
#define TALLY_HOSTIF_MAX_MEM	65536	/* MEM ranges shared at one time */

enum tally_hostif_type {
	TALLY_HOSTIF_HELLO = 1,
	TALLY_HOSTIF_BAR = 2,
	TALLY_HOSTIF_BUSY = 3,
	TALLY_HOSTIF_MEM = 4,
	TALLY_HOSTIF_SYNC = 5,
	TALLY_HOSTIF_ACK = 6,
	TALLY_HOSTIF_STATS = 7,
	TALLY_HOSTIF_END = 8,
	TALLY_HOSTIF_MEM_DEL = 9,
};

enum tally_hostif_mode {
	TALLY_HOSTIF_ATTACH = 1,	/* become the device's driver */
	TALLY_HOSTIF_GET_STATS = 2,	/* read the device's statistics text */
	TALLY_HOSTIF_JOIN = 3,		/* the BAR, to post into the attached
					 * driver's session */
};

struct tally_hostif_msg {
	uint32_t type;			/* enum tally_hostif_type */
	int32_t status;			/* 0 or a negative errno */
	uint32_t version;		/* HELLO: TALLY_HOSTIF_VERSION */
	uint32_t pid;			/* HELLO: driver process */
	uint32_t mode;			/* HELLO: enum tally_hostif_mode */
	uint32_t reserved;
	uint64_t bus;			/* MEM, MEM_DEL: first bus address */
	uint64_t len;			/* MEM, MEM_DEL: bytes; BAR: BAR bytes */
	uint64_t offset;		/* MEM: offset of the range in the fd */
	char text[208];			/* BUSY, STATS: NUL-terminated */
};
TALLY_STATIC_SIZE(struct tally_hostif_msg, 256);

#endif /* TALLY_HOSTIF_H */
