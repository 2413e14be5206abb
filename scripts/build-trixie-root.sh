#!/usr/bin/env bash
# Build (once) a Debian 13 (trixie) root filesystem with mmdebstrap, for
# what needs trixie's toolchain or libc: the module for Linux 7.3, whose
# headers call gcc-14 and whose kbuild tools (fixdep, modpost) link
# against glibc >= 2.38 (scripts/build-module.sh runs that build in it).
# scripts/build-debug-kernel.sh builds the 7.3 debug kernel in it, and
# rdma-core 65 is built whole in it too (scripts/check-rdma-core-patches.sh:
# Debian 12's cmake and Cython are older than it asks for).  The userspace
# and QEMU work will reuse the same root.
#
# Cached in $VHCA_CACHE (default ~/.cache/vhca) as trixie-root-<hash>,
# <hash> of the package list and this script; prints the root's path on
# the last line of stdout.  Packages come from the machine's own mirror
# (the entries scripts/apt-trixie.sh derives); the root is never booted.
set -euo pipefail
. "$(dirname "$0")/apt-lock.sh"  # with_apt_lock
cd "$(dirname "$0")/.."

packages=(
	# the kernel's module build: compilers (C and the C++ core), make,
	# binutils, and the libraries linux-kbuild-7.3's tools link against
	gcc-14 g++-14 make binutils libc6-dev libelf1t64 libssl3t64 zlib1g pahole
	kmod bc
	# the debug kernel built from linux-source-7.3 (build-debug-kernel.sh):
	# what its Recommends list for a kernel build (flex, bison, the
	# libelf headers objtool needs, libssl headers for the certs tools)
	flex bison libelf-dev libssl-dev cpio xz-utils perl
	# rdma-core 65 built whole (scripts/check-rdma-core-patches.sh): its
	# Debian build dependencies, pandoc for the Markdown man pages
	cmake ninja-build pkg-config python3-dev cython3 python3-docutils pandoc
	libnl-3-dev libnl-route-3-dev libudev-dev libsystemd-dev
)
cache_dir=${VHCA_CACHE:-$HOME/.cache/vhca}
hash=$( { printf '%s\n' "${packages[@]}" | LC_ALL=C sort; sha256sum "$0" | cut -d' ' -f1; } |
	sha256sum | cut -c1-16)
root=$cache_dir/trixie-root-$hash
if [ -f "$root/.vhca-complete" ]; then
	echo "$root"
	exit 0
fi

command -v mmdebstrap >/dev/null || {
	echo "build-trixie-root: installing mmdebstrap (bookworm's)" >&2
	with_apt_lock env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
		mmdebstrap </dev/null >&2
}
scripts/apt-trixie.sh >&2
mkdir -p "$cache_dir"
tmp=$(mktemp -d "$root.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
echo "build-trixie-root: building $root (log: $tmp.log)" >&2
# The sources file of apt-trixie.sh: trixie and trixie-backports from the
# machine's mirror, with its keyring.
packages_csv=$(IFS=,; echo "${packages[*]}")
if ! nice -n 10 mmdebstrap --mode=root --variant=minbase --include="$packages_csv" \
	trixie "$tmp" /etc/apt/sources.list.d/vhca-trixie.sources >"$tmp.log" 2>&1; then
	tail -30 "$tmp.log" >&2
	echo "build-trixie-root: mmdebstrap FAILED" >&2
	exit 1
fi
touch "$tmp/.vhca-complete"
rm -f "$tmp.log"
mv "$tmp" "$root"
trap - EXIT
echo "$root"
