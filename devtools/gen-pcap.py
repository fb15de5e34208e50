#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Write the pcap files shipped in test/data (standard library only).

demo.pcap   64 frames: IPv4/IPv6, UDP/TCP/ICMP, VLAN, sizes 60..1514
bad.pcap    good frames mixed with a zero-length record, a truncated record
            (captured length < wire length), a runt, a 10000-byte frame, a
            damaged record (captured length > wire length) and, last, a
            record cut short by the end of the file
frag.pcap   fragments and whole datagrams, 33 frames: IPv4 UDP datagrams
            of 3000 bytes cut at MTU 1500 (first, middle, last; 4 of them),
            two 2-fragment datagrams whose second fragment starts 24 bytes
            in, 4 whole datagrams with DF, 3 VLAN-tagged whole ones; IPv6
            UDP datagrams cut into 3 fragments (2 of them), 4 whole ones
"""
import struct
import sys

DMAC = bytes.fromhex("020000000000")


def pcap_header():
    return struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1)


def record(i, data, orig=None):
    return struct.pack("<IIII", 1700000000 + i, i, len(data),
                       len(data) if orig is None else orig) + data


def csum(b):
    if len(b) % 2:
        b += b"\0"
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return (~s) & 0xFFFF


def ipv4(proto, src, dst, payload):
    h = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(payload), 1, 0, 64,
                    proto, 0, bytes(src), bytes(dst))
    h = h[:10] + struct.pack("!H", csum(h)) + h[12:]
    return h + payload


def ipv6(nh, src, dst, payload):
    return struct.pack("!IHBB16s16s", 0x60000000, len(payload), nh, 64,
                       bytes(src), bytes(dst)) + payload


def udp(sp, dp, data):
    return struct.pack("!HHHH", sp, dp, 8 + len(data), 0) + data


def tcp(sp, dp, data):
    return struct.pack("!HHIIHHHH", sp, dp, 1, 0, 0x5018, 8192, 0, 0) + data


def icmp(data):
    h = struct.pack("!BBHHH", 8, 0, 0, 0x77, 1) + data
    return h[:2] + struct.pack("!H", csum(h)) + h[4:]


def eth(payload, et, vlan=None, src=b"\x02\x00\x00\x00\x00\x01"):
    tag = b"" if vlan is None else struct.pack("!HH", 0x8100, vlan)
    frame = DMAC + src + tag + struct.pack("!H", et) + payload
    return frame + b"\0" * max(0, 60 - len(frame))


def demo_frames():
    frames = []
    sizes = [0, 18, 64, 200, 512, 1000, 1400, 1472]
    for i in range(64):
        data = bytes((i + j) & 0xFF for j in range(sizes[i % len(sizes)]))
        kind = i % 4
        src4 = [10, 0, 0, 1 + i % 8]
        dst4 = [10, 0, 1, 1]
        if kind == 0:
            l3 = ipv4(17, src4, dst4, udp(1000 + i, 5000 + i % 4, data))
            frames.append(eth(l3, 0x0800))
        elif kind == 1:
            l3 = ipv4(6, src4, dst4, tcp(2000 + i, 80, data))
            frames.append(eth(l3, 0x0800, vlan=100 + i % 3))
        elif kind == 2:
            s6 = [0x20, 0x01, 0x0d, 0xb8] + [0] * 11 + [1 + i % 8]
            d6 = [0x20, 0x01, 0x0d, 0xb8] + [0] * 11 + [0xFF]
            frames.append(eth(ipv6(17, s6, d6, udp(3000 + i, 4000, data)), 0x86DD))
        else:
            frames.append(eth(ipv4(1, src4, dst4, icmp(data[:56])), 0x0800))
    return frames


def ipv4_frags(proto, src, dst, ident, payload, step, df=False):
    """payload cut into fragments carrying step bytes (a multiple of 8)"""
    out = []
    for off in range(0, len(payload), step):
        part = payload[off:off + step]
        more = off + step < len(payload)
        fo = (0x4000 if df else 0) | (0x2000 if more else 0) | (off // 8)
        h = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(part), ident, fo,
                        64, proto, 0, bytes(src), bytes(dst))
        h = h[:10] + struct.pack("!H", csum(h)) + h[12:]
        out.append(h + part)
    return out


def ipv6_frags(nh, src, dst, ident, payload, step):
    out = []
    for off in range(0, len(payload), step):
        part = payload[off:off + step]
        more = off + step < len(payload)
        fh = struct.pack("!BBHI", nh, 0, off | (1 if more else 0), ident)
        out.append(ipv6(44, src, dst, fh + part))
    return out


def frag_frames():
    frames = []
    src4, dst4 = [10, 0, 0, 1], [10, 0, 2, 1]
    data = bytes(j & 0xFF for j in range(3000 - 8))
    for i in range(4):
        dgram = udp(7000 + i, 9000, data)
        frames += [eth(f, 0x0800) for f in ipv4_frags(17, src4, dst4, 100 + i, dgram, 1480)]
    for i in range(2):          # an offset under 64 bytes
        dgram = udp(7100 + i, 9000, bytes(40))
        frames += [eth(f, 0x0800) for f in ipv4_frags(17, src4, dst4, 200 + i, dgram, 24)]
    for i in range(4):
        l3 = ipv4(17, src4, dst4, udp(7200 + i, 9000, bytes(100)))
        h = l3[:6] + b"\x40\x00" + l3[8:10] + b"\0\0" + l3[12:20]   # DF
        l3 = h[:10] + struct.pack("!H", csum(h)) + h[12:] + l3[20:]
        frames.append(eth(l3, 0x0800))
    for i in range(3):
        frames.append(eth(ipv4(17, src4, dst4, udp(7300 + i, 9000, bytes(64))), 0x0800,
                          vlan=300))
    s6 = [0x20, 0x01, 0x0d, 0xb8] + [0] * 11 + [1]
    d6 = [0x20, 0x01, 0x0d, 0xb8] + [0] * 11 + [2]
    for i in range(2):
        dgram = udp(7400 + i, 9000, data)
        frames += [eth(f, 0x86DD) for f in ipv6_frags(17, s6, d6, 300 + i, dgram, 1448)]
    for i in range(4):
        frames.append(eth(ipv6(17, s6, d6, udp(7500 + i, 9000, bytes(100))), 0x86DD))
    return frames


def write(path, recs):
    with open(path, "wb") as f:
        f.write(pcap_header())
        for i, r in enumerate(recs):
            f.write(record(i, *r))


def main(outdir):
    frames = demo_frames()
    write(outdir + "/demo.pcap", [(fr,) for fr in frames])
    write(outdir + "/frag.pcap", [(fr,) for fr in frag_frames()])
    good = frames[:8]
    bad = [
        (good[0],),
        (b"",),                                    # zero length
        (good[1],),
        (good[2][:40], len(good[2])),              # truncated capture
        (good[3],),
        (b"\x02" * 10,),                           # runt: shorter than Ethernet
        (good[4],),
        (eth(ipv4(17, [1, 1, 1, 1], [2, 2, 2, 2], udp(1, 2, b"\xab" * 9970)), 0x0800),),  # oversized
        (good[5],),
        (good[6], 20),                             # damaged: caplen > len, skipped
        (good[7],),
    ]
    write(outdir + "/bad.pcap", bad)
    # last, a record whose data the end of the file cuts short
    with open(outdir + "/bad.pcap", "ab") as f:
        f.write(record(len(bad), good[0])[:16 + 30])


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "test/data")
