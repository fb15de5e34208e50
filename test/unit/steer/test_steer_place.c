/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Merged placement of TCP/UDP port masks (tally_steer_merge_ports): which
 * masks it widens and which it leaves alone, and that rules placed with it
 * classify real frames (through the device's parser and steering engine)
 * exactly as a linear classifier over the original rules does.
 */
#include <stdlib.h>

#include "tally_test.h"
#include "steer_test_util.h"
#include "tally_model.h"
#include "tally_model_dev.h"
#include "tally_steer_place.h"

#define O(f)	TALLY_MK(TALLY_MS_OUTER, f)
#define I(f)	TALLY_MK(TALLY_MS_INNER, f)

static void
rule_ports(struct tally_match_key *mk, struct tally_match_key *v, uint32_t base,
	   uint8_t proto, uint16_t spm, uint16_t sp, uint16_t dpm, uint16_t dp)
{
	uint32_t off = base + (proto == 6 ? TALLY_L24_TCP_SPORT : TALLY_L24_UDP_SPORT);

	key_put(mk, base + TALLY_L24_IP_PROTOCOL, 0xff, 1);
	key_put(v, base + TALLY_L24_IP_PROTOCOL, proto, 1);
	key_put(mk, off, spm, 2);
	key_put(v, off, sp & spm, 2);
	key_put(mk, off + 2, dpm, 2);
	key_put(v, off + 2, dp & dpm, 2);
}

static uint16_t
get16(const struct tally_match_key *k, uint32_t off)
{
	return (uint16_t)(k->b[off] << 8 | k->b[off + 1]);
}

static int
test_merge_masks(void)
{
	struct tally_match_key mt, vt, mu, vu, m0, v0;

	/* TCP dport 80 and UDP dport 53: one mask */
	memset(&mt, 0, sizeof(mt));
	memset(&vt, 0, sizeof(vt));
	memset(&mu, 0, sizeof(mu));
	memset(&vu, 0, sizeof(vu));
	rule_ports(&mt, &vt, O(0), 6, 0, 0, 0xffff, 80);
	rule_ports(&mu, &vu, O(0), 17, 0, 0, 0xffff, 53);
	vt.b[O(TALLY_L24_UDP_DPORT)] = 0x12;	/* junk outside the mask: cleared */
	TEST_ASSERT(tally_steer_merge_ports(&mt, &vt), "TCP rule merged");
	TEST_ASSERT(tally_steer_merge_ports(&mu, &vu), "UDP rule merged");
	TEST_ASSERT(memcmp(&mt, &mu, sizeof(mt)) == 0, "same mask for TCP and UDP");
	TEST_ASSERT_EQ(get16(&mt, O(TALLY_L24_UDP_DPORT)), 0xffff, "");
	TEST_ASSERT_EQ(get16(&mt, O(TALLY_L24_TCP_DPORT)), 0xffff, "");
	TEST_ASSERT_EQ(get16(&mt, O(TALLY_L24_UDP_SPORT)), 0, "no sport mask added");
	TEST_ASSERT_EQ(get16(&vt, O(TALLY_L24_UDP_DPORT)), 0, "TCP rule: UDP port value 0");
	TEST_ASSERT_EQ(get16(&vt, O(TALLY_L24_TCP_DPORT)), 80, "");
	TEST_ASSERT_EQ(get16(&vu, O(TALLY_L24_TCP_DPORT)), 0, "UDP rule: TCP port value 0");
	TEST_ASSERT_EQ(get16(&vu, O(TALLY_L24_UDP_DPORT)), 53, "");
	TEST_ASSERT(!tally_steer_merge_ports(&mt, &vt), "merging twice changes nothing");

	/* left alone: protocol not pinned, other protocol, no ports, both masked */
	memset(&m0, 0, sizeof(m0));
	memset(&v0, 0, sizeof(v0));
	rule_ports(&m0, &v0, O(0), 6, 0, 0, 0xffff, 80);
	m0.b[O(TALLY_L24_IP_PROTOCOL)] = 0xfe;
	TEST_ASSERT(!tally_steer_merge_ports(&m0, &v0), "protocol partly masked");
	m0.b[O(TALLY_L24_IP_PROTOCOL)] = 0xff;
	v0.b[O(TALLY_L24_IP_PROTOCOL)] = 1;
	TEST_ASSERT(!tally_steer_merge_ports(&m0, &v0), "ICMP");
	memset(&m0, 0, sizeof(m0));
	memset(&v0, 0, sizeof(v0));
	rule_ports(&m0, &v0, O(0), 17, 0, 0, 0, 0);
	TEST_ASSERT(!tally_steer_merge_ports(&m0, &v0), "no port masked");
	rule_ports(&m0, &v0, O(0), 17, 0xffff, 1, 0, 0);
	key_put(&m0, O(TALLY_L24_TCP_DPORT), 0xffff, 2);
	TEST_ASSERT(!tally_steer_merge_ports(&m0, &v0), "other protocol's port masked");
	/* the inner headers of a VXLAN payload, on their own */
	memset(&m0, 0, sizeof(m0));
	memset(&v0, 0, sizeof(v0));
	rule_ports(&m0, &v0, I(0), 17, 0xff00, 0x1200, 0, 0);
	TEST_ASSERT(tally_steer_merge_ports(&m0, &v0), "inner");
	TEST_ASSERT_EQ(get16(&m0, I(TALLY_L24_TCP_SPORT)), 0xff00, "");
	TEST_ASSERT_EQ(get16(&m0, O(TALLY_L24_TCP_SPORT)), 0, "outer untouched");
	TEST_ASSERT(!tally_steer_merge_ports(NULL, &v0), "");
	return TEST_SUCCESS;
}

/* ---- merged placement against a linear classifier over real frames ------- */
#define NRULES		300
#define NFRAMES		4000
#define ARENA_LEN	(256u << 20)

struct prule {
	struct tally_match_key mask, value;	/* original, value masked */
	uint32_t prio;
	uint16_t queue;
};

static const uint16_t port_dom[] = { 53, 80, 443, 1000, 1001, 8080 };
#define NPORT	(sizeof(port_dom) / sizeof(port_dom[0]))

static bool
pmatch(const struct tally_match_key *k, const struct prule *r)
{
	uint32_t i;

	for (i = 0; i < TALLY_MATCH_KEY_LEN; i++)
		if ((k->b[i] & r->mask.b[i]) != r->value.b[i])
			return false;
	return true;
}

static uint32_t
frame_l4(uint8_t *f, uint8_t proto, uint16_t sp, uint16_t dp)
{
	static const uint8_t dmac[6] = { 2, 0, 0, 0, 0, 1 };
	uint32_t len = 14 + 20 + (proto == 6 ? 20 : 8) + 6;

	memset(f, 0, 128);
	memcpy(f, dmac, 6);
	f[12] = 0x08;
	f[14] = 0x45;
	f[17] = (uint8_t)(len - 14);
	f[22] = 64;
	f[23] = proto;
	f[26] = 10; f[29] = 1;
	f[30] = 10; f[33] = 2;
	f[34] = (uint8_t)(sp >> 8); f[35] = (uint8_t)sp;
	f[36] = (uint8_t)(dp >> 8); f[37] = (uint8_t)dp;
	if (proto == 6)
		f[46] = 0x50;
	return len;
}

static int
test_merge_classify(void)
{
	struct tally_model_config mc;
	struct tally_steer_config sc = { 0 };
	struct tally_steer_ctx *ctx;
	struct tally_steer_table *t;
	struct tally_steer_matcher *mt[3][2] = { { NULL } };
	struct tally_match_key mmask[3][2];
	struct tally_model *m;
	struct tally_fence fence;
	struct tally_io io;
	struct arena arena;
	struct prule *rules = calloc(NRULES, sizeof(*rules));
	unsigned int seed = 4242;
	uint32_t i, j, n = 0, hits = 0, nm = 0;
	char err[128];

	TEST_ASSERT(rules != NULL, "");
	tally_model_config_init(&mc);
	mc.wire = TALLY_WIRE_NONE;
	TEST_ASSERT_EQ(tally_model_create(&mc, &m, err, sizeof(err)), 0, "%s", err);
	tally_model_io(m, &io);
	TEST_ASSERT_EQ(arena_init(&arena, ARENA_LEN), 0, "");
	arena_map_steer(&arena, &io);
	tally_fence_init(&fence, &io);
	sc.io = &io;
	sc.fence = &fence;
	sc.mem = arena_ops(&arena);
	TEST_ASSERT_EQ(tally_steer_ctx_create(&sc, &ctx), 0, "");
	TEST_ASSERT_EQ(tally_steer_table_create(ctx, 0, &t), 0, "");

	/* rule classes: dport only, sport only, both; one priority each */
	for (i = 0; i < NRULES; i++) {
		struct prule *r = &rules[n];
		struct tally_match_key mk, v;
		struct tally_steer_action act = { .fate = TALLY_STEER_FATE_QUEUE };
		struct tally_steer_rule *h;
		uint32_t cls = (uint32_t)rand_r(&seed) % 3, p;
		uint8_t proto = rand_r(&seed) & 1 ? 6 : 17;
		bool dup = false;
		int rc;

		memset(r, 0, sizeof(*r));
		rule_ports(&r->mask, &r->value, O(0), proto,
			   cls != 0 ? 0xffff : 0, port_dom[rand_r(&seed) % NPORT],
			   cls != 1 ? 0xffff : 0, port_dom[rand_r(&seed) % NPORT]);
		r->prio = cls;
		r->queue = (uint16_t)(i % 16);
		for (j = 0; j < n; j++)
			dup |= rules[j].prio == r->prio &&
			       memcmp(&rules[j].mask, &r->mask, sizeof(r->mask)) == 0 &&
			       memcmp(&rules[j].value, &r->value, sizeof(r->value)) == 0;
		if (dup)
			continue;
		mk = r->mask;
		v = r->value;
		TEST_ASSERT(tally_steer_merge_ports(&mk, &v), "rule %u merges", i);
		p = proto == 6 ? 0 : 1;
		if (mt[cls][p] == NULL) {
			/* TCP and UDP of one class share the widened mask */
			if (mt[cls][!p] != NULL &&
			    memcmp(&mmask[cls][!p], &mk, sizeof(mk)) == 0) {
				mt[cls][p] = mt[cls][!p];
			} else {
				TEST_ASSERT_EQ(tally_steer_matcher_create(t, cls, &mk, &mt[cls][p]),
					       0, "");
				nm++;
			}
			mmask[cls][p] = mk;
		}
		TEST_ASSERT(memcmp(&mmask[cls][p], &mk, sizeof(mk)) == 0, "rule %u", i);
		act.arg = r->queue;
		rc = tally_steer_rule_insert(mt[cls][p], &v, &act, &h);
		TEST_ASSERT_EQ(rc, 0, "insert %u", i);
		n++;
	}
	TEST_ASSERT_EQ(nm, 3, "three matchers for six masks");

	for (i = 0; i < NFRAMES; i++) {
		struct tally_model_pkt pkt;
		struct tally_model_verdict got;
		const struct prule *best = NULL;
		uint8_t f[128];
		uint8_t proto = rand_r(&seed) % 5 == 0 ? 1 : (rand_r(&seed) & 1 ? 6 : 17);
		uint32_t len = frame_l4(f, proto, port_dom[rand_r(&seed) % NPORT],
					port_dom[rand_r(&seed) % NPORT]);

		tally_model_parse(f, len, &pkt);
		tally_model_steer_classify(m, &pkt, &got);
		for (j = 0; j < n; j++)
			if (pmatch(&pkt.key, &rules[j]) && (best == NULL || rules[j].prio < best->prio))
				best = &rules[j];
		if (best == NULL) {
			TEST_ASSERT_EQ(got.flags, 0, "frame %u: miss", i);
			continue;
		}
		hits++;
		TEST_ASSERT_EQ(got.flags, TALLY_VERDICT_QUEUE, "frame %u", i);
		TEST_ASSERT_EQ(got.queue, best->queue, "frame %u", i);
	}
	printf("  %u rules in %u matchers, %u of %u frames hit\n", n, nm, hits, NFRAMES);
	TEST_ASSERT(hits > NFRAMES / 4 && hits < NFRAMES, "both hits and misses");
	TEST_ASSERT_EQ(io.ops->read32(io.ctx, TALLY_REG_FAULT_CNT), 0, "");
	tally_steer_ctx_destroy(ctx);
	tally_fence_fini(&fence);
	tally_model_destroy(m);
	arena_fini(&arena);
	free(rules);
	return TEST_SUCCESS;
}

static const struct tally_test_case cases[] = {
	TEST_CASE(test_merge_masks),
	TEST_CASE(test_merge_classify),
};

TEST_MAIN("steer-place", cases)
