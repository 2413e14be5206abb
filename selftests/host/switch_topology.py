"""Fabrics of many switches on the host, no VM (`make check-unit`,
scripts/run-unit.sh): the topology file's parser and generators and the
comparison with ibnetdiscover's output (tools/vhca-topology.py), then a
chain of three vhca-switch processes started from a topology file, with
this file playing the two CA ports at its ends: directed-route SMPs of
depth 1 to 4 out and back (IBA 14.2.2, hop pointer and return path at
each switch), each switch's own NodeInfo, LID-routed data forwarded by
the LFT of each switch, and a cut inter-switch link (`link N down|up`).
Documentation/fabric-topology.md.
"""
import importlib.util
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import switchlib  # noqa: E402
from switchlib import (GET_RESP, HDR, KIND_DATAGRAM, KIND_HELLO, PERMISSIVE,  # noqa: E402
                       SET, SMP, SWITCH, WQE_SEND, frame, hello_payload, port_state,
                       recv, send, smi_frame)
from switchlib import control as switchlib_control  # noqa: E402
from wirelayout import C  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
_spec = importlib.util.spec_from_file_location(
    "vhca_topology", os.path.join(REPO, "tools", "vhca-topology.py"))
topology = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(topology)

CHAIN = """
# s1 -- s2 -- s3, CA a on s1, CA b on s3
switch s1 3 0x525400ff00000011
switch s2 3 0x525400ff00000012
switch s3 3 0x525400ff00000013
cable s1:2 s2:1
cable s2:2 s3:1
hca a s1:3
hca b s3:3
"""
CA_GUID = {"a": 0x0002c90300000a01, "b": 0x0002c90300000b01}
NODE_INFO, SWITCH_INFO = C["VHCA_SMP_ATTR_NODE_INFO"], C["VHCA_SMP_ATTR_SWITCH_INFO"]
PORT_INFO, LFT = C["VHCA_SMP_ATTR_PORT_INFO"], C["VHCA_SMP_ATTR_LFT"]
PORT_DOWN, PORT_INIT = C["VHCA_PORT_DOWN"], C["VHCA_PORT_INIT"]
D_BIT = C["VHCA_SMP_DIRECTION"]


# ---- the file, the generators, ibnetdiscover --------------------------------

def test_fat_tree_generated_parses():
    topo = topology.parse_text(topology.fat_tree(spines=2, leaves=3, hcas=2))
    assert list(topo.switches) == ["spine1", "spine2", "leaf1", "leaf2", "leaf3"]
    assert [s["root"] for s in topo.switches.values()] == [True] * 2 + [False] * 3
    assert len(topo.cables) == 6
    assert topo.hcas == {"a": ("leaf1", 3), "b": ("leaf1", 4), "c": ("leaf2", 3),
                         "d": ("leaf2", 4), "e": ("leaf3", 3), "f": ("leaf3", 4)}
    assert (("leaf2", 1), ("spine1", 2)) in topo.cables


def test_ring_generated_parses():
    topo = topology.parse_text(topology.ring(switches=4, hcas=2))
    assert len(topo.switches) == 4 and len(topo.cables) == 4
    assert (("sw4", 2), ("sw1", 1)) in topo.cables
    assert topo.hcas == {"a": ("sw1", 3), "b": ("sw2", 3)}


@pytest.mark.parametrize("text,error", [
    ("switch s 4\nswitch s 4", "repeated switch"),
    ("switch s 40", "ports must be"),
    ("switch s 4\ncable s:1 t:1", "no switch 't'"),
    ("switch s 4\nswitch t 4\ncable s:5 t:1", "s has no port 5"),
    ("switch s 4\nswitch t 4\ncable s:1 t:1\nhca a s:1", "already has a cable"),
    ("switch s 4\ncable s:1 s:2", "to itself"),
    ("switch s 4\nhca a s:1\nhca a s:2", "repeated HCA"),
    ("switch s 4 0x1\nswitch t 4 0x1", "GUID 0x0000000000000001 repeated"),
    ("switch s 4\nlink s:1", "not a switch, cable or hca line"),
    ("# nothing", "no switch"),
])
def test_topology_errors_name_the_line(text, error):
    with pytest.raises(topology.TopologyError) as e:
        topology.parse_text(text, "t.topo")
    assert error in str(e.value) and "t.topo" in str(e.value)


def ibnetdiscover_of(topo, drop_cable=None):
    """ibnetdiscover's text for topo (its format: a block per node, a line
    per cabled port), without drop_cable."""
    guid = {name: sw["guid"] for name, sw in topo.switches.items()}
    ca = {vm: 0x0002c90300000001 + i for i, vm in enumerate(topo.hcas)}
    peer = {}
    for a, b in topo.cables:
        if (a, b) != drop_cable:
            peer[a], peer[b] = ('"S-%016x"[%d]' % (guid[b[0]], b[1]),
                                '"S-%016x"[%d]' % (guid[a[0]], a[1]))
    for vm, end in topo.hcas.items():
        peer[end] = '"H-%016x"[1](%x)' % (ca[vm], ca[vm])
    out = ["#\n# Topology file: generated on a test\n#"]
    for name, sw in topo.switches.items():
        out.append("vendid=0x525400\ndevid=0x0\nswitchguid=0x%x(%x)" % (sw["guid"], sw["guid"]))
        out.append('Switch\t%d "S-%016x"\t\t# "%s" base port 0 lid 3 lmc 0'
                   % (sw["ports"], sw["guid"], name))
        for port in range(1, sw["ports"] + 1):
            if (name, port) in peer:
                out.append('[%d]\t%s\t\t# "x" lid 4 4xSDR' % (port, peer[(name, port)]))
        out.append("")
    for vm, (sw, port) in topo.hcas.items():
        out.append('Ca\t1 "H-%016x"\t\t# "vhca %s"' % (ca[vm], vm))
        out.append('[1](%x) \t"S-%016x"[%d]\t\t# lid 5 lmc 0 "%s" lid 3 4xSDR'
                   % (ca[vm], guid[sw], port, sw))
        out.append("")
    return "\n".join(out)


def test_compare_with_ibnetdiscover():
    topo = topology.parse_text(topology.fat_tree())
    assert topology.compare(topo, ibnetdiscover_of(topo)) == []
    cut = (("leaf1", 2), ("spine2", 1))
    assert topology.compare(topo, ibnetdiscover_of(topo, drop_cable=cut)) == [
        "cable spine2:1 - leaf1:2 missing"]
    other = topology.parse_text(topology.fat_tree(hcas=2))
    wrong = topology.compare(other, ibnetdiscover_of(topo))
    assert "switch leaf1 has 3 ports, not 4" in wrong
    assert "no HCA at leaf2:4 (hca d)" in wrong


def test_cut_end_is_the_dialing_switch():
    topo = topology.parse_text(CHAIN)
    assert topology.cut_end(topo, "s1:2") == ("s2", 1)
    assert topology.cut_end(topo, "s3:1") == ("s3", 1)
    argv = topology.switch_argv(topo, "/d")
    assert argv["s2"][-6:] == ["--isl", "1", "--connect", "1=/d/s1/port2", "--isl", "2"]


@pytest.mark.parametrize("args,error", [
    (["--isl", "1"], "--isl needs --embedded-sm off"),
    (["--isl", "3", "--embedded-sm", "off"], "usage"),
    (["--guid", "0", "--embedded-sm", "off"], "usage"),
])
def test_switch_options_checked(args, error):
    if not os.path.exists(SWITCH):
        raise FileNotFoundError("%s missing: run `make switch`" % SWITCH)
    sockdir = tempfile.mkdtemp(prefix="vhca-topo-")
    try:
        run = subprocess.run([SWITCH, "--ports", "2", "--dir", sockdir] + args,
                             capture_output=True, timeout=10)
    finally:
        shutil.rmtree(sockdir, ignore_errors=True)
    assert run.returncode == 2 and error in run.stderr.decode(), run.stderr


# ---- three switches in a chain ------------------------------------------------

@pytest.fixture
def chain():
    """The CHAIN topology running; {"a", "b"}: the CA sockets, "dir"."""
    if not os.path.exists(SWITCH):
        raise FileNotFoundError("%s missing: run `make switch`" % SWITCH)
    sockdir = tempfile.mkdtemp(prefix="vhca-topo-")
    listen = {}
    for vm in ("a", "b"):       # the VMs' `-netdev stream,server=on`
        listen[vm] = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        listen[vm].bind(os.path.join(sockdir, "vm-%s.sock" % vm))
        listen[vm].listen(1)
        listen[vm].settimeout(10)
    procs = topology.start(topology.parse_text(CHAIN), sockdir, sockdir)
    state = {"dir": sockdir, "procs": procs}
    try:
        for vm in ("a", "b"):
            state[vm] = listen[vm].accept()[0]
            guid = CA_GUID[vm]
            send(state[vm], frame(KIND_HELLO, payload=hello_payload(guid, desc=b"ca")))
        # the inter-switch cables are in once s3 answers (each dialing
        # port tries every 200 ms, slower on a loaded host)
        deadline = time.monotonic() + 20
        for tid in range(0x7000, 0x8000):
            try:
                get(state["a"], [1, 2, 2], NODE_INFO, tid=tid, timeout=0.5)
                break
            except socket.timeout:
                assert time.monotonic() < deadline, "the chain did not come up"
        yield state
        assert all(p.poll() is None for p in procs.values())
    finally:
        topology.stop(procs)
        for name in procs:
            with open(os.path.join(sockdir, name + ".log"), errors="replace") as f:
                print("==== %s ====\n%s" % (name, f.read()))
        shutil.rmtree(sockdir, ignore_errors=True)


def dr_smp(path, attr, mod=0, method=switchlib.GET, data=b"", tid=1):
    """switchlib.dr_smp's frame; path[0], the CA's port, is 1."""
    return smi_frame(switchlib.dr_smp(path, attr, tid, mod, method, data),
                     slid=PERMISSIVE)


def smp_of(body):
    """The SMP of a frame, as a dict of its fields (fabric/vhca-mad.h)."""
    return SMP.unpack(body[HDR.size:])


def get(sock, path, attr, mod=0, method=switchlib.GET, data=b"", tid=1, timeout=5.0):
    """The answer to a DR SMP along path, as it arrives back at sock."""
    send(sock, dr_smp(path, attr, mod, method, data, tid))
    while True:
        resp = smp_of(recv(sock, timeout))
        if resp["tid"] == tid:
            return resp


def node_info(resp):
    return switchlib.NODE_INFO.unpack(resp["data"])


def test_directed_routes_of_any_depth(chain):
    """Each switch on the path fills return path[hop pointer] with its
    input port and sends the SMP on by initial path[hop pointer + 1]; the
    answer comes back by the return path, hop pointer 1 at the SM's CA."""
    a, b = chain["a"], chain["b"]
    for depth, guid, ret in ((1, 0x525400ff00000011, [3]),
                             (2, 0x525400ff00000012, [3, 1]),
                             (3, 0x525400ff00000013, [3, 1, 1])):
        path = [1, 2, 2][:depth]
        resp = get(a, path, NODE_INFO, tid=depth)
        ni = node_info(resp)
        assert resp["method"] == GET_RESP and resp["status"] & D_BIT
        assert (resp["hop_ptr"], resp["hop_cnt"]) == (1, depth), resp
        assert ni["node_type"] == C["VHCA_NODE_TYPE_SWITCH"], ni
        assert ni["node_guid"] == guid
        assert list(resp["return_path"][1:1 + depth]) == ret
        assert ni["local_port"] == ret[-1]
    # depth 4: out of s3's port 3 to CA b, which answers as the device does
    # (D set, hop pointer = hop count, its port in return path[4])
    send(a, dr_smp([1, 2, 2, 3], NODE_INFO, tid=4))
    req = smp_of(recv(b))
    assert (req["hop_ptr"], req["hop_cnt"]) == (4, 4) and \
        list(req["return_path"][1:4]) == [3, 1, 1], req
    ret = bytearray(req["return_path"])
    ret[4] = 1
    req.update(method=GET_RESP, status=D_BIT, return_path=bytes(ret))
    send(b, smi_frame(SMP.pack(**req), slid=PERMISSIVE))
    resp = smp_of(recv(a))
    assert (resp["hop_ptr"], resp["hop_cnt"]) == (1, 4) and resp["method"] == GET_RESP
    # the inter-switch ports trained (INIT), s2's port 3 has no cable
    assert port_state(get(a, [1, 2], PORT_INFO, mod=1, tid=5)["data"]) == PORT_INIT
    assert port_state(get(a, [1, 2], PORT_INFO, mod=3, tid=6)["data"]) == PORT_DOWN
    # a path out of a port with no cable goes nowhere
    send(a, dr_smp([1, 2, 3], NODE_INFO, tid=7))
    with pytest.raises(socket.timeout):
        recv(a, timeout=0.5)


def test_lid_routed_data_by_each_switch_lft(chain):
    """An SM's Sets by directed route program each switch's LFT (LID 10:
    toward a, LID 11: toward b) and bring the ports on the path ACTIVE;
    a datagram from LID 10 to LID 11 then crosses the three switches."""
    a, b = chain["a"], chain["b"]
    ud = frame(KIND_DATAGRAM, opcode=WQE_SEND, slid=10, dlid=11, sqpn=5, dqpn=7,
               payload=b"across three switches", qkey=0x1234)
    tid = 100
    for path, toward_a, toward_b in (([1], 3, 2), ([1, 2], 1, 2), ([1, 2, 2], 1, 3)):
        lft = bytearray([0xff] * 64)
        lft[10], lft[11] = toward_a, toward_b
        tid += 1
        assert get(a, path, LFT, method=SET, data=bytes(lft), tid=tid)["data"] == lft
        si = switchlib.SWITCH_INFO.pack(lft_top=11)
        tid += 1
        assert get(a, path, SWITCH_INFO, method=SET, data=si,
                   tid=tid)["status"] & ~D_BIT == 0
        for state in (C["VHCA_PORT_ARMED"], C["VHCA_PORT_ACTIVE"]):
            for port in (toward_a, toward_b):
                tid += 1
                resp = get(a, path, PORT_INFO, mod=port, method=SET,
                           data=switchlib.port_info(state), tid=tid)
                assert port_state(resp["data"]) == state, (path, port, resp)
    send(a, ud)
    assert recv(b) == ud
    # no route for LID 12 at s1: dropped there
    send(a, frame(KIND_DATAGRAM, opcode=WQE_SEND, slid=10, dlid=12, payload=b"x"))
    with pytest.raises(socket.timeout):
        recv(b, timeout=0.5)


def control(sockdir, switch, line):
    """switchlib.control of the switch named switch (its own DIR)."""
    return switchlib_control(os.path.join(sockdir, switch), line)


def test_cut_inter_switch_link(chain):
    """`link 1 down` on s2 (it dials s1's port 2) takes the link down at
    both ends until `link 1 up`: s1's port 2 DOWN, s3 out of reach."""
    a, d = chain["a"], chain["dir"]
    assert node_info(get(a, [1, 2, 2], NODE_INFO, tid=1))["node_guid"] == 0x525400ff00000013
    assert control(d, "s1", "link 2 down").startswith("error: link needs a --connect")
    assert control(d, "s2", "link 1 down") == "ok\n"
    deadline = time.monotonic() + 5
    while port_state(get(a, [1], PORT_INFO, mod=2, tid=2)["data"]) != PORT_DOWN:
        assert time.monotonic() < deadline, "s1's port 2 not DOWN"
        time.sleep(0.1)
    send(a, dr_smp([1, 2, 2], NODE_INFO, tid=3))
    with pytest.raises(socket.timeout):
        recv(a, timeout=0.5)
    time.sleep(0.5)                         # no redial while cut
    assert port_state(get(a, [1], PORT_INFO, mod=2, tid=4)["data"]) == PORT_DOWN
    assert control(d, "s2", "link 1 up") == "ok\n"
    deadline = time.monotonic() + 5
    while port_state(get(a, [1], PORT_INFO, mod=2, tid=5)["data"]) != PORT_INIT:
        assert time.monotonic() < deadline, "s1's port 2 not back in INIT"
        time.sleep(0.1)
    assert node_info(get(a, [1, 2, 2], NODE_INFO, tid=6))["node_guid"] == 0x525400ff00000013
