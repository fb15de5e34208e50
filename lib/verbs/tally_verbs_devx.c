/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * DEVX flow counters: the two PRM commands legacy mlx5dv code uses to count
 * flows, on the port's flow counter pool.
 *
 *   mlx5dv_devx_obj_create(ALLOC_FLOW_COUNTER)  -> a counter of the pool
 *   mlx5dv_create_flow(..., COUNTERS_DEVX obj)   -> the rule counts into it
 *   mlx5dv_devx_obj_query(QUERY_FLOW_COUNTER)   -> tally_cnt_read() (clear
 *                                                  bit: read and reset)
 *   mlx5dv_devx_obj_destroy()                   -> EBUSY while flows use it
 *
 * Command buffers are big-endian PRM layouts (mlx5_ifc.h): opcode in bits
 * 0x00-0x0f of every input; status (byte 0) and syndrome (bytes 4-7) start
 * every output. Only single counters are supported (a bulk request, any
 * other opcode, and mlx5dv_devx_general_cmd give EOPNOTSUPP): there is no
 * firmware behind this device.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tally_verbs_priv.h"

#define PRM_ALLOC_FLOW_COUNTER		0x939
#define PRM_QUERY_FLOW_COUNTER		0x93b
#define PRM_HDR_LEN			16	/* smallest in/out of these commands */
#define PRM_ALLOC_BULK_BYTE		14	/* bulk_log_size (low 5 bits) ... */
#define PRM_ALLOC_BULK_MASK		0x07ff	/* ... and flow_counter_bulk */
#define PRM_ALLOC_OUT_ID		8	/* flow_counter_id */
#define PRM_QUERY_IN_LEN		32
#define PRM_QUERY_IN_CLEAR		24	/* bit 7 */
#define PRM_QUERY_IN_NUM		26	/* num_of_counters, 16 bits */
#define PRM_QUERY_IN_ID			28	/* flow_counter_id */
#define PRM_QUERY_OUT_LEN		32
#define PRM_QUERY_OUT_STATS		16	/* packets, octets: 64 bits each */

struct mlx5dv_devx_obj {
	struct ibv_context *context;
	uint16_t port_id;
	uint32_t counter;
	uint32_t flows;			/* flows counting into it */
};

static uint32_t
be_get(const uint8_t *p, unsigned int n)
{
	uint32_t v = 0;

	while (n--)
		v = v << 8 | *p++;
	return v;
}

static void
be_put64(uint8_t *p, uint64_t v)
{
	int i;

	for (i = 7; i >= 0; i--, v >>= 8)
		p[i] = (uint8_t)v;
}

struct mlx5dv_devx_obj *
mlx5dv_devx_obj_create(struct ibv_context *context, const void *in, size_t inlen,
		       void *out, size_t outlen)
{
	struct tally_verbs_ctx *ctx = tally_verbs_ctx_of(context);
	const uint8_t *ib = in;
	struct mlx5dv_devx_obj *o;
	uint8_t *ob = out;
	int rc;

	if (ctx == NULL || in == NULL || out == NULL ||
	    inlen < PRM_HDR_LEN || outlen < PRM_HDR_LEN) {
		errno = EINVAL;
		return NULL;
	}
	if (be_get(ib, 2) != PRM_ALLOC_FLOW_COUNTER ||
	    (be_get(ib + PRM_ALLOC_BULK_BYTE, 2) & PRM_ALLOC_BULK_MASK) != 0) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	o = tally_verbs_handle_new(sizeof(*o), ctx);
	if (o == NULL)
		return NULL;
	o->context = context;
	o->port_id = ctx->port_id;
	rc = rte_pmd_tally_counter_alloc(o->port_id, &o->counter);
	if (rc != 0) {
		tally_verbs_handle_put(o);
		errno = rc == -ENOSPC ? ENOMEM : -rc;
		return NULL;
	}
	memset(ob, 0, outlen);
	ob[PRM_ALLOC_OUT_ID] = (uint8_t)(o->counter >> 24);
	ob[PRM_ALLOC_OUT_ID + 1] = (uint8_t)(o->counter >> 16);
	ob[PRM_ALLOC_OUT_ID + 2] = (uint8_t)(o->counter >> 8);
	ob[PRM_ALLOC_OUT_ID + 3] = (uint8_t)o->counter;
	tally_verbs_handle_publish(o, TALLY_VERBS_T_DEVX);
	return o;
}

int
mlx5dv_devx_obj_query(struct mlx5dv_devx_obj *obj, const void *in, size_t inlen,
		      void *out, size_t outlen)
{
	const uint8_t *ib = in;
	uint64_t pkts, bytes;
	uint8_t *ob = out;
	int rc;

	if (!tally_verbs_handle_ok(obj, TALLY_VERBS_T_DEVX) || in == NULL || out == NULL ||
	    inlen < PRM_QUERY_IN_LEN || outlen < PRM_QUERY_OUT_LEN)
		return EINVAL;
	if (be_get(ib, 2) != PRM_QUERY_FLOW_COUNTER)
		return EOPNOTSUPP;
	if (be_get(ib + PRM_QUERY_IN_NUM, 2) > 1 ||
	    be_get(ib + PRM_QUERY_IN_ID, 4) != obj->counter)
		return EINVAL;	/* one counter, this object's */
	if (ib[PRM_QUERY_IN_CLEAR] & 0x80)
		rc = rte_pmd_tally_counter_read_reset(obj->port_id, obj->counter,
						      &pkts, &bytes);
	else
		rc = rte_pmd_tally_counter_read(obj->port_id, obj->counter,
						&pkts, &bytes);
	if (rc != 0)
		return -rc;
	memset(ob, 0, outlen);
	be_put64(ob + PRM_QUERY_OUT_STATS, pkts);
	be_put64(ob + PRM_QUERY_OUT_STATS + 8, bytes);
	return 0;
}

int
mlx5dv_devx_obj_modify(struct mlx5dv_devx_obj *obj, const void *in, size_t inlen,
		       void *out, size_t outlen)
{
	return tally_verbs_handle_ok(obj, TALLY_VERBS_T_DEVX) ? EOPNOTSUPP : EINVAL;
}

int
mlx5dv_devx_obj_destroy(struct mlx5dv_devx_obj *obj)
{
	int rc = 0;

	pthread_mutex_lock(&tally_verbs_lock);
	if (!tally_verbs_handle_ok(obj, TALLY_VERBS_T_DEVX))
		rc = EINVAL;
	else if (obj->flows > 0)
		rc = EBUSY;
	else if (!tally_verbs_handle_kill(obj, TALLY_VERBS_T_DEVX))
		rc = EINVAL;
	pthread_mutex_unlock(&tally_verbs_lock);
	if (rc != 0)
		return rc;
	rte_pmd_tally_counter_free(obj->port_id, obj->counter);
	tally_verbs_handle_put(obj);
	return 0;
}

int
mlx5dv_devx_general_cmd(struct ibv_context *context, const void *in, size_t inlen,
			void *out, size_t outlen)
{
	return TALLY_VERBS_UNSUP(tally_verbs_ctx_of, context);
}

int
tally_verbs_devx_counter(struct mlx5dv_devx_obj *obj, uint16_t port_id,
			 uint32_t *counter)
{
	if (!tally_verbs_handle_ok(obj, TALLY_VERBS_T_DEVX) || obj->port_id != port_id)
		return EINVAL;
	*counter = obj->counter;
	return 0;
}

void
tally_verbs_devx_use(struct mlx5dv_devx_obj *obj, int delta)
{
	/* under tally_verbs_lock */
	obj->flows = (uint32_t)((int)obj->flows + delta);
}
