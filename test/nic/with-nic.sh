#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# with-nic.sh TALLY_NIC COMMAND [ARGS...]
#
# Runs COMMAND (a verbs program) with its device in a tally-nic process:
# starts tally-nic on a fresh socket, points libtally_verbs' EAL at it
# (TALLY_VERBS_EAL_ARGS with --vdev net_tally0,dev=<socket>), and stops the
# device afterwards. Exits with COMMAND's status.
set -uo pipefail
nic=$1
shift
dir=$(mktemp -d)
"$nic" --socket "$dir/nic.sock" --log-level 2 &
pid=$!
trap 'kill -TERM $pid 2>/dev/null; wait $pid 2>/dev/null; rm -rf "$dir"' EXIT
for _ in $(seq 200); do [ -S "$dir/nic.sock" ] && break; sleep 0.05; done
export TALLY_VERBS_EAL_ARGS="-l 0 --no-huge -m 512 --no-pci --no-shconf --vdev net_tally0,dev=$dir/nic.sock --log-level=pmd.net.tally*:notice"
"$@"
