"""The standalone switch's wire, as the host tests and the two-VM tier
speak it: the frame header and HELLO of uapi/vhca_hw_wire.h and the MADs
of fabric/vhca-mad.h (their layouts from wirelayout.py, dumped from the
headers), each frame behind a 4-byte big-endian length on a stream
socket, and the switch's control socket (tools/vhca-switch-faults.c:
faults, delay, flap, stats).  Used by selftests/host/switch_*.py and
selftests/fabric/twovms.py.
"""
import os
import socket
import struct
import time

from wirelayout import C, layout

SWITCH = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), "build", "vhca-switch")
HDR = layout("vhca_wire_hdr")
HELLO = layout("vhca_wire_hello")
KIND_HELLO, KIND_LINK, KIND_DATAGRAM = (C["VHCA_WIRE_HELLO"], C["VHCA_WIRE_LINK"],
                                        C["VHCA_WIRE_DATAGRAM"])
WQE_SEND, QPT_SMI, QPT_GSI = C["VHCA_WQE_SEND"], C["VHCA_QPT_SMI"], C["VHCA_QPT_GSI"]
GSI_QKEY, PERMISSIVE = C["VHCA_WIRE_GSI_QKEY"], C["VHCA_LID_PERMISSIVE"]
MAD_HDR, SMP, SA_MAD = layout("vhca_mad_hdr"), layout("vhca_smp"), layout("vhca_sa_mad")
SM_INFO, NOTICE = layout("vhca_smp_sm_info"), layout("vhca_smp_notice")
NODE_INFO, PORT_INFO = layout("vhca_smp_node_info"), layout("vhca_smp_port_info")
SWITCH_INFO = layout("vhca_smp_switch_info")
GET, SET, GET_RESP = (C["VHCA_MGMT_METHOD_GET"], C["VHCA_MGMT_METHOD_SET"],
                      C["VHCA_MGMT_METHOD_GET_RESP"])


def frame(kind, opcode=0, slid=0, dlid=0, sqpn=0, dqpn=0, payload=b"",
          qkey=0, qp_type=C["VHCA_QPT_UD"], length=None, guid=0, flags=0):
    """A frame: the header (one packet when there is a payload) and payload;
    guid is the sender's port GUID, flags the LINK flags."""
    length = len(payload) if length is None else length
    return HDR.pack(magic=C["VHCA_WIRE_MAGIC"], version=C["VHCA_WIRE_VERSION"],
                    kind=kind, opcode=opcode, slid=slid, dlid=dlid,
                    src_qpn=sqpn, dst_qpn=dqpn, packets=1 if payload else 0,
                    length=length, payload_len=len(payload), qkey=qkey,
                    src_guid=guid, flags=flags, qp_type=qp_type) + payload


def smp(method, attr, tid, mod=0, data=b"", status=0,
        mclass=C["VHCA_MGMT_CLASS_SUBN_LID"], **fields):
    """An SMP (fabric/vhca-mad.h struct vhca_smp), LID-routed unless
    fields say otherwise."""
    return SMP.pack(base_version=1, mgmt_class=mclass, class_version=1,
                    method=method, status=status, tid=tid, attr_id=attr,
                    attr_mod=mod, data=data, **fields)


def dr_smp(path, attr, tid, mod=0, method=GET, data=b""):
    """A directed-route SMP as the SM's CA sends it (hop pointer 1: the CA
    took hop 0, IBA C14-9:1); path: the output ports of the nodes on it,
    the CA's first."""
    return smp(method, attr, tid, mod, data, mclass=C["VHCA_MGMT_CLASS_SUBN_DR"],
               hop_ptr=1, hop_cnt=len(path), dr_slid=PERMISSIVE,
               dr_dlid=PERMISSIVE, initial_path=bytes([0] + list(path)))


def smp_status(m):
    """An SMP's status without its D bit."""
    return SMP.unpack(m)["status"] & ~C["VHCA_SMP_DIRECTION"]


def sa_get(attr, tid):
    """A SubnAdm Get (fabric/vhca-mad.h struct vhca_sa_mad)."""
    return SA_MAD.pack(base_version=1, mgmt_class=C["VHCA_MGMT_CLASS_SUBN_ADM"],
                       class_version=C["VHCA_SA_CLASS_VERSION"], method=GET,
                       tid=tid, attr_id=attr)


def port_info(state=0, lid=0, sm_lid=0, cap_mask=0, gid_prefix=0):
    """PortInfo's 64 bytes: PortState (0: no change), LID, MasterSMLID,
    CapabilityMask and GidPrefix; the rest 0."""
    return PORT_INFO.pack(speed_supported_state=state, lid=lid, master_sm_lid=sm_lid,
                          cap_mask=cap_mask, gid_prefix=gid_prefix)


def port_state(data):
    """The PortState of PortInfo's bytes."""
    return PORT_INFO.unpack(data)["speed_supported_state"] & 0xF


def smi_frame(payload, slid=0, dlid=PERMISSIVE):
    """An SMP's frame: SMI QP to SMI QP."""
    return frame(KIND_DATAGRAM, opcode=WQE_SEND, slid=slid, dlid=dlid,
                 payload=payload, qp_type=QPT_SMI)


def gsi_frame(payload, slid, dlid):
    """A GMP's frame: GSI QP to GSI QP, with GSI's Q_Key."""
    return frame(KIND_DATAGRAM, opcode=WQE_SEND, slid=slid, dlid=dlid, sqpn=1,
                 dqpn=1, payload=payload, qkey=GSI_QKEY, qp_type=QPT_GSI)


def header(buf):
    """The header of a frame from the switch, as a dict of its fields."""
    return HDR.unpack(buf[:HDR.size])


def hello_payload(port_guid, node_guid=None, vendor_id=0x525400, revision=0,
                  cap_mask=0, device_id=0x10f0, desc=b"t"):
    """A one-port CA's HELLO: its node as its SMA describes it."""
    node_guid = port_guid - 1 if node_guid is None else node_guid
    return HELLO.pack(node_guid=node_guid, sys_image_guid=node_guid,
                      port_guid=port_guid, vendor_id=vendor_id, revision=revision,
                      cap_mask=cap_mask, device_id=device_id, num_ports=1,
                      local_port=1, node_desc=desc)


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
    send(sock, frame(KIND_HELLO, payload=hello_payload(guid, desc=b"host test")))
    link = header(recv(sock))
    assert link["kind"] == KIND_LINK and link["opcode"] == C["VHCA_PORT_ACTIVE"] and \
        link["slid"] == C["VHCA_WIRE_SM_LID"], link
    return link["dlid"]     # the LID the SM gave


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
