#!/bin/bash
# User verbs in a guest (`make check-uverbs`, not in `make test` yet):
# selftests/verbs/uverbs.py with vhca.ko verbs=1 and the provider of
# build/provider.  Writes build/results/uverbs.txt ("passed=N failed=M").
set -uo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-/usr/bin/python3}
mkdir -p build/results
rm -f build/results/uverbs.txt build/results/uverbs.xml

"$PYTHON" -m pytest -v -p no:cacheprovider --rootdir selftests/verbs \
	--confcutdir selftests/verbs --junitxml=build/results/uverbs.xml \
	selftests/verbs/uverbs.py
rc=$?

counts=$("$PYTHON" scripts/junit-counts.py build/results/uverbs.xml)
read -r passed failed <<< "$counts"
[ "$rc" -ne 0 ] && [ "$failed" -eq 0 ] && failed=1
echo "passed=$passed failed=$failed" > build/results/uverbs.txt
echo "uverbs: passed=$passed failed=$failed"
[ "$rc" -eq 0 ] && [ "$failed" -eq 0 ]
