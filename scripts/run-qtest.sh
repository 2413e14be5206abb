#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# run-qtest.sh - run the vhca qtest (build/qemu/vhca-test) against
# build/qemu/qemu-system-x86_64, count its TAP results and write
# build/results/qtest.txt as "passed=N failed=M".  Exits non-zero when a
# test failed, the run crashed, or nothing ran.  Built by scripts/build-qemu.sh.
#
# Environment: QTEST_LOG=1 shows QEMU's own log; VHCA_QTEST_ARGS adds
# arguments (e.g. "-p /vhca/cmd/pd" to run one test).
set -uo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
RESULTS=$REPO/build/results
QEMU=$REPO/build/qemu/qemu-system-x86_64
TEST=$REPO/build/qemu/vhca-test
LOG=$RESULTS/qtest.log

mkdir -p "$RESULTS"

write_result() {
    echo "passed=$1 failed=$2" > "$RESULTS/qtest.txt"
    echo "qtest: passed=$1 failed=$2 (log: $LOG)"
}

if [ ! -x "$QEMU" ] || [ ! -x "$TEST" ]; then
    echo "qtest: $QEMU or $TEST missing: run scripts/build-qemu.sh" >&2
    write_result 0 1
    exit 1
fi

# QEMU resolves its firmware directory from its real location (the cached
# build tree, where build-qemu.sh links Debian's firmware), so the symlink
# is passed as is.  libqtest derives the target from the name's suffix.
export QTEST_QEMU_BINARY=$QEMU
# shellcheck disable=SC2086
timeout 600 "$TEST" --tap -k ${VHCA_QTEST_ARGS:-} > "$LOG" 2>&1
rc=$?

passed=$(grep -c '^ok ' "$LOG")
failed=$(grep -c '^not ok ' "$LOG")
planned=$(grep -m1 -oE '^1\.\.[0-9]+' "$LOG" | cut -d. -f3)
grep -E '^(ok|not ok) ' "$LOG" | sed 's/^/  /'
# A failed g_assert aborts the binary: the tests it did not reach count as
# failed too.
if [ -n "$planned" ] && [ $((passed + failed)) -lt "$planned" ]; then
    echo "qtest: $((planned - passed - failed)) of $planned tests did not run" >&2
    failed=$((planned - passed))
fi
if [ "$rc" -ne 0 ] && [ "$failed" -eq 0 ]; then
    # A crash or timeout that TAP did not record as a failed test.
    echo "qtest: vhca-test exited with status $rc" >&2
    tail -n 20 "$LOG" >&2
    failed=1
fi
if [ "$passed" -eq 0 ] && [ "$failed" -eq 0 ]; then
    echo "qtest: no test ran" >&2
    failed=1
fi
write_result "$passed" "$failed"
[ "$failed" -eq 0 ]
