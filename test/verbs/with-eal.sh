#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# with-eal.sh VDEV COMMAND [ARGS...]
#
# Runs COMMAND (a verbs program) with libtally_verbs' EAL arguments
# (TALLY_VERBS_EAL_ARGS) for the one port VDEV: the memory mode of
# TALLY_TEST_MEM (devtools/eal-mem.sh: hugepages with IOVA as PA by
# default), a file prefix of its own, whose runtime directory is removed
# afterwards. Exits with COMMAND's status, or 77 (skipped) where the memory
# mode cannot run here.
set -uo pipefail
tools=$(cd "$(dirname "$0")/../../devtools" && pwd)
. "$tools/eal-mem.sh"
tally_eal_mem_skip
vdev=$1
shift
prefix="tally-verbs-$$-$RANDOM"
trap 'rm -rf "/var/run/dpdk/$prefix"' EXIT
mem=$(tally_eal_mem 512) || exit
export TALLY_VERBS_EAL_ARGS="-l 0 $mem --no-pci --file-prefix=$prefix --vdev $vdev --log-level=pmd.net.tally*:notice"
"$@"
