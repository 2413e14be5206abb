#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""device_memory.py DEVICE: device memory (ibv_alloc_dm, BAR 3 of the
device) end to end between two RC QPs of port 1:
 - max_dm_size is reported, an allocation starts zeroed, and what
   ibv_memcpy_to_dm writes ibv_memcpy_from_dm reads back; unaligned or
   out-of-range copies are refused;
 - through a zero-based ibv_reg_dm_mr region 16 bytes into the
   allocation: RDMA WRITE into device memory and RDMA READ out of it
   (remote side), SEND from it and receive into it (local SGEs), RDMA
   WRITE with device memory as the source; every byte checked with the
   CPU's view of the memory;
 - an RDMA WRITE past the region's end is refused (REM_ACCESS_ERR) and
   leaves the bytes beyond it alone.
Prints one line per step and "device_memory: ok"."""
import sys

from verbs_enums import e
from pyverbs.cq import CQ
from pyverbs.device import AllocDmAttr, Context, DM
from pyverbs.mr import DMMR, MR
from pyverbs.pd import PD
from pyverbs.pyverbs_error import PyverbsRDMAError
from pyverbs.wr import RecvWR, SGE, SendWR
from rereg_mr import connect, rc_qp

SIZE, DM_SIZE, MR_OFFSET = 4096, 8192, 16
ALL = (e.IBV_ACCESS_LOCAL_WRITE | e.IBV_ACCESS_REMOTE_WRITE |
       e.IBV_ACCESS_REMOTE_READ)


def rc_pair(ctx, pd, cq):
    """Two connected RC QPs of port 1 (rereg_mr.py's helpers)."""
    a, b = rc_qp(pd, cq), rc_qp(pd, cq)
    connect(ctx, a, b.qp_num)
    connect(ctx, b, a.qp_num)
    return a, b


def wait(cq, count=1):
    """The statuses of the next count completions."""
    statuses = []
    while len(statuses) < count:
        n, wcs = cq.poll(1)
        if n:
            statuses.append(wcs[0].status)
    return statuses


def post(qp, opcode, addr, length, lkey, raddr=0, rkey=0):
    wr = SendWR(opcode=opcode, num_sge=1, sg=[SGE(addr, length, lkey)],
                send_flags=e.IBV_SEND_SIGNALED)
    if opcode in (e.IBV_WR_RDMA_WRITE, e.IBV_WR_RDMA_READ):
        wr.set_wr_rdma(rkey, raddr)
    qp.post_send(wr)


def check(name, got, expected):
    print("%s: %s" % (name, "ok" if got == expected else "WRONG (%r)" % (got,)))
    return got == expected


def refused(fn):
    try:
        fn()
    except PyverbsRDMAError:
        return True
    return False


def main(device):
    ctx = Context(name=device)
    ok = check("max_dm_size", ctx.query_device_ex().max_dm_size >= 2 * DM_SIZE, True)
    pd, cq = PD(ctx), CQ(ctx, 32)
    dm = DM(ctx, AllocDmAttr(length=DM_SIZE))
    ok &= check("zeroed", dm.copy_from_dm(0, DM_SIZE), bytes(DM_SIZE))
    pattern = bytes((i * 7) & 0xff for i in range(256))
    dm.copy_to_dm(4096 - 128, pattern, 256)
    ok &= check("copy back", dm.copy_from_dm(4096 - 128, 256), pattern)
    ok &= check("unaligned copy", refused(lambda: dm.copy_to_dm(2, b"abcd", 4)), True)
    ok &= check("copy past the end",
                refused(lambda: dm.copy_from_dm(DM_SIZE - 4, 8)), True)

    dmmr = DMMR(pd, DM_SIZE - MR_OFFSET, e.IBV_ACCESS_ZERO_BASED | ALL, dm,
                MR_OFFSET)
    host = MR(pd, SIZE, ALL)
    a, b = rc_pair(ctx, pd, cq)

    data = bytes((i * 13 + 1) & 0xff for i in range(1000))
    host.write(data, len(data))
    post(a, e.IBV_WR_RDMA_WRITE, host.buf, 1000, host.lkey, 4000, dmmr.rkey)
    ok &= check("RDMA WRITE into DM", wait(cq), [e.IBV_WC_SUCCESS])
    ok &= check("data in DM", dm.copy_from_dm(MR_OFFSET + 4000, 1000), data)

    dm.copy_to_dm(MR_OFFSET + 64, pattern, 256)
    post(a, e.IBV_WR_RDMA_READ, host.buf + 2048, 256, host.lkey, 64, dmmr.rkey)
    ok &= check("RDMA READ from DM", wait(cq), [e.IBV_WC_SUCCESS])
    ok &= check("data read", host.read(256, 2048), pattern)

    b.post_recv(RecvWR(wr_id=1, num_sge=1, sg=[SGE(host.buf + 1024, 512, host.lkey)]))
    post(a, e.IBV_WR_SEND, 64, 256, dmmr.lkey)
    ok &= check("SEND from DM", wait(cq, 2), [e.IBV_WC_SUCCESS] * 2)
    ok &= check("data sent", host.read(256, 1024), pattern)

    host.write(data[:512], 512)
    b.post_recv(RecvWR(wr_id=2, num_sge=1, sg=[SGE(2048, 512, dmmr.lkey)]))
    post(a, e.IBV_WR_SEND, host.buf, 512, host.lkey)
    ok &= check("receive into DM", wait(cq, 2), [e.IBV_WC_SUCCESS] * 2)
    ok &= check("data received", dm.copy_from_dm(MR_OFFSET + 2048, 512), data[:512])

    post(a, e.IBV_WR_RDMA_WRITE, 2048, 512, dmmr.lkey, host.buf + 3072, host.rkey)
    ok &= check("RDMA WRITE from DM", wait(cq), [e.IBV_WC_SUCCESS])
    ok &= check("data written", host.read(512, 3072), data[:512])

    dm.copy_to_dm(DM_SIZE - 8, b"\x11" * 8, 8)
    post(a, e.IBV_WR_RDMA_WRITE, host.buf, 64, host.lkey,
         DM_SIZE - MR_OFFSET - 32, dmmr.rkey)
    ok &= check("RDMA WRITE past the region", wait(cq), [e.IBV_WC_REM_ACCESS_ERR])
    ok &= check("beyond untouched", dm.copy_from_dm(DM_SIZE - 8, 8), b"\x11" * 8)
    print("device_memory: %s" % ("ok" if ok else "WRONG"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
