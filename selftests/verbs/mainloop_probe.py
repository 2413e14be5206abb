"""QEMU's main loop watched from the host while its guest works: the
middleware soak's guard for the QEMU side of issue 24, finding 3.

QEMU's main loop answers QMP and runs the timers (under TCG the guest's
LAPIC timers among them) and the device's bottom halves, each under the
global lock (BQL) that a vCPU also takes to deliver an interrupt or an
exception and for every access to a device.  In the report, QMP stopped
answering while the guest soft-locked both vCPUs, and a backtrace showed
the main loop waiting for that lock: a main loop held off it.  A guest
command that does not come back shows that only after its own timeout,
and a main loop held off for seconds now and then not at all.

MainLoopProbe asks QMP `query-status` every INTERVAL seconds from a
thread while a round runs and keeps every answer's latency, so how long
the main loop waits for its lock becomes a number per round (summary()).
An answer slower than STALL_SECONDS, or none within vmlib's QMP timeout,
is a stalled main loop: the probe calls on_stall() at once, while the
state is still there to look at (the soak saves QEMU's backtraces), and
stops.  In the soak on the report's stack, at load 5-6, the answers took
1-2 ms typically and at most 211 ms (Documentation/history.md "The
middleware soak"): 10 s is a stall, not a busy host.
"""
import threading
import time

import vmlib

INTERVAL = 1.0
STALL_SECONDS = 10.0
# Latencies above this are counted in the summary (slow, not stalled).
SLOW_SECONDS = 0.1


class MainLoopProbe:
    """with MainLoopProbe(vm, on_stall) as probe: ...; then probe.stalled
    (None or why) and probe.summary()."""

    def __init__(self, vm, on_stall=None):
        self.vm = vm
        self.on_stall = on_stall
        self.latencies = []
        self.stalled = None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="mainloop-probe", daemon=True)

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()
        return False

    def _run(self):
        while not self._stop.wait(INTERVAL):
            start = time.monotonic()
            try:
                self.vm.qmp("query-status")
            except vmlib.VMTimeout as err:
                self._stall("no answer on QMP: %s" % err)
                return
            except vmlib.VMError:
                return  # QEMU is gone; the round's own commands say so
            latency = time.monotonic() - start
            self.latencies.append(latency)
            if latency > STALL_SECONDS:
                self._stall("QMP answered after %.1f s" % latency)
                return

    def _stall(self, why):
        self.stalled = why
        if self.on_stall is not None:
            self.on_stall()

    def summary(self):
        """One line: how many probes, their median and maximum latency,
        how many were slower than SLOW_SECONDS."""
        if not self.latencies:
            return "no QMP probe answered" + (" (%s)" % self.stalled if self.stalled else "")
        ordered = sorted(self.latencies)
        slow = sum(1 for t in ordered if t > SLOW_SECONDS)
        return ("%d QMP probes: median %.1f ms, max %.1f ms, %d over %d ms%s"
                % (len(ordered), 1000 * ordered[len(ordered) // 2], 1000 * ordered[-1],
                   slow, 1000 * SLOW_SECONDS,
                   "; stalled: %s" % self.stalled if self.stalled else ""))
