#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# testpmd-session.sh PMD_SO VDEV_ARGS SCRIPT [testpmd args...]
#
# Runs stock dpdk-testpmd on one net_tally vdev, feeding the interactive
# commands of SCRIPT one line at a time. A line "sleep N" pauses; "wait-quiet"
# pauses until port 0's Rx counter stops moving (up to 10 s). testpmd's
# output goes to stdout, line-buffered so stdout and stderr lines keep their
# order. --no-flush-rx: testpmd would otherwise drain the Rx
# queues at "start", and an inline model reading a pcap wire delivers the
# whole file to that drain.
set -euo pipefail
pmd=$1 vdev=$2 script=$3
shift 3
prefix="tally-tp-$$-$RANDOM"

# A sanitizer build of the PMD needs its runtime loaded first into the
# uninstrumented testpmd; testpmd's own exit-time leaks are not ours.
san=$(ldd "$pmd" | awk '/lib(asan|ubsan)\.so/ {print $3}' | tr '\n' ' ')
if [ -n "$san" ]; then
	export LD_PRELOAD="$san${LD_PRELOAD:-}"
	export ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0"
fi

feed() {
	local line
	while IFS= read -r line || [ -n "$line" ]; do
		case "$line" in
		"sleep "*) sleep "${line#sleep }" ;;
		"") ;;
		*) echo "$line"; sleep 0.2 ;;
		esac
	done < "$script"
}

feed | timeout 120 stdbuf -oL -eL dpdk-testpmd -l 0-1 --no-huge -m 512 --no-pci \
	--file-prefix="$prefix" --log-level='pmd.net.tally.*:notice' \
	-d "$pmd" --vdev "$vdev" -- -i --total-num-mbufs=4096 --no-flush-rx "$@" 2>&1
