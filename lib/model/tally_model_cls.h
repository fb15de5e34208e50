/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The classification engine's device-side cache of the steering structures
 * (include/tally/tally_steer_fmt.h). Internal to lib/model.
 *
 * What is cached, and when it is validated again
 *  - The root: validated when STEER_ROOT names a different IOVA than the
 *    cached one, or after an invalidation (below). The root is immutable
 *    while published (doc/spec.md, "Steering").
 *  - A table: the host pointer of its table-array entry, validated at first
 *    use; its matcher list, validated when the table's mlist word (loaded
 *    with acquire on every burst) differs from the cached IOVA. Published
 *    mlists are immutable, so equal pointer = same list.
 *  - A matcher: its descriptor, validated at first use and copied (the
 *    gather list: key word indexes and masks, so a later change to the
 *    descriptor's memory cannot make the device read outside the key); its
 *    hash array header, validated when the descriptor's htab word (loaded
 *    with acquire on every burst) differs from the cached IOVA.
 *  - Entries are never cached: they change in place without a doorbell.
 *  - Invalidation: a FENCE request, an UNMAP or CLEAR and a device reset
 *    bump m->cls_gen; the next burst drops every cached structure. After a
 *    fence the driver may free and reuse memory, so the same IOVA may hold a
 *    different structure: nothing read before the fence may be trusted.
 *  - The switch (spec 2.3) has a cache of its own, of the tables at port
 *    0's SW_ROOT, invalidated with port 0's (tally_model_sw.cls_gen).
 * Whatever fails validation is not cached, so it faults again on every
 * frame that reaches it, exactly as without the cache.
 */
#ifndef TALLY_MODEL_CLS_H
#define TALLY_MODEL_CLS_H

#include <stdbool.h>
#include <stdint.h>

#include <tally/tally_steer_fmt.h>
#include "tally_model_dev.h"

#define TALLY_CLS_BURST		64	/* frames classified together */
#define TALLY_CLS_VEC_WORDS	16	/* key words in one 64-byte vector */

/* STEER_DMA: host pointer for `len` bytes at iova, read as the structure
 * `obj`: translated (an unmapped page is a DMA fault) and for that
 * structure's alignment (misaligned: BAD_STEER fault). */
#define STEER_DMA(m, iova, len, obj) \
	tally_model_dma_obj((m), (iova), (len), __alignof__(obj), \
			    TALLY_FAULT_BAD_STEER)

struct tally_cls_mt;

/* tally_model_cls_hash() for one matcher's key size and instructions */
typedef uint32_t (*tally_cls_hash_fn)(const struct tally_cls_mt *mt,
				      const uint8_t *const *keys, uint32_t n,
				      uint32_t *hv, uint32_t *w, uint8_t *live);

struct tally_cls_mt {
	uint64_t miova;			/* descriptor IOVA, from the mlist */
	const struct tally_steer_matcher_desc *d;	/* NULL: not validated */
	uint32_t nw;			/* key words */
	uint32_t *gidx;			/* gather: key word index, validated */
	uint32_t *gmask;		/* gather: mask */
	/* the same as one permutation of the key's first section, when every
	 * word is in it (vec): lanes nw..15 take word 0 masked to 0 */
	bool vec;
	uint32_t vidx[TALLY_CLS_VEC_WORDS];
	uint32_t vmask[TALLY_CLS_VEC_WORDS];
	/* chosen once per descriptor: one indirect call per matcher and
	 * burst instead of a chain of tests and a switch */
	tally_cls_hash_fn hash;
	void (*probe)(void);		/* the executor's, NULL until it picks */
	bool h_ok;			/* the fields below describe hiova */
	uint64_t hiova;
	const uint8_t *ent;		/* entry 0 of the hash array */
	uint32_t smask;			/* slots - 1 */
	const uint8_t *filter;		/* presence filter, NULL: none (F_FILTER) */
	uint32_t log2;			/* slots = 1 << log2 */
	uint32_t seed;
	uint32_t stride;
};

struct tally_cls_tbl {
	const struct tally_steer_tbl *hw;	/* NULL: not validated */
	bool ml_ok;			/* mt[] holds the list at mliova */
	uint64_t mliova;
	uint32_t nm;
	struct tally_cls_mt *mt;
};

struct tally_model_cls {
	uint32_t gen;			/* m->cls_gen the cache was built under */
	uint32_t root_lo;		/* the root's register: STEER_ROOT_LO or SW_ROOT_LO */
	bool root_ok;
	uint64_t root_iova;
	struct tally_steer_root root;	/* validated copy */
	struct tally_cls_tbl *tbl;	/* root.num_tables entries */
	/* masked words of a burst, and room for a whole vector past the last */
	uint32_t w[TALLY_CLS_BURST * TALLY_STEER_KEY_WORDS + TALLY_CLS_VEC_WORDS];
};

struct tally_model;

/* The cache of m, created on first use; NULL when out of memory. */
struct tally_model_cls *tally_model_cls_get(struct tally_model *m);
/* The switch's cache (m is port 0), the same way. */
struct tally_model_cls *tally_model_cls_get_sw(struct tally_model *m);
void tally_model_cls_free(struct tally_model *m);
/* tally_model_cls_invalidate() (tally_model_priv.h, inline): drop every
 * cached structure at the next burst (fence, UNMAP, reset). */

/* Validated root, or NULL after recording a fault (one per call). */
const struct tally_steer_root *tally_model_cls_root(struct tally_model *m,
						    struct tally_model_cls *c);
/* Table `table` with its matcher list; 0 or -1 after recording a fault (one
 * per call). *out is NULL for a table without matchers. */
int tally_model_cls_table(struct tally_model *m, struct tally_model_cls *c,
			  uint32_t table, struct tally_cls_tbl **out);
/* Matcher validated for use; 0 or -1 after recording one fault. */
int tally_model_cls_matcher_slow(struct tally_model *m, struct tally_cls_mt *mt);

static inline int
tally_model_cls_matcher(struct tally_model *m, struct tally_cls_mt *mt)
{
	/* cached, and the published hash array is still the cached one
	 * (acquire: pairs with the driver's release store of htab) */
	if (mt->d != NULL && mt->h_ok &&
	    __atomic_load_n(&mt->d->htab, __ATOMIC_ACQUIRE) == mt->hiova)
		return 0;
	return tally_model_cls_matcher_slow(m, mt);
}

/* Masked key words of each key into w[j * mt->nw ..] and their hash into
 * hv[j]. Returns how many keys may be in the array: those whose presence
 * filter bit is set (all n without a filter), their j in live[], in order,
 * each one's home slot prefetched; the others miss here. */
static inline uint32_t
tally_model_cls_hash(const struct tally_cls_mt *mt, const uint8_t *const *keys, uint32_t n,
		     uint32_t *hv, uint32_t *w, uint8_t *live)
{
	return mt->hash(mt, keys, n, hv, w, live);
}

/* Masked key word i of key (little-endian 32-bit load). */
static inline uint32_t
tally_cls_word(const uint8_t *key, const struct tally_cls_mt *mt, uint32_t i)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	uint32_t w;

	__builtin_memcpy(&w, key + mt->gidx[i] * 4, 4);
	return w & mt->gmask[i];
#else
	return tally_steer_key_word((const struct tally_match_key *)(const void *)key,
				    mt->gidx[i]) & mt->gmask[i];
#endif
}

#endif /* TALLY_MODEL_CLS_H */
