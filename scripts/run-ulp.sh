#!/bin/bash
# Storage ULPs in a guest (Documentation/ulps.md): NVMe over RDMA, iSER,
# SRP and NFS over RDMA on vhca, the tests of selftests/ulp/ulp_*.py.
#
#   run-ulp.sh        `make check-ulp` (a `make test` tier): the quick
#                     subset (tests not marked `full`), one guest boot;
#                     build/results/ulp.txt
#                     With VHCA_KERNEL=debug (`make check-ulp-debug`)
#                     the same on the debug kernel: build/results/
#                     ulp-debug.txt, and kmemleak and the kernel log
#                     checked at the end (selftests/ulp/conftest.py)
#   run-ulp.sh full   `make check-ulp-full`, three guest sessions:
#                     every test; every test but the fault ones (marked
#                     `fault`: hot-unplug, rmmod) with ib_core force_mr=1
#                     (every ULP registers every transfer: FRWR); the
#                     same on a lossy fabric (both devices with
#                     rc-drop-request=97,rc-drop-response=101), which
#                     runs beside the first two in a guest of its own
#                     (VHCA_ULP_LOSSY_BESIDE=0: after them).
#                     build/results/ulp-full.txt sums the three
#                     With VHCA_KERNEL=debug (`make check-ulp-full-debug`)
#                     only the first session, on the debug kernel:
#                     build/results/ulp-full-debug.txt
#   run-ulp.sh open   `make check-ulp-open`: the tests marked `open_bug`
#                     (Documentation/ulps.md "Open bugs"), which the
#                     other modes leave out; build/results/ulp-open.txt
#
# VHCA_ULP_FABRIC=rxe runs the same tests over rdma_rxe on a veth pair
# (tests that need InfiniBand deselected), to check the harness itself.
# Extra arguments after the mode go to pytest (-k NAME, -x, ...).
set -uo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-/usr/bin/python3}
mode=${1:-quick}
# Every verified fio run's figures (selftests/ulp/ulplib.py Fio.record).
rm -f build/results/ulp-fio.txt
[ $# -gt 0 ] && shift
# Order matters: one guest runs them all, each file sets up and tears
# down its own ULP.
files=()
for f in nvme iser srp nfs; do
	[ -e "selftests/ulp/ulp_$f.py" ] && files+=("selftests/ulp/ulp_$f.py")
done
# A pytest -m expression: "not full", plus "not ib" on rdma_rxe; never
# the tests of open bugs outside `open` mode.
markers() {
	local expr="$*"
	[ "$mode" = open ] || expr="${expr:+$expr and }not open_bug"
	[ "${VHCA_ULP_FABRIC:-vhca}" = rxe ] && expr="${expr:+$expr and }not ib"
	echo "$expr"
}

case "$mode" in
quick)
	# VHCA_KERNEL=debug (`make check-ulp-debug`): on the debug kernel,
	# build/results/ulp-debug.txt.
	tier=ulp
	[ "${VHCA_KERNEL:-default}" = debug ] && tier=ulp-debug
	exec scripts/run-verbs-pytest.sh "$tier" "${files[@]}" -m "$(markers not full)" "$@"
	;;
open)
	if ! grep -q 'pytest\.mark\.open_bug' "${files[@]}"; then
		echo "check-ulp-open: no test is marked open_bug (Documentation/ulps.md \"Open bugs\")"
		exit 0
	fi
	exec scripts/run-verbs-pytest.sh ulp-open "${files[@]}" -m "$(markers open_bug)" "$@"
	;;
full)
	if [ "${VHCA_KERNEL:-default}" = debug ]; then
		# `make check-ulp-full-debug`: one session of every test
		# (faults, resets, large I/Os included) on the debug kernel:
		# KASAN, lockdep and kmemleak over the removal paths too.
		scripts/run-verbs-pytest.sh ulp-full-debug "${files[@]}" -m "$(markers)" "$@"
		exit $?
	fi
	# The lossy session waits mostly on RC ACK timeouts (each lost
	# packet costs one), so it runs beside the other two in a guest of
	# its own (build/vm-logs/ulp-lossy-*.log): about 85 min alone on a
	# quiet host, while the other two take about 45 to 85 min in turn.
	# VHCA_ULP_LOSSY_BESIDE=0 runs the three one after the other.
	lossy_out=build/results/ulp-full-lossy.out
	run_lossy() {
		VHCA_ULP_VM_NAME=ulp-lossy \
		VHCA_ULP_DEVICE_ARGS=rc-drop-request=97,rc-drop-response=101 \
			scripts/run-verbs-pytest.sh ulp-full-lossy "${files[@]}" \
			-m "$(markers not fault)" "$@"
	}
	lossy_pid=
	if [ "${VHCA_ULP_LOSSY_BESIDE:-1}" != 0 ]; then
		mkdir -p build/results
		# A process group of its own (set -m), so that an interrupted
		# run stops its pytest and QEMU too.
		set -m
		run_lossy "$@" > "$lossy_out" 2>&1 &
		lossy_pid=$!
		set +m
		trap '[ -z "$lossy_pid" ] || kill -- -"$lossy_pid" 2>/dev/null' EXIT
		echo "run-ulp: the lossy session runs beside the others, its output: $lossy_out"
	fi
	scripts/run-verbs-pytest.sh ulp-full-default "${files[@]}" \
		-m "$(markers)" "$@"
	rc1=$?
	VHCA_ULP_FORCE_MR=1 scripts/run-verbs-pytest.sh ulp-full-force-mr "${files[@]}" \
		-m "$(markers not fault)" "$@"
	rc2=$?
	if [ -n "$lossy_pid" ]; then
		wait "$lossy_pid"
		rc3=$?
		lossy_pid=
		echo "=== the lossy session ($lossy_out)"
		cat "$lossy_out"
	else
		run_lossy "$@"
		rc3=$?
	fi
	;;
*)
	echo "usage: run-ulp.sh [quick|full|open] [pytest args]" >&2
	exit 2
	;;
esac
# One report for the three sessions (junit.py merge), then the tier's
# results files (junit.py finish).
parts=()
for part in default force-mr lossy; do
	parts+=("build/results/ulp-full-$part.xml")
done
status=0
[ "$rc1" -eq 0 ] && [ "$rc2" -eq 0 ] && [ "$rc3" -eq 0 ] || status=1
"$PYTHON" scripts/junit.py merge build/results/ulp-full.xml "${parts[@]}"
exec "$PYTHON" scripts/junit.py finish ulp-full "$status"
