#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# fuzz.sh [SECONDS [TARGET...]]: configure build-fuzz/ with clang
# (-Dfuzz=true, ASan + UBSan, libFuzzer coverage in every library), build
# the libFuzzer targets of test/fuzz and run each one in turn, one process,
# for SECONDS (default 60). New inputs go to build-fuzz/corpus/<target>
# (the seeds in test/fuzz/corpus/<target> are only read), crashes to
# build-fuzz/artifacts/. Prints libFuzzer's final lines per target.
#
# fuzz.sh --ci TARGET: run TARGET on its seed corpus plus a fixed number of
# mutations (TALLY_FUZZ_RUNS, default 2000, fixed seed): what the `fuzz`
# test suite runs. Exits 77 (skipped) when clang is not installed.
#
# Targets: device mlx5dv_match parse rx verbs_spec (doc/fuzzing.md).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${TALLY_FUZZ_BUILD:-build-fuzz}
all="device mlx5dv_match parse rx verbs_spec"
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

build_targets() {
	if ! command -v clang >/dev/null; then
		echo "fuzz: clang is not installed (devtools/setup.sh installs it): skipped" >&2
		exit 77
	fi
	mkdir -p "$build"
	exec 9>"$build/.fuzz-lock"
	flock 9
	# a build configured before the rx target (without DPDK) starts over
	if [ -f "$build/build.ninja" ] && [ ! -f "$build/.fuzz-dpdk" ]; then
		find "$build" -mindepth 1 -maxdepth 1 ! -name corpus ! -name artifacts \
			! -name .fuzz-lock -exec rm -rf {} +
	fi
	if [ ! -f "$build/build.ninja" ]; then
		CC=clang meson setup "$build" -Ddpdk_sdk="$(bash devtools/setup.sh | tail -1)" -Dfuzz=true \
			-Db_sanitize=address,undefined -Db_lundef=false \
			-Dc_args='-fsanitize=fuzzer-no-link -fno-sanitize-recover=all' >/dev/null
		touch "$build/.fuzz-dpdk"
	fi
	local t targets=()
	for t in "$@"; do targets+=("test/fuzz/fuzz_$t"); done
	ninja -C "$build" -j2 "${targets[@]}" >/dev/null || ninja -C "$build" -j1 "${targets[@]}"
	flock -u 9
}

if [ "${1:-}" = "--ci" ]; then
	t=${2:?fuzz.sh --ci TARGET}
	build_targets "$t"
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	mkdir "$tmp/new"
	set +e
	"$build/test/fuzz/fuzz_$t" -runs="${TALLY_FUZZ_RUNS:-2000}" -seed=1 -timeout=20 \
		-max_len=4096 -artifact_prefix="$tmp/" "$tmp/new" "test/fuzz/corpus/$t" \
		> "$tmp/log" 2>&1 &
	wait $!
	st=$?
	set -e
	grep -E '^#[0-9]+[[:space:]]+(INITED|DONE)|^Done' "$tmp/log" || true
	[ $st -eq 0 ] || cat "$tmp/log"
	exit $st
fi

secs=${1:-60}
shift || true
targets=${*:-$all}
# shellcheck disable=SC2086
build_targets $targets
mkdir -p "$build/artifacts"
rc=0
for t in $targets; do
	mkdir -p "$build/corpus/$t"
	cmd=("$build/test/fuzz/fuzz_$t" -max_total_time="$secs" -timeout=20 -max_len=4096
	     -print_final_stats=1 -artifact_prefix="$build/artifacts/$t-"
	     "$build/corpus/$t" "test/fuzz/corpus/$t")
	echo "+ ${cmd[*]}"
	set +e
	"${cmd[@]}" > "$build/fuzz-$t.log" 2>&1
	st=$?
	set -e
	grep -E '^#[0-9]+[[:space:]]+(INITED|DONE|pulse|NEW|REDUCE)' "$build/fuzz-$t.log" | tail -n 1
	grep -E '^(Done|stat::number_of_executed_units|stat::average_exec_per_sec|stat::peak_rss_mb)' "$build/fuzz-$t.log" || true
	if [ $st -ne 0 ]; then
		echo "fuzz: $t failed ($st), see $build/fuzz-$t.log" >&2
		grep -E 'ERROR|runtime error|SUMMARY|Test unit written' "$build/fuzz-$t.log" | head -n 5 >&2
		rc=1
	fi
done
exit $rc
