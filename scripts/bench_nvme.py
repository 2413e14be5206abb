"""`make bench`'s NVMe over RDMA rows (scripts/bench.py): fio through the
kernel's nvme-rdma host and nvmet-rdma target in the bench guest, on
rdma_rxe and on vhca, set up by the storage tier's guest scripts
(scripts/guest/ulp/nvme.sh, fabric.sh; Documentation/ulps.md).

The namespace is a null_blk device without memory backing (reads return
at once, no data copied on the target): the figures are the transport's,
host to target and back, not a ramdisk's memcpy.  Each figure is fio's
over a time-based run, the median of bench.RUNS runs.
"""
import os
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                                "selftests", "ulp"))
import ulplib  # noqa: E402

# (metric, unit, fio options, what: "iops" or "mibs").  qd 32, 2 jobs
# (the guest's two vCPUs), as in the storage tier; MB = 2^20 bytes.
METRICS = [
    ("nvme_rdma_randread_4k", "IOPS", "--rw=randread --bs=4k --iodepth=32 --numjobs=2",
     "iops"),
    ("nvme_rdma_seqread_1m", "MB/s", "--rw=read --bs=1M --iodepth=32 --numjobs=2", "mibs"),
]
SECONDS = 10
NULLB = "/dev/nullb0"
FIO = ("fio --name=bench --filename=%s --ioengine=libaio --direct=1 --size=512M "
       "--offset_increment=256M --time_based --runtime=%d --ramp_time=2 "
       "--group_reporting --output-format=terse %s 2>&1")


class NvmeBench:
    """NVMe over RDMA on one fabric of the bench guest: target on
    `target_ip`, host from `host_ip` (nvme connect --host-traddr, so the
    guest's policy routes send it across the fabric)."""

    def __init__(self, bench, target_ip, host_ip, runs):
        self.bench = bench
        self.target_ip = target_ip
        self.host_ip = host_ip
        self.runs = runs

    def script(self, *args):
        return ulplib.script("nvme", *args)

    def setup(self):
        """The namespace's block device."""
        self.bench.run("lsmod | grep -q '^null_blk ' || "
                       "modprobe null_blk nr_devices=1 gb=1 irqmode=0", timeout=60)
        self.bench.run(self.script("target-start", self.target_ip, NULLB), timeout=120)
        _, out = self.bench.run(self.script("connect", self.target_ip, "-w", self.host_ip),
                                timeout=300)
        return out.strip().splitlines()[-1]

    def teardown(self):
        self.bench.run(self.script("disconnect"), timeout=120, check=False)
        self.bench.run(self.script("target-stop"), timeout=120, check=False)

    def measure(self, results):
        """Fill results as bench.Bench.measure does: {metric: (median,
        [runs], failed runs)} or {metric: error string}."""
        try:
            dev = self.setup()
        except Exception as err:  # BenchError, VMError: the rows say why
            for metric, *_ in METRICS:
                results[metric] = "NVMe over RDMA setup failed: %s" % str(err)[:300]
            self.teardown()
            return
        for metric, _unit, opts, what in METRICS:
            runs, errors = [], []
            while len(runs) < self.runs and len(errors) <= self.runs:
                rc, out = self.bench.run(FIO % (dev, SECONDS, opts),
                                         timeout=SECONDS * 10 + 120, check=False)
                report = ulplib.parse_fio_terse(out)
                if rc != 0 or not report or report["error"]:
                    errors.append("fio exit %d: %s" % (rc, out.strip()[-200:]))
                    continue
                runs.append(ulplib.fio_rate(report, "read", what))
            if len(runs) < self.runs:
                results[metric] = "%d failed fio runs, last: %s" % (len(errors), errors[-1])
            else:
                results[metric] = (statistics.median(runs), runs, len(errors))
            print("bench: %-22s %s" % (metric, results[metric]), file=sys.stderr)
        self.teardown()
