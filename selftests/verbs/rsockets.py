"""librdmacm's riostream with every size and data verified, for
check-uverbs (uverbs.py, between vhca1 and vhca0 in one guest) and
check-fabric (fabric/twovms.py, across two VMs).

riostream -T v: the client riowrite()s into the server's riomap()ed buffer
and the server spins on the buffer's last byte, then checks every byte
(librdmacm/examples/riostream.c recv_xfer), and the other way round: the
test of a device placing a WRITE's bytes in address order (issue 24,
Documentation/device.md "Placement order").  -S all: riostream's 33 sizes
(64 B to 6 MiB), a latency and a bandwidth test each.
"""
import re

SIZES = 33
# A result line: name, size, transfers, iterations, bytes, seconds.
RESULT = re.compile(r"^\S+_(?:lat|bw)\s+\S+\s+\S+\s+\S+\s+\S+\s+[\d.]+s", re.M)


def server_command(server_ip):
    return "riostream -b %s -S all -T v" % server_ip


def client_command(server_ip, client_ip=None):
    bind = " -b %s" % client_ip if client_ip else ""
    return "riostream -s %s%s -S all -T v" % (server_ip, bind)


def check(server_out, client_out):
    """Both sides reported every test, and neither a verification failure
    nor a failed riomap (what the bug left behind)."""
    for side, out in (("server", server_out), ("client", client_out)):
        assert "verification failed" not in out and "riomap" not in out, \
            "%s:\n%s" % (side, out[-3000:])
        assert len(RESULT.findall(out)) == 2 * SIZES, "%s:\n%s" % (side, out[-3000:])
