"""The smoke tier of an older kernel (`make check-smoke KERNEL=6.12|6.1`,
`make check-kernels-smoke` for both; Documentation/testing-vm.md
"check-smoke"): one guest on that kernel with vhca.ko built for it, and
the stack end to end once: load, every port ACTIVE, an IPoIB ping, an
rping exchange, an ib_write_bw, one NVMe over RDMA connect with fio
verification, unload, and no kernel report (WARNING, BUG, oops, ...) in
the whole session's log.  The tests run in file order and each needs the
one before it (pytest -x: run-smoke.sh).

The guest tiers run on the newest kernel (7.3); this one checks that the
compat points of driver/shim (Documentation/driver-build.md "Kernel
compatibility") give a working stack on the older ones too.
"""
import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "ulp"))
import vmlib  # noqa: E402
import ulplib  # noqa: E402

PROVIDER = os.path.join(vmlib.BUILD, "provider")
# The devices of `make run`: vhca0 with two ports, vhca1 with one.
DEVICES = ["vhca,id=vhca0,ports=2,node-guid=0x5254000000000100",
           "vhca,id=vhca1,ports=1,node-guid=0x5254000000000200"]
PORTS = 3
BACKEND = ulplib.BACKENDS["nvme"]
# What the unload takes out, users first (rdma_cm's users hold ib_core,
# the ULPs hold vhca's devices).
UNLOAD = ("nvme_rdma nvme_fabrics nvmet_rdma nvmet rdma_ucm ib_ipoib "
          "rpcrdma ib_iser ib_srp rdma_cm iw_cm ib_cm vhca")


@pytest.fixture(scope="module")
def vm():
    for path in (vmlib.MODULE, os.path.join(PROVIDER, "libvhca-rdmav34.so")):
        if not os.path.exists(path):
            raise FileNotFoundError("%s missing: run `make module provider`" % path)
    with vmlib.VM(devices=DEVICES, name="smoke-" + vmlib.KERNEL_CHOICE,
                  memory="3G") as machine:
        ulplib.log("guest kernel", machine.kver)
        yield machine


def test_load(vm):
    rc, out = vm.run("sh %s/scripts/guest/load-driver.sh %s && "
                     "sh %s/scripts/guest/install-provider.sh %s"
                     % (vmlib.REPO, vmlib.MODULE, vmlib.REPO, PROVIDER), timeout=180)
    assert rc == 0, out
    _, out = vm.run("uname -r; lsmod | grep -w vhca", timeout=30, check=True)
    assert vm.kver in out and "vhca" in out, out


def test_ports_active(vm):
    rc, out = vm.run("sh %s/scripts/guest/port-report.sh 60 %d"
                     % (vmlib.REPO, PORTS), timeout=120)
    ulplib.log("port-report.sh", out)
    assert rc == 0, out


def test_ipoib_ping_rping_ib_write_bw(vm):
    """scripts/guest/stack-report.sh (the report of `make run`): one
    line per step, "FAILED" on a failed one."""
    rc, out = vm.run("sh %s/scripts/guest/stack-report.sh %s" % (vmlib.REPO, vmlib.REPO),
                     timeout=400)
    ulplib.log("stack-report.sh", out)
    for step in ("IPoIB ping:", "rping:", "ib_write_bw:"):
        assert any(line.startswith(step) for line in out.splitlines()), (step, out)
    assert rc == 0 and "FAILED" not in out, out


def test_nvme_rdma_fio_verify(vm):
    """nvmet-rdma on vhca0, nvme-rdma on vhca1 (scripts/guest/ulp/), one
    connect, fio with crc32c verification, disconnect."""
    ulplib.load_backends(vm)
    words = dict(w.split("=") for w in
                 ulplib.run_script(vm, "fabric", "vhca", "vhca0", "vhca1", timeout=180).split()
                 if "=" in w)
    assert words.get("target") and words.get("host"), words
    ulplib.run_script(vm, "nvme", "target-start", ulplib.TARGET_IP, BACKEND)
    dev = ulplib.run_script(vm, "nvme", "connect", ulplib.TARGET_IP).strip().splitlines()[-1]
    try:
        _, out = vm.run("nvme list-subsys -o json", timeout=60, check=True)
        assert '"Transport":"rdma"' in out.replace(" ", ""), out
        ulplib.Fio(dev, rw="randwrite", bs="4k", numjobs=2, size="8M").run(vm)
    finally:
        vm.run(ulplib.script("nvme", "disconnect"), timeout=120)
        vm.run(ulplib.script("nvme", "target-stop"), timeout=120)


def test_unload_and_kernel_log(vm):
    """Everything out, vhca last; then not one WARNING/BUG/oops/... line
    in the whole session's kernel log."""
    vm.run("modprobe -r null_blk; for m in %s; do "
           "lsmod | grep -qw \"^$m\" && rmmod $m; done; true" % UNLOAD, timeout=300)
    _, out = vm.run("lsmod | grep -w '^vhca' || echo unloaded", timeout=30, check=True)
    assert "unloaded" in out, "vhca still loaded:\n" + out
    _, log = vm.run("dmesg --color=never", timeout=120, check=True)
    bad = vmlib.bad_dmesg_lines(log)
    if bad:
        ulplib.log("kernel log", log[-12000:])
    assert not bad, "kernel log:\n" + "\n".join(bad[:60])
