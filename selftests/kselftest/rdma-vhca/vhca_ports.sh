#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Every port of every vhca device is ACTIVE and LinkUp, has a LID (an SM
# assigned one: IBA 14.4.11) and the InfiniBand link layer, and its GID 0
# carries the port GUID under the default subnet prefix.
. "$(dirname "$0")/vhca_lib.sh"

vhca_require_devices
mapfile -t ports < <(vhca_ports)
ktap_set_plan $((${#ports[@]} * 4))
vhca_wait_active 60 || ktap_print_msg "not every port ACTIVE after 60 s"

for entry in "${ports[@]}"; do
	read -r dev port <<<"$entry"
	dir=$VHCA_SYSFS/$dev/ports/$port
	state=$(cat "$dir/state")
	phys=$(cat "$dir/phys_state")
	lid=$(cat "$dir/lid")
	layer=$(cat "$dir/link_layer")
	gid=$(cat "$dir/gids/0")
	ktap_print_msg "$dev/$port: $state, $phys, lid $lid, $layer, gid0 $gid"
	# ktap_test_result runs its command as $@, unquoted: no argument may
	# hold a space, so the names after "N: " are compared.
	ktap_test_result "$dev/$port state ACTIVE" [ "${state#4: }" = ACTIVE ]
	ktap_test_result "$dev/$port phys_state LinkUp" [ "${phys#5: }" = LinkUp ]
	ktap_test_result "$dev/$port has a LID" [ $((lid)) -ne 0 ]
	ktap_test_result "$dev/$port link layer InfiniBand, GID 0 link-local" \
		[ "$layer" = InfiniBand -a "${gid%%:0000:0000:0000:*}" = fe80 ]
done
ktap_finished
