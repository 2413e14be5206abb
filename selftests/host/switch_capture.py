"""The standalone switch's captures (`make check-unit`, scripts/run-unit.sh;
Documentation/fabric-tests.md "Capture"), no VM: this file plays the CA ports
(selftests/host/switchlib.py).  Every port captured from the control
socket: a UD datagram appears as it came in by port 1 and as it left by
port 2, the SA's answer likewise, each decoded by tshark as InfiniBand with
no malformed mark and correct CRCs (selftests/capture/capcheck.py); one
port with the MADs-only filter keeps the SA MADs and not the datagram; off
closes the file.  Skips without tshark (scripts/deps.sh installs it).
"""
import os
import shutil
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "capture"))
import capcheck  # noqa: E402
from switch_lone import lone_switch  # noqa: E402,F401  (the fixture)
from switchlib import (KIND_DATAGRAM, WQE_SEND, control, frame, gsi_frame,  # noqa: E402
                       hello, recv, sa_get, send)
from wirelayout import C  # noqa: E402


def sa_get_class_port_info(lid):
    return gsi_frame(sa_get(C["VHCA_SA_ATTR_CLASS_PORT_INFO"], 0x1234), lid,
                     C["VHCA_WIRE_SM_LID"])


@pytest.mark.skipif(not shutil.which("tshark"), reason="no tshark")
def test_switch_capture_every_port_and_one_with_a_filter(lone_switch):
    proc, (p1, p2), sockdir = lone_switch
    every, mads = os.path.join(sockdir, "all.pcapng"), os.path.join(sockdir, "mads.pcapng")
    lid1, lid2 = hello(p1, 0x5254000000000a01), hello(p2, 0x5254000000000b01)
    ud = frame(KIND_DATAGRAM, opcode=WQE_SEND, slid=lid1, dlid=lid2, sqpn=5, dqpn=7,
               payload=bytes(range(64)), qkey=0x1234)

    def traffic():
        send(p1, ud)
        assert recv(p2) == ud
        send(p1, sa_get_class_port_info(lid1))
        recv(p1)

    assert control(sockdir, "capture %s" % every).startswith("ok")
    traffic()
    assert control(sockdir, "capture off").startswith("ok")
    assert control(sockdir, "port 1 capture %s mads" % mads).startswith("ok")
    traffic()
    assert control(sockdir, "port 1 capture off").startswith("ok")
    assert control(sockdir, "capture %s vl=3" % every).startswith("error")
    findings, packets = capcheck.check_file(every)
    assert not findings, findings
    # the datagram in by port 1 and out by port 2; the SA Get in by port 1
    # (the switch's SA takes it) and its GetResp out by port 1
    assert [(p[0], p[1]) for p in packets] == [(0, True), (1, False), (0, True), (0, False)]
    rows = capcheck.tshark_fields(every, ["infiniband.bth.opcode", "infiniband.mad.method"])
    assert [r["infiniband.bth.opcode"] for r in rows] == ["100"] * 4
    assert [r["infiniband.mad.method"] for r in rows] == ["", "", "0x%02x" % C["VHCA_MGMT_METHOD_GET"],
                                                          "0x%02x" % C["VHCA_MGMT_METHOD_GET_RESP"]]
    findings, packets = capcheck.check_file(mads)
    assert not findings and len(packets) == 2, (findings, packets)
    assert proc.poll() is None
