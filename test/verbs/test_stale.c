/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Stale and foreign handles: every entry point of libtally_verbs that takes
 * a handle refuses a destroyed one, one of another type, or one it never
 * made, with EINVAL (NULL + errno EINVAL for creators), and touches nothing.
 * A destroyed handle's address is never handed out again, so a stale handle
 * cannot reach the object created after it.
 *
 * Calls that verbs.h implements inline (ibv_post_send, ibv_poll_cq,
 * ibv_create_flow, ibv_read_counters, ...) read the handle in the
 * application before they reach the library; on a destroyed handle that is
 * undefined (doc/verbs.md). These cases call the library's entry behind
 * them through a live context instead, as the inline function would.
 */
#include <stdio.h>

#include "tv_test.h"

struct eth_count_attr {
	struct ibv_flow_attr attr;
	struct ibv_flow_spec_eth eth;
	struct ibv_flow_spec_counter_action count;
} __attribute__((packed, aligned(8)));

struct match_buf {
	size_t match_sz;
	uint8_t b[64];
};

static struct tv_qp q;

static struct verbs_context *
vctx(void)
{
	return verbs_get_ctx(tv_ctx);
}

static struct ibv_flow_attr *
eth_flow(struct eth_count_attr *a, struct ibv_counters *c, uint8_t last_mac)
{
	memset(a, 0, sizeof(*a));
	tv_eth_attr(&a->attr, sizeof(*a), c != NULL ? 2 : 1, &a->eth, last_mac);
	tv_count_spec(&a->count, c);
	return &a->attr;
}

static struct ibv_comp_cntr *
cc_new(void)
{
	struct ibv_comp_cntr_init_attr ia = { .type = IBV_COMP_CNTR_TYPE_WRS };

	return ibv_create_comp_cntr(tv_ctx, &ia);
}

static struct ibv_counters *
counters_new(void)
{
	struct ibv_counters *c = ibv_create_counters(tv_ctx, NULL);
	struct ibv_counter_attach_attr a = { .counter_desc = IBV_COUNTER_PACKETS };

	if (c != NULL && ibv_attach_counters_point_flow(c, &a, NULL) != 0)
		return NULL;
	return c;
}

static struct mlx5dv_flow_matcher *
matcher_new(struct ibv_context *ctx)
{
	struct match_buf mask = { .match_sz = 64 };
	struct mlx5dv_flow_matcher_attr a = {
		.type = IBV_FLOW_ATTR_NORMAL,
		.match_criteria_enable = 1,
		.match_mask = (struct mlx5dv_flow_match_parameters *)&mask,
	};

	memset(mask.b + 8, 0xff, 6);	/* outer dmac */
	return mlx5dv_create_flow_matcher(ctx, &a);
}

static struct ibv_flow *
mlx5_flow_new(struct mlx5dv_flow_matcher *m, uint8_t last_mac,
	      struct mlx5dv_devx_obj *devx)
{
	struct match_buf val = { .match_sz = 64 };
	struct mlx5dv_flow_action_attr act[2];

	val.b[8] = 0x02;
	val.b[13] = last_mac;
	memset(act, 0, sizeof(act));
	act[0].type = MLX5DV_FLOW_ACTION_DROP;
	act[1].type = MLX5DV_FLOW_ACTION_COUNTERS_DEVX;
	act[1].obj = devx;
	return mlx5dv_create_flow(m, (struct mlx5dv_flow_match_parameters *)&val,
				  devx != NULL ? 2 : 1, act);
}

/* ---- completion counters ------------------------------------------------------ */

/* The reported defect: destroy a, create b, update through a. */
static int
comp_cntr_stale_after_create_einval(void)
{
	struct ibv_comp_cntr *a, *b;
	uint64_t v = 99;

	TEST_ASSERT_EQ(tv_setup(&q), 0, "setup");
	a = cc_new();
	TEST_ASSERT(a != NULL, "a: errno %d", errno);
	TEST_ASSERT_EQ(ibv_set_comp_cntr(a, 7), 0, "");
	TEST_ASSERT_EQ(ibv_destroy_comp_cntr(a), 0, "");
	b = cc_new();
	TEST_ASSERT(b != NULL, "b: errno %d", errno);
	TEST_ASSERT(b != a, "a destroyed handle's address is not handed out again");
	TEST_ASSERT_EQ(ibv_set_comp_cntr(b, 3), 0, "");
	TEST_ASSERT_EQ(ibv_set_err_comp_cntr(b, 4), 0, "");

	TEST_ASSERT_EQ(ibv_inc_comp_cntr(a, 5), EINVAL, "inc");
	TEST_ASSERT_EQ(ibv_inc_err_comp_cntr(a, 5), EINVAL, "inc_err");
	TEST_ASSERT_EQ(ibv_set_comp_cntr(a, 100), EINVAL, "set");
	TEST_ASSERT_EQ(ibv_set_err_comp_cntr(a, 100), EINVAL, "set_err");
	TEST_ASSERT_EQ(ibv_read_comp_cntr(a, &v), EINVAL, "read");
	TEST_ASSERT_EQ(ibv_read_err_comp_cntr(a, &v), EINVAL, "read_err");
	TEST_ASSERT_U64_EQ(v, 99, "nothing written through a stale handle");
	TEST_ASSERT_EQ(ibv_destroy_comp_cntr(a), EINVAL, "destroy");

	TEST_ASSERT_EQ(ibv_read_comp_cntr(b, &v), 0, "");
	TEST_ASSERT_U64_EQ(v, 3, "b unchanged");
	TEST_ASSERT_EQ(ibv_read_err_comp_cntr(b, &v), 0, "");
	TEST_ASSERT_U64_EQ(v, 4, "b's errors unchanged");
	TEST_ASSERT_EQ(ibv_destroy_comp_cntr(b), 0, "");
	return TEST_SUCCESS;
}

/* Many create/destroy rounds: no address comes back, every stale handle
 * stays refused while newer counters count. */
static int
comp_cntr_addresses_never_reused(void)
{
	enum { ROUNDS = 300 };
	static struct ibv_comp_cntr *seen[ROUNDS];
	struct ibv_comp_cntr *live = cc_new();
	unsigned int i, j;
	uint64_t v;

	TEST_ASSERT(live != NULL, "");
	for (i = 0; i < ROUNDS; i++) {
		seen[i] = cc_new();
		TEST_ASSERT(seen[i] != NULL, "round %u: errno %d", i, errno);
		for (j = 0; j < i; j++)
			TEST_ASSERT(seen[j] != seen[i], "round %u reuses round %u", i, j);
		TEST_ASSERT_EQ(ibv_destroy_comp_cntr(seen[i]), 0, "");
		TEST_ASSERT_EQ(ibv_inc_comp_cntr(seen[i], 1), EINVAL, "round %u", i);
		TEST_ASSERT_EQ(ibv_inc_comp_cntr(live, 1), 0, "");
	}
	for (i = 0; i < ROUNDS; i++)
		TEST_ASSERT_EQ(ibv_inc_comp_cntr(seen[i], 1000), EINVAL, "round %u", i);
	TEST_ASSERT_EQ(ibv_read_comp_cntr(live, &v), 0, "");
	TEST_ASSERT_U64_EQ(v, ROUNDS, "only live increments counted");
	TEST_ASSERT_EQ(ibv_destroy_comp_cntr(live), 0, "");
	return TEST_SUCCESS;
}

/* Permissions of the mapping holding p in /proc/self/maps ("" if none). */
static void
map_perms(const void *p, char perms[5])
{
	FILE *f = fopen("/proc/self/maps", "r");
	unsigned long lo, hi;
	char line[512];

	perms[0] = '\0';
	while (f != NULL && fgets(line, sizeof(line), f) != NULL)
		if (sscanf(line, "%lx-%lx %4s", &lo, &hi, perms) == 3 &&
		    (uintptr_t)p >= lo && (uintptr_t)p < hi)
			break;
		else
			perms[0] = '\0';
	if (f != NULL)
		fclose(f);
}

/* Enough objects to fill several of the library's address ranges: a range
 * whose objects are all destroyed goes back to the kernel (no access, still
 * reserved), yet its stale handles are refused without reading it, and
 * live objects keep working. */
static int
handles_across_released_ranges(void)
{
	enum { N = 2000 };
	struct mlx5dv_flow_matcher *mid = NULL, *m, *keep = matcher_new(tv_ctx);
	struct ibv_flow *f;
	char perms[5];
	unsigned int i;

	TEST_ASSERT(keep != NULL, "");
	for (i = 0; i < N; i++) {
		m = matcher_new(tv_ctx);
		TEST_ASSERT(m != NULL, "matcher %u: errno %d", i, errno);
		TEST_ASSERT(m != mid, "");
		if (i == N / 2)
			mid = m;
		TEST_ASSERT_EQ(mlx5dv_destroy_flow_matcher(m), 0, "matcher %u", i);
	}
	map_perms(mid, perms);
	TEST_ASSERT(strcmp(perms, "---p") == 0, "released range: perms '%s'", perms);
	TEST_ASSERT_EQ(mlx5dv_destroy_flow_matcher(mid), EINVAL, "stale, memory released");
	TV_ASSERT_NULL_ERRNO(mlx5_flow_new(mid, 0x51, NULL), EINVAL, "");
	f = mlx5_flow_new(keep, 0x52, NULL);
	TEST_ASSERT(f != NULL, "the matcher kept alive works: errno %d", errno);
	TEST_ASSERT_EQ(ibv_destroy_flow(f), 0, "");
	TEST_ASSERT_EQ(mlx5dv_destroy_flow_matcher(keep), 0, "");
	return TEST_SUCCESS;
}

static int
comp_cntr_foreign_einval(void)
{
	struct ibv_comp_cntr fake = { .context = tv_ctx };
	uint64_t v;

	TEST_ASSERT_EQ(ibv_inc_comp_cntr(&fake, 1), EINVAL, "never created");
	TEST_ASSERT_EQ(ibv_read_comp_cntr(&fake, &v), EINVAL, "");
	TEST_ASSERT_EQ(ibv_destroy_comp_cntr(&fake), EINVAL, "");
	TEST_ASSERT_EQ(ibv_inc_comp_cntr((struct ibv_comp_cntr *)(void *)q.qp, 1), EINVAL,
		       "a QP passed as a completion counter");
	TEST_ASSERT_EQ(ibv_inc_comp_cntr(NULL, 1), EINVAL, "NULL");
	return TEST_SUCCESS;
}

static int
comp_cntr_attach_op_mask(void)
{
	struct ibv_qp_attach_comp_cntr_attr aa = { 0 };
	struct ibv_comp_cntr *c = cc_new();
	struct tv_qp t;

	TEST_ASSERT(c != NULL, "");
	TEST_ASSERT_EQ(tv_qp_create(&t, false), 0, "qp in INIT");
	aa.op_mask = 1u << 6;
	TEST_ASSERT_EQ(ibv_qp_attach_comp_cntr(t.qp, c, &aa), ENOTSUP, "undefined op bit");
	aa.op_mask = IBV_QP_ATTACH_COMP_CNTR_OP_SEND | (1u << 31);
	TEST_ASSERT_EQ(ibv_qp_attach_comp_cntr(t.qp, c, &aa), ENOTSUP, "SEND + undefined");
	aa.op_mask = 0;
	TEST_ASSERT_EQ(ibv_qp_attach_comp_cntr(t.qp, c, &aa), EINVAL, "zero mask");
	aa.op_mask = IBV_QP_ATTACH_COMP_CNTR_OP_SEND;
	aa.comp_mask = 1;
	TEST_ASSERT_EQ(ibv_qp_attach_comp_cntr(t.qp, c, &aa), EINVAL, "unknown comp_mask");
	aa.comp_mask = 0;
	TEST_ASSERT_EQ(ibv_qp_attach_comp_cntr(t.qp, c, NULL), EINVAL, "NULL attr");
	TEST_ASSERT_EQ(ibv_qp_attach_comp_cntr(t.qp, NULL, &aa), EINVAL, "NULL counter");
	TEST_ASSERT_EQ(ibv_qp_attach_comp_cntr(NULL, c, &aa), EINVAL, "NULL QP");
	/* nothing was attached by the refused calls */
	TEST_ASSERT_EQ(ibv_destroy_comp_cntr(c), 0, "not attached");
	TEST_ASSERT_EQ(ibv_qp_attach_comp_cntr(t.qp, c, &aa), EINVAL, "stale counter");
	c = cc_new();
	TEST_ASSERT(c != NULL, "");
	tv_qp_destroy(&t);
	TEST_ASSERT_EQ(tv_qp_create(&t, false), 0, "");
	aa.op_mask = IBV_QP_ATTACH_COMP_CNTR_OP_SEND;
	TEST_ASSERT_EQ(ibv_qp_attach_comp_cntr(t.qp, c, &aa), 0, "live QP");
	tv_qp_destroy(&t);
	TEST_ASSERT_EQ(ibv_destroy_comp_cntr(c), 0, "detached with the QP");
	return TEST_SUCCESS;
}

static int
comp_cntr_attach_stale_qp_einval(void)
{
	struct ibv_qp_attach_comp_cntr_attr aa = { .op_mask = IBV_QP_ATTACH_COMP_CNTR_OP_RECV };
	struct ibv_comp_cntr *c = cc_new();
	struct ibv_qp *stale;
	struct tv_qp t, t2;

	TEST_ASSERT(c != NULL, "");
	TEST_ASSERT_EQ(tv_qp_create(&t, false), 0, "");
	stale = t.qp;
	TEST_ASSERT_EQ(ibv_destroy_qp(stale), 0, "");
	t.qp = NULL;
	TEST_ASSERT_EQ(tv_qp_create(&t2, false), 0, "a new QP");
	TEST_ASSERT_EQ(ibv_qp_attach_comp_cntr(stale, c, &aa), EINVAL, "stale QP");
	/* the new QP's RECV slot is still free */
	TEST_ASSERT_EQ(ibv_qp_attach_comp_cntr(t2.qp, c, &aa), 0, "");
	tv_qp_destroy(&t2);
	tv_qp_destroy(&t);
	TEST_ASSERT_EQ(ibv_destroy_comp_cntr(c), 0, "");
	return TEST_SUCCESS;
}

/* ---- QPs ------------------------------------------------------------------------ */

static int
qp_stale_modify_query_einval(void)
{
	struct ibv_qp_attr qa = { .qp_state = IBV_QPS_RESET };
	struct ibv_qp_init_attr ia;
	struct ibv_qp *stale;
	struct tv_qp t, t2;

	TEST_ASSERT_EQ(tv_qp_create(&t, false), 0, "");
	stale = t.qp;
	TEST_ASSERT_EQ(ibv_destroy_qp(stale), 0, "");
	t.qp = NULL;
	TEST_ASSERT_EQ(tv_qp_create(&t2, false), 0, "a new QP in INIT");
	TEST_ASSERT_EQ(ibv_modify_qp(stale, &qa, IBV_QP_STATE), EINVAL, "modify");
	memset(&qa, 0, sizeof(qa));
	TEST_ASSERT_EQ(ibv_query_qp(stale, &qa, IBV_QP_STATE, &ia), EINVAL, "query");
	TEST_ASSERT_EQ(ibv_query_qp(t2.qp, &qa, IBV_QP_STATE, &ia), 0, "");
	TEST_ASSERT_EQ(qa.qp_state, IBV_QPS_INIT, "the new QP kept its state");
	TEST_ASSERT_EQ(ibv_destroy_qp(stale), EINVAL, "destroy");
	TV_ASSERT_NULL_ERRNO(ibv_qp_to_qp_ex(stale), EINVAL, "qp_to_qp_ex");
	tv_qp_destroy(&t2);
	tv_qp_destroy(&t);
	return TEST_SUCCESS;
}

/* post_send / post_recv / poll_cq / req_notify_cq: the library entries the
 * inline verbs call, given a destroyed QP or CQ. */
static int
data_path_stale_einval(void)
{
	struct ibv_context_ops *ops = &tv_ctx->ops;
	uint8_t frame[64] = { 0x02 };
	struct ibv_sge sge = { .addr = (uintptr_t)frame, .length = sizeof(frame) };
	struct ibv_send_wr swr = { .sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_SEND },
		*sbad = NULL;
	struct ibv_recv_wr rwr = { .sg_list = &sge, .num_sge = 1 }, *rbad = NULL;
	struct ibv_qp *stale_qp;
	struct ibv_cq *stale_cq;
	struct ibv_wc wc;
	struct tv_qp t, t2;

	TEST_ASSERT_EQ(tv_qp_create(&t, true), 0, "");
	stale_qp = t.qp;
	stale_cq = t.cq;
	TEST_ASSERT_EQ(ibv_destroy_qp(t.qp), 0, "");
	TEST_ASSERT_EQ(ibv_destroy_cq(t.cq), 0, "");
	t.qp = NULL;
	t.cq = NULL;
	TEST_ASSERT_EQ(tv_qp_create(&t2, true), 0, "a new QP and CQs");
	TEST_ASSERT_EQ(ops->post_send(stale_qp, &swr, &sbad), EINVAL, "post_send");
	TEST_ASSERT(sbad == &swr, "bad_wr names the first WR");
	TEST_ASSERT_EQ(ops->post_recv(stale_qp, &rwr, &rbad), EINVAL, "post_recv");
	TEST_ASSERT(rbad == &rwr, "");
	TEST_ASSERT_EQ(ops->poll_cq(stale_cq, 1, &wc), -EINVAL, "poll_cq");
	TEST_ASSERT_EQ(ops->req_notify_cq(stale_cq, 0), EINVAL, "req_notify_cq");
	TEST_ASSERT_EQ(ibv_destroy_cq(stale_cq), EINVAL, "");
	TEST_ASSERT_EQ(ibv_resize_cq(stale_cq, 64), EINVAL, "resize");
	TEST_ASSERT_EQ(ibv_poll_cq(t2.scq, 1, &wc), 0, "the new CQs got nothing");
	TEST_ASSERT_EQ(ibv_poll_cq(t2.cq, 1, &wc), 0, "");
	tv_qp_destroy(&t2);
	tv_qp_destroy(&t);
	return TEST_SUCCESS;
}

static int
cq_ex_stale_einval(void)
{
	struct ibv_cq_init_attr_ex ca = { .cqe = 16, .wc_flags = IBV_WC_EX_WITH_BYTE_LEN };
	struct ibv_poll_cq_attr pa = { 0 };
	struct ibv_cq_ex *live, *stale;

	stale = ibv_create_cq_ex(tv_ctx, &ca);
	TEST_ASSERT(stale != NULL, "");
	TEST_ASSERT_EQ(ibv_destroy_cq(ibv_cq_ex_to_cq(stale)), 0, "");
	live = ibv_create_cq_ex(tv_ctx, &ca);
	TEST_ASSERT(live != NULL, "");
	TEST_ASSERT_EQ(live->start_poll(stale, &pa), EINVAL, "start_poll");
	TEST_ASSERT_EQ(live->next_poll(stale), EINVAL, "next_poll");
	TEST_ASSERT_EQ(live->read_byte_len(stale), 0, "read_byte_len");
	live->end_poll(stale);
	TEST_ASSERT_EQ(ibv_start_poll(live, &pa), ENOENT, "the live CQ is empty");
	TEST_ASSERT_EQ(ibv_destroy_cq(ibv_cq_ex_to_cq(live)), 0, "");
	return TEST_SUCCESS;
}

static int
cq_in_use_ebusy(void)
{
	struct tv_qp t;

	TEST_ASSERT_EQ(tv_qp_create(&t, false), 0, "");
	TEST_ASSERT_EQ(ibv_destroy_cq(t.scq), EBUSY, "send CQ of a live QP");
	TEST_ASSERT_EQ(ibv_destroy_cq(t.cq), EBUSY, "recv CQ of a live QP");
	TEST_ASSERT_EQ(ibv_dealloc_pd(tv_pd), EBUSY, "PD of a live QP and MR");
	tv_qp_destroy(&t);
	return TEST_SUCCESS;
}

static int
create_qp_stale_parts_einval(void)
{
	struct ibv_qp_init_attr ia = {
		.cap = { .max_send_wr = 4, .max_recv_wr = 4, .max_send_sge = 1,
			 .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RAW_PACKET,
	};
	struct ibv_cq *cq = ibv_create_cq(tv_ctx, 16, NULL, NULL, 0);
	struct ibv_cq *stale_cq = ibv_create_cq(tv_ctx, 16, NULL, NULL, 0);
	struct ibv_pd *stale_pd = ibv_alloc_pd(tv_ctx);
	struct ibv_qp *qp;
	static char buf[64];

	TEST_ASSERT(cq != NULL && stale_cq != NULL && stale_pd != NULL, "");
	TEST_ASSERT_EQ(ibv_destroy_cq(stale_cq), 0, "");
	TEST_ASSERT_EQ(ibv_dealloc_pd(stale_pd), 0, "");
	ia.send_cq = cq;
	ia.recv_cq = stale_cq;
	TV_ASSERT_NULL_ERRNO(ibv_create_qp(tv_pd, &ia), EINVAL, "stale recv CQ");
	ia.send_cq = stale_cq;
	ia.recv_cq = cq;
	TV_ASSERT_NULL_ERRNO(ibv_create_qp(tv_pd, &ia), EINVAL, "stale send CQ");
	ia.send_cq = cq;
	ia.recv_cq = (struct ibv_cq *)(void *)tv_pd;
	TV_ASSERT_NULL_ERRNO(ibv_create_qp(tv_pd, &ia), EINVAL, "a PD as CQ");
	ia.recv_cq = cq;
	TV_ASSERT_NULL_ERRNO(ibv_create_qp(stale_pd, &ia), EINVAL, "stale PD");
	TV_ASSERT_NULL_ERRNO(ibv_reg_mr(stale_pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE),
			     EINVAL, "reg_mr on a stale PD");
	TEST_ASSERT_EQ(ibv_dealloc_pd(stale_pd), EINVAL, "");
	qp = ibv_create_qp(tv_pd, &ia);
	TEST_ASSERT(qp != NULL, "the live parts work: errno %d", errno);
	TEST_ASSERT_EQ(ibv_destroy_qp(qp), 0, "");
	TEST_ASSERT_EQ(ibv_destroy_cq(cq), 0, "refused creates left no use behind");
	return TEST_SUCCESS;
}

static int
wrong_type_einval(void)
{
	struct ibv_cq *cq = ibv_create_cq(tv_ctx, 16, NULL, NULL, 0);
	struct ibv_pd *pd = ibv_alloc_pd(tv_ctx);
	struct ibv_comp_cntr *cc = cc_new();

	TEST_ASSERT(cq != NULL && pd != NULL && cc != NULL, "");
	TEST_ASSERT_EQ(ibv_destroy_qp((struct ibv_qp *)(void *)cq), EINVAL, "CQ as QP");
	TEST_ASSERT_EQ(ibv_destroy_cq((struct ibv_cq *)(void *)pd), EINVAL, "PD as CQ");
	TEST_ASSERT_EQ(ibv_dealloc_pd((struct ibv_pd *)(void *)cc), EINVAL, "counter as PD");
	TEST_ASSERT_EQ(ibv_dereg_mr((struct ibv_mr *)(void *)pd), EINVAL, "PD as MR");
	TEST_ASSERT_EQ(mlx5dv_destroy_flow_matcher((void *)cq), EINVAL, "CQ as matcher");
	TEST_ASSERT_EQ(mlx5dv_devx_obj_destroy((void *)cq), EINVAL, "CQ as DEVX object");
	TEST_ASSERT_EQ(ibv_destroy_comp_cntr(cc), 0, "");
	TEST_ASSERT_EQ(ibv_dealloc_pd(pd), 0, "");
	TEST_ASSERT_EQ(ibv_destroy_cq(cq), 0, "");
	return TEST_SUCCESS;
}

/* ---- flows, counters, matchers, DEVX ------------------------------------------ */

static int
flow_stale_einval(void)
{
	struct verbs_context *v = vctx();
	struct eth_count_attr fa;
	struct ibv_flow *f, *stale;
	uint64_t p, b;
	struct tv_qp t;

	TEST_ASSERT(v != NULL, "verbs_context");
	f = ibv_create_flow(q.qp, eth_flow(&fa, NULL, 0x31));
	TEST_ASSERT(f != NULL, "errno %d", errno);
	stale = f;
	TEST_ASSERT_EQ(ibv_destroy_flow(f), 0, "");
	f = ibv_create_flow(q.qp, eth_flow(&fa, NULL, 0x32));
	TEST_ASSERT(f != NULL, "a new flow");
	TEST_ASSERT_EQ(v->ibv_destroy_flow(stale), EINVAL, "destroy twice");
	TEST_ASSERT_EQ(tally_verbs_flow_read(stale, &p, &b), EINVAL, "read");
	TEST_ASSERT_EQ(ibv_destroy_flow(f), 0, "the new flow is intact");
	/* a flow on a destroyed QP */
	TEST_ASSERT_EQ(tv_qp_create(&t, false), 0, "");
	TEST_ASSERT_EQ(ibv_destroy_qp(t.qp), 0, "");
	TV_ASSERT_NULL_ERRNO(v->ibv_create_flow(t.qp, eth_flow(&fa, NULL, 0x33)), EINVAL,
			     "create_flow on a stale QP");
	t.qp = NULL;
	tv_qp_destroy(&t);
	return TEST_SUCCESS;
}

static int
counters_stale_einval(void)
{
	struct verbs_context *v = vctx();
	struct ibv_counter_attach_attr a = { .counter_desc = IBV_COUNTER_BYTES };
	struct ibv_counters *stale = counters_new(), *c;
	struct eth_count_attr fa;
	struct ibv_flow *f;
	uint64_t val[2];

	TEST_ASSERT(stale != NULL, "");
	TEST_ASSERT_EQ(ibv_destroy_counters(stale), 0, "");
	c = counters_new();
	TEST_ASSERT(c != NULL, "");
	TEST_ASSERT_EQ(v->read_counters(stale, val, 2, 0), EINVAL, "read");
	TEST_ASSERT_EQ(v->attach_counters_point_flow(stale, &a, NULL), EINVAL, "attach");
	TEST_ASSERT_EQ(v->destroy_counters(stale), EINVAL, "destroy twice");
	TV_ASSERT_NULL_ERRNO(ibv_create_flow(q.qp, eth_flow(&fa, stale, 0x34)), EINVAL,
			     "COUNT spec naming a stale handle");
	/* c is intact: bindable, one point, readable */
	f = ibv_create_flow(q.qp, eth_flow(&fa, c, 0x35));
	TEST_ASSERT(f != NULL, "errno %d", errno);
	TEST_ASSERT_EQ(ibv_read_counters(c, val, 1, 0), 0, "one point on c");
	TEST_ASSERT_U64_EQ(val[0], 0, "");
	/* attach point with a destroyed flow */
	TEST_ASSERT_EQ(ibv_destroy_flow(f), 0, "");
	TEST_ASSERT_EQ(ibv_attach_counters_point_flow(c, &a, f), EINVAL, "stale flow");
	TEST_ASSERT_EQ(ibv_destroy_counters(c), 0, "");
	return TEST_SUCCESS;
}

static int
matcher_in_use_ebusy(void)
{
	struct mlx5dv_flow_matcher *m = matcher_new(tv_ctx);
	struct ibv_flow *f1, *f2;

	TEST_ASSERT(m != NULL, "errno %d", errno);
	f1 = mlx5_flow_new(m, 0x41, NULL);
	TEST_ASSERT(f1 != NULL, "errno %d", errno);
	TEST_ASSERT_EQ(mlx5dv_destroy_flow_matcher(m), EBUSY, "a flow uses it");
	f2 = mlx5_flow_new(m, 0x42, NULL);
	TEST_ASSERT(f2 != NULL, "the matcher was kept: errno %d", errno);
	TEST_ASSERT_EQ(ibv_destroy_flow(f1), 0, "");
	TEST_ASSERT_EQ(mlx5dv_destroy_flow_matcher(m), EBUSY, "one flow left");
	TEST_ASSERT_EQ(ibv_destroy_flow(f2), 0, "");
	TEST_ASSERT_EQ(mlx5dv_destroy_flow_matcher(m), 0, "no flow left");
	TV_ASSERT_NULL_ERRNO(mlx5_flow_new(m, 0x43, NULL), EINVAL, "flow on a stale matcher");
	TEST_ASSERT_EQ(mlx5dv_destroy_flow_matcher(m), EINVAL, "");
	return TEST_SUCCESS;
}

static int
devx_stale_einval(void)
{
	uint8_t ain[16] = { 0x09, 0x39 }, aout[16];
	uint8_t qin[32] = { 0x09, 0x3b }, qout[48];
	struct mlx5dv_devx_obj *stale;
	struct mlx5dv_flow_matcher *m = matcher_new(tv_ctx);

	TEST_ASSERT(m != NULL, "");
	stale = mlx5dv_devx_obj_create(tv_ctx, ain, sizeof(ain), aout, sizeof(aout));
	TEST_ASSERT(stale != NULL, "errno %d", errno);
	TEST_ASSERT_EQ(mlx5dv_devx_obj_destroy(stale), 0, "");
	memcpy(qin + 28, aout + 8, 4);
	TEST_ASSERT_EQ(mlx5dv_devx_obj_query(stale, qin, sizeof(qin), qout, sizeof(qout)),
		       EINVAL, "query");
	TEST_ASSERT_EQ(mlx5dv_devx_obj_modify(stale, qin, sizeof(qin), qout, sizeof(qout)),
		       EINVAL, "modify");
	TEST_ASSERT_EQ(mlx5dv_devx_obj_destroy(stale), EINVAL, "destroy");
	TV_ASSERT_NULL_ERRNO(mlx5_flow_new(m, 0x44, stale), EINVAL,
			     "COUNTERS_DEVX with a stale object");
	TEST_ASSERT_EQ(mlx5dv_destroy_flow_matcher(m), 0, "");
	return TEST_SUCCESS;
}

/* ---- contexts and devices ---------------------------------------------------- */

static int
context_closed_einval(void)
{
	struct verbs_context *v = vctx();
	struct ibv_cq_init_attr_ex ca = { .cqe = 16 };
	struct ibv_qp_init_attr_ex qa = { .comp_mask = IBV_QP_INIT_ATTR_PD, .pd = tv_pd };
	struct ibv_comp_cntr_init_attr ia = { 0 };
	struct ibv_comp_cntr_caps caps;
	struct ibv_device_attr da;
	struct ibv_device_attr_ex dx;
	struct ibv_port_attr pa;
	struct ibv_device **list;
	struct ibv_context *c2;
	struct ibv_pd *pd2;
	struct ibv_cq *cq2;
	uint16_t port;

	list = ibv_get_device_list(NULL);
	TEST_ASSERT(list != NULL && list[0] != NULL, "");
	c2 = ibv_open_device(list[0]);
	ibv_free_device_list(list);
	TEST_ASSERT(c2 != NULL, "");
	pd2 = ibv_alloc_pd(c2);
	cq2 = ibv_create_cq(c2, 16, NULL, NULL, 0);
	TEST_ASSERT(pd2 != NULL && cq2 != NULL, "");
	TEST_ASSERT_EQ(ibv_close_device(c2), 0, "close with objects alive");
	errno = 0;
	TEST_ASSERT_EQ(ibv_close_device(c2), -1, "closed twice");
	TEST_ASSERT_EQ(errno, EINVAL, "");
	TV_ASSERT_NULL_ERRNO(ibv_alloc_pd(c2), EINVAL, "alloc_pd");
	TV_ASSERT_NULL_ERRNO(ibv_create_cq(c2, 16, NULL, NULL, 0), EINVAL, "create_cq");
	TV_ASSERT_NULL_ERRNO(ibv_create_comp_cntr(c2, &ia), EINVAL, "create_comp_cntr");
	TV_ASSERT_NULL_ERRNO(matcher_new(c2), EINVAL, "create_flow_matcher");
	TEST_ASSERT_EQ(ibv_query_device(c2, &da), EINVAL, "query_device");
	TEST_ASSERT_EQ(_ibv_query_comp_cntr_caps(c2, &caps, sizeof(caps)), EINVAL, "caps");
	TEST_ASSERT_EQ(tally_verbs_port_id(c2, &port), EINVAL, "port_id");
	/* the entries behind inline verbs, reached through a live context */
	TEST_ASSERT_EQ(v->query_port(c2, 1, &pa, sizeof(pa)), EINVAL, "query_port");
	TEST_ASSERT_EQ(v->query_device_ex(c2, NULL, &dx, sizeof(dx)), EINVAL, "");
	TV_ASSERT_NULL_ERRNO(v->create_counters(c2, NULL), EINVAL, "create_counters");
	TV_ASSERT_NULL_ERRNO(v->create_cq_ex(c2, &ca), EINVAL, "create_cq_ex");
	TV_ASSERT_NULL_ERRNO(v->create_qp_ex(c2, &qa), EINVAL, "create_qp_ex");
	TV_ASSERT_NULL_ERRNO(v->alloc_td(c2, &(struct ibv_td_init_attr){ 0 }), EINVAL, "alloc_td");
	/* what was created on it can still be destroyed */
	TEST_ASSERT_EQ(ibv_destroy_cq(cq2), 0, "");
	TEST_ASSERT_EQ(ibv_dealloc_pd(pd2), 0, "");
	return TEST_SUCCESS;
}

static int
foreign_device_and_kinds_einval(void)
{
	struct verbs_context *v = vctx();
	struct ibv_device fake_dev;
	uint64_t fake_obj[32];

	memset(&fake_dev, 0, sizeof(fake_dev));
	memset(fake_obj, 0, sizeof(fake_obj));
	TV_ASSERT_NULL_ERRNO(ibv_open_device(&fake_dev), EINVAL, "open a foreign device");
	TV_ASSERT_NULL_ERRNO(ibv_get_device_name(&fake_dev), EINVAL, "name of a foreign device");
	/* kinds of objects the library never creates: none can be valid */
	TEST_ASSERT_EQ(v->destroy_wq((struct ibv_wq *)(void *)fake_obj), EINVAL, "wq");
	TEST_ASSERT_EQ(v->dealloc_td((struct ibv_td *)(void *)fake_obj), EINVAL, "td");
	TEST_ASSERT_EQ(v->free_dm((struct ibv_dm *)(void *)fake_obj), EINVAL, "dm");
	TEST_ASSERT_EQ(ibv_destroy_comp_channel((struct ibv_comp_channel *)(void *)fake_obj),
		       EINVAL, "comp channel");
	/* unsupported creations on a live context stay EOPNOTSUPP */
	TV_ASSERT_NULL_ERRNO(v->alloc_td(tv_ctx, &(struct ibv_td_init_attr){ 0 }), EOPNOTSUPP,
			     "alloc_td on a live context");
	return TEST_SUCCESS;
}

static const struct tally_test_case cases[] = {
	TEST_CASE(comp_cntr_stale_after_create_einval),
	TEST_CASE(comp_cntr_addresses_never_reused),
	TEST_CASE(handles_across_released_ranges),
	TEST_CASE(comp_cntr_foreign_einval),
	TEST_CASE(comp_cntr_attach_op_mask),
	TEST_CASE(comp_cntr_attach_stale_qp_einval),
	TEST_CASE(qp_stale_modify_query_einval),
	TEST_CASE(data_path_stale_einval),
	TEST_CASE(cq_ex_stale_einval),
	TEST_CASE(cq_in_use_ebusy),
	TEST_CASE(create_qp_stale_parts_einval),
	TEST_CASE(wrong_type_einval),
	TEST_CASE(flow_stale_einval),
	TEST_CASE(counters_stale_einval),
	TEST_CASE(matcher_in_use_ebusy),
	TEST_CASE(devx_stale_einval),
	TEST_CASE(context_closed_einval),
	TEST_CASE(foreign_device_and_kinds_einval),
};

TEST_MAIN("verbs-stale", cases)
