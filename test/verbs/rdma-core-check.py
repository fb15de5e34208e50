#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""rdma-core-check.py EXPECT LOG [MODULE...]

Judges one verbose run of rdma-core's tests (run_tests.py -v) against EXPECT,
the outcome each test must have:

    ok    ID            the test passes
    skip  ID  REASON    the test is skipped, with exactly this message

ID is unittest's test id without the package ("test_qp.QPTest.test_x").
Fails (exit 1) on a failure, an error, an unexpected success, a skip that is
not listed (or with another message), a test listed ok that did not pass, a
listed test that did not run, or a log whose "Ran N tests" does not match
what was read. A listed skip that now passes is reported and accepted (the
list then wants updating). Prints one line per module: ran, ok, skipped,
failed.

The log is unittest's, with the EAL's own lines mixed in: they come on the
same stream and may stand between a test's " ... " and its outcome.
"""
import collections
import re
import sys

HEAD = re.compile(r'^(test\w*) \(tests\.([\w.]+)\)')
OUTCOME = re.compile(r"^(ok|FAIL|ERROR|expected failure|unexpected success|"
                     r"skipped (?P<reason>'.*'|\".*\"))$")
RAN = re.compile(r'^Ran (\d+) tests? in ')


def read_expect(path):
    want = {}
    with open(path) as f:
        for n, line in enumerate(f, 1):
            line = line.strip()
            if not line or line.startswith('#'):
                continue
            parts = line.split(None, 2)
            if parts[0] == 'ok' and len(parts) == 2:
                want[parts[1]] = ('ok', None)
            elif parts[0] == 'skip' and len(parts) == 3:
                want[parts[1]] = ('skip', parts[2])
            else:
                sys.exit(f'{path}:{n}: want "ok ID" or "skip ID REASON"')
    return want


def outcome_of(text):
    """(kind, reason) for a line that is an outcome, else None."""
    m = OUTCOME.match(text.strip())
    if not m:
        return None
    if m.group('reason') is not None:
        r = m.group('reason')[1:-1]
        if m.group('reason')[0] == "'":
            r = r.replace("\\'", "'")
        return ('skip', r)
    return ({'ok': 'ok', 'FAIL': 'fail', 'ERROR': 'error',
             'expected failure': 'xfail',
             'unexpected success': 'xpass'}[m.group(1)], None)


def read_log(path):
    """{id: (kind, reason)} in the order run, and the "Ran N" count."""
    got = collections.OrderedDict()
    ran = None
    cur = None
    with open(path, errors='replace') as f:
        lines = f.read().splitlines()
    for line in lines:
        m = HEAD.match(line)
        if m:
            if cur is not None and cur not in got:
                got[cur] = ('lost', 'no outcome in the log')
            cur = m.group(2)
        m = RAN.match(line)
        if m:
            ran = int(m.group(1))
            break
        if cur is None or cur in got:
            continue
        # the outcome follows " ... " on this line, or stands on a line of
        # its own after the EAL's lines
        if ' ... ' in line:
            o = outcome_of(line.rsplit(' ... ', 1)[1])
        else:
            o = outcome_of(line)
        if o is not None:
            got[cur] = o
    if cur is not None and cur not in got:
        got[cur] = ('lost', 'no outcome in the log')
    return got, ran


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    want = read_expect(sys.argv[1])
    got, ran = read_log(sys.argv[2])
    modules = sys.argv[3:] or sorted({i.split('.')[0] for i in want})
    bad = []
    note = []
    if ran is None:
        bad.append('no "Ran N tests" line: the run did not finish')
    elif ran != len(got):
        bad.append(f'unittest ran {ran} tests, {len(got)} read from the log')
    stats = collections.OrderedDict((m, [0, 0, 0, 0]) for m in modules)
    for tid, (kind, reason) in got.items():
        mod = tid.split('.')[0]
        if mod not in stats:
            bad.append(f'{tid}: not of the modules run ({" ".join(modules)})')
            continue
        s = stats[mod]
        s[0] += 1
        exp = want.get(tid)
        if kind == 'ok':
            s[1] += 1
            if exp is not None and exp[0] == 'skip':
                note.append(f'{tid}: passes now (listed as skipped:'
                            f' "{exp[1]}"); update the list')
        elif kind == 'skip':
            s[2] += 1
            if exp is None:
                bad.append(f'{tid}: skipped "{reason}", not listed')
            elif exp[0] == 'ok':
                bad.append(f'{tid}: skipped "{reason}", must pass')
            elif exp[1] != reason:
                bad.append(f'{tid}: skipped "{reason}", listed reason is'
                           f' "{exp[1]}"')
        else:
            s[3] += 1
            bad.append(f'{tid}: {kind}' + (f' ({reason})' if reason else ''))
    for tid in want:
        if tid.split('.')[0] in stats and tid not in got:
            bad.append(f'{tid}: listed, did not run')
    total = [0, 0, 0, 0]
    print(f'{"module":<12} {"ran":>4} {"ok":>4} {"skipped":>8} {"failed":>7}')
    for mod, s in stats.items():
        print(f'{mod:<12} {s[0]:>4} {s[1]:>4} {s[2]:>8} {s[3]:>7}')
        total = [a + b for a, b in zip(total, s)]
    print(f'{"total":<12} {total[0]:>4} {total[1]:>4} {total[2]:>8}'
          f' {total[3]:>7}')
    need = sum(1 for k, _ in want.values() if k == 'ok')
    if total[1] < need:
        bad.append(f'{total[1]} tests passed, {need} must')
    for n in note:
        print('NOTE ' + n)
    for b in bad:
        print('FAIL ' + b)
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
