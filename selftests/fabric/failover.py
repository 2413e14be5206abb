"""A master/standby pair of opensm across two VMs (`make
check-fabric-failover`, `make check-fabric-opensm`; not in `make test`:
three boots; Documentation/fabric.md "Two opensm: master and standby").

Two VMs on build/vhca-switch with `--embedded-sm off`, opensm in each:
VM a's with priority 10 first, then VM b's with priority 5.  IBA 14.4.1
decides by SMInfo (priority, then GUID): a's is MASTER, b's STANDBY, and
b's polls a's by directed-route SMInfo Get through the switch (which
reaches a's opensm through the driver's process_mad, IBA 14.2.2.2).  Then a's QEMU is killed
(SIGKILL, by its pid): b's opensm misses its polls (an opensm.conf with a
1 s sminfo_polling_timeout and 2 retries keeps this short), becomes
MASTER, sweeps, makes itself b's SM (SM_CHANGE) and, being a new master,
sets ClientReregister in b's PortInfo (IBA 14.4.11): the driver raises
IB_EVENT_CLIENT_REREGISTER and IPoIB joins its broadcast group at the
new master's SA at once.  Last VM a boots again with its opensm at
priority 10: it finds b's MASTER of lower priority, which hands the
subnet over (HANDOVER / ACKNOWLEDGE, IBA 14.4.1.3): a MASTER, b STANDBY
again, and IPoIB pings across.
"""
import ipaddress
import os
import re
import sys
import time

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fabriclib  # noqa: E402

from fabriclib import ADDR, TOOL, log, port_attr, without_syslog  # noqa: E402

OSM_LOG = "/tmp/opensm.log"
PORTS = ["vhca0/1"]         # each VM's port (fabriclib.boot)
OSM_CONF = "/tmp/opensm.conf"
PRIORITY = {"a": 10, "b": 5}
# opensm's defaults (10 s, 4 retries) would take 40 s to see a master gone.
POLLING = ("sminfo_polling_timeout 1000\npolling_retry_number 2\n"
           "force_log_flush TRUE\n")
TAKEOVER_LIMIT = 60         # s: detection ~3 s, plus a loaded host's sweep


def lid(vm):
    return int(port_attr(vm, "lid"), 16)


def guid(name):
    return "0x%016x" % (fabriclib.NODES[name] + 1)


def start_opensm(vm, name):
    """opensm on vm's port with name's priority, its log in OSM_LOG."""
    vm.run("printf '%s' > %s && rm -f %s && (opensm -g %s -p %d -s 5 -F %s "
           "-f %s > /tmp/opensm.out 2>&1 &)"
           % (POLLING, OSM_CONF, OSM_LOG, guid(name), PRIORITY[name],
              OSM_CONF, OSM_LOG), timeout=30, check=True)


def wait_active(vm, name):
    rc, _ = vm.run(fabriclib.WAIT_ACTIVE.replace("300", "900"), timeout=240)
    if rc:
        _, osm = vm.run("tail -50 %s" % OSM_LOG, timeout=30)
        log("%s opensm.log" % name, osm)
        raise AssertionError("%s: port not ACTIVE under opensm" % name)


def sminfo(vm, target_lid=None):
    """(state name, GUID, priority) of the SM at target_lid (default: the
    port's master SM)."""
    rc, out = vm.run("sminfo %s" % (target_lid or ""), timeout=60)
    log("sminfo %s" % (target_lid or ""), out)
    m = re.search(r"sm guid (0x[0-9a-f]+), activity count \d+ priority (\d+) "
                  r"state \d+ (SMINFO_\w+)", out)
    assert rc == 0 and m, out
    return m.group(3), m.group(1), int(m.group(2))


def keep_log(vm, name, tag):
    _, osm = vm.run("cat %s" % OSM_LOG, timeout=60)
    with open(os.path.join(fabriclib.vmlib.BUILD, "vm-logs",
                           "%s-opensm-%s.log" % (tag, name)), "w") as f:
        f.write(osm)


@pytest.fixture(scope="module")
def fabric():
    with fabriclib.two_vms(embedded_sm=False, tag="fabric-fo") as state:
        vms = state["vms"]
        try:
            start_opensm(vms["a"], "a")
            wait_active(vms["a"], "a")
            start_opensm(vms["b"], "b")
            wait_active(vms["b"], "b")
            for name, vm in vms.items():
                fabriclib.ipoib_up(vm, name)
            yield state
        finally:
            for name, vm in vms.items():
                if vm.proc and vm.proc.poll() is None:
                    keep_log(vm, name, state["tag"])


def test_one_master_one_standby(fabric):
    a, b = fabric["vms"]["a"], fabric["vms"]["b"]
    # b's opensm must have come up, seen a's MASTER and gone STANDBY
    b.wait_until("cat %s" % OSM_LOG, lambda t: "Entering STANDBY state" in t,
                 timeout=120)
    assert sminfo(b) == ("SMINFO_MASTER", guid("a"), 10)
    assert sminfo(a, lid(b)) == ("SMINFO_STANDBY", guid("b"), 5)
    for vm in (a, b):
        assert int(port_attr(vm, "sm_lid"), 16) == lid(a)
    _, out = a.run("grep -c 'Entering MASTER state' %s" % OSM_LOG, timeout=30)
    assert int(without_syslog(out)) >= 1, out
    _, out = b.run("grep -c 'Entering MASTER state' %s" % OSM_LOG, timeout=30)
    assert int(without_syslog(out)) == 0, out


def test_standby_takes_over_when_the_master_dies(fabric):
    a, b = fabric["vms"]["a"], fabric["vms"]["b"]
    lid_b = lid(b)
    b.run("dmesg -C", timeout=30)
    t0 = time.monotonic()
    a.kill()
    try:
        fabriclib.wait_sm_lid(b, lid_b, ports=PORTS, timeout=TAKEOVER_LIMIT)
    except fabriclib.vmlib.VMTimeout:
        _, osm = b.run("tail -40 %s; dmesg | tail -30" % OSM_LOG, timeout=60)
        log("b after a was killed", osm)
        raise
    took = time.monotonic() - t0
    log("takeover", "b's port has SM LID %d %.1f s after a was killed"
        % (lid_b, took))
    with open(os.path.join(fabriclib.vmlib.BUILD, "vm-logs",
                           fabric["tag"] + "-takeover.txt"), "w") as f:
        f.write("standby's port has its SM LID %.1f s after the master's "
                "QEMU was killed\n" % took)
    assert port_attr(b, "state").startswith("4: ACTIVE")
    assert sminfo(b) == ("SMINFO_MASTER", guid("b"), 5)
    _, out = b.run("grep -E 'Entering (MASTER|DISCOVERING) state' %s"
                   % OSM_LOG, timeout=30)
    log("b's opensm states", out)
    assert "Entering MASTER state" in out, out


def test_client_reregister_rejoins_ipoib_multicast(fabric):
    """The new master's ClientReregister (IBA 14.4.11): b's driver raises
    CLIENT_REREGISTER and IPoIB joins its broadcast group at b's opensm
    without waiting for any other event."""
    b = fabric["vms"]["b"]
    _, out = b.run("dmesg | grep -E 'port 1: (SM_CHANGE|CLIENT_REREGISTER)'",
                   timeout=30)
    log("b's port events", out)
    assert "CLIENT_REREGISTER" in out, out
    # opensm shows no PortGID to an untrusted requester: b's own groups
    # say it joined, the broadcast group and the solicited-node group of
    # its link-local address (only b's GUID gives that MGID)
    solicited = str(ipaddress.IPv6Address(
        int("ff12601bffff000000000001ff", 16) << 24 |
        (fabriclib.NODES["b"] + 1) & 0xffffff))
    groups = ("ff12:401b:ffff::ffff:ffff", solicited)
    try:
        out = b.wait_until("saquery -m",
                           lambda t: all(g in t for g in groups), timeout=60)
    except fabriclib.vmlib.VMTimeout as e:
        _, more = b.run("ip maddr show; dmesg | tail -20; tail -30 %s"
                        % OSM_LOG, timeout=60)
        log("saquery -m (b's opensm) without b", "%s\n%s" % (e.output, more))
        raise
    log("saquery -m (b's opensm)", out)


def test_new_master_answers_sa_queries(fabric):
    b = fabric["vms"]["b"]
    lid_b = lid(b)
    rc, out = b.run("saquery -p --slid %d --dlid %d" % (lid_b, lid_b),
                    timeout=60)
    log("saquery -p", out)
    assert rc == 0 and re.search(r"dlid\.+%d$" % lid_b, out, re.M), out
    rc, out = b.run("saquery", timeout=60)
    assert rc == 0 and "%016x" % fabriclib.NODES["b"] in out, out


def test_master_vm_returns_and_takes_over_by_handover(fabric):
    """VM a boots again on the same cable: its opensm (priority 10) finds
    b's MASTER (priority 5), goes STANDBY, and b hands over (14.4.1.3)."""
    b = fabric["vms"]["b"]
    sock = os.path.join(fabric["sockdir"], "vm-a.sock")
    if os.path.exists(sock):
        os.unlink(sock)         # the killed QEMU's; the new one listens again
    a = fabriclib.boot("a", fabric["sockdir"], wait_active=False,
                       tag=fabric["tag"] + "-again")
    fabric["vms"]["a"] = a
    start_opensm(a, "a")
    wait_active(a, "a")
    b.wait_until("cat %s" % OSM_LOG, lambda t: "Entering STANDBY state" in t,
                 timeout=120)
    lid_a = lid(a)
    for vm in (a, b):
        fabriclib.wait_sm_lid(vm, lid_a, ports=PORTS, timeout=60)
    assert sminfo(b) == ("SMINFO_MASTER", guid("a"), 10)
    assert sminfo(a, lid(b)) == ("SMINFO_STANDBY", guid("b"), 5)
    _, out = b.run("grep -iE 'handover|Entering' %s" % OSM_LOG, timeout=30)
    log("b's opensm after a returned", out)
    fabriclib.ipoib_up(a, "a")
    rc, out = a.run("%s ping %s 3 10" % (TOOL, ADDR["b"]), timeout=120)
    assert rc == 0 and "3 received" in out, out


# The polls of b's standby to a's dead master time out: ERR 5411 (a DR SMP
# timed out) with ERR 3113/3120 naming SMInfo.  Nothing else is allowed.
DEAD_MASTER_POLL = re.compile(r"ERR 5411:|ERR 31(13|20): .*SMInfo")


def test_opensm_logs_have_no_other_errors(fabric):
    for name, vm in fabric["vms"].items():
        _, out = vm.run("grep -E ' ERR [0-9A-F]{4}:' %s || true" % OSM_LOG,
                        timeout=60)
        log("%s opensm ERR lines" % name, out)
        errors = [line for line in without_syslog(out).splitlines()
                  if not (name == "b" and DEAD_MASTER_POLL.search(line))]
        assert not errors, out
