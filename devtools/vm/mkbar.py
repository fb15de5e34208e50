#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Write a Tally BAR file holding only the identity block, laid out as the
software device lays out its BAR (include/tally/tally_regs.h, lib/model):
counter bank at 0x10000, completion-counter bank after it on a 4 KiB
boundary, file size a power of two (an ivshmem-plain BAR must be one).

No device runs behind such a file: a driver finds the signature and the
identity, and its reset never completes. Used to test tally-devinfo and the
PCI probe path without the device process.

  mkbar.py FILE [--counters N] [--comp-counters N] [--rxq N] [--txq N]
           [--mac 02:00:00:00:00:01] [--size BYTES] [--set OFF=VALUE ...]
"""
import argparse
import struct

SIG, VERSION, CAPS, BAR_SIZE, QUEUES, RING_LIMITS = 0x0, 0x4, 0x8, 0xc, 0x10, 0x14
CNT_NUM, CNT_OFF, CCNT_NUM, CCNT_OFF = 0x18, 0x1c, 0x20, 0x24
MAX_FRAME, XLT_MAX, MAC_LO, MAC_HI, STATUS = 0x28, 0x2c, 0x30, 0x34, 0x44
SIGNATURE = 0x594C4154
CNT_BANK_OFF = 0x10000
# rss rx-scatter tx-gather steer cnt ccnt xlt (TALLY_MODEL_CAPS)
MODEL_CAPS = 0xBF
STATUS_READY, STATUS_LINK_UP = 0x1, 0x2


def align(x, a):
    return (x + a - 1) & ~(a - 1)


def pow2(x):
    p = 1
    while p < x:
        p <<= 1
    return p


def identity(counters=65536, comp_counters=1024, rxq=8, txq=8,
             mac="02:00:00:00:00:00", size=None):
    """Register offset -> value, and the file size."""
    ccnt_off = align(CNT_BANK_OFF + counters * 16, 4096)
    used = align(ccnt_off + comp_counters * 16, 4096)
    size = size if size is not None else pow2(used)
    m = [int(b, 16) for b in mac.split(":")]
    regs = {
        SIG: SIGNATURE,
        VERSION: 2 << 16,
        CAPS: MODEL_CAPS,
        BAR_SIZE: min(size, 0xFFFFFFFF),
        QUEUES: rxq | txq << 8,
        RING_LIMITS: 4 | 15 << 8,
        CNT_NUM: counters,
        CNT_OFF: CNT_BANK_OFF,
        CCNT_NUM: comp_counters,
        CCNT_OFF: ccnt_off,
        MAX_FRAME: 9216,
        XLT_MAX: 1 << 20,
        MAC_LO: m[0] | m[1] << 8 | m[2] << 16 | m[3] << 24,
        MAC_HI: m[4] | m[5] << 8,
        STATUS: STATUS_READY | STATUS_LINK_UP,
    }
    return regs, size


def write(path, regs, size):
    with open(path, "wb") as f:
        f.truncate(size)
        for off, val in regs.items():
            if off + 4 <= size:
                f.seek(off)
                f.write(struct.pack("<I", val & 0xFFFFFFFF))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("file")
    ap.add_argument("--counters", type=int, default=65536)
    ap.add_argument("--comp-counters", type=int, default=1024)
    ap.add_argument("--rxq", type=int, default=8)
    ap.add_argument("--txq", type=int, default=8)
    ap.add_argument("--mac", default="02:00:00:00:00:00")
    ap.add_argument("--size", type=lambda s: int(s, 0))
    ap.add_argument("--set", action="append", default=[],
                    help="OFF=VALUE, both may be 0x...")
    a = ap.parse_args()
    regs, size = identity(a.counters, a.comp_counters, a.rxq, a.txq, a.mac,
                          a.size)
    for s in a.set:
        off, val = s.split("=", 1)
        regs[int(off, 0)] = int(val, 0)
    write(a.file, regs, size)


if __name__ == "__main__":
    main()
