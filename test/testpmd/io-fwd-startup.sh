#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# io-fwd-startup.sh PMD_SO VDEV MIN: stock testpmd io forwarding over the loop
# wire must be at speed from its start: RX-packets 0.2 s after `start
# tx_first 4` (timed from testpmd's answer to it, see devtools/bench-io-fwd.py)
# must reach MIN. MIN is generous (a loaded 2-core machine forwards well over
# ten times as many); forwarding at a few thousand packets/s during the first
# second, as a start-up stall would, fails it. Exit 77 (skipped) where the
# memory mode of TALLY_TEST_MEM cannot run (devtools/eal-mem.sh).
set -euo pipefail
pmd=$1 vdev=$2 min=$3
tools=$(cd "$(dirname "$0")/../../devtools" && pwd)
. "$tools/eal-mem.sh"
tally_eal_mem_skip
san=$(ldd "$pmd" | awk '/lib(asan|ubsan)\.so/ {print $3}' | tr '\n' ' ')
if [ -n "$san" ]; then
	export LD_PRELOAD="$san${LD_PRELOAD:-}"
	export ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0"
fi
out=$(python3 "$tools/bench-io-fwd.py" --pmd "$pmd" --vdev "$vdev" --early 0.2 \
	--warm 0.3 --secs 0.5)
echo "$out"
early=$(echo "$out" | sed -n 's/.*early=\([0-9]*\).*/\1/p')
pps=$(echo "$out" | sed -n 's/^pps=\([0-9.]*\).*/\1/p')
[ -n "$early" ] && [ -n "$pps" ] || { echo "no measurement" >&2; exit 1; }
if [ "$early" -lt "$min" ]; then
	echo "FAIL: $early packets forwarded in the first 0.2 s, expected at least $min" >&2
	exit 1
fi
awk -v p="$pps" 'BEGIN { exit !(p > 0) }' || { echo "FAIL: no forwarding after the start" >&2; exit 1; }
echo "ok: $early packets in the first 0.2 s"
