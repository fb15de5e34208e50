/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Devices and contexts: the device list, ibv_open_device/ibv_close_device,
 * the struct verbs_context every context is the tail of, and its ops table
 * (unimplemented ops answer EOPNOTSUPP, like libibverbs' dummy_ops.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_ethdev.h>

#include "tally_verbs_priv.h"

/* ---- the layout of struct verbs_context ----------------------------------- */

#define TV_DIST(type, f)	(sizeof(type) - offsetof(type, f))
#define TV_SAME_DIST(f)							\
	_Static_assert(TV_DIST(struct tally_verbs_context, f) ==		\
		       TV_DIST(struct verbs_context, f),			\
		       "verbs_context field " #f " moved")

_Static_assert(sizeof(struct tally_verbs_context) == 696, "rdma-core 65 size");
_Static_assert(offsetof(struct tally_verbs_context, query_port) == 48, "v65");
_Static_assert(offsetof(struct tally_verbs_context, read_counters) == 72, "v65");
_Static_assert(offsetof(struct tally_verbs_context, ibv_create_flow) == 288, "v65");
_Static_assert(offsetof(struct tally_verbs_context, sz) == 360, "v65");
_Static_assert(offsetof(struct tally_verbs_context, context) == 368, "v65");
_Static_assert(sizeof(struct ibv_context) == 328, "ibv_context");
TV_SAME_DIST(query_port);
TV_SAME_DIST(advise_mr);
TV_SAME_DIST(alloc_null_mr);
TV_SAME_DIST(read_counters);
TV_SAME_DIST(attach_counters_point_flow);
TV_SAME_DIST(create_counters);
TV_SAME_DIST(destroy_counters);
TV_SAME_DIST(reg_dm_mr);
TV_SAME_DIST(alloc_dm);
TV_SAME_DIST(free_dm);
TV_SAME_DIST(modify_flow_action_esp);
TV_SAME_DIST(destroy_flow_action);
TV_SAME_DIST(create_flow_action_esp);
TV_SAME_DIST(modify_qp_rate_limit);
TV_SAME_DIST(alloc_parent_domain);
TV_SAME_DIST(dealloc_td);
TV_SAME_DIST(alloc_td);
TV_SAME_DIST(modify_cq);
TV_SAME_DIST(post_srq_ops);
TV_SAME_DIST(destroy_rwq_ind_table);
TV_SAME_DIST(create_rwq_ind_table);
TV_SAME_DIST(destroy_wq);
TV_SAME_DIST(modify_wq);
TV_SAME_DIST(create_wq);
TV_SAME_DIST(query_rt_values);
TV_SAME_DIST(create_cq_ex);
TV_SAME_DIST(priv);
TV_SAME_DIST(query_device_ex);
TV_SAME_DIST(ibv_destroy_flow);
TV_SAME_DIST(ABI_placeholder2);
TV_SAME_DIST(ibv_create_flow);
TV_SAME_DIST(ABI_placeholder1);
TV_SAME_DIST(open_qp);
TV_SAME_DIST(create_qp_ex);
TV_SAME_DIST(get_srq_num);
TV_SAME_DIST(create_srq_ex);
TV_SAME_DIST(open_xrcd);
TV_SAME_DIST(close_xrcd);
TV_SAME_DIST(_ABI_placeholder3);
TV_SAME_DIST(sz);
TV_SAME_DIST(context);

/* ---- dummy ops (exact prototypes) ------------------------------------------ */

#define DUMMY_INT(name, ...)						\
	static int dummy_##name(__VA_ARGS__) { return EOPNOTSUPP; }
#define DUMMY_PTR(type, name, ...)					\
	static type *dummy_##name(__VA_ARGS__) { errno = EOPNOTSUPP; return NULL; }

DUMMY_INT(advise_mr, struct ibv_pd *pd, enum ibv_advise_mr_advice advice,
	  uint32_t flags, struct ibv_sge *sg_list, uint32_t num_sges)
DUMMY_PTR(struct ibv_mr, alloc_null_mr, struct ibv_pd *pd)
DUMMY_PTR(struct ibv_mr, reg_dm_mr, struct ibv_pd *pd, struct ibv_dm *dm,
	  uint64_t dm_offset, size_t length, unsigned int access)
DUMMY_PTR(struct ibv_dm, alloc_dm, struct ibv_context *context,
	  struct ibv_alloc_dm_attr *attr)
DUMMY_INT(free_dm, struct ibv_dm *dm)
DUMMY_INT(modify_flow_action_esp, struct ibv_flow_action *action,
	  struct ibv_flow_action_esp_attr *attr)
DUMMY_INT(destroy_flow_action, struct ibv_flow_action *action)
DUMMY_PTR(struct ibv_flow_action, create_flow_action_esp,
	  struct ibv_context *context, struct ibv_flow_action_esp_attr *attr)
DUMMY_INT(modify_qp_rate_limit, struct ibv_qp *qp,
	  struct ibv_qp_rate_limit_attr *attr)
DUMMY_PTR(struct ibv_pd, alloc_parent_domain, struct ibv_context *context,
	  struct ibv_parent_domain_init_attr *attr)
DUMMY_INT(dealloc_td, struct ibv_td *td)
DUMMY_PTR(struct ibv_td, alloc_td, struct ibv_context *context,
	  struct ibv_td_init_attr *init_attr)
DUMMY_INT(modify_cq, struct ibv_cq *cq, struct ibv_modify_cq_attr *attr)
DUMMY_INT(post_srq_ops, struct ibv_srq *srq, struct ibv_ops_wr *op,
	  struct ibv_ops_wr **bad_op)
DUMMY_INT(destroy_rwq_ind_table, struct ibv_rwq_ind_table *t)
DUMMY_PTR(struct ibv_rwq_ind_table, create_rwq_ind_table,
	  struct ibv_context *context, struct ibv_rwq_ind_table_init_attr *a)
DUMMY_INT(destroy_wq, struct ibv_wq *wq)
DUMMY_INT(modify_wq, struct ibv_wq *wq, struct ibv_wq_attr *wq_attr)
DUMMY_PTR(struct ibv_wq, create_wq, struct ibv_context *context,
	  struct ibv_wq_init_attr *a)
DUMMY_INT(query_rt_values, struct ibv_context *context,
	  struct ibv_values_ex *values)
DUMMY_PTR(struct ibv_qp, open_qp, struct ibv_context *context,
	  struct ibv_qp_open_attr *attr)
DUMMY_INT(get_srq_num, struct ibv_srq *srq, uint32_t *srq_num)
DUMMY_PTR(struct ibv_srq, create_srq_ex, struct ibv_context *context,
	  struct ibv_srq_init_attr_ex *a)
DUMMY_PTR(struct ibv_xrcd, open_xrcd, struct ibv_context *context,
	  struct ibv_xrcd_init_attr *a)
DUMMY_INT(close_xrcd, struct ibv_xrcd *xrcd)
DUMMY_PTR(struct ibv_mw, alloc_mw, struct ibv_pd *pd, enum ibv_mw_type type)
DUMMY_INT(bind_mw, struct ibv_qp *qp, struct ibv_mw *mw,
	  struct ibv_mw_bind *mw_bind)
DUMMY_INT(dealloc_mw, struct ibv_mw *mw)
DUMMY_INT(post_srq_recv, struct ibv_srq *srq, struct ibv_recv_wr *wr,
	  struct ibv_recv_wr **bad)

void
tally_verbs_context_ops_init(struct tally_verbs_ctx *c)
{
	struct tally_verbs_context *v = &c->vctx;
	struct ibv_context_ops *o = &v->context.ops;

	v->query_port = tally_verbs_query_port;
	v->advise_mr = dummy_advise_mr;
	v->alloc_null_mr = dummy_alloc_null_mr;
	v->read_counters = tally_verbs_read_counters;
	v->attach_counters_point_flow = tally_verbs_attach_counters_point_flow;
	v->create_counters = tally_verbs_create_counters;
	v->destroy_counters = tally_verbs_destroy_counters;
	v->reg_dm_mr = dummy_reg_dm_mr;
	v->alloc_dm = dummy_alloc_dm;
	v->free_dm = dummy_free_dm;
	v->modify_flow_action_esp = dummy_modify_flow_action_esp;
	v->destroy_flow_action = dummy_destroy_flow_action;
	v->create_flow_action_esp = dummy_create_flow_action_esp;
	v->modify_qp_rate_limit = dummy_modify_qp_rate_limit;
	v->alloc_parent_domain = dummy_alloc_parent_domain;
	v->dealloc_td = dummy_dealloc_td;
	v->alloc_td = dummy_alloc_td;
	v->modify_cq = dummy_modify_cq;
	v->post_srq_ops = dummy_post_srq_ops;
	v->destroy_rwq_ind_table = dummy_destroy_rwq_ind_table;
	v->create_rwq_ind_table = dummy_create_rwq_ind_table;
	v->destroy_wq = dummy_destroy_wq;
	v->modify_wq = dummy_modify_wq;
	v->create_wq = dummy_create_wq;
	v->query_rt_values = dummy_query_rt_values;
	v->create_cq_ex = tally_verbs_create_cq_ex;
	v->query_device_ex = tally_verbs_query_device_ex;
	v->ibv_destroy_flow = tally_verbs_destroy_flow;
	v->ibv_create_flow = tally_verbs_create_flow;
	v->open_qp = dummy_open_qp;
	v->create_qp_ex = tally_verbs_create_qp_ex;
	v->get_srq_num = dummy_get_srq_num;
	v->create_srq_ex = dummy_create_srq_ex;
	v->open_xrcd = dummy_open_xrcd;
	v->close_xrcd = dummy_close_xrcd;
	v->sz = sizeof(*v);
	o->alloc_mw = dummy_alloc_mw;
	o->bind_mw = dummy_bind_mw;
	o->dealloc_mw = dummy_dealloc_mw;
	o->poll_cq = tally_verbs_poll_cq;
	o->req_notify_cq = tally_verbs_req_notify_cq;
	o->post_srq_recv = dummy_post_srq_recv;
	o->post_send = tally_verbs_post_send;
	o->post_recv = tally_verbs_post_recv;
	v->context.abi_compat = (void *)UINTPTR_MAX;
}

/* ---- device list ------------------------------------------------------------ */

struct ibv_device **
ibv_get_device_list(int *num_devices)
{
	struct ibv_device **list;
	unsigned int i, n;
	int rc;

	rc = tally_verbs_env_init();
	if (rc) {
		errno = -rc;
		return NULL;
	}
	n = tally_verbs_nb_devices();
	list = calloc(n + 1, sizeof(*list));
	if (list == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	for (i = 0; i < n; i++)
		list[i] = &tally_verbs_device(i)->ibdev;
	if (num_devices != NULL)
		*num_devices = (int)n;
	return list;
}

void
ibv_free_device_list(struct ibv_device **list)
{
	free(list);
}

static struct tally_verbs_device *
to_tally_device(struct ibv_device *d)
{
	return TALLY_VERBS_CONTAINER(d, struct tally_verbs_device, ibdev);
}

const char *
ibv_get_device_name(struct ibv_device *device)
{
	return device != NULL ? device->name : NULL;
}

__be64
ibv_get_device_guid(struct ibv_device *device)
{
	return to_tally_device(device)->guid;
}

struct ibv_context *
ibv_open_device(struct ibv_device *device)
{
	struct tally_verbs_ctx *c;

	if (device == NULL) {
		errno = EINVAL;
		return NULL;
	}
	c = calloc(1, sizeof(*c));
	if (c == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	c->dev = to_tally_device(device);
	c->port_id = c->dev->port->port_id;
	tally_verbs_context_ops_init(c);
	c->vctx.context.device = device;
	c->vctx.context.cmd_fd = -1;
	c->vctx.context.async_fd = -1;
	c->vctx.context.num_comp_vectors = 1;
	pthread_mutex_init(&c->vctx.context.mutex, NULL);
	return &c->vctx.context;
}

int
ibv_close_device(struct ibv_context *context)
{
	struct tally_verbs_ctx *c = to_tally_ctx(context);

	pthread_mutex_destroy(&context->mutex);
	free(c);
	return 0;
}

int
tally_verbs_port_id(struct ibv_context *context, uint16_t *port_id)
{
	if (context == NULL || port_id == NULL)
		return EINVAL;
	*port_id = to_tally_ctx(context)->port_id;
	return 0;
}

int
ibv_fork_init(void)
{
	return 0;
}

const char *
ibv_wc_status_str(enum ibv_wc_status status)
{
	static const char *const s[] = {
		[IBV_WC_SUCCESS] = "success",
		[IBV_WC_LOC_LEN_ERR] = "local length error",
		[IBV_WC_LOC_QP_OP_ERR] = "local QP operation error",
		[IBV_WC_LOC_PROT_ERR] = "local protection error",
		[IBV_WC_WR_FLUSH_ERR] = "Work Request Flushed Error",
		[IBV_WC_GENERAL_ERR] = "general error",
	};

	if ((unsigned int)status < sizeof(s) / sizeof(s[0]) && s[status] != NULL)
		return s[status];
	return "unknown";
}

const char *
ibv_port_state_str(enum ibv_port_state port_state)
{
	static const char *const s[] = {
		"PORT_NOP", "PORT_DOWN", "PORT_INIT", "PORT_ARMED",
		"PORT_ACTIVE", "PORT_ACTIVE_DEFER",
	};

	if ((unsigned int)port_state < sizeof(s) / sizeof(s[0]))
		return s[port_state];
	return "invalid state";
}

const char *
ibv_node_type_str(enum ibv_node_type node_type)
{
	return node_type == IBV_NODE_CA ? "InfiniBand channel adapter" : "unknown";
}

int
ibv_get_async_event(struct ibv_context *context, struct ibv_async_event *event)
{
	errno = EOPNOTSUPP;
	return -1;
}

void
ibv_ack_async_event(struct ibv_async_event *event)
{
}
