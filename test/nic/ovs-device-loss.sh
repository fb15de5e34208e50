#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# ovs-device-loss.sh TALLY_NIC PMD_SO: Open vSwitch (the Debian
# openvswitch-switch-dpdk build, run in a private directory) with a Tally
# port whose device process is killed under it, twice over:
#   - the port's link goes down (OVS reads it from the PMD),
#   - ovs-vswitchd stays up and answers,
#   - del-port closes and detaches the port ("has been removed and detached"),
#   - a new device process and a new port attach and come up afterwards,
#   - ovs-vswitchd exits cleanly at the end.
# Skipped (77) when Open vSwitch with DPDK is not installed.
set -euo pipefail
# a network namespace of its own: the netdev datapath makes a tap device
if [ -z "${TALLY_OVS_NETNS:-}" ]; then
	if TALLY_OVS_NETNS=1 unshare --net true 2>/dev/null; then
		TALLY_OVS_NETNS=1 exec unshare --net "$0" "$@"
	fi
	echo "SKIP: no network namespace of our own (not root?)" >&2
	exit 77
fi
nic=${1:?tally-nic}
so=${2:?PMD}
vswitchd=/usr/lib/openvswitch-switch-dpdk/ovs-vswitchd-dpdk
here=$(cd "$(dirname "$0")" && pwd)
if [ ! -x "$vswitchd" ] || ! command -v ovsdb-server >/dev/null; then
	echo "SKIP: openvswitch-switch-dpdk is not installed (devtools/setup.sh installs it)" >&2
	exit 77
fi
# shellcheck source=../../devtools/eal-plugin.sh
. "$here/../../devtools/eal-plugin.sh"
pmd=$(tally_plugin "$so")
# A sanitizer build of the PMD needs its runtime loaded first into the
# uninstrumented ovs-vswitchd; OVS's own leaks at exit are not ours.
san_env=()
san=$(ldd "$pmd" | awk '/lib(asan|ubsan)\.so/ {print $3}' | tr '\n' ' ')
if [ -n "$san" ]; then
	san_env=(env "LD_PRELOAD=$san${LD_PRELOAD:-}"
		 "ASAN_OPTIONS=${ASAN_OPTIONS:-}:detect_leaks=0")
fi

d=$(mktemp -d /tmp/tally-ovs.XXXXXX)
export OVS_RUNDIR=$d OVS_LOGDIR=$d OVS_DBDIR=$d OVS_SYSCONFDIR=$d
V=(ovs-vsctl --db="unix:$d/db.sock" --timeout=30)
nic_pid=""
fail=0

cleanup() {
	[ -z "$nic_pid" ] || kill -9 "$nic_pid" 2>/dev/null || true
	if [ -f "$d/ovs-vswitchd-dpdk.pid" ]; then
		kill -9 "$(cat "$d/ovs-vswitchd-dpdk.pid")" 2>/dev/null || true
	fi
	if [ -f "$d/ovsdb-server.pid" ]; then
		kill "$(cat "$d/ovsdb-server.pid")" 2>/dev/null || true
	fi
	rm -rf "$d"
}
trap cleanup EXIT

check() {
	local what=$1
	shift
	if "$@"; then
		echo "PASS: $what"
	else
		echo "FAIL: $what"
		fail=1
	fi
}

# wait_for SECONDS CMD...: until CMD succeeds
wait_for() {
	local t=$(( $1 * 10 ))
	shift
	while [ "$t" -gt 0 ]; do
		if "$@" 2>/dev/null; then return 0; fi
		sleep 0.1
		t=$((t - 1))
	done
	return 1
}

vswitchd_alive() { kill -0 "$(cat "$d/ovs-vswitchd-dpdk.pid")" 2>/dev/null; }
link_is() { [ "$("${V[@]}" get Interface "$1" link_state 2>/dev/null)" = "$2" ]; }

start_nic() {
	rm -f "$d/nic$1.sock"
	"$nic" --socket "$d/nic$1.sock" --log-level 2 wire=loop 2>>"$d/nic.log" &
	nic_pid=$!
	wait_for 10 test -S "$d/nic$1.sock"
}

# EAL memory: huge pages (OVS adds --in-memory) when there are any
mem=""
if ! awk '/^HugePages_Free:/ { exit !($2 > 0) }' /proc/meminfo; then
	mem="--no-huge -m 2048 --legacy-mem"
fi
ovsdb-tool create "$d/conf.db" /usr/share/openvswitch/vswitch.ovsschema
ovsdb-server --remote="punix:$d/db.sock" --pidfile --detach \
	--log-file="$d/ovsdb.log" "$d/conf.db"
"${V[@]}" --no-wait init
"${V[@]}" --no-wait set Open_vSwitch . other_config:dpdk-init=true \
	other_config:dpdk-lcore-mask=0x1 other_config:pmd-cpu-mask=0x2 \
	"other_config:dpdk-extra=-d $pmd --file-prefix=tally-ovs-$$ --no-telemetry $mem"
"${san_env[@]}" "$vswitchd" "unix:$d/db.sock" --pidfile --detach --log-file="$d/vs.log"
"${V[@]}" add-br br0 -- set bridge br0 datapath_type=netdev

for i in 1 2; do
	start_nic "$i"
	"${V[@]}" add-port br0 "t$i" -- set Interface "t$i" type=dpdk \
		"options:dpdk-devargs=net_tally$i,dev=$d/nic$i.sock"
	check "round $i: port attached, link up" wait_for 20 link_is "t$i" up
	kill -9 "$nic_pid"
	wait "$nic_pid" 2>/dev/null || true
	nic_pid=""
	check "round $i: link down after the device process died" wait_for 20 link_is "t$i" down
	check "round $i: ovs-vswitchd still running" vswitchd_alive
	check "round $i: del-port" timeout 60 "${V[@]}" del-port br0 "t$i"
	check "round $i: port closed and detached" \
		grep -q "Device 'net_tally$i,dev=$d/nic$i.sock' has been removed and detached" "$d/vs.log"
	check "round $i: ovs-vswitchd answers" ovs-appctl -t ovs-vswitchd-dpdk version
done

pid=$(cat "$d/ovs-vswitchd-dpdk.pid")
ovs-appctl -t ovs-vswitchd-dpdk exit >/dev/null 2>&1 || true
check "ovs-vswitchd exits" wait_for 30 sh -c "! kill -0 $pid 2>/dev/null"
if grep -qE "EMER|SIGSEGV|SIGBUS|SIGABRT|Segmentation" "$d/vs.log"; then
	echo "FAIL: ovs-vswitchd log has a crash:"
	grep -E "EMER|SIGSEGV|SIGBUS|SIGABRT|Segmentation" "$d/vs.log"
	fail=1
fi
if [ "$fail" -ne 0 ]; then
	echo "---- ovs-vswitchd log ----"
	grep -vE "\|(INFO|DBG)\|" "$d/vs.log" | tail -40 || true
fi
exit "$fail"
