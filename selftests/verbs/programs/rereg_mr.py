#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""rereg_mr.py DEVICE: ibv_rereg_mr changes what the device enforces
and keeps the region's keys (IBA 11.2.8 Reregister Memory Region): RDMA
WRITEs between two RC QPs of port 1, into a target region that is
re-registered with
 - IBV_REREG_MR_CHANGE_ACCESS without remote write: REM_ACCESS_ERR, and
   back with it: the data arrives;
 - IBV_REREG_MR_CHANGE_TRANSLATION to a new buffer: the data arrives
   there, the old buffer keeps its bytes;
 - IBV_REREG_MR_CHANGE_PD: a QP of the old PD gets REM_ACCESS_ERR, a QP
   of the new PD writes;
with the lkey and rkey it had.  Prints one line per step and "rereg_mr: ok"."""
import sys

from verbs_enums import e
from pyverbs.addr import AHAttr
from pyverbs.cq import CQ
from pyverbs.device import Context
from pyverbs.mem_alloc import posix_memalign
from pyverbs.mr import MR
from pyverbs.pd import PD
from pyverbs.qp import QP, QPAttr, QPCap, QPInitAttr
from pyverbs.wr import SGE, SendWR

PORT, SIZE = 1, 4096
REMOTE = e.IBV_ACCESS_LOCAL_WRITE | e.IBV_ACCESS_REMOTE_WRITE


def rc_qp(pd, cq):
    cap = QPCap(max_send_wr=4, max_recv_wr=4, max_send_sge=1, max_recv_sge=1)
    return QP(pd, QPInitAttr(qp_type=e.IBV_QPT_RC, scq=cq, rcq=cq, cap=cap))


def connect(ctx, qp, dest_qp_num):
    attr = QPAttr(port_num=PORT)
    attr.qp_access_flags = REMOTE | e.IBV_ACCESS_REMOTE_READ
    attr.dest_qp_num = dest_qp_num
    attr.path_mtu = e.IBV_MTU_1024
    attr.max_dest_rd_atomic = 1
    attr.max_rd_atomic = 1
    attr.min_rnr_timer = 12
    attr.timeout = 14
    attr.retry_cnt = 7
    attr.rnr_retry = 7
    attr.ah_attr = AHAttr(dlid=ctx.query_port(PORT).lid, port_num=PORT)
    qp.to_rts(attr)


def rdma_write(ctx, pd, src, addr, rkey):
    """The completion status of one RDMA WRITE of src's first 64 bytes
    to addr/rkey, from a new QP of pd to another (an error leaves them in
    ERROR)."""
    cq = CQ(ctx, 8)
    qp, target = rc_qp(pd, cq), rc_qp(pd, cq)
    connect(ctx, qp, target.qp_num)
    connect(ctx, target, qp.qp_num)
    wr = SendWR(opcode=e.IBV_WR_RDMA_WRITE, num_sge=1,
                sg=[SGE(src.buf, 64, src.lkey)], send_flags=e.IBV_SEND_SIGNALED)
    wr.set_wr_rdma(rkey, addr)
    qp.post_send(wr)
    while True:
        n, wcs = cq.poll(1)
        if n:
            status = wcs[0].status
            break
    qp.close()
    target.close()
    cq.close()
    return status


def check(name, got, expected):
    print("%s: %s %s" % (name, got, "ok" if got == expected else "WRONG"))
    return got == expected


def main(device):
    ctx = Context(name=device)
    pd, other_pd = PD(ctx), PD(ctx)
    src = MR(pd, SIZE, e.IBV_ACCESS_LOCAL_WRITE)
    dst = MR(pd, SIZE, REMOTE)
    ok = True
    src.write(b"A" * 64, 64)
    ok &= check("write", rdma_write(ctx, pd, src, dst.buf, dst.rkey), e.IBV_WC_SUCCESS)
    ok &= check("data", dst.read(64, 0), b"A" * 64)

    keys = (dst.lkey, dst.rkey)
    dst.rereg(e.IBV_REREG_MR_CHANGE_ACCESS, pd, 0, 0, e.IBV_ACCESS_LOCAL_WRITE)
    ok &= check("no remote write", rdma_write(ctx, pd, src, dst.buf, dst.rkey),
                e.IBV_WC_REM_ACCESS_ERR)
    dst.rereg(e.IBV_REREG_MR_CHANGE_ACCESS, pd, 0, 0, REMOTE)
    src.write(b"B" * 64, 64)
    ok &= check("remote write again", rdma_write(ctx, pd, src, dst.buf, dst.rkey),
                e.IBV_WC_SUCCESS)
    ok &= check("data", dst.read(64, 0), b"B" * 64)
    ok &= check("keys kept", (dst.lkey, dst.rkey), keys)

    old_buf = dst.buf
    new_buf = posix_memalign(SIZE)
    dst.rereg(e.IBV_REREG_MR_CHANGE_TRANSLATION, pd, new_buf, SIZE, 0)
    src.write(b"C" * 64, 64)
    ok &= check("old address", rdma_write(ctx, pd, src, old_buf, dst.rkey),
                e.IBV_WC_REM_ACCESS_ERR)
    ok &= check("new address", rdma_write(ctx, pd, src, new_buf, dst.rkey),
                e.IBV_WC_SUCCESS)
    ok &= check("data", dst.read(64, 0), b"C" * 64)

    dst.rereg(e.IBV_REREG_MR_CHANGE_PD, other_pd, 0, 0, 0)
    ok &= check("QP of the old PD", rdma_write(ctx, pd, src, new_buf, dst.rkey),
                e.IBV_WC_REM_ACCESS_ERR)
    other_src = MR(other_pd, SIZE, e.IBV_ACCESS_LOCAL_WRITE)
    other_src.write(b"D" * 64, 64)
    ok &= check("QP of the new PD", rdma_write(ctx, other_pd, other_src, new_buf, dst.rkey),
                e.IBV_WC_SUCCESS)
    ok &= check("data", dst.read(64, 0), b"D" * 64)
    ok &= check("keys kept", (dst.lkey, dst.rkey), keys)
    # new_buf is the MR's now: the process exit frees it.
    print("rereg_mr: %s" % ("ok" if ok else "WRONG"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
