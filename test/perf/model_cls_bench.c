/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The device's classification engine alone: rules built with lib/steer into
 * a software device, a trace of pre-parsed frames classified in bursts
 * (tally_model_steer_classify_burst) or one by one, counters on. Prints
 * ns/frame, cycles/frame (TSC) and the hit ratio.
 *
 *   model_cls_bench [-r rules] [-n frames] [-b burst] [-i rounds] [-1] [-m] [-s seed]
 *     -1  one frame per call (tally_model_steer_classify)
 *     -m  merged placement (tally_steer_merge_ports) of TCP/UDP port masks
 *     -p  size every matcher for factor x its rules once they are in
 *         (tally_steer_matcher_reserve: load <= 5/(8 x factor))
 *
 * Rule mix (ClassBench-like, all IPv4, TCP or UDP half each): 70 % exact
 * 5-tuples, 10 % service (protocol, destination address, destination port),
 * 5 % protocol + destination port, 5 % port ranges (protocol + destination
 * port / 6 bits), 5 % destination /24, 4 % source /16 + destination /16, 1 %
 * protocol-wide rules (ICMP, GRE, ESP, ...): 11 masks, 7 with -m. One
 * priority per class, most specific first. Trace: 80 % of frames match a
 * random rule, 20 % come from addresses no rule names.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#if defined(__x86_64__)
#include <x86intrin.h>
#endif

#include "steer_model_dev.h"
#include "tally_model.h"
#include "tally_model_dev.h"
#ifndef BENCH_BASELINE
#include "tally_steer_place.h"
#endif

#define ARENA_LEN	(1ull << 32)
#define MAX_MATCHERS	64

enum cls { C_EXACT, C_SERVICE, C_PORT, C_RANGE, C_SUB24, C_SUB16, C_WIDE, C_NUM };
static const uint32_t cls_pct[C_NUM] = { 70, 10, 5, 5, 5, 4, 1 };

struct rule {
	enum cls c;
	uint8_t proto;
	uint32_t sip, dip;
	uint16_t sp, dp;
};

struct bench {
	struct steer_dev dev;
	struct tally_steer_table *t;
	struct tally_steer_matcher *mt[MAX_MATCHERS];
	struct tally_match_key mmask[MAX_MATCHERS];
	uint32_t mprio[MAX_MATCHERS];
	uint32_t nm;
	unsigned int seed;
};

static uint32_t
rnd(struct bench *b)
{
	return (uint32_t)rand_r(&b->seed) ^ (uint32_t)rand_r(&b->seed) << 15;
}

static uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint64_t
tsc(void)
{
#if defined(__x86_64__)
	return __rdtsc();
#else
	return 0;
#endif
}

static void
put_ports(struct tally_match_key *k, uint8_t proto, uint16_t sp, uint16_t dp,
	  uint16_t spm, uint16_t dpm)
{
	uint32_t off = proto == 6 ? TALLY_L24_TCP_SPORT : TALLY_L24_UDP_SPORT;

	if (spm)
		key_put(k, TALLY_MK(TALLY_MS_OUTER, off), sp & spm, 2);
	if (dpm)
		key_put(k, TALLY_MK(TALLY_MS_OUTER, off + 2), dp & dpm, 2);
}

/* Mask (mk) and value (v) of rule r. */
static void
rule_match(const struct rule *r, struct tally_match_key *mk, struct tally_match_key *v)
{
	uint32_t sipm = 0, dipm = 0;
	uint16_t spm = 0, dpm = 0;
	bool proto = true;

	memset(mk, 0, sizeof(*mk));
	memset(v, 0, sizeof(*v));
	switch (r->c) {
	case C_EXACT: sipm = dipm = 0xffffffff; spm = dpm = 0xffff; break;
	case C_SERVICE: dipm = 0xffffffff; dpm = 0xffff; break;
	case C_PORT: dpm = 0xffff; break;
	case C_RANGE: dpm = 0xffc0; break;
	case C_SUB24: dipm = 0xffffff00; proto = false; break;
	case C_SUB16: sipm = dipm = 0xffff0000; proto = false; break;
	default: break;
	}
	key_put(mk, TALLY_MK(TALLY_MS_OUTER, TALLY_L24_ETHERTYPE), 0xffff, 2);
	key_put(v, TALLY_MK(TALLY_MS_OUTER, TALLY_L24_ETHERTYPE), 0x0800, 2);
	if (proto) {
		key_put(mk, TALLY_MK(TALLY_MS_OUTER, TALLY_L24_IP_PROTOCOL), 0xff, 1);
		key_put(v, TALLY_MK(TALLY_MS_OUTER, TALLY_L24_IP_PROTOCOL), r->proto, 1);
	}
	if (sipm) {
		key_put(mk, TALLY_MK(TALLY_MS_OUTER, TALLY_L24_SRC_IPV4), sipm, 4);
		key_put(v, TALLY_MK(TALLY_MS_OUTER, TALLY_L24_SRC_IPV4), r->sip & sipm, 4);
	}
	if (dipm) {
		key_put(mk, TALLY_MK(TALLY_MS_OUTER, TALLY_L24_DST_IPV4), dipm, 4);
		key_put(v, TALLY_MK(TALLY_MS_OUTER, TALLY_L24_DST_IPV4), r->dip & dipm, 4);
	}
	if (spm || dpm) {
		put_ports(mk, r->proto, 0xffff, 0xffff, spm, dpm);
		put_ports(v, r->proto, r->sp, r->dp, spm, dpm);
	}
}

static struct tally_steer_matcher *
bench_matcher(struct bench *b, uint32_t prio, const struct tally_match_key *mk)
{
	uint32_t i;

	for (i = 0; i < b->nm; i++)
		if (b->mprio[i] == prio && memcmp(&b->mmask[i], mk, sizeof(*mk)) == 0)
			return b->mt[i];
	if (b->nm == MAX_MATCHERS ||
	    tally_steer_matcher_create(b->t, prio, mk, &b->mt[b->nm]) != 0)
		return NULL;
	b->mmask[b->nm] = *mk;
	b->mprio[b->nm] = prio;
	return b->mt[b->nm++];
}

static int
bench_setup(struct bench *b, uint32_t counters)
{
	struct tally_steer_config sc = { 0 };
	char err[128];

	if (steer_dev_init(&b->dev, ARENA_LEN, counters, &sc, err, sizeof(err)) != 0) {
		fprintf(stderr, "device: %s\n", err);
		return -1;
	}
	if (tally_steer_table_create(b->dev.ctx, 0, &b->t) != 0)
		return -1;
	return 0;
}

static void
rule_rand(struct bench *b, struct rule *r)
{
	static const uint8_t wide[] = { 1, 47, 50, 51, 132 };
	uint32_t x = rnd(b) % 100, c = 0, acc = 0;

	while (c < C_NUM - 1 && x >= acc + cls_pct[c])
		acc += cls_pct[c++];
	r->c = (enum cls)c;
	r->proto = rnd(b) & 1 ? 6 : 17;
	if (r->c == C_WIDE)
		r->proto = wide[rnd(b) % sizeof(wide)];
	r->sip = 0x0a000000u | (rnd(b) & 0xffffff);
	r->dip = 0x0a000000u | (rnd(b) & 0xffffff);
	r->sp = (uint16_t)(1024 + rnd(b) % 60000);
	r->dp = (uint16_t)(rnd(b) % 2048);
}

/* A pre-parsed frame: the key as the parser writes it. */
static void
pkt_make(struct bench *b, struct tally_model_pkt *p, const struct rule *r)
{
	struct tally_match_key *k = &p->key;
	uint8_t proto = r->proto;
	uint32_t sip = r->sip, dip = r->dip;
	uint16_t sp = r->sp, dp = r->dp;

	memset(p, 0, sizeof(*p));
	switch (r->c) {	/* fill what the rule leaves open */
	case C_SERVICE: sip = 0x0a000000u | (rnd(b) & 0xffffff); sp = (uint16_t)rnd(b); break;
	case C_PORT: sip = rnd(b); dip = rnd(b); sp = (uint16_t)rnd(b); break;
	case C_RANGE: sip = rnd(b); dip = rnd(b); sp = (uint16_t)rnd(b);
		dp = (uint16_t)((dp & 0xffc0) | (rnd(b) & 0x3f)); break;
	case C_SUB24: dip = (dip & 0xffffff00) | (rnd(b) & 0xff); sip = rnd(b);
		proto = rnd(b) & 1 ? 6 : 17; sp = (uint16_t)rnd(b); dp = (uint16_t)rnd(b); break;
	case C_SUB16: sip = (sip & 0xffff0000) | (rnd(b) & 0xffff);
		dip = (dip & 0xffff0000) | (rnd(b) & 0xffff);
		proto = rnd(b) & 1 ? 6 : 17; sp = (uint16_t)rnd(b); dp = (uint16_t)rnd(b); break;
	case C_WIDE: sip = rnd(b); dip = rnd(b); break;
	default: break;
	}
	key_put(k, TALLY_MK(TALLY_MS_OUTER, TALLY_L24_ETHERTYPE), 0x0800, 2);
	key_put(k, TALLY_MK(TALLY_MS_OUTER, TALLY_L24_IP_PROTOCOL), proto, 1);
	key_put(k, TALLY_MK(TALLY_MS_OUTER, TALLY_L24_SRC_IPV4), sip, 4);
	key_put(k, TALLY_MK(TALLY_MS_OUTER, TALLY_L24_DST_IPV4), dip, 4);
	key_put(k, TALLY_MK(TALLY_MS_OUTER, TALLY_L24_TTL_HOPLIMIT), 64, 1);
	if (proto == 6 || proto == 17)
		put_ports(k, proto, sp, dp, 0xffff, 0xffff);
	p->len = 64 + rnd(b) % 1400;
}

int
main(int argc, char **argv)
{
	uint32_t nrules = 1000, npkts = 65536, burst = 32, rounds = 20, i, j, r, hits = 0;
	uint32_t presize = 0;
	bool single = false, merge = false, verbose = false;
	struct bench b = { .seed = 1 };
	struct tally_model_pkt *pkts;
	const struct tally_model_pkt **pp;
	struct tally_model_verdict *v;
	struct rule *rules;
	uint64_t t0, t1, c0, c1;
	int opt;

	while ((opt = getopt(argc, argv, "r:n:b:i:1mp:s:v")) != -1) {
		switch (opt) {
		case 'r': nrules = (uint32_t)atoi(optarg); break;
		case 'n': npkts = (uint32_t)atoi(optarg); break;
		case 'b': burst = (uint32_t)atoi(optarg); break;
		case 'i': rounds = (uint32_t)atoi(optarg); break;
		case '1': single = true; break;
		case 'm': merge = true; break;
		case 'v': verbose = true; break;
		case 'p': presize = (uint32_t)atoi(optarg); break;
		case 's': b.seed = (unsigned int)atoi(optarg); break;
		default:
			fprintf(stderr, "usage: %s [-r rules] [-n frames] [-b burst] "
				"[-i rounds] [-1] [-m] [-p factor] [-s seed]\n", argv[0]);
			return 2;
		}
	}
	if (burst == 0 || npkts == 0 || npkts % burst != 0) {
		fprintf(stderr, "frames must be a multiple of the burst\n");
		return 2;
	}
#ifdef BENCH_BASELINE
	single = true;
	merge = false;
#endif
	if (bench_setup(&b, nrules + 16) != 0)
		return 1;
	rules = calloc(nrules, sizeof(*rules));
	pkts = aligned_alloc(64, (size_t)npkts * sizeof(*pkts));
	pp = calloc(npkts, sizeof(*pp));
	v = calloc(npkts, sizeof(*v));
	if (rules == NULL || pkts == NULL || pp == NULL || v == NULL)
		return 1;
	for (i = 0; i < nrules; i++) {
		struct tally_steer_action act = {
			.flags = TALLY_STEER_A_COUNT, .fate = TALLY_STEER_FATE_QUEUE,
			.arg = i % 4,
		};
		struct tally_match_key mk, val;
		struct tally_steer_matcher *m;
		struct tally_steer_rule *h;
		int rc;

		rule_rand(&b, &rules[i]);
		rule_match(&rules[i], &mk, &val);
#ifndef BENCH_BASELINE
		if (merge)
			tally_steer_merge_ports(&mk, &val);
#endif
		m = bench_matcher(&b, (uint32_t)rules[i].c, &mk);
		if (m == NULL || tally_cnt_alloc(b.dev.pool, &act.counter) != 0)
			return 1;
		rc = tally_steer_rule_insert(m, &val, &act, &h);
		if (rc == -EEXIST) {
			tally_cnt_free(b.dev.pool, act.counter);
			continue;
		}
		if (rc != 0) {
			fprintf(stderr, "insert %u: %d\n", i, rc);
			return 1;
		}
	}
	for (i = 0; presize > 0 && i < b.nm; i++)
		if (tally_steer_matcher_reserve(b.mt[i],
				tally_steer_matcher_rules(b.mt[i]) * presize) != 0)
			return 1;
	for (i = 0; i < npkts; i++) {
		if (rnd(&b) % 100 < 80) {
			pkt_make(&b, &pkts[i], &rules[rnd(&b) % nrules]);
		} else {
			struct rule miss = { .c = C_EXACT, .proto = rnd(&b) & 1 ? 6 : 17 };

			miss.sip = 0xc0a80000u | (rnd(&b) & 0xffff);
			miss.dip = 0xc0a90000u | (rnd(&b) & 0xffff);
			miss.sp = (uint16_t)rnd(&b);
			miss.dp = (uint16_t)(4096 + rnd(&b) % 60000);
			pkt_make(&b, &pkts[i], &miss);
		}
		pp[i] = &pkts[i];
	}
	/* warm-up round, also the hit count */
	for (i = 0; i < npkts; i++)
		tally_model_steer_classify(b.dev.m, pp[i], &v[i]);
	for (i = 0; i < npkts; i++)
		hits += (v[i].flags & TALLY_VERDICT_QUEUE) != 0;
	t0 = now_ns();
	c0 = tsc();
	for (r = 0; r < rounds; r++) {
		if (single) {
			for (i = 0; i < npkts; i++)
				tally_model_steer_classify(b.dev.m, pp[i], &v[i]);
			continue;
		}
#ifndef BENCH_BASELINE
		for (i = 0; i < npkts; i += burst)
			tally_model_steer_classify_burst(b.dev.m, &pp[i], burst, &v[i]);
#endif
	}
	c1 = tsc();
	t1 = now_ns();
	j = b.nm;
	for (i = 0; verbose && i < b.nm; i++)
		printf("matcher %u prio %u words %u rules %u log2 %u\n", i, b.mprio[i],
		       tally_steer_matcher_nwords(b.mt[i]), tally_steer_matcher_rules(b.mt[i]),
		       tally_steer_matcher_log2(b.mt[i]));
	printf("rules %u matchers %u frames %u hits %.1f%% %s%s burst %u: "
	       "%.1f ns/frame %.1f cycles/frame %.2f Mpps\n",
	       nrules, j, npkts, 100.0 * hits / npkts, single ? "single" : "burst",
	       merge ? " merged" : "", single ? 1 : burst,
	       (double)(t1 - t0) / ((double)npkts * rounds),
	       (double)(c1 - c0) / ((double)npkts * rounds),
	       (double)npkts * rounds * 1e3 / (double)(t1 - t0));
	return 0;
}
