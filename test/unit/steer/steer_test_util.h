/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Helpers of the steering tests: an arena allocator standing in for DMA-able
 * memory (one translation maps it), and a fake device transport whose fence
 * completes only when the test says so.
 */
#ifndef STEER_TEST_UTIL_H
#define STEER_TEST_UTIL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <tally/tally_cnt_bank.h>
#include <tally/tally_io.h>
#include <tally/tally_regs.h>
#include "tally_steer.h"

/* ---- arena: power-of-two size classes, free lists, bump allocation ------- */
#define ARENA_CLASSES	40

struct arena {
	uint8_t *base;
	size_t len;
	size_t top;
	void *free[ARENA_CLASSES];
	uint64_t live;			/* bytes handed out */
	uint64_t fail_after;		/* fail the n-th next alloc (0 = never) */
};

static inline unsigned int
arena_class(size_t size)
{
	unsigned int c = 6;

	while (((size_t)1 << c) < size)
		c++;
	return c;
}

static inline int
arena_init(struct arena *a, size_t len)
{
	memset(a, 0, sizeof(*a));
	a->base = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (a->base == MAP_FAILED)
		return -ENOMEM;
	a->len = len;
	return 0;
}

/* The arena mapped (IOVA = bus = VA) in a software device, steering on. */
static inline void
arena_map_steer(const struct arena *a, const struct tally_io *io)
{
	uint64_t base = (uint64_t)(uintptr_t)a->base;
	uint64_t len = (uint64_t)a->len;

	io->ops->write32(io->ctx, TALLY_REG_XLT_IOVA_LO, (uint32_t)base);
	io->ops->write32(io->ctx, TALLY_REG_XLT_IOVA_HI, (uint32_t)(base >> 32));
	io->ops->write32(io->ctx, TALLY_REG_XLT_BUS_LO, (uint32_t)base);
	io->ops->write32(io->ctx, TALLY_REG_XLT_BUS_HI, (uint32_t)(base >> 32));
	io->ops->write32(io->ctx, TALLY_REG_XLT_LEN_LO, (uint32_t)len);
	io->ops->write32(io->ctx, TALLY_REG_XLT_LEN_HI, (uint32_t)(len >> 32));
	io->ops->write32(io->ctx, TALLY_REG_XLT_CMD, TALLY_XLT_CMD_MAP);
	io->ops->write32(io->ctx, TALLY_REG_CTRL, TALLY_CTRL_ENABLE | TALLY_CTRL_STEER);
}

static inline void
arena_fini(struct arena *a)
{
	munmap(a->base, a->len);
}

static inline void *
arena_alloc(void *arg, size_t size, size_t align, uint64_t *iova)
{
	struct arena *a = arg;
	unsigned int c = arena_class(size);
	size_t sz = (size_t)1 << c;
	void *p;

	(void)align;	/* every class is >= 64 and naturally aligned */
	if (a->fail_after != 0 && --a->fail_after == 0)
		return NULL;
	if (a->free[c] != NULL) {
		p = a->free[c];
		a->free[c] = *(void **)p;
	} else {
		size_t off = TALLY_ALIGN_UP(a->top, sz);

		if (off + sz > a->len)
			return NULL;
		p = a->base + off;
		a->top = off + sz;
	}
	memset(p, 0, sz);
	a->live += sz;
	*iova = (uint64_t)(uintptr_t)p;
	return p;
}

static inline void
arena_free(void *arg, void *p, size_t size)
{
	struct arena *a = arg;
	unsigned int c = arena_class(size);

	memset(p, 0xa5, (size_t)1 << c);	/* poison: device must not read it */
	*(void **)p = a->free[c];
	a->free[c] = p;
	a->live -= (size_t)1 << c;
}

static inline struct tally_steer_mem_ops
arena_ops(struct arena *a)
{
	struct tally_steer_mem_ops ops = {
		.alloc = arena_alloc, .free = arena_free, .arg = a,
	};

	return ops;
}

/* ---- fake device: a BAR buffer; FENCE completes if auto_fence ------------- */
struct fake_dev {
	struct tally_io io;
	uint8_t *bar;
	size_t len;
	bool auto_fence;
	uint32_t fences;		/* FENCE writes seen */
};

static inline uint32_t
fake_read32(void *ctx, uint32_t off)
{
	struct fake_dev *d = ctx;
	uint32_t v;

	memcpy(&v, d->bar + off, 4);
	return v;
}

static inline void
fake_write32(void *ctx, uint32_t off, uint32_t val)
{
	struct fake_dev *d = ctx;

	memcpy(d->bar + off, &val, 4);
	if (off == TALLY_REG_FENCE) {
		d->fences++;
		if (d->auto_fence)
			memcpy(d->bar + TALLY_REG_FENCE_DONE, &val, 4);
	}
}

static const struct tally_io_ops fake_io_ops = {
	.name = "fake",
	.read32 = fake_read32,
	.write32 = fake_write32,
	.service = NULL,
};

static inline int
fake_dev_init(struct fake_dev *d, uint32_t counters)
{
	uint32_t off = TALLY_CNT_BANK_OFF;

	memset(d, 0, sizeof(*d));
	d->len = off + (size_t)counters * sizeof(struct tally_cnt_entry);
	d->bar = aligned_alloc(4096, TALLY_ALIGN_UP(d->len, (size_t)4096));
	if (d->bar == NULL)
		return -ENOMEM;
	memset(d->bar, 0, d->len);
	memcpy(d->bar + TALLY_REG_CNT_NUM, &counters, 4);
	memcpy(d->bar + TALLY_REG_CNT_OFF, &off, 4);
	d->io.ops = &fake_io_ops;
	d->io.ctx = d;
	d->io.bar = d->bar;
	d->io.bar_len = d->len;
	d->auto_fence = true;
	return 0;
}

static inline void
fake_dev_fini(struct fake_dev *d)
{
	free(d->bar);
}

/* Complete every fence requested so far. */
static inline void
fake_dev_fence_complete(struct fake_dev *d)
{
	memcpy(d->bar + TALLY_REG_FENCE_DONE, d->bar + TALLY_REG_FENCE, 4);
}

static inline struct tally_cnt_entry *
fake_dev_cnt(struct fake_dev *d, uint32_t idx)
{
	return (struct tally_cnt_entry *)(void *)(d->bar + TALLY_CNT_BANK_OFF) + idx;
}

/* ---- key helpers ----------------------------------------------------------- */
static inline void
key_put(struct tally_match_key *k, uint32_t off, uint64_t v, uint32_t len)
{
	uint32_t i;

	for (i = 0; i < len; i++)
		k->b[off + i] = (uint8_t)(v >> (8 * (len - 1 - i)));	/* big-endian */
}

/* Mask of the IPv4/UDP 5-tuple: ethertype, ip_version, protocol, addresses, ports. */
static inline void
key_mask_5tuple(struct tally_match_key *mk)
{
	memset(mk, 0, sizeof(*mk));
	key_put(mk, TALLY_MK(TALLY_MS_OUTER, TALLY_L24_ETHERTYPE), 0xffff, 2);
	key_put(mk, TALLY_MK(TALLY_MS_OUTER, TALLY_L24_IP_PROTOCOL), 0xff, 1);
	key_put(mk, TALLY_MK(TALLY_MS_OUTER, TALLY_L24_SRC_IPV4), 0xffffffff, 4);
	key_put(mk, TALLY_MK(TALLY_MS_OUTER, TALLY_L24_DST_IPV4), 0xffffffff, 4);
	key_put(mk, TALLY_MK(TALLY_MS_OUTER, TALLY_L24_UDP_SPORT), 0xffff, 2);
	key_put(mk, TALLY_MK(TALLY_MS_OUTER, TALLY_L24_UDP_DPORT), 0xffff, 2);
}

static inline void
key_5tuple(struct tally_match_key *k, uint32_t sip, uint32_t dip, uint16_t sp,
	   uint16_t dp)
{
	memset(k, 0, sizeof(*k));
	key_put(k, TALLY_MK(TALLY_MS_OUTER, TALLY_L24_ETHERTYPE), 0x0800, 2);
	key_put(k, TALLY_MK(TALLY_MS_OUTER, TALLY_L24_IP_PROTOCOL), 17, 1);
	key_put(k, TALLY_MK(TALLY_MS_OUTER, TALLY_L24_SRC_IPV4), sip, 4);
	key_put(k, TALLY_MK(TALLY_MS_OUTER, TALLY_L24_DST_IPV4), dip, 4);
	key_put(k, TALLY_MK(TALLY_MS_OUTER, TALLY_L24_UDP_SPORT), sp, 2);
	key_put(k, TALLY_MK(TALLY_MS_OUTER, TALLY_L24_UDP_DPORT), dp, 2);
}

/* ---- the device's view -------------------------------------------------- */

/* The device's view: walk matcher desc d for key k as the device does
 * (the presence filter first). */
static inline const struct tally_steer_entry *
steer_dev_find(const struct tally_steer_matcher_desc *d, const struct tally_match_key *k)
{
	const struct tally_steer_htab *h = (const void *)(uintptr_t)d->htab;
	const uint8_t *ent = (const uint8_t *)(h + 1);
	uint32_t w[TALLY_STEER_KEY_WORDS], i, mask = (1u << h->log2_size) - 1, s;

	for (i = 0; i < d->nwords; i++)
		w[i] = tally_steer_key_word(k, d->words[i].idx) & d->words[i].mask;
	s = tally_steer_hash(w, d->nwords, h->seed);
	/* a clear presence filter bit: the device does not probe */
	if (h->flags & TALLY_STEER_HTAB_F_FILTER) {
		uint32_t b = tally_steer_filter_bit(s, h->log2_size);

		if (!((tally_steer_filter(ent, h->log2_size, h->stride)[b >> 3] >> (b & 7)) & 1))
			return NULL;
	}
	s &= mask;
	for (i = 0; i <= mask; i++, s = (s + 1) & mask) {
		const struct tally_steer_entry *e = (const void *)(ent + (size_t)s * h->stride);
		uint32_t st = TALLY_FIELD_GET(e->ctrl, TALLY_STEER_CTRL_STATE_M);

		if (st == TALLY_STEER_S_EMPTY)
			return NULL;
		if (st == TALLY_STEER_S_VALID &&
		    memcmp(e->key, w, d->nwords * sizeof(w[0])) == 0)
			return e;
	}
	return NULL;
}

/* ---- a steering context on a fake device ------------------------------------ */

struct steer_env {
	struct fake_dev dev;
	struct tally_fence fence;
	struct arena arena;
	struct tally_cnt_pool *pool;
	struct tally_steer_ctx *ctx;
};

/* A device of `counters` counters, its fence, an arena, a counter pool and
 * a context with the limits in sc (its io, fence, cnt, mem and lock are
 * filled in here). lock: shared by the pool and the context (NULL: their
 * own). */
static inline int
steer_env_init(struct steer_env *e, uint32_t counters, struct tally_steer_config *sc,
	       struct tally_lock *lock)
{
	struct tally_cnt_pool_config pc = { 0 };
	int rc;

	if (fake_dev_init(&e->dev, counters) != 0 || arena_init(&e->arena, 1ull << 32) != 0)
		return -ENOMEM;
	tally_fence_init(&e->fence, &e->dev.io);
	pc.io = &e->dev.io;
	pc.fence = &e->fence;
	pc.lock = lock;
	rc = tally_cnt_pool_create(&pc, &e->pool);
	if (rc != 0)
		return rc;
	sc->io = &e->dev.io;
	sc->fence = &e->fence;
	sc->cnt = e->pool;
	sc->mem = arena_ops(&e->arena);
	sc->lock = lock;
	return tally_steer_ctx_create(sc, &e->ctx);
}

/* Table id's published matcher list, as the device finds it (NULL: none). */
static inline const struct tally_steer_mlist *
steer_dev_mlist(const struct steer_env *e, uint32_t id)
{
	const struct tally_steer_root *root =
		(const void *)(uintptr_t)tally_steer_ctx_root_iova(e->ctx);
	const struct tally_steer_tbl *tb = (const void *)(uintptr_t)root->tables_iova;

	return (const void *)(uintptr_t)tb[id].mlist;
}

/* The entry of k in any matcher of table id, in list order (a stage before
 * its matcher), as the device sees them; NULL: none. */
static inline const struct tally_steer_entry *
steer_dev_find_table(const struct steer_env *e, uint32_t id, const struct tally_match_key *k)
{
	const struct tally_steer_mlist *ml = steer_dev_mlist(e, id);
	const struct tally_steer_entry *x = NULL;
	uint32_t i;

	for (i = 0; ml != NULL && i < ml->num && x == NULL; i++)
		x = steer_dev_find((const void *)(uintptr_t)ml->matcher[i], k);
	return x;
}

static inline void
steer_env_fini(struct steer_env *e)
{
	tally_steer_ctx_destroy(e->ctx);
	tally_cnt_pool_destroy(e->pool);
	tally_fence_fini(&e->fence);
	arena_fini(&e->arena);
	fake_dev_fini(&e->dev);
}

#endif /* STEER_TEST_UTIL_H */
