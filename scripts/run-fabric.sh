#!/bin/bash
# Two VMs on one fabric through the standalone switch (`make check-fabric`,
# a `make test` tier): selftests/fabric/twovms.py, then the same with the
# switch's embedded SM off and opensm in a guest (opensm.py), then opensm
# managing the in-process fabric of one VM (onevm_opensm.py).  Writes
# build/results/fabric.txt ("passed=N failed=M"), or <VHCA_FABRIC_TIER>.txt
# (`make check-fabric-rcwin`: fabric-rcwin).
exec "$(dirname "$0")/run-verbs-pytest.sh" "${VHCA_FABRIC_TIER:-fabric}" \
	selftests/fabric/twovms.py \
	selftests/fabric/opensm.py selftests/fabric/onevm_opensm.py
