#!/bin/sh
# `make install`: vhca outside the test harness, on this machine (or, in a
# guest, on its overlay root: selftests/install/install.py).
#   - the module's sources to /usr/src/vhca-<version>/ and through DKMS
#     (dkms.conf): built and installed for VHCA_KVER (default: the running
#     kernel) now, and for every kernel installed later;
#   - the provider (build/provider, `make provider`) into libibverbs'
#     provider directory, with its driver file in /etc/libibverbs.d/.
# Run as root.  Documentation/usage.md.
#
#   install.sh --dkms-build DIR   (`make check-dkms`) only `dkms build`, with
#                                 DKMS's source and build trees in DIR, so
#                                 nothing of the machine changes
set -eu
repo=$(cd "$(dirname "$0")/.." && pwd)
version=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"$/\1/p' "$repo/dkms.conf")
kver=${VHCA_KVER:-$(uname -r)}

# What dkms.conf's build needs: Kbuild, the driver's sources without its
# host tests (not the objects a `make module` left beside them), the ABI
# headers and the build script with its checks and kernel feature probes.
stage_sources() { # directory
	rm -rf "$1"
	mkdir -p "$1/scripts"
	(cd "$repo" && find Kbuild dkms.conf driver uapi -type f \( -name Kbuild -o -name dkms.conf \
		-o -name '*.c' -o -name '*.h' -o -name '*.cpp' -o -name '*.allow' \) \
		! -path 'driver/tests/*' | tar -cf - -T -) | tar -xf - -C "$1"
	cp "$repo/scripts/build-module.sh" "$repo/scripts/kver.sh" \
		"$repo/scripts/compat-probes.sh" "$1/scripts/"
}

if [ "${1:-}" = --dkms-build ]; then
	trees="--sourcetree $2/src --dkmstree $2/dkms"
	rm -rf "$2/dkms"
	mkdir -p "$2/dkms"
	stage_sources "$2/src/vhca-$version"
	# shellcheck disable=SC2086
	dkms add -m vhca -v "$version" $trees
	# shellcheck disable=SC2086
	dkms build -m vhca -v "$version" -k "$kver" $trees \
		${VHCA_KDIR:+--kernelsourcedir "$VHCA_KDIR"}
	echo "install: dkms build of vhca $version for $kver OK: $(find "$2/dkms" -name vhca.ko | head -n 1)"
	exit 0
fi

for f in libvhca-rdmav34.so vhca.driver; do
	[ -f "$repo/build/provider/$f" ] || {
		echo "install: $repo/build/provider/$f missing: run \`make provider\` (on Debian 12)" >&2
		exit 1
	}
done
multiarch=$(gcc -print-multiarch)
provider_dir=/usr/lib/$multiarch/libibverbs
if dkms status -m vhca -v "$version" | grep -q .; then
	dkms remove -m vhca -v "$version" --all
fi
stage_sources "/usr/src/vhca-$version"
dkms add -m vhca -v "$version"
dkms install -m vhca -v "$version" -k "$kver"

install -D -m 644 "$repo/build/provider/libvhca-rdmav34.so" "$provider_dir/libvhca-rdmav34.so"
install -D -m 644 "$repo/build/provider/vhca.driver" /etc/libibverbs.d/vhca.driver
echo "install: vhca $version: module for $kver ($(dkms status -m vhca -v "$version" -k "$kver")), provider in $provider_dir"
