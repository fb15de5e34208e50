/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Flow specification parsing of libtally_verbs, free of DPDK and of library
 * state: ibv_flow_spec lists (ibv_create_flow) and mlx5dv match buffers
 * (fte_match_param) into the device's match key (tally_match.h). Errors are
 * positive errno values, as the verbs entry points return them.
 */
#ifndef TALLY_VERBS_SPEC_H
#define TALLY_VERBS_SPEC_H

#include <stdint.h>

#include <infiniband/verbs.h>
#include <infiniband/mlx5dv.h>

#include <tally/tally_match.h>

struct tally_verbs_spec_key {
	uint8_t mask[TALLY_MATCH_KEY_LEN];
	uint8_t value[TALLY_MATCH_KEY_LEN];
};

/* Called for every spec that is not a header spec (actions, unknown types);
 * s is an aligned copy of the spec. 0 or a positive errno. */
typedef int (*tally_verbs_spec_action_fn)(void *arg, const struct ibv_flow_spec *s,
					  uint32_t type);

/* Walk the attr->num_of_specs specs that follow attr, setting header specs
 * into k (which the caller zeroed) and handing the others to action. 0 or
 * the positive errno of the first failing spec. */
int tally_verbs_spec_walk(struct tally_verbs_spec_key *k,
			  const struct ibv_flow_attr *attr,
			  tally_verbs_spec_action_fn action, void *arg);

/* mlx5dv match buffer p zero-extended into key (TALLY_MATCH_KEY_LEN bytes);
 * EINVAL for a NULL p, a bad size or a non-zero tail beyond the key. */
int tally_verbs_match_copy(const struct mlx5dv_flow_match_parameters *p,
			   uint8_t *key);

/* EINVAL when mask has bits in a section match_criteria_enable leaves off. */
int tally_verbs_match_criteria(const uint8_t *mask, uint8_t criteria);

#endif /* TALLY_VERBS_SPEC_H */
