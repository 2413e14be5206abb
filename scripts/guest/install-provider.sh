#!/bin/sh
# Runs in the guest: install the vhca libibverbs provider built by
# `make provider` (build/provider/) into the guest's root, which is the
# host's read-only root under a tmpfs overlay, so the copy lives as long
# as the guest.  libibverbs then finds it as every installed provider:
# /etc/libibverbs.d/vhca.driver names "vhca", and it loads
# libvhca-rdmav34.so from its provider directory.
#   install-provider.sh [dir]   (default: <repo>/build/provider)
set -eu
dir=${1:-$(dirname "$0")/../../build/provider}
libdir=/usr/lib/x86_64-linux-gnu/libibverbs
# A root whose rdma-core was built with the vhca provider in its tree (the
# Debian 13 guest root of scripts/build-guest-root.sh: rdma-core 65,
# libvhca-rdmav65.so) has it already; this build is for libibverbs 44.
for lib in "$libdir"/libvhca-rdmav*.so; do
	case $lib in
	*-rdmav34.so | *'*'*) ;;
	*) echo "install-provider: $lib is the root's own; nothing to install"; exit 0 ;;
	esac
done
mkdir -p "$libdir" /etc/libibverbs.d
cp "$dir/libvhca-rdmav34.so" "$libdir/"
cp "$dir/vhca.driver" /etc/libibverbs.d/
