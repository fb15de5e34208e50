/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Staging: single inserts into a large hash array without waiting for its
 * cache miss.
 *
 * A synchronous insert must leave its rule visible to the device when it
 * returns, and a hash array larger than the caches costs it one miss: the
 * slot's line is fetched before the entry can be written, and the store
 * buffer, full behind that store, stalls the insert (or the caller's next
 * one) for most of a DRAM access. Batches overlap their misses; single
 * inserts cannot.
 *
 * So a matcher whose array has at least 2^cfg.stage_min_log2 slots gets a
 * stage: a second, small matcher with the same mask, priority and hash
 * seed, published in the table's matcher list right before it. A single
 * insert of a key that cannot be in the large array (its home slot was
 * never written, see steer_written_size(), or its bit in the array's
 * presence filter is clear) goes into the stage, whose few
 * lines stay in the cache, and the key's lines of the large array are
 * requested with those of the next few staged keys (steer_stage_prefetch())
 * and left to arrive. Each staged insert then moves the oldest staged rule
 * on into the large array, STEER_STAGE_DEPTH inserts after it was staged:
 * the move writes lines already in the cache. At most STEER_STAGE_DEPTH
 * rules stay staged (fewer when staged rules are deleted).
 *
 * The device sees one matcher: a key is in the stage or in the large array,
 * never in neither. A move writes the rule VALID into the large array
 * before it tombstones the staged entry, and for that instant the rule is
 * in both with the same actions and counter; only PASSTHRU rules, whose hit
 * goes on to the next matcher and would then count twice, are never staged.
 * Every insert into the matcher also probes the stage for a duplicate key.
 * A staged rule's handle names the stage (tally_steer_rule_matcher() gives
 * the large matcher); deleting it is an ordinary delete from the stage.
 * A moved rule's slot turns EMPTY where no probe goes on past it
 * (steer_stage_vacate()); when tombstones fill the stage anyway, one
 * rehash of its few live rules purges them, so a stage never migrates
 * between operations. Batch inserts
 * drain the stage first (their duplicate check looks at the large array
 * only). The stage goes with its matcher.
 *
 * All under the context lock.
 */
#include "tally_steer_internal.h"

/* Create m's stage right before m in its table's list. */
static int
steer_stage_create(struct tally_steer_matcher *m)
{
	struct tally_steer_table *tbl = m->tbl;
	struct tally_steer_matcher *st;
	uint32_t pos;
	int rc;

	if (tbl->nm == TALLY_STEER_MAX_MATCHERS)
		return -ENOMEM;
	for (pos = 0; pos < tbl->nm && tbl->m[pos] != m; pos++)
		;
	st = tally_zmalloc_aligned(sizeof(*st), STEER_LINE);
	if (st == NULL)
		return -ENOMEM;
	st->tbl = tbl;
	st->udata = m->udata;
	st->priority = m->priority;
	st->seq = m->seq;
	st->nwords = m->nwords;
	st->seed = m->seed;		/* a key's hash serves both arrays */
	memcpy(st->widx, m->widx, sizeof(st->widx));
	memcpy(st->wmask, m->wmask, sizeof(st->wmask));
	st->stride = m->stride;
	st->twin = m;
	rc = steer_matcher_setup(st, STEER_STAGE_LOG2);
	if (rc != 0) {
		tally_free(st);
		return rc == -ENOSPC ? -ENOMEM : rc;
	}
	st->min_log2 = STEER_STAGE_LOG2;	/* never shrinks */
	rc = steer_table_add_at(tbl, st, pos);
	if (rc != 0) {
		steer_matcher_free(st);
		return rc;
	}
	m->stage = st;
	return 0;
}

/*
 * Take slot s of stage st out of use, its rule moved on. A stage holds a
 * few dozen rules in 2^STEER_STAGE_LOG2 slots, so the next slot is nearly
 * always EMPTY: then no probe goes on past s, and s turns EMPTY instead of
 * a tombstone, and so do the tombstones right before it. As tombstones,
 * moved rules filled the stage every few hundred inserts, and each time
 * a rehash built a new array and retired the old one after a fence.
 */
static void
steer_stage_vacate(struct tally_steer_matcher *st, uint32_t s)
{
	uint32_t mask = (1u << st->log2) - 1;
	struct tally_steer_entry *e;

	if (steer_state(steer_entry(st, (s + 1) & mask)->ctrl) != TALLY_STEER_S_EMPTY) {
		steer_entry_unpublish(st, s);
		return;
	}
	st->used--;
	for (;;) {
		e = steer_entry(st, s);
		/* pairs with the device's acquire load of ctrl */
		__atomic_store_n(&e->ctrl, steer_ctrl_next(e->ctrl, TALLY_STEER_S_EMPTY),
				 __ATOMIC_RELEASE);
		s = (s - 1) & mask;
		if (steer_state(steer_entry(st, s)->ctrl) != TALLY_STEER_S_TOMB)
			break;	/* at the latest the slot emptied first */
		st->tombs--;
	}
}

/* Move the oldest queued rule, if still staged, into m. */
static void
steer_stage_move_oldest(struct tally_steer_matcher *m)
{
	struct tally_steer_matcher *st = m->stage;
	struct tally_steer_ctx *ctx = m->tbl->ctx;
	const struct tally_steer_entry *e;
	struct tally_steer_rule *r;
	struct tally_steer_key k;
	uint32_t idx, slot, ins;
	bool fresh;

	idx = m->sq[m->sq_head];
	m->sq_head = (m->sq_head + 1) & (STEER_STAGE_QUEUE - 1);
	m->sq_len--;
	r = steer_handle(ctx, idx);
	if (r->m != st)
		return;		/* deleted meanwhile (its handle may be reused) */
	/* a stage never migrates between operations (steer_stage_insert()) */
	slot = r->slot;
	e = steer_entry(st, slot & ~STEER_SLOT_PAR);
	memcpy(k.w, e->key, (size_t)m->nwords * 4);
	k.hash = tally_steer_hash(k.w, m->nwords, m->seed);
	ins = k.hash & ((1u << m->log2) - 1);
	fresh = steer_home_fresh(m, ins) && steer_room(m, 1);
	if (!fresh && steer_probe(m, k.w, k.hash, &ins) != UINT32_MAX) {
		TALLY_LOG(ERR, "staged rule %u also in its matcher", idx);
		return;
	}
	/* VALID in m first, then the staged entry goes: never in neither */
	r->m = NULL;
	if (steer_insert_words(m, &k, fresh, ins, e->act, e->mark, e->fate, r) != 0) {
		r->m = st;	/* no room now: stays staged, visible */
		r->slot = slot;
		return;
	}
	steer_stage_vacate(st, slot & ~STEER_SLOT_PAR);
}

/*
 * Every STEER_STAGE_PF staged rules, ask for the lines of m's array that
 * their moves will write (steer_prefetch_key() left them), and the words
 * of the written bitmap the moves test first (read when each rule was
 * staged, but gone from the cache since), all at once.
 * In an array larger than the TLB reaches, each line costs an address
 * translation, and a prefetch waits for its own before it retires: one at
 * a time, a translation stalled each insert; a few together overlap. Too
 * many together (16 rules, some 48 lines) wait instead for the core's
 * room for outstanding misses, and the insert that asks stalls on them
 * (doc/benchmarks.md, Intel family 6 model 167). The
 * oldest of them moves first, STEER_STAGE_DEPTH - STEER_STAGE_PF + 1
 * inserts later, when its lines have arrived. A rule deleted or an array
 * replaced meanwhile makes a prefetch useless, never wrong.
 */
static inline void
steer_stage_prefetch(struct tally_steer_matcher *m)
{
	uint32_t i, tail;

	if (++m->sq_nopf < STEER_STAGE_PF)
		return;
	tail = m->sq_head + m->sq_len;
	for (i = 1; i <= m->sq_nopf && i <= m->sq_len; i++)
		steer_prefetch(m, m->sqh[(tail - i) & (STEER_STAGE_QUEUE - 1)],
			       STEER_PF_SLOT | STEER_PF_NEXT | STEER_PF_WRITTEN);
	m->sq_nopf = 0;
}

void
steer_stage_drain(struct tally_steer_matcher *m, uint32_t keep)
{
	while (m->stage != NULL && m->sq_len > 0 && m->stage->used > keep)
		steer_stage_move_oldest(m);
}

int
tally_steer_matcher_drain_locked(struct tally_steer_matcher *m)
{
	if (m == NULL)
		return -EINVAL;
	steer_stage_drain(m, 0);
	return m->stage != NULL && m->stage->used > 0 ? -ENOSPC : 0;
}

int
steer_stage_insert(struct tally_steer_matcher *m, const struct tally_steer_key *k,
		   const struct tally_steer_action *act, struct tally_steer_rule *r,
		   uint32_t sins)
{
	struct tally_steer_ctx *ctx = m->tbl->ctx;
	struct tally_steer_matcher *st;
	uint32_t act_w, fate_w;
	int rc;

	if (m->stage == NULL) {
		if (steer_stage_create(m) != 0)
			return -ENOMEM;
		sins = k->hash & ((1u << m->stage->log2) - 1);
	}
	st = m->stage;
	if (ctx->nrules >= ctx->cfg.max_rules)
		return -ENOSPC;
	while (m->sq_len == STEER_STAGE_QUEUE)
		steer_stage_move_oldest(m);
	if (!steer_room(st, 1)) {
		/* purge the stage's tombstones at once: its few live rules
		 * are copied, and it never migrates between operations */
		if (steer_htab_rehash(st, st->log2) != 0)
			return -ENOMEM;
		(void)steer_probe(st, k->w, k->hash, &sins);
	}
	rc = steer_action_acquire(m->tbl, act, &act_w, &fate_w);
	if (rc != 0)
		return rc;
	steer_place(st, sins, false, k, act_w, act->mark, fate_w, r);
	ctx->nrules++;
	m->sq[(m->sq_head + m->sq_len) & (STEER_STAGE_QUEUE - 1)] = r->idx;
	m->sqh[(m->sq_head + m->sq_len) & (STEER_STAGE_QUEUE - 1)] = k->hash;
	m->sq_len++;
	steer_stage_prefetch(m);
	steer_stage_drain(m, STEER_STAGE_DEPTH);
	return 0;
}
