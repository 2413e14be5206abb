#!/usr/bin/env bash
# Prints the path of the kernel's own KTAP parser, tools/testing/kunit/kunit.py
# of the debug kernel's source (linux-source-7.3): scripts/build-debug-kernel.sh
# keeps that directory in the kernel's cache entry, build/kernel-debug/
# kunit-tool/, so the parser is always the one of the kernel whose output
# it reads.  Used by scripts/kunit-vm.py (`kunit.py parse`).
set -euo pipefail
cd "$(dirname "$0")/.."
tool=$(realpath -e build/kernel-debug/kunit-tool/tools/testing/kunit/kunit.py 2>/dev/null) || {
	echo "kunit-tool: build/kernel-debug/kunit-tool/tools/testing/kunit/kunit.py missing (make kernel-debug)" >&2
	exit 1
}
echo "$tool"
