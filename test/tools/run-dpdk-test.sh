#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# run-dpdk-test.sh [--tries N] PMD_SO DEVARGS TEST [COMMAND...]
#
# Runs DPDK's stock unit-test application (dpdk-test) on one net_tally0 vdev
# (DEVARGS after "net_tally0,", may be empty): types each COMMAND, then TEST,
# at its prompt. Passes when dpdk-test reports "Test OK" and, when the test
# prints a "N packets lost" line (pmd_perf_autotest), N is 0.
#
# --tries N runs it up to N times until one run passes, for tests whose
# verdict depends on scheduling: pmd_perf_autotest's poll_before_xmit gives
# its receiver 10000 empty polls in all, which a busy machine can use up
# before the transmitting lcore runs.
set -euo pipefail
tries=1
if [ "${1:-}" = --tries ]; then
	tries=$2
	shift 2
fi
pmd=$1 devargs=$2 name=$3
shift 3
out=$(mktemp)
trap 'rm -f "$out"' EXIT

# A sanitizer build of the PMD needs its runtime loaded first into the
# uninstrumented dpdk-test; dpdk-test's own exit-time leaks are not ours.
san=$(ldd "$pmd" | awk '/lib(asan|ubsan)\.so/ {print $3}' | tr '\n' ' ')
if [ -n "$san" ]; then
	export LD_PRELOAD="$san${LD_PRELOAD:-}"
	export ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0"
fi

run_once() {
	local prefix="tally-dt-$$-$RANDOM" lost
	{ for c in "$@"; do echo "$c"; done; echo "$name"; echo quit; } |
		timeout 120 dpdk-test -l 0-1 --no-huge -m 512 --no-pci \
		--file-prefix="$prefix" --log-level='pmd.net.tally.*:notice' \
		-d "$pmd" --vdev "net_tally0${devargs:+,$devargs}" > "$out" 2>&1 || true
	cat "$out"
	if ! grep -q '^Test OK' "$out"; then
		echo "FAIL: no 'Test OK' from $name"
		return 1
	fi
	lost=$(sed -n 's/^\([0-9][0-9]*\) packets lost.*/\1/p' "$out" | tail -1)
	if [ -n "$lost" ] && [ "$lost" != 0 ]; then
		echo "FAIL: $lost packets lost"
		return 1
	fi
}

for i in $(seq "$tries"); do
	echo "---- $name on net_tally0${devargs:+,$devargs}, run $i of $tries ----"
	if run_once "$@"; then
		exit 0
	fi
done
exit 1
