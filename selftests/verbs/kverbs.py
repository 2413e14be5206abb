"""Kernel verbs in a guest: vhca.ko verbs=1 and driver/ktest/vhca_verbs_test.ko.

Not part of `make check-vm` / `make test` yet: the file name does not match
pytest's test_*.py, so `pytest selftests` never collects it; `make
check-verbs` names it explicitly (with its own rootdir, so selftests/
conftest.py and its results file stay out of it).  Own VM, because the
driver is loaded with verbs=1.

The test module runs, between port 1 and port 2 of vhca0: RC SEND/RECV
(with a completion event on an armed CQ), a batch of SENDs in one post
call, FRWR registration (IB_WR_REG_MR), RDMA WRITE, READ and WRITE with
immediate, fetch-and-add and compare-and-swap; UD SEND with immediate
through an AH into a QP fed by an SRQ, UD multicast (attach_mcast, GRH),
and the SRQ limit (IB_EVENT_SRQ_LIMIT_REACHED, modify/query).  Data is checked byte for byte; it prints
PASS/FAIL lines.  With verbs=1 ib_mad (in
ib_core) attaches to both devices and creates QP0/QP1 per port; then
ib_ipoib is loaded too.  Neither may oops; what they print is logged.
"""
import os
import re
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import vmlib  # noqa: E402

MODULE = os.environ.get("VHCA_MODULE") or os.path.join(vmlib.BUILD, "vhca.ko")
KTEST = os.environ.get("VHCA_KTEST") or os.path.join(vmlib.BUILD, "vhca_verbs_test.ko")
DEVICES = [
    "vhca,id=vhca0,ports=2,node-guid=0x0002c90300000100",
    "vhca,id=vhca1,ports=1,node-guid=0x0002c90300000200",
]
CASES = ["create_cq_qp", "connect", "query_qp", "send_recv", "send_batch",
         "frwr_reg_mr", "rdma_write", "rdma_read", "rdma_write_imm",
         "atomic_fetch_add", "atomic_cmp_swap", "ud_srq_ah", "ud_multicast",
         "srq_limit"]

WAIT_ACTIVE = r'''
for i in $(seq 1 300); do
	n=0
	for s in /sys/class/infiniband/*/ports/*/state; do
		grep -q ACTIVE "$s" || n=$((n+1))
	done
	[ $n = 0 ] && exit 0
	sleep 0.2
done
exit 1
'''


def log(title, text):
    sys.stdout.write("---- %s ----\n%s\n" % (title, text.rstrip()))


@pytest.fixture(scope="module")
def vm():
    for path in (MODULE, KTEST):
        if not os.path.exists(path):
            raise FileNotFoundError("%s missing: run `make check-verbs`" % path)
    with vmlib.VM(devices=DEVICES, name="verbs") as machine:
        machine.run("modprobe -a ib_core ib_uverbs ib_umad", timeout=120, check=True)
        machine.run("insmod %s verbs=1" % MODULE, timeout=120, check=True)
        yield machine


def test_parameter_and_ports(vm):
    _, out = vm.run("cat /sys/module/vhca/parameters/verbs", check=True)
    assert out.strip() == "Y"
    rc, out = vm.run(WAIT_ACTIVE, timeout=120)
    _, ports = vm.run("grep . /sys/class/infiniband/*/ports/*/state /sys/class/infiniband/*/ports/*/lid")
    log("ports", ports)
    assert rc == 0, "ports not ACTIVE:\n" + ports


def test_kernel_verbs(vm):
    vm.run("insmod %s device=vhca0" % KTEST, timeout=180, check=True)
    _, out = vm.run("dmesg --color=never | grep vhca_verbs_test", check=True)
    log("vhca_verbs_test", out)
    done = re.search(r"done pass=(\d+) fail=(\d+)", out)
    assert done, "no summary line:\n" + out
    passed = set(re.findall(r"PASS (\S+)", out))
    missing = [c for c in CASES if c not in passed]
    assert int(done.group(2)) == 0 and not missing, \
        "failed or missing cases %s:\n%s" % (missing, out)
    vm.run("rmmod vhca_verbs_test", check=True)


def test_mad_and_ipoib(vm):
    """ib_mad is attached (QP0/QP1 on every port); ib_ipoib attaches too.
    The device's SMA/SA may not answer yet: only a clean log is required."""
    rc, _ = vm.run("modprobe ib_ipoib", timeout=120)
    vm.run("for i in /sys/class/net/ib*; do ip link set ${i##*/} up; done; sleep 10",
           timeout=120)
    _, links = vm.run("ip -br link 2>&1; ls /sys/class/net")
    log("net links", links)
    _, out = vm.run("dmesg --color=never | grep -iE 'mad|ipoib|ib[0-9]|vhca|infiniband|rdma' | grep -v ACPI | tail -60")
    log("ib_mad / ipoib / vhca log", out)
    if rc == 0:
        vm.run("rmmod ib_ipoib", timeout=120)


def test_unload_and_clean_log(vm):
    vm.run("rmmod vhca", timeout=120, check=True)
    text = vm.dmesg()
    bad = vmlib.bad_dmesg_lines(text)
    if bad:
        log("full dmesg", text)
    assert not bad, "kernel log:\n" + "\n".join(bad[:60])
    # The debug kernel: nothing the verbs allocated is left behind.
    if vm.has_kmemleak():
        leaks = vm.kmemleak_report()
        assert not leaks.strip(), "kmemleak:\n" + leaks[:8000]
