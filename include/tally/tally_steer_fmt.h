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
 *    their htab word), hash array headers and RSS sets are immutable; a
 *    change builds a new copy. The root is immutable while STEER_ROOT names
 *    it; write STEER_ROOT/STEER_CTRL again after changing it.
 *  - The device validates each of those once per publication and caches it
 *    (doc/spec.md, "Publication and the device's cache"): it compares the
 *    mlist and htab pointers on every burst, and drops its cache on FENCE,
 *    DMA region and STEER_ROOT/STEER_CTRL writes and on reset. Entries are
 *    never cached.
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
#define TALLY_STEER_FMT_MINOR		3	/* 1.1: hash array presence filter (F_FILTER);
					 * 1.2: its byte is the home slot's;
					 * 1.3: a driver word ends each entry (F_DRIVER) */

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
	uint32_t stride;		/* bytes per entry = TALLY_STEER_ENTRY_STRIDE(nwords, flags) */
	uint32_t seed;			/* tally_steer_hash() seed */
	uint32_t flags;			/* TALLY_STEER_HTAB_F_* */
#define  TALLY_STEER_HTAB_F_FILTER	TALLY_BIT(0)	/* presence filter follows the entries */
#define  TALLY_STEER_HTAB_F_DRIVER	TALLY_BIT(1)	/* each entry ends with a driver word */
	uint32_t rsvd[10];
	/* entries follow, 64-byte aligned; then, with F_FILTER, the filter */
};
TALLY_STATIC_SIZE(struct tally_steer_htab, 64);
#define TALLY_STEER_HTAB_SIZE(log2, stride) \
	(sizeof(struct tally_steer_htab) + ((size_t)1 << (log2)) * (size_t)(stride))
/*
 * Presence filter (F_FILTER): 2^(log2 + 3) bits (one byte per slot) right
 * after the entries; a key's bit is in the byte of its home slot. The
 * driver sets bit tally_steer_filter_bit(hash) of
 * every rule it writes into the array before the entry turns VALID, and
 * never clears one (a rebuilt array starts with a filter of its live rules
 * only). The device skips the probe of a key whose bit is clear: no rule
 * of this array can match it. Deleted rules leave their bit set (a false
 * positive costs the probe, nothing else).
 */
#define TALLY_STEER_FILTER_SIZE(log2)	((size_t)1 << (log2))	/* bytes */
#define TALLY_STEER_HTAB_FSIZE(log2, stride) \
	(TALLY_STEER_HTAB_SIZE(log2, stride) + TALLY_STEER_FILTER_SIZE(log2))

/* ---- hash array entry = rule ----------------------------------------------- */
enum tally_steer_state {
	TALLY_STEER_S_EMPTY = 0,	/* ends a probe: never used, or freed
					 * where no probe went on past it */
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
	/* with F_DRIVER, one more word: the driver's; the device never reads it */
};
TALLY_STATIC_SIZE(struct tally_steer_entry, 16);
#define TALLY_STEER_ENTRY_SIZE(nwords)	(sizeof(struct tally_steer_entry) + (size_t)(nwords) * 4)
/* Bytes from one entry to the next: the entry, and the driver word with
 * F_DRIVER (1.3). A driver keeps there what it would otherwise keep in a
 * host array indexed by slot (lib/steer: the rule's handle), so that a rule
 * insert writes one random place, not two. */
#define TALLY_STEER_ENTRY_STRIDE(nwords, flags) \
	(TALLY_STEER_ENTRY_SIZE(nwords) + (((flags) & TALLY_STEER_HTAB_F_DRIVER) ? 4u : 0u))

/* Filter of the array whose entry 0 is at ent (see F_FILTER). */
static inline uint8_t *
tally_steer_filter(const void *ent, uint32_t log2, size_t stride)
{
	return (uint8_t *)(uintptr_t)ent + (stride << log2);
}

/* Filter bit of a key of hash `hash` in an array of 2^log2 slots: the byte
 * of the key's home slot, the bit given by the three hash bits above the
 * slot's (the low log2 + 3 bits of the hash, as bit index). */
static inline uint32_t
tally_steer_filter_bit(uint32_t hash, uint32_t log2)
{
	return ((hash & ((1u << log2) - 1)) << 3) | ((hash >> log2) & 7);
}

/* Driver: mark hash present (before the entry turns VALID). */
static inline void
tally_steer_filter_add(void *ent, uint32_t log2, size_t stride, uint32_t hash)
{
	uint32_t b = tally_steer_filter_bit(hash, log2);

	__atomic_fetch_or(&tally_steer_filter(ent, log2, stride)[b >> 3],
			  (uint8_t)(1u << (b & 7)), __ATOMIC_RELAXED);
}

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

/* ---- switch tables (spec 2.3) -------------------------------------------------
 * The switch walks tables from SW_ROOT exactly as a port walks its own
 * (same root, table, matcher, hash array and entry formats) for frames from
 * a port's wire (misc.source_port = the port's index) and frames a port's
 * host transmits (index | TALLY_SOURCE_PORT_HOST): one set of tables; a
 * rule that does not match source_port matches both. For a host frame,
 * "its own port's receive pipeline" below reads "its own port's wire".
 * These are the differences in what an entry's actions mean:
 *  - TALLY_STEER_ACT_PORT (the QUEUE bit): fate = a destination word
 *    (TALLY_STEER_PORT_*): the frame goes to that port's wire, or with
 *    PORT_HOST to that port's receive pipeline (MAC filter, steering,
 *    queues, as a frame from its wire after the switch).
 *  - TALLY_STEER_ACT_SWACT (the RSS bit): fate = index of a struct
 *    tally_steer_swact in the root's rss_iova array (num_rss of them):
 *    edits, then a destination or none (the frame goes on, edited, to its
 *    own port's receive pipeline).
 *  - DROP drops; JUMP continues in a switch table; MISS or no fate: the
 *    frame leaves the switch to its own port's receive pipeline, unedited.
 *  - COUNT counts into port 0's flow counter bank, with the frame's length
 *    as it entered the switch.
 *  - MARK and FLAG have no meaning here: an entry with either is a BAD_STEER
 *    fault (recorded in port 0's window) and the frame is dropped, as is a
 *    destination port the device does not have.
 */
#define TALLY_STEER_ACT_PORT		TALLY_STEER_ACT_QUEUE
#define TALLY_STEER_ACT_SWACT		TALLY_STEER_ACT_RSS
#define TALLY_STEER_PORT_M		TALLY_GENMASK(7, 0)	/* destination port */
#define TALLY_STEER_PORT_HOST		TALLY_BIT(8)	/* its receive pipeline, not its wire */
#define TALLY_STEER_PORT_WORD_M		(TALLY_STEER_PORT_M | TALLY_STEER_PORT_HOST)

/* Edits and destination of a switch action set, applied in this order: pop
 * the outer VLAN tag (none: nothing), push a tag (TPID vlan_tpid, TCI
 * vlan_tci), set the VID and/or PCP of the outer tag (none: nothing), set
 * the source and destination MAC; then send (FWD: to `port`, a
 * TALLY_STEER_PORT_* word) or hand to the own port's receive pipeline. A
 * frame a push makes longer than MAX_FRAME is dropped (SW_DROP). A set
 * without SWACT_VALID, with unknown flag bits or a port outside the device
 * is a BAD_STEER fault. Same size as struct tally_steer_rss: a switch root's
 * rss_iova array holds these instead. */
#define TALLY_SWACT_POP_VLAN		TALLY_BIT(0)
#define TALLY_SWACT_PUSH_VLAN		TALLY_BIT(1)
#define TALLY_SWACT_SET_VID		TALLY_BIT(2)	/* vid = vlan_tci 11:0 */
#define TALLY_SWACT_SET_PCP		TALLY_BIT(3)	/* pcp = vlan_tci 15:13 */
#define TALLY_SWACT_SET_SMAC		TALLY_BIT(4)
#define TALLY_SWACT_SET_DMAC		TALLY_BIT(5)
#define TALLY_SWACT_FWD			TALLY_BIT(8)	/* send to `port` */
#define TALLY_SWACT_VALID		TALLY_BIT(31)
#define TALLY_SWACT_FLAGS_M		(TALLY_SWACT_POP_VLAN | TALLY_SWACT_PUSH_VLAN | \
					 TALLY_SWACT_SET_VID | TALLY_SWACT_SET_PCP | \
					 TALLY_SWACT_SET_SMAC | TALLY_SWACT_SET_DMAC | \
					 TALLY_SWACT_FWD | TALLY_SWACT_VALID)
struct tally_steer_swact {
	uint32_t flags;			/* TALLY_SWACT_* */
	uint32_t port;			/* with FWD: TALLY_STEER_PORT_* word */
	uint16_t vlan_tpid;		/* PUSH_VLAN, host order */
	uint16_t vlan_tci;		/* PUSH_VLAN: the TCI; SET_VID / SET_PCP: the fields */
	uint8_t smac[6];		/* SET_SMAC, wire order */
	uint8_t dmac[6];		/* SET_DMAC, wire order */
	uint8_t rsvd[24];
};
TALLY_STATIC_SIZE(struct tally_steer_swact, 48);

/* ---- helpers shared by driver and device ------------------------------------ */

/* Word idx of a key as the device sees it (little-endian load). */
static inline uint32_t
tally_steer_key_word(const struct tally_match_key *k, uint32_t idx)
{
	const uint8_t *p = &k->b[idx * 4];

	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

/*
 * The hash of the masked key words: CRC32-C (Castagnoli, reflected
 * polynomial 0x82f63b78) of the 4n bytes of w[0..n) (each word
 * little-endian), with the CRC register initialised to seed and no final
 * inversion: the value the SSE4.2 crc32 instruction chain gives from seed.
 * (The standard CRC32-C of those bytes is ~tally_steer_hash(w, n, ~0u).)
 * A translation unit built for SSE4.2 uses the instruction; any other uses
 * the table below; both give the same value, so driver and device may be
 * built differently.
 */
static const uint32_t tally_crc32c_tab[256] = {
	0x00000000u, 0xf26b8303u, 0xe13b70f7u, 0x1350f3f4u,
	0xc79a971fu, 0x35f1141cu, 0x26a1e7e8u, 0xd4ca64ebu,
	0x8ad958cfu, 0x78b2dbccu, 0x6be22838u, 0x9989ab3bu,
	0x4d43cfd0u, 0xbf284cd3u, 0xac78bf27u, 0x5e133c24u,
	0x105ec76fu, 0xe235446cu, 0xf165b798u, 0x030e349bu,
	0xd7c45070u, 0x25afd373u, 0x36ff2087u, 0xc494a384u,
	0x9a879fa0u, 0x68ec1ca3u, 0x7bbcef57u, 0x89d76c54u,
	0x5d1d08bfu, 0xaf768bbcu, 0xbc267848u, 0x4e4dfb4bu,
	0x20bd8edeu, 0xd2d60dddu, 0xc186fe29u, 0x33ed7d2au,
	0xe72719c1u, 0x154c9ac2u, 0x061c6936u, 0xf477ea35u,
	0xaa64d611u, 0x580f5512u, 0x4b5fa6e6u, 0xb93425e5u,
	0x6dfe410eu, 0x9f95c20du, 0x8cc531f9u, 0x7eaeb2fau,
	0x30e349b1u, 0xc288cab2u, 0xd1d83946u, 0x23b3ba45u,
	0xf779deaeu, 0x05125dadu, 0x1642ae59u, 0xe4292d5au,
	0xba3a117eu, 0x4851927du, 0x5b016189u, 0xa96ae28au,
	0x7da08661u, 0x8fcb0562u, 0x9c9bf696u, 0x6ef07595u,
	0x417b1dbcu, 0xb3109ebfu, 0xa0406d4bu, 0x522bee48u,
	0x86e18aa3u, 0x748a09a0u, 0x67dafa54u, 0x95b17957u,
	0xcba24573u, 0x39c9c670u, 0x2a993584u, 0xd8f2b687u,
	0x0c38d26cu, 0xfe53516fu, 0xed03a29bu, 0x1f682198u,
	0x5125dad3u, 0xa34e59d0u, 0xb01eaa24u, 0x42752927u,
	0x96bf4dccu, 0x64d4cecfu, 0x77843d3bu, 0x85efbe38u,
	0xdbfc821cu, 0x2997011fu, 0x3ac7f2ebu, 0xc8ac71e8u,
	0x1c661503u, 0xee0d9600u, 0xfd5d65f4u, 0x0f36e6f7u,
	0x61c69362u, 0x93ad1061u, 0x80fde395u, 0x72966096u,
	0xa65c047du, 0x5437877eu, 0x4767748au, 0xb50cf789u,
	0xeb1fcbadu, 0x197448aeu, 0x0a24bb5au, 0xf84f3859u,
	0x2c855cb2u, 0xdeeedfb1u, 0xcdbe2c45u, 0x3fd5af46u,
	0x7198540du, 0x83f3d70eu, 0x90a324fau, 0x62c8a7f9u,
	0xb602c312u, 0x44694011u, 0x5739b3e5u, 0xa55230e6u,
	0xfb410cc2u, 0x092a8fc1u, 0x1a7a7c35u, 0xe811ff36u,
	0x3cdb9bddu, 0xceb018deu, 0xdde0eb2au, 0x2f8b6829u,
	0x82f63b78u, 0x709db87bu, 0x63cd4b8fu, 0x91a6c88cu,
	0x456cac67u, 0xb7072f64u, 0xa457dc90u, 0x563c5f93u,
	0x082f63b7u, 0xfa44e0b4u, 0xe9141340u, 0x1b7f9043u,
	0xcfb5f4a8u, 0x3dde77abu, 0x2e8e845fu, 0xdce5075cu,
	0x92a8fc17u, 0x60c37f14u, 0x73938ce0u, 0x81f80fe3u,
	0x55326b08u, 0xa759e80bu, 0xb4091bffu, 0x466298fcu,
	0x1871a4d8u, 0xea1a27dbu, 0xf94ad42fu, 0x0b21572cu,
	0xdfeb33c7u, 0x2d80b0c4u, 0x3ed04330u, 0xccbbc033u,
	0xa24bb5a6u, 0x502036a5u, 0x4370c551u, 0xb11b4652u,
	0x65d122b9u, 0x97baa1bau, 0x84ea524eu, 0x7681d14du,
	0x2892ed69u, 0xdaf96e6au, 0xc9a99d9eu, 0x3bc21e9du,
	0xef087a76u, 0x1d63f975u, 0x0e330a81u, 0xfc588982u,
	0xb21572c9u, 0x407ef1cau, 0x532e023eu, 0xa145813du,
	0x758fe5d6u, 0x87e466d5u, 0x94b49521u, 0x66df1622u,
	0x38cc2a06u, 0xcaa7a905u, 0xd9f75af1u, 0x2b9cd9f2u,
	0xff56bd19u, 0x0d3d3e1au, 0x1e6dcdeeu, 0xec064eedu,
	0xc38d26c4u, 0x31e6a5c7u, 0x22b65633u, 0xd0ddd530u,
	0x0417b1dbu, 0xf67c32d8u, 0xe52cc12cu, 0x1747422fu,
	0x49547e0bu, 0xbb3ffd08u, 0xa86f0efcu, 0x5a048dffu,
	0x8ecee914u, 0x7ca56a17u, 0x6ff599e3u, 0x9d9e1ae0u,
	0xd3d3e1abu, 0x21b862a8u, 0x32e8915cu, 0xc083125fu,
	0x144976b4u, 0xe622f5b7u, 0xf5720643u, 0x07198540u,
	0x590ab964u, 0xab613a67u, 0xb831c993u, 0x4a5a4a90u,
	0x9e902e7bu, 0x6cfbad78u, 0x7fab5e8cu, 0x8dc0dd8fu,
	0xe330a81au, 0x115b2b19u, 0x020bd8edu, 0xf0605beeu,
	0x24aa3f05u, 0xd6c1bc06u, 0xc5914ff2u, 0x37faccf1u,
	0x69e9f0d5u, 0x9b8273d6u, 0x88d28022u, 0x7ab90321u,
	0xae7367cau, 0x5c18e4c9u, 0x4f48173du, 0xbd23943eu,
	0xf36e6f75u, 0x0105ec76u, 0x12551f82u, 0xe03e9c81u,
	0x34f4f86au, 0xc69f7b69u, 0xd5cf889du, 0x27a40b9eu,
	0x79b737bau, 0x8bdcb4b9u, 0x988c474du, 0x6ae7c44eu,
	0xbe2da0a5u, 0x4c4623a6u, 0x5f16d052u, 0xad7d5351u,
};

/* One byte-stream step of CRC32-C without the instruction. */
static inline uint32_t
tally_crc32c_sw_u32(uint32_t crc, uint32_t w)
{
	crc ^= w;
	crc = tally_crc32c_tab[crc & 0xff] ^ (crc >> 8);
	crc = tally_crc32c_tab[crc & 0xff] ^ (crc >> 8);
	crc = tally_crc32c_tab[crc & 0xff] ^ (crc >> 8);
	return tally_crc32c_tab[crc & 0xff] ^ (crc >> 8);
}

/* CRC32-C of len bytes from crc, without the instruction (tests, dumps). */
static inline uint32_t
tally_crc32c_sw(uint32_t crc, const void *buf, size_t len)
{
	const uint8_t *p = buf;
	size_t i;

	for (i = 0; i < len; i++)
		crc = tally_crc32c_tab[(crc ^ p[i]) & 0xff] ^ (crc >> 8);
	return crc;
}

static inline uint32_t
tally_steer_hash_sw(const uint32_t *w, uint32_t n, uint32_t seed)
{
	uint32_t h = seed, i;

	for (i = 0; i < n; i++)
		h = tally_crc32c_sw_u32(h, w[i]);
	return h;
}

#if defined(__SSE4_2__)
#include <nmmintrin.h>
/* 1: built for the instruction; 2: chosen at run time; 0: table only */
#define TALLY_STEER_HASH_HW	1
static inline uint32_t
tally_steer_hash(const uint32_t *w, uint32_t n, uint32_t seed)
{
	uint64_t h = seed, v;
	uint32_t i = 0;

	for (; i + 2 <= n; i += 2) {
		memcpy(&v, &w[i], 8);	/* two words, little-endian: same byte stream */
		h = _mm_crc32_u64(h, v);
	}
	if (i < n)
		h = _mm_crc32_u32((uint32_t)h, w[i]);
	return (uint32_t)h;
}
#elif defined(__x86_64__) && defined(__GNUC__) && \
	__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
/* A baseline x86-64 build: the instruction where the CPU has it. */
#define TALLY_STEER_HASH_HW	2
__attribute__((target("sse4.2")))
static inline uint32_t
tally_steer_hash_hw(const uint32_t *w, uint32_t n, uint32_t seed)
{
	unsigned long long h = seed, v;
	uint32_t i = 0;

	for (; i + 2 <= n; i += 2) {
		memcpy(&v, &w[i], 8);
		h = __builtin_ia32_crc32di(h, v);
	}
	if (i < n)
		h = __builtin_ia32_crc32si((uint32_t)h, w[i]);
	return (uint32_t)h;
}

static inline uint32_t
tally_steer_hash(const uint32_t *w, uint32_t n, uint32_t seed)
{
	if (__builtin_cpu_supports("sse4.2"))
		return tally_steer_hash_hw(w, n, seed);
	return tally_steer_hash_sw(w, n, seed);
}
#else
#define TALLY_STEER_HASH_HW	0
static inline uint32_t
tally_steer_hash(const uint32_t *w, uint32_t n, uint32_t seed)
{
	return tally_steer_hash_sw(w, n, seed);
}
#endif

#endif /* TALLY_STEER_FMT_H */
