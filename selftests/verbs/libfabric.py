"""libfabric's fi_pingpong on vhca, for check-middleware (middleware.py).

fi_pingpong -c (data checked) between ib0 (vhca0 port 1, initial namespace,
the server) and ib1 (port 2, the namespace of uverbs.ipoib, the client),
over a msg endpoint (`-p verbs`, rdma_cm over IPoIB) and an rdm endpoint
(`-p "verbs;ofi_rxm"`: ofi_rxm's reliable datagrams over verbs RC QPs; it
sizes its verbs CQ as (tx + rx size) * universe size, 65536 entries, which
needs the device's max_cqe of 2^22 - 1).
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from vmlib import log  # noqa: E402
from uverbs import CM_NS, CM_SERVER_IP, run_pair  # noqa: E402

FI_PORT = 47592	# fi_pingpong's control port (server side)
FI_ENDPOINTS = {
    "msg": '-p verbs -e msg',
    "rdm": '-p "verbs;ofi_rxm" -e rdm',
}


# The client's report of 100 ping-pongs of 1 KiB.
FI_RESULT = re.compile(r"^1k\s+100\s", re.M)


def fi_pingpong_command(endpoint):
    """The server's command line (the client's adds the server's address):
    100 checked (-c) 1 KiB ping-pongs."""
    return "env FI_LOG_LEVEL=warn fi_pingpong %s -c -I 100 -S 1024" % FI_ENDPOINTS[endpoint]


def fi_pingpong(vm, endpoint):
    """100 checked 1 KiB ping-pongs; both sides exit 0, the client reports."""
    cmd = fi_pingpong_command(endpoint)
    src, crc, sout, cout = run_pair(
        vm, cmd, "ip netns exec %s %s %s" % (CM_NS, cmd, CM_SERVER_IP),
        timeout=60, listen_port=FI_PORT)
    log("fi_pingpong %s" % endpoint, sout + "\n--- client ---\n" + cout)
    assert (src, crc) == (0, 0), sout + cout
    assert FI_RESULT.search(cout), cout
