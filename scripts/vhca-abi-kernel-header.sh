#!/bin/bash
# Print uapi/vhca-abi.h in the form of a kernel uAPI header, the form
# rdma-core keeps in kernel-headers/rdma/<driver>-abi.h: __u8/__u16/__u32
# and __aligned_u64 (<linux/types.h>) instead of <stdint.h> types, no
# include of the device's vhca_hw.h (the address vector of create_ah's
# response becomes its bytes), no size checks.  One source of the fact:
# the kernel driver compiles uapi/vhca-abi.h itself, the provider
# (scripts/build-provider.sh, and rdma-core's tree through
# scripts/rdma-core-patches.sh) the header printed here.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)/uapi/vhca-abi.h
# struct vhca_av's size, from the size check of the device format
av_size=$(sed -n 's/^VHCA_SIZE_CHECK(struct vhca_av, \([0-9]*\));$/\1/p' \
	"$(dirname "$src")/vhca_hw_verbs.h")
[ -n "$av_size" ] || { echo "vhca-abi-kernel-header: no size of struct vhca_av" >&2; exit 1; }
out=$(sed -e 's/^#include "vhca_hw.h"$/#include <linux\/types.h>/' \
	-e '/^VHCA_SIZE_CHECK(/d' \
	-e 's/\buint64_t\b/__aligned_u64/g' \
	-e 's/\buint32_t\b/__u32/g' \
	-e 's/\buint16_t\b/__u16/g' \
	-e 's/\buint8_t\b/__u8/g' \
	-e "s/^\(\t\)struct vhca_av\tav;/\1__u8\t\tav[$av_size];\t\/* struct vhca_av of the device *\//" \
	-e 's/^ \* Shared unchanged by the kernel shim (driver\/shim\/uverbs\*\.c) and the$/ * Generated from vhca'"'"'s uapi\/vhca-abi.h (scripts\/vhca-abi-kernel-header.sh),\n * which the kernel shim (driver\/shim\/uverbs*.c) compiles; used by the/' \
	"$src")
# every type converted: nothing of <stdint.h> or vhca_hw.h is left
if grep -nE '\b(u?int[0-9]+_t|vhca_le[0-9]+|struct vhca_av|VHCA_SIZE_CHECK)\b' <<<"$out" |
	grep -v '^[0-9]*: \*\|/\*.*\*/' | grep -v '^[0-9]*:#' ; then
	echo "vhca-abi-kernel-header: types left unconverted (above)" >&2
	exit 1
fi
printf '%s\n' "$out"
