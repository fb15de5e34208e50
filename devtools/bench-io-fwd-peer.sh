#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# bench-io-fwd-peer.sh [BUILD_DIR [ROUNDS [SECONDS]]]: stock dpdk-testpmd io
# forwarding, one forwarding core, in one run, interleaved (the order rotates
# every round), ROUNDS rounds (default 5), median and range in Mpps:
#   - net_tally0 inline: the device model runs in the burst functions of the
#     forwarding core (loop wire, 4 x 32 frames of 64 bytes in flight);
#   - net_tally0,mode=thread: the same with the device on its own thread;
#   - net_null0: DPDK's null PMD, the peer (no device behind it at all);
#   - net_null0,copy=1: the null PMD copying every frame's 64 bytes from a
#     buffer of its own on Rx and into it on Tx: what a copy per frame, which
#     a device must make and net_null does not, costs the same testpmd.
# Cores (-l 0-1): lcore 0 is testpmd's main lcore, which only waits for
# commands, lcore 1 is the forwarding core. The device thread is created at
# probe by the main lcore and inherits its CPU set, so it runs on CPU 0 next
# to the idle main lcore, never on the forwarding core's CPU.
# OLD_PMD=path/librte_net_tally.so adds "old inline" and "old thread" rows
# (an earlier build, measured in the same rounds) to compare versions.
# The last line, "summary: mem=MODE inline=M thread=M null=M" (medians,
# Mpps), is for devtools/bench-all.sh.
# A benchmark, not a test: other load on the machine widens the ranges.
# EAL's memory follows TALLY_TEST_MEM (devtools/eal-mem.sh): hugepages with
# IOVA as PA by default, TALLY_TEST_MEM=nohuge for --no-huge.
set -euo pipefail
cd "$(dirname "$0")/.."
. devtools/eal-mem.sh
tally_eal_mem_skip
build=${1:-build}
rounds=${2:-5}
secs=${3:-3}
pmd="$PWD/$build/drivers/net/tally/librte_net_tally.so"
[ -f "$pmd" ] || { echo "no $pmd: build first (devtools/build.sh $build)" >&2; exit 1; }
names=(inline thread null null-copy)
if [ -n "${OLD_PMD:-}" ]; then names+=(old-inline old-thread); fi
one() {	# one(name) -> "pps early"
	local args
	case $1 in
	inline) args=(--pmd "$pmd" --vdev net_tally0) ;;
	thread) args=(--pmd "$pmd" --vdev net_tally0,mode=thread) ;;
	null) args=(--vdev net_null0) ;;
	null-copy) args=(--vdev net_null0,copy=1) ;;
	old-inline) args=(--pmd "$OLD_PMD" --vdev net_tally0) ;;
	old-thread) args=(--pmd "$OLD_PMD" --vdev net_tally0,mode=thread) ;;
	esac
	python3 devtools/bench-io-fwd.py "${args[@]}" --secs "$secs" 2>/dev/null |
		sed -n 's/^pps=\([0-9.]*\) early=\([0-9]*\).*/\1 \2/p'
}
declare -A res early
n=${#names[@]}
for r in $(seq "$rounds"); do
	for k in $(seq 0 $((n - 1))); do
		name=${names[$(((k + r - 1) % n))]}
		read -r v e < <(one "$name")
		v=$(awk -v v="$v" 'BEGIN {printf "%.3f", v / 1e6}')
		res[$name]="${res[$name]:-} $v"
		early[$name]="${early[$name]:-} $e"
		echo "round $r $name $v Mpps (RX-packets $e at 0.2 s)" >&2
	done
done
stats() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{v[NR]=$1} END {printf "%s (%s..%s)", v[int((NR+1)/2)], v[1], v[NR]}'; }
med() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {if (b > 0) printf "%.2f", a / b; else print "-"}'; }
nul=$(echo "${res[null]}" | med)
inl=$(echo "${res[inline]}" | med)
printf "%-12s %-26s %-10s %-10s %s\n" config "Mpps median (range)" "/net_null" "/inline" "RX-packets at 0.2 s (min)"
for name in "${names[@]}"; do
	m=$(echo "${res[$name]}" | med)
	printf "%-12s %-26s %-10s %-10s %s\n" "$name" "$(echo "${res[$name]}" | stats)" \
		"$(ratio "$m" "$nul")" "$(ratio "$m" "$inl")" \
		"$(echo "${early[$name]}" | tr ' ' '\n' | grep -v '^$' | sort -g | head -1)"
done
summary="summary: mem=${TALLY_TEST_MEM:-pa}"
for name in "${names[@]}"; do summary+=" $name=$(echo "${res[$name]}" | med)"; done
echo "$summary"
