#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# /init of the PCI test guest (busybox). Mounts the host's /usr and the
# project's source and build trees read-only over 9p, loads the modules
# listed in /modules.list (dependencies first), runs the test script named
# by TALLY_GUEST_TEST and powers off. The kernel passes the TALLY_* settings
# of its command line to init as environment variables.
#
# Lines the host looks for: "tally-vm: init" (the guest booted) and
# "tally-vm: result N" (the test's exit status).
export PATH=/bin:/sbin:/usr/bin:/usr/sbin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
echo "tally-vm: init"

fail() {
	echo "tally-vm: $*"
	echo "tally-vm: result 125"
	poweroff -f
}

while read -r m; do
	insmod "/lib/modules/$(uname -r)/$m" || fail "insmod $m failed"
done < /modules.list

p9() {
	mkdir -p "$2"
	mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144,ro,cache=loose \
		"$1" "$2" || fail "cannot mount the 9p share $1 on $2"
}
p9 hostusr /usr
p9 tallysrc "$TALLY_SRC"
if [ "$TALLY_BUILD" != "$TALLY_SRC" ]; then
	p9 tallybuild "$TALLY_BUILD"
fi
mkdir -p /dev/hugepages
mount -t hugetlbfs nodev /dev/hugepages
mount -t tmpfs -o mode=1777 tmp /tmp
mkdir -p /var/run /run

/usr/bin/bash "$TALLY_GUEST_TEST"
echo "tally-vm: result $?"
sync
poweroff -f
