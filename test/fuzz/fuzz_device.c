/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fuzz target: the device model driven by a hostile driver.
 *
 * Every input starts from the same valid set-up built the way the PMD builds
 * it, through lib/hal and lib/steer: one translation (an arena), two Rx and
 * two Tx queues on a loop wire, RSS, and steering tables 0 and 1 with three
 * matchers and rules of every fate (QUEUE+MARK+COUNT, JUMP, DROP, PASSTHRU,
 * RSS, FLAG). The input is then a list of operations: register writes with
 * random offsets and values, random bytes patched into any structure of the
 * arena (rings, descriptors, completion rings, buffers, and every steering
 * structure), a STEER_ROOT anywhere in the arena, random and valid
 * doorbells, valid Tx frames, injected frames (random or steered), queue
 * re-enables, device steps, resets, steering API calls, and translation
 * commands (map any IOVA to pages of the arena, unmap, clear).
 *
 * Invariants, checked after every operation (abort() on violation): the
 * signature and version registers never change, and FAULT_CNT never
 * decreases except across a reset. ASan/UBSan check that nothing reads or
 * writes outside what it owns. The translation registers are not written
 * at random: a translation is the driver's statement of which memory
 * exists, so one to memory that does not makes any access a legitimate
 * crash; translation commands only ever name bus pages of the arena.
 *
 * lib/steer trusts its own memory: once an operation may have changed it
 * (any hostile operation), the arena is snapshotted first, no further
 * steering API call is made, and the snapshot is restored before the
 * steering context is destroyed.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <tally/tally_cnt_bank.h>
#include <tally/tally_desc.h>
#include <tally/tally_regs.h>

#include "tally_hal.h"
#include "tally_hal_io.h"
#include "tally_model.h"
#include "tally_steer.h"

#define FD_ARENA_LEN	(512u << 10)
#define FD_MAX_ALLOCS	96
#define FD_NQ		2
#define FD_LOG2		4
#define FD_QSIZE	(1u << FD_LOG2)
#define FD_BUF		2048
#define FD_MAX_OPS	512
#define FD_MAX_RULES	32
#define FD_REGFILE	0x2000

struct fd_in {
	const uint8_t *p;
	size_t n;
};

struct fd_alloc {
	uint8_t *p;
	size_t len;
};

struct fd {
	struct tally_model *m;
	struct tally_io io;
	struct tally_hal_dev hal;
	struct tally_fence fence;
	struct tally_steer_ctx *steer;
	struct tally_steer_matcher *mt[3];
	struct tally_steer_rule *rules[FD_MAX_RULES];
	unsigned int nrules;
	uint32_t rss_id;
	size_t top;			/* arena bytes handed out */
	struct fd_alloc allocs[FD_MAX_ALLOCS];
	unsigned int nallocs;
	bool tainted;			/* steering memory may differ from lib/steer's view */
	size_t backup_top;
	struct tally_rx_desc *rxr[FD_NQ];
	struct tally_rx_cqe *rxc[FD_NQ];
	uint8_t *rxb[FD_NQ];
	uint32_t rxprod[FD_NQ];
	struct tally_tx_desc *txr[FD_NQ];
	struct tally_tx_cqe *txc[FD_NQ];
	uint8_t *txb[FD_NQ];
	uint32_t txprod[FD_NQ];
	uint32_t faults;		/* FAULT_CNT after the last operation */
};

static uint8_t *fd_arena;
static uint8_t *fd_backup;

/* ---- input reader: zeros once the input is used up --------------------- */
static uint8_t
in_u8(struct fd_in *in)
{
	uint8_t v = 0;

	if (in->n > 0) {
		v = *in->p++;
		in->n--;
	}
	return v;
}

static uint16_t
in_u16(struct fd_in *in)
{
	return (uint16_t)(in_u8(in) | in_u8(in) << 8);
}

static uint32_t
in_u32(struct fd_in *in)
{
	return (uint32_t)in_u16(in) | (uint32_t)in_u16(in) << 16;
}

static void
in_bytes(struct fd_in *in, uint8_t *dst, size_t len)
{
	size_t n = len < in->n ? len : in->n;

	memcpy(dst, in->p, n);
	memset(dst + n, 0, len - n);
	in->p += n;
	in->n -= n;
}

/* ---- arena: mapped IOVA = VA; also the steering memory ops -------------- */
static void *
fd_alloc(struct fd *f, size_t size, size_t align)
{
	size_t off;

	if (align < 64)
		align = 64;
	off = TALLY_ALIGN_UP(f->top, align);
	if (size == 0 || off + size > FD_ARENA_LEN || f->nallocs == FD_MAX_ALLOCS)
		return NULL;
	f->top = off + size;
	f->allocs[f->nallocs].p = fd_arena + off;
	f->allocs[f->nallocs].len = size;
	f->nallocs++;
	return fd_arena + off;
}

static void *
fd_steer_alloc(void *arg, size_t size, size_t align, uint64_t *iova)
{
	void *p = fd_alloc(arg, size, align);

	if (p != NULL)
		*iova = (uint64_t)(uintptr_t)p;
	return p;
}

static void
fd_steer_free(void *arg, void *p, size_t size)
{
	(void)arg;
	memset(p, 0xa5, size);	/* the device must not read freed memory */
}

static uint64_t
fd_iova(const void *p)
{
	return (uint64_t)(uintptr_t)p;
}

/* ---- invariants ----------------------------------------------------------- */
static void
fd_check(struct fd *f, bool reset)
{
	uint32_t sig = f->io.ops->read32(f->io.ctx, TALLY_REG_SIG);
	uint32_t ver = f->io.ops->read32(f->io.ctx, TALLY_REG_VERSION);
	uint32_t faults = f->io.ops->read32(f->io.ctx, TALLY_REG_FAULT_CNT);
	uint32_t plain;

	memcpy(&plain, (const void *)(uintptr_t)f->io.bar, 4);
	if (sig != TALLY_SIGNATURE || plain != TALLY_SIGNATURE ||
	    ver != f->hal.version)
		abort();
	if (faults < f->faults && !reset)
		abort();
	f->faults = faults;
}

/* ---- a valid set-up through lib/hal and lib/steer ----------------------- */
static int
fd_queues(struct fd *f)
{
	unsigned int q, i;

	for (q = 0; q < FD_NQ; q++) {
		f->rxr[q] = fd_alloc(f, FD_QSIZE * sizeof(struct tally_rx_desc), 64);
		f->rxc[q] = fd_alloc(f, FD_QSIZE * sizeof(struct tally_rx_cqe), 64);
		f->rxb[q] = fd_alloc(f, FD_QSIZE * FD_BUF, 64);
		f->txr[q] = fd_alloc(f, FD_QSIZE * sizeof(struct tally_tx_desc), 64);
		f->txc[q] = fd_alloc(f, FD_QSIZE * sizeof(struct tally_tx_cqe), 64);
		f->txb[q] = fd_alloc(f, FD_QSIZE * FD_BUF, 64);
		if (f->rxr[q] == NULL || f->rxc[q] == NULL || f->rxb[q] == NULL ||
		    f->txr[q] == NULL || f->txc[q] == NULL || f->txb[q] == NULL)
			return -ENOMEM;
		for (i = 0; i < FD_QSIZE; i++) {
			f->rxr[q][i].addr = fd_iova(f->rxb[q] + (size_t)i * FD_BUF);
			f->rxr[q][i].buf_len = FD_BUF;
		}
	}
	return 0;
}

/* Program and enable every queue, the port and RSS (after open or reset). */
static void
fd_program(struct fd *f)
{
	uint8_t key[TALLY_RSS_KEY_LEN], reta[TALLY_RSS_RETA_SIZE];
	unsigned int q, i;

	tally_hal_xlt_map(&f->hal, fd_iova(fd_arena), fd_iova(fd_arena), FD_ARENA_LEN);
	for (q = 0; q < FD_NQ; q++) {
		memset(f->rxc[q], 0, FD_QSIZE * sizeof(struct tally_rx_cqe));
		memset(f->txc[q], 0, FD_QSIZE * sizeof(struct tally_tx_cqe));
		tally_hal_rxq_create(&f->hal, q, fd_iova(f->rxr[q]), fd_iova(f->rxc[q]), FD_LOG2);
		tally_hal_rxq_enable(&f->hal, q, q == 1);
		tally_hal_txq_create(&f->hal, q, fd_iova(f->txr[q]), fd_iova(f->txc[q]), FD_LOG2);
		tally_hal_txq_enable(&f->hal, q);
		f->rxprod[q] = FD_QSIZE;
		f->txprod[q] = 0;
		tally_hal_rxq_doorbell(&f->hal, q, f->rxprod[q]);
	}
	for (i = 0; i < TALLY_RSS_KEY_LEN; i++)
		key[i] = (uint8_t)(0x6d + i * 7);
	for (i = 0; i < TALLY_RSS_RETA_SIZE; i++)
		reta[i] = (uint8_t)(i % FD_NQ);
	tally_hal_rss_set_key(&f->hal, key);
	tally_hal_rss_set_reta(&f->hal, reta);
	tally_hal_rss_set_hf(&f->hal, TALLY_RSS_HF_IPV4 | TALLY_RSS_HF_IPV4_UDP |
			     TALLY_RSS_HF_IPV6 | TALLY_RSS_HF_IPV6_TCP);
	tally_hal_ctrl_update(&f->hal, TALLY_CTRL_ENABLE | TALLY_CTRL_PROMISC |
			      TALLY_CTRL_RSS | TALLY_CTRL_STEER, 0);
	if (f->steer != NULL) {
		uint64_t root = tally_steer_ctx_root_iova(f->steer);

		tally_hal_write32(&f->hal, TALLY_REG_STEER_ROOT_LO, (uint32_t)root);
		tally_hal_write32(&f->hal, TALLY_REG_STEER_ROOT_HI, (uint32_t)(root >> 32));
		tally_hal_write32(&f->hal, TALLY_REG_STEER_CTRL, TALLY_STEER_CTRL_EN);
	}
}

static void
fd_key_ipv4(struct tally_match_key *k, uint32_t field, uint32_t ip)
{
	uint8_t b[4] = { (uint8_t)(ip >> 24), (uint8_t)(ip >> 16),
			 (uint8_t)(ip >> 8), (uint8_t)ip };

	memcpy(&k->b[TALLY_MK(TALLY_MS_OUTER, field)], b, 4);
}

static void
fd_key_u16(struct tally_match_key *k, uint32_t field, uint16_t v)
{
	k->b[TALLY_MK(TALLY_MS_OUTER, field)] = (uint8_t)(v >> 8);
	k->b[TALLY_MK(TALLY_MS_OUTER, field) + 1] = (uint8_t)v;
}

/* Rule value for matcher i from a selector (so that frames can hit it). */
static void
fd_rule_value(unsigned int i, uint32_t sel, struct tally_match_key *v)
{
	memset(v, 0, sizeof(*v));
	if (i == 0)
		fd_key_ipv4(v, TALLY_L24_DST_IPV4, 0x0a000100u + sel % 8);
	else if (i == 1)
		fd_key_u16(v, TALLY_L24_UDP_DPORT, (uint16_t)(5000 + sel % 4));
	else
		fd_key_ipv4(v, TALLY_L24_SRC_IPV4, 0x0a000000u + sel % 8);
}

static int
fd_rule(struct fd *f, unsigned int i, uint32_t sel, const struct tally_steer_action *a)
{
	struct tally_match_key v;
	int rc;

	if (f->nrules == FD_MAX_RULES)
		return -ENOSPC;
	fd_rule_value(i, sel, &v);
	rc = tally_steer_rule_insert(f->mt[i], &v, a, &f->rules[f->nrules]);
	if (rc == 0)
		f->nrules++;
	return rc;
}

static int
fd_steering(struct fd *f)
{
	static const uint16_t rss_q[FD_NQ] = { 0, 1 };
	struct tally_steer_config sc = {
		.io = &f->io, .fence = &f->fence,
		.mem = { .alloc = fd_steer_alloc, .free = fd_steer_free, .arg = f },
		.max_tables = 4, .max_rss = 4, .nb_queues = FD_NQ,
	};
	const struct tally_steer_action acts[] = {
		{ .flags = TALLY_STEER_A_COUNT | TALLY_STEER_A_MARK,
		  .fate = TALLY_STEER_FATE_QUEUE, .arg = 1, .counter = 1, .mark = 7 },
		{ .fate = TALLY_STEER_FATE_JUMP, .arg = 1 },
		{ .fate = TALLY_STEER_FATE_DROP, .flags = TALLY_STEER_A_COUNT, .counter = 2 },
		{ .fate = TALLY_STEER_FATE_PASSTHRU, .flags = TALLY_STEER_A_COUNT, .counter = 3 },
	};
	struct tally_steer_action a = { 0 };
	struct tally_steer_table *t0, *t1;
	struct tally_match_key mask;
	unsigned int i;
	int rc;

	tally_fence_init(&f->fence, &f->io);
	rc = tally_steer_ctx_create(&sc, &f->steer);
	if (rc < 0) {
		f->steer = NULL;
		return rc;
	}
	if (tally_steer_table_create(f->steer, 0, &t0) < 0 ||
	    tally_steer_table_create(f->steer, 1, &t1) < 0 ||
	    tally_steer_rss_create(f->steer, 0, rss_q, FD_NQ, &f->rss_id) < 0)
		return -EINVAL;
	for (i = 0; i < 3; i++) {
		memset(&mask, 0, sizeof(mask));
		if (i == 0)
			fd_key_ipv4(&mask, TALLY_L24_DST_IPV4, 0xffffffffu);
		else if (i == 1)
			fd_key_u16(&mask, TALLY_L24_UDP_DPORT, 0xffff);
		else
			fd_key_ipv4(&mask, TALLY_L24_SRC_IPV4, 0xffffffffu);
		rc = tally_steer_matcher_create(i == 2 ? t1 : t0, i, &mask, &f->mt[i]);
		if (rc < 0)
			return rc;
	}
	for (i = 0; i < TALLY_ARRAY_SIZE(acts); i++)
		if (fd_rule(f, 0, i + 1, &acts[i]) < 0)
			return -EINVAL;
	a.fate = TALLY_STEER_FATE_RSS;
	a.arg = f->rss_id;
	if (fd_rule(f, 1, 0, &a) < 0)
		return -EINVAL;
	a.fate = TALLY_STEER_FATE_QUEUE;
	a.arg = 0;
	a.flags = TALLY_STEER_A_FLAG | TALLY_STEER_A_COUNT;
	a.counter = 4;
	return fd_rule(f, 2, 1, &a);
}

static int
fd_open(struct fd *f)
{
	struct tally_model_config cfg;
	int rc;

	memset(f, 0, sizeof(*f));
	tally_model_config_init(&cfg);
	cfg.rx_queues = FD_NQ;
	cfg.tx_queues = FD_NQ;
	cfg.counters = 64;
	cfg.comp_counters = 8;
	rc = tally_model_create(&cfg, &f->m, NULL, 0);
	if (rc < 0)
		return rc;
	tally_model_io(f->m, &f->io);
	rc = tally_hal_open(&f->hal, &f->io);
	if (rc == 0)
		rc = fd_queues(f);
	if (rc == 0) {
		fd_program(f);
		rc = fd_steering(f);
	}
	return rc;
}

static void
fd_close(struct fd *f)
{
	unsigned int i;

	if (f->tainted)
		memcpy(fd_arena, fd_backup, f->backup_top);
	if (f->steer != NULL) {
		for (i = 0; i < f->nrules; i++)
			tally_steer_rule_delete(f->rules[i]);
		for (i = 0; i < 3; i++)
			if (f->mt[i] != NULL)
				tally_steer_matcher_destroy(f->mt[i]);
		tally_steer_ctx_destroy(f->steer);
	}
	tally_fence_fini(&f->fence);
	if (f->m != NULL)
		tally_model_destroy(f->m);
	/* all of it: hostile descriptors may have had the device write past top,
	 * and the next input's steering memory must start zeroed */
	memset(fd_arena, 0, FD_ARENA_LEN);
}

/* Before an operation that may change memory lib/steer trusts. */
static void
fd_taint(struct fd *f)
{
	if (f->tainted)
		return;
	memcpy(fd_backup, fd_arena, f->top);
	f->backup_top = f->top;
	f->tainted = true;
}

/* ---- frames ---------------------------------------------------------------- */
/* Ethernet/IPv4/UDP (or TCP, or IPv6/UDP) whose addresses and ports come
 * from small sets the rules use; returns the length. */
static uint32_t
fd_frame(struct fd_in *in, uint8_t *b)
{
	uint8_t sel = in_u8(in), ip = in_u8(in), pl = in_u8(in);
	uint32_t len = 60 + (uint32_t)pl * 4, l4 = 34;
	uint16_t dport = (uint16_t)(5000 + (sel >> 4) % 6);

	memset(b, 0, len);
	memcpy(b, "\x02\x00\x00\x00\x00\x00\x02\x00\x00\x00\x00\x01", 12);
	if (sel & 8) {
		b[12] = 0x86;
		b[13] = 0xdd;
		b[14] = 0x60;
		b[18] = (uint8_t)((len - 54) >> 8);
		b[19] = (uint8_t)(len - 54);
		b[20] = 17;
		b[21] = 64;
		b[37] = (uint8_t)(ip & 7);
		b[53] = (uint8_t)(ip >> 3);
		l4 = 54;
	} else {
		b[12] = 0x08;
		b[14] = 0x45;
		b[16] = (uint8_t)((len - 14) >> 8);
		b[17] = (uint8_t)(len - 14);
		b[22] = 64;
		b[23] = (sel & 4) ? 6 : 17;
		b[26] = 10;
		b[29] = (uint8_t)(ip & 7);
		b[30] = 10;
		b[32] = 1;
		b[33] = (uint8_t)(ip >> 3) % 10;
	}
	b[l4] = 0x04;
	b[l4 + 1] = (uint8_t)(sel & 3);
	b[l4 + 2] = (uint8_t)(dport >> 8);
	b[l4 + 3] = (uint8_t)dport;
	return len;
}

/* ---- operations ------------------------------------------------------------ */
static void
fd_reg_write(struct fd *f, struct fd_in *in)
{
	uint32_t off = in_u16(in) % (FD_REGFILE + 0x400), val = in_u32(in);

	if (!(in_u8(in) & 1))
		off &= ~3u;
	if ((off >= TALLY_REG_XLT_IOVA_LO && off <= TALLY_REG_XLT_COUNT) ||
	    off == TALLY_REG_RESET)
		return;
	fd_taint(f);
	f->io.ops->write32(f->io.ctx, off, val);
}

static void
fd_patch(struct fd *f, struct fd_in *in)
{
	const struct fd_alloc *a = &f->allocs[in_u8(in) % f->nallocs];
	size_t off = in_u16(in) % a->len;
	size_t len = 1 + in_u8(in) % 8;

	if (len > a->len - off)
		len = a->len - off;
	fd_taint(f);
	in_bytes(in, a->p + off, len);
}

static void
fd_rx_doorbell(struct fd *f, struct fd_in *in)
{
	unsigned int q = in_u8(in) % FD_NQ, i;
	uint32_t head = tally_hal_read32(&f->hal, TALLY_RXQ_REG(q, TALLY_Q_HEAD));
	uint8_t how = in_u8(in);

	if (how & 1) {
		fd_taint(f);
		tally_hal_rxq_doorbell(&f->hal, q, (how & 2) ? in_u32(in) : head + in_u8(in));
		return;
	}
	/* a driver's refill: repost every consumed slot, then ring */
	for (i = 0; i < FD_QSIZE; i++) {
		f->rxr[q][i].addr = fd_iova(f->rxb[q] + (size_t)i * FD_BUF);
		f->rxr[q][i].buf_len = FD_BUF;
	}
	f->rxprod[q] = head + FD_QSIZE;
	tally_hal_rxq_doorbell(&f->hal, q, f->rxprod[q]);
}

static void
fd_tx_doorbell(struct fd *f, struct fd_in *in)
{
	unsigned int q = in_u8(in) % FD_NQ;
	uint8_t how = in_u8(in);

	fd_taint(f);
	f->txprod[q] = (how & 1) ? in_u32(in) : f->txprod[q] + how % 20;
	tally_hal_txq_doorbell(&f->hal, q, f->txprod[q]);
}

static void
fd_tx_frame(struct fd *f, struct fd_in *in)
{
	unsigned int q = in_u8(in) % FD_NQ, nseg = 1 + in_u8(in) % 3, k;
	uint32_t head = tally_hal_read32(&f->hal, TALLY_TXQ_REG(q, TALLY_Q_HEAD));
	uint8_t frame[FD_BUF];
	uint32_t len = fd_frame(in, frame), off = 0, seg, slot;

	if (f->txprod[q] - head + nseg > FD_QSIZE)
		f->txprod[q] = head;	/* a stuck ring: start over at the head */
	for (k = 0; k < nseg; k++) {
		seg = k + 1 == nseg ? len - off : len / nseg;
		slot = (f->txprod[q] + k) & (FD_QSIZE - 1);
		memcpy(f->txb[q] + (size_t)slot * FD_BUF, frame + off, seg);
		f->txr[q][slot].addr = fd_iova(f->txb[q] + (size_t)slot * FD_BUF);
		f->txr[q][slot].len = (uint16_t)seg;
		f->txr[q][slot].flags = k + 1 == nseg ? TALLY_TXD_F_EOP : 0;
		off += seg;
	}
	f->txprod[q] += nseg;
	tally_hal_txq_doorbell(&f->hal, q, f->txprod[q]);
}

static void
fd_inject_raw(struct fd *f, struct fd_in *in)
{
	static uint8_t frame[FD_BUF];
	uint32_t len = in_u16(in) % 2048;

	in_bytes(in, frame, len);
	tally_model_inject(f->m, frame, len);
}

static void
fd_inject_frame(struct fd *f, struct fd_in *in)
{
	uint8_t frame[FD_BUF];
	uint32_t len = fd_frame(in, frame);

	tally_model_inject(f->m, frame, len);
}

static void
fd_steer_op(struct fd *f, struct fd_in *in)
{
	struct tally_steer_action a = { 0 };
	uint8_t what = in_u8(in);
	unsigned int i;

	if (f->tainted || f->steer == NULL)
		return;
	if (what & 1) {
		if (f->nrules == 0)
			return;
		i = in_u8(in) % f->nrules;
		if (tally_steer_rule_delete(f->rules[i]) == 0)
			f->rules[i] = f->rules[--f->nrules];
		return;
	}
	a.flags = in_u8(in) & 7;
	a.fate = (enum tally_steer_fate)(in_u8(in) % 7);
	a.arg = in_u8(in) % 4;
	if (a.fate == TALLY_STEER_FATE_RSS)
		a.arg = f->rss_id;
	a.counter = in_u8(in);
	a.mark = in_u32(in);
	fd_rule(f, (what >> 1) % 3, in_u8(in), &a);
}

static void
fd_steer_root(struct fd *f, struct fd_in *in)
{
	uint64_t root = fd_iova(fd_arena) + in_u32(in) % FD_ARENA_LEN;

	fd_taint(f);
	tally_hal_write32(&f->hal, TALLY_REG_STEER_ROOT_LO, (uint32_t)root);
	tally_hal_write32(&f->hal, TALLY_REG_STEER_ROOT_HI, (uint32_t)(root >> 32));
}

static void
fd_requeue(struct fd *f, struct fd_in *in)
{
	unsigned int q = in_u8(in) % FD_NQ;
	uint8_t how = in_u8(in);

	fd_taint(f);
	if (how & 1) {
		tally_hal_txq_disable(&f->hal, q);
		tally_hal_txq_enable(&f->hal, q);
		f->txprod[q] = 0;
	} else {
		tally_hal_rxq_disable(&f->hal, q);
		tally_hal_rxq_enable(&f->hal, q, (how & 2) != 0);
		f->rxprod[q] = 0;
	}
}

/* A translation command naming only bus pages of the arena: any IOVA near
 * it (so rings, buffers and steering structures may move or vanish). */
static void
fd_xlt(struct fd *f, struct fd_in *in)
{
	const uint64_t pages = FD_ARENA_LEN / TALLY_XLT_PAGE;
	uint64_t bp = in_u16(in) % pages, np = 1 + in_u16(in) % pages;
	int64_t shift = (int16_t)in_u16(in);
	uint64_t iova = fd_iova(fd_arena) + (uint64_t)(shift * (int64_t)TALLY_XLT_PAGE);
	uint8_t how = in_u8(in);

	fd_taint(f);
	if (bp + np > pages)
		np = pages - bp;
	iova += bp * TALLY_XLT_PAGE;
	switch (how % 4) {
	case 0:
	case 1:
		(void)tally_hal_xlt_map(&f->hal, iova, fd_iova(fd_arena + bp * TALLY_XLT_PAGE),
					np * TALLY_XLT_PAGE);
		break;
	case 2:
		(void)tally_hal_xlt_unmap(&f->hal, iova, np * TALLY_XLT_PAGE);
		break;
	default:
		(void)tally_hal_xlt_clear(&f->hal);
		break;
	}
}

static bool
fd_op(struct fd *f, struct fd_in *in)
{
	switch (in_u8(in) % 13) {
	case 0: fd_reg_write(f, in); break;
	case 1: fd_patch(f, in); break;
	case 2: fd_rx_doorbell(f, in); break;
	case 3: fd_tx_doorbell(f, in); break;
	case 4: fd_tx_frame(f, in); break;
	case 5: fd_inject_raw(f, in); break;
	case 6: fd_inject_frame(f, in); break;
	case 7: tally_model_step(f->m); break;
	case 8: fd_steer_op(f, in); break;
	case 9: fd_steer_root(f, in); break;
	case 10: fd_requeue(f, in); break;
	case 11: fd_xlt(f, in); break;
	default:
		fd_taint(f);
		tally_hal_reset(&f->hal);
		fd_program(f);
		return true;
	}
	return false;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fd_in in = { data, size };
	struct fd f;
	unsigned int ops;
	bool reset;

	if (fd_arena == NULL) {
		fd_arena = mmap(NULL, 2 * (size_t)FD_ARENA_LEN, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (fd_arena == MAP_FAILED)
			abort();
		fd_backup = fd_arena + FD_ARENA_LEN;
	}
	if (fd_open(&f) != 0)
		abort();	/* the valid set-up must always work */
	fd_check(&f, false);
	if (f.faults != 0)
		abort();	/* and raise no fault */
	for (ops = 0; ops < FD_MAX_OPS && in.n > 0; ops++) {
		reset = fd_op(&f, &in);
		fd_check(&f, reset);
	}
	fd_close(&f);
	return 0;
}
