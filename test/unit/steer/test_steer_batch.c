/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Batch inserts with encoded actions (tally_steer_batch.h) against the same
 * operations one by one through tally_steer_rule_insert_at_locked(), on two
 * contexts side by side: every operation's result, the stored action, what
 * the device sees and the matcher's state must be the same, through arrays
 * too small for a batch (the one-by-one path with migrations), mostly
 * emptied ones (shrinking), pre-sized ones (the batch path), and ones full
 * of tombstones. Runs on a fake device (no model).
 */
#include <stdlib.h>

#include "tally_test.h"
#include "steer_test_util.h"
#include "tally_steer_batch.h"

#define NB_QUEUES	8
#define KEYS		6000	/* key space: duplicates happen */
#define MAX_LIVE	8192

struct side {
	struct steer_env env;
	struct tally_steer_table *t;
	struct tally_steer_matcher *m;
	struct tally_steer_rule *live[MAX_LIVE];
};

static int
side_init(struct side *s)
{
	struct tally_steer_config sc = { .max_tables = 4, .max_rss = 4, .nb_queues = NB_QUEUES };
	struct tally_match_key mk;
	int rc;

	rc = steer_env_init(&s->env, 2 * MAX_LIVE, &sc, NULL);
	if (rc == 0)
		rc = tally_steer_table_create(s->env.ctx, 0, &s->t);
	key_mask_5tuple(&mk);
	if (rc == 0)
		rc = tally_steer_matcher_create(s->t, 0, &mk, &s->m);
	return rc;
}

static void
side_fini(struct side *s)
{
	steer_env_fini(&s->env);
}

/* The entry the device finds for key value k, or NULL. */
static const struct tally_steer_entry *
dev_find(struct side *s, const struct tally_match_key *k)
{
	return steer_dev_find((const void *)(uintptr_t)steer_dev_mlist(&s->env, 0)->matcher[0],
			      k);
}

/* The actions the batches use, in turn. */
static const struct tally_steer_action encs[] = {
	{ .flags = TALLY_STEER_A_COUNT | TALLY_STEER_A_MARK, .fate = TALLY_STEER_FATE_QUEUE },
	{ .flags = TALLY_STEER_A_FLAG, .fate = TALLY_STEER_FATE_DROP },
	{ .flags = 0, .fate = TALLY_STEER_FATE_PASSTHRU },
	{ .flags = TALLY_STEER_A_MARK, .fate = TALLY_STEER_FATE_QUEUE },
	{ .flags = TALLY_STEER_A_COUNT, .fate = TALLY_STEER_FATE_MISS },
};

struct run {
	struct side a, b;		/* a: batches; b: one by one */
	uint32_t nlive;
	uint32_t seed;
};

static uint32_t
rnd(struct run *r)
{
	r->seed = r->seed * 1103515245u + 12345u;
	return r->seed >> 8;
}

static void
key_of(struct tally_match_key *k, uint32_t v)
{
	key_5tuple(k, 0x0a000000u + v, 0x0b000000u + v * 13, (uint16_t)(v * 7), 53);
}

/* One batch of n operations with action encs[ei] on both sides. */
static int
run_batch(struct run *r, uint32_t n, uint32_t ei)
{
	static struct tally_steer_bop ops[64];
	uint32_t kv[64], i, done;
	const struct tally_steer_action *base = &encs[ei];
	struct tally_steer_act_enc enc;
	struct tally_match_key k;
	uint32_t cnt_b[64];
	bool busy[64];
	int rc_b[64];

	TEST_ASSERT_EQ(tally_steer_action_encode(base, &enc), 0, "");
	for (i = 0; i < n; i++) {
		struct tally_steer_bop *op = &ops[i];
		uint32_t x = rnd(r) % 100;
		struct tally_steer_action act = *base;
		struct tally_steer_rule *rb;

		memset(op, 0, sizeof(*op));
		kv[i] = rnd(r) % KEYS;
		key_of(&k, kv[i]);
		tally_steer_rule_key(r->a.m, &k, &op->key);
		op->queue = rnd(r) % (NB_QUEUES + 2);	/* some out of range */
		op->mark = rnd(r);
		busy[i] = x == 0 && r->nlive > 0;	/* a handle in a matcher */
		if (busy[i]) {
			op->r = r->a.live[0];
			rb = r->b.live[0];
		} else {
			TEST_ASSERT_EQ(tally_steer_rule_reserve_locked(r->a.env.ctx, &op->r), 0, "");
			TEST_ASSERT_EQ(tally_steer_rule_reserve_locked(r->b.env.ctx, &rb), 0, "");
		}
		if (enc.count) {
			uint32_t cb = 0;

			if (x == 1) {
				op->counter = TALLY_CNT_MAX;	/* refused */
				cb = TALLY_CNT_MAX;
			} else {
				tally_cnt_reclaim(r->a.env.pool);
				tally_cnt_reclaim(r->b.env.pool);
				TEST_ASSERT_EQ(tally_cnt_alloc(r->a.env.pool, &op->counter), 0, "");
				TEST_ASSERT_EQ(tally_cnt_alloc(r->b.env.pool, &cb), 0, "");
			}
			act.counter = cb;
			cnt_b[i] = cb;
			act.flags |= TALLY_STEER_A_CNT_HELD;
		}
		act.arg = op->queue;
		act.mark = op->mark;
		tally_steer_rule_key(r->b.m, &k, &op->key);	/* b's seed */
		rc_b[i] = tally_steer_rule_insert_at_locked(r->b.m, &op->key, &act, rb);
		tally_steer_rule_key(r->a.m, &k, &op->key);
		if (rc_b[i] == 0) {
			TEST_ASSERT(r->nlive < MAX_LIVE, "");
			r->b.live[r->nlive] = rb;
		} else if (!busy[i]) {
			tally_steer_rule_unreserve_locked(r->b.env.ctx, rb);
		}
		if (rc_b[i] != 0 && enc.count && act.counter != TALLY_CNT_MAX)
			tally_cnt_free(r->b.env.pool, act.counter);	/* still ours */
		if (rc_b[i] == 0)
			r->nlive++;
	}
	/* the batch: the same results, in order */
	{
		uint32_t before = tally_steer_matcher_rules(r->a.m);

		done = tally_steer_rule_insert_batch_locked(r->a.m, &enc, ops, n);
		TEST_ASSERT_EQ(tally_steer_matcher_rules(r->a.m), before + done, "");
	}
	{
		uint32_t live = r->nlive - done, j = 0;

		for (i = 0; i < n; i++) {
			TEST_ASSERT_EQ(ops[i].rc, rc_b[i], "op %u (key %u)", i, kv[i]);
			if (ops[i].rc == 0) {
				r->a.live[live + j++] = ops[i].r;
				continue;
			}
			if (!busy[i])
				tally_steer_rule_unreserve_locked(r->a.env.ctx, ops[i].r);
			if (enc.count && ops[i].counter != TALLY_CNT_MAX)
				TEST_ASSERT_EQ(tally_cnt_free(r->a.env.pool, ops[i].counter), 0,
					       "op %u: the counter is still the caller's", i);
		}
		TEST_ASSERT_EQ(j, done, "");
	}
	/* the same rules, the same actions, for the host and the device */
	for (i = 0; i < n; i++) {
		struct tally_steer_action x;
		const struct tally_steer_entry *ea, *eb;

		if (ops[i].rc != 0)
			continue;
		key_of(&k, kv[i]);
		ea = dev_find(&r->a, &k);
		eb = dev_find(&r->b, &k);
		TEST_ASSERT(ea != NULL && eb != NULL, "op %u: the device sees it", i);
		/* the same but for the counter index (the pools hand out
		 * theirs in another order) */
		TEST_ASSERT((ea->act & ~TALLY_STEER_ACT_CNT_M) ==
			    (eb->act & ~TALLY_STEER_ACT_CNT_M) &&
			    ea->mark == eb->mark && ea->fate == eb->fate,
			    "op %u: act %08x/%08x mark %u/%u fate %u/%u", i, ea->act, eb->act,
			    ea->mark, eb->mark, ea->fate, eb->fate);
		if (base->flags & TALLY_STEER_A_COUNT) {
			TEST_ASSERT_EQ(TALLY_FIELD_GET(ea->act, TALLY_STEER_ACT_CNT_M),
				       ops[i].counter, "op %u", i);
			TEST_ASSERT_EQ(TALLY_FIELD_GET(eb->act, TALLY_STEER_ACT_CNT_M),
				       cnt_b[i], "op %u", i);
		}
		tally_steer_rule_action(ops[i].r, &x);
		TEST_ASSERT_EQ(x.fate, base->fate, "op %u", i);
		TEST_ASSERT_EQ(x.flags, base->flags, "op %u", i);
		if (base->fate == TALLY_STEER_FATE_QUEUE)
			TEST_ASSERT_EQ(x.arg, ops[i].queue, "op %u: its own queue", i);
		if (base->flags & TALLY_STEER_A_MARK)
			TEST_ASSERT_EQ(x.mark, ops[i].mark, "op %u: its own mark", i);
		if (base->flags & TALLY_STEER_A_COUNT) {
			TEST_ASSERT_EQ(x.counter, ops[i].counter, "op %u: its own counter", i);
			TEST_ASSERT_EQ(tally_cnt_refcnt(r->a.env.pool, x.counter), 1, "op %u", i);
		}
	}
	TEST_ASSERT_EQ(tally_steer_matcher_rules(r->a.m), tally_steer_matcher_rules(r->b.m), "");
	TEST_ASSERT_EQ(tally_steer_matcher_tombs(r->a.m), tally_steer_matcher_tombs(r->b.m), "");
	TEST_ASSERT_EQ(tally_steer_matcher_log2(r->a.m), tally_steer_matcher_log2(r->b.m), "");
	TEST_ASSERT_EQ(tally_steer_matcher_migrating(r->a.m),
		       tally_steer_matcher_migrating(r->b.m), "");
	TEST_ASSERT_EQ(tally_steer_matcher_check_locked(r->a.m), 0, "batch side consistent");
	TEST_ASSERT_EQ(tally_steer_matcher_check_locked(r->b.m), 0, "single side consistent");
	return TEST_SUCCESS;
}

static int
run_batches(struct run *r, uint32_t nb)
{
	uint32_t i;

	for (i = 0; i < nb; i++)
		if (run_batch(r, 1 + rnd(r) % 64, i % (uint32_t)(sizeof(encs) / sizeof(encs[0]))) != TEST_SUCCESS)
			return TEST_FAILED;
	return TEST_SUCCESS;
}

/* Delete all but one in keep of the live rules, on both sides. */
static int
thin_out(struct run *r, uint32_t keep)
{
	uint32_t i, n = 0;

	for (i = 0; i < r->nlive; i++) {
		if (i % keep == 0) {
			r->a.live[n] = r->a.live[i];
			r->b.live[n] = r->b.live[i];
			n++;
			continue;
		}
		TEST_ASSERT_EQ(tally_steer_rule_delete(r->a.live[i]), 0, "");
		TEST_ASSERT_EQ(tally_steer_rule_delete(r->b.live[i]), 0, "");
	}
	r->nlive = n;
	return TEST_SUCCESS;
}

static int
test_batch_equals_single(void)
{
	static struct run r;
	uint32_t log2;

	memset(&r, 0, sizeof(r));
	r.seed = 7;
	TEST_ASSERT_EQ(side_init(&r.a), 0, "");
	TEST_ASSERT_EQ(side_init(&r.b), 0, "");
	/* a fresh array: too small for the batches, it grows by migrations */
	TEST_ASSERT_EQ(run_batches(&r, 40), TEST_SUCCESS, "growing");
	TEST_ASSERT(tally_steer_matcher_log2(r.a.m) > 4, "grew");
	/* mostly emptied: the next batches shrink it */
	log2 = tally_steer_matcher_log2(r.a.m);
	TEST_ASSERT_EQ(thin_out(&r, 40), TEST_SUCCESS, "");
	TEST_ASSERT_EQ(run_batches(&r, 3), TEST_SUCCESS, "shrinking");
	TEST_ASSERT(tally_steer_matcher_migrating(r.a.m) || tally_steer_matcher_log2(r.a.m) < log2,
		    "shrinks from 2^%u", log2);
	/* pre-sized (2^12 entries, migrations above 5/8 of them): the
	 * batches fit */
	TEST_ASSERT_EQ(tally_steer_matcher_reserve(r.a.m, 2048), 0, "");
	TEST_ASSERT_EQ(tally_steer_matcher_reserve(r.b.m, 2048), 0, "");
	TEST_ASSERT_EQ(tally_steer_matcher_log2(r.a.m), 12, "");
	TEST_ASSERT_EQ(run_batches(&r, 50), TEST_SUCCESS, "pre-sized");
	TEST_ASSERT_EQ(tally_steer_matcher_log2(r.a.m), 12, "no migration");
	TEST_ASSERT(r.nlive > 1000 && !tally_steer_matcher_migrating(r.a.m), "%u", r.nlive);
	/* tombstones: the load with them ends the batches' room, and a
	 * migration purges them */
	TEST_ASSERT_EQ(thin_out(&r, 10), TEST_SUCCESS, "");
	TEST_ASSERT(tally_steer_matcher_tombs(r.a.m) > 1000, "");
	TEST_ASSERT_EQ(run_batches(&r, 150), TEST_SUCCESS, "over tombstones");
	TEST_ASSERT(tally_steer_matcher_tombs(r.a.m) < 500, "purged: %u",
		    tally_steer_matcher_tombs(r.a.m));
	TEST_ASSERT_EQ(thin_out(&r, 1000000), TEST_SUCCESS, "");
	side_fini(&r.a);
	side_fini(&r.b);
	return TEST_SUCCESS;
}

/*
 * Single inserts into a matcher that batches filled: a batch leaves the
 * written bitmap alone, so a single insert must not take a home slot as
 * never written from its bit (it would skip the duplicate check, or write
 * over a batch's rule). With a stage (stage_min_log2 12, the matcher's
 * size) and without one.
 */
static int
one_single_after_batch(uint32_t stage_min_log2)
{
	struct tally_steer_config sc = { .max_tables = 4, .max_rss = 4, .nb_queues = NB_QUEUES,
					 .stage_min_log2 = stage_min_log2 };
	const struct tally_steer_action *base = &encs[3];	/* mark + queue */
	static struct tally_steer_bop ops[64];
	static struct tally_steer_rule *rules[3000];
	struct tally_steer_act_enc enc;
	struct tally_steer_table *t;
	struct tally_steer_matcher *m;
	struct tally_match_key mk, k;
	struct steer_env env;
	uint32_t i, j, n, v;

	TEST_ASSERT_EQ(steer_env_init(&env, 16, &sc, NULL), 0, "");
	TEST_ASSERT_EQ(tally_steer_table_create(env.ctx, 0, &t), 0, "");
	key_mask_5tuple(&mk);
	TEST_ASSERT_EQ(tally_steer_matcher_create(t, 0, &mk, &m), 0, "");
	TEST_ASSERT_EQ(tally_steer_matcher_reserve(m, 2048), 0, "");
	TEST_ASSERT_EQ(tally_steer_matcher_log2(m), 12, "");
	TEST_ASSERT_EQ(tally_steer_action_encode(base, &enc), 0, "");
	/* keys 0..999 by batches: about one home slot in four taken */
	for (v = 0; v < 1000; v += n) {
		n = 1000 - v < 64 ? 1000 - v : 64;
		for (i = 0; i < n; i++) {
			memset(&ops[i], 0, sizeof(ops[i]));
			key_of(&k, v + i);
			tally_steer_rule_key(m, &k, &ops[i].key);
			ops[i].queue = 1;
			ops[i].mark = v + i + 1;
			TEST_ASSERT_EQ(tally_steer_rule_reserve_locked(env.ctx, &ops[i].r), 0, "");
		}
		TEST_ASSERT_EQ(tally_steer_rule_insert_batch_locked(m, &enc, ops, n), n,
			       "keys %u..%u", v, v + n - 1);
		for (i = 0; i < n; i++)
			rules[v + i] = ops[i].r;
	}
	/* each again, one by one: duplicates, whatever their home slot's bit */
	for (v = 0; v < 1000; v++) {
		struct tally_steer_action a = *base;
		struct tally_steer_rule *r;

		key_of(&k, v);
		a.arg = 2;
		a.mark = 5000 + v;
		TEST_ASSERT_EQ(tally_steer_rule_insert(m, &k, &a, &r), -EEXIST, "key %u", v);
	}
	/* new keys, one by one: many share a home slot with a batch's rule */
	for (v = 1000; v < 3000; v++) {
		struct tally_steer_action a = *base;

		key_of(&k, v);
		a.arg = 2;
		a.mark = v + 1;
		TEST_ASSERT_EQ(tally_steer_rule_insert(m, &k, &a, &rules[v]), 0, "key %u", v);
	}
	TEST_ASSERT_EQ(tally_steer_matcher_drain_locked(m), 0, "");
	TEST_ASSERT_EQ(tally_steer_matcher_rules(m), 3000, "");
	TEST_ASSERT_EQ(tally_steer_matcher_check_locked(m), 0, "consistent");
	for (v = 0; v < 3000; v++) {
		const struct tally_steer_entry *e;

		key_of(&k, v);
		e = steer_dev_find_table(&env, 0, &k);
		TEST_ASSERT(e != NULL, "key %u: the device sees it", v);
		TEST_ASSERT_EQ(e->mark, v + 1, "key %u: its own rule", v);
		TEST_ASSERT_EQ(e->fate, v < 1000 ? 1u : 2u, "key %u", v);
	}
	/* a rebuilt array has every bit again: singles take fresh slots */
	TEST_ASSERT_EQ(tally_steer_matcher_reserve(m, 4096), 0, "");
	TEST_ASSERT_EQ(tally_steer_matcher_check_locked(m), 0, "rebuilt");
	for (j = 0; j < 3000; j++)
		TEST_ASSERT_EQ(tally_steer_rule_delete(rules[j]), 0, "rule %u", j);
	TEST_ASSERT_EQ(tally_steer_matcher_check_locked(m), 0, "emptied");
	steer_env_fini(&env);
	return TEST_SUCCESS;
}

static int
test_single_after_batch(void)
{
	TEST_ASSERT_EQ(one_single_after_batch(12), TEST_SUCCESS, "with a stage");
	TEST_ASSERT_EQ(one_single_after_batch(31), TEST_SUCCESS, "without a stage");
	return TEST_SUCCESS;
}

static int
test_encode(void)
{
	struct tally_steer_action a = { .flags = TALLY_STEER_A_COUNT | TALLY_STEER_A_FLAG,
					.fate = TALLY_STEER_FATE_QUEUE, .arg = 5,
					.counter = 9, .mark = 3 };
	struct tally_steer_act_enc enc;

	TEST_ASSERT_EQ(tally_steer_action_encode(&a, &enc), 0, "");
	TEST_ASSERT_EQ(enc.act_w, TALLY_STEER_ACT_COUNT | TALLY_STEER_ACT_FLAG |
		       TALLY_STEER_ACT_QUEUE, "no counter index, no queue");
	TEST_ASSERT(enc.count && enc.queue, "");
	a.flags = TALLY_STEER_A_MARK;
	a.fate = TALLY_STEER_FATE_PASSTHRU;
	TEST_ASSERT_EQ(tally_steer_action_encode(&a, &enc), 0, "");
	TEST_ASSERT_EQ(enc.act_w, TALLY_STEER_ACT_MARK | TALLY_STEER_ACT_CONTINUE, "");
	TEST_ASSERT(!enc.count && !enc.queue, "");
	/* references per rule, or a hand-over flag: not encodable */
	a.fate = TALLY_STEER_FATE_RSS;
	TEST_ASSERT_EQ(tally_steer_action_encode(&a, &enc), -EINVAL, "");
	a.fate = TALLY_STEER_FATE_JUMP;
	TEST_ASSERT_EQ(tally_steer_action_encode(&a, &enc), -EINVAL, "");
	a.fate = TALLY_STEER_FATE_DROP;
	a.flags = TALLY_STEER_A_COUNT | TALLY_STEER_A_CNT_HELD;
	TEST_ASSERT_EQ(tally_steer_action_encode(&a, &enc), -EINVAL, "");
	a.flags = 1u << 7;
	TEST_ASSERT_EQ(tally_steer_action_encode(&a, &enc), -EINVAL, "");
	return TEST_SUCCESS;
}

static const struct tally_test_case cases[] = {
	TEST_CASE(test_encode),
	TEST_CASE(test_batch_equals_single),
	TEST_CASE(test_single_after_batch),
};

TEST_MAIN("steer-batch", cases)
