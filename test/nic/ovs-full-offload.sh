#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# ovs-full-offload.sh PMD_SO [--no-huge]: Open vSwitch full offload
# (other_config:hw-offload=true, netdev datapath) on the two ports of one
# Tally device (ports=2, spec 2.3: one switch), each port's wire a veth:
#   OpenFlow  in_port=p0,actions=output:p1   and   in_port=p1,actions=drop
# Round 1 (one frame from each veth's peer) makes the two megaflows; OVS
# offloads them as transfer rules (count / port_id, count / drop). Checks:
#   - both megaflows offloaded:yes, dp:dpdk, and the device holds two
#     transfer rules (/tally/transfer);
#   - round 2 (COUNT frames from each peer): OVS's PMD thread receives none
#     of them; t1's peer receives the COUNT frames p0's rule sends out of p1's
#     wire; the NIC's counters of the two rules (/tally/transfer, counts
#     since creation whatever OVS's query resets) grow by COUNT frames and
#     their bytes, and so do the megaflows' packets and bytes
#     (dpctl/dump-flows) and the OpenFlow rules' (ovs-ofctl dump-flows);
#   - the totals: each megaflow's packets/bytes = the NIC's counter; each
#     OpenFlow rule's = that plus round 1's frame, which OVS forwarded
#     itself before the rule existed (and credited to the OpenFlow rule);
#   - deleting p0's OpenFlow rule replaces its device rule with a drop rule
#     (or removes it with the megaflow): p0's frames stop leaving p1's wire;
#     when the megaflows idle out the device holds no transfer rule.
# EAL memory as ovs-offload.sh. TALLY_OVS_COUNT: frames per port in round 2
# (100). Skipped (77) without Open vSwitch with DPDK or a network namespace.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=ovs-lib.sh
. "$here/ovs-lib.sh"
ovs_enter_netns "$0" "$@"
so=${1:?PMD}
memmode=auto
[ "${2:-}" != --no-huge ] || memmode=nohuge
ovs_require
ovs_setup "$so"
ovs_mem "$memmode"
echo "EAL memory: ${mem:-huge pages}"
traffic=("$here/ovs-traffic.py")
flows=("$here/ovs-flows.py")
COUNT=${TALLY_OVS_COUNT:-100}
KIND=ipv4-udp
fail=0

sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
for i in 0 1; do
	ip link add "t$i" type veth peer name "t${i}w"
	ip link set "t$i" up
	ip link set "t${i}w" up
done

ovs_start --no-pci hw-offload=true max-idle=120000
"${OVS_APPCTL[@]}" vlog/set netdev_offload_dpdk:file:dbg >/dev/null
"${V[@]}" add-br br0 -- set bridge br0 datapath_type=netdev
"${V[@]}" add-port br0 p0 -- set Interface p0 type=dpdk ofport_request=1 \
	"options:dpdk-devargs=net_tally0,ports=2,p0_wire=if,p0_iface=t0,p1_wire=if,p1_iface=t1,mac=02:00:00:00:00:10,counters=65536,rxq=1,txq=1"
# port 1 of the device: OVS finds an ethdev that is not its device's first
# by its MAC (port 0's plus 1)
"${V[@]}" add-port br0 p1 -- set Interface p1 type=dpdk ofport_request=2 \
	"options:dpdk-devargs=class=eth,mac=02:00:00:00:00:11"
link_is() { [ "$("${V[@]}" get Interface "$1" link_state 2>/dev/null)" = "$2" ]; }
for p in p0 p1; do
	check "$p: attached, link up" wait_for 30 link_is "$p" up
done
ovs-ofctl del-flows br0
ovs-ofctl add-flow br0 "priority=10,in_port=p0,actions=output:p1"
ovs-ofctl add-flow br0 "priority=10,in_port=p1,actions=drop"

sock=/var/run/dpdk/$ovs_prefix/dpdk_telemetry.v2
ofdump() { ovs-ofctl --names dump-flows br0 | "${flows[@]}" openflow; }
# The device's transfer rules: "RULES" alone, or with a port, "HITS BYTES"
# of the rule created through that port (the only one there may be)
xfer() {
	local j
	j=$("${flows[@]}" telemetry "$sock" /tally/transfer,0)
	python3 -c '
import json, sys
t = json.loads(sys.argv[1])["/tally/transfer"]
if len(sys.argv) == 2:
    print(t["rules"])
else:
    i = [k for k, p in enumerate(t["created_on"]) if p == int(sys.argv[2])]
    print("%d %d" % (t["hits"][i[0]], t["bytes"][i[0]]) if len(i) == 1 else "none")
' "$j" "$@"
}
rules_are() { [ "$(xfer)" = "$1" ]; }
ethdev() {	# the ethdev port id of an OVS port
	"${V[@]}" get Interface "$1" status:port_no | tr -d '"'
}
e0=$(ethdev p0)
e1=$(ethdev p1)
echo "p0 is ethdev $e0, p1 is ethdev $e1"

# Round 1: one frame from each side makes its megaflow, then its offload
"${traffic[@]}" send t0w 1 "$KIND"
"${traffic[@]}" send t1w 1 "$KIND"
received() { [ "$(pmd_stat "packets received")" -ge "$1" ]; }
check "round 1: 2 frames through OVS" wait_for 20 received 2
inserted() { [ "$(offload_stat Inserted)" = 2 ] && [ "$(offload_stat Enqueued)" = 0 ]; }
check "round 1: both megaflows offloaded" wait_for 30 inserted
check "the device holds 2 transfer rules" [ "$(xfer)" = 2 ]
for p in p0 p1; do
	line=$(dump | awk -v p="$p" '$2 == p')
	read -r _ _ _ off _ _ dpn act <<<"$line"
	check "$p's megaflow: offloaded:$off, dp:$dpn, actions:$act" \
		[ "$off" = yes ] && [ "$dpn" = dpdk ]
done
before=$(dump)
of_before=$(ofdump)
rx0=$(pmd_stat "packets received")
x0=$(xfer "$e0")
x1=$(xfer "$e1")

# Round 2: COUNT frames from each side; t1's peer counts what p1's wire sends
len=$(python3 -c '
import importlib.util, sys
s = importlib.util.spec_from_file_location("t", sys.argv[1]); t = importlib.util.module_from_spec(s)
s.loader.exec_module(t); print(len(t.KINDS[sys.argv[2]]()))' "${traffic[0]}" "$KIND")
coproc CAP { "${traffic[@]}" count t1w 6 "$KIND"; }
read -r ready <&"${CAP[0]}"
[ "$ready" = ready ] || echo "FAIL: capture on t1w did not start"
"${traffic[@]}" send t0w "$COUNT" "$KIND"
"${traffic[@]}" send t1w "$COUNT" "$KIND"
read -r got <&"${CAP[0]}"
wait "$CAP_PID" 2>/dev/null || true
check "round 2: t1w received the $COUNT frames p0's rule sent out of p1 ($got)" \
	[ "$got" -eq "$COUNT" ]
rx1=$(pmd_stat "packets received")
check "round 2: OVS's PMD thread received none of the $((2 * COUNT)) frames ($((rx1 - rx0)))" \
	[ "$rx1" -eq "$rx0" ]
grown() {
	local a b a0 b0
	read -r a b <<<"$(xfer "$1")"
	read -r a0 b0 <<<"$2"
	[ $((a - a0)) -eq "$COUNT" ] && [ $((b - b0)) -eq $((COUNT * len)) ]
}
check "NIC: p0's rule counted $COUNT frames, $((COUNT * len)) bytes" grown "$e0" "$x0"
check "NIC: p1's rule counted $COUNT frames, $((COUNT * len)) bytes" grown "$e1" "$x1"
# OVS reads the counters (query with reset) when it dumps, and its revalidators
# pass them on to the OpenFlow rules about every half second
mf_grown() {
	local now p0 b0 p1 b1
	now=$(dump | awk -v p="$1" '$2 == p { print $5, $6 }')
	read -r p1 b1 <<<"$now"
	read -r p0 b0 <<<"$(awk -v p="$1" '$2 == p { print $5, $6 }' <<<"$before")"
	[ $((p1 - p0)) -eq "$COUNT" ] && [ $((b1 - b0)) -eq $((COUNT * len)) ]
}
of_grown() {
	local p0 b0 p1 b1
	read -r p1 b1 <<<"$(ofdump | awk -v m="$1" '$1 == m { print $2, $3 }')"
	read -r p0 b0 <<<"$(awk -v m="$1" '$1 == m { print $2, $3 }' <<<"$of_before")"
	[ $((p1 - p0)) -eq "$COUNT" ] && [ $((b1 - b0)) -eq $((COUNT * len)) ]
}
for p in p0 p1; do
	check "$p's megaflow: +$COUNT packets, +$((COUNT * len)) bytes (dpctl)" \
		wait_for 10 mf_grown "$p"
	check "$p's OpenFlow rule: +$COUNT packets, +$((COUNT * len)) bytes (ovs-ofctl)" \
		wait_for 10 of_grown "priority=10,in_port=$p"
done
# Totals: the megaflow's are the NIC's (OVS adds its readings of the rule's
# counter; round 1's frame went up to OVS, which credits it to the OpenFlow
# rule, not to the megaflow); the OpenFlow rule's are those plus that frame
for p in p0 p1; do
	e=$e0
	[ "$p" = p0 ] || e=$e1
	read -r nh nb <<<"$(xfer "$e")"
	read -r mp mb <<<"$(dump | awk -v p="$p" '$2 == p { print $5, $6 }')"
	read -r op ob <<<"$(ofdump | awk -v m="priority=10,in_port=$p" '$1 == m { print $2, $3 }')"
	check "$p: megaflow $mp/$mb = NIC $nh/$nb; OpenFlow $op/$ob = that + round 1's frame ($len bytes)" \
		[ "$mp" -eq "$nh" ] && [ "$mb" -eq "$nb" ] &&
		[ "$op" -eq $((nh + 1)) ] && [ "$ob" -eq $((nb + len)) ]
done

# Deleting the OpenFlow rule of p0: OVS translates its megaflow again (to
# drop: no rule matches now) and replaces its device rule with a drop rule,
# or deletes the megaflow and its rule; either way p0's frames no longer
# reach p1's wire. Once the megaflows idle out, the device holds none.
ovs-ofctl del-flows br0 "in_port=p0"
mf_stops() { ! dump | awk '$2 == "p0" { print $8 }' | grep -q p1; }
check "del-flows in_port=p0: no megaflow of p0 outputs to p1 any more" wait_for 30 mf_stops
mf_stops || dump
coproc CAP { "${traffic[@]}" count t1w 4 "$KIND"; }
read -r ready <&"${CAP[0]}"
"${traffic[@]}" send t0w 10 "$KIND"
read -r got <&"${CAP[0]}"
wait "$CAP_PID" 2>/dev/null || true
check "p0's frames no longer leave p1's wire ($got of 10)" [ "$got" -eq 0 ]
"${V[@]}" set Open_vSwitch . other_config:max-idle=500
ovs-ofctl del-flows br0
check "megaflows idle out: the device holds no transfer rule" wait_for 30 rules_are 0

# Every offload OVS tried was taken
refused=$("${flows[@]}" refused < "$d/vs.log")
check "no rte_flow refused" [ -z "$refused" ]
[ -z "$refused" ] || echo "$refused"

ovs_stop
[ "$fail" -eq 0 ] || ovs_log_tail
exit "$fail"
