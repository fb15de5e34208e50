/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libtally_verbs internals: a verbs "provider" over Tally ports.
 *
 * Design
 * ======
 * The library sits on the PMD's public API (rte_pmd_tally.h) and ethdev:
 *  - a device is a Tally ethdev port (tally_<port id>), verbs port 1;
 *  - a RAW_PACKET QP is one Rx queue plus one Tx queue of that port; the
 *    data path copies between the user's registered buffers and mbufs;
 *  - a flow (ibv_create_flow, mlx5dv_create_flow) is one raw-key rule
 *    (rte_pmd_tally_rule_create) in the same steering tables as rte_flow;
 *  - an ibv_counters object owns one flow counter of the port's pool that
 *    every flow bound to it names; reads go through tally_cnt_read() (via
 *    rte_pmd_tally_counter_read);
 *  - a completion counter is an entry of the device's completion-counter
 *    bank attached to the QP's Tx (SEND) and/or Rx (RECV) queue.
 *
 * Every ibv_context we return is the tail of a struct tally_verbs_context
 * laid out exactly like rdma-core 65's struct verbs_context (696 bytes,
 * abi_compat = UINTPTR_MAX, sz = 696): the static inline verbs in
 * <infiniband/verbs.h> (v44 or v65) dispatch through it by offset.
 *
 * Threads: control calls take the library lock; the data path (post_send,
 * post_recv, poll_cq) of one QP/CQ must be called by one thread at a time,
 * like the ethdev queues beneath; counter reads are lock-free.
 */
#ifndef TALLY_VERBS_PRIV_H
#define TALLY_VERBS_PRIV_H

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <infiniband/verbs.h>
#include <infiniband/mlx5dv.h>

#include <rte_pmd_tally.h>

#include "tally_verbs.h"

#define TALLY_VERBS_MAX_PORTS		32
#define TALLY_VERBS_MAX_Q		16
#define TALLY_VERBS_NB_DESC		512
#define TALLY_VERBS_MAX_SGE		8
#define TALLY_VERBS_MAX_WR		4096
#define TALLY_VERBS_MAX_CQE		65536
#define TALLY_VERBS_MAX_FRAME		9216
#define TALLY_VERBS_GID_TBL_LEN		2	/* tally_verbs_gid.c */

/*
 * rdma-core 65's struct verbs_context. The v44 header defines a shorter
 * struct verbs_context (648 bytes, without the first six fields); the
 * distance of every field to the end is the same in both, which
 * tally_verbs_ctx.c checks at compile time against the installed header.
 * The six newer ops are left NULL: the inline wrappers of v65 headers then
 * return EOPNOTSUPP themselves.
 */
struct tally_verbs_context {
	void *free_buf;
	void *alloc_buf;
	void *dm_export_dmabuf_fd;
	void *reg_mr_ex;
	void *dealloc_dmah;
	void *alloc_dmah;
	__typeof__(((struct verbs_context *)0)->query_port) query_port;
	__typeof__(((struct verbs_context *)0)->advise_mr) advise_mr;
	__typeof__(((struct verbs_context *)0)->alloc_null_mr) alloc_null_mr;
	__typeof__(((struct verbs_context *)0)->read_counters) read_counters;
	__typeof__(((struct verbs_context *)0)->attach_counters_point_flow)
		attach_counters_point_flow;
	__typeof__(((struct verbs_context *)0)->create_counters) create_counters;
	__typeof__(((struct verbs_context *)0)->destroy_counters) destroy_counters;
	__typeof__(((struct verbs_context *)0)->reg_dm_mr) reg_dm_mr;
	__typeof__(((struct verbs_context *)0)->alloc_dm) alloc_dm;
	__typeof__(((struct verbs_context *)0)->free_dm) free_dm;
	__typeof__(((struct verbs_context *)0)->modify_flow_action_esp)
		modify_flow_action_esp;
	__typeof__(((struct verbs_context *)0)->destroy_flow_action) destroy_flow_action;
	__typeof__(((struct verbs_context *)0)->create_flow_action_esp)
		create_flow_action_esp;
	__typeof__(((struct verbs_context *)0)->modify_qp_rate_limit)
		modify_qp_rate_limit;
	__typeof__(((struct verbs_context *)0)->alloc_parent_domain) alloc_parent_domain;
	__typeof__(((struct verbs_context *)0)->dealloc_td) dealloc_td;
	__typeof__(((struct verbs_context *)0)->alloc_td) alloc_td;
	__typeof__(((struct verbs_context *)0)->modify_cq) modify_cq;
	__typeof__(((struct verbs_context *)0)->post_srq_ops) post_srq_ops;
	__typeof__(((struct verbs_context *)0)->destroy_rwq_ind_table)
		destroy_rwq_ind_table;
	__typeof__(((struct verbs_context *)0)->create_rwq_ind_table)
		create_rwq_ind_table;
	__typeof__(((struct verbs_context *)0)->destroy_wq) destroy_wq;
	__typeof__(((struct verbs_context *)0)->modify_wq) modify_wq;
	__typeof__(((struct verbs_context *)0)->create_wq) create_wq;
	__typeof__(((struct verbs_context *)0)->query_rt_values) query_rt_values;
	__typeof__(((struct verbs_context *)0)->create_cq_ex) create_cq_ex;
	void *priv;
	__typeof__(((struct verbs_context *)0)->query_device_ex) query_device_ex;
	__typeof__(((struct verbs_context *)0)->ibv_destroy_flow) ibv_destroy_flow;
	void (*ABI_placeholder2)(void);
	__typeof__(((struct verbs_context *)0)->ibv_create_flow) ibv_create_flow;
	void (*ABI_placeholder1)(void);
	__typeof__(((struct verbs_context *)0)->open_qp) open_qp;
	__typeof__(((struct verbs_context *)0)->create_qp_ex) create_qp_ex;
	__typeof__(((struct verbs_context *)0)->get_srq_num) get_srq_num;
	__typeof__(((struct verbs_context *)0)->create_srq_ex) create_srq_ex;
	__typeof__(((struct verbs_context *)0)->open_xrcd) open_xrcd;
	__typeof__(((struct verbs_context *)0)->close_xrcd) close_xrcd;
	uint64_t _ABI_placeholder3;
	size_t sz;			/* immediately before context */
	struct ibv_context context;	/* last */
};

#define TALLY_VERBS_CONTAINER(ptr, type, member) \
	((type *)(void *)((char *)(ptr) - offsetof(type, member)))

/* One Tally port as the library sees it. */
struct tally_verbs_port {
	uint16_t port_id;
	bool owned;			/* configured and started by the library */
	uint16_t first_q;		/* queues QPs may take: [first_q, nb_q) */
	uint16_t nb_q;
	bool q_used[TALLY_VERBS_MAX_Q];
	struct rte_mempool *mp;		/* Tx copies (and Rx when owned) */
};

struct tally_verbs_device {
	struct ibv_device ibdev;
	struct tally_verbs_port *port;
	__be64 guid;
};

struct tally_verbs_ctx {
	struct tally_verbs_device *dev;
	uint16_t port_id;
	struct tally_verbs_context vctx;	/* last: context is its tail */
};

/*
 * Handles (tally_verbs_handle.c): every object lives in memory whose
 * address is never reused, so a handle is checked exactly, and lock-free,
 * by tally_verbs_handle_ok(): a destroyed handle, one of another type, or
 * one the library never returned is refused (EINVAL) before anything is
 * read through it. Every public verbs struct sits at offset 0 of its object
 * (the context: see tally_verbs_ctx_of()).
 */
enum tally_verbs_type {
	TALLY_VERBS_T_CTX = 1,
	TALLY_VERBS_T_PD,
	TALLY_VERBS_T_MR,
	TALLY_VERBS_T_CQ,
	TALLY_VERBS_T_QP,
	TALLY_VERBS_T_FLOW,
	TALLY_VERBS_T_COUNTERS,
	TALLY_VERBS_T_COMP_CNTR,
	TALLY_VERBS_T_MATCHER,
	TALLY_VERBS_T_DEVX,
};

/* Zeroed memory for an object, not yet a handle; holds a reference on
 * parent (an object of ours, or NULL). NULL + errno on failure. */
void *tally_verbs_handle_new(size_t size, void *parent);
/* obj becomes a live handle of type. */
void tally_verbs_handle_publish(void *obj, enum tally_verbs_type type);
/* Lock-free: obj is a live handle of type. */
bool tally_verbs_handle_ok(const void *obj, enum tally_verbs_type type);
/* obj stops being a handle; false (and nothing done) if it was not live. */
bool tally_verbs_handle_kill(const void *obj, enum tally_verbs_type type);
/* Drop a reference: at zero the memory is released (never reused) and the
 * parent's reference dropped. */
void tally_verbs_handle_put(void *obj);

struct tally_verbs_pd {
	struct ibv_pd ibpd;
	uint32_t users;			/* MRs and QPs on it */
};

struct tally_verbs_mr {
	struct ibv_mr ibmr;
	struct tally_verbs_pd *pd;
};

/* A completion as the CQ stores it. */
struct tally_verbs_wc {
	uint64_t wr_id;
	uint32_t status;		/* enum ibv_wc_status */
	uint32_t opcode;		/* enum ibv_wc_opcode */
	uint32_t byte_len;
	uint32_t qp_num;
	uint32_t wc_flags;		/* IBV_WC_WITH_* of ibv_wc */
	uint32_t flow_tag;
};

struct tally_verbs_qp;

struct tally_verbs_cq {
	struct ibv_cq_ex ibcq;		/* first: an ibv_cq is its prefix */
	uint32_t users;			/* QPs sending or receiving through it */
	struct tally_verbs_wc *ring;
	uint32_t size;			/* power of two */
	uint32_t head;			/* next to poll */
	uint32_t tail;			/* next to fill */
	uint64_t overruns;
	struct tally_verbs_qp *rq[TALLY_VERBS_MAX_Q];	/* QPs receiving into it */
	unsigned int nb_rq;
	struct tally_verbs_wc cur;	/* cq_ex: the completion being read */
	bool polling;
};

struct tally_verbs_rwr {
	uint64_t wr_id;
	int num_sge;
	struct ibv_sge sge[TALLY_VERBS_MAX_SGE];
};

struct tally_verbs_comp_cntr;

struct tally_verbs_qp {
	struct ibv_qp ibqp;
	struct tally_verbs_ctx *ctx;
	struct tally_verbs_pd *pd;
	struct tally_verbs_cq *scq;	/* send completions */
	struct tally_verbs_cq *rcq;	/* receive completions */
	struct tally_verbs_port *port;
	uint16_t port_id;
	uint16_t rxq;
	uint16_t txq;
	bool sq_sig_all;
	/* posted receive WRs: a ring */
	struct tally_verbs_rwr *rwr;
	uint32_t rwr_size;		/* power of two */
	uint32_t rwr_head;
	uint32_t rwr_tail;
	uint32_t max_send_wr;
	uint32_t max_recv_sge;
	uint32_t max_send_sge;
	/* completion counters attached per op (SEND -> Tx queue, RECV -> Rx) */
	struct tally_verbs_comp_cntr *cc_send;
	struct tally_verbs_comp_cntr *cc_recv;
	uint32_t flows;			/* flows steering to this QP */
};

struct tally_verbs_counters {
	struct ibv_counters ibc;
	uint16_t port_id;
	bool has_dev;
	uint32_t dev_id;		/* flow counter id once first bound */
	uint32_t refs;			/* flows bound (atomic reads) */
	uint32_t npoints;
	uint32_t max_index;
	struct {
		uint32_t desc;		/* enum ibv_counter_description */
		uint32_t index;
	} *points;
};

struct tally_verbs_flow {
	struct ibv_flow ibflow;
	uint16_t port_id;
	struct rte_pmd_tally_rule *rule;
	struct tally_verbs_qp *qp;
	struct tally_verbs_counters *cnt;	/* ibv_counters bound, or NULL */
	bool own_counter;			/* mlx5dv flows: a private counter */
	uint32_t counter;			/* own counter id */
	struct mlx5dv_devx_obj *devx;		/* DEVX counter counted into, or NULL */
	struct tally_verbs_matcher *matcher;	/* mlx5dv flows: their matcher */
};

/* tally_verbs_devx.c: DEVX flow counters (under tally_verbs_lock for use). */
int tally_verbs_devx_counter(struct mlx5dv_devx_obj *obj, uint16_t port_id,
			     uint32_t *counter);
void tally_verbs_devx_use(struct mlx5dv_devx_obj *obj, int delta);

struct tally_verbs_comp_cntr {
	struct ibv_comp_cntr ibcc;
	uint16_t port_id;
	uint32_t id;			/* bank index */
	uint32_t attached;		/* queue attachments */
};

struct tally_verbs_matcher {
	uint16_t port_id;
	uint32_t flows;			/* flows created on it */
	struct ibv_context *context;
	uint16_t priority;
	uint8_t criteria;
	uint8_t mask[512];
};

/* Unchecked: for objects known to be alive (a parent held by a reference,
 * a flow just created). Entry points use the checked helpers below. */
static inline struct tally_verbs_ctx *
to_tally_ctx(struct ibv_context *c)
{
	struct tally_verbs_context *v =
		TALLY_VERBS_CONTAINER(c, struct tally_verbs_context, context);

	return TALLY_VERBS_CONTAINER(v, struct tally_verbs_ctx, vctx);
}

static inline struct tally_verbs_flow *
to_tally_flow(struct ibv_flow *f)
{
	return TALLY_VERBS_CONTAINER(f, struct tally_verbs_flow, ibflow);
}

/* Checked handles: the object, or NULL when h is not a live handle of
 * that type (nothing is read through h then). */
_Static_assert(offsetof(struct tally_verbs_pd, ibpd) == 0, "handle at 0");
_Static_assert(offsetof(struct tally_verbs_mr, ibmr) == 0, "handle at 0");
_Static_assert(offsetof(struct tally_verbs_cq, ibcq) == 0, "handle at 0");
_Static_assert(offsetof(struct tally_verbs_qp, ibqp) == 0, "handle at 0");
_Static_assert(offsetof(struct tally_verbs_flow, ibflow) == 0, "handle at 0");
_Static_assert(offsetof(struct tally_verbs_counters, ibc) == 0, "handle at 0");
_Static_assert(offsetof(struct tally_verbs_comp_cntr, ibcc) == 0, "handle at 0");

static inline struct tally_verbs_ctx *
tally_verbs_ctx_of(const struct ibv_context *c)
{
	/* integer arithmetic: c may be anything */
	uintptr_t a = (uintptr_t)c - offsetof(struct tally_verbs_ctx, vctx) -
		      offsetof(struct tally_verbs_context, context);

	if (c == NULL || !tally_verbs_handle_ok((const void *)a, TALLY_VERBS_T_CTX))
		return NULL;
	return (struct tally_verbs_ctx *)a;
}

/* The errno of an operation Tally does not have, on handle h that the
 * checker `of` (tally_verbs_<object>_of) recognises: EOPNOTSUPP on one of
 * Tally's objects, EINVAL on anything else. */
#define TALLY_VERBS_UNSUP(of, h)	((of)(h) != NULL ? EOPNOTSUPP : EINVAL)

#define TALLY_VERBS_CHECKED(name, pub, priv, type)			\
static inline struct priv *						\
name(const pub *h)							\
{									\
	return tally_verbs_handle_ok(h, type) ? (struct priv *)(uintptr_t)h : NULL; \
}

TALLY_VERBS_CHECKED(tally_verbs_pd_of, struct ibv_pd, tally_verbs_pd, TALLY_VERBS_T_PD)
TALLY_VERBS_CHECKED(tally_verbs_mr_of, struct ibv_mr, tally_verbs_mr, TALLY_VERBS_T_MR)
TALLY_VERBS_CHECKED(tally_verbs_cq_of, struct ibv_cq, tally_verbs_cq, TALLY_VERBS_T_CQ)
TALLY_VERBS_CHECKED(tally_verbs_cqx_of, struct ibv_cq_ex, tally_verbs_cq, TALLY_VERBS_T_CQ)
TALLY_VERBS_CHECKED(tally_verbs_qp_of, struct ibv_qp, tally_verbs_qp, TALLY_VERBS_T_QP)
TALLY_VERBS_CHECKED(tally_verbs_flow_of, struct ibv_flow, tally_verbs_flow,
		    TALLY_VERBS_T_FLOW)
TALLY_VERBS_CHECKED(tally_verbs_counters_of, struct ibv_counters, tally_verbs_counters,
		    TALLY_VERBS_T_COUNTERS)
TALLY_VERBS_CHECKED(tally_verbs_cc_of, struct ibv_comp_cntr, tally_verbs_comp_cntr,
		    TALLY_VERBS_T_COMP_CNTR)
TALLY_VERBS_CHECKED(tally_verbs_matcher_of, struct mlx5dv_flow_matcher,
		    tally_verbs_matcher, TALLY_VERBS_T_MATCHER)

/* tally_verbs_env.c: EAL and ports */
extern pthread_mutex_t tally_verbs_lock;
int tally_verbs_env_init(void);
unsigned int tally_verbs_nb_devices(void);
struct tally_verbs_device *tally_verbs_device(unsigned int i);
/* d as one of our devices, or NULL */
struct tally_verbs_device *tally_verbs_device_of(const struct ibv_device *d);
int tally_verbs_queue_get(struct tally_verbs_port *p, uint16_t *q);
void tally_verbs_queue_put(struct tally_verbs_port *p, uint16_t q);

/* tally_verbs_ctx.c */
void tally_verbs_context_ops_init(struct tally_verbs_ctx *c);

/* tally_verbs_dummy.c: the ops the device does not implement */
void tally_verbs_dummy_ops_init(struct tally_verbs_context *v);

/* tally_verbs_obj.c: verbs_context / ibv_context_ops entries */
int tally_verbs_query_port(struct ibv_context *context, uint8_t port_num,
			   struct ibv_port_attr *attr, size_t len);
int tally_verbs_query_device_ex(struct ibv_context *context,
				const struct ibv_query_device_ex_input *input,
				struct ibv_device_attr_ex *attr, size_t attr_size);
struct ibv_cq_ex *tally_verbs_create_cq_ex(struct ibv_context *context,
					   struct ibv_cq_init_attr_ex *attr);
struct ibv_qp *tally_verbs_create_qp_ex(struct ibv_context *context,
					struct ibv_qp_init_attr_ex *attr);

/* tally_verbs_rxtx.c */
int tally_verbs_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr,
			  struct ibv_send_wr **bad);
int tally_verbs_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr,
			  struct ibv_recv_wr **bad);
int tally_verbs_poll_cq(struct ibv_cq *cq, int n, struct ibv_wc *wc);
int tally_verbs_req_notify_cq(struct ibv_cq *cq, int solicited_only);
void tally_verbs_cq_ex_ops(struct tally_verbs_cq *cq);
int tally_verbs_cq_push(struct tally_verbs_cq *cq, const struct tally_verbs_wc *wc);

/* tally_verbs_flow.c */
struct ibv_flow *tally_verbs_create_flow(struct ibv_qp *qp,
					 struct ibv_flow_attr *attr);
int tally_verbs_destroy_flow(struct ibv_flow *flow);
/* A rule for a flow created on ctx, steering to qp (or not); the flow is
 * a live handle on return. NULL + errno on failure. */
struct ibv_flow *tally_verbs_flow_install(struct tally_verbs_ctx *ctx,
					  struct tally_verbs_qp *qp,
					  uint16_t port_id, const uint8_t *mask,
					  const uint8_t *value, uint16_t priority,
					  const struct rte_pmd_tally_rule_attr *act,
					  struct tally_verbs_counters *cnt,
					  bool own_counter);

/* tally_verbs_counters.c */
struct ibv_counters *tally_verbs_create_counters(struct ibv_context *context,
						 struct ibv_counters_init_attr *attr);
int tally_verbs_destroy_counters(struct ibv_counters *counters);
int tally_verbs_attach_counters_point_flow(struct ibv_counters *counters,
					   struct ibv_counter_attach_attr *attr,
					   struct ibv_flow *flow);
int tally_verbs_read_counters(struct ibv_counters *counters, uint64_t *values,
			      uint32_t ncounters, uint32_t flags);
/* With tally_verbs_lock held: bind to one more flow / unbind. */
int tally_verbs_counters_bind(struct tally_verbs_counters *c, uint32_t *dev_id);
void tally_verbs_counters_unbind(struct tally_verbs_counters *c);

#endif /* TALLY_VERBS_PRIV_H */
