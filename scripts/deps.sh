#!/usr/bin/env bash
# Install what building and testing vhca needs on Debian 12 (bookworm).
# Idempotent and fast when nothing is missing: dpkg-query decides, and
# apt-get (one update, one install) runs only for what is absent.  Adds the
# bookworm deb-src entries that `apt-get source qemu` needs, derived from
# the machine's own apt sources (scripts/apt-entries.awk: same URIs,
# suites and keyring, so a machine on a mirror keeps using it).
set -euo pipefail
. "$(dirname "$0")/apt-lock.sh"
hold_apt_lock "$@"

packages=(
	# building QEMU 7.2 from Debian's source package
	build-essential dpkg-dev pkg-config meson ninja-build libglib2.0-dev
	libpixman-1-dev libslirp-dev libfdt-dev zlib1g-dev libcap-ng-dev
	libattr1-dev flex bison python3
	# firmware our QEMU build loads (-L /usr/share/seabios -L /usr/share/qemu)
	seabios qemu-system-data ipxe-qemu
	# guest: kernel, headers for the module, initramfs, userspace it runs
	busybox-static cpio gzip kmod linux-image-amd64 linux-headers-amd64
	iproute2 util-linux pciutils rdma-core ibverbs-utils infiniband-diags perftest
	# the fabric's SM when the switch's embedded SM is off (check-fabric-opensm)
	opensm
	rdmacm-utils python3-pyverbs
	# `make install`: the module through DKMS (dkms.conf)
	dkms
	# middleware on vhca (`make check-middleware`): UCX, Open MPI, libfabric
	ucx-utils openmpi-bin libopenmpi-dev libfabric-bin
	# tests
	python3-pytest libgtest-dev
	# compiler output cached across clones (scripts/ccache-env.sh)
	ccache
	# decoding the device's and switch's captures (Documentation/fabric-tests.md
	# "Capture": the encoder's host test, `make check-capture`)
	tshark
	# the storage ULP tier (selftests/ulp, Documentation/ulps.md): targets,
	# initiators, fio; dbus for targetcli
	nvme-cli targetcli-fb open-iscsi srptools nfs-kernel-server fio sg3-utils dbus
	# fuzzing the device's parsers (scripts/run-fuzz.sh): libFuzzer, sanitizers
	clang-14 libclang-rt-14-dev llvm-14
	# kernel builds' host tools (the debug kernel itself is built from
	# linux-source-7.3 in the Debian 13 root, scripts/build-debug-kernel.sh,
	# which also keeps its KTAP parser for scripts/kunit-tool.sh)
	bc libelf-dev libssl-dev xz-utils
	# the module's BTF for Linux 6.12, whose headers ship a vmlinux
	# (KERNEL=6.12 scripts/build-module.sh)
	pahole
	# the Debian 13 root (scripts/build-trixie-root.sh) where 7.3's module
	# and the debug kernel build; QEMU 10.2's configure venv
	# (scripts/deps-qemu10.sh); installed here, in the one apt-get run
	mmdebstrap python3-venv
)

sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then
	sudo_cmd=(sudo -n)
fi
apt_env=(env DEBIAN_FRONTEND=noninteractive NEEDRESTART_MODE=a)

need_update=0
deb_src_file=/etc/apt/sources.list.d/vhca-deb-src.sources
mapfile -t apt_sources < <(ls /etc/apt/sources.list /etc/apt/sources.list.d/*.list \
	/etc/apt/sources.list.d/*.sources 2>/dev/null | grep -vxF "$deb_src_file")
deb_src=$(awk -f "$(dirname "$0")/apt-entries.awk" "${apt_sources[@]}")
if [ -z "$deb_src" ]; then
	echo "deps: no bookworm 'deb' entry with component main in ${apt_sources[*]}" >&2
	exit 1
fi
if [ "$deb_src" != "$(cat "$deb_src_file" 2>/dev/null)" ]; then
	echo "$deb_src" | "${sudo_cmd[@]}" tee "$deb_src_file" > /dev/null
	echo "deps: wrote $deb_src_file from ${apt_sources[*]}"
	need_update=1
fi
if ! compgen -G '/var/lib/apt/lists/*_source_Sources*' > /dev/null; then
	need_update=1
fi

# One dpkg-query for all: it prints the packages it knows, installed or not.
installed=" $(dpkg-query -W -f='${Package}:${db:Status-Status} ' "${packages[@]}" 2>/dev/null || true)"
missing=()
for pkg in "${packages[@]}"; do
	case "$installed" in
	*" $pkg:installed "*) ;;
	*) missing+=("$pkg") ;;
	esac
done

if [ "${#missing[@]}" -gt 0 ] || [ "$need_update" -eq 1 ]; then
	"${sudo_cmd[@]}" "${apt_env[@]}" apt-get update -q < /dev/null
fi
if [ "${#missing[@]}" -gt 0 ]; then
	echo "deps: installing ${missing[*]}"
	# The storage test packages (nfs-kernel-server, open-iscsi, ...) are
	# servers: the tests start them inside guests, never on this machine.
	# Debian's policy-rc.d convention (exit 101) keeps their maintainer
	# scripts from starting them here, unless the machine has a policy.
	policy=/usr/sbin/policy-rc.d
	own_policy=0
	if [ ! -e "$policy" ]; then
		printf '#!/bin/sh\n# scripts/deps.sh (vhca): no service starts\nexit 101\n' |
			"${sudo_cmd[@]}" tee "$policy" > /dev/null
		"${sudo_cmd[@]}" chmod 755 "$policy"
		own_policy=1
	fi
	status=0
	"${sudo_cmd[@]}" "${apt_env[@]}" apt-get install -y -q --no-install-recommends \
		"${missing[@]}" < /dev/null || status=$?
	[ "$own_policy" -eq 0 ] || "${sudo_cmd[@]}" rm -f "$policy"
	[ "$status" -eq 0 ] || exit "$status"
fi
