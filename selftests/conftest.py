"""Fixtures for the VM tests (`make check-vm` leaves pytest's JUnit report
in build/results/vm.xml, or vm-debug.xml on the debug kernel).

Environment: VHCA_QEMU (QEMU binary, default build/qemu/qemu-system-x86_64;
the Makefile sets it for its QEMU_VERSION),
VHCA_MODULE (default: vhca.ko for VHCA_KERNEL, vmlib.MODULE), VHCA_ACCEL (kvm or tcg, default:
probe once, see vmlib.choose_accel), VHCA_KERNEL (7.3, 6.12, 6.1, or debug: the
debug kernel and build/debug/vhca.ko, and at the end a kmemleak scan and a
kernel log check that fail the run),
VHCA_TIMEOUT_SCALE (see vmlib.TIMEOUT_SCALE).
"""
import os

import pytest

import vmlib

DEBUG = vmlib.KERNEL_CHOICE == "debug"
MODULE = vmlib.MODULE

# Two devices on one fabric: vhca0 with two ports, vhca1 with one.
DEVICES = {
    "vhca0": {"ports": 2, "node_guid": 0x5254000000000100},
    "vhca1": {"ports": 1, "node_guid": 0x5254000000000200},
}


def device_args():
    return ["vhca,id=%s,ports=%d,node-guid=0x%016x" % (name, d["ports"], d["node_guid"])
            for name, d in DEVICES.items()]


@pytest.fixture(scope="session")
def vm():
    """One guest with both vhca devices, RDMA core and vhca.ko loaded."""
    if not os.path.exists(MODULE):
        raise FileNotFoundError("%s missing: run `make module`" % MODULE)
    with vmlib.VM(devices=device_args(), name="selftests") as machine:
        machine.run("sh %s/scripts/guest/load-driver.sh %s" % (vmlib.REPO, MODULE),
                    timeout=120, check=True)
        yield machine
        if DEBUG:
            vmlib.check_debug_kernel(machine)


@pytest.fixture(scope="session")
def module_path():
    return MODULE

