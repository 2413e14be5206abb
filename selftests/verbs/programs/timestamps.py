#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""timestamps.py DEVICE: the device clock (provider/clock.c).

ibv_query_device_ex reports it (hca_core_clock 1000000 kHz: it counts ns,
a 64-bit completion_timestamp_mask); ibv_query_rt_values_ex reads it and
it advances; an extended CQ with IBV_WC_EX_WITH_COMPLETION_TIMESTAMP and
_WALLCLOCK gives every completion of a UD send to itself a timestamp
between the clock read before the send and the one after, and a
wall-clock form within a second of the guest's CLOCK_REALTIME.
Prints one line per check and "timestamps: ok"."""
import sys
import time

from verbs_enums import e
from pyverbs.addr import AH, AHAttr
from pyverbs.cq import CQEX, CqInitAttrEx, PollCqAttr
from pyverbs.device import Context
from pyverbs.mr import MR
from pyverbs.pd import PD
from pyverbs.qp import QP, QPAttr, QPCap, QPInitAttr
from pyverbs.wr import RecvWR, SGE, SendWR

PORT, QKEY = 1, 0x11111111


def check(name, ok, detail):
    print("%s: %s" % (name, detail))
    if not ok:
        raise RuntimeError("%s: %s" % (name, detail))


def clock(ctx):
    return ctx.query_rt_values_ex()[1]


def main(device):
    ctx = Context(name=device)
    attr = ctx.query_device_ex()
    check("hca_core_clock", attr.hca_core_clock == 1000000, attr.hca_core_clock)
    check("completion_timestamp_mask",
          attr.completion_timestamp_mask == (1 << 64) - 1,
          hex(attr.completion_timestamp_mask))
    a, b = clock(ctx), clock(ctx)
    check("clock advances", 0 < a < b, (a, b))

    pd = PD(ctx)
    flags = (e.IBV_WC_STANDARD_FLAGS | e.IBV_WC_EX_WITH_COMPLETION_TIMESTAMP |
             e.IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK)
    cq = CQEX(ctx, CqInitAttrEx(cqe=16, wc_flags=flags))
    qp = QP(pd, QPInitAttr(qp_type=e.IBV_QPT_UD, scq=cq, rcq=cq,
                           cap=QPCap(max_send_wr=4, max_recv_wr=4)))
    qattr = QPAttr(port_num=PORT)
    qattr.qkey = QKEY
    qp.to_rts(qattr)
    mr = MR(pd, 4096, e.IBV_ACCESS_LOCAL_WRITE)
    ah = AH(pd, attr=AHAttr(dlid=ctx.query_port(PORT).lid, port_num=PORT))

    qp.post_recv(RecvWR(num_sge=1, sg=[SGE(mr.buf + 2048, 104, mr.lkey)]))
    wr = SendWR(opcode=e.IBV_WR_SEND, num_sge=1, sg=[SGE(mr.buf, 64, mr.lkey)])
    wr.set_wr_ud(ah, qp.qp_num, QKEY)
    before, wall_before = clock(ctx), time.time_ns()
    qp.post_send(wr)
    stamps, deadline, poll = [], time.monotonic() + 10, PollCqAttr()
    while len(stamps) < 2 and time.monotonic() < deadline:
        if cq.start_poll(poll) != 0:
            continue
        while True:
            check("status", cq.status == e.IBV_WC_SUCCESS, cq.status)
            stamps.append((cq.read_timestamp(), cq.read_completion_wallclock_ns()))
            if cq.poll_next() != 0:
                break
        cq.end_poll()
    after, wall_after = clock(ctx), time.time_ns()
    check("completions", len(stamps) == 2, len(stamps))
    for raw, wall in stamps:
        check("timestamp within the send", before <= raw <= after,
              (before, raw, after))
        check("wall clock within a second", wall_before - 10**9 <= wall <=
              wall_after + 10**9, (wall_before, wall, wall_after))
    for obj in (qp, ah, mr, cq, pd, ctx):
        obj.close()
    print("timestamps: ok")


if __name__ == "__main__":
    main(sys.argv[1])
