/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Precompiled rule builders of template tables (see tally_flow_tmpl.h).
 *
 * Key builder: compiled once per (table, pattern template) against the
 * table's steering matcher by asking the pattern parser itself. With every
 * spec zero the parser gives the constant part of the matcher's key words
 * (the fields the items imply: ethertype, ip version, protocol ...); then
 * every bit the template masks is set alone, and the key bit it moves is
 * recorded. Bits that land one-to-one on key bits become byte operations
 * (spec byte & bits, shifted, OR'ed into a key word), and the bytes of one
 * big-endian field are joined into one operation. The builder is then
 * checked against the parser on random specs. A template the parser does
 * not map bit for bit (a value it may reject, a field that is not a plain
 * copy) gets no builder: its rules go through the parser, as synchronous
 * rules do. So a rule key is the same whichever way it was built.
 *
 * Actions: an actions template made of count, mark, flag, queue, drop,
 * passthru and void is parsed once (rule-given confs as placeholders); a
 * rule then only brings its queue index and mark id.
 */
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_malloc.h>
#include <rte_random.h>

#include "tally_flow_tmpl.h"
#include "tally_steer_batch.h"

#define PROG_SPEC_MAX	256	/* larger item specs are not compiled */
#define PROG_CHECKS	32	/* random specs the builder is checked on */

struct prog_probe {
	const struct rte_flow_pattern_template *pt;
	struct rte_flow_item items[TALLY_TMPL_MAX_ITEMS + 1];
	uint8_t spec[TALLY_TMPL_MAX_ITEMS][PROG_SPEC_MAX];
	uint32_t size[TALLY_TMPL_MAX_ITEMS];
	uint8_t idx[TALLY_STEER_KEY_WORDS];
	uint32_t wmask[TALLY_STEER_KEY_WORDS];
	uint32_t nwords;
	uint32_t w[TALLY_STEER_KEY_WORDS];
};

/* Bytes of an item's spec (what rte_flow_conv copies of it), 0 if unknown. */
static uint32_t
spec_size(const struct rte_flow_item *ti)
{
	const size_t hdr = RTE_ALIGN_CEIL(sizeof(struct rte_flow_item), sizeof(double));
	struct rte_flow_item it = { .type = ti->type, .spec = ti->mask };
	int n = rte_flow_conv(RTE_FLOW_CONV_OP_ITEM, NULL, 0, &it, NULL);

	return n > (int)hdr ? (uint32_t)(n - (int)hdr) : 0;
}

/* Parse the probe's specs; the matcher's words in p->w. */
static int
probe_parse(struct prog_probe *p)
{
	struct tally_flow_match m;
	struct rte_flow_error err;
	uint32_t j;

	if (tally_flow_parse_pattern(p->items, &m, &err) != 0)
		return -EINVAL;
	/* the mask must not depend on the values */
	if (memcmp(&m.mask, &p->pt->mask, sizeof(m.mask)) != 0)
		return -EINVAL;
	for (j = 0; j < p->nwords; j++)
		p->w[j] = tally_steer_key_word(&m.value, p->idx[j]) & p->wmask[j];
	return 0;
}

static int
probe_init(struct prog_probe *p, const struct rte_flow_pattern_template *pt,
	   struct tally_steer_matcher *m)
{
	uint32_t i;

	memset(p, 0, sizeof(*p));
	p->pt = pt;
	p->nwords = tally_steer_matcher_words(m, p->idx, p->wmask);
	for (i = 0; i < pt->nb_items; i++) {
		p->items[i].type = pt->items[i].type;
		if (pt->items[i].mask == NULL)
			continue;
		p->size[i] = spec_size(&pt->items[i]);
		if (p->size[i] == 0 || p->size[i] > PROG_SPEC_MAX)
			return -ENOTSUP;
		p->items[i].mask = pt->items[i].mask;
		p->items[i].spec = p->spec[i];
	}
	p->items[i].type = RTE_FLOW_ITEM_TYPE_END;
	return 0;
}

static void
prog_run_probe(const struct tally_key_prog *kp, const struct prog_probe *p, uint32_t *w)
{
	uint32_t i;

	for (i = 0; i < kp->nwords; i++)
		w[i] = kp->base[i];
	for (i = 0; i < kp->nops; i++)
		w[kp->op[i].word] |= tally_key_op_get(&kp->op[i], p->spec[kp->op[i].item]);
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

/* Map every masked bit; -ENOTSUP if one does not land on exactly one key bit. */
static int
prog_map_bits(struct tally_key_prog *kp, struct prog_probe *p)
{
	uint32_t i, off, b, j;

	for (i = 0; i < p->pt->nb_items; i++) {
		const uint8_t *tm = p->items[i].mask;

		for (off = 0; tm != NULL && off < p->size[i]; off++) {
			for (b = 0; b < 8; b++) {
				uint32_t hits = 0, hw = 0, hb = 0;

				if (!(tm[off] & (1u << b)))
					continue;
				p->spec[i][off] = (uint8_t)(1u << b);
				if (probe_parse(p) != 0)
					return -ENOTSUP;
				p->spec[i][off] = 0;
				for (j = 0; j < p->nwords; j++) {
					uint32_t d = p->w[j] ^ kp->base[j];

					hits += (uint32_t)__builtin_popcount(d);
					if (d != 0) {
						hw = j;
						hb = (uint32_t)__builtin_ctz(d);
					}
				}
				if (hits > 1)
					return -ENOTSUP;
				if (hits == 1)
					prog_add(kp, i, off, b, hw, hb);
			}
		}
	}
	return 0;
}

/* The builder against the parser on random specs. */
static int
prog_check(const struct tally_key_prog *kp, struct prog_probe *p)
{
	uint32_t w[TALLY_STEER_KEY_WORDS], t, i, off;

	for (t = 0; t < PROG_CHECKS; t++) {
		for (i = 0; i < p->pt->nb_items; i++)
			for (off = 0; off < p->size[i]; off++)
				p->spec[i][off] = (uint8_t)rte_rand();
		if (probe_parse(p) != 0)
			return -ENOTSUP;
		prog_run_probe(kp, p, w);
		if (memcmp(w, p->w, kp->nwords * sizeof(w[0])) != 0)
			return -ENOTSUP;
	}
	return 0;
}

struct tally_key_prog *
tally_key_prog_compile(const struct rte_flow_pattern_template *pt,
		       struct tally_steer_matcher *m)
{
	struct tally_key_prog *kp = NULL;
	struct prog_probe *p;
	uint32_t nbits = 0, i, off;
	int rc;

	p = malloc(sizeof(*p));
	if (p == NULL)
		return NULL;
	if (probe_init(p, pt, m) != 0 || probe_parse(p) != 0)
		goto out;
	for (i = 0; i < pt->nb_items; i++)
		for (off = 0; pt->items[i].mask != NULL && off < p->size[i]; off++)
			nbits += (uint32_t)__builtin_popcount(
				((const uint8_t *)pt->items[i].mask)[off]);
	kp = rte_zmalloc("tally_key_prog", sizeof(*kp) + nbits * sizeof(kp->op[0]), 0);
	if (kp == NULL)
		goto out;
	kp->m = m;
	kp->seed = tally_steer_matcher_seed(m);
	kp->nwords = p->nwords;
	memcpy(kp->base, p->w, p->nwords * sizeof(p->w[0]));
	rc = prog_map_bits(kp, p);
	if (rc == 0) {
		prog_merge(kp);
		prog_finish(kp);
		rc = prog_check(kp, p);
	}
	if (rc != 0) {
		rte_free(kp);
		kp = NULL;
	}
out:
	free(p);
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
