/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The rte_flow ops of a Tally port: one constant table (the async fast
 * path in it on 22.11, in a table of its own from 24.03), the synchronous
 * calls over the rule core (tally_flow_rule.c) and the create path
 * (tally_flow_prog.c), the engine's init and fini, and the port state around
 * the control calls.
 *
 * Concurrency: the port advertises RTE_ETH_DEV_FLOW_OPS_THREAD_SAFE. Every
 * control op takes the engine lock. Queries do not: they read counters with
 * tally_cnt_read(), which is lock-free; the caller guarantees the flow or
 * handle is not destroyed concurrently with its own query.
 *
 * Port state: the control ops as ethdev calls them each enter the port
 * (tally_port_state.c) around the engine's own op, so that none runs while
 * another thread closes the port, and the state says what may still run
 * once the device is gone (doc/guides/nics/tally.rst, "Device loss"):
 *
 *   refused, EIO "device is gone"   validate, isolate, dev_dump, aged flows,
 *                                   indirect action create, update, query,
 *                                   info_get, configure, template and table
 *                                   create
 *   run (software state only)       flush, indirect action destroy, template
 *                                   and table destroy
 *   refused, ENODEV "port is        all of the above, while the port closes
 *   closing"
 *
 * The per-rule calls (create, destroy, query and the flow queue operations)
 * are not wrapped: a count on every rule would cost the insertion rate.
 * They test the state themselves (tally_flow_gone()) and, like bursts, must
 * not race the port's close.
 */
#include <stdio.h>
#include <string.h>

#include <rte_flow_driver.h>
#include <rte_malloc.h>

#include "tally_compat.h"
#include "tally_pmd.h"
#include "tally_flow.h"
#include "tally_flow_priv.h"
#include "tally_flow_tmpl.h"
#include "tally_logs.h"

/* ---- the engine of a port ------------------------------------------------- */

int
tally_flow_init(struct tally_adapter *ad)
{
	struct tally_cnt_pool_config ccfg = { 0 };
	struct tally_steer_config scfg = { 0 };
	struct tally_flow_ctx *fc;
	int ret;

	fc = rte_zmalloc("tally_flow", sizeof(*fc), 0);
	if (fc == NULL)
		return -ENOMEM;
	tally_lock_init(&fc->lock);
	TAILQ_INIT(&fc->handles);
	TAILQ_INIT(&fc->matchers);
	TAILQ_INIT(&fc->rss_sets);
	fc->dev = ad->eth_dev;
	ret = tally_flow_mem_init(fc, ad);
	if (ret) {
		rte_free(fc);
		return ret;
	}
	tally_fence_init(&fc->fence, &ad->hal.io);
	ccfg.io = &ad->hal.io;
	ccfg.fence = &fc->fence;
	/* one lock for the engine, the counter pool and the steering
	 * context: a create or destroy takes it once */
	ccfg.lock = &fc->lock;
	ret = tally_cnt_pool_create(&ccfg, &fc->cnt);
	if (ret)
		goto err;
	scfg.io = &ad->hal.io;
	scfg.fence = &fc->fence;
	scfg.cnt = fc->cnt;
	scfg.lock = &fc->lock;
	scfg.mem.alloc = tally_flow_mem_alloc;
	scfg.mem.free = tally_flow_mem_free;
	scfg.mem.arg = fc->mem;
	scfg.max_tables = TALLY_FLOW_GROUPS;
	scfg.max_rss = TALLY_FLOW_RSS_SETS;
	scfg.nb_queues = ad->max_rxq;
	scfg.rule_priv = sizeof(struct rte_flow);
	scfg.stage_min_log2 = ad->steer_stage;
	ret = tally_steer_ctx_create(&scfg, &fc->steer);
	if (ret)
		goto err;
	ret = tally_flow_xfer_init(ad, fc, &scfg);
	if (ret) {
		tally_steer_ctx_destroy(fc->steer);
		goto err;
	}
	ad->flow = fc;
	/* the port's first matcher will be sized from the counter bank
	 * (matcher_presize()): the window memory its array takes is
	 * populated now, at probe, as EAL populates its huge pages at start,
	 * not by the first create (for a two-word key, what a rule on one
	 * header field takes: the field's word and the word of the frame's
	 * layers; a longer key populates the rest then); so are the flow
	 * objects of as many rules, which creates would otherwise fault in
	 * a page at a time, and the state of as many counters, which their
	 * allocations would fault in 2 MiB at a time under the engine lock */
	if (tally_flow_presize_fits(fc, TALLY_FLOW_PRESIZE_WORDS)) {
		tally_flow_mem_populate(fc, tally_steer_reserve_bytes(fc->cnt->num,
								      TALLY_FLOW_PRESIZE_WORDS));
		(void)tally_steer_ctx_reserve_handles(fc->steer, fc->cnt->num);
		tally_cnt_pool_populate(fc->cnt, fc->cnt->num);
	}
	tally_hal_ctrl_update(&ad->hal, TALLY_CTRL_STEER, 0);
	return 0;
err:
	TALLY_INIT_LOG(ERR, "flow engine init failed: %s", strerror(-ret));
	if (fc->cnt != NULL)
		tally_cnt_pool_destroy(fc->cnt);
	tally_fence_fini(&fc->fence);
	tally_flow_mem_fini(fc);
	rte_free(fc);
	return ret;
}

void
tally_flow_fini(struct tally_adapter *ad)
{
	struct tally_flow_ctx *fc = ad->flow;
	struct rte_flow_action_handle *h;
	struct tally_flow_matcher *fm;
	struct tally_flow_rss *rss;

	if (fc == NULL)
		return;
	tally_flow_xfer_fini(ad, fc);
	tally_lock(&fc->lock);
	tally_flow_flush_locked(fc);
	while ((h = TAILQ_FIRST(&fc->handles)) != NULL) {
		TAILQ_REMOVE(&fc->handles, h, next);
		tally_cnt_free_locked(fc->cnt, h->counter);
		h->magic = 0;
		rte_free(h);
	}
	tally_unlock(&fc->lock);
	tally_flow_shape_reset(&fc->shape);
	tally_flow_age_fini(fc);
	tally_flow_tmpl_fini(fc);
	tally_hal_ctrl_update(&ad->hal, 0, TALLY_CTRL_STEER | TALLY_CTRL_ISOLATE);
	/* matchers still held by raw-key rules (rte_pmd_tally_rule_*): the
	 * steering context frees their rules and steering matchers */
	while ((fm = TAILQ_FIRST(&fc->matchers)) != NULL) {
		TAILQ_REMOVE(&fc->matchers, fm, next);
		rte_free(fm);
	}
	while ((rss = TAILQ_FIRST(&fc->rss_sets)) != NULL) {
		TAILQ_REMOVE(&fc->rss_sets, rss, next);
		rte_free(rss);
	}
	tally_steer_ctx_destroy(fc->steer);
	tally_cnt_pool_destroy(fc->cnt);
	tally_fence_fini(&fc->fence);
	tally_flow_mem_fini(fc);
	rte_free(fc);
	ad->flow = NULL;
}

static int
tally_flow_validate(struct rte_eth_dev *dev, const struct rte_flow_attr *attr,
		    const struct rte_flow_item pattern[],
		    const struct rte_flow_action actions[],
		    struct rte_flow_error *error)
{
	struct tally_flow_ctx *fc = tally_adapter(dev)->flow;
	struct tally_flow_match m;
	struct tally_flow_acts a;
	uint32_t in_use, free_now, pending;
	int ret;

	if (fc == NULL)
		return rte_flow_error_set(error, EIO,
			RTE_FLOW_ERROR_TYPE_STATE, NULL, "flow engine not available");
	if (attr != NULL && attr->transfer)
		return tally_flow_xfer_validate(dev, attr, pattern, actions, error);
	tally_lock(&fc->lock);
	ret = tally_flow_check_locked(dev, attr, pattern, actions, &m, &a, error);
	if (ret == 0 && a.count != NULL) {
		tally_cnt_pool_stats_locked(fc->cnt, &in_use, &free_now, &pending);
		if (free_now == 0 && pending == 0)
			ret = rte_flow_error_set(error, ENOSPC,
				RTE_FLOW_ERROR_TYPE_ACTION, a.count,
				"counter bank exhausted");
	}
	tally_unlock(&fc->lock);
	return ret;
}

static struct rte_flow *
tally_flow_create(struct rte_eth_dev *dev, const struct rte_flow_attr *attr,
		  const struct rte_flow_item pattern[],
		  const struct rte_flow_action actions[],
		  struct rte_flow_error *error)
{
	struct tally_flow_ctx *fc = tally_adapter(dev)->flow;
	struct rte_flow *flow;

	if (unlikely(tally_port_gone(dev))) {
		tally_flow_gone(error);
		return NULL;
	}
	if (fc == NULL) {
		rte_flow_error_set(error, EIO, RTE_FLOW_ERROR_TYPE_STATE, NULL,
				   "flow engine not available");
		return NULL;
	}
	if (unlikely(attr != NULL && attr->transfer))
		return tally_flow_xfer_create(dev, attr, pattern, actions, error);
	tally_lock(&fc->lock);
	flow = tally_flow_create_locked(dev, fc, attr, pattern, actions,
					TALLY_FLOW_AGE_SYNC, error);
	tally_unlock(&fc->lock);
	return flow;
}

static int
tally_flow_destroy(struct rte_eth_dev *dev, struct rte_flow *flow,
		   struct rte_flow_error *error)
{
	struct tally_flow_ctx *fc = tally_adapter(dev)->flow;

	if (fc == NULL)
		return rte_flow_error_set(error, EINVAL,
			RTE_FLOW_ERROR_TYPE_HANDLE, flow, "no such flow");
	if (unlikely(tally_flow_is_xfer(flow)))
		return tally_flow_xfer_destroy(dev, flow, error);
	tally_lock(&fc->lock);
	if (!tally_flow_live(dev, flow)) {
		tally_unlock(&fc->lock);
		return rte_flow_error_set(error, EINVAL,
			RTE_FLOW_ERROR_TYPE_HANDLE, flow,
			"no such flow on this port (destroyed, or never created)");
	}
	tally_flow_destroy_locked(fc, flow);
	tally_unlock(&fc->lock);
	return 0;
}

static int
tally_flow_flush(struct rte_eth_dev *dev, struct rte_flow_error *error)
{
	struct tally_flow_ctx *fc = tally_adapter(dev)->flow;
	int ret;

	if (fc == NULL)
		return 0;
	tally_lock(&fc->lock);
	ret = tally_flow_flush_locked(fc);
	tally_unlock(&fc->lock);
	tally_flow_xfer_flush(dev);
	return ret;
}

static int
tally_flow_query_any(struct rte_eth_dev *dev, struct rte_flow *flow,
		     const struct rte_flow_action *action, void *data,
		     struct rte_flow_error *error)
{
	if (unlikely(tally_flow_is_xfer(flow))) {
		if (unlikely(tally_port_gone(dev)))
			return tally_flow_gone(error);
		return tally_flow_xfer_query(dev, flow, action, data, error);
	}
	return tally_flow_query(dev, flow, action, data, error);
}

/* ---- isolate ---------------------------------------------------------------- */

static int
tally_flow_isolate(struct rte_eth_dev *dev, int set, struct rte_flow_error *error)
{
	struct tally_adapter *ad = tally_adapter(dev);

	if (ad->flow == NULL)
		return rte_flow_error_set(error, EIO,
			RTE_FLOW_ERROR_TYPE_STATE, NULL, "flow engine not available");
	if (set)
		tally_hal_ctrl_update(&ad->hal, TALLY_CTRL_ISOLATE, 0);
	else
		tally_hal_ctrl_update(&ad->hal, 0, TALLY_CTRL_ISOLATE);
	ad->flow->isolated = set != 0;
	return 0;
}

/* Aged rules of flow queue queue_id (per_queue) or of the synchronous API. */
static int
aged_flows_get(struct rte_eth_dev *dev, bool per_queue, uint32_t queue_id,
	       void **contexts, uint32_t n, struct rte_flow_error *error)
{
	struct tally_flow_ctx *fc = tally_adapter(dev)->flow;

	if (fc == NULL)
		return rte_flow_error_set(error, EIO, RTE_FLOW_ERROR_TYPE_STATE,
					   NULL, "flow engine not available");
	if (n != 0 && contexts == NULL)
		return rte_flow_error_set(error, EINVAL,
			RTE_FLOW_ERROR_TYPE_UNSPECIFIED, NULL, "NULL context array");
	/* the queue matters only when every rule stays on its queue */
	if (!per_queue || !fc->strict_queue)
		queue_id = TALLY_FLOW_AGE_SYNC;
	return tally_flow_age_get(fc, queue_id, contexts, n);
}

static int
tally_get_aged_flows(struct rte_eth_dev *dev, void **contexts, uint32_t n,
		     struct rte_flow_error *error)
{
	return aged_flows_get(dev, false, 0, contexts, n, error);
}

static int
tally_get_q_aged_flows(struct rte_eth_dev *dev, uint32_t queue_id,
		       void **contexts, uint32_t n, struct rte_flow_error *error)
{
	return aged_flows_get(dev, true, queue_id, contexts, n, error);
}

/* ---- the port state around the control calls ------------------------------ */

/* 0 inside the port, else the error set. */
static int
gate_enter(struct rte_eth_dev *dev, enum tally_port_need need, struct rte_flow_error *err)
{
	int rc = tally_port_enter(dev, need);

	if (rc == -EIO)
		return tally_flow_gone(err);
	if (rc != 0)
		return rte_flow_error_set(err, -rc, RTE_FLOW_ERROR_TYPE_UNSPECIFIED, NULL,
					  "port is closing");
	return 0;
}

static int
gate_validate(struct rte_eth_dev *dev, const struct rte_flow_attr *attr,
	      const struct rte_flow_item pattern[], const struct rte_flow_action actions[],
	      struct rte_flow_error *err)
{
	int rc = gate_enter(dev, TALLY_PORT_DEVICE, err);

	if (rc != 0)
		return rc;
	rc = tally_flow_validate(dev, attr, pattern, actions, err);
	tally_port_leave(dev);
	return rc;
}

static int
gate_flush(struct rte_eth_dev *dev, struct rte_flow_error *err)
{
	int rc = gate_enter(dev, TALLY_PORT_SOFT, err);

	if (rc != 0)
		return rc;
	rc = tally_flow_flush(dev, err);
	tally_port_leave(dev);
	return rc;
}

static int
gate_isolate(struct rte_eth_dev *dev, int set, struct rte_flow_error *err)
{
	int rc = gate_enter(dev, TALLY_PORT_DEVICE, err);

	if (rc != 0)
		return rc;
	rc = tally_flow_isolate(dev, set, err);
	tally_port_leave(dev);
	return rc;
}

static int
gate_dev_dump(struct rte_eth_dev *dev, struct rte_flow *flow, FILE *f,
	      struct rte_flow_error *err)
{
	int rc = gate_enter(dev, TALLY_PORT_DEVICE, err);

	if (rc != 0)
		return rc;
	if (tally_flow_is_xfer(flow)) {
		rc = tally_flow_xfer_dump(dev, flow, f, err);
	} else {
		rc = tally_flow_dump(dev, flow, f, err);
		if (rc == 0 && flow == NULL)	/* and the transfer rules made here */
			rc = tally_flow_xfer_dump(dev, NULL, f, err);
	}
	tally_port_leave(dev);
	return rc;
}

static int
gate_get_aged_flows(struct rte_eth_dev *dev, void **contexts, uint32_t n,
		    struct rte_flow_error *err)
{
	int rc = gate_enter(dev, TALLY_PORT_DEVICE, err);

	if (rc != 0)
		return rc;
	rc = tally_get_aged_flows(dev, contexts, n, err);
	tally_port_leave(dev);
	return rc;
}

static int
gate_get_q_aged_flows(struct rte_eth_dev *dev, uint32_t queue, void **contexts,
		      uint32_t n, struct rte_flow_error *err)
{
	int rc = gate_enter(dev, TALLY_PORT_DEVICE, err);

	if (rc != 0)
		return rc;
	rc = tally_get_q_aged_flows(dev, queue, contexts, n, err);
	tally_port_leave(dev);
	return rc;
}

static struct rte_flow_action_handle *
gate_handle_create(struct rte_eth_dev *dev, const struct rte_flow_indir_action_conf *conf,
		   const struct rte_flow_action *action, struct rte_flow_error *err)
{
	struct rte_flow_action_handle *h;

	if (gate_enter(dev, TALLY_PORT_DEVICE, err) != 0)
		return NULL;
	h = tally_flow_handle_create(dev, conf, action, err);
	tally_port_leave(dev);
	return h;
}

static int
gate_handle_destroy(struct rte_eth_dev *dev, struct rte_flow_action_handle *h,
		    struct rte_flow_error *err)
{
	int rc = gate_enter(dev, TALLY_PORT_SOFT, err);

	if (rc != 0)
		return rc;
	rc = tally_flow_handle_destroy(dev, h, err);
	tally_port_leave(dev);
	return rc;
}

static int
gate_handle_update(struct rte_eth_dev *dev, struct rte_flow_action_handle *h,
		   const void *update, struct rte_flow_error *err)
{
	int rc = gate_enter(dev, TALLY_PORT_DEVICE, err);

	if (rc != 0)
		return rc;
	rc = tally_flow_handle_update(dev, h, update, err);
	tally_port_leave(dev);
	return rc;
}

static int
gate_handle_query(struct rte_eth_dev *dev, const struct rte_flow_action_handle *h,
		  void *data, struct rte_flow_error *err)
{
	int rc = gate_enter(dev, TALLY_PORT_DEVICE, err);

	if (rc != 0)
		return rc;
	rc = tally_flow_handle_query(dev, h, data, err);
	tally_port_leave(dev);
	return rc;
}

static int
gate_info_get(struct rte_eth_dev *dev, struct rte_flow_port_info *pi,
	      struct rte_flow_queue_info *qi, struct rte_flow_error *err)
{
	int rc = gate_enter(dev, TALLY_PORT_DEVICE, err);

	if (rc != 0)
		return rc;
	rc = tally_flow_info_get(dev, pi, qi, err);
	tally_port_leave(dev);
	return rc;
}

static int
gate_configure(struct rte_eth_dev *dev, const struct rte_flow_port_attr *pa,
	       uint16_t nb_queue, const struct rte_flow_queue_attr *qa[],
	       struct rte_flow_error *err)
{
	int rc = gate_enter(dev, TALLY_PORT_DEVICE, err);

	if (rc != 0)
		return rc;
	rc = tally_flow_configure(dev, pa, nb_queue, qa, err);
	tally_port_leave(dev);
	return rc;
}

static struct rte_flow_pattern_template *
gate_pt_create(struct rte_eth_dev *dev, const struct rte_flow_pattern_template_attr *attr,
	       const struct rte_flow_item pattern[], struct rte_flow_error *err)
{
	struct rte_flow_pattern_template *pt;

	if (gate_enter(dev, TALLY_PORT_DEVICE, err) != 0)
		return NULL;
	pt = tally_flow_pt_create(dev, attr, pattern, err);
	tally_port_leave(dev);
	return pt;
}

static int
gate_pt_destroy(struct rte_eth_dev *dev, struct rte_flow_pattern_template *pt,
		struct rte_flow_error *err)
{
	int rc = gate_enter(dev, TALLY_PORT_SOFT, err);

	if (rc != 0)
		return rc;
	rc = tally_flow_pt_destroy(dev, pt, err);
	tally_port_leave(dev);
	return rc;
}

static struct rte_flow_actions_template *
gate_at_create(struct rte_eth_dev *dev, const struct rte_flow_actions_template_attr *attr,
	       const struct rte_flow_action actions[], const struct rte_flow_action masks[],
	       struct rte_flow_error *err)
{
	struct rte_flow_actions_template *at;

	if (gate_enter(dev, TALLY_PORT_DEVICE, err) != 0)
		return NULL;
	at = tally_flow_at_create(dev, attr, actions, masks, err);
	tally_port_leave(dev);
	return at;
}

static int
gate_at_destroy(struct rte_eth_dev *dev, struct rte_flow_actions_template *at,
		struct rte_flow_error *err)
{
	int rc = gate_enter(dev, TALLY_PORT_SOFT, err);

	if (rc != 0)
		return rc;
	rc = tally_flow_at_destroy(dev, at, err);
	tally_port_leave(dev);
	return rc;
}

static struct rte_flow_template_table *
gate_table_create(struct rte_eth_dev *dev, const struct rte_flow_template_table_attr *attr,
		  struct rte_flow_pattern_template *pts[], uint8_t nb_pts,
		  struct rte_flow_actions_template *ats[], uint8_t nb_ats,
		  struct rte_flow_error *err)
{
	struct rte_flow_template_table *tb;

	if (gate_enter(dev, TALLY_PORT_DEVICE, err) != 0)
		return NULL;
	tb = tally_flow_table_create(dev, attr, pts, nb_pts, ats, nb_ats, err);
	tally_port_leave(dev);
	return tb;
}

static int
gate_table_destroy(struct rte_eth_dev *dev, struct rte_flow_template_table *tb,
		   struct rte_flow_error *err)
{
	int rc = gate_enter(dev, TALLY_PORT_SOFT, err);

	if (rc != 0)
		return rc;
	rc = tally_flow_table_destroy(dev, tb, err);
	tally_port_leave(dev);
	return rc;
}

/* ---- the table ------------------------------------------------------------- */

/* The async fast path: members of rte_flow_ops on 22.11, of rte_flow_fp_ops
 * (with the ones this driver refuses, tally_compat.h) from 24.03. */
#define TALLY_FLOW_FP_OPS						\
	.async_create = tally_flow_async_create,			\
	.async_destroy = tally_flow_async_destroy,			\
	.push = tally_flow_push,					\
	.pull = tally_flow_pull,					\
	.async_action_handle_create = tally_flow_async_ah_create,	\
	.async_action_handle_destroy = tally_flow_async_ah_destroy,	\
	.async_action_handle_update = tally_flow_async_ah_update,	\
	.async_action_handle_query = tally_flow_async_ah_query

static const struct rte_flow_ops tally_flow_ops = {
	.validate = gate_validate,
	.create = tally_flow_create,
	.destroy = tally_flow_destroy,
	.flush = gate_flush,
	.query = tally_flow_query_any,
	.isolate = gate_isolate,
	.dev_dump = gate_dev_dump,
	.get_aged_flows = gate_get_aged_flows,
	.get_q_aged_flows = gate_get_q_aged_flows,
	.action_handle_create = gate_handle_create,
	.action_handle_destroy = gate_handle_destroy,
	.action_handle_update = gate_handle_update,
	.action_handle_query = gate_handle_query,
	.info_get = gate_info_get,
	.configure = gate_configure,
	.pattern_template_create = gate_pt_create,
	.pattern_template_destroy = gate_pt_destroy,
	.actions_template_create = gate_at_create,
	.actions_template_destroy = gate_at_destroy,
	.template_table_create = gate_table_create,
	.template_table_destroy = gate_table_destroy,
	.pick_transfer_proxy = tally_flow_xfer_proxy,
#if !TALLY_FLOW_FP_OWN_TABLE
	TALLY_FLOW_FP_OPS,
#endif
};

#if TALLY_FLOW_FP_OWN_TABLE
static const struct rte_flow_fp_ops tally_flow_fp_ops = {
	TALLY_FLOW_FP_OPS,
	TALLY_COMPAT_FLOW_FP_REFUSED,
};
#endif

int
tally_flow_ops_get(struct rte_eth_dev *dev, const struct rte_flow_ops **ops)
{
	RTE_SET_USED(dev);
	*ops = &tally_flow_ops;
	return 0;
}

void
tally_flow_async_attach(struct rte_eth_dev *dev)
{
#if TALLY_FLOW_FP_OWN_TABLE
	dev->flow_fp_ops = &tally_flow_fp_ops;
#else
	RTE_SET_USED(dev);
#endif
}
