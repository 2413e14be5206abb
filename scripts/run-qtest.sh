#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# run-qtest.sh - run the vhca qtest programs (build/qemu/qtest/, named in
# qemu-device/tests/vhca-qtests.txt) against build/qemu/qemu-system-x86_64,
# count their TAP results and write build/results/qtest.txt as
# "passed=N failed=M".  Exits non-zero when a test failed, a program
# crashed, or nothing ran.  Built by scripts/build-qemu.sh.
#
# Environment: QTEST_LOG=1 shows QEMU's own log; VHCA_QTEST_ARGS adds
# arguments to every program (e.g. "-p /x86_64/vhca/cmd/pd" to run one test:
# the other programs then run none, which is not an error);
# VHCA_QTEST_PROGRAMS names the programs to run (default: all).
set -uo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
RESULTS=$REPO/build/results
QEMU=$REPO/build/qemu/qemu-system-x86_64
TESTS=$REPO/build/qemu/qtest
LOG=$RESULTS/qtest.log

mkdir -p "$RESULTS"
: > "$LOG"

write_result() {
    echo "passed=$1 failed=$2" > "$RESULTS/qtest.txt"
    echo "qtest: passed=$1 failed=$2 (log: $LOG)"
}

programs=${VHCA_QTEST_PROGRAMS:-$(cat "$REPO/qemu-device/tests/vhca-qtests.txt")}
if [ ! -x "$QEMU" ]; then
    echo "qtest: $QEMU missing: run scripts/build-qemu.sh" >&2
    write_result 0 1
    exit 1
fi

# QEMU resolves its firmware directory from its real location (the cached
# build tree, where build-qemu.sh links Debian's firmware), so the symlink
# is passed as is.  libqtest derives the target from the name's suffix.
export QTEST_QEMU_BINARY=$QEMU
total_passed=0
total_failed=0
for name in $programs; do
    test=$TESTS/$name
    log=$RESULTS/qtest-$name.log
    if [ ! -x "$test" ]; then
        echo "qtest: $test missing: run scripts/build-qemu.sh" >&2
        total_failed=$((total_failed + 1))
        continue
    fi
    # shellcheck disable=SC2086
    timeout 600 "$test" --tap -k ${VHCA_QTEST_ARGS:-} > "$log" 2>&1
    rc=$?
    { echo "### $name (exit $rc)"; cat "$log"; } >> "$LOG"
    passed=$(grep -c '^ok ' "$log")
    failed=$(grep -c '^not ok ' "$log")
    planned=$(grep -m1 -oE '^1\.\.[0-9]+' "$log" | cut -d. -f3)
    grep -E '^(ok|not ok) ' "$log" | sed "s|^|  $name: |"
    # A failed g_assert aborts the program: the tests it did not reach
    # count as failed too.
    if [ -n "$planned" ] && [ $((passed + failed)) -lt "$planned" ]; then
        echo "qtest: $name: $((planned - passed - failed)) of $planned tests did not run" >&2
        failed=$((planned - passed))
    fi
    if [ "$rc" -ne 0 ] && [ "$failed" -eq 0 ]; then
        # A crash or timeout that TAP did not record as a failed test.
        echo "qtest: $name exited with status $rc" >&2
        tail -n 20 "$log" >&2
        failed=1
    fi
    total_passed=$((total_passed + passed))
    total_failed=$((total_failed + failed))
done
if [ "$total_passed" -eq 0 ] && [ "$total_failed" -eq 0 ]; then
    echo "qtest: no test ran" >&2
    total_failed=1
fi
write_result "$total_passed" "$total_failed"
[ "$total_failed" -eq 0 ]
