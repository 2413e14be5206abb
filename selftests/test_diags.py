"""infiniband-diags against the fabric's embedded SM and the ports' SMAs.

saquery talks to the SA (QP1 of SM LID 1: ClassPortInfo Get, NodeRecord,
PortInfoRecord and PathRecord GetTable answered with RMPP), smpquery to a
port's own SMA (QP0), ibstat reads the ports through umad.  The tests share
the session VM, with vhca.ko's verbs (the default) and ib_umad loaded.
"""
import re

import pytest

from conftest import DEVICES

PORTS = sum(d["ports"] for d in DEVICES.values())


@pytest.fixture(scope="module")
def lids(vm):
    """{(device, port): LID} once every port is ACTIVE."""
    cmd = ("for p in /sys/class/infiniband/*/ports/*; do d=${p%/ports/*}; "
           "echo ${d##*/} ${p##*/} $(cat $p/lid) $(cat $p/state); done")
    out = vm.wait_until(cmd, lambda t: t.count("ACTIVE") == PORTS, timeout=60)
    result = {}
    for line in out.splitlines():
        dev, port, lid = line.split()[:3]
        result[(dev, int(port))] = int(lid, 16)
    return result


def records(text, kind):
    """saquery's dumps of one kind, each a {field: value} dict."""
    out = []
    for block in text.split("%s dump:" % kind)[1:]:
        fields = {}
        for line in block.splitlines():
            m = re.match(r"\s+(\S+?)\.{2,}(.*)$", line)
            if m:
                fields[m.group(1)] = m.group(2).strip()
        out.append(fields)
    return out


def test_saquery_class_port_info(vm, lids):
    rc, out = vm.run("saquery -c", timeout=60, check=True)
    assert re.search(r"Base version\.+1\b", out), out
    assert re.search(r"Class version\.+2\b", out), out
    assert re.search(r"Capability mask\.+0x0200", out), out


def test_saquery_node_records_one_per_port(vm, lids):
    rc, out = vm.run("saquery", timeout=60, check=True)
    nodes = records(out, "NodeRecord")
    assert sorted(int(n["lid"]) for n in nodes) == sorted(lids.values()), out
    guids = {n["node_guid"] for n in nodes}
    assert guids == {"0x%016x" % d["node_guid"] for d in DEVICES.values()}, out
    assert all(n["node_type"] == "Channel Adapter" for n in nodes), out
    # Selected by LID (the NodeRecord's component 0).
    lid = lids[("vhca1", 1)]
    rc, out = vm.run("saquery %d" % lid, timeout=60, check=True)
    nodes = records(out, "NodeRecord")
    assert [int(n["lid"]) for n in nodes] == [lid], out


def test_saquery_portinfo_records(vm, lids):
    rc, out = vm.run("saquery PIR", timeout=60, check=True)
    ports = records(out, "PortInfoRecord")
    endport_lids = [int(v) for p in ports for k, v in p.items()
                    if k.lower() == "endportlid"]
    assert sorted(endport_lids) == sorted(lids.values()), out


def test_saquery_path_records_every_pair_multi_segment(vm, lids):
    # 3 x 3 paths of 64 bytes: 576 bytes, a three-segment RMPP answer.
    rc, out = vm.run("saquery -p", timeout=60, check=True)
    paths = records(out, "PathRecord")
    pairs = {(int(p["slid"]), int(p["dlid"])) for p in paths}
    assert len(paths) == PORTS * PORTS, out
    assert pairs == {(s, d) for s in lids.values() for d in lids.values()}, out
    assert all(p["pkey"] == "0xFFFF" and p["mtu"] == "0x85" and
               p["rate"] == "0x87" for p in paths), out


def test_saquery_path_record_between_two_ports(vm, lids):
    src, dst = lids[("vhca0", 1)], lids[("vhca1", 1)]
    rc, out = vm.run("saquery -p --src-to-dst %d:%d" % (src, dst), timeout=60,
                     check=True)
    paths = records(out, "PathRecord")
    assert len(paths) == 1, out
    assert (int(paths[0]["slid"]), int(paths[0]["dlid"])) == (src, dst)
    assert paths[0]["sgid"] == "fe80::5254:0:0:101", out
    assert paths[0]["dgid"] == "fe80::5254:0:0:201", out


def test_smpquery_nodeinfo_of_own_port(vm, lids):
    lid = lids[("vhca1", 1)]
    rc, out = vm.run("smpquery -C vhca1 -P 1 nodeinfo %d" % lid, timeout=60,
                     check=True)
    assert re.search(r"\bGuid:\.*0x5254000000000200", out), out
    assert re.search(r"NodeType:\.*Channel Adapter", out), out


def test_ibstat_ports_active_with_sm_lid_1(vm, lids):
    rc, out = vm.run("ibstat", timeout=60, check=True)
    assert out.count("State: Active") == PORTS, out
    assert out.count("SM lid: 1") == PORTS, out
    assert out.count("Link layer: InfiniBand") == PORTS, out


# ---- the switch, through SMPs (fabric/vhca-switch-sma.c) ----------------

SWITCH_PORTS = PORTS        # one switch port per CA port of the fabric


def test_smpquery_switch_by_directed_route(vm, lids):
    rc, out = vm.run("smpquery -C vhca0 -P 1 -D nodeinfo 0,1", timeout=60,
                     check=True)
    assert re.search(r"NodeType:\.*Switch", out), out
    assert re.search(r"NumPorts:\.*%d\b" % SWITCH_PORTS, out), out
    rc, out = vm.run("smpquery -C vhca0 -P 1 -D nodedesc 0,1", timeout=60,
                     check=True)
    assert "vhca switch default" in out, out


def test_smpquery_through_the_switch_to_another_ca(vm, lids):
    """Directed route 0,1,N: out of vhca0 port 1, out of switch port N, to
    whichever CA port is cabled there; the route back is the one it came."""
    guids = set()
    for n in range(1, SWITCH_PORTS + 1):
        rc, out = vm.run("smpquery -C vhca0 -P 1 -D nodeinfo 0,1,%d" % n,
                         timeout=60, check=True)
        assert re.search(r"NodeType:\.*Channel Adapter", out), out
        guids.add(re.search(r"PortGuid:\.*(0x[0-9a-f]+)", out).group(1))
    assert guids == {"0x%016x" % (d["node_guid"] + p)
                     for d in DEVICES.values()
                     for p in range(1, d["ports"] + 1)}, guids


def test_smp_to_the_sm_lid_and_sminfo(vm, lids):
    rc, out = vm.run("smpquery nodeinfo 1", timeout=60, check=True)
    assert re.search(r"NodeType:\.*Switch", out), out
    rc, out = vm.run("sminfo", timeout=60, check=True)
    assert "sm lid 1" in out and "SMINFO_MASTER" in out, out


def test_smpquery_nodeinfo_of_another_port_by_lid(vm, lids):
    lid = lids[("vhca1", 1)]
    rc, out = vm.run("smpquery -C vhca0 -P 1 nodeinfo %d" % lid, timeout=60,
                     check=True)
    assert re.search(r"\bGuid:\.*0x5254000000000200", out), out


def test_ibnetdiscover_finds_every_ca_port_and_the_switch(vm, lids):
    rc, out = vm.run("ibnetdiscover", timeout=120, check=True)
    assert len(re.findall(r"^Switch\s+%d " % SWITCH_PORTS, out, re.M)) == 1, out
    assert len(re.findall(r"^Ca\s", out, re.M)) == len(DEVICES), out
    for (dev, port), lid in lids.items():
        guid = DEVICES[dev]["node_guid"] + port
        assert re.search(r"\(%x\)\s.*# lid %d " % (guid, lid), out), out


def test_ibroute_and_ibtracert_follow_the_switch_table(vm, lids):
    rc, out = vm.run("ibroute 1", timeout=60, check=True)
    for lid in lids.values():
        assert re.search(r"^0x%04x \d{3} : \(Channel Adapter" % lid, out,
                         re.M), out
    src, dst = lids[("vhca0", 1)], lids[("vhca1", 1)]
    rc, out = vm.run("ibtracert %d %d" % (src, dst), timeout=60, check=True)
    assert "switch port" in out and "To ca" in out, out
    rc, out = vm.run("iblinkinfo", timeout=60, check=True)
    assert out.count("Active/  LinkUp") >= 2 * SWITCH_PORTS, out
