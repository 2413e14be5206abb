#!/usr/bin/env bash
# Build build/initramfs.cpio.gz: busybox-static, the kernel modules that
# reach the host's root over 9p (with their dependencies, from the guest
# kernel's /lib/modules/$KVER), and the two init stages in scripts/guest/.
#
# Cached by a hash of every input: build/initramfs.hash says which inputs
# build/initramfs.cpio.gz was made from, and ~/.cache/vhca keeps a copy so a
# fresh clone on the same machine reuses it.
#
# KERNEL=7.3 (default) or 6.12 (or VHCA_KERNEL): for that cached Debian
# kernel (scripts/fetch-kernel.sh), its modules from the cache:
# build/kernel-<series>/initramfs.cpio.gz.  KERNEL=6.1: Debian 12's kernel
# of the host, build/initramfs.cpio.gz, which the debug kernel boots too
# (its virtio and 9p are built in: the modules in it are not needed).
set -euo pipefail
cd "$(dirname "$0")/.."

busybox=/bin/busybox
modules_wanted="virtio_pci 9pnet_virtio 9p overlay"
cache_dir=${VHCA_CACHE:-$HOME/.cache/vhca}
series=${KERNEL:-${VHCA_KERNEL:-7.3}}
case $series in
6.12|7.3)
	kernel_cache=$(scripts/fetch-kernel.sh "$series" | tail -n 1)
	kver=${kernel_cache##*/kernel-}
	modprobe_root=(-d "$kernel_cache/root")
	build=build/kernel-$series
	;;
6.1|debug)
	kver=$(scripts/kver.sh)
	modprobe_root=()
	build=build
	;;
*)
	echo "build-initramfs: KERNEL=$series: expected 7.3, 6.12, 6.1 or debug" >&2
	exit 1
	;;
esac
out=$build/initramfs.cpio.gz

[ -x "$busybox" ] || { echo "build-initramfs: $busybox missing (busybox-static)" >&2; exit 1; }
case "$(ldd "$busybox" 2>&1)" in
*"not a dynamic executable"*) ;;
*) echo "build-initramfs: $busybox is not static (install busybox-static)" >&2; exit 1 ;;
esac

# Module files in load order, each once (modprobe prints dependencies first).
mapfile -t module_files < <(
	for m in $modules_wanted; do
		modprobe "${modprobe_root[@]}" --show-depends -S "$kver" "$m"
	done | awk '$1 == "insmod" && !seen[$2]++ { print $2 }'
)
[ "${#module_files[@]}" -gt 0 ] || { echo "build-initramfs: no modules for $kver" >&2; exit 1; }

hash=$(
	{
		echo "$kver"
		sha256sum scripts/build-initramfs.sh scripts/guest/init-stage1 \
			scripts/guest/init-stage2 "$busybox" "${module_files[@]}"
	} | sha256sum | cut -c1-16
)

mkdir -p "$build" "$cache_dir"
if [ -f "$out" ] && [ "$(cat "$build/initramfs.hash" 2>/dev/null)" = "$hash" ]; then
	echo "initramfs: up to date ($out, $hash)"
	exit 0
fi
cached=$cache_dir/initramfs-$hash.cpio.gz
if [ ! -f "$cached" ]; then
	staging=$(mktemp -d)
	# Written next to its final name, then renamed (atomic): a concurrent
	# build never sees half a file.
	tmp=$(mktemp "$cached.XXXXXX")
	trap 'rm -rf "$staging" "$tmp"' EXIT
	mkdir -p "$staging"/{bin,dev,proc,sys,lib/modules}
	cp "$busybox" "$staging/bin/busybox"
	cp scripts/guest/init-stage1 "$staging/init"
	cp scripts/guest/init-stage2 "$staging/vhca-init"
	: > "$staging/modules.list"
	echo "$kver" > "$staging/modules.kver"
	for f in "${module_files[@]}"; do
		name=$(basename "$f")
		case "$name" in
		*.ko.xz)  xz -dc "$f" > "$staging/lib/modules/${name%.xz}"; name=${name%.xz} ;;
		*.ko.zst) zstd -qdc "$f" > "$staging/lib/modules/${name%.zst}"; name=${name%.zst} ;;
		*.ko.gz)  gzip -dc "$f" > "$staging/lib/modules/${name%.gz}"; name=${name%.gz} ;;
		*)        cp "$f" "$staging/lib/modules/$name" ;;
		esac
		echo "/lib/modules/$name" >> "$staging/modules.list"
	done
	(cd "$staging" && find . -mindepth 1 | LC_ALL=C sort |
		cpio --quiet -o -H newc -R 0:0 --reproducible) | gzip -n -6 > "$tmp"
	mv "$tmp" "$cached"
fi
out_tmp=$(mktemp "$out.XXXXXX")
cp "$cached" "$out_tmp"
mv "$out_tmp" "$out"
echo "$hash" > "$build/initramfs.hash"
echo "initramfs: built $out ($hash, kernel $kver: ${#module_files[@]} modules)"
