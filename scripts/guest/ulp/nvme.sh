#!/bin/sh
# Runs in the guest: NVMe over RDMA with the kernel's nvmet-rdma target
# (configfs) and nvme-rdma host (nvme-cli), as Documentation/ulps.md shows.
#
#   nvme.sh target-start ADDR BLOCKDEV   subsystem $NQN, namespace 1 on
#                                        BLOCKDEV, RDMA port 1 on ADDR:4420
#   nvme.sh target-stop
#   nvme.sh connect ADDR [options]       discover, connect, both with the
#                                        options (e.g. -w HOST_ADDR); prints
#                                        the namespace's block device
#   nvme.sh disconnect                   nvme disconnect -n $NQN
#   nvme.sh device | controller          /dev/nvmeXnY | nvmeX of $NQN
set -eu
. "$(dirname "$0")/common.sh"
NQN=${NVME_NQN:-nqn.2026-11.org.vhca:nvme-rdma}
PORT=4420
CFG=/sys/kernel/config/nvmet

target_start() {
	addr=$1 dev=$2
	modprobe -a nvmet nvmet-rdma
	mountpoint -q /sys/kernel/config || mount -t configfs none /sys/kernel/config
	sub=$CFG/subsystems/$NQN
	mkdir "$sub"
	echo 1 > "$sub/attr_allow_any_host"
	mkdir "$sub/namespaces/1"
	printf %s "$dev" > "$sub/namespaces/1/device_path"
	echo 1 > "$sub/namespaces/1/enable"
	mkdir $CFG/ports/1
	echo rdma > $CFG/ports/1/addr_trtype
	echo ipv4 > $CFG/ports/1/addr_adrfam
	echo "$addr" > $CFG/ports/1/addr_traddr
	echo $PORT > $CFG/ports/1/addr_trsvcid
	ln -s "$sub" "$CFG/ports/1/subsystems/$NQN"
}

target_stop() {
	rm -f "$CFG/ports/1/subsystems/$NQN"
	[ -d $CFG/ports/1 ] && rmdir $CFG/ports/1
	sub=$CFG/subsystems/$NQN
	if [ -d "$sub" ]; then
		echo 0 > "$sub/namespaces/1/enable"
		rmdir "$sub/namespaces/1"
		rmdir "$sub"
	fi
	return 0
}

# The block device of namespace 1 of $NQN: /sys/block/nvmeXnY/device is
# the subsystem (native multipath) or the controller; both name the NQN.
# Only once its node is there too: sysfs shows the disk first (device_add
# makes the kobject before devtmpfs's node), and fio given a missing /dev
# name would create a regular file there (Documentation/ulps.md).
namespace_dev() {
	for b in /sys/block/nvme*n1; do
		case "${b##*/}" in *c*) continue ;; esac
		[ "$(cat "$b/device/subsysnqn" 2>/dev/null)" = "$NQN" ] &&
			[ -b "/dev/${b##*/}" ] && { echo "/dev/${b##*/}"; return 0; }
	done
	return 1
}

# The controller (nvmeX) connected to $NQN.
controller() {
	for c in /sys/class/nvme/nvme*; do
		[ "$(cat "$c/subsysnqn" 2>/dev/null)" = "$NQN" ] && { echo "${c##*/}"; return 0; }
	done
	return 1
}

connect() {
	addr=$1
	shift
	modprobe nvme-rdma
	nvme discover -t rdma -a "$addr" -s $PORT "$@"
	nvme connect -t rdma -a "$addr" -s $PORT -n "$NQN" "$@"
	wait_for "the block device of $NQN" namespace_dev
}

case "$1" in
target-start) target_start "$2" "$3" ;;
target-stop) target_stop ;;
connect) shift; connect "$@" ;;
disconnect) nvme disconnect -n "$NQN" ;;
device) namespace_dev ;;
controller) controller ;;
*)
	echo "usage: nvme.sh target-start ADDR DEV | target-stop | connect ADDR [opts] | disconnect | device" >&2
	exit 2
	;;
esac
