"""The driver's attributes in `rdma resource show qp|cq -d` (restrack's
fill_res_*_entry, driver/shim/restrack.c): the device's QP handle and
CQN, the rings' sizes and, for kernel QPs and CQs, their producer and
consumer indexes.  The QPs and CQs of a running ibv_rc_pingpong are
listed with theirs; the GSI QP's send producer index moves with the MADs
it sends.  The tests share the session VM.
"""
import re

from test_diags import lids  # noqa: F401  (the fixture)
from test_hw_counters import provider  # noqa: F401  (the fixture)


def records(vm, what, where):
    """`rdma -dd resource show WHAT WHERE` (-dd: the driver's attributes
    too): one string per object (a record
    starts at its "link" or "dev" word; continuation lines joined)."""
    _, out = vm.run("rdma -dd resource show %s %s" % (what, where), timeout=60,
                    check=True)
    recs = []
    for line in out.splitlines():
        if re.match(r"^(link|dev) ", line):
            recs.append(line)
        elif recs and line.strip():
            recs[-1] += " " + line.strip()
    return recs


def attr(record, name):
    m = re.search(r"(?:^| )%s (\S+)" % name, record)
    return m.group(1) if m else None


def gsi_qp(vm, link):
    recs = [r for r in records(vm, "qp", "link " + link) if attr(r, "type") == "GSI"]
    assert len(recs) == 1, recs
    return recs[0]


def test_rdma_res_qp_shows_the_gsi_qp_rings_and_indexes(vm, lids):
    before = gsi_qp(vm, "vhca0/1")
    # iproute2 prints the driver's attributes with a drv_ prefix.
    for name in ("drv_qp_handle", "drv_sq_wqe_cnt", "drv_sq_pi", "drv_sq_ci",
                 "drv_rq_wqe_cnt", "drv_rq_pi", "drv_rq_ci", "drv_max_send_wr"):
        assert attr(before, name) is not None, (name, before)
    assert attr(before, "drv_rings") == "kernel", before
    assert int(attr(before, "drv_sq_wqe_cnt")) >= int(attr(before, "drv_max_send_wr"))
    for _ in range(3):
        vm.run("saquery -C vhca0 -P 1 NR >/dev/null", timeout=60, check=True)
    after = gsi_qp(vm, "vhca0/1")
    assert int(attr(after, "drv_sq_pi")) - int(attr(before, "drv_sq_pi")) >= 3, (before, after)
    # Posted receives are consumed by the answers and posted again.
    assert int(attr(after, "drv_rq_pi")) - int(attr(before, "drv_rq_pi")) >= 3, (before, after)


def test_rdma_res_lists_a_running_pingpong(vm, lids, provider):
    # The server creates its QP and CQ, then waits for the client.
    vm.run("ibv_rc_pingpong -d vhca1 -i 1 -n 5 > /tmp/res-srv.out 2>&1 &",
           timeout=30, check=True)
    vm.wait_until("ss -ltn", lambda t: ":18515 " in t, timeout=30)
    try:
        qps = [r for r in records(vm, "qp", "link vhca1/1")
               if attr(r, "comm") == "ibv_rc_pingpong"]
        assert len(qps) == 1, qps
        qp = qps[0]
        assert attr(qp, "type") == "RC" and attr(qp, "drv_rings") == "user", qp
        assert int(attr(qp, "drv_qp_handle"), 16) == int(attr(qp, "lqpn")), qp
        assert int(attr(qp, "drv_max_send_wr")) >= 1, qp
        assert attr(qp, "drv_sq_pi") is None, qp       # the provider's, not shown
        cqs = [r for r in records(vm, "cq", "dev vhca1")
               if attr(r, "comm") == "ibv_rc_pingpong"]
        assert len(cqs) == 1, cqs
        assert attr(cqs[0], "drv_rings") == "user", cqs
        assert int(attr(cqs[0], "drv_cqe_cnt")) >= int(attr(cqs[0], "cqe")), cqs
        assert attr(cqs[0], "drv_cqn") is not None, cqs
    finally:
        rc, out = vm.run("ibv_rc_pingpong -d vhca0 -i 1 -n 5 localhost",
                         timeout=120)
    assert rc == 0, out
    vm.wait_until("cat /tmp/res-srv.out", lambda t: "iters" in t, timeout=60)
    assert not [r for r in records(vm, "qp", "link vhca1/1")
                if attr(r, "comm") == "ibv_rc_pingpong"]
