#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""pcapng-check.py CAPTURE.pcapng REFERENCE.pcap: the capture holds the
reference's frames twice, byte for byte and in order: once received
(inbound) and once sent (outbound), as dpdk-dumpcap captures a port that
forwards the reference. Prints one PASS or FAIL line; exit status 0/1."""
import struct
import sys


def pcap_frames(path):
    with open(path, "rb") as f:
        hdr = f.read(24)
        end = "<" if struct.unpack("<I", hdr[:4])[0] in (0xA1B2C3D4, 0xA1B23C4D) else ">"
        out = []
        while True:
            rh = f.read(16)
            if len(rh) < 16:
                return out
            incl = struct.unpack(end + "IIII", rh)[2]
            out.append(f.read(incl))


def pcapng_frames(path):
    """(direction, frame) of every Enhanced Packet Block; direction 1
    inbound, 2 outbound, 0 unknown (epb_flags bits 0-1)."""
    data = open(path, "rb").read()
    out, off, end = [], 0, "<"
    while off + 12 <= len(data):
        btype, blen = struct.unpack_from(end + "II", data, off)
        if btype == 0x0A0D0D0A:  # section header: byte order
            end = "<" if struct.unpack_from("<I", data, off + 8)[0] == 0x1A2B3C4D else ">"
            btype, blen = struct.unpack_from(end + "II", data, off)
        if blen < 12 or off + blen > len(data):
            raise SystemExit("FAIL: %s: malformed block at %d" % (path, off))
        if btype == 6:
            caplen = struct.unpack_from(end + "I", data, off + 20)[0]
            frame = data[off + 28:off + 28 + caplen]
            opt = off + 28 + ((caplen + 3) & ~3)
            direction = 0
            while opt + 4 <= off + blen - 4:
                code, olen = struct.unpack_from(end + "HH", data, opt)
                if code == 0:
                    break
                if code == 2 and olen == 4:
                    direction = struct.unpack_from(end + "I", data, opt + 4)[0] & 3
                opt += 4 + ((olen + 3) & ~3)
            out.append((direction, frame))
        off += blen
    return out


def main():
    cap = pcapng_frames(sys.argv[1])
    ref = pcap_frames(sys.argv[2])
    rx = [f for d, f in cap if d == 1]
    tx = [f for d, f in cap if d == 2]
    if len(cap) != 2 * len(ref) or rx != ref or tx != ref:
        print("FAIL: capture holds %d frames (%d in, %d out), the reference %d; "
              "in == reference: %s, out == reference: %s"
              % (len(cap), len(rx), len(tx), len(ref), rx == ref, tx == ref))
        return 1
    print("PASS: the capture holds the %d frames received and the %d sent, "
          "byte for byte" % (len(rx), len(tx)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
