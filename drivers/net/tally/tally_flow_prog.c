/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Precompiled rule builders of template tables (see tally_flow_tmpl.h).
 *
 * Key builder: compiled once per (table, pattern template) against the
 * table's steering matcher from the parser's own field placement: the
 * template parsed with zero specs gives the constant part of the matcher's
 * key words (the fields the items imply: ethertype, ip version, protocol
 * ...) and the trace of every spec field the item table copies into the key
 * (tally_flow_parse_trace()), byte copies and the bit maps of computed
 * fields (has_vlan, the IPv6 traffic class and flow label). Each masked
 * bit becomes an op bit (spec byte & bits, shifted, OR'ed into a key word),
 * and the bytes of one field are joined into one operation. A template with
 * a masked bit the trace does not place (a field whose place depends on the
 * value, such as a TPID), or one that lands on an implied field or twice,
 * gets no builder: its rules go through the parser, as synchronous rules
 * do. So a rule key is the same whichever way it was built.
 *
 * Actions: an actions template made of count, mark, flag, queue, drop,
 * passthru and void is parsed once (rule-given confs as placeholders); a
 * rule then only brings its queue index and mark id.
 */
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_malloc.h>

#include "tally_flow_tmpl.h"
#include "tally_steer_batch.h"

#define PROG_SPEC_MAX	256	/* larger item specs are not compiled */

/* Bytes of an item's spec (what rte_flow_conv copies of it), 0 if unknown. */
static uint32_t
spec_size(const struct rte_flow_item *ti)
{
	const size_t hdr = RTE_ALIGN_CEIL(sizeof(struct rte_flow_item), sizeof(double));
	struct rte_flow_item it = { .type = ti->type, .spec = ti->mask };
	int n = rte_flow_conv(RTE_FLOW_CONV_OP_ITEM, NULL, 0, &it, NULL);

	return n > (int)hdr ? (uint32_t)(n - (int)hdr) : 0;
}

/* Record that bit b of byte off of item i's spec lands on key bit kbit of
 * word j (one-byte ops; prog_merge() joins them). */
static void
prog_add(struct tally_key_prog *kp, uint32_t i, uint32_t off, uint32_t b,
	 uint32_t j, uint32_t kbit)
{
	int8_t shift = (int8_t)((int)kbit - (int)b);
	uint32_t n;

	for (n = 0; n < kp->nops; n++) {
		struct tally_key_op *o = &kp->op[n];

		if (o->item == i && o->off == off && o->word == j && o->shift == shift) {
			o->mask |= 1u << b;
			return;
		}
	}
	kp->op[kp->nops++] = (struct tally_key_op){
		.off = (uint16_t)off, .len = 1, .item = (uint8_t)i, .word = (uint8_t)j,
		.shift = shift, .mask = 1u << b,
	};
}

/* Join ops of consecutive bytes of one item into one word: a big-endian
 * field (each byte 8 bits below the one before) or a little-endian one
 * (8 bits above), read with one load of up to 4 bytes. */
static bool
prog_join(struct tally_key_op *x, const struct tally_key_op *y)
{
	if (y->len != 1 || x->len == 4 || y->item != x->item || y->word != x->word ||
	    y->off != x->off + x->len)
		return false;
	if ((x->len == 1 || !x->le) && y->shift == x->shift - 8) {
		x->mask = x->mask << 8 | y->mask;
		x->shift = y->shift;	/* of the last byte, the value's lowest */
		x->le = false;
	} else if ((x->len == 1 || x->le) && y->shift == x->shift + 8 * x->len) {
		x->mask |= y->mask << (8 * x->len);
		x->le = true;		/* shift: of the first byte */
	} else {
		return false;
	}
	x->len++;
	return true;
}

static void
prog_merge(struct tally_key_prog *kp)
{
	uint32_t a, b;
	bool again = true;

	while (again) {
		again = false;
		for (a = 0; a < kp->nops && !again; a++)
			for (b = 0; b < kp->nops; b++)
				if (a != b && prog_join(&kp->op[a], &kp->op[b])) {
					kp->op[b] = kp->op[--kp->nops];
					again = true;
					break;
				}
	}
}

/* How each op is run: its shift as two unsigned ones, and whether it is one
 * big-endian 32-bit load. */
static void
prog_finish(struct tally_key_prog *kp)
{
	uint32_t n;

	for (n = 0; n < kp->nops; n++) {
		struct tally_key_op *o = &kp->op[n];

		o->shl = (uint8_t)(o->shift >= 0 ? o->shift : 0);
		o->shr = (uint8_t)(o->shift >= 0 ? 0 : -o->shift);
		o->be32 = o->len == 4 && !o->le;
	}
}

/* A template parsed with zero specs, and the trace of where its fields go. */
struct prog_src {
	struct rte_flow_item items[TALLY_TMPL_MAX_ITEMS + 1];
	uint8_t spec[TALLY_TMPL_MAX_ITEMS][PROG_SPEC_MAX];
	uint32_t size[TALLY_TMPL_MAX_ITEMS];
	uint8_t idx[TALLY_STEER_KEY_WORDS];	/* the matcher's key words */
	uint32_t wmask[TALLY_STEER_KEY_WORDS];
	uint32_t nwords;
	struct tally_flow_match m;
	struct tally_flow_trace trace;
	uint8_t covered[TALLY_TMPL_MAX_ITEMS][PROG_SPEC_MAX];	/* mask bits placed */
	uint32_t placed[TALLY_STEER_KEY_WORDS];	/* key bits taken by ops */
};

/* Place bit b of spec byte off of item i at key byte kb: one op bit, in a
 * word of the matcher, on no other op's bit and no implied field's. */
static int
prog_place(struct tally_key_prog *kp, struct prog_src *src, uint32_t i, uint32_t off,
	   uint32_t b, uint32_t kb, uint32_t kbb)
{
	uint32_t w = kb / 4, kbit = 8 * (kb % 4) + kbb, j;

	if (src->trace.cmask.b[kb] & (1u << kbb))
		return -ENOTSUP;	/* an implied value there too: a conflict */
	for (j = 0; j < src->nwords && src->idx[j] != w; j++)
		;
	if (j == src->nwords || !(src->wmask[j] & (1u << kbit)) ||
	    (src->placed[j] & (1u << kbit)))
		return -ENOTSUP;
	src->placed[j] |= 1u << kbit;
	src->covered[i][off] |= (uint8_t)(1u << b);
	prog_add(kp, i, off, b, j, kbit);
	return 0;
}

/* The ops of every traced field, under the template's masks; every masked
 * bit must be placed exactly once. */
static int
prog_fields(struct tally_key_prog *kp, struct prog_src *src,
	    const struct rte_flow_pattern_template *pt)
{
	uint32_t n, k, b, i, off;

	for (n = 0; n < src->trace.n; n++) {
		const struct tally_flow_trace_field *f = &src->trace.f[n];
		const uint8_t *tm = pt->items[f->item].mask;

		if (tm == NULL || f->item_off + f->len > src->size[f->item])
			return -ENOTSUP;
		if (f->bit) {
			if ((tm[f->item_off] & (1u << f->item_bit)) &&
			    prog_place(kp, src, f->item, f->item_off, f->item_bit,
				       f->key_off, f->key_bit) != 0)
				return -ENOTSUP;
			continue;
		}
		for (k = 0; k < f->len; k++)
			for (b = 0; b < 8; b++)
				if ((tm[f->item_off + k] & (1u << b)) &&
				    prog_place(kp, src, f->item, f->item_off + k, b,
					       f->key_off + k, b) != 0)
					return -ENOTSUP;
	}
	for (i = 0; i < pt->nb_items; i++) {
		const uint8_t *tm = pt->items[i].mask;

		for (off = 0; tm != NULL && off < src->size[i]; off++)
			if (tm[off] & ~src->covered[i][off])
				return -ENOTSUP;	/* a field that is not a copy */
	}
	return 0;
}

struct tally_key_prog *
tally_key_prog_compile(const struct rte_flow_pattern_template *pt,
		       struct tally_steer_matcher *m)
{
	struct tally_key_prog *kp = NULL;
	struct prog_src *src;
	uint32_t nbits = 0, i, off;

	src = calloc(1, sizeof(*src));
	if (src == NULL)
		return NULL;
	src->nwords = tally_steer_matcher_words(m, src->idx, src->wmask);
	for (i = 0; i < pt->nb_items; i++) {
		src->items[i].type = pt->items[i].type;
		if (pt->items[i].mask == NULL)
			continue;
		src->size[i] = spec_size(&pt->items[i]);
		if (src->size[i] == 0 || src->size[i] > PROG_SPEC_MAX)
			goto out;
		src->items[i].mask = pt->items[i].mask;
		src->items[i].spec = src->spec[i];
		for (off = 0; off < src->size[i]; off++)
			nbits += (uint32_t)__builtin_popcount(
				((const uint8_t *)pt->items[i].mask)[off]);
	}
	src->items[i].type = RTE_FLOW_ITEM_TYPE_END;
	/* the matcher's mask must not depend on the values */
	if (tally_flow_parse_trace(src->items, &src->m, &src->trace) != 0 ||
	    memcmp(&src->m.mask, &pt->mask, sizeof(pt->mask)) != 0)
		goto out;
	kp = rte_zmalloc("tally_key_prog", sizeof(*kp) + nbits * sizeof(kp->op[0]), 0);
	if (kp == NULL)
		goto out;
	kp->m = m;
	kp->seed = tally_steer_matcher_seed(m);
	kp->nwords = src->nwords;
	/* the constant part: what the zero specs give (implied fields) */
	for (i = 0; i < src->nwords; i++)
		kp->base[i] = tally_steer_key_word(&src->m.value, src->idx[i]) & src->wmask[i];
	if (prog_fields(kp, src, pt) != 0) {
		rte_free(kp);
		kp = NULL;
		goto out;
	}
	prog_merge(kp);
	prog_finish(kp);
out:
	free(src);
	return kp;
}

void
tally_act_prog_compile(const struct rte_flow_actions_template *at,
		       struct tally_act_prog *ap)
{
	static const struct rte_flow_action_queue q0;
	static const struct rte_flow_action_mark m0;
	const struct tally_flow_limits lim = {
		.nb_rx_queues = UINT16_MAX,	/* checked per rule */
		.max_groups = TALLY_FLOW_GROUPS,
	};
	struct rte_flow_action one[TALLY_TMPL_MAX_ACTIONS + 1];
	struct rte_flow_error err;
	struct tally_flow_acts a;
	uint32_t i;

	memset(ap, 0, sizeof(*ap));
	ap->queue_slot = -1;
	ap->mark_slot = -1;
	for (i = 0; i < at->nb_actions; i++) {
		one[i] = at->actions[i];
		switch (at->actions[i].type) {
		case RTE_FLOW_ACTION_TYPE_QUEUE:
			if (!at->constant[i]) {
				ap->queue_slot = (int8_t)i;
				one[i].conf = &q0;
			}
			break;
		case RTE_FLOW_ACTION_TYPE_MARK:
			if (!at->constant[i]) {
				ap->mark_slot = (int8_t)i;
				one[i].conf = &m0;
			}
			break;
		case RTE_FLOW_ACTION_TYPE_VOID:
		case RTE_FLOW_ACTION_TYPE_COUNT:
		case RTE_FLOW_ACTION_TYPE_FLAG:
		case RTE_FLOW_ACTION_TYPE_DROP:
		case RTE_FLOW_ACTION_TYPE_PASSTHRU:
			break;
		default:
			return;		/* rules go through the parser */
		}
	}
	one[i].type = RTE_FLOW_ACTION_TYPE_END;
	one[i].conf = NULL;
	if (tally_flow_parse_actions(one, &lim, &a, &err) != 0)
		return;
	ap->base = a.act;
	ap->count = a.count != NULL;
	if (tally_steer_action_encode(&ap->base, &ap->enc) != 0)
		return;
	ap->ok = true;
}

/* ---- the synchronous create's key builder (tally_flow_priv.h) --------------- */

void
tally_flow_shape_reset(struct tally_flow_shape *s)
{
	uint64_t keys = s->keys;

	rte_free(s->kp);
	memset(s, 0, offsetof(struct tally_flow_shape, mask));
	s->keys = keys;
}

static inline uint8_t
shape_spec_of(const struct rte_flow_item *it)
{
	if (it->spec == NULL)
		return TALLY_SHAPE_NO_SPEC;
	return it->mask == NULL ? TALLY_SHAPE_DEFAULT_MASK : TALLY_SHAPE_MASK;
}

/* Does pattern have the shape of s (types, specs, masks)? Group and
 * priority are the caller's. */
static inline bool
shape_match(const struct tally_flow_shape *s, const struct rte_flow_item pattern[])
{
	uint32_t i;

	for (i = 0; i < s->n; i++) {
		const struct rte_flow_item *it = &pattern[i];

		if (it->type != s->type[i])
			return false;
		if (it->type == RTE_FLOW_ITEM_TYPE_VOID)
			continue;
		if (it->last != NULL || shape_spec_of(it) != s->spec[i])
			return false;
		if (s->spec[i] == TALLY_SHAPE_MASK &&
		    memcmp(it->mask, s->mask[i], s->size[i]) != 0)
			return false;
	}
	return pattern[i].type == RTE_FLOW_ITEM_TYPE_END;
}

struct tally_flow_matcher *
tally_flow_shape_key(struct tally_flow_shape *s, const struct rte_flow_attr *attr,
		     const struct rte_flow_item pattern[], struct tally_steer_key *key)
{
	const struct tally_key_prog *kp = s->kp;
	uint32_t i;

	/* s->fm is NULL once its matcher went away (tally_flow_rule.c) */
	if (kp == NULL || s->fm == NULL || pattern == NULL || attr->group != s->group ||
	    attr->priority != s->priority || !shape_match(s, pattern))
		return NULL;
	for (i = 0; i < kp->nwords; i++)
		key->w[i] = kp->base[i];
	for (i = 0; i < kp->nops; i++)
		key->w[kp->op[i].word] |= tally_key_op_get(&kp->op[i],
							   pattern[kp->op[i].item].spec);
	tally_steer_key_finish(kp->m, key);
	s->keys++;
	return s->fm;
}

/* Record pattern's shape in s; false if it cannot have a builder (an item
 * the parser does not know, a range, too many items, a large spec). */
static bool
shape_record(struct tally_flow_shape *s, const struct rte_flow_item pattern[])
{
	const void *dmask;
	size_t size;
	uint32_t i;

	for (i = 0; pattern[i].type != RTE_FLOW_ITEM_TYPE_END; i++) {
		const struct rte_flow_item *it = &pattern[i];

		if (i == TALLY_FLOW_SHAPE_ITEMS)
			return false;
		s->type[i] = it->type;
		s->spec[i] = TALLY_SHAPE_NO_SPEC;
		s->size[i] = 0;
		if (it->type == RTE_FLOW_ITEM_TYPE_VOID)
			continue;
		if (it->last != NULL ||
		    tally_flow_item_masks(it->type, &size, &dmask) != 0 ||
		    size > TALLY_FLOW_SHAPE_MASK)
			return false;
		s->spec[i] = shape_spec_of(it);
		s->size[i] = (uint8_t)size;
		if (s->spec[i] == TALLY_SHAPE_MASK)
			memcpy(s->mask[i], it->mask, size);
	}
	s->n = (uint8_t)i;
	return i > 0;
}

/* Compile s's builder against its matcher: a template of the shape's items,
 * masked as its rules are. */
static void
shape_compile(struct tally_flow_shape *s, const struct tally_flow_match *m)
{
	struct rte_flow_item items[TALLY_FLOW_SHAPE_ITEMS + 1];
	struct rte_flow_pattern_template pt;
	const void *dmask;
	size_t size;
	uint32_t i;

	memset(&pt, 0, sizeof(pt));
	memset(items, 0, sizeof(items));
	for (i = 0; i < s->n; i++) {
		items[i].type = s->type[i];
		if (s->spec[i] == TALLY_SHAPE_MASK)
			items[i].mask = s->mask[i];
		else if (s->spec[i] == TALLY_SHAPE_DEFAULT_MASK &&
			 tally_flow_item_masks(s->type[i], &size, &dmask) == 0)
			items[i].mask = dmask;
	}
	items[i].type = RTE_FLOW_ITEM_TYPE_END;
	pt.items = items;
	pt.nb_items = s->n;
	pt.mask = m->mask;
	s->tried = true;
	s->kp = tally_key_prog_compile(&pt, s->fm->m);
}

void
tally_flow_shape_learn(struct tally_flow_shape *s, const struct rte_flow_attr *attr,
		       const struct rte_flow_item pattern[],
		       const struct tally_flow_match *m, struct tally_flow_matcher *fm)
{
	if (s->n != 0 && s->fm == fm && s->group == attr->group &&
	    s->priority == attr->priority && shape_match(s, pattern)) {
		if (!s->tried && ++s->run >= TALLY_FLOW_SHAPE_RUN)
			shape_compile(s, m);
		return;
	}
	tally_flow_shape_reset(s);
	if (!shape_record(s, pattern)) {
		s->n = 0;
		return;
	}
	s->fm = fm;
	s->group = attr->group;
	s->priority = attr->priority;
	s->run = 1;
}

/* ---- the synchronous create's action builder (tally_flow_priv.h) ------------ */

static bool
ashape_types_match(const struct tally_flow_ashape *s, const struct rte_flow_action actions[])
{
	uint32_t i;

	for (i = 0; i < s->n; i++)
		if (actions[i].type != s->type[i])
			return false;
	return actions[i].type == RTE_FLOW_ACTION_TYPE_END;
}

bool
tally_flow_ashape_acts(struct tally_flow_ashape *s, const struct rte_flow_action actions[],
		       uint16_t nb_rx_queues, struct tally_flow_acts *a)
{
	if (!s->ok || actions == NULL || !ashape_types_match(s, actions))
		return false;
	/* what the parser fills for these types (RSS fields stay unused) */
	a->act = s->base;
	a->indirect = NULL;
	a->age = NULL;
	a->rss_hf = 0;
	a->rss_nq = 0;
	if (s->queue_slot >= 0) {
		const struct rte_flow_action_queue *q = actions[s->queue_slot].conf;

		if (q == NULL || q->index >= nb_rx_queues)
			return false;
		a->act.arg = q->index;
	}
	if (s->mark_slot >= 0) {
		const struct rte_flow_action_mark *mk = actions[s->mark_slot].conf;

		if (mk == NULL)
			return false;
		a->act.mark = mk->id;
	}
	a->count = s->count_slot >= 0 ? &actions[s->count_slot] : NULL;
	a->fate = s->fate_slot >= 0 ? &actions[s->fate_slot] : NULL;
	s->acts++;
	return true;
}

/* Compile the recorded types through the template compiler: every conf
 * per rule, so only QUEUE and MARK values vary. */
static void
ashape_compile(struct tally_flow_ashape *s, const struct rte_flow_action actions[])
{
	struct rte_flow_actions_template at;
	struct tally_act_prog ap;
	uint32_t i;

	s->tried = true;
	memset(&at, 0, sizeof(at));
	at.actions = (struct rte_flow_action *)(uintptr_t)actions;
	at.nb_actions = s->n;
	tally_act_prog_compile(&at, &ap);
	if (!ap.ok)
		return;
	s->base = ap.base;
	s->queue_slot = ap.queue_slot;
	s->mark_slot = ap.mark_slot;
	s->count_slot = -1;
	s->fate_slot = -1;
	for (i = 0; i < s->n; i++) {
		switch (s->type[i]) {
		case RTE_FLOW_ACTION_TYPE_COUNT:
			s->count_slot = (int8_t)i;
			break;
		case RTE_FLOW_ACTION_TYPE_QUEUE:
		case RTE_FLOW_ACTION_TYPE_DROP:
		case RTE_FLOW_ACTION_TYPE_PASSTHRU:
			s->fate_slot = (int8_t)i;
			break;
		default:
			break;
		}
	}
	s->ok = true;
}

void
tally_flow_ashape_learn(struct tally_flow_ashape *s, const struct rte_flow_action actions[])
{
	uint32_t i;

	if (s->n != 0 && ashape_types_match(s, actions)) {
		if (!s->tried && ++s->run >= TALLY_FLOW_SHAPE_RUN)
			ashape_compile(s, actions);
		return;
	}
	s->n = 0;
	s->tried = false;
	s->ok = false;
	for (i = 0; actions[i].type != RTE_FLOW_ACTION_TYPE_END; i++) {
		if (i == TALLY_FLOW_SHAPE_ACTIONS)
			return;		/* too long to record: none */
		s->type[i] = actions[i].type;
	}
	s->n = (uint8_t)i;
	s->run = 1;
}

/* ---- a create from a full pattern and action list ------------------------------ */

struct rte_flow *
tally_flow_create_locked(struct rte_eth_dev *dev, struct tally_flow_ctx *fc,
			 const struct rte_flow_attr *attr,
			 const struct rte_flow_item pattern[],
			 const struct rte_flow_action actions[],
			 uint16_t age_queue, struct rte_flow_error *error)
{
	struct tally_flow_matcher *last;
	struct tally_flow_limits lim;
	struct tally_flow_match m;
	struct tally_flow_acts a;
	struct tally_steer_key key;
	struct rte_flow *flow;
	bool parsed = false, aparsed = false;

	tally_flow_limits_of(dev, &lim);
	if (tally_flow_parse_attr(attr, &lim, error) != 0)
		return NULL;
	/* A pattern of the shape of the previous rules: its key words come
	 * from the specs by the shape's builder, nothing is parsed. Else
	 * parse; most rules still go to the matcher of the previous one. In
	 * both cases the key is hashed and its slot fetched now, so that the
	 * TLB and cache misses overlap with checking the actions and taking
	 * the counter. */
	last = tally_flow_shape_key(&fc->shape, attr, pattern, &key);
	if (last == NULL) {
		if (tally_flow_parse_pattern(pattern, &m, error) != 0)
			return NULL;
		parsed = true;
		last = tally_flow_matcher_last(fc, attr, &m.mask);
		if (last != NULL)
			tally_steer_rule_key(last->m, &m.value, &key);
	}
	if (!tally_flow_ashape_acts(&fc->ashape, actions, lim.nb_rx_queues, &a)) {
		if (tally_flow_check_actions(dev, attr, actions, &lim, &a, error) != 0)
			return NULL;
		aparsed = true;
	}
	flow = tally_flow_insert_locked(dev, fc, attr, pattern, parsed ? &m : NULL, last,
					&key, &a, age_queue, error);
	if (flow == NULL)
		return NULL;
	if (parsed)
		tally_flow_shape_learn(&fc->shape, attr, pattern, &m,
				       tally_flow_matcher_of(flow));
	if (aparsed)
		tally_flow_ashape_learn(&fc->ashape, actions);
	return flow;
}
