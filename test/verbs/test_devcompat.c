/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Device-level calls legacy programs make before any flow: the GID table
 * (ibv_query_gid, ibv_query_gid_ex, ibv_query_gid_table), the device index,
 * the mlx5dv device calls, and the device identity ibv_query_device gives.
 *
 * TV_MAC names the port's MAC (default 02:00:00:00:00:00, the device's
 * default); the GIDs must be fe80::<EUI-64 of it>.
 */
#include <stdio.h>

#include "tv_test.h"

#define TV_VENDOR_ID	0x1f1a	/* TALLY_PCI_VENDOR_ID */
#define TV_PART_ID	0x7a11	/* TALLY_PCI_DEVICE_ID */

static char junk[4096];		/* never a handle of the library */

static int
setup(void)
{
	return tv_open();
}

/* fe80::<EUI-64 of the MAC> */
static void
expected_gid(union ibv_gid *g)
{
	const char *s = getenv("TV_MAC");
	unsigned int m[6] = { 0x02, 0, 0, 0, 0, 0 };

	if (s != NULL)
		sscanf(s, "%x:%x:%x:%x:%x:%x", &m[0], &m[1], &m[2], &m[3], &m[4], &m[5]);
	memset(g, 0, sizeof(*g));
	g->raw[0] = 0xfe;
	g->raw[1] = 0x80;
	g->raw[8] = (uint8_t)(m[0] ^ 0x02);
	g->raw[9] = (uint8_t)m[1];
	g->raw[10] = (uint8_t)m[2];
	g->raw[11] = 0xff;
	g->raw[12] = 0xfe;
	g->raw[13] = (uint8_t)m[3];
	g->raw[14] = (uint8_t)m[4];
	g->raw[15] = (uint8_t)m[5];
}

static int
check_entry(const struct ibv_gid_entry *e, uint32_t index)
{
	union ibv_gid g;

	expected_gid(&g);
	TEST_ASSERT(memcmp(e->gid.raw, g.raw, 16) == 0, "gid %u", index);
	TEST_ASSERT_EQ(e->gid_index, index, "");
	TEST_ASSERT_EQ(e->port_num, 1, "");
	TEST_ASSERT_EQ(e->gid_type, index == 0 ? IBV_GID_TYPE_ROCE_V1 : IBV_GID_TYPE_ROCE_V2, "");
	TEST_ASSERT_EQ(e->ndev_ifindex, 0, "");
	return TEST_SUCCESS;
}

/* ---- GID table ---------------------------------------------------------------- */

static int
gid_ex_entries_from_mac(void)
{
	struct ibv_gid_entry e;
	uint32_t i;

	TEST_ASSERT_EQ(setup(), 0, "setup");
	for (i = 0; i < 2; i++) {
		memset(&e, 0xa5, sizeof(e));
		TEST_ASSERT_EQ(ibv_query_gid_ex(tv_ctx, 1, i, &e, 0), 0, "index %u", i);
		TEST_ASSERT_EQ(check_entry(&e, i), TEST_SUCCESS, "");
	}
	return TEST_SUCCESS;
}

static int
gid_guid_is_node_guid(void)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_gid_entry e;
	__be64 guid;

	TEST_ASSERT_EQ(setup(), 0, "setup");
	TEST_ASSERT(list != NULL && list[0] != NULL, "");
	guid = ibv_get_device_guid(list[0]);
	ibv_free_device_list(list);
	TEST_ASSERT_EQ(ibv_query_gid_ex(tv_ctx, 1, 0, &e, 0), 0, "");
	TEST_ASSERT(memcmp(&e.gid.raw[8], &guid, 8) == 0, "interface id = node GUID");
	return TEST_SUCCESS;
}

static int
gid_ex_errors_einval(void)
{
	struct ibv_gid_entry e;

	TEST_ASSERT_EQ(setup(), 0, "setup");
	TEST_ASSERT_EQ(ibv_query_gid_ex(tv_ctx, 1, 0, &e, 1), EINVAL, "flags");
	TEST_ASSERT_EQ(ibv_query_gid_ex(tv_ctx, 0, 0, &e, 0), EINVAL, "port 0");
	TEST_ASSERT_EQ(ibv_query_gid_ex(tv_ctx, 2, 0, &e, 0), EINVAL, "port 2");
	TEST_ASSERT_EQ(ibv_query_gid_ex(tv_ctx, 1, 2, &e, 0), EINVAL, "past the table");
	TEST_ASSERT_EQ(ibv_query_gid_ex(tv_ctx, 1, UINT32_MAX, &e, 0), EINVAL, "");
	TEST_ASSERT_EQ(ibv_query_gid_ex(tv_ctx, 1, 0, NULL, 0), EINVAL, "entry NULL");
	TEST_ASSERT_EQ(_ibv_query_gid_ex(tv_ctx, 1, 0, &e, 0, sizeof(e) - 1), EINVAL, "short");
	TEST_ASSERT_EQ(ibv_query_gid_ex((struct ibv_context *)(void *)junk, 1, 0, &e, 0),
		       EINVAL, "foreign context");
	TEST_ASSERT_EQ(ibv_query_gid_ex(NULL, 1, 0, &e, 0), EINVAL, "NULL context");
	return TEST_SUCCESS;
}

static int
gid_ex_longer_entry_zero_tail(void)
{
	uint8_t buf[sizeof(struct ibv_gid_entry) + 16];
	size_t i;

	TEST_ASSERT_EQ(setup(), 0, "setup");
	memset(buf, 0xa5, sizeof(buf));
	TEST_ASSERT_EQ(_ibv_query_gid_ex(tv_ctx, 1, 1, (struct ibv_gid_entry *)(void *)buf,
					 0, sizeof(buf)), 0, "");
	TEST_ASSERT_EQ(check_entry((struct ibv_gid_entry *)(void *)buf, 1), TEST_SUCCESS, "");
	for (i = sizeof(struct ibv_gid_entry); i < sizeof(buf); i++)
		TEST_ASSERT_EQ(buf[i], 0, "tail byte %zu", i);
	return TEST_SUCCESS;
}

static int
gid_table_two_entries(void)
{
	struct ibv_gid_entry e[4];
	const uint8_t *rest = (const uint8_t *)&e[2];
	size_t i;

	TEST_ASSERT_EQ(setup(), 0, "setup");
	memset(e, 0xa5, sizeof(e));
	TEST_ASSERT_EQ(ibv_query_gid_table(tv_ctx, e, 4, 0), 2, "");
	TEST_ASSERT_EQ(check_entry(&e[0], 0), TEST_SUCCESS, "");
	TEST_ASSERT_EQ(check_entry(&e[1], 1), TEST_SUCCESS, "");
	for (i = 0; i < 2 * sizeof(e[0]); i++)
		TEST_ASSERT_EQ(rest[i], 0xa5, "untouched byte %zu", i);
	TEST_ASSERT_EQ(ibv_query_gid_table(tv_ctx, e, 2, 0), 2, "exact fit");
	return TEST_SUCCESS;
}

static int
gid_table_stride_is_entry_size(void)
{
	uint8_t buf[2 * 48];

	TEST_ASSERT_EQ(setup(), 0, "setup");
	memset(buf, 0xa5, sizeof(buf));
	TEST_ASSERT_EQ(_ibv_query_gid_table(tv_ctx, (struct ibv_gid_entry *)(void *)buf,
					    2, 0, 48), 2, "");
	TEST_ASSERT_EQ(check_entry((struct ibv_gid_entry *)(void *)buf, 0), TEST_SUCCESS, "");
	TEST_ASSERT_EQ(check_entry((struct ibv_gid_entry *)(void *)(buf + 48), 1),
		       TEST_SUCCESS, "");
	TEST_ASSERT_EQ(buf[40], 0, "tail of entry 0 zeroed");
	TEST_ASSERT_EQ(buf[95], 0, "tail of entry 1 zeroed");
	return TEST_SUCCESS;
}

static int
gid_table_errors_einval(void)
{
	struct ibv_gid_entry e[4];

	TEST_ASSERT_EQ(setup(), 0, "setup");
	TEST_ASSERT_EQ(ibv_query_gid_table(tv_ctx, e, 0, 0), -EINVAL, "max 0");
	TEST_ASSERT_EQ(ibv_query_gid_table(tv_ctx, e, 1, 0), -EINVAL, "2 valid > max 1");
	TEST_ASSERT_EQ(ibv_query_gid_table(tv_ctx, e, 4, 1), -EINVAL, "flags");
	TEST_ASSERT_EQ(ibv_query_gid_table(tv_ctx, NULL, 4, 0), -EINVAL, "entries NULL");
	TEST_ASSERT_EQ(_ibv_query_gid_table(tv_ctx, e, 4, 0, 0), -EINVAL, "entry size 0");
	TEST_ASSERT_EQ(ibv_query_gid_table((struct ibv_context *)(void *)junk, e, 4, 0),
		       -EINVAL, "foreign context");
	return TEST_SUCCESS;
}

static int
query_gid_matches_table(void)
{
	union ibv_gid g, want;

	TEST_ASSERT_EQ(setup(), 0, "setup");
	expected_gid(&want);
	TEST_ASSERT_EQ(ibv_query_gid(tv_ctx, 1, 0, &g), 0, "");
	TEST_ASSERT(memcmp(&g, &want, sizeof(g)) == 0, "index 0");
	TEST_ASSERT_EQ(ibv_query_gid(tv_ctx, 1, 1, &g), 0, "");
	TEST_ASSERT(memcmp(&g, &want, sizeof(g)) == 0, "index 1");
	errno = 0;
	TEST_ASSERT_EQ(ibv_query_gid(tv_ctx, 1, 2, &g), -1, "past the table");
	TEST_ASSERT_EQ(errno, EINVAL, "");
	errno = 0;
	TEST_ASSERT_EQ(ibv_query_gid(tv_ctx, 1, -1, &g), -1, "negative");
	TEST_ASSERT_EQ(errno, EINVAL, "");
	return TEST_SUCCESS;
}

/* ---- device index and identity ----------------------------------------------- */

static int
device_index_is_port(void)
{
	struct ibv_device **list;
	int n = 0;

	TEST_ASSERT_EQ(setup(), 0, "setup");
	list = ibv_get_device_list(&n);
	TEST_ASSERT(list != NULL && n == 1, "");
	TEST_ASSERT_EQ(ibv_get_device_index(list[0]), 0, "tally_0 is index 0");
	TEST_ASSERT(strcmp(ibv_get_device_name(list[0]), "tally_0") == 0, "");
	ibv_free_device_list(list);
	errno = 0;
	TEST_ASSERT_EQ(ibv_get_device_index((struct ibv_device *)(void *)junk), -1, "");
	TEST_ASSERT_EQ(errno, EINVAL, "");
	errno = 0;
	TEST_ASSERT_EQ(ibv_get_device_index(NULL), -1, "");
	TEST_ASSERT_EQ(errno, EINVAL, "");
	return TEST_SUCCESS;
}

static int
device_identity_is_tally(void)
{
	struct ibv_device_attr a;
	struct ibv_device_attr_ex x;
	struct ibv_port_attr pa;

	TEST_ASSERT_EQ(setup(), 0, "setup");
	TEST_ASSERT_EQ(ibv_query_device(tv_ctx, &a), 0, "");
	TEST_ASSERT_EQ(a.vendor_id, TV_VENDOR_ID, "");
	TEST_ASSERT_EQ(a.vendor_part_id, TV_PART_ID, "");
	TEST_ASSERT_EQ(a.hw_ver, 0x20003, "spec 2.3");
	TEST_ASSERT(strcmp(a.fw_ver, "tally-spec 2.3") == 0, "fw_ver %s", a.fw_ver);
	TEST_ASSERT(a.max_qp > 0, "");
	TEST_ASSERT_EQ(a.max_raw_ethy_qp, a.max_qp, "");
	TEST_ASSERT_EQ(a.max_pkeys, 1, "");
	TEST_ASSERT_EQ(ibv_query_device_ex(tv_ctx, NULL, &x), 0, "");
	TEST_ASSERT_EQ(x.orig_attr.vendor_id, TV_VENDOR_ID, "");
	TEST_ASSERT_EQ(ibv_query_port(tv_ctx, 1, &pa), 0, "");
	TEST_ASSERT_EQ(pa.gid_tbl_len, 2, "");
	TEST_ASSERT_EQ(pa.max_vl_num, 1, "");
	return TEST_SUCCESS;
}

/* ---- mlx5dv device calls ---------------------------------------------------- */

static int
mlx5dv_supported_on_tally_only(void)
{
	struct ibv_device **list;

	TEST_ASSERT_EQ(setup(), 0, "setup");
	list = ibv_get_device_list(NULL);
	TEST_ASSERT(list != NULL && list[0] != NULL, "");
	TEST_ASSERT(mlx5dv_is_supported(list[0]), "");
	ibv_free_device_list(list);
	TEST_ASSERT(!mlx5dv_is_supported((struct ibv_device *)(void *)junk), "");
	TEST_ASSERT(!mlx5dv_is_supported(NULL), "");
	return TEST_SUCCESS;
}

/* NULL + errno for attr; a context works and closes otherwise */
static int
open_dv(struct ibv_device *d, struct mlx5dv_context_attr *attr, int want_errno)
{
	struct ibv_context *c;
	struct ibv_device_attr a;

	errno = 0;
	c = mlx5dv_open_device(d, attr);
	if (want_errno != 0) {
		TEST_ASSERT(c == NULL, "");
		TEST_ASSERT_EQ(errno, want_errno, "");
		return TEST_SUCCESS;
	}
	TEST_ASSERT(c != NULL, "errno %d", errno);
	TEST_ASSERT_EQ(ibv_query_device(c, &a), 0, "");
	TEST_ASSERT_EQ(a.vendor_id, TV_VENDOR_ID, "");
	TEST_ASSERT(mlx5dv_create_flow_matcher(c, NULL) == NULL && errno == EINVAL,
		    "mlx5dv calls take the context");
	TEST_ASSERT_EQ(ibv_close_device(c), 0, "");
	return TEST_SUCCESS;
}

static int
mlx5dv_open_device_attrs(void)
{
	struct ibv_device **list;
	struct ibv_device *d;
	struct mlx5dv_context_attr attr;

	TEST_ASSERT_EQ(setup(), 0, "setup");
	list = ibv_get_device_list(NULL);
	TEST_ASSERT(list != NULL && list[0] != NULL, "");
	d = list[0];
	ibv_free_device_list(list);	/* devices outlive the list */
	TEST_ASSERT_EQ(open_dv(d, NULL, 0), TEST_SUCCESS, "NULL attr");
	memset(&attr, 0, sizeof(attr));
	TEST_ASSERT_EQ(open_dv(d, &attr, 0), TEST_SUCCESS, "zero attr");
	attr.flags = MLX5DV_CONTEXT_FLAGS_DEVX;
	TEST_ASSERT_EQ(open_dv(d, &attr, 0), TEST_SUCCESS, "DEVX");
	attr.flags = 1u << 1;
	TEST_ASSERT_EQ(open_dv(d, &attr, EINVAL), TEST_SUCCESS, "unknown flag");
	attr.flags = 0;
	attr.comp_mask = 1;	/* MLX5DV_CONTEXT_ATTR_MASK_FD_ARRAY */
	TEST_ASSERT_EQ(open_dv(d, &attr, EOPNOTSUPP), TEST_SUCCESS, "fd array");
	attr.comp_mask = 2;
	TEST_ASSERT_EQ(open_dv(d, &attr, EINVAL), TEST_SUCCESS, "unknown comp_mask");
	attr.comp_mask = 3;
	TEST_ASSERT_EQ(open_dv(d, &attr, EINVAL), TEST_SUCCESS, "fd array + unknown");
	TEST_ASSERT_EQ(open_dv((struct ibv_device *)(void *)junk, NULL, EINVAL), TEST_SUCCESS,
		       "foreign device");
	TEST_ASSERT_EQ(open_dv(NULL, NULL, EINVAL), TEST_SUCCESS, "NULL device");
	return TEST_SUCCESS;
}

static int
mlx5dv_query_device_caps(void)
{
	const uint64_t zero_caps = MLX5DV_CONTEXT_MASK_CQE_COMPRESION |
		MLX5DV_CONTEXT_MASK_SWP | MLX5DV_CONTEXT_MASK_STRIDING_RQ |
		MLX5DV_CONTEXT_MASK_TUNNEL_OFFLOADS | MLX5DV_CONTEXT_MASK_DYN_BFREGS |
		MLX5DV_CONTEXT_MASK_FLOW_ACTION_FLAGS | MLX5DV_CONTEXT_MASK_DC_ODP_CAPS |
		MLX5DV_CONTEXT_MASK_SIGNATURE_OFFLOAD | MLX5DV_CONTEXT_MASK_DCI_STREAMS |
		MLX5DV_CONTEXT_MASK_WR_MEMCPY_LENGTH | MLX5DV_CONTEXT_MASK_CRYPTO_OFFLOAD;
	struct mlx5dv_context dv;

	TEST_ASSERT_EQ(setup(), 0, "setup");
	memset(&dv, 0xa5, sizeof(dv));
	dv.comp_mask = UINT64_MAX;
	TEST_ASSERT_EQ(mlx5dv_query_device(tv_ctx, &dv), 0, "");
	TEST_ASSERT_EQ(dv.version, 0, "");
	TEST_ASSERT_EQ(dv.flags, 0, "");
	TEST_ASSERT_U64_EQ(dv.comp_mask, zero_caps, "");
	TEST_ASSERT_EQ(dv.cqe_comp_caps.max_num, 0, "");
	TEST_ASSERT_EQ(dv.striding_rq_caps.supported_qpts, 0, "");
	TEST_ASSERT_EQ(dv.tunnel_offloads_caps, 0, "");
	TEST_ASSERT_EQ(dv.flow_action_flags, 0, "");
	TEST_ASSERT_U64_EQ(dv.max_wr_memcpy_length, 0, "");
	TEST_ASSERT(dv.hca_core_clock == (void *)(uintptr_t)0xa5a5a5a5a5a5a5a5ull,
		    "not asked for when absent: untouched");
	/* only what is asked for is written */
	memset(&dv, 0xa5, sizeof(dv));
	dv.comp_mask = MLX5DV_CONTEXT_MASK_SWP | MLX5DV_CONTEXT_MASK_HCA_CORE_CLOCK;
	TEST_ASSERT_EQ(mlx5dv_query_device(tv_ctx, &dv), 0, "");
	TEST_ASSERT_U64_EQ(dv.comp_mask, MLX5DV_CONTEXT_MASK_SWP, "no core clock");
	TEST_ASSERT_EQ(dv.sw_parsing_caps.sw_parsing_offloads, 0, "");
	TEST_ASSERT_EQ(dv.cqe_comp_caps.max_num, 0xa5a5a5a5u, "not asked: untouched");
	TEST_ASSERT_EQ(mlx5dv_query_device((struct ibv_context *)(void *)junk, &dv), EINVAL, "");
	TEST_ASSERT_EQ(mlx5dv_query_device(tv_ctx, NULL), EINVAL, "");
	return TEST_SUCCESS;
}

/* ---- P_Key table and the verbs a raw-Ethernet port does not do --------------- */

static int
pkey_table_default(void)
{
	__be16 pk = 0;

	TEST_ASSERT_EQ(setup(), 0, "setup");
	TEST_ASSERT_EQ(ibv_query_pkey(tv_ctx, 1, 0, &pk), 0, "");
	TEST_ASSERT_EQ(pk, htons(0xffff), "");
	errno = 0;
	TEST_ASSERT_EQ(ibv_query_pkey(tv_ctx, 1, 1, &pk), -1, "one entry");
	TEST_ASSERT_EQ(errno, EINVAL, "");
	errno = 0;
	TEST_ASSERT_EQ(ibv_query_pkey(tv_ctx, 2, 0, &pk), -1, "port 2");
	TEST_ASSERT_EQ(errno, EINVAL, "");
	TEST_ASSERT_EQ(ibv_get_pkey_index(tv_ctx, 1, htons(0xffff)), 0, "");
	errno = 0;
	TEST_ASSERT_EQ(ibv_get_pkey_index(tv_ctx, 1, htons(0x8001)), -1, "");
	TEST_ASSERT_EQ(errno, ENOENT, "");
	errno = 0;
	TEST_ASSERT_EQ(ibv_get_pkey_index((struct ibv_context *)(void *)junk, 1,
					  htons(0xffff)), -1, "");
	TEST_ASSERT_EQ(errno, EINVAL, "");
	return TEST_SUCCESS;
}

static int
unsupported_verbs_clean_errors(void)
{
	struct ibv_qp *fq = (struct ibv_qp *)(void *)junk;
	struct ibv_pd *fpd = (struct ibv_pd *)(void *)junk;
	struct ibv_srq_init_attr sa = { .attr = { .max_wr = 16, .max_sge = 1 } };
	struct ibv_ah_attr aa = { .port_num = 1 };
	struct ibv_ece ece = { .vendor_id = 1 };
	union ibv_gid g = { .raw = { 0xff } };
	struct ibv_wc wc = { 0 };
	struct tv_qp q;

	TEST_ASSERT_EQ(setup(), 0, "setup");
	TEST_ASSERT_EQ(tv_qp_create(&q, false), 0, "");
	TEST_ASSERT_EQ(ibv_attach_mcast(q.qp, &g, 0), EOPNOTSUPP, "");
	TEST_ASSERT_EQ(ibv_detach_mcast(q.qp, &g, 0), EOPNOTSUPP, "");
	TEST_ASSERT_EQ(ibv_attach_mcast(fq, &g, 0), EINVAL, "foreign QP");
	errno = 0;
	TEST_ASSERT(ibv_create_ah(tv_pd, &aa) == NULL && errno == EOPNOTSUPP, "");
	errno = 0;
	TEST_ASSERT(ibv_create_ah(fpd, &aa) == NULL && errno == EINVAL, "");
	errno = 0;
	TEST_ASSERT(ibv_create_ah_from_wc(tv_pd, &wc, NULL, 1) == NULL && errno == EOPNOTSUPP, "");
	errno = 0;
	TEST_ASSERT_EQ(ibv_init_ah_from_wc(tv_ctx, 1, &wc, NULL, &aa), -1, "");
	TEST_ASSERT_EQ(errno, EOPNOTSUPP, "");
	TEST_ASSERT_EQ(ibv_destroy_ah((struct ibv_ah *)(void *)junk), EINVAL, "");
	errno = 0;
	TEST_ASSERT(ibv_create_srq(tv_pd, &sa) == NULL && errno == EOPNOTSUPP, "");
	TEST_ASSERT_EQ(ibv_destroy_srq((struct ibv_srq *)(void *)junk), EINVAL, "");
	TEST_ASSERT_EQ(ibv_query_srq((struct ibv_srq *)(void *)junk, &sa.attr), EINVAL, "");
	errno = 0;
	TEST_ASSERT_EQ(ibv_rereg_mr(q.mr, IBV_REREG_MR_CHANGE_ACCESS, NULL, NULL, 0,
				    IBV_ACCESS_LOCAL_WRITE), IBV_REREG_MR_ERR_INPUT, "");
	TEST_ASSERT_EQ(errno, EOPNOTSUPP, "");
	errno = 0;
	TEST_ASSERT_EQ(ibv_rereg_mr((struct ibv_mr *)(void *)junk, IBV_REREG_MR_CHANGE_ACCESS,
				    NULL, NULL, 0, 0), IBV_REREG_MR_ERR_INPUT, "");
	TEST_ASSERT_EQ(errno, EINVAL, "");
	TEST_ASSERT_EQ(ibv_set_ece(q.qp, &ece), EOPNOTSUPP, "");
	TEST_ASSERT_EQ(ibv_query_ece(fq, &ece), EINVAL, "");
	TEST_ASSERT_EQ(ibv_query_qp_data_in_order(q.qp, IBV_WR_SEND, 0), 0, "");
	tv_qp_destroy(&q);
	return TEST_SUCCESS;
}

static int
closed_context_einval(void)
{
	struct ibv_device **list;
	struct ibv_context *c;
	struct ibv_gid_entry e[2];
	struct mlx5dv_context dv = { .comp_mask = 0 };

	TEST_ASSERT_EQ(setup(), 0, "setup");
	list = ibv_get_device_list(NULL);
	TEST_ASSERT(list != NULL && list[0] != NULL, "");
	c = mlx5dv_open_device(list[0], NULL);
	ibv_free_device_list(list);
	TEST_ASSERT(c != NULL, "");
	TEST_ASSERT_EQ(ibv_close_device(c), 0, "");
	TEST_ASSERT_EQ(ibv_query_gid_ex(c, 1, 0, &e[0], 0), EINVAL, "");
	TEST_ASSERT_EQ(ibv_query_gid_table(c, e, 2, 0), -EINVAL, "");
	TEST_ASSERT_EQ(mlx5dv_query_device(c, &dv), EINVAL, "");
	return TEST_SUCCESS;
}

static const struct tally_test_case cases[] = {
	TEST_CASE(gid_ex_entries_from_mac),
	TEST_CASE(gid_guid_is_node_guid),
	TEST_CASE(gid_ex_errors_einval),
	TEST_CASE(gid_ex_longer_entry_zero_tail),
	TEST_CASE(gid_table_two_entries),
	TEST_CASE(gid_table_stride_is_entry_size),
	TEST_CASE(gid_table_errors_einval),
	TEST_CASE(query_gid_matches_table),
	TEST_CASE(device_index_is_port),
	TEST_CASE(device_identity_is_tally),
	TEST_CASE(mlx5dv_supported_on_tally_only),
	TEST_CASE(mlx5dv_open_device_attrs),
	TEST_CASE(mlx5dv_query_device_caps),
	TEST_CASE(pkey_table_default),
	TEST_CASE(unsupported_verbs_clean_errors),
	TEST_CASE(closed_context_einval),
};

TEST_MAIN("verbs-devcompat", cases)
