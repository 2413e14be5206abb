#!/usr/bin/env bash
# `make check-smoke KERNEL=6.12|6.1`: selftests/smoke/smoke.py in one guest
# on that kernel (VHCA_KERNEL), stopping at the first failed step (each
# needs the one before it).  JUnit XML and summary:
# build/results/smoke-<kernel>.xml (scripts/junit.py).
set -uo pipefail
cd "$(dirname "$0")/.."
kernel=${VHCA_KERNEL:-default}
[ "$kernel" = default ] && kernel=6.1
exec scripts/run-verbs-pytest.sh "smoke-$kernel" selftests/smoke/smoke.py -x "$@"
