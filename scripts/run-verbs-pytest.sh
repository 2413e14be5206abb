#!/bin/bash
# run-verbs-pytest.sh TIER FILE [FILE... pytest options]: run pytest files
# of one directory under selftests/ in that directory as their root (so
# selftests/conftest.py, which writes vm.txt, stays out of it) and write
# build/results/TIER.txt ("passed=N failed=M") from pytest's JUnit report.
# A pytest failure that the report does not show (a crash, a collection
# error) counts as one failure.  Used by run-verbs.sh (`make check-verbs`),
# run-uverbs.sh (`make check-uverbs`) and run-ulp.sh (`make check-ulp`).
set -uo pipefail
cd "$(dirname "$0")/.."
tier=$1
shift
root=$(dirname "$1")
PYTHON=${PYTHON:-/usr/bin/python3}
mkdir -p build/results
rm -f "build/results/$tier.txt" "build/results/$tier.xml"

"$PYTHON" -m pytest -v -p no:cacheprovider --rootdir "$root" \
	--confcutdir "$root" --junitxml="build/results/$tier.xml" "$@"
rc=$?

counts=$("$PYTHON" scripts/junit-counts.py "build/results/$tier.xml")
read -r passed failed <<< "$counts"
[ "$rc" -ne 0 ] && [ "$failed" -eq 0 ] && failed=1
echo "passed=$passed failed=$failed" > "build/results/$tier.txt"
echo "$tier: passed=$passed failed=$failed"
[ "$rc" -eq 0 ] && [ "$failed" -eq 0 ]
