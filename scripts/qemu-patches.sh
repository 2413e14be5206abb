#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# qemu-patches.sh - the vhca device as a `git format-patch` series against
# QEMU 10.2's source tree (Debian's qemu_10.2.2+ds, extracted by dpkg-source
# as scripts/build-qemu10.sh does), and its check.
#
#   qemu-patches.sh write   build/qemu-patches/000N-*.patch:
#       1. hw/misc/vhca: the device (qemu-device/, uapi/vhca_hw*.h), its
#          Kconfig and meson lines and trace-events directory;
#       2. tests/qtest: the vhca qtests (qemu-device/tests/) and their
#          meson lines;
#       3. docs/system/devices/vhca.rst (qemu-device/docs/vhca.rst).
#   qemu-patches.sh check   `git am` of that series onto a clean tree,
#       configured and built as build-qemu10.sh does (minimal x86_64, the
#       device list), its products linked into build/qemu-10.2-patches/,
#       then the qtests (scripts/run-qtest.sh; results qtest-10.2-patches).
#
# Cache: $VHCA_CACHE/qemu-patches/pristine-<version>/ (git: the extracted
# tree as commit `pristine`), .../check-<version>/ (a clone, reset to
# `pristine` and cleaned before each `git am`; its build/ stays, so that a
# new series rebuilds only what it changes).
set -euo pipefail

# shellcheck source=build-qemu10.sh
source "$(dirname "${BASH_SOURCE[0]}")/build-qemu10.sh"

PATCHES=$REPO/build/qemu-patches
# Fixed dates: the same sources give the same series, byte for byte.
export GIT_AUTHOR_DATE="2026-01-01T00:00:00Z" GIT_COMMITTER_DATE="2026-01-01T00:00:00Z"
git_id=(-c "user.name=$(git -C "$REPO" log -1 --format=%an)"
        -c "user.email=$(git -C "$REPO" log -1 --format=%ae)")

# The pristine tree as a git repository, once per source version.
pristine_repo() {
    local dir=$CACHE/qemu-patches/pristine-${SRC_CACHE##*/src-} tmp
    PRISTINE=$dir
    [ -e "$dir/.git/vhca-pristine" ] && return 0
    tmp=$dir.partial
    rm -rf "$tmp" "$dir"
    mkdir -p "${dir%/*}"
    say "extracting $(basename "$DSC") into $dir"
    dpkg-source --no-check --no-copy -x "$DSC" "$tmp" > "$CACHE/dpkg-source.log" 2>&1 ||
        die "dpkg-source -x failed, see $CACHE/dpkg-source.log"
    say "committing the pristine tree (a minute)"
    git -C "$tmp" init -q
    git -C "$tmp" add -A -f
    git "${git_id[@]}" -C "$tmp" commit -q -m "QEMU $(basename "$DSC" .dsc), as dpkg-source extracts it"
    git -C "$tmp" tag pristine
    mv "$tmp" "$dir"
    touch "$dir/.git/vhca-pristine"
}

commit_step() {
    local tree=$1 subject=$2 body=$3
    git -C "$tree" add -A
    git "${git_id[@]}" -C "$tree" commit -q -s -m "$subject" -m "$body"
}

# The device's files and its Kconfig, meson and trace-events lines (the
# same lines build-qemu.sh's glue_tree adds).
add_device() {
    local tree=$1 f
    mkdir -p "$tree/hw/misc/vhca"
    for f in "$REPO"/qemu-device/* "$REPO"/uapi/vhca_hw*.h; do
        [ -f "$f" ] && cp "$f" "$tree/hw/misc/vhca/"
    done
    echo 'source vhca/Kconfig' >> "$tree/hw/misc/Kconfig"
    echo "subdir('vhca')" >> "$tree/hw/misc/meson.build"
    sed -i "s|^    'hw/misc/macio',$|&\n    'hw/misc/vhca',|" "$tree/meson.build"
    grep -q "'hw/misc/vhca'," "$tree/meson.build" ||
        die "could not add hw/misc/vhca to trace_events_subdirs"
}

add_qtests() {
    local tree=$1 f
    for f in "$REPO"/qemu-device/tests/*; do
        [ -f "$f" ] && cp "$f" "$tree/tests/qtest/"
    done
    sed -i "s|^qtest_executables = {}$|$(qtest_glue)\n&|" "$tree/tests/qtest/meson.build"
    grep -q "vhca-qtests.txt" "$tree/tests/qtest/meson.build" ||
        die "could not add the vhca qtests to tests/qtest/meson.build"
}

add_docs() {
    local tree=$1 index=$1/docs/system/device-emulation.rst
    cp "$REPO/qemu-device/docs/vhca.rst" "$tree/docs/system/devices/vhca.rst"
    # After the last devices/ entry of the toctree.
    awk -v add='   devices/vhca.rst' '
        { line[NR] = $0 } /^   devices\// { last = NR }
        END { for (i = 1; i <= NR; i++) { print line[i]; if (i == last) print add } }' \
        "$index" > "$index.new"
    mv "$index.new" "$index"
    grep -q 'devices/vhca.rst' "$index" || die "could not add vhca.rst to $index"
}

write_series() {
    local work=$CACHE/qemu-patches/write
    pristine_repo
    rm -rf "$work"
    git clone -q --shared "$PRISTINE" "$work"
    add_device "$work"
    commit_step "$work" "hw/misc/vhca: add the vhca virtual InfiniBand HCA" \
"vhca is a PCI model of an InfiniBand host channel adapter with one or two
ports: a command queue and event queues in guest memory, protection
domains, memory regions and windows, completion queues, queue pairs (RC,
UC, UD, XRC, SMI, GSI), shared receive queues and multicast, executed
between the ports of an in-process fabric with an embedded subnet
manager, or cabled to other VMs through a netdev.  Its Linux driver and
libibverbs provider are the vhca project's.

vhca-qemu-compat.h keeps the same sources building on QEMU 7.2; on this
tree it only includes the system/ headers."
    add_qtests "$work"
    commit_step "$work" "tests/qtest: add the vhca qtests" \
"One program per concept (command queue, ports, data path, subnet
management, faults), named in vhca-qtests.txt and linked with the helper
sources named in vhca-qtest-libs.txt."
    add_docs "$work"
    commit_step "$work" "docs/system/devices: add vhca.rst" \
"What the guest sees, the topology (in-process fabrics, VMs cabled
through a switch outside QEMU), the properties and the device's security
stance."
    rm -rf "$PATCHES"
    git -C "$work" format-patch -q -o "$PATCHES" pristine..HEAD
    say "wrote $(ls "$PATCHES" | wc -l) patches into ${PATCHES#"$REPO"/}:"
    ls "$PATCHES" | sed 's/^/  /'
}

check_series() {
    local check patches=("$PATCHES"/*.patch)
    [ -e "${patches[0]}" ] || die "no series in $PATCHES: run make qemu-patches"
    pristine_repo
    check=$CACHE/qemu-patches/check-${SRC_CACHE##*/src-}
    exec 9> "$CACHE/.lock-$(basename "$check")"
    flock 9
    if [ ! -e "$check/.git" ]; then
        git clone -q --shared "$PRISTINE" "$check"
    fi
    git -C "$check" am --abort > /dev/null 2>&1 || true
    git -C "$check" reset -q --hard pristine
    git -C "$check" clean -q -fd -e /configs/devices/x86_64-softmmu/vhca.mak
    say "git am ${#patches[@]} patches onto $check"
    git "${git_id[@]}" -C "$check" am -q "${patches[@]}" ||
        die "git am failed in $check"
    TREE=$check
    fix_cxl_stub "$TREE"
    device_list > "$TREE/vhca.mak.new"
    sync_file "$TREE/vhca.mak.new" "$TREE/configs/devices/x86_64-softmmu/vhca.mak"
    rm -f "$TREE/vhca.mak.new"
    if [ ! -e "$TREE/build/.vhca-configured" ]; then
        say "configuring (log: $TREE/configure.log)"
        configure_tree "$TREE" > "$TREE/configure.log" 2>&1 || {
            tail -n 30 "$TREE/configure.log" >&2
            die "configure failed"
        }
        touch "$TREE/build/.vhca-configured"
    fi
    say "building (log: $TREE/ninja.log)"
    build_tree
    link_firmware
    OUT=$REPO/build/qemu-10.2-patches
    link_products
    VHCA_QEMU_OUT=build/qemu-10.2-patches "$REPO/scripts/run-qtest.sh"
}

main_patches() {
    MESON_PYTHONPATH=$("$REPO/scripts/deps-qemu10.sh")
    export PYTHONPATH=$MESON_PYTHONPATH
    fetch_source
    case "${1:-}" in
    write) write_series ;;
    check) check_series ;;
    *) die "usage: $0 write|check" ;;
    esac
}

main_patches "$@"
