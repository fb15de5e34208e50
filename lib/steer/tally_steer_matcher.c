/* SPDX-License-Identifier: BSD-3-Clause */
/* Matchers: mask compilation, priority order, hash array (re)building. */
#include <sys/mman.h>

#include "tally_steer_internal.h"

/* Allocate a hash array of 2^log2 entries (all EMPTY) and its shadow. */
int
steer_htab_alloc(struct tally_steer_matcher *m, uint32_t log2,
		 struct steer_dmem *mem, uint32_t **shadow)
{
	struct tally_steer_ctx *ctx = m->tbl->ctx;
	struct tally_steer_htab *h;
	int rc;

	if (log2 > TALLY_STEER_HTAB_MAX_LOG2)
		return -ENOSPC;
	/* random accesses: huge pages where offered (and none touched yet) */
	*shadow = tally_hmem_alloc(steer_shadow_size(log2), true);
	if (*shadow == NULL)
		return -ENOMEM;
	rc = steer_dmem_alloc(ctx, TALLY_STEER_HTAB_FSIZE(log2, m->nwords), 64, mem);
	if (rc != 0) {
		steer_shadow_free(*shadow, log2);
		return rc;
	}
	/* mem ops return zeroed memory: every entry reads EMPTY (ctrl 0) */
	h = mem->va;
	h->magic = TALLY_STEER_HTAB_MAGIC;
	h->log2_size = log2;
	h->nwords = m->nwords;
	h->stride = TALLY_STEER_ENTRY_SIZE(m->nwords);
	h->seed = m->seed;
	h->flags = TALLY_STEER_HTAB_F_FILTER;
	return 0;
}

/*
 * Rebuild the hash array at 2^log2 entries without tombstones, publish it
 * and retire the old one after a fence. Rule handles follow their entries.
 * On failure nothing changed.
 */
int
steer_matcher_rehash(struct tally_steer_matcher *m, uint32_t log2)
{
	struct tally_steer_ctx *ctx = m->tbl->ctx;
	struct tally_steer_matcher_desc *d = m->desc.va;
	struct steer_dmem nmem, old = m->htab;
	uint32_t *nshadow, old_n = 1u << m->log2, mask = (1u << log2) - 1, i;
	uint8_t *nent;
	int rc;

	rc = steer_htab_alloc(m, log2, &nmem, &nshadow);
	if (rc != 0)
		return rc;
	/* only reserve() rebuilds at once: a control operation, so the page
	 * faults of the new array are taken here rather than by inserts */
	tally_hmem_populate((uint8_t *)nmem.va + sizeof(struct tally_steer_htab),
		       nmem.size - sizeof(struct tally_steer_htab));
	tally_hmem_populate(nshadow, steer_shadow_size(log2));
	nent = (uint8_t *)nmem.va + sizeof(struct tally_steer_htab);
	for (i = 0; i < old_n; i++) {
		const struct tally_steer_entry *e = steer_entry(m, i);
		struct tally_steer_entry *ne;
		uint32_t s, hash;

		if (steer_state(e->ctrl) != TALLY_STEER_S_VALID)
			continue;
		hash = tally_steer_hash(e->key, m->nwords, m->seed);
		steer_filter_set(nent, log2, m->stride, hash);
		s = hash & mask;
		for (;;) {
			ne = (struct tally_steer_entry *)(void *)(nent + (size_t)s * m->stride);
			if (ne->ctrl == 0)
				break;
			s = (s + 1) & mask;
		}
		memcpy(ne, e, m->stride);
		steer_shadow_set(nshadow, log2, s, m->shadow[i]);
		steer_handle(ctx, m->shadow[i])->slot = s | m->par;
	}
	/* pairs with the device's acquire load of desc.htab */
	__atomic_store_n(&d->htab, nmem.iova, __ATOMIC_RELEASE);
	ctx->host_bytes += steer_shadow_size(log2) - steer_shadow_size(m->log2);
	steer_shadow_free(m->shadow, m->log2);
	__atomic_store_n(&m->shadow, nshadow, __ATOMIC_RELAXED);
	m->htab = nmem;
	__atomic_store_n(&m->ent, nent, __ATOMIC_RELAXED);
	__atomic_store_n(&m->log2, log2, __ATOMIC_RELAXED);
	m->tombs = 0;
	steer_dmem_defer(ctx, &old);
	return 0;
}

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
	m->stride = TALLY_STEER_ENTRY_SIZE(m->nwords);
}

void
steer_matcher_free(struct tally_steer_matcher *m)
{
	struct tally_steer_ctx *ctx = m->tbl->ctx;

	steer_mig_abort(m);
	steer_dmem_free(ctx, &m->htab);
	steer_dmem_free(ctx, &m->desc);
	ctx->host_bytes -= sizeof(*m) + steer_shadow_size(m->log2);
	steer_shadow_free(m->shadow, m->log2);
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
	rc = steer_htab_alloc(m, log2, &m->htab, &m->shadow);
	if (rc != 0) {
		steer_dmem_free(ctx, &m->desc);
		return rc;
	}
	m->log2 = log2;
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
	ctx->host_bytes += sizeof(*m) + steer_shadow_size(log2);
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
	m = tally_zmalloc(sizeof(*m));
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

int
tally_steer_matcher_destroy_locked(struct tally_steer_matcher *m)
{
	struct tally_steer_table *tbl = m->tbl;
	struct tally_steer_ctx *ctx = tbl->ctx;
	struct tally_steer_matcher *list[TALLY_STEER_MAX_MATCHERS];
	uint32_t i, n = 0;
	int rc;

	if (m->used != 0 || (m->stage != NULL && m->stage->used != 0))
		return -EBUSY;
	for (i = 0; i < tbl->nm; i++)
		if (tbl->m[i] != m && tbl->m[i] != m->stage)
			list[n++] = tbl->m[i];
	rc = steer_table_publish(tbl, list, n);
	if (rc != 0)
		return rc;
	memcpy(tbl->m, list, n * sizeof(list[0]));
	tbl->nm = n;
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
	return TALLY_STEER_HTAB_FSIZE(log2, nwords);
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
		rc = steer_matcher_rehash(m, log2);
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
