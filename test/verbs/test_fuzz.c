/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Robustness of the verbs flow and mlx5dv parsers: random spec lists (known
 * and unknown types, random sizes and bytes, INNER bits, counters and
 * actions) through ibv_create_flow, and random fte_match_param buffers
 * through mlx5dv matchers and flows. Nothing may crash; every refusal sets
 * one of the errno values the man pages allow; accepted flows are destroyed.
 * Fixed seed plus one random seed, printed.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>

#include "tv_test.h"

#define FZ_ROUNDS	20000

static uint32_t fz_seed;

static uint32_t
rnd(void)
{
	return tally_test_rand(&fz_seed);
}

static const uint32_t spec_types[] = {
	IBV_FLOW_SPEC_ETH, IBV_FLOW_SPEC_IPV4, IBV_FLOW_SPEC_IPV6,
	IBV_FLOW_SPEC_IPV4_EXT, IBV_FLOW_SPEC_ESP, IBV_FLOW_SPEC_TCP,
	IBV_FLOW_SPEC_UDP, IBV_FLOW_SPEC_VXLAN_TUNNEL, IBV_FLOW_SPEC_GRE,
	IBV_FLOW_SPEC_MPLS, IBV_FLOW_SPEC_ACTION_TAG, IBV_FLOW_SPEC_ACTION_DROP,
	IBV_FLOW_SPEC_ACTION_HANDLE, IBV_FLOW_SPEC_ACTION_COUNT, 0x77,
};

static const uint16_t spec_sizes[] = {
	sizeof(struct ibv_flow_spec_eth), sizeof(struct ibv_flow_spec_ipv4),
	sizeof(struct ibv_flow_spec_ipv6), sizeof(struct ibv_flow_spec_ipv4_ext),
	sizeof(struct ibv_flow_spec_esp), sizeof(struct ibv_flow_spec_tcp_udp),
	sizeof(struct ibv_flow_spec_tcp_udp), sizeof(struct ibv_flow_spec_tunnel),
	sizeof(struct ibv_flow_spec_gre), sizeof(struct ibv_flow_spec_mpls),
	sizeof(struct ibv_flow_spec_action_tag), sizeof(struct ibv_flow_spec_action_drop),
	sizeof(struct ibv_flow_spec_action_handle),
	sizeof(struct ibv_flow_spec_counter_action), 16,
};

static bool
allowed(int e)
{
	return e == EINVAL || e == EOPNOTSUPP || e == ENOTSUP || e == ENOMEM ||
	       e == EEXIST;
}

/* One random flow attr in buf; returns it. */
static struct ibv_flow_attr *
fz_attr(uint8_t *buf, size_t cap, struct ibv_counters *cnt)
{
	struct ibv_flow_attr *a = (struct ibv_flow_attr *)(void *)buf;
	size_t off = sizeof(*a);
	unsigned int n = rnd() % 5, i, k;

	memset(buf, 0, cap);
	a->type = rnd() % 8 ? IBV_FLOW_ATTR_NORMAL : rnd() % 5;
	a->priority = (uint16_t)(rnd() % 4);
	a->port = rnd() % 8 ? 1 : (uint8_t)rnd();
	a->flags = rnd() % 8 ? 0 : rnd();
	for (i = 0; i < n; i++) {
		unsigned int t = rnd() % (sizeof(spec_types) / sizeof(spec_types[0]));
		uint16_t size = spec_sizes[t];
		uint32_t type = spec_types[t];

		if (rnd() % 8 == 0)
			size = (uint16_t)(rnd() % 120);	/* a wrong size */
		if (off + size + 8 > cap)
			break;
		if (rnd() % 8 == 0)
			type |= IBV_FLOW_SPEC_INNER;
		for (k = 8; k < size; k++)	/* values and masks */
			buf[off + k] = rnd() & 1 ? 0 : (uint8_t)rnd();
		memcpy(buf + off, &type, sizeof(type));
		memcpy(buf + off + 4, &size, sizeof(size));
		/* a spec after a wrong size may be misaligned: written bytewise */
		if ((type & ~IBV_FLOW_SPEC_INNER) == IBV_FLOW_SPEC_ACTION_COUNT &&
		    size >= sizeof(struct ibv_flow_spec_counter_action))
			memcpy(buf + off + offsetof(struct ibv_flow_spec_counter_action, counters),
			       &cnt, sizeof(cnt));
		if ((type & ~IBV_FLOW_SPEC_INNER) == IBV_FLOW_SPEC_ACTION_HANDLE &&
		    size >= sizeof(struct ibv_flow_spec_action_handle))
			memset(buf + off + 8, 0, 8);	/* no action object */
		off += size;
		a->num_of_specs++;
	}
	a->size = (uint16_t)off;
	return a;
}

static int
fz_verbs(uint32_t seed)
{
	static uint8_t buf[1024];
	struct ibv_counter_attach_attr ca = { .counter_desc = IBV_COUNTER_PACKETS };
	struct ibv_counters *cnt;
	struct tv_qp q;
	unsigned int i, made = 0, refused = 0;

	fz_seed = seed ? seed : 1;
	printf("  seed %u\n", seed);
	TEST_ASSERT_EQ(tv_open(), 0, "open");
	TEST_ASSERT_EQ(tv_qp_create(&q, true), 0, "qp");
	cnt = ibv_create_counters(tv_ctx, NULL);
	TEST_ASSERT(cnt != NULL, "");
	TEST_ASSERT_EQ(ibv_attach_counters_point_flow(cnt, &ca, NULL), 0, "");
	for (i = 0; i < FZ_ROUNDS; i++) {
		struct ibv_flow *f;

		errno = 0;
		f = ibv_create_flow(q.qp, fz_attr(buf, sizeof(buf), cnt));
		if (f == NULL) {
			refused++;
			TEST_ASSERT(allowed(errno), "seed %u round %u: errno %d", seed, i, errno);
			continue;
		}
		made++;
		TEST_ASSERT_EQ(ibv_destroy_flow(f), 0, "seed %u round %u", seed, i);
	}
	printf("  %u flows created, %u refused\n", made, refused);
	TEST_ASSERT(made > 0 && refused > 0, "both paths exercised");
	TEST_ASSERT_EQ(ibv_destroy_counters(cnt), 0, "");
	tv_qp_destroy(&q);
	return TEST_SUCCESS;
}

_Static_assert(offsetof(struct mlx5dv_flow_match_parameters, match_buf) == sizeof(size_t),
	       "match_buf right after match_sz");

static int
fz_mlx5dv(uint32_t seed)
{
	/* the layout of struct mlx5dv_flow_match_parameters with 704 bytes
	 * of match_buf (a flexible array cannot be followed by a field) */
	struct fz_match {
		size_t match_sz;
		uint8_t b[704];
	} __attribute__((aligned(8))) mask, value;
	struct tv_qp q;
	unsigned int i, k, made = 0;

	fz_seed = seed ? seed : 1;
	TEST_ASSERT_EQ(tv_open(), 0, "open");
	TEST_ASSERT_EQ(tv_qp_create(&q, true), 0, "qp");
	for (i = 0; i < FZ_ROUNDS / 4; i++) {
		struct mlx5dv_flow_matcher_attr ma = {
			.type = IBV_FLOW_ATTR_NORMAL,
			.match_criteria_enable = (uint8_t)(rnd() % 4 ? 1 : rnd()),
			.match_mask = (struct mlx5dv_flow_match_parameters *)(void *)&mask,
			.priority = (uint16_t)(rnd() % 4),
		};
		struct mlx5dv_flow_action_attr act = {
			.type = rnd() % 4 ? MLX5DV_FLOW_ACTION_DEST_IBV_QP : rnd() % 8,
			.qp = q.qp,
		};
		struct mlx5dv_flow_matcher *m;
		struct ibv_flow *f;

		memset(&mask, 0, sizeof(mask));
		memset(&value, 0, sizeof(value));
		mask.match_sz = rnd() % 8 ? 64 : rnd() % 720;
		value.match_sz = rnd() % 8 ? mask.match_sz : rnd() % 720;
		for (k = 0; k < 64 && k < mask.match_sz; k++)
			mask.b[k] = rnd() % 4 ? 0 : 0xff;
		if (rnd() % 8 == 0)
			mask.b[rnd() % sizeof(mask.b)] = 1;
		for (k = 0; k < 64; k++)
			value.b[k] = (uint8_t)rnd() & mask.b[k];
		if (rnd() % 8 == 0)	/* a value bit outside the mask */
			value.b[rnd() % 64] |= 0x10;
		errno = 0;
		m = mlx5dv_create_flow_matcher(tv_ctx, &ma);
		if (m == NULL) {
			if (getenv("FZ_WHY"))
				printf("WHY matcher %d\n", errno);
			TEST_ASSERT(allowed(errno), "seed %u round %u: matcher errno %d",
				    seed, i, errno);
			continue;
		}
		errno = 0;
		f = mlx5dv_create_flow(m, (struct mlx5dv_flow_match_parameters *)(void *)&value, 1,
				       &act);
		if (getenv("FZ_WHY") && f == NULL)
			printf("WHY flow %d\n", errno);
		if (f != NULL) {
			made++;
			TEST_ASSERT_EQ(ibv_destroy_flow(f), 0, "");
		} else {
			TEST_ASSERT(allowed(errno), "seed %u round %u: flow errno %d",
				    seed, i, errno);
		}
		TEST_ASSERT_EQ(mlx5dv_destroy_flow_matcher(m), 0, "");
	}
	printf("  %u mlx5dv flows created\n", made);
	TEST_ASSERT(made > 0, "");
	tv_qp_destroy(&q);
	return TEST_SUCCESS;
}

static int
test_verbs_fixed_seed(void)
{
	return fz_verbs(20261122);
}

static int
test_verbs_random_seed(void)
{
	return fz_verbs(tally_test_random_seed());
}

static int
test_mlx5dv_fixed_seed(void)
{
	return fz_mlx5dv(20261122);
}

static int
test_mlx5dv_random_seed(void)
{
	return fz_mlx5dv(tally_test_random_seed());
}

static const struct tally_test_case cases[] = {
	TEST_CASE(test_verbs_fixed_seed),
	TEST_CASE(test_verbs_random_seed),
	TEST_CASE(test_mlx5dv_fixed_seed),
	TEST_CASE(test_mlx5dv_random_seed),
};

TEST_MAIN("verbs-fuzz", cases)
