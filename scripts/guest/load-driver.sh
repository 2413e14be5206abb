#!/bin/sh
# Runs in the guest: load the RDMA core from the guest kernel's own
# /lib/modules (seen through the 9p root) and then vhca.ko from the repo.
#   load-driver.sh [path/to/vhca.ko]   (default: <repo>/build/vhca.ko)
set -eu
ko=${1:-$(dirname "$0")/../../build/vhca.ko}
# ib_uverbs and ib_umad give /dev/infiniband/uverbs* and umad* (ibstat,
# ibv_* tools); nothing else loads them in a guest without udev.
modprobe -a ib_core ib_uverbs ib_umad
insmod "$ko"
