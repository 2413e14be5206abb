"""NVMe over RDMA: nvmet-rdma target (configfs) on vhca0, nvme-rdma host
(nvme-cli) on vhca1 (scripts/guest/ulp/nvme.sh).  Data verified with fio
crc32c and by comparing the host's view with the target's backend.
"""
import re

import pytest

import ulplib
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


def test_nvme_rdma_fio_verify_4k_randwrite(vm, nvme_host):
    Fio(nvme_host, rw="randwrite", bs="4k", iodepth=32, numjobs=2, size="8M").run(vm)


def test_nvme_rdma_fio_verify_1m_write(vm, nvme_host):
    Fio(nvme_host, rw="write", bs="1M", iodepth=32, numjobs=2, size="16M").run(vm)


def test_nvme_rdma_host_reads_what_target_stored(vm, nvme_host):
    ulplib.assert_same_bytes(vm, nvme_host, BACKEND, 32)


def test_nvme_rdma_fio_detects_a_corrupted_block(vm, nvme_host):
    """The verification can fail: a block changed behind the host's back
    (on the target's backend) makes fio's verify pass exit non-zero."""
    job = Fio(nvme_host, rw="write", bs="64k", numjobs=1, size="4M")
    vm.run(job.command().replace("--do_verify=1", "--do_verify=0"), timeout=300, check=True)
    vm.run("dd if=/dev/urandom of=%s bs=4k seek=100 count=1 oflag=direct status=none"
           % BACKEND, timeout=60, check=True)
    rc, out = vm.run(job.command() + " --verify_only 2>&1", timeout=300)
    assert rc != 0 and "verify failed" in out, out[-3000:]


def test_nvme_rdma_disconnect_connect(vm, fabric, nvme_host):
    ulplib.run_script(vm, "nvme", "disconnect")
    ulplib.wait_gone(vm, nvme_host)
    dev = ulplib.run_script(vm, "nvme", "connect", fabric.target_ip).strip().splitlines()[-1]
    assert dev == nvme_host, "reconnected as %s, was %s" % (dev, nvme_host)
    # The blocks written before the reconnect are still there and intact.
    ulplib.assert_same_bytes(vm, nvme_host, BACKEND, 32)
    Fio(nvme_host, rw="randrw", bs="4k", size="4M", numjobs=1).run(vm)
