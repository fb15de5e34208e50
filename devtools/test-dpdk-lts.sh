#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# test-dpdk-lts.sh [BUILD_DIR]: build and run every suite against DPDK 24.11
# and rdma-core 56 (Debian trixie), from this same source tree.
# test-dpdk-lts.sh --run 'COMMAND': run COMMAND in the repository inside the
# same chroot instead (for instance 'devtools/build.sh build-dpdk24').
#
# The first run makes a Debian trixie root filesystem with mmdebstrap in
# ${TALLY_CACHE:-~/.cache/tally}/trixie (outside git; nothing from trixie is
# installed on the host), holding the packages devtools/setup.sh lists. Every
# run then chroots into it, with /proc, /sys, /dev and /dev/shm and this
# repository bind-mounted at the same path, and runs devtools/test.sh
# unchanged there (its setup.sh fetches the 24.11 driver-SDK headers from
# trixie's dpdk source package; where the mirror serves no source packages,
# TALLY_DPDK_SRC=<DPDK 24.11.x source tree> is bind-mounted read-only and the
# headers are taken from it). BUILD_DIR defaults to build-dpdk24.
#
# Needs root (mmdebstrap, mount, chroot). The mounts live in a private mount
# namespace of this script, so they are gone on every exit path; they are
# also unmounted explicitly. Quiet when the root filesystem exists; the last
# line is test.sh's "N passed, N failed", the exit code is test.sh's.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd -P)
args=("$@")
run=""
if [ "${1:-}" = "--run" ]; then
	run=${2:?--run needs a command}
	shift 2
fi
build=${1:-build-dpdk24}
cache="${TALLY_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/tally}"
root="$cache/trixie"
mirror="${TALLY_TRIXIE_MIRROR:-http://deb.debian.org/debian}"
security="${TALLY_TRIXIE_SECURITY:-http://deb.debian.org/debian-security}"

log() { echo "test-dpdk-lts: $*" >&2; }
die() { log "error: $*"; exit 1; }

[ "$(id -u)" -eq 0 ] || die "needs root (mmdebstrap, mount and chroot)"
case "$build" in
/* | *..*) die "BUILD_DIR must be a path inside the repository" ;;
esac

# Re-run inside a private mount namespace: whatever is mounted below
# disappears with this process, even when it is killed.
if [ -z "${TALLY_LTS_NS:-}" ]; then
	exec env TALLY_LTS_NS=1 unshare --mount --propagation private \
		bash "$repo/devtools/test-dpdk-lts.sh" "${args[@]}"
fi

mkdir -p "$cache"
exec 9>"$cache/trixie.lock"
flock 9

make_rootfs() {
	local tmp="$root.new" pkgs
	if ! command -v mmdebstrap >/dev/null; then
		log "installing mmdebstrap on the host"
		apt-get update -qq >/dev/null
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
			--no-install-recommends mmdebstrap >/dev/null
	fi
	pkgs=$(bash devtools/setup.sh --packages | tr -s ' ' ',')
	log "creating the trixie root filesystem in $root"
	rm -rf "$tmp"
	mmdebstrap --quiet --variant=apt --components=main \
		--keyring=/usr/share/keyrings/debian-archive-keyring.gpg \
		--include="$pkgs" \
		--dpkgopt='path-exclude=/usr/share/man/*' \
		--dpkgopt='path-exclude=/usr/share/locale/*' \
		--dpkgopt='path-exclude=/usr/share/doc/*' \
		--aptopt='Acquire::Languages "none"' \
		trixie "$tmp" \
		"deb $mirror trixie main" \
		"deb $mirror trixie-updates main" \
		"deb $security trixie-security main"
	touch "$tmp/.tally-rootfs"
	mv "$tmp" "$root"
}

if [ ! -f "$root/.tally-rootfs" ]; then
	rm -rf "$root"
	make_rootfs
fi

mounts=()
cleanup() {
	local i
	for ((i = ${#mounts[@]} - 1; i >= 0; i--)); do
		umount -l "${mounts[i]}" 2>/dev/null || true
	done
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

bind() { # bind SRC [ro]: SRC at the same path inside the chroot
	mkdir -p "$root$1"
	mount --bind "$1" "$root$1"
	mounts+=("$root$1")
	if [ "${2:-}" = ro ]; then
		mount -o remount,bind,ro "$root$1"
	fi
}

# The root a mount point of its own: ip netns exec remounts / and /sys.
mount --bind "$root" "$root"
mounts+=("$root")
mount -t proc proc "$root/proc"
mounts+=("$root/proc")
bind /sys
bind /dev
bind /dev/pts
bind /dev/shm
bind "$repo"
# A git worktree keeps its objects elsewhere: check-layering lists files
# with git ls-files.
common=$(git -C "$repo" rev-parse --path-format=absolute --git-common-dir 2>/dev/null || true)
case "$common" in
"" | "$repo"/*) ;;
*) bind "$common" ro ;;
esac
if [ -n "${TALLY_DPDK_SRC:-}" ]; then
	TALLY_DPDK_SRC=$(cd "$TALLY_DPDK_SRC" && pwd -P)
	bind "$TALLY_DPDK_SRC" ro
fi
# The pci suite's guest kernel: vm-test.sh cannot unpack trixie's kernel
# package, so a kernel the host's runs cached serves the guest (whose user
# space is the chroot's /usr, DPDK 24.11).
if ls -d "$cache"/vm/[0-9]*/vmlinux >/dev/null 2>&1; then
	mkdir -p "$root/root/.cache/tally/vm"
	mount --bind "$cache/vm" "$root/root/.cache/tally/vm"
	mounts+=("$root/root/.cache/tally/vm")
fi
cp -L /etc/resolv.conf "$root/etc/resolv.conf"

set +e
chroot "$root" /usr/bin/env -i HOME=/root TERM="${TERM:-dumb}" \
	PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
	LANG=C.UTF-8 CI="${CI:-}" TALLY_DPDK_SRC="${TALLY_DPDK_SRC:-}" \
	bash -c 'git config --global safe.directory "*" && cd "$1" &&
		if [ -n "$3" ]; then exec bash -c "$3"; fi &&
		exec bash devtools/test.sh "$2"' \
	test-dpdk-lts "$repo" "$build" "$run"
rc=$?
set -e
exit $rc
