/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Pattern templates, actions templates and template tables (see
 * tally_flow_async.c for the design of template tables and flow queues).
 */
#include <stdlib.h>
#include <string.h>

#include <rte_malloc.h>

#include "tally_compat.h"
#include "tally_flow_tmpl.h"
#include "tally_logs.h"

/* The templates and tables live until port close; create them on demand. */
struct tally_flow_tmpl *
tally_tmpl_get(struct tally_flow_ctx *fc)
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

/* ---- pattern templates ---------------------------------------------------------- */

struct rte_flow_pattern_template *
tally_flow_pt_create(struct rte_eth_dev *dev, const struct rte_flow_pattern_template_attr *a,
		     const struct rte_flow_item pattern[], struct rte_flow_error *err)
{
	struct tally_flow_ctx *fc = tally_tmpl_fc(dev, err);
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
				   "templates are ingress only (transfer rules: rte_flow_create)");
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
	for (i = 0; i <= n; i++) {
		pt->type[i] = (uint32_t)pt->items[i].type;
		if (i < n && pt->items[i].mask != NULL)
			pt->spec_needed |= 1u << i;
	}
	pt->mask = m.mask;
	pt->magic = TALLY_PT_MAGIC;
	tally_lock(&fc->lock);
	t = tally_tmpl_get(fc);
	if (t == NULL) {
		tally_unlock(&fc->lock);
		rte_free(pt);
		rte_flow_error_set(err, ENOMEM, RTE_FLOW_ERROR_TYPE_UNSPECIFIED, NULL,
				   "no memory for the template");
		return NULL;
	}
	TAILQ_INSERT_TAIL(&t->pts, pt, next);
	tally_unlock(&fc->lock);
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

int
tally_flow_pt_destroy(struct rte_eth_dev *dev, struct rte_flow_pattern_template *ptp,
		      struct rte_flow_error *err)
{
	struct tally_flow_ctx *fc = tally_tmpl_fc(dev, err);
	struct rte_flow_pattern_template *pt;
	int ret = 0;

	if (fc == NULL)
		return -EIO;
	tally_lock(&fc->lock);
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
	tally_unlock(&fc->lock);
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
		if (!tally_flow_action_supported(actions[n].type))
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

struct rte_flow_actions_template *
tally_flow_at_create(struct rte_eth_dev *dev, const struct rte_flow_actions_template_attr *a,
		     const struct rte_flow_action actions[],
		     const struct rte_flow_action masks[], struct rte_flow_error *err)
{
	struct tally_flow_ctx *fc = tally_tmpl_fc(dev, err);
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
				   "templates are ingress only (transfer rules: rte_flow_create)");
		return NULL;
	}
	if (at_check_lists(dev, actions, masks, &n, err) != 0)
		return NULL;
	la = rte_flow_conv(RTE_FLOW_CONV_OP_ACTIONS, NULL, 0, actions, err);
	lm = rte_flow_conv(RTE_FLOW_CONV_OP_ACTIONS, NULL, 0, masks, err);
	if (la <= 0 || lm <= 0)
		return NULL;
	/* the mask list starts 8-byte aligned after the action list */
	at = rte_zmalloc("tally_at", sizeof(*at) + RTE_ALIGN_CEIL((size_t)la, 8) +
			 (size_t)lm, 8);
	if (at == NULL) {
		rte_flow_error_set(err, ENOMEM, RTE_FLOW_ERROR_TYPE_UNSPECIFIED, NULL,
				   "no memory for the template");
		return NULL;
	}
	at->actions = (struct rte_flow_action *)(at + 1);
	at->masks = (struct rte_flow_action *)((uint8_t *)at->actions +
					       RTE_ALIGN_CEIL((size_t)la, 8));
	if (rte_flow_conv(RTE_FLOW_CONV_OP_ACTIONS, at->actions, (size_t)la,
			  actions, err) != la ||
	    rte_flow_conv(RTE_FLOW_CONV_OP_ACTIONS, at->masks, (size_t)lm,
			  masks, err) != lm) {
		rte_free(at);
		return NULL;
	}
	at->nb_actions = n;
	for (i = 0; i <= n; i++)
		at->type[i] = (uint32_t)at->actions[i].type;
	for (i = 0; i < n; i++)
		at->constant[i] = at->actions[i].type == RTE_FLOW_ACTION_TYPE_INDIRECT ?
				  at->actions[i].conf != NULL :
				  at->actions[i].conf != NULL && mask_set(&at->masks[i]);
	tally_act_prog_compile(at, &at->prog);
	at->magic = TALLY_AT_MAGIC;
	tally_lock(&fc->lock);
	t = tally_tmpl_get(fc);
	if (t == NULL) {
		tally_unlock(&fc->lock);
		rte_free(at);
		rte_flow_error_set(err, ENOMEM, RTE_FLOW_ERROR_TYPE_UNSPECIFIED, NULL,
				   "no memory for the template");
		return NULL;
	}
	TAILQ_INSERT_TAIL(&t->ats, at, next);
	tally_unlock(&fc->lock);
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

int
tally_flow_at_destroy(struct rte_eth_dev *dev, struct rte_flow_actions_template *atp,
		      struct rte_flow_error *err)
{
	struct tally_flow_ctx *fc = tally_tmpl_fc(dev, err);
	struct rte_flow_actions_template *at;
	int ret = 0;

	if (fc == NULL)
		return -EIO;
	tally_lock(&fc->lock);
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
	tally_unlock(&fc->lock);
	return ret;
}

int
tally_tmpl_spare_room(struct tally_flow_tmpl *t, uint32_t n)
{
	uint32_t cap = RTE_MAX(n, t->spare_cap + t->spare_cap / 2);
	struct rte_flow **a;

	if (n <= t->spare_cap)
		return 0;
	/* half again at least: objects given back one at a time do not
	 * copy the array each time */
	a = rte_realloc(t->spare, (size_t)cap * sizeof(*a), 0);
	if (a == NULL && cap > n)
		a = rte_realloc(t->spare, (size_t)(cap = n) * sizeof(*a), 0);
	if (a == NULL)
		return -ENOMEM;
	t->spare = a;
	t->spare_cap = cap;
	return 0;
}

/*
 * Allocate flow objects ahead: at a table's creation, n for its rules and
 * one for each rule the other tables still have room for, so that creating
 * the rules of all of them touches no new memory (the spare objects are the
 * port's, taken by any table's creates). Without room for that many
 * pointers, as many as fit: later creates allocate theirs.
 */
static void
spare_fill(struct tally_flow_ctx *fc, uint32_t n)
{
	struct tally_flow_tmpl *t = fc->tmpl;
	const struct rte_flow_template_table *tb;
	uint64_t want = n;
	struct rte_flow *f;

	TAILQ_FOREACH(tb, &t->tables, next)
		want += tb->nb_flows - RTE_MIN(*tb->nb_rules, tb->nb_flows);
	want = RTE_MIN(want, (uint64_t)UINT32_MAX);
	(void)tally_tmpl_spare_room(t, (uint32_t)want);
	while (t->nspare < RTE_MIN(want, t->spare_cap) && (f = tally_flow_obj_get(fc)) != NULL)
		t->spare[t->nspare++] = f;
}

/* Creates on tb enqueued but not run yet, in any queue. */
static bool
table_pending(const struct tally_flow_tmpl *t, const struct rte_flow_template_table *tb)
{
	uint32_t i, j;

	for (i = 0; t->q != NULL && i < t->nb_queues; i++)
		for (j = 0; j < t->q[i].npend; j++)
			if ((t->q[i].pend[j].op == TALLY_FQ_CREATE ||
			     t->q[i].pend[j].op == TALLY_FQ_CREATE_ENC) &&
			    t->q[i].pend[j].tb == tb)
				return true;
	return false;
}

/* ---- template tables ---------------------------------------------------------- */

static void
table_release(struct tally_flow_ctx *fc, struct rte_flow_template_table *tb)
{
	uint8_t i;

	for (i = 0; i < tb->nb_pt; i++) {
		rte_free(tb->kp[i]);
		tb->kp[i] = NULL;
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
					   &ta->flow_attr,
					   "tables are ingress only (transfer rules: rte_flow_create)");
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

struct rte_flow_template_table *
tally_flow_table_create(struct rte_eth_dev *dev, const struct rte_flow_template_table_attr *ta,
			struct rte_flow_pattern_template *pts[], uint8_t nb_pt,
			struct rte_flow_actions_template *ats[], uint8_t nb_at,
			struct rte_flow_error *err)
{
	struct tally_flow_ctx *fc = tally_tmpl_fc(dev, err);
	struct tally_adapter *ad = tally_adapter(dev);
	struct rte_flow_template_table *tb = NULL;
	struct tally_flow_tmpl *t;
	uint32_t id;
	uint8_t i;
	int ret;

	if (fc == NULL || table_check_attr(ta, nb_pt, nb_at, err) != 0)
		return NULL;
	tally_lock(&fc->lock);
	t = tally_tmpl_get(fc);
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
	tb->nb_rules = &fc->tbl_rules[id];
	*tb->nb_rules = 0;
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
		    (ret = tally_steer_matcher_reserve_locked(tb->fm[i]->m,
							      ta->nb_flows)) != 0) {
			rte_flow_error_set(err, -ret, RTE_FLOW_ERROR_TYPE_UNSPECIFIED, ta,
					   ret == -ENOSPC ? "rule count beyond the largest hash array" :
					   "steering resources for the table");
			table_release(fc, tb);
			tb = NULL;
			goto fail;
		}
		tb->kp[i] = tally_key_prog_compile(pts[i], tb->fm[i]->m);
		if (tb->kp[i] != NULL)
			TALLY_FLOW_LOG(DEBUG, "table %u, pattern template %u: key builder of %u words, %u operations",
				       id, i, tb->kp[i]->nwords, tb->kp[i]->nops);
		else
			TALLY_FLOW_LOG(DEBUG, "table %u, pattern template %u: rules are parsed",
				       id, i);
	}
	/* the table's flow objects, allocated and touched now */
	spare_fill(fc, ta->nb_flows);
	tb->magic = TALLY_TBL_MAGIC;
	TAILQ_INSERT_TAIL(&t->tables, tb, next);
	tally_unlock(&fc->lock);
	return tb;
fail:
	tally_unlock(&fc->lock);
	return NULL;
}

int
tally_flow_table_destroy(struct rte_eth_dev *dev, struct rte_flow_template_table *tbp,
			 struct rte_flow_error *err)
{
	struct tally_flow_ctx *fc = tally_tmpl_fc(dev, err);
	struct rte_flow_template_table *tb;
	int ret = 0;

	if (fc == NULL)
		return -EIO;
	tally_lock(&fc->lock);
	tb = tally_tmpl_table_check(fc->tmpl, tbp);
	if (tb == NULL)
		ret = rte_flow_error_set(err, EINVAL, RTE_FLOW_ERROR_TYPE_UNSPECIFIED,
					  tbp, "no such template table");
	else if (*tb->nb_rules != 0)
		ret = rte_flow_error_set(err, EBUSY, RTE_FLOW_ERROR_TYPE_UNSPECIFIED,
					  tbp, "template table still holds rules");
	else if (table_pending(fc->tmpl, tb))
		ret = rte_flow_error_set(err, EBUSY, RTE_FLOW_ERROR_TYPE_UNSPECIFIED,
					  tbp, "operations on the table are still enqueued: push first");
	else {
		TAILQ_REMOVE(&fc->tmpl->tables, tb, next);
		table_release(fc, tb);
	}
	tally_unlock(&fc->lock);
	return ret;
}

void
tally_tmpl_release_all(struct tally_flow_ctx *fc)
{
	struct tally_flow_tmpl *t = fc->tmpl;
	struct rte_flow_template_table *tb;
	struct rte_flow_pattern_template *pt;
	struct rte_flow_actions_template *at;

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
}
