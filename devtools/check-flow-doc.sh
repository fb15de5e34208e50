#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The rte_flow items and actions the parser accepts (its ITEM( and ACTION(
# tables, which the parser and the templates read) must be exactly those in
# features/tally.ini, in both directions (void and indirect are implied and
# not listed there).
set -u
cd "$(dirname "$0")/.."
# port rules' tables, and the transfer rules' (their traffic source items,
# their actions)
src="drivers/net/tally/tally_flow_parse.c drivers/net/tally/tally_flow_xfer_parse.c"
ini=doc/guides/nics/features/tally.ini
section() {
	awk -v s="[$1]" '$0 == s {on = 1; next} /^\[/ {on = 0} on && /=/ {print $1}' "$ini" | sort
}
code_items=$(cat $src | grep -o '^	ITEM\(_R\)\?([A-Z0-9_]*, [a-z0-9_]*' | sed 's/.*, //' | sort -u)
code_actions=$(cat $src | grep -o '^	ACTION([A-Z0-9_]*,' | sed 's/.*ACTION(\(.*\),/\1/' | tr 'A-Z' 'a-z' |
	grep -v -x -e void -e indirect | sort -u)
rc=0
if [ "$code_items" != "$(section 'rte_flow items')" ]; then
	echo "check-flow-doc: items differ (code vs $ini):"
	diff <(echo "$code_items") <(section 'rte_flow items')
	rc=1
fi
if [ "$code_actions" != "$(section 'rte_flow actions')" ]; then
	echo "check-flow-doc: actions differ (code vs $ini):"
	diff <(echo "$code_actions") <(section 'rte_flow actions')
	rc=1
fi
[ $rc -eq 0 ] && echo "check-flow-doc: $(echo $code_items | wc -w) items, $(echo $code_actions | wc -w) actions match $ini"
exit $rc
