/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Locks taken by one synchronous rule operation. Once a port's matcher
 * exists, every rte_flow_create, rte_flow_destroy and raw rule
 * create/destroy takes exactly one lock: the flow engine's, which also
 * covers the steering context and the counter pool. The engine lock counts
 * its acquisitions (rte_flow_dev_dump prints "engine lock taken N times";
 * the dump takes it once itself), and this program replaces
 * pthread_mutex_lock/trylock and pthread_spin_lock/trylock (the PMD calls
 * them through its PLT, so the definitions here win) with counting
 * wrappers, to check that no other lock is taken on the way. (Control work
 * takes more: creating a matcher or an RSS set, and publishing a grown hash
 * array, which requests a device fence through the fence sequencer's lock -
 * once per doubling. The port's first matcher is pre-sized from the counter
 * bank, and one rule keeps it alive here, so none of that happens in the
 * loops.)
 */
#include <dlfcn.h>
#include <inttypes.h>
#include <pthread.h>

#include "flow_test_util.h"

static __thread bool lk_on;
static __thread unsigned int lk_n;

#define LK_WRAP(name, type)						\
int name(type *l)							\
{									\
	static int (*real)(type *);					\
									\
	if (real == NULL)						\
		real = (int (*)(type *))dlsym(RTLD_NEXT, #name);	\
	if (lk_on)							\
		lk_n++;							\
	return real(l);							\
}

LK_WRAP(pthread_mutex_lock, pthread_mutex_t)
LK_WRAP(pthread_mutex_trylock, pthread_mutex_t)
LK_WRAP(pthread_spin_lock, pthread_spinlock_t)
LK_WRAP(pthread_spin_trylock, pthread_spinlock_t)

static void
lk_start(void)
{
	lk_n = 0;
	lk_on = true;
}

static unsigned int
lk_stop(void)
{
	lk_on = false;
	return lk_n;
}

/* The engine lock's acquisitions so far, from the port's dump (which
 * takes the lock once itself); UINT64_MAX when the dump has no such line. */
static uint64_t
lk_engine(uint16_t port)
{
	uint64_t v;

	return dump_count(port, "engine lock taken ", &v) == 0 ? v : UINT64_MAX;
}

/* Engine lock acquisitions since *base (an earlier lk_engine() value),
 * without the dump's own; *base moves on. */
static uint64_t
lk_engine_delta(uint16_t port, uint64_t *base)
{
	uint64_t now = lk_engine(port), d;

	if (now == UINT64_MAX || *base == UINT64_MAX || now < *base + 1)
		return UINT64_MAX;
	d = now - *base - 1;
	*base = now;
	return d;
}

#define NB_RULES	512
#define NB_EACH		16	/* rules checked one by one; the rest as a run */

/* After one rule operation that is no control work: no other lock taken
 * (n, from the wrappers) and, for the first NB_EACH of a run, the engine
 * lock taken exactly once (the rest are checked as a run). */
static int
lk_check_one(uint16_t port, uint64_t *base, unsigned int n, const char *what,
	     const char *op, unsigned int i)
{
	uint64_t d;

	TEST_ASSERT_EQ(n, 0, "%s %s %u took %u other locks", what, op, i, n);
	if (i >= NB_EACH)
		return TEST_SUCCESS;
	d = lk_engine_delta(port, base);
	TEST_ASSERT_EQ(d, 1, "%s %s %u took the engine lock %" PRIu64 " times",
		       what, op, i, d);
	return TEST_SUCCESS;
}

struct lk_rule {
	struct rte_flow_item_ipv4 spec;
	struct rte_flow_item it[4];
	struct rte_flow_action_queue q;
	struct rte_flow_action_rss rss;
	struct rte_flow_action act[4];
};

static const struct rte_flow_item_ipv4 src_mask = {
	.hdr.src_addr = RTE_BE32(0xffffffff),
};
static const uint16_t rss_queues[2] = { 0, 1 };

enum lk_kind { LK_COUNT_QUEUE, LK_DROP, LK_RSS, LK_INDIRECT, LK_KINDS };
static const char *const lk_names[LK_KINDS] = {
	"count/queue", "drop", "count/rss", "indirect count/queue",
};

/* eth / ipv4 src i / udp with the actions of kind k. */
static void
lk_build(struct lk_rule *r, uint32_t i, enum lk_kind k,
	 struct rte_flow_action_handle *h)
{
	unsigned int n = 0;

	memset(r, 0, sizeof(*r));
	r->spec.hdr.src_addr = rte_cpu_to_be_32(0x0a000000u + i);
	r->it[0].type = RTE_FLOW_ITEM_TYPE_ETH;
	r->it[1].type = RTE_FLOW_ITEM_TYPE_IPV4;
	r->it[1].spec = &r->spec;
	r->it[1].mask = &src_mask;
	r->it[2].type = RTE_FLOW_ITEM_TYPE_UDP;
	r->it[3].type = RTE_FLOW_ITEM_TYPE_END;
	r->q.index = 1;
	r->rss.queue_num = 2;
	r->rss.queue = rss_queues;
	switch (k) {
	case LK_COUNT_QUEUE:
		r->act[n++].type = RTE_FLOW_ACTION_TYPE_COUNT;
		r->act[n].type = RTE_FLOW_ACTION_TYPE_QUEUE;
		r->act[n++].conf = &r->q;
		break;
	case LK_DROP:
		r->act[n++].type = RTE_FLOW_ACTION_TYPE_DROP;
		break;
	case LK_RSS:
		r->act[n++].type = RTE_FLOW_ACTION_TYPE_COUNT;
		r->act[n].type = RTE_FLOW_ACTION_TYPE_RSS;
		r->act[n++].conf = &r->rss;
		break;
	default:
		r->act[n].type = RTE_FLOW_ACTION_TYPE_INDIRECT;
		r->act[n++].conf = h;
		r->act[n].type = RTE_FLOW_ACTION_TYPE_QUEUE;
		r->act[n++].conf = &r->q;
		break;
	}
	r->act[n].type = RTE_FLOW_ACTION_TYPE_END;
}

static int
test_one_lock_per_flow(void)
{
	static const struct rte_flow_attr attr = { .ingress = 1 };
	static const struct rte_flow_action_count cnt_conf;
	static const struct rte_flow_action cnt = {
		.type = RTE_FLOW_ACTION_TYPE_COUNT, .conf = &cnt_conf,
	};
	static const struct rte_flow_indir_action_conf iconf = { .ingress = 1 };
	static struct rte_flow *f[NB_RULES];
	struct rte_flow_action_handle *h;
	struct rte_flow *pin;
	struct rte_flow_error e;
	struct lk_rule r;
	struct fport fp;
	unsigned int k, i, n;
	uint64_t base, d;

	TEST_ASSERT_EQ(fp_open(&fp, "counters=4096", 2), 0, "port");
	h = rte_flow_action_handle_create((uint16_t)fp.port, &iconf, &cnt, &e);
	TEST_ASSERT(h != NULL, "indirect count: %s", e.message ? e.message : "");
	lk_build(&r, UINT16_MAX, LK_COUNT_QUEUE, h);
	pin = rte_flow_create((uint16_t)fp.port, &attr, r.it, r.act, &e);
	TEST_ASSERT(pin != NULL, "%s", e.message ? e.message : "");
	for (k = 0; k < LK_KINDS; k++) {
		/* the first rule of a kind may create the RSS set (control
		 * work); every later one is one lock */
		base = lk_engine((uint16_t)fp.port);
		for (i = 0; i < NB_RULES; i++) {
			lk_build(&r, k * NB_RULES + i, (enum lk_kind)k, h);
			lk_start();
			f[i] = rte_flow_create((uint16_t)fp.port, &attr, r.it, r.act, &e);
			n = lk_stop();
			TEST_ASSERT(f[i] != NULL, "%s rule %u: %s", lk_names[k], i,
				    e.message ? e.message : "");
			if (i == 0)
				lk_engine_delta((uint16_t)fp.port, &base);
			else if (lk_check_one((uint16_t)fp.port, &base, n, lk_names[k],
					      "create", i) != TEST_SUCCESS)
				return TEST_FAILED;
		}
		d = lk_engine_delta((uint16_t)fp.port, &base);
		TEST_ASSERT_EQ(d, NB_RULES - NB_EACH, "%s creates %u..%u: engine lock taken %"
			       PRIu64 " times", lk_names[k], NB_EACH, NB_RULES - 1, d);
		/* the last one may release the RSS set */
		for (i = 0; i + 1 < NB_RULES; i++) {
			lk_start();
			TEST_ASSERT_EQ(rte_flow_destroy((uint16_t)fp.port, f[i], &e), 0, "");
			n = lk_stop();
			if (lk_check_one((uint16_t)fp.port, &base, n, lk_names[k], "destroy",
					 i) != TEST_SUCCESS)
				return TEST_FAILED;
		}
		d = lk_engine_delta((uint16_t)fp.port, &base);
		TEST_ASSERT_EQ(d, NB_RULES - 1 - NB_EACH, "%s destroys %u..%u: engine lock taken %"
			       PRIu64 " times", lk_names[k], NB_EACH, NB_RULES - 2, d);
		TEST_ASSERT_EQ(rte_flow_destroy((uint16_t)fp.port, f[i], &e), 0, "");
	}
	TEST_ASSERT_EQ(rte_flow_destroy((uint16_t)fp.port, pin, &e), 0, "");
	TEST_ASSERT_EQ(rte_flow_action_handle_destroy((uint16_t)fp.port, h, &e), 0, "");
	fp_close(&fp);
	return TEST_SUCCESS;
}

/* The raw rule API (what libtally_verbs uses): one lock too. */
static int
test_one_lock_per_raw_rule(void)
{
	static struct rte_pmd_tally_rule *rr[NB_RULES];
	uint8_t mask[RTE_PMD_TALLY_MATCH_LEN] = { 0 }, val[RTE_PMD_TALLY_MATCH_LEN];
	struct rte_pmd_tally_rule_attr ra = {
		.flags = RTE_PMD_TALLY_RULE_COUNT,
		.fate = RTE_PMD_TALLY_FATE_QUEUE,
		.queue = 1,
	};
	struct fport fp;
	unsigned int i, n;
	uint64_t base, d;

	TEST_ASSERT_EQ(fp_open(&fp, "counters=4096", 2), 0, "port");
	TEST_ASSERT_EQ(rte_pmd_tally_counter_alloc((uint16_t)fp.port, &ra.counter), 0, "");
	memset(mask, 0xff, 4);
	base = lk_engine((uint16_t)fp.port);
	for (i = 0; i < NB_RULES; i++) {
		memset(val, 0, sizeof(val));
		memcpy(val, &i, sizeof(i));
		lk_start();
		TEST_ASSERT_EQ(rte_pmd_tally_rule_create((uint16_t)fp.port, mask, val,
							 &ra, &rr[i]), 0, "raw rule %u", i);
		n = lk_stop();
		if (i == 0)
			lk_engine_delta((uint16_t)fp.port, &base);
		else if (lk_check_one((uint16_t)fp.port, &base, n, "raw", "create", i) !=
			 TEST_SUCCESS)
			return TEST_FAILED;
	}
	d = lk_engine_delta((uint16_t)fp.port, &base);
	TEST_ASSERT_EQ(d, NB_RULES - NB_EACH, "raw creates: engine lock taken %" PRIu64
		       " times", d);
	for (i = 0; i < NB_RULES; i++) {
		lk_start();
		TEST_ASSERT_EQ(rte_pmd_tally_rule_destroy((uint16_t)fp.port, rr[i]), 0, "");
		n = lk_stop();
		if (i + 1 == NB_RULES)
			break;
		if (lk_check_one((uint16_t)fp.port, &base, n, "raw", "destroy", i) !=
		    TEST_SUCCESS)
			return TEST_FAILED;
	}
	d = lk_engine_delta((uint16_t)fp.port, &base);
	TEST_ASSERT(d >= NB_RULES - NB_EACH && d != UINT64_MAX,
		    "raw destroys: engine lock taken %" PRIu64 " times", d);
	TEST_ASSERT_EQ(rte_pmd_tally_counter_free((uint16_t)fp.port, ra.counter), 0, "");
	fp_close(&fp);
	return TEST_SUCCESS;
}

/* The wrappers count: a sanity check that this test can fail. */
static int
test_wrapper_counts(void)
{
	pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

	lk_start();
	pthread_mutex_lock(&m);
	pthread_mutex_unlock(&m);
	TEST_ASSERT_EQ(pthread_mutex_trylock(&m), 0, "");
	pthread_mutex_unlock(&m);
	TEST_ASSERT_EQ(lk_stop(), 2, "both acquisitions counted");
	return TEST_SUCCESS;
}

static const struct tally_test_case cases[] = {
	TEST_CASE(test_wrapper_counts),
	TEST_CASE(test_one_lock_per_flow),
	TEST_CASE(test_one_lock_per_raw_rule),
};

int
main(void)
{
	int rc;

	tdt_eal_init("tally-flow-locks");
	rc = tally_test_run("dpdk-flow-locks", cases, RTE_DIM(cases));
	rte_eal_cleanup();
	return rc;
}
