/* SPDX-License-Identifier: BSD-3-Clause */
/* Rules: handle slab, O(1) insert/delete in a matcher's hash array. */
#include "tally_steer_internal.h"

#define CHUNK_N		(1u << STEER_HANDLE_CHUNK_LOG2)

static int
steer_handle_alloc(struct tally_steer_ctx *ctx, struct tally_steer_rule **out)
{
	struct tally_steer_rule *r, *c;
	uint32_t i, base;

	if (ctx->free_handle == STEER_HANDLE_NONE) {
		if (ctx->nchunks == ctx->chunk_cap) {
			uint32_t cap = ctx->chunk_cap ? ctx->chunk_cap * 2 : 16;
			struct tally_steer_rule **n = tally_zmalloc(cap * sizeof(*n));

			if (n == NULL)
				return -ENOMEM;
			if (ctx->nchunks)
				memcpy(n, ctx->chunk, ctx->nchunks * sizeof(*n));
			tally_free(ctx->chunk);
			ctx->host_bytes += (cap - ctx->chunk_cap) * sizeof(*n);
			ctx->chunk = n;
			ctx->chunk_cap = cap;
		}
		if ((uint64_t)(ctx->nchunks + 1) * CHUNK_N > UINT32_MAX)
			return -ENOSPC;
		c = tally_zmalloc_aligned(CHUNK_N * sizeof(*c), 64);
		if (c == NULL)
			return -ENOMEM;
		base = ctx->nchunks * CHUNK_N;
		for (i = 0; i < CHUNK_N; i++) {
			c[i].idx = base + i;
			c[i].slot = i + 1 < CHUNK_N ? base + i + 1 : STEER_HANDLE_NONE;
		}
		ctx->chunk[ctx->nchunks++] = c;
		ctx->free_handle = base;
		ctx->host_bytes += CHUNK_N * sizeof(*c);
	}
	r = steer_handle(ctx, ctx->free_handle);
	ctx->free_handle = r->slot;
	*out = r;
	return 0;
}

static void
steer_handle_free(struct tally_steer_ctx *ctx, struct tally_steer_rule *r)
{
	r->m = NULL;
	r->slot = ctx->free_handle;
	ctx->free_handle = r->idx;
}

static bool
steer_key_eq(const struct tally_steer_entry *e, const uint32_t *w, uint32_t n)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		if (e->key[i] != w[i])
			return false;
	return true;
}

/*
 * Probe for w. Returns the slot holding an equal VALID entry, or UINT32_MAX
 * and in *ins the slot a new entry should take (first TOMB or the EMPTY
 * that ended the probe).
 */
static uint32_t
steer_probe(const struct tally_steer_matcher *m, const uint32_t *w, uint32_t h,
	    uint32_t *ins)
{
	uint32_t mask = (1u << m->log2) - 1, s = h & mask, i, first = UINT32_MAX;

	for (i = 0; i <= mask; i++, s = (s + 1) & mask) {
		const struct tally_steer_entry *e = steer_entry(m, s);
		uint32_t st = steer_state(e->ctrl);

		if (st == TALLY_STEER_S_EMPTY) {
			if (first == UINT32_MAX)
				first = s;
			break;
		}
		if (st == TALLY_STEER_S_VALID) {
			if (steer_key_eq(e, w, m->nwords))
				return s;
		} else if (first == UINT32_MAX) {
			first = s;
		}
	}
	*ins = first;
	return UINT32_MAX;
}

static void
steer_masked_words(const struct tally_steer_matcher *m,
		   const struct tally_match_key *v, uint32_t *w)
{
	uint32_t i;

	for (i = 0; i < m->nwords; i++)
		w[i] = tally_steer_key_word(v, m->widx[i]) & m->wmask[i];
}

/* Keep (used + tombs) <= 3/4 of the entries, with room for one more.
 * Returns 1 if the array was rebuilt, 0 if not, or -errno. */
static int
steer_make_room(struct tally_steer_matcher *m)
{
	uint32_t n = 1u << m->log2, log2 = m->log2;
	int rc;

	if ((uint64_t)(m->used + m->tombs + 1) * 4 <= (uint64_t)n * 3)
		return 0;
	while ((uint64_t)(m->used + 1) * 2 > (1ull << log2))
		log2++;	/* double while more than half would be live */
	rc = steer_matcher_rehash(m, log2);
	return rc == 0 ? 1 : rc;
}

void
tally_steer_rule_prefetch(struct tally_steer_matcher *m,
			  const struct tally_match_key *value)
{
	struct tally_steer_ctx *ctx = m->tbl->ctx;
	uint32_t w[TALLY_STEER_KEY_WORDS], slot;

	steer_masked_words(m, value, w);
	pthread_mutex_lock(&ctx->lock);
	slot = tally_steer_hash(w, m->nwords, m->seed) & ((1u << m->log2) - 1);
	__builtin_prefetch(steer_entry(m, slot), 1, 0);
	__builtin_prefetch(&m->shadow[slot], 1, 0);
	pthread_mutex_unlock(&ctx->lock);
}

int
tally_steer_rule_insert(struct tally_steer_matcher *m,
			const struct tally_match_key *value,
			const struct tally_steer_action *act,
			struct tally_steer_rule **out)
{
	struct tally_steer_ctx *ctx = m->tbl->ctx;
	uint32_t w[TALLY_STEER_KEY_WORDS], h, slot, ins, act_w, fate_w, i;
	struct tally_steer_entry *e;
	struct tally_steer_rule *r;
	int rc;

	if (value == NULL || act == NULL || out == NULL)
		return -EINVAL;
	steer_masked_words(m, value, w);
	h = tally_steer_hash(w, m->nwords, m->seed);
	pthread_mutex_lock(&ctx->lock);
	slot = steer_probe(m, w, h, &ins);
	if (slot != UINT32_MAX) {
		rc = -EEXIST;
		goto out;
	}
	if (ctx->nrules >= ctx->cfg.max_rules) {
		rc = -ENOSPC;
		goto out;
	}
	rc = steer_handle_alloc(ctx, &r);
	if (rc != 0)
		goto out;
	rc = steer_action_acquire(m->tbl, act, &act_w, &fate_w);
	if (rc != 0) {
		steer_handle_free(ctx, r);
		goto out;
	}
	rc = steer_make_room(m);
	if (rc < 0) {
		steer_action_release(m->tbl, act_w, fate_w);
		steer_handle_free(ctx, r);
		goto out;
	}
	if (rc == 1)
		steer_probe(m, w, h, &ins);	/* the array changed */
	rc = 0;
	e = steer_entry(m, ins);
	if (steer_state(e->ctrl) == TALLY_STEER_S_TOMB)
		m->tombs--;
	/* seqlock write: BUSY, fields, VALID (release) */
	__atomic_store_n(&e->ctrl, steer_ctrl_next(e->ctrl, TALLY_STEER_S_BUSY),
			 __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	__atomic_store_n(&e->act, act_w, __ATOMIC_RELAXED);
	__atomic_store_n(&e->mark, act->mark, __ATOMIC_RELAXED);
	__atomic_store_n(&e->fate, fate_w, __ATOMIC_RELAXED);
	for (i = 0; i < m->nwords; i++)
		__atomic_store_n(&e->key[i], w[i], __ATOMIC_RELAXED);
	/* pairs with the device's acquire load of ctrl */
	__atomic_store_n(&e->ctrl, steer_ctrl_next(e->ctrl, TALLY_STEER_S_VALID),
			 __ATOMIC_RELEASE);
	m->shadow[ins] = r->idx;
	m->used++;
	ctx->nrules++;
	r->m = m;
	r->slot = ins;
	*out = r;
out:
	pthread_mutex_unlock(&ctx->lock);
	return rc;
}

int
tally_steer_rule_delete(struct tally_steer_rule *r)
{
	struct tally_steer_matcher *m = r->m;
	struct tally_steer_ctx *ctx;
	struct tally_steer_entry *e;
	uint32_t a, fate, n;

	if (m == NULL)
		return -EINVAL;
	ctx = m->tbl->ctx;
	pthread_mutex_lock(&ctx->lock);
	e = steer_entry(m, r->slot);
	a = e->act;
	fate = e->fate;
	/* one release store unpublishes the rule */
	__atomic_store_n(&e->ctrl, steer_ctrl_next(e->ctrl, TALLY_STEER_S_TOMB),
			 __ATOMIC_RELEASE);
	m->used--;
	m->tombs++;
	ctx->nrules--;
	steer_action_release(m->tbl, a, fate);
	steer_handle_free(ctx, r);
	/* Purge tombstones when they fill a quarter of the array, or shrink
	 * when it is less than 1/16 live; rebuild at <= 3/8 live (best effort:
	 * the delete itself is done). Amortised O(1). */
	n = 1u << m->log2;
	if (m->tombs * 4 > n ||
	    (m->log2 > TALLY_MAX(m->min_log2, (uint32_t)STEER_HTAB_MIN_LOG2) &&
	     (uint64_t)m->used * 16 < n)) {
		uint32_t log2 = TALLY_MAX(m->min_log2, (uint32_t)STEER_HTAB_MIN_LOG2);

		while ((uint64_t)m->used * 8 > (3ull << log2))
			log2++;
		if (log2 > m->log2)
			log2 = m->log2;
		(void)steer_matcher_rehash(m, log2);
		steer_reclaim_locked(ctx);
	}
	pthread_mutex_unlock(&ctx->lock);
	return 0;
}

void
tally_steer_rule_action(const struct tally_steer_rule *r, struct tally_steer_action *act)
{
	const struct tally_steer_entry *e = steer_entry(r->m, r->slot);

	steer_action_decode(e->act, e->mark, e->fate, act);
}

/* ctx teardown: drop the resources of every rule of m. */
void
steer_rules_free_all(struct tally_steer_matcher *m)
{
	struct tally_steer_ctx *ctx = m->tbl->ctx;
	uint32_t i, n = 1u << m->log2;

	for (i = 0; i < n && m->used > 0; i++) {
		struct tally_steer_entry *e = steer_entry(m, i);

		if (steer_state(e->ctrl) != TALLY_STEER_S_VALID)
			continue;
		if ((e->act & TALLY_STEER_ACT_COUNT) && ctx->cfg.cnt != NULL)
			tally_cnt_free(ctx->cfg.cnt,
				       TALLY_FIELD_GET(e->act, TALLY_STEER_ACT_CNT_M));
		m->used--;
	}
}
