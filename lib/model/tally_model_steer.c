/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Steering executor: the device side of include/tally/tally_steer_fmt.h.
 *
 * Walks STEER_ROOT -> table 0 -> matchers in list order -> hash probe of
 * (key & mask) -> actions, following JUMPs for at most TALLY_STEER_MAX_HOPS
 * tables. Every host-memory access goes through tally_model_dma(); every
 * count, index and length read from memory is validated before use. A bad
 * address is a DMA fault (recorded by tally_model_dma), a malformed entry or
 * a pointer misaligned for the structure it names (STEER_DMA) a
 * TALLY_FAULT_BAD_STEER fault; all drop the frame.
 *
 * Published pointers (table mlist, matcher htab) and entry ctrl words are
 * loaded with acquire, pairing with the driver's release stores; an entry is
 * read under its ctrl sequence word and retried if it changed meanwhile.
 */
#include <stdbool.h>
#include <string.h>

#include <tally/tally_steer_fmt.h>
#include "tally_model_dev.h"

#define STEER_ENTRY_RETRIES	16

/* Host pointer for `len` bytes at iova, read as the structure `obj`:
 * checked against the DMA regions (DMA fault) and for that structure's
 * alignment (a misaligned pointer is a malformed entry: BAD_STEER fault). */
#define STEER_DMA(m, iova, len, obj) \
	tally_model_dma_obj((m), (iova), (len), __alignof__(obj), \
			    TALLY_FAULT_BAD_STEER)

enum steer_res {
	STEER_MISS = 0,
	STEER_HIT,
	STEER_FAULT,
};

struct steer_hit {
	uint32_t act;
	uint32_t mark;
	uint32_t fate;
};

static enum steer_res
steer_bad(struct tally_model *m, uint64_t addr)
{
	tally_model_fault(m, TALLY_FAULT_BAD_STEER, addr);
	return STEER_FAULT;
}

/* Read one entry consistently; true if it is VALID and its key equals w. */
static enum steer_res
steer_entry_match(const struct tally_steer_entry *e, const uint32_t *w,
		  uint32_t n, struct steer_hit *hit, bool *stop)
{
	uint32_t c1, c2, i, r;
	bool eq;

	*stop = false;
	for (r = 0; r < STEER_ENTRY_RETRIES; r++) {
		/* pairs with the driver's release store of ctrl */
		c1 = __atomic_load_n(&e->ctrl, __ATOMIC_ACQUIRE);
		switch (TALLY_FIELD_GET(c1, TALLY_STEER_CTRL_STATE_M)) {
		case TALLY_STEER_S_EMPTY:
			*stop = true;
			return STEER_MISS;
		case TALLY_STEER_S_VALID:
			break;
		default:
			return STEER_MISS;	/* TOMB/BUSY: keep probing */
		}
		eq = true;
		for (i = 0; i < n && eq; i++)
			eq = __atomic_load_n(&e->key[i], __ATOMIC_RELAXED) == w[i];
		hit->act = __atomic_load_n(&e->act, __ATOMIC_RELAXED);
		hit->mark = __atomic_load_n(&e->mark, __ATOMIC_RELAXED);
		hit->fate = __atomic_load_n(&e->fate, __ATOMIC_RELAXED);
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		c2 = __atomic_load_n(&e->ctrl, __ATOMIC_RELAXED);
		if (c1 == c2)
			return eq ? STEER_HIT : STEER_MISS;
	}
	return STEER_MISS;	/* rewritten under us repeatedly: not visible yet */
}

static enum steer_res
steer_matcher_lookup(struct tally_model *m, uint64_t miova,
		     const struct tally_match_key *key, struct steer_hit *hit)
{
	const struct tally_steer_matcher_desc *d;
	const struct tally_steer_htab *h;
	uint32_t w[TALLY_STEER_KEY_WORDS], n, i, log2, mask, s, seed;
	const uint8_t *ent;
	uint64_t hiova;
	size_t stride;
	bool stop;

	d = STEER_DMA(m, miova, sizeof(*d), *d);
	if (d == NULL)
		return STEER_FAULT;
	n = d->nwords;
	if (d->magic != TALLY_STEER_MATCHER_MAGIC || n > TALLY_STEER_KEY_WORDS)
		return steer_bad(m, miova);
	d = STEER_DMA(m, miova, TALLY_STEER_MATCHER_SIZE(n), *d);
	if (d == NULL)
		return STEER_FAULT;
	for (i = 0; i < n; i++) {
		uint32_t idx = d->words[i].idx;

		if (idx >= TALLY_STEER_KEY_WORDS)
			return steer_bad(m, miova);
		w[i] = tally_steer_key_word(key, idx) & d->words[i].mask;
	}
	/* pairs with the driver's release store when it publishes/grows */
	hiova = __atomic_load_n(&d->htab, __ATOMIC_ACQUIRE);
	h = STEER_DMA(m, hiova, sizeof(*h), *h);
	if (h == NULL)
		return STEER_FAULT;
	log2 = h->log2_size;
	stride = TALLY_STEER_ENTRY_SIZE(n);
	seed = h->seed;
	if (h->magic != TALLY_STEER_HTAB_MAGIC || log2 > TALLY_STEER_HTAB_MAX_LOG2 ||
	    h->nwords != n || h->stride != stride)
		return steer_bad(m, hiova);
	h = STEER_DMA(m, hiova, TALLY_STEER_HTAB_SIZE(log2, n), *h);
	if (h == NULL)
		return STEER_FAULT;
	ent = (const uint8_t *)h + sizeof(*h);
	mask = (1u << log2) - 1;
	s = tally_steer_hash(w, n, seed) & mask;
	for (i = 0; i <= mask; i++, s = (s + 1) & mask) {
		const struct tally_steer_entry *e =
			(const struct tally_steer_entry *)(const void *)(ent + s * stride);

		if (steer_entry_match(e, w, n, hit, &stop) == STEER_HIT)
			return STEER_HIT;
		if (stop)
			break;
	}
	return STEER_MISS;
}

/* Look a key up in one table: first matcher with a hit wins. */
static enum steer_res
steer_table_lookup(struct tally_model *m, const struct tally_steer_root *root,
		   uint32_t table, const struct tally_match_key *key,
		   struct steer_hit *hit, uint32_t *next)
{
	const struct tally_steer_tbl *t;
	const struct tally_steer_mlist *ml;
	uint64_t tiova, mliova;
	uint32_t n, i;
	enum steer_res r;

	if (table >= root->num_tables)
		return steer_bad(m, root->tables_iova);
	tiova = root->tables_iova + (uint64_t)table * sizeof(*t);
	t = STEER_DMA(m, tiova, sizeof(*t), *t);
	if (t == NULL)
		return STEER_FAULT;
	/* pairs with the driver's release store of the matcher list */
	mliova = __atomic_load_n(&t->mlist, __ATOMIC_ACQUIRE);
	if (mliova == 0)
		return STEER_MISS;
	ml = STEER_DMA(m, mliova, sizeof(*ml), *ml);
	if (ml == NULL)
		return STEER_FAULT;
	n = ml->num;
	if (ml->magic != TALLY_STEER_MLIST_MAGIC || n > TALLY_STEER_MAX_MATCHERS)
		return steer_bad(m, mliova);
	ml = STEER_DMA(m, mliova, TALLY_STEER_MLIST_SIZE(n), *ml);
	if (ml == NULL)
		return STEER_FAULT;
	for (i = *next; i < n; i++) {
		r = steer_matcher_lookup(m, ml->matcher[i], key, hit);
		if (r != STEER_MISS) {
			*next = i + 1;
			return r;
		}
	}
	return STEER_MISS;
}

static bool
steer_rss(struct tally_model *m, const struct tally_steer_root *root,
	  uint32_t idx, struct tally_model_verdict *v)
{
	const struct tally_steer_rss *r;
	uint64_t iova = root->rss_iova + (uint64_t)idx * sizeof(*r);
	uint16_t nq, i;

	if (idx >= root->num_rss) {
		steer_bad(m, root->rss_iova);
		return false;
	}
	r = STEER_DMA(m, iova, sizeof(*r), *r);
	if (r == NULL)
		return false;
	nq = __atomic_load_n(&r->nq, __ATOMIC_ACQUIRE);
	if (nq == 0 || nq > TALLY_STEER_RSS_MAX_QUEUES || nq > TALLY_VERDICT_MAX_RSS) {
		steer_bad(m, iova);
		return false;
	}
	for (i = 0; i < nq; i++)
		v->rss_queues[i] = r->queues[i];
	v->rss_nq = nq;
	v->rss_hf = r->hf;
	v->flags |= TALLY_VERDICT_RSS;
	return true;
}

static const struct tally_steer_root *
steer_root(struct tally_model *m)
{
	const struct tally_steer_root *root;
	uint64_t iova = (uint64_t)tally_model_reg(m, TALLY_REG_STEER_ROOT_LO) |
			(uint64_t)tally_model_reg(m, TALLY_REG_STEER_ROOT_HI) << 32;

	root = STEER_DMA(m, iova, sizeof(*root), *root);
	if (root == NULL)
		return NULL;
	if (root->magic != TALLY_STEER_ROOT_MAGIC ||
	    TALLY_FIELD_GET(root->version, TALLY_STEER_ROOT_VER_MAJOR_M) != TALLY_STEER_FMT_MAJOR ||
	    root->num_tables > TALLY_STEER_MAX_TABLES || root->num_rss > TALLY_STEER_MAX_RSS) {
		tally_model_fault(m, TALLY_FAULT_BAD_STEER, iova);
		return NULL;
	}
	return root;
}

static void
steer_drop(struct tally_model_verdict *v)
{
	v->flags = (v->flags & ~(TALLY_VERDICT_QUEUE | TALLY_VERDICT_RSS)) |
		   TALLY_VERDICT_DROP;
}

void
tally_model_steer_classify(struct tally_model *m, const struct tally_model_pkt *pkt,
			   struct tally_model_verdict *v)
{
	const struct tally_steer_root *root;
	struct steer_hit hit;
	uint32_t table = 0, next = 0, hops, fate;

	memset(v, 0, sizeof(*v));
	if (!(tally_model_reg(m, TALLY_REG_STEER_CTRL) & TALLY_STEER_CTRL_EN))
		return;
	root = steer_root(m);
	if (root == NULL) {
		steer_drop(v);
		return;
	}
	for (hops = 0;;) {
		switch (steer_table_lookup(m, root, table, &pkt->key, &hit, &next)) {
		case STEER_MISS:
			return;
		case STEER_FAULT:
			steer_drop(v);
			return;
		case STEER_HIT:
			break;
		}
		fate = hit.act & TALLY_STEER_ACT_FATE_M;
		if ((fate & (fate - 1)) || (fate && (hit.act & TALLY_STEER_ACT_CONTINUE))) {
			tally_model_fault(m, TALLY_FAULT_BAD_STEER, table);
			steer_drop(v);
			return;
		}
		if (hit.act & TALLY_STEER_ACT_COUNT)
			tally_model_cnt_add(m, TALLY_FIELD_GET(hit.act, TALLY_STEER_ACT_CNT_M),
					    pkt->len);
		if (hit.act & TALLY_STEER_ACT_MARK) {
			v->flags |= TALLY_VERDICT_MARK;
			v->mark = hit.mark;
		}
		if (hit.act & TALLY_STEER_ACT_FLAG)
			v->flags |= TALLY_VERDICT_FLAG;
		switch (fate) {
		case TALLY_STEER_ACT_DROP:
			steer_drop(v);
			return;
		case TALLY_STEER_ACT_QUEUE:
			if (hit.fate > UINT16_MAX) {
				tally_model_fault(m, TALLY_FAULT_BAD_STEER, hit.fate);
				steer_drop(v);
				return;
			}
			v->flags |= TALLY_VERDICT_QUEUE;
			v->queue = (uint16_t)hit.fate;
			return;
		case TALLY_STEER_ACT_RSS:
			if (!steer_rss(m, root, hit.fate, v))
				steer_drop(v);
			return;
		case TALLY_STEER_ACT_JUMP:
			if (++hops == TALLY_STEER_MAX_HOPS) {
				tally_model_fault(m, TALLY_FAULT_BAD_STEER, root->tables_iova);
				steer_drop(v);
				return;
			}
			table = hit.fate;
			next = 0;
			continue;
		default:	/* MISS or no fate: default path */
			if (hit.act & TALLY_STEER_ACT_CONTINUE)
				continue;	/* same table, later matchers */
			return;
		}
	}
}
