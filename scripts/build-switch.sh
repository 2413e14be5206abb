#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# build-switch.sh - build the standalone switch (tools/vhca-switch*.c) into
# build/vhca-switch from the device's own sources: the frame parser and the
# embedded SM's SA are qemu-device/ files, compiled for the host with the
# QEMU header shim of fuzz/shim/ (Documentation/fabric.md).
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
OUT=$REPO/build/vhca-switch
# The wire's layouts as JSON for the Python tests (selftests/host/wirelayout.py).
LAYOUT=$REPO/build/vhca-wire-layout
SOURCES=(tools/vhca-switch.c tools/vhca-switch-txq.c tools/vhca-switch-faults.c qemu-device/vhca-link-faults.c
         tools/vhca-switch-rules.c qemu-device/vhca-fault-rules.c qemu-device/vhca-wire.c qemu-device/vhca-sa.c
         tools/vhca-switch-capture.c qemu-device/vhca-capture.c
         qemu-device/vhca-sa-mcast.c qemu-device/vhca-sa-rmpp.c
         qemu-device/vhca-sma.c qemu-device/vhca-switch-sma.c qemu-device/vhca-sm-state.c qemu-device/vhca-sm-arbiter.c qemu-device/vhca-pma.c
         qemu-device/vhca-trap-mad.c tools/vhca-switch-smp.c tools/vhca-switch-trap.c
         tools/vhca-switch-sm.c tools/vhca-switch-cable.c tools/vhca-switch-args.c)

mkdir -p "$REPO/build"
cd "$REPO"
# Rebuild only when a source or header changed.
if [ -x "$OUT" ] && [ -x "$LAYOUT" ] && [ -z "$(find "${SOURCES[@]}" tools/*.h \
        tools/vhca-wire-layout.c qemu-device/*.h uapi/*.h fuzz/shim \
        -newer "$OUT" -o -newer "$LAYOUT" 2>/dev/null | head -n 1)" ]; then
    exit 0
fi
${CC:-gcc} -O2 -g -Wall -Wextra -Wno-unused-parameter -Werror \
    -Ifuzz/shim -Iqemu-device -Iuapi -Itools "${SOURCES[@]}" -pthread -o "$OUT"
${CC:-gcc} -O2 -Wall -Wextra -Werror -Iuapi tools/vhca-wire-layout.c -o "$LAYOUT"
"$LAYOUT" >/dev/null    # refuses a struct its field list does not cover
echo "build-switch: built $OUT and $LAYOUT"
