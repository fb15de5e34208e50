/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A matcher's hash arrays: allocation (device array and host written bitmap) and
 * the rebuild at once, without tombstones, that reserve() and a stage's purge
 * use. The incremental rebuild is tally_steer_migrate.c's.
 */
#include "tally_steer_internal.h"

/* Allocate a hash array of 2^log2 entries (all EMPTY) and its written bitmap. */
int
steer_htab_alloc(struct tally_steer_matcher *m, uint32_t log2,
		 struct steer_dmem *mem, uint64_t **written)
{
	struct tally_steer_ctx *ctx = m->tbl->ctx;
	struct tally_steer_htab *h;
	int rc;

	if (log2 > TALLY_STEER_HTAB_MAX_LOG2)
		return -ENOSPC;
	/* random accesses: huge pages where offered (and none touched yet) */
	*written = tally_hmem_alloc(steer_written_size(log2), true);
	if (*written == NULL)
		return -ENOMEM;
	rc = steer_dmem_alloc(ctx, TALLY_STEER_HTAB_FSIZE(log2, m->stride), 64, mem);
	if (rc != 0) {
		steer_written_free(*written, log2);
		return rc;
	}
	/* mem ops return zeroed memory: every entry reads EMPTY (ctrl 0) */
	h = mem->va;
	h->magic = TALLY_STEER_HTAB_MAGIC;
	h->log2_size = log2;
	h->nwords = m->nwords;
	h->stride = m->stride;
	h->seed = m->seed;
	h->flags = STEER_HTAB_FLAGS;
	return 0;
}

/*
 * Rebuild the hash array at 2^log2 entries without tombstones, publish it
 * and retire the old one after a fence. Rule handles follow their entries.
 * On failure nothing changed.
 */
int
steer_htab_rehash(struct tally_steer_matcher *m, uint32_t log2)
{
	struct tally_steer_ctx *ctx = m->tbl->ctx;
	struct tally_steer_matcher_desc *d = m->desc.va;
	struct steer_dmem nmem, old = m->htab;
	uint32_t old_n = 1u << m->log2, mask = (1u << log2) - 1, i;
	uint64_t *nwritten;
	uint8_t *nent;
	int rc;

	rc = steer_htab_alloc(m, log2, &nmem, &nwritten);
	if (rc != 0)
		return rc;
	/* only reserve() rebuilds at once: a control operation, so the page
	 * faults of the new array are taken here rather than by inserts */
	tally_hmem_populate((uint8_t *)nmem.va + sizeof(struct tally_steer_htab),
		       nmem.size - sizeof(struct tally_steer_htab));
	tally_hmem_populate(nwritten, steer_written_size(log2));
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
		memcpy(ne, e, m->stride);	/* the driver word with it */
		steer_written_set(nwritten, s);
		steer_handle(ctx, steer_entry_owner(e, m->nwords))->slot = s | m->par;
	}
	/* pairs with the device's acquire load of desc.htab */
	__atomic_store_n(&d->htab, nmem.iova, __ATOMIC_RELEASE);
	ctx->host_bytes += steer_written_size(log2) - steer_written_size(m->log2);
	steer_written_free(m->written, m->log2);
	__atomic_store_n(&m->written, nwritten, __ATOMIC_RELAXED);
	m->written_exact = true;	/* a bit for every entry just placed */
	m->htab = nmem;
	__atomic_store_n(&m->ent, nent, __ATOMIC_RELAXED);
	__atomic_store_n(&m->log2, log2, __ATOMIC_RELAXED);
	m->tombs = 0;
	steer_dmem_defer(ctx, &old);
	return 0;
}
