/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The switch stage (spec 2.3), ahead of a port's receive pipeline, under
 * the device's one lock.
 *
 * With port 0's SW_CTRL.EN clear, a burst from port i's wire goes straight
 * to port i's receive pipeline (tally_model_rx_burst()): the switch costs a
 * register load. With it set: every frame of a valid length is parsed with
 * misc.source_port = i and the burst is classified over the switch tables
 * (tally_model_switch_classify_burst(), port 0's cache, counters and
 * faults). Then, in burst order, a frame the switch leaves alone (miss, no
 * fate, or a length port i's pipeline drops and counts) goes on to port i's
 * pipeline with its neighbours as one burst; a frame it takes is counted in
 * port i's RX_WIRE_PKTS and dropped (SW_DROP), put on a port's wire
 * (SW_TO_WIRE; that port counts it in TX_PKTS/TX_BYTES) or handed to a
 * port's pipeline from the MAC filter on (SW_TO_HOST), edited first when an
 * action set says so. Frames a port takes stay in order with the frames
 * before and after them on every destination.
 *
 * A destination port that is destroyed, not enabled or without link, a
 * wire that refuses the frame (busy included: the switch keeps nothing),
 * and a frame longer than the destination's MAX_FRAME (after a push, or
 * from a port that takes longer frames) are dropped (SW_DROP of port i).
 *
 * Frames port i's host transmits (tally_model_sw_tx(), from the Tx
 * pipeline, one at a time, only with SW_CTRL.EN set) meet the same tables
 * with misc.source_port = i | TALLY_SOURCE_PORT_HOST; what the switch leaves
 * alone goes on to port i's wire, an action set without a destination sends
 * the edited frame there too, the rest as above. What the switch sends never
 * meets the switch again in that step (a wire is an exit, a pipeline only
 * receives), so a host frame sent to its own port's pipeline is simply
 * received there, once.
 */
#include <string.h>

#include "tally_model_priv.h"

#define SW_ETH_HLEN	14
#define SW_VLAN_HLEN	4
#define SW_TPID_C	0x8100
#define SW_TPID_S	0x88a8

/* What the switch did with one burst of port i: its statistics. */
struct sw_acc {
	uint64_t wire, to_wire, to_host, drop;
};

/* Whether the frame has an outer tag the edits know (0x8100, 0x88a8). */
static bool
sw_tagged(const uint8_t *f, uint32_t len)
{
	uint16_t tpid;

	if (len < SW_ETH_HLEN + SW_VLAN_HLEN)
		return false;
	tpid = (uint16_t)(f[12] << 8 | f[13]);
	return tpid == SW_TPID_C || tpid == SW_TPID_S;
}

/* The frame edited per a's order (pop, push, VID/PCP, MACs) into buf; its
 * new length, or 0 when a push makes it longer than max. */
static uint32_t
sw_edit(uint8_t *buf, const uint8_t *f, uint32_t len,
	const struct tally_steer_swact *a, uint32_t max)
{
	uint16_t tci;

	memcpy(buf, f, len);
	if ((a->flags & TALLY_SWACT_POP_VLAN) && sw_tagged(buf, len)) {
		memmove(buf + 12, buf + 12 + SW_VLAN_HLEN, len - 12 - SW_VLAN_HLEN);
		len -= SW_VLAN_HLEN;
	}
	if (a->flags & TALLY_SWACT_PUSH_VLAN) {
		if (len + SW_VLAN_HLEN > max)
			return 0;
		memmove(buf + 12 + SW_VLAN_HLEN, buf + 12, len - 12);
		buf[12] = (uint8_t)(a->vlan_tpid >> 8);
		buf[13] = (uint8_t)a->vlan_tpid;
		buf[14] = (uint8_t)(a->vlan_tci >> 8);
		buf[15] = (uint8_t)a->vlan_tci;
		len += SW_VLAN_HLEN;
	}
	if ((a->flags & (TALLY_SWACT_SET_VID | TALLY_SWACT_SET_PCP)) && sw_tagged(buf, len)) {
		tci = (uint16_t)(buf[14] << 8 | buf[15]);
		if (a->flags & TALLY_SWACT_SET_VID)
			tci = (uint16_t)((tci & ~0x0fffu) | (a->vlan_tci & 0x0fffu));
		if (a->flags & TALLY_SWACT_SET_PCP)
			tci = (uint16_t)((tci & ~0xe000u) | (a->vlan_tci & 0xe000u));
		buf[14] = (uint8_t)(tci >> 8);
		buf[15] = (uint8_t)tci;
	}
	if (a->flags & TALLY_SWACT_SET_SMAC)
		memcpy(buf + 6, a->smac, 6);
	if (a->flags & TALLY_SWACT_SET_DMAC)
		memcpy(buf, a->dmac, 6);
	return len;
}

/* A port that takes frames now: enabled, with its link up. */
static bool
sw_port_up(const struct tally_model *d)
{
	return d != NULL &&
	       (tally_model_bar_rd(d, TALLY_REG_CTRL) & TALLY_CTRL_ENABLE) &&
	       (tally_model_bar_rd(d, TALLY_REG_STATUS) & TALLY_STATUS_LINK_UP);
}

/* One frame of port m the switch took, per its verdict; src is its
 * source_port: from m's wire (m's index) or from m's host (with
 * TALLY_SOURCE_PORT_HOST). Without a destination it goes where it was going:
 * a wire frame to m's receive pipeline, a host frame to m's wire. Nothing
 * the switch sends enters the switch again. */
static void
sw_take(struct tally_model *m, const uint8_t *f, uint32_t len, uint32_t src,
	const struct tally_model_verdict *v, struct sw_acc *acc)
{
	struct tally_model_sw *sw = m->sw;
	uint32_t j = m->port;
	bool host = !(src & TALLY_SOURCE_PORT_HOST);
	struct tally_model *d;

	if (v->flags & TALLY_VERDICT_DROP) {
		acc->drop++;
		return;
	}
	if (v->flags & TALLY_VERDICT_PORT) {
		j = TALLY_FIELD_GET(v->port, TALLY_STEER_PORT_M);
		host = (v->port & TALLY_STEER_PORT_HOST) != 0;
	}
	d = j < sw->n ? sw->port[j] : NULL;
	if (!sw_port_up(d)) {
		acc->drop++;
		return;
	}
	if (v->flags & TALLY_VERDICT_SWACT) {
		len = sw_edit(sw->edit, f, len, &v->swact, d->cfg.max_frame);
		f = sw->edit;
	}
	/* a push made it too long, or the destination takes shorter frames
	 * than the source (its wire and its Rx path stop at its MAX_FRAME) */
	if (len == 0 || len > d->cfg.max_frame) {
		acc->drop++;
		return;
	}
	if (host) {
		tally_model_rx_switched(d, f, len, src);
		acc->to_host++;
		return;
	}
	if (d->wire->tx(d, f, len) != 0) {
		acc->drop++;
		return;
	}
	tally_model_stat_add(d, TALLY_STAT_TX_PKTS, 1);
	tally_model_stat_add(d, TALLY_STAT_TX_BYTES, len);
	acc->to_wire++;
}

static void
sw_acc_flush(struct tally_model *m, const struct sw_acc *acc)
{
	if (acc->wire != 0)
		tally_model_stat_add(m, TALLY_STAT_RX_WIRE_PKTS, acc->wire);
	if (acc->to_wire != 0)
		tally_model_stat_add(m, TALLY_STAT_SW_TO_WIRE, acc->to_wire);
	if (acc->to_host != 0)
		tally_model_stat_add(m, TALLY_STAT_SW_TO_HOST, acc->to_host);
	if (acc->drop != 0)
		tally_model_stat_add(m, TALLY_STAT_SW_DROP, acc->drop);
}

/* Frame f parsed into the switch's slot np, with misc.source_port = src. */
static const struct tally_model_pkt *
sw_parse(struct tally_model_sw *sw, unsigned int np, const uint8_t *f, uint32_t len,
	 uint32_t src)
{
	struct tally_model_pkt *pkt = &sw->pkts[np];
	uint8_t *k;

	tally_model_parse_reuse(f, len, pkt, &sw->dirty[np]);
	if (src != 0) {	/* 0 is the parse's */
		k = pkt->key.b + TALLY_MS_OFF(TALLY_MS_MISC) + TALLY_MISC_SOURCE_PORT;
		k[0] = (uint8_t)(src >> 8);
		k[1] = (uint8_t)src;
		sw->dirty[np] |= TALLY_PARSE_SEC(TALLY_MS_MISC);
	}
	return pkt;
}

/* The switch stage for n (<= TALLY_MODEL_BURST) frames of m's wire. */
static void
sw_stage(struct tally_model *m, const struct tally_model_rx_in *in, unsigned int n)
{
	struct tally_model_sw *sw = m->sw;
	const struct tally_model_pkt *pp[TALLY_MODEL_BURST];
	struct tally_model_verdict v[TALLY_MODEL_BURST];
	int16_t vi[TALLY_MODEL_BURST];
	const uint64_t max_len = TALLY_MIN((uint64_t)m->cfg.max_frame,
					   (uint64_t)tally_model_bar_rd(m, TALLY_REG_MTU) +
					   TALLY_MODEL_L2_OVERHEAD);
	struct sw_acc acc = { 0, 0, 0, 0 };
	unsigned int i, np = 0, run = 0;

	for (i = 0; i < n; i++) {
		vi[i] = -1;
		/* a length the pipeline drops: it counts it there */
		if (in[i].len < SW_ETH_HLEN || in[i].len > max_len || in[i].caplen < in[i].len)
			continue;
		pp[np] = sw_parse(sw, np, in[i].frame, in[i].len, m->port);
		vi[i] = (int16_t)np++;
	}
	if (np != 0)
		tally_model_switch_classify_burst(sw->port[0], pp, np, v);
	for (i = 0; i < n; i++) {
		if (vi[i] < 0 || !(v[vi[i]].flags & (TALLY_VERDICT_DROP | TALLY_VERDICT_PORT |
						     TALLY_VERDICT_SWACT)))
			continue;	/* stays with the run for m's pipeline */
		if (run < i)
			tally_model_rx_burst(m, in + run, i - run);
		run = i + 1;
		acc.wire++;
		sw_take(m, in[i].frame, in[i].len, m->port, &v[vi[i]], &acc);
	}
	if (run < n)
		tally_model_rx_burst(m, in + run, n - run);
	sw_acc_flush(m, &acc);
}

void
tally_model_sw_burst(struct tally_model *m, const struct tally_model_rx_in *in,
		     unsigned int n)
{
	if (n > TALLY_MODEL_BURST)
		n = TALLY_MODEL_BURST;
	if (!tally_model_sw_on(m))
		tally_model_rx_burst(m, in, n);
	else if (n != 0)
		sw_stage(m, in, n);
}

bool
tally_model_sw_tx(struct tally_model *m, const uint8_t *frame, uint32_t len)
{
	const uint32_t src = m->port | TALLY_SOURCE_PORT_HOST;
	const struct tally_model_pkt *pp[1];
	struct sw_acc acc = { 0, 0, 0, 0 };
	struct tally_model_verdict v;

	if (len < SW_ETH_HLEN)
		return false;
	pp[0] = sw_parse(m->sw, 0, frame, len, src);
	tally_model_switch_classify_burst(m->sw->port[0], pp, 1, &v);
	if (!(v.flags & (TALLY_VERDICT_DROP | TALLY_VERDICT_PORT | TALLY_VERDICT_SWACT)))
		return false;
	sw_take(m, frame, len, src, &v, &acc);
	sw_acc_flush(m, &acc);
	return true;
}

void
tally_model_sw_free(struct tally_model_sw *sw)
{
	tally_model_cls_free_sw(sw);
	if (sw->bar_own)
		tally_free(sw->bar);
	tally_free(sw->edit);
	tally_free(sw->pkts);
	tally_free(sw);
}
