"""build/kvm-probe when guests probe at once (vmlib._save_kvm_probe): the
smoke tier boots its two kernels together, and each may save its answer
at the same moment.  Every answer must be kept and no save may fail."""
import multiprocessing
import os
import sys

SELFTESTS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, SELFTESTS)
import vmlib  # noqa: E402

SAVERS = 8
SAVES = 50


def _save_many(build, n):
    vmlib.KVM_PROBE_FILE = os.path.join(build, "kvm-probe")
    for i in range(SAVES):
        vmlib._save_kvm_probe("host qemu kernel-%d-%d" % (n, i), "tcg")


def test_concurrent_saves_keep_every_answer(tmp_path, monkeypatch):
    build = str(tmp_path)
    procs = [multiprocessing.Process(target=_save_many, args=(build, n))
             for n in range(SAVERS)]
    for proc in procs:
        proc.start()
    for proc in procs:
        proc.join(60)
    assert [proc.exitcode for proc in procs] == [0] * SAVERS
    monkeypatch.setattr(vmlib, "KVM_PROBE_FILE", os.path.join(build, "kvm-probe"))
    answers = vmlib._read_kvm_probe()
    assert len(answers) == SAVERS * SAVES
    assert set(answers.values()) == {"tcg"}
    leftovers = [f for f in os.listdir(build) if f.startswith("kvm-probe.")
                 and f != "kvm-probe.lock"]
    assert not leftovers, leftovers
