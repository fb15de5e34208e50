#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Zero-length, runt, truncated and oversized records in the input pcap are
# counted in xstats; the good frames around them are forwarded; the port keeps
# running (a later command still works).
set -euo pipefail
pmd=$1 data=$2 tools=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat > "$work/cmds" <<'CMDS'
set fwd io
start
sleep 2
stop
show port xstats 0
show port info 0
quit
CMDS
out=$("$(dirname "$0")/testpmd-session.sh" "$pmd" \
	"net_tally0,wire=pcap,rx_pcap=$data/bad.pcap,tx_pcap=$work/out.pcap" \
	"$work/cmds" --port-topology=loop)
expect() {
	echo "$out" | grep -Eq "^ *$1: +$2\$" || { echo "FAIL: expected $1 = $2"; echo "$out" | grep -E '^ *[a-z0-9_]+: +[0-9]+$'; exit 1; }
	echo "ok: $1 = $2"
}
expect rx_err_runt 2
expect rx_err_trunc 1
expect rx_err_oversize 1
expect rx_good_packets 5
echo "$out" | grep -q "Infos for port 0" || { echo "FAIL: port stopped answering"; exit 1; }
python3 "$tools/pcap-cmp.py" --skip-bad "$data/bad.pcap" "$work/out.pcap"
