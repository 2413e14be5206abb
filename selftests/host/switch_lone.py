"""The standalone switch alone on the host, no VM (`make check-unit`,
scripts/run-unit.sh): build/vhca-switch with two unix socket ports and
this file playing the CA ports behind them (selftests/host/switchlib.py):
LIDs from its SM and forwarding by DLID, the tables an SM writes with
--embedded-sm off, Trap 128 until TrapRepress, its SA's ClassPortInfo, a
TCP port on 127.0.0.1, the control socket's faults and delay, and a port
that stops reading.  Documentation/fabric.md "The standalone switch".
"""
import os
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import time

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import switchlib  # noqa: E402
from switchlib import (GET, GET_RESP, HDR, KIND_DATAGRAM, KIND_HELLO, SA_MAD,  # noqa: E402
                       SET, SMP, SWITCH, WQE_SEND, connect_unix, control, dr_smp,
                       frame, gsi_frame, header, hello, hello_payload, recv, sa_get,
                       send, smi_frame, smp, stats)
from wirelayout import C  # noqa: E402

ATTR_CLASS_PORT_INFO = C["VHCA_SA_ATTR_CLASS_PORT_INFO"]
NOTICE = C["VHCA_SMP_ATTR_NOTICE"]
LFT, SWITCH_INFO = C["VHCA_SMP_ATTR_LFT"], C["VHCA_SMP_ATTR_SWITCH_INFO"]
PORT_INFO, SM_INFO = C["VHCA_SMP_ATTR_PORT_INFO"], C["VHCA_SMP_ATTR_SM_INFO"]
SWITCH_INFO_L = switchlib.SWITCH_INFO

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
    ud = frame(KIND_DATAGRAM, opcode=WQE_SEND, slid=lid1, dlid=lid2, sqpn=5, dqpn=7,
               payload=bytes(range(64)), qkey=0x1234)
    send(p1, ud)
    assert recv(p2) == ud
    # Spoofed SLID, garbage, and an unknown DLID are dropped; the switch
    # stays up and still forwards.
    send(p1, frame(KIND_DATAGRAM, opcode=WQE_SEND, slid=lid2, dlid=lid2, payload=b"x"))
    send(p1, b"\xff" * 40)
    send(p1, frame(KIND_DATAGRAM, opcode=WQE_SEND, slid=lid1, dlid=0x999, payload=b"y"))
    send(p1, ud)
    assert recv(p2) == ud
    assert proc.poll() is None


def dr_set(sock, attr, mod, data, tid, method=SET):
    """A directed-route Set (or Get) to the switch (hop 1) in from port 1;
    its GetResp's status and data."""
    send(sock, smi_frame(dr_smp([1], attr, tid, mod, method, data)))
    resp = SMP.unpack(recv(sock)[HDR.size:])
    assert resp["method"] == GET_RESP and resp["tid"] == tid
    return resp["status"] & ~C["VHCA_SMP_DIRECTION"], resp["data"]


def port_info(state, lid=0, sm_lid=0):
    return switchlib.port_info(state, lid, sm_lid, gid_prefix=0xfe80000000000000)


def switch_info(lft_top):
    return SWITCH_INFO_L.pack(lft_top=lft_top)


@pytest.mark.parametrize("lone_switch", [["--embedded-sm", "off"]],
                         indirect=True, ids=["no-sm"])
def test_switch_without_sm_forwards_by_the_tables_an_sm_wrote(lone_switch):
    """--embedded-sm off: a HELLO gets no LID (the port waits in INIT), no
    data passes until an SM has written the LFT and made the ports ACTIVE
    by SMPs, then the switch forwards by that LFT; its SMInfo is gone."""
    proc, (p1, p2), _ = lone_switch
    for sock, guid in ((p1, 0x0002c90300000a01), (p2, 0x0002c90300000b01)):
        send(sock, frame(KIND_HELLO, payload=hello_payload(guid)))
    ud = frame(KIND_DATAGRAM, opcode=WQE_SEND, slid=4, dlid=5, sqpn=5, dqpn=7,
               payload=b"data", qkey=0x1234)
    send(p1, ud)                            # no LFT, ports INIT: dropped
    with pytest.raises(socket.timeout):
        recv(p2, timeout=0.5)
    lft = bytes([0xff] * 4 + [1, 2] + [0xff] * 58)     # LID 4: 1, 5: 2
    assert dr_set(p1, LFT, 0, lft, 1) == (0, lft)
    status, got = dr_set(p1, SWITCH_INFO, 0, switch_info(5), 2)
    assert status == 0 and SWITCH_INFO_L.unpack(got)["lft_top"] == 5
    assert dr_set(p1, PORT_INFO, 1, port_info(4), 3)[0] == \
        C["VHCA_MAD_STATUS_INVALID_ATTR_VALUE"]     # INIT->ACTIVE
    for tid, (port, state) in enumerate([(1, 3), (2, 3), (1, 4), (2, 4)], 4):
        status, got = dr_set(p1, PORT_INFO, port, port_info(state), tid)
        assert status == 0 and switchlib.port_state(got) == state, (port, got)
    status, _ = dr_set(p1, PORT_INFO, 0, port_info(0, lid=1, sm_lid=4), 9)
    assert status == 0
    send(p1, ud)
    assert recv(p2) == ud
    # No SM in the switch: SMInfo is not its SMA's (0x000c).
    assert dr_set(p1, SM_INFO, 0, b"", 10, method=GET)[0] == \
        C["VHCA_MAD_STATUS_UNSUP_METHOD_ATTR"]
    assert proc.poll() is None


def trap_of(body):
    """(SLID, DLID, method, TID, trap number, LIDADDR) of an SMP frame."""
    hdr, m = header(body), SMP.unpack(body[HDR.size:])
    assert hdr["kind"] == KIND_DATAGRAM and \
        m["mgmt_class"] == C["VHCA_MGMT_CLASS_SUBN_LID"], (hdr, m)
    notice = switchlib.NOTICE.unpack(m["data"])
    # Trap 128's details: LIDADDR, the first 2 bytes (IBA 14.2.5.1)
    lidaddr = struct.unpack_from(">H", notice["details"])[0]
    return (hdr["slid"], hdr["dlid"], m["method"], m["tid"],
            notice["trap_number"], lidaddr)


@pytest.mark.parametrize("lone_switch", [["--embedded-sm", "off"]],
                         indirect=True, ids=["no-sm"])
def test_switch_without_sm_sends_trap_128_until_repressed(lone_switch):
    """IBA 14.2.5.1: once an SM gave the switch a LID and a MasterSMLID, a
    link that goes down is Trap 128 (urgent, LIDADDR the switch's LID)
    LID-routed to the SM, again every second with the same TID until the
    SM's TrapRepress of that TID; a new change is a new TID."""
    proc, (p1, p2), sockdir = lone_switch
    for sock, guid in ((p1, 0x0002c90300000a01), (p2, 0x0002c90300000b01)):
        send(sock, frame(KIND_HELLO, payload=hello_payload(guid)))
    lft = bytes([0xff] * 4 + [1, 2] + [0xff] * 58)     # LID 4: 1, 5: 2
    assert dr_set(p1, LFT, 0, lft, 1)[0] == 0
    assert dr_set(p1, SWITCH_INFO, 0, switch_info(5), 2)[0] == 0
    # the SM at LID 4 (behind port 1) gives the switch LID 1
    assert dr_set(p1, PORT_INFO, 0, port_info(0, lid=1, sm_lid=4), 3)[0] == 0
    p2.close()                              # port 2's cable out
    slid, dlid, method, tid, num, lidaddr = trap_of(recv(p1))
    assert (slid, dlid, method, num, lidaddr) == (1, 4, C["VHCA_MGMT_METHOD_TRAP"], 128, 1)
    again = trap_of(recv(p1, timeout=3))    # no answer: the same trap
    assert again == (slid, dlid, method, tid, num, lidaddr)
    repress = smp(C["VHCA_MGMT_METHOD_TRAP_REPRESS"], NOTICE, tid)
    send(p1, smi_frame(repress, slid=4, dlid=1))
    with pytest.raises(socket.timeout):
        while True:                         # a repeat already on its way
            assert trap_of(recv(p1, timeout=2.5))[3] == tid
    # port 2's cable back: a new trap, a new TID
    p2 = connect_unix(os.path.join(sockdir, "port2"), time.monotonic() + 10)
    lone_switch[1][1] = p2
    send(p2, frame(KIND_HELLO, payload=hello_payload(0x0002c90300000b01)))
    new = trap_of(recv(p1))
    assert new[4] == 128 and new[3] != tid, new
    assert proc.poll() is None


def test_switch_sa_answers_class_port_info(lone_switch):
    proc, (p1, p2), _ = lone_switch
    lid1 = hello(p1, 0x5254000000000a01)
    send(p1, gsi_frame(sa_get(ATTR_CLASS_PORT_INFO, 0x1234), lid1, 1))
    answer = recv(p1)
    h = header(answer)
    body = SA_MAD.unpack(answer[HDR.size:])
    assert (h["slid"], h["dlid"], h["src_qpn"], h["dst_qpn"]) == (1, lid1, 1, 1), h
    assert body["method"] == GET_RESP and body["tid"] == 0x1234, body


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


def test_switch_faults_from_the_control_socket(lone_switch):
    proc, (p1, p2), sockdir = lone_switch
    lid1, lid2 = hello(p1, 0x5254000000000a01), hello(p2, 0x5254000000000b01)
    ud = frame(KIND_DATAGRAM, opcode=WQE_SEND, slid=lid1, dlid=lid2, payload=b"z" * 32)
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
    flood = frame(KIND_DATAGRAM, opcode=WQE_SEND, slid=lid1, dlid=lid2, sqpn=5, dqpn=7,
                  payload=b"f" * 4000, qkey=0x1234)
    p1.settimeout(10)
    try:
        for _ in range(1500):       # 6 MB: far more than a socket buffers
            send(p1, flood)
    except socket.timeout:
        pytest.fail("the switch stopped reading port 1 while port 2 did not read")
    send(p1, gsi_frame(sa_get(ATTR_CLASS_PORT_INFO, 0x5157), lid1, 1))
    answer = SA_MAD.unpack(recv(p1, timeout=5)[HDR.size:])
    assert answer["method"] == GET_RESP and answer["tid"] == 0x5157, answer
    assert stats(sockdir)[2]["queued"] > 0
    time.sleep(1.6)                         # past the switch lifetime
    port2 = stats(sockdir)[2]
    assert port2["discards"] > 0 and port2["queued"] <= len(flood) + 4, port2
    marker = frame(KIND_DATAGRAM, opcode=WQE_SEND, slid=lid1, dlid=lid2, sqpn=5, dqpn=7,
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
    to2 = frame(KIND_DATAGRAM, opcode=WQE_SEND, slid=lid1, dlid=lid2, payload=b"2" * 32)
    to1 = frame(KIND_DATAGRAM, opcode=WQE_SEND, slid=lid2, dlid=lid1, payload=b"1" * 32)
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
