#!/bin/sh
# Build vhca.ko against the guest kernel's headers and check it (`make
# module`).  Leaves build/vhca.ko and build/module.log; exits non-zero if
# the build or any check fails.  Documentation/driver.md "Build rules"
# explains each check.
#
#   scripts/build-module.sh            build and check
#   VHCA_KVER=6.1.0-56-amd64 ...       another kernel than scripts/kver.sh's
set -eu

repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
kver=${VHCA_KVER:-$(scripts/kver.sh)}
kdir=/usr/src/linux-headers-$kver
[ -d "$kdir" ] || { echo "build-module.sh: no headers in $kdir" >&2; exit 1; }
mkdir -p build
log=build/module.log
fail=0

echo "build-module.sh: building against $kdir"
if ! make -C "$kdir" M="$repo" modules >"$log" 2>&1; then
	cat "$log"
	echo "build-module.sh: build FAILED" >&2
	exit 1
fi
cat "$log"

# 1. Compiler, objtool and modpost warnings.  -Werror already stops C and
#    C++ compiler warnings and the C++ rule fails on objtool output; this
#    catches objtool on C objects and modpost.  The one expected line:
#    the headers package has no vmlinux, so there is no module BTF.
warnings=$(grep -Ei 'warning|error' "$log" |
	grep -v '^Skipping BTF generation for .* due to unavailability of vmlinux$' || true)
if [ -n "$warnings" ]; then
	echo "build-module.sh: warnings in the build:" >&2
	echo "$warnings" >&2
	fail=1
fi

# 2. Sections the kernel module loader would ignore or choke on: global
#    constructors (.init_array/.ctors: CONFIG_CONSTRUCTORS is off, they
#    would silently never run), unwind tables (.eh_frame: C++ exception
#    machinery) and GOT/PLT (position-independent code).
sections=$(objdump -h vhca.ko | awk '$1 ~ /^[0-9]+$/ {print $2}')
for section in $sections; do
	case $section in
	.init_array*|.fini_array*|.preinit_array*|.ctors*|.dtors*|.eh_frame*|.gcc_except_table*|.got*|.plt*)
		echo "build-module.sh: forbidden section $section in vhca.ko" >&2
		fail=1 ;;
	esac
done
gotrelocs=$(readelf -rW vhca.ko | grep -E 'R_X86_64_(GOT|REX_GOT|TLS|DTP|TPOFF)' || true)
if [ -n "$gotrelocs" ]; then
	echo "build-module.sh: GOT/TLS relocations in vhca.ko:" >&2
	echo "$gotrelocs" >&2
	fail=1
fi

# 3. Undefined symbols against allowlists: the whole module against
#    driver/module-symbols.allow, the C++ core object against
#    driver/core/runtime-symbols.allow (kapi services + compiler helpers).
#    Lines ending in '*' are prefixes.
check_symbols() { # object allowlist
	nm -u "$1" | awk '{print $2}' | sort -u | while read -r sym; do
		ok=0
		while read -r pattern; do
			case $pattern in ''|'#'*) continue ;; esac
			case $pattern in
			*'*') case $sym in "${pattern%\*}"*) ok=1 ;; esac ;;
			*) [ "$sym" = "$pattern" ] && ok=1 ;;
			esac
			[ $ok = 1 ] && break
		done <"$2"
		[ $ok = 1 ] || echo "$sym"
	done
}
bad=$(check_symbols driver/core/vhca_core.o driver/core/runtime-symbols.allow)
if [ -n "$bad" ]; then
	echo "build-module.sh: driver/core/vhca_core.o references symbols outside driver/core/runtime-symbols.allow:" >&2
	echo "$bad" >&2
	fail=1
fi
bad=$(check_symbols vhca.ko driver/module-symbols.allow)
if [ -n "$bad" ]; then
	echo "build-module.sh: vhca.ko imports symbols outside driver/module-symbols.allow:" >&2
	echo "$bad" >&2
	fail=1
fi

if [ $fail != 0 ]; then
	rm -f build/vhca.ko
	echo "build-module.sh: checks FAILED" >&2
	exit 1
fi
cp vhca.ko build/vhca.ko
echo "build-module.sh: build/vhca.ko OK (sections, symbols, objtool, warnings checked)"
