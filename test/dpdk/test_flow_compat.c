/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What depends on the DPDK release the PMD is built against
 * (drivers/net/tally/tally_compat.h), checked through the public API:
 *  - the supported packet types: exactly the nine the Rx path sets, and
 *    what an IPv4/UDP frame over the loop wire carries;
 *  - the async fast path reaches the driver on every release (22.11:
 *    rte_flow_ops, 24.x: dev->flow_fp_ops), before and after configure;
 *  - 23.03 and later: template table and port attributes other than the
 *    defaults are refused with ENOTSUP;
 *  - 24.03 and later: the fast-path callbacks the device has no use for
 *    (rules by index, actions update, query-and-update, action lists) answer
 *    ENOTSUP instead of crashing or ethdev's ENOSYS, and leave no result to
 *    pull.
 */
#include <rte_flow.h>
#include <rte_version.h>

#include "flow_test_util.h"

#define DPDK_AT_LEAST(y, m)	(RTE_VERSION >= RTE_VERSION_NUM(y, m, 0, 0))

#if DPDK_AT_LEAST(23, 3)
static int
configure(uint16_t port, const struct rte_flow_port_attr *pa, struct rte_flow_error *e)
{
	const struct rte_flow_queue_attr qa = { .size = 16 };
	const struct rte_flow_queue_attr *qap[1] = { &qa };
	int ret;

	rte_eth_dev_stop(port);
	ret = rte_flow_configure(port, pa, 1, qap, e);
	if (rte_eth_dev_start(port) != 0)
		return -EIO;
	return ret;
}
#endif

/* The types the port promises, and the ones its frames carry. */
static int
test_ptypes(void)
{
	const uint32_t want = RTE_PTYPE_L2_ETHER | RTE_PTYPE_L3_IPV4_EXT_UNKNOWN |
			      RTE_PTYPE_L4_UDP;
	uint32_t pt[32];
	struct rx_set rs;
	struct fport fp;
	unsigned int k;
	int n, i, udp = 0, unknown = 0;

	TEST_ASSERT_EQ(fp_open(&fp, "", 1), 0, "");
	rs_init(&rs);
	TEST_ASSERT_EQ(xfer(&fp, 3, 100, 4, &rs), 4, "");
	for (k = 0; k < rs.n; k++)
		TEST_ASSERT_EQ(rs.m[k]->packet_type, want, "frame %u", k);
	rs_free(&rs);
	n = rte_eth_dev_get_supported_ptypes((uint16_t)fp.port, RTE_PTYPE_ALL_MASK,
					     pt, RTE_DIM(pt));
	TEST_ASSERT_EQ(n, 9, "nine packet types, no terminator counted");
	for (i = 0; i < n; i++) {
		udp += pt[i] == RTE_PTYPE_L4_UDP;
		unknown += pt[i] == RTE_PTYPE_UNKNOWN;
	}
	TEST_ASSERT_EQ(udp, 1, "");
	TEST_ASSERT_EQ(unknown, 0, "");
	n = rte_eth_dev_get_supported_ptypes((uint16_t)fp.port, RTE_PTYPE_L4_MASK,
					     pt, RTE_DIM(pt));
	TEST_ASSERT_EQ(n, 4, "TCP, UDP, ICMP, FRAG");
	fp_close(&fp);
	return TEST_SUCCESS;
}

/* The driver's own answers (EINVAL, its message), not ethdev's ENOSYS. */
static int
test_fast_path_unconfigured(void)
{
	const struct rte_flow_op_attr oa = { .postpone = 0 };
	const struct rte_flow_action end[] = { { .type = RTE_FLOW_ACTION_TYPE_END } };
	const struct rte_flow_action count = { .type = RTE_FLOW_ACTION_TYPE_COUNT };
	const struct rte_flow_indir_action_conf ic = { .ingress = 1 };
	struct rte_flow_op_result res[4];
	struct rte_flow_error e;
	struct fport fp;
	uint16_t port;

	TEST_ASSERT_EQ(fp_open(&fp, "", 1), 0, "");
	port = (uint16_t)fp.port;
	memset(&e, 0, sizeof(e));
	TEST_ASSERT(rte_flow_async_create(port, 0, &oa, NULL, NULL, 0, end, 0, NULL, &e) == NULL, "");
	TEST_ASSERT_EQ(rte_errno, EINVAL, "");
	TEST_ASSERT(e.message != NULL && strstr(e.message, "rte_flow_configure") != NULL,
		    "the driver's message: %s", e.message ? e.message : "(none)");
	TEST_ASSERT_EQ(rte_flow_push(port, 0, &e), -EINVAL, "");
	TEST_ASSERT_EQ(rte_flow_pull(port, 0, res, 4, &e), -EINVAL, "");
	TEST_ASSERT(rte_flow_async_action_handle_create(port, 0, &oa, &ic, &count, NULL,
							&e) == NULL, "");
	TEST_ASSERT_EQ(rte_errno, EINVAL, "");
	fp_close(&fp);
	return TEST_SUCCESS;
}

#if DPDK_AT_LEAST(23, 3)
struct tbl {
	struct fport fp;
	struct rte_flow_pattern_template *pt;
	struct rte_flow_actions_template *at;
	struct rte_flow_template_table *tbl;
};

static const struct rte_flow_item eth_tmpl[] = {
	{ .type = RTE_FLOW_ITEM_TYPE_ETH },
	{ .type = RTE_FLOW_ITEM_TYPE_END },
};
static const struct rte_flow_action count_tmpl[] = {
	{ .type = RTE_FLOW_ACTION_TYPE_COUNT },
	{ .type = RTE_FLOW_ACTION_TYPE_END },
};

/* A configured port with one pattern and one actions template. */
static int
tbl_open(struct tbl *t)
{
	const struct rte_flow_port_attr pa = { .nb_counters = 64 };
	const struct rte_flow_pattern_template_attr pta = { .ingress = 1 };
	const struct rte_flow_actions_template_attr ata = { .ingress = 1 };
	struct rte_flow_error e;
	uint16_t port;

	memset(t, 0, sizeof(*t));
	if (fp_open(&t->fp, "", 1) != 0)
		return -1;
	port = (uint16_t)t->fp.port;
	if (configure(port, &pa, &e) != 0)
		return -1;
	t->pt = rte_flow_pattern_template_create(port, &pta, eth_tmpl, &e);
	t->at = rte_flow_actions_template_create(port, &ata, count_tmpl, count_tmpl, &e);
	return t->pt != NULL && t->at != NULL ? 0 : -1;
}

static int
test_attrs_since_23_03(void)
{
	struct rte_flow_template_table_attr ta = {
		.flow_attr = { .ingress = 1 }, .nb_flows = 8,
	};
	const struct rte_flow_port_attr quotas = { .nb_quotas = 4 };
	struct rte_flow_template_table *tb;
	struct rte_flow_error e;
	struct tbl t;
	uint16_t port;

	TEST_ASSERT_EQ(tbl_open(&t), 0, "");
	port = (uint16_t)t.fp.port;
	ta.insertion_type = RTE_FLOW_TABLE_INSERTION_TYPE_INDEX;
	TEST_ASSERT(rte_flow_template_table_create(port, &ta, &t.pt, 1, &t.at, 1, &e) == NULL, "");
	TEST_ASSERT_EQ(rte_errno, ENOTSUP, "by index");
	ta.insertion_type = RTE_FLOW_TABLE_INSERTION_TYPE_PATTERN;
	ta.hash_func = RTE_FLOW_TABLE_HASH_FUNC_CRC32;
	TEST_ASSERT(rte_flow_template_table_create(port, &ta, &t.pt, 1, &t.at, 1, &e) == NULL, "");
	TEST_ASSERT_EQ(rte_errno, ENOTSUP, "hash function");
	ta.hash_func = RTE_FLOW_TABLE_HASH_FUNC_DEFAULT;
	ta.specialize = RTE_FLOW_TABLE_SPECIALIZE_TRANSFER_WIRE_ORIG;
	TEST_ASSERT(rte_flow_template_table_create(port, &ta, &t.pt, 1, &t.at, 1, &e) == NULL, "");
	TEST_ASSERT_EQ(rte_errno, ENOTSUP, "specialize");
	ta.specialize = 0;
	tb = rte_flow_template_table_create(port, &ta, &t.pt, 1, &t.at, 1, &e);
	TEST_ASSERT(tb != NULL, "the defaults: %s", e.message ? e.message : "");
	TEST_ASSERT_EQ(rte_flow_template_table_destroy(port, tb, &e), 0, "");
	TEST_ASSERT_EQ(rte_flow_pattern_template_destroy(port, t.pt, &e), 0, "");
	TEST_ASSERT_EQ(rte_flow_actions_template_destroy(port, t.at, &e), 0, "");
	TEST_ASSERT_EQ(configure(port, &quotas, &e), -ENOTSUP, "quotas");
	fp_close(&t.fp);
	return TEST_SUCCESS;
}
#endif

#if DPDK_AT_LEAST(24, 3)
static int
test_fp_callbacks_since_24_03(void)
{
	const struct rte_flow_template_table_attr ta = {
		.flow_attr = { .ingress = 1 }, .nb_flows = 8,
	};
	const struct rte_flow_op_attr oa = { .postpone = 0 };
	const struct rte_flow_indir_action_conf ic = { .ingress = 1 };
	const struct rte_flow_action count = { .type = RTE_FLOW_ACTION_TYPE_COUNT };
	const void *upd[1] = { NULL };
	void *qry[1] = { NULL };
	struct rte_flow_op_result res[4];
	struct rte_flow_action_handle *ah;
	struct rte_flow_template_table *tb;
	struct rte_flow_error e;
	struct rte_flow *f;
	struct tbl t;
	uint16_t port;

	TEST_ASSERT_EQ(tbl_open(&t), 0, "");
	port = (uint16_t)t.fp.port;
	tb = rte_flow_template_table_create(port, &ta, &t.pt, 1, &t.at, 1, &e);
	TEST_ASSERT(tb != NULL, "");
	TEST_ASSERT(rte_flow_async_create_by_index(port, 0, &oa, tb, 0, count_tmpl, 0,
						   NULL, &e) == NULL, "");
	TEST_ASSERT_EQ(rte_errno, ENOTSUP, "create by index");
	TEST_ASSERT(rte_flow_async_create_by_index_with_pattern(port, 0, &oa, tb, 0, eth_tmpl,
								0, count_tmpl, 0, NULL,
								&e) == NULL, "");
	TEST_ASSERT_EQ(rte_errno, ENOTSUP, "create by index with pattern");
	/* a real rule, whose actions cannot be replaced */
	f = rte_flow_async_create(port, 0, &oa, tb, eth_tmpl, 0, count_tmpl, 0, NULL, &e);
	TEST_ASSERT(f != NULL, "%s", e.message ? e.message : "");
	TEST_ASSERT_EQ(rte_flow_pull(port, 0, res, 4, &e), 1, "");
	TEST_ASSERT_EQ(res[0].status, RTE_FLOW_OP_SUCCESS, "");
	TEST_ASSERT_EQ(rte_flow_async_actions_update(port, 0, &oa, f, count_tmpl, 0, NULL, &e),
		       -ENOTSUP, "actions update");
	ah = rte_flow_async_action_handle_create(port, 0, &oa, &ic, &count, NULL, &e);
	TEST_ASSERT(ah != NULL, "%s", e.message ? e.message : "");
	TEST_ASSERT_EQ(rte_flow_pull(port, 0, res, 4, &e), 1, "");
	TEST_ASSERT_EQ(rte_flow_async_action_handle_query_update(port, 0, &oa, ah, NULL, NULL,
			RTE_FLOW_QU_QUERY_FIRST, NULL, &e), -ENOTSUP, "query-update");
	TEST_ASSERT(rte_flow_async_action_list_handle_create(port, 0, &oa, &ic, &count, NULL,
							     &e) == NULL, "");
	TEST_ASSERT_EQ(rte_errno, ENOTSUP, "action list create");
	TEST_ASSERT_EQ(rte_flow_async_action_list_handle_destroy(port, 0, &oa, NULL, NULL, &e),
		       -ENOTSUP, "action list destroy");
	TEST_ASSERT_EQ(rte_flow_async_action_list_handle_query_update(port, 0, &oa, NULL, upd,
			qry, RTE_FLOW_QU_QUERY_FIRST, NULL, &e), -ENOTSUP, "");
	/* none of the refused calls left a result */
	TEST_ASSERT_EQ(rte_flow_pull(port, 0, res, 4, &e), 0, "");
	TEST_ASSERT(rte_flow_async_destroy(port, 0, &oa, f, NULL, &e) == 0, "");
	TEST_ASSERT(rte_flow_async_action_handle_destroy(port, 0, &oa, ah, NULL, &e) == 0, "");
	TEST_ASSERT_EQ(rte_flow_pull(port, 0, res, 4, &e), 2, "");
	TEST_ASSERT_EQ(rte_flow_template_table_destroy(port, tb, &e), 0, "");
	fp_close(&t.fp);
	return TEST_SUCCESS;
}
#endif

static const struct tally_test_case cases[] = {
	TEST_CASE(test_ptypes),
	TEST_CASE(test_fast_path_unconfigured),
#if DPDK_AT_LEAST(23, 3)
	TEST_CASE(test_attrs_since_23_03),
#endif
#if DPDK_AT_LEAST(24, 3)
	TEST_CASE(test_fp_callbacks_since_24_03),
#endif
};

int
main(void)
{
	int rc;

	tdt_eal_init("tally-flow-compat");
	printf("built against %s\n", rte_version());
	rc = tally_test_run("dpdk-flow-compat", cases, RTE_DIM(cases));

	rte_eal_cleanup();
	return rc;
}
