#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# demo.sh: set up, build, then run stock dpdk-testpmd on a net_tally port whose
# wire replays test/data/demo.pcap; forward in io mode and show port stats.
# The frames sent back out are written to build/demo-out.pcap.
set -euo pipefail
cd "$(dirname "$0")/.."
bash devtools/build.sh build
out=$PWD/build/demo-out.pcap
cat > build/demo-cmds <<'CMDS'
set fwd io
start
sleep 2
stop
show port stats 0
show port xstats 0
quit
CMDS
test/testpmd/testpmd-session.sh "$PWD/build/drivers/net/tally/librte_net_tally.so" \
	"net_tally0,wire=pcap,rx_pcap=$PWD/test/data/demo.pcap,tx_pcap=$out" \
	build/demo-cmds --port-topology=loop
python3 devtools/pcap-cmp.py test/data/demo.pcap "$out"
