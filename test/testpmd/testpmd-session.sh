#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# testpmd-session.sh PMD_SO VDEV_ARGS SCRIPT [testpmd args...]
#
# TALLY_TP_EAL: more EAL arguments after the port's --vdev (split on
# spaces), for more ports and the vdevs built on them (bonding, fail-safe).
#
# Runs stock dpdk-testpmd on one net_tally vdev, feeding the interactive
# commands of SCRIPT one line at a time. A line "sleep N" pauses; "wait-quiet"
# pauses until port 0's Rx counter stops moving (up to 10 s); "telemetry
# CMD" asks the running testpmd's telemetry socket (stock dpdk-telemetry.py)
# and puts the reply, one JSON line, into the output; "shell CMD" runs CMD
# (its output into the output too), e.g. to act on a port's interface. testpmd's
# output goes to stdout, line-buffered so stdout and stderr lines keep their
# order. --no-flush-rx: testpmd would otherwise drain the Rx
# queues at "start", and an inline model reading a pcap wire delivers the
# whole file to that drain.
#
# With TALLY_TEST_NIC=<path of tally-nic> the device runs as its own process:
# the device settings of VDEV_ARGS go to tally-nic, the port attaches with dev=<socket>,
# and the wire is held until the script's first "start" (as the in-process
# model only takes frames once forwarding polls it).
#
# EAL's memory follows TALLY_TEST_MEM (devtools/eal-mem.sh: hugepages with
# IOVA as PA by default); exit 77 where that mode cannot run here. PMD_SO
# goes through devtools/eal-plugin.sh (a private copy when its path has a
# world-writable directory, which EAL refuses).
set -euo pipefail
pmd=$1 vdev=$2 script=$3
shift 3
tools=$(cd "$(dirname "$0")/../../devtools" && pwd)
. "$tools/eal-mem.sh"
. "$tools/eal-plugin.sh"
tally_eal_mem_skip
read -ra mem <<<"$(tally_eal_mem 512)"
read -ra eal_more <<<"${TALLY_TP_EAL:-}"
pmd=$(tally_plugin "$pmd")
prefix="tally-tp-$$-$RANDOM"
nic_pid=""
nic_dir=""
stop_nic() {
	if [ -n "$nic_pid" ]; then
		kill -TERM "$nic_pid" 2>/dev/null || true
		wait "$nic_pid" 2>/dev/null || true
		nic_pid=""
	fi
	[ -z "$nic_dir" ] || rm -rf "$nic_dir"
}
sess_dir=""
trap 'stop_nic; [ -z "$sess_dir" ] || rm -rf "$sess_dir"; rm -rf "/var/run/dpdk/$prefix"' EXIT
if [ -n "${TALLY_TEST_NIC:-}" ]; then
	nic_dir=$(mktemp -d)
	name=${vdev%%,*}
	args=""
	case "$vdev" in *,*) args=${vdev#*,} ;; esac
	# shellcheck disable=SC2086
	"$TALLY_TEST_NIC" --socket "$nic_dir/nic.sock" --hold-wire --log-level 2 \
		${args:+"$args"} >&2 &
	nic_pid=$!
	for _ in $(seq 100); do [ -S "$nic_dir/nic.sock" ] && break; sleep 0.05; done
	vdev="$name,dev=$nic_dir/nic.sock"
fi

# A sanitizer build of the PMD needs its runtime loaded first into the
# uninstrumented testpmd; testpmd's own exit-time leaks are not ours.
san=$(ldd "$pmd" | awk '/lib(asan|ubsan)\.so/ {print $3}' | tr '\n' ' ')
if [ -n "$san" ]; then
	export LD_PRELOAD="$san${LD_PRELOAD:-}"
	export ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0"
fi

# The device process runs free: wait until testpmd has started the port
# (CTRL.ENABLE) before the first command, so the script's pauses mean what
# they mean for the in-process model.
wait_port_enabled() {
	local ctrl c ok
	for _ in $(seq 200); do
		# one "ctrl" per port of the device: every one enabled
		ctrl=$("$TALLY_TEST_NIC" --stats "$nic_dir/nic.sock" 2>/dev/null |
			sed -n 's/.* ctrl \(0x[0-9a-f]*\) .*/\1/p')
		ok=${ctrl:+1}
		for c in $ctrl; do
			[ $((c & 1)) -eq 1 ] || ok=""
		done
		[ -n "$ok" ] && return 0
		sleep 0.05
	done
}

# testpmd reads commands only once it has started (0.5-3 s here, longer on a
# loaded machine: it locks all of its memory first). Commands written before
# would pile up and run back to back, and the script's pauses would mean
# nothing (a "start ... sleep 2 ... stop" could forward for microseconds):
# wait for its first prompt.
wait_ready() {
	for _ in $(seq 1200); do
		grep -q 'testpmd> ' "$out" 2>/dev/null && return 0
		sleep 0.05
	done
}

# A shell or telemetry line looks at testpmd from outside: first let testpmd
# finish the commands before it (its prompt after each; a loaded machine
# may lag the 0.2 s the feed leaves).
sent=0
wait_done() {
	for _ in $(seq 200); do
		[ "$(grep -o 'testpmd> ' "$out" 2>/dev/null | wc -l)" -gt "$sent" ] && return 0
		sleep 0.05
	done
}

feed() {
	local line
	wait_ready
	[ -z "$nic_pid" ] || wait_port_enabled
	while IFS= read -r line || [ -n "$line" ]; do
		case "$line" in
		"sleep "*) sleep "${line#sleep }" ;;
		"shell "*)
			wait_done
			printf '\n' >&4
			bash -c "${line#shell }" >&4 2>&1 || true ;;
		"telemetry "*)
			wait_done
			printf '\n' >&4
			echo "${line#telemetry }" | dpdk-telemetry.py -f "$prefix" 2>&1 |
				grep '^{' >&4 || true ;;
		"") ;;
		*) echo "$line"; sent=$((sent + 1)); sleep 0.2
		   case "$line" in
		   start*) [ -z "$nic_pid" ] || release_wire ;;
		   esac ;;
		esac
	done < "$script"
}

# The device process: plug the wire in once testpmd has really started
# forwarding (it may still be working through earlier commands).
starts=0
release_wire() {
	starts=$((starts + 1))
	for _ in $(seq 200); do
		[ "$(grep -c 'packet forwarding - ports=' "$out" 2>/dev/null)" -ge "$starts" ] && break
		sleep 0.05
	done
	kill -USR2 "$nic_pid"
}

sess_dir=$(mktemp -d)
out="$sess_dir/out"
exec 4>&1
feed | timeout 120 stdbuf -oL -eL dpdk-testpmd -l 0-1 "${mem[@]}" --no-pci \
	--file-prefix="$prefix" --log-level='pmd.net.tally.*:notice' \
	-d "$pmd" --vdev "$vdev" "${eal_more[@]}" -- -i --total-num-mbufs=4096 --no-flush-rx "$@" 2>&1 |
	tee "$out" || true
stop_nic
rm -rf "$sess_dir"
# EAL leaves its runtime directory (the telemetry socket) behind: the trap
# removes it
