#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The rte_flow items and actions the parser accepts (its ITEM( table and the
# ACTION() list next to act_one()) must be exactly those in features/tally.ini
# (void and indirect are implied and not listed there).
set -u
cd "$(dirname "$0")/.."
src=drivers/net/tally/tally_flow_parse.c
ini=doc/guides/nics/features/tally.ini
section() {
	awk -v s="[$1]" '$0 == s {on = 1; next} /^\[/ {on = 0} on && /=/ {print $1}' "$ini" | sort
}
code_items=$(grep -o '^	ITEM\(_R\)\?([A-Z0-9_]*, [a-z0-9_]*' "$src" | sed 's/.*, //' | sort)
code_actions=$(grep -o 'ACTION([a-z_]*)' "$src" | sed 's/ACTION(\(.*\))/\1/' | grep -v -x -e void -e indirect | sort)
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
# every action named in the ACTION() list must be handled in act_one()
for a in $code_actions void indirect; do
	grep -q "RTE_FLOW_ACTION_TYPE_$(echo "$a" | tr a-z A-Z):" "$src" ||
		{ echo "check-flow-doc: ACTION($a) listed but not handled"; rc=1; }
done
[ $rc -eq 0 ] && echo "check-flow-doc: $(echo $code_items | wc -w) items, $(echo $code_actions | wc -w) actions match $ini"
exit $rc
