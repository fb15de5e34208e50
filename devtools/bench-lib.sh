#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# bench-lib.sh: what the rte_flow benchmark scripts share. Sourced.
#   bench_stats "v1 v2 ..."   "median min max" of the values (the median of
#                             an even count: the mean of the middle two)
#   bench_mem_mb RULES        EAL memory (MB) with --no-huge for RULES rules

bench_stats() {
	tr ' ' '\n' <<<"$*" | grep -v '^$' | sort -g |
	awk '{ v[NR] = $1 } END { m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2;
	       printf "%g %g %g\n", m, v[1], v[NR] }'
}

bench_mem_mb() {
	echo $(( 1024 + $1 / 1000000 * 640 ))
}
