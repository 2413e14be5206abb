"""NVMe over RDMA: nvmet-rdma target (configfs) on vhca0, nvme-rdma host
(nvme-cli) on vhca1 (scripts/guest/ulp/nvme.sh).  Data verified with fio
crc32c and by comparing the host's view with the target's backend.
"""
import re

import pytest

import ulpfault
import ulplib
import vmlib
from ulplib import Fio

BACKEND = ulplib.BACKENDS["nvme"]


@pytest.fixture(scope="module")
def nvme_target(vm, fabric):
    ulplib.run_script(vm, "nvme", "target-start", fabric.target_ip, BACKEND)
    yield
    ulplib.run_script(vm, "nvme", "target-stop")


@pytest.fixture(scope="module")
def nvme_host(vm, fabric, nvme_target):
    """The namespace's block device on the host (connected once for the
    module; tests that disconnect connect again before they end)."""
    out = ulplib.run_script(vm, "nvme", "connect", fabric.target_ip)
    yield out.strip().splitlines()[-1]
    vm.run(ulplib.script("nvme", "disconnect"), timeout=120)




def test_nvme_rdma_discover_connect(vm, fabric, nvme_host):
    _, out = vm.run("nvme list-subsys -o json; cat /sys/class/nvme/nvme*/address",
                    timeout=60, check=True)
    ulplib.log("list-subsys", out)
    assert '"Transport":"rdma"' in out.replace(" ", ""), out
    assert "traddr=%s" % fabric.target_ip in out and "trsvcid=4420" in out, out
    # Admin queue + one I/O queue per CPU, each crossing the fabric.
    ulplib.assert_connections(vm, fabric, "nvme_rdma", "nvmet_rdma", 3)


@pytest.mark.parametrize("job", ulplib.QUICK_JOBS, ids=ulplib.QUICK_IDS)
def test_nvme_rdma_fio_verify(vm, nvme_host, job):
    ulplib.quick_fio(nvme_host, job).run(vm)


def test_nvme_rdma_host_reads_what_target_stored(vm, nvme_host):
    ulplib.assert_same_bytes(vm, nvme_host, BACKEND, 32)


def test_nvme_rdma_fio_detects_a_corrupted_block(vm, nvme_host):
    """The verification can fail: a block changed behind the host's back
    (on the target's backend) makes fio's verify pass exit non-zero."""
    job = Fio(nvme_host, rw="write", bs="64k", numjobs=1, size="4M")
    vm.run(job.command().replace("--do_verify=1", "--do_verify=0"), timeout=300, check=True)
    vm.run("dd if=/dev/urandom of=%s bs=4k seek=100 count=1 oflag=direct status=none"
           % BACKEND, timeout=60, check=True)
    rc, out = vm.run(job.command("--verify_only") + " 2>&1", timeout=300)
    assert rc != 0 and "verify failed" in out, out[-3000:]


def test_nvme_rdma_disconnect_connect(vm, fabric, nvme_host):
    ulplib.run_script(vm, "nvme", "disconnect")
    ulplib.wait_gone(vm, nvme_host)
    dev = ulplib.run_script(vm, "nvme", "connect", fabric.target_ip).strip().splitlines()[-1]
    assert dev == nvme_host, "reconnected as %s, was %s" % (dev, nvme_host)
    # The blocks written before the reconnect are still there and intact.
    ulplib.assert_same_bytes(vm, nvme_host, BACKEND, 32)
    Fio(nvme_host, rw="randrw", bs="4k", size="4M", numjobs=1).run(vm)


# ---- make check-ulp-full ----

MATRIX = [(rw, bs) for rw in ("write", "randwrite") for bs in ("4k", "1M")]


@pytest.mark.full
@pytest.mark.parametrize("rw,bs", MATRIX, ids=["%s-%s" % m for m in MATRIX])
def test_nvme_rdma_fio_verify_qd32_4jobs(vm, nvme_host, rw, bs):
    Fio(nvme_host, rw=rw, bs=bs, iodepth=32, numjobs=4,
        size="64M" if bs == "1M" else "16M").run(vm, timeout=1200)


@pytest.mark.full
def test_nvme_rdma_fio_verify_8m_ios(vm, nvme_host):
    """8 MiB requests: split at the controller's max_hw_sectors, each
    piece a many-SGE transfer."""
    Fio(nvme_host, rw="write", bs="8M", iodepth=4, numjobs=2, size="64M").run(vm, timeout=1200)


@pytest.mark.full
def test_nvme_rdma_fio_verify_at_max_sectors(vm, nvme_host):
    """Requests of the controller's largest size (max_sectors_kb raised
    to max_hw_sectors_kb: nvme-rdma's limit from the device's
    max_fast_reg_page_list_len), one fast-registered MR each; then the
    same from buffers that start 512 bytes into a page (discontiguous
    pages, the first and last partial)."""
    queue = "/sys/block/%s/queue" % nvme_host.split("/")[-1]
    _, out = vm.run("cat %s/max_hw_sectors_kb" % queue, timeout=30, check=True)
    max_kb = vmlib.guest_int(out)
    assert max_kb >= 1024, "max_hw_sectors_kb %d" % max_kb
    vm.run("echo %d > %s/max_sectors_kb" % (max_kb, queue), timeout=30, check=True)
    bs = "%dk" % max_kb
    Fio(nvme_host, rw="write", bs=bs, iodepth=8, numjobs=2, size="64M").run(vm, timeout=1200)
    Fio(nvme_host, rw="randwrite", bs=bs, iodepth=8, numjobs=2, size="32M",
        extra=["--iomem=malloc", "--mem_align=512"]).run(vm, timeout=1200)


@pytest.mark.full
def test_nvme_rdma_reset_controller_under_io(vm, nvme_host):
    """Controller resets while fio runs: the queues are torn down and
    connected again, I/O is retried, verification passes."""
    ulpfault.start_io(vm, nvme_host, "reset", size="32M", backend=BACKEND)
    ctrl = ulplib.run_script(vm, "nvme", "controller").strip()
    for i in range(2):
        # The second reset 3 s after the first one's reconnect: I/O
        # retried after it is under way again.
        vm.run("sleep %d; nvme reset /dev/%s" % (3 * i, ctrl), timeout=120, check=True)
        vm.wait_until("cat /sys/class/nvme/%s/state" % ctrl,
                      lambda t: t.strip() == "live", timeout=120)
    rc, log = ulplib.wait_background_fio(vm, "reset")
    assert rc == 0, log


@pytest.mark.full
def test_nvme_rdma_target_srq_mode(vm, fabric, nvme_host):
    """nvmet_rdma use_srq=1: the target's queues share receive queues."""
    ulplib.run_script(vm, "nvme", "disconnect")
    ulplib.wait_gone(vm, nvme_host)
    ulplib.run_script(vm, "nvme", "target-stop")
    try:
        vm.run("rmmod nvmet_rdma && modprobe nvmet_rdma use_srq=1", timeout=120, check=True)
        ulplib.run_script(vm, "nvme", "target-start", fabric.target_ip, BACKEND)
        dev = ulplib.run_script(vm, "nvme", "connect", fabric.target_ip).strip().splitlines()[-1]
        _, out = vm.run("rdma res show srq", timeout=60)
        ulplib.log("rdma res show srq", out)
        assert re.search(r"^dev %s srqn \d+ .*lqpn .*\[nvmet_rdma\]" % fabric.target_dev,
                         out, re.M), out
        Fio(dev, rw="randwrite", bs="4k", numjobs=2, size="8M").run(vm)
    finally:
        vm.run(ulplib.script("nvme", "disconnect"), timeout=120)
        vm.run(ulplib.script("nvme", "target-stop"), timeout=120)
        vm.run("rmmod nvmet_rdma; modprobe nvmet_rdma", timeout=120)
        ulplib.run_script(vm, "nvme", "target-start", fabric.target_ip, BACKEND)
        ulplib.run_script(vm, "nvme", "connect", fabric.target_ip)


def current_device(vm):
    """The namespace's block device now: after a fault test's reconnect
    it may have another name than the module's first connect gave."""
    return ulplib.run_script(vm, "nvme", "device").strip().splitlines()[-1]


def reconnect_and_verify(vm, fabric):
    """After the host's device came back: target port up again, connect,
    fio verify on the new device."""
    vm.run(ulplib.script("nvme", "disconnect"), timeout=120)
    ulplib.run_script(vm, "nvme", "target-stop")
    ulplib.run_script(vm, "nvme", "target-start", fabric.target_ip, BACKEND)
    dev = ulplib.run_script(vm, "nvme", "connect", fabric.target_ip).strip().splitlines()[-1]
    Fio(dev, rw="randwrite", bs="4k", numjobs=2, size="8M").run(vm)


def io_ends_after(vm, name, what):
    """fio (started before `what` happened) ends: I/O fails cleanly or
    completes, nothing hangs; the controller is gone."""
    rc, log = ulplib.wait_background_fio(vm, name, timeout=600)
    ulplib.log("fio across %s (exit %d)" % (what, rc), log)
    rc, out = vm.run(ulplib.script("nvme", "controller"), timeout=60)
    assert rc != 0, "controller still there after %s: %s" % (what, out)


@pytest.mark.full
@pytest.mark.fault
@pytest.mark.ib
def test_nvme_rdma_rmmod_vhca_under_io(vm, fabric, nvme_host, module_path):
    ulpfault.start_io(vm, current_device(vm), "rmmod", backend=BACKEND)
    vm.run("rmmod vhca", timeout=300, check=True)
    io_ends_after(vm, "rmmod", "rmmod vhca")
    fabric.reload_driver(vm, module_path)
    reconnect_and_verify(vm, fabric)


@pytest.mark.full
@pytest.mark.fault
@pytest.mark.ib
def test_nvme_rdma_hot_unplug_host_device_under_io(vm, fabric, nvme_host):
    ulpfault.start_io(vm, current_device(vm), "unplug", backend=BACKEND)
    fabric.unplug_host(vm)
    io_ends_after(vm, "unplug", "device_del vhca1")
    fabric.replug_host(vm)
    reconnect_and_verify(vm, fabric)
