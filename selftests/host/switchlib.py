"""The standalone switch's wire, as the host tests and the two-VM tier
speak it: the frame header and HELLO of uapi/vhca_hw_wire.h (their
layouts from wirelayout.py, dumped from the header), each frame behind a
4-byte big-endian length on a stream socket, and the switch's
control socket (tools/vhca-switch-faults.c: faults, delay, flap,
stats).  Used by selftests/host/switch_lone.py, switch_arb.py and
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
    assert link["kind"] == KIND_LINK and link["opcode"] == 4 and link["slid"] == 1, link
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
