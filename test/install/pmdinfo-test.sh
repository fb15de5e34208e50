#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# pmdinfo-test.sh PMD_SO: stock dpdk-pmdinfo.py shows both drivers of the
# PMD: net_tally with every devarg (including dev=), net_tally_pci with its
# PCI ids and the vfio-pci kernel module dependency.
set -euo pipefail
out=$(dpdk-pmdinfo.py "$1")
echo "$out"
echo "$out" | /usr/bin/python3 -c '
import json, sys
info = {d["name"]: d for d in json.load(sys.stdin)}
assert set(info) == {"net_tally", "net_tally_pci"}, sorted(info)
params = info["net_tally"]["params"].split()
keys = [p.split("=")[0] for p in params]
want = ["wire", "rx_pcap", "tx_pcap", "pcap_loops", "iface", "gen_flows",
        "gen_len", "gen_count", "rxq", "txq", "counters", "comp_counters",
        "mode", "mac", "dev", "bad_rx", "bad_rx_every", "steer_mem", "steer_stage",
        "ports", "p<i>_<setting>"]
assert keys == want, keys
pci = info["net_tally_pci"]
assert pci["kmod"] == "vfio-pci", pci
ids = [(i["vendor"], i["device"]) for i in pci["pci_ids"]]
assert ids == [("1f1a", "7a11"), ("1af4", "1110")], ids
print("ok: net_tally params, net_tally_pci ids and kmod")
'
