/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mlx5dv device calls: mlx5dv_is_supported, mlx5dv_open_device,
 * mlx5dv_query_device (flows: tally_verbs_mlx5dv.c).
 *
 * Every Tally device takes the mlx5dv calls this library implements
 * (flow matchers and flows, DEVX flow counters), so mlx5dv_is_supported()
 * is true for it, and mlx5dv_open_device() is ibv_open_device() after the
 * attribute checks of rdma-core's mlx5 provider. A device or context the
 * library never returned is refused with EINVAL (mlx5dv_is_supported:
 * false), as in every entry point of the library.
 *
 * mlx5dv_query_device follows the mlx5 provider's extension protocol: the
 * caller's comp_mask names the fields its struct has and wants; on return
 * comp_mask names those filled. The device has none of the mlx5 data-path
 * offloads, so the capabilities mlx5 always reports come back as zero
 * (with their bit set) and those mlx5 reports only when present (clock
 * info, core clock, LAG ports) are left out.
 */
#include <string.h>

#include "tally_verbs_priv.h"

/* rdma-core >= 46: MLX5DV_CONTEXT_ATTR_MASK_FD_ARRAY (an array of kernel
 * fds for the new context); not in older headers. */
#define TALLY_MLX5DV_CONTEXT_ATTR_MASK_FD_ARRAY	(1ull << 0)

/* Reported, all zero: the capabilities mlx5 answers unconditionally. */
#define TALLY_MLX5DV_ZERO_CAPS					\
	(MLX5DV_CONTEXT_MASK_CQE_COMPRESION |			\
	 MLX5DV_CONTEXT_MASK_SWP |				\
	 MLX5DV_CONTEXT_MASK_STRIDING_RQ |			\
	 MLX5DV_CONTEXT_MASK_TUNNEL_OFFLOADS |			\
	 MLX5DV_CONTEXT_MASK_DYN_BFREGS |			\
	 MLX5DV_CONTEXT_MASK_FLOW_ACTION_FLAGS |		\
	 MLX5DV_CONTEXT_MASK_DC_ODP_CAPS |			\
	 MLX5DV_CONTEXT_MASK_SIGNATURE_OFFLOAD |		\
	 MLX5DV_CONTEXT_MASK_DCI_STREAMS |			\
	 MLX5DV_CONTEXT_MASK_WR_MEMCPY_LENGTH |			\
	 MLX5DV_CONTEXT_MASK_CRYPTO_OFFLOAD)

bool
mlx5dv_is_supported(struct ibv_device *device)
{
	return tally_verbs_device_of(device) != NULL;
}

struct ibv_context *
mlx5dv_open_device(struct ibv_device *device, struct mlx5dv_context_attr *attr)
{
	if (tally_verbs_device_of(device) == NULL) {
		errno = EINVAL;
		return NULL;
	}
	if (attr != NULL && attr->comp_mask != 0) {
		/* an fd array needs a kernel device; other bits are unknown */
		errno = attr->comp_mask == TALLY_MLX5DV_CONTEXT_ATTR_MASK_FD_ARRAY ?
			EOPNOTSUPP : EINVAL;
		return NULL;
	}
	if (attr != NULL && (attr->flags & ~(uint32_t)MLX5DV_CONTEXT_FLAGS_DEVX)) {
		errno = EINVAL;
		return NULL;
	}
	/* DEVX: the DEVX objects this library has work on every context */
	return ibv_open_device(device);
}

/* Zero the fields of the capabilities in mask (one mask bit per field). */
static void
zero_caps(struct mlx5dv_context *a, uint64_t mask)
{
#define ZERO_IF(bit, field)					\
	do {							\
		if (mask & (bit))				\
			memset(&a->field, 0, sizeof(a->field));	\
	} while (0)
	ZERO_IF(MLX5DV_CONTEXT_MASK_CQE_COMPRESION, cqe_comp_caps);
	ZERO_IF(MLX5DV_CONTEXT_MASK_SWP, sw_parsing_caps);
	ZERO_IF(MLX5DV_CONTEXT_MASK_STRIDING_RQ, striding_rq_caps);
	ZERO_IF(MLX5DV_CONTEXT_MASK_TUNNEL_OFFLOADS, tunnel_offloads_caps);
	ZERO_IF(MLX5DV_CONTEXT_MASK_DYN_BFREGS, max_dynamic_bfregs);
	ZERO_IF(MLX5DV_CONTEXT_MASK_FLOW_ACTION_FLAGS, flow_action_flags);
	ZERO_IF(MLX5DV_CONTEXT_MASK_DC_ODP_CAPS, dc_odp_caps);
	ZERO_IF(MLX5DV_CONTEXT_MASK_SIGNATURE_OFFLOAD, sig_caps);
	ZERO_IF(MLX5DV_CONTEXT_MASK_DCI_STREAMS, dci_streams_caps);
	ZERO_IF(MLX5DV_CONTEXT_MASK_WR_MEMCPY_LENGTH, max_wr_memcpy_length);
	ZERO_IF(MLX5DV_CONTEXT_MASK_CRYPTO_OFFLOAD, crypto_caps);
#undef ZERO_IF
}

int
mlx5dv_query_device(struct ibv_context *ctx_in, struct mlx5dv_context *attrs_out)
{
	uint64_t mask;

	if (tally_verbs_ctx_of(ctx_in) == NULL || attrs_out == NULL)
		return EINVAL;
	mask = attrs_out->comp_mask & TALLY_MLX5DV_ZERO_CAPS;
	attrs_out->version = 0;
	attrs_out->flags = 0;	/* no CQE v1, MPW, BlueFlame, ...: no mlx5 data path */
	zero_caps(attrs_out, mask);
	attrs_out->comp_mask = mask;
	return 0;
}
