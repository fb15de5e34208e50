/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rte_pmd_tally_* rules from raw match keys, flow counters and completion
 * counters (rte_pmd_tally.h): the API the verbs library sits on.
 *
 * Raw rules share the rte_flow engine's steering context, lock and matcher
 * cache (tally_flow_rule.c accessors). Flow counters come from the port's
 * tally_cnt_pool. Completion counters are a small allocator over the
 * device's completion-counter bank, kept here per adapter (state is
 * allocated on first use, under one global lock; the control path only).
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <rte_malloc.h>

#include "tally_hal_io.h"
#include "tally_pmd.h"
#include "tally_flow.h"
#include "tally_flow_priv.h"
#include "tally_logs.h"
#include "tally_mp.h"
#include "rte_pmd_tally.h"

struct rte_pmd_tally_rule {
	struct tally_adapter *ad;
	struct tally_flow_matcher *fm;
	struct tally_steer_rule *rule;
};

/* ---- raw rules ------------------------------------------------------------ */

static int
rule_action(struct tally_adapter *ad, const struct rte_pmd_tally_rule_attr *a,
	    struct tally_steer_action *act)
{
	memset(act, 0, sizeof(*act));
	if (a->flags & ~(RTE_PMD_TALLY_RULE_COUNT | RTE_PMD_TALLY_RULE_MARK |
			 RTE_PMD_TALLY_RULE_FLAG))
		return -EINVAL;
	if (a->flags & RTE_PMD_TALLY_RULE_COUNT) {
		act->flags |= TALLY_STEER_A_COUNT;
		act->counter = a->counter;
	}
	if (a->flags & RTE_PMD_TALLY_RULE_MARK) {
		act->flags |= TALLY_STEER_A_MARK;
		act->mark = a->mark;
	}
	if (a->flags & RTE_PMD_TALLY_RULE_FLAG)
		act->flags |= TALLY_STEER_A_FLAG;
	switch (a->fate) {
	case RTE_PMD_TALLY_FATE_NONE:
		act->fate = TALLY_STEER_FATE_NONE;
		break;
	case RTE_PMD_TALLY_FATE_DROP:
		act->fate = TALLY_STEER_FATE_DROP;
		break;
	case RTE_PMD_TALLY_FATE_QUEUE:
		if (a->queue >= ad->eth_dev->data->nb_rx_queues)
			return -EINVAL;
		act->fate = TALLY_STEER_FATE_QUEUE;
		act->arg = a->queue;
		break;
	case RTE_PMD_TALLY_FATE_DEFAULT:
		act->fate = TALLY_STEER_FATE_MISS;
		break;
	case RTE_PMD_TALLY_FATE_PASSTHRU:
		act->fate = TALLY_STEER_FATE_PASSTHRU;
		break;
	default:
		return -EINVAL;
	}
	return 0;
}

int
rte_pmd_tally_rule_create(uint16_t port_id, const uint8_t *mask,
			  const uint8_t *value,
			  const struct rte_pmd_tally_rule_attr *attr,
			  struct rte_pmd_tally_rule **out)
{
	struct tally_adapter *ad = tally_adapter_from_port(port_id);
	struct tally_match_key km, kv;
	struct tally_steer_action act;
	struct rte_pmd_tally_rule *r;
	unsigned int i;
	int ret;

	if (ad == NULL || ad->closed)
		return -ENODEV;
	if (mask == NULL || value == NULL || attr == NULL || out == NULL)
		return -EINVAL;
	for (i = 0; i < RTE_PMD_TALLY_MATCH_LEN; i++)
		if (value[i] & ~mask[i])
			return -EINVAL;
	ret = rule_action(ad, attr, &act);
	if (ret)
		return ret;
	memcpy(km.b, mask, sizeof(km.b));
	memcpy(kv.b, value, sizeof(kv.b));
	r = rte_zmalloc("tally_raw_rule", sizeof(*r), 0);
	if (r == NULL)
		return -ENOMEM;
	ret = tally_flow_lock(ad);
	if (ret) {
		rte_free(r);
		return ret;
	}
	r->fm = tally_flow_matcher_acquire(ad, attr->group, attr->priority, &km, &ret);
	if (r->fm != NULL) {
		ret = tally_steer_rule_insert_locked(r->fm->m, &kv, &act, &r->rule);
		if (ret)
			tally_flow_matcher_release(ad, r->fm);
	}
	tally_flow_unlock(ad);
	if (ret) {
		rte_free(r);
		return ret;
	}
	r->ad = ad;
	*out = r;
	return 0;
}

int
rte_pmd_tally_rule_destroy(uint16_t port_id, struct rte_pmd_tally_rule *r)
{
	struct tally_adapter *ad = tally_adapter_from_port(port_id);
	int ret;

	if (ad == NULL || ad->closed)
		return -ENODEV;
	if (r == NULL || r->ad != ad)
		return -EINVAL;
	ret = tally_flow_lock(ad);
	if (ret)
		return ret;
	ret = tally_steer_rule_delete_locked(r->rule);
	if (ret == 0)
		tally_flow_matcher_release(ad, r->fm);
	tally_steer_ctx_reclaim_locked(tally_flow_steer(ad));
	tally_flow_unlock(ad);
	if (ret == 0)
		rte_free(r);
	return ret;
}

/* ---- flow counters ------------------------------------------------------- */

#define TALLY_PMD_CNT_SYNC_US	1000000

static struct tally_cnt_pool *
port_pool(uint16_t port_id)
{
	struct tally_adapter *ad = tally_adapter_from_port(port_id);

	if (ad == NULL || ad->closed)
		return NULL;
	return tally_flow_cnt_pool(ad);
}

int
rte_pmd_tally_counter_alloc(uint16_t port_id, uint32_t *id)
{
	struct tally_cnt_pool *pool = port_pool(port_id);
	int ret;

	if (pool == NULL)
		return -ENODEV;
	if (id == NULL)
		return -EINVAL;
	ret = tally_cnt_alloc(pool, id);
	if (ret == -EAGAIN) {
		tally_steer_ctx_sync(tally_flow_steer(tally_adapter_from_port(port_id)),
				     TALLY_PMD_CNT_SYNC_US);
		ret = tally_cnt_alloc(pool, id);
	}
	return ret == -EAGAIN ? -ENOSPC : ret;
}

int
rte_pmd_tally_counter_free(uint16_t port_id, uint32_t id)
{
	struct tally_cnt_pool *pool = port_pool(port_id);

	if (pool == NULL)
		return -ENODEV;
	if (id - pool->first >= pool->num || tally_cnt_refcnt(pool, id) == 0)
		return -ENOENT;
	return tally_cnt_free(pool, id);
}

int
rte_pmd_tally_counter_read(uint16_t port_id, uint32_t id, uint64_t *packets,
			   uint64_t *bytes)
{
	struct tally_cnt_pool *pool = port_pool(port_id);

	if (packets == NULL || bytes == NULL)
		return -EINVAL;
	if (rte_eal_process_type() != RTE_PROC_PRIMARY)
		return tally_mp_counter_read(port_id, id, packets, bytes);
	if (pool == NULL)
		return -ENODEV;
	return tally_cnt_read(pool, id, packets, bytes);
}

int
rte_pmd_tally_counter_reset(uint16_t port_id, uint32_t id)
{
	struct tally_cnt_pool *pool = port_pool(port_id);

	if (pool == NULL)
		return -ENODEV;
	return tally_cnt_reset(pool, id);
}

int
rte_pmd_tally_counter_read_reset(uint16_t port_id, uint32_t id,
				 uint64_t *packets, uint64_t *bytes)
{
	struct tally_cnt_pool *pool = port_pool(port_id);

	if (pool == NULL)
		return -ENODEV;
	if (packets == NULL || bytes == NULL)
		return -EINVAL;
	return tally_cnt_read_reset(pool, id, packets, bytes);
}

int
rte_pmd_tally_flow_counter(uint16_t port_id, const struct rte_flow *flow,
			   uint32_t *id)
{
	if (port_pool(port_id) == NULL)
		return -ENODEV;
	if (id == NULL)
		return -EINVAL;
	return tally_flow_rule_counter(flow, id);
}

/* ---- completion counters ------------------------------------------------- */

/* Allocator state of one adapter: in-use flags and queue attachments
 * (index + 1, 0 = none). */
struct tally_ccnt_state {
	struct tally_adapter *ad;
	uint32_t num;
	int32_t rxq[TALLY_MAX_QUEUES];
	int32_t txq[TALLY_MAX_QUEUES];
	uint8_t used[];
};

static pthread_mutex_t ccnt_lock = PTHREAD_MUTEX_INITIALIZER;
static struct tally_ccnt_state *ccnt_ports[RTE_MAX_ETHPORTS];

/* With ccnt_lock held: the state of port_id, (re)created for its adapter. */
static struct tally_ccnt_state *
ccnt_state(uint16_t port_id, int *ret)
{
	struct tally_adapter *ad = tally_adapter_from_port(port_id);
	struct tally_ccnt_state *st;

	*ret = 0;
	if (ad == NULL || ad->closed) {
		*ret = -ENODEV;
		return NULL;
	}
	st = ccnt_ports[port_id];
	if (st != NULL && st->ad == ad)
		return st;
	free(st);	/* a closed port's id reused by another adapter */
	ccnt_ports[port_id] = NULL;
	st = calloc(1, sizeof(*st) + ad->hal.ccnt_num);
	if (st == NULL) {
		*ret = -ENOMEM;
		return NULL;
	}
	st->ad = ad;
	st->num = (ad->hal.caps & TALLY_CAP_CCNT) ? ad->hal.ccnt_num : 0;
	ccnt_ports[port_id] = st;
	return st;
}

static bool
ccnt_attached(const struct tally_ccnt_state *st, uint32_t id)
{
	unsigned int q;

	for (q = 0; q < TALLY_MAX_QUEUES; q++)
		if (st->rxq[q] == (int32_t)id + 1 || st->txq[q] == (int32_t)id + 1)
			return true;
	return false;
}

int
rte_pmd_tally_ccnt_num(uint16_t port_id)
{
	struct tally_ccnt_state *st;
	int ret;

	pthread_mutex_lock(&ccnt_lock);
	st = ccnt_state(port_id, &ret);
	if (st != NULL)
		ret = (int)st->num;
	pthread_mutex_unlock(&ccnt_lock);
	return ret;
}

int
rte_pmd_tally_ccnt_alloc(uint16_t port_id, uint32_t *id)
{
	struct tally_ccnt_state *st;
	uint32_t i;
	int ret;

	if (id == NULL)
		return -EINVAL;
	pthread_mutex_lock(&ccnt_lock);
	st = ccnt_state(port_id, &ret);
	if (st != NULL) {
		ret = -ENOSPC;
		for (i = 0; i < st->num; i++)
			if (!st->used[i])
				break;
		if (i < st->num) {
			ret = tally_hal_ccnt_cmd(&st->ad->hal, i,
						 TALLY_CCNT_CMD_SET_COMP, 0);
			if (ret == 0)
				ret = tally_hal_ccnt_cmd(&st->ad->hal, i,
							 TALLY_CCNT_CMD_SET_ERR, 0);
			if (ret == 0) {
				st->used[i] = 1;
				*id = i;
			}
		}
	}
	pthread_mutex_unlock(&ccnt_lock);
	return ret;
}

int
rte_pmd_tally_ccnt_free(uint16_t port_id, uint32_t id)
{
	struct tally_ccnt_state *st;
	int ret;

	pthread_mutex_lock(&ccnt_lock);
	st = ccnt_state(port_id, &ret);
	if (st != NULL) {
		if (id >= st->num || !st->used[id])
			ret = -ENOENT;
		else if (ccnt_attached(st, id))
			ret = -EBUSY;
		else
			st->used[id] = 0;
	}
	pthread_mutex_unlock(&ccnt_lock);
	return ret;
}

int
rte_pmd_tally_ccnt_read(uint16_t port_id, uint32_t id, uint64_t *completions,
			uint64_t *errors)
{
	struct tally_adapter *ad = tally_adapter_from_port(port_id);

	if (completions == NULL || errors == NULL)
		return -EINVAL;
	if (rte_eal_process_type() != RTE_PROC_PRIMARY) {
		/* the bank is in the BAR: this process reads its own mapping */
		if (!rte_eth_dev_is_valid_port(port_id) ||
		    rte_eth_devices[port_id].dev_ops != &tally_eth_dev_ops_secondary)
			return -ENODEV;
		return tally_hal_ccnt_read(tally_port_hal(port_id), id, completions, errors);
	}
	if (ad == NULL || ad->closed)
		return -ENODEV;
	return tally_hal_ccnt_read(&ad->hal, id, completions, errors);
}

int
rte_pmd_tally_ccnt_update(uint16_t port_id, uint32_t id,
			  enum rte_pmd_tally_ccnt_op op, uint64_t value)
{
	static const enum tally_ccnt_cmd cmds[] = {
		[RTE_PMD_TALLY_CCNT_SET] = TALLY_CCNT_CMD_SET_COMP,
		[RTE_PMD_TALLY_CCNT_SET_ERR] = TALLY_CCNT_CMD_SET_ERR,
		[RTE_PMD_TALLY_CCNT_ADD] = TALLY_CCNT_CMD_ADD_COMP,
		[RTE_PMD_TALLY_CCNT_ADD_ERR] = TALLY_CCNT_CMD_ADD_ERR,
	};
	struct tally_ccnt_state *st;
	int ret;

	if ((unsigned int)op >= RTE_DIM(cmds))
		return -EINVAL;
	pthread_mutex_lock(&ccnt_lock);
	st = ccnt_state(port_id, &ret);
	if (st != NULL) {
		if (id >= st->num || !st->used[id])
			ret = -ENOENT;
		else
			ret = tally_hal_ccnt_cmd(&st->ad->hal, id, cmds[op], value);
	}
	pthread_mutex_unlock(&ccnt_lock);
	return ret;
}

static int32_t *
ccnt_slot(struct tally_ccnt_state *st, enum rte_pmd_tally_ccnt_dir dir,
	  uint16_t qid)
{
	if (dir == RTE_PMD_TALLY_CCNT_RX && qid < st->ad->hal.nb_rxq)
		return &st->rxq[qid];
	if (dir == RTE_PMD_TALLY_CCNT_TX && qid < st->ad->hal.nb_txq)
		return &st->txq[qid];
	return NULL;
}

static int
ccnt_program(struct tally_ccnt_state *st, enum rte_pmd_tally_ccnt_dir dir,
	     uint16_t qid, uint32_t id, bool en)
{
	if (dir == RTE_PMD_TALLY_CCNT_RX)
		return tally_hal_rxq_ccnt_attach(&st->ad->hal, qid, id, en);
	return tally_hal_txq_ccnt_attach(&st->ad->hal, qid, id, en);
}

/* 0 when slot (NULL: no such queue) can take counter id (en) or give up
 * its counter (!en); why not otherwise. */
static int
ccnt_slot_check(const struct tally_ccnt_state *st, const int32_t *slot, uint32_t id,
		bool en)
{
	if (slot == NULL)
		return -EINVAL;
	if (!en)
		return *slot == 0 ? -ENOENT : 0;
	if (id >= st->num || !st->used[id])
		return -ENOENT;
	return *slot != 0 ? -EBUSY : 0;
}

/* Attach counter id to a queue (en), or detach the queue's counter. */
static int
ccnt_bind(uint16_t port_id, enum rte_pmd_tally_ccnt_dir dir, uint16_t qid, uint32_t id,
	  bool en)
{
	struct tally_ccnt_state *st;
	int32_t *slot;
	int ret;

	pthread_mutex_lock(&ccnt_lock);
	st = ccnt_state(port_id, &ret);
	if (st == NULL)
		goto out;
	slot = ccnt_slot(st, dir, qid);
	ret = ccnt_slot_check(st, slot, id, en);
	if (ret == 0)
		ret = ccnt_program(st, dir, qid, id, en);
	if (ret == 0)
		*slot = en ? (int32_t)id + 1 : 0;
out:
	pthread_mutex_unlock(&ccnt_lock);
	return ret;
}

int
rte_pmd_tally_ccnt_attach(uint16_t port_id, uint32_t id,
			  enum rte_pmd_tally_ccnt_dir dir, uint16_t qid)
{
	return ccnt_bind(port_id, dir, qid, id, true);
}

int
rte_pmd_tally_ccnt_detach(uint16_t port_id, enum rte_pmd_tally_ccnt_dir dir,
			  uint16_t qid)
{
	return ccnt_bind(port_id, dir, qid, 0, false);
}
