/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Template tables and flow queues on a net_tally port over the loop wire:
 * info and configure (and their errors), pattern and actions templates,
 * tables, rules created and destroyed through a queue with exact counters
 * after known traffic, rejected operations (an error result on pull and no
 * state left, also in the middle of a batch), full tables and queues,
 * indirect COUNT through a queue, what may not be destroyed while in use,
 * tables with precompiled key builders (same keys as the parser's), and
 * batches of creates with actions encoded once per actions template (each
 * rule's own queue, mark, counter and matcher; counters beyond the stock).
 *
 * Frames come from tdt_frame_fill(): frame i is IPv4/UDP from 10.0.0.i.
 */
#include <rte_flow.h>

#include "flow_test_util.h"

#define LEN	100u
#define QSIZE	64

static struct rx_set rs;
static const struct rte_flow_item_ipv4 src_mask = { .hdr.src_addr = RTE_BE32(0xffffffff) };

struct tport {
	struct fport fp;
	struct rte_flow_pattern_template *pt;
	struct rte_flow_actions_template *at;
	struct rte_flow_template_table *tbl;
};

/* Stop, configure nb_queue flow queues of size with nb_counters, start. */
static int
tp_configure_cnt(uint16_t port, uint16_t nb_queue, uint32_t size, uint32_t nb_counters)
{
	const struct rte_flow_port_attr pa = { .nb_counters = nb_counters };
	const struct rte_flow_queue_attr qa = { .size = size };
	const struct rte_flow_queue_attr *qap[4] = { &qa, &qa, &qa, &qa };
	struct rte_flow_error e;
	int ret;

	rte_eth_dev_stop(port);
	ret = rte_flow_configure(port, &pa, nb_queue, qap, &e);
	if (ret == 0)
		ret = rte_eth_dev_start(port);
	return ret;
}

static const struct rte_flow_pattern_template_attr pt_attr = { .ingress = 1 };
static const struct rte_flow_actions_template_attr at_attr = { .ingress = 1 };

/* eth / ipv4 src (masked) / udp */
static const struct rte_flow_item src_tmpl[] = {
	{ .type = RTE_FLOW_ITEM_TYPE_ETH },
	{ .type = RTE_FLOW_ITEM_TYPE_IPV4, .mask = &src_mask },
	{ .type = RTE_FLOW_ITEM_TYPE_UDP },
	{ .type = RTE_FLOW_ITEM_TYPE_END },
};

/* count / queue, both per rule */
static const struct rte_flow_action cq_tmpl[] = {
	{ .type = RTE_FLOW_ACTION_TYPE_COUNT },
	{ .type = RTE_FLOW_ACTION_TYPE_QUEUE },
	{ .type = RTE_FLOW_ACTION_TYPE_END },
};

/* A port with devargs and nb_rxq rx queues, with nb_queue flow queues of
 * QSIZE and nb_counters. */
static int
tp_port_open(struct tport *t, const char *devargs, uint16_t nb_rxq, uint16_t nb_queue,
	     uint32_t nb_counters)
{
	memset(t, 0, sizeof(*t));
	if (fp_open(&t->fp, devargs, nb_rxq) != 0)
		return -1;
	return tp_configure_cnt((uint16_t)t->fp.port, nb_queue, QSIZE, nb_counters);
}

/* The pattern template tmpl and the actions template count / queue. */
static int
tp_templates(struct tport *t, const struct rte_flow_item *tmpl)
{
	uint16_t port = (uint16_t)t->fp.port;
	struct rte_flow_error e;

	t->pt = rte_flow_pattern_template_create(port, &pt_attr, tmpl, &e);
	t->at = rte_flow_actions_template_create(port, &at_attr, cq_tmpl, cq_tmpl, &e);
	return t->pt != NULL && t->at != NULL ? 0 : -1;
}

/* An ingress table of nb_flows rules over npt pattern and nat actions
 * templates. */
static struct rte_flow_template_table *
tp_table(struct tport *t, uint32_t nb_flows, struct rte_flow_pattern_template **pts,
	 uint8_t npt, struct rte_flow_actions_template **ats, uint8_t nat)
{
	const struct rte_flow_template_table_attr ta = {
		.flow_attr = { .ingress = 1 }, .nb_flows = nb_flows,
	};
	struct rte_flow_error e;

	return rte_flow_template_table_create((uint16_t)t->fp.port, &ta, pts, npt, ats, nat,
					      &e);
}

/* eth / ipv4 src (masked) / udp  ->  count / queue (per rule), on
 * nb_queue flow queues with nb_counters, on a port with devargs */
static int
tp_open_cfg(struct tport *t, const char *devargs, uint32_t nb_counters,
	    uint32_t nb_flows, uint16_t nb_queue)
{
	if (tp_port_open(t, devargs, 2, nb_queue, nb_counters) != 0 ||
	    tp_templates(t, src_tmpl) != 0)
		return -1;
	t->tbl = tp_table(t, nb_flows, &t->pt, 1, &t->at, 1);
	return t->tbl != NULL ? 0 : -1;
}

static int
tp_open_q(struct tport *t, uint32_t nb_flows, uint16_t nb_queue)
{
	return tp_open_cfg(t, "", 1024, nb_flows, nb_queue);
}

static int
tp_open(struct tport *t, uint32_t nb_flows)
{
	return tp_open_q(t, nb_flows, 1);
}

static void
tp_close(struct tport *t)
{
	fp_close(&t->fp);
}

/* eth / ipv4 / udp with these specs (NULL: none) -> count / queue q. */
static void
cq_rule_fill(struct rte_flow_item pat[4], struct rte_flow_action acts[3],
	     const struct rte_flow_action_queue *q, const void *eth, const void *ip,
	     const void *udp)
{
	pat[0] = (struct rte_flow_item){ .type = RTE_FLOW_ITEM_TYPE_ETH, .spec = eth };
	pat[1] = (struct rte_flow_item){ .type = RTE_FLOW_ITEM_TYPE_IPV4, .spec = ip };
	pat[2] = (struct rte_flow_item){ .type = RTE_FLOW_ITEM_TYPE_UDP, .spec = udp };
	pat[3] = (struct rte_flow_item){ .type = RTE_FLOW_ITEM_TYPE_END };
	acts[0] = (struct rte_flow_action){ .type = RTE_FLOW_ACTION_TYPE_COUNT };
	acts[1] = (struct rte_flow_action){ .type = RTE_FLOW_ACTION_TYPE_QUEUE, .conf = q };
	acts[2] = (struct rte_flow_action){ .type = RTE_FLOW_ACTION_TYPE_END };
}

/* A rule eth / ipv4 / udp -> count / queue, with room for its specs. */
struct cq_rule {
	struct rte_flow_item_eth eth;
	struct rte_flow_item_ipv4 ip;
	struct rte_flow_item_udp udp;
	struct rte_flow_item pat[4];
	struct rte_flow_action_queue q;
	struct rte_flow_action acts[3];
};

/* The rule of the table of tp_open_cfg() for source 10.0.0.src to rx
 * queue q (an ipv4 spec only). */
static void
src_rule(struct cq_rule *r, uint32_t src, uint16_t q)
{
	memset(r, 0, sizeof(*r));
	r->ip.hdr.src_addr = rte_cpu_to_be_32(0x0a000000u | src);
	r->q.index = q;
	cq_rule_fill(r->pat, r->acts, &r->q, NULL, &r->ip, NULL);
}

/* Enqueue a rule for source 10.0.0.src to queue q. */
static struct rte_flow *
q_create_pp(struct tport *t, uint32_t queue, uint32_t src, uint16_t q, void *ud,
	    struct rte_flow_error *e, bool postpone)
{
	const struct rte_flow_op_attr oa = { .postpone = postpone };
	struct cq_rule r;

	src_rule(&r, src, q);
	return rte_flow_async_create((uint16_t)t->fp.port, queue, &oa, t->tbl, r.pat, 0,
				     r.acts, 0, ud, e);
}

static struct rte_flow *
q_create(struct tport *t, uint32_t queue, uint32_t src, uint16_t q, void *ud,
	 struct rte_flow_error *e)
{
	return q_create_pp(t, queue, src, q, ud, e, false);
}

/* Pull everything; counts successes and errors; checks user data order. */
static int
q_pull(struct tport *t, uint32_t queue, unsigned int *ok, unsigned int *bad,
       void **ud, unsigned int max)
{
	struct rte_flow_op_result res[QSIZE];
	struct rte_flow_error e;
	int n, i;

	*ok = 0;
	*bad = 0;
	n = rte_flow_pull((uint16_t)t->fp.port, queue, res, QSIZE, &e);
	for (i = 0; i < n; i++) {
		if (res[i].status == RTE_FLOW_OP_SUCCESS)
			(*ok)++;
		else
			(*bad)++;
		if ((unsigned int)i < max)
			ud[i] = res[i].user_data;
	}
	return n;
}

static uint64_t
hits(uint16_t port, struct rte_flow *f)
{
	const struct rte_flow_action count = { .type = RTE_FLOW_ACTION_TYPE_COUNT };
	struct rte_flow_query_count qc = { 0 };
	struct rte_flow_error e;

	if (rte_flow_query(port, f, &count, &qc, &e) != 0)
		return UINT64_MAX;
	return qc.hits;
}

/* Pull the results of a queue: exactly n, of which n_ok succeeded. */
static int
q_expect(struct tport *t, uint32_t queue, unsigned int n, unsigned int n_ok)
{
	unsigned int ok, bad;
	void *ud[QSIZE];

	TEST_ASSERT_EQ(q_pull(t, queue, &ok, &bad, ud, QSIZE), (int)n, "queue %u", queue);
	TEST_ASSERT_EQ(ok, n_ok, "queue %u", queue);
	return TEST_SUCCESS;
}

/* Send n frames from 10.0.0.src: all of them come back, on rx queue q. */
static int
send_expect_q(struct tport *t, uint32_t src, unsigned int n, uint16_t q)
{
	rs_init(&rs);
	TEST_ASSERT_EQ(xfer(&t->fp, src, LEN, n, &rs), (int)n, "");
	TEST_ASSERT_EQ(rs.per_q[q], n, "rx queue %u", q);
	rs_free(&rs);
	return TEST_SUCCESS;
}

/* Send n frames from 10.0.0.src: all of them come back, and rule f has
 * counted exp in all. */
static int
send_expect_hits(struct tport *t, uint32_t src, unsigned int n, struct rte_flow *f,
		 uint64_t exp)
{
	rs_init(&rs);
	TEST_ASSERT_EQ(xfer(&t->fp, src, LEN, n, &rs), (int)n, "");
	rs_free(&rs);
	TEST_ASSERT_U64_EQ(hits((uint16_t)t->fp.port, f), exp, "");
	return TEST_SUCCESS;
}

static int
test_info_configure(void)
{
	struct rte_flow_port_info pi;
	struct rte_flow_queue_info qi;
	struct rte_flow_port_attr pa = { 0 };
	struct rte_flow_queue_attr qa = { .size = 8 };
	const struct rte_flow_queue_attr *qap[1] = { &qa };
	struct rte_flow_error e;
	struct fport fp;
	uint16_t port;

	TEST_ASSERT_EQ(fp_open(&fp, "counters=4096", 2), 0, "");
	port = (uint16_t)fp.port;
	TEST_ASSERT_EQ(rte_flow_info_get(port, &pi, &qi, &e), 0, "");
	TEST_ASSERT_EQ(pi.max_nb_queues, 64, "");
	TEST_ASSERT_EQ(pi.max_nb_counters, 4096, "");
	TEST_ASSERT_EQ(pi.max_nb_aging_objects, 4096, "");
	TEST_ASSERT_EQ(qi.max_size, 65536, "");
	rte_eth_dev_stop(port);
	pa.nb_counters = 4097;
	TEST_ASSERT_EQ(rte_flow_configure(port, &pa, 1, qap, &e), -ENOSPC, "");
	pa.nb_counters = 0;
	pa.nb_meters = 1;
	TEST_ASSERT_EQ(rte_flow_configure(port, &pa, 1, qap, &e), -ENOTSUP, "");
	pa.nb_meters = 0;
	pa.flags = 1u << 7;
	TEST_ASSERT_EQ(rte_flow_configure(port, &pa, 1, qap, &e), -ENOTSUP, "");
	pa.flags = 0;
	qa.size = 0;
	TEST_ASSERT_EQ(rte_flow_configure(port, &pa, 1, qap, &e), -EINVAL, "");
	qa.size = 8;
	TEST_ASSERT_EQ(rte_flow_configure(port, &pa, 1, qap, &e), 0, "");
	/* reconfigure while nothing uses the queues */
	TEST_ASSERT_EQ(rte_flow_configure(port, &pa, 1, qap, &e), 0, "");
	TEST_ASSERT_EQ(rte_eth_dev_start(port), 0, "");
	fp_close(&fp);
	return TEST_SUCCESS;
}

static int
test_template_errors(void)
{
	const struct rte_flow_item bad_item[] = {
		{ .type = RTE_FLOW_ITEM_TYPE_GRE },
		{ .type = RTE_FLOW_ITEM_TYPE_END },
	};
	const struct rte_flow_item ok_item[] = {
		{ .type = RTE_FLOW_ITEM_TYPE_ETH },
		{ .type = RTE_FLOW_ITEM_TYPE_END },
	};
	const struct rte_flow_action bad_act[] = {
		{ .type = RTE_FLOW_ACTION_TYPE_DEC_TTL },
		{ .type = RTE_FLOW_ACTION_TYPE_END },
	};
	const struct rte_flow_action short_mask[] = {
		{ .type = RTE_FLOW_ACTION_TYPE_COUNT },
		{ .type = RTE_FLOW_ACTION_TYPE_END },
	};
	const struct rte_flow_pattern_template_attr eg = { .egress = 1 };
	struct rte_flow_template_table_attr ta = { .flow_attr = { .ingress = 1 } };
	struct rte_flow_pattern_template *pt;
	struct rte_flow_actions_template *at;
	struct rte_flow_error e;
	struct tport t;
	uint16_t port;

	TEST_ASSERT_EQ(tp_open(&t, 16), 0, "");
	port = (uint16_t)t.fp.port;
	TEST_ASSERT(rte_flow_pattern_template_create(port, &pt_attr, bad_item, &e) == NULL, "");
	TEST_ASSERT_EQ(rte_errno, ENOTSUP, "");
	TEST_ASSERT_EQ(e.type, RTE_FLOW_ERROR_TYPE_ITEM, "");
	TEST_ASSERT(rte_flow_pattern_template_create(port, &eg, ok_item, &e) == NULL, "");
	TEST_ASSERT_EQ(rte_errno, ENOTSUP, "");
	TEST_ASSERT(rte_flow_actions_template_create(port, &at_attr, bad_act, bad_act, &e) == NULL, "");
	TEST_ASSERT_EQ(rte_errno, ENOTSUP, "");
	TEST_ASSERT(rte_flow_actions_template_create(port, &at_attr, cq_tmpl, short_mask, &e) == NULL, "");
	TEST_ASSERT_EQ(rte_errno, EINVAL, "");
	/* tables: a rule count, a group the device has, real templates */
	pt = rte_flow_pattern_template_create(port, &pt_attr, ok_item, &e);
	at = rte_flow_actions_template_create(port, &at_attr, cq_tmpl, cq_tmpl, &e);
	TEST_ASSERT(pt != NULL && at != NULL, "");
	ta.nb_flows = 0;
	TEST_ASSERT(rte_flow_template_table_create(port, &ta, &pt, 1, &at, 1, &e) == NULL, "");
	TEST_ASSERT_EQ(rte_errno, EINVAL, "");
	ta.nb_flows = 8;
	ta.flow_attr.group = 5000;
	TEST_ASSERT(rte_flow_template_table_create(port, &ta, &pt, 1, &at, 1, &e) == NULL, "");
	TEST_ASSERT_EQ(rte_errno, ENOTSUP, "");
	/* in use: templates and tables cannot go */
	TEST_ASSERT_EQ(rte_flow_pattern_template_destroy(port, t.pt, &e), -EBUSY, "");
	TEST_ASSERT_EQ(rte_flow_actions_template_destroy(port, t.at, &e), -EBUSY, "");
	TEST_ASSERT_EQ(rte_flow_pattern_template_destroy(port, pt, &e), 0, "");
	TEST_ASSERT_EQ(rte_flow_pattern_template_destroy(port, pt, &e), -EINVAL, "twice");
	TEST_ASSERT_EQ(rte_flow_actions_template_destroy(port, at, &e), 0, "");
	/* reconfiguring under templates is refused */
	rte_eth_dev_stop(port);
	{
		const struct rte_flow_port_attr pa = { 0 };
		const struct rte_flow_queue_attr qa = { .size = 8 };
		const struct rte_flow_queue_attr *qap[1] = { &qa };

		TEST_ASSERT_EQ(rte_flow_configure(port, &pa, 1, qap, &e), -EBUSY, "");
	}
	TEST_ASSERT_EQ(rte_eth_dev_start(port), 0, "");
	tp_close(&t);
	return TEST_SUCCESS;
}

static int
test_queue_rules_and_traffic(void)
{
	struct rte_flow *f[8], *dup;
	struct rte_flow_error e;
	void *ud[QSIZE];
	unsigned int ok, bad, i;
	uint16_t port;
	struct tport t;

	TEST_ASSERT_EQ(tp_open(&t, 16), 0, "");
	port = (uint16_t)t.fp.port;
	for (i = 0; i < 8; i++) {
		f[i] = q_create(&t, 0, 10 + i, (uint16_t)(i & 1), (void *)(uintptr_t)(100 + i), &e);
		TEST_ASSERT(f[i] != NULL, "%s", e.message ? e.message : "");
	}
	TEST_ASSERT_EQ(rte_flow_push(port, 0, &e), 0, "");
	TEST_ASSERT_EQ(q_pull(&t, 0, &ok, &bad, ud, QSIZE), 8, "");
	TEST_ASSERT_EQ(ok, 8, "");
	for (i = 0; i < 8; i++)
		TEST_ASSERT_EQ((uintptr_t)ud[i], 100 + i, "results in order");
	TEST_ASSERT_EQ(q_pull(&t, 0, &ok, &bad, ud, QSIZE), 0, "nothing more");
	/* traffic: i + 1 frames for rule i, none for others */
	rs_init(&rs);
	for (i = 0; i < 8; i++)
		TEST_ASSERT_EQ(xfer(&t.fp, 10 + i, LEN, i + 1, &rs), (int)(i + 1), "");
	TEST_ASSERT_EQ(xfer(&t.fp, 50, LEN, 5, &rs), 5, "unmatched");
	TEST_ASSERT_EQ(rs.per_q[1], 2 + 4 + 6 + 8, "odd rules steer to queue 1");
	TEST_ASSERT_EQ(rs.per_q[0], 1 + 3 + 5 + 7 + 5, "");
	rs_free(&rs);
	for (i = 0; i < 8; i++)
		TEST_ASSERT_U64_EQ(hits(port, f[i]), i + 1, "rule %u", i);
	/* a duplicate is an error result and leaves nothing */
	dup = q_create(&t, 0, 10, 1, (void *)7, &e);
	TEST_ASSERT(dup != NULL, "enqueued");
	TEST_ASSERT_EQ(q_pull(&t, 0, &ok, &bad, ud, QSIZE), 1, "");
	TEST_ASSERT_EQ(bad, 1, "");
	TEST_ASSERT_EQ((uintptr_t)ud[0], 7, "");
	TEST_ASSERT_EQ(rte_flow_destroy(port, dup, &e), -EINVAL, "never live");
	TEST_ASSERT_EQ(rte_errno, EINVAL, "");
	/* destroy through the queue: pulled means the device no longer sees it */
	TEST_ASSERT_EQ(rte_flow_async_destroy(port, 0, &(struct rte_flow_op_attr){ 0 },
					      f[1], (void *)9, &e), 0, "");
	TEST_ASSERT_EQ(q_expect(&t, 0, 1, 1), TEST_SUCCESS, "");
	TEST_ASSERT_EQ(send_expect_q(&t, 11, 3, 0), TEST_SUCCESS,
		       "default queue once the rule is gone");
	TEST_ASSERT_EQ(rte_flow_destroy(port, f[1], &e), -EINVAL, "already destroyed");
	TEST_ASSERT_EQ(rte_flow_async_destroy(port, 0, &(struct rte_flow_op_attr){ 0 },
					      f[1], NULL, &e), -EINVAL, "");
	/* a rule of a table can also be destroyed synchronously */
	TEST_ASSERT_EQ(rte_flow_destroy(port, f[2], &e), 0, "");
	/* the table holds rules: it cannot go */
	TEST_ASSERT_EQ(rte_flow_template_table_destroy(port, t.tbl, &e), -EBUSY, "");
	TEST_ASSERT_EQ(rte_flow_flush(port, &e), 0, "");
	TEST_ASSERT_EQ(rte_flow_template_table_destroy(port, t.tbl, &e), 0, "");
	TEST_ASSERT_EQ(rte_flow_template_table_destroy(port, t.tbl, &e), -EINVAL, "twice");
	tp_close(&t);
	return TEST_SUCCESS;
}

/* Pull what is there, check it against the expected user data from *got on. */
static int
q_pull_check(struct tport *t, const uintptr_t *exp, unsigned int *got, unsigned int *nbad)
{
	void *ud[QSIZE];
	unsigned int ok, bad, i;
	int n = q_pull(t, 0, &ok, &bad, ud, QSIZE);

	for (i = 0; n > 0 && i < (unsigned int)n; i++, (*got)++)
		if ((uintptr_t)ud[i] != exp[*got]) {
			printf("result %u: user data %zu, expected %zu\n", *got,
			       (size_t)(uintptr_t)ud[i], (size_t)exp[*got]);
			return -1;
		}
	*nbad += bad;
	return n;
}

/* Postponed creates run in batches: results in enqueue order (a duplicate
 * inside a batch is an error result), the rules count exactly, several
 * batches in flight, and a destroy after them sees them live. */
static int
test_postponed_batch(void)
{
	enum { N = 150 };	/* more than two internal batches */
	uintptr_t exp[N + 8];
	struct rte_flow *f[N], *x;
	struct rte_flow_error e;
	unsigned int i, nexp = 0, got = 0, nbad = 0, ok, bad;
	void *ud[QSIZE];
	uint16_t port;
	struct tport t;

	TEST_ASSERT_EQ(tp_open(&t, 256), 0, "");
	port = (uint16_t)t.fp.port;
	for (i = 0; i < N; i++) {
		exp[nexp++] = 1000 + i;
		f[i] = q_create_pp(&t, 0, 10 + i, (uint16_t)(i & 1),
				   (void *)(uintptr_t)(1000 + i), &e, true);
		TEST_ASSERT(f[i] != NULL, "%s", e.message ? e.message : "");
		if (i == 20) {	/* a duplicate of rule 3 in the middle */
			exp[nexp++] = 1;
			x = q_create_pp(&t, 0, 13, 0, (void *)1, &e, true);
			TEST_ASSERT(x != NULL, "enqueued");
		}
		if (i % 50 == 49)
			TEST_ASSERT(q_pull_check(&t, exp, &got, &nbad) >= 0, "");
	}
	/* a non-postponed create after them: its result comes last */
	exp[nexp++] = 2;
	x = q_create(&t, 0, 5000, 0, (void *)2, &e);
	TEST_ASSERT(x != NULL, "");
	TEST_ASSERT_EQ(rte_flow_push(port, 0, &e), 0, "");
	TEST_ASSERT(q_pull_check(&t, exp, &got, &nbad) >= 0, "");
	TEST_ASSERT_EQ(got, nexp, "every result pulled");
	TEST_ASSERT_EQ(nbad, 1, "only the duplicate failed");
	rs_init(&rs);
	TEST_ASSERT_EQ(xfer(&t.fp, 13, LEN, 3, &rs), 3, "");
	TEST_ASSERT_EQ(xfer(&t.fp, 10 + N - 1, LEN, 2, &rs), 2, "");
	TEST_ASSERT_EQ(rs.per_q[1], 5, "rules 3 and N-1 steer to queue 1");
	TEST_ASSERT_EQ(rs.per_q[0], 0, "not to the duplicate's queue 0");
	rs_free(&rs);
	TEST_ASSERT_U64_EQ(hits(port, f[3]), 3, "");
	TEST_ASSERT_U64_EQ(hits(port, f[N - 1]), 2, "");
	TEST_ASSERT_U64_EQ(hits(port, f[4]), 0, "");
	/* a postponed create then a destroy of it, no push between */
	x = q_create_pp(&t, 0, 4000, 0, (void *)3, &e, true);
	TEST_ASSERT(x != NULL, "");
	TEST_ASSERT_EQ(rte_flow_async_destroy(port, 0, &(struct rte_flow_op_attr){ 0 },
					      x, (void *)4, &e), 0, "live by then");
	TEST_ASSERT_EQ(q_pull(&t, 0, &ok, &bad, ud, QSIZE), 2, "");
	TEST_ASSERT_EQ(ok, 2, "");
	TEST_ASSERT_EQ((uintptr_t)ud[0], 3, "");
	TEST_ASSERT_EQ((uintptr_t)ud[1], 4, "");
	for (i = 0; i < N; i++)
		TEST_ASSERT_EQ(rte_flow_destroy(port, f[i], &e), 0, "rule %u", i);
	tp_close(&t);
	return TEST_SUCCESS;
}

/* ---- precompiled key builders ---------------------------------------------- */

/* Create templates and a table over `tmpl` (count / queue per rule) with the
 * flow log captured; *builder tells whether the table got a key builder. */
static int
tp_open_tmpl_cfg(struct tport *t, const char *devargs, uint32_t nb_counters,
		 const struct rte_flow_item *tmpl, uint32_t nb_flows, bool *builder)
{
	int lt = rte_log_register("pmd.net.tally.flow"), level = rte_log_get_level(lt);
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	if (tp_port_open(t, devargs, 2, 1, nb_counters) != 0 || tp_templates(t, tmpl) != 0)
		return -1;
	f = open_memstream(&text, &len);
	if (f == NULL)
		return -1;
	rte_openlog_stream(f);
	rte_log_set_level(lt, RTE_LOG_DEBUG);
	t->tbl = tp_table(t, nb_flows, &t->pt, 1, &t->at, 1);
	rte_log_set_level(lt, (uint32_t)level);
	rte_openlog_stream(NULL);
	fclose(f);
	*builder = text != NULL && strstr(text, "key builder of") != NULL;
	free(text);
	return t->tbl != NULL ? 0 : -1;
}

static int
tp_open_tmpl(struct tport *t, const struct rte_flow_item *tmpl, uint32_t nb_flows,
	     bool *builder)
{
	return tp_open_tmpl_cfg(t, "", 1024, tmpl, nb_flows, builder);
}

/* eth dst, has_vlan / ipv4 src (/24), dst, tos, ttl / udp src, dst (0x0ff0) */
static const struct rte_flow_item_eth wide_eth_mask = {
	.hdr.dst_addr.addr_bytes = "\xff\xff\xff\xff\xff\xff", .has_vlan = 1,
};
static const struct rte_flow_item_ipv4 wide_ip_mask = {
	.hdr.src_addr = RTE_BE32(0xffffff00), .hdr.dst_addr = RTE_BE32(0xffffffff),
	.hdr.type_of_service = 0xff, .hdr.time_to_live = 0xff,
};
static const struct rte_flow_item_udp wide_udp_mask = {
	.hdr.src_port = RTE_BE16(0xffff), .hdr.dst_port = RTE_BE16(0x0ff0),
};

/* The rule matching frame i (tdt_frame_fill), with noise outside the masks. */
static void
wide_rule_frame(struct cq_rule *r, uint32_t i, uint16_t queue)
{
	memset(r, 0, sizeof(*r));
	memset(r->eth.hdr.dst_addr.addr_bytes, 0xff, RTE_ETHER_ADDR_LEN);
	r->eth.hdr.src_addr.addr_bytes[2] = 0x5a;		/* not masked */
	r->eth.hdr.ether_type = RTE_BE16(0x86dd);		/* not masked */
	r->ip.hdr.src_addr = rte_cpu_to_be_32(0x0a000000 | 0x77);	/* low byte not masked */
	r->ip.hdr.dst_addr = rte_cpu_to_be_32(0x0a010001 + (i % 7));
	r->ip.hdr.time_to_live = 64;
	r->ip.hdr.next_proto_id = 6;				/* not masked */
	r->udp.hdr.src_port = rte_cpu_to_be_16((uint16_t)(1024 + i));
	r->udp.hdr.dst_port = rte_cpu_to_be_16(4790 ^ 0xf00f);	/* only 0x0ff0 counts */
	r->q.index = queue;
	cq_rule_fill(r->pat, r->acts, &r->q, &r->eth, &r->ip, &r->udp);
}

static void
wide_rule_random(struct cq_rule *r)
{
	uint64_t x = rte_rand(), y = rte_rand();

	wide_rule_frame(r, 0, 0);
	memcpy(r->eth.hdr.dst_addr.addr_bytes, &x, RTE_ETHER_ADDR_LEN);
	r->eth.has_vlan = (x >> 48) & 1;
	r->ip.hdr.src_addr = (rte_be32_t)y;
	r->ip.hdr.dst_addr = (rte_be32_t)(y >> 32);
	r->ip.hdr.type_of_service = (uint8_t)(x >> 56);
	r->ip.hdr.time_to_live = (uint8_t)(x >> 50);
	r->udp.hdr.src_port = (rte_be16_t)rte_rand();
	r->udp.hdr.dst_port = (rte_be16_t)rte_rand();
}

/* The same rule through rte_flow_create, masks from the template. */
static struct rte_flow *
wide_rule_sync(uint16_t port, const struct cq_rule *r, struct rte_flow_error *e)
{
	const struct rte_flow_attr attr = { .ingress = 1 };
	struct rte_flow_item pat[4];

	memcpy(pat, r->pat, sizeof(pat));
	pat[0].mask = &wide_eth_mask;
	pat[1].mask = &wide_ip_mask;
	pat[2].mask = &wide_udp_mask;
	return rte_flow_create(port, &attr, pat, r->acts, e);
}

static const struct rte_flow_item wide_tmpl[] = {
	{ .type = RTE_FLOW_ITEM_TYPE_ETH, .mask = &wide_eth_mask },
	{ .type = RTE_FLOW_ITEM_TYPE_IPV4, .mask = &wide_ip_mask },
	{ .type = RTE_FLOW_ITEM_TYPE_UDP, .mask = &wide_udp_mask },
	{ .type = RTE_FLOW_ITEM_TYPE_END },
};

/* Rules of a table with a key builder match what the parser's rules match:
 * exact counters after traffic (values outside the masks ignored), and the
 * same key both ways (each path refuses the other's rule as a duplicate). */
static int
test_key_builder(void)
{
	const struct rte_flow_op_attr pp = { .postpone = 1 };
	const uint32_t fr[3] = { 3, 9, 40 }, copies[3] = { 2, 3, 1 };
	struct rte_flow *f[3], *s;
	struct cq_rule r;
	struct rte_flow_error e;
	unsigned int i;
	bool builder;
	uint16_t port;
	struct tport t;

	TEST_ASSERT_EQ(tp_open_tmpl(&t, wide_tmpl, 256, &builder), 0, "");
	TEST_ASSERT(builder, "the table has a key builder");
	port = (uint16_t)t.fp.port;
	for (i = 0; i < 3; i++) {
		wide_rule_frame(&r, fr[i], 1);
		f[i] = rte_flow_async_create(port, 0, &pp, t.tbl, r.pat, 0, r.acts, 0, NULL, &e);
		TEST_ASSERT(f[i] != NULL, "%s", e.message ? e.message : "");
	}
	TEST_ASSERT_EQ(rte_flow_push(port, 0, &e), 0, "");
	TEST_ASSERT_EQ(q_expect(&t, 0, 3, 3), TEST_SUCCESS, "");
	rs_init(&rs);
	for (i = 0; i < 3; i++)
		TEST_ASSERT_EQ(xfer(&t.fp, fr[i], LEN, copies[i], &rs), (int)copies[i], "");
	TEST_ASSERT_EQ(xfer(&t.fp, 41, LEN, 4, &rs), 4, "no rule");
	TEST_ASSERT_EQ(rs.per_q[1], 6, "");
	TEST_ASSERT_EQ(rs.per_q[0], 4, "");
	rs_free(&rs);
	for (i = 0; i < 3; i++)
		TEST_ASSERT_U64_EQ(hits(port, f[i]), copies[i], "rule %u", i);
	/* random values: a parsed rule, then the same through the queue */
	for (i = 0; i < 64; i++) {
		wide_rule_random(&r);
		s = wide_rule_sync(port, &r, &e);
		TEST_ASSERT(s != NULL, "%s", e.message ? e.message : "");
		TEST_ASSERT(rte_flow_async_create(port, 0, &pp, t.tbl, r.pat, 0, r.acts, 0,
						  NULL, &e) != NULL, "");
		TEST_ASSERT_EQ(rte_flow_push(port, 0, &e), 0, "");
		TEST_ASSERT_EQ(q_expect(&t, 0, 1, 0), TEST_SUCCESS,
			       "rule %u: same key as the parsed one", i);
		TEST_ASSERT_EQ(rte_flow_destroy(port, s, &e), 0, "");
	}
	/* and the other way round */
	for (i = 0; i < 64; i++) {
		wide_rule_random(&r);
		TEST_ASSERT(rte_flow_async_create(port, 0, &pp, t.tbl, r.pat, 0, r.acts, 0,
						  NULL, &e) != NULL, "");
		TEST_ASSERT_EQ(rte_flow_push(port, 0, &e), 0, "");
		TEST_ASSERT_EQ(q_expect(&t, 0, 1, 1), TEST_SUCCESS, "rule %u", i);
		TEST_ASSERT(wide_rule_sync(port, &r, &e) == NULL, "rule %u: duplicate", i);
		TEST_ASSERT_EQ(rte_errno, EEXIST, "");
	}
	TEST_ASSERT_EQ(rte_flow_flush(port, &e), 0, "");
	tp_close(&t);
	return TEST_SUCCESS;
}

/* eth / ipv4 src and bit 0 of the protocol / udp: a masked field the parser
 * checks against another item (the udp item sets the protocol), so the
 * template gets no key builder and its rules are parsed */
static const struct rte_flow_item_ipv4 proto_bit_mask = {
	.hdr.src_addr = RTE_BE32(0xffffffff), .hdr.next_proto_id = 0x01,
};
static const struct rte_flow_item proto_bit_tmpl[] = {
	{ .type = RTE_FLOW_ITEM_TYPE_ETH },
	{ .type = RTE_FLOW_ITEM_TYPE_IPV4, .mask = &proto_bit_mask },
	{ .type = RTE_FLOW_ITEM_TYPE_UDP },
	{ .type = RTE_FLOW_ITEM_TYPE_END },
};

/* A template without a key builder: its rules are parsed, and a value the
 * parser refuses is an error result. */
static int
test_key_builder_fallback(void)
{
	const struct rte_flow_op_attr pp = { .postpone = 1 };
	struct rte_flow_error e;
	struct cq_rule r;
	struct rte_flow *f;
	unsigned int ok, bad;
	void *ud[QSIZE];
	bool builder = true;
	uint16_t port;
	struct tport t;

	TEST_ASSERT_EQ(tp_open_tmpl(&t, proto_bit_tmpl, 16, &builder), 0, "");
	TEST_ASSERT(!builder, "no key builder");
	port = (uint16_t)t.fp.port;
	src_rule(&r, 5, 1);
	r.ip.hdr.next_proto_id = IPPROTO_TCP;
	TEST_ASSERT(rte_flow_async_create(port, 0, &pp, t.tbl, r.pat, 0, r.acts, 0, (void *)1,
					  &e) != NULL, "");
	r.ip.hdr.next_proto_id = IPPROTO_UDP;
	f = rte_flow_async_create(port, 0, &pp, t.tbl, r.pat, 0, r.acts, 0, (void *)2, &e);
	TEST_ASSERT(f != NULL, "");
	TEST_ASSERT_EQ(rte_flow_push(port, 0, &e), 0, "");
	TEST_ASSERT_EQ(q_pull(&t, 0, &ok, &bad, ud, QSIZE), 2, "");
	TEST_ASSERT_EQ(bad, 1, "protocol bit 0 clear under a udp item");
	TEST_ASSERT_EQ((uintptr_t)ud[0], 1, "");
	TEST_ASSERT_EQ((uintptr_t)ud[1], 2, "");
	TEST_ASSERT_EQ(send_expect_q(&t, 5, 3, 1), TEST_SUCCESS, "");
	TEST_ASSERT_U64_EQ(hits(port, f), 3, "");
	tp_close(&t);
	return TEST_SUCCESS;
}

/* Creates of a table without a key builder (parsed when their batch runs)
 * take their counters from the queue's stock too: with the whole bank given
 * to the queue by rte_flow_configure, every counter serves a rule, the
 * create after the last is an error result, and each rule counts exactly. */
static int
test_parsed_creates_use_stock(void)
{
	enum { BANK = 16, N = BANK + 1 };
	const struct rte_flow_op_attr pp = { .postpone = 1 };
	struct rte_flow_op_result res[QSIZE];
	struct rte_flow *f[N];
	struct rte_flow_error e;
	bool builder = true;
	struct cq_rule r;
	unsigned int i;
	uint16_t port;
	struct tport t;

	TEST_ASSERT_EQ(tp_open_tmpl_cfg(&t, "counters=16", BANK, proto_bit_tmpl, 32,
					&builder), 0, "");
	TEST_ASSERT(!builder, "no key builder: the rules are parsed");
	port = (uint16_t)t.fp.port;
	for (i = 0; i < N; i++) {
		src_rule(&r, 10 + i, 1);
		r.ip.hdr.next_proto_id = IPPROTO_UDP;
		f[i] = rte_flow_async_create(port, 0, &pp, t.tbl, r.pat, 0, r.acts, 0,
					     (void *)(uintptr_t)(500 + i), &e);
		TEST_ASSERT(f[i] != NULL, "rule %u", i);
	}
	TEST_ASSERT_EQ(rte_flow_push(port, 0, &e), 0, "");
	TEST_ASSERT_EQ(rte_flow_pull(port, 0, res, QSIZE, &e), N, "");
	for (i = 0; i < N; i++) {
		TEST_ASSERT_EQ((uintptr_t)res[i].user_data, 500 + i, "result %u in order", i);
		TEST_ASSERT_EQ(res[i].status == RTE_FLOW_OP_SUCCESS, i < BANK, "rule %u", i);
	}
	TEST_ASSERT_EQ(rte_flow_destroy(port, f[BANK], &e), -EINVAL, "never live");
	for (i = 0; i < BANK; i += 5) {
		TEST_ASSERT_EQ(send_expect_q(&t, 10 + i, 2, 1), TEST_SUCCESS, "rule %u", i);
		TEST_ASSERT_U64_EQ(hits(port, f[i]), 2, "rule %u", i);
	}
	tp_close(&t);
	return TEST_SUCCESS;
}

/* One batch of postponed operations where some fail: a queue index out of
 * range (refused at enqueue), a duplicate (refused by the engine), a destroy
 * of a rule destroyed earlier in the same batch. Every operation has its
 * result in order, the failed ones leave nothing, the others count exactly. */
static int
test_batch_with_failures(void)
{
	const struct rte_flow_op_attr pp = { .postpone = 1 };
	/* user data of the operations, and their expected status (1 = ok) */
	const uintptr_t exp_ud[] = { 10, 11, 12, 13, 14, 15, 16, 17, 18, 19 };
	const int exp_ok[] = { 1, 1, 0, 1, 0, 1, 1, 0, 1, 1 };
	struct rte_flow *f[8], *x, *old;
	struct rte_flow_op_result res[QSIZE];
	struct rte_flow_error e;
	unsigned int ok, bad, i;
	void *ud[QSIZE];
	uint16_t port;
	struct tport t;
	int n;

	TEST_ASSERT_EQ(tp_open(&t, 64), 0, "");
	port = (uint16_t)t.fp.port;
	old = q_create(&t, 0, 30, 1, NULL, &e);
	TEST_ASSERT(old != NULL, "");
	TEST_ASSERT_EQ(q_expect(&t, 0, 1, 1), TEST_SUCCESS, "");
	f[0] = q_create_pp(&t, 0, 20, 1, (void *)10, &e, true);
	f[1] = q_create_pp(&t, 0, 21, 1, (void *)11, &e, true);
	f[2] = q_create_pp(&t, 0, 22, 7, (void *)12, &e, true);		/* no queue 7 */
	f[3] = q_create_pp(&t, 0, 23, 0, (void *)13, &e, true);
	f[4] = q_create_pp(&t, 0, 21, 0, (void *)14, &e, true);		/* duplicate */
	for (i = 0; i < 5; i++)
		TEST_ASSERT(f[i] != NULL, "op %u enqueued", i);
	TEST_ASSERT_EQ(rte_flow_async_destroy(port, 0, &pp, old, (void *)15, &e), 0, "");
	f[5] = q_create_pp(&t, 0, 24, 1, (void *)16, &e, true);
	TEST_ASSERT(f[5] != NULL, "");
	TEST_ASSERT_EQ(rte_flow_async_destroy(port, 0, &pp, old, (void *)17, &e), 0,
		       "still live when enqueued");
	f[6] = q_create_pp(&t, 0, 30, 1, (void *)18, &e, true);	/* old's key, free again */
	f[7] = q_create_pp(&t, 0, 25, 0, (void *)19, &e, true);
	TEST_ASSERT(f[6] != NULL && f[7] != NULL, "");
	/* nothing ran yet: the rules are not live */
	TEST_ASSERT_EQ(rte_flow_query(port, f[0], &(struct rte_flow_action){
		.type = RTE_FLOW_ACTION_TYPE_COUNT }, &(struct rte_flow_query_count){ 0 }, &e),
		-EINVAL, "postponed");
	TEST_ASSERT_EQ(rte_flow_push(port, 0, &e), 0, "");
	n = rte_flow_pull(port, 0, res, QSIZE, &e);
	TEST_ASSERT_EQ(n, (int)RTE_DIM(exp_ud), "");
	for (i = 0; i < RTE_DIM(exp_ud); i++) {
		TEST_ASSERT_EQ((uintptr_t)res[i].user_data, exp_ud[i], "result %u in order", i);
		TEST_ASSERT_EQ(res[i].status == RTE_FLOW_OP_SUCCESS, exp_ok[i], "result %u", i);
	}
	TEST_ASSERT_EQ(rte_flow_destroy(port, f[2], &e), -EINVAL, "never live");
	TEST_ASSERT_EQ(rte_flow_destroy(port, old, &e), -EINVAL, "destroyed");
	/* traffic: sources 20..25 and 30 */
	rs_init(&rs);
	for (i = 0; i < 6; i++)
		TEST_ASSERT_EQ(xfer(&t.fp, 20 + i, LEN, i + 1, &rs), (int)(i + 1), "");
	TEST_ASSERT_EQ(xfer(&t.fp, 30, LEN, 7, &rs), 7, "");
	/* to queue 1: 20 (1), 21 (2), 24 (5), 30 (7); queue 0: 22 (3, no rule),
	 * 23 (4), 25 (6) */
	TEST_ASSERT_EQ(rs.per_q[1], 1 + 2 + 5 + 7, "");
	TEST_ASSERT_EQ(rs.per_q[0], 3 + 4 + 6, "");
	rs_free(&rs);
	TEST_ASSERT_U64_EQ(hits(port, f[0]), 1, "");
	TEST_ASSERT_U64_EQ(hits(port, f[1]), 2, "");
	TEST_ASSERT_U64_EQ(hits(port, f[3]), 4, "");
	TEST_ASSERT_U64_EQ(hits(port, f[5]), 5, "");
	TEST_ASSERT_U64_EQ(hits(port, f[6]), 7, "the new rule with old's key counts from 0");
	TEST_ASSERT_U64_EQ(hits(port, f[7]), 6, "");
	/* a table with enqueued creates cannot go */
	TEST_ASSERT_EQ(rte_flow_flush(port, &e), 0, "");
	x = q_create_pp(&t, 0, 40, 0, (void *)20, &e, true);
	TEST_ASSERT(x != NULL, "");
	TEST_ASSERT_EQ(rte_flow_template_table_destroy(port, t.tbl, &e), -EBUSY, "");
	TEST_ASSERT_EQ(rte_flow_push(port, 0, &e), 0, "");
	TEST_ASSERT_EQ(q_pull(&t, 0, &ok, &bad, ud, QSIZE), 1, "");
	TEST_ASSERT_EQ(rte_flow_destroy(port, x, &e), 0, "");
	TEST_ASSERT_EQ(rte_flow_template_table_destroy(port, t.tbl, &e), 0, "");
	tp_close(&t);
	return TEST_SUCCESS;
}

/* Two flow queues: each has its own results in its own order and its own
 * share of the counters; a rule created through one queue is destroyed
 * through the other; counters and steering are exact throughout. */
static int
test_two_queues(void)
{
	enum { N = 40 };
	const struct rte_flow_op_attr pp = { .postpone = 1 };
	struct rte_flow_op_result res[QSIZE];
	struct rte_flow *f[N];
	struct rte_flow_error e;
	unsigned int i, k, ok, bad;
	void *ud[QSIZE];
	uint16_t port;
	struct tport t;
	int n;

	TEST_ASSERT_EQ(tp_open_q(&t, N, 2), 0, "");
	port = (uint16_t)t.fp.port;
	for (i = 0; i < N; i++) {
		f[i] = q_create_pp(&t, i & 1, 100 + i, 1, (void *)(uintptr_t)(1000 + i), &e, true);
		TEST_ASSERT(f[i] != NULL, "%s", e.message ? e.message : "");
	}
	for (k = 0; k < 2; k++) {
		TEST_ASSERT_EQ(rte_flow_push(port, k, &e), 0, "");
		n = rte_flow_pull(port, k, res, QSIZE, &e);
		TEST_ASSERT_EQ(n, N / 2, "queue %u", k);
		for (i = 0; i < N / 2; i++) {
			TEST_ASSERT_EQ(res[i].status, RTE_FLOW_OP_SUCCESS, "");
			TEST_ASSERT_EQ((uintptr_t)res[i].user_data, 1000 + 2 * i + k,
				       "queue %u result %u", k, i);
		}
	}
	rs_init(&rs);
	TEST_ASSERT_EQ(xfer(&t.fp, 100, LEN, 2, &rs), 2, "");
	TEST_ASSERT_EQ(xfer(&t.fp, 101, LEN, 3, &rs), 3, "");
	TEST_ASSERT_EQ(xfer(&t.fp, 100 + N - 1, LEN, 4, &rs), 4, "");
	TEST_ASSERT_EQ(rs.per_q[1], 9, "");
	rs_free(&rs);
	TEST_ASSERT_U64_EQ(hits(port, f[0]), 2, "");
	TEST_ASSERT_U64_EQ(hits(port, f[1]), 3, "");
	TEST_ASSERT_U64_EQ(hits(port, f[N - 1]), 4, "");
	TEST_ASSERT_U64_EQ(hits(port, f[2]), 0, "");
	/* the table is full: one more through either queue is an error result */
	TEST_ASSERT(q_create_pp(&t, 1, 500, 0, (void *)1, &e, false) != NULL, "");
	TEST_ASSERT_EQ(q_expect(&t, 1, 1, 0), TEST_SUCCESS, "");
	/* destroy each rule through the other queue */
	for (i = 0; i < N; i++)
		TEST_ASSERT_EQ(rte_flow_async_destroy(port, (i & 1) ^ 1, &pp, f[i],
						      (void *)(uintptr_t)(2000 + i), &e), 0, "");
	for (k = 0; k < 2; k++) {
		TEST_ASSERT_EQ(rte_flow_push(port, k, &e), 0, "");
		TEST_ASSERT_EQ(q_pull(&t, k, &ok, &bad, ud, QSIZE), N / 2, "");
		TEST_ASSERT_EQ(ok, N / 2, "");
		TEST_ASSERT_EQ((uintptr_t)ud[0], 2000 + (k ^ 1), "");
	}
	TEST_ASSERT_EQ(send_expect_q(&t, 100, 2, 0), TEST_SUCCESS, "the rule is gone");
	/* room again, and new rules count from 0 */
	f[0] = q_create_pp(&t, 0, 100, 1, NULL, &e, false);
	TEST_ASSERT(f[0] != NULL, "");
	TEST_ASSERT_EQ(q_expect(&t, 0, 1, 1), TEST_SUCCESS, "");
	TEST_ASSERT_EQ(send_expect_hits(&t, 100, 5, f[0], 5), TEST_SUCCESS, "");
	tp_close(&t);
	return TEST_SUCCESS;
}

/* ---- encoded actions, batch inserts ------------------------------------------ */

static const struct rte_flow_item_udp sport_mask = { .hdr.src_port = RTE_BE16(0xffff) };

/* A rule for frame i through pattern template pt (0: ipv4 src, 1: udp src
 * port) and actions template at (0: count / mark / queue, both per rule;
 * 1: mark 0x77 from the template / queue per rule). What the template
 * does not match or fixes is given noise that must not matter. */
struct enc_rule {
	struct rte_flow_item_ipv4 ip;
	struct rte_flow_item_udp udp;
	struct rte_flow_item pat[4];
	struct rte_flow_action_mark mark;
	struct rte_flow_action_queue q;
	struct rte_flow_action acts[4];
};

#define ENC_FIXED_MARK	0x77u

static void
enc_rule(struct enc_rule *r, uint32_t pt, uint32_t at, uint32_t i, uint32_t mark,
	 uint16_t queue)
{
	unsigned int n = 0;

	memset(r, 0, sizeof(*r));
	r->ip.hdr.src_addr = rte_cpu_to_be_32(pt == 0 ? 0x0a000000u | i : 0x0b0b0b0bu);
	r->udp.hdr.src_port = rte_cpu_to_be_16(pt == 1 ? (uint16_t)(1024 + i) : 7);
	r->pat[0].type = RTE_FLOW_ITEM_TYPE_ETH;
	r->pat[1].type = RTE_FLOW_ITEM_TYPE_IPV4;
	r->pat[1].spec = &r->ip;
	r->pat[2].type = RTE_FLOW_ITEM_TYPE_UDP;
	r->pat[2].spec = &r->udp;
	r->pat[3].type = RTE_FLOW_ITEM_TYPE_END;
	r->mark.id = at == 0 ? mark : mark + 1;	/* at 1: the template's wins */
	r->q.index = queue;
	/* at 0: count / mark / queue; at 1: mark / queue */
	if (at == 0)
		r->acts[n++].type = RTE_FLOW_ACTION_TYPE_COUNT;
	r->acts[n++] = (struct rte_flow_action){ .type = RTE_FLOW_ACTION_TYPE_MARK, .conf = &r->mark };
	r->acts[n++] = (struct rte_flow_action){ .type = RTE_FLOW_ACTION_TYPE_QUEUE, .conf = &r->q };
	r->acts[n].type = RTE_FLOW_ACTION_TYPE_END;
}

/* One table over two pattern templates and two actions templates, all
 * compiled (key builders, encoded actions); 4 rx queues. */
static int
enc_open(struct tport *t, struct rte_flow_template_table **tbl, uint32_t nb_flows)
{
	static const struct rte_flow_action_mark fixed = { .id = ENC_FIXED_MARK };
	const struct rte_flow_item tmpl_sport[] = {
		{ .type = RTE_FLOW_ITEM_TYPE_ETH },
		{ .type = RTE_FLOW_ITEM_TYPE_IPV4 },
		{ .type = RTE_FLOW_ITEM_TYPE_UDP, .mask = &sport_mask },
		{ .type = RTE_FLOW_ITEM_TYPE_END },
	};
	const struct rte_flow_action at0[] = {
		{ .type = RTE_FLOW_ACTION_TYPE_COUNT },
		{ .type = RTE_FLOW_ACTION_TYPE_MARK },
		{ .type = RTE_FLOW_ACTION_TYPE_QUEUE },
		{ .type = RTE_FLOW_ACTION_TYPE_END },
	};
	const struct rte_flow_action at1[] = {
		{ .type = RTE_FLOW_ACTION_TYPE_MARK, .conf = &fixed },
		{ .type = RTE_FLOW_ACTION_TYPE_QUEUE },
		{ .type = RTE_FLOW_ACTION_TYPE_END },
	};
	struct rte_flow_pattern_template *pts[2];
	struct rte_flow_actions_template *ats[2];
	struct rte_flow_error e;
	uint16_t port;

	if (tp_port_open(t, "", 4, 1, 1024) != 0)
		return -1;
	port = (uint16_t)t->fp.port;
	pts[0] = rte_flow_pattern_template_create(port, &pt_attr, src_tmpl, &e);
	pts[1] = rte_flow_pattern_template_create(port, &pt_attr, tmpl_sport, &e);
	ats[0] = rte_flow_actions_template_create(port, &at_attr, at0, at0, &e);
	ats[1] = rte_flow_actions_template_create(port, &at_attr, at1, at1, &e);
	if (pts[0] == NULL || pts[1] == NULL || ats[0] == NULL || ats[1] == NULL)
		return -1;
	*tbl = tp_table(t, nb_flows, pts, 2, ats, 2);
	return *tbl != NULL ? 0 : -1;
}

/* Rule k of test_encoded_batch: its templates, frame, mark and queue. */
struct enc_case {
	uint8_t pt, at;
	uint16_t queue;
	uint32_t frame, mark;
	bool ok;			/* expected result */
	struct rte_flow *f;
};

/* The frames of rule k arrive on its queue with its mark, and its counter
 * (template 0) counts them. */
static int
enc_check_rule(struct tport *t, const struct enc_case *c, uint32_t k)
{
	unsigned int n = k % 5 + 1, j;

	rs_init(&rs);
	TEST_ASSERT_EQ(xfer(&t->fp, c->frame, LEN, n, &rs), (int)n, "rule %u", k);
	for (j = 0; j < rs.n; j++) {
		TEST_ASSERT_EQ(rs.q[j], c->queue, "rule %u: queue", k);
		TEST_ASSERT(rs.m[j]->ol_flags & RTE_MBUF_F_RX_FDIR_ID, "rule %u: marked", k);
		TEST_ASSERT_EQ(rs.m[j]->hash.fdir.hi, c->at == 0 ? c->mark : ENC_FIXED_MARK,
			       "rule %u: mark", k);
	}
	rs_free(&rs);
	if (c->at == 0)
		TEST_ASSERT_U64_EQ(hits((uint16_t)t->fp.port, c->f), n, "rule %u", k);
	else
		TEST_ASSERT(hits((uint16_t)t->fp.port, c->f) == UINT64_MAX,
			    "rule %u has no counter", k);
	return TEST_SUCCESS;
}

/*
 * Creates of compiled templates run in batches with actions encoded once
 * per actions template: in one postponed batch, a long run of one table and
 * templates with per-rule queues and marks, with a duplicate (of an earlier
 * rule, and of one earlier in the same run) and a queue out of range in the
 * middle, then rules switching pattern and actions template every one or
 * two. Every rule steers to its own queue with its own mark (or the
 * template's), counts exactly, and the failed ones leave nothing: a batch
 * that carried one rule's values, matcher or encoding into another fails.
 */
static int
test_encoded_batch(void)
{
	enum { RUN = 24, MIX = 16, N = RUN + MIX + 3 };
	const struct rte_flow_op_attr pp = { .postpone = 1 };
	struct rte_flow_template_table *tbl;
	struct rte_flow_op_result res[QSIZE];
	struct enc_case c[N];
	struct enc_rule r;
	struct rte_flow_error e;
	uint32_t k, n = 0, i;
	uint16_t port;
	struct tport t;
	int got;

	TEST_ASSERT_EQ(enc_open(&t, &tbl, 64), 0, "");
	port = (uint16_t)t.fp.port;
	for (i = 0; i < RUN; i++) {
		c[n++] = (struct enc_case){ .pt = 0, .at = 0, .queue = (uint16_t)((i * 3 + 1) % 4),
					    .frame = 10 + i, .mark = 5000 + i * 17, .ok = true };
		if (i == 9)	/* a duplicate of rule 2 (already in) */
			c[n++] = (struct enc_case){ .pt = 0, .at = 0, .queue = 3,
						    .frame = 12, .mark = 1 };
		if (i == 14)	/* queue 4 does not exist: refused at enqueue */
			c[n++] = (struct enc_case){ .pt = 0, .at = 0, .queue = 4,
						    .frame = 200, .mark = 2 };
	}
	for (i = 0; i < MIX; i++) {
		/* pattern template, actions template: runs of one and two,
		 * changing the one, the other, or both */
		static const uint8_t mix[MIX][2] = {
			{ 0, 0 }, { 0, 0 }, { 0, 1 }, { 0, 1 }, { 1, 1 }, { 1, 1 },
			{ 1, 0 }, { 0, 0 }, { 0, 1 }, { 1, 1 }, { 1, 0 }, { 1, 0 },
			{ 0, 0 }, { 1, 0 }, { 0, 1 }, { 1, 1 },
		};

		c[n++] = (struct enc_case){ .pt = mix[i][0], .at = mix[i][1],
					    .queue = (uint16_t)(i % 4), .frame = 40 + i,
					    .mark = 9000 + i, .ok = true };
		if (i == 3)	/* a duplicate of mixed rule 2 (the other actions
				 * template: the same matcher) */
			c[n++] = (struct enc_case){ .pt = 0, .at = 0, .queue = 2,
						    .frame = 42, .mark = 3 };
	}
	TEST_ASSERT_EQ(n, N, "");
	/* rules 0..4 first, in a batch of their own: later duplicates hit
	 * rules in the matcher as well as ones of the same batch */
	for (k = 0; k < n; k++) {
		enc_rule(&r, c[k].pt, c[k].at, c[k].frame, c[k].mark, c[k].queue);
		c[k].f = rte_flow_async_create(port, 0, &pp, tbl, r.pat, c[k].pt, r.acts,
					       c[k].at, (void *)(uintptr_t)(100 + k), &e);
		TEST_ASSERT(c[k].f != NULL, "rule %u: %s", k, e.message ? e.message : "");
		if (k == 4) {
			TEST_ASSERT_EQ(rte_flow_push(port, 0, &e), 0, "");
			TEST_ASSERT_EQ(rte_flow_pull(port, 0, res, QSIZE, &e), 5, "");
		}
	}
	TEST_ASSERT_EQ(rte_flow_push(port, 0, &e), 0, "");
	got = rte_flow_pull(port, 0, res, QSIZE, &e);
	TEST_ASSERT_EQ(got, (int)n - 5, "");
	for (k = 5; k < n; k++) {
		TEST_ASSERT_EQ((uintptr_t)res[k - 5].user_data, 100 + k, "result %u in order", k);
		TEST_ASSERT_EQ(res[k - 5].status == RTE_FLOW_OP_SUCCESS, c[k].ok, "rule %u", k);
	}
	for (k = 0; k < n; k++) {
		if (!c[k].ok) {
			TEST_ASSERT_EQ(rte_flow_destroy(port, c[k].f, &e), -EINVAL,
				       "rule %u never live", k);
			continue;
		}
		if (enc_check_rule(&t, &c[k], k) != TEST_SUCCESS)
			return TEST_FAILED;
	}
	/* all destroyed through the queue; the table is empty again */
	for (k = 0; k < n; k++)
		if (c[k].ok)
			TEST_ASSERT_EQ(rte_flow_async_destroy(port, 0, &pp, c[k].f, NULL, &e), 0,
				       "rule %u", k);
	TEST_ASSERT_EQ(rte_flow_push(port, 0, &e), 0, "");
	TEST_ASSERT_EQ(rte_flow_pull(port, 0, res, QSIZE, &e), (int)n - 3, "");
	for (k = 0; k < (unsigned int)n - 3; k++)
		TEST_ASSERT_EQ(res[k].status, RTE_FLOW_OP_SUCCESS, "destroy %u", k);
	rs_init(&rs);
	TEST_ASSERT_EQ(xfer(&t.fp, 10, LEN, 2, &rs), 2, "");
	TEST_ASSERT(!(rs.m[0]->ol_flags & RTE_MBUF_F_RX_FDIR), "no rule left");
	rs_free(&rs);
	TEST_ASSERT_EQ(rte_flow_template_table_destroy(port, tbl, &e), 0, "");
	tp_close(&t);
	return TEST_SUCCESS;
}

/*
 * Counters for batched creates when the queue's stock (rte_flow_configure's
 * nb_counters) is used up: taken from the pool as the batch runs, until the
 * bank is empty; the creates after that are error results in order and
 * leave nothing, and a counter freed by a destroy serves a later create,
 * reading zero.
 */
static int
test_batch_counters_beyond_stock(void)
{
	enum { BANK = 16, STOCK = 4, N = 20 };
	struct rte_flow_op_result res[QSIZE];
	struct rte_flow *f[N], *x;
	struct rte_flow_error e;
	unsigned int i;
	uint16_t port;
	struct tport t;
	int n;

	TEST_ASSERT_EQ(tp_open_cfg(&t, "counters=16", STOCK, 32, 1), 0, "");
	port = (uint16_t)t.fp.port;
	for (i = 0; i < N; i++) {
		f[i] = q_create_pp(&t, 0, 10 + i, 1, (void *)(uintptr_t)(300 + i), &e, true);
		TEST_ASSERT(f[i] != NULL, "");
	}
	TEST_ASSERT_EQ(rte_flow_push(port, 0, &e), 0, "");
	n = rte_flow_pull(port, 0, res, QSIZE, &e);
	TEST_ASSERT_EQ(n, N, "");
	for (i = 0; i < N; i++) {
		TEST_ASSERT_EQ((uintptr_t)res[i].user_data, 300 + i, "result %u in order", i);
		TEST_ASSERT_EQ(res[i].status == RTE_FLOW_OP_SUCCESS, i < BANK, "rule %u", i);
	}
	for (i = BANK; i < N; i++)
		TEST_ASSERT_EQ(rte_flow_destroy(port, f[i], &e), -EINVAL, "rule %u never live", i);
	rs_init(&rs);
	for (i = 0; i < N; i++)
		TEST_ASSERT_EQ(xfer(&t.fp, 10 + i, LEN, 2, &rs), 2, "");
	TEST_ASSERT_EQ(rs.per_q[1], 2 * BANK, "");
	TEST_ASSERT_EQ(rs.per_q[0], 2 * (N - BANK), "no rule for the failed ones");
	rs_free(&rs);
	for (i = 0; i < BANK; i++)
		TEST_ASSERT_U64_EQ(hits(port, f[i]), 2, "rule %u", i);
	/* one counter back (after a fence): the next create gets it, from 0 */
	TEST_ASSERT_EQ(rte_flow_destroy(port, f[7], &e), 0, "");
	x = q_create(&t, 0, 100, 1, (void *)1, &e);
	TEST_ASSERT(x != NULL, "");
	TEST_ASSERT_EQ(q_expect(&t, 0, 1, 1), TEST_SUCCESS, "");
	TEST_ASSERT_U64_EQ(hits(port, x), 0, "");
	TEST_ASSERT_EQ(send_expect_hits(&t, 100, 3, x, 3), TEST_SUCCESS, "");
	tp_close(&t);
	return TEST_SUCCESS;
}

/* An enqueue refused at once: what it asks, and how it must fail. */
struct refused_op {
	uint32_t queue;
	const struct rte_flow_item *pat;
	uint8_t pt;
	const struct rte_flow_action *acts;
	int err;			/* rte_errno; 0: not checked */
	enum rte_flow_error_type type;	/* RTE_FLOW_ERROR_TYPE_NONE: not checked */
	const void *cause;		/* NULL: not checked */
	const char *what;
};

static int
refused_check(struct tport *t, const struct refused_op *c)
{
	const struct rte_flow_op_attr oa = { 0 };
	struct rte_flow_error e;

	TEST_ASSERT(rte_flow_async_create((uint16_t)t->fp.port, c->queue, &oa, t->tbl, c->pat,
					  c->pt, c->acts, 0, NULL, &e) == NULL, "");
	if (c->err != 0)
		TEST_ASSERT_EQ(rte_errno, c->err, "");
	if (c->type != RTE_FLOW_ERROR_TYPE_NONE)
		TEST_ASSERT_EQ(e.type, c->type, "");
	if (c->cause != NULL)
		TEST_ASSERT(e.cause == c->cause, "");
	return TEST_SUCCESS;
}

static int
test_bad_operations(void)
{
	struct rte_flow_item_ipv4 ip = { .hdr.src_addr = RTE_BE32(0x0a000001) };
	const struct rte_flow_item wrong_pat[] = {
		{ .type = RTE_FLOW_ITEM_TYPE_ETH },
		{ .type = RTE_FLOW_ITEM_TYPE_IPV6 },
		{ .type = RTE_FLOW_ITEM_TYPE_END },
	};
	const struct rte_flow_item no_spec[] = {
		{ .type = RTE_FLOW_ITEM_TYPE_ETH },
		{ .type = RTE_FLOW_ITEM_TYPE_IPV4 },
		{ .type = RTE_FLOW_ITEM_TYPE_UDP },
		{ .type = RTE_FLOW_ITEM_TYPE_END },
	};
	const struct rte_flow_item ok_pat[] = {
		{ .type = RTE_FLOW_ITEM_TYPE_ETH },
		{ .type = RTE_FLOW_ITEM_TYPE_IPV4, .spec = &ip },
		{ .type = RTE_FLOW_ITEM_TYPE_UDP },
		{ .type = RTE_FLOW_ITEM_TYPE_END },
	};
	const struct rte_flow_item long_pat[] = {
		{ .type = RTE_FLOW_ITEM_TYPE_ETH },
		{ .type = RTE_FLOW_ITEM_TYPE_IPV4, .spec = &ip },
		{ .type = RTE_FLOW_ITEM_TYPE_UDP },
		{ .type = RTE_FLOW_ITEM_TYPE_VOID },
		{ .type = RTE_FLOW_ITEM_TYPE_END },
	};
	struct rte_flow_action_queue q9 = { .index = 9 }, q1 = { .index = 1 };
	const struct rte_flow_action long_acts[] = {
		{ .type = RTE_FLOW_ACTION_TYPE_COUNT },
		{ .type = RTE_FLOW_ACTION_TYPE_QUEUE, .conf = &q1 },
		{ .type = RTE_FLOW_ACTION_TYPE_FLAG },
		{ .type = RTE_FLOW_ACTION_TYPE_END },
	};
	const struct rte_flow_action bad_queue[] = {
		{ .type = RTE_FLOW_ACTION_TYPE_COUNT },
		{ .type = RTE_FLOW_ACTION_TYPE_QUEUE, .conf = &q9 },
		{ .type = RTE_FLOW_ACTION_TYPE_END },
	};
	const struct refused_op refused[] = {
		{ 3, ok_pat, 0, bad_queue, EINVAL, RTE_FLOW_ERROR_TYPE_NONE, NULL,
		  "no such queue" },
		{ 0, ok_pat, 1, bad_queue, EINVAL, RTE_FLOW_ERROR_TYPE_NONE, NULL,
		  "template index" },
		{ 0, wrong_pat, 0, bad_queue, 0, RTE_FLOW_ERROR_TYPE_ITEM, NULL, "item types" },
		{ 0, no_spec, 0, bad_queue, 0, RTE_FLOW_ERROR_TYPE_ITEM_SPEC, NULL, "spec needed" },
		{ 0, long_pat, 0, bad_queue, 0, RTE_FLOW_ERROR_TYPE_ITEM, &long_pat[3],
		  "pattern longer than the template" },
		{ 0, ok_pat, 0, long_acts, EINVAL, RTE_FLOW_ERROR_TYPE_ACTION, &long_acts[2],
		  "actions longer than the template" },
		{ 0, ok_pat, 0, &long_acts[1], 0, RTE_FLOW_ERROR_TYPE_ACTION, NULL,
		  "action types differ" },
	};
	const struct rte_flow_op_attr oa = { 0 };
	struct rte_flow_error e;
	struct rte_flow *f;
	unsigned int ok, bad, i;
	void *ud[QSIZE];
	uint16_t port;
	struct tport t;

	TEST_ASSERT_EQ(tp_open(&t, 4), 0, "");
	port = (uint16_t)t.fp.port;
	/* one rule first: the queue is warm (its flow objects cached), so the
	 * calls below meet the enqueue's fast checks first */
	TEST_ASSERT(q_create(&t, 0, 99, 0, NULL, &e) != NULL, "");
	TEST_ASSERT_EQ(q_pull(&t, 0, &ok, &bad, ud, QSIZE), 1, "");
	TEST_ASSERT_EQ(rte_flow_flush(port, &e), 0, "");
	/* refused at once, nothing enqueued */
	for (i = 0; i < RTE_DIM(refused); i++)
		TEST_ASSERT_EQ(refused_check(&t, &refused[i]), TEST_SUCCESS, "%s", refused[i].what);
	TEST_ASSERT_EQ(q_pull(&t, 0, &ok, &bad, ud, QSIZE), 0, "nothing enqueued");
	/* a value the engine refuses: an error result */
	f = rte_flow_async_create(port, 0, &oa, t.tbl, ok_pat, 0, bad_queue, 0, (void *)5, &e);
	TEST_ASSERT(f != NULL, "");
	TEST_ASSERT_EQ(q_expect(&t, 0, 1, 0), TEST_SUCCESS, "");
	/* the table holds 4 rules: the fifth is an error result */
	for (i = 0; i < 5; i++)
		TEST_ASSERT(q_create(&t, 0, 20 + i, 0, NULL, &e) != NULL, "");
	TEST_ASSERT_EQ(q_expect(&t, 0, 5, 4), TEST_SUCCESS, "table full");
	/* a full queue refuses more operations until pulled */
	TEST_ASSERT_EQ(rte_flow_flush(port, &e), 0, "");
	for (i = 0; i < QSIZE; i++)
		TEST_ASSERT(q_create(&t, 0, 1000 + i, 0, NULL, &e) != NULL, "");
	TEST_ASSERT(q_create(&t, 0, 2000, 0, NULL, &e) == NULL, "");
	TEST_ASSERT_EQ(rte_errno, EAGAIN, "");
	TEST_ASSERT_EQ(q_expect(&t, 0, QSIZE, 4), TEST_SUCCESS,
		       "only the table's rule count succeeds");
	tp_close(&t);
	return TEST_SUCCESS;
}

static int
test_queue_indirect_count(void)
{
	const struct rte_flow_action count = { .type = RTE_FLOW_ACTION_TYPE_COUNT };
	const struct rte_flow_indir_action_conf ic = { .ingress = 1 };
	const struct rte_flow_op_attr oa = { 0 };
	struct rte_flow_query_count qc = { 0 };
	struct rte_flow_action_handle *h;
	struct rte_flow_error e;
	unsigned int ok, bad;
	void *ud[QSIZE];
	uint16_t port;
	struct tport t;

	TEST_ASSERT_EQ(tp_open(&t, 4), 0, "");
	port = (uint16_t)t.fp.port;
	h = rte_flow_async_action_handle_create(port, 0, &oa, &ic, &count, (void *)1, &e);
	TEST_ASSERT(h != NULL, "");
	TEST_ASSERT_EQ(rte_flow_async_action_handle_query(port, 0, &oa, h, &qc, (void *)2,
							  &e), 0, "");
	TEST_ASSERT_EQ(q_expect(&t, 0, 2, 2), TEST_SUCCESS, "");
	TEST_ASSERT_EQ(qc.hits_set, 1, "");
	TEST_ASSERT_U64_EQ(qc.hits, 0, "");
	TEST_ASSERT_EQ(rte_flow_async_action_handle_destroy(port, 0, &oa, h, (void *)3, &e),
		       0, "");
	TEST_ASSERT_EQ(q_pull(&t, 0, &ok, &bad, ud, QSIZE), 1, "");
	TEST_ASSERT_EQ(rte_flow_async_action_handle_destroy(port, 0, &oa, h, NULL, &e),
		       -ENOENT, "twice");
	TEST_ASSERT_EQ(q_pull(&t, 0, &ok, &bad, ud, QSIZE), 0, "no result for a refused call");
	tp_close(&t);
	return TEST_SUCCESS;
}

static int
test_not_configured(void)
{
	const struct rte_flow_item eth[] = {
		{ .type = RTE_FLOW_ITEM_TYPE_ETH },
		{ .type = RTE_FLOW_ITEM_TYPE_END },
	};
	struct rte_flow_op_result res[4];
	struct rte_flow_error e;
	struct fport fp;

	TEST_ASSERT_EQ(fp_open(&fp, "", 1), 0, "");
	/* ethdev itself refuses templates before configure */
	TEST_ASSERT(rte_flow_pattern_template_create((uint16_t)fp.port, &pt_attr, eth, &e) == NULL, "");
	TEST_ASSERT(rte_flow_pull((uint16_t)fp.port, 0, res, 4, &e) < 0, "");
	fp_close(&fp);
	return TEST_SUCCESS;
}

/* Flow objects the port allocated ahead (rte_flow_dev_dump). */
static uint64_t
objs_ahead(const struct tport *t)
{
	uint64_t v;

	return dump_count((uint16_t)t->fp.port, "flow objects allocated ahead ", &v) == 0 ?
	       v : UINT64_MAX;
}

/*
 * Each table allocates flow objects ahead for its own rules and for those
 * the other tables still have room for, so that the rules of every table
 * are created without allocating: a second table adds its own count.
 */
static int
test_objects_ahead_per_table(void)
{
	const struct rte_flow_template_table_attr ta_b = {
		.flow_attr = { .ingress = 1, .group = 1 }, .nb_flows = 200,
	};
	struct rte_flow_template_table *tb_b, *tb_c;
	struct rte_flow_error e;
	struct tport t;
	uint16_t port;
	uint32_t i;

	TEST_ASSERT_EQ(tp_port_open(&t, "", 2, 1, 1024), 0, "port");
	port = (uint16_t)t.fp.port;
	TEST_ASSERT_EQ(tp_templates(&t, src_tmpl), 0, "templates");
	TEST_ASSERT_U64_EQ(objs_ahead(&t), 0, "no table yet");
	t.tbl = tp_table(&t, 100, &t.pt, 1, &t.at, 1);
	TEST_ASSERT(t.tbl != NULL, "table of 100");
	TEST_ASSERT_U64_EQ(objs_ahead(&t), 100, "one table of 100");
	tb_b = rte_flow_template_table_create(port, &ta_b, &t.pt, 1, &t.at, 1, &e);
	TEST_ASSERT(tb_b != NULL, "table of 200: %s", e.message ? e.message : "?");
	TEST_ASSERT_U64_EQ(objs_ahead(&t), 300, "tables of 100 and 200");
	/* 50 rules of the first table: the queue's cache gives them, and
	 * takes as many from the objects ahead */
	for (i = 0; i < 50; i++)
		TEST_ASSERT(q_create_pp(&t, 0, i, 0, NULL, &e, true) != NULL, "create %u", i);
	TEST_ASSERT_EQ(rte_flow_push(port, 0, &e), 0, "push");
	TEST_ASSERT_EQ(q_expect(&t, 0, 50, 50), TEST_SUCCESS, "50 creates");
	TEST_ASSERT_U64_EQ(objs_ahead(&t), 250, "after 50 rules");
	/* a third table of 10: room for 50 + 200 + 10 */
	tb_c = tp_table(&t, 10, &t.pt, 1, &t.at, 1);
	TEST_ASSERT(tb_c != NULL, "table of 10");
	TEST_ASSERT_U64_EQ(objs_ahead(&t), 260, "room left in three tables");
	TEST_ASSERT_EQ(rte_flow_template_table_destroy(port, tb_c, &e), 0, "destroy table");
	tp_close(&t);
	return TEST_SUCCESS;
}

static const struct tally_test_case cases[] = {
	TEST_CASE(test_info_configure),
	TEST_CASE(test_not_configured),
	TEST_CASE(test_template_errors),
	TEST_CASE(test_queue_rules_and_traffic),
	TEST_CASE(test_postponed_batch),
	TEST_CASE(test_key_builder),
	TEST_CASE(test_key_builder_fallback),
	TEST_CASE(test_parsed_creates_use_stock),
	TEST_CASE(test_batch_with_failures),
	TEST_CASE(test_two_queues),
	TEST_CASE(test_encoded_batch),
	TEST_CASE(test_batch_counters_beyond_stock),
	TEST_CASE(test_bad_operations),
	TEST_CASE(test_queue_indirect_count),
	TEST_CASE(test_objects_ahead_per_table),
};

int
main(void)
{
	int rc;

	tdt_eal_init("tally-flow-async");
	rc = tally_test_run("dpdk-flow-async", cases, RTE_DIM(cases));

	rte_eal_cleanup();
	return rc;
}
