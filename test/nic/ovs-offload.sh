#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# ovs-offload.sh PMD_SO [--no-huge]: Open vSwitch hardware offload
# (other_config:hw-offload=true, netdev datapath) on three Tally ports:
#   p0, p1  wire=if on a veth each; frames are sent from the veth's peer
#           (ovs-traffic.py): ARP, IPv4 TCP/UDP/ICMP, IPv6 TCP/UDP,
#           VLAN-tagged IPv4, IPv4 and IPv6 first and later fragments (an
#           IPv4 one at offset 1480 and one at offset 40)
#   p2      wire=none, where OpenFlow sends them
# OpenFlow: everything from p0 to p2 on its in_port alone; from p1, rules
# on udp/tcp tp_dst and on nw_src, so megaflows of p1 match L3/L4 fields.
#
# Two rounds of traffic. The first (one frame of each kind per port) makes
# the megaflows, which OVS then offloads; when its offload queue is empty,
# the second (COUNT frames of each kind) runs. Checks:
#   - each kind of megaflow is there, and offloaded:partial unless it is in
#     SOFTWARE below (what the device cannot express, with the reason);
#   - OVS's "Inserted offloads" equals the sum of Tally's /tally/flows
#     "flows" (DPDK telemetry socket of ovs-vswitchd);
#   - each megaflow counted the second round's frames; the round's "phwol
#     hits" (pmd-stats-show) equal its frames on offloaded megaflows, less
#     those their rule does not match (UNMARKED below);
#   - every rte_flow OVS failed to create (its log, with the PMD's cause)
#     is a full-offload (transfer) try or of a kind in SOFTWARE, and no
#     other offload failure is logged.
# EAL memory: huge pages when there are free ones (OVS adds --in-memory,
# which keeps the telemetry socket, in /var/run/dpdk/<file-prefix>/),
# otherwise and with --no-huge: --no-huge -m 2048 --legacy-mem (the device's
# steering arrays then live in its host window). TALLY_OVS_COUNT: frames of
# each kind in the second round (100). Skipped (77) when Open vSwitch with
# DPDK is not installed or no network namespace can be made.
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

# Megaflow kinds OVS may leave in software on Tally, and why (the PMD's
# answer, logged by OVS, is what decides; see doc/guides/nics/tally.rst).
# None: the device matches every field of every kind made here, fragment
# fields and OVS's later-fragment ranges included. Example of an entry:
#   [ipv4-frag-later]="fragment_offset range 8..0x1fff not supported"
declare -A SOFTWARE=(
)
# The full-offload try (transfer attribute, port_id / drop actions) that
# OVS makes before partial offload: p0, p1 and p2 are three devices (three
# switches), so a transfer rule of p0 or p1 cannot output to p2
# (ovs-full-offload.sh runs full offload on the ports of one device).
TRANSFER_WHY="p2 is a port of another device: another switch"

# What each port receives, and the megaflow kinds that must come of it
P0_SEND=(arp ipv4-udp ipv4-tcp ipv4-icmp ipv6-udp ipv6-tcp vlan-ipv4
	 ipv4-frag-first ipv4-frag-later ipv4-frag-low ipv6-frag-first
	 ipv6-frag-later)
P0_KINDS=(arp ipv4 ipv6 vlan-ipv4 ipv4-frag-first ipv4-frag-later
	  ipv6-frag-first ipv6-frag-later)
P1_SEND=(arp ipv4-udp ipv4-tcp ipv4-icmp ipv6-tcp)
P1_KINDS=(arp ipv4-udp ipv4-tcp ipv4-icmp ipv6)
# frames of each megaflow per round: kinds that share a megaflow add up
declare -A PER_ROUND=([p0 ipv4]=3 [p0 ipv6]=2 [p0 ipv4-frag-later]=2)
# frames of an offloaded megaflow that its rte_flow rule does not match, so
# they arrive unmarked (no phwol hit) and OVS's lookup finds the megaflow:
# OVS 3.1 asks for IPv4 later fragments with fragment_offset 8..0x1fff, in
# units of 8 bytes, so one at offset 40 (ipv4-frag-low) is "later" to the
# megaflow and outside the rule; the device does what the rule says.
declare -A UNMARKED=([p0 ipv4-frag-later]=1)
UNMARKED_WHY="OVS's rule asks for offset >= 64 bytes (fragment_offset 8..0x1fff)"

sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
for i in 0 1; do
	ip link add "t$i" type veth peer name "t${i}w"
	ip link set "t$i" up
	ip link set "t${i}w" up
done

# megaflows idle between the rounds must stay (max-idle, ms)
ovs_start --no-pci hw-offload=true max-idle=120000
"${OVS_APPCTL[@]}" vlog/set netdev_offload_dpdk:file:dbg >/dev/null
"${V[@]}" add-br br0 -- set bridge br0 datapath_type=netdev
args=counters=65536,rxq=1,txq=1
"${V[@]}" add-port br0 p0 -- set Interface p0 type=dpdk ofport_request=1 \
	"options:dpdk-devargs=net_tally0,wire=if,iface=t0,$args"
"${V[@]}" add-port br0 p1 -- set Interface p1 type=dpdk ofport_request=2 \
	"options:dpdk-devargs=net_tally1,wire=if,iface=t1,$args"
"${V[@]}" add-port br0 p2 -- set Interface p2 type=dpdk ofport_request=3 \
	"options:dpdk-devargs=net_tally2,wire=none,$args"
link_is() { [ "$("${V[@]}" get Interface "$1" link_state 2>/dev/null)" = "$2" ]; }
for p in p0 p1 p2; do
	check "$p: attached, link up" wait_for 30 link_is "$p" up
done
ovs-ofctl del-flows br0
ovs-ofctl add-flow br0 "priority=10,in_port=p0,actions=output:p2"
ovs-ofctl add-flow br0 "priority=20,in_port=p1,udp,tp_dst=53,actions=output:p2"
ovs-ofctl add-flow br0 "priority=20,in_port=p1,tcp,tp_dst=80,actions=output:p2"
ovs-ofctl add-flow br0 "priority=20,in_port=p1,ip,nw_src=10.1.0.0/16,actions=output:p2"
ovs-ofctl add-flow br0 "priority=10,in_port=p1,actions=output:p2"

nflows() { dump | wc -l; }
queue_empty() { [ "$(offload_stat Enqueued)" = 0 ]; }
nkinds=$(( ${#P0_KINDS[@]} + ${#P1_KINDS[@]} ))
sent=$(( ${#P0_SEND[@]} + ${#P1_SEND[@]} ))

# Round 1: the megaflows, and their offloads
t0=$SECONDS
"${traffic[@]}" send t0w 1 "${P0_SEND[@]}"
"${traffic[@]}" send t1w 1 "${P1_SEND[@]}"
have_megaflows() { [ "$(nflows)" -ge "$nkinds" ]; }
received() { [ "$(pmd_stat "packets received")" -ge "$1" ]; }
check "round 1: $sent frames received" wait_for 20 received "$sent"
check "round 1: $nkinds megaflows" wait_for 20 have_megaflows
# Every megaflow's offload is settled when it is inserted or its ingress
# (partial offload) rule was refused, and the offload queue is empty.
ingress_refused() {
	"${flows[@]}" refused < "$d/vs.log" | grep -vc '^transfer' || true
}
settled() {
	queue_empty &&
	[ $(( $(offload_stat Inserted) + $(ingress_refused) )) -ge "$nkinds" ]
}
check "round 1: every megaflow inserted or refused by the device" wait_for 30 settled
before=$(dump)
phwol0=$(pmd_stat "phwol hits")

# Round 2: COUNT frames of each kind
"${traffic[@]}" send t0w "$COUNT" "${P0_SEND[@]}"
"${traffic[@]}" send t1w "$COUNT" "${P1_SEND[@]}"
check "round 2: $((sent * COUNT)) frames received" wait_for 30 received $((sent * (COUNT + 1)))
after=$(dump)
phwol1=$(pmd_stat "phwol hits")
echo "rounds took $((SECONDS - t0)) s"

# Per megaflow: present, offloaded or allowed in software, packets
marked_packets=0
seen=""
for port in p0 p1; do
	if [ "$port" = p0 ]; then kinds=("${P0_KINDS[@]}"); else kinds=("${P1_KINDS[@]}"); fi
	for kind in "${kinds[@]}"; do
		line=$(awk -v p="$port" -v k="$kind" '$2 == p && $3 == k' <<<"$after")
		if [ "$(grep -c . <<<"$line")" -ne 1 ]; then
			echo "FAIL: $port $kind: $(grep -c . <<<"$line") megaflows, 1 expected"
			fail=1
			continue
		fi
		read -r ufid _ _ off pk _ <<<"$line"
		seen="$seen $ufid"
		pk0=$(awk -v u="$ufid" '$1 == u { print $5 }' <<<"$before")
		delta=$(( pk - ${pk0:-0} ))
		n=$(( COUNT * ${PER_ROUND[$port $kind]:-1} ))
		why=${SOFTWARE[$kind]:-}
		u=$(( COUNT * ${UNMARKED[$port $kind]:-0} ))
		if [ "$off" != no ]; then
			marked_packets=$((marked_packets + delta - u))
			note=""
			[ "$u" -eq 0 ] || note=", $u of them outside the rule: $UNMARKED_WHY"
			check "$port $kind: offloaded:$off, +$delta packets (+$n sent$note)" \
				[ "$delta" -eq "$n" ]
		elif [ -n "$why" ]; then
			echo "PASS: $port $kind: in software, +$delta packets ($why)"
		else
			echo "FAIL: $port $kind: not offloaded, +$delta packets"
			fail=1
		fi
	done
done
extra=$(awk -v s="$seen" 'index(s, $1) == 0' <<<"$after")
check "no other megaflows" [ -z "$extra" ]
[ -z "$extra" ] || echo "$extra"

inserted=$(offload_stat Inserted)
sock=/var/run/dpdk/$ovs_prefix/dpdk_telemetry.v2
tflows=$("${flows[@]}" tally-flows "$sock" 2>/dev/null || echo "?")
check "Inserted offloads ($inserted) = Tally's /tally/flows ($tflows)" \
	[ "$inserted" = "$tflows" ]
check "phwol hits of round 2 ($((phwol1 - phwol0))) = its frames that offloaded rules match ($marked_packets)" \
	[ $((phwol1 - phwol0)) -eq "$marked_packets" ]

# Refusals: every failed rte_flow is a transfer try or a kind in SOFTWARE
refused=$("${flows[@]}" refused < "$d/vs.log" | sort | uniq -c |
	sed -E 's/^ *([0-9]+) /\1\t/')
ntransfer=$(awk -F'\t' '$2 == "transfer" { n += $1 } END { print n + 0 }' <<<"$refused")
echo "full-offload (transfer) tries refused: $ntransfer ($TRANSFER_WHY)"
bad=0
while IFS=$'\t' read -r n kind why; do
	[ -n "$kind" ] && [ "$kind" != transfer ] || continue
	if [ -n "${SOFTWARE[$kind]:-}" ]; then
		echo "refused as expected: $kind ($n rules): $why"
	else
		echo "refused, not in SOFTWARE: $kind ($n rules): $why"
		bad=1
	fi
done <<<"$refused"
check "nothing refused but what the device cannot express" [ "$bad" -eq 0 ]
# offload failures OVS logs without the rule it tried
other=$(grep -iE "failed to offload|offload.*(error|refused)" "$d/vs.log" |
	grep -vE "Failed flow:|rte_flow creation failed:" || true)
check "no other offload failure logged" [ -z "$other" ]
[ -z "$other" ] || echo "$other"

ovs_stop
[ "$fail" -eq 0 ] || ovs_log_tail
exit "$fail"
