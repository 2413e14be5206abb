#!/bin/bash
# `make rdma-core-patches`: the vhca provider as the patch series that
# would be sent to rdma-core, written by `git format-patch` into
# build/rdma-core-patches/ against the pristine rdma-core 65.0 tree
# (scripts/fetch-rdma-core.sh; one commit "Import rdma-core 65.0").
# The sources stay in provider/ and uapi/; the series is generated:
#  1. kernel-headers: rdma/vhca-abi.h (scripts/vhca-abi-kernel-header.sh),
#     listed in kernel-headers/CMakeLists.txt, and RDMA_DRIVER_VHCA in
#     enum rdma_driver_id, at the value uapi/vhca-abi.h's
#     VHCA_RDMA_DRIVER_ID gives the kernel driver;
#  2. providers/vhca: provider/*.c and *.h (not compat-44/, which only
#     the out-of-tree build uses), the device format headers
#     uapi/vhca_hw*.h, CMakeLists.txt (rdma_provider of every .c), the man
#     page provider/man/vhca.7.md, the top-level add_subdirectory lines and
#     a MAINTAINERS entry;
#  3. debian/, redhat/, suse/: the provider in the package descriptions,
#     the man page in the file lists;
#  4. pyverbs: dma-bufs from vgem (provider/rdma-core/pyverbs-dmabuf-vgem.patch,
#     a change to rdma-core's own file, kept as the diff), so that the
#     dma-buf MR tests run in a guest without a GPU;
#  5. pyverbs: DmaBufMR's reference on its DmaBuf
#     (provider/rdma-core/pyverbs-dmabuf-mr-ref.patch), without which every
#     dma-buf MR test of 65 fails once a dma-buf can be allocated.
# scripts/check-rdma-core-patches.sh applies the series with git am to a
# clean tree and builds it.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
src=$(scripts/fetch-rdma-core.sh | tail -n 1)
out=$repo/build/rdma-core-patches
work=$repo/build/rdma-core-65.0-git
rm -rf "$work" "$out"
mkdir -p "$work"
cp -a "$src/." "$work/"
rm -f "$work/.vhca-complete"

# Commits of a fixed identity and date: those of the last commit of this
# repository that changed what the series carries, so that the same
# inputs give the same series (and check-rdma-core-patches' cached build
# stays valid across commits that change nothing of it).
# The device's format less the fabric's wire (uapi/vhca_hw_wire.h): the
# device and the switch speak that, a provider never does.
hw_headers=()
for f in uapi/vhca_hw*.h; do
	[ "$f" = uapi/vhca_hw_wire.h ] || hw_headers+=("$f")
done
inputs=(provider/*.c provider/*.h provider/compat-44 provider/man provider/rdma-core
	uapi/vhca-abi.h "${hw_headers[@]}")
export GIT_AUTHOR_NAME GIT_AUTHOR_EMAIL GIT_COMMITTER_NAME GIT_COMMITTER_EMAIL
GIT_AUTHOR_NAME=$(git log -1 --format=%an -- "${inputs[@]}")
GIT_AUTHOR_EMAIL=$(git log -1 --format=%ae -- "${inputs[@]}")
GIT_COMMITTER_NAME=$GIT_AUTHOR_NAME
GIT_COMMITTER_EMAIL=$GIT_AUTHOR_EMAIL
export GIT_AUTHOR_DATE GIT_COMMITTER_DATE
GIT_AUTHOR_DATE=$(git log -1 --format=%cI -- "${inputs[@]}")
GIT_COMMITTER_DATE=$GIT_AUTHOR_DATE
g() { git -C "$work" -c core.autocrlf=false -c init.defaultBranch=master "$@"; }
g init -q
g add -A -f	# the tarball whole, .gitignore notwithstanding
g commit -q -m "Import rdma-core 65.0"
base=$(g rev-parse HEAD)

# Insert line $2 into file $1 before the first line matching $3 (a
# regular expression); fails if there is none.
insert_before() { # file line regex
	awk -v line="$2" -v re="$3" '
		!done && $0 ~ re { print line; done = 1 }
		{ print }
		END { if (!done) exit 1 }' "$work/$1" >"$work/$1.new" ||
		{ echo "rdma-core-patches: no /$3/ in $1" >&2; exit 1; }
	mv "$work/$1.new" "$work/$1"
}

# ---- 1. kernel-headers ----
scripts/vhca-abi-kernel-header.sh >"$work/kernel-headers/rdma/vhca-abi.h"
# both lists of kernel-headers/CMakeLists.txt (installed headers, and the
# provider ABIs make_abi_structs.py turns into kernel-abi/ structs)
awk '$1 == "rdma/vmw_pvrdma-abi.h" { print "  rdma/vhca-abi.h" } { print }' \
	"$work/kernel-headers/CMakeLists.txt" >"$work/kernel-headers/CMakeLists.txt.new"
mv "$work/kernel-headers/CMakeLists.txt.new" "$work/kernel-headers/CMakeLists.txt"
[ "$(grep -c 'rdma/vhca-abi.h' "$work/kernel-headers/CMakeLists.txt")" = 2 ] ||
	{ echo "rdma-core-patches: kernel-headers/CMakeLists.txt lists changed" >&2; exit 1; }
# RDMA_DRIVER_VHCA after the enum's last entry, at the driver's value
enum_h=kernel-headers/rdma/ib_user_ioctl_verbs.h
want_id=$(sed -n 's/^#define VHCA_RDMA_DRIVER_ID[[:space:]]*\([0-9]*\)$/\1/p' uapi/vhca-abi.h)
have_id=$(awk '/^enum rdma_driver_id/ { f = 1; n = -1; next }
	f && /^};/ { print n; exit }
	f && /^\tRDMA_DRIVER_[A-Z0-9_]*,$/ { n++ }' "$work/$enum_h")
if [ "$((have_id + 1))" != "$want_id" ]; then
	echo "rdma-core-patches: RDMA_DRIVER_VHCA would be $((have_id + 1)), uapi/vhca-abi.h says $want_id" >&2
	exit 1
fi
awk '/^enum rdma_driver_id/ { f = 1 }
	f && /^};/ { print "\tRDMA_DRIVER_VHCA,"; f = 0 }
	{ print }' "$work/$enum_h" >"$work/$enum_h.new"
mv "$work/$enum_h.new" "$work/$enum_h"
g add -A
g commit -q -s -F - <<'EOF'
kernel-headers: Add the vhca uAPI

vhca is a virtual InfiniBand HCA (a QEMU PCI device, 1af4:10f0) with an
out-of-tree kernel driver, vhca.ko.  rdma/vhca-abi.h is the driver data
of its uverbs commands, and RDMA_DRIVER_VHCA the driver id it registers.
EOF

# ---- 2. providers/vhca ----
dir=$work/providers/vhca
mkdir -p "$dir/man"
cp provider/*.c provider/*.h "${hw_headers[@]}" "$dir/"
cp provider/man/vhca.7.md "$dir/man/"
sources=$(cd provider && ls ./*.c | sed 's|^\./|\t|')
printf 'rdma_provider(vhca\n%s\n)\n' "$sources" >"$dir/CMakeLists.txt"
printf 'rdma_man_pages(\n  vhca.7.md\n)\n' >"$dir/man/CMakeLists.txt"
insert_before CMakeLists.txt 'add_subdirectory(providers/vhca)' '^add_subdirectory\(providers/vmw_pvrdma\)$'
insert_before CMakeLists.txt 'add_subdirectory(providers/vhca/man)' '^add_subdirectory\(providers/vmw_pvrdma\)$'
maintainer="$GIT_AUTHOR_NAME <$GIT_AUTHOR_EMAIL>"
awk -v m="$maintainer" '/^VMWARE PVRDMA USERSPACE PROVIDER/ {
		print "VHCA USERSPACE PROVIDER (for vhca.ko)"
		print "M:\t" m
		print "S:\tSupported"
		print "F:\tproviders/vhca/"
		print ""
	} { print }' "$work/MAINTAINERS" >"$work/MAINTAINERS.new"
mv "$work/MAINTAINERS.new" "$work/MAINTAINERS"
g add -A
g commit -q -s -F - <<'EOF'
providers/vhca: Add the vhca userspace provider

The data path of vhca in user space: WQEs in the device format in rings
of the process's memory (pinned by the kernel), handed over through
doorbell records and a doorbell page, CQEs polled with an owner bit.
RC, UC, UD and XRC QPs, SRQs with tag matching, memory windows, device
memory, the ibv_wr_* API, extended CQs with device timestamps, parent
and thread domains, and import of devices, PDs, MRs and DMs.
vhca(7) describes it.
EOF

# ---- 3. packaging ----
insert_before debian/control '  - vhca: vhca virtual InfiniBand HCA' '^  - vmw_pvrdma: '
insert_before debian/rdma-core.install 'usr/share/man/man7/vhca.7' '^usr/share/man/man8/'
insert_before debian/copyright 'Files: providers/vhca/*' '^Files: providers/vmw_pvrdma/\*$'
insert_before debian/copyright "Copyright: ${GIT_AUTHOR_DATE%%-*}, $GIT_AUTHOR_NAME" '^Files: providers/vmw_pvrdma/\*$'
insert_before debian/copyright 'License: BSD-2-clause or GPL-2' '^Files: providers/vmw_pvrdma/\*$'
insert_before debian/copyright '' '^Files: providers/vmw_pvrdma/\*$'
for spec in redhat/rdma-core.spec suse/rdma-core.spec; do
	insert_before "$spec" '- libvhca: vhca virtual InfiniBand HCA' '^- libvmw_pvrdma: '
	insert_before "$spec" '%{_mandir}/man7/vhca*' '^%\{_mandir\}/man7/rxe\*$'
done
g add -A
g commit -q -s -F - <<'EOF'
debian, redhat, suse: Package the vhca provider

libvhca-rdmav*.so is already matched by the providers' globs; add it to
the package descriptions and its man page vhca(7) to the file lists.
EOF

# ---- 4. pyverbs ----
g apply "$repo/provider/rdma-core/pyverbs-dmabuf-vgem.patch"
g add -A
g commit -q -s -F - <<'EOF'
pyverbs: Allocate dma-bufs from vgem

dmabuf_alloc knows amdgpu and i915 render nodes.  vgem, the kernel's
virtual GEM driver (CONFIG_DRM_VGEM), exports shmem-backed dumb buffers
and gives a machine without a GPU (a virtual machine testing an RDMA
driver) a render node too, on which the dma-buf MR tests skip with
"Allocating dmabuf is not supported".  Allocate from vgem: its render
node refuses DRM_IOCTL_MODE_CREATE_DUMB (not DRM_RENDER_ALLOW), so the
buffers are created, exported and mapped through the primary node of
the same device, found through sysfs.
EOF

# ---- 5. pyverbs fix ----
g apply "$repo/provider/rdma-core/pyverbs-dmabuf-mr-ref.patch"
g add -A
g commit -q -s -F - <<'EOF'
pyverbs: Fix DmaBufMR's reference to its DmaBuf

DmaBufMR takes a DmaBuf object or a dma-buf fd, so its dmabuf argument
is untyped, and dmabuf.add_ref(self) is looked up as a Python attribute:
add_ref is a cdef method, and every DmaBufMR of a DmaBuf fails with
"AttributeError: 'pyverbs.dmabuf.DmaBuf' object has no attribute
'add_ref'" after registering the MR.  Cast it to DmaBuf once isinstance
has checked it.
EOF

mkdir -p "$out"
g format-patch -q -o "$out" "$base"..HEAD
ls "$out"
echo "rdma-core-patches: $(ls "$out" | wc -l) patches in build/rdma-core-patches (tree: build/rdma-core-65.0-git)"
