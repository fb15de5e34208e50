/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The ops of struct verbs_context / ibv_context_ops the device does not
 * implement, with their exact prototypes (like libibverbs' dummy_ops.c).
 *
 * Handles are checked first, as everywhere in the library:
 *  - a call on one of our objects (context, PD, QP, CQ) that is not live:
 *    EINVAL (NULL + errno EINVAL for creators); on a live one: EOPNOTSUPP;
 *  - a call on a kind of object the library never creates (device memory,
 *    WQ, RWQ indirection table, thread domain, SRQ, XRC domain, memory
 *    window, flow action): no such handle can be valid, so EINVAL.
 */
#include "tally_verbs_priv.h"

/* creators on a context or PD: NULL + errno */
#define CREATE(type, name, on, first, ...)				\
	static type *dummy_##name(first, __VA_ARGS__)			\
	{ errno = on; return NULL; }
#define CREATE_ON_CTX(type, name, attr_type)				\
	CREATE(type, name, TALLY_VERBS_UNSUP(tally_verbs_ctx_of, c),	\
	       struct ibv_context *c, attr_type *attr)

CREATE_ON_CTX(struct ibv_dm, alloc_dm, struct ibv_alloc_dm_attr)
CREATE_ON_CTX(struct ibv_flow_action, create_flow_action_esp, struct ibv_flow_action_esp_attr)
CREATE_ON_CTX(struct ibv_pd, alloc_parent_domain, struct ibv_parent_domain_init_attr)
CREATE_ON_CTX(struct ibv_td, alloc_td, struct ibv_td_init_attr)
CREATE_ON_CTX(struct ibv_rwq_ind_table, create_rwq_ind_table, struct ibv_rwq_ind_table_init_attr)
CREATE_ON_CTX(struct ibv_wq, create_wq, struct ibv_wq_init_attr)
CREATE_ON_CTX(struct ibv_qp, open_qp, struct ibv_qp_open_attr)
CREATE_ON_CTX(struct ibv_srq, create_srq_ex, struct ibv_srq_init_attr_ex)
CREATE_ON_CTX(struct ibv_xrcd, open_xrcd, struct ibv_xrcd_init_attr)
CREATE(struct ibv_mw, alloc_mw, TALLY_VERBS_UNSUP(tally_verbs_pd_of, pd), struct ibv_pd *pd,
       enum ibv_mw_type type)

/* dm cannot be ours (the library allocates no device memory) */
static struct ibv_mr *
dummy_reg_dm_mr(struct ibv_pd *pd, struct ibv_dm *dm, uint64_t dm_offset,
		size_t length, unsigned int access)
{
	errno = EINVAL;
	return NULL;
}

static struct ibv_mr *
dummy_alloc_null_mr(struct ibv_pd *pd)
{
	errno = TALLY_VERBS_UNSUP(tally_verbs_pd_of, pd);
	return NULL;
}

static int
dummy_query_rt_values(struct ibv_context *c, struct ibv_values_ex *values)
{
	return TALLY_VERBS_UNSUP(tally_verbs_ctx_of, c);
}

static int
dummy_advise_mr(struct ibv_pd *pd, enum ibv_advise_mr_advice advice,
		uint32_t flags, struct ibv_sge *sg_list, uint32_t num_sges)
{
	return TALLY_VERBS_UNSUP(tally_verbs_pd_of, pd);
}

static int
dummy_modify_qp_rate_limit(struct ibv_qp *qp, struct ibv_qp_rate_limit_attr *attr)
{
	return TALLY_VERBS_UNSUP(tally_verbs_qp_of, qp);
}

static int
dummy_modify_cq(struct ibv_cq *cq, struct ibv_modify_cq_attr *attr)
{
	return TALLY_VERBS_UNSUP(tally_verbs_cq_of, cq);
}

/* objects the library never creates */
#define FOREIGN(name, ...)						\
	static int dummy_##name(__VA_ARGS__) { return EINVAL; }

FOREIGN(free_dm, struct ibv_dm *dm)
FOREIGN(modify_flow_action_esp, struct ibv_flow_action *action,
	struct ibv_flow_action_esp_attr *attr)
FOREIGN(destroy_flow_action, struct ibv_flow_action *action)
FOREIGN(dealloc_td, struct ibv_td *td)
FOREIGN(post_srq_ops, struct ibv_srq *srq, struct ibv_ops_wr *op, struct ibv_ops_wr **bad)
FOREIGN(destroy_rwq_ind_table, struct ibv_rwq_ind_table *t)
FOREIGN(destroy_wq, struct ibv_wq *wq)
FOREIGN(modify_wq, struct ibv_wq *wq, struct ibv_wq_attr *attr)
FOREIGN(get_srq_num, struct ibv_srq *srq, uint32_t *srq_num)
FOREIGN(close_xrcd, struct ibv_xrcd *xrcd)
FOREIGN(bind_mw, struct ibv_qp *qp, struct ibv_mw *mw, struct ibv_mw_bind *bind)
FOREIGN(dealloc_mw, struct ibv_mw *mw)

static int
dummy_post_srq_recv(struct ibv_srq *srq, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad)
{
	if (bad != NULL)
		*bad = wr;
	return EINVAL;
}

void
tally_verbs_dummy_ops_init(struct tally_verbs_context *v)
{
	struct ibv_context_ops *o = &v->context.ops;

	v->advise_mr = dummy_advise_mr;
	v->alloc_null_mr = dummy_alloc_null_mr;
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
	v->open_qp = dummy_open_qp;
	v->get_srq_num = dummy_get_srq_num;
	v->create_srq_ex = dummy_create_srq_ex;
	v->open_xrcd = dummy_open_xrcd;
	v->close_xrcd = dummy_close_xrcd;
	o->alloc_mw = dummy_alloc_mw;
	o->bind_mw = dummy_bind_mw;
	o->dealloc_mw = dummy_dealloc_mw;
	o->post_srq_recv = dummy_post_srq_recv;
}
