#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# bench-all.sh [BUILD_DIR]: every benchmark of doc/benchmarks.md's summary,
# one after the other, with the arguments the summary uses: io forwarding
# against net_null, stock flow-perf against the floor PMD, template/async
# insertion, classification against rte_hash and ACL, the device process
# against the in-process model, vhost-user and memif (bench-nic.sh), the
# floor with one random hash slot per rule, synchronous and async
# ("floor+slot": what that slot alone costs on this machine, the bound
# under the insert and delete figures), two ports of one flow queue each
# (what two CPUs allow the two-queue figure), and rte_flow_query on random rules
# against the floor PMD (bench-flow-query.sh). The whole set runs twice:
# on hugepages (TALLY_TEST_MEM=pa) first, then without (nohuge); a mode
# that cannot run here is skipped with the reason (devtools/eal-mem.sh).
# Prints each script's table as it comes, the load average before and
# after each, and at the end one summary table: a row per figure, for each
# mode "Tally, peer, Tally/peer" (medians, from the "summary:" line every
# script prints last), and the target.
# A benchmark, not a test: it needs the machine to itself for about half an
# hour.
# BENCH_QUICK=1 checks the script itself in a few minutes: 1 round, 1 s
# windows, 100K/400K rules for flow-perf, 1M/2M for async_bench (its
# segments are 1M rules), 100K packets and one pass for classification;
# the figures mean nothing.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [ -n "${BENCH_QUICK:-}" ]; then
	io=(1 1); nic=(1 1); fp=(1 "100000 400000"); as=(1 "1000000 2000000")
	cls=(ROUNDS=1 ITER=1 PACKETS=100000); fq=(1 100000 1000000)
else
	io=(5 3); nic=(5 5); fp=(5 "1000000 4000000"); as=(5 "1000000 4000000")
	cls=(); fq=(5 1000000 10000000)
fi
modes=(pa nohuge)
run() {	# run NAME COMMAND...: the command's output on stdout and in $work
	local name=$1
	shift
	echo "== $mode: $* (load $(cut -d' ' -f1-3 /proc/loadavg))"
	"$@" 2>&1 | tee "$work/$mode.$name.log" || echo "== $name failed in mode $mode"
	echo
}
echo "bench-all: $(grep -m1 '^model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')," \
     "$(nproc) cpus, $(date -u '+%Y-%m-%d %H:%M UTC')${BENCH_QUICK:+, quick mode (BENCH_QUICK)}"
declare -A skip
for mode in "${modes[@]}"; do
	export TALLY_TEST_MEM=$mode
	if ! why=$(bash devtools/eal-mem.sh check); then
		skip[$mode]=$why
		echo "== $mode: skipped: $why"
		continue
	fi
	run io-fwd-peer bash devtools/bench-io-fwd-peer.sh "$build" "${io[@]}"
	run flow-perf env FLOOR_SLOTS=1 bash devtools/bench-flow-perf.sh "$build" "${fp[@]}"
	run flow-async env FLOOR_SLOTS=1 PORTS2=1 bash devtools/bench-flow-async.sh "$build" "${as[@]}" "1 2"
	run cls env "${cls[@]}" bash devtools/bench-cls.sh "$build"
	run nic bash devtools/bench-nic.sh "$build" "${nic[@]}"
	run flow-query bash devtools/bench-flow-query.sh "$build" "${fq[@]}"
done
echo "== done (load $(cut -d' ' -f1-3 /proc/loadavg))"
echo

declare -A v
for mode in "${modes[@]}"; do
	for f in "$work/$mode".*.log; do
		[ -f "$f" ] || continue
		name=${f#"$work/$mode."}
		name=${name%.log}
		for kv in $(grep '^summary:' "$f" | tail -1 | cut -d' ' -f2-); do
			v[$mode.$name.${kv%%=*}]=${kv#*=}
		done
	done
done
read -r s1 s2 <<<"${fp[1]}"
read -r a1 a2 <<<"${as[1]}"
lbl() { if [ $(($1 % 1000000)) -eq 0 ]; then echo "$(($1 / 1000000))M"; else echo "$(($1 / 1000))K"; fi; }
l1=$(lbl "$s1"); l2=$(lbl "$s2"); b1=$(lbl "$a1"); b2=$(lbl "$a2")
cell() {	# cell MODE TALLY_KEY PEER_KEY -> "tally, peer, ratio"
	local t=${v[$1.$2]:--} p="-"
	[ -z "$3" ] || p=${v[$1.$3]:--}
	if [ -n "${skip[$1]:-}" ]; then echo "skipped"; return; fi
	awk -v t="$t" -v p="$p" 'BEGIN {
		r = (t != "-" && p != "-" && p > 0) ? sprintf("%.2f", t / p) : "-"
		printf "%s, %s, %s\n", t, p, r }'
}
row() {	# row FIGURE TALLY_KEY PEER_KEY TARGET
	printf "%-44s | %-26s | %-26s | %s\n" "$1" "$(cell pa "$2" "$3")" \
	       "$(cell nohuge "$2" "$3")" "$4"
}
echo "summary: $(grep -m1 '^model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(date -u '+%Y-%m-%d %H:%M UTC')"
printf "%-44s | %-26s | %-26s | %s\n" figure "hugepages (Tally, peer, ratio)" \
       "--no-huge (Tally, peer, ratio)" target
row "io fwd Mpps, inline / net_null" io-fwd-peer.inline io-fwd-peer.null ">= 0.5"
row "io fwd Mpps, thread / inline" io-fwd-peer.thread io-fwd-peer.inline ">= 1.0"
row "io fwd Mpps, net_null copy=1 / net_null" io-fwd-peer.null-copy io-fwd-peer.null "bound"
row "io fwd Mpps, inline / net_null copy=1" io-fwd-peer.inline io-fwd-peer.null-copy "report"
for l in "$l1" "$l2"; do
	row "flow-perf insert $l M rules/s / floor" "flow-perf.tally.insert.$l" "flow-perf.floor.insert.$l" ">= 0.6"
done
for l in "$l1" "$l2"; do
	row "flow-perf delete $l M rules/s / floor" "flow-perf.tally.delete.$l" "flow-perf.floor.delete.$l" ">= 0.8"
done
for l in "$l1" "$l2"; do
	row "flow-perf insert $l, floor+slot / floor" "flow-perf.slots.insert.$l" "flow-perf.floor.insert.$l" "bound"
	row "flow-perf delete $l, floor+slot / floor" "flow-perf.slots.delete.$l" "flow-perf.floor.delete.$l" "bound"
done
row "flow-perf peak RSS B/rule at $l2 / floor" "flow-perf.tally.rss.$l2" "flow-perf.floor.rss.$l2" "Tally <= 128 B"
row "async insert $b1, 1 queue, M rules/s / floor" "flow-async.insert.$b1.1q" "flow-async.floor.insert.$b1.1q" ">= 20 M/s"
row "async insert $b2, 1 queue, M rules/s / floor" "flow-async.insert.$b2.1q" "flow-async.floor.insert.$b2.1q" ">= 20 M/s"
row "async insert $b1, 1 queue, floor+slot / floor" "flow-async.slots.insert.$b1.1q" "flow-async.floor.insert.$b1.1q" "bound"
row "async insert $b2, 1 queue, floor+slot / floor" "flow-async.slots.insert.$b2.1q" "flow-async.floor.insert.$b2.1q" "bound"
row "async insert $b2, 1 queue, last/first 1M" "flow-async.flat.$b2.1q" "" ">= 0.9"
row "async insert $b1, 2 queues / 1 queue" "flow-async.insert.$b1.2q" "flow-async.insert.$b1.1q" ">= 1.6"
row "async insert $b1, 2 ports of 1 queue / 1 queue" "flow-async.ports.insert.$b1.2q" "flow-async.insert.$b1.1q" "bound"
row "io fwd Mpps, device process / in-process" nic.iofwd.nic nic.iofwd.model ">= 0.8"
row "io fwd Mpps, device process / vhost-user" nic.iofwd.nic nic.iofwd.vhost ">= 1.3"
row "io fwd Mpps, device process / memif" nic.iofwd.nic nic.iofwd.memif "report"
row "cls 10k full packets Mpps / ACL ${v[pa.cls.acl-best-alg]:-${v[nohuge.cls.acl-best-alg]:-best}}" \
	cls.tally-full.10000 cls.acl-best.10000 ">= 1.0"
row "cls 1k full packets Mpps" cls.tally-full.1000 "" ">= 12"
row "rte_flow_query random of $(lbl "${fq[1]}") ns / floor" flow-query.tally.random flow-query.floor.random "<= 1.1"
row "rte_flow_query random, reset=1, ns / floor" flow-query.tally.reset flow-query.floor.reset "report"
