#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""What Open vSwitch and the Tally ports say, as lines a script can compare.

ovs-flows.py megaflows < dump     "dpctl/dump-flows -m" output, one line per
                                  megaflow: UFID PORT KIND OFFLOADED PACKETS
                                  BYTES DP ACTIONS (OFFLOADED: yes, partial
                                  or no; DP: ovs or dpdk)
ovs-flows.py openflow < dump      "ovs-ofctl dump-flows" output, one line per
                                  rule: MATCH N_PACKETS N_BYTES
ovs-flows.py refused < vs.log     each rte_flow OVS failed to create, as
                                  KIND<tab>the PMD's cause: KIND is the
                                  megaflow kind of its pattern, or
                                  "transfer" for a full-offload try
ovs-flows.py telemetry SOCKET CMD a DPDK telemetry reply (JSON) to CMD
ovs-flows.py tally-flows SOCKET   the sum of /tally/flows "flows" over the
                                  Tally ports of the process

A kind names the headers a megaflow matches: arp, ipv4, ipv4-udp (the
protocol when the megaflow matches it), ipv4-frag-first, ipv4-frag-later,
the same for ipv6, and vlan- before any of them.
"""
import json
import re
import socket
import sys

PROTOS = {"1": "icmp", "6": "tcp", "17": "udp", "58": "icmp6"}


def _field(key, name):
    m = re.search(r"\b" + name + r"=([^,)]*)", key)
    return m.group(1) if m else None


def _l3(key, l3):
    m = re.search(r"\b" + l3 + r"\(([^)]*)\)", key)
    if m is None:
        return None
    body = m.group(1)
    kind = l3
    proto = _field(body, "proto")
    if proto is not None and not proto.endswith("/0") and \
            not proto.endswith("/0x0"):
        kind += "-" + PROTOS.get(proto.split("/")[0], "proto" + proto)
    frag = _field(body, "frag")
    if frag in ("first", "later"):
        kind = l3 + "-frag-" + frag
    return kind


def megaflow_kind(key):
    """The kind of a megaflow key (dpctl/dump-flows syntax)."""
    vlan = "vlan-" if re.search(r"\bvlan\(", key) else ""
    for l3 in ("ipv4", "ipv6"):
        k = _l3(key, l3)
        if k is not None:
            return vlan + k
    m = re.findall(r"eth_type\((0x[0-9a-f]+)", key)
    et = m[-1] if m else "none"
    return vlan + {"0x0806": "arp"}.get(et, "eth-" + et)


def megaflows(text):
    out = []
    for line in text.splitlines():
        m = re.match(r"\s*ufid:(\S+?),", line)
        if m is None:
            continue
        port = re.search(r"in_port\(([^)]*)\)", line)
        pk = re.search(r"packets:(\d+)", line)
        by = re.search(r"bytes:(\d+)", line)
        off = re.search(r"offloaded:(\w+)", line)
        dp = re.search(r"dp:(\w+)", line)
        act = re.search(r"actions:(\S+)", line)
        out.append("%s %s %s %s %s %s %s %s" % (
            m.group(1), port.group(1) if port else "?",
            megaflow_kind(line.split(" packets:")[0]),
            off.group(1) if off else "no", pk.group(1) if pk else "0",
            by.group(1) if by else "0", dp.group(1) if dp else "?",
            act.group(1) if act else "?"))
    return out


def openflow(text):
    out = []
    for line in text.splitlines():
        pk = re.search(r"n_packets=(\d+)", line)
        by = re.search(r"n_bytes=(\d+)", line)
        if pk is None or by is None:
            continue
        match = line.split(" actions=")[0].split(", ")[-1].strip()
        out.append("%s %s %s" % (match, pk.group(1), by.group(1)))
    return out


def pattern_kind(line):
    """The kind of an rte_flow pattern in OVS's testpmd-like log syntax."""
    if "transfer" in line:
        return "transfer"
    pat = line.split(" pattern ", 1)[-1].split(" actions ", 1)[0]
    items = [i.strip().split(" ", 1) for i in pat.split("/")]
    names = [i[0] for i in items if i and i[0]]
    vlan = "vlan-" if "vlan" in names else ""
    for l3, l4s in (("ipv4", ("udp", "tcp", "icmp")),
                    ("ipv6", ("udp", "tcp", "icmp6", "ipv6_frag_ext"))):
        if l3 not in names:
            continue
        body = dict((i[0], i[1] if len(i) > 1 else "") for i in items)[l3]
        if "ipv6_frag_ext" in names or "has_frag_ext is 1" in body:
            spec = re.search(r"frag_data spec (0x[0-9a-f]+)", pat)
            later = spec is not None and int(spec.group(1), 16) & 0xfff8
            return vlan + l3 + ("-frag-later" if later else "-frag-first")
        fo = re.search(r"fragment_offset (?:is|spec) (0x[0-9a-f]+)", body)
        if fo is not None and int(fo.group(1), 16) & 0x1fff:
            return vlan + l3 + "-frag-later"
        if fo is not None and int(fo.group(1), 16) & 0x2000:
            return vlan + l3 + "-frag-first"
        l4 = [n for n in names if n in l4s]
        return vlan + l3 + ("-" + l4[0] if l4 else "")
    et = re.search(r"\btype (?:is|spec) (0x[0-9a-f]+)", pat)
    if et is not None and et.group(1) == "0x0806":
        return vlan + "arp"
    return vlan + "eth" + ("-" + et.group(1) if et else "")


def refused(lines):
    """OVS logs the PMD's error ("rte_flow creation failed: N (cause).")
    right before the rule it tried ("Failed flow: ... flow create ...")."""
    out, cause = [], "?"
    for line in lines:
        m = re.search(r"rte_flow creation failed: (.*)\.$", line.rstrip())
        if m:
            cause = m.group(1)
        elif "Failed flow:" in line and "flow create" in line:
            out.append("%s\t%s" % (pattern_kind(line.rstrip()), cause))
            cause = "?"
    return out


def telemetry(path, cmd):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    s.settimeout(5)
    s.connect(path)
    info = json.loads(s.recv(1 << 16).decode())
    s.send(cmd.encode())
    reply = json.loads(s.recv(info.get("max_output_len", 1 << 16)).decode())
    s.close()
    return reply


def tally_flows(path):
    ports = telemetry(path, "/tally/ports")["/tally/ports"]
    return sum(telemetry(path, "/tally/flows,%d" % p)["/tally/flows"]["flows"]
               for p in ports)


def main(argv):
    if argv[1:2] == ["megaflows"]:
        print("\n".join(megaflows(sys.stdin.read())))
    elif argv[1:2] == ["openflow"]:
        print("\n".join(openflow(sys.stdin.read())))
    elif argv[1:2] == ["refused"]:
        print("\n".join(refused(sys.stdin)))
    elif len(argv) == 4 and argv[1] == "telemetry":
        print(json.dumps(telemetry(argv[2], argv[3])))
    elif len(argv) == 3 and argv[1] == "tally-flows":
        print(tally_flows(argv[2]))
    else:
        print(__doc__, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
