#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# build.sh [BUILD_DIR [meson options...]]: install what is missing, configure
# and build. Warnings are errors.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
shift || true
sdk=$(bash devtools/setup.sh | tail -1)
if [ -f "$build/build.ninja" ]; then
	meson configure "$build" -Ddpdk_sdk="$sdk" "$@" >/dev/null
else
	meson setup "$build" -Ddpdk_sdk="$sdk" "$@" >/dev/null
fi
ninja -C "$build" >/dev/null || ninja -C "$build"
# A build directory from before the PMD had a version kept the unversioned
# library in ninja's log: regeneration deletes meson's librte_net_tally.so
# symlink as a stale output. Forget the old entry, let meson make the link.
pmd="$build/drivers/net/tally/librte_net_tally.so"
if [ -e "$pmd.23" ] && [ ! -e "$pmd" ]; then
	ninja -C "$build" -t recompact
	meson setup --reconfigure "$build" >/dev/null
fi
echo "build: $build ready" >&2
