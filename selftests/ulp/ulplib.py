"""Helpers shared by the storage ULP tests (selftests/ulp/ulp_*.py).

The guest side of each ULP is a shell script in scripts/guest/ulp/ (the
commands Documentation/ulps.md shows); these helpers run them, run fio
with data verification, and compare what the host wrote with what the
target stored.
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import vmlib  # noqa: E402

GUEST_SCRIPTS = os.path.join(vmlib.REPO, "scripts", "guest", "ulp")
TARGET_IP = "10.78.0.1"
HOST_IP = "10.78.0.2"
# Memory-backed null_blk devices (null_blk is in Debian's kernel and in
# the debug kernel; brd is not in the latter): one backend per block ULP.
BACKENDS = {"nvme": "/dev/nullb0", "iser": "/dev/nullb1", "srp": "/dev/nullb2"}
BACKEND_GB = 1
BACKEND_MAX_SECTORS = 16384
# The guest's hung-task watchdog period (conftest.py): a fault test's I/O
# may wait out a ULP's own recovery timeouts, never this long.
HUNG_TASK_SECS = 60
HUNG_TASK = re.compile(r"blocked for more than \d+ seconds")
# A ULP that finds the device lacking logs that it falls back ("... not
# supported", "... unsupported"): lines of the RDMA stack and its ULPs
# (not, e.g., sd's "doesn't support DPO or FUA", which is the backend's).  Documentation/verbs.md ("Not supported,
# and why") lists what vhca leaves out on purpose; a fallback allowed
# here must be one of those, with its reason: (pattern, reason).
RDMA_SOURCE = re.compile(r"nvme|iser|isert|srp|rpcrdma|svcrdma|xprtrdma|ib_|rdma|vhca|"
                         r"infiniband", re.I)
FALLBACK = re.compile(r"not supported|unsupported|does not support|doesn't support|"
                      r"falling back|fall back", re.I)
ALLOWED_FALLBACKS = []
FIO_RESULTS = os.path.join(vmlib.BUILD, "results", "ulp-fio.txt")


def log(title, text):
    sys.stdout.write("---- %s ----\n%s\n" % (title, text.rstrip()))


def script(name, *args):
    """The guest command line of scripts/guest/ulp/NAME.sh ARGS."""
    return " ".join(["sh", os.path.join(GUEST_SCRIPTS, name + ".sh")] +
                    [str(a) for a in args])


def run_script(vm, name, *args, timeout=180):
    """Run a ULP script in the guest; its output, or fail the test with it."""
    rc, out = vm.run(script(name, *args), timeout=timeout)
    log("%s.sh %s" % (name, " ".join(str(a) for a in args)), out)
    assert rc == 0, "%s.sh %s failed (%d):\n%s" % (name, " ".join(map(str, args)), rc, out)
    return out


class Fio:
    """One fio job set with crc32c verification: a write pass, then fio
    reads everything back and checks each block's header and checksum
    (--do_verify=1, --verify_fatal=1: the first bad block ends the run
    with a non-zero exit).  Each job writes its own region of the target
    (offset_increment), so jobs never overwrite each other's blocks."""

    def __init__(self, filename, rw="randwrite", bs="4k", iodepth=32,
                 numjobs=2, size="8M", direct=True, extra=()):
        self.filename = filename
        self.rw = rw
        self.bs = bs
        self.iodepth = iodepth
        self.numjobs = numjobs
        self.size = size
        self.direct = direct
        self.extra = list(extra)

    def command(self, *more):
        """The guest command line; `more`: fio options to add."""
        args = [
            "fio", "--name=ulp", "--filename=%s" % self.filename,
            "--ioengine=libaio", "--direct=%d" % int(self.direct),
            "--rw=%s" % self.rw, "--bs=%s" % self.bs,
            "--iodepth=%d" % self.iodepth, "--numjobs=%d" % self.numjobs,
            "--size=%s" % self.size, "--offset_increment=%s" % self.size,
            "--verify=crc32c", "--do_verify=1", "--verify_fatal=1",
            "--verify_dump=0", "--exitall_on_error=1", "--group_reporting",
            "--output-format=terse",
        ]
        cmd = " ".join(args + self.extra + list(more))
        if not self.filename.startswith("/dev/"):
            return cmd
        # fio creates a file it is given that does not exist: in /dev
        # (devtmpfs, no O_DIRECT) its open then fails with EINVAL, and the
        # file stands in the way of the next disk of that name.
        return ("if test -b {f}; then {cmd}; else echo \"{f}: not a block device\"; false; fi"
                .format(f=self.filename, cmd=cmd))

    def run(self, vm, timeout=600):
        """Run it; {"read": (KiB, KiB/s, IOPS), "write": ...}.  Fails the
        test on a non-zero exit (an I/O or verification error) or a job
        error.  The terse report is one line: the serial console is
        slow under TCG, fio's JSON report would cost seconds."""
        rc, out = vm.run(self.command() + " 2>&1", timeout=timeout)
        report = parse_fio_terse(out)
        log("fio %s bs=%s qd=%d jobs=%d size=%s on %s" % (
            self.rw, self.bs, self.iodepth, self.numjobs, self.size, self.filename),
            fio_summary(report) if report else out[-4000:])
        assert rc == 0, "fio exited %d:\n%s" % (rc, out[-6000:])
        assert report, "no fio report:\n" + out[-4000:]
        assert report["error"] == 0, "fio error %d:\n%s" % (report["error"], out[-4000:])
        self.record(report)
        return report

    def record(self, report):
        """One line per verified run in build/results/ulp-fio.txt: the
        figures of Documentation/ulps.md."""
        test = os.environ.get("PYTEST_CURRENT_TEST", "?").split(" ")[0]
        # Which session of check-ulp-full (run-ulp.sh) it was.
        if os.environ.get("VHCA_ULP_FORCE_MR") == "1":
            test += " force_mr=1"
        if os.environ.get("VHCA_ULP_DEVICE_ARGS"):
            test += " " + os.environ["VHCA_ULP_DEVICE_ARGS"]
        os.makedirs(os.path.dirname(FIO_RESULTS), exist_ok=True)
        with open(FIO_RESULTS, "a") as f:
            f.write("%s %s bs=%s qd=%d jobs=%d size=%s %s\n" % (
                test, self.rw, self.bs, self.iodepth, self.numjobs, self.size,
                fio_summary(report).replace("\n", " ")))


# The quick tier's fio jobs on every block ULP, qd 32, two jobs:
# (test id, rw, bs, size per job).
QUICK_JOBS = [("4k-randwrite", "randwrite", "4k", "8M"), ("1m-write", "write", "1M", "16M")]
QUICK_IDS = [j[0] for j in QUICK_JOBS]


def quick_fio(target, job):
    _, rw, bs, size = job
    return Fio(target, rw=rw, bs=bs, iodepth=32, numjobs=2, size=size)


def parse_fio_terse(text):
    """fio's terse (version 3) line: field 5 the error, 6-8 read KiB,
    KiB/s and IOPS, 47-49 the same for writes."""
    for line in text.splitlines():
        fields = line.split(";")
        if fields[0] == "3" and len(fields) > 49:
            return {"error": int(fields[4]),
                    "read": tuple(float(f) for f in fields[5:8]),
                    "write": tuple(float(f) for f in fields[46:49])}
    return None


def fio_summary(report):
    """One line per direction: IOPS, MiB/s, MiB moved."""
    return "\n".join("%s: %.0f IOPS %.1f MiB/s %.1f MiB" % (
        rw, report[rw][2], report[rw][1] / 1024, report[rw][0] / 1024)
        for rw in ("read", "write") if report[rw][0])


def fio_rate(report, rw, what):
    """IOPS (what="iops") or MiB/s (what="mibs") of one direction."""
    return report[rw][2] if what == "iops" else report[rw][1] / 1024


def sha256_of(vm, path, mib, skip_mib=0):
    """SHA-256 of MiB [skip, skip+mib) of a block device, read O_DIRECT
    (so the page cache cannot answer for the device)."""
    _, out = vm.run("dd if=%s bs=1M skip=%d count=%d iflag=direct status=none | sha256sum"
                    % (path, skip_mib, mib), timeout=300, check=True)
    return out.split()[0]


def assert_same_bytes(vm, host_dev, target_dev, mib, target_vm=None):
    """What the host reads through the ULP is what the target stored;
    target_vm: the target's guest when it is not the host's (two VMs,
    selftests/fabric/twovm_ulp.py)."""
    host = sha256_of(vm, host_dev, mib)
    target = sha256_of(target_vm or vm, target_dev, mib)
    assert host == target, "%s (host) %s != %s (target) %s" % (host_dev, host, target_dev, target)


def connections(vm, dev, comm):
    """rdma_cm IDs of module `comm` on RDMA device `dev` with a QP."""
    _, out = vm.run("rdma res show cm_id", timeout=60)
    return [l for l in out.splitlines()
            if l.startswith("link %s/" % dev) and "[%s]" % comm in l and "lqpn" in l]


def assert_connections(vm, fabric, host_comm, target_comm, count, target_vm=None):
    """At least `count` connections, each with the host's end on the host
    device and the target's on the target device: the ULP's traffic
    crosses the fabric (the routes chose the interfaces).  target_vm: the
    target's guest when it is not the host's."""
    host = connections(vm, fabric.host_dev, host_comm)
    target = connections(target_vm or vm, fabric.target_dev, target_comm)
    log("rdma res show cm_id", "\n".join(host + target))
    assert len(host) >= count and len(target) >= count, (host, target)
    assert all("dst-addr %s:" % fabric.target_ip in l for l in host), host
    assert all("dst-addr %s:" % fabric.host_ip in l for l in target), target


def load_backends(vm):
    """The memory-backed null_blk devices of BACKENDS.  max_sectors:
    null_blk takes 8 MiB commands (255 sectors by default), so LIO's
    Block Limits page lets 8 MiB SCSI commands through to the backend
    (iSER, SRP large I/O tests)."""
    vm.run("modprobe null_blk nr_devices=%d gb=%d memory_backed=1 irqmode=0 "
           "max_sectors=%d" % (len(BACKENDS), BACKEND_GB, BACKEND_MAX_SECTORS),
           timeout=60, check=True)


def watch_hung_tasks(vm):
    """The hung-task watchdog reports a task blocked for a minute (not
    Debian's two): a ULP that hangs under a fault shows within the test,
    and its report fails it (kernel_log_problems)."""
    vm.run("sysctl -qw kernel.hung_task_timeout_secs=%d kernel.hung_task_warnings=-1"
           % HUNG_TASK_SECS, timeout=30, check=True)


def kernel_log_problems(text):
    """What a piece of kernel log must not have after a ULP test: a
    WARNING/BUG/... line (the known splats left out), a hung task, an
    undocumented "not supported" fallback."""
    return (vmlib.bad_dmesg_lines(without_known_splats(text)) +
            hung_tasks(text) + fallbacks(text))


def dmesg_mark(vm):
    """The kernel log's line count (only counted: the serial console is
    slow under TCG, and the whole log is long)."""
    _, out = vm.run("dmesg --color=never | wc -l", timeout=60, check=True)
    return vmlib.guest_int(out)


def new_dmesg(vm, mark):
    """The kernel log after line `mark`."""
    _, out = vm.run("dmesg --color=never | tail -n +%d" % (mark + 1), timeout=60, check=True)
    return out


def module_param(vm, module, param):
    rc, out = vm.run("cat /sys/module/%s/parameters/%s" % (module, param), timeout=30)
    return out.strip() if rc == 0 else None


def wait_gone(vm, path, timeout=60):
    vm.wait_until("test -e %s && echo present || echo gone" % path,
                  lambda t: "gone" in t, timeout=timeout)


def background_fio(vm, job, name, cwd="/"):
    """Start fio in the guest's background, in directory `cwd`; returns
    the status file.  fio's process group id goes to /tmp/fio-NAME.pgid
    (stop_background_fio)."""
    status = "/tmp/fio-%s.status" % name
    # setsid: fio and its shell in a process group of their own.
    vm.run("rm -f {s}; cd {d} && setsid sh -c '{cmd} > /tmp/fio-{n}.out 2>&1; "
           "echo $? > {s}' & echo $! > /tmp/fio-{n}.pgid".format(
               s=status, d=cwd, cmd=job.command(), n=name),
           timeout=60, check=True)
    return status


def background_fio_running(vm, name):
    """Whether a background fio has not ended yet (no status file)."""
    _, out = vm.run("test -e /tmp/fio-%s.status && echo ended || echo running" % name,
                    timeout=60)
    return "running" in out


def stop_background_fio(vm, name):
    """SIGKILL to a background fio's process group (a hard NFS mount's
    waits are killable); what fio had printed so far."""
    # fio exits once its in-flight AIOs have completed.
    _, text = vm.run("g=$(cat /tmp/fio-{n}.pgid); kill -KILL -- -$g; i=0; "
                     "while kill -0 -- -$g 2>/dev/null && [ $i -lt 240 ]; do "
                     "sleep 1; i=$((i+1)); done; ps -o pid,stat,wchan:32,args -g $g; "
                     "tail -c 3000 /tmp/fio-{n}.out".format(n=name), timeout=300)
    log("fio %s killed" % name, text)


def wait_background_fio(vm, name, timeout=900):
    """fio's exit status and the end of its output, once it has ended."""
    out = vm.wait_until("cat /tmp/fio-%s.status 2>/dev/null || echo running" % name,
                        lambda t: "running" not in t, timeout=timeout, interval=2)
    _, text = vm.run("tail -c 3000 /tmp/fio-%s.out" % name, timeout=60)
    return vmlib.guest_int(out), text


# Kernel warnings of Debian's Linux 6.1 that the ULP tier can set off and
# that are not the RDMA stack's: (pattern of the line after "cut here",
# why).  Each splat so recognised is left out of the bad-line check,
# from "cut here" to its "end trace"; Documentation/ulps.md lists them.
KNOWN_SPLATS = [
    (r"WQ_MEM_RECLAIM iscsi_ctrl_\S+:__iscsi_unbind_session \[scsi_transport_iscsi\] "
     r"is flushing !WQ_MEM_RECLAIM pm:pm_runtime_work",
     "scsi_transport_iscsi removes the session's SCSI target from its "
     "WQ_MEM_RECLAIM workqueue, and device_del() flushes a pending runtime PM "
     "work item of pm_wq (check_flush_dependency, once per boot): iSCSI "
     "session removal, the same over TCP"),
    (r"partition_scan_work[\s\S]*nvme_mpath_remove_disk",
     "lockdep (debug kernel): nvme_core's native multipath flushes the "
     "namespace head's partition_scan_work from nvme_mpath_remove_disk() "
     "with the disk's open_mutex held (the last close after `nvme "
     "disconnect`), and that work takes open_mutex: Linux 6.1's nvme "
     "multipath, the same over TCP"),
    (r"irq/\d+-pciehp[\s\S]*&ctrl->reset_lock[\s\S]*pciehp_unconfigure_device",
     "lockdep (debug kernel): Linux 6.1's pciehp_unconfigure_device() drops "
     "the slot's reset_lock around each device's removal and takes it again "
     "(down_read_nested) with pci_rescan_remove_lock held, while pciehp_ist "
     "takes reset_lock before pci_rescan_remove_lock: the slot power-off of "
     "QMP device_del, whatever the device"),
]


def _splat_end(lines, i):
    """The line that ends a splat starting at line i, or None: a WARN's
    "[ cut here ]" ... "---[ end trace", a lockdep report's "=====" rule
    and "WARNING: possible ..." ... its backtrace's "</TASK>"."""
    if "[ cut here ]" in lines[i]:
        return "---[ end trace"
    if re.search(r"\] =+$", lines[i]) and i + 1 < len(lines) and \
            "WARNING: possible" in lines[i + 1]:
        return "</TASK>"
    return None


def without_known_splats(text):
    """The kernel log without the splats KNOWN_SPLATS names (a pattern
    matches anywhere in the splat)."""
    out, lines, i = [], text.splitlines(), 0
    while i < len(lines):
        end = _splat_end(lines, i)
        j = i
        if end:
            while j < len(lines) - 1 and end not in lines[j]:
                j += 1
            block = "\n".join(lines[i:j + 1])
            if any(re.search(p, block) for p, _ in KNOWN_SPLATS):
                i = j + 1
                continue
        out.append(lines[i])
        i += 1
    return "\n".join(out)


def hung_tasks(text):
    """The hung-task watchdog's reports in a piece of kernel log."""
    return [l for l in text.splitlines() if HUNG_TASK.search(l)]


def fallbacks(text):
    """Fallbacks a ULP logged that Documentation/verbs.md does not list."""
    return [l for l in text.splitlines() if FALLBACK.search(l) and RDMA_SOURCE.search(l) and
            not any(re.search(p, l) for p, _ in ALLOWED_FALLBACKS)]


def grep_count(pattern, text):
    return len(re.findall(pattern, text, re.M))
