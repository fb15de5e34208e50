/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Rx pipeline, run under the model lock for a burst of frames from the
 * wire: validate -> MAC filter -> parse (every frame of the burst), steer ->
 * choose a queue (every parsed frame), write into that queue's Rx ring
 * (scatter over descriptors when CTRL_SCATTER).
 */
#include <string.h>

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

	if (ctrl & TALLY_CTRL_PROMISC)
		return true;
	if (memcmp(dst, m->cfg.mac, 6) == 0 || memcmp(dst, bcast, 6) == 0)
		return true;
	return (dst[0] & 1) && (ctrl & TALLY_CTRL_ALLMULTI);
}

static void
tally_model_rx_cqe(struct tally_model *m, struct tally_model_queue *q,
		   uint32_t idx, uint16_t len, uint16_t flags, uint8_t err,
		   const struct tally_model_rx_meta *meta)
{
	struct tally_rx_cqe *c = (struct tally_rx_cqe *)q->cq + (idx & q->mask);

	c->rss_hash = meta->hash;
	c->mark = meta->mark;
	c->len = len;
	c->flags = flags;
	c->ptype = meta->ptype;
	c->err = err;
	c->rsvd = 0;
	/* pairs with the driver's acquire load of phase */
	__atomic_store_n(&c->phase, tally_model_phase(q, idx), __ATOMIC_RELEASE);
	tally_model_ccnt_hit(m, q, (flags & TALLY_RXC_F_ERR) != 0);
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

/* Descriptors the frame needs: 0 when there are not enough (missed),
 * -1 when it does not fit without scatter (oversize). */
static int64_t
tally_model_rx_plan(const struct tally_model_queue *q, uint32_t avail,
		    uint32_t len, bool scatter)
{
	uint32_t n = 0, room = 0, bl;

	while (room < len) {
		if (n == avail)
			return 0;
		bl = tally_model_rx_desc(q, q->head + n).buf_len;
		n++;
		if (bl == 0)
			return n;	/* reported as a descriptor error */
		room += bl;
		if (!scatter)
			return room < len ? -1 : (int64_t)n;
	}
	return n;
}

/* Copy the frame into n descriptors; on error complete them all in error. */
static void
tally_model_rx_write(struct tally_model *m, struct tally_model_queue *q,
		     uint32_t n, const uint8_t *frame, uint32_t len,
		     const struct tally_model_rx_meta *meta)
{
	uint32_t k, off = 0, chunk;
	struct tally_rx_desc d;
	uint8_t err = TALLY_RXC_ERR_NONE;
	void *p;

	for (k = 0; k < n && err == TALLY_RXC_ERR_NONE; k++) {
		d = tally_model_rx_desc(q, q->head + k);
		chunk = TALLY_MIN(len - off, (uint32_t)d.buf_len);
		if (chunk == 0) {
			tally_model_fault(m, TALLY_FAULT_BAD_DESC, d.addr);
			err = TALLY_RXC_ERR_DESC;
			break;
		}
		p = tally_model_dma(m, d.addr, chunk);
		if (p == NULL) {
			err = TALLY_RXC_ERR_DMA;
			break;
		}
		memcpy(p, frame + off, chunk);
		off += chunk;
		if (off == len)
			n = k + 1;	/* buffers grew since the plan */
	}
	if (err == TALLY_RXC_ERR_NONE && off < len)
		err = TALLY_RXC_ERR_DESC;	/* buffers shrank since the plan */
	if (err != TALLY_RXC_ERR_NONE) {
		for (k = 0; k < n; k++)
			tally_model_rx_cqe(m, q, q->head + k, 0,
					   TALLY_RXC_F_ERR, err, meta);
		tally_model_qstat_add(m, q, TALLY_Q_STAT_ERRORS, 1);
	} else {
		off = 0;
		for (k = 0; k < n; k++) {
			d = tally_model_rx_desc(q, q->head + k);
			chunk = TALLY_MIN(len - off, (uint32_t)d.buf_len);
			off += chunk;
			tally_model_rx_cqe(m, q, q->head + k, (uint16_t)chunk,
					   meta->flags | (k + 1 < n ? TALLY_RXC_F_MORE : 0),
					   0, meta);
		}
		tally_model_stat_add(m, TALLY_STAT_RX_PKTS, 1);
		tally_model_stat_add(m, TALLY_STAT_RX_BYTES, len);
		tally_model_qstat_add(m, q, TALLY_Q_STAT_PKTS, 1);
		tally_model_qstat_add(m, q, TALLY_Q_STAT_BYTES, len);
	}
	q->head += n;
	tally_model_bar_wr(m, tally_model_q_reg(q, TALLY_Q_HEAD), q->head);
}

static void
tally_model_rx_deliver(struct tally_model *m, uint32_t qi, const uint8_t *frame,
		       uint32_t len, const struct tally_model_rx_meta *meta)
{
	struct tally_model_queue *q;
	uint32_t avail;
	bool scatter;
	int64_t n;

	if (qi >= m->cfg.rx_queues) {
		tally_model_stat_add(m, TALLY_STAT_RX_MISSED, 1);
		return;
	}
	q = &m->rxq[qi];
	avail = q->prod - q->head;
	if (avail > q->mask + 1)
		avail = q->mask + 1;	/* producer ran past the ring */
	scatter = (tally_model_bar_rd(m, tally_model_q_reg(q, TALLY_Q_CTRL)) &
		   TALLY_Q_CTRL_SCATTER) != 0;
	n = q->en ? tally_model_rx_plan(q, avail, len, scatter) : 0;
	if (n == 0) {
		tally_model_stat_add(m, TALLY_STAT_RX_MISSED, 1);
		tally_model_qstat_add(m, q, TALLY_Q_STAT_DROPS, 1);
		return;
	}
	if (n < 0) {
		tally_model_stat_add(m, TALLY_STAT_RX_ERR_OVERSIZE, 1);
		return;
	}
	tally_model_rx_write(m, q, (uint32_t)n, frame, len, meta);
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
	const struct tally_model_verdict v = *vp;
	uint32_t hf;

	if (v.flags & TALLY_VERDICT_MARK) {
		meta->flags |= TALLY_RXC_F_MARK;
		meta->mark = v.mark;
	}
	if (v.flags & TALLY_VERDICT_FLAG)
		meta->flags |= TALLY_RXC_F_FLAG;
	if (v.flags & TALLY_VERDICT_DROP)
		return RX_STEER_DROP;
	if (v.flags & TALLY_VERDICT_QUEUE)
		return v.queue;
	if ((v.flags & TALLY_VERDICT_RSS) && v.rss_nq > 0) {
		hf = v.rss_hf != 0 ? v.rss_hf : tally_model_bar_rd(m, TALLY_REG_RSS_HF);
		if (!tally_model_rss_hash(m, pkt, hf, &meta->hash))
			return v.rss_queues[0];
		meta->flags |= TALLY_RXC_F_RSS;
		return v.rss_queues[meta->hash %
				    TALLY_MIN(v.rss_nq, (uint16_t)TALLY_VERDICT_MAX_RSS)];
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

/* Per-burst settings, read once per burst instead of once per frame. */
struct tally_model_rx_ctx {
	uint32_t ctrl;
	uint64_t max_len;	/* min(max_frame, MTU + L2 overhead) */
};

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
 * A burst of frames from the wire, in three passes over the burst: check
 * and parse every frame, classify the parsed frames as one burst
 * (tally_model_steer_classify_burst), deliver. Under the lock for the whole burst:
 * the driver sees the same results as frame by frame.
 */
void
tally_model_rx_burst(struct tally_model *m, const struct tally_model_rx_in *in,
		     unsigned int n)
{
	struct tally_model_rx_meta meta[TALLY_MODEL_BURST];
	struct tally_model_verdict v[TALLY_MODEL_BURST];
	const struct tally_model_pkt *pp[TALLY_MODEL_BURST];
	struct tally_model_pkt *pkt = m->rx_pkts;
	const uint8_t *frame[TALLY_MODEL_BURST];
	int64_t qi[TALLY_MODEL_BURST];
	struct tally_model_rx_ctx cx;
	unsigned int i, np = 0;

	if (n > TALLY_MODEL_BURST)
		n = TALLY_MODEL_BURST;
	cx.ctrl = tally_model_bar_rd(m, TALLY_REG_CTRL);
	cx.max_len = TALLY_MIN((uint64_t)m->cfg.max_frame,
			       (uint64_t)tally_model_bar_rd(m, TALLY_REG_MTU) +
			       TALLY_MODEL_L2_OVERHEAD);
	for (i = 0; i < n; i++) {
		if (!tally_model_rx_valid(m, &cx, in[i].caplen, in[i].len))
			continue;
		tally_model_stat_add(m, TALLY_STAT_RX_WIRE_PKTS, 1);
		if (!tally_model_rx_mac_ok(m, in[i].frame, cx.ctrl)) {
			tally_model_stat_add(m, TALLY_STAT_RX_FILTERED, 1);
			continue;
		}
		tally_model_parse(in[i].frame, in[i].len, &pkt[np]);
		memset(&meta[np], 0, sizeof(meta[np]));
		meta[np].ptype = pkt[np].ptype;
		if (pkt[np].has_vlan)
			meta[np].flags |= TALLY_RXC_F_VLAN;
		frame[np++] = in[i].frame;
	}
	memset(v, 0, np * sizeof(v[0]));
	if ((cx.ctrl & TALLY_CTRL_STEER) && np > 0) {
		for (i = 0; i < np; i++)
			pp[i] = &pkt[i];
		tally_model_steer_classify_burst(m, pp, np, v);
	}
	for (i = 0; i < np; i++)
		qi[i] = tally_model_rx_queue(m, &pkt[i], cx.ctrl, &v[i], &meta[i]);
	for (i = 0; i < np; i++) {
		if (qi[i] == RX_STEER_DROP) {
			tally_model_stat_add(m, TALLY_STAT_RX_STEER_DROP, 1);
			continue;
		}
		tally_model_rx_deliver(m, (uint32_t)qi[i], frame[i], pkt[i].len, &meta[i]);
	}
}

void
tally_model_rx_frame(struct tally_model *m, const uint8_t *frame, uint32_t caplen,
		     uint32_t len)
{
	struct tally_model_rx_in in = { frame, caplen, len };

	tally_model_rx_burst(m, &in, 1);
}
