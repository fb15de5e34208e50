/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Private structures of lib/steer; the one header its .c files include.
 * All fields are protected by ctx->lock unless noted.
 */
#ifndef TALLY_STEER_INTERNAL_H
#define TALLY_STEER_INTERNAL_H

#include <errno.h>
#include <pthread.h>
#include <string.h>

#include <tally/tally_regs.h>
#include "tally_plat.h"
#include "tally_steer.h"

#define STEER_HTAB_MIN_LOG2	4	/* 16 entries */
#define STEER_HANDLE_CHUNK_LOG2	14	/* rule handles per slab chunk */
#define STEER_HANDLE_NONE	UINT32_MAX
#define STEER_FENCE_TIMEOUT_US	1000000

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

struct tally_steer_rule {
	struct tally_steer_matcher *m;	/* NULL when the handle is free */
	uint32_t slot;			/* hash array entry; next free when free */
	uint32_t idx;			/* own handle index */
};

struct tally_steer_matcher {
	struct tally_steer_table *tbl;
	uint32_t priority;
	uint32_t seq;			/* creation order among equal priorities */
	uint32_t nwords;
	uint32_t seed;
	uint8_t widx[TALLY_STEER_KEY_WORDS];	/* compiled mask descriptor */
	uint32_t wmask[TALLY_STEER_KEY_WORDS];
	struct steer_dmem desc;		/* struct tally_steer_matcher_desc */
	struct steer_dmem htab;		/* struct tally_steer_htab + entries */
	uint8_t *ent;			/* first entry */
	uint32_t log2;
	uint32_t min_log2;		/* deletes never shrink below (reserve) */
	uint32_t stride;
	uint32_t used;			/* VALID entries */
	uint32_t tombs;			/* TOMB entries */
	uint32_t *shadow;		/* entry -> rule handle index (host) */
};

struct tally_steer_table {
	struct tally_steer_ctx *ctx;
	uint32_t id;
	uint32_t nm;
	struct tally_steer_matcher *m[TALLY_STEER_MAX_MATCHERS];	/* list order */
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
	pthread_mutex_t lock;
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
	/* rule handle slab */
	struct tally_steer_rule **chunk;
	uint32_t nchunks, chunk_cap;
	uint32_t free_handle;
	/* accounting */
	uint64_t dev_bytes, dev_deferred, host_bytes;
	uint32_t nrules;
	uint32_t matcher_seq;
	uint32_t visit_epoch;
};

/* memory (tally_steer_ctx.c) */
int steer_dmem_alloc(struct tally_steer_ctx *ctx, size_t size, size_t align,
		     struct steer_dmem *out);
void steer_dmem_free(struct tally_steer_ctx *ctx, struct steer_dmem *mem);
/* Unpublished memory: free after the next fence. Requests that fence. */
void steer_dmem_defer(struct tally_steer_ctx *ctx, struct steer_dmem *mem);
void steer_reclaim_locked(struct tally_steer_ctx *ctx);

/* handles (tally_steer_rule.c) */
static inline struct tally_steer_rule *
steer_handle(const struct tally_steer_ctx *ctx, uint32_t idx)
{
	return &ctx->chunk[idx >> STEER_HANDLE_CHUNK_LOG2]
			  [idx & ((1u << STEER_HANDLE_CHUNK_LOG2) - 1)];
}
void steer_rules_free_all(struct tally_steer_matcher *m);

/* actions (tally_steer_action.c) */
int steer_action_acquire(struct tally_steer_table *tbl,
			 const struct tally_steer_action *act, uint32_t *act_w,
			 uint32_t *fate_w);
void steer_action_release(struct tally_steer_table *tbl, uint32_t act_w,
			  uint32_t fate_w);
void steer_action_decode(uint32_t act_w, uint32_t mark, uint32_t fate_w,
			 struct tally_steer_action *act);

/* tables (tally_steer_table.c) */
int steer_table_publish(struct tally_steer_table *t, struct tally_steer_matcher **m,
			uint32_t n);

/* matchers (tally_steer_matcher.c) */
int steer_matcher_rehash(struct tally_steer_matcher *m, uint32_t log2);
void steer_matcher_free(struct tally_steer_matcher *m);

static inline struct tally_steer_entry *
steer_entry(const struct tally_steer_matcher *m, uint32_t slot)
{
	return (struct tally_steer_entry *)(void *)(m->ent + (size_t)slot * m->stride);
}

static inline uint32_t
steer_state(uint32_t ctrl)
{
	return TALLY_FIELD_GET(ctrl, TALLY_STEER_CTRL_STATE_M);
}

/* Next ctrl value with a new state (generation advances). */
static inline uint32_t
steer_ctrl_next(uint32_t ctrl, uint32_t state)
{
	return ((ctrl + (1u << TALLY_MASK_SHIFT(TALLY_STEER_CTRL_GEN_M))) &
		TALLY_STEER_CTRL_GEN_M) | TALLY_FIELD_PREP(TALLY_STEER_CTRL_STATE_M, state);
}

#endif /* TALLY_STEER_INTERNAL_H */
