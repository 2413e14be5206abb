"""The ports' hardware counters of `rdma statistic show` (iproute2's rdma
tool) and sysfs' ports/P/hw_counters: the driver's get_hw_stats reads the
device's PMA over VHCA_CMD_MAD_IFC (driver/shim/stats.c), the same
counters perfquery reads across the link (test_perfquery.py).

Known traffic (ibv_rc_pingpong, vhca0 port 1 to vhca1 port 1) must move
them by at least what it sent, and perfquery, read between two reads of
`rdma statistic`, must see values between the two.  The tests share the
session VM.
"""
import re

import pytest

import vmlib
from test_diags import lids  # noqa: F401  (the fixture)
from test_perfquery import counters as perfquery_counters

PROVIDER = "%s/build/provider" % vmlib.REPO
# What get_hw_stats reports, in stats.c's order.
NAMES = ("port_xmit_data", "port_rcv_data", "port_xmit_packets",
         "port_rcv_packets", "unicast_xmit_packets", "unicast_rcv_packets",
         "multicast_xmit_packets", "multicast_rcv_packets", "link_downed",
         "port_rcv_errors", "port_xmit_discards")
# perfquery -x's name of each counter it also prints.
PERFQUERY_X = {
    "port_xmit_data": "PortXmitData", "port_rcv_data": "PortRcvData",
    "port_xmit_packets": "PortXmitPkts", "port_rcv_packets": "PortRcvPkts",
    "unicast_xmit_packets": "PortUnicastXmitPkts",
    "unicast_rcv_packets": "PortUnicastRcvPkts",
    "multicast_xmit_packets": "PortMulticastXmitPkts",
    "multicast_rcv_packets": "PortMulticastRcvPkts",
}
ITERS = 50
SIZE = 4096
MTU = 1024                      # ibv_rc_pingpong's default path MTU


def rdma_stats(vm, dev, port):
    """`rdma statistic show link dev/port` as {name: int}.  iproute2 6.1
    (Debian 12) prints the counters on the `link` line, 6.15 (Debian 13)
    one per line below it: everything up to the next `link` is taken."""
    _, out = vm.run("rdma statistic show link %s/%d" % (dev, port),
                    timeout=60, check=True)
    block = re.findall(r"^link %s/%d\b(.*?)(?=^link |\Z)" % (dev, port), out, re.M | re.S)
    assert len(block) == 1, out
    return {m.group(1): int(m.group(2))
            for m in re.finditer(r"(\w+) (\d+)", block[0])}


@pytest.fixture(scope="module")
def provider(vm):
    """The libibverbs provider in the guest, for ibv_rc_pingpong."""
    vm.run("sh %s/scripts/guest/install-provider.sh %s" % (vmlib.REPO, PROVIDER),
           timeout=60, check=True)


def test_rdma_statistic_lists_the_device_counters(vm, lids):
    for dev, port in (("vhca0", 1), ("vhca0", 2), ("vhca1", 1)):
        stats = rdma_stats(vm, dev, port)
        assert tuple(stats) == NAMES, stats
        assert stats["port_xmit_packets"] > 0, stats   # its SM's MADs at least
        # (link_downed is not 0 after test_first_light's QMP link down.)
        assert stats["port_rcv_errors"] == 0, stats
    _, out = vm.run("ls /sys/class/infiniband/vhca0/ports/1/hw_counters",
                    timeout=60, check=True)
    for name in NAMES:
        assert name in out.split(), out


def test_rdma_statistic_agrees_with_perfquery(vm, lids):
    before = rdma_stats(vm, "vhca0", 1)
    _, out = vm.run("perfquery -x -C vhca0 -P 1", timeout=60, check=True)
    seen = perfquery_counters(out)
    after = rdma_stats(vm, "vhca0", 1)
    for name, pq in PERFQUERY_X.items():
        assert before[name] <= seen[pq] <= after[name], (name, before, seen, after)


def test_rdma_statistic_counts_pingpong_traffic(vm, lids, provider):
    a0, b0 = rdma_stats(vm, "vhca0", 1), rdma_stats(vm, "vhca1", 1)
    vm.run("ibv_rc_pingpong -d vhca1 -i 1 -n %d -s %d > /tmp/hwc-srv.out 2>&1 &"
           % (ITERS, SIZE), timeout=30, check=True)
    vm.wait_until("ss -ltn", lambda t: ":18515 " in t, timeout=30)
    rc, out = vm.run("ibv_rc_pingpong -d vhca0 -i 1 -n %d -s %d localhost"
                     % (ITERS, SIZE), timeout=120)
    assert rc == 0 and "%d iters" % ITERS in out, out
    vm.wait_until("cat /tmp/hwc-srv.out", lambda t: "iters" in t, timeout=60)
    a1, b1 = rdma_stats(vm, "vhca0", 1), rdma_stats(vm, "vhca1", 1)
    # Each side sent ITERS messages of SIZE bytes, SIZE / MTU packets each.
    packets = ITERS * (SIZE // MTU)
    words = ITERS * SIZE // 4
    for before, after in ((a0, a1), (b0, b1)):
        moved = {n: after[n] - before[n] for n in NAMES}
        assert moved["port_xmit_packets"] >= packets, moved
        assert moved["port_rcv_packets"] >= packets, moved
        assert moved["unicast_xmit_packets"] >= packets, moved
        assert moved["port_xmit_data"] >= words, moved
        assert moved["port_rcv_data"] >= words, moved
        assert moved["port_rcv_errors"] == 0, moved
