"""iSER: LIO target with an iSER portal (targetcli, ib_isert) on vhca0,
open-iscsi initiator (iscsid, iscsiadm -I iser, ib_iser) on vhca1
(scripts/guest/ulp/iser.sh).  Data verified with fio crc32c and by
comparing the host's view with the target's backend.
"""
import pytest

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
