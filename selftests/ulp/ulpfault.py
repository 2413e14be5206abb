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


def start_io(vm, target, name, size="64M", in_dir=False):
    """fio verify (4 KiB random writes, 2 jobs) in the background on
    `target`, given 5 s to be under way.  in_dir (a file system's
    file): fio runs in target's directory and names it by its base
    name, and this returns once fio has it open for its O_DIRECT I/O,
    and 3 s more.  fio closes and opens the file again by name for its
    verify pass, and a working directory on a mount that `umount -l`
    detached keeps that mount for it (the path from / would lead to the
    directory under the mount point, or to a new mount there)."""
    if not in_dir:
        ulplib.background_fio(vm, Fio(target, rw="randwrite", bs="4k", numjobs=2,
                                      size=size), name)
        vm.run("sleep 5", timeout=60)
        return
    job = Fio(os.path.basename(target), rw="randwrite", bs="4k", numjobs=2, size=size)
    ulplib.background_fio(vm, job, name, cwd=os.path.dirname(target))
    vm.wait_until(direct_fds(target), lambda out: has_direct_fd(out), timeout=180, interval=1)
    vm.run("sleep 3", timeout=60)


def direct_fds(target):
    """A guest command printing the fdinfo flags of every fio file
    descriptor open on `target`."""
    return ("for p in $(pgrep -x fio); do for f in /proc/$p/fd/*; do "
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


def reset_under_io(vm, disk, kind, expect_ok, name):
    """fio verify runs while `disk` gets a `kind` reset: the reset
    succeeds when the ULP implements it (expect_ok) or fails cleanly,
    the commands it aborted are retried, and verification passes."""
    start_io(vm, disk, name, size="16M")
    rc, out = scsi_reset(vm, disk, kind)
    if expect_ok:
        assert rc == 0, "sg_reset --%s failed:\n%s" % (kind, out)
    else:
        assert rc != 0, "sg_reset --%s succeeded without a handler:\n%s" % (kind, out)
    assert io_ends(vm, name, "sg_reset --%s" % kind) == 0, "fio failed across the reset"
