/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Tx pipeline, run under the model lock: consume posted descriptors in
 * order, gather each frame up to EOP, check every segment address, hand the
 * frame to the wire and write one completion per descriptor. Runs of
 * one-descriptor frames go to a wire with tx_burst in one call per run.
 *
 * A wire that is busy (its tx returns -EAGAIN, e.g. a full loop FIFO) is
 * back-pressure, not a loss: the frame stays posted and the queue stops until
 * a later step, after the wire had a chance to drain. Any other refusal drops
 * the frame (ERR_WIRE).
 *
 * Held completions (m->tx_ref, set only inside a step whose Rx follows, see
 * tally_model.c): the loop wire may keep a frame by reference to the
 * driver's buffer, so no completion of the queue may reach the driver
 * before the step has copied or settled those frames. The fast burst then
 * writes no completion at all (its frames are one descriptor each, sent
 * whole: the completion follows from the descriptor); any other completion
 * first writes those (q->tx_unwritten up to head), then its own, complete
 * but for its phase byte. tally_model_tx_publish(), before the step ends,
 * writes the unwritten ones whole and the phases of the others (in ring
 * order), then the completion counters and HEAD.
 *
 * Statistics, each lost frame in exactly one place: TX_ERRORS counts
 * descriptors completed with ERR_DESC or ERR_DMA (the queue's ERRORS counts
 * those frames once), TX_WIRE_DROP and the queue's DROPS count frames the wire
 * refused (their descriptors complete with ERR_WIRE but are not TX_ERRORS).
 * While CTRL.LINK_DOWN is set every frame is such a frame: checked as any
 * other, then refused without reaching the wire.
 *
 * The switch (spec 2.3): with port 0's SW_CTRL.EN set (read once per
 * tally_model_tx_queue() call) every frame takes the general path, gathered
 * into tx_buf, and meets the switch (tally_model_sw_tx()) before the wire.
 * A frame the switch takes (drop, another destination, an edit) completes
 * OK with its length and counts only in the port's SW_* statistics, not in
 * TX_PKTS/TX_BYTES nor the queue's PKTS/BYTES; LINK_DOWN does not refuse
 * it. A frame it leaves alone goes to the wire as above; when the wire is
 * busy, q->tx_sw_own keeps the switch from seeing (and counting) it again.
 * With SW_CTRL.EN clear nothing here changes but that one read.
 */
#include <string.h>

#include "tally_model_priv.h"

/* A Tx completion as one 8-byte word, stored at once (the ring is aligned to
 * its entry size); may_alias, as it overlays struct tally_tx_cqe. */
typedef uint64_t __attribute__((may_alias)) tally_model_cqe64_t;
_Static_assert(sizeof(struct tally_tx_cqe) == sizeof(uint64_t), "one word");

static inline uint64_t
tally_model_tx_cqe_word(uint16_t len, uint8_t status, uint8_t phase)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	_Static_assert(offsetof(struct tally_tx_cqe, status) == 2 &&
		       offsetof(struct tally_tx_cqe, phase) == 3, "layout");
	return (uint64_t)len | (uint64_t)status << 16 | (uint64_t)phase << 24;
#else
	struct tally_tx_cqe c = { .len = len, .status = status, .phase = phase };
	uint64_t w;

	memcpy(&w, &c, sizeof(w));
	return w;
#endif
}

static struct tally_tx_desc
tally_model_tx_desc(const struct tally_model_queue *q, uint32_t idx)
{
	const volatile struct tally_tx_desc *d =
		(const volatile struct tally_tx_desc *)q->ring + (idx & q->mask);
	struct tally_tx_desc c;

	c.addr = d->addr;
	c.len = d->len;
	c.flags = d->flags;
	c.rsvd = 0;
	return c;
}

/* What one tally_model_tx_queue() call accumulates: frames sent, added to
 * the statistics once at its end (under the lock: nobody is between the
 * frames), and the completions it wrote, counted once. */
struct tally_model_tx_acc {
	uint64_t pkts, bytes;
	struct tally_model_ccnt_acc cc;
};

/* The completions of the fast burst's frames from `from` to `to`, each
 * from its descriptor (one descriptor, EOP, sent whole), in one store each:
 * published (release, the new phase), or held (relaxed, the phase of the
 * previous lap, which the driver does not take for new). */
static void
tally_model_tx_cqe_run(const struct tally_model_queue *q, uint32_t from, uint32_t to,
		       bool publish)
{
	const volatile struct tally_tx_desc *d;
	const uint32_t mask = q->mask;
	tally_model_cqe64_t *c;
	uint32_t k, n;
	uint64_t hi;
	uint8_t ph;

	for (; from != to; from += n) {
		/* one lap of the ring at a time: one phase, slots in a row */
		n = TALLY_MIN(to - from, mask + 1 - (from & mask));
		ph = (uint8_t)(tally_model_phase(q, from) ^ !publish);
		hi = tally_model_tx_cqe_word(0, TALLY_TXC_OK, ph);
		d = (const volatile struct tally_tx_desc *)q->ring + (from & mask);
		c = (tally_model_cqe64_t *)q->cq + (from & mask);
		if (publish)	/* pairs with the driver's acquire load of phase */
			for (k = 0; k < n; k++)
				__atomic_store_n(&c[k], hi | tally_model_tx_cqe_word(d[k].len, 0, 0),
						 __ATOMIC_RELEASE);
		else
			for (k = 0; k < n; k++)
				__atomic_store_n(&c[k], hi | tally_model_tx_cqe_word(d[k].len, 0, 0),
						 __ATOMIC_RELAXED);
	}
}

/* Held completions not written yet (fast burst) written now, held, before
 * a completion after them is written. */
static void
tally_model_tx_write_unwritten(struct tally_model_queue *q)
{
	tally_model_tx_cqe_run(q, q->tx_unwritten, q->head, false);
	q->tx_unwritten = q->head;
}

/* Complete the n descriptors at head with one status; advance head. */
static void
tally_model_tx_complete(struct tally_model *m, struct tally_model_queue *q,
			uint32_t n, uint32_t len, uint8_t status,
			struct tally_model_tx_acc *acc)
{
	struct tally_tx_cqe *c;
	uint32_t k, idx;

	if (m->tx_ref)
		tally_model_tx_write_unwritten(q);
	for (k = 0; k < n; k++) {
		idx = q->head + k;
		c = (struct tally_tx_cqe *)q->cq + (idx & q->mask);
		c->len = (uint16_t)(k + 1 == n ? len : 0);
		c->status = status;
		c->rsvd = 0;
		/* pairs with the driver's acquire load of phase */
		if (!m->tx_ref)
			__atomic_store_n(&c->phase, tally_model_phase(q, idx),
					 __ATOMIC_RELEASE);
	}
	if (status == TALLY_TXC_OK) {
		acc->cc.ncomp += n;
	} else {
		acc->cc.nerr += n;
		if (status == TALLY_TXC_ERR_DESC || status == TALLY_TXC_ERR_DMA)
			tally_model_stat_add(m, TALLY_STAT_TX_ERRORS, n);
	}
	q->head += n;
	q->tx_unwritten = q->head;
}

/* Copy the n segments d[] into dst (max_frame bytes), checking each in
 * order: length, then address. */
static uint8_t
tally_model_tx_gather(struct tally_model *m, const struct tally_tx_desc *d,
		      uint32_t n, uint8_t *dst, uint32_t *total)
{
	uint32_t k;
	void *p;

	*total = 0;
	for (k = 0; k < n; k++) {
		if (d[k].len == 0 || *total + d[k].len > m->cfg.max_frame) {
			tally_model_fault(m, TALLY_FAULT_BAD_DESC, d[k].addr);
			return TALLY_TXC_ERR_DESC;
		}
		p = tally_model_dma_fast(m, d[k].addr, d[k].len);
		if (p == NULL)
			return TALLY_TXC_ERR_DMA;
		tally_model_copy(dst + *total, p, d[k].len);
		*total += d[k].len;
	}
	return TALLY_TXC_OK;
}

/* Frame length of d[0..n) when every segment is non-empty and the frame
 * fits max_frame, else 0 (the gather then finds and reports the fault). */
static uint32_t
tally_model_tx_len(const struct tally_model *m, const struct tally_tx_desc *d,
		   uint32_t n)
{
	uint32_t k, total = 0;

	for (k = 0; k < n; k++) {
		if (d[k].len == 0)
			return 0;
		total += d[k].len;
	}
	return total <= m->cfg.max_frame ? total : 0;
}

/* Gather into the wire's own slot when it offers one (no second copy);
 * with the switch on (sw), into tx_buf and through the switch first:
 * TALLY_MODEL_TX_SWITCHED when it took the frame. */
#define TALLY_MODEL_TX_SWITCHED	1
static int
tally_model_tx_send(struct tally_model *m, struct tally_model_queue *q,
		    const struct tally_tx_desc *d, uint32_t n, bool sw,
		    uint32_t *total, uint8_t *st)
{
	uint32_t len = tally_model_tx_len(m, d, n);
	const bool down = (tally_model_bar_rd(m, TALLY_REG_CTRL) & TALLY_CTRL_LINK_DOWN) != 0;
	uint8_t *slot = NULL;

	if (len != 0 && m->wire->tx_slot != NULL && !down && !sw)
		slot = m->wire->tx_slot(m, len);
	*st = tally_model_tx_gather(m, d, n, slot != NULL ? slot : m->tx_buf, total);
	if (*st != TALLY_TXC_OK)
		return 0;
	if (sw && !q->tx_sw_own) {
		if (tally_model_sw_tx(m, m->tx_buf, *total))
			return TALLY_MODEL_TX_SWITCHED;
		q->tx_sw_own = true;	/* its own wire's: once, even if busy */
	}
	if (down)
		return -ENETDOWN;
	if (slot != NULL) {
		m->wire->tx_put(m, *total);
		return 0;
	}
	return m->wire->tx(m, m->tx_buf, *total);
}

/* One frame of the n descriptors d[] at head: false when the wire is busy
 * (nothing consumed, the frame stays posted), true when it was completed. */
static bool
tally_model_tx_frame(struct tally_model *m, struct tally_model_queue *q,
		     const struct tally_tx_desc *d, uint32_t n, bool sw,
		     struct tally_model_tx_acc *acc)
{
	uint32_t total;
	uint8_t st;
	int rc;

	rc = tally_model_tx_send(m, q, d, n, sw, &total, &st);
	if (st == TALLY_TXC_OK) {
		if (rc == -EAGAIN)
			return false;
		if (rc < 0) {
			st = TALLY_TXC_ERR_WIRE;
			tally_model_stat_add(m, TALLY_STAT_TX_WIRE_DROP, 1);
			tally_model_qstat_add(m, q, TALLY_Q_STAT_DROPS, 1);
		} else if (rc != TALLY_MODEL_TX_SWITCHED) {
			acc->pkts++;
			acc->bytes += total;
		}
	} else {
		tally_model_qstat_add(m, q, TALLY_Q_STAT_ERRORS, 1);
		total = 0;
	}
	tally_model_tx_complete(m, q, n, total, st, acc);
	q->tx_sw_own = false;
	return true;
}

/* Segments of the next frame, read once into d[]: n > 0 with EOP, 0 to wait
 * for more, or -n for n segments without EOP (too many). */
static int32_t
tally_model_tx_extent(const struct tally_model_queue *q, uint32_t avail,
		      struct tally_tx_desc *d)
{
	uint32_t n;

	for (n = 0; n < avail && n < TALLY_TX_MAX_SEGS; n++) {
		d[n] = tally_model_tx_desc(q, q->head + n);
		if (d[n].flags & TALLY_TXD_F_EOP)
			return (int32_t)n + 1;
	}
	return n == TALLY_TX_MAX_SEGS ? -(int32_t)n : 0;
}

/*
 * The common frame: one descriptor (EOP), a valid length, the buffer
 * translated by the TLB and room on the wire. Sent and completed here;
 * false leaves everything as it was for the general path (which records any
 * fault and handles a busy wire).
 */
static inline bool
tally_model_tx_fast(struct tally_model *m, struct tally_model_queue *q,
		    struct tally_model_tx_acc *acc)
{
	struct tally_tx_desc d = tally_model_tx_desc(q, q->head);
	struct tally_tx_cqe *c;
	const uint8_t *src;
	uint8_t *slot;

	if (!(d.flags & TALLY_TXD_F_EOP) || d.len == 0 || d.len > m->cfg.max_frame ||
	    m->wire->tx_slot == NULL)
		return false;
	src = tally_model_dma_hit(m, d.addr, d.len);
	if (src == NULL)
		return false;
	slot = m->wire->tx_slot(m, d.len);
	if (slot == NULL)
		return false;
	tally_model_copy(slot, src, d.len);
	m->wire->tx_put(m, d.len);
	if (m->tx_ref)
		tally_model_tx_write_unwritten(q);
	c = (struct tally_tx_cqe *)q->cq + (q->head & q->mask);
	c->len = d.len;
	c->status = TALLY_TXC_OK;
	c->rsvd = 0;
	/* pairs with the driver's acquire load of phase */
	if (!m->tx_ref)
		__atomic_store_n(&c->phase, tally_model_phase(q, q->head), __ATOMIC_RELEASE);
	q->head++;
	q->tx_unwritten = q->head;
	acc->pkts++;
	acc->bytes += d.len;
	acc->cc.ncomp++;
	return true;
}

typedef uint32_t __attribute__((may_alias)) tally_model_txd32_t;
_Static_assert(offsetof(struct tally_tx_desc, flags) ==
	       offsetof(struct tally_tx_desc, len) + 2, "Tx descriptor layout");

/* A descriptor's length less one when it is a whole frame's (EOP set),
 * else a value above any frame length (0xffffffff for a zero length):
 * len and flags in one load. */
static inline uint32_t
tally_model_txd_frame_len1(const volatile struct tally_tx_desc *d)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	uint32_t lf = *(const volatile tally_model_txd32_t *)(const volatile void *)&d->len;

	return ((lf & 0xffffu) - 1) | (~lf & ((uint32_t)TALLY_TXD_F_EOP << 16));
#else
	return ((uint32_t)d->len - 1) | ((d->flags & TALLY_TXD_F_EOP) ? 0 : 1u << 16);
#endif
}

/*
 * tally_model_tx_fast() for a run of such frames on a wire with tx_burst:
 * the run (up to a burst, ending before the first frame that is not of the
 * kind) goes to the wire in one call and is completed here (held: left
 * unwritten, see the top of the file). Returns the
 * frames sent; *busy when the wire took fewer than the run (the rest stays
 * posted). 0 and not busy: the frame at head is for the general path.
 */
static __attribute__((noinline)) unsigned int
tally_model_tx_fast_burst(struct tally_model *m, struct tally_model_queue *q,
			  uint32_t avail, struct tally_model_tx_acc *acc, bool *busy)
{
	const volatile struct tally_tx_desc *ring = q->ring, *d;
	struct tally_model_dma_win win;
	struct tally_model_rx_in fb[TALLY_MODEL_BURST], *f = fb, *r;
	unsigned int n, k, sent, max = TALLY_MIN(avail, (uint32_t)TALLY_MODEL_BURST);
	const uint32_t head = q->head, mask = q->mask;
	uint32_t max_len = m->cfg.max_frame, dl;
	const bool hold = m->tx_ref;
	uint64_t bytes = 0;

	/* held completions: the frames may go to the wire by reference,
	 * recorded straight into the wire's room for them */
	if (hold && (r = m->wire->tx_ref_room(m, &k, &dl)) != NULL) {
		f = r;
		max = TALLY_MIN(max, k);
		max_len = TALLY_MIN(max_len, dl);
	}
	/* frames of 1 to max_len bytes (checked first), inside the window */
	*busy = false;
	if (!tally_model_dma_window_max(m, max_len, &win))
		return 0;	/* as a frame for the general path: room unused */
	/* to the end of the ring's lap at most: the descriptors in a row */
	max = TALLY_MIN(max, mask + 1 - (head & mask));
	d = ring + (head & mask);
	for (n = 0; n < max; n++, d++) {
		dl = tally_model_txd_frame_len1(d);
		if (dl >= max_len)
			break;	/* a chain, an empty or an oversized frame */
		dl++;
		f[n].frame = tally_model_dma_win_hit_max(m, &win, d->addr, dl);
		if (f[n].frame == NULL)
			break;
		f[n].len = dl;
		f[n].caplen = dl;
		bytes += dl;
	}
	if (n == 0)
		return 0;
	if (f != fb) {
		m->wire->tx_ref_put(m, n);
		sent = n;
	} else {
		sent = m->wire->tx_burst(m, f, n);
		if (sent < n) {
			*busy = true;
			for (k = sent; k < n; k++)
				bytes -= f[k].len;
		}
	}
	/* held: the completions are written when published */
	if (!hold)
		tally_model_tx_cqe_run(q, head, head + sent, true);
	q->head = head + sent;
	acc->pkts += sent;
	acc->bytes += bytes;
	acc->cc.ncomp += sent;
	return sent;
}

/* The posted descriptors (up to a burst) and their completion slots. */
static inline void
tally_model_tx_prefetch(const struct tally_model_queue *q)
{
	const struct tally_tx_desc *ring = q->ring;
	const struct tally_tx_cqe *cq = q->cq;
	uint32_t k, n = TALLY_MIN(q->prod - q->head, (uint32_t)TALLY_MODEL_BURST);

	n = TALLY_MIN(n, q->mask + 1);
	for (k = 0; k < n; k += 4) {
		__builtin_prefetch(&ring[(q->head + k) & q->mask]);
		if ((k & 7) == 0)
			tally_prefetch_w(&cq[(q->head + k) & q->mask]);
	}
}

unsigned int
tally_model_tx_queue(struct tally_model *m, struct tally_model_queue *q)
{
	struct tally_tx_desc d[TALLY_TX_MAX_SEGS];
	struct tally_model_tx_acc acc;
	struct tally_model_tx_held *h;
	unsigned int frames = 0, k;
	const uint32_t head0 = q->head;
	uint32_t avail;
	int32_t n;
	bool eop, busy;

	uint32_t ctrl = tally_model_bar_rd(m, TALLY_REG_CTRL);
	/* frames meet the switch: one at a time, through tx_buf */
	const bool sw = tally_model_sw_on(m);
	/* link down or the switch: every frame takes the general path */
	const bool fast = !(ctrl & TALLY_CTRL_LINK_DOWN) && !sw;

	if (!q->en || !(ctrl & TALLY_CTRL_ENABLE))
		return 0;
	if (!sw)	/* a busy frame's lookup is the switch's only while it is on */
		q->tx_sw_own = false;
	acc.pkts = acc.bytes = 0;
	q->tx_unwritten = head0;
	tally_model_ccnt_begin(m, q, &acc.cc);
	tally_model_tx_prefetch(q);
	while ((avail = q->prod - q->head) != 0) {
		if (avail > q->mask + 1)
			avail = q->mask + 1;	/* producer ran past the ring */
		if (fast && !q->tx_skip && m->wire->tx_burst != NULL) {
			k = tally_model_tx_fast_burst(m, q, avail, &acc, &busy);
			frames += k;
			if (busy)
				break;	/* wire busy: retried by a later step */
			if (k != 0)
				continue;
		} else if (fast && !q->tx_skip && tally_model_tx_fast(m, q, &acc)) {
			frames++;
			continue;
		}
		if (q->tx_skip) {
			eop = tally_model_tx_desc(q, q->head).flags & TALLY_TXD_F_EOP;
			tally_model_tx_complete(m, q, 1, 0, TALLY_TXC_ERR_DESC, &acc);
			q->tx_skip = !eop;
			continue;
		}
		n = tally_model_tx_extent(q, avail, d);
		if (n == 0)
			break;		/* EOP not posted yet */
		if (n < 0) {
			tally_model_fault(m, TALLY_FAULT_BAD_DESC, d[0].addr);
			tally_model_qstat_add(m, q, TALLY_Q_STAT_ERRORS, 1);
			tally_model_tx_complete(m, q, (uint32_t)-n, 0, TALLY_TXC_ERR_DESC,
						&acc);
			q->tx_skip = true;
			continue;
		}
		if (!tally_model_tx_frame(m, q, d, (uint32_t)n, sw, &acc))
			break;		/* wire busy: retried by a later step */
		frames++;
	}
	if (acc.pkts != 0) {
		tally_model_stat_add(m, TALLY_STAT_TX_PKTS, acc.pkts);
		tally_model_stat_add(m, TALLY_STAT_TX_BYTES, acc.bytes);
		tally_model_qstat_add(m, q, TALLY_Q_STAT_PKTS, acc.pkts);
		tally_model_qstat_add(m, q, TALLY_Q_STAT_BYTES, acc.bytes);
	}
	if (m->tx_ref && q->head != head0) {
		/* one call per queue and step: published by the step */
		h = &m->tx_held[m->tx_nheld++];
		h->q = q;
		h->from = head0;
		h->unwritten = q->tx_unwritten;
		h->cc = acc.cc;
		return frames;
	}
	tally_model_ccnt_end(&acc.cc);
	tally_model_bar_wr(m, tally_model_q_reg(q, TALLY_Q_HEAD), q->head);
	return frames;
}

/* The held completions, in ring order per queue (a run of one lap at a
 * time shares its phase): the phases of those written, then the unwritten
 * ones whole; then what counts them. */
void
tally_model_tx_publish(struct tally_model *m)
{
	struct tally_model_tx_held *h;
	struct tally_model_queue *q;
	struct tally_tx_cqe *cq;
	uint32_t i, idx, s, j, end, mask;
	uint8_t ph;

	for (i = 0; i < m->tx_nheld; i++) {
		h = &m->tx_held[i];
		q = h->q;
		/* in locals: the release stores keep the compiler from caching */
		cq = q->cq;
		mask = q->mask;
		for (idx = h->from; idx != h->unwritten; idx += end - s) {
			ph = tally_model_phase(q, idx);
			s = idx & mask;
			end = s + TALLY_MIN(h->unwritten - idx, mask + 1 - s);
			/* pairs with the driver's acquire load of phase */
			for (j = s; j < end; j++)
				__atomic_store_n(&cq[j].phase, ph, __ATOMIC_RELEASE);
		}
		tally_model_tx_cqe_run(q, h->unwritten, q->head, true);
		tally_model_ccnt_end(&h->cc);
		tally_model_bar_wr(m, tally_model_q_reg(q, TALLY_Q_HEAD), q->head);
	}
	m->tx_nheld = 0;
}
