/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The rule core of a port's rte_flow engine: RSS sets, counters, the
 * check/insert/commit/destroy of one rule (on the matchers of
 * tally_flow_matcher.c), indirect COUNT handles, queries, walks and the
 * dump, on lib/steer. The create paths above it
 * (tally_flow_prog.c, the template and flow-queue files) bring a parsed
 * pattern or a built key; tally_flow_ops.c is the rte_flow_ops table.
 *
 * Objects:
 *  - struct rte_flow: one steering rule, plus the resources it holds (a
 *    matcher reference, a counter, an RSS set reference).
 *  - struct rte_flow_action_handle: an indirect COUNT, i.e. a counter of the
 *    pool that rules name with the INDIRECT action. Rules take references
 *    on it; it cannot be destroyed while a rule names it.
 *  - matchers are shared by rules of the same (group, priority, mask).
 *
 * Concurrency: the port advertises RTE_ETH_DEV_FLOW_OPS_THREAD_SAFE. Every
 * control op takes the engine lock. Queries do not: they read counters with
 * tally_cnt_read(), which is lock-free; the caller guarantees the flow or
 * handle is not destroyed concurrently with its own query.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>

#include <rte_flow_driver.h>
#include <rte_malloc.h>

#include "tally_pmd.h"
#include "tally_flow.h"
#include "tally_flow_priv.h"
#include "tally_flow_tmpl.h"
#include "tally_logs.h"

/* ---- lifecycle ----------------------------------------------------------- */

/*
 * Flows by slab position: the flow of handle i with its matcher, NULL if
 * that handle is not a live flow (free, pending, or a raw rule), FLOW_END
 * past the last handle. Creation order while nothing was freed.
 */
#define FLOW_END	((struct rte_flow *)(uintptr_t)1)

static struct rte_flow *
flow_at(struct tally_flow_ctx *fc, uint32_t i, struct tally_flow_matcher **fm)
{
	struct tally_steer_rule *r = tally_steer_rule_at(fc->steer, i);
	struct tally_steer_matcher *m;
	struct rte_flow *f;

	if (r == NULL)
		return FLOW_END;
	m = tally_steer_rule_matcher(r);
	f = tally_steer_rule_priv(r);
	if (m == NULL || f->magic != TALLY_FLOW_MAGIC)
		return NULL;
	*fm = tally_steer_matcher_udata(m);
	return f;
}

struct tally_cnt_pool *
tally_flow_cnt_pool(struct tally_adapter *ad)
{
	return ad->flow != NULL ? ad->flow->cnt : NULL;
}

void
tally_flow_info_of(const struct rte_flow *f, const struct tally_flow_matcher *fm,
		   uint32_t index, struct tally_flow_info *fi)
{
	fi->index = index;
	fi->transfer = (f->flags & FLOW_F_XFER) != 0;
	fi->port_id = f->port_id;
	fi->group = fm->group;
	fi->priority = fm->priority;
	fi->counted = (f->flags & FLOW_F_COUNTED) != 0;
	fi->shared = (f->flags & FLOW_F_INDIRECT) != 0;
	fi->counter = fi->counted ? f->counter : 0;
}

int
tally_flow_walk(struct tally_adapter *ad, tally_flow_walk_cb cb, void *arg)
{
	struct tally_flow_ctx *fc = ad->flow;
	struct tally_flow_matcher *fm;
	struct tally_flow_info fi;
	struct rte_flow *f;
	uint32_t index = 0, i;
	int ret = 0;

	if (fc == NULL)
		return -ENODEV;
	tally_lock(&fc->lock);
	for (i = 0; (f = flow_at(fc, i, &fm)) != FLOW_END; i++) {
		if (f == NULL)
			continue;
		tally_flow_info_of(f, fm, index++, &fi);
		ret = cb(&fi, arg);
		if (ret != 0)
			break;
	}
	tally_unlock(&fc->lock);
	return ret;
}

void
tally_flow_summary(struct tally_adapter *ad, struct tally_flow_sum *sum)
{
	struct tally_flow_ctx *fc = ad->flow;
	struct rte_flow_action_handle *h;

	memset(sum, 0, sizeof(*sum));
	if (fc == NULL)
		return;
	tally_lock(&fc->lock);
	sum->flows = fc->nb_flows;
	TAILQ_FOREACH(h, &fc->handles, next)
		sum->indirect_counters++;
	tally_flow_matcher_count(fc, &sum->matchers, &sum->idle_matchers);
	sum->isolated = fc->isolated;
	tally_unlock(&fc->lock);
}

struct tally_steer_ctx *
tally_flow_steer(struct tally_adapter *ad)
{
	return ad->flow != NULL ? ad->flow->steer : NULL;
}

/* ---- shared resources: RSS sets, handles ---------------------------------- */

static struct tally_flow_rss *
rss_get(struct tally_flow_ctx *fc, const struct tally_flow_acts *a,
	struct rte_flow_error *error, int *ret)
{
	struct tally_flow_rss *r;

	TAILQ_FOREACH(r, &fc->rss_sets, next)
		if (r->hf == a->rss_hf && r->nq == a->rss_nq &&
		    memcmp(r->queues, a->rss_queues, a->rss_nq * sizeof(uint16_t)) == 0) {
			r->refs++;
			return r;
		}
	r = rte_zmalloc("tally_rss", sizeof(*r), 0);
	if (r == NULL) {
		*ret = rte_flow_error_set(error, ENOMEM,
			RTE_FLOW_ERROR_TYPE_ACTION, a->fate, "no memory for an RSS set");
		return NULL;
	}
	*ret = tally_steer_rss_create_locked(fc->steer, a->rss_hf, a->rss_queues,
				      a->rss_nq, &r->id);
	if (*ret) {
		rte_free(r);
		*ret = tally_flow_steer_error(*ret, error, a->fate, RTE_FLOW_ERROR_TYPE_ACTION);
		return NULL;
	}
	r->hf = a->rss_hf;
	r->nq = a->rss_nq;
	memcpy(r->queues, a->rss_queues, a->rss_nq * sizeof(uint16_t));
	r->refs = 1;
	TAILQ_INSERT_TAIL(&fc->rss_sets, r, next);
	fc->rss_by_id[r->id] = r;
	return r;
}

static void
rss_put(struct tally_flow_ctx *fc, struct tally_flow_rss *r)
{
	if (--r->refs > 0)
		return;
	TAILQ_REMOVE(&fc->rss_sets, r, next);
	fc->rss_by_id[r->id] = NULL;
	tally_steer_rss_destroy_locked(fc->steer, r->id);
	rte_free(r);
}

/* ---- validate / create / destroy ------------------------------------------ */

void
tally_flow_limits_of(struct rte_eth_dev *dev, struct tally_flow_limits *lim)
{
	struct tally_adapter *ad = tally_adapter(dev);

	lim->nb_rx_queues = dev->data->nb_rx_queues;
	lim->max_groups = TALLY_FLOW_GROUPS;
	lim->rss_key = ad->rss_key;
}

/* The first half of flow_check(): attributes and pattern. */
static int
flow_check_match(struct rte_eth_dev *dev, const struct rte_flow_attr *attr,
		 const struct rte_flow_item pattern[], struct tally_flow_match *m,
		 struct tally_flow_limits *lim, struct rte_flow_error *error)
{
	struct tally_adapter *ad = tally_adapter(dev);
	int ret;

	if (ad->flow == NULL)
		return rte_flow_error_set(error, EIO,
			RTE_FLOW_ERROR_TYPE_STATE, NULL, "flow engine not available");
	tally_flow_limits_of(dev, lim);
	ret = tally_flow_parse_attr(attr, lim, error);
	if (ret == 0)
		ret = tally_flow_parse_pattern(pattern, m, error);
	return ret;
}

/* The second half: actions, and what they name. */
int
tally_flow_check_actions(struct rte_eth_dev *dev, const struct rte_flow_attr *attr,
		   const struct rte_flow_action actions[],
		   const struct tally_flow_limits *lim, struct tally_flow_acts *a,
		   struct rte_flow_error *error)
{
	struct tally_adapter *ad = tally_adapter(dev);
	int ret;

	ret = tally_flow_parse_actions(actions, lim, a, error);
	if (ret)
		return ret;
	if (a->act.fate == TALLY_STEER_FATE_JUMP && a->act.arg == attr->group)
		return rte_flow_error_set(error, EINVAL,
			RTE_FLOW_ERROR_TYPE_ACTION, a->fate,
			"jump to the rule's own group would loop");
	if (a->indirect != NULL && tally_flow_handle_check(ad->flow, a->indirect->conf) == NULL)
		return rte_flow_error_set(error, EINVAL,
			RTE_FLOW_ERROR_TYPE_ACTION_CONF, a->indirect,
			"unknown indirect action handle");
	return 0;
}

/* Everything that can be checked without taking resources. */
static int
flow_check(struct rte_eth_dev *dev, const struct rte_flow_attr *attr,
	   const struct rte_flow_item pattern[],
	   const struct rte_flow_action actions[], struct tally_flow_match *m,
	   struct tally_flow_acts *a, struct rte_flow_error *error)
{
	struct tally_flow_limits lim;
	int ret;

	ret = flow_check_match(dev, attr, pattern, m, &lim, error);
	if (ret == 0)
		ret = tally_flow_check_actions(dev, attr, actions, &lim, a, error);
	return ret;
}

static struct rte_flow *
flow_obj_alloc(struct tally_flow_ctx *fc)
{
	struct tally_steer_rule *r;

	if (tally_steer_rule_reserve_locked(fc->steer, &r) != 0)
		return NULL;
	return tally_steer_rule_priv(r);	/* zeroed */
}

/*
 * Release what a flow holds and its object (lock held). fm: the matcher
 * reference of a flow whose rule is not in it (a failed create); a flow in
 * a matcher finds its own. ahead: start fetching the rule `ahead`
 * handles on (flows destroyed in creation order), or 0.
 */
static __rte_always_inline void
flow_release(struct tally_flow_ctx *fc, struct rte_flow *flow,
	     struct tally_flow_matcher *fm, uint32_t ahead)
{
	struct tally_steer_rule *r = tally_flow_rule(flow);
	struct tally_flow_rss *rss = NULL;
	void *owner;
	int ret;

	if (unlikely(flow->flags & FLOW_F_AGE))
		tally_flow_age_detach(fc, flow);
	if (flow->tbl_id != 0 && fc->tbl_rules[flow->tbl_id - 1] > 0)
		fc->tbl_rules[flow->tbl_id - 1]--;
	if (flow->flags & FLOW_F_RSS)
		rss = fc->rss_by_id[flow->rss_id];
	flow->magic = 0;
	/* the rule and its handle, with the flow object in it: not read
	 * once freed */
	ret = tally_steer_rule_delete_next_locked(r, ahead, &owner);
	if (owner != NULL)
		fm = owner;
	if (unlikely(ret != 0)) {
		if (owner != NULL)
			TALLY_FLOW_LOG(ERR, "rule of port %u could not be deleted",
				       flow->port_id);
		tally_steer_rule_unreserve_locked(fc->steer, r);
	}
	if (fm != NULL)
		tally_flow_matcher_put(fc, fm);
	if (rss != NULL)
		rss_put(fc, rss);
}

/* A counter from the pool; when all free ones wait for reuse, one fence
 * first (lock held). 0 or -errno. */
int
tally_flow_counter_alloc_locked(struct tally_flow_ctx *fc, uint32_t *idx)
{
	int ret = tally_cnt_alloc_locked(fc->cnt, idx);

	if (ret == -EAGAIN) {
		tally_steer_ctx_sync_locked(fc->steer, TALLY_FLOW_SYNC_US);
		ret = tally_cnt_alloc_locked(fc->cnt, idx);
	}
	return ret;
}

/*
 * The rule's counter: a new one for COUNT or AGE (returns 1: the caller's
 * reference, handed to the rule with TALLY_STEER_A_CNT_HELD), the handle's
 * for an indirect COUNT, none otherwise (0); -errno with the error set.
 */
static int
flow_counter_take(struct tally_flow_ctx *fc, struct rte_flow *flow,
		  struct tally_flow_acts *a, struct rte_flow_error *error)
{
	int ret;

	if (a->count != NULL || a->age != NULL) {
		ret = tally_flow_counter_alloc_locked(fc, &flow->counter);
		if (ret)
			return rte_flow_error_set(error, ENOSPC, RTE_FLOW_ERROR_TYPE_ACTION,
						  a->count != NULL ? a->count : a->age,
						  "counter bank exhausted");
		if (a->count != NULL)
			flow->flags |= FLOW_F_COUNTED;
		a->act.counter = flow->counter;
		a->act.flags |= TALLY_STEER_A_CNT_HELD;	/* our reference becomes the rule's */
		return 1;
	}
	if (a->indirect != NULL) {
		flow->counter = tally_flow_handle_check(fc, a->indirect->conf)->counter;
		flow->flags |= FLOW_F_COUNTED | FLOW_F_INDIRECT;
	}
	a->act.counter = flow->counter;
	return 0;
}

struct rte_flow *
tally_flow_insert_locked(struct rte_eth_dev *dev, struct tally_flow_ctx *fc,
			 const struct rte_flow_attr *attr,
			 const struct rte_flow_item pattern[],
			 const struct tally_flow_match *m, struct tally_flow_matcher *last,
			 struct tally_steer_key *key, struct tally_flow_acts *a,
			 uint16_t age_queue, struct rte_flow_error *error)
{
	struct tally_flow_matcher *fm = NULL;
	struct rte_flow *flow;
	bool own_counter = false;
	int ret;

	flow = flow_obj_alloc(fc);
	if (flow == NULL) {
		rte_flow_error_set(error, ENOMEM, RTE_FLOW_ERROR_TYPE_HANDLE,
				   NULL, "no memory for the flow");
		return NULL;
	}
	flow->port_id = dev->data->port_id;
	if (a->act.fate == TALLY_STEER_FATE_JUMP &&
	    tally_steer_table_get(fc->steer, a->act.arg) == NULL) {
		struct tally_steer_table *t;

		ret = tally_steer_table_create_locked(fc->steer, a->act.arg, &t);
		if (ret) {
			tally_flow_steer_error(ret, error, a->fate, RTE_FLOW_ERROR_TYPE_ACTION);
			goto fail;
		}
	}
	if (last != NULL) {
		fm = last;		/* still there: nothing ran in between */
		fm->refs++;
		fc->last = fm;
	} else {
		fm = tally_flow_matcher_get(fc, attr->group, attr->priority, &m->mask, error, &ret);
		if (fm == NULL)
			goto fail;
		/* the key is hashed once, and the slot's cache miss overlaps
		 * with the counter allocation below */
		tally_steer_rule_key(fm->m, &m->value, key);
	}
	if (a->act.fate == TALLY_STEER_FATE_RSS) {
		struct tally_flow_rss *r = rss_get(fc, a, error, &ret);

		if (r == NULL)
			goto fail;
		flow->rss_id = (uint16_t)r->id;
		flow->flags |= FLOW_F_RSS;
		a->act.arg = r->id;
	}
	ret = flow_counter_take(fc, flow, a, error);
	if (ret < 0)
		goto fail;
	own_counter = ret == 1;
	ret = tally_steer_rule_insert_at_locked(fm->m, key, &a->act, tally_flow_rule(flow));
	if (ret && own_counter)
		tally_cnt_free_locked(fc->cnt, flow->counter);
	if (ret) {
		/* a loop is the jump's fault; a duplicate, the pattern's */
		tally_flow_steer_error(ret, error, ret == -ELOOP ? (const void *)a->fate :
				       (const void *)pattern, RTE_FLOW_ERROR_TYPE_ITEM);
		goto fail;
	}
	if (a->age != NULL) {
		ret = tally_flow_age_attach(dev, fc, flow, a->age->conf, age_queue);
		if (ret) {
			rte_flow_error_set(error, -ret, RTE_FLOW_ERROR_TYPE_ACTION,
					   a->age, "no memory for the aging object");
			goto fail;
		}
	}
	fc->nb_flows++;
	flow->magic = TALLY_FLOW_MAGIC;
	/* a grown hash array leaves the old one waiting for a fence */
	tally_steer_ctx_reclaim_locked(fc->steer);
	return flow;
fail:
	flow_release(fc, flow, fm, 0);
	return NULL;
}

int
tally_flow_check_locked(struct rte_eth_dev *dev, const struct rte_flow_attr *attr,
			const struct rte_flow_item pattern[],
			const struct rte_flow_action actions[], struct tally_flow_match *m,
			struct tally_flow_acts *a, struct rte_flow_error *error)
{
	return flow_check(dev, attr, pattern, actions, m, a, error);
}

struct rte_flow *
tally_flow_obj_get(struct tally_flow_ctx *fc)
{
	struct rte_flow *flow = flow_obj_alloc(fc);

	if (flow != NULL)
		flow->port_id = fc->dev->data->port_id;
	return flow;
}

int
tally_flow_commit_locked(struct tally_flow_ctx *fc, struct rte_flow *flow,
			 struct tally_flow_matcher *fm, const struct tally_steer_key *key,
			 struct tally_steer_action *act, bool count, uint32_t stock)
{
	int ret = 0;

	fm->refs++;
	if (count) {
		flow->counter = stock;
		if (stock == TALLY_CNT_MAX)
			ret = tally_flow_counter_alloc_locked(fc, &flow->counter);
		if (ret)
			goto fail;
		flow->flags |= FLOW_F_COUNTED;
		act->counter = flow->counter;
		act->flags |= TALLY_STEER_A_CNT_HELD;	/* our reference becomes the rule's */
	}
	ret = tally_steer_rule_insert_at_locked(fm->m, key, act, tally_flow_rule(flow));
	if (count)
		act->flags &= ~TALLY_STEER_A_CNT_HELD;
	if (ret && count)
		tally_cnt_free_locked(fc->cnt, flow->counter);
	if (ret)
		goto fail;
	fc->nb_flows++;
	flow->magic = TALLY_FLOW_MAGIC;
	tally_steer_ctx_reclaim_locked(fc->steer);
	return 0;
fail:
	flow_release(fc, flow, fm, 0);
	return ret;
}

/*
 * Rules are often deleted in creation order (aging, flush, bulk removal),
 * which is slab order while nothing was freed in between: start fetching
 * the hash entries of the handles FLOW_AHEAD places further (a group at a
 * time, see tally_steer_rule_delete_next_locked()), so their cache misses
 * overlap with the deletes before them. A delete takes 30-40 ns and a miss
 * about 200: 4 places was too close, the tombstone's store still waited
 * for its line at the counter's atomic (flow-perf delete at 4M rules:
 * 24 M/s with 4, 32-35 with 12, 24 or 48, fetching one entry per delete).
 */
#define FLOW_AHEAD	32

static __rte_always_inline void
flow_destroy(struct tally_flow_ctx *fc, struct rte_flow *flow, uint32_t ahead)
{
	fc->nb_flows--;
	flow_release(fc, flow, NULL, ahead);
	tally_steer_ctx_reclaim_locked(fc->steer);
}

void
tally_flow_destroy_locked(struct tally_flow_ctx *fc, struct rte_flow *flow)
{
	flow_destroy(fc, flow, FLOW_AHEAD);
}

/* A flow queue's batch prefetched the entries of exactly its destroys:
 * no look-ahead. Handles further on may be another queue's (each queue
 * takes its flow objects 64 at a time from one slab), whose lines that
 * queue is writing. */
void
tally_flow_destroy_queued_locked(struct tally_flow_ctx *fc, struct rte_flow *flow)
{
	flow_destroy(fc, flow, 0);
}

int
tally_flow_flush_locked(struct tally_flow_ctx *fc)
{
	struct tally_flow_matcher *fm;
	struct rte_flow *flow;
	uint32_t i;

	for (i = 0; (flow = flow_at(fc, i, &fm)) != FLOW_END; i++) {
		if (flow == NULL)
			continue;
		fc->nb_flows--;
		flow_release(fc, flow, NULL, FLOW_AHEAD);
	}
	tally_flow_matcher_idle_drop(fc);
	tally_steer_ctx_reclaim_locked(fc->steer);
	return 0;
}

/* ---- query ----------------------------------------------------------------- */

int
tally_flow_count_query(struct tally_flow_ctx *fc, uint32_t counter,
	    struct rte_flow_query_count *qc)
{
	uint64_t pkts, bytes;
	int ret;

	/* one step: a frame counted between a read and a reset would be lost */
	if (qc->reset)
		ret = tally_cnt_read_reset(fc->cnt, counter, &pkts, &bytes);
	else
		ret = tally_cnt_read(fc->cnt, counter, &pkts, &bytes);
	if (ret)
		return ret;
	qc->hits_set = 1;
	qc->bytes_set = 1;
	qc->hits = pkts;
	qc->bytes = bytes;
	return 0;
}

int
tally_flow_count_query_flow(struct tally_flow_ctx *fc, const struct rte_flow *flow,
			    const struct rte_flow_action *action, void *data,
			    struct rte_flow_error *error)
{
	if (!(flow->flags & FLOW_F_COUNTED))
		return rte_flow_error_set(error, EINVAL,
			RTE_FLOW_ERROR_TYPE_ACTION, action,
			"flow has no count action");
	if (data == NULL)
		return rte_flow_error_set(error, EINVAL,
			RTE_FLOW_ERROR_TYPE_ACTION, action, "no query output buffer");
	return tally_flow_count_query(fc, flow->counter, data);
}

int
tally_flow_query(struct rte_eth_dev *dev, struct rte_flow *flow,
		 const struct rte_flow_action *action, void *data,
		 struct rte_flow_error *error)
{
	struct tally_flow_ctx *fc = tally_adapter(dev)->flow;

	if (unlikely(tally_port_gone(dev)))
		return tally_flow_gone(error);
	if (fc == NULL || !tally_flow_live(dev, flow))
		return rte_flow_error_set(error, EINVAL,
			RTE_FLOW_ERROR_TYPE_HANDLE, flow,
			"no such flow on this port (destroyed, or never created)");
	if (action != NULL && action->type == RTE_FLOW_ACTION_TYPE_AGE) {
		if (!(flow->flags & FLOW_F_AGE))
			return rte_flow_error_set(error, EINVAL,
				RTE_FLOW_ERROR_TYPE_ACTION, action,
				"flow has no age action");
		if (data == NULL)
			return rte_flow_error_set(error, EINVAL,
				RTE_FLOW_ERROR_TYPE_ACTION, action, "no query output buffer");
		return tally_flow_age_query(fc, flow, data);
	}
	if (action == NULL || action->type != RTE_FLOW_ACTION_TYPE_COUNT)
		return rte_flow_error_set(error, ENOTSUP,
			RTE_FLOW_ERROR_TYPE_ACTION, action,
			"only count and age can be queried");
	return tally_flow_count_query_flow(fc, flow, action, data, error);
}

/* ---- dump ------------------------------------------------------------------- */

static const char *const fate_names[] = {
	[TALLY_STEER_FATE_NONE] = "none",
	[TALLY_STEER_FATE_DROP] = "drop",
	[TALLY_STEER_FATE_QUEUE] = "queue",
	[TALLY_STEER_FATE_RSS] = "rss",
	[TALLY_STEER_FATE_JUMP] = "jump",
	[TALLY_STEER_FATE_MISS] = "miss",
	[TALLY_STEER_FATE_PASSTHRU] = "passthru",
};

void
tally_flow_dump_counter(struct tally_flow_ctx *fc, const struct rte_flow *flow, FILE *f)
{
	uint64_t pkts = 0, bytes = 0;

	if (!(flow->flags & FLOW_F_COUNTED))
		return;
	tally_cnt_read(fc->cnt, flow->counter, &pkts, &bytes);
	fprintf(f, " counter %u%s hits %" PRIu64 " bytes %" PRIu64,
		flow->counter, (flow->flags & FLOW_F_INDIRECT) ? " (indirect)" : "",
		pkts, bytes);
}

static void
dump_flow(struct tally_flow_ctx *fc, struct rte_flow *flow, FILE *f)
{
	struct tally_steer_action act;

	struct tally_flow_matcher *fm = tally_flow_matcher_of(flow);

	tally_steer_rule_action(tally_flow_rule(flow), &act);
	fprintf(f, "flow %p: group %u priority %u matcher words %u fate %s",
		(const void *)flow, fm->group, fm->priority,
		tally_steer_matcher_nwords(fm->m),
		act.fate < RTE_DIM(fate_names) && fate_names[act.fate] ?
		fate_names[act.fate] : "?");
	if (act.fate == TALLY_STEER_FATE_QUEUE || act.fate == TALLY_STEER_FATE_JUMP ||
	    act.fate == TALLY_STEER_FATE_RSS)
		fprintf(f, " %u", act.arg);
	if (act.flags & TALLY_STEER_A_MARK)
		fprintf(f, " mark %u", act.mark);
	if (act.flags & TALLY_STEER_A_FLAG)
		fprintf(f, " flag");
	tally_flow_dump_counter(fc, flow, f);
	fputc('\n', f);
}

int
tally_flow_dump(struct rte_eth_dev *dev, struct rte_flow *flow, FILE *f,
		    struct rte_flow_error *error)
{
	struct tally_flow_ctx *fc = tally_adapter(dev)->flow;
	struct tally_steer_mem_stats ms;
	struct rte_flow_action_handle *h;
	uint32_t in_use, free_now, pending, i, nm[2];
	struct tally_flow_matcher *fm;
	struct rte_flow *it;

	if (fc == NULL)
		return rte_flow_error_set(error, EIO,
			RTE_FLOW_ERROR_TYPE_STATE, NULL, "flow engine not available");
	tally_lock(&fc->lock);
	if (flow != NULL) {
		if (!tally_flow_live(dev, flow)) {
			tally_unlock(&fc->lock);
			return rte_flow_error_set(error, EINVAL,
				RTE_FLOW_ERROR_TYPE_HANDLE, flow,
				"no such flow on this port (destroyed, or never created)");
		}
		dump_flow(fc, flow, f);
		tally_unlock(&fc->lock);
		return 0;
	}
	tally_steer_ctx_mem_locked(fc->steer, &ms);
	tally_cnt_pool_stats_locked(fc->cnt, &in_use, &free_now, &pending);
	tally_flow_matcher_count(fc, &nm[0], &nm[1]);
	fprintf(f, "tally port %u: %u flows%s, steering memory %" PRIu64
		" device bytes (%" PRIu64 " waiting for a fence), %" PRIu64
		" host bytes; matchers %u, idle matchers %u, pre-sized matchers %u;"
		" counters %u in use, %u free, %u pending reuse;"
		" key builder %" PRIu64 " keys, action builder %" PRIu64 " actions;"
		" flow objects allocated ahead %u;"
		" engine lock taken %" PRIu64 " times, %" PRIu64 " after a wait\n",
		dev->data->port_id, fc->nb_flows, fc->isolated ? " (isolated)" : "",
		ms.dev_bytes, ms.dev_deferred, ms.host_bytes, nm[0], nm[1],
		fc->presized != NULL ? 1u : 0u, in_use,
		free_now, pending, fc->shape.keys, fc->ashape.acts,
		tally_tmpl_spare_count(fc),
		tally_lock_taken(&fc->lock), tally_lock_waited(&fc->lock));
	for (i = 0; (it = flow_at(fc, i, &fm)) != FLOW_END; i++)
		if (it != NULL)
			dump_flow(fc, it, f);
	TAILQ_FOREACH(h, &fc->handles, next) {
		uint64_t pkts = 0, bytes = 0;

		tally_cnt_read(fc->cnt, h->counter, &pkts, &bytes);
		fprintf(f, "indirect count %p: counter %u rules %u hits %" PRIu64
			" bytes %" PRIu64 "\n", (void *)h, h->counter,
			tally_cnt_refcnt(fc->cnt, h->counter) - 1,
			pkts, bytes);
	}
	tally_unlock(&fc->lock);
	return 0;
}

int
tally_flow_lock(struct tally_adapter *ad)
{
	if (ad->flow == NULL)
		return -EIO;
	tally_lock(&ad->flow->lock);
	return 0;
}

void
tally_flow_unlock(struct tally_adapter *ad)
{
	tally_unlock(&ad->flow->lock);
}

int
tally_flow_rule_counter(const struct rte_flow *flow, uint32_t *idx)
{
	if (flow == NULL || !(flow->flags & FLOW_F_COUNTED))
		return -ENOENT;
	*idx = flow->counter;
	return 0;
}
