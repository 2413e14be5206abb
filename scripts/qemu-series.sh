# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
#
# qemu-series.sh - functions (sourced by scripts/build-qemu10.sh) that make
# the vhca device a `git format-patch` series against QEMU 10.2's source
# tree and put it into a tree with `git am`: the one way the device gets
# into a QEMU 10 tree, ours ($VHCA_CACHE/qemu10-<hash>/) or a user's
# (`make qemu QEMU_SRC=DIR`).  Documentation/device-qemu.md "QEMU versions".
#
# The series (build/qemu-patches/):
#   1. hw/infiniband/vhca/fabric: the fabric library (fabric/: plain C, its
#      own static library, fabric/meson.build), which the device links; not
#      built until the device's meson.build names it;
#   2. hw/infiniband/vhca: the device (qemu-device/; uapi/vhca_hw*.h in its
#      uapi/, an include directory of the system build as fabric/ is), the
#      directory hw/infiniband/ with its Kconfig and meson.build, their lines
#      in hw/ and the trace-events directory (glue_infiniband, build-qemu.sh);
#   3. tests/qtest: the vhca qtests (qemu-device/tests/), their meson lines;
#   4. tests/qtest/fuzz: the generic-fuzz config `vhca` in
#      generic_fuzz_configs.h (qemu-device/tests/fuzz/generic-fuzz-vhca.inc),
#      the target generic-fuzz-vhca of a fuzzing build (scripts/run-qemu-fuzz.sh);
#   5. docs/system/devices/vhca.rst (qemu-device/docs/vhca.rst).
#
# Cache, under $VHCA_CACHE/qemu-patches/:
#   pristine-<version>/  dpkg-source's extraction as a git repository, its
#                        one commit tagged `pristine`;
#   write/               a clone where the five commits are made from the
#                        project's files and format-patch'ed;
#   am-<name>/           a clone reset to the base and the series `git am`ed
#                        onto it, from which a tree takes the result.
# A tree takes the am'ed commits by `git fetch` and `git reset --keep`:
# git rewrites only the files that differ, so ninja rebuilds only what the
# new series changed, and the tree's HEAD is always exactly base + `git am`.

PATCHES=$REPO/build/qemu-patches
# Fixed dates: the same sources give the same series, byte for byte.
export GIT_AUTHOR_DATE="2026-01-01T00:00:00Z" GIT_COMMITTER_DATE="2026-01-01T00:00:00Z"
git_id=(-c "user.name=$(git -C "$REPO" log -1 --format=%an 2>/dev/null || echo vhca)"
        -c "user.email=$(git -C "$REPO" log -1 --format=%ae 2>/dev/null || echo vhca@localhost)")

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

# The fabric library's files and its meson.build, where the device's
# meson.build (subdir('fabric')) finds them.
add_fabric() {
    local tree=$1 f
    mkdir -p "$tree/hw/infiniband/vhca/fabric"
    for f in "$REPO"/fabric/*; do
        [ -f "$f" ] && cp "$f" "$tree/hw/infiniband/vhca/fabric/"
    done
}

# The device's files and its Kconfig, meson and trace-events lines.
add_device() {
    local tree=$1 f
    glue_infiniband "$tree"
    for f in "$REPO"/qemu-device/*; do
        [ -f "$f" ] && cp "$f" "$tree/hw/infiniband/vhca/"
    done
    mkdir -p "$tree/hw/infiniband/vhca/uapi"
    cp "$REPO"/uapi/vhca_hw*.h "$tree/hw/infiniband/vhca/uapi/"
}

# The qtest programs are named in qemu-device/tests/vhca-qtests.txt, the
# helper sources each links in vhca-qtest-libs.txt (qtest_glue).
add_qtests() {
    local tree=$1 f
    for f in "$REPO"/qemu-device/tests/*; do
        [ -f "$f" ] && cp "$f" "$tree/tests/qtest/"
    done
    sed -i "s|^qtest_executables = {}$|$(qtest_glue)\n&|" "$tree/tests/qtest/meson.build"
    grep -q "vhca-qtests.txt" "$tree/tests/qtest/meson.build" ||
        die "could not add the vhca qtests to tests/qtest/meson.build"
}

# The config's fields, as the other entries of predefined_configs[] are
# written, become its last entry: the closing "    }" before "};" opens it.
add_fuzz_config() {
    local tree=$1 configs=$1/tests/qtest/fuzz/generic_fuzz_configs.h
    awk -v inc="$REPO/qemu-device/tests/fuzz/generic-fuzz-vhca.inc" '
        { line[NR] = $0 } /^};$/ && line[NR - 1] == "    }" { close_at = NR - 1 }
        END {
            for (i = 1; i <= NR; i++) {
                if (i == close_at) {
                    print "    },{"
                    while ((getline l < inc) > 0) print l
                }
                print line[i]
            }
        }' "$configs" > "$configs.new"
    mv "$configs.new" "$configs"
    grep -q '^        .name = "vhca",$' "$configs" ||
        die "could not add the vhca config to $configs"
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

# Everything the series is made of: when it is unchanged, the series on
# disk is kept (write_series is then a hash, not a minute of git).
series_inputs() {
    {
        git -C "$PRISTINE" rev-parse pristine
        declare -f qtest_glue glue_infiniband add_fabric add_device add_qtests add_fuzz_config add_docs write_series commit_step
        find "$REPO"/fabric "$REPO"/qemu-device "$REPO"/qemu-device/tests -maxdepth 1 -type f |
            LC_ALL=C sort | xargs cat
        cat "$REPO"/qemu-device/docs/vhca.rst "$REPO"/uapi/vhca_hw*.h \
            "$REPO"/qemu-device/tests/fuzz/generic-fuzz-vhca.inc
    } | sha256sum | cut -c1-16
}

write_series() {
    local work=$CACHE/qemu-patches/write inputs
    pristine_repo
    inputs=$(series_inputs)
    if [ -e "$PATCHES/.inputs-$inputs" ]; then
        return 0
    fi
    if [ ! -e "$work/.git" ]; then
        git clone -q --shared "$PRISTINE" "$work"
    fi
    git -C "$work" reset -q --hard pristine
    git -C "$work" clean -q -fdx
    add_fabric "$work"
    commit_step "$work" "hw/infiniband/vhca/fabric: add the vhca fabric library" \
"The InfiniBand fabric the vhca device is cabled to, as plain C that
includes no QEMU header: the frames on the wire between ports and
switches, the Subnet Management Agents of a CA and a switch, the Subnet
Administrator (with RMPP and multicast groups), the Performance
Management Agent, the subnet manager's state and SMInfo arbiter, trap
MADs, link faults, fault rules and the capture encoder.  The project's
standalone switch and its fuzz targets build the same files.

A static library of its own, so that its include path does not reach
the rest of the system build; the device (next patch) links it."
    add_device "$work"
    commit_step "$work" "hw/infiniband/vhca: add the vhca virtual InfiniBand HCA" \
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
    add_fuzz_config "$work"
    commit_step "$work" "tests/qtest/fuzz: add a generic-fuzz config for vhca" \
"generic-fuzz-vhca fuzzes the device's registers, doorbells, MSI-X table
and PCI configuration, with DMA patterns answering its guest-memory reads
(command and event queues, work requests, payloads): one vhca with two
ports on the default in-process fabric of a q35 machine."
    add_docs "$work"
    commit_step "$work" "docs/system/devices: add vhca.rst" \
"What the guest sees, the topology (in-process fabrics, VMs cabled
through a switch outside QEMU), the properties and the device's security
stance."
    rm -rf "$PATCHES"
    git -C "$work" format-patch -q -o "$PATCHES" pristine..HEAD
    touch "$PATCHES/.inputs-$inputs"
    say "wrote $(ls "$PATCHES" | wc -l) patches into ${PATCHES#"$REPO"/}:"
    ls "$PATCHES" | sed 's/^/  /'
}

# `git am` the series onto $2 (a commit of repository $1) in the clone
# $CACHE/qemu-patches/am-$3; sets AM_HEAD to the result.
am_series() {
    local repo=$1 base=$2 am=$CACHE/qemu-patches/am-$3 patches=("$PATCHES"/*.patch)
    [ -e "${patches[0]}" ] || die "no series in $PATCHES"
    if [ ! -e "$am/.git" ]; then
        git clone -q --shared --no-checkout "$repo" "$am"
    fi
    git -C "$am" fetch -q "$repo" "$base"
    git -C "$am" am --abort > /dev/null 2>&1 || true
    git -C "$am" reset -q --hard FETCH_HEAD
    git -C "$am" clean -q -fdx
    git "${git_id[@]}" -C "$am" am -q "${patches[@]}" ||
        die "git am of ${PATCHES#"$REPO"/} onto $base failed in $am"
    AM_HEAD=$(git -C "$am" rev-parse HEAD)
    AM_REPO=$am
}

# Make the git tree $1 (its series base recorded in .git/vhca-series-base)
# base + the series, `git am`ed in a clone and taken by reset --keep
# (which refuses, rather than loses, local changes to the files it moves).
apply_series() {
    local tree=$1 base name series
    base=$(cat "$tree/.git/vhca-series-base")
    name=$(echo "$tree" | sha256sum | cut -c1-8)
    # The series and base last applied: nothing to do (a warm `make qemu`).
    series=$( (echo "$base"; cat "$PATCHES"/*.patch) | sha256sum | cut -c1-16)
    if [ "${VHCA_SERIES_REAPPLY:-0}" != 1 ] &&
       [ "$(cat "$tree/.git/vhca-series-applied" 2>/dev/null)" = "$series" ]; then
        return 0
    fi
    am_series "$tree" "$base" "$name"
    if [ "$(git -C "$tree" rev-parse HEAD^{tree})" = \
         "$(git -C "$AM_REPO" rev-parse HEAD^{tree})" ]; then
        echo "$series" > "$tree/.git/vhca-series-applied"
        return 0
    fi
    git -C "$tree" fetch -q "$AM_REPO" "$AM_HEAD"
    # reset --keep refuses a file whose index stat is stale ("not
    # uptodate") even when its content is unchanged: refresh first.
    git -C "$tree" update-index -q --refresh > /dev/null || true
    git -C "$tree" reset -q --keep FETCH_HEAD ||
        die "$tree has local changes to the series' files: commit or drop them"
    echo "$series" > "$tree/.git/vhca-series-applied"
    say "applied the series to $tree: $(git -C "$tree" log --reverse --format=%s "$base..HEAD" | paste -sd';' -)"
}
