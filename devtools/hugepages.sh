#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# hugepages.sh: the hugepages the tests and the demo run on (run by
# devtools/setup.sh; idempotent, quiet when already done).
#
#  - At least TALLY_HUGEPAGES (default 3072, 6 GiB) 2 MiB pages reserved
#    (/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages): the suites
#    run up to two EAL processes at a time, one of which may start a port
#    on more than 1,000 2 MiB segments (about 2.1 GiB in one process);
#    each of the others takes 20-60 pages. A larger reservation is never
#    shrunk.
#  - A hugetlbfs mounted at /dev/hugepages when none is mounted.
#
# Where it cannot (not root, the kernel refuses, no hugetlbfs), it says why
# in one line and exits 0: the hugepage tests then skip with the reason and
# the --no-huge pass still runs (devtools/eal-mem.sh). Reserving needs no
# reboot, but the kernel may find fewer free 2 MiB blocks than asked for.
set -uo pipefail
want=${TALLY_HUGEPAGES:-3072}
nr=/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages

log() { echo "setup: hugepages: $*" >&2; }

if [ ! -e "$nr" ]; then
	log "this kernel has no 2 MiB hugepages ($nr); tests run without them"
	exit 0
fi
have=$(cat "$nr")
if [ "$have" -lt "$want" ]; then
	if [ "$(id -u)" -ne 0 ]; then
		log "not root: $have 2 MiB pages reserved, $want wanted" \
		    "(as root: echo $want > $nr)"
	elif ! { echo "$want" >"$nr"; } 2>/dev/null; then
		log "writing $nr refused: $have 2 MiB pages reserved, $want wanted"
	else
		got=$(cat "$nr")
		if [ "$got" -lt "$want" ]; then
			log "asked for $want 2 MiB pages, the kernel reserved $got" \
			    "(too little free memory in 2 MiB blocks)"
		else
			log "reserved $got 2 MiB pages (were $have)"
		fi
	fi
fi

if ! awk '$3 == "hugetlbfs" { found = 1 } END { exit !found }' /proc/mounts; then
	if [ "$(id -u)" -ne 0 ]; then
		log "no hugetlbfs mounted, and not root to mount one at /dev/hugepages"
	elif ! err=$(mkdir -p /dev/hugepages 2>&1 && mount -t hugetlbfs nodev /dev/hugepages 2>&1); then
		log "cannot mount hugetlbfs at /dev/hugepages: ${err//$'\n'/ }"
	else
		log "hugetlbfs mounted at /dev/hugepages"
	fi
fi
exit 0
