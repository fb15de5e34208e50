/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rte_flow on a net_tally port over the loopback wire: every error cause
 * (exact rte_errno, error type and cause, for validate and create, and no
 * state left by a failed create), COUNT semantics with exact values after
 * known traffic, indirect COUNT, mark/flag delivery, queue/RSS steering,
 * drop, jump, priorities, passthru, isolate, stop/start, flush, and
 * create/destroy/query from other threads while traffic flows.
 *
 * Frames come from tdt_frame_fill(): frame i is IPv4/UDP with source
 * address 10.0.(i >> 8).(i & 0xff), UDP destination port 4790.
 */
#include <pthread.h>
#include <stdatomic.h>

#include <rte_flow.h>

#include "tally_dpdk_test.h"

#define SRC(i)		RTE_BE32(0x0a000000u | (i))
#define LEN_A		100u
#define LEN_B		200u

#include "flow_test_util.h"

static struct rx_set rs;

/* ---- rule building -------------------------------------------------------- */

static const struct rte_flow_attr attr_in = { .ingress = 1 };
static const struct rte_flow_item_ipv4 ipv4_src_mask = {
	.hdr.src_addr = RTE_BE32(0xffffffff),
};

/* eth / ipv4 [src is 10.0.x.y] / udp / end */
struct pat {
	struct rte_flow_item_ipv4 ip;
	struct rte_flow_item it[4];
};

static const struct rte_flow_item *
pat_src(struct pat *p, int src)
{
	memset(p, 0, sizeof(*p));
	p->ip.hdr.src_addr = rte_cpu_to_be_32(0x0a000000u | (uint32_t)src);
	p->it[0].type = RTE_FLOW_ITEM_TYPE_ETH;
	p->it[1].type = RTE_FLOW_ITEM_TYPE_IPV4;
	if (src >= 0) {
		p->it[1].spec = &p->ip;
		p->it[1].mask = &ipv4_src_mask;
	}
	p->it[2].type = RTE_FLOW_ITEM_TYPE_UDP;
	p->it[3].type = RTE_FLOW_ITEM_TYPE_END;
	return p->it;
}

static struct rte_flow *
rule(uint16_t port, uint32_t group, uint32_t prio, int src,
     const struct rte_flow_action *acts)
{
	struct rte_flow_attr a = { .group = group, .priority = prio, .ingress = 1 };
	struct rte_flow_error err;
	struct rte_flow *f;
	struct pat p;

	f = rte_flow_create(port, &a, pat_src(&p, src), acts, &err);
	if (f == NULL)
		fprintf(stderr, "  create: %s (type %d)\n",
			err.message ? err.message : "?", err.type);
	return f;
}

#define ACTS(...)	((const struct rte_flow_action[]){ __VA_ARGS__,	\
			  { .type = RTE_FLOW_ACTION_TYPE_END } })
#define A_COUNT		{ .type = RTE_FLOW_ACTION_TYPE_COUNT }
#define A_QUEUE(q)	{ .type = RTE_FLOW_ACTION_TYPE_QUEUE,			\
			  .conf = &(const struct rte_flow_action_queue){ .index = (q) } }
#define A_DROP		{ .type = RTE_FLOW_ACTION_TYPE_DROP }
#define A_PASSTHRU	{ .type = RTE_FLOW_ACTION_TYPE_PASSTHRU }
#define A_FLAG		{ .type = RTE_FLOW_ACTION_TYPE_FLAG }
#define A_MARK(v)	{ .type = RTE_FLOW_ACTION_TYPE_MARK,			\
			  .conf = &(const struct rte_flow_action_mark){ .id = (v) } }
#define A_JUMP(g)	{ .type = RTE_FLOW_ACTION_TYPE_JUMP,			\
			  .conf = &(const struct rte_flow_action_jump){ .group = (g) } }
#define A_INDIRECT(h)	{ .type = RTE_FLOW_ACTION_TYPE_INDIRECT, .conf = (h) }

static const struct rte_flow_action count_action = A_COUNT;

/* Query the COUNT of a flow; reset as asked. 0 or the failing return. */
static int
qcount(uint16_t port, struct rte_flow *f, int reset, uint64_t *hits,
       uint64_t *bytes)
{
	struct rte_flow_query_count qc = { .reset = reset ? 1 : 0 };
	struct rte_flow_error err;
	int ret;

	ret = rte_flow_query(port, f, &count_action, &qc, &err);
	if (ret)
		return ret;
	if (!qc.hits_set || !qc.bytes_set)
		return -EPROTO;
	*hits = qc.hits;
	*bytes = qc.bytes;
	return 0;
}

#define ASSERT_COUNT(port, f, h, b) do {					\
	uint64_t _h = 0, _b = 0;						\
	TEST_ASSERT_EQ(qcount((port), (f), 0, &_h, &_b), 0, "query");		\
	TEST_ASSERT_U64_EQ(_h, (h), "hits");					\
	TEST_ASSERT_U64_EQ(_b, (b), "bytes");					\
} while (0)

/* ---- rte_flow_dev_dump state ----------------------------------------------- */

struct dstate {
	unsigned int flows, in_use, free_now, pending;
	char rules[4096];		/* the per-flow lines */
};

static int
dump_state(uint16_t port, struct dstate *st)
{
	struct rte_flow_error err;
	char *buf = NULL, *nl;
	size_t len = 0;
	FILE *f;
	int ret;

	memset(st, 0, sizeof(*st));
	f = open_memstream(&buf, &len);
	if (f == NULL)
		return -1;
	ret = rte_flow_dev_dump(port, NULL, f, &err);
	fclose(f);
	if (ret == 0 && (strstr(buf, " flows") == NULL ||
	    sscanf(strchr(buf, ':') + 2, "%u flows", &st->flows) != 1 ||
	    sscanf(strstr(buf, "counters "), "counters %u in use, %u free, %u pending",
		   &st->in_use, &st->free_now, &st->pending) != 3))
		ret = -1;
	nl = buf != NULL ? strchr(buf, '\n') : NULL;
	if (nl != NULL)
		snprintf(st->rules, sizeof(st->rules), "%s", nl + 1);
	free(buf);
	return ret;
}

/* Same flows, same counters taken (a counter a failed create borrowed may
 * sit in deferred reuse: free + pending is what must not change). */
static int
same_state(const struct dstate *a, const struct dstate *b)
{
	return a->flows == b->flows && a->in_use == b->in_use &&
	       a->free_now + a->pending == b->free_now + b->pending &&
	       strcmp(a->rules, b->rules) == 0;
}

/* ---- error causes ------------------------------------------------------------ */

enum cause_kind { C_NONE, C_ATTR, C_ITEM, C_ITEM_LAST, C_ACTION };

struct err_case {
	const char *name;
	struct rte_flow_attr attr;
	const struct rte_flow_item *pattern;
	const struct rte_flow_action *actions;
	int err;
	enum rte_flow_error_type type;
	enum cause_kind ck;
	int cidx;			/* index of the item / action */
};

static const struct rte_flow_item_ipv4 ip5 = { .hdr.src_addr = SRC(5) };
static const struct rte_flow_item_ipv4 ip6 = { .hdr.src_addr = SRC(6) };
static const struct rte_flow_item_ipv4 ip_id_mask = {
	.hdr.packet_id = RTE_BE16(0xffff),
};

#define I_ETH		{ .type = RTE_FLOW_ITEM_TYPE_ETH }
#define I_IPV4		{ .type = RTE_FLOW_ITEM_TYPE_IPV4 }
#define I_UDP		{ .type = RTE_FLOW_ITEM_TYPE_UDP }
#define I_END		{ .type = RTE_FLOW_ITEM_TYPE_END }
#define PAT(...)	((const struct rte_flow_item[]){ __VA_ARGS__, I_END })

static const struct rte_flow_item pat_ok[] = {
	I_ETH,
	{ .type = RTE_FLOW_ITEM_TYPE_IPV4, .spec = &ip5, .mask = &ipv4_src_mask },
	I_UDP,
	I_END,
};

static const uint16_t q01[] = { 0, 1 };
static const uint16_t q05[] = { 0, 5 };
static const uint8_t bad_key[40] = { 1, 2, 3 };
static const struct rte_flow_action_rss rss_ok = {
	.types = RTE_ETH_RSS_IP, .queue_num = 2, .queue = q01,
};
static const int not_a_handle = 42;

#define RSS(...)	{ .type = RTE_FLOW_ACTION_TYPE_RSS,			\
			  .conf = &(const struct rte_flow_action_rss){ __VA_ARGS__ } }

static const struct err_case err_cases[] = {
	{ "unsupported item", { .ingress = 1 },
	  PAT(I_ETH, { .type = RTE_FLOW_ITEM_TYPE_GRE }), ACTS(A_DROP),
	  ENOTSUP, RTE_FLOW_ERROR_TYPE_ITEM, C_ITEM, 1 },
	{ "mask on unsupported field", { .ingress = 1 },
	  PAT(I_ETH, { .type = RTE_FLOW_ITEM_TYPE_IPV4, .spec = &ip5,
		       .mask = &ip_id_mask }), ACTS(A_DROP),
	  ENOTSUP, RTE_FLOW_ERROR_TYPE_ITEM_MASK, C_ITEM, 1 },
	{ "item out of order", { .ingress = 1 },
	  PAT(I_ETH, I_UDP, I_IPV4), ACTS(A_DROP),
	  EINVAL, RTE_FLOW_ERROR_TYPE_ITEM, C_ITEM, 2 },
	{ "range (last)", { .ingress = 1 },
	  PAT(I_ETH, { .type = RTE_FLOW_ITEM_TYPE_IPV4, .spec = &ip5,
		       .last = &ip6, .mask = &ipv4_src_mask }), ACTS(A_DROP),
	  ENOTSUP, RTE_FLOW_ERROR_TYPE_ITEM_LAST, C_ITEM_LAST, 1 },
	{ "egress", { .egress = 1 }, pat_ok, ACTS(A_DROP),
	  ENOTSUP, RTE_FLOW_ERROR_TYPE_ATTR_EGRESS, C_ATTR, 0 },
	{ "transfer to a queue", { .transfer = 1 }, pat_ok, ACTS(A_QUEUE(0)),
	  ENOTSUP, RTE_FLOW_ERROR_TYPE_ACTION, C_ACTION, 0 },
	{ "no ingress", { .group = 0 }, pat_ok, ACTS(A_DROP),
	  EINVAL, RTE_FLOW_ERROR_TYPE_ATTR_INGRESS, C_ATTR, 0 },
	{ "group out of range", { .group = 4096, .ingress = 1 }, pat_ok, ACTS(A_DROP),
	  ENOTSUP, RTE_FLOW_ERROR_TYPE_ATTR_GROUP, C_ATTR, 0 },
	{ "priority out of range", { .priority = 0x10000, .ingress = 1 }, pat_ok,
	  ACTS(A_DROP), ENOTSUP, RTE_FLOW_ERROR_TYPE_ATTR_PRIORITY, C_ATTR, 0 },
	{ "unsupported action", { .ingress = 1 }, pat_ok,
	  ACTS(A_COUNT, { .type = RTE_FLOW_ACTION_TYPE_DEC_TTL }, A_QUEUE(0)),
	  ENOTSUP, RTE_FLOW_ERROR_TYPE_ACTION, C_ACTION, 1 },
	{ "two fates", { .ingress = 1 }, pat_ok, ACTS(A_QUEUE(0), A_DROP),
	  ENOTSUP, RTE_FLOW_ERROR_TYPE_ACTION, C_ACTION, 1 },
	{ "mark and flag", { .ingress = 1 }, pat_ok,
	  ACTS(A_MARK(1), A_FLAG, A_QUEUE(0)),
	  ENOTSUP, RTE_FLOW_ERROR_TYPE_ACTION, C_ACTION, 1 },
	{ "drop and mark", { .ingress = 1 }, pat_ok, ACTS(A_DROP, A_MARK(1)),
	  ENOTSUP, RTE_FLOW_ERROR_TYPE_ACTION, C_ACTION, 0 },
	{ "queue out of range", { .ingress = 1 }, pat_ok, ACTS(A_QUEUE(2)),
	  EINVAL, RTE_FLOW_ERROR_TYPE_ACTION_CONF, C_ACTION, 0 },
	{ "rss queue out of range", { .ingress = 1 }, pat_ok,
	  ACTS(RSS(.types = RTE_ETH_RSS_IP, .queue_num = 2, .queue = q05)),
	  EINVAL, RTE_FLOW_ERROR_TYPE_ACTION_CONF, C_ACTION, 0 },
	{ "rss no queues", { .ingress = 1 }, pat_ok,
	  ACTS(A_COUNT, RSS(.types = RTE_ETH_RSS_IP, .queue_num = 0, .queue = q01)),
	  ENOTSUP, RTE_FLOW_ERROR_TYPE_ACTION_CONF, C_ACTION, 1 },
	{ "rss types", { .ingress = 1 }, pat_ok,
	  ACTS(RSS(.types = RTE_ETH_RSS_L2_PAYLOAD, .queue_num = 2, .queue = q01)),
	  ENOTSUP, RTE_FLOW_ERROR_TYPE_ACTION_CONF, C_ACTION, 0 },
	{ "rss key", { .ingress = 1 }, pat_ok,
	  ACTS(RSS(.types = RTE_ETH_RSS_IP, .key_len = 40, .key = bad_key,
		   .queue_num = 2, .queue = q01)),
	  ENOTSUP, RTE_FLOW_ERROR_TYPE_ACTION_CONF, C_ACTION, 0 },
	{ "rss key length", { .ingress = 1 }, pat_ok,
	  ACTS(RSS(.types = RTE_ETH_RSS_IP, .key_len = 16, .key = bad_key,
		   .queue_num = 2, .queue = q01)),
	  ENOTSUP, RTE_FLOW_ERROR_TYPE_ACTION_CONF, C_ACTION, 0 },
	{ "rss level", { .ingress = 1 }, pat_ok,
	  ACTS(RSS(.types = RTE_ETH_RSS_IP, .level = 2, .queue_num = 2, .queue = q01)),
	  ENOTSUP, RTE_FLOW_ERROR_TYPE_ACTION_CONF, C_ACTION, 0 },
	{ "rss function", { .ingress = 1 }, pat_ok,
	  ACTS(RSS(.func = RTE_ETH_HASH_FUNCTION_SIMPLE_XOR, .types = RTE_ETH_RSS_IP,
		   .queue_num = 2, .queue = q01)),
	  ENOTSUP, RTE_FLOW_ERROR_TYPE_ACTION_CONF, C_ACTION, 0 },
	{ "jump to own group", { .group = 3, .ingress = 1 }, pat_ok,
	  ACTS(A_COUNT, A_JUMP(3)),
	  EINVAL, RTE_FLOW_ERROR_TYPE_ACTION, C_ACTION, 1 },
	{ "missing indirect handle", { .ingress = 1 }, pat_ok,
	  ACTS(A_INDIRECT(&not_a_handle), A_QUEUE(0)),
	  EINVAL, RTE_FLOW_ERROR_TYPE_ACTION_CONF, C_ACTION, 0 },
	{ "indirect without handle", { .ingress = 1 }, pat_ok,
	  ACTS(A_INDIRECT(NULL), A_QUEUE(0)),
	  EINVAL, RTE_FLOW_ERROR_TYPE_ACTION_CONF, C_ACTION, 0 },
	{ "two counts", { .ingress = 1 }, pat_ok, ACTS(A_COUNT, A_COUNT, A_QUEUE(0)),
	  ENOTSUP, RTE_FLOW_ERROR_TYPE_ACTION, C_ACTION, 1 },
};

static const void *
expected_cause(const struct err_case *c, const struct rte_flow_attr *attr)
{
	switch (c->ck) {
	case C_ATTR:
		return attr;
	case C_ITEM:
		return &c->pattern[c->cidx];
	case C_ITEM_LAST:
		return c->pattern[c->cidx].last;
	case C_ACTION:
		return &c->actions[c->cidx];
	case C_NONE:
	default:
		return NULL;
	}
}

/* Check a failed call: return value, rte_errno, error type and cause. */
static int
check_error(const char *op, const char *name, int ret, int err,
	    enum rte_flow_error_type type, const void *cause,
	    const struct rte_flow_error *e)
{
	if (ret != -err || rte_errno != err || e->type != type ||
	    e->cause != cause || (cause == NULL && type != RTE_FLOW_ERROR_TYPE_ITEM_NUM) ||
	    e->message == NULL) {
		fprintf(stderr, "  FAIL %s %s: ret %d rte_errno %d type %d cause %p "
			"(want %d %d %p) msg %s\n", op, name, ret, rte_errno,
			e->type, e->cause, -err, type, cause,
			e->message ? e->message : "(null)");
		return TEST_FAILED;
	}
	return TEST_SUCCESS;
}

/* Validate and create must both fail in the same way. */
static int
expect_fail(uint16_t port, const char *name, const struct rte_flow_attr *attr,
	    const struct rte_flow_item *pattern,
	    const struct rte_flow_action *actions, int err,
	    enum rte_flow_error_type type, const void *cause, bool validate)
{
	struct rte_flow_error e;
	struct dstate before, after;
	struct rte_flow *f;
	int ret;

	TEST_ASSERT_EQ(dump_state(port, &before), 0, "dump");
	if (validate) {
		memset(&e, 0, sizeof(e));
		rte_errno = 0;
		ret = rte_flow_validate(port, attr, pattern, actions, &e);
		if (check_error("validate", name, ret, err, type, cause, &e))
			return TEST_FAILED;
	}
	memset(&e, 0, sizeof(e));
	rte_errno = 0;
	f = rte_flow_create(port, attr, pattern, actions, &e);
	TEST_ASSERT(f == NULL, "%s: created", name);
	if (check_error("create", name, -rte_errno, err, type, cause, &e))
		return TEST_FAILED;
	TEST_ASSERT_EQ(dump_state(port, &after), 0, "dump");
	TEST_ASSERT(same_state(&before, &after),
		    "%s: state changed: flows %u->%u in use %u->%u", name,
		    before.flows, after.flows, before.in_use, after.in_use);
	return TEST_SUCCESS;
}

static int
test_error_causes(void)
{
	struct rte_flow_error e;
	struct fport fp;
	struct rte_flow *f;
	unsigned int i;
	int rc = TEST_FAILED;

	TEST_ASSERT_EQ(fp_open(&fp, "", 2), 0, "");
	for (i = 0; i < RTE_DIM(err_cases); i++) {
		const struct err_case *c = &err_cases[i];

		if (expect_fail((uint16_t)fp.port, c->name, &c->attr, c->pattern,
				c->actions, c->err, c->type,
				expected_cause(c, &c->attr), true) != TEST_SUCCESS)
			goto out;
	}
	/* NULL pattern and action list */
	if (expect_fail((uint16_t)fp.port, "NULL pattern", &attr_in, NULL,
			ACTS(A_DROP), EINVAL, RTE_FLOW_ERROR_TYPE_ITEM_NUM, NULL,
			true) != TEST_SUCCESS)
		goto out;
	/* nothing was left behind: the valid forms go in */
	TEST_ASSERT_EQ(rte_flow_validate((uint16_t)fp.port, &attr_in, pat_ok,
					 ACTS(A_COUNT, RSS(.queue_num = 2, .queue = q01)),
					 &e), 0, "default rss types: %s", e.message);
	f = rte_flow_create((uint16_t)fp.port, &attr_in, pat_ok,
			    ACTS(A_COUNT, A_MARK(1), { .type = RTE_FLOW_ACTION_TYPE_RSS,
						       .conf = &rss_ok }), &e);
	TEST_ASSERT(f != NULL, "valid rule: %s", e.message);
	TEST_ASSERT_EQ(rte_flow_destroy((uint16_t)fp.port, f, &e), 0, "");
	rc = TEST_SUCCESS;
out:
	fp_close(&fp);
	return rc;
}

/* A->B then B->A: refused at create with ELOOP, the action as cause. */
static int
test_jump_loop(void)
{
	const struct rte_flow_attr ga = { .group = 1, .ingress = 1 };
	const struct rte_flow_attr gb = { .group = 2, .ingress = 1 };
	const struct rte_flow_action *back = ACTS(A_COUNT, A_JUMP(1));
	struct rte_flow_error e;
	struct rte_flow *ab, *f;
	struct fport fp;
	int rc = TEST_FAILED;

	TEST_ASSERT_EQ(fp_open(&fp, "", 2), 0, "");
	ab = rte_flow_create((uint16_t)fp.port, &ga, pat_ok, ACTS(A_JUMP(2)), &e);
	TEST_ASSERT(ab != NULL, "%s", e.message);
	if (expect_fail((uint16_t)fp.port, "jump loop", &gb, pat_ok, back, ELOOP,
			RTE_FLOW_ERROR_TYPE_ACTION, &back[1], false) != TEST_SUCCESS)
		goto out;
	/* a three-group loop too */
	f = rte_flow_create((uint16_t)fp.port, &gb, pat_ok, ACTS(A_JUMP(3)), &e);
	TEST_ASSERT(f != NULL, "%s", e.message);
	if (expect_fail((uint16_t)fp.port, "jump loop 3",
			&(const struct rte_flow_attr){ .group = 3, .ingress = 1 },
			pat_ok, back, ELOOP, RTE_FLOW_ERROR_TYPE_ACTION, &back[1],
			false) != TEST_SUCCESS)
		goto out;
	/* once A->B is gone, B->A is fine */
	TEST_ASSERT_EQ(rte_flow_destroy((uint16_t)fp.port, ab, &e), 0, "");
	f = rte_flow_create((uint16_t)fp.port, &gb,
			    PAT(I_ETH, I_IPV4, { .type = RTE_FLOW_ITEM_TYPE_TCP }),
			    back, &e);
	TEST_ASSERT(f != NULL, "%s", e.message);
	rc = TEST_SUCCESS;
out:
	fp_close(&fp);
	return rc;
}

static int
test_duplicate(void)
{
	struct rte_flow_error e;
	struct rte_flow *f, *g;
	struct fport fp;
	int rc = TEST_FAILED;

	TEST_ASSERT_EQ(fp_open(&fp, "", 2), 0, "");
	f = rte_flow_create((uint16_t)fp.port, &attr_in, pat_ok,
			    ACTS(A_COUNT, A_QUEUE(0)), &e);
	TEST_ASSERT(f != NULL, "%s", e.message);
	/* same match, other actions: still a duplicate */
	if (expect_fail((uint16_t)fp.port, "duplicate", &attr_in, pat_ok,
			ACTS(A_COUNT, A_QUEUE(1)), EEXIST, RTE_FLOW_ERROR_TYPE_ITEM,
			pat_ok, false) != TEST_SUCCESS)
		goto out;
	/* another priority is another matcher: allowed */
	g = rte_flow_create((uint16_t)fp.port,
			    &(const struct rte_flow_attr){ .priority = 1, .ingress = 1 },
			    pat_ok, ACTS(A_QUEUE(1)), &e);
	TEST_ASSERT(g != NULL, "%s", e.message);
	TEST_ASSERT_EQ(rte_flow_destroy((uint16_t)fp.port, f, &e), 0, "");
	f = rte_flow_create((uint16_t)fp.port, &attr_in, pat_ok,
			    ACTS(A_COUNT, A_QUEUE(1)), &e);
	TEST_ASSERT(f != NULL, "after destroy: %s", e.message);
	rc = TEST_SUCCESS;
out:
	fp_close(&fp);
	return rc;
}

static int
test_counter_exhausted(void)
{
	const struct rte_flow_action *acts = ACTS(A_COUNT, A_QUEUE(0));
	struct rte_flow_action_handle *h;
	struct rte_flow_error e;
	struct rte_flow *f[5];
	struct fport fp;
	struct pat p;
	int i, rc = TEST_FAILED;

	TEST_ASSERT_EQ(fp_open(&fp, "counters=4", 2), 0, "");
	for (i = 0; i < 4; i++) {
		f[i] = rule((uint16_t)fp.port, 0, 0, i + 1, acts);
		TEST_ASSERT(f[i] != NULL, "rule %d", i);
	}
	if (expect_fail((uint16_t)fp.port, "counter bank exhausted", &attr_in,
			pat_src(&p, 5), acts, ENOSPC, RTE_FLOW_ERROR_TYPE_ACTION,
			&acts[0], true) != TEST_SUCCESS)
		goto out;
	/* an indirect COUNT needs a counter too */
	h = rte_flow_action_handle_create((uint16_t)fp.port,
		&(const struct rte_flow_indir_action_conf){ .ingress = 1 },
		&count_action, &e);
	TEST_ASSERT(h == NULL && rte_errno == ENOSPC, "handle: %d", rte_errno);
	/* rules without COUNT still go in */
	f[4] = rule((uint16_t)fp.port, 0, 0, 6, ACTS(A_QUEUE(1)));
	TEST_ASSERT(f[4] != NULL, "");
	/* free one; its counter comes back after a fence */
	TEST_ASSERT_EQ(rte_flow_destroy((uint16_t)fp.port, f[1], &e), 0, "");
	TEST_ASSERT_EQ(rte_flow_validate((uint16_t)fp.port, &attr_in,
					 pat_src(&p, 5), acts, &e), 0, "%s", e.message);
	f[1] = rule((uint16_t)fp.port, 0, 0, 5, acts);
	TEST_ASSERT(f[1] != NULL, "retry");
	/* it reads zero although its index counted before */
	ASSERT_COUNT((uint16_t)fp.port, f[1], 0, 0);
	rs_init(&rs);
	TEST_ASSERT_EQ(xfer(&fp, 5, LEN_A, 2, &rs), 2, "");
	rs_free(&rs);
	ASSERT_COUNT((uint16_t)fp.port, f[1], 2, 2 * LEN_A);
	rc = TEST_SUCCESS;
out:
	fp_close(&fp);
	return rc;
}

/* ---- COUNT semantics ---------------------------------------------------------- */

static int
test_count_exact(void)
{
	struct rte_flow_query_count qc;
	struct rte_flow_error e;
	struct rte_flow *f, *g, *nc;
	struct fport fp;
	uint64_t h = 0, b = 0;
	int rc = TEST_FAILED;

	TEST_ASSERT_EQ(fp_open(&fp, "", 2), 0, "");
	rs_init(&rs);
	/* COUNT with conf NULL, COUNT with an id, and a rule without COUNT */
	f = rule((uint16_t)fp.port, 0, 0, 5, ACTS(A_COUNT, A_QUEUE(1)));
	g = rule((uint16_t)fp.port, 0, 0, 6,
		 ACTS({ .type = RTE_FLOW_ACTION_TYPE_COUNT,
			.conf = &(const struct rte_flow_action_count){ .id = 7 } },
		      A_QUEUE(1)));
	nc = rule((uint16_t)fp.port, 0, 0, 7, ACTS(A_QUEUE(1)));
	TEST_ASSERT(f != NULL && g != NULL && nc != NULL, "");
	ASSERT_COUNT((uint16_t)fp.port, f, 0, 0);
	TEST_ASSERT_EQ(xfer(&fp, 5, LEN_A, 3, &rs), 3, "");
	TEST_ASSERT_EQ(xfer(&fp, 6, LEN_B, 4, &rs), 4, "");
	TEST_ASSERT_EQ(xfer(&fp, 7, LEN_B, 2, &rs), 2, "");
	TEST_ASSERT_EQ(xfer(&fp, 8, LEN_B, 5, &rs), 5, "");	/* no rule */
	TEST_ASSERT_EQ(rs.per_q[1], 9, "steered");
	TEST_ASSERT_EQ(rs.per_q[0], 5, "default");
	rs_free(&rs);
	/* hits and bytes exact: L2 length without FCS */
	ASSERT_COUNT((uint16_t)fp.port, f, 3, 3 * LEN_A);
	ASSERT_COUNT((uint16_t)fp.port, g, 4, 4 * LEN_B);
	/* reset=1 returns the values, then zero */
	TEST_ASSERT_EQ(qcount((uint16_t)fp.port, f, 1, &h, &b), 0, "");
	TEST_ASSERT_U64_EQ(h, 3, "");
	TEST_ASSERT_U64_EQ(b, 3 * LEN_A, "");
	ASSERT_COUNT((uint16_t)fp.port, f, 0, 0);
	TEST_ASSERT_EQ(xfer(&fp, 5, 64, 1, &rs), 1, "");
	rs_free(&rs);
	ASSERT_COUNT((uint16_t)fp.port, f, 1, 64);
	/* the other counter is untouched by f's reset */
	ASSERT_COUNT((uint16_t)fp.port, g, 4, 4 * LEN_B);
	/* querying a flow without COUNT fails cleanly, output untouched */
	memset(&qc, 0, sizeof(qc));
	qc.hits = 12345;
	memset(&e, 0, sizeof(e));
	TEST_ASSERT_EQ(rte_flow_query((uint16_t)fp.port, nc, &count_action, &qc, &e),
		       -EINVAL, "");
	TEST_ASSERT_EQ(rte_errno, EINVAL, "");
	TEST_ASSERT_EQ(e.type, RTE_FLOW_ERROR_TYPE_ACTION, "");
	TEST_ASSERT(e.cause == &count_action, "cause %p", e.cause);
	TEST_ASSERT(qc.hits == 12345 && !qc.hits_set && !qc.bytes_set, "");
	/* an action other than COUNT is not queryable */
	TEST_ASSERT_EQ(rte_flow_query((uint16_t)fp.port, f,
				      &(const struct rte_flow_action)A_DROP, &qc, &e),
		       -ENOTSUP, "");
	TEST_ASSERT_EQ(e.type, RTE_FLOW_ERROR_TYPE_ACTION, "");
	rc = TEST_SUCCESS;
	fp_close(&fp);
	return rc;
}

static int
test_indirect_count(void)
{
	const struct rte_flow_indir_action_conf ic = { .ingress = 1 };
	struct rte_flow_query_count qc = { 0 };
	struct rte_flow_action_handle *h;
	struct rte_flow_error e;
	struct rte_flow *a, *b;
	struct fport fp;

	TEST_ASSERT_EQ(fp_open(&fp, "", 2), 0, "");
	rs_init(&rs);
	h = rte_flow_action_handle_create((uint16_t)fp.port, &ic, &count_action, &e);
	TEST_ASSERT(h != NULL, "%s", e.message);
	a = rule((uint16_t)fp.port, 0, 0, 5, ACTS(A_INDIRECT(h), A_QUEUE(1)));
	b = rule((uint16_t)fp.port, 0, 0, 6, ACTS(A_INDIRECT(h), A_DROP));
	TEST_ASSERT(a != NULL && b != NULL, "");
	TEST_ASSERT_EQ(xfer(&fp, 5, LEN_A, 3, &rs), 3, "");
	TEST_ASSERT_EQ(xfer(&fp, 6, LEN_B, 4, &rs), 0, "dropped");
	TEST_ASSERT_EQ(xfer(&fp, 9, LEN_B, 1, &rs), 1, "");
	rs_free(&rs);
	TEST_ASSERT_EQ(rte_flow_action_handle_query((uint16_t)fp.port, h, &qc, &e), 0, "");
	TEST_ASSERT(qc.hits_set && qc.bytes_set, "");
	TEST_ASSERT_U64_EQ(qc.hits, 7, "sum of both rules");
	TEST_ASSERT_U64_EQ(qc.bytes, 3 * LEN_A + 4 * LEN_B, "");
	/* a rule naming the handle reads the shared counter */
	ASSERT_COUNT((uint16_t)fp.port, a, 7, 3 * LEN_A + 4 * LEN_B);
	/* reset through the handle */
	qc.reset = 1;
	TEST_ASSERT_EQ(rte_flow_action_handle_query((uint16_t)fp.port, h, &qc, &e), 0, "");
	TEST_ASSERT_U64_EQ(qc.hits, 7, "");
	memset(&qc, 0, sizeof(qc));
	TEST_ASSERT_EQ(rte_flow_action_handle_query((uint16_t)fp.port, h, &qc, &e), 0, "");
	TEST_ASSERT_U64_EQ(qc.hits + qc.bytes, 0, "");
	/* busy while rules use it */
	TEST_ASSERT_EQ(rte_flow_action_handle_destroy((uint16_t)fp.port, h, &e), -EBUSY, "");
	TEST_ASSERT_EQ(rte_errno, EBUSY, "");
	TEST_ASSERT_EQ(e.type, RTE_FLOW_ERROR_TYPE_HANDLE, "");
	TEST_ASSERT(e.cause == h, "");
	TEST_ASSERT_EQ(rte_flow_destroy((uint16_t)fp.port, a, &e), 0, "");
	TEST_ASSERT_EQ(rte_flow_action_handle_destroy((uint16_t)fp.port, h, &e), -EBUSY, "");
	TEST_ASSERT_EQ(rte_flow_destroy((uint16_t)fp.port, b, &e), 0, "");
	TEST_ASSERT_EQ(rte_flow_action_handle_destroy((uint16_t)fp.port, h, &e), 0,
		       "%s", e.message);
	/* the handle is gone: using it in a rule fails */
	TEST_ASSERT_EQ(rte_flow_validate((uint16_t)fp.port, &attr_in, pat_ok,
					 ACTS(A_INDIRECT(h), A_QUEUE(0)), &e), -EINVAL, "");
	/* update has nothing to update for COUNT */
	h = rte_flow_action_handle_create((uint16_t)fp.port, &ic, &count_action, &e);
	TEST_ASSERT(h != NULL, "");
	TEST_ASSERT_EQ(rte_flow_action_handle_update((uint16_t)fp.port, h, &qc, &e),
		       -ENOTSUP, "");
	TEST_ASSERT_EQ(rte_flow_action_handle_destroy((uint16_t)fp.port, h, &e), 0, "");
	/* only COUNT can be indirect */
	TEST_ASSERT(rte_flow_action_handle_create((uint16_t)fp.port, &ic,
		&(const struct rte_flow_action)A_DROP, &e) == NULL, "");
	TEST_ASSERT_EQ(rte_errno, ENOTSUP, "");
	fp_close(&fp);
	return TEST_SUCCESS;
}

/* ---- steering ------------------------------------------------------------------- */

static int
test_mark_flag(void)
{
	struct rte_flow *f, *g;
	struct fport fp;
	unsigned int i;

	TEST_ASSERT_EQ(fp_open(&fp, "", 2), 0, "");
	rs_init(&rs);
	f = rule((uint16_t)fp.port, 0, 0, 5, ACTS(A_MARK(0xabcdef), A_QUEUE(1)));
	g = rule((uint16_t)fp.port, 0, 0, 6, ACTS(A_FLAG, A_COUNT, A_QUEUE(1)));
	TEST_ASSERT(f != NULL && g != NULL, "");
	TEST_ASSERT_EQ(xfer(&fp, 5, LEN_A, 2, &rs), 2, "");
	TEST_ASSERT_EQ(xfer(&fp, 6, LEN_A, 2, &rs), 2, "");
	TEST_ASSERT_EQ(xfer(&fp, 7, LEN_A, 2, &rs), 2, "");
	for (i = 0; i < rs.n; i++) {
		const struct rte_mbuf *m = rs.m[i];
		uint64_t fl = m->ol_flags & (RTE_MBUF_F_RX_FDIR | RTE_MBUF_F_RX_FDIR_ID);

		if (i < 2) {
			TEST_ASSERT(fl == (RTE_MBUF_F_RX_FDIR | RTE_MBUF_F_RX_FDIR_ID),
				    "mark flags 0x%" PRIx64, fl);
			TEST_ASSERT_EQ(m->hash.fdir.hi, 0xabcdef, "");
			TEST_ASSERT_EQ(rs.q[i], 1, "");
		} else if (i < 4) {
			TEST_ASSERT(fl == RTE_MBUF_F_RX_FDIR, "flag flags 0x%" PRIx64, fl);
			TEST_ASSERT_EQ(rs.q[i], 1, "");
		} else {
			TEST_ASSERT(fl == 0, "no rule, flags 0x%" PRIx64, fl);
			TEST_ASSERT_EQ(rs.q[i], 0, "");
		}
	}
	rs_free(&rs);
	ASSERT_COUNT((uint16_t)fp.port, g, 2, 2 * LEN_A);
	fp_close(&fp);
	return TEST_SUCCESS;
}

static int
test_queue_rss(void)
{
	struct rte_flow *f, *g;
	struct fport fp;
	struct pat p;
	struct rte_flow_error e;
	unsigned int i;
	static const uint16_t q23[] = { 2, 3 };

	TEST_ASSERT_EQ(fp_open(&fp, "", 4), 0, "");
	rs_init(&rs);
	f = rule((uint16_t)fp.port, 0, 0, 5, ACTS(A_QUEUE(3), A_COUNT));
	TEST_ASSERT(f != NULL, "");
	/* every other UDP frame: RSS over queues 2 and 3 */
	pat_src(&p, -1);
	g = rte_flow_create((uint16_t)fp.port,
			    &(const struct rte_flow_attr){ .priority = 1, .ingress = 1 },
			    p.it, ACTS(A_COUNT, RSS(.types = RTE_ETH_RSS_NONFRAG_IPV4_UDP,
						    .queue_num = 2, .queue = q23)), &e);
	TEST_ASSERT(g != NULL, "%s", e.message);
	TEST_ASSERT_EQ(xfer(&fp, 5, LEN_A, 8, &rs), 8, "");
	TEST_ASSERT_EQ(rs.per_q[3], 8, "queue action");
	rs_free(&rs);
	for (i = 0; i < 64; i++)
		TEST_ASSERT_EQ(xfer(&fp, 100 + i, LEN_A, 1, &rs), 1, "");
	TEST_ASSERT_EQ(rs.per_q[0] + rs.per_q[1], 0, "");
	TEST_ASSERT(rs.per_q[2] > 0 && rs.per_q[3] > 0, "rss spread %u/%u",
		    rs.per_q[2], rs.per_q[3]);
	for (i = 0; i < rs.n; i++)
		TEST_ASSERT(rs.m[i]->ol_flags & RTE_MBUF_F_RX_RSS_HASH, "hash");
	rs_free(&rs);
	ASSERT_COUNT((uint16_t)fp.port, f, 8, 8 * LEN_A);
	ASSERT_COUNT((uint16_t)fp.port, g, 64, 64 * LEN_A);
	fp_close(&fp);
	return TEST_SUCCESS;
}

static int
test_drop(void)
{
	struct rte_flow *f;
	struct fport fp;
	uint64_t drops;

	TEST_ASSERT_EQ(fp_open(&fp, "", 1), 0, "");
	rs_init(&rs);
	drops = tdt_xstat((uint16_t)fp.port, "rx_steer_drop");
	f = rule((uint16_t)fp.port, 0, 0, 5, ACTS(A_COUNT, A_DROP));
	TEST_ASSERT(f != NULL, "");
	TEST_ASSERT_EQ(xfer(&fp, 5, LEN_A, 5, &rs), 0, "dropped");
	TEST_ASSERT_EQ(xfer(&fp, 6, LEN_A, 2, &rs), 2, "");
	rs_free(&rs);
	ASSERT_COUNT((uint16_t)fp.port, f, 5, 5 * LEN_A);
	TEST_ASSERT_U64_EQ(tdt_xstat((uint16_t)fp.port, "rx_steer_drop") - drops, 5, "");
	fp_close(&fp);
	return TEST_SUCCESS;
}

static int
test_jump(void)
{
	struct rte_flow *j, *f;
	struct fport fp;
	struct pat p;
	struct rte_flow_error e;

	TEST_ASSERT_EQ(fp_open(&fp, "", 2), 0, "");
	rs_init(&rs);
	/* group 0: every IPv4/UDP frame to group 5, counted */
	pat_src(&p, -1);
	j = rte_flow_create((uint16_t)fp.port, &attr_in, p.it,
			    ACTS(A_COUNT, A_MARK(9), A_JUMP(5)), &e);
	TEST_ASSERT(j != NULL, "%s", e.message);
	f = rule((uint16_t)fp.port, 5, 0, 5, ACTS(A_COUNT, A_QUEUE(1)));
	TEST_ASSERT(f != NULL, "");
	TEST_ASSERT_EQ(xfer(&fp, 5, LEN_A, 3, &rs), 3, "");
	TEST_ASSERT_EQ(xfer(&fp, 6, LEN_B, 2, &rs), 2, "");
	TEST_ASSERT_EQ(rs.per_q[1], 3, "hit in group 5");
	TEST_ASSERT_EQ(rs.per_q[0], 2, "miss in group 5");
	/* the mark set before the jump stays */
	TEST_ASSERT_EQ(rs.m[0]->hash.fdir.hi, 9, "");
	rs_free(&rs);
	ASSERT_COUNT((uint16_t)fp.port, j, 5, 3 * LEN_A + 2 * LEN_B);
	ASSERT_COUNT((uint16_t)fp.port, f, 3, 3 * LEN_A);
	fp_close(&fp);
	return TEST_SUCCESS;
}

static int
test_priority(void)
{
	struct rte_flow *lo, *hi;
	struct fport fp;
	struct pat p;
	struct rte_flow_error e;

	TEST_ASSERT_EQ(fp_open(&fp, "", 4), 0, "");
	rs_init(&rs);
	/* created first, but priority 2: loses */
	lo = rule((uint16_t)fp.port, 0, 2, 5, ACTS(A_COUNT, A_QUEUE(1)));
	TEST_ASSERT(lo != NULL, "");
	pat_src(&p, -1);
	hi = rte_flow_create((uint16_t)fp.port,
			     &(const struct rte_flow_attr){ .priority = 1, .ingress = 1 },
			     p.it, ACTS(A_COUNT, A_QUEUE(2)), &e);
	TEST_ASSERT(hi != NULL, "%s", e.message);
	TEST_ASSERT_EQ(xfer(&fp, 5, LEN_A, 4, &rs), 4, "");
	TEST_ASSERT_EQ(rs.per_q[2], 4, "priority 1 wins");
	rs_free(&rs);
	ASSERT_COUNT((uint16_t)fp.port, lo, 0, 0);
	ASSERT_COUNT((uint16_t)fp.port, hi, 4, 4 * LEN_A);
	TEST_ASSERT_EQ(rte_flow_destroy((uint16_t)fp.port, hi, &e), 0, "");
	TEST_ASSERT_EQ(xfer(&fp, 5, LEN_A, 4, &rs), 4, "");
	TEST_ASSERT_EQ(rs.per_q[1], 4, "now priority 2");
	rs_free(&rs);
	ASSERT_COUNT((uint16_t)fp.port, lo, 4, 4 * LEN_A);
	fp_close(&fp);
	return TEST_SUCCESS;
}

static int
test_passthru(void)
{
	struct rte_flow *pt, *f;
	struct fport fp;
	struct pat p;
	struct rte_flow_error e;

	TEST_ASSERT_EQ(fp_open(&fp, "", 4), 0, "");
	rs_init(&rs);
	pt = rule((uint16_t)fp.port, 0, 0, 5, ACTS(A_COUNT, A_MARK(3), A_PASSTHRU));
	TEST_ASSERT(pt != NULL, "");
	pat_src(&p, -1);
	f = rte_flow_create((uint16_t)fp.port,
			    &(const struct rte_flow_attr){ .priority = 1, .ingress = 1 },
			    p.it, ACTS(A_COUNT, A_QUEUE(3)), &e);
	TEST_ASSERT(f != NULL, "%s", e.message);
	TEST_ASSERT_EQ(xfer(&fp, 5, LEN_A, 3, &rs), 3, "");
	TEST_ASSERT_EQ(xfer(&fp, 6, LEN_B, 2, &rs), 2, "");
	TEST_ASSERT_EQ(rs.per_q[3], 5, "the later rule steers");
	TEST_ASSERT(rs.m[0]->ol_flags & RTE_MBUF_F_RX_FDIR_ID, "passthru mark");
	TEST_ASSERT_EQ(rs.m[0]->hash.fdir.hi, 3, "");
	TEST_ASSERT(!(rs.m[4]->ol_flags & RTE_MBUF_F_RX_FDIR), "");
	rs_free(&rs);
	ASSERT_COUNT((uint16_t)fp.port, pt, 3, 3 * LEN_A);
	ASSERT_COUNT((uint16_t)fp.port, f, 5, 3 * LEN_A + 2 * LEN_B);
	fp_close(&fp);
	return TEST_SUCCESS;
}

/* The device in its own thread (mode=thread): steering, counting and the
 * deferred reuse fences work the same when the device runs concurrently
 * with the driver; rules created and destroyed between bursts. */
static int
test_thread_mode(void)
{
	struct rte_flow *f, *g;
	struct fport fp;
	int i;

	TEST_ASSERT_EQ(fp_open(&fp, "mode=thread", 2), 0, "");
	rs_init(&rs);
	f = rule((uint16_t)fp.port, 0, 0, 5, ACTS(A_COUNT, A_QUEUE(1)));
	TEST_ASSERT(f != NULL, "");
	for (i = 0; i < 8; i++) {
		g = rule((uint16_t)fp.port, 0, 0, 6, ACTS(A_COUNT, A_DROP));
		TEST_ASSERT(g != NULL, "round %d", i);
		TEST_ASSERT_EQ(xfer(&fp, 5, LEN_A, 4, &rs), 4, "round %d", i);
		TEST_ASSERT_EQ(xfer(&fp, 6, LEN_B, 2, &rs), 0, "dropped, round %d", i);
		ASSERT_COUNT((uint16_t)fp.port, g, 2, 2 * LEN_B);
		TEST_ASSERT_EQ(rte_flow_destroy((uint16_t)fp.port, g, NULL), 0, "");
		rs_free(&rs);
	}
	ASSERT_COUNT((uint16_t)fp.port, f, 32, 32 * LEN_A);
	TEST_ASSERT_U64_EQ(tdt_xstat((uint16_t)fp.port, "dev_faults"), 0, "");
	fp_close(&fp);
	return TEST_SUCCESS;
}

static int
test_isolate(void)
{
	struct rte_flow_error e;
	struct rte_flow *f;
	struct fport fp;
	uint64_t drops;

	TEST_ASSERT_EQ(fp_open(&fp, "", 2), 0, "");
	rs_init(&rs);
	TEST_ASSERT_EQ(rte_flow_isolate((uint16_t)fp.port, 1, &e), 0, "%s", e.message);
	drops = tdt_xstat((uint16_t)fp.port, "rx_steer_drop");
	f = rule((uint16_t)fp.port, 0, 0, 5, ACTS(A_COUNT, A_QUEUE(1)));
	TEST_ASSERT(f != NULL, "");
	TEST_ASSERT_EQ(xfer(&fp, 5, LEN_A, 3, &rs), 3, "");
	TEST_ASSERT_EQ(xfer(&fp, 6, LEN_A, 4, &rs), 0, "not named by a rule");
	rs_free(&rs);
	TEST_ASSERT_U64_EQ(tdt_xstat((uint16_t)fp.port, "rx_steer_drop") - drops, 4, "");
	ASSERT_COUNT((uint16_t)fp.port, f, 3, 3 * LEN_A);
	/* leave isolation: default path again */
	TEST_ASSERT_EQ(rte_flow_isolate((uint16_t)fp.port, 0, &e), 0, "");
	TEST_ASSERT_EQ(xfer(&fp, 6, LEN_A, 4, &rs), 4, "");
	rs_free(&rs);
	fp_close(&fp);
	return TEST_SUCCESS;
}

static int
test_stop_start(void)
{
	struct rte_flow *f;
	struct fport fp;

	TEST_ASSERT_EQ(fp_open(&fp, "", 2), 0, "");
	rs_init(&rs);
	f = rule((uint16_t)fp.port, 0, 0, 5, ACTS(A_COUNT, A_MARK(77), A_QUEUE(1)));
	TEST_ASSERT(f != NULL, "");
	TEST_ASSERT_EQ(xfer(&fp, 5, LEN_A, 2, &rs), 2, "");
	rs_free(&rs);
	TEST_ASSERT_EQ(rte_eth_dev_stop((uint16_t)fp.port), 0, "");
	TEST_ASSERT_EQ(rte_eth_dev_start((uint16_t)fp.port), 0, "");
	TEST_ASSERT_EQ(xfer(&fp, 5, LEN_A, 3, &rs), 3, "");
	TEST_ASSERT_EQ(rs.per_q[1], 3, "rule kept");
	TEST_ASSERT_EQ(rs.m[0]->hash.fdir.hi, 77, "");
	rs_free(&rs);
	ASSERT_COUNT((uint16_t)fp.port, f, 5, 5 * LEN_A);
	fp_close(&fp);
	return TEST_SUCCESS;
}

static int
test_flush(void)
{
	struct rte_flow_error e;
	struct dstate st;
	struct rte_flow *f;
	struct fport fp;
	int i;

	TEST_ASSERT_EQ(fp_open(&fp, "", 2), 0, "");
	rs_init(&rs);
	for (i = 0; i < 3; i++)
		TEST_ASSERT(rule((uint16_t)fp.port, 0, 0, 5 + i,
				 ACTS(A_COUNT, A_QUEUE(1))) != NULL, "");
	TEST_ASSERT(rule((uint16_t)fp.port, 0, 0, 20, ACTS(A_DROP)) != NULL, "");
	TEST_ASSERT_EQ(dump_state((uint16_t)fp.port, &st), 0, "");
	TEST_ASSERT_EQ(st.flows, 4, "");
	TEST_ASSERT_EQ(st.in_use, 3, "");
	TEST_ASSERT_U64_EQ(tdt_xstat((uint16_t)fp.port, "flow_counters_in_use"), 3, "");
	TEST_ASSERT_EQ(rte_flow_flush((uint16_t)fp.port, &e), 0, "");
	TEST_ASSERT_U64_EQ(tdt_xstat((uint16_t)fp.port, "flow_counters_in_use"), 0, "");
	TEST_ASSERT_EQ(dump_state((uint16_t)fp.port, &st), 0, "");
	TEST_ASSERT_EQ(st.flows, 0, "");
	TEST_ASSERT_EQ(st.in_use, 0, "");
	TEST_ASSERT_EQ(st.rules[0], '\0', "%s", st.rules);
	TEST_ASSERT_EQ(xfer(&fp, 5, LEN_A, 2, &rs), 2, "");
	TEST_ASSERT_EQ(xfer(&fp, 20, LEN_A, 2, &rs), 2, "no longer dropped");
	TEST_ASSERT_EQ(rs.per_q[0], 4, "default path");
	rs_free(&rs);
	/* the same rules go in again */
	f = rule((uint16_t)fp.port, 0, 0, 5, ACTS(A_COUNT, A_QUEUE(1)));
	TEST_ASSERT(f != NULL, "");
	ASSERT_COUNT((uint16_t)fp.port, f, 0, 0);
	fp_close(&fp);
	return TEST_SUCCESS;
}

/* A destroyed flow, a second destroy and another port's flow are refused with
 * EINVAL on the handle, and leave the port's rules alone. */
static int
test_stale_handles(void)
{
	struct rte_flow_query_count qc = { .reset = 0 };
	struct rte_flow_error e;
	struct rte_flow *f, *keep, *other;
	struct fport fp, fp2;
	struct dstate st;

	TEST_ASSERT_EQ(fp_open(&fp, "", 2), 0, "");
	TEST_ASSERT_EQ(fp_open(&fp2, "", 2), 0, "");
	keep = rule((uint16_t)fp.port, 0, 0, 5, ACTS(A_COUNT, A_QUEUE(1)));
	f = rule((uint16_t)fp.port, 0, 0, 6, ACTS(A_COUNT, A_QUEUE(1)));
	other = rule((uint16_t)fp2.port, 0, 0, 7, ACTS(A_COUNT, A_QUEUE(1)));
	TEST_ASSERT(keep != NULL && f != NULL && other != NULL, "");
	TEST_ASSERT_EQ(rte_flow_destroy((uint16_t)fp.port, f, &e), 0, "");

	memset(&e, 0, sizeof(e));
	TEST_ASSERT_EQ(rte_flow_destroy((uint16_t)fp.port, f, &e), -EINVAL, "double destroy");
	TEST_ASSERT_EQ(e.type, RTE_FLOW_ERROR_TYPE_HANDLE, "");
	TEST_ASSERT(e.cause == f, "cause is the handle");
	memset(&e, 0, sizeof(e));
	TEST_ASSERT_EQ(rte_flow_query((uint16_t)fp.port, f, &count_action, &qc, &e),
		       -EINVAL, "query after destroy");
	TEST_ASSERT_EQ(e.type, RTE_FLOW_ERROR_TYPE_HANDLE, "");
	memset(&e, 0, sizeof(e));
	TEST_ASSERT_EQ(rte_flow_destroy((uint16_t)fp.port, other, &e), -EINVAL,
		       "another port's flow");
	TEST_ASSERT_EQ(rte_flow_query((uint16_t)fp.port, other, &count_action, &qc, &e),
		       -EINVAL, "");
	TEST_ASSERT_EQ(rte_flow_dev_dump((uint16_t)fp.port, f, stderr, &e), -EINVAL, "");

	/* both ports still hold exactly their live rules, which still count */
	TEST_ASSERT_EQ(dump_state((uint16_t)fp.port, &st), 0, "");
	TEST_ASSERT_EQ(st.flows, 1, "");
	TEST_ASSERT_EQ(dump_state((uint16_t)fp2.port, &st), 0, "");
	TEST_ASSERT_EQ(st.flows, 1, "");
	rs_init(&rs);
	TEST_ASSERT_EQ(xfer(&fp, 5, LEN_A, 3, &rs), 3, "");
	rs_free(&rs);
	ASSERT_COUNT((uint16_t)fp.port, keep, 3, 3 * LEN_A);
	TEST_ASSERT_EQ(rte_flow_destroy((uint16_t)fp2.port, other, &e), 0, "");
	fp_close(&fp2);
	fp_close(&fp);
	return TEST_SUCCESS;
}

/* ---- concurrency ------------------------------------------------------------------ */

#define MT_FRAMES	40000u
#define MT_CHURN	64

struct mt_ctx {
	uint16_t port;
	struct rte_flow *live;
	struct rte_flow *reset;		/* queried with reset=1, summed */
	uint64_t reset_hits;
	uint64_t reset_bytes;
	atomic_bool stop;
	atomic_uint failures;
	uint64_t churn_loops;
	uint64_t queries;
};

static void *
mt_churn(void *arg)
{
	struct mt_ctx *c = arg;
	struct rte_flow *f[MT_CHURN];
	uint64_t h = 0, b = 0;
	unsigned int k;

	while (!atomic_load(&c->stop)) {
		for (k = 0; k < MT_CHURN; k++) {
			/* frames 256 + k are in the traffic; priority 1 */
			f[k] = rule(c->port, 0, 1, (int)(256 + k),
				    ACTS(A_COUNT, A_QUEUE(k & 1)));
			if (f[k] == NULL)
				atomic_fetch_add(&c->failures, 1);
		}
		for (k = 0; k < MT_CHURN; k++) {
			if (f[k] == NULL)
				continue;
			if (qcount(c->port, f[k], k & 1, &h, &b) != 0)
				atomic_fetch_add(&c->failures, 1);
			if (rte_flow_destroy(c->port, f[k], NULL) != 0)
				atomic_fetch_add(&c->failures, 1);
		}
		c->churn_loops++;
	}
	return NULL;
}

static void *
mt_query(void *arg)
{
	struct mt_ctx *c = arg;
	uint64_t h = 0, b = 0, last_h = 0, last_b = 0;

	while (!atomic_load(&c->stop)) {
		/* tally_cnt_read() contract: never decreasing, and bytes may lag
		 * packets by the frame the device is adding at that instant (it
		 * adds packets, then bytes; it is one writer) - never more. */
		if (qcount(c->port, c->live, 0, &h, &b) != 0 || h < last_h ||
		    b < last_b || b % LEN_A != 0 || b > h * LEN_A ||
		    h * LEN_A - b > LEN_A)
			atomic_fetch_add(&c->failures, 1);
		last_h = h;
		last_b = b;
		if (qcount(c->port, c->reset, 1, &h, &b) != 0)
			atomic_fetch_add(&c->failures, 1);
		c->reset_hits += h;
		c->reset_bytes += b;
		c->queries++;
	}
	return NULL;
}

static int
test_concurrent(void)
{
	static struct rte_mbuf *rx[64];
	struct mt_ctx c = { 0 };
	pthread_t th[2];
	struct fport fp;
	uint32_t sent = 0, got = 0, match = 0, match6 = 0;
	uint64_t h = 0, b = 0, last = rte_get_timer_cycles();

	TEST_ASSERT_EQ(fp_open(&fp, "", 2), 0, "");
	c.port = (uint16_t)fp.port;
	c.live = rule(c.port, 0, 0, 5, ACTS(A_COUNT, A_QUEUE(1)));
	c.reset = rule(c.port, 0, 0, 6, ACTS(A_COUNT, A_QUEUE(0)));
	TEST_ASSERT(c.live != NULL && c.reset != NULL, "");
	TEST_ASSERT_EQ(pthread_create(&th[0], NULL, mt_churn, &c), 0, "");
	TEST_ASSERT_EQ(pthread_create(&th[1], NULL, mt_query, &c), 0, "");
	/* give up after 2 s without a frame (the device may be a process
	 * sharing the cores with the three threads here) */
	while (got < MT_FRAMES &&
	       rte_get_timer_cycles() - last < 2 * rte_get_timer_hz()) {
		if (sent < MT_FRAMES && sent - got < 128) {
			struct rte_mbuf *tx[32];
			uint32_t k, n = 32, i;

			for (k = 0; k < n; k++) {
				i = (sent + k) % 3 == 0 ? 5 :
				    (sent + k) % 3 == 1 ? 6 : 256 + (sent + k) % 97;
				match += i == 5;
				match6 += i == 6;
				tx[k] = tdt_mbuf_build(LEN_A, i, 1);
				TEST_ASSERT(tx[k] != NULL, "");
			}
			TEST_ASSERT_EQ(tdt_tx_all(c.port, 0, tx, n), n, "");
			sent += n;
		}
		for (uint16_t q = 0; q < 2; q++) {
			uint16_t n = rte_eth_rx_burst(c.port, q, rx, 64);

			tdt_free_all(rx, n);
			got += n;
			if (n != 0)
				last = rte_get_timer_cycles();
		}
	}
	/* on a busy machine a thread may not have had the CPU yet: let both
	 * make progress before stopping them (up to 5 s) */
	last = rte_get_timer_cycles();
	while ((__atomic_load_n(&c.churn_loops, __ATOMIC_RELAXED) == 0 ||
		__atomic_load_n(&c.queries, __ATOMIC_RELAXED) == 0) &&
	       rte_get_timer_cycles() - last < 5 * rte_get_timer_hz())
		rte_delay_us_sleep(1000);
	atomic_store(&c.stop, true);
	pthread_join(th[0], NULL);
	pthread_join(th[1], NULL);
	printf("  %u frames, %" PRIu64 " churn loops of %d rules, %" PRIu64
	       " queries\n", got, c.churn_loops, MT_CHURN, c.queries);
	TEST_ASSERT_EQ(got, sent, "all frames delivered");
	TEST_ASSERT_EQ(atomic_load(&c.failures), 0, "failures in threads");
	TEST_ASSERT(c.churn_loops > 0 && c.queries > 0, "threads ran");
	TEST_ASSERT_EQ(qcount(c.port, c.live, 0, &h, &b), 0, "");
	TEST_ASSERT_U64_EQ(h, match, "long-lived rule hits");
	TEST_ASSERT_U64_EQ(b, (uint64_t)match * LEN_A, "");
	/* reset=1 loses nothing: the sum of the deltas is the total */
	TEST_ASSERT_EQ(qcount(c.port, c.reset, 0, &h, &b), 0, "");
	TEST_ASSERT_U64_EQ(c.reset_hits + h, match6, "sum of reset queries");
	TEST_ASSERT_U64_EQ(c.reset_bytes + b, (uint64_t)match6 * LEN_A, "");
	fp_close(&fp);
	return TEST_SUCCESS;
}


/* ---- key builder of the synchronous create ------------------------------------ */

/*
 * Random shapes eth / ipv4|ipv6 / [udp|tcp] with random masks (the L3 source
 * address always fully masked and unique per rule): rules created through
 * the parser and rules created through the shape's key builder must have
 * the same key in the same matcher, seen as EEXIST both ways; fresh specs
 * through the builder must not collide; a changed mask behind the same
 * pointer is not taken for the shape.
 */
#define KB_SHAPES	24
#define KB_SLOW		6
#define KB_FAST		40	/* > the run before the builder compiles (16) */

struct kb_shape {
	int l3, l4;			/* 4|6; 0 none, 1 udp, 2 tcp */
	int eth_how, l4_how;		/* 0 no spec, 1 default mask, 2 mask */
	int void_at;			/* VOID item before item i, or -1 */
	struct rte_flow_item_eth eth_m;
	struct rte_flow_item_ipv4 v4_m;
	struct rte_flow_item_ipv6 v6_m;
	struct rte_flow_item_udp udp_m;
	struct rte_flow_item_tcp tcp_m;
};

struct kb_rule {
	struct rte_flow_item_eth eth;
	struct rte_flow_item_ipv4 v4;
	struct rte_flow_item_ipv6 v6;
	struct rte_flow_item_udp udp;
	struct rte_flow_item_tcp tcp;
	struct rte_flow_item it[6];
};

static uint64_t
kb_rand(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static void
kb_bytes(uint64_t *s, void *p, size_t n)
{
	uint8_t *b = p;
	size_t i;

	for (i = 0; i < n; i++)
		b[i] = (uint8_t)kb_rand(s);
}

/* Random bits in a random few of the bytes, or all of a field. */
static void
kb_mask(uint64_t *s, void *p, size_t n)
{
	uint8_t *b = p;
	size_t i;

	switch (kb_rand(s) % 3) {
	case 0:
		memset(b, 0, n);
		break;
	case 1:
		memset(b, 0xff, n);
		break;
	default:
		for (i = 0; i < n; i++)
			b[i] = kb_rand(s) % 2 ? (uint8_t)kb_rand(s) : 0;
	}
}

static void
kb_shape_make(uint64_t *s, struct kb_shape *sh)
{
	memset(sh, 0, sizeof(*sh));
	sh->l3 = kb_rand(s) % 2 ? 4 : 6;
	sh->l4 = (int)(kb_rand(s) % 3);
	sh->eth_how = (int)(kb_rand(s) % 3);
	sh->l4_how = (int)(kb_rand(s) % 3);
	sh->void_at = kb_rand(s) % 4 == 0 ? (int)(kb_rand(s) % 3) : -1;
	kb_mask(s, &sh->eth_m.hdr.dst_addr, 6);
	kb_mask(s, &sh->eth_m.hdr.src_addr, 6);
	kb_mask(s, &sh->eth_m.hdr.ether_type, 2);
	sh->eth_m.has_vlan = kb_rand(s) % 2;
	sh->v4_m.hdr.src_addr = RTE_BE32(0xffffffff);
	kb_mask(s, &sh->v4_m.hdr.dst_addr, 4);
	kb_mask(s, &sh->v4_m.hdr.type_of_service, 1);
	kb_mask(s, &sh->v4_m.hdr.time_to_live, 1);
	memset(&sh->v6_m.hdr.src_addr, 0xff, 16);
	kb_mask(s, &sh->v6_m.hdr.dst_addr, 16);
	kb_mask(s, &sh->v6_m.hdr.hop_limits, 1);
	kb_mask(s, &sh->v6_m.hdr.vtc_flow, 4);
	sh->v6_m.hdr.vtc_flow &= RTE_BE32(0x0fffffff);
	kb_mask(s, &sh->udp_m.hdr.src_port, 2);
	kb_mask(s, &sh->udp_m.hdr.dst_port, 2);
	kb_mask(s, &sh->tcp_m.hdr.src_port, 2);
	kb_mask(s, &sh->tcp_m.hdr.dst_port, 2);
	kb_mask(s, &sh->tcp_m.hdr.tcp_flags, 1);
}

static void
kb_item(struct rte_flow_item *it, enum rte_flow_item_type type, int how,
	const void *spec, const void *mask)
{
	it->type = type;
	it->spec = how != 0 ? spec : NULL;
	it->mask = how == 2 ? mask : NULL;
}

/* Rule `id` of shape sh, its other fields from *s. */
static const struct rte_flow_item *
kb_rule_make(uint64_t *s, const struct kb_shape *sh, uint32_t id, struct kb_rule *r)
{
	struct rte_flow_item *it = r->it;
	int n = 0;

	memset(r, 0, sizeof(*r));
	kb_bytes(s, &r->eth, sizeof(r->eth));
	kb_bytes(s, &r->v4, sizeof(r->v4));
	kb_bytes(s, &r->v6, sizeof(r->v6));
	kb_bytes(s, &r->udp, sizeof(r->udp));
	kb_bytes(s, &r->tcp, sizeof(r->tcp));
	r->v4.hdr.src_addr = rte_cpu_to_be_32(id);
	memset(&r->v6.hdr.src_addr, 0, 12);
	memcpy((uint8_t *)&r->v6.hdr.src_addr + 12, &r->v4.hdr.src_addr, 4);
	if (sh->void_at == 0)
		it[n++].type = RTE_FLOW_ITEM_TYPE_VOID;
	kb_item(&it[n++], RTE_FLOW_ITEM_TYPE_ETH, sh->eth_how, &r->eth, &sh->eth_m);
	if (sh->void_at == 1)
		it[n++].type = RTE_FLOW_ITEM_TYPE_VOID;
	if (sh->l3 == 4)
		kb_item(&it[n++], RTE_FLOW_ITEM_TYPE_IPV4, 2, &r->v4, &sh->v4_m);
	else
		kb_item(&it[n++], RTE_FLOW_ITEM_TYPE_IPV6, 2, &r->v6, &sh->v6_m);
	if (sh->void_at == 2)
		it[n++].type = RTE_FLOW_ITEM_TYPE_VOID;
	if (sh->l4 == 1)
		kb_item(&it[n++], RTE_FLOW_ITEM_TYPE_UDP, sh->l4_how, &r->udp, &sh->udp_m);
	else if (sh->l4 == 2)
		kb_item(&it[n++], RTE_FLOW_ITEM_TYPE_TCP, sh->l4_how, &r->tcp, &sh->tcp_m);
	it[n].type = RTE_FLOW_ITEM_TYPE_END;
	return it;
}

static int
kb_keys(uint16_t port, uint64_t *keys)
{
	return dump_count(port, "key builder ", keys);
}

/* A rule another shape has (so the next create is parsed). */
static int
kb_breaker(uint16_t port, uint32_t id)
{
	struct rte_flow_attr a = { .priority = 5, .ingress = 1 };
	struct rte_flow_item_eth e = { 0 };
	struct rte_flow_item it[] = {
		{ .type = RTE_FLOW_ITEM_TYPE_ETH, .spec = &e },
		{ .type = RTE_FLOW_ITEM_TYPE_END },
	};
	struct rte_flow_error err;

	e.hdr.dst_addr.addr_bytes[2] = (uint8_t)(id >> 24);
	e.hdr.dst_addr.addr_bytes[3] = (uint8_t)(id >> 16);
	e.hdr.dst_addr.addr_bytes[4] = (uint8_t)(id >> 8);
	e.hdr.dst_addr.addr_bytes[5] = (uint8_t)id;
	return rte_flow_create(port, &a, it, ACTS(A_DROP), &err) != NULL ? 0 : -1;
}

/* Create and expect EEXIST; *keys grows by `built` (1: through the builder). */
static int
kb_expect_dup(uint16_t port, const struct rte_flow_item *it, int built,
	      const char *what, uint32_t id)
{
	struct rte_flow_error err;
	uint64_t k0, k1;

	TEST_ASSERT_EQ(kb_keys(port, &k0), 0, "dump");
	rte_errno = 0;
	TEST_ASSERT(rte_flow_create(port, &attr_in, it, ACTS(A_COUNT, A_QUEUE(0)),
				    &err) == NULL,
		    "%s: rule %u created twice: the builder's key differs", what, id);
	TEST_ASSERT_EQ(rte_errno, EEXIST, "%s: rule %u: %s", what, id,
		       err.message ? err.message : "?");
	TEST_ASSERT_EQ(kb_keys(port, &k1), 0, "dump");
	TEST_ASSERT_U64_EQ(k1 - k0, (uint64_t)built, "%s: rule %u: builder used", what, id);
	return TEST_SUCCESS;
}

static int
kb_one_shape(uint16_t port, uint64_t *seed, int si, uint32_t *bid)
{
	uint64_t slow_seed[KB_SLOW], fast_seed[KB_FAST], k0, k1, s2;
	const struct rte_flow_action *acts = ACTS(A_COUNT, A_QUEUE(0));
	struct rte_flow_error err;
	struct kb_shape sh, sh2;
	struct kb_rule r;
	uint32_t j;

	kb_shape_make(seed, &sh);
	/* parsed rules, each after a rule of another shape */
	for (j = 0; j < KB_SLOW; j++) {
		TEST_ASSERT_EQ(kb_breaker(port, (*bid)++), 0, "breaker");
		slow_seed[j] = kb_rand(seed);
		s2 = slow_seed[j];
		TEST_ASSERT_EQ(kb_keys(port, &k0), 0, "");
		TEST_ASSERT(rte_flow_create(port, &attr_in, kb_rule_make(&s2, &sh, j, &r),
					    acts, &err) != NULL,
			    "shape %d l3 %d l4 %d: parsed rule %u: %s", si, sh.l3, sh.l4, j,
			    err.message ? err.message : "?");
		TEST_ASSERT_EQ(kb_keys(port, &k1), 0, "");
		TEST_ASSERT_U64_EQ(k1, k0, "after another shape the pattern is parsed");
	}
	/* a run of the shape: the builder takes over */
	TEST_ASSERT_EQ(kb_keys(port, &k0), 0, "");
	for (j = 0; j < KB_FAST; j++) {
		fast_seed[j] = kb_rand(seed);
		s2 = fast_seed[j];
		TEST_ASSERT(rte_flow_create(port, &attr_in,
					    kb_rule_make(&s2, &sh, 1000 + j, &r), acts,
					    &err) != NULL,
			    "shape %d: rule %u of the run: %s", si, 1000 + j,
			    err.message ? err.message : "?");
	}
	TEST_ASSERT_EQ(kb_keys(port, &k1), 0, "");
	TEST_ASSERT(k1 - k0 >= KB_FAST - 16, "shape %d (l3 %d l4 %d eth %d l4 %d): "
		    "%" PRIu64 " keys by the builder in a run of %d", si, sh.l3, sh.l4,
		    sh.eth_how, sh.l4_how, k1 - k0, KB_FAST);
	/* the parsed rules again, through the builder */
	for (j = 0; j < KB_SLOW; j++) {
		s2 = slow_seed[j];
		if (kb_expect_dup(port, kb_rule_make(&s2, &sh, j, &r), 1, "builder",
				  j) != TEST_SUCCESS)
			return TEST_FAILED;
	}
	/* a mask changed behind the same pointer: parsed, and refused when
	 * it asks for a protocol other than the L4 item's */
	if (sh.l4 != 0) {
		struct rte_flow *f;

		s2 = fast_seed[0];
		kb_rule_make(&s2, &sh, 5000, &r);
		sh2 = sh;
		sh.v4_m.hdr.next_proto_id = 0xff;
		sh.v6_m.hdr.proto = 0xff;
		r.v4.hdr.next_proto_id = 1;
		r.v6.hdr.proto = 1;
		rte_errno = 0;
		f = rte_flow_create(port, &attr_in, r.it, acts, &err);
		sh = sh2;
		TEST_ASSERT(f == NULL, "shape %d: changed mask taken for the shape", si);
		TEST_ASSERT_EQ(rte_errno, EINVAL, "%s", err.message ? err.message : "?");
	}
	/* the builder's rules again, through the parser */
	for (j = KB_FAST - 8; j < KB_FAST; j++) {
		TEST_ASSERT_EQ(kb_breaker(port, (*bid)++), 0, "breaker");
		s2 = fast_seed[j];
		if (kb_expect_dup(port, kb_rule_make(&s2, &sh, 1000 + j, &r), 0, "parser",
				  1000 + j) != TEST_SUCCESS)
			return TEST_FAILED;
	}
	TEST_ASSERT_EQ(rte_flow_flush(port, &err), 0, "");
	return TEST_SUCCESS;
}

static int
test_key_builder(void)
{
	uint64_t seed = 0x9e3779b97f4a7c15ull ^ (uint64_t)time(NULL);
	struct fport fp;
	uint32_t bid = 1;
	int si;

	printf("  seed %" PRIu64 "\n", seed);
	TEST_ASSERT_EQ(fp_open(&fp, "", 2), 0, "");
	for (si = 0; si < KB_SHAPES; si++)
		if (kb_one_shape((uint16_t)fp.port, &seed, si, &bid) != TEST_SUCCESS) {
			fp_close(&fp);
			return TEST_FAILED;
		}
	fp_close(&fp);
	return TEST_SUCCESS;
}

/* ---- action builder of the synchronous create --------------------------------- */

#define AB_RULES	48
#define AB_NQ		4

/*
 * MARK(id) / COUNT / QUEUE(index) rules, each with its own mark and queue:
 * the first TALLY_FLOW_SHAPE_RUN (16) go through the action parser, the
 * rest through the action builder. Every rule's frames must carry its
 * mark, land on its queue and count exactly; values the parser refuses
 * must be refused the same way (type, errno, cause) with nothing left
 * behind; another action list is parsed again.
 */
static int
test_action_builder(void)
{
	static struct rte_flow *f[AB_RULES];
	const struct rte_flow_attr attr = { .ingress = 1 };
	struct rte_flow_action_mark mk[AB_RULES];
	struct rte_flow_action_queue q[AB_RULES];
	struct rte_flow_action a[AB_RULES][4];
	struct rte_flow_action bad[4];
	struct rte_flow_action_queue qbad = { .index = AB_NQ };
	struct rte_flow_error e;
	struct rte_flow *g;
	struct fport fp;
	struct pat p;
	uint64_t acts0 = 0, acts1 = 0;
	unsigned int i, k;

	TEST_ASSERT_EQ(fp_open(&fp, "", AB_NQ), 0, "");
	for (i = 0; i < AB_RULES; i++) {
		mk[i].id = 0x1000 + i * 7;
		q[i].index = (i * 3 + 1) % AB_NQ;
		a[i][0] = (struct rte_flow_action){ .type = RTE_FLOW_ACTION_TYPE_MARK, .conf = &mk[i] };
		a[i][1] = (struct rte_flow_action){ .type = RTE_FLOW_ACTION_TYPE_COUNT };
		a[i][2] = (struct rte_flow_action){ .type = RTE_FLOW_ACTION_TYPE_QUEUE, .conf = &q[i] };
		a[i][3] = (struct rte_flow_action){ .type = RTE_FLOW_ACTION_TYPE_END };
	}
	for (i = 0; i < AB_RULES; i++) {
		if (i == 24)
			TEST_ASSERT_EQ(dump_count((uint16_t)fp.port, "action builder ", &acts0), 0, "dump");
		f[i] = rte_flow_create((uint16_t)fp.port, &attr, pat_src(&p, (int)(200 + i)),
				       a[i], &e);
		TEST_ASSERT(f[i] != NULL, "rule %u: %s", i, e.message ? e.message : "?");
	}
	TEST_ASSERT_EQ(dump_count((uint16_t)fp.port, "action builder ", &acts1), 0, "dump");
	TEST_ASSERT(acts1 - acts0 == AB_RULES - 24,
		    "rules 24.. from the action builder: %" PRIu64 " -> %" PRIu64, acts0, acts1);
	/* refused values, the builder's types: the parser's verdicts */
	memcpy(bad, a[0], sizeof(bad));
	bad[2].conf = &qbad;
	rte_errno = 0;
	g = rte_flow_create((uint16_t)fp.port, &attr, pat_src(&p, 300), bad, &e);
	TEST_ASSERT(g == NULL, "queue beyond the port's taken");
	TEST_ASSERT_EQ(rte_errno, EINVAL, "");
	TEST_ASSERT_EQ(e.type, RTE_FLOW_ERROR_TYPE_ACTION_CONF, "");
	TEST_ASSERT(e.cause == &bad[2], "cause: the queue action");
	bad[2].conf = NULL;
	g = rte_flow_create((uint16_t)fp.port, &attr, pat_src(&p, 300), bad, &e);
	TEST_ASSERT(g == NULL && e.type == RTE_FLOW_ERROR_TYPE_ACTION_CONF &&
		    e.cause == &bad[2], "queue without conf");
	memcpy(bad, a[0], sizeof(bad));
	bad[0].conf = NULL;
	g = rte_flow_create((uint16_t)fp.port, &attr, pat_src(&p, 300), bad, &e);
	TEST_ASSERT(g == NULL && e.type == RTE_FLOW_ERROR_TYPE_ACTION_CONF &&
		    e.cause == &bad[0], "mark without conf");
	/* another list (the mark before the drop is refused by the parser) */
	g = rte_flow_create((uint16_t)fp.port, &attr, pat_src(&p, 300),
			    ACTS(A_MARK(1), A_DROP), &e);
	TEST_ASSERT(g == NULL && e.type == RTE_FLOW_ERROR_TYPE_ACTION, "mark with drop");
	g = rule((uint16_t)fp.port, 0, 0, 301, ACTS(A_COUNT, A_QUEUE(2)));
	TEST_ASSERT(g != NULL, "another list");
	/* traffic: 2 frames per rule, rule i on its queue with its mark */
	for (i = 0; i < AB_RULES; i++) {
		rs_init(&rs);
		TEST_ASSERT_EQ(xfer(&fp, 200 + i, LEN_A, 2, &rs), 2, "rule %u frames", i);
		for (k = 0; k < rs.n; k++) {
			TEST_ASSERT_EQ(rs.q[k], q[i].index, "rule %u queue", i);
			TEST_ASSERT(rs.m[k]->ol_flags & RTE_MBUF_F_RX_FDIR_ID, "rule %u marked", i);
			TEST_ASSERT_EQ(rs.m[k]->hash.fdir.hi, mk[i].id, "rule %u mark", i);
		}
		rs_free(&rs);
		ASSERT_COUNT((uint16_t)fp.port, f[i], 2, 2 * LEN_A);
	}
	rs_init(&rs);
	TEST_ASSERT_EQ(xfer(&fp, 300, LEN_A, 2, &rs), 2, "refused rules left nothing");
	TEST_ASSERT_EQ(rs.per_q[0], 2, "");
	TEST_ASSERT(!(rs.m[0]->ol_flags & RTE_MBUF_F_RX_FDIR), "no mark");
	rs_free(&rs);
	ASSERT_COUNT((uint16_t)fp.port, g, 0, 0);
	TEST_ASSERT_EQ(rte_flow_flush((uint16_t)fp.port, &e), 0, "");
	fp_close(&fp);
	return TEST_SUCCESS;
}

static const struct tally_test_case cases[] = {
	TEST_CASE(test_error_causes),
	TEST_CASE(test_jump_loop),
	TEST_CASE(test_duplicate),
	TEST_CASE(test_key_builder),
	TEST_CASE(test_action_builder),
	TEST_CASE(test_counter_exhausted),
	TEST_CASE(test_count_exact),
	TEST_CASE(test_indirect_count),
	TEST_CASE(test_mark_flag),
	TEST_CASE(test_queue_rss),
	TEST_CASE(test_drop),
	TEST_CASE(test_jump),
	TEST_CASE(test_priority),
	TEST_CASE(test_passthru),
	TEST_CASE(test_isolate),
	TEST_CASE(test_stop_start),
	TEST_CASE(test_flush),
	TEST_CASE(test_stale_handles),
	TEST_CASE(test_thread_mode),
	TEST_CASE(test_concurrent),
};

/*
 * With --staged every port stages all its single creates (steer_stage=1:
 * every hash array has a stage, see lib/steer tally_steer_stage.c), so
 * each case above also runs with its rules in the stage and moved on.
 */
int
main(int argc, char **argv)
{
	bool staged = argc > 1 && strcmp(argv[1], "--staged") == 0;
	int rc;

	if (staged)
		fp_devargs_all = "steer_stage=1";
	tdt_eal_init(staged ? "tally-flow-staged" : "tally-flow");
	rc = tally_test_run(staged ? "dpdk-flow-staged" : "dpdk-flow", cases, RTE_DIM(cases));
	rte_eal_cleanup();
	return rc;
}
