#!/bin/bash
# Host unit tests of the driver core (`make check-unit`): driver/core
# compiled natively with the same freestanding flags as in the kernel
# (minus the kernel code model), plus ASan and UBSan, linked against the
# fake device of driver/fake (compiled freestanding like the core, as it
# is for vhca_kunit.ko), the fake kernel of driver/tests and GoogleTest;
# then the host-level pytest of the standalone switch (selftests/host/).
# Writes build/results/unit.xml (GoogleTest's JUnit report) and unit.txt
# ("passed=N failed=M", scripts/junit.py finish); exits non-zero when
# anything failed.  Extra arguments go to the test binary
# (e.g. --gtest_filter='BringUp*').
set -eu

repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
out=build/unit
mkdir -p "$out" build/results
rm -f build/results/unit.xml build/results/unit.txt
finish() { exec /usr/bin/python3 scripts/junit.py finish unit "$1"; }

# shellcheck source=scripts/ccache-env.sh
. scripts/ccache-env.sh
cxx=$VHCA_CCACHE${CXX:-g++}
cc=$VHCA_CCACHE${CC:-gcc}
sanitize="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
common="-std=gnu++17 -O1 -g -Wall -Wextra -Werror -Wno-unused-parameter -Wno-missing-field-initializers -Idriver/include -Iuapi $sanitize"
# The core as in the kernel: freestanding, no exceptions/RTTI, only gcc's
# own headers (so a stray #include <vector> fails here too).
core_flags="$common -ffreestanding -fno-exceptions -fno-rtti -fno-threadsafe-statics -fcheck-new -nostdinc -isystem $($cxx -print-file-name=include)"
# The fake device (driver/fake) under the core's rules, with its headers.
fake_flags="$core_flags -Idriver/core"
test_flags="$common -Idriver/core -Idriver/fake -Idriver/tests -pthread"

objs=""
# At most VHCA_JOBS (default: the CPU count) compilers at a time: 48 at
# once on a 2-core machine, beside other builds, took the load to 60.
jobs_max=${VHCA_JOBS:-$(nproc)}
rm -f "$out/compile-failed"
# Recompiles an object when its source, any header or this script is newer.
stale() { # source object
	[ ! -f "$2" ] || [ "$1" -nt "$2" ] ||
		[ -n "$(find driver/include driver/core driver/fake driver/tests uapi qemu-device fabric fuzz/shim \
			scripts/run-unit.sh \
			-newer "$2" \( -name '*.h' -o -name run-unit.sh \) | head -n 1)" ]
}
compile() { # flags source object [compiler]
	if stale "$2" "$3"; then
		while [ "$(jobs -rp | wc -l)" -ge "$jobs_max" ]; do
			wait -n || true
		done
		# shellcheck disable=SC2086  # $1 is a list of flags
		{ ${4:-$cxx} $1 -c -o "$3" "$2" || touch "$out/compile-failed"; } &
	fi
	objs="$objs $3"
}
for src in driver/core/*.cpp; do
	# vhca_core.cpp is the kernel build's single translation unit of
	# these same files.
	[ "$src" = driver/core/vhca_core.cpp ] && continue
	compile "$core_flags" "$src" "$out/core-$(basename "$src" .cpp).o"
done
for src in driver/fake/*.cpp; do
	compile "$fake_flags" "$src" "$out/fake-$(basename "$src" .cpp).o"
done
for src in driver/tests/*.cpp; do
	compile "$test_flags" "$src" "$out/test-$(basename "$src" .cpp).o"
done
# The device's pure placement code (no QEMU tree: QEMU's few headers from
# fuzz/shim) with its host test, qemu-device/tests/host; the fabric
# library's capture encoder (its tshark cases skip without tshark) and
# fault rule engine, plain C, with theirs, fabric/tests.
device_flags="-std=gnu11 -O2 -g -Wall -Wextra -Werror -Ifuzz/shim -Iqemu-device -Iuapi $sanitize"
fabric_flags="-std=gnu11 -O2 -g -Wall -Wextra -Werror -Ifabric -Iuapi $sanitize"
compile "$device_flags" qemu-device/vhca-place.c "$out/device-vhca-place.o" "$cc"
for src in fabric/vhca-capture.c fabric/vhca-fault-rules.c; do
	compile "$fabric_flags" "$src" "$out/fabric-$(basename "$src" .c).o" "$cc"
done
for src in qemu-device/tests/host/*.cpp; do
	compile "$test_flags -Ifuzz/shim -Iqemu-device -Iuapi" "$src" "$out/device-test-$(basename "$src" .cpp).o"
done
for src in fabric/tests/*.cpp; do
	compile "$test_flags -Ifabric -Iuapi" "$src" "$out/fabric-test-$(basename "$src" .cpp).o"
done
wait
if [ -e "$out/compile-failed" ]; then
	echo "run-unit.sh: compilation FAILED" >&2
	finish 1
fi
# shellcheck disable=SC2086
${CXX:-g++} $sanitize -pthread -o "$out/vhca-unit" $objs -lgtest -lgtest_main || finish 1

log=$out/unit.log
set +e
ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1 \
	"$out/vhca-unit" --gtest_output=xml:build/results/unit.xml "$@" >"$log" 2>&1
rc=$?
cat "$log"
# Host-level tests of the standalone switch (no VMs), against CA ports
# played over its unix sockets: forwarding, tables, traps, SA, faults and
# output queues (selftests/host/switch_lone.py), fault rules
# (selftests/host/switch_rules.py), its embedded SM in SMInfo arbitration
# (selftests/host/switch_arb.py), topologies of many switches
# (selftests/host/switch_topology.py); and the middleware soak's
# /proc/interrupts reader (selftests/host/irq_counts.py), leak guard
# (selftests/host/footprint_leaks.py) and QMP probe
# (selftests/host/mainloop_probe_fake.py), and vmlib's QMP client, whose
# ids keep a late answer from passing for the next command's
# (selftests/host/vm_qmp_fake.py), and its KVM probe cache when guests
# probe at once (selftests/host/kvm_probe_cache.py).  Their cases
# join unit.xml.
host_xml=$out/host.xml
rm -f "$host_xml"
if scripts/build-switch.sh; then
	(cd selftests && /usr/bin/python3 -m pytest -q -p no:cacheprovider \
		--junitxml="../$host_xml" host/switch_lone.py host/switch_arb.py host/switch_capture.py \
		host/switch_rules.py host/switch_topology.py host/irq_counts.py \
		host/footprint_leaks.py host/mainloop_probe_fake.py host/vm_qmp_fake.py \
		host/kvm_probe_cache.py) || rc=1
else
	rc=1
fi
[ -f build/results/unit.xml ] &&
	/usr/bin/python3 scripts/junit.py merge build/results/unit.xml \
		build/results/unit.xml "$host_xml"
# A crash, sanitizer report or leak after the last case still fails the
# tier: finish adds a failed case when the XML has none.
finish $rc
