#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# build-switch.sh - build the standalone switch (tools/vhca-switch*.c) into
# build/vhca-switch, linked with the fabric library (fabric/*.c: the frame
# parser, SMA, SA, PMA, the SM's state and arbiter, trap MADs, fault rules,
# capture), the same files the device compiles inside QEMU; plain C, no
# QEMU header (Documentation/fabric.md).
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
OUT=$REPO/build/vhca-switch
# The wire's layouts as JSON for the Python tests (selftests/host/wirelayout.py).
LAYOUT=$REPO/build/vhca-wire-layout
SOURCES=(tools/vhca-switch.c tools/vhca-switch-txq.c tools/vhca-switch-faults.c
         tools/vhca-switch-rules.c tools/vhca-switch-capture.c tools/vhca-switch-smp.c
         tools/vhca-switch-trap.c tools/vhca-switch-sm.c tools/vhca-switch-cable.c
         tools/vhca-switch-args.c fabric/*.c)

mkdir -p "$REPO/build"
cd "$REPO"
# QEMU builds the library from the list in fabric/meson.build (meson has no
# glob); this build takes fabric/*.c.  A file on one list only is refused.
for f in fabric/*.c; do
    grep -q "^    '$(basename "$f")',$" fabric/meson.build ||
        { echo "build-switch: $f is not in fabric/meson.build" >&2; exit 1; }
done
[ "$(grep -c "^    'vhca-.*\.c',$" fabric/meson.build)" = "$(ls fabric/*.c | wc -l)" ] ||
    { echo "build-switch: fabric/meson.build names a file fabric/ does not have" >&2; exit 1; }
# Rebuild only when a source or header changed.
if [ -x "$OUT" ] && [ -x "$LAYOUT" ] && [ -z "$(find "${SOURCES[@]}" tools/*.h \
        tools/vhca-wire-layout.c fabric/*.h uapi/*.h \
        -newer "$OUT" -o -newer "$LAYOUT" 2>/dev/null | head -n 1)" ]; then
    exit 0
fi
${CC:-gcc} -O2 -g -Wall -Wextra -Wno-unused-parameter -Werror \
    -Ifabric -Iuapi -Itools "${SOURCES[@]}" -pthread -o "$OUT"
${CC:-gcc} -O2 -Wall -Wextra -Werror -Ifabric -Iuapi tools/vhca-wire-layout.c -o "$LAYOUT"
"$LAYOUT" >/dev/null    # refuses a struct its field list does not cover
echo "build-switch: built $OUT and $LAYOUT"
