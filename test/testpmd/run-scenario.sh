#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# run-scenario.sh PMD_SO DATA_DIR SCENARIO
#
# A scenario file has three parts:
#   vdev: <devargs after net_tally0,>     (@DATA@ = DATA_DIR, @WORK@ = temp dir,
#         @MEMBER@ = the bonding PMD's member devarg: slave before DPDK 23.11)
#   eal:  <more EAL args after it: more ports, a bonding or fail-safe vdev>
#   args: <extra testpmd application args>
#   cmds:            then testpmd commands, one per line ("sleep N" pauses)
#   expect:          then extended regexes; each must match a line of the
#                    output after the line the previous one matched
#   absent:          then regexes that must match no line at all
#   check:           then shell commands run after testpmd exits (@TOOLS@ =
#                    devtools/); each must succeed
#
# Exit 77 (skipped) where the memory mode of TALLY_TEST_MEM cannot run
# (devtools/eal-mem.sh).
set -euo pipefail
pmd=$1 data=$2 scen=$3
tools=$(cd "$(dirname "$0")/../../devtools" && pwd)
. "$tools/eal-mem.sh"
tally_eal_mem_skip
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
member=member
dpdk=$(pkg-config --modversion libdpdk 2>/dev/null || echo 22.11)
[ "$(printf '%s\n' "$dpdk" 23.11 | sort -V | head -1)" = 23.11 ] || member=slave
subst() {
	sed -e "s|@DATA@|$data|g" -e "s|@WORK@|$work|g" -e "s|@TOOLS@|$tools|g" \
	    -e "s|@MEMBER@|$member|g"
}
vdev=$(sed -n 's/^vdev: *//p' "$scen" | subst)
args=$(sed -n 's/^args: *//p' "$scen" | subst)
TALLY_TP_EAL=$(sed -n 's/^eal: *//p' "$scen" | subst)
export TALLY_TP_EAL
part() {
	awk -v p="$1:" '$0 == p {on=1; next} /^(cmds|expect|absent|check):$/ {on=0} on && NF' "$scen"
}
part cmds | subst > "$work/cmds"
part expect > "$work/expect"
part absent > "$work/absent"
part check | subst > "$work/check"
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
while IFS= read -r cmd; do
	if ! bash -c "$cmd"; then
		echo "FAIL: check failed: $cmd"
		fail=1
	fi
done < "$work/check"
if [ $fail -ne 0 ]; then
	echo "---- testpmd output ----"
	cat "$work/out"
	exit 1
fi
