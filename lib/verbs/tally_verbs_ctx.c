/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Devices and contexts: the device list, ibv_open_device/ibv_close_device,
 * the struct verbs_context every context is the tail of, and its ops table
 * (the ops the device does not implement: tally_verbs_dummy.c).
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

void
tally_verbs_context_ops_init(struct tally_verbs_ctx *c)
{
	struct tally_verbs_context *v = &c->vctx;
	struct ibv_context_ops *o = &v->context.ops;

	tally_verbs_dummy_ops_init(v);	/* what the device does not do */
	v->query_port = tally_verbs_query_port;
	v->read_counters = tally_verbs_read_counters;
	v->attach_counters_point_flow = tally_verbs_attach_counters_point_flow;
	v->create_counters = tally_verbs_create_counters;
	v->destroy_counters = tally_verbs_destroy_counters;
	v->create_cq_ex = tally_verbs_create_cq_ex;
	v->query_device_ex = tally_verbs_query_device_ex;
	v->ibv_destroy_flow = tally_verbs_destroy_flow;
	v->ibv_create_flow = tally_verbs_create_flow;
	v->create_qp_ex = tally_verbs_create_qp_ex;
	v->sz = sizeof(*v);
	o->poll_cq = tally_verbs_poll_cq;
	o->req_notify_cq = tally_verbs_req_notify_cq;
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

const char *
ibv_get_device_name(struct ibv_device *device)
{
	if (tally_verbs_device_of(device) == NULL) {
		errno = EINVAL;
		return NULL;
	}
	return device->name;
}

__be64
ibv_get_device_guid(struct ibv_device *device)
{
	struct tally_verbs_device *d = tally_verbs_device_of(device);

	if (d == NULL) {
		errno = EINVAL;
		return 0;
	}
	return d->guid;
}

/*
 * The stable index of a device: its ethdev port id, the number in its name
 * (tally_<port id>). -1 (errno EINVAL) for a device that is not ours.
 */
int
ibv_get_device_index(struct ibv_device *device)
{
	struct tally_verbs_device *d = tally_verbs_device_of(device);

	if (d == NULL) {
		errno = EINVAL;
		return -1;
	}
	return d->port->port_id;
}

struct ibv_context *
ibv_open_device(struct ibv_device *device)
{
	struct tally_verbs_device *d = tally_verbs_device_of(device);
	struct tally_verbs_ctx *c;

	if (d == NULL) {
		errno = EINVAL;
		return NULL;
	}
	c = tally_verbs_handle_new(sizeof(*c), NULL);
	if (c == NULL)
		return NULL;
	c->dev = d;
	c->port_id = c->dev->port->port_id;
	tally_verbs_context_ops_init(c);
	c->vctx.context.device = device;
	c->vctx.context.cmd_fd = -1;
	c->vctx.context.async_fd = -1;
	c->vctx.context.num_comp_vectors = 1;
	pthread_mutex_init(&c->vctx.context.mutex, NULL);
	tally_verbs_handle_publish(c, TALLY_VERBS_T_CTX);
	return &c->vctx.context;
}

/*
 * Closing a context with objects still alive succeeds, as in rdma-core;
 * those objects keep the context's memory (and so the ops the inline verbs
 * dispatch through) until they are destroyed, but nothing new can be
 * created on it. 0, or -1 with errno EINVAL for a context that is not open.
 */
int
ibv_close_device(struct ibv_context *context)
{
	struct tally_verbs_ctx *c = tally_verbs_ctx_of(context);

	if (c == NULL || !tally_verbs_handle_kill(c, TALLY_VERBS_T_CTX)) {
		errno = EINVAL;
		return -1;
	}
	tally_verbs_handle_put(c);
	return 0;
}

int
tally_verbs_port_id(struct ibv_context *context, uint16_t *port_id)
{
	struct tally_verbs_ctx *c = tally_verbs_ctx_of(context);

	if (c == NULL || port_id == NULL)
		return EINVAL;
	*port_id = c->port_id;
	return 0;
}

/* fork() needs no care: the device never reads or writes registered
 * memory (the data path copies between it and mbufs), so a child's
 * copy-on-write pages cannot be lost to it. As libibverbs on a kernel with
 * copy-on-fork: ibv_fork_init succeeds, and the status is UNNEEDED. */
int
ibv_fork_init(void)
{
	return 0;
}

enum ibv_fork_status
ibv_is_fork_initialized(void)
{
	return IBV_FORK_UNNEEDED;
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
	errno = TALLY_VERBS_UNSUP(tally_verbs_ctx_of, context);
	return -1;
}

void
ibv_ack_async_event(struct ibv_async_event *event)
{
}
