#!/usr/bin/env bash
# Build the debug guest kernel (KASAN, lockdep, kmemleak, KUnit, the ULPs)
# from Debian's linux-source-7.3 (trixie-backports) with the fragment
# scripts/debug-kernel.config, and link it from build/kernel-debug/.
# Documentation/testing.md "The debug kernel".
#
# The source package is fetched with `apt-get download`
# (scripts/apt-trixie.sh), never installed; the kernel is built in the
# Debian 13 root (scripts/build-trixie-root.sh) with its gcc-14, the
# compiler Debian builds 7.3 with (and the one its module builds need).
#
# Cached in $VHCA_CACHE (default ~/.cache/vhca) as kernel-<hash>/ (hash of
# the source package version, the root's name, which is a hash of its
# packages, the fragment and this script):
#   bzImage          the kernel
#   kernelrelease    its version string (7.3.x-vhca-debug)
#   config           its .config
#   build-seconds    how long the build took (summed over interrupted runs)
#   modules/lib/modules/<release>/   modules_install output (stripped)
#   build/           what `make M=...` needs for external modules: the
#                    kernel's own file list for them
#                    (scripts/package/install-extmod-build: headers,
#                    scripts, objtool, generated headers, Module.symvers),
#                    .config and .kernelvariables (the compiler)
#   kunit-tool/tools/testing/kunit/   the source's KUnit tool, whose KTAP
#                    parser (kunit.py parse) reads this kernel's output
#                    (scripts/kunit-tool.sh); under its own path because
#                    kunit.py finds the kernel tree from where it sits
# A second run with the same inputs only refreshes the link.  Env:
# VHCA_JOBS (default: nproc) make's -j.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
cache_dir=${VHCA_CACHE:-$HOME/.cache/vhca}
jobs=${VHCA_JOBS:-$(nproc)}

# ---- Inside the Debian 13 root ------------------------------------------
# build-in <work> <cc> <fragment>...: configure and build $work/src into
# $work/obj, install into $work; every path is the same inside and out.
if [ "${1:-}" = build-in ]; then
	work=$2 cc=$3
	shift 3
	src=$work/src obj=$work/obj
	# ARCH=x86_64, not the default ARCH=x86: with ARCH=x86, allnoconfig makes
	# a 32-bit base, and values it picked for 32 bits (FRAME_WARN=1024, ...)
	# would survive the fragment's CONFIG_64BIT=y.
	kmake() { make -C "$src" O="$obj" ARCH=x86_64 CC="$cc" HOSTCC="$cc" -j"$jobs" "$@"; }

	# Configuration: allnoconfig + fragments, then olddefconfig fills in the
	# defaults of everything the fragments switched on.
	kmake allnoconfig >/dev/null
	"$src/scripts/kconfig/merge_config.sh" -m -O "$obj" "$obj/.config" "$@" >/dev/null
	kmake olddefconfig >/dev/null

	# Every line of the fragments must have survived: an option whose
	# dependencies are missing is dropped silently by olddefconfig.
	missing=0
	while IFS= read -r line; do
		case $line in
		CONFIG_*=*)
			grep -qxF -- "$line" "$obj/.config" || {
				echo "build-debug-kernel: fragment wants $line, .config has: $(grep -E "^(# )?${line%%=*}[= ]" "$obj/.config" || echo '(absent)')" >&2
				missing=1
			} ;;
		'# CONFIG_'*' is not set')
			name=${line#\# }; name=${name%% *}
			if grep -qE "^$name=" "$obj/.config"; then
				echo "build-debug-kernel: fragment wants $name unset, .config has: $(grep -E "^$name=" "$obj/.config")" >&2
				missing=1
			fi ;;
		esac
	done < <(cat "$@")
	[ $missing = 0 ] || { echo "build-debug-kernel: config check FAILED" >&2; exit 1; }
	echo "build-debug-kernel: config OK (every option of $* present)"

	echo "build-debug-kernel: building with $jobs jobs, $cc (log: $work/build.log)"
	if ! kmake bzImage modules >"$work/build.log" 2>&1; then
		tail -50 "$work/build.log"
		echo "build-debug-kernel: kernel build FAILED" >&2
		exit 1
	fi
	# Only now: before the build, auto.conf (CONFIG_LOCALVERSION) does not exist.
	release=$(kmake -s kernelrelease)
	case $release in
	*-vhca-debug) ;;
	*) echo "build-debug-kernel: unexpected kernel release '$release'" >&2; exit 1 ;;
	esac
	kmake -s modules_install INSTALL_MOD_PATH="$work/modules" INSTALL_MOD_STRIP=1 >/dev/null
	rm -f "$work/modules/lib/modules/$release/build" "$work/modules/lib/modules/$release/source"
	ln -s ../../../../build "$work/modules/lib/modules/$release/build"

	# The external-module build tree, one directory like Debian's
	# linux-headers-<version>.
	mkdir -p "$work/build"
	# The kernel's own list (what its deb and rpm packages ship).
	kmake -s run-command KBUILD_RUN_COMMAND="\$(srctree)/scripts/package/install-extmod-build $work/build"
	cp "$obj/.config" "$work/build/.config"
	# The compiler for `make M=...` in it: Debian's top Makefile includes
	# the tree's .kernelvariables (where its linux-headers packages name
	# gcc-14); there is no gcc in the Debian 13 root.
	printf 'CC = %s\nHOSTCC = %s\n' "$cc" "$cc" >"$work/build/.kernelvariables"
	cp "$obj/arch/x86/boot/bzImage" "$work/bzImage"
	cp "$obj/.config" "$work/config"
	echo "$release" >"$work/kernelrelease"
	exit 0
fi

# ---- On the host: inputs, cache, lock ------------------------------------
fragments=(scripts/debug-kernel.config)
srcpkg=linux-source-7.3
cc=gcc-14
scripts/apt-trixie.sh >&2
srcver=$(apt-cache show --no-all-versions "$srcpkg" | sed -n 's/^Version: //p')
[ -n "$srcver" ] || { echo "build-debug-kernel: apt knows no $srcpkg" >&2; exit 1; }
root=$(scripts/build-trixie-root.sh | tail -n 1)
link=build/kernel-debug
hash=$(
	{
		echo "$srcpkg $srcver ${root##*/} $cc"
		sha256sum "${fragments[@]}" scripts/build-debug-kernel.sh | cut -d' ' -f1
	} | sha256sum | cut -c1-16
)
out=$cache_dir/kernel-$hash
mkdir -p "$cache_dir" build

link_result() {
	ln -sfn "$out" "$link.tmp"
	mv -T "$link.tmp" "$link"
	echo "build-debug-kernel: $link -> $out ($(cat "$out/kernelrelease"))"
}

if [ -f "$out/complete" ]; then
	link_result
	exit 0
fi

# One builder per cache entry: a second `make` waits for the first.
exec 9>"$out.lock"
flock 9
if [ -f "$out/complete" ]; then
	link_result
	exit 0
fi

# An interrupted build of the same inputs resumes in its work directory
# (at the same path: Kbuild's .cmd files hold absolute paths): the
# configuration steps give the same .config, and make redoes only what is
# missing (GNU make deletes the target it was making when killed, Kbuild
# rebuilds an object without its .cmd file).  On this machine the build
# can take longer than a session.
work=$out.work
started=$(date +%s)
seconds_before=$(cat "$work/seconds-so-far" 2>/dev/null || echo 0)
trap '[ ! -d "$work" ] || echo $((seconds_before + $(date +%s) - started)) >"$work/seconds-so-far"' EXIT
if [ -f "$work/extracted" ]; then
	echo "build-debug-kernel: resuming the build in $work (${seconds_before} s so far)"
else
	rm -rf "$work"
	mkdir -p "$work/src" "$work/obj" "$work/deb"
	(cd "$work/deb" && apt-get download -q "$srcpkg=$srcver" >&2)
	dpkg-deb --fsys-tarfile "$work"/deb/*.deb | tar -xf - -C "$work/deb" ./usr/src/
	tarball=$(echo "$work"/deb/usr/src/linux-source-*.tar.xz)
	echo "build-debug-kernel: extracting $tarball ($srcver)"
	tar -xJf "$tarball" -C "$work/src" --strip-components=1
	rm -rf "$work/deb"
	touch "$work/extracted"
fi

# The Debian 13 root with the repository and the work directory at their
# own paths (as scripts/build-module.sh does for 7.3's module).
# shellcheck disable=SC2016
VHCA_JOBS=$jobs unshare -m sh -c '
	root=$1; shift; binds=$1; shift
	for d in $binds /dev /proc; do
		mkdir -p "$root$d" && mount --bind "$d" "$root$d" || exit 1
	done
	exec chroot "$root" /usr/bin/env PATH=/usr/sbin:/usr/bin:/sbin:/bin "$@"' \
	sh "$root" "$repo $work" \
	bash "$repo/scripts/build-debug-kernel.sh" build-in "$work" "$cc" "${fragments[@]/#/$repo/}"

echo $((seconds_before + $(date +%s) - started)) >"$work/build-seconds"
rm -rf "$work/kunit-tool"
mkdir -p "$work/kunit-tool/tools/testing"
cp -a "$work/src/tools/testing/kunit" "$work/kunit-tool/tools/testing/"
mv "$work/build.log" "$work/build.log.keep"
rm -rf "$work/src" "$work/obj" "$work/extracted" "$work/seconds-so-far"
mv "$work/build.log.keep" "$work/build.log"
rm -rf "$out"
mv "$work" "$out"
touch "$out/complete"
echo "build-debug-kernel: built $(cat "$out/kernelrelease") in $(cat "$out/build-seconds") s"
link_result
