#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""One stock dpdk-testpmd io-forwarding measurement, driven command by command.

bench-io-fwd.py [--pmd SO] [--vdev ARGS] [--secs S] [--warm S] [--bursts N]
                [--lcores L] [--early S] [--eal ARG]...
                [--peer-vdev ARGS [--peer-lcores L]]

testpmd is started with one forwarding core (-l 0-1: lcore 0 is testpmd's
main lcore, lcore 1 forwards). Every command is sent only once testpmd has
answered the previous one (its prompt came back), so the timings are measured
from when testpmd really started forwarding, not from when the command was
queued: testpmd needs 1-3 s to start on a loaded machine (it locks all of
its -m memory), and commands written ahead of that pile up and run back to
back. After `start tx_first N`: RX-packets at --early seconds (the start-up
check), then after --warm seconds two `show port stats 0` --secs apart.
Prints one line of key=value pairs: pps (RX-packets delta / measured time),
early (RX-packets at the early mark) and ready (seconds testpmd took to start).

--peer-vdev: the device side is a second stock testpmd, started first with
that vdev as its one port and io forwarding (what arrives on the port goes
back out of it), e.g. net_vhost0,iface=SOCK,queues=1 against --vdev
net_virtio_user0,path=SOCK,queues=1, or net_memif0,role=server,socket=SOCK
against net_memif0,role=client,socket=SOCK. Its lcores (--peer-lcores,
default 0@0,1@0) put both its main and its forwarding lcore on CPU 0; the
measured testpmd forwards on CPU 1 (-l 0-1). The measured side waits for its
link (the peer's handshake) before `start tx_first`. --eal=ARG adds ARG to
the measured testpmd's EAL arguments (e.g. --single-file-segments, which
virtio-user needs on hugepages: vhost-user takes at most 8 memory regions,
and without it every 2 MiB page is a file of its own).

EAL's memory follows TALLY_TEST_MEM (devtools/eal-mem.sh: hugepages with IOVA
as PA by default; nohuge gives --no-huge -m 1024); exit 77 where that mode
cannot run. --pmd goes through devtools/eal-plugin.sh (a private copy when its
path has a world-writable directory, which EAL refuses).
"""
import argparse
import os
import re
import select
import shutil
import subprocess
import sys
import time

PROMPT = b"testpmd> "
TOOLS = os.path.dirname(os.path.abspath(__file__))


def helper(script, *args, ok=(0,)):
    """Output of a devtools/ shell helper; exits with its status unless in ok."""
    r = subprocess.run(["bash", os.path.join(TOOLS, script)] + list(args),
                       stdout=subprocess.PIPE, universal_newlines=True)
    if r.returncode not in ok:
        sys.exit(r.returncode)
    return r.stdout.strip()


class Testpmd:
    def __init__(self, cmd):
        self.p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.STDOUT, bufsize=0)
        self.buf = b""
        self.log = b""

    def until_prompt(self, timeout=60.0):
        end = time.monotonic() + timeout
        while PROMPT not in self.buf:
            left = end - time.monotonic()
            if left <= 0:
                raise RuntimeError("testpmd did not answer: " + self.log[-2000:].decode(errors="replace"))
            r, _, _ = select.select([self.p.stdout], [], [], min(left, 0.5))
            if r:
                d = os.read(self.p.stdout.fileno(), 1 << 16)
                if not d:
                    raise RuntimeError("testpmd exited: " + self.log[-2000:].decode(errors="replace"))
                self.buf += d
                self.log += d
        i = self.buf.index(PROMPT)
        out, self.buf = self.buf[:i], self.buf[i + len(PROMPT):]
        return out

    def cmd(self, line):
        self.p.stdin.write(line.encode() + b"\n")
        return self.until_prompt()

    def link_up(self, timeout=10.0):
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if re.search(rb"Link status:\s+up", self.cmd("show port info 0")):
                return True
            time.sleep(0.1)
        return False

    def rx_packets(self):
        out = self.cmd("show port stats 0")
        m = re.search(rb"RX-packets:\s+(\d+)", out)
        if m is None:
            raise RuntimeError("no RX-packets in: " + out.decode(errors="replace"))
        return int(m.group(1)), time.monotonic()

    def close(self):
        try:
            self.p.stdin.write(b"stop\nquit\n")
            self.p.stdin.close()
        except OSError:
            pass
        try:
            self.p.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.p.kill()
            self.p.wait()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pmd", help="librte_net_tally.so to load with -d (none for net_null)")
    ap.add_argument("--vdev", default="net_tally0")
    ap.add_argument("--secs", type=float, default=3.0)
    ap.add_argument("--warm", type=float, default=0.5)
    ap.add_argument("--early", type=float, default=0.2)
    ap.add_argument("--bursts", type=int, default=4)
    ap.add_argument("--lcores", default="0-1")
    ap.add_argument("--eal", action="append", default=[])
    ap.add_argument("--peer-vdev", help="the device side: a second testpmd with this vdev")
    ap.add_argument("--peer-lcores", default="0@0,1@0")
    a = ap.parse_args()
    why = helper("eal-mem.sh", "check", ok=(0, 1))
    if why:
        print("SKIP: memory mode %s (TALLY_TEST_MEM): %s" %
              (os.environ.get("TALLY_TEST_MEM") or "pa", why), file=sys.stderr)
        return 77
    prefix = "io-fwd-%d" % os.getpid()
    peer = None
    try:
        if a.peer_vdev:
            peer = start_peer(a, prefix + "-peer")
        return measure(a, prefix, peer is not None)
    except RuntimeError as e:
        print("bench-io-fwd: %s" % e, file=sys.stderr)
        return 1
    finally:
        if peer is not None:
            peer.close()
            shutil.rmtree("/var/run/dpdk/" + prefix + "-peer", ignore_errors=True)


def testpmd_cmd(lcores, prefix, vdev, pmd=None, eal=()):
    cmd = ["stdbuf", "-oL", "dpdk-testpmd"]
    cmd += ["--lcores" if "@" in lcores else "-l", lcores]
    cmd += helper("eal-mem.sh", "args", "1024").split()
    cmd += ["--no-pci", "--file-prefix=" + prefix] + list(eal)
    if pmd:
        cmd += ["-d", helper("eal-plugin.sh", pmd)]
    cmd += ["--vdev", vdev, "--", "-i", "--nb-cores=1", "--rxq=1", "--txq=1",
            "--forward-mode=io", "--total-num-mbufs=8192", "--disable-link-check"]
    print("+ " + " ".join(cmd), file=sys.stderr)
    return cmd


def start_peer(a, prefix):
    """The device side: forwarding once its prompt came back (its port is
    started, so the server socket exists)."""
    t = Testpmd(testpmd_cmd(a.peer_lcores, prefix, a.peer_vdev))
    try:
        t.until_prompt()
        t.cmd("start")
    except Exception:
        t.close()
        raise
    return t


def measure(a, prefix, wait_link):
    t = Testpmd(testpmd_cmd(a.lcores, prefix, a.vdev, a.pmd, a.eal))
    try:
        t0 = time.monotonic()
        t.until_prompt()
        ready = time.monotonic() - t0
        if wait_link and not t.link_up():
            raise RuntimeError("the link to the peer did not come up")
        t.cmd("start tx_first %d" % a.bursts)
        ts = time.monotonic()
        time.sleep(max(0.0, a.early - (time.monotonic() - ts)))
        early, te = t.rx_packets()
        time.sleep(max(0.0, a.warm - (time.monotonic() - ts)))
        n1, t1 = t.rx_packets()
        time.sleep(a.secs)
        n2, t2 = t.rx_packets()
    finally:
        t.close()
        # EAL's runtime directory (the telemetry socket)
        shutil.rmtree("/var/run/dpdk/" + prefix, ignore_errors=True)
    print("pps=%.0f early=%d early_at=%.3f ready=%.2f" %
          ((n2 - n1) / (t2 - t1), early, te - ts, ready))
    return 0


if __name__ == "__main__":
    sys.exit(main())
