"""`make install` in a guest (`make check-install`, not in `make test`).

The guest's root is the host's, read-only, under a tmpfs overlay, so
scripts/install.sh runs there as on a real machine without touching the
host: it copies the module's sources to /usr/src/vhca-<version>, has DKMS
build and install vhca.ko for the guest's kernel (dkms.conf: the same
scripts/build-module.sh and checks as `make module`), and installs the
provider into libibverbs' provider directory.  Then the installed module
loads by name (modprobe, from DKMS's updates/dkms directory), its ports
go ACTIVE, and ibv_devinfo reaches the device through the installed
provider.  The DKMS build runs under TCG: about half an hour.  Not collected
by `make check-vm` (the name does not match test_*.py).
"""
import os
import re
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import vmlib  # noqa: E402

PROVIDER = os.path.join(vmlib.BUILD, "provider", "libvhca-rdmav34.so")
DEVICE = "vhca,id=vhca0,ports=1,node-guid=0x5254000000000300"
# dkms compiles the C++ core under TCG.
INSTALL_TIMEOUT = 3600


@pytest.fixture(scope="module")
def vm():
    if not os.path.exists(PROVIDER):
        raise FileNotFoundError("%s missing: run `make provider`" % PROVIDER)
    with vmlib.VM(devices=[DEVICE], name="install") as machine:
        yield machine


def test_make_install(vm):
    rc, out = vm.run("VHCA_KVER=$(uname -r) sh %s/scripts/install.sh >/tmp/install.log 2>&1; "
                     "rc=$?; tail -n 40 /tmp/install.log; exit $rc" % vmlib.REPO,
                     timeout=INSTALL_TIMEOUT)
    print(out)
    assert rc == 0, out
    status = vm.run("dkms status -m vhca -k $(uname -r)", timeout=60)[1]
    assert re.search(r"vhca/\S+, \S+, x86_64: installed", status), out + status


def test_installed_module_loads(vm):
    vm.run("modprobe -a ib_core ib_uverbs ib_umad && modprobe vhca", timeout=120, check=True)
    path = vm.run("modinfo -n vhca", timeout=60, check=True)[1].strip()
    assert "/updates/dkms/vhca.ko" in path, path
    vm.wait_until("cat /sys/class/infiniband/vhca0/ports/1/state",
                  lambda text: "ACTIVE" in text, timeout=120)


def test_installed_provider(vm):
    # No install-provider.sh here: libibverbs finds the provider where
    # scripts/install.sh put it, or lists no device.
    out = vm.run("ibv_devinfo -d vhca0", timeout=120, check=True)[1]
    assert re.search(r"hca_id:\s+vhca0", out) and "PORT_ACTIVE" in out, out
