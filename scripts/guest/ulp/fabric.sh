#!/bin/sh
# Runs in the guest: the IP side of the storage ULP setup
# (Documentation/ulps.md).  The target's address goes on one RDMA port,
# the host's on another, and two policy routes make every packet that the
# guest sends to one of them leave through the other one's interface, so
# that it crosses the fabric (one guest plays both ends):
#
#   fabric.sh vhca TARGET_IBDEV HOST_IBDEV   IPoIB on port 1 of each device
#   fabric.sh rxe                            rdma_rxe over a veth pair
#   fabric.sh netdev IBDEV                   the netdev of IBDEV's port 1
#
# Addresses: target 10.78.0.1, host 10.78.0.2.  Prints
# "target=<netdev> host=<netdev>".  Running it again (after the driver or
# a device came back) puts the addresses and routes on the new interfaces.
set -eu
T_IP=10.78.0.1
H_IP=10.78.0.2

# The IPoIB interface of port 1 of an IB device (ipoib sets dev_port to
# port - 1).  Waits: ipoib creates it a moment after the device appears.
netdev_of() {
	for i in $(seq 1 100); do
		for n in /sys/class/infiniband/$1/device/net/*; do
			[ -e "$n/dev_port" ] && [ "$(cat "$n/dev_port")" = 0 ] &&
				{ echo "${n##*/}"; return 0; }
		done
		sleep 0.2
	done
	echo "fabric.sh: no IPoIB interface for $1 port 1" >&2
	return 1
}

wait_carrier() {
	for i in $(seq 1 300); do
		grep -q 1 "/sys/class/net/$1/carrier" 2>/dev/null && return 0
		sleep 0.2
	done
	echo "fabric.sh: $1 has no carrier" >&2
	return 1
}

# Locally generated traffic (iif lo) to the host's address leaves through
# the target's interface and vice versa; the local table moves behind those
# rules, and accept_local lets each end take a packet whose source is one
# of the guest's own addresses.  arp_ignore=1: only the interface that has
# the address answers ARP for it.
routes() {
	t=$1 h=$2
	sysctl -qw net.ipv4.conf.all.rp_filter=0 net.ipv4.conf.default.rp_filter=0
	sysctl -qw net.ipv4.conf.all.accept_local=1 net.ipv4.conf.default.accept_local=1
	sysctl -qw net.ipv4.conf.all.arp_ignore=1
	for n in "$t" "$h"; do
		sysctl -qw "net.ipv4.conf.$n.rp_filter=0" "net.ipv4.conf.$n.accept_local=1"
	done
	ip addr replace $T_IP/24 dev "$t"
	ip addr replace $H_IP/24 dev "$h"
	ip link set "$t" up
	ip link set "$h" up
	ip route replace $H_IP dev "$t" table 100
	ip route replace $T_IP dev "$h" table 101
	ip rule del pref 10 2>/dev/null || true
	ip rule del pref 11 2>/dev/null || true
	ip rule add pref 10 iif lo to $H_IP lookup 100
	ip rule add pref 11 iif lo to $T_IP lookup 101
	if ! ip rule show pref 1000 | grep -q local; then
		ip rule add pref 1000 lookup local
		ip rule del pref 0 lookup local
	fi
	echo "target=$t host=$h"
}

case "$1" in
vhca)
	modprobe ib_ipoib
	t=$(netdev_of "$2")
	h=$(netdev_of "$3")
	routes "$t" "$h" >/dev/null
	wait_carrier "$t"
	wait_carrier "$h"
	echo "target=$t host=$h"
	;;
rxe)
	modprobe -a veth rdma_rxe
	ip link set lo up
	ip link add veth0 type veth peer name veth1
	sysctl -qw net.core.netdev_max_backlog=100000
	routes veth0 veth1 >/dev/null
	rdma link add rxe0 type rxe netdev veth0
	rdma link add rxe1 type rxe netdev veth1
	echo "target=veth0 host=veth1"
	;;
netdev)
	netdev_of "$2"
	;;
*)
	echo "usage: fabric.sh vhca TARGET_IBDEV HOST_IBDEV | rxe | netdev IBDEV" >&2
	exit 2
	;;
esac
