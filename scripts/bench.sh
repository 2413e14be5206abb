#!/usr/bin/env bash
# `make bench`: build the memcpy ceiling helper into build/bench/ (the guest
# shares the host's root, so a host binary runs in it), the userspace
# provider when the tree has one, and run scripts/bench.py: perftest on
# vhca and rdma_rxe in one TCG guest.  Not part of `make test`.
# Documentation/performance.md.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-/usr/bin/python3}
mkdir -p build/bench
cc -O2 -Wall -Wextra -Werror -o build/bench/memcpy-bw scripts/bench-memcpy.c
cc -O2 -Wall -Wextra -Werror -pthread -o build/bench/ceilings scripts/bench-ceilings.c
# Without a provider the vhca column stays empty (bench.py says why); a
# failed provider build is not the benchmark's failure.
if [ -x scripts/build-provider.sh ]; then
	scripts/build-provider.sh || echo "bench.sh: provider build failed, vhca will not run perftest" >&2
fi
exec "$PYTHON" scripts/bench.py
