#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# in-netns.sh PAIRS CMD [ARGS...]: run CMD in a private network namespace
# holding PAIRS veth pairs tpa<i> <-> tpb<i> (i = 0 .. PAIRS-1), all up, IPv6
# off so that the kernel sends nothing on them of its own. Two Tally ports
# with wire=if on the ends of a pair are cabled to each other. The
# namespace, and the pairs with it, go when CMD exits.
#
# Exit 77 (skipped), the reason on stderr, where no namespace can be had:
# not root, no unshare(1) or ip(8), or the kernel refuses.
set -euo pipefail
pairs=$1
shift
skip() { echo "in-netns: $*" >&2; exit 77; }
[ "$(id -u)" -eq 0 ] || skip "a network namespace with veth pairs needs root"
command -v unshare >/dev/null || skip "no unshare(1) (util-linux)"
command -v ip >/dev/null || skip "no ip(8) (iproute2)"
unshare --net true 2>/dev/null || skip "unshare --net refused here (no CAP_SYS_ADMIN?)"
# the script is for the inner bash: nothing expands here
# shellcheck disable=SC2016
exec unshare --net -- bash -c '
	set -euo pipefail
	pairs=$1
	shift
	ip link set lo up
	sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
	for ((i = 0; i < pairs; i++)); do
		ip link add "tpa$i" type veth peer name "tpb$i"
		ip link set "tpa$i" up
		ip link set "tpb$i" up
	done
	exec "$@"' in-netns "$pairs" "$@"
