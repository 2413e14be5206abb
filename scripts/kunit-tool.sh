#!/usr/bin/env bash
# Prints the path of the kernel's own KTAP parser, tools/testing/kunit/kunit.py
# of Debian's linux-source-6.1 (the debug kernel's source), extracting that
# directory once into ~/.cache/vhca/kunit-tool-<version>/ (VHCA_CACHE)
# under its own path: kunit.py finds the kernel tree from where it sits.
# Used by scripts/kunit-vm.py (`kunit.py parse`).
set -euo pipefail
tarball=/usr/src/linux-source-6.1.tar.xz
[ -f "$tarball" ] || { echo "kunit-tool: $tarball missing (apt-get install linux-source-6.1)" >&2; exit 1; }
srcver=$(dpkg-query -W -f='${Version}' linux-source-6.1)
out=${VHCA_CACHE:-$HOME/.cache/vhca}/kunit-tool-$srcver
tool=$out/tools/testing/kunit/kunit.py
if [ ! -f "$tool" ]; then
	mkdir -p "$(dirname "$out")"
	tmp=$(mktemp -d "$out.XXXXXX")
	tar -xJf "$tarball" -C "$tmp" --strip-components=1 linux-source-6.1/tools/testing/kunit
	# Another clone may have finished first: either copy is the same.
	mv -T "$tmp" "$out" 2>/dev/null || rm -rf "$tmp"
	[ -f "$tool" ] || { echo "kunit-tool: $tool missing (remove $out)" >&2; exit 1; }
fi
echo "$tool"
