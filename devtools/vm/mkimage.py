#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Guest image helpers for devtools/vm-test.sh (no root, no cpio needed).

  mkimage.py vmlinux VMLINUZ OUT
      Cut the xz payload out of a bzImage and decompress it into an ELF
      vmlinux (what the kernel's scripts/extract-vmlinux does). QEMU boots
      it directly through its PVH note, without the ~7 s of decompression
      under TCG.

  mkimage.py initramfs ROOTDIR OUT
      A gzip'ed newc cpio of ROOTDIR (owner root, modes kept) plus the
      /dev/console node the kernel opens for init.

  mkimage.py closure MODULES_DEP MODULE...
      Print the module files (paths relative to the modules directory) the
      given modules need, dependencies first, from a modules.dep.
"""
import gzip
import lzma
import os
import stat
import sys

XZ_MAGIC = b"\xfd7zXZ\x00"


def vmlinux(src, out):
    with open(src, "rb") as f:
        img = f.read()
    pos = img.find(XZ_MAGIC)
    while pos >= 0:
        d = lzma.LZMADecompressor(format=lzma.FORMAT_XZ)
        try:
            elf = d.decompress(img[pos:])
        except lzma.LZMAError:
            elf = b""
        if elf[:4] == b"\x7fELF":
            tmp = "%s.%d.tmp" % (out, os.getpid())
            with open(tmp, "wb") as f:
                f.write(elf)
            os.rename(tmp, out)
            return 0
        pos = img.find(XZ_MAGIC, pos + 1)
    sys.stderr.write("mkimage: no xz-compressed ELF kernel in %s\n" % src)
    return 1


def cpio_entry(out, ino, name, mode, data=b"", rdev=(0, 0), nlink=1):
    name_b = name.encode() + b"\0"
    hdr = "070701%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X" % (
        ino, mode, 0, 0, nlink, 0, len(data), 0, 0, rdev[0], rdev[1],
        len(name_b), 0)
    out.write(hdr.encode() + name_b)
    out.write(b"\0" * ((4 - (110 + len(name_b)) % 4) % 4))
    out.write(data)
    out.write(b"\0" * ((4 - len(data) % 4) % 4))


def initramfs(root, out):
    ino = 1
    tmp = "%s.%d.tmp" % (out, os.getpid())
    with gzip.open(tmp, "wb", compresslevel=6) as f:
        for d, dirs, files in os.walk(root):
            dirs.sort()
            for n in [""] + sorted(dirs) + sorted(files):
                if n == "" and d != root:
                    continue
                p = os.path.join(d, n) if n else d
                rel = os.path.relpath(p, root)
                st = os.lstat(p)
                if stat.S_ISLNK(st.st_mode):
                    data = os.readlink(p).encode()
                elif stat.S_ISREG(st.st_mode):
                    with open(p, "rb") as g:
                        data = g.read()
                else:
                    data = b""
                cpio_entry(f, ino, rel, st.st_mode, data,
                           nlink=2 if stat.S_ISDIR(st.st_mode) else 1)
                ino += 1
        cpio_entry(f, ino, "dev/console", stat.S_IFCHR | 0o600, rdev=(5, 1))
        cpio_entry(f, 0, "TRAILER!!!", 0)
    os.rename(tmp, out)
    return 0


def closure(dep_file, names):
    deps = {}
    by_name = {}
    with open(dep_file) as f:
        for line in f:
            mod, _, rest = line.partition(":")
            deps[mod] = rest.split()
            base = os.path.basename(mod).split(".ko")[0]
            by_name[base.replace("-", "_")] = mod
    order, seen = [], set()

    def visit(m):
        if m in seen:
            return
        seen.add(m)
        for d in deps.get(m, []):
            visit(d)
        order.append(m)
    for n in names:
        m = by_name.get(n.replace("-", "_"))
        if m is None:
            sys.stderr.write("mkimage: module %s not in %s\n" % (n, dep_file))
            return 1
        visit(m)
    print("\n".join(order))
    return 0


def main(argv):
    if len(argv) >= 4 and argv[1] == "vmlinux":
        return vmlinux(argv[2], argv[3])
    if len(argv) == 4 and argv[1] == "initramfs":
        return initramfs(argv[2], argv[3])
    if len(argv) >= 4 and argv[1] == "closure":
        return closure(argv[2], argv[3:])
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
