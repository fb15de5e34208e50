/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Differential test: lib/steer + the model's steering executor against a
 * trivially correct linear classifier (OVS test-classifier style).
 *
 * Random rules (several masks incl. partial-byte and empty ones, priorities,
 * four tables with jumps, shared counters, RSS sets, marks) go into both;
 * random keys are classified by the model (tally_model_steer_classify on a
 * constructed struct tally_model_pkt) and by the reference; chosen actions
 * and, at the end of each phase, every counter value must be identical.
 * Then a third of the rules are deleted and the comparison repeats. Some
 * keys come from real frames through the model's parser.
 *
 * The burst form (tally_model_steer_classify_burst) is compared the same
 * way, in bursts of 1, 31, 32, 33, 64, 65 and 100 frames (the engine works
 * in chunks of 64) with hits and misses mixed, and with churn: rules
 * inserted and deleted between bursts, new matchers (a new matcher list),
 * hash arrays migrating, and fences after which the freed memory is
 * poisoned - a device that trusted a stale cached structure would read the
 * poison.
 *
 * The switch stage (spec 2.3) the same way, on a device of three ports
 * with lib/steer's switch context on port 0: random rules over the source
 * port and header fields (priorities, tables with jumps, passthru, counts,
 * drops, port and action-set fates with edits) and random frames, tagged or
 * not, entering random ports from their wires or their hosts (a Tx queue,
 * source_port with TALLY_SOURCE_PORT_HOST); where each frame ends up (a
 * port's wire, a port's receive pipeline, its own, dropped), its bytes, the
 * statistics and the counters are compared with a reference switch written
 * here.
 *
 * Runs with a fixed seed and one random seed; the seed is printed on failure.
 *
 * Size: the port tables' and the switch's comparisons share the reference's
 * rule list, matching and priority order; one file keeps them one reference.
 */
#include <stdlib.h>
#include <time.h>

#include "tally_mt.h"
#include "tally_test.h"
#include "steer_model_dev.h"
#include "tally_model.h"
#include "tally_model_dev.h"
#include "tally_plat.h"

#define NTABLES		4
#define NCOUNTERS	200
#define NRSS		3
#define NRULES		1500
#define NRULES_CAP	(2 * NRULES)	/* churn inserts more */
#define BURST_MAX	100
#define NKEYS		10000
#define NFRAMES		1000
#define ARENA_LEN	(1ull << 30)

/* ---- fields, domains and mask templates ----------------------------------- */
struct field {
	uint32_t off, len;
	uint64_t mask;			/* mask used by templates (big-endian value) */
	uint64_t dom[6];
	uint32_t ndom;
};

enum { F_ETH, F_PROTO, F_SIP, F_DIP, F_DIP24, F_SPORT, F_DPORT, F_VNI, F_DMAC,
       F_FRAG, F_FCLS, F_FBIT, F_NUM };

static const struct field fields[F_NUM] = {
	[F_ETH] = { TALLY_MK(TALLY_MS_OUTER, TALLY_L24_ETHERTYPE), 2, 0xffff,
		    { 0x0800, 0x86dd }, 2 },
	[F_PROTO] = { TALLY_MK(TALLY_MS_OUTER, TALLY_L24_IP_PROTOCOL), 1, 0xff, { 6, 17 }, 2 },
	[F_SIP] = { TALLY_MK(TALLY_MS_OUTER, TALLY_L24_SRC_IPV4), 4, 0xffffffff,
		    { 0x0a000001, 0x0a000002, 0x0a000003, 0x0a000004 }, 4 },
	[F_DIP] = { TALLY_MK(TALLY_MS_OUTER, TALLY_L24_DST_IPV4), 4, 0xffffffff,
		    { 0x0a010001, 0x0a010002, 0x0a010101, 0x0a010102 }, 4 },
	[F_DIP24] = { TALLY_MK(TALLY_MS_OUTER, TALLY_L24_DST_IPV4), 4, 0xffffff00,
		      { 0x0a010001, 0x0a010002, 0x0a010101, 0x0a010102 }, 4 },
	[F_SPORT] = { TALLY_MK(TALLY_MS_OUTER, TALLY_L24_UDP_SPORT), 2, 0xffff,
		      { 1000, 1001, 1002 }, 3 },
	[F_DPORT] = { TALLY_MK(TALLY_MS_OUTER, TALLY_L24_UDP_DPORT), 2, 0xffff,
		      { 53, 80, 443 }, 3 },
	[F_VNI] = { TALLY_MK(TALLY_MS_MISC, TALLY_MISC_VXLAN_VNI), 3, 0xffffff, { 1, 2 }, 2 },
	[F_DMAC] = { TALLY_MK(TALLY_MS_OUTER, TALLY_L24_DMAC), 6, 0xffffffffffffull,
		     { 0x020000000001ull, 0x020000000002ull }, 2 },
	/* fragments: IPv4 flags and offset under MF|offset (not a fragment,
	 * first ...), the offset classes, the frag bit (with IP version 4) */
	[F_FRAG] = { TALLY_MK(TALLY_MS_OUTER, TALLY_L24_FRAG_DATA), 2, 0x3fff,
		     { 0x0000, 0x2000, 0x0008, 0x4000 }, 4 },
	[F_FCLS] = { TALLY_MK(TALLY_MS_MISC, TALLY_MISC_FRAG_CLASS), 1,
		     TALLY_MISC_F_OUTER_FRAG_OFF1 | TALLY_MISC_F_OUTER_FRAG_OFF8,
		     { 0, TALLY_MISC_F_OUTER_FRAG_OFF1,
		       TALLY_MISC_F_OUTER_FRAG_OFF1 | TALLY_MISC_F_OUTER_FRAG_OFF8 }, 3 },
	[F_FBIT] = { TALLY_MK(TALLY_MS_OUTER, TALLY_L24_FLAGS), 1, TALLY_L24_F_FRAG,
		     { 4 << 1, (4 << 1) | TALLY_L24_F_FRAG }, 2 },
};

#define FB(f)	(1u << (f))
#define NTEMPL	10
static const uint32_t templates[NTEMPL] = {
	FB(F_ETH) | FB(F_FRAG) | FB(F_SIP),	/* not a fragment, first fragment */
	FB(F_ETH) | FB(F_FCLS) | FB(F_FBIT) | FB(F_DIP),	/* later fragments */
	FB(F_ETH) | FB(F_PROTO) | FB(F_SIP) | FB(F_DIP) | FB(F_SPORT) | FB(F_DPORT),
	FB(F_ETH) | FB(F_DIP24),
	FB(F_PROTO) | FB(F_DPORT),
	FB(F_SIP),
	FB(F_DMAC) | FB(F_VNI),
	FB(F_ETH),
	0,	/* match everything */
	FB(F_DIP) | FB(F_DPORT),
};
#define NPRIO	4

/* ---- the reference: a list of rules, scanned linearly --------------------- */
struct ref_rule {
	bool live;
	uint32_t table, prio, mseq;
	struct tally_match_key mask, value;	/* value already masked */
	struct tally_steer_action act;
	struct tally_steer_rule *h;
};

struct ref_cnt {
	uint64_t pkts, bytes;
};

struct diff {
	unsigned int seed;
	struct steer_dev dev;
	struct tally_steer_table *t[NTABLES];
	struct tally_steer_matcher *mt[NTABLES][NPRIO][NTEMPL];
	uint32_t mseq[NTABLES][NPRIO][NTEMPL];
	uint32_t cnt[NCOUNTERS];
	uint32_t rss[NRSS];
	uint16_t rssq[NRSS][4];
	uint16_t rssn[NRSS];
	struct ref_rule *rules;
	uint32_t nrules, live;
	struct ref_cnt *ref_cnt;	/* by bank index */
	uint32_t bank;
};

static uint32_t
rnd(struct diff *d, uint32_t n)
{
	return (uint32_t)rand_r(&d->seed) % n;
}

static bool
key_match(const struct tally_match_key *k, const struct ref_rule *r)
{
	uint32_t i;

	for (i = 0; i < TALLY_MATCH_KEY_LEN; i++)
		if ((k->b[i] & r->mask.b[i]) != r->value.b[i])
			return false;
	return true;
}

/* Linear classifier: same semantics as tally_steer.h describes. */
static void
ref_classify(struct diff *d, const struct tally_match_key *k, uint32_t len,
	     struct tally_model_verdict *v)
{
	uint32_t table = 0, hops = 0, i;
	const struct ref_rule *cur = NULL;	/* last PASSTHRU hit in this table */

	memset(v, 0, sizeof(*v));
	while (hops < TALLY_STEER_MAX_HOPS) {
		const struct ref_rule *best = NULL;

		for (i = 0; i < d->nrules; i++) {
			const struct ref_rule *r = &d->rules[i];

			if (!r->live || r->table != table || !key_match(k, r))
				continue;
			if (cur != NULL && !(r->prio > cur->prio ||
					     (r->prio == cur->prio && r->mseq > cur->mseq)))
				continue;
			if (best == NULL || r->prio < best->prio ||
			    (r->prio == best->prio && r->mseq < best->mseq))
				best = r;
		}
		if (best == NULL)
			return;
		if (best->act.flags & TALLY_STEER_A_COUNT) {
			d->ref_cnt[best->act.counter].pkts++;
			d->ref_cnt[best->act.counter].bytes += len;
		}
		if (best->act.flags & TALLY_STEER_A_MARK) {
			v->flags |= TALLY_VERDICT_MARK;
			v->mark = best->act.mark;
		}
		if (best->act.flags & TALLY_STEER_A_FLAG)
			v->flags |= TALLY_VERDICT_FLAG;
		switch (best->act.fate) {
		case TALLY_STEER_FATE_DROP:
			v->flags |= TALLY_VERDICT_DROP;
			return;
		case TALLY_STEER_FATE_QUEUE:
			v->flags |= TALLY_VERDICT_QUEUE;
			v->queue = (uint16_t)best->act.arg;
			return;
		case TALLY_STEER_FATE_RSS:
			for (i = 0; i < NRSS; i++) {
				if (d->rss[i] != best->act.arg)
					continue;
				v->flags |= TALLY_VERDICT_RSS;
				v->rss_nq = d->rssn[i];
				v->rss_hf = TALLY_RSS_HF_IPV4_UDP;
				memcpy(v->rss_queues, d->rssq[i], d->rssn[i] * sizeof(uint16_t));
			}
			return;
		case TALLY_STEER_FATE_JUMP:
			table = best->act.arg;
			cur = NULL;
			hops++;
			break;
		case TALLY_STEER_FATE_PASSTHRU:
			cur = best;
			break;
		default:
			return;
		}
	}
}

static void
rand_value(struct diff *d, struct tally_match_key *k)
{
	uint32_t f;

	for (f = 0; f < F_NUM; f++)
		key_put(k, fields[f].off, fields[f].dom[rnd(d, fields[f].ndom)], fields[f].len);
	if (rnd(d, 10) == 0)	/* some noise outside the domains */
		k->b[rnd(d, TALLY_MATCH_KEY_LEN)] ^= (uint8_t)(1 + rnd(d, 255));
}

static int
get_matcher(struct diff *d, uint32_t t, uint32_t p, uint32_t tm,
	    struct tally_steer_matcher **out)
{
	struct tally_match_key mk;
	uint32_t f;
	int rc;

	if (d->mt[t][p][tm] == NULL) {
		memset(&mk, 0, sizeof(mk));
		for (f = 0; f < F_NUM; f++)
			if (templates[tm] & FB(f))
				key_put(&mk, fields[f].off, fields[f].mask, fields[f].len);
		rc = tally_steer_matcher_create(d->t[t], p, &mk, &d->mt[t][p][tm]);
		if (rc != 0)
			return rc;
		d->mseq[t][p][tm] = d->nrules;	/* creation order */
	}
	*out = d->mt[t][p][tm];
	return 0;
}

static int
add_rules(struct diff *d, uint32_t n)
{
	uint32_t i, j, dups = 0;

	for (i = 0; i < n; i++) {
		struct ref_rule *r = &d->rules[d->nrules];
		struct tally_steer_matcher *m;
		struct tally_match_key k;
		bool dup = false;
		uint32_t t = rnd(d, NTABLES), p = rnd(d, NPRIO);
		uint32_t tm = rnd(d, 2) ? 0 : rnd(d, NTEMPL);
		int rc;

		memset(r, 0, sizeof(*r));
		TEST_ASSERT_EQ(get_matcher(d, t, p, tm, &m), 0, "matcher");
		memset(&k, 0, sizeof(k));
		rand_value(d, &k);
		r->table = t;
		r->prio = p;
		r->mseq = d->mseq[t][p][tm];
		for (j = 0; j < F_NUM; j++)
			if (templates[tm] & FB(j))
				key_put(&r->mask, fields[j].off, fields[j].mask, fields[j].len);
		for (j = 0; j < TALLY_MATCH_KEY_LEN; j++)
			r->value.b[j] = k.b[j] & r->mask.b[j];
		if (rnd(d, 3))
			r->act.flags |= TALLY_STEER_A_COUNT;
		r->act.counter = d->cnt[rnd(d, NCOUNTERS)];
		if (rnd(d, 2)) {
			r->act.flags |= TALLY_STEER_A_MARK;
			r->act.mark = (uint32_t)rand_r(&d->seed) * 2654435761u;
		}
		if (rnd(d, 4) == 0)
			r->act.flags |= TALLY_STEER_A_FLAG;
		r->act.fate = (enum tally_steer_fate)rnd(d, 7);
		if (r->act.fate == TALLY_STEER_FATE_JUMP && t == NTABLES - 1)
			r->act.fate = TALLY_STEER_FATE_QUEUE;
		if (r->act.fate == TALLY_STEER_FATE_QUEUE)
			r->act.arg = rnd(d, 16);
		else if (r->act.fate == TALLY_STEER_FATE_RSS)
			r->act.arg = d->rss[rnd(d, NRSS)];
		else if (r->act.fate == TALLY_STEER_FATE_JUMP)
			r->act.arg = t + 1 + rnd(d, NTABLES - 1 - t);
		for (j = 0; j < d->nrules; j++) {
			const struct ref_rule *o = &d->rules[j];

			if (o->live && o->table == t && o->prio == p && o->mseq == r->mseq &&
			    memcmp(&o->mask, &r->mask, sizeof(r->mask)) == 0 &&
			    memcmp(&o->value, &r->value, sizeof(r->value)) == 0)
				dup = true;
		}
		rc = tally_steer_rule_insert(m, &k, &r->act, &r->h);
		if (dup) {
			TEST_ASSERT_EQ(rc, -EEXIST, "duplicate %u (seed %u)", i, d->seed);
			dups++;
			continue;
		}
		TEST_ASSERT_EQ(rc, 0, "insert %u (seed %u)", i, d->seed);
		r->live = true;
		d->nrules++;
		d->live++;
	}
	if (n > 16)
		printf("  %u rules inserted, %u duplicates refused\n", n - dups, dups);
	return TEST_SUCCESS;
}

static int
compare_verdicts(struct diff *d, const struct tally_model_verdict *got,
		 const struct tally_model_verdict *exp, uint32_t i)
{
	TEST_ASSERT_EQ(got->flags, exp->flags, "key %u", i);
	if (exp->flags & TALLY_VERDICT_MARK)
		TEST_ASSERT_EQ(got->mark, exp->mark, "key %u", i);
	if (exp->flags & TALLY_VERDICT_QUEUE)
		TEST_ASSERT_EQ(got->queue, exp->queue, "key %u", i);
	if (exp->flags & TALLY_VERDICT_RSS) {
		TEST_ASSERT_EQ(got->rss_nq, exp->rss_nq, "key %u", i);
		TEST_ASSERT_EQ(got->rss_hf, exp->rss_hf, "key %u", i);
		TEST_ASSERT(memcmp(got->rss_queues, exp->rss_queues,
				   exp->rss_nq * sizeof(uint16_t)) == 0, "key %u", i);
	}
	return TEST_SUCCESS;
}

static int
run_keys(struct diff *d, uint32_t n)
{
	struct tally_model_pkt pkt;
	struct tally_model_verdict got, exp;
	uint32_t i, hits = 0;

	for (i = 0; i < n; i++) {
		memset(&pkt, 0, sizeof(pkt));
		rand_value(d, &pkt.key);
		pkt.len = 60 + rnd(d, 1455);
		tally_model_steer_classify(d->dev.m, &pkt, &got);
		ref_classify(d, &pkt.key, pkt.len, &exp);
		if (compare_verdicts(d, &got, &exp, i) != TEST_SUCCESS) {
			fprintf(stderr, "  seed %u: verdict differs\n", d->seed);
			return TEST_FAILED;
		}
		hits += exp.flags != 0;
	}
	printf("  %u keys, %u with a steering verdict\n", n, hits);
	return TEST_SUCCESS;
}

/* Turn the IPv4 frame in f into an IPv6 one with a fragment header of
 * the same offset (and M for MF), same ports. */
static void
ipv6_fragment(uint8_t *f, uint32_t *len, uint16_t fr)
{
	uint8_t l4[8];
	uint16_t fd = (uint16_t)((fr & 0x1fff) << 3 | !!(fr & 0x2000));

	memcpy(l4, f + 34, 8);
	f[12] = 0x86; f[13] = 0xdd;
	memset(f + 14, 0, 48);
	f[14] = 0x60;
	f[18] = 0; f[19] = 16;		/* payload: fragment header + UDP */
	f[20] = 44; f[21] = 64;
	f[22 + 15] = 1; f[38 + 15] = 2;
	f[54] = 17;			/* fragment header: next UDP */
	f[56] = (uint8_t)(fd >> 8); f[57] = (uint8_t)fd;
	memcpy(f + 62, l4, 8);
	if (*len < 70)
		*len = 70;
}

/* Real frames through the model's parser; both classify the parsed key. */
static int
run_frames(struct diff *d, uint32_t n)
{
	static const uint8_t dmac[6] = { 2, 0, 0, 0, 0, 1 };
	struct tally_model_pkt pkt;
	struct tally_model_verdict got, exp;
	uint8_t f[128];
	uint32_t i, hits = 0;

	for (i = 0; i < n; i++) {
		uint32_t sip = (uint32_t)fields[F_SIP].dom[rnd(d, 4)];
		uint32_t dip = (uint32_t)fields[F_DIP].dom[rnd(d, 4)];
		uint16_t sp = (uint16_t)fields[F_SPORT].dom[rnd(d, 3)];
		uint16_t dp = (uint16_t)fields[F_DPORT].dom[rnd(d, 3)];
		uint32_t len = 64 + rnd(d, 64);
		static const uint16_t frag[] = {
			0, 0, 0x4000, 0x2000, 0x2001, 0x0007, 0x0008, 0x0100,
		};
		uint16_t fr = frag[rnd(d, sizeof(frag) / sizeof(frag[0]))];

		memset(f, 0, sizeof(f));
		memcpy(f, dmac, 6);
		f[6] = 2; f[11] = 9;
		f[12] = 0x08; f[13] = 0x00;
		f[14] = 0x45;
		f[16] = (uint8_t)((len - 14) >> 8); f[17] = (uint8_t)(len - 14);
		f[22] = 64; f[23] = 17;
		f[26] = (uint8_t)(sip >> 24); f[27] = (uint8_t)(sip >> 16);
		f[28] = (uint8_t)(sip >> 8); f[29] = (uint8_t)sip;
		f[30] = (uint8_t)(dip >> 24); f[31] = (uint8_t)(dip >> 16);
		f[32] = (uint8_t)(dip >> 8); f[33] = (uint8_t)dip;
		f[34] = (uint8_t)(sp >> 8); f[35] = (uint8_t)sp;
		f[36] = (uint8_t)(dp >> 8); f[37] = (uint8_t)dp;
		f[38] = (uint8_t)((len - 34) >> 8); f[39] = (uint8_t)(len - 34);
		f[20] = (uint8_t)(fr >> 8); f[21] = (uint8_t)fr;
		if (rnd(d, 4) == 0)
			ipv6_fragment(f, &len, fr);
		tally_model_parse(f, len, &pkt);
		tally_model_steer_classify(d->dev.m, &pkt, &got);
		ref_classify(d, &pkt.key, pkt.len, &exp);
		if (compare_verdicts(d, &got, &exp, i) != TEST_SUCCESS) {
			fprintf(stderr, "  seed %u: verdict differs on a parsed frame\n", d->seed);
			return TEST_FAILED;
		}
		hits += exp.flags != 0;
	}
	printf("  %u parsed frames, %u with a steering verdict\n", n, hits);
	return TEST_SUCCESS;
}

static int
compare_counters(struct diff *d)
{
	uint32_t i;

	for (i = 0; i < NCOUNTERS; i++) {
		uint64_t p, b;
		uint32_t c = d->cnt[i];

		TEST_ASSERT_EQ(tally_cnt_read(d->dev.pool, c, &p, &b), 0, "");
		TEST_ASSERT_U64_EQ(p, d->ref_cnt[c].pkts, "counter %u packets (seed %u)", c, d->seed);
		TEST_ASSERT_U64_EQ(b, d->ref_cnt[c].bytes, "counter %u bytes (seed %u)", c, d->seed);
	}
	return TEST_SUCCESS;
}

static int
delete_some(struct diff *d)
{
	uint32_t i, n = 0;

	for (i = 0; i < d->nrules; i++) {
		struct ref_rule *r = &d->rules[i];

		if (!r->live || rnd(d, 3) != 0)
			continue;
		TEST_ASSERT_EQ(tally_steer_rule_delete(r->h), 0, "delete (seed %u)", d->seed);
		r->live = false;
		d->live--;
		n++;
	}
	printf("  %u rules deleted, %u left\n", n, d->live);
	return TEST_SUCCESS;
}

static const uint32_t burst_sizes[] = { 1, 31, 32, 33, 64, 65, 100 };
#define NBURST_SIZES	(sizeof(burst_sizes) / sizeof(burst_sizes[0]))

/* Between bursts: a few inserts (sometimes in a new matcher), a few
 * deletes, sometimes a fence that frees (and poisons) retired memory. */
static int
churn(struct diff *d, uint32_t *ins, uint32_t *del)
{
	uint32_t k = rnd(d, 4), i, j;

	if (d->nrules + 8 < NRULES_CAP) {
		TEST_ASSERT_EQ(add_rules(d, k), TEST_SUCCESS, "churn insert");
		*ins += k;
	}
	for (i = rnd(d, 4); i > 0 && d->live > 0; i--) {
		j = rnd(d, d->nrules);
		if (!d->rules[j].live)
			continue;
		TEST_ASSERT_EQ(tally_steer_rule_delete(d->rules[j].h), 0,
			       "churn delete (seed %u)", d->seed);
		d->rules[j].live = false;
		d->live--;
		(*del)++;
	}
	if (rnd(d, 8) == 0)
		TEST_ASSERT_EQ(tally_steer_ctx_sync(d->dev.ctx, 1000000), 0, "fence");
	return TEST_SUCCESS;
}

static int
run_bursts(struct diff *d, uint32_t n, bool with_churn)
{
	struct tally_model_pkt *pkts = calloc(BURST_MAX, sizeof(*pkts));
	const struct tally_model_pkt *pp[BURST_MAX];
	struct tally_model_verdict got[BURST_MAX], exp;
	uint32_t done = 0, b = 0, i, k, hits = 0, ins = 0, del = 0, nb = 0;
	int rc = TEST_SUCCESS;

	TEST_ASSERT(pkts != NULL, "");
	while (done < n && rc == TEST_SUCCESS) {
		k = TALLY_MIN(burst_sizes[b++ % NBURST_SIZES], n - done);
		for (i = 0; i < k; i++) {
			memset(&pkts[i], 0, sizeof(pkts[i]));
			rand_value(d, &pkts[i].key);
			pkts[i].len = 60 + rnd(d, 1455);
			pp[i] = &pkts[i];
		}
		memset(got, 0xee, sizeof(got));
		tally_model_steer_classify_burst(d->dev.m, pp, k, got);
		for (i = 0; i < k && rc == TEST_SUCCESS; i++) {
			ref_classify(d, &pkts[i].key, pkts[i].len, &exp);
			rc = compare_verdicts(d, &got[i], &exp, done + i);
			hits += exp.flags != 0;
		}
		done += k;
		nb++;
		if (rc == TEST_SUCCESS && with_churn)
			rc = churn(d, &ins, &del);
	}
	free(pkts);
	if (rc != TEST_SUCCESS) {
		fprintf(stderr, "  seed %u: burst verdict differs (burst %u of %u frames)\n",
			d->seed, nb, k);
		return rc;
	}
	printf("  %u keys in %u bursts, %u with a steering verdict", n, nb, hits);
	if (with_churn)
		printf(", %u insertions tried and %u rules deleted between bursts", ins, del);
	printf("\n");
	return TEST_SUCCESS;
}

static int
diff_setup(struct diff *d, uint32_t stage_min_log2)
{
	struct tally_steer_config sc = { 0 };
	char err[128];
	uint32_t i, j;

	sc.stage_min_log2 = stage_min_log2;
	sc.max_tables = 8;
	sc.max_rss = 8;
	sc.nb_queues = 16;
	TEST_ASSERT_EQ(steer_dev_init(&d->dev, ARENA_LEN, 8192, &sc, err, sizeof(err)), 0,
		       "%s", err);
	for (i = 0; i < NTABLES; i++)
		TEST_ASSERT_EQ(tally_steer_table_create(d->dev.ctx, i, &d->t[i]), 0, "");
	d->bank = 8192;
	d->ref_cnt = calloc(d->bank, sizeof(*d->ref_cnt));
	d->rules = calloc(NRULES_CAP, sizeof(*d->rules));
	TEST_ASSERT(d->ref_cnt != NULL && d->rules != NULL, "");
	for (i = 0; i < NCOUNTERS; i++)
		TEST_ASSERT_EQ(tally_cnt_alloc(d->dev.pool, &d->cnt[i]), 0, "");
	for (i = 0; i < NRSS; i++) {
		d->rssn[i] = (uint16_t)(1 + i);
		for (j = 0; j < d->rssn[i]; j++)
			d->rssq[i][j] = (uint16_t)(i * 4 + j);
		TEST_ASSERT_EQ(tally_steer_rss_create(d->dev.ctx, TALLY_RSS_HF_IPV4_UDP, d->rssq[i],
						      d->rssn[i], &d->rss[i]), 0, "");
	}
	return TEST_SUCCESS;
}

static void
diff_teardown(struct diff *d)
{
	uint32_t i;

	for (i = 0; i < NCOUNTERS; i++)
		tally_cnt_free(d->dev.pool, d->cnt[i]);
	steer_dev_fini(&d->dev);
	free(d->ref_cnt);
	free(d->rules);
}

/* stage_min_log2: 0 = the default (no array here is that large); 4 = every
 * matcher stages its single inserts (tally_steer_stage.c) */
static int
diff_run(unsigned int seed, uint32_t stage_min_log2)
{
	struct diff *d = calloc(1, sizeof(*d));
	int rc;

	if (d == NULL)
		return TEST_FAILED;
	d->seed = seed;
	rc = diff_setup(d, stage_min_log2);
	printf("  seed %u%s, classification: %s\n", seed, stage_min_log2 ? ", staged inserts" : "",
	       d->dev.m != NULL ? steer_dev_cls_isa_name(d->dev.m) : "-");
	if (rc == TEST_SUCCESS)
		rc = add_rules(d, NRULES);
	if (rc == TEST_SUCCESS)
		rc = run_keys(d, NKEYS);
	if (rc == TEST_SUCCESS)
		rc = run_frames(d, NFRAMES);
	if (rc == TEST_SUCCESS)
		rc = run_bursts(d, NKEYS, false);
	if (rc == TEST_SUCCESS)
		rc = compare_counters(d);
	if (rc == TEST_SUCCESS)
		rc = delete_some(d);
	if (rc == TEST_SUCCESS)
		rc = run_keys(d, NKEYS / 2);
	if (rc == TEST_SUCCESS)
		rc = compare_counters(d);
	if (rc == TEST_SUCCESS)
		rc = run_bursts(d, NKEYS, true);
	if (rc == TEST_SUCCESS)
		rc = compare_counters(d);
	if (rc == TEST_SUCCESS &&
	    d->dev.io.ops->read32(d->dev.io.ctx, TALLY_REG_FAULT_CNT) != 0) {
		fprintf(stderr, "  seed %u: %u device faults\n", seed,
			d->dev.io.ops->read32(d->dev.io.ctx, TALLY_REG_FAULT_CNT));
		rc = TEST_FAILED;
	}
	if (rc != TEST_SUCCESS)
		fprintf(stderr, "  FAILED with seed %u\n", seed);
	diff_teardown(d);
	free(d);
	return rc;
}

static int
test_diff_fixed_seed(void)
{
	return diff_run(20240601u, 0);
}

static int
test_diff_random_seed(void)
{
	return diff_run((unsigned int)time(NULL) ^ (unsigned int)tally_time_ns(), 0);
}

static int
test_diff_staged_fixed_seed(void)
{
	return diff_run(20240601u, 4);
}

static int
test_diff_staged_random_seed(void)
{
	return diff_run((unsigned int)time(NULL) ^ (unsigned int)tally_time_ns(), 4);
}

/* ---- the switch stage ---------------------------------------------------- */
#define SW_PORTS	3
#define SW_TABLES	3
#define SW_RULES	300
#define SW_FRAMES	1500
#define SW_SETS		6
#define SW_COUNTERS	16
#define SW_SRCP		TALLY_MK(TALLY_MS_MISC, TALLY_MISC_SOURCE_PORT)

/* fields of the switch's rules: source port, source address, UDP port */
enum { SWF_SRCP, SWF_SIP, SWF_DPORT, SWF_NUM };
static const struct field sw_fields[SWF_NUM] = {
	[SWF_SRCP] = { SW_SRCP, 2, 0xffff, { 0, 1, 2, TALLY_SOURCE_PORT_HOST | 0,
					     TALLY_SOURCE_PORT_HOST | 1,
					     TALLY_SOURCE_PORT_HOST | 2 }, 6 },
	[SWF_SIP] = { TALLY_MK(TALLY_MS_OUTER, TALLY_L24_SRC_IPV4), 4, 0xffffffff,
		      { 0x0a000001, 0x0a000002 }, 2 },
	[SWF_DPORT] = { TALLY_MK(TALLY_MS_OUTER, TALLY_L24_UDP_DPORT), 2, 0xffff,
			{ 53, 80, 443 }, 3 },
};
#define SW_NTEMPL	6
static const uint32_t sw_templates[SW_NTEMPL] = {
	FB(SWF_SRCP), FB(SWF_SRCP) | FB(SWF_DPORT), FB(SWF_SIP) | FB(SWF_DPORT),
	FB(SWF_SRCP) | FB(SWF_SIP), 0, FB(SWF_DPORT),
};

struct sw_diff {
	unsigned int seed;
	struct mt_dev d[SW_PORTS];
	struct mt_rxq q[SW_PORTS];
	struct mt_txq tq[SW_PORTS];
	struct arena a;
	struct tally_fence fence;
	struct tally_cnt_pool *pool;
	struct tally_steer_ctx *ctx;
	struct tally_steer_table *t[SW_TABLES];
	struct tally_steer_matcher *mt[SW_TABLES][NPRIO][SW_NTEMPL];
	uint32_t mseq[SW_TABLES][NPRIO][SW_NTEMPL];
	uint32_t cnt[SW_COUNTERS];
	struct tally_steer_swact set[SW_SETS];
	uint32_t set_id[SW_SETS];
	struct ref_rule rules[SW_RULES];
	uint32_t nrules;
	uint64_t ref_pkts[SW_COUNTERS], ref_bytes[SW_COUNTERS];
};

enum sw_dest { SWD_OWN, SWD_DROP, SWD_WIRE, SWD_HOST };

static uint32_t
sw_rnd(struct sw_diff *d, uint32_t n)
{
	return (uint32_t)rand_r(&d->seed) % n;
}

static bool
sw_tagged(const uint8_t *f, uint32_t len)
{
	uint16_t t = (uint16_t)(f[12] << 8 | f[13]);

	return len >= 18 && (t == 0x8100 || t == 0x88a8);
}

/* The edits of a set, the plain way (tally_steer_fmt.h's order). */
static uint32_t
sw_ref_edit(uint8_t *f, uint32_t len, const struct tally_steer_swact *a, uint32_t max)
{
	uint8_t t[2048];
	uint16_t tci;

	if ((a->flags & TALLY_SWACT_POP_VLAN) && sw_tagged(f, len)) {
		memcpy(t, f, 12);
		memcpy(t + 12, f + 16, len - 16);
		len -= 4;
		memcpy(f, t, len);
	}
	if (a->flags & TALLY_SWACT_PUSH_VLAN) {
		if (len + 4 > max)
			return 0;
		memcpy(t, f, 12);
		t[12] = (uint8_t)(a->vlan_tpid >> 8);
		t[13] = (uint8_t)a->vlan_tpid;
		t[14] = (uint8_t)(a->vlan_tci >> 8);
		t[15] = (uint8_t)a->vlan_tci;
		memcpy(t + 16, f + 12, len - 12);
		len += 4;
		memcpy(f, t, len);
	}
	if ((a->flags & (TALLY_SWACT_SET_VID | TALLY_SWACT_SET_PCP)) && sw_tagged(f, len)) {
		tci = (uint16_t)(f[14] << 8 | f[15]);
		if (a->flags & TALLY_SWACT_SET_VID)
			tci = (uint16_t)((tci & 0xf000) | (a->vlan_tci & 0x0fff));
		if (a->flags & TALLY_SWACT_SET_PCP)
			tci = (uint16_t)((tci & 0x1fff) | (a->vlan_tci & 0xe000));
		f[14] = (uint8_t)(tci >> 8);
		f[15] = (uint8_t)tci;
	}
	if (a->flags & TALLY_SWACT_SET_SMAC)
		memcpy(f + 6, a->smac, 6);
	if (a->flags & TALLY_SWACT_SET_DMAC)
		memcpy(f, a->dmac, 6);
	return len;
}

/* The reference switch: the linear walk of ref_classify() with the switch's
 * fates; the frame f (len bytes, from src: a port's wire, or with
 * TALLY_SOURCE_PORT_HOST its host) is edited in place. SWD_OWN: to its own
 * port's pipeline (from a wire) or wire (from a host). */
static enum sw_dest
sw_ref(struct sw_diff *d, const struct tally_match_key *k, uint32_t src, uint8_t *f,
       uint32_t *len, uint32_t max, uint32_t *port)
{
	uint32_t table = 0, i, word;
	const struct ref_rule *cur = NULL;
	const struct tally_steer_swact *a = NULL;

	for (;;) {
		const struct ref_rule *best = NULL;

		for (i = 0; i < d->nrules; i++) {
			const struct ref_rule *r = &d->rules[i];

			if (!r->live || r->table != table || !key_match(k, r))
				continue;
			if (cur != NULL && !(r->prio > cur->prio ||
					     (r->prio == cur->prio && r->mseq > cur->mseq)))
				continue;
			if (best == NULL || r->prio < best->prio ||
			    (r->prio == best->prio && r->mseq < best->mseq))
				best = r;
		}
		if (best == NULL)
			return SWD_OWN;
		if (best->act.flags & TALLY_STEER_A_COUNT) {
			for (i = 0; i < SW_COUNTERS && d->cnt[i] != best->act.counter; i++)
				;
			d->ref_pkts[i]++;
			d->ref_bytes[i] += *len;
		}
		switch (best->act.fate) {
		case TALLY_STEER_FATE_DROP:
			return SWD_DROP;
		case TALLY_STEER_FATE_JUMP:
			table = best->act.arg;
			cur = NULL;
			continue;
		case TALLY_STEER_FATE_PASSTHRU:
			cur = best;
			continue;
		case TALLY_STEER_FATE_PORT:
			word = best->act.arg;
			break;
		case TALLY_STEER_FATE_SWACT:
			for (i = 0; d->set_id[i] != best->act.arg; i++)
				;
			a = &d->set[i];
			word = (a->flags & TALLY_SWACT_FWD) ? a->port :
			       (src & TALLY_SOURCE_PORT_HOST) ? src & TALLY_STEER_PORT_M :
			       src | TALLY_STEER_PORT_HOST;
			break;
		default:
			return SWD_OWN;
		}
		*port = word & TALLY_STEER_PORT_M;
		if (a != NULL) {
			*len = sw_ref_edit(f, *len, a, max);
			if (*len == 0)
				return SWD_DROP;
		}
		return (word & TALLY_STEER_PORT_HOST) ? SWD_HOST : SWD_WIRE;
	}
}

static int
sw_add_rules(struct sw_diff *d, uint32_t n)
{
	uint32_t i, j, f;
	int rc;

	for (i = 0; i < n && d->nrules < SW_RULES; i++) {
		struct ref_rule *r = &d->rules[d->nrules];
		uint32_t t = sw_rnd(d, SW_TABLES), p = sw_rnd(d, NPRIO), tm = sw_rnd(d, SW_NTEMPL);
		struct tally_match_key k, mk;

		memset(r, 0, sizeof(*r));
		if (d->mt[t][p][tm] == NULL) {
			memset(&mk, 0, sizeof(mk));
			for (f = 0; f < SWF_NUM; f++)
				if (sw_templates[tm] & FB(f))
					key_put(&mk, sw_fields[f].off, sw_fields[f].mask,
						sw_fields[f].len);
			TEST_ASSERT_EQ(tally_steer_matcher_create(d->t[t], p, &mk,
								  &d->mt[t][p][tm]), 0, "");
			d->mseq[t][p][tm] = d->nrules;
		}
		memset(&k, 0, sizeof(k));
		for (f = 0; f < SWF_NUM; f++)
			key_put(&k, sw_fields[f].off,
				sw_fields[f].dom[sw_rnd(d, sw_fields[f].ndom)], sw_fields[f].len);
		r->table = t;
		r->prio = p;
		r->mseq = d->mseq[t][p][tm];
		for (f = 0; f < SWF_NUM; f++)
			if (sw_templates[tm] & FB(f))
				key_put(&r->mask, sw_fields[f].off, sw_fields[f].mask,
					sw_fields[f].len);
		for (j = 0; j < TALLY_MATCH_KEY_LEN; j++)
			r->value.b[j] = k.b[j] & r->mask.b[j];
		if (sw_rnd(d, 2))
			r->act.flags |= TALLY_STEER_A_COUNT;
		r->act.counter = d->cnt[sw_rnd(d, SW_COUNTERS)];
		switch (sw_rnd(d, 8)) {
		case 7:
		case 0:
			r->act.fate = TALLY_STEER_FATE_SWACT;
			r->act.arg = d->set_id[sw_rnd(d, SW_SETS)];
			break;
		case 1:
			r->act.fate = TALLY_STEER_FATE_PORT;
			r->act.arg = sw_rnd(d, SW_PORTS) | (sw_rnd(d, 2) ? TALLY_STEER_PORT_HOST : 0);
			break;
		case 2:
			r->act.fate = TALLY_STEER_FATE_SWACT;
			r->act.arg = d->set_id[sw_rnd(d, SW_SETS)];
			break;
		case 3:
			r->act.fate = TALLY_STEER_FATE_DROP;
			break;
		case 4:
			r->act.fate = t + 1 < SW_TABLES ? TALLY_STEER_FATE_JUMP :
							  TALLY_STEER_FATE_MISS;
			r->act.arg = t + 1 + sw_rnd(d, SW_TABLES - t > 1 ? SW_TABLES - t - 1 : 1);
			break;
		case 5:
			r->act.fate = TALLY_STEER_FATE_PASSTHRU;
			break;
		default:
			r->act.fate = TALLY_STEER_FATE_MISS;
			break;
		}
		rc = tally_steer_rule_insert(d->mt[t][p][tm], &k, &r->act, &r->h);
		if (rc == -EEXIST)
			continue;
		TEST_ASSERT_EQ(rc, 0, "switch rule (seed %u)", d->seed);
		r->live = true;
		d->nrules++;
	}
	return TEST_SUCCESS;
}

/* A random UDP frame from the fields' domains, a tag or none. */
static uint32_t
sw_rand_frame(struct sw_diff *d, uint8_t *f)
{
	static const uint8_t dmac[6] = { 2, 0, 0, 0, 0, 1 };
	uint32_t len = 60 + sw_rnd(d, 130), sip, k;
	uint16_t dp;
	uint8_t t[256];

	sip = (uint32_t)sw_fields[SWF_SIP].dom[sw_rnd(d, 2)];
	dp = (uint16_t)sw_fields[SWF_DPORT].dom[sw_rnd(d, 3)];
	mt_udp_frame(f, len, dmac, sip, 0x0a010001, 1000, dp, sw_rnd(d, 1000));
	if (sw_rnd(d, 3) == 0)
		return len;
	memcpy(t, f, len);
	k = sw_rnd(d, 2) ? 0x8100 : 0x88a8;
	f[12] = (uint8_t)(k >> 8);
	f[13] = (uint8_t)k;
	f[14] = (uint8_t)sw_rnd(d, 256);
	f[15] = (uint8_t)sw_rnd(d, 256);
	memcpy(f + 16, t + 12, len - 12);
	return len + 4;
}

static int
sw_setup(struct sw_diff *d)
{
	struct tally_model_config cfg[SW_PORTS];
	struct tally_cnt_pool_config pc = { 0 };
	struct tally_steer_config sc = { 0 };
	static const uint32_t forced[3] = {
		TALLY_SWACT_SET_VID | TALLY_SWACT_SET_PCP,
		TALLY_SWACT_POP_VLAN | TALLY_SWACT_SET_SMAC,
		TALLY_SWACT_PUSH_VLAN | TALLY_SWACT_SET_DMAC,
	};
	uint64_t base;
	uint32_t i, k;

	for (i = 0; i < SW_PORTS; i++) {
		mt_config(&cfg[i]);
		TEST_ASSERT_EQ(steer_dev_cls_isa(&cfg[i].cls_isa), 0, "TALLY_TEST_CLS_ISA");
		cfg[i].rx_queues = 1;
		cfg[i].tx_queues = 1;
		cfg[i].max_frame = 200;
	}
	TEST_ASSERT_EQ(mt_open_ports(d->d, cfg, SW_PORTS), 0, "");
	for (i = 0; i < SW_PORTS; i++) {
		TEST_ASSERT_EQ(mt_rxq_start(&d->d[i], &d->q[i], 0, 6, 2048, false), 0, "");
		TEST_ASSERT_EQ(mt_txq_start(&d->d[i], &d->tq[i], 0, 6), 0, "");
		mt_port(&d->d[i], TALLY_CTRL_PROMISC);
		mt_wr(&d->d[i], TALLY_REG_MTU, 200);
	}
	TEST_ASSERT_EQ(arena_init(&d->a, 64u << 20), 0, "");
	base = (uint64_t)(uintptr_t)d->a.base;
	TEST_ASSERT_EQ(mt_map(&d->d[0], base, base, d->a.len), TALLY_XLT_OK, "");
	tally_fence_init(&d->fence, &d->d[0].io);
	pc.io = &d->d[0].io;
	pc.fence = &d->fence;
	TEST_ASSERT_EQ(tally_cnt_pool_create(&pc, &d->pool), 0, "");
	sc.io = &d->d[0].io;
	sc.fence = &d->fence;
	sc.cnt = d->pool;
	sc.mem = arena_ops(&d->a);
	sc.sw = true;
	sc.nb_ports = SW_PORTS;
	sc.max_tables = 4;
	sc.max_rss = 8;
	sc.nb_queues = 1;
	TEST_ASSERT_EQ(tally_steer_ctx_create(&sc, &d->ctx), 0, "switch context");
	for (i = 0; i < SW_TABLES; i++)
		TEST_ASSERT_EQ(tally_steer_table_create(d->ctx, i, &d->t[i]), 0, "");
	for (i = 0; i < SW_COUNTERS; i++)
		TEST_ASSERT_EQ(tally_cnt_alloc(d->pool, &d->cnt[i]), 0, "");
	for (i = 0; i < SW_SETS; i++) {
		struct tally_steer_swact *a = &d->set[i];

		memset(a, 0, sizeof(*a));
		a->flags = (uint32_t)rand_r(&d->seed) &
			   (TALLY_SWACT_POP_VLAN | TALLY_SWACT_PUSH_VLAN | TALLY_SWACT_SET_VID |
			    TALLY_SWACT_SET_PCP | TALLY_SWACT_SET_SMAC | TALLY_SWACT_SET_DMAC |
			    TALLY_SWACT_FWD);
		a->flags |= forced[i % 3];	/* every edit in some set */
		a->port = sw_rnd(d, SW_PORTS) | (sw_rnd(d, 2) ? TALLY_STEER_PORT_HOST : 0);
		a->vlan_tpid = sw_rnd(d, 2) ? 0x8100 : 0x88a8;
		a->vlan_tci = (uint16_t)rand_r(&d->seed);
		for (k = 0; k < 6; k++) {
			a->smac[k] = (uint8_t)rand_r(&d->seed);
			a->dmac[k] = (uint8_t)rand_r(&d->seed);
		}
		TEST_ASSERT_EQ(tally_steer_swact_create_locked(d->ctx, a, &d->set_id[i]), 0, "");
		a->flags |= TALLY_SWACT_VALID;
	}
	return TEST_SUCCESS;
}

static void
sw_teardown(struct sw_diff *d)
{
	uint32_t i;

	if (d->ctx != NULL)
		tally_steer_ctx_destroy(d->ctx);
	if (d->pool != NULL)
		tally_cnt_pool_destroy(d->pool);
	if (d->d[0].m != NULL)
		tally_fence_fini(&d->fence);
	for (i = 0; i < SW_PORTS; i++)
		if (d->d[i].m != NULL)
			mt_close(&d->d[i]);
	if (d->a.base != NULL)
		arena_fini(&d->a);
}

/* Frame f (len bytes) sent by port p's host through the switch: posted,
 * stepped once with p's wire held (what the switch or the Tx queue puts on
 * p's own wire does not meet the switch again in that step), completed OK. */
static int
sw_host_frame(struct sw_diff *d, uint32_t p, const uint8_t *f, uint32_t len)
{
	struct tally_tx_cqe c;

	TEST_ASSERT_EQ(mt_tx_send(&d->tq[p], f, len, 1 + sw_rnd(d, 2)), 0, "");
	tally_model_hold_wire(d->d[p].m, 1);
	mt_service(&d->d[p]);
	tally_model_hold_wire(d->d[p].m, 0);
	while (mt_tx_reap(&d->tq[p], &c) == 1) {
		TEST_ASSERT_EQ(c.status, TALLY_TXC_OK, "seed %u: host frame", d->seed);
		if (c.len != 0)
			TEST_ASSERT_EQ(c.len, len, "seed %u: host frame", d->seed);
	}
	TEST_ASSERT(d->tq[p].cons == d->tq[p].prod, "seed %u: host frame completed", d->seed);
	return TEST_SUCCESS;
}

/* n random frames into random ports, from their wires or their hosts, each
 * compared with the reference. */
static int
sw_run_frames(struct sw_diff *d, uint32_t n)
{
	uint64_t st0[SW_PORTS][TALLY_STAT_NUM], st1[SW_PORTS][TALLY_STAT_NUM];
	uint32_t i, j, p, len, port = 0, got, seen[4] = { 0 }, nhost = 0;
	struct tally_model_pkt pkt;
	uint8_t f[256], want[256], out[2048];
	struct mt_rx_info info;
	enum sw_dest dest;
	bool host;
	int r;

	for (i = 0; i < n; i++) {
		p = sw_rnd(d, SW_PORTS);
		host = sw_rnd(d, 2) != 0;
		nhost += host;
		len = sw_rand_frame(d, f);
		tally_model_parse(f, len, &pkt);
		key_put(&pkt.key, SW_SRCP, p | (host ? TALLY_SOURCE_PORT_HOST : 0), 2);
		memcpy(want, f, len);
		dest = sw_ref(d, &pkt.key, p | (host ? TALLY_SOURCE_PORT_HOST : 0), want, &len,
			      200, &port);
		seen[dest]++;
		for (j = 0; j < SW_PORTS; j++)
			mt_stats(&d->d[j], st0[j]);
		mt_wr(&d->d[0], TALLY_REG_SW_CTRL, TALLY_SW_CTRL_EN);
		if (host)
			TEST_ASSERT_EQ(sw_host_frame(d, p, f, pkt.len), TEST_SUCCESS, "frame %u", i);
		else
			TEST_ASSERT_EQ(tally_model_inject(d->d[p].m, f, pkt.len), 0, "");
		/* a frame sent to a wire comes back there, past the switch */
		mt_wr(&d->d[0], TALLY_REG_SW_CTRL, 0);
		for (j = 0; j < SW_PORTS; j++)
			mt_service(&d->d[j]);
		for (j = 0; j < SW_PORTS; j++)
			mt_stats(&d->d[j], st1[j]);
		for (j = 0, got = SW_PORTS; j < SW_PORTS; j++) {
			r = mt_rxq_recv(&d->q[j], out, sizeof(out), &info);
			if (r == 0)
				continue;
			TEST_ASSERT(got == SW_PORTS, "seed %u frame %u: delivered twice", d->seed, i);
			got = j;
			TEST_ASSERT_EQ(r, (int)len, "seed %u frame %u: length", d->seed, i);
			TEST_ASSERT(memcmp(out, want, len) == 0, "seed %u frame %u: bytes", d->seed,
				    i);
		}
#define SW_DELTA(x, s)	(st1[x][s] - st0[x][s])
		switch (dest) {
		case SWD_OWN:
			TEST_ASSERT_EQ(got, p, "seed %u frame %u: own port", d->seed, i);
			if (host)	/* on its own wire, as without the switch */
				TEST_ASSERT_U64_EQ(SW_DELTA(p, TALLY_STAT_TX_PKTS), 1,
						   "seed %u frame %u", d->seed, i);
			break;
		case SWD_DROP:
			TEST_ASSERT_EQ(got, SW_PORTS, "seed %u frame %u: dropped", d->seed, i);
			TEST_ASSERT_U64_EQ(SW_DELTA(p, TALLY_STAT_SW_DROP), 1, "seed %u", d->seed);
			break;
		case SWD_HOST:
			TEST_ASSERT_EQ(got, port, "seed %u frame %u: host", d->seed, i);
			TEST_ASSERT_U64_EQ(SW_DELTA(p, TALLY_STAT_SW_TO_HOST), 1, "seed %u", d->seed);
			break;
		case SWD_WIRE:
			TEST_ASSERT_EQ(got, port, "seed %u frame %u: wire", d->seed, i);
			TEST_ASSERT_U64_EQ(SW_DELTA(p, TALLY_STAT_SW_TO_WIRE), 1, "seed %u", d->seed);
			TEST_ASSERT_U64_EQ(SW_DELTA(port, TALLY_STAT_TX_BYTES), len, "seed %u",
					   d->seed);
			break;
		}
		if (host && dest != SWD_OWN && !(dest == SWD_WIRE && port == p))
			TEST_ASSERT_U64_EQ(SW_DELTA(p, TALLY_STAT_TX_PKTS), 0,
					   "seed %u frame %u: taken, not TX_PKTS", d->seed, i);
#undef SW_DELTA
	}
	for (i = 0; i < SW_COUNTERS; i++) {
		uint64_t pk, b;

		TEST_ASSERT_EQ(tally_cnt_read(d->pool, d->cnt[i], &pk, &b), 0, "");
		TEST_ASSERT_U64_EQ(pk, d->ref_pkts[i], "counter %u (seed %u)", i, d->seed);
		TEST_ASSERT_U64_EQ(b, d->ref_bytes[i], "counter %u bytes (seed %u)", i, d->seed);
	}
	TEST_ASSERT_EQ(mt_rd(&d->d[0], TALLY_REG_FAULT_CNT), 0, "seed %u", d->seed);
	printf("  switch: %u frames (%u from hosts): %u to their own port, %u dropped, "
	       "%u to a wire, %u to a host\n", n, nhost, seen[SWD_OWN], seen[SWD_DROP],
	       seen[SWD_WIRE], seen[SWD_HOST]);
	return TEST_SUCCESS;
}

static int
sw_diff_run(unsigned int seed)
{
	struct sw_diff *d = calloc(1, sizeof(*d));
	uint32_t i, n = 0;
	int rc;

	if (d == NULL)
		return TEST_FAILED;
	printf("  seed %u\n", seed);
	d->seed = seed;
	rc = sw_setup(d);
	if (rc == TEST_SUCCESS)
		rc = sw_add_rules(d, 40);
	if (rc == TEST_SUCCESS)
		rc = sw_run_frames(d, SW_FRAMES);
	for (i = 0; rc == TEST_SUCCESS && i < d->nrules; i++) {
		if (!d->rules[i].live || sw_rnd(d, 3) != 0)
			continue;
		TEST_ASSERT_EQ(tally_steer_rule_delete(d->rules[i].h), 0, "");
		d->rules[i].live = false;
		n++;
	}
	if (rc == TEST_SUCCESS)
		rc = sw_add_rules(d, 40);
	if (rc == TEST_SUCCESS)
		rc = sw_run_frames(d, SW_FRAMES);
	if (rc != TEST_SUCCESS)
		fprintf(stderr, "  FAILED with seed %u (%u rules deleted)\n", seed, n);
	sw_teardown(d);
	free(d);
	return rc;
}

static int
test_diff_switch_fixed_seed(void)
{
	return sw_diff_run(20261127u);
}

static int
test_diff_switch_random_seed(void)
{
	return sw_diff_run((unsigned int)time(NULL) ^ (unsigned int)tally_time_ns());
}

static const struct tally_test_case cases[] = {
	TEST_CASE(test_diff_fixed_seed),
	TEST_CASE(test_diff_random_seed),
	TEST_CASE(test_diff_staged_fixed_seed),
	TEST_CASE(test_diff_staged_random_seed),
	TEST_CASE(test_diff_switch_fixed_seed),
	TEST_CASE(test_diff_switch_random_seed),
};

TEST_MAIN("steer-diff", cases)
