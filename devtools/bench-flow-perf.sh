#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# bench-flow-perf.sh [BUILD_DIR [ROUNDS [SIZES]]]: stock dpdk-test-flow-perf
# on net_tally and on the floor (net_flowfloor, the benchmark-only reference
# PMD of test/perf/flowfloor_pmd.c), interleaved: every round runs each size
# on both PMDs back to back, in the order of the list below in odd rounds
# and in the reverse order in even ones (which run follows which changed a
# PMD's delete rate by a fifth on the Intel family 6 model 167 of
# doc/benchmarks.md). Rules: eth / ipv4 src / udp -> count / queue
# (rules differ by IPv4 source), batches of SIZE/10, synchronous
# rte_flow_create then rte_flow_destroy of every rule.
#
# Per PMD and size: insertion and deletion rate (M rules/s) and peak RSS per
# rule, as median [min..max] over the rounds, and Tally/floor ratios of the
# medians. Peak RSS per rule = (peak of the run - peak of a 100-rule
# floor run with 128 counters) / rules, where a peak is resident memory
# plus hugetlbfs pages (bench_run_peak): everything the PMD allocates
# counts, the counter bank and pre-sized tables included, and peaks
# (growth, deferred frees) included. "1M->4M" is the target's figure:
# (HWM at 4M - HWM at 1M) / 3M, both runs with the same devargs.
#
# The last line, "summary: mem=MODE tally.insert.1M=... floor.insert.1M=...
# tally.delete.1M=... tally.rss.1M=... ..." (medians: M rules/s, bytes per
# rule), is for devtools/bench-all.sh.
#
# OLD_PMD=path/librte_net_tally.so (an earlier build) adds "old" rows,
# measured in the same rounds, right after Tally, and its ratio to the
# floor: a before/after comparison with the floor as the yardstick.
# FLOOR_SLOTS=1 adds "floor+slot" rows: the floor PMD with slots=<2 x
# counters> (one random hash slot per rule, written at create, read and
# written at destroy, prefetched as Tally does: test/perf/flowfloor_pmd.c),
# its ratio to the floor (what the slot alone costs on this machine), and
# Tally's ratio to it.
#
# Defaults: build, 5 rounds, sizes "1000000 4000000". Both PMDs get
# counters=<size rounded up to a power of two> (Tally pre-sizes its first
# matcher from its counter bank). A benchmark, not a test: it needs the
# machine to itself (2 lcores busy for minutes).
# EAL's memory follows TALLY_TEST_MEM (devtools/eal-mem.sh): hugepages with
# IOVA as PA by default, TALLY_TEST_MEM=nohuge for --no-huge -m <1024 + 640
# per million rules>.
set -euo pipefail
cd "$(dirname "$0")/.."
. devtools/eal-mem.sh
. devtools/eal-plugin.sh
. devtools/bench-lib.sh
tally_eal_mem_skip
build=${1:-build}
rounds=${2:-5}
sizes=${3:-"1000000 4000000"}
tally="$PWD/$build/drivers/net/tally/librte_net_tally.so"
floor="$PWD/$build/test/perf/librte_net_flowfloor.so"
for f in "$tally" "$floor"; do
	[ -f "$f" ] || { echo "no $f: build first (devtools/build.sh $build)" >&2; exit 1; }
done
tally=$(tally_plugin "$tally")
floor=$(tally_plugin "$floor")
pmds="floor tally"
if [ -n "${OLD_PMD:-}" ]; then
	[ -f "$OLD_PMD" ] || { echo "OLD_PMD: no $OLD_PMD" >&2; exit 1; }
	old=$(tally_plugin "$OLD_PMD")
	pmds+=" old"
fi
[ -z "${FLOOR_SLOTS:-}" ] || pmds+=" slots"
max=0
for n in $sizes; do [ "$n" -gt "$max" ] && max=$n; done
mem=$(bench_mem_mb "$max")
read -ra eal_mem <<<"$(tally_eal_mem "$mem")"
out=$(mktemp -d)
trap 'rm -rf "$out" "/var/run/dpdk/flow-perf-$$"' EXIT

# run PMD RULES -> "ins_krps del_krps hwm_kb" on stdout
run() {
	local pmd=$1 n=$2 so vdev batch log cnt=1
	while [ "$cnt" -lt "$n" ]; do cnt=$((cnt * 2)); done
	case $pmd in
	tally) so=$tally; vdev="net_tally0,counters=$cnt" ;;
	old) so=$old; vdev="net_tally0,counters=$cnt" ;;
	floor) so=$floor; vdev="net_flowfloor0,counters=$cnt" ;;
	slots) so=$floor; vdev="net_flowfloor0,counters=$cnt,slots=$((cnt * 2))" ;;
	base) so=$floor; vdev="net_flowfloor0,counters=128" ;;
	esac
	batch=$((n / 10))
	[ "$batch" -ge 1 ] || batch=$n
	log="$out/$pmd-$n.log"
	cmd=(dpdk-test-flow-perf -l 0-1 "${eal_mem[@]}" --no-pci
	     --file-prefix="flow-perf-$$" -d "$so" --vdev "$vdev" --
	     --ingress --ether --ipv4 --udp --queue --count
	     --rules-count="$n" --rules-batch="$batch" --deletion-rate)
	echo "+ ${cmd[*]}" >&2
	bench_run_peak "$log" "${cmd[@]}" || {
		echo "run failed, log follows" >&2; tail -20 "$log" >&2; exit 1; }
	awk '/Total flows insertion rate/ { ins = $(NF-2) }
	     /Total deletion rate/ { del = $(NF-2) }
	     /^HWM / { hwm = $2 }
	     END { printf "%s %s %s\n", ins, del, hwm }' "$log"
}

stats() { bench_stats "$@"; }

declare -A ins del hwm
for r in $(seq 1 "$rounds"); do
	read -r _ _ b < <(run base 100)
	hwm[base]+="$b "
	order=$pmds
	[ $((r % 2)) = 1 ] || order=$(tr ' ' '\n' <<<"$pmds" | tac | tr '\n' ' ')
	for n in $sizes; do
		for pmd in $order; do
			read -r i d h < <(run "$pmd" "$n")
			ins[$pmd,$n]+="$i "
			del[$pmd,$n]+="$d "
			hwm[$pmd,$n]+="$h "
			echo "round $r $pmd $n: insert $i K/s, delete $d K/s, HWM $h KB" >&2
		done
	done
done

read -r base _ _ < <(stats "${hwm[base]}")
fmt() {	# name values scale -> "median [min..max]" (values / scale)
	local m lo hi
	read -r m lo hi < <(stats "$2")
	awk -v m="$m" -v lo="$lo" -v hi="$hi" -v s="$3" \
	    'BEGIN { printf "%.2f [%.2f..%.2f]", m / s, lo / s, hi / s }'
}
perrule() {	# "hwm values" rules -> per-rule bytes list
	local v out=""
	for v in $1; do out+="$(( (v - base) * 1024 / $2 )) "; done
	echo "$out"
}
med() { stats "$1" | cut -d' ' -f1; }
rate_row() {	# label tally-values floor-values (K rules/s)
	printf '%-26s %-24s %-24s %.2f\n' "$1" "$(fmt x "$2" 1000)" "$(fmt x "$3" 1000)" \
	       "$(awk -v a="$(med "$2")" -v b="$(med "$3")" 'BEGIN { print a / b }')"
}
lbl() { if [ $(($1 % 1000000)) -eq 0 ]; then echo "$(($1 / 1000000))M"; else echo "$(($1 / 1000))K"; fi; }

echo
echo "flow-perf COUNT+QUEUE ipv4 src, $rounds rounds, counters=<size up to 2^k>, ${eal_mem[*]};" \
     "median [min..max]; baseline HWM ${base} KB"
printf '%-26s %-24s %-24s %s\n' "figure" "Tally" "floor" "ratio (medians)"
for n in $sizes; do
	m=$(lbl "$n")
	for what in insert delete; do
		if [ $what = insert ]; then t=${ins[tally,$n]}; f=${ins[floor,$n]}
		else t=${del[tally,$n]}; f=${del[floor,$n]}; fi
		rate_row "$what $m (M rules/s)" "$t" "$f"
		if [ -n "${FLOOR_SLOTS:-}" ]; then
			if [ $what = insert ]; then s=${ins[slots,$n]}; else s=${del[slots,$n]}; fi
			rate_row "  floor+slot: $what $m" "$s" "$f"
			rate_row "  Tally / floor+slot" "$t" "$s"
		fi
		[ -n "${OLD_PMD:-}" ] || continue
		if [ $what = insert ]; then t=${ins[old,$n]}; else t=${del[old,$n]}; fi
		rate_row "  old: $what $m" "$t" "$f"
	done
	t=$(perrule "${hwm[tally,$n]}" "$n")
	f=$(perrule "${hwm[floor,$n]}" "$n")
	printf '%-26s %-24s %-24s %.2f\n' "peak RSS/rule $m (B)" \
	       "$(fmt x "$t" 1)" "$(fmt x "$f" 1)" \
	       "$(awk -v a="$(med "$t")" -v b="$(med "$f")" 'BEGIN { print a / b }')"
done
set -- $sizes
if [ $# -ge 2 ]; then
	lo=$1; hi=${!#}
	for pmd in tally floor; do
		d=""
		a=(${hwm[$pmd,$lo]}); b=(${hwm[$pmd,$hi]})
		for i in "${!a[@]}"; do d+="$(( (b[i] - a[i]) * 1024 / (hi - lo) )) "; done
		eval "d_$pmd=\"$d\""
	done
	printf '%-26s %-24s %-24s %.2f\n' "peak RSS/rule $(lbl "$lo")->$(lbl "$hi") (B)" \
	       "$(fmt x "$d_tally" 1)" "$(fmt x "$d_floor" 1)" \
	       "$(awk -v a="$(med "$d_tally")" -v b="$(med "$d_floor")" 'BEGIN { print a / b }')"
fi
summary="summary: mem=${TALLY_TEST_MEM:-pa}"
for n in $sizes; do
	m=$(lbl "$n")
	for pmd in tally floor ${FLOOR_SLOTS:+slots}; do
		summary+=" $pmd.insert.$m=$(awk -v v="$(med "${ins[$pmd,$n]}")" 'BEGIN { printf "%.2f", v / 1000 }')"
		summary+=" $pmd.delete.$m=$(awk -v v="$(med "${del[$pmd,$n]}")" 'BEGIN { printf "%.2f", v / 1000 }')"
		summary+=" $pmd.rss.$m=$(med "$(perrule "${hwm[$pmd,$n]}" "$n")")"
	done
done
echo "$summary"
