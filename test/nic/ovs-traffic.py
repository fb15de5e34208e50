#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Frames of one kind each, sent on a Linux interface (standard library only).

ovs-traffic.py kinds            the kinds, one per line
ovs-traffic.py send IFACE COUNT KIND...
                                COUNT frames of each KIND on IFACE (an
                                AF_PACKET raw socket; needs CAP_NET_RAW)
ovs-traffic.py count IFACE SECONDS KIND...
                                how many frames of those kinds arrive on
                                IFACE (not sent from it) within SECONDS,
                                printed when the time is up; stops early,
                                ready, after a line "ready" on stdout

Every frame of a kind has the same headers, so that Open vSwitch makes one
megaflow per kind and input port. The headers come from devtools/gen-pcap.py
(eth, udp, tcp, icmp, csum); the IP headers are built here because they carry
fragment fields.
"""
import importlib.util
import os
import socket
import struct
import sys

_spec = importlib.util.spec_from_file_location(
    "gen_pcap", os.path.join(os.path.dirname(os.path.abspath(__file__)),
                             "..", "..", "devtools", "gen-pcap.py"))
gp = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(gp)

SRC4 = [10, 0, 0, 1]
DST4 = [10, 0, 1, 1]
SRC4_B = [10, 1, 0, 7]          # the "nw_src=10.1.0.0/16" rule's sources
SRC6 = [0x20, 0x01, 0x0d, 0xb8] + [0] * 11 + [1]
DST6 = [0x20, 0x01, 0x0d, 0xb8] + [0] * 11 + [0xFF]
MF = 0x2000                     # IPv4 "more fragments"


def ipv4(proto, payload, src=SRC4, frag=0, ident=1):
    h = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(payload), ident, frag,
                    64, proto, 0, bytes(src), bytes(DST4))
    return h[:10] + struct.pack("!H", gp.csum(h)) + h[12:] + payload


def ipv6(nh, payload):
    return struct.pack("!IHBB16s16s", 0x60000000, len(payload), nh, 64,
                       bytes(SRC6), bytes(DST6)) + payload


def ipv6_frag(nh, offset8, more, payload, ident=0x1234):
    ext = struct.pack("!BBHI", nh, 0, (offset8 << 3) | (1 if more else 0),
                      ident)
    return ipv6(44, ext + payload)


def arp():
    body = struct.pack("!HHBBH6s4s6s4s", 1, 0x0800, 6, 4, 1,
                       b"\x02\x00\x00\x00\x00\x01", bytes(SRC4),
                       b"\0" * 6, bytes(DST4))
    return gp.eth(body, 0x0806)


DATA = bytes(range(32))
KINDS = {
    "arp": arp,
    "ipv4-udp": lambda: gp.eth(ipv4(17, gp.udp(1000, 53, DATA)), 0x0800),
    "ipv4-tcp": lambda: gp.eth(ipv4(6, gp.tcp(2000, 80, DATA)), 0x0800),
    "ipv4-icmp": lambda: gp.eth(ipv4(1, gp.icmp(DATA), src=SRC4_B), 0x0800),
    "ipv6-udp": lambda: gp.eth(ipv6(17, gp.udp(3000, 4000, DATA)), 0x86DD),
    "ipv6-tcp": lambda: gp.eth(ipv6(6, gp.tcp(3001, 443, DATA)), 0x86DD),
    "vlan-ipv4": lambda: gp.eth(ipv4(17, gp.udp(1001, 53, DATA)), 0x0800,
                                vlan=100),
    "ipv4-frag-first": lambda: gp.eth(
        ipv4(17, gp.udp(1002, 53, DATA), frag=MF, ident=7), 0x0800),
    "ipv4-frag-later": lambda: gp.eth(
        ipv4(17, DATA, frag=185, ident=7), 0x0800),
    # a later fragment at offset 40 (5 units of 8 bytes)
    "ipv4-frag-low": lambda: gp.eth(
        ipv4(17, DATA, frag=5, ident=8), 0x0800),
    "ipv6-frag-first": lambda: gp.eth(
        ipv6_frag(17, 0, True, gp.udp(3002, 4000, DATA)), 0x86DD),
    "ipv6-frag-later": lambda: gp.eth(
        ipv6_frag(17, 5, False, DATA), 0x86DD),
}


def send(iface, count, kinds):
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    s.bind((iface, 0))
    frames = [KINDS[k]() for k in kinds]
    for _ in range(count):
        for f in frames:
            s.send(f)
    s.close()


def count(iface, seconds, kinds):
    import time
    want = set(KINDS[k]() for k in kinds)
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(0x0003))
    s.bind((iface, 0))
    print("ready", flush=True)
    end = time.monotonic() + seconds
    n = 0
    while True:
        left = end - time.monotonic()
        if left <= 0:
            break
        s.settimeout(left)
        try:
            data, addr = s.recvfrom(65536)
        except socket.timeout:
            break
        if addr[2] != socket.PACKET_OUTGOING and data in want:
            n += 1
    s.close()
    print(n, flush=True)


def main(argv):
    if len(argv) >= 5 and argv[1] == "count":
        count(argv[2], float(argv[3]), argv[4:])
        return 0
    if argv[1:2] == ["kinds"]:
        print("\n".join(KINDS))
        return 0
    if len(argv) >= 5 and argv[1] == "send":
        bad = [k for k in argv[4:] if k not in KINDS]
        if bad:
            print("unknown kind: " + " ".join(bad), file=sys.stderr)
            return 2
        send(argv[2], int(argv[3]), argv[4:])
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
