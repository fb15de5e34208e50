/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Steering helpers for callers that build rule keys themselves (the
 * template fast path of the PMD): the compiled word list of a matcher, and
 * the hash of a key from its words.
 *
 * A caller that knows, for each word of a matcher, how to fill it from its
 * own input (a precompiled key builder) fills k->w[0..nwords) already masked
 * with the words' masks, then calls tally_steer_key_finish() and inserts the
 * key with tally_steer_rule_insert_key(): the same rule as
 * tally_steer_rule_insert() with the full key would give.
 *
 * Thread-safety: both functions read only what the matcher compiled at
 * creation (immutable) and take no lock; finish's prefetch reads the
 * published array pointer like tally_steer_rule_key() does.
 */
#ifndef TALLY_STEER_BATCH_H
#define TALLY_STEER_BATCH_H

#include <stdint.h>

#include "tally_steer.h"

/* The matcher's key words in order: idx[i] is the 32-bit word of the key
 * (tally_steer_key_word()), mask[i] its mask. Both arrays hold
 * TALLY_STEER_KEY_WORDS. Returns the number of words. */
uint32_t tally_steer_matcher_words(const struct tally_steer_matcher *m, uint8_t *idx,
				   uint32_t *mask);
/* Hash k->w (filled and masked by the caller) for m, and start fetching the
 * hash slot the key would take. */
void tally_steer_key_finish(struct tally_steer_matcher *m, struct tally_steer_key *k);

#endif /* TALLY_STEER_BATCH_H */
