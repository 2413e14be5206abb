#!/bin/sh
# Runs in the guest: iSER with the LIO target (targetcli, ib_isert) and
# open-iscsi's initiator (iscsid, iscsiadm with the built-in `iser`
# interface, ib_iser), as Documentation/ulps.md shows.
#
#   iser.sh target-start ADDR BLOCKDEV   target $IQN, LUN 0 on BLOCKDEV,
#                                        portal ADDR:3260 with iSER on
#   iser.sh target-stop
#   iser.sh login ADDR       iscsid, discovery, login over iser; prints
#                            the disk (/dev/sdX)
#   iser.sh logout ADDR      logout, forget the node, stop iscsid
#   iser.sh disk             the session's disk
set -eu
. "$(dirname "$0")/common.sh"
IQN=${ISER_IQN:-iqn.2026-11.org.vhca:iser}
PORT=3260
# Seconds a session whose connection is lost holds its I/O before failing
# it (open-iscsi's node.session.timeo.replacement_timeout, 120 by
# default): within a fault test, and shorter than the hung-task watchdog.
REPLACEMENT_TIMEOUT=${ISER_REPLACEMENT_TIMEOUT:-20}

target_start() {
	addr=$1 dev=$2
	modprobe -a target_core_iblock iscsi_target_mod ib_isert
	lio_run <<-EOF
	/backstores/block create name=iser0 dev=$dev
	/iscsi create $IQN
	/iscsi/$IQN/tpg1/luns create /backstores/block/iser0
	/iscsi/$IQN/tpg1/portals delete 0.0.0.0 $PORT
	/iscsi/$IQN/tpg1/portals create $addr $PORT
	/iscsi/$IQN/tpg1/portals/$addr:$PORT enable_iser true
	/iscsi/$IQN/tpg1 set attribute authentication=0 generate_node_acls=1 demo_mode_write_protect=0 cache_dynamic_acls=1
	EOF
	# lio_run cannot tell a failed command: check the result in configfs.
	tpg=/sys/kernel/config/target/iscsi/$IQN/tpgt_1
	[ "$(cat "$tpg/np/$addr:$PORT/iser")" = 1 ]
	[ "$(cat "$tpg/enable")" = 1 ]
	ls "$tpg/lun/lun_0" > /dev/null
}

target_stop() {
	lio_run <<-EOF
	/iscsi delete $IQN
	/backstores/block delete iser0
	EOF
	lio_dbus_stop
	! [ -e "/sys/kernel/config/target/iscsi/$IQN" ]
}

start_iscsid() {
	mkdir -p /run/lock/iscsi
	[ -s /run/iscsid.pid ] && kill -0 "$(cat /run/iscsid.pid)" 2>/dev/null && return 0
	# iscsid forks and writes its pid file once it listens.
	iscsid
	for i in $(seq 1 50); do
		[ -s /run/iscsid.pid ] && return 0
		sleep 0.2
	done
	echo "iser.sh: iscsid did not start" >&2
	return 1
}

# The disk of our session: "Attached scsi disk sdX" in iscsiadm -P 3.
disk() {
	d=$(iscsiadm -m session -P 3 2>/dev/null | sed -n 's/.*Attached scsi disk \([a-z]*\).*/\1/p' | head -1)
	[ -n "$d" ] && [ -b "/dev/$d" ] && echo "/dev/$d"
}

login() {
	addr=$1
	modprobe -a sd_mod ib_iser
	start_iscsid
	iscsiadm -m discovery -t sendtargets -p "$addr:$PORT" -I iser
	iscsiadm -m node -T "$IQN" -p "$addr:$PORT" -I iser -o update \
		-n node.session.timeo.replacement_timeout -v "$REPLACEMENT_TIMEOUT"
	iscsiadm -m node -T "$IQN" -p "$addr:$PORT" -I iser --login
	wait_for "the disk of the session" disk && return 0
	iscsiadm -m session -P 3 >&2
	return 1
}

logout() {
	addr=$1
	iscsiadm -m node -T "$IQN" -p "$addr:$PORT" -I iser --logout || true
	iscsiadm -m node -T "$IQN" -p "$addr:$PORT" -I iser -o delete || true
	iscsiadm -m discoverydb -t sendtargets -p "$addr:$PORT" -I iser -o delete || true
	if [ -s /run/iscsid.pid ]; then
		pid=$(cat /run/iscsid.pid)
		kill "$pid" 2>/dev/null || true
		for i in $(seq 1 50); do
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.1
		done
	fi
	! iscsiadm -m session > /dev/null 2>&1
}

case "$1" in
target-start) target_start "$2" "$3" ;;
target-stop) target_stop ;;
login) login "$2" ;;
logout) logout "$2" ;;
disk) disk ;;
*)
	echo "usage: iser.sh target-start ADDR DEV | target-stop | login ADDR | logout ADDR | disk" >&2
	exit 2
	;;
esac
