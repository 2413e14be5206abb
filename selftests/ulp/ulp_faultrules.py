"""Fault rules per packet under NVMe over RDMA (`make check-fault-rules`,
not in `make test`; Documentation/fabric-tests.md "Fault rules").  The
ULP tier's guest (conftest.py: target on vhca0 port 1, host on vhca1, the
in-process fabric): one chosen packet goes wrong in the middle of fio
verify or of a connect, through the devices' fault-rules property
(qemu-device/vhca-port-fault-rules.c), and each test asserts the
recovery path it aims at:
  - a lost READ response: the target's RC transport resends the READ
    after its local ACK timeout; no ULP reconnect, data verified;
  - a lost CM REP: the target's CM resends it (ib_cm's cm_tx_retries
    counters), connect works;
  - an RNR NAK burst: the host's RC transport waits and resends, no
    reconnect, data verified;
  - a link flap: the host's port goes down (hw_counters link_downed),
    nvme-rdma reconnects (its kernel log lines), fio verify passes.
Every run prints its seed (VHCA_FAULT_SEED=N repeats one) and each
test's fault trace; the CM case runs twice with the same seed and the
two traces must be the same.
"""
import os
import random
import re
import time

import pytest

import ulpfault
import ulplib
from ulp_nvme import nvme_target  # noqa: F401  (the fixture: ulp_nvme.py's target)
from ulplib import Fio

BACKEND = ulplib.BACKENDS["nvme"]
TARGET_DEV, HOST_DEV = "vhca0", "vhca1"
SEED = (int(os.environ["VHCA_FAULT_SEED"], 0) if os.environ.get("VHCA_FAULT_SEED")
        else random.randrange(1, 1 << 63))
# CM (IBA 12.6): management class 0x07, ConnectReply attribute 0x0013
CM_REP_RULE = "port=1,dir=out,mad-class=0x07,mad-attr=0x0013,nth=1,action=drop"


def rules(vm, dev, *commands):
    for cmd in commands:
        vm.qmp("qom-set", path=dev, property="fault-rules", value=cmd)


def fresh_rules(vm):
    """No rules on either device, both generators from the run's seed."""
    for dev in (TARGET_DEV, HOST_DEV):
        rules(vm, dev, "clear", "seed %d" % SEED)


def fault_trace(vm, dev):
    text = vm.qmp("qom-get", path=dev, property="fault-trace")
    ulplib.log("fault trace of %s (seed %d)" % (dev, SEED), text)
    return [line for line in text.splitlines()[1:] if line]


def sysfs_int(vm, path):
    _, out = vm.run("cat %s" % path, timeout=30, check=True)
    return int(out.strip().splitlines()[-1])


def controller_live(vm):
    ctrl = ulplib.run_script(vm, "nvme", "controller").strip().splitlines()[-1]
    _, out = vm.run("cat /sys/class/nvme/%s/state" % ctrl, timeout=30)
    return out.strip().endswith("live")


def current_device(vm):
    return ulplib.run_script(vm, "nvme", "device").strip().splitlines()[-1]


@pytest.fixture(scope="module", autouse=True)
def announce_seed():
    print("\nfault rules seed %d (VHCA_FAULT_SEED=%d repeats this run)" % (SEED, SEED))
    yield


@pytest.fixture(scope="module")
def nvme_host(vm, fabric, nvme_target):
    ulplib.run_script(vm, "nvme", "connect", fabric.target_ip)
    yield
    for dev in (TARGET_DEV, HOST_DEV):
        rules(vm, dev, "clear")
    vm.run(ulplib.script("nvme", "disconnect"), timeout=120)


def fio_under(vm, name, add_rules, bs="64k"):
    """add_rules() (their nth= falls in the middle of fio), fio verify; fio's
    exit status must be 0 (every block written and read back whole).
    64 KiB writes: beyond nvmet-rdma's inline data (4 KiB), so the target
    fetches them with RDMA READs."""
    fresh_rules(vm)
    add_rules()
    dev = current_device(vm)
    before = ulpfault.writes_completed(vm, BACKEND)
    ulplib.background_fio(vm, Fio(dev, rw="randwrite", bs=bs, numjobs=2, size="16M"), name)
    ulpfault.wait_io_started(vm, name, dev, ulpfault.disk_stat(BACKEND),
                             lambda out: (ulpfault.writes_completed_in(out) or 0) > before)
    rc, log = ulplib.wait_background_fio(vm, name, timeout=900)
    ulplib.log("fio across %s (exit %d)" % (name, rc), log)
    assert rc == 0, "fio verify failed across %s:\n%s" % (name, log)


def test_nvme_lost_read_response_mid_fio(vm, nvme_host):
    """The 20th READ response to the target (nvmet READs the host's
    write data) is lost: RC resends, nothing above it notices."""
    mark = ulplib.dmesg_mark(vm)
    fio_under(vm, "lost-read-resp", lambda: rules(
        vm, TARGET_DEV, "add port=1,dir=in,op=read-resp,nth=20,action=drop"))
    trace = fault_trace(vm, TARGET_DEV)
    assert len(trace) == 1 and " drop port 1 in read-resp " in trace[0], trace
    log = ulplib.new_dmesg(vm, mark)
    assert not re.search(r"nvme nvme\d+: (Reconnecting|resetting)", log), log
    assert controller_live(vm)


def test_nvme_rnr_nak_burst_mid_fio(vm, nvme_host):
    """16 ACKs to the host in a row become RNR NAKs: the host's QP waits
    the target's RNR timer and resends each time (rnr_retry 7)."""
    mark = ulplib.dmesg_mark(vm)
    fio_under(vm, "rnr-burst", lambda: rules(
        vm, HOST_DEV, "add port=1,dir=in,op=ack,nth=10,count=16,action=nak:rnr"))
    trace = fault_trace(vm, HOST_DEV)
    assert len(trace) == 16 and all(" nak:rnr port 1 in ack " in t for t in trace), trace
    log = ulplib.new_dmesg(vm, mark)
    assert not re.search(r"nvme nvme\d+: (Reconnecting|resetting)", log), log
    assert controller_live(vm)


# How long the flap lasts: longer than the host QP's whole retry budget,
# so its transport gives up and the ULP must recover.  rdma_cm's QPs take
# their local ACK timeout from the path's PacketLifeTime (the embedded
# SM's VHCA_SA_PACKET_LIFE, 16) plus one (ib_cm's cm_ack_timeout; vhca's
# local_ca_ack_delay is 0): 17, 0.54 s (IBA 9.7.6.1.3), times 8 tries
# (retry_cnt 7) is 4.3 s.  A flap inside that budget is only a
# stall the transport hides (no reconnect: IBA's RC retries are meant to
# ride out a link bounce), which is what an earlier 2 s flap showed.
FLAP_MS = 15000


def test_nvme_link_flap_mid_fio(vm, fabric, nvme_host):
    """The host's port goes down for FLAP_MS in the middle of fio: the
    requests in flight exhaust their retries, nvme-rdma's error recovery
    reconnects once the port is ACTIVE again, the I/O is retried and
    verified."""
    downed = "/sys/class/infiniband/%s/ports/1/hw_counters/link_downed" % HOST_DEV
    before = sysfs_int(vm, downed)
    mark = ulplib.dmesg_mark(vm)
    fio_under(vm, "flap", lambda: rules(
        vm, HOST_DEV, "add port=1,dir=out,op=send,nth=50,action=flap:%d" % FLAP_MS))
    trace = fault_trace(vm, HOST_DEV)
    assert len(trace) == 1 and " flap:%d port 1 out send " % FLAP_MS in trace[0], trace
    assert sysfs_int(vm, downed) > before
    log = ulplib.new_dmesg(vm, mark)
    ulplib.log("kernel log across the flap", log)
    assert re.search(r"nvme nvme\d+: (Reconnecting|Successfully reconnected)", log), log
    vm.wait_until("cat /sys/class/nvme/*/state", lambda t: "live" in t, timeout=180)


# ib_cm's counters, on the port's sysfs since Linux 5.14.  A lost REP is
# resent either by the target's MAD layer (no RTU came back: its REP
# timer, the REQ's LocalCMResponseTimeout, rdma_cm's 20: 4.3 s) or,
# second, after the host's REQ timer (that timeout plus twice the
# PacketLifeTime: 4.8 s) by a REQ the target counts as a duplicate
# (IBA 12.9.3 and 12.9.4): the sum of the three counts the resends.
CM_RESEND_COUNTERS = ((TARGET_DEV, "cm_tx_retries/rep"),
                      (HOST_DEV, "cm_tx_retries/req"),
                      (TARGET_DEV, "cm_rx_duplicates/req"))


def cm_resends(vm):
    return sum(sysfs_int(vm, "/sys/class/infiniband/%s/ports/1/%s" % c)
               for c in CM_RESEND_COUNTERS)


def cm_rep_lost_connect(vm, fabric):
    """Disconnect; connect again with the target's first CM REP lost.
    Returns (the target's fault trace, the CM's resends it caused)."""
    vm.run(ulplib.script("nvme", "disconnect"), timeout=120)
    before = cm_resends(vm)
    fresh_rules(vm)
    rules(vm, TARGET_DEV, "add " + CM_REP_RULE)
    ulplib.run_script(vm, "nvme", "connect", fabric.target_ip, timeout=300)
    trace = fault_trace(vm, TARGET_DEV)
    rules(vm, TARGET_DEV, "clear")
    # a resent REP is counted when its send completes, which the RTU's
    # arrival (ib_cancel_mad) finishes from ib_mad's workqueue
    deadline = time.monotonic() + 30
    while cm_resends(vm) == before and time.monotonic() < deadline:
        time.sleep(0.5)
    return trace, cm_resends(vm) - before


def test_nvme_lost_cm_rep_and_same_seed_same_trace(vm, fabric, nvme_host):
    """The REP of the first rdma_cm connect (nvme discover's) is lost:
    the target's CM resends it (or the host's CM its REQ), and the
    connection comes up.  Run twice with the same seed: the same fault
    trace."""
    first, resent = cm_rep_lost_connect(vm, fabric)
    assert len(first) == 1 and " drop port 1 out mad " in first[0], first
    assert "mad-class 0x07 mad-attr 0x0013" in first[0], first
    assert resent >= 1, "neither REP nor REQ resent after the lost REP"
    Fio(current_device(vm), rw="randwrite", bs="4k", numjobs=2, size="4M").run(vm)
    again, _ = cm_rep_lost_connect(vm, fabric)
    assert again == first, "seed %d: trace %s, then %s" % (SEED, first, again)
