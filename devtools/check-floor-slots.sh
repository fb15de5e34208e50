#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# check-floor-slots.sh BUILD_DIR: the floor PMD's slots= (test/perf/
# flowfloor_pmd.c, the benchmarks' "floor+slot") through
# test/perf/async_bench, 100 000 rules on one queue: with slots=2^18 the
# vdev is the floor's with its slots and every create and destroy
# succeeds, as without slots; slots that are not a power of two, or
# ASYNC_BENCH_FLOOR_SLOTS without the floor, are refused.
# Skips (77) when the memory mode of TALLY_TEST_MEM cannot run here.
set -u
cd "$(dirname "$0")/.."
. devtools/eal-mem.sh
. devtools/eal-plugin.sh
build=${1:?usage: check-floor-slots.sh BUILD_DIR}
bin=$build/test/perf/async_bench
if why=$(tally_eal_mem_why_not); then :; else
	echo "check-floor-slots: $why" >&2
	exit 77
fi
floor=$(tally_plugin "$build/test/perf/librte_net_flowfloor.so") || exit 1
out=$(mktemp)
trap 'rm -f "$out"' EXIT
fail=0

# run SLOTS -> status of async_bench on the floor, output in $out
run() {
	ASYNC_BENCH_FLOOR=$floor ASYNC_BENCH_FLOOR_SLOTS=$1 "$bin" 100000 1 512 >"$out" 2>&1
}
expect_ok() {	# expect_ok SLOTS VDEV
	if ! run "$1"; then
		echo "FAIL: slots='$1': async_bench failed"; tail -5 "$out"; fail=1; return
	fi
	grep -q "^async_bench: vdev $2, " "$out" ||
		{ echo "FAIL: slots='$1': not the vdev $2"; grep '^async_bench:' "$out"; fail=1; }
	grep -Eq '^insert: 100000 rules, 1 queue\(s\): .*, 0 failed$' "$out" ||
		{ echo "FAIL: slots='$1': inserts failed"; grep '^insert:' "$out"; fail=1; }
	grep -Eq '^destroy: 100000 rules, 1 queue\(s\): .*, 0 failed$' "$out" ||
		{ echo "FAIL: slots='$1': destroys failed"; grep '^destroy:' "$out"; fail=1; }
}
expect_ok "" "net_flowfloor0,counters=131072"
expect_ok 262144 "net_flowfloor0,counters=131072,slots=262144"
if run 3; then
	echo "FAIL: slots=3 (not a power of two) was taken"; fail=1
elif ! grep -q "failed to initialize net_flowfloor0" "$out"; then
	echo "FAIL: slots=3: not refused at probe"; tail -5 "$out"; fail=1
fi
if ASYNC_BENCH_FLOOR_SLOTS=262144 "$bin" 100000 1 512 >"$out" 2>&1; then
	echo "FAIL: ASYNC_BENCH_FLOOR_SLOTS without the floor was taken"; fail=1
elif ! grep -q "ASYNC_BENCH_FLOOR_SLOTS" "$out"; then
	echo "FAIL: ASYNC_BENCH_FLOOR_SLOTS without the floor: no reason given"; tail -3 "$out"; fail=1
fi
[ "$fail" -eq 0 ] && echo "check-floor-slots: ok"
exit "$fail"
