#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# run-qtest.sh - run the vhca qtest programs (build/qemu/qtest/, named in
# qemu-device/tests/vhca-qtests.txt) against build/qemu/qemu-system-x86_64,
# convert each program's TAP to JUnit (scripts/junit.py: a test the plan
# announced that never reported is a failure), merge them into
# build/results/qtest.xml and write build/results/qtest.txt as
# "passed=N failed=M".  Exits non-zero when a test failed, a program
# crashed, or nothing ran.  Built by scripts/build-qemu10.sh.
#
# Environment: VHCA_QEMU_OUT, the build to test (default build/qemu, QEMU
# 10.2; `make check-qtest QEMU_VERSION=7.2` passes build/qemu-7.2, whose
# results are build/results/qtest-7.2.*); QTEST_LOG=1 shows QEMU's own log;
# VHCA_QTEST_PROGRAMS names
# the programs to run (default: all but the benchmarks, vhca-bench-*, which
# vhca-qtests.txt lists so that meson builds them; make bench-copy runs
# them); VHCA_QTEST_ARGS adds arguments to
# each (e.g. "-p /x86_64/vhca/cmd/pd" to run one test).
set -uo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
RESULTS=$REPO/build/results
OUT=$REPO/${VHCA_QEMU_OUT:-build/qemu}
TIER=qtest
if [ "$OUT" != "$REPO/build/qemu" ]; then
    TIER=qtest-${OUT##*/qemu-}
fi
QEMU=$OUT/qemu-system-x86_64
TESTS=$OUT/qtest
LOG=$RESULTS/$TIER.log
JUNIT="/usr/bin/python3 $REPO/scripts/junit.py"

mkdir -p "$RESULTS"
rm -rf "$RESULTS/$TIER.xml" "$RESULTS/$TIER.txt" "$RESULTS/$TIER"
mkdir -p "$RESULTS/$TIER"
: > "$LOG"
finish() { exec $JUNIT finish "$TIER" "$1"; }

programs=${VHCA_QTEST_PROGRAMS:-$(grep -v '^vhca-bench-' \
    "$REPO/qemu-device/tests/vhca-qtests.txt")}
if [ ! -x "$QEMU" ]; then
    echo "qtest: $QEMU missing: run scripts/build-qemu.sh" >&2
    finish 1
fi

# QEMU resolves its firmware directory from its real location (the cached
# build tree, where build-qemu.sh links Debian's firmware), so the symlink
# is passed as is.  libqtest derives the target from the name's suffix.
export QTEST_QEMU_BINARY=$QEMU
status=0
xmls=()
for name in $programs; do
    test=$TESTS/$name
    log=$RESULTS/$TIER/$name.log
    xmls+=("$RESULTS/$TIER/$name.xml")
    if [ ! -x "$test" ]; then
        echo "qtest: $test missing: run scripts/build-qemu.sh" >&2
        status=1
        continue
    fi
    # shellcheck disable=SC2086
    timeout 600 "$test" --tap -k ${VHCA_QTEST_ARGS:-} > "$log" 2>&1
    rc=$?
    { echo "### $name (exit $rc)"; cat "$log"; } >> "$LOG"
    $JUNIT from-tap "$TIER.$name" "$RESULTS/$TIER/$name.xml" < "$log"
    grep -E '^(ok|not ok) ' "$log" | sed "s|^|  $name: |"
    if [ "$rc" -ne 0 ]; then
        # A crash or timeout: finish counts it when TAP recorded no failure.
        echo "qtest: $name exited with status $rc (log: $log)" >&2
        tail -n 20 "$log" >&2
        status=$rc
    fi
done
$JUNIT merge "$RESULTS/$TIER.xml" "${xmls[@]}"
finish "$status"
