/* SPDX-License-Identifier: BSD-3-Clause */
/* Matchers: mask compilation, priority order, create, destroy, reserve.
 * Their hash arrays are tally_steer_htab.c's and tally_steer_migrate.c's. */
#include "tally_steer_internal.h"

static void
steer_matcher_compile(struct tally_steer_matcher *m, const struct tally_match_key *mask)
{
	uint32_t i, w;

	m->nwords = 0;
	for (i = 0; i < TALLY_STEER_KEY_WORDS; i++) {
		w = tally_steer_key_word(mask, i);
		if (w == 0)
			continue;
		m->widx[m->nwords] = (uint8_t)i;
		m->wmask[m->nwords] = w;
		m->nwords++;
	}
	m->stride = STEER_ENTRY_STRIDE(m->nwords);
}

void
steer_matcher_free(struct tally_steer_matcher *m)
{
	struct tally_steer_ctx *ctx = m->tbl->ctx;

	steer_mig_abort(m);
	steer_dmem_free(ctx, &m->htab);
	steer_dmem_free(ctx, &m->desc);
	ctx->host_bytes -= sizeof(*m) + steer_written_size(m->log2);
	steer_written_free(m->written, m->log2);
	tally_free(m);
}

int
steer_matcher_setup(struct tally_steer_matcher *m, uint32_t log2)
{
	struct tally_steer_ctx *ctx = m->tbl->ctx;
	struct tally_steer_matcher_desc *d;
	uint32_t i;
	int rc;

	rc = steer_dmem_alloc(ctx, TALLY_STEER_MATCHER_SIZE(m->nwords), 64, &m->desc);
	if (rc != 0)
		return rc;
	rc = steer_htab_alloc(m, log2, &m->htab, &m->written);
	if (rc != 0) {
		steer_dmem_free(ctx, &m->desc);
		return rc;
	}
	m->log2 = log2;
	m->written_exact = true;
	m->ent = (uint8_t *)m->htab.va + sizeof(struct tally_steer_htab);
	d = m->desc.va;
	d->magic = TALLY_STEER_MATCHER_MAGIC;
	d->nwords = m->nwords;
	d->priority = m->priority;
	d->id = m->seq;
	d->htab = m->htab.iova;
	for (i = 0; i < m->nwords; i++) {
		d->words[i].idx = m->widx[i];
		d->words[i].mask = m->wmask[i];
	}
	ctx->host_bytes += sizeof(*m) + steer_written_size(log2);
	return 0;
}

int
tally_steer_matcher_create_locked(struct tally_steer_table *tbl, uint32_t priority,
				  const struct tally_match_key *mask,
				  struct tally_steer_matcher **out)
{
	struct tally_steer_ctx *ctx = tbl->ctx;
	struct tally_steer_matcher *m;
	uint32_t pos;
	int rc;

	if (mask == NULL || out == NULL)
		return -EINVAL;
	m = tally_zmalloc_aligned(sizeof(*m), STEER_LINE);
	if (m == NULL)
		return -ENOMEM;
	m->tbl = tbl;
	m->priority = priority;
	steer_matcher_compile(m, mask);
	if (tbl->nm == TALLY_STEER_MAX_MATCHERS) {
		rc = -ENOSPC;
		goto fail;
	}
	m->seq = ctx->matcher_seq++;
	m->seed = 0x9e3779b9u * (m->seq + 1);
	rc = steer_matcher_setup(m, STEER_HTAB_MIN_LOG2);
	if (rc != 0)
		goto fail;
	/* insert after every matcher with priority <= ours (stable order) */
	for (pos = 0; pos < tbl->nm && tbl->m[pos]->priority <= priority; pos++)
		;
	rc = steer_table_add_at(tbl, m, pos);
	if (rc != 0) {
		steer_matcher_free(m);
		return rc;
	}
	steer_reclaim_locked(ctx);
	*out = m;
	return 0;
fail:
	tally_free(m);
	return rc;
}

int
tally_steer_matcher_create(struct tally_steer_table *tbl, uint32_t priority,
			   const struct tally_match_key *mask,
			   struct tally_steer_matcher **out)
{
	struct tally_steer_ctx *ctx = tbl->ctx;
	int rc;

	tally_lock(ctx->lock);
	rc = tally_steer_matcher_create_locked(tbl, priority, mask, out);
	tally_unlock(ctx->lock);
	return rc;
}

/* Take parked m off its table's parked list. */
static void
steer_park_unlink(struct tally_steer_matcher *m)
{
	struct tally_steer_matcher **pp = &m->tbl->parked;

	while (*pp != m)
		pp = &(*pp)->park_next;
	*pp = m->park_next;
	m->park_next = NULL;
	m->parked = false;
}

int
tally_steer_matcher_destroy_locked(struct tally_steer_matcher *m)
{
	struct tally_steer_ctx *ctx = m->tbl->ctx;
	int rc;

	if (tally_steer_matcher_rules(m) != 0)
		return -EBUSY;
	if (m->parked) {
		steer_park_unlink(m);
	} else {
		rc = steer_table_remove(m->tbl, m);
		if (rc != 0)
			return rc;
	}
	/* the device may still walk it until the fence requested above */
	if (m->stage != NULL) {
		steer_dmem_defer(ctx, &m->stage->htab);
		steer_dmem_defer(ctx, &m->stage->desc);
		steer_matcher_free(m->stage);
	}
	steer_dmem_defer(ctx, &m->htab);
	steer_dmem_defer(ctx, &m->desc);
	steer_matcher_free(m);
	steer_reclaim_locked(ctx);
	return 0;
}

int
tally_steer_matcher_park_locked(struct tally_steer_matcher *m)
{
	struct tally_steer_table *tbl = m->tbl;
	int rc;

	if (m->twin != NULL)
		return -EINVAL;		/* a stage goes with its matcher */
	if (m->parked)
		return 0;
	if (tally_steer_matcher_rules(m) != 0)
		return -EBUSY;
	rc = steer_table_remove(tbl, m);
	if (rc != 0)
		return rc;
	m->parked = true;
	m->park_next = tbl->parked;
	tbl->parked = m;
	steer_reclaim_locked(tbl->ctx);
	return 0;
}

int
tally_steer_matcher_unpark_locked(struct tally_steer_matcher *m)
{
	struct tally_steer_table *tbl = m->tbl;
	struct tally_steer_matcher *list[TALLY_STEER_MAX_MATCHERS];
	uint32_t i, pos, n, add = m->stage != NULL ? 2 : 1;
	int rc;

	if (!m->parked)
		return 0;
	if (tbl->nm + add > TALLY_STEER_MAX_MATCHERS)
		return -ENOSPC;
	/* its place at create: after the matchers of lower priority and those
	 * of its own created before it (a stage sits right before its twin) */
	for (pos = 0; pos < tbl->nm; pos++) {
		const struct tally_steer_matcher *o = tbl->m[pos];

		if (o->priority > m->priority ||
		    (o->priority == m->priority && o->seq > m->seq))
			break;
	}
	memcpy(list, tbl->m, pos * sizeof(list[0]));
	n = pos;
	if (m->stage != NULL)
		list[n++] = m->stage;
	list[n++] = m;
	for (i = pos; i < tbl->nm; i++)
		list[n++] = tbl->m[i];
	rc = steer_table_publish(tbl, list, n);
	if (rc != 0)
		return rc;
	steer_park_unlink(m);
	return 0;
}

bool
tally_steer_matcher_parked(const struct tally_steer_matcher *m)
{
	return m->parked;
}

int
tally_steer_matcher_destroy(struct tally_steer_matcher *m)
{
	struct tally_steer_ctx *ctx = m->tbl->ctx;
	int rc;

	tally_lock(ctx->lock);
	rc = tally_steer_matcher_destroy_locked(m);
	tally_unlock(ctx->lock);
	return rc;
}

uint32_t
tally_steer_matcher_nwords(const struct tally_steer_matcher *m)
{
	return m->nwords;
}

uint32_t
tally_steer_matcher_rules(const struct tally_steer_matcher *m)
{
	return m->used + (m->stage != NULL ? m->stage->used : 0);
}

uint32_t
tally_steer_matcher_staged(const struct tally_steer_matcher *m)
{
	return m->stage != NULL ? m->stage->used : 0;
}

uint32_t
tally_steer_matcher_log2(const struct tally_steer_matcher *m)
{
	return m->log2;
}

uint32_t
tally_steer_matcher_tombs(const struct tally_steer_matcher *m)
{
	return m->tombs;
}

bool
tally_steer_matcher_migrating(const struct tally_steer_matcher *m)
{
	return m->migrating;
}

/* Array size (log2) for nb_rules without a migration, or 0 if too large:
 * it holds up to START/8 live or dead entries before one starts. */
static uint32_t
steer_reserve_log2(uint32_t nb_rules)
{
	uint32_t log2 = STEER_HTAB_MIN_LOG2;

	while ((uint64_t)nb_rules * 8 > ((uint64_t)STEER_LOAD_START << log2) &&
	       log2 < TALLY_STEER_HTAB_MAX_LOG2)
		log2++;
	if ((uint64_t)nb_rules * 8 > ((uint64_t)STEER_LOAD_START << log2))
		return 0;
	return log2;
}

size_t
tally_steer_reserve_bytes(uint32_t nb_rules, uint32_t nwords)
{
	uint32_t log2 = steer_reserve_log2(nb_rules);

	if (log2 == 0 || nwords > TALLY_STEER_KEY_WORDS)
		return 0;
	return TALLY_STEER_HTAB_FSIZE(log2, STEER_ENTRY_STRIDE(nwords));
}

int
tally_steer_matcher_reserve_locked(struct tally_steer_matcher *m, uint32_t nb_rules)
{
	uint32_t log2;
	int rc = 0;

	if (m == NULL)
		return -EINVAL;
	log2 = steer_reserve_log2(nb_rules);
	if (log2 == 0)
		return -ENOSPC;
	steer_mig_complete(m);
	if (log2 > m->log2)
		rc = steer_htab_rehash(m, log2);
	if (rc == 0 && log2 > m->min_log2)
		m->min_log2 = log2;
	steer_reclaim_locked(m->tbl->ctx);
	return rc;
}

int
tally_steer_matcher_reserve(struct tally_steer_matcher *m, uint32_t nb_rules)
{
	struct tally_steer_ctx *ctx;
	int rc;

	if (m == NULL)
		return -EINVAL;
	ctx = m->tbl->ctx;
	tally_lock(ctx->lock);
	rc = tally_steer_matcher_reserve_locked(m, nb_rules);
	tally_unlock(ctx->lock);
	return rc;
}

void
tally_steer_matcher_set_udata(struct tally_steer_matcher *m, void *udata)
{
	m->udata = udata;
	if (m->stage != NULL)
		m->stage->udata = udata;
}

void *
tally_steer_matcher_udata(const struct tally_steer_matcher *m)
{
	return m->udata;
}
