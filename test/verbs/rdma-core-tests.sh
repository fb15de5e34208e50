#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# rdma-core-tests.sh LIB
#
# rdma-core's own Python test suite (pyverbs), as Debian ships it in
# python3-pyverbs (/usr/share/doc/rdma-core/tests), run with LIB
# (libtally_verbs) in LD_PRELOAD on device tally_0: the modules of
# MODULES, each test judged against rdma-core-<version>.expect beside this
# script (rdma-core-check.py): every test must pass or be skipped with the
# listed "not supported" message; a failure, an error, another skip or fewer
# passes fail the run.
#
# The tests are copied from the installed package into a private directory
# at run time (gunzip'd: Debian compresses some) and run with Debian's
# python3, in one process whose EAL (TALLY_VERBS_EAL_ARGS) has one port, in
# the memory mode of TALLY_TEST_MEM (devtools/eal-mem.sh). Run under
# with-eal.sh or test/nic/with-nic.sh, it keeps the TALLY_VERBS_EAL_ARGS
# they give (the port in a tally-nic device process, for instance).
#
# Exit 77 (skipped), with one line saying why, when python3-pyverbs is not
# installed or not of the pinned rdma-core release (RDMA_CORE), when the
# tests are not where the package puts them, when not root (rdma-core's raw
# packet tests need it), or where the memory mode cannot run.
set -uo pipefail
lib=$(realpath "$1") || exit 1	# python3 runs in another directory
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../../devtools/eal-mem.sh"

# the rdma-core release whose tests and outcomes rdma-core-44.expect lists
RDMA_CORE=44.0
MODULES="test_flow test_device test_pd test_cq test_cqex test_qp test_mr test_fork"
TESTS=/usr/share/doc/rdma-core/tests
PYTHON=/usr/bin/python3
expect=$here/rdma-core-${RDMA_CORE%%.*}.expect

skip() {
	echo "SKIP: $*"
	exit 77
}

ver=$(dpkg-query -W -f='${Status} ${Version}' python3-pyverbs 2>/dev/null)
case $ver in
"install ok installed $RDMA_CORE"-*) ver=${ver##* } ;;
"install ok installed "*)
	skip "python3-pyverbs ${ver##* } is not rdma-core $RDMA_CORE, the release" \
	     "$(basename "$expect") lists" ;;
*) skip "python3-pyverbs (rdma-core $RDMA_CORE) not installed (devtools/setup.sh installs it)" ;;
esac
[ -f "$TESTS/run_tests.py" ] ||
	skip "no $TESTS/run_tests.py (python3-pyverbs $ver installed without its docs?)"
[ -x "$PYTHON" ] || skip "no $PYTHON"
[ "$(id -u)" -eq 0 ] || skip "rdma-core's raw packet tests need root (tests/utils.py is_root)"
tally_eal_mem_skip

# An ASan build of the library needs the ASan runtime loaded before
# anything else in python3; python3's own allocations are not the library's
# leaks.
preload=$lib
san=$(ldd "$lib" 2>/dev/null | awk '/lib(asan|ubsan)\.so/ { print $3 }' | tr '\n' ' ')
if [ -n "$san" ]; then
	preload="$san$lib"
	export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
fi

prefix="tally-rdma-core-$$"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp" "/var/run/dpdk/$prefix"' EXIT
cp -r "$TESTS" "$tmp/tests" || exit 1
find "$tmp/tests" -name '*.gz' -exec gunzip -f {} + || exit 1

if [ -z "${TALLY_VERBS_EAL_ARGS:-}" ]; then
	mem=$(tally_eal_mem 512) || exit 1
	export TALLY_VERBS_EAL_ARGS="-l 0 $mem --no-pci --file-prefix=$prefix --vdev net_tally0 --log-level=pmd.net.tally*:notice"
fi
echo "rdma-core $ver tests ($TESTS), LD_PRELOAD=$preload"
echo "TALLY_VERBS_EAL_ARGS=$TALLY_VERBS_EAL_ARGS"
(cd "$tmp/tests" &&
	PYTHONDONTWRITEBYTECODE=1 timeout 100 \
	env LD_PRELOAD="$preload" "$PYTHON" run_tests.py --dev tally_0 -v $MODULES) \
	>"$tmp/log" 2>&1
rc=$?
"$PYTHON" "$here/rdma-core-check.py" "$expect" "$tmp/log" $MODULES
check=$?
if [ "$check" -ne 0 ] || [ "$rc" -ne 0 ]; then
	echo "run_tests.py exit status $rc; its output:"
	sed 's/^/  | /' "$tmp/log"
	exit 1
fi
exit 0
