/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Tally steering engine: tables, matchers, rules and actions in host memory
 * that the device walks (format: include/tally/tally_steer_fmt.h).
 *
 * What?
 * =====
 * A context owns the steering root of one device. A table (a DPDK flow
 * group; id < max_tables) holds matchers in priority order. A matcher is a
 * mask over the match key (tally_match.h, the mlx5 fte_match_param layout)
 * at one priority, plus a hash table of rules. A rule is a value of the
 * masked key plus an action: optional COUNT (flow counter index), MARK, FLAG
 * and one fate: DROP, QUEUE, RSS (a queue set), JUMP (to a table), MISS
 * (default path), PASSTHRU (the walk goes on with the next matchers of the
 * same table) or none (default path; under isolation these drop).
 *
 * The match description is our own: a masked key in the device layout
 * (struct tally_steer_match). The PMD's flow parser and the verbs shim
 * translate onto it; nothing here knows DPDK flow items or ibv specs.
 *
 * Semantics (what the device does, and what the test reference implements)
 * ========================================================================
 * A frame starts in table 0. Matchers are tried in ascending priority
 * value; matchers of equal priority in creation order. In each, the rule
 * whose value equals (key & mask) - at most one, duplicates are refused -
 * is a hit, and the first hit wins, unless its fate is PASSTHRU: then its
 * COUNT/MARK/FLAG apply and the walk goes on with the next matcher. A hit's
 * COUNT/MARK/FLAG apply; JUMP
 * continues in the target table (earlier marks/counts stay), other fates
 * end the walk. A table without a hit ends the walk as a miss.
 *
 * Compile once, insert fast
 * =========================
 * A matcher is compiled once into the list of 32-bit key words its mask
 * touches (the "mask descriptor", also given to the device). Inserting a
 * rule reads only those words of the value, hashes them, and probes an
 * open-addressing table: O(1) expected, no scan over rules. Deleting is a
 * handle lookup plus one store: O(1), and never rebuilds an array: the
 * tombstone it leaves is reused by later inserts. Growth, tombstone purge
 * and shrinking are one mechanism, an incremental migration to a new array
 * (tally_steer_migrate.c) started by an insert when the array is 5/8 full
 * (live + dead) or 1/16 live: every later insert or delete moves a bounded
 * number of entries, so no single operation pays for a rehash. A matcher
 * can be pre-sized (tally_steer_matcher_reserve) so it never migrates.
 *
 * Invariants
 * ==========
 *  - The device only ever sees fully written entries: pointers are
 *    published with release stores, entries through their ctrl sequence
 *    word (see tally_steer_fmt.h).
 *  - Device-visible memory that was unpublished (old hash arrays, matcher
 *    lists, matcher descriptors) is freed only after a device fence
 *    completes (struct tally_fence). Freed RSS set slots are reused likewise.
 *  - No two rules of one matcher have the same masked value (-EEXIST).
 *  - The jump graph between tables is acyclic: a rule whose JUMP would close
 *    a cycle (or names its own table) is refused with -ELOOP; a JUMP to a
 *    table that does not exist is refused with -ENOENT. A table referenced
 *    by jumps or holding matchers cannot be destroyed (-EBUSY).
 *  - Every failing call leaves no partial state behind.
 *  - Rules holding COUNT take a reference on the counter in the ctx's
 *    counter pool (if one was given) and drop it on delete, so the counter
 *    is not reused before a fence after its last rule is gone.
 *
 * Errors: negative errno. -EINVAL bad argument, -EEXIST duplicate,
 * -ENOENT missing table/RSS set/counter, -ELOOP jump cycle, -ENOSPC a
 * configured capacity is exhausted, -ENOMEM allocation failed, -EBUSY
 * object still in use.
 *
 * Thread-safety
 * =============
 * Every function here may be called from any thread; all control operations
 * of one context are serialised by the context lock (one writer at a time).
 * The device reads concurrently at all times, without locks.
 *
 * The context lock may be the caller's own (config `lock`), also given to
 * the counter pool: a caller that keeps state of its own next to the
 * context (the PMD's flow engine) takes that one lock once per operation
 * and calls the _locked variants below, which expect it held; the plain
 * functions take it themselves and must not be called with it held. Rules
 * dropping a counter reference use the pool's _locked calls when the pool
 * shares the lock, so a create or a destroy is one lock acquisition in all.
 * tally_steer_rule_key(), tally_steer_rule_prefetch(),
 * tally_steer_table_get() and tally_steer_ctx_reclaim() with nothing to
 * reclaim take no lock at all. Handles
 * (tables, matchers, rules) stay valid until destroyed; destroying an object
 * while another thread still uses its handle is the caller's bug.
 */
#ifndef TALLY_STEER_H
#define TALLY_STEER_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <tally/tally_io.h>
#include <tally/tally_match.h>
#include <tally/tally_steer_fmt.h>
#include "tally_cnt.h"
#include "tally_fence.h"

struct tally_steer_ctx;
struct tally_steer_table;
struct tally_steer_matcher;
struct tally_steer_rule;

/*
 * Device-visible memory. In the PMD this is DMA-able memory (DPDK malloc and
 * its IOVA); in tests an arena the device's translation table maps. alloc returns
 * zeroed memory aligned to `align` and its IOVA, or NULL. free receives the
 * size given to alloc.
 */
struct tally_steer_mem_ops {
	void *(*alloc)(void *arg, size_t size, size_t align, uint64_t *iova);
	void (*free)(void *arg, void *ptr, size_t size);
	void *arg;
};

struct tally_steer_config {
	const struct tally_io *io;	/* the device (STEER_ROOT, STEER_CTRL) */
	struct tally_fence *fence;	/* the device's fence sequencer */
	struct tally_cnt_pool *cnt;	/* optional: COUNT takes references */
	struct tally_lock *lock;	/* optional: the context lock is this
					 * caller-owned lock (see Thread-safety);
					 * NULL = the context's own */
	struct tally_steer_mem_ops mem;
	uint32_t max_tables;		/* 0 = 256; <= TALLY_STEER_MAX_TABLES */
	uint32_t max_rss;		/* RSS sets; 0 = 256; <= TALLY_STEER_MAX_RSS */
	uint32_t max_rules;		/* 0 = unlimited (2^32 - 1) */
	uint32_t nb_queues;		/* queue bound; 0 = TALLY_MAX_QUEUES */
	uint32_t rule_priv;		/* bytes of caller data in every rule
					 * handle (tally_steer_rule_priv), so a
					 * caller's per-rule object needs no
					 * allocation of its own; <= RULE_PRIV_MAX */
	/*
	 * The switch's context (spec 2.3, port 0's window): publishes at
	 * SW_ROOT/SW_CTRL instead of STEER_ROOT/STEER_CTRL; rules take the
	 * fates PORT and SWACT, and refuse QUEUE, RSS, MARK and FLAG
	 * (-EINVAL), which only a port's own tables have. nb_ports bounds the
	 * destination ports (1..TALLY_MAX_PORTS). Not for tally_steer_batch.
	 */
	bool sw;
	uint32_t nb_ports;
	uint32_t stage_min_log2;	/* single inserts into a matcher whose
					 * hash array has at least 2^this slots go
					 * through its staging array (see
					 * tally_steer_stage.c); 0 = 20, above
					 * TALLY_STEER_HTAB_MAX_LOG2 = never */
};
#define TALLY_STEER_RULE_PRIV_MAX	256

/* The match description: a masked key in the device's layout. Only bits set
 * in mask matter; value bits outside mask are ignored. */
struct tally_steer_match {
	struct tally_match_key mask;
	struct tally_match_key value;
};

enum tally_steer_fate {
	TALLY_STEER_FATE_NONE = 0,	/* default path, matched */
	TALLY_STEER_FATE_DROP,
	TALLY_STEER_FATE_QUEUE,		/* arg = queue index */
	TALLY_STEER_FATE_RSS,		/* arg = RSS set id */
	TALLY_STEER_FATE_JUMP,		/* arg = table id */
	TALLY_STEER_FATE_MISS,		/* default miss */
	TALLY_STEER_FATE_PASSTHRU,	/* go on with the next matchers of the table */
	TALLY_STEER_FATE_PORT,		/* switch: arg = TALLY_STEER_PORT_* word */
	TALLY_STEER_FATE_SWACT,		/* switch: arg = switch action set id */
};

#define TALLY_STEER_A_COUNT	(1u << 0)	/* count into `counter` */
#define TALLY_STEER_A_MARK	(1u << 1)	/* set `mark` */
#define TALLY_STEER_A_FLAG	(1u << 2)	/* set the flag */
/* With A_COUNT: the caller holds a reference on `counter` for the rule
 * (e.g. it just allocated it) and hands it over: an insert that succeeds
 * takes no reference of its own; one that fails leaves it with the caller.
 * Saves two atomic operations per counted rule. */
#define TALLY_STEER_A_CNT_HELD	(1u << 3)

struct tally_steer_action {
	uint32_t flags;			/* TALLY_STEER_A_* */
	enum tally_steer_fate fate;
	uint32_t arg;			/* by fate: queue, RSS set id, table id */
	uint32_t counter;		/* with A_COUNT: bank index (< TALLY_CNT_MAX) */
	uint32_t mark;			/* with A_MARK */
};

struct tally_steer_mem_stats {
	uint64_t dev_bytes;		/* device-visible memory allocated now */
	uint64_t dev_deferred;		/* of which waiting for a fence */
	uint64_t host_bytes;		/* host-only memory (handles, written bitmaps) */
	uint64_t rules;
};

/* ---- context ----------------------------------------------------------------
 * create: allocates the root, table array and RSS array, writes
 * STEER_ROOT_LO/HI and sets STEER_CTRL.EN (CTRL.STEER stays the port's
 * business). destroy: clears STEER_CTRL, waits for a fence, frees all
 * (remaining rules included, dropping their counter references). */
int tally_steer_ctx_create(const struct tally_steer_config *cfg,
			   struct tally_steer_ctx **out);
void tally_steer_ctx_destroy(struct tally_steer_ctx *ctx);
/* Free device memory whose fence completed. Cheap when nothing is pending. */
void tally_steer_ctx_reclaim(struct tally_steer_ctx *ctx);
void tally_steer_ctx_reclaim_locked(struct tally_steer_ctx *ctx);
/* Fence and wait (<= timeout_us), then reclaim everything. 0 or -ETIMEDOUT. */
int tally_steer_ctx_sync(struct tally_steer_ctx *ctx, uint64_t timeout_us);
int tally_steer_ctx_sync_locked(struct tally_steer_ctx *ctx, uint64_t timeout_us);
void tally_steer_ctx_mem(struct tally_steer_ctx *ctx,
			 struct tally_steer_mem_stats *st);
void tally_steer_ctx_mem_locked(struct tally_steer_ctx *ctx,
				struct tally_steer_mem_stats *st);
uint64_t tally_steer_ctx_root_iova(const struct tally_steer_ctx *ctx);

/* ---- tables ---------------------------------------------------------------- */
/* -EINVAL id >= max_tables, -EEXIST exists. */
int tally_steer_table_create(struct tally_steer_ctx *ctx, uint32_t id,
			     struct tally_steer_table **out);
int tally_steer_table_create_locked(struct tally_steer_ctx *ctx, uint32_t id,
				    struct tally_steer_table **out);
/* -EBUSY while it has matchers (parked ones too) or rules jump to it. */
int tally_steer_table_destroy(struct tally_steer_table *tbl);
/* NULL if absent. Takes no lock. */
struct tally_steer_table *tally_steer_table_get(struct tally_steer_ctx *ctx,
						uint32_t id);

/* ---- matchers -----------------------------------------------------------
 * Compile mask once. Lower priority value = tried first. -ENOSPC more than
 * TALLY_STEER_MAX_MATCHERS in the table. */
int tally_steer_matcher_create(struct tally_steer_table *tbl, uint32_t priority,
			       const struct tally_match_key *mask,
			       struct tally_steer_matcher **out);
int tally_steer_matcher_create_locked(struct tally_steer_table *tbl, uint32_t priority,
				      const struct tally_match_key *mask,
				      struct tally_steer_matcher **out);
/* -EBUSY while it holds rules. */
int tally_steer_matcher_destroy(struct tally_steer_matcher *m);
int tally_steer_matcher_destroy_locked(struct tally_steer_matcher *m);
/*
 * Parking: an empty matcher leaves its table's list (the device stops
 * walking it) and keeps its arrays, so that the next rule of its shape does
 * not allocate them again, nor the last rule's delete free them (freeing
 * clears the memory: a large array costs milliseconds). Unpark puts it back
 * where it was among the table's matchers (priority, then creation order).
 * A parked matcher takes no rule (-EINVAL) until unparked; destroy frees it.
 * park: -EBUSY while it holds rules; unpark: -ENOSPC when the table's list
 * is full, -ENOMEM when the new list cannot be allocated (nothing changed).
 */
int tally_steer_matcher_park_locked(struct tally_steer_matcher *m);
int tally_steer_matcher_unpark_locked(struct tally_steer_matcher *m);
bool tally_steer_matcher_parked(const struct tally_steer_matcher *m);
/* Size the hash array for nb_rules now, so inserting up to that many never
 * grows it, and never shrink it below that. Finishes a running migration. -ENOSPC beyond the
 * largest array, -ENOMEM. */
int tally_steer_matcher_reserve(struct tally_steer_matcher *m, uint32_t nb_rules);
int tally_steer_matcher_reserve_locked(struct tally_steer_matcher *m, uint32_t nb_rules);
/* Device bytes of the hash array tally_steer_matcher_reserve_locked() would
 * give a matcher of nwords key words for nb_rules (0: too large). */
size_t tally_steer_reserve_bytes(uint32_t nb_rules, uint32_t nwords);
/* A pointer of the caller's kept with the matcher (NULL at creation). */
void tally_steer_matcher_set_udata(struct tally_steer_matcher *m, void *udata);
void *tally_steer_matcher_udata(const struct tally_steer_matcher *m);
/* Key words the mask uses (0..128). */
uint32_t tally_steer_matcher_nwords(const struct tally_steer_matcher *m);
uint32_t tally_steer_matcher_rules(const struct tally_steer_matcher *m);
/* Of those, rules in the matcher's staging array (tally_steer_stage.c);
 * drain_locked moves them all into the hash array (-ENOSPC if some cannot
 * move now: no memory to grow it). */
uint32_t tally_steer_matcher_staged(const struct tally_steer_matcher *m);
int tally_steer_matcher_drain_locked(struct tally_steer_matcher *m);
/* log2 of the published hash array size (tests, dumps). */
uint32_t tally_steer_matcher_log2(const struct tally_steer_matcher *m);
/* Deleted entries in the published array, and whether a migration to a new
 * array is under way (tests, dumps). */
uint32_t tally_steer_matcher_tombs(const struct tally_steer_matcher *m);
bool tally_steer_matcher_migrating(const struct tally_steer_matcher *m);
/* 0 if the matcher's hash arrays are consistent (entry states and counts,
 * the written bitmap, rule handles), else -EIO; reads every entry (tests,
 * debugging); lock held. */
int tally_steer_matcher_check_locked(const struct tally_steer_matcher *m);

/* ---- rules ----------------------------------------------------------------
 * value: a key; only the matcher's mask bits are used. -EEXIST same masked
 * value in this matcher, -ENOENT jump to a missing table / RSS set not
 * allocated / counter not allocated in the pool, -ELOOP jump cycle,
 * -EINVAL bad action, -ENOSPC max_rules or hash array limit. */
/* A rule's key as one matcher sees it: the masked words and their hash,
 * computed once. */
struct tally_steer_key {
	uint32_t w[TALLY_STEER_KEY_WORDS];
	uint32_t hash;
};
/* Fill k for value in m and start fetching the hash slot it would take, so
 * that the cache miss overlaps with the caller's other work. Takes no lock
 * and changes no state (m must stay alive). */
void tally_steer_rule_key(struct tally_steer_matcher *m,
			  const struct tally_match_key *value,
			  struct tally_steer_key *k);
/* Insert with a key from tally_steer_rule_key() on the same matcher. */
int tally_steer_rule_insert_key(struct tally_steer_matcher *m,
				const struct tally_steer_key *k,
				const struct tally_steer_action *act,
				struct tally_steer_rule **out);
int tally_steer_rule_insert_key_locked(struct tally_steer_matcher *m,
				       const struct tally_steer_key *k,
				       const struct tally_steer_action *act,
				       struct tally_steer_rule **out);
/* tally_steer_rule_key() + tally_steer_rule_insert_key(). */
int tally_steer_rule_insert(struct tally_steer_matcher *m,
			    const struct tally_match_key *value,
			    const struct tally_steer_action *act,
			    struct tally_steer_rule **out);
int tally_steer_rule_insert_locked(struct tally_steer_matcher *m,
				   const struct tally_match_key *value,
				   const struct tally_steer_action *act,
				   struct tally_steer_rule **out);
int tally_steer_rule_delete(struct tally_steer_rule *r);
int tally_steer_rule_delete_locked(struct tally_steer_rule *r);
/* The same for callers that delete in handle order (flush, bulk destroy):
 * also starts fetching the entries of the handles `ahead` places on (none
 * if 0; a group of them at once, when r's handle starts a group, see
 * tally_steer_rule.c) and gives the udata of r's matcher in *udata (NULL,
 * and -EINVAL, when r is in no matcher: the handle is then left to the
 * caller). */
int tally_steer_rule_delete_next_locked(struct tally_steer_rule *r, uint32_t ahead,
					void **udata);
/* Start fetching the entry of r ahead of its delete (e.g. the next rule of a
 * caller deleting in creation order). Only a hint: takes no lock, changes no
 * state; r must not be deleted concurrently. */
void tally_steer_rule_prefetch(const struct tally_steer_rule *r);

/*
 * Rule handles as the caller's objects. Every handle carries cfg.rule_priv
 * bytes for the caller (zeroed when the handle is handed out), and handles
 * live in slab chunks that stay mapped until the context is destroyed, so a
 * stale handle still points at readable memory. A handle is free, reserved
 * (the caller's, not in a matcher), or in a matcher. All _locked.
 *
 * reserve: a reserved handle (-ENOMEM, -ENOSPC). insert_at: insert into a
 * reserved handle, which stays reserved if it fails (errors as insert).
 * remove: take the rule out of its matcher; the handle stays reserved.
 * unreserve: give a reserved handle back. insert_key/insert = reserve +
 * insert_at; delete = remove + unreserve.
 */
int tally_steer_rule_reserve_locked(struct tally_steer_ctx *ctx,
				    struct tally_steer_rule **out);
/* Map and touch the slab for at least n handles now, so that the first n
 * rules take no page faults for their handles (handles already touched
 * count). 0, -ENOSPC, -ENOMEM (what was mapped stays). Takes the lock. */
int tally_steer_ctx_reserve_handles(struct tally_steer_ctx *ctx, uint32_t n);
int tally_steer_rule_insert_at_locked(struct tally_steer_matcher *m,
				      const struct tally_steer_key *k,
				      const struct tally_steer_action *act,
				      struct tally_steer_rule *r);
int tally_steer_rule_remove_locked(struct tally_steer_rule *r);
void tally_steer_rule_unreserve_locked(struct tally_steer_ctx *ctx,
				       struct tally_steer_rule *r);
static inline void *
tally_steer_rule_priv(struct tally_steer_rule *r)
{
	return (uint8_t *)r + 16;
}
static inline struct tally_steer_rule *
tally_steer_rule_of_priv(void *priv)
{
	return (struct tally_steer_rule *)(void *)((uint8_t *)priv - 16);
}
/* The matcher of a rule in one, else NULL. */
struct tally_steer_matcher *tally_steer_rule_matcher(const struct tally_steer_rule *r);
/* Every handle ever handed out is tally_steer_rule_at(ctx, i) for i below
 * tally_steer_rule_slots(ctx) (free ones included: check the matcher or the
 * caller's data); lock held. */
uint32_t tally_steer_rule_slots(const struct tally_steer_ctx *ctx);
struct tally_steer_rule *tally_steer_rule_at(const struct tally_steer_ctx *ctx,
					     uint32_t i);
/* The action as stored (for dumps/queries). */
void tally_steer_rule_action(const struct tally_steer_rule *r,
			     struct tally_steer_action *act);

/* ---- RSS queue sets ---------------------------------------------------------
 * Immutable once created; rules name them by id. hf: enum tally_rss_hf bits
 * (0 = port setting). -ENOSPC no free id, -EINVAL bad queues. */
int tally_steer_rss_create(struct tally_steer_ctx *ctx, uint32_t hf,
			   const uint16_t *queues, uint16_t nq, uint32_t *id);
int tally_steer_rss_create_locked(struct tally_steer_ctx *ctx, uint32_t hf,
				  const uint16_t *queues, uint16_t nq, uint32_t *id);
/* A switch action set (switch contexts only): immutable once created,
 * rules name it by id with FATE_SWACT; it takes an id of the RSS sets'
 * (max_rss), and tally_steer_rss_destroy() releases it. -EINVAL not a
 * switch context, flags outside TALLY_SWACT_FLAGS_M, FWD to a port outside
 * nb_ports; -ENOSPC no free id. SWACT_VALID is set by the call. */
int tally_steer_swact_create_locked(struct tally_steer_ctx *ctx,
				    const struct tally_steer_swact *a, uint32_t *id);
/* -EBUSY while rules use it, -ENOENT unknown. */
int tally_steer_rss_destroy(struct tally_steer_ctx *ctx, uint32_t id);
int tally_steer_rss_destroy_locked(struct tally_steer_ctx *ctx, uint32_t id);

#endif /* TALLY_STEER_H */
