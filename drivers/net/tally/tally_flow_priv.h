/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The rte_flow engine of one port, shared by the files that implement it,
 * each calling only the ones before it:
 *   tally_flow_parse.c   pattern and actions -> match key and action
 *   tally_flow_mem.c     device-visible memory for lib/steer
 *   tally_flow_age.c     the AGE action
 *   tally_flow_rule.c    the rule core: matchers, RSS sets, counters,
 *                        insert/commit/destroy, query, dump
 *   tally_flow_handle.c  indirect COUNT actions
 *   tally_flow_prog.c    key and action builders; a create from a pattern
 *   tally_flow_tmpl.c    pattern/actions templates and template tables
 *   tally_flow_async.c   flow queues
 *   tally_flow_xfer_parse.c  checking a transfer rule
 *   tally_flow_xfer.c    transfer rules: the device's switch, on port 0
 *   tally_flow_ops.c     the rte_flow_ops table, synchronous calls, the port
 *                        state around control calls, init and fini
 * tally_flow.h is what the rest of the PMD sees.
 *
 * Locking: `lock` serialises every control operation of the port - sync
 * create/destroy/flush, template and table life cycle, flow-queue
 * operations, the aging scan. It is also the lock of the steering context
 * and of the counter pool (their config `lock`): code holding it calls the
 * _locked functions of lib/steer and tally_cnt, so an operation takes one
 * lock. Counter reads never take it.
 */
#ifndef TALLY_FLOW_PRIV_H
#define TALLY_FLOW_PRIV_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/queue.h>

#include <rte_flow.h>

#include "tally_pmd.h"
#include "tally_flow.h"
#include "tally_lock.h"

/* The error of every rte_flow call that needs the device, once the device is
 * gone (doc/guides/nics/tally.rst, "Device loss"). */
static inline int
tally_flow_gone(struct rte_flow_error *err)
{
	return rte_flow_error_set(err, EIO, RTE_FLOW_ERROR_TYPE_UNSPECIFIED, NULL,
				  "device is gone");
}

#define TALLY_FLOW_GROUPS	4096
#define TALLY_FLOW_RSS_SETS	4096
#define TALLY_FLOW_HANDLE_MAGIC	0x54494e44u	/* "TIND" */
#define TALLY_FLOW_SYNC_US	1000000
#define TALLY_FLOW_AGE_SYNC	UINT16_MAX	/* not from a flow queue */
#define TALLY_FLOW_MAX_TABLES	1024	/* template tables */

struct tally_flow_matcher {
	TAILQ_ENTRY(tally_flow_matcher) next;
	struct tally_steer_matcher *m;
	uint32_t group;
	uint32_t priority;
	uint32_t refs;
	struct tally_match_key mask;
};

struct tally_flow_rss {
	TAILQ_ENTRY(tally_flow_rss) next;
	uint32_t id;
	uint32_t refs;
	uint32_t hf;
	uint16_t nq;
	uint16_t queues[TALLY_FLOW_MAX_RSS_QUEUES];
};

/* Rules naming a handle each hold a reference on its counter (taken by the
 * steering engine), so the handle is in use while the count is above 1. */
struct rte_flow_action_handle {
	TAILQ_ENTRY(rte_flow_action_handle) next;
	uint32_t magic;
	uint32_t counter;
};

/* A flow is the caller data of its steering rule handle (config rule_priv):
 * one object per rule, 16 bytes after the handle's 16, in the steering
 * context's handle slab; no list - flush, walk and dump go over the slab,
 * and the matcher is the steering matcher's udata. A flow is live while
 * magic is TALLY_FLOW_MAGIC: destroy, query and dump check it (and the
 * port), so a destroyed flow, a double destroy or another port's flow get
 * EINVAL. Handles stay mapped until the engine is released, so the check
 * reads valid memory. */
#define TALLY_FLOW_MAGIC	0x7a11

#define FLOW_F_COUNTED		(1u << 0)	/* counter is valid */
#define FLOW_F_INDIRECT		(1u << 1)	/* ... and belongs to a handle */
#define FLOW_F_RSS		(1u << 2)	/* rss_id names an RSS set */
#define FLOW_F_AGE		(1u << 3)	/* aging watches `counter` */
#define FLOW_F_XFER		(1u << 4)	/* a transfer rule (tally_flow_xfer.c):
						 * rss_id names its switch action set */

struct rte_flow {
	uint32_t counter;
	uint16_t magic;		/* 0 until live (a spare is never live) */
	uint16_t port_id;
	uint16_t rss_id;	/* fc->rss_by_id[] */
	uint16_t tbl_id;	/* template table id + 1, or 0 */
	uint8_t flags;		/* FLOW_F_* */
	uint8_t rsvd[3];
};
/* memory per rule: with the handle, 32 bytes */
_Static_assert(sizeof(struct rte_flow) == 16, "struct rte_flow grew");

static inline struct tally_steer_rule *
tally_flow_rule(struct rte_flow *flow)
{
	return tally_steer_rule_of_priv(flow);
}

/* The matcher a live flow's rule is in. */
static inline struct tally_flow_matcher *
tally_flow_matcher_of(struct rte_flow *flow)
{
	return tally_steer_matcher_udata(tally_steer_rule_matcher(tally_flow_rule(flow)));
}

/*
 * The shape of the synchronous creates' patterns (tally_flow_prog.c): item
 * types, which items have a spec and their masks, group and priority. When
 * TALLY_FLOW_SHAPE_RUN parsed creates in a row have one shape, its key
 * builder is compiled (as a template table's, against the rules' matcher);
 * later creates of that shape fill the matcher's key words from the specs
 * and parse nothing. Any other shape goes through the parser, and a new
 * shape replaces the recorded one.
 */
#define TALLY_FLOW_SHAPE_ITEMS	8
#define TALLY_FLOW_SHAPE_MASK	64	/* largest item spec recorded */
#define TALLY_FLOW_SHAPE_RUN	16

enum tally_flow_shape_spec {
	TALLY_SHAPE_NO_SPEC,		/* matches any */
	TALLY_SHAPE_DEFAULT_MASK,	/* spec, the item's default mask */
	TALLY_SHAPE_MASK,		/* spec and mask (bytes in mask[]) */
};

/*
 * The synchronous creates' action lists, the same way: when
 * TALLY_FLOW_SHAPE_RUN parsed creates in a row have one list of action
 * types, and the parser accepts that list with only per-rule values left
 * (QUEUE index, MARK id; COUNT, FLAG, DROP, PASSTHRU and VOID carry
 * none), the action is compiled like a template's; later creates of those
 * types take the base action and the two values, and parse nothing. A
 * value the parser would refuse (no conf, a queue beyond the port's) sends
 * the create through the parser, which reports it.
 */
#define TALLY_FLOW_SHAPE_ACTIONS	8

struct tally_flow_ashape {
	uint32_t run;			/* parsed creates in a row with these types */
	uint8_t n;			/* actions before END; 0: none recorded */
	bool tried;			/* compiled (or failed to) */
	bool ok;			/* compiled: the fields below are valid */
	int8_t queue_slot;		/* per-rule values: index in the list, */
	int8_t mark_slot;		/* or -1 */
	int8_t count_slot;		/* the COUNT action, or -1 */
	int8_t fate_slot;		/* the fate action, or -1 */
	struct tally_steer_action base;
	enum rte_flow_action_type type[TALLY_FLOW_SHAPE_ACTIONS];
	uint64_t acts;			/* creates that used it (dump) */
};

struct tally_key_prog;

struct tally_flow_shape {
	struct tally_flow_matcher *fm;	/* the matcher its rules go to */
	struct tally_key_prog *kp;	/* the builder, or NULL */
	uint32_t group;
	uint32_t priority;
	uint32_t run;			/* parsed creates in a row of this shape */
	uint8_t n;			/* items before END; 0: no shape */
	bool tried;			/* compiled (or failed to) */
	uint8_t spec[TALLY_FLOW_SHAPE_ITEMS];	/* enum tally_flow_shape_spec */
	uint8_t size[TALLY_FLOW_SHAPE_ITEMS];
	enum rte_flow_item_type type[TALLY_FLOW_SHAPE_ITEMS];
	uint8_t mask[TALLY_FLOW_SHAPE_ITEMS][TALLY_FLOW_SHAPE_MASK];
	uint64_t keys;			/* keys built (dump) */
};

struct tally_flow_ctx {
	struct tally_lock lock;
	struct tally_fence fence;
	struct tally_cnt_pool *cnt;
	struct tally_steer_ctx *steer;
	TAILQ_HEAD(, rte_flow_action_handle) handles;
	TAILQ_HEAD(, tally_flow_matcher) matchers;
	TAILQ_HEAD(, tally_flow_rss) rss_sets;
	struct tally_flow_matcher *last;	/* last matcher used: insert fast path */
	struct tally_flow_shape shape;		/* sync creates' key builder */
	struct tally_flow_ashape ashape;	/* sync creates' action builder */
	struct tally_flow_rss *rss_by_id[TALLY_FLOW_RSS_SETS];
	uint32_t nb_flows;
	bool isolated;
	bool presize_tried;			/* a sync matcher was offered pre-sizing */
	struct tally_flow_matcher *presized;	/* the one that got it, or NULL */
	bool presized_once;			/* one was: later ones take the heap as it is */
	struct rte_eth_dev *dev;
	struct tally_flow_tmpl *tmpl;		/* tally_flow_async.c */
	bool strict_queue;			/* configured RTE_FLOW_PORT_FLAG_STRICT_QUEUE */
	/* rules of template table i: every create and destroy writes them
	 * (lock held), so they keep lines of their own, apart from dev and
	 * tmpl, which the flow queues' enqueues read without the lock */
	uint32_t tbl_rules[TALLY_FLOW_MAX_TABLES] __rte_cache_aligned;
	struct tally_flow_age *age __rte_cache_aligned;	/* tally_flow_age.c */
	struct tally_flow_mem *mem;		/* tally_flow_mem.c */
	struct tally_flow_xfer *xfer;		/* the device's transfer rules, on
						 * port 0 (tally_flow_xfer.c) */
};

/* ---- tally_flow_mem.c: device-visible memory for lib/steer --------------- */

/* Key words of the first matcher's array that probe populates the window
 * for (tally_flow_init()): a rule on one header field, such as
 * eth / ipv4 src is A, has two. */
#define TALLY_FLOW_PRESIZE_WORDS	2

struct tally_adapter;

/* The memory provider of the port (fc->mem); 0 or -ENOMEM. */
int tally_flow_mem_init(struct tally_flow_ctx *fc, const struct tally_adapter *ad);
/* Make the window's first `bytes` (rounded up to whole units) accessible
 * and resident, still free (at probe, before any block is taken). */
void tally_flow_mem_populate(struct tally_flow_ctx *fc, size_t bytes);
void tally_flow_mem_fini(struct tally_flow_ctx *fc);
/* lib/steer's mem ops, arg = fc->mem */
void *tally_flow_mem_alloc(void *arg, size_t size, size_t align, uint64_t *iova);
void tally_flow_mem_free(void *arg, void *ptr, size_t size);

/* ---- tally_flow_rule.c: the rule core ------------------------------------- */

/* The live indirect COUNT handle p points at, or NULL (lock held). */
static inline struct rte_flow_action_handle *
tally_flow_handle_check(struct tally_flow_ctx *fc, const void *p)
{
	struct rte_flow_action_handle *h;

	TAILQ_FOREACH(h, &fc->handles, next)
		if (h == p && h->magic == TALLY_FLOW_HANDLE_MAGIC)
			return h;
	return NULL;
}

struct rte_eth_dev;

/* The last matcher used, if the rule's group, priority and mask are its. */
static inline struct tally_flow_matcher *
tally_flow_matcher_last(struct tally_flow_ctx *fc, const struct rte_flow_attr *attr,
			const struct tally_match_key *mask)
{
	struct tally_flow_matcher *fm = fc->last;

	if (fm != NULL && fm->group == attr->group && fm->priority == attr->priority &&
	    memcmp(&fm->mask, mask, sizeof(*mask)) == 0)
		return fm;
	return NULL;
}

/* Does a hash array sized for the counter bank, for keys of nwords words,
 * fit in the memory EAL can give (the first matcher is pre-sized)? */
bool tally_flow_presize_fits(struct tally_flow_ctx *fc, uint32_t nwords);
/* tally_flow_matcher.c (lock held). The matcher of a shape, with a reference
 * taken: found, taken back from parking or made; NULL with *ret and the
 * error set. */
struct tally_flow_matcher *
tally_flow_matcher_get(struct tally_flow_ctx *fc, uint32_t group, uint32_t priority,
		       const struct tally_match_key *mask, struct rte_flow_error *error,
		       int *ret);
/* Its last reference went: parked (the pre-sized one) or freed. */
void tally_flow_matcher_gone(struct tally_flow_ctx *fc, struct tally_flow_matcher *fm);
static inline void
tally_flow_matcher_put(struct tally_flow_ctx *fc, struct tally_flow_matcher *fm)
{
	if (--fm->refs == 0)
		tally_flow_matcher_gone(fc, fm);
}
/* Matchers in use and parked ones (idle). */
void tally_flow_matcher_count(const struct tally_flow_ctx *fc, uint32_t *in_use,
			      uint32_t *idle);
/* The parked matcher, if any, is freed (flush). */
void tally_flow_matcher_idle_drop(struct tally_flow_ctx *fc);
/* rte_flow error of a lib/steer error ret (negative errno): returns -ret. */
int tally_flow_steer_error(int ret, struct rte_flow_error *error, const void *cause,
			   enum rte_flow_error_type type);
/* What the port allows actions to name. */
void tally_flow_limits_of(struct rte_eth_dev *dev, struct tally_flow_limits *lim);
/* Actions of a rule with attr, checked (lock held). */
int tally_flow_check_actions(struct rte_eth_dev *dev, const struct rte_flow_attr *attr,
			     const struct rte_flow_action actions[],
			     const struct tally_flow_limits *lim, struct tally_flow_acts *a,
			     struct rte_flow_error *error);
/* Insert a rule with checked actions a (lock held): into `last` with its
 * key already in *key, or, when last is NULL, into the matcher of m's mask
 * with m's value as key. pattern is the error cause of a duplicate.
 * age_queue: the flow queue an AGE action reports to (TALLY_FLOW_AGE_SYNC
 * for the synchronous API). */
struct rte_flow *tally_flow_insert_locked(struct rte_eth_dev *dev, struct tally_flow_ctx *fc,
					  const struct rte_flow_attr *attr,
					  const struct rte_flow_item pattern[],
					  const struct tally_flow_match *m,
					  struct tally_flow_matcher *last,
					  struct tally_steer_key *key, struct tally_flow_acts *a,
					  uint16_t age_queue, struct rte_flow_error *error);
/* Destroy every rte_flow rule of the port (lock held). */
int tally_flow_flush_locked(struct tally_flow_ctx *fc);
/* The walk's view of a live flow in matcher fm, index-th in the walk. */
void tally_flow_info_of(const struct rte_flow *f, const struct tally_flow_matcher *fm,
			uint32_t index, struct tally_flow_info *fi);
/* A dump line's counter field (" counter N hits H bytes B"), if flow counts. */
void tally_flow_dump_counter(struct tally_flow_ctx *fc, const struct rte_flow *flow, FILE *f);
/* The COUNT query of a live flow of fc (a port's rule, or a transfer rule
 * in port 0's engine): EINVAL when it does not count or data is NULL. */
int tally_flow_count_query_flow(struct tally_flow_ctx *fc, const struct rte_flow *flow,
				const struct rte_flow_action *action, void *data,
				struct rte_flow_error *error);
/* Read (and with qc->reset, reset) counter into qc. */
int tally_flow_count_query(struct tally_flow_ctx *fc, uint32_t counter,
			   struct rte_flow_query_count *qc);
/* rte_flow_ops.query and .dev_dump */
int tally_flow_query(struct rte_eth_dev *dev, struct rte_flow *flow,
		     const struct rte_flow_action *action, void *data,
		     struct rte_flow_error *error);
int tally_flow_dump(struct rte_eth_dev *dev, struct rte_flow *flow, FILE *f,
		    struct rte_flow_error *error);
/* The two halves of a create, for callers that read the pattern and
 * actions now and insert later (postponed flow-queue operations). check:
 * parse and validate (the only step reading the caller's memory). obj_get:
 * a flow object, not live. commit: a counter if `count` (`stock` when it is
 * not TALLY_CNT_MAX: one the caller allocated earlier, else a new one), the
 * insert of key into fm with act; the rule is live on 0; on -errno the
 * object and the counter are released. Only for actions without RSS sets,
 * jumps, indirect counters or aging (lock held throughout). */
int tally_flow_check_locked(struct rte_eth_dev *dev, const struct rte_flow_attr *attr,
			    const struct rte_flow_item pattern[],
			    const struct rte_flow_action actions[],
			    struct tally_flow_match *m, struct tally_flow_acts *a,
			    struct rte_flow_error *error);
struct rte_flow *tally_flow_obj_get(struct tally_flow_ctx *fc);
/* A counter from the pool, after one fence when all free ones wait for
 * reuse (lock held): 0 or -errno. */
int tally_flow_counter_alloc_locked(struct tally_flow_ctx *fc, uint32_t *idx);
int tally_flow_commit_locked(struct tally_flow_ctx *fc, struct rte_flow *flow,
			     struct tally_flow_matcher *fm,
			     const struct tally_steer_key *key,
			     struct tally_steer_action *act, bool count, uint32_t stock);
/* Release a live rule (lock held); _queued: one of a flow queue's batch,
 * whose entries the batch prefetched. */
void tally_flow_destroy_locked(struct tally_flow_ctx *fc, struct rte_flow *flow);
void tally_flow_destroy_queued_locked(struct tally_flow_ctx *fc, struct rte_flow *flow);
/* A live flow of this port (lock held). */
static inline bool
tally_flow_live(const struct rte_eth_dev *dev, const struct rte_flow *flow)
{
	return flow != NULL && flow->magic == TALLY_FLOW_MAGIC &&
	       !(flow->flags & FLOW_F_XFER) && flow->port_id == dev->data->port_id;
}
/* A transfer rule's object (it lives in port 0's engine: the calls below
 * take that engine's lock). */
static inline bool
tally_flow_is_xfer(const struct rte_flow *flow)
{
	return flow != NULL && (flow->flags & FLOW_F_XFER);
}
/* tally_flow_handle.c */
struct rte_flow_action_handle *
tally_flow_handle_create(struct rte_eth_dev *dev,
			 const struct rte_flow_indir_action_conf *conf,
			 const struct rte_flow_action *action,
			 struct rte_flow_error *error);
int tally_flow_handle_destroy(struct rte_eth_dev *dev,
			      struct rte_flow_action_handle *handle,
			      struct rte_flow_error *error);
int tally_flow_handle_update(struct rte_eth_dev *dev,
			     struct rte_flow_action_handle *handle,
			     const void *update, struct rte_flow_error *error);
int tally_flow_handle_query(struct rte_eth_dev *dev,
			    const struct rte_flow_action_handle *handle,
			    void *data, struct rte_flow_error *error);

/* ---- tally_flow_prog.c: the synchronous key builder -------------------------- */

/* Create a rule from a full attr/pattern/actions (lock held): through the
 * key and action builders when the pattern and actions have the recorded
 * shapes, else parsed; age_queue as tally_flow_insert_locked(). */
struct rte_flow *tally_flow_create_locked(struct rte_eth_dev *dev,
					  struct tally_flow_ctx *fc,
					  const struct rte_flow_attr *attr,
					  const struct rte_flow_item pattern[],
					  const struct rte_flow_action actions[],
					  uint16_t age_queue,
					  struct rte_flow_error *error);

/* The matcher of a pattern of the recorded shape, its key in *key (hashed,
 * slot being fetched); NULL when the pattern has another shape or no
 * builder is compiled. Reads no more of the pattern than its shape. */
struct tally_flow_matcher *tally_flow_shape_key(struct tally_flow_shape *s,
						const struct rte_flow_attr *attr,
						const struct rte_flow_item pattern[],
						struct tally_steer_key *key);
/* A parsed create went into fm with mask m->mask: record its shape, compile
 * the builder after TALLY_FLOW_SHAPE_RUN in a row (lock held). */
void tally_flow_shape_learn(struct tally_flow_shape *s,
			    const struct rte_flow_attr *attr,
			    const struct rte_flow_item pattern[],
			    const struct tally_flow_match *m,
			    struct tally_flow_matcher *fm);
/* Forget the shape (its matcher goes away, or the engine does). */
void tally_flow_shape_reset(struct tally_flow_shape *s);

/* The checked action of an action list of the recorded types into *a (as
 * tally_flow_parse_actions() would give it); false when the list has other
 * types, no builder is compiled, or a value needs the parser's verdict. */
bool tally_flow_ashape_acts(struct tally_flow_ashape *s,
			    const struct rte_flow_action actions[],
			    uint16_t nb_rx_queues, struct tally_flow_acts *a);
/* A parsed create's action list (the parser accepted it): record its
 * types, compile after TALLY_FLOW_SHAPE_RUN in a row (lock held). */
void tally_flow_ashape_learn(struct tally_flow_ashape *s,
			     const struct rte_flow_action actions[]);

/* ---- tally_flow_xfer.c: transfer rules ------------------------------------- */

/* A transfer rule, checked (tally_flow_xfer_check()) but not bound to resources. */
struct tally_xfer_rule {
	struct tally_flow_match m;
	struct tally_steer_action act;	/* fate, arg (not for SWACT), COUNT flag */
	const struct rte_flow_action *count;	/* COUNT, INDIRECT or NULL */
	const struct rte_flow_action *indirect;
	const struct rte_flow_action *fate;
	const struct rte_flow_action *edit;	/* first edit, or NULL */
	struct tally_steer_swact set;	/* edits (flags 0: none) */
	uint32_t dest;			/* TALLY_STEER_PORT_* word, with a destination */
	bool has_dest;
	bool vid, pcp;			/* of_set_vlan_vid / _pcp given */
};

/* Attributes, pattern and actions of a transfer rule on dev, with what
 * they name in fc, port 0's engine (its lock held): 0 or -errno, error set
 * (tally_flow_xfer_parse.c). */
int tally_flow_xfer_check(struct rte_eth_dev *dev, struct tally_flow_ctx *fc,
			  const struct rte_flow_attr *attr, const struct rte_flow_item pattern[],
			  const struct rte_flow_action actions[], struct tally_xfer_rule *r,
			  struct rte_flow_error *error);

/* Port 0 of a device with a switch: its switch engine, on the context
 * config of the port's own (lock, fence, counters, memory). 0 or -errno. */
int tally_flow_xfer_init(struct tally_adapter *ad, struct tally_flow_ctx *fc,
			 const struct tally_steer_config *base);
/* Destroys every transfer rule of the device (port 0 closing). */
void tally_flow_xfer_fini(struct tally_adapter *ad, struct tally_flow_ctx *fc);
int tally_flow_xfer_proxy(struct rte_eth_dev *dev, uint16_t *proxy_port_id,
			  struct rte_flow_error *error);
int tally_flow_xfer_validate(struct rte_eth_dev *dev, const struct rte_flow_attr *attr,
			     const struct rte_flow_item pattern[],
			     const struct rte_flow_action actions[],
			     struct rte_flow_error *error);
struct rte_flow *tally_flow_xfer_create(struct rte_eth_dev *dev,
					const struct rte_flow_attr *attr,
					const struct rte_flow_item pattern[],
					const struct rte_flow_action actions[],
					struct rte_flow_error *error);
int tally_flow_xfer_destroy(struct rte_eth_dev *dev, struct rte_flow *flow,
			    struct rte_flow_error *error);
/* The transfer rules created through dev (its flush). */
void tally_flow_xfer_flush(struct rte_eth_dev *dev);
int tally_flow_xfer_query(struct rte_eth_dev *dev, struct rte_flow *flow,
			  const struct rte_flow_action *action, void *data,
			  struct rte_flow_error *error);
/* One transfer rule of dev, or (flow NULL) every one created through it. */
int tally_flow_xfer_dump(struct rte_eth_dev *dev, struct rte_flow *flow, FILE *f,
			 struct rte_flow_error *error);

/* ---- tally_flow_age.c ------------------------------------------------------ */

/* Attach aging to a just-created rule (lock held). queue: the flow queue,
 * or TALLY_FLOW_AGE_SYNC. 0 or -ENOMEM. */
int tally_flow_age_attach(struct rte_eth_dev *dev, struct tally_flow_ctx *fc,
			  struct rte_flow *flow, const struct rte_flow_action_age *conf,
			  uint16_t queue);
/* The rule is going away (lock held). */
void tally_flow_age_detach(struct tally_flow_ctx *fc, struct rte_flow *flow);
int tally_flow_age_query(struct tally_flow_ctx *fc, const struct rte_flow *flow,
			 struct rte_flow_query_age *q);
/* Aged rules' contexts; all queues when queue is TALLY_FLOW_AGE_SYNC. */
int tally_flow_age_get(struct tally_flow_ctx *fc, uint32_t queue, void **contexts,
		       uint32_t n);
void tally_flow_age_fini(struct tally_flow_ctx *fc);

#endif /* TALLY_FLOW_PRIV_H */
