/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Steering executor: the device side of include/tally/tally_steer_fmt.h.
 *
 * Walks STEER_ROOT -> table 0 -> matchers in list order -> hash probe of
 * (key & mask) -> actions, following JUMPs for at most TALLY_STEER_MAX_HOPS
 * tables, for a burst of frames at once: the frames at the same table go
 * through its matchers together, one matcher at a time - hash every
 * unresolved frame's masked key words and prefetch its slot, then probe and
 * compare - so the slot loads of a burst overlap. A frame leaves the table
 * at its first hit (matchers are in priority order); only frames that missed
 * reach the next matcher. Actions are then applied frame by frame, in burst
 * order, exactly as for one frame: a burst makes the same verdicts, counter
 * updates and number of faults as the same frames classified one by one.
 *
 * Root, tables, matcher descriptors and hash array headers come from the
 * validated cache (tally_model_cls.c); entries are read live under their
 * ctrl sequence word and retried if it changed meanwhile. A bad address is a
 * DMA fault (recorded by tally_model_dma), a malformed structure or a
 * pointer misaligned for the structure it names a TALLY_FAULT_BAD_STEER
 * fault; all drop the frame.
 *
 * The switch (spec 2.3) walks its own tables (SW_ROOT, its own cache) with
 * the same code; only what a hit's actions mean differs (steer_act_sw()).
 */
#include <stdbool.h>
#include <string.h>

#include "tally_model_cls.h"
#include "tally_model_priv.h"

#define STEER_ENTRY_RETRIES	16

enum steer_res {
	STEER_PEND = 0,			/* still walking the current table */
	STEER_MISS,			/* no hit in the current table */
	STEER_HIT,
	STEER_FAULT,
	STEER_DONE,			/* walk over, verdict final */
};

struct steer_hit {
	uint32_t act;
	uint32_t mark;
	uint32_t fate;
};

/* Walk state of one frame of the burst. */
struct steer_st {
	uint32_t table;
	uint32_t next;			/* first matcher of the table still to try */
	uint32_t hops;
	uint32_t hit_mt;		/* matcher index of the hit */
	enum steer_res res;
	struct steer_hit hit;
};

/*
 * Probe mt's hash array from slot s for the masked key words w. An entry is
 * read under its ctrl sequence word: ctrl (acquire), then the key; a key
 * that differs is no hit whatever happened meanwhile (a rule rewritten
 * under us is being deleted or inserted: either order is correct). A key
 * that matches is confirmed by reading the actions and then ctrl again; if
 * ctrl changed, the entry is read again (at most STEER_ENTRY_RETRIES times:
 * then it is not visible yet).
 */
static inline __attribute__((always_inline)) bool
steer_probe(const struct tally_cls_mt *mt, const uint32_t *restrict w, uint32_t s,
	    struct steer_hit *restrict hit, const uint32_t n)
{
	const uint8_t *ent = mt->ent;
	uint32_t i, k, smask = mt->smask, c1, c2, r = 0, diff;
	size_t stride = mt->stride;
	const struct tally_steer_entry *e;

	for (i = 0; i <= smask; i++, s = (s + 1) & smask) {
		e = (const struct tally_steer_entry *)(const void *)(ent + (size_t)s * stride);
again:
		/* pairs with the driver's release store of ctrl */
		c1 = __atomic_load_n(&e->ctrl, __ATOMIC_ACQUIRE);
		switch (TALLY_FIELD_GET(c1, TALLY_STEER_CTRL_STATE_M)) {
		case TALLY_STEER_S_EMPTY:
			return false;
		case TALLY_STEER_S_VALID:
			break;
		default:
			continue;	/* TOMB/BUSY: keep probing */
		}
		diff = 0;
		for (k = 0; k < n; k++)
			diff |= __atomic_load_n(&e->key[k], __ATOMIC_RELAXED) ^ w[k];
		if (diff != 0)
			continue;
		hit->act = __atomic_load_n(&e->act, __ATOMIC_RELAXED);
		hit->mark = __atomic_load_n(&e->mark, __ATOMIC_RELAXED);
		hit->fate = __atomic_load_n(&e->fate, __ATOMIC_RELAXED);
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		c2 = __atomic_load_n(&e->ctrl, __ATOMIC_RELAXED);
		if (c1 == c2)
			return true;
		if (++r < STEER_ENTRY_RETRIES)
			goto again;
		r = 0;	/* rewritten under us repeatedly: not visible yet */
	}
	return false;
}

static inline __attribute__((always_inline)) uint32_t
steer_probe_n(const struct tally_cls_mt *mt, const uint16_t *idx, const uint8_t *live,
	      uint32_t nl, const uint32_t *hv, const uint32_t *w, struct steer_st *st,
	      uint32_t mi, const uint32_t nw)
{
	uint32_t j, q, hits = 0;

	for (q = 0; q < nl; q++) {
		struct steer_st *s;

		j = live[q];
		s = &st[idx[j]];
		if (steer_probe(mt, &w[j * nw], hv[j] & mt->smask, &s->hit, nw)) {
			s->res = STEER_HIT;
			s->hit_mt = mi;
			hits++;
		}
	}
	return hits;
}

/*
 * Probe matcher mi for the frames idx[live[0..nl)] (hashes and masked words
 * from tally_model_cls_hash, which left out the frames the presence filter
 * rules out); the common key sizes get an unrolled compare. Returns the
 * number of hits. One function per key size, chosen once per matcher
 * (steer_probe_of()).
 */
typedef uint32_t (*steer_probe_fn)(const struct tally_cls_mt *mt, const uint16_t *idx,
				   const uint8_t *live, uint32_t nl, const uint32_t *hv,
				   const uint32_t *w, struct steer_st *st, uint32_t mi);

#define STEER_PROBE(N) \
static uint32_t \
steer_probe_##N(const struct tally_cls_mt *mt, const uint16_t *idx, const uint8_t *live, \
		uint32_t nl, const uint32_t *hv, const uint32_t *w, struct steer_st *st, \
		uint32_t mi) \
{ \
	return steer_probe_n(mt, idx, live, nl, hv, w, st, mi, N); \
}
STEER_PROBE(1)
STEER_PROBE(2)
STEER_PROBE(3)
STEER_PROBE(4)
STEER_PROBE(5)
STEER_PROBE(6)

static uint32_t
steer_probe_any(const struct tally_cls_mt *mt, const uint16_t *idx, const uint8_t *live,
		uint32_t nl, const uint32_t *hv, const uint32_t *w, struct steer_st *st,
		uint32_t mi)
{
	return steer_probe_n(mt, idx, live, nl, hv, w, st, mi, mt->nw);
}

static steer_probe_fn
steer_probe_of(struct tally_cls_mt *mt)
{
	static const steer_probe_fn fn[] = {
		steer_probe_any, steer_probe_1, steer_probe_2, steer_probe_3,
		steer_probe_4, steer_probe_5, steer_probe_6,
	};
	steer_probe_fn f;

	if (mt->probe != NULL)
		return (steer_probe_fn)mt->probe;
	f = fn[mt->nw < TALLY_ARRAY_SIZE(fn) ? mt->nw : 0];
	mt->probe = (void (*)(void))f;
	return f;
}

/*
 * Frames sel[0..ns) are at table t (validated, matchers cached). Try the
 * matchers in list order; each frame from its own `next` on, and only until
 * its first hit. Results: HIT (with hit_mt), MISS or FAULT.
 */
static void
steer_table_burst(struct tally_model *m, struct tally_model_cls *c,
		  struct tally_cls_tbl *t, const struct tally_model_pkt *const *pkts,
		  struct steer_st *st, const uint16_t *sel, uint32_t ns)
{
	const uint8_t *pkey[TALLY_CLS_BURST], *skey[TALLY_CLS_BURST], **keys;
	uint16_t pidx[TALLY_CLS_BURST], sidx[TALLY_CLS_BURST], *idx;
	uint32_t slot[TALLY_CLS_BURST];
	uint8_t live[TALLY_CLS_BURST];
	uint32_t *w = c->w;	/* masked key words, mt->nw per frame */
	uint32_t i, j, k, nl, done, np = 0, maxnext = 0;

	/* pending frames, in burst order */
	for (j = 0; j < ns; j++) {
		pidx[np] = sel[j];
		pkey[np++] = pkts[sel[j]]->key.b;
		maxnext = TALLY_MAX(maxnext, st[sel[j]].next);
	}
	for (i = 0; i < t->nm && np > 0; i++) {
		struct tally_cls_mt *mt = &t->mt[i];

		idx = pidx;
		keys = pkey;
		k = np;
		if (i < maxnext) {	/* some frames start later (CONTINUE) */
			for (j = 0, k = 0; j < np; j++) {
				if (st[pidx[j]].next > i)
					continue;
				sidx[k] = pidx[j];
				skey[k++] = pkey[j];
			}
			idx = sidx;
			keys = skey;
			if (k == 0)
				continue;
		}
		done = 0;
		if (tally_model_cls_matcher(m, mt) != 0) {
			/* one fault per frame that reached the matcher, as
			 * when each walks alone (nothing bad is cached) */
			st[idx[0]].res = STEER_FAULT;
			for (j = 1; j < k; j++) {
				if (tally_model_cls_matcher(m, mt) == 0)
					break;	/* valid now (memory fixed meanwhile) */
				st[idx[j]].res = STEER_FAULT;
			}
			keys += j;
			idx += j;
			k -= j;
			done = j;
		}
		if (k > 0) {
			nl = tally_model_cls_hash(mt, keys, k, slot, w, live);
			/* in the matchers after the busy ones, the filter
			 * usually leaves no frame to probe */
			if (nl > 0)
				done += steer_probe_of(mt)(mt, idx, live, nl, slot, w, st, i);
		}
		if (done == 0)
			continue;	/* every frame still pending */
		/* drop resolved frames from the pending list (no branch: in a
		 * matcher that hits often, which frames did is random) */
		for (j = 0, k = 0; j < np; j++) {
			pidx[k] = pidx[j];
			pkey[k] = pkey[j];
			k += st[pidx[j]].res == STEER_PEND;
		}
		np = k;
	}
	for (j = 0; j < np; j++)
		st[pidx[j]].res = STEER_MISS;
}

static bool
steer_rss(struct tally_model *m, const struct tally_steer_root *root,
	  uint32_t idx, struct tally_model_verdict *v)
{
	const struct tally_steer_rss *r;
	uint64_t iova = root->rss_iova + (uint64_t)idx * sizeof(*r);
	uint16_t nq, i;

	if (idx >= root->num_rss) {
		tally_model_fault(m, TALLY_FAULT_BAD_STEER, root->rss_iova);
		return false;
	}
	r = STEER_DMA(m, iova, sizeof(*r), *r);
	if (r == NULL)
		return false;
	nq = __atomic_load_n(&r->nq, __ATOMIC_ACQUIRE);
	if (nq == 0 || nq > TALLY_STEER_RSS_MAX_QUEUES || nq > TALLY_VERDICT_MAX_RSS) {
		tally_model_fault(m, TALLY_FAULT_BAD_STEER, iova);
		return false;
	}
	for (i = 0; i < nq; i++)
		v->rss_queues[i] = r->queues[i];
	v->rss_nq = nq;
	v->rss_hf = r->hf;
	v->flags |= TALLY_VERDICT_RSS;
	return true;
}

static void
steer_drop(struct tally_model_verdict *v)
{
	v->flags = (v->flags & ~(TALLY_VERDICT_QUEUE | TALLY_VERDICT_RSS |
				 TALLY_VERDICT_PORT | TALLY_VERDICT_SWACT)) |
		   TALLY_VERDICT_DROP;
}

/* A destination word of the switch: a port the device has, no other bits. */
static bool
steer_port_ok(const struct tally_model *m, uint32_t word)
{
	return (word & ~(uint32_t)TALLY_STEER_PORT_WORD_M) == 0 &&
	       TALLY_FIELD_GET(word, TALLY_STEER_PORT_M) < m->sw->n;
}

/* The switch action set idx of the switch root, copied into the verdict;
 * false after a fault. */
static bool
steer_swact(struct tally_model *m, const struct tally_steer_root *root,
	    uint32_t idx, struct tally_model_verdict *v)
{
	const struct tally_steer_swact *a;
	uint64_t iova = root->rss_iova + (uint64_t)idx * sizeof(*a);
	uint32_t flags;

	if (idx >= root->num_rss) {
		tally_model_fault(m, TALLY_FAULT_BAD_STEER, root->rss_iova);
		return false;
	}
	a = STEER_DMA(m, iova, sizeof(*a), *a);
	if (a == NULL)
		return false;
	/* acquire: pairs with the driver's release store of flags */
	flags = __atomic_load_n(&a->flags, __ATOMIC_ACQUIRE);
	memcpy(&v->swact, a, sizeof(v->swact));
	v->swact.flags = flags;
	if (!(flags & TALLY_SWACT_VALID) || (flags & ~(uint32_t)TALLY_SWACT_FLAGS_M) ||
	    ((flags & TALLY_SWACT_FWD) && !steer_port_ok(m, v->swact.port))) {
		tally_model_fault(m, TALLY_FAULT_BAD_STEER, iova);
		return false;
	}
	v->flags |= TALLY_VERDICT_SWACT;
	if (flags & TALLY_SWACT_FWD) {
		v->flags |= TALLY_VERDICT_PORT;
		v->port = v->swact.port;
	}
	return true;
}

/* The fate of a switch entry's hit (COUNT already applied): PORT, SWACT;
 * MARK or FLAG in the entry were refused before. */
static void
steer_act_sw(struct tally_model *m, const struct tally_steer_root *root,
	     const struct steer_hit *hit, uint32_t fate, struct tally_model_verdict *v)
{
	if (fate == TALLY_STEER_ACT_PORT) {
		if (!steer_port_ok(m, hit->fate)) {
			tally_model_fault(m, TALLY_FAULT_BAD_STEER, hit->fate);
			steer_drop(v);
			return;
		}
		v->flags |= TALLY_VERDICT_PORT;
		v->port = hit->fate;
	} else if (!steer_swact(m, root, hit->fate, v)) {
		steer_drop(v);
	}
}

/* Apply a hit's actions; the frame's walk ends (DONE) or goes on (PEND, at
 * s->table from s->next). */
static void
steer_act(struct tally_model *m, const struct tally_steer_root *root,
	  const struct tally_model_pkt *pkt, struct steer_st *s,
	  struct tally_model_verdict *v, bool sw)
{
	const struct steer_hit *hit = &s->hit;
	uint32_t fate = hit->act & TALLY_STEER_ACT_FATE_M;

	s->res = STEER_DONE;
	if ((fate & (fate - 1)) || (fate && (hit->act & TALLY_STEER_ACT_CONTINUE)) ||
	    (sw && (hit->act & (TALLY_STEER_ACT_MARK | TALLY_STEER_ACT_FLAG)))) {
		tally_model_fault(m, TALLY_FAULT_BAD_STEER, s->table);
		steer_drop(v);
		return;
	}
	if (hit->act & TALLY_STEER_ACT_COUNT)
		tally_model_cnt_add(m, TALLY_FIELD_GET(hit->act, TALLY_STEER_ACT_CNT_M),
				    pkt->len);
	if (sw && (fate == TALLY_STEER_ACT_PORT || fate == TALLY_STEER_ACT_SWACT)) {
		steer_act_sw(m, root, hit, fate, v);
		return;
	}
	if (hit->act & TALLY_STEER_ACT_MARK) {
		v->flags |= TALLY_VERDICT_MARK;
		v->mark = hit->mark;
	}
	if (hit->act & TALLY_STEER_ACT_FLAG)
		v->flags |= TALLY_VERDICT_FLAG;
	switch (fate) {
	case TALLY_STEER_ACT_DROP:
		steer_drop(v);
		return;
	case TALLY_STEER_ACT_QUEUE:
		if (hit->fate > UINT16_MAX) {
			tally_model_fault(m, TALLY_FAULT_BAD_STEER, hit->fate);
			steer_drop(v);
			return;
		}
		v->flags |= TALLY_VERDICT_QUEUE;
		v->queue = (uint16_t)hit->fate;
		return;
	case TALLY_STEER_ACT_RSS:
		if (!steer_rss(m, root, hit->fate, v))
			steer_drop(v);
		return;
	case TALLY_STEER_ACT_JUMP:
		if (++s->hops == TALLY_STEER_MAX_HOPS) {
			tally_model_fault(m, TALLY_FAULT_BAD_STEER, root->tables_iova);
			steer_drop(v);
			return;
		}
		s->table = hit->fate;
		s->next = 0;
		s->res = STEER_PEND;
		return;
	default:	/* MISS or no fate: default path */
		if (hit->act & TALLY_STEER_ACT_CONTINUE) {
			s->next = s->hit_mt + 1;	/* same table, later matchers */
			s->res = STEER_PEND;
		}
		return;
	}
}

/* One step of every frame at the table of the first frame still walking:
 * false when no frame is walking any more. */
static bool
steer_step(struct tally_model *m, struct tally_model_cls *c,
	   const struct tally_steer_root *root,
	   const struct tally_model_pkt *const *pkts, uint32_t n,
	   struct steer_st *st, struct tally_model_verdict *v, bool sw)
{
	uint16_t sel[TALLY_CLS_BURST];
	struct tally_cls_tbl *t;
	uint32_t i, ns = 0, table = 0;

	for (i = 0; i < n; i++) {
		if (st[i].res != STEER_PEND || (ns > 0 && st[i].table != table))
			continue;
		table = st[i].table;
		sel[ns++] = (uint16_t)i;
	}
	if (ns == 0)
		return false;
	for (i = 0; i < ns; i++) {
		/* a table that fails validation faults once per frame */
		if (tally_model_cls_table(m, c, table, &t) != 0) {
			st[sel[i]].res = STEER_DONE;
			steer_drop(&v[sel[i]]);
			continue;
		}
		if (t == NULL)	/* no matchers: every frame misses */
			st[sel[i]].res = STEER_MISS;
		break;
	}
	if (i == ns)
		return true;
	if (t != NULL)
		steer_table_burst(m, c, t, pkts, st, &sel[i], ns - i);
	for (; i < ns; i++) {
		struct steer_st *s = &st[sel[i]];

		switch (s->res) {
		case STEER_HIT:
			steer_act(m, root, pkts[sel[i]], s, &v[sel[i]], sw);
			break;
		case STEER_FAULT:
			steer_drop(&v[sel[i]]);
			s->res = STEER_DONE;
			break;
		default:
			s->res = STEER_DONE;	/* miss: the walk ends */
			break;
		}
	}
	return true;
}

/* sw: the switch's walk (m is port 0), else m's own steering. */
static void
steer_burst(struct tally_model *m, const struct tally_model_pkt *const *pkts,
	    uint32_t n, struct tally_model_verdict *v, bool sw)
{
	struct steer_st st[TALLY_CLS_BURST];
	const struct tally_steer_root *root;
	struct tally_model_cls *c;
	uint32_t i;

	/* what a port's verdict says; port and swact are read only under
	 * their flags, so a port's walk costs no more than before 2.3 */
	for (i = 0; i < n; i++)
		memset(&v[i], 0, offsetof(struct tally_model_verdict, port));
	if (sw ? !(tally_model_bar_rd(m, TALLY_REG_SW_CTRL) & TALLY_SW_CTRL_EN) :
		 !(tally_model_bar_rd(m, TALLY_REG_STEER_CTRL) & TALLY_STEER_CTRL_EN))
		return;
	c = sw ? tally_model_cls_get_sw(m) : tally_model_cls_get(m);
	root = c != NULL ? tally_model_cls_root(m, c) : NULL;
	if (root == NULL) {
		/* one fault per frame, as when each is classified alone */
		steer_drop(&v[0]);
		for (i = 1; i < n; i++) {
			if (c != NULL)
				root = tally_model_cls_root(m, c);
			steer_drop(&v[i]);
		}
		return;
	}
	/* the outer L2-L4 section is what nearly every matcher reads: start
	 * fetching it for the whole burst before the first hash needs it */
	for (i = 0; i < n; i++)
		__builtin_prefetch(pkts[i]->key.b);
	memset(st, 0, n * sizeof(st[0]));
	while (steer_step(m, c, root, pkts, n, st, v, sw))
		;
}

void
tally_model_steer_classify_burst(struct tally_model *m,
				 const struct tally_model_pkt *const *pkts,
				 uint32_t n, struct tally_model_verdict *v)
{
	uint32_t k;

	for (; n > 0; n -= k, pkts += k, v += k) {
		k = TALLY_MIN(n, (uint32_t)TALLY_CLS_BURST);
		steer_burst(m, pkts, k, v, false);
	}
}

void
tally_model_steer_classify(struct tally_model *m, const struct tally_model_pkt *pkt,
			   struct tally_model_verdict *v)
{
	steer_burst(m, &pkt, 1, v, false);
}

void
tally_model_switch_classify_burst(struct tally_model *m,
				  const struct tally_model_pkt *const *pkts,
				  uint32_t n, struct tally_model_verdict *v)
{
	uint32_t k;

	for (; n > 0; n -= k, pkts += k, v += k) {
		k = TALLY_MIN(n, (uint32_t)TALLY_CLS_BURST);
		steer_burst(m, pkts, k, v, true);
	}
}
