/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Tally NIC register map (BAR layout), specification version 2.3.
 *
 * The register file starts at offset 0 of the device BAR. Which BAR holds it
 * is a property of the transport (see tally_io.h), never of this map.
 *
 * Conventions
 *  - Offsets are bytes from the start of the BAR.
 *  - Registers are 32 bits wide and accessed with 32-bit loads and stores
 *    through tally_io_ops (they may have side effects).
 *  - Blocks marked "memory-like" (statistics, counter banks) hold 64-bit
 *    little-endian values written atomically by the device; the driver reads
 *    them with plain aligned 64-bit loads from the BAR mapping, no side effects.
 *  - 64-bit addresses are split in _LO/_HI registers; the device samples the
 *    pair when the owning block is enabled (queue CTRL.ENABLE, STEER_CTRL.EN).
 *  - Access: RO read-only, RW read/write, WO write-only (reads return 0),
 *    W1C write-one-to-clear.
 *  - Writes to unknown or RO offsets are ignored and counted in FAULT_CNT with
 *    cause TALLY_FAULT_BAD_REG.
 */
#ifndef TALLY_REGS_H
#define TALLY_REGS_H

#include "tally_bits.h"

/* ---- identity ---------------------------------------------------------- */
#define TALLY_REG_SIG			0x0000	/* RO: TALLY_SIGNATURE */
#define TALLY_SIGNATURE			0x594c4154u /* bytes "TALY" */
#define TALLY_REG_VERSION		0x0004	/* RO */
#define  TALLY_VERSION_MAJOR_M		TALLY_GENMASK(31, 16)
#define  TALLY_VERSION_MINOR_M		TALLY_GENMASK(15, 0)
#define  TALLY_SPEC_MAJOR		2
#define  TALLY_SPEC_MINOR		3	/* 2.1: unicast MAC filter table, fragment
						 * fields in the match key; 2.2: multicast
						 * filter, CTRL.LINK_DOWN, wire carrier;
						 * 2.3: ports and the switch */
#define TALLY_REG_CAPS			0x0008	/* RO: capability bits */
#define  TALLY_CAP_RSS			TALLY_BIT(0)
#define  TALLY_CAP_RX_SCATTER		TALLY_BIT(1)	/* a frame may span Rx descriptors */
#define  TALLY_CAP_TX_GATHER		TALLY_BIT(2)	/* a frame may span Tx descriptors */
#define  TALLY_CAP_STEER		TALLY_BIT(3)
#define  TALLY_CAP_CNT			TALLY_BIT(4)	/* flow counter bank */
#define  TALLY_CAP_CCNT			TALLY_BIT(5)	/* completion counter bank */
#define  TALLY_CAP_CNT_MIRROR		TALLY_BIT(6)	/* counter bank DMA mirror */
#define  TALLY_CAP_XLT			TALLY_BIT(7)	/* DMA through the translation table */
#define  TALLY_CAP_POSTED		TALLY_BIT(8)	/* BAR is shared memory: post register
							 * writes through the mailbox (tally_mbox.h) */
#define  TALLY_CAP_SWITCH		TALLY_BIT(9)	/* (2.3) this window holds the switch
							 * registers (SW_*): port 0 of a device */
#define  TALLY_CAP_DB_PAGE		TALLY_BIT(10)	/* with POSTED: queue doorbells may be
							 * stored to the doorbell page (below) */
#define TALLY_REG_BAR_SIZE		0x000c	/* RO: bytes of the BAR in use */
#define TALLY_REG_QUEUES		0x0010	/* RO */
#define  TALLY_QUEUES_RX_M		TALLY_GENMASK(7, 0)
#define  TALLY_QUEUES_TX_M		TALLY_GENMASK(15, 8)
#define TALLY_REG_RING_LIMITS		0x0014	/* RO */
#define  TALLY_RING_MIN_LOG2_M		TALLY_GENMASK(7, 0)
#define  TALLY_RING_MAX_LOG2_M		TALLY_GENMASK(15, 8)
#define TALLY_REG_CNT_NUM		0x0018	/* RO: flow counters in the bank */
#define TALLY_REG_CNT_OFF		0x001c	/* RO: BAR offset of the counter bank */
#define TALLY_REG_CCNT_NUM		0x0020	/* RO: completion counters */
#define TALLY_REG_CCNT_OFF		0x0024	/* RO: BAR offset of that bank */
#define TALLY_REG_MAX_FRAME		0x0028	/* RO: largest frame (no FCS) the wire carries */
#define TALLY_REG_XLT_MAX		0x002c	/* RO: translations the table holds */
#define TALLY_REG_MAC_LO		0x0030	/* RO: factory MAC bytes 0..3 (byte 0 in bits 7:0) */
#define TALLY_REG_MAC_HI		0x0034	/* RO: factory MAC bytes 4..5 in bits 15:0 */
/*
 * Ports (2.3). A device has 1..TALLY_MAX_PORTS ports, each with its own
 * window: a complete register file (identity, control, translation table,
 * filters, RSS, steering, queues, statistics, mailbox) and its own counter
 * banks, at PORT_STRIDE * i bytes from port 0's window, which starts at BAR
 * offset 0. Offsets inside a window (CNT_OFF, CCNT_OFF, the mailbox) are
 * relative to the window. A device before 2.3 reads 0 here: one port.
 */
#define TALLY_REG_PORT			0x0038	/* RO */
#define  TALLY_PORT_INDEX_M		TALLY_GENMASK(7, 0)	/* this window's port */
#define  TALLY_PORT_COUNT_M		TALLY_GENMASK(15, 8)	/* ports of the device */
#define TALLY_REG_PORT_STRIDE		0x003c	/* RO: bytes between two ports' windows
						 * (0 with one port) */
#define TALLY_MAX_PORTS			8

/* ---- control ----------------------------------------------------------- */
#define TALLY_REG_RESET			0x0040	/* RW: write TALLY_RESET_MAGIC to reset */
#define  TALLY_RESET_MAGIC		0x52535421u	/* "!TSR" */
/*
 * Reset disables every queue, clears the translation table, RSS, steering root and
 * statistics, zeroes both counter banks, restores the MAC filter table (entry 0 =
 * the factory MAC, the others clear), clears the multicast filter table and
 * CTRL (so the link is up again), and sets STATUS.READY. It reads back 0
 * once complete (the model completes before the write returns).
 */
#define TALLY_REG_STATUS		0x0044	/* RO */
#define  TALLY_STATUS_READY		TALLY_BIT(0)
#define  TALLY_STATUS_LINK_UP		TALLY_BIT(1)	/* not CTRL.LINK_DOWN, and the wire
							 * has carrier */
#define  TALLY_STATUS_FAULT		TALLY_BIT(2)	/* a fault happened; see FAULT_* */
#define TALLY_REG_CTRL			0x0048	/* RW */
#define  TALLY_CTRL_ENABLE		TALLY_BIT(0)	/* port passes traffic */
#define  TALLY_CTRL_PROMISC		TALLY_BIT(1)
#define  TALLY_CTRL_ALLMULTI		TALLY_BIT(2)
#define  TALLY_CTRL_RSS			TALLY_BIT(3)	/* default path uses RSS */
#define  TALLY_CTRL_STEER		TALLY_BIT(4)	/* walk the steering root first */
#define  TALLY_CTRL_ISOLATE		TALLY_BIT(5)	/* steering miss => drop, not default path */
#define  TALLY_CTRL_LINK_DOWN		TALLY_BIT(6)	/* (2.2) link held down: nothing is
							 * taken from the wire, every Tx frame
							 * completes ERR_WIRE (TX_WIRE_DROP),
							 * STATUS.LINK_UP reads 0 */
#define TALLY_REG_MTU			0x004c	/* RW: max L3 payload; larger frames dropped */
#define TALLY_REG_FAULT_CNT		0x0050	/* RO: faults since reset */
#define TALLY_REG_FAULT_CAUSE		0x0054	/* W1C: last fault cause (enum tally_fault) */
#define TALLY_REG_FAULT_ADDR_LO		0x0058	/* RO: address of the last DMA fault */
#define TALLY_REG_FAULT_ADDR_HI		0x005c	/* RO */

enum tally_fault {
	TALLY_FAULT_NONE = 0,
	TALLY_FAULT_DMA = 1,		/* IOVA not mapped by the translation table */
	TALLY_FAULT_BAD_REG = 2,	/* write to an unknown or RO register */
	TALLY_FAULT_BAD_DESC = 3,	/* malformed descriptor (zero length, bad chain) */
	TALLY_FAULT_BAD_QUEUE = 4,	/* bad queue configuration at enable */
	TALLY_FAULT_BAD_STEER = 5,	/* malformed steering entry */
};

/* ---- DMA translation: the only host memory the device may touch --------- */
/*
 * Every address the driver gives the device (rings, buffers, steering
 * structures, the counter mirror) is an IOVA: an address in the device's own
 * I/O virtual space. The device translates each access through its
 * translation table into a bus address, the address of host memory on the
 * transport's bus. The table lives in the device and holds up to XLT_MAX
 * translations, each a run of whole TALLY_XLT_PAGE pages:
 * [IOVA, IOVA + LEN) -> [BUS, BUS + LEN). The driver edits it with commands:
 * write XLT_IOVA, XLT_BUS and XLT_LEN (any order), then XLT_CMD; the command
 * executes at once and XLT_STATUS holds its result until the next one (a
 * read of XLT_STATUS after a posted XLT_CMD sees that command's result).
 *  - MAP: add the translation. IOVA, BUS and LEN are page multiples, LEN > 0,
 *    neither range wraps, and no page of the IOVA range is mapped already
 *    (EXIST); the bus range must be memory the transport reaches (BUS). The
 *    device may join translations that continue each other in IOVA and bus.
 *  - UNMAP: remove every mapped page of [IOVA, IOVA + LEN) (NOENT when none
 *    was). When XLT_STATUS reads its result the device holds no reference
 *    into those pages: a queue whose rings lay there is disabled
 *    (BAD_QUEUE fault) and steering structures read from there are read
 *    again before use.
 *  - CLEAR: remove every translation (as reset does).
 * An access whose pages are not all mapped is a DMA fault (counted, the
 * address recorded); it never reaches host memory.
 */
#define TALLY_XLT_PAGE			4096u
#define TALLY_REG_XLT_IOVA_LO		0x0100	/* RW */
#define TALLY_REG_XLT_IOVA_HI		0x0104	/* RW */
#define TALLY_REG_XLT_BUS_LO		0x0108	/* RW */
#define TALLY_REG_XLT_BUS_HI		0x010c	/* RW */
#define TALLY_REG_XLT_LEN_LO		0x0110	/* RW */
#define TALLY_REG_XLT_LEN_HI		0x0114	/* RW */
#define TALLY_REG_XLT_CMD		0x0118	/* WO: enum tally_xlt_cmd, executes at once */
#define TALLY_REG_XLT_STATUS		0x011c	/* RO: enum tally_xlt_status of the last command */
#define TALLY_REG_XLT_COUNT		0x0120	/* RO: translations in the table */

enum tally_xlt_cmd {
	TALLY_XLT_CMD_MAP = 1,
	TALLY_XLT_CMD_UNMAP = 2,
	TALLY_XLT_CMD_CLEAR = 3,
};

enum tally_xlt_status {
	TALLY_XLT_OK = 0,
	TALLY_XLT_EINVAL = 1,		/* unaligned, empty or wrapping range; bad command */
	TALLY_XLT_EEXIST = 2,		/* MAP: a page of the range is mapped */
	TALLY_XLT_ENOENT = 3,		/* UNMAP: no page of the range was mapped */
	TALLY_XLT_ENOSPC = 4,		/* MAP: the table is full */
	TALLY_XLT_EBUS = 5,		/* MAP: the bus range is not reachable */
};

/* ---- unicast MAC filter (spec 2.1) ------------------------------------- */
/*
 * TALLY_MAC_FILTERS destination addresses the Rx MAC filter accepts, besides
 * broadcast, multicast with CTRL.ALLMULTI and everything with CTRL.PROMISC.
 * Entry 0 is the port's primary address: reset loads it from the factory
 * MAC (MAC_LO/HI) with VALID set and clears every other entry. An entry
 * matches exactly (a multicast address in a valid entry is accepted too).
 * Write LO then HI: the entry takes effect at the HI write.
 */
#define TALLY_MAC_FILTERS		16
#define TALLY_REG_MAC_FILTER_LO(i)	(0x0200 + (i) * 8)	/* RW, i < 16: bytes 0..3, byte 0 in 7:0 */
#define TALLY_REG_MAC_FILTER_HI(i)	(0x0204 + (i) * 8)	/* RW: bytes 4..5 in 15:0, VALID */
#define  TALLY_MAC_FILTER_BYTES_M	TALLY_GENMASK(15, 0)
#define  TALLY_MAC_FILTER_VALID		TALLY_BIT(31)

/* ---- multicast filter (spec 2.2) ---------------------------------------- */
/*
 * TALLY_MC_FILTERS more destination addresses the Rx MAC filter accepts, in
 * the format of the unicast table (LO then HI, VALID in HI). The driver keeps
 * its multicast list here and the unicast addresses in MAC_FILTER_*; the
 * device accepts a frame whose destination equals a valid entry of either.
 * Reset clears every entry.
 */
#define TALLY_MC_FILTERS		16
#define TALLY_REG_MC_FILTER_LO(i)	(0x0280 + (i) * 8)	/* RW, i < 16 */
#define TALLY_REG_MC_FILTER_HI(i)	(0x0284 + (i) * 8)	/* RW: bytes 4..5, VALID */

/* ---- RSS (default path and RSS actions) -------------------------------- */
#define TALLY_RSS_KEY_LEN		40
#define TALLY_RSS_RETA_SIZE		128
#define TALLY_REG_RSS_KEY(i)		(0x0300 + (i) * 4)	/* RW, i < 10; key byte 4i in bits 7:0 */
#define TALLY_REG_RSS_HF		0x0328	/* RW: enum tally_rss_hf bits */
#define TALLY_REG_RSS_RETA(i)		(0x0380 + (i) * 4)	/* RW, i < 32; entry 4i in bits 7:0 */

enum tally_rss_hf {
	TALLY_RSS_HF_IPV4 = TALLY_BIT(0),	/* src, dst */
	TALLY_RSS_HF_IPV4_TCP = TALLY_BIT(1),	/* src, dst, sport, dport */
	TALLY_RSS_HF_IPV4_UDP = TALLY_BIT(2),
	TALLY_RSS_HF_IPV6 = TALLY_BIT(3),
	TALLY_RSS_HF_IPV6_TCP = TALLY_BIT(4),
	TALLY_RSS_HF_IPV6_UDP = TALLY_BIT(5),
};

/* ---- steering (see tally_steer_fmt.h) ----------------------------------- */
#define TALLY_REG_STEER_ROOT_LO		0x0400	/* RW: IOVA of the root table */
#define TALLY_REG_STEER_ROOT_HI		0x0404	/* RW */
#define TALLY_REG_STEER_CTRL		0x0408	/* RW */
#define  TALLY_STEER_CTRL_EN		TALLY_BIT(0)
#define TALLY_REG_FENCE			0x040c	/* WO: request fence with this sequence */
#define TALLY_REG_FENCE_DONE		0x0410	/* RO: last completed fence sequence */
/*
 * Fence: once FENCE_DONE equals the value written to FENCE, the device holds
 * no reference to steering memory or counter indices it read before the
 * write. The driver frees or reuses such memory only after that.
 */
#define TALLY_REG_STEER_MISS_QUEUE	0x0414	/* RW: queue for "default miss" when RSS off */

/*
 * The switch (2.3; port 0's window, CAPS.SWITCH). Frames a port takes from
 * its wire enter the switch first: with SW_CTRL.EN set, the device walks
 * the switch tables from SW_ROOT (format of tally_steer_fmt.h, "Switch
 * tables") with misc.source_port (TALLY_MISC_SOURCE_PORT) set to the port's
 * index; a hit may count (port 0's counter bank), drop, edit, send the frame
 * to a port's wire or to a port's receive pipeline; a miss, or a hit without
 * a fate, hands the frame to its own port's receive pipeline (MAC filter,
 * steering, queues) as without the switch. Frames a port's host transmits
 * meet the same tables once gathered (after the Tx queue's descriptor and
 * DMA checks), with misc.source_port = index | TALLY_SOURCE_PORT_HOST; a
 * miss, or a hit without a fate, sends them unedited to their own port's
 * wire as without the switch. A host frame the switch takes (drop, another
 * destination, an edit) completes OK and counts in its port's SW_*
 * statistics, not in TX_PKTS/TX_BYTES. What the switch sends never meets it
 * again. Port 0's FENCE also covers what the switch read; its reset clears
 * SW_ROOT and SW_CTRL.
 */
#define TALLY_REG_SW_ROOT_LO		0x0420	/* RW: IOVA of the switch's root table */
#define TALLY_REG_SW_ROOT_HI		0x0424	/* RW */
#define TALLY_REG_SW_CTRL		0x0428	/* RW */
#define  TALLY_SW_CTRL_EN		TALLY_BIT(0)

/* ---- counter bank mirror ------------------------------------------------ */
#define TALLY_REG_CNT_MIRROR_LO		0x0440	/* RW: IOVA of host copy of the bank */
#define TALLY_REG_CNT_MIRROR_HI		0x0444	/* RW */
#define TALLY_REG_CNT_MIRROR_CTRL	0x0448	/* RW */
#define  TALLY_CNT_MIRROR_EN		TALLY_BIT(0)
#define  TALLY_CNT_MIRROR_PERIOD_US_M	TALLY_GENMASK(31, 8)

/* ---- completion-counter commands ---------------------------------------- */
#define TALLY_REG_CCNT_IDX		0x0480	/* RW: completion counter to operate on */
#define TALLY_REG_CCNT_VAL_LO		0x0484	/* RW: operand */
#define TALLY_REG_CCNT_VAL_HI		0x0488	/* RW */
#define TALLY_REG_CCNT_CMD		0x048c	/* WO: enum tally_ccnt_cmd, executes at once */

enum tally_ccnt_cmd {
	TALLY_CCNT_CMD_SET_COMP = 1,
	TALLY_CCNT_CMD_SET_ERR = 2,
	TALLY_CCNT_CMD_ADD_COMP = 3,
	TALLY_CCNT_CMD_ADD_ERR = 4,
};

/* ---- port statistics: memory-like, 64-bit, cleared by reset only -------- */
#define TALLY_STATS_OFF			0x0800
enum tally_port_stat {
	TALLY_STAT_RX_PKTS,		/* frames delivered to a queue */
	TALLY_STAT_RX_BYTES,
	TALLY_STAT_TX_PKTS,		/* frames put on the wire */
	TALLY_STAT_TX_BYTES,
	TALLY_STAT_RX_WIRE_PKTS,	/* frames received from the wire (valid) */
	TALLY_STAT_RX_MISSED,		/* dropped: no Rx descriptor / queue disabled */
	TALLY_STAT_RX_ERR_RUNT,		/* dropped: shorter than 14 bytes (incl. zero length) */
	TALLY_STAT_RX_ERR_OVERSIZE,	/* dropped: longer than MTU + L2 or the buffer chain */
	TALLY_STAT_RX_ERR_TRUNC,	/* dropped: truncated on the wire (capture < length) */
	TALLY_STAT_RX_FILTERED,		/* dropped: MAC filter (not promisc) */
	TALLY_STAT_RX_STEER_DROP,	/* dropped by a steering drop action or isolate miss */
	TALLY_STAT_TX_ERRORS,		/* Tx descriptors completed ERR_DESC/ERR_DMA */
	TALLY_STAT_TX_WIRE_DROP,	/* wire back end refused the frame, or link down */
	TALLY_STAT_DMA_FAULTS,		/* accesses to unmapped IOVAs */
	TALLY_STAT_DESC_FAULTS,		/* malformed descriptors */
	TALLY_STAT_RX_ERR_DAMAGED,	/* dropped: damaged wire input record (pcap record
					 * cut short, or caplen > len or beyond any frame) */
	/* (2.3) frames from this port's wire or host the switch took (a host
	 * frame counted here is not in TX_PKTS/TX_BYTES; it completed OK): */
	TALLY_STAT_SW_TO_WIRE,		/* sent to a port's wire */
	TALLY_STAT_SW_TO_HOST,		/* handed to a port's receive pipeline (another
					 * port's, or this one's) */
	TALLY_STAT_SW_DROP,		/* dropped: drop action, switch fault, a frame an
					 * edit would make too long, a destination port
					 * whose link is down */
	TALLY_STAT_NUM
};

/* The name a port statistic is shown under (xstats, the device process). */
static inline const char *
tally_port_stat_name(unsigned int s)
{
	static const char *const names[TALLY_STAT_NUM] = {
		[TALLY_STAT_RX_PKTS] = "rx_packets",
		[TALLY_STAT_RX_BYTES] = "rx_bytes",
		[TALLY_STAT_TX_PKTS] = "tx_packets",
		[TALLY_STAT_TX_BYTES] = "tx_bytes",
		[TALLY_STAT_RX_WIRE_PKTS] = "rx_wire_packets",
		[TALLY_STAT_RX_MISSED] = "rx_missed",
		[TALLY_STAT_RX_ERR_RUNT] = "rx_err_runt",
		[TALLY_STAT_RX_ERR_OVERSIZE] = "rx_err_oversize",
		[TALLY_STAT_RX_ERR_TRUNC] = "rx_err_trunc",
		[TALLY_STAT_RX_FILTERED] = "rx_filtered",
		[TALLY_STAT_RX_STEER_DROP] = "rx_steer_drop",
		[TALLY_STAT_TX_ERRORS] = "tx_desc_errors",
		[TALLY_STAT_TX_WIRE_DROP] = "tx_wire_drop",
		[TALLY_STAT_DMA_FAULTS] = "dma_faults",
		[TALLY_STAT_DESC_FAULTS] = "desc_faults",
		[TALLY_STAT_RX_ERR_DAMAGED] = "rx_err_damaged",
		[TALLY_STAT_SW_TO_WIRE] = "sw_to_wire",
		[TALLY_STAT_SW_TO_HOST] = "sw_to_host",
		[TALLY_STAT_SW_DROP] = "sw_drop",
	};

	return s < TALLY_STAT_NUM && names[s] != 0 ? names[s] : "?";
}
#define TALLY_REG_STAT(s)		(TALLY_STATS_OFF + (s) * 8)

/* ---- queues ------------------------------------------------------------- */
#define TALLY_MAX_QUEUES		16	/* per direction, architectural limit */
#define TALLY_Q_STRIDE			0x80
#define TALLY_RXQ_BASE			0x1000
#define TALLY_TXQ_BASE			0x1800
#define TALLY_RXQ_REG(q, r)		(TALLY_RXQ_BASE + (q) * TALLY_Q_STRIDE + (r))
#define TALLY_TXQ_REG(q, r)		(TALLY_TXQ_BASE + (q) * TALLY_Q_STRIDE + (r))
/* per-queue register offsets (same for Rx and Tx) */
#define TALLY_Q_RING_LO			0x00	/* RW: IOVA of the descriptor ring */
#define TALLY_Q_RING_HI			0x04	/* RW */
#define TALLY_Q_CQ_LO			0x08	/* RW: IOVA of the completion ring */
#define TALLY_Q_CQ_HI			0x0c	/* RW */
#define TALLY_Q_SIZE			0x10	/* RW: log2 of entries (both rings) */
#define TALLY_Q_CTRL			0x14	/* RW */
#define  TALLY_Q_CTRL_EN		TALLY_BIT(0)
#define  TALLY_Q_CTRL_SCATTER		TALLY_BIT(1)	/* Rx: frame may span descriptors */
#define TALLY_Q_DOORBELL		0x18	/* WO: producer index, free running (mod 2^32) */
#define TALLY_Q_HEAD			0x1c	/* RO: device consumer index, free running */
#define TALLY_Q_CCNT			0x20	/* RW: completion counter attach, see below */
#define  TALLY_Q_CCNT_IDX_M		TALLY_GENMASK(23, 0)
#define  TALLY_Q_CCNT_EN		TALLY_BIT(31)
/* Queue statistics: memory-like 64-bit values inside the queue block. */
#define TALLY_Q_STAT_PKTS		0x40
#define TALLY_Q_STAT_BYTES		0x48
#define TALLY_Q_STAT_DROPS		0x50	/* Rx: no descriptor; Tx: wire refused (frames) */
#define TALLY_Q_STAT_ERRORS		0x58	/* Rx: DMA faults; Tx: frames with bad descriptors/DMA */
/*
 * The doorbell page (CAPS.DB_PAGE, only with CAPS.POSTED): one 64-byte line
 * per queue, the producer index in its first 4 bytes. A store there is a
 * Q_DOORBELL write that needs no mailbox entry: the device reads the line of
 * every enabled queue while it runs and takes a value that differs from the
 * last one it took as a doorbell (the same checks apply). Enable takes 0 as
 * the last value; reset zeroes the page. A driver stores there only once
 * the device applied every write it posted before (`cons`, tally_mbox.h),
 * so a doorbell never overtakes them.
 */
#define TALLY_DB_PAGE_OFF		0x6000
#define TALLY_DB_STRIDE			64
/* line i: Rx queue i below TALLY_MAX_QUEUES, Tx queue i - TALLY_MAX_QUEUES above */
#define TALLY_DB_LINE(i)		(TALLY_DB_PAGE_OFF + (i) * TALLY_DB_STRIDE)
#define TALLY_DB_RXQ(q)			TALLY_DB_LINE(q)
#define TALLY_DB_TXQ(q)			TALLY_DB_LINE(TALLY_MAX_QUEUES + (q))
#define TALLY_DB_PAGE_LEN		(2 * TALLY_MAX_QUEUES * TALLY_DB_STRIDE)

/*
 * Queue enable (CTRL.EN 0->1) samples RING/CQ/SIZE, sets HEAD to 0 and the
 * completion phase to 1. The driver zeroes the completion ring before that.
 * Disable (1->0) stops the queue at once; in-flight descriptors are dropped.
 */

/* ---- banks -------------------------------------------------------------- */
#define TALLY_CNT_BANK_OFF		0x10000	/* default; the driver reads CNT_OFF */
#define TALLY_CNT_MAX			(1u << 23)	/* index field width in steering entries */

#endif /* TALLY_REGS_H */
