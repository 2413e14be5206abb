#!/bin/bash
# `make check-kunit`: boot the debug kernel (scripts/build-debug-kernel.sh)
# with no vhca device, load build/debug/vhca_kunit.ko, and judge the KUnit
# suites it runs (driver/kunit/suites.c) from their KTAP output (read by
# the kernel's kunit.py parse), plus the kernel log (KASAN, lockdep,
# WARNING, BUG) and kmemleak after unloading.  Writes
# build/results/kunit.xml (one JUnit case per test case and per problem)
# and kunit.txt ("passed=N failed=M"); exits non-zero on any failed case,
# missing suite, crash or report.  Documentation/testing-guest-tiers.md
# "KUnit".
#
#   scripts/run-kunit.sh [TIER...]   kunit (default) and/or verbs
#                                    (scripts/run-verbs.sh): several share
#                                    one boot of the debug kernel (`make
#                                    check-kunit-verbs`, what `make test`
#                                    runs), each judged and written apart.
set -eu
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
tiers=("${@:-kunit}")
mkdir -p build/results
for tier in "${tiers[@]}"; do
	rm -f "build/results/$tier.xml" "build/results/$tier.txt"
done

# Builds are cached: a few seconds when nothing changed.  One build makes
# every debug module (vhca, vhca_kunit, vhca_verbs_kunit).
KERNEL=debug scripts/build-module.sh >/dev/null 2>build/debug-module.err || {
	cat build/debug-module.err >&2
	echo "run-kunit.sh: building the KUnit modules against the debug kernel FAILED" >&2
	for tier in "${tiers[@]}"; do
		/usr/bin/python3 scripts/junit.py finish "$tier" 1 || true
	done
	exit 1
}
rm -f build/debug-module.err
VHCA_KERNEL=debug exec /usr/bin/python3 scripts/kunit-vm.py "${tiers[@]}"
