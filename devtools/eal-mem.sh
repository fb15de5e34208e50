#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# eal-mem.sh: the EAL memory arguments of the tests, the demo and the
# benchmarks, in one place. test/tally_eal_mem.h is its twin for the C
# programs: keep the two alike. TALLY_TEST_MEM chooses the mode:
#
#   pa (default)  hugepages, IOVA as PA:  --in-memory --iova-mode=pa
#   va            hugepages, IOVA as VA:  --in-memory --iova-mode=va
#   nohuge        no hugepages:           --no-huge -m <MB> --no-shconf
#
# --in-memory leaves no hugepage file behind and implies --no-shconf (no
# secondary process can join). It cannot be combined with --no-huge. A
# hugepage mode needs a hugetlbfs mounted and writable, at least
# TALLY_EAL_MEM_MIN_FREE free pages (devtools/setup.sh reserves them as
# root), and root for IOVA as PA (physical addresses).
#
# Sourced, it defines:
#   tally_eal_mem [MB]      the arguments on one line (MB: -m of nohuge, 512)
#   tally_eal_mem_why_not   when the mode cannot run here: the reason on
#                           stdout and status 1; else status 0, no output
#   tally_eal_mem_skip      when the mode cannot run here: the reason on
#                           stderr and exit 77 (meson's skip)
# Run: eal-mem.sh args [MB] | eal-mem.sh check (as tally_eal_mem_why_not).

TALLY_EAL_MEM_MIN_FREE=64	# 2 MiB pages: 128 MiB

tally_eal_mem_mode() {
	case "${TALLY_TEST_MEM:-pa}" in
	pa | va | nohuge) echo "${TALLY_TEST_MEM:-pa}" ;;
	*)
		echo "eal-mem: TALLY_TEST_MEM='$TALLY_TEST_MEM': use pa, va or nohuge" >&2
		return 2 ;;
	esac
}

tally_eal_mem() {
	local mode
	mode=$(tally_eal_mem_mode) || return 2
	case $mode in
	pa | va) echo "--in-memory --iova-mode=$mode" ;;
	nohuge) echo "--no-huge -m ${1:-512} --no-shconf" ;;
	esac
}

tally_eal_mem_why_not() {
	local mode mnt free
	mode=$(tally_eal_mem_mode) || return 2
	[ "$mode" != nohuge ] || return 0
	mnt=$(awk '$3 == "hugetlbfs" { print $2; exit }' /proc/mounts)
	free=$(awk '/^HugePages_Free:/ { print $2 }' /proc/meminfo)
	if [ -z "$mnt" ]; then
		echo "no hugetlbfs mounted (devtools/setup.sh mounts one at /dev/hugepages as root)"
	elif [ ! -w "$mnt" ]; then
		echo "hugetlbfs at $mnt is not writable for $(id -un)"
	elif [ "${free:-0}" -lt "$TALLY_EAL_MEM_MIN_FREE" ]; then
		echo "${free:-0} free hugepages, fewer than $TALLY_EAL_MEM_MIN_FREE" \
		     "(HugePages_Free; devtools/setup.sh reserves them as root)"
	elif [ "$mode" = pa ] && [ "$(id -u)" -ne 0 ]; then
		echo "IOVA as PA needs root (physical addresses)"
	else
		return 0
	fi
	return 1
}

tally_eal_mem_skip() {
	local why
	why=$(tally_eal_mem_why_not) && return 0
	[ $? -ne 2 ] || exit 2
	echo "SKIP: memory mode ${TALLY_TEST_MEM:-pa} (TALLY_TEST_MEM): $why;" \
	     "TALLY_TEST_MEM=nohuge runs without hugepages" >&2
	exit 77
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	case "${1:-}" in
	args) tally_eal_mem "${2:-}" ;;
	check) tally_eal_mem_why_not ;;
	*) echo "usage: $0 args [MB] | check" >&2; exit 2 ;;
	esac
fi
