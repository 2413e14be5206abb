#!/usr/bin/env bash
# The smoke tier (Documentation/testing-vm.md "check-smoke"):
# selftests/smoke/smoke.py in one guest per kernel, stopping at the first
# failed step (each needs the one before it).  JUnit XML and summary per
# kernel: build/results/smoke-<kernel>.xml (scripts/junit.py).
#
#   scripts/run-smoke.sh [pytest options]        the kernel of VHCA_KERNEL
#                                                (`make check-smoke KERNEL=6.12`)
#   scripts/run-smoke.sh --kernels 6.12 6.1      one guest per kernel, all at
#                                                once (`make check-kernels-smoke`)
#
# At once because a smoke guest keeps about one core of two busy (its
# steps are one process at a time: a ping, an rping, fio), so two guests
# side by side take little more than one.  Each guest's output goes to
# build/results/smoke-<kernel>.log, printed when all are done.  Exit status
# non-zero if any kernel's run failed.
set -uo pipefail
cd "$(dirname "$0")/.."

one() { # kernel [pytest options]
	local kernel=$1
	shift
	VHCA_KERNEL=$kernel scripts/run-verbs-pytest.sh "smoke-$kernel" \
		selftests/smoke/smoke.py -x "$@"
}

if [ "${1:-}" != --kernels ]; then
	one "${VHCA_KERNEL:?run-smoke.sh: VHCA_KERNEL=6.12 or 6.1}" "$@"
	exit
fi
shift
mkdir -p build/results
declare -A pid
for kernel in "$@"; do
	one "$kernel" >"build/results/smoke-$kernel.log" 2>&1 &
	pid[$kernel]=$!
done
status=0
for kernel in "$@"; do
	wait "${pid[$kernel]}" || status=1
done
for kernel in "$@"; do
	echo "=== smoke-$kernel (build/results/smoke-$kernel.log)"
	cat "build/results/smoke-$kernel.log"
done
exit "$status"
