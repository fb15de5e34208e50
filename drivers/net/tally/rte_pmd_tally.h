/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Public API of the Tally poll-mode driver, beyond ethdev and rte_flow.
 *
 * All functions take an ethdev port id and return 0 (or a count) on success
 * and a negative errno on failure: -ENODEV when port_id is not a Tally port.
 * They are experimental: build with ALLOW_EXPERIMENTAL_API.
 */
#ifndef RTE_PMD_TALLY_H
#define RTE_PMD_TALLY_H

#include <stdint.h>
#include <stdio.h>

#include <rte_compat.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Run the in-process software device of a vdev port one step: process
 * pending doorbells and take up to a burst of frames from its wire.
 *
 * The Rx and Tx burst functions already do this on every call (in both
 * modes); use it to let the device make progress without calling either,
 * e.g. to push the last transmitted frames to a pcap file. Thread-safe (the
 * model serialises its users in arrival order).
 *
 * @param port_id  a net_tally vdev port
 * On a port whose device runs by itself (a PCI function, the device
 * process) it returns once the device has applied every register write the
 * driver posted before the call, doorbells included.
 *
 * @return frames moved (>= 0); -ENODEV if not a Tally port; 0 when the
 *         device runs by itself.
 */
__rte_experimental
int rte_pmd_tally_model_step(uint16_t port_id);

/**
 * Print the device identity, control and status registers, where the
 * steering engine keeps its large arrays (devarg steer_mem), fault state,
 * port statistics and the state of every configured queue to f.
 * For diagnostics; reads registers, so not for the data path.
 *
 * @return 0; -ENODEV if not a Tally port; -EINVAL if f is NULL.
 */
__rte_experimental
int rte_pmd_tally_dump(uint16_t port_id, FILE *f);

/* ==== Rules from raw match keys =========================================
 *
 * A rule is a masked key in the device's match layout - the mlx5
 * fte_match_param format, RTE_PMD_TALLY_MATCH_LEN bytes of 64-byte
 * big-endian sections (outer headers, misc, inner headers, ...) - plus
 * actions. Rules go into the same steering tables as rte_flow rules, under
 * the same lock, and share matchers with them: a raw rule and an rte_flow
 * rule of the same group, priority and mask are in one matcher, and the
 * same masked value in both is refused (-EEXIST). Frames are classified by
 * both kinds of rules at once, group 0 first; lower priority first.
 *
 * rte_flow_flush() does not remove raw rules; destroy them (and free the
 * counters below) before closing the port.
 */

#define RTE_PMD_TALLY_MATCH_LEN		512

/** Fate of a raw rule. */
enum rte_pmd_tally_fate {
	RTE_PMD_TALLY_FATE_NONE = 0,	/**< no fate: default path (dropped under isolation) */
	RTE_PMD_TALLY_FATE_DROP,	/**< drop */
	RTE_PMD_TALLY_FATE_QUEUE,	/**< deliver to Rx queue `queue` */
	RTE_PMD_TALLY_FATE_DEFAULT,	/**< default miss: the port's default path */
	RTE_PMD_TALLY_FATE_PASSTHRU,	/**< apply count/mark/flag, go on with later matchers */
};

#define RTE_PMD_TALLY_RULE_COUNT	(1u << 0)	/**< count into `counter` */
#define RTE_PMD_TALLY_RULE_MARK		(1u << 1)	/**< set `mark` in the Rx metadata */
#define RTE_PMD_TALLY_RULE_FLAG		(1u << 2)	/**< set the flag in the Rx metadata */

/** Attributes and actions of a raw rule. */
struct rte_pmd_tally_rule_attr {
	uint32_t group;			/**< table (an rte_flow group) */
	uint32_t priority;		/**< lower is tried first */
	uint32_t flags;			/**< RTE_PMD_TALLY_RULE_* */
	enum rte_pmd_tally_fate fate;
	uint16_t queue;			/**< with FATE_QUEUE: a configured Rx queue */
	uint32_t mark;			/**< with RULE_MARK */
	uint32_t counter;		/**< with RULE_COUNT: from rte_pmd_tally_counter_alloc() */
};

struct rte_pmd_tally_rule;

/**
 * Create a rule from a raw key.
 *
 * @param mask, value  RTE_PMD_TALLY_MATCH_LEN bytes each; a value bit set
 *        outside the mask is an error. An all-zero mask matches every frame.
 * @param attr  group, priority and actions. The rule takes its own reference
 *        on the counter, so the counter may be freed while the rule lives.
 * @param[out] rule  the new rule.
 * @return 0; -ENODEV not a Tally port; -EINVAL bad argument (value outside
 *         the mask, unknown flag or fate, queue not configured, group too
 *         large); -ENOENT counter not allocated; -EEXIST same masked value
 *         already in this group and priority; -ENOSPC, -ENOMEM resources.
 */
__rte_experimental
int rte_pmd_tally_rule_create(uint16_t port_id, const uint8_t *mask,
			      const uint8_t *value,
			      const struct rte_pmd_tally_rule_attr *attr,
			      struct rte_pmd_tally_rule **rule);

/**
 * Destroy a raw rule (its counter reference is dropped).
 * @return 0; -ENODEV; -EINVAL rule is NULL or belongs to another port.
 */
__rte_experimental
int rte_pmd_tally_rule_destroy(uint16_t port_id, struct rte_pmd_tally_rule *rule);

/* ==== Flow counters ========================================================
 *
 * Counters of the port's flow counter bank, from the same pool rte_flow
 * COUNT actions use. A counter id is a bank index. Values are packets and
 * bytes (L2 frame length without FCS) of every frame of every rule naming
 * the counter, since allocation or the last reset.
 */

/** Allocate a counter reading 0. @return 0; -ENODEV; -ENOSPC bank exhausted. */
__rte_experimental
int rte_pmd_tally_counter_alloc(uint16_t port_id, uint32_t *id);

/**
 * Drop the allocation reference. Rules still naming the counter keep it
 * alive; the index is reused only after the device stopped using it.
 * @return 0; -ENODEV; -ENOENT not allocated.
 */
__rte_experimental
int rte_pmd_tally_counter_free(uint16_t port_id, uint32_t id);

/**
 * Read a counter: the one counter read of the driver (the same function
 * serves rte_flow_query and indirect actions). Lock-free, any thread, no
 * register access; a frame counted in bytes is counted in packets.
 * @return 0; -ENODEV; -EINVAL id outside the pool.
 */
__rte_experimental
int rte_pmd_tally_counter_read(uint16_t port_id, uint32_t id, uint64_t *packets,
			       uint64_t *bytes);

/** Make a counter read 0 (a software baseline). @return 0; -ENODEV; -EINVAL. */
__rte_experimental
int rte_pmd_tally_counter_reset(uint16_t port_id, uint32_t id);

/**
 * Read a counter and reset it in one step: no frame counted between the
 * read and the reset is lost (reading then resetting would lose them).
 * @return 0; -ENODEV; -EINVAL id outside the pool.
 */
__rte_experimental
int rte_pmd_tally_counter_read_reset(uint16_t port_id, uint32_t id,
				     uint64_t *packets, uint64_t *bytes);

struct rte_flow;

/**
 * The counter of an rte_flow rule (COUNT or indirect COUNT action), to read
 * it with rte_pmd_tally_counter_read(). Do not free it.
 * @return 0; -ENODEV; -ENOENT the flow does not count.
 */
__rte_experimental
int rte_pmd_tally_flow_counter(uint16_t port_id, const struct rte_flow *flow,
			       uint32_t *id);

/* ==== Completion counters ==================================================
 *
 * Entries of the device's completion-counter bank: {completions, errors}.
 * Attached to an Rx or Tx queue, the device adds one per completion the
 * queue writes (to errors when the completion is in error). One counter may
 * be attached to many queues; a queue has at most one counter.
 */

enum rte_pmd_tally_ccnt_dir {
	RTE_PMD_TALLY_CCNT_RX = 0,
	RTE_PMD_TALLY_CCNT_TX = 1,
};

enum rte_pmd_tally_ccnt_op {
	RTE_PMD_TALLY_CCNT_SET = 0,	/**< completions = value */
	RTE_PMD_TALLY_CCNT_SET_ERR,	/**< errors = value */
	RTE_PMD_TALLY_CCNT_ADD,		/**< completions += value */
	RTE_PMD_TALLY_CCNT_ADD_ERR,	/**< errors += value */
};

/** Number of completion counters of the port (0 when the device has none). */
__rte_experimental
int rte_pmd_tally_ccnt_num(uint16_t port_id);

/** Allocate a completion counter, set to {0, 0}. @return 0; -ENODEV; -ENOSPC. */
__rte_experimental
int rte_pmd_tally_ccnt_alloc(uint16_t port_id, uint32_t *id);

/** Free a completion counter. @return 0; -ENODEV; -ENOENT; -EBUSY attached. */
__rte_experimental
int rte_pmd_tally_ccnt_free(uint16_t port_id, uint32_t id);

/** Read {completions, errors}; lock-free plain loads. @return 0; -ENODEV; -EINVAL. */
__rte_experimental
int rte_pmd_tally_ccnt_read(uint16_t port_id, uint32_t id, uint64_t *completions,
			    uint64_t *errors);

/** Set or add (wrapping at 2^64). @return 0; -ENODEV; -ENOENT; -EINVAL bad op. */
__rte_experimental
int rte_pmd_tally_ccnt_update(uint16_t port_id, uint32_t id,
			      enum rte_pmd_tally_ccnt_op op, uint64_t value);

/**
 * Attach counter id to Rx or Tx queue qid (the queue need not be set up).
 * @return 0; -ENODEV; -ENOENT counter not allocated; -EINVAL bad queue or
 *         direction; -EBUSY the queue has a counter.
 */
__rte_experimental
int rte_pmd_tally_ccnt_attach(uint16_t port_id, uint32_t id,
			      enum rte_pmd_tally_ccnt_dir dir, uint16_t qid);

/** Detach the counter of a queue. @return 0; -ENODEV; -EINVAL; -ENOENT none. */
__rte_experimental
int rte_pmd_tally_ccnt_detach(uint16_t port_id, enum rte_pmd_tally_ccnt_dir dir,
			      uint16_t qid);

#ifdef __cplusplus
}
#endif

#endif /* RTE_PMD_TALLY_H */
