"""Middleware between two VMs through the standalone switch (`make
check-fabric-middleware`; Documentation/fabric-tests.md "Middleware across
VMs").

The programs and settings of `make check-middleware`
(selftests/verbs/middleware.py, libfabric.py), with the server in VM b
and the client in VM a instead of two ports of one guest: UCX's
ucx_perftest (a latency, a bandwidth and an RMA test) over rc_verbs and
over ud_verbs alone (UCX_TLS, UCX_NET_DEVICES=vhca0:1: nothing but the
vhca port can carry them), and libfabric's fi_pingpong with its data
checked (-c) over a msg endpoint (rdma_cm) and an rdm endpoint (ofi_rxm
over verbs RC).  Both bootstrap over IPoIB (fabriclib's addresses).
Not in `make test`: a pair of guests of its own.  Open MPI across two
machines needs a launcher between them (ssh) that the guests do not have.
"""
import os
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "verbs"))
import fabriclib  # noqa: E402
import libfabric  # noqa: E402
import middleware  # noqa: E402
import vmlib  # noqa: E402
from fabriclib import ADDR  # noqa: E402

UCX_CASES = [t for t in middleware.PERF_TESTS if t[0] in middleware.DEVICE_PAIR_TESTS]
UCX_DEVICE = "vhca0:1"


@pytest.fixture(scope="module")
def fabric():
    with fabriclib.two_vms(tag="fabric-mw") as state:
        yield state


@pytest.mark.parametrize("test,size,iters", UCX_CASES, ids=[c[0] for c in UCX_CASES])
@pytest.mark.parametrize("transport", sorted(middleware.TRANSPORTS))
def test_ucx_perftest_across_vms(fabric, transport, test, size, iters):
    """Both ends exit 0 and the client prints its final result line with
    the iteration count."""
    env = middleware.ucx_env(middleware.TRANSPORTS[transport], UCX_DEVICE)
    port = middleware.UCX_PORT
    _, cout = fabriclib.pair_ok(
        fabric, middleware.ucx_perftest(env, "-p %d" % port),
        middleware.ucx_perftest(env, "%s -p %d -t %s -s %s -n %d -w 10 -f"
                                % (ADDR["b"], port, test, size, iters)),
        "ucx-%s-%s" % (transport, test), listening=vmlib.tcp_listening(port))
    assert middleware.UCX_FINAL.findall(cout) == [str(iters)], cout


@pytest.mark.parametrize("endpoint", sorted(libfabric.FI_ENDPOINTS))
def test_fi_pingpong_across_vms(fabric, endpoint):
    """100 checked 1 KiB ping-pongs; the client reports them."""
    cmd = libfabric.fi_pingpong_command(endpoint)
    _, cout = fabriclib.pair_ok(
        fabric, cmd, "%s %s" % (cmd, ADDR["b"]), "fi-" + endpoint,
        listening=vmlib.tcp_listening(libfabric.FI_PORT))
    assert libfabric.FI_RESULT.search(cout), cout
