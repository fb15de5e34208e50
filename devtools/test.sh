#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# test.sh [BUILD_DIR [meson options...]]: set up, build and run every test
# suite (unit, model, steer, dpdk, testpmd, tools, verbs, checks). Ends with one line
# "N passed, N failed[, N skipped]" and exits non-zero on any failure.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
bash devtools/build.sh "$@"
set +e
meson test -C "$build" --num-processes 2 --print-errorlogs
set -e
exec python3 devtools/test-summary.py "$build/meson-logs/testlog.json"
