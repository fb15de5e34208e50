#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# mp-tools.sh BUILD_DIR SOURCE_DIR: stock dpdk-proc-info and dpdk-dumpcap,
# secondary processes, on the Tally port of a stock dpdk-testpmd that
# forwards the 64 frames of test/data/demo.pcap: proc-info shows 64
# packets each way in --stats and --xstats; dumpcap captures the 64
# received and the 64 sent, byte for byte, into a pcapng.
#
# dpdk-dumpcap takes no -d: the test runs in a private mount namespace
# where DPDK's plugin directory holds the build's PMD next to the system's
# plugins (as test/install/testpmd-installed.sh does), so every process
# loads it as after `meson install`. Debian's testpmd links
# librte_mempool_dpaa, which registers its mempool ops before the ring
# ops; dumpcap does not, so the ops index of dumpcap's capture pool would
# name another driver in testpmd (a DPDK multi-process rule: the same
# drivers in the same order): dumpcap runs with that library preloaded.
#
# Needs root, huge pages and a private mount namespace; exits 77 (skipped)
# with the reason otherwise. Leaves no process, hugepage file or runtime
# directory behind.
set -euo pipefail
unset LD_LIBRARY_PATH

inside() {
	local build=$1 src=$2 stage=$3
	local sysdir dir fifo i out
	sysdir=$(python3 "$src/devtools/dpdk-pmd-dir.py" / | sed -n 1p)
	mkdir "$stage/sys" "$stage/merged"
	mount --bind "$sysdir" "$stage/sys"
	for f in "$stage/sys"/*; do ln -s "$f" "$stage/merged/"; done
	cp -a "$build"/drivers/net/tally/librte_net_tally.so* "$stage/merged/"
	mount --bind "$stage/merged" "$sysdir"

	prefix="tally-mpt-$$"
	dir="$stage/run"
	mkdir "$dir"
	fifo="$dir/cmds"
	mkfifo "$fifo"
	tp="" dc=""	# global: the EXIT trap runs after this function
	cleanup() {
		[ -z "$dc" ] || kill "$dc" 2>/dev/null || true
		[ -z "$tp" ] || { kill "$tp" 2>/dev/null || true; wait "$tp" 2>/dev/null || true; }
		rm -f /dev/hugepages/"$prefix"map_*
		rm -rf "/var/run/dpdk/$prefix"
	}
	trap cleanup EXIT
	# testpmd reads commands from the fifo; fd 7 keeps it open
	dpdk-testpmd -l 0-1 --no-pci --file-prefix "$prefix" \
		--vdev "net_tally0,wire=pcap,rx_pcap=$src/test/data/demo.pcap" \
		--log-level=pmd.net.tally*:notice \
		-- -i --no-flush-rx --total-num-mbufs=8192 <"$fifo" >"$dir/testpmd.out" 2>&1 &
	tp=$!
	exec 7>"$fifo"
	for i in $(seq 200); do
		grep -q "testpmd> " "$dir/testpmd.out" 2>/dev/null && break
		sleep 0.05
	done
	grep -q "testpmd> " "$dir/testpmd.out" || { cat "$dir/testpmd.out"; echo "FAIL: testpmd did not start"; return 1; }

	# the capture first, then the frames
	LD_PRELOAD="$sysdir/librte_mempool_dpaa.so.$(ls "$sysdir" | sed -n 's/^librte_mempool_dpaa\.so\.\([0-9]*\)$/\1/p' | head -1)" \
		timeout 60 dpdk-dumpcap --file-prefix="$prefix" -i net_tally0 -c 128 \
		-w "$dir/cap.pcapng" >"$dir/dumpcap.out" 2>&1 &
	dc=$!
	# its pdump rings are set up once the primary logs the request
	sleep 2
	kill -0 "$dc" 2>/dev/null || { cat "$dir/dumpcap.out"; echo "FAIL: dumpcap did not start"; return 1; }
	echo start >&7
	wait "$dc" || { cat "$dir/dumpcap.out"; echo "FAIL: dumpcap exit status $?"; dc=""; return 1; }
	dc=""
	echo "PASS: dpdk-dumpcap stopped after 128 packets"
	echo stop >&7
	sleep 1

	out=$(dpdk-proc-info --file-prefix "$prefix" --no-pci --log-level=lib.eal:warning -- --stats 2>&1)
	echo "$out" | grep -Eq "RX-packets: +64 " || { echo "$out"; echo "FAIL: proc-info --stats RX-packets"; return 1; }
	echo "$out" | grep -Eq "TX-packets: +64 " || { echo "$out"; echo "FAIL: proc-info --stats TX-packets"; return 1; }
	echo "PASS: dpdk-proc-info --stats: RX-packets 64, TX-packets 64"
	out=$(dpdk-proc-info --file-prefix "$prefix" --no-pci --log-level=lib.eal:warning -- --xstats 2>&1)
	for x in "rx_good_packets: 64" "tx_good_packets: 64" "rx_wire_packets: 64" "dma_faults: 0"; do
		echo "$out" | grep -qx "$x" || { echo "$out"; echo "FAIL: proc-info --xstats: no line '$x'"; return 1; }
	done
	echo "PASS: dpdk-proc-info --xstats: rx_good_packets 64, tx_good_packets 64, dma_faults 0"

	echo quit >&7
	exec 7>&-
	wait "$tp" || true
	tp=""
	python3 "$src/test/mem/pcapng-check.py" "$dir/cap.pcapng" "$src/test/data/demo.pcap"
}

if [ "${1:-}" = --inside ]; then
	inside "$2" "$3" "$4"
	exit $?
fi
build=$(cd "$1" && pwd) src=$(cd "$2" && pwd)
if [ "$(id -u)" -ne 0 ] || ! unshare --mount true 2>/dev/null; then
	echo "SKIP: needs root and a private mount namespace (dumpcap takes no -d)"
	exit 77
fi
free=$(awk '/HugePages_Free/ {f=$2} /Hugepagesize/ {s=$2} END {print int(f*s/1024)}' /proc/meminfo)
if ! grep -q hugetlbfs /proc/mounts || [ "$free" -lt 512 ]; then
	echo "SKIP: ${free} MiB of huge pages free or no hugetlbfs mounted; 512 MiB needed (devtools/setup.sh reserves them as root)"
	exit 77
fi
# (the list whole first: grep -q would end the pipe early, and pipefail
# would take ldd's SIGPIPE for a no)
libs=$(ldd "$build/drivers/net/tally/librte_net_tally.so")
if echo "$libs" | grep -q 'lib\(asan\|ubsan\)\.so'; then
	echo "SKIP: sanitizer build (stock tools load the PMD without the sanitizer runtime)"
	exit 77
fi
stage="$build/mp-tools-stage"
rm -rf "$stage"
mkdir -p "$stage"
trap 'rm -rf "$stage"' EXIT
unshare --mount --propagation private "$0" --inside "$build" "$src" "$stage"
