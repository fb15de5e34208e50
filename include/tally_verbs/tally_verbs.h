/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libtally_verbs: the verbs and mlx5dv calls of rdma-core, served by Tally
 * ports (include this after <infiniband/verbs.h> and <infiniband/mlx5dv.h>).
 *
 * Legacy code compiled against rdma-core's headers links with
 * -ltally_verbs instead of -libverbs -lmlx5; see doc/verbs.md.
 *
 * This header adds what rdma-core 44 headers do not have:
 *  - the completion-counter verbs of rdma-core 65 (symbol version
 *    IBVERBS_1.18), with the exact upstream types and signatures, so the
 *    same source builds against v44 and v65 headers. With headers that
 *    already declare them, define TALLY_VERBS_HAVE_COMP_CNTR before
 *    including this file (the pkg-config file does it when needed).
 *  - __mlx5dv_create_flow (MLX5_1.25.1), which takes the caller's action
 *    stride.
 *  - tally_verbs_flow_read(): packets and bytes of any flow that counts
 *    (flows from mlx5dv_create_flow always do), since DEVX counter objects
 *    are not provided.
 */
#ifndef TALLY_VERBS_H
#define TALLY_VERBS_H

#include <stddef.h>
#include <stdint.h>

#include <infiniband/verbs.h>
#include <infiniband/mlx5dv.h>

#ifdef __cplusplus
extern "C" {
#endif

#ifndef TALLY_VERBS_HAVE_COMP_CNTR

enum ibv_qp_attach_comp_cntr_op {
	IBV_QP_ATTACH_COMP_CNTR_OP_SEND = 1 << 0,
	IBV_QP_ATTACH_COMP_CNTR_OP_RECV = 1 << 1,
	IBV_QP_ATTACH_COMP_CNTR_OP_RDMA_READ = 1 << 2,
	IBV_QP_ATTACH_COMP_CNTR_OP_REMOTE_RDMA_READ = 1 << 3,
	IBV_QP_ATTACH_COMP_CNTR_OP_RDMA_WRITE = 1 << 4,
	IBV_QP_ATTACH_COMP_CNTR_OP_REMOTE_RDMA_WRITE = 1 << 5,
};

struct ibv_comp_cntr_caps {
	uint64_t max_value;
	uint32_t max_counters;
	uint32_t supported_qp_attach_ops;	/* enum ibv_qp_attach_comp_cntr_op */
};

struct ibv_comp_cntr {
	struct ibv_context *context;
	uint32_t handle;
};

enum ibv_comp_cntr_type {
	IBV_COMP_CNTR_TYPE_WRS = 0,	/* completed work requests */
	IBV_COMP_CNTR_TYPE_BYTES = 1,	/* bytes (not supported by Tally) */
};

struct ibv_comp_cntr_init_attr {
	uint32_t comp_mask;
	enum ibv_comp_cntr_type type;
	uint32_t flags;			/* reserved, 0 */
};

struct ibv_qp_attach_comp_cntr_attr {
	uint32_t comp_mask;		/* 0 */
	uint32_t op_mask;		/* enum ibv_qp_attach_comp_cntr_op */
};

int _ibv_query_comp_cntr_caps(struct ibv_context *context,
			      struct ibv_comp_cntr_caps *caps, size_t caps_size);

static inline int
ibv_query_comp_cntr_caps(struct ibv_context *context,
			 struct ibv_comp_cntr_caps *caps)
{
	return _ibv_query_comp_cntr_caps(context, caps, sizeof(*caps));
}

struct ibv_comp_cntr *ibv_create_comp_cntr(struct ibv_context *context,
					   struct ibv_comp_cntr_init_attr *cc_attr);
int ibv_destroy_comp_cntr(struct ibv_comp_cntr *comp_cntr);
int ibv_set_comp_cntr(struct ibv_comp_cntr *comp_cntr, uint64_t value);
int ibv_set_err_comp_cntr(struct ibv_comp_cntr *comp_cntr, uint64_t value);
int ibv_inc_comp_cntr(struct ibv_comp_cntr *comp_cntr, uint64_t amount);
int ibv_inc_err_comp_cntr(struct ibv_comp_cntr *comp_cntr, uint64_t amount);
int ibv_read_comp_cntr(struct ibv_comp_cntr *comp_cntr, uint64_t *value);
int ibv_read_err_comp_cntr(struct ibv_comp_cntr *comp_cntr, uint64_t *value);
int ibv_qp_attach_comp_cntr(struct ibv_qp *qp, struct ibv_comp_cntr *comp_cntr,
			    struct ibv_qp_attach_comp_cntr_attr *attr);

#endif /* TALLY_VERBS_HAVE_COMP_CNTR */

/* MLX5_1.25.1: like mlx5dv_create_flow, with the caller's sizeof of
 * struct mlx5dv_flow_action_attr as the array stride. */
struct ibv_flow *__mlx5dv_create_flow(struct mlx5dv_flow_matcher *matcher,
				      struct mlx5dv_flow_match_parameters *match_value,
				      size_t num_actions,
				      struct mlx5dv_flow_action_attr actions_attr[],
				      size_t attr_len);

/* Tally extension: packets and bytes (L2 frame length without FCS) of a
 * flow that counts. Returns 0, or EINVAL when the flow does not count. */
int tally_verbs_flow_read(struct ibv_flow *flow, uint64_t *packets,
			  uint64_t *bytes);

/* Tally extension: the ethdev port id behind a context (for applications
 * that mix rte_flow / rte_pmd_tally calls with verbs). */
int tally_verbs_port_id(struct ibv_context *context, uint16_t *port_id);

#ifdef __cplusplus
}
#endif

#endif /* TALLY_VERBS_H */
