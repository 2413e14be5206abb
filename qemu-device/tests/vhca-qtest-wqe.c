/*
 * vhca qtest library: the data path's work requests (vhca-qtest-dp.h):
 * WQEs built and posted to a QP's rings, the common operations on them
 * (SEND, RDMA WRITE, atomics, REG_MR, UD sends), and the buffers they move.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "vhca-qtest-dp.h"

void dp_wqe(DpWqe *w, uint64_t wr_id, uint8_t opcode, uint8_t flags)
{
    struct vhca_wqe_ctrl *c = (void *)w->b;

    memset(w, 0, sizeof(*w));
    c->wr_id = cpu_to_le64(wr_id);
    c->opcode = opcode;
    c->flags = flags;
    w->off = sizeof(*c);
}

void dp_wqe_raddr(DpWqe *w, uint64_t addr, uint32_t rkey)
{
    struct vhca_wqe_raddr *r = (void *)(w->b + w->off);

    r->remote_addr = cpu_to_le64(addr);
    r->rkey = cpu_to_le32(rkey);
    w->off += sizeof(*r);
}

void dp_wqe_flush(DpWqe *w, uint64_t raddr, uint32_t rkey, uint32_t len,
                  uint8_t type, uint8_t level)
{
    struct vhca_wqe_flush *f = (void *)(w->b + w->off);

    f->remote_addr = cpu_to_le64(raddr);
    f->rkey = cpu_to_le32(rkey);
    f->length = cpu_to_le32(len);
    f->type = type;
    f->level = level;
    w->off += sizeof(*f);
}

void dp_wqe_atomic(DpWqe *w, uint64_t raddr, uint32_t rkey,
                   uint64_t compare_add, uint64_t swap)
{
    struct vhca_wqe_atomic *at = (void *)(w->b + w->off);

    at->remote_addr = cpu_to_le64(raddr);
    at->rkey = cpu_to_le32(rkey);
    at->compare_add = cpu_to_le64(compare_add);
    at->swap = cpu_to_le64(swap);
    w->off += sizeof(*at);
}

void dp_wqe_sge(DpWqe *w, uint64_t addr, uint32_t len, uint32_t lkey)
{
    struct vhca_wqe_ctrl *c = (void *)w->b;
    struct vhca_sge *s = (void *)(w->b + w->off);

    s->addr = cpu_to_le64(addr);
    s->length = cpu_to_le32(len);
    s->lkey = cpu_to_le32(lkey);
    c->num_sge++;
    w->off += sizeof(*s);
}

/* Write a send WQE without ringing the doorbell. */
void dp_put_send(Dp *dp, DpQp *qp, const DpWqe *w)
{
    uint64_t off = (uint64_t)(qp->sq_pi & ((1u << qp->sq_log) - 1))
                   << DP_SQ_SHIFT;
    uint64_t slot = qp->sq_pages[0] ? qp->sq_pages[off >> 12] + (off & 4095)
                                    : qp->sq + off;

    qtest_memwrite(dp->v->qts, slot, w->b, sizeof(w->b));
    qp->sq_pi++;
}

void dp_post_send(Dp *dp, DpQp *qp, const DpWqe *w)
{
    dp_put_send(dp, qp, w);
    dp_db64(dp->v, 0, VHCA_DB_SQ, vhca_db_data_value(qp->h, 0, qp->sq_pi));
}

/* A receive WQE with up to two SGEs (len2 0: one). */
void dp_post_recv(Dp *dp, DpQp *qp, uint64_t wr_id, uint64_t addr,
                  uint32_t len, uint32_t lkey, uint64_t addr2,
                  uint32_t len2)
{
    uint8_t b[1u << DP_RQ_SHIFT] = { 0 };
    struct vhca_rwqe_hdr *h = (void *)b;
    struct vhca_sge *s = (void *)(b + sizeof(*h));
    uint64_t slot = qp->rq + ((uint64_t)(qp->rq_pi & ((1u << DP_WQ_LOG) - 1))
                              << DP_RQ_SHIFT);

    h->wr_id = cpu_to_le64(wr_id);
    h->num_sge = len2 ? 2 : 1;
    s[0].addr = cpu_to_le64(addr);
    s[0].length = cpu_to_le32(len);
    s[0].lkey = cpu_to_le32(lkey);
    s[1].addr = cpu_to_le64(addr2);
    s[1].length = cpu_to_le32(len2);
    s[1].lkey = cpu_to_le32(lkey);
    qtest_memwrite(dp->v->qts, slot, b, sizeof(b));
    qp->rq_pi++;
    if (qp->rq_dbrec) {
        /* vhca_hw_verbs.h "Receive doorbell records": no MMIO access */
        qtest_writel(dp->v->qts, qp->rq_dbrec, qp->rq_pi);
        return;
    }
    dp_db64(dp->v, 0, VHCA_DB_RQ, vhca_db_data_value(qp->h, 0, qp->rq_pi));
}

void dp_fill(Dp *dp, uint64_t addr, uint32_t len, uint8_t seed)
{
    g_autofree uint8_t *b = g_malloc(len);
    uint32_t i;

    for (i = 0; i < len; i++) {
        b[i] = seed + i * 7;
    }
    qtest_memwrite(dp->v->qts, addr, b, len);
}

void dp_assert_same(Dp *dp, uint64_t a, uint64_t b, uint32_t len)
{
    g_autofree uint8_t *x = g_malloc(len);
    g_autofree uint8_t *y = g_malloc(len);

    qtest_memread(dp->v->qts, a, x, len);
    qtest_memread(dp->v->qts, b, y, len);
    g_assert_cmpint(memcmp(x, y, len), ==, 0);
}

/* Build a REG_MR WQE binding key to 2 pages (in reverse order) at iova. */
void dp_wqe_reg_mr(Dp *dp, DpWqe *w, uint64_t wr_id, uint32_t key,
                   uint64_t iova, uint64_t pages[2], uint32_t access)
{
    struct vhca_wqe_reg_mr *r;
    uint64_t list = dp_alloc(dp, 4096);
    uint64_t raw[2] = { cpu_to_le64(pages[1]), cpu_to_le64(pages[0]) };

    qtest_memwrite(dp->v->qts, list, raw, sizeof(raw));
    dp_wqe(w, wr_id, VHCA_WQE_REG_MR, VHCA_WQE_F_SIGNALED);
    r = (void *)(w->b + w->off);
    r->key = cpu_to_le32(key);
    r->access = cpu_to_le32(access);
    r->iova = cpu_to_le64(iova);
    r->length = cpu_to_le64(8192);
    r->pages.addr = cpu_to_le64(list);
    r->pages.npages = cpu_to_le32(2);
    r->pages.page_shift = 12;
    r->pages.mode = VHCA_BUF_DIRECT;
    w->off += sizeof(*r);
}

/* A REG_MR WQE binding key to 2 pages (in reverse order) at iova. */
void dp_reg_mr(Dp *dp, DpQp *qp, uint64_t wr_id, uint32_t key,
               uint64_t iova, uint64_t pages[2], uint32_t access)
{
    DpWqe w;

    dp_wqe_reg_mr(dp, &w, wr_id, key, iova, pages, access);
    dp_post_send(dp, qp, &w);
}

void dp_write(Dp *dp, DpQp *qp, uint64_t wr_id, uint64_t raddr,
              uint32_t rkey, uint64_t laddr, uint32_t len,
              uint32_t lkey)
{
    DpWqe w;

    dp_wqe(&w, wr_id, VHCA_WQE_RDMA_WRITE, VHCA_WQE_F_SIGNALED);
    dp_wqe_raddr(&w, raddr, rkey);
    dp_wqe_sge(&w, laddr, len, lkey);
    dp_post_send(dp, qp, &w);
}

void dp_atomic(Dp *dp, DpQp *qp, uint64_t wr_id, uint8_t opcode,
               uint64_t raddr, uint32_t rkey, uint64_t compare_add,
               uint64_t swap, uint64_t laddr, uint32_t lkey)
{
    DpWqe w;

    dp_wqe(&w, wr_id, opcode, VHCA_WQE_F_SIGNALED);
    dp_wqe_atomic(&w, raddr, rkey, compare_add, swap);
    dp_wqe_sge(&w, laddr, 8, lkey);
    dp_post_send(dp, qp, &w);
}

void dp_send(Dp *dp, DpQp *qp, uint64_t wr_id, uint8_t opcode,
             uint8_t flags, uint64_t addr, uint32_t len, uint32_t lkey)
{
    DpWqe w;

    dp_wqe(&w, wr_id, opcode, flags);
    dp_wqe_sge(&w, addr, len, lkey);
    dp_post_send(dp, qp, &w);
}

void dp_ud_send(Dp *dp, DpQp *qp, uint64_t wr_id, uint16_t dlid,
                uint32_t qpn, uint32_t qkey, bool grh, uint64_t addr,
                uint32_t len, uint32_t lkey)
{
    struct vhca_wqe_ud *ud;
    DpWqe w;

    dp_wqe(&w, wr_id, VHCA_WQE_SEND, VHCA_WQE_F_SIGNALED);
    ud = (void *)(w.b + w.off);
    ud->av.dlid = cpu_to_le16(dlid);
    ud->av.port = 1;
    ud->av.flags = grh ? VHCA_AV_F_GRH : 0;
    ud->av.hop_limit = 64;
    memset(ud->av.dgid, 0xdd, 16);
    ud->remote_qpn = cpu_to_le32(qpn);
    ud->remote_qkey = cpu_to_le32(qkey);
    w.off += sizeof(*ud);
    dp_wqe_sge(&w, addr, len, lkey);
    dp_post_send(dp, qp, &w);
}
