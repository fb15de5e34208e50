#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# demo.sh: set up, build, then show what Tally is for, on one screen:
#  1. stock dpdk-testpmd on net_tally0, its wire replaying test/data/demo.pcap
#     (16 frames each of IPv4/UDP, VLAN/IPv4/TCP, IPv6/UDP, IPv4/ICMP):
#     rte_flow rules with COUNT and one shared indirect COUNT, `flow query`
#     with the exact hits and bytes;
#  2. a legacy verbs program (examples/verbs_counters/verbs_udp_count.c,
#     rdma-core headers only, linked with libtally_verbs) counting the same
#     class (eth / ipv4 / udp) of the same traffic through ibv_read_counters:
#     the same values as rte_flow rule #0;
#  3. tally-top --once on the running testpmd (taken in step 1).
# The verbs program runs in a second step, on its own device: a device has
# one driver at a time, and testpmd owns the first. Its device is the device
# process (tally-nic) holding its wire until the program's flow exists, so
# the program sees the whole capture, as testpmd did.
# Exits non-zero unless rule #0 and ibv_read_counters agree.
# EAL's memory follows TALLY_TEST_MEM (devtools/eal-mem.sh: hugepages with
# IOVA as PA by default). Where hugepages cannot be had and TALLY_TEST_MEM is
# unset, the demo says why and runs with --no-huge.
# demo.sh --built DIR: use the build in DIR as it is (the test suite does;
# there a memory mode that cannot run is a skip, exit 77).
set -euo pipefail
cd "$(dirname "$0")/.."
. devtools/eal-mem.sh
if [ "${1:-}" = --built ]; then
	b=$(cd "$2" && pwd)
	tally_eal_mem_skip
else
	bash devtools/build.sh build
	b=$PWD/build
	if [ -z "${TALLY_TEST_MEM:-}" ] && ! why=$(tally_eal_mem_why_not); then
		echo "demo: hugepages: $why; running with --no-huge" >&2
		export TALLY_TEST_MEM=nohuge
	fi
fi
pcap=$PWD/test/data/demo.pcap
work=$(mktemp -d)
nic_pid=""
cleanup() {
	local rc=$?
	[ -z "$nic_pid" ] || { kill "$nic_pid" 2>/dev/null; wait "$nic_pid" 2>/dev/null || true; }
	rm -rf "$work" "/var/run/dpdk/tally-demo-$$"
	# every way out but success and skip says so
	[ $rc -eq 0 ] || [ $rc -eq 77 ] || echo "demo: failed (exit status $rc)" >&2
}
trap cleanup EXIT

# ---- 1 + 3: testpmd with rte_flow counters, tally-top on it
cat > "$work/queries" <<'Q'
#!/usr/bin/env bash
testpmd-cmd stop
testpmd-cmd flow query 0 0 count
testpmd-cmd flow query 0 2 count
testpmd-cmd flow indirect_action 0 query 5
"$TALLY_TOP" -f "$TALLY_FILE_PREFIX" --once -i 0.5 -n 5 > "$TALLY_TOP_OUT"
Q
chmod +x "$work/queries"
TALLY_TOP=$b/app/tally-top/tally-top TALLY_TOP_OUT=$work/top TESTPMD_LOG=$work/testpmd \
	test/telemetry/with-testpmd.sh "$b/drivers/net/tally/librte_net_tally.so" \
	"$PWD/test/data" "$work/queries"

# ---- 2: the verbs program on the same capture
"$b/app/tally-nic/tally-nic" --socket "$work/nic.sock" --hold-wire --log-level 2 \
	"wire=pcap,rx_pcap=$pcap" >"$work/nic.log" 2>&1 &
nic_pid=$!
for _ in $(seq 100); do [ -S "$work/nic.sock" ] && break; sleep 0.05; done
TALLY_VERBS_EAL_ARGS="-l 0 $(tally_eal_mem 512) --no-pci --no-telemetry --file-prefix=tally-demo-$$ \
--vdev net_tally0,dev=$work/nic.sock --log-level=pmd.net.tally*:notice" \
	"$b/examples/verbs_counters/verbs_udp_count" 3 >"$work/verbs" 2>&1 &
verbs_pid=$!
for _ in $(seq 300); do		# the program has its flow: let the wire go
	grep -q '^flow ready$' "$work/verbs" && break
	kill -0 "$verbs_pid" 2>/dev/null || break
	sleep 0.05
done
kill -USR2 "$nic_pid"
wait "$verbs_pid" || { cat "$work/verbs"; exit 1; }

# ---- the screen
echo
echo "== 1. testpmd, net_tally0, wire: test/data/demo.pcap =="
# each command with its answer (testpmd answers in order)
mapfile -t made < <(grep -E '^(Indirect action|Flow rule) #[0-9]+ created$' "$work/testpmd")
mapfile -t vals < <(grep -E '^ (hits|bytes): ' "$work/testpmd")
mapfile -t cmds < <(sed -n 's/^.*## \(flow .*\)$/\1/p' "$work/testpmd")
i=0 j=0
for c in "${cmds[@]}"; do
	echo "  testpmd> $c"
	case "$c" in
	*create*) echo "    ${made[i]:-?}"; i=$((i + 1)) ;;
	*query*) echo "   ${vals[j]:-?}  ${vals[j + 1]:-?}"; j=$((j + 2)) ;;
	esac
done
echo
echo "== 2. legacy verbs program, same traffic, flow eth / ipv4 / udp (= rule #0) =="
sed 's/^/  /' "$work/verbs" | grep -v '^  EAL\|^  flow ready$'
echo
echo "== 3. tally-top --once on that testpmd =="
sed 's/^/  /' "$work/top"
echo
q="${vals[0]# } ${vals[1]# }"
v=$(sed -n 's/^ibv_read_counters: packets \([0-9]*\) bytes \([0-9]*\)$/hits: \1 bytes: \2/p' "$work/verbs")
if [ -n "$v" ] && [ "$q" = "$v" ]; then
	echo "rte_flow rule #0 and ibv_read_counters agree: $q"
else
	echo "MISMATCH: rte_flow rule #0 '$q', ibv_read_counters '$v'"
	exit 1
fi
