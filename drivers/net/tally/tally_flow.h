/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rte_flow on Tally: the translation layer between rte_flow and lib/steer.
 *
 * tally_flow_parse.c turns a pattern into a masked match key in the device's
 * fte_match_param layout (struct tally_flow_match) and an action list into a
 * struct tally_flow_acts. Both functions only read their input and write
 * their output: validation allocates nothing. Every rejection goes through
 * rte_flow_error_set() with the exact item or action as cause.
 *
 * The supported items and actions, with the fields the device can match, are
 * the tables at the top of tally_flow_parse.c; doc/guides/nics/features/
 * tally.ini lists the same names and devtools/check-flow-doc.sh diffs them.
 */
#ifndef TALLY_FLOW_H
#define TALLY_FLOW_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_flow.h>

#include <tally/tally_match.h>

#include "tally_steer.h"

struct tally_flow_match {
	struct tally_match_key mask;
	struct tally_match_key value;	/* value & ~mask == 0 */
	uint8_t criteria;		/* match_criteria_enable: sections used */
};

int tally_flow_parse_pattern(const struct rte_flow_item pattern[],
			     struct tally_flow_match *m,
			     struct rte_flow_error *error);

/*
 * Where a pattern's spec bytes land in the key, as the parser places them
 * (the key builders of tally_flow_prog.c are made from it): each field is
 * len bytes at item_off of item `item`'s spec, copied under the item's mask
 * to key byte key_off, or one bit of it to one bit of the key byte (bit). cmask: the key bits the parser fills with anything
 * else (implied fields). ok is false when a field's place or value depends
 * on the values (no builder can be made).
 */
struct tally_flow_trace_field {
	uint8_t item;
	uint8_t len;
	uint16_t item_off;
	uint16_t key_off;
	bool bit;			/* one bit: item_bit of the byte to key_bit */
	uint8_t item_bit;
	uint8_t key_bit;
};

struct tally_flow_trace {
	bool ok;
	uint32_t n;
	struct tally_flow_trace_field f[128];
	struct tally_match_key cmask;
};

/* Parse pattern (its specs are not read for values) with the trace: 0,
 * -EINVAL when the parser refuses it, -ENOTSUP when the trace is not ok. */
int tally_flow_parse_trace(const struct rte_flow_item pattern[], struct tally_flow_match *m,
			   struct tally_flow_trace *trace);

/* Spec size and default mask of an item the parser supports; -ENOTSUP for
 * any other type. */
int tally_flow_item_masks(enum rte_flow_item_type type, size_t *size,
			  const void **default_mask);

/* What the port allows actions to name. */
struct tally_flow_limits {
	uint16_t nb_rx_queues;
	uint32_t max_groups;
	const uint8_t *rss_key;		/* the port's key (TALLY_RSS_KEY_LEN) */
};

#define TALLY_FLOW_MAX_RSS_QUEUES	16

/* An action list, checked but not yet bound to device resources. */
struct tally_flow_acts {
	struct tally_steer_action act;	/* counter filled in at create */
	const struct rte_flow_action *count;	/* COUNT action, or NULL */
	const struct rte_flow_action *indirect;	/* INDIRECT action, or NULL */
	const struct rte_flow_action *fate;	/* fate action, or NULL */
	const struct rte_flow_action *age;	/* AGE action, or NULL */
	uint32_t rss_hf;		/* enum tally_rss_hf */
	uint16_t rss_nq;
	uint16_t rss_queues[TALLY_FLOW_MAX_RSS_QUEUES];
};

int tally_flow_parse_actions(const struct rte_flow_action actions[],
			     const struct tally_flow_limits *lim,
			     struct tally_flow_acts *a,
			     struct rte_flow_error *error);
/* The device's RSS hash types (TALLY_RSS_HF_*) of ethdev's RTE_ETH_RSS_*,
 * for the port and for RSS actions alike; types it has none for are left out. */
uint32_t tally_rss_hf_to_dev(uint64_t rss_hf);
/* An action type the parser takes (the templates check with it too). */
bool tally_flow_action_supported(enum rte_flow_action_type type);
int tally_flow_parse_attr(const struct rte_flow_attr *attr,
			  const struct tally_flow_limits *lim,
			  struct rte_flow_error *error);


/* ---- the flow engine of one port (tally_flow_ops.c, tally_flow_rule.c) ----- */

struct tally_adapter;
struct tally_flow_ctx;
struct rte_flow_ops;
struct rte_eth_dev;

int tally_flow_init(struct tally_adapter *ad);
void tally_flow_fini(struct tally_adapter *ad);
/* The host window the steering engine keeps its large arrays in, to be
 * mapped whole in the device's translation table (tally_flow_mem.c); false when
 * the port keeps them in DPDK memory. */
bool tally_flow_mem_window(const struct tally_flow_ctx *fc, uint64_t *iova,
			   uint64_t *len);
/* The window is of 2 MiB hugetlbfs pages (EAL with huge pages), not
 * transparent huge pages. */
bool tally_flow_mem_window_hugetlb(const struct tally_flow_ctx *fc);
/* Bytes of the window in use now (0 without one). */
size_t tally_flow_mem_window_used(const struct tally_flow_ctx *fc);
/* Bytes at the window's start populated at probe for the first matcher. */
size_t tally_flow_mem_window_populated(const struct tally_flow_ctx *fc);
/* eth_dev_ops.flow_ops_get */
int tally_flow_ops_get(struct rte_eth_dev *dev, const struct rte_flow_ops **ops);
/* tally_flow_refuse.c: a secondary process's, every operation EPERM. */
int tally_flow_ops_get_secondary(struct rte_eth_dev *dev, const struct rte_flow_ops **ops);
/* Points a new port at the async fast-path callbacks (24.x: dev->flow_fp_ops). */
void tally_flow_async_attach(struct rte_eth_dev *dev);
/* The port's counter pool (shared by every API that counts). */
struct tally_cnt_pool *tally_flow_cnt_pool(struct tally_adapter *ad);
struct tally_steer_ctx *tally_flow_steer(struct tally_adapter *ad);

/*
 * For raw-key rules (tally_pmd_rule.c): the engine lock and its matcher
 * cache, so those rules share tables, matchers and the lock with rte_flow
 * rules. acquire/release must be called with the lock held; acquire returns
 * NULL and a negative errno in *ret on failure.
 */
struct tally_flow_matcher;
int tally_flow_lock(struct tally_adapter *ad);
void tally_flow_unlock(struct tally_adapter *ad);
struct tally_flow_matcher *
tally_flow_matcher_acquire(struct tally_adapter *ad, uint32_t group,
			   uint32_t priority, const struct tally_match_key *mask,
			   int *ret);
void tally_flow_matcher_release(struct tally_adapter *ad,
				struct tally_flow_matcher *fm);
/*
 * Operator views (tally_telemetry.c): every rte_flow rule of the port in
 * creation order, under the engine lock (cb must not call flow ops; a
 * non-zero return stops the walk and is returned), and a summary.
 */
struct tally_flow_info {
	uint32_t index;			/* position in creation order */
	uint32_t group;
	uint32_t priority;
	uint32_t counter;		/* valid when counted */
	bool counted;
	bool shared;			/* the counter is an indirect action's */
	bool transfer;			/* a transfer rule (tally_flow_xfer_walk) */
	uint16_t port_id;		/* transfer: the port it was created through */
};
typedef int (*tally_flow_walk_cb)(const struct tally_flow_info *fi, void *arg);
int tally_flow_walk(struct tally_adapter *ad, tally_flow_walk_cb cb, void *arg);
struct tally_flow_sum {
	uint32_t flows;
	uint32_t indirect_counters;
	uint32_t matchers;		/* in use */
	uint32_t idle_matchers;		/* parked: empty, kept for reuse */
	bool isolated;
};
void tally_flow_summary(struct tally_adapter *ad, struct tally_flow_sum *sum);
/* The device's transfer rules, on port 0 (ad): the walk (fi.transfer set)
 * and how many there are; 0 on any other port. */
int tally_flow_xfer_walk(struct tally_adapter *ad, tally_flow_walk_cb cb, void *arg);
uint32_t tally_flow_xfer_count(struct tally_adapter *ad);
/* Counter of an rte_flow rule: 0, or -ENOENT when it does not count. */
int tally_flow_rule_counter(const struct rte_flow *flow, uint32_t *idx);

#endif /* TALLY_FLOW_H */
