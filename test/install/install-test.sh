#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# install-test.sh BUILD_DIR SOURCE_DIR: `meson install --destdir` into a
# staging directory, then build two programs outside the tree with nothing
# but pkg-config (PKG_CONFIG_PATH into the staging tree; the .pc files are
# relocatable) and run them:
#  - a DPDK application (rte_flow COUNT + rte_pmd_tally_*), linked with the
#    shared PMD, and again with the static one;
#  - examples/verbs_counters.c, a legacy verbs program, with libtally_verbs.
# EAL's memory follows TALLY_TEST_MEM (devtools/eal-mem.sh: hugepages with
# IOVA as PA by default); exit 77 where that mode cannot run here.
set -euo pipefail
# what an outside user has: not meson test's paths into the build tree
unset LD_LIBRARY_PATH
. "$(dirname "$0")/../../devtools/eal-mem.sh"
tally_eal_mem_skip
build=$(cd "$1" && pwd) src=$(cd "$2" && pwd)
# a sanitizer build's libraries need the sanitizer runtime linked into the
# program: programs built from the installed files alone cannot use them
if ldd "$build/drivers/net/tally/librte_net_tally.so" | grep -q 'lib\(asan\|ubsan\)\.so'; then
	echo "SKIP: sanitizer build (installed libraries need the sanitizer runtime)"
	exit 77
fi
stage="$build/install-test-stage"
work=$(mktemp -d)
prefix="tally-install-$$"
trap 'rm -rf "$work" "$stage" "/var/run/dpdk/$prefix"' EXIT
rm -rf "$stage"
meson install -C "$build" --destdir "$stage" --no-rebuild >"$work/install.log" ||
	{ cat "$work/install.log"; exit 1; }
pc=$(find "$stage" -name libdpdk-tally.pc)
[ -n "$pc" ] || { echo "FAIL: libdpdk-tally.pc not installed"; exit 1; }
export PKG_CONFIG_PATH
PKG_CONFIG_PATH=$(dirname "$pc")
libdir=$(pkg-config --variable=libdir libdpdk-tally)
case "$(realpath "$libdir")" in "$stage"/*) ;; *)
	echo "FAIL: libdir $libdir is not in the staging tree"; exit 1 ;; esac
pmd=$(find "$stage" -path '*/dpdk/pmds-*/librte_net_tally.so.*.*' -type f)
[ -n "$pmd" ] || { echo "FAIL: no PMD in a dpdk/pmds-* directory"; exit 1; }
for f in "$libdir/librte_net_tally.a" "$(dirname "$libdir")/../include/dpdk/rte_pmd_tally.h"; do
	[ -f "$f" ] || { echo "FAIL: $f not installed"; exit 1; }
done
echo "ok: installed $(realpath --relative-to="$stage" "$pmd")"

cp "$src/test/install/flow_count_app.c" "$src/examples/verbs_counters/verbs_counters.c" "$work/"
cd "$work"
cc=${CC:-cc}
# shellcheck disable=SC2046
$cc -o app flow_count_app.c -DALLOW_EXPERIMENTAL_API \
	$(pkg-config --cflags --libs libdpdk-tally) -Wl,-rpath,"$libdir"
# shellcheck disable=SC2046
$cc -o app-static flow_count_app.c -DALLOW_EXPERIMENTAL_API \
	$(pkg-config --cflags libdpdk-tally) \
	-Wl,--whole-archive "$libdir/librte_net_tally.a" -Wl,--no-whole-archive \
	$(pkg-config --libs libdpdk) $(sed -n 's/^Libs.private: //p' "$pc")
# shellcheck disable=SC2046
$cc -o verbs verbs_counters.c $(pkg-config --cflags --libs libtally_verbs) -Wl,-rpath,"$libdir"
ldd ./app >ldd.app
ldd ./verbs >ldd.verbs
grep -q "librte_net_tally.so.* => $stage/" ldd.app ||
	{ echo "FAIL: app does not load the staged PMD"; cat ldd.app; exit 1; }
grep -q "libtally_verbs.so.* => $stage/" ldd.verbs ||
	{ echo "FAIL: verbs does not load the staged libtally_verbs"; cat ldd.verbs; exit 1; }
echo "ok: built app, app-static and verbs outside the tree"

read -ra mem <<<"$(tally_eal_mem 256)"
eal=(-l 0 "${mem[@]}" --no-pci --no-telemetry --file-prefix="$prefix"
     "--vdev=net_tally0,wire=pcap,rx_pcap=$src/test/data/demo.pcap"
     --log-level=pmd.net.tally*:notice)
# demo.pcap: 16 IPv4/UDP frames, 4912 bytes
for a in app app-static; do
	out=$(./$a 16 "${eal[@]}" 2>&1) || { echo "FAIL: $a: $out"; exit 1; }
	echo "$out" | grep -qx 'flow hits 16 bytes 4912; pmd packets 16 bytes 4912' ||
		{ echo "FAIL: $a: $out"; exit 1; }
	echo "ok: $a: $(echo "$out" | tail -1)"
done
out=$(TALLY_VERBS_EAL_ARGS="-l 0 $(tally_eal_mem 512) --no-pci --no-telemetry --file-prefix=$prefix --vdev net_tally0" ./verbs 2>&1) ||
	{ echo "FAIL: verbs: $out"; exit 1; }
echo "$out" | grep -q '^PACKETS = 32, BYTES = 2048 ' || { echo "FAIL: verbs: $out"; exit 1; }
echo "ok: verbs: $(echo "$out" | tail -1)"
