/* SPDX-License-Identifier: BSD-3-Clause */
/* Keys built by the caller (tally_steer_batch.h). */
#include "tally_steer_internal.h"
#include "tally_steer_batch.h"

uint32_t
tally_steer_matcher_words(const struct tally_steer_matcher *m, uint8_t *idx,
			  uint32_t *mask)
{
	uint32_t i;

	for (i = 0; i < m->nwords; i++) {
		idx[i] = m->widx[i];
		mask[i] = m->wmask[i];
	}
	return m->nwords;
}

void
tally_steer_key_finish(struct tally_steer_matcher *m, struct tally_steer_key *k)
{
	const uint32_t *shadow;
	const uint8_t *ent;
	uint32_t log2, slot;

	k->hash = tally_steer_hash(k->w, m->nwords, m->seed);
	/* as tally_steer_rule_key(): a stale address only wastes the prefetch */
	ent = __atomic_load_n(&m->ent, __ATOMIC_RELAXED);
	shadow = __atomic_load_n(&m->shadow, __ATOMIC_RELAXED);
	log2 = __atomic_load_n(&m->log2, __ATOMIC_RELAXED);
	slot = k->hash & ((1u << log2) - 1);
	__builtin_prefetch(steer_entry_at(ent, m->stride, slot), 1, 3);
	__builtin_prefetch(&shadow[slot], 1, 3);
}
