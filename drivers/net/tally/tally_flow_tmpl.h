/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Template tables and flow queues: the objects tally_flow_tmpl.c (templates
 * and tables) and tally_flow_async.c (configure, queues, operations) share.
 * tally_flow_async.c calls into tally_flow_tmpl.c, never the reverse.
 * Everything here is used with the engine lock held (tally_flow_priv.h),
 * except a flow queue's batch, caches and results, which are its owner
 * thread's, and what tables compile at creation, which is read-only then.
 */
#ifndef TALLY_FLOW_TMPL_H
#define TALLY_FLOW_TMPL_H

#include <string.h>

#include <rte_branch_prediction.h>
#include <rte_byteorder.h>
#include <rte_flow_driver.h>

#include "tally_pmd.h"
#include "tally_flow_priv.h"
#include "tally_steer_batch.h"

#define TALLY_FLOW_MAX_QUEUES		64
#define TALLY_FLOW_MAX_QUEUE_SIZE	(1u << 16)
#define TALLY_TMPL_MAX_ITEMS		16
#define TALLY_TMPL_MAX_ACTIONS		16
#define TALLY_TMPL_MAX_PER_TABLE	8
#define TALLY_PT_MAGIC			0x54505431u	/* "1TPT" */
#define TALLY_AT_MAGIC			0x54415431u
#define TALLY_TBL_MAGIC			0x54424c31u
#define TALLY_FQ_BATCH			64	/* operations per batch */

/*
 * Precompiled key builder of one (table, pattern template) pair
 * (tally_flow_prog.c): the matcher's key words are base[] OR'ed with, for
 * each op, the len bytes at off of the spec of item `item` read as one
 * value (big-endian, or little-endian with le), AND mask, shifted left by
 * shift (right when negative), into word `word`.
 */
struct tally_key_op {
	uint16_t off;
	uint8_t len;			/* 1..4 */
	uint8_t item;
	uint8_t word;
	int8_t shift;
	bool le;
	bool be32;			/* len 4, big-endian: one load */
	uint8_t shl;			/* shift as two unsigned shifts, */
	uint8_t shr;			/* one of them 0 */
	uint32_t mask;
};

struct tally_key_prog {
	struct tally_steer_matcher *m;
	uint32_t seed;			/* m's hash seed */
	uint32_t nwords;
	uint32_t nops;
	uint32_t base[TALLY_STEER_KEY_WORDS];
	struct tally_key_op op[];
};

/* One op's contribution (spec: the item's spec). */
static inline uint32_t
tally_key_op_get(const struct tally_key_op *o, const uint8_t *spec)
{
	uint32_t v = 0, i;

	if (likely(o->be32)) {
		memcpy(&v, spec + o->off, sizeof(v));
		return ((rte_be_to_cpu_32(v) & o->mask) << o->shl) >> o->shr;
	}
	if (o->len == 4) {
		memcpy(&v, spec + o->off, sizeof(v));
		v = o->le ? rte_le_to_cpu_32(v) : rte_be_to_cpu_32(v);
	} else if (o->le) {
		for (i = 0; i < o->len; i++)
			v |= (uint32_t)spec[o->off + i] << (8 * i);
	} else {
		for (i = 0; i < o->len; i++)
			v = v << 8 | spec[o->off + i];
	}
	return ((v & o->mask) << o->shl) >> o->shr;
}

/* Precompiled actions: base with, per rule, the queue index of the action
 * at queue_slot and the mark id of the action at mark_slot (-1: none). */
struct tally_act_prog {
	bool ok;			/* else rules go through the parser */
	bool count;
	int8_t queue_slot;
	int8_t mark_slot;
	struct tally_steer_action base;
	struct tally_steer_act_enc enc;	/* base encoded for the device */
};

struct rte_flow_pattern_template {
	TAILQ_ENTRY(rte_flow_pattern_template) next;
	uint32_t magic;
	uint32_t refs;			/* tables using it */
	struct rte_flow_item *items;	/* deep copy, END-terminated */
	uint32_t nb_items;		/* without END */
	uint32_t spec_needed;		/* bit i: item i has a mask, rules
					 * bring its spec */
	uint32_t type[TALLY_TMPL_MAX_ITEMS + 1];	/* item types, END */
	struct tally_match_key mask;
};

struct rte_flow_actions_template {
	TAILQ_ENTRY(rte_flow_actions_template) next;
	uint32_t magic;
	uint32_t refs;
	struct rte_flow_action *actions;	/* deep copies, END-terminated */
	struct rte_flow_action *masks;
	uint32_t nb_actions;
	uint32_t type[TALLY_TMPL_MAX_ACTIONS + 1];	/* action types, END */
	bool constant[TALLY_TMPL_MAX_ACTIONS];	/* conf from the template */
	struct tally_act_prog prog;
};

struct rte_flow_template_table {
	TAILQ_ENTRY(rte_flow_template_table) next;
	uint32_t magic;
	uint16_t id;			/* rules carry id + 1 */
	struct rte_flow_attr attr;
	uint32_t nb_flows;
	uint32_t *nb_rules;		/* its rules: &fc->tbl_rules[id] */
	uint8_t nb_pt;
	uint8_t nb_at;
	struct rte_flow_pattern_template *pt[TALLY_TMPL_MAX_PER_TABLE];
	struct rte_flow_actions_template *at[TALLY_TMPL_MAX_PER_TABLE];
	struct tally_flow_matcher *fm[TALLY_TMPL_MAX_PER_TABLE];
	struct tally_key_prog *kp[TALLY_TMPL_MAX_PER_TABLE];	/* NULL: parser */
};

/* An enqueued operation not run yet. */
enum tally_fq_op {
	TALLY_FQ_CREATE,	/* parsed: act, key in the queue's bop */
	TALLY_FQ_CREATE_ENC,	/* built: the actions template's encoded
				 * action, key and values in the bop */
	TALLY_FQ_DESTROY,
	TALLY_FQ_FAIL,		/* rejected at enqueue: an error result */
};

struct tally_flow_pending {
	struct rte_flow *flow;
	struct rte_flow_template_table *tb;
	void *user_data;
	struct tally_steer_action act;	/* TALLY_FQ_CREATE */
	uint8_t op;			/* enum tally_fq_op */
	bool count;			/* TALLY_FQ_CREATE: COUNT */
	bool stock;			/* the counter is from the queue's stock */
	uint8_t pt_idx;
	uint8_t at_idx;
};

struct tally_flow_queue {
	struct tally_flow_pending *pend;	/* [TALLY_FQ_BATCH] */
	struct tally_steer_bop *bop;	/* [TALLY_FQ_BATCH]: keys and rule values */
	uint32_t npend;
	uint32_t ncache;
	struct rte_flow *cache[TALLY_FQ_BATCH];	/* flow objects for creates */
	uint32_t *cnt;			/* counters allocated at configure */
	uint32_t ncnt;
	uint32_t size;
	uint32_t head;			/* next result to pull (free running) */
	uint32_t tail;			/* next slot to fill */
	uint32_t rd;			/* head % size */
	uint32_t wr;			/* tail % size */
	uint32_t fence_ticket;		/* the latest destroy's fence */
	bool fence_pending;
	bool pf_next;			/* other queues: a create's prefetch takes
					 * the next hash slot too (queue_prefetch()) */
	struct rte_flow_op_result *res;
	struct rte_flow failed;		/* handle of rejected creates: never live */
} __rte_cache_aligned;	/* each queue's thread writes its own: no line in common */

struct tally_flow_tmpl {
	uint32_t nb_queues;
	struct tally_flow_queue *q;
	uint32_t flags;			/* RTE_FLOW_PORT_FLAG_* */
	uint32_t nb_counters;
	uint32_t nb_aging;
	TAILQ_HEAD(, rte_flow_pattern_template) pts;
	TAILQ_HEAD(, rte_flow_actions_template) ats;
	TAILQ_HEAD(, rte_flow_template_table) tables;
	struct rte_flow_template_table *by_id[TALLY_FLOW_MAX_TABLES];
	/* flow objects allocated ahead (tables' rule counts, freed queues'
	 * caches): a stack of pointers, so that a queue's refill under the
	 * lock copies 64 of them without reading one object (a list linked
	 * through the objects made it 64 dependent misses) */
	struct rte_flow **spare;
	uint32_t nspare;
	uint32_t spare_cap;
};

/* Flow objects the template tables allocated ahead (lock held). */
static inline uint32_t
tally_tmpl_spare_count(const struct tally_flow_ctx *fc)
{
	return fc->tmpl != NULL ? fc->tmpl->nspare : 0;
}

/* Room in t->spare for n objects: 0 or -ENOMEM (t->spare as it was). */
int tally_tmpl_spare_room(struct tally_flow_tmpl *t, uint32_t n);

/* The port's flow engine, or NULL with err set. */
static inline struct tally_flow_ctx *
tally_tmpl_fc(struct rte_eth_dev *dev, struct rte_flow_error *err)
{
	struct tally_flow_ctx *fc = tally_adapter(dev)->flow;

	if (fc == NULL)
		rte_flow_error_set(err, EIO, RTE_FLOW_ERROR_TYPE_STATE, NULL,
				   "flow engine not available");
	return fc;
}

/* ---- tally_flow_tmpl.c ---------------------------------------------------- */

/* The template state of the port, created on first use (lock held). */
struct tally_flow_tmpl *tally_tmpl_get(struct tally_flow_ctx *fc);
/* The live table p points at, or NULL. */
static inline struct rte_flow_template_table *
tally_tmpl_table_check(struct tally_flow_tmpl *t, const void *p)
{
	const struct rte_flow_template_table *tb = p;

	if (t == NULL || tb == NULL || tb->magic != TALLY_TBL_MAGIC ||
	    tb->id >= TALLY_FLOW_MAX_TABLES || t->by_id[tb->id] != tb)
		return NULL;
	return t->by_id[tb->id];
}
/* Destroy every table and template (lock held). */
void tally_tmpl_release_all(struct tally_flow_ctx *fc);
/* rte_flow_ops: templates and tables */
struct rte_flow_pattern_template *
tally_flow_pt_create(struct rte_eth_dev *dev, const struct rte_flow_pattern_template_attr *a,
		     const struct rte_flow_item pattern[], struct rte_flow_error *err);
int tally_flow_pt_destroy(struct rte_eth_dev *dev, struct rte_flow_pattern_template *ptp,
			  struct rte_flow_error *err);
struct rte_flow_actions_template *
tally_flow_at_create(struct rte_eth_dev *dev, const struct rte_flow_actions_template_attr *a,
		     const struct rte_flow_action actions[], const struct rte_flow_action masks[],
		     struct rte_flow_error *err);
int tally_flow_at_destroy(struct rte_eth_dev *dev, struct rte_flow_actions_template *atp,
			  struct rte_flow_error *err);
struct rte_flow_template_table *
tally_flow_table_create(struct rte_eth_dev *dev, const struct rte_flow_template_table_attr *ta,
			struct rte_flow_pattern_template *pts[], uint8_t nb_pts,
			struct rte_flow_actions_template *ats[], uint8_t nb_ats,
			struct rte_flow_error *err);
int tally_flow_table_destroy(struct rte_eth_dev *dev, struct rte_flow_template_table *tbp,
			     struct rte_flow_error *err);

/* ---- tally_flow_async.c: rte_flow_ops of flow queues -------------------------- */

int tally_flow_info_get(struct rte_eth_dev *dev, struct rte_flow_port_info *pi,
			struct rte_flow_queue_info *qi, struct rte_flow_error *err);
int tally_flow_configure(struct rte_eth_dev *dev, const struct rte_flow_port_attr *pa,
			 uint16_t nb_queue, const struct rte_flow_queue_attr *qa[],
			 struct rte_flow_error *err);
/* Release flow queues, templates and tables (port close; lock not held). */
void tally_flow_tmpl_fini(struct tally_flow_ctx *fc);
/* the fast path: in rte_flow_ops on 22.11, rte_flow_fp_ops on 24.x */
struct rte_flow *
tally_flow_async_create(struct rte_eth_dev *dev, uint32_t queue,
			const struct rte_flow_op_attr *oa, struct rte_flow_template_table *tbp,
			const struct rte_flow_item pattern[], uint8_t pt_idx,
			const struct rte_flow_action actions[], uint8_t at_idx,
			void *user_data, struct rte_flow_error *err);
int tally_flow_async_destroy(struct rte_eth_dev *dev, uint32_t queue,
			     const struct rte_flow_op_attr *oa, struct rte_flow *flow,
			     void *user_data, struct rte_flow_error *err);
int tally_flow_push(struct rte_eth_dev *dev, uint32_t queue, struct rte_flow_error *err);
int tally_flow_pull(struct rte_eth_dev *dev, uint32_t queue, struct rte_flow_op_result res[],
		    uint16_t n_res, struct rte_flow_error *err);
struct rte_flow_action_handle *
tally_flow_async_ah_create(struct rte_eth_dev *dev, uint32_t queue,
			   const struct rte_flow_op_attr *oa,
			   const struct rte_flow_indir_action_conf *conf,
			   const struct rte_flow_action *action, void *user_data,
			   struct rte_flow_error *err);
int tally_flow_async_ah_destroy(struct rte_eth_dev *dev, uint32_t queue,
				const struct rte_flow_op_attr *oa,
				struct rte_flow_action_handle *h, void *user_data,
				struct rte_flow_error *err);
int tally_flow_async_ah_update(struct rte_eth_dev *dev, uint32_t queue,
			       const struct rte_flow_op_attr *oa,
			       struct rte_flow_action_handle *h, const void *update,
			       void *user_data, struct rte_flow_error *err);
int tally_flow_async_ah_query(struct rte_eth_dev *dev, uint32_t queue,
			      const struct rte_flow_op_attr *oa,
			      const struct rte_flow_action_handle *h, void *data,
			      void *user_data, struct rte_flow_error *err);

/* ---- tally_flow_prog.c ------------------------------------------------------ */

/* The key builder of pt for matcher m, or NULL (no memory, or a template
 * the parser does not map bit for bit: its rules are parsed). */
struct tally_key_prog *tally_key_prog_compile(const struct rte_flow_pattern_template *pt,
					      struct tally_steer_matcher *m);
void tally_act_prog_compile(const struct rte_flow_actions_template *at,
			    struct tally_act_prog *ap);

#endif /* TALLY_FLOW_TMPL_H */
