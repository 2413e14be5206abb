#!/bin/sh
# Runs in the guest: wait (up to $1 seconds, default 30) for every RDMA port
# to be ACTIVE with a LID, then print `rdma link show`, `ibstat` and a table
# of the ports from sysfs.  Exit 0 only when every port is ACTIVE with a
# non-zero LID and there are $2 ports (default: at least one).
#   port-report.sh [timeout] [expected number of ports]
timeout=${1:-30}
expected=${2:-}

ports() {
	for port in /sys/class/infiniband/*/ports/*; do
		[ -e "$port/state" ] && echo "$port"
	done
}

all_active() {
	count=0
	for port in $(ports); do
		count=$((count + 1))
		[ "$(cat "$port/state")" = "4: ACTIVE" ] || return 1
		[ "$(cat "$port/lid")" != "0x0" ] || return 1
	done
	if [ -n "$expected" ]; then
		[ "$count" -eq "$expected" ]
	else
		[ "$count" -gt 0 ]
	fi
}

tries=0
while ! all_active && [ "$tries" -lt $((timeout * 4)) ]; do
	sleep 0.25
	tries=$((tries + 1))
done

echo "== rdma link show"
rdma link show
echo "== ibstat"
ibstat
echo "== ports (sysfs)"
printf '%-10s %-5s %-10s %-6s %-7s %s\n' DEVICE PORT STATE LID SM_LID NODE_GUID
for port in $(ports); do
	dev_dir=${port%/ports/*}
	printf '%-10s %-5s %-10s %-6s %-7s %s\n' "${dev_dir##*/}" "${port##*/}" \
		"$(cut -d' ' -f2 "$port/state")" "$(cat "$port/lid")" \
		"$(cat "$port/sm_lid")" "$(cat "$dev_dir/node_guid")"
done
if all_active; then
	echo "every port is ACTIVE with a LID"
	exit 0
fi
echo "FAIL: not every port is ACTIVE with a LID, or not ${expected:-any} ports"
exit 1
