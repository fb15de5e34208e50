/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Incremental hash array migration: growth, tombstone purge and shrink
 * without one operation paying for a whole rehash.
 *
 * The published array (m->ent) stays the device's truth until the end: every
 * insert and delete is applied to it first, exactly as without a migration.
 * The target array (m->mig) is private host memory until published; inserts
 * and deletes are mirrored into it, and each operation also copies at least
 * m->mig_step entries of the old array from mig_cursor on. A rule handle
 * says by its slot parity which array its slot indexes: a handle whose rule
 * was copied (or inserted during the migration) indexes the target. When the
 * cursor reaches the end, one release store of the descriptor's htab pointer
 * publishes the target, whose parity becomes the published one, so no
 * handle needs rewriting; the old array is freed after a device fence.
 *
 * Sizing: a migration starts when live + dead entries exceed
 * STEER_LOAD_START/8 of the array and targets STEER_LOAD_TARGET/8 live; the
 * step is chosen so the copy is done before either array reaches
 * STEER_LOAD_HARD/8 (which, if it ever happens, finishes the copy at once).
 * steer_make_room(), called by an insert that finds no room, decides when.
 */
#include "tally_steer_internal.h"

uint32_t
steer_mig_target(const struct tally_steer_matcher *m, uint32_t live)
{
	uint32_t log2 = TALLY_MAX(m->min_log2, (uint32_t)STEER_HTAB_MIN_LOG2);

	while ((uint64_t)(live + 1) * 8 > ((uint64_t)STEER_LOAD_TARGET << log2) &&
	       log2 < TALLY_STEER_HTAB_MAX_LOG2)
		log2++;
	return log2;
}

int
steer_mig_start(struct tally_steer_matcher *m, uint32_t log2)
{
	struct steer_htab_sw *t = &m->mig;
	uint32_t room;
	int rc;

	rc = steer_htab_alloc(m, log2, &t->mem, &t->written);
	if (rc != 0)
		return rc;
	t->ent = (uint8_t *)t->mem.va + sizeof(struct tally_steer_htab);
	t->log2 = log2;
	t->used = 0;
	t->tombs = 0;
	m->tbl->ctx->host_bytes += steer_written_size(log2);
	/* operations left before either array reaches the hard load */
	room = TALLY_MIN(((STEER_LOAD_HARD - STEER_LOAD_START) << m->log2) / 8,
			 ((STEER_LOAD_HARD - STEER_LOAD_TARGET) << log2) / 8);
	m->mig_step = TALLY_MAX((uint32_t)STEER_MIG_STEP,
				(uint32_t)(((2ull << m->log2) + room - 1) / TALLY_MAX(room, 1u)));
	m->mig_cursor = 0;
	m->migrating = true;
	return 0;
}

static void
steer_mig_publish(struct tally_steer_matcher *m)
{
	struct tally_steer_ctx *ctx = m->tbl->ctx;
	struct tally_steer_matcher_desc *d = m->desc.va;
	struct steer_htab_sw *t = &m->mig;
	struct steer_dmem old = m->htab;

	/* pairs with the device's acquire load of desc.htab */
	__atomic_store_n(&d->htab, t->mem.iova, __ATOMIC_RELEASE);
	ctx->host_bytes -= steer_written_size(m->log2);
	steer_written_free(m->written, m->log2);
	__atomic_store_n(&m->written, t->written, __ATOMIC_RELAXED);
	/* every entry of the new array came with its bit (no batch inserts
	 * while migrating: steer_room()) */
	m->written_exact = true;
	m->htab = t->mem;
	__atomic_store_n(&m->ent, t->ent, __ATOMIC_RELAXED);
	__atomic_store_n(&m->log2, t->log2, __ATOMIC_RELAXED);
	m->used = t->used;
	m->tombs = t->tombs;
	m->par ^= STEER_SLOT_PAR;
	m->migrating = false;
	memset(t, 0, sizeof(*t));
	steer_dmem_defer(ctx, &old);
}

void
steer_mig_step(struct tally_steer_matcher *m, uint32_t n)
{
	struct tally_steer_ctx *ctx = m->tbl->ctx;
	struct steer_htab_sw *t = &m->mig;
	uint32_t end = 1u << m->log2, npar = m->par ^ STEER_SLOT_PAR;

	while (n-- > 0 && m->mig_cursor < end) {
		uint32_t i = m->mig_cursor++, s, h;
		const struct tally_steer_entry *e = steer_entry(m, i);
		struct tally_steer_rule *r;

		if (steer_state(e->ctrl) != TALLY_STEER_S_VALID)
			continue;
		r = steer_handle(ctx, steer_entry_owner(e, m->nwords));
		if ((r->slot & STEER_SLOT_PAR) == npar)
			continue;	/* inserted during the migration: already there */
		h = tally_steer_hash(e->key, m->nwords, m->seed);
		steer_filter_set(t->ent, t->log2, m->stride, h);
		s = steer_free_slot(t->ent, t->log2, m->stride, h);
		if (steer_state(steer_entry_at(t->ent, m->stride, s)->ctrl) ==
		    TALLY_STEER_S_TOMB)
			t->tombs--;
		memcpy(steer_entry_at(t->ent, m->stride, s), e, m->stride);	/* and owner */
		steer_written_set(t->written, s);
		t->used++;
		r->slot = s | npar;
	}
	if (m->mig_cursor == end)
		steer_mig_publish(m);
}

void
steer_mig_complete(struct tally_steer_matcher *m)
{
	if (m->migrating)
		steer_mig_step(m, UINT32_MAX);
}

void
steer_mig_abort(struct tally_steer_matcher *m)
{
	struct tally_steer_ctx *ctx = m->tbl->ctx;

	if (!m->migrating)
		return;
	steer_dmem_free(ctx, &m->mig.mem);
	ctx->host_bytes -= steer_written_size(m->mig.log2);
	steer_written_free(m->mig.written, m->mig.log2);
	memset(&m->mig, 0, sizeof(m->mig));
	m->migrating = false;
}

/*
 * Room for one more entry: start a migration above the start load (or to
 * shrink a mostly empty array), finish it at once at the hard load. Returns
 * 1 if the published array changed, 0 if not, or -errno (nothing changed).
 */
int
steer_make_room(struct tally_steer_matcher *m)
{
	uint64_t n = 1ull << m->log2, load = (uint64_t)(m->used + m->tombs + 1) * 8;
	uint32_t target;
	int rc;

	if (m->migrating) {
		if (load <= STEER_LOAD_HARD * n &&
		    (uint64_t)(m->mig.used + m->mig.tombs + 1) * 8 <=
		    ((uint64_t)STEER_LOAD_HARD << m->mig.log2))
			return 0;
		steer_mig_complete(m);
		rc = steer_make_room(m);
		return rc < 0 ? rc : 1;
	}
	/* below the start load, and not mostly empty or not allowed to
	 * shrink (a reserved array): the common case */
	if (steer_room(m, 1))
		return 0;
	/* shrink at most 8x per migration, so that one step stays short */
	target = steer_mig_target(m, m->used);
	target = TALLY_MAX(target, m->log2 > 3 ? m->log2 - 3 : 0);
	if (load <= STEER_LOAD_START * n &&
	    !(target < m->log2 && (uint64_t)m->used * 16 < n))
		return 0;
	rc = steer_mig_start(m, target);
	if (rc == 0)
		return 0;
	if (load <= STEER_LOAD_HARD * n)
		return 0;	/* retried by the next insert */
	return rc;
}

void
steer_mig_insert(struct tally_steer_matcher *m, uint32_t ins, uint32_t h,
		 struct tally_steer_rule *r)
{
	const struct tally_steer_entry *src = steer_entry(m, ins);
	struct steer_htab_sw *t = &m->mig;
	uint32_t s = steer_free_slot(t->ent, t->log2, m->stride, h);
	struct tally_steer_entry *e = steer_entry_at(t->ent, m->stride, s);

	if (steer_state(e->ctrl) == TALLY_STEER_S_TOMB)
		t->tombs--;
	steer_filter_set(t->ent, t->log2, m->stride, h);
	memcpy(e, src, m->stride);	/* src's driver word: r */
	steer_written_set(t->written, s);
	t->used++;
	r->slot = s | (m->par ^ STEER_SLOT_PAR);
	steer_mig_step(m, m->mig_step);
}
