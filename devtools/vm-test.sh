#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# vm-test.sh [BUILD_DIR]: the Tally PMD on a PCI function through VFIO, in a
# QEMU guest (doc/pci.md).
#
# On the host: installs qemu-system-x86 and busybox-static if missing, builds
# (once, cached under ${TALLY_CACHE:-~/.cache/tally}/vm/) a guest from the
# Debian kernel package (vmlinux + the vfio/9p/virtio modules) and a busybox
# initramfs, starts three device processes (app/tally-nic: a pcap wire with
# test/data/demo.pcap, a loopback wire, and a device of two ports whose
# port 0 replays demo.pcap and port 1 writes a pcap file), each with a BAR
# file and the guest's RAM file, and boots the guest with the BAR files as
# ivshmem-plain functions, the host's /usr and the project's source and build
# trees shared read-only over 9p. The guest runs devtools/vm/guest-test.sh
# (vfio-pci binding, tally-devinfo, dpdk-testpmd with a counting flow, a
# verbs program, a transfer rule between the two ports of one function),
# which prints PASS/FAIL per step; after it, the two-port device's port 1
# wire must hold exactly demo.pcap's IPv4/UDP frames.
#
# Without the device process in the build (or with TALLY_VM_PROBE_ONLY=1)
# the BAR files only hold the identity registers and the guest checks the
# path up to the PMD's probe finding the signature.
#
# Exit: 0 every step passed, 1 a step failed, 77 QEMU cannot run here (the
# reason is printed). Everything started here (QEMU, device processes, BAR
# and RAM files) is removed on every exit path.
#
# Environment: TALLY_CACHE, TALLY_VM_SHM (directory for the RAM and BAR
# files, default /dev/shm), TALLY_VM_TIMEOUT (seconds for the guest, 300).
set -uo pipefail

src=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$src/build}" 2>/dev/null && pwd) || {
	echo "vm-test: no build directory ${1:-$src/build}" >&2
	exit 1
}
cache="${TALLY_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/tally}/vm"
timeout_s=${TALLY_VM_TIMEOUT:-300}
guest_mb=512
# vfio stack, 9p over virtio for the shared trees
modules="virtio_pci 9pnet_virtio 9p vfio-pci vfio_iommu_type1"

log() { echo "vm-test: $*"; }
skip() { log "SKIP: $*"; exit 77; }
die() { log "FAIL: $*"; exit 1; }

as_root() {
	if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo -n "$@"; fi
}

# ---- clean-up: everything this script started ------------------------------
pids=()
work=""
cleanup() {
	local p
	for p in "${pids[@]}"; do
		kill "$p" 2>/dev/null
	done
	for p in "${pids[@]}"; do
		# a device process gets 5 s to exit on SIGTERM
		for _ in 1 2 3 4 5 6 7 8 9 10; do
			kill -0 "$p" 2>/dev/null || break
			sleep 0.5
		done
		kill -9 "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	[ -n "$work" ] && rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# ---- host packages -----------------------------------------------------------
install_pkgs() {
	local missing="" p
	command -v qemu-system-x86_64 >/dev/null || missing="$missing qemu-system-x86"
	[ -f /usr/share/qemu/qboot.rom ] || missing="$missing qemu-system-x86"
	dpkg-query -W -f='${Status}' busybox-static 2>/dev/null | grep -q "ok installed" ||
		missing="$missing busybox-static"
	[ -z "$missing" ] && return 0
	log "installing$missing"
	for p in 1 2; do
		as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
			-o DPkg::Lock::Timeout=300 --no-install-recommends $missing \
			>/dev/null 2>&1 && return 0
		[ $p -eq 1 ] && as_root apt-get update -qq >/dev/null 2>&1
	done
	return 1
}
install_pkgs || skip "cannot install qemu-system-x86 / busybox-static with apt-get"
command -v qemu-system-x86_64 >/dev/null || skip "no qemu-system-x86_64 after installing qemu-system-x86"
[ -x /bin/busybox ] || skip "no /bin/busybox after installing busybox-static"

# ---- guest kernel: vmlinux and modules from the Debian kernel package --------
kernel_pkg() {
	apt-cache depends linux-image-amd64 2>/dev/null |
		awk '/Depends: linux-image-[0-9]/ { print $2; exit }'
}

prepare_kernel() {
	local pkg=$1 kver=${1#linux-image-} dir=$cache/${1#linux-image-} tmp new m
	[ -f "$dir/vmlinux" ] && [ -f "$dir/modules.list" ] && return 0
	log "fetching $pkg (once; cached in $dir)"
	mkdir -p "$cache"
	tmp=$(mktemp -d "$cache/tmp.XXXXXX")
	if ! (cd "$tmp" && apt-get download -qq -o APT::Sandbox::User=root "$pkg" >/dev/null 2>&1); then
		rm -rf "$tmp"
		return 1
	fi
	new=$tmp/out
	dpkg-deb --fsys-tarfile "$tmp"/*.deb | tar -x -C "$tmp" ./boot ./lib/modules &&
	busybox depmod -b "$tmp" "$kver" &&
	mkdir -p "$new/modules" &&
	python3 "$src/devtools/vm/mkimage.py" vmlinux "$tmp/boot/vmlinuz-$kver" "$new/vmlinux" &&
	python3 "$src/devtools/vm/mkimage.py" closure "$tmp/lib/modules/$kver/modules.dep" \
		$modules > "$new/modules.list" || { rm -rf "$tmp"; return 1; }
	while read -r m; do
		mkdir -p "$new/modules/$(dirname "$m")"
		cp "$tmp/lib/modules/$kver/$m" "$new/modules/$m"
	done < "$new/modules.list"
	# another run may have finished first: keep its copy
	[ -f "$dir/modules.list" ] || rm -rf "$dir"
	mv -T "$new" "$dir" 2>/dev/null || [ -f "$dir/modules.list" ]
	local rc=$?
	rm -rf "$tmp"
	return $rc
}

pkg=$(kernel_pkg)
if [ -z "$pkg" ] || ! prepare_kernel "$pkg"; then
	# No apt metadata, or a kernel package this script cannot unpack
	# (trixie's: zstd image, xz modules under /usr/lib/modules): a cached
	# kernel serves as well, the guest's user space is this host's /usr.
	cached=$(ls -d "$cache"/[0-9]*/vmlinux 2>/dev/null | sort -V | tail -1)
	[ -n "$cached" ] || skip "no usable linux-image-amd64 (${pkg:-none}) and no guest kernel cached"
	pkg=linux-image-$(basename "$(dirname "$cached")")
	prepare_kernel "$pkg" || skip "cannot use the cached $pkg"
fi
kver=${pkg#linux-image-}
kdir=$cache/$kver

# ---- initramfs: busybox, the modules, /init --------------------------------
initramfs() {
	local sum root out a
	# inputs: this script (the layout below), /init, modules, busybox
	sum=$(cat "$0" "$src/devtools/vm/guest-init.sh" "$kdir/modules.list" /bin/busybox \
		"$src/devtools/vm/mkimage.py" | sha256sum | cut -c1-12)
	out=$kdir/initramfs-$sum.cpio.gz
	if [ ! -f "$out" ]; then
		root=$(mktemp -d "$cache/root.XXXXXX")
		chmod 755 "$root"
		mkdir -p "$root"/{bin,sbin,dev,proc,sys,tmp,run,var,etc,root,usr,lib/modules}
		cp /bin/busybox "$root/bin/busybox"
		for a in $(/bin/busybox --list); do
			[ "$a" = busybox ] || ln -s busybox "$root/bin/$a"
		done
		cp -r "$kdir/modules" "$root/lib/modules/$kver"
		cp "$kdir/modules.list" "$root/modules.list"
		install -m 755 "$src/devtools/vm/guest-init.sh" "$root/init"
		# host binaries from the shared /usr find their loader and libraries
		ln -s usr/lib64 "$root/lib64"
		ln -s /usr/lib/x86_64-linux-gnu "$root/lib/x86_64-linux-gnu"
		ln -s ../run "$root/var/run"
		# host scripts starting with #!/bin/bash (ldd, ...)
		ln -s /usr/bin/bash "$root/bin/bash"
		# images of other versions of the inputs, unless in use right now
		find "$kdir" -maxdepth 1 -name 'initramfs-*.cpio.gz' -mmin +60 -delete
		python3 "$src/devtools/vm/mkimage.py" initramfs "$root" "$out" || out=""
		rm -rf "$root"
	fi
	echo "$out"
}
initrd=$(initramfs)
[ -n "$initrd" ] || skip "cannot build the initramfs"

# ---- device processes and their files -----------------------------------------
shm=${TALLY_VM_SHM:-/dev/shm}
need_kb=$(( (guest_mb + 128) * 1024 ))
avail_kb=$(df -Pk "$shm" 2>/dev/null | awk 'NR == 2 { print $4 }')
if [ -z "$avail_kb" ] || [ "$avail_kb" -lt "$need_kb" ]; then
	log "$shm has ${avail_kb:-no} KiB free, the guest needs $need_kb: using ${TMPDIR:-/tmp}"
	shm=${TMPDIR:-/tmp}
fi
work=$(mktemp -d "$shm/tally-vm.XXXXXX") || die "cannot create a directory in $shm"
ram=$work/guest-ram
truncate -s "${guest_mb}M" "$ram"

nic=$build/app/tally-nic/tally-nic
mode=full
if [ ! -x "$nic" ] || [ "${TALLY_VM_PROBE_ONLY:-0}" = 1 ]; then
	mode=probe
	log "probe-only test (no $nic, or TALLY_VM_PROBE_ONLY=1): identity-only BAR files"
fi

# start_nic NAME DEVICE_ARGS [OPTION...]: a device process on $work/NAME
declare -A nic_pid
start_nic() {
	local bar=$work/$1 name=$1 devargs=$2 i
	shift 2
	"$nic" --bar "$bar" --guest-ram "$ram" --log-level 4 "$@" "$devargs" \
		> "$work/$name.log" 2>&1 &
	pids+=($!)
	nic_pid[$name]=$!
	for i in $(seq 100); do
		if [ -s "$bar" ] && [ "$(od -An -tx4 -N4 "$bar" | tr -d ' ')" = 594c4154 ]; then
			return 0
		fi
		kill -0 "${pids[-1]}" 2>/dev/null || break
		sleep 0.1
	done
	cat "$work/$name.log"
	die "device process for $name did not publish its BAR"
}

if [ $mode = full ]; then
	# the pcap wire waits until the guest's flow is in place (plug_wire)
	start_nic bar0 "wire=pcap,rx_pcap=$src/test/data/demo.pcap,rxq=2,txq=2,counters=65536,comp_counters=1024" \
		--hold-wire
	start_nic bar1 "wire=loop,rxq=2,txq=2,counters=65536,comp_counters=1024,mac=02:00:00:00:00:01"
	# two ports behind one function: a transfer rule sends port 0's
	# IPv4/UDP frames out of port 1's wire (a held wire, as bar0's)
	start_nic bar2 "ports=2,p0_wire=pcap,p0_rx_pcap=$src/test/data/demo.pcap,p1_wire=pcap,p1_tx_pcap=$work/bar2-p1.pcap,rxq=1,txq=1,counters=65536,comp_counters=1024,mac=02:00:00:00:00:02" \
		--hold-wire
else
	python3 "$src/devtools/vm/mkbar.py" "$work/bar0" --rxq 2 --txq 2 &&
	python3 "$src/devtools/vm/mkbar.py" "$work/bar1" --rxq 2 --txq 2 \
		--mac 02:00:00:00:00:01 &&
	python3 "$src/devtools/vm/mkbar.py" "$work/bar2" --rxq 1 --txq 1 \
		--mac 02:00:00:00:00:02 || die "cannot write the BAR files"
fi

# ---- the guest ---------------------------------------------------------------
con=$work/console.log
: > "$con"
args=(
	-accel tcg -cpu max -machine q35,memory-backend=ram0 -m ${guest_mb} -smp 1
	-bios /usr/share/qemu/qboot.rom -display none -monitor none -serial "file:$con"
	-no-reboot -nic none -device intel-iommu
	-object "memory-backend-file,id=ram0,share=on,mem-path=$ram,size=${guest_mb}M"
)
slot=4
for b in bar0 bar1 bar2; do
	args+=(-object "memory-backend-file,id=$b,share=on,mem-path=$work/$b,size=$(stat -c %s "$work/$b")"
	       -device "ivshmem-plain,memdev=$b,addr=$slot")
	slot=$((slot + 1))
done
args+=(
	-virtfs local,path=/usr,mount_tag=hostusr,security_model=none,readonly=on
	-virtfs "local,path=$src,mount_tag=tallysrc,security_model=none,readonly=on"
	-virtfs "local,path=$build,mount_tag=tallybuild,security_model=none,readonly=on"
	-kernel "$kdir/vmlinux" -initrd "$initrd"
	-append "console=ttyS0 quiet panic=-1 no_timer_check intel_iommu=on hugepages=96 TALLY_SRC=$src TALLY_BUILD=$build TALLY_GUEST_TEST=$src/devtools/vm/guest-test.sh TALLY_MODE=$mode TALLY_BDFS=0000:00:04.0,0000:00:05.0,0000:00:06.0"
)

log "guest: kernel $kver, $mode test, BARs $(stat -c %s "$work/bar0") + $(stat -c %s "$work/bar1") + $(stat -c %s "$work/bar2") bytes"
t0=$(date +%s.%N)
qemu-system-x86_64 "${args[@]}" < /dev/null > "$work/qemu.log" 2>&1 &
qemu=$!
pids+=($qemu)
tail -n +1 -f --pid=$qemu "$con" &
tailpid=$!
pids+=($tailpid)
# The guest asks for a held wire to be plugged in with a console line
# "tally-vm: plug-wire NAME"; the device process takes SIGUSR2 for it.
plugged=" "
plug_wire() {
	local name
	for name in $(sed -n 's/^tally-vm: plug-wire \(bar[0-9]\).*/\1/p' "$con"); do
		case "$plugged" in *" $name "*) continue ;; esac
		plugged="$plugged$name "
		if [ -n "${nic_pid[$name]:-}" ]; then
			kill -USR2 "${nic_pid[$name]}" && log "wire of $name plugged in"
		fi
	done
}
deadline=$(( $(date +%s) + timeout_s ))
while kill -0 $qemu 2>/dev/null && [ "$(date +%s)" -lt $deadline ]; do
	plug_wire
	sleep 0.2
done
if kill -0 $qemu 2>/dev/null; then
	kill $qemu
	log "guest timed out after ${timeout_s}s"
fi
wait $qemu 2>/dev/null
qrc=$?
wait $tailpid 2>/dev/null
t1=$(date +%s.%N)
log "guest ran $(awk "BEGIN { printf \"%.1f\", $t1 - $t0 }") s"

if ! grep -q "^tally-vm: init" "$con"; then
	cat "$work/qemu.log"
	skip "the guest did not boot (QEMU exit status $qrc)"
fi
rc=$(sed -n 's/^tally-vm: result \([0-9]*\).*/\1/p' "$con" | tail -1)
for f in "$work"/bar*.log; do
	[ -f "$f" ] || continue
	log "---- device process $(basename "$f" .log) ----"
	cat "$f"
done
[ -n "$rc" ] || die "the guest did not report a result (QEMU exit status $qrc)"
if [ $mode = full ]; then
	for i in bar0 bar1 bar2; do
		kill -0 "${nic_pid[$i]}" 2>/dev/null || die "device process $i died"
	done
	log "PASS: the device processes still running"
	if grep -h "fault cause" "$work"/bar*.log | head -3 | grep .; then
		die "the devices recorded faults (DMA outside the driver's regions?)"
	fi
	log "PASS: no device faults"
	for i in bar0 bar1 bar2; do
		kill -TERM "${nic_pid[$i]}"
		wait "${nic_pid[$i]}"
		st=$?
		[ $st -eq 0 ] || die "device process $i exited with status $st on SIGTERM"
		[ ! -e "$work/$i" ] || die "device process $i left its BAR file behind"
	done
	log "PASS: the device processes stop cleanly on SIGTERM"
	# the transfer rule of the guest's step 6: port 1's wire got demo.pcap's
	# IPv4/UDP frames, exactly, and nothing else
	out=$(python3 "$src/devtools/pcap-cmp.py" --only-udp4 "$src/test/data/demo.pcap" \
		"$work/bar2-p1.pcap" 2>&1)
	echo "$out"
	[ "$out" = "pcap-cmp: 16 frames identical" ] ||
		die "port 1 of bar2: its wire did not get the 16 IPv4/UDP frames of demo.pcap"
	log "PASS: port 1 of bar2: 16 frames on its wire, demo.pcap's IPv4/UDP frames"
fi
[ "$rc" = 0 ] || die "guest test exit status $rc"
log "PASS"
exit 0
