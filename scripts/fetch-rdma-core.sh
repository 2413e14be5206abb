#!/bin/bash
# The pristine rdma-core 65.0 source (Debian's orig tarball, checked by
# its sha256), unpacked once into $VHCA_CACHE/rdma-core-65.0-src; prints
# that directory on the last line.  Read only: scripts/rdma-core-patches.sh
# copies it, scripts/build-provider.sh takes rdma-core's util/ headers
# from it.
set -euo pipefail
version=65.0
sha256=f6ba3d8b2c4aa334c5c883c1ad0772de339011123cff4fb1db32ae7a443fb7ca
cache=${VHCA_CACHE:-$HOME/.cache/vhca}
tarball=$cache/src/rdma-core_$version.orig.tar.gz
src=$cache/rdma-core-$version-src
if [ ! -f "$src/.vhca-complete" ]; then
	mkdir -p "$cache/src"
	if [ ! -f "$tarball" ]; then
		curl -fsS -o "$tarball.tmp" \
			"http://deb.debian.org/debian/pool/main/r/rdma-core/rdma-core_$version.orig.tar.gz"
		mv "$tarball.tmp" "$tarball"
	fi
	echo "$sha256  $tarball" | sha256sum -c --quiet - >&2
	rm -rf "$src.tmp" && mkdir -p "$src.tmp"
	tar -xzf "$tarball" -C "$src.tmp" --strip-components=1
	touch "$src.tmp/.vhca-complete"
	rm -rf "$src" && mv "$src.tmp" "$src"
fi
echo "$src"
