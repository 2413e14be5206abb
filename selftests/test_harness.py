"""The harness itself: a QEMU that dies is reported as what it was.

A guest's QEMU that crashes mid-test used to surface as a socket error
(ConnectionResetError on QMP, BrokenPipeError on the console) with its
log overwritten by the next boot of a VM of the same name.  vmlib now
says how QEMU ended (signal or exit status), keeps its log under a name
of its own and keeps the core file.  This boots a guest without devices
(its own, not the session's) and kills its QEMU with SIGSEGV.
"""
import os
import signal

import pytest

import vmlib


def test_a_qemu_that_crashes_is_reported_with_its_log_and_core():
    with vmlib.VM(name="harness", memory="512M", smp=1) as vm:
        os.kill(vm.proc.pid, signal.SIGSEGV)
        with pytest.raises(vmlib.VMError) as err:
            vm.qmp("query-status")
        text = str(err.value)
        assert "QEMU was killed by SIGSEGV" in text, text
        kept = text.split("its log: ", 1)[1].split(";", 1)[0]
        with open(kept) as f:
            assert f.readline().startswith(vm.qemu), kept
        os.unlink(kept)
        # The core file, when the host writes one where the process runs
        # (kernel.core_pattern "core", as on these machines; a pipe to
        # systemd-coredump keeps it elsewhere).
        with open("/proc/sys/kernel/core_pattern") as f:
            if f.read().strip() in ("core", "core.%p"):
                assert "core file: " in text, text
                core = text.split("core file: ", 1)[1].split(";", 1)[0]
                assert os.path.getsize(core) > 0
                os.unlink(core)
