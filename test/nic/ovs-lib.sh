# SPDX-License-Identifier: BSD-3-Clause
# ovs-lib.sh: Open vSwitch (the Debian openvswitch-switch-dpdk build) with
# Tally ports, run in a private directory and a network namespace of its own.
# Sourced by the ovs-*.sh scenarios:
#
#   ovs_enter_netns "$0" "$@"   re-executes the script in a new network
#                               namespace (the netdev datapath makes a tap
#                               device); skips (77) when none can be made
#   ovs_require                 skips (77) when OVS with DPDK is not installed
#   ovs_setup PMD_SO            the plugin path ($pmd), the private directory
#                               ($d, OVS_* exported), ovs-vsctl as "${V[@]}",
#                               a cleanup trap (calls ovs_cleanup_hook first
#                               when the script defines it)
#   ovs_mem auto|huge|nohuge    EAL memory arguments ($mem): huge pages (OVS
#                               adds --in-memory), or --no-huge --legacy-mem
#   ovs_start EAL_ARGS [KEY=VALUE...]
#                               ovsdb-server, other_config (dpdk-init, lcore
#                               and pmd masks, dpdk-extra = -d PMD EAL_ARGS
#                               $mem, and the KEY=VALUE given), ovs-vswitchd
#   ovs_stop                    asks ovs-vswitchd to exit, checks it did and
#                               that its log has no crash
#   check WHAT CMD...           PASS/FAIL line; a failure sets fail=1
#   wait_for SECONDS CMD...     until CMD succeeds
#   ovs_log_tail                the log's warnings and errors, at the end
# shellcheck shell=bash
# shellcheck disable=SC2034 # fail, pmd, mem, V: read by the scenarios

OVS_VSWITCHD=/usr/lib/openvswitch-switch-dpdk/ovs-vswitchd-dpdk
OVS_APPCTL=(ovs-appctl -t ovs-vswitchd-dpdk)
fail=0

ovs_enter_netns() {
	[ -z "${TALLY_OVS_NETNS:-}" ] || return 0
	if TALLY_OVS_NETNS=1 unshare --net true 2>/dev/null; then
		TALLY_OVS_NETNS=1 exec unshare --net "$@"
	fi
	echo "SKIP: no network namespace of our own (not root?)" >&2
	exit 77
}

ovs_require() {
	if [ ! -x "$OVS_VSWITCHD" ] || ! command -v ovsdb-server >/dev/null; then
		echo "SKIP: openvswitch-switch-dpdk is not installed (devtools/setup.sh installs it)" >&2
		exit 77
	fi
}

ovs_cleanup() {
	if declare -F ovs_cleanup_hook >/dev/null; then
		ovs_cleanup_hook || true
	fi
	if [ -f "$d/ovs-vswitchd-dpdk.pid" ]; then
		kill -9 "$(cat "$d/ovs-vswitchd-dpdk.pid")" 2>/dev/null || true
	fi
	if [ -f "$d/ovsdb-server.pid" ]; then
		kill "$(cat "$d/ovsdb-server.pid")" 2>/dev/null || true
	fi
	rm -rf "$d" "/var/run/dpdk/$ovs_prefix"
}

ovs_setup() {
	local here san
	here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
	# shellcheck source=../../devtools/eal-plugin.sh
	. "$here/../../devtools/eal-plugin.sh"
	pmd=$(tally_plugin "$1")
	# A sanitizer build of the PMD needs its runtime loaded first into the
	# uninstrumented ovs-vswitchd; OVS's own leaks at exit are not ours.
	san_env=()
	san=$(ldd "$pmd" | awk '/lib(asan|ubsan)\.so/ {print $3}' | tr '\n' ' ')
	if [ -n "$san" ]; then
		san_env=(env "LD_PRELOAD=$san${LD_PRELOAD:-}"
			 "ASAN_OPTIONS=${ASAN_OPTIONS:-}:detect_leaks=0")
	fi
	d=$(mktemp -d /tmp/tally-ovs.XXXXXX)
	ovs_prefix=tally-ovs-$$
	export OVS_RUNDIR=$d OVS_LOGDIR=$d OVS_DBDIR=$d OVS_SYSCONFDIR=$d
	V=(ovs-vsctl --db="unix:$d/db.sock" --timeout=30)
	trap ovs_cleanup EXIT
}

ovs_mem() {
	case $1 in
	huge) mem="" ;;
	nohuge) mem="--no-huge -m 2048 --legacy-mem" ;;
	auto)
		mem=""
		if ! awk '/^HugePages_Free:/ { exit !($2 > 0) }' /proc/meminfo; then
			mem="--no-huge -m 2048 --legacy-mem"
		fi ;;
	*) echo "ovs_mem: auto, huge or nohuge, not $1" >&2; return 2 ;;
	esac
}

ovs_start() {
	local eal=$1
	shift
	ovsdb-tool create "$d/conf.db" /usr/share/openvswitch/vswitch.ovsschema
	ovsdb-server --remote="punix:$d/db.sock" --pidfile --detach \
		--log-file="$d/ovsdb.log" "$d/conf.db"
	"${V[@]}" --no-wait init
	"${V[@]}" --no-wait set Open_vSwitch . other_config:dpdk-init=true \
		other_config:dpdk-lcore-mask=0x1 other_config:pmd-cpu-mask=0x2 \
		"other_config:dpdk-extra=-d $pmd --file-prefix=$ovs_prefix $eal $mem" \
		"${@/#/other_config:}"
	"${san_env[@]}" "$OVS_VSWITCHD" "unix:$d/db.sock" --pidfile --detach \
		--log-file="$d/vs.log"
}

check() {
	local what=$1
	shift
	if "$@"; then
		echo "PASS: $what"
	else
		echo "FAIL: $what"
		fail=1
	fi
}

wait_for() {	# at most SECONDS of wall time, however slow CMD is
	local end=$((SECONDS + $1))
	shift
	while :; do
		if "$@" 2>/dev/null; then return 0; fi
		[ "$SECONDS" -lt "$end" ] || return 1
		sleep 0.1
	done
}

ovs_stop() {
	local pid
	pid=$(cat "$d/ovs-vswitchd-dpdk.pid")
	"${OVS_APPCTL[@]}" exit >/dev/null 2>&1 || true
	check "ovs-vswitchd exits" wait_for 30 sh -c "! kill -0 $pid 2>/dev/null"
	if grep -qE "EMER|SIGSEGV|SIGBUS|SIGABRT|Segmentation" "$d/vs.log"; then
		echo "FAIL: ovs-vswitchd log has a crash:"
		grep -E "EMER|SIGSEGV|SIGBUS|SIGABRT|Segmentation" "$d/vs.log"
		fail=1
	fi
}

ovs_log_tail() {
	echo "---- ovs-vswitchd log ----"
	grep -vE "\|(INFO|DBG)\|" "$d/vs.log" | tail -40 || true
}

# The netdev datapath's views (flows: ovs-flows.py, set by the caller).
dp=netdev@ovs-netdev
dump() { "${OVS_APPCTL[@]}" dpctl/dump-flows -m --names "$dp" | "${flows[@]}" megaflows; }
offload_stat() {	# offload_stat NAME: the "Total" line's value
	"${OVS_APPCTL[@]}" dpctl/offload-stats-show "$dp" |
		awk -v n="$1" '$1 == "Total" && index($0, n) { print $NF }'
}
pmd_stat() {	# pmd_stat NAME: summed over the threads
	"${OVS_APPCTL[@]}" dpif-netdev/pmd-stats-show |
		awk -v n="$1:" 'index($0, n) { s += $NF } END { print s + 0 }'
}
