#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Check a testpmd txonly session on one port (its output file).

txonly-check.py OUT --wire loop|none --txq N --min-per-queue K

Reads the last "show port stats" block and the last "show port xstats"
listing of OUT and checks that
  - every Tx queue sent at least K frames (tx_q<i>_packets), and TX-packets
    is their sum;
  - nothing was lost on Tx: TX-errors, tx_errors, tx_desc_errors,
    tx_wire_drop, tx_rejected and every tx_q<i>_{drops,errors} are 0;
  - on the loop wire every sent frame came back: RX-packets + RX-missed is
    TX-packets less at most the loop FIFO (1024 frames still on the wire);
    on no wire nothing arrived.
"""
import argparse
import re
import sys

LOOP_FIFO = 1024


def parse(path):
    text = open(path, encoding="utf-8", errors="replace").read()
    stats = {}
    blocks = text.split("NIC statistics for port")
    if len(blocks) < 2:
        sys.exit("no 'show port stats' output")
    for key, val in re.findall(r"([A-Z][A-Za-z-]+):\s+(\d+)", blocks[-1]):
        stats.setdefault(key, int(val))
    xs = {}
    parts = text.split("NIC extended statistics for port")
    if len(parts) < 2:
        sys.exit("no 'show port xstats' output")
    for name, val in re.findall(r"^([a-z0-9_]+): (\d+)$", parts[-1], re.M):
        xs.setdefault(name, int(val))
    return stats, xs


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--wire", choices=["loop", "none"], required=True)
    ap.add_argument("--txq", type=int, required=True)
    ap.add_argument("--min-per-queue", type=int, required=True)
    a = ap.parse_args()
    st, xs = parse(a.out)
    bad = []
    tx = st["TX-packets"]
    per_q = [xs.get("tx_q%d_packets" % q, -1) for q in range(a.txq)]
    for q, n in enumerate(per_q):
        if n < a.min_per_queue:
            bad.append("txq %d sent %d frames, want >= %d" % (q, n, a.min_per_queue))
    if sum(per_q) != tx:
        bad.append("TX-packets %d != sum of queues %d" % (tx, sum(per_q)))
    zero = ["tx_errors", "tx_desc_errors", "tx_wire_drop", "tx_rejected"]
    zero += ["tx_q%d_%s" % (q, k) for q in range(a.txq) for k in ("drops", "errors")]
    if st["TX-errors"] != 0:
        bad.append("TX-errors %d" % st["TX-errors"])
    for name in zero:
        if xs.get(name, -1) != 0:
            bad.append("%s = %s, want 0" % (name, xs.get(name)))
    back = st["RX-packets"] + st["RX-missed"]
    if a.wire == "loop" and not 0 <= tx - back <= LOOP_FIFO:
        bad.append("loop: TX-packets %d but RX-packets + RX-missed %d" % (tx, back))
    if a.wire == "none" and back != 0:
        bad.append("none: %d frames arrived" % back)
    for b in bad:
        print("txonly-check: " + b)
    print("txonly-check: TX-packets %d, per queue %s, back %d: %s"
          % (tx, per_q, back, "FAIL" if bad else "ok"))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
