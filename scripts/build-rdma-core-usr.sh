#!/bin/bash
# rdma-core 65.0 with the vhca series, built to be installed: the tree of
# `make check-rdma-core-patches` (scripts/check-rdma-core-patches.sh) is
# built -DIN_PLACE=1, which rdma-core calls "not installable" (its paths
# are the build directory's), so the guest root of
# scripts/build-guest-root.sh gets a second build of the same commit,
# configured as Debian's debian/rules configures rdma-core (prefix /usr,
# multiarch libdir, /etc, /run, pyverbs into /usr/lib/python3/dist-packages)
# and installed with `DESTDIR=... ninja install`.  Built inside the Debian
# 13 root of scripts/build-trixie-root.sh (gcc-14, cmake, cython3,
# pandoc), as the check build is.
#
# Cached in $VHCA_CACHE as rdma-core-65.0-vhca-usr-<hash> (the check
# tree's name, that is the series, this script and the build root):
# src/ (the series' commit), build/, and destdir/ (what `ninja install`
# wrote: usr/, etc/, ...); prints the destdir on the last line.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
cache=${VHCA_CACHE:-$HOME/.cache/vhca}
tree=$(scripts/check-rdma-core-patches.sh | tail -n 1)
root=$(scripts/build-trixie-root.sh | tail -n 1)
hash=$( { basename "$tree"; cat "$0"; basename "$root"; } | sha256sum | cut -c1-16)
out=$cache/rdma-core-65.0-vhca-usr-$hash
if [ -f "$out/.vhca-complete" ]; then
	echo "build-rdma-core-usr: cached, built in $(cat "$out/.vhca-build-seconds") s" >&2
	echo "$out/destdir"
	exit 0
fi

rm -rf "$out"
mkdir -p "$out/src"
git -C "$tree" archive HEAD | tar -x -C "$out/src"
log=$out/build.log
echo "build-rdma-core-usr: building $out (log: $log)" >&2
start=$(date +%s)
if ! nice -n 10 scripts/in-root.sh "$root" "$out" sh -ec "
	mkdir -p '$out/build' && cd '$out/build'
	CC=gcc-14 cmake -GNinja ../src -DCMAKE_BUILD_TYPE=Release \\
		-DCMAKE_INSTALL_PREFIX=/usr \\
		-DCMAKE_INSTALL_LIBDIR=lib/x86_64-linux-gnu \\
		-DCMAKE_INSTALL_SYSCONFDIR:PATH=/etc \\
		-DCMAKE_INSTALL_SYSTEMD_SERVICEDIR:PATH=/usr/lib/systemd/system \\
		-DCMAKE_INSTALL_INITDDIR:PATH=/etc/init.d \\
		-DCMAKE_INSTALL_LIBEXECDIR:PATH=/usr/lib \\
		-DCMAKE_INSTALL_SHAREDSTATEDIR:PATH=/var/lib \\
		-DCMAKE_INSTALL_RUNDIR:PATH=/run \\
		-DCMAKE_INSTALL_UDEV_RULESDIR:PATH=/usr/lib/udev/rules.d \\
		-DCMAKE_INSTALL_PERLDIR:PATH=/usr/share/perl5 \\
		-DPYTHON_EXECUTABLE:PATH=/usr/bin/python3 \\
		-DCMAKE_INSTALL_PYTHON_ARCH_LIB:PATH=/usr/lib/python3/dist-packages
	ninja -j2
	DESTDIR='$out/destdir' ninja install" >"$log" 2>&1; then
	grep -E 'error|Error|FAILED' "$log" | head -40 >&2
	tail -20 "$log" >&2
	echo "build-rdma-core-usr: build FAILED (log: $log)" >&2
	exit 1
fi
seconds=$(($(date +%s) - start))
d=$out/destdir
for f in usr/lib/x86_64-linux-gnu/libibverbs.so.1 \
	usr/lib/x86_64-linux-gnu/libibverbs/libvhca-rdmav65.so \
	etc/libibverbs.d/vhca.driver usr/bin/ibv_devinfo \
	usr/lib/python3/dist-packages/pyverbs usr/share/doc/rdma-core/tests/run_tests.py; do
	[ -e "$d/$f" ] || { echo "build-rdma-core-usr: $f not installed" >&2; exit 1; }
done
echo "$seconds" >"$out/.vhca-build-seconds"
touch "$out/.vhca-complete"
echo "build-rdma-core-usr: built and installed in $seconds s" >&2
echo "$d"
