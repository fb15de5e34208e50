#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# bench-flow-perf.sh [BUILD_DIR [RULES]]: stock dpdk-test-flow-perf on a
# net_tally vdev: rte_flow_create/destroy rate with COUNT + QUEUE over
# eth / ipv4 src / udp (rules differ by IPv4 source), batches of 100000.
# Prints the command, then flow-perf's own output. A benchmark, not a test.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
rules=${2:-1000000}
pmd="$PWD/$build/drivers/net/tally/librte_net_tally.so"
[ -f "$pmd" ] || { echo "no $pmd: build first (devtools/build.sh $build)" >&2; exit 1; }
cmd=(dpdk-test-flow-perf -l 0-1 --no-huge -m 2048 --no-pci --no-shconf
     --file-prefix="flow-perf-$$" -d "$pmd" --vdev net_tally0 --
     --ingress --ether --ipv4 --udp --queue --count
     --rules-count="$rules" --rules-batch=100000 --deletion-rate)
echo "+ ${cmd[*]}"
"${cmd[@]}" 2>&1 | grep -v '^EAL: \|^TELEMETRY'
