#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Device-side layers never mention DPDK; the model never includes driver code.
set -u
cd "$(dirname "$0")/.."
rc=0
if grep -rIn --include='*.[ch]' 'rte_\|RTE_' lib/hal lib/steer lib/model lib/plat; then
	echo "check-layering: lib/{hal,steer,model,plat} must not use rte_ symbols" >&2
	rc=1
fi
if grep -rIn --include='*.[ch]' '#include.*\(tally_hal\|tally_steer\.h\|tally_cnt\.h\)' lib/model; then
	echo "check-layering: lib/model must include only include/tally and lib/plat" >&2
	rc=1
fi
for f in $(git ls-files '*.c' '*.h' '*.sh' '*.py' 'meson.build'); do
	head -3 "$f" | grep -q 'SPDX-License-Identifier' || { echo "check-layering: $f lacks an SPDX line" >&2; rc=1; }
done
[ $rc -eq 0 ] && echo "check-layering: ok"
exit $rc
