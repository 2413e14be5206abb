"""The cross-VM rows of `make bench` (scripts/bench.py): perftest between
two VMs cabled to the standalone switch (selftests/fabric/fabriclib.py),
one vCPU each as in `make check-fabric`: the server in VM b, the client in
VM a, out-of-band exchange over IPoIB.  rxe has no counterpart here (the
VMs share no Ethernet): its cells stay empty.  Documentation/fabric-tests.md
"Performance".
"""
import math
import os
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "selftests", "fabric"))
sys.path.insert(0, os.path.join(HERE, "..", "selftests"))
import fabriclib  # noqa: E402
import vmlib  # noqa: E402

# (metric, unit, perftest tool, options, result column, lower is better):
# the single-VM rows' latency and 64 KiB bandwidth, fewer iterations, and
# small-message bandwidth, which depends on several RC requests in flight
# per QP (qemu-device/vhca-rc-window.c).
XVM_METRICS = [
    ("xvm_send_lat", "us", "ib_send_lat", "-s 2 -n 1000", "t_typical", True),
    ("xvm_write_lat", "us", "ib_write_lat", "-s 2 -n 1000", "t_typical", True),
    ("xvm_write_bw_64k", "MB/s", "ib_write_bw", "-s 65536 -n 500", "BW average", False),
    ("xvm_read_bw_64k", "MB/s", "ib_read_bw", "-s 65536 -n 500", "BW average", False),
    ("xvm_send_bw_64k", "MB/s", "ib_send_bw", "-s 65536 -n 500", "BW average", False),
    ("xvm_send_bw_64", "MB/s", "ib_send_bw", "-s 64 -n 5000", "BW average", False),
    ("xvm_write_bw_64", "MB/s", "ib_write_bw", "-s 64 -n 5000", "BW average", False),
]
RUN_LIMIT = 120



def run_pair(state, tool, opts, port, note):
    """One perftest run across the VMs: (status, client output)."""
    a, b = state["vms"]["a"], state["vms"]["b"]
    limit = int(RUN_LIMIT * vmlib.TIMEOUT_SCALE)
    base = "%s -F -d vhca0 -p %d %s" % (tool, port, opts)
    b.run("(timeout %d %s >/tmp/xvm-srv.log 2>&1; echo status=$? >>/tmp/xvm-srv.log) &"
          % (limit, base), timeout=30, check=True)
    b.wait_until("ss -ltnH 'sport = :%d'" % port, lambda t: bool(t.strip()), 60)
    rc, out = a.run("timeout %d %s %s" % (limit, base, fabriclib.ADDR["b"]),
                    timeout=limit + 60)
    server = b.wait_until("cat /tmp/xvm-srv.log", lambda t: "status=" in t, limit + 60)
    note("%s %s (client status %d)" % (tool, opts, rc), out + "\n-- server --\n" + server)
    return rc, out, "status=0" in server


def measure(parse, runs, note):
    """{metric: (median, [runs], failed runs) or an error string}."""
    results = {}
    port = 19515
    with fabriclib.two_vms() as state:
        for metric, _unit, tool, opts, column, _lower in XVM_METRICS:
            values, errors = [], []
            while len(values) < runs and len(errors) <= runs:
                port += 1
                try:
                    rc, out, server_ok = run_pair(state, tool, opts, port, note)
                    value = parse(out, column) if rc == 0 and server_ok else None
                except (ValueError, vmlib.VMTimeout) as err:
                    errors.append(str(err).splitlines()[0])
                    continue
                if value is not None and math.isfinite(value) and value > 0:
                    values.append(value)
                else:
                    errors.append("%s: status %d, no finite result" % (tool, rc))
            if len(values) < runs:
                results[metric] = "%d of %d runs failed, last: %s" % (
                    len(errors), len(errors) + len(values), errors[-1])
            else:
                results[metric] = (statistics.median(values), values, len(errors))
            print("bench: %-16s %s" % (metric, results[metric]), file=sys.stderr)
    return results
