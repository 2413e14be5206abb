#!/bin/bash
# Real middleware on vhca in a guest (`make check-middleware`, a `make test`
# tier): UCX, Open MPI over UCX and libfabric's verbs provider
# (selftests/verbs/middleware.py).  Writes build/results/middleware.txt.
exec "$(dirname "$0")/run-verbs-pytest.sh" middleware selftests/verbs/middleware.py
