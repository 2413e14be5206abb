#!/bin/bash
# Host unit tests of the driver core (`make check-unit`): driver/core
# compiled natively with the same freestanding flags as in the kernel
# (minus the kernel code model), plus ASan and UBSan, linked against the
# fake kernel and fake device of driver/tests and GoogleTest.
# Writes build/results/unit.txt ("passed=N failed=M"); exits non-zero when
# anything failed.  Extra arguments go to the test binary
# (e.g. --gtest_filter='BringUp*').
set -eu

repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
out=build/unit
mkdir -p "$out" build/results
result=build/results/unit.txt
echo "passed=0 failed=1" >"$result"   # until proven otherwise

cxx=${CXX:-g++}
sanitize="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
common="-std=gnu++17 -O1 -g -Wall -Wextra -Werror -Wno-unused-parameter -Wno-missing-field-initializers -Idriver/include -Iuapi $sanitize"
# The core as in the kernel: freestanding, no exceptions/RTTI, only gcc's
# own headers (so a stray #include <vector> fails here too).
core_flags="$common -ffreestanding -fno-exceptions -fno-rtti -fno-threadsafe-statics -fcheck-new -nostdinc -isystem $($cxx -print-file-name=include)"
test_flags="$common -Idriver/core -Idriver/tests -pthread"

objs=""
pids=""
# Recompiles an object when its source, any header or this script is newer.
stale() { # source object
	[ ! -f "$2" ] || [ "$1" -nt "$2" ] ||
		[ -n "$(find driver/include driver/core driver/tests uapi scripts/run-unit.sh \
			-newer "$2" \( -name '*.h' -o -name run-unit.sh \) | head -n 1)" ]
}
compile() { # flags source object
	if stale "$2" "$3"; then
		# shellcheck disable=SC2086  # $1 is a list of flags
		$cxx $1 -c -o "$3" "$2" &
		pids="$pids $!"
	fi
	objs="$objs $3"
}
for src in driver/core/*.cpp; do
	# vhca_core.cpp is the kernel build's single translation unit of
	# these same files.
	[ "$src" = driver/core/vhca_core.cpp ] && continue
	compile "$core_flags" "$src" "$out/core-$(basename "$src" .cpp).o"
done
for src in driver/tests/*.cpp; do
	compile "$test_flags" "$src" "$out/test-$(basename "$src" .cpp).o"
done
status=0
for pid in $pids; do wait "$pid" || status=1; done
if [ $status != 0 ]; then
	echo "run-unit.sh: compilation FAILED" >&2
	exit 1
fi
# shellcheck disable=SC2086
$cxx $sanitize -pthread -o "$out/vhca-unit" $objs -lgtest -lgtest_main

log=$out/unit.log
set +e
ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1 \
	"$out/vhca-unit" "$@" >"$log" 2>&1
rc=$?
set -e
cat "$log"
passed=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$log" | tail -n 1)
failed=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*listed below.*/\1/p' "$log" | tail -n 1)
passed=${passed:-0}
failed=${failed:-0}
# A crash, sanitizer report or leak after the summary still fails the tier.
if [ $rc != 0 ] && [ "$failed" = 0 ]; then failed=1; fi
echo "passed=$passed failed=$failed" >"$result"
echo "run-unit.sh: passed=$passed failed=$failed"
[ "$failed" = 0 ] && [ $rc = 0 ]
