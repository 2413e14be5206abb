"""perfquery against the ports' Performance Management Agents.

A PerfMgt MAD (class 0x04) that reaches QPN 1 of a vhca port is answered
by the device, as a hardware HCA's PMA does (fabric/vhca-pma.c), and
never reaches the guest's ib_mad: ClassPortInfo, PortCounters and
PortCountersExtended, Get and Set (reset).  The counters count the MADs of
the tests themselves (SA queries, the PMA's own requests and answers):
what a port sends and receives across its link, in packets and in 4-octet
words.  The tests share the session VM; vhca0 has two ports, vhca1 one.
"""
import re

import pytest

from test_diags import lids  # noqa: F401  (the fixture)

# One MAD on the link: 256 bytes + DETH 8 + LRH, BTH, ICRC, VCRC 26.
MAD_WORDS = (256 + 8 + 26) // 4


def counters(text):
    """perfquery's "Name:.....value" lines as {name: int}."""
    out = {}
    for m in re.finditer(r"^(\w+):\.+(\d+|0x[0-9a-fA-F]+)\s*$", text, re.M):
        out[m.group(1)] = int(m.group(2), 0)
    return out


def perfquery(vm, ca, args, check=True):
    rc, out = vm.run("perfquery -C %s -P 1 %s" % (ca, args), timeout=60,
                     check=check)
    return rc, out


def sa_queries(vm, ca, n):
    for _ in range(n):
        vm.run("saquery -C %s -P 1 NR >/dev/null" % ca, timeout=60,
               check=True)


def test_perfquery_own_port(vm, lids):
    _, out = perfquery(vm, "vhca0", "")
    c = counters(out)
    for name in ("PortXmitData", "PortRcvData", "PortXmitPkts",
                 "PortRcvPkts", "SymbolErrorCounter", "LinkDownedCounter",
                 "PortRcvErrors", "PortXmitDiscards"):
        assert name in c, out
    assert c["PortSelect"] == 1, out
    assert c["PortXmitPkts"] > 0 and c["PortRcvPkts"] > 0, out
    assert c["SymbolErrorCounter"] == 0 and c["PortRcvErrors"] == 0, out


def test_perfquery_counts_sa_traffic_after_reset(vm, lids):
    perfquery(vm, "vhca0", "-x -R")
    _, out = perfquery(vm, "vhca0", "-x")
    before = counters(out)
    assert before["PortXmitPkts"] < 10, out
    sa_queries(vm, "vhca0", 5)
    _, out = perfquery(vm, "vhca0", "-x")
    after = counters(out)
    sent = after["PortXmitPkts"] - before["PortXmitPkts"]
    got = after["PortRcvPkts"] - before["PortRcvPkts"]
    assert sent >= 5 and got >= 5, (before, after)
    assert after["PortXmitData"] - before["PortXmitData"] >= 5 * MAD_WORDS
    assert after["PortRcvData"] - before["PortRcvData"] >= 5 * MAD_WORDS
    assert after["PortUnicastXmitPkts"] + after["PortMulticastXmitPkts"] == \
        after["PortXmitPkts"], out


def test_perfquery_remote_port_across_the_fabric(vm, lids):
    lid = lids[("vhca1", 1)]
    perfquery(vm, "vhca0", "-R %d 1" % lid)
    _, out = perfquery(vm, "vhca0", "%d 1" % lid)
    before = counters(out)
    # Only perfquery's own MADs since the reset.
    assert before["PortRcvPkts"] < 10 and before["PortXmitPkts"] < 10, out
    sa_queries(vm, "vhca1", 3)
    _, out = perfquery(vm, "vhca0", "%d 1" % lid)
    after = counters(out)
    assert after["PortXmitPkts"] - before["PortXmitPkts"] >= 3, (before, after)
    _, out = perfquery(vm, "vhca0", "-x %d 1" % lid)
    ext = counters(out)
    assert ext["PortXmitPkts"] >= after["PortXmitPkts"], (after, ext)


def test_perfquery_port_select_names_another_port_of_the_device(vm, lids):
    lid = lids[("vhca0", 1)]
    _, out = perfquery(vm, "vhca1", "%d 2" % lid)
    assert counters(out)["PortSelect"] == 2, out


def test_perfquery_port_that_does_not_exist_is_refused(vm, lids):
    lid = lids[("vhca1", 1)]
    rc, out = perfquery(vm, "vhca0", "%d 2" % lid, check=False)
    assert rc != 0, out


def switch_port_of(vm, ca):
    """The switch port ca's port 1 is cabled to (the switch's NodeInfo
    LocalPortNum, read by directed route out of that port)."""
    _, out = vm.run("smpquery -C %s -P 1 -D nodeinfo 0,1" % ca, timeout=60,
                    check=True)
    return int(re.search(r"LocalPort:\.+(\d+)", out).group(1))


def test_perfquery_of_the_switch_port_mirrors_the_ca_port(vm, lids):
    """The switch's PMA (LID 1): what vhca1's port sends, its switch port
    receives."""
    n = switch_port_of(vm, "vhca1")
    perfquery(vm, "vhca0", "-x -R 1 %d" % n)
    sa_queries(vm, "vhca1", 3)
    _, out = perfquery(vm, "vhca0", "-x 1 %d" % n)
    c = counters(out)
    assert c["PortSelect"] == n, out
    assert c["PortRcvPkts"] >= 3 and c["PortXmitPkts"] >= 3, out
    assert c["PortRcvData"] >= 3 * MAD_WORDS, out
    rc, out = perfquery(vm, "vhca0", "1 %d" % (n + 10), check=False)
    assert rc != 0, out             # a switch port that does not exist
