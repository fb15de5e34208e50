/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Exported verbs of libibverbs that stock tools call and a raw-Ethernet
 * Tally port either answers trivially (the P_Key table) or does not
 * implement (multicast attach, address handles, SRQs, re-registration,
 * ECE, dma-buf memory regions, objects shared between contexts).
 *
 * They exist so that a program using them works or fails cleanly: under
 * LD_PRELOAD, libibverbs' own versions would be reached instead, and those
 * dispatch through libibverbs' private part of the context, which a Tally
 * context does not have (a crash). Handles are checked first, as everywhere:
 * a live one of ours gets EOPNOTSUPP; any other EINVAL (an AH or SRQ can
 * never be ours). Each reports errors the way its man page says.
 */
#include <endian.h>

#include "tally_verbs_priv.h"

#define TALLY_DEFAULT_PKEY	0xffff	/* full-member default P_Key */

/* ---- P_Key table: one entry, the default P_Key ----------------------------- */

int
ibv_query_pkey(struct ibv_context *context, uint8_t port_num, int index,
	       __be16 *pkey)
{
	if (tally_verbs_ctx_of(context) == NULL || pkey == NULL || port_num != 1 ||
	    index != 0) {
		errno = EINVAL;
		return -1;
	}
	*pkey = htobe16(TALLY_DEFAULT_PKEY);
	return 0;
}

int
ibv_get_pkey_index(struct ibv_context *context, uint8_t port_num, __be16 pkey)
{
	if (tally_verbs_ctx_of(context) == NULL || port_num != 1) {
		errno = EINVAL;
		return -1;
	}
	if (be16toh(pkey) != TALLY_DEFAULT_PKEY) {
		errno = ENOENT;
		return -1;
	}
	return 0;
}

/* ---- multicast attach: 0 or an errno value ----------------------------------- */

int
ibv_attach_mcast(struct ibv_qp *qp, const union ibv_gid *gid, uint16_t lid)
{
	return TALLY_VERBS_UNSUP(tally_verbs_qp_of, qp);
}

int
ibv_detach_mcast(struct ibv_qp *qp, const union ibv_gid *gid, uint16_t lid)
{
	return TALLY_VERBS_UNSUP(tally_verbs_qp_of, qp);
}

/* ---- address handles ------------------------------------------------------------ */

struct ibv_ah *
ibv_create_ah(struct ibv_pd *pd, struct ibv_ah_attr *attr)
{
	errno = TALLY_VERBS_UNSUP(tally_verbs_pd_of, pd);
	return NULL;
}

struct ibv_ah *
ibv_create_ah_from_wc(struct ibv_pd *pd, struct ibv_wc *wc, struct ibv_grh *grh,
		      uint8_t port_num)
{
	errno = TALLY_VERBS_UNSUP(tally_verbs_pd_of, pd);
	return NULL;
}

int
ibv_init_ah_from_wc(struct ibv_context *context, uint8_t port_num,
		    struct ibv_wc *wc, struct ibv_grh *grh,
		    struct ibv_ah_attr *ah_attr)
{
	errno = TALLY_VERBS_UNSUP(tally_verbs_ctx_of, context);
	return -1;
}

int
ibv_destroy_ah(struct ibv_ah *ah)
{
	return EINVAL;
}

/* ---- shared receive queues ------------------------------------------------------ */

struct ibv_srq *
ibv_create_srq(struct ibv_pd *pd, struct ibv_srq_init_attr *attr)
{
	errno = TALLY_VERBS_UNSUP(tally_verbs_pd_of, pd);
	return NULL;
}

int
ibv_modify_srq(struct ibv_srq *srq, struct ibv_srq_attr *attr, int mask)
{
	return EINVAL;
}

int
ibv_query_srq(struct ibv_srq *srq, struct ibv_srq_attr *attr)
{
	return EINVAL;
}

int
ibv_destroy_srq(struct ibv_srq *srq)
{
	return EINVAL;
}

/* ---- memory regions, ECE, data placement ---------------------------------------- */

/* IBV_REREG_MR_ERR_INPUT (-1) with errno, as libibverbs fails it */
int
ibv_rereg_mr(struct ibv_mr *mr, int flags, struct ibv_pd *pd, void *addr,
	     size_t length, int access)
{
	errno = TALLY_VERBS_UNSUP(tally_verbs_mr_of, mr);
	return IBV_REREG_MR_ERR_INPUT;
}

int
ibv_set_ece(struct ibv_qp *qp, struct ibv_ece *ece)
{
	errno = TALLY_VERBS_UNSUP(tally_verbs_qp_of, qp);
	return errno;
}

int
ibv_query_ece(struct ibv_qp *qp, struct ibv_ece *ece)
{
	errno = TALLY_VERBS_UNSUP(tally_verbs_qp_of, qp);
	return errno;
}

/* dma-buf memory: none can be registered (the data path copies from
 * process memory; a dma-buf is device memory the library cannot reach). */
struct ibv_mr *
ibv_reg_dmabuf_mr(struct ibv_pd *pd, uint64_t offset, size_t length,
		  uint64_t iova, int fd, int access)
{
	errno = TALLY_VERBS_UNSUP(tally_verbs_pd_of, pd);
	return NULL;
}

/* ---- objects shared between contexts (import by kernel handle) ------------------ */

/* No Tally object has a kernel handle another context could import, so
 * nothing can be imported, and unimporting (which only frees what an
 * import made) has nothing to do. */
struct ibv_pd *
ibv_import_pd(struct ibv_context *context, uint32_t pd_handle)
{
	errno = TALLY_VERBS_UNSUP(tally_verbs_ctx_of, context);
	return NULL;
}

void
ibv_unimport_pd(struct ibv_pd *pd)
{
}

struct ibv_mr *
ibv_import_mr(struct ibv_pd *pd, uint32_t mr_handle)
{
	errno = TALLY_VERBS_UNSUP(tally_verbs_pd_of, pd);
	return NULL;
}

void
ibv_unimport_mr(struct ibv_mr *mr)
{
}

struct ibv_dm *
ibv_import_dm(struct ibv_context *context, uint32_t dm_handle)
{
	errno = TALLY_VERBS_UNSUP(tally_verbs_ctx_of, context);
	return NULL;
}

void
ibv_unimport_dm(struct ibv_dm *dm)
{
}

/* No operation is promised to place data in order: 0 (as for any QP the
 * provider cannot vouch for). */
int
ibv_query_qp_data_in_order(struct ibv_qp *qp, enum ibv_wr_opcode op, uint32_t flags)
{
	return 0;
}
