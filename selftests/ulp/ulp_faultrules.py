"""Fault rules per packet under each storage ULP and rdma_cm (`make
check-fault-rules`, not in `make test`; Documentation/fabric-tests.md
"Fault rules").  The ULP tier's guest (conftest.py: target on vhca0
port 1, host on vhca1, the in-process fabric): one chosen packet goes
wrong in the middle of fio verify or of a connect, through the devices'
fault-rules property (qemu-device/vhca-port-fault-rules.c), for NVMe over
RDMA, iSER, SRP and NFS over RDMA (faultulps.py) alike, and each test
asserts the recovery path it aims at:
  - a lost READ response: the target's RC transport resends the READ
    after its local ACK timeout; the ULP sees nothing, data verified;
  - an RNR NAK burst: the host's RC transport waits and resends; the
    ULP sees nothing, data verified;
  - a link flap longer than the QP's retries: the host's port goes down
    (hw_counters link_downed), the ULP's own recovery runs
    (faultulps.py: each ULP's lines and counters), data verified;
  - a lost CM REP: the target's CM resends it (ib_cm's counters), the
    ULP connects, data verified; and the same for a plain rdma_cm
    connect (rping), twice with the same seed: the same trace.
Every run prints its seed (VHCA_FAULT_SEED=N repeats one) and each
test's fault trace; a run with the seed of an earlier one compares its
traces with that run's (faultrules.same_as_earlier_run).
"""
import pytest

import faultrules
import ulplib
from faultrules import HOST_DEV
from faultulps import ULPS
from ulplib import Fio


@pytest.fixture(scope="module", autouse=True)
def announce_seed(request):
    """The seed on the terminal before the first case (pytest's reporter,
    with capture off: fixture output is captured at the file descriptor
    and shown only for a failure)."""
    line = "fault rules seed %d (VHCA_FAULT_SEED=%d repeats this run)" % (
        faultrules.SEED, faultrules.SEED)
    plugins = request.config.pluginmanager
    reporter = plugins.getplugin("terminalreporter")
    if reporter:
        with plugins.getplugin("capturemanager").global_and_fixture_disabled():
            reporter.write_line("\n" + line)
    print(line)
    yield


@pytest.fixture(scope="module", params=list(ULPS))
def ulp(request, vm, fabric):
    """One ULP's target started and its host connected, for that ULP's
    cases (pytest runs the cases of one parameter together)."""
    u = ULPS[request.param](vm, fabric)
    u.start()
    try:
        u.connect()
        yield u
    finally:
        faultrules.clear_rules(vm)
        u.disconnect()
        u.stop()


def run_case(vm, ulp, case, rule):
    """fio verify across `rule`; what the ULP's state was before, the
    kernel log since."""
    before = ulp.state()
    mark = ulplib.dmesg_mark(vm)
    faultrules.fio_under(vm, ulp, "%s-%s" % (case, ulp.name), rule)
    return before, ulplib.new_dmesg(vm, mark)


def test_lost_read_response_mid_fio(vm, ulp):
    """The 20th READ response to the target is lost: RC resends the
    READ, nothing above it notices."""
    before, log = run_case(vm, ulp, "lost-read-resp", faultrules.READ_RESP_RULE)
    trace = faultrules.expect_trace(vm, faultrules.READ_RESP_RULE, 1,
                                    " drop port 1 in read-resp ")
    ulp.quiet(before, log)
    faultrules.same_as_earlier_run("lost-read-resp-" + ulp.name, trace, "io")


def test_rnr_nak_burst_mid_fio(vm, ulp):
    """16 ACKs to the host in a row become RNR NAKs: the host's QP waits
    the NAK's RNR timer and resends each time, without end with the
    rnr_retry 7 of nvme-rdma and ib_srp; ib_iser's 6 and xprtrdma's 0
    give up within the burst, and the ULP recovers."""
    before, log = run_case(vm, ulp, "rnr-burst", faultrules.RNR_RULE)
    trace = faultrules.expect_trace(vm, faultrules.RNR_RULE, faultrules.RNR_COUNT,
                                    " nak:rnr port 1 in ack ")
    if ulp.RNR_RETRY == 7:
        ulp.quiet(before, log)
    else:
        # fewer RNR retries than the burst: the QP fails (IBA 9.7.5.2.8,
        # RNR retry counter exceeded) and the ULP recovers as after a flap
        ulp.recovered(before, log)
    faultrules.same_as_earlier_run("rnr-burst-" + ulp.name, trace, "io")


def test_link_flap_mid_fio(vm, ulp):
    """The host's port goes down for FLAP_MS in the middle of fio: the
    requests in flight exhaust their retries, the ULP recovers once the
    port is ACTIVE again, the I/O is retried and verified."""
    downed = "/sys/class/infiniband/%s/ports/1/hw_counters/link_downed" % HOST_DEV
    links_down = faultrules.sysfs_int(vm, downed)
    ulp.prepare_flap()
    before, log = run_case(vm, ulp, "flap", faultrules.FLAP_RULE)
    ulplib.log("kernel log across the flap", log)
    trace = faultrules.expect_trace(vm, faultrules.FLAP_RULE, 1,
                                    " flap:%d port 1 out send " % faultrules.FLAP_MS)
    assert faultrules.sysfs_int(vm, downed) > links_down
    ulp.recovered(before, log)
    faultrules.same_as_earlier_run("flap-" + ulp.name, trace, "io")


def test_lost_cm_rep(vm, ulp):
    """The first CM REP of a new connect (the ULP's first connection:
    NVMe's discovery controller, iSCSI's discovery session, SRP's first
    channel, the NFS mount's transport) is lost: the target's CM resends
    it (or the host's CM its REQ), the ULP connects, fio verifies."""
    ulp.disconnect()
    trace = faultrules.connect_with_lost_rep(vm, ulp.connect)
    faultrules.same_as_earlier_run("lost-cm-rep-" + ulp.name, trace, "mad")
    target = ulp.io_target()
    Fio(target, rw="randwrite", bs="4k", numjobs=2, size="4M").run(vm)


RPING_COUNT = 10


def rping_with_lost_rep(vm, fabric):
    """rping (librdmacm) server on the target's address, client from the
    host's, the server's REP lost: the connection comes up and
    RPING_COUNT pings verify (-V: the data read back is the data sent).
    The target's fault trace."""
    vm.run("rm -f /tmp/rping-s.status; setsid sh -c 'rping -s -a %s -C %d -V "
           "> /tmp/rping-s.out 2>&1; echo $? > /tmp/rping-s.status' &"
           % (fabric.target_ip, RPING_COUNT), timeout=60, check=True)
    vm.wait_until("rdma res show cm_id | grep -w rping",
                  lambda t: "LISTEN" in t, timeout=60, interval=0.5)
    client = "rping -c -a %s -I %s -C %d -V" % (fabric.target_ip, fabric.host_ip,
                                                 RPING_COUNT)

    def connect():
        rc, out = vm.run("timeout 120 %s 2>&1" % client, timeout=180)
        ulplib.log(client + " (exit %d)" % rc, out)
        assert rc == 0, out

    trace = faultrules.connect_with_lost_rep(vm, connect)
    rc, out = server_end(vm)
    assert rc == 0, "rping server: exit %d\n%s" % (rc, out)
    return trace


def server_end(vm):
    """The rping server's exit status and output, once it has ended."""
    out = vm.wait_until("cat /tmp/rping-s.status 2>/dev/null || echo running",
                        lambda t: "running" not in t, timeout=60, interval=1)
    _, text = vm.run("cat /tmp/rping-s.out", timeout=60)
    return int(out.strip().splitlines()[-1]), text


def test_rdma_cm_lost_rep_and_same_seed_same_trace(vm, fabric):
    """A plain rdma_cm connect (rping) with the REP lost, twice with the
    same seed: the CM resends, both connect and verify, the two fault
    traces are the same line for line."""
    first = rping_with_lost_rep(vm, fabric)
    again = rping_with_lost_rep(vm, fabric)
    assert faultrules.without_rule_ids(again) == faultrules.without_rule_ids(first), \
        "seed %d: trace %s, then %s" % (faultrules.SEED, first, again)
    faultrules.same_as_earlier_run("lost-cm-rep-rping", first, "mad")
