# SPDX-License-Identifier: GPL-2.0
# Sourced by the vhca_*.sh tests: kselftest's KTAP helpers and what the
# tests share.  The vhca devices are the ib_devices named vhca<N>
# (driver/shim/ib.c registers "vhca%d").
. "$(dirname "$0")/../kselftest/ktap_helpers.sh"

VHCA_SYSFS=/sys/class/infiniband

# The vhca ib_devices, one name a line.
vhca_devices() {
	for d in "$VHCA_SYSFS"/vhca*; do
		[ -e "$d" ] && echo "${d##*/}"
	done
}

# "dev port" for every port of every vhca device, one a line.
vhca_ports() {
	for dev in $(vhca_devices); do
		for p in "$VHCA_SYSFS/$dev"/ports/*; do
			echo "$dev ${p##*/}"
		done
	done
}

# Wait until every port of every vhca device is ACTIVE (an SM brings them
# up: the device's own, or opensm); seconds in $1.  0 when they are.
vhca_wait_active() {
	local left=$1 p
	while :; do
		p=$(cat "$VHCA_SYSFS"/vhca*/ports/*/state 2>/dev/null |
		    grep -vc ACTIVE)
		[ "$p" = 0 ] && [ -n "$(vhca_devices)" ] && return 0
		[ "$left" -le 0 ] && return 1
		sleep 1
		left=$((left - 1))
	done
}

# Lines of the kernel log after line $1 that show a warning, bug, oops or
# splat (the patterns of selftests/vmlib.py BAD_DMESG).
vhca_bad_dmesg_since() {
	dmesg | tail -n +"$(($1 + 1))" |
	grep -E 'WARNING:|BUG:|Oops|Call Trace|general protection|KASAN|UBSAN|refcount_t:|list_(add|del) corruption|possible (circular|recursive) locking|inconsistent lock state|scheduling while atomic|suspected memory leak'
}

# Skip the whole test (KTAP "1..0 # SKIP") unless vhca devices exist.
vhca_require_devices() {
	ktap_print_header
	if [ -z "$(vhca_devices)" ]; then
		ktap_skip_all "no vhca device (load vhca.ko in a guest with vhca PCI devices)"
		exit "$KSFT_SKIP"
	fi
}
