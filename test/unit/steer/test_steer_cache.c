/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The device's cache of steering structures (lib/model/tally_model_cls.h):
 *  - memory freed after a fence and reused at the same IOVA for a different
 *    structure is seen as the new structure (the fence drops the cache);
 *  - a structure that fails validation is not cached: it faults on every
 *    frame that reaches it, in a burst as one by one, and works once fixed;
 *  - a burst makes exactly the faults and counter updates of single calls;
 *  - the presence filter of a hash array is consulted (a clear bit hides a
 *    VALID entry), is ignored without F_FILTER, and unknown flags fault.
 */
#include <stdlib.h>

#include "tally_test.h"
#include "steer_model_dev.h"
#include "tally_model.h"
#include "tally_model_dev.h"

#define ARENA_LEN	(64u << 20)
#define NB		40

struct cc {
	struct steer_dev dev;
	struct tally_steer_table *t;
};

static int
cc_setup(struct cc *c)
{
	struct tally_steer_config sc = { 0 };
	char err[128];

	memset(c, 0, sizeof(*c));
	TEST_ASSERT_EQ(steer_dev_init(&c->dev, ARENA_LEN, 64, &sc, err, sizeof(err)), 0,
		       "%s", err);
	TEST_ASSERT_EQ(tally_steer_table_create(c->dev.ctx, 0, &c->t), 0, "");
	return TEST_SUCCESS;
}

static void
cc_teardown(struct cc *c)
{
	steer_dev_fini(&c->dev);
}

static void
port_mask(struct tally_match_key *k, uint32_t field)
{
	memset(k, 0, sizeof(*k));
	key_put(k, TALLY_MK(TALLY_MS_OUTER, field), 0xffff, 2);
}

static void
port_pkt(struct tally_model_pkt *p, uint16_t sp, uint16_t dp)
{
	memset(p, 0, sizeof(*p));
	key_put(&p->key, TALLY_MK(TALLY_MS_OUTER, TALLY_L24_UDP_SPORT), sp, 2);
	key_put(&p->key, TALLY_MK(TALLY_MS_OUTER, TALLY_L24_UDP_DPORT), dp, 2);
	p->len = 100;
}

static int
insert(struct tally_steer_matcher *m, uint32_t field, uint16_t port, uint16_t q)
{
	struct tally_steer_action a = { .fate = TALLY_STEER_FATE_QUEUE, .arg = q };
	struct tally_steer_rule *r;
	struct tally_match_key v;

	memset(&v, 0, sizeof(v));
	key_put(&v, TALLY_MK(TALLY_MS_OUTER, field), port, 2);
	return tally_steer_rule_insert(m, &v, &a, &r);
}

static uint32_t
faults(struct cc *c)
{
	return c->dev.io.ops->read32(c->dev.io.ctx, TALLY_REG_FAULT_CNT);
}

/* A matcher list freed after a fence and reused at the same address for a
 * different list: the device must see the new list. */
static int
test_cache_reuse_after_fence(void)
{
	struct cc c;
	struct tally_steer_matcher *a, *b, *d;
	struct tally_match_key mk;
	struct tally_model_pkt p;
	struct tally_model_verdict v;
	const struct tally_steer_tbl *tb;
	uint64_t l1;

	TEST_ASSERT_EQ(cc_setup(&c), TEST_SUCCESS, "");
	tb = (const void *)(uintptr_t)((const struct tally_steer_root *)(uintptr_t)
		tally_steer_ctx_root_iova(c.dev.ctx))->tables_iova;
	port_mask(&mk, TALLY_L24_UDP_DPORT);
	TEST_ASSERT_EQ(tally_steer_matcher_create(c.t, 1, &mk, &a), 0, "");
	TEST_ASSERT_EQ(insert(a, TALLY_L24_UDP_DPORT, 80, 1), 0, "");
	port_pkt(&p, 7, 80);
	tally_model_steer_classify(c.dev.m, &p, &v);	/* caches list [a] */
	TEST_ASSERT_EQ(v.flags, TALLY_VERDICT_QUEUE, "");
	TEST_ASSERT_EQ(v.queue, 1, "");
	l1 = tb[0].mlist;
	port_mask(&mk, TALLY_L24_UDP_SPORT);
	TEST_ASSERT_EQ(tally_steer_matcher_create(c.t, 0, &mk, &b), 0, "");	/* [b a] */
	TEST_ASSERT_EQ(tally_steer_ctx_sync(c.dev.ctx, 1000000), 0, "");	/* frees [a] */
	/* five key words: its descriptor is not of the list's size, so the
	 * list is the first allocation that can take the freed list's memory */
	key_mask_5tuple(&mk);
	TEST_ASSERT_EQ(tally_steer_matcher_create(c.t, 2, &mk, &d), 0, "");	/* [b a d] */
	TEST_ASSERT_U64_EQ(tb[0].mlist, l1, "the new list reuses the freed one's memory");
	TEST_ASSERT_EQ(insert(b, TALLY_L24_UDP_SPORT, 7, 2), 0, "");
	tally_model_steer_classify(c.dev.m, &p, &v);
	TEST_ASSERT_EQ(v.flags, TALLY_VERDICT_QUEUE, "");
	TEST_ASSERT_EQ(v.queue, 2, "matcher b (first in the new list) wins");
	TEST_ASSERT_EQ(faults(&c), 0, "");
	cc_teardown(&c);
	return TEST_SUCCESS;
}

/* Bad root and bad matcher descriptor: one fault per frame, burst or not;
 * nothing bad is cached, so fixing the memory is enough. */
static int
test_cache_bad_not_cached(void)
{
	struct cc c;
	struct tally_steer_matcher *a;
	struct tally_match_key mk;
	struct tally_model_pkt p[NB];
	const struct tally_model_pkt *pp[NB];
	struct tally_model_verdict v[NB];
	struct tally_steer_matcher_desc *d;
	const struct tally_steer_mlist *ml;
	struct tally_steer_root *root;
	uint32_t i, f0, magic;
	uint64_t cnt0p, cnt0b, p1, b1;
	struct tally_steer_action act = { .flags = TALLY_STEER_A_COUNT,
					  .fate = TALLY_STEER_FATE_QUEUE, .arg = 3 };
	struct tally_steer_rule *r;
	struct tally_match_key val;

	TEST_ASSERT_EQ(cc_setup(&c), TEST_SUCCESS, "");
	root = (void *)(uintptr_t)tally_steer_ctx_root_iova(c.dev.ctx);
	port_mask(&mk, TALLY_L24_UDP_DPORT);
	TEST_ASSERT_EQ(tally_steer_matcher_create(c.t, 0, &mk, &a), 0, "");
	TEST_ASSERT_EQ(tally_cnt_alloc(c.dev.pool, &act.counter), 0, "");
	memset(&val, 0, sizeof(val));
	key_put(&val, TALLY_MK(TALLY_MS_OUTER, TALLY_L24_UDP_DPORT), 53, 2);
	TEST_ASSERT_EQ(tally_steer_rule_insert(a, &val, &act, &r), 0, "");
	tally_cnt_free(c.dev.pool, act.counter);	/* the rule holds it */
	for (i = 0; i < NB; i++) {
		port_pkt(&p[i], 1, i % 2 ? 53 : 54);	/* half hit */
		pp[i] = &p[i];
	}
	ml = (const void *)(uintptr_t)((const struct tally_steer_tbl *)(uintptr_t)
					root->tables_iova)[0].mlist;
	d = (void *)(uintptr_t)ml->matcher[0];

	/* bad matcher magic before the device ever used it */
	magic = d->magic;
	d->magic = 0x1234;
	f0 = faults(&c);
	tally_model_steer_classify_burst(c.dev.m, pp, NB, v);
	TEST_ASSERT_EQ(faults(&c) - f0, NB, "one fault per frame in a burst");
	for (i = 0; i < NB; i++)
		TEST_ASSERT_EQ(v[i].flags, TALLY_VERDICT_DROP, "frame %u", i);
	tally_model_steer_classify(c.dev.m, pp[0], &v[0]);
	TEST_ASSERT_EQ(faults(&c) - f0, NB + 1, "and alone");
	d->magic = magic;
	tally_model_steer_classify_burst(c.dev.m, pp, NB, v);
	TEST_ASSERT_EQ(faults(&c) - f0, NB + 1, "fixed: no more faults");
	for (i = 0; i < NB; i++)
		TEST_ASSERT_EQ(v[i].flags, i % 2 ? TALLY_VERDICT_QUEUE : 0u, "frame %u", i);
	TEST_ASSERT_EQ(tally_cnt_read(c.dev.pool, act.counter, &cnt0p, &cnt0b), 0, "");
	TEST_ASSERT_U64_EQ(cnt0p, NB / 2, "");
	TEST_ASSERT_U64_EQ(cnt0b, NB / 2 * 100, "");

	/* bad root: one fault per frame */
	root->magic ^= 1;
	c.dev.io.ops->write32(c.dev.io.ctx, TALLY_REG_STEER_ROOT_LO,
			  (uint32_t)tally_steer_ctx_root_iova(c.dev.ctx));	/* republish */
	f0 = faults(&c);
	tally_model_steer_classify_burst(c.dev.m, pp, 33, v);
	TEST_ASSERT_EQ(faults(&c) - f0, 33, "");
	for (i = 0; i < 33; i++)
		TEST_ASSERT_EQ(v[i].flags, TALLY_VERDICT_DROP, "frame %u", i);
	root->magic ^= 1;
	tally_model_steer_classify_burst(c.dev.m, pp, NB, v);
	TEST_ASSERT_EQ(faults(&c) - f0, 33, "fixed root");
	TEST_ASSERT_EQ(tally_cnt_read(c.dev.pool, act.counter, &p1, &b1), 0, "");
	TEST_ASSERT_U64_EQ(p1 - cnt0p, NB / 2, "");
	TEST_ASSERT_U64_EQ(b1 - cnt0b, NB / 2 * 100, "");
	cc_teardown(&c);
	return TEST_SUCCESS;
}

static int
test_cache_filter(void)
{
	struct cc c;
	struct tally_steer_matcher *a;
	struct tally_match_key mk;
	struct tally_model_pkt p;
	struct tally_model_verdict v;
	const struct tally_steer_mlist *ml;
	const struct tally_steer_matcher_desc *d;
	struct tally_steer_htab *h;
	const struct tally_steer_root *root;
	uint32_t w, hash, bit, f0;
	uint8_t *filter;

	TEST_ASSERT_EQ(cc_setup(&c), TEST_SUCCESS, "");
	root = (const void *)(uintptr_t)tally_steer_ctx_root_iova(c.dev.ctx);
	port_mask(&mk, TALLY_L24_UDP_DPORT);
	TEST_ASSERT_EQ(tally_steer_matcher_create(c.t, 0, &mk, &a), 0, "");
	TEST_ASSERT_EQ(insert(a, TALLY_L24_UDP_DPORT, 80, 5), 0, "");
	port_pkt(&p, 9, 80);
	tally_model_steer_classify(c.dev.m, &p, &v);
	TEST_ASSERT_EQ(v.flags, TALLY_VERDICT_QUEUE, "hit");
	ml = (const void *)(uintptr_t)((const struct tally_steer_tbl *)(uintptr_t)
					root->tables_iova)[0].mlist;
	d = (const void *)(uintptr_t)ml->matcher[0];
	h = (void *)(uintptr_t)d->htab;
	TEST_ASSERT_EQ(h->flags, TALLY_STEER_HTAB_F_FILTER | TALLY_STEER_HTAB_F_DRIVER,
		       "lib/steer builds a filter, and keeps a driver word per entry");
	TEST_ASSERT_EQ(d->nwords, 1, "");
	TEST_ASSERT_EQ(h->stride, TALLY_STEER_ENTRY_SIZE(1) + 4, "the key word, then the driver's");
	w = tally_steer_key_word(&p.key, d->words[0].idx) & d->words[0].mask;
	hash = tally_steer_hash(&w, 1, h->seed);
	bit = tally_steer_filter_bit(hash, h->log2_size);
	filter = tally_steer_filter((uint8_t *)h + sizeof(*h), h->log2_size, h->stride);
	TEST_ASSERT(filter[bit >> 3] & (1u << (bit & 7)), "the rule's bit is set");
	filter[bit >> 3] &= (uint8_t)~(1u << (bit & 7));
	tally_model_steer_classify(c.dev.m, &p, &v);
	TEST_ASSERT_EQ(v.flags, 0, "a clear bit hides the entry");
	/* without F_FILTER (seen after a fence) the device probes again */
	h->flags = TALLY_STEER_HTAB_F_DRIVER;
	TEST_ASSERT_EQ(tally_steer_ctx_sync(c.dev.ctx, 1000000), 0, "");
	tally_model_steer_classify(c.dev.m, &p, &v);
	TEST_ASSERT_EQ(v.flags, TALLY_VERDICT_QUEUE, "no filter: probed");
	h->flags = 0x80 | TALLY_STEER_HTAB_F_DRIVER;
	TEST_ASSERT_EQ(tally_steer_ctx_sync(c.dev.ctx, 1000000), 0, "");
	f0 = faults(&c);
	tally_model_steer_classify(c.dev.m, &p, &v);
	TEST_ASSERT_EQ(v.flags, TALLY_VERDICT_DROP, "unknown flag");
	TEST_ASSERT_EQ(faults(&c) - f0, 1, "");
	TEST_ASSERT_EQ(c.dev.io.ops->read32(c.dev.io.ctx, TALLY_REG_FAULT_CAUSE), TALLY_FAULT_BAD_STEER, "");
	/* a stride with a driver word, and no F_DRIVER: malformed */
	h->flags = TALLY_STEER_HTAB_F_FILTER;
	TEST_ASSERT_EQ(tally_steer_ctx_sync(c.dev.ctx, 1000000), 0, "");
	f0 = faults(&c);
	tally_model_steer_classify(c.dev.m, &p, &v);
	TEST_ASSERT_EQ(v.flags, TALLY_VERDICT_DROP, "stride of another format");
	TEST_ASSERT_EQ(faults(&c) - f0, 1, "");
	h->flags = TALLY_STEER_HTAB_F_FILTER | TALLY_STEER_HTAB_F_DRIVER;
	filter[bit >> 3] |= (uint8_t)(1u << (bit & 7));
	tally_model_steer_classify(c.dev.m, &p, &v);
	TEST_ASSERT_EQ(v.flags, TALLY_VERDICT_QUEUE, "restored");
	cc_teardown(&c);
	return TEST_SUCCESS;
}

static const struct tally_test_case cases[] = {
	TEST_CASE(test_cache_filter),
	TEST_CASE(test_cache_reuse_after_fence),
	TEST_CASE(test_cache_bad_not_cached),
};

TEST_MAIN("steer-cache", cases)
