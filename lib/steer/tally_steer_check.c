/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Consistency check of a matcher's hash arrays (tests and debugging; a
 * control operation that reads every entry): entry states against the
 * counts, the written bitmap against the entries, every rule's presence
 * filter bit, rule handles against the slots that hold them.
 */
#include "tally_steer_internal.h"

static int
steer_check_array(const struct tally_steer_matcher *m, const uint8_t *ent,
		  const uint64_t *written, bool exact, uint32_t log2, uint32_t par,
		  uint32_t used, uint32_t tombs)
{
	const struct tally_steer_ctx *ctx = m->tbl->ctx;
	uint32_t n = 1u << log2, s, nv = 0, nt = 0;

	for (s = 0; s < n; s++) {
		const struct tally_steer_entry *e = steer_entry_at(ent, m->stride, s);
		const struct tally_steer_rule *r;
		uint32_t st = steer_state(e->ctrl), owner;

		if (exact && !steer_written_test(written, s)) {
			/* a rule placed without its bit, or a filter bit of a
			 * key whose home never held a rule */
			if (e->ctrl != 0 || tally_steer_filter(ent, log2, m->stride)[s] != 0)
				return -EIO;
			continue;
		}
		if (st == TALLY_STEER_S_TOMB)
			nt++;
		if (st != TALLY_STEER_S_VALID)
			continue;
		nv++;
		/* the device skips a key whose filter bit is clear */
		if (!steer_filter_has(ent, log2, m->stride,
				      tally_steer_hash(e->key, m->nwords, m->seed)))
			return -EIO;
		owner = steer_entry_owner(e, m->nwords);
		if (owner >= ctx->handles)
			return -EIO;
		r = steer_handle(ctx, owner);
		/* during a migration a rule may point into either array */
		if (r->m != m || ((r->slot & STEER_SLOT_PAR) == par &&
				  (r->slot & ~STEER_SLOT_PAR) != s))
			return -EIO;
	}
	return nv == used && nt == tombs ? 0 : -EIO;
}

int
tally_steer_matcher_check_locked(const struct tally_steer_matcher *m)
{
	int rc;

	if (m == NULL)
		return -EINVAL;
	rc = steer_check_array(m, m->ent, m->written, m->written_exact, m->log2, m->par,
			       m->used, m->tombs);
	if (rc == 0 && m->migrating)
		rc = steer_check_array(m, m->mig.ent, m->mig.written, true, m->mig.log2,
				       m->par ^ STEER_SLOT_PAR, m->mig.used, m->mig.tombs);
	/* the stage, and every rule it holds queued for a move */
	if (rc == 0 && m->stage != NULL)
		rc = tally_steer_matcher_check_locked(m->stage);
	if (rc == 0 && m->stage != NULL) {
		const struct tally_steer_matcher *st = m->stage;
		uint32_t s, i, n = 1u << st->log2;

		for (s = 0; rc == 0 && s < n; s++) {
			if (steer_state(steer_entry(st, s)->ctrl) != TALLY_STEER_S_VALID)
				continue;
			for (i = 0; i < m->sq_len; i++)
				if (m->sq[(m->sq_head + i) & (STEER_STAGE_QUEUE - 1)] ==
				    steer_entry_owner(steer_entry(st, s), st->nwords))
					break;
			if (i == m->sq_len)
				rc = -EIO;
		}
	}
	return rc;
}
