#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Write the seed corpora of test/fuzz/corpus/<target>/ (standard library
only): gen-corpus.py [DIR]. The seeds are small and deterministic; the
fuzzer's own finds stay in build-fuzz/corpus/."""
import os
import struct
import sys


def put(d, name, data):
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


# ---- parse: frames ----------------------------------------------------------
def eth(et, payload, tags=()):
    h = bytes.fromhex("020000000000020000000001")
    for tpid, tci in tags:
        h += struct.pack("!HH", tpid, tci)
    return h + struct.pack("!H", et) + payload


def ipv4(proto, payload, frag=0, ihl=5):
    return struct.pack("!BBHHHBBH4s4s", 0x40 | ihl, 0, 20 + len(payload), 1, frag, 64,
                       proto, 0, bytes([10, 0, 0, 1]), bytes([10, 0, 1, 1])) + \
        b"\0" * (4 * (ihl - 5)) + payload


def ipv6(nh, payload):
    return struct.pack("!IHBB16s16s", 0x60000000, len(payload), nh, 64,
                       bytes(15) + b"\1", bytes(15) + b"\2") + payload


def udp(sp, dp, data=b"abcd"):
    return struct.pack("!HHHH", sp, dp, 8 + len(data), 0) + data


def tcp(sp, dp):
    return struct.pack("!HHIIHHHH", sp, dp, 1, 0, 0x5012, 8192, 0, 0)


def parse_seeds(d):
    vx = struct.pack("!II", 0x08000000, 0x123456 << 8) + eth(0x0800, ipv4(6, tcp(1, 2)))
    seeds = {
        "ipv4-udp": eth(0x0800, ipv4(17, udp(1000, 5000))),
        "ipv4-tcp": eth(0x0800, ipv4(6, tcp(2000, 80))),
        "ipv4-icmp": eth(0x0800, ipv4(1, struct.pack("!BBHHH", 8, 0, 0, 1, 1))),
        "ipv4-frag": eth(0x0800, ipv4(17, udp(1, 2), frag=0x2000)),
        "ipv4-options": eth(0x0800, ipv4(17, udp(1, 2), ihl=7)),
        "ipv6-udp": eth(0x86DD, ipv6(17, udp(3000, 4000))),
        "ipv6-tcp": eth(0x86DD, ipv6(6, tcp(1, 2))),
        "ipv6-icmp": eth(0x86DD, ipv6(58, struct.pack("!BBHI", 128, 0, 0, 0))),
        "vlan-ipv4": eth(0x0800, ipv4(17, udp(1, 2)), tags=[(0x8100, 100)]),
        "qinq-ipv4": eth(0x0800, ipv4(17, udp(1, 2)), tags=[(0x88a8, 10), (0x8100, 20)]),
        "vxlan": eth(0x0800, ipv4(17, udp(5555, 4789, vx))),
        "arp": eth(0x0806, bytes(28)),
        "runt": bytes(10),
        "truncated-ipv4": eth(0x0800, ipv4(17, udp(1, 2)))[:30],
    }
    for name, data in seeds.items():
        put(d, name, data)


# ---- device: operation lists (see fuzz_device.c fd_op) ----------------------
def op_tx(q, nseg, sel, ip, pl=0):
    return bytes([4, q, nseg, sel, ip, pl])


def op_inject(sel, ip, pl=0):
    return bytes([6, sel, ip, pl])


STEP = bytes([7])


def op_refill(q):
    return bytes([2, q, 0])


def op_patch(alloc, off, data):
    return bytes([1, alloc]) + struct.pack("<H", off) + bytes([len(data) - 1]) + data


def op_reg(off, val, odd=0):
    return bytes([0]) + struct.pack("<H", off) + bytes([odd]) + struct.pack("<I", val)


def op_root(off):
    return bytes([9]) + struct.pack("<I", off)


RESET = bytes([11])


def ip_sel(dst, src):
    return (dst << 3) | src


def device_seeds(d):
    hits = b"".join(op_inject(0, ip_sel(dst, src)) for dst in range(1, 6) for src in range(0, 3))
    seeds = {
        "rules": hits + STEP,
        "rss": op_inject(0x00, ip_sel(7, 1)) + op_inject(0x10, ip_sel(7, 2)) + op_inject(0x08, 3),
        "tx-loop": b"".join(op_tx(q, n, 0, ip_sel(1 + n, q)) for q in range(2) for n in range(3)) +
        STEP + op_refill(0) + op_refill(1) + STEP,
        "tx-many": b"".join(op_tx(0, 1, s, ip_sel(s % 6, 1), s) for s in range(40)) + STEP * 3,
        "patch-steer": b"".join(op_patch(a, o, b"\x01\x02\x03\x04") + op_inject(0, ip_sel(1, 1))
                                for a in range(12, 24) for o in (0, 8)),
        "patch-rings": b"".join(op_patch(a, 0, b"\xff" * 8) + op_tx(0, 1, 0, 9) + STEP
                                for a in range(0, 12)),
        "root": b"".join(op_root(o) + op_inject(0, ip_sel(1, 1)) for o in (4, 64, 1000, 0x3ffff)),
        "reset": op_inject(0, 9) + RESET + op_inject(0, 9) + op_tx(1, 2, 0, 9) + STEP,
        "regs": b"".join(op_reg(o, v) for o, v in [(0x48, 0x3f), (0x408, 0), (0x1014, 1),
                                                  (0x1818, 100), (0x48c, 3), (0x54, 5)]) +
        op_inject(0, 9) + STEP,
        "steer-api": bytes([8, 0, 3, 2, 1, 9]) + struct.pack("<I", 5) + bytes([2]) +
        bytes([8, 2, 1, 1, 0, 1]) + struct.pack("<I", 0) + bytes([3]) +
        bytes([8, 1, 0]) + op_inject(0, ip_sel(2, 3)) + op_inject(0x30, ip_sel(7, 1)),
        "raw": bytes([5]) + struct.pack("<H", 64) + eth(0x0800, ipv4(17, udp(1, 5000)))[:64] + STEP,
        "requeue": bytes([10, 0, 0, 10, 1, 1]) + op_tx(1, 1, 0, 9) + op_inject(0, 9) + STEP,
    }
    for name, data in seeds.items():
        put(d, name, data)


# ---- verbs_spec: num_of_specs + packed specs --------------------------------
def spec(t, body):
    return struct.pack("<IH", t, 6 + len(body) + 2) + b"\0\0" + body


def verbs_seeds(d):
    eth_f = bytes.fromhex("020000000001") + bytes(6) + b"\x08\x00" + b"\0\0"
    eth_m = b"\xff" * 6 + bytes(6) + b"\xff\xff" + b"\x0f\xff"
    ipv4_f = bytes([10, 0, 0, 1, 10, 0, 1, 1])
    tcpudp = struct.pack("!HHHH", 80, 0, 0xffff, 0)
    ipv6_f = bytes(16) + bytes(15) + b"\1" + struct.pack("!IBBB", 0x12345, 0, 17, 64) + b"\0"
    ipv6_m = bytes(16) + b"\xff" * 16 + struct.pack("!IBBB", 0xfffff, 0, 0xff, 0) + b"\0"
    ipv4e = bytes([10, 0, 0, 1, 10, 0, 1, 1, 17, 0, 64, 0])
    ipv4e_m = b"\xff" * 8 + bytes([0xff, 0, 0, 0])
    vx = struct.pack("!I", 0x1234)
    tag = struct.pack("<IHHI", 0x1004, 12, 0, 77)
    drop = struct.pack("<IH", 0x1005, 8) + b"\0\0"
    seeds = {
        "eth": bytes([1]) + struct.pack("<IH", 0x20, 40) + b"\0\0" + eth_f + eth_m + b"\0" * 4,
        "eth-ipv4-udp": bytes([3]) + struct.pack("<IH", 0x20, 40) + b"\0\0" + eth_f + eth_m + b"\0" * 4 +
        struct.pack("<IH", 0x30, 24) + b"\0\0" + ipv4_f + b"\xff" * 8 +
        struct.pack("<IH", 0x41, 16) + b"\0\0" + tcpudp,
        "ipv6-tcp": bytes([2]) + struct.pack("<IH", 0x31, 8 + 2 * len(ipv6_f)) + b"\0\0" + ipv6_f + ipv6_m +
        struct.pack("<IH", 0x40, 16) + b"\0\0" + tcpudp,
        "ipv4-ext": bytes([1]) + struct.pack("<IH", 0x32, 8 + 24) + b"\0\0" + ipv4e + ipv4e_m,
        "vxlan-inner": bytes([2]) + struct.pack("<IH", 0x50, 16) + b"\0\0" + vx + b"\0\0\xff\xff" +
        struct.pack("<IH", 0x130, 24) + b"\0\0" + ipv4_f + b"\xff" * 8,
        "actions": bytes([3]) + tag + drop + struct.pack("<IH", 0x1003, 16) + b"\0\0" + bytes(8),
        "unknown": bytes([1]) + struct.pack("<IH", 0x77, 8) + b"\0\0",
        "big-filter": bytes([1]) + struct.pack("<IH", 0x31, 8 + 2 * 60) + b"\0\0" + bytes(120),
    }
    for name, data in seeds.items():
        put(d, name, data)


# ---- mlx5dv_match: criteria + fte_match_param buffer -------------------------
def mlx5_seeds(d):
    outer = bytearray(64)
    outer[60:64] = b"\xff" * 4
    misc = bytearray(64)
    misc[20:23] = b"\xff" * 3
    seeds = {
        "outer": bytes([1]) + bytes(outer),
        "outer-misc": bytes([3]) + bytes(outer) + bytes(misc),
        "full-512": bytes([0x7f]) + bytes(outer) + bytes(misc) + bytes(384),
        "tail-640": bytes([1]) + bytes(outer) + bytes(576),
        "tail-nonzero": bytes([1]) + bytes(outer) + bytes(447) + b"\1" + bytes(128),
        "criteria-off": bytes([0]) + bytes(outer),
        "too-long": bytes([1]) + bytes(700),
        "empty": bytes([1]),
    }
    for name, data in seeds.items():
        put(d, name, data)


def main(root):
    parse_seeds(os.path.join(root, "parse"))
    device_seeds(os.path.join(root, "device"))
    verbs_seeds(os.path.join(root, "verbs_spec"))
    mlx5_seeds(os.path.join(root, "mlx5dv_match"))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "corpus"))
