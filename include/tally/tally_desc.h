/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Tally descriptor and completion formats (host memory, little-endian).
 *
 * Each queue has a descriptor ring (driver -> device) and a completion ring
 * (device -> driver) with the same power-of-two number of entries. Completion
 * i always belongs to descriptor i: the device consumes descriptors in order.
 *
 * Ownership of descriptors: the driver fills entries then writes the
 * free-running producer index to the queue DOORBELL register (after a release
 * fence, so entries are visible before the index).
 *
 * Ownership of completions: the device writes the whole completion, then
 * stores its `phase` byte with release ordering. The phase the driver expects
 * starts at 1 after queue enable and flips every time the ring wraps; a
 * completion is new when its phase equals the expected phase. The driver's
 * acquire load of `phase` pairs with the device's release store of it.
 */
#ifndef TALLY_DESC_H
#define TALLY_DESC_H

#include <stdint.h>
#include "tally_bits.h"

/* Rx descriptor: one receive buffer. */
struct tally_rx_desc {
	uint64_t addr;		/* IOVA of the buffer */
	uint16_t buf_len;	/* bytes available at addr, > 0 */
	uint16_t rsvd0;
	uint32_t rsvd1;
};
TALLY_STATIC_SIZE(struct tally_rx_desc, 16);

/* Rx completion flags */
#define TALLY_RXC_F_MARK	TALLY_BIT(0)	/* mark holds a MARK action's id */
#define TALLY_RXC_F_FLAG	TALLY_BIT(1)	/* FLAG action hit */
#define TALLY_RXC_F_RSS		TALLY_BIT(2)	/* rss_hash is valid */
#define TALLY_RXC_F_MORE	TALLY_BIT(3)	/* frame continues in the next completion */
#define TALLY_RXC_F_ERR		TALLY_BIT(4)	/* buffer not written (see err) */
#define TALLY_RXC_F_VLAN	TALLY_BIT(5)	/* outer frame carries an 802.1Q/ad tag */

/* Rx completion packet type (ptype), set on the first completion of a frame */
#define TALLY_PTYPE_L3_M	TALLY_GENMASK(1, 0)
#define  TALLY_PTYPE_L3_NONE	0
#define  TALLY_PTYPE_L3_IPV4	1
#define  TALLY_PTYPE_L3_IPV6	2
#define TALLY_PTYPE_L4_M	TALLY_GENMASK(4, 2)
#define  TALLY_PTYPE_L4_NONE	0
#define  TALLY_PTYPE_L4_TCP	1
#define  TALLY_PTYPE_L4_UDP	2
#define  TALLY_PTYPE_L4_ICMP	3
#define  TALLY_PTYPE_L4_FRAG	4
#define TALLY_PTYPE_TUNNEL_VXLAN TALLY_BIT(5)

/* Rx completion error codes */
enum tally_rxc_err {
	TALLY_RXC_ERR_NONE = 0,
	TALLY_RXC_ERR_DMA = 1,		/* buffer address outside DMA regions */
	TALLY_RXC_ERR_DESC = 2,		/* buf_len 0 */
};

struct tally_rx_cqe {
	uint32_t rss_hash;
	uint32_t mark;
	uint16_t len;		/* bytes written to this descriptor's buffer */
	uint16_t flags;		/* TALLY_RXC_F_* */
	uint8_t ptype;		/* TALLY_PTYPE_* */
	uint8_t err;		/* enum tally_rxc_err when F_ERR */
	uint8_t rsvd;
	uint8_t phase;		/* written last, release */
};
TALLY_STATIC_SIZE(struct tally_rx_cqe, 16);

/* Tx descriptor: one segment of a frame. */
#define TALLY_TXD_F_EOP		TALLY_BIT(0)	/* last segment of the frame */

struct tally_tx_desc {
	uint64_t addr;		/* IOVA of the segment */
	uint16_t len;		/* bytes, > 0 */
	uint16_t flags;		/* TALLY_TXD_F_* */
	uint32_t rsvd;
};
TALLY_STATIC_SIZE(struct tally_tx_desc, 16);

#define TALLY_TX_MAX_SEGS	16	/* descriptors per frame */

enum tally_txc_status {
	TALLY_TXC_OK = 0,
	TALLY_TXC_ERR_DMA = 1,		/* a segment address outside DMA regions */
	TALLY_TXC_ERR_DESC = 2,		/* zero length, too many segments, too long */
	TALLY_TXC_ERR_WIRE = 3,		/* the wire refused the frame */
};

/* One Tx completion per descriptor; status is the frame's, on every segment. */
struct tally_tx_cqe {
	uint16_t len;		/* frame length on the last segment, else 0 */
	uint8_t status;		/* enum tally_txc_status */
	uint8_t phase;		/* written last, release */
	uint32_t rsvd;
};
TALLY_STATIC_SIZE(struct tally_tx_cqe, 8);

#endif /* TALLY_DESC_H */
