"""iSER: LIO target with an iSER portal (targetcli, ib_isert) on vhca0,
open-iscsi initiator (iscsid, iscsiadm -I iser, ib_iser) on vhca1
(scripts/guest/ulp/iser.sh).  Data verified with fio crc32c and by
comparing the host's view with the target's backend.
"""
import pytest

import ulpfault
import ulplib
from ulplib import Fio

BACKEND = ulplib.BACKENDS["iser"]


@pytest.fixture(scope="module")
def iser_target(vm, fabric):
    ulplib.run_script(vm, "iser", "target-start", fabric.target_ip, BACKEND, timeout=300)
    yield
    ulplib.run_script(vm, "iser", "target-stop", timeout=300)


@pytest.fixture(scope="module")
def iser_disk(vm, fabric, iser_target):
    out = ulplib.run_script(vm, "iser", "login", fabric.target_ip, timeout=300)
    yield out.strip().splitlines()[-1]
    vm.run(ulplib.script("iser", "logout", fabric.target_ip), timeout=300)


def test_iser_login_is_iser(vm, fabric, iser_disk):
    _, out = vm.run("iscsiadm -m session -P 3", timeout=60, check=True)
    ulplib.log("iscsiadm -m session -P 3", out)
    assert "Iface Transport: iser" in out, out
    assert "Current Portal: %s:3260" % fabric.target_ip in out, out
    assert "iSCSI Session State: LOGGED_IN" in out, out
    assert "Attached scsi disk %s" % iser_disk.split("/")[-1] in out, out
    ulplib.assert_connections(vm, fabric, "ib_iser", "ib_isert", 1)


@pytest.mark.parametrize("job", ulplib.QUICK_JOBS, ids=ulplib.QUICK_IDS)
def test_iser_fio_verify(vm, iser_disk, job):
    ulplib.quick_fio(iser_disk, job).run(vm)


def test_iser_host_reads_what_target_stored(vm, iser_disk):
    ulplib.assert_same_bytes(vm, iser_disk, BACKEND, 32)


# ---- make check-ulp-full ----

def current_disk(vm):
    """The session's disk now (after a new login it may have a new name)."""
    return ulplib.run_script(vm, "iser", "disk").strip()


def relogin_and_verify(vm, fabric):
    """A new session across the fabric: fio verify, the backend compared."""
    vm.run(ulplib.script("iser", "logout", fabric.target_ip), timeout=300)
    disk = ulplib.run_script(vm, "iser", "login", fabric.target_ip,
                             timeout=300).strip().splitlines()[-1]
    ulplib.assert_connections(vm, fabric, "ib_iser", "ib_isert", 1)
    Fio(disk, rw="randwrite", bs="4k", numjobs=2, size="8M").run(vm)
    ulplib.assert_same_bytes(vm, disk, BACKEND, 16)


@pytest.mark.full
def test_iser_fio_verify_8m_ios(vm, iser_disk):
    """8 MiB requests (split at ib_iser's max_sectors), and 1 MiB ones
    from buffers that start 512 bytes into a page: every page of a
    user buffer is elsewhere in memory, the first and last partial."""
    disk = current_disk(vm)
    Fio(disk, rw="write", bs="8M", iodepth=4, numjobs=2, size="64M").run(vm, timeout=1200)
    Fio(disk, rw="randwrite", bs="1M", iodepth=8, numjobs=2, size="32M",
        extra=["--iomem=malloc", "--mem_align=512"]).run(vm, timeout=1200)


# iscsiadm can lose the next discovery login's response (open-iscsi's
# race, Documentation/history.md "iscsiadm's lost discovery response");
# iser.sh runs the discovery once more, as a user would.
@pytest.mark.full
def test_iser_logout_login_under_io(vm, fabric, iser_disk):
    """Logout while fio runs: the session's commands fail, the disk goes
    away, nothing hangs; a new login gets a disk with the data intact."""
    ulpfault.start_io(vm, current_disk(vm), "iser-logout", backend=BACKEND)
    vm.run(ulplib.script("iser", "logout", fabric.target_ip), timeout=300, check=True)
    ulpfault.io_ends(vm, "iser-logout", "iscsiadm --logout")
    relogin_and_verify(vm, fabric)


# Which resets ib_iser implements (its scsi_host_template, Linux 6.1):
# a logical unit reset (iscsi_eh_device_reset: a LUN RESET task
# management function); no bus or host reset handler, so those fail.
ISER_RESETS = {"device": True, "bus": False, "host": False}


# The LUN reset also runs in the quick tier (about 15 s).
@pytest.mark.parametrize("kind", [k if k == "device" else pytest.param(k, marks=pytest.mark.full)
                                  for k in ulpfault.SCSI_RESETS])
def test_iser_sg_reset_under_io(vm, iser_disk, kind):
    ulpfault.reset_under_io(vm, current_disk(vm), BACKEND, kind, ISER_RESETS[kind], "iser-reset")


@pytest.mark.full
@pytest.mark.fault
@pytest.mark.ib
@pytest.mark.parametrize("how", ulpfault.DEVICE_FAULTS)
def test_iser_device_removed_under_io(vm, fabric, iser_disk, module_path, how):
    """rmmod vhca / device_del of the host's device while fio runs: the
    connection is lost, the session fails its I/O after its replacement
    timeout (or recovers over what is left), nothing hangs; with the
    device back the target is set up again and a new session verifies."""
    ulpfault.start_io(vm, current_disk(vm), "iser-" + how, backend=BACKEND)
    ulpfault.remove_device(vm, fabric, how)
    ulpfault.io_ends(vm, "iser-" + how, how)
    ulpfault.restore_device(vm, fabric, how, module_path)
    vm.run(ulplib.script("iser", "logout", fabric.target_ip), timeout=300)
    ulplib.run_script(vm, "iser", "target-stop", timeout=300)
    ulplib.run_script(vm, "iser", "target-start", fabric.target_ip, BACKEND, timeout=300)
    relogin_and_verify(vm, fabric)
