#!/usr/bin/env bash
# Make Debian 13's suites (trixie: Linux 6.12; trixie-backports: Linux 7.3)
# known to apt, for the guest kernels and the Debian 13 root
# (scripts/fetch-kernel.sh, scripts/build-trixie-root.sh), without letting
# them touch the host: the entries are derived from the machine's own
# bookworm `deb` entries (scripts/apt-entries.awk, as scripts/deps.sh does
# for deb-src), and pinned at priority 50, below an installed version's 100
# and bookworm's 500, so apt never upgrades or installs a host package from
# them (apt_preferences(5): 0 < P < 100 "only installed if there is no
# installed version").  `apt-get download` of a package that only trixie
# has still fetches it.  Idempotent; apt-get update only when it changed.
set -euo pipefail
. "$(dirname "$0")/apt-lock.sh"
hold_apt_lock "$@"

sources_file=/etc/apt/sources.list.d/vhca-trixie.sources
prefs_file=/etc/apt/preferences.d/vhca-trixie
sudo_cmd=()
[ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo -n)

mapfile -t apt_sources < <(ls /etc/apt/sources.list /etc/apt/sources.list.d/*.list \
	/etc/apt/sources.list.d/*.sources 2>/dev/null | grep -vxF "$sources_file")
entries=$(awk -v derive="trixie trixie-backports" -f "$(dirname "$0")/apt-entries.awk" "${apt_sources[@]}")
if [ -z "$entries" ]; then
	echo "apt-trixie: no bookworm 'deb' entry with component main in ${apt_sources[*]}" >&2
	exit 1
fi
prefs='# vhca (scripts/apt-trixie.sh): Debian 13 for guest kernels only, never the host
Package: *
Pin: release n=trixie
Pin-Priority: 50

Package: *
Pin: release n=trixie-backports
Pin-Priority: 50'

changed=0
# The preferences first: the sources must never be active unpinned.
if [ "$prefs" != "$(cat "$prefs_file" 2>/dev/null)" ]; then
	echo "$prefs" | "${sudo_cmd[@]}" tee "$prefs_file" >/dev/null
	changed=1
fi
if [ "$entries" != "$(cat "$sources_file" 2>/dev/null)" ]; then
	echo "$entries" | "${sudo_cmd[@]}" tee "$sources_file" >/dev/null
	echo "apt-trixie: wrote $sources_file from ${apt_sources[*]}"
	changed=1
fi
if [ "$changed" = 1 ] || ! compgen -G '/var/lib/apt/lists/*_dists_trixie-backports_*Packages*' >/dev/null; then
	"${sudo_cmd[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -q </dev/null
fi
