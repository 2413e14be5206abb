#!/usr/bin/env bash
# `make check-debug-tiers` (what `make test` runs for the kunit, verbs and
# vm-debug tiers): vhca.ko and the KUnit modules built once for the debug
# kernel (scripts/build-module.sh), then two debug guests at once:
#   - one boot for both KUnit modules (scripts/kunit-vm.py kunit verbs:
#     build/results/kunit.xml and verbs.xml; `make check-kunit-verbs`);
#   - the vm-debug tier's tests (`make check-vm-debug`:
#     build/results/vm-debug.xml), given as this script's arguments.
# At once because each keeps about one of the two cores busy (the boot,
# one KUnit case after another, one test program at a time), so the pair
# takes little more than the longer of the two.  Each guest's output goes
# to build/results/<name>.log, printed when both are done.  Exit status
# non-zero if either failed.
#
#   scripts/run-debug-tiers.sh TEST_FILE...
set -uo pipefail
cd "$(dirname "$0")/.."
[ $# -gt 0 ] || { echo "usage: run-debug-tiers.sh TEST_FILE..." >&2; exit 2; }
mkdir -p build/results
for tier in kunit verbs vm-debug; do
	rm -f "build/results/$tier.xml" "build/results/$tier.txt"
done

if ! KERNEL=debug scripts/build-module.sh >build/debug-module.log 2>&1; then
	cat build/debug-module.log >&2
	echo "run-debug-tiers.sh: the debug kernel's modules did not build" >&2
	for tier in kunit verbs vm-debug; do
		/usr/bin/python3 scripts/junit.py finish "$tier" 1 || true
	done
	exit 1
fi

export VHCA_KERNEL=debug
/usr/bin/python3 scripts/kunit-vm.py kunit verbs >build/results/kunit-verbs.log 2>&1 &
kunit_pid=$!
{
	/usr/bin/python3 -m pytest -v -p no:cacheprovider \
		--junitxml=build/results/vm-debug.xml "$@"
	/usr/bin/python3 scripts/junit.py finish vm-debug $?
} >build/results/vm-debug.log 2>&1 &
vm_pid=$!
status=0
wait "$kunit_pid" || status=1
wait "$vm_pid" || status=1
for name in kunit-verbs vm-debug; do
	echo "=== $name (build/results/$name.log)"
	cat "build/results/$name.log"
done
exit "$status"
