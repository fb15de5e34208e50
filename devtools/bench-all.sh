#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# bench-all.sh [BUILD_DIR]: every benchmark of doc/benchmarks.md's summary,
# one after the other, with the arguments the summary uses: io forwarding
# against net_null, stock flow-perf against the floor PMD, template/async
# insertion, classification against rte_hash and ACL. Prints each script's
# table and the load average before and after each. A benchmark, not a
# test: it needs the machine to itself for about ten minutes.
# EAL's memory follows TALLY_TEST_MEM (devtools/eal-mem.sh): hugepages with
# IOVA as PA by default, TALLY_TEST_MEM=nohuge for --no-huge.
set -euo pipefail
cd "$(dirname "$0")/.."
. devtools/eal-mem.sh
tally_eal_mem_skip
build=${1:-build}
run() {
	echo "== $* (load $(cut -d' ' -f1-3 /proc/loadavg))"
	"$@"
	echo
}
run bash devtools/bench-io-fwd-peer.sh "$build" 5 3
run bash devtools/bench-flow-perf.sh "$build" 5 "1000000 4000000"
run bash devtools/bench-flow-async.sh "$build" 5 "1000000 4000000" "1 2"
run bash devtools/bench-cls.sh "$build"
echo "== done (load $(cut -d' ' -f1-3 /proc/loadavg))"
