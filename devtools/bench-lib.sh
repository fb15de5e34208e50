#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# bench-lib.sh: what the rte_flow benchmark scripts share. Sourced.
#   bench_stats "v1 v2 ..."   "median min max" of the values (the median of
#                             an even count: the mean of the middle two)
#   bench_mem_mb RULES        EAL memory (MB) with --no-huge for RULES rules
#   bench_run_peak LOG CMD... runs CMD (stdout and stderr to LOG) and appends
#                             "HWM <KB>" to LOG: its peak resident memory
#                             with its hugetlbfs pages (not in VmHWM)

bench_stats() {
	tr ' ' '\n' <<<"$*" | grep -v '^$' | sort -g |
	awk '{ v[NR] = $1 } END { m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2;
	       printf "%g %g %g\n", m, v[1], v[NR] }'
}

bench_mem_mb() {
	echo $(( 1024 + $1 / 1000000 * 640 ))
}

# Peak memory of CMD: VmHWM plus HugetlbPages, sampled every 2 ms until
# CMD exits (hugetlbfs pages, DPDK's memory on hugepages, are not in VmHWM;
# the sum can only overstate the true peak). Sampling forks nothing: a
# short run's hugepages peak for a few ms only (a mempool just before
# exit). Returns CMD's exit status.
bench_run_peak() {
	local log=$1 pid peak=0 k v h t z rc=0 nap
	shift
	"$@" >"$log" 2>&1 &
	pid=$!
	exec {nap}<> <(:)
	while [ -r "/proc/$pid/status" ]; do
		h="" t=0 z=""
		while read -r k v _; do
			case $k in
			State:) [ "$v" = Z ] && z=1 ;;
			VmHWM:) h=$v ;;
			HugetlbPages:) t=$v ;;
			esac
		done 2>/dev/null <"/proc/$pid/status" || true
		[ -z "$z" ] || break	# exited: its memory is gone
		# no VmHWM for an instant while it execs: no sample then
		if [ -n "$h" ] && [ $((h + t)) -gt "$peak" ]; then
			peak=$((h + t))
		fi
		read -rt 0.002 -u "$nap" _ || true
	done
	exec {nap}<&-
	wait "$pid" || rc=$?
	echo "HWM $peak" >>"$log"
	return "$rc"
}
