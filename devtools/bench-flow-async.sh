#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# bench-flow-async.sh [BUILD_DIR [ROUNDS [SIZES [QUEUES]]]]: the template /
# flow-queue insertion benchmark (test/perf/async_bench) on net_tally,
# interleaved rounds over every size and queue count. Per case: insert and
# destroy rate (M rules/s) as median [min..max] over the rounds, the insert
# rate per CPU-second of the worker threads (steadier than the wall clock
# when other work shares the machine), and the insert rate of the last
# 1M-rule segment over the first ("flat" = 1.00). In the same rounds, right
# after each Tally run, the same case on the floor PMD (net_flowfloor,
# test/perf/flowfloor_pmd.c: a malloc'ed rule and a counter per create, at
# enqueue, nothing else), and Tally/floor of the medians: what any PMD
# behind ethdev's async calls costs on this CPU. FLOOR_SLOTS=1 adds the
# floor with one random hash slot per rule ("floor+slot", slots=<2 x
# counters>, test/perf/flowfloor_pmd.c) and its ratio to the floor.
# PORTS2=1 adds, for the first size and two queues, Tally with two ports
# of one queue each (ASYNC_BENCH_PORTS=2: the size's rules on each port,
# nothing of the PMD shared between the two workers) and its ratio to one
# queue: what the two CPUs allow a two-queue figure on this machine.
# The last line, "summary: mem=MODE insert.1M.1q=... flat.1M.1q=... ..."
# (medians: M rules/s, last/first segment), is for devtools/bench-all.sh.
# Defaults: build, 5 rounds, sizes "1000000 4000000", queues "1 2".
# A benchmark, not a test: it needs the machine to itself.
# EAL's memory follows TALLY_TEST_MEM (devtools/eal-mem.sh): hugepages with
# IOVA as PA by default, TALLY_TEST_MEM=nohuge for --no-huge.
set -euo pipefail
cd "$(dirname "$0")/.."
. devtools/eal-mem.sh
tally_eal_mem_skip
build=${1:-build}
rounds=${2:-5}
sizes=${3:-"1000000 4000000"}
queues=${4:-"1 2"}
bin="$PWD/$build/test/perf/async_bench"
floor="$PWD/$build/test/perf/librte_net_flowfloor.so"
[ -x "$bin" ] && [ -e "$floor" ] ||
	{ echo "no $bin or $floor: build first (devtools/build.sh $build)" >&2; exit 1; }
. devtools/eal-plugin.sh
. devtools/bench-lib.sh
floor=$(tally_plugin "$floor")
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

stats() {	# values -> "median [min..max]"
	local m lo hi
	read -r m lo hi < <(bench_stats "$*")
	printf '%.2f [%.2f..%.2f]\n' "$m" "$lo" "$hi"
}

# one PMD SIZE QUEUES -> "insert destroy insert_per_cpu_s last/first"
one() {
	local pmd=$1 n=$2 q=$3 mem log so= slots= ports= cnt=1
	if [ "$pmd" = ports ]; then mem=$(bench_mem_mb "$((2 * n))"); else mem=$(bench_mem_mb "$n"); fi
	log="$out/$pmd-$n-$q.log"
	if [ "$pmd" = slots ]; then
		while [ "$cnt" -lt "$n" ]; do cnt=$((cnt * 2)); done
		slots=$((cnt * 2))
	fi
	[ "$pmd" = tally ] || [ "$pmd" = ports ] || so=$floor
	[ "$pmd" != ports ] || ports=2
	echo "+ ${so:+ASYNC_BENCH_FLOOR=$so }${slots:+ASYNC_BENCH_FLOOR_SLOTS=$slots }${ports:+ASYNC_BENCH_PORTS=$ports }$bin $n $q $mem" >&2
	ASYNC_BENCH_FLOOR=$so ASYNC_BENCH_FLOOR_SLOTS=$slots ASYNC_BENCH_PORTS=$ports \
		"$bin" "$n" "$q" "$mem" >"$log" 2>&1 || {
		echo "run failed, log follows" >&2; tail -20 "$log" >&2; exit 1; }
	awk '/^insert:/ { ins = $(NF-4) }
	     /^destroy:/ { del = $(NF-4) }
	     /insert cpu:/ { cpu = $(NF-4) }
	     /insert segment/ { if (first == "") first = $(NF-2); last = $(NF-2) }
	     END { printf "%s %s %s %.2f\n", ins, del, cpu, last / first }' "$log"
}

declare -A ins del cpu flat
pmds="tally floor${FLOOR_SLOTS:+ slots}"
first=${sizes%% *}
pmds_of() {	# pmds_of SIZE QUEUES
	echo "$pmds"
	[ -z "${PORTS2:-}" ] || [ "$1" != "$first" ] || [ "$2" != 2 ] || echo ports
}
for r in $(seq 1 "$rounds"); do
	for n in $sizes; do
		for q in $queues; do
			for pmd in $(pmds_of "$n" "$q"); do
				read -r i d c f < <(one "$pmd" "$n" "$q")
				ins[$pmd,$n,$q]+="$i "
				del[$pmd,$n,$q]+="$d "
				cpu[$pmd,$n,$q]+="$c "
				flat[$pmd,$n,$q]+="$f "
				echo "round $r: $pmd, $n rules, $q queue(s): insert $i, destroy $d M/s," \
				     "insert $c M per cpu-s, last/first segment $f" >&2
			done
		done
	done
done
med() { stats "$1" | cut -d' ' -f1; }
ratio() { awk -v a="$(med "$1")" -v b="$(med "$2")" 'BEGIN { printf "%.2f", a / b }'; }
echo
echo "async_bench (templates, flow queues, COUNT+QUEUE, ipv4 src), $rounds rounds; median [min..max]"
printf '%-30s %-24s %-24s %-24s %s\n' "case" "insert (M rules/s)" "destroy (M rules/s)" \
       "insert (M/cpu-s)" "insert last/first 1M"
for n in $sizes; do
	for q in $queues; do
		for pmd in $(pmds_of "$n" "$q"); do
			label=${pmd/slots/floor+slot}
			label=${label/ports/Tally on 2 ports}
			printf '%-30s %-24s %-24s %-24s %s\n' \
			       "$label, $((n / 1000000))M rules, $q queue(s)" \
			       "$(stats "${ins[$pmd,$n,$q]}")" "$(stats "${del[$pmd,$n,$q]}")" \
			       "$(stats "${cpu[$pmd,$n,$q]}")" "$(stats "${flat[$pmd,$n,$q]}")"
		done
		printf '%-30s %-24s %-24s %-24s\n' "  Tally/floor" \
		       "$(ratio "${ins[tally,$n,$q]}" "${ins[floor,$n,$q]}")" \
		       "$(ratio "${del[tally,$n,$q]}" "${del[floor,$n,$q]}")" \
		       "$(ratio "${cpu[tally,$n,$q]}" "${cpu[floor,$n,$q]}")"
		if [ -n "${ins[ports,$n,$q]:-}" ]; then
			printf '%-30s %-24s\n' "  2 ports/Tally 1 queue" \
			       "$(ratio "${ins[ports,$n,$q]}" "${ins[tally,$n,1]}")"
		fi
		[ -n "${FLOOR_SLOTS:-}" ] || continue
		printf '%-30s %-24s %-24s %-24s\n' "  floor+slot/floor" \
		       "$(ratio "${ins[slots,$n,$q]}" "${ins[floor,$n,$q]}")" \
		       "$(ratio "${del[slots,$n,$q]}" "${del[floor,$n,$q]}")" \
		       "$(ratio "${cpu[slots,$n,$q]}" "${cpu[floor,$n,$q]}")"
	done
done
summary="summary: mem=${TALLY_TEST_MEM:-pa}"
for n in $sizes; do
	for q in $queues; do
		m="$((n / 1000000))M.${q}q"
		summary+=" insert.$m=$(med "${ins[tally,$n,$q]}")"
		summary+=" destroy.$m=$(med "${del[tally,$n,$q]}")"
		summary+=" flat.$m=$(med "${flat[tally,$n,$q]}")"
		summary+=" floor.insert.$m=$(med "${ins[floor,$n,$q]}")"
		summary+=" floor.destroy.$m=$(med "${del[floor,$n,$q]}")"
		[ -z "${FLOOR_SLOTS:-}" ] || summary+=" slots.insert.$m=$(med "${ins[slots,$n,$q]}")"
		[ -z "${ins[ports,$n,$q]:-}" ] || summary+=" ports.insert.$m=$(med "${ins[ports,$n,$q]}")"
	done
done
echo "$summary"
