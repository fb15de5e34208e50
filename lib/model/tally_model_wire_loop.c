/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Loop wire: Tx frames come back as Rx frames. Sent frames wait in a bounded
 * FIFO inside the model and are delivered by a later wire poll, never from
 * the Tx path (no recursion). A full FIFO is busy (-EAGAIN): the device
 * keeps the frame posted until a step has delivered some of the FIFO.
 *
 * The FIFO is a compact byte ring: each frame starts on a 64-byte boundary
 * right after the previous one, a frame that does not fit before the end of
 * the buffer starts again at offset 0, and an empty FIFO starts over at 0.
 * The frames in flight therefore share a few cache lines and pages instead
 * of one max_frame slot each. It is full when TALLY_WIRE_LOOP_DEPTH frames
 * wait or when the next frame finds no contiguous room.
 *
 * By reference (tx_ref_room/tx_ref_put, used by tally_model.c's step
 * only): while the ring is empty, up to a burst of frames may stay in the
 * sender's buffers: the wire records where they are instead of copying them. They are the
 * FIFO's frames as long as any of them waits, so the ring (empty before the
 * first) never holds an older frame than a reference: any other way in (the
 * copying ops, or a frame that does not fit the references' budget) first
 * settles them, i.e. copies them into the ring, in order. tx_settle() does
 * the same; the step calls it after its Rx, before the sender may reuse its
 * buffers. The references are few and short enough to fit an empty ring
 * (a burst of frames up to 2 KiB), so settling always fits, and the wire
 * takes or refuses every frame as it would when copying.
 */
#include <string.h>

#include "tally_model_priv.h"

#define TALLY_WIRE_LOOP_DEPTH	1024	/* frames */
#define TALLY_WIRE_LOOP_ALIGN	64	/* bytes: each frame starts on a line */
#define TALLY_WIRE_LOOP_BYTES	(TALLY_WIRE_LOOP_DEPTH * 128)	/* ring bytes */
#define TALLY_WIRE_LOOP_REF_MAX	2048	/* bytes: longest frame by reference */
_Static_assert(TALLY_WIRE_LOOP_BYTES >= 4 * TALLY_MODEL_WIRE_BUF,
	       "the loop wire holds several frames of any valid length");
_Static_assert(TALLY_MODEL_BURST * TALLY_WIRE_LOOP_REF_MAX <= TALLY_WIRE_LOOP_BYTES &&
	       TALLY_MODEL_BURST <= TALLY_WIRE_LOOP_DEPTH &&
	       TALLY_WIRE_LOOP_REF_MAX % TALLY_WIRE_LOOP_ALIGN == 0,
	       "a burst of frames by reference always fits the empty ring");

struct tally_wire_loop {
	uint32_t head;		/* frame index of the next frame to deliver */
	uint32_t count;		/* frames waiting */
	uint32_t wr;		/* byte offset where the next frame may go */
	uint32_t slot;		/* byte offset handed out by tx_slot() */
	uint32_t max_frame;
	uint32_t off[TALLY_WIRE_LOOP_DEPTH];	/* byte offset of each frame */
	uint32_t len[TALLY_WIRE_LOOP_DEPTH];
	uint8_t *data;		/* TALLY_WIRE_LOOP_BYTES */
	/* frames by reference: ref[rhead..nref) wait (then the ring is empty) */
	uint32_t nref, rhead;
	uint32_t ref_max;	/* bytes: min(max_frame, TALLY_WIRE_LOOP_REF_MAX) */
	struct tally_model_rx_in ref[TALLY_MODEL_BURST];
};

static int
tally_wire_loop_open(struct tally_model *m, char *errbuf, size_t errlen)
{
	struct tally_wire_loop *l = tally_zmalloc(sizeof(*l));

	if (l != NULL) {
		l->max_frame = m->cfg.max_frame;
		l->ref_max = TALLY_MIN(l->max_frame, (uint32_t)TALLY_WIRE_LOOP_REF_MAX);
		l->data = tally_zmalloc_aligned(TALLY_WIRE_LOOP_BYTES,
						TALLY_WIRE_LOOP_ALIGN);
	}
	if (l == NULL || l->data == NULL) {
		if (l != NULL)
			tally_free(l->data);
		tally_free(l);
		tally_model_errf(errbuf, errlen, "wire=loop: out of memory");
		return -ENOMEM;
	}
	m->wire_priv = l;
	return 0;
}

static void
tally_wire_loop_close(struct tally_model *m)
{
	struct tally_wire_loop *l = m->wire_priv;

	if (l == NULL)
		return;
	tally_free(l->data);
	tally_free(l);
	m->wire_priv = NULL;
}

/* Byte offset for a frame of len bytes, or UINT32_MAX when there is no room.
 * The bytes in use run from the oldest frame's offset up to wr, wrapping. */
static uint32_t
tally_wire_loop_room(const struct tally_wire_loop *l, uint32_t len)
{
	uint32_t need = TALLY_ALIGN_UP(len, (uint32_t)TALLY_WIRE_LOOP_ALIGN);
	uint32_t rd;

	if (len == 0 || len > l->max_frame || l->count == TALLY_WIRE_LOOP_DEPTH)
		return UINT32_MAX;
	if (l->count == 0)
		return 0;
	rd = l->off[l->head];
	if (l->wr > rd) {
		if (need <= TALLY_WIRE_LOOP_BYTES - l->wr)
			return l->wr;
		return need <= rd ? 0 : UINT32_MAX;	/* wrap to the start */
	}
	/* wrapped (wr < rd), or exactly full (wr == rd) */
	return l->wr < rd && need <= rd - l->wr ? l->wr : UINT32_MAX;
}

static void tally_wire_loop_tx_settle(struct tally_model *m);

/* Frames waiting by reference are older than this one: into the ring first. */
static uint8_t *
tally_wire_loop_tx_slot(struct tally_model *m, uint32_t len)
{
	struct tally_wire_loop *l = m->wire_priv;
	uint32_t off;

	if (l->nref != 0)
		tally_wire_loop_tx_settle(m);
	off = tally_wire_loop_room(l, len);
	if (off == UINT32_MAX)
		return NULL;
	l->slot = off;
	return l->data + off;
}

static void
tally_wire_loop_tx_put(struct tally_model *m, uint32_t len)
{
	struct tally_wire_loop *l = m->wire_priv;
	uint32_t tail = (l->head + l->count) % TALLY_WIRE_LOOP_DEPTH;

	l->off[tail] = l->slot;
	l->len[tail] = len;
	l->wr = l->slot + TALLY_ALIGN_UP(len, (uint32_t)TALLY_WIRE_LOOP_ALIGN);
	l->count++;
}

/* tally_wire_loop_room() and tx_put() for each frame in turn, with the
 * ring's state in locals (the frame copies may alias anything): the oldest
 * frame, where the free bytes end, does not move during a burst. */
static unsigned int
tally_wire_loop_copy_burst(struct tally_model *m, const struct tally_model_rx_in *f,
			   unsigned int n)
{
	struct tally_wire_loop *l = m->wire_priv;
	uint32_t count = l->count, wr = l->wr, tail, rd, need, off, fl;
	const uint32_t max_frame = l->max_frame;
	uint32_t *const offs = l->off, *const lens = l->len;
	uint8_t *const data = l->data;
	unsigned int k;

	n = TALLY_MIN(n, TALLY_WIRE_LOOP_DEPTH - count);
	/* the free bytes end at the oldest frame (rd), or nowhere when empty */
	rd = count != 0 ? offs[l->head] : 0;
	tail = l->head + count;
	for (k = 0; k < n; k++) {
		fl = f[k].len;
		need = TALLY_ALIGN_UP(fl, (uint32_t)TALLY_WIRE_LOOP_ALIGN);
		if (fl - 1 >= max_frame)
			break;	/* 0 or over max_frame: not for this op */
		if (count == 0) {
			off = 0;	/* empty: start over at the first line */
			rd = 0;
		} else if (wr > rd) {
			if (need <= TALLY_WIRE_LOOP_BYTES - wr)
				off = wr;
			else if (need <= rd)
				off = 0;	/* wrap to the start */
			else
				break;
		} else if (wr < rd && need <= rd - wr) {
			off = wr;
		} else {
			break;		/* wrapped and full, or exactly full */
		}
		tally_model_copy(data + off, f[k].frame, fl);
		offs[tail % TALLY_WIRE_LOOP_DEPTH] = off;
		lens[tail % TALLY_WIRE_LOOP_DEPTH] = fl;
		wr = off + need;
		tail++;
		count++;
	}
	l->count = count;
	l->wr = wr;
	return k;
}

static unsigned int
tally_wire_loop_tx_burst(struct tally_model *m, const struct tally_model_rx_in *f,
			 unsigned int n)
{
	struct tally_wire_loop *l = m->wire_priv;

	if (l->nref != 0)
		tally_wire_loop_tx_settle(m);
	return tally_wire_loop_copy_burst(m, f, n);
}

/* Copy the frames waiting by reference into the ring (empty until then, and
 * they fit it: see tx_ref_room), in order; forget every reference. */
static void
tally_wire_loop_tx_settle(struct tally_model *m)
{
	struct tally_wire_loop *l = m->wire_priv;
	unsigned int n = l->nref - l->rhead;

	if (n != 0)
		tally_wire_loop_copy_burst(m, &l->ref[l->rhead], n);
	l->nref = l->rhead = 0;
}

/*
 * Room for frames by reference while the ring is empty and nothing waiting
 * by reference was delivered yet (a frame delivered before more are sent
 * leaves the layout to the ring): at most a burst of them, of at most
 * TALLY_WIRE_LOOP_REF_MAX bytes each, so that they always fit the empty
 * ring. Any other frame goes the copying way, which settles the references
 * first and takes or refuses it exactly as it would have without them.
 */
static struct tally_model_rx_in *
tally_wire_loop_tx_ref_room(struct tally_model *m, unsigned int *n, uint32_t *max_len)
{
	struct tally_wire_loop *l = m->wire_priv;

	if (l->count != 0 || l->rhead != 0 || l->nref == TALLY_MODEL_BURST)
		return NULL;
	*n = TALLY_MODEL_BURST - l->nref;
	*max_len = l->ref_max;
	return &l->ref[l->nref];
}

static void
tally_wire_loop_tx_ref_put(struct tally_model *m, unsigned int n)
{
	struct tally_wire_loop *l = m->wire_priv;

	l->nref += n;
}

static int
tally_wire_loop_tx(struct tally_model *m, const uint8_t *frame, uint32_t len)
{
	struct tally_wire_loop *l = m->wire_priv;
	uint8_t *p;

	if (len > l->max_frame)
		return -EMSGSIZE;
	if (len == 0)
		return -EINVAL;
	p = tally_wire_loop_tx_slot(m, len);
	if (p == NULL)
		return -EAGAIN;
	memcpy(p, frame, len);
	tally_wire_loop_tx_put(m, len);
	return 0;
}

static void
tally_wire_loop_rx_next(struct tally_model *m, uint32_t n)
{
	struct tally_wire_loop *l = m->wire_priv;

	if (l->nref != 0) {	/* then the ring is empty */
		l->rhead += TALLY_MIN(n, l->nref - l->rhead);
		if (l->rhead == l->nref)
			l->nref = l->rhead = 0;
		return;
	}
	if (n > l->count)
		n = l->count;
	l->head = (l->head + n) % TALLY_WIRE_LOOP_DEPTH;
	l->count -= n;
	if (l->count == 0)
		l->wr = 0;	/* empty: start over at the first line */
}

static int
tally_wire_loop_rx(struct tally_model *m, uint8_t *buf, uint32_t buflen,
		   uint32_t *caplen, uint32_t *len)
{
	struct tally_wire_loop *l = m->wire_priv;
	uint32_t n;

	if (l->nref != 0) {
		n = l->ref[l->rhead].len;
		*len = n;
		*caplen = TALLY_MIN(n, buflen);
		memcpy(buf, l->ref[l->rhead].frame, *caplen);
		tally_wire_loop_rx_next(m, 1);
		return 1;
	}
	if (l->count == 0)
		return 0;
	n = l->len[l->head];
	*len = n;
	*caplen = TALLY_MIN(n, buflen);
	memcpy(buf, l->data + l->off[l->head], *caplen);
	tally_wire_loop_rx_next(m, 1);
	return 1;
}

static int
tally_wire_loop_rx_peek(struct tally_model *m, uint32_t idx, const uint8_t **frame,
			uint32_t *caplen, uint32_t *len)
{
	struct tally_wire_loop *l = m->wire_priv;
	uint32_t i = (l->head + idx) % TALLY_WIRE_LOOP_DEPTH;

	if (l->nref != 0) {
		if (idx >= l->nref - l->rhead)
			return 0;
		*frame = l->ref[l->rhead + idx].frame;
		*len = l->ref[l->rhead + idx].len;
		*caplen = *len;
		return 1;
	}
	if (idx >= l->count)
		return 0;
	*frame = l->data + l->off[i];
	*len = l->len[i];
	*caplen = *len;
	return 1;
}

static unsigned int
tally_wire_loop_rx_peek_burst(struct tally_model *m, struct tally_model_rx_in *in,
			      unsigned int max)
{
	struct tally_wire_loop *l = m->wire_priv;
	unsigned int k, n = TALLY_MIN(max, l->count);
	uint32_t i;

	if (l->nref != 0) {
		n = TALLY_MIN(max, l->nref - l->rhead);
		memcpy(in, &l->ref[l->rhead], n * sizeof(*in));
		return n;
	}
	for (k = 0; k < n; k++) {
		i = (l->head + k) % TALLY_WIRE_LOOP_DEPTH;
		in[k].frame = l->data + l->off[i];
		in[k].len = l->len[i];
		in[k].caplen = in[k].len;
	}
	return n;
}

static int
tally_wire_loop_eof(struct tally_model *m)
{
	return 0;
}

const struct tally_wire_ops tally_wire_loop_ops = {
	.name = "loop",
	.open = tally_wire_loop_open,
	.close = tally_wire_loop_close,
	.tx = tally_wire_loop_tx,
	.rx = tally_wire_loop_rx,
	.eof = tally_wire_loop_eof,
	.rx_peek = tally_wire_loop_rx_peek,
	.rx_next = tally_wire_loop_rx_next,
	.rx_peek_burst = tally_wire_loop_rx_peek_burst,
	.tx_slot = tally_wire_loop_tx_slot,
	.tx_put = tally_wire_loop_tx_put,
	.tx_burst = tally_wire_loop_tx_burst,
	.tx_ref_room = tally_wire_loop_tx_ref_room,
	.tx_ref_put = tally_wire_loop_tx_ref_put,
	.tx_settle = tally_wire_loop_tx_settle,
};
