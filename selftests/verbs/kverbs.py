"""Kernel verbs in a guest: vhca.ko and driver/ktest/vhca_verbs_test.ko.

The `make check-verbs` tier of `make test`, not part of `make check-vm`:
the file name does not match pytest's test_*.py, so `pytest selftests`
never collects it; `make check-verbs` names it explicitly (with its own
rootdir, so selftests/conftest.py and its guest stay out of it).  Own VM,
with the test module beside the driver.

The test module (one file per concept in driver/ktest, vhca_verbs_test.h
lists them) runs between port 1 and port 2 of vhca0, data checked byte
for byte:

- query: query_device (limits, atomic_cap IB_ATOMIC_HCA, masked atomics
  off), query_port of both ports, GID 0 and P_Key 0;
- the main RC pair: SEND/RECV with a completion event on an armed CQ, a
  batch of SENDs in one post call, SEND_WITH_IMM with a solicited event,
  FRWR registration (IB_WR_REG_MR), RDMA WRITE, READ, WRITE with
  immediate, fetch-and-add and compare-and-swap;
- UD SEND with immediate through an AH (rdma_query_ah) into a QP fed by
  an SRQ, UD
  multicast (attach_mcast, GRH), the SRQ limit event, datagrams to a
  missing QPN and with a wrong Q_Key (sender success, nothing received),
  one longer than the MTU (IB_WC_LOC_LEN_ERR, the QP in SQE, recovered);
- send options: IB_SEND_INLINE up to max_inline_data (one byte more is
  refused), max_sge gather and scatter, unsignaled SENDs freed by a
  signaled one, IB_SEND_FENCE on a SEND after an RDMA READ; UC SEND, RDMA
  WRITE and WRITE with immediate, RC-only opcodes refused on UC;
- atomics of two RC pairs in two kernel threads on one word (exact sum,
  distinct originals), for fetch-and-add and compare-and-swap loops;
- LOCAL_INV, re-registration with the next key (ib_inc_rkey), and
  SEND_WITH_INV (IB_WC_WITH_INVALIDATE); the dead key is then refused;
- ib_resize_cq grow and shrink (-EBUSY while a QP uses the CQ: the
  device's rule), a CQ on completion vector 1, IB_CQ_REPORT_MISSED_EVENTS;
- error completions, each with its exact ib_wc status, the QP in ERR and
  the rest flushed (IB_WC_WR_FLUSH_ERR): bad lkey, receive too small
  (LOC_LEN_ERR / REM_INV_REQ_ERR), a receive with a bad lkey
  (LOC_PROT_ERR / REM_OP_ERR), wrong rkey on WRITE and READ, rights
  missing for WRITE, READ and atomics, a misaligned atomic, PD mismatch
  (local and remote), RNR retries exhausted and satisfied in time, a peer
  in RESET or missing (RETRY_EXC_ERR); the responder's
  IB_EVENT_QP_ACCESS_ERR and an SRQ QP's IB_EVENT_QP_LAST_WQE_REACHED;
- QP states: SQD with IB_EVENT_SQ_DRAINED (SENDs posted in SQD run back
  in RTS), IB_EVENT_COMM_EST of a responder in RTR;
- ib_drain_qp with SENDs waiting for RNR retries and receives posted.

It prints one PASS/FAIL line per case and a summary.  CASES lists every
case, and every one must PASS.  IPoIB, ib_mad
and the SA are covered by selftests/test_ipoib.py and test_diags.py.
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
    "vhca,id=vhca0,ports=2,node-guid=0x5254000000000100",
    "vhca,id=vhca1,ports=1,node-guid=0x5254000000000200",
]
CASES = [
    # main.c, query.c, basic.c, rdma.c: the main RC pair
    "create_cq_qp", "connect", "query_device", "query_port", "query_gid_pkey",
    "query_qp", "send_recv", "send_batch", "send_imm_solicited",
    "frwr_reg_mr", "rdma_write", "rdma_read", "rdma_write_imm",
    "atomic_fetch_add", "atomic_cmp_swap",
    # ud.c
    "ud_srq_ah", "ud_multicast", "srq_limit", "ud_missing_qpn",
    "ud_qkey_mismatch", "err_ud_too_long",
    # sends.c, uc.c
    "inline_send", "max_sge", "unsignaled", "fence_read_send",
    "uc_send", "uc_rc_only_opcodes", "uc_rdma_write", "uc_rdma_write_imm",
    # atomics.c, invalidate.c, cq.c
    "atomic_concurrent_fadd", "atomic_concurrent_cmp_swap",
    "local_inv", "rereg_mr", "send_with_inv",
    # ulp.c: verbs as the storage ULPs combine them
    "ulp_frwr_remote_read", "ulp_zero_length_rdma", "ulp_modify_port_cap",
    "resize_cq", "cq_comp_vector", "cq_report_missed",
    # errors_local.c
    "err_bad_lkey", "err_loc_len", "err_recv_bad_lkey", "err_retry_exc_reset",
    "err_rnr_retry_exc", "rnr_retry_ok", "err_retry_exc_noqp",
    # errors_remote.c
    "err_rkey_write", "event_qp_access_err", "err_rkey_read",
    "err_write_readonly", "err_read_noaccess", "err_atomic_noaccess",
    "err_atomic_misaligned", "err_pd_mismatch_local",
    "err_pd_mismatch_remote", "event_last_wqe_reached",
    # qp_states.c, drain.c
    "qp_sqd_drained", "event_comm_est", "drain_qp",
]

# Cases that fail because the device (qemu-device/) deviates from the IBA;
# each must FAIL until the device is fixed.

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
        machine.run("insmod %s" % MODULE, timeout=120, check=True)
        yield machine


def test_ports(vm):
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
    failed = set(re.findall(r"FAIL ([^\s:]+)", out))
    missing = [c for c in CASES if c not in passed]
    unlisted = sorted((passed | failed) - set(CASES))
    assert not missing and not failed and not unlisted, \
        "failed %s, missing %s, not in CASES %s:\n%s" % (
            sorted(failed), missing, unlisted, out)
    vm.run("rmmod vhca_verbs_test", check=True)


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
