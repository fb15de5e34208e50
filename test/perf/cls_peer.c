/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Classification benchmark, the DPDK peers (an EAL program) on the data of
 * cls_gen.h:
 *   ts-hash  tuple space: one rte_hash (CRC hash) per tuple of cls_expand()
 *            - the same masked entries and probe order Tally gets, except
 *            that the protocol is part of the key, so TCP and UDP share a
 *            table - probed in order with rte_hash_lookup_bulk_data() per
 *            burst, packets leaving the burst at their first hit; each hit
 *            increments a per-rule counter (Tally counts too).
 *   acl-*    librte_acl built from the unexpanded rules (ranges as ranges),
 *            the field layout of dpdk-test-acl, run with each algorithm
 *            given (--acl scalar,avx2,avx512x32).
 * Every pass is compared with the reference, packet by packet (and the
 * tuple-space counters rule by rule).
 *
 * usage: cls_peer [EAL options] -- [--rules N] [--packets N] [--seed N]
 *        [--hit-pct N] [--iter N] [--burst N] [--acl LIST] [--no-ts] [--check]
 * Output: RESULT lines as cls_tally prints them.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_acl.h>
#include <rte_byteorder.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_hash.h>
#include <rte_hash_crc.h>
#include <rte_lcore.h>

#include "cls_gen.h"

#define MAX_BURST	64

struct ts_key {
	uint32_t sip, dip;
	uint16_t sp, dp;
	uint8_t proto;
	uint8_t pad[3];
};

struct ts_tab {
	struct rte_hash *h;
	struct ts_key mask;
};

struct peer {
	const struct cls_set *s;
	struct ts_tab *tab;
	uint32_t ntab;
	uint64_t *cnt;			/* tuple-space per-rule counters */
	int32_t *got;
	uint32_t burst;
	uint32_t ts_passes;
	struct rte_acl_ctx *acl;
	struct acl_in *in;
};

/* ---- tuple space ----------------------------------------------------------- */
static void
ts_masked(struct ts_key *k, const struct ts_key *m, const struct cls_pkt *p)
{
	k->sip = p->sip & m->sip;
	k->dip = p->dip & m->dip;
	k->sp = p->sp & m->sp;
	k->dp = p->dp & m->dp;
	k->proto = p->proto & m->proto;
	k->pad[0] = k->pad[1] = k->pad[2] = 0;
}

static int
ts_build(struct peer *pr, const struct cls_tuples *ts)
{
	struct rte_hash_parameters hp;
	char name[RTE_HASH_NAMESIZE];
	uint32_t t, i;
	int rc;

	pr->tab = calloc(ts->ntup, sizeof(*pr->tab));
	if (pr->tab == NULL)
		return -ENOMEM;
	for (t = 0; t < ts->ntup; t++) {
		const struct cls_tuple *tp = &ts->tup[t];
		struct ts_tab *tb = &pr->tab[t];

		snprintf(name, sizeof(name), "cls_ts_%u", t);
		memset(&hp, 0, sizeof(hp));
		hp.name = name;
		hp.entries = tp->n * 2 < 64 ? 64 : tp->n * 2;
		hp.key_len = sizeof(struct ts_key);
		hp.hash_func = rte_hash_crc;
		hp.socket_id = (int)rte_socket_id();
		tb->h = rte_hash_create(&hp);
		if (tb->h == NULL)
			return -rte_errno;
		pr->ntab++;
		memset(&tb->mask, 0, sizeof(tb->mask));
		tb->mask.sip = tp->sip_m;
		tb->mask.dip = tp->dip_m;
		tb->mask.sp = tp->sp_m;
		tb->mask.dp = tp->dp_m;
		tb->mask.proto = tp->proto_m;
		for (i = 0; i < tp->n; i++) {
			const struct cls_entry *e = &ts->ent[tp->first + i];
			struct ts_key k = {
				.sip = e->sip, .dip = e->dip, .sp = e->sp, .dp = e->dp,
				.proto = e->proto,
			};

			rc = rte_hash_add_key_data(tb->h, &k, (void *)(uintptr_t)e->rule);
			if (rc != 0)
				return rc;
		}
	}
	printf("ts-hash: %u rte_hash tables, %u entries\n", pr->ntab, ts->nent);
	return 0;
}

static void
ts_burst(struct peer *pr, uint32_t first, uint32_t nb)
{
	const struct cls_pkt *pk = pr->s->pkts + first;
	struct ts_key keys[MAX_BURST];
	const void *kp[MAX_BURST];
	void *data[MAX_BURST];
	uint8_t act[MAX_BURST];
	uint64_t hits;
	uint32_t t, j, na = nb, nn, rule;

	for (j = 0; j < nb; j++) {
		act[j] = (uint8_t)j;
		pr->got[first + j] = -1;
	}
	for (t = 0; t < pr->ntab && na != 0; t++) {
		const struct ts_tab *tb = &pr->tab[t];

		for (j = 0; j < na; j++) {
			ts_masked(&keys[j], &tb->mask, &pk[act[j]]);
			kp[j] = &keys[j];
		}
		hits = 0;
		rte_hash_lookup_bulk_data(tb->h, kp, na, &hits, data);
		for (j = 0, nn = 0; j < na; j++) {
			if (hits & (1ull << j)) {
				rule = (uint32_t)(uintptr_t)data[j];
				pr->got[first + act[j]] = (int32_t)rule;
				pr->cnt[rule]++;
			} else {
				act[nn++] = act[j];
			}
		}
		na = nn;
	}
}

static uint64_t
ts_pass(struct peer *pr)
{
	uint32_t n = pr->s->npkts, i, nb;
	uint64_t c0 = rte_rdtsc_precise();

	for (i = 0; i < n; i += nb) {
		nb = n - i < pr->burst ? n - i : pr->burst;
		ts_burst(pr, i, nb);
	}
	pr->ts_passes++;
	return rte_rdtsc_precise() - c0;
}

/* ---- ACL ------------------------------------------------------------------- */
struct acl_in {
	uint8_t proto;
	uint32_t sip;
	uint32_t dip;
	uint16_t sp;
	uint16_t dp;
};

enum { F_PROTO, F_SIP, F_DIP, F_SP, F_DP, F_NUM };

RTE_ACL_RULE_DEF(cls_acl_rule, F_NUM);

static const struct rte_acl_field_def acl_defs[F_NUM] = {
	{ .type = RTE_ACL_FIELD_TYPE_BITMASK, .size = sizeof(uint8_t),
	  .field_index = F_PROTO, .input_index = 0,
	  .offset = offsetof(struct acl_in, proto) },
	{ .type = RTE_ACL_FIELD_TYPE_MASK, .size = sizeof(uint32_t),
	  .field_index = F_SIP, .input_index = 1,
	  .offset = offsetof(struct acl_in, sip) },
	{ .type = RTE_ACL_FIELD_TYPE_MASK, .size = sizeof(uint32_t),
	  .field_index = F_DIP, .input_index = 2,
	  .offset = offsetof(struct acl_in, dip) },
	{ .type = RTE_ACL_FIELD_TYPE_RANGE, .size = sizeof(uint16_t),
	  .field_index = F_SP, .input_index = 3,
	  .offset = offsetof(struct acl_in, sp) },
	{ .type = RTE_ACL_FIELD_TYPE_RANGE, .size = sizeof(uint16_t),
	  .field_index = F_DP, .input_index = 3,
	  .offset = offsetof(struct acl_in, dp) },
};

static const struct {
	const char *name;
	enum rte_acl_classify_alg alg;
} acl_algs[] = {
	{ "scalar", RTE_ACL_CLASSIFY_SCALAR },
	{ "sse", RTE_ACL_CLASSIFY_SSE },
	{ "avx2", RTE_ACL_CLASSIFY_AVX2 },
	{ "avx512x16", RTE_ACL_CLASSIFY_AVX512X16 },
	{ "avx512x32", RTE_ACL_CLASSIFY_AVX512X32 },
};

static int
acl_build(struct peer *pr)
{
	const struct cls_set *s = pr->s;
	struct rte_acl_param prm = {
		.name = "cls_acl", .socket_id = SOCKET_ID_ANY,
		.rule_size = RTE_ACL_RULE_SZ(F_NUM), .max_rule_num = s->nrules,
	};
	struct rte_acl_config cfg;
	struct cls_acl_rule r;
	uint32_t i;
	int rc;

	pr->acl = rte_acl_create(&prm);
	pr->in = malloc((size_t)(s->npkts ? s->npkts : 1) * sizeof(*pr->in));
	if (pr->acl == NULL || pr->in == NULL)
		return -ENOMEM;
	for (i = 0; i < s->nrules; i++) {
		const struct cls_rule *cr = &s->rules[i];

		memset(&r, 0, sizeof(r));
		r.data.category_mask = 1;
		r.data.priority = RTE_ACL_MAX_PRIORITY - (int32_t)i;
		r.data.userdata = i + 1;
		r.field[F_PROTO].value.u8 = cr->proto;
		r.field[F_PROTO].mask_range.u8 = cr->proto_mask;
		r.field[F_SIP].value.u32 = cr->sip;
		r.field[F_SIP].mask_range.u32 = cr->sip_len;
		r.field[F_DIP].value.u32 = cr->dip;
		r.field[F_DIP].mask_range.u32 = cr->dip_len;
		r.field[F_SP].value.u16 = cr->sp_lo;
		r.field[F_SP].mask_range.u16 = cr->sp_hi;
		r.field[F_DP].value.u16 = cr->dp_lo;
		r.field[F_DP].mask_range.u16 = cr->dp_hi;
		rc = rte_acl_add_rules(pr->acl, (struct rte_acl_rule *)&r, 1);
		if (rc != 0)
			return rc;
	}
	memset(&cfg, 0, sizeof(cfg));
	cfg.num_categories = 1;
	cfg.num_fields = F_NUM;
	memcpy(cfg.defs, acl_defs, sizeof(acl_defs));
	rc = rte_acl_build(pr->acl, &cfg);
	if (rc != 0)
		return rc;
	for (i = 0; i < s->npkts; i++) {
		const struct cls_pkt *p = &s->pkts[i];

		memset(&pr->in[i], 0, sizeof(pr->in[i]));
		pr->in[i].proto = p->proto;
		pr->in[i].sip = rte_cpu_to_be_32(p->sip);
		pr->in[i].dip = rte_cpu_to_be_32(p->dip);
		pr->in[i].sp = rte_cpu_to_be_16(p->sp);
		pr->in[i].dp = rte_cpu_to_be_16(p->dp);
	}
	return 0;
}

static int
acl_pass(struct peer *pr, uint64_t *cyc)
{
	const uint8_t *data[MAX_BURST];
	uint32_t res[MAX_BURST];
	uint32_t n = pr->s->npkts, i, j, nb;
	uint64_t c0 = rte_rdtsc_precise();
	int rc;

	for (i = 0; i < n; i += nb) {
		nb = n - i < pr->burst ? n - i : pr->burst;
		for (j = 0; j < nb; j++)
			data[j] = (const uint8_t *)&pr->in[i + j];
		rc = rte_acl_classify(pr->acl, data, res, nb, 1);
		if (rc != 0)
			return rc;
		for (j = 0; j < nb; j++)
			pr->got[i + j] = (int32_t)res[j] - 1;
	}
	*cyc = rte_rdtsc_precise() - c0;
	return 0;
}

/* ---- checks and main ------------------------------------------------------- */
static int
check_got(const struct peer *pr, const char *what)
{
	uint32_t bad = cls_ref_mismatches(pr->s, pr->got, what);

	if (bad != 0)
		fprintf(stderr, "%s: %u packets differ from the reference\n", what, bad);
	return bad == 0 ? 0 : -1;
}

static int
check_ts_counters(const struct peer *pr)
{
	uint32_t i, bad = 0;

	for (i = 0; i < pr->s->nrules; i++)
		if (pr->cnt[i] != (uint64_t)pr->ts_passes * pr->s->expect_cnt[i] && bad++ < 5)
			fprintf(stderr, "ts-hash: rule %u counter %" PRIu64 ", expected %" PRIu64 "\n",
				i, pr->cnt[i], (uint64_t)pr->ts_passes * pr->s->expect_cnt[i]);
	return bad == 0 ? 0 : -1;
}

static double
now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static void
result(const char *name, const struct cls_set *s, double us, uint64_t cyc)
{
	printf("RESULT bench=%s rules=%u pkts=%u mpps=%.3f cyc=%.1f\n", name, s->nrules,
	       s->npkts, s->npkts / us, (double)cyc / s->npkts);
	fflush(stdout);
}

static int
run_ts(struct peer *pr)
{
	double t0 = now_us();
	uint64_t cyc = ts_pass(pr);

	result("ts-hash", pr->s, now_us() - t0, cyc);
	if (check_got(pr, "ts-hash") != 0)
		return -1;
	return check_ts_counters(pr);
}

/* Returns 0, -1 on a difference, 1 if the algorithm is not available here. */
static int
run_acl(struct peer *pr, const char *alg)
{
	char name[64];
	uint64_t cyc;
	double t0;
	size_t k;
	int rc;

	for (k = 0; k < sizeof(acl_algs) / sizeof(acl_algs[0]); k++)
		if (strcmp(acl_algs[k].name, alg) == 0)
			break;
	if (k == sizeof(acl_algs) / sizeof(acl_algs[0])) {
		fprintf(stderr, "unknown ACL algorithm %s\n", alg);
		return -1;
	}
	rc = rte_acl_set_ctx_classify(pr->acl, acl_algs[k].alg);
	if (rc != 0) {
		printf("acl-%s: not available on this machine (%d), skipped\n", alg, rc);
		return 1;
	}
	t0 = now_us();
	rc = acl_pass(pr, &cyc);
	if (rc != 0) {
		fprintf(stderr, "acl-%s: classify: %d\n", alg, rc);
		return -1;
	}
	snprintf(name, sizeof(name), "acl-inproc-%s", alg);
	result(name, pr->s, now_us() - t0, cyc);
	return check_got(pr, name);
}

static int
usage(void)
{
	fprintf(stderr, "usage: cls_peer [EAL options] -- [--rules N] [--packets N] "
		"[--seed N] [--hit-pct N] [--iter N] [--burst N] [--acl LIST] [--no-ts] "
		"[--check]\n");
	return 2;
}

static int
run_all(struct peer *pr, uint32_t iter, int ts, const char *acl_list)
{
	char list[256], *alg, *sp;
	uint32_t it;
	int rc = 0, r;

	for (it = 0; it < iter && rc == 0; it++) {
		if (ts)
			rc = run_ts(pr);
		snprintf(list, sizeof(list), "%s", acl_list);
		for (alg = strtok_r(list, ",", &sp); alg != NULL && rc == 0;
		     alg = strtok_r(NULL, ",", &sp)) {
			r = run_acl(pr, alg);
			rc = r < 0 ? r : 0;
		}
	}
	return rc;
}

int
main(int argc, char **argv)
{
	const char *acl_list = "scalar,avx2,avx512x32";
	struct cls_params p;
	struct cls_set s;
	struct cls_tuples ts;
	struct peer pr;
	uint32_t iter = 3, burst = 32;
	int check = 0, use_ts = 1, i, rc;

	rc = rte_eal_init(argc, argv);
	if (rc < 0) {
		fprintf(stderr, "EAL init failed\n");
		return 1;
	}
	argc -= rc;
	argv += rc;
	cls_params_init(&p);
	for (i = 1; i < argc; i++) {
		rc = cls_parse_opt(&p, argc, argv, &i);
		if (rc < 0)
			return usage();
		if (rc > 0)
			continue;
		if (strcmp(argv[i], "--check") == 0)
			check = 1;
		else if (strcmp(argv[i], "--no-ts") == 0)
			use_ts = 0;
		else if (strcmp(argv[i], "--iter") == 0 && i + 1 < argc)
			iter = (uint32_t)strtoul(argv[++i], NULL, 0);
		else if (strcmp(argv[i], "--burst") == 0 && i + 1 < argc)
			burst = (uint32_t)strtoul(argv[++i], NULL, 0);
		else if (strcmp(argv[i], "--acl") == 0 && i + 1 < argc)
			acl_list = argv[++i];
		else
			return usage();
	}
	if (burst == 0 || burst > MAX_BURST || iter == 0)
		return usage();
	if (check)
		iter = 1;
	memset(&pr, 0, sizeof(pr));
	memset(&ts, 0, sizeof(ts));
	rc = cls_set_gen(&p, &s);
	if (rc != 0) {
		fprintf(stderr, "generate: %d\n", rc);
		return 1;
	}
	pr.s = &s;
	pr.burst = burst;
	pr.got = calloc(s.npkts ? s.npkts : 1, sizeof(*pr.got));
	pr.cnt = calloc(s.nrules, sizeof(*pr.cnt));
	rc = pr.got == NULL || pr.cnt == NULL ? -ENOMEM : cls_expand(&s, &ts);
	if (rc == 0) {
		cls_set_print(&s, &ts, stdout);
		rc = use_ts ? ts_build(&pr, &ts) : 0;
	}
	if (rc == 0 && acl_list[0] != '\0')
		rc = acl_build(&pr);
	if (rc == 0)
		rc = run_all(&pr, iter, use_ts, acl_list);
	else
		fprintf(stderr, "setup: %d\n", rc);
	if (rc == 0)
		printf("check: peers match the reference on %u packets\n", s.npkts);
	for (i = 0; i < (int)pr.ntab; i++)
		rte_hash_free(pr.tab[i].h);
	rte_acl_free(pr.acl);
	free(pr.tab);
	free(pr.in);
	free(pr.got);
	free(pr.cnt);
	cls_tuples_free(&ts);
	cls_set_free(&s);
	rte_eal_cleanup();
	return rc == 0 ? 0 : 1;
}
