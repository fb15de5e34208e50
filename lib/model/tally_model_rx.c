/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Rx pipeline, run under the model lock for a burst of frames from the
 * wire: validate -> MAC filter -> parse (every frame of the burst), steer ->
 * choose a queue (every parsed frame), write into that queue's Rx ring
 * (scatter over descriptors when CTRL_SCATTER).
 */
#include <string.h>

#include "tally_model_cls.h"
#include "tally_model_priv.h"

#define TALLY_MODEL_ETH_HLEN	14

/* Per-frame results that go into every completion of the frame. */
struct tally_model_rx_meta {
	uint32_t hash;
	uint32_t mark;
	uint16_t flags;		/* TALLY_RXC_F_RSS/MARK/FLAG/VLAN */
	uint8_t ptype;
};

static bool
tally_model_rx_mac_ok(const struct tally_model *m, const uint8_t *dst, uint32_t ctrl)
{
	static const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	uint32_t i;

	if (ctrl & TALLY_CTRL_PROMISC)
		return true;
	if ((m->mac_prim_valid && memcmp(dst, m->mac_prim, 6) == 0) ||
	    memcmp(dst, bcast, 6) == 0)
		return true;
	if ((dst[0] & 1) && (ctrl & TALLY_CTRL_ALLMULTI))
		return true;
	for (i = 0; i < m->mac_nextra; i++)
		if (memcmp(dst, m->mac_extra[i], 6) == 0)
			return true;
	return false;
}

/* Statistics, queue heads and completion counts of one burst, written to
 * the BAR once at its end (everything runs under the lock, so nobody is
 * between the frames). */
struct tally_model_rx_acc {
	uint64_t pkts, bytes, missed, oversize;
	uint32_t touched;	/* Rx queues below, bit per queue */
	struct {
		uint32_t ctrl;	/* Q_CTRL, read at the queue's first frame */
		uint32_t pkts, drops, errors;
		uint64_t bytes;
		struct tally_model_ccnt_acc cc;
	} q[TALLY_MAX_QUEUES];
};

/* cfg.bad_rx: every bad_rx_every-th completion of a delivered frame claims
 * what it should not. */
static void
tally_model_rx_bad(struct tally_model *m, uint16_t *len, uint16_t *flags)
{
	if (*flags & TALLY_RXC_F_ERR || ++m->bad_rx_n % m->cfg.bad_rx_every != 0)
		return;
	switch (m->cfg.bad_rx) {
	case TALLY_BAD_RX_LEN:
		*len = UINT16_MAX;
		break;
	case TALLY_BAD_RX_ZERO:
		*len = 0;
		break;
	case TALLY_BAD_RX_MORE:
		*flags |= TALLY_RXC_F_MORE;
		break;
	case TALLY_BAD_RX_NONE:
		break;
	}
}

static inline void
tally_model_rx_cqe(struct tally_model *m, struct tally_model_queue *q,
		   uint32_t idx, uint16_t len, uint16_t flags, uint8_t err,
		   const struct tally_model_rx_meta *meta, struct tally_model_rx_acc *acc)
{
	struct tally_rx_cqe *c = (struct tally_rx_cqe *)q->cq + (idx & q->mask);

	if (TALLY_UNLIKELY(m->cfg.bad_rx != TALLY_BAD_RX_NONE))
		tally_model_rx_bad(m, &len, &flags);

	c->rss_hash = meta->hash;
	c->mark = meta->mark;
	c->len = len;
	c->flags = flags;
	c->ptype = meta->ptype;
	c->err = err;
	c->rsvd = 0;
	/* pairs with the driver's acquire load of phase */
	__atomic_store_n(&c->phase, tally_model_phase(q, idx), __ATOMIC_RELEASE);
	if (flags & TALLY_RXC_F_ERR)
		acc->q[q->id].cc.nerr++;
	else
		acc->q[q->id].cc.ncomp++;
}

static struct tally_rx_desc
tally_model_rx_desc(const struct tally_model_queue *q, uint32_t idx)
{
	const volatile struct tally_rx_desc *d =
		(const volatile struct tally_rx_desc *)q->ring + (idx & q->mask);
	struct tally_rx_desc c;

	c.addr = d->addr;
	c.buf_len = d->buf_len;
	return c;
}

static inline void
tally_model_rx_acc_flush(struct tally_model *m, struct tally_model_rx_acc *acc)
{
	struct tally_model_queue *q;
	uint32_t t = acc->touched, i;

	if (acc->pkts != 0) {
		tally_model_stat_add(m, TALLY_STAT_RX_PKTS, acc->pkts);
		tally_model_stat_add(m, TALLY_STAT_RX_BYTES, acc->bytes);
	}
	if (acc->missed != 0)
		tally_model_stat_add(m, TALLY_STAT_RX_MISSED, acc->missed);
	if (acc->oversize != 0)
		tally_model_stat_add(m, TALLY_STAT_RX_ERR_OVERSIZE, acc->oversize);
	while (t != 0) {
		i = (uint32_t)__builtin_ctz(t);
		t &= t - 1;
		q = &m->rxq[i];
		tally_model_ccnt_end(&acc->q[i].cc);
		if (acc->q[i].pkts != 0) {
			tally_model_qstat_add(m, q, TALLY_Q_STAT_PKTS, acc->q[i].pkts);
			tally_model_qstat_add(m, q, TALLY_Q_STAT_BYTES, acc->q[i].bytes);
		}
		if (acc->q[i].drops != 0)
			tally_model_qstat_add(m, q, TALLY_Q_STAT_DROPS, acc->q[i].drops);
		if (acc->q[i].errors != 0)
			tally_model_qstat_add(m, q, TALLY_Q_STAT_ERRORS, acc->q[i].errors);
		tally_model_bar_wr(m, tally_model_q_reg(q, TALLY_Q_HEAD), q->head);
	}
}

/* Descriptors the frame needs: 0 when there are not enough (missed),
 * -1 when it does not fit without scatter (oversize). *d0 is the first
 * descriptor as read (valid when the result is not 0). */
static int64_t
tally_model_rx_plan(const struct tally_model_queue *q, uint32_t avail,
		    uint32_t len, bool scatter, struct tally_rx_desc *d0)
{
	uint32_t n = 0, room = 0, bl;
	struct tally_rx_desc d;

	while (room < len) {
		if (n == avail)
			return 0;
		d = tally_model_rx_desc(q, q->head + n);
		if (n == 0)
			*d0 = d;
		bl = d.buf_len;
		n++;
		if (bl == 0)
			return n;	/* reported as a descriptor error */
		room += bl;
		if (!scatter)
			return room < len ? -1 : (int64_t)n;
	}
	return n;
}

/* Copy the frame into n descriptors, the first one d0 as the plan read it;
 * on error complete them all in error. */
static void
tally_model_rx_write(struct tally_model *m, struct tally_model_queue *q,
		     uint32_t n, struct tally_rx_desc d0, const uint8_t *frame,
		     uint32_t len, const struct tally_model_rx_meta *meta,
		     struct tally_model_rx_acc *acc)
{
	uint32_t k, off = 0, chunk;
	struct tally_rx_desc d = d0;
	uint8_t err = TALLY_RXC_ERR_NONE;
	void *p;

	for (k = 0; k < n && err == TALLY_RXC_ERR_NONE; k++) {
		if (k > 0)
			d = tally_model_rx_desc(q, q->head + k);
		chunk = TALLY_MIN(len - off, (uint32_t)d.buf_len);
		if (chunk == 0) {
			tally_model_fault(m, TALLY_FAULT_BAD_DESC, d.addr);
			err = TALLY_RXC_ERR_DESC;
			break;
		}
		p = tally_model_dma_fast(m, d.addr, chunk);
		if (p == NULL) {
			err = TALLY_RXC_ERR_DMA;
			break;
		}
		tally_model_copy(p, frame + off, chunk);
		off += chunk;
		if (off == len)
			n = k + 1;	/* buffers grew since the plan */
	}
	if (err == TALLY_RXC_ERR_NONE && off < len)
		err = TALLY_RXC_ERR_DESC;	/* buffers shrank since the plan */
	if (err != TALLY_RXC_ERR_NONE) {
		for (k = 0; k < n; k++)
			tally_model_rx_cqe(m, q, q->head + k, 0, TALLY_RXC_F_ERR, err,
					   meta, acc);
		acc->q[q->id].errors++;
	} else if (n == 1) {
		tally_model_rx_cqe(m, q, q->head, (uint16_t)len, meta->flags, 0, meta, acc);
	} else {
		off = 0;
		for (k = 0; k < n; k++) {
			d = k == 0 ? d0 : tally_model_rx_desc(q, q->head + k);
			chunk = TALLY_MIN(len - off, (uint32_t)d.buf_len);
			off += chunk;
			tally_model_rx_cqe(m, q, q->head + k, (uint16_t)chunk,
					   meta->flags | (k + 1 < n ? TALLY_RXC_F_MORE : 0),
					   0, meta, acc);
		}
	}
	if (err == TALLY_RXC_ERR_NONE) {
		acc->pkts++;
		acc->bytes += len;
		acc->q[q->id].pkts++;
		acc->q[q->id].bytes += len;
	}
	q->head += n;
}

/* First frame of the burst for queue qi: its Q_CTRL and completion counter. */
static inline void
tally_model_rx_touch(struct tally_model *m, struct tally_model_rx_acc *acc, uint32_t qi)
{
	struct tally_model_queue *q = &m->rxq[qi];

	if (acc->touched & (1u << qi))
		return;
	acc->touched |= 1u << qi;
	memset(&acc->q[qi], 0, sizeof(acc->q[qi]));
	acc->q[qi].ctrl = tally_model_bar_rd(m, tally_model_q_reg(q, TALLY_Q_CTRL));
	tally_model_ccnt_begin(m, q, &acc->q[qi].cc);
}

static void
tally_model_rx_deliver(struct tally_model *m, uint32_t qi, const uint8_t *frame,
		       uint32_t len, const struct tally_model_rx_meta *meta,
		       struct tally_model_rx_acc *acc)
{
	struct tally_model_queue *q;
	struct tally_rx_desc d0 = { .addr = 0 };
	uint32_t avail;
	int64_t n;

	if (qi >= m->cfg.rx_queues) {
		acc->missed++;
		return;
	}
	q = &m->rxq[qi];
	tally_model_rx_touch(m, acc, qi);
	avail = q->prod - q->head;
	if (avail > q->mask + 1)
		avail = q->mask + 1;	/* producer ran past the ring */
	n = q->en ? tally_model_rx_plan(q, avail, len,
					(acc->q[qi].ctrl & TALLY_Q_CTRL_SCATTER) != 0,
					&d0) : 0;
	if (n == 0) {
		acc->missed++;
		acc->q[qi].drops++;
		return;
	}
	if (n < 0) {
		acc->oversize++;
		return;
	}
	tally_model_rx_write(m, q, (uint32_t)n, d0, frame, len, meta, acc);
}

static uint32_t
tally_model_reta(const struct tally_model *m, uint32_t hash)
{
	uint32_t i = hash % TALLY_RSS_RETA_SIZE;

	return (tally_model_bar_rd(m, TALLY_REG_RSS_RETA(i / 4)) >> (8 * (i % 4))) & 0xff;
}

#define RX_STEER_DROP	(-1)	/* queue choice: steering or isolate drops */

/* Queue for the frame given its steering verdict, or RX_STEER_DROP. */
static int64_t
tally_model_rx_queue(struct tally_model *m, const struct tally_model_pkt *pkt,
		     uint32_t ctrl, const struct tally_model_verdict *vp,
		     struct tally_model_rx_meta *meta)
{
	const struct tally_model_verdict *v = vp;
	uint32_t hf;

	if (v->flags & TALLY_VERDICT_MARK) {
		meta->flags |= TALLY_RXC_F_MARK;
		meta->mark = v->mark;
	}
	if (v->flags & TALLY_VERDICT_FLAG)
		meta->flags |= TALLY_RXC_F_FLAG;
	if (v->flags & TALLY_VERDICT_DROP)
		return RX_STEER_DROP;
	if (v->flags & TALLY_VERDICT_QUEUE)
		return v->queue;
	if ((v->flags & TALLY_VERDICT_RSS) && v->rss_nq > 0) {
		hf = v->rss_hf != 0 ? v->rss_hf : tally_model_bar_rd(m, TALLY_REG_RSS_HF);
		if (!tally_model_rss_hash(m, pkt, hf, &meta->hash))
			return v->rss_queues[0];
		meta->flags |= TALLY_RXC_F_RSS;
		return v->rss_queues[meta->hash %
				    TALLY_MIN(v->rss_nq, (uint16_t)TALLY_VERDICT_MAX_RSS)];
	}
	if ((ctrl & TALLY_CTRL_STEER) && (ctrl & TALLY_CTRL_ISOLATE))
		return RX_STEER_DROP;
	if (ctrl & TALLY_CTRL_RSS) {
		if (!tally_model_rss_hash(m, pkt, tally_model_bar_rd(m, TALLY_REG_RSS_HF),
					  &meta->hash))
			return tally_model_reta(m, 0);
		meta->flags |= TALLY_RXC_F_RSS;
		return tally_model_reta(m, meta->hash);
	}
	return tally_model_bar_rd(m, TALLY_REG_STEER_MISS_QUEUE);
}

/*
 * True when classifying can have no effect: steering off, or the cache built
 * by the last classification still describes the published root and its
 * first table (where every walk starts) has no matchers, so every frame
 * misses without a count or a fault. Anything else (no cache yet, a
 * republished root, a fence) says false and the classifier decides.
 */
static bool
tally_model_rx_steer_idle(struct tally_model *m, uint32_t ctrl)
{
	const struct tally_model_cls *c = m->cls;
	uint64_t root;

	if (!(ctrl & TALLY_CTRL_STEER) ||
	    !(tally_model_bar_rd(m, TALLY_REG_STEER_CTRL) & TALLY_STEER_CTRL_EN))
		return true;
	if (c == NULL || !c->root_ok || c->root.num_tables == 0 ||
	    c->tbl[0].hw == NULL ||
	    c->gen != __atomic_load_n(&m->cls_gen, __ATOMIC_ACQUIRE))
		return false;
	root = (uint64_t)tally_model_bar_rd(m, TALLY_REG_STEER_ROOT_LO) |
	       (uint64_t)tally_model_bar_rd(m, TALLY_REG_STEER_ROOT_HI) << 32;
	/* acquire: pairs with the driver's release store of the matcher list */
	return root == c->root_iova &&
	       __atomic_load_n(&c->tbl[0].hw->mlist, __ATOMIC_ACQUIRE) == 0;
}

/* The descriptors and completion slots the next n frames of q take when
 * each fits one descriptor (the driver wrote the descriptors a ring ago). */
static inline void
tally_model_rx_prefetch(const struct tally_model_queue *q, uint32_t n)
{
	const struct tally_rx_desc *ring = q->ring;
	const struct tally_rx_cqe *cq = q->cq;
	uint32_t k, avail = q->prod - q->head;

	if (!q->en)
		return;
	n = TALLY_MIN(n, TALLY_MIN(avail, q->mask + 1));
	for (k = 0; k < n; k += 4) {
		__builtin_prefetch(&ring[(q->head + k) & q->mask]);
		tally_prefetch_w(&cq[(q->head + k) & q->mask]);
	}
}

/* The second half of an Rx completion (len, flags, ptype, err 0, rsvd 0,
 * phase) as one 8-byte word; the first half (RSS hash and mark) is 0. */
typedef uint64_t __attribute__((may_alias)) tally_model_rxc64_t;
_Static_assert(offsetof(struct tally_rx_cqe, len) == 8 &&
	       offsetof(struct tally_rx_cqe, phase) == 15, "Rx completion layout");

static inline uint64_t
tally_model_rx_cqe_hi(uint16_t len, uint16_t flags, uint8_t ptype, uint8_t phase)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	return (uint64_t)len | (uint64_t)flags << 16 | (uint64_t)ptype << 32 |
	       (uint64_t)phase << 56;
#else
	struct tally_rx_cqe c = { .len = len, .flags = flags, .ptype = ptype,
				  .phase = phase };
	uint64_t w;

	memcpy(&w, &c.len, sizeof(w));
	return w;
#endif
}

/* A whole completion without RSS hash or mark in two 8-byte stores (the ring
 * is aligned to its entry size), the one with the phase last. */
static inline void
tally_model_rx_cqe_store(uint8_t *c, uint64_t hi)
{
	tally_model_rxc64_t *w = (tally_model_rxc64_t *)(void *)c;

	__atomic_store_n(&w[0], 0, __ATOMIC_RELAXED);
	/* pairs with the driver's acquire load of phase */
	__atomic_store_n(&w[1], hi, __ATOMIC_RELEASE);
}

/*
 * The common burst: no classification, no RSS, no isolation, so every frame
 * goes to queue qi. Frames that fit the next posted descriptor whose buffer
 * translates through the TLB are written here, in order; the
 * index of the first one that does not is returned, and the general path
 * takes it and the rest (it records whatever fault or miss there is).
 */
static unsigned int
tally_model_rx_fast(struct tally_model *m, uint32_t qi, const struct tally_model_pkt *pkt,
		    unsigned int np, struct tally_model_rx_acc *acc)
{
	const struct tally_model_dma_win win = tally_model_dma_window(m);
	const volatile struct tally_rx_desc *ring, *d;
	struct tally_model_queue *q;
	uint32_t avail, len, i, head, mask, log2;
	uint64_t bytes = 0, addr;
	uint8_t *cq, *p;

	if (qi >= m->cfg.rx_queues || !m->rxq[qi].en ||
	    m->cfg.bad_rx != TALLY_BAD_RX_NONE)
		return 0;
	q = &m->rxq[qi];
	tally_model_rx_touch(m, acc, qi);
	tally_model_rx_prefetch(q, np);
	/* in locals: the frame copies may alias anything */
	head = q->head;
	mask = q->mask;
	log2 = q->log2;
	ring = (const volatile struct tally_rx_desc *)q->ring;
	cq = q->cq;
	avail = TALLY_MIN(q->prod - head, mask + 1);
	for (i = 0; i < np && i < avail; i++) {
		len = pkt[i].len;
		d = ring + (head & mask);
		addr = d->addr;
		p = tally_model_dma_win_hit(m, &win, addr, len);
		if (d->buf_len < len || p == NULL)
			break;
		tally_model_copy(p, pkt[i].frame, len);
		/* the phase of tally_model_phase(), with log2 in a local */
		tally_model_rx_cqe_store(cq + (size_t)(head & mask) * sizeof(struct tally_rx_cqe),
					 tally_model_rx_cqe_hi((uint16_t)len,
							       pkt[i].has_vlan ? TALLY_RXC_F_VLAN : 0,
							       pkt[i].ptype,
							       (uint8_t)(((head >> log2) & 1u) ^ 1u)));
		head++;
		bytes += len;
	}
	q->head = head;
	acc->pkts += i;
	acc->bytes += bytes;
	acc->q[qi].pkts += i;
	acc->q[qi].bytes += bytes;
	acc->q[qi].cc.ncomp += i;
	return i;
}

/* Per-burst settings, read once per burst instead of once per frame. */
struct tally_model_rx_ctx {
	uint32_t ctrl;
	uint64_t max_len;	/* min(max_frame, MTU + L2 overhead) */
	uint32_t src;		/* misc.source_port: the port whose wire it came from */
	bool switched;		/* handed over by the switch: checked and counted */
};

/* misc.source_port (spec 2.3) into a parsed frame's key; port 0 is what
 * the parse leaves there. */
static inline void
tally_model_rx_src(struct tally_model_pkt *pkt, uint8_t *dirty, uint32_t src)
{
	uint8_t *k = pkt->key.b + TALLY_MS_OFF(TALLY_MS_MISC) + TALLY_MISC_SOURCE_PORT;

	if (src == 0)
		return;
	k[0] = (uint8_t)(src >> 8);
	k[1] = (uint8_t)src;
	*dirty |= TALLY_PARSE_SEC(TALLY_MS_MISC);
}

/* Length checks; false (and counted) when the frame is dropped. */
static bool
tally_model_rx_valid(struct tally_model *m, const struct tally_model_rx_ctx *cx,
		     uint32_t caplen, uint32_t len)
{
	if (len < TALLY_MODEL_ETH_HLEN) {
		tally_model_stat_add(m, TALLY_STAT_RX_ERR_RUNT, 1);
		return false;
	}
	if ((uint64_t)len > cx->max_len) {
		tally_model_stat_add(m, TALLY_STAT_RX_ERR_OVERSIZE, 1);
		return false;
	}
	if (caplen < len) {
		tally_model_stat_add(m, TALLY_STAT_RX_ERR_TRUNC, 1);
		return false;
	}
	return true;
}

/*
 * The general burst, in three passes over the burst: check
 * and parse every frame (without the match key when nothing classifies), classify the parsed frames as one burst
 * (tally_model_steer_classify_burst), deliver. Under the lock for the whole burst:
 * the driver sees the same results as frame by frame. The parsed frames live
 * in m->rx_pkts, reused burst after burst: each slot's key is cleared only
 * where the previous frame in it wrote (m->rx_dirty). `steer`: classifying
 * can have an effect (not tally_model_rx_steer_idle()).
 */
static void
tally_model_rx_general(struct tally_model *m, const struct tally_model_rx_in *in,
		       unsigned int n, const struct tally_model_rx_ctx *cxp, bool steer)
{
	static const struct tally_model_verdict none;
	struct tally_model_rx_meta meta[TALLY_MODEL_BURST];
	struct tally_model_verdict v[TALLY_MODEL_BURST];
	const struct tally_model_pkt *pp[TALLY_MODEL_BURST];
	struct tally_model_pkt *pkt = m->rx_pkts;
	int64_t qi[TALLY_MODEL_BURST];
	const struct tally_model_rx_ctx cx = *cxp;
	unsigned int i, np = 0, wire = 0, filtered = 0, sdrop = 0, start;
	struct tally_model_rx_acc acc;

	for (i = 0; i < n; i++) {
		if (!cx.switched) {
			if (!tally_model_rx_valid(m, &cx, in[i].caplen, in[i].len))
				continue;
			wire++;
		}
		if (!tally_model_rx_mac_ok(m, in[i].frame, cx.ctrl)) {
			filtered++;
			continue;
		}
		if (steer) {
			tally_model_parse_reuse(in[i].frame, in[i].len, &pkt[np],
						&m->rx_dirty[np]);
			tally_model_rx_src(&pkt[np], &m->rx_dirty[np], cx.src);
		} else
			tally_model_parse_light(in[i].frame, in[i].len, &pkt[np],
						&m->rx_dirty[np]);
		np++;
	}
	if (wire != 0)
		tally_model_stat_add(m, TALLY_STAT_RX_WIRE_PKTS, wire);
	if (filtered != 0)
		tally_model_stat_add(m, TALLY_STAT_RX_FILTERED, filtered);
	acc.pkts = acc.bytes = acc.missed = acc.oversize = 0;
	acc.touched = 0;
	steer = np > 0 && steer;
	if (steer) {
		for (i = 0; i < np; i++)
			pp[i] = &pkt[i];
		/* fills every verdict */
		tally_model_steer_classify_burst(m, pp, np, v);
	}
	start = 0;
	if (!steer && !(cx.ctrl & TALLY_CTRL_RSS) &&
	    !((cx.ctrl & TALLY_CTRL_STEER) && (cx.ctrl & TALLY_CTRL_ISOLATE)))
		start = tally_model_rx_fast(m, tally_model_bar_rd(m, TALLY_REG_STEER_MISS_QUEUE),
					    pkt, np, &acc);
	for (i = start; i < np; i++) {
		meta[i].hash = 0;
		meta[i].mark = 0;
		meta[i].ptype = pkt[i].ptype;
		meta[i].flags = pkt[i].has_vlan ? TALLY_RXC_F_VLAN : 0;
	}
	for (i = start; i < np; i++)
		qi[i] = tally_model_rx_queue(m, &pkt[i], cx.ctrl, steer ? &v[i] : &none,
					     &meta[i]);
	if (start == 0 && np > 0 && qi[0] >= 0 && (uint64_t)qi[0] < m->cfg.rx_queues)
		tally_model_rx_prefetch(&m->rxq[qi[0]], np);
	for (i = start; i < np; i++) {
		if (qi[i] == RX_STEER_DROP) {
			sdrop++;
			continue;
		}
		tally_model_rx_deliver(m, (uint32_t)qi[i], pkt[i].frame, pkt[i].len,
				       &meta[i], &acc);
	}
	tally_model_rx_acc_flush(m, &acc);
	if (sdrop != 0)
		tally_model_stat_add(m, TALLY_STAT_RX_STEER_DROP, sdrop);
}

/* What tally_model_rx_direct() keeps for one run of frames: in locals, as
 * the frame copies may alias anything. */
struct rx_direct_run {
	const volatile struct tally_rx_desc *ring;
	uint8_t *cq;
	struct tally_model_dma_win win;
	uint64_t max_len;
	uint64_t bytes;
	uint32_t head;
	uint32_t mask;
	uint32_t ctrl;
};

/*
 * Frames in[0..n) while they take the direct path, into completions of phase
 * phase_hi (none of them crosses the end of the ring's lap); check_mac is a
 * constant, so the promiscuous case has no MAC test in its loop. Returns how
 * many were completed (r->head and r->bytes moved on).
 */
static inline __attribute__((always_inline)) uint32_t
rx_direct_frames(struct tally_model *m, const struct tally_model_rx_in *in, uint32_t n,
		 struct rx_direct_run *r, uint64_t phase_hi, const bool check_mac)
{
	const volatile struct tally_rx_desc *ring = r->ring, *d;
	const struct tally_model_dma_win win = r->win;
	const uint64_t max_len = r->max_len;
	const uint32_t mask = r->mask;
	uint8_t *const cq = r->cq;
	uint32_t len, i, head = r->head;
	uint64_t bytes = 0, hi;
	const uint8_t *f;
	uint8_t *p, ptype, l4t;
	uint16_t flags;

	for (i = 0; i < n; i++) {
		len = in[i].len;
		f = in[i].frame;
		/* ETH_HLEN <= len <= max_len in one compare */
		if ((uint64_t)len - TALLY_MODEL_ETH_HLEN > max_len - TALLY_MODEL_ETH_HLEN ||
		    in[i].caplen < len || (check_mac && !tally_model_rx_mac_ok(m, f, r->ctrl)))
			break;	/* counted as a drop by the general path */
		d = ring + (head & mask);
		p = tally_model_dma_win_hit_max(m, &win, d->addr, len);
		if (d->buf_len < len || p == NULL)
			break;
		l4t = tally_model_parse_l4t(f, len);
		if (l4t != 0) {
			ptype = (uint8_t)(TALLY_FIELD_PREP(TALLY_PTYPE_L3_M, TALLY_PTYPE_L3_IPV4) |
					  TALLY_FIELD_PREP(TALLY_PTYPE_L4_M, l4t));
			flags = 0;
		} else {	/* any other frame: the parse types it */
			tally_model_parse_light(f, len, &m->rx_pkts[0], &m->rx_dirty[0]);
			ptype = m->rx_pkts[0].ptype;
			flags = m->rx_pkts[0].has_vlan ? TALLY_RXC_F_VLAN : 0;
		}
		tally_model_copy(p, f, len);
		hi = tally_model_rx_cqe_hi((uint16_t)len, flags, ptype, 0) | phase_hi;
		tally_model_rx_cqe_store(cq + (size_t)(head & mask) * sizeof(struct tally_rx_cqe),
					 hi);
		head++;
		bytes += len;
	}
	r->head = head;
	r->bytes += bytes;
	return i;
}

/*
 * The common burst in one pass: classifying can have no effect, no RSS, no
 * isolation, so every frame goes to the miss queue. Each frame of a valid
 * length that the MAC filter accepts and that fits the next posted
 * descriptor, whose buffer lies in the DMA window, is typed (the parse's
 * short check, else its light parse), copied and completed here, in order.
 * Returns how many were; the general path takes the first one that was not
 * and the rest (it counts whatever drop, miss or fault it meets), so the
 * results are those of the general path for the whole burst. The burst goes
 * in at most two runs, one per lap of the ring, each of one phase.
 */
static unsigned int
tally_model_rx_direct(struct tally_model *m, const struct tally_model_rx_in *in,
		      unsigned int n, const struct tally_model_rx_ctx *cx)
{
	const uint32_t qi = tally_model_bar_rd(m, TALLY_REG_STEER_MISS_QUEUE);
	const bool promisc = (cx->ctrl & TALLY_CTRL_PROMISC) != 0;
	struct tally_model_ccnt_acc cc;
	struct tally_model_queue *q;
	struct rx_direct_run r;
	uint32_t avail, i = 0, k, run;
	uint64_t phase_hi;

	/* the lengths this path takes: ETH_HLEN to max_len, all of them
	 * inside the window when one is */
	if (qi >= m->cfg.rx_queues || !m->rxq[qi].en ||
	    m->cfg.bad_rx != TALLY_BAD_RX_NONE || cx->max_len < TALLY_MODEL_ETH_HLEN ||
	    !tally_model_dma_window_max(m, cx->max_len, &r.win))
		return 0;
	q = &m->rxq[qi];
	tally_model_rx_prefetch(q, n);
	r.ring = (const volatile struct tally_rx_desc *)q->ring;
	r.cq = q->cq;
	r.max_len = cx->max_len;
	r.bytes = 0;
	r.head = q->head;
	r.mask = q->mask;
	r.ctrl = cx->ctrl;
	avail = TALLY_MIN(q->prod - r.head, r.mask + 1);
	n = TALLY_MIN(n, avail);
	while (i < n) {
		/* frames to the end of this lap, whose completions carry the
		 * lap's phase */
		run = TALLY_MIN(n - i, r.mask + 1 - (r.head & r.mask));
		phase_hi = tally_model_rx_cqe_hi(0, 0, 0, tally_model_phase(q, r.head));
		k = promisc ? rx_direct_frames(m, in + i, run, &r, phase_hi, false) :
			      rx_direct_frames(m, in + i, run, &r, phase_hi, true);
		i += k;
		if (k < run)
			break;
	}
	if (i == 0)
		return 0;
	tally_model_ccnt_begin(m, q, &cc);
	cc.ncomp = i;
	q->head = r.head;
	tally_model_stat_add(m, TALLY_STAT_RX_WIRE_PKTS, i);
	tally_model_stat_add(m, TALLY_STAT_RX_PKTS, i);
	tally_model_stat_add(m, TALLY_STAT_RX_BYTES, r.bytes);
	tally_model_qstat_add(m, q, TALLY_Q_STAT_PKTS, i);
	tally_model_qstat_add(m, q, TALLY_Q_STAT_BYTES, r.bytes);
	tally_model_ccnt_end(&cc);
	tally_model_bar_wr(m, tally_model_q_reg(q, TALLY_Q_HEAD), r.head);
	return i;
}

/* A burst of frames from the wire: the common frames in one pass
 * (tally_model_rx_direct()) when nothing classifies, hashes or isolates,
 * everything else through the general path. */
void
tally_model_rx_burst(struct tally_model *m, const struct tally_model_rx_in *in,
		     unsigned int n)
{
	struct tally_model_rx_ctx cx;
	unsigned int done = 0;
	bool steer;

	if (n > TALLY_MODEL_BURST)
		n = TALLY_MODEL_BURST;
	if (n == 0)
		return;
	cx.src = m->port;
	cx.switched = false;
	cx.ctrl = tally_model_bar_rd(m, TALLY_REG_CTRL);
	cx.max_len = TALLY_MIN((uint64_t)m->cfg.max_frame,
			       (uint64_t)tally_model_bar_rd(m, TALLY_REG_MTU) +
			       TALLY_MODEL_L2_OVERHEAD);
	/* decided before the parse: without classification nothing reads the
	 * match key, and the parse leaves it out */
	steer = !tally_model_rx_steer_idle(m, cx.ctrl);
	if (!steer && !(cx.ctrl & TALLY_CTRL_RSS) &&
	    !((cx.ctrl & TALLY_CTRL_STEER) && (cx.ctrl & TALLY_CTRL_ISOLATE)))
		done = tally_model_rx_direct(m, in, n, &cx);
	if (done < n)
		tally_model_rx_general(m, in + done, n - done, &cx, steer);
}

void
tally_model_rx_frame(struct tally_model *m, const uint8_t *frame, uint32_t caplen,
		     uint32_t len)
{
	struct tally_model_rx_in in = { frame, caplen, len };

	tally_model_rx_burst(m, &in, 1);
}

void
tally_model_rx_switched(struct tally_model *m, const uint8_t *frame, uint32_t len,
			uint32_t src)
{
	struct tally_model_rx_in in = { frame, len, len };
	struct tally_model_rx_ctx cx;

	cx.src = src;
	cx.switched = true;
	cx.ctrl = tally_model_bar_rd(m, TALLY_REG_CTRL);
	cx.max_len = m->cfg.max_frame;
	tally_model_rx_general(m, &in, 1, &cx, !tally_model_rx_steer_idle(m, cx.ctrl));
}
