#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# bench-nic.sh [BUILD_DIR [ROUNDS [IO_SECONDS]]]: the in-process model versus
# the device process (tally-nic, host transport), side by side in one run,
# interleaved, ROUNDS rounds (default 5), median and range:
#   - rte_flow_query and rte_pmd_tally_counter_read ns/call on a hot counter
#     (test/perf/counter_bench, 10^7 calls each);
#   - stock testpmd io forwarding Mpps over the loop wire
#     (devtools/bench-io-fwd.sh, one forwarding core).
# A benchmark, not a test: run it on an otherwise idle machine.
# EAL's memory follows TALLY_TEST_MEM (devtools/eal-mem.sh): hugepages with
# IOVA as PA by default, TALLY_TEST_MEM=nohuge for --no-huge.
set -euo pipefail
cd "$(dirname "$0")/.."
. devtools/eal-mem.sh
tally_eal_mem_skip
build=${1:-build}
rounds=${2:-5}
secs=${3:-5}
nic="$PWD/$build/app/tally-nic/tally-nic"
bench="$PWD/$build/test/perf/counter_bench"
[ -x "$nic" ] && [ -x "$bench" ] || { echo "build first: devtools/build.sh $build" >&2; exit 1; }
work=$(mktemp -d)
pid=""
stop_nic() { [ -z "$pid" ] || { kill -TERM "$pid" 2>/dev/null; wait "$pid" 2>/dev/null || true; pid=""; }; }
trap 'stop_nic; rm -rf "$work"' EXIT
start_nic() {
	"$nic" --socket "$work/nic.sock" --log-level 2 &
	pid=$!
	for _ in $(seq 200); do [ -S "$work/nic.sock" ] && return 0; sleep 0.05; done
	echo "tally-nic did not start" >&2; exit 1
}
one() {	# one(kind, transport) -> a number on stdout
	local kind=$1 tr=$2 dev="" vdev="net_tally0" out
	if [ "$tr" = nic ]; then start_nic; dev="dev=$work/nic.sock"; vdev="net_tally0,$dev"; fi
	case $kind in
	query|read)
		out=$("$bench" "$dev" 10000000 2>/dev/null)
		if [ "$kind" = query ]; then echo "$out" | awk '/rte_flow_query/ {print $2}'
		else echo "$out" | awk '/counter_read/ {print $2}'; fi ;;
	iofwd)
		bash devtools/bench-io-fwd.sh "$build" "$secs" 4 "$vdev" 2>/dev/null |
			awk '/packets\/s received/ {printf "%.3f\n", $6 / 1e6}' ;;
	esac
	stop_nic
}
declare -A res
for r in $(seq "$rounds"); do
	for kind in query read iofwd; do
		for tr in model nic; do
			v=$(one "$kind" "$tr")
			res[$kind.$tr]="${res[$kind.$tr]:-} $v"
			echo "round $r $kind $tr $v" >&2
		done
	done
done
stats() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{v[NR]=$1} END {printf "%s (%s..%s)", v[int((NR+1)/2)], v[1], v[NR]}'; }
med() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
printf "%-34s %-24s %-24s %s\n" figure "in-process model" "device process" "process/model"
for kind in query read iofwd; do
	case $kind in
	query) label="rte_flow_query ns/call" ;;
	read) label="rte_pmd_tally_counter_read ns/call" ;;
	iofwd) label="testpmd io fwd Mpps" ;;
	esac
	m=$(echo "${res[$kind.model]}" | med); n=$(echo "${res[$kind.nic]}" | med)
	printf "%-34s %-24s %-24s %s\n" "$label" "$(echo "${res[$kind.model]}" | stats)" \
		"$(echo "${res[$kind.nic]}" | stats)" "$(awk -v a="$n" -v b="$m" 'BEGIN {if (b > 0) printf "%.2f", a / b; else print "-"}')"
done
