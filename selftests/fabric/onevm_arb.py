"""The embedded SM and Debian's opensm on one subnet: SMInfo decides the
master (`make check-fabric`, `make check-fabric-arb`; Documentation/
fabric.md "The embedded SM beside opensm").

One guest with two vhca devices on the in-process fabric, its embedded
SM on with sm-priority=5 and a short SMInfo polling interval
(sm-poll-ms=1000, sm-poll-retries=2).  The ports come up ACTIVE under
the embedded SM (SM LID 1).  Then, in order, on vhca0's port:
opensm with a lower priority (-p 2) finds the embedded SM MASTER and
stays STANDBY (the ports keep SM LID 1, `sminfo` shows the embedded SM,
`sminfo <opensm's LID>` SMINFO_STANDBY); it is stopped.  opensm with a
higher priority (-p 10) goes STANDBY, the embedded SM finds it outranks
it and hands the subnet over (SubnSet(SMInfo) HANDOVER): opensm MASTER,
every port's SM LID opensm's, the embedded SM STANDBY, IPoIB pings and
an RC pingpong cross the switch (the two devices in network namespaces of their own).  opensm
killed (SIGKILL): the embedded SM's polls go unanswered and it takes the
subnet back: the ports stay ACTIVE with SM LID 1 again, `sminfo` shows
it MASTER, an RC pingpong (data validated) runs at once, and IPoIB pings
again at once (client reregistration: IPoIB joined its groups again at
the embedded SA and asks it its paths again with the records opensm
returned; the first echo must be answered, issue 11, fabric.md "The
master dies").  Measured times go to
build/vm-logs/fabric-onevm-arb-times.txt.  Not collected by pytest's
test_*.py pattern.
"""
import os
import re
import sys
import time

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fabriclib  # noqa: E402
import onevm_opensm  # noqa: E402

from fabriclib import TOOL, log, port_attr  # noqa: E402

vmlib = fabriclib.vmlib
OSM_LOG = "/tmp/opensm-arb.log"
NODES = {"vhca0": 0x5254000000000e00, "vhca1": 0x5254000000000f00}
ADDR = onevm_opensm.ADDR
PLAN = onevm_opensm.PLAN
ARB = "sm-priority=5,sm-poll-ms=1000,sm-poll-retries=2"
OSM_PORT = NODES["vhca0"] + 1
EMBEDDED_SM_LID = 1


def note_time(what, seconds, fmt="%.1f s"):
    """Keep a measured time in build/vm-logs/fabric-onevm-arb-times.txt."""
    log(what, fmt % seconds)
    with open(os.path.join(vmlib.BUILD, "vm-logs",
                           "fabric-onevm-arb-times.txt"), "a") as f:
        f.write("%s: %s\n" % (what, fmt % seconds))


def sm_lids(vm):
    return {dev: int(port_attr(vm, "sm_lid", dev), 16) for dev in NODES}


def wait_sm_lid(vm, lid, timeout=120):
    """Both ports ACTIVE with MasterSMLID lid."""
    return fabriclib.wait_sm_lid(vm, lid, ports=["%s/1" % dev for dev in NODES],
                                 timeout=timeout)


def start_opensm(vm, priority):
    vm.run("rm -f %s; (opensm -g 0x%016x -p %d -s 5 -f %s "
           "> /tmp/opensm-arb.out 2>&1 &)" % (OSM_LOG, OSM_PORT, priority,
                                              OSM_LOG),
           timeout=30, check=True)


def keep_opensm_log(vm, tag):
    _, osm = vm.run("cat %s" % OSM_LOG, timeout=60)
    with open(os.path.join(vmlib.BUILD, "vm-logs",
                           "fabric-onevm-arb-%s.log" % tag), "w") as f:
        f.write(osm)
    return osm


def ping(vm, timeout=150):
    rc, out = vm.run("ip netns exec nsa %s ping %s 3 20"
                     % (TOOL, ADDR["nsb"]), timeout=timeout)
    assert rc == 0 and "3 received" in out, out


def rc_pingpong(vm, tag):
    """ibv_rc_pingpong -c (every message validated) from vhca0 to vhca1
    through the switch; the two exchange their LIDs and QPNs over TCP on
    the guest's loopback, not over IPoIB."""
    fabriclib.background(vm, "ibv_rc_pingpong -d vhca1 -g 0 -c -n 50", tag)
    fabriclib.wait_listening(vm)
    crc, cout = vm.run("timeout 120 ibv_rc_pingpong -d vhca0 -g 0 -c -n 50 "
                       "localhost", timeout=150)
    src, sout = fabriclib.finish(vm, tag)
    log(tag, "server:\n%s\nclient:\n%s" % (sout, cout))
    assert (src, crc) == (0, 0), sout + cout


def sminfo(vm, lid=None):
    rc, out = vm.run("sminfo -C vhca1 %s" % (lid or ""), timeout=60)
    log("sminfo %s" % (lid or ""), out)
    assert rc == 0, out
    return out


@pytest.fixture(scope="module")
def vm():
    guest = vmlib.VM(
        devices=["vhca,id=%s,ports=1,node-guid=0x%016x,%s" % (dev, guid, ARB)
                 for dev, guid in NODES.items()],
        name="fabric-onevm-arb", smp=1, append="no_timer_check")
    guest.start()
    try:
        guest.run("modprobe -a ib_core ib_uverbs ib_umad ib_ipoib rdma_ucm",
                  timeout=120, check=True)
        guest.run("insmod %s" % fabriclib.MODULE, timeout=120, check=True)
        guest.run("sh %s/scripts/guest/install-provider.sh %s"
                  % (vmlib.REPO, fabriclib.PROVIDER), timeout=60, check=True)
        wait_sm_lid(guest, EMBEDDED_SM_LID)
        onevm_opensm.ipoib_in_namespaces(guest)
        yield guest
    finally:
        guest.run("pkill -9 -x opensm", timeout=30)
        guest.shutdown()


def test_embedded_sm_master_alone(vm):
    out = sminfo(vm)
    assert "sm lid %d " % EMBEDDED_SM_LID in out, out
    assert "priority 5 " in out and "SMINFO_MASTER" in out, out
    ping(vm)


def test_lower_priority_opensm_stays_standby(vm):
    """opensm -p 2 finds the embedded SM (priority 5) MASTER: STANDBY."""
    start_opensm(vm, 2)
    try:
        vm.wait_until("cat %s" % OSM_LOG,
                      lambda t: "Entering STANDBY state" in t, timeout=120)
        time.sleep(5)               # several of the embedded SM's looks
        assert sm_lids(vm) == {dev: EMBEDDED_SM_LID for dev in NODES}
        out = sminfo(vm)
        assert "sm lid %d " % EMBEDDED_SM_LID in out, out
        assert "SMINFO_MASTER" in out, out
        out = sminfo(vm, int(port_attr(vm, "lid", "vhca0"), 16))
        assert "SMINFO_STANDBY" in out and "priority 2 " in out, out
        ping(vm)
    finally:
        vm.run("pkill -x opensm; sleep 1", timeout=30)
        osm = keep_opensm_log(vm, "lower")
    assert "Entering MASTER state" not in osm, osm
    # its Trap 144 to the master as it entered STANDBY: repressed
    assert not fabriclib.opensm_trap_timeouts(osm), osm


def test_higher_priority_opensm_gets_the_subnet(vm):
    """opensm -p 10 outranks the embedded SM: HANDOVER, opensm MASTER."""
    t0 = time.monotonic()
    start_opensm(vm, 10)
    try:
        vm.wait_until("cat %s" % OSM_LOG,
                      lambda t: "Entering MASTER state" in t, timeout=180)
        osm_lid = int(port_attr(vm, "lid", "vhca0"), 16)
        wait_sm_lid(vm, osm_lid)
        note_time("opensm -p 10 started -> its SM LID on both ports",
                  time.monotonic() - t0)
        out = sminfo(vm)
        assert "sm lid %d " % osm_lid in out, out
        assert "priority 10 " in out and "SMINFO_MASTER" in out, out
        out = sminfo(vm, EMBEDDED_SM_LID)
        assert "SMINFO_STANDBY" in out and "priority 5 " in out, out
        ping(vm)
        rc_pingpong(vm, "arb-rc-under-opensm")
    except Exception:
        keep_opensm_log(vm, "higher")
        raise
    osm = keep_opensm_log(vm, "higher")
    assert "Entering STANDBY state" in osm, osm    # it found the master
    # its two Traps 144 to the embedded SM (entering STANDBY; a master of
    # lower priority answered its poll) were repressed by it as MASTER:
    # before issue 24 they timed out (ERR 5410, ERR 3113)
    assert not fabriclib.opensm_trap_timeouts(osm), osm


def test_opensm_killed_embedded_sm_takes_over(vm):
    """The master's VM process dies: the embedded SM's polls go
    unanswered (the kernel answers 0x000c for the QP0 nobody listens
    on), it becomes MASTER and sets every port again."""
    t0 = time.monotonic()
    vm.run("pkill -9 -x opensm", timeout=30)
    wait_sm_lid(vm, EMBEDDED_SM_LID, timeout=120)
    note_time("opensm killed -> SM LID 1 on both ports",
              time.monotonic() - t0)
    out = sminfo(vm)
    assert "sm lid %d " % EMBEDDED_SM_LID in out, out
    assert "SMINFO_MASTER" in out, out
    t1 = time.monotonic()
    rc_pingpong(vm, "arb-rc-after-takeover")        # RC through the switch
    note_time("then -> RC pingpong done", time.monotonic() - t1)
    # One echo, answered: IPoIB's first PathRecord Get after the takeover
    # carries opensm's record (NumbPath 0) and must find the path, else
    # the echo is dropped and IPoIB only recovers at the neighbour's ARP
    # probe, 5 s and more later (fixed in the SA; 1 to 2 s here after the
    # fix, 20 s for a loaded host).
    t2 = time.monotonic()
    rc, out = vm.run("ip netns exec nsa %s ping %s 1 20"
                     % (TOOL, ADDR["nsb"]), timeout=90)
    if rc != 0 or "1 received" not in out:
        _, diag = vm.run("ip -n nsa neigh; ip -n nsb neigh; "
                         "ip -n nsa -s link; ip -n nsb -s link",
                         timeout=60)
        out += diag
    note_time("then -> first IPoIB echo (one, 20 s wait)",
              time.monotonic() - t2)
    assert rc == 0 and "1 received" in out, out
    rtt = re.search(r"reply from \S+ in ([0-9.]+) ms", out)
    if rtt:
        note_time("its round trip", float(rtt.group(1)), "%.1f ms")
    ping(vm)
