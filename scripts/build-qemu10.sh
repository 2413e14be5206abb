#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# build-qemu10.sh - build QEMU 10.2 (Debian's qemu_10.2.2+ds source package,
# fetched from the archive's pool: bookworm has no 10.x) with the vhca
# device, leaving build/qemu/qemu-system-x86_64 and its qtest programs in
# build/qemu/qtest/ (VHCA_QEMU_OUT overrides build/qemu).  `make qemu` runs
# it: QEMU 10.2 is the default (QEMU_VERSION=7.2: scripts/build-qemu.sh).
#
# The device gets into the tree one way: the patch series of
# scripts/qemu-series.sh (build/qemu-patches/, what `make qemu-patches`
# hands to QEMU users), `git am`ed onto dpkg-source's pristine extraction.
# The tree, $VHCA_CACHE/qemu10-<hash>/, is a git clone of that extraction
# whose HEAD is pristine + the series; a changed series moves it with
# `git reset --keep`, which rewrites only the files that differ (ninja stays
# incremental).  <hash> covers the source package, the meson used and the
# functions that configure the tree, not the series.
#
# QEMU_SRC=DIR (`make qemu QEMU_SRC=DIR`): the user's own git checkout of
# QEMU 10.2 instead: the same series is `git am`ed onto the HEAD it had when
# first given (recorded in DIR/.git/vhca-series-base; a new series replaces
# the old with reset --keep), the tree is configured as ours when it has no
# build/build.ninja yet, built, and linked into build/qemu/ as ours is.
#
# From scripts/build-qemu.sh (sourced for its functions): the device list,
# qtest glue, ninja and linking.  Here, beyond it:
#   - fetch_source: the pool files named by QEMU10_DSC, checked against the
#     .dsc's SHA-256 list, cached in $VHCA_CACHE/src-<version>/;
#   - configure_tree: QEMU 10 wants meson >= 1.5 in its Python venv;
#     scripts/deps-qemu10.sh unpacks bookworm-backports' meson 1.7 into the
#     cache (the host's meson 1.0 stays) and PYTHONPATH hands it to
#     configure's venv, which then sees it as a system package.
set -euo pipefail

# shellcheck source=build-qemu.sh
source "$(dirname "${BASH_SOURCE[0]}")/build-qemu.sh"
# shellcheck source=qemu-series.sh
source "$(dirname "${BASH_SOURCE[0]}")/qemu-series.sh"

QEMU10_DSC=${QEMU10_DSC:-qemu_10.2.2+ds-1.dsc}
QEMU10_POOL=pool/main/q/qemu
OUT=$REPO/${VHCA_QEMU_OUT:-build/qemu}
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
# MESON_PYTHONPATH rather than from PyPI.  QOM cast checks are off as in
# 7.2's build (QEMU 10's meson turns qom_cast_debug on by default): with
# them every OBJECT_CHECK cast, which TCG's helpers do per instruction,
# looks the type up (a guest's shell loop ran 14 % faster without).  Part
# of the tree hash: changing it costs one cold build (12 min on 2 cores).
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
        --disable-werror --disable-qom-cast-debug \
        --audio-drv-list= --disable-install-blobs)
}

tree_hash() {
    {
        cat "$DSC"
        echo "$MESON_PYTHONPATH"
        declare -f device_list configure_tree prepare_tree10
    } | sha256sum | cut -c1-16
}

# A clone of the pristine repository (configure records absolute paths:
# made in its final location), the series applied, configured.
prepare_tree10() {
    say "new tree $TREE (source $(basename "$DSC"), the series of ${PATCHES#"$REPO"/})"
    rm -rf "$TREE"
    git clone -q --shared --no-checkout "$PRISTINE" "$TREE"
    git -C "$TREE" checkout -q --detach pristine
    git -C "$TREE" rev-parse pristine > "$TREE/.git/vhca-series-base"
    apply_series "$TREE"
    ready_config
    say "configuring (log: $TREE/configure.log)"
    if ! configure_tree "$TREE" > "$TREE/configure.log" 2>&1; then
        tail -n 30 "$TREE/configure.log" >&2
        rm -rf "$TREE.failed"
        mv "$TREE" "$TREE.failed"
        die "configure failed (tree kept in $TREE.failed)"
    fi
    touch "$TREE/.vhca-configured"
}

# What our configuration needs beyond the series: the device list named
# by --with-devices-x86_64=vhca (untracked) and fix_cxl_stub.
ready_config() {
    SYNCED=()
    device_list > "$TREE/vhca.mak.new"
    sync_file "$TREE/vhca.mak.new" "$TREE/configs/devices/x86_64-softmmu/vhca.mak"
    rm -f "$TREE/vhca.mak.new"
    fix_cxl_stub "$TREE"
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

# Our tree in the cache: made once per hash, then the series re-applied.
cache_tree() {
    TREE=$CACHE/qemu10-$(tree_hash)
    exec 9> "$CACHE/.lock-$(basename "$TREE")"
    flock 9
    if [ ! -e "$TREE/.vhca-configured" ]; then
        prepare_tree10
        say "building QEMU 10.2 (10 to 20 minutes on 2 cores; log: $TREE/ninja.log)"
    else
        apply_series "$TREE"
        ready_config
    fi
}

# QEMU_SRC=DIR: the user's git checkout.
user_tree() {
    TREE=$(cd "$QEMU_SRC" && pwd)
    git -C "$TREE" rev-parse --git-dir > /dev/null 2>&1 ||
        die "QEMU_SRC=$QEMU_SRC is not a git checkout (the series is applied with git am)"
    [ "$(git -C "$TREE" rev-parse --show-toplevel)" = "$TREE" ] ||
        die "QEMU_SRC=$QEMU_SRC is not the top of its git checkout"
    case "$(cat "$TREE/VERSION" 2>/dev/null)" in
    10.2.*) ;;
    *) die "QEMU_SRC=$QEMU_SRC is QEMU $(cat "$TREE/VERSION" 2>/dev/null || echo '?'); the series is against 10.2" ;;
    esac
    exec 9> "$CACHE/.lock-qemu-src-$(echo "$TREE" | sha256sum | cut -c1-8)"
    flock 9
    if [ ! -e "$TREE/.git/vhca-series-base" ]; then
        [ ! -e "$TREE/hw/infiniband/vhca" ] ||
            die "$TREE has hw/infiniband/vhca but no record of the series: check it out without it"
        git -C "$TREE" rev-parse HEAD > "$TREE/.git/vhca-series-base"
    fi
    apply_series "$TREE"
    if [ ! -e "$TREE/build/build.ninja" ]; then
        ready_config
        say "configuring $TREE as ours (log: $TREE/build/vhca-configure.log)"
        mkdir -p "$TREE/build"
        configure_tree "$TREE" > "$TREE/build/vhca-configure.log" 2>&1 || {
            tail -n 30 "$TREE/build/vhca-configure.log" >&2
            die "configure failed"
        }
        say "building QEMU in $TREE (10 to 20 minutes on 2 cores; log: $TREE/ninja.log)"
    fi
}

main10() {
    MESON_PYTHONPATH=$("$REPO/scripts/deps-qemu10.sh") ||
        die "scripts/deps-qemu10.sh failed (meson 1.7 from bookworm-backports)"
    [ -d "$MESON_PYTHONPATH/mesonbuild" ] ||
        die "scripts/deps-qemu10.sh printed '$MESON_PYTHONPATH', not meson's directory"
    # ninja runs meson again when a meson.build changes (vhca-qtests.txt).
    export PYTHONPATH=$MESON_PYTHONPATH
    fetch_source
    mkdir -p "$CACHE"
    pristine_repo
    write_series
    if [ -n "${QEMU_SRC:-}" ]; then
        user_tree
    else
        cache_tree
    fi
    build_tree
    link_firmware
    link_products
}

# scripts/qemu-patches.sh sources this file for its functions.
if [ "${BASH_SOURCE[0]}" = "$0" ]; then
    main10 "$@"
fi
