"""SRP: the LIO target's ib_srpt (targetcli) on vhca0 port 1, the ib_srp
initiator on vhca1 (scripts/guest/ulp/srp.sh).  Discovery through Device
Management MADs (ibsrpdm: the SA's PortInfo records with
IsDeviceManagementSupported, then the DM agent's IOUnitInfo,
IOControllerProfile and ServiceEntries), login with the line it prints;
then blktests' login by hand: vhca0 port 1 logs in to its own GID with
pkey=7fff (the SA must answer PathRecords for the limited-membership
P_Key).  Data verified with fio crc32c and against the target's backend.
InfiniBand only (marked `ib`).
"""
import re

import pytest

import ulpfault
import ulplib
import vmlib
from ulplib import Fio

pytestmark = pytest.mark.ib
BACKEND = ulplib.BACKENDS["srp"]


@pytest.fixture(scope="module")
def srp_target(vm, fabric):
    # ACLs for vhca1 port 1 (the initiator) and vhca0 port 1 (blktests'
    # login to its own port).
    ulplib.run_script(vm, "srp", "target-start", fabric.target_dev, BACKEND,
                      fabric.host_dev, fabric.target_dev, timeout=300)
    yield
    ulplib.run_script(vm, "srp", "logout", timeout=120)
    ulplib.run_script(vm, "srp", "target-stop", timeout=300)


def discovered(vm, fabric):
    out = ulplib.run_script(vm, "srp", "discover", fabric.host_dev, timeout=120)
    return [l for l in out.splitlines() if l.startswith("id_ext=")]


def test_srp_ibsrpdm_finds_the_target(vm, fabric, srp_target):
    lines = discovered(vm, fabric)
    _, gid = vm.run("cat /sys/class/infiniband/%s/ports/1/gids/0" % fabric.target_dev,
                    check=True)
    dgid = gid.strip().replace(":", "")
    assert any("dgid=%s" % dgid in l for l in lines), lines


def test_srp_login_fio_verify(vm, fabric, srp_target):
    line = discovered(vm, fabric)[0]
    out = ulplib.run_script(vm, "srp", "login", fabric.host_dev, line, timeout=300)
    disk = out.strip().splitlines()[-1]
    # ib_srp and ib_srpt use ib_cm directly (no rdma_cm): their QPs.
    _, out = vm.run("rdma res show qp", timeout=60, check=True)
    ulplib.log("rdma res show qp", out)
    assert re.search(r"link %s/1 .*type RC state RTS.*\[ib_srp\]" % fabric.host_dev, out), out
    assert re.search(r"link %s/1 .*type RC state RTS.*\[ib_srpt\]" % fabric.target_dev, out), out
    for job in ulplib.QUICK_JOBS:
        ulplib.quick_fio(disk, job).run(vm)
    ulplib.assert_same_bytes(vm, disk, BACKEND, 32)
    ulplib.run_script(vm, "srp", "logout", timeout=120)


def test_srp_login_to_own_port_pkey_7fff(vm, fabric, srp_target):
    """blktests srp: the initiator logs in to its own port's GID with the
    limited default P_Key."""
    line = discovered(vm, fabric)[0]
    _, gid = vm.run("cat /sys/class/infiniband/%s/ports/1/gids/0" % fabric.target_dev,
                    check=True)
    own = re.sub(r"pkey=[0-9a-f]+", "pkey=7fff", line)
    own = re.sub(r"dgid=[0-9a-f]+", "dgid=" + gid.strip().replace(":", ""), own)
    out = ulplib.run_script(vm, "srp", "login", fabric.target_dev, own, timeout=300)
    disk = out.strip().splitlines()[-1]
    Fio(disk, rw="randwrite", bs="4k", numjobs=2, size="8M").run(vm)
    ulplib.run_script(vm, "srp", "logout", timeout=120)


# ---- make check-ulp-full ----

def login(vm, fabric, extra=""):
    """Log vhca1 port 1 in with the line ibsrpdm prints (plus `extra`
    options); the disk."""
    line = discovered(vm, fabric)[0] + extra
    out = ulplib.run_script(vm, "srp", "login", fabric.host_dev, line, timeout=300)
    return out.strip().splitlines()[-1]


def login_and_verify(vm, fabric):
    disk = login(vm, fabric)
    Fio(disk, rw="randwrite", bs="4k", numjobs=2, size="8M").run(vm)
    ulplib.assert_same_bytes(vm, disk, BACKEND, 16)
    ulplib.run_script(vm, "srp", "logout", timeout=120)


def queue_limit(vm, disk, name):
    _, out = vm.run("cat /sys/block/%s/queue/%s" % (disk.split("/")[-1], name),
                    timeout=30, check=True)
    return vmlib.guest_int(out)


@pytest.mark.full
def test_srp_cmd_sg_entries_255_8m_ios(vm, fabric, srp_target):
    """ib_srp cmd_sg_entries=255 and max_sect=16384 (8 MiB): 8 MiB
    requests reach the target as one SRP command each, whose data
    descriptors (up to 255, one per fast-registered MR) do not fit the
    command and are fetched by the target with RDMA READ (indirect
    descriptor table); and 1 MiB requests from buffers that start 512
    bytes into a page."""
    vm.run("if lsmod | grep -q '^ib_srp '; then rmmod ib_srp; fi; "
           "modprobe ib_srp cmd_sg_entries=255", timeout=120, check=True)
    try:
        assert ulplib.module_param(vm, "ib_srp", "cmd_sg_entries") == "255"
        disk = login(vm, fabric, ",max_sect=16384")
        # ib_srp's max_sect and the target's Block Limits (LIO: the
        # backend's max_sectors) both allow 8 MiB.
        assert queue_limit(vm, disk, "max_hw_sectors_kb") >= 8192
        vm.run("echo 8192 > /sys/block/%s/queue/max_sectors_kb" % disk.split("/")[-1],
               timeout=30, check=True)
        Fio(disk, rw="write", bs="8M", iodepth=4, numjobs=2, size="64M").run(vm, timeout=1200)
        Fio(disk, rw="randwrite", bs="1M", iodepth=8, numjobs=2, size="32M",
            extra=["--iomem=malloc", "--mem_align=512"]).run(vm, timeout=1200)
        ulplib.assert_same_bytes(vm, disk, BACKEND, 32)
    finally:
        vm.run(ulplib.script("srp", "logout"), timeout=120)
        vm.run("rmmod ib_srp; modprobe ib_srp", timeout=120, check=True)


@pytest.mark.full
def test_srp_logout_login_under_io(vm, fabric, srp_target):
    """remove_target (the remote port's delete) while fio runs: its
    commands fail, the SCSI host goes away, nothing hangs; add_target
    again gets a disk whose data verifies."""
    ulpfault.start_io(vm, login(vm, fabric), "srp-logout", backend=BACKEND)
    ulplib.run_script(vm, "srp", "logout", timeout=120)
    ulpfault.io_ends(vm, "srp-logout", "remove_target")
    login_and_verify(vm, fabric)


# Which resets ib_srp implements (its scsi_host_template, Linux 6.1): a
# logical unit reset (srp_reset_device: an SRP_TSK_MGMT LUN RESET) and a
# host reset (srp_reset_host: reconnects the RDMA channels); no bus
# reset handler, so that one fails.
SRP_RESETS = {"device": True, "bus": False, "host": True}


@pytest.mark.full
@pytest.mark.parametrize("kind", ulpfault.SCSI_RESETS)
def test_srp_sg_reset_under_io(vm, fabric, srp_target, kind):
    disk = login(vm, fabric)
    try:
        ulpfault.reset_under_io(vm, disk, BACKEND, kind, SRP_RESETS[kind], "srp-reset")
        ulplib.assert_same_bytes(vm, disk, BACKEND, 16)
    finally:
        vm.run(ulplib.script("srp", "logout"), timeout=120)


@pytest.mark.full
@pytest.mark.fault
@pytest.mark.parametrize("how", ulpfault.DEVICE_FAULTS)
def test_srp_device_removed_under_io(vm, fabric, srp_target, module_path, how):
    """rmmod vhca / device_del of the host's device while fio runs:
    ib_srp removes the targets of the device that went, the commands
    fail, nothing hangs; with the device back (and, after rmmod, the
    target set up again on the new srpt port) a new login verifies."""
    ulpfault.start_io(vm, login(vm, fabric), "srp-" + how, backend=BACKEND)
    ulpfault.remove_device(vm, fabric, how)
    ulpfault.io_ends(vm, "srp-" + how, how)
    ulplib.run_script(vm, "srp", "logout", timeout=120)
    ulpfault.restore_device(vm, fabric, how, module_path)
    if how == "rmmod":
        ulplib.run_script(vm, "srp", "target-stop", timeout=300)
        ulplib.run_script(vm, "srp", "target-start", fabric.target_dev, BACKEND,
                          fabric.host_dev, fabric.target_dev, timeout=300)
    login_and_verify(vm, fabric)
