#!/bin/sh
# Run a command inside a root filesystem (the Debian 13 root of
# scripts/build-trixie-root.sh), in a private mount namespace with the
# given host directories, /dev and /proc bound at their own paths:
#
#   scripts/in-root.sh ROOT "DIR [DIR...]" COMMAND [ARG...]
#
# Used by build-module.sh (7.3's and the debug kernel's modules),
# check-rdma-core-patches.sh and build-rdma-core-usr.sh.  The mounts go
# with the namespace when the command exits: nothing stays bound.
set -eu
root=$1
binds=$2
shift 2
# shellcheck disable=SC2016
exec unshare -m sh -c '
	root=$1; shift; binds=$1; shift
	for d in $binds /dev /proc; do
		mkdir -p "$root$d" && mount --bind "$d" "$root$d" || exit 1
	done
	exec chroot "$root" "$@"' sh "$root" "$binds" "$@"
