/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Steering context life cycle: create (root, table and RSS arrays) and
 * destroy. The top of lib/steer: destroy tears down every table, matcher and
 * rule; the device memory and deferred frees are tally_steer_mem.c's.
 */
#include "tally_steer_internal.h"

static void
steer_write_root(struct tally_steer_ctx *ctx, uint64_t iova, uint32_t ctrl)
{
	const struct tally_io *io = ctx->cfg.io;
	const bool sw = ctx->cfg.sw;

	tally_wmb();
	io->ops->write32(io->ctx, sw ? TALLY_REG_SW_CTRL : TALLY_REG_STEER_CTRL, 0);
	io->ops->write32(io->ctx, sw ? TALLY_REG_SW_ROOT_LO : TALLY_REG_STEER_ROOT_LO,
			 (uint32_t)iova);
	io->ops->write32(io->ctx, sw ? TALLY_REG_SW_ROOT_HI : TALLY_REG_STEER_ROOT_HI,
			 (uint32_t)(iova >> 32));
	io->ops->write32(io->ctx, sw ? TALLY_REG_SW_CTRL : TALLY_REG_STEER_CTRL, ctrl);
}

static int
steer_ctx_alloc_hw(struct tally_steer_ctx *ctx)
{
	struct tally_steer_root *root;
	int rc;

	rc = steer_dmem_alloc(ctx, sizeof(*root), 64, &ctx->root_mem);
	if (rc == 0)
		rc = steer_dmem_alloc(ctx, (size_t)ctx->cfg.max_tables *
				      sizeof(struct tally_steer_tbl), 64, &ctx->tbl_mem);
	if (rc == 0)
		rc = steer_dmem_alloc(ctx, (size_t)ctx->cfg.max_rss *
				      sizeof(struct tally_steer_rss), 64, &ctx->rss_mem);
	if (rc != 0)
		return rc;
	ctx->tbl_hw = ctx->tbl_mem.va;
	ctx->rss_hw = ctx->rss_mem.va;
	memset(ctx->tbl_hw, 0, ctx->tbl_mem.size);
	memset(ctx->rss_hw, 0, ctx->rss_mem.size);
	root = ctx->root_mem.va;
	root->magic = TALLY_STEER_ROOT_MAGIC;
	root->version = TALLY_FIELD_PREP(TALLY_STEER_ROOT_VER_MAJOR_M, TALLY_STEER_FMT_MAJOR) |
			TALLY_FIELD_PREP(TALLY_STEER_ROOT_VER_MINOR_M, TALLY_STEER_FMT_MINOR);
	root->num_tables = ctx->cfg.max_tables;
	root->num_rss = ctx->cfg.max_rss;
	root->tables_iova = ctx->tbl_mem.iova;
	root->rss_iova = ctx->rss_mem.iova;
	return 0;
}

static void
steer_ctx_free(struct tally_steer_ctx *ctx)
{
	uint32_t i;

	if (ctx->tables != NULL) {
		for (i = 0; i < ctx->cfg.max_tables; i++) {
			struct tally_steer_table *t = ctx->tables[i];
			uint32_t j;

			if (t == NULL)
				continue;
			for (j = 0; j < t->nm; j++) {
				steer_rules_free_all(t->m[j]);
				steer_matcher_free(t->m[j]);
			}
			while (t->parked != NULL) {	/* no rules, out of the list */
				struct tally_steer_matcher *pm = t->parked;

				t->parked = pm->park_next;
				if (pm->stage != NULL)
					steer_matcher_free(pm->stage);
				steer_matcher_free(pm);
			}
			steer_dmem_free(ctx, &t->mlist);
			tally_free(t->out);
			tally_free(t);
		}
	}
	steer_dmem_fini(ctx);
	for (i = 0; i < ctx->nchunks; i++)
		tally_hmem_free(ctx->chunk[i], steer_chunk_size(ctx));
	tally_free(ctx->chunk);
	steer_dmem_free(ctx, &ctx->rss_mem);
	steer_dmem_free(ctx, &ctx->tbl_mem);
	steer_dmem_free(ctx, &ctx->root_mem);
	tally_free(ctx->tables);
	tally_free(ctx->rss_sw);
	tally_free(ctx);
}

int
tally_steer_ctx_create(const struct tally_steer_config *cfg,
		       struct tally_steer_ctx **out)
{
	struct tally_steer_ctx *ctx;
	int rc;

	if (cfg == NULL || out == NULL || cfg->io == NULL || cfg->fence == NULL ||
	    cfg->rule_priv > TALLY_STEER_RULE_PRIV_MAX ||
	    cfg->mem.alloc == NULL || cfg->mem.free == NULL ||
	    cfg->max_tables > TALLY_STEER_MAX_TABLES ||
	    cfg->max_rss > TALLY_STEER_MAX_RSS || cfg->nb_queues > 65536 ||
	    (cfg->sw && (cfg->nb_ports == 0 || cfg->nb_ports > TALLY_MAX_PORTS)))
		return -EINVAL;
	ctx = tally_zmalloc(sizeof(*ctx));
	if (ctx == NULL)
		return -ENOMEM;
	tally_lock_init(&ctx->own_lock);
	ctx->lock = cfg->lock != NULL ? cfg->lock : &ctx->own_lock;
	ctx->cfg = *cfg;
	if (ctx->cfg.max_tables == 0)
		ctx->cfg.max_tables = 256;
	if (ctx->cfg.max_rss == 0)
		ctx->cfg.max_rss = 256;
	if (ctx->cfg.max_rules == 0)
		ctx->cfg.max_rules = UINT32_MAX - 1;
	if (ctx->cfg.nb_queues == 0)
		ctx->cfg.nb_queues = TALLY_MAX_QUEUES;
	ctx->free_handle = STEER_HANDLE_NONE;
	ctx->hstride = (uint32_t)((sizeof(struct tally_steer_rule) + cfg->rule_priv + 7) & ~7u);
	ctx->tables = tally_zmalloc(ctx->cfg.max_tables * sizeof(ctx->tables[0]));
	ctx->rss_sw = tally_zmalloc(ctx->cfg.max_rss * sizeof(ctx->rss_sw[0]));
	if (ctx->tables == NULL || ctx->rss_sw == NULL) {
		steer_ctx_free(ctx);
		return -ENOMEM;
	}
	ctx->host_bytes = sizeof(*ctx) +
		ctx->cfg.max_tables * sizeof(ctx->tables[0]) +
		ctx->cfg.max_rss * sizeof(ctx->rss_sw[0]);
	rc = steer_ctx_alloc_hw(ctx);
	if (rc != 0) {
		steer_ctx_free(ctx);
		return rc;
	}
	_Static_assert(TALLY_STEER_CTRL_EN == TALLY_SW_CTRL_EN, "one enable bit");
	steer_write_root(ctx, ctx->root_mem.iova, TALLY_STEER_CTRL_EN);
	*out = ctx;
	return 0;
}

void
tally_steer_ctx_destroy(struct tally_steer_ctx *ctx)
{
	if (ctx == NULL)
		return;
	steer_write_root(ctx, 0, 0);
	if (tally_fence_wait(ctx->cfg.fence, tally_fence_ticket(ctx->cfg.fence),
			     STEER_FENCE_TIMEOUT_US) != 0)
		TALLY_LOG(WARNING, "fence timeout; freeing steering memory anyway");
	steer_ctx_free(ctx);
}

uint64_t
tally_steer_ctx_root_iova(const struct tally_steer_ctx *ctx)
{
	return ctx->root_mem.iova;
}
