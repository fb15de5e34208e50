/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Private structures of lib/steer; the one header its .c files include.
 * All fields are protected by *ctx->lock unless noted.
 */
#ifndef TALLY_STEER_INTERNAL_H
#define TALLY_STEER_INTERNAL_H

#include <errno.h>
#include <pthread.h>
#include <string.h>

#include <tally/tally_regs.h>
#include "tally_plat.h"
#include "tally_hmem.h"
#include "tally_steer.h"

#define STEER_HTAB_MIN_LOG2	4	/* 16 entries */
#define STEER_HANDLE_CHUNK_LOG2	16	/* rule handles per slab chunk */
#define STEER_HANDLE_NONE	UINT32_MAX
#define STEER_FENCE_TIMEOUT_US	1000000
/* Load of a hash array (live + dead entries, eighths): a migration to a new
 * array starts above START, and must be done before HARD (then it is
 * finished at once); a new array is sized for at most TARGET live. */
#define STEER_LOAD_START	5
#define STEER_LOAD_HARD		7
#define STEER_LOAD_TARGET	3
#define STEER_MIG_STEP		8	/* old entries moved per operation, at least */
/* Staging (tally_steer_stage.c): a stage's array size, the rules left
 * staged after an insert (later ones are moved on), the queue's size. */
#define STEER_STAGE_MIN_LOG2	20
#define STEER_STAGE_LOG2	10
#define STEER_STAGE_DEPTH	12
#define STEER_STAGE_QUEUE	32	/* power of two */
#define STEER_STAGE_PF		6	/* staged rules whose lines are asked for at once */
_Static_assert(STEER_STAGE_PF <= STEER_STAGE_DEPTH, "a staged rule is asked for before it moves");
/* A rule handle's slot: bit 31 tells which array it indexes (the array of
 * parity m->par is the published one; the other is the migration target). */
#define STEER_SLOT_PAR		(1u << 31)

/* A block of device-visible memory. */
struct steer_dmem {
	void *va;
	uint64_t iova;
	size_t size;
};

struct steer_deferred {
	struct steer_dmem mem;
	uint32_t ticket;
};

struct steer_edge {
	uint32_t dst;			/* table id */
	uint32_t ref;			/* rules with this jump */
};

/* A rule handle, followed by cfg.rule_priv bytes of the caller's. */
struct tally_steer_rule {
	struct tally_steer_matcher *m;	/* NULL when not in a matcher */
	uint32_t slot;			/* entry | STEER_SLOT_PAR parity; next free
					 * when free */
	uint32_t idx;			/* own handle index */
};
_Static_assert(sizeof(struct tally_steer_rule) == 16, "rule handle grew");

/* One hash array with its host written bitmap. */
struct steer_htab_sw {
	struct steer_dmem mem;		/* struct tally_steer_htab + entries */
	uint8_t *ent;			/* first entry */
	uint64_t *written;
	uint32_t log2;
	uint32_t used;			/* VALID entries */
	uint32_t tombs;			/* TOMB entries */
};

/* A cache line: struct tally_steer_matcher keeps its hot counters on
 * lines of their own. */
#define STEER_LINE	64

struct tally_steer_matcher {
	struct tally_steer_table *tbl;
	void *udata;			/* the caller's (set_udata) */
	uint32_t priority;
	uint32_t seq;			/* creation order among equal priorities */
	uint32_t nwords;
	uint32_t seed;
	uint8_t widx[TALLY_STEER_KEY_WORDS];	/* compiled mask descriptor */
	uint32_t wmask[TALLY_STEER_KEY_WORDS];
	struct steer_dmem desc;		/* struct tally_steer_matcher_desc */
	struct steer_dmem htab;		/* struct tally_steer_htab + entries */
	uint8_t *ent;			/* first entry (read without the lock by
					 * tally_steer_rule_key: atomic stores) */
	uint32_t log2;			/* likewise */
	uint32_t min_log2;		/* never shrink below (reserve) */
	uint32_t stride;
	uint64_t *written;		/* written bitmap (host; read like ent) */
	/* the bitmap has the bit of every entry ever written, so a clear bit
	 * proves an EMPTY entry: false once a batch inserted without it
	 * (tally_steer_rule_insert_batch_locked()), true again with a rebuilt
	 * or migrated array */
	bool written_exact;
	uint32_t par;			/* parity of handle slots in this array */
	/* Staging: a matcher with a stage has stage != NULL; a stage (never
	 * seen by the callers) has twin != NULL, the matcher it feeds. */
	struct tally_steer_matcher *stage;
	struct tally_steer_matcher *twin;
	/*
	 * What every insert and delete writes, on lines of its own: a flow
	 * queue reads the fields above without the lock for each rule it
	 * enqueues (steer_prefetch()) while another queue's batch inserts,
	 * and sharing a line with these counters would hand that line
	 * between the CPUs once per rule (doc/benchmarks.md, async insert
	 * on two queues).
	 */
	uint32_t used __attribute__((aligned(STEER_LINE)));	/* VALID entries */
	uint32_t tombs;			/* TOMB entries */
	/*
	 * Incremental migration (growth, tombstone purge, shrink): while
	 * `migrating`, the published array above stays authoritative and
	 * receives every insert and delete first; `mig` (never seen by the
	 * device) receives them too, and every operation also moves at least
	 * STEER_MIG_STEP entries from old slots [mig_cursor, ...) into it.
	 * When the cursor reaches the end, one release store publishes `mig`.
	 */
	bool migrating;
	uint32_t mig_cursor;
	uint32_t mig_step;
	struct steer_htab_sw mig;
	uint32_t sq_head, sq_len;	/* staged handles, oldest first */
	uint32_t sq_nopf;		/* the newest sq_nopf staged: lines not asked for */
	uint32_t sq[STEER_STAGE_QUEUE];
	uint32_t sqh[STEER_STAGE_QUEUE];	/* their keys' hashes */
	bool parked;			/* out of the table's list (park) */
	struct tally_steer_matcher *park_next;	/* the table's parked ones */
};

struct tally_steer_table {
	struct tally_steer_ctx *ctx;
	uint32_t id;
	uint32_t nm;
	struct tally_steer_matcher *m[TALLY_STEER_MAX_MATCHERS];	/* list order */
	struct tally_steer_matcher *parked;	/* parked matchers, park_next */
	struct steer_dmem mlist;	/* published list, va NULL if none */
	struct steer_edge *out;		/* jump edges to other tables */
	uint32_t nout, out_cap;
	uint32_t in_refs;		/* rules jumping here */
	uint32_t visit;			/* DFS epoch */
};

struct steer_rss_sw {
	uint32_t ref;			/* rules using it */
	uint32_t ticket;		/* reuse after this fence when freed */
	uint8_t used;
	uint8_t pending;
};

struct tally_steer_ctx {
	struct tally_steer_config cfg;
	struct tally_lock *lock;		/* own_lock or cfg.lock */
	struct tally_lock own_lock;
	struct steer_dmem root_mem;
	struct steer_dmem tbl_mem;	/* struct tally_steer_tbl[max_tables] */
	struct steer_dmem rss_mem;	/* struct tally_steer_rss[max_rss] */
	struct tally_steer_tbl *tbl_hw;
	struct tally_steer_rss *rss_hw;
	struct tally_steer_table **tables;	/* [max_tables] */
	struct steer_rss_sw *rss_sw;	/* [max_rss] */
	/* deferred frees, FIFO with non-decreasing tickets */
	struct steer_deferred *dq;
	uint32_t dq_head, dq_len, dq_cap;
	/* rule handle slab: chunks of 2^STEER_HANDLE_CHUNK_LOG2 handles of
	 * hstride bytes, handed out lowest index first (untouched memory
	 * until then), freed ones reused LIFO */
	uint8_t **chunk;
	uint32_t nchunks, chunk_cap;
	uint32_t hstride;
	uint32_t handles;		/* [0, handles) were handed out once */
	uint32_t free_handle;
	/* accounting */
	uint64_t dev_bytes, dev_deferred, host_bytes;
	uint32_t nrules;
	uint32_t matcher_seq;
	uint32_t visit_epoch;
};

/*
 * A hash array's host side (one tally_hmem block): the written bitmap, 1
 * bit per entry, set when a single insert first places a rule in the entry
 * and never cleared (a deleted rule leaves a TOMB). Invariant, while the
 * matcher's written_exact holds: a clear bit means the entry is EMPTY with
 * ctrl 0. Then no key whose home is that entry is in the array (linear
 * probing would have placed it there), so a single insert at that home
 * needs to read neither the entry nor its neighbours (steer_home_fresh()).
 *
 * Batch inserts leave the bitmap alone (steer_place_entry()): they probe
 * the entries they prefetched anyway, and with two flow queues the
 * bitmap's lines, 512 entries each, went from one CPU to the other on
 * most inserts (doc/benchmarks.md, async insertion on two queues). A
 * matcher a batch inserted into has written_exact false, and its single
 * inserts probe, until a rebuilt or migrated array brings a complete
 * bitmap.
 *
 * Which rule handle an entry holds is in the entry itself, in the driver
 * word after its key (TALLY_STEER_HTAB_F_DRIVER): an insert writes the
 * entry's line and nothing else at random, where a host array indexed by
 * slot cost a second page walk per insert.
 */
static inline size_t
steer_written_size(uint32_t log2)
{
	return ((((size_t)1 << log2) + 63) / 64) * 8;
}

static inline bool
steer_written_test(const uint64_t *written, uint32_t s)
{
	return (written[s >> 6] >> (s & 63)) & 1;
}

static inline void
steer_written_set(uint64_t *written, uint32_t s)
{
	written[s >> 6] |= 1ull << (s & 63);
}

/* May a single insert take slot s, the home of its key, as never written
 * (the key not in the array, the entry and its filter byte zero)? */
static inline bool
steer_home_fresh(const struct tally_steer_matcher *m, uint32_t s)
{
	return m->written_exact && !steer_written_test(m->written, s);
}

static inline void
steer_written_free(uint64_t *written, uint32_t log2)
{
	tally_hmem_free(written, steer_written_size(log2));
}

/* The format of every hash array lib/steer builds: with a presence filter,
 * and a driver word in each entry. */
#define STEER_HTAB_FLAGS	(TALLY_STEER_HTAB_F_FILTER | TALLY_STEER_HTAB_F_DRIVER)
#define STEER_ENTRY_STRIDE(nwords)	TALLY_STEER_ENTRY_STRIDE(nwords, STEER_HTAB_FLAGS)

/* The index of the rule handle in entry e (of a matcher of nwords key
 * words), from its driver word. */
static inline uint32_t
steer_entry_owner(const struct tally_steer_entry *e, uint32_t nwords)
{
	return e->key[nwords];
}

static inline void
steer_entry_set_owner(struct tally_steer_entry *e, uint32_t nwords, uint32_t idx)
{
	e->key[nwords] = idx;
}

/*
 * The files of lib/steer call each other in layers, each only into files
 * below it (devtools/check-calls.py checks it), bottom first:
 *   tally_steer_mem.c      device memory, deferred frees, reclaim
 *   tally_steer_table.c    tables and their published matcher lists
 *   tally_steer_htab.c     a matcher's hash arrays: allocation, rebuild
 *   tally_steer_migrate.c  incremental migration, room for an insert
 *   tally_steer_matcher.c  matchers: compile, create, destroy, reserve
 *   tally_steer_stage.c    staging of single inserts into large arrays
 *   tally_steer_rule.c     rule handles, insert, delete
 *   tally_steer_batch.c    batched inserts
 *   tally_steer_check.c    consistency check of a matcher's arrays
 *   tally_steer_ctx.c      context create and destroy (tears down all)
 * with the fence, host memory, the counter pool (tally_cnt.c) and the
 * actions (tally_steer_action.c) below them all; tally_steer_place.c
 * calls none of them. What several layers share is here, static inline
 * when it is small or on the insert path; a file never calls one above it.
 */

/* memory (tally_steer_mem.c) */
int steer_dmem_alloc(struct tally_steer_ctx *ctx, size_t size, size_t align,
		     struct steer_dmem *out);
void steer_dmem_free(struct tally_steer_ctx *ctx, struct steer_dmem *mem);
/* Unpublished memory: free after the next fence. Requests that fence. */
void steer_dmem_defer(struct tally_steer_ctx *ctx, struct steer_dmem *mem);
void steer_reclaim_locked(struct tally_steer_ctx *ctx);
/* Context teardown: free what waits for a fence, now. */
void steer_dmem_fini(struct tally_steer_ctx *ctx);

/* handles (allocated in tally_steer_rule.c) */
static inline struct tally_steer_rule *
steer_handle(const struct tally_steer_ctx *ctx, uint32_t idx)
{
	return (struct tally_steer_rule *)(void *)
		(ctx->chunk[idx >> STEER_HANDLE_CHUNK_LOG2] +
		 (size_t)(idx & ((1u << STEER_HANDLE_CHUNK_LOG2) - 1)) * ctx->hstride);
}
static inline size_t
steer_chunk_size(const struct tally_steer_ctx *ctx)
{
	return ((size_t)1 << STEER_HANDLE_CHUNK_LOG2) * ctx->hstride;
}
/* Context teardown (tally_steer_rule.c): drop every rule's resources. */
void steer_rules_free_all(struct tally_steer_matcher *m);

/* Drop a rule's counter reference (ctx lock held): under the same
 * acquisition when the pool shares the lock. */
static inline void
steer_cnt_put(struct tally_steer_ctx *ctx, uint32_t idx)
{
	struct tally_cnt_pool *cnt = ctx->cfg.cnt;

	if (cnt == NULL)
		return;
	if (cnt->lock == ctx->lock)
		tally_cnt_free_locked(cnt, idx);
	else
		tally_cnt_free(cnt, idx);
}

/* actions (tally_steer_action.c) */

/*
 * The act word's fate bit and MARK/FLAG bits of an action (no COUNT: the
 * callers add it, with or without the counter index); -EINVAL for an
 * unknown fate. Shared by steer_action_acquire() and
 * tally_steer_action_encode(), which add their own checks of the fate.
 */
static inline int
steer_act_bits(const struct tally_steer_action *act, uint32_t *a)
{
	uint32_t b;

	switch (act->fate) {
	case TALLY_STEER_FATE_NONE: b = 0; break;
	case TALLY_STEER_FATE_DROP: b = TALLY_STEER_ACT_DROP; break;
	case TALLY_STEER_FATE_MISS: b = TALLY_STEER_ACT_MISS; break;
	case TALLY_STEER_FATE_PASSTHRU: b = TALLY_STEER_ACT_CONTINUE; break;
	case TALLY_STEER_FATE_QUEUE: b = TALLY_STEER_ACT_QUEUE; break;
	case TALLY_STEER_FATE_RSS: b = TALLY_STEER_ACT_RSS; break;
	case TALLY_STEER_FATE_JUMP: b = TALLY_STEER_ACT_JUMP; break;
	case TALLY_STEER_FATE_PORT: b = TALLY_STEER_ACT_PORT; break;
	case TALLY_STEER_FATE_SWACT: b = TALLY_STEER_ACT_SWACT; break;
	default: return -EINVAL;
	}
	if (act->flags & TALLY_STEER_A_MARK)
		b |= TALLY_STEER_ACT_MARK;
	if (act->flags & TALLY_STEER_A_FLAG)
		b |= TALLY_STEER_ACT_FLAG;
	*a = b;
	return 0;
}

int steer_action_acquire(struct tally_steer_table *tbl,
			 const struct tally_steer_action *act, uint32_t *act_w,
			 uint32_t *fate_w);
/* Drop the reference of a jump edge src -> dst. */
void steer_edge_put(struct tally_steer_table *src, uint32_t dst);

/* Drop what a rule's act and fate words hold (inline: every delete). */
static inline void
steer_action_release(struct tally_steer_table *tbl, uint32_t a, uint32_t fate)
{
	struct tally_steer_ctx *ctx = tbl->ctx;

	if (a & TALLY_STEER_ACT_RSS)
		ctx->rss_sw[fate].ref--;
	if (a & TALLY_STEER_ACT_JUMP)
		steer_edge_put(tbl, fate);
	if (a & TALLY_STEER_ACT_COUNT)
		steer_cnt_put(ctx, TALLY_FIELD_GET(a, TALLY_STEER_ACT_CNT_M));
}
/* sw: the words of a switch context (QUEUE/RSS bits are PORT/SWACT). */
void steer_action_decode(uint32_t act_w, uint32_t mark, uint32_t fate_w, bool sw,
			 struct tally_steer_action *act);

/* tables (tally_steer_table.c) */
/* Make m[0..n) t's matcher list, for the device and in t->m (0 or -errno,
 * then nothing changed). */
int steer_table_publish(struct tally_steer_table *t, struct tally_steer_matcher **m,
			uint32_t n);
/* Publish t's list with m inserted at position pos (0..nm). */
int steer_table_add_at(struct tally_steer_table *t, struct tally_steer_matcher *m,
		       uint32_t pos);
/* Publish t's list without m and its stage; on failure nothing changed. */
int steer_table_remove(struct tally_steer_table *t, const struct tally_steer_matcher *m);

/* hash arrays (tally_steer_htab.c) */
/* A hash array of 2^log2 entries (all EMPTY) for m, and its written bitmap. */
int steer_htab_alloc(struct tally_steer_matcher *m, uint32_t log2,
		     struct steer_dmem *mem, uint64_t **written);
/* Rebuild m's array at 2^log2 entries without tombstones, publish it;
 * on failure nothing changed. */
int steer_htab_rehash(struct tally_steer_matcher *m, uint32_t log2);

/* matchers (tally_steer_matcher.c) */
void steer_matcher_free(struct tally_steer_matcher *m);
/* Descriptor and a 2^log2 array for m (compiled, tbl, priority, seq and
 * seed set); not yet in the table's list. */
int steer_matcher_setup(struct tally_steer_matcher *m, uint32_t log2);

/* staging (tally_steer_stage.c) */
/* Is m's array large enough for single inserts to be staged? (Read
 * without the lock by steer_prefetch_key(): an answer for an array being
 * replaced only chooses what to prefetch.) */
static inline bool
steer_stage_sized(const struct tally_steer_matcher *m)
{
	uint32_t min = m->tbl->ctx->cfg.stage_min_log2;

	return m->twin == NULL &&
	       __atomic_load_n(&m->log2, __ATOMIC_RELAXED) >= (min != 0 ? min : STEER_STAGE_MIN_LOG2);
}

/* May an insert of act into m go through m's stage (given that its key
 * cannot be in m's array)? */
static inline bool
steer_stage_wanted(const struct tally_steer_matcher *m, const struct tally_steer_action *act)
{
	return steer_stage_sized(m) && act->fate != TALLY_STEER_FATE_PASSTHRU;
}
/* sins: the slot the stage's duplicate probe gave (if m has a stage). */
int steer_stage_insert(struct tally_steer_matcher *m, const struct tally_steer_key *k,
		       const struct tally_steer_action *act, struct tally_steer_rule *r,
		       uint32_t sins);
/* Move staged rules into m until at most `keep` remain staged. */
void steer_stage_drain(struct tally_steer_matcher *m, uint32_t keep);

/* migration (tally_steer_migrate.c) */
/* Smallest array for `live` rules at TARGET load, not below min_log2. */
uint32_t steer_mig_target(const struct tally_steer_matcher *m, uint32_t live);
int steer_mig_start(struct tally_steer_matcher *m, uint32_t log2);
/* Move up to n old entries; publishes the new array when done. */
void steer_mig_step(struct tally_steer_matcher *m, uint32_t n);
/* Finish now (reserve, hard load limit, teardown paths). */
void steer_mig_complete(struct tally_steer_matcher *m);
/* Drop an unfinished migration's array (matcher teardown). */
void steer_mig_abort(struct tally_steer_matcher *m);
/*
 * Room for one more entry in m: start a migration above the start load (or
 * to shrink a mostly empty array), finish it at once at the hard load.
 * Returns 1 if the published array changed, 0 if not, or -errno (nothing
 * changed).
 */
int steer_make_room(struct tally_steer_matcher *m);
/* During a migration: rule r, just placed at slot ins of the published
 * array, goes into the target array too (its handle then indexes the
 * target); then one migration step. */
void steer_mig_insert(struct tally_steer_matcher *m, uint32_t ins, uint32_t h,
		      struct tally_steer_rule *r);

static inline struct tally_steer_entry *
steer_entry_at(const uint8_t *ent, uint32_t stride, uint32_t slot)
{
	return (struct tally_steer_entry *)(void *)((uintptr_t)ent + (size_t)slot * stride);
}

static inline struct tally_steer_entry *
steer_entry(const struct tally_steer_matcher *m, uint32_t slot)
{
	return steer_entry_at(m->ent, m->stride, slot);
}

/*
 * Mark hash h in the filter of the array at ent (before the entry turns VALID
 * with its release store). lib/steer is the filter's only writer, under the
 * context lock, and the device only reads it: a plain read and a store of
 * the byte (none when the bit is already set) instead of an atomic OR.
 */
static inline void
steer_filter_set(void *ent, uint32_t log2, uint32_t stride, uint32_t h)
{
	uint32_t b = tally_steer_filter_bit(h, log2);
	uint8_t *p = tally_steer_filter(ent, log2, stride) + (b >> 3);
	uint8_t v = __atomic_load_n(p, __ATOMIC_RELAXED);

	if (!(v & (1u << (b & 7))))
		__atomic_store_n(p, (uint8_t)(v | (1u << (b & 7))), __ATOMIC_RELAXED);
}

/* Is the filter bit of hash h set (a key of that hash may be in the array)? */
static inline bool
steer_filter_has(const void *ent, uint32_t log2, uint32_t stride, uint32_t h)
{
	uint32_t b = tally_steer_filter_bit(h, log2);

	return (tally_steer_filter(ent, log2, stride)[b >> 3] >> (b & 7)) & 1;
}

/* The filter byte of never-written home slot s (0 until now: only keys of
 * home s set bits in it), written without reading it. */
static inline void
steer_filter_set_fresh(void *ent, uint32_t log2, uint32_t stride, uint32_t h)
{
	uint32_t b = tally_steer_filter_bit(h, log2);

	__atomic_store_n(tally_steer_filter(ent, log2, stride) + (b >> 3),
			 (uint8_t)(1u << (b & 7)), __ATOMIC_RELAXED);
}

/*
 * Start fetching what inserting a key of hash h touches: with
 * STEER_PF_SLOT its home slot (entries are not line aligned: two lines at
 * most; the entry's driver word is in them), and with STEER_PF_NEXT as
 * well the next slot, where a probe past a taken home slot goes. Most
 * inserts never need the next slot, and each line asked for takes room
 * the core has for outstanding misses: a single flow queue inserts faster
 * without it; with several, the insert that waits for it under the lock
 * holds up the other queues (doc/benchmarks.md). Synchronous inserts ask
 * for it (no gain measured without it); with STEER_PF_DECIDE what an insert reads to decide
 * whether the rule is staged, the home slot's written bit (STEER_PF_WRITTEN)
 * and filter byte (STEER_PF_FILTER).
 * No lock: the array may be replaced meanwhile; a prefetch of a stale
 * address is harmless (it never faults).
 */
#define STEER_PF_SLOT		1u
#define STEER_PF_WRITTEN	2u
#define STEER_PF_FILTER		4u
#define STEER_PF_DECIDE		(STEER_PF_WRITTEN | STEER_PF_FILTER)
#define STEER_PF_ALL		(STEER_PF_SLOT | STEER_PF_DECIDE)
#define STEER_PF_NEXT		8u

static inline __attribute__((always_inline)) void
steer_prefetch(const struct tally_steer_matcher *m, uint32_t h, unsigned int what)
{
	const uint64_t *written = __atomic_load_n(&m->written, __ATOMIC_RELAXED);
	const uint8_t *ent = __atomic_load_n(&m->ent, __ATOMIC_RELAXED);
	uint32_t log2 = __atomic_load_n(&m->log2, __ATOMIC_RELAXED);
	uint32_t slot = h & ((1u << log2) - 1);
	const uint8_t *e;

	if (what & STEER_PF_SLOT) {
		e = (const uint8_t *)steer_entry_at(ent, m->stride, slot);
		tally_prefetch_w(e);
		tally_prefetch_w(e + ((what & STEER_PF_NEXT) ? 2 : 1) * m->stride - 1);
	}
	if (what & STEER_PF_WRITTEN)
		tally_prefetch_w(&written[slot >> 6]);
	if (what & STEER_PF_FILTER)
		tally_prefetch_w(tally_steer_filter(ent, log2, m->stride) +
				 (tally_steer_filter_bit(h, log2) >> 3));
}

/*
 * The same for one synchronous insert. A matcher large enough to have a
 * stage (steer_stage_sized()) puts a key that cannot be in its array into
 * the stage, and the slot is written only when the rule moves on, several
 * inserts later: its lines are asked for with those of the rules staged
 * next to it (steer_stage_prefetch()), so that their address translations
 * overlap instead of each stalling an insert of its own. Here only what
 * the insert reads at once.
 */
static inline void
steer_prefetch_key(const struct tally_steer_matcher *m, uint32_t h)
{
	steer_prefetch(m, h, steer_stage_sized(m) ? STEER_PF_DECIDE : STEER_PF_ALL | STEER_PF_NEXT);
}

static inline uint32_t
steer_state(uint32_t ctrl)
{
	return TALLY_FIELD_GET(ctrl, TALLY_STEER_CTRL_STATE_M);
}

/* Free EMPTY or TOMB slot for a new entry of hash h (array known to have one). */
static inline uint32_t
steer_free_slot(const uint8_t *ent, uint32_t log2, uint32_t stride, uint32_t h)
{
	uint32_t mask = (1u << log2) - 1, s = h & mask;

	while (steer_state(steer_entry_at(ent, stride, s)->ctrl) == TALLY_STEER_S_VALID)
		s = (s + 1) & mask;
	return s;
}

/* Next ctrl value with a new state (generation advances). */
static inline uint32_t
steer_ctrl_next(uint32_t ctrl, uint32_t state)
{
	return ((ctrl + (1u << TALLY_MASK_SHIFT(TALLY_STEER_CTRL_GEN_M))) &
		TALLY_STEER_CTRL_GEN_M) | TALLY_FIELD_PREP(TALLY_STEER_CTRL_STATE_M, state);
}

/* Tombstone slot s of m's published array (one release store). */
static inline void
steer_entry_unpublish(struct tally_steer_matcher *m, uint32_t s)
{
	struct tally_steer_entry *e = steer_entry(m, s);

	__atomic_store_n(&e->ctrl, steer_ctrl_next(e->ctrl, TALLY_STEER_S_TOMB),
			 __ATOMIC_RELEASE);
	m->used--;
	m->tombs++;
}

/* rule insert helpers (tally_steer_rule.c, tally_steer_batch.c) */

/*
 * Do n more entries fit without a migration? Not migrating, at most the
 * start load with all n (an insert adds at most one to used + tombs), and
 * not so empty that steer_make_room() would shrink the array (used only
 * grows meanwhile): steer_make_room() then finds room for each of them.
 */
static inline bool
steer_room(const struct tally_steer_matcher *m, uint32_t n)
{
	uint64_t size = 1ull << m->log2;

	return !m->migrating &&
	       (uint64_t)(m->used + m->tombs + n) * 8 <= STEER_LOAD_START * size &&
	       ((uint64_t)m->used * 16 >= size || m->log2 <= m->min_log2);
}

static inline bool
steer_key_eq(const struct tally_steer_entry *e, const uint32_t *w, uint32_t n)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		if (e->key[i] != w[i])
			return false;
	return true;
}

/*
 * Probe the published array for w. Returns the slot holding an equal VALID
 * entry, or UINT32_MAX and in *ins the slot a new entry should take (first
 * TOMB or the EMPTY that ended the probe).
 */
static inline uint32_t
steer_probe(const struct tally_steer_matcher *m, const uint32_t *w, uint32_t h,
	    uint32_t *ins)
{
	uint32_t mask = (1u << m->log2) - 1, s = h & mask, i, first = UINT32_MAX;

	for (i = 0; i <= mask; i++, s = (s + 1) & mask) {
		const struct tally_steer_entry *e = steer_entry(m, s);
		uint32_t st = steer_state(e->ctrl);

		if (st == TALLY_STEER_S_EMPTY) {
			if (first == UINT32_MAX)
				first = s;
			break;
		}
		if (st == TALLY_STEER_S_VALID) {
			if (steer_key_eq(e, w, m->nwords))
				return s;
		} else if (first == UINT32_MAX) {
			first = s;
		}
	}
	*ins = first;
	return UINT32_MAX;
}

/* An entry's fields (not ctrl), plain stores: the caller orders them. */
static inline void
steer_entry_fields(struct tally_steer_entry *e, const uint32_t *w, uint32_t nwords,
		   uint32_t act_w, uint32_t mark, uint32_t fate_w)
{
	uint32_t i;

	__atomic_store_n(&e->act, act_w, __ATOMIC_RELAXED);
	__atomic_store_n(&e->mark, mark, __ATOMIC_RELAXED);
	__atomic_store_n(&e->fate, fate_w, __ATOMIC_RELAXED);
	for (i = 0; i < nwords; i++)
		__atomic_store_n(&e->key[i], w[i], __ATOMIC_RELAXED);
}

/* Write the entry at slot s of the published array (seqlock write). */
static inline void
steer_entry_publish(struct tally_steer_entry *e, const uint32_t *w, uint32_t nwords,
		    uint32_t act_w, uint32_t mark, uint32_t fate_w)
{
	/* BUSY, fields, VALID (release) */
	__atomic_store_n(&e->ctrl, steer_ctrl_next(e->ctrl, TALLY_STEER_S_BUSY),
			 __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	steer_entry_fields(e, w, nwords, act_w, mark, fate_w);
	/* pairs with the device's acquire load of ctrl */
	__atomic_store_n(&e->ctrl, steer_ctrl_next(e->ctrl, TALLY_STEER_S_VALID),
			 __ATOMIC_RELEASE);
}

/*
 * Write a rule into an entry that has never held one (ctrl 0, EMPTY): the
 * device stops at an EMPTY entry and reads none of its fields, so the
 * fields go first and one release store of ctrl publishes them, with the
 * generation steer_entry_publish() would give (two steps from 0).
 */
static inline void
steer_entry_publish_fresh(struct tally_steer_entry *e, const uint32_t *w, uint32_t nwords,
			  uint32_t act_w, uint32_t mark, uint32_t fate_w)
{
	steer_entry_fields(e, w, nwords, act_w, mark, fate_w);
	/* pairs with the device's acquire load of ctrl */
	__atomic_store_n(&e->ctrl, steer_ctrl_next(steer_ctrl_next(0, TALLY_STEER_S_BUSY),
						    TALLY_STEER_S_VALID), __ATOMIC_RELEASE);
}

/*
 * Rule r into slot ins of the published array, its filter bit first (the
 * entry turns VALID with a release store after it). fresh: ins is the key's
 * never-written home slot, whose entry and filter byte are written without
 * being read (see steer_written_size()); else the slot the probe gave (EMPTY
 * or TOMB). The caller counts the rule in ctx->nrules. Not the written bit:
 * steer_place() sets it, a batch insert leaves it (see steer_written_size()).
 */
static inline __attribute__((always_inline)) void
steer_place_entry(struct tally_steer_matcher *m, uint32_t ins, bool fresh,
		  const struct tally_steer_key *k, uint32_t act_w, uint32_t mark,
		  uint32_t fate_w, struct tally_steer_rule *r)
{
	struct tally_steer_entry *e = steer_entry(m, ins);

	if (fresh) {
		steer_filter_set_fresh(m->ent, m->log2, m->stride, k->hash);
		steer_entry_publish_fresh(e, k->w, m->nwords, act_w, mark, fate_w);
	} else {
		if (steer_state(e->ctrl) == TALLY_STEER_S_TOMB)
			m->tombs--;
		steer_filter_set(m->ent, m->log2, m->stride, k->hash);
		steer_entry_publish(e, k->w, m->nwords, act_w, mark, fate_w);
	}
	steer_entry_set_owner(e, m->nwords, r->idx);
	m->used++;
	r->m = m;
	r->slot = ins | m->par;
}

static inline __attribute__((always_inline)) void
steer_place(struct tally_steer_matcher *m, uint32_t ins, bool fresh,
	    const struct tally_steer_key *k, uint32_t act_w, uint32_t mark, uint32_t fate_w,
	    struct tally_steer_rule *r)
{
	steer_place_entry(m, ins, fresh, k, act_w, mark, fate_w, r);
	steer_written_set(m->written, ins);
}

/*
 * Is slot ins, which a probe for a key of hash h gave, the key's home and
 * never written (ctrl 0)? Entries of a matcher's array never go back to
 * ctrl 0 (a delete leaves a TOMB; only a stage empties entries, and no
 * batch inserts into a stage), so no key of that home was ever placed in
 * the array: its filter byte is 0 and is written without being read, as
 * the entry is (steer_place_entry() with fresh). The probe just read the
 * ctrl word: no other line is touched.
 */
static inline bool
steer_slot_fresh(const struct tally_steer_matcher *m, uint32_t ins, uint32_t h)
{
	return ins == (h & ((1u << m->log2) - 1)) && steer_entry(m, ins)->ctrl == 0;
}

/*
 * Place rule r, whose actions are already acquired, into m; the key is not
 * in m (fresh: its home slot was never written, see steer_written_size()).
 * Inline into the insert paths (tally_steer_rule.c, tally_steer_stage.c):
 * room without a migration, the common case, needs no call.
 */
static inline __attribute__((always_inline)) int
steer_insert_words(struct tally_steer_matcher *m, const struct tally_steer_key *k,
		   bool fresh, uint32_t ins, uint32_t act_w, uint32_t mark,
		   uint32_t fate_w, struct tally_steer_rule *r)
{
	int rc = steer_room(m, 1) ? 0 : steer_make_room(m);

	if (rc < 0)
		return rc;
	if (rc == 1)
		steer_probe(m, k->w, k->hash, &ins);	/* the array changed */
	steer_place(m, ins, fresh && rc == 0, k, act_w, mark, fate_w, r);
	if (m->migrating)
		steer_mig_insert(m, ins, k->hash, r);
	return 0;
}

#endif /* TALLY_STEER_INTERNAL_H */
