#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# top-check.sh TALLY_TOP: run by with-testpmd.sh. tally-top --once (text and
# --json) against the testpmd session with-testpmd.sh set up: exact totals,
# rule order by rate then hits, zero rates once the traffic stopped; bad
# arguments and an unknown prefix fail cleanly.
set -euo pipefail
top=$1
fail=0
out=$("$top" -f "$TALLY_FILE_PREFIX" --once -i 0.2)
echo "$out"
for re in \
	'^port 0: rx 64 pkts 28256 bytes \(0 pkt/s, 0 bit/s\)  tx 0 pkts 0 bytes' \
	'^  flows 4 \(indirect counters 1, matchers 3\)  counter pool 4194304: in use 3, free 4194301, pending reuse 0$' \
	'^  faults 0 \(dma 0, descriptor 0, other 0; last none\)$'; do
	echo "$out" | grep -qE -- "$re" || { echo "FAIL: no line /$re/"; fail=1; }
done
rules=$(echo "$out" | awk '/RULE/ {on=1; next} on {print $1, $4, $5, $6, $7, $8, $9}')
want='2 2 - 32 14272 0 0
0 1 - 16 4912 0 0
1 0 yes 16 9072 0 0'
[ "$rules" = "$want" ] || { echo "FAIL: rules"; echo "$rules"; fail=1; }

"$top" -f "$TALLY_FILE_PREFIX" --once --json -i 0.2 -s bps -n 2 | /usr/bin/python3 -c '
import json, sys
s = json.load(sys.stdin)
p = s["ports"][0]
assert s["sort"] == "bytes" and len(s["ports"]) == 1, s
assert (p["rx_packets"], p["rx_bytes"], p["flows"]) == (64, 28256, 4), p
assert p["counter_pool"] == {"size": 4194304, "in_use": 3, "free": 4194301, "pending_reuse": 0}, p
assert p["faults"]["total"] == 0, p
r = [(x["index"], x["hits"], x["bytes"], x["shared"], x["pps"]) for x in p["rules"]]
assert r == [(2, 32, 14272, 0, 0), (0, 16, 4912, 0, 0)], r
print("ok: --json")' || fail=1

for bad in "-i 0" "-n 65" "-s foo" "-p x" "extra"; do
	rc=0
	# shellcheck disable=SC2086
	"$top" -f "$TALLY_FILE_PREFIX" --once $bad >/dev/null 2>&1 || rc=$?
	[ $rc -eq 2 ] || { echo "FAIL: '$bad': exit $rc, not 2"; fail=1; }
done
set +e
err=$("$top" -f no-such-prefix-$$ --once 2>&1); rc=$?
set -e
[ $rc -eq 1 ] && echo "$err" | grep -q "cannot reach the telemetry socket of 'no-such-prefix-$$'" ||
	{ echo "FAIL: unknown prefix: rc $rc: $err"; fail=1; }
exit $fail
