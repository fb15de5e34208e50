#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# with-nic.sh TALLY_NIC COMMAND [ARGS...]
#
# Runs COMMAND (a verbs program) with its device in a tally-nic process:
# starts tally-nic on a fresh socket, points libtally_verbs' EAL at it
# (test/verbs/with-eal.sh with --vdev net_tally0,dev=<socket>, in the memory
# mode of TALLY_TEST_MEM), and stops the device afterwards. Exits with
# COMMAND's status, or 77 (skipped) where the memory mode cannot run here.
set -uo pipefail
nic=$1
shift
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../../devtools/eal-mem.sh"
tally_eal_mem_skip
dir=$(mktemp -d)
"$nic" --socket "$dir/nic.sock" --log-level 2 &
pid=$!
trap 'kill -TERM $pid 2>/dev/null; wait $pid 2>/dev/null; rm -rf "$dir"' EXIT
for _ in $(seq 200); do [ -S "$dir/nic.sock" ] && break; sleep 0.05; done
"$here/../verbs/with-eal.sh" "net_tally0,dev=$dir/nic.sock" "$@"
