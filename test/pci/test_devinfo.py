#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""tally-devinfo on crafted BAR files and on a crafted sysfs PCI tree.

  test_devinfo.py TALLY_DEVINFO

Each case builds its files in a fresh directory, runs the tool and checks
the exit status, stdout (exact lines or JSON values) and the stderr message.
The real bind path (a kernel that honours driver_override) runs in the PCI
guest test (devtools/vm-test.sh).
"""
import json
import os
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "devtools", "vm"))
import mkbar  # noqa: E402

TOOL = sys.argv[1]
BDF = "0000:00:03.0"

GOOD_TEXT = """\
  signature      0x594c4154 (TALY)
  version        2.0
  capabilities   0x000000bf rss rx-scatter tx-gather steer cnt ccnt xlt
  bar size       2097152
  queues         rx 8, tx 8
  rings          16..32768 entries
  counters       65536 at 0x10000
  comp counters  1024 at 0x110000
  max frame      9216
  translations   1048576
  mac            02:11:22:33:44:55
  status         0x00000003 ready link-up
"""


def bar(path, size=None, **kw):
    sets = kw.pop("set", {})
    regs, sz = mkbar.identity(mac="02:11:22:33:44:55", **kw)
    regs.update(sets)
    mkbar.write(path, regs, size if size is not None else sz)
    return path


def run(*args):
    p = subprocess.run([TOOL, *args], capture_output=True, text=True,
                       timeout=10)
    return p.returncode, p.stdout, p.stderr


# ---- a crafted /sys/bus/pci ------------------------------------------------

RES_NONE = "0x0000000000000000 0x0000000000000000 0x0000000000000000\n"


def pci_dev(root, bdf, vendor, device, bars, driver=None, group=None,
            numa=-1, command=0x0006):
    """bars: {index: (address, size, flags, file or None)}"""
    d = os.path.join(root, "devices", bdf)
    os.makedirs(d)
    for name, val in (("vendor", "0x%04x" % vendor),
                      ("device", "0x%04x" % device),
                      ("class", "0x050000"), ("irq", "0"),
                      ("numa_node", str(numa)),
                      ("driver_override", "(null)")):
        with open(os.path.join(d, name), "w") as f:
            f.write(val + "\n")
    cfg = bytearray(256)
    struct.pack_into("<HHH", cfg, 0, vendor, device, command)
    with open(os.path.join(d, "config"), "wb") as f:
        f.write(cfg)
    with open(os.path.join(d, "resource"), "w") as f:
        for i in range(7):
            if i in bars:
                a, s, fl, _ = bars[i]
                f.write("0x%016x 0x%016x 0x%016x\n" % (a, a + s - 1, fl))
            else:
                f.write(RES_NONE)
    for i, (_, _, _, src) in bars.items():
        if src is not None:
            os.rename(src, os.path.join(d, "resource%d" % i))
    if group is not None:
        g = os.path.join(root, "..", "kernel", "iommu_groups", str(group))
        os.makedirs(g, exist_ok=True)
        os.symlink("../../../kernel/iommu_groups/%d" % group,
                   os.path.join(d, "iommu_group"))
    if driver is not None:
        drv_dir(root, driver)
        os.symlink("../../drivers/" + driver, os.path.join(d, "driver"))
    return d


def drv_dir(root, name):
    d = os.path.join(root, "drivers", name)
    os.makedirs(d, exist_ok=True)
    for leaf in ("bind", "unbind"):
        open(os.path.join(d, leaf), "a").close()
    open(os.path.join(root, "drivers_probe"), "a").close()
    return d


def ivshmem(root, w, bdf=BDF, **kw):
    src = kw.pop("bar_file", None) or bar(os.path.join(w, "bar-" + bdf))
    size = os.path.getsize(src)
    return pci_dev(root, bdf, 0x1AF4, 0x1110, {
        0: (0xFEBF1000, 256, 0x40200, None),
        2: (0x100000000, size, 0x14220C, src)}, **kw)


def sysfs(w):
    root = os.path.join(w, "bus", "pci")
    os.makedirs(os.path.join(root, "devices"))
    drv_dir(root, "vfio-pci")
    return root


def read(path):
    with open(path) as f:
        return f.read()


# ---- cases -----------------------------------------------------------------

def case_bar_text(w):
    rc, out, err = run("--bar", bar(w + "/b"))
    assert rc == 0, err
    assert out == "%s/b: BAR file, 2097152 bytes\n%s" % (w, GOOD_TEXT), out


def case_bar_json(w):
    rc, out, err = run("--json", "--bar", bar(w + "/b", counters=4096,
                                             comp_counters=16, rxq=4, txq=2))
    assert rc == 0, err
    j = json.loads(out)
    idn = j["identity"]
    assert j["file"] == w + "/b" and j["size"] == 262144, j
    assert idn["signature"] == "0x594c4154" and idn["version"] == "2.0", idn
    assert idn["capabilities"] == ["rss", "rx-scatter", "tx-gather", "steer",
                                   "cnt", "ccnt", "xlt"], idn
    assert (idn["rx_queues"], idn["tx_queues"]) == (4, 2), idn
    assert (idn["counters"], idn["counters_offset"]) == (4096, 0x10000), idn
    assert (idn["comp_counters"], idn["comp_counters_offset"]) == (16, 0x20000), idn
    assert idn["mac"] == "02:11:22:33:44:55" and idn["bar_size"] == 262144, idn
    assert idn["status_flags"] == ["ready", "link-up"], idn
    assert j["problems"] == [], j


def case_bar_missing(w):
    rc, out, err = run("--bar", w + "/nope")
    assert rc == 1 and out == "", (rc, out)
    assert err == "tally-devinfo: %s/nope: No such file or directory\n" % w, err


def case_bar_short(w):
    with open(w + "/b", "wb") as f:
        f.write(struct.pack("<I", mkbar.SIGNATURE) + bytes(64))
    rc, out, err = run("--bar", w + "/b")
    assert rc == 1 and out == "", (rc, out)
    assert "68 bytes, shorter than the 72-byte identity block" in err, err


def case_bar_empty(w):
    open(w + "/b", "wb").close()
    rc, _, err = run("--bar", w + "/b")
    assert rc == 1 and "0 bytes, shorter than" in err, (rc, err)


def case_bar_not_regular(w):
    os.mkfifo(w + "/fifo")
    for path in (w, w + "/fifo", "/dev/zero"):
        rc, _, err = run("--bar", path)
        assert rc == 1 and "%s: not a regular file" % path in err, (path, rc, err)


def case_bar_bad_signature(w):
    rc, out, err = run("--bar", bar(w + "/b", set={mkbar.SIG: 0x12345678}))
    assert rc == 1 and out == "", (rc, out)
    assert "no Tally signature (0x12345678 at offset 0, expected 0x594c4154)" in err, err


def expect_problem(w, msg, **kw):
    rc, out, err = run("--bar", bar(w + "/b", **kw))
    assert rc == 1, (rc, out, err)
    assert "  problem        " + msg + "\n" in out, out
    rc, out, _ = run("--json", "--bar", w + "/b")
    assert rc == 1 and json.loads(out)["problems"] == [msg], out


def case_problem_counter_bank(w):
    expect_problem(w, "counter bank (200000 at 0x10000) exceeds the BAR (2097152 bytes)",
                   size=2097152, set={mkbar.CNT_NUM: 200000})


def case_problem_comp_bank(w):
    expect_problem(w, "completion counter bank (1024 at 0x1ffff0) exceeds the BAR (2097152 bytes)",
                   set={mkbar.CCNT_OFF: 0x1FFFF0})


def case_problem_version(w):
    expect_problem(w, "spec version 3.1, this tool and the driver know 2.x",
                   set={mkbar.VERSION: 3 << 16 | 1})


def case_problem_bar_size(w):
    expect_problem(w, "BAR_SIZE 4194304 exceeds the BAR (2097152 bytes)",
                   set={mkbar.BAR_SIZE: 4194304})


def case_problem_no_queues(w):
    expect_problem(w, "no queues (rx 0, tx 8)", rxq=0)


def case_problem_rings(w):
    expect_problem(w, "bad ring limits 2^12..2^6",
                   set={mkbar.RING_LIMITS: 12 | 6 << 8})


def case_problem_max_frame(w):
    expect_problem(w, "max frame 1500 below 1518", set={mkbar.MAX_FRAME: 1500})


def case_problem_misaligned(w):
    expect_problem(w, "counter banks misaligned (0x10008, 0x110000)",
                   set={mkbar.CNT_OFF: 0x10008})


def case_bar_unknown_bits(w):
    rc, out, _ = run("--bar", bar(w + "/b", set={mkbar.CAPS: 0x1FF}))
    assert rc == 0 and "  capabilities   0x000001ff rss rx-scatter tx-gather steer " \
        "cnt ccnt cnt-mirror xlt posted\n" in out, out
    rc, out, _ = run("--bar", bar(w + "/b", set={mkbar.CAPS: 0x201,
                                                 mkbar.STATUS: 0x80000005}))
    assert rc == 0, out
    assert "  capabilities   0x00000201 rss bit9\n" in out, out
    assert "  status         0x80000005 ready fault bit31\n" in out, out


def case_usage(w):
    for args in (["--bar", "x", "--bind", "vfio-pci", BDF], ["--frob"],
                 ["--bind", "vfio-pci"], ["--unbind"], ["--bar", "x", BDF],
                 ["--bind", "vfio-pci", "00:03"], ["zz:03.0"],
                 ["--unbind", "0000:00:20.0"], ["--unbind", "0000:00:03.8"]):
        rc, out, err = run(*args)
        assert rc == 2 and out == "" and err != "", (args, rc, out, err)
    rc, out, _ = run("--help")
    assert rc == 0 and out.startswith("usage: tally-devinfo"), out


def case_list_ivshmem(w):
    root = sysfs(w)
    ivshmem(root, w, driver="vfio-pci", group=3)
    rc, out, err = run("--sysfs", root)
    assert rc == 0, err
    assert out == (
        "0000:00:03.0 1af4:1110 Tally device on ivshmem-plain, registers in BAR 2\n"
        "  driver         vfio-pci\n"
        "  numa node      none\n"
        "  iommu group    3\n"
        "  bar 0          0x00000000febf1000 256 bytes mem32\n"
        "  bar 2          0x0000000100000000 2097152 bytes mem64 prefetchable\n"
        + GOOD_TEXT), out


def case_list_json(w):
    root = sysfs(w)
    ivshmem(root, w, numa=0)
    rc, out, err = run("--sysfs", root, "--json")
    assert rc == 0, err
    d = json.loads(out)["devices"]
    assert len(d) == 1, d
    d = d[0]
    assert (d["bdf"], d["vendor"], d["device"], d["function"]) == \
        (BDF, "0x1af4", "0x1110", "ivshmem"), d
    assert (d["register_bar"], d["driver"], d["numa_node"], d["iommu_group"]) == \
        (2, None, 0, None), d
    assert d["bars"] == [
        {"index": 0, "address": "0x00000000febf1000", "size": 256,
         "type": "mem32", "prefetchable": False},
        {"index": 2, "address": "0x0000000100000000", "size": 2097152,
         "type": "mem64", "prefetchable": True}], d["bars"]
    assert d["identity"]["counters"] == 65536 and d["problems"] == [], d


def case_list_sorted_and_filtered(w):
    root = sysfs(w)
    ivshmem(root, w, bdf="0000:00:05.0")
    ivshmem(root, w, bdf="0000:00:03.0")
    # a Tally function proper: registers in BAR 0
    pci_dev(root, "0000:01:00.0", 0x1F1A, 0x7A11,
            {0: (0xFE000000, 2097152, 0x40200, bar(w + "/t"))})
    # another ivshmem user and a virtio device are not listed
    pci_dev(root, "0000:00:04.0", 0x1AF4, 0x1110, {
        2: (0x100200000, 4096, 0x14220C, bar(w + "/o", size=4096,
                                            set={mkbar.SIG: 0}))})
    pci_dev(root, "0000:00:02.0", 0x1AF4, 0x1041, {})
    rc, out, err = run("--sysfs", root)
    assert rc == 0 and err == "", err
    heads = [ln for ln in out.splitlines() if ln and not ln.startswith(" ")]
    assert heads == [
        "0000:00:03.0 1af4:1110 Tally device on ivshmem-plain, registers in BAR 2",
        "0000:00:05.0 1af4:1110 Tally device on ivshmem-plain, registers in BAR 2",
        "0000:01:00.0 1f1a:7a11 Tally NIC, registers in BAR 0"], heads
    rc, out, err = run("--sysfs", root, "--json", "01:00.0", "00:05.0")
    assert rc == 0, err
    assert [d["bdf"] for d in json.loads(out)["devices"]] == \
        ["0000:01:00.0", "0000:00:05.0"], out
    rc, out, err = run("--sysfs", root, "00:04.0")
    assert rc == 1 and out == "", out
    assert "0000:00:04.0: %s/devices/0000:00:04.0/resource2: no Tally signature" % root \
        in err, err
    rc, out, err = run("--sysfs", root, "00:02.0")
    assert rc == 1 and "0000:00:02.0 (1af4:1041) is not a Tally function" in err, err
    rc, out, err = run("--sysfs", root, "00:09.0")
    assert rc == 1 and "0000:00:09.0: no such PCI function" in err, err


def case_list_none(w):
    root = sysfs(w)
    pci_dev(root, "0000:00:02.0", 0x1AF4, 0x1041, {})
    rc, out, err = run("--sysfs", root)
    assert rc == 1 and out == "", out
    assert err == "tally-devinfo: no Tally PCI function under %s/devices\n" % root, err
    rc, out, err = run("--sysfs", root, "--json")
    assert rc == 1 and json.loads(out) == {"devices": []}, out


def case_list_no_sysfs(w):
    rc, out, err = run("--sysfs", w + "/nope")
    assert rc == 1 and "%s/nope/devices: No such file or directory" % w in err, err


def case_list_problem(w):
    root = sysfs(w)
    ivshmem(root, w, bar_file=bar(w + "/b", set={mkbar.CNT_NUM: 1 << 20}))
    rc, out, _ = run("--sysfs", root)
    assert rc == 1, out
    assert "  problem        counter bank (1048576 at 0x10000) exceeds the BAR" in out, out


def case_list_decode_off(w):
    root = sysfs(w)
    short = w + "/short"
    with open(short, "wb") as f:
        f.write(bytes(16))
    pci_dev(root, BDF, 0x1F1A, 0x7A11, {0: (0xFE000000, 16, 0x40200, short)},
            command=0)
    rc, out, err = run("--sysfs", root)
    assert rc == 1 and out == "", out
    assert "shorter than the 72-byte identity block (memory decoding is off: " \
        "bind a driver first)" in err, err


def case_bind_already(w):
    root = sysfs(w)
    ivshmem(root, w, driver="vfio-pci")
    rc, out, err = run("--sysfs", root, "--bind", "vfio-pci", "00:03.0")
    assert rc == 0 and out == BDF + ": already bound to vfio-pci\n", (out, err)
    assert read(root + "/drivers_probe") == "", "probed although bound"


def case_bind_not_taken(w):
    # the crafted tree has no kernel behind it: the driver never appears
    root = sysfs(w)
    d = ivshmem(root, w)
    rc, out, err = run("--sysfs", root, "--bind", "vfio-pci", BDF)
    assert rc == 1 and out == "", out
    assert err == "tally-devinfo: %s: vfio-pci did not bind it (the kernel log says why)\n" \
        % BDF, err
    assert read(root + "/drivers_probe") == BDF, read(root + "/drivers_probe")
    assert read(d + "/driver_override") == "\n", "override not cleared"


def case_bind_from_other_driver(w):
    root = sysfs(w)
    ivshmem(root, w, driver="uio_pci_generic")
    rc, _, err = run("--sysfs", root, "--bind", "vfio-pci", BDF)
    assert read(root + "/drivers/uio_pci_generic/unbind") == BDF, "no unbind"
    assert rc == 1 and "vfio-pci did not bind it" in err, err
    # given back: the bus probed again for the old driver
    assert read(root + "/drivers_probe") == BDF


def case_bind_errors(w):
    root = sysfs(w)
    ivshmem(root, w)
    rc, _, err = run("--sysfs", root, "--bind", "igb_uio", BDF)
    assert rc == 1 and "driver igb_uio is not loaded (modprobe igb_uio)" in err, err
    rc, _, err = run("--sysfs", root, "--bind", "../vfio-pci", BDF)
    assert rc == 1 and "bad driver name '../vfio-pci'" in err, err
    rc, _, err = run("--sysfs", root, "--bind", "vfio-pci", "0000:00:07.0")
    assert rc == 1 and "0000:00:07.0: no such PCI function" in err, err
    assert read(root + "/drivers_probe") == "", "probed on error"


def case_unbind(w):
    root = sysfs(w)
    ivshmem(root, w)
    rc, out, _ = run("--sysfs", root, "--unbind", BDF)
    assert rc == 0 and out == BDF + ": not bound to a driver\n", out
    root2 = os.path.join(w, "two", "bus", "pci")
    os.makedirs(root2 + "/devices")
    ivshmem(root2, w, driver="vfio-pci")
    rc, _, err = run("--sysfs", root2, "--unbind", "00:03.0")
    assert read(root2 + "/drivers/vfio-pci/unbind") == BDF, "no unbind write"
    assert rc == 1 and "still bound to vfio-pci after unbind" in err, err
    rc, _, err = run("--sysfs", root2, "--unbind", "00:08.0")
    assert rc == 1 and "0000:00:08.0: no such PCI function" in err, err


def main():
    cases = [(n, f) for n, f in globals().items() if n.startswith("case_")]
    failed = 0
    for name, fn in cases:
        with tempfile.TemporaryDirectory() as w:
            try:
                fn(w)
                print("ok   " + name[5:])
            except Exception as e:  # a hang (timeout) fails the case too
                failed += 1
                print("FAIL %s: %s: %s" % (name[5:], type(e).__name__, e))
    print("%d cases, %d failed" % (len(cases), failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
