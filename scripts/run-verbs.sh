#!/bin/bash
# `make check-verbs`: the kernel verbs cases (driver/verbs_kunit, KUnit
# suites vhca_verbs_*) against the real device.  Boots the debug kernel
# (scripts/build-debug-kernel.sh) with the VM tier's two vhca devices,
# loads build/debug/vhca.ko and vhca_verbs_kunit.ko, and judges the KTAP
# with the kernel's kunit.py parse, the kernel log (KASAN, lockdep,
# WARNING, BUG) and kmemleak (scripts/kunit-vm.py verbs).  Writes
# build/results/verbs.xml (one JUnit case per KUnit case and per problem)
# and verbs.txt; exits non-zero on any failed case, missing suite, crash
# or report.  Documentation/testing-guest-tiers.md "check-verbs".
set -eu
exec "$(dirname "$0")/run-kunit.sh" verbs
