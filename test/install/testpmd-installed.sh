#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# testpmd-installed.sh BUILD_DIR SOURCE_DIR: stock dpdk-testpmd finds the
# installed PMD in DPDK's plugin directory without -d, and counts with it.
#
# The PMD is installed (meson install --destdir) into a staging tree; then,
# in a private mount namespace (unshare -m) that only this test sees, DPDK's
# plugin directory is covered by a bind mount of a directory holding the
# system's plugins plus the staged PMD. testpmd thus runs exactly as after a
# real `meson install`, while the system and every other DPDK process (which
# may load a build-tree PMD with -d) never see the installed copy, and there
# is nothing to restore afterwards, even if the test is killed.
# EAL's memory follows TALLY_TEST_MEM (devtools/eal-mem.sh: hugepages with
# IOVA as PA by default); exit 77 where that mode cannot run here.
set -euo pipefail
# what an outside user has: not meson test's paths into the build tree
unset LD_LIBRARY_PATH
. "$(dirname "$0")/../../devtools/eal-mem.sh"

inside() {
	local stage=$1 src=$2 sysdir mem
	sysdir=$(python3 "$src/devtools/dpdk-pmd-dir.py" / | sed -n 1p)
	read -ra mem <<<"$(tally_eal_mem 512)"
	# the system's plugins stay reachable at sysdir/sys, inside the covered
	# directory: EAL loads a plugin only when no directory of its real path
	# is world-writable, which the build directory may be (a clone in /tmp)
	mkdir -p "$stage/merged/sys"
	mount --bind "$sysdir" "$stage/merged/sys"
	for f in "$stage/merged/sys"/*; do
		case ${f##*/} in librte_net_tally.so*) continue ;; esac
		ln -s "sys/${f##*/}" "$stage/merged/"
	done
	cp -a "$stage$sysdir"/librte_net_tally.so* "$stage/merged/"
	mount --rbind "$stage/merged" "$sysdir"
	{
		for c in 'show port info 0' \
			'flow create 0 ingress pattern eth / ipv4 / udp / end actions count / queue index 0 / end' \
			'set fwd rxonly' start; do
			echo "$c"; sleep 0.3
		done
		sleep 2
		printf 'stop\nflow query 0 0 count\nquit\n'
	} | timeout 60 stdbuf -oL -eL dpdk-testpmd -l 0-1 "${mem[@]}" --no-pci \
		--file-prefix="tally-installed-$$" --log-level=lib.eal:debug \
		--vdev "net_tally0,wire=pcap,rx_pcap=$src/test/data/demo.pcap" \
		-- -i --total-num-mbufs=4096 --no-flush-rx 2>&1 || true
	rm -rf "/var/run/dpdk/tally-installed-$$"
}

if [ "$1" = --inside ]; then
	inside "$2" "$3"
	exit 0
fi
tally_eal_mem_skip
if ! unshare --mount true 2>/dev/null; then
	echo "SKIP: no private mount namespace (needs root / CAP_SYS_ADMIN)"
	exit 77
fi
build=$(cd "$1" && pwd) src=$(cd "$2" && pwd)
# a sanitizer build's libraries need the sanitizer runtime linked into the
# program: programs built from the installed files alone cannot use them
if ldd "$build/drivers/net/tally/librte_net_tally.so" | grep -q 'lib\(asan\|ubsan\)\.so'; then
	echo "SKIP: sanitizer build (installed libraries need the sanitizer runtime)"
	exit 77
fi
stage="$build/testpmd-installed-stage"
trap 'rm -rf "$stage"' EXIT
rm -rf "$stage"
meson install -C "$build" --destdir "$stage" --no-rebuild >"$build/testpmd-installed.log" ||
	{ cat "$build/testpmd-installed.log"; exit 1; }
out=$(unshare --mount --propagation private "$0" --inside "$stage" "$src" 2>&1) ||
	{ echo "FAIL: setting up the plugin directory"; echo "$out"; exit 1; }
# testpmd's stdout is line-buffered (stdbuf): fully buffered into a pipe,
# it is written in 4 KiB blocks that can split a line, and EAL's messages
# (on stderr, unbuffered) then land inside it
fail=0 verdict=
for re in 'EAL: open shared lib /usr/lib/.*/dpdk/pmds-[0-9.]+/librte_net_tally\.so' \
	'Driver name: net_tally$' 'Flow rule #0 created' 'hits: 16$' 'bytes: 4912$'; do
	if echo "$out" | grep -qE -- "$re"; then
		verdict+="ok: /$re/"$'\n'
	else
		verdict+="FAIL: no line matching /$re/"$'\n'; fail=1
	fi
done
# the verdicts last: meson's log of a failure keeps only the last lines
[ $fail -eq 0 ] || { echo "---- testpmd output ----"; echo "$out"; }
printf '%s' "$verdict"
exit $fail
