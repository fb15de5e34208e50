#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# asan.sh: build with AddressSanitizer + UndefinedBehaviorSanitizer into
# build-asan and run every suite there.
set -euo pipefail
cd "$(dirname "$0")/.."
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
exec bash devtools/test.sh build-asan -Db_sanitize=address,undefined -Db_lundef=false
