#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""srq_resize.py DEVICE: ibv_modify_srq with IBV_SRQ_MAX_WR on an SRQ in
use (a UD QP on port 1 sending to itself, its receives from the SRQ)
keeps the receives posted before it and their order: 6 posted into an
SRQ of 8, 2 consumed, a shrink below the 4 waiting refused (EINVAL),
the SRQ grown to 32 (the 4 waiting move to the new ring), 20 more posted
(more than the old ring held), then 24 SENDs, each landing in the next
receive in posting order with its own bytes.
The device moves the WQEs (Documentation/device-datapath.md "Shared
receive queues").
Prints one line per step and "srq_resize: ok"."""
import errno
import sys

from verbs_enums import e
from pyverbs.addr import AH, AHAttr
from pyverbs.cq import CQ
from pyverbs.device import Context
from pyverbs.mr import MR
from pyverbs.pd import PD
from pyverbs.pyverbs_error import PyverbsRDMAError
from pyverbs.qp import QP, QPAttr, QPCap, QPInitAttr
from pyverbs.srq import SRQ, SrqAttr, SrqInitAttr
from pyverbs.wr import RecvWR, SGE, SendWR

from completions import poll_successes

PORT, QKEY = 1, 0x11111111
MSG = 8             # bytes of each SEND
SLOT = 64           # a receive buffer: the 40-byte GRH, then the message
GRH = 40
TOTAL = 26          # receives posted in all (wr_id = index = message)


def payload(i):
    return bytes((i * 7 + j) & 0xff for j in range(MSG))


def post_recvs(srq, mr, ids):
    for i in ids:
        srq.post_recv(RecvWR(wr_id=i, num_sge=1,
                             sg=[SGE(mr.buf + i * SLOT, SLOT, mr.lkey)]))


def send(qp, ah, mr, ids):
    for i in ids:
        wr = SendWR(wr_id=i, opcode=e.IBV_WR_SEND, num_sge=1,
                    sg=[SGE(mr.buf + i * MSG, MSG, mr.lkey)])
        wr.set_wr_ud(ah, qp.qp_num, QKEY)
        qp.post_send(wr)


def receive(qp, ah, smr, scq, rcq, rmr, ids):
    """SENDs of ids; the receive wr_ids in order, and whether each landed
    in the buffer of its own receive."""
    send(qp, ah, smr, ids)
    poll_successes(scq, len(ids))
    wcs = poll_successes(rcq, len(ids))
    order = [wc.wr_id for wc in wcs]
    data = all(wc.byte_len == GRH + MSG and
               rmr.read(MSG, wc.wr_id * SLOT + GRH) == payload(wc.wr_id)
               for wc in wcs)
    return order, data


def check(name, got, expected):
    print("%s: %s %s" % (name, got, "ok" if got == expected else "WRONG"))
    return got == expected


def modify_errno(srq, max_wr):
    try:
        srq.modify(SrqAttr(max_wr=max_wr), e.IBV_SRQ_MAX_WR)
        return "accepted"
    except PyverbsRDMAError as ex:
        return "EINVAL" if ex.error_code == errno.EINVAL else "errno %d" % ex.error_code


def main(device):
    ctx = Context(name=device)
    if not ctx.query_device().device_cap_flags & e.IBV_DEVICE_SRQ_RESIZE:
        print("srq_resize: IBV_DEVICE_SRQ_RESIZE not set: WRONG")
        return 1
    pd = PD(ctx)
    scq, rcq = CQ(ctx, 64), CQ(ctx, 64)
    smr = MR(pd, TOTAL * MSG, e.IBV_ACCESS_LOCAL_WRITE)
    rmr = MR(pd, TOTAL * SLOT, e.IBV_ACCESS_LOCAL_WRITE)
    for i in range(TOTAL):
        smr.write(payload(i), MSG, i * MSG)
    srq = SRQ(pd, SrqInitAttr(SrqAttr(max_wr=8, max_sge=1)))
    cap = QPCap(max_send_wr=32, max_recv_wr=1, max_send_sge=1, max_recv_sge=1)
    qp = QP(pd, QPInitAttr(qp_type=e.IBV_QPT_UD, scq=scq, rcq=rcq, srq=srq,
                           cap=cap))
    attr = QPAttr(port_num=PORT)
    attr.qkey = QKEY
    qp.to_rts(attr)
    ah = AH(pd, attr=AHAttr(dlid=ctx.query_port(PORT).lid, port_num=PORT))
    ok = True
    ok &= check("granted at create", srq.query().max_wr, 8)
    post_recvs(srq, rmr, range(6))
    ok &= check("before resize", receive(qp, ah, smr, scq, rcq, rmr, [0, 1]),
                ([0, 1], True))
    ok &= check("shrink below 4 waiting", modify_errno(srq, 2), "EINVAL")
    ok &= check("resize to 32", modify_errno(srq, 32), "accepted")
    ok &= check("granted after resize", srq.query().max_wr >= 32, True)
    post_recvs(srq, rmr, range(6, TOTAL))
    ok &= check("after resize",
                receive(qp, ah, smr, scq, rcq, rmr, list(range(2, TOTAL))),
                (list(range(2, TOTAL)), True))
    n, _ = rcq.poll(1)
    ok &= check("nothing more", n, 0)
    print("srq_resize: %s" % ("ok" if ok else "WRONG"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
