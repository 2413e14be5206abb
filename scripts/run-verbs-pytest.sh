#!/bin/bash
# run-verbs-pytest.sh TIER FILE [FILE... pytest options]: run pytest files
# of one directory under selftests/ (verbs, install, fabric, ulp) with that
# directory as root (so selftests/conftest.py and its guest stay out of
# it), leaving pytest's JUnit report in build/results/TIER.xml and
# build/results/TIER.txt ("passed=N failed=M"; scripts/junit.py finish: a
# pytest failure that the report does not show, a crash or a collection
# error, counts as one failure).  Used by run-verbs.sh (`make
# check-verbs`), run-uverbs.sh (`make check-uverbs`), `make
# check-install`, run-fabric.sh (`make check-fabric`) and run-ulp.sh
# (`make check-ulp`).
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
exec "$PYTHON" scripts/junit.py finish "$tier" $?
