/*
 * QTest testcase for vhca: fast registration, invalidation, special QPs,
 * rings in page lists and long send queues.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "vhca-qtest-dp.h"

/*
 * A's RDMA WRITE of len bytes from m->a to addr through key is refused:
 * REM_ACCESS_ERR for A, and B's QP reports the access violation (the
 * affiliated asynchronous error of IBA 11.6.3).
 */
static void memops_write_refused(Dp *dp, DpPair *p, const DpMem *m,
                                 uint64_t wr_id, uint64_t addr, uint32_t key,
                                 uint32_t len)
{
    struct vhca_cqe cqe;

    dp_write(dp, &p->a, wr_id, addr, key, m->a, len, m->akey);
    dp_expect_cqe(dp, &p->acq, &cqe, VHCA_WC_REM_ACCESS_ERR);
    g_assert_true(dp_take_event(dp, VHCA_EQE_QP_EVENT, VHCA_QP_EV_ACCESS_ERR,
                                p->b.h));
}

static void test_dp_frwr(void)
{
    Dp *dp = dp_start();
    uint64_t pages[2], iova = 0x5000000;
    uint32_t access = VHCA_ACCESS_LOCAL_WRITE | VHCA_ACCESS_REMOTE_WRITE;
    uint32_t key, key2;
    struct vhca_wqe_ctrl *c;
    struct vhca_cqe cqe;
    DpPair p;
    DpMem m;
    DpWqe w;

    dp_mem(dp, &m, DP_ALL_ACCESS);
    dp_fill(dp, m.a, 8192, 5);
    pages[0] = dp_alloc(dp, 4096);
    pages[1] = dp_alloc(dp, 4096);
    key = dp_alloc_mr(dp, 0x10);

    /* Not bound yet: an RDMA WRITE through it is refused. */
    dp_pair(dp, &p, VHCA_QPT_RC, DP_ALL_ACCESS, 7);
    memops_write_refused(dp, &p, &m, 1, iova, key, 16);

    /* REG_MR on B with a new variant, then A writes through it. */
    dp_pair(dp, &p, VHCA_QPT_RC, DP_ALL_ACCESS, 7);
    key2 = (key & ~0xffu) | 0x11;
    dp_reg_mr(dp, &p.b, 0xb1, key2, iova, pages, access);
    dp_expect_cqe(dp, &p.bcq, &cqe, VHCA_WC_SUCCESS);
    g_assert_cmpuint(cqe.opcode, ==, VHCA_CQE_REG_MR);
    dp_write(dp, &p.a, 2, iova + 4000, key2, m.a, 200, m.akey);
    dp_expect_cqe(dp, &p.acq, &cqe, VHCA_WC_SUCCESS);
    dp_assert_same(dp, m.a, pages[1] + 4000, 96);
    dp_assert_same(dp, m.a + 96, pages[0], 104);
    /* Registering a bound region again fails. */
    dp_reg_mr(dp, &p.b, 0xb2, key2, iova, pages, access);
    dp_expect_cqe(dp, &p.bcq, &cqe, VHCA_WC_LOC_PROT_ERR);

    /* LOCAL_INV: the old key stops working. */
    dp_pair(dp, &p, VHCA_QPT_RC, DP_ALL_ACCESS, 7);
    dp_wqe(&w, 0xb3, VHCA_WQE_LOCAL_INV, VHCA_WQE_F_SIGNALED);
    c = (void *)w.b;
    c->imm_inv = cpu_to_le32(key2);
    dp_post_send(dp, &p.b, &w);
    dp_expect_cqe(dp, &p.bcq, &cqe, VHCA_WC_SUCCESS);
    g_assert_cmpuint(cqe.opcode, ==, VHCA_CQE_LOCAL_INV);
    memops_write_refused(dp, &p, &m, 3, iova, key2, 16);

    /* SEND_WITH_INV invalidates the responder's key. */
    dp_pair(dp, &p, VHCA_QPT_RC, DP_ALL_ACCESS, 7);
    key2 = (key & ~0xffu) | 0x12;
    dp_reg_mr(dp, &p.b, 0xb4, key2, iova, pages, access);
    dp_expect_cqe(dp, &p.bcq, &cqe, VHCA_WC_SUCCESS);
    dp_post_recv(dp, &p.b, 0xb5, m.b, 64, m.bkey, 0, 0);
    dp_wqe(&w, 4, VHCA_WQE_SEND_WITH_INV, VHCA_WQE_F_SIGNALED);
    c = (void *)w.b;
    c->imm_inv = cpu_to_le32(key2);
    dp_wqe_sge(&w, m.a, 32, m.akey);
    dp_post_send(dp, &p.a, &w);
    dp_expect_cqe(dp, &p.acq, &cqe, VHCA_WC_SUCCESS);
    dp_expect_cqe(dp, &p.bcq, &cqe, VHCA_WC_SUCCESS);
    g_assert_cmpuint(cqe.flags, ==, VHCA_CQE_F_INV);
    g_assert_cmphex(le32_to_cpu(cqe.imm_inv), ==, key2);
    memops_write_refused(dp, &p, &m, 5, iova, key2, 16);
    dp_stop(dp);
}

static uint8_t rereg(Dp *dp, uint32_t key, uint32_t pd, uint64_t addr,
                     uint32_t access)
{
    struct vhca_cmd_create_mr in;

    memset(&in, 0, sizeof(in));
    in.iova = cpu_to_le64(addr);
    in.length = cpu_to_le64(4096);
    in.pdn = cpu_to_le32(pd);
    in.access = cpu_to_le32(access);
    in.flags = VHCA_MR_F_PHYSICAL;
    in.key_variant = 0x77;      /* ignored: the key stays */
    return dp_exec_in(dp, VHCA_CMD_REREG_MR, key, &in, sizeof(in), NULL);
}

/* REREG_MR: a new translation, PD and access under the same key. */
static void test_dp_rereg_mr(void)
{
    Dp *dp = dp_start();
    uint32_t key, frwr, result[2];
    uint64_t old_buf, new_buf;
    struct vhca_cqe cqe;
    DpPair p;
    DpMem m;

    dp_mem(dp, &m, DP_ALL_ACCESS);
    dp_fill(dp, m.a, 64, 9);
    old_buf = dp_alloc(dp, 4096);
    new_buf = dp_alloc(dp, 4096);
    key = dp_mr_phys(dp, dp->pd, old_buf, 4096, VHCA_ACCESS_LOCAL_WRITE);
    dp_pair(dp, &p, VHCA_QPT_RC, DP_ALL_ACCESS, 7);
    memops_write_refused(dp, &p, &m, 1, old_buf, key, 64);

    g_assert_cmpuint(rereg(dp, key, dp->pd, new_buf, VHCA_ACCESS_LOCAL_WRITE |
                           VHCA_ACCESS_REMOTE_WRITE), ==, VHCA_CMD_OK);
    dp_pair(dp, &p, VHCA_QPT_RC, DP_ALL_ACCESS, 7);
    dp_write(dp, &p.a, 2, new_buf, key, m.a, 64, m.akey);
    dp_expect_cqe(dp, &p.acq, &cqe, VHCA_WC_SUCCESS);
    dp_assert_same(dp, m.a, new_buf, 64);
    memops_write_refused(dp, &p, &m, 3, old_buf, key, 64);  /* old range */

    /* Refused inputs change nothing: the key still writes new_buf. */
    g_assert_cmpuint(rereg(dp, key, 999, new_buf, VHCA_ACCESS_LOCAL_WRITE), ==,
                     VHCA_CMD_BAD_HANDLE);
    g_assert_cmpuint(rereg(dp, key, dp->pd, new_buf, VHCA_ACCESS_REMOTE_WRITE),
                     ==, VHCA_CMD_BAD_PARAM);
    g_assert_cmpuint(rereg(dp, key ^ 1, dp->pd, new_buf, 0), ==,
                     VHCA_CMD_BAD_HANDLE);
    frwr = dp_alloc_mr(dp, 0x20);
    g_assert_cmpuint(rereg(dp, frwr, dp->pd, new_buf, 0), ==,
                     VHCA_CMD_BAD_HANDLE);
    dp_pair(dp, &p, VHCA_QPT_RC, DP_ALL_ACCESS, 7);
    dp_write(dp, &p.a, 4, new_buf + 64, key, m.a, 64, m.akey);
    dp_expect_cqe(dp, &p.acq, &cqe, VHCA_WC_SUCCESS);

    /* Another PD: the QPs of the old one are refused. */
    g_assert_cmpuint(dp_simple(dp, VHCA_CMD_ALLOC_PD, 0, result), ==,
                     VHCA_CMD_OK);
    g_assert_cmpuint(rereg(dp, key, result[0], new_buf,
                           VHCA_ACCESS_LOCAL_WRITE | VHCA_ACCESS_REMOTE_WRITE),
                     ==, VHCA_CMD_OK);
    memops_write_refused(dp, &p, &m, 5, new_buf, key, 64);
    g_assert_cmpuint(dp_simple(dp, VHCA_CMD_DESTROY_MR, key, NULL), ==,
                     VHCA_CMD_OK);
    dp_stop(dp);
}

static void test_dp_special_qps(void)
{
    Dp *dp = dp_start();
    DpQp gsi1, gsi2, smi1, smi2;
    struct vhca_cqe cqe;
    DpCq cq1, cq2;
    DpMem m;

    dp_mem(dp, &m, DP_ALL_ACCESS);
    dp_fill(dp, m.a, 256, 11);
    dp_create_cq(dp, &cq1, DP_CQ_LOG);
    dp_create_cq(dp, &cq2, DP_CQ_LOG);
    dp_special(dp, &gsi1, &cq1, VHCA_QPT_GSI, 1);
    dp_special(dp, &gsi2, &cq2, VHCA_QPT_GSI, 2);
    dp_special(dp, &smi1, &cq1, VHCA_QPT_SMI, 1);
    dp_special(dp, &smi2, &cq2, VHCA_QPT_SMI, 2);

    /* A MAD from port 1's GSI to port 2's (QPN 1, the well-known Q_Key). */
    dp_post_recv(dp, &gsi2, 0x21, m.b, 40 + 256, m.bkey, 0, 0);
    dp_ud_send(dp, &gsi1, 0x11, dp->lid[2], 1, 0x80010000, false, m.a, 256,
               m.akey);
    dp_expect_cqe(dp, &cq1, &cqe, VHCA_WC_SUCCESS);
    g_assert_cmphex(le32_to_cpu(cqe.qpn), ==, gsi1.h);
    dp_expect_cqe(dp, &cq2, &cqe, VHCA_WC_SUCCESS);
    g_assert_cmphex(le64_to_cpu(cqe.wr_id), ==, 0x21);
    g_assert_cmphex(le32_to_cpu(cqe.qpn), ==, VHCA_SPECIAL_QP_HANDLE(2, 1));
    g_assert_cmpuint(le32_to_cpu(cqe.src_qp), ==, 1);
    g_assert_cmpuint(le16_to_cpu(cqe.slid), ==, dp->lid[1]);
    dp_assert_same(dp, m.a, m.b + 40, 256);

    /* SMPs between the SMIs; more than 256 bytes is a length error. */
    dp_post_recv(dp, &smi2, 0x22, m.b, 40 + 256, m.bkey, 0, 0);
    dp_ud_send(dp, &smi1, 0x12, dp->lid[2], 0, 0, false, m.a, 256, m.akey);
    dp_expect_cqe(dp, &cq1, &cqe, VHCA_WC_SUCCESS);
    dp_expect_cqe(dp, &cq2, &cqe, VHCA_WC_SUCCESS);
    g_assert_cmpuint(le32_to_cpu(cqe.src_qp), ==, 0);
    g_assert_cmphex(le32_to_cpu(cqe.qpn), ==, VHCA_SPECIAL_QP_HANDLE(2, 0));
    dp_ud_send(dp, &smi1, 0x13, dp->lid[2], 0, 0, false, m.a, 257, m.akey);
    dp_expect_cqe(dp, &cq1, &cqe, VHCA_WC_LOC_LEN_ERR);
    dp_assert_state(dp, &smi1, VHCA_QPS_SQE);
    /* SQE -> RTS recovers the send queue. */
    g_assert_cmpuint(dp_set_state(dp, &smi1, VHCA_QPS_RTS), ==, VHCA_CMD_OK);
    dp_post_recv(dp, &smi2, 0x23, m.b, 40 + 256, m.bkey, 0, 0);
    dp_ud_send(dp, &smi1, 0x14, dp->lid[2], 0, 0, false, m.a, 64, m.akey);
    dp_expect_cqe(dp, &cq1, &cqe, VHCA_WC_SUCCESS);
    dp_expect_cqe(dp, &cq2, &cqe, VHCA_WC_SUCCESS);
    dp_stop(dp);
}

/*
 * A CQ in a DIRECT page list, a send queue of 128 WQEs in an INDIRECT one,
 * and 100 WQEs behind one doorbell: the doorbell runs a batch, the
 * bottom half the rest.
 */
static void test_dp_paged_rings_batch(void)
{
    Dp *dp = dp_start();
    struct vhca_cmd_create_cq cin;
    struct vhca_cmd_create_qp qin;
    uint64_t list = dp_alloc(dp, 4096), ind = dp_alloc(dp, 4096);
    uint64_t raw[8], entry;
    uint32_t result[2], i;
    struct vhca_cqe cqe;
    DpPair p;
    DpMem m;
    DpWqe w;

    /* The CQ: 128 CQEs in two separately allocated pages. */
    memset(&p, 0, sizeof(p));
    p.acq.log = 7;
    p.acq.pages[0] = dp_alloc(dp, 4096);
    p.acq.pages[1] = dp_alloc(dp, 4096);
    p.acq.dbrec = dp_alloc(dp, 4096);
    raw[0] = cpu_to_le64(p.acq.pages[0]);
    raw[1] = cpu_to_le64(p.acq.pages[1]);
    qtest_memwrite(dp->v->qts, list, raw, 16);
    memset(&cin, 0, sizeof(cin));
    cin.buf.addr = cpu_to_le64(list);
    cin.buf.npages = cpu_to_le32(2);
    cin.buf.page_shift = 12;
    cin.buf.mode = VHCA_BUF_DIRECT;
    cin.dbrec_addr = cpu_to_le64(p.acq.dbrec);
    cin.eqn = cpu_to_le32(dp->eqn);
    cin.log_size = 7;
    g_assert_cmpuint(dp_exec_in(dp, VHCA_CMD_CREATE_CQ, 0, &cin, sizeof(cin),
                                result), ==, VHCA_CMD_OK);
    p.acq.cqn = result[0];
    dp_create_cq(dp, &p.bcq, DP_CQ_LOG);

    /* QP A: the send queue in 8 pages through an INDIRECT list. */
    memset(&p.a, 0, sizeof(p.a));
    p.a.type = VHCA_QPT_RC;
    p.a.sq_log = 7;
    list = dp_alloc(dp, 4096);
    for (i = 0; i < 8; i++) {
        p.a.sq_pages[i] = dp_alloc(dp, 4096);
        raw[i] = cpu_to_le64(p.a.sq_pages[i]);
    }
    qtest_memwrite(dp->v->qts, list, raw, sizeof(raw));
    entry = cpu_to_le64(list);
    qtest_memwrite(dp->v->qts, ind, &entry, 8);
    p.a.rq = dp_alloc(dp, 4096);
    memset(&qin, 0, sizeof(qin));
    qin.type = VHCA_QPT_RC;
    qin.sq_log_size = 7;
    qin.rq_log_size = 2;
    qin.sq_wqe_shift = DP_SQ_SHIFT;
    qin.rq_wqe_shift = DP_RQ_SHIFT;
    qin.pdn = cpu_to_le32(dp->pd);
    qin.send_cqn = cpu_to_le32(p.acq.cqn);
    qin.recv_cqn = cpu_to_le32(p.acq.cqn);
    qin.sq_buf.addr = cpu_to_le64(ind);
    qin.sq_buf.npages = cpu_to_le32(8);
    qin.sq_buf.page_shift = 12;
    qin.sq_buf.mode = VHCA_BUF_INDIRECT;
    dp_buf_contig(&qin.rq_buf, p.a.rq, 4096);
    g_assert_cmpuint(dp_exec_in(dp, VHCA_CMD_CREATE_QP, 0, &qin, sizeof(qin),
                                result), ==, VHCA_CMD_OK);
    p.a.h = result[0];
    dp_create_qp(dp, &p.b, VHCA_QPT_RC, &p.bcq, &p.bcq);
    dp_qps_to_rtr(dp, &p.a, 0, &p.b, DP_ALL_ACCESS);
    dp_qps_to_rts(dp, &p.a, &p.b, 7);
    dp_mem(dp, &m, DP_ALL_ACCESS);
    dp_fill(dp, m.a, 800, 13);

    /* 100 signaled 8-byte writes, one doorbell. */
    for (i = 0; i < 100; i++) {
        dp_wqe(&w, 1000 + i, VHCA_WQE_RDMA_WRITE, VHCA_WQE_F_SIGNALED);
        dp_wqe_raddr(&w, m.b + i * 8, m.bkey);
        dp_wqe_sge(&w, m.a + i * 8, 8, m.akey);
        dp_put_send(dp, &p.a, &w);
    }
    dp_db64(dp->v, 0, VHCA_DB_SQ, vhca_db_data_value(p.a.h, 0, p.a.sq_pi));
    for (i = 0; i < 100; i++) {
        int polls = 0;

        while (!dp_poll_cq(dp, &p.acq, &cqe)) {
            g_assert_cmpint(++polls, <, POLL_LIMIT);
        }
        g_assert_cmpuint(cqe.status, ==, VHCA_WC_SUCCESS);
        g_assert_cmphex(le64_to_cpu(cqe.wr_id), ==, 1000 + i);
        g_assert_cmpuint(le16_to_cpu(cqe.wqe_index), ==, i);
    }
    dp_assert_same(dp, m.a, m.b, 800);
    dp_stop(dp);
}

/* Malformed send WQEs: each a local QP operation error. */
static void test_dp_bad_wqes(void)
{
    Dp *dp = dp_start();
    struct vhca_wqe_ctrl *c;
    struct vhca_cqe cqe;
    DpPair p;
    DpMem m;
    DpWqe w;
    int i;

    dp_mem(dp, &m, DP_ALL_ACCESS);
    for (i = 0; i < 6; i++) {
        dp_pair(dp, &p, VHCA_QPT_RC, DP_ALL_ACCESS, 7);
        dp_wqe(&w, i, VHCA_WQE_SEND, VHCA_WQE_F_SIGNALED);
        c = (void *)w.b;
        switch (i) {
        case 0:         /* more SGEs than the stride holds */
            c->num_sge = 15;
            break;
        case 1:         /* inline beyond max_inline (128) */
            c->flags |= VHCA_WQE_F_INLINE;
            c->inline_len = cpu_to_le32(129);
            break;
        case 2:         /* unknown flags */
            c->flags |= 0x80;
            break;
        case 3:         /* atomic with a 4-byte local buffer */
            c->opcode = VHCA_WQE_ATOMIC_FETCH_AND_ADD;
            dp_wqe_atomic(&w, 0, 0, 0, 0);
            dp_wqe_sge(&w, m.a, 4, m.akey);
            break;
        case 4:         /* inline RDMA READ */
            c->opcode = VHCA_WQE_RDMA_READ;
            c->flags |= VHCA_WQE_F_INLINE;
            break;
        case 5:         /* REG_MR of a key that is no FRWR region */
            c->opcode = VHCA_WQE_REG_MR;
            break;
        }
        dp_post_send(dp, &p.a, &w);
        dp_expect_cqe(dp, &p.acq, &cqe, i == 5 ? VHCA_WC_LOC_PROT_ERR
                                               : VHCA_WC_LOC_QP_OP_ERR);
        g_assert_cmphex(le64_to_cpu(cqe.wr_id), ==, i);
        dp_assert_state(dp, &p.a, VHCA_QPS_ERR);
    }
    dp_stop(dp);
}

/* Two devices on one fabric: the responder is another PCI function. */
static void test_dp_two_devices(void)
{
    Dp *dp = g_new0(Dp, 1), *dw = g_new0(Dp, 1);
    struct vhca_cqe cqe;
    uint64_t abuf, bbuf;
    uint32_t akey, bkey;
    DpPair p;
    DpWqe w;

    dp->v = vhca_start(" -device vhca,id=vhca1,addr=05.0,ports=1,"
                       "node-guid=0x5254000000002000");
    dw->v = vhca_sibling(dp->v, QPCI_DEVFN(5, 0));
    dw->mem = dp->v;
    dp_setup(dp, 2);
    dp_setup(dw, 1);
    g_assert_cmpuint(dw->lid[1], !=, dp->lid[1]);
    g_assert_cmpuint(dw->lid[1], !=, dp->lid[2]);

    abuf = dp_alloc(dp, 16384);
    bbuf = dp_alloc(dw, 16384);
    akey = dp_mr_phys(dp, dp->pd, abuf, 16384, DP_ALL_ACCESS);
    bkey = dp_mr_phys(dw, dw->pd, bbuf, 16384, DP_ALL_ACCESS);
    dp_pair_devices(dp, dw, &p);
    dp_fill(dp, abuf, 8192, 21);
    dp_fill(dw, bbuf + 8192, 8192, 77);

    /* SEND from device 0 port 2 to device 1 port 1. */
    dp_post_recv(dw, &p.b, 0xb1, bbuf, 4096, bkey, 0, 0);
    dp_send(dp, &p.a, 1, VHCA_WQE_SEND, VHCA_WQE_F_SIGNALED, abuf, 3000, akey);
    dp_expect_cqe(dp, &p.acq, &cqe, VHCA_WC_SUCCESS);
    dp_expect_cqe(dw, &p.bcq, &cqe, VHCA_WC_SUCCESS);
    g_assert_cmpuint(le32_to_cpu(cqe.byte_len), ==, 3000);
    g_assert_cmpuint(le16_to_cpu(cqe.slid), ==, dp->lid[2]);
    dp_assert_same(dp, abuf, bbuf, 3000);
    /* RDMA READ the other way round. */
    dp_wqe(&w, 2, VHCA_WQE_RDMA_READ, VHCA_WQE_F_SIGNALED);
    dp_wqe_raddr(&w, bbuf + 8192, bkey);
    dp_wqe_sge(&w, abuf + 8192, 8192, akey);
    dp_post_send(dp, &p.a, &w);
    dp_expect_cqe(dp, &p.acq, &cqe, VHCA_WC_SUCCESS);
    dp_assert_same(dp, abuf + 8192, bbuf + 8192, 8192);
    /* The keys of one device mean nothing on the other. */
    akey = dp_mr_phys(dp, dp->pd, abuf, 16384, DP_ALL_ACCESS);
    dp_write(dp, &p.a, 3, bbuf, akey, abuf, 8, akey);
    dp_expect_cqe(dp, &p.acq, &cqe, VHCA_WC_REM_ACCESS_ERR);
    g_assert_true(dp_take_event(dw, VHCA_EQE_QP_EVENT, VHCA_QP_EV_ACCESS_ERR,
                                p.b.h));

    /*
     * A receive buffer (DMA lkey) aimed at the other device's SQ doorbell:
     * device 1's DMA would ring device 0's doorbell in the middle of device
     * 0's WQE, which runs inside device 0's doorbell MMIO handler.  QEMU's
     * re-entrancy guard refuses that access, so device 1 sees a DMA fault:
     * its receive fails (LOC_PROT_ERR, DMA_FAULT), the sender gets
     * REM_OP_ERR, and the WQE the write would have announced never runs.
     * (From the transport bottom half, where QEMU does not guard, the
     * device defers nested send queue runs itself: vhca_sq_depth.)
     */
    dp_create_qp(dw, &p.b, VHCA_QPT_RC, &p.bcq, &p.bcq);
    dp_create_qp(dp, &p.a, VHCA_QPT_RC, &p.acq, &p.acq);
    dp_pair_devices_connect(dp, dw, &p);
    qtest_writeq(dp->v->qts, abuf, vhca_db_data_value(p.a.h, 0, 2));
    dp_post_recv(dw, &p.b, 0xb9, dp->v->db.addr + VHCA_DB_SQ, 8,
                 VHCA_LOCAL_DMA_LKEY, 0, 0);
    dp_post_recv(dw, &p.b, 0xba, bbuf, 64, bkey, 0, 0);
    dp_wqe(&w, 11, VHCA_WQE_SEND, VHCA_WQE_F_SIGNALED);
    dp_wqe_sge(&w, abuf + 64, 16, akey);
    dp_put_send(dp, &p.a, &w);          /* WQE 1, announced by the DMA */
    p.a.sq_pi = 0;
    dp_send(dp, &p.a, 10, VHCA_WQE_SEND, VHCA_WQE_F_SIGNALED, abuf, 8, akey);
    dp_expect_cqe(dp, &p.acq, &cqe, VHCA_WC_REM_OP_ERR);
    g_assert_cmphex(le64_to_cpu(cqe.wr_id), ==, 10);
    dp_expect_no_cqe(dp, &p.acq);
    dp_expect_cqe(dw, &p.bcq, &cqe, VHCA_WC_LOC_PROT_ERR);
    g_assert_cmphex(le64_to_cpu(cqe.wr_id), ==, 0xb9);
    g_assert_cmpuint(cqe.vendor_err, ==, VHCA_VERR_DMA_FAULT);
    dp_expect_cqe(dw, &p.bcq, &cqe, VHCA_WC_WR_FLUSH_ERR);
    g_assert_cmphex(le64_to_cpu(cqe.wr_id), ==, 0xba);
    g_assert_cmpuint(rd(dp->v, VHCA_REG_STATUS), ==, VHCA_STATUS_ENABLED);

    g_assert_cmpint(dw->nevents, ==, 0);
    vhca_assert_alive(dw->v);
    vhca_sibling_free(dw->v);
    g_free(dw);
    dp_stop(dp);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    qtest_add_func("/vhca/dp/two-devices", test_dp_two_devices);
    qtest_add_func("/vhca/dp/frwr-local-inv-send-inv", test_dp_frwr);
    qtest_add_func("/vhca/dp/rereg-mr", test_dp_rereg_mr);
    qtest_add_func("/vhca/dp/special-qps", test_dp_special_qps);
    qtest_add_func("/vhca/dp/paged-rings-batch", test_dp_paged_rings_batch);
    qtest_add_func("/vhca/dp/bad-wqes", test_dp_bad_wqes);
    return g_test_run();
}
