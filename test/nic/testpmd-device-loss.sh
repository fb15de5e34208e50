#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# testpmd-device-loss.sh TALLY_NIC PMD_SO [ROUNDS]
#
# Stock dpdk-testpmd forwards on a port whose device is a tally-nic process;
# the device is killed (SIGKILL) mid-traffic. testpmd's own removal handling
# (its INTR_RMV callback stops forwarding, then stops, closes and detaches
# the port from an EAL alarm) runs while the operator types "stop",
# "port stop 0" and "port close 0" on the console: both close the port at
# about the same time. Each round waits a different time after the kill, so
# the console's close falls before, during and after the removal handling.
# Then "quit" must end testpmd with status 0: no crash, no hang (a round has
# 40 s).
#
# EAL's memory follows TALLY_TEST_MEM (devtools/eal-mem.sh); exit 77 where
# that mode cannot run here.
set -uo pipefail
nic=$1 pmd=$2 rounds=${3:-5}
tools=$(cd "$(dirname "$0")/../../devtools" && pwd)
. "$tools/eal-mem.sh"
. "$tools/eal-plugin.sh"
tally_eal_mem_skip
read -ra mem <<<"$(tally_eal_mem 512)"
pmd=$(tally_plugin "$pmd") || exit 1
# A sanitizer build of the PMD needs its runtime loaded first into the
# uninstrumented testpmd; testpmd's own exit-time leaks are not ours.
san=$(ldd "$pmd" | awk '/lib(asan|ubsan)\.so/ {print $3}' | tr '\n' ' ')
if [ -n "$san" ]; then
	export LD_PRELOAD="$san${LD_PRELOAD:-}"
	export ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0"
fi
dir=$(mktemp -d)
nic_pid=""
prefix=""
cleanup() {
	[ -z "$nic_pid" ] || kill -KILL "$nic_pid" 2>/dev/null
	{ exec 3>&-; } 2>/dev/null
	rm -rf "$dir"
	[ -z "$prefix" ] || rm -rf "/var/run/dpdk/$prefix"
}
trap cleanup EXIT
# a testpmd that crashed makes the next command fail, not this script
trap '' PIPE

# Seconds from the kill to the console's "stop", one per round: at once
# (the removal not yet seen), around the removal handling (loss seen within
# 0.1 s, testpmd acts 0.1 s after the event), and long after it.
delays=(0 0.15 0.25 0.4 1.5 0.1 0.2 0.3)

# Wait until the output has a line matching $1 (up to $2 tenths of a second).
wait_for() {
	local i
	for ((i = 0; i < $2; i++)); do
		grep -qE -- "$1" "$dir/out" 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}

fail=0
for ((r = 0; r < rounds; r++)); do
	delay=${delays[r % ${#delays[@]}]}
	sock="$dir/nic$r.sock"
	"$nic" --socket "$sock" --log-level 1 wire=gen gen_flows=16 gen_len=64 &
	nic_pid=$!
	for _ in $(seq 100); do [ -S "$sock" ] && break; sleep 0.05; done
	prefix="tally-loss-$$-$r"
	rm -f "$dir/in" "$dir/out"
	mkfifo "$dir/in"
	timeout -k 5 40 stdbuf -oL -eL dpdk-testpmd -l 0-1 "${mem[@]}" --no-pci \
		--file-prefix="$prefix" --log-level='pmd.net.tally.*:notice' \
		-d "$pmd" --vdev "net_tally0,dev=$sock" -- -i --total-num-mbufs=4096 \
		< "$dir/in" > "$dir/out" 2>&1 &
	tp=$!
	exec 3>"$dir/in"
	wait_for 'testpmd> ' 300
	echo "start" >&3
	wait_for 'packet forwarding - ports=' 100
	sleep 0.3
	kill -KILL "$nic_pid"
	wait "$nic_pid" 2>/dev/null
	nic_pid=""
	sleep "$delay"
	echo "stop" >&3
	echo "port stop 0" >&3
	sleep 0.1
	echo "port close 0" >&3
	# testpmd's removal handling, if it has not run yet
	sleep 0.5
	echo "quit" >&3
	exec 3>&-
	wait "$tp"
	rc=$?
	if [ "$rc" -ne 0 ] || ! grep -q 'Bye' "$dir/out"; then
		case $rc in
		124 | 137) what="hung (killed after 40 s)" ;;
		0) what="no 'Bye...' from quit" ;;
		*) what="exit status $rc" ;;
		esac
		[ "$rc" -gt 128 ] && [ "$rc" -ne 137 ] && what="$what (signal $((rc - 128)))"
		echo "FAIL: round $r (stop $delay s after the kill): testpmd $what"
		tail -n 30 "$dir/out"
		fail=1
	else
		echo "ok: round $r (stop $delay s after the kill):" \
		     "$(grep -c 'device removal event' "$dir/out") removal event(s)," \
		     "testpmd exited 0"
	fi
	rm -rf "/var/run/dpdk/$prefix"
	prefix=""
done
exit $fail
