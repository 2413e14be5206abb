#!/bin/bash
# `make check-kunit`: boot the debug kernel (scripts/build-debug-kernel.sh)
# with no vhca device, load build/debug/vhca_kunit.ko, and judge the KUnit
# suites it runs (driver/kunit/suites.c) from their KTAP output (read by
# the kernel's kunit.py parse), plus the kernel log (KASAN, lockdep,
# WARNING, BUG) and kmemleak after unloading.  Writes
# build/results/kunit.xml (one JUnit case per test case and per problem)
# and kunit.txt ("passed=N failed=M"); exits non-zero on any failed case,
# missing suite, crash or report.  Documentation/testing.md
# "KUnit".
set -eu
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
mkdir -p build/results
rm -f build/results/kunit.xml build/results/kunit.txt

# Builds are cached: a few seconds when nothing changed.
KERNEL=debug scripts/build-module.sh >/dev/null 2>build/debug-module.err || {
	cat build/debug-module.err >&2
	echo "run-kunit.sh: building vhca_kunit.ko against the debug kernel FAILED" >&2
	exec /usr/bin/python3 scripts/junit.py finish kunit 1
}
rm -f build/debug-module.err
VHCA_KERNEL=debug exec /usr/bin/python3 scripts/kunit-vm.py kunit
