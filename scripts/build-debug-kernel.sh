#!/usr/bin/env bash
# Build the debug guest kernel (KASAN, lockdep, kmemleak, KUnit) from Debian's
# linux-source-6.1 package with the fragment scripts/debug-kernel.config, and
# link it from build/kernel-debug/.  Documentation/testing.md "Debug kernel".
#
# Cached in ~/.cache/vhca/kernel-<hash>/ (hash of the source package version,
# the fragment and this script):
#   bzImage          the kernel
#   kernelrelease    its version string (6.1.x-vhca-debug)
#   config           its .config
#   modules/lib/modules/<release>/   modules_install output (stripped)
#   build/           what `make M=...` needs for external modules: the
#                    headers, scripts and tools/objtool of the tree, its
#                    generated headers, .config and Module.symvers (the same
#                    file set as Debian's linux-headers packages)
# A second run with the same inputs only refreshes the link.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD

tarball=/usr/src/linux-source-6.1.tar.xz
fragment=scripts/debug-kernel.config
cache_dir=${VHCA_CACHE:-$HOME/.cache/vhca}
jobs=${VHCA_JOBS:-$(nproc)}

[ -f "$tarball" ] || { echo "build-debug-kernel: $tarball missing (apt-get install linux-source-6.1)" >&2; exit 1; }
srcver=$(dpkg-query -W -f='${Version}' linux-source-6.1)
hash=$(
	{
		echo "linux-source-6.1 $srcver"
		sha256sum "$fragment" scripts/build-debug-kernel.sh | cut -d' ' -f1
	} | sha256sum | cut -c1-16
)
out=$cache_dir/kernel-$hash
mkdir -p "$cache_dir" build

link_result() {
	ln -sfn "$out" build/kernel-debug.tmp
	mv -T build/kernel-debug.tmp build/kernel-debug
	echo "build-debug-kernel: build/kernel-debug -> $out ($(cat "$out/kernelrelease"))"
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

work=$out.work
rm -rf "$work"
mkdir -p "$work/src" "$work/obj"
started=$(date +%s)
echo "build-debug-kernel: extracting $tarball ($srcver)"
tar -xJf "$tarball" -C "$work/src" --strip-components=1

src=$work/src
obj=$work/obj
# ARCH=x86_64, not the default ARCH=x86: with ARCH=x86, allnoconfig makes
# a 32-bit base, and values it picked for 32 bits (FRAME_WARN=1024, ...)
# would survive the fragment's CONFIG_64BIT=y.
kmake() { make -C "$src" O="$obj" ARCH=x86_64 -j"$jobs" "$@"; }

# Configuration: allnoconfig + fragment, then olddefconfig fills in the
# defaults of everything the fragment switched on.
kmake allnoconfig >/dev/null
"$src/scripts/kconfig/merge_config.sh" -m -O "$obj" "$obj/.config" "$fragment" >/dev/null
kmake olddefconfig >/dev/null

# Every line of the fragment must have survived: an option whose
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
done <"$fragment"
[ $missing = 0 ] || { echo "build-debug-kernel: config check FAILED" >&2; exit 1; }
echo "build-debug-kernel: config OK (every option of $fragment present)"

echo "build-debug-kernel: building with $jobs jobs (log: $work/build.log)"
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
# linux-headers-<version> (scripts/package/builddeb's file lists).
mkdir -p "$work/build"
(
	cd "$src"
	{
		find . arch/x86 -maxdepth 1 -name 'Makefile*'
		find include scripts -type f -o -type l
		find arch/x86 -name Kbuild.platforms -o -name Platform
		find $(find arch/x86 -name include -o -name scripts -type d) -type f
	} | cpio -pdm --quiet "$work/build"
)
(
	cd "$obj"
	{
		find arch/x86/include Module.symvers include scripts -type f
		find tools/objtool -type f -executable
		echo .config
	} | cpio -pdmu --quiet "$work/build"
)

cp "$obj/arch/x86/boot/bzImage" "$work/bzImage"
cp "$obj/.config" "$work/config"
echo "$release" >"$work/kernelrelease"
echo "$(( $(date +%s) - started ))" >"$work/build-seconds"
mv "$work/build.log" "$work/build.log.keep"
rm -rf "$src" "$obj"
mv "$work/build.log.keep" "$work/build.log"
rm -rf "$out"
mv "$work" "$out"
touch "$out/complete"
echo "build-debug-kernel: built $release in $(cat "$out/build-seconds") s"
link_result
