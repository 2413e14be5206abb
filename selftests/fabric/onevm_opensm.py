"""Debian's opensm manages the in-process fabric of one VM
(`make check-fabric`, `make check-fabric-opensm`).

One guest with two vhca devices on the default in-process fabric, both
with `embedded-sm=off`: the fabric's switch has no SM and no SA, so the
ports come up LinkUp/INIT with no LID.  opensm, run in the guest on
vhca0's port, sweeps the fabric by directed-route SMPs (its port, the
switch at hop 1, vhca1 at hop 2), gives the LIDs, programs the switch's
forwarding tables and brings both ports ACTIVE; its SA then answers
ib_sa (IPoIB's joins, rdma_cm's path records) of both devices.  Checked
from vhca1: sminfo, ibnetdiscover (one switch, two CAs), saquery; IPoIB
pings between the two devices (each in a network namespace of its own,
so the packets cross the switch by opensm's LFT and MFT), rping -V over
rdma_cm; vhca1's cable pulled and put back from QMP comes back ACTIVE
though opensm runs with no periodic sweep (-s 0): the switch's Trap 128
made it sweep; vhca1's issm opened and closed (its CapabilityMask
changes): Trap 144 reaches opensm (after the check that opensm's log
has no ERR line: an IsSM port with no SM behind it makes opensm's SMInfo
Get time out).  Not collected by pytest's
test_*.py pattern.
"""
import os
import re
import sys
import time

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fabriclib  # noqa: E402

from fabriclib import TOOL, log, port_attr  # noqa: E402

vmlib = fabriclib.vmlib
OSM_LOG = "/tmp/opensm.log"
# opensm masks each SL's VL to the port's operational VLs (VL0 here) but
# keeps VL15 (drop): SL15 to VL15 shows that its QoS manager wrote the
# tables, the others stay VL0.
QOS_CONF = "/tmp/opensm-qos.conf"
QOS_CONF_TEXT = "qos TRUE\\nqos_sl2vl 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15\\n"
NODES = {"vhca0": 0x5254000000000c00, "vhca1": 0x5254000000000d00}
ADDR = {"nsa": "10.79.0.1", "nsb": "10.79.0.2"}
PLAN = (("nsa", "vhca0"), ("nsb", "vhca1"))


def boot():
    vm = vmlib.VM(
        devices=["vhca,id=%s,ports=1,node-guid=0x%016x,embedded-sm=off"
                 % (dev, guid) for dev, guid in NODES.items()],
        name="fabric-onevm-osm", smp=1, append="no_timer_check")
    vm.start()
    vm.run("modprobe -a ib_core ib_uverbs ib_umad ib_ipoib rdma_ucm",
           timeout=120, check=True)
    vm.run("insmod %s" % fabriclib.MODULE, timeout=120, check=True)
    vm.run("sh %s/scripts/guest/install-provider.sh %s"
           % (vmlib.REPO, fabriclib.PROVIDER), timeout=60, check=True)
    return vm


def ipoib_in_namespaces(vm):
    """Each device's IPoIB interface in a namespace of its own."""
    for ns, dev in PLAN:
        _, ifname = vm.run("ls /sys/class/infiniband/%s/device/net/" % dev,
                           timeout=30, check=True)
        vm.run("ip netns add {ns} && ip link set {i} netns {ns} && "
               "ip -n {ns} link set lo up && "
               "ip -n {ns} addr add {a}/24 dev {i} && "
               "ip -n {ns} link set {i} up".format(ns=ns, i=ifname.split()[0],
                                                   a=ADDR[ns]),
               timeout=60, check=True)


@pytest.fixture(scope="module")
def fabric():
    vm = boot()
    try:
        before = {dev: (port_attr(vm, "state", dev), port_attr(vm, "lid", dev))
                  for dev in NODES}
        # -s 0: no periodic sweep; only its first sweep and the switch's
        # traps make opensm look at the fabric.  -Q: its QoS manager
        # programs every port's SLtoVL table from QOS_CONF.
        vm.run("printf '%s' > %s; rm -f %s; (opensm -g 0x%016x -s 0 -Q "
               "-F %s -f %s > /tmp/opensm.out 2>&1 &)"
               % (QOS_CONF_TEXT, QOS_CONF, OSM_LOG, NODES["vhca0"] + 1,
                  QOS_CONF, OSM_LOG),
               timeout=30, check=True)
        try:
            for dev in NODES:
                rc, _ = vm.run(fabriclib.WAIT_ACTIVE.replace("300", "900")
                               .replace("vhca0", dev), timeout=240)
                if rc:
                    _, osm = vm.run("tail -50 %s" % OSM_LOG, timeout=30)
                    log("opensm.log", osm)
                    raise AssertionError("%s: not ACTIVE under opensm" % dev)
            ipoib_in_namespaces(vm)
            yield {"vm": vm, "before": before}
        finally:
            vm.run("pkill -x opensm", timeout=30)
            _, osm = vm.run("cat %s" % OSM_LOG, timeout=60)
            with open(os.path.join(vmlib.BUILD, "vm-logs",
                                   "fabric-onevm-osm-opensm.log"), "w") as f:
                f.write(osm)
    finally:
        vm.shutdown()


def test_ports_wait_in_init_without_an_sm(fabric):
    for dev, (state, lid) in fabric["before"].items():
        assert state.startswith("2: INIT"), (dev, state)
        assert int(lid, 16) == 0, (dev, lid)


def test_ports_active_with_opensm_lids(fabric):
    vm = fabric["vm"]
    lids = {dev: int(port_attr(vm, "lid", dev), 16) for dev in NODES}
    assert all(lids.values()) and lids["vhca0"] != lids["vhca1"], lids
    for dev in NODES:
        assert port_attr(vm, "state", dev).startswith("4: ACTIVE")
        assert int(port_attr(vm, "sm_lid", dev), 16) == lids["vhca0"]


def test_sminfo_shows_opensm(fabric):
    vm = fabric["vm"]
    lid = int(port_attr(vm, "lid", "vhca0"), 16)
    rc, out = vm.run("sminfo -C vhca1", timeout=60)
    log("sminfo", out)
    assert rc == 0 and "sm lid %d " % lid in out, out
    assert "0x%016x" % (NODES["vhca0"] + 1) in out and "SMINFO_MASTER" in out


def test_ibnetdiscover_sees_the_switch_and_both_cas(fabric):
    rc, out = fabric["vm"].run("ibnetdiscover -C vhca1", timeout=120)
    log("ibnetdiscover", out)
    assert rc == 0, out
    assert len(re.findall(r"^Switch\s", out, re.M)) == 1, out
    assert len(re.findall(r"^Ca\s", out, re.M)) == 2, out


def test_saquery_answered_by_opensm(fabric):
    vm = fabric["vm"]
    rc, out = vm.run("saquery -C vhca1", timeout=60)
    log("saquery", out)
    assert rc == 0, out
    for node in NODES.values():
        assert "%016x" % node in out, out
    rc, out = vm.run("saquery -C vhca1 -p --slid %s --dlid %s" %
                     (int(port_attr(vm, "lid", "vhca1"), 16),
                      int(port_attr(vm, "lid", "vhca0"), 16)), timeout=60)
    log("saquery -p", out)
    assert rc == 0 and "PathRecord" in out, out


def sl2vl_rows(out):
    """The table rows of `smpquery sl2vl`: 16 VLs, SL 0 first."""
    return [[int(v) for v in re.findall(r"\d+", row)]
            for row in re.findall(r"^ports:.*?:((?:\s*\|\s*\d+)+)", out, re.M)]


def test_sl_to_vl_programmed_by_opensm(fabric):
    """IBA 14.2.5.8: opensm's QoS manager (-Q, QOS_CONF) wrote the
    SLtoVL table of vhca1's port (it advertises IsSLMappingSupported) and
    of the switch's port to it; smpquery reads them back."""
    vm = fabric["vm"]
    want = [0] * 15 + [15]
    lid = int(port_attr(vm, "lid", "vhca1"), 16)
    rc, out = vm.run("smpquery -C vhca1 sl2vl %d" % lid, timeout=60)
    log("smpquery sl2vl (vhca1)", out)
    assert rc == 0 and sl2vl_rows(out) == [want], out
    rc, out = vm.run("smpquery -C vhca1 -D sl2vl 0,1 2", timeout=60)
    log("smpquery sl2vl (switch, every input port to port 2)", out)
    rows = sl2vl_rows(out)
    assert rc == 0 and rows and all(r == want for r in rows), out


def test_ipoib_ping_across_the_switch(fabric):
    vm = fabric["vm"]
    rc, out = vm.run("ip netns exec nsa %s ping %s 3 10" % (TOOL, ADDR["nsb"]),
                     timeout=120)
    assert rc == 0 and "3 received" in out, out


def test_rping_verified_with_opensm_paths(fabric):
    vm = fabric["vm"]
    fabriclib.background(vm, "ip netns exec nsb rping -s -a %s -C 20 -V"
                         % ADDR["nsb"], "onevm-rping")
    vm.run("for i in $(seq 1 100); do rdma res show cm_id | grep -q LISTEN "
           "&& break; sleep 0.2; done", timeout=60)
    crc, cout = vm.run("ip netns exec nsa timeout 120 rping -c -a %s -C 20 -V"
                       % ADDR["nsb"], timeout=150)
    src, sout = fabriclib.finish(vm, "onevm-rping")
    log("rping", "server:\n%s\nclient:\n%s" % (sout, cout))
    assert (crc, src) == (0, 0), sout + cout


def test_link_flap_back_by_trap_128(fabric):
    """IBA 14.2.5.1: the cable of vhca1 pulled and put back (QMP); the
    switch's Trap 128 makes opensm sweep and bring the port back ACTIVE,
    with no periodic sweep to do it; IPoIB pings again."""
    vm = fabric["vm"]
    state = "cat /sys/class/infiniband/vhca1/ports/1/state"
    vm.qmp("qom-set", path="vhca1", property="port1-link", value=False)
    vm.wait_until(state, lambda t: "DOWN" in t, timeout=30)
    t0 = time.monotonic()
    vm.qmp("qom-set", path="vhca1", property="port1-link", value=True)
    vm.wait_until(state, lambda t: "ACTIVE" in t, timeout=30)
    log("back ACTIVE after", "%.1f s" % (time.monotonic() - t0))
    _, out = vm.run("grep -c 'num:128' %s" % OSM_LOG, timeout=30)
    assert vmlib.guest_int(out) >= 1, out
    rc, out = vm.run("ip netns exec nsa %s ping %s 3 20" % (TOOL, ADDR["nsb"]),
                     timeout=150)
    assert rc == 0 and "3 received" in out, out


def test_opensm_log_has_no_errors(fabric):
    _, out = fabric["vm"].run("grep -E ' ERR [0-9A-F]{4}:' %s || true"
                              % OSM_LOG, timeout=60)
    log("opensm ERR lines", out)
    assert not out.strip(), out
    # among them ERR 5410/3113: a Trap of opensm's never repressed (issue
    # 24; here opensm is the only SM and sends none, onevm_arb.py and
    # twovm_arb.py have an embedded SM for it to trap to)
    _, whole = fabric["vm"].run("cat %s" % OSM_LOG, timeout=60)
    assert not fabriclib.opensm_trap_timeouts(whole), whole


def test_cap_mask_change_trap_144(fabric):
    """IBA 14.2.5.1: vhca1's issm opened (ib_umad sets IsSM in its
    CapabilityMask, as a second SM starting does) and closed: its SMA
    sends Trap 144 to opensm each time.  Last: with IsSM set and no SM
    behind the port, opensm's SMInfo Get to it times out (ERR 3120), as
    on hardware; the ERR check above has run."""
    vm = fabric["vm"]
    _, issm = vm.run("for d in /sys/class/infiniband_mad/issm*; do "
                     "[ $(cat $d/ibdev) = vhca1 ] && basename $d; done",
                     timeout=30, check=True)
    vm.run("python3 -c \"import time; f = open('/dev/infiniband/%s', 'rb'); "
           "time.sleep(2)\"" % issm.strip(), timeout=60, check=True)
    out = vm.wait_until("grep -c 'num:144' %s" % OSM_LOG,
                        lambda t: vmlib.guest_int(t) >= 2, timeout=30)
    log("trap 144 lines", out)
