#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""opcode_rules.py DEVICE: the provider refuses at post time (EINVAL, no
doorbell) every opcode that uapi/vhca_hw_wqe_rules.h does not allow on the
QP type, the same rules the driver and device apply (IBA 9.2: no RDMA READ,
atomics or SEND with Invalidate on UC; only SENDs on UD).  Before those
rules were shared the provider accepted SEND_WITH_INV on UC and the device
then moved the QP to SQE.  Prints one line per case and "opcode_rules: ok"."""
import errno
import sys

import pyverbs.enums as e
from pyverbs.cq import CQ
from pyverbs.device import Context
from pyverbs.mr import MR
from pyverbs.pd import PD
from pyverbs.pyverbs_error import PyverbsRDMAError
from pyverbs.qp import QP, QPCap, QPInitAttr
from pyverbs.wr import SGE, SendWR

REFUSED = {
    "UC": (e.IBV_QPT_UC, [e.IBV_WR_SEND_WITH_INV, e.IBV_WR_RDMA_READ,
                          e.IBV_WR_ATOMIC_CMP_AND_SWP, e.IBV_WR_ATOMIC_FETCH_AND_ADD]),
    "UD": (e.IBV_QPT_UD, [e.IBV_WR_SEND_WITH_INV, e.IBV_WR_RDMA_WRITE,
                          e.IBV_WR_RDMA_WRITE_WITH_IMM, e.IBV_WR_RDMA_READ,
                          e.IBV_WR_ATOMIC_CMP_AND_SWP, e.IBV_WR_ATOMIC_FETCH_AND_ADD]),
}


def main(device):
    ctx = Context(name=device)
    pd = PD(ctx)
    cq = CQ(ctx, 16)
    mr = MR(pd, 64, e.IBV_ACCESS_LOCAL_WRITE)
    failures = 0
    for name, (qp_type, opcodes) in sorted(REFUSED.items()):
        cap = QPCap(max_send_wr=4, max_recv_wr=4, max_send_sge=1, max_recv_sge=1)
        qp = QP(pd, QPInitAttr(qp_type=qp_type, scq=cq, rcq=cq, cap=cap))
        for opcode in opcodes:
            wr = SendWR(opcode=opcode, num_sge=1, sg=[SGE(mr.buf, 8, mr.lkey)])
            try:
                qp.post_send(wr)
                result = "accepted"
            except PyverbsRDMAError as ex:
                result = "errno %d" % ex.error_code
                if ex.error_code == errno.EINVAL:
                    result = "EINVAL"
            ok = result == "EINVAL"
            failures += not ok
            print("%s opcode %d: %s %s" % (name, opcode, result, "ok" if ok else "WRONG"))
        qp.close()
    if failures:
        print("opcode_rules: %d wrong" % failures)
        return 1
    print("opcode_rules: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
