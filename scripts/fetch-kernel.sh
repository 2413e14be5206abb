#!/usr/bin/env bash
# Fetch a Debian guest kernel by series and unpack it into the cache,
# never installing it on the host:
#
#   scripts/fetch-kernel.sh 6.12|7.3
#
# prints, on its last stdout line, $VHCA_CACHE/kernel-<release> (default
# cache ~/.cache/vhca), which holds root/: the image, modules, headers and
# kbuild packages unpacked with dpkg-deb -x (lib/modules/<release> with
# depmod's indexes, usr/src/linux-headers-<release>), and vmlinuz, a link
# to the kernel image.
# Cached by release: a second call downloads nothing.
#
# Which build of each series (apt-cache pkgnames; the newest release):
#   6.12  the +deb12 build (bookworm-security): built with gcc-12 and its
#         kbuild tools linked against bookworm's libc, so the module builds
#         on the host (trixie's +deb13 build wants gcc-14 and glibc 2.38);
#   7.3   the +deb13 build of trixie-backports (the newest Debian ships);
#         its module is built in the Debian 13 root (build-trixie-root.sh).
set -euo pipefail
cd "$(dirname "$0")/.."

series=${1:?usage: fetch-kernel.sh 6.12|7.3}
case $series in
6.12) build=deb12 ;;
7.3) build=deb13 ;;
*) echo "fetch-kernel: series $series: expected 6.12 or 7.3" >&2; exit 1 ;;
esac
scripts/apt-trixie.sh >&2
cache_dir=${VHCA_CACHE:-$HOME/.cache/vhca}
mkdir -p "$cache_dir"

# The newest release of the series.  apt-cache takes seconds (apt builds
# its cache in memory when /var/cache/apt keeps none, as Debian's container
# images configure it) and every make target that boots a guest asks, so
# the answer is kept until apt's package lists change.
pattern="^linux-image-${series//./\\.}\\.[0-9]+\\+$build-amd64\$"
lists=$(stat -c '%n %Y %s' /var/lib/apt/lists/*Packages* 2> /dev/null | sha256sum | cut -c1-16)
memo=$cache_dir/kernel-$series.release
if [ "$(sed -n 1p "$memo" 2> /dev/null)" = "$lists" ]; then
	release=$(sed -n 2p "$memo")
else
	release=$(apt-cache pkgnames "linux-image-$series." | { grep -E "$pattern" || true; } |
		sort -V | tail -n 1)
	release=${release#linux-image-}
	[ -z "$release" ] || { printf '%s\n%s\n' "$lists" "$release" > "$memo.$$" && mv "$memo.$$" "$memo"; }
fi
[ -n "$release" ] || { echo "fetch-kernel: no package matches $pattern" >&2; exit 1; }

dir=$cache_dir/kernel-$release

# The headers' Makefile names the -common tree (and, from 7.x, its own
# KBUILD_OUTPUT) by absolute /usr/src paths: point them at the unpacked
# ones, relative to the Makefile's own directory, so that the entry works
# wherever it lies (a copied or hard-linked cache: sed -i writes a new
# file, not the shared one).  Also run on cached entries: it rewrites the
# absolute cache paths an older version of this script wrote.
relocatable_headers() { # root
	local makefile=$1/usr/src/linux-headers-$release/Makefile
	! grep -q '^vhca_usr_src :=' "$makefile" || return 0
	sed -i -e 's#\([ =]\)[^ =]*/usr/src/#\1$(vhca_usr_src)/#g' \
		-e '1i vhca_usr_src := $(abspath $(dir $(lastword $(MAKEFILE_LIST)))..)' \
		"$makefile"
}

if [ -f "$dir/.vhca-complete" ]; then
	relocatable_headers "$dir/root"
	echo "$dir"
	exit 0
fi

# The image, its headers and their same-release dependencies (7.3 splits
# the image into linux-base/-binary/-modules; headers need -common and
# linux-kbuild), two levels deep.
abi=${release%-amd64}
same_release_deps() { # package...
	apt-cache show --no-all-versions "$@" | sed -n 's/^\(Pre-\)\?Depends: //p' |
		tr ',|' '\n\n' | awk -v abi="$abi" '$1 ~ /^linux-/ && index($1, abi) { print $1 }'
}
wanted=$( {
	echo "linux-image-$release"; echo "linux-headers-$release"
	level1=$(same_release_deps "linux-image-$release" "linux-headers-$release")
	echo "$level1"
	[ -z "$level1" ] || same_release_deps $level1
} | grep -v -- '-unsigned$' | sort -u)

tmp=$(mktemp -d "$dir.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/debs" "$tmp/root"
echo "fetch-kernel: downloading $(echo $wanted)" >&2
(cd "$tmp/debs" && apt-get download -q $wanted >&2)
for deb in "$tmp"/debs/*.deb; do
	dpkg-deb -x "$deb" "$tmp/root"
done
root=$tmp/root
# A merged-/usr package ships usr/lib/modules; depmod -b wants lib/modules.
[ -e "$root/lib" ] || [ ! -d "$root/usr/lib/modules" ] || ln -s usr/lib "$root/lib"
# The image: boot/vmlinuz-<release> up to 6.12, the module directory's
# vmlinuz from 7.x (linux-binary-*); $dir/vmlinuz names it either way.
for image in "boot/vmlinuz-$release" "lib/modules/$release/vmlinuz" ""; do
	[ -z "$image" ] || [ ! -f "$root/$image" ] || break
done
[ -n "$image" ] || { echo "fetch-kernel: no vmlinuz in $(echo $wanted)" >&2; exit 1; }
ln -s "root/$image" "$tmp/vmlinuz"
/sbin/depmod -b "$root" "$release"
relocatable_headers "$root"
chmod 755 "$tmp"
rm -rf "$tmp/debs"
touch "$tmp/.vhca-complete"
mv "$tmp" "$dir"
trap - EXIT
echo "$dir"
