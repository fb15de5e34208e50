/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Indirect COUNT actions of a port: a counter of the pool that rules name
 * with the INDIRECT action. Rules take references on it (tally_flow_rule.c);
 * it cannot be destroyed while a rule names it.
 */
#include <rte_flow_driver.h>
#include <rte_malloc.h>

#include "tally_pmd.h"
#include "tally_flow.h"
#include "tally_flow_priv.h"

struct rte_flow_action_handle *
tally_flow_handle_create(struct rte_eth_dev *dev,
		    const struct rte_flow_indir_action_conf *conf,
		    const struct rte_flow_action *action,
		    struct rte_flow_error *error)
{
	struct tally_flow_ctx *fc = tally_adapter(dev)->flow;
	struct rte_flow_action_handle *h;
	int ret;

	if (fc == NULL) {
		rte_flow_error_set(error, EIO, RTE_FLOW_ERROR_TYPE_STATE, NULL,
				   "flow engine not available");
		return NULL;
	}
	if (conf != NULL && conf->egress) {
		rte_flow_error_set(error, ENOTSUP, RTE_FLOW_ERROR_TYPE_ATTR, conf,
				   "indirect actions are ingress or transfer");
		return NULL;
	}
	/* a transfer rule counts into port 0's bank: its indirect counts are
	 * port 0's (which its own rules may name too) */
	if (conf != NULL && conf->transfer && fc->xfer == NULL) {
		rte_flow_error_set(error, ENOTSUP, RTE_FLOW_ERROR_TYPE_ATTR, conf,
				   "transfer indirect actions are created on the transfer proxy "
				   "(port 0 of the device)");
		return NULL;
	}
	if (action == NULL || action->type != RTE_FLOW_ACTION_TYPE_COUNT) {
		rte_flow_error_set(error, ENOTSUP, RTE_FLOW_ERROR_TYPE_ACTION, action,
				   "only count can be an indirect action");
		return NULL;
	}
	h = rte_zmalloc("tally_indirect", sizeof(*h), 0);
	if (h == NULL) {
		rte_flow_error_set(error, ENOMEM, RTE_FLOW_ERROR_TYPE_ACTION, action,
				   "no memory for the handle");
		return NULL;
	}
	tally_lock(&fc->lock);
	ret = tally_flow_counter_alloc_locked(fc, &h->counter);
	if (ret) {
		tally_unlock(&fc->lock);
		rte_free(h);
		rte_flow_error_set(error, ENOSPC, RTE_FLOW_ERROR_TYPE_ACTION, action,
				   "counter bank exhausted");
		return NULL;
	}
	h->magic = TALLY_FLOW_HANDLE_MAGIC;
	TAILQ_INSERT_TAIL(&fc->handles, h, next);
	tally_unlock(&fc->lock);
	return h;
}

int
tally_flow_handle_destroy(struct rte_eth_dev *dev,
		     struct rte_flow_action_handle *handle,
		     struct rte_flow_error *error)
{
	struct tally_flow_ctx *fc = tally_adapter(dev)->flow;
	struct rte_flow_action_handle *h;

	if (fc == NULL)
		return rte_flow_error_set(error, ENOENT,
			RTE_FLOW_ERROR_TYPE_HANDLE, handle, "no such indirect action");
	tally_lock(&fc->lock);
	h = tally_flow_handle_check(fc, handle);
	if (h == NULL) {
		tally_unlock(&fc->lock);
		return rte_flow_error_set(error, ENOENT,
			RTE_FLOW_ERROR_TYPE_HANDLE, handle, "no such indirect action");
	}
	if (tally_cnt_refcnt(fc->cnt, h->counter) > 1) {	/* rules use it */
		tally_unlock(&fc->lock);
		return rte_flow_error_set(error, EBUSY,
			RTE_FLOW_ERROR_TYPE_HANDLE, handle,
			"indirect count still used by rules");
	}
	TAILQ_REMOVE(&fc->handles, h, next);
	tally_cnt_free_locked(fc->cnt, h->counter);
	h->magic = 0;
	tally_unlock(&fc->lock);
	rte_free(h);
	return 0;
}

int
tally_flow_handle_update(struct rte_eth_dev *dev,
		    struct rte_flow_action_handle *handle, const void *update,
		    struct rte_flow_error *error)
{
	return rte_flow_error_set(error, ENOTSUP, RTE_FLOW_ERROR_TYPE_ACTION,
				   update, "count has no updatable state (query with reset clears it)");
}

int
tally_flow_handle_query(struct rte_eth_dev *dev,
		   const struct rte_flow_action_handle *handle, void *data,
		   struct rte_flow_error *error)
{
	struct tally_flow_ctx *fc = tally_adapter(dev)->flow;

	if (fc == NULL || handle == NULL || handle->magic != TALLY_FLOW_HANDLE_MAGIC)
		return rte_flow_error_set(error, ENOENT,
			RTE_FLOW_ERROR_TYPE_HANDLE, handle, "no such indirect action");
	if (data == NULL)
		return rte_flow_error_set(error, EINVAL,
			RTE_FLOW_ERROR_TYPE_HANDLE, handle, "no query output buffer");
	return tally_flow_count_query(fc, handle->counter, data);
}
