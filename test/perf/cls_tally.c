/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Classification benchmark, Tally side (no EAL): the rule set of cls_gen.h
 * goes into a software device through lib/steer (one matcher per band, mask
 * and L4 protocol, probed in band order; each rule COUNT + MARK + QUEUE 0 with
 * a counter of its own), then the trace is classified by the model's steering
 * executor:
 *   keys  pre-parsed keys: each burst's keys (the outer section of the match
 *         key, the only one the frames fill) are copied into a reused burst
 *         of struct tally_model_pkt, then classified;
 *   full  frames: parse (tally_model_parse_reuse(), as the device's Rx path)
 *         + classify (+ count) per packet.
 * After every pass the verdicts are compared with the reference (every
 * packet) and every counter with its expected value (packets and bytes).
 *
 * usage: cls_tally [--rules N] [--packets N] [--seed N] [--hit-pct N]
 *                  [--iter N] [--burst N] [--split] [--mode keys|full|both] [--check]
 * Output: "set:" lines, then per pass one line
 *   RESULT bench=tally-keys rules=N pkts=N mpps=F cyc=F stage_cyc=F
 * (cyc: TSC cycles/packet; stage_cyc, keys only: the key copy alone, which
 * cyc includes). --check also checks the
 * reference against a scan of every rule, runs one pass of each mode and
 * exits non-zero on any difference.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

#include "steer_model_dev.h"
#include "tally_model.h"
#include "tally_model_dev.h"
#include "tally_model_priv.h"
#include "tally_plat.h"
#include "tally_steer_place.h"
#include "cls_gen.h"

#define ARENA_LEN	(1ull << 32)
#define MAX_BURST	64
#define OUTER_LEN	TALLY_MATCH_SECTION_LEN

/* The device's burst entry point over a burst of staged packets. */
static void
cls_classify_burst(struct tally_model *m, const struct tally_model_pkt *pkts,
		   uint32_t n, struct tally_model_verdict *v)
{
	const struct tally_model_pkt *pp[MAX_BURST];
	uint32_t i;

	for (i = 0; i < n; i++)
		pp[i] = &pkts[i];
	tally_model_steer_classify_burst(m, pp, n, v);
}

struct tb {
	struct steer_dev dev;
	struct tally_steer_table *t;
	struct tally_steer_matcher **mt;
	struct tally_steer_rule **rh;
	uint32_t nmt, nrh;
	int split;			/* TCP and UDP ports in separate matchers */
	uint32_t *cnt;			/* counter index per rule */
};

struct run {
	const struct cls_set *s;
	uint8_t *frames;		/* npkts x CLS_FRAME_LEN */
	uint8_t (*outer)[OUTER_LEN];	/* pre-parsed keys: outer section */
	struct tally_model_pkt *stage;	/* one burst */
	struct tally_model_verdict v[MAX_BURST];
	uint8_t dirty[MAX_BURST];	/* key sections a staged frame wrote */
	int32_t *got;
	uint32_t burst;
	uint32_t passes;		/* counted passes so far */
};

static uint64_t
cycles(void)
{
#if defined(__x86_64__) || defined(__i386__)
	return __rdtsc();
#else
	return tally_time_ns();
#endif
}

static void
key_proto_ports(struct tally_match_key *k, uint8_t proto, uint16_t sp, uint16_t dp)
{
	uint32_t s = proto == CLS_PROTO_TCP ? TALLY_L24_TCP_SPORT : TALLY_L24_UDP_SPORT;
	uint32_t d = proto == CLS_PROTO_TCP ? TALLY_L24_TCP_DPORT : TALLY_L24_UDP_DPORT;

	key_put(k, TALLY_MK(TALLY_MS_OUTER, s), sp, 2);
	key_put(k, TALLY_MK(TALLY_MS_OUTER, d), dp, 2);
}

/* Mask (mask != 0) or value of a tuple's entry for one L4 protocol. */
static void
tuple_key(struct tally_match_key *k, const struct cls_tuple *tp,
	  const struct cls_entry *e, uint8_t proto, int mask)
{
	memset(k, 0, sizeof(*k));
	key_put(k, TALLY_MK(TALLY_MS_OUTER, TALLY_L24_ETHERTYPE), mask ? 0xffff : 0x0800, 2);
	key_put(k, TALLY_MK(TALLY_MS_OUTER, TALLY_L24_IP_PROTOCOL),
		mask ? tp->proto_m : proto, 1);
	key_put(k, TALLY_MK(TALLY_MS_OUTER, TALLY_L24_SRC_IPV4), mask ? tp->sip_m : e->sip, 4);
	key_put(k, TALLY_MK(TALLY_MS_OUTER, TALLY_L24_DST_IPV4), mask ? tp->dip_m : e->dip, 4);
	if (tp->sp_m != 0 || tp->dp_m != 0)
		key_proto_ports(k, proto, mask ? tp->sp_m : e->sp, mask ? tp->dp_m : e->dp);
}

static int
tb_setup(struct tb *b, uint32_t nrules)
{
	struct tally_steer_config sc = { 0 };
	char err[128];
	uint32_t i;

	sc.max_tables = 1;
	sc.nb_queues = 1;
	if (steer_dev_init(&b->dev, ARENA_LEN, nrules + 64, &sc, err, sizeof(err)) != 0) {
		fprintf(stderr, "device: %s\n", err);
		return -EINVAL;
	}
	if (tally_steer_table_create(b->dev.ctx, 0, &b->t) != 0)
		return -ENOMEM;
	b->cnt = calloc(nrules, sizeof(*b->cnt));
	if (b->cnt == NULL)
		return -ENOMEM;
	for (i = 0; i < nrules; i++)
		if (tally_cnt_alloc(b->dev.pool, &b->cnt[i]) != 0)
			return -ENOSPC;
	return 0;
}

/* Entries of tuple tp carrying protocol proto (split, proto != 0), or all of
 * them. A tuple with ports and a pinned protocol puts its TCP and UDP entries
 * into one matcher whose mask covers both protocols' ports (the placement of
 * tally_steer_merge_ports(), which the PMD uses): proto 0 with split set. */
static int
tb_matcher(struct tb *b, const struct cls_tuples *ts, const struct cls_tuple *tp,
	   int split, uint8_t proto)
{
	struct tally_steer_action a = { 0 };
	struct tally_steer_matcher *m;
	struct tally_match_key k;
	uint32_t i, n = 0;
	int rc;

	for (i = 0; i < tp->n; i++)
		n += !split || proto == 0 || ts->ent[tp->first + i].proto == proto;
	if (n == 0)
		return 0;
	tuple_key(&k, tp, NULL, proto == 0 ? CLS_PROTO_TCP : proto, 1);
	if (split && proto == 0) {
		struct tally_match_key v;

		memset(&v, 0, sizeof(v));
		v.b[TALLY_MK(TALLY_MS_OUTER, TALLY_L24_IP_PROTOCOL)] = CLS_PROTO_TCP;
		if (!tally_steer_merge_ports(&k, &v))
			return -EINVAL;
	}
	rc = tally_steer_matcher_create(b->t, b->nmt, &k, &m);
	if (rc == 0)
		rc = tally_steer_matcher_reserve(m, n);
	if (rc != 0) {
		fprintf(stderr, "matcher %u: %d\n", b->nmt, rc);
		return rc;
	}
	b->mt[b->nmt++] = m;
	for (i = 0; i < tp->n; i++) {
		const struct cls_entry *e = &ts->ent[tp->first + i];

		if (split && proto != 0 && e->proto != proto)
			continue;
		tuple_key(&k, tp, e, e->proto, 0);	/* other ports stay 0 */
		a.flags = TALLY_STEER_A_COUNT | TALLY_STEER_A_MARK;
		a.fate = TALLY_STEER_FATE_QUEUE;
		a.arg = 0;
		a.counter = b->cnt[e->rule];
		a.mark = e->rule + 1;
		rc = tally_steer_rule_insert(m, &k, &a, &b->rh[b->nrh]);
		if (rc != 0) {
			fprintf(stderr, "rule %u (entry %u): %d\n", e->rule, tp->first + i, rc);
			return rc;
		}
		b->nrh++;
	}
	return 0;
}

static int
tb_load(struct tb *b, const struct cls_set *s, const struct cls_tuples *ts)
{
	uint32_t k;
	int rc = 0;

	b->mt = calloc(2 * ts->ntup, sizeof(*b->mt));
	b->rh = calloc(ts->nent ? ts->nent : 1, sizeof(*b->rh));
	if (b->mt == NULL || b->rh == NULL)
		return -ENOMEM;
	for (k = 0; k < ts->ntup && rc == 0; k++) {
		const struct cls_tuple *tp = &ts->tup[k];
		int split = tp->sp_m != 0 || tp->dp_m != 0;

		if (!split) {
			rc = tb_matcher(b, ts, tp, 0, 0);
			continue;
		}
		if (tp->proto_m == 0xff && !b->split) {
			rc = tb_matcher(b, ts, tp, 1, 0);
			continue;
		}
		rc = tb_matcher(b, ts, tp, 1, CLS_PROTO_TCP);
		if (rc == 0)
			rc = tb_matcher(b, ts, tp, 1, CLS_PROTO_UDP);
	}
	if (rc == 0)
		rc = tally_steer_ctx_sync(b->dev.ctx, 1000000);
	printf("tally: %u rules -> %u device rules in %u matchers (one per band, mask "
	       "and L4 protocol%s); classification: %s (TALLY_TEST_CLS_ISA)\n", s->nrules,
	       b->nrh, b->nmt, b->split ? "" : "; TCP and UDP ports merged",
	       steer_dev_cls_isa_name(b->dev.m));
	return rc;
}

static void
tb_teardown(struct tb *b, uint32_t nrules)
{
	uint32_t i;

	for (i = 0; i < b->nrh; i++)
		tally_steer_rule_delete(b->rh[i]);
	for (i = 0; i < b->nmt; i++)
		tally_steer_matcher_destroy(b->mt[i]);
	if (b->t != NULL)
		tally_steer_table_destroy(b->t);
	for (i = 0; b->cnt != NULL && i < nrules; i++)
		tally_cnt_free(b->dev.pool, b->cnt[i]);
	steer_dev_fini(&b->dev);
	free(b->mt);
	free(b->rh);
	free(b->cnt);
}

static int
run_prepare(struct run *r, const struct cls_set *s, uint32_t burst)
{
	struct tally_model_pkt pkt;
	uint32_t i, j;

	r->s = s;
	r->burst = burst;
	r->frames = malloc((size_t)s->npkts * CLS_FRAME_LEN + 1);
	r->outer = aligned_alloc(64, (size_t)(s->npkts ? s->npkts : 1) * OUTER_LEN);
	r->stage = aligned_alloc(64, MAX_BURST * sizeof(*r->stage));
	r->got = calloc(s->npkts ? s->npkts : 1, sizeof(*r->got));
	if (r->frames == NULL || r->outer == NULL || r->stage == NULL || r->got == NULL)
		return -ENOMEM;
	memset(r->stage, 0, MAX_BURST * sizeof(*r->stage));
	for (i = 0; i < MAX_BURST; i++) {
		r->stage[i].len = CLS_FRAME_LEN;
		r->dirty[i] = TALLY_PARSE_ALL_BUT_OUTER;
	}
	for (i = 0; i < s->npkts; i++) {
		uint8_t *f = r->frames + (size_t)i * CLS_FRAME_LEN;

		cls_frame(&s->pkts[i], f);
		tally_model_parse(f, CLS_FRAME_LEN, &pkt);
		for (j = OUTER_LEN; j < TALLY_MATCH_KEY_LEN; j++) {
			if (pkt.key.b[j] != 0) {
				fprintf(stderr, "packet %u: key byte %u outside the outer section\n",
					i, j);
				return -EINVAL;
			}
		}
		memcpy(r->outer[i], pkt.key.b, OUTER_LEN);
	}
	return 0;
}

static void
run_free(struct run *r)
{
	free(r->frames);
	free(r->outer);
	free(r->stage);
	free(r->got);
}

static void
store(struct run *r, uint32_t first, uint32_t n)
{
	uint32_t j;

	for (j = 0; j < n; j++)
		r->got[first + j] = (r->v[j].flags & TALLY_VERDICT_MARK) ?
				    (int32_t)r->v[j].mark - 1 : -1;
}

enum mode { MODE_KEYS, MODE_FULL, MODE_STAGE };

/* One pass over the trace; returns TSC cycles. */
static uint64_t
run_pass(struct run *r, struct tally_model *m, enum mode mode)
{
	uint32_t n = r->s->npkts, i, j, nb;
	uint64_t c0 = cycles();

	for (i = 0; i < n; i += nb) {
		nb = n - i < r->burst ? n - i : r->burst;
		if (mode == MODE_FULL) {
			/* as the device's Rx does: reused slots, only the key
			 * sections the slot's previous frame wrote are cleared */
			for (j = 0; j < nb; j++)
				tally_model_parse_reuse(r->frames + (size_t)(i + j) * CLS_FRAME_LEN,
							CLS_FRAME_LEN, &r->stage[j], &r->dirty[j]);
		} else {
			for (j = 0; j < nb; j++)
				memcpy(r->stage[j].key.b, r->outer[i + j], OUTER_LEN);
		}
		if (mode == MODE_STAGE) {
			__asm__ volatile("" : : "r"(r->stage) : "memory");
			continue;
		}
		cls_classify_burst(m, r->stage, nb, r->v);
		store(r, i, nb);
	}
	return cycles() - c0;
}

/* Verdicts of the last pass and every counter after r->passes passes. */
static int
run_check(struct run *r, struct tb *b, const char *what)
{
	const struct cls_set *s = r->s;
	uint64_t p, by, sum = 0;
	uint32_t i, bad = cls_ref_mismatches(s, r->got, what);

	for (i = 0; i < s->nrules; i++) {
		if (tally_cnt_read(b->dev.pool, b->cnt[i], &p, &by) != 0)
			p = by = UINT64_MAX;
		sum += p;
		if (p == (uint64_t)r->passes * s->expect_cnt[i] && by == p * CLS_FRAME_LEN)
			continue;
		if (bad++ < 10)
			fprintf(stderr, "%s: rule %u counter: %" PRIu64 " packets %" PRIu64
				" bytes, expected %" PRIu64 " packets\n", what, i, p, by,
				(uint64_t)r->passes * s->expect_cnt[i]);
	}
	if (sum != (uint64_t)r->passes * s->hits) {
		fprintf(stderr, "%s: counters sum %" PRIu64 ", expected %" PRIu64 "\n",
			what, sum, (uint64_t)r->passes * s->hits);
		bad++;
	}
	if (b->dev.io.ops->read32(b->dev.io.ctx, TALLY_REG_FAULT_CNT) != 0) {
		fprintf(stderr, "%s: %u device faults\n", what,
			b->dev.io.ops->read32(b->dev.io.ctx, TALLY_REG_FAULT_CNT));
		bad++;
	}
	if (bad != 0)
		fprintf(stderr, "%s: %u differences\n", what, bad);
	return bad == 0 ? 0 : -1;
}

static int
run_mode(struct run *r, struct tb *b, enum mode mode)
{
	const char *name = mode == MODE_FULL ? "tally-full" : "tally-keys";
	uint64_t t0, t1, cyc, stage = 0;
	uint32_t n = r->s->npkts;

	if (mode == MODE_KEYS)
		stage = run_pass(r, b->dev.m, MODE_STAGE);
	t0 = tally_time_ns();
	cyc = run_pass(r, b->dev.m, mode);
	t1 = tally_time_ns();
	r->passes++;
	printf("RESULT bench=%s rules=%u pkts=%u mpps=%.3f cyc=%.1f", name, r->s->nrules, n,
	       n / ((double)(t1 - t0) / 1e3), (double)cyc / n);
	if (mode == MODE_KEYS)
		printf(" stage_cyc=%.1f", (double)stage / n);
	printf("\n");
	fflush(stdout);
	return run_check(r, b, name);
}

static int
usage(void)
{
	fprintf(stderr, "usage: cls_tally [--rules N] [--packets N] [--seed N] [--hit-pct N] "
		"[--iter N] [--burst N] [--split] [--mode keys|full|both] [--check]\n");
	return 2;
}

int
main(int argc, char **argv)
{
	struct cls_params p;
	struct cls_set s;
	struct cls_tuples ts;
	struct tb b;
	struct run r;
	uint32_t iter = 3, burst = 32, it;
	int keys = 1, full = 1, check = 0, split = 0, i, rc;

	cls_params_init(&p);
	for (i = 1; i < argc; i++) {
		rc = cls_parse_opt(&p, argc, argv, &i);
		if (rc < 0)
			return usage();
		if (rc > 0)
			continue;
		if (strcmp(argv[i], "--check") == 0) {
			check = 1;
		} else if (strcmp(argv[i], "--iter") == 0 && i + 1 < argc) {
			iter = (uint32_t)strtoul(argv[++i], NULL, 0);
		} else if (strcmp(argv[i], "--split") == 0) {
			split = 1;
		} else if (strcmp(argv[i], "--burst") == 0 && i + 1 < argc) {
			burst = (uint32_t)strtoul(argv[++i], NULL, 0);
		} else if (strcmp(argv[i], "--mode") == 0 && i + 1 < argc) {
			i++;
			keys = strcmp(argv[i], "full") != 0;
			full = strcmp(argv[i], "keys") != 0;
		} else {
			return usage();
		}
	}
	if (burst == 0 || burst > MAX_BURST || iter == 0)
		return usage();
	if (check)
		iter = 1;
	memset(&b, 0, sizeof(b));
	b.split = split;
	memset(&r, 0, sizeof(r));
	memset(&ts, 0, sizeof(ts));
	rc = cls_set_gen(&p, &s);
	if (rc != 0) {
		fprintf(stderr, "generate: %d\n", rc);
		return 1;
	}
	rc = check ? cls_ref_selfcheck(&s) : 0;
	if (rc == 0)
		rc = cls_expand(&s, &ts);
	if (rc == 0) {
		cls_set_print(&s, &ts, stdout);
		rc = tb_setup(&b, s.nrules);
	}
	if (rc == 0)
		rc = tb_load(&b, &s, &ts);
	if (rc == 0)
		rc = run_prepare(&r, &s, burst);
	for (it = 0; it < iter && rc == 0; it++) {
		if (keys)
			rc = run_mode(&r, &b, MODE_KEYS);
		if (full && rc == 0)
			rc = run_mode(&r, &b, MODE_FULL);
	}
	if (rc == 0)
		printf("check: tally matches the reference on %u packets x %u passes, "
		       "counters exact\n", s.npkts, r.passes);
	run_free(&r);
	tb_teardown(&b, s.nrules);
	cls_tuples_free(&ts);
	cls_set_free(&s);
	return rc == 0 ? 0 : 1;
}
