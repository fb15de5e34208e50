/* SPDX-License-Identifier: BSD-3-Clause */
/* Keys built by the caller, actions encoded once, batch inserts
 * (tally_steer_batch.h). */
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
	steer_prefetch_key(m, k->hash);
}

uint32_t
tally_steer_matcher_seed(const struct tally_steer_matcher *m)
{
	return m->seed;
}

void
tally_steer_key_prefetch(struct tally_steer_matcher *m, uint32_t hash, bool next)
{
	/* a batch insert neither reads nor writes the written bitmap */
	steer_prefetch(m, hash, STEER_PF_SLOT | STEER_PF_FILTER | (next ? STEER_PF_NEXT : 0));
}

void
tally_steer_batch_prefetch_locked(struct tally_steer_matcher *m)
{
	struct tally_steer_ctx *ctx = m->tbl->ctx;

	tally_prefetch_w(&m->used);
	__builtin_prefetch(&ctx->dq_len);
	tally_prefetch_w(&ctx->nrules);
}

int
tally_steer_action_encode(const struct tally_steer_action *act,
			  struct tally_steer_act_enc *enc)
{
	uint32_t a;

	if (act->flags & ~(TALLY_STEER_A_COUNT | TALLY_STEER_A_MARK | TALLY_STEER_A_FLAG))
		return -EINVAL;
	/* a fate that takes a reference (RSS set, jump) has no encoding */
	if (steer_act_bits(act, &a) != 0 || act->fate == TALLY_STEER_FATE_RSS ||
	    act->fate == TALLY_STEER_FATE_JUMP || act->fate == TALLY_STEER_FATE_PORT ||
	    act->fate == TALLY_STEER_FATE_SWACT)
		return -EINVAL;
	if (act->flags & TALLY_STEER_A_COUNT)
		a |= TALLY_STEER_ACT_COUNT;
	enc->act_w = a;
	enc->count = (act->flags & TALLY_STEER_A_COUNT) != 0;
	enc->queue = act->fate == TALLY_STEER_FATE_QUEUE;
	return 0;
}

/* One operation through the general insert (the batch did not fit). */
static int
batch_insert_one(struct tally_steer_matcher *m, const struct tally_steer_act_enc *enc,
		 struct tally_steer_bop *op)
{
	struct tally_steer_action act;

	steer_action_decode(enc->act_w, op->mark, op->queue, false, &act);
	act.mark = op->mark;
	if (enc->count) {
		act.counter = op->counter;
		act.flags |= TALLY_STEER_A_CNT_HELD;	/* handed over on success */
	}
	return tally_steer_rule_insert_at_locked(m, &op->key, &act, op->r);
}

uint32_t
tally_steer_rule_insert_batch_locked(struct tally_steer_matcher *m,
				     const struct tally_steer_act_enc *enc,
				     struct tally_steer_bop *ops, uint32_t n)
{
	struct tally_steer_ctx *ctx = m->tbl->ctx;
	uint32_t i, done = 0, nbq = ctx->cfg.nb_queues;

	if (m->parked) {
		for (i = 0; i < n; i++)
			ops[i].rc = -EINVAL;
		return 0;
	}
	/* the duplicate check below looks at the hash array only */
	steer_stage_drain(m, 0);
	if ((m->stage != NULL && m->stage->used != 0) || !steer_room(m, n) ||
	    (uint64_t)ctx->nrules + n > ctx->cfg.max_rules) {
		for (i = 0; i < n; i++) {
			ops[i].rc = batch_insert_one(m, enc, &ops[i]);
			done += ops[i].rc == 0;
		}
		return done;
	}
	for (i = 0; i < n; i++) {
		struct tally_steer_bop *op = &ops[i];
		uint32_t ins, act_w = enc->act_w, fate_w = 0;

		/* the checks of tally_steer_rule_insert_at_locked(), in its order */
		if (op->r->m != NULL) {
			op->rc = -EINVAL;
			continue;
		}
		if (steer_probe(m, op->key.w, op->key.hash, &ins) != UINT32_MAX) {
			op->rc = -EEXIST;
			continue;
		}
		if (enc->queue) {
			if (op->queue >= nbq) {
				op->rc = -EINVAL;
				continue;
			}
			fate_w = op->queue;
		}
		if (enc->count) {
			if (op->counter >= TALLY_CNT_MAX) {
				op->rc = -EINVAL;
				continue;
			}
			act_w |= TALLY_FIELD_PREP(TALLY_STEER_ACT_CNT_M, op->counter);
		}
		/* without the written bit (see steer_written_size()) */
		steer_place_entry(m, ins, steer_slot_fresh(m, ins, op->key.hash), &op->key,
				  act_w, op->mark, fate_w, op->r);
		op->rc = 0;
		done++;
	}
	if (done != 0 && m->written_exact)
		m->written_exact = false;
	ctx->nrules += done;
	return done;
}
