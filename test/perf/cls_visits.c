/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Matcher visits per frame of the classification benchmark's rule set and
 * trace (cls_gen.h), counted, not timed: how many (band, mask) tuples a
 * frame visits in the steering walk (each tuple in probe order until its
 * first hit, as the device's matchers are walked), and how many it would
 * visit if runs of consecutive tuples were grouped under the mask they all
 * share, with one exact test of that shared part first (a summary of the
 * group's entries; a frame that fails it skips the whole group). The
 * groups are chosen greedily from tuple FROM on: a run grows while the
 * bits its masks share stay at least MIN_BITS. Membership is exact here;
 * a presence filter would add its false positives. A third count takes
 * runs of consecutive tuples of one band whose masks differ only in the L4
 * ports as one visit: what a matcher with port ranges in its entries (the
 * rule's range kept whole instead of its prefix cover) would cost.
 *
 * usage: cls_visits [--rules N] [--packets N] [--seed N] [--hit-pct N]
 *                   [--min-bits N] [--from N]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cls_gen.h"

struct vkey {
	uint32_t sip, dip;
	uint16_t sp, dp;
	uint8_t proto;
};

static uint64_t
vkey_digest(const struct vkey *k)
{
	uint64_t h = k->sip * 0x9e3779b97f4a7c15ull ^ k->dip * 0xc2b2ae3d27d4eb4full;

	h ^= ((uint64_t)k->sp << 24 | (uint64_t)k->dp << 8 | k->proto) * 0x165667b19e3779f9ull;
	h ^= h >> 29;
	h *= 0xbf58476d1ce4e5b9ull;
	h ^= h >> 32;
	return h;
}

static struct vkey
vkey_of_entry(const struct cls_entry *en)
{
	struct vkey k = { en->sip, en->dip, en->sp, en->dp, en->proto };

	return k;
}

static struct vkey
vkey_and(const struct vkey *k, const struct vkey *m)
{
	struct vkey r = {
		.sip = k->sip & m->sip, .dip = k->dip & m->dip,
		.sp = (uint16_t)(k->sp & m->sp), .dp = (uint16_t)(k->dp & m->dp),
		.proto = (uint8_t)(k->proto & m->proto),
	};

	return r;
}

static int
vkey_bits(const struct vkey *m)
{
	return __builtin_popcount(m->sip) + __builtin_popcount(m->dip) +
	       __builtin_popcount(m->sp) + __builtin_popcount(m->dp) +
	       __builtin_popcount(m->proto);
}

struct visits {
	uint32_t nt;
	struct vkey *mask;		/* per tuple */
	struct cls_fp_set *ent;		/* per tuple: its entries */
	uint32_t *gend;			/* per tuple: last of the group it starts, 0: none */
	struct vkey *gmask;		/* per group start: the shared mask */
	struct cls_fp_set *gent;		/* per group start: its entries under gmask */
};

static int
visits_build(struct visits *v, const struct cls_tuples *t, int min_bits, uint32_t from)
{
	uint32_t j, k, q, e, n;

	v->nt = t->ntup;
	v->mask = calloc(v->nt, sizeof(*v->mask));
	v->ent = calloc(v->nt, sizeof(*v->ent));
	v->gend = calloc(v->nt, sizeof(*v->gend));
	v->gmask = calloc(v->nt, sizeof(*v->gmask));
	v->gent = calloc(v->nt, sizeof(*v->gent));
	if (v->mask == NULL || v->ent == NULL || v->gend == NULL || v->gmask == NULL ||
	    v->gent == NULL)
		return -1;
	for (j = 0; j < v->nt; j++) {
		const struct cls_tuple *tp = &t->tup[j];

		v->mask[j] = (struct vkey){ .sip = tp->sip_m, .dip = tp->dip_m, .sp = tp->sp_m,
					    .dp = tp->dp_m, .proto = tp->proto_m };
		if (cls_fp_init(&v->ent[j], tp->n) != 0)
			return -1;
		for (q = tp->first; q < tp->first + tp->n; q++) {
			struct vkey kk = vkey_of_entry(&t->ent[q]);

			cls_fp_add(&v->ent[j], vkey_digest(&kk));
		}
	}
	for (j = from; j < v->nt; j = e + 1) {
		struct vkey g = v->mask[j];

		for (e = j; e + 1 < v->nt; e++) {
			struct vkey g2 = vkey_and(&g, &v->mask[e + 1]);

			if (vkey_bits(&g2) < min_bits)
				break;
			g = g2;
		}
		if (e == j)
			continue;	/* a group of one tuple tests nothing more */
		v->gend[j] = e;
		v->gmask[j] = g;
		for (k = j, n = 0; k <= e; k++)
			n += t->tup[k].n;
		if (cls_fp_init(&v->gent[j], n) != 0)
			return -1;
		for (k = j; k <= e; k++) {
			for (q = t->tup[k].first; q < t->tup[k].first + t->tup[k].n; q++) {
				struct vkey kk = vkey_of_entry(&t->ent[q]);
				struct vkey km = vkey_and(&kk, &g);

				cls_fp_add(&v->gent[j], vkey_digest(&km));
			}
		}
		printf("group: tuples %u-%u share %d bits (sip %08x dip %08x sport %04x dport %04x "
		       "proto %02x)\n", j, e, vkey_bits(&g), g.sip, g.dip, g.sp, g.dp, g.proto);
	}
	return 0;
}

static void
visits_free(struct visits *v)
{
	uint32_t j;

	for (j = 0; j < v->nt; j++) {
		if (v->ent != NULL)
			cls_fp_free(&v->ent[j]);
		if (v->gent != NULL)
			cls_fp_free(&v->gent[j]);
	}
	free(v->mask);
	free(v->ent);
	free(v->gend);
	free(v->gmask);
	free(v->gent);
}

/* May tuple j hold k (its masked key is one of its entries)? */
static int
visits_hit(const struct visits *v, uint32_t j, const struct vkey *k)
{
	struct vkey km = vkey_and(k, &v->mask[j]);

	return cls_fp_has(&v->ent[j], vkey_digest(&km));
}

int
main(int argc, char **argv)
{
	uint64_t walk = 0, grouped = 0, tests = 0, skips = 0, ranged = 0;
	uint32_t *rend, nrt = 0;
	struct visits v = { 0 };
	struct cls_params p;
	struct cls_tuples t;
	struct cls_set s;
	uint32_t from = 1, i, j;
	int min_bits = 16, a, rc;

	cls_params_init(&p);
	for (a = 1; a < argc; a++) {
		rc = cls_parse_opt(&p, argc, argv, &a);
		if (rc > 0)
			continue;
		if (rc == 0 && strcmp(argv[a], "--min-bits") == 0 && a + 1 < argc) {
			min_bits = atoi(argv[++a]);
		} else if (rc == 0 && strcmp(argv[a], "--from") == 0 && a + 1 < argc) {
			from = (uint32_t)strtoul(argv[++a], NULL, 0);
		} else {
			fprintf(stderr, "usage: cls_visits [--rules N] [--packets N] [--seed N] "
				"[--hit-pct N] [--min-bits N] [--from N]\n");
			return 2;
		}
	}
	rc = cls_set_gen(&p, &s);
	if (rc != 0) {
		fprintf(stderr, "generate: %d\n", rc);
		return 1;
	}
	if (cls_expand(&s, &t) != 0 || visits_build(&v, &t, min_bits, from) != 0) {
		fprintf(stderr, "out of memory\n");
		return 1;
	}
	/* rend[j]: the last tuple of the run of port-only differences that j
	 * is in */
	rend = calloc(v.nt, sizeof(*rend));
	if (rend == NULL)
		return 1;
	for (j = 0; j < v.nt; j = rend[j] + 1, nrt++) {
		uint32_t e = j, q;

		while (e + 1 < v.nt && t.tup[e + 1].band == t.tup[j].band &&
		       t.tup[e + 1].sip_m == t.tup[j].sip_m && t.tup[e + 1].dip_m == t.tup[j].dip_m &&
		       t.tup[e + 1].proto_m == t.tup[j].proto_m)
			e++;
		for (q = j; q <= e; q++)
			rend[q] = e;
	}
	for (i = 0; i < s.npkts; i++) {
		const struct cls_pkt *pk = &s.pkts[i];
		struct vkey k = { pk->sip, pk->dip, pk->sp, pk->dp, pk->proto };

		for (j = 0; j < v.nt; j = rend[j] + 1) {
			uint32_t q;

			ranged++;
			for (q = j; q <= rend[j] && !visits_hit(&v, q, &k); q++)
				;
			if (q <= rend[j])
				break;
		}

		for (j = 0; j < v.nt; j++) {
			walk++;
			if (visits_hit(&v, j, &k))
				break;
		}
		for (j = 0; j < v.nt;) {
			if (v.gend[j] != 0) {
				struct vkey km = vkey_and(&k, &v.gmask[j]);

				tests++;
				if (!cls_fp_has(&v.gent[j], vkey_digest(&km))) {
					skips++;
					j = v.gend[j] + 1;
					continue;
				}
			}
			grouped++;
			if (visits_hit(&v, j, &k))
				break;
			j++;
		}
	}
	printf("%u rules, %u packets, %u tuples; tuple visits per frame: walk %.3f, "
	       "grouped %.3f + group tests %.3f = %.3f (groups skipped per frame %.3f)\n",
	       s.nrules, s.npkts, v.nt, (double)walk / s.npkts, (double)grouped / s.npkts,
	       (double)tests / s.npkts, (double)(grouped + tests) / s.npkts,
	       (double)skips / s.npkts);
	printf("with port ranges in the entries: %u tuples, %.3f visits per frame\n", nrt,
	       (double)ranged / s.npkts);
	free(rend);
	visits_free(&v);
	cls_tuples_free(&t);
	cls_set_free(&s);
	return 0;
}
