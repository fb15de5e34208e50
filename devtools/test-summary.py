#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Summarise a meson testlog.json: one line 'N passed, N failed[, N skipped]';
exit status 1 if anything failed or no test ran."""
import json
import sys

passed = failed = skipped = 0
with open(sys.argv[1]) as f:
    for line in f:
        r = json.loads(line)["result"]
        if r in ("OK", "EXPECTEDFAIL"):
            passed += 1
        elif r == "SKIP":
            skipped += 1
        else:
            failed += 1
            print("failed: " + json.loads(line)["name"])
summary = "%d passed, %d failed" % (passed, failed)
if skipped:
    summary += ", %d skipped" % skipped
print(summary)
sys.exit(1 if failed or passed == 0 else 0)
