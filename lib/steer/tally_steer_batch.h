/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Steering helpers for callers that build rule keys themselves and insert
 * rules in batches (the template fast path of the PMD).
 *
 * Keys: a caller that knows, for each word of a matcher, how to fill it from
 * its own input (a precompiled key builder) fills k->w[0..nwords) already
 * masked with the words' masks, then calls tally_steer_key_finish() and
 * inserts the key with tally_steer_rule_insert_key() or in a batch: the same
 * rule as tally_steer_rule_insert() with the full key would give.
 *
 * Batches: an action whose fate takes no reference (none, drop, miss,
 * passthru, queue) is encoded once (tally_steer_action_encode()); its rules
 * then differ only in their counter, queue index and mark, which each
 * operation of tally_steer_rule_insert_batch_locked() brings. The batch
 * checks room in the hash array once: when n more entries need no
 * migration, every operation is a probe, its checks and a publish; else it
 * inserts them one by one as tally_steer_rule_insert_at_locked() does.
 * Either way each operation gets the result, and leaves the state, that
 * tally_steer_rule_insert_at_locked() would give it in that order.
 *
 * Thread-safety: the key helpers read only what the matcher compiled at
 * creation (immutable) and take no lock; finish's prefetch reads the
 * published array pointer like tally_steer_rule_key() does. The batch
 * insert needs the context lock held.
 */
#ifndef TALLY_STEER_BATCH_H
#define TALLY_STEER_BATCH_H

#include <stdbool.h>
#include <stdint.h>

#include "tally_steer.h"

/* The matcher's key words in order: idx[i] is the 32-bit word of the key
 * (tally_steer_key_word()), mask[i] its mask. Both arrays hold
 * TALLY_STEER_KEY_WORDS. Returns the number of words. */
uint32_t tally_steer_matcher_words(const struct tally_steer_matcher *m, uint8_t *idx,
				   uint32_t *mask);
/* Hash k->w (filled and masked by the caller) for m, and start fetching
 * what a single insert of the key reads first (the hash slot, or where the
 * matcher stages it, what decides that). */
void tally_steer_key_finish(struct tally_steer_matcher *m, struct tally_steer_key *k);
/* The same in two steps, for a caller that hashes the words itself:
 * tally_steer_hash(k->w, nwords, seed) with the matcher's seed (fixed at its
 * creation), then the prefetch of the slot of that hash (with `next`, the
 * next slot's line too: for inserts that others wait for, see
 * steer_prefetch()). */
uint32_t tally_steer_matcher_seed(const struct tally_steer_matcher *m);
void tally_steer_key_prefetch(struct tally_steer_matcher *m, uint32_t hash, bool next);
/* Start fetching the matcher's and the context's lines that every insert
 * into m writes or reads under the lock (lock held): the first thing a
 * batch does after taking the lock, so that those another CPU wrote last
 * come over together rather than one after the other. */
void tally_steer_batch_prefetch_locked(struct tally_steer_matcher *m);

/* An action encoded for many rules: the device's action word without the
 * counter index, and what each rule brings. */
struct tally_steer_act_enc {
	uint32_t act_w;			/* TALLY_STEER_ACT_*, counter index 0 */
	bool count;			/* rules bring a counter */
	bool queue;			/* rules bring their queue index */
};

/* Encode act (flags COUNT, MARK, FLAG; fate none, drop, miss, passthru or
 * queue; its counter, queue index and mark are ignored). -EINVAL for other
 * flags or fates (an RSS set or a jump takes a reference per rule). */
int tally_steer_action_encode(const struct tally_steer_action *act,
			      struct tally_steer_act_enc *enc);

/* One rule of a batch. In: r, a reserved handle
 * (tally_steer_rule_reserve_locked()); key, finished for the matcher;
 * counter (with enc->count: a counter the caller holds a reference on,
 * handed to the rule when it is inserted, the caller's still when not, as
 * with TALLY_STEER_A_CNT_HELD); queue (with enc->queue); mark (stored as
 * the entry's mark). Out: rc, 0 or the -errno that
 * tally_steer_rule_insert_at_locked() would give. */
struct tally_steer_bop {
	struct tally_steer_rule *r;
	uint32_t counter;
	uint32_t queue;
	uint32_t mark;
	int32_t rc;
	struct tally_steer_key key;
};

/* Insert ops[0..n) into m in order, each with enc and its own values (lock
 * held). Returns the number inserted; ops[i].rc tells which. */
uint32_t tally_steer_rule_insert_batch_locked(struct tally_steer_matcher *m,
					      const struct tally_steer_act_enc *enc,
					      struct tally_steer_bop *ops, uint32_t n);

#endif /* TALLY_STEER_BATCH_H */
