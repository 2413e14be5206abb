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

# iscsid in the foreground, its log (open-iscsi's log_do_log_std: to
# stderr) in $ISCSID_LOG: the guest has no syslog, and the session
# recovery of a fault test is told by iscsid's lines ("connectionN:0 is
# operational after recovery").  It listens once its abstract socket
# (ISCSIADM_ABSTRACT_NAMESPACE) is in /proc/net/unix.
ISCSID_LOG=/run/iscsid.log
start_iscsid() {
	mkdir -p /run/lock/iscsi
	[ -s /run/iscsid.pid ] && kill -0 "$(cat /run/iscsid.pid)" 2>/dev/null && return 0
	setsid iscsid -f -n < /dev/null >> $ISCSID_LOG 2>&1 &
	echo $! > /run/iscsid.pid
	for i in $(seq 1 50); do
		grep -q ISCSIADM_ABSTRACT_NAMESPACE /proc/net/unix && return 0
		sleep 0.2
	done
	echo "iser.sh: iscsid did not start" >&2
	cat $ISCSID_LOG >&2
	return 1
}

# The disk of our session: "Attached scsi disk sdX" in iscsiadm -P 3.
disk() {
	d=$(iscsiadm -m session -P 3 2>/dev/null | sed -n 's/.*Attached scsi disk \([a-z]*\).*/\1/p' | head -1)
	[ -n "$d" ] && [ -b "/dev/$d" ] && echo "/dev/$d"
}

# SendTargets discovery over iSER.  iscsiadm runs this login itself
# (open-iscsi 2.1.8, usr/discovery.c iscsi_login()) and can lose the
# target's Login Response: it sends the Login Request with a SEND_PDU
# netlink request and waits for the kernel's answer in __kipc_call(); a
# RECV_PDU event that comes first (the response, when the target answers
# before the kernel's netlink answer to SEND_PDU is queued) goes to
# ctldev_handle(), which parks it in conn->recv_context, and iscsi_login()
# then polls the empty netlink socket until "Login response timeout"
# (30 s).  The response reached the initiator: ib_iser's iser_login_rsp()
# logged it.  With -d 1 iscsiadm logs "expecting event ..., got ...,
# handling..." when it happens.  A second discovery succeeds; iscsid's
# own logins (the session's) queue the event and are not affected.
# Documentation/history.md "iscsiadm's lost discovery response".
discover() {
	addr=$1
	iscsiadm -d 1 -m discovery -t sendtargets -p "$addr:$PORT" -I iser && return 0
	echo "iser.sh: discovery failed; once more (iscsiadm's lost login response)" >&2
	iscsiadm -d 1 -m discovery -t sendtargets -p "$addr:$PORT" -I iser
}

login() {
	addr=$1
	modprobe -a sd_mod ib_iser
	start_iscsid
	discover "$addr"
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
