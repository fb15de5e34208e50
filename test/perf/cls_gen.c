/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Rule set and trace generator of the classification benchmark (cls_gen.h).
 * Deterministic for a given cls_params: one splitmix64 stream.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cls_gen.h"

#define WS_SLOTS	64	/* recent flows a hit may repeat */
#define WS_REUSE_PCT	40
#define MISS_TRIES	100000

static const uint16_t common_ports[] = {
	80, 443, 22, 25, 53, 110, 143, 3306, 5432, 6379, 8080, 8443, 11211,
	27017, 9092, 2049,
};

/* dport ranges of the range band (shape 0) */
static const uint16_t dport_ranges[][2] = {
	{ 0, 1023 }, { 1024, 65535 }, { 49152, 65535 },
	{ 6000, 6063 }, { 8080, 8081 }, { 5000, 5099 },
};

struct gen {
	uint64_t st;
	uint32_t *srv;			/* server /24 networks in 10/8 */
	uint32_t nsrv;
	uint32_t *cli;			/* client /24 networks */
	uint32_t ncli;
	struct cls_fp_set seen;		/* rule fingerprints */
	struct cls_fp_set dips;		/* destination hosts of range rules */
};

static uint64_t
rnd64(struct gen *g)
{
	uint64_t z = (g->st += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static uint32_t
rnd(struct gen *g, uint32_t n)
{
	return (uint32_t)(((rnd64(g) >> 32) * n) >> 32);
}

static uint32_t
pmask(uint8_t len)
{
	return len ? ~0u << (32 - len) : 0;
}

int
cls_fp_init(struct cls_fp_set *s, uint32_t n)
{
	uint32_t cap = 64;

	while (cap < 4 * n)
		cap <<= 1;
	s->v = calloc(cap, sizeof(*s->v));
	s->mask = cap - 1;
	return s->v == NULL ? -ENOMEM : 0;
}

void
cls_fp_free(struct cls_fp_set *s)
{
	free(s->v);
	s->v = NULL;
}

int
cls_fp_add(struct cls_fp_set *s, uint64_t fp)
{
	uint32_t i = (uint32_t)(fp ^ (fp >> 32)) & s->mask;

	fp |= 1;
	for (;; i = (i + 1) & s->mask) {
		if (s->v[i] == fp)
			return 1;
		if (s->v[i] == 0) {
			s->v[i] = fp;
			return 0;
		}
	}
}

int
cls_fp_has(const struct cls_fp_set *s, uint64_t fp)
{
	uint32_t i = (uint32_t)(fp ^ (fp >> 32)) & s->mask;

	fp |= 1;
	for (; s->v[i] != 0; i = (i + 1) & s->mask)
		if (s->v[i] == fp)
			return 1;
	return 0;
}

static uint64_t
mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
	return h * 0xff51afd7ed558ccdull;
}

static uint64_t
rule_fp(const struct cls_rule *r)
{
	uint64_t h = 0x1234567;

	h = mix(h, ((uint64_t)r->band << 8) | r->shape);
	h = mix(h, ((uint64_t)r->sip << 8) | r->sip_len);
	h = mix(h, ((uint64_t)r->dip << 8) | r->dip_len);
	h = mix(h, ((uint64_t)r->proto << 8) | r->proto_mask);
	h = mix(h, ((uint64_t)r->sp_lo << 16) | r->sp_hi);
	h = mix(h, ((uint64_t)r->dp_lo << 16) | r->dp_hi);
	return h;
}

static uint32_t
srv_host(struct gen *g)
{
	return g->srv[rnd(g, g->nsrv)] | (1 + rnd(g, 254));
}

static uint32_t
cli_host(struct gen *g)
{
	return g->cli[rnd(g, g->ncli)] | rnd(g, 256);
}

static uint8_t
rnd_proto(struct gen *g)
{
	return rnd(g, 4) == 0 ? CLS_PROTO_UDP : CLS_PROTO_TCP;
}

static uint16_t
rnd_service_port(struct gen *g, uint32_t common_pct)
{
	if (rnd(g, 100) < common_pct)
		return common_ports[rnd(g, sizeof(common_ports) / sizeof(common_ports[0]))];
	return (uint16_t)(1 + rnd(g, 65535));
}

static int
pools_init(struct gen *g, uint32_t nrules)
{
	uint32_t i, b;

	g->nsrv = nrules / 32 < 16 ? 16 : nrules / 32;
	g->ncli = nrules / 8 < 64 ? 64 : nrules / 8;
	g->srv = malloc(g->nsrv * sizeof(*g->srv));
	g->cli = malloc(g->ncli * sizeof(*g->cli));
	if (g->srv == NULL || g->cli == NULL)
		return -ENOMEM;
	for (i = 0; i < g->nsrv; i++)
		g->srv[i] = (10u << 24) | (rnd(g, 1u << 16) << 8);
	for (i = 0; i < g->ncli; i++) {
		b = rnd(g, 3);
		if (b == 0)	/* 172.16.0.0/12 */
			g->cli[i] = (172u << 24) | ((16 + rnd(g, 16)) << 16) | (rnd(g, 256) << 8);
		else if (b == 1)	/* 192.168.0.0/16 */
			g->cli[i] = (192u << 24) | (168u << 16) | (rnd(g, 256) << 8);
		else	/* 100..126/8 */
			g->cli[i] = ((100 + rnd(g, 27)) << 24) | (rnd(g, 1u << 16) << 8);
	}
	return 0;
}

static void
rule_any(struct cls_rule *r, uint8_t band, uint8_t shape)
{
	memset(r, 0, sizeof(*r));
	r->band = band;
	r->shape = shape;
	r->sp_hi = 0xffff;
	r->dp_hi = 0xffff;
}

static void
rule_proto(struct cls_rule *r, uint8_t proto)
{
	r->proto = proto;
	r->proto_mask = 0xff;
}

static void
rule_sip(struct cls_rule *r, uint32_t a, uint8_t len)
{
	r->sip = a & pmask(len);
	r->sip_len = len;
}

static void
rule_dip(struct cls_rule *r, uint32_t a, uint8_t len)
{
	r->dip = a & pmask(len);
	r->dip_len = len;
}

/* One candidate rule of band/shape; the caller refuses duplicates. */
static void
rule_make(struct gen *g, uint8_t band, uint8_t shape, struct cls_rule *r)
{
	const uint16_t *dr;
	uint32_t a;

	rule_any(r, band, shape);
	switch (band) {
	case CLS_EXACT:
		rule_proto(r, rnd_proto(g));
		rule_sip(r, cli_host(g), 32);
		rule_dip(r, srv_host(g), 32);
		r->sp_lo = r->sp_hi = (uint16_t)(1024 + rnd(g, 64512));
		r->dp_lo = r->dp_hi = rnd_service_port(g, 70);
		break;
	case CLS_SERVICE:
		rule_proto(r, rnd_proto(g));
		rule_dip(r, srv_host(g), 32);
		r->dp_lo = r->dp_hi = rnd_service_port(g, 50);
		break;
	case CLS_SUBNET:
		if (shape == 0) {
			rule_sip(r, cli_host(g), 24);
			rule_dip(r, srv_host(g), 24);
		} else if (shape == 1) {
			rule_sip(r, cli_host(g), 16);
			rule_dip(r, srv_host(g), 16);
		} else {
			rule_dip(r, srv_host(g), 24);
		}
		break;
	case CLS_RANGE:
		do {
			a = srv_host(g);
		} while (cls_fp_add(&g->dips, a));
		rule_proto(r, rnd_proto(g));
		rule_dip(r, a, 32);
		if (shape == 0) {
			dr = dport_ranges[rnd(g, sizeof(dport_ranges) / sizeof(dport_ranges[0]))];
			r->dp_lo = dr[0];
			r->dp_hi = dr[1];
		} else {
			r->sp_lo = 49152;
			r->dp_lo = r->dp_hi = rnd_service_port(g, 70);
		}
		break;
	default:	/* CLS_WIDE */
		if (shape == 0) {
			rule_dip(r, ((20 + rnd(g, 10)) << 24) | (rnd(g, 256) << 16), 16);
		} else if (shape == 1) {
			rule_proto(r, rnd_proto(g));
			r->dp_lo = r->dp_hi = (uint16_t)(1 + rnd(g, 65535));
		} else {
			rule_proto(r, rnd_proto(g));
			rule_sip(r, ((40 + rnd(g, 10)) << 24) | (rnd(g, 256) << 16), 16);
		}
		break;
	}
}

/* Rules per band and per shape (percent of the band). */
static const uint32_t band_pct[CLS_BANDS] = { 70, 12, 8, 7, 3 };
static const uint32_t shape_pct[CLS_BANDS][3] = {
	{ 100, 0, 0 }, { 100, 0, 0 }, { 50, 30, 20 }, { 80, 20, 0 }, { 40, 30, 30 },
};

static int
gen_rules(struct gen *g, struct cls_set *s)
{
	uint32_t b, sh, k, nsh, want, done, band_n, left = s->nrules, n = 0, tries;

	for (b = 0; b < CLS_BANDS; b++) {
		band_n = b == CLS_BANDS - 1 ? left : s->nrules * band_pct[b] / 100;
		left -= band_n;
		s->per_band[b] = band_n;
		for (nsh = 0; nsh < 3 && shape_pct[b][nsh] != 0; nsh++)
			;
		for (sh = 0, done = 0; sh < nsh; sh++) {
			want = sh == nsh - 1 ? band_n - done : band_n * shape_pct[b][sh] / 100;
			done += want;
			for (k = 0; k < want; k++, n++) {
				tries = 0;
				do {
					if (++tries > MISS_TRIES)
						return -EDOM;	/* shape space exhausted */
					rule_make(g, (uint8_t)b, (uint8_t)sh, &s->rules[n]);
				} while (cls_fp_add(&g->seen, rule_fp(&s->rules[n])));
			}
		}
	}
	return n == s->nrules ? 0 : -EINVAL;
}

int
cls_rule_match(const struct cls_rule *r, const struct cls_pkt *p)
{
	return (p->sip & pmask(r->sip_len)) == r->sip &&
	       (p->dip & pmask(r->dip_len)) == r->dip &&
	       (p->proto & r->proto_mask) == (r->proto & r->proto_mask) &&
	       p->sp >= r->sp_lo && p->sp <= r->sp_hi &&
	       p->dp >= r->dp_lo && p->dp <= r->dp_hi;
}

static uint32_t
rnd_in_prefix(struct gen *g, uint32_t v, uint8_t len, uint32_t pool_host)
{
	if (len == 0)
		return pool_host;
	return v | ((uint32_t)rnd64(g) & ~pmask(len));
}

static uint16_t
rnd_in_range(struct gen *g, uint16_t lo, uint16_t hi)
{
	return (uint16_t)(lo + rnd(g, (uint32_t)hi - lo + 1));
}

static void
pkt_in_rule(struct gen *g, const struct cls_rule *r, struct cls_pkt *p)
{
	p->sip = rnd_in_prefix(g, r->sip, r->sip_len, cli_host(g));
	p->dip = rnd_in_prefix(g, r->dip, r->dip_len, srv_host(g));
	p->proto = r->proto_mask ? r->proto : rnd_proto(g);
	if (r->sp_lo == 0 && r->sp_hi == 0xffff)
		p->sp = (uint16_t)(1024 + rnd(g, 64512));
	else
		p->sp = rnd_in_range(g, r->sp_lo, r->sp_hi);
	if (r->dp_lo == 0 && r->dp_hi == 0xffff)
		p->dp = rnd_service_port(g, 70);
	else
		p->dp = rnd_in_range(g, r->dp_lo, r->dp_hi);
}

static int
pkt_miss(struct gen *g, const struct cls_ref *ref, struct cls_pkt *p)
{
	uint32_t t;

	for (t = 0; t < MISS_TRIES; t++) {
		if (rnd(g, 2)) {	/* near miss: known hosts, other ports */
			p->sip = cli_host(g);
			p->dip = srv_host(g);
		} else {
			p->sip = (uint32_t)rnd64(g);
			p->dip = (uint32_t)rnd64(g);
		}
		p->proto = rnd_proto(g);
		p->sp = (uint16_t)rnd(g, 65536);
		p->dp = (uint16_t)rnd(g, 65536);
		if (cls_ref_classify(ref, p) < 0)
			return 0;
	}
	return -EDOM;
}

static int
gen_trace(struct gen *g, struct cls_set *s, const struct cls_ref *ref, uint32_t hit_pct)
{
	struct cls_pkt ws[WS_SLOTS];
	uint32_t *perm = malloc(s->nrules * sizeof(*perm));
	uint8_t *miss = calloc(s->npkts, 1);
	uint32_t i, j, t, nmiss, wsn = 0, wpos = 0;
	double u;
	int rc = 0;

	if (perm == NULL || miss == NULL) {
		rc = -ENOMEM;
		goto out;
	}
	for (i = 0; i < s->nrules; i++)
		perm[i] = i;
	for (i = s->nrules; i > 1; i--) {
		j = rnd(g, i);
		t = perm[i - 1];
		perm[i - 1] = perm[j];
		perm[j] = t;
	}
	nmiss = (uint32_t)((uint64_t)s->npkts * (100 - hit_pct) / 100);
	for (i = 0; i < nmiss; i++)
		miss[i] = 1;
	for (i = s->npkts; i > 1; i--) {
		j = rnd(g, i);
		t = miss[i - 1];
		miss[i - 1] = miss[j];
		miss[j] = (uint8_t)t;
	}
	s->hits = 0;
	for (i = 0; i < s->npkts; i++) {
		struct cls_pkt *p = &s->pkts[i];

		memset(p, 0, sizeof(*p));
		if (miss[i]) {
			rc = pkt_miss(g, ref, p);
			if (rc != 0)
				goto out;
		} else if (wsn > 0 && rnd(g, 100) < WS_REUSE_PCT) {
			*p = ws[rnd(g, wsn)];
		} else {
			u = (double)(rnd64(g) >> 11) / (double)(1ull << 53);
			pkt_in_rule(g, &s->rules[perm[(uint32_t)(u * u * u * s->nrules)]], p);
			ws[wpos] = *p;
			wpos = (wpos + 1) % WS_SLOTS;
			if (wsn < WS_SLOTS)
				wsn++;
		}
		s->expect[i] = cls_ref_classify(ref, p);
		if (s->expect[i] >= 0) {
			s->expect_cnt[s->expect[i]]++;
			s->hits++;
		}
	}
out:
	free(perm);
	free(miss);
	return rc;
}

void
cls_params_init(struct cls_params *p)
{
	p->rules = 1000;
	p->packets = 1000000;
	p->seed = 1;
	p->hit_pct = 80;
}

int
cls_set_gen(const struct cls_params *p, struct cls_set *s)
{
	struct gen g;
	struct cls_ref *ref = NULL;
	int rc;

	memset(s, 0, sizeof(*s));
	memset(&g, 0, sizeof(g));
	if (p->rules == 0 || p->rules > (1u << 24) || p->hit_pct > 100)
		return -EINVAL;
	g.st = 0x5eed0000ull ^ ((uint64_t)p->seed << 32) ^ p->rules;
	s->nrules = p->rules;
	s->npkts = p->packets;
	s->rules = calloc(s->nrules, sizeof(*s->rules));
	s->pkts = calloc(s->npkts ? s->npkts : 1, sizeof(*s->pkts));
	s->expect = calloc(s->npkts ? s->npkts : 1, sizeof(*s->expect));
	s->expect_cnt = calloc(s->nrules, sizeof(*s->expect_cnt));
	rc = -ENOMEM;
	if (s->rules == NULL || s->pkts == NULL || s->expect == NULL ||
	    s->expect_cnt == NULL || pools_init(&g, s->nrules) != 0 ||
	    cls_fp_init(&g.seen, s->nrules) != 0 || cls_fp_init(&g.dips, s->nrules) != 0)
		goto out;
	rc = gen_rules(&g, s);
	if (rc == 0)
		rc = cls_ref_build(s, &ref);
	if (rc == 0)
		rc = gen_trace(&g, s, ref, p->hit_pct);
out:
	cls_ref_free(ref);
	free(g.srv);
	free(g.cli);
	cls_fp_free(&g.seen);
	cls_fp_free(&g.dips);
	if (rc != 0)
		cls_set_free(s);
	return rc;
}

void
cls_set_free(struct cls_set *s)
{
	free(s->rules);
	free(s->pkts);
	free(s->expect);
	free(s->expect_cnt);
	memset(s, 0, sizeof(*s));
}

int
cls_parse_opt(struct cls_params *p, int argc, char **argv, int *i)
{
	static const char *const names[] = { "--rules", "--packets", "--seed", "--hit-pct" };
	uint32_t *dst[] = { &p->rules, &p->packets, &p->seed, &p->hit_pct };
	unsigned long v;
	char *end;
	size_t k;

	for (k = 0; k < sizeof(names) / sizeof(names[0]); k++) {
		if (strcmp(argv[*i], names[k]) != 0)
			continue;
		if (*i + 1 >= argc)
			return -1;
		v = strtoul(argv[*i + 1], &end, 0);
		if (*end != '\0' || v > UINT32_MAX)
			return -1;
		*dst[k] = (uint32_t)v;
		(*i)++;
		return 1;
	}
	return 0;
}
