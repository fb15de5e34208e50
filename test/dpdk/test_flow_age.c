/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The AGE action on a net_tally port over the loop wire: traffic keeps one
 * rule alive and stops for another; the second ages within a second of its
 * timeout, exactly once, with one RTE_ETH_EVENT_FLOW_AGED; AGE queries; the
 * contexts rte_flow_get_aged_flows() returns; destroying an aged rule; AGE
 * through a template table and rte_flow_get_q_aged_flows(); bad AGE input.
 *
 * Frames come from tdt_frame_fill(): frame i is IPv4/UDP from 10.0.0.i.
 */
#include <time.h>

#include <rte_flow.h>

#include "flow_test_util.h"

#define LEN	100u

static struct rx_set rs;
static int aged_events;

static int
on_aged(uint16_t port, enum rte_eth_event_type ev, void *arg, void *ret)
{
	RTE_SET_USED(port);
	RTE_SET_USED(arg);
	RTE_SET_USED(ret);
	if (ev == RTE_ETH_EVENT_FLOW_AGED)
		__atomic_fetch_add(&aged_events, 1, __ATOMIC_RELAXED);
	return 0;
}

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* eth / ipv4 src is 10.0.0.src / udp -> [count /] age timeout / queue 0 */
static struct rte_flow *
age_rule(uint16_t port, uint32_t src, uint32_t timeout, void *ctx, bool count,
	 struct rte_flow_error *e)
{
	static const struct rte_flow_item_ipv4 m = { .hdr.src_addr = RTE_BE32(0xffffffff) };
	struct rte_flow_item_ipv4 ip = { .hdr.src_addr = rte_cpu_to_be_32(0x0a000000u | src) };
	const struct rte_flow_item pat[] = {
		{ .type = RTE_FLOW_ITEM_TYPE_ETH },
		{ .type = RTE_FLOW_ITEM_TYPE_IPV4, .spec = &ip, .mask = &m },
		{ .type = RTE_FLOW_ITEM_TYPE_UDP },
		{ .type = RTE_FLOW_ITEM_TYPE_END },
	};
	struct rte_flow_action_age age = { .timeout = timeout, .context = ctx };
	const struct rte_flow_action_queue q0 = { .index = 0 };
	const struct rte_flow_action with[] = {
		{ .type = RTE_FLOW_ACTION_TYPE_COUNT },
		{ .type = RTE_FLOW_ACTION_TYPE_AGE, .conf = &age },
		{ .type = RTE_FLOW_ACTION_TYPE_QUEUE, .conf = &q0 },
		{ .type = RTE_FLOW_ACTION_TYPE_END },
	};
	const struct rte_flow_attr attr = { .ingress = 1 };

	return rte_flow_create(port, &attr, pat, count ? with : with + 1, e);
}

static int
age_query(uint16_t port, struct rte_flow *f, struct rte_flow_query_age *q)
{
	const struct rte_flow_action age = { .type = RTE_FLOW_ACTION_TYPE_AGE };
	struct rte_flow_error e;

	memset(q, 0, sizeof(*q));
	return rte_flow_query(port, f, &age, q, &e);
}

static int
test_age_sync(void)
{
	struct rte_flow *live, *idle, *quiet;
	struct rte_flow_query_age q;
	struct rte_flow_error e;
	void *ctx[4] = { NULL };
	int ctx_live, ctx_idle;
	double t0, aged_at = 0;
	struct fport fp;
	uint16_t port;

	TEST_ASSERT_EQ(fp_open(&fp, "", 1), 0, "");
	port = (uint16_t)fp.port;
	aged_events = 0;
	TEST_ASSERT_EQ(rte_eth_dev_callback_register(port, RTE_ETH_EVENT_FLOW_AGED,
						     on_aged, NULL), 0, "");
	live = age_rule(port, 1, 1, &ctx_live, true, &e);
	idle = age_rule(port, 2, 1, &ctx_idle, false, &e);
	quiet = age_rule(port, 3, 100, NULL, true, &e);
	TEST_ASSERT(live != NULL && idle != NULL && quiet != NULL, "%s",
		    e.message ? e.message : "");
	rs_init(&rs);
	TEST_ASSERT_EQ(xfer(&fp, 2, LEN, 1, &rs), 1, "one frame for the idle rule");
	rs_free(&rs);
	/* keep the live rule busy for 2.5 s; watch the idle one age */
	t0 = now_s();
	while (now_s() - t0 < 2.5) {
		TEST_ASSERT_EQ(xfer(&fp, 1, LEN, 1, &rs), 1, "");
		rs_free(&rs);
		if (aged_at == 0 && rte_flow_get_aged_flows(port, NULL, 0, &e) > 0)
			aged_at = now_s() - t0;
		rte_delay_ms(20);
	}
	TEST_ASSERT(aged_at >= 0.9 && aged_at <= 2.0, "aged after %.2f s (timeout 1 s)",
		    aged_at);
	TEST_ASSERT_EQ(__atomic_load_n(&aged_events, __ATOMIC_RELAXED), 1, "one event");
	TEST_ASSERT_EQ(rte_flow_get_aged_flows(port, NULL, 0, &e), 1, "");
	TEST_ASSERT_EQ(rte_flow_get_aged_flows(port, ctx, 4, &e), 1, "");
	TEST_ASSERT(ctx[0] == &ctx_idle, "the idle rule's context");
	TEST_ASSERT_EQ(age_query(port, idle, &q), 0, "");
	TEST_ASSERT_EQ(q.aged, 1, "");
	TEST_ASSERT_EQ(q.sec_since_last_hit_valid, 1, "");
	TEST_ASSERT(q.sec_since_last_hit >= 2, "%u", q.sec_since_last_hit);
	TEST_ASSERT_EQ(age_query(port, live, &q), 0, "");
	TEST_ASSERT_EQ(q.aged, 0, "");
	TEST_ASSERT_EQ(q.sec_since_last_hit, 0, "");
	TEST_ASSERT_EQ(age_query(port, quiet, &q), 0, "");
	TEST_ASSERT_EQ(q.aged, 0, "100 s timeout");
	/* traffic again does not revive an aged rule */
	TEST_ASSERT_EQ(xfer(&fp, 2, LEN, 1, &rs), 1, "");
	rs_free(&rs);
	TEST_ASSERT_EQ(age_query(port, idle, &q), 0, "");
	TEST_ASSERT_EQ(q.aged, 1, "");
	/* destroyed, it leaves the list; the other ages once it stops */
	TEST_ASSERT_EQ(rte_flow_destroy(port, idle, &e), 0, "");
	TEST_ASSERT_EQ(rte_flow_get_aged_flows(port, NULL, 0, &e), 0, "");
	rte_delay_ms(1600);
	TEST_ASSERT_EQ(rte_flow_get_aged_flows(port, ctx, 4, &e), 1, "");
	TEST_ASSERT(ctx[0] == &ctx_live, "");
	TEST_ASSERT_EQ(__atomic_load_n(&aged_events, __ATOMIC_RELAXED), 2,
		       "re-armed by the call in between");
	rte_eth_dev_callback_unregister(port, RTE_ETH_EVENT_FLOW_AGED, on_aged, NULL);
	fp_close(&fp);
	return TEST_SUCCESS;
}

static int
test_age_context_default_and_errors(void)
{
	static const struct rte_flow_item pat[] = {
		{ .type = RTE_FLOW_ITEM_TYPE_ETH },
		{ .type = RTE_FLOW_ITEM_TYPE_END },
	};
	struct rte_flow_action_age zero = { .timeout = 0 };
	const struct rte_flow_action bad[] = {
		{ .type = RTE_FLOW_ACTION_TYPE_AGE, .conf = &zero },
		{ .type = RTE_FLOW_ACTION_TYPE_END },
	};
	const struct rte_flow_action noconf[] = {
		{ .type = RTE_FLOW_ACTION_TYPE_AGE },
		{ .type = RTE_FLOW_ACTION_TYPE_END },
	};
	const struct rte_flow_attr attr = { .ingress = 1 };
	struct rte_flow_query_age q;
	struct rte_flow_error e;
	struct rte_flow *f, *g;
	void *ctx[2];
	struct fport fp;
	uint16_t port;

	TEST_ASSERT_EQ(fp_open(&fp, "", 1), 0, "");
	port = (uint16_t)fp.port;
	TEST_ASSERT(rte_flow_create(port, &attr, pat, bad, &e) == NULL, "");
	TEST_ASSERT_EQ(rte_errno, EINVAL, "");
	TEST_ASSERT_EQ(e.type, RTE_FLOW_ERROR_TYPE_ACTION_CONF, "");
	TEST_ASSERT(rte_flow_create(port, &attr, pat, noconf, &e) == NULL, "");
	TEST_ASSERT_EQ(rte_errno, EINVAL, "");
	/* no context: the rule itself is reported */
	f = age_rule(port, 4, 1, NULL, false, &e);
	TEST_ASSERT(f != NULL, "");
	g = age_rule(port, 5, 1, NULL, true, &e);
	TEST_ASSERT(g != NULL, "");
	TEST_ASSERT_EQ(rte_flow_query(port, f, &(struct rte_flow_action){
		.type = RTE_FLOW_ACTION_TYPE_COUNT }, &(struct rte_flow_query_count){ 0 },
		&e), -EINVAL, "no count action: aging's own counter is not exposed");
	rte_delay_ms(1700);
	TEST_ASSERT_EQ(rte_flow_get_aged_flows(port, ctx, 2, &e), 2, "");
	TEST_ASSERT(ctx[0] == f && ctx[1] == g, "");
	TEST_ASSERT_EQ(rte_flow_get_aged_flows(port, ctx, 1, &e), 1, "as many as asked");
	TEST_ASSERT_EQ(rte_flow_destroy(port, f, &e), 0, "");
	TEST_ASSERT_EQ(age_query(port, f, &q), -EINVAL, "destroyed");
	fp_close(&fp);
	return TEST_SUCCESS;
}

static int
test_age_async_queue(void)
{
	static const struct rte_flow_item_ipv4 m = { .hdr.src_addr = RTE_BE32(0xffffffff) };
	const struct rte_flow_item tmpl[] = {
		{ .type = RTE_FLOW_ITEM_TYPE_ETH },
		{ .type = RTE_FLOW_ITEM_TYPE_IPV4, .mask = &m },
		{ .type = RTE_FLOW_ITEM_TYPE_END },
	};
	struct rte_flow_action_age age_mask = { .timeout = 0xffffff };
	struct rte_flow_action_age age1 = { .timeout = 1 };
	const struct rte_flow_action acts[] = {
		{ .type = RTE_FLOW_ACTION_TYPE_AGE, .conf = &age1 },
		{ .type = RTE_FLOW_ACTION_TYPE_DROP },
		{ .type = RTE_FLOW_ACTION_TYPE_END },
	};
	const struct rte_flow_action masks[] = {
		{ .type = RTE_FLOW_ACTION_TYPE_AGE, .conf = &age_mask },
		{ .type = RTE_FLOW_ACTION_TYPE_DROP },
		{ .type = RTE_FLOW_ACTION_TYPE_END },
	};
	const struct rte_flow_port_attr pa = { .flags = RTE_FLOW_PORT_FLAG_STRICT_QUEUE };
	const struct rte_flow_queue_attr qa = { .size = 16 };
	const struct rte_flow_queue_attr *qap[2] = { &qa, &qa };
	const struct rte_flow_pattern_template_attr pta = { .ingress = 1 };
	const struct rte_flow_actions_template_attr ata = { .ingress = 1 };
	const struct rte_flow_template_table_attr ta = {
		.flow_attr = { .ingress = 1 }, .nb_flows = 8,
	};
	struct rte_flow_pattern_template *pt;
	struct rte_flow_actions_template *at;
	struct rte_flow_template_table *tbl;
	struct rte_flow_item_ipv4 ip;
	struct rte_flow_item pat[3];
	struct rte_flow_op_result res[4];
	struct rte_flow_error e;
	struct rte_flow *f[2];
	void *ctx[4];
	struct fport fp;
	uint16_t port;
	uint32_t i;

	TEST_ASSERT_EQ(fp_open(&fp, "", 1), 0, "");
	port = (uint16_t)fp.port;
	rte_eth_dev_stop(port);
	TEST_ASSERT_EQ(rte_flow_configure(port, &pa, 2, qap, &e), 0, "");
	TEST_ASSERT_EQ(rte_eth_dev_start(port), 0, "");
	pt = rte_flow_pattern_template_create(port, &pta, tmpl, &e);
	at = rte_flow_actions_template_create(port, &ata, acts, masks, &e);
	TEST_ASSERT(pt != NULL && at != NULL, "%s", e.message ? e.message : "");
	tbl = rte_flow_template_table_create(port, &ta, &pt, 1, &at, 1, &e);
	TEST_ASSERT(tbl != NULL, "");
	for (i = 0; i < 2; i++) {
		memcpy(pat, tmpl, sizeof(pat));
		ip.hdr.src_addr = rte_cpu_to_be_32(0x0a000000u | (7 + i));
		pat[1].spec = &ip;
		pat[1].mask = NULL;
		/* the rule's AGE conf is not used: the template's is constant */
		f[i] = rte_flow_async_create(port, i, &(struct rte_flow_op_attr){ 0 }, tbl,
					     pat, 0, acts, 0, NULL, &e);
		TEST_ASSERT(f[i] != NULL, "");
		TEST_ASSERT_EQ(rte_flow_pull(port, i, res, 4, &e), 1, "");
		TEST_ASSERT_EQ(res[0].status, RTE_FLOW_OP_SUCCESS, "");
	}
	rte_delay_ms(1700);
	/* strict queues: each queue reports its own rules */
	TEST_ASSERT_EQ(rte_flow_get_q_aged_flows(port, 0, ctx, 4, &e), 1, "");
	TEST_ASSERT(ctx[0] == f[0], "");
	TEST_ASSERT_EQ(rte_flow_get_q_aged_flows(port, 1, ctx, 4, &e), 1, "");
	TEST_ASSERT(ctx[0] == f[1], "");
	TEST_ASSERT_EQ(rte_flow_get_aged_flows(port, NULL, 0, &e), 2, "");
	for (i = 0; i < 2; i++) {
		TEST_ASSERT_EQ(rte_flow_async_destroy(port, i, &(struct rte_flow_op_attr){ 0 },
						      f[i], NULL, &e), 0, "");
		TEST_ASSERT_EQ(rte_flow_pull(port, i, res, 4, &e), 1, "");
	}
	TEST_ASSERT_EQ(rte_flow_get_aged_flows(port, NULL, 0, &e), 0, "");
	fp_close(&fp);
	return TEST_SUCCESS;
}

static const struct tally_test_case cases[] = {
	TEST_CASE(test_age_sync),
	TEST_CASE(test_age_context_default_and_errors),
	TEST_CASE(test_age_async_queue),
};

int
main(void)
{
	int rc;

	tdt_eal_init("tally-flow-age");
	rc = tally_test_run("dpdk-flow-age", cases, RTE_DIM(cases));

	rte_eal_cleanup();
	return rc;
}
