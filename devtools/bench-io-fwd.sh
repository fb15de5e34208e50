#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# bench-io-fwd.sh [BUILD_DIR [SECONDS [BURSTS [VDEV]]]]: stock dpdk-testpmd io
# forwarding on one forwarding core over a net_tally loop wire (what the
# port sends comes back to it). `start tx_first BURSTS` puts BURSTS x 32
# frames in flight; after a 2 s warm-up, `show port stats 0` twice SECONDS
# apart gives testpmd's Rx-pps/Tx-pps over that window; the script also
# prints RX-packets delta / SECONDS. A benchmark, not a test.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
secs=${2:-10}
bursts=${3:-4}
vdev=${4:-net_tally0}
pmd="$PWD/$build/drivers/net/tally/librte_net_tally.so"
[ -f "$pmd" ] || { echo "no $pmd: build first (devtools/build.sh $build)" >&2; exit 1; }
cmd=(dpdk-testpmd -l 0-1 --no-huge -m 1024 --no-pci --no-shconf
     --file-prefix="io-fwd-$$" -d "$pmd" --vdev "$vdev" --
     -i --nb-cores=1 --rxq=1 --txq=1 --forward-mode=io --total-num-mbufs=8192
     --disable-link-check)
echo "+ ${cmd[*]}"
echo "+ start tx_first $bursts; sleep 2; show port stats 0; sleep $secs; show port stats 0; stop"
out=$( { echo "start tx_first $bursts"; sleep 2; echo "show port stats 0"; sleep "$secs";
	 echo "show port stats 0"; sleep 1; echo "stop"; sleep 1; echo "quit"; } |
	"${cmd[@]}" 2>&1 )
echo "$out" | grep -E 'Rx-pps|Tx-pps' | tail -2
echo "$out" | awk -v s="$secs" '
	/RX-packets:/ && !done { n++; v[n] = $2; if (n == 2) done = 1 }
	END { if (n == 2) printf "io fwd over %d s: %.0f packets/s received (RX-packets delta / time)\n", s, (v[2] - v[1]) / s }'
