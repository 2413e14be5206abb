#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# build-qemu10.sh - build QEMU 10.2 (Debian's qemu_10.2.2+ds source package,
# fetched from the archive's pool: bookworm has no 10.x) with the vhca
# device, leaving build/qemu-10.2/qemu-system-x86_64 and its qtest programs
# in build/qemu-10.2/qtest/.  `make qemu QEMU_VERSION=10.2` runs it;
# `make check-qtest QEMU_VERSION=10.2` runs the qtests against it.
#
# It is scripts/build-qemu.sh (sourced for its functions: the same device
# list, glue, sync, ninja and linking) with three differences:
#   - fetch_source: the pool files named by QEMU10_DSC, checked against the
#     .dsc's SHA-256 list, cached in $VHCA_CACHE/src-<version>/;
#   - configure_tree: QEMU 10 wants meson >= 1.5 in its Python venv;
#     scripts/deps-qemu10.sh unpacks bookworm-backports' meson 1.7 into the
#     cache (the host's meson 1.0 stays, for QEMU 7.2) and PYTHONPATH hands
#     it to configure's venv, which then sees it as a system package;
#   - tree_hash: also covers that meson's location (its version).
# The tree is $VHCA_CACHE/qemu10-<hash>/, never one of 7.2's qemu-<hash>.
set -euo pipefail

# shellcheck source=build-qemu.sh
source "$(dirname "${BASH_SOURCE[0]}")/build-qemu.sh"

QEMU10_DSC=${QEMU10_DSC:-qemu_10.2.2+ds-1.dsc}
QEMU10_POOL=pool/main/q/qemu
OUT=$REPO/build/qemu-10.2
if [ "$SANITIZE" = 1 ]; then
    die "VHCA_QEMU_SANITIZE=1 is for QEMU 7.2 only (scripts/build-qemu.sh)"
fi

# The archive's URI: the first deb-src entry scripts/deps.sh wrote from the
# machine's own apt sources (the mirror apt already uses).
archive_uri() {
    awk '/^URIs:/ { print $2; exit }' /etc/apt/sources.list.d/vhca-deb-src.sources
}

fetch_source() {
    local version=${QEMU10_DSC#qemu_} uri f
    version=${version%%-*}
    SRC_CACHE=$CACHE/src-$version
    DSC=$SRC_CACHE/$QEMU10_DSC
    if [ -e "$SRC_CACHE/.verified" ]; then
        return 0
    fi
    uri=$(archive_uri)
    [ -n "$uri" ] || die "no deb-src entry: run scripts/deps.sh"
    mkdir -p "$SRC_CACHE"
    say "downloading $QEMU10_DSC and its tarballs into $SRC_CACHE"
    curl -sSf -o "$DSC" "$uri/$QEMU10_POOL/$QEMU10_DSC" ||
        die "could not download $QEMU10_DSC"
    for f in $(awk '/^Checksums-Sha256:/ { on = 1; next } /^[^ ]/ { on = 0 }
                    on { print $3 }' "$DSC"); do
        [ -e "$SRC_CACHE/$f" ] ||
            curl -sSf -o "$SRC_CACHE/$f" "$uri/$QEMU10_POOL/$f" ||
            die "could not download $f"
    done
    (cd "$SRC_CACHE" && awk '/^Checksums-Sha256:/ { on = 1; next }
            /^[^ ]/ { on = 0 } on { print $1 "  " $3 }' "$DSC" | sha256sum -c --quiet) ||
        die "checksums of $SRC_CACHE do not match $QEMU10_DSC"
    touch "$SRC_CACHE/.verified"
}

# As build-qemu.sh's, for QEMU 10: Rust stays off (the device is C), no
# subproject is downloaded, and configure's venv takes meson from
# MESON_PYTHONPATH rather than from PyPI.
configure_tree() {
    local tree=$1
    local slirp=--disable-slirp
    if pkg-config --exists slirp; then
        slirp=--enable-slirp
    fi
    (cd "$tree" && PYTHONPATH=$MESON_PYTHONPATH ./configure \
        --python=/usr/bin/python3 \
        --target-list=x86_64-softmmu \
        --without-default-features \
        --without-default-devices \
        --with-devices-x86_64=vhca \
        --enable-kvm --enable-tcg "$slirp" \
        --enable-virtfs --enable-attr --enable-cap-ng --disable-rust --disable-download \
        --disable-docs --disable-tools --disable-guest-agent --disable-user \
        --disable-werror --audio-drv-list= --disable-install-blobs)
}

tree_hash() {
    {
        cat "$DSC"
        echo "$MESON_PYTHONPATH"
        declare -f device_list qtest_glue glue_tree configure_tree prepare_tree
    } | sha256sum | cut -c1-16
}

# QEMU 10.2.2 does not link without CONFIG_CXL (--without-default-devices):
# ACPI_X86 selects ACPI_CXL, whose hw/acpi/cxl.c calls
# cxl_fmws_get_all_sorted(), which only hw/cxl/cxl-host.c defines, not
# cxl-host-stubs.c.  Add the stub (no CXL windows: hw/acpi/cxl.c builds an
# empty list) to the tree, idempotently, after every glue or `git am`; it is
# QEMU's bug, so it is not part of the vhca series.  Editing the stub file
# rebuilds one object.
fix_cxl_stub() {
    local stubs=$1/hw/cxl/cxl-host-stubs.c
    grep -q 'cxl_fmws_get_all_sorted' "$stubs" && return 0
    grep -q '^GSList \*cxl_fmws_get_all_sorted(void)' "$1/include/hw/cxl/cxl_host.h" ||
        die "cxl_fmws_get_all_sorted() is gone from cxl_host.h: check fix_cxl_stub"
    printf '\n%s\n' 'GSList *cxl_fmws_get_all_sorted(void) { return NULL; }' >> "$stubs"
}

main10() {
    MESON_PYTHONPATH=$("$REPO/scripts/deps-qemu10.sh")
    # ninja runs meson again when a meson.build changes (vhca-qtests.txt).
    export PYTHONPATH=$MESON_PYTHONPATH
    fetch_source
    TREE=$CACHE/qemu10-$(tree_hash)
    lock_and_ready_tree "building QEMU 10.2 (10 to 20 minutes on 2 cores; log: $TREE/ninja.log)"
    fix_cxl_stub "$TREE"
    build_tree
    link_firmware
    link_products
}

# scripts/qemu-patches.sh sources this file for its functions.
if [ "${BASH_SOURCE[0]}" = "$0" ]; then
    main10 "$@"
fi
