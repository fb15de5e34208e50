/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rte_flow in a secondary process: the steering tables and the flow engine
 * belong to the primary (tally_mp.c), so every operation is refused with
 * EPERM and the reason, and none is left NULL (the asynchronous fast path
 * of 22.11 is called without a NULL check). 24.x keeps that fast path in a
 * per-process table whose defaults already refuse.
 */
#include <rte_flow_driver.h>

#include "tally_compat.h"
#include "tally_pmd.h"
#include "tally_flow.h"

#define REFUSED	"rte_flow: only the primary process may do this"

static int
refuse(struct rte_flow_error *err)
{
	return rte_flow_error_set(err, EPERM, RTE_FLOW_ERROR_TYPE_UNSPECIFIED, NULL,
				  REFUSED);
}

static void *
refuse_null(struct rte_flow_error *err)
{
	refuse(err);
	return NULL;
}

static int
r_validate(struct rte_eth_dev *dev, const struct rte_flow_attr *attr,
	   const struct rte_flow_item pattern[], const struct rte_flow_action actions[],
	   struct rte_flow_error *err)
{
	return refuse(err);
}

static struct rte_flow *
r_create(struct rte_eth_dev *dev, const struct rte_flow_attr *attr,
	 const struct rte_flow_item pattern[], const struct rte_flow_action actions[],
	 struct rte_flow_error *err)
{
	return refuse_null(err);
}

static int
r_destroy(struct rte_eth_dev *dev, struct rte_flow *flow, struct rte_flow_error *err)
{
	return refuse(err);
}

static int
r_flush(struct rte_eth_dev *dev, struct rte_flow_error *err)
{
	return refuse(err);
}

static int
r_query(struct rte_eth_dev *dev, struct rte_flow *flow, const struct rte_flow_action *action,
	void *data, struct rte_flow_error *err)
{
	return refuse(err);
}

static int
r_isolate(struct rte_eth_dev *dev, int set, struct rte_flow_error *err)
{
	return refuse(err);
}

static int
r_dev_dump(struct rte_eth_dev *dev, struct rte_flow *flow, FILE *file,
	   struct rte_flow_error *err)
{
	return refuse(err);
}

static int
r_get_aged_flows(struct rte_eth_dev *dev, void **contexts, uint32_t nb,
		 struct rte_flow_error *err)
{
	return refuse(err);
}

static struct rte_flow_action_handle *
r_ah_create(struct rte_eth_dev *dev, const struct rte_flow_indir_action_conf *conf,
	    const struct rte_flow_action *action, struct rte_flow_error *err)
{
	return refuse_null(err);
}

static int
r_ah_destroy(struct rte_eth_dev *dev, struct rte_flow_action_handle *h,
	     struct rte_flow_error *err)
{
	return refuse(err);
}

static int
r_ah_update(struct rte_eth_dev *dev, struct rte_flow_action_handle *h, const void *update,
	    struct rte_flow_error *err)
{
	return refuse(err);
}

static int
r_ah_query(struct rte_eth_dev *dev, const struct rte_flow_action_handle *h, void *data,
	   struct rte_flow_error *err)
{
	return refuse(err);
}

static int
r_info_get(struct rte_eth_dev *dev, struct rte_flow_port_info *pi,
	   struct rte_flow_queue_info *qi, struct rte_flow_error *err)
{
	return refuse(err);
}

static int
r_configure(struct rte_eth_dev *dev, const struct rte_flow_port_attr *pa, uint16_t nq,
	    const struct rte_flow_queue_attr *qa[], struct rte_flow_error *err)
{
	return refuse(err);
}

static struct rte_flow_pattern_template *
r_pt_create(struct rte_eth_dev *dev, const struct rte_flow_pattern_template_attr *a,
	    const struct rte_flow_item pattern[], struct rte_flow_error *err)
{
	return refuse_null(err);
}

static int
r_pt_destroy(struct rte_eth_dev *dev, struct rte_flow_pattern_template *pt,
	     struct rte_flow_error *err)
{
	return refuse(err);
}

static struct rte_flow_actions_template *
r_at_create(struct rte_eth_dev *dev, const struct rte_flow_actions_template_attr *a,
	    const struct rte_flow_action actions[], const struct rte_flow_action masks[],
	    struct rte_flow_error *err)
{
	return refuse_null(err);
}

static int
r_at_destroy(struct rte_eth_dev *dev, struct rte_flow_actions_template *at,
	     struct rte_flow_error *err)
{
	return refuse(err);
}

static struct rte_flow_template_table *
r_tt_create(struct rte_eth_dev *dev, const struct rte_flow_template_table_attr *a,
	    struct rte_flow_pattern_template *pts[], uint8_t npt,
	    struct rte_flow_actions_template *ats[], uint8_t nat,
	    struct rte_flow_error *err)
{
	return refuse_null(err);
}

static int
r_tt_destroy(struct rte_eth_dev *dev, struct rte_flow_template_table *tt,
	     struct rte_flow_error *err)
{
	return refuse(err);
}

#if !TALLY_DPDK_AT_LEAST(24, 3)
static struct rte_flow *
r_async_create(struct rte_eth_dev *dev, uint32_t q, const struct rte_flow_op_attr *oa,
	       struct rte_flow_template_table *tt, const struct rte_flow_item pattern[],
	       uint8_t pi, const struct rte_flow_action actions[], uint8_t ai,
	       void *user_data, struct rte_flow_error *err)
{
	return refuse_null(err);
}

static int
r_async_destroy(struct rte_eth_dev *dev, uint32_t q, const struct rte_flow_op_attr *oa,
		struct rte_flow *flow, void *user_data, struct rte_flow_error *err)
{
	return refuse(err);
}

static int
r_push(struct rte_eth_dev *dev, uint32_t q, struct rte_flow_error *err)
{
	return refuse(err);
}

static int
r_pull(struct rte_eth_dev *dev, uint32_t q, struct rte_flow_op_result res[], uint16_t n,
       struct rte_flow_error *err)
{
	return refuse(err);
}

static struct rte_flow_action_handle *
r_async_ah_create(struct rte_eth_dev *dev, uint32_t q, const struct rte_flow_op_attr *oa,
		  const struct rte_flow_indir_action_conf *conf,
		  const struct rte_flow_action *action, void *user_data,
		  struct rte_flow_error *err)
{
	return refuse_null(err);
}

static int
r_async_ah_destroy(struct rte_eth_dev *dev, uint32_t q, const struct rte_flow_op_attr *oa,
		   struct rte_flow_action_handle *h, void *user_data,
		   struct rte_flow_error *err)
{
	return refuse(err);
}

static int
r_async_ah_update(struct rte_eth_dev *dev, uint32_t q, const struct rte_flow_op_attr *oa,
		  struct rte_flow_action_handle *h, const void *update, void *user_data,
		  struct rte_flow_error *err)
{
	return refuse(err);
}

static int
r_async_ah_query(struct rte_eth_dev *dev, uint32_t q, const struct rte_flow_op_attr *oa,
		 const struct rte_flow_action_handle *h, void *data, void *user_data,
		 struct rte_flow_error *err)
{
	return refuse(err);
}
#endif

static const struct rte_flow_ops tally_flow_ops_refused = {
	.validate = r_validate,
	.create = r_create,
	.destroy = r_destroy,
	.flush = r_flush,
	.query = r_query,
	.isolate = r_isolate,
	.dev_dump = r_dev_dump,
	.get_aged_flows = r_get_aged_flows,
	.action_handle_create = r_ah_create,
	.action_handle_destroy = r_ah_destroy,
	.action_handle_update = r_ah_update,
	.action_handle_query = r_ah_query,
	.info_get = r_info_get,
	.configure = r_configure,
	.pattern_template_create = r_pt_create,
	.pattern_template_destroy = r_pt_destroy,
	.actions_template_create = r_at_create,
	.actions_template_destroy = r_at_destroy,
	.template_table_create = r_tt_create,
	.template_table_destroy = r_tt_destroy,
#if !TALLY_DPDK_AT_LEAST(24, 3)
	.async_create = r_async_create,
	.async_destroy = r_async_destroy,
	.push = r_push,
	.pull = r_pull,
	.async_action_handle_create = r_async_ah_create,
	.async_action_handle_destroy = r_async_ah_destroy,
	.async_action_handle_update = r_async_ah_update,
	.async_action_handle_query = r_async_ah_query,
#endif
};

int
tally_flow_ops_get_secondary(struct rte_eth_dev *dev, const struct rte_flow_ops **ops)
{
	RTE_SET_USED(dev);
	*ops = &tally_flow_ops_refused;
	return 0;
}
