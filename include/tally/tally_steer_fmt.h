/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Steering entries: what the device reads from host memory.
 *
 * The driver builds these structures in DMA-able memory it owns; the device
 * only reads them. All fields are little-endian, all links are IOVAs (never
 * host pointers), and every structure has a fixed size or a size computed
 * from a count that the device validates before use.
 *
 * The walk, for one frame with match key K (tally_match.h):
 *
 *   STEER_ROOT_LO/HI --> struct tally_steer_root (magic, version)
 *        |
 *        +-- tables_iova --> struct tally_steer_tbl[num_tables]  (index = table id
 *        |                    = DPDK flow group; the walk starts at table 0)
 *        |                        |
 *        |                        +-- mlist (acquire) --> struct tally_steer_mlist
 *        |                                                 matcher[0..num) in priority order
 *        |                                                   |
 *        |   struct tally_steer_matcher_desc <---------------+
 *        |     words[nwords] = {key word index, mask}   (precomputed mask descriptor)
 *        |     htab (acquire) --> struct tally_steer_htab + entries[1 << log2_size]
 *        |                          open addressing, linear probing from
 *        |                          tally_steer_hash(masked words) & (size - 1)
 *        |                          entry = struct tally_steer_entry + key[nwords]
 *        |
 *        +-- rss_iova --> struct tally_steer_rss[num_rss]  (RSS queue sets)
 *
 * For each matcher in list order the device computes W[i] = word(K,
 * words[i].idx) & words[i].mask, hashes W and probes the hash array. It stops
 * at an EMPTY entry (miss in this matcher, try the next one), skips TOMB and
 * BUSY entries, and on a VALID entry whose key equals W it executes the
 * entry's actions. The first matcher with a hit wins. A JUMP action continues
 * the walk at the named table; other fates end it. A miss in every matcher of
 * a table (or a table whose mlist is 0) ends the walk with "miss" (default
 * path, or drop under CTRL.ISOLATE). At most TALLY_STEER_MAX_HOPS tables are visited per frame;
 * more is a TALLY_FAULT_BAD_STEER fault and the frame is dropped. Any
 * malformed entry (bad magic, count or index out of range) is a BAD_STEER
 * fault and a drop; an address outside the DMA regions is a DMA fault and a
 * drop. Every structure sits at an IOVA aligned to its C alignment: 8 bytes
 * for the root, the table array, a matcher list, a matcher and the RSS
 * array (tables_iova, rss_iova), 4 for a hash array; a misaligned pointer
 * (STEER_ROOT included) is a BAD_STEER fault with the pointer in FAULT_ADDR,
 * and a drop.
 *
 * Key words: the 512-byte key is seen as 128 32-bit words; word i is bytes
 * 4i..4i+3 loaded little-endian (tally_steer_key_word()). Masks and the
 * stored key words of entries use the same representation.
 *
 * Publication and reuse (the driver's side of the contract):
 *  - A table's mlist pointer and a matcher's htab pointer are published with
 *    release stores after the pointed-to memory is fully written; the device
 *    loads them with acquire. Published mlists, matcher descriptors (except
 *    their htab word) and RSS sets are immutable; a change builds a new copy.
 *  - An entry's ctrl word is a sequence lock: state in bits 1:0, a generation
 *    in bits 31:2 that changes on every state change. The driver writes
 *    ctrl = BUSY, then the fields, then ctrl = VALID with a release store;
 *    a delete is one release store ctrl = TOMB. The device loads ctrl with
 *    acquire, reads the fields, and re-reads ctrl: if it changed, it retries
 *    the entry. So the device never acts on a half-written rule.
 *  - Growth: the driver builds a larger hash array, publishes it in the
 *    matcher's htab word (release), requests a fence (TALLY_REG_FENCE), and
 *    frees the old array only when FENCE_DONE reaches that sequence. Same for
 *    replaced mlists and removed matchers. Traffic never stops.
 */
#ifndef TALLY_STEER_FMT_H
#define TALLY_STEER_FMT_H

#include <stdint.h>
#include <string.h>

#include "tally_bits.h"
#include "tally_match.h"

#define TALLY_STEER_FMT_MAJOR		1
#define TALLY_STEER_FMT_MINOR		0

#define TALLY_STEER_KEY_WORDS		(TALLY_MATCH_KEY_LEN / 4)	/* 128 */
#define TALLY_STEER_MAX_TABLES		65536	/* architectural limit of num_tables */
#define TALLY_STEER_MAX_MATCHERS	256	/* per table (mlist num) */
#define TALLY_STEER_MAX_RSS		65536	/* architectural limit of num_rss */
#define TALLY_STEER_MAX_HOPS		32	/* tables visited per frame */
#define TALLY_STEER_HTAB_MAX_LOG2	28	/* largest hash array: 2^28 entries */

/* ---- root ----------------------------------------------------------------- */
#define TALLY_STEER_ROOT_MAGIC		0x54525453u	/* "STRT" */
struct tally_steer_root {
	uint32_t magic;			/* TALLY_STEER_ROOT_MAGIC */
	uint32_t version;		/* TALLY_STEER_ROOT_VER_* */
#define  TALLY_STEER_ROOT_VER_MAJOR_M	TALLY_GENMASK(31, 16)
#define  TALLY_STEER_ROOT_VER_MINOR_M	TALLY_GENMASK(15, 0)
	uint32_t num_tables;		/* entries at tables_iova, <= MAX_TABLES */
	uint32_t num_rss;		/* entries at rss_iova, <= MAX_RSS */
	uint64_t tables_iova;		/* struct tally_steer_tbl[num_tables] */
	uint64_t rss_iova;		/* struct tally_steer_rss[num_rss] */
};
TALLY_STATIC_SIZE(struct tally_steer_root, 32);

/* ---- table array entry ------------------------------------------------------ */
struct tally_steer_tbl {
	uint64_t mlist;			/* IOVA of struct tally_steer_mlist, 0 = no
					 * matchers (every frame misses); release */
};
TALLY_STATIC_SIZE(struct tally_steer_tbl, 8);

/* ---- matcher list: matchers of one table in priority order ----------------- */
#define TALLY_STEER_MLIST_MAGIC		0x54534c4du	/* "MLST" */
struct tally_steer_mlist {
	uint32_t magic;			/* TALLY_STEER_MLIST_MAGIC */
	uint32_t num;			/* <= TALLY_STEER_MAX_MATCHERS */
	uint64_t matcher[];		/* IOVAs of struct tally_steer_matcher_desc */
};
TALLY_STATIC_SIZE(struct tally_steer_mlist, 8);
#define TALLY_STEER_MLIST_SIZE(n)	(sizeof(struct tally_steer_mlist) + (size_t)(n) * 8)

/* ---- matcher: mask descriptor + hash array pointer ------------------------- */
#define TALLY_STEER_MATCHER_MAGIC	0x4843544du	/* "MTCH" */
struct tally_steer_mword {
	uint32_t idx;			/* key word index, < TALLY_STEER_KEY_WORDS */
	uint32_t mask;			/* non-zero */
};
TALLY_STATIC_SIZE(struct tally_steer_mword, 8);

struct tally_steer_matcher_desc {
	uint32_t magic;			/* TALLY_STEER_MATCHER_MAGIC */
	uint32_t nwords;		/* entries in words[], 0..KEY_WORDS (0 = match all) */
	uint32_t priority;		/* informational; list order is authoritative */
	uint32_t id;			/* informational */
	uint64_t htab;			/* IOVA of struct tally_steer_htab; release */
	uint64_t rsvd;
	struct tally_steer_mword words[];	/* ascending idx */
};
TALLY_STATIC_SIZE(struct tally_steer_matcher_desc, 32);
#define TALLY_STEER_MATCHER_SIZE(n) \
	(sizeof(struct tally_steer_matcher_desc) + (size_t)(n) * sizeof(struct tally_steer_mword))

/* ---- hash array ------------------------------------------------------------ */
#define TALLY_STEER_HTAB_MAGIC		0x42415448u	/* "HTAB" */
struct tally_steer_htab {
	uint32_t magic;			/* TALLY_STEER_HTAB_MAGIC */
	uint32_t log2_size;		/* entries = 1 << log2_size, <= HTAB_MAX_LOG2 */
	uint32_t nwords;		/* must equal the matcher's nwords */
	uint32_t stride;		/* bytes per entry = TALLY_STEER_ENTRY_SIZE(nwords) */
	uint32_t seed;			/* tally_steer_hash() seed */
	uint32_t rsvd[11];
	/* entries follow, 64-byte aligned */
};
TALLY_STATIC_SIZE(struct tally_steer_htab, 64);
#define TALLY_STEER_HTAB_SIZE(log2, nwords) \
	(sizeof(struct tally_steer_htab) + ((size_t)1 << (log2)) * TALLY_STEER_ENTRY_SIZE(nwords))

/* ---- hash array entry = rule ----------------------------------------------- */
enum tally_steer_state {
	TALLY_STEER_S_EMPTY = 0,	/* never used: ends a probe */
	TALLY_STEER_S_VALID = 1,
	TALLY_STEER_S_TOMB = 2,		/* deleted: probe continues */
	TALLY_STEER_S_BUSY = 3,		/* being written: probe continues */
};
#define TALLY_STEER_CTRL_STATE_M	TALLY_GENMASK(1, 0)
#define TALLY_STEER_CTRL_GEN_M		TALLY_GENMASK(31, 2)

/* act word: counter index and action flags. */
#define TALLY_STEER_ACT_CNT_M		TALLY_GENMASK(22, 0)	/* flow counter index */
#define TALLY_STEER_ACT_CONTINUE	TALLY_BIT(23)	/* after COUNT/MARK/FLAG, go on with the
						 * next matcher of this table (no fate) */
#define TALLY_STEER_ACT_COUNT		TALLY_BIT(24)	/* count into CNT */
#define TALLY_STEER_ACT_MARK		TALLY_BIT(25)	/* set mark = entry.mark */
#define TALLY_STEER_ACT_FLAG		TALLY_BIT(26)	/* set the flag bit */
#define TALLY_STEER_ACT_DROP		TALLY_BIT(27)	/* fate: drop */
#define TALLY_STEER_ACT_QUEUE		TALLY_BIT(28)	/* fate: queue = fate */
#define TALLY_STEER_ACT_RSS		TALLY_BIT(29)	/* fate: RSS set index = fate */
#define TALLY_STEER_ACT_JUMP		TALLY_BIT(30)	/* fate: continue in table = fate */
#define TALLY_STEER_ACT_MISS		TALLY_BIT(31)	/* fate: default miss */
#define TALLY_STEER_ACT_FATE_M \
	(TALLY_STEER_ACT_DROP | TALLY_STEER_ACT_QUEUE | TALLY_STEER_ACT_RSS | \
	 TALLY_STEER_ACT_JUMP | TALLY_STEER_ACT_MISS)
/* No fate bit = end of walk on the default path, like MISS (under
 * CTRL.ISOLATE the port has no default path: dropped). At most one fate bit;
 * more is a BAD_STEER fault. CONTINUE (rte_flow PASSTHRU) has no fate bit: the
 * walk goes on with the matchers after the hit one, in the same table; if
 * none of them hits, the table misses. COUNT/MARK/FLAG of every table visited apply
 * (a later MARK replaces an earlier one). */

struct tally_steer_entry {
	uint32_t ctrl;			/* state + generation, see above */
	uint32_t act;			/* TALLY_STEER_ACT_* + counter index */
	uint32_t mark;			/* valid with ACT_MARK */
	uint32_t fate;			/* queue / RSS set / table id */
	uint32_t key[];			/* nwords masked key words, matcher order */
};
TALLY_STATIC_SIZE(struct tally_steer_entry, 16);
#define TALLY_STEER_ENTRY_SIZE(nwords)	(sizeof(struct tally_steer_entry) + (size_t)(nwords) * 4)

/* ---- RSS queue set -------------------------------------------------------- */
#define TALLY_STEER_RSS_MAX_QUEUES	16
struct tally_steer_rss {
	uint32_t hf;			/* enum tally_rss_hf bits; 0 = port RSS_HF */
	uint16_t nq;			/* 1..RSS_MAX_QUEUES; 0 = unused slot */
	uint16_t rsvd;
	uint16_t queues[TALLY_STEER_RSS_MAX_QUEUES];
	uint64_t rsvd2;
};
TALLY_STATIC_SIZE(struct tally_steer_rss, 48);

/* ---- helpers shared by driver and device ------------------------------------ */

/* Word idx of a key as the device sees it (little-endian load). */
static inline uint32_t
tally_steer_key_word(const struct tally_match_key *k, uint32_t idx)
{
	const uint8_t *p = &k->b[idx * 4];

	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static inline uint32_t
tally_steer_rotl32(uint32_t x, unsigned int r)
{
	return (x << r) | (x >> (32 - r));
}

/* Hash of the masked key words (MurmurHash3 x86_32 over the words). */
static inline uint32_t
tally_steer_hash(const uint32_t *w, uint32_t n, uint32_t seed)
{
	uint32_t h = seed, i;

	for (i = 0; i < n; i++) {
		uint32_t k = w[i] * 0xcc9e2d51u;

		k = tally_steer_rotl32(k, 15) * 0x1b873593u;
		h ^= k;
		h = tally_steer_rotl32(h, 13) * 5 + 0xe6546b64u;
	}
	h ^= n * 4;
	h ^= h >> 16;
	h *= 0x85ebca6bu;
	h ^= h >> 13;
	h *= 0xc2b2ae35u;
	h ^= h >> 16;
	return h;
}

#endif /* TALLY_STEER_FMT_H */
