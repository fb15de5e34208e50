/* SPDX-License-Identifier: BSD-3-Clause */
/* Actions: validation, encoding, resource references (counters, RSS sets,
 * jump edges with cycle detection) and RSS queue sets. */
#include "tally_steer_internal.h"

static struct steer_edge *
steer_edge_find(struct tally_steer_table *t, uint32_t dst)
{
	uint32_t i;

	for (i = 0; i < t->nout; i++)
		if (t->out[i].dst == dst)
			return &t->out[i];
	return NULL;
}

/* True if `target` is reachable from `from` over jump edges. */
static bool
steer_reaches(struct tally_steer_ctx *ctx, struct tally_steer_table *from,
	      uint32_t target, uint32_t epoch)
{
	uint32_t i;

	if (from->id == target)
		return true;
	if (from->visit == epoch)
		return false;
	from->visit = epoch;
	for (i = 0; i < from->nout; i++) {
		struct tally_steer_table *n = ctx->tables[from->out[i].dst];

		if (n != NULL && steer_reaches(ctx, n, target, epoch))
			return true;
	}
	return false;
}

/* Add a reference to edge src -> dst; checks existence and cycles. */
static int
steer_edge_get(struct tally_steer_table *src, uint32_t dst)
{
	struct tally_steer_ctx *ctx = src->ctx;
	struct tally_steer_table *d;
	struct steer_edge *e;

	if (dst >= ctx->cfg.max_tables || ctx->tables[dst] == NULL)
		return -ENOENT;
	if (dst == src->id)
		return -ELOOP;
	d = ctx->tables[dst];
	e = steer_edge_find(src, dst);
	if (e == NULL) {
		if (steer_reaches(ctx, d, src->id, ++ctx->visit_epoch))
			return -ELOOP;
		if (src->nout == src->out_cap) {
			uint32_t cap = src->out_cap ? src->out_cap * 2 : 4;
			struct steer_edge *n = tally_zmalloc(cap * sizeof(*n));

			if (n == NULL)
				return -ENOMEM;
			if (src->nout)
				memcpy(n, src->out, src->nout * sizeof(*n));
			tally_free(src->out);
			ctx->host_bytes += (cap - src->out_cap) * sizeof(*n);
			src->out = n;
			src->out_cap = cap;
		}
		e = &src->out[src->nout++];
		e->dst = dst;
		e->ref = 0;
	}
	e->ref++;
	d->in_refs++;
	return 0;
}

void
steer_edge_put(struct tally_steer_table *src, uint32_t dst)
{
	struct steer_edge *e = steer_edge_find(src, dst);

	if (e == NULL)
		return;
	src->ctx->tables[dst]->in_refs--;
	if (--e->ref == 0)
		*e = src->out[--src->nout];
}

static int
steer_rss_get(struct tally_steer_ctx *ctx, uint32_t id)
{
	if (id >= ctx->cfg.max_rss || !ctx->rss_sw[id].used)
		return -ENOENT;
	ctx->rss_sw[id].ref++;
	return 0;
}

int
steer_action_acquire(struct tally_steer_table *tbl,
		     const struct tally_steer_action *act, uint32_t *act_w,
		     uint32_t *fate_w)
{
	struct tally_steer_ctx *ctx = tbl->ctx;
	uint32_t a;
	int rc = 0;

	if (act->flags & ~(TALLY_STEER_A_COUNT | TALLY_STEER_A_MARK | TALLY_STEER_A_FLAG |
			   TALLY_STEER_A_CNT_HELD))
		return -EINVAL;
	if ((act->flags & TALLY_STEER_A_CNT_HELD) && !(act->flags & TALLY_STEER_A_COUNT))
		return -EINVAL;
	if ((act->flags & TALLY_STEER_A_COUNT) && act->counter >= TALLY_CNT_MAX)
		return -EINVAL;
	if (steer_act_bits(act, &a) != 0)
		return -EINVAL;
	if (ctx->cfg.sw ? (act->flags & (TALLY_STEER_A_MARK | TALLY_STEER_A_FLAG)) ||
			  act->fate == TALLY_STEER_FATE_QUEUE || act->fate == TALLY_STEER_FATE_RSS :
			  act->fate == TALLY_STEER_FATE_PORT || act->fate == TALLY_STEER_FATE_SWACT)
		return -EINVAL;
	switch (act->fate) {
	case TALLY_STEER_FATE_PORT:
		if ((act->arg & ~(uint32_t)TALLY_STEER_PORT_WORD_M) != 0 ||
		    TALLY_FIELD_GET(act->arg, TALLY_STEER_PORT_M) >= ctx->cfg.nb_ports)
			return -EINVAL;
		break;
	case TALLY_STEER_FATE_QUEUE:
		if (act->arg >= ctx->cfg.nb_queues)
			return -EINVAL;
		break;
	case TALLY_STEER_FATE_RSS:
	case TALLY_STEER_FATE_SWACT:
		rc = steer_rss_get(ctx, act->arg);
		break;
	case TALLY_STEER_FATE_JUMP:
		rc = steer_edge_get(tbl, act->arg);
		break;
	default:
		break;
	}
	if (rc != 0)
		return rc;
	if (act->flags & TALLY_STEER_A_COUNT) {
		if (ctx->cfg.cnt != NULL && !(act->flags & TALLY_STEER_A_CNT_HELD))
			rc = tally_cnt_ref(ctx->cfg.cnt, act->counter);
		if (rc != 0) {
			steer_action_release(tbl, a, act->arg);
			return rc;
		}
		a |= TALLY_STEER_ACT_COUNT | TALLY_FIELD_PREP(TALLY_STEER_ACT_CNT_M, act->counter);
	}
	*act_w = a;
	*fate_w = (a & (TALLY_STEER_ACT_QUEUE | TALLY_STEER_ACT_RSS | TALLY_STEER_ACT_JUMP)) ?
		  act->arg : 0;
	return 0;
}

void
steer_action_decode(uint32_t a, uint32_t mark, uint32_t fate, bool sw,
		    struct tally_steer_action *act)
{
	memset(act, 0, sizeof(*act));
	if (a & TALLY_STEER_ACT_COUNT) {
		act->flags |= TALLY_STEER_A_COUNT;
		act->counter = TALLY_FIELD_GET(a, TALLY_STEER_ACT_CNT_M);
	}
	if (a & TALLY_STEER_ACT_MARK) {
		act->flags |= TALLY_STEER_A_MARK;
		act->mark = mark;
	}
	if (a & TALLY_STEER_ACT_FLAG)
		act->flags |= TALLY_STEER_A_FLAG;
	if (a & TALLY_STEER_ACT_DROP)
		act->fate = TALLY_STEER_FATE_DROP;
	else if (a & TALLY_STEER_ACT_MISS)
		act->fate = TALLY_STEER_FATE_MISS;
	else if (a & TALLY_STEER_ACT_CONTINUE)
		act->fate = TALLY_STEER_FATE_PASSTHRU;
	else if (a & TALLY_STEER_ACT_QUEUE)
		act->fate = TALLY_STEER_FATE_QUEUE;
	else if (a & TALLY_STEER_ACT_RSS)
		act->fate = TALLY_STEER_FATE_RSS;
	else if (a & TALLY_STEER_ACT_JUMP)
		act->fate = TALLY_STEER_FATE_JUMP;
	if (sw && act->fate == TALLY_STEER_FATE_QUEUE)
		act->fate = TALLY_STEER_FATE_PORT;
	else if (sw && act->fate == TALLY_STEER_FATE_RSS)
		act->fate = TALLY_STEER_FATE_SWACT;
	if (act->fate != TALLY_STEER_FATE_NONE && act->fate != TALLY_STEER_FATE_DROP &&
	    act->fate != TALLY_STEER_FATE_MISS && act->fate != TALLY_STEER_FATE_PASSTHRU)
		act->arg = fate;
}

/* A free RSS/switch-action slot (its fence passed), or max_rss. */
static uint32_t
steer_set_slot(struct tally_steer_ctx *ctx)
{
	uint32_t i;

	for (i = 0; i < ctx->cfg.max_rss; i++) {
		struct steer_rss_sw *s = &ctx->rss_sw[i];

		if (s->used)
			continue;
		if (s->pending) {
			if (!tally_fence_done(ctx->cfg.fence, s->ticket))
				continue;
			s->pending = 0;
		}
		break;
	}
	return i;
}

int
tally_steer_rss_create_locked(struct tally_steer_ctx *ctx, uint32_t hf,
			      const uint16_t *queues, uint16_t nq, uint32_t *id)
{
	struct tally_steer_rss *r;
	uint32_t i;

	if (ctx->cfg.sw || nq == 0 || nq > TALLY_STEER_RSS_MAX_QUEUES || queues == NULL ||
	    id == NULL)
		return -EINVAL;
	for (i = 0; i < nq; i++)
		if (queues[i] >= ctx->cfg.nb_queues)
			return -EINVAL;
	i = steer_set_slot(ctx);
	if (i == ctx->cfg.max_rss)
		return -ENOSPC;
	r = &ctx->rss_hw[i];
	memset(r, 0, sizeof(*r));
	r->hf = hf;
	memcpy(r->queues, queues, nq * sizeof(queues[0]));
	/* No rule names slot i yet; rules published later order after this. */
	__atomic_store_n(&r->nq, nq, __ATOMIC_RELEASE);
	ctx->rss_sw[i].used = 1;
	ctx->rss_sw[i].ref = 0;
	*id = i;
	return 0;
}

int
tally_steer_swact_create_locked(struct tally_steer_ctx *ctx,
				const struct tally_steer_swact *a, uint32_t *id)
{
	struct tally_steer_swact *w;
	uint32_t i;

	_Static_assert(sizeof(*w) == sizeof(struct tally_steer_rss),
		       "a switch action set takes an RSS set's slot");
	if (!ctx->cfg.sw || a == NULL || id == NULL ||
	    (a->flags & ~(uint32_t)TALLY_SWACT_FLAGS_M) != 0)
		return -EINVAL;
	if ((a->flags & TALLY_SWACT_FWD) &&
	    ((a->port & ~(uint32_t)TALLY_STEER_PORT_WORD_M) != 0 ||
	     TALLY_FIELD_GET(a->port, TALLY_STEER_PORT_M) >= ctx->cfg.nb_ports))
		return -EINVAL;
	i = steer_set_slot(ctx);
	if (i == ctx->cfg.max_rss)
		return -ENOSPC;
	w = (struct tally_steer_swact *)(void *)&ctx->rss_hw[i];
	memcpy(w, a, sizeof(*w));
	w->flags = 0;
	/* No rule names slot i yet; rules published later order after this. */
	__atomic_store_n(&w->flags, a->flags | TALLY_SWACT_VALID, __ATOMIC_RELEASE);
	ctx->rss_sw[i].used = 1;
	ctx->rss_sw[i].ref = 0;
	*id = i;
	return 0;
}

int
tally_steer_rss_create(struct tally_steer_ctx *ctx, uint32_t hf,
		       const uint16_t *queues, uint16_t nq, uint32_t *id)
{
	int rc;

	tally_lock(ctx->lock);
	rc = tally_steer_rss_create_locked(ctx, hf, queues, nq, id);
	tally_unlock(ctx->lock);
	return rc;
}

int
tally_steer_rss_destroy_locked(struct tally_steer_ctx *ctx, uint32_t id)
{
	struct steer_rss_sw *s;

	if (id >= ctx->cfg.max_rss)
		return -ENOENT;
	s = &ctx->rss_sw[id];
	if (!s->used)
		return -ENOENT;
	if (s->ref != 0)
		return -EBUSY;
	s->used = 0;
	s->pending = 1;
	s->ticket = tally_fence_ticket(ctx->cfg.fence);
	tally_fence_request(ctx->cfg.fence);
	return 0;
}

int
tally_steer_rss_destroy(struct tally_steer_ctx *ctx, uint32_t id)
{
	int rc;

	tally_lock(ctx->lock);
	rc = tally_steer_rss_destroy_locked(ctx, id);
	tally_unlock(ctx->lock);
	return rc;
}
