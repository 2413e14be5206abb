#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""resize_cq.py DEVICE: ibv_resize_cq on a CQ in use (a UD QP on port 1
sending to itself) loses no completion and keeps their order: 10 sends,
3 polled, the CQ grown to 100 (the 7 waiting move to the new ring), 5
more sends, then all 12 polled in order; a shrink below what waits is
EINVAL with nothing lost; a shrink of the empty CQ to 4 keeps working.
The device moves the CQEs (Documentation/device-datapath.md "Completion
queues").
Prints one line per step and "resize_cq: ok"."""
import errno
import sys
import time

from verbs_enums import e
from pyverbs.addr import AH, AHAttr
from pyverbs.cq import CQ
from pyverbs.device import Context
from pyverbs.mr import MR
from pyverbs.pd import PD
from pyverbs.pyverbs_error import PyverbsRDMAError
from pyverbs.qp import QP, QPAttr, QPCap, QPInitAttr
from pyverbs.wr import SGE, SendWR

from completions import poll_successes

PORT, QKEY = 1, 0x11111111


def ud_to_itself(ctx, pd, cq):
    cap = QPCap(max_send_wr=32, max_recv_wr=4, max_send_sge=1, max_recv_sge=1)
    qp = QP(pd, QPInitAttr(qp_type=e.IBV_QPT_UD, scq=cq, rcq=cq, cap=cap))
    lid = ctx.query_port(PORT).lid
    attr = QPAttr(port_num=PORT)
    attr.qkey = QKEY
    qp.to_rts(attr)
    return qp, AH(pd, attr=AHAttr(dlid=lid, port_num=PORT))


def send(qp, ah, mr, wr_ids):
    for wr_id in wr_ids:
        wr = SendWR(wr_id=wr_id, opcode=e.IBV_WR_SEND, num_sge=1,
                    sg=[SGE(mr.buf, 8, mr.lkey)])
        wr.set_wr_ud(ah, qp.qp_num, QKEY)
        qp.post_send(wr)


def poll(cq, want):
    """wr_ids of exactly `want` successful completions (waits for them),
    then checks that no more wait."""
    got = [wc.wr_id for wc in poll_successes(cq, want)]
    n, _ = cq.poll(1)
    if n:
        raise RuntimeError("a completion more than the %d expected" % want)
    return got


def check(name, got, expected):
    print("%s: %s %s" % (name, got, "ok" if got == expected else "WRONG"))
    return got == expected


def main(device):
    ctx = Context(name=device)
    pd = PD(ctx)
    cq = CQ(ctx, 16)
    mr = MR(pd, 64, e.IBV_ACCESS_LOCAL_WRITE)
    qp, ah = ud_to_itself(ctx, pd, cq)
    ok = True
    send(qp, ah, mr, range(10))
    ok &= check("before resize", poll_some(cq, 3), [0, 1, 2])
    cq.resize(100)
    ok &= check("grown", cq.cqe >= 100, True)
    send(qp, ah, mr, range(10, 15))
    ok &= check("after grow", poll(cq, 12), list(range(3, 15)))
    send(qp, ah, mr, range(20, 30))
    # A device may run send queues after post_send returned (sq-poll=on:
    # its polling thread executes them, device.md "Send doorbell records
    # and SQ polling"): give it time to write the 10 CQEs the shrink below
    # must not drop.
    time.sleep(1)
    try:
        cq.resize(4)
        result = "accepted"
    except PyverbsRDMAError as ex:
        result = "EINVAL" if ex.error_code == errno.EINVAL else "errno %d" % ex.error_code
    ok &= check("shrink below 10 waiting", result, "EINVAL")
    ok &= check("after refused shrink", poll(cq, 10), list(range(20, 30)))
    cq.resize(4)
    ok &= check("shrunk", 4 <= cq.cqe < 100, True)
    send(qp, ah, mr, range(40, 44))
    ok &= check("after shrink", poll(cq, 4), list(range(40, 44)))
    print("resize_cq: %s" % ("ok" if ok else "WRONG"))
    return 0 if ok else 1


def poll_some(cq, count):
    """The first `count` completions, leaving the others waiting."""
    got = []
    while len(got) < count:
        n, wcs = cq.poll(count - len(got))
        got += [wc.wr_id for wc in wcs[:n]]
    return got


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
