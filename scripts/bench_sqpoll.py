#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""bench_sqpoll.py - the message rate and latency rows of `make bench` with
the device's send record polling off and on (`make bench-sqpoll`,
Documentation/performance.md "Device-side SQ polling").

Boots one guest per round, alternating sq-poll=off and sq-poll=on
(SQPOLL_ROUNDS rounds of each, default 3; every round is a fresh boot so
that the two modes see the same host load pattern), measures the guest's
ceilings and the rows of METRICS (BENCH_RUNS perftest runs each, median),
and prints every round with the host's load average before and after it.
Writes build/bench/sqpoll.json.  Not part of `make test`.
"""

import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench  # noqa: E402
import vmlib  # noqa: E402

ROWS = ("send_rate_64b", "send_rate_64b_pl16", "send_rate_64b_2qp",
        "send_lat", "write_lat")
ROUNDS = int(os.environ.get("SQPOLL_ROUNDS") or 3)
WINDOW = os.environ.get("SQPOLL_WINDOW")  # sq-poll-window (us), default the device's


def one_round(mode):
    props = "sq-poll=%s" % mode
    if WINDOW and mode == "on":
        props += ",sq-poll-window=%s" % WINDOW
    devices = [d + "," + props for d in bench.DEVICES]
    result = {"mode": mode, "props": props, "load_before": bench.load_average()}
    with open(os.path.join(bench.OUT_DIR, "sqpoll-%s.log" % mode), "a") as log, \
            vmlib.VM(devices=devices, name="bench-sqpoll", smp=2) as vm:
        b = bench.Bench(vm, log)
        b.run("modprobe -a ib_core ib_uverbs ib_umad && ip link set lo up", timeout=120)
        result.update(b.guest_ceilings())
        devs = b.setup_vhca()
        if isinstance(devs, str):
            raise bench.BenchError(devs)
        found = {}
        b.measure(devs, found)
    result["load_after"] = bench.load_average()
    for metric, value in found.items():
        result[metric] = value[0] if isinstance(value, tuple) else None
        result[metric + "_runs"] = value[1] if isinstance(value, tuple) else value
    return result


def main():
    bench.METRICS = [m for m in bench.METRICS if m[0] in ROWS]
    started = time.monotonic()
    rounds = bench.alternate("bench-sqpoll", "sq-poll", ROUNDS, one_round,
                             "sqpoll.json")
    cols = ("ring_rate_ceiling", "pingpong_latency_floor") + ROWS
    print("%-4s %-11s %-11s " % ("mode", "load-before", "load-after") +
          " ".join("%12s" % c[:12] for c in cols))
    for r in rounds:
        print("%-4s %-11s %-11s " % (r["mode"], r["load_before"], r["load_after"]) +
              " ".join("%12s" % ("-" if r.get(c) is None else "%.3f" % r[c]) for c in cols))
    for mode in ("off", "on"):
        mine = [r for r in rounds if r["mode"] == mode]
        print("median %-3s %s" % (mode, " ".join(
            "%s=%.3f" % (c, statistics.median(r[c] for r in mine))
            for c in ROWS if all(r.get(c) is not None for r in mine))))
    print("%.0f s; rounds: build/bench/sqpoll.json" % (time.monotonic() - started))
    return 0


if __name__ == "__main__":
    sys.exit(main())
