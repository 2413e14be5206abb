#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""bench_dplockless.py - one QP against two QPs on two vCPUs, with the send
path under the BQL (dp-lockless=off) and off it (dp-lockless=on):
`make bench-dplockless`, Documentation/performance.md "The send path off
the BQL".

perftest's -q 2 (`make bench`'s send_rate_64b_2qp) posts to both QPs from
one thread, so it cannot show two vCPUs ringing doorbells at once.  Here
two client processes run at the same time, pinned to vCPU 0 and vCPU 1
(taskset), each with its own QP pair between the two ports of vhca0:

  write1  one ib_write_bw -s 64 -D SECONDS client (its server is passive:
          RDMA WRITE needs no receive, so one vCPU stays free)
  write2  two such clients at once: the aggregate rate
  send1, send2  the same with ib_send_bw (each server polls its CQ: one
          pair already keeps both vCPUs busy)

One boot per round, alternating off and on (DPL_ROUNDS rounds of each,
default 2), each row DPL_RUNS times (default 3, median).  Besides the rates
it reads QEMU's CPU time (utime + stime of /proc/<pid>/stat, every thread)
around each run: CPU time per message is far less sensitive to other load
on the host than a rate.  Writes build/bench/dplockless.json.  Not part
of `make test`.
"""

import os
import re
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench  # noqa: E402
import vmlib  # noqa: E402

ROUNDS = int(os.environ.get("DPL_ROUNDS") or 2)
RUNS = int(os.environ.get("DPL_RUNS") or 3)
SECONDS = int(os.environ.get("DPL_SECONDS") or 4)
TICK = os.sysconf("SC_CLK_TCK")

# Servers first (vhca0 port 1 and port 2), then the clients at once, each
# pinned to its vCPU; %(n)d pairs.
RUN = r'''
for i in $(seq 1 %(n)d); do
  srv=$((3 - i)); port=$((%(port)d + i))
  timeout %(limit)d %(tool)s -F -s 64 -D %(sec)d -d vhca0 -i $srv -p $port \
    >/tmp/dpl-srv$i.log 2>&1 &
done
for i in $(seq 1 %(n)d); do
  port=$((%(port)d + i)); %(wait)s
done
for i in $(seq 1 %(n)d); do
  cli=$i; port=$((%(port)d + i))
  taskset -c $((i - 1)) timeout %(limit)d %(tool)s -F -s 64 -D %(sec)d \
    -d vhca0 -i $cli -p $port 127.0.0.1 >/tmp/dpl-cli$i.log 2>&1 &
done
wait
for i in $(seq 1 %(n)d); do echo "== client $i"; cat /tmp/dpl-cli$i.log; done
'''

ROWS = (("write1", "ib_write_bw", 1), ("write2", "ib_write_bw", 2),
        ("send1", "ib_send_bw", 1), ("send2", "ib_send_bw", 2))


def qemu_cpu_s(vm):
    with open("/proc/%d/stat" % vm.proc.pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def one_run(b, vm, tool, n):
    b.port += 10
    limit = int(bench.RUN_LIMIT * vmlib.TIMEOUT_SCALE)
    cmd = RUN % {"n": n, "port": b.port, "limit": limit, "tool": tool,
                 "sec": SECONDS,
                 "wait": vmlib.wait_for('ss -Hltn "sport = :$port" | grep -q .')}
    cpu0, t0 = qemu_cpu_s(vm), time.monotonic()
    _, out = b.run(cmd, timeout=limit + 60, check=False)
    cpu, wall = qemu_cpu_s(vm) - cpu0, time.monotonic() - t0
    parts = re.split(r"^== client \d+\n", out, flags=re.M)[1:]
    rates = [bench.parse_perftest(p, "MsgRate") for p in parts]
    if len(rates) != n:
        raise ValueError("%d of %d clients reported" % (len(rates), n))
    if not all(r > 0 for r in rates):
        # perftest under TCG sometimes prints 0 for a run that completed
        # (its CPU clock estimate): not a figure (bench.py "Robustness")
        raise ValueError("a client reported %s Mpps" % rates)
    return {"mpps": sum(rates), "clients": rates, "qemu_cpu_s": cpu,
            "wall_s": wall}


def one_round(mode):
    devices = [d + ",dp-lockless=" + mode for d in bench.DEVICES]
    result = {"mode": mode, "load_before": bench.load_average()}
    with open(os.path.join(bench.OUT_DIR, "dplockless-%s.log" % mode), "a") as log, \
            vmlib.VM(devices=devices, name="bench-dplockless", smp=2) as vm:
        b = bench.Bench(vm, log)
        b.run("modprobe -a ib_core ib_uverbs ib_umad && ip link set lo up", timeout=120)
        devs = b.setup_vhca()
        if isinstance(devs, str):
            raise bench.BenchError(devs)
        for row, tool, n in ROWS:
            runs = []
            for _ in range(RUNS):
                try:
                    runs.append(one_run(b, vm, tool, n))
                except ValueError as err:
                    print("bench-dplockless: %s %s: %s" % (mode, row, err),
                          file=sys.stderr)
            result[row] = runs
            if runs:
                print("bench-dplockless: %s %s Mpps %s" % (mode, row, " ".join(
                    "%.3f" % r["mpps"] for r in runs)), file=sys.stderr)
    result["load_after"] = bench.load_average()
    return result


def median(runs, key):
    return statistics.median(r[key] for r in runs) if runs else None


def main():
    started = time.monotonic()
    rounds = bench.alternate("bench-dplockless", "dp-lockless", ROUNDS,
                             one_round, "dplockless.json")
    print("%-4s %-15s %-15s %s" % ("mode", "load-before", "load-after", " ".join(
        "%9s %9s" % (row + " Mpps", "us/msg") for row, _, _ in ROWS)))
    for r in rounds:
        cells = []
        for row, _, _ in ROWS:
            runs = r.get(row) or []
            mpps = median(runs, "mpps")
            # QEMU CPU microseconds per message: CPU seconds / messages
            per = statistics.median(x["qemu_cpu_s"] / (x["mpps"] * 1e6 * SECONDS) * 1e6
                                    for x in runs) if runs else None
            cells.append("%9s %9s" % ("-" if mpps is None else "%.3f" % mpps,
                                      "-" if per is None else "%.2f" % per))
        print("%-4s %-15s %-15s %s" % (r["mode"], r["load_before"], r["load_after"],
                                       " ".join(cells)))
    print("%.0f s; runs: build/bench/dplockless.json" % (time.monotonic() - started))
    return 0


if __name__ == "__main__":
    sys.exit(main())
