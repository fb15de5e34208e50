/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Loop wire: Tx frames come back as Rx frames. Sent frames wait in a bounded
 * FIFO inside the model and are delivered by a later wire poll, never from
 * the Tx path (no recursion). A full FIFO is busy (-EAGAIN): the device
 * keeps the frame posted until a step has delivered some of the FIFO.
 */
#include <string.h>

#include "tally_model_priv.h"

#define TALLY_WIRE_LOOP_DEPTH	1024

struct tally_wire_loop {
	uint32_t head;		/* next slot to deliver */
	uint32_t count;
	uint32_t slot_len;
	uint32_t len[TALLY_WIRE_LOOP_DEPTH];
	uint8_t *data;		/* DEPTH slots of slot_len bytes */
};

static int
tally_wire_loop_open(struct tally_model *m, char *errbuf, size_t errlen)
{
	struct tally_wire_loop *l = tally_zmalloc(sizeof(*l));

	if (l != NULL) {
		l->slot_len = m->cfg.max_frame;
		l->data = tally_zmalloc((size_t)TALLY_WIRE_LOOP_DEPTH * l->slot_len);
	}
	if (l == NULL || l->data == NULL) {
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

static int
tally_wire_loop_tx(struct tally_model *m, const uint8_t *frame, uint32_t len)
{
	struct tally_wire_loop *l = m->wire_priv;
	uint32_t slot;

	if (len > l->slot_len)
		return -EMSGSIZE;
	if (l->count == TALLY_WIRE_LOOP_DEPTH)
		return -EAGAIN;
	slot = (l->head + l->count) % TALLY_WIRE_LOOP_DEPTH;
	memcpy(l->data + (size_t)slot * l->slot_len, frame, len);
	l->len[slot] = len;
	l->count++;
	return 0;
}

static int
tally_wire_loop_rx(struct tally_model *m, uint8_t *buf, uint32_t buflen,
		   uint32_t *caplen, uint32_t *len)
{
	struct tally_wire_loop *l = m->wire_priv;
	uint32_t n;

	if (l->count == 0)
		return 0;
	n = l->len[l->head];
	*len = n;
	*caplen = TALLY_MIN(n, buflen);
	memcpy(buf, l->data + (size_t)l->head * l->slot_len, *caplen);
	l->head = (l->head + 1) % TALLY_WIRE_LOOP_DEPTH;
	l->count--;
	return 1;
}

static int
tally_wire_loop_rx_peek(struct tally_model *m, uint32_t idx, const uint8_t **frame,
			uint32_t *caplen, uint32_t *len)
{
	struct tally_wire_loop *l = m->wire_priv;
	uint32_t slot = (l->head + idx) % TALLY_WIRE_LOOP_DEPTH;

	if (idx >= l->count)
		return 0;
	*frame = l->data + (size_t)slot * l->slot_len;
	*len = l->len[slot];
	*caplen = *len;
	return 1;
}

static void
tally_wire_loop_rx_next(struct tally_model *m, uint32_t n)
{
	struct tally_wire_loop *l = m->wire_priv;

	l->head = (l->head + n) % TALLY_WIRE_LOOP_DEPTH;
	l->count -= n;
}

static uint8_t *
tally_wire_loop_tx_slot(struct tally_model *m)
{
	struct tally_wire_loop *l = m->wire_priv;

	if (l->count == TALLY_WIRE_LOOP_DEPTH)
		return NULL;
	return l->data + (size_t)((l->head + l->count) % TALLY_WIRE_LOOP_DEPTH) *
			 l->slot_len;
}

static void
tally_wire_loop_tx_put(struct tally_model *m, uint32_t len)
{
	struct tally_wire_loop *l = m->wire_priv;

	l->len[(l->head + l->count) % TALLY_WIRE_LOOP_DEPTH] = len;
	l->count++;
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
	.tx_slot = tally_wire_loop_tx_slot,
	.tx_put = tally_wire_loop_tx_put,
};
