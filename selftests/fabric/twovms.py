"""Two VMs on one fabric through the standalone switch (`make check-fabric`).

build/vhca-switch (tools/vhca-switch*.c) runs on the host with two unix
socket ports; two guests (one vCPU each) have one vhca port each, cabled
to a switch port through `-netdev stream` and the device's port1-netdev
property (Documentation/fabric.md).  The switch's SM gives the ports their
LIDs; its SA answers IPoIB's joins and path queries.  Across the VMs:
IPoIB (ping and a TCP stream with the same SHA-256 at both ends), the
libibverbs RC pingpong with data validation, perftest (SEND, WRITE, READ,
atomics), rping with verification over rdma_cm, WRITE then SEND checked at
the receive (last_byte.c, clean and lossy), ucmatose, udaddy, NVMe
over RDMA (twovm_ulp.nvme_connect_fio_verify), and last a VM killed
(QEMU SIGKILLed) while RC traffic runs: the peer's QP ends with a
retry-exceeded completion, the switch sees the link go down and nothing
hangs.  Not collected by pytest's test_*.py pattern: make check-fabric
names this file (scripts/run-fabric.sh).
"""
import os
import re
import sys
import time

import pytest

SELFTESTS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, SELFTESTS)
sys.path.insert(0, os.path.join(SELFTESTS, "host"))
sys.path.insert(0, os.path.join(SELFTESTS, "verbs"))
import fabriclib  # noqa: E402
import rsockets  # noqa: E402
import twovm_ulp  # noqa: E402
import vmlib  # noqa: E402

from fabriclib import (ADDR, TCP_BYTES, TOOL, background,  # noqa: E402
                       finish, log, pair, pair_ok, start_switch)
from switchlib import control, stats  # noqa: E402


@pytest.fixture(scope="module")
def fabric():
    with fabriclib.two_vms() as state:
        yield state


def test_switch_sm_gives_each_vm_a_lid(fabric):
    lids = set()
    for name, vm in fabric["vms"].items():
        _, lid = vm.run("cat /sys/class/infiniband/vhca0/ports/1/lid", timeout=30,
                        check=True)
        _, sm = vm.run("cat /sys/class/infiniband/vhca0/ports/1/sm_lid", timeout=30,
                       check=True)
        assert int(sm.strip(), 16) == 1, sm
        lids.add(int(lid.strip(), 16))
    assert len(lids) == 2 and 0 not in lids, lids


def test_ipoib_ping_across_vms(fabric):
    a = fabric["vms"]["a"]
    rc, out = a.run("%s ping %s 3 10" % (TOOL, ADDR["b"]), timeout=120)
    assert rc == 0 and "3 received" in out, out


def test_diags_see_the_switch_and_the_other_vm(fabric):
    """SMPs across the switch: its own SMA and SM (LID 1, directed route
    0,1), through it to the other VM's port (0,1,2: that device's SMA
    answers from the wire), LID-routed to the other port; ibnetdiscover
    draws the switch and both CAs, ibroute shows the SM's table, ibtracert
    and iblinkinfo follow it, ibqueryerrors reads every PMA, ibping gets
    its pongs from the other VM."""
    a, b = fabric["vms"]["a"], fabric["vms"]["b"]
    guid_b = "0x%016x" % (fabriclib.NODES["b"] + 1)
    _, lid = b.run("cat /sys/class/infiniband/vhca0/ports/1/lid", timeout=30,
                   check=True)
    lid = int(lid.strip(), 16)
    _, out = a.run("smpquery -D nodeinfo 0,1", timeout=60, check=True)
    assert re.search(r"NodeType:\.*Switch", out), out
    _, out = a.run("smpquery -D nodeinfo 0,1,2", timeout=60, check=True)
    assert re.search(r"PortGuid:\.*%s" % guid_b, out), out
    _, out = a.run("smpquery nodeinfo %d" % lid, timeout=60, check=True)
    assert re.search(r"PortGuid:\.*%s" % guid_b, out), out
    _, out = a.run("sminfo", timeout=60, check=True)
    assert "sm lid 1" in out and "SMINFO_MASTER" in out, out
    _, out = a.run("ibnetdiscover", timeout=120, check=True)
    assert re.search(r"^Switch\s+2 ", out, re.M), out
    assert len(re.findall(r"^Ca\s", out, re.M)) == 2, out
    assert "%x" % (fabriclib.NODES["b"] + 1) in out, out
    _, out = a.run("ibroute 1", timeout=60, check=True)
    assert re.search(r"^0x%04x 002 : \(Channel Adapter" % lid, out, re.M), out
    _, lid_a = a.run("cat /sys/class/infiniband/vhca0/ports/1/lid", timeout=30,
                     check=True)
    _, out = a.run("ibtracert %d %d" % (int(lid_a.strip(), 16), lid), timeout=60,
                   check=True)
    assert "switch port" in out and "To ca" in out, out
    _, out = a.run("iblinkinfo", timeout=60, check=True)
    assert out.count("Active/  LinkUp") >= 4, out
    # The PMA of every port, the switch's included; no errors anywhere.
    _, out = a.run("ibqueryerrors", timeout=120, check=True)
    assert "3 nodes checked, 0 bad nodes found" in out, out
    # ibping with its responder in the other VM (vendor MADs over GSI).
    background(b, "ibping -S", "ibping-server", 60)
    time.sleep(2)
    rc, out = a.run("ibping -c 3 %d" % lid, timeout=60)
    b.run("pkill -x ibping", timeout=30)
    assert rc == 0 and "3 received" in out, out


def perfquery_counters(out):
    """perfquery's "Name:.....value" lines as {name: int}."""
    return {m.group(1): int(m.group(2)) for m in
            re.finditer(r"^(\w+):\.+(\d+)\s*$", out, re.M)}


def test_perfquery_of_a_port_in_the_other_vm(fabric):
    """The PMA answers across the switch: a resets and reads the counters
    of b's port, which then count the IPoIB pings between them."""
    a, b = fabric["vms"]["a"], fabric["vms"]["b"]
    _, lid = b.run("cat /sys/class/infiniband/vhca0/ports/1/lid", timeout=30,
                   check=True)
    lid = int(lid.strip(), 16)
    a.run("perfquery -x -R %d 1" % lid, timeout=60, check=True)
    rc, out = a.run("%s ping %s 5 10" % (TOOL, ADDR["b"]), timeout=120)
    assert rc == 0 and "5 received" in out, out
    _, out = a.run("perfquery -x %d 1" % lid, timeout=60, check=True)
    c = perfquery_counters(out)
    assert c["PortRcvPkts"] >= 5 and c["PortXmitPkts"] >= 5, out
    assert c["PortRcvData"] >= 5 * 26 // 4, out
    # The standalone switch's PMA: its port 2 is cabled to b.
    a.run("perfquery -x -R 1 2", timeout=60, check=True)
    rc, out = a.run("%s ping %s 5 10" % (TOOL, ADDR["b"]), timeout=120)
    assert rc == 0 and "5 received" in out, out
    _, out = a.run("perfquery -x 1 2", timeout=60, check=True)
    c = perfquery_counters(out)
    assert c["PortSelect"] == 2, out
    assert c["PortXmitPkts"] >= 5 and c["PortRcvPkts"] >= 5, out


def tcp_transfer(fabric):
    """A TCP stream a -> b; the same byte count and SHA-256 at both ends."""
    a, b = fabric["vms"]["a"], fabric["vms"]["b"]
    b.run("rm -f /tmp/srv.out; %s serve 5001 %d > /tmp/srv.out 2>&1 &" %
          (TOOL, TCP_BYTES), timeout=30, check=True)
    b.wait_until("cat /tmp/srv.out", lambda t: "listening" in t, timeout=30)
    rc, sent = a.run("%s send %s 5001 %d" % (TOOL, ADDR["b"], TCP_BYTES), timeout=600)
    assert rc == 0, sent
    received = b.wait_until("cat /tmp/srv.out", lambda t: "sha256=" in t, timeout=120)
    sent_line = [l for l in sent.splitlines() if "sha256=" in l][0]
    recv_line = [l for l in received.splitlines() if "sha256=" in l][0]
    assert sent_line.startswith("bytes=%d " % TCP_BYTES), sent_line
    assert recv_line == sent_line


def test_ipoib_tcp_stream_checksum(fabric):
    tcp_transfer(fabric)


def set_ipoib_mode(vm, mode, mtu):
    vm.run("echo %s > /sys/class/net/%s/mode && ip link set %s mtu %d" %
           (mode, vm.ifname, vm.ifname, mtu), timeout=60, check=True)


def test_ipoib_connected_mode_tcp_stream_checksum(fabric):
    """IPoIB connected mode: RC QPs set up through ib_cm across the VMs,
    64 KiB MTU (each message one frame on the wire)."""
    vms = fabric["vms"].values()
    try:
        for vm in vms:
            set_ipoib_mode(vm, "connected", 65520)
        rc, out = fabric["vms"]["a"].run("%s ping %s 3 20" % (TOOL, ADDR["b"]),
                                         timeout=120)
        assert rc == 0 and "3 received" in out, out
        tcp_transfer(fabric)
    finally:
        for vm in vms:
            set_ipoib_mode(vm, "datagram", 2044)


PINGPONGS = ["ibv_rc_pingpong -g 0", "ibv_uc_pingpong -g 0", "ibv_ud_pingpong",
             "ibv_srq_pingpong -g 0"]


@pytest.mark.parametrize("tool", PINGPONGS, ids=[t.split()[0] for t in PINGPONGS])
def test_pingpong_validated(fabric, tool):
    """RC, UC, UD and SRQ pingpongs with data validation (-c)."""
    src, crc, sout, cout = pair(
        fabric, "%s -d vhca0 -c -n 200" % tool,
        "%s -d vhca0 -c -n 200 %s" % (tool, ADDR["b"]), tool.split()[0])
    assert (src, crc) == (0, 0), sout + cout
    assert len(re.findall(r"(\d+) iters in", sout + cout)) == 2


def test_xsrq_pingpong(fabric):
    """XRC across the switch (IBA A14): ibv_xsrq_pingpong, the XRC
    SRQ number in the REQUEST frames (vhca_wire_hdr.xrc_srqn)."""
    pair_ok(fabric, "ibv_xsrq_pingpong -d vhca0 -g 0 -n 50",
            "ibv_xsrq_pingpong -d vhca0 -g 0 -n 50 %s" % ADDR["b"], "ibv_xsrq_pingpong")


PERF_RESULT = re.compile(r"^\s*(\d+)\s+(\d+)\s+\d+\.\d+\s+\d+\.\d+", re.M)
PERFTESTS = [
    ("ib_send_lat", "-n 100"), ("ib_write_bw", "-n 100 -s 65536"),
    ("ib_read_lat", "-n 100"), ("ib_read_bw", "-n 50 -s 65536"),
    ("ib_atomic_lat", "-n 100"),
]
# Operations the one-VM tier (selftests/verbs/uverbs.py) runs too.
MORE_PERFTESTS = [("ib_atomic_bw", "-n 100"), ("ib_atomic_lat", "-n 100 -A CMP_AND_SWAP"),
                  ("ib_send_bw", "-n 100 -c UD")]
MORE_IDS = ["ib_atomic_bw", "ib_atomic_lat-cmp_and_swap", "ib_send_bw-ud"]


def perftest(fabric, tool, args, tag):
    """A perftest pair.  perftest converts cycles with a CPU frequency it
    fits against gettimeofday; under TCG on a busy host the fit can fail
    ("Correlation coefficient r^2 < 0.9": a report of inf, or "Can't
    produce a report").  Not the device: run again, up to three times (as
    selftests/verbs/uverbs.py does)."""
    for _ in range(3):
        src, crc, sout, cout = pair(fabric, "%s -d vhca0 %s" % (tool, args),
                                    "%s -d vhca0 %s %s" % (tool, args, ADDR["b"]), tag)
        if not re.search(r"Correlation coefficient|Can't produce a report", sout + cout):
            break
    assert (src, crc) == (0, 0), sout + cout
    assert PERF_RESULT.search(cout), cout


@pytest.mark.parametrize("tool,args", PERFTESTS + MORE_PERFTESTS,
                         ids=[t for t, _ in PERFTESTS] + MORE_IDS)
def test_perftest_across_vms(fabric, tool, args):
    perftest(fabric, tool, args, tool)


def test_messages_of_several_frames(fabric):
    """Messages longer than one frame (64 KiB) leave in segments and are
    put together on arrival: 1 MiB SENDs validated byte for byte, 1 MiB
    RDMA WRITEs and READs (READ responses in segments too)."""
    src, crc, sout, cout = pair(
        fabric, "ibv_rc_pingpong -d vhca0 -g 0 -c -n 20 -s 1048576",
        "ibv_rc_pingpong -d vhca0 -g 0 -c -n 20 -s 1048576 %s" % ADDR["b"],
        "pingpong-1m")
    assert (src, crc) == (0, 0), sout + cout
    assert len(re.findall(r"(\d+) iters in", sout + cout)) == 2
    perftest(fabric, "ib_write_bw", "-n 20 -s 1048576", "write-1m")
    perftest(fabric, "ib_read_bw", "-n 20 -s 1048576", "read-1m")


def test_multicast_to_the_other_vm_and_back_to_the_sender_port(fabric):
    """mckey (rdma_cm, UD multicast joined through the switch's SA): a
    sender in VM a, receivers in VM b (through the switch) and in VM a on
    the sending port itself (the HCA's loopback: the switch never sends a
    packet back out of the port it came in on)."""
    a, b = fabric["vms"]["a"], fabric["vms"]["b"]
    group = "224.0.1.78"
    background(b, "mckey -m %s -b %s" % (group, ADDR["b"]), "mckey-b", 120)
    background(a, "mckey -m %s -b %s" % (group, ADDR["a"]), "mckey-a", 120)
    time.sleep(3)
    rc, out = a.run("timeout 120 mckey -m %s -b %s -s" % (group, ADDR["a"]),
                    timeout=150)
    sb, outb = finish(b, "mckey-b")
    sa, outa = finish(a, "mckey-a")
    log("mckey", "sender:\n%s\nb:\n%s\na:\n%s" % (out, outb, outa))
    assert rc == 0 and "test complete" in out, out
    assert sb == 0 and "test complete" in outb, outb
    assert sa == 0 and "test complete" in outa, outa


def test_rping_verified(fabric):
    pair_ok(fabric, "rping -s -a %s -C 200 -V" % ADDR["b"],
            "rping -c -a %s -C 200 -V" % ADDR["b"], "rping")


# Bounded sizes in `make test`; -S all in `make check-riostream`.
RIO_CASES = [(None, None)] if rsockets.FULL else rsockets.QUICK


@pytest.mark.parametrize("size,iters", RIO_CASES,
                         ids=["all" if c[0] is None else str(c[0]) for c in RIO_CASES])
def test_riostream_verified(fabric, size, iters):
    """riostream -T v across the switch (rsockets.py): verified round trips
    of WRITEs into the other VM's riomap()ed buffer, whose last byte its
    vCPU polls while its QEMU places the packets (issue 24)."""
    options = rsockets.args(size, iters)
    sout, cout = pair_ok(fabric, rsockets.server_command(ADDR["b"], options),
                         rsockets.client_command(ADDR["b"], options), "riostream",
                         timeout=rsockets.FULL_SECONDS if size is None else 600,
                         progress=rsockets.progress_file("fabric") if size is None else None)
    rsockets.check(sout, cout, options)


LAST_BYTE_PORT = 18520


def fault_stats(vm):
    """vhca0's port1-fault-stats ("lost N reordered N ...") as a dict."""
    text = vm.qmp("qom-get", path="vhca0", property="port1-fault-stats")
    return dict(zip(text.split()[::2], map(int, text.split()[1::2])))


@pytest.mark.parametrize("lossy", [False, True], ids=["clean", "lossy"])
def test_write_then_receive_across_vms(fabric, lossy):
    """last_byte.c's WRITE then SEND and WRITE with immediate from VM a
    into VM b, at 18 sizes from 1 byte to 64 KiB: at each receive's
    completion b finds every written byte placed (IBA 9.5, 10.8.3), then
    acknowledges.  lossy: each VM's link loses, reorders, duplicates and
    corrupts packets (QMP_FAULTS), so WRITE packets, SENDs and ACKs are
    retransmitted across the switch (issue 24)."""
    program = os.path.join(fabriclib.PROVIDER, "last_byte")
    vms = fabric["vms"]
    before = {n: fault_stats(vm) for n, vm in vms.items()}
    try:
        if lossy:
            for vm in vms.values():
                set_port_faults(vm, QMP_FAULTS)
        sout, cout = pair_ok(
            fabric, "%s -n -l %d vhca0" % (program, LAST_BYTE_PORT),
            "%s -n -r %s:%d vhca0" % (program, ADDR["b"], LAST_BYTE_PORT),
            "last-byte", timeout=600,
            listening=vmlib.tcp_listening(LAST_BYTE_PORT))
    finally:
        for vm in vms.values():
            set_port_faults(vm, dict.fromkeys(QMP_FAULTS, 0))
    for out in (sout, cout):
        assert "last_byte: ok" in out and out.count("across hosts: placed") == 2, out
    lost = sum(fault_stats(vm)["lost"] - before[n]["lost"] for n, vm in vms.items())
    log("lost on the links", str(lost))
    assert (lost > 0) == lossy, lost


@pytest.mark.parametrize("tool", ["ucmatose", "udaddy"])
def test_rdma_cm_tool(fabric, tool):
    """rdma_cm's RC connections (ucmatose, through ib_cm) and UD (udaddy,
    SIDR) across the switch."""
    sout, cout = pair_ok(fabric, "%s -b %s" % (tool, ADDR["b"]),
                         "%s -s %s" % (tool, ADDR["b"]), tool)
    assert "test complete" in sout and "test complete" in cout, sout + cout


def test_nvme_rdma_across_vms(fabric):
    """The one storage ULP test of this tier (twovm_ulp.py, `make
    check-fabric-ulp`, has the others): nvmet-rdma in VM a, nvme connect
    and fio verify in VM b."""
    twovm_ulp.nvme_connect_fio_verify(fabric)


def lossy_pingpong(fabric, name):
    """ibv_rc_pingpong -c (every message validated) from a to b over a
    lossy fabric.  The server is told to expect more messages than the
    client sends and is stopped afterwards: a server that exits after its
    last message may leave the client's last SEND unACKed (its ACK lost),
    and the client's resends then end in retry-exceeded, as on any lossy IB
    link; the same can happen to the server's last pong once the client has
    its 300 validated messages and exits."""
    a, b = fabric["vms"]["a"], fabric["vms"]["b"]
    background(b, "ibv_rc_pingpong -d vhca0 -g 0 -c -n 1000000", name, 300)
    time.sleep(2)
    crc, cout = a.run("timeout 240 ibv_rc_pingpong -d vhca0 -g 0 -c -n 300 %s"
                      % ADDR["b"], timeout=300)
    b.run("pkill -x ibv_rc_pingpong", timeout=30)
    src, sout = finish(b, name)
    log(name, "server:\n%s\nclient:\n%s" % (sout, cout))
    assert crc == 0 and "300 iters in" in cout, cout
    # Stopped by SIGTERM (143), or its last pong's ACK was lost after
    # the client had exited: retry-exceeded on that one SEND only.
    assert src == 143 or (src == 1 and sout.count("Failed") == 1 and re.fullmatch(
        r"(?s).*?Failed status transport retry counter exceeded \(12\) for "
        r"wr_id 2\s+parse WC failed 2\s+.*", sout)), sout


def test_rc_recovers_from_a_lossy_reordering_link(fabric):
    """5% loss, 5% reordering, 2% duplication and 1% corruption on every
    link of the switch: RC retransmits until every byte is delivered once
    (lossy_pingpong); ib_read_bw moves 64 KiB READ responses."""
    sockdir = fabric["sockdir"]
    before = stats(sockdir)
    assert control(sockdir, "faults 5 2 5 1") == "ok\n"
    try:
        lossy_pingpong(fabric, "lossy-pp")
        perftest(fabric, "ib_read_bw", "-n 50 -s 65536", "lossy-read")
        perftest(fabric, "ib_write_bw", "-n 20 -s 262144", "lossy-write-256k")
    finally:
        assert control(sockdir, "faults 0 0 0 0") == "ok\n"
    after = stats(sockdir)
    log("switch counters", "%s\n%s" % (before, after))
    lost = sum(after[p]["lost"] - before[p]["lost"] for p in after)
    reordered = sum(after[p]["reordered"] - before[p]["reordered"] for p in after)
    assert lost > 0 and reordered > 0, after


# Each VM's port loses, reorders, duplicates and corrupts the frames it
# sends.  A request and its ACK each cross one such link, and a reordered
# frame with nothing behind it waits for the retransmission, so an attempt
# fails with about 1 - 0.95^2 = 10 % here; the pingpong's QP gives up after
# 8 failed attempts of one PSN (retry_cnt 7), 0.1^8 = 1e-8 per message.  At
# 5 % loss and 5 % reordering an attempt failed about 20 % of the time,
# 0.2^8 = 2.6e-6 per message over a few thousand messages a run: a run in
# a few hundred ended in "transport retry counter exceeded" (seen once,
# issue 24; the device's traces showed up to 4 timeouts in a row of one
# PSN in a passing run), as it would on a real link that bad.  A peer that
# destroys its QP while the last ACK is still to come ends the run the same
# way, whatever the rate: the programs keep their QPs until both ends are
# done (last_byte.c's closing handshake, lossy_pingpong's stopped server).
QMP_FAULTS = {"port1-loss": 2, "port1-reorder": 2, "port1-dup": 1, "port1-corrupt": 1}


def set_port_faults(vm, faults):
    for prop, value in faults.items():
        vm.qmp("qom-set", path="vhca0", property=prop, value=value)


def test_rc_recovers_from_faults_set_from_qmp(fabric):
    """Faults (QMP_FAULTS), now on each VM's own link, set at run time from
    QMP (qom-set vhca0 port1-loss ...): RC recovers with every message
    validated, and port1-fault-stats counts what the links did."""
    vms = fabric["vms"]
    try:
        for vm in vms.values():
            set_port_faults(vm, QMP_FAULTS)
        lossy_pingpong(fabric, "qmp-lossy-pp")
    finally:
        for vm in vms.values():
            set_port_faults(vm, dict.fromkeys(QMP_FAULTS, 0))
    counts = {name: fault_stats(vm) for name, vm in vms.items()}
    log("port1-fault-stats", str(counts))
    assert sum(c["lost"] for c in counts.values()) > 0, counts
    assert sum(c["reordered"] for c in counts.values()) > 0, counts


def port_state(vm):
    _, out = vm.run("cat /sys/class/infiniband/vhca0/ports/1/state "
                    "/sys/class/infiniband/vhca0/ports/1/lid", timeout=30, check=True)
    return out.split()[1], int(out.split()[2], 16)


def test_link_flap_port_goes_down_and_comes_back(fabric):
    """port 2 flap: the switch pulls b's cable for 1.5 s; b's port goes
    DOWN (PORT_ERR), comes back ACTIVE with its LID, and traffic runs."""
    a, b = fabric["vms"]["a"], fabric["vms"]["b"]
    state, lid = port_state(b)
    assert state == "ACTIVE"
    # The DOWN state lasts about the flap; a guest slowed by a loaded host
    # can miss it between two looks, its PMA's LinkDownedCounter cannot.
    downed = "cat /sys/class/infiniband/vhca0/ports/1/counters/link_downed"
    before = int(b.run(downed, timeout=30)[1])
    assert control(fabric["sockdir"], "port 2 flap 1500") == "ok\n"
    b.wait_until(downed, lambda t: int(t) == before + 1, timeout=30)
    b.wait_until("cat /sys/class/infiniband/vhca0/ports/1/state",
                 lambda t: "ACTIVE" in t, timeout=60)
    assert port_state(b) == ("ACTIVE", lid)
    assert stats(fabric["sockdir"])[2]["flaps"] == 1
    rc, out = a.run("%s ping %s 3 20" % (TOOL, ADDR["b"]), timeout=120)
    assert rc == 0 and "3 received" in out, out


def test_switch_restart_ports_go_down_and_come_back(fabric):
    """The switch dies: both ports go DOWN.  A new switch dials the VMs
    again: both come back ACTIVE with their LIDs, and RC traffic runs."""
    vms = fabric["vms"]
    lids = {name: port_state(vm)[1] for name, vm in vms.items()}
    fabric["switch"].kill()
    fabric["switch"].wait(timeout=10)
    for vm in vms.values():
        vm.wait_until("cat /sys/class/infiniband/vhca0/ports/1/state",
                      lambda t: "DOWN" in t, timeout=60)
    fabric["switch"] = start_switch(fabric["sockdir"], fabric["logfile"])
    for name, vm in vms.items():
        vm.wait_until("cat /sys/class/infiniband/vhca0/ports/1/state",
                      lambda t: "ACTIVE" in t, timeout=60)
        assert port_state(vm) == ("ACTIVE", lids[name])
    # IPoIB's neighbours and the SA's groups start again from nothing.
    rc, out = vms["a"].run("%s ping %s 3 20" % (TOOL, ADDR["b"]), timeout=120)
    assert rc == 0 and "3 received" in out, out
    src, crc, sout, cout = pair(
        fabric, "ibv_rc_pingpong -d vhca0 -g 0 -c -n 100",
        "ibv_rc_pingpong -d vhca0 -g 0 -c -n 100 %s" % ADDR["b"], "after-restart")
    assert (src, crc) == (0, 0), sout + cout


def test_peer_killed_mid_transfer(fabric):
    """Last: kill b's QEMU while a streams RDMA WRITEs to it (ib_write_bw);
    a's QP must end with a retry-exceeded completion (status 12), the
    switch must stay up and see the link go down."""
    a, b = fabric["vms"]["a"], fabric["vms"]["b"]
    cmd = "stdbuf -oL -eL ib_write_bw -d vhca0 -n 100000000 -s 4096"
    background(b, cmd, "victim", 600)
    time.sleep(2)
    background(a, "%s %s" % (cmd, ADDR["b"]), "survivor", 600)
    a.wait_until("cat /tmp/survivor.log", lambda t: "#bytes" in t, timeout=60)
    time.sleep(3)
    b.kill()
    status, out = finish(a, "survivor", timeout=120)
    log("survivor", out)
    assert status not in (0, 124), out
    assert re.search(r"Failed status 12\b|retry counter exceeded", out, re.I), out
    assert fabric["switch"].poll() is None, "switch died"
    with open(fabric["log"]) as f:
        assert f.read().rstrip().splitlines()[-1].startswith("vhca-switch: port 2: link down")
