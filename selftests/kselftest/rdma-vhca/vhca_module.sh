#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vhca.ko unloads and loads again cleanly: its devices go and come back
# with every port ACTIVE, and the kernel log has no warning, bug or splat.
# The module is out of tree: its path is the argument (kselftest's
# runner passes KSELFTEST_VHCA_MODULE_SH_ARGS) or $VHCA_MODULE; without
# one the reload is skipped.
. "$(dirname "$0")/vhca_lib.sh"

ko=${1:-${VHCA_MODULE:-}}
vhca_require_devices
ktap_set_plan 5
if [ -z "$ko" ] || [ ! -r "$ko" ]; then
	for t in "rmmod vhca" "no vhca device left" "insmod vhca.ko" \
		 "devices back, every port ACTIVE" "kernel log clean"; do
		ktap_test_skip "$t (no vhca.ko path: KSELFTEST_VHCA_MODULE_SH_ARGS)"
	done
	ktap_finished
fi
count=$(vhca_devices | wc -l)
# ib_ipoib and the other ULPs let go of a device when it unregisters;
# only open user contexts (uverbs) would hold the module.
mark=$(dmesg | wc -l)
ktap_test_result "rmmod vhca" rmmod vhca
ktap_test_result "no vhca device left" [ -z "$(vhca_devices)" ]
ktap_test_result "insmod $(basename "$ko")" insmod "$ko"
devices_back() {
	vhca_wait_active 60 && [ "$(vhca_devices | wc -l)" = "$count" ]
}
ktap_test_result "$count device(s) back, every port ACTIVE" devices_back
bad=$(vhca_bad_dmesg_since "$mark")
[ -z "$bad" ] || ktap_print_msg "kernel log: $bad"
ktap_test_result "kernel log clean" [ -z "$bad" ]
ktap_finished
