/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Transfer rules: the switch of a Tally device (spec 2.3, doc/spec.md "Ports
 * and the switch"), programmed through rte_flow with the transfer attribute.
 *
 * Where they live: one switch engine per device, in the flow engine of port
 * 0 (the transfer proxy, rte_flow_pick_transfer_proxy()): a lib/steer
 * switch context published at SW_ROOT, sharing port 0's engine lock, fence
 * and counter pool, so a transfer rule's COUNT is a counter of port 0's bank
 * read by the same tally_cnt_read() as every other. Every port of the device
 * takes transfer rules; a rule remembers the port it was created through,
 * and destroy, query and flush find it from there (flush destroys the rules
 * created through that port). Closing port 0 destroys every transfer rule
 * of the device: the other ports' transfer calls then fail with EIO.
 *
 * What a rule matches: the pattern of a port's rules, plus the traffic
 * source: the wire of the port named by a port_id or represented_port item,
 * or, without one, the wire of the port the rule is created through (the
 * "weak" implicit source rte_flow describes); a source item without spec
 * matches every port. Frames the host transmits do not enter the switch, so
 * port_representor items are refused.
 *
 * What it does: count (inline or an indirect COUNT created on port 0), then
 * one fate: drop, jump (to a transfer group), passthru, or a destination -
 * port_id / represented_port (that port's wire) or port_representor (that
 * port's receive pipeline, i.e. its queues) - or no fate: the frame goes on
 * to its own port's receive pipeline. VLAN pop/push/set VID/set PCP and MAC
 * edits go into a switch action set, with a destination or none (the order
 * the device applies them in is the only order accepted).
 *
 * Locking: every call takes port 0's engine lock (never the calling port's
 * own, so a port's rules and the device's transfer rules never nest locks).
 *
 * The switch is on (SW_CTRL.EN) only while the device has transfer rules:
 * with it off, a frame from the wire costs the device nothing more than
 * without a switch; with it on and no rule, a parse and a miss.
 */
#include <stdio.h>
#include <string.h>

#include <rte_flow_driver.h>
#include <rte_malloc.h>

#include "tally_hal_io.h"
#include "tally_pmd.h"
#include "tally_flow.h"
#include "tally_flow_priv.h"
#include "tally_logs.h"

#define XFER_SETS		1024	/* switch action sets per device */

struct xfer_set {
	TAILQ_ENTRY(xfer_set) next;
	uint32_t id;
	uint32_t refs;
	struct tally_steer_swact a;
};

struct tally_flow_xfer {
	struct tally_steer_ctx *steer;
	const struct tally_hal_dev *hal;	/* port 0's: SW_CTRL */
	TAILQ_HEAD(, tally_flow_matcher) matchers;
	TAILQ_HEAD(, xfer_set) sets;
	struct xfer_set *set_by_id[XFER_SETS];
	uint32_t nb_flows;
	uint8_t nb_ports;
};


/* ---- the proxy ----------------------------------------------------------------- */

/* The flow engine holding the device's transfer rules, or NULL with error set. */
static struct tally_flow_ctx *
xfer_proxy(struct rte_eth_dev *dev, struct rte_flow_error *error)
{
	struct tally_adapter *ad = tally_adapter(dev);
	struct tally_adapter *px = NULL;

	if (ad->sw != NULL) {
		rte_spinlock_lock(&ad->sw->lock);
		px = ad->sw->proxy;
		rte_spinlock_unlock(&ad->sw->lock);
	}
	if (px != NULL && px->flow != NULL && px->flow->xfer != NULL)
		return px->flow;
	if (!(ad->hal.caps & TALLY_CAP_SWITCH) && ad->sw_port == 0)
		rte_flow_error_set(error, ENOTSUP, RTE_FLOW_ERROR_TYPE_ATTR_TRANSFER, NULL,
				   "the device has no switch (spec before 2.3)");
	else
		rte_flow_error_set(error, EIO, RTE_FLOW_ERROR_TYPE_STATE, NULL,
				   "the transfer proxy (port 0 of the device) is closed");
	return NULL;
}

int
tally_flow_xfer_proxy(struct rte_eth_dev *dev, uint16_t *proxy_port_id,
		      struct rte_flow_error *error)
{
	struct tally_adapter *ad = tally_adapter(dev);
	uint16_t p;

	if (ad->sw == NULL)
		return rte_flow_error_set(error, ENODEV, RTE_FLOW_ERROR_TYPE_UNSPECIFIED,
					  NULL, "port has no device");
	p = tally_switch_proxy_port(ad);
	if (p == RTE_MAX_ETHPORTS)
		return rte_flow_error_set(error, ENODEV, RTE_FLOW_ERROR_TYPE_UNSPECIFIED,
					  NULL, "the transfer proxy (port 0 of the device) is closed");
	*proxy_port_id = p;
	return 0;
}

/* ---- life cycle -------------------------------------------------------------- */

int
tally_flow_xfer_init(struct tally_adapter *ad, struct tally_flow_ctx *fc,
		     const struct tally_steer_config *base)
{
	struct tally_steer_config scfg = *base;
	struct tally_flow_xfer *x;
	int ret;

	if (!(ad->hal.caps & TALLY_CAP_SWITCH) || ad->sw == NULL || ad->sw_port != 0)
		return 0;
	x = rte_zmalloc("tally_xfer", sizeof(*x), 0);
	if (x == NULL)
		return -ENOMEM;
	TAILQ_INIT(&x->matchers);
	TAILQ_INIT(&x->sets);
	x->nb_ports = ad->sw->nb_ports;
	scfg.sw = true;
	scfg.nb_ports = x->nb_ports;
	scfg.max_rss = XFER_SETS;
	scfg.stage_min_log2 = TALLY_STEER_HTAB_MAX_LOG2 + 1;	/* no staging */
	ret = tally_steer_ctx_create(&scfg, &x->steer);
	if (ret != 0) {
		rte_free(x);
		return ret;
	}
	x->hal = &ad->hal;
	/* published, off until the first rule (tally_steer_ctx_create() set
	 * it on) */
	tally_hal_write32(x->hal, TALLY_REG_SW_CTRL, 0);
	fc->xfer = x;
	rte_spinlock_lock(&ad->sw->lock);
	ad->sw->proxy = ad;
	rte_spinlock_unlock(&ad->sw->lock);
	return 0;
}

static void xfer_release(struct tally_flow_ctx *fc, struct rte_flow *flow,
			 struct tally_flow_matcher *fm);

/* Every transfer rule created through port_id, or all (port_id
 * RTE_MAX_ETHPORTS); lock held. */
static void
xfer_flush_locked(struct tally_flow_ctx *fc, uint16_t port_id)
{
	struct tally_flow_xfer *x = fc->xfer;
	struct tally_steer_rule *r;
	struct rte_flow *f;
	uint32_t i;

	for (i = 0; (r = tally_steer_rule_at(x->steer, i)) != NULL; i++) {
		if (tally_steer_rule_matcher(r) == NULL)
			continue;
		f = tally_steer_rule_priv(r);
		if (f->magic != TALLY_FLOW_MAGIC ||
		    (port_id != RTE_MAX_ETHPORTS && f->port_id != port_id))
			continue;
		xfer_release(fc, f, NULL);
	}
	tally_steer_ctx_reclaim_locked(x->steer);
}

void
tally_flow_xfer_fini(struct tally_adapter *ad, struct tally_flow_ctx *fc)
{
	struct tally_flow_xfer *x = fc->xfer;
	struct tally_flow_matcher *fm;
	struct xfer_set *s;

	if (x == NULL)
		return;
	rte_spinlock_lock(&ad->sw->lock);
	if (ad->sw->proxy == ad)
		ad->sw->proxy = NULL;
	rte_spinlock_unlock(&ad->sw->lock);
	tally_lock(&fc->lock);
	xfer_flush_locked(fc, RTE_MAX_ETHPORTS);
	tally_unlock(&fc->lock);
	while ((fm = TAILQ_FIRST(&x->matchers)) != NULL) {
		TAILQ_REMOVE(&x->matchers, fm, next);
		rte_free(fm);
	}
	while ((s = TAILQ_FIRST(&x->sets)) != NULL) {
		TAILQ_REMOVE(&x->sets, s, next);
		rte_free(s);
	}
	tally_steer_ctx_destroy(x->steer);
	rte_free(x);
	fc->xfer = NULL;
}

/* ---- matchers and action sets -------------------------------------------------- */

static struct tally_flow_matcher *
xfer_matcher_get(struct tally_flow_xfer *x, uint32_t group, uint32_t priority,
		 const struct tally_match_key *mask, int *ret)
{
	struct tally_flow_matcher *fm;
	struct tally_steer_table *tbl;

	TAILQ_FOREACH(fm, &x->matchers, next)
		if (fm->group == group && fm->priority == priority &&
		    memcmp(&fm->mask, mask, sizeof(*mask)) == 0) {
			fm->refs++;
			return fm;
		}
	tbl = tally_steer_table_get(x->steer, group);
	if (tbl == NULL) {
		*ret = tally_steer_table_create_locked(x->steer, group, &tbl);
		if (*ret != 0)
			return NULL;
	}
	fm = rte_zmalloc("tally_xfer_matcher", sizeof(*fm), 0);
	if (fm == NULL) {
		*ret = -ENOMEM;
		return NULL;
	}
	*ret = tally_steer_matcher_create_locked(tbl, priority, mask, &fm->m);
	if (*ret != 0) {
		rte_free(fm);
		return NULL;
	}
	tally_steer_matcher_set_udata(fm->m, fm);
	fm->group = group;
	fm->priority = priority;
	fm->mask = *mask;
	fm->refs = 1;
	TAILQ_INSERT_TAIL(&x->matchers, fm, next);
	return fm;
}

static void
xfer_matcher_put(struct tally_flow_xfer *x, struct tally_flow_matcher *fm)
{
	if (--fm->refs > 0)
		return;
	TAILQ_REMOVE(&x->matchers, fm, next);
	if (tally_steer_matcher_destroy_locked(fm->m) != 0)
		TALLY_FLOW_LOG(ERR, "transfer matcher of group %u still busy", fm->group);
	rte_free(fm);
}

static struct xfer_set *
xfer_set_get(struct tally_flow_xfer *x, const struct tally_steer_swact *a, int *ret)
{
	struct xfer_set *s;

	TAILQ_FOREACH(s, &x->sets, next)
		if (memcmp(&s->a, a, sizeof(*a)) == 0) {
			s->refs++;
			return s;
		}
	s = rte_zmalloc("tally_xfer_set", sizeof(*s), 0);
	if (s == NULL) {
		*ret = -ENOMEM;
		return NULL;
	}
	*ret = tally_steer_swact_create_locked(x->steer, a, &s->id);
	if (*ret != 0) {
		rte_free(s);
		return NULL;
	}
	s->a = *a;
	s->refs = 1;
	TAILQ_INSERT_TAIL(&x->sets, s, next);
	x->set_by_id[s->id] = s;
	return s;
}

static void
xfer_set_put(struct tally_flow_xfer *x, struct xfer_set *s)
{
	if (--s->refs > 0)
		return;
	TAILQ_REMOVE(&x->sets, s, next);
	x->set_by_id[s->id] = NULL;
	tally_steer_rss_destroy_locked(x->steer, s->id);
	rte_free(s);
}

/* ---- create / destroy --------------------------------------------------------- */

/* What a transfer rule holds, and its object (lock held). fm: the matcher
 * reference of a rule not in it yet (a failed create). */
static void
xfer_release(struct tally_flow_ctx *fc, struct rte_flow *flow, struct tally_flow_matcher *fm)
{
	struct tally_flow_xfer *x = fc->xfer;
	struct tally_steer_rule *r = tally_flow_rule(flow);
	struct xfer_set *s = NULL;
	void *owner;

	if (flow->flags & FLOW_F_RSS)
		s = x->set_by_id[flow->rss_id];
	if (flow->magic == TALLY_FLOW_MAGIC)
		__atomic_fetch_sub(&x->nb_flows, 1, __ATOMIC_RELAXED);
	flow->magic = 0;
	if (tally_steer_rule_delete_next_locked(r, 0, &owner) != 0)
		tally_steer_rule_unreserve_locked(x->steer, r);
	if (owner != NULL)
		fm = owner;
	if (fm != NULL)
		xfer_matcher_put(x, fm);
	if (s != NULL)
		xfer_set_put(x, s);
	if (x->nb_flows == 0)	/* the last rule, or a first that failed */
		tally_hal_write32(x->hal, TALLY_REG_SW_CTRL, 0);
}

static const char *
xfer_steer_msg(int ret)
{
	switch (ret) {
	case -EEXIST:
		return "a transfer rule with the same match exists in this group and priority";
	case -ELOOP:
		return "jump would create a loop between transfer groups";
	case -ENOSPC:
		return "switch resources exhausted (rules, matchers or action sets)";
	case -ENOMEM:
		return "out of memory for switch tables";
	default:
		return "the switch refused the rule";
	}
}

static struct rte_flow *
xfer_insert(struct rte_eth_dev *dev, struct tally_flow_ctx *fc,
	    const struct rte_flow_attr *attr, const struct rte_flow_item pattern[],
	    struct tally_xfer_rule *rr, struct rte_flow_error *error)
{
	struct tally_flow_xfer *x = fc->xfer;
	struct tally_flow_matcher *fm = NULL;
	struct tally_steer_key key;
	struct tally_steer_rule *sr;
	const void *cause = pattern;
	struct rte_flow *flow;
	bool own_counter = false;
	int ret;

	ret = tally_steer_rule_reserve_locked(x->steer, &sr);
	if (ret != 0) {
		rte_flow_error_set(error, ENOMEM, RTE_FLOW_ERROR_TYPE_HANDLE, NULL,
				   "no memory for the flow");
		return NULL;
	}
	flow = tally_steer_rule_priv(sr);
	flow->port_id = dev->data->port_id;
	flow->flags = FLOW_F_XFER;
	if (rr->act.fate == TALLY_STEER_FATE_JUMP &&
	    tally_steer_table_get(x->steer, rr->act.arg) == NULL) {
		struct tally_steer_table *t;

		ret = tally_steer_table_create_locked(x->steer, rr->act.arg, &t);
		if (ret != 0) {
			cause = rr->fate;
			goto fail;
		}
	}
	fm = xfer_matcher_get(x, attr->group, attr->priority, &rr->m.mask, &ret);
	if (fm == NULL)
		goto fail;
	if (rr->act.fate == TALLY_STEER_FATE_SWACT) {
		struct xfer_set *s = xfer_set_get(x, &rr->set, &ret);

		if (s == NULL) {
			cause = rr->edit;
			goto fail;
		}
		flow->rss_id = (uint16_t)s->id;
		flow->flags |= FLOW_F_RSS;
		rr->act.arg = s->id;
	}
	if (rr->indirect != NULL) {
		flow->counter = tally_flow_handle_check(fc, rr->indirect->conf)->counter;
		flow->flags |= FLOW_F_COUNTED | FLOW_F_INDIRECT;
	} else if (rr->count != NULL) {
		ret = tally_flow_counter_alloc_locked(fc, &flow->counter);
		if (ret != 0) {
			rte_flow_error_set(error, ENOSPC, RTE_FLOW_ERROR_TYPE_ACTION, rr->count,
					   "counter bank exhausted");
			goto fail_set;
		}
		flow->flags |= FLOW_F_COUNTED;
		rr->act.flags |= TALLY_STEER_A_CNT_HELD;
		own_counter = true;
	}
	rr->act.counter = flow->counter;
	if (x->nb_flows == 0)	/* the first rule: the switch on */
		tally_hal_write32(x->hal, TALLY_REG_SW_CTRL, TALLY_SW_CTRL_EN);
	tally_steer_rule_key(fm->m, &rr->m.value, &key);
	ret = tally_steer_rule_insert_at_locked(fm->m, &key, &rr->act, sr);
	if (ret != 0) {
		if (own_counter)
			tally_cnt_free_locked(fc->cnt, flow->counter);
		cause = ret == -ELOOP ? (const void *)rr->fate : (const void *)pattern;
		goto fail;
	}
	__atomic_fetch_add(&x->nb_flows, 1, __ATOMIC_RELAXED);
	flow->magic = TALLY_FLOW_MAGIC;
	tally_steer_ctx_reclaim_locked(x->steer);
	return flow;
fail:
	rte_flow_error_set(error, -ret, RTE_FLOW_ERROR_TYPE_ITEM, cause, xfer_steer_msg(ret));
fail_set:
	xfer_release(fc, flow, fm);
	return NULL;
}

int
tally_flow_xfer_validate(struct rte_eth_dev *dev, const struct rte_flow_attr *attr,
			 const struct rte_flow_item pattern[],
			 const struct rte_flow_action actions[], struct rte_flow_error *error)
{
	struct tally_flow_ctx *fc = xfer_proxy(dev, error);
	struct tally_xfer_rule r;
	uint32_t in_use, free_now, pending;
	int ret;

	if (fc == NULL)
		return -rte_errno;
	tally_lock(&fc->lock);
	ret = tally_flow_xfer_check(dev, fc, attr, pattern, actions, &r, error);
	if (ret == 0 && r.count != NULL && r.indirect == NULL) {
		tally_cnt_pool_stats_locked(fc->cnt, &in_use, &free_now, &pending);
		if (free_now == 0 && pending == 0)
			ret = rte_flow_error_set(error, ENOSPC, RTE_FLOW_ERROR_TYPE_ACTION,
						 r.count, "counter bank exhausted");
	}
	tally_unlock(&fc->lock);
	return ret;
}

struct rte_flow *
tally_flow_xfer_create(struct rte_eth_dev *dev, const struct rte_flow_attr *attr,
		       const struct rte_flow_item pattern[],
		       const struct rte_flow_action actions[], struct rte_flow_error *error)
{
	struct tally_flow_ctx *fc = xfer_proxy(dev, error);
	struct rte_flow *flow = NULL;
	struct tally_xfer_rule r;

	if (fc == NULL)
		return NULL;
	tally_lock(&fc->lock);
	if (tally_flow_xfer_check(dev, fc, attr, pattern, actions, &r, error) == 0)
		flow = xfer_insert(dev, fc, attr, pattern, &r, error);
	tally_unlock(&fc->lock);
	return flow;
}

static bool
xfer_live(const struct rte_eth_dev *dev, const struct rte_flow *flow)
{
	return flow->magic == TALLY_FLOW_MAGIC && (flow->flags & FLOW_F_XFER) &&
	       flow->port_id == dev->data->port_id;
}

int
tally_flow_xfer_destroy(struct rte_eth_dev *dev, struct rte_flow *flow,
			struct rte_flow_error *error)
{
	struct tally_flow_ctx *fc = xfer_proxy(dev, error);
	int ret = 0;

	if (fc == NULL)
		return -rte_errno;
	tally_lock(&fc->lock);
	if (xfer_live(dev, flow)) {
		xfer_release(fc, flow, NULL);
		tally_steer_ctx_reclaim_locked(fc->xfer->steer);
	} else {
		ret = rte_flow_error_set(error, EINVAL, RTE_FLOW_ERROR_TYPE_HANDLE, flow,
			"no such flow on this port (destroyed, or never created)");
	}
	tally_unlock(&fc->lock);
	return ret;
}

void
tally_flow_xfer_flush(struct rte_eth_dev *dev)
{
	struct rte_flow_error error;
	struct tally_flow_ctx *fc = xfer_proxy(dev, &error);

	if (fc == NULL)
		return;	/* no switch, or its rules went with port 0 */
	tally_lock(&fc->lock);
	xfer_flush_locked(fc, dev->data->port_id);
	tally_unlock(&fc->lock);
}

int
tally_flow_xfer_query(struct rte_eth_dev *dev, struct rte_flow *flow,
		      const struct rte_flow_action *action, void *data,
		      struct rte_flow_error *error)
{
	struct tally_flow_ctx *fc = xfer_proxy(dev, error);

	if (fc == NULL)
		return -rte_errno;
	if (!xfer_live(dev, flow))
		return rte_flow_error_set(error, EINVAL, RTE_FLOW_ERROR_TYPE_HANDLE, flow,
			"no such flow on this port (destroyed, or never created)");
	if (action == NULL || action->type != RTE_FLOW_ACTION_TYPE_COUNT)
		return rte_flow_error_set(error, ENOTSUP, RTE_FLOW_ERROR_TYPE_ACTION, action,
					  "only count can be queried on a transfer rule");
	return tally_flow_count_query_flow(fc, flow, action, data, error);
}

/* ---- operator views -------------------------------------------------------------- */

static const char *const xfer_fate_names[] = {
	[TALLY_STEER_FATE_NONE] = "own port",
	[TALLY_STEER_FATE_DROP] = "drop",
	[TALLY_STEER_FATE_JUMP] = "jump",
	[TALLY_STEER_FATE_PASSTHRU] = "passthru",
	[TALLY_STEER_FATE_PORT] = "port",
	[TALLY_STEER_FATE_SWACT] = "edit",
};

static void
xfer_dump_one(struct tally_flow_ctx *fc, struct rte_flow *flow, FILE *f)
{
	struct tally_flow_matcher *fm = tally_flow_matcher_of(flow);
	struct tally_steer_action act;
	uint32_t dest = UINT32_MAX;

	tally_steer_rule_action(tally_flow_rule(flow), &act);
	fprintf(f, "transfer flow %p: port %u group %u priority %u fate %s",
		(const void *)flow, flow->port_id, fm->group, fm->priority,
		act.fate < RTE_DIM(xfer_fate_names) && xfer_fate_names[act.fate] ?
		xfer_fate_names[act.fate] : "?");
	if (act.fate == TALLY_STEER_FATE_PORT)
		dest = act.arg;
	else if (act.fate == TALLY_STEER_FATE_SWACT &&
		 (fc->xfer->set_by_id[act.arg]->a.flags & TALLY_SWACT_FWD))
		dest = fc->xfer->set_by_id[act.arg]->a.port;
	if (act.fate == TALLY_STEER_FATE_JUMP)
		fprintf(f, " %u", act.arg);
	if (dest != UINT32_MAX)
		fprintf(f, " %s of port %u", (dest & TALLY_STEER_PORT_HOST) ? "host" : "wire",
			dest & TALLY_STEER_PORT_M);
	tally_flow_dump_counter(fc, flow, f);
	fputc('\n', f);
}

int
tally_flow_xfer_dump(struct rte_eth_dev *dev, struct rte_flow *flow, FILE *f,
		     struct rte_flow_error *error)
{
	struct tally_flow_ctx *fc = xfer_proxy(dev, error);
	struct tally_steer_rule *r;
	struct rte_flow *x;
	uint32_t i;

	if (fc == NULL)
		return flow == NULL ? 0 : -rte_errno;	/* a port's dump goes on */
	/* a port's dump with no transfer rule takes no second lock */
	if (flow == NULL && __atomic_load_n(&fc->xfer->nb_flows, __ATOMIC_RELAXED) == 0)
		return 0;
	tally_lock(&fc->lock);
	if (flow != NULL) {
		if (!xfer_live(dev, flow)) {
			tally_unlock(&fc->lock);
			return rte_flow_error_set(error, EINVAL, RTE_FLOW_ERROR_TYPE_HANDLE,
				flow, "no such flow on this port (destroyed, or never created)");
		}
		xfer_dump_one(fc, flow, f);
	} else {
		for (i = 0; (r = tally_steer_rule_at(fc->xfer->steer, i)) != NULL; i++) {
			x = tally_steer_rule_priv(r);
			if (tally_steer_rule_matcher(r) != NULL && xfer_live(dev, x))
				xfer_dump_one(fc, x, f);
		}
	}
	tally_unlock(&fc->lock);
	return 0;
}

int
tally_flow_xfer_walk(struct tally_adapter *ad, tally_flow_walk_cb cb, void *arg)
{
	struct tally_flow_ctx *fc = ad->flow;
	struct tally_steer_rule *r;
	struct tally_flow_info fi;
	struct rte_flow *f;
	uint32_t index = 0, i;
	int ret = 0;

	if (fc == NULL || fc->xfer == NULL)
		return 0;
	tally_lock(&fc->lock);
	for (i = 0; (r = tally_steer_rule_at(fc->xfer->steer, i)) != NULL; i++) {
		f = tally_steer_rule_priv(r);
		if (tally_steer_rule_matcher(r) == NULL || f->magic != TALLY_FLOW_MAGIC)
			continue;
		tally_flow_info_of(f, tally_flow_matcher_of(f), index++, &fi);
		ret = cb(&fi, arg);
		if (ret != 0)
			break;
	}
	tally_unlock(&fc->lock);
	return ret;
}

uint32_t
tally_flow_xfer_count(struct tally_adapter *ad)
{
	struct tally_flow_ctx *fc = ad->flow;
	uint32_t n;

	if (fc == NULL || fc->xfer == NULL)
		return 0;
	tally_lock(&fc->lock);
	n = fc->xfer->nb_flows;
	tally_unlock(&fc->lock);
	return n;
}
