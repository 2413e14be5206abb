"""librdmacm's riostream with data verified, for check-uverbs (uverbs.py,
between vhca1 and vhca0 in one guest: -S all), check-fabric
(fabric/twovms.py, across two VMs: QUICK) and check-riostream
(fabric/twovms.py across two VMs: -S all, not in `make test`).

riostream -T v: the client riowrite()s into the server's riomap()ed buffer
and the server spins on the buffer's last byte, then checks every byte
(librdmacm/examples/riostream.c recv_xfer), and the other way round: the
test of a device placing a WRITE's bytes in address order (issue 24,
Documentation/device-datapath.md "Placement order").

-S all runs riostream's 33 sizes (64 B to 6 MiB), a latency and a
bandwidth test each, with its own counts (100000 round trips for every
size below 1 KiB), all latency tests on one connection and all bandwidth
tests on another, so each size's riomap() follows the earlier sizes'
(the state the bug needed).  In one guest that takes under 3 minutes.
Across two single-vCPU VMs both riostreams spin on a 2-core host beside
two QEMU main loops and the switch, and each round trip waits for the
host's scheduler: that is `make check-riostream` (VHCA_RIOSTREAM_FULL=1)
alone.  check-fabric runs QUICK instead: one riostream per size, -I round
trips of one transfer each (-C 1), every one verified: sizes on both
sides of the provider's 512-byte inline limit (a WRITE above it is copied
from rsockets' send ring, whose position moves) up to 1 MiB.
"""
import os
import re

import vmlib  # selftests/ is on its callers' sys.path

SIZES = 33
FULL = os.environ.get("VHCA_RIOSTREAM_FULL") == "1"
# A -S all run's bounds: in one guest (under 3 minutes on a quiet host),
# and across two VMs.
ONE_GUEST_SECONDS = 1800
FULL_SECONDS = 4 * 3600


def progress_file(tier):
    """Where a -S all run of `tier` writes its progress while it runs
    (uverbs.run_pair, fabriclib.pair_watched)."""
    return os.path.join(vmlib.BUILD, "results", "riostream-%s.log" % tier)


# (bytes, verified round trips)
QUICK = [(64, 200), (512, 200), (768, 500), (4096, 200), (65536, 40), (1 << 20, 8)]
# A result line: name, size, transfers, iterations, bytes, seconds.
RESULT = re.compile(r"^(?:\S+_(?:lat|bw)|custom)\s+\S+\s+\S+\s+\S+\s+\S+\s+[\d.]+s", re.M)


def args(size=None, iters=None):
    """-S all, or iters verified round trips of size bytes."""
    if size is None:
        return "-S all -T v"
    return "-S %d -I %d -C 1 -T v" % (size, iters)


# Line-buffered output: a run that times out still shows how far it got.
def server_command(server_ip, options):
    return "stdbuf -oL riostream -b %s %s" % (server_ip, options)


def client_command(server_ip, options, client_ip=None):
    bind = " -b %s" % client_ip if client_ip else ""
    return "stdbuf -oL riostream -s %s%s %s" % (server_ip, bind, options)


def check(server_out, client_out, options):
    """Both sides reported every test, and neither a verification failure
    nor a failed riomap (what the bug left behind)."""
    tests = 2 * SIZES if "-S all" in options else 1
    for side, out in (("server", server_out), ("client", client_out)):
        assert "verification failed" not in out and "riomap" not in out, \
            "%s:\n%s" % (side, out[-3000:])
        assert len(RESULT.findall(out)) == tests, "%s:\n%s" % (side, out[-3000:])
