#!/bin/bash
# run-verbs-pytest.sh TIER FILE: run one pytest file of selftests/verbs in
# its own root (so selftests/conftest.py and its guest stay out of it),
# leaving pytest's JUnit report in build/results/TIER.xml and
# build/results/TIER.txt ("passed=N failed=M"; scripts/junit.py finish: a
# pytest failure that the report does not show, a crash or a collection
# error, counts as one failure).  Used by run-verbs.sh
# (`make check-verbs`) and run-uverbs.sh (`make check-uverbs`).
set -uo pipefail
cd "$(dirname "$0")/.."
tier=$1
file=$2
PYTHON=${PYTHON:-/usr/bin/python3}
mkdir -p build/results
rm -f "build/results/$tier.txt" "build/results/$tier.xml"

"$PYTHON" -m pytest -v -p no:cacheprovider --rootdir selftests/verbs \
	--confcutdir selftests/verbs --junitxml="build/results/$tier.xml" "$file"
exec "$PYTHON" scripts/junit.py finish "$tier" $?
