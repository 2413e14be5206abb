"""NFS over RDMA: nfsd with an `rdma 20049` listener (svcrdma) exporting
a tmpfs on vhca0's address, the NFS client (xprtrdma) mounting it over
vhca1, NFSv3 and NFSv4.2 (scripts/guest/ulp/nfs.sh).  Data verified with
fio crc32c (O_DIRECT, so every byte crosses the fabric) and by comparing
the client's file with the server's.
"""
import os

import pytest

import ulpfault
import ulplib
from ulplib import Fio

VERSIONS = ["3", "4.2"]
EXPORT = "/srv/vhca-nfs"
# fio's size per job across `umount -l`.  Every 4 KiB I/O is an RPC of
# its own, two to three RC messages: on the lossy fabric
# (rc-drop-request=97,rc-drop-response=101) the client made 43 to 54 RPCs
# a second, so 32 MiB a job (32768 RPCs with the verify pass) needed about
# 12 minutes, past ulpfault.IO_END_SECS; 8 MiB about 3.  On the lossless
# fabric 32 MiB takes under a minute.
LOSSY = "rc-drop" in (os.environ.get("VHCA_ULP_DEVICE_ARGS") or "")
UMOUNT_IO_SIZE = "8M" if LOSSY else "32M"


@pytest.fixture(scope="module")
def nfs_server(vm, fabric):
    ulplib.run_script(vm, "nfs", "server-start", "10.78.0.0/24", timeout=300)
    yield
    ulplib.run_script(vm, "nfs", "server-stop", timeout=300)


@pytest.fixture(params=VERSIONS, ids=["v3", "v4.2"])
def nfs_mount(request, vm, fabric, nfs_server):
    vers = request.param
    out = ulplib.run_script(vm, "nfs", "mount", fabric.target_ip, vers, timeout=300)
    yield vers, out.strip().splitlines()[-1]
    ulplib.run_script(vm, "nfs", "umount", vers, timeout=300)


def test_nfs_rdma_mount_fio_verify(vm, fabric, nfs_mount):
    vers, mnt = nfs_mount
    _, out = vm.run("grep ' %s ' /proc/mounts; cat /proc/self/mountstats | "
                    "grep -A3 'mounted on %s'" % (mnt, mnt), timeout=60, check=True)
    ulplib.log("mount", out)
    assert "proto=rdma" in out and "port=20049" in out, out
    assert "vers=%s" % vers in out, out
    ulplib.assert_connections(vm, fabric, "rpcrdma", "rpcrdma", 1)
    name = "fio-v%s" % vers
    Fio("%s/%s" % (mnt, name), rw="randwrite", bs="4k", numjobs=1, size="8M").run(vm)
    Fio("%s/%s" % (mnt, name), rw="write", bs="1M", numjobs=1, size="16M").run(vm)
    # The client reads (O_DIRECT) what the server's tmpfs holds.
    client = ulplib.sha256_of(vm, "%s/%s" % (mnt, name), 16)
    _, server = vm.run("sha256sum %s/%s" % (EXPORT, name), timeout=120, check=True)
    assert client == server.split()[0], (client, server)
    vm.run("rm -f %s/%s" % (mnt, name), timeout=60, check=True)


# ---- make check-ulp-full ----

def file_matches_server(vm, mnt, name, mib):
    client = ulplib.sha256_of(vm, "%s/%s" % (mnt, name), mib)
    _, server = vm.run("sha256sum %s/%s" % (EXPORT, name), timeout=120, check=True)
    if client != server.split()[0]:
        log_differences(vm, mnt, name, mib)
    assert client == server.split()[0], (client, server)


def log_differences(vm, mnt, name, mib):
    """Where the client's and the server's file differ: sizes, and each
    MiB's checksum on both sides (the report of a mismatch)."""
    _, out = vm.run(
        "stat -c '%s %y' {m}/{n} {e}/{n}; for i in $(seq 0 {last}); do "
        "c=$(dd if={m}/{n} bs=1M skip=$i count=1 iflag=direct status=none | md5sum); "
        "s=$(dd if={e}/{n} bs=1M skip=$i count=1 status=none | md5sum); "
        "[ \"$c\" = \"$s\" ] || echo \"MiB $i differs: client $c server $s\"; done"
        .format(m=mnt, n=name, e=EXPORT, last=mib - 1), timeout=600)
    ulplib.log("client and server file %s" % name, out)


def nfs_state(vm):
    """The NFS client's RPC state (debugfs sunrpc: tasks still waiting,
    transports), per-op counts (twice, 20 s apart: progress or none),
    where fio's threads wait, the RDMA QPs: the report of an NFS I/O that
    did not end."""
    vm.run("mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug",
           timeout=60)
    cmd = ("grep -E 'mounted on|xprt:|^ +(READ|WRITE|COMMIT|GETATTR):' /proc/self/mountstats; "
           "for f in /sys/kernel/debug/sunrpc/rpc_clnt/*/tasks; do echo \"== $f\"; "
           "head -20 $f; done; for f in /sys/kernel/debug/sunrpc/rpc_xprt/*/info; do "
           "echo \"== $f\"; cat $f; done; for p in $(pgrep -x fio); do echo \"== fio $p\"; "
           "cat /proc/$p/stack; done; rdma res show qp | grep -w RC")
    _, out = vm.run(cmd, timeout=120)
    ulplib.log("NFS client state", out)
    # 20 s of the device's RC transport trace (QEMU's log,
    # build/vm-logs/ulp-qemu.log): resends, timeouts, or nothing at all.
    vm.qmp("trace-event-set-state", name="vhca_rc_*", enable=True)
    vm.run("sleep 20", timeout=60)
    vm.qmp("trace-event-set-state", name="vhca_rc_*", enable=False)
    _, out = vm.run(cmd, timeout=120)
    ulplib.log("NFS client state, 20 s later", out)


def remount_and_verify(vm, fabric, vers, name, mib):
    """A new mount (a new connection once the last one is gone): the
    client reads what the server stored, and a fresh fio verify passes."""
    ulplib.run_script(vm, "nfs", "umount", vers, timeout=300)
    mnt = ulplib.run_script(vm, "nfs", "mount", fabric.target_ip, vers,
                            timeout=300).strip().splitlines()[-1]
    ulplib.assert_connections(vm, fabric, "rpcrdma", "rpcrdma", 1)
    file_matches_server(vm, mnt, name, mib)
    Fio("%s/%s-after" % (mnt, name), rw="randwrite", bs="4k", numjobs=1, size="8M").run(vm)
    vm.run("rm -f %s/%s %s/%s-after" % (mnt, name, mnt, name), timeout=60, check=True)


@pytest.mark.full
def test_nfs_rdma_umount_mount_under_io(vm, fabric, nfs_mount):
    """A lazy umount while fio runs, and a mount again at the same place:
    the open file keeps its superblock and transport, fio completes and
    verifies; once it is closed, umount and a new mount (a new
    connection) read what the server stored."""
    vers, mnt = nfs_mount
    name = "fio-umount-v" + vers
    ulpfault.start_io(vm, "%s/%s" % (mnt, name), "nfs-umount", size=UMOUNT_IO_SIZE,
                      in_dir=True)
    vm.run("umount -l %s" % mnt, timeout=120, check=True)
    # The I/O must still be running across the umount (the smaller size
    # on a lossy fabric must not make the test vacuous).
    assert ulplib.background_fio_running(vm, "nfs-umount"), "fio ended before umount -l"
    ulplib.run_script(vm, "nfs", "mount", fabric.target_ip, vers, timeout=300)
    assert ulpfault.io_ends(vm, "nfs-umount", "umount -l", nfs_state) == 0, "fio failed"
    remount_and_verify(vm, fabric, vers, name, 2 * int(UMOUNT_IO_SIZE.rstrip("M")))


@pytest.mark.full
@pytest.mark.fault
@pytest.mark.ib
@pytest.mark.parametrize("how", ulpfault.DEVICE_FAULTS)
def test_nfs_rdma_device_removed_under_io(vm, fabric, nfs_mount, module_path, how):
    """rmmod vhca / device_del of the client's device while fio runs on a
    hard mount: xprtrdma lets the device go and reconnects (over what is
    left, or once it is back: nfsd's listener is on every address, so it
    follows the new device), the RPCs are retransmitted, fio completes
    and verifies, nothing hangs."""
    vers, mnt = nfs_mount
    name = "fio-%s-v%s" % (how, vers)
    ulpfault.start_io(vm, "%s/%s" % (mnt, name), "nfs-" + how, size="32M", in_dir=True)
    ulpfault.remove_device(vm, fabric, how)
    ulpfault.restore_device(vm, fabric, how, module_path)
    assert ulpfault.io_ends(vm, "nfs-" + how, how, nfs_state) == 0, "fio failed"
    remount_and_verify(vm, fabric, vers, name, 64)
