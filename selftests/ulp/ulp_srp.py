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

import ulplib
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
