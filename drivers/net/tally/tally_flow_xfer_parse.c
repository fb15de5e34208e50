/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Checking a transfer rule (tally_flow_xfer.c has the engine): attributes,
 * the traffic source items and the rest of the pattern through the port
 * parser, and the actions of the switch - the ACTION( table below, which
 * devtools/check-flow-doc.sh reads with the parser's. Reads its input and
 * writes its output only.
 */
#include <string.h>

#include <rte_flow_driver.h>

#include "tally_pmd.h"
#include "tally_flow.h"
#include "tally_flow_priv.h"

#define XFER_MAX_ITEMS		32	/* pattern items, END included */

/* The traffic source items; the rest of a pattern goes through the port
 * parser (devtools/check-flow-doc.sh reads this table with the parser's). */
#define ITEM(TYPE, name)	[RTE_FLOW_ITEM_TYPE_##TYPE] = #name
static const char *const xfer_source_items[] = {
	ITEM(PORT_ID, port_id),
	ITEM(REPRESENTED_PORT, represented_port),
	ITEM(PORT_REPRESENTOR, port_representor),
};
#undef ITEM

static int
xfer_attr(const struct rte_flow_attr *attr, struct rte_flow_error *error)
{
	if (attr == NULL)
		return rte_flow_error_set(error, EINVAL, RTE_FLOW_ERROR_TYPE_ATTR, NULL,
					  "NULL attributes");
	/* as ethdev's validate says it (its create does not check) */
	if (attr->ingress || attr->egress)
		return rte_flow_error_set(error, EINVAL, RTE_FLOW_ERROR_TYPE_ATTR, attr,
			"ingress and egress mean nothing in a transfer rule: name the traffic "
			"source with a port_id or represented_port item");
	if (attr->group >= TALLY_FLOW_GROUPS)
		return rte_flow_error_set(error, ENOTSUP, RTE_FLOW_ERROR_TYPE_ATTR_GROUP,
					  attr, "group beyond the device's table count");
	if (attr->priority > 0xffff)
		return rte_flow_error_set(error, ENOTSUP, RTE_FLOW_ERROR_TYPE_ATTR_PRIORITY,
					  attr, "priority above 65535");
	return 0;
}

/* The index in dev's device of ethdev port_id, or -1 with error set. */
static int
xfer_port(struct rte_eth_dev *dev, uint32_t port_id, enum rte_flow_error_type type,
	  const void *cause, struct rte_flow_error *error)
{
	int idx = port_id < RTE_MAX_ETHPORTS ?
		  tally_switch_index_of(tally_adapter(dev), (uint16_t)port_id) : -1;

	if (idx < 0) {
		rte_flow_error_set(error, EINVAL, type, cause,
				   "not a port of this device's switch");
		return -1;
	}
	return idx;
}

/* A traffic source item: *src the source_port value (a port's index for its
 * wire, with TALLY_SOURCE_PORT_HOST for what its host transmits), -1 for any
 * source. */
static int
item_source(struct rte_eth_dev *dev, const struct rte_flow_item *it, int *src,
	    struct rte_flow_error *error)
{
	uint32_t id, mask, full;

	if (it->last != NULL)
		return rte_flow_error_set(error, ENOTSUP, RTE_FLOW_ERROR_TYPE_ITEM_LAST, it,
					  "no range on a traffic source");
	if (it->spec == NULL) {
		*src = -1;
		return 0;
	}
	if (it->type == RTE_FLOW_ITEM_TYPE_PORT_ID) {
		const struct rte_flow_item_port_id *s = it->spec, *m = it->mask;

		id = s->id;
		mask = m != NULL ? m->id : rte_flow_item_port_id_mask.id;
		full = UINT32_MAX;
	} else {
		const struct rte_flow_item_ethdev *s = it->spec, *m = it->mask;

		id = s->port_id;
		mask = m != NULL ? m->port_id : rte_flow_item_ethdev_mask.port_id;
		full = UINT16_MAX;
	}
	if (mask == 0) {
		*src = -1;
		return 0;
	}
	if (mask != full)
		return rte_flow_error_set(error, ENOTSUP, RTE_FLOW_ERROR_TYPE_ITEM_MASK, it,
					  "a traffic source matches one port or any");
	*src = xfer_port(dev, id, RTE_FLOW_ERROR_TYPE_ITEM_SPEC, it, error);
	if (*src < 0)
		return -rte_errno;
	if (it->type == RTE_FLOW_ITEM_TYPE_PORT_REPRESENTOR)
		*src |= TALLY_SOURCE_PORT_HOST;	/* what the ethdev transmits */
	return 0;
}

/* The pattern: its traffic source into the key's source_port, the rest
 * through the port parser. */
static int
xfer_pattern(struct rte_eth_dev *dev, const struct rte_flow_item pattern[],
	     struct tally_xfer_rule *r, struct rte_flow_error *error)
{
	struct rte_flow_item items[XFER_MAX_ITEMS];
	const struct rte_flow_item *source = NULL;
	int src = tally_adapter(dev)->sw_port;	/* the implicit source */
	uint32_t n = 0, i;
	int ret;

	if (pattern == NULL)
		return rte_flow_error_set(error, EINVAL, RTE_FLOW_ERROR_TYPE_ITEM_NUM, NULL,
					  "NULL pattern");
	for (i = 0;; i++) {
		const struct rte_flow_item *it = &pattern[i];

		if ((unsigned int)it->type < RTE_DIM(xfer_source_items) &&
		    xfer_source_items[it->type] != NULL) {
			if (source != NULL)
				return rte_flow_error_set(error, ENOTSUP,
					RTE_FLOW_ERROR_TYPE_ITEM, it,
					"one traffic source item per rule");
			source = it;
			ret = item_source(dev, it, &src, error);
			if (ret != 0)
				return ret;
			continue;
		}
		if (n == XFER_MAX_ITEMS)
			return rte_flow_error_set(error, ENOTSUP, RTE_FLOW_ERROR_TYPE_ITEM_NUM,
						  it, "too many items in a transfer rule");
		items[n++] = *it;
		if (it->type == RTE_FLOW_ITEM_TYPE_END)
			break;
	}
	ret = tally_flow_parse_pattern(items, &r->m, error);
	if (ret != 0) {
		/* the cause points into the copy: point it at the caller's item */
		if (error != NULL && error->cause >= (const void *)items &&
		    error->cause < (const void *)&items[n]) {
			uint32_t k = (uint32_t)((const struct rte_flow_item *)error->cause - items);

			for (i = 0;; i++) {
				if ((unsigned int)pattern[i].type < RTE_DIM(xfer_source_items) &&
				    xfer_source_items[pattern[i].type] != NULL)
					continue;
				if (k-- == 0)
					break;
			}
			error->cause = &pattern[i];
		}
		return ret;
	}
	if (src >= 0) {
		uint8_t *mk = &r->m.mask.b[TALLY_MS_OFF(TALLY_MS_MISC) + TALLY_MISC_SOURCE_PORT];
		uint8_t *vk = &r->m.value.b[TALLY_MS_OFF(TALLY_MS_MISC) + TALLY_MISC_SOURCE_PORT];

		mk[0] = 0xff;
		mk[1] = 0xff;
		vk[0] = (uint8_t)(src >> 8);
		vk[1] = (uint8_t)src;
		r->m.criteria |= 1u << TALLY_MS_MISC;
	}
	return 0;
}

typedef int (*xfer_action_fn)(struct rte_eth_dev *dev, const struct rte_flow_attr *attr,
			      struct tally_xfer_rule *r, const struct rte_flow_action *act,
			      struct rte_flow_error *error);

static int
act_void(struct rte_eth_dev *dev, const struct rte_flow_attr *attr, struct tally_xfer_rule *r,
	 const struct rte_flow_action *act, struct rte_flow_error *error)
{
	RTE_SET_USED(dev);
	RTE_SET_USED(attr);
	RTE_SET_USED(r);
	RTE_SET_USED(act);
	RTE_SET_USED(error);
	return 0;
}

static int
act_count(struct rte_eth_dev *dev, const struct rte_flow_attr *attr, struct tally_xfer_rule *r,
	  const struct rte_flow_action *act, struct rte_flow_error *error)
{
	RTE_SET_USED(dev);
	RTE_SET_USED(attr);
	if (r->count != NULL)
		return rte_flow_error_set(error, ENOTSUP, RTE_FLOW_ERROR_TYPE_ACTION, act,
					  "one count (inline or indirect) per rule");
	if (act->type == RTE_FLOW_ACTION_TYPE_INDIRECT) {
		if (act->conf == NULL)
			return rte_flow_error_set(error, EINVAL,
				RTE_FLOW_ERROR_TYPE_ACTION_CONF, act,
				"indirect action needs a handle");
		r->indirect = act;
	}
	r->count = act;
	r->act.flags |= TALLY_STEER_A_COUNT;
	return 0;
}

static int
set_fate(struct tally_xfer_rule *r, const struct rte_flow_action *act,
	 enum tally_steer_fate fate, uint32_t arg, struct rte_flow_error *error)
{
	if (r->fate != NULL)
		return rte_flow_error_set(error, ENOTSUP, RTE_FLOW_ERROR_TYPE_ACTION, act,
			"one fate per transfer rule: drop, jump, passthru or one port");
	r->fate = act;
	r->act.fate = fate;
	r->act.arg = arg;
	return 0;
}

static int
act_drop(struct rte_eth_dev *dev, const struct rte_flow_attr *attr, struct tally_xfer_rule *r,
	 const struct rte_flow_action *act, struct rte_flow_error *error)
{
	RTE_SET_USED(dev);
	RTE_SET_USED(attr);
	return set_fate(r, act, act->type == RTE_FLOW_ACTION_TYPE_DROP ?
			TALLY_STEER_FATE_DROP : TALLY_STEER_FATE_PASSTHRU, 0, error);
}

static int
act_jump(struct rte_eth_dev *dev, const struct rte_flow_attr *attr, struct tally_xfer_rule *r,
	 const struct rte_flow_action *act, struct rte_flow_error *error)
{
	const struct rte_flow_action_jump *j = act->conf;

	RTE_SET_USED(dev);
	if (j == NULL)
		return rte_flow_error_set(error, EINVAL, RTE_FLOW_ERROR_TYPE_ACTION_CONF,
					  act, "jump needs a group");
	if (j->group >= TALLY_FLOW_GROUPS)
		return rte_flow_error_set(error, ENOTSUP, RTE_FLOW_ERROR_TYPE_ACTION_CONF,
					  act, "group beyond the device's table count");
	if (j->group == attr->group)
		return rte_flow_error_set(error, EINVAL, RTE_FLOW_ERROR_TYPE_ACTION, act,
					  "jump to the rule's own group would loop");
	return set_fate(r, act, TALLY_STEER_FATE_JUMP, j->group, error);
}

/* port_id and represented_port: the port's wire; port_representor: its
 * receive pipeline (queues). */
static int
act_port(struct rte_eth_dev *dev, const struct rte_flow_attr *attr, struct tally_xfer_rule *r,
	 const struct rte_flow_action *act, struct rte_flow_error *error)
{
	uint32_t id, host = 0;
	int idx;

	RTE_SET_USED(attr);
	if (act->conf == NULL)
		return rte_flow_error_set(error, EINVAL, RTE_FLOW_ERROR_TYPE_ACTION_CONF,
					  act, "a port action needs a port");
	if (act->type == RTE_FLOW_ACTION_TYPE_PORT_ID) {
		const struct rte_flow_action_port_id *p = act->conf;

		id = p->original ? dev->data->port_id : p->id;
	} else {
		const struct rte_flow_action_ethdev *p = act->conf;

		id = p->port_id;
		if (act->type == RTE_FLOW_ACTION_TYPE_PORT_REPRESENTOR)
			host = TALLY_STEER_PORT_HOST;
	}
	idx = xfer_port(dev, id, RTE_FLOW_ERROR_TYPE_ACTION_CONF, act, error);
	if (idx < 0)
		return -rte_errno;
	r->dest = (uint32_t)idx | host;
	r->has_dest = true;
	return set_fate(r, act, TALLY_STEER_FATE_PORT, r->dest, error);
}

/* An edit: only in the order the device applies them (pop, push, set VID
 * and PCP; MAC edits anywhere), each once. */
static int
edit_add(struct tally_xfer_rule *r, const struct rte_flow_action *act, uint32_t flag,
	 uint32_t before, struct rte_flow_error *error)
{
	if (r->set.flags & flag)
		return rte_flow_error_set(error, ENOTSUP, RTE_FLOW_ERROR_TYPE_ACTION, act,
					  "each header edit once per rule");
	if (r->set.flags & before)
		return rte_flow_error_set(error, ENOTSUP, RTE_FLOW_ERROR_TYPE_ACTION, act,
			"VLAN edits go in the order the device applies them: "
			"of_pop_vlan, of_push_vlan, of_set_vlan_vid / of_set_vlan_pcp");
	r->set.flags |= flag;
	if (r->edit == NULL)
		r->edit = act;
	return 0;
}

static int
act_vlan(struct rte_eth_dev *dev, const struct rte_flow_attr *attr, struct tally_xfer_rule *r,
	 const struct rte_flow_action *act, struct rte_flow_error *error)
{
	const uint32_t later = TALLY_SWACT_PUSH_VLAN | TALLY_SWACT_SET_VID |
			       TALLY_SWACT_SET_PCP;

	RTE_SET_USED(dev);
	RTE_SET_USED(attr);
	switch (act->type) {
	case RTE_FLOW_ACTION_TYPE_OF_POP_VLAN:
		return edit_add(r, act, TALLY_SWACT_POP_VLAN, later, error);
	case RTE_FLOW_ACTION_TYPE_OF_PUSH_VLAN: {
		const struct rte_flow_action_of_push_vlan *p = act->conf;
		uint16_t tpid;

		if (p == NULL)
			return rte_flow_error_set(error, EINVAL, RTE_FLOW_ERROR_TYPE_ACTION_CONF,
						  act, "of_push_vlan needs an ethertype");
		tpid = rte_be_to_cpu_16(p->ethertype);
		if (tpid != RTE_ETHER_TYPE_VLAN && tpid != RTE_ETHER_TYPE_QINQ)
			return rte_flow_error_set(error, ENOTSUP, RTE_FLOW_ERROR_TYPE_ACTION_CONF,
						  act, "the device pushes 0x8100 and 0x88a8 tags");
		r->set.vlan_tpid = tpid;
		return edit_add(r, act, TALLY_SWACT_PUSH_VLAN,
				TALLY_SWACT_SET_VID | TALLY_SWACT_SET_PCP, error);
	}
	case RTE_FLOW_ACTION_TYPE_OF_SET_VLAN_VID: {
		const struct rte_flow_action_of_set_vlan_vid *v = act->conf;
		uint16_t vid;

		if (v == NULL)
			return rte_flow_error_set(error, EINVAL, RTE_FLOW_ERROR_TYPE_ACTION_CONF,
						  act, "of_set_vlan_vid needs a VID");
		vid = rte_be_to_cpu_16(v->vlan_vid);
		if (vid > 0xfff)
			return rte_flow_error_set(error, EINVAL, RTE_FLOW_ERROR_TYPE_ACTION_CONF,
						  act, "VID above 4095");
		r->set.vlan_tci = (uint16_t)((r->set.vlan_tci & 0xf000) | vid);
		r->vid = true;
		return edit_add(r, act, TALLY_SWACT_SET_VID, 0, error);
	}
	default: {	/* OF_SET_VLAN_PCP */
		const struct rte_flow_action_of_set_vlan_pcp *v = act->conf;

		if (v == NULL)
			return rte_flow_error_set(error, EINVAL, RTE_FLOW_ERROR_TYPE_ACTION_CONF,
						  act, "of_set_vlan_pcp needs a PCP");
		if (v->vlan_pcp > 7)
			return rte_flow_error_set(error, EINVAL, RTE_FLOW_ERROR_TYPE_ACTION_CONF,
						  act, "PCP above 7");
		r->set.vlan_tci = (uint16_t)((r->set.vlan_tci & 0x0fff) | (v->vlan_pcp << 13));
		r->pcp = true;
		return edit_add(r, act, TALLY_SWACT_SET_PCP, 0, error);
	}
	}
}

static int
act_mac(struct rte_eth_dev *dev, const struct rte_flow_attr *attr, struct tally_xfer_rule *r,
	const struct rte_flow_action *act, struct rte_flow_error *error)
{
	const struct rte_flow_action_set_mac *m = act->conf;
	bool src = act->type == RTE_FLOW_ACTION_TYPE_SET_MAC_SRC;

	RTE_SET_USED(dev);
	RTE_SET_USED(attr);
	if (m == NULL)
		return rte_flow_error_set(error, EINVAL, RTE_FLOW_ERROR_TYPE_ACTION_CONF, act,
					  "set_mac needs an address");
	memcpy(src ? r->set.smac : r->set.dmac, m->mac_addr, RTE_ETHER_ADDR_LEN);
	return edit_add(r, act, src ? TALLY_SWACT_SET_SMAC : TALLY_SWACT_SET_DMAC, 0, error);
}

/* The actions a transfer rule takes (doc/guides/nics/features/tally.ini
 * lists them with the port rules' ones; devtools/check-flow-doc.sh). */
#define ACTION(TYPE, fn)	[RTE_FLOW_ACTION_TYPE_##TYPE] = (fn)
static const xfer_action_fn xfer_actions[] = {
	ACTION(VOID, act_void),
	ACTION(COUNT, act_count),
	ACTION(INDIRECT, act_count),
	ACTION(DROP, act_drop),
	ACTION(PASSTHRU, act_drop),
	ACTION(JUMP, act_jump),
	ACTION(PORT_ID, act_port),
	ACTION(REPRESENTED_PORT, act_port),
	ACTION(PORT_REPRESENTOR, act_port),
	ACTION(OF_POP_VLAN, act_vlan),
	ACTION(OF_PUSH_VLAN, act_vlan),
	ACTION(OF_SET_VLAN_VID, act_vlan),
	ACTION(OF_SET_VLAN_PCP, act_vlan),
	ACTION(SET_MAC_SRC, act_mac),
	ACTION(SET_MAC_DST, act_mac),
};
#undef ACTION

static int
xfer_actions_check(struct rte_eth_dev *dev, const struct rte_flow_attr *attr,
		   const struct rte_flow_action actions[], struct tally_xfer_rule *r,
		   struct rte_flow_error *error)
{
	const struct rte_flow_action *act;
	int ret;

	if (actions == NULL)
		return rte_flow_error_set(error, EINVAL, RTE_FLOW_ERROR_TYPE_ACTION_NUM, NULL,
					  "NULL actions");
	for (act = actions; act->type != RTE_FLOW_ACTION_TYPE_END; act++) {
		if ((unsigned int)act->type >= RTE_DIM(xfer_actions) ||
		    xfer_actions[act->type] == NULL)
			return rte_flow_error_set(error, ENOTSUP, RTE_FLOW_ERROR_TYPE_ACTION, act,
				"not an action of transfer rules (count, drop, jump, passthru, "
				"port_id, represented_port, port_representor, VLAN and MAC edits)");
		ret = xfer_actions[act->type](dev, attr, r, act, error);
		if (ret != 0)
			return ret;
	}
	if (r->set.flags == 0)
		return 0;
	if (r->fate != NULL && !r->has_dest)
		return rte_flow_error_set(error, ENOTSUP, RTE_FLOW_ERROR_TYPE_ACTION, r->edit,
			"header edits take a port destination or none, not drop, jump or passthru");
	/* a pushed tag carries the VID and PCP set after it */
	if (r->set.flags & TALLY_SWACT_PUSH_VLAN)
		r->set.flags &= ~(uint32_t)(TALLY_SWACT_SET_VID | TALLY_SWACT_SET_PCP);
	if (r->has_dest) {
		r->set.flags |= TALLY_SWACT_FWD;
		r->set.port = r->dest;
	}
	r->act.fate = TALLY_STEER_FATE_SWACT;
	return 0;
}

int
tally_flow_xfer_check(struct rte_eth_dev *dev, struct tally_flow_ctx *fc,
	   const struct rte_flow_attr *attr, const struct rte_flow_item pattern[],
	   const struct rte_flow_action actions[], struct tally_xfer_rule *r,
	   struct rte_flow_error *error)
{
	int ret;

	memset(r, 0, sizeof(*r));
	ret = xfer_attr(attr, error);
	if (ret == 0)
		ret = xfer_pattern(dev, pattern, r, error);
	if (ret == 0)
		ret = xfer_actions_check(dev, attr, actions, r, error);
	if (ret == 0 && r->indirect != NULL &&
	    tally_flow_handle_check(fc, r->indirect->conf) == NULL)
		ret = rte_flow_error_set(error, EINVAL, RTE_FLOW_ERROR_TYPE_ACTION_CONF,
			r->indirect, "unknown indirect action handle (a transfer rule names "
			"an indirect count created on the transfer proxy, port 0 of the device)");
	return ret;
}

