#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""dpdk-pmd-dir.py LIBDIR [OVERRIDE]: where the installed DPDK's EAL loads
plugins from by default (RTE_EAL_PMD_PATH), and the path of that directory
relative to LIBDIR (our library directory, for the symlinks there).

Prints three lines: the absolute plugin directory, the relative path, the
DPDK driver ABI major (23 for 22.11), which names the library file.
Order: OVERRIDE if given; `pkg-config --variable=pmdsdir libdpdk`; the
DPDK_PLUGIN_PATH string compiled into librte_eal (that is RTE_EAL_PMD_PATH);
<dpdk libdir>/dpdk/pmds-<librte_eal's ABI>. Fails when none is found."""
import glob
import os
import re
import subprocess
import sys


def pkgvar(name):
    try:
        out = subprocess.run(['pkg-config', '--variable=' + name, 'libdpdk'],
                             capture_output=True, text=True, check=True)
    except (OSError, subprocess.CalledProcessError):
        return ''
    return out.stdout.strip()


def from_eal(libdir):
    for lib in sorted(glob.glob(os.path.join(libdir, 'librte_eal.so.*'))):
        if os.path.islink(lib):
            continue
        with open(lib, 'rb') as f:
            m = re.search(rb'DPDK_PLUGIN_PATH=([^\x00\n]+)', f.read())
        if m:
            return m.group(1).decode()
        abi = lib.split('.so.', 1)[1]
        return os.path.join(libdir, 'dpdk', 'pmds-' + abi)
    return ''


def main():
    libdir = sys.argv[1]
    pmd = sys.argv[2] if len(sys.argv) > 2 and sys.argv[2] else ''
    if not pmd:
        pmd = pkgvar('pmdsdir')
    if not pmd:
        pmd = from_eal(pkgvar('libdir'))
    if not pmd:
        sys.exit('cannot find the DPDK plugin directory: set option pmd_dir')
    m = re.search(r'pmds-(\d+)', pmd)
    abi = m.group(1) if m else ''
    if not abi:
        libs = glob.glob(os.path.join(pkgvar('libdir'), 'librte_eal.so.*.*'))
        abi = libs[0].split('.so.', 1)[1].split('.')[0] if libs else ''
    if not abi:
        sys.exit('cannot find the DPDK ABI version')
    print(pmd)
    print(os.path.relpath(pmd, libdir))
    print(abi)


main()
