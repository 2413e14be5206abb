#!/bin/bash
# `make check-rdma-core-patches`: apply build/rdma-core-patches/ (make
# rdma-core-patches) with `git am` to a clean rdma-core 65.0 tree and
# build that tree whole (libibverbs, librdmacm, every provider with vhca
# among them, pyverbs and its tests, the man pages) as rdma-core's CI
# does: CMake with Ninja, -DIOCTL_MODE=both -DENABLE_WERROR=1.  Debian 12's
# cmake and Cython are older than rdma-core 65 wants, so the build runs in
# the Debian 13 root of scripts/build-trixie-root.sh (gcc-14, cmake,
# cython3, pandoc), chrooted in a private mount namespace.  -DIN_PLACE=1:
# the built tree runs from where it is (build/bin, build/lib, pyverbs'
# tests through build/bin/run_tests.py).
#
# Cached in $VHCA_CACHE as rdma-core-65.0-vhca-<hash> (the patches, this
# script and the root), the tree with its build/ inside; prints its path
# on the last line.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
cache=${VHCA_CACHE:-$HOME/.cache/vhca}
patches=$repo/build/rdma-core-patches
ls "$patches"/*.patch >/dev/null 2>&1 ||
	{ echo "check-rdma-core-patches: no patches (make rdma-core-patches)" >&2; exit 1; }
src=$(scripts/fetch-rdma-core.sh | tail -n 1)
root=$(scripts/build-trixie-root.sh | tail -n 1)
hash=$( { cat "$patches"/*.patch "$0"; basename "$root"; } | sha256sum | cut -c1-16)
tree=$cache/rdma-core-65.0-vhca-$hash
if [ -f "$tree/.vhca-complete" ]; then
	echo "check-rdma-core-patches: cached, built in $(cat "$tree/.vhca-build-seconds") s"
	echo "$tree"
	exit 0
fi

# 1. git am onto the pristine tree, committed as the series' base.  Built
# where it stays (IN_PLACE compiles the build's own paths into libibverbs);
# complete once .vhca-complete is there.
rm -rf "$tree"
mkdir -p "$tree"
cp -a "$src/." "$tree/"
rm -f "$tree/.vhca-complete"
g() { git -C "$tree" -c user.name=vhca -c user.email=vhca@localhost \
	-c init.defaultBranch=master "$@"; }
g init -q
g add -A -f
g commit -q -m "Import rdma-core 65.0"
g am -q "$patches"/*.patch
echo "check-rdma-core-patches: $(ls "$patches"/*.patch | wc -l) patches applied" >&2

# 2. the whole build inside the Debian 13 root, the tree at its own path
log=$tree/.vhca-build.log
start=$(date +%s)
if ! nice -n 10 scripts/in-root.sh "$root" "$tree" sh -ec "
	mkdir -p '$tree/build' && cd '$tree/build'
	CC=gcc-14 cmake -GNinja .. -DIOCTL_MODE=both -DENABLE_WERROR=1 -DIN_PLACE=1
	ninja -j2" >"$log" 2>&1; then
	grep -E 'error|Error|FAILED' "$log" | head -40 >&2
	tail -20 "$log" >&2
	echo "check-rdma-core-patches: build FAILED (log: $log)" >&2
	exit 1
fi
seconds=$(($(date +%s) - start))

# 3. what the series adds was built and is where rdma-core installs it
for f in build/lib/libibverbs.so.1 build/lib/librdmacm.so.1 \
	build/lib/libvhca-rdmav*.so build/etc/libibverbs.d/vhca.driver \
	build/include/rdma/vhca-abi.h build/python/pyverbs/device.*.so; do
	# shellcheck disable=SC2086
	ls "$tree"/$f >/dev/null 2>&1 ||
		{ echo "check-rdma-core-patches: $f not built" >&2; exit 1; }
done
grep -q 'RDMA_DRIVER_VHCA' "$tree/build/include/rdma/ib_user_ioctl_verbs.h"
echo "$seconds" >"$tree/.vhca-build-seconds"
touch "$tree/.vhca-complete"
echo "check-rdma-core-patches: rdma-core 65.0 with the series built whole in $seconds s (-Werror)"
echo "$tree"
