/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The rte_flow control ops as ethdev calls them: each enters the port
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
#include <rte_flow_driver.h>

#include "tally_ethdev.h"
#include "tally_flow.h"
#include "tally_flow_priv.h"

/* The engine's ops, as tally_flow.c and the template files filled them. */
static struct rte_flow_ops inner;

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
	rc = inner.validate(dev, attr, pattern, actions, err);
	tally_port_leave(dev);
	return rc;
}

static int
gate_flush(struct rte_eth_dev *dev, struct rte_flow_error *err)
{
	int rc = gate_enter(dev, TALLY_PORT_SOFT, err);

	if (rc != 0)
		return rc;
	rc = inner.flush(dev, err);
	tally_port_leave(dev);
	return rc;
}

static int
gate_isolate(struct rte_eth_dev *dev, int set, struct rte_flow_error *err)
{
	int rc = gate_enter(dev, TALLY_PORT_DEVICE, err);

	if (rc != 0)
		return rc;
	rc = inner.isolate(dev, set, err);
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
	rc = inner.dev_dump(dev, flow, f, err);
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
	rc = inner.get_aged_flows(dev, contexts, n, err);
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
	rc = inner.get_q_aged_flows(dev, queue, contexts, n, err);
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
	h = inner.action_handle_create(dev, conf, action, err);
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
	rc = inner.action_handle_destroy(dev, h, err);
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
	rc = inner.action_handle_update(dev, h, update, err);
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
	rc = inner.action_handle_query(dev, h, data, err);
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
	rc = inner.info_get(dev, pi, qi, err);
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
	rc = inner.configure(dev, pa, nb_queue, qa, err);
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
	pt = inner.pattern_template_create(dev, attr, pattern, err);
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
	rc = inner.pattern_template_destroy(dev, pt, err);
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
	at = inner.actions_template_create(dev, attr, actions, masks, err);
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
	rc = inner.actions_template_destroy(dev, at, err);
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
	tb = inner.template_table_create(dev, attr, pts, nb_pts, ats, nb_ats, err);
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
	rc = inner.template_table_destroy(dev, tb, err);
	tally_port_leave(dev);
	return rc;
}

void
tally_flow_gate_ops(struct rte_flow_ops *ops)
{
	inner = *ops;
	ops->validate = gate_validate;
	ops->flush = gate_flush;
	ops->isolate = gate_isolate;
	ops->dev_dump = gate_dev_dump;
	ops->get_aged_flows = gate_get_aged_flows;
	ops->get_q_aged_flows = gate_get_q_aged_flows;
	ops->action_handle_create = gate_handle_create;
	ops->action_handle_destroy = gate_handle_destroy;
	ops->action_handle_update = gate_handle_update;
	ops->action_handle_query = gate_handle_query;
	ops->info_get = gate_info_get;
	ops->configure = gate_configure;
	ops->pattern_template_create = gate_pt_create;
	ops->pattern_template_destroy = gate_pt_destroy;
	ops->actions_template_create = gate_at_create;
	ops->actions_template_destroy = gate_at_destroy;
	ops->template_table_create = gate_table_create;
	ops->template_table_destroy = gate_table_destroy;
}
