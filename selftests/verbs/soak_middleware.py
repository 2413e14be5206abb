"""The middleware soak (`make soak-middleware`; not part of `make test`).

Issue 24, finding 3: a guest soft-locked both vCPUs during an Open MPI
ping-pong that followed a series of ucx_perftest runs.  This replays that
series in one guest, round after round (VHCA_SOAK_ROUNDS, default 10),
with the guest's console at full log level, until something goes wrong;
with VHCA_SOAK_BOOTS=N, in N guests one after the other, each booted
afresh and taken through the whole history below.
First, as the report's guest had been through both: Debian's opensm takes
the subnet from the embedded SM and gives it back (VHCA_SOAK_OPENSM), and
riostream's verified run between the devices is killed mid-run
VHCA_SOAK_KILLS times (default 2), and with VHCA_SOAK_RXE the same run
on rdma_rxe in the same guest, as the report compared them.
Then each round:

1. ucx_perftest (server on vhca0:1, client on vhca0:2; VHCA_SOAK_DEVICES
   below) over rc_verbs,ud_verbs: tag_lat 8 B, tag_bw 1 MiB, ucp_put_bw
   64 KiB; tag_lat 8 B over ud_verbs alone;
2. three runs over UCX's shared-memory transports (sm);
3. three runs over rc_verbs,self, which UCX refuses ("Destination is
   unreachable": rc_verbs alone has no wire-up transport);
4. mpi_check (programs/mpi_check.c, every byte checked, up to 4 MiB) on
   two ranks over pml ucx with UCX_TLS=rc_verbs,ud_verbs,self;
5. the same with its 4 MiB ping-pong in buffers mapped for each round trip
   and unmapped after it (`mpi_check 4194304 fresh`): UCX's registration
   cache deregisters each buffer and registers the next, as an
   application that allocates per message makes it do (the report's
   ping-pong program is not known; this is the other way one is written).
6. with VHCA_SOAK_MIDKILLS=N, N runs killed with SIGKILL while their RDMA
   traffic is in flight (midkill.py: a rank of the ping-pong or one side
   of a ucx_perftest bandwidth run), as a Ctrl-C or a job scheduler's
   time limit ends them.

After every round the guest's kernel log must hold no soft lockup, hung
task, BUG, WARNING, RCU stall or spurious interrupt ("nobody cared": a vhca
vector firing with nothing to consume, driver/shim/irq.c); no vhca vector
may have had more than irqcount.UNHANDLED_MAX such interrupts in a row
(/proc/irq/N/spurious), and the round's interrupts on the vhca vectors
(/proc/interrupts, irqcount.py) must stay within irqcount.storm_limit of
round 1's: the same work every round, so a storm whose interrupts do carry
events shows as a count out of proportion.  Nor may either device have
seen an EQ armed again at an index it already interrupted for
(eq-stuck-arms, the device's view of the ring disagreement IRQ_NONE
guards against).  Nor may a round leave anything
behind once its processes have exited (footprint.py): an RDMA object
beyond those before round 1, a page still pinned, or MemAvailable more
than footprint.MEM_DROP_MAX below round 1's.  While a round runs, QMP is
asked every second (mainloop_probe.py): the report's QMP stopped
answering, and a main loop held off QEMU's global lock for more than
mainloop_probe.STALL_SECONDS fails the round; every round logs the
latencies.  When a command does not come back or the main loop stalls,
the test saves every QEMU thread's backtrace (gdb) and the console log
before it stops the guest: build/vm-logs/soak-*.
"""
import os
import random
import re
import subprocess
import sys
import time

import pytest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import vmlib  # noqa: E402
from vmlib import log  # noqa: E402
from irqcount import (UNHANDLED_MAX, irq_delta, parse_spurious, spurious_script,  # noqa: E402
                      storm_limit, vhca_irq_counts, vhca_irq_numbers)
from footprint import FOOTPRINT_SCRIPT, MEM_DROP_MAX, leaks, parse_footprint  # noqa: E402
from mainloop_probe import MainLoopProbe  # noqa: E402
from middleware import build_mpi_check, mpi_check_pingpong, mpirun_two_ranks, ucx_env, ucx_perftest  # noqa: E402
from uverbs import assert_eq_agreement, run_pair, verbs_vm  # noqa: E402
import rsockets  # noqa: E402
import midkill  # noqa: E402
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "ulp"))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "fabric"))
import fabriclib  # noqa: E402 (wait_sm_lid)
from ulplib import GUEST_SCRIPTS, HOST_IP, TARGET_IP  # noqa: E402 (fabric.sh's addresses)

ROUNDS = int(os.environ.get("VHCA_SOAK_ROUNDS", "10"))
# VHCA_SOAK_BOOTS (default 1): guests booted one after the other, each
# through opensm, the kills and ROUNDS rounds.  The report's guest locked
# up in its first ping-pong after that history; one guest's later rounds
# replay the series, not the history, so `VHCA_SOAK_BOOTS=N
# VHCA_SOAK_ROUNDS=1` replays the report's whole sequence N times.
BOOTS = int(os.environ.get("VHCA_SOAK_BOOTS", "1"))
# VHCA_SOAK_DEVICES: UCX_NET_DEVICES of both sides, "all" for none (UCX
# on every port, as the report ran it on Debian 12's UCX 1.13; UCX 1.18
# cannot use both ports of vhca0 in one process: middleware.py
# PAIRS), e.g. "vhca0:1,vhca1:1" for two rails on Debian 13.  Unset: the
# server on vhca0:1, the client on vhca0:2.
SOAK_DEVICES = os.environ.get("VHCA_SOAK_DEVICES")
if SOAK_DEVICES:
    SERVER_PORT = CLIENT_PORT = None if SOAK_DEVICES == "all" else SOAK_DEVICES
else:
    SERVER_PORT, CLIENT_PORT = "vhca0:1", "vhca0:2"
# mpirun_two_ranks' devices of rank 0 and rank 1 (None: both on every port).
RANK_PORTS = None if SERVER_PORT is None else (SERVER_PORT, CLIENT_PORT)
# VHCA_SOAK_KILLS (default 2): before round 1, this many times, riostream
# -S all -T v from vhca1:1 to vhca0:1 (IPoIB and policy routes:
# scripts/guest/ulp/fabric.sh) killed with SIGKILL after KILL_AFTER
# seconds (random, the seed logged), as the report killed its hung
# riostreams before the middleware series; each kill must leave nothing
# behind (footprint.py).
KILLS = int(os.environ.get("VHCA_SOAK_KILLS", "2"))
# VHCA_SOAK_RXE (seconds, default 0: off): after the kills, the report's
# comparison run on rdma_rxe in the same guest, riostream -S all -T v
# between rxe0 and rxe1 on a veth pair (fabric.sh rxe, the same
# addresses), killed after this many seconds (the report's stopped at its
# time limit); then the rxe links and the veth pair go and the addresses
# return to IPoIB, rdma_rxe staying loaded, before the rounds.
RXE_SECONDS = int(os.environ.get("VHCA_SOAK_RXE", "0"))
# VHCA_SOAK_OPENSM: Debian's opensm on vhca0 port 1 beside the embedded SM,
# as the report ran it (finding 2: `opensm -g <port GUID> -s 10`, which
# wins SMInfo arbitration and keeps every LID).  "before" (default): once
# opensm is master it is stopped (SIGTERM) and the embedded SM must take
# the subnet back before the kills and rounds, the report's history;
# "during": it stays master, sweeping every 10 s, through every round;
# "off": no opensm.
OPENSM = os.environ.get("VHCA_SOAK_OPENSM", "before")
if OPENSM not in ("off", "before", "during"):
    raise ValueError("VHCA_SOAK_OPENSM=%s: off, before or during" % OPENSM)
OPENSM_LOG = "/tmp/soak-opensm.log"
EMBEDDED_SM_LID = 1
# VHCA_SOAK_MIDKILLS (default 0): the sixth step's killed runs a round
# (midkill.py), chosen with a Random whose seed is logged in round 1.
MIDKILLS = int(os.environ.get("VHCA_SOAK_MIDKILLS", "0"))
MIDKILL_SEED = random.randrange(1 << 32)
MIDKILL_PICK = random.Random(MIDKILL_SEED)
# IPoIB comes up for the kills and stays up for the rounds.
IPOIB_UP = KILLS > 0
KILL_AFTER = (5, 60)
FABRIC_SCRIPT = os.path.join(GUEST_SCRIPTS, "fabric.sh")
SETTLE_TRIES, SETTLE_SECONDS = 5, 2
UCX_PORT = 13338
RC_UD = "rc_verbs,ud_verbs"
# (UCX_TLS, test, size, iterations, must pass)
SERIES = [
    (RC_UD, "tag_lat", "8", 1000, True),
    (RC_UD, "tag_bw", "1048576", 50, True),
    (RC_UD, "ucp_put_bw", "65536", 200, True),
    ("ud_verbs", "tag_lat", "8", 1000, True),
    ("sm,self", "tag_lat", "8", 1000, True),
    ("sm,self", "tag_bw", "1048576", 50, True),
    ("sm,self", "ucp_put_bw", "65536", 200, True),
    ("rc_verbs,self", "tag_lat", "8", 100, False),
    ("rc_verbs,self", "tag_bw", "65536", 20, False),
    ("rc_verbs,self", "ucp_put_bw", "65536", 20, False),
]
KERNEL_TROUBLE = re.compile(
    r"soft lockup|hung_task|blocked for more than|BUG:|WARNING:|rcu_sched self-detected|"
    r"rcu: INFO|Call Trace|nobody cared|Disabling IRQ")
# Round 1's interrupts on the vhca vectors ("total") and MemAvailable
# ("mem"), the measures of later rounds'; "footprint": what the guest held
# before the first round (footprint.py).  Each boot has its own.
BASELINE = {}


# Backtrace samples of a hung QEMU, BT_INTERVAL seconds apart: one sample
# cannot tell a vCPU that stays in interrupt or exception delivery (a storm,
# a fault loop) from one caught there once while the BQL is contended.
BT_SAMPLES = 3
BT_INTERVAL = 5
# Each vCPU's guest RIP, CR2 and exception with every sample.
GDB_VCPU_STATE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "gdb_vcpu_state.py")


def thread_cpu_ticks(pid):
    """{tid: (name, user + system clock ticks)} of every thread of pid
    (proc(5): /proc/PID/task/TID/stat fields 14 and 15)."""
    ticks = {}
    task_dir = "/proc/%d/task" % pid
    for tid in sorted(os.listdir(task_dir), key=int):
        try:
            with open(os.path.join(task_dir, tid, "stat")) as f:
                stat = f.read()
        except OSError:
            continue  # the thread ended
        name = stat[stat.index("(") + 1:stat.rindex(")")]
        fields = stat[stat.rindex(")") + 2:].split()
        ticks[int(tid)] = (name, int(fields[11]) + int(fields[12]))
    return ticks


def save_qemu_backtraces(machine, tag):
    """Every QEMU thread's backtrace, BT_SAMPLES times, each with the CPU
    time every thread used since the previous sample, while QEMU runs."""
    path = os.path.join(machine.log_dir, "%s-%s-qemu-bt.txt" % (machine.name, tag))
    if machine.proc is None or machine.proc.poll() is not None:
        return
    pid = machine.proc.pid
    with open(path, "w") as out:
        previous = {}
        for sample in range(1, BT_SAMPLES + 1):
            if sample > 1:
                time.sleep(BT_INTERVAL)
            ticks = thread_cpu_ticks(pid)
            out.write("==== sample %d: CPU ticks per thread since %s ====\n"
                      % (sample, "the previous sample" if previous else "it started"))
            for tid, (name, used) in ticks.items():
                out.write("%d %s%s: %d\n" % (tid, name, " (main thread)" if tid == pid else "",
                                              used - previous.get(tid, (name, 0))[1]))
            previous = ticks
            out.flush()
            subprocess.run(["gdb", "-p", str(pid), "-batch", "-nx",
                            "-ex", "thread apply all bt", "-x", GDB_VCPU_STATE],
                           stdout=out, stderr=subprocess.STDOUT, timeout=120, check=False)
    log("QEMU backtraces", "written to %s" % path)


def boot_name(boot):
    """The guest's name (its logs in build/vm-logs/NAME-*): "soak", or
    "soak-bootN" when there are several."""
    return "soak" if BOOTS == 1 else "soak-boot%d" % boot


@pytest.fixture(scope="module", params=range(1, BOOTS + 1),
                ids=lambda boot: "boot%d" % boot)
def vm(request):
    BASELINE.clear()
    with verbs_vm(boot_name(request.param)) as machine:
        machine.run("dmesg -n 8; echo 1 > /proc/sys/kernel/softlockup_all_cpu_backtrace",
                    timeout=60)
        if IPOIB_UP:
            machine.run("sh %s vhca vhca0 vhca1" % FABRIC_SCRIPT, timeout=180, check=True)
        if OPENSM != "off":
            opensm_takes_the_subnet(machine)
        if OPENSM == "before":
            stop_opensm(machine)
        BASELINE["footprint"] = footprint(machine)
        kill_riostreams(machine, KILLS)
        if RXE_SECONDS:
            rxe_riostream(machine, RXE_SECONDS)
        yield machine
        if OPENSM == "during":
            _, alive = machine.run("pgrep -x opensm", timeout=30)
            stop_opensm(machine)
            assert alive.strip(), "opensm exited during the rounds"


def opensm_takes_the_subnet(vm):
    """opensm on vhca0 port 1, sweeping every 10 s, until every port has
    it as master SM."""
    _, guid = vm.run("ibstat -p vhca0 | head -1", timeout=30, check=True)
    vm.run("rm -f {log}; (opensm -g {guid} -s 10 -f {log} > /tmp/soak-opensm.out 2>&1 &)"
           .format(log=OPENSM_LOG, guid=guid.strip()), timeout=30, check=True)
    try:
        out = fabriclib.wait_sm_lid(vm, not_lid=EMBEDDED_SM_LID, timeout=300)
    except vmlib.VMTimeout:
        _, osm = vm.run("tail -n 20 /tmp/soak-opensm.out %s" % OPENSM_LOG, timeout=60)
        raise AssertionError("opensm did not become master SM:\n" + osm)
    log("soak: opensm is master", out)


def stop_opensm(vm):
    """opensm stopped; the embedded SM takes the subnet back (SM LID 1)."""
    vm.run("pkill -x opensm; sleep 2", timeout=60)
    t0 = time.monotonic()
    fabriclib.wait_sm_lid(vm, EMBEDDED_SM_LID, timeout=300)
    _, errors = vm.run("grep -E ' ERR [0-9A-F]{4}:' %s | tail -20" % OPENSM_LOG, timeout=60)
    log("soak: embedded SM master again after %.0f s" % (time.monotonic() - t0),
        "opensm's ERR lines:\n" + errors)


def riostream_killed_after(vm, seconds, tag):
    """riostream -S all -T v from HOST_IP to TARGET_IP (output in
    /tmp/soak-TAG-server.log and -client.log), killed with SIGKILL after
    `seconds`; returns the last lines of both sides."""
    server = rsockets.server_command(TARGET_IP, "-S all -T v")
    client = rsockets.client_command(TARGET_IP, "-S all -T v", HOST_IP)
    server_log = "/tmp/soak-%s-server.log" % tag
    client_log = "/tmp/soak-%s-client.log" % tag
    vm.run("(%s > %s 2>&1 &); sleep 3; (%s > %s 2>&1 &)"
           % (server, server_log, client, client_log), timeout=60)
    time.sleep(seconds)
    _, out = vm.run("tail -n 3 %s %s; pkill -9 -x riostream; sleep 2; ! pgrep -x riostream"
                    % (server_log, client_log), timeout=60)
    return out


def kill_riostreams(vm, kills):
    """riostream's verified run between the devices (IPoIB addresses of
    fabric.sh), killed mid-run `kills` times; nothing may be left."""
    seed = random.randrange(1 << 32)
    pick = random.Random(seed)
    log("soak: riostream kills", "%d, seed %d" % (kills, seed))
    for kill in range(1, kills + 1):
        seconds = pick.randint(*KILL_AFTER)
        out = riostream_killed_after(vm, seconds, "rio")
        log("soak: riostream killed after %d s (%d of %d)" % (seconds, kill, kills), out)
        _, left = settled_footprint(vm)
        assert not left, "left behind by a killed riostream: %s" % "; ".join(left)


def rxe_riostream(vm, seconds):
    """VHCA_SOAK_RXE: riostream's verified run on rdma_rxe, killed after
    `seconds`; the IPoIB interfaces give up the addresses meanwhile so
    that rdma_cm resolves them to rxe, and take them back after."""
    ipoib = [vm.run("sh %s netdev %s" % (FABRIC_SCRIPT, dev), timeout=60, check=True)[1].strip()
             for dev in ("vhca0", "vhca1")] if IPOIB_UP else []
    vm.run("".join("ip addr flush dev %s; " % n for n in ipoib) +
           "sh %s rxe" % FABRIC_SCRIPT, timeout=120, check=True)
    out = riostream_killed_after(vm, seconds, "rxe")
    _, links = vm.run("rdma link delete rxe1; rdma link delete rxe0; ip link del veth0; "
                      "rdma link show", timeout=120)
    log("soak: riostream on rdma_rxe killed after %d s, rxe links deleted" % seconds,
        out + links)
    if IPOIB_UP:
        vm.run("sh %s vhca vhca0 vhca1" % FABRIC_SCRIPT, timeout=180, check=True)
    _, left = settled_footprint(vm)
    assert not left, "left behind by the rxe run: %s" % "; ".join(left)


def perftest(vm, tls, test, size, iters):
    src, crc, sout, cout = run_pair(
        vm, ucx_perftest(ucx_env(tls, SERVER_PORT), "-p %d" % UCX_PORT),
        ucx_perftest(ucx_env(tls, CLIENT_PORT), "localhost -p %d -t %s -s %s -n %d -w 10 -f"
                     % (UCX_PORT, test, size, iters)),
        timeout=300, listen_port=UCX_PORT)
    return (src, crc), sout + "\n--- client ---\n" + cout


def vhca_interrupts(vm):
    _, text = vm.run("cat /proc/interrupts", timeout=60)
    return text


def check_interrupts(vm, round_no, before, after):
    """The round's vhca interrupts, logged per vector with the kernel's
    count of those that had nothing to consume (IRQ_NONE, irqcount.py);
    those stay within UNHANDLED_MAX, and round 1's total is the baseline a
    later round's may not exceed storm_limit of."""
    delta = irq_delta(vhca_irq_counts(before), vhca_irq_counts(after))
    total = sum(delta.values())
    numbers = vhca_irq_numbers(after)
    _, text = vm.run(spurious_script(numbers), timeout=60) if numbers else (0, "")
    unhandled = parse_spurious(text, numbers)
    log("soak %d: vhca interrupts" % round_no,
        "total %d\n%s" % (total, "\n".join("%s: %d (unhandled now %s)"
                                           % (name, count, unhandled.get(name))
                                           for name, count in sorted(delta.items()))))
    assert delta, "no vhca vector in /proc/interrupts"
    stormy = {name: n for name, n in unhandled.items() if n > UNHANDLED_MAX}
    assert not stormy, "vhca vectors firing with nothing to consume: %s" % stormy
    if "total" not in BASELINE:
        BASELINE["total"] = total
        return
    limit = storm_limit(BASELINE["total"])
    assert total <= limit, ("interrupt storm? %d vhca interrupts this round, round 1 took %d "
                            "(limit %d): %s" % (total, BASELINE["total"], limit, delta))


def footprint(vm):
    _, text = vm.run(FOOTPRINT_SCRIPT, timeout=60)
    return parse_footprint(text)


def settled_footprint(vm):
    """(footprint(), leaks() of it against the baseline) once nothing is
    left, or after SETTLE_TRIES reads SETTLE_SECONDS apart: FOLL_PIN also
    counts other pins than ib_umem's, I/O in flight among them (on Linux
    7.3, 8 or 12 pages right after a round, none by the next), and a
    process's RDMA objects go when its last file reference does.  A leak
    stays."""
    for attempt in range(1, SETTLE_TRIES + 1):
        now = footprint(vm)
        left = leaks(BASELINE["footprint"], now)
        if not left or attempt == SETTLE_TRIES:
            return now, left
        time.sleep(SETTLE_SECONDS)


def check_footprint(vm, round_no):
    """Every process of the round has exited: no RDMA object and no pinned
    page may be left beyond what the guest held before round 1, and
    MemAvailable stays within MEM_DROP_MAX of round 1's."""
    now, left = settled_footprint(vm)
    log("soak %d: footprint" % round_no, "pinned pages %d, MemAvailable %s KiB, "
        "SUnreclaim %s KiB\n%s" % (now["pinned"], now["mem"].get("MemAvailable"),
                                   now["mem"].get("SUnreclaim"), now["res"]))
    assert not left, "left behind after round %d: %s" % (round_no, "; ".join(left))
    available = now["mem"].get("MemAvailable", 0)
    BASELINE.setdefault("mem", available)
    assert available >= BASELINE["mem"] - MEM_DROP_MAX, (
        "MemAvailable %d KiB after round %d, %d KiB after round 1" % (
            available, round_no, BASELINE["mem"]))


def mpi_pingpong(vm, buffers=""):
    """mpi_check's 4 MiB ping-pong; buffers "fresh": a new mapping each
    round trip."""
    _, out = vm.run(mpirun_two_ranks(RC_UD + ",self", RANK_PORTS, mpi_check_pingpong(buffers),
                                     600, oob_on_lo=not IPOIB_UP), timeout=660)
    return out


def run_round(vm, round_no):
    """The report's series: SERIES, then the ping-pong in the same
    buffers and in fresh ones; then MIDKILLS runs killed mid-traffic,
    each of which must leave nothing behind."""
    for tls, test, size, iters, must_pass in SERIES:
        status, out = perftest(vm, tls, test, size, iters)
        log("soak %d: ucx_perftest %s %s %s" % (round_no, tls, test, size), out)
        if must_pass:
            assert status == (0, 0), out
    for buffers in ("", "fresh"):
        out = mpi_pingpong(vm, buffers)
        log("soak %d: mpirun %s" % (round_no, buffers), out)
        assert "mpi-status=0" in out and "mpi_check: ok" in out, out
    if MIDKILLS and round_no == 1:
        log("soak: mid-traffic kills", "%d a round, seed %d" % (MIDKILLS, MIDKILL_SEED))
    for kill in range(1, MIDKILLS + 1):
        out = midkill.episode(vm, MIDKILL_PICK, RC_UD + ",self", RANK_PORTS,
                              not IPOIB_UP, UCX_PORT)
        log("soak %d: mid-traffic kill %d" % (round_no, kill), out)
        _, left = settled_footprint(vm)
        assert not left, "left behind by mid-traffic kill %d: %s" % (kill, "; ".join(left))


@pytest.mark.parametrize("round_no", range(1, ROUNDS + 1))
def test_soak_round(vm, round_no):
    build_mpi_check()
    vm.run("dmesg -C", timeout=60)
    before = vhca_interrupts(vm)
    with MainLoopProbe(vm, lambda: save_qemu_backtraces(vm, "round%d-qmp" % round_no)) as probe:
        try:
            run_round(vm, round_no)
        except vmlib.VMTimeout:
            if not probe.stalled:
                save_qemu_backtraces(vm, "round%d" % round_no)
            raise
    log("soak %d: QEMU's main loop" % round_no, probe.summary())
    assert not probe.stalled, "QEMU's main loop stalled: %s" % probe.summary()
    _, kernel = vm.run("dmesg", timeout=120)
    trouble = [line for line in kernel.splitlines() if KERNEL_TROUBLE.search(line)]
    assert not trouble, kernel[-6000:]
    check_interrupts(vm, round_no, before, vhca_interrupts(vm))
    # The device's side of a ring disagreement; the Makefile turns on the
    # trace that names the EQ, its index and the owner byte there.
    assert_eq_agreement(vm)
    check_footprint(vm, round_no)
