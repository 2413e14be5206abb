#!/bin/sh
# Runs in the guest: NFS over RDMA with the kernel's nfsd (svcrdma, an
# `rdma 20049` listener) and client (xprtrdma), as Documentation/ulps.md
# shows.  The export is a tmpfs; rpcbind and rpc.mountd run while the
# server does.
#
#   nfs.sh server-start CLIENT_NET       export $EXPORT to CLIENT_NET
#                                        (e.g. 10.78.0.0/24), nfsd with
#                                        TCP 2049 and RDMA 20049
#   nfs.sh server-stop
#   nfs.sh mount ADDR VERS [options]     mount ADDR:$EXPORT on
#                                        $MNT-VERS over RDMA; prints the
#                                        mount point
#   nfs.sh umount VERS
set -eu
EXPORT=/srv/vhca-nfs
MNT=/mnt/vhca-nfs
RDMA_PORT=20049

server_start() {
	net=$1
	modprobe -a nfsd rpcrdma
	mountpoint -q /proc/fs/nfsd || mount -t nfsd nfsd /proc/fs/nfsd
	mkdir -p $EXPORT /run/rpcbind /var/lib/nfs/v4recovery
	mountpoint -q $EXPORT || mount -t tmpfs -o size=768m vhca-nfs $EXPORT
	chmod 1777 $EXPORT
	rpcbind
	# fsid=0: a tmpfs has no UUID to name it by, and it is NFSv4's root
	# (the guest's / is an overlay, which cannot be the parent of a
	# pseudo-root export): NFSv3 mounts $EXPORT, NFSv4 mounts /.
	exportfs -o rw,no_root_squash,insecure,fsid=0 "$net:$EXPORT"
	rpc.mountd
	# NFSv4 makes new clients wait out the grace period after nfsd
	# starts (90 s by default): 10 s is plenty for one guest.
	echo 10 > /proc/fs/nfsd/nfsv4leasetime
	echo 10 > /proc/fs/nfsd/nfsv4gracetime
	rpc.nfsd 4
	echo "rdma $RDMA_PORT" > /proc/fs/nfsd/portlist
	grep -q "rdma $RDMA_PORT" /proc/fs/nfsd/portlist
}

server_stop() {
	rpc.nfsd 0
	exportfs -ua
	exportfs -f
	for d in rpc.mountd rpcbind; do
		pid=$(pidof $d || true)
		[ -n "$pid" ] && kill $pid
	done
	umount $EXPORT 2>/dev/null || true
	umount /proc/fs/nfsd 2>/dev/null || true
}

nfs_mount() {
	addr=$1 vers=$2
	shift 2
	modprobe -a nfs rpcrdma
	[ "$vers" = 3 ] && modprobe nfsv3 || modprobe nfsv4
	dir=$MNT-$vers
	mkdir -p "$dir"
	# NFSv3's lock protocol needs rpc.statd: nolock keeps it local.
	opts=vers=$vers,proto=rdma,port=$RDMA_PORT
	path=/
	[ "$vers" = 3 ] && opts=$opts,nolock && path=$EXPORT
	mount -t nfs -o "$opts" "$@" "$addr:$path" "$dir"
	grep " $dir " /proc/mounts | grep -q "proto=rdma"
	echo "$dir"
}

case "$1" in
server-start) server_start "$2" ;;
server-stop) server_stop ;;
mount) shift; nfs_mount "$@" ;;
umount) umount "$MNT-$2" ;;
*)
	echo "usage: nfs.sh server-start NET | server-stop | mount ADDR VERS [opts] | umount VERS" >&2
	exit 2
	;;
esac
