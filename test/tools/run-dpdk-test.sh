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
#
# EAL's memory follows TALLY_TEST_MEM (devtools/eal-mem.sh: hugepages with
# IOVA as PA by default); exit 77 where that mode cannot run here. PMD_SO
# goes through devtools/eal-plugin.sh (a private copy when its path has a
# world-writable directory, which EAL refuses).
set -euo pipefail
tries=1
if [ "${1:-}" = --tries ]; then
	tries=$2
	shift 2
fi
pmd=$1 devargs=$2 name=$3
shift 3
tools=$(cd "$(dirname "$0")/../../devtools" && pwd)
. "$tools/eal-mem.sh"
. "$tools/eal-plugin.sh"
tally_eal_mem_skip
read -ra mem <<<"$(tally_eal_mem 512)"
pmd=$(tally_plugin "$pmd")
out=$(mktemp)
prefix=""
trap 'rm -f "$out"; [ -z "$prefix" ] || rm -rf "/var/run/dpdk/$prefix"' EXIT

# A sanitizer build of the PMD needs its runtime loaded first into the
# uninstrumented dpdk-test; dpdk-test's own exit-time leaks are not ours.
san=$(ldd "$pmd" | awk '/lib(asan|ubsan)\.so/ {print $3}' | tr '\n' ' ')
if [ -n "$san" ]; then
	export LD_PRELOAD="$san${LD_PRELOAD:-}"
	export ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0"
fi

run_once() {
	local lost
	prefix="tally-dt-$$-$RANDOM"
	{ for c in "$@"; do echo "$c"; done; echo "$name"; echo quit; } |
		timeout 120 dpdk-test -l 0-1 "${mem[@]}" --no-pci \
		--file-prefix="$prefix" --log-level='pmd.net.tally.*:notice' \
		-d "$pmd" --vdev "net_tally0${devargs:+,$devargs}" > "$out" 2>&1 || true
	# EAL's runtime directory (the telemetry socket)
	rm -rf "/var/run/dpdk/$prefix"
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
