"""The standalone switch's embedded SM in SMInfo arbitration (IBA 14.4.1.1),
without VMs: build/vhca-switch with unix socket ports, and this file
playing the CA ports behind them with the wire framing of
uapi/vhca_hw_wire.h (a HELLO, the SMA's PortInfo answers, and on one
port an SM: its SMInfo answers, HANDOVER taken, then silence); and a CA
port whose link goes down with the cable in (LINK DOWN, then HELLO).

Run by `make check-unit` (scripts/run-unit.sh); Documentation/fabric.md
"The standalone switch's SM beside opensm".
"""
import os
import select
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import switchlib  # noqa: E402
from switchlib import (GET, GET_RESP, HDR, NOTICE, PERMISSIVE, QPT_GSI,  # noqa: E402
                       QPT_SMI, SET, SM_INFO, SMP, SWITCH, WQE_SEND, port_info,
                       port_state)
from wirelayout import C  # noqa: E402

HELLO, LINK, DATAGRAM = C["VHCA_WIRE_HELLO"], C["VHCA_WIRE_LINK"], C["VHCA_WIRE_DATAGRAM"]
LINK_F_REREG = C["VHCA_WIRE_LINK_F_REREG"]
TRAP, TRAP_REPRESS = C["VHCA_MGMT_METHOD_TRAP"], C["VHCA_MGMT_METHOD_TRAP_REPRESS"]
SUBN_LID, SUBN_DR = C["VHCA_MGMT_CLASS_SUBN_LID"], C["VHCA_MGMT_CLASS_SUBN_DR"]
ATTR_NOTICE, ATTR_PORT_INFO = C["VHCA_SMP_ATTR_NOTICE"], C["VHCA_SMP_ATTR_PORT_INFO"]
ATTR_SM_INFO, ATTR_LFT = C["VHCA_SMP_ATTR_SM_INFO"], C["VHCA_SMP_ATTR_LFT"]
CAP_IS_SM = C["VHCA_PORT_CAP_SM"]
HANDOVER, ACKNOWLEDGE = C["VHCA_SMINFO_HANDOVER"], C["VHCA_SMINFO_ACKNOWLEDGE"]
STANDBY, MASTER = C["VHCA_SM_STATE_STANDBY"], C["VHCA_SM_STATE_MASTER"]
PORT_DOWN, PORT_ACTIVE = C["VHCA_PORT_DOWN"], C["VHCA_PORT_ACTIVE"]
INVALID_ATTR_VALUE = C["VHCA_MAD_STATUS_INVALID_ATTR_VALUE"]
UNSUP_METHOD_ATTR = C["VHCA_MAD_STATUS_UNSUP_METHOD_ATTR"]
SWITCH_GUID = 0x525400FF00000001
POLL_MS, RETRIES = 100, 2


def frame(kind, slid=0, dlid=0, payload=b"", opcode=WQE_SEND, qp_type=QPT_SMI,
          src_qpn=0, dst_qpn=0, guid=0, flags=0):
    """switchlib.frame with this file's defaults: an SMP, GSI's Q_Key."""
    return switchlib.frame(kind, opcode, slid, dlid, src_qpn, dst_qpn, payload,
                           qkey=C["VHCA_WIRE_GSI_QKEY"] if qp_type == QPT_GSI else 0,
                           qp_type=qp_type, guid=guid, flags=flags)


def parse(buf):
    return dict(switchlib.header(buf), payload=buf[HDR.size:])


def mad(mclass, method, attr, tid, mod=0, data=b"", status=0):
    return switchlib.smp(method, attr, tid, mod, data, status, mclass=mclass)


def mad_fields(m):
    f = SMP.unpack(m)
    return {"class": f["mgmt_class"], "method": f["method"], "status": f["status"],
            "tid": f["tid"], "attr": f["attr_id"], "mod": f["attr_mod"],
            "data": f["data"]}


def sm_info(guid, priority, state, sm_key=1, act_count=0):
    return SM_INFO.pack(guid=guid, sm_key=sm_key, act_count=act_count,
                        priority_state=priority << 4 | state)


def sm_info_fields(d):
    f = SM_INFO.unpack(d)
    return {"guid": f["guid"], "sm_key": f["sm_key"], "act_count": f["act_count"],
            "priority": f["priority_state"] >> 4, "state": f["priority_state"] & 0xF}


def notice(num, issuer_lid, details=b""):
    """A generic Notice of trap number num (IBA 13.4.8.2): informational,
    from a CA."""
    return NOTICE.pack(generic_type=C["VHCA_NOTICE_GENERIC"] | C["VHCA_TRAP_TYPE_INFO"],
                       producer_type=C["VHCA_TRAP_PRODUCER_CA"].to_bytes(3, "big"),
                       trap_number=num, issuer_lid=issuer_lid, details=details)


class Ca:
    """A CA port cabled to a switch port; optionally with an SM."""

    def __init__(self, path, port_guid, cap_mask=0):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.connect(path)
        self.guid = port_guid
        self.cap_mask = cap_mask
        self.lid = 0
        self.sm = None          # (priority, state) of its SM, or None
        self.sm_answers = True
        self.rx = b""
        self.seen = []
        self.tid = 0x7E57000000000000
        self.send_lock = threading.Lock()
        self.cond = threading.Condition()
        self.stop = False
        self.reader = threading.Thread(target=self._run, daemon=True)
        self.reader.start()

    def send(self, buf):
        with self.send_lock:
            self.sock.sendall(struct.pack(">I", len(buf)) + buf)

    def hello(self):
        payload = switchlib.hello_payload(self.guid, node_guid=self.guid ^ 1,
                                          revision=1, cap_mask=self.cap_mask,
                                          device_id=0x1, desc=b"fake CA")
        self.send(frame(HELLO, payload=payload, qp_type=0, opcode=0))

    def smp(self, method, attr, mod=0, data=b"", dlid=1):
        self.tid += 1
        self.send(frame(DATAGRAM, slid=self.lid, dlid=dlid, guid=self.guid,
                        payload=mad(SUBN_LID, method, attr, self.tid, mod, data)))
        return self.tid

    def answer(self, req, m, data, status=0):
        resp = mad(m["class"], GET_RESP, m["attr"], m["tid"], m["mod"], data,
                   status)
        self.send(frame(DATAGRAM, slid=self.lid, dlid=req["slid"],
                        guid=self.guid, payload=resp))

    def _run(self):
        """The cable's reader: every frame seen, the agents answering."""
        while not self.stop:
            r, _, _ = select.select([self.sock], [], [], 0.05)
            chunk = self.sock.recv(65536) if r else b""
            if r and not chunk:
                return                  # the switch closed the cable
            self.rx += chunk
            while len(self.rx) >= 4 and \
                    len(self.rx) >= 4 + struct.unpack(">I", self.rx[:4])[0]:
                n = struct.unpack(">I", self.rx[:4])[0]
                f = parse(self.rx[4:4 + n])
                self.rx = self.rx[4 + n:]
                self._agents(f)
                with self.cond:
                    self.seen.append(f)
                    self.cond.notify_all()

    def close(self):
        self.stop = True
        self.reader.join()
        self.sock.close()

    def _agents(self, f):
        """What the device's SMA and the guest's SM answer by themselves."""
        if f["kind"] == LINK:
            self.lid = f["dlid"]
            return
        if f["kind"] != DATAGRAM or f["qp_type"] != QPT_SMI:
            return
        m = mad_fields(f["payload"])
        if m["method"] == GET and m["attr"] == ATTR_PORT_INFO:
            self.answer(f, m, port_info(lid=self.lid, sm_lid=1, cap_mask=self.cap_mask))
        elif m["attr"] == ATTR_SM_INFO and m["method"] in (GET, SET) and self.sm:
            if m["method"] == SET and m["mod"] == HANDOVER:
                self.sm = (self.sm[0], MASTER)
            if self.sm_answers:
                self.answer(f, m, sm_info(self.guid, *self.sm))

    def count(self, want):
        with self.cond:
            return sum(1 for f in self.seen if want(f))

    def pump(self, want=None, timeout=3.0, since=None):
        """The first frame (from index since, default: from now on) that
        want() accepts, waiting up to timeout s; None."""
        end = time.monotonic() + timeout
        with self.cond:
            i = len(self.seen) if since is None else since
            while True:
                while i < len(self.seen):
                    if want and want(self.seen[i]):
                        return self.seen[i]
                    i += 1
                left = end - time.monotonic()
                if left <= 0:
                    return None
                self.cond.wait(left)

    def smp_answer(self, tid, timeout=2.0):
        f = self.pump(lambda f: f["kind"] == DATAGRAM and
                      mad_fields(f["payload"])["tid"] == tid and
                      mad_fields(f["payload"])["method"] == GET_RESP, timeout, since=0)
        assert f, "no answer to TID 0x%x" % tid
        return mad_fields(f["payload"])


def is_sminfo(f, method, mod=None):
    if f["kind"] != DATAGRAM or f["qp_type"] != QPT_SMI:
        return False
    m = mad_fields(f["payload"])
    return (m["attr"] == ATTR_SM_INFO and m["method"] == method and
            (mod is None or m["mod"] == mod))


@pytest.fixture
def switch():
    if not os.path.exists(SWITCH):
        raise FileNotFoundError("%s missing: run `make switch`" % SWITCH)
    with tempfile.TemporaryDirectory(prefix="vhca-swarb-") as d:
        log = open(os.path.join(d, "switch.log"), "w+")
        proc = subprocess.Popen(
            [SWITCH, "--ports", "2", "--dir", d, "--sm-priority", "5",
             "--sm-poll-ms", str(POLL_MS), "--sm-poll-retries", str(RETRIES),
             "--verbose"], stderr=log)
        for _ in range(100):
            if os.path.exists(os.path.join(d, "port2")):
                break
            time.sleep(0.02)
        try:
            yield d, log
        finally:
            proc.terminate()
            proc.wait(timeout=10)
            log.seek(0)
            print(log.read())


def cabled(d, num, guid, cap_mask=0):
    ca = Ca(os.path.join(d, "port%d" % num), guid, cap_mask)
    ca.hello()
    link = ca.pump(lambda f: f["kind"] == LINK, since=0)
    assert link and link["opcode"] == PORT_ACTIVE and link["flags"] == 0, link
    return ca


def switch_sm_info(ca):
    m = ca.smp_answer(ca.smp(GET, ATTR_SM_INFO))
    assert m["status"] == 0
    return sm_info_fields(m["data"])


def test_options_checked():
    for bad in (["--sm-priority", "16"], ["--sm-poll-ms", "99"],
                ["--sm-poll-retries", "256"], ["--sm-key", "x"]):
        p = subprocess.run([SWITCH, "--ports", "1", "--dir", "/nonexistent"] + bad,
                           capture_output=True, text=True, timeout=10)
        assert p.returncode == 2, (bad, p.stderr)
        assert "sm-" in p.stderr or "bad number" in p.stderr, p.stderr


def test_master_alone(switch):
    d, _ = switch
    ca = cabled(d, 1, 0x5254000000000A01)
    smi = switch_sm_info(ca)
    assert smi == dict(smi, guid=SWITCH_GUID, sm_key=1, priority=5, state=MASTER)
    # a STANDBY's ACKNOWLEDGE to a MASTER: refused (IBA 14.4, C14-38...)
    m = ca.smp_answer(ca.smp(SET, ATTR_SM_INFO, ACKNOWLEDGE,
                             sm_info(ca.guid, 1, STANDBY)))
    assert m["status"] == INVALID_ATTR_VALUE
    # HANDOVER from an SM showing the switch's own GUID: refused
    m = ca.smp_answer(ca.smp(SET, ATTR_SM_INFO, HANDOVER,
                             sm_info(SWITCH_GUID, 1, MASTER)))
    assert m["status"] == INVALID_ATTR_VALUE
    # HANDOVER from another MASTER to a MASTER: it sweeps again, with
    # ClientReregister (IBA 14.4.1: as opensm takes it)
    m = ca.smp_answer(ca.smp(SET, ATTR_SM_INFO, HANDOVER,
                             sm_info(0x5254000000000C01, 1, MASTER)))
    assert m["status"] == 0
    assert sm_info_fields(m["data"])["state"] == MASTER
    rereg = ca.pump(lambda f: f["kind"] == LINK and f["flags"], timeout=2,
                    since=0)
    assert rereg and rereg["flags"] == LINK_F_REREG and rereg["dlid"] == 2
    # its own tables: a guest's Set refused while it is MASTER
    m = ca.smp_answer(ca.smp(SET, ATTR_LFT, 0, bytes(64)))
    assert m["status"] == UNSUP_METHOD_ATTR
    # a lower SM (priority 3) is looked at and left alone
    ca.cap_mask, ca.sm = CAP_IS_SM, (3, STANDBY)
    assert ca.pump(lambda f: is_sminfo(f, GET), timeout=3), "never looked"
    assert not ca.pump(lambda f: is_sminfo(f, SET), timeout=0.6)
    assert switch_sm_info(ca)["state"] == MASTER
    ca.close()


def test_handover_then_takeover(switch):
    d, log = switch
    sm = cabled(d, 1, 0x5254000000000A01)
    other = cabled(d, 2, 0x5254000000000B01)
    assert (sm.lid, other.lid) == (2, 3)
    # an SM starts behind port 1: its PortInfo shows IsSM, and its Trap
    # 144 (CapabilityMask changed) is repressed and makes the switch look
    sm.cap_mask, sm.sm = CAP_IS_SM, (10, STANDBY)
    t0 = time.monotonic()
    trap = notice(144, sm.lid)
    tid = sm.smp(TRAP, ATTR_NOTICE, 0, trap)
    rep = sm.pump(lambda f: f["kind"] == DATAGRAM and
                  mad_fields(f["payload"])["tid"] == tid, timeout=2, since=0)
    assert rep and mad_fields(rep["payload"])["method"] == TRAP_REPRESS, rep
    assert mad_fields(rep["payload"])["data"] == trap
    ho = sm.pump(lambda f: is_sminfo(f, SET, HANDOVER), timeout=5)
    assert ho, "no HANDOVER to the higher STANDBY"
    sender = sm_info_fields(mad_fields(ho["payload"])["data"])
    assert (sender["guid"], sender["state"], sender["priority"]) == \
        (SWITCH_GUID, MASTER, 5)
    assert ho["dlid"] == PERMISSIVE and ho["dst_qpn"] == 0
    time.sleep(0.2)                         # the switch reads its answer
    handover_s = time.monotonic() - t0
    assert switch_sm_info(sm)["state"] == STANDBY
    # STANDBY: the switch takes the guest SM's Sets, its SA is silent
    m = sm.smp_answer(sm.smp(SET, ATTR_LFT, 0, bytes([0, 0, 1, 2]) + bytes(60)))
    assert m["status"] == 0
    other.send(frame(DATAGRAM, slid=other.lid, dlid=1, qp_type=QPT_GSI,
                     src_qpn=1, dst_qpn=1, guid=other.guid,
                     payload=switchlib.sa_get(C["VHCA_SA_ATTR_NODE_RECORD"], 0x99)))
    assert not other.pump(lambda f: f["qp_type"] == QPT_GSI, timeout=0.5)
    # STANDBY: a trap to LID 1 (the port's stale MasterSMLID) is not
    # repressed: traps are the master's, as opensm drops them as STANDBY
    tid = 0x0000000100001299
    send_trap(other, 144, tid)
    assert trap_answer(other, tid, timeout=0.5) == (None, None)
    # the master answers its polls: no takeover
    polls = sm.count(lambda f: is_sminfo(f, GET))
    time.sleep((RETRIES + 3) * POLL_MS / 1000.0)
    assert sm.count(lambda f: is_sminfo(f, GET)) >= polls + RETRIES + 1
    assert not other.count(lambda f: f["kind"] == LINK and f["flags"])
    assert switch_sm_info(sm)["state"] == STANDBY
    # the master dies: more than RETRIES polls unanswered, the switch takes over
    sm.sm_answers = False
    t1 = time.monotonic()
    rereg = other.pump(lambda f: f["kind"] == LINK, timeout=5)
    again = sm.pump(lambda f: f["kind"] == LINK and f["flags"], timeout=2, since=0)
    takeover_s = time.monotonic() - t1
    assert rereg, "no takeover"
    assert rereg["flags"] & LINK_F_REREG and rereg["dlid"] == 3 and rereg["slid"] == 1
    assert again and again["flags"] & LINK_F_REREG and again["dlid"] == 2
    assert switch_sm_info(other)["state"] == MASTER
    assert takeover_s >= RETRIES * POLL_MS / 1000.0
    time.sleep(3 * POLL_MS / 1000.0)
    assert switch_sm_info(other)["state"] == MASTER     # and stays
    with open(os.path.join(d, "switch.log")) as lf:
        assert "SM: trap 144 tid 0x%016x from port 2 (SLID 3) dropped: " \
            "the SM is not MASTER" % tid in lf.read()
    sm.close()
    other.close()
    print("handover %.2fs, takeover %.2fs (poll %d ms, retries %d)" %
          (handover_s, takeover_s, POLL_MS, RETRIES))


def send_trap(ca, num, tid, dr=False):
    """A Trap(Notice) of trap number num from ca (an SMA's or an SM's: IBA
    13.4.9) to the switch's SM: LID-routed to LID 1, or by directed route
    to hop 1.  The Notice sent."""
    sent = notice(num, ca.lid, bytes(range(10, 64)))   # DataDetails: echoed whole
    route = dict(hop_ptr=1, hop_cnt=1, dr_slid=PERMISSIVE, dr_dlid=PERMISSIVE) \
        if dr else {}
    m = switchlib.smp(TRAP, ATTR_NOTICE, tid, 0, sent,
                      mclass=SUBN_DR if dr else SUBN_LID, **route)
    ca.send(frame(DATAGRAM, slid=PERMISSIVE if dr else ca.lid,
                  dlid=PERMISSIVE if dr else 1, guid=ca.guid, payload=m))
    return sent


def trap_answer(ca, tid, timeout=2.0):
    """The MAD that came back with tid (its fields and the frame), or None."""
    f = ca.pump(lambda f: f["kind"] == DATAGRAM and
                mad_fields(f["payload"])["tid"] == tid, timeout, since=0)
    return (mad_fields(f["payload"]), f) if f else (None, None)


def test_traps_from_any_port_repressed_by_the_master(switch):
    """IBA 13.4.9: the master SM answers every Trap with TrapRepress of the
    same TID, attribute and Notice, whatever port it came from and whoever
    sent it: the device's SMA (TIDs 0x5443...), opensm's Trap 144 to the
    master it found (its own TIDs), another trap number, by directed route
    (the answer with the D bit).  The switch logs each one."""
    d, log = switch
    a = cabled(d, 1, 0x5254000000000A01)
    b = cabled(d, 2, 0x5254000000000B01)
    cases = [(a, 144, 0x5443000000000001, False),   # the SMA's Trap 144
             (b, 144, 0x0000000100001245, False),   # opensm's
             (b, 128, 0x0000000100001246, False),   # another number
             (a, 144, 0x0000000100001247, True)]    # directed route
    for ca, num, tid, dr in cases:
        notice = send_trap(ca, num, tid, dr)
        m, f = trap_answer(ca, tid)
        assert m, "trap %d tid 0x%x from port %s not repressed" % (
            num, tid, ca.lid)
        assert m["method"] == TRAP_REPRESS and m["attr"] == ATTR_NOTICE, m
        assert m["class"] == (SUBN_DR if dr else SUBN_LID), m
        assert m["status"] == (C["VHCA_SMP_DIRECTION"] if dr else 0), m
        assert m["data"] == notice, m
        assert f["dst_qpn"] == 0 and f["src_qpn"] == 0, f
        if not dr:
            assert (f["slid"], f["dlid"]) == (1, ca.lid), f
    with open(os.path.join(d, "switch.log")) as lf:
        text = lf.read()
    for ca, num, tid, dr in cases:
        assert "SM: trap %d tid 0x%016x from port %d" % (
            num, tid, 1 if ca is a else 2) in text, text
    a.close()
    b.close()


def switch_port_state(ca, num):
    """PortState of the switch's port num (a Get to its LID, 1)."""
    m = ca.smp_answer(ca.smp(GET, ATTR_PORT_INFO, num))
    assert m["status"] == 0
    return port_state(m["data"])


def test_ca_link_down_with_the_cable_in(switch):
    """IBA 7.2: a CA port's device reset (or portN-link off) takes the
    link down at both ends: its LINK DOWN takes the switch's port DOWN,
    and its next HELLO is a port to configure again (a LINK, ACTIVE)."""
    d, _ = switch
    ca = cabled(d, 1, 0x5254000000000A01)
    other = cabled(d, 2, 0x5254000000000B01)
    assert switch_port_state(other, 1) == PORT_ACTIVE
    ca.send(frame(LINK, opcode=PORT_DOWN, qp_type=0))
    for _ in range(50):
        if switch_port_state(other, 1) == PORT_DOWN:
            break
        time.sleep(0.02)
    assert switch_port_state(other, 1) == PORT_DOWN
    seen = len(ca.seen)
    ca.hello()
    link = ca.pump(lambda f: f["kind"] == LINK, since=seen)
    assert link and link["opcode"] == PORT_ACTIVE and link["dlid"] == 2, link
    assert switch_port_state(other, 1) == PORT_ACTIVE
    with open(os.path.join(d, "switch.log")) as f:
        assert "port 1: link down (the CA port went down)" in f.read()
    ca.close()
    other.close()
