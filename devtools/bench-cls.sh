#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# bench-cls.sh [BUILD_DIR]: the classification benchmark (on demand, not a
# test). For each rule set (ClassBench-like, 1k and 10k rules, a 1M-packet
# trace with 80 % hits; test/perf/cls_gen.h) it runs, interleaved, ROUNDS
# rounds of:
#   tally-keys   Tally's steering executor on pre-parsed keys (cls_tally)
#   tally-full   the same on frames: parse + classify + count (cls_tally)
#   ts-hash      rte_hash tuple space, one table per mask (cls_peer)
#   acl-inproc-* librte_acl in cls_peer (bursts of BURST, like the others)
#   acl-*        dpdk-test-acl --alg=scalar|avx2|avx512x32 (its default
#                --tracestep=256), EAL --force-max-simd-bitwidth=512; an
#                algorithm this CPU cannot run (avx512x32 without AVX-512)
#                is left out with a note, and acl-best names the widest one
#                that ran (avx512x32, else avx2, else scalar)
# and prints the median and range over the rounds of Mpps and TSC
# cycles/packet, then the ratios Tally/peer of the medians. Every classifier
# is checked packet by packet against the reference before it is timed
# (dpdk-test-acl through its --verbose=2 per-packet results; the others on
# every timed pass, Tally's and the tuple space's counters rule by rule).
#
# The last line, "summary: mem=MODE tally-full.1000=... acl-avx512x32.10000=...
# acl-best.10000=... acl-best-alg=avx512x32" (median Mpps per classifier and
# rule count, and which algorithm acl-best is), is for devtools/bench-all.sh.
#
# Tally, the tuple space and the in-process ACL classify bursts of BURST
# frames (64: what one step of the device takes from the wire and
# classifies together, TALLY_MODEL_BURST); dpdk-test-acl classifies 256
# per call (its --tracestep default).
#
# Environment: ROUNDS (5), SIZES ("1000 10000"), PACKETS (1000000), BURST (64), ITER
# (passes per process, 3; a round's value is the median of its passes),
# SEED (1), CPU (0: the core every process runs on), DPDK_TEST_ACL (path),
# TALLY_TEST_MEM (devtools/eal-mem.sh: hugepages with IOVA as PA by default,
# nohuge for --no-huge -m 1024).
set -euo pipefail
cd "$(dirname "$0")/.."
. devtools/eal-mem.sh
tally_eal_mem_skip
build=${1:-build}
ROUNDS=${ROUNDS:-5}
SIZES=${SIZES:-"1000 10000"}
PACKETS=${PACKETS:-1000000}
ITER=${ITER:-3}
BURST=${BURST:-64}
SEED=${SEED:-1}
CPU=${CPU:-0}
ALGS="scalar avx2 avx512x32"
acl_tool=${DPDK_TEST_ACL:-$(command -v dpdk-test-acl || true)}
perf=$build/test/perf
for exe in cls_tally cls_peer cls_files; do
	if [ ! -x "$perf/$exe" ]; then
		echo "bench-cls: $perf/$exe missing (build first: devtools/build.sh $build)" >&2
		exit 1
	fi
done
if [ -z "$acl_tool" ] || [ ! -x "$acl_tool" ]; then
	echo "bench-cls: dpdk-test-acl not found (set DPDK_TEST_ACL)" >&2
	exit 1
fi
read -ra eal_mem <<<"$(tally_eal_mem 1024)"
eal=("${eal_mem[@]}" --no-pci --no-telemetry --file-prefix="bench-cls-$$" -l "$CPU"
     --log-level=lib.eal:error --force-max-simd-bitwidth=512)
work=$(mktemp -d "${TMPDIR:-/tmp}/bench-cls.XXXXXX")
trap 'rm -rf "$work" "/var/run/dpdk/bench-cls-$$"' EXIT
res=$work/results.txt
: >"$res"
gen=(--packets "$PACKETS" --seed "$SEED")
run=("${gen[@]}" --burst "$BURST" --iter "$ITER")

echo "bench-cls: $(nproc) cpus, load: $(cut -d' ' -f1-3 /proc/loadavg); rounds $ROUNDS," \
     "sizes $SIZES, $PACKETS packets, bursts of $BURST, $ITER passes per run, core $CPU"

acl_run() {	# acl_run N ALG ITER VERBOSE
	"$acl_tool" "${eal[@]}" -- --rulesf="$work/$1/acl.rules" \
		--tracef="$work/$1/acl.trace" --tracenum="$PACKETS" --rulenum="$1" \
		--iter="$3" --verbose="$4" --alg="$2"
}

# data files for dpdk-test-acl, and its per-packet results against the reference
best=""
for n in $SIZES; do
	mkdir -p "$work/$n"
	"$perf/cls_files" "$work/$n" --rules "$n" "${gen[@]}" | sed "s/^/[$n] /"
	if [ -z "$best" ]; then	# the algorithms this CPU has (first set only)
		have=""
		for alg in $ALGS; do
			if acl_run "$n" "$alg" 1 0 >"$work/probe.out" 2>&1; then
				have="$have $alg"
			elif grep -q "failed to setup $alg" "$work/probe.out"; then
				echo "bench-cls: dpdk-test-acl --alg=$alg is not available on this CPU; left out"
			else
				cat "$work/probe.out" >&2
				exit 1
			fi
		done
		ALGS=${have# }
		[ -n "$ALGS" ] || { echo "bench-cls: no ACL algorithm runs here" >&2; exit 1; }
		best=${ALGS##* }
	fi
	for alg in $ALGS; do
		acl_run "$n" "$alg" 1 2 | awk '/^ipv4_5tuple:/ { print $NF }' >"$work/$n/got.txt"
		if ! cmp -s "$work/$n/got.txt" "$work/$n/expect.txt"; then
			echo "bench-cls: dpdk-test-acl --alg=$alg differs from the reference ($n rules):" >&2
			diff "$work/$n/got.txt" "$work/$n/expect.txt" | head -5 >&2
			exit 1
		fi
	done
	echo "[$n] check: dpdk-test-acl ($ALGS) returns the reference rule for all $PACKETS packets"
done

# one round's value of each bench: the median of its passes
record() {	# record ROUND; RESULT lines on stdin
	awk -v r="$1" '/^RESULT / {
		for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
		print r, v["rules"], v["bench"], v["mpps"], v["cyc"]
	}' >>"$res"
}

for round in $(seq 1 "$ROUNDS"); do
	for n in $SIZES; do
		taskset -c "$CPU" "$perf/cls_tally" --rules "$n" "${run[@]}" \
			>"$work/tally.out" || { cat "$work/tally.out"; exit 1; }
		record "$round" <"$work/tally.out"
		[ "$round" != 1 ] || grep -E '^tally:' "$work/tally.out" | sed "s/^/[$n] /"
		[ "$round" != 1 ] || grep -E '^RESULT bench=tally-keys' "$work/tally.out" |
			sed -n "1s/.*stage_cyc=\([0-9.]*\).*/[$n] tally-keys includes \1 cycles\/packet of key copy/p"
		"$perf/cls_peer" "${eal[@]}" -- --rules "$n" "${run[@]}" \
			>"$work/peer.out" 2>&1 || { cat "$work/peer.out"; exit 1; }
		record "$round" <"$work/peer.out"
		for alg in $ALGS; do
			acl_run "$n" "$alg" "$ITER" 0 >"$work/acl.out" 2>&1 ||
				{ cat "$work/acl.out"; exit 1; }
			# "... N pkts, ... C cycles/pkt, P pkt/sec": one figure over all passes
			fig=$(sed -n 's/.* \([0-9.]*\) cycles\/pkt, \([0-9.]*\) pkt\/sec.*/\2 \1/p' \
				"$work/acl.out")
			if [ -z "$fig" ]; then
				echo "bench-cls: no cycles/pkt in the dpdk-test-acl output:" >&2
				tail -5 "$work/acl.out" >&2
				exit 1
			fi
			echo "$fig" | awk -v r="$round" -v n="$n" -v a="$alg" \
				'{ printf "%s %s acl-%s %.3f %s\n", r, n, a, $1 / 1e6, $2 }' >>"$res"
		done
	done
	echo "round $round done (load $(cut -d' ' -f1 /proc/loadavg))"
done

echo "bench-cls: load at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "$res" "${TALLY_TEST_MEM:-pa}" "$best" <<'EOF'
import sys, statistics as st
from collections import defaultdict
per = defaultdict(lambda: defaultdict(list))     # (rules, bench) -> round -> [(mpps, cyc)]
order = []
for line in open(sys.argv[1]):
    r, n, b, mpps, cyc = line.split()
    if (int(n), b) not in order:
        order.append((int(n), b))
    per[(int(n), b)][r].append((float(mpps), float(cyc)))
med = {}
print("\n%-7s %-22s %24s %26s" % ("rules", "classifier", "Mpps median [min-max]",
                                   "cycles/pkt median [min-max]"))
for key in sorted(order, key=lambda k: (k[0], order.index(k))):
    rounds = per[key]
    mpps = [st.median(p[0] for p in v) for v in rounds.values()]
    cyc = [st.median(p[1] for p in v) for v in rounds.values()]
    med[key] = (st.median(mpps), st.median(cyc))
    print("%-7d %-22s %7.2f [%6.2f-%6.2f] %9.1f [%7.1f-%7.1f]" % (
        key[0], key[1], med[key][0], min(mpps), max(mpps), med[key][1], min(cyc), max(cyc)))
print("\nratios Tally/peer (median Mpps; > 1 means Tally is faster):")
for n in sorted({k[0] for k in order}):
    for t in ("tally-keys", "tally-full"):
        if (n, t) not in med:
            continue
        parts = ["%s %.2f" % (b, med[(n, t)][0] / med[(n, b)][0])
                 for (m, b) in order if m == n and not b.startswith("tally")]
        print("  %d rules, %s / %s" % (n, t, ", ".join(parts)))
best = sys.argv[3]
print("summary: mem=%s %s %s acl-best-alg=%s" % (sys.argv[2], " ".join(
    "%s.%d=%.2f" % (b, n, med[(n, b)][0]) for (n, b) in order), " ".join(
    "acl-best.%d=%.2f" % (n, med[(n, "acl-" + best)][0])
    for n in sorted({k[0] for k in order}) if (n, "acl-" + best) in med), best))
EOF
