"""The fault rules of `make check-fault-rules` (ulp_faultrules.py) and
what every ULP's case shares: the run's seed, the rules and their
devices, the fault traces (and their comparison with an earlier run of
the same seed), ib_cm's resend counters, fio verify across a rule.
The rule syntax: fabric/vhca-fault-rules.c, Documentation/
fabric-tests.md "Fault rules".
"""
import os
import random
import re
import time

import ulpfault
import ulplib
import vmlib
from ulplib import Fio

TARGET_DEV, HOST_DEV = "vhca0", "vhca1"
SEED = (int(os.environ["VHCA_FAULT_SEED"], 0) if os.environ.get("VHCA_FAULT_SEED")
        else random.randrange(1, 1 << 63))

# The 20th RDMA READ response that reaches the target is lost: the
# target READs the host's write data (nvmet-rdma, isert, srpt, svcrdma
# for writes beyond their inline/immediate data), and its RC transport
# must resend the READ after its local ACK timeout (IBA 9.7.6.1.3).
READ_RESP_RULE = (TARGET_DEV, "port=1,dir=in,op=read-resp,nth=20,action=drop")
# 16 ACKs to the host in a row become RNR NAKs: the host's QP waits the
# RNR timer the NAK carries and resends (IBA 9.7.5.2.8; rnr_retry 7 is
# "infinite").
RNR_COUNT = 16
RNR_RULE = (HOST_DEV, "port=1,dir=in,op=ack,nth=10,count=%d,action=nak:rnr" % RNR_COUNT)
# How long the flap lasts: longer than the host QP's whole retry budget,
# so its transport gives up and the ULP must recover.  rdma_cm's QPs
# (and ib_srp's, which take the same ib_cm attributes) get their local
# ACK timeout from the path's PacketLifeTime (the embedded SM's
# VHCA_SA_PACKET_LIFE, 16) plus one (ib_cm's cm_ack_timeout; vhca's
# local_ca_ack_delay is 0): 17, 0.54 s (IBA 9.7.6.1.3), times 8 tries
# (retry_cnt 7) is 4.3 s.  A flap inside that budget is only a stall the
# transport hides (IBA's RC retries are meant to ride out a link
# bounce), which is what an earlier 2 s flap showed.
FLAP_MS = 15000
FLAP_RULE = (HOST_DEV, "port=1,dir=out,op=send,nth=50,action=flap:%d" % FLAP_MS)
# CM (IBA 12.6): management class 0x07, ConnectReply attribute 0x0013;
# the passive side (the target) sends it.
CM_REP_RULE = (TARGET_DEV, "port=1,dir=out,mad-class=0x07,mad-attr=0x0013,nth=1,action=drop")
FIO = dict(rw="randwrite", bs="64k", numjobs=2, size="16M")
# Where each run leaves its traces, by seed: a rerun with that seed
# compares its traces with them (same_as_earlier_run).
TRACE_DIR = os.path.join(vmlib.BUILD, "results", "fault-traces")


def rules(vm, dev, *commands):
    for cmd in commands:
        vm.qmp("qom-set", path=dev, property="fault-rules", value=cmd)


def add(vm, rule):
    """rule: (device, rule line)."""
    rules(vm, rule[0], "add " + rule[1])


def fresh_rules(vm):
    """No rules on either device, both generators from the run's seed
    (which also starts their match counters and traces again)."""
    for dev in (TARGET_DEV, HOST_DEV):
        rules(vm, dev, "clear", "seed %d" % SEED)


def clear_rules(vm):
    for dev in (TARGET_DEV, HOST_DEV):
        rules(vm, dev, "clear")


def fault_trace(vm, dev):
    """The device's trace lines (its header line, seed and count, left
    out)."""
    text = vm.qmp("qom-get", path=dev, property="fault-trace")
    ulplib.log("fault trace of %s (seed %d)" % (dev, SEED), text)
    return [line for line in text.splitlines()[1:] if line]


def expect_trace(vm, rule, count, what):
    """The trace of the rule's device: `count` faults, each of them
    `what` (e.g. " drop port 1 in read-resp ")."""
    trace = fault_trace(vm, rule[0])
    assert len(trace) == count and all(what in t for t in trace), \
        "expected %d x %r in the trace:\n%s" % (count, what, "\n".join(trace))
    return trace


# A trace line's fields that the seed and the workload do not decide:
# the PSN (each connection's first PSN is the kernel's random choice:
# ib_cm/rdma_cm's get_random_u32() & 0xffffff); for a fault in the middle
# of fio, also which queue's QP the nth match falls on, its message
# number on that QP and the length of that message (fio's jobs and the
# ULP's queues race for the link).
UNDECIDED = {"mad": ("psn",), "io": ("qpn", "psn", "msg", "len")}


def stable(line, kind):
    for field in UNDECIDED[kind]:
        line = re.sub(r" %s \S+" % field, " %s -" % field, line)
    return line


def without_rule_ids(trace):
    """The trace without its rules' ids: a device numbers its rules on
    from its first `add`, and `clear` does not start them again, so a
    second rule of one session has another id."""
    return [re.sub(r" rule \d+ ", " rule - ", line) for line in trace]


def same_as_earlier_run(name, trace, kind):
    """The first run of a seed writes the test's trace to
    build/results/fault-traces/SEED/NAME; a later run with that seed
    (VHCA_FAULT_SEED) must produce the same trace, but for the fields
    UNDECIDED[kind]."""
    path = os.path.join(TRACE_DIR, "%d" % SEED, name)
    got = [stable(line, kind) for line in trace]
    if os.path.exists(path):
        with open(path) as f:
            before = f.read().splitlines()
        ulplib.log("fault trace of the earlier run of seed %d (%s)" % (SEED, path),
                   "\n".join(before))
        assert got == before, "seed %d: trace %s, earlier run %s" % (SEED, got, before)
        return
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write("".join(line + "\n" for line in got))


def sysfs_int(vm, path):
    _, out = vm.run("cat %s" % path, timeout=30, check=True)
    return int(out.strip().splitlines()[-1], 0)


# ib_cm's counters, on the port's sysfs since Linux 5.14.  A lost REP is
# resent either by the target's MAD layer (no RTU came back: its REP
# timer, the REQ's LocalCMResponseTimeout, rdma_cm's and ib_srp's 20:
# 4.3 s) or, second, after the host's REQ timer (that timeout plus twice
# the PacketLifeTime: 4.8 s) by a REQ the target counts as a duplicate
# (IBA 12.9.3 and 12.9.4): the sum of the three counts the resends.
CM_RESEND_COUNTERS = ((TARGET_DEV, "cm_tx_retries/rep"),
                      (HOST_DEV, "cm_tx_retries/req"),
                      (TARGET_DEV, "cm_rx_duplicates/req"))


def cm_resends(vm):
    return sum(sysfs_int(vm, "/sys/class/infiniband/%s/ports/1/%s" % c)
               for c in CM_RESEND_COUNTERS)


def connect_with_lost_rep(vm, connect):
    """connect() with the target's first CM REP lost; the target's fault
    trace and the CM resends it caused."""
    before = cm_resends(vm)
    fresh_rules(vm)
    add(vm, CM_REP_RULE)
    connect()
    trace = expect_trace(vm, CM_REP_RULE, 1, " drop port 1 out mad ")
    assert "mad-class 0x07 mad-attr 0x0013" in trace[0], trace
    rules(vm, TARGET_DEV, "clear")
    # a resent REP is counted when its send completes, which the RTU's
    # arrival (ib_cancel_mad) finishes from ib_mad's workqueue
    deadline = time.monotonic() + 30
    while cm_resends(vm) == before and time.monotonic() < deadline:
        time.sleep(0.5)
    resent = cm_resends(vm) - before
    assert resent >= 1, "neither REP nor REQ resent after the lost REP"
    return trace


def fio_under(vm, ulp, name, rule):
    """fio verify across `rule`: the rule is added right before fio
    starts and its nth= falls in fio's traffic (the trace says that it
    fired); fio's exit status must be 0 (every block written and read
    back whole).  64 KiB writes: beyond every ULP's inline or immediate
    data (nvmet-rdma's 4 KiB, iSER's and SRP's 8 KiB, xprtrdma's 4 KiB
    inline threshold), so the target fetches them with RDMA READs."""
    fresh_rules(vm)
    add(vm, rule)
    target = ulp.io_target()
    if ulp.backend:
        ulpfault.assert_block_device(vm, target)
        ulplib.background_fio(vm, Fio(target, **FIO), name)
    else:
        ulplib.background_fio(vm, Fio(os.path.basename(target), **FIO), name,
                              cwd=os.path.dirname(target))
    rc, log = ulplib.wait_background_fio(vm, name, timeout=900)
    ulplib.log("fio across %s (exit %d)" % (name, rc), log)
    assert rc == 0, "fio verify failed across %s:\n%s" % (name, log)
