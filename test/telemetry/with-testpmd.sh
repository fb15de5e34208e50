#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# with-testpmd.sh PMD_SO DATA_DIR CHECK [args...]: run stock dpdk-testpmd on a
# net_tally port whose wire replays DATA_DIR/demo.pcap once, with known
# rules, let the traffic through, then run CHECK with TALLY_FILE_PREFIX set
# to testpmd's EAL file prefix (its telemetry socket is
# /var/run/dpdk/<prefix>/dpdk_telemetry.v2) while testpmd keeps running.
#
# demo.pcap holds 16 frames of each: IPv4/UDP (4912 bytes), VLAN/IPv4/TCP
# (9072), IPv6/UDP (12704), IPv4/ICMP (1568). CHECK may send testpmd more
# commands: "testpmd-cmd <command>" (a function exported to it) writes
# "## <command>" into testpmd's output and sends it. With TESTPMD_LOG=<file>,
# testpmd's output (commands included) is copied there at the end.
# The rules:
#   #0 eth / ipv4 / udp           count              16 hits  4912 bytes
#   #1 eth / vlan / ipv4 / tcp    indirect count 5   16 hits  9072 bytes
#   #2 priority 1: eth            count              32 hits 14272 bytes
#                                 (what #0 and #1 leave: IPv6, ICMP)
#   #3 eth / ipv6 / tcp           queue only, matches nothing
#
# EAL's memory follows TALLY_TEST_MEM (devtools/eal-mem.sh: hugepages with
# IOVA as PA by default); exit 77 where that mode cannot run here. PMD_SO
# goes through devtools/eal-plugin.sh (a private copy when its path has a
# world-writable directory, which EAL refuses).
set -euo pipefail
pmd=$1 data=$2
shift 2
tools=$(cd "$(dirname "$0")/../../devtools" && pwd)
. "$tools/eal-mem.sh"
. "$tools/eal-plugin.sh"
tally_eal_mem_skip
read -ra mem <<<"$(tally_eal_mem 512)"
pmd=$(tally_plugin "$pmd")
work=$(mktemp -d)
prefix="tally-tel-$$"
tp_pid=""
cleanup() {
	exec 3>&- 2>/dev/null || true
	if [ -n "$tp_pid" ]; then
		kill "$tp_pid" 2>/dev/null || true
		wait "$tp_pid" 2>/dev/null || true
	fi
	rm -rf "$work" "/var/run/dpdk/$prefix"
}
trap cleanup EXIT
mkfifo "$work/in"
# A sanitizer build of the PMD needs its runtime loaded first into the
# uninstrumented testpmd; testpmd's own exit-time leaks are not ours.
san=$(ldd "$pmd" | awk '/lib(asan|ubsan)\.so/ {print $3}' | tr '\n' ' ')
tp_env=()
[ -z "$san" ] || tp_env=(env "LD_PRELOAD=$san${LD_PRELOAD:-}"
			 "ASAN_OPTIONS=${ASAN_OPTIONS:-}:detect_leaks=0")
"${tp_env[@]}" stdbuf -oL -eL dpdk-testpmd -l 0-1 "${mem[@]}" --no-pci --file-prefix="$prefix" \
	--log-level='pmd.net.tally.*:notice' -d "$pmd" \
	--vdev "net_tally0,wire=pcap,rx_pcap=$data/demo.pcap" \
	-- -i --total-num-mbufs=4096 --no-flush-rx <"$work/in" >>"$work/out" 2>&1 &
tp_pid=$!
exec 3>"$work/in"
# testpmd reads commands once it is up; if it stops first (EAL refused its
# arguments, a plugin, its memory), say so with its output
for _ in $(seq 1200); do
	grep -q 'testpmd> ' "$work/out" && break
	kill -0 "$tp_pid" 2>/dev/null || break
	sleep 0.05
done
if ! grep -q 'testpmd> ' "$work/out"; then
	st=0
	if kill -0 "$tp_pid" 2>/dev/null; then
		echo "with-testpmd: dpdk-testpmd gave no prompt in 60 s; its output:" >&2
	else
		wait "$tp_pid" || st=$?
		tp_pid=""
		echo "with-testpmd: dpdk-testpmd exited (status $st) before its prompt; its output:" >&2
	fi
	sed 's/^/  | /' "$work/out" >&2
	exit 1
fi
TALLY_TESTPMD_OUT=$work/out
export TALLY_TESTPMD_OUT
# A command to a testpmd that is gone fails with a message: the write runs
# in a subshell, which a broken pipe (SIGPIPE) ends instead of this shell.
testpmd-cmd() {
	printf '\n## %s\n' "$*" >>"$TALLY_TESTPMD_OUT"
	if ! (echo "$*" >&3) 2>/dev/null; then
		echo "testpmd-cmd: dpdk-testpmd is gone, '$*' not sent; its last output:" >&2
		tail -n 20 "$TALLY_TESTPMD_OUT" | sed 's/^/  | /' >&2
		return 1
	fi
	sleep 0.3
}
export -f testpmd-cmd
for c in \
	'flow indirect_action 0 create action_id 5 ingress action count / end' \
	'flow create 0 ingress pattern eth / ipv4 / udp / end actions count / queue index 0 / end' \
	'flow create 0 ingress pattern eth / vlan / ipv4 / tcp / end actions indirect 5 / queue index 0 / end' \
	'flow create 0 priority 1 ingress pattern eth / end actions count / queue index 0 / end' \
	'flow create 0 ingress pattern eth / ipv6 / tcp / end actions queue index 0 / end' \
	'set fwd rxonly' 'start'; do
	testpmd-cmd "$c"
done
for _ in $(seq 100); do
	grep -q 'Flow rule #3 created' "$work/out" && [ -S "/var/run/dpdk/$prefix/dpdk_telemetry.v2" ] && break
	sleep 0.1
done
sleep 2
rc=0
TALLY_FILE_PREFIX=$prefix "$@" || rc=$?
echo quit >&3
exec 3>&-
wait "$tp_pid" 2>/dev/null || true
tp_pid=""
[ -z "${TESTPMD_LOG:-}" ] || cp "$work/out" "$TESTPMD_LOG"
if [ $rc -ne 0 ]; then
	echo "---- testpmd output ----"
	cat "$work/out"
fi
exit $rc
