#!/bin/bash
# libfabric's fi_pingpong on vhca (`make check-fabric`, not in `make test`):
# selftests/verbs/fabric.py.  Writes build/results/fabric.txt.
exec "$(dirname "$0")/run-verbs-pytest.sh" fabric selftests/verbs/fabric.py
