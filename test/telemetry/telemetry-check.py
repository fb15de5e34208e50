#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""telemetry-check.py: run by with-testpmd.sh. Asks stock dpdk-telemetry.py
for the driver's endpoints and ethdev's /ethdev/dump_priv, and checks every
value against the rules and traffic with-testpmd.sh set up."""
import json
import os
import subprocess
import sys

CMDS = ['/tally/ports', '/tally/flows,0', '/tally/counters,0', '/tally/faults,0',
        '/tally/top,0', '/tally/top,0,2', '/tally/top,7', '/tally/top,0,65',
        '/tally/flows,x', '/ethdev/dump_priv,0']
TOP3 = {'port': 0, 'rules': 3, 'index': [2, 0, 1], 'group': [0, 0, 0],
        'priority': [1, 0, 0], 'counter': [2, 1, 0], 'shared': [0, 0, 1],
        'hits': [32, 16, 16], 'bytes': [14272, 4912, 9072]}
EXPECT = {
    '/tally/ports': [0],
    '/tally/flows,0': {'port': 0, 'flows': 4, 'indirect_counters': 1,
                       'matchers': 3, 'idle_matchers': 0, 'isolated': 0},
    '/tally/counters,0': {'port': 0, 'size': 4194304, 'in_use': 3,
                          'free': 4194301, 'pending_reuse': 0},
    '/tally/faults,0': {'port': 0, 'total': 0, 'dma': 0, 'descriptor': 0,
                        'other': 0, 'last_cause': 'none', 'last_addr': '0x0',
                        'rx_cqe_bad_len': 0, 'rx_cqe_bad_chain': 0},
    '/tally/top,0': TOP3,
    '/tally/top,0,2': {k: (v[:2] if isinstance(v, list) else v)
                       for k, v in dict(TOP3, rules=2).items()},
    '/tally/top,7': None,		# no such port
    '/tally/top,0,65': None,		# n above 64
    '/tally/flows,x': None,
}
DUMP = ['tally port 0 (net_tally0): spec 2.3 via model',
        '  rx_packets       64', '  rx_bytes         28256',
        '  flows 4 indirect counters 1 matchers 3 (idle 0)',
        '  counter pool 4194304: in use 3 free 4194301 pending reuse 0']


def main():
    out = subprocess.run(['dpdk-telemetry.py', '-f', os.environ['TALLY_FILE_PREFIX']],
                         input='\n'.join(CMDS) + '\n', capture_output=True,
                         text=True, check=True).stdout
    replies = [json.loads(line) for line in out.splitlines() if line.startswith('{')]
    if len(replies) != len(CMDS):
        sys.exit('FAIL: %d replies to %d commands:\n%s' % (len(replies), len(CMDS), out))
    fail = 0
    for cmd, rep in zip(CMDS, replies):
        got = rep[cmd.split(',')[0]]
        if cmd == '/ethdev/dump_priv,0':
            lines = got.splitlines()
            missing = [l for l in DUMP if l not in lines]
            ok = not missing
            got = missing or 'all lines present'
        else:
            ok = got == EXPECT[cmd]
        print('%s: %s %s' % ('ok' if ok else 'FAIL', cmd, json.dumps(got)))
        fail |= not ok
    return fail


sys.exit(main())
