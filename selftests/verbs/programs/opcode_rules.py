#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""opcode_rules.py DEVICE: on a UC and a UD QP in RTS (port 1, addressed to
itself), the provider refuses at post time (EINVAL, no doorbell) every
opcode that uapi/vhca_hw_wqe_rules.h does not allow on the QP type, the
same rules the driver and device apply (IBA 9.2: no RDMA READ, atomics or
SEND with Invalidate on UC; only SENDs on UD), and accepts a SEND.  Before
those rules were shared the provider accepted SEND_WITH_INV on UC and the
device then moved the QP to SQE.  Prints one line per case and
"opcode_rules: ok"."""
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
from pyverbs.wr import SGE, SendWR

REFUSED = {
    "UC": (e.IBV_QPT_UC, [e.IBV_WR_SEND_WITH_INV, e.IBV_WR_RDMA_READ,
                          e.IBV_WR_ATOMIC_CMP_AND_SWP, e.IBV_WR_ATOMIC_FETCH_AND_ADD]),
    "UD": (e.IBV_QPT_UD, [e.IBV_WR_SEND_WITH_INV, e.IBV_WR_RDMA_WRITE,
                          e.IBV_WR_RDMA_WRITE_WITH_IMM, e.IBV_WR_RDMA_READ,
                          e.IBV_WR_ATOMIC_CMP_AND_SWP, e.IBV_WR_ATOMIC_FETCH_AND_ADD]),
}


PORT, QKEY = 1, 0x11111111


def rts_to_itself(ctx, pd, cq, qp_type):
    cap = QPCap(max_send_wr=8, max_recv_wr=4, max_send_sge=1, max_recv_sge=1)
    qp = QP(pd, QPInitAttr(qp_type=qp_type, scq=cq, rcq=cq, cap=cap))
    lid = ctx.query_port(PORT).lid
    attr = QPAttr(port_num=PORT)
    attr.qkey = QKEY
    attr.dest_qp_num = qp.qp_num
    attr.ah_attr = AHAttr(dlid=lid, port_num=PORT)
    qp.to_rts(attr)
    return qp, AH(pd, attr=AHAttr(dlid=lid, port_num=PORT))


def post(qp, ah, mr, opcode):
    """"accepted", "EINVAL" or "errno N" for one WR of `opcode`."""
    wr = SendWR(opcode=opcode, num_sge=1, sg=[SGE(mr.buf, 8, mr.lkey)])
    if qp.qp_type == e.IBV_QPT_UD:
        wr.set_wr_ud(ah, qp.qp_num, QKEY)
    try:
        qp.post_send(wr)
        return "accepted"
    except PyverbsRDMAError as ex:
        return "EINVAL" if ex.error_code == errno.EINVAL else "errno %d" % ex.error_code


def main(device):
    ctx = Context(name=device)
    pd = PD(ctx)
    cq = CQ(ctx, 64)
    mr = MR(pd, 64, e.IBV_ACCESS_LOCAL_WRITE)
    failures = 0
    for name, (qp_type, opcodes) in sorted(REFUSED.items()):
        qp, ah = rts_to_itself(ctx, pd, cq, qp_type)
        cases = [(op, "EINVAL") for op in opcodes] + [(e.IBV_WR_SEND, "accepted")]
        for opcode, expected in cases:
            result = post(qp, ah, mr, opcode)
            failures += result != expected
            print("%s opcode %d: %s %s" % (name, opcode, result,
                                           "ok" if result == expected else "WRONG"))
    if failures:
        print("opcode_rules: %d wrong" % failures)
        return 1
    print("opcode_rules: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
