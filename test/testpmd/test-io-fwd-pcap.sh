#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Stock testpmd, io forwarding, pcap wire: every input frame leaves the port
# unchanged, in order; port stats show exactly the input count.
set -euo pipefail
pmd=$1 data=$2 tools=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat > "$work/cmds" <<'CMDS'
set fwd io
start
sleep 2
stop
show port stats 0
quit
CMDS
out=$("$(dirname "$0")/testpmd-session.sh" "$pmd" \
	"net_tally0,wire=pcap,rx_pcap=$data/demo.pcap,tx_pcap=$work/out.pcap" \
	"$work/cmds" --port-topology=loop)
echo "$out" | grep -E 'RX-packets|TX-packets|Forward statistics' || true
echo "$out" | grep -Eq 'RX-packets: +64 ' || { echo "FAIL: expected 64 Rx packets"; echo "$out"; exit 1; }
echo "$out" | grep -Eq 'TX-packets: +64 ' || { echo "FAIL: expected 64 Tx packets"; echo "$out"; exit 1; }
python3 "$tools/pcap-cmp.py" "$data/demo.pcap" "$work/out.pcap"
