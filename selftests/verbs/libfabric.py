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


def fi_pingpong(vm, endpoint):
    """100 checked 1 KiB ping-pongs; both sides exit 0, the client reports."""
    args = "%s -c -I 100 -S 1024" % FI_ENDPOINTS[endpoint]
    src, crc, sout, cout = run_pair(
        vm, "env FI_LOG_LEVEL=warn fi_pingpong %s" % args,
        "ip netns exec %s env FI_LOG_LEVEL=warn fi_pingpong %s %s"
        % (CM_NS, args, CM_SERVER_IP), timeout=60, listen_port=FI_PORT)
    log("fi_pingpong %s" % endpoint, sout + "\n--- client ---\n" + cout)
    assert (src, crc) == (0, 0), sout + cout
    assert re.search(r"^1k\s+100\s", cout, re.M), cout
