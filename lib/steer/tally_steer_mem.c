/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Device memory of a steering context: allocation, frees deferred until the
 * device's next fence, reclaim, and the memory accounting. The bottom of
 * lib/steer: calls nothing of the directory but the fence, the counter pool
 * and host memory.
 */
#include "tally_steer_internal.h"

int
steer_dmem_alloc(struct tally_steer_ctx *ctx, size_t size, size_t align,
		 struct steer_dmem *out)
{
	uint64_t iova = 0;
	void *va = ctx->cfg.mem.alloc(ctx->cfg.mem.arg, size, align, &iova);

	if (va == NULL)
		return -ENOMEM;
	out->va = va;
	out->iova = iova;
	out->size = size;
	ctx->dev_bytes += size;
	return 0;
}

void
steer_dmem_free(struct tally_steer_ctx *ctx, struct steer_dmem *mem)
{
	if (mem->va == NULL)
		return;
	ctx->cfg.mem.free(ctx->cfg.mem.arg, mem->va, mem->size);
	ctx->dev_bytes -= mem->size;
	memset(mem, 0, sizeof(*mem));
}

void
steer_dmem_defer(struct tally_steer_ctx *ctx, struct steer_dmem *mem)
{
	struct steer_deferred *d;

	if (mem->va == NULL)
		return;
	if (ctx->dq_len == ctx->dq_cap) {
		uint32_t cap = ctx->dq_cap ? ctx->dq_cap * 2 : 16, i;
		struct steer_deferred *n = tally_zmalloc(cap * sizeof(*n));

		if (n == NULL) {
			/* Cannot queue it: wait for the fence right here. */
			uint32_t t = tally_fence_ticket(ctx->cfg.fence);

			if (tally_fence_wait(ctx->cfg.fence, t, STEER_FENCE_TIMEOUT_US) == 0)
				steer_dmem_free(ctx, mem);
			else
				TALLY_LOG(ERR, "fence timeout: leaking %zu bytes", mem->size);
			return;
		}
		for (i = 0; i < ctx->dq_len; i++)
			n[i] = ctx->dq[(ctx->dq_head + i) % ctx->dq_cap];
		tally_free(ctx->dq);
		ctx->host_bytes += (uint64_t)(cap - ctx->dq_cap) * sizeof(*n);
		ctx->dq = n;
		ctx->dq_cap = cap;
		ctx->dq_head = 0;
	}
	d = &ctx->dq[(ctx->dq_head + ctx->dq_len) % ctx->dq_cap];
	d->mem = *mem;
	d->ticket = tally_fence_ticket(ctx->cfg.fence);
	/* dq_len is read without the lock by tally_steer_ctx_reclaim() */
	__atomic_store_n(&ctx->dq_len, ctx->dq_len + 1, __ATOMIC_RELAXED);
	ctx->dev_deferred += mem->size;
	memset(mem, 0, sizeof(*mem));
	tally_fence_request(ctx->cfg.fence);
}

void
steer_reclaim_locked(struct tally_steer_ctx *ctx)
{
	while (ctx->dq_len > 0) {
		struct steer_deferred *d = &ctx->dq[ctx->dq_head];

		if (!tally_fence_done(ctx->cfg.fence, d->ticket))
			break;
		ctx->dev_deferred -= d->mem.size;
		steer_dmem_free(ctx, &d->mem);
		ctx->dq_head = (ctx->dq_head + 1) % ctx->dq_cap;
		__atomic_store_n(&ctx->dq_len, ctx->dq_len - 1, __ATOMIC_RELAXED);
	}
}

void
tally_steer_ctx_reclaim(struct tally_steer_ctx *ctx)
{
	/* A hint read without the lock: a queue that just became non-empty
	 * is reclaimed by a later call. Keeps the common case lock-free. */
	if (__atomic_load_n(&ctx->dq_len, __ATOMIC_RELAXED) == 0)
		return;
	tally_lock(ctx->lock);
	steer_reclaim_locked(ctx);
	tally_unlock(ctx->lock);
}

void
tally_steer_ctx_reclaim_locked(struct tally_steer_ctx *ctx)
{
	if (ctx->dq_len > 0)
		steer_reclaim_locked(ctx);
}

int
tally_steer_ctx_sync_locked(struct tally_steer_ctx *ctx, uint64_t timeout_us)
{
	int rc;

	rc = tally_fence_wait(ctx->cfg.fence, tally_fence_ticket(ctx->cfg.fence),
			      timeout_us);
	steer_reclaim_locked(ctx);
	if (ctx->cfg.cnt != NULL) {
		if (ctx->cfg.cnt->lock == ctx->lock)
			tally_cnt_reclaim_locked(ctx->cfg.cnt);
		else
			tally_cnt_reclaim(ctx->cfg.cnt);
	}
	return rc;
}

int
tally_steer_ctx_sync(struct tally_steer_ctx *ctx, uint64_t timeout_us)
{
	int rc;

	tally_lock(ctx->lock);
	rc = tally_steer_ctx_sync_locked(ctx, timeout_us);
	tally_unlock(ctx->lock);
	return rc;
}

void
tally_steer_ctx_mem_locked(struct tally_steer_ctx *ctx, struct tally_steer_mem_stats *st)
{
	st->dev_bytes = ctx->dev_bytes;
	st->dev_deferred = ctx->dev_deferred;
	st->host_bytes = ctx->host_bytes;
	st->rules = ctx->nrules;
}

void
tally_steer_ctx_mem(struct tally_steer_ctx *ctx, struct tally_steer_mem_stats *st)
{
	tally_lock(ctx->lock);
	tally_steer_ctx_mem_locked(ctx, st);
	tally_unlock(ctx->lock);
}

void
steer_dmem_fini(struct tally_steer_ctx *ctx)
{
	while (ctx->dq_len > 0) {
		steer_dmem_free(ctx, &ctx->dq[ctx->dq_head].mem);
		ctx->dq_head = (ctx->dq_head + 1) % ctx->dq_cap;
		ctx->dq_len--;
	}
	tally_free(ctx->dq);
	ctx->dq = NULL;
}
