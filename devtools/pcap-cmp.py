#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""pcap-cmp.py A B [--skip-bad] [--only-udp4] [--push-vlan=TPID,TCI]: exit 0
when both files hold the same frames, byte for byte, in the same order.
--skip-bad drops from A the records a NIC must refuse (zero length, captured
length < wire length, shorter than 14 bytes, longer than 9216 bytes) before
comparing; --only-udp4 keeps from A the untagged IPv4/UDP frames only;
--push-vlan inserts a tag (TPID and TCI, numbers) after the MAC addresses of
each frame of A: what B must hold after a switch pushed it."""
import struct
import sys


def frames(path):
    with open(path, "rb") as f:
        hdr = f.read(24)
        if len(hdr) < 24:
            raise SystemExit("%s: not a pcap file" % path)
        magic = struct.unpack("<I", hdr[:4])[0]
        end = "<" if magic in (0xA1B2C3D4, 0xA1B23C4D) else ">"
        out = []
        while True:
            rh = f.read(16)
            if len(rh) < 16:
                return out
            _, _, incl, orig = struct.unpack(end + "IIII", rh)
            out.append((f.read(incl), orig))


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    skip_bad = "--skip-bad" in sys.argv
    push = [x.split("=", 1)[1] for x in sys.argv[1:] if x.startswith("--push-vlan=")]
    a, b = frames(args[0]), frames(args[1])
    if skip_bad:
        a = [(d, o) for d, o in a if 14 <= len(d) == o <= 9216]
    if "--only-udp4" in sys.argv:
        a = [(d, o) for d, o in a if len(d) >= 34 and d[12:14] == b"\x08\x00" and d[23] == 17]
    a = [d for d, _ in a]
    if push:
        tpid, tci = (int(v, 0) for v in push[0].split(","))
        a = [d[:12] + struct.pack(">HH", tpid, tci) + d[12:] for d in a]
    b = [d for d, _ in b]
    if a == b:
        print("pcap-cmp: %d frames identical" % len(a))
        return 0
    print("pcap-cmp: %s has %d frames, %s has %d" % (args[0], len(a), args[1], len(b)))
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            print("pcap-cmp: first difference at frame %d (len %d vs %d)" % (i, len(x), len(y)))
            break
    return 1


if __name__ == "__main__":
    sys.exit(main())
