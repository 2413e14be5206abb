#!/bin/bash
# Build the vhca libibverbs provider (`make provider`): provider/*.c into
# build/provider/libvhca-rdmav34.so plus build/provider/vhca.driver (the
# /etc/libibverbs.d entry), for the guest's Debian 12 userspace
# (rdma-core 44).  provider/README.md explains why it is built out of tree:
# Debian's libibverbs-dev headers, provider/compat-44/ for the private
# provider interface, rdma-core 65.0's util/ headers (the barriers and
# MMIO writes; scripts/fetch-rdma-core.sh) and the kernel-header form of
# uapi/vhca-abi.h (scripts/vhca-abi-kernel-header.sh), the same headers
# the provider includes in rdma-core's tree (scripts/rdma-core-patches.sh).
#
# Cached like the QEMU build: $VHCA_CACHE (default ~/.cache/vhca) holds
# the extracted libibverbs-dev package and one build per hash of the
# inputs (provider/, uapi/, the scripts).
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
cache=${VHCA_CACHE:-$HOME/.cache/vhca}
libdir=/usr/lib/x86_64-linux-gnu
libibverbs=$libdir/libibverbs.so.1
want_version=44.0-2
out=build/provider
mkdir -p "$cache" "$out"

# 1. The library we plug into must be rdma-core 44.0 (IBVERBS_PRIVATE_34).
have_version=$(dpkg-query -W -f '${Version}' libibverbs1 2>/dev/null || true)
if [ "$have_version" != "$want_version" ]; then
	echo "build-provider.sh: libibverbs1 $have_version installed, need $want_version" >&2
	exit 1
fi
# verbs_set_ops() copies every member of struct verbs_context_ops: the
# highest offset it reads is the struct's size (compat-44/infiniband/driver.h).
disasm=$(objdump -d --no-show-raw-insn "$libibverbs")
ops=$(echo "$disasm" |
	awk '/<verbs_set_ops@@IBVERBS_PRIVATE_34>:/{f=1;next} f&&/^$/{f=0} f' |
	grep -oE '(0x[0-9a-f]+)?\(%rax\),%r' | sed -e 's/(%rax),%r//' -e 's/^$/0x0/' |
	sort -u | while read -r off; do echo $((off / 8)); done | sort -n | tail -n 1)
if [ "$((ops + 1))" != 76 ]; then
	echo "build-provider.sh: verbs_set_ops reads $((ops + 1)) ops, compat-44/infiniband/driver.h has 76" >&2
	exit 1
fi

# 2. The public headers of the same version (not installed on the host).
dev=$cache/libibverbs-dev-$want_version
if [ ! -f "$dev/usr/include/infiniband/verbs.h" ]; then
	tmp=$(mktemp -d)
	(cd "$tmp" && apt-get download "libibverbs-dev=$want_version" >/dev/null)
	mkdir -p "$dev.tmp"
	dpkg-deb -x "$tmp"/libibverbs-dev_*.deb "$dev.tmp"
	rm -rf "$tmp" "$dev"
	mv "$dev.tmp" "$dev"
fi

# 3. Build, cached by the inputs: rdma-core's util/ headers and
# <rdma/vhca-abi.h> in a generated include folder.
rdma_core=$(scripts/fetch-rdma-core.sh | tail -n 1)
hash=$(cat provider/*.c provider/*.h provider/compat-44/*.h \
	provider/compat-44/infiniband/*.h uapi/*.h scripts/build-provider.sh \
	scripts/vhca-abi-kernel-header.sh scripts/fetch-rdma-core.sh |
	sha256sum | cut -c1-16)
built=$cache/provider-$hash
if [ ! -f "$built/libvhca-rdmav34.so" ]; then
	rm -rf "$built.tmp"
	mkdir -p "$built.tmp/include/rdma" "$built.tmp/include/util"
	scripts/vhca-abi-kernel-header.sh >"$built.tmp/include/rdma/vhca-abi.h"
	cp "$rdma_core"/util/{mmio.h,udma_barrier.h,compiler.h} "$built.tmp/include/util/"
	# shellcheck disable=SC2046
	gcc -std=gnu11 -O2 -g -fPIC -shared -Wall -Wextra -Werror \
		-Wno-unused-parameter -Wno-missing-field-initializers \
		-fvisibility=hidden -D_GNU_SOURCE \
		-Iprovider/compat-44 -I"$built.tmp/include" \
		-I"$dev/usr/include" -Iuapi -Iprovider \
		-o "$built.tmp/libvhca-rdmav34.so" provider/*.c \
		"$libibverbs" -lpthread -Wl,-z,defs -Wl,--as-needed
	echo "driver vhca" >"$built.tmp/vhca.driver"
	rm -rf "$built"
	mv "$built.tmp" "$built"
fi
cp "$built/libvhca-rdmav34.so" "$built/vhca.driver" "$out/"

# 4. The provider's C test programs (selftests/verbs/programs, run in the
# guest by selftests/verbs/uverbs.py), against the same headers.
for program in thread_domain fork odp_invalidate last_byte dmabuf_mr odp_atomic_write \
	phc_timestamp; do
	gcc -std=gnu11 -O2 -g -Wall -Wextra -Werror -D_GNU_SOURCE \
		-I"$dev/usr/include" -o "$out/$program" \
		"selftests/verbs/programs/$program.c" "$libibverbs"
done
# 5. Programs of verbs rdma-core 44 lacks (ibv_wr_flush), against rdma-core
# 65.0's public headers (its libibverbs/ and kernel-headers/, laid out as
# installed), linked with the same libibverbs.so.1: the functions they call
# exist in 44's; the new verbs are inline calls through ops a provider built
# for 44 does not have, so on the host's root uverbs.py runs them without
# (flush.c --caps-only).
inc65=$out/include-65
rm -rf "$inc65"
mkdir -p "$inc65/infiniband" "$inc65/rdma"
ln -s "$rdma_core"/libibverbs/verbs.h "$rdma_core"/libibverbs/verbs_api.h \
	"$rdma_core"/kernel-headers/rdma/ib_user_ioctl_verbs.h "$inc65/infiniband/"
ln -s "$rdma_core"/kernel-headers/rdma/*.h "$inc65/rdma/"
for program in flush; do
	gcc -std=gnu11 -O2 -g -Wall -Wextra -Werror -D_GNU_SOURCE \
		-I"$inc65" -o "$out/$program" \
		"selftests/verbs/programs/$program.c" "$libibverbs"
done
echo "build-provider.sh: $out/libvhca-rdmav34.so OK (cache $built)"
