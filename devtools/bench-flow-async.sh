#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# bench-flow-async.sh [BUILD_DIR [ROUNDS [SIZES [QUEUES]]]]: the template /
# flow-queue insertion benchmark (test/perf/async_bench) on net_tally,
# interleaved rounds over every size and queue count. Per case: insert and
# destroy rate (M rules/s) as median [min..max] over the rounds, the insert
# rate per CPU-second of the worker threads (steadier than the wall clock
# when other work shares the machine), and the insert rate of the last
# 1M-rule segment over the first ("flat" = 1.00).
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
[ -x "$bin" ] || { echo "no $bin: build first (devtools/build.sh $build)" >&2; exit 1; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

stats() {	# values -> "median min max"
	tr ' ' '\n' <<<"$*" | grep -v '^$' | sort -g |
	awk '{ v[NR] = $1 } END { m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2;
	       printf "%.2f [%.2f..%.2f]\n", m, v[1], v[NR] }'
}

declare -A ins del cpu flat
for r in $(seq 1 "$rounds"); do
	for n in $sizes; do
		for q in $queues; do
			mem=$(( 1024 + n / 1000000 * 640 ))
			log="$out/$n-$q.log"
			echo "+ $bin $n $q $mem" >&2
			"$bin" "$n" "$q" "$mem" >"$log" 2>&1 || {
				echo "run failed, log follows" >&2; tail -20 "$log" >&2; exit 1; }
			read -r i d c f < <(awk '
				/^insert:/ { ins = $(NF-4) }
				/^destroy:/ { del = $(NF-4) }
				/insert cpu:/ { cpu = $(NF-4) }
				/insert segment/ { if (first == "") first = $(NF-2); last = $(NF-2) }
				END { printf "%s %s %s %.2f\n", ins, del, cpu, last / first }' "$log")
			ins[$n,$q]+="$i "
			del[$n,$q]+="$d "
			cpu[$n,$q]+="$c "
			flat[$n,$q]+="$f "
			echo "round $r: $n rules, $q queue(s): insert $i, destroy $d M/s, insert $c M per cpu-s, last/first segment $f" >&2
		done
	done
done
echo
echo "async_bench (templates, flow queues, COUNT+QUEUE, ipv4 src), $rounds rounds; median [min..max]"
printf '%-22s %-24s %-24s %-24s %s\n' "case" "insert (M rules/s)" "destroy (M rules/s)" \
       "insert (M/cpu-s)" "insert last/first 1M"
for n in $sizes; do
	for q in $queues; do
		printf '%-22s %-24s %-24s %-24s %s\n' "$((n / 1000000))M rules, $q queue(s)" \
		       "$(stats "${ins[$n,$q]}")" "$(stats "${del[$n,$q]}")" \
		       "$(stats "${cpu[$n,$q]}")" "$(stats "${flat[$n,$q]}")"
	done
done
summary="summary: mem=${TALLY_TEST_MEM:-pa}"
for n in $sizes; do
	for q in $queues; do
		m="$((n / 1000000))M.${q}q"
		summary+=" insert.$m=$(stats "${ins[$n,$q]}" | cut -d' ' -f1)"
		summary+=" destroy.$m=$(stats "${del[$n,$q]}" | cut -d' ' -f1)"
		summary+=" flat.$m=$(stats "${flat[$n,$q]}" | cut -d' ' -f1)"
	done
done
echo "$summary"
