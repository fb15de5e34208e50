/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Internal state of the software Tally NIC, shared by the files of lib/model.
 *
 * Design
 *  - The BAR is one host buffer. Readable register values, port and queue
 *    statistics and both counter banks live in it, so the driver's plain
 *    loads see exactly what a real BAR would show. `wr[]` keeps the value the
 *    driver last wrote to every register offset (write-only ones included).
 *  - Everything that changes device state runs under the model lock: the register
 *    decoder, tally_model_step(), tally_model_inject() and the model thread.
 *    Values the driver may load at any time (registers, statistics, counters)
 *    are stored with __atomic builtins so no load ever sees a torn value.
 *  - Every IOVA goes through the translation table (tally_model_dma.c).
 *    Queue rings are translated at enable and kept as host pointers (an
 *    UNMAP under them disables the queue). Buffer addresses inside
 *    descriptors are translated on every use, through the TLB below.
 *  - The wire back end is an ops table (struct tally_wire_ops); one file per
 *    back end. Back ends never call into the Rx pipeline themselves: the step
 *    polls them, so a loop back end can never recurse.
 *  - Within one step, the loop wire may hold the frames Tx sent by reference
 *    to the driver's buffers (tx_ref_room); the step holds those queues'
 *    completions until its Rx and the wire's tx_settle() are done
 *    (tally_model.c, tally_model_tx.c).
 *  - A device of several ports (spec 2.3) is one struct tally_model per
 *    port window, linked by one struct tally_model_sw (the switch): the
 *    ports' list, the one lock every port's entry points take, the switch's
 *    classification cache and its scratch state. A one-port device has it
 *    too (n = 1). A frame the switch moves from port i to port j runs
 *    entirely under that one lock: no second lock, no ordering between
 *    ports' locks.
 *  - The .c files call each other in layers, never upward (checked by
 *    devtools/check-calls.py), bottom first: fault, dma, cls, cnt, steer,
 *    rx, switch (the switch stage, ahead of a port's Rx), tx, queue
 *    (register side; inline Tx), regs (the decoder), mbox (posted writes
 *    through the decoder), model (the device object). What several of them
 *    share lives here, static inline when it is small.
 */
#ifndef TALLY_MODEL_PRIV_H
#define TALLY_MODEL_PRIV_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <tally/tally_cnt_bank.h>
#include <tally/tally_desc.h>
#include <tally/tally_match.h>
#include <tally/tally_mbox.h>
#include <tally/tally_regs.h>

#include "tally_model.h"
#include "tally_model_dev.h"
#include "tally_lock.h"
#include "tally_plat.h"

/* Register file: everything below the first bank that is not memory-like. */
#define TALLY_MODEL_REGFILE_LEN	0x2000
#define TALLY_MODEL_RING_MIN_LOG2	4
#define TALLY_MODEL_RING_MAX_LOG2	15
#define TALLY_MODEL_BURST		64	/* wire frames per step */
#define TALLY_MODEL_WIRE_BUF		16384	/* > any valid max_frame */
#define TALLY_MODEL_MTU_DEFAULT		1500
#define TALLY_MODEL_L2_OVERHEAD		18	/* Ethernet header + one VLAN tag */
#define TALLY_MODEL_CCNT_MAX		(1u << 24)
#define TALLY_MODEL_GEN_FLOWS_MAX	(1u << 24)
#define TALLY_MODEL_CARRIER_NS		50000000	/* wire carrier looked at this often */
_Static_assert(TALLY_MBOX_OFF >= TALLY_MODEL_REGFILE_LEN &&
	       TALLY_MBOX_OFF + sizeof(struct tally_mbox) <= TALLY_CNT_BANK_OFF,
	       "the mailbox lies between the register file and the banks");
_Static_assert(TALLY_MBOX_OFF + sizeof(struct tally_mbox) <= TALLY_DB_PAGE_OFF &&
	       TALLY_DB_PAGE_OFF + TALLY_DB_PAGE_LEN <= TALLY_CNT_BANK_OFF &&
	       TALLY_MAX_QUEUES <= 16,
	       "the doorbell page lies between the mailbox and the banks");
#define TALLY_MODEL_CAPS	(TALLY_CAP_RSS | TALLY_CAP_RX_SCATTER | \
				 TALLY_CAP_TX_GATHER | TALLY_CAP_STEER | \
				 TALLY_CAP_CNT | TALLY_CAP_CCNT | \
				 TALLY_CAP_XLT)
/* Translations the table holds (XLT_MAX): 24 bytes each when all used. */
#define TALLY_MODEL_XLT_MAX	(1u << 20)
/* TLB: slots by 2 MiB unit of the IOVA (a huge page, or 512 small ones). */
#define TALLY_MODEL_TLB_LOG2	8
#define TALLY_MODEL_TLB_SHIFT	21

struct tally_model;

/* A frame from the wire (or to it): caplen bytes of a frame of len bytes. */
struct tally_model_rx_in {
	const uint8_t *frame;
	uint32_t caplen;
	uint32_t len;
};

/* Wire back end: the other side of the port. All calls run under the lock. */
struct tally_wire_ops {
	const char *name;
	/* Allocate m->wire_priv; on failure write a message naming the setting. */
	int (*open)(struct tally_model *m, char *errbuf, size_t errlen);
	void (*close)(struct tally_model *m);
	/* Put a frame on the wire: 0; -EAGAIN when the wire is busy (the device
	 * keeps the frame and retries on a later step); another -errno when the
	 * wire refused it (the frame is dropped). */
	int (*tx)(struct tally_model *m, const uint8_t *frame, uint32_t len);
	/* Take one frame: 1 with *caplen bytes copied into buf (at most buflen)
	 * and *len its length on the wire, 0 when nothing is pending. */
	int (*rx)(struct tally_model *m, uint8_t *buf, uint32_t buflen,
		  uint32_t *caplen, uint32_t *len);
	int (*eof)(struct tally_model *m);
	/* Optional, both or neither: the idx-th pending frame in place instead
	 * of a copy (1, or 0 when fewer are pending); rx_next() drops the first
	 * n. The frames stay valid and unchanged until rx_next(). */
	int (*rx_peek)(struct tally_model *m, uint32_t idx, const uint8_t **frame,
		       uint32_t *caplen, uint32_t *len);
	void (*rx_next)(struct tally_model *m, uint32_t n);
	/* Optional, with rx_peek: the first pending frames (up to max) in
	 * place, as max calls of rx_peek would give them; returns how many. */
	unsigned int (*rx_peek_burst)(struct tally_model *m,
				      struct tally_model_rx_in *in, unsigned int max);
	/* Optional, both or neither: room for one frame of len bytes (1 to
	 * max_frame) to gather into, or NULL when the wire is busy; tx_put()
	 * sends the len bytes written there (at most the len asked for).
	 * Without them, or on NULL, tx() is used. */
	uint8_t *(*tx_slot)(struct tally_model *m, uint32_t len);
	void (*tx_put)(struct tally_model *m, uint32_t len);
	/* Optional: put the first frames of f[] (n of them, each of len 1 to
	 * max_frame bytes, caplen == len) on the wire in order, copied in one
	 * call; returns how many were taken, fewer than n when the wire became
	 * busy. */
	unsigned int (*tx_burst)(struct tally_model *m, const struct tally_model_rx_in *f,
				 unsigned int n);
	/* Optional, all three or none (with tx_burst and rx_peek): frames by
	 * reference. tx_ref_room() gives where the next frames may be recorded
	 * in place (at most *n of them, each of len 1 to *max_len bytes,
	 * caplen == len), or NULL when none may be now (tx_burst copies
	 * them); tx_ref_put() puts the first n recorded there on the wire, in
	 * order, with the result tx_burst would have (order, busy points, what
	 * rx_peek gives) but without copying them. tx_settle() copies the
	 * frames still referenced into the wire's own storage. Only the step
	 * uses them (see tally_model.c): the bytes of a frame handed over stay
	 * valid and unchanged until tx_settle(). */
	struct tally_model_rx_in *(*tx_ref_room)(struct tally_model *m, unsigned int *n,
						 uint32_t *max_len);
	void (*tx_ref_put)(struct tally_model *m, unsigned int n);
	void (*tx_settle)(struct tally_model *m);
	/* Optional: whether the wire has carrier now (a back end without it
	 * always has). Called at most every TALLY_MODEL_CARRIER_NS. */
	bool (*carrier)(struct tally_model *m);
};

extern const struct tally_wire_ops tally_wire_loop_ops;
extern const struct tally_wire_ops tally_wire_pcap_ops;
extern const struct tally_wire_ops tally_wire_if_ops;
extern const struct tally_wire_ops tally_wire_gen_ops;
extern const struct tally_wire_ops tally_wire_none_ops;

/* One translation: [iova, iova + len) is host memory at iova + delta. */
struct tally_model_ext {
	uint64_t iova;
	uint64_t len;
	uint64_t delta;		/* host address - iova, modulo 2^64 */
};

/* The translation table: n translations sorted by iova, none overlapping,
 * room for cap (always > n: see xlt_reserve()). */
struct tally_model_xlt {
	struct tally_model_ext *ext;
	uint32_t n;
	uint32_t cap;
	uint64_t pages;		/* TALLY_XLT_PAGE pages mapped */
};

/* A TLB slot: a copy of the translation that last served its 2 MiB unit
 * (len 0: empty). */
struct tally_model_tlb {
	uint64_t base;
	uint64_t len;
	uint64_t delta;
	uint64_t pad;
};

struct tally_model_queue {
	uint32_t id;
	bool is_tx;
	bool en;
	uint32_t log2;
	uint32_t mask;
	void *ring;		/* host pointer of the descriptor ring */
	void *cq;		/* host pointer of the completion ring */
	uint64_t ring_iova;	/* the IOVAs they translate, sampled at enable */
	uint64_t cq_iova;
	uint32_t prod;		/* last doorbell value */
	uint32_t db_seen;	/* last value taken from the doorbell page */
	uint32_t head;		/* device consumer index, free running */
	bool tx_skip;		/* Tx: skipping an over-long chain up to EOP */
	bool tx_sw_own;		/* Tx: the frame at head met the switch, which
				 * left it to the own wire (busy: not again) */
	/* Tx, completions held in a step: from here up to head they are not
	 * written yet (one-descriptor frames sent whole, see tally_model_tx.c) */
	uint32_t tx_unwritten;
};

/* Completion counting batched over a burst of one queue: the queue's Q_CCNT
 * is read once (nothing changes it while the lock is held); the adds happen
 * once, after the burst's completions were written, so a reader that sees a
 * count also sees that many completions. */
struct tally_model_ccnt_acc {
	uint64_t *comp;		/* NULL: the queue counts nothing */
	uint64_t *err;
	uint32_t ncomp, nerr;
};

/* Tx completions of one queue held in a step, not yet published: from
 * `from` up to `unwritten` written but for their phase, from `unwritten` up
 * to the queue's head not written at all (each completes a one-descriptor
 * frame sent whole: written from its descriptor when published). */
struct tally_model_tx_held {
	struct tally_model_queue *q;
	uint32_t from;
	uint32_t unwritten;
	struct tally_model_ccnt_acc cc;
};

/*
 * The switch and what the ports of one device share (spec 2.3). Created with
 * the device, freed with its last port. port[i] is NULL once port i was
 * destroyed (the switch then drops what it would send there). Everything
 * here is read and written under `lock`, but `cls_gen` (atomic, as a
 * port's).
 */
struct tally_model_sw {
	uint32_t n;			/* ports of the device */
	uint32_t live;			/* ports not destroyed yet */
	struct tally_model *port[TALLY_MAX_PORTS];
	struct tally_lock lock;		/* the model lock of every port */
	bool solo;			/* tally_model_solo(): one thread, no lock */
	uint8_t *bar;			/* the whole BAR: n windows */
	size_t bar_len;
	size_t stride;			/* bytes between two windows (0: one port) */
	bool bar_own;			/* allocated here (not cfg[0].bar_mem) */
	struct tally_model_cls *cls;	/* the switch's classification cache */
	uint32_t cls_gen;		/* atomic: bumped to invalidate it */
	uint8_t *edit;			/* TALLY_MODEL_WIRE_BUF + 4: a frame being edited */
	struct tally_model_pkt *pkts;	/* TALLY_MODEL_BURST frames being switched */
	uint8_t dirty[TALLY_MODEL_BURST];	/* key sections pkts[i] holds (parse) */
};

struct tally_model {
	struct tally_model_config cfg;	/* strings point into the copies below */
	char *pcap_rx;
	char *pcap_tx;
	char *iface;

	uint8_t *bar;
	size_t bar_len;
	uint32_t cnt_off;
	uint32_t ccnt_off;
	uint32_t wr[TALLY_MODEL_REGFILE_LEN / 4];
	/* Rx MAC filter, rebuilt from MAC_FILTER_* at every write of them
	 * (lock held) so a frame never reads the BAR: the primary (entry 0)
	 * and the other valid entries, unicast then multicast (MC_FILTER_*),
	 * packed in mac_extra[0..mac_nextra). */
	uint8_t mac_prim[6];
	bool mac_prim_valid;
	uint32_t mac_nextra;
	uint8_t mac_extra[TALLY_MAC_FILTERS - 1 + TALLY_MC_FILTERS][6];

	struct tally_model_tlb tlb[1u << TALLY_MODEL_TLB_LOG2];
	uint32_t tlb_last;		/* the slot the table filled last */
	struct tally_model_xlt xlt;	/* the translation table (tally_model_dma.c) */
	uint32_t mbox_polls;		/* polls: cfg.mbox's heartbeat, cfg.posted's
					 * look at the session */
	bool mbox_idle;			/* cfg.posted: the last poll applied nothing */
	uint32_t db_en;			/* enabled queues whose doorbell-page line
					 * the device reads: bit i is TALLY_DB_LINE(i) */
	struct tally_model_queue rxq[TALLY_MAX_QUEUES];
	struct tally_model_queue txq[TALLY_MAX_QUEUES];
	uint32_t tx_next;		/* Tx queue a step serves first (round robin) */
	uint32_t tx_pending;		/* Tx queues that may have posted work, bit per queue */
	bool tx_ref;			/* in a step: Tx by reference, completions held */
	uint32_t tx_nheld;		/* entries of tx_held[] */
	struct tally_model_tx_held tx_held[TALLY_MAX_QUEUES];

	struct tally_model_sw *sw;	/* the device this port belongs to */
	uint32_t port;			/* this port's index in sw->port[] */
	const struct tally_wire_ops *wire;
	void *wire_priv;
	uint8_t *rx_buf;		/* TALLY_MODEL_WIRE_BUF bytes */
	uint8_t *tx_buf;		/* max_frame bytes */
	struct tally_model_pkt *rx_pkts;	/* TALLY_MODEL_BURST parsed frames */
	uint8_t rx_dirty[TALLY_MODEL_BURST];	/* key sections rx_pkts[i] holds (parse) */

	int wire_held;			/* atomic: wire input held back */
	bool carrier;			/* the wire's carrier, as last seen */
	uint64_t carrier_ns;		/* when it was last looked at */
	struct tally_model_cls *cls;	/* classification cache (tally_model_cls.h) */
	uint32_t cls_gen;		/* atomic: bumped to invalidate the cache */
	pthread_t thread;
	bool thread_started;
	int stop;			/* atomic */
	int svc_active;			/* atomic: burst functions stepped lately */
	uint64_t bad_rx_n;		/* cfg.bad_rx: Rx completions written */
};

/* ---- BAR access (atomic, so the driver never sees a torn value) ---------- */
static inline uint32_t
tally_model_bar_rd(const struct tally_model *m, uint32_t off)
{
	return __atomic_load_n((const uint32_t *)(const void *)(m->bar + off),
			       __ATOMIC_ACQUIRE);
}

static inline void
tally_model_bar_wr(struct tally_model *m, uint32_t off, uint32_t val)
{
	__atomic_store_n((uint32_t *)(void *)(m->bar + off), val, __ATOMIC_RELEASE);
}

/* Every writer of a BAR statistic or counter holds the model lock, so an add
 * needs no locked read-modify-write: a relaxed load and a relaxed store (plain
 * moves) keep readers from ever seeing a torn value. */
static inline void
tally_model_bar_add64(struct tally_model *m, uint32_t off, uint64_t val)
{
	uint64_t *p = (uint64_t *)(void *)(m->bar + off);

	__atomic_store_n(p, __atomic_load_n(p, __ATOMIC_RELAXED) + val, __ATOMIC_RELAXED);
}

static inline void
tally_model_stat_add(struct tally_model *m, enum tally_port_stat s, uint64_t val)
{
	tally_model_bar_add64(m, TALLY_REG_STAT(s), val);
}

static inline void
tally_model_qstat_add(struct tally_model *m, const struct tally_model_queue *q,
		      uint32_t stat, uint64_t val)
{
	uint32_t base = q->is_tx ? TALLY_TXQ_REG(q->id, 0) : TALLY_RXQ_REG(q->id, 0);

	tally_model_bar_add64(m, base + stat, val);
}

static inline uint32_t
tally_model_q_reg(const struct tally_model_queue *q, uint32_t r)
{
	return q->is_tx ? TALLY_TXQ_REG(q->id, r) : TALLY_RXQ_REG(q->id, r);
}

/* Completion phase of free-running index idx: 1 on the first pass. */
static inline uint8_t
tally_model_phase(const struct tally_model_queue *q, uint32_t idx)
{
	return (uint8_t)(((idx >> q->log2) & 1u) ^ 1u);
}

/*
 * The model lock is lib/plat's ticket lock (tally_lock.h): every user of the
 * device (burst functions on several lcores, register writes, the model
 * thread) gets its turn in arrival order. With a mutex, a receiver polling
 * in a tight loop took the lock again before a woken transmitter could run,
 * and starved its doorbells and steps. A waiter spins briefly, then yields:
 * the holder may have been preempted on the waiter's own CPU.
 */
static inline void
tally_model_lock(struct tally_model *m)
{
	if (!m->sw->solo)
		tally_lock(&m->sw->lock);
}

/* The lock if it is free right now (no waiting in line): true when taken. */
static inline bool
tally_model_trylock(struct tally_model *m)
{
	return m->sw->solo || tally_trylock(&m->sw->lock);
}

static inline void
tally_model_unlock(struct tally_model *m)
{
	if (!m->sw->solo)
		tally_unlock(&m->sw->lock);
}

/* tally_model_config.c */
int tally_model_config_check(const struct tally_model_config *cfg,
			     char *errbuf, size_t errlen);
void tally_model_errf(char *errbuf, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* tally_model_regs.c */
void tally_model_regs_init(struct tally_model *m);
void tally_model_reset(struct tally_model *m);
/* STATUS.LINK_UP from CTRL.LINK_DOWN and the wire's carrier. Lock held. */
void tally_model_link_sync(struct tally_model *m);
/* Look at the wire's carrier when TALLY_MODEL_CARRIER_NS passed since the
 * last look (or always, with force) and follow a change into STATUS. Lock
 * held. */
void tally_model_carrier_poll(struct tally_model *m, bool force);
uint32_t tally_model_read32(void *ctx, uint32_t off);
void tally_model_write32(void *ctx, uint32_t off, uint32_t val);
void tally_model_write32_locked(struct tally_model *m, uint32_t off, uint32_t val);

/* tally_model_mbox.c */
void tally_model_mbox_init(struct tally_model *m);
/* cfg.mbox: apply what other processes posted (lock held). */
unsigned int tally_model_mbox_poll_locked(struct tally_model *m);

/* tally_model_queue.c: queue register writes, called by the decoder. */
/* A Q_DOORBELL value for q (checked; a fault, nothing taken, when more than
 * a ring ahead). A Tx queue joins the step's round robin; now: it also
 * sends at once (an inline device's trapped doorbell). Lock held. */
void tally_model_queue_doorbell(struct tally_model *m, struct tally_model_queue *q,
				uint32_t val, bool now);
void tally_model_queue_write(struct tally_model *m, struct tally_model_queue *q,
			     uint32_t r, uint32_t val);
void tally_model_queue_reset(struct tally_model *m);

/* tally_model_cls.c */
void tally_model_cls_free(struct tally_model *m);
void tally_model_cls_free_sw(struct tally_model_sw *sw);

/* Drop every cached structure of the classification cache at the next
 * burst (fence, UNMAP, reset): its next use flushes it. Port 0's also drops
 * the switch's: the switch reads its tables through port 0's window
 * (translation table, fence, reset). */
static inline void
tally_model_cls_invalidate(struct tally_model *m)
{
	__atomic_fetch_add(&m->cls_gen, 1, __ATOMIC_RELEASE);
	if (m->port == 0)
		__atomic_fetch_add(&m->sw->cls_gen, 1, __ATOMIC_RELEASE);
}

/* tally_model_dma.c: the translation table. */
void *tally_model_dma_lookup(struct tally_model *m, uint64_t iova, size_t len);
void tally_model_xlt_cmd(struct tally_model *m, uint32_t cmd);
void tally_model_xlt_clear(struct tally_model *m);
void tally_model_xlt_free(struct tally_model *m);

static inline struct tally_model_tlb *
tally_model_tlb_slot(struct tally_model *m, uint64_t iova)
{
	return &m->tlb[(iova >> TALLY_MODEL_TLB_SHIFT) & ((1u << TALLY_MODEL_TLB_LOG2) - 1)];
}

static inline bool
tally_model_tlb_has(const struct tally_model_tlb *t, uint64_t iova, size_t len)
{
	uint64_t off = iova - t->base;

	/* off < len only when iova >= base (a translation never wraps);
	 * len - 1 wraps when len is 0 */
	return off < t->len && (uint64_t)len - 1 < t->len - off;
}

/* The data path's translation: the TLB alone, inline. NULL on a TLB miss
 * (not a fault: tally_model_dma_fast() or tally_model_dma() decide). */
static inline void *
tally_model_dma_hit(struct tally_model *m, uint64_t iova, size_t len)
{
	const struct tally_model_tlb *t = tally_model_tlb_slot(m, iova);

	if (tally_model_tlb_has(t, iova, len))
		return (void *)(uintptr_t)(iova + t->delta);
	return NULL;
}

/* A burst's first guess: the translation the table gave last, copied once
 * per burst (memory that is one translation, as EAL's is with IOVA as VA,
 * serves every buffer from it); then the TLB. NULL as tally_model_dma_hit(). */
struct tally_model_dma_win {
	uint64_t base, len, delta;
};

static inline struct tally_model_dma_win
tally_model_dma_window(const struct tally_model *m)
{
	const struct tally_model_tlb *t = &m->tlb[m->tlb_last];
	struct tally_model_dma_win w = { t->base, t->len, t->delta };

	return w;
}

static inline void *
tally_model_dma_win_hit(struct tally_model *m, const struct tally_model_dma_win *w,
			uint64_t iova, size_t len)
{
	uint64_t off = iova - w->base;

	if (off < w->len && (uint64_t)len - 1 < w->len - off)
		return (void *)(uintptr_t)(iova + w->delta);
	return tally_model_dma_hit(m, iova, len);
}

/* The window for a burst whose frames are 1 to max_len bytes: false when
 * it is shorter than max_len (its user then leaves the burst to a path that
 * translates frame by frame). */
static inline bool
tally_model_dma_window_max(const struct tally_model *m, uint64_t max_len,
			   struct tally_model_dma_win *w)
{
	*w = tally_model_dma_window(m);
	return max_len != 0 && w->len >= max_len;
}

/* tally_model_dma_win_hit() for 1 <= len <= max_len of such a window, in
 * one compare: w->len - len does not wrap, and iova - base, when iova is
 * below base, wraps past w->len (a translation never wraps). */
static inline void *
tally_model_dma_win_hit_max(struct tally_model *m, const struct tally_model_dma_win *w,
			    uint64_t iova, size_t len)
{
	if (iova - w->base <= w->len - len)
		return (void *)(uintptr_t)(iova + w->delta);
	return tally_model_dma_hit(m, iova, len);
}

/* Same result as tally_model_dma(): the TLB inline, the table and its
 * fault otherwise. */
static inline void *
tally_model_dma_fast(struct tally_model *m, uint64_t iova, size_t len)
{
	void *p = tally_model_dma_hit(m, iova, len);

	return p != NULL ? p : tally_model_dma(m, iova, len);
}

/* Frame copy for the data path: frames of 16 to 64 bytes (most of them)
 * with two overlapping fixed-size moves inline, anything else by memcpy(). */
static inline void
tally_model_copy(uint8_t *dst, const uint8_t *src, uint32_t len)
{
	if (len >= 32 && len <= 64) {
		__builtin_memcpy(dst, src, 32);
		__builtin_memcpy(dst + len - 32, src + len - 32, 32);
	} else if (len >= 16 && len < 32) {
		__builtin_memcpy(dst, src, 16);
		__builtin_memcpy(dst + len - 16, src + len - 16, 16);
	} else {
		__builtin_memcpy(dst, src, len);
	}
}

/* tally_model_cnt.c */
void tally_model_ccnt_cmd(struct tally_model *m, uint32_t cmd);

void tally_model_ccnt_begin(struct tally_model *m, const struct tally_model_queue *q,
			    struct tally_model_ccnt_acc *a);

static inline void
tally_model_ccnt_end(struct tally_model_ccnt_acc *a)
{
	if (a->comp == NULL)
		return;
	if (a->ncomp != 0)
		__atomic_fetch_add(a->comp, a->ncomp, __ATOMIC_RELAXED);
	if (a->nerr != 0)
		__atomic_fetch_add(a->err, a->nerr, __ATOMIC_RELAXED);
	a->ncomp = a->nerr = 0;
}

/* tally_model_parse.c: key sections as bits of a `dirty` mask. */
#define TALLY_PARSE_SEC(s)		(1u << (s))
#define TALLY_PARSE_ALL_BUT_OUTER	0xfeu
/* tally_model_parse() into a pkt reused from an earlier frame: the key
 * sections outside the outer one are zero except those in *dirty (as the
 * last call left it, or TALLY_PARSE_ALL_BUT_OUTER for unknown contents).
 * Same result as tally_model_parse(); *dirty becomes the sections this frame
 * wrote besides the outer one. */
void tally_model_parse_reuse(const uint8_t *frame, uint32_t len,
			     struct tally_model_pkt *pkt, uint8_t *dirty);
/* Everything tally_model_parse_reuse() gives except the match key
 * (frame, len, ptype, l3, l4, has_vlan, src, dst, sport, dport: what the Rx
 * completion and RSS read), for a caller that will not read the key. The
 * key may be left as an earlier frame wrote it, with *dirty describing it as
 * tally_model_parse_reuse() requires. */
void tally_model_parse_light(const uint8_t *frame, uint32_t len,
			     struct tally_model_pkt *pkt, uint8_t *dirty);
/* The frame the parse's short paths take: untagged Ethernet, IPv4 without
 * options and not a fragment, TCP or UDP (not to the VXLAN port), all
 * headers present. Its TALLY_PTYPE_L4_TCP or _UDP, or 0 for any other frame
 * (which tally_model_parse_reuse()'s general path types). */
static inline uint8_t
tally_model_parse_l4t(const uint8_t *f, uint32_t len)
{
	const uint8_t *ip = f + 14;
	uint32_t w;
	uint16_t frag, dport;

	if (len < 14 + 20 + 8)
		return 0;
	memcpy(&w, f + 12, sizeof(w));
	memcpy(&frag, ip + 6, sizeof(frag));
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	/* ethertype 0x0800, version 4 with IHL 5; flags and offset but DF */
	if ((w & 0x00ffffffu) != 0x00450008u || (frag & 0xff3fu) != 0)
		return 0;
#else
	if ((w & 0xffffff00u) != 0x08004500u || (frag & 0x3fffu) != 0)
		return 0;
#endif
	if (ip[9] == 6)		/* TCP: the whole 20-byte header present */
		return len >= 14 + 20 + 20 ? TALLY_PTYPE_L4_TCP : 0;
	if (ip[9] != 17)
		return 0;
	dport = (uint16_t)(ip[22] << 8 | ip[23]);
	return dport != TALLY_VXLAN_UDP_PORT ? TALLY_PTYPE_L4_UDP : 0;
}

/* The general path alone, on a zeroed pkt (tests compare the fast path). */
void tally_model_parse_ref(const uint8_t *frame, uint32_t len,
			   struct tally_model_pkt *pkt);

/* tally_model_rss.c */
uint32_t tally_model_toeplitz(const uint8_t key[TALLY_RSS_KEY_LEN],
			      const uint8_t *in, size_t len);
/* Hash pkt per hf with the port key; false when nothing matched hf. */
bool tally_model_rss_hash(const struct tally_model *m,
			  const struct tally_model_pkt *pkt, uint32_t hf,
			  uint32_t *hash);

/* tally_model_rx.c: one frame from the wire (caplen bytes of len), or a
 * burst of up to TALLY_MODEL_BURST of them. */
void tally_model_rx_frame(struct tally_model *m, const uint8_t *frame,
			  uint32_t caplen, uint32_t len);
void tally_model_rx_burst(struct tally_model *m, const struct tally_model_rx_in *in,
			  unsigned int n);
/* A frame the switch hands to m's receive pipeline (spec 2.3): from the MAC
 * filter on, without the length checks and RX_WIRE_PKTS (the switch did
 * those on the port it came from), with misc.source_port = src. */
void tally_model_rx_switched(struct tally_model *m, const uint8_t *frame,
			     uint32_t len, uint32_t src);

/* tally_model_switch.c: frames from m's wire, the switch stage first when
 * port 0's SW_CTRL.EN is set, then m's receive pipeline
 * (tally_model_rx_burst()) for the frames it leaves there. */
void tally_model_sw_burst(struct tally_model *m, const struct tally_model_rx_in *in,
			  unsigned int n);
/* Whether port 0's SW_CTRL.EN is set: frames meet the switch. */
static inline bool
tally_model_sw_on(const struct tally_model *m)
{
	const struct tally_model *p0 = m->sw->port[0];

	return p0 != NULL && (tally_model_bar_rd(p0, TALLY_REG_SW_CTRL) & TALLY_SW_CTRL_EN);
}
/* A frame of len bytes m's host transmits, fully gathered, through the
 * switch (only while tally_model_sw_on()): false when the switch leaves it
 * to m's own wire, unedited (a miss, a hit without a fate, a frame shorter
 * than an Ethernet header); true when the switch took it (dropped, sent to
 * a wire or a receive pipeline, counted in m's SW_* statistics). */
bool tally_model_sw_tx(struct tally_model *m, const uint8_t *frame, uint32_t len);
void tally_model_sw_free(struct tally_model_sw *sw);

/* tally_model_tx.c: consume posted descriptors of one Tx queue. Within a
 * step with m->tx_ref set, its completions are written but held (phase not
 * stored, completion counters and HEAD not updated) until
 * tally_model_tx_publish(). */
unsigned int tally_model_tx_queue(struct tally_model *m,
				  struct tally_model_queue *q);
void tally_model_tx_publish(struct tally_model *m);

#endif /* TALLY_MODEL_PRIV_H */
