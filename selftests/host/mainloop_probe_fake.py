"""selftests/verbs/mainloop_probe.py against a fake VM (no QEMU): the
middleware soak's QMP probe keeps latencies, and calls a main loop that
answers late or not at all stalled, once, at once."""
import os
import sys
import threading
import time

SELFTESTS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, SELFTESTS)
sys.path.insert(0, os.path.join(SELFTESTS, "verbs"))
import vmlib  # noqa: E402
import mainloop_probe  # noqa: E402
from mainloop_probe import MainLoopProbe  # noqa: E402


class FakeVM:
    """qmp() answers after delays[i] seconds for the i-th call (the last
    delay for every call after), or raises what that entry is."""

    def __init__(self, *delays):
        self.delays = list(delays)
        self.calls = []
        self.answered = threading.Event()

    def qmp(self, cmd, **args):
        self.calls.append(cmd)
        delay = self.delays[min(len(self.calls), len(self.delays)) - 1]
        if isinstance(delay, Exception):
            raise delay
        time.sleep(delay)
        if len(self.calls) >= 3:
            self.answered.set()
        return {"status": "running", "running": True}


def fast_probe(monkeypatch, stall_seconds=10.0):
    monkeypatch.setattr(mainloop_probe, "INTERVAL", 0.01)
    monkeypatch.setattr(mainloop_probe, "STALL_SECONDS", stall_seconds)


def test_answers_in_time_are_kept(monkeypatch):
    fast_probe(monkeypatch)
    vm = FakeVM(0)
    stalls = []
    with MainLoopProbe(vm, lambda: stalls.append(1)) as probe:
        assert vm.answered.wait(5)
    assert set(vm.calls) == {"query-status"}
    assert len(probe.latencies) >= 3
    assert probe.stalled is None and stalls == []
    assert "QMP probes: median" in probe.summary()
    assert "stalled" not in probe.summary()


def test_a_late_answer_is_a_stall(monkeypatch):
    fast_probe(monkeypatch, stall_seconds=0.05)
    vm = FakeVM(0, 0.2)
    stalls = []
    with MainLoopProbe(vm, lambda: stalls.append(1)) as probe:
        deadline = time.monotonic() + 5
        while probe.stalled is None and time.monotonic() < deadline:
            time.sleep(0.01)
    assert probe.stalled.startswith("QMP answered after")
    assert stalls == [1]
    assert len(vm.calls) == 2, "the probe stops at the first stall"
    assert "stalled: QMP answered" in probe.summary()


def test_no_answer_is_a_stall(monkeypatch):
    fast_probe(monkeypatch)
    vm = FakeVM(0, vmlib.VMTimeout("no answer on QMP"))
    stalls = []
    with MainLoopProbe(vm, lambda: stalls.append(1)) as probe:
        deadline = time.monotonic() + 5
        while probe.stalled is None and time.monotonic() < deadline:
            time.sleep(0.01)
    assert probe.stalled == "no answer on QMP: no answer on QMP"
    assert stalls == [1]


def test_qemu_gone_is_not_a_stall(monkeypatch):
    fast_probe(monkeypatch)
    vm = FakeVM(vmlib.VMError("QEMU exited"))
    with MainLoopProbe(vm) as probe:
        deadline = time.monotonic() + 5
        while not vm.calls and time.monotonic() < deadline:
            time.sleep(0.01)
    assert probe.stalled is None
    assert probe.summary() == "no QMP probe answered"
