#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# deps-qemu10.sh - what building QEMU 10.2 needs beyond scripts/deps.sh,
# without changing the host's own meson (QEMU 7.2's build keeps using it):
#
#   - python3-venv: QEMU 10's configure builds its Python venv (pyvenv/).
#   - meson >= 1.5 (pythondeps.toml), which bookworm lacks (1.0.1) and
#     Debian's +ds source tarball does not bundle (python/wheels/ is
#     emptied).  bookworm-backports has 1.7: its suite is added from the
#     machine's own `deb` entries (scripts/apt-entries.awk -v
#     derive=bookworm-backports: same mirror and keyring), pinned at 50 so that nothing
#     is ever installed from it by accident, and the meson package is only
#     downloaded and unpacked into $VHCA_CACHE/tools/meson-<version>/.
#
# Prints the unpacked meson's Python directory (for PYTHONPATH) on stdout.
set -euo pipefail
. "$(dirname "$0")/apt-lock.sh"
hold_apt_lock "$@"

CACHE=${VHCA_CACHE:-$HOME/.cache/vhca}
TOOLS=$CACHE/tools
sources_file=/etc/apt/sources.list.d/vhca-backports.sources
pin_file=/etc/apt/preferences.d/vhca-backports

say() { echo "deps-qemu10: $*" >&2; }

sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then
	sudo_cmd=(sudo -n)
fi
apt_env=(env DEBIAN_FRONTEND=noninteractive NEEDRESTART_MODE=a)

write_if_changed() {
	local file=$1 text=$2
	if [ "$text" != "$(cat "$file" 2>/dev/null)" ]; then
		echo "$text" | "${sudo_cmd[@]}" tee "$file" > /dev/null
		say "wrote $file"
		return 0
	fi
	return 1
}

need_update=0
mapfile -t apt_sources < <(ls /etc/apt/sources.list /etc/apt/sources.list.d/*.list \
	/etc/apt/sources.list.d/*.sources 2>/dev/null | grep -v '/vhca-')
entries=$(awk -v derive=bookworm-backports -f "$(dirname "$0")/apt-entries.awk" "${apt_sources[@]}")
if [ -z "$entries" ]; then
	say "no bookworm 'deb' entry with component main in ${apt_sources[*]}"
	exit 1
fi
write_if_changed "$sources_file" "$entries" && need_update=1
write_if_changed "$pin_file" "$(printf '%s\n' \
	'# scripts/deps-qemu10.sh (vhca): only what is asked for by name' \
	'Package: *' 'Pin: release a=bookworm-backports' 'Pin-Priority: 50')" || true

# apt-get's output goes to stderr: stdout is the one line the caller
# reads (a fresh machine's `apt-get update` once made it part of
# PYTHONPATH, and QEMU's configure found only the host's meson 1.0).
if ! dpkg-query -W -f='${db:Status-Status}' python3-venv 2>/dev/null | grep -qx installed; then
	"${sudo_cmd[@]}" "${apt_env[@]}" apt-get update -q < /dev/null >&2
	need_update=0
	"${sudo_cmd[@]}" "${apt_env[@]}" apt-get install -y -q --no-install-recommends \
		python3-venv < /dev/null >&2
fi
if [ "$need_update" = 1 ]; then
	"${sudo_cmd[@]}" "${apt_env[@]}" apt-get update -q < /dev/null >&2
fi

# A meson already unpacked is kept (apt-cache takes seconds, and a newer
# backport would only change the tree's hash): the newest of them.  (On a
# fresh machine there is none, and `ls` of the glob would fail the script
# under pipefail: hence compgen.)
dir=
if compgen -G "$TOOLS/meson-*/.unpacked" > /dev/null; then
	dir=$(ls -d "$TOOLS"/meson-*/.unpacked | sort -V | tail -n 1)
fi
if [ "$need_update" = 0 ] && [ -n "$dir" ]; then
	echo "${dir%/.unpacked}/usr/lib/python3/dist-packages"
	exit 0
fi
version=$(apt-cache madison meson | awk -F' *\\| *' '$3 ~ /bookworm-backports/ { print $2; exit }')
if [ -z "$version" ]; then
	say "no meson in bookworm-backports (apt-cache madison meson)"
	exit 1
fi
dir=$TOOLS/meson-$version
if [ ! -e "$dir/.unpacked" ]; then
	say "downloading meson $version from bookworm-backports into $TOOLS"
	mkdir -p "$TOOLS"
	rm -rf "$dir" "$TOOLS"/meson_*.deb
	(cd "$TOOLS" && apt-get download -q "meson=$version" < /dev/null) >&2
	dpkg-deb -x "$TOOLS"/meson_*.deb "$dir"
	rm -f "$TOOLS"/meson_*.deb
	touch "$dir/.unpacked"
fi
echo "$dir/usr/lib/python3/dist-packages"
