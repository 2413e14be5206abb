#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""parent_domain.py DEVICE: the rings of CQs, QPs and SRQs created through
a parent domain come from its allocators (provider/pd.c), and go back
through its free function when they are destroyed.

Two UD QPs on port 1 under one parent domain, one with its own receive
queue, one with an SRQ, both on one extended CQ created with
IBV_CQ_INIT_ATTR_MASK_PD; each sends to the other and the data arrives.
The allocator sees every ring (CQ, SQ, RQ, SRQ: provider/vhca.h
VHCA_RES_TYPE_*) with a page alignment; after the objects are destroyed
every buffer it gave has come back with its own resource type.  An
allocator that answers IBV_ALLOCATOR_USE_DEFAULT gets nothing to free.
Prints one line per step and "parent_domain: ok"."""
import sys
import time

from verbs_enums import e
import pyverbs.mem_alloc as mem
from pyverbs.addr import AH, AHAttr
from pyverbs.cq import CQEX, CqInitAttrEx, PollCqAttr
from pyverbs.device import Context
from pyverbs.mr import MR
from pyverbs.pd import PD, ParentDomain, ParentDomainContext, ParentDomainInitAttr
from pyverbs.qp import QP, QPAttr, QPCap, QPInitAttr
from pyverbs.srq import SRQ, SrqAttr, SrqInitAttr
from pyverbs.wr import RecvWR, SGE, SendWR

PORT, QKEY, PAGE = 1, 0x11111111, 4096
RES_BASE = 0x76686361 << 32          # VHCA_RES_TYPE_BASE
RES_CQ, RES_SQ, RES_RQ, RES_SRQ = (RES_BASE + n for n in (1, 2, 3, 4))


class Allocator:
    """Counts what the provider asks for; the checks run outside the
    callbacks (an exception inside one would only make it fail)."""

    def __init__(self, use_default=False):
        self.use_default = use_default
        self.given = {}                 # address -> (size, alignment, type)
        self.allocs = []
        self.frees = []

    def alloc(self, pd, context, size, alignment, resource_type):
        self.allocs.append((size, alignment, resource_type))
        if self.use_default:
            return e._IBV_ALLOCATOR_USE_DEFAULT
        ptr = mem.posix_memalign(size, alignment)
        self.given[ptr] = (size, alignment, resource_type)
        return ptr

    def free(self, pd, context, ptr, resource_type):
        self.frees.append((ptr, resource_type))
        mem.free(ptr)


def check(name, got, expected):
    if got != expected:
        raise RuntimeError("%s: got %r, expected %r" % (name, got, expected))
    print("%s: %r" % (name, got))


def parent_domain(ctx, pd, allocator):
    # the context must outlive the parent domain (pyverbs passes the
    # object's address to the provider, without a reference)
    allocator.pd_ctx = ParentDomainContext(pd, allocator.alloc, allocator.free, None)
    return ParentDomain(ctx, attr=ParentDomainInitAttr(pd=pd,
                                                       pd_context=allocator.pd_ctx))


def cq_ex(ctx, parent):
    return CQEX(ctx, CqInitAttrEx(cqe=64, wc_flags=e.IBV_WC_STANDARD_FLAGS,
                                  parent_domain=parent,
                                  comp_mask=e.IBV_CQ_INIT_ATTR_MASK_FLAGS |
                                  e.IBV_CQ_INIT_ATTR_MASK_PD))


def ud_qp(parent, cq, srq=None):
    cap = QPCap(max_send_wr=8, max_recv_wr=8, max_send_sge=1, max_recv_sge=1)
    qp = QP(parent, QPInitAttr(qp_type=e.IBV_QPT_UD, scq=cq, rcq=cq, srq=srq,
                               cap=cap))
    attr = QPAttr(port_num=PORT)
    attr.qkey = QKEY
    qp.to_rts(attr)
    return qp


def poll(cq, want):
    """Waits for `want` successful completions of the extended CQ."""
    done, deadline, attr = 0, time.monotonic() + 10, PollCqAttr()
    while done < want:
        if time.monotonic() > deadline:
            raise RuntimeError("%d of %d completions" % (done, want))
        if cq.start_poll(attr) != 0:
            continue
        try:
            while True:
                if cq.status != e.IBV_WC_SUCCESS:
                    raise RuntimeError("completion status %d" % cq.status)
                done += 1
                if cq.poll_next() != 0:
                    break
        finally:
            cq.end_poll()


def exchange(ctx, pd, parent):
    """a (own RQ) and b (SRQ) send 16 bytes to each other."""
    cq = cq_ex(ctx, parent)
    srq = SRQ(parent, SrqInitAttr(SrqAttr(max_wr=8, max_sge=1)))
    a, b = ud_qp(parent, cq), ud_qp(parent, cq, srq)
    mr = MR(parent, 4096, e.IBV_ACCESS_LOCAL_WRITE)
    mr.write(b"\0" * 4096, 4096)
    ah = AH(parent, attr=AHAttr(dlid=ctx.query_port(PORT).lid, port_num=PORT))
    a.post_recv(RecvWR(wr_id=1, num_sge=1, sg=[SGE(mr.buf + 1024, 56, mr.lkey)]))
    srq.post_recv(RecvWR(wr_id=2, num_sge=1, sg=[SGE(mr.buf + 2048, 56, mr.lkey)]))
    mr.write(b"a-to-b via SRQ.." + b"b-to-a via RQ...", 32)
    for src, dst, offset in ((a, b, 0), (b, a, 16)):
        wr = SendWR(wr_id=3, opcode=e.IBV_WR_SEND, num_sge=1,
                    sg=[SGE(mr.buf + offset, 16, mr.lkey)])
        wr.set_wr_ud(ah, dst.qp_num, QKEY)
        src.post_send(wr)
    poll(cq, 4)
    # a UD receive starts with the 40-byte GRH space
    check("b received", mr.read(16, 2048 + 40), b"a-to-b via SRQ..")
    check("a received", mr.read(16, 1024 + 40), b"b-to-a via RQ...")
    for obj in (a, b, srq, ah, mr, cq):
        obj.close()


def main(device):
    ctx = Context(name=device)
    pd = PD(ctx)

    allocator = Allocator()
    parent = parent_domain(ctx, pd, allocator)
    exchange(ctx, pd, parent)
    check("resource types", sorted(set(t for _, _, t in allocator.allocs)),
          [RES_CQ, RES_SQ, RES_RQ, RES_SRQ])
    check("page aligned", all(a == PAGE and s % PAGE == 0
                              for s, a, _ in allocator.allocs), True)
    check("rings in the allocator's memory", len(allocator.given),
          len(allocator.allocs))
    check("every buffer freed with its type",
          sorted(allocator.frees),
          sorted((p, t) for p, (_, _, t) in allocator.given.items()))
    parent.close()

    default = Allocator(use_default=True)
    parent = parent_domain(ctx, pd, default)
    exchange(ctx, pd, parent)
    check("default: asked", len(default.allocs) >= 4, True)
    check("default: nothing to free", default.frees, [])
    parent.close()

    pd.close()
    ctx.close()
    print("parent_domain: ok")


if __name__ == "__main__":
    main(sys.argv[1])
