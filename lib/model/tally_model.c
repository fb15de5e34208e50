/* SPDX-License-Identifier: BSD-3-Clause */
/* Model life cycle, the tally_io transport, the device step and its thread. */
#include <sched.h>
#include <string.h>
#include <time.h>

#include "tally_model_priv.h"

#define TALLY_MODEL_SPIN_POLLS	4096	/* empty steps spun through, then yield */
#define TALLY_MODEL_YIELD_POLLS	8192	/* empty steps with a yield, then sleep */
#define TALLY_MODEL_IDLE_PAUSES	16	/* pauses between two empty steps */
#define TALLY_MODEL_IDLE_NS	20000	/* thread sleep once idle for long */
#define TALLY_MODEL_POLLED_NS	2000000	/* thread steps when nobody polled this long */

static const struct tally_wire_ops *const tally_model_wires[] = {
	[TALLY_WIRE_LOOP] = &tally_wire_loop_ops,
	[TALLY_WIRE_PCAP] = &tally_wire_pcap_ops,
	[TALLY_WIRE_IF] = &tally_wire_if_ops,
	[TALLY_WIRE_GEN] = &tally_wire_gen_ops,
	[TALLY_WIRE_NONE] = &tally_wire_none_ops,
};

/*
 * The Tx queues of a step, round robin from tx_next (a queue that fills a
 * busy wire does not starve the next): only those a doorbell may have given
 * work (m->tx_pending, set by the doorbell write); a queue leaves the set
 * when it has nothing posted left (or is disabled: enabling it again starts
 * it empty).
 */
static unsigned int
tally_model_step_tx(struct tally_model *m)
{
	const uint32_t nq = m->cfg.tx_queues, start = m->tx_next;
	uint32_t pend = m->tx_pending & (uint32_t)((1ull << nq) - 1), rot, qi;
	struct tally_model_queue *q;
	unsigned int frames = 0;

	/* the pending queues in the order start, start + 1, ... (mod nq) */
	rot = ((pend >> start) | (uint32_t)((uint64_t)pend << (nq - start))) &
	      (uint32_t)((1ull << nq) - 1);
	while (rot != 0) {
		qi = start + (uint32_t)__builtin_ctz(rot);
		rot &= rot - 1;
		if (qi >= nq)
			qi -= nq;
		q = &m->txq[qi];
		if (q->en && q->prod != q->head)
			frames += tally_model_tx_queue(m, q);
		if (!q->en || q->prod == q->head)
			pend &= ~(1u << qi);
	}
	m->tx_pending = pend;
	return frames;
}

/*
 * One step: the Tx queues (round robin), then up to a burst of frames from
 * the wire. When Rx runs in this step and the wire can hold frames by
 * reference (the loop wire), Tx hands it the frames in the driver's buffers
 * instead of copies, and holds their completions: a completion may not reach
 * the driver (other lcores, the model thread's peers) while the wire still
 * reads its buffer. Rx then copies the frames it takes straight from those
 * buffers (one copy per frame instead of two), the wire copies the ones left
 * (more than a burst, or fewer taken) into its own ring, and only then are
 * the held completions published, all before the lock is released. A frame
 * Rx drops (no descriptor, filtered) simply stops being referenced. With
 * the switch on (SW_CTRL.EN), Tx hands the wire no frame by reference: each
 * frame is gathered into a copy and meets the switch first (tally_model_tx.c).
 */
static unsigned int
tally_model_step_locked(struct tally_model *m)
{
	unsigned int frames = 0, i;
	struct tally_model_rx_in in[TALLY_MODEL_BURST];
	uint32_t caplen, len;
	/* the wire keeps its frames until the port runs with its link up */
	const bool rx = (tally_model_bar_rd(m, TALLY_REG_CTRL) &
			 (TALLY_CTRL_ENABLE | TALLY_CTRL_LINK_DOWN)) == TALLY_CTRL_ENABLE &&
			!__atomic_load_n(&m->wire_held, __ATOMIC_ACQUIRE);

	if (m->cfg.mbox)	/* other processes' doorbells first */
		frames += tally_model_mbox_poll_locked(m);
	if (m->wire->carrier != NULL)
		tally_model_carrier_poll(m, false);
	m->tx_ref = rx && m->wire->tx_settle != NULL;
	if (m->tx_pending != 0)
		frames += tally_model_step_tx(m);
	m->tx_next = m->tx_next + 1 < m->cfg.tx_queues ? m->tx_next + 1 : 0;
	if (!rx)
		return frames;
	if (m->wire->rx_peek_burst != NULL) {
		i = m->wire->rx_peek_burst(m, in, TALLY_MODEL_BURST);
		if (i != 0) {
			tally_model_sw_burst(m, in, i);
			m->wire->rx_next(m, i);
		}
		frames += i;
	} else if (m->wire->rx_peek != NULL) {
		for (i = 0; i < TALLY_MODEL_BURST; i++)
			if (m->wire->rx_peek(m, i, &in[i].frame, &in[i].caplen,
					     &in[i].len) <= 0)
				break;
		if (i != 0) {
			tally_model_sw_burst(m, in, i);
			m->wire->rx_next(m, i);
		}
		frames += i;
	} else {
		for (i = 0; i < TALLY_MODEL_BURST; i++) {
			if (m->wire->rx(m, m->rx_buf, TALLY_MODEL_WIRE_BUF, &caplen,
					&len) <= 0)
				break;
			in[0].frame = m->rx_buf;
			in[0].caplen = caplen;
			in[0].len = len;
			tally_model_sw_burst(m, in, 1);
			frames++;
		}
	}
	if (m->tx_ref) {
		m->wire->tx_settle(m);
		tally_model_tx_publish(m);
		m->tx_ref = false;
	}
	return frames;
}

unsigned int
tally_model_step(struct tally_model *m)
{
	unsigned int n;

	tally_model_lock(m);
	n = tally_model_step_locked(m);
	tally_model_unlock(m);
	return n;
}

/*
 * The device thread. While an application polls the port, the burst
 * functions step the device themselves (see tally_model_service()) and mark
 * `svc_active`; the thread then stays out of their way (asleep, a quarter
 * of TALLY_MODEL_POLLED_NS at a time, so it neither spins on the line the
 * polling core writes nor wakes up often) until nobody polled for
 * TALLY_MODEL_POLLED_NS: stepping as well would only make the
 * forwarding core wait for the lock behind a thread that may be preempted
 * on a busy CPU. When nobody polls (an application that posts and waits, a
 * pause in the traffic), the thread steps the device: it spins while steps
 * move frames (taking the lock only when it is free: it never queues behind
 * the burst functions); empty steps are spaced by a few pauses, after
 * TALLY_MODEL_SPIN_POLLS of them it yields, after TALLY_MODEL_YIELD_POLLS
 * it sleeps TALLY_MODEL_IDLE_NS at a time until a step moves frames again.
 */
static void *
tally_model_thread(void *arg)
{
	struct tally_model *m = arg;
	struct timespec idle_ts = { 0, TALLY_MODEL_IDLE_NS };
	struct timespec polled_ts = { 0, TALLY_MODEL_POLLED_NS / 4 };
	unsigned int idle = 0, i, n;
	uint64_t polled = 0, now;

	while (!__atomic_load_n(&m->stop, __ATOMIC_ACQUIRE)) {
		now = tally_time_ns();
		if (__atomic_load_n(&m->svc_active, __ATOMIC_RELAXED)) {
			__atomic_store_n(&m->svc_active, 0, __ATOMIC_RELAXED);
			polled = now;
		}
		if (now - polled >= TALLY_MODEL_POLLED_NS && tally_model_trylock(m)) {
			n = tally_model_step_locked(m);
			tally_model_unlock(m);
			if (n != 0) {
				idle = 0;
				continue;
			}
		}
		if (now - polled < TALLY_MODEL_POLLED_NS) {
			/* someone polls and steps the device: nothing to do
			 * but notice when that stops, so no spinning on the
			 * line the polling core writes */
			idle = TALLY_MODEL_YIELD_POLLS;
			nanosleep(&polled_ts, NULL);
			continue;
		}
		if (++idle < TALLY_MODEL_SPIN_POLLS) {
			for (i = 0; i < TALLY_MODEL_IDLE_PAUSES; i++)
				tally_cpu_relax();
			continue;
		}
		if (idle < TALLY_MODEL_YIELD_POLLS) {
			sched_yield();
			continue;
		}
		idle = TALLY_MODEL_YIELD_POLLS;
		nanosleep(&idle_ts, NULL);
	}
	return NULL;
}

int
tally_model_inject(struct tally_model *m, const uint8_t *frame, uint32_t len)
{
	int rc = 0;

	if (m == NULL || (frame == NULL && len != 0))
		return -EINVAL;
	tally_model_lock(m);
	if ((tally_model_bar_rd(m, TALLY_REG_CTRL) &
	     (TALLY_CTRL_ENABLE | TALLY_CTRL_LINK_DOWN)) == TALLY_CTRL_ENABLE) {
		struct tally_model_rx_in in = { frame, len, len };

		tally_model_sw_burst(m, &in, 1);
	} else
		rc = -ENETDOWN;
	tally_model_unlock(m);
	return rc;
}

void
tally_model_hold_wire(struct tally_model *m, int hold)
{
	__atomic_store_n(&m->wire_held, hold != 0, __ATOMIC_RELEASE);
}

int
tally_model_wire_eof(struct tally_model *m)
{
	int eof;

	tally_model_lock(m);
	eof = m->wire->eof(m) != 0;
	tally_model_unlock(m);
	return eof;
}

/*
 * The caller's thread lends the device a step, in both modes. In thread
 * mode it also tells the thread that someone polls (a store, never a load:
 * the polling core does not wait for the line the thread last wrote).
 * Waiting for a step the thread has in progress (rather than skipping it)
 * is what guarantees progress when the thread was preempted inside its
 * step.
 */
static unsigned int
tally_model_service(void *ctx)
{
	struct tally_model *m = ctx;

	if (m->thread_started)
		__atomic_store_n(&m->svc_active, 1, __ATOMIC_RELAXED);
	return tally_model_step(m);
}

static const struct tally_io_ops tally_model_io_ops = {
	.name = "model",
	.read32 = tally_model_read32,
	.write32 = tally_model_write32,
	.service = tally_model_service,
};

void
tally_model_io(struct tally_model *m, struct tally_io *io)
{
	io->ops = &tally_model_io_ops;
	io->ctx = m;
	io->bar = m->bar;
	io->bar_len = m->bar_len;
}

static void
tally_model_free(struct tally_model *m)
{
	if (m->wire != NULL)
		m->wire->close(m);
	tally_model_xlt_free(m);
	tally_model_cls_free(m);
	tally_free(m->rx_buf);
	tally_free(m->tx_buf);
	tally_free(m->rx_pkts);
	tally_free(m->pcap_rx);
	tally_free(m->pcap_tx);
	tally_free(m->iface);
	tally_free(m);
}

static char *
tally_model_strdup(const char *s, bool *fail)
{
	char *d;

	if (s == NULL)
		return NULL;
	d = tally_zmalloc(strlen(s) + 1);
	if (d == NULL)
		*fail = true;
	else
		memcpy(d, s, strlen(s) + 1);
	return d;
}

size_t
tally_model_bar_size(const struct tally_model_config *cfg)
{
	uint64_t len;

	len = TALLY_ALIGN_UP((uint64_t)TALLY_CNT_BANK_OFF +
			     (uint64_t)cfg->counters * sizeof(struct tally_cnt_entry),
			     (uint64_t)4096);
	len = TALLY_ALIGN_UP(len + (uint64_t)cfg->comp_counters *
			     sizeof(struct tally_ccnt_entry), (uint64_t)4096);
	return (size_t)len;
}

/*
 * Windows (spec 2.3): port i's at i * stride, the stride the power of two
 * that holds the largest port's window (register file, mailbox, banks), so
 * every window is page-aligned and the driver finds port i from PORT and
 * PORT_STRIDE alone. One port: its window is the BAR, stride 0.
 */
size_t
tally_model_ports_bar_size(const struct tally_model_config *cfg, uint32_t n,
			   size_t *stride)
{
	size_t w = 0, s = 1;
	uint32_t i;

	if (stride != NULL)
		*stride = 0;
	if (cfg == NULL || n == 0 || n > TALLY_MAX_PORTS)
		return 0;
	if (n == 1)
		return tally_model_bar_size(cfg);
	for (i = 0; i < n; i++)
		w = TALLY_MAX(w, tally_model_bar_size(&cfg[i]));
	while (s < w)
		s <<= 1;
	if (stride != NULL)
		*stride = s;
	return s * n;
}

const volatile uint8_t *
tally_model_bar(const struct tally_model *m, size_t *len)
{
	if (len != NULL)
		*len = m->bar_len;
	return m->bar;
}

/* Lay out the port's window (its part of the device's BAR, zeroed) and
 * allocate its buffers. */
static int
tally_model_alloc(struct tally_model *m)
{
	bool fail = false;
	uint64_t len;

	m->pcap_rx = tally_model_strdup(m->cfg.pcap_rx, &fail);
	m->pcap_tx = tally_model_strdup(m->cfg.pcap_tx, &fail);
	m->iface = tally_model_strdup(m->cfg.iface, &fail);
	m->cfg.pcap_rx = m->pcap_rx;
	m->cfg.pcap_tx = m->pcap_tx;
	m->cfg.iface = m->iface;
	m->cnt_off = TALLY_CNT_BANK_OFF;
	len = TALLY_ALIGN_UP((uint64_t)m->cnt_off +
			     (uint64_t)m->cfg.counters * sizeof(struct tally_cnt_entry),
			     (uint64_t)4096);
	m->ccnt_off = (uint32_t)len;
	len = TALLY_ALIGN_UP(len + (uint64_t)m->cfg.comp_counters *
			     sizeof(struct tally_ccnt_entry), (uint64_t)4096);
	m->bar_len = (size_t)len;
	m->bar = m->sw->bar + (size_t)m->port * m->sw->stride;
	m->cfg.bar_mem = m->bar;
	m->cfg.bar_mem_len = m->bar_len;
	m->rx_buf = tally_zmalloc(TALLY_MODEL_WIRE_BUF);
	m->tx_buf = tally_zmalloc(m->cfg.max_frame);
	m->rx_pkts = tally_zmalloc(sizeof(*m->rx_pkts) * TALLY_MODEL_BURST);
	if (fail || m->rx_buf == NULL || m->tx_buf == NULL || m->rx_pkts == NULL)
		return -ENOMEM;
	return 0;
}

/* The switch object and the device's BAR (cfg[0]'s memory, or allocated). */
static int
tally_model_sw_create(const struct tally_model_config *cfg, uint32_t n,
		      struct tally_model_sw **out, char *errbuf, size_t errlen)
{
	struct tally_model_sw *sw;
	size_t need;

	sw = tally_zmalloc(sizeof(*sw));
	if (sw == NULL) {
		tally_model_errf(errbuf, errlen, "out of memory for the model");
		return -ENOMEM;
	}
	tally_lock_init(&sw->lock);
	sw->n = n;
	need = tally_model_ports_bar_size(cfg, n, &sw->stride);
	sw->bar_len = need;
	if (cfg[0].bar_mem != NULL) {
		if (cfg[0].bar_mem_len < need || ((uintptr_t)cfg[0].bar_mem & 4095) != 0) {
			tally_model_errf(errbuf, errlen,
					 "BAR memory of %zu bytes: %zu page-aligned bytes needed",
					 cfg[0].bar_mem_len, need);
			tally_free(sw);
			return -EINVAL;
		}
		sw->bar = cfg[0].bar_mem;
		memset(sw->bar, 0, need);
	} else {
		sw->bar = tally_zmalloc_aligned(need, 4096);
		sw->bar_own = true;
	}
	sw->edit = tally_zmalloc(TALLY_MODEL_WIRE_BUF + 4);
	sw->pkts = tally_zmalloc(sizeof(*sw->pkts) * TALLY_MODEL_BURST);
	if (sw->bar == NULL || sw->edit == NULL || sw->pkts == NULL) {
		tally_model_errf(errbuf, errlen, "out of memory for a %zu-byte BAR", need);
		tally_model_sw_free(sw);
		return -ENOMEM;
	}
	memset(sw->dirty, TALLY_PARSE_ALL_BUT_OUTER, sizeof(sw->dirty));
	*out = sw;
	return 0;
}

/* Port i of sw, configured by cfg (posted and mbox from port 0's, cfg0),
 * its wire open; no thread yet. */
static int
tally_model_port_create(struct tally_model_sw *sw, uint32_t i,
			const struct tally_model_config *cfg,
			const struct tally_model_config *cfg0,
			char *errbuf, size_t errlen)
{
	struct tally_model *m;
	int rc;

	m = tally_zmalloc(sizeof(*m));
	if (m == NULL) {
		tally_model_errf(errbuf, errlen, "out of memory for the model");
		return -ENOMEM;
	}
	m->sw = sw;
	m->port = i;
	m->cfg = *cfg;
	m->cfg.posted = cfg0->posted;
	m->cfg.mbox = cfg0->mbox;
	rc = tally_model_alloc(m);
	if (rc < 0) {
		tally_model_errf(errbuf, errlen, "out of memory for port %u", i);
		goto fail;
	}
	m->carrier = true;	/* until the wire says otherwise */
	tally_model_regs_init(m);
	if (m->cfg.posted || m->cfg.mbox)
		tally_model_mbox_init(m);
	rc = tally_model_wires[cfg->wire]->open(m, errbuf, errlen);
	if (rc < 0)
		goto fail;
	m->wire = tally_model_wires[cfg->wire];
	tally_model_carrier_poll(m, true);
	sw->port[i] = m;
	sw->live++;
	return 0;
fail:
	tally_model_free(m);
	return rc;
}

int
tally_model_create_ports(const struct tally_model_config *cfg, uint32_t n,
			 struct tally_model **out, char *errbuf, size_t errlen)
{
	struct tally_model_sw *sw;
	struct tally_model *m;
	uint32_t i;
	int rc;

	if (cfg == NULL || out == NULL) {
		tally_model_errf(errbuf, errlen, "config or output pointer is NULL");
		return -EINVAL;
	}
	if (n == 0 || n > TALLY_MAX_PORTS) {
		tally_model_errf(errbuf, errlen, "ports=%u: 1..%u", n, TALLY_MAX_PORTS);
		return -EINVAL;
	}
	for (i = 0; i < n; i++) {
		char msg[256] = "";

		rc = tally_model_config_check(&cfg[i], msg, sizeof(msg));
		if (rc < 0) {
			if (n == 1)
				tally_model_errf(errbuf, errlen, "%s", msg);
			else
				tally_model_errf(errbuf, errlen, "port %u: %s", i, msg);
			return rc;
		}
	}
	rc = tally_model_sw_create(cfg, n, &sw, errbuf, errlen);
	if (rc < 0)
		return rc;
	for (i = 0; i < n && rc == 0; i++)
		rc = tally_model_port_create(sw, i, &cfg[i], &cfg[0], errbuf, errlen);
	/* threads once every port exists: a step may switch to any of them */
	for (i = 0; i < n && rc == 0; i++) {
		m = sw->port[i];
		if (m->cfg.mode != TALLY_MODEL_THREAD)
			continue;
		rc = -pthread_create(&m->thread, NULL, tally_model_thread, m);
		if (rc < 0)
			tally_model_errf(errbuf, errlen, "mode=thread: cannot start: %s",
					 strerror(-rc));
		else
			m->thread_started = true;
	}
	for (i = 0; i < n; i++)
		out[i] = sw->port[i];
	if (rc == 0)
		return 0;
	if (sw->live == 0)
		tally_model_sw_free(sw);
	for (i = 0; i < n; i++)	/* the last one frees sw */
		tally_model_destroy(out[i]);
	return rc;
}

int
tally_model_create(const struct tally_model_config *cfg, struct tally_model **out,
		   char *errbuf, size_t errlen)
{
	return tally_model_create_ports(cfg, 1, out, errbuf, errlen);
}

int
tally_model_run_thread(struct tally_model *m)
{
	int rc = 0;

	if (m->sw->solo)
		return -EPERM;	/* one thread runs this device, by promise */
	tally_model_lock(m);
	if (!m->thread_started) {
		rc = -pthread_create(&m->thread, NULL, tally_model_thread, m);
		m->thread_started = rc == 0;
	}
	tally_model_unlock(m);
	return rc;
}

void
tally_model_solo(struct tally_model *m)
{
	unsigned int i;

	for (i = 0; i < m->sw->n; i++)
		if (m->sw->port[i] != NULL && m->sw->port[i]->thread_started)
			return;	/* a thread of its own: the lock stays */
	m->sw->solo = true;
}

/* A port leaves the switch under the lock (no step of another port sends
 * to it any more), then goes; the device's BAR and switch with the last. */
void
tally_model_destroy(struct tally_model *m)
{
	struct tally_model_sw *sw;
	bool last;

	if (m == NULL)
		return;
	if (m->thread_started) {
		__atomic_store_n(&m->stop, 1, __ATOMIC_RELEASE);
		pthread_join(m->thread, NULL);
	}
	sw = m->sw;
	tally_model_lock(m);
	sw->port[m->port] = NULL;
	last = --sw->live == 0;
	tally_model_unlock(m);
	tally_model_free(m);
	if (last)
		tally_model_sw_free(sw);
}
