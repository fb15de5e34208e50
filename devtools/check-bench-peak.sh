#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# bench_run_peak (devtools/bench-lib.sh), the benchmarks' peak memory, counts
# a process's hugetlbfs pages, which VmHWM leaves out: a process that maps
# and writes HUGE_MB of a file on hugetlbfs, then holds them for 0.3 s
# (long enough for a sampler that other tests' processes delay), must peak
# at least nine tenths of that above the same process mapping nothing.
# Also: the command's exit status comes back, with a peak line.
# Skips (77) where no hugetlbfs mount has enough free 2 MiB pages.
set -u
cd "$(dirname "$0")/.."
. devtools/bench-lib.sh
HUGE_MB=32
dir=$(awk '$3 == "hugetlbfs" && ($4 ~ /pagesize=2M/ || $4 !~ /pagesize=/) { print $2; exit }' /proc/mounts)
free=$(awk '/^HugePages_Free:/ { print $2 }' /proc/meminfo)
if [ -z "$dir" ] || [ ! -w "$dir" ] || [ "${free:-0}" -lt $((HUGE_MB / 2 + 2)) ]; then
	echo "check-bench-peak: no writable hugetlbfs mount with $((HUGE_MB / 2 + 2)) free 2 MiB pages" >&2
	exit 77
fi
work=$(mktemp -d)
file="$dir/check-bench-peak-$$"
trap 'rm -rf "$work" "$file"' EXIT
fail=0

# holder.py FILE MB: map and write MB of FILE, hold them 0.3 s (0: map
# nothing). Run as the command itself, by the interpreter's own path (not
# a wrapper script), so that its pid is the one bench_run_peak reads.
printf '%s\n' \
	'import mmap, os, sys, time' \
	'path, mb = sys.argv[1], int(sys.argv[2])' \
	'if mb:' \
	'    fd = os.open(path, os.O_CREAT | os.O_RDWR, 0o600)' \
	'    os.ftruncate(fd, mb << 20)' \
	'    m = mmap.mmap(fd, mb << 20, mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE)' \
	'    for off in range(0, mb << 20, 2 << 20):' \
	'        m[off] = 1' \
	'    time.sleep(0.3)' \
	'    m.close()' \
	'    os.close(fd)' >"$work/holder.py"

py=$(python3 -c 'import sys; print(sys.executable)')
bench_run_peak "$work/none.log" "$py" "$work/holder.py" "$file" 0 ||
	{ echo "FAIL: the holder without hugepages failed"; fail=1; }
bench_run_peak "$work/huge.log" "$py" "$work/holder.py" "$file" "$HUGE_MB" ||
	{ echo "FAIL: the holder of $HUGE_MB MB failed: $(cat "$work/huge.log")"; fail=1; }
none=$(awk '/^HWM / { print $2 }' "$work/none.log")
huge=$(awk '/^HWM / { print $2 }' "$work/huge.log")
echo "peak without hugepages ${none:-?} KB, with $HUGE_MB MB of hugepages ${huge:-?} KB"
# VmHWM alone gives the two about the same; the other memory of the two
# runs differs by some KB
if [ -z "$none" ] || [ -z "$huge" ] || [ $((huge - none)) -lt $((HUGE_MB * 1024 * 9 / 10)) ]; then
	echo "FAIL: the hugepages were not counted (about $((HUGE_MB * 1024)) KB more expected)"
	fail=1
fi
bench_run_peak "$work/false.log" false
rc=$?
if [ "$rc" -ne 1 ] || ! grep -q '^HWM [0-9][0-9]*$' "$work/false.log"; then
	echo "FAIL: 'false' gave exit status $rc, log: $(cat "$work/false.log")"
	fail=1
fi
[ "$fail" -eq 0 ] && echo "check-bench-peak: ok"
exit "$fail"
