"""The standalone switch's wire, as the host tests and the two-VM tier
speak it: the frame header of qemu-device/vhca-wire.h (struct
VhcaWireFrame: magic, version, kind, ...), each frame behind a 4-byte
big-endian length on a stream socket, a CA port's HELLO, and the switch's
control socket (tools/vhca-switch-faults.c: faults, delay, flap,
stats).  Used by selftests/host/switch_lone.py, switch_arb.py and
selftests/fabric/twovms.py.
"""
import os
import socket
import struct
import time

SWITCH = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), "build", "vhca-switch")
HDR = struct.Struct("<IBBBBHHIIIIIIIIIIIQQQQBBBBBBHII16s")
HELLO = struct.Struct("<QQQIIIHBB64s")
KIND_HELLO, KIND_LINK, KIND_DATAGRAM = 1, 2, 5
WIRE_MAGIC = 0x56484346        # qemu-device/vhca-wire.h VHCA_WIRE_MAGIC
WIRE_VERSION = 2               # qemu-device/vhca-wire.h VHCA_WIRE_VERSION


def frame(kind, opcode=0, slid=0, dlid=0, sqpn=0, dqpn=0, payload=b"",
          qkey=0, qp_type=3, length=None, guid=0, flags=0):
    """A frame: the header (one packet when there is a payload) and payload;
    guid is the sender's port GUID, flags the LINK flags."""
    length = len(payload) if length is None else length
    return HDR.pack(WIRE_MAGIC, WIRE_VERSION, kind, opcode, 0, slid, dlid,
                    sqpn, dqpn, 0, 1 if payload else 0, length, len(payload),
                    0, 0, qkey, 0, 0, 0, 0, 0, guid, 0, flags, 0, qp_type,
                    0, 0, 0, 0, 0, b"\0" * 16) + payload


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
