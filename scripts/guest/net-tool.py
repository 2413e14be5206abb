#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Runs in the guest (which has no ping, nc or socat): small network tools
for the IPoIB selftests (selftests/test_ipoib.py).

  net-tool.py ping ADDR COUNT [TIMEOUT]   ICMP echo; exit 0 if all answered
  net-tool.py serve PORT BYTES            TCP: accept one connection, read
                                          BYTES, print "bytes=N sha256=H"
  net-tool.py send ADDR PORT BYTES        TCP: send BYTES of pseudo-random
                                          data, print "bytes=N sha256=H"
"""
import hashlib
import os
import socket
import struct
import sys
import time

CHUNK = 1 << 16


def checksum(data):
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    s = (s >> 16) + (s & 0xffff)
    s += s >> 16
    return ~s & 0xffff


def ping(addr, count, timeout=5.0):
    sock = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP)
    ident = os.getpid() & 0xffff
    received = 0
    for seq in range(1, count + 1):
        payload = struct.pack("!d", time.time()) + b"vhca-ipoib" * 4
        hdr = struct.pack("!BBHHH", 8, 0, 0, ident, seq)
        pkt = struct.pack("!BBHHH", 8, 0, checksum(hdr + payload), ident, seq) + payload
        start = time.time()
        sock.sendto(pkt, (addr, 0))
        while True:
            left = timeout - (time.time() - start)
            if left <= 0:
                print("seq %d: timeout" % seq)
                break
            sock.settimeout(left)
            try:
                data, _ = sock.recvfrom(4096)
            except socket.timeout:
                continue
            ihl = (data[0] & 0xf) * 4
            typ, _, _, rid, rseq = struct.unpack("!BBHHH", data[ihl:ihl + 8])
            if typ == 0 and rid == ident and rseq == seq:
                received += 1
                print("seq %d: reply from %s in %.1f ms" %
                      (seq, addr, (time.time() - start) * 1000))
                break
        time.sleep(0.2)
    print("%d packets transmitted, %d received" % (count, received))
    return 0 if received == count else 1


def stream(nbytes):
    """Deterministic pseudo-random data, CHUNK bytes at a time."""
    block = hashlib.sha512(b"vhca").digest() * (CHUNK // 64)
    sent = 0
    i = 0
    while sent < nbytes:
        n = min(CHUNK, nbytes - sent)
        # Vary every chunk so that a misplaced chunk changes the checksum.
        yield struct.pack("!Q", i) + block[8:n] if n >= 8 else block[:n]
        sent += n
        i += 1


def serve(port, nbytes):
    lsock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    lsock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    lsock.bind(("0.0.0.0", port))
    lsock.listen(1)
    print("listening", flush=True)
    conn, _ = lsock.accept()
    h = hashlib.sha256()
    got = 0
    while got < nbytes:
        data = conn.recv(CHUNK)
        if not data:
            break
        h.update(data)
        got += len(data)
    conn.close()
    print("bytes=%d sha256=%s" % (got, h.hexdigest()), flush=True)
    return 0 if got == nbytes else 1


def send(addr, port, nbytes):
    sock = socket.create_connection((addr, port), timeout=60)
    h = hashlib.sha256()
    total = 0
    for chunk in stream(nbytes):
        sock.sendall(chunk)
        h.update(chunk)
        total += len(chunk)
    sock.shutdown(socket.SHUT_WR)
    sock.close()
    print("bytes=%d sha256=%s" % (total, h.hexdigest()), flush=True)
    return 0


def main(argv):
    if len(argv) >= 3 and argv[0] == "ping":
        return ping(argv[1], int(argv[2]), float(argv[3]) if len(argv) > 3 else 5.0)
    if len(argv) == 3 and argv[0] == "serve":
        return serve(int(argv[1]), int(argv[2]))
    if len(argv) == 4 and argv[0] == "send":
        return send(argv[1], int(argv[2]), int(argv[3]))
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
