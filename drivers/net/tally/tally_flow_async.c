/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Template tables and flow queues (rte_flow_configure and friends).
 *
 * Objects
 *  - pattern template: the item types and masks every rule of a table will
 *    match, compiled once into a match-key mask (validated then).
 *  - actions template: action types, with the confs that the mask marks as
 *    constant; the others come with each rule.
 *  - template table: a flow group and priority, its pattern and actions
 *    templates, and one steering matcher per pattern template, compiled and
 *    with its hash array sized for the table's rule count at creation, so a
 *    rule insert only fills and hashes the key words and never grows the
 *    array. Also compiled at creation: a key builder per pattern template
 *    and the actions of each actions template (tally_flow_prog.c), and the
 *    table's flow objects are allocated (and their memory touched) then.
 *  - flow queue: where operations are enqueued and their results pulled.
 *    Operations run in batches, in order: at push, at pull, when
 *    TALLY_FQ_BATCH are enqueued, at once for one without op_attr.postpone,
 *    and before any operation that cannot be batched. A create of a table
 *    with builders is prepared at enqueue without any lock: its key words
 *    are filled from the items' specs and hashed, the hash slot prefetched,
 *    a flow object taken from the queue's cache and a counter from the
 *    queue's share of rte_flow_configure's nb_counters (allocated then).
 *    Other creates are checked through the parser at enqueue, and batched
 *    when their actions are simple (no RSS set, jump, indirect counter or
 *    age) or run at once. Destroys are checked at enqueue. A batch runs
 *    under one hold of the engine lock; the device sees a created rule as
 *    soon as its entry is published, and one device fence after the batch
 *    covers its destroys: pull releases their results once the fence
 *    completed, so a pulled result means the device no longer sees the
 *    rule. The handle of a create is returned at enqueue and is live once
 *    its batch ran.
 *
 * Rules created through a queue are ordinary rte_flow objects: query, dump,
 * flush and the synchronous destroy work on them too.
 *
 * Errors: a call whose arguments are wrong (queue, table, template index,
 * item or action types, a missing spec, a destroy of a handle that is not
 * live, a full result ring) fails at once and enqueues nothing. An operation
 * rejected later (a duplicate rule, exhausted counters, a value out of
 * range, a full table, a destroy whose rule went away before its batch ran)
 * gets an RTE_FLOW_OP_ERROR result in its place and leaves no state; the
 * handle returned for a rejected create is never live (destroy or query of
 * it is EINVAL).
 *
 * Locking: each queue is used by one thread, as the API requires: its
 * batch, caches and result ring are that thread's, and enqueue and pull
 * take no lock. Running a batch takes the engine lock (tally_flow_priv.h)
 * once; a queue waiting for another queue's batch spins briefly, then
 * yields the CPU between attempts (tally_lock.h). Queues and tables must not be reconfigured or destroyed while
 * other threads operate on them.
 *
 * Size: a flow queue's enqueue, batch, flush and pull share the static
 * inline fast paths of the async insertion rate; split across files, each
 * would become a call.
 */
#include <stdlib.h>
#include <string.h>

#include <rte_flow_driver.h>
#include <rte_malloc.h>
#include <rte_prefetch.h>

#include "tally_compat.h"
#include "tally_flow_tmpl.h"
#include "tally_logs.h"
#include "tally_steer_batch.h"

static int
not_configured(struct rte_flow_error *err)
{
	return rte_flow_error_set(err, EINVAL, RTE_FLOW_ERROR_TYPE_STATE, NULL,
				   "flow queues not configured: call rte_flow_configure first");
}

static void queue_flush_locked(struct tally_flow_ctx *fc, struct tally_flow_queue *q);

/* ---- info and configure ------------------------------------------------------ */

int
tally_flow_info_get(struct rte_eth_dev *dev, struct rte_flow_port_info *pi,
		    struct rte_flow_queue_info *qi, struct rte_flow_error *err)
{
	struct tally_adapter *ad = tally_adapter(dev);

	if (pi == NULL || qi == NULL)
		return rte_flow_error_set(err, EINVAL, RTE_FLOW_ERROR_TYPE_UNSPECIFIED,
					   NULL, "NULL output");
	memset(pi, 0, sizeof(*pi));
	memset(qi, 0, sizeof(*qi));
	pi->max_nb_queues = TALLY_FLOW_MAX_QUEUES;
	pi->max_nb_counters = ad->hal.cnt_num;
	pi->max_nb_aging_objects = ad->hal.cnt_num;
	pi->supported_flags = RTE_FLOW_PORT_FLAG_STRICT_QUEUE;
	qi->max_size = TALLY_FLOW_MAX_QUEUE_SIZE;
	return 0;
}

/* Free the queues: their cached flow objects go to t->spare (or their
 * handles back, without room there), their counters back to the pool
 * (lock held). */
static void
queues_free(struct tally_flow_ctx *fc, struct tally_flow_tmpl *t)
{
	uint32_t i;

	for (i = 0; t->q != NULL && i < t->nb_queues; i++) {
		struct tally_flow_queue *q = &t->q[i];

		while (q->ncache > 0) {
			struct rte_flow *f = q->cache[--q->ncache];

			if (tally_tmpl_spare_room(t, t->nspare + 1) == 0)
				t->spare[t->nspare++] = f;
			else	/* no room to keep it: the handle goes back */
				tally_steer_rule_unreserve_locked(fc->steer, tally_flow_rule(f));
		}
		while (q->ncnt > 0)
			tally_cnt_free_locked(fc->cnt, q->cnt[--q->ncnt]);
		rte_free(q->cnt);
		rte_free(q->res);
		rte_free(q->pend);
		rte_free(q->bop);
	}
	rte_free(t->q);
	t->q = NULL;
	t->nb_queues = 0;
}

/* The port's nb_counters, split between the queues, allocated now: a
 * create through a queue takes one without the pool's lock. Fewer when the
 * pool has fewer free (then creates allocate theirs). */
static int
queues_counters(struct tally_flow_ctx *fc, struct tally_flow_tmpl *t, uint32_t nb)
{
	uint32_t i, share;

	for (i = 0; i < t->nb_queues; i++) {
		struct tally_flow_queue *q = &t->q[i];

		share = nb / t->nb_queues + (i == 0 ? nb % t->nb_queues : 0);
		if (share == 0)
			continue;
		q->cnt = rte_malloc("tally_fq_cnt", share * sizeof(*q->cnt), 0);
		if (q->cnt == NULL)
			return -ENOMEM;
		while (q->ncnt < share && tally_cnt_alloc_locked(fc->cnt, &q->cnt[q->ncnt]) == 0)
			q->ncnt++;
	}
	return 0;
}

/* Fill the queue's flow object cache (lock held). */
static void
queue_refill(struct tally_flow_ctx *fc, struct tally_flow_queue *q)
{
	struct tally_flow_tmpl *t = fc->tmpl;
	struct rte_flow *f;

	while (q->ncache < TALLY_FQ_BATCH) {
		if (t->nspare > 0) {
			f = t->spare[--t->nspare];
		} else {
			f = tally_flow_obj_get(fc);
			if (f == NULL)
				return;
		}
		q->cache[q->ncache++] = f;
	}
}

int
tally_flow_configure(struct rte_eth_dev *dev, const struct rte_flow_port_attr *pa,
		     uint16_t nb_queue, const struct rte_flow_queue_attr *qa[],
		     struct rte_flow_error *err)
{
	struct tally_adapter *ad = tally_adapter(dev);
	struct tally_flow_ctx *fc = tally_tmpl_fc(dev, err);
	struct tally_flow_queue *q;
	struct tally_flow_tmpl *t;
	uint32_t i;
	int ret = 0;

	if (fc == NULL)
		return -EIO;
	if (pa == NULL || qa == NULL)
		return rte_flow_error_set(err, EINVAL, RTE_FLOW_ERROR_TYPE_UNSPECIFIED,
					   NULL, "NULL port or queue attributes");
	if (pa->flags & ~RTE_FLOW_PORT_FLAG_STRICT_QUEUE)
		return rte_flow_error_set(err, ENOTSUP, RTE_FLOW_ERROR_TYPE_UNSPECIFIED,
					   NULL, "unknown port flags");
	if (pa->nb_meters != 0 || pa->nb_conn_tracks != 0)
		return rte_flow_error_set(err, ENOTSUP, RTE_FLOW_ERROR_TYPE_UNSPECIFIED,
					   NULL, "the device has no meters or connection tracking");
	ret = tally_compat_port_attr_check(pa, err);
	if (ret != 0)
		return ret;
	if (pa->nb_counters > ad->hal.cnt_num || pa->nb_aging_objects > ad->hal.cnt_num)
		return rte_flow_error_set(err, ENOSPC, RTE_FLOW_ERROR_TYPE_UNSPECIFIED,
					   NULL, "more counters or aging objects than the counter bank holds");
	if (nb_queue == 0 || nb_queue > TALLY_FLOW_MAX_QUEUES)
		return rte_flow_error_set(err, EINVAL, RTE_FLOW_ERROR_TYPE_UNSPECIFIED,
					   NULL, "1 to 64 flow queues");
	for (i = 0; i < nb_queue; i++)
		if (qa[i] == NULL || qa[i]->size == 0 ||
		    qa[i]->size > TALLY_FLOW_MAX_QUEUE_SIZE)
			return rte_flow_error_set(err, EINVAL,
				RTE_FLOW_ERROR_TYPE_UNSPECIFIED, NULL,
				"queue size must be 1 to 65536");
	tally_lock(&fc->lock);
	t = tally_tmpl_get(fc);
	if (t == NULL) {
		ret = rte_flow_error_set(err, ENOMEM, RTE_FLOW_ERROR_TYPE_UNSPECIFIED,
					  NULL, "no memory for the flow queues");
		goto out;
	}
	if (!TAILQ_EMPTY(&t->tables) || !TAILQ_EMPTY(&t->pts) || !TAILQ_EMPTY(&t->ats)) {
		ret = rte_flow_error_set(err, EBUSY, RTE_FLOW_ERROR_TYPE_STATE, NULL,
					  "templates or tables exist: destroy them before reconfiguring");
		goto out;
	}
	for (i = 0; t->q != NULL && i < t->nb_queues; i++)
		queue_flush_locked(fc, &t->q[i]);
	queues_free(fc, t);
	t->q = rte_zmalloc("tally_fq", nb_queue * sizeof(*t->q), 0);
	for (i = 0; t->q != NULL && i < nb_queue; i++) {
		q = &t->q[i];
		q->size = qa[i]->size;
		q->pf_next = nb_queue > 1;
		q->res = rte_zmalloc("tally_fq_res", q->size * sizeof(*q->res), 0);
		q->pend = rte_zmalloc("tally_fq_pend", TALLY_FQ_BATCH * sizeof(*q->pend),
				      RTE_CACHE_LINE_SIZE);
		q->bop = rte_zmalloc("tally_fq_bop", TALLY_FQ_BATCH * sizeof(*q->bop),
				     RTE_CACHE_LINE_SIZE);
		t->nb_queues = i + 1;
		if (q->res == NULL || q->pend == NULL || q->bop == NULL)
			break;
	}
	if (t->q == NULL || t->nb_queues < nb_queue || t->q[nb_queue - 1].res == NULL ||
	    t->q[nb_queue - 1].pend == NULL || t->q[nb_queue - 1].bop == NULL ||
	    queues_counters(fc, t, pa->nb_counters) != 0) {
		queues_free(fc, t);
		ret = rte_flow_error_set(err, ENOMEM, RTE_FLOW_ERROR_TYPE_UNSPECIFIED,
					  NULL, "no memory for the flow queues");
		goto out;
	}
	/* the first creates take the fast path too */
	for (i = 0; i < nb_queue; i++)
		queue_refill(fc, &t->q[i]);
	t->flags = pa->flags;
	fc->strict_queue = (pa->flags & RTE_FLOW_PORT_FLAG_STRICT_QUEUE) != 0;
	t->nb_counters = pa->nb_counters;
	t->nb_aging = pa->nb_aging_objects;
out:
	tally_unlock(&fc->lock);
	return ret;
}

/* ---- flow queues ------------------------------------------------------------------ */

/* The queue, without the lock: the queues change only in rte_flow_configure,
 * which must not run concurrently with operations on them. */
static struct tally_flow_queue *
queue_of(struct tally_flow_ctx *fc, uint32_t queue, struct rte_flow_error *err)
{
	struct tally_flow_tmpl *t = fc->tmpl;

	if (t == NULL || t->q == NULL) {
		not_configured(err);
		return NULL;
	}
	if (queue >= t->nb_queues) {
		rte_flow_error_set(err, EINVAL, RTE_FLOW_ERROR_TYPE_UNSPECIFIED, NULL,
				   "no such flow queue");
		return NULL;
	}
	return &t->q[queue];
}

static bool
queue_full(const struct tally_flow_queue *q)
{
	return q->tail - q->head + q->npend >= q->size;
}

/* -EAGAIN with err set when q has no room for one more result. */
static int
queue_room(const struct tally_flow_queue *q, struct rte_flow_error *err)
{
	if (!queue_full(q))
		return 0;
	return rte_flow_error_set(err, EAGAIN, RTE_FLOW_ERROR_TYPE_STATE, NULL,
				  "flow queue full: pull results first");
}

static void
queue_post(struct tally_flow_queue *q, enum rte_flow_op_status st, void *user_data)
{
	struct rte_flow_op_result *r = &q->res[q->wr];

	r->status = st;
	r->user_data = user_data;
	q->tail++;
	q->wr = q->wr + 1 == q->size ? 0 : q->wr + 1;
}

/* One enqueued create through the parser (lock held). */
static void
run_create(struct tally_flow_ctx *fc, struct tally_flow_queue *q,
	   struct tally_flow_pending *p, const struct tally_steer_key *key)
{
	struct rte_flow_template_table *tb = p->tb;
	int ret = -ENOSPC;

	if (*tb->nb_rules < tb->nb_flows) {
		/* a counter of the queue's share first (configure took them
		 * from the pool) */
		ret = tally_flow_commit_locked(fc, p->flow, tb->fm[p->pt_idx], key, &p->act,
					       p->count, p->count && q->ncnt > 0 ?
					       q->cnt[--q->ncnt] : TALLY_CNT_MAX);
	} else {
		/* the table is full: the object back */
		q->cache[q->ncache++] = p->flow;
	}
	if (ret != 0) {
		/* rejected: an error result, no state */
		queue_post(q, RTE_FLOW_OP_ERROR, p->user_data);
		return;
	}
	p->flow->tbl_id = (uint16_t)(tb->id + 1);
	(*tb->nb_rules)++;
	queue_post(q, RTE_FLOW_OP_SUCCESS, p->user_data);
}

/* Does p continue the run of encoded creates that p0 starts? */
static inline bool
enc_same(const struct tally_flow_pending *p, const struct tally_flow_pending *p0)
{
	return p->op == TALLY_FQ_CREATE_ENC && p->tb == p0->tb &&
	       p->pt_idx == p0->pt_idx && p->at_idx == p0->at_idx;
}

/*
 * Encoded creates from op i on (lock held): those in a row of one table and
 * templates, as many as the table has room for, each with its counter, go
 * into the matcher in one batch insert. Results in order; a rejected one
 * leaves no state (its counter and flow object go back). Returns the op
 * after them.
 */
static uint32_t
run_enc(struct tally_flow_ctx *fc, struct tally_flow_queue *q, uint32_t i)
{
	struct tally_flow_pending *p0 = &q->pend[i], *p;
	struct rte_flow_template_table *tb = p0->tb;
	const struct tally_act_prog *ap = &tb->at[p0->at_idx]->prog;
	struct tally_flow_matcher *fm = tb->fm[p0->pt_idx];
	uint32_t room = *tb->nb_rules < tb->nb_flows ? tb->nb_flows - *tb->nb_rules : 0;
	uint32_t j, n, done, end = room < q->npend - i ? i + room : q->npend;
	uint16_t tbl_id = (uint16_t)(tb->id + 1);

	for (j = i; j < end && enc_same(&q->pend[j], p0); j++)
		if (ap->count && !q->pend[j].stock &&
		    tally_flow_counter_alloc_locked(fc, &q->bop[j].counter) != 0)
			break;
	n = j - i;
	if (n == 0) {
		/* the table is full, or no counter: an error result, no state */
		q->cache[q->ncache++] = p0->flow;
		queue_post(q, RTE_FLOW_OP_ERROR, p0->user_data);
		return i + 1;
	}
	done = tally_steer_rule_insert_batch_locked(fm->m, &ap->enc,
						    &q->bop[i], n);
	for (j = i; j < i + n; j++) {
		const struct tally_steer_bop *b = &q->bop[j];
		struct rte_flow *f;

		p = &q->pend[j];
		f = p->flow;
		if (b->rc == 0) {
			if (ap->count) {
				f->counter = b->counter;
				f->flags |= FLOW_F_COUNTED;
			}
			f->tbl_id = tbl_id;
			f->magic = TALLY_FLOW_MAGIC;
			queue_post(q, RTE_FLOW_OP_SUCCESS, p->user_data);
			continue;
		}
		/* rejected: an error result, no state */
		if (ap->count) {
			if (p->stock)
				q->cnt[q->ncnt++] = b->counter;
			else
				tally_cnt_free_locked(fc->cnt, b->counter);
		}
		q->cache[q->ncache++] = f;
		queue_post(q, RTE_FLOW_OP_ERROR, p->user_data);
	}
	fm->refs += done;
	fc->nb_flows += done;
	*tb->nb_rules += done;
	return i + n;
}

/*
 * Start fetching the hash slots the operations pend[from, to) will touch:
 * a create's home slot (with the lines its insert writes), a destroy's
 * entry. In an array larger than the TLB reaches, each slot's line costs
 * an address translation, and a prefetch waits for its own before it
 * retires: asked for at each enqueue, a translation stalled every one;
 * QUEUE_PF operations at a time, theirs overlap. The group is small: a
 * create asks for up to 3 lines (the slot's one or two and its filter
 * byte's; 4 before batches left the written bitmap alone), and larger
 * groups helped less (on an AMD EPYC
 * of 2026-12-06, 16 creates at a time inserted 5.4-9.3 M rules/s in
 * async_bench, 4 at a time 6.8-11.1; doc/benchmarks.md; more prefetches
 * at once than the core keeps misses in flight is the likely cause). The
 * batch's last few are asked for when it runs. With more than one queue a
 * create asks for the next hash slot's line too (q->pf_next): an insert
 * that has to wait for it under the engine lock holds up the other queues
 * (async_bench at 1M rules, 9 rounds: one queue 18.77 M rules/s without
 * it, 16.55 with it; two queues 24.38 without, 27.01 with).
 */
#define QUEUE_PF	4
_Static_assert(TALLY_FQ_BATCH % QUEUE_PF == 0, "a full batch is asked for at enqueue");

static __rte_always_inline void
queue_prefetch(const struct tally_flow_queue *q, uint32_t from, uint32_t to)
{
	uint32_t i;

	for (i = from; i < to; i++) {
		const struct tally_flow_pending *p = &q->pend[i];

		if (p->op == TALLY_FQ_CREATE_ENC)
			tally_steer_key_prefetch(p->tb->kp[p->pt_idx]->m, q->bop[i].key.hash,
						 q->pf_next);
		else if (p->op == TALLY_FQ_DESTROY)
			/* a handle stays mapped; one out of its matcher
			 * fetches nothing */
			tally_steer_rule_prefetch(tally_flow_rule(p->flow));
	}
}

/* pend[npend] is filled in: count it, asking for its group's lines when it
 * completes one. True when the batch is full. */
static __rte_always_inline bool
queue_enqueued(struct tally_flow_queue *q)
{
	if ((q->npend & (QUEUE_PF - 1)) == QUEUE_PF - 1)
		queue_prefetch(q, q->npend + 1 - QUEUE_PF, q->npend + 1);
	return ++q->npend == TALLY_FQ_BATCH;
}

/*
 * Run the queue's enqueued operations in order, with the lock held once for
 * the whole batch; one device fence covers all its destroys (a destroy's
 * result is released by pull once the fence completed).
 */
static void
queue_flush_locked(struct tally_flow_ctx *fc, struct tally_flow_queue *q)
{
	bool fence = false;
	uint32_t i;

	queue_prefetch(q, q->npend & ~(uint32_t)(QUEUE_PF - 1), q->npend);
	for (i = 0; i < q->npend; i++) {
		struct tally_flow_pending *p = &q->pend[i];

		switch (p->op) {
		case TALLY_FQ_CREATE_ENC:
			i = run_enc(fc, q, i) - 1;
			break;
		case TALLY_FQ_CREATE:
			run_create(fc, q, p, &q->bop[i].key);
			break;
		case TALLY_FQ_DESTROY:
			/* destroyed meanwhile (twice in one batch, or by the
			 * synchronous API): an error result */
			if (!tally_flow_live(fc->dev, p->flow)) {
				queue_post(q, RTE_FLOW_OP_ERROR, p->user_data);
				break;
			}
			tally_flow_destroy_queued_locked(fc, p->flow);
			fence = true;
			queue_post(q, RTE_FLOW_OP_SUCCESS, p->user_data);
			break;
		default:
			queue_post(q, RTE_FLOW_OP_ERROR, p->user_data);
			break;
		}
	}
	q->npend = 0;
	/* a hash array a migration replaced waits for a fence */
	tally_steer_ctx_reclaim_locked(fc->steer);
	if (fence) {
		q->fence_ticket = tally_fence_ticket(&fc->fence);
		tally_fence_request(&fc->fence);
		q->fence_pending = true;
	}
	queue_refill(fc, q);
}

/*
 * With the lock just taken: start fetching the lines the batch writes that
 * every queue's batch writes (the counts of the table, the port and the
 * matcher, the spare flow objects, the steering context), and the spare
 * objects the refill takes. Another CPU's
 * batch wrote them last; asked for together, their transfers overlap
 * instead of each stalling the batch in turn.
 */
static __rte_always_inline void
queue_lines_prefetch(struct tally_flow_ctx *fc, struct tally_flow_queue *q)
{
	const struct tally_flow_pending *p = &q->pend[0];
	struct tally_flow_tmpl *t = fc->tmpl;

	tally_prefetch_w(&fc->nb_flows);
	tally_prefetch_w(&t->nspare);
	if (q->npend > 0 && p->op == TALLY_FQ_CREATE_ENC) {
		struct tally_flow_matcher *fm = p->tb->fm[p->pt_idx];

		tally_prefetch_w(p->tb->nb_rules);
		tally_prefetch_w(&fm->refs);
		tally_steer_batch_prefetch_locked(fm->m);
	}
	/* the top of the spare objects' stack, which queue_refill() takes
	 * at the end of the batch: lines no CPU has read since the table was
	 * made (the load of nspare waits for its line, with the others
	 * already on their way) */
	if (t->nspare > 0) {
		const uint32_t top = t->nspare - 1, per = RTE_CACHE_LINE_SIZE / sizeof(t->spare[0]);
		uint32_t k, n = RTE_MIN(t->nspare, (uint32_t)TALLY_FQ_BATCH - q->ncache + per);

		for (k = 0; k < n; k += per)
			rte_prefetch0(&t->spare[top - k]);
	}
}

static void
queue_flush(struct tally_flow_ctx *fc, struct tally_flow_queue *q)
{
	/* another queue's batch holds the lock for some microseconds: the
	 * engine lock spins on a plain load, then yields (tally_lock.h) */
	tally_lock(&fc->lock);
	queue_lines_prefetch(fc, q);
	queue_flush_locked(fc, q);
	tally_unlock(&fc->lock);
}

/* The rule's items: types from the template, values from the rule, masks
 * from the template. out NULL: only check. */
static int
rule_pattern(const struct rte_flow_pattern_template *pt,
	     const struct rte_flow_item pattern[], struct rte_flow_item *out,
	     struct rte_flow_error *err)
{
	uint32_t i;

	for (i = 0; i < pt->nb_items; i++) {
		const struct rte_flow_item *ti = &pt->items[i];

		if (pattern[i].type != ti->type)
			return rte_flow_error_set(err, EINVAL, RTE_FLOW_ERROR_TYPE_ITEM,
				&pattern[i], pattern[i].type == RTE_FLOW_ITEM_TYPE_END ?
				"rule pattern shorter than its template" :
				"rule item type differs from its template");
		if (ti->mask != NULL && pattern[i].spec == NULL)
			return rte_flow_error_set(err, EINVAL, RTE_FLOW_ERROR_TYPE_ITEM_SPEC,
				&pattern[i], "the template matches fields of this item: the rule needs its spec");
		if (out == NULL)
			continue;
		out[i].type = ti->type;
		out[i].last = NULL;
		out[i].mask = ti->mask;
		out[i].spec = ti->mask != NULL ? pattern[i].spec : NULL;
	}
	if (pattern[i].type != RTE_FLOW_ITEM_TYPE_END)
		return rte_flow_error_set(err, EINVAL, RTE_FLOW_ERROR_TYPE_ITEM,
					   &pattern[i], "rule pattern longer than its template");
	if (out != NULL)
		out[i].type = RTE_FLOW_ITEM_TYPE_END;
	return 0;
}

/* The rule's actions: the template's constant confs, the rule's others.
 * out NULL: only check. */
static int
rule_actions(const struct rte_flow_actions_template *at,
	     const struct rte_flow_action actions[], struct rte_flow_action *out,
	     struct rte_flow_error *err)
{
	uint32_t i;

	for (i = 0; i < at->nb_actions; i++) {
		if (actions[i].type != at->actions[i].type)
			return rte_flow_error_set(err, EINVAL, RTE_FLOW_ERROR_TYPE_ACTION,
				&actions[i], actions[i].type == RTE_FLOW_ACTION_TYPE_END ?
				"rule actions shorter than their template" :
				"rule action type differs from its template");
		if (out == NULL)
			continue;
		out[i].type = at->actions[i].type;
		out[i].conf = at->constant[i] ? at->actions[i].conf : actions[i].conf;
	}
	if (actions[i].type != RTE_FLOW_ACTION_TYPE_END)
		return rte_flow_error_set(err, EINVAL, RTE_FLOW_ERROR_TYPE_ACTION,
					   &actions[i], "rule actions longer than their template");
	if (out != NULL) {
		out[i].type = RTE_FLOW_ACTION_TYPE_END;
		out[i].conf = NULL;
	}
	return 0;
}

/* The rule's queue index and mark from a compiled actions template; -EINVAL
 * for a value the parser would refuse (the same checks). */
static inline int
act_prog_values(const struct tally_act_prog *ap, const struct rte_flow_action actions[],
		uint16_t nb_rxq, struct tally_steer_bop *b)
{
	b->queue = ap->base.arg;
	b->mark = ap->base.mark;
	if (ap->queue_slot >= 0) {
		const struct rte_flow_action_queue *c = actions[ap->queue_slot].conf;

		if (c == NULL)
			return -EINVAL;
		b->queue = c->index;
	}
	if (ap->mark_slot >= 0) {
		const struct rte_flow_action_mark *c = actions[ap->mark_slot].conf;

		if (c == NULL)
			return -EINVAL;
		b->mark = c->id;
	}
	if (ap->enc.queue && b->queue >= nb_rxq)
		return -EINVAL;
	return 0;
}

static __rte_always_inline void
key_prog_run(const struct tally_key_prog *kp, const struct rte_flow_item pattern[],
	     struct tally_steer_key *k)
{
	uint32_t i;

	/* short keys in one copy (the words past nwords are not read) */
	if (likely(kp->nwords <= 8))
		memcpy(k->w, kp->base, 8 * sizeof(k->w[0]));
	else
		memcpy(k->w, kp->base, kp->nwords * sizeof(k->w[0]));
	for (i = 0; i < kp->nops; i++)
		k->w[kp->op[i].word] |= tally_key_op_get(&kp->op[i],
							 pattern[kp->op[i].item].spec);
	/* hashed inline (the CRC32 instruction without a run-time check where
	 * the build targets it); the slot is fetched by queue_prefetch() */
	k->hash = tally_steer_hash(k->w, kp->nwords, kp->seed);
}

/*
 * A create of a table whose templates are compiled (kp, ap), with no lock:
 * key and rule values from the builders, a flow object from the queue's
 * cache (which has one), a counter from its stock; the insert runs with the
 * queue's batch. Returns the handle (&q->failed for an error result).
 */
static __rte_always_inline struct rte_flow *
create_enc(struct rte_eth_dev *dev, struct tally_flow_ctx *fc,
	   struct tally_flow_queue *q, struct rte_flow_template_table *tb,
	   const struct tally_key_prog *kp, const struct tally_act_prog *ap,
	   uint8_t pt_idx, uint8_t at_idx, const struct rte_flow_item pattern[],
	   const struct rte_flow_action actions[], void *user_data)
{
	struct tally_flow_pending *p = &q->pend[q->npend];
	struct tally_steer_bop *b = &q->bop[q->npend];
	struct rte_flow *flow;

	p->user_data = user_data;
	p->tb = tb;
	if (act_prog_values(ap, actions, dev->data->nb_rx_queues, b) != 0) {
		p->op = TALLY_FQ_FAIL;
		flow = &q->failed;
	} else {
		flow = q->cache[--q->ncache];
		p->op = TALLY_FQ_CREATE_ENC;
		p->pt_idx = pt_idx;
		p->at_idx = at_idx;
		p->stock = false;
		if (ap->count && q->ncnt > 0) {
			p->stock = true;
			b->counter = q->cnt[--q->ncnt];
		}
		b->r = tally_flow_rule(flow);
		/* the insert writes it: fetch it while the batch fills */
		rte_prefetch0(b->r);
		key_prog_run(kp, pattern, &b->key);
	}
	p->flow = flow;
	if (queue_enqueued(q))
		queue_flush(fc, q);
	return flow;
}

/* create_enc() when the table's templates are compiled and the queue has a
 * flow object, else NULL: the rule needs the parser path. */
static struct rte_flow *
create_fast(struct rte_eth_dev *dev, struct tally_flow_ctx *fc,
	    struct tally_flow_queue *q, struct rte_flow_template_table *tb,
	    uint8_t pt_idx, uint8_t at_idx, const struct rte_flow_item pattern[],
	    const struct rte_flow_action actions[], void *user_data)
{
	const struct tally_act_prog *ap = &tb->at[at_idx]->prog;

	if (tb->kp[pt_idx] == NULL || !ap->ok || q->ncache == 0)
		return NULL;
	return create_enc(dev, fc, q, tb, tb->kp[pt_idx], ap, pt_idx, at_idx, pattern,
			  actions, user_data);
}

/* A create through the parser (lock held, the queue flushed): postponed
 * with simple actions, or at once. */
static struct rte_flow *
create_parsed(struct rte_eth_dev *dev, struct tally_flow_ctx *fc,
	      struct tally_flow_queue *q, struct rte_flow_template_table *tb,
	      uint8_t pt_idx, const struct rte_flow_item items[],
	      const struct rte_flow_action acts[], bool postpone, void *user_data)
{
	struct tally_flow_pending *p = &q->pend[0];
	struct tally_flow_match m;
	struct tally_flow_acts a;
	struct rte_flow_error e2;
	struct rte_flow *flow;

	if (*tb->nb_rules >= tb->nb_flows) {
		/* the table is full: a rejected operation */
		queue_post(q, RTE_FLOW_OP_ERROR, user_data);
		return &q->failed;
	}
	if (postpone && tally_flow_check_locked(dev, &tb->attr, items, acts, &m, &a, &e2) == 0 &&
	    a.age == NULL && a.indirect == NULL && a.act.fate != TALLY_STEER_FATE_RSS &&
	    a.act.fate != TALLY_STEER_FATE_JUMP && q->ncache > 0) {
		/* checked now, inserted with the queue's next batch */
		p->op = TALLY_FQ_CREATE;
		p->flow = q->cache[--q->ncache];
		p->tb = tb;
		p->pt_idx = pt_idx;
		p->user_data = user_data;
		p->act = a.act;
		p->count = a.count != NULL;
		p->stock = false;
		tally_steer_rule_key(tb->fm[pt_idx]->m, &m.value, &q->bop[0].key);
		q->npend = 1;
		return p->flow;
	}
	flow = tally_flow_create_locked(dev, fc, &tb->attr, items, acts,
					(uint16_t)(q - fc->tmpl->q), &e2);
	if (flow == NULL) {
		/* rejected by the engine: an error result, no state */
		TALLY_FLOW_LOG(DEBUG, "queue %u: create rejected: %s",
			       (unsigned int)(q - fc->tmpl->q), e2.message ? e2.message : "?");
		queue_post(q, RTE_FLOW_OP_ERROR, user_data);
		return &q->failed;
	}
	flow->tbl_id = (uint16_t)(tb->id + 1);
	(*tb->nb_rules)++;
	queue_post(q, RTE_FLOW_OP_SUCCESS, user_data);
	return flow;
}

/* Every create the fast path of tally_flow_async_create() does not take, with all
 * the checks and their errors. */
static __rte_noinline struct rte_flow *
async_create_full(struct rte_eth_dev *dev, uint32_t queue,
		  const struct rte_flow_op_attr *oa, struct rte_flow_template_table *tbp,
		  const struct rte_flow_item pattern[], uint8_t pt_idx,
		  const struct rte_flow_action actions[], uint8_t at_idx,
		  void *user_data, struct rte_flow_error *err)
{
	struct tally_flow_ctx *fc = tally_tmpl_fc(dev, err);
	struct rte_flow_item items[TALLY_TMPL_MAX_ITEMS + 1];
	struct rte_flow_action acts[TALLY_TMPL_MAX_ACTIONS + 1];
	struct rte_flow_template_table *tb;
	struct tally_flow_queue *q;
	bool postpone = oa != NULL && oa->postpone;
	struct rte_flow *flow;

	if (fc == NULL)
		return NULL;
	if (tally_port_gone(dev)) {
		tally_flow_gone(err);
		return NULL;
	}
	q = queue_of(fc, queue, err);
	if (q == NULL)
		return NULL;
	tb = tally_tmpl_table_check(fc->tmpl, tbp);
	if (tb == NULL) {
		rte_flow_error_set(err, EINVAL, RTE_FLOW_ERROR_TYPE_UNSPECIFIED, tbp,
				   "no such template table");
		return NULL;
	}
	if (pt_idx >= tb->nb_pt || at_idx >= tb->nb_at) {
		rte_flow_error_set(err, EINVAL, RTE_FLOW_ERROR_TYPE_UNSPECIFIED, NULL,
				   "template index beyond the table's templates");
		return NULL;
	}
	if (queue_room(q, err) != 0)
		return NULL;
	if (pattern == NULL || actions == NULL) {
		rte_flow_error_set(err, EINVAL, RTE_FLOW_ERROR_TYPE_UNSPECIFIED, NULL,
				   "NULL pattern or actions");
		return NULL;
	}
	if (rule_pattern(tb->pt[pt_idx], pattern, NULL, err) != 0 ||
	    rule_actions(tb->at[at_idx], actions, NULL, err) != 0)
		return NULL;
	flow = create_fast(dev, fc, q, tb, pt_idx, at_idx, pattern, actions, user_data);
	if (flow != NULL) {
		if (!postpone && q->npend != 0)
			queue_flush(fc, q);
		return flow;
	}
	rule_pattern(tb->pt[pt_idx], pattern, items, err);
	rule_actions(tb->at[at_idx], actions, acts, err);
	tally_lock(&fc->lock);
	queue_flush_locked(fc, q);
	flow = create_parsed(dev, fc, q, tb, pt_idx, items, acts, postpone, user_data);
	if (!postpone && q->npend != 0)
		queue_flush_locked(fc, q);
	tally_unlock(&fc->lock);
	return flow;
}

/* The rule's items have the template's types, and specs where the template
 * masks fields (what rule_pattern() checks). */
static inline bool
pattern_fits(const struct rte_flow_pattern_template *pt, const struct rte_flow_item pattern[])
{
	uint32_t i, m;

	for (i = 0; i <= pt->nb_items; i++)	/* END included */
		if ((uint32_t)pattern[i].type != pt->type[i])
			return false;
	for (m = pt->spec_needed; m != 0; m &= m - 1)
		if (pattern[__builtin_ctz(m)].spec == NULL)
			return false;
	return true;
}

/* The rule's actions have the template's types (what rule_actions() checks). */
static inline bool
actions_fit(const struct rte_flow_actions_template *at, const struct rte_flow_action actions[])
{
	uint32_t i;

	for (i = 0; i <= at->nb_actions; i++)	/* END included */
		if ((uint32_t)actions[i].type != at->type[i])
			return false;
	return true;
}

/*
 * The common create in one pass of checks: a configured queue with room, a
 * live table with compiled templates, a rule of their types. Anything else,
 * every error included, takes async_create_full(), which reports it; what
 * passes here would pass there and take create_enc() too.
 */
struct rte_flow *
tally_flow_async_create(struct rte_eth_dev *dev, uint32_t queue,
			const struct rte_flow_op_attr *oa, struct rte_flow_template_table *tbp,
			const struct rte_flow_item pattern[], uint8_t pt_idx,
			const struct rte_flow_action actions[], uint8_t at_idx,
			void *user_data, struct rte_flow_error *err)
{
	struct tally_flow_ctx *fc = tally_adapter(dev)->flow;
	struct rte_flow_template_table *tb = tbp;
	const struct tally_key_prog *kp;
	const struct tally_act_prog *ap;
	struct tally_flow_queue *q;
	struct tally_flow_tmpl *t;
	struct rte_flow *flow;

	/* the queues exist while nb_queues is not 0 (tally_flow_configure) */
	if (unlikely(fc == NULL || (t = fc->tmpl) == NULL || queue >= t->nb_queues ||
		     tally_tmpl_table_check(t, tb) == NULL || pt_idx >= tb->nb_pt ||
		     at_idx >= tb->nb_at || pattern == NULL || actions == NULL ||
		     tally_port_gone(dev)))
		goto full;
	q = &t->q[queue];
	kp = tb->kp[pt_idx];
	ap = &tb->at[at_idx]->prog;
	if (unlikely(kp == NULL || !ap->ok || q->ncache == 0 || queue_full(q) ||
		     !pattern_fits(tb->pt[pt_idx], pattern) ||
		     !actions_fit(tb->at[at_idx], actions)))
		goto full;
	flow = create_enc(dev, fc, q, tb, kp, ap, pt_idx, at_idx, pattern, actions, user_data);
	if ((oa == NULL || !oa->postpone) && q->npend != 0)
		queue_flush(fc, q);
	return flow;
full:
	return async_create_full(dev, queue, oa, tbp, pattern, pt_idx, actions, at_idx,
				 user_data, err);
}

int
tally_flow_async_destroy(struct rte_eth_dev *dev, uint32_t queue,
			 const struct rte_flow_op_attr *oa, struct rte_flow *flow,
			 void *user_data, struct rte_flow_error *err)
{
	struct tally_flow_ctx *fc = tally_tmpl_fc(dev, err);
	struct tally_flow_pending *p;
	struct tally_flow_queue *q;

	if (fc == NULL)
		return -EIO;
	q = queue_of(fc, queue, err);
	if (q == NULL)
		return -rte_errno;
	/* a create of this queue still enqueued makes its rule live */
	if (!tally_flow_live(dev, flow) && (q->npend == 0 || (queue_flush(fc, q),
							       !tally_flow_live(dev, flow))))
		return rte_flow_error_set(err, EINVAL, RTE_FLOW_ERROR_TYPE_HANDLE, flow,
					  "no such flow on this port (destroyed, or never created)");
	if (queue_room(q, err) != 0)
		return -rte_errno;
	rte_prefetch0(tally_flow_rule(flow));
	p = &q->pend[q->npend];
	p->op = TALLY_FQ_DESTROY;
	p->flow = flow;
	p->tb = NULL;
	p->user_data = user_data;
	if (queue_enqueued(q) || oa == NULL || !oa->postpone)
		queue_flush(fc, q);
	return 0;
}

int
tally_flow_push(struct rte_eth_dev *dev, uint32_t queue, struct rte_flow_error *err)
{
	struct tally_flow_ctx *fc = tally_tmpl_fc(dev, err);
	struct tally_flow_queue *q;

	if (fc == NULL)
		return -EIO;
	q = queue_of(fc, queue, err);
	if (q == NULL)
		return -rte_errno;
	if (q->npend != 0)
		queue_flush(fc, q);
	return 0;
}

/* Results are touched only by the queue's owner thread: no lock. */
int
tally_flow_pull(struct rte_eth_dev *dev, uint32_t queue, struct rte_flow_op_result res[],
       uint16_t n_res, struct rte_flow_error *err)
{
	struct tally_flow_ctx *fc = tally_tmpl_fc(dev, err);
	struct tally_flow_queue *q;
	int n = 0;

	if (fc == NULL)
		return -EIO;
	if (res == NULL && n_res != 0)
		return rte_flow_error_set(err, EINVAL, RTE_FLOW_ERROR_TYPE_UNSPECIFIED,
					   NULL, "NULL result array");
	q = queue_of(fc, queue, err);
	if (q == NULL)
		return -rte_errno;
	if (q->npend != 0)
		queue_flush(fc, q);
	/* destroy results: the device must be past the rules first */
	if (q->fence_pending) {
		if (tally_fence_wait(&fc->fence, q->fence_ticket, TALLY_FLOW_SYNC_US) != 0)
			return rte_flow_error_set(err, EIO, RTE_FLOW_ERROR_TYPE_STATE, NULL,
						   "device fence timed out");
		q->fence_pending = false;
	}
	while (q->head != q->tail && n < n_res) {
		res[n++] = q->res[q->rd];
		q->head++;
		q->rd = q->rd + 1 == q->size ? 0 : q->rd + 1;
	}
	return n;
}

/* ---- indirect actions through a queue ------------------------------------------- */

/* The queue with room for one more result, its postponed creates run first
 * so results stay in order; NULL with err set. Takes the lock itself. */
static struct tally_flow_queue *
queue_take(struct tally_flow_ctx *fc, uint32_t queue, struct rte_flow_error *err)
{
	struct tally_flow_queue *q;

	tally_lock(&fc->lock);
	q = queue_of(fc, queue, err);
	if (q != NULL && queue_room(q, err) != 0)
		q = NULL;
	if (q != NULL)
		queue_flush_locked(fc, q);
	tally_unlock(&fc->lock);
	return q;
}

struct rte_flow_action_handle *
tally_flow_async_ah_create(struct rte_eth_dev *dev, uint32_t queue,
			   const struct rte_flow_op_attr *oa,
			   const struct rte_flow_indir_action_conf *conf,
			   const struct rte_flow_action *action, void *user_data,
			   struct rte_flow_error *err)
{
	struct tally_flow_ctx *fc = tally_tmpl_fc(dev, err);
	struct rte_flow_action_handle *h;
	struct tally_flow_queue *q;

	RTE_SET_USED(oa);
	if (fc == NULL)
		return NULL;
	if (tally_port_gone(dev)) {
		tally_flow_gone(err);
		return NULL;
	}
	q = queue_take(fc, queue, err);
	if (q == NULL)
		return NULL;
	h = tally_flow_handle_create(dev, conf, action, err);
	if (h == NULL)
		return NULL;
	tally_lock(&fc->lock);
	queue_post(q, RTE_FLOW_OP_SUCCESS, user_data);
	tally_unlock(&fc->lock);
	return h;
}

/* Run a handle operation through queue: the call's own error when it is
 * refused at once, else its result enqueued. */
enum ah_op { AH_DESTROY, AH_UPDATE, AH_QUERY };

static int
ah_queued(struct rte_eth_dev *dev, uint32_t queue, enum ah_op op,
	  struct rte_flow_action_handle *h, const void *arg, void *data,
	  void *user_data, struct rte_flow_error *err)
{
	struct tally_flow_ctx *fc = tally_tmpl_fc(dev, err);
	struct tally_flow_queue *q;
	int ret;

	if (fc == NULL)
		return -EIO;
	/* after the loss a handle is still released, not used */
	if (op != AH_DESTROY && tally_port_gone(dev))
		return tally_flow_gone(err);
	q = queue_take(fc, queue, err);
	if (q == NULL)
		return -rte_errno;
	switch (op) {
	case AH_DESTROY:
		ret = tally_flow_handle_destroy(dev, h, err);
		break;
	case AH_UPDATE:
		ret = tally_flow_handle_update(dev, h, arg, err);
		break;
	default:
		ret = tally_flow_handle_query(dev, h, data, err);
		break;
	}
	if (ret != 0)
		return ret;
	tally_lock(&fc->lock);
	queue_post(q, RTE_FLOW_OP_SUCCESS, user_data);
	tally_unlock(&fc->lock);
	return 0;
}

int
tally_flow_async_ah_destroy(struct rte_eth_dev *dev, uint32_t queue,
			    const struct rte_flow_op_attr *oa,
			    struct rte_flow_action_handle *h, void *user_data, struct rte_flow_error *err)
{
	RTE_SET_USED(oa);
	return ah_queued(dev, queue, AH_DESTROY, h, NULL, NULL, user_data, err);
}

int
tally_flow_async_ah_update(struct rte_eth_dev *dev, uint32_t queue,
			   const struct rte_flow_op_attr *oa,
			   struct rte_flow_action_handle *h, const void *update, void *user_data,
			   struct rte_flow_error *err)
{
	RTE_SET_USED(oa);
	return ah_queued(dev, queue, AH_UPDATE, h, update, NULL, user_data, err);
}

int
tally_flow_async_ah_query(struct rte_eth_dev *dev, uint32_t queue,
			  const struct rte_flow_op_attr *oa,
			  const struct rte_flow_action_handle *h, void *data, void *user_data,
			  struct rte_flow_error *err)
{
	RTE_SET_USED(oa);
	return ah_queued(dev, queue, AH_QUERY, (struct rte_flow_action_handle *)(uintptr_t)h,
			 NULL, data, user_data, err);
}

/* ---- life cycle -------------------------------------------------------------------- */

void
tally_flow_tmpl_fini(struct tally_flow_ctx *fc)
{
	struct tally_flow_tmpl *t = fc->tmpl;

	if (t == NULL)
		return;
	tally_lock(&fc->lock);
	tally_tmpl_release_all(fc);
	queues_free(fc, t);
	while (t->nspare > 0)
		tally_steer_rule_unreserve_locked(fc->steer, tally_flow_rule(t->spare[--t->nspare]));
	fc->tmpl = NULL;
	fc->strict_queue = false;
	tally_unlock(&fc->lock);
	rte_free(t->spare);
	rte_free(t);
}
