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
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=ovs-lib.sh
. "$here/ovs-lib.sh"
ovs_enter_netns "$0" "$@"
nic=${1:?tally-nic}
so=${2:?PMD}
ovs_require
ovs_setup "$so"
nic_pid=""
ovs_cleanup_hook() {
	[ -z "$nic_pid" ] || kill -9 "$nic_pid" 2>/dev/null || true
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
ovs_mem auto
ovs_start --no-telemetry
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

ovs_stop
[ "$fail" -eq 0 ] || ovs_log_tail
exit "$fail"
