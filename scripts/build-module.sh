#!/bin/sh
# Build vhca.ko against a guest kernel and check it (`make module`).
# Exits non-zero if the build or any check fails.  Documentation/driver-build.md
# "Build rules" explains each check.
#
#   KERNEL=6.1 scripts/build-module.sh  Debian 12's kernel (headers package):
#                                      build/vhca.ko, build/module.log
#   KERNEL=debug scripts/build-module.sh   (or VHCA_KERNEL=debug) the debug
#                                      kernel of scripts/build-debug-kernel.sh
#                                      (7.3, built in the Debian 13 root):
#                                      build/debug/vhca.ko and
#                                      build/debug/vhca_kunit.ko and
#                                      vhca_verbs_kunit.ko (KUnit),
#                                      build/debug/module.log
#   KERNEL=7.3 (default) / KERNEL=6.12 a newer Debian kernel, fetched into the
#                                      cache (scripts/fetch-kernel.sh):
#                                      build/kernel-<series>/vhca.ko; 7.3's
#                                      module is built in the Debian 13 root
#                                      (scripts/build-trixie-root.sh: gcc-14)
#   VHCA_KVER=6.1.0-56-amd64 ...       another Debian kernel than kver.sh's
#   VHCA_KDIR=/lib/modules/$KVER/build  its headers elsewhere
#   KERNEL=headers VHCA_KVER=.. VHCA_KDIR=..  (DKMS, dkms.conf) the kernel
#                                      whose headers VHCA_KDIR names, any
#                                      version, with the host's compiler:
#                                      build/vhca.ko
# Every build first runs the kernel feature probes (scripts/compat-probes.sh)
# into <outdir>/compat/vhca_compat.h.
set -eu

repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
kernel=${KERNEL:-${VHCA_KERNEL:-7.3}}
mkdir -p build
fail=0

# Run a command on the host, or in the Debian 13 root (in_root, for 7.3)
# with the repository and the kernel's cache directory at their own paths.
in_root=
run() {
	if [ -z "$in_root" ]; then
		"$@"
		return
	fi
	"$repo/scripts/in-root.sh" "$in_root" "$repo $kernel_cache" "$@"
}

# The files a module build reads, relative to the repository: the
# sources Kbuild compiles and the allowlists, and the probes of
# driver/compat (compat-probes.sh compiles those).
module_sources() {
	(cd "$repo" && find Kbuild driver uapi -type f \
		\( -name Kbuild -o -name '*.c' -o -name '*.h' -o -name '*.cpp' -o -name '*.allow' \) \
		! -path 'driver/tests/*')
}

# A second source tree of symlinks under $1, so that the objects of two
# kernels never mix (Kbuild writes next to the sources; 6.1 has no separate
# output directory for external modules).  Only sources are linked: an
# object of the in-tree build must never be a link target.
link_sources() { # dir
	mkdir -p "$1"
	module_sources | grep -v '^driver/compat/' |
	while read -r f; do
		mkdir -p "$1/$(dirname "$f")"
		ln -sfn "$repo/$f" "$1/$f"
	done
	# Links to sources that were deleted since.
	find "$1" -type l ! -exec test -e {} \; -delete
}

kernel_cache=
case $kernel in
6.1|headers)
	# 6.1: the host's own headers (Debian 12's kernel); headers: those
	# VHCA_KDIR names, built with the host's compiler.
	kver=${VHCA_KVER:-$(scripts/kver.sh)}
	kdir=${VHCA_KDIR:-/usr/src/linux-headers-$kver}
	[ -d "$kdir" ] || { echo "build-module.sh: no headers in $kdir" >&2; exit 1; }
	# Kbuild puts its products next to the sources (M=$repo).
	moddir=$repo
	outdir=build
	modules="vhca"
	extra_allow=
	;;
debug)
	scripts/build-debug-kernel.sh
	# Built from linux-source-7.3 with the Debian 13 root's gcc-14: its
	# modules are built there too (the cache entry bound in at its path).
	kernel_cache=$(readlink -f build/kernel-debug)
	in_root=$(scripts/build-trixie-root.sh | tail -n 1)
	kdir=$kernel_cache/build
	moddir=$repo/build/debug/src
	outdir=build/debug
	link_sources "$moddir"
	modules="vhca vhca_kunit vhca_verbs_kunit"
	# KASAN, lockdep and the debug allocators add imports and compiler
	# runtime calls; driver/debug-symbols.allow lists them.
	extra_allow=driver/debug-symbols.allow
	;;
6.12|7.3)
	kernel_cache=$(scripts/fetch-kernel.sh "$kernel" | tail -n 1)
	kver=${kernel_cache##*/kernel-}
	kdir=$kernel_cache/root/usr/src/linux-headers-$kver
	# 7.3's headers call gcc-14 and its kbuild tools need glibc 2.38.
	[ "$kernel" != 7.3 ] || in_root=$(scripts/build-trixie-root.sh | tail -n 1)
	moddir=$repo/build/kernel-$kernel/src
	outdir=build/kernel-$kernel
	link_sources "$moddir"
	modules="vhca"
	extra_allow=
	;;
*)
	echo "build-module.sh: KERNEL=$kernel: expected 7.3, 6.12, 6.1, debug or headers" >&2
	exit 1
	;;
esac
mkdir -p "$outdir"
log=$outdir/module.log

# Every guest tier of make test asks for the module: when the inputs are
# those of the last good build (module_sources, this script and
# compat-probes.sh, the kernel's headers and .config, the root it is built
# in), its products and checks still hold.
inputs_hash() {
	{
		echo "$kernel $kdir $in_root $modules"
		stat -L -c '%Y %s' "$kdir/.config" 2>/dev/null || true
		{ module_sources; echo scripts/build-module.sh; echo scripts/compat-probes.sh; } |
			sort | (cd "$repo" && xargs sha256sum)
	} | sha256sum | cut -c1-16
}
stamp=$outdir/module.stamp
inputs=$(inputs_hash)
up_to_date=$([ "$(cat "$stamp" 2>/dev/null)" = "$inputs" ] && echo yes || echo no)
for module in $modules; do
	[ -f "$outdir/$module.ko" ] || up_to_date=no
done
if [ "$up_to_date" = yes ]; then
	echo "build-module.sh: $outdir: up to date (inputs $inputs)"
	exit 0
fi
rm -f "$stamp"

compat_dir=$repo/$outdir/compat
run sh "$repo/scripts/compat-probes.sh" "$kdir" "$compat_dir"
echo "build-module.sh: building against $kdir${in_root:+ in $in_root}"
# Host builds go through ccache (scripts/ccache-env.sh); the Debian 13
# root has none.
ccache_cc=
# (not in DKMS's copy of the sources, install.sh stage_sources).
if [ -z "$in_root" ] && [ -f scripts/ccache-env.sh ]; then
	# shellcheck source=scripts/ccache-env.sh
	. scripts/ccache-env.sh
	[ -z "$VHCA_CCACHE" ] || ccache_cc="CC=${VHCA_CCACHE}gcc"
fi
# Every core: a fresh clone compiles the driver once per kernel (7.3's and
# the debug kernel's in the Debian 13 root, where there is no ccache).
if ! run make -j"$(nproc)" -C "$kdir" M="$moddir" VHCA_COMPAT_DIR="$compat_dir" ${ccache_cc:+"$ccache_cc"} modules >"$log" 2>&1; then
	cat "$log"
	echo "build-module.sh: build FAILED" >&2
	exit 1
fi
cat "$log"

# 1. Compiler, objtool and modpost warnings.  -Werror already stops C and
#    C++ compiler warnings and the C++ rule fails on objtool output; this
#    catches objtool on C objects and modpost.  The one expected line:
#    the headers package has no vmlinux, so there is no module BTF.
#    Kbuild's own progress lines ("  CC [M]  .../errors_local.o") name
#    files, not problems.
warnings=$(grep -Ei 'warning|error' "$log" |
	grep -Ev '^  [A-Z+]+ +(\[M\] +)?[^ ]+$' |
	grep -v '^Skipping BTF generation for .* due to unavailability of vmlinux$' || true)
if [ -n "$warnings" ]; then
	echo "build-module.sh: warnings in the build:" >&2
	echo "$warnings" >&2
	fail=1
fi

# 2. Sections the kernel module loader would ignore or choke on: global
#    constructors (.init_array/.ctors: CONFIG_CONSTRUCTORS is off in
#    Debian's kernel, they would silently never run), unwind tables
#    (.eh_frame: C++ exception machinery) and GOT/PLT (position-independent
#    code).  The one exception, in KASAN builds only: the compiler's own
#    constructor that registers the globals with KASAN (_sub_I_<prio>_<n>,
#    one per object; the debug kernel has CONSTRUCTORS and runs it).  A C++
#    global constructor is _GLOBAL__sub_I_* and is never allowed.
check_sections() { # module.ko
	ko=$1
	name=$(basename "$ko")
	asan_ctors=0
	if [ "$kernel" = debug ]; then
		asan_ctors=$(nm "$ko" | grep -c ' _sub_I_[0-9]*_[0-9]*$' || true)
	fi
	init_array_bytes=0
	objdump -h "$ko" | awk '$1 ~ /^[0-9]+$/ {print $2, $3}' >"$outdir/sections.tmp"
	while read -r section size; do
		case $section in
		.init_array*)
			[ "$asan_ctors" -gt 0 ] || { echo "build-module.sh: forbidden section $section in $name" >&2; fail=1; }
			init_array_bytes=$((init_array_bytes + 0x$size)) ;;
		.fini_array*)
			[ "$asan_ctors" -gt 0 ] || { echo "build-module.sh: forbidden section $section in $name" >&2; fail=1; } ;;
		.preinit_array*|.ctors*|.dtors*|.eh_frame*|.gcc_except_table*|.got*|.plt*)
			echo "build-module.sh: forbidden section $section in $name" >&2
			fail=1 ;;
		esac
	done <"$outdir/sections.tmp"
	rm -f "$outdir/sections.tmp"
	if [ "$asan_ctors" -gt 0 ] && [ "$init_array_bytes" -ne $((asan_ctors * 8)) ]; then
		echo "build-module.sh: $name has $((init_array_bytes / 8)) constructors, only $asan_ctors are KASAN's" >&2
		fail=1
	fi
	if nm "$ko" | grep -q '_GLOBAL__sub_[ID]_'; then
		echo "build-module.sh: C++ global constructor/destructor in $name:" >&2
		nm "$ko" | grep '_GLOBAL__sub_[ID]_' >&2
		fail=1
	fi
	gotrelocs=$(readelf -rW "$ko" | grep -E 'R_X86_64_(GOT|REX_GOT|TLS|DTP|TPOFF)' || true)
	if [ -n "$gotrelocs" ]; then
		echo "build-module.sh: GOT/TLS relocations in $name:" >&2
		echo "$gotrelocs" >&2
		fail=1
	fi
}

# 3. Undefined symbols against allowlists: the whole module against
#    driver/module-symbols.allow, the C++ core object against
#    driver/core/runtime-symbols.allow (kapi services + compiler helpers);
#    in debug builds plus driver/debug-symbols.allow.  Lines ending in '*'
#    are prefixes.
check_symbols() { # object allowlist...   (run in a subshell: set -f)
	set -f
	object=$1
	shift
	patterns=$(cat "$@" | grep -v -e '^#' -e '^$')
	nm -u "$object" | awk '{print $2}' | sort -u | while read -r sym; do
		ok=0
		for pattern in $patterns; do
			case $pattern in
			*'*') case $sym in "${pattern%\*}"*) ok=1 ;; esac ;;
			*) [ "$sym" = "$pattern" ] && ok=1 ;;
			esac
			[ $ok = 1 ] && break
		done
		[ $ok = 1 ] || echo "$sym"
	done
}
require_symbols() { # object allowlist...
	object=$1
	bad=$(check_symbols "$@")
	shift
	if [ -n "$bad" ]; then
		echo "build-module.sh: $object references symbols outside $*:" >&2
		echo "$bad" >&2
		fail=1
	fi
}

for module in $modules; do
	check_sections "$moddir/$module.ko"
done
require_symbols "$moddir/driver/core/vhca_core.o" driver/core/runtime-symbols.allow $extra_allow
require_symbols "$moddir/vhca.ko" driver/module-symbols.allow $extra_allow
case " $modules " in
*" vhca_kunit "*)
	# The KUnit module holds the core too (core_tests.o): the same rules,
	# plus the test bodies' calls into the fake device.
	require_symbols "$moddir/driver/kunit/core_tests.o" driver/core/runtime-symbols.allow \
		driver/kunit/test-symbols.allow $extra_allow ;;
esac

if [ $fail != 0 ]; then
	for module in $modules; do rm -f "$outdir/$module.ko"; done
	echo "build-module.sh: checks FAILED" >&2
	exit 1
fi
for module in $modules; do
	cp "$moddir/$module.ko" "$outdir/$module.ko"
	echo "build-module.sh: $outdir/$module.ko OK (sections, symbols, objtool, warnings checked)"
done
echo "$inputs" > "$stamp"
