/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ibv_counters (verbs-api.md §1.4, mlx5 semantics): static attach points
 * {description, index}; on the first binding to a flow (a COUNT spec) the
 * object takes one flow counter of the port's pool, which every flow bound
 * to it names, so all of them accumulate into the same slots. A read sums,
 * per index, the device value each point describes. The device counter is
 * kept until the object is destroyed, so values only increase.
 */
#include <stdlib.h>
#include <string.h>

#include "tally_verbs_priv.h"

struct ibv_counters *
tally_verbs_create_counters(struct ibv_context *context,
			    struct ibv_counters_init_attr *attr)
{
	struct tally_verbs_ctx *ctx = tally_verbs_ctx_of(context);
	struct tally_verbs_counters *c;

	if (ctx == NULL) {
		errno = EINVAL;
		return NULL;
	}
	if (attr != NULL && attr->comp_mask != 0) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	c = tally_verbs_handle_new(sizeof(*c), ctx);
	if (c == NULL)
		return NULL;
	c->ibc.context = context;
	c->port_id = ctx->port_id;
	tally_verbs_handle_publish(c, TALLY_VERBS_T_COUNTERS);
	return &c->ibc;
}

int
tally_verbs_destroy_counters(struct ibv_counters *ibc)
{
	struct tally_verbs_counters *c;
	int rc = 0;

	pthread_mutex_lock(&tally_verbs_lock);
	c = tally_verbs_counters_of(ibc);
	if (c == NULL)
		rc = EINVAL;
	else if (c->refs > 0)
		rc = EBUSY;
	else if (!tally_verbs_handle_kill(c, TALLY_VERBS_T_COUNTERS))
		rc = EINVAL;
	else if (c->has_dev)
		rte_pmd_tally_counter_free(c->port_id, c->dev_id);
	pthread_mutex_unlock(&tally_verbs_lock);
	if (rc)
		return rc;
	free(c->points);
	tally_verbs_handle_put(c);
	return 0;
}

int
tally_verbs_attach_counters_point_flow(struct ibv_counters *ibc,
				       struct ibv_counter_attach_attr *attr,
				       struct ibv_flow *flow)
{
	struct tally_verbs_counters *c = tally_verbs_counters_of(ibc);
	void *np;
	int rc = 0;

	if (c == NULL || attr == NULL)
		return EINVAL;
	if (attr->comp_mask != 0)
		return EOPNOTSUPP;
	if (flow != NULL)	/* only static attach, like mlx5 */
		return tally_verbs_flow_of(flow) != NULL ? ENOTSUP : EINVAL;
	if (attr->counter_desc != IBV_COUNTER_PACKETS &&
	    attr->counter_desc != IBV_COUNTER_BYTES)
		return ENOTSUP;
	pthread_mutex_lock(&tally_verbs_lock);
	if (!tally_verbs_handle_ok(c, TALLY_VERBS_T_COUNTERS)) {
		rc = EINVAL;	/* destroyed meanwhile */
		goto out;
	}
	if (c->refs > 0) {
		rc = EBUSY;
		goto out;
	}
	np = realloc(c->points, sizeof(*c->points) * (c->npoints + 1));
	if (np == NULL) {
		rc = ENOMEM;
		goto out;
	}
	c->points = np;
	c->points[c->npoints].desc = attr->counter_desc;
	c->points[c->npoints].index = attr->index;
	if (c->npoints == 0 || attr->index > c->max_index)
		c->max_index = attr->index;
	c->npoints++;
out:
	pthread_mutex_unlock(&tally_verbs_lock);
	return rc;
}

int
tally_verbs_counters_bind(struct tally_verbs_counters *c, uint32_t *dev_id)
{
	int rc;

	if (!c->has_dev) {
		rc = rte_pmd_tally_counter_alloc(c->port_id, &c->dev_id);
		if (rc)
			return -rc;
		c->has_dev = true;
	}
	__atomic_store_n(&c->refs, c->refs + 1, __ATOMIC_RELEASE);
	*dev_id = c->dev_id;
	return 0;
}

void
tally_verbs_counters_unbind(struct tally_verbs_counters *c)
{
	__atomic_store_n(&c->refs, c->refs - 1, __ATOMIC_RELEASE);
}

/* Lock-free: points are frozen while the object is bound (attach -> EBUSY). */
int
tally_verbs_read_counters(struct ibv_counters *ibc, uint64_t *values,
			  uint32_t ncounters, uint32_t flags)
{
	struct tally_verbs_counters *c = tally_verbs_counters_of(ibc);
	uint64_t v[2];
	uint32_t i;
	int rc;

	if (c == NULL)
		return EINVAL;
	if (flags & ~(uint32_t)IBV_READ_COUNTERS_ATTR_PREFER_CACHED)
		return EINVAL;
	/* pairs with the release store in tally_verbs_counters_bind() */
	if (__atomic_load_n(&c->refs, __ATOMIC_ACQUIRE) == 0)
		return EINVAL;
	if ((uint64_t)ncounters < (uint64_t)c->max_index + 1 || values == NULL)
		return EINVAL;
	rc = rte_pmd_tally_counter_read(c->port_id, c->dev_id, &v[0], &v[1]);
	if (rc)
		return -rc;
	memset(values, 0, sizeof(*values) * ncounters);
	for (i = 0; i < c->npoints; i++)
		values[c->points[i].index] += v[c->points[i].desc];
	return 0;
}
