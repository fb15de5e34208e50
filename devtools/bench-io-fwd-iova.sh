#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# bench-io-fwd-iova.sh [BUILD_DIR [ROUNDS [SECONDS]]]: stock dpdk-testpmd io
# forwarding (devtools/bench-io-fwd.py: one forwarding core, a loop wire,
# 4 x 32 frames of 64 bytes in flight) of net_tally0 inline in each EAL
# memory mode, with net_null0 in the same modes as the peer: hugepages with
# IOVA as PA, hugepages with IOVA as VA, and --no-huge. In one run,
# interleaved (the order rotates every round), ROUNDS rounds (default 5),
# median and range in Mpps, and the ratios that say whether translation
# costs the same in both IOVA modes (tally PA / tally VA) and against the
# peer. OLD_PMD=path/librte_net_tally.so adds the rows "old-pa" and
# "old-va" (an earlier build, same rounds). A benchmark, not a test.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
rounds=${2:-5}
secs=${3:-3}
pmd="$PWD/$build/drivers/net/tally/librte_net_tally.so"
[ -f "$pmd" ] || { echo "no $pmd: build first (devtools/build.sh $build)" >&2; exit 1; }
names=(tally-pa tally-va tally-nohuge null-pa null-va null-nohuge)
if [ -n "${OLD_PMD:-}" ]; then names+=(old-pa old-va); fi
# CONFIGS="tally-pa tally-va old-va": only those (a peer row missing from
# them gives its ratio as -)
if [ -n "${CONFIGS:-}" ]; then read -r -a names <<< "$CONFIGS"; fi
for m in pa va; do
	why=$(TALLY_TEST_MEM=$m bash devtools/eal-mem.sh check) ||
		{ echo "bench-io-fwd-iova: $m: $why" >&2; exit 77; }
done
one() {	# one(name) -> pps
	local args mem=${1##*-}
	case $1 in
	tally-*) args=(--pmd "$pmd" --vdev net_tally0) ;;
	null-*) args=(--vdev net_null0) ;;
	old-*) args=(--pmd "$OLD_PMD" --vdev net_tally0) ;;
	esac
	TALLY_TEST_MEM=$mem python3 devtools/bench-io-fwd.py "${args[@]}" --secs "$secs" 2>/dev/null |
		sed -n 's/^pps=\([0-9.]*\).*/\1/p'
}
declare -A res
n=${#names[@]}
for r in $(seq "$rounds"); do
	for k in $(seq 0 $((n - 1))); do
		name=${names[$(((k + r - 1) % n))]}
		v=$(one "$name")
		v=$(awk -v v="${v:-0}" 'BEGIN {printf "%.3f", v / 1e6}')
		res[$name]="${res[$name]:-} $v"
		echo "round $r $name $v Mpps" >&2
	done
done
stats() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{v[NR]=$1} END {printf "%s (%s..%s)", v[int((NR+1)/2)], v[1], v[NR]}'; }
med() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {if (b > 0) printf "%.2f", a / b; else print "-"}'; }
printf "%-13s %-26s %s\n" config "Mpps median (range)" "/net_null same mode"
for name in "${names[@]}"; do
	peer=null-${name##*-}
	printf "%-13s %-26s %s\n" "$name" "$(echo "${res[$name]}" | stats)" \
		"$(ratio "$(echo "${res[$name]}" | med)" "$(echo "${res[$peer]:-}" | med)")"
done
pa=$(echo "${res[tally-pa]:-}" | med)
va=$(echo "${res[tally-va]:-}" | med)
echo "tally IOVA as PA / IOVA as VA: $(ratio "${pa:-0}" "${va:-0}")"
