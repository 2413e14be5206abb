#!/bin/bash
# `make check-verbs`: the kernel verbs cases (driver/verbs_kunit, KUnit
# suites vhca_verbs_*) against the real device.  Boots the debug kernel
# (scripts/build-debug-kernel.sh) with the VM tier's two vhca devices,
# loads build/debug/vhca.ko and vhca_verbs_kunit.ko, and judges the KTAP
# with the kernel's kunit.py parse, the kernel log (KASAN, lockdep,
# WARNING, BUG) and kmemleak (scripts/kunit-vm.py verbs).  Writes
# build/results/verbs.xml (one JUnit case per KUnit case and per problem)
# and verbs.txt; exits non-zero on any failed case, missing suite, crash
# or report.  Documentation/testing.md "check-verbs".
set -eu
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
mkdir -p build/results
rm -f build/results/verbs.xml build/results/verbs.txt

# Builds are cached: a few seconds when nothing changed.
KERNEL=debug scripts/build-module.sh >/dev/null 2>build/debug-module-verbs.err || {
	cat build/debug-module-verbs.err >&2
	echo "run-verbs.sh: building vhca_verbs_kunit.ko against the debug kernel FAILED" >&2
	exec /usr/bin/python3 scripts/junit.py finish verbs 1
}
rm -f build/debug-module-verbs.err
VHCA_KERNEL=debug exec /usr/bin/python3 scripts/kunit-vm.py verbs
