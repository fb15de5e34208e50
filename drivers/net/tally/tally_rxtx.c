/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Tally data path: Rx and Tx burst functions only.
 *
 * Rx: let the device run (in-process model), count the completions whose
 * phase is the expected one, take fresh mbufs for that batch in one mempool
 * get, build mbufs (chains when a frame spans descriptors) with the next
 * ones prefetched, repost a fresh mbuf in every consumed slot, then ring the
 * doorbell once.
 * Tx: reclaim completed descriptors (their mbufs go back with one mempool
 * put per run of one pool), map each segment of each frame to one descriptor (EOP on
 * the last), ring the doorbell once, then let the device run: the in-process
 * model processes Tx doorbells in its step (defer_tx), where it hands frames
 * on the loop wire to Rx without a second copy, and the frames are sent by
 * the time the burst returns.
 * When the ring fills in the middle of a burst, publish what is posted, let
 * the device run and reclaim once more before giving up: a transmit-only
 * application that never calls Rx still makes progress, in every mode.
 *
 * What the device writes is not trusted (doc/security.md): a completion's
 * length must lie within the buffer posted in its slot, a chain ("more
 * segments") is taken only on a queue with scatter and only up to the
 * frame size the device declared. A completion that breaks either is a
 * device fault: it and the frame it belongs to are dropped, each of their
 * completions counted once by cause (bad_len, bad_chain), and the queue
 * goes on. Nothing else a completion holds is
 * used to index or size anything (the slot is the ring position, the
 * packet type goes through a switch).
 *
 * A queue is used by one lcore at a time; nothing here takes a lock.
 */
#include <rte_mbuf.h>
#include <rte_prefetch.h>

#include "tally_hal_io.h"
#include "tally_logs.h"
#include "tally_plat.h"
#include "tally_rxtx.h"

static inline uint32_t
tally_rx_ptype(uint8_t p, uint16_t flags)
{
	uint32_t t = (flags & TALLY_RXC_F_VLAN) ? RTE_PTYPE_L2_ETHER_VLAN :
						  RTE_PTYPE_L2_ETHER;

	switch (TALLY_FIELD_GET(p, TALLY_PTYPE_L3_M)) {
	case TALLY_PTYPE_L3_IPV4:
		t |= RTE_PTYPE_L3_IPV4_EXT_UNKNOWN;
		break;
	case TALLY_PTYPE_L3_IPV6:
		t |= RTE_PTYPE_L3_IPV6_EXT_UNKNOWN;
		break;
	default:
		return t;
	}
	switch (TALLY_FIELD_GET(p, TALLY_PTYPE_L4_M)) {
	case TALLY_PTYPE_L4_TCP: t |= RTE_PTYPE_L4_TCP; break;
	case TALLY_PTYPE_L4_UDP: t |= RTE_PTYPE_L4_UDP; break;
	case TALLY_PTYPE_L4_ICMP: t |= RTE_PTYPE_L4_ICMP; break;
	case TALLY_PTYPE_L4_FRAG: t |= RTE_PTYPE_L4_FRAG; break;
	default: break;
	}
	if (p & TALLY_PTYPE_TUNNEL_VXLAN)
		t |= RTE_PTYPE_TUNNEL_VXLAN;
	return t;
}

/* First segment of a frame: metadata from its first completion (the
 * caller sets the lengths, from the one read it checked). */
static inline void
tally_rx_first(struct tally_rxq *rxq, struct rte_mbuf *m,
	       const struct tally_rx_cqe *c)
{
	uint64_t ol = 0;

	m->port = rxq->port_id;
	m->packet_type = tally_rx_ptype(c->ptype, c->flags);
	if (c->flags & TALLY_RXC_F_RSS) {
		m->hash.rss = c->rss_hash;
		ol |= RTE_MBUF_F_RX_RSS_HASH;
	}
	if (c->flags & TALLY_RXC_F_MARK) {
		m->hash.fdir.hi = c->mark;
		ol |= RTE_MBUF_F_RX_FDIR | RTE_MBUF_F_RX_FDIR_ID;
	}
	if (c->flags & TALLY_RXC_F_FLAG)
		ol |= RTE_MBUF_F_RX_FDIR;
	m->ol_flags = ol;
}

static inline void
tally_rx_drop_partial(struct tally_rxq *rxq)
{
	if (rxq->pkt_first != NULL)
		rte_pktmbuf_free(rxq->pkt_first);
	rxq->pkt_first = NULL;
	rxq->pkt_last = NULL;
}

/* A completion the device should not have written (length len, flags):
 * drop it (its mbuf m) and the frame it belongs to; when it claims more
 * segments, the rest of that chain goes too. Every completion dropped so
 * counts once in *counter, the earlier segments of the frame included. */
static __rte_noinline void
tally_rx_refuse(struct tally_rxq *rxq, struct rte_mbuf *m, uint16_t len,
		uint16_t flags, uint64_t *counter, const char *why)
{
	TALLY_RX_LOG(DEBUG, "rxq %u: completion refused (%s: len %u, flags 0x%x)",
		     rxq->qid, why, len, flags);
	*counter += 1 + (rxq->pkt_first != NULL ? rxq->pkt_first->nb_segs : 0);
	rte_pktmbuf_free_seg(m);
	tally_rx_drop_partial(rxq);
	rxq->skip = (flags & TALLY_RXC_F_MORE) != 0;
}

/* Completions ready from cons on, at most max (phase bits only). The device
 * completes in ring order, so when the max-th one is ready (with the phase
 * of its lap: when max is at most the ring size, at most one wrap lies
 * between), all are: the acquire load of its phase makes the earlier
 * completions visible too. */
static inline uint32_t
tally_rx_ready(const struct tally_rxq *rxq, uint32_t cons, uint32_t max)
{
	uint32_t n = 0, idx, last = cons + max - 1;
	uint8_t phase = rxq->phase;

	if (max > 1 && max <= rxq->mask + 1 &&
	    tally_hal_rx_cqe_ready(&rxq->cq[last & rxq->mask],
				   phase ^ (((last ^ cons) & ~rxq->mask) != 0)))
		return max;

	while (n < max) {
		idx = (cons + n) & rxq->mask;
		if (!tally_hal_rx_cqe_ready(&rxq->cq[idx], phase))
			break;
		n++;
		if (((cons + n) & rxq->mask) == 0)
			phase ^= 1;
	}
	return n;
}

/*
 * Fresh mbufs for n consumed slots: one bulk get from the pool; when the pool
 * has fewer, as many as it gives one by one. Each failure stops the burst and
 * counts once in rx_nombuf; the completions not taken stay for a later burst.
 */
static inline uint32_t
tally_rx_refill_get(struct tally_rxq *rxq, struct rte_mbuf **nms, uint32_t n)
{
	uint32_t k;

	if (likely(rte_mempool_get_bulk(rxq->mp, (void **)nms, n) == 0))
		return n;
	for (k = 0; k < n; k++) {
		nms[k] = rte_mbuf_raw_alloc(rxq->mp);
		if (nms[k] == NULL) {
			(*rxq->alloc_failed)++;
			break;
		}
	}
	return k;
}

/* Take the completion in slot idx (its mbuf m, already replaced in the
 * ring): the general case (errors, frames over several descriptors, frames
 * continued from an earlier burst); true when it ended a frame (then *out
 * is the frame). */
static inline bool
tally_rx_one(struct tally_rxq *rxq, struct rte_mbuf *m,
	     const struct tally_rx_cqe *c, struct rte_mbuf **out)
{
	/* one read of each field the checks and the mbuf use: the
	 * completion is shared memory the device may still change */
	const uint16_t len = __atomic_load_n(&c->len, __ATOMIC_RELAXED);
	const uint16_t flags = __atomic_load_n(&c->flags, __ATOMIC_RELAXED);
	const bool more = (flags & TALLY_RXC_F_MORE) != 0;
	struct rte_mbuf *first = rxq->pkt_first;

	if (unlikely(rxq->skip)) {
		/* the rest of a refused chain, up to its last segment */
		rxq->bad_chain++;
		rte_pktmbuf_free_seg(m);
		rxq->skip = more;
		return false;
	}
	if (unlikely(flags & TALLY_RXC_F_ERR)) {
		TALLY_RX_LOG(DEBUG, "rxq %u: completion error %u", rxq->qid, c->err);
		rxq->sw_errors++;
		rte_pktmbuf_free_seg(m);
		tally_rx_drop_partial(rxq);
		return false;
	}
	if (unlikely((uint16_t)(len - 1) >= rxq->buf_len)) {
		tally_rx_refuse(rxq, m, len, flags, &rxq->bad_len, "length");
		return false;
	}
	if (unlikely((more || first != NULL) &&
		     (!rxq->scatter ||
		      (first != NULL && (first->nb_segs >= rxq->max_segs ||
					 first->pkt_len + len > rxq->max_pkt))))) {
		tally_rx_refuse(rxq, m, len, flags, &rxq->bad_chain, "chain");
		return false;
	}
	m->data_off = RTE_PKTMBUF_HEADROOM;
	m->data_len = len;
	m->next = NULL;
	m->nb_segs = 1;
	if (likely(first == NULL)) {
		tally_rx_first(rxq, m, c);
		m->pkt_len = len;
		if (likely(!more)) {
			*out = m;
			return true;
		}
		rxq->pkt_first = m;
	} else {
		rxq->pkt_last->next = m;
		first->nb_segs++;
		first->pkt_len += len;
	}
	rxq->pkt_last = m;
	if (more)
		return false;
	*out = rxq->pkt_first;
	rxq->pkt_first = NULL;
	rxq->pkt_last = NULL;
	return true;
}

/* rearm_data (data_off, refcnt, nb_segs, port) of a fresh single-segment
 * mbuf of this queue, stored with one 8-byte write per packet (through a
 * may_alias type, as those four fields are one 8-byte block). */
typedef uint64_t __attribute__((may_alias)) tally_rearm_t;

static inline uint64_t
tally_rx_rearm_value(const struct tally_rxq *rxq)
{
	struct rte_mbuf mb;

	mb.data_off = RTE_PKTMBUF_HEADROOM;
	rte_mbuf_refcnt_set(&mb, 1);
	mb.nb_segs = 1;
	mb.port = rxq->port_id;
	RTE_BUILD_BUG_ON(offsetof(struct rte_mbuf, data_off) !=
			 offsetof(struct rte_mbuf, rearm_data));
	RTE_BUILD_BUG_ON(offsetof(struct rte_mbuf, port) -
			 offsetof(struct rte_mbuf, rearm_data) != 6);
	return *(const tally_rearm_t *)(const void *)&mb.data_off;
}

/* The common frame: one descriptor, no error, nothing pending before it.
 * A raw mbuf from the pool already has next NULL (the pool's invariant), so
 * the mbuf's second cache line is never touched. */
static inline void
tally_rx_simple(struct tally_rxq *rxq, struct rte_mbuf *m,
		const struct tally_rx_cqe *c, uint64_t rearm, uint32_t ptype,
		uint16_t len, uint16_t flags)
{
	*(tally_rearm_t *)(void *)&m->data_off = rearm;
	m->pkt_len = len;
	m->data_len = len;
	m->packet_type = ptype;
	if (likely(!(flags & (TALLY_RXC_F_RSS | TALLY_RXC_F_MARK | TALLY_RXC_F_FLAG))))
		m->ol_flags = 0;
	else
		tally_rx_first(rxq, m, c);
}

#define TALLY_RX_BULK	64	/* slots refilled per mempool get */

/*
 * Ask for the cache lines of ring entries [first, first + n) (entries of
 * esz bytes, mask the ring's) before they are used, for writing or for
 * reading: lines the device wrote or read last are on its CPU, and a
 * fetch costs there what a line between two CPUs costs. Asked at once,
 * they come in parallel; a store to each in turn would wait for them one
 * after the other once the store queue fills, and a read of each would
 * wait for as many as the loop's window holds. Only for a device that runs
 * by itself (hal->remote): the in-process model steps in the burst
 * functions, its lines are in this CPU's cache, and the instructions would
 * cost the forwarding rate a few percent for nothing.
 */
static inline void
tally_ring_prefetch(const void *base, uint32_t first, uint32_t n, uint32_t mask,
		    size_t esz, bool wr)
{
	const uint8_t *b = base;
	const uint32_t per = RTE_CACHE_LINE_SIZE / esz;
	uint32_t k;

	if (n == 0)
		return;
	for (k = 0; k < n; k += per) {
		if (wr)
			tally_prefetch_w(b + ((first + k) & mask) * esz);
		else
			rte_prefetch0(b + ((first + k) & mask) * esz);
	}
	/* the last line, when first does not start one */
	if (wr)
		tally_prefetch_w(b + ((first + n - 1) & mask) * esz);
	else
		rte_prefetch0(b + ((first + n - 1) & mask) * esz);
}

/* The second half of an Rx completion (len, flags, ptype, err, rsvd, phase)
 * as one 8-byte word; the packet type depends on the bits of
 * TALLY_RX_PT_KEY in it (ptype, the VLAN flag). */
typedef uint64_t __attribute__((may_alias)) tally_rxc64_t;
_Static_assert(offsetof(struct tally_rx_cqe, len) == 8 &&
	      offsetof(struct tally_rx_cqe, flags) == 10 &&
	      offsetof(struct tally_rx_cqe, ptype) == 12, "Rx completion layout");
#if RTE_BYTE_ORDER == RTE_LITTLE_ENDIAN
#define TALLY_RXC_LEN_SHIFT	0
#define TALLY_RXC_FLAGS_SHIFT	16
#define TALLY_RXC_PTYPE_SHIFT	32
#else
#define TALLY_RXC_LEN_SHIFT	48
#define TALLY_RXC_FLAGS_SHIFT	32
#define TALLY_RXC_PTYPE_SHIFT	24
#endif
#define TALLY_RX_PT_KEY	((uint64_t)0xff << TALLY_RXC_PTYPE_SHIFT | \
			 (uint64_t)TALLY_RXC_F_VLAN << TALLY_RXC_FLAGS_SHIFT)

#define TALLY_RX_PREFETCH	4	/* mbufs prefetched ahead */

/* The packet type and pkt_len of an mbuf (rx_descriptor_fields1's first 8
 * bytes) as one 8-byte word, stored through a may_alias type. */
typedef uint64_t __attribute__((may_alias)) tally_rxf1_t;
_Static_assert(offsetof(struct rte_mbuf, pkt_len) ==
	      offsetof(struct rte_mbuf, packet_type) + 4, "mbuf layout");
#if RTE_BYTE_ORDER == RTE_LITTLE_ENDIAN
#define TALLY_RXF1(pt, len)	((uint64_t)(pt) | (uint64_t)(len) << 32)
#else
#define TALLY_RXF1(pt, len)	((uint64_t)(pt) << 32 | (uint64_t)(len))
#endif

/* Completion flags that keep a frame off the plain run. */
#define TALLY_RX_PLAIN_BAD	((uint64_t)(TALLY_RXC_F_MORE | TALLY_RXC_F_ERR | \
					    TALLY_RXC_F_RSS | TALLY_RXC_F_MARK | \
					    TALLY_RXC_F_FLAG) << TALLY_RXC_FLAGS_SHIFT)

/*
 * The plain run at the head of a batch: the completions from slot cons on
 * (at most n) that each end a one-segment frame of 1..buf_len bytes without
 * error, RSS hash, mark or flag, all with the packet-type key of the first.
 * Two passes: the checks, keeping each length (a completion is shared
 * memory, read once), then the mbufs without a branch: four stores each
 * (rearm data, ol_flags, packet type with pkt_len, data_len) and the slot's
 * refill from nms. Nothing pending from an earlier burst (the caller's
 * `partial`). Returns how many it took; *pt_key and *pt cache the last
 * packet type, as in tally_rx_burst().
 */
static inline uint32_t
tally_rx_plain(struct tally_rxq *rxq, uint32_t cons, uint32_t n,
	       struct rte_mbuf **pkts, struct rte_mbuf *const *nms, uint64_t rearm,
	       uint64_t *pt_key, uint32_t *pt)
{
	const struct tally_rx_cqe *const cq = rxq->cq;
	struct rte_mbuf **const sw_ring = rxq->sw_ring;
	struct tally_rx_desc *const ring = rxq->ring;
	const uint16_t buf_len = rxq->buf_len;
	const uint32_t mask = rxq->mask;
	uint16_t lens[TALLY_RX_BULK];
	uint32_t k, idx, ptv;
	uint64_t w, key;
	struct rte_mbuf *m, *nm;

	if (n == 0)
		return 0;
	key = *(const tally_rxc64_t *)(const void *)&cq[cons & mask].len & TALLY_RX_PT_KEY;
	for (k = 0; k < n; k++) {
		idx = (cons + k) & mask;
		/* the mbuf the second pass writes, and the one whose buffer
		 * refills the slot: asked for a pass ahead */
		rte_prefetch0(sw_ring[idx]);
		rte_prefetch0(nms[k]);
		w = *(const tally_rxc64_t *)(const void *)&cq[idx].len;
		lens[k] = (uint16_t)(w >> TALLY_RXC_LEN_SHIFT);
		/* no bad flag and the first one's key, in one test */
		if ((w & (TALLY_RX_PLAIN_BAD | TALLY_RX_PT_KEY)) != key ||
		    (uint16_t)(lens[k] - 1) >= buf_len)
			break;
	}
	n = k;
	if (n == 0)
		return 0;
	if (key != *pt_key) {
		*pt_key = key;
		*pt = tally_rx_ptype((uint8_t)(key >> TALLY_RXC_PTYPE_SHIFT),
				     (uint16_t)(key >> TALLY_RXC_FLAGS_SHIFT));
	}
	ptv = *pt;
	for (k = 0; k < n; k++) {
		idx = (cons + k) & mask;
		m = sw_ring[idx];
		nm = nms[k];
		sw_ring[idx] = nm;
		ring[idx].addr = tally_mbuf_rx_iova(nm);
		ring[idx].buf_len = buf_len;
		*(tally_rearm_t *)(void *)&m->data_off = rearm;
		m->ol_flags = 0;
		*(tally_rxf1_t *)(void *)&m->packet_type = TALLY_RXF1(ptv, lens[k]);
		m->data_len = lens[k];
		pkts[k] = m;
	}
	return n;
}

/*
 * Every Rx burst steps the device, under the device's lock. A queue polled
 * empty for a while backs off: after TALLY_RX_IDLE_POLLS empty bursts in a
 * row, each further one pauses (about a microsecond), so that a core that
 * only waits does not keep the lock and its line from the cores that
 * transmit (the frames it waits for). The first burst that receives ends it.
 */
#define TALLY_RX_IDLE_POLLS	64	/* empty bursts in a row before pausing */
#define TALLY_RX_IDLE_PAUSES	32	/* pauses after each further one */

/*
 * Rx in batches: count the ready completions (at most one per packet still
 * wanted, at most TALLY_RX_BULK), take that many fresh mbufs in one get,
 * post the fresh ones in the consumed slots and turn the batch into packets
 * (single-descriptor frames on a short path, the packet type of the
 * previous frame reused when it had the same one), each mbuf prefetched a
 * few slots ahead. The ring pointers live in locals: the mbuf stores may
 * alias the queue. One doorbell for the whole burst.
 */
uint16_t
tally_rx_burst(void *queue, struct rte_mbuf **pkts, uint16_t nb_pkts)
{
	struct rte_mbuf *nms[TALLY_RX_BULK];
	struct tally_rxq *rxq = queue;
	/* this process's way to the device (the queue is shared memory) */
	const struct tally_hal_dev *hal = tally_port_hal(rxq->port_id);
	const uint64_t rearm = tally_rx_rearm_value(rxq);
	const uint16_t more = TALLY_RXC_F_MORE | TALLY_RXC_F_ERR;
	uint32_t cons = rxq->cons, start = cons;
	const uint32_t mask = rxq->mask;
	uint32_t n, got, k, idx, pt = 0;
	uint64_t w, key, pt_key = UINT64_MAX;
	const uint16_t buf_len = rxq->buf_len;
	struct rte_mbuf **const sw_ring = rxq->sw_ring;
	struct tally_rx_desc *const ring = rxq->ring;
	const struct tally_rx_cqe *const cq = rxq->cq;
	const struct tally_rx_cqe *c;
	uint16_t flags, len;
	bool partial;
	struct rte_mbuf *m;
	uint16_t nb_rx = 0;

	tally_hal_service(hal);
	/* a device on another CPU: a burst's completions and the
	 * descriptors that follow them come in together (see
	 * tally_ring_prefetch()), before the first is looked at */
	if (hal->remote) {
		n = RTE_MIN((uint32_t)nb_pkts, (uint32_t)TALLY_RX_BULK);
		tally_ring_prefetch(cq, cons, n, mask, sizeof(*cq), false);
		tally_ring_prefetch(ring, cons, n, mask, sizeof(*ring), true);
	}
	/* at most one ring of completions per burst: the device cannot keep
	 * the caller here (completions it claims ready in every lap, each
	 * refused, would otherwise never end the loop) */
	while (nb_rx < nb_pkts && cons - start <= mask) {
		n = tally_rx_ready(rxq, cons,
				   RTE_MIN(RTE_MIN((uint32_t)(nb_pkts - nb_rx),
						   (uint32_t)TALLY_RX_BULK),
					   mask + 1 - (cons - start)));
		if (n == 0)
			break;
		got = tally_rx_refill_get(rxq, nms, n);
		for (k = 0; k < TALLY_RX_PREFETCH; k++)
			rte_prefetch0(sw_ring[(cons + k) & mask]);
		partial = rxq->pkt_first != NULL || rxq->skip;
		k = 0;
		if (likely(!partial)) {
			k = tally_rx_plain(rxq, cons, got, pkts + nb_rx, nms, rearm,
					   &pt_key, &pt);
			nb_rx += k;
		}
		for (; k < got; k++) {
			idx = (cons + k) & mask;
			/* a slot past the batch holds a posted mbuf (or NULL,
			 * harmless to prefetch) */
			rte_prefetch0(sw_ring[(idx + TALLY_RX_PREFETCH) & mask]);
			c = &cq[idx];
			m = sw_ring[idx];
			sw_ring[idx] = nms[k];
			ring[idx].addr = tally_mbuf_rx_iova(nms[k]);
			ring[idx].buf_len = buf_len;
			/* len, flags, ptype, err, rsvd, phase in one load (the
			 * acquire load of the phase in tally_rx_ready() came first) */
			w = *(const tally_rxc64_t *)(const void *)&c->len;
			flags = (uint16_t)(w >> TALLY_RXC_FLAGS_SHIFT);
			len = (uint16_t)(w >> TALLY_RXC_LEN_SHIFT);
			/* one segment of 1..buf_len bytes, else the checks
			 * of the general path */
			if (likely(!(flags & more) && !partial &&
				   (uint16_t)(len - 1) < buf_len)) {
				key = w & TALLY_RX_PT_KEY;	/* ptype and VLAN flag */
				if (unlikely(key != pt_key)) {
					pt_key = key;
					pt = tally_rx_ptype(c->ptype, flags);
				}
				tally_rx_simple(rxq, m, c, rearm, pt, len, flags);
				pkts[nb_rx++] = m;
				continue;
			}
			if (tally_rx_one(rxq, m, c, &pkts[nb_rx]))
				nb_rx++;
			partial = rxq->pkt_first != NULL || rxq->skip;
		}
		cons += got;
		if ((cons ^ (cons - got)) & (mask + 1))
			rxq->phase ^= 1;
		if (got < n)
			break;
	}
	if (cons != start) {
		rxq->cons = cons;
		rxq->prod += cons - start;
		tally_hal_rxq_doorbell(hal, rxq->qid, rxq->prod);
		rxq->idle = 0;
	} else if (unlikely(++rxq->idle > TALLY_RX_IDLE_POLLS)) {
		unsigned int i;

		for (i = 0; i < TALLY_RX_IDLE_PAUSES; i++)
			rte_pause();
	}
	return nb_rx;
}

#define TALLY_TX_FREE_BULK	64	/* mbufs returned per mempool put */

/* Return the mbufs fb[0..n), all of pool mp, with one put. The lcore id is
 * read once per reclaim (left to rte_mempool_put_bulk(), the compiler
 * computes it, a TLS lookup in a shared object, on every loop turn). */
static inline void
tally_tx_put_mbufs(struct rte_mempool *mp, struct rte_mbuf **fb, uint32_t n,
		   unsigned int lcore)
{
	rte_mempool_generic_put(mp, (void **)fb, n, rte_mempool_default_cache(mp, lcore));
}

/* Tx completions ready from cons on, at most max (at most the ring size):
 * as tally_rx_ready(), the last one first (the device completes in ring
 * order), else one by one. */
static inline uint32_t
tally_tx_ready(const struct tally_txq *txq, uint32_t cons, uint32_t max)
{
	uint32_t n = 0, last = cons + max - 1;
	uint8_t phase = txq->phase;

	if (max == 0)
		return 0;
	if (tally_hal_tx_cqe_ready(&txq->cq[last & txq->mask],
				   phase ^ (((last ^ cons) & ~txq->mask) != 0)))
		return max;
	while (n < max && tally_hal_tx_cqe_ready(&txq->cq[(cons + n) & txq->mask], phase)) {
		n++;
		if (((cons + n) & txq->mask) == 0)
			phase ^= 1;
	}
	return n;
}

/* A Tx completion as one 8-byte word, and its status byte in it. */
typedef uint64_t __attribute__((may_alias)) tally_txc64_t;
_Static_assert(sizeof(struct tally_tx_cqe) == 8 &&
	       offsetof(struct tally_tx_cqe, status) == 2, "Tx completion layout");
#if RTE_BYTE_ORDER == RTE_LITTLE_ENDIAN
#define TALLY_TXC_STATUS_M	((uint64_t)0xff << 16)
#else
#define TALLY_TXC_STATUS_M	((uint64_t)0xff << 40)
#endif

/* True when one of the n completions from c on has a status other than OK
 * (their status bytes ORed together, as whole words). */
static inline bool
tally_tx_status_any(const struct tally_tx_cqe *c, uint32_t n)
{
	const tally_txc64_t *w = (const tally_txc64_t *)(const void *)c;
	uint64_t any = 0;
	uint32_t k;

	for (k = 0; k < n; k++)
		any |= w[k];
	return (any & TALLY_TXC_STATUS_M) != 0;
}

/*
 * With RTE_ETH_TX_OFFLOAD_MBUF_FAST_FREE the application promises that every
 * mbuf it sends is direct, referenced once and of one pool; and every
 * descriptor from txq->slow_end on was posted by the burst's common path, a
 * one-segment frame (so next NULL, nb_segs 1). Such a run goes back to the
 * pool straight from sw_ring, without reading any mbuf but the first (its
 * pool): at most two puts, one per side of the ring's end.
 */
static inline void
tally_tx_reclaim_fast(struct tally_txq *txq, uint32_t cons, uint32_t n)
{
	struct rte_mbuf **sw_ring = txq->sw_ring;
	const struct tally_tx_cqe *cq = txq->cq;
	const uint32_t mask = txq->mask, first = cons & mask;
	const uint32_t run = RTE_MIN(n, mask + 1 - first);
	struct rte_mempool *mp = sw_ring[first]->pool;
	const unsigned int lcore = rte_lcore_id();
	uint32_t k;

	/* a status other than OK is rare: one test for the whole run */
	if (unlikely(tally_tx_status_any(cq + first, run) ||
		     tally_tx_status_any(cq, n - run)))
		for (k = 0; k < n; k++)
			txq->sw_cq_errors += cq[(cons + k) & mask].status != TALLY_TXC_OK;
	tally_tx_put_mbufs(mp, &sw_ring[first], run, lcore);
	memset(&sw_ring[first], 0, run * sizeof(sw_ring[0]));
	if (run < n) {
		tally_tx_put_mbufs(mp, sw_ring, n - run, lcore);
		memset(sw_ring, 0, (n - run) * sizeof(sw_ring[0]));
	}
}

/*
 * Free the mbufs of completed descriptors, in bulk per pool: first how many
 * completions are ready, then the run without per-entry phase checks. A
 * segment that ended its frame (EOP, so its next is NULL: the mbuf
 * invariant) with nb_segs 1, direct and referenced once goes back as it is,
 * without touching the mbuf's second cache line; anything else (the head
 * and middle segments of a chain among them) through
 * rte_pktmbuf_prefree_seg().
 */
static inline void
tally_tx_reclaim(struct tally_txq *txq)
{
	struct rte_mbuf *fb[TALLY_TX_FREE_BULK];
	const struct tally_tx_desc *ring = txq->ring;
	const struct tally_tx_cqe *cq = txq->cq;
	struct rte_mbuf **sw_ring = txq->sw_ring;
	const uint32_t mask = txq->mask;
	uint32_t cons = txq->cons, nf = 0, n, k, idx;
	struct rte_mempool *mp = NULL;
	unsigned int lcore;
	struct rte_mbuf *m;
	uint16_t eop;

	n = tally_tx_ready(txq, cons, txq->prod - cons);
	if (n == 0)
		return;
	if (txq->fast_free && (int32_t)(cons - txq->slow_end) >= 0) {
		tally_tx_reclaim_fast(txq, cons, n);
		txq->slow_end = cons + n;	/* kept within 2^31 of cons */
		goto done;
	}
	lcore = rte_lcore_id();
	for (k = 0; k < n; k++) {
		idx = (cons + k) & mask;
		eop = ring[idx].flags & TALLY_TXD_F_EOP;
		if (unlikely(cq[idx].status != TALLY_TXC_OK) && eop) {
			TALLY_TX_LOG(DEBUG, "txq %u: status %u", txq->qid,
				     cq[idx].status);
			txq->sw_cq_errors++;
		}
		m = sw_ring[idx];
		sw_ring[idx] = NULL;
		/* the last segment (EOP) of a one-segment frame: next is NULL */
		if (unlikely(!eop || m->nb_segs != 1 || rte_mbuf_refcnt_read(m) != 1 ||
			     !RTE_MBUF_DIRECT(m)))
			m = rte_pktmbuf_prefree_seg(m);
		if (m != NULL) {
			/* one put per run of one pool, at most a bulk each */
			if (unlikely(m->pool != mp || nf == TALLY_TX_FREE_BULK)) {
				if (nf != 0)
					tally_tx_put_mbufs(mp, fb, nf, lcore);
				nf = 0;
				mp = m->pool;
			}
			fb[nf++] = m;
		}
	}
	if (nf != 0)
		tally_tx_put_mbufs(mp, fb, nf, lcore);
done:
	if ((cons ^ (cons + n)) & (mask + 1))
		txq->phase ^= 1;
	txq->cons = cons + n;
}

static inline bool
tally_tx_frame_ok(const struct tally_txq *txq, const struct rte_mbuf *m)
{
	const struct rte_mbuf *s;

	if (unlikely(m->nb_segs > TALLY_TX_MAX_SEGS || m->pkt_len == 0 ||
		     m->pkt_len > txq->max_frame))
		return false;
	if (likely(m->nb_segs == 1))
		return m->data_len != 0;	/* next is NULL (mbuf invariant) */
	for (s = m; s != NULL; s = s->next)
		if (unlikely(s->data_len == 0))
			return false;
	return true;
}

/* Ring full: publish what is posted, let the device run, harvest. */
static inline uint32_t
tally_tx_make_room(const struct tally_hal_dev *hal, struct tally_txq *txq, uint32_t prod)
{
	if (prod != txq->prod) {
		txq->prod = prod;
		tally_hal_txq_doorbell(hal, txq->qid, prod);
	}
	tally_hal_service(hal);
	tally_tx_reclaim(txq);
	return txq->nb_desc - (prod - txq->cons);
}

uint16_t
tally_tx_burst(void *queue, struct rte_mbuf **pkts, uint16_t nb_pkts)
{
	struct tally_txq *txq = queue;
	const struct tally_hal_dev *hal = tally_port_hal(txq->port_id);
	struct tally_tx_desc *const ring = txq->ring;
	struct rte_mbuf **const sw_ring = txq->sw_ring;
	const uint32_t mask = txq->mask, max_frame = txq->max_frame;
	uint32_t prod = txq->prod, room, lim;
	bool retried = false;
	uint16_t nb_tx, first;

	/* a device on another CPU: the completions to reclaim and the free
	 * descriptors to fill come in together (see tally_ring_prefetch());
	 * only slots the device is done with are asked for writing */
	if (hal->remote) {
		room = txq->nb_desc - (prod - txq->cons);
		tally_ring_prefetch(txq->cq, txq->cons,
				    RTE_MIN(prod - txq->cons, (uint32_t)nb_pkts),
				    mask, sizeof(*txq->cq), false);
		tally_ring_prefetch(ring, prod, RTE_MIN(room, (uint32_t)nb_pkts), mask,
				    sizeof(*ring), true);
	}
	tally_tx_reclaim(txq);
	room = txq->nb_desc - (prod - txq->cons);
	nb_tx = 0;
	for (;;) {
		struct rte_mbuf *m;

		/* the common frames while the ring has room for them: one
		 * segment of 1 to max_frame bytes (what tally_tx_frame_ok()
		 * accepts of it) */
		first = nb_tx;
		lim = nb_tx + RTE_MIN((uint32_t)(nb_pkts - nb_tx), room);
		for (; nb_tx < lim; nb_tx++) {
			struct tally_tx_desc *d = &ring[prod & mask];

			m = pkts[nb_tx];
			if (unlikely(m->nb_segs != 1 || m->pkt_len - 1u >= max_frame ||
				     m->data_len == 0))
				break;
			d->addr = tally_mbuf_data_iova(m);
			d->len = m->data_len;
			d->flags = TALLY_TXD_F_EOP;
			sw_ring[prod & mask] = m;
			prod++;
		}
		room -= nb_tx - first;
		if (nb_tx == nb_pkts)
			break;
		/* one frame off that path: a chain, a frame refused, or a
		 * one-segment frame that waits for room */
		m = pkts[nb_tx];
		if (unlikely(!tally_tx_frame_ok(txq, m))) {
			TALLY_TX_LOG(DEBUG, "txq %u: frame rejected (%u segs, %u bytes)",
				     txq->qid, m->nb_segs, m->pkt_len);
			txq->sw_rejected++;
			break;
		}
		if (unlikely(room < m->nb_segs) && !retried) {
			room = tally_tx_make_room(hal, txq, prod);
			retried = true;
		}
		if (room < m->nb_segs)
			break;
		room -= m->nb_segs;
		for (; m != NULL; m = m->next) {
			uint32_t idx = prod & mask;
			struct tally_tx_desc *d = &ring[idx];

			d->addr = tally_mbuf_data_iova(m);
			d->len = m->data_len;
			d->flags = m->next == NULL ? TALLY_TXD_F_EOP : 0;
			sw_ring[idx] = m;
			prod++;
		}
		txq->slow_end = prod;
		nb_tx++;
	}
	if (prod != txq->prod) {
		txq->prod = prod;
		tally_hal_txq_doorbell(hal, txq->qid, prod);
	}
	tally_hal_service(hal);
	return nb_tx;
}

void
tally_set_rxtx_functions(struct rte_eth_dev *dev)
{
	dev->rx_pkt_burst = tally_rx_burst;
	dev->tx_pkt_burst = tally_tx_burst;
}
