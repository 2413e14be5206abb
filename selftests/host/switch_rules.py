"""Fault rules per packet on the standalone switch, no VM (`make
check-unit`, scripts/run-unit.sh): the control socket's "rule ..." lines
(tools/vhca-switch-rules.c, the engine fabric/vhca-fault-rules.c)
drop the Nth match, pick a MAD by class and attribute, double, delay and
hold back frames, make a READ response a NAK, refuse bad rules with why,
and give the same trace for the same seed and frames.
Documentation/fabric-tests.md "Fault rules".
"""
import os
import struct
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from switch_lone import lone_switch  # noqa: E402,F401  (the fixture)
from switchlib import (HDR, KIND_DATAGRAM, MAD_HDR, WQE_SEND, control, frame,  # noqa: E402
                       gsi_frame, header, hello, recv, send, stats)
from wirelayout import C  # noqa: E402

KIND_RESPONSE = C["VHCA_WIRE_RESPONSE"]
PSN_OFFSET = HDR.offsets["psn"]


def with_psn(f, psn):
    return f[:PSN_OFFSET] + struct.pack("<I", psn) + f[PSN_OFFSET + 4:]


def nothing_waits(sock, timeout=0.3):
    sock.settimeout(timeout)
    try:
        return sock.recv(1) == b""
    except OSError:
        return True


def test_rules_drop_nth_and_mads_by_attribute(lone_switch):
    proc, (p1, p2), sockdir = lone_switch
    lid1, lid2 = hello(p1, 0x5254000000000a01), hello(p2, 0x5254000000000b01)
    assert control(sockdir, "rule add port=2,dir=out,op=send,nth=2,action=drop") == "ok 1\n"
    ud = [frame(KIND_DATAGRAM, opcode=WQE_SEND, slid=lid1, dlid=lid2, dqpn=7,
                payload=bytes([i]) * 32) for i in range(3)]
    for f in ud:
        send(p1, f)
    assert recv(p2) == ud[0] and recv(p2) == ud[2]      # the 2nd is gone
    # CM (class 0x07): the REP (attribute 0x0013) is lost, the REQ passes
    assert control(sockdir, "rule add mad-class=0x07,mad-attr=0x0013,action=drop") == "ok 2\n"
    mads = []
    for attr in (0x10, 0x13):               # CM REQ, REP (IBA 12.6)
        mad = MAD_HDR.pack(base_version=1, mgmt_class=0x07, class_version=2,
                           method=0x03, attr_id=attr)     # CM Send
        mads.append(gsi_frame(mad + bytes(C["VHCA_MAD_SIZE"] - MAD_HDR.size),
                              lid1, lid2))
    send(p1, mads[1])
    send(p1, mads[0])
    assert recv(p2) == mads[0]
    listing = control(sockdir, "rule list").splitlines()
    assert listing[0].startswith("seed 0x")
    assert listing[1] == "rule 1 matches 3 fired 1: port=2,dir=out,op=send,nth=2,action=drop"
    assert listing[2].startswith("rule 2 matches 1 fired 1: ")
    trace = control(sockdir, "rule trace").splitlines()
    assert trace[0].endswith(" faults 2"), trace
    assert trace[1].startswith("0 rule 1 drop port 2 out send ")
    assert trace[2].startswith("1 rule 2 drop port ") and "mad-attr 0x0013" in trace[2]
    assert control(sockdir, "rule clear") == "ok\n"
    send(p1, ud[1])
    assert recv(p2) == ud[1]
    assert control(sockdir, "rule list").count("\n") == 1
    assert proc.poll() is None


def test_rules_dup_delay_reorder_and_nak(lone_switch):
    proc, (p1, p2), sockdir = lone_switch
    lid1, lid2 = hello(p1, 0x5254000000000a01), hello(p2, 0x5254000000000b01)
    a, b, c = (frame(KIND_DATAGRAM, opcode=WQE_SEND, slid=lid1, dlid=lid2, dqpn=7,
                     payload=x * 16) for x in (b"a", b"b", b"c"))
    assert control(sockdir, "rule add dir=out,nth=1,action=dup") == "ok 1\n"
    send(p1, a)
    assert recv(p2) == a and recv(p2) == a
    assert control(sockdir, "rule add dir=out,nth=1,action=reorder") == "ok 2\n"
    send(p1, a)                 # rule 1 is spent: rule 2 holds it back
    send(p1, b)
    assert recv(p2) == b and recv(p2) == a
    assert control(sockdir, "rule add dir=out,nth=1,action=delay:400") == "ok 3\n"
    started = time.monotonic()
    send(p1, a)                 # held 400 ms: b and c overtake it
    send(p1, b)
    send(p1, c)
    assert recv(p2) == b and recv(p2) == c
    assert recv(p2, timeout=5) == a and time.monotonic() - started >= 0.35
    # a READ response answered as an RNR NAK: no payload, syndrome 1
    resp = with_psn(frame(KIND_RESPONSE, opcode=C["VHCA_WQE_RDMA_READ"], slid=lid1, dlid=lid2,
                          dqpn=9, payload=b"r" * 64), 0x2a)
    assert control(sockdir, "rule add op=read-resp,dir=out,action=nak:rnr") == "ok 4\n"
    send(p1, resp)
    got = header(recv(p2))
    assert (got["kind"], got["syndrome"], got["payload_len"]) == \
        (KIND_RESPONSE, C["VHCA_WIRE_NAK_RNR"], 0), got
    assert got["psn"] == 0x2a and got["nak_psn"] == 0x2a, got
    counters = stats(sockdir)[2]
    assert (counters["dup"], counters["reordered"], counters["delayed"]) == (1, 1, 1), counters
    assert proc.poll() is None


def test_bad_rules_are_refused_with_why(lone_switch):
    proc, _, sockdir = lone_switch
    for line, why in (
            ("rule add op=send", "no action="),
            ("rule add action=drop,port=3", "no such port"),
            ("rule add action=delay:10", "dir=out"),
            ("rule add dir=in,action=dup", "dir=out"),
            ("rule add action=flap:100", "--connect"),
            ("rule add action=nak:rnr,dir=out", "op=ack or op=read-resp"),
            ("rule add action=drop,qpn=zz", "not a number"),
            ("rule del 7", "no rule 7"),
            ("rule frob", "the commands are"),
    ):
        answer = control(sockdir, line)
        assert answer.startswith("error: ") and why in answer, (line, answer)
    assert control(sockdir, "rule list").count("\n") == 1
    assert proc.poll() is None


def test_same_seed_same_trace(lone_switch):
    """pct draws from the one generator: the seed and the frames decide."""
    proc, (p1, p2), sockdir = lone_switch
    lid1, lid2 = hello(p1, 0x5254000000000a01), hello(p2, 0x5254000000000b01)
    frames = [with_psn(frame(KIND_DATAGRAM, opcode=WQE_SEND, slid=lid1, dlid=lid2,
                             dqpn=7, payload=b"s" * 8), i) for i in range(60)]
    traces = []
    for seed in (42, 42, 43):
        assert control(sockdir, "rule clear") == "ok\n"
        assert control(sockdir, "rule seed %d" % seed) == "ok\n"
        assert control(sockdir, "rule add dir=out,pct=30,action=drop").startswith("ok ")
        for f in frames:
            send(p1, f)
        trace = control(sockdir, "rule trace")
        dropped = len(trace.splitlines()) - 1
        for _ in range(60 - dropped):
            recv(p2)
        assert nothing_waits(p2)
        # rule ids differ between runs: compare what was hit
        traces.append([line.split(" ", 3)[3] for line in trace.splitlines()[1:]])
        assert 5 < dropped < 35, trace
    assert traces[0] == traces[1]
    assert traces[0] != traces[2]
    assert proc.poll() is None
