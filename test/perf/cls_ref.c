/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The reference classifier, the range expansion into masked entries, the
 * tuples (one per band and mask) and frames of the classification benchmark.
 *
 * The reference is a linear scan in priority order; to stay fast on 1M
 * packets it scans only the rules that can match the packet's destination:
 * rules are filed under the longest of /32, /16, /8, /0 not longer than their
 * destination prefix, keyed by that many leading destination bits, sorted by
 * rule index. A packet checks its bucket at each of the four levels; the
 * smallest matching index wins.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cls_gen.h"

#define REF_LEVELS	4
static const uint8_t ref_len[REF_LEVELS] = { 32, 16, 8, 0 };

struct cls_ref {
	const struct cls_rule *rules;
	uint64_t *e[REF_LEVELS];	/* key << 32 | rule, sorted */
	uint32_t n[REF_LEVELS];
};

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static uint32_t
ref_key(uint32_t dip, uint8_t len)
{
	return len ? dip >> (32 - len) : 0;
}

int
cls_ref_build(const struct cls_set *s, struct cls_ref **out)
{
	struct cls_ref *ref = calloc(1, sizeof(*ref));
	uint32_t i, l;

	if (ref == NULL)
		return -ENOMEM;
	ref->rules = s->rules;
	for (l = 0; l < REF_LEVELS; l++) {
		ref->e[l] = malloc((s->nrules ? s->nrules : 1) * sizeof(uint64_t));
		if (ref->e[l] == NULL) {
			cls_ref_free(ref);
			return -ENOMEM;
		}
	}
	for (i = 0; i < s->nrules; i++) {
		const struct cls_rule *r = &s->rules[i];

		for (l = 0; ref_len[l] > r->dip_len; l++)
			;
		ref->e[l][ref->n[l]++] = (uint64_t)ref_key(r->dip, ref_len[l]) << 32 | i;
	}
	for (l = 0; l < REF_LEVELS; l++)
		qsort(ref->e[l], ref->n[l], sizeof(uint64_t), cmp_u64);
	*out = ref;
	return 0;
}

int32_t
cls_ref_classify(const struct cls_ref *ref, const struct cls_pkt *p)
{
	uint32_t best = UINT32_MAX, l, lo, hi, mid, key, id;

	for (l = 0; l < REF_LEVELS; l++) {
		const uint64_t *e = ref->e[l];

		key = ref_key(p->dip, ref_len[l]);
		lo = 0;
		hi = ref->n[l];
		while (lo < hi) {	/* first element with (e >> 32) >= key */
			mid = lo + (hi - lo) / 2;
			if ((e[mid] >> 32) < key)
				lo = mid + 1;
			else
				hi = mid;
		}
		for (; lo < ref->n[l] && (e[lo] >> 32) == key; lo++) {
			id = (uint32_t)e[lo];
			if (id >= best)
				break;
			if (cls_rule_match(&ref->rules[id], p)) {
				best = id;
				break;
			}
		}
	}
	return best == UINT32_MAX ? -1 : (int32_t)best;
}

int
cls_ref_selfcheck(const struct cls_set *s)
{
	uint32_t i, r, bad = 0;
	int32_t want;

	for (i = 0; i < s->npkts; i++) {
		want = -1;
		for (r = 0; r < s->nrules && want < 0; r++)
			if (cls_rule_match(&s->rules[r], &s->pkts[i]))
				want = (int32_t)r;
		if (want != s->expect[i] && bad++ < 5)
			fprintf(stderr, "reference: packet %u: rule %d, a full scan says %d\n",
				i, s->expect[i], want);
	}
	return bad == 0 ? 0 : -1;
}

uint32_t
cls_ref_mismatches(const struct cls_set *s, const int32_t *got, const char *what)
{
	uint32_t i, bad = 0;

	for (i = 0; i < s->npkts; i++) {
		if (got[i] == s->expect[i])
			continue;
		if (bad++ < 5)
			fprintf(stderr, "%s: packet %u: rule %d, expected %d\n", what, i,
				got[i], s->expect[i]);
	}
	return bad;
}

void
cls_ref_free(struct cls_ref *ref)
{
	uint32_t l;

	if (ref == NULL)
		return;
	for (l = 0; l < REF_LEVELS; l++)
		free(ref->e[l]);
	free(ref);
}

uint32_t
cls_range_prefixes(uint16_t lo, uint16_t hi, uint16_t *val, uint16_t *mask)
{
	uint32_t a = lo, size, n = 0;

	while (a <= hi) {
		size = a ? (a & (~a + 1)) : 0x10000;	/* alignment of a */
		while (a + size - 1 > hi)
			size >>= 1;
		val[n] = (uint16_t)a;
		mask[n] = (uint16_t)~(size - 1);
		n++;
		a += size;
	}
	return n;
}

static uint32_t
pmask(uint8_t len)
{
	return len ? ~0u << (32 - len) : 0;
}

static int
tuple_same(const struct cls_tuple *t, const struct cls_tuple *u)
{
	return t->band == u->band && t->proto_m == u->proto_m && t->sp_m == u->sp_m &&
	       t->dp_m == u->dp_m && t->sip_m == u->sip_m && t->dip_m == u->dip_m;
}

static int
grow(void **p, size_t size)
{
	void *q = realloc(*p, size);

	if (q == NULL)
		return -ENOMEM;
	*p = q;
	return 0;
}

int
cls_expand(const struct cls_set *s, struct cls_tuples *t)
{
	uint16_t sv[32], sm[32], dv[32], dm[32];
	struct cls_entry *ent = NULL;
	uint32_t *eti = NULL, *fill = NULL;
	uint32_t cap = 0, n = 0, i, a, b, k, ns, nd;
	struct cls_tuple cand;

	memset(t, 0, sizeof(*t));
	for (i = 0; i < s->nrules; i++) {
		const struct cls_rule *r = &s->rules[i];

		ns = cls_range_prefixes(r->sp_lo, r->sp_hi, sv, sm);
		nd = cls_range_prefixes(r->dp_lo, r->dp_hi, dv, dm);
		if (n + ns * nd > cap) {
			cap = (n + ns * nd) * 2;
			if (grow((void **)&ent, cap * sizeof(*ent)) != 0 ||
			    grow((void **)&eti, cap * sizeof(*eti)) != 0 ||
			    grow((void **)&t->tup, cap * sizeof(*t->tup)) != 0)
				goto nomem;
		}
		for (a = 0; a < ns; a++) {
			for (b = 0; b < nd; b++, n++) {
				memset(&cand, 0, sizeof(cand));
				cand.band = r->band;
				cand.proto_m = r->proto_mask;
				cand.sp_m = sm[a];
				cand.dp_m = dm[b];
				cand.sip_m = pmask(r->sip_len);
				cand.dip_m = pmask(r->dip_len);
				for (k = 0; k < t->ntup && !tuple_same(&t->tup[k], &cand); k++)
					;
				if (k == t->ntup)
					t->tup[t->ntup++] = cand;
				t->tup[k].n++;
				eti[n] = k;
				ent[n].rule = i;
				ent[n].sip = r->sip;
				ent[n].dip = r->dip;
				ent[n].proto = r->proto & r->proto_mask;
				ent[n].sp = sv[a];
				ent[n].dp = dv[b];
			}
		}
	}
	/* group by tuple, stable: tuples keep their order of first appearance */
	t->ent = malloc((n ? n : 1) * sizeof(*t->ent));
	fill = calloc(t->ntup ? t->ntup : 1, sizeof(*fill));
	if (t->ent == NULL || fill == NULL)
		goto nomem;
	for (k = 0, a = 0; k < t->ntup; k++) {
		t->tup[k].first = a;
		a += t->tup[k].n;
	}
	for (i = 0; i < n; i++)
		t->ent[t->tup[eti[i]].first + fill[eti[i]]++] = ent[i];
	t->nent = n;
	free(ent);
	free(eti);
	free(fill);
	return 0;
nomem:
	free(ent);
	free(eti);
	free(fill);
	cls_tuples_free(t);
	return -ENOMEM;
}

void
cls_tuples_free(struct cls_tuples *t)
{
	free(t->ent);
	free(t->tup);
	memset(t, 0, sizeof(*t));
}

static void
put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void
put32(uint8_t *p, uint32_t v)
{
	put16(p, (uint16_t)(v >> 16));
	put16(p + 2, (uint16_t)v);
}

void
cls_frame(const struct cls_pkt *p, uint8_t *f)
{
	static const uint8_t macs[12] = { 2, 0, 0, 0, 0, 1, 2, 0, 0, 0, 0, 2 };
	uint8_t *ip = f + 14, *l4 = f + 34;
	uint32_t sum = 0, i;

	memset(f, 0, CLS_FRAME_LEN);
	memcpy(f, macs, sizeof(macs));
	put16(f + 12, 0x0800);
	ip[0] = 0x45;
	put16(ip + 2, CLS_FRAME_LEN - 14);
	ip[8] = 64;
	ip[9] = p->proto;
	put32(ip + 12, p->sip);
	put32(ip + 16, p->dip);
	for (i = 0; i < 20; i += 2)
		sum += (uint32_t)ip[i] << 8 | ip[i + 1];
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	put16(ip + 10, (uint16_t)~sum);
	put16(l4, p->sp);
	put16(l4 + 2, p->dp);
	if (p->proto == CLS_PROTO_TCP) {
		l4[12] = 5 << 4;	/* data offset */
		l4[13] = 0x10;		/* ACK */
	} else {
		put16(l4 + 4, CLS_FRAME_LEN - 34);
	}
}

void
cls_set_print(const struct cls_set *s, const struct cls_tuples *t, FILE *f)
{
	static const char *const names[CLS_BANDS] = {
		"exact", "service", "subnet", "range", "wide",
	};
	uint32_t b, range_rules = 0, range_ent = 0, k;

	fprintf(f, "set: %u rules (", s->nrules);
	for (b = 0; b < CLS_BANDS; b++)
		fprintf(f, "%s%s %u", b ? ", " : "", names[b], s->per_band[b]);
	fprintf(f, "), %u packets, %u hits (%.1f %%)\n", s->npkts, s->hits,
		s->npkts ? 100.0 * s->hits / s->npkts : 0.0);
	if (t == NULL)
		return;
	for (k = 0; k < t->ntup; k++) {
		if (t->tup[k].band != CLS_RANGE)
			continue;
		range_ent += t->tup[k].n;
	}
	range_rules = s->per_band[CLS_RANGE];
	fprintf(f, "set: %u masks (band x mask), %u exact-match entries after range "
		"expansion (%u range rules -> %u entries)\n",
		t->ntup, t->nent, range_rules, range_ent);
}
