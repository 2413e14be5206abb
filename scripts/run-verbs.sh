#!/usr/bin/env bash
# `make check-verbs`: build the kernel verbs test module (driver/ktest),
# run selftests/verbs in a guest with vhca.ko verbs=1, and write
# build/results/verbs.txt ("passed=N failed=M") from pytest's JUnit report.
# selftests/verbs has its own root so that selftests/conftest.py (which
# writes vm.txt) stays out of it.
set -uo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-/usr/bin/python3}
mkdir -p build/results
rm -f build/results/verbs.txt build/results/verbs.xml

write_result() {
	echo "passed=$1 failed=$2" > build/results/verbs.txt
	echo "verbs: passed=$1 failed=$2"
}

kdir=/usr/src/linux-headers-$(scripts/kver.sh)
if ! make -C "$kdir" M="$PWD/driver/ktest" modules; then
	write_result 0 1
	exit 1
fi
cp driver/ktest/vhca_verbs_test.ko build/vhca_verbs_test.ko

"$PYTHON" -m pytest -v -p no:cacheprovider --rootdir selftests/verbs \
	--confcutdir selftests/verbs --junitxml=build/results/verbs.xml \
	selftests/verbs/kverbs.py
rc=$?

counts=$("$PYTHON" scripts/junit-counts.py build/results/verbs.xml)
read -r passed failed <<< "$counts"
[ "$rc" -ne 0 ] && [ "$failed" -eq 0 ] && failed=1
write_result "$passed" "$failed"
[ "$rc" -eq 0 ] && [ "$failed" -eq 0 ]
