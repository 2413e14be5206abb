#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# bench-copy.sh - the payload copy benchmark (make bench-copy): runs the
# qtest program vhca-bench-copy (qemu-device/tests/vhca-bench-copy.c)
# against build/qemu/qemu-system-x86_64 and, when VHCA_BENCH_BEFORE names
# another QEMU binary (e.g. main's, for the figures before a change),
# against that one too, alternating RUNS times.  Each run prints QEMU's
# CPU time per message and per payload byte (Documentation/performance.md
# "The payload copy"); the load average is printed around the runs.
# Under nice -n 19: the figures are CPU time, which the host's load
# changes far less than wall time.
#
# Environment: VHCA_BENCH_N messages per row (default 8192),
# VHCA_BENCH_REPS rows per size and operation (default 5, the lowest kept), RUNS
# (default 2), VHCA_BENCH_BEFORE.
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BENCH=$REPO/${VHCA_QEMU_OUT:-build/qemu}/qtest/vhca-bench-copy
AFTER=$REPO/${VHCA_QEMU_OUT:-build/qemu}/qemu-system-x86_64
BEFORE=${VHCA_BENCH_BEFORE:-}
RUNS=${RUNS:-2}

[ -x "$BENCH" ] || { echo "bench-copy: $BENCH missing: make qemu" >&2; exit 1; }
run() {
    echo "== $1: $2"
    QTEST_QEMU_BINARY=$2 nice -n 19 "$BENCH"
}
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
for i in $(seq "$RUNS"); do
    if [ -n "$BEFORE" ]; then
        run "before (run $i)" "$BEFORE"
    fi
    run "this tree (run $i)" "$AFTER"
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
