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
	k->hash = tally_steer_hash(k->w, m->nwords, m->seed);
	steer_prefetch_insert(m, k->hash);
}
