#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# eal-plugin.sh: a path EAL will load a plugin (-d) from.
#
# EAL refuses a plugin when the file or any directory above it (after
# symlinks) is world-writable, as /tmp is: a clone under /tmp could not load
# its own PMD. Then the plugin is copied, when changed, into a private
# directory, ${XDG_CACHE_HOME:-$HOME/.cache}/tally/plugins/<key>/ (mode
# 0700, one per build directory), and that copy is used. A Tally PMD needs
# nothing else from its build directory (only system libraries). Where no
# such directory can be had, it says why on stderr and fails.
#
# Sourced, it defines:
#   tally_plugin SO      the path to give -d, on stdout
#   tally_world_writable PATH
#                        the first world-writable directory of PATH (or the
#                        file itself), on stdout; status 1 when none
# Run: eal-plugin.sh SO (prints the path, as tally_plugin).

tally_world_writable() {
	local p
	p=$(realpath -e -- "$1") || return 1
	while :; do
		if [ -n "$(find "$p" -maxdepth 0 -perm -0002 ! -type l 2>/dev/null)" ]; then
			echo "$p"
			return 0
		fi
		[ "$p" != / ] || return 1
		p=$(dirname "$p")
	done
}

tally_plugin() {
	local so=$1 real ww base dir key tmp
	real=$(realpath -e -- "$so" 2>/dev/null) || { echo "eal-plugin: no plugin $so" >&2; return 1; }
	ww=$(tally_world_writable "$real") || { echo "$real"; return 0; }
	base="${XDG_CACHE_HOME:-$HOME/.cache}/tally/plugins"
	key=$(dirname "$real" | md5sum | cut -c1-12)
	dir="$base/$key"
	if ! mkdir -p "$dir" 2>/dev/null || ! chmod 0700 "$dir" "$base" 2>/dev/null; then
		echo "eal-plugin: EAL refuses plugins under the world-writable $ww," \
		     "and $dir cannot be made to hold a private copy of $(basename "$real")" >&2
		return 1
	fi
	if ww=$(tally_world_writable "$dir"); then
		echo "eal-plugin: EAL refuses plugins under the world-writable directory" \
		     "$ww: the build and the private copy ($dir) are both under one;" \
		     "set XDG_CACHE_HOME to a directory of your own" >&2
		return 1
	fi
	# a changed plugin replaces the copy in one rename: a process loading
	# it meanwhile sees the old or the new file, never half of one
	if ! cmp -s "$real" "$dir/${real##*/}"; then
		tmp=$(mktemp "$dir/.copy.XXXXXX") || tmp=""
		if [ -z "$tmp" ] || ! cp "$real" "$tmp" || ! chmod 0755 "$tmp" ||
		   ! mv -f "$tmp" "$dir/${real##*/}"; then
			[ -z "$tmp" ] || rm -f "$tmp"
			echo "eal-plugin: cannot copy $real to $dir" >&2
			return 1
		fi
	fi
	echo "$dir/${real##*/}"
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	[ $# -eq 1 ] || { echo "usage: $0 PLUGIN.so" >&2; exit 2; }
	tally_plugin "$1"
fi
