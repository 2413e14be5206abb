"""libfabric's fi_pingpong on vhca (`make check-fabric`, NOT in `make test`).

fi_pingpong -c (data checked) over a msg endpoint (`-p verbs`, rdma_cm over
IPoIB) and an rdm endpoint (`-p "verbs;ofi_rxm"`), server on ib0 (vhca0
port 1, initial namespace), client on ib1 (port 2, the namespace of
uverbs.ipoib).  Unfinished: on vhca the pair does not complete (the server
is not listening on its control port after 60 s; see Documentation/
testing.md "check-fabric"), so this stays out of `make test` until found.
"""
import os
import re
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kverbs import log  # noqa: E402
from uverbs import CM_NS, CM_SERVER_IP, ipoib, run_pair, verbs_vm  # noqa: E402,F401

FI_PORT = 47592	# fi_pingpong's control port (server side)
FI_ENDPOINTS = {
    "msg": '-p verbs -e msg',
    "rdm": '-p "verbs;ofi_rxm" -e rdm',
}


@pytest.fixture(scope="module")
def vm():
    with verbs_vm("fabric") as machine:
        yield machine


@pytest.mark.parametrize("endpoint", sorted(FI_ENDPOINTS))
def test_fi_pingpong(vm, ipoib, endpoint):
    args = "%s -c -I 100 -S 1024" % FI_ENDPOINTS[endpoint]
    src, crc, sout, cout = run_pair(
        vm, "env FI_LOG_LEVEL=warn fi_pingpong %s -s %s" % (args, CM_SERVER_IP),
        "ip netns exec %s env FI_LOG_LEVEL=warn fi_pingpong %s %s"
        % (CM_NS, args, CM_SERVER_IP), timeout=60, listen_port=FI_PORT)
    log("fi_pingpong %s" % endpoint, sout + "\n--- client ---\n" + cout)
    assert (src, crc) == (0, 0), sout + cout
    assert re.search(r"^1k\s+100\s", cout, re.M), cout
