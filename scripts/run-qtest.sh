#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# run-qtest.sh - run the vhca qtest (build/qemu/vhca-test) against
# build/qemu/qemu-system-x86_64, convert its TAP to build/results/qtest.xml
# (scripts/junit.py: a test the plan announced that never reported is a
# failure) and write build/results/qtest.txt as "passed=N failed=M".
# Exits non-zero when a test failed, the run crashed, or nothing ran.
# Built by scripts/build-qemu.sh.
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

rm -f "$RESULTS/qtest.xml" "$RESULTS/qtest.txt"
finish() { exec /usr/bin/python3 "$REPO/scripts/junit.py" finish qtest "$1"; }

if [ ! -x "$QEMU" ] || [ ! -x "$TEST" ]; then
    echo "qtest: $QEMU or $TEST missing: run scripts/build-qemu.sh" >&2
    finish 1
fi

# QEMU resolves its firmware directory from its real location (the cached
# build tree, where build-qemu.sh links Debian's firmware), so the symlink
# is passed as is.  libqtest derives the target from the name's suffix.
export QTEST_QEMU_BINARY=$QEMU
# shellcheck disable=SC2086
timeout 600 "$TEST" --tap -k ${VHCA_QTEST_ARGS:-} > "$LOG" 2>&1
rc=$?

/usr/bin/python3 "$REPO/scripts/junit.py" from-tap qtest "$RESULTS/qtest.xml" < "$LOG"
grep -E '^(ok|not ok) ' "$LOG" | sed 's/^/  /'
if [ "$rc" -ne 0 ]; then
    # A crash or timeout: finish counts it when TAP recorded no failure.
    echo "qtest: vhca-test exited with status $rc (log: $LOG)" >&2
    tail -n 20 "$LOG" >&2
fi
finish "$rc"
