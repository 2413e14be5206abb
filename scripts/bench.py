#!/usr/bin/python3
"""`make bench`: perftest on vhca and on rdma_rxe in one TCG guest.

One VM boot (selftests/vmlib.py, 2 vCPUs) with vhca0 (two ports) and
vhca1; in the guest, rdma_rxe over a veth pair (rxe0 on veth0, rxe1 on
veth1) is the anchor.  Each metric runs as a perftest server + client pair
inside the guest (out-of-band exchange over TCP on 127.0.0.1), 3 times; the
median counts.  The guest's memcpy bandwidth (build/bench/memcpy-bw, built
by scripts/bench.sh) is the ceiling.

Prints one table with a vhca/rxe ratio per row (> 1: vhca is better, for
latency rxe/vhca), writes the rows to build/bench/results.json and every
perftest output to build/bench/bench.log.  When vhca cannot run perftest
(vhca.ko without user verbs, no libibverbs provider, a failed run) its
cells are null and a footnote says why.  Exit status: 0 when the rxe
anchor and the harness worked, 1 otherwise (vhca failures do not count).
Documentation/performance.md describes the figures.
"""
import json
import math
import os
import re
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "selftests"))
import vmlib  # noqa: E402
import bench_fabric  # noqa: E402
import bench_nvme  # noqa: E402
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "selftests", "ulp"))
from ulplib import GUEST_SCRIPTS, HOST_IP, TARGET_IP  # noqa: E402 (fabric.sh's addresses)

OUT_DIR = os.path.join(vmlib.BUILD, "bench")
MODULE = vmlib.MODULE
MEMCPY = os.path.join(OUT_DIR, "memcpy-bw")
CEILINGS = os.path.join(OUT_DIR, "ceilings")
DEVICES = [
    "vhca,id=vhca0,ports=2,node-guid=0x5254000000000100",
    "vhca,id=vhca1,ports=1,node-guid=0x5254000000000200",
]
RUNS = int(os.environ.get("BENCH_RUNS") or 3)
# Seconds one perftest pair may take (times VHCA_TIMEOUT_SCALE); an rxe
# run takes 2 to 15 s here.
RUN_LIMIT = 120
# The provider of `make provider` (VHCA_PROVIDER_DIR: another build of it).
PROVIDER_DIR = os.environ.get("VHCA_PROVIDER_DIR") or os.path.join(vmlib.BUILD, "provider")
PROVIDER = os.path.join(PROVIDER_DIR, "libvhca-rdmav34.so")
INSTALL_PROVIDER = os.path.join(vmlib.REPO, "scripts", "guest", "install-provider.sh")

# (metric, unit, perftest tool, options, result column, lower is better).
# Iteration counts are chosen for TCG: rxe takes about 20 us per message,
# 20-50 MB/s at 64 KiB and 0.01 Mpps at 64 B on this 2-core host, so an
# rxe run moves data for 0.1 s (latency), 3-6 s (64 KiB: 125 MiB; longer
# runs end in rxe completion errors more often) and 2 s (64 B), and vhca,
# 10 to 300 times faster, still runs long enough for perftest's clock.
# 3 runs x 5 metrics x 2 devices take 2 to 5 minutes.  -F: no
# CPU-frequency warning (a guest has no cpufreq).
METRICS = [
    ("send_lat", "us", "ib_send_lat", "-s 2 -n 5000", "t_typical", True),
    ("write_lat", "us", "ib_write_lat", "-s 2 -n 5000", "t_typical", True),
    ("write_bw_64k", "MB/s", "ib_write_bw", "-s 65536 -n 2000", "BW average", False),
    ("read_bw_64k", "MB/s", "ib_read_bw", "-s 65536 -n 2000", "BW average", False),
    ("send_rate_64b", "Mpps", "ib_send_bw", "-s 64 -n 20000", "MsgRate", False),
    # One doorbell per chain of 16 (perftest --post_list), and two QPs
    # (perftest -q 2: the aggregate rate of two QPs that one client thread
    # posts to in turn, so one vCPU rings both QPs' doorbells).
    ("send_rate_64b_pl16", "Mpps", "ib_send_bw", "-s 64 -n 20000 -l 16", "MsgRate", False),
    ("send_rate_64b_2qp", "Mpps", "ib_send_bw", "-s 64 -n 20000 -q 2", "MsgRate", False),
    ("send_bw_4k", "MB/s", "ib_send_bw", "-s 4096 -n 5000", "BW average", False),
]

# The limits of the machine itself (issue 12): rows whose vhca cell holds
# the figure and whose rxe cell is null.  ring_rate_ceiling and
# pingpong_latency_floor are measured in the guest (scripts/bench-
# ceilings.c), host_memcpy on the host at the 64 KiB footprint of
# perftest's bandwidth runs (one message buffer, reused).
CEILING_ROWS = [
    ("ring_rate_ceiling", "Mpps"),
    ("pingpong_latency_floor", "us"),
    ("host_memcpy", "MB/s"),
]
# Which ceiling each metric is read against; for latency the share is
# floor / figure, otherwise figure / ceiling.
CEILING_OF = {
    "send_lat": "pingpong_latency_floor",
    "write_lat": "pingpong_latency_floor",
    "write_bw_64k": "host_memcpy",
    "read_bw_64k": "host_memcpy",
    "send_bw_4k": "host_memcpy",
    "send_rate_64b": "ring_rate_ceiling",
    "send_rate_64b_pl16": "ring_rate_ceiling",
    "send_rate_64b_2qp": "ring_rate_ceiling",
}

# rxe0 on veth0 and rxe1 on veth1, both in the guest's one network
# namespace.  rdma_rxe routes its UDP packets with the init namespace's
# tables and only accepts packets that arrive on the netdev of an rxe
# device: a packet to a local address would go through lo and be dropped.
# So the local table moves behind two policy rules that send locally
# generated traffic (iif lo) between the two addresses out of the other
# veth, and accept_local lets each side accept a packet whose source is
# one of its own addresses.  veth hands each packet to the receiving
# CPU's backlog queue: with the default limit (1000 packets) a 64 KiB
# burst of 1 KiB RoCE packets overflows it, and every drop costs rxe a
# retransmission timeout (tens of ms), so the limit is raised.
RXE_SETUP = r'''
set -e
modprobe -a veth rdma_rxe
ip link set lo up
sysctl -qw net.core.netdev_max_backlog=100000
sysctl -qw net.ipv4.conf.all.rp_filter=0 net.ipv4.conf.default.rp_filter=0
sysctl -qw net.ipv4.conf.all.accept_local=1 net.ipv4.conf.default.accept_local=1
ip link add veth0 type veth peer name veth1
ip addr add 10.77.0.1/24 dev veth0
ip addr add 10.77.0.2/24 dev veth1
ip link set veth0 up
ip link set veth1 up
ip route add 10.77.0.2 dev veth0 table 100
ip route add 10.77.0.1 dev veth1 table 101
ip rule add pref 10 iif lo from 10.77.0.1 to 10.77.0.2 lookup 100
ip rule add pref 11 iif lo from 10.77.0.2 to 10.77.0.1 lookup 101
ip rule add pref 1000 lookup local
ip rule del pref 0 lookup local
rdma link add rxe0 type rxe netdev veth0
rdma link add rxe1 type rxe netdev veth1
'''

RXE_TARGET_IP = "10.77.0.1"
RXE_HOST_IP = "10.77.0.2"
FABRIC_SCRIPT = os.path.join(GUEST_SCRIPTS, "fabric.sh")

# The GID index of the RoCE v2 GID that carries the port's IPv4 address.
GID_INDEX = r'''
d=/sys/class/infiniband/%s/ports/1
for g in $d/gids/*; do
	i=${g##*/}
	case "$(cat $g 2>/dev/null)" in
	0000:0000:0000:0000:0000:ffff:*)
		t=$(cat $d/gid_attrs/types/$i 2>/dev/null) || continue
		[ "$t" = "RoCE v2" ] && { echo $i; exit 0; }
		;;
	esac
done
exit 1
'''

# One server + client pair.  The client connects once the server listens
# (vmlib.wait_for), both under timeout(1); the output has both logs.
PAIR = r'''
timeout %(limit)d %(server)s -p %(port)d >/tmp/bench-srv.log 2>&1 &
srv=$!
%(wait_listening)s
timeout %(limit)d %(client)s -p %(port)d 127.0.0.1 >/tmp/bench-cli.log 2>&1
crc=$?
wait $srv
src=$?
echo "== client status $crc"; cat /tmp/bench-cli.log
echo "== server status $src"; cat /tmp/bench-srv.log
[ $crc = 0 ] && [ $src = 0 ]
'''


class BenchError(Exception):
    """The harness or the rxe anchor failed."""


class RunTimeout(ValueError):
    """A perftest run hung: not repeated (it would hang again)."""


def parse_perftest(text, column):
    """The value of column (a prefix of a header name such as "t_typical",
    "BW average", "MsgRate") in perftest's result line.  Raises ValueError
    when the output has no result table."""
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if "#bytes" not in line:
            continue
        # Header names may hold one space ("BW peak[MB/sec]",
        # "99% percentile[usec]"); values are single numbers.
        names = re.findall(r"#\w+|[^\s\[\]]+(?: [^\s\[\]]+)?\[[^\]]*\]", line)
        for row in lines[i + 1:]:
            values = row.split()
            if not values or values[0].startswith("-"):
                continue
            if not re.match(r"^\d+$", values[0]):
                break
            if len(values) < len(names):
                break
            for name, value in zip(names, values):
                if name.startswith(column):
                    return float(value)
            raise ValueError("no column %r in %r" % (column, line.strip()))
    raise ValueError("no perftest result table")


def client_part(output):
    """The client's log out of PAIR's output."""
    match = re.search(r"== client status \d+\n(.*?)== server status", output, re.S)
    return match.group(1) if match else output


class Bench:
    def __init__(self, vm, log):
        self.vm = vm
        self.log = log
        self.port = 18515

    def note(self, title, text):
        self.log.write("---- %s ----\n%s\n" % (title, text.rstrip()))
        self.log.flush()

    def run(self, cmd, timeout=120, check=True):
        rc, out = self.vm.run(cmd, timeout=timeout)
        self.note("%s (status %d)" % (cmd.strip().splitlines()[0], rc), out)
        if check and rc != 0:
            raise BenchError("guest command failed (%d): %s\n%s" % (rc, cmd.strip(), out))
        return rc, out

    def pair(self, tool, opts, server_dev, client_dev, column):
        """One perftest run: the client's value of column, or raise ValueError."""
        self.port += 1
        limit = int(RUN_LIMIT * vmlib.TIMEOUT_SCALE)
        base = "%s -F %s" % (tool, opts)
        cmd = PAIR % {"limit": limit, "port": self.port,
                      "wait_listening": vmlib.wait_for(vmlib.tcp_listening(self.port)),
                      "server": "%s %s" % (base, server_dev),
                      "client": "%s %s" % (base, client_dev)}
        try:
            rc, out = self.run(cmd, timeout=limit + 60, check=False)
        except vmlib.VMTimeout as err:
            self.note("timeout: " + cmd, err.output)
            raise RunTimeout("%s: the guest command did not finish" % tool) from None
        client = client_part(out)
        if re.search(r"== (client|server) status 124\n", out):
            raise RunTimeout("%s did not finish in %d s" % (tool, limit))
        if rc != 0:
            last = [l for l in client.splitlines() if l.strip()][-3:]
            raise ValueError("%s failed (status %d): %s" % (tool, rc, " | ".join(last)))
        return parse_perftest(client, column)

    def measure(self, devs, results):
        """Fill results with {metric: (median, [runs], failed runs)} or
        {metric: error string}, metric by metric (a VMError leaves the
        metrics measured so far)."""
        server_dev, client_dev = devs
        for metric, _unit, tool, opts, column, _lower in METRICS:
            runs, errors = [], []
            # A run counts when both sides exit 0 and the figure is finite
            # and positive.  rxe in Linux 6.1 sometimes ends a long run
            # with a completion error (status 9, REM_INV_REQ), and
            # perftest, on either device, sometimes prints inf (latency)
            # or 0.00 (bandwidth) for a run that completed, as if its CPU
            # clock estimate came out 0 under TCG: such a run is repeated,
            # at most RUNS extra times per metric; a run that hangs is not.
            while len(runs) < RUNS and len(errors) <= RUNS:
                try:
                    result = self.pair(tool, opts, server_dev, client_dev, column)
                except RunTimeout as err:
                    errors.append(str(err))
                    break
                except ValueError as err:
                    errors.append(str(err))
                    continue
                if math.isfinite(result) and result > 0:
                    runs.append(result)
                else:
                    errors.append("%s reported %s" % (tool, result))
            if len(runs) < RUNS:
                results[metric] = "%d of %d runs failed, last: %s" % (
                    len(errors), len(errors) + len(runs), errors[-1])
                print("bench: %s: %s" % (metric, results[metric]), file=sys.stderr)
                continue
            results[metric] = (statistics.median(runs), runs, len(errors))
            print("bench: %-14s %s%s" % (metric, " ".join("%g" % r for r in runs),
                                         " (%d failed runs repeated)" % len(errors)
                                         if errors else ""), file=sys.stderr)

    def ports_active(self, glob):
        """True when every port state file matching glob says ACTIVE."""
        def all_active(out):
            lines = out.split()
            return bool(lines) and all(":ACTIVE" in line for line in lines)
        try:
            out = self.vm.wait_until("grep -H . %s | tr -d ' '" % glob, all_active, 60)
        except vmlib.VMTimeout as err:
            self.note("ports not ACTIVE: " + glob, err.output)
            return False
        self.note("ports ACTIVE: " + glob, out)
        return True

    def setup_rxe(self):
        self.run(RXE_SETUP, timeout=180)
        if not self.ports_active("/sys/class/infiniband/rxe*/ports/1/state"):
            raise BenchError("rxe ports did not become ACTIVE")
        gids = []
        for dev in ("rxe1", "rxe0"):
            _, out = self.run(GID_INDEX % dev, timeout=30)
            gids.append(vmlib.guest_int(out))
        return ("-d rxe1 -i 1 -x %d" % gids[0], "-d rxe0 -i 1 -x %d" % gids[1])

    def setup_vhca(self):
        """(server, client) perftest device options, or a reason string."""
        rc, out = self.run("insmod %s" % MODULE, timeout=120, check=False)
        if rc != 0:
            return "insmod vhca.ko failed: %s" % out.strip().splitlines()[-1:]
        if not self.ports_active("/sys/class/infiniband/vhca*/ports/*/state"):
            return "vhca ports did not become ACTIVE"
        rc, _ = self.run("grep -lx vhca0 /sys/class/infiniband_verbs/uverbs*/ibdev",
                         timeout=30, check=False)
        if rc != 0:
            return "vhca.ko registers no user verbs device (no /dev/infiniband/uverbs for vhca0)"
        # The provider of `make provider`, when there is one: the guest's
        # root is the host's under a tmpfs overlay, the copy lives as long
        # as the guest.
        if os.path.exists(PROVIDER) and os.path.exists(INSTALL_PROVIDER):
            rc, out = self.run("sh %s %s" % (INSTALL_PROVIDER, PROVIDER_DIR),
                               timeout=60, check=False)
            if rc != 0:
                return "installing the provider failed: %s" % out.strip()[-200:]
        _, out = self.run("ibv_devices 2>&1", timeout=60, check=False)
        if not re.search(r"^\s*vhca0\s", out, re.M):
            return ("ibv_devices does not list vhca0: no libibverbs provider "
                    "(libvhca-rdmav34.so, /etc/libibverbs.d/vhca.driver)")
        return ("-d vhca0 -i 1", "-d vhca0 -i 2")

    def measure_nvme_vhca(self, results):
        """NVMe over RDMA across the vhca fabric: IPoIB addresses on vhca0
        port 1 (target) and vhca1 port 1 (host), policy routes between
        them (scripts/guest/ulp/fabric.sh; it replaces rxe's rules)."""
        rc, out = self.run("sh %s vhca vhca0 vhca1" % FABRIC_SCRIPT, timeout=180, check=False)
        if rc != 0:
            for metric, *_ in bench_nvme.METRICS:
                results[metric] = "fabric.sh failed: %s" % out.strip()[-200:]
            return
        bench_nvme.NvmeBench(self, TARGET_IP, HOST_IP, RUNS).measure(results)

    def memcpy(self):
        _, out = self.run("%s 32 3" % MEMCPY, timeout=300)
        match = re.search(r"memcpy_mbps ([\d.]+)", out)
        if not match:
            raise BenchError("memcpy-bw printed no result: %s" % out)
        return float(match.group(1))

    def guest_ceilings(self):
        """{ring_rate_ceiling, pingpong_latency_floor} measured in the guest."""
        found = {}
        for mode, key, row in (("ring", "ring_mpps", "ring_rate_ceiling"),
                               ("pingpong", "pingpong_oneway_us",
                                "pingpong_latency_floor")):
            _, out = self.run("%s %s 1" % (CEILINGS, mode), timeout=120)
            match = re.search(key + r" ([\d.]+)", out)
            if not match:
                raise BenchError("ceilings %s printed no result: %s" % (mode, out))
            found[row] = float(match.group(1))
        return found


def host_memcpy():
    """The host's memcpy at perftest's 64 KiB bandwidth footprint, MB/s."""
    out = subprocess.run([MEMCPY, "64k", "3"], check=True, capture_output=True,
                         text=True, timeout=120).stdout
    match = re.search(r"memcpy_mbps ([\d.]+)", out)
    if not match:
        raise BenchError("memcpy-bw on the host printed no result: %s" % out)
    return float(match.group(1))


def ratio(vhca, rxe, lower_is_better):
    if vhca is None or rxe is None or vhca == 0 or rxe == 0:
        return None
    return rxe / vhca if lower_is_better else vhca / rxe


def value(result):
    return result[0] if isinstance(result, tuple) else None


def runs(result):
    return result[1] if isinstance(result, tuple) else None


def failed_runs(result):
    return result[2] if isinstance(result, tuple) else None


def share(v, ceiling, lower_is_better):
    """v as a fraction of what the machine allows (1.0: at the ceiling)."""
    if v is None or not ceiling:
        return None
    return ceiling / v if lower_is_better else v / ceiling


def build_rows(vhca, rxe, xvm, ceiling, limits):
    rows = []
    # NVMe over RDMA (bench_nvme): a higher figure is better.
    metrics = [(m[0], m[1], m[5]) for m in METRICS] + \
        [(m[0], m[1], False) for m in bench_nvme.METRICS]
    for metric, unit, lower in metrics:
        v = value(vhca.get(metric))
        r = value(rxe.get(metric))
        rows.append({"metric": metric, "unit": unit, "vhca": v, "rxe": r,
                     "ratio": ratio(v, r, lower),
                     "ceiling": CEILING_OF.get(metric),
                     "share_of_ceiling": share(v, limits.get(CEILING_OF.get(metric)), lower),
                     "vhca_runs": runs(vhca.get(metric)), "rxe_runs": runs(rxe.get(metric)),
                     "vhca_failed_runs": failed_runs(vhca.get(metric)),
                     "rxe_failed_runs": failed_runs(rxe.get(metric))})
    for metric, unit, _tool, _opts, _column, _lower in bench_fabric.XVM_METRICS:
        v = xvm.get(metric)
        rows.append({"metric": metric, "unit": unit, "vhca": value(v),
                     "rxe": None, "ratio": None, "vhca_runs": runs(v),
                     "vhca_failed_runs": failed_runs(v)})
    # The ceiling is one figure of the guest, the same for both columns.
    rows.append({"metric": "memcpy_ceiling", "unit": "MB/s", "vhca": ceiling,
                 "rxe": ceiling, "ratio": None})
    for metric, unit in CEILING_ROWS:
        rows.append({"metric": metric, "unit": unit, "vhca": limits.get(metric),
                     "rxe": None, "ratio": None})
    return rows


def fmt(x, unit):
    if x is None:
        return "-"
    if unit == "Mpps":
        return "%.4f" % x
    return "%.2f" % x if x < 100 else "%.0f" % x


def print_table(rows, footnotes, load, accel):
    print()
    print("make bench: perftest in one %s guest (2 vCPUs), median of %d runs; "
          "host load before/after: %s" % (accel.upper(), RUNS, load))
    print("%-22s %-5s %12s %12s %9s %8s" % ("metric", "unit", "vhca", "rxe",
                                           "vhca/rxe", "%ceil"))
    print("-" * 73)
    single = {"memcpy_ceiling"} | {m for m, _ in CEILING_ROWS}
    for row in rows:
        if row["metric"] in single:
            print("%-22s %-5s %25s" % (row["metric"], row["unit"],
                                       fmt(row["vhca"], row["unit"])))
            continue
        mark = " *" if row["vhca"] is None else ""
        r = "-" if row["ratio"] is None else "%.2f" % row["ratio"]
        c = "-" if row.get("share_of_ceiling") is None else \
            "%.1f" % (100 * row["share_of_ceiling"])
        print("%-22s %-5s %12s %12s %9s %8s%s" % (row["metric"], row["unit"],
                                                 fmt(row["vhca"], row["unit"]),
                                                 fmt(row["rxe"], row["unit"]), r, c, mark))
    print("MB = 2^20 bytes (perftest's unit); latency is perftest's t_typical; "
          "ratio > 1: vhca is better;")
    print("%ceil: vhca's figure as a share of its ceiling row (latency: floor / figure).")
    for note in footnotes:
        print("* " + note)
    for row in rows:
        for side in ("vhca", "rxe"):
            if row.get(side + "_failed_runs"):
                print("note: %s %s: %d failed run(s) repeated (build/bench/bench.log)"
                      % (side, row["metric"], row[side + "_failed_runs"]))


def measure_cross_vm(footnotes):
    """The xvm_* rows (scripts/bench_fabric.py), after the single-VM
    guest has stopped: {metric: result}; what failed goes to footnotes."""
    footnotes.append("xvm_*: two VMs of one vCPU through build/vhca-switch "
                     "(Documentation/fabric.md); rxe is not run across VMs")
    with open(os.path.join(OUT_DIR, "bench.log"), "a") as log:
        def note(title, text):
            log.write("---- xvm: %s ----\n%s\n" % (title, text.rstrip()))
        try:
            xvm = bench_fabric.measure(parse_perftest, RUNS, note)
        except (vmlib.VMError, FileNotFoundError, AssertionError) as err:
            footnotes.append("xvm rows not measured: %s" % str(err).splitlines()[0])
            return {}
    for metric, result in xvm.items():
        if isinstance(result, str):
            footnotes.append("vhca %s: %s" % (metric, result))
    return xvm


def alternate(tool, prop, rounds, one_round, json_name):
    """rounds rounds of one_round("off") then one_round("on"), each a fresh
    boot (so that both modes see the same host load pattern); the results,
    also written to build/bench/<json_name>."""
    os.makedirs(OUT_DIR, exist_ok=True)
    results = []
    for _ in range(rounds):
        for mode in ("off", "on"):
            print("%s: round with %s=%s" % (tool, prop, mode), file=sys.stderr)
            results.append(one_round(mode))
    with open(os.path.join(OUT_DIR, json_name), "w") as f:
        json.dump(results, f, indent=1)
        f.write("\n")
    return results


def load_average():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def main():
    for path in (MODULE, MEMCPY, CEILINGS):
        if not os.path.exists(path):
            print("bench: %s missing (run `make bench`)" % path, file=sys.stderr)
            return 1
    os.makedirs(OUT_DIR, exist_ok=True)
    load_before = load_average()
    started = time.monotonic()
    with open(os.path.join(OUT_DIR, "bench.log"), "w") as log, \
            vmlib.VM(devices=DEVICES, name="bench", smp=2) as vm:
        bench = Bench(vm, log)
        accel = vm.accel_used
        log.write("accelerator: %s\n" % accel)
        try:
            bench.run("modprobe -a ib_core ib_uverbs ib_umad && ip link set lo up",
                      timeout=120)
            ceiling = bench.memcpy()
            print("bench: memcpy ceiling %.0f MB/s" % ceiling, file=sys.stderr)
            limits = bench.guest_ceilings()
            limits["host_memcpy"] = host_memcpy()
            print("bench: ceilings %s" % limits, file=sys.stderr)
            rxe_devs = bench.setup_rxe()
            rxe = {}
            bench.measure(rxe_devs, rxe)
            bench_nvme.NvmeBench(bench, RXE_TARGET_IP, RXE_HOST_IP, RUNS).measure(rxe)
            # Proof that rxe's packets went through the veth pair.
            bench.run("ip -s link show veth0; ip -s link show veth1", timeout=30)
        except (BenchError, vmlib.VMError) as err:
            print("bench: %s" % err, file=sys.stderr)
            return 1
        # From here on a failure is vhca's: it goes into a footnote, the
        # rxe figures are still printed.
        footnotes = []
        vhca = {}
        try:
            vhca_devs = bench.setup_vhca()
            if isinstance(vhca_devs, str):
                footnotes.append("vhca not measured: " + vhca_devs)
            else:
                bench.measure(vhca_devs, vhca)
                bench.measure_nvme_vhca(vhca)
                for metric, result in vhca.items():
                    if isinstance(result, str):
                        footnotes.append("vhca %s: %s" % (metric, result))
            bad = vmlib.bad_dmesg_lines(vm.dmesg())
        except vmlib.VMError as err:
            footnotes.append("vhca runs stopped, the guest or QEMU failed: %s"
                             % str(err).splitlines()[0])
            bad = []
    for metric in bench_nvme.METRICS:
        if isinstance(rxe.get(metric[0]), str):
            footnotes.append("rxe %s: %s" % (metric[0], rxe[metric[0]]))
    xvm = measure_cross_vm(footnotes)
    rows = build_rows(vhca, rxe, xvm, ceiling, limits)
    for row in rows:
        # The accelerator of the single-VM guest (vmlib.choose_accel: KVM
        # only when a probe boot works); the xvm rows' VMs use the same probe.
        row["accel"] = accel
    with open(os.path.join(OUT_DIR, "results.json"), "w") as f:
        json.dump(rows, f, indent=1)
        f.write("\n")
    print_table(rows, footnotes, "%s / %s" % (load_before, load_average()), accel)
    print("%.0f s; raw output: build/bench/bench.log, rows: build/bench/results.json"
          % (time.monotonic() - started))
    # The perftest rows are the anchor; an NVMe over RDMA row on rxe that
    # failed is printed with its reason, like a vhca one.
    nvme_rows = {m[0] for m in bench_nvme.METRICS}
    failed = [m for m, res in rxe.items() if not isinstance(res, tuple) and m not in nvme_rows]
    if failed:
        print("bench: the rxe anchor failed for %s" % ", ".join(failed), file=sys.stderr)
    if bad:
        # Reported, not fatal: only the anchor and the harness fail the run.
        print("bench: guest kernel log:\n  %s" % "\n  ".join(bad), file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
