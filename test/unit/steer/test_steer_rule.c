/* SPDX-License-Identifier: BSD-3-Clause */
/* Tables, matchers, rules: insert/delete, duplicates, growth, jumps, limits,
 * and "no partial state on failure". Runs on a fake device (no model). */
#include <stdlib.h>

#include "tally_test.h"
#include "steer_test_util.h"
#include "tally_steer_batch.h"

/* lock: shared by the pool and the context (NULL: their own); priv: rule
 * handle caller data. */
static int
env_init_stage(struct steer_env *e, uint32_t max_rules, struct tally_lock *lock,
	       uint32_t priv, uint32_t stage_min_log2)
{
	struct tally_steer_config sc = {
		.max_tables = 16, .max_rss = 4, .max_rules = max_rules, .nb_queues = 8,
		.rule_priv = priv, .stage_min_log2 = stage_min_log2,
	};

	return steer_env_init(e, 1024, &sc, lock);
}

static int
env_init_ext(struct steer_env *e, uint32_t max_rules, struct tally_lock *lock, uint32_t priv)
{
	return env_init_stage(e, max_rules, lock, priv, 0);
}

static int
env_init(struct steer_env *e, uint32_t max_rules)
{
	return env_init_ext(e, max_rules, NULL, 0);
}

static void
env_fini(struct steer_env *e)
{
	e->dev.auto_fence = true;
	steer_env_fini(e);
}

static struct tally_steer_action
act_queue(uint32_t q)
{
	struct tally_steer_action a = { .fate = TALLY_STEER_FATE_QUEUE, .arg = q };

	return a;
}

static int
test_root_programmed(void)
{
	struct steer_env e;
	const struct tally_steer_root *root;
	uint64_t iova;

	TEST_ASSERT_EQ(env_init(&e, 0), 0, "");
	iova = (uint64_t)fake_read32(&e.dev, TALLY_REG_STEER_ROOT_LO) |
	       (uint64_t)fake_read32(&e.dev, TALLY_REG_STEER_ROOT_HI) << 32;
	TEST_ASSERT(iova == tally_steer_ctx_root_iova(e.ctx), "STEER_ROOT written");
	TEST_ASSERT(fake_read32(&e.dev, TALLY_REG_STEER_CTRL) & TALLY_STEER_CTRL_EN, "");
	root = (const void *)(uintptr_t)iova;
	TEST_ASSERT_EQ(root->magic, TALLY_STEER_ROOT_MAGIC, "");
	TEST_ASSERT_EQ(root->num_tables, 16, "");
	TEST_ASSERT_EQ(root->num_rss, 4, "");
	env_fini(&e);
	return TEST_SUCCESS;
}

static int
test_insert_delete_duplicate(void)
{
	struct steer_env e;
	struct tally_steer_table *t;
	struct tally_steer_matcher *m;
	struct tally_steer_rule *r, *r2;
	struct tally_match_key mk, k;
	struct tally_steer_action a = act_queue(3), got;
	struct tally_steer_mem_stats st;

	TEST_ASSERT_EQ(env_init(&e, 0), 0, "");
	TEST_ASSERT_EQ(tally_steer_table_create(e.ctx, 0, &t), 0, "");
	TEST_ASSERT_EQ(tally_steer_table_create(e.ctx, 0, &t), -EEXIST, "");
	TEST_ASSERT_EQ(tally_steer_table_create(e.ctx, 16, &t), -EINVAL, "");
	key_mask_5tuple(&mk);
	TEST_ASSERT_EQ(tally_steer_matcher_create(t, 1, &mk, &m), 0, "");
	TEST_ASSERT_EQ(tally_steer_matcher_nwords(m), 5, "5-tuple uses 5 key words");
	key_5tuple(&k, 0x0a000001, 0x0a000002, 1000, 2000);
	a.flags = TALLY_STEER_A_MARK | TALLY_STEER_A_FLAG;
	a.mark = 0xdeadbeef;
	TEST_ASSERT_EQ(tally_steer_rule_insert(m, &k, &a, &r), 0, "");
	tally_steer_rule_action(r, &got);
	TEST_ASSERT_EQ(got.fate, TALLY_STEER_FATE_QUEUE, "");
	TEST_ASSERT_EQ(got.arg, 3, "");
	TEST_ASSERT_EQ(got.mark, 0xdeadbeef, "");
	TEST_ASSERT_EQ(got.flags, TALLY_STEER_A_MARK | TALLY_STEER_A_FLAG, "");
	TEST_ASSERT_EQ(tally_steer_rule_insert(m, &k, &a, &r2), -EEXIST, "same key");
	k.b[100] = 0x55;	/* outside the mask: still the same rule */
	TEST_ASSERT_EQ(tally_steer_rule_insert(m, &k, &a, &r2), -EEXIST, "masked dup");
	TEST_ASSERT_EQ(tally_steer_matcher_rules(m), 1, "");
	TEST_ASSERT_EQ(tally_steer_matcher_destroy(m), -EBUSY, "holds a rule");
	TEST_ASSERT_EQ(tally_steer_table_destroy(t), -EBUSY, "holds a matcher");
	TEST_ASSERT_EQ(tally_steer_rule_delete(r), 0, "");
	TEST_ASSERT_EQ(tally_steer_rule_insert(m, &k, &a, &r), 0, "re-insert after delete");
	TEST_ASSERT_EQ(tally_steer_rule_delete(r), 0, "");
	TEST_ASSERT_EQ(tally_steer_matcher_destroy(m), 0, "");
	TEST_ASSERT_EQ(tally_steer_table_destroy(t), 0, "");
	TEST_ASSERT_EQ(tally_steer_ctx_sync(e.ctx, 1000000), 0, "");
	tally_steer_ctx_mem(e.ctx, &st);
	TEST_ASSERT_U64_EQ(st.rules, 0, "");
	TEST_ASSERT_U64_EQ(st.dev_deferred, 0, "");
	TEST_ASSERT_U64_EQ(st.dev_bytes, 32 + 16 * 8 + 4 * 48, "only root, tables, rss left");
	env_fini(&e);
	return TEST_SUCCESS;
}

static int
test_bad_actions(void)
{
	struct steer_env e;
	struct tally_steer_table *t;
	struct tally_steer_matcher *m;
	struct tally_steer_rule *r;
	struct tally_match_key mk, k;
	struct tally_steer_action a = act_queue(8);

	TEST_ASSERT_EQ(env_init(&e, 0), 0, "");
	TEST_ASSERT_EQ(tally_steer_table_create(e.ctx, 0, &t), 0, "");
	key_mask_5tuple(&mk);
	TEST_ASSERT_EQ(tally_steer_matcher_create(t, 0, &mk, &m), 0, "");
	key_5tuple(&k, 1, 2, 3, 4);
	TEST_ASSERT_EQ(tally_steer_rule_insert(m, &k, &a, &r), -EINVAL, "queue 8 of 8");
	a.fate = 99;
	TEST_ASSERT_EQ(tally_steer_rule_insert(m, &k, &a, &r), -EINVAL, "unknown fate");
	a.fate = TALLY_STEER_FATE_RSS;
	a.arg = 0;
	TEST_ASSERT_EQ(tally_steer_rule_insert(m, &k, &a, &r), -ENOENT, "no RSS set 0");
	a.fate = TALLY_STEER_FATE_DROP;
	a.flags = 1u << 7;
	TEST_ASSERT_EQ(tally_steer_rule_insert(m, &k, &a, &r), -EINVAL, "unknown flag");
	a.flags = TALLY_STEER_A_COUNT;
	a.counter = 5;
	TEST_ASSERT_EQ(tally_steer_rule_insert(m, &k, &a, &r), -ENOENT, "counter not allocated");
	a.counter = TALLY_CNT_MAX;
	TEST_ASSERT_EQ(tally_steer_rule_insert(m, &k, &a, &r), -EINVAL, "counter > 24 bits");
	TEST_ASSERT_EQ(tally_steer_matcher_rules(m), 0, "nothing inserted");
	env_fini(&e);
	return TEST_SUCCESS;
}

static int
test_jump_missing_and_loops(void)
{
	struct steer_env e;
	struct tally_steer_table *t[4];
	struct tally_steer_matcher *m[4];
	struct tally_steer_rule *r01, *r12, *r, *r20;
	struct tally_match_key mk, k;
	struct tally_steer_action a = { .fate = TALLY_STEER_FATE_JUMP };
	uint32_t i;

	TEST_ASSERT_EQ(env_init(&e, 0), 0, "");
	key_mask_5tuple(&mk);
	key_5tuple(&k, 1, 2, 3, 4);
	for (i = 0; i < 3; i++) {
		TEST_ASSERT_EQ(tally_steer_table_create(e.ctx, i, &t[i]), 0, "");
		TEST_ASSERT_EQ(tally_steer_matcher_create(t[i], 0, &mk, &m[i]), 0, "");
	}
	a.arg = 5;
	TEST_ASSERT_EQ(tally_steer_rule_insert(m[0], &k, &a, &r), -ENOENT, "no table 5");
	a.arg = 99;
	TEST_ASSERT_EQ(tally_steer_rule_insert(m[0], &k, &a, &r), -ENOENT, "beyond max");
	a.arg = 0;
	TEST_ASSERT_EQ(tally_steer_rule_insert(m[0], &k, &a, &r), -ELOOP, "self jump");
	a.arg = 1;
	TEST_ASSERT_EQ(tally_steer_rule_insert(m[0], &k, &a, &r01), 0, "0->1");
	a.arg = 2;
	TEST_ASSERT_EQ(tally_steer_rule_insert(m[1], &k, &a, &r12), 0, "1->2");
	a.arg = 0;
	TEST_ASSERT_EQ(tally_steer_rule_insert(m[2], &k, &a, &r), -ELOOP, "2->0 closes a cycle");
	a.arg = 1;
	TEST_ASSERT_EQ(tally_steer_rule_insert(m[2], &k, &a, &r), -ELOOP, "2->1 closes a cycle");
	TEST_ASSERT_EQ(tally_steer_matcher_rules(m[2]), 0, "no partial state");
	TEST_ASSERT_EQ(tally_steer_matcher_destroy(m[1]), -EBUSY, "");
	TEST_ASSERT_EQ(tally_steer_rule_delete(r12), 0, "");
	TEST_ASSERT_EQ(tally_steer_matcher_destroy(m[1]), 0, "");
	TEST_ASSERT_EQ(tally_steer_table_destroy(t[1]), -EBUSY, "0 jumps to 1");
	a.arg = 0;
	TEST_ASSERT_EQ(tally_steer_rule_insert(m[2], &k, &a, &r20), 0, "2->0 is fine now");
	a.arg = 1;
	key_5tuple(&k, 9, 9, 9, 9);
	TEST_ASSERT_EQ(tally_steer_rule_insert(m[2], &k, &a, &r), 0, "2->1 is fine too");
	TEST_ASSERT_EQ(tally_steer_rule_delete(r), 0, "");
	TEST_ASSERT_EQ(tally_steer_rule_delete(r01), 0, "");
	TEST_ASSERT_EQ(tally_steer_table_destroy(t[1]), 0, "no more jumps to 1");
	TEST_ASSERT_EQ(tally_steer_rule_delete(r20), 0, "");
	env_fini(&e);
	return TEST_SUCCESS;
}

/* Matchers in table id's list, and the descriptor of the i-th. */
static uint32_t
dev_nmatchers(struct steer_env *e, uint32_t id)
{
	const struct tally_steer_mlist *ml = steer_dev_mlist(e, id);

	return ml != NULL ? ml->num : 0;
}

static const struct tally_steer_matcher_desc *
dev_desc_at(struct steer_env *e, uint32_t id, uint32_t i)
{
	return (const void *)(uintptr_t)steer_dev_mlist(e, id)->matcher[i];
}

/* Descriptor of the first matcher of table id. */
static const struct tally_steer_matcher_desc *
dev_desc(struct steer_env *e, uint32_t id)
{
	return dev_desc_at(e, id, 0);
}

static void
key_n(struct tally_match_key *k, uint32_t i)
{
	key_5tuple(k, 0x0a000000 + i, 0x0b000000 + i * 7, (uint16_t)i, 53);
}

static int
test_growth_and_delete_all(void)
{
	enum { N = 100000 };
	struct steer_env e;
	struct tally_steer_table *t;
	struct tally_steer_matcher *m;
	struct tally_steer_rule **r, *x;
	struct tally_match_key mk, k;
	struct tally_steer_action a = act_queue(1);
	struct tally_steer_mem_stats st, st2;
	uint32_t i, log2;

	TEST_ASSERT_EQ(env_init(&e, 0), 0, "");
	e.dev.auto_fence = false;
	r = calloc(N, sizeof(*r));
	TEST_ASSERT(r != NULL, "");
	TEST_ASSERT_EQ(tally_steer_table_create(e.ctx, 0, &t), 0, "");
	key_mask_5tuple(&mk);
	TEST_ASSERT_EQ(tally_steer_matcher_create(t, 0, &mk, &m), 0, "");
	for (i = 0; i < N; i++) {
		key_n(&k, i);
		TEST_ASSERT_EQ(tally_steer_rule_insert(m, &k, &a, &r[i]), 0, "rule %u", i);
	}
	TEST_ASSERT(tally_steer_matcher_log2(m) >= 17, "grew to 2^%u", tally_steer_matcher_log2(m));
	tally_steer_ctx_mem(e.ctx, &st);
	TEST_ASSERT(st.dev_deferred > 0, "old arrays wait for the fence");
	fake_dev_fence_complete(&e.dev);
	tally_steer_ctx_reclaim(e.ctx);
	tally_steer_ctx_mem(e.ctx, &st);
	TEST_ASSERT_U64_EQ(st.dev_deferred, 0, "freed after the fence");
	TEST_ASSERT((st.dev_bytes + st.host_bytes) / N <= 128,
		    "%" PRIu64 " bytes per rule", (st.dev_bytes + st.host_bytes) / N);
	for (i = 0; i < N; i += 97) {	/* every rule is still found */
		key_n(&k, i);
		TEST_ASSERT_EQ(tally_steer_rule_insert(m, &k, &a, &x), -EEXIST, "rule %u", i);
	}
	/* mass delete: no array is rebuilt, no memory allocated or retired */
	log2 = tally_steer_matcher_log2(m);
	for (i = 0; i < N; i++)
		TEST_ASSERT_EQ(tally_steer_rule_delete(r[i]), 0, "rule %u", i);
	TEST_ASSERT_EQ(tally_steer_matcher_rules(m), 0, "");
	TEST_ASSERT_EQ(tally_steer_matcher_log2(m), log2, "deletes keep the array");
	TEST_ASSERT(!tally_steer_matcher_migrating(m), "");
	TEST_ASSERT_EQ(tally_steer_matcher_tombs(m), N, "one tombstone per rule");
	tally_steer_ctx_mem(e.ctx, &st2);
	TEST_ASSERT_U64_EQ(st2.dev_bytes, st.dev_bytes, "no device memory moved");
	TEST_ASSERT_U64_EQ(st2.dev_deferred, 0, "nothing retired");
	/* the same rules again: tombstones are reused, the array does not grow */
	for (i = 0; i < N; i++) {
		key_n(&k, i);
		TEST_ASSERT_EQ(tally_steer_rule_insert(m, &k, &a, &r[i]), 0, "again %u", i);
	}
	TEST_ASSERT(tally_steer_matcher_log2(m) <= log2, "2^%u", tally_steer_matcher_log2(m));
	for (i = 0; i < N; i++)
		TEST_ASSERT_EQ(tally_steer_rule_delete(r[i]), 0, "rule %u", i);
	/* a few rules later on: the mostly dead array shrinks, lazily */
	for (i = 0; i < 20000; i++) {
		key_n(&k, N + i);
		TEST_ASSERT_EQ(tally_steer_rule_insert(m, &k, &a, &r[i]), 0, "small %u", i);
	}
	TEST_ASSERT(tally_steer_matcher_log2(m) < log2, "shrank to 2^%u",
		    tally_steer_matcher_log2(m));
	for (i = 0; i < 20000; i++) {
		key_n(&k, N + i);
		TEST_ASSERT(steer_dev_find(dev_desc(&e, 0), &k) != NULL, "device finds %u", i);
		TEST_ASSERT_EQ(tally_steer_rule_delete(r[i]), 0, "rule %u", i);
		TEST_ASSERT(steer_dev_find(dev_desc(&e, 0), &k) == NULL, "device lost %u", i);
	}
	free(r);
	env_fini(&e);
	return TEST_SUCCESS;
}

/* Growth is spread over many inserts; while it runs, the device sees every
 * live rule and no deleted one, and deletes work on rules on both sides of
 * the migration. */
static int
test_incremental_migration(void)
{
	enum { N = 4096 };
	struct steer_env e;
	struct tally_steer_table *t;
	struct tally_steer_matcher *m;
	struct tally_steer_rule *r[N] = { 0 }, *x;
	struct tally_match_key mk, k;
	struct tally_steer_action a = act_queue(1);
	uint64_t htab;
	uint32_t i, j, n = 0, start = 0, ops = 0, log2 = 0;
	bool seen = false;

	TEST_ASSERT_EQ(env_init(&e, 0), 0, "");
	TEST_ASSERT_EQ(tally_steer_table_create(e.ctx, 0, &t), 0, "");
	key_mask_5tuple(&mk);
	TEST_ASSERT_EQ(tally_steer_matcher_create(t, 0, &mk, &m), 0, "");
	while (n < N) {
		htab = dev_desc(&e, 0)->htab;
		log2 = tally_steer_matcher_log2(m);
		key_n(&k, n);
		TEST_ASSERT_EQ(tally_steer_rule_insert(m, &k, &a, &r[n]), 0, "rule %u", n);
		n++;
		if (!tally_steer_matcher_migrating(m))
			continue;
		if (log2 == 10 && !seen) {
			seen = true;
			start = n;
		}
		/* the insert that started (or continued) it left the device's
		 * array and the array size alone */
		TEST_ASSERT_U64_EQ(dev_desc(&e, 0)->htab, htab, "rule %u", n);
		TEST_ASSERT_EQ(tally_steer_matcher_log2(m), log2, "");
		if (!seen || ops > 0)
			continue;
		/* in the 2^10 -> 2^11 migration: 40 rules more, then delete
		 * every 3rd rule, inserted before it or during it */
		for (i = 0; i < 40; i++, n++) {
			key_n(&k, n);
			TEST_ASSERT_EQ(tally_steer_rule_insert(m, &k, &a, &r[n]), 0, "");
		}
		TEST_ASSERT(tally_steer_matcher_migrating(m), "still migrating");
		for (j = 0; j < n; j += 3) {
			TEST_ASSERT_EQ(tally_steer_rule_delete(r[j]), 0, "rule %u", j);
			r[j] = NULL;
		}
		ops = n;
		for (j = 0; j < n; j++) {
			key_n(&k, j);
			TEST_ASSERT_EQ(steer_dev_find(dev_desc(&e, 0), &k) != NULL, r[j] != NULL,
				       "device view of rule %u during the migration", j);
		}
	}
	TEST_ASSERT(seen && ops > 0, "a migration from 2^10 was observed");
	TEST_ASSERT(n - start > 64, "spread over %u inserts", n - start);
	TEST_ASSERT(tally_steer_matcher_log2(m) >= 11, "2^%u", tally_steer_matcher_log2(m));
	for (j = 0; j < n; j++) {
		key_n(&k, j);
		TEST_ASSERT_EQ(steer_dev_find(dev_desc(&e, 0), &k) != NULL, r[j] != NULL,
			       "device view of rule %u", j);
		if (r[j] == NULL) {
			TEST_ASSERT_EQ(tally_steer_rule_insert(m, &k, &a, &r[j]), 0, "%u", j);
		} else {
			TEST_ASSERT_EQ(tally_steer_rule_insert(m, &k, &a, &x), -EEXIST, "%u", j);
		}
	}
	for (j = 0; j < n; j++)
		TEST_ASSERT_EQ(tally_steer_rule_delete(r[j]), 0, "rule %u", j);
	TEST_ASSERT_EQ(tally_steer_matcher_rules(m), 0, "");
	env_fini(&e);
	return TEST_SUCCESS;
}

static int
test_limits_and_no_partial_state(void)
{
	struct steer_env e;
	struct tally_steer_table *t;
	struct tally_steer_matcher *m;
	struct tally_steer_rule *r[64], *x;
	struct tally_match_key mk, k;
	struct tally_steer_action a = { .flags = TALLY_STEER_A_COUNT,
					.fate = TALLY_STEER_FATE_DROP };
	uint32_t i, cnt;
	int rc;

	TEST_ASSERT_EQ(env_init(&e, 40), 0, "");
	TEST_ASSERT_EQ(tally_cnt_alloc(e.pool, &cnt), 0, "");
	a.counter = cnt;
	TEST_ASSERT_EQ(tally_steer_table_create(e.ctx, 0, &t), 0, "");
	key_mask_5tuple(&mk);
	TEST_ASSERT_EQ(tally_steer_matcher_create(t, 0, &mk, &m), 0, "");
	/* no memory for growth: the array takes rules up to 7/8 (14 of 16),
	 * then an insert fails and changes nothing */
	for (i = 0; i < 10; i++) {
		key_5tuple(&k, i, i, 1, 1);
		TEST_ASSERT_EQ(tally_steer_rule_insert(m, &k, &a, &r[i]), 0, "");
	}
	for (; i < 14; i++) {
		e.arena.fail_after = 1;
		key_5tuple(&k, i, i, 1, 1);
		TEST_ASSERT_EQ(tally_steer_rule_insert(m, &k, &a, &r[i]), 0, "rule %u", i);
		TEST_ASSERT(!tally_steer_matcher_migrating(m), "");
	}
	TEST_ASSERT_EQ(tally_cnt_refcnt(e.pool, cnt), 15, "one per rule + owner");
	e.arena.fail_after = 1;
	key_5tuple(&k, 14, 14, 1, 1);
	rc = tally_steer_rule_insert(m, &k, &a, &r[14]);
	TEST_ASSERT_EQ(rc, -ENOMEM, "growth needs memory");
	TEST_ASSERT_EQ(tally_cnt_refcnt(e.pool, cnt), 15, "reference given back");
	TEST_ASSERT_EQ(tally_steer_matcher_rules(m), 14, "");
	TEST_ASSERT_EQ(tally_steer_matcher_log2(m), 4, "old array kept");
	e.arena.fail_after = 0;
	for (i = 14; i < 40; i++) {
		key_5tuple(&k, i, i, 1, 1);
		TEST_ASSERT_EQ(tally_steer_rule_insert(m, &k, &a, &r[i]), 0, "rule %u", i);
	}
	key_5tuple(&k, 40, 40, 1, 1);
	TEST_ASSERT_EQ(tally_steer_rule_insert(m, &k, &a, &x), -ENOSPC, "max_rules");
	TEST_ASSERT_EQ(tally_cnt_refcnt(e.pool, cnt), 41, "");
	for (i = 0; i < 40; i++)
		TEST_ASSERT_EQ(tally_steer_rule_delete(r[i]), 0, "");
	TEST_ASSERT_EQ(tally_cnt_refcnt(e.pool, cnt), 1, "only the owner");
	TEST_ASSERT_EQ(tally_cnt_free(e.pool, cnt), 0, "");
	env_fini(&e);
	return TEST_SUCCESS;
}

static int
test_matcher_order_in_device_memory(void)
{
	static const uint32_t prio[] = { 5, 1, 9, 1, 0, 5 };
	struct steer_env e;
	struct tally_steer_table *t;
	struct tally_steer_matcher *m[6];
	struct tally_match_key mk;
	const struct tally_steer_root *root;
	const struct tally_steer_tbl *tb;
	const struct tally_steer_mlist *ml;
	uint32_t i, last = 0, last_id = 0;

	TEST_ASSERT_EQ(env_init(&e, 0), 0, "");
	TEST_ASSERT_EQ(tally_steer_table_create(e.ctx, 3, &t), 0, "");
	key_mask_5tuple(&mk);
	for (i = 0; i < 6; i++)
		TEST_ASSERT_EQ(tally_steer_matcher_create(t, prio[i], &mk, &m[i]), 0, "");
	root = (const void *)(uintptr_t)tally_steer_ctx_root_iova(e.ctx);
	tb = (const void *)(uintptr_t)root->tables_iova;
	TEST_ASSERT_U64_EQ(tb[0].mlist, 0, "table 0 has no matchers");
	ml = (const void *)(uintptr_t)tb[3].mlist;
	TEST_ASSERT_EQ(ml->magic, TALLY_STEER_MLIST_MAGIC, "");
	TEST_ASSERT_EQ(ml->num, 6, "");
	for (i = 0; i < 6; i++) {
		const struct tally_steer_matcher_desc *d = (const void *)(uintptr_t)ml->matcher[i];

		TEST_ASSERT_EQ(d->magic, TALLY_STEER_MATCHER_MAGIC, "");
		TEST_ASSERT(d->priority > last || (d->priority == last && d->id >= last_id) || i == 0,
			    "order at %u", i);
		last = d->priority;
		last_id = d->id;
	}
	for (i = 0; i < 6; i++)
		TEST_ASSERT_EQ(tally_steer_matcher_destroy(m[i]), 0, "");
	TEST_ASSERT_U64_EQ(tb[3].mlist, 0, "empty again");
	env_fini(&e);
	return TEST_SUCCESS;
}

static int
test_rss_sets(void)
{
	static const uint16_t q[] = { 1, 2, 3 };
	static const uint16_t badq[] = { 1, 8 };
	struct steer_env e;
	struct tally_steer_table *t;
	struct tally_steer_matcher *m;
	struct tally_steer_rule *r;
	struct tally_match_key mk, k;
	struct tally_steer_action a = { .fate = TALLY_STEER_FATE_RSS };
	uint32_t id, i, ids[4];

	TEST_ASSERT_EQ(env_init(&e, 0), 0, "");
	e.dev.auto_fence = false;
	TEST_ASSERT_EQ(tally_steer_rss_create(e.ctx, 0, badq, 2, &id), -EINVAL, "");
	TEST_ASSERT_EQ(tally_steer_rss_create(e.ctx, 0, q, 0, &id), -EINVAL, "");
	for (i = 0; i < 4; i++)
		TEST_ASSERT_EQ(tally_steer_rss_create(e.ctx, TALLY_RSS_HF_IPV4, q, 3, &ids[i]), 0, "");
	TEST_ASSERT_EQ(tally_steer_rss_create(e.ctx, 0, q, 3, &id), -ENOSPC, "");
	TEST_ASSERT_EQ(tally_steer_table_create(e.ctx, 0, &t), 0, "");
	key_mask_5tuple(&mk);
	TEST_ASSERT_EQ(tally_steer_matcher_create(t, 0, &mk, &m), 0, "");
	key_5tuple(&k, 1, 2, 3, 4);
	a.arg = ids[2];
	TEST_ASSERT_EQ(tally_steer_rule_insert(m, &k, &a, &r), 0, "");
	TEST_ASSERT_EQ(tally_steer_rss_destroy(e.ctx, ids[2]), -EBUSY, "");
	TEST_ASSERT_EQ(tally_steer_rule_delete(r), 0, "");
	TEST_ASSERT_EQ(tally_steer_rss_destroy(e.ctx, ids[2]), 0, "");
	TEST_ASSERT_EQ(tally_steer_rss_destroy(e.ctx, ids[2]), -ENOENT, "");
	TEST_ASSERT_EQ(tally_steer_rss_create(e.ctx, 0, q, 3, &id), -ENOSPC, "slot waits for a fence");
	fake_dev_fence_complete(&e.dev);
	TEST_ASSERT_EQ(tally_steer_rss_create(e.ctx, 0, q, 3, &id), 0, "");
	TEST_ASSERT_EQ(id, ids[2], "");
	env_fini(&e);
	return TEST_SUCCESS;
}

/*
 * One lock for the context and the pool, taken once by the caller around
 * _locked calls: a counted insert, a refused duplicate and a delete that
 * drops the counter's last reference (which, if it took the pool lock
 * again, would deadlock on this non-recursive mutex). A held counter
 * reference moves to the rule, or stays with the caller on failure.
 */
static int
test_shared_lock_held_counter(void)
{
	struct tally_lock lock = TALLY_LOCK_INIT;
	struct tally_steer_action a = { .flags = TALLY_STEER_A_COUNT | TALLY_STEER_A_CNT_HELD,
					.fate = TALLY_STEER_FATE_DROP };
	struct tally_steer_rule *r, *x;
	struct tally_steer_table *t;
	struct tally_steer_matcher *m;
	struct tally_steer_key key;
	struct tally_match_key mk, k;
	uint32_t c1, c2, in_use, free_now, pending;
	struct steer_env e;

	TEST_ASSERT_EQ(env_init_ext(&e, 0, &lock, 0), 0, "");
	e.dev.auto_fence = false;
	tally_lock(&lock);
	TEST_ASSERT_EQ(tally_steer_table_create_locked(e.ctx, 0, &t), 0, "");
	TEST_ASSERT(tally_steer_table_get(e.ctx, 0) == t, "lock-free lookup");
	key_mask_5tuple(&mk);
	TEST_ASSERT_EQ(tally_steer_matcher_create_locked(t, 0, &mk, &m), 0, "");
	tally_steer_matcher_set_udata(m, &e);
	TEST_ASSERT(tally_steer_matcher_udata(m) == &e, "");
	TEST_ASSERT_EQ(tally_cnt_alloc_locked(e.pool, &c1), 0, "");
	TEST_ASSERT_EQ(tally_cnt_alloc_locked(e.pool, &c2), 0, "");
	key_5tuple(&k, 1, 2, 3, 4);
	tally_steer_rule_key(m, &k, &key);
	a.counter = c1;
	TEST_ASSERT_EQ(tally_steer_rule_insert_key_locked(m, &key, &a, &r), 0, "");
	TEST_ASSERT_EQ(tally_cnt_refcnt(e.pool, c1), 1, "the caller's reference moved");
	a.counter = c2;
	TEST_ASSERT_EQ(tally_steer_rule_insert_key_locked(m, &key, &a, &x), -EEXIST, "");
	TEST_ASSERT_EQ(tally_cnt_refcnt(e.pool, c2), 1, "still the caller's");
	TEST_ASSERT_EQ(tally_cnt_free_locked(e.pool, c2), 0, "");
	a.flags = TALLY_STEER_A_CNT_HELD;
	key_5tuple(&k, 9, 9, 9, 9);
	tally_steer_rule_key(m, &k, &key);
	TEST_ASSERT_EQ(tally_steer_rule_insert_key_locked(m, &key, &a, &x), -EINVAL,
		       "held without count");
	TEST_ASSERT_EQ(tally_steer_rule_delete_locked(r), 0, "");
	tally_cnt_pool_stats_locked(e.pool, &in_use, &free_now, &pending);
	TEST_ASSERT_EQ(in_use, 0, "");
	TEST_ASSERT_EQ(pending, 2, "both wait for a fence");
	TEST_ASSERT_EQ(tally_cnt_refcnt(e.pool, c1), 0, "");
	TEST_ASSERT_EQ(tally_steer_matcher_destroy_locked(m), 0, "");
	tally_unlock(&lock);
	/* the plain calls take the shared lock themselves */
	TEST_ASSERT_EQ(tally_steer_ctx_sync(e.ctx, 1000), -ETIMEDOUT, "fence not done");
	TEST_ASSERT_EQ(tally_cnt_reclaim(e.pool), 0, "");
	fake_dev_fence_complete(&e.dev);
	TEST_ASSERT_EQ(tally_cnt_reclaim(e.pool), 2, "");
	TEST_ASSERT_EQ(tally_steer_table_destroy(t), 0, "");
	env_fini(&e);
	return TEST_SUCCESS;
}

/* Rule handles carrying caller data: reserve, insert into, walk, remove,
 * give back. */
struct priv16 {
	uint64_t a, b;
};

static int
test_rule_priv_handles(void)
{
	struct tally_steer_action a = act_queue(1);
	struct tally_steer_rule *r, *r2, *w;
	struct tally_steer_table *t;
	struct tally_steer_matcher *m;
	struct tally_steer_key key;
	struct tally_match_key mk, k;
	struct priv16 *p;
	struct steer_env e;
	uint32_t i, live;

	TEST_ASSERT_EQ(env_init_ext(&e, 0, NULL, sizeof(struct priv16)), 0, "");
	TEST_ASSERT_EQ(tally_steer_table_create(e.ctx, 0, &t), 0, "");
	key_mask_5tuple(&mk);
	TEST_ASSERT_EQ(tally_steer_matcher_create(t, 0, &mk, &m), 0, "");
	TEST_ASSERT_EQ(tally_steer_rule_slots(e.ctx), 0, "");
	TEST_ASSERT_EQ(tally_steer_rule_reserve_locked(e.ctx, &r), 0, "");
	p = tally_steer_rule_priv(r);
	TEST_ASSERT(p->a == 0 && p->b == 0, "caller data zeroed");
	TEST_ASSERT(tally_steer_rule_of_priv(p) == r, "");
	TEST_ASSERT(tally_steer_rule_matcher(r) == NULL, "reserved, not inserted");
	p->a = 0x1111;
	p->b = 0x2222;
	key_5tuple(&k, 5, 6, 7, 8);
	tally_steer_rule_key(m, &k, &key);
	TEST_ASSERT_EQ(tally_steer_rule_insert_at_locked(m, &key, &a, r), 0, "");
	TEST_ASSERT_EQ(tally_steer_rule_insert_at_locked(m, &key, &a, r), -EINVAL,
		       "already in a matcher");
	TEST_ASSERT_EQ(tally_steer_rule_reserve_locked(e.ctx, &r2), 0, "");
	TEST_ASSERT_EQ(tally_steer_rule_insert_at_locked(m, &key, &a, r2), -EEXIST, "");
	TEST_ASSERT(tally_steer_rule_matcher(r2) == NULL, "stays reserved");
	TEST_ASSERT_EQ(tally_steer_rule_slots(e.ctx), 2, "");
	for (i = 0, live = 0; (w = tally_steer_rule_at(e.ctx, i)) != NULL; i++)
		if (tally_steer_rule_matcher(w) == m) {
			live++;
			TEST_ASSERT(w == r && ((struct priv16 *)tally_steer_rule_priv(w))->b == 0x2222,
				    "");
		}
	TEST_ASSERT_EQ(live, 1, "");
	TEST_ASSERT(tally_steer_rule_at(e.ctx, 2) == NULL, "past the last");
	TEST_ASSERT_EQ(tally_steer_rule_remove_locked(r), 0, "");
	TEST_ASSERT(tally_steer_rule_matcher(r) == NULL, "");
	TEST_ASSERT_EQ(p->a, 0x1111, "caller data kept until given back");
	TEST_ASSERT_EQ(tally_steer_matcher_rules(m), 0, "");
	tally_steer_rule_unreserve_locked(e.ctx, r);
	tally_steer_rule_unreserve_locked(e.ctx, r2);
	TEST_ASSERT_EQ(tally_steer_rule_reserve_locked(e.ctx, &w), 0, "");
	TEST_ASSERT(w == r2, "freed handles are reused, last first");
	TEST_ASSERT_EQ(((struct priv16 *)tally_steer_rule_priv(w))->a, 0, "zeroed again");
	tally_steer_rule_unreserve_locked(e.ctx, w);
	TEST_ASSERT_EQ(tally_steer_matcher_destroy(m), 0, "");
	TEST_ASSERT_EQ(tally_steer_table_destroy(t), 0, "");
	env_fini(&e);
	return TEST_SUCCESS;
}

/*
 * Handles mapped and touched ahead (the PMD does it at probe for as many
 * rules as its counter bank counts): none is handed out by it, handing
 * them out takes no more memory, and the first handle past the reserved
 * slab chunks (2^16 handles each) maps a new one.
 */
static int
test_rule_handles_reserved(void)
{
	enum { N = 70000, CHUNK = 1 << 16 };
	struct tally_steer_mem_stats st0, st1, st2;
	struct tally_steer_rule **r;
	struct steer_env e;
	uint32_t i;

	TEST_ASSERT_EQ(env_init_ext(&e, 0, NULL, sizeof(struct priv16)), 0, "");
	TEST_ASSERT_EQ(tally_steer_ctx_reserve_handles(NULL, 1), -EINVAL, "");
	tally_steer_ctx_mem(e.ctx, &st0);
	TEST_ASSERT_EQ(tally_steer_ctx_reserve_handles(e.ctx, N), 0, "");
	tally_steer_ctx_mem(e.ctx, &st1);
	TEST_ASSERT(st1.host_bytes >= st0.host_bytes + 2ull * CHUNK * 32, "two chunks mapped");
	TEST_ASSERT_EQ(tally_steer_rule_slots(e.ctx), 0, "none handed out");
	TEST_ASSERT_EQ(tally_steer_ctx_reserve_handles(e.ctx, N), 0, "again");
	tally_steer_ctx_mem(e.ctx, &st2);
	TEST_ASSERT_U64_EQ(st2.host_bytes, st1.host_bytes, "nothing more");
	r = calloc(2 * CHUNK + 1, sizeof(*r));
	TEST_ASSERT(r != NULL, "");
	for (i = 0; i < 2 * CHUNK; i++)
		TEST_ASSERT_EQ(tally_steer_rule_reserve_locked(e.ctx, &r[i]), 0, "%u", i);
	tally_steer_ctx_mem(e.ctx, &st2);
	TEST_ASSERT_U64_EQ(st2.host_bytes, st1.host_bytes, "handed out from the reserved slab");
	TEST_ASSERT_EQ(tally_steer_rule_reserve_locked(e.ctx, &r[i]), 0, "");
	tally_steer_ctx_mem(e.ctx, &st2);
	TEST_ASSERT(st2.host_bytes > st1.host_bytes, "one past it maps a chunk");
	for (i = 0; i <= 2 * CHUNK; i++)
		tally_steer_rule_unreserve_locked(e.ctx, r[i]);
	free(r);
	env_fini(&e);
	return TEST_SUCCESS;
}

/*
 * Inserts into never-written home slots skip the probe (the written bitmap
 * says no key can be there). Random churn over a pool of keys, through
 * growth, tombstone purges and shrinks: after every step the arrays are
 * consistent (every placed rule has its written bit), a live key is a
 * duplicate, and the device finds exactly the live keys.
 */
static int
churn(uint32_t stage_min_log2)
{
	enum { POOL = 3000, STEPS = 40000 };
	struct steer_env e;
	struct tally_steer_table *t;
	struct tally_steer_matcher *m;
	struct tally_steer_rule **r, *x;
	struct tally_match_key mk, k;
	struct tally_steer_action a = act_queue(1);
	uint32_t i, j, live = 0, migrations = 0, seed = 12345;
	bool was_migrating = false;

	TEST_ASSERT_EQ(env_init_stage(&e, 0, NULL, 0, stage_min_log2), 0, "");
	r = calloc(POOL, sizeof(*r));
	TEST_ASSERT(r != NULL, "");
	TEST_ASSERT_EQ(tally_steer_table_create(e.ctx, 0, &t), 0, "");
	key_mask_5tuple(&mk);
	TEST_ASSERT_EQ(tally_steer_matcher_create(t, 0, &mk, &m), 0, "");
	for (i = 0; i < STEPS; i++) {
		/* phases: fill towards the pool, drain to a few, fill again */
		bool fill = (i / 10000) % 2 == 0 ? live < POOL * 9 / 10 : live < 50;

		seed = seed * 1103515245u + 12345u;
		j = (seed >> 8) % POOL;
		key_n(&k, j);
		if (r[j] == NULL && (fill || (seed & 0x10000))) {
			TEST_ASSERT_EQ(tally_steer_rule_insert(m, &k, &a, &r[j]), 0,
				       "step %u insert %u", i, j);
			live++;
		} else if (r[j] != NULL) {
			TEST_ASSERT_EQ(tally_steer_rule_insert(m, &k, &a, &x), -EEXIST,
				       "step %u duplicate %u", i, j);
			if (!fill || (seed & 0x20000)) {
				TEST_ASSERT_EQ(tally_steer_rule_delete(r[j]), 0, "step %u", i);
				r[j] = NULL;
				live--;
			}
		}
		if (tally_steer_matcher_migrating(m) && !was_migrating)
			migrations++;
		was_migrating = tally_steer_matcher_migrating(m);
		if (i % 97 == 0 || was_migrating)
			TEST_ASSERT_EQ(tally_steer_matcher_check_locked(m), 0, "step %u", i);
	}
	TEST_ASSERT(migrations >= 4, "%u migrations", migrations);
	TEST_ASSERT_EQ(tally_steer_matcher_rules(m), live, "");
	if (stage_min_log2 != 0)
		TEST_ASSERT(tally_steer_matcher_staged(m) > 0, "rules staged");
	for (j = 0; j < POOL; j++) {
		key_n(&k, j);
		TEST_ASSERT_EQ(steer_dev_find_table(&e, 0, &k) != NULL, r[j] != NULL,
			       "device view of key %u", j);
		if (r[j] != NULL)
			TEST_ASSERT_EQ(tally_steer_rule_delete(r[j]), 0, "%u", j);
	}
	TEST_ASSERT_EQ(tally_steer_matcher_check_locked(m), 0, "");
	free(r);
	env_fini(&e);
	return TEST_SUCCESS;
}

static int
test_written_bitmap_churn(void)
{
	return churn(0);
}

/* The same with every single insert staged (tally_steer_stage.c). */
static int
test_staged_churn(void)
{
	return churn(4);
}

/* Every single insert staged (stage_min_log2 4): table 0 with one 5-tuple
 * matcher, sized ahead as the PMD's first matcher is (room from the
 * start). */
static int
staged_env(struct steer_env *e, struct tally_steer_table **t,
	   struct tally_steer_matcher **m)
{
	struct tally_match_key mk;

	TEST_ASSERT_EQ(env_init_stage(e, 0, NULL, 0, 4), 0, "");
	TEST_ASSERT_EQ(tally_steer_table_create(e->ctx, 0, t), 0, "");
	key_mask_5tuple(&mk);
	TEST_ASSERT_EQ(tally_steer_matcher_create(*t, 0, &mk, m), 0, "");
	TEST_ASSERT_EQ(tally_steer_matcher_reserve(*m, 64), 0, "");
	return TEST_SUCCESS;
}

/*
 * Staged inserts: visible to the device at once (in the stage, the first
 * matcher of the table), moved on into the hash array STEER_STAGE_DEPTH
 * (12) inserts later, duplicates refused in both, deletes of staged rules,
 * the matcher busy while it stages rules, drained on demand.
 */
static int
test_staged_inserts(void)
{
	enum { N = 30 };
	struct steer_env e;
	struct tally_steer_table *t;
	struct tally_steer_matcher *m;
	struct tally_steer_rule *r[N], *x;
	struct tally_match_key k;
	struct tally_steer_action a = act_queue(2), pass = { .fate = TALLY_STEER_FATE_PASSTHRU };
	uint32_t i;

	if (staged_env(&e, &t, &m) != TEST_SUCCESS)
		return TEST_FAILED;
	for (i = 0; i < 3; i++) {
		key_n(&k, i);
		TEST_ASSERT_EQ(tally_steer_rule_insert(m, &k, &a, &r[i]), 0, "%u", i);
		TEST_ASSERT(tally_steer_rule_matcher(r[i]) == m, "a staged rule's matcher");
		TEST_ASSERT_EQ(tally_steer_matcher_staged(m), i + 1, "");
		TEST_ASSERT_EQ(tally_steer_matcher_rules(m), i + 1, "");
		TEST_ASSERT_EQ(dev_nmatchers(&e, 0), 2, "the stage, then the matcher");
		TEST_ASSERT(steer_dev_find(dev_desc_at(&e, 0, 0), &k) != NULL, "in the stage");
		TEST_ASSERT(steer_dev_find(dev_desc_at(&e, 0, 1), &k) == NULL, "");
	}
	key_n(&k, 1);
	TEST_ASSERT_EQ(tally_steer_rule_insert(m, &k, &a, &x), -EEXIST, "staged duplicate");
	TEST_ASSERT_EQ(tally_steer_rule_delete(r[1]), 0, "");
	TEST_ASSERT(steer_dev_find_table(&e, 0, &k) == NULL, "deleted while staged");
	TEST_ASSERT_EQ(tally_steer_matcher_staged(m), 2, "");
	TEST_ASSERT_EQ(tally_steer_rule_insert(m, &k, &a, &r[1]), 0, "again");
	for (i = 3; i < N; i++) {
		key_n(&k, i);
		TEST_ASSERT_EQ(tally_steer_rule_insert(m, &k, &a, &r[i]), 0, "%u", i);
		TEST_ASSERT_EQ(tally_steer_matcher_check_locked(m), 0, "after %u", i);
	}
	/* every insert first moves rules on until STEER_STAGE_DEPTH - 1 are
	 * left; a staged one then makes it STEER_STAGE_DEPTH again, one whose
	 * key may be in the array (home slot written) goes there directly */
	key_n(&k, N - 1);
	TEST_ASSERT_EQ(tally_steer_matcher_staged(m),
		       steer_dev_find(dev_desc_at(&e, 0, 0), &k) != NULL ? 12 : 11,
		       "STEER_STAGE_DEPTH left staged");
	TEST_ASSERT_EQ(tally_steer_matcher_rules(m), N, "");
	for (i = 0; i < N; i++) {
		key_n(&k, i);
		TEST_ASSERT(steer_dev_find_table(&e, 0, &k) != NULL, "device finds %u", i);
		TEST_ASSERT_EQ(tally_steer_rule_insert(m, &k, &a, &x), -EEXIST, "%u", i);
		TEST_ASSERT(tally_steer_rule_matcher(r[i]) == m, "");
	}
	/* the oldest went on into the hash array */
	key_n(&k, 0);
	TEST_ASSERT(steer_dev_find(dev_desc_at(&e, 0, 1), &k) != NULL, "moved on");
	TEST_ASSERT(steer_dev_find(dev_desc_at(&e, 0, 0), &k) == NULL, "left the stage");
	/* never staged: a PASSTHRU hit goes on to the next matcher */
	key_n(&k, N);
	TEST_ASSERT_EQ(tally_steer_rule_insert(m, &k, &pass, &x), 0, "");
	TEST_ASSERT(steer_dev_find(dev_desc_at(&e, 0, 1), &k) != NULL, "not staged");
	TEST_ASSERT_EQ(tally_steer_rule_delete(x), 0, "");
	TEST_ASSERT_EQ(tally_steer_rule_delete(r[N - 1]), 0, "a staged one");
	for (i = 0; i < N - 1; i++)
		TEST_ASSERT_EQ(tally_steer_rule_delete(r[i]), 0, "%u", i);
	TEST_ASSERT_EQ(tally_steer_matcher_rules(m), 0, "");
	TEST_ASSERT_EQ(tally_steer_matcher_check_locked(m), 0, "");
	/* drained on demand; busy while staging */
	for (i = 0; i < 4; i++) {
		key_n(&k, i);
		TEST_ASSERT_EQ(tally_steer_rule_insert(m, &k, &a, &r[i]), 0, "%u", i);
	}
	TEST_ASSERT_EQ(tally_steer_matcher_destroy(m), -EBUSY, "staged rules");
	TEST_ASSERT_EQ(tally_steer_matcher_drain_locked(m), 0, "");
	TEST_ASSERT_EQ(tally_steer_matcher_staged(m), 0, "");
	for (i = 0; i < 4; i++) {
		key_n(&k, i);
		TEST_ASSERT(steer_dev_find(dev_desc_at(&e, 0, 1), &k) != NULL, "%u drained", i);
		TEST_ASSERT_EQ(tally_steer_rule_delete(r[i]), 0, "%u", i);
	}
	TEST_ASSERT_EQ(tally_steer_matcher_check_locked(m), 0, "");
	TEST_ASSERT_EQ(tally_steer_matcher_destroy(m), 0, "");
	TEST_ASSERT_EQ(dev_nmatchers(&e, 0), 0, "the stage went with it");
	TEST_ASSERT_EQ(tally_steer_table_destroy(t), 0, "");
	env_fini(&e);
	return TEST_SUCCESS;
}

/*
 * A moved rule's stage slot turns EMPTY where no probe goes on past it:
 * thousands of staged inserts keep the stage's array (tombstones used to
 * fill it every few hundred inserts, and a rehash replaced it each time),
 * staged deletes included, and the device finds every rule.
 */
static int
test_staged_slots_emptied(void)
{
	enum { N = 3000 };
	struct steer_env e;
	struct tally_steer_table *t;
	struct tally_steer_matcher *m;
	struct tally_steer_rule **r, *x;
	struct tally_match_key k;
	struct tally_steer_action a = act_queue(2);
	uint64_t htab;
	uint32_t i;

	if (staged_env(&e, &t, &m) != TEST_SUCCESS)
		return TEST_FAILED;
	r = calloc(N, sizeof(*r));
	TEST_ASSERT(r != NULL, "");
	key_n(&k, 0);
	TEST_ASSERT_EQ(tally_steer_rule_insert(m, &k, &a, &r[0]), 0, "");
	htab = dev_desc_at(&e, 0, 0)->htab;
	for (i = 1; i < N; i++) {
		key_n(&k, i);
		TEST_ASSERT_EQ(tally_steer_rule_insert(m, &k, &a, &r[i]), 0, "%u", i);
		if (i % 7 == 0) {
			/* deleted while staged: a tombstone the moves clear */
			TEST_ASSERT_EQ(tally_steer_rule_delete(r[i]), 0, "%u", i);
			r[i] = NULL;
		}
		if (i % 101 == 0)
			TEST_ASSERT_EQ(tally_steer_matcher_check_locked(m), 0, "after %u", i);
	}
	TEST_ASSERT_U64_EQ(dev_desc_at(&e, 0, 0)->htab, htab, "the stage kept its array");
	TEST_ASSERT_EQ(tally_steer_matcher_check_locked(m), 0, "");
	for (i = 0; i < N; i++) {
		key_n(&k, i);
		TEST_ASSERT_EQ(steer_dev_find_table(&e, 0, &k) != NULL, r[i] != NULL,
			       "device view of %u", i);
		if (r[i] != NULL) {
			TEST_ASSERT_EQ(tally_steer_rule_insert(m, &k, &a, &x), -EEXIST, "%u", i);
			TEST_ASSERT_EQ(tally_steer_rule_delete(r[i]), 0, "%u", i);
		}
	}
	TEST_ASSERT_EQ(tally_steer_matcher_rules(m), 0, "");
	TEST_ASSERT_EQ(tally_steer_matcher_check_locked(m), 0, "");
	free(r);
	TEST_ASSERT_EQ(tally_steer_matcher_destroy(m), 0, "");
	TEST_ASSERT_EQ(tally_steer_table_destroy(t), 0, "");
	env_fini(&e);
	return TEST_SUCCESS;
}

/* A batch insert drains the stage first and refuses a staged key. */
static int
test_staged_batch(void)
{
	static struct tally_steer_bop ops[2];
	struct steer_env e;
	struct tally_steer_table *t;
	struct tally_steer_matcher *m;
	struct tally_steer_rule *r[3];
	struct tally_match_key k;
	struct tally_steer_action a = act_queue(2);
	struct tally_steer_act_enc enc;
	uint32_t i;

	if (staged_env(&e, &t, &m) != TEST_SUCCESS)
		return TEST_FAILED;
	for (i = 0; i < 3; i++) {
		key_n(&k, i);
		TEST_ASSERT_EQ(tally_steer_rule_insert(m, &k, &a, &r[i]), 0, "%u", i);
	}
	TEST_ASSERT_EQ(tally_steer_matcher_staged(m), 3, "");
	TEST_ASSERT_EQ(tally_steer_action_encode(&a, &enc), 0, "");
	for (i = 0; i < 2; i++) {
		TEST_ASSERT_EQ(tally_steer_rule_reserve_locked(e.ctx, &ops[i].r), 0, "");
		key_n(&k, i == 0 ? 1 : 40);	/* a staged key, a new one */
		tally_steer_rule_key(m, &k, &ops[i].key);
		ops[i].queue = 3;
	}
	TEST_ASSERT_EQ(tally_steer_rule_insert_batch_locked(m, &enc, ops, 2), 1, "");
	TEST_ASSERT_EQ(ops[0].rc, -EEXIST, "staged duplicate");
	TEST_ASSERT_EQ(ops[1].rc, 0, "");
	TEST_ASSERT_EQ(tally_steer_matcher_staged(m), 0, "drained first");
	TEST_ASSERT_EQ(tally_steer_matcher_rules(m), 4, "");
	TEST_ASSERT_EQ(tally_steer_matcher_check_locked(m), 0, "");
	for (i = 0; i < 3; i++) {
		key_n(&k, i);
		TEST_ASSERT(steer_dev_find(dev_desc_at(&e, 0, 1), &k) != NULL, "%u", i);
		TEST_ASSERT_EQ(tally_steer_rule_delete(r[i]), 0, "%u", i);
	}
	tally_steer_rule_unreserve_locked(e.ctx, ops[0].r);
	TEST_ASSERT_EQ(tally_steer_rule_delete(ops[1].r), 0, "");
	TEST_ASSERT_EQ(tally_steer_matcher_destroy(m), 0, "");
	TEST_ASSERT_EQ(tally_steer_table_destroy(t), 0, "");
	env_fini(&e);
	return TEST_SUCCESS;
}

/*
 * Parking: refused while the matcher holds rules (staged ones too); a parked
 * matcher and its stage leave the device's list, take no rule (single or
 * batch), keep the table busy, and come back where they were (priority,
 * then creation order) with the rules deleted before still gone; the
 * context frees one left parked.
 */
static int
test_park(void)
{
	static struct tally_steer_bop op;
	struct steer_env e;
	struct tally_steer_table *t;
	struct tally_steer_matcher *m, *a0, *b1, *c2;
	struct tally_steer_rule *r[3], *x;
	struct tally_match_key k, mk;
	struct tally_steer_action a = act_queue(2);
	struct tally_steer_act_enc enc;
	uint32_t i;

	if (staged_env(&e, &t, &m) != TEST_SUCCESS)	/* m: priority 0 */
		return TEST_FAILED;
	key_mask_5tuple(&mk);
	TEST_ASSERT_EQ(tally_steer_matcher_create(t, 1, &mk, &b1), 0, "");
	TEST_ASSERT_EQ(tally_steer_matcher_create(t, 0, &mk, &a0), 0, "after m");
	TEST_ASSERT_EQ(tally_steer_matcher_create(t, 2, &mk, &c2), 0, "");
	for (i = 0; i < 3; i++) {
		key_n(&k, i);
		TEST_ASSERT_EQ(tally_steer_rule_insert(m, &k, &a, &r[i]), 0, "%u", i);
	}
	TEST_ASSERT_EQ(dev_nmatchers(&e, 0), 5, "stage, m, a0, b1, c2");
	TEST_ASSERT_EQ(tally_steer_matcher_park_locked(m), -EBUSY, "staged rules");
	TEST_ASSERT_EQ(tally_steer_matcher_park_locked(a0), 0, "an empty one");
	TEST_ASSERT_EQ(tally_steer_matcher_unpark_locked(a0), 0, "");
	for (i = 0; i < 3; i++)
		TEST_ASSERT_EQ(tally_steer_rule_delete(r[i]), 0, "%u", i);
	TEST_ASSERT_EQ(tally_steer_matcher_park_locked(m), 0, "");
	TEST_ASSERT(tally_steer_matcher_parked(m), "");
	TEST_ASSERT_EQ(tally_steer_matcher_park_locked(m), 0, "twice");
	TEST_ASSERT_EQ(dev_nmatchers(&e, 0), 3, "m and its stage left the list");
	TEST_ASSERT_EQ(dev_desc_at(&e, 0, 0)->priority, 0, "a0 first");
	key_n(&k, 7);
	TEST_ASSERT_EQ(tally_steer_rule_insert(m, &k, &a, &x), -EINVAL, "parked");
	TEST_ASSERT_EQ(tally_steer_action_encode(&a, &enc), 0, "");
	TEST_ASSERT_EQ(tally_steer_rule_reserve_locked(e.ctx, &op.r), 0, "");
	tally_steer_rule_key(m, &k, &op.key);
	op.queue = 3;
	TEST_ASSERT_EQ(tally_steer_rule_insert_batch_locked(m, &enc, &op, 1), 0, "parked");
	TEST_ASSERT_EQ(op.rc, -EINVAL, "");
	tally_steer_rule_unreserve_locked(e.ctx, op.r);
	TEST_ASSERT(steer_dev_find_table(&e, 0, &k) == NULL, "");
	TEST_ASSERT_EQ(tally_steer_matcher_unpark_locked(m), 0, "");
	TEST_ASSERT(!tally_steer_matcher_parked(m), "");
	TEST_ASSERT_EQ(tally_steer_matcher_unpark_locked(m), 0, "twice");
	TEST_ASSERT_EQ(dev_nmatchers(&e, 0), 5, "back");
	/* the stage right before m, m before a0 (same priority, created first) */
	TEST_ASSERT_EQ(dev_desc_at(&e, 0, 0)->id, dev_desc_at(&e, 0, 1)->id, "stage, twin");
	TEST_ASSERT(dev_desc_at(&e, 0, 1)->id < dev_desc_at(&e, 0, 2)->id, "m before a0");
	TEST_ASSERT_EQ(dev_desc_at(&e, 0, 2)->priority, 0, "");
	TEST_ASSERT_EQ(dev_desc_at(&e, 0, 3)->priority, 1, "");
	TEST_ASSERT_EQ(dev_desc_at(&e, 0, 4)->priority, 2, "");
	for (i = 0; i < 3; i++) {
		key_n(&k, i);
		TEST_ASSERT(steer_dev_find_table(&e, 0, &k) == NULL, "%u stays deleted", i);
	}
	key_n(&k, 7);
	TEST_ASSERT_EQ(tally_steer_rule_insert(m, &k, &a, &x), 0, "");
	TEST_ASSERT(steer_dev_find_table(&e, 0, &k) != NULL, "");
	TEST_ASSERT_EQ(tally_steer_matcher_check_locked(m), 0, "");
	TEST_ASSERT_EQ(tally_steer_rule_delete(x), 0, "");
	/* parked, the table stays busy; the context frees a parked matcher */
	TEST_ASSERT_EQ(tally_steer_matcher_destroy(a0), 0, "");
	TEST_ASSERT_EQ(tally_steer_matcher_destroy(b1), 0, "");
	TEST_ASSERT_EQ(tally_steer_matcher_destroy(c2), 0, "");
	TEST_ASSERT_EQ(tally_steer_matcher_drain_locked(m), 0, "");
	TEST_ASSERT_EQ(tally_steer_matcher_park_locked(m), 0, "");
	TEST_ASSERT_EQ(dev_nmatchers(&e, 0), 0, "");
	TEST_ASSERT_EQ(tally_steer_table_destroy(t), -EBUSY, "a parked matcher");
	env_fini(&e);
	return TEST_SUCCESS;
}

static const struct tally_test_case cases[] = {
	TEST_CASE(test_park),
	TEST_CASE(test_root_programmed),
	TEST_CASE(test_insert_delete_duplicate),
	TEST_CASE(test_bad_actions),
	TEST_CASE(test_jump_missing_and_loops),
	TEST_CASE(test_growth_and_delete_all),
	TEST_CASE(test_incremental_migration),
	TEST_CASE(test_written_bitmap_churn),
	TEST_CASE(test_staged_churn),
	TEST_CASE(test_staged_inserts),
	TEST_CASE(test_staged_slots_emptied),
	TEST_CASE(test_rule_handles_reserved),
	TEST_CASE(test_staged_batch),
	TEST_CASE(test_limits_and_no_partial_state),
	TEST_CASE(test_matcher_order_in_device_memory),
	TEST_CASE(test_rss_sets),
	TEST_CASE(test_shared_lock_held_counter),
	TEST_CASE(test_rule_priv_handles),
};

TEST_MAIN("steer-rule", cases)
