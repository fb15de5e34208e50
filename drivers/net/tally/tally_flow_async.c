/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Template tables and flow queues (rte_flow_configure and friends).
 *
 * Objects
 *  - pattern template: the item types and masks every rule of a table will
 *    match, compiled once into a match-key mask (validated then).
 *  - actions template: action types, with the confs that the mask marks as
 *    constant; the others come with each rule.
 *  - template table: a flow group and priority, its pattern and actions
 *    templates, and one steering matcher per pattern template, compiled and
 *    with its hash array sized for the table's rule count at creation, so a
 *    rule insert only fills and hashes the key words and never grows the
 *    array.
 *  - flow queue: where operations are enqueued and their results pulled.
 *    An operation runs when it is enqueued (the device sees a created rule
 *    as soon as its entry is published); its result waits in the queue.
 *    A destroy's result is released by pull only once a device fence
 *    completed, so a pulled result means the device no longer sees the rule.
 *
 * Rules created through a queue are ordinary rte_flow objects: query, dump,
 * flush and the synchronous destroy work on them too.
 *
 * Errors: a call whose arguments are wrong (queue, table, template index,
 * item or action types, a full result ring) fails at once and enqueues
 * nothing. An operation the engine rejects (a duplicate rule, exhausted
 * counters, a value out of range) is enqueued as an RTE_FLOW_OP_ERROR result
 * and leaves no state; the handle returned for it is never live (destroy or
 * query of it is EINVAL).
 *
 * Locking: the engine lock (tally_flow_priv.h) around every operation; each
 * queue's result ring is touched only by the thread that owns the queue, as
 * the API requires.
 */
#include <stdlib.h>
#include <string.h>

#include <rte_flow_driver.h>
#include <rte_malloc.h>

#include "tally_compat.h"
#include "tally_ethdev.h"
#include "tally_flow_priv.h"
#include "tally_logs.h"

#define TALLY_FLOW_MAX_QUEUES		64
#define TALLY_FLOW_MAX_QUEUE_SIZE	(1u << 16)
#define TALLY_FLOW_MAX_TABLES		1024
#define TALLY_TMPL_MAX_ITEMS		16
#define TALLY_TMPL_MAX_ACTIONS		16
#define TALLY_TMPL_MAX_PER_TABLE	8
#define TALLY_PT_MAGIC			0x54505431u	/* "1TPT" */
#define TALLY_AT_MAGIC			0x54415431u
#define TALLY_TBL_MAGIC			0x54424c31u

struct rte_flow_pattern_template {
	TAILQ_ENTRY(rte_flow_pattern_template) next;
	uint32_t magic;
	uint32_t refs;			/* tables using it */
	struct rte_flow_item *items;	/* deep copy, END-terminated */
	uint32_t nb_items;		/* without END */
	struct tally_match_key mask;
};

struct rte_flow_actions_template {
	TAILQ_ENTRY(rte_flow_actions_template) next;
	uint32_t magic;
	uint32_t refs;
	struct rte_flow_action *actions;	/* deep copies, END-terminated */
	struct rte_flow_action *masks;
	uint32_t nb_actions;
	bool constant[TALLY_TMPL_MAX_ACTIONS];	/* conf from the template */
};

struct rte_flow_template_table {
	TAILQ_ENTRY(rte_flow_template_table) next;
	uint32_t magic;
	uint16_t id;			/* rules carry id + 1 */
	struct rte_flow_attr attr;
	uint32_t nb_flows;
	uint32_t nb_rules;
	uint8_t nb_pt;
	uint8_t nb_at;
	struct rte_flow_pattern_template *pt[TALLY_TMPL_MAX_PER_TABLE];
	struct rte_flow_actions_template *at[TALLY_TMPL_MAX_PER_TABLE];
	struct tally_flow_matcher *fm[TALLY_TMPL_MAX_PER_TABLE];
};

struct tally_flow_queue {
	uint32_t size;
	uint32_t head;			/* next result to pull (free running) */
	uint32_t tail;			/* next slot to fill */
	uint32_t fence_ticket;		/* the latest destroy's fence */
	bool fence_pending;
	struct rte_flow_op_result *res;
	struct rte_flow failed;		/* handle of rejected creates: never live */
};

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
};

static struct tally_flow_ctx *
tmpl_fc(struct rte_eth_dev *dev, struct rte_flow_error *err)
{
	struct tally_flow_ctx *fc = tally_adapter(dev)->flow;

	if (fc == NULL)
		rte_flow_error_set(err, EIO, RTE_FLOW_ERROR_TYPE_STATE, NULL,
				   "flow engine not available");
	return fc;
}

static int
not_configured(struct rte_flow_error *err)
{
	return rte_flow_error_set(err, EINVAL, RTE_FLOW_ERROR_TYPE_STATE, NULL,
				   "flow queues not configured: call rte_flow_configure first");
}

/* The templates and tables live until port close; create them on demand. */
static struct tally_flow_tmpl *
tmpl_get(struct tally_flow_ctx *fc)
{
	struct tally_flow_tmpl *t = fc->tmpl;

	if (t != NULL)
		return t;
	t = rte_zmalloc("tally_tmpl", sizeof(*t), 0);
	if (t == NULL)
		return NULL;
	TAILQ_INIT(&t->pts);
	TAILQ_INIT(&t->ats);
	TAILQ_INIT(&t->tables);
	fc->tmpl = t;
	return t;
}

/* ---- info and configure ------------------------------------------------------ */

static int
t_info_get(struct rte_eth_dev *dev, struct rte_flow_port_info *pi,
	   struct rte_flow_queue_info *qi, struct rte_flow_error *err)
{
	struct tally_adapter *ad = tally_adapter(dev);

	if (pi == NULL || qi == NULL)
		return rte_flow_error_set(err, EINVAL, RTE_FLOW_ERROR_TYPE_UNSPECIFIED,
					   NULL, "NULL output");
	memset(pi, 0, sizeof(*pi));
	memset(qi, 0, sizeof(*qi));
	pi->max_nb_queues = TALLY_FLOW_MAX_QUEUES;
	pi->max_nb_counters = ad->hal.cnt_num;
	pi->max_nb_aging_objects = ad->hal.cnt_num;
	pi->supported_flags = RTE_FLOW_PORT_FLAG_STRICT_QUEUE;
	qi->max_size = TALLY_FLOW_MAX_QUEUE_SIZE;
	return 0;
}

static void
queues_free(struct tally_flow_tmpl *t)
{
	uint32_t i;

	for (i = 0; t->q != NULL && i < t->nb_queues; i++)
		rte_free(t->q[i].res);
	rte_free(t->q);
	t->q = NULL;
	t->nb_queues = 0;
}

static int
t_configure(struct rte_eth_dev *dev, const struct rte_flow_port_attr *pa,
	    uint16_t nb_queue, const struct rte_flow_queue_attr *qa[],
	    struct rte_flow_error *err)
{
	struct tally_adapter *ad = tally_adapter(dev);
	struct tally_flow_ctx *fc = tmpl_fc(dev, err);
	struct tally_flow_queue *q;
	struct tally_flow_tmpl *t;
	uint32_t i;
	int ret = 0;

	if (fc == NULL)
		return -EIO;
	if (pa == NULL || qa == NULL)
		return rte_flow_error_set(err, EINVAL, RTE_FLOW_ERROR_TYPE_UNSPECIFIED,
					   NULL, "NULL port or queue attributes");
	if (pa->flags & ~RTE_FLOW_PORT_FLAG_STRICT_QUEUE)
		return rte_flow_error_set(err, ENOTSUP, RTE_FLOW_ERROR_TYPE_UNSPECIFIED,
					   NULL, "unknown port flags");
	if (pa->nb_meters != 0 || pa->nb_conn_tracks != 0)
		return rte_flow_error_set(err, ENOTSUP, RTE_FLOW_ERROR_TYPE_UNSPECIFIED,
					   NULL, "the device has no meters or connection tracking");
	ret = tally_compat_port_attr_check(pa, err);
	if (ret != 0)
		return ret;
	if (pa->nb_counters > ad->hal.cnt_num || pa->nb_aging_objects > ad->hal.cnt_num)
		return rte_flow_error_set(err, ENOSPC, RTE_FLOW_ERROR_TYPE_UNSPECIFIED,
					   NULL, "more counters or aging objects than the counter bank holds");
	if (nb_queue == 0 || nb_queue > TALLY_FLOW_MAX_QUEUES)
		return rte_flow_error_set(err, EINVAL, RTE_FLOW_ERROR_TYPE_UNSPECIFIED,
					   NULL, "1 to 64 flow queues");
	for (i = 0; i < nb_queue; i++)
		if (qa[i] == NULL || qa[i]->size == 0 ||
		    qa[i]->size > TALLY_FLOW_MAX_QUEUE_SIZE)
			return rte_flow_error_set(err, EINVAL,
				RTE_FLOW_ERROR_TYPE_UNSPECIFIED, NULL,
				"queue size must be 1 to 65536");
	pthread_mutex_lock(&fc->lock);
	t = tmpl_get(fc);
	if (t == NULL) {
		ret = rte_flow_error_set(err, ENOMEM, RTE_FLOW_ERROR_TYPE_UNSPECIFIED,
					  NULL, "no memory for the flow queues");
		goto out;
	}
	if (!TAILQ_EMPTY(&t->tables) || !TAILQ_EMPTY(&t->pts) || !TAILQ_EMPTY(&t->ats)) {
		ret = rte_flow_error_set(err, EBUSY, RTE_FLOW_ERROR_TYPE_STATE, NULL,
					  "templates or tables exist: destroy them before reconfiguring");
		goto out;
	}
	queues_free(t);
	t->q = rte_zmalloc("tally_fq", nb_queue * sizeof(*t->q), 0);
	for (i = 0; t->q != NULL && i < nb_queue; i++) {
		q = &t->q[i];
		q->size = qa[i]->size;
		q->res = rte_zmalloc("tally_fq_res", q->size * sizeof(*q->res), 0);
		t->nb_queues = i + 1;
		if (q->res == NULL)
			break;
	}
	if (t->q == NULL || t->nb_queues < nb_queue || t->q[nb_queue - 1].res == NULL) {
		queues_free(t);
		ret = rte_flow_error_set(err, ENOMEM, RTE_FLOW_ERROR_TYPE_UNSPECIFIED,
					  NULL, "no memory for the flow queues");
		goto out;
	}
	t->flags = pa->flags;
	t->nb_counters = pa->nb_counters;
	t->nb_aging = pa->nb_aging_objects;
out:
	pthread_mutex_unlock(&fc->lock);
	return ret;
}

/* ---- pattern templates ---------------------------------------------------------- */

static struct rte_flow_pattern_template *
t_pt_create(struct rte_eth_dev *dev, const struct rte_flow_pattern_template_attr *a,
	    const struct rte_flow_item pattern[], struct rte_flow_error *err)
{
	struct tally_flow_ctx *fc = tmpl_fc(dev, err);
	struct rte_flow_item probe[TALLY_TMPL_MAX_ITEMS + 1];
	struct rte_flow_pattern_template *pt;
	struct tally_flow_match m;
	struct tally_flow_tmpl *t;
	uint32_t n, i;
	int len;

	if (fc == NULL)
		return NULL;
	if (a == NULL || pattern == NULL) {
		rte_flow_error_set(err, EINVAL, RTE_FLOW_ERROR_TYPE_UNSPECIFIED, NULL,
				   "NULL attributes or pattern");
		return NULL;
	}
	if (a->egress || a->transfer) {
		rte_flow_error_set(err, ENOTSUP, RTE_FLOW_ERROR_TYPE_ATTR, a,
				   "templates are ingress only");
		return NULL;
	}
	for (n = 0; pattern[n].type != RTE_FLOW_ITEM_TYPE_END; n++)
		if (n == TALLY_TMPL_MAX_ITEMS) {
			rte_flow_error_set(err, ENOTSUP, RTE_FLOW_ERROR_TYPE_ITEM_NUM,
					   &pattern[n], "more than 16 items in a template");
			return NULL;
		}
	/* compile the masks: an item's spec (or its mask when it has none)
	 * stands for the values rules will bring */
	for (i = 0; i <= n; i++) {
		probe[i] = pattern[i];
		probe[i].last = NULL;
		if (probe[i].spec == NULL)
			probe[i].spec = probe[i].mask;
	}
	if (tally_flow_parse_pattern(probe, &m, err) != 0)
		return NULL;
	len = rte_flow_conv(RTE_FLOW_CONV_OP_PATTERN, NULL, 0, pattern, err);
	if (len <= 0)
		return NULL;
	pt = rte_zmalloc("tally_pt", sizeof(*pt) + (size_t)len, 0);
	if (pt == NULL) {
		rte_flow_error_set(err, ENOMEM, RTE_FLOW_ERROR_TYPE_UNSPECIFIED, NULL,
				   "no memory for the template");
		return NULL;
	}
	pt->items = (struct rte_flow_item *)(pt + 1);
	if (rte_flow_conv(RTE_FLOW_CONV_OP_PATTERN, pt->items, (size_t)len,
			  pattern, err) != len) {
		rte_free(pt);
		return NULL;
	}
	pt->nb_items = n;
	pt->mask = m.mask;
	pt->magic = TALLY_PT_MAGIC;
	pthread_mutex_lock(&fc->lock);
	t = tmpl_get(fc);
	if (t == NULL) {
		pthread_mutex_unlock(&fc->lock);
		rte_free(pt);
		rte_flow_error_set(err, ENOMEM, RTE_FLOW_ERROR_TYPE_UNSPECIFIED, NULL,
				   "no memory for the template");
		return NULL;
	}
	TAILQ_INSERT_TAIL(&t->pts, pt, next);
	pthread_mutex_unlock(&fc->lock);
	return pt;
}

static struct rte_flow_pattern_template *
pt_check(struct tally_flow_tmpl *t, const void *p)
{
	struct rte_flow_pattern_template *pt;

	TAILQ_FOREACH(pt, &t->pts, next)
		if (pt == p && pt->magic == TALLY_PT_MAGIC)
			return pt;
	return NULL;
}

static int
t_pt_destroy(struct rte_eth_dev *dev, struct rte_flow_pattern_template *ptp,
	     struct rte_flow_error *err)
{
	struct tally_flow_ctx *fc = tmpl_fc(dev, err);
	struct rte_flow_pattern_template *pt;
	int ret = 0;

	if (fc == NULL)
		return -EIO;
	pthread_mutex_lock(&fc->lock);
	pt = fc->tmpl != NULL ? pt_check(fc->tmpl, ptp) : NULL;
	if (pt == NULL)
		ret = rte_flow_error_set(err, EINVAL, RTE_FLOW_ERROR_TYPE_UNSPECIFIED,
					  ptp, "no such pattern template");
	else if (pt->refs != 0)
		ret = rte_flow_error_set(err, EBUSY, RTE_FLOW_ERROR_TYPE_UNSPECIFIED,
					  ptp, "pattern template used by a table");
	else {
		TAILQ_REMOVE(&fc->tmpl->pts, pt, next);
		pt->magic = 0;
		rte_free(pt);
	}
	pthread_mutex_unlock(&fc->lock);
	return ret;
}

/* ---- actions templates ---------------------------------------------------------- */

/* A mask conf with any bit set makes the template's conf constant. */
static bool
mask_set(const struct rte_flow_action *m)
{
	size_t len, i;

	if (m->conf == NULL)
		return false;
	switch (m->type) {
	case RTE_FLOW_ACTION_TYPE_QUEUE:
		len = sizeof(struct rte_flow_action_queue);
		break;
	case RTE_FLOW_ACTION_TYPE_MARK:
		len = sizeof(struct rte_flow_action_mark);
		break;
	case RTE_FLOW_ACTION_TYPE_JUMP:
		len = sizeof(struct rte_flow_action_jump);
		break;
	case RTE_FLOW_ACTION_TYPE_AGE:
		len = sizeof(uint32_t);		/* the timeout word */
		break;
	case RTE_FLOW_ACTION_TYPE_RSS:
	case RTE_FLOW_ACTION_TYPE_COUNT:
	case RTE_FLOW_ACTION_TYPE_INDIRECT:
	default:
		return true;			/* given: taken as a whole */
	}
	for (i = 0; i < len; i++)
		if (((const uint8_t *)m->conf)[i] != 0)
			return true;
	return false;
}

static bool
action_supported(enum rte_flow_action_type type)
{
	switch (type) {
	case RTE_FLOW_ACTION_TYPE_VOID:
	case RTE_FLOW_ACTION_TYPE_COUNT:
	case RTE_FLOW_ACTION_TYPE_INDIRECT:
	case RTE_FLOW_ACTION_TYPE_AGE:
	case RTE_FLOW_ACTION_TYPE_MARK:
	case RTE_FLOW_ACTION_TYPE_FLAG:
	case RTE_FLOW_ACTION_TYPE_QUEUE:
	case RTE_FLOW_ACTION_TYPE_RSS:
	case RTE_FLOW_ACTION_TYPE_DROP:
	case RTE_FLOW_ACTION_TYPE_PASSTHRU:
	case RTE_FLOW_ACTION_TYPE_JUMP:
		return true;
	default:
		return false;
	}
}

static int
at_check_lists(struct rte_eth_dev *dev, const struct rte_flow_action actions[],
	       const struct rte_flow_action masks[], uint32_t *nb,
	       struct rte_flow_error *err)
{
	struct tally_flow_limits lim = {
		.nb_rx_queues = dev->data->nb_rx_queues,
		.max_groups = TALLY_FLOW_GROUPS,
		.rss_key = tally_adapter(dev)->rss_key,
	};
	struct rte_flow_action one[2] = { { 0 }, { .type = RTE_FLOW_ACTION_TYPE_END } };
	struct tally_flow_acts a;
	uint32_t n;

	for (n = 0; actions[n].type != RTE_FLOW_ACTION_TYPE_END; n++) {
		if (n == TALLY_TMPL_MAX_ACTIONS)
			return rte_flow_error_set(err, ENOTSUP,
				RTE_FLOW_ERROR_TYPE_ACTION_NUM, &actions[n],
				"more than 16 actions in a template");
		if (!action_supported(actions[n].type))
			return rte_flow_error_set(err, ENOTSUP,
				RTE_FLOW_ERROR_TYPE_ACTION, &actions[n],
				"action type not supported");
		/* an indirect action's mask names the action it stands for */
		if (masks[n].type != actions[n].type &&
		    !(actions[n].type == RTE_FLOW_ACTION_TYPE_INDIRECT &&
		      masks[n].type == RTE_FLOW_ACTION_TYPE_COUNT))
			return rte_flow_error_set(err, EINVAL,
				RTE_FLOW_ERROR_TYPE_ACTION, &masks[n],
				"mask list does not follow the action list");
		/* a constant conf must be valid on its own */
		if (actions[n].type != RTE_FLOW_ACTION_TYPE_INDIRECT &&
		    actions[n].conf != NULL && mask_set(&masks[n])) {
			one[0] = actions[n];
			if (tally_flow_parse_actions(one, &lim, &a, err) != 0)
				return -rte_errno;
		}
	}
	if (masks[n].type != RTE_FLOW_ACTION_TYPE_END)
		return rte_flow_error_set(err, EINVAL, RTE_FLOW_ERROR_TYPE_ACTION,
					   &masks[n], "mask list longer than the action list");
	*nb = n;
	return 0;
}

static struct rte_flow_actions_template *
t_at_create(struct rte_eth_dev *dev, const struct rte_flow_actions_template_attr *a,
	    const struct rte_flow_action actions[],
	    const struct rte_flow_action masks[], struct rte_flow_error *err)
{
	struct tally_flow_ctx *fc = tmpl_fc(dev, err);
	struct rte_flow_actions_template *at;
	struct tally_flow_tmpl *t;
	uint32_t n = 0, i;
	int la, lm;

	if (fc == NULL)
		return NULL;
	if (a == NULL || actions == NULL || masks == NULL) {
		rte_flow_error_set(err, EINVAL, RTE_FLOW_ERROR_TYPE_UNSPECIFIED, NULL,
				   "NULL attributes, actions or masks");
		return NULL;
	}
	if (a->egress || a->transfer) {
		rte_flow_error_set(err, ENOTSUP, RTE_FLOW_ERROR_TYPE_ATTR, a,
				   "templates are ingress only");
		return NULL;
	}
	if (at_check_lists(dev, actions, masks, &n, err) != 0)
		return NULL;
	la = rte_flow_conv(RTE_FLOW_CONV_OP_ACTIONS, NULL, 0, actions, err);
	lm = rte_flow_conv(RTE_FLOW_CONV_OP_ACTIONS, NULL, 0, masks, err);
	if (la <= 0 || lm <= 0)
		return NULL;
	at = rte_zmalloc("tally_at", sizeof(*at) + (size_t)la + (size_t)lm, 8);
	if (at == NULL) {
		rte_flow_error_set(err, ENOMEM, RTE_FLOW_ERROR_TYPE_UNSPECIFIED, NULL,
				   "no memory for the template");
		return NULL;
	}
	at->actions = (struct rte_flow_action *)(at + 1);
	at->masks = (struct rte_flow_action *)((uint8_t *)at->actions + la);
	if (rte_flow_conv(RTE_FLOW_CONV_OP_ACTIONS, at->actions, (size_t)la,
			  actions, err) != la ||
	    rte_flow_conv(RTE_FLOW_CONV_OP_ACTIONS, at->masks, (size_t)lm,
			  masks, err) != lm) {
		rte_free(at);
		return NULL;
	}
	at->nb_actions = n;
	for (i = 0; i < n; i++)
		at->constant[i] = at->actions[i].type == RTE_FLOW_ACTION_TYPE_INDIRECT ?
				  at->actions[i].conf != NULL :
				  at->actions[i].conf != NULL && mask_set(&at->masks[i]);
	at->magic = TALLY_AT_MAGIC;
	pthread_mutex_lock(&fc->lock);
	t = tmpl_get(fc);
	if (t == NULL) {
		pthread_mutex_unlock(&fc->lock);
		rte_free(at);
		rte_flow_error_set(err, ENOMEM, RTE_FLOW_ERROR_TYPE_UNSPECIFIED, NULL,
				   "no memory for the template");
		return NULL;
	}
	TAILQ_INSERT_TAIL(&t->ats, at, next);
	pthread_mutex_unlock(&fc->lock);
	return at;
}

static struct rte_flow_actions_template *
at_check(struct tally_flow_tmpl *t, const void *p)
{
	struct rte_flow_actions_template *at;

	TAILQ_FOREACH(at, &t->ats, next)
		if (at == p && at->magic == TALLY_AT_MAGIC)
			return at;
	return NULL;
}

static int
t_at_destroy(struct rte_eth_dev *dev, struct rte_flow_actions_template *atp,
	     struct rte_flow_error *err)
{
	struct tally_flow_ctx *fc = tmpl_fc(dev, err);
	struct rte_flow_actions_template *at;
	int ret = 0;

	if (fc == NULL)
		return -EIO;
	pthread_mutex_lock(&fc->lock);
	at = fc->tmpl != NULL ? at_check(fc->tmpl, atp) : NULL;
	if (at == NULL)
		ret = rte_flow_error_set(err, EINVAL, RTE_FLOW_ERROR_TYPE_UNSPECIFIED,
					  atp, "no such actions template");
	else if (at->refs != 0)
		ret = rte_flow_error_set(err, EBUSY, RTE_FLOW_ERROR_TYPE_UNSPECIFIED,
					  atp, "actions template used by a table");
	else {
		TAILQ_REMOVE(&fc->tmpl->ats, at, next);
		at->magic = 0;
		rte_free(at);
	}
	pthread_mutex_unlock(&fc->lock);
	return ret;
}

/* ---- template tables ---------------------------------------------------------- */

static void
table_release(struct tally_flow_ctx *fc, struct rte_flow_template_table *tb)
{
	uint8_t i;

	for (i = 0; i < tb->nb_pt; i++) {
		if (tb->fm[i] != NULL) {
			tally_flow_matcher_release(tally_adapter(fc->dev), tb->fm[i]);
			tb->fm[i] = NULL;
		}
		tb->pt[i]->refs--;
	}
	for (i = 0; i < tb->nb_at; i++)
		tb->at[i]->refs--;
	fc->tmpl->by_id[tb->id] = NULL;
	tb->magic = 0;
	rte_free(tb);
}

static int
table_check_attr(const struct rte_flow_template_table_attr *ta, uint8_t nb_pt,
		 uint8_t nb_at, struct rte_flow_error *err)
{
	if (ta == NULL)
		return rte_flow_error_set(err, EINVAL, RTE_FLOW_ERROR_TYPE_UNSPECIFIED,
					   NULL, "NULL table attributes");
	if (ta->flow_attr.egress || ta->flow_attr.transfer)
		return rte_flow_error_set(err, ENOTSUP, RTE_FLOW_ERROR_TYPE_ATTR,
					   &ta->flow_attr, "tables are ingress only");
	if (ta->flow_attr.group >= TALLY_FLOW_GROUPS)
		return rte_flow_error_set(err, ENOTSUP, RTE_FLOW_ERROR_TYPE_ATTR_GROUP,
					   &ta->flow_attr, "group beyond the device's table count");
	if (ta->nb_flows == 0)
		return rte_flow_error_set(err, EINVAL, RTE_FLOW_ERROR_TYPE_UNSPECIFIED,
					   ta, "a table needs a rule count");
	if (nb_pt == 0 || nb_pt > TALLY_TMPL_MAX_PER_TABLE ||
	    nb_at == 0 || nb_at > TALLY_TMPL_MAX_PER_TABLE)
		return rte_flow_error_set(err, EINVAL, RTE_FLOW_ERROR_TYPE_UNSPECIFIED,
					   ta, "1 to 8 pattern and actions templates per table");
	return tally_compat_table_attr_check(ta, err);
}

static struct rte_flow_template_table *
t_table_create(struct rte_eth_dev *dev, const struct rte_flow_template_table_attr *ta,
	       struct rte_flow_pattern_template *pts[], uint8_t nb_pt,
	       struct rte_flow_actions_template *ats[], uint8_t nb_at,
	       struct rte_flow_error *err)
{
	struct tally_flow_ctx *fc = tmpl_fc(dev, err);
	struct tally_adapter *ad = tally_adapter(dev);
	struct rte_flow_template_table *tb = NULL;
	struct tally_flow_tmpl *t;
	uint32_t id;
	uint8_t i;
	int ret;

	if (fc == NULL || table_check_attr(ta, nb_pt, nb_at, err) != 0)
		return NULL;
	pthread_mutex_lock(&fc->lock);
	t = tmpl_get(fc);
	if (t == NULL || pts == NULL || ats == NULL) {
		rte_flow_error_set(err, t == NULL ? ENOMEM : EINVAL,
				   RTE_FLOW_ERROR_TYPE_UNSPECIFIED, NULL,
				   t == NULL ? "no memory" : "NULL template arrays");
		goto fail;
	}
	for (i = 0; i < nb_pt; i++)
		if (pt_check(t, pts[i]) == NULL) {
			rte_flow_error_set(err, EINVAL, RTE_FLOW_ERROR_TYPE_UNSPECIFIED,
					   pts[i], "no such pattern template");
			goto fail;
		}
	for (i = 0; i < nb_at; i++)
		if (at_check(t, ats[i]) == NULL) {
			rte_flow_error_set(err, EINVAL, RTE_FLOW_ERROR_TYPE_UNSPECIFIED,
					   ats[i], "no such actions template");
			goto fail;
		}
	for (id = 0; id < TALLY_FLOW_MAX_TABLES && t->by_id[id] != NULL; id++)
		;
	tb = id < TALLY_FLOW_MAX_TABLES ? rte_zmalloc("tally_tbl", sizeof(*tb), 0) : NULL;
	if (tb == NULL) {
		rte_flow_error_set(err, id < TALLY_FLOW_MAX_TABLES ? ENOMEM : ENOSPC,
				   RTE_FLOW_ERROR_TYPE_UNSPECIFIED, NULL,
				   "no room for another template table");
		goto fail;
	}
	tb->id = (uint16_t)id;
	tb->attr = ta->flow_attr;
	tb->attr.ingress = 1;
	tb->nb_flows = ta->nb_flows;
	t->by_id[id] = tb;
	for (i = 0; i < nb_at; i++) {
		tb->at[i] = ats[i];
		ats[i]->refs++;
		tb->nb_at++;
	}
	for (i = 0; i < nb_pt; i++) {
		tb->pt[i] = pts[i];
		pts[i]->refs++;
		tb->nb_pt++;
		/* compiled now, sized for the table's rules */
		tb->fm[i] = tally_flow_matcher_acquire(ad, tb->attr.group,
						       tb->attr.priority,
						       &pts[i]->mask, &ret);
		if (tb->fm[i] == NULL ||
		    (ret = tally_steer_matcher_reserve(tally_flow_matcher_steer(tb->fm[i]),
						       ta->nb_flows)) != 0) {
			rte_flow_error_set(err, -ret, RTE_FLOW_ERROR_TYPE_UNSPECIFIED, ta,
					   ret == -ENOSPC ? "rule count beyond the largest hash array" :
					   "steering resources for the table");
			table_release(fc, tb);
			tb = NULL;
			goto fail;
		}
	}
	tb->magic = TALLY_TBL_MAGIC;
	TAILQ_INSERT_TAIL(&t->tables, tb, next);
	pthread_mutex_unlock(&fc->lock);
	return tb;
fail:
	pthread_mutex_unlock(&fc->lock);
	return NULL;
}

static struct rte_flow_template_table *
table_check(struct tally_flow_tmpl *t, const void *p)
{
	const struct rte_flow_template_table *tb = p;

	if (t == NULL || tb == NULL || tb->magic != TALLY_TBL_MAGIC ||
	    tb->id >= TALLY_FLOW_MAX_TABLES || t->by_id[tb->id] != tb)
		return NULL;
	return t->by_id[tb->id];
}

static int
t_table_destroy(struct rte_eth_dev *dev, struct rte_flow_template_table *tbp,
		struct rte_flow_error *err)
{
	struct tally_flow_ctx *fc = tmpl_fc(dev, err);
	struct rte_flow_template_table *tb;
	int ret = 0;

	if (fc == NULL)
		return -EIO;
	pthread_mutex_lock(&fc->lock);
	tb = table_check(fc->tmpl, tbp);
	if (tb == NULL)
		ret = rte_flow_error_set(err, EINVAL, RTE_FLOW_ERROR_TYPE_UNSPECIFIED,
					  tbp, "no such template table");
	else if (tb->nb_rules != 0)
		ret = rte_flow_error_set(err, EBUSY, RTE_FLOW_ERROR_TYPE_UNSPECIFIED,
					  tbp, "template table still holds rules");
	else {
		TAILQ_REMOVE(&fc->tmpl->tables, tb, next);
		table_release(fc, tb);
	}
	pthread_mutex_unlock(&fc->lock);
	return ret;
}

void
tally_flow_tmpl_rule_gone(struct tally_flow_ctx *fc, uint16_t tbl_id)
{
	struct rte_flow_template_table *tb;

	if (fc->tmpl == NULL || tbl_id == 0 || tbl_id > TALLY_FLOW_MAX_TABLES)
		return;
	tb = fc->tmpl->by_id[tbl_id - 1];
	if (tb != NULL && tb->nb_rules > 0)
		tb->nb_rules--;
}

/* ---- flow queues ------------------------------------------------------------------ */

static struct tally_flow_queue *
queue_of(struct tally_flow_ctx *fc, uint32_t queue, struct rte_flow_error *err)
{
	if (fc->tmpl == NULL || fc->tmpl->q == NULL) {
		not_configured(err);
		return NULL;
	}
	if (queue >= fc->tmpl->nb_queues) {
		rte_flow_error_set(err, EINVAL, RTE_FLOW_ERROR_TYPE_UNSPECIFIED, NULL,
				   "no such flow queue");
		return NULL;
	}
	return &fc->tmpl->q[queue];
}

static bool
queue_full(const struct tally_flow_queue *q)
{
	return q->tail - q->head >= q->size;
}

static void
queue_post(struct tally_flow_queue *q, enum rte_flow_op_status st, void *user_data)
{
	struct rte_flow_op_result *r = &q->res[q->tail % q->size];

	r->status = st;
	r->user_data = user_data;
	q->tail++;
}

/* The rule's items: types from the template, values from the rule, masks
 * from the template. */
static int
rule_pattern(const struct rte_flow_pattern_template *pt,
	     const struct rte_flow_item pattern[], struct rte_flow_item *out,
	     struct rte_flow_error *err)
{
	uint32_t i;

	for (i = 0; i < pt->nb_items; i++) {
		const struct rte_flow_item *ti = &pt->items[i];

		if (pattern[i].type != ti->type)
			return rte_flow_error_set(err, EINVAL, RTE_FLOW_ERROR_TYPE_ITEM,
				&pattern[i], pattern[i].type == RTE_FLOW_ITEM_TYPE_END ?
				"rule pattern shorter than its template" :
				"rule item type differs from its template");
		out[i].type = ti->type;
		out[i].last = NULL;
		out[i].mask = ti->mask;
		out[i].spec = ti->mask != NULL ? pattern[i].spec : NULL;
		if (ti->mask != NULL && pattern[i].spec == NULL)
			return rte_flow_error_set(err, EINVAL, RTE_FLOW_ERROR_TYPE_ITEM_SPEC,
				&pattern[i], "the template matches fields of this item: the rule needs its spec");
	}
	if (pattern[i].type != RTE_FLOW_ITEM_TYPE_END)
		return rte_flow_error_set(err, EINVAL, RTE_FLOW_ERROR_TYPE_ITEM,
					   &pattern[i], "rule pattern longer than its template");
	out[i].type = RTE_FLOW_ITEM_TYPE_END;
	return 0;
}

/* The rule's actions: the template's constant confs, the rule's others. */
static int
rule_actions(const struct rte_flow_actions_template *at,
	     const struct rte_flow_action actions[], struct rte_flow_action *out,
	     struct rte_flow_error *err)
{
	uint32_t i;

	for (i = 0; i < at->nb_actions; i++) {
		if (actions[i].type != at->actions[i].type)
			return rte_flow_error_set(err, EINVAL, RTE_FLOW_ERROR_TYPE_ACTION,
				&actions[i], actions[i].type == RTE_FLOW_ACTION_TYPE_END ?
				"rule actions shorter than their template" :
				"rule action type differs from its template");
		out[i].type = at->actions[i].type;
		out[i].conf = at->constant[i] ? at->actions[i].conf : actions[i].conf;
	}
	if (actions[i].type != RTE_FLOW_ACTION_TYPE_END)
		return rte_flow_error_set(err, EINVAL, RTE_FLOW_ERROR_TYPE_ACTION,
					   &actions[i], "rule actions longer than their template");
	out[i].type = RTE_FLOW_ACTION_TYPE_END;
	out[i].conf = NULL;
	return 0;
}

static struct rte_flow *
t_async_create(struct rte_eth_dev *dev, uint32_t queue,
	       const struct rte_flow_op_attr *oa, struct rte_flow_template_table *tbp,
	       const struct rte_flow_item pattern[], uint8_t pt_idx,
	       const struct rte_flow_action actions[], uint8_t at_idx,
	       void *user_data, struct rte_flow_error *err)
{
	struct tally_flow_ctx *fc = tmpl_fc(dev, err);
	struct rte_flow_item items[TALLY_TMPL_MAX_ITEMS + 1];
	struct rte_flow_action acts[TALLY_TMPL_MAX_ACTIONS + 1];
	struct rte_flow_template_table *tb;
	struct tally_flow_queue *q;
	struct rte_flow_error e2;
	struct rte_flow *flow = NULL;

	RTE_SET_USED(oa);	/* postpone: operations run at enqueue anyway */
	if (fc == NULL)
		return NULL;
	pthread_mutex_lock(&fc->lock);
	q = queue_of(fc, queue, err);
	if (q == NULL)
		goto out;
	tb = table_check(fc->tmpl, tbp);
	if (tb == NULL) {
		rte_flow_error_set(err, EINVAL, RTE_FLOW_ERROR_TYPE_UNSPECIFIED, tbp,
				   "no such template table");
		goto out;
	}
	if (pt_idx >= tb->nb_pt || at_idx >= tb->nb_at) {
		rte_flow_error_set(err, EINVAL, RTE_FLOW_ERROR_TYPE_UNSPECIFIED, NULL,
				   "template index beyond the table's templates");
		goto out;
	}
	if (queue_full(q)) {
		rte_flow_error_set(err, EAGAIN, RTE_FLOW_ERROR_TYPE_STATE, NULL,
				   "flow queue full: pull results first");
		goto out;
	}
	if (pattern == NULL || actions == NULL) {
		rte_flow_error_set(err, EINVAL, RTE_FLOW_ERROR_TYPE_UNSPECIFIED, NULL,
				   "NULL pattern or actions");
		goto out;
	}
	if (rule_pattern(tb->pt[pt_idx], pattern, items, err) != 0 ||
	    rule_actions(tb->at[at_idx], actions, acts, err) != 0)
		goto out;
	if (tb->nb_rules >= tb->nb_flows) {
		/* the table is full: a rejected operation */
		queue_post(q, RTE_FLOW_OP_ERROR, user_data);
		flow = &q->failed;
		goto out;
	}
	flow = tally_flow_create_locked(dev, fc, &tb->attr, items, acts,
					(uint16_t)queue, &e2);
	if (flow == NULL) {
		/* rejected by the engine: an error result, no state */
		TALLY_FLOW_LOG(DEBUG, "queue %u: create rejected: %s", queue,
			       e2.message ? e2.message : "?");
		queue_post(q, RTE_FLOW_OP_ERROR, user_data);
		flow = &q->failed;
		goto out;
	}
	flow->tbl_id = (uint16_t)(tb->id + 1);
	tb->nb_rules++;
	queue_post(q, RTE_FLOW_OP_SUCCESS, user_data);
out:
	pthread_mutex_unlock(&fc->lock);
	return flow;
}

static int
t_async_destroy(struct rte_eth_dev *dev, uint32_t queue,
		const struct rte_flow_op_attr *oa, struct rte_flow *flow,
		void *user_data, struct rte_flow_error *err)
{
	struct tally_flow_ctx *fc = tmpl_fc(dev, err);
	struct tally_flow_queue *q;
	int ret = 0;

	RTE_SET_USED(oa);
	if (fc == NULL)
		return -EIO;
	pthread_mutex_lock(&fc->lock);
	q = queue_of(fc, queue, err);
	if (q == NULL) {
		ret = -rte_errno;
		goto out;
	}
	if (!tally_flow_live(dev, flow)) {
		ret = rte_flow_error_set(err, EINVAL, RTE_FLOW_ERROR_TYPE_HANDLE, flow,
					  "no such flow on this port (destroyed, or never created)");
		goto out;
	}
	if (queue_full(q)) {
		ret = rte_flow_error_set(err, EAGAIN, RTE_FLOW_ERROR_TYPE_STATE, NULL,
					  "flow queue full: pull results first");
		goto out;
	}
	tally_flow_destroy_locked(fc, flow);
	/* the result is released once the device is past the rule */
	q->fence_ticket = tally_fence_ticket(&fc->fence);
	tally_fence_request(&fc->fence);
	q->fence_pending = true;
	queue_post(q, RTE_FLOW_OP_SUCCESS, user_data);
out:
	pthread_mutex_unlock(&fc->lock);
	return ret;
}

static int
t_push(struct rte_eth_dev *dev, uint32_t queue, struct rte_flow_error *err)
{
	struct tally_flow_ctx *fc = tmpl_fc(dev, err);
	int ret = 0;

	if (fc == NULL)
		return -EIO;
	pthread_mutex_lock(&fc->lock);
	if (queue_of(fc, queue, err) == NULL)
		ret = -rte_errno;
	pthread_mutex_unlock(&fc->lock);
	return ret;
}

static int
t_pull(struct rte_eth_dev *dev, uint32_t queue, struct rte_flow_op_result res[],
       uint16_t n_res, struct rte_flow_error *err)
{
	struct tally_flow_ctx *fc = tmpl_fc(dev, err);
	struct tally_flow_queue *q;
	uint32_t ticket = 0, limit;
	bool wait = false;
	int n = 0;

	if (fc == NULL)
		return -EIO;
	if (res == NULL && n_res != 0)
		return rte_flow_error_set(err, EINVAL, RTE_FLOW_ERROR_TYPE_UNSPECIFIED,
					   NULL, "NULL result array");
	pthread_mutex_lock(&fc->lock);
	q = queue_of(fc, queue, err);
	if (q == NULL) {
		pthread_mutex_unlock(&fc->lock);
		return -rte_errno;
	}
	if (q->fence_pending) {
		wait = true;
		ticket = q->fence_ticket;
	}
	pthread_mutex_unlock(&fc->lock);
	/* destroy results: the device must be past the rules first */
	if (wait && tally_fence_wait(&fc->fence, ticket, TALLY_FLOW_SYNC_US) != 0)
		return rte_flow_error_set(err, EIO, RTE_FLOW_ERROR_TYPE_STATE, NULL,
					   "device fence timed out");
	pthread_mutex_lock(&fc->lock);
	if (wait && q->fence_ticket == ticket)
		q->fence_pending = false;
	/* the queue's owner is this thread: nothing was enqueued meanwhile */
	limit = q->tail;
	while (q->head != limit && n < n_res) {
		res[n++] = q->res[q->head % q->size];
		q->head++;
	}
	pthread_mutex_unlock(&fc->lock);
	return n;
}

/* ---- indirect actions through a queue ------------------------------------------- */

static struct rte_flow_action_handle *
t_ah_create(struct rte_eth_dev *dev, uint32_t queue, const struct rte_flow_op_attr *oa,
	    const struct rte_flow_indir_action_conf *conf,
	    const struct rte_flow_action *action, void *user_data,
	    struct rte_flow_error *err)
{
	struct tally_flow_ctx *fc = tmpl_fc(dev, err);
	struct rte_flow_action_handle *h;
	struct tally_flow_queue *q;

	RTE_SET_USED(oa);
	if (fc == NULL)
		return NULL;
	pthread_mutex_lock(&fc->lock);
	q = queue_of(fc, queue, err);
	if (q != NULL && queue_full(q)) {
		rte_flow_error_set(err, EAGAIN, RTE_FLOW_ERROR_TYPE_STATE, NULL,
				   "flow queue full: pull results first");
		q = NULL;
	}
	pthread_mutex_unlock(&fc->lock);
	if (q == NULL)
		return NULL;
	h = tally_flow_handle_create(dev, conf, action, err);
	if (h == NULL)
		return NULL;
	pthread_mutex_lock(&fc->lock);
	queue_post(q, RTE_FLOW_OP_SUCCESS, user_data);
	pthread_mutex_unlock(&fc->lock);
	return h;
}

/* Run a handle operation through queue: the call's own error when it is
 * refused at once, else its result enqueued. */
enum ah_op { AH_DESTROY, AH_UPDATE, AH_QUERY };

static int
ah_queued(struct rte_eth_dev *dev, uint32_t queue, enum ah_op op,
	  struct rte_flow_action_handle *h, const void *arg, void *data,
	  void *user_data, struct rte_flow_error *err)
{
	struct tally_flow_ctx *fc = tmpl_fc(dev, err);
	struct tally_flow_queue *q;
	int ret;

	if (fc == NULL)
		return -EIO;
	pthread_mutex_lock(&fc->lock);
	q = queue_of(fc, queue, err);
	if (q != NULL && queue_full(q)) {
		rte_flow_error_set(err, EAGAIN, RTE_FLOW_ERROR_TYPE_STATE, NULL,
				   "flow queue full: pull results first");
		q = NULL;
	}
	pthread_mutex_unlock(&fc->lock);
	if (q == NULL)
		return -rte_errno;
	switch (op) {
	case AH_DESTROY:
		ret = tally_flow_handle_destroy(dev, h, err);
		break;
	case AH_UPDATE:
		ret = tally_flow_handle_update(dev, h, arg, err);
		break;
	default:
		ret = tally_flow_handle_query(dev, h, data, err);
		break;
	}
	if (ret != 0)
		return ret;
	pthread_mutex_lock(&fc->lock);
	queue_post(q, RTE_FLOW_OP_SUCCESS, user_data);
	pthread_mutex_unlock(&fc->lock);
	return 0;
}

static int
t_ah_destroy(struct rte_eth_dev *dev, uint32_t queue, const struct rte_flow_op_attr *oa,
	     struct rte_flow_action_handle *h, void *user_data, struct rte_flow_error *err)
{
	RTE_SET_USED(oa);
	return ah_queued(dev, queue, AH_DESTROY, h, NULL, NULL, user_data, err);
}

static int
t_ah_update(struct rte_eth_dev *dev, uint32_t queue, const struct rte_flow_op_attr *oa,
	    struct rte_flow_action_handle *h, const void *update, void *user_data,
	    struct rte_flow_error *err)
{
	RTE_SET_USED(oa);
	return ah_queued(dev, queue, AH_UPDATE, h, update, NULL, user_data, err);
}

static int
t_ah_query(struct rte_eth_dev *dev, uint32_t queue, const struct rte_flow_op_attr *oa,
	   const struct rte_flow_action_handle *h, void *data, void *user_data,
	   struct rte_flow_error *err)
{
	RTE_SET_USED(oa);
	return ah_queued(dev, queue, AH_QUERY, (struct rte_flow_action_handle *)(uintptr_t)h,
			 NULL, data, user_data, err);
}

/* ---- life cycle -------------------------------------------------------------------- */

bool
tally_flow_tmpl_strict(const struct tally_flow_ctx *fc)
{
	return fc->tmpl != NULL && (fc->tmpl->flags & RTE_FLOW_PORT_FLAG_STRICT_QUEUE);
}

void
tally_flow_tmpl_fini(struct tally_flow_ctx *fc)
{
	struct tally_flow_tmpl *t = fc->tmpl;
	struct rte_flow_template_table *tb;
	struct rte_flow_pattern_template *pt;
	struct rte_flow_actions_template *at;

	if (t == NULL)
		return;
	pthread_mutex_lock(&fc->lock);
	while ((tb = TAILQ_FIRST(&t->tables)) != NULL) {
		TAILQ_REMOVE(&t->tables, tb, next);
		table_release(fc, tb);
	}
	while ((pt = TAILQ_FIRST(&t->pts)) != NULL) {
		TAILQ_REMOVE(&t->pts, pt, next);
		rte_free(pt);
	}
	while ((at = TAILQ_FIRST(&t->ats)) != NULL) {
		TAILQ_REMOVE(&t->ats, at, next);
		rte_free(at);
	}
	queues_free(t);
	fc->tmpl = NULL;
	pthread_mutex_unlock(&fc->lock);
	rte_free(t);
}

/* The async fast path: in rte_flow_ops on 22.11, a table of its own on 24.x. */
static tally_flow_fp_ops_t tally_flow_fp_ops;

void
tally_flow_async_ops_fill(struct rte_flow_ops *ops)
{
	tally_flow_fp_ops_t *fp = tally_compat_flow_fp_table(ops, &tally_flow_fp_ops);

	ops->info_get = t_info_get;
	ops->configure = t_configure;
	ops->pattern_template_create = t_pt_create;
	ops->pattern_template_destroy = t_pt_destroy;
	ops->actions_template_create = t_at_create;
	ops->actions_template_destroy = t_at_destroy;
	ops->template_table_create = t_table_create;
	ops->template_table_destroy = t_table_destroy;
	fp->async_create = t_async_create;
	fp->async_destroy = t_async_destroy;
	fp->push = t_push;
	fp->pull = t_pull;
	fp->async_action_handle_create = t_ah_create;
	fp->async_action_handle_destroy = t_ah_destroy;
	fp->async_action_handle_update = t_ah_update;
	fp->async_action_handle_query = t_ah_query;
}

void
tally_flow_async_attach(struct rte_eth_dev *dev)
{
	tally_compat_flow_fp_attach(dev, &tally_flow_fp_ops);
}
