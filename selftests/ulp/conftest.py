"""Fixtures of the storage ULP tier (`make check-ulp`, `make
check-ulp-full`; Documentation/ulps.md).

One guest for the whole session, the devices of the other tiers:
vhca0 (two ports: the target's) and vhca1 (one port: the host's), each
behind a PCIe root port, and vhca.ko.  The `fabric` fixture puts 10.78.0.1 on vhca0 port 1's IPoIB
interface and 10.78.0.2 on vhca1's, with policy routes so that traffic
between them crosses the fabric (scripts/guest/ulp/fabric.sh).  With
VHCA_ULP_FABRIC=rxe the same addresses go on a veth pair under rdma_rxe
instead (rxe0 the target's, rxe1 the host's): the same tests, to tell a
harness problem from a device one (tests marked `ib` need InfiniBand and
are deselected there by scripts/run-ulp.sh).

The test files are named ulp_*.py, not test_*.py, so that `make
check-vm` (pytest selftests) never collects them; scripts/run-ulp.sh
names them.  After every test that passed, the kernel log must have no
new bad line (vmlib.BAD_DMESG).
"""
import os
import sys
import time

import pytest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "verbs"))
import vmlib  # noqa: E402
import ulplib  # noqa: E402
from vmlib import WAIT_ACTIVE  # noqa: E402

FABRIC = os.environ.get("VHCA_ULP_FABRIC") or "vhca"
if FABRIC not in ("vhca", "rxe"):
    raise ValueError("VHCA_ULP_FABRIC=%s: expected vhca or rxe" % FABRIC)
MODULE = vmlib.MODULE
PROVIDER = os.path.join(vmlib.BUILD, "provider")
# VHCA_ULP_DEVICE_ARGS: more properties for both devices, e.g.
# "rc-drop-request=97,rc-drop-response=101" (a lossy fabric: every 97th
# RC request and every 101st response each device sends is lost, and the
# RC transport must recover; Documentation/device-datapath.md "RC transport").
DEVICE_ARGS = os.environ.get("VHCA_ULP_DEVICE_ARGS") or ""
# Each device behind a PCIe root port of its own: the q35 root bus has no
# hot-plug, and the fault tests unplug vhca1 (QMP device_del/device_add).
HOST_DEVICE = {"driver": "vhca", "id": "vhca1", "bus": "rp1", "ports": 1,
               "node-guid": 0x5254000000000200}
DEVICES = [
    "vhca,id=vhca0,ports=2,node-guid=0x5254000000000100,bus=rp0",
    "vhca,id=vhca1,ports=1,node-guid=0x5254000000000200,bus=rp1",
]
if DEVICE_ARGS:
    DEVICES = [d + "," + DEVICE_ARGS for d in DEVICES]
    HOST_DEVICE.update(a.split("=") for a in DEVICE_ARGS.split(","))
DEVICES = ["pcie-root-port,id=rp0,chassis=1", "pcie-root-port,id=rp1,chassis=2"] + DEVICES
# q35 (since QEMU 6.1) hands the root ports' hot-plug to ACPI by default, which
# the debug kernel lacks (no HOTPLUG_PCI_ACPI): device_del was then never
# seen there.  Native PCIe hot-plug (pciehp, the slot's attention button),
# as on physical servers, works the same on both kernels.
NATIVE_PCIE_HOTPLUG = ["-global", "ICH9-LPC.acpi-pci-hotplug-with-bridge-support=off"]
# ib_core's parameter that makes isert, srpt, nvmet and svcrdma register
# every transfer (FRWR) instead of using the local DMA key.
FORCE_MR = os.environ.get("VHCA_ULP_FORCE_MR") == "1"


def pytest_configure(config):
    config.addinivalue_line("markers", "full: only in make check-ulp-full")
    config.addinivalue_line("markers", "fault: loss, hot-unplug, rmmod (not run with force_mr=1)")
    config.addinivalue_line("markers", "open_bug: fails on an open bug; only in make check-ulp-open")
    config.addinivalue_line("markers", "ib: needs the vhca fabric (InfiniBand; not run on rdma_rxe)")


class Fabric:
    """Who is who: the RDMA devices and netdevs of the target and host."""

    def __init__(self, kind, target_dev, host_dev, target_if, host_if):
        self.kind = kind
        self.target_dev = target_dev
        self.host_dev = host_dev
        self.target_if = target_if
        self.host_if = host_if
        self.target_ip = ulplib.TARGET_IP
        self.host_ip = ulplib.HOST_IP

    def setup(self, vm):
        """Addresses and routes on the current interfaces (again after
        the driver or a device came back)."""
        if self.kind == "vhca":
            ulplib.run_script(vm, "fabric", "vhca", self.target_dev, self.host_dev,
                              timeout=180)

    def unplug_host(self, vm):
        """QMP device_del of the host's device; returns when the guest
        has let it go."""
        vm.qmp("device_del", id=HOST_DEVICE["id"])
        ulplib.wait_gone(vm, "/sys/class/infiniband/%s" % self.host_dev, timeout=120)
        # The guest lets the RDMA device go before pciehp powers the slot
        # off, and QEMU deletes the device (and frees its id for
        # device_add) only then.
        wait_deleted(vm, HOST_DEVICE["id"], timeout=120)

    def replug_host(self, vm):
        """QMP device_add of the host's device, ACTIVE, addresses back."""
        args = dict(HOST_DEVICE)
        args.update((k, int(v)) for k, v in args.items() if k.startswith("rc-drop"))
        vm.qmp("device_add", **args)
        vm.run(WAIT_ACTIVE, timeout=180, check=True)
        self.setup(vm)

    def reload_driver(self, vm, module_path):
        """rmmod vhca has happened: insmod, ACTIVE, addresses back."""
        vm.run("insmod %s" % module_path, timeout=120, check=True)
        vm.run(WAIT_ACTIVE, timeout=180, check=True)
        self.setup(vm)


def wait_deleted(vm, dev_id, timeout):
    """Until QEMU has no device `dev_id` any more (QMP qom-list of
    /machine/peripheral, where devices with an id live)."""
    deadline = time.monotonic() + timeout * vmlib.TIMEOUT_SCALE
    while any(p["name"] == dev_id for p in vm.qmp("qom-list", path="/machine/peripheral")):
        if time.monotonic() > deadline:
            raise vmlib.VMTimeout("QEMU still has device %s after %ss" % (dev_id, timeout))
        time.sleep(1)


@pytest.fixture(scope="session")
def module_path():
    return MODULE


@pytest.fixture(scope="session")
def vm(module_path):
    for path in (module_path, os.path.join(PROVIDER, "libvhca-rdmav34.so")):
        if not os.path.exists(path):
            raise FileNotFoundError("%s missing: run `make module provider`" % path)
    # build/vm-logs/ulp-*.log, ulp-debug-*.log on the debug kernel (the
    # two tiers may run side by side); VHCA_ULP_VM_NAME for a session
    # beside another (scripts/run-ulp.sh full: ulp-lossy).
    name = os.environ.get("VHCA_ULP_VM_NAME") or (
        "ulp-debug" if vmlib.KERNEL_CHOICE == "debug" else "ulp")
    with vmlib.VM(devices=DEVICES, name=name, memory="3G",
                  extra_args=NATIVE_PCIE_HOTPLUG) as machine:
        core = "ib_core force_mr=1" if FORCE_MR else "ib_core"
        machine.run("modprobe %s && modprobe -a ib_uverbs ib_umad" % core,
                    timeout=120, check=True)
        machine.run("insmod %s" % module_path, timeout=120, check=True)
        # ibsrpdm and srp_daemon open the device through libibverbs.
        machine.run("sh %s/scripts/guest/install-provider.sh %s" % (vmlib.REPO, PROVIDER),
                    timeout=60, check=True)
        rc, _ = machine.run(WAIT_ACTIVE, timeout=120)
        assert rc == 0, "vhca ports not ACTIVE"
        ulplib.watch_hung_tasks(machine)
        ulplib.load_backends(machine)
        yield machine
        if vmlib.KERNEL_CHOICE == "debug":
            # Every ULP is down (module-scoped fixtures): vhca's removal
            # under the ULP modules still loaded, then kmemleak and the
            # whole log (`make check-ulp-debug`).
            vmlib.check_debug_kernel(machine, known=ulplib.without_known_splats)


@pytest.fixture(scope="session")
def fabric(vm):
    if FABRIC == "rxe":
        out = ulplib.run_script(vm, "fabric", "rxe")
        devs = ("rxe0", "rxe1")
    else:
        out = ulplib.run_script(vm, "fabric", "vhca", "vhca0", "vhca1", timeout=120)
        devs = ("vhca0", "vhca1")
    words = dict(w.split("=") for w in out.split() if "=" in w)
    return Fabric(FABRIC, devs[0], devs[1], words["target"], words["host"])


@pytest.hookimpl(hookwrapper=True, tryfirst=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    setattr(item, "rep_" + report.when, report)


@pytest.fixture(autouse=True)
def clean_kernel_log(request, vm):
    """After a test that passed: no new WARNING/BUG/..., hung task or
    undocumented "not supported" fallback in the kernel log.
    After one that failed: print what the kernel said meanwhile."""
    mark = ulplib.dmesg_mark(vm)
    yield
    text = ulplib.new_dmesg(vm, mark)
    call = getattr(request.node, "rep_call", None)
    if call is not None and call.failed:
        ulplib.log("kernel log during the test", text[-12000:])
        return
    bad = ulplib.kernel_log_problems(text)
    if bad:
        ulplib.log("kernel log during the test", text[-12000:])
    assert not bad, "kernel log:\n" + "\n".join(bad[:60])
