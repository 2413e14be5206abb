#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The port counters vhca's get_hw_stats reads from the device's PMA
# (driver/shim/stats.c): `rdma statistic show link` lists them, they
# agree with ib_core's own PMA query (sysfs ports/P/counters, through
# process_mad), and MADs sent from the port (saquery, the SA's answers)
# move them by at least their count.
. "$(dirname "$0")/vhca_lib.sh"

NAMES="port_xmit_data port_rcv_data port_xmit_packets port_rcv_packets
unicast_xmit_packets unicast_rcv_packets multicast_xmit_packets
multicast_rcv_packets link_downed port_rcv_errors port_xmit_discards"
QUERIES=5

# $1 of `rdma statistic show link $2`: "name value" pairs on the "link
# dev/port" line (iproute2 6.1) or one pair a line below it (6.15).
stat() {
	rdma statistic show link "$2" |
	awk -v n="$1" '{ for (i = 1; i < NF; i++) if ($i == n) print $(i + 1) }'
}

vhca_require_devices
vhca_wait_active 60
dev=$(vhca_devices | head -n 1)
link=$dev/1
ktap_set_plan 4

missing=
listed=$(rdma statistic show link "$link")
ktap_print_msg "$listed"
# One line of "name value" pairs, however iproute2 laid them out.
flat=" $(echo "$listed" | tr -s ' \n' '  ') "
for n in $NAMES; do
	echo "$flat" | grep -q " $n [0-9]" || missing="$missing $n"
done
ktap_test_result "rdma statistic lists the port counters of $link" [ -z "$missing" ]

before=$(stat port_xmit_packets "$link")
sysfs=$(cat "$VHCA_SYSFS/$dev/ports/1/counters/port_xmit_packets")
after=$(stat port_xmit_packets "$link")
ktap_print_msg "port_xmit_packets: rdma $before, sysfs counters $sysfs, rdma $after"
ktap_test_result "hw_counters agree with ib_core's PMA counters" \
	[ "$before" -le "$sysfs" -a "$sysfs" -le "$after" ]

if ! command -v saquery >/dev/null; then
	ktap_test_skip "SA queries move port_xmit_packets (no saquery: infiniband-diags)"
	ktap_test_skip "SA answers move port_rcv_data (no saquery: infiniband-diags)"
	ktap_finished
fi
xmit0=$(stat port_xmit_packets "$link")
rcv0=$(stat port_rcv_data "$link")
for _ in $(seq "$QUERIES"); do
	saquery -C "$dev" -P 1 NR >/dev/null || ktap_print_msg "saquery failed"
done
xmit1=$(stat port_xmit_packets "$link")
rcv1=$(stat port_rcv_data "$link")
ktap_print_msg "port_xmit_packets $xmit0 -> $xmit1, port_rcv_data $rcv0 -> $rcv1"
ktap_test_result "$QUERIES SA queries move port_xmit_packets by $QUERIES" \
	[ $((xmit1 - xmit0)) -ge "$QUERIES" ]
# A MAD answer: 256 octets + DETH 8 + LRH, BTH, ICRC, VCRC 26, in words.
ktap_test_result "their answers move port_rcv_data by $QUERIES MADs" \
	[ $((rcv1 - rcv0)) -ge $((QUERIES * (256 + 8 + 26) / 4)) ]
ktap_finished
