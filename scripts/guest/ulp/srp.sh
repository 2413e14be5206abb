#!/bin/sh
# Runs in the guest: SRP with the LIO target's ib_srpt (targetcli) and the
# ib_srp initiator, as Documentation/ulps.md shows.  Discovery goes through
# Device Management MADs (ibsrpdm / srp_daemon query the SA for ports with
# IsDeviceManagementSupported, then ask each one's DM agent for its I/O
# controllers and services).
#
#   srp.sh target-start IBDEV BLOCKDEV INITIATOR...
#        srpt target on IBDEV port 1 (named by its GID), LUN 0 on
#        BLOCKDEV, an ACL for each INITIATOR's initiator port ID: an IB
#        device of this guest (its port 1), or the port GUID (0x and 16
#        hex digits) of an initiator elsewhere on the fabric (another VM)
#   srp.sh target-stop
#   srp.sh discover IBDEV        ibsrpdm -c through IBDEV port 1's umad:
#                                one add_target line per target
#   srp.sh login IBDEV [LINE]    write LINE (default: the first line of
#                                `discover`) to IBDEV port 1's add_target;
#                                prints the disk (/dev/sdX)
#   srp.sh logout                delete every SRP remote port
#   srp.sh disk                  the SRP disk
set -eu
. "$(dirname "$0")/common.sh"

gid0() {
	tr -d : < "/sys/class/infiniband/$1/ports/1/gids/0"
}

# The port GUID (16 hex digits) of an initiator: an IB device's port 1,
# or a GUID given as 0x<16 hex digits> (a port in another guest).
port_guid() {
	case $1 in
	0x????????????????) echo "${1#0x}" ;;
	*) gid0 "$1" | cut -c17-32 ;;
	esac
}

umad_of() {
	for u in /sys/class/infiniband_mad/umad*; do
		[ "$(cat "$u/ibdev")" = "$1" ] && [ "$(cat "$u/port")" = 1 ] &&
			{ echo "/dev/infiniband/${u##*/}"; return 0; }
	done
	echo "srp.sh: no umad for $1 port 1" >&2
	return 1
}

target_start() {
	ibdev=$1 dev=$2
	shift 2
	modprobe -a target_core_iblock ib_srpt
	# LIO names an srpt port "ib.<GID>"; an ACL "ib.<initiator port ID>",
	# which ib_srp makes of its initiator_ext (0 by default) and the
	# initiator port's GUID.
	tgt=ib.$(gid0 "$ibdev")
	acls=
	for ini in "$@"; do
		acls="$acls ib.0000000000000000$(port_guid "$ini")"
	done
	{
		echo "/backstores/block create name=srp0 dev=$dev"
		echo "/srpt create $tgt"
		echo "/srpt/$tgt/luns create /backstores/block/srp0"
		for acl in $acls; do
			echo "/srpt/$tgt/acls create $acl"
		done
	} | lio_run
	cfg=/sys/kernel/config/target/srpt/0x${tgt#ib.}/tpgt_1
	ls "$cfg/lun/lun_0" > /dev/null
	for acl in $acls; do
		ls "$cfg/acls/0x${acl#ib.}" > /dev/null
	done
	[ "$(cat "$cfg/enable")" = 1 ]
}

target_stop() {
	targets=$(ls /sys/kernel/config/target/srpt 2>/dev/null | grep '^0x' || true)
	{
		for t in $targets; do
			echo "/srpt delete ib.${t#0x}"
		done
		echo "/backstores/block delete srp0"
	} | lio_run
	lio_dbus_stop
	[ -z "$(ls /sys/kernel/config/target/srpt 2>/dev/null | grep '^0x')" ]
}

# ibsrpdm (srp_daemon) leaves out every target it cannot tell is not
# connected yet: it looks in /sys/class/scsi_host, which exists only once
# the SCSI midlayer is loaded, and prints nothing without it.  ib_srp,
# needed for the login anyway, loads it (in a fresh guest where no other
# ULP had, discovery found the target and printed no line).
discover() {
	modprobe -a sd_mod ib_srp
	ibsrpdm -c -d "$(umad_of "$1")"
}

# The disk once its node is there too: sysfs shows it first (device_add
# makes the kobject before devtmpfs's node), and fio given a missing
# /dev name would create a regular file there (Documentation/ulps.md).
disk() {
	for h in /sys/class/scsi_host/host*; do
		[ "$(cat "$h/proc_name" 2>/dev/null)" = ib_srp ] || continue
		for b in "$h"/device/target*/*/block/*; do
			[ -e "$b" ] && [ -b "/dev/${b##*/}" ] && { echo "/dev/${b##*/}"; return 0; }
		done
	done
	return 1
}

login() {
	ibdev=$1
	modprobe -a sd_mod ib_srp
	line=${2:-$(discover "$ibdev" | head -1)}
	[ -n "$line" ] || { echo "srp.sh: no target discovered" >&2; return 1; }
	echo "add_target: $line"
	echo "$line" > "/sys/class/infiniband_srp/srp-$ibdev-1/add_target"
	wait_for "the SRP disk" disk
}

logout() {
	for p in /sys/class/srp_remote_ports/*; do
		[ -e "$p/delete" ] && echo 1 > "$p/delete"
	done
	for i in $(seq 1 150); do
		[ -z "$(ls /sys/class/srp_remote_ports 2>/dev/null)" ] && return 0
		sleep 0.2
	done
	echo "srp.sh: SRP remote ports left" >&2
	return 1
}

case "$1" in
target-start) shift; target_start "$@" ;;
target-stop) target_stop ;;
discover) discover "$2" ;;
login) login "$2" "${3:-}" ;;
logout) logout ;;
disk) disk ;;
*)
	echo "usage: srp.sh target-start IBDEV DEV INI_IBDEV|0xGUID... | target-stop | discover IBDEV | login IBDEV [LINE] | logout | disk" >&2
	exit 2
	;;
esac
