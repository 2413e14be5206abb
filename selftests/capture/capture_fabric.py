"""`make check-capture` (Documentation/fabric-tests.md "Capture"): captures of a
real workload, decoded by Debian's tshark and checked from its own fields.

Two VMs through the standalone switch (selftests/fabric/fabriclib.py),
the switch started with `--capture build/capture/switch.pcapng` (every
port, both directions); VM b's vhca0 port 1 captured by the device too,
started and stopped from QMP (qom-set port1-capture), into
build/capture/vm-b-port1.pcapng.  The workload: an SMP sweep from VM a
(ibnetdiscover, directed-route SMPs through the switch), an SA query
(saquery from VM b), then NVMe over RDMA: connect (rdma_cm: SA path
record, CM REQ/REP/RTU), fio 4 KiB random writes verified, the bytes read
back compared with VM a's backend, disconnect
(twovm_ulp.nvme_connect_fio_verify).

Checked on each file (selftests/capture/capcheck.py): every packet is
erf:infiniband in tshark with no malformed mark and no expert warning,
ICRC and VCRC recomputed; then from tshark's fields: the opcode counts
(RC SEND, RDMA WRITE, RDMA READ request and response, ACK, UD SEND of
MADs), each RC requester's PSN sequence (no gap: a packet's PSN is the
last one's plus the PSNs it used, or a retransmission of one before) and
each CM REQ answered by a REP and an RTU naming its communication IDs.
Run by scripts/run-verbs-pytest.sh (not collected by pytest's test_*.py
pattern, and not in `make test`).
"""
import collections
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "fabric"))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "host"))
import capcheck  # noqa: E402
import fabriclib  # noqa: E402
import twovm_ulp  # noqa: E402
from fabriclib import log  # noqa: E402
from wirelayout import C  # noqa: E402

OUT = os.path.join(fabriclib.vmlib.BUILD, "capture")
SWITCH_PCAP = os.path.join(OUT, "switch.pcapng")
DEVICE_PCAP = os.path.join(OUT, "vm-b-port1.pcapng")



def bth(*names, transport="RC"):
    """The BTH opcodes (fabric/vhca-bth.h: IBA 9.2.1) of these operations."""
    return {C["VHCA_BTH_" + transport] | C["VHCA_BTH_" + n] for n in names}


RC_SEND = bth("SEND_FIRST", "SEND_MIDDLE", "SEND_LAST", "SEND_LAST_IMM",
              "SEND_ONLY", "SEND_ONLY_IMM")
RC_WRITE = bth("WRITE_FIRST", "WRITE_MIDDLE", "WRITE_LAST", "WRITE_LAST_IMM",
               "WRITE_ONLY", "WRITE_ONLY_IMM")
RC_REQUEST_DATA = RC_SEND | RC_WRITE
(RC_READ_REQUEST,) = bth("READ_REQUEST")
RC_ATOMICS = bth("CMP_SWAP", "FETCH_ADD")
(RC_ACK,) = bth("ACK")
(UD_SEND_ONLY,) = bth("SEND_ONLY", transport="UD")
RC_READ_RESPONSE = bth("READ_RESP_FIRST", "READ_RESP_MIDDLE", "READ_RESP_LAST",
                       "READ_RESP_ONLY")
MIDDLES = bth("SEND_MIDDLE", "WRITE_MIDDLE", "READ_RESP_MIDDLE")
# Bytes around a packet's payload without GRH: LRH, BTH; ICRC, VCRC.
HEADERS = C["VHCA_LRH_SIZE"] + C["VHCA_BTH_SIZE"] + C["VHCA_ICRC_SIZE"] + C["VHCA_VCRC_SIZE"]
SMP_CLASSES = {"0x%02x" % C[n] for n in ("VHCA_MGMT_CLASS_SUBN_LID", "VHCA_MGMT_CLASS_SUBN_DR")}
SA_CLASS = "0x%02x" % C["VHCA_MGMT_CLASS_SUBN_ADM"]
CM_CLASS = "0x07"           # IBA 13.4.4: CommunicationManagement
FIELDS = ["frame.number", "frame.len", "frame.p2p_dir",
          "infiniband.lrh.slid", "infiniband.lrh.dlid",
          "infiniband.bth.opcode", "infiniband.bth.destqp",
          "infiniband.bth.psn", "infiniband.reth.dmalen",
          "infiniband.mad.mgmtclass", "infiniband.mad.attributeid",
          "infiniband.cm.req", "infiniband.cm.rep",
          "infiniband.cm.req.localqpn", "infiniband.cm.rep.localqpn",
          "infiniband.cm.rep.remotecommid", "infiniband.cm.rtu.localcommid",
          "infiniband.cm.rtu.remotecommid"]


def rows_of(path, inbound_only):
    """tshark's fields of each packet; the switch's packets once (as they
    came in), not again as they left."""
    rows = capcheck.tshark_fields(path, FIELDS)
    if inbound_only:
        rows = [r for r in rows if r["frame.p2p_dir"] == "1"]
    for r in rows:
        r["op"] = int(r["infiniband.bth.opcode"])
        r["psn"] = int(r["infiniband.bth.psn"])
    return rows


def path_mtu(rows):
    """The MTU the RC data packets were cut at: a Middle packet (SEND,
    WRITE, READ response) carries exactly one MTU after its LRH and BTH,
    before its ICRC and VCRC; 4096 when no message needed one."""
    middles = [int(r["frame.len"]) - HEADERS for r in rows if r["op"] in MIDDLES]
    return max(middles) if middles else 4096


def psn_findings(rows, mtu):
    """Each RC requester stream (by SLID, DLID, destination QP): a packet
    continues the last one (PSN + the PSNs it used: 1, or a READ's
    response packets) or retransmits an earlier one; never a gap.  A CM
    REQ or REP naming a QP starts a new connection on it (a QP number is
    reused, with a new starting PSN, IBA 12.6.5/12.6.8): the streams into
    it start again."""
    expect = {}
    findings, retransmits = [], 0
    for r in rows:
        for field in ("infiniband.cm.req.localqpn", "infiniband.cm.rep.localqpn"):
            if r[field]:
                qpn = int(r[field], 0)
                expect = {k: v for k, v in expect.items() if k[2] != qpn}
        op = r["op"]
        if op not in RC_REQUEST_DATA and op != RC_READ_REQUEST and op not in RC_ATOMICS:
            continue
        key = (r["infiniband.lrh.slid"], r["infiniband.lrh.dlid"],
               int(r["infiniband.bth.destqp"], 0))
        used = 1
        if op == RC_READ_REQUEST:
            length = int(r["infiniband.reth.dmalen"] or 0)
            used = max(1, (length + mtu - 1) // mtu)
        want = expect.get(key)
        if want is not None and r["psn"] != want:
            if (want - r["psn"]) % (1 << 24) < (1 << 23):
                retransmits += 1        # an earlier PSN again: a resend
            else:
                findings.append("frame %s: QP %s PSN %d, expected %d" %
                                (r["frame.number"], key, r["psn"], want))
        expect[key] = (r["psn"] + used) % (1 << 24)
    return findings, retransmits


def cm_findings(rows):
    """Every CM REQ has its REP (remote ID = the REQ's local ID) and the
    RTU (local, remote = REQ's, REP's local IDs)."""
    reqs = [r["infiniband.cm.req"] for r in rows if r["infiniband.cm.req"]]
    reps = {r["infiniband.cm.rep.remotecommid"]: r["infiniband.cm.rep"]
            for r in rows if r["infiniband.cm.rep"]}
    rtus = {(r["infiniband.cm.rtu.localcommid"],
             r["infiniband.cm.rtu.remotecommid"])
            for r in rows if r["infiniband.cm.rtu.localcommid"]}
    findings = []
    for req in set(reqs):
        if req not in reps:
            findings.append("CM REQ %s: no REP" % req)
        elif (req, reps[req]) not in rtus:
            findings.append("CM REQ %s / REP %s: no RTU" % (req, reps[req]))
    return len(set(reqs)), findings


def check(path, inbound_only):
    """All findings about one capture; prints its summary."""
    findings, packets = capcheck.check_file(path)
    rows = rows_of(path, inbound_only)
    ops = collections.Counter(r["op"] for r in rows)
    psn_bad, resent = psn_findings(rows, path_mtu(rows))
    ncm, cm_bad = cm_findings(rows)
    counts = {
        "RC SEND": sum(ops[o] for o in RC_SEND),
        "RC RDMA WRITE": sum(ops[o] for o in RC_WRITE),
        "RC READ request": ops[RC_READ_REQUEST],
        "RC READ response": sum(ops[o] for o in RC_READ_RESPONSE),
        "RC ACK": ops[RC_ACK],
        "UD SEND (MADs, IPoIB)": ops[UD_SEND_ONLY],
        "SMPs": sum(1 for r in rows if r["infiniband.mad.mgmtclass"] in SMP_CLASSES),
        "SA MADs": sum(1 for r in rows if r["infiniband.mad.mgmtclass"] == SA_CLASS),
        "CM MADs": sum(1 for r in rows if r["infiniband.mad.mgmtclass"] == CM_CLASS),
    }
    log("capture %s" % path,
        "%d packets (%d checked as received), %d findings\n%s\n"
        "CM connections %d; PSN retransmissions %d\n%s" %
        (len(packets), len(rows), len(findings) + len(psn_bad) + len(cm_bad),
         "\n".join("%-22s %d" % kv for kv in counts.items()), ncm, resent,
         "\n".join((findings + psn_bad + cm_bad)[:40])))
    return findings + psn_bad + cm_bad, counts, ncm


def test_capture_sweep_sa_nvme_fio():
    os.makedirs(OUT, exist_ok=True)
    for p in (SWITCH_PCAP, DEVICE_PCAP):
        if os.path.exists(p):
            os.unlink(p)
    with fabriclib.two_vms(tag="capture",
                           switch_args=["--capture", SWITCH_PCAP]) as state:
        vm_a, vm_b = state["vms"]["a"], state["vms"]["b"]
        vm_b.qmp("qom-set", path="vhca0", property="port1-capture",
                 value=DEVICE_PCAP)
        vm_a.run("ibnetdiscover", timeout=60, check=True)
        vm_b.run("saquery -p 2>&1 | head -40", timeout=60, check=True)
        twovm_ulp.nvme_connect_fio_verify(state)
        stats = vm_b.qmp("qom-get", path="vhca0", property="port1-capture-stats")
        vm_b.qmp("qom-set", path="vhca0", property="port1-capture", value="")
        log("device capture", "VM b port 1: %s" % stats)
    bad = []
    for path, inbound_only in ((SWITCH_PCAP, True), (DEVICE_PCAP, False)):
        findings, counts, ncm = check(path, inbound_only)
        bad += findings
        if path == SWITCH_PCAP and not counts["SMPs"]:
            bad.append("switch capture: no SMP (ibnetdiscover's sweep)")
        for what in ("RC SEND", "RC RDMA WRITE", "RC READ request",
                     "RC READ response", "RC ACK", "SA MADs", "CM MADs"):
            if not counts[what]:
                bad.append("%s: no %s" % (path, what))
        if not ncm:
            bad.append("%s: no CM REQ" % path)
    assert not bad, "\n".join(bad[:40])
