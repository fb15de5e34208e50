#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# cls_check.sh CLS_TALLY CLS_PEER: the classification cross-check on a small
# rule set: Tally (pre-parsed keys and full frames, counters), the rte_hash
# tuple space and librte_acl (scalar, avx2, avx512x32 where the CPU has it)
# must each return, for every packet, the rule the reference returns (the
# reference itself is checked against a scan of every rule).
# CLS_PEER's EAL memory follows TALLY_TEST_MEM (devtools/eal-mem.sh:
# hugepages with IOVA as PA by default); exit 77 where that mode cannot run.
set -euo pipefail
. "$(dirname "$0")/../../devtools/eal-mem.sh"
tally_eal_mem_skip
read -ra mem <<<"$(tally_eal_mem 256)"
args=(--rules 600 --packets 30000 --seed 7)
trap 'rm -rf "/var/run/dpdk/tally-cls-$$"' EXIT
"$1" "${args[@]}" --check
"$2" "${mem[@]}" --no-pci --no-telemetry --file-prefix="tally-cls-$$" -l 0 \
	--log-level=lib.eal:error --force-max-simd-bitwidth=512 -- "${args[@]}" --check
