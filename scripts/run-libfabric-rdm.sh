#!/bin/bash
# libfabric's fi_pingpong on vhca (`make check-libfabric-rdm`, not in `make test`):
# selftests/verbs/libfabric_rdm.py.  Writes build/results/libfabric-rdm.txt.
exec "$(dirname "$0")/run-verbs-pytest.sh" libfabric-rdm selftests/verbs/libfabric_rdm.py
