"""User verbs in a guest: the vhca libibverbs provider over vhca.ko verbs=1.

Not part of `make check-vm` / `make test` yet (`make check-uverbs` names
this file explicitly; pytest's test_*.py pattern never collects it, as
with kverbs.py).  Own VM, with the driver loaded with verbs=1, ib_uverbs,
and the provider of build/provider installed by
scripts/guest/install-provider.sh.

Between port 1 and port 2 of vhca0, and between vhca0 and vhca1: the
libibverbs example programs (ibverbs-utils), server in the background and
client over TCP on the guest's loopback, with data validation (-c) where
the tool has it; ibv_rc_pingpong also with completion events (-e: a
completion channel and req_notify_cq through the CQ doorbell).
"""
import os
import re
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import vmlib  # noqa: E402
from kverbs import WAIT_ACTIVE, log  # noqa: E402

MODULE = os.environ.get("VHCA_MODULE") or os.path.join(vmlib.BUILD, "vhca.ko")
PROVIDER = os.path.join(vmlib.BUILD, "provider")
DEVICES = [
    "vhca,id=vhca0,ports=2,node-guid=0x0002c90300000100",
    "vhca,id=vhca1,ports=1,node-guid=0x0002c90300000200",
]


# server args, client args: port 1 <-> port 2 of vhca0, and vhca0 <-> vhca1
PAIRS = {
    "ports": ("-d vhca0 -i 1 -g 0", "-d vhca0 -i 2 -g 0"),
    "devices": ("-d vhca0 -i 1 -g 0", "-d vhca1 -i 1 -g 0"),
}

PINGPONGS = [
    ("ibv_rc_pingpong", "-c"),
    ("ibv_rc_pingpong", "-e -n 200"),
    ("ibv_uc_pingpong", "-c"),
    ("ibv_ud_pingpong", "-c"),
    ("ibv_srq_pingpong", "-c"),
]


@pytest.fixture(scope="module")
def vm():
    for path in (MODULE, os.path.join(PROVIDER, "libvhca-rdmav34.so")):
        if not os.path.exists(path):
            raise FileNotFoundError("%s missing: run `make module provider`" % path)
    with vmlib.VM(devices=DEVICES, name="uverbs") as machine:
        machine.run("modprobe -a ib_core ib_uverbs ib_umad", timeout=120, check=True)
        machine.run("insmod %s verbs=1" % MODULE, timeout=120, check=True)
        machine.run("sh %s/scripts/guest/install-provider.sh %s" % (vmlib.REPO, PROVIDER),
                    timeout=60, check=True)
        rc, _ = machine.run(WAIT_ACTIVE, timeout=120)
        assert rc == 0, "ports not ACTIVE"
        yield machine


def test_pci_ids_and_devices(vm):
    _, out = vm.run("lspci -nn", check=True)
    log("lspci -nn", out)
    assert len(re.findall(r"\[1af4:10f0\]", out)) == 2
    _, out = vm.run("ibv_devices", check=True)
    log("ibv_devices", out)
    assert "vhca0" in out and "vhca1" in out


def test_devinfo(vm):
    _, out = vm.run("ibv_devinfo -v", timeout=60, check=True)
    log("ibv_devinfo -v", out)
    assert out.count("hca_id:\tvhca") == 2
    assert len(re.findall(r"state:\s+PORT_ACTIVE", out)) == 3
    assert "phys_port_cnt:\t\t\t2" in out


@pytest.mark.parametrize("pair", sorted(PAIRS))
@pytest.mark.parametrize("tool,args", PINGPONGS, ids=["%s %s" % p for p in PINGPONGS])
def test_pingpong(vm, tool, args, pair):
    server, client = PAIRS[pair]
    if tool == "ibv_ud_pingpong" and pair == "devices":
        # No GRH between two devices: the same path without -g.
        server, client = server.replace(" -g 0", ""), client.replace(" -g 0", "")
    script = (
        "%(tool)s %(server)s %(args)s >/tmp/pp-server.log 2>&1 & pid=$!; "
        "sleep 1.5; timeout 150 %(tool)s %(client)s %(args)s localhost "
        ">/tmp/pp-client.log 2>&1; crc=$?; "
        "timeout 30 sh -c \"while kill -0 $pid 2>/dev/null; do sleep 0.2; done\" || kill $pid; "
        "wait $pid; src=$?; echo \"server=$src client=$crc\"; "
        "cat /tmp/pp-server.log /tmp/pp-client.log"
    ) % {"tool": tool, "server": server, "client": client, "args": args}
    _, out = vm.run(script, timeout=240)
    log("%s %s (%s)" % (tool, args, pair), out)
    assert "server=0 client=0" in out, out
    iters = re.findall(r"(\d+) iters in", out)
    assert len(iters) == 2, out


def test_unload_and_clean_log(vm):
    rc, out = vm.run("lsof /dev/infiniband/uverbs* 2>/dev/null; rmmod vhca", timeout=120)
    text = vm.dmesg()
    bad = vmlib.bad_dmesg_lines(text)
    if bad:
        log("full dmesg", text)
    assert rc == 0, out
    assert not bad, "kernel log:\n" + "\n".join(bad[:60])
