"""Storage ULPs between two VMs through the standalone switch (`make
check-fabric-ulp`; Documentation/fabric-tests.md "Storage ULPs across VMs").

The target (nvmet-rdma, LIO with iSER and srpt, nfsd with svcrdma) runs in
VM a on its vhca0 port 1 with IPoIB address 10.78.0.1, the host
(nvme-cli, open-iscsi, ib_srp, the NFS client) in VM b with 10.78.0.2:
the addresses fabriclib gives the two VMs, which are the ULP tier's
target and host addresses (selftests/ulp/ulplib.py).  Each side is set
up by the single-VM ULP tier's guest scripts (scripts/guest/ulp/*.sh), a
user's commands, each run in its own guest; no policy routes are needed,
the two addresses are in two machines.  Data is verified every time: fio
with crc32c verification in VM b, then what VM b reads through the ULP
compared with what VM a's backend (or exported file) holds.  After each
test both guests' kernel logs must be clean (ulplib.kernel_log_problems).

RC across the switch has one request per QP in flight by default
(rc-window=1): a round trip of 50 us or more per request, so the I/O
sizes here are small.  nvme_connect_fio_verify() is also the one ULP test
of `make check-fabric` (twovms.py), on that tier's pair of VMs.
"""
import contextlib
import os
import re
import sys
import time

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "ulp"))
import fabriclib  # noqa: E402
import ulplib  # noqa: E402
from ulplib import Fio  # noqa: E402

# The fabric tier's addresses are the ULP tier's: VM a the target, b the host.
assert (fabriclib.ADDR["a"], fabriclib.ADDR["b"]) == (ulplib.TARGET_IP, ulplib.HOST_IP)
NFS_EXPORT = "/srv/vhca-nfs"
NFS_NET = fabriclib.NET


class CrossVm:
    """Who is who, in the shape of selftests/ulp/conftest.py's Fabric
    (what ulplib.assert_connections reads), with a guest for each side."""

    target_dev = host_dev = "vhca0"
    target_ip, host_ip = ulplib.TARGET_IP, ulplib.HOST_IP

    def __init__(self, state):
        self.target_vm = state["vms"]["a"]
        self.host_vm = state["vms"]["b"]
        # ib_srp's initiator port ID names VM b's port in the target's ACL.
        self.host_port_guid = "0x%016x" % (fabriclib.NODES["b"] + 1)


def prepare(state):
    """The target's null_blk backends in VM a, the hung-task watchdog of
    the ULP tier in both (each may be called again: modprobe and sysctl
    change nothing the second time)."""
    x = CrossVm(state)
    ulplib.load_backends(x.target_vm)
    for vm in (x.target_vm, x.host_vm):
        ulplib.watch_hung_tasks(vm)
    return x


@contextlib.contextmanager
def clean_kernel_logs(x):
    """Both guests' kernel logs must have nothing new that the ULP tier
    fails on; printed when they do."""
    vms = {"target": x.target_vm, "host": x.host_vm}
    marks = {name: ulplib.dmesg_mark(vm) for name, vm in vms.items()}
    yield
    for name, vm in vms.items():
        text = ulplib.new_dmesg(vm, marks[name])
        bad = ulplib.kernel_log_problems(text)
        if bad:
            ulplib.log("%s kernel log during the test" % name, text[-12000:])
        assert not bad, "%s kernel log:\n%s" % (name, "\n".join(bad[:60]))


def note_time(what, seconds):
    """Printed, and kept in build/vm-logs/fabric-ulp-times.txt with the
    host's load (pytest shows no output of a test that passed)."""
    ulplib.log(what, "%.1f s" % seconds)
    with open(os.path.join(fabriclib.vmlib.BUILD, "vm-logs", "fabric-ulp-times.txt"),
              "a") as f:
        f.write("%s: %.1f s (load %s)\n"
                % (what, seconds, open("/proc/loadavg").read().split()[0]))


def last_line(out):
    return out.strip().splitlines()[-1]


# ---- NVMe over RDMA ---------------------------------------------------------

NVME_BACKEND = ulplib.BACKENDS["nvme"]


@contextlib.contextmanager
def nvme_connected(x):
    """nvmet-rdma target in VM a on null_blk, `nvme discover` and `nvme
    connect` in VM b: the namespace's block device there; `nvme
    disconnect` and the target taken down on the way out."""
    ulplib.run_script(x.target_vm, "nvme", "target-start", x.target_ip, NVME_BACKEND)
    try:
        dev = last_line(ulplib.run_script(x.host_vm, "nvme", "connect", x.target_ip,
                                          timeout=300))
        try:
            yield dev
        finally:
            ulplib.run_script(x.host_vm, "nvme", "disconnect", timeout=120)
    finally:
        ulplib.run_script(x.target_vm, "nvme", "target-stop")


def assert_nvme_rdma(x):
    """Transport rdma to VM a's address; the admin queue and one I/O
    queue (one vCPU) each an rdma_cm connection from b's port to a's."""
    _, out = x.host_vm.run("nvme list-subsys -o json", timeout=60, check=True)
    ulplib.log("list-subsys", out)
    assert '"Transport":"rdma"' in out.replace(" ", ""), out
    assert "traddr=%s" % x.target_ip in out and "trsvcid=4420" in out, out
    ulplib.assert_connections(x.host_vm, x, "nvme_rdma", "nvmet_rdma", 2,
                              target_vm=x.target_vm)


def nvme_connect_fio_verify(state):
    """The quick cross-VM ULP test (`make check-fabric` too): connect,
    4 KiB random writes verified by fio, the first 4 MiB read through
    NVMe the same as VM a's backend, disconnect."""
    x = prepare(state)
    with clean_kernel_logs(x), nvme_connected(x) as dev:
        assert_nvme_rdma(x)
        Fio(dev, rw="randwrite", bs="4k", iodepth=8, numjobs=1, size="4M").run(x.host_vm)
        ulplib.assert_same_bytes(x.host_vm, dev, NVME_BACKEND, 4, target_vm=x.target_vm)


@pytest.fixture(scope="module")
def fabric():
    with fabriclib.two_vms(tag="fabric-ulp") as state:
        yield state


@pytest.fixture
def x(fabric):
    """The two guests' roles; both kernel logs checked after the test."""
    cross = prepare(fabric)
    with clean_kernel_logs(cross):
        yield cross


def test_nvme_rdma_connect_fio_verify_disconnect(fabric):
    nvme_connect_fio_verify(fabric)


def test_nvme_rdma_1m_writes_reconnect_and_corruption(x):
    """1 MiB writes (the target's RDMA READs of many frames), a second
    connect finding the data intact, and fio's verify pass failing on a
    block changed on VM a's backend behind the host's back."""
    with nvme_connected(x) as dev:
        Fio(dev, rw="write", bs="1M", iodepth=4, numjobs=2, size="8M").run(x.host_vm)
    with nvme_connected(x) as dev:
        ulplib.assert_same_bytes(x.host_vm, dev, NVME_BACKEND, 16, target_vm=x.target_vm)
        job = Fio(dev, rw="write", bs="64k", numjobs=1, size="2M")
        x.host_vm.run(job.command().replace("--do_verify=1", "--do_verify=0"),
                      timeout=300, check=True)
        x.target_vm.run("dd if=/dev/urandom of=%s bs=4k seek=100 count=1 oflag=direct "
                        "status=none" % NVME_BACKEND, timeout=60, check=True)
        rc, out = x.host_vm.run(job.command("--verify_only") + " 2>&1", timeout=300)
        assert rc != 0 and "verify failed" in out, out[-3000:]


# ---- iSER -------------------------------------------------------------------

ISER_BACKEND = ulplib.BACKENDS["iser"]


def test_iser_login_fio_verify_logout(x):
    """LIO target with an iSER portal (targetcli) in VM a, open-iscsi's
    discovery and login through `-I iser` in VM b."""
    ulplib.run_script(x.target_vm, "iser", "target-start", x.target_ip, ISER_BACKEND,
                      timeout=300)
    try:
        disk = last_line(ulplib.run_script(x.host_vm, "iser", "login", x.target_ip,
                                           timeout=300))
        try:
            _, out = x.host_vm.run("iscsiadm -m session -P 3", timeout=60, check=True)
            ulplib.log("iscsiadm -m session -P 3", out)
            assert "Iface Transport: iser" in out, out
            assert "Current Portal: %s:3260" % x.target_ip in out, out
            assert "Attached scsi disk %s" % disk.split("/")[-1] in out, out
            ulplib.assert_connections(x.host_vm, x, "ib_iser", "ib_isert", 1,
                                      target_vm=x.target_vm)
            Fio(disk, rw="randwrite", bs="4k", iodepth=8, numjobs=2, size="2M").run(x.host_vm)
            Fio(disk, rw="write", bs="1M", iodepth=4, numjobs=1, size="8M").run(x.host_vm)
            ulplib.assert_same_bytes(x.host_vm, disk, ISER_BACKEND, 8, target_vm=x.target_vm)
        finally:
            ulplib.run_script(x.host_vm, "iser", "logout", x.target_ip, timeout=300)
    finally:
        ulplib.run_script(x.target_vm, "iser", "target-stop", timeout=300)


# ---- NFS over RDMA ------------------------------------------------------------

@pytest.mark.parametrize("vers", ["3", "4.2"], ids=["v3", "v4.2"])
def test_nfs_rdma_mount_fio_verify(x, vers):
    """nfsd with an `rdma 20049` listener exporting a tmpfs in VM a, the
    client in VM b mounting it over RDMA; the client's file (read
    O_DIRECT) is the server's."""
    ulplib.run_script(x.target_vm, "nfs", "server-start", NFS_NET, timeout=300)
    try:
        mnt = last_line(ulplib.run_script(x.host_vm, "nfs", "mount", x.target_ip, vers,
                                          timeout=300))
        try:
            ulplib.assert_connections(x.host_vm, x, "rpcrdma", "rpcrdma", 1,
                                      target_vm=x.target_vm)
            name = "fio-xvm-v%s" % vers
            path = "%s/%s" % (mnt, name)
            Fio(path, rw="randwrite", bs="4k", iodepth=8, numjobs=1, size="2M").run(x.host_vm)
            Fio(path, rw="write", bs="1M", iodepth=4, numjobs=1, size="8M").run(x.host_vm)
            client = ulplib.sha256_of(x.host_vm, path, 8)
            _, server = x.target_vm.run("sha256sum %s/%s" % (NFS_EXPORT, name), timeout=120,
                                        check=True)
            assert client == server.split()[0], (client, server)
            x.host_vm.run("rm -f %s" % path, timeout=60, check=True)
        finally:
            ulplib.run_script(x.host_vm, "nfs", "umount", vers, timeout=300)
    finally:
        ulplib.run_script(x.target_vm, "nfs", "server-stop", timeout=300)


# ---- SRP --------------------------------------------------------------------

SRP_BACKEND = ulplib.BACKENDS["srp"]


def test_srp_ibsrpdm_login_fio_verify(x):
    """ib_srpt in VM a (an ACL for VM b's port GUID), ibsrpdm in VM b
    finds it through the switch's SA and the target's DM agent, ib_srp
    logs in with the line it printed."""
    ulplib.run_script(x.target_vm, "srp", "target-start", x.target_dev, SRP_BACKEND,
                      x.host_port_guid, timeout=300)
    try:
        _, gid = x.target_vm.run("cat /sys/class/infiniband/vhca0/ports/1/gids/0",
                                 timeout=30, check=True)
        dgid = gid.strip().replace(":", "")
        # ib_srpt announces its DM agent (IsDeviceManagementSupported in
        # its port's CapabilityMask) when it starts; a cabled port sends
        # the switch's SM no Trap 144 (Documentation/fabric.md "What is not
        # emulated"), so discovery is retried for a while.
        started = time.monotonic()
        out = x.host_vm.wait_until(ulplib.script("srp", "discover", x.host_dev) + " 2>&1",
                                   lambda t: "dgid=%s" % dgid in t, timeout=60, interval=2)
        note_time("ibsrpdm found the target after", time.monotonic() - started)
        line = [l for l in out.splitlines() if "dgid=%s" % dgid in l][0]
        disk = last_line(ulplib.run_script(x.host_vm, "srp", "login", x.host_dev, line,
                                           timeout=300))
        try:
            for vm, comm in ((x.host_vm, "ib_srp"), (x.target_vm, "ib_srpt")):
                _, out = vm.run("rdma res show qp", timeout=60, check=True)
                ulplib.log("rdma res show qp (%s)" % comm, out)
                assert re.search(r"link vhca0/1 .*type RC state RTS.*\[%s\]" % comm, out), out
            Fio(disk, rw="randwrite", bs="4k", iodepth=8, numjobs=2, size="2M").run(x.host_vm)
            Fio(disk, rw="write", bs="1M", iodepth=4, numjobs=1, size="8M").run(x.host_vm)
            ulplib.assert_same_bytes(x.host_vm, disk, SRP_BACKEND, 8, target_vm=x.target_vm)
        finally:
            ulplib.run_script(x.host_vm, "srp", "logout", timeout=120)
    finally:
        ulplib.run_script(x.target_vm, "srp", "target-stop", timeout=300)
