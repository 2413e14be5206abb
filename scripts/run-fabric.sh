#!/bin/bash
# Two VMs on one fabric through the standalone switch (`make check-fabric`,
# a `make test` tier): selftests/fabric/twovms.py.  Writes
# build/results/fabric.txt ("passed=N failed=M").
exec "$(dirname "$0")/run-verbs-pytest.sh" fabric selftests/fabric/twovms.py
