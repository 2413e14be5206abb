#!/bin/sh
# Print the guest kernel version (e.g. 6.1.0-56-amd64): the release of the
# kernel that Debian's linux-image-amd64 metapackage depends on.  The guest
# boots /boot/vmlinuz-<this> and the module is built against its headers.
# Never `uname -r`: the host may run a different kernel than the guest.
set -eu
depends=$(dpkg-query -W -f='${Depends}' linux-image-amd64 2>/dev/null) || {
	echo "kver.sh: linux-image-amd64 is not installed (run scripts/deps.sh)" >&2
	exit 1
}
kver=$(printf '%s\n' "$depends" | tr ',' '\n' |
	sed -n 's/^ *linux-image-\([0-9][^ ]*\).*/\1/p' | head -n 1)
[ -n "$kver" ] || {
	echo "kver.sh: cannot parse linux-image-amd64 Depends: $depends" >&2
	exit 1
}
printf '%s\n' "$kver"
