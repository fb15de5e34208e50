/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Control-path objects: device and port queries, PD, MR, CQ (RAW_PACKET
 * QPs: tally_verbs_qp.c). Every handle is checked before use.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_pmd_tally.h>

#include <tally/tally_pci_ids.h>

#include "tally_verbs_priv.h"

#undef ibv_query_port
#undef ibv_reg_mr
#undef ibv_reg_mr_iova

static uint32_t mr_keys = 0x100;

/* ---- queries ------------------------------------------------------------------ */

/* fw_ver and hw_ver from the device's spec version ("tally-spec M.m") */
static void
device_version(uint16_t port_id, struct ibv_device_attr *a)
{
	unsigned int major, minor;

	if (rte_eth_dev_fw_version_get(port_id, a->fw_ver, sizeof(a->fw_ver)) != 0)
		snprintf(a->fw_ver, sizeof(a->fw_ver), "unknown");
	if (sscanf(a->fw_ver, "tally-spec %u.%u", &major, &minor) == 2)
		a->hw_ver = (major & 0xffff) << 16 | (minor & 0xffff);
}

/*
 * The device identity is the Tally function's (tally_pci_ids.h), whatever
 * the transport: a vdev, the device process, or an ivshmem function.
 */
static void
device_attr_fill(struct tally_verbs_ctx *c, struct ibv_device_attr *a)
{
	struct tally_verbs_port *p = c->dev->port;

	memset(a, 0, sizeof(*a));
	device_version(c->port_id, a);
	a->node_guid = c->dev->guid;
	a->sys_image_guid = c->dev->guid;
	a->max_mr_size = UINT64_MAX;
	a->page_size_cap = 4096;
	a->vendor_id = TALLY_PCI_VENDOR_ID;
	a->vendor_part_id = TALLY_PCI_DEVICE_ID;
	a->max_qp = p->nb_q - p->first_q;
	a->max_qp_wr = TALLY_VERBS_MAX_WR;
	a->device_cap_flags = IBV_DEVICE_MANAGED_FLOW_STEERING;
	a->max_sge = TALLY_VERBS_MAX_SGE;
	a->max_cq = 1024;
	a->max_cqe = TALLY_VERBS_MAX_CQE;
	a->max_mr = 1 << 20;
	a->max_pd = 1 << 20;
	a->atomic_cap = IBV_ATOMIC_NONE;
	a->max_raw_ethy_qp = a->max_qp;	/* every QP is a RAW_PACKET QP */
	a->max_pkeys = 1;
	a->phys_port_cnt = 1;
}

int
ibv_query_device(struct ibv_context *context, struct ibv_device_attr *attr)
{
	struct tally_verbs_ctx *c = tally_verbs_ctx_of(context);

	if (c == NULL || attr == NULL)
		return EINVAL;
	device_attr_fill(c, attr);
	return 0;
}

int
tally_verbs_query_device_ex(struct ibv_context *context,
			    const struct ibv_query_device_ex_input *input,
			    struct ibv_device_attr_ex *attr, size_t attr_size)
{
	struct tally_verbs_ctx *c = tally_verbs_ctx_of(context);
	struct ibv_device_attr_ex a;

	if (c == NULL || attr == NULL)
		return EINVAL;
	if (input != NULL && input->comp_mask != 0)
		return EINVAL;
	if (attr_size < sizeof(struct ibv_device_attr))
		return EINVAL;
	memset(&a, 0, sizeof(a));
	device_attr_fill(c, &a.orig_attr);
	/* the 64-bit flags and port count repeat the 32-bit ones, as mlx5 */
	a.device_cap_flags_ex = a.orig_attr.device_cap_flags;
	a.phys_port_cnt_ex = a.orig_attr.phys_port_cnt;
	a.raw_packet_caps = 0;
	a.max_wq_type_rq = 0;
	memset(attr, 0, attr_size);
	memcpy(attr, &a, attr_size < sizeof(a) ? attr_size : sizeof(a));
	return 0;
}

static void
port_attr_fill(struct tally_verbs_ctx *c, struct ibv_port_attr *a)
{
	struct rte_eth_link link;

	memset(a, 0, sizeof(*a));
	memset(&link, 0, sizeof(link));
	if (rte_eth_link_get_nowait(c->port_id, &link) != 0)
		link.link_status = RTE_ETH_LINK_DOWN;	/* port gone: down */
	a->state = link.link_status ? IBV_PORT_ACTIVE : IBV_PORT_DOWN;
	a->max_mtu = IBV_MTU_4096;
	a->active_mtu = IBV_MTU_1024;
	a->gid_tbl_len = TALLY_VERBS_GID_TBL_LEN;
	a->max_msg_sz = TALLY_VERBS_MAX_FRAME;
	a->pkey_tbl_len = 1;
	a->max_vl_num = 1;	/* one data VL: VL0 */
	a->active_width = 2;	/* 4x */
	a->active_speed = 32;	/* 25 Gb/s per lane class */
	a->phys_state = link.link_status ? 5 : 3;	/* LinkUp / Disabled */
	a->link_layer = IBV_LINK_LAYER_ETHERNET;
}

int
tally_verbs_query_port(struct ibv_context *context, uint8_t port_num,
		       struct ibv_port_attr *attr, size_t len)
{
	struct tally_verbs_ctx *c = tally_verbs_ctx_of(context);
	struct ibv_port_attr a;

	if (c == NULL || port_num != 1 || attr == NULL)
		return EINVAL;
	port_attr_fill(c, &a);
	/* the caller's struct may be older or newer than ours */
	memset(attr, 0, len);
	memcpy(attr, &a, len < sizeof(a) ? len : sizeof(a));
	return 0;
}

int ibv_query_port(struct ibv_context *context, uint8_t port_num,
		   struct _compat_ibv_port_attr *port_attr);

int
ibv_query_port(struct ibv_context *context, uint8_t port_num,
	       struct _compat_ibv_port_attr *port_attr)
{
	return tally_verbs_query_port(context, port_num,
				      (struct ibv_port_attr *)port_attr,
				      offsetof(struct ibv_port_attr, port_cap_flags2));
}

/* ---- PD / MR --------------------------------------------------------------------- */

struct ibv_pd *
ibv_alloc_pd(struct ibv_context *context)
{
	struct tally_verbs_ctx *c = tally_verbs_ctx_of(context);
	struct tally_verbs_pd *pd;

	if (c == NULL) {
		errno = EINVAL;
		return NULL;
	}
	pd = tally_verbs_handle_new(sizeof(*pd), c);
	if (pd == NULL)
		return NULL;
	pd->ibpd.context = context;
	tally_verbs_handle_publish(pd, TALLY_VERBS_T_PD);
	return &pd->ibpd;
}

/* EBUSY while MRs or QPs use it, as the kernel answers. */
int
ibv_dealloc_pd(struct ibv_pd *ibpd)
{
	struct tally_verbs_pd *pd;
	int rc = 0;

	pthread_mutex_lock(&tally_verbs_lock);
	pd = tally_verbs_pd_of(ibpd);
	if (pd == NULL)
		rc = EINVAL;
	else if (pd->users > 0)
		rc = EBUSY;
	else if (!tally_verbs_handle_kill(pd, TALLY_VERBS_T_PD))
		rc = EINVAL;
	pthread_mutex_unlock(&tally_verbs_lock);
	if (rc == 0)
		tally_verbs_handle_put(pd);
	return rc;
}

struct ibv_mr *
ibv_reg_mr_iova2(struct ibv_pd *ibpd, void *addr, size_t length, uint64_t iova,
		 unsigned int access)
{
	struct tally_verbs_ctx *c;
	struct tally_verbs_pd *pd;
	struct tally_verbs_mr *mr = NULL;
	int rc = 0;

	/* remote write or atomic needs local write, as the kernel checks */
	if ((addr == NULL && length != 0) ||
	    ((access & (IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_ATOMIC)) &&
	     !(access & IBV_ACCESS_LOCAL_WRITE))) {
		errno = EINVAL;
		return NULL;
	}
	pthread_mutex_lock(&tally_verbs_lock);
	pd = tally_verbs_pd_of(ibpd);
	c = pd != NULL ? tally_verbs_ctx_of(pd->ibpd.context) : NULL;
	if (c == NULL)
		rc = EINVAL;
	else if ((mr = tally_verbs_handle_new(sizeof(*mr), c)) == NULL)
		rc = errno;
	else
		pd->users++;
	pthread_mutex_unlock(&tally_verbs_lock);
	if (rc) {
		errno = rc;
		return NULL;
	}
	mr->pd = pd;
	mr->ibmr.context = pd->ibpd.context;
	mr->ibmr.pd = ibpd;
	mr->ibmr.addr = addr;
	mr->ibmr.length = length;
	mr->ibmr.lkey = __atomic_fetch_add(&mr_keys, 1, __ATOMIC_RELAXED);
	mr->ibmr.rkey = mr->ibmr.lkey;
	mr->ibmr.handle = mr->ibmr.lkey;
	tally_verbs_handle_publish(mr, TALLY_VERBS_T_MR);
	return &mr->ibmr;
}

struct ibv_mr *ibv_reg_mr(struct ibv_pd *pd, void *addr, size_t length, int access);
struct ibv_mr *ibv_reg_mr_iova(struct ibv_pd *pd, void *addr, size_t length,
			       uint64_t iova, int access);

struct ibv_mr *
ibv_reg_mr(struct ibv_pd *pd, void *addr, size_t length, int access)
{
	return ibv_reg_mr_iova2(pd, addr, length, (uintptr_t)addr, (unsigned int)access);
}

struct ibv_mr *
ibv_reg_mr_iova(struct ibv_pd *pd, void *addr, size_t length, uint64_t iova,
		int access)
{
	return ibv_reg_mr_iova2(pd, addr, length, iova, (unsigned int)access);
}

int
ibv_dereg_mr(struct ibv_mr *ibmr)
{
	struct tally_verbs_mr *mr;

	pthread_mutex_lock(&tally_verbs_lock);
	mr = tally_verbs_mr_of(ibmr);
	if (mr == NULL || !tally_verbs_handle_kill(mr, TALLY_VERBS_T_MR)) {
		pthread_mutex_unlock(&tally_verbs_lock);
		return EINVAL;
	}
	mr->pd->users--;
	pthread_mutex_unlock(&tally_verbs_lock);
	tally_verbs_handle_put(mr);
	return 0;
}

/* ---- CQ ----------------------------------------------------------------------------- */

/* No completion channel can be ours: creating one is not supported, any
 * channel passed in is foreign. */
struct ibv_comp_channel *
ibv_create_comp_channel(struct ibv_context *context)
{
	errno = TALLY_VERBS_UNSUP(tally_verbs_ctx_of, context);
	return NULL;
}

int
ibv_destroy_comp_channel(struct ibv_comp_channel *channel)
{
	return EINVAL;
}

static struct tally_verbs_cq *
cq_new(struct tally_verbs_ctx *c, int cqe, void *cq_context)
{
	struct tally_verbs_cq *cq;
	uint32_t size = 64;

	if (cqe <= 0 || cqe > TALLY_VERBS_MAX_CQE) {
		errno = EINVAL;
		return NULL;
	}
	while (size < (uint32_t)cqe + 1)
		size <<= 1;
	cq = tally_verbs_handle_new(sizeof(*cq), c);
	if (cq == NULL)
		return NULL;
	cq->ring = calloc(size, sizeof(*cq->ring));
	if (cq->ring == NULL) {
		tally_verbs_handle_put(cq);
		errno = ENOMEM;
		return NULL;
	}
	cq->size = size;
	cq->ibcq.context = &c->vctx.context;
	cq->ibcq.cq_context = cq_context;
	cq->ibcq.cqe = (int)size - 1;
	pthread_mutex_init(&cq->ibcq.mutex, NULL);
	pthread_cond_init(&cq->ibcq.cond, NULL);
	return cq;
}

struct ibv_cq *
ibv_create_cq(struct ibv_context *context, int cqe, void *cq_context,
	      struct ibv_comp_channel *channel, int comp_vector)
{
	struct tally_verbs_ctx *c = tally_verbs_ctx_of(context);
	struct tally_verbs_cq *cq;

	/* no channel can be ours; comp_vector < num_comp_vectors */
	if (c == NULL || channel != NULL || comp_vector < 0 ||
	    comp_vector >= context->num_comp_vectors) {
		errno = EINVAL;
		return NULL;
	}
	cq = cq_new(c, cqe, cq_context);
	if (cq == NULL)
		return NULL;
	tally_verbs_handle_publish(cq, TALLY_VERBS_T_CQ);
	return ibv_cq_ex_to_cq(&cq->ibcq);
}

/* What a CQ_EX can report: the standard flags (on Ethernet the IB
 * addressing fields read 0 and no completion carries immediate data, as
 * mlx5 reports for a raw packet QP) and the flow tag. */
#define TALLY_VERBS_CQ_EX_FLAGS	(IBV_WC_STANDARD_FLAGS | IBV_WC_EX_WITH_FLOW_TAG)

struct ibv_cq_ex *
tally_verbs_create_cq_ex(struct ibv_context *context,
			 struct ibv_cq_init_attr_ex *attr)
{
	struct tally_verbs_ctx *c = tally_verbs_ctx_of(context);
	struct tally_verbs_cq *cq;

	if (c == NULL || attr == NULL) {
		errno = EINVAL;
		return NULL;
	}
	if (attr->comp_mask & ~(uint32_t)(IBV_CQ_INIT_ATTR_MASK_FLAGS |
					  IBV_CQ_INIT_ATTR_MASK_PD)) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	/* no channel can be ours; comp_vector < num_comp_vectors */
	if (attr->channel != NULL ||
	    attr->comp_vector >= (uint32_t)context->num_comp_vectors) {
		errno = EINVAL;
		return NULL;
	}
	if (attr->wc_flags & ~(uint64_t)TALLY_VERBS_CQ_EX_FLAGS) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	cq = cq_new(c, (int)attr->cqe, attr->cq_context);
	if (cq == NULL)
		return NULL;
	tally_verbs_cq_ex_ops(cq);
	tally_verbs_handle_publish(cq, TALLY_VERBS_T_CQ);
	return &cq->ibcq;
}

/* EBUSY while a QP sends or receives through it, as the kernel answers. */
int
ibv_destroy_cq(struct ibv_cq *ibcq)
{
	struct tally_verbs_cq *cq;
	int rc = 0;

	pthread_mutex_lock(&tally_verbs_lock);
	cq = tally_verbs_cq_of(ibcq);
	if (cq == NULL)
		rc = EINVAL;
	else if (cq->users > 0)
		rc = EBUSY;
	else if (!tally_verbs_handle_kill(cq, TALLY_VERBS_T_CQ))
		rc = EINVAL;
	pthread_mutex_unlock(&tally_verbs_lock);
	if (rc)
		return rc;
	free(cq->ring);
	tally_verbs_handle_put(cq);
	return 0;
}

int
ibv_resize_cq(struct ibv_cq *cq, int cqe)
{
	return TALLY_VERBS_UNSUP(tally_verbs_cq_of, cq);
}

int
ibv_get_cq_event(struct ibv_comp_channel *channel, struct ibv_cq **cq,
		 void **cq_context)
{
	errno = EINVAL;		/* no channel can be ours */
	return -1;
}

void
ibv_ack_cq_events(struct ibv_cq *cq, unsigned int nevents)
{
}
