/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Template and asynchronous rte_flow callbacks.
 *
 * ethdev calls several of these without checking for NULL, so each exists
 * and fails cleanly with ENOTSUP and a message until the template engine is
 * implemented. The synchronous API (tally_flow.c) covers every rule these
 * would create.
 */
#include <rte_flow_driver.h>

#include "tally_flow.h"

#define NOT_YET	"template/async flow API is not supported by this port yet; use rte_flow_create"

static int
not_yet(struct rte_flow_error *err)
{
	return rte_flow_error_set(err, ENOTSUP, RTE_FLOW_ERROR_TYPE_UNSPECIFIED,
				   NULL, NOT_YET);
}

static int
t_info_get(struct rte_eth_dev *dev, struct rte_flow_port_info *pi,
	   struct rte_flow_queue_info *qi, struct rte_flow_error *err)
{
	return not_yet(err);
}

static int
t_configure(struct rte_eth_dev *dev, const struct rte_flow_port_attr *pa,
	    uint16_t nb_queue, const struct rte_flow_queue_attr *qa[],
	    struct rte_flow_error *err)
{
	return not_yet(err);
}

static struct rte_flow_pattern_template *
t_pt_create(struct rte_eth_dev *dev, const struct rte_flow_pattern_template_attr *a,
	    const struct rte_flow_item pattern[], struct rte_flow_error *err)
{
	not_yet(err);
	return NULL;
}

static int
t_pt_destroy(struct rte_eth_dev *dev, struct rte_flow_pattern_template *pt,
	     struct rte_flow_error *err)
{
	return not_yet(err);
}

static struct rte_flow_actions_template *
t_at_create(struct rte_eth_dev *dev, const struct rte_flow_actions_template_attr *a,
	    const struct rte_flow_action actions[],
	    const struct rte_flow_action masks[], struct rte_flow_error *err)
{
	not_yet(err);
	return NULL;
}

static int
t_at_destroy(struct rte_eth_dev *dev, struct rte_flow_actions_template *at,
	     struct rte_flow_error *err)
{
	return not_yet(err);
}

static struct rte_flow_template_table *
t_table_create(struct rte_eth_dev *dev, const struct rte_flow_template_table_attr *a,
	       struct rte_flow_pattern_template *pt[], uint8_t npt,
	       struct rte_flow_actions_template *at[], uint8_t nat,
	       struct rte_flow_error *err)
{
	not_yet(err);
	return NULL;
}

static int
t_table_destroy(struct rte_eth_dev *dev, struct rte_flow_template_table *t,
		struct rte_flow_error *err)
{
	return not_yet(err);
}

static struct rte_flow *
t_async_create(struct rte_eth_dev *dev, uint32_t queue,
	       const struct rte_flow_op_attr *op, struct rte_flow_template_table *t,
	       const struct rte_flow_item pattern[], uint8_t pti,
	       const struct rte_flow_action actions[], uint8_t ati,
	       void *user_data, struct rte_flow_error *err)
{
	not_yet(err);
	return NULL;
}

static int
t_async_destroy(struct rte_eth_dev *dev, uint32_t queue,
		const struct rte_flow_op_attr *op, struct rte_flow *flow,
		void *user_data, struct rte_flow_error *err)
{
	return not_yet(err);
}

static int
t_push(struct rte_eth_dev *dev, uint32_t queue, struct rte_flow_error *err)
{
	return not_yet(err);
}

static int
t_pull(struct rte_eth_dev *dev, uint32_t queue, struct rte_flow_op_result res[],
       uint16_t n, struct rte_flow_error *err)
{
	return not_yet(err);
}

static struct rte_flow_action_handle *
t_ah_create(struct rte_eth_dev *dev, uint32_t queue,
	    const struct rte_flow_op_attr *op,
	    const struct rte_flow_indir_action_conf *conf,
	    const struct rte_flow_action *action, void *user_data,
	    struct rte_flow_error *err)
{
	not_yet(err);
	return NULL;
}

static int
t_ah_destroy(struct rte_eth_dev *dev, uint32_t queue,
	     const struct rte_flow_op_attr *op, struct rte_flow_action_handle *h,
	     void *user_data, struct rte_flow_error *err)
{
	return not_yet(err);
}

static int
t_ah_update(struct rte_eth_dev *dev, uint32_t queue,
	    const struct rte_flow_op_attr *op, struct rte_flow_action_handle *h,
	    const void *update, void *user_data, struct rte_flow_error *err)
{
	return not_yet(err);
}

static int
t_ah_query(struct rte_eth_dev *dev, uint32_t queue,
	   const struct rte_flow_op_attr *op, const struct rte_flow_action_handle *h,
	   void *data, void *user_data, struct rte_flow_error *err)
{
	return not_yet(err);
}

void
tally_flow_async_ops_fill(struct rte_flow_ops *ops)
{
	ops->info_get = t_info_get;
	ops->configure = t_configure;
	ops->pattern_template_create = t_pt_create;
	ops->pattern_template_destroy = t_pt_destroy;
	ops->actions_template_create = t_at_create;
	ops->actions_template_destroy = t_at_destroy;
	ops->template_table_create = t_table_create;
	ops->template_table_destroy = t_table_destroy;
	ops->async_create = t_async_create;
	ops->async_destroy = t_async_destroy;
	ops->push = t_push;
	ops->pull = t_pull;
	ops->async_action_handle_create = t_ah_create;
	ops->async_action_handle_destroy = t_ah_destroy;
	ops->async_action_handle_update = t_ah_update;
	ops->async_action_handle_query = t_ah_query;
}
