#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# qemu-patches.sh - the vhca device as a `git format-patch` series against
# QEMU 10.2's source tree (scripts/qemu-series.sh makes it; the same series
# is what scripts/build-qemu10.sh `git am`s into the tree `make qemu`
# builds), and its check.
#
#   qemu-patches.sh write   build/qemu-patches/000N-*.patch (`make
#       qemu-patches`); kept as is while its inputs are unchanged.
#   qemu-patches.sh check   `make check-qemu-patches`: the series `git am`ed
#       afresh onto the pristine tree (VHCA_SERIES_REAPPLY=1), the build
#       tree moved to exactly that commit, checked to differ from it only by
#       what our configuration adds (fix_cxl_stub, the untracked device list
#       and build/), built, its products linked into
#       build/qemu-10.2-patches/, then the qtests (scripts/run-qtest.sh;
#       results build/results/qtest-10.2-patches.*).  QEMU_SRC=DIR checks a
#       user's checkout the same way.
set -euo pipefail

# shellcheck source=build-qemu10.sh
source "$(dirname "${BASH_SOURCE[0]}")/build-qemu10.sh"

check_series() {
    local extra
    VHCA_SERIES_REAPPLY=1 main10
    [ "$(git -C "$TREE" rev-parse HEAD)" = "$AM_HEAD" ] ||
        die "$TREE is not at the commit git am made ($AM_HEAD)"
    extra=$(git -C "$TREE" status --porcelain --untracked-files=no |
            grep -v '^ M hw/cxl/cxl-host-stubs.c$' || true)
    [ -z "$extra" ] || die "$TREE differs from base + series beyond fix_cxl_stub: $extra"
    say "$TREE is $(git -C "$TREE" log --oneline "$(cat "$TREE/.git/vhca-series-base")..HEAD" | wc -l) commits of git am on $(cat "$TREE/.git/vhca-series-base" | cut -c1-12), built"
    OUT=$REPO/build/qemu-10.2-patches
    link_products
    VHCA_QEMU_OUT=build/qemu-10.2-patches "$REPO/scripts/run-qtest.sh"
}

main_patches() {
    case "${1:-}" in
    write)
        MESON_PYTHONPATH=$("$REPO/scripts/deps-qemu10.sh") ||
            die "scripts/deps-qemu10.sh failed (meson 1.7 from bookworm-backports)"
        fetch_source
        pristine_repo
        write_series
        ;;
    check) check_series ;;
    *) die "usage: $0 write|check" ;;
    esac
}

main_patches "$@"
