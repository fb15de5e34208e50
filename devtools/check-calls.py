#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""check-calls.py BUILD_DIR [DIR...]: the .c files of a directory call each
other in layers, never in a circle; and no .c file is over MAX_LINES lines
without a reason stated in its header comment ("Size: ...").

The call graph is read from the built objects: file A calls file B when an
object of A leaves undefined a global function that B's object defines. A strongly connected group of two or
more files is a circle: each is printed with one edge that closes it.

--order prints each directory's files bottom-up (what calls nothing of the
directory first). --self-test checks the checker on a made-up graph.
"""
import os
import subprocess
import sys

DIRS = ["drivers/net/tally", "lib/steer", "lib/model", "lib/hal", "lib/plat",
        "lib/verbs"]
MAX_LINES = 900


def symbols(obj):
    """(defined globals, undefined) of an object file"""
    out = subprocess.run(["nm", "-P", obj], check=True, capture_output=True,
                         text=True).stdout
    defined, undef = set(), set()
    for line in out.splitlines():
        f = line.split()
        if len(f) < 2:
            continue
        name, kind = f[0], f[1]
        if kind == "U":
            undef.add(name)
        elif kind in "Ti":
            defined.add(name)
    return defined, undef


def objects(build, d):
    """{source basename: object path} of directory d's own targets"""
    found = {}
    base = os.path.join(build, d)
    if not os.path.isdir(base):
        return found
    for sub in sorted(os.listdir(base)):
        if not sub.endswith(".p"):
            continue
        for o in sorted(os.listdir(os.path.join(base, sub))):
            if o.endswith(".c.o"):
                found.setdefault(o[:-2], os.path.join(base, sub, o))
    return found


def graph(build, d, sources):
    objs = objects(build, d)
    syms = {}
    for s in sources:
        b = os.path.basename(s)
        if b in objs:
            syms[b] = symbols(objs[b])
    owner = {}
    for b, (defined, _) in syms.items():
        for n in defined:
            owner[n] = b
    edges = {b: {} for b in syms}
    for b, (_, undef) in syms.items():
        for n in undef:
            o = owner.get(n)
            if o is not None and o != b:
                edges[b].setdefault(o, n)
    return edges


def sccs(edges):
    """Tarjan: strongly connected components, in reverse topological order"""
    index, low, on, stack, out = {}, {}, set(), [], []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(edges[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(edges):
        if v not in index:
            visit(v)
    return out


def circles(edges):
    bad = []
    for comp in sccs(edges):
        if len(comp) < 2:
            continue
        members = set(comp)
        lines = []
        for a in comp:
            for b, sym in sorted(edges[a].items()):
                if b in members:
                    lines.append("    %s -> %s (%s)" % (a, b, sym))
        bad.append((comp, lines))
    return bad


def size_problems(sources):
    bad = []
    for s in sources:
        with open(s, encoding="utf-8", errors="replace") as f:
            text = f.read()
        n = text.count("\n")
        head = text[:text.find("#include")] if "#include" in text else text
        if n > MAX_LINES and "Size:" not in head:
            bad.append("%s: %d lines, over %d with no 'Size:' reason in its header"
                       % (s, n, MAX_LINES))
    return bad


def self_test():
    e = {"a.c": {"b.c": "f"}, "b.c": {"c.c": "g"}, "c.c": {}}
    assert circles(e) == []
    e["c.c"]["a.c"] = "h"
    got = circles(e)
    assert len(got) == 1 and got[0][0] == ["a.c", "b.c", "c.c"], got
    print("check-calls: self-test ok")
    return 0


def main(argv):
    if "--self-test" in argv:
        return self_test()
    order = "--order" in argv
    args = [a for a in argv[1:] if not a.startswith("--")]
    if not args:
        print(__doc__, file=sys.stderr)
        return 2
    build, dirs = args[0], args[1:] or DIRS
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    os.chdir(root)
    rc = 0
    for d in dirs:
        sources = sorted(os.path.join(d, f) for f in os.listdir(d) if f.endswith(".c"))
        edges = graph(build, d, sources)
        if not edges:
            print("check-calls: %s: no objects in %s" % (d, build), file=sys.stderr)
            rc = 1
            continue
        for comp, lines in circles(edges):
            print("check-calls: %s: files that call each other in a circle: %s"
                  % (d, " ".join(comp)))
            print("\n".join(lines))
            rc = 1
        if order:
            print("%s (bottom first):" % d)
            for comp in sccs(edges):
                print("    " + " ".join(comp))
        for p in size_problems(sources):
            print("check-calls: " + p)
            rc = 1
    if rc == 0:
        print("check-calls: no circles in %s; no file over %d lines without a reason"
              % (" ".join(dirs), MAX_LINES))
    return rc


if __name__ == "__main__":
    sys.exit(main(sys.argv))
