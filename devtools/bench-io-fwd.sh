#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# bench-io-fwd.sh [BUILD_DIR [SECONDS [BURSTS [VDEV]]]]: stock dpdk-testpmd io
# forwarding on one forwarding core over a net_tally loop wire (what the
# port sends comes back to it). `start tx_first BURSTS` puts BURSTS x 32
# frames in flight; each command goes to testpmd once it answered the last
# (devtools/bench-io-fwd.py), so the 0.5 s warm-up and the SECONDS window
# start when forwarding really started. Prints the RX-packets delta over the
# measured window per second. A benchmark, not a test; for net_tally inline,
# mode=thread and net_null side by side see devtools/bench-io-fwd-peer.sh.
# EAL's memory follows TALLY_TEST_MEM (devtools/eal-mem.sh): hugepages with
# IOVA as PA by default, TALLY_TEST_MEM=nohuge for --no-huge.
set -euo pipefail
cd "$(dirname "$0")/.."
. devtools/eal-mem.sh
tally_eal_mem_skip
build=${1:-build}
secs=${2:-10}
bursts=${3:-4}
vdev=${4:-net_tally0}
pmd="$PWD/$build/drivers/net/tally/librte_net_tally.so"
[ -f "$pmd" ] || { echo "no $pmd: build first (devtools/build.sh $build)" >&2; exit 1; }
out=$(python3 devtools/bench-io-fwd.py --pmd "$pmd" --vdev "$vdev" --secs "$secs" --bursts "$bursts")
echo "$out"
echo "$out" | awk -v s="$secs" '/^pps=/ { split($1, a, "="); printf "io fwd over %d s: %.0f packets/s received (RX-packets delta / time)\n", s, a[2] }'
