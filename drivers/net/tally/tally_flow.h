/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rte_flow on Tally: the translation layer between rte_flow and lib/steer.
 *
 * tally_flow_parse.c turns a pattern into a masked match key in the device's
 * fte_match_param layout (struct tally_flow_match) and an action list into a
 * struct tally_flow_acts. Both functions only read their input and write
 * their output: validation allocates nothing. Every rejection goes through
 * rte_flow_error_set() with the exact item or action as cause.
 *
 * The supported items and actions, with the fields the device can match, are
 * the tables at the top of tally_flow_parse.c; doc/guides/nics/features/
 * tally.ini lists the same names and devtools/check-flow-doc.sh diffs them.
 */
#ifndef TALLY_FLOW_H
#define TALLY_FLOW_H

#include <stdint.h>

#include <rte_flow.h>

#include <tally/tally_match.h>

struct tally_flow_match {
	struct tally_match_key mask;
	struct tally_match_key value;	/* value & ~mask == 0 */
	uint8_t criteria;		/* match_criteria_enable: sections used */
};

int tally_flow_parse_pattern(const struct rte_flow_item pattern[],
			     struct tally_flow_match *m,
			     struct rte_flow_error *error);

#endif /* TALLY_FLOW_H */
