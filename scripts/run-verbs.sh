#!/usr/bin/env bash
# `make check-verbs`: build the kernel verbs test module (driver/ktest),
# run selftests/verbs/kverbs.py in a guest with vhca.ko, and write
# build/results/verbs.xml and verbs.txt (scripts/run-verbs-pytest.sh).
set -uo pipefail
cd "$(dirname "$0")/.."
mkdir -p build/results

kdir=/usr/src/linux-headers-$(scripts/kver.sh)
if ! make -C "$kdir" M="$PWD/driver/ktest" modules; then
	echo "verbs: driver/ktest does not build" >&2
	rm -f build/results/verbs.xml
	exec /usr/bin/python3 scripts/junit.py finish verbs 1
fi
cp driver/ktest/vhca_verbs_test.ko build/vhca_verbs_test.ko

exec scripts/run-verbs-pytest.sh verbs selftests/verbs/kverbs.py
