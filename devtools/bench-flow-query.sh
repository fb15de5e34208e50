#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# bench-flow-query.sh [BUILD_DIR [ROUNDS [RULES [QUERIES]]]]: rte_flow_query
# of a COUNT on net_tally against the floor PMD (net_flowfloor,
# test/perf/flowfloor_pmd.c: a rule is a malloc'ed object naming an entry
# of a counter array), interleaved: every round runs test/perf/flow_bench
# on both, the order alternating. flow_bench creates RULES rules (eth /
# ipv4 src / udp -> count / queue), then queries one hot rule QUERIES times
# and QUERIES random rules among them (reset=0, then reset=1).
# Prints ns/query as median [min..max] per PMD, Tally/floor of the medians,
# and a last line "summary: ..." for bench-all.sh.
# Defaults: build, 5 rounds, 1000000 rules, 10000000 queries. A benchmark,
# not a test: it needs the machine to itself.
# EAL's memory follows TALLY_TEST_MEM (devtools/eal-mem.sh): hugepages with
# IOVA as PA by default, TALLY_TEST_MEM=nohuge for --no-huge.
set -euo pipefail
cd "$(dirname "$0")/.."
. devtools/eal-mem.sh
. devtools/eal-plugin.sh
. devtools/bench-lib.sh
tally_eal_mem_skip
build=${1:-build}
rounds=${2:-5}
rules=${3:-1000000}
queries=${4:-10000000}
bin="$PWD/$build/test/perf/flow_bench"
floor="$PWD/$build/test/perf/librte_net_flowfloor.so"
for f in "$bin" "$floor"; do
	[ -e "$f" ] || { echo "no $f: build first (devtools/build.sh $build)" >&2; exit 1; }
done
floor=$(tally_plugin "$floor")
mem=$(bench_mem_mb "$rules")

# one PMD -> "hot random random_reset" (ns/query)
one() {
	local out
	if [ "$1" = floor ]; then
		out=$(FLOW_BENCH_FLOOR=$floor "$bin" "$rules" "$mem" "$queries" 2>&1)
	else
		out=$(FLOW_BENCH_FLOOR= "$bin" "$rules" "$mem" "$queries" 2>&1)
	fi || { echo "flow_bench ($1) failed:" >&2; tail -20 <<<"$out" >&2; exit 1; }
	awk '/^query hot rule/ { h = $(NF-1) }
	     /^query random of .*reset=0/ { r = $(NF-1) }
	     /^query random of .*reset=1/ { z = $(NF-1) }
	     END { print h, r, z }' <<<"$out"
}
stats() { bench_stats "$@"; }
declare -A res
for r in $(seq "$rounds"); do
	if [ $((r % 2)) -eq 1 ]; then order="tally floor"; else order="floor tally"; fi
	for pmd in $order; do
		read -r h q z < <(one "$pmd")
		res[$pmd.hot]+="$h "
		res[$pmd.random]+="$q "
		res[$pmd.reset]+="$z "
		echo "round $r $pmd: hot $h, random $q, random reset=1 $z ns/query" >&2
	done
done
fmt() { read -r m lo hi < <(stats "$1"); printf "%.1f [%.1f..%.1f]" "$m" "$lo" "$hi"; }
med() { stats "$1" | cut -d' ' -f1; }
lbl=$((rules / 1000))K
[ $((rules % 1000000)) -ne 0 ] || lbl=$((rules / 1000000))M
echo
echo "rte_flow_query COUNT, $rules rules, $queries queries per figure, $rounds rounds," \
     "$(tally_eal_mem "$mem"); ns/query, median [min..max]"
printf '%-30s %-24s %-24s %s\n' figure Tally floor "Tally/floor"
declare -A ratio
for k in hot random reset; do
	case $k in
	hot) label="query hot rule" ;;
	random) label="query random of $lbl" ;;
	reset) label="query random, reset=1" ;;
	esac
	ratio[$k]=$(awk -v a="$(med "${res[tally.$k]}")" -v b="$(med "${res[floor.$k]}")" \
		'BEGIN { printf "%.2f", a / b }')
	printf '%-30s %-24s %-24s %s\n' "$label" "$(fmt "${res[tally.$k]}")" \
	       "$(fmt "${res[floor.$k]}")" "${ratio[$k]}"
done
echo "summary: mem=$(tally_eal_mem_mode) rules=$lbl" \
     "tally.hot=$(med "${res[tally.hot]}") floor.hot=$(med "${res[floor.hot]}")" \
     "tally.random=$(med "${res[tally.random]}") floor.random=$(med "${res[floor.random]}")" \
     "tally.reset=$(med "${res[tally.reset]}") floor.reset=$(med "${res[floor.reset]}")"
