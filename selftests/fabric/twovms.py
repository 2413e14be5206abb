"""Two VMs on one fabric through the standalone switch (`make check-fabric`).

build/vhca-switch (tools/vhca-switch.c) runs on the host with two unix
socket ports; two guests (one vCPU each) have one vhca port each, cabled
to a switch port through `-netdev stream` and the device's port1-netdev
property (Documentation/fabric.md).  The switch's SM gives the ports their
LIDs; its SA answers IPoIB's joins and path queries.  Across the VMs:
IPoIB (ping and a TCP stream with the same SHA-256 at both ends), the
libibverbs RC pingpong with data validation, perftest (SEND, WRITE, READ,
atomics), rping with verification over rdma_cm, ucmatose, udaddy, NVMe
over RDMA (twovm_ulp.nvme_connect_fio_verify), and last a VM killed
(QEMU SIGKILLed) while RC traffic runs: the peer's QP ends with a
retry-exceeded completion, the switch sees the link go down and nothing
hangs.  Not collected by pytest's test_*.py pattern: make check-fabric
names this file (scripts/run-fabric.sh).
"""
import os
import re
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import time

import pytest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import fabriclib  # noqa: E402
import twovm_ulp  # noqa: E402

from fabriclib import (ADDR, SWITCH, TCP_BYTES, TOOL, background,  # noqa: E402
                       finish, log, pair, pair_ok, start_switch)


@pytest.fixture(scope="module")
def fabric():
    with fabriclib.two_vms() as state:
        yield state


# ---- the switch alone, on the host (no VM) ----------------------------------

HDR = struct.Struct("<IBBBBHHIIIIIIIIIIIQQQQBBBBBBHII16s")
HELLO = struct.Struct("<QQQIIIHBB64s")
KIND_HELLO, KIND_LINK, KIND_DATAGRAM = 1, 2, 5
WIRE_VERSION = 2               # qemu-device/vhca-wire.h VHCA_WIRE_VERSION


def frame(kind, opcode=0, slid=0, dlid=0, sqpn=0, dqpn=0, payload=b"",
          qkey=0, qp_type=3, length=None):
    length = len(payload) if length is None else length
    return HDR.pack(0x56484346, WIRE_VERSION, kind, opcode, 0, slid, dlid, sqpn, dqpn, 0,
                    1, length, len(payload), 0, 0, qkey, 0, 0, 0, 0, 0, 0,
                    0, 0, 0, qp_type, 0, 0, 0, 0, 0, b"\0" * 16) + payload


def send(sock, data):
    sock.sendall(struct.pack(">I", len(data)) + data)


def recv(sock, timeout=5.0):
    sock.settimeout(timeout)
    head = b""
    while len(head) < 4:
        chunk = sock.recv(4 - len(head))
        assert chunk, "switch closed the connection"
        head += chunk
    n = struct.unpack(">I", head)[0]
    body = b""
    while len(body) < n:
        body += sock.recv(n - len(body))
    return body


def hello(sock, guid):
    send(sock, frame(KIND_HELLO, payload=HELLO.pack(
        guid - 1, guid - 1, guid, 0x525400, 0, 0, 0x10f0, 1, 1, b"host test")))
    link = HDR.unpack(recv(sock)[:HDR.size])
    assert link[2] == KIND_LINK and link[3] == 4 and link[5] == 1, link
    return link[6]          # the LID the SM gave


def connect_unix(path, deadline):
    """A connection to the switch's socket at path: the file exists from
    bind(), a moment before listen(), so a refused connect is retried."""
    while True:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            s.connect(path)
            return s
        except ConnectionRefusedError:
            s.close()
            assert time.monotonic() < deadline, "switch did not listen on " + path
            time.sleep(0.05)


@pytest.fixture(params=[[]], ids=["sm"])
def lone_switch(request):
    """The switch with two unix socket ports; request.param: more options."""
    if not os.path.exists(SWITCH):
        raise FileNotFoundError("%s missing: run `make switch`" % SWITCH)
    sockdir = tempfile.mkdtemp(prefix="vhca-switch-")
    proc = subprocess.Popen([SWITCH, "--ports", "2", "--dir", sockdir] + request.param,
                            stderr=subprocess.PIPE)
    socks = []
    try:
        deadline = time.monotonic() + 10
        while not os.path.exists(os.path.join(sockdir, "port2")):
            assert time.monotonic() < deadline, "switch did not start"
            time.sleep(0.05)
        for i in (1, 2):
            socks.append(connect_unix(os.path.join(sockdir, "port%d" % i), deadline))
        yield proc, socks, sockdir
    finally:
        for s in socks:
            s.close()
        proc.terminate()
        proc.wait(timeout=10)
        shutil.rmtree(sockdir, ignore_errors=True)


def test_switch_assigns_lids_and_forwards_by_dlid(lone_switch):
    proc, (p1, p2), _ = lone_switch
    lid1, lid2 = hello(p1, 0x5254000000000a01), hello(p2, 0x5254000000000b01)
    assert lid1 != lid2 and 0 < lid1 < 0xc000 and 0 < lid2 < 0xc000
    # A UD datagram from port 1's LID to port 2's arrives unchanged.
    ud = frame(KIND_DATAGRAM, opcode=2, slid=lid1, dlid=lid2, sqpn=5, dqpn=7,
               payload=bytes(range(64)), qkey=0x1234)
    send(p1, ud)
    assert recv(p2) == ud
    # Spoofed SLID, garbage, and an unknown DLID are dropped; the switch
    # stays up and still forwards.
    send(p1, frame(KIND_DATAGRAM, opcode=2, slid=lid2, dlid=lid2, payload=b"x"))
    send(p1, b"\xff" * 40)
    send(p1, frame(KIND_DATAGRAM, opcode=2, slid=lid1, dlid=0x999, payload=b"y"))
    send(p1, ud)
    assert recv(p2) == ud
    assert proc.poll() is None


def dr_set(sock, attr, mod, data, tid, method=2):
    """A directed-route Set (or Get) to the switch (hop 1) in from port 1;
    its GetResp's status and data."""
    smp = bytearray(256)
    smp[0:4] = bytes([1, 0x81, 1, method])  # base version, SubnDR, v1
    smp[6:8] = bytes([1, 1])                # hop pointer, hop count
    smp[8:16] = struct.pack(">Q", tid)
    smp[16:24] = struct.pack(">HHI", attr, 0, mod)
    smp[32:36] = struct.pack(">HH", 0xffff, 0xffff)
    smp[128 + 1] = 1                        # initial path: out of port 1
    smp[64:64 + len(data)] = data
    send(sock, frame(KIND_DATAGRAM, opcode=2, slid=0, dlid=0xffff,
                     payload=bytes(smp), qp_type=4))
    resp = recv(sock)[HDR.size:]
    assert resp[3] == 0x81 and struct.unpack(">Q", resp[8:16])[0] == tid
    return struct.unpack(">H", resp[4:6])[0] & 0x7fff, resp[64:128]


def port_info(state, lid=0, sm_lid=0):
    pi = bytearray(64)
    pi[8:20] = struct.pack(">QHH", 0xfe80000000000000, lid, sm_lid)
    pi[32] = state
    return bytes(pi)


@pytest.mark.parametrize("lone_switch", [["--embedded-sm", "off"]],
                         indirect=True, ids=["no-sm"])
def test_switch_without_sm_forwards_by_the_tables_an_sm_wrote(lone_switch):
    """--embedded-sm off: a HELLO gets no LID (the port waits in INIT), no
    data passes until an SM has written the LFT and made the ports ACTIVE
    by SMPs, then the switch forwards by that LFT; its SMInfo is gone."""
    proc, (p1, p2), _ = lone_switch
    for sock, guid in ((p1, 0x0002c90300000a01), (p2, 0x0002c90300000b01)):
        send(sock, frame(KIND_HELLO, payload=HELLO.pack(
            guid - 1, guid - 1, guid, 0x525400, 0, 0, 0x10f0, 1, 1, b"t")))
    ud = frame(KIND_DATAGRAM, opcode=2, slid=4, dlid=5, sqpn=5, dqpn=7,
               payload=b"data", qkey=0x1234)
    send(p1, ud)                            # no LFT, ports INIT: dropped
    with pytest.raises(socket.timeout):
        recv(p2, timeout=0.5)
    lft = bytes([0xff] * 4 + [1, 2] + [0xff] * 58)     # LID 4: 1, 5: 2
    assert dr_set(p1, 0x19, 0, lft, 1) == (0, lft)
    si = bytearray(64)
    si[6:8] = struct.pack(">H", 5)          # LinearFDBTop
    status, got = dr_set(p1, 0x12, 0, bytes(si), 2)
    assert status == 0 and got[6:8] == b"\x00\x05"
    assert dr_set(p1, 0x15, 1, port_info(4), 3)[0] == 0x1c  # INIT->ACTIVE
    for tid, (port, state) in enumerate([(1, 3), (2, 3), (1, 4), (2, 4)], 4):
        status, got = dr_set(p1, 0x15, port, port_info(state), tid)
        assert status == 0 and got[32] & 0xf == state, (port, got[32])
    status, _ = dr_set(p1, 0x15, 0, port_info(0, lid=1, sm_lid=4), 9)
    assert status == 0
    send(p1, ud)
    assert recv(p2) == ud
    # No SM in the switch: SMInfo is not its SMA's (0x000c).
    assert dr_set(p1, 0x20, 0, b"", 10, method=1)[0] == 0x0c
    assert proc.poll() is None


def trap_of(body):
    """(SLID, DLID, method, TID, trap number, LIDADDR) of an SMP frame."""
    hdr, smp = HDR.unpack(body[:HDR.size]), body[HDR.size:]
    assert hdr[2] == KIND_DATAGRAM and smp[1] == 0x01, (hdr, smp[:4])
    return (hdr[5], hdr[6], smp[3], struct.unpack(">Q", smp[8:16])[0],
            struct.unpack(">H", smp[68:70])[0],
            struct.unpack(">H", smp[74:76])[0])


@pytest.mark.parametrize("lone_switch", [["--embedded-sm", "off"]],
                         indirect=True, ids=["no-sm"])
def test_switch_without_sm_sends_trap_128_until_repressed(lone_switch):
    """IBA 14.2.5.1: once an SM gave the switch a LID and a MasterSMLID, a
    link that goes down is Trap 128 (urgent, LIDADDR the switch's LID)
    LID-routed to the SM, again every second with the same TID until the
    SM's TrapRepress of that TID; a new change is a new TID."""
    proc, (p1, p2), sockdir = lone_switch
    for sock, guid in ((p1, 0x0002c90300000a01), (p2, 0x0002c90300000b01)):
        send(sock, frame(KIND_HELLO, payload=HELLO.pack(
            guid - 1, guid - 1, guid, 0x525400, 0, 0, 0x10f0, 1, 1, b"t")))
    lft = bytes([0xff] * 4 + [1, 2] + [0xff] * 58)     # LID 4: 1, 5: 2
    assert dr_set(p1, 0x19, 0, lft, 1)[0] == 0
    si = bytearray(64)
    si[6:8] = struct.pack(">H", 5)          # LinearFDBTop
    assert dr_set(p1, 0x12, 0, bytes(si), 2)[0] == 0
    # the SM at LID 4 (behind port 1) gives the switch LID 1
    assert dr_set(p1, 0x15, 0, port_info(0, lid=1, sm_lid=4), 3)[0] == 0
    p2.close()                              # port 2's cable out
    slid, dlid, method, tid, num, lidaddr = trap_of(recv(p1))
    assert (slid, dlid, method, num, lidaddr) == (1, 4, 0x05, 128, 1)
    again = trap_of(recv(p1, timeout=3))    # no answer: the same trap
    assert again == (slid, dlid, method, tid, num, lidaddr)
    repress = bytearray(256)
    repress[0:4] = bytes([1, 0x01, 1, 0x07])    # SubnLID TrapRepress
    repress[8:16] = struct.pack(">Q", tid)
    repress[16:18] = struct.pack(">H", 0x0002)  # Notice
    send(p1, frame(KIND_DATAGRAM, opcode=2, slid=4, dlid=1,
                   payload=bytes(repress), qp_type=4))
    with pytest.raises(socket.timeout):
        while True:                         # a repeat already on its way
            assert trap_of(recv(p1, timeout=2.5))[3] == tid
    # port 2's cable back: a new trap, a new TID
    p2 = connect_unix(os.path.join(sockdir, "port2"), time.monotonic() + 10)
    lone_switch[1][1] = p2
    send(p2, frame(KIND_HELLO, payload=HELLO.pack(
        0x0002c90300000b00, 0x0002c90300000b00, 0x0002c90300000b01,
        0x525400, 0, 0, 0x10f0, 1, 1, b"t")))
    new = trap_of(recv(p1))
    assert new[4] == 128 and new[3] != tid, new
    assert proc.poll() is None


def test_switch_sa_answers_class_port_info(lone_switch):
    proc, (p1, p2), _ = lone_switch
    lid1 = hello(p1, 0x5254000000000a01)
    mad = bytearray(256)
    mad[0:4] = bytes([1, 3, 2, 1])          # base version, SubnAdm, v2, Get
    mad[8:16] = struct.pack(">Q", 0x1234)   # transaction id
    mad[16:18] = struct.pack(">H", 1)       # ClassPortInfo
    send(p1, frame(KIND_DATAGRAM, opcode=2, slid=lid1, dlid=1, sqpn=1, dqpn=1,
                   payload=bytes(mad), qkey=0x80010000, qp_type=5))
    answer = recv(p1)
    h = HDR.unpack(answer[:HDR.size])
    body = answer[HDR.size:]
    assert h[5] == 1 and h[6] == lid1 and h[7] == 1 and h[8] == 1, h
    assert body[3] == 0x81 and body[8:16] == mad[8:16], body[:24].hex()


def test_switch_on_loopback_tcp():
    """--tcp BASE: port 1 listens on 127.0.0.1:BASE+1 (several hosts)."""
    if not os.path.exists(SWITCH):
        raise FileNotFoundError("%s missing: run `make switch`" % SWITCH)
    probe = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    probe.bind(("127.0.0.1", 0))
    tcp_port = probe.getsockname()[1]
    probe.close()
    proc = subprocess.Popen([SWITCH, "--ports", "1", "--tcp", str(tcp_port - 1)],
                            stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 10
        while True:
            try:
                s = socket.create_connection(("127.0.0.1", tcp_port), timeout=5)
                break
            except ConnectionRefusedError:
                assert time.monotonic() < deadline, "switch did not listen"
                time.sleep(0.05)
        assert hello(s, 0x5254000000000c01) == 2
        s.close()
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def control(sockdir, line):
    """One command to the switch's control socket; its answer."""
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(os.path.join(sockdir, "control"))
    s.sendall(line.encode() + b"\n")
    out = b""
    while True:
        chunk = s.recv(4096)
        if not chunk:
            break
        out += chunk
    s.close()
    return out.decode()


def stats(sockdir):
    """port number -> its counters, from the control socket."""
    ports = {}
    for line in control(sockdir, "stats").splitlines():
        words = line.split()
        ports[int(words[1])] = {words[i]: int(words[i + 1])
                                for i in range(2, len(words) - 1, 2)}
    return ports


def test_switch_faults_from_the_control_socket(lone_switch):
    proc, (p1, p2), sockdir = lone_switch
    lid1, lid2 = hello(p1, 0x5254000000000a01), hello(p2, 0x5254000000000b01)
    ud = frame(KIND_DATAGRAM, opcode=2, slid=lid1, dlid=lid2, payload=b"z" * 32)
    assert control(sockdir, "faults 100 0 0 0") == "ok\n"
    send(p1, ud)
    assert control(sockdir, "faults 0 100 0 0") == "ok\n"
    send(p1, ud)
    assert recv(p2) == ud and recv(p2) == ud      # lost once, then doubled
    assert control(sockdir, "faults 0 0 0 100") == "ok\n"
    send(p1, ud)
    assert control(sockdir, "faults 0 0 0 0") == "ok\n"
    assert control(sockdir, "faults 101 0 0 0").startswith("error")
    counters = stats(sockdir)[2]
    assert (counters["lost"], counters["dup"], counters["icrc"]) == (1, 1, 1), counters
    assert proc.poll() is None


def test_a_port_that_stops_reading_does_not_stop_the_switch(lone_switch):
    """A cable whose QEMU stops reading (QMP stop, gdb, a starved host):
    frames for it wait in its output queue, the switch keeps forwarding
    and answering on its other ports, and what waited longer than the
    switch lifetime (SwitchInfo:LifeTimeValue 18, about 1.07 s) is
    discarded whole and counted (PortXmitDiscards); the port then gets
    whole frames in order."""
    proc, (p1, p2), sockdir = lone_switch
    lid1, lid2 = hello(p1, 0x5254000000000a01), hello(p2, 0x5254000000000b01)
    flood = frame(KIND_DATAGRAM, opcode=2, slid=lid1, dlid=lid2, sqpn=5, dqpn=7,
                  payload=b"f" * 4000, qkey=0x1234)
    p1.settimeout(10)
    try:
        for _ in range(1500):       # 6 MB: far more than a socket buffers
            send(p1, flood)
    except socket.timeout:
        pytest.fail("the switch stopped reading port 1 while port 2 did not read")
    mad = bytearray(256)
    mad[0:4] = bytes([1, 3, 2, 1])          # SubnAdm Get(ClassPortInfo)
    mad[8:16] = struct.pack(">Q", 0x5157)
    mad[16:18] = struct.pack(">H", 1)
    send(p1, frame(KIND_DATAGRAM, opcode=2, slid=lid1, dlid=1, sqpn=1, dqpn=1,
                   payload=bytes(mad), qkey=0x80010000, qp_type=5))
    answer = recv(p1, timeout=5)
    assert answer[HDR.size + 3] == 0x81 and answer[HDR.size + 8:HDR.size + 16] == mad[8:16]
    assert stats(sockdir)[2]["queued"] > 0
    time.sleep(1.6)                         # past the switch lifetime
    port2 = stats(sockdir)[2]
    assert port2["discards"] > 0 and port2["queued"] <= len(flood) + 4, port2
    marker = frame(KIND_DATAGRAM, opcode=2, slid=lid1, dlid=lid2, sqpn=5, dqpn=7,
                   payload=b"m" * 64, qkey=0x1234)
    send(p1, marker)
    got = 0
    while True:
        f = recv(p2, timeout=5)
        if f == marker:
            break
        assert f == flood, f[:HDR.size].hex()
        got += 1
    port2 = stats(sockdir)[2]
    assert got + port2["discards"] == 1500 and port2["queued"] == 0, (got, port2)
    assert proc.poll() is None


def test_switch_faults_per_link_and_delay(lone_switch):
    """Faults of one link leave the other alone; a link's delay holds its
    frames back, in order; flap needs a --connect port; bad commands are
    refused."""
    proc, (p1, p2), sockdir = lone_switch
    lid1, lid2 = hello(p1, 0x5254000000000a01), hello(p2, 0x5254000000000b01)
    to2 = frame(KIND_DATAGRAM, opcode=2, slid=lid1, dlid=lid2, payload=b"2" * 32)
    to1 = frame(KIND_DATAGRAM, opcode=2, slid=lid2, dlid=lid1, payload=b"1" * 32)
    assert control(sockdir, "port 2 faults 100 0 0 0") == "ok\n"
    send(p1, to2)                       # lost on link 2
    send(p2, to1)
    assert recv(p1) == to1              # link 1 untouched
    assert control(sockdir, "port 2 faults 0 0 0 0") == "ok\n"
    assert control(sockdir, "port 2 delay 400") == "ok\n"
    first = to2[:-1] + b"a"
    started = time.monotonic()
    send(p1, first)
    send(p1, to2)
    assert recv(p2, timeout=5) == first and recv(p2, timeout=5) == to2
    assert time.monotonic() - started >= 0.35
    assert control(sockdir, "port 2 delay 0") == "ok\n"
    counters = stats(sockdir)[2]
    assert (counters["lost"], counters["delayed"]) == (1, 2), counters
    assert control(sockdir, "port 2 flap 100").startswith("error")
    assert control(sockdir, "port 3 delay 1").startswith("error")
    assert control(sockdir, "port 1 delay 10001").startswith("error")
    assert control(sockdir, "port 1 faults 0 0 0 101").startswith("error")
    assert proc.poll() is None


# ---- two VMs ------------------------------------------------------------------

def test_switch_sm_gives_each_vm_a_lid(fabric):
    lids = set()
    for name, vm in fabric["vms"].items():
        _, lid = vm.run("cat /sys/class/infiniband/vhca0/ports/1/lid", timeout=30,
                        check=True)
        _, sm = vm.run("cat /sys/class/infiniband/vhca0/ports/1/sm_lid", timeout=30,
                       check=True)
        assert int(sm.strip(), 16) == 1, sm
        lids.add(int(lid.strip(), 16))
    assert len(lids) == 2 and 0 not in lids, lids


def test_ipoib_ping_across_vms(fabric):
    a = fabric["vms"]["a"]
    rc, out = a.run("%s ping %s 3 10" % (TOOL, ADDR["b"]), timeout=120)
    assert rc == 0 and "3 received" in out, out


def test_diags_see_the_switch_and_the_other_vm(fabric):
    """SMPs across the switch: its own SMA and SM (LID 1, directed route
    0,1), through it to the other VM's port (0,1,2: that device's SMA
    answers from the wire), LID-routed to the other port; ibnetdiscover
    draws the switch and both CAs, ibroute shows the SM's table, ibtracert
    and iblinkinfo follow it, ibqueryerrors reads every PMA, ibping gets
    its pongs from the other VM."""
    a, b = fabric["vms"]["a"], fabric["vms"]["b"]
    guid_b = "0x%016x" % (fabriclib.NODES["b"] + 1)
    _, lid = b.run("cat /sys/class/infiniband/vhca0/ports/1/lid", timeout=30,
                   check=True)
    lid = int(lid.strip(), 16)
    _, out = a.run("smpquery -D nodeinfo 0,1", timeout=60, check=True)
    assert re.search(r"NodeType:\.*Switch", out), out
    _, out = a.run("smpquery -D nodeinfo 0,1,2", timeout=60, check=True)
    assert re.search(r"PortGuid:\.*%s" % guid_b, out), out
    _, out = a.run("smpquery nodeinfo %d" % lid, timeout=60, check=True)
    assert re.search(r"PortGuid:\.*%s" % guid_b, out), out
    _, out = a.run("sminfo", timeout=60, check=True)
    assert "sm lid 1" in out and "SMINFO_MASTER" in out, out
    _, out = a.run("ibnetdiscover", timeout=120, check=True)
    assert re.search(r"^Switch\s+2 ", out, re.M), out
    assert len(re.findall(r"^Ca\s", out, re.M)) == 2, out
    assert "%x" % (fabriclib.NODES["b"] + 1) in out, out
    _, out = a.run("ibroute 1", timeout=60, check=True)
    assert re.search(r"^0x%04x 002 : \(Channel Adapter" % lid, out, re.M), out
    _, lid_a = a.run("cat /sys/class/infiniband/vhca0/ports/1/lid", timeout=30,
                     check=True)
    _, out = a.run("ibtracert %d %d" % (int(lid_a.strip(), 16), lid), timeout=60,
                   check=True)
    assert "switch port" in out and "To ca" in out, out
    _, out = a.run("iblinkinfo", timeout=60, check=True)
    assert out.count("Active/  LinkUp") >= 4, out
    # The PMA of every port, the switch's included; no errors anywhere.
    _, out = a.run("ibqueryerrors", timeout=120, check=True)
    assert "3 nodes checked, 0 bad nodes found" in out, out
    # ibping with its responder in the other VM (vendor MADs over GSI).
    background(b, "ibping -S", "ibping-server", 60)
    time.sleep(2)
    rc, out = a.run("ibping -c 3 %d" % lid, timeout=60)
    b.run("pkill -x ibping", timeout=30)
    assert rc == 0 and "3 received" in out, out


def perfquery_counters(out):
    """perfquery's "Name:.....value" lines as {name: int}."""
    return {m.group(1): int(m.group(2)) for m in
            re.finditer(r"^(\w+):\.+(\d+)\s*$", out, re.M)}


def test_perfquery_of_a_port_in_the_other_vm(fabric):
    """The PMA answers across the switch: a resets and reads the counters
    of b's port, which then count the IPoIB pings between them."""
    a, b = fabric["vms"]["a"], fabric["vms"]["b"]
    _, lid = b.run("cat /sys/class/infiniband/vhca0/ports/1/lid", timeout=30,
                   check=True)
    lid = int(lid.strip(), 16)
    a.run("perfquery -x -R %d 1" % lid, timeout=60, check=True)
    rc, out = a.run("%s ping %s 5 10" % (TOOL, ADDR["b"]), timeout=120)
    assert rc == 0 and "5 received" in out, out
    _, out = a.run("perfquery -x %d 1" % lid, timeout=60, check=True)
    c = perfquery_counters(out)
    assert c["PortRcvPkts"] >= 5 and c["PortXmitPkts"] >= 5, out
    assert c["PortRcvData"] >= 5 * 26 // 4, out
    # The standalone switch's PMA: its port 2 is cabled to b.
    a.run("perfquery -x -R 1 2", timeout=60, check=True)
    rc, out = a.run("%s ping %s 5 10" % (TOOL, ADDR["b"]), timeout=120)
    assert rc == 0 and "5 received" in out, out
    _, out = a.run("perfquery -x 1 2", timeout=60, check=True)
    c = perfquery_counters(out)
    assert c["PortSelect"] == 2, out
    assert c["PortXmitPkts"] >= 5 and c["PortRcvPkts"] >= 5, out


def tcp_transfer(fabric):
    """A TCP stream a -> b; the same byte count and SHA-256 at both ends."""
    a, b = fabric["vms"]["a"], fabric["vms"]["b"]
    b.run("rm -f /tmp/srv.out; %s serve 5001 %d > /tmp/srv.out 2>&1 &" %
          (TOOL, TCP_BYTES), timeout=30, check=True)
    b.wait_until("cat /tmp/srv.out", lambda t: "listening" in t, timeout=30)
    rc, sent = a.run("%s send %s 5001 %d" % (TOOL, ADDR["b"], TCP_BYTES), timeout=600)
    assert rc == 0, sent
    received = b.wait_until("cat /tmp/srv.out", lambda t: "sha256=" in t, timeout=120)
    sent_line = [l for l in sent.splitlines() if "sha256=" in l][0]
    recv_line = [l for l in received.splitlines() if "sha256=" in l][0]
    assert sent_line.startswith("bytes=%d " % TCP_BYTES), sent_line
    assert recv_line == sent_line


def test_ipoib_tcp_stream_checksum(fabric):
    tcp_transfer(fabric)


def set_ipoib_mode(vm, mode, mtu):
    vm.run("echo %s > /sys/class/net/%s/mode && ip link set %s mtu %d" %
           (mode, vm.ifname, vm.ifname, mtu), timeout=60, check=True)


def test_ipoib_connected_mode_tcp_stream_checksum(fabric):
    """IPoIB connected mode: RC QPs set up through ib_cm across the VMs,
    64 KiB MTU (each message one frame on the wire)."""
    vms = fabric["vms"].values()
    try:
        for vm in vms:
            set_ipoib_mode(vm, "connected", 65520)
        rc, out = fabric["vms"]["a"].run("%s ping %s 3 20" % (TOOL, ADDR["b"]),
                                         timeout=120)
        assert rc == 0 and "3 received" in out, out
        tcp_transfer(fabric)
    finally:
        for vm in vms:
            set_ipoib_mode(vm, "datagram", 2044)


PINGPONGS = ["ibv_rc_pingpong -g 0", "ibv_uc_pingpong -g 0", "ibv_ud_pingpong",
             "ibv_srq_pingpong -g 0"]


@pytest.mark.parametrize("tool", PINGPONGS, ids=[t.split()[0] for t in PINGPONGS])
def test_pingpong_validated(fabric, tool):
    """RC, UC, UD and SRQ pingpongs with data validation (-c)."""
    src, crc, sout, cout = pair(
        fabric, "%s -d vhca0 -c -n 200" % tool,
        "%s -d vhca0 -c -n 200 %s" % (tool, ADDR["b"]), tool.split()[0])
    assert (src, crc) == (0, 0), sout + cout
    assert len(re.findall(r"(\d+) iters in", sout + cout)) == 2


def test_xsrq_pingpong(fabric):
    """XRC across the switch (IBA A14): ibv_xsrq_pingpong, the XRC
    SRQ number in the REQUEST frames (vhca_wire_hdr.xrc_srqn)."""
    pair_ok(fabric, "ibv_xsrq_pingpong -d vhca0 -g 0 -n 50",
            "ibv_xsrq_pingpong -d vhca0 -g 0 -n 50 %s" % ADDR["b"], "ibv_xsrq_pingpong")


PERF_RESULT = re.compile(r"^\s*(\d+)\s+(\d+)\s+\d+\.\d+\s+\d+\.\d+", re.M)
PERFTESTS = [
    ("ib_send_lat", "-n 100"), ("ib_write_bw", "-n 100 -s 65536"),
    ("ib_read_lat", "-n 100"), ("ib_read_bw", "-n 50 -s 65536"),
    ("ib_atomic_lat", "-n 100"),
]
# Operations the one-VM tier (selftests/verbs/uverbs.py) runs too.
MORE_PERFTESTS = [("ib_atomic_bw", "-n 100"), ("ib_atomic_lat", "-n 100 -A CMP_AND_SWAP"),
                  ("ib_send_bw", "-n 100 -c UD")]
MORE_IDS = ["ib_atomic_bw", "ib_atomic_lat-cmp_and_swap", "ib_send_bw-ud"]


def perftest(fabric, tool, args, tag):
    """A perftest pair.  perftest converts cycles with a CPU frequency it
    fits against gettimeofday; under TCG on a busy host the fit can fail
    ("Correlation coefficient r^2 < 0.9": a report of inf, or "Can't
    produce a report").  Not the device: run again, up to three times (as
    selftests/verbs/uverbs.py does)."""
    for _ in range(3):
        src, crc, sout, cout = pair(fabric, "%s -d vhca0 %s" % (tool, args),
                                    "%s -d vhca0 %s %s" % (tool, args, ADDR["b"]), tag)
        if not re.search(r"Correlation coefficient|Can't produce a report", sout + cout):
            break
    assert (src, crc) == (0, 0), sout + cout
    assert PERF_RESULT.search(cout), cout


@pytest.mark.parametrize("tool,args", PERFTESTS + MORE_PERFTESTS,
                         ids=[t for t, _ in PERFTESTS] + MORE_IDS)
def test_perftest_across_vms(fabric, tool, args):
    perftest(fabric, tool, args, tool)


def test_messages_of_several_frames(fabric):
    """Messages longer than one frame (64 KiB) leave in segments and are
    put together on arrival: 1 MiB SENDs validated byte for byte, 1 MiB
    RDMA WRITEs and READs (READ responses in segments too)."""
    src, crc, sout, cout = pair(
        fabric, "ibv_rc_pingpong -d vhca0 -g 0 -c -n 20 -s 1048576",
        "ibv_rc_pingpong -d vhca0 -g 0 -c -n 20 -s 1048576 %s" % ADDR["b"],
        "pingpong-1m")
    assert (src, crc) == (0, 0), sout + cout
    assert len(re.findall(r"(\d+) iters in", sout + cout)) == 2
    perftest(fabric, "ib_write_bw", "-n 20 -s 1048576", "write-1m")
    perftest(fabric, "ib_read_bw", "-n 20 -s 1048576", "read-1m")


def test_multicast_to_the_other_vm_and_back_to_the_sender_port(fabric):
    """mckey (rdma_cm, UD multicast joined through the switch's SA): a
    sender in VM a, receivers in VM b (through the switch) and in VM a on
    the sending port itself (the HCA's loopback: the switch never sends a
    packet back out of the port it came in on)."""
    a, b = fabric["vms"]["a"], fabric["vms"]["b"]
    group = "224.0.1.78"
    background(b, "mckey -m %s -b %s" % (group, ADDR["b"]), "mckey-b", 120)
    background(a, "mckey -m %s -b %s" % (group, ADDR["a"]), "mckey-a", 120)
    time.sleep(3)
    rc, out = a.run("timeout 120 mckey -m %s -b %s -s" % (group, ADDR["a"]),
                    timeout=150)
    sb, outb = finish(b, "mckey-b")
    sa, outa = finish(a, "mckey-a")
    log("mckey", "sender:\n%s\nb:\n%s\na:\n%s" % (out, outb, outa))
    assert rc == 0 and "test complete" in out, out
    assert sb == 0 and "test complete" in outb, outb
    assert sa == 0 and "test complete" in outa, outa


def test_rping_verified(fabric):
    pair_ok(fabric, "rping -s -a %s -C 200 -V" % ADDR["b"],
            "rping -c -a %s -C 200 -V" % ADDR["b"], "rping")


@pytest.mark.parametrize("tool", ["ucmatose", "udaddy"])
def test_rdma_cm_tool(fabric, tool):
    """rdma_cm's RC connections (ucmatose, through ib_cm) and UD (udaddy,
    SIDR) across the switch."""
    sout, cout = pair_ok(fabric, "%s -b %s" % (tool, ADDR["b"]),
                         "%s -s %s" % (tool, ADDR["b"]), tool)
    assert "test complete" in sout and "test complete" in cout, sout + cout


def test_nvme_rdma_across_vms(fabric):
    """The one storage ULP test of this tier (twovm_ulp.py, `make
    check-fabric-ulp`, has the others): nvmet-rdma in VM a, nvme connect
    and fio verify in VM b."""
    twovm_ulp.nvme_connect_fio_verify(fabric)


def lossy_pingpong(fabric, name):
    """ibv_rc_pingpong -c (every message validated) from a to b over a
    lossy fabric.  The server is told to expect more messages than the
    client sends and is stopped afterwards: a server that exits after its
    last message may leave the client's last SEND unACKed (its ACK lost),
    and the client's resends then end in retry-exceeded, as on any lossy IB
    link; the same can happen to the server's last pong once the client has
    its 300 validated messages and exits."""
    a, b = fabric["vms"]["a"], fabric["vms"]["b"]
    background(b, "ibv_rc_pingpong -d vhca0 -g 0 -c -n 1000000", name, 300)
    time.sleep(2)
    crc, cout = a.run("timeout 240 ibv_rc_pingpong -d vhca0 -g 0 -c -n 300 %s"
                      % ADDR["b"], timeout=300)
    b.run("pkill -x ibv_rc_pingpong", timeout=30)
    src, sout = finish(b, name)
    log(name, "server:\n%s\nclient:\n%s" % (sout, cout))
    assert crc == 0 and "300 iters in" in cout, cout
    # Stopped by SIGTERM (143), or its last pong's ACK was lost after
    # the client had exited: retry-exceeded on that one SEND only.
    assert src == 143 or (src == 1 and sout.count("Failed") == 1 and re.fullmatch(
        r"(?s).*?Failed status transport retry counter exceeded \(12\) for "
        r"wr_id 2\s+parse WC failed 2\s+.*", sout)), sout


def test_rc_recovers_from_a_lossy_reordering_link(fabric):
    """5% loss, 5% reordering, 2% duplication and 1% corruption on every
    link of the switch: RC retransmits until every byte is delivered once
    (lossy_pingpong); ib_read_bw moves 64 KiB READ responses."""
    sockdir = fabric["sockdir"]
    before = stats(sockdir)
    assert control(sockdir, "faults 5 2 5 1") == "ok\n"
    try:
        lossy_pingpong(fabric, "lossy-pp")
        perftest(fabric, "ib_read_bw", "-n 50 -s 65536", "lossy-read")
        perftest(fabric, "ib_write_bw", "-n 20 -s 262144", "lossy-write-256k")
    finally:
        assert control(sockdir, "faults 0 0 0 0") == "ok\n"
    after = stats(sockdir)
    log("switch counters", "%s\n%s" % (before, after))
    lost = sum(after[p]["lost"] - before[p]["lost"] for p in after)
    reordered = sum(after[p]["reordered"] - before[p]["reordered"] for p in after)
    assert lost > 0 and reordered > 0, after


QMP_FAULTS = {"port1-loss": 5, "port1-reorder": 5, "port1-dup": 2, "port1-corrupt": 1}


def set_port_faults(vm, faults):
    for prop, value in faults.items():
        vm.qmp("qom-set", path="vhca0", property=prop, value=value)


def test_rc_recovers_from_faults_set_from_qmp(fabric):
    """The same faults, now on each VM's own link, set at run time from
    QMP (qom-set vhca0 port1-loss ...): RC recovers with every message
    validated, and port1-fault-stats counts what the links did."""
    vms = fabric["vms"]
    try:
        for vm in vms.values():
            set_port_faults(vm, QMP_FAULTS)
        lossy_pingpong(fabric, "qmp-lossy-pp")
    finally:
        for vm in vms.values():
            set_port_faults(vm, dict.fromkeys(QMP_FAULTS, 0))
    counts = {}
    for name, vm in vms.items():
        text = vm.qmp("qom-get", path="vhca0", property="port1-fault-stats")
        log("%s port1-fault-stats" % name, str(text))
        counts[name] = dict(zip(text.split()[::2], map(int, text.split()[1::2])))
    assert sum(c["lost"] for c in counts.values()) > 0, counts
    assert sum(c["reordered"] for c in counts.values()) > 0, counts


def port_state(vm):
    _, out = vm.run("cat /sys/class/infiniband/vhca0/ports/1/state "
                    "/sys/class/infiniband/vhca0/ports/1/lid", timeout=30, check=True)
    return out.split()[1], int(out.split()[2], 16)


def test_link_flap_port_goes_down_and_comes_back(fabric):
    """port 2 flap: the switch pulls b's cable for 1.5 s; b's port goes
    DOWN (PORT_ERR), comes back ACTIVE with its LID, and traffic runs."""
    a, b = fabric["vms"]["a"], fabric["vms"]["b"]
    state, lid = port_state(b)
    assert state == "ACTIVE"
    # The DOWN state lasts about the flap; a guest slowed by a loaded host
    # can miss it between two looks, its PMA's LinkDownedCounter cannot.
    downed = "cat /sys/class/infiniband/vhca0/ports/1/counters/link_downed"
    before = int(b.run(downed, timeout=30)[1])
    assert control(fabric["sockdir"], "port 2 flap 1500") == "ok\n"
    b.wait_until(downed, lambda t: int(t) == before + 1, timeout=30)
    b.wait_until("cat /sys/class/infiniband/vhca0/ports/1/state",
                 lambda t: "ACTIVE" in t, timeout=60)
    assert port_state(b) == ("ACTIVE", lid)
    assert stats(fabric["sockdir"])[2]["flaps"] == 1
    rc, out = a.run("%s ping %s 3 20" % (TOOL, ADDR["b"]), timeout=120)
    assert rc == 0 and "3 received" in out, out


def test_switch_restart_ports_go_down_and_come_back(fabric):
    """The switch dies: both ports go DOWN.  A new switch dials the VMs
    again: both come back ACTIVE with their LIDs, and RC traffic runs."""
    vms = fabric["vms"]
    lids = {name: port_state(vm)[1] for name, vm in vms.items()}
    fabric["switch"].kill()
    fabric["switch"].wait(timeout=10)
    for vm in vms.values():
        vm.wait_until("cat /sys/class/infiniband/vhca0/ports/1/state",
                      lambda t: "DOWN" in t, timeout=60)
    fabric["switch"] = start_switch(fabric["sockdir"], fabric["logfile"])
    for name, vm in vms.items():
        vm.wait_until("cat /sys/class/infiniband/vhca0/ports/1/state",
                      lambda t: "ACTIVE" in t, timeout=60)
        assert port_state(vm) == ("ACTIVE", lids[name])
    # IPoIB's neighbours and the SA's groups start again from nothing.
    rc, out = vms["a"].run("%s ping %s 3 20" % (TOOL, ADDR["b"]), timeout=120)
    assert rc == 0 and "3 received" in out, out
    src, crc, sout, cout = pair(
        fabric, "ibv_rc_pingpong -d vhca0 -g 0 -c -n 100",
        "ibv_rc_pingpong -d vhca0 -g 0 -c -n 100 %s" % ADDR["b"], "after-restart")
    assert (src, crc) == (0, 0), sout + cout


def test_peer_killed_mid_transfer(fabric):
    """Last: kill b's QEMU while a streams RDMA WRITEs to it (ib_write_bw);
    a's QP must end with a retry-exceeded completion (status 12), the
    switch must stay up and see the link go down."""
    a, b = fabric["vms"]["a"], fabric["vms"]["b"]
    cmd = "stdbuf -oL -eL ib_write_bw -d vhca0 -n 100000000 -s 4096"
    background(b, cmd, "victim", 600)
    time.sleep(2)
    background(a, "%s %s" % (cmd, ADDR["b"]), "survivor", 600)
    a.wait_until("cat /tmp/survivor.log", lambda t: "#bytes" in t, timeout=60)
    time.sleep(3)
    b.kill()
    status, out = finish(a, "survivor", timeout=120)
    log("survivor", out)
    assert status not in (0, 124), out
    assert re.search(r"Failed status 12\b|retry counter exceeded", out, re.I), out
    assert fabric["switch"].poll() is None, "switch died"
    with open(fabric["log"]) as f:
        assert f.read().rstrip().splitlines()[-1].startswith("vhca-switch: port 2: link down")
