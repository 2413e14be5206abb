#!/usr/bin/env bash
# Build (once) the Debian 13 (trixie) root filesystem that a guest boots
# with GUEST_ROOT=trixie (selftests/vmlib.py exports it over 9p instead of
# the host's /): mmdebstrap from the machine's own mirror (the entries of
# scripts/apt-trixie.sh), holding what the guest tiers run, with rdma-core
# 65 and the vhca provider of scripts/build-rdma-core-usr.sh installed over
# trixie's rdma-core 56 (perftest, UCX, libfabric, Open MPI depend on
# libibverbs1, so 56's libraries come in as dependencies; 65's files
# replace them, ldconfig runs, and the check at the end refuses a root
# where libibverbs or the tools are not 65's).  The packages that rdma-core
# itself builds (ibverbs-utils, rdmacm-utils, infiniband-diags, srptools,
# python3-pyverbs) are not installed: 65 brings them.
#
# `build-guest-root.sh --base-only` stops after the packages (step 1).
#
# A root of its own, not the build root of scripts/build-trixie-root.sh
# (whose hash the 7.3 module and debug kernel builds depend on).  Cached in
# $VHCA_CACHE as trixie-guest-root-<hash> (of the base's name and the
# rdma-core build's name), over trixie-guest-base-<hash of the package list
# and mmdebstrap's options>; prints the root's path on
# the last line of stdout.  Never booted as a host: the guest mounts it
# read-only under a tmpfs overlay (scripts/guest/init-stage1).
set -euo pipefail
. "$(dirname "$0")/apt-lock.sh"  # with_apt_lock
cd "$(dirname "$0")/.."

packages=(
	# what scripts/guest/init-stage2 and the harness run
	busybox bash iproute2 kmod procps pciutils util-linux lsof psmisc
	# the kselftest runner of test_kselftest.py
	make
	python3 python3-pytest gzip
	# pyverbs' modules, built in the tree with CMake's Python3 Development,
	# link libpython (Debian's python3 package does not bring it)
	libpython3.13
	# user verbs and the fabric (rdma-core's own tools come from 65)
	perftest opensm qperf
	# middleware
	ucx-utils libucx0 openmpi-bin libfabric-bin
	# mpirun's launcher into the other guest (ssh over IPoIB,
	# selftests/fabric/twovm_mpi.py); openmpi-bin brings the client
	openssh-server
	# storage ULPs; targetcli needs a system bus (dbus, scripts/guest/ulp/
	# common.sh), the iSER reset test sg_reset (sg3-utils)
	nvme-cli targetcli-fb open-iscsi nfs-kernel-server fio dbus sg3-utils
)
cache_dir=${VHCA_CACHE:-$HOME/.cache/vhca}
mkdir -p "$cache_dir"

# 1. The packages: trixie-guest-base-<hash of the list and mmdebstrap's
# options>, built without rdma-core 65 so that a new series rebuilds only
# step 2.
# shellcheck disable=SC2016
mmdebstrap_options=(--mode=root --variant=minbase
	--customize-hook='rm -rf "$1"/var/cache/apt/archives/*.deb "$1"/var/lib/apt/lists/*_Packages')
base_hash=$( { printf '%s\n' "${packages[@]}" | LC_ALL=C sort
	printf '%s\n' "${mmdebstrap_options[@]}"; } | sha256sum | cut -c1-16)
base=$cache_dir/trixie-guest-base-$base_hash
if [ ! -f "$base/.vhca-complete" ]; then
	command -v mmdebstrap >/dev/null || {
		echo "build-guest-root: installing mmdebstrap (bookworm's)" >&2
		with_apt_lock env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
			mmdebstrap </dev/null >&2
	}
	scripts/apt-trixie.sh >&2
	tmp=$(mktemp -d "$base.XXXXXX")
	trap 'rm -rf "$tmp"' EXIT
	echo "build-guest-root: building $base (log: $tmp.log)" >&2
	start=$(date +%s)
	packages_csv=$(IFS=,; echo "${packages[*]}")
	if ! nice -n 10 mmdebstrap "${mmdebstrap_options[@]}" --include="$packages_csv" \
		trixie "$tmp" /etc/apt/sources.list.d/vhca-trixie.sources >"$tmp.log" 2>&1; then
		tail -30 "$tmp.log" >&2
		echo "build-guest-root: mmdebstrap FAILED" >&2
		exit 1
	fi
	echo "$(($(date +%s) - start))" >"$tmp/.vhca-build-seconds"
	touch "$tmp/.vhca-complete"
	rm -f "$tmp.log"
	mv "$tmp" "$base"
	trap - EXIT
fi
[ "${1:-}" = --base-only ] && { echo "$base"; exit 0; }

# 2. rdma-core 65 over 56: trixie-guest-root-<hash of the base and the
# rdma-core build>, a copy of the base (tar keeps the root's /lib ->
# usr/lib symlinks), then ldconfig.
rdma_core=$(scripts/build-rdma-core-usr.sh | tail -n 1)
hash=$( { basename "$base"; basename "$(dirname "$rdma_core")"; } | sha256sum | cut -c1-16)
root=$cache_dir/trixie-guest-root-$hash
if [ -f "$root/.vhca-complete" ]; then
	echo "build-guest-root: cached ($(cat "$root/.vhca-size"); mmdebstrap took $(cat "$base/.vhca-build-seconds") s)" >&2
	echo "$root"
	exit 0
fi
tmp=$(mktemp -d "$root.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cp -a "$base/." "$tmp/"
rm "$tmp/.vhca-complete" "$tmp/.vhca-build-seconds"
tar -C "$rdma_core" -c . | tar -C "$tmp" -x --keep-directory-symlink
chroot "$tmp" ldconfig
# 65's, not 56's: the library libibverbs.so.1 resolves to and the tools
# (ibv_devinfo has no version option; infiniband-diags' -V names rdma-core's).
# shellcheck disable=SC2016
lib=$(chroot "$tmp" sh -c 'readlink -f "$(ldconfig -p | sed -n "s/.*libibverbs.so.1 (libc6,x86-64) => //p" | head -n 1)"')
case $lib in
*libibverbs.so.1.*.65.0) ;;
*) echo "build-guest-root: libibverbs.so.1 is $lib, not rdma-core 65's" >&2; exit 1 ;;
esac
version=$(chroot "$tmp" ibstat -V 2>&1 | head -n 1)
case $version in
*65.0*) ;;
*) echo "build-guest-root: ibstat -V says '$version'" >&2; exit 1 ;;
esac
# pyverbs loads (its modules link libpython, which python3 does not bring)
PYTHONDONTWRITEBYTECODE=1 chroot "$tmp" python3 -c 'import pyverbs.device' ||
	{ echo "build-guest-root: pyverbs does not import" >&2; exit 1; }
du -sh "$tmp" | cut -f1 >"$tmp/.vhca-size"
touch "$tmp/.vhca-complete"
rm -f "$tmp.log"
mv "$tmp" "$root"
trap - EXIT
echo "build-guest-root: $root ($(cat "$root/.vhca-size"); mmdebstrap took $(cat "$base/.vhca-build-seconds") s; $lib, $version)" >&2
echo "$root"
