#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# bench-nic.sh [BUILD_DIR [ROUNDS [IO_SECONDS]]]: the in-process model versus
# the device process (tally-nic, host transport), side by side in one run,
# interleaved, ROUNDS rounds (default 5), median and range:
#   - rte_flow_query and rte_pmd_tally_counter_read ns/call on a hot counter
#     (test/perf/counter_bench, 10^7 calls each);
#   - stock testpmd io forwarding Mpps, one forwarding core, 4 x 32 frames
#     in flight (devtools/bench-io-fwd.py), of four configs:
#       model   net_tally0 inline, the loop wire (the device runs in the
#               forwarding core's burst functions);
#       nic     net_tally0,dev=SOCK against tally-nic, the loop wire;
#       vhost   net_virtio_user0 against a second stock testpmd with
#               net_vhost0 that forwards (io) what arrives back to it;
#       memif   net_memif0,role=client against a second stock testpmd with
#               net_memif0,role=server, forwarding the same way.
#     The device side of the last three is on CPU 0 (tally-nic under
#     taskset -c 0; the peer testpmd with --lcores 0@0,1@0: main and
#     forwarding lcore both on CPU 0), the measured testpmd forwards on
#     CPU 1 (-l 0-1, its main lcore only waits for commands on CPU 0).
# OLD_BUILD=DIR (another build directory, e.g. of an earlier commit) adds an
# io forwarding row "old-nic": that build's tally-nic and PMD, in the same
# rounds, to compare versions of the device process.
# Prints the io forwarding rows and the ratios process/model, process/vhost
# and process/memif of the medians, then one line "summary: key=value ...".
# A benchmark, not a test: run it on an otherwise idle machine.
# EAL's memory follows TALLY_TEST_MEM (devtools/eal-mem.sh): hugepages with
# IOVA as PA by default, TALLY_TEST_MEM=nohuge for --no-huge; both sides of a
# pair run in the same mode. vhost-user maps the virtio-user side's memory
# through the file descriptors EAL keeps for it, at most 8 regions: on
# hugepages (memfd with --in-memory) virtio-user needs --single-file-segments,
# without it every 2 MiB page is a region ("Too many memory regions", no
# frame ever comes back); with --no-huge EAL backs -m with one memfd. The
# virtio-user side gets --single-file-segments in every mode (--no-huge
# ignores it), so the pair runs in all three. memif's client copies frames
# through a region it creates with memfd, in every mode; its warning "Failed
# to register mp action callback" (no IPC with --in-memory / --no-shconf)
# only means no secondary process can join. A config that yields no figure
# prints "-" and, once, the reason (the last error line of its run).
set -euo pipefail
cd "$(dirname "$0")/.."
. devtools/eal-mem.sh
tally_eal_mem_skip
build=${1:-build}
rounds=${2:-5}
secs=${3:-5}
nic="$PWD/$build/app/tally-nic/tally-nic"
bench="$PWD/$build/test/perf/counter_bench"
pmd="$PWD/$build/drivers/net/tally/librte_net_tally.so"
for f in "$nic" "$bench" "$pmd"; do
	[ -e "$f" ] || { echo "no $f: build first (devtools/build.sh $build)" >&2; exit 1; }
done
work=$(mktemp -d)
pid=""
stop_nic() { [ -z "$pid" ] || { kill -TERM "$pid" 2>/dev/null; wait "$pid" 2>/dev/null || true; pid=""; }; }
trap 'stop_nic; rm -rf "$work"' EXIT
old=${OLD_BUILD:+$(cd "$OLD_BUILD" && pwd)}
if [ -n "$old" ]; then
	for f in "$old/app/tally-nic/tally-nic" "$old/drivers/net/tally/librte_net_tally.so"; do
		[ -e "$f" ] || { echo "OLD_BUILD: no $f" >&2; exit 1; }
	done
fi
start_nic() {	# start_nic [tally-nic binary]
	rm -f "$work/nic.sock"
	taskset -c 0 "${1:-$nic}" --socket "$work/nic.sock" --log-level 2 &
	pid=$!
	for _ in $(seq 200); do [ -S "$work/nic.sock" ] && return 0; sleep 0.05; done
	echo "tally-nic did not start" >&2; exit 1
}
iofwd() {	# iofwd(args of bench-io-fwd.py) -> Mpps on stdout, nothing on failure
	python3 devtools/bench-io-fwd.py "$@" --secs "$secs" --bursts 4 2>"$work/io.log" |
		awk -F'[= ]' '/^pps=/ {printf "%.3f\n", $2 / 1e6}' || true
}
one() {	# one(kind, transport) -> a number on stdout
	local kind=$1 tr=$2 dev="" vdev="net_tally0" out sock="$work/peer-$$.sock"
	if [ "$tr" = nic ]; then start_nic; dev="dev=$work/nic.sock"; vdev="net_tally0,$dev"; fi
	if [ "$tr" = old-nic ]; then
		start_nic "$old/app/tally-nic/tally-nic"
		vdev="net_tally0,dev=$work/nic.sock"
	fi
	case $kind.$tr in
	query.* | read.*)
		out=$("$bench" "$dev" 10000000 2>/dev/null)
		if [ "$kind" = query ]; then echo "$out" | awk '/rte_flow_query/ {print $2}'
		else echo "$out" | awk '/counter_read/ {print $2}'; fi ;;
	iofwd.model | iofwd.nic)
		iofwd --pmd "$pmd" --vdev "$vdev" ;;
	iofwd.old-nic)
		iofwd --pmd "$old/drivers/net/tally/librte_net_tally.so" --vdev "$vdev" ;;
	iofwd.vhost)
		rm -f "$sock"
		iofwd --vdev "net_virtio_user0,path=$sock,queues=1" --eal=--single-file-segments \
		      --peer-vdev "net_vhost0,iface=$sock,queues=1" ;;
	iofwd.memif)
		rm -f "$sock"
		iofwd --vdev "net_memif0,role=client,socket=$sock,socket-abstract=no" \
		      --peer-vdev "net_memif0,role=server,socket=$sock,socket-abstract=no" ;;
	esac
	stop_nic
}
declare -A res why
for r in $(seq "$rounds"); do
	for kind in query read iofwd; do
		trs="model nic"
		[ "$kind" != iofwd ] || trs="model nic vhost memif${old:+ old-nic}"
		for tr in $trs; do
			v=$(one "$kind" "$tr")
			if [ -z "$v" ] && [ "$kind" = iofwd ]; then
				[ -n "${why[$tr]:-}" ] || why[$tr]=$(grep -iE 'error|fail|cannot|not ' \
					"$work/io.log" 2>/dev/null | tail -1 | cut -c1-160)
			fi
			v=${v:--}
			res[$kind.$tr]="${res[$kind.$tr]:-} $v"
			echo "round $r $kind $tr $v" >&2
		done
	done
done
nums() { tr ' ' '\n' | grep -E '^[0-9.]+$' | sort -g; }
stats() { nums | awk '{v[NR]=$1} END {if (NR) printf "%s (%s..%s)", v[int((NR+1)/2)], v[1], v[NR]; else print "-"}'; }
med() { nums | awk '{v[NR]=$1} END {if (NR) print v[int((NR+1)/2)]; else print "-"}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {if (a != "-" && b > 0) printf "%.2f", a / b; else print "-"}'; }
declare -A m
for key in "${!res[@]}"; do m[$key]=$(echo "${res[$key]}" | med); done
printf "%-34s %-24s %-24s %s\n" figure "in-process model" "device process" "process/model"
for kind in query read; do
	case $kind in
	query) label="rte_flow_query ns/call" ;;
	read) label="rte_pmd_tally_counter_read ns/call" ;;
	esac
	printf "%-34s %-24s %-24s %s\n" "$label" "$(echo "${res[$kind.model]}" | stats)" \
		"$(echo "${res[$kind.nic]}" | stats)" "$(ratio "${m[$kind.nic]}" "${m[$kind.model]}")"
done
echo
printf "%-34s %s\n" "testpmd io fwd" "Mpps median (range)"
for tr in model nic vhost memif${old:+ old-nic}; do
	case $tr in
	model) label="in-process model" ;;
	nic) label="device process" ;;
	vhost) label="vhost-user/virtio-user" ;;
	memif) label="memif" ;;
	old-nic) label="device process, OLD_BUILD" ;;
	esac
	printf "%-34s %s\n" "$label" "$(echo "${res[iofwd.$tr]}" | stats)"
done
n=${m[iofwd.nic]}
echo "process/model $(ratio "$n" "${m[iofwd.model]}")," \
     "process/vhost $(ratio "$n" "${m[iofwd.vhost]}")," \
     "process/memif $(ratio "$n" "${m[iofwd.memif]}")"
for tr in "${!why[@]}"; do
	echo "$tr: no figure in memory mode ${TALLY_TEST_MEM:-pa}: ${why[$tr]:-no error line in the run}"
done
echo "summary: mem=${TALLY_TEST_MEM:-pa} query.model=${m[query.model]} query.nic=${m[query.nic]}" \
     "read.model=${m[read.model]} read.nic=${m[read.nic]} iofwd.model=${m[iofwd.model]}" \
     "iofwd.nic=${m[iofwd.nic]} iofwd.vhost=${m[iofwd.vhost]} iofwd.memif=${m[iofwd.memif]}"
