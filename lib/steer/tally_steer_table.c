/* SPDX-License-Identifier: BSD-3-Clause */
/* Tables (DPDK flow groups): creation, lookup, matcher list publication. */
#include "tally_steer_internal.h"

int
tally_steer_table_create_locked(struct tally_steer_ctx *ctx, uint32_t id,
				struct tally_steer_table **out)
{
	struct tally_steer_table *t;

	if (ctx == NULL || id >= ctx->cfg.max_tables)
		return -EINVAL;
	if (ctx->tables[id] != NULL)
		return -EEXIST;
	t = tally_zmalloc(sizeof(*t));
	if (t == NULL)
		return -ENOMEM;
	t->ctx = ctx;
	t->id = id;
	/* pairs with the acquire load in tally_steer_table_get() */
	__atomic_store_n(&ctx->tables[id], t, __ATOMIC_RELEASE);
	ctx->host_bytes += sizeof(*t);
	if (out != NULL)
		*out = t;
	return 0;
}

int
tally_steer_table_create(struct tally_steer_ctx *ctx, uint32_t id,
			 struct tally_steer_table **out)
{
	int rc;

	if (ctx == NULL)
		return -EINVAL;
	tally_lock(ctx->lock);
	rc = tally_steer_table_create_locked(ctx, id, out);
	tally_unlock(ctx->lock);
	return rc;
}

int
tally_steer_table_destroy(struct tally_steer_table *t)
{
	struct tally_steer_ctx *ctx = t->ctx;

	tally_lock(ctx->lock);
	if (t->nm != 0 || t->parked != NULL || t->in_refs != 0) {
		tally_unlock(ctx->lock);
		return -EBUSY;
	}
	__atomic_store_n(&ctx->tables[t->id], NULL, __ATOMIC_RELEASE);
	ctx->host_bytes -= sizeof(*t) + t->out_cap * sizeof(t->out[0]);
	tally_free(t->out);
	tally_free(t);
	steer_reclaim_locked(ctx);
	tally_unlock(ctx->lock);
	return 0;
}

/* No lock: a table pointer is one atomic load; a table being destroyed
 * concurrently is the caller's bug, as for every handle. */
struct tally_steer_table *
tally_steer_table_get(struct tally_steer_ctx *ctx, uint32_t id)
{
	if (id >= ctx->cfg.max_tables)
		return NULL;
	/* pairs with the release store in tally_steer_table_create_locked() */
	return __atomic_load_n(&ctx->tables[id], __ATOMIC_ACQUIRE);
}

/*
 * Make m[0..n) the table's matcher list: build a new immutable device list,
 * release-store its IOVA in the table entry, retire the old list after a
 * fence, and take m[] as t->m. On failure nothing changed.
 */
int
steer_table_publish(struct tally_steer_table *t, struct tally_steer_matcher **m,
		    uint32_t n)
{
	struct tally_steer_ctx *ctx = t->ctx;
	struct steer_dmem nl = { 0 }, old = t->mlist;
	struct tally_steer_mlist *l;
	uint32_t i;
	int rc;

	if (n > 0) {
		rc = steer_dmem_alloc(ctx, TALLY_STEER_MLIST_SIZE(n), 64, &nl);
		if (rc != 0)
			return rc;
		l = nl.va;
		l->magic = TALLY_STEER_MLIST_MAGIC;
		l->num = n;
		for (i = 0; i < n; i++)
			l->matcher[i] = m[i]->desc.iova;
	}
	/* pairs with the device's acquire load of tbl.mlist */
	__atomic_store_n(&ctx->tbl_hw[t->id].mlist, nl.iova, __ATOMIC_RELEASE);
	t->mlist = nl;
	steer_dmem_defer(ctx, &old);
	memmove(t->m, m, n * sizeof(m[0]));
	t->nm = n;
	return 0;
}

int
steer_table_add_at(struct tally_steer_table *t, struct tally_steer_matcher *m, uint32_t pos)
{
	struct tally_steer_matcher *list[TALLY_STEER_MAX_MATCHERS];

	if (t->nm == TALLY_STEER_MAX_MATCHERS || pos > t->nm)
		return -ENOSPC;
	memcpy(list, t->m, pos * sizeof(list[0]));
	list[pos] = m;
	memcpy(&list[pos + 1], &t->m[pos], (t->nm - pos) * sizeof(list[0]));
	return steer_table_publish(t, list, t->nm + 1);
}

int
steer_table_remove(struct tally_steer_table *t, const struct tally_steer_matcher *m)
{
	struct tally_steer_matcher *list[TALLY_STEER_MAX_MATCHERS];
	uint32_t i, n = 0;

	for (i = 0; i < t->nm; i++)
		if (t->m[i] != m && t->m[i] != m->stage)
			list[n++] = t->m[i];
	return steer_table_publish(t, list, n);
}
