#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# cls_check.sh CLS_TALLY CLS_PEER: the classification cross-check on a small
# rule set: Tally (pre-parsed keys and full frames, counters), the rte_hash
# tuple space and librte_acl (scalar, avx2, avx512x32 where the CPU has it)
# must each return, for every packet, the rule the reference returns (the
# reference itself is checked against a scan of every rule).
set -eu
args="--rules 600 --packets 30000 --seed 7"
"$1" $args --check
"$2" --no-huge -m 256 --no-pci --no-shconf --no-telemetry -l 0 --log-level=lib.eal:error \
	--force-max-simd-bitwidth=512 -- $args --check
