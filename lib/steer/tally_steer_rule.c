/* SPDX-License-Identifier: BSD-3-Clause */
/* Rules: handle slab, O(1) insert/delete in a matcher's hash array. */
#include "tally_steer_internal.h"

#define CHUNK_N		(1u << STEER_HANDLE_CHUNK_LOG2)

/* One more slab chunk (its pages untouched): 0, -ENOSPC, -ENOMEM. */
static int
steer_handle_chunk_add(struct tally_steer_ctx *ctx)
{
	uint8_t *c;

	if ((uint64_t)(ctx->nchunks + 1) * CHUNK_N > UINT32_MAX)
		return -ENOSPC;
	if (ctx->nchunks == ctx->chunk_cap) {
		uint32_t cap = ctx->chunk_cap ? ctx->chunk_cap * 2 : 16;
		uint8_t **n = tally_zmalloc(cap * sizeof(*n));

		if (n == NULL)
			return -ENOMEM;
		if (ctx->nchunks)
			memcpy(n, ctx->chunk, ctx->nchunks * sizeof(*n));
		tally_free(ctx->chunk);
		ctx->host_bytes += (cap - ctx->chunk_cap) * sizeof(*n);
		ctx->chunk = n;
		ctx->chunk_cap = cap;
	}
	c = tally_hmem_alloc(steer_chunk_size(ctx), true);
	if (c == NULL)
		return -ENOMEM;
	ctx->chunk[ctx->nchunks++] = c;
	ctx->host_bytes += steer_chunk_size(ctx);
	return 0;
}

static int
steer_handle_alloc(struct tally_steer_ctx *ctx, struct tally_steer_rule **out)
{
	struct tally_steer_rule *r;
	uint32_t idx;
	int rc;

	if (ctx->free_handle != STEER_HANDLE_NONE) {
		r = steer_handle(ctx, ctx->free_handle);
		ctx->free_handle = r->slot;
	} else {
		/* pages are touched as handles are first handed out, unless
		 * tally_steer_ctx_reserve_handles() touched them before */
		if (ctx->handles == ctx->nchunks * CHUNK_N) {
			rc = steer_handle_chunk_add(ctx);
			if (rc != 0)
				return rc;
		}
		idx = ctx->handles++;
		r = steer_handle(ctx, idx);
		r->idx = idx;
	}
	r->m = NULL;
	r->slot = STEER_HANDLE_NONE;
	if (ctx->hstride > sizeof(*r))
		memset(r + 1, 0, ctx->hstride - sizeof(*r));
	*out = r;
	return 0;
}

int
tally_steer_ctx_reserve_handles(struct tally_steer_ctx *ctx, uint32_t n)
{
	uint32_t first;
	int rc = 0;

	if (ctx == NULL)
		return -EINVAL;
	tally_lock(ctx->lock);
	first = ctx->nchunks;
	while ((uint64_t)ctx->nchunks * CHUNK_N < n && rc == 0)
		rc = steer_handle_chunk_add(ctx);
	for (; first < ctx->nchunks; first++)
		tally_hmem_populate(ctx->chunk[first], steer_chunk_size(ctx));
	tally_unlock(ctx->lock);
	return rc;
}

static void
steer_handle_free(struct tally_steer_ctx *ctx, struct tally_steer_rule *r)
{
	r->m = NULL;
	r->slot = ctx->free_handle;
	ctx->free_handle = r->idx;
}

int
tally_steer_rule_reserve_locked(struct tally_steer_ctx *ctx, struct tally_steer_rule **out)
{
	if (ctx == NULL || out == NULL)
		return -EINVAL;
	return steer_handle_alloc(ctx, out);
}

void
tally_steer_rule_unreserve_locked(struct tally_steer_ctx *ctx, struct tally_steer_rule *r)
{
	if (r != NULL && r->m == NULL)
		steer_handle_free(ctx, r);
}

void
tally_steer_rule_key(struct tally_steer_matcher *m, const struct tally_match_key *value,
		     struct tally_steer_key *k)
{
	uint32_t i;

	for (i = 0; i < m->nwords; i++)
		k->w[i] = tally_steer_key_word(value, m->widx[i]) & m->wmask[i];
	k->hash = tally_steer_hash(k->w, m->nwords, m->seed);
	steer_prefetch_key(m, k->hash);
}

int
tally_steer_rule_insert_at_locked(struct tally_steer_matcher *m,
				  const struct tally_steer_key *k,
				  const struct tally_steer_action *act,
				  struct tally_steer_rule *r)
{
	struct tally_steer_ctx *ctx;
	uint32_t ins, act_w, fate_w, sins = 0;
	bool fresh;
	int rc;

	if (m == NULL || k == NULL || act == NULL || r == NULL || r->m != NULL ||
	    m->parked)
		return -EINVAL;
	ctx = m->tbl->ctx;
	/* the staged rule due to move goes before this insert reads what
	 * decides where its rule goes: the move's lines were asked for long
	 * ago, and it gives the prefetch of this key's lines (when the key
	 * was hashed) time to arrive */
	if (m->stage != NULL && steer_stage_wanted(m, act))
		steer_stage_drain(m, STEER_STAGE_DEPTH - 1);
	/* a staged rule of the same key (the stage is small and cached) */
	if (m->stage != NULL && steer_probe(m->stage, k->w, k->hash, &sins) != UINT32_MAX)
		return -EEXIST;
	/* a home slot never written in this array, with no migration due:
	 * the key is not in the array and the slot is EMPTY with a zero
	 * filter byte (see steer_written_size()), so both are only written
	 * and their cache misses do not stall the insert */
	ins = k->hash & ((1u << m->log2) - 1);
	fresh = steer_home_fresh(m, ins) && steer_room(m, 1);
	/* staged when the key cannot be in the array: its home slot was
	 * never written, or its filter bit is clear */
	if (steer_stage_wanted(m, act) &&
	    (fresh || !steer_filter_has(m->ent, m->log2, m->stride, k->hash))) {
		rc = steer_stage_insert(m, k, act, r, sins);
		if (rc != -ENOMEM)
			return rc;
		/* no stage: straight into the array */
	}
	if (!fresh && steer_probe(m, k->w, k->hash, &ins) != UINT32_MAX)
		return -EEXIST;
	if (ctx->nrules >= ctx->cfg.max_rules)
		return -ENOSPC;
	rc = steer_action_acquire(m->tbl, act, &act_w, &fate_w);
	if (rc != 0)
		return rc;
	rc = steer_insert_words(m, k, fresh, ins, act_w, act->mark, fate_w, r);
	if (rc < 0) {
		/* a held counter reference stays the caller's */
		steer_action_release(m->tbl, (act->flags & TALLY_STEER_A_CNT_HELD) ?
				     act_w & ~TALLY_STEER_ACT_COUNT : act_w, fate_w);
		return rc;
	}
	ctx->nrules++;
	return 0;
}

int
tally_steer_rule_insert_key_locked(struct tally_steer_matcher *m,
				   const struct tally_steer_key *k,
				   const struct tally_steer_action *act,
				   struct tally_steer_rule **out)
{
	struct tally_steer_rule *r;
	int rc;

	if (m == NULL || k == NULL || act == NULL || out == NULL)
		return -EINVAL;
	rc = steer_handle_alloc(m->tbl->ctx, &r);
	if (rc != 0)
		return rc;
	rc = tally_steer_rule_insert_at_locked(m, k, act, r);
	if (rc != 0) {
		steer_handle_free(m->tbl->ctx, r);
		return rc;
	}
	*out = r;
	return 0;
}

int
tally_steer_rule_insert_key(struct tally_steer_matcher *m, const struct tally_steer_key *k,
			    const struct tally_steer_action *act,
			    struct tally_steer_rule **out)
{
	struct tally_steer_ctx *ctx;
	int rc;

	if (m == NULL)
		return -EINVAL;
	ctx = m->tbl->ctx;
	tally_lock(ctx->lock);
	rc = tally_steer_rule_insert_key_locked(m, k, act, out);
	tally_unlock(ctx->lock);
	return rc;
}

int
tally_steer_rule_insert(struct tally_steer_matcher *m,
			const struct tally_match_key *value,
			const struct tally_steer_action *act,
			struct tally_steer_rule **out)
{
	struct tally_steer_key k;

	if (m == NULL || value == NULL)
		return -EINVAL;
	tally_steer_rule_key(m, value, &k);
	return tally_steer_rule_insert_key(m, &k, act, out);
}

int
tally_steer_rule_insert_locked(struct tally_steer_matcher *m,
			       const struct tally_match_key *value,
			       const struct tally_steer_action *act,
			       struct tally_steer_rule **out)
{
	struct tally_steer_key k;

	if (m == NULL || value == NULL)
		return -EINVAL;
	tally_steer_rule_key(m, value, &k);
	return tally_steer_rule_insert_key_locked(m, &k, act, out);
}

/* Tombstone the entry of m that handle slot `slot` names (both arrays
 * during a migration); its act and fate words in *act_w, *fate_w. */
static inline __attribute__((always_inline)) int
steer_entry_remove(struct tally_steer_matcher *m, uint32_t slot, uint32_t idx,
		      uint32_t *act_w, uint32_t *fate_w)
{
	struct tally_steer_entry *e;
	uint32_t s, old, unused;

	s = slot & ~STEER_SLOT_PAR;
	if ((slot & STEER_SLOT_PAR) == m->par) {
		e = steer_entry(m, s);
		old = s;
	} else {
		/* copied into the migration target: find it in the published
		 * array by its key (unique there), tombstone both */
		e = steer_entry_at(m->mig.ent, m->stride, s);
		old = steer_probe(m, e->key, tally_steer_hash(e->key, m->nwords, m->seed),
				  &unused);
		if (old == UINT32_MAX) {	/* cannot happen: both arrays hold it */
			TALLY_LOG(ERR, "rule %u missing from the published array", idx);
			return -EIO;
		}
		e->ctrl = steer_ctrl_next(e->ctrl, TALLY_STEER_S_TOMB);
		m->mig.used--;
		m->mig.tombs++;
	}
	*act_w = e->act;
	*fate_w = e->fate;
	/* one release store unpublishes the rule; tombstones are reused by
	 * later inserts, and a migration (started by an insert) purges them:
	 * deleting never rebuilds an array */
	steer_entry_unpublish(m, old);
	if (m->migrating)
		steer_mig_step(m, m->mig_step);
	return 0;
}

static inline __attribute__((always_inline)) int
steer_rule_remove(struct tally_steer_rule *r)
{
	struct tally_steer_matcher *m = r->m;
	uint32_t a, fate;
	int rc;

	if (m == NULL)
		return -EINVAL;
	rc = steer_entry_remove(m, r->slot, r->idx, &a, &fate);
	if (rc != 0)
		return rc;
	m->tbl->ctx->nrules--;
	steer_action_release(m->tbl, a, fate);
	r->m = NULL;
	return 0;
}

int
tally_steer_rule_remove_locked(struct tally_steer_rule *r)
{
	return steer_rule_remove(r);
}

int
tally_steer_rule_delete_locked(struct tally_steer_rule *r)
{
	struct tally_steer_ctx *ctx;
	int rc;

	if (r->m == NULL)
		return -EINVAL;
	ctx = r->m->tbl->ctx;
	rc = steer_rule_remove(r);
	if (rc == 0)
		steer_handle_free(ctx, r);
	return rc;
}

static inline __attribute__((always_inline)) void
steer_rule_prefetch(const struct tally_steer_rule *r)
{
	const struct tally_steer_matcher *m = r->m;
	const uint8_t *e;

	if (m == NULL || (r->slot & STEER_SLOT_PAR) != m->par)
		return;
	e = (const uint8_t *)steer_entry_at(__atomic_load_n(&m->ent, __ATOMIC_RELAXED),
					    m->stride, r->slot & ~STEER_SLOT_PAR);
	/* the entry's header (what a delete reads and writes) may end on the
	 * next line. Fetched for a write, to all cache levels: prefetchnta
	 * fills only L1 on Intel Xeons, and a line fetched 32 deletes ahead
	 * was often evicted before its delete read it (a full miss each). */
	tally_prefetch_w(e);
	tally_prefetch_w(e + sizeof(struct tally_steer_entry) - 1);
}

/*
 * Deletes in handle order fetch the entries of handles `ahead` places on
 * STEER_DELETE_PF at a time, when the deleted handle's index is a multiple
 * of it: in an array larger than the TLB reaches, each entry's line costs
 * an address translation, and a prefetch waits for its own before it
 * retires. One per delete, each delete stalled on a walk; the walks of a
 * group overlap. The group is small: a handle asks for 2 lines, and
 * larger groups helped less (on an AMD EPYC of 2026-12-06, 32 at a time
 * deleted 10.9-13.6 M rules/s in flow-perf at 1M rules, 8 at a time
 * 13.5-23.9; doc/benchmarks.md; more prefetches at once than the core
 * keeps misses in flight is the likely cause).
 * Deletes in another order only miss the prefetches.
 */
#define STEER_DELETE_PF	8

int
tally_steer_rule_delete_next_locked(struct tally_steer_rule *r, uint32_t ahead, void **udata)
{
	struct tally_steer_ctx *ctx;
	uint32_t i = r->idx + ahead, k;
	int rc;

	if (r->m == NULL) {
		*udata = NULL;
		return -EINVAL;
	}
	ctx = r->m->tbl->ctx;
	if (ahead != 0 && (r->idx & (STEER_DELETE_PF - 1)) == 0 && i > r->idx)
		for (k = 0; k < STEER_DELETE_PF && i + k < ctx->handles; k++)
			steer_rule_prefetch(steer_handle(ctx, i + k));
	*udata = (r->m->twin != NULL ? r->m->twin : r->m)->udata;
	rc = steer_rule_remove(r);
	if (rc == 0)
		steer_handle_free(ctx, r);
	return rc;
}

int
tally_steer_rule_delete(struct tally_steer_rule *r)
{
	struct tally_steer_matcher *m = r->m;
	struct tally_steer_ctx *ctx;
	int rc;

	if (m == NULL)
		return -EINVAL;
	ctx = m->tbl->ctx;
	tally_lock(ctx->lock);
	rc = tally_steer_rule_delete_locked(r);
	tally_unlock(ctx->lock);
	return rc;
}

void
tally_steer_rule_prefetch(const struct tally_steer_rule *r)
{
	steer_rule_prefetch(r);
}

void
tally_steer_rule_action(const struct tally_steer_rule *r, struct tally_steer_action *act)
{
	const struct tally_steer_matcher *m = r->m;
	uint32_t s = r->slot & ~STEER_SLOT_PAR;
	const struct tally_steer_entry *e = (r->slot & STEER_SLOT_PAR) == m->par ?
		steer_entry(m, s) : steer_entry_at(m->mig.ent, m->stride, s);

	steer_action_decode(e->act, e->mark, e->fate, m->tbl->ctx->cfg.sw, act);
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
		if (e->act & TALLY_STEER_ACT_COUNT)
			steer_cnt_put(ctx, TALLY_FIELD_GET(e->act, TALLY_STEER_ACT_CNT_M));
		m->used--;
	}
}

struct tally_steer_matcher *
tally_steer_rule_matcher(const struct tally_steer_rule *r)
{
	/* a staged rule belongs to the matcher its stage feeds */
	return r->m != NULL && r->m->twin != NULL ? r->m->twin : r->m;
}

uint32_t
tally_steer_rule_slots(const struct tally_steer_ctx *ctx)
{
	return ctx->handles;
}

struct tally_steer_rule *
tally_steer_rule_at(const struct tally_steer_ctx *ctx, uint32_t i)
{
	return i < ctx->handles ? steer_handle(ctx, i) : NULL;
}
