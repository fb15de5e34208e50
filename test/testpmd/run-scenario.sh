#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# run-scenario.sh PMD_SO DATA_DIR SCENARIO
#
# A scenario file has three parts:
#   vdev: <devargs after net_tally0,>     (@DATA@ = DATA_DIR, @WORK@ = temp dir)
#   args: <extra testpmd application args>
#   cmds:            then testpmd commands, one per line ("sleep N" pauses)
#   expect:          then extended regexes; each must match a line of the
#                    output after the line the previous one matched
#   absent:          then regexes that must match no line at all
set -euo pipefail
pmd=$1 data=$2 scen=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
subst() { sed -e "s|@DATA@|$data|g" -e "s|@WORK@|$work|g"; }
vdev=$(sed -n 's/^vdev: *//p' "$scen" | subst)
args=$(sed -n 's/^args: *//p' "$scen" | subst)
awk '/^cmds:/ {on=1; next} /^(expect|absent):/ {on=0} on' "$scen" | subst > "$work/cmds"
awk '/^expect:/ {on=1; next} /^(cmds|absent):/ {on=0} on && NF' "$scen" > "$work/expect"
awk '/^absent:/ {on=1; next} /^(cmds|expect):/ {on=0} on && NF' "$scen" > "$work/absent"
# shellcheck disable=SC2086
"$(dirname "$0")/testpmd-session.sh" "$pmd" "net_tally0${vdev:+,$vdev}" \
	"$work/cmds" $args > "$work/out" || true
line=0
fail=0
while IFS= read -r re; do
	n=$(tail -n +"$((line + 1))" "$work/out" | grep -n -m1 -E -- "$re" | cut -d: -f1 || true)
	if [ -z "$n" ]; then
		echo "FAIL: no line matching /$re/ after output line $line"
		fail=1
		break
	fi
	line=$((line + n))
	echo "ok: /$re/ at line $line"
done < "$work/expect"
while IFS= read -r re; do
	if grep -q -E -- "$re" "$work/out"; then
		echo "FAIL: unexpected line matching /$re/: $(grep -m1 -E -- "$re" "$work/out")"
		fail=1
	fi
done < "$work/absent"
if [ $fail -ne 0 ]; then
	echo "---- testpmd output ----"
	cat "$work/out"
	exit 1
fi
