#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# preload.sh LIB MODE
#
# Stock rdma-core tools and perftest, unmodified, with LIB (libtally_verbs)
# in LD_PRELOAD: the library's verbs and mlx5dv symbols take the place of
# libibverbs' and libmlx5's.
#
#   tools  ibv_devices, ibv_devinfo, ibv_devinfo -v on a port with a known MAC
#   loop   raw_ethernet_bw in one process over the loopback wire (-b: the
#          process sends to its own MAC and receives what comes back)
#   veth   raw_ethernet_bw server and client, two processes, each with its
#          own port, wired through a veth pair in a private network namespace
#
# LD_PRELOAD is set for the tool only (env), not for timeout.
# Every run must exit 0 and print the expected lines (blanks squeezed).
# Exit 77 (skipped) when a tool is not installed or, for veth, when no
# network namespace can be made, or where the memory mode of TALLY_TEST_MEM
# (devtools/eal-mem.sh: hugepages with IOVA as PA by default) cannot run.
# Each tool runs under a file prefix of its own, removed afterwards.
set -uo pipefail
lib=$1
mode=$2
. "$(dirname "$0")/../../devtools/eal-mem.sh"
tally_eal_mem_skip
prefix="tally-preload-$$"
eal="-l 0 $(tally_eal_mem 512) --no-pci --log-level=pmd.net.tally*:notice"
fail=0
# An ASan build of the library needs the ASan runtime loaded first; leaks
# of the stock tools themselves are not the library's.
preload=$lib
asan=$(ldd "$lib" 2>/dev/null | awk '/libasan/ { print $3 }')
if [ -n "$asan" ]; then
	preload="$asan $lib"
	export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
fi
out=$(mktemp -d)
trap 'rm -rf "$out" /var/run/dpdk/"$prefix"-*' EXIT

need() {
	command -v "$1" >/dev/null && return 0
	echo "SKIP: $1 not installed (Debian package $2)"
	exit 77
}

# run NAME VDEV CMD...: CMD with LIB preloaded, its port made from VDEV
run() {
	local name=$1 vdev=$2
	shift 2
	TALLY_VERBS_EAL_ARGS="$eal --file-prefix=$prefix-$name --vdev $vdev" timeout 60 \
		env LD_PRELOAD="$preload" "$@" >"$out/$name" 2>"$out/$name.err"
	echo $? >"$out/$name.rc"
}

# expect NAME RC LINE...: exit status and whole lines of NAME's stdout
expect() {
	local name=$1 rc=$2 got l
	shift 2
	got=$(cat "$out/$name.rc")
	if [ "$got" != "$rc" ]; then
		echo "FAIL $name: exit status $got, want $rc"
		tail -n 5 "$out/$name.err" | sed 's/^/  | /'
		fail=1
	fi
	tr -s ' \t' '  ' <"$out/$name" | sed 's/^ //; s/ $//' >"$out/$name.norm"
	for l in "$@"; do
		if ! grep -qxF -- "$l" "$out/$name.norm"; then
			echo "FAIL $name: no line '$l'"
			fail=1
		fi
	done
}

# expect_re NAME REGEX...: lines of NAME's (squeezed) stdout matching REGEX
expect_re() {
	local name=$1 r
	shift
	for r in "$@"; do
		if ! grep -qE -- "$r" "$out/$name.norm"; then
			echo "FAIL $name: no line matching '$r'"
			fail=1
		fi
	done
}

finish() {
	if [ "$fail" -ne 0 ]; then
		for f in "$out"/*.norm; do
			echo "---- $(basename "$f" .norm)"
			cat "$f"
		done
		exit 1
	fi
	echo "PASS $mode"
	exit 0
}

mode_tools() {
	local port="net_tally0,mac=0a:11:22:33:44:55"

	need ibv_devinfo ibverbs-utils
	need ibv_devices ibverbs-utils
	run devices "$port" ibv_devices
	expect devices 0 "device node GUID" "tally_0 081122fffe334455"
	run list "$port" ibv_devinfo -l
	expect list 0 "1 HCA found:" "tally_0"
	run devinfo "$port" ibv_devinfo
	expect devinfo 0 "hca_id: tally_0" "transport: InfiniBand (0)" \
		"fw_ver: tally-spec 2.3" "node_guid: 0811:22ff:fe33:4455" \
		"vendor_id: 0x1f1a" "vendor_part_id: 31249" "hw_ver: 0x20003" \
		"phys_port_cnt: 1" "port: 1" "state: PORT_ACTIVE (4)" \
		"link_layer: Ethernet"
	run verbose "$port" ibv_devinfo -v
	expect verbose 0 "hca_id: tally_0" "vendor_id: 0x1f1a" \
		"device_cap_flags: 0x20000000" "MANAGED_FLOW_STEERING" \
		"max_qp: 8" "max_raw_ethy_qp: 8" "max_pkeys: 1" \
		"num_comp_vectors: 1" "max_vl_num: 1 (1)" "pkey_tbl_len: 1" \
		"gid_tbl_len: 2" "active_width: 4X (2)" \
		"active_speed: 25.0 Gbps (32)" "phys_state: LINK_UP (5)" \
		"GID[ 0]: fe80:0000:0000:0000:0811:22ff:fe33:4455, RoCE v1" \
		"GID[ 1]: fe80::811:22ff:fe33:4455, RoCE v2"
	run port "$port" ibv_devinfo -d tally_0 -i 1
	expect port 0 "hca_id: tally_0" "port: 1"
	run port2 "$port" ibv_devinfo -i 2
	expect port2 4
	run nosuch "$port" ibv_devinfo -d mlx5_0
	expect nosuch 255
	if ! grep -qF "IB device 'mlx5_0' wasn't found" "$out/nosuch.err"; then
		echo "FAIL nosuch: no 'wasn't found' message"
		fail=1
	fi
}

mode_loop() {
	local mac=02:00:00:00:00:07

	need raw_ethernet_bw perftest
	run loop "net_tally0,mac=$mac" raw_ethernet_bw --client -b -B $mac -E $mac \
		-n 2000 -s 256
	expect loop 0 "Send Bidirectional BW Test" "Dual-port : OFF Device : tally_0" \
		"Connection type : RawEth Using SRQ : OFF" "Link type : Ethernet" \
		"MAC attached : $mac" "| $mac| $mac|DEFAULT |"
	# every frame sent came back and was received: 2000 each way
	expect_re loop '^256 2000 [0-9.]+ [0-9.]+ [0-9.]+$'
}

# Runs inside a private network namespace.
mode_veth_ns() {
	local smac=02:00:00:00:00:01 cmac=02:00:00:00:00:02 spid i stdbuf_lib

	stdbuf_lib=$(ls /usr/libexec/coreutils/libstdbuf.so /usr/lib/coreutils/libstdbuf.so \
		2>/dev/null | head -n 1)
	[ -n "$stdbuf_lib" ] || { echo "SKIP: no libstdbuf.so (coreutils)"; exit 77; }
	ip link add tvs type veth peer name tvc || exit 77
	sysctl -qw net.ipv6.conf.all.disable_ipv6=1 2>/dev/null
	ip link set tvs up && ip link set tvc up || exit 77
	# 400 frames: fewer than the server's posted receive buffers (512), so
	# none can be dropped for want of a buffer
	# unbuffered stdout (what stdbuf -o0 does), to see when it is ready
	TALLY_VERBS_EAL_ARGS="$eal --file-prefix=$prefix-server --vdev net_tally0,wire=if,iface=tvs,mac=$smac" \
		timeout 60 env LD_PRELOAD="$preload $stdbuf_lib" _STDBUF_O=0 \
		raw_ethernet_bw --server -B $smac -E $cmac -n 400 -s 256 \
		>"$out/server" 2>"$out/server.err" &
	spid=$!
	for i in $(seq 200); do
		grep -q '#bytes' "$out/server" && break
		sleep 0.05
	done
	run client "net_tally0,wire=if,iface=tvc,mac=$cmac" raw_ethernet_bw \
		--client -B $cmac -E $smac -n 400 -s 256
	wait $spid
	echo $? >"$out/server.rc"
	expect server 0 "Send BW Test" "MAC attached : $smac"
	expect_re server '^256 400 [0-9.]+ [0-9.]+ [0-9.]+$'
	expect client 0 "Send BW Test" "| $smac| $cmac|DEFAULT |"
	expect_re client '^256 400 [0-9.]+ [0-9.]+ [0-9.]+$'
}

case $mode in
tools) mode_tools ;;
loop) mode_loop ;;
veth)
	need raw_ethernet_bw perftest
	need ip iproute2
	if ! unshare -n true 2>/dev/null; then
		echo "SKIP: cannot make a network namespace (needs CAP_SYS_ADMIN)"
		exit 77
	fi
	exec unshare -n "$0" "$lib" veth-ns
	;;
veth-ns) mode_veth_ns ;;
*)
	echo "usage: $0 LIB tools|loop|veth" >&2
	exit 2
	;;
esac
finish
