#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Install what the build needs (idempotent, quiet when already done), reserve
# the hugepages the tests run on (devtools/hugepages.sh: 3072 2 MiB pages and
# a hugetlbfs mount, where it can; one line saying why where it cannot) and
# fetch the DPDK driver-SDK headers from the Debian source package that
# matches the installed libdpdk-dev, into a cache outside the repository.
#
# Where the mirror serves no source packages, TALLY_DPDK_SRC=<a DPDK source
# tree of the same stable line> is where the headers are taken from instead.
#
# Prints the cache directory holding the SDK headers on its last line.
# With --packages it only prints the Debian packages it installs.
set -euo pipefail

# dpdk-dev ships dpdk-testpmd and dpdk-test (both used by the tests);
# python3-pyverbs ships rdma-core's own tests (/usr/share/doc/rdma-core/tests)
PKGS="build-essential meson ninja-build pkg-config dpkg-dev \
      dpdk dpdk-dev libdpdk-dev libibverbs-dev libpcap-dev libpci-dev \
      iproute2 tcpdump python3 python3-pyelftools clang libclang-rt-dev \
      ibverbs-utils perftest git openvswitch-switch-dpdk python3-pyverbs"
CACHE="${TALLY_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/tally}"
SDK_HEADERS="ethdev_driver.h ethdev_vdev.h ethdev_pci.h bus_pci_driver.h \
             bus_vdev_driver.h dev_driver.h bus_driver.h rte_flow_driver.h \
             rte_mtr_driver.h rte_tm_driver.h"
# DPDK's build tools that embed the PMD info strings (dpdk-pmdinfo.py reads them)
SDK_TOOLS="pmdinfogen.py coff.py gen-pmdinfo-cfile.py"

log() { echo "setup: $*" >&2; }

if [ "${1:-}" = "--packages" ]; then
	echo $PKGS
	exit 0
fi

as_root() {
	if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
		missing="$missing $p"
done

need_src=1
ver=$(dpkg-query -W -f='${Version}' libdpdk-dev 2>/dev/null || true)
if [ -n "$ver" ] && [ -f "$CACHE/sdk-$ver/include/ethdev_driver.h" ] &&
   [ -f "$CACHE/sdk-$ver/buildtools/pmdinfogen.py" ]; then
	need_src=0
fi

if [ -n "$missing" ] || [ "$need_src" -eq 1 ]; then
	# apt-get source needs a deb-src entry for the same suites.
	if ! grep -rqs '^Types:.*deb-src\|^deb-src' /etc/apt/sources.list /etc/apt/sources.list.d/; then
		log "adding deb-src entries"
		if [ -f /etc/apt/sources.list.d/debian.sources ]; then
			sed 's/^Types: deb$/Types: deb-src/' /etc/apt/sources.list.d/debian.sources |
				as_root tee /etc/apt/sources.list.d/tally-src.sources >/dev/null
		else
			grep '^deb ' /etc/apt/sources.list | sed 's/^deb /deb-src /' |
				as_root tee /etc/apt/sources.list.d/tally-src.list >/dev/null
		fi
	fi
	log "apt-get update"
	as_root apt-get update -qq >/dev/null
fi

# no service of what is installed may start (Open vSwitch's: the tests run
# their own, in private directories): policy-rc.d says no for the install,
# then what was there (if anything) comes back
no_services() {
	local rc_d=/usr/sbin/policy-rc.d saved="" st=0
	if [ -e "$rc_d" ]; then
		saved=$(mktemp)
		as_root cp -p "$rc_d" "$saved"
	fi
	printf '#!/bin/sh\nexit 101\n' | as_root tee "$rc_d" >/dev/null
	as_root chmod 755 "$rc_d"
	"$@" || st=$?
	if [ -n "$saved" ]; then
		as_root cp -p "$saved" "$rc_d"
		as_root rm -f "$saved"
	else
		as_root rm -f "$rc_d"
	fi
	return $st
}

if [ -n "$missing" ]; then
	log "installing:$missing"
	no_services as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
		--no-install-recommends $missing >/dev/null
fi

# never fails the set-up: without hugepages the tests skip what needs them
bash "$(dirname "$0")/hugepages.sh" || true

# take_headers SRC_TREE WHAT: copy the SDK headers out of a DPDK source tree.
take_headers() {
	local h f
	mkdir -p "$sdk/include"
	for h in $SDK_HEADERS; do
		f=$(find "$1/lib" "$1/drivers/bus" -name "$h" | head -1)
		[ -n "$f" ] || { echo "setup: error: $h not found in $1" >&2; exit 1; }
		cp "$f" "$sdk/include/"
	done
	mkdir -p "$sdk/buildtools"
	for t in $SDK_TOOLS; do
		cp "$1/buildtools/$t" "$sdk/buildtools/" ||
			{ echo "setup: error: buildtools/$t not found in $1" >&2; exit 1; }
	done
	echo "$2" > "$sdk/VERSION"
	log "driver-SDK headers of $2 in $sdk/include"
}

ver=$(dpkg-query -W -f='${Version}' libdpdk-dev)
sdk="$CACHE/sdk-$ver"
upstream=${ver%%-*}
have_sdk() { [ -f "$sdk/include/ethdev_driver.h" ] && [ -f "$sdk/buildtools/pmdinfogen.py" ]; }
if ! have_sdk && [ -n "${TALLY_DPDK_SRC:-}" ]; then
	# A DPDK source tree given by hand, for mirrors that serve no source
	# packages. Its release must be of the same stable line.
	srcver=$(cat "$TALLY_DPDK_SRC/VERSION" 2>/dev/null || echo unknown)
	case "$srcver" in
	"$upstream") ;;
	"${upstream%.*}".*)
		log "warning: TALLY_DPDK_SRC holds DPDK $srcver, libdpdk-dev is $upstream" ;;
	*)
		echo "setup: error: TALLY_DPDK_SRC holds DPDK $srcver; libdpdk-dev $ver" \
		     "needs a ${upstream%.*}.x tree" >&2
		exit 1 ;;
	esac
	take_headers "$TALLY_DPDK_SRC" "$srcver (TALLY_DPDK_SRC, libdpdk-dev $ver)"
fi
if ! have_sdk; then
	srcver=$(apt-cache showsrc dpdk 2>/dev/null | awk '/^Version:/ {print $2}' | sort -V | tail -1)
	if [ "$srcver" != "$ver" ]; then
		# try the exact version explicitly before giving up
		if ! apt-cache showsrc dpdk 2>/dev/null | grep -qx "Version: $ver"; then
			echo "setup: error: DPDK source package version '${srcver:-none}' does not match" \
			     "installed libdpdk-dev '$ver'; cannot take the driver-SDK headers" >&2
			exit 1
		fi
	fi
	log "fetching dpdk=$ver source for the driver-SDK headers"
	tmp=$(mktemp -d "$CACHE.src.XXXXXX" 2>/dev/null || { mkdir -p "$CACHE"; mktemp -d "$CACHE/src.XXXXXX"; })
	if ! (cd "$tmp" && { apt-get source -qq --download-only "dpdk=$ver" >/dev/null 2>&1 &&
		dpkg-source -x --skip-patches dpdk_*.dsc src >/dev/null 2>&1 ||
		apt-get source -qq "dpdk=$ver" >/dev/null 2>&1; }); then
		rm -rf "$tmp"
		echo "setup: error: the mirror did not serve the source package dpdk=$ver" \
		     "(apt-get source dpdk=$ver fails); to take the driver-SDK headers from" \
		     "a DPDK $upstream source tree instead, set TALLY_DPDK_SRC to it" >&2
		exit 1
	fi
	srcdir=$(find "$tmp" -maxdepth 1 -mindepth 1 -type d | head -1)
	[ -n "$srcdir" ] || { rm -rf "$tmp"; echo "setup: error: could not unpack dpdk source" >&2; exit 1; }
	take_headers "$srcdir" "$ver"
	rm -rf "$tmp"
fi
echo "$sdk/include"
