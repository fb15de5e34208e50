#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The PCI test inside the guest (started by guest-init.sh, see vm-test.sh).
# Environment: TALLY_SRC, TALLY_BUILD, TALLY_MODE (full | probe),
# TALLY_BDFS (the pcap-wire function, the loopback function, the function
# of two ports).
#
# Prints "PASS: step" / "FAIL: step" and exits with the number of failed
# steps (0 = all passed).
set -u
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
# as devtools/asan.sh sets them on the host (a sanitizer build stops at the
# first error)
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
src=$TALLY_SRC
build=$TALLY_BUILD
mode=$TALLY_MODE
IFS=, read -r bdf0 bdf1 bdf2 <<< "$TALLY_BDFS"
devinfo=$build/app/tally-devinfo/tally-devinfo
pmd_dir=/opt/tally
fails=0

pass() { echo "PASS: $*"; }
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
# check NAME COMMAND...: one step
check() {
	local name=$1
	shift
	if "$@"; then pass "$name"; else fail "$name"; fi
}
driver_of() { basename "$(readlink "/sys/bus/pci/devices/$1/driver" 2>/dev/null)" 2>/dev/null; }
group_of() { basename "$(readlink "/sys/bus/pci/devices/$1/iommu_group")"; }

# EAL refuses a plugin in a world-writable directory: a private copy of
# the PMD in a root-owned 0755 directory.
mkdir -p -m 755 "$pmd_dir"
install -m 755 "$build/drivers/net/tally/librte_net_tally.so" "$pmd_dir/"
# bus.pci:info: the "Probe PCI driver" line is EAL's on 22.11, the PCI bus's
# own log type (default NOTICE) since 24.03
eal_common=(--iova-mode=pa --huge-unlink --no-telemetry
	--log-level='pmd.net.tally.*:info' --log-level=bus.pci:info)
# testpmd's output line-buffered (stdbuf's preload and settings). A
# sanitizer build of the PMD needs its runtime loaded first into the
# uninstrumented testpmd (before libstdbuf); testpmd's own exit-time leaks
# are not ours.
san=$(ldd "$pmd_dir/librte_net_tally.so" | awk '/lib(asan|ubsan)\.so/ {print $3}' | tr '\n' ' ')
tp_env=(env "LD_PRELOAD=${san}/usr/libexec/coreutils/libstdbuf.so" _STDBUF_O=L _STDBUF_E=L)
if [ -n "$san" ]; then
	tp_env+=("ASAN_OPTIONS=${ASAN_OPTIONS:-}:detect_leaks=0")
fi

# ---- 1. vfio-pci binding with tally-devinfo ----------------------------------
bind_ok() {
	local b=$1
	"$devinfo" --bind vfio-pci "$b" || return 1
	[ "$(driver_of "$b")" = vfio-pci ] || { echo "driver is '$(driver_of "$b")'"; return 1; }
	[ -c "/dev/vfio/$(group_of "$b")" ] || { echo "no /dev/vfio/$(group_of "$b")"; return 1; }
}
for b in "$bdf0" "$bdf1" "$bdf2"; do
	check "bind $b to vfio-pci" bind_ok "$b"
done
check "bind again is a no-op" \
	bash -c "'$devinfo' --bind vfio-pci $bdf0 | grep -qx '$bdf0: already bound to vfio-pci'"

# ---- 2. tally-devinfo lists the functions with their identity ---------------
# (the function of two ports: port 0's window, at the start of the BAR)
"$devinfo"
check "tally-devinfo lists the functions" test $? -eq 0
devinfo_json() {
	"$devinfo" --json > /tmp/devinfo.json || return 1
	python3 - "$bdf0" "$bdf1" "$bdf2" "$mode" <<'EOF'
import json, sys
devs = json.load(open("/tmp/devinfo.json"))["devices"]
# mac, queues
want = {sys.argv[1]: ("02:00:00:00:00:00", 2), sys.argv[2]: ("02:00:00:00:00:01", 2),
        sys.argv[3]: ("02:00:00:00:00:02", 1)}
# the device process posts register writes through its mailbox; without
# it, the identity is devtools/vm/mkbar.py's (spec 2.0)
posted = sys.argv[4] == "full"
version = "2.3" if posted else "2.0"
assert sorted(d["bdf"] for d in devs) == sorted(want), devs
for d in devs:
    i = d["identity"]
    got = (d["function"], d["register_bar"], d["driver"], d["iommu_group"] is not None,
           i["signature"], i["version"], i["rx_queues"], i["tx_queues"],
           i["counters"], i["comp_counters"], i["mac"], "steer" in i["capabilities"],
           "posted" in i["capabilities"], d["problems"])
    mac, q = want[d["bdf"]]
    exp = ("ivshmem", 2, "vfio-pci", True, "0x594c4154", version, q, q, 65536, 1024,
           mac, True, posted, [])
    assert got == exp, (d["bdf"], got, exp)
    bar2 = [b for b in d["bars"] if b["index"] == 2]
    assert len(bar2) == 1 and bar2[0]["size"] >= 65536 + 65536 * 16, d["bars"]
EOF
}
check "tally-devinfo --json: identity of the functions" devinfo_json

# ---- 3. stock dpdk-testpmd on the function through vfio-pci ------------------
testpmd() {
	local out=$1
	shift
	timeout 150 "${tp_env[@]}" dpdk-testpmd --lcores=0@0,1@0 -a "$bdf0" \
		--file-prefix=tp "${eal_common[@]}" -d "$pmd_dir/librte_net_tally.so" \
		-- -i --rxq=2 --txq=2 --disable-rss --total-num-mbufs=4096 --no-flush-rx "$@" \
		> "$out" 2>&1
}
# wait_for FILE REGEX SECONDS
wait_for() {
	local i
	for ((i = 0; i < $3 * 10; i++)); do
		grep -qE -- "$2" "$1" 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}
expect() {
	local f=$1 re
	shift
	for re in "$@"; do
		grep -qE -- "$re" "$f" || { echo "no line matching /$re/ in $f"; return 1; }
	done
}

if [ "$mode" = probe ]; then
	echo quit | testpmd /tmp/testpmd.out
	cat /tmp/testpmd.out
	check "testpmd: EAL maps the function through vfio-pci" expect /tmp/testpmd.out \
		"Probe PCI driver: net_tally_pci \(1af4:1110\) device: $bdf0 \(socket"
	check "testpmd: the PMD finds the signature in BAR 2 (no device behind it)" \
		expect /tmp/testpmd.out "device did not become ready"
else
	{
		echo "flow create 0 ingress pattern eth / ipv4 / udp / end actions count / queue index 1 / end"
		# once the rule is in place, the host plugs in the device's pcap wire
		wait_for /tmp/testpmd.out "Flow rule #0 created" 90 &&
			echo "tally-vm: plug-wire bar0" >&2
		sleep 2
		echo "set fwd rxonly"
		echo "start"
		sleep 5
		echo "stop"
		echo "flow query 0 0 count"
		echo "show port stats 0"
		echo "quit"
	} | testpmd /tmp/testpmd.out
	cat /tmp/testpmd.out
	check "testpmd: probe through vfio-pci" expect /tmp/testpmd.out \
		"Probe PCI driver: net_tally_pci \(1af4:1110\) device: $bdf0"
	check "testpmd: flow create" expect /tmp/testpmd.out "Flow rule #0 created"
	check "testpmd: flow query hits 16 bytes 4912" expect /tmp/testpmd.out \
		"hits: 16$" "bytes: 4912$"
	check "testpmd: 16 frames on queue 1, 48 on queue 0" bash -c \
		"grep -A1 'RX Port= 0/Queue= 1' /tmp/testpmd.out | grep -q 'RX-packets: 16 ' &&
		 grep -A1 'RX Port= 0/Queue= 0' /tmp/testpmd.out | grep -q 'RX-packets: 48 '"
	check "testpmd: port stats 64 frames, none missed" expect /tmp/testpmd.out \
		"RX-packets: 64 +RX-missed: 0 +RX-bytes: +28256$"
fi

# ---- 4. a verbs program counting its own flow on the loopback function -------
if [ "$mode" = full ]; then
	TALLY_VERBS_EAL_ARGS="-l 0 -a $bdf1 --file-prefix=verbs ${eal_common[*]}" \
		timeout 120 "$build/examples/verbs_counters/verbs_counters" > /tmp/verbs.out 2>&1
	rc=$?
	cat /tmp/verbs.out
	check "verbs_counters: exit status 0" test $rc -eq 0
	check "verbs_counters: PACKETS 32 BYTES 2048" expect /tmp/verbs.out \
		"^PACKETS = 32, BYTES = 2048 "
fi

# ---- 4b. IOVA as VA: the device is given guest-physical addresses ----------
# (through the vIOMMU EAL maps memory at its virtual address; the device
# behind ivshmem reads guest RAM outside the IOMMU, so the PMD translates
# each page to its physical address). testpmd forwards on the loopback
# function with its pool made after the probe. A sanitizer build is left
# out: its runtime keeps EAL's memory above the 39 address bits the guest's
# vIOMMU maps (EAL: "IOVA exceeding limits of current DMA mask").
if [ "$mode" = full ] && [ -n "$san" ]; then
	echo "SKIP: testpmd --iova-mode=va: sanitizer build (EAL memory beyond the vIOMMU's address width)"
elif [ "$mode" = full ]; then
	{
		echo "start tx_first"
		# the frames loop through the device process on the host:
		# a TCG guest on a busy host needs the time
		sleep 5
		echo "stop"
		echo "show port xstats 0"
		echo "quit"
	} | timeout 150 "${tp_env[@]}" dpdk-testpmd --lcores=0@0,1@0 -a "$bdf1" \
		--file-prefix=tpva --iova-mode=va --huge-unlink --no-telemetry \
		--log-level='pmd.net.tally.*:info' -d "$pmd_dir/librte_net_tally.so" \
		-- -i --total-num-mbufs=4096 > /tmp/testpmd-va.out 2>&1
	cat /tmp/testpmd-va.out
	check "testpmd --iova-mode=va: IOVA mode VA" expect /tmp/testpmd-va.out \
		"Selected IOVA mode 'VA'"
	check "testpmd --iova-mode=va: frames forwarded, no DMA fault" bash -c \
		"grep -Eq 'RX-packets: +[1-9][0-9]{2,} ' /tmp/testpmd-va.out &&
		 grep -Eq '^dma_faults: 0$' /tmp/testpmd-va.out"
fi

# ---- 5. two ports behind one function: a transfer rule between them --------
# The device process of the third function has two ports: port 0's wire
# replays demo.pcap (held until the rule is in place), port 1's writes a
# pcap file the host compares after the guest (vm-test.sh). The PMD makes
# an ethdev per port (0 and 1 here); a transfer rule created through port 0
# sends the 16 IPv4/UDP frames of its wire out of port 1's wire, inside the
# device; the other 48 reach port 0's queue. Stock dpdk-proc-info, a
# secondary process, then attaches both ports (testpmd keeps its huge page
# files for it) and reads their statistics.
if [ "$mode" = full ]; then
	eal_sw=(--iova-mode=pa --no-telemetry --log-level='pmd.net.tally.*:info'
		--log-level=bus.pci:info)
	{
		echo "flow create 0 transfer pattern eth / ipv4 / udp / end actions count / port_id id 1 / end"
		wait_for /tmp/testpmd-sw.out "Flow rule #0 created" 90 &&
			echo "tally-vm: plug-wire bar2" >&2
		sleep 2
		echo "set fwd rxonly"
		echo "start"
		sleep 5
		echo "stop"
		sleep 1
		timeout 60 dpdk-proc-info --file-prefix=tpsw -a "$bdf2" "${eal_sw[@]}" \
			-d "$pmd_dir/librte_net_tally.so" -- --xstats > /tmp/procinfo-sw.out 2>&1
		echo "proc-info exit status $?" >> /tmp/procinfo-sw.out
		echo "flow query 0 0 count"
		echo "show port xstats 0"
		echo "show port xstats 1"
		# the function's removal closes both ports
		echo "port stop all"
		echo "device detach $bdf2"
		echo "quit"
	} | timeout 150 "${tp_env[@]}" dpdk-testpmd --lcores=0@0,1@0 -a "$bdf2" \
		--file-prefix=tpsw "${eal_sw[@]}" -d "$pmd_dir/librte_net_tally.so" \
		-- -i --rxq=1 --txq=1 --total-num-mbufs=4096 --no-flush-rx \
		> /tmp/testpmd-sw.out 2>&1
	rm -f /dev/hugepages/tpswmap_*
	cat /tmp/testpmd-sw.out /tmp/procinfo-sw.out
	check "testpmd: two ethdevs on $bdf2" expect /tmp/testpmd-sw.out \
		"$bdf2: 2 ports, a window every 0x[0-9a-f]+ bytes of BAR2" \
		"${bdf2}_p1: port 1 on BAR2" "^Port 1: 02:00:00:00:00:03$"
	check "testpmd: transfer rule created through port 0" expect /tmp/testpmd-sw.out \
		"Flow rule #0 created"
	check "testpmd: transfer rule hits 16 bytes 4912" expect /tmp/testpmd-sw.out \
		"hits: 16$" "bytes: 4912$"
	# port 0's frames arrive before testpmd starts forwarding: its xstats
	# (the device's counts), not the forwarding statistics, tell
	check "testpmd: 16 frames out of port 1's wire, 48 to port 0's queue" bash -c \
		"sed -n '/NIC extended statistics for port 0/,/NIC extended statistics for port 1/p' \
			/tmp/testpmd-sw.out > /tmp/xstats-sw0 &&
		 sed -n '/NIC extended statistics for port 1/,\$p' /tmp/testpmd-sw.out \
			> /tmp/xstats-sw1 &&
		 grep -q '^rx_wire_packets: 64$' /tmp/xstats-sw0 &&
		 grep -q '^sw_to_wire: 16$' /tmp/xstats-sw0 &&
		 grep -q '^rx_q0_packets: 48$' /tmp/xstats-sw0 &&
		 grep -q '^tx_packets: 16$' /tmp/xstats-sw1"
	check "testpmd: device detach removes both ports" expect /tmp/testpmd-sw.out \
		"^Port 1 is closed$" "^Port 0 is closed$" "^Device $bdf2 is detached$" \
		"^Now total ports is 0$"
	check "dpdk-proc-info (secondary): both ports, port 1 sent 16 frames" bash -c \
		"grep -q '^proc-info exit status 0$' /tmp/procinfo-sw.out &&
		 sed -n '/NIC extended statistics for port 0/,/NIC extended statistics for port 1/p' \
			/tmp/procinfo-sw.out | grep -q '^sw_to_wire: 16$' &&
		 sed -n '/NIC extended statistics for port 1/,\$p' /tmp/procinfo-sw.out |
			grep -q '^tx_packets: 16$'"
fi

# ---- 6. unbind --------------------------------------------------------------
unbind_ok() {
	"$devinfo" --unbind "$1" && [ -z "$(driver_of "$1")" ]
}
for b in "$bdf0" "$bdf1" "$bdf2"; do
	check "unbind $b" unbind_ok "$b"
done

echo "guest: $fails step(s) failed"
exit $((fails > 100 ? 100 : fails))
