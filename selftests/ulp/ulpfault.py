"""Faults while a ULP runs I/O (`make check-ulp-full`): the device taken
away (`rmmod vhca`, QMP `device_del` of the host's device) and given
back, SCSI resets (`sg_reset`).  Each ULP's test file says what it
requires of its I/O across the fault (fail cleanly or carry on) and
verifies the data on a new connection afterwards.  Nothing may hang:
every wait here is bounded, and the guest's hung-task watchdog reports
(conftest.py) fail the test.
"""
import os

import vmlib
import ulplib
from ulplib import Fio

# How the device goes away and comes back: rmmod vhca takes both
# devices (the target's too), device_del only the host's (vhca1).
DEVICE_FAULTS = ["rmmod", "unplug"]
# sg_reset's reset kinds that the tests send (SG_SCSI_RESET: logical
# unit, bus, host), without escalation (-N): each one alone.
SCSI_RESETS = ["device", "bus", "host"]
# Seconds fio may take to end after a fault: the ULP's own recovery
# timeouts (iSER's replacement_timeout, scripts/guest/ulp/iser.sh; SRP's
# fast_io_fail_tmo) are far shorter.
IO_END_SECS = 600


# O_DIRECT in /proc/PID/fdinfo's octal `flags` (x86's value).
O_DIRECT = 0o40000
# Seconds fio may take from its start until its I/O is seen under way
# (its start costs a few seconds under TCG on a loaded machine).
IO_START_SECS = 180


def start_io(vm, target, name, size="64M", in_dir=False, backend=None):
    """fio verify (4 KiB random writes, 2 jobs) in the background on
    `target`; returns once its I/O is under way, and fails the test with
    fio's output when fio ended before that (an open that failed, or
    I/O too short to be under the fault that follows).

    Block device: under way is the completed writes of the target's
    `backend` going up, fio's writes having crossed the fabric (the
    host's disk would not do: NVMe's native multipath disk keeps no I/O
    statistics in Linux 6.1).  in_dir (a file system's file): fio runs
    in target's directory and names it by its base name, and under way
    is fio holding the file open for its O_DIRECT I/O, and 3 s more.
    fio closes and opens the file again by name for its verify pass,
    and a working directory on a mount that `umount -l` detached keeps
    that mount for it (the path from / would lead to the directory
    under the mount point, or to a new mount there)."""
    if not in_dir:
        assert backend, "start_io on a block device: the target's backend is needed"
        assert_block_device(vm, target)
        before = writes_completed(vm, backend)
        ulplib.background_fio(vm, Fio(target, rw="randwrite", bs="4k", numjobs=2,
                                      size=size), name)
        wait_io_started(vm, name, target, disk_stat(backend),
                        lambda out: (writes_completed_in(out) or 0) > before)
        return
    job = Fio(os.path.basename(target), rw="randwrite", bs="4k", numjobs=2, size=size)
    ulplib.background_fio(vm, job, name, cwd=os.path.dirname(target))
    wait_io_started(vm, name, target, direct_fds(target), has_direct_fd)
    vm.run("sleep 3", timeout=60)


def wait_io_started(vm, name, target, probe, started):
    """Poll (bounded) the guest command `probe` until started(its
    output), or until the background fio `name` has ended: then fail
    with fio's exit status and output.  (A wait on `started` alone, the
    fd check of NFS once used for block devices too, waited out its
    whole timeout when fio had already ended.)"""
    cmd = "cat /tmp/fio-%s.status 2>/dev/null || echo running; %s" % (name, probe)
    out = vm.wait_until(cmd, lambda t: first_line(t) != "running" or started(t),
                        timeout=IO_START_SECS, interval=0.5)
    if first_line(out) == "running":
        return
    _, text = vm.run("tail -c 3000 /tmp/fio-%s.out" % name, timeout=60)
    raise AssertionError("fio on %s ended (exit %s) before its I/O was seen under way:\n%s"
                         % (target, first_line(out), text))


def first_line(out):
    lines = out.strip().splitlines()
    return lines[0].strip() if lines else ""


def assert_block_device(vm, disk):
    """`disk` is a block device with a capacity: fio given a name that
    is not one would create a regular file of that name in /dev
    (devtmpfs, where O_DIRECT fails with EINVAL) and fail on it, and
    the file would stand in the way of the next disk of that name."""
    sysfs = "/sys/class/block/%s/size" % os.path.basename(disk)
    rc, out = vm.run("test -b %s && cat %s" % (disk, sysfs), timeout=60)
    if rc == 0 and vmlib.guest_int(out) > 0:
        return
    _, state = vm.run("ls -l %s; ls /sys/block" % disk, timeout=60)
    raise AssertionError("%s: not a block device with a capacity (%s: %r)\n%s"
                         % (disk, sysfs, out, state))


def disk_stat(disk):
    """The guest command printing a disk's I/O statistics
    (Documentation/admin-guide/iostats.rst: field 5 writes completed)."""
    return "cat /sys/class/block/%s/stat" % os.path.basename(disk)


def writes_completed_in(out):
    """Field 5 of the stat line in `out` (kernel messages on the console
    may come in between), or None."""
    for line in reversed(out.splitlines()):
        fields = line.split()
        if len(fields) >= 11 and all(f.isdigit() for f in fields):
            return int(fields[4])
    return None


def writes_completed(vm, disk):
    _, out = vm.run(disk_stat(disk), timeout=60, check=True)
    count = writes_completed_in(out)
    assert count is not None, "no I/O statistics of %s: %r" % (disk, out)
    return count


def direct_fds(target):
    """A guest command printing the fdinfo flags of every fio file
    descriptor open on `target`.  `pgrep fio`, not `pgrep -x fio`: in the
    guest the latter listed fio's main process only, not the job
    processes that do the I/O (seen in 5 tries of 5 on iSER's /dev/sda,
    2026-11-24)."""
    return ("for p in $(pgrep fio); do for f in /proc/$p/fd/*; do "
            "[ \"$(readlink $f)\" = %s ] && awk '/^flags:/ {print \"flags\", $2}' "
            "/proc/$p/fdinfo/${f##*/}; done; done 2>/dev/null; true" % target)


def has_direct_fd(out):
    return any(int(l.split()[1], 8) & O_DIRECT for l in out.splitlines()
               if l.startswith("flags ") and len(l.split()) == 2)


def io_ends(vm, name, what, diagnose=None):
    """Wait (bounded) for the background fio to end; its exit status.
    When it does not end in time: `diagnose(vm)` (the ULP's state, for
    the report), then fio is killed, so that it cannot go on writing
    under the next test, and the timeout is raised."""
    try:
        rc, text = ulplib.wait_background_fio(vm, name, timeout=IO_END_SECS)
    except vmlib.VMTimeout:
        if diagnose:
            diagnose(vm)
        ulplib.stop_background_fio(vm, name)
        raise
    ulplib.log("fio across %s (exit %d)" % (what, rc), text)
    return rc


def remove_device(vm, fabric, how):
    if how == "rmmod":
        vm.run("rmmod vhca", timeout=300, check=True)
    else:
        fabric.unplug_host(vm)


def restore_device(vm, fabric, how, module_path):
    """The device back, ACTIVE, the addresses on its new interfaces."""
    if how == "rmmod":
        fabric.reload_driver(vm, module_path)
    else:
        fabric.replug_host(vm)


def scsi_reset(vm, disk, kind):
    """sg_reset of one kind on `disk`, not escalated; (status, output).
    The SCSI midlayer runs the host template's handler for that kind and
    fails the ioctl (EIO) when the ULP has none."""
    rc, out = vm.run("sg_reset -N --%s %s 2>&1" % (kind, disk), timeout=300)
    ulplib.log("sg_reset --%s %s (exit %d)" % (kind, disk, rc), out)
    return rc, out


def reset_under_io(vm, disk, backend, kind, expect_ok, name):
    """fio verify runs while `disk` gets a `kind` reset: the reset
    succeeds when the ULP implements it (expect_ok) or fails cleanly,
    the commands it aborted are retried, and verification passes."""
    start_io(vm, disk, name, size="16M", backend=backend)
    rc, out = scsi_reset(vm, disk, kind)
    if expect_ok:
        assert rc == 0, "sg_reset --%s failed:\n%s" % (kind, out)
    else:
        assert rc != 0, "sg_reset --%s succeeded without a handler:\n%s" % (kind, out)
    assert io_ends(vm, name, "sg_reset --%s" % kind) == 0, "fio failed across the reset"
