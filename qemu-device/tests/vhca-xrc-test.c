/*
 * QTest testcase for vhca: XRC (IBA A14).  XRC domains; XRC SRQs (in a
 * domain, with their own CQ); an XRC initiator QP on port 1 connected to
 * an XRC target QP on port 2.  SENDs name the remote SRQ in the control
 * segment: the receive comes from that SRQ and completes into its CQ
 * (VHCA_CQE_F_XRC, srqn); RDMA and atomics at the target are checked
 * against the SRQ's PD.  Refused: bad domains, CQs and flags at creation,
 * receive queues on XRC QPs, a domain or CQ still in use, and a request
 * naming an SRQ of another domain (NAK invalid request, IBA A14.4.1.1).
 * An ODP receive buffer's page fault at the target is an RNR NAK.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "vhca-qtest-dp.h"

static uint8_t xrc_srq(Dp *dp, DpSrq *srq, uint8_t flags, uint32_t xrcdn,
                       uint32_t cqn)
{
    struct vhca_cmd_create_srq in;

    dp_srq_in(dp, srq, &in, dp->pd, DP_RQ_SHIFT);
    in.flags = flags;
    in.xrcdn = cpu_to_le32(xrcdn);
    in.cqn = cpu_to_le32(cqn);
    return dp_srq_exec(dp, srq, &in);
}

/* An XRC QP: the initiator with a send queue on cq, the target in xrcdn. */
static uint8_t xrc_qp(Dp *dp, DpQp *qp, uint8_t type, DpCq *cq,
                      uint32_t xrcdn, uint8_t rq_log, uint8_t flags)
{
    struct vhca_cmd_create_qp in;
    uint32_t result[2] = { 0 };
    uint8_t status;

    memset(qp, 0, sizeof(*qp));
    qp->type = type;
    qp->scq = qp->rcq = cq;
    qp->sq_log = DP_WQ_LOG;
    memset(&in, 0, sizeof(in));
    in.type = type;
    in.flags = flags;
    in.rq_log_size = rq_log;
    in.xrcdn = cpu_to_le32(xrcdn);
    if (type == VHCA_QPT_XRC_INI) {
        qp->sq = dp_alloc(dp, 1u << (DP_WQ_LOG + DP_SQ_SHIFT));
        in.sq_log_size = DP_WQ_LOG;
        in.sq_wqe_shift = DP_SQ_SHIFT;
        in.pdn = cpu_to_le32(dp->pd);
        in.send_cqn = cpu_to_le32(cq->cqn);
        dp_buf_contig(&in.sq_buf, qp->sq, 1u << (DP_WQ_LOG + DP_SQ_SHIFT));
    }
    status = dp_exec_in(dp, VHCA_CMD_CREATE_QP, 0, &in, sizeof(in), result);
    qp->h = result[0];
    return status;
}

static uint32_t xrc_alloc_xrcd(Dp *dp)
{
    uint32_t result[2];

    g_assert_cmpuint(dp_simple(dp, VHCA_CMD_ALLOC_XRCD, 0, result), ==,
                     VHCA_CMD_OK);
    g_assert_cmpuint(result[0], !=, 0);
    return result[0];
}

/* A WQE on the initiator naming the remote XRC SRQ srqn. */
static void xrc_post(Dp *dp, DpQp *ini, DpWqe *w, uint32_t srqn)
{
    struct vhca_wqe_ctrl *c = (void *)w->b;

    c->xrc_srqn = cpu_to_le32(srqn);
    dp_post_send(dp, ini, w);
}

typedef struct Xrc {
    Dp *dp;
    DpMem m;
    uint32_t x1, x2;        /* two domains */
    DpCq icq, scq1, scq2;   /* initiator's, SRQ 1's, SRQ 2's */
    DpSrq srq1, srq2;       /* srq1 in x1, srq2 in x2 */
    DpQp ini, tgt;          /* ini port 1 -> tgt port 2, tgt in x1 */
} Xrc;

static void xrc_setup(Xrc *x)
{
    Dp *dp = x->dp = dp_start();

    dp_mem(dp, &x->m, DP_ALL_ACCESS);
    dp_fill(dp, x->m.a, 4096, 23);
    x->x1 = xrc_alloc_xrcd(dp);
    x->x2 = xrc_alloc_xrcd(dp);
    dp_create_cq(dp, &x->icq, DP_CQ_LOG);
    dp_create_cq(dp, &x->scq1, DP_CQ_LOG);
    dp_create_cq(dp, &x->scq2, DP_CQ_LOG);
    g_assert_cmpuint(xrc_srq(dp, &x->srq1, VHCA_SRQ_F_XRC, x->x1,
                             x->scq1.cqn), ==, VHCA_CMD_OK);
    g_assert_cmpuint(xrc_srq(dp, &x->srq2, VHCA_SRQ_F_XRC, x->x2,
                             x->scq2.cqn), ==, VHCA_CMD_OK);
    g_assert_cmpuint(xrc_qp(dp, &x->ini, VHCA_QPT_XRC_INI, &x->icq, 0, 0, 0),
                     ==, VHCA_CMD_OK);
    g_assert_cmpuint(xrc_qp(dp, &x->tgt, VHCA_QPT_XRC_TGT, NULL, x->x1, 0, 0),
                     ==, VHCA_CMD_OK);
    /* The initiator needs no responder attributes into RTR, the target no
     * retry counts into RTS (IBA A14.2.2). */
    g_assert_cmpuint(dp_to_init(dp, &x->ini, 1, 0), ==, VHCA_CMD_OK);
    g_assert_cmpuint(dp_to_init(dp, &x->tgt, 2, DP_ALL_ACCESS), ==,
                     VHCA_CMD_OK);
    g_assert_cmpuint(dp_to_rtr(dp, &x->ini, dp->lid[2], x->tgt.h, 0), ==,
                     VHCA_CMD_OK);
    g_assert_cmpuint(dp_to_rtr(dp, &x->tgt, dp->lid[1], x->ini.h, 1), ==,
                     VHCA_CMD_OK);
    g_assert_cmpuint(dp_to_rts(dp, &x->ini, 7), ==, VHCA_CMD_OK);
    g_assert_cmpuint(dp_to_rts(dp, &x->tgt, 7), ==, VHCA_CMD_OK);
}

static void test_xrc_commands(void)
{
    Dp *dp = dp_start();
    uint32_t x = xrc_alloc_xrcd(dp);
    DpSrq srq;
    DpQp qp;
    DpCq cq;

    dp_create_cq(dp, &cq, DP_CQ_LOG);
    g_assert_cmpuint(dp_simple(dp, VHCA_CMD_DEALLOC_XRCD, 0, NULL), ==,
                     VHCA_CMD_BAD_HANDLE);
    g_assert_cmpuint(dp_simple(dp, VHCA_CMD_DEALLOC_XRCD, x + 1, NULL), ==,
                     VHCA_CMD_BAD_HANDLE);
    /* XRC SRQs: a domain and a CQ that exist, known flags. */
    g_assert_cmpuint(xrc_srq(dp, &srq, VHCA_SRQ_F_XRC, x + 1, cq.cqn), ==,
                     VHCA_CMD_BAD_HANDLE);
    g_assert_cmpuint(xrc_srq(dp, &srq, VHCA_SRQ_F_XRC, 0, cq.cqn), ==,
                     VHCA_CMD_BAD_HANDLE);
    g_assert_cmpuint(xrc_srq(dp, &srq, VHCA_SRQ_F_XRC, x, cq.cqn + 7), ==,
                     VHCA_CMD_BAD_HANDLE);
    g_assert_cmpuint(xrc_srq(dp, &srq, 0x80, x, cq.cqn), ==,
                     VHCA_CMD_BAD_PARAM);
    /* XRC QPs: no receive queue or SRQ; the target's domain exists. */
    g_assert_cmpuint(xrc_qp(dp, &qp, VHCA_QPT_XRC_INI, &cq, 0, 1, 0), ==,
                     VHCA_CMD_BAD_PARAM);
    g_assert_cmpuint(xrc_qp(dp, &qp, VHCA_QPT_XRC_INI, &cq, 0, 0,
                            VHCA_QP_F_HAS_SRQ), ==, VHCA_CMD_BAD_PARAM);
    g_assert_cmpuint(xrc_qp(dp, &qp, VHCA_QPT_XRC_TGT, NULL, x + 1, 0, 0), ==,
                     VHCA_CMD_BAD_HANDLE);
    g_assert_cmpuint(xrc_qp(dp, &qp, VHCA_QPT_XRC_TGT + 1, NULL, x, 0, 0), ==,
                     VHCA_CMD_BAD_PARAM);
    /* In use: the domain by its SRQ and target QP, the CQ by the SRQ. */
    g_assert_cmpuint(xrc_srq(dp, &srq, VHCA_SRQ_F_XRC, x, cq.cqn), ==,
                     VHCA_CMD_OK);
    g_assert_cmpuint(xrc_qp(dp, &qp, VHCA_QPT_XRC_TGT, NULL, x, 0, 0), ==,
                     VHCA_CMD_OK);
    g_assert_cmpuint(dp_simple(dp, VHCA_CMD_DEALLOC_XRCD, x, NULL), ==,
                     VHCA_CMD_BUSY);
    g_assert_cmpuint(dp_simple(dp, VHCA_CMD_DESTROY_SRQ, srq.srqn, NULL), ==,
                     VHCA_CMD_OK);
    g_assert_cmpuint(dp_simple(dp, VHCA_CMD_DESTROY_CQ, cq.cqn, NULL), ==,
                     VHCA_CMD_OK);
    g_assert_cmpuint(dp_simple(dp, VHCA_CMD_DEALLOC_XRCD, x, NULL), ==,
                     VHCA_CMD_BUSY);
    /* A target has no queues: its doorbells are ignored. */
    dp_db64(dp->v, 0, VHCA_DB_SQ, vhca_db_data_value(qp.h, 0, 1));
    dp_db64(dp->v, 0, VHCA_DB_RQ, vhca_db_data_value(qp.h, 0, 1));
    g_assert_cmpuint(dp_simple(dp, VHCA_CMD_DESTROY_QP, qp.h, NULL), ==,
                     VHCA_CMD_OK);
    g_assert_cmpuint(dp_simple(dp, VHCA_CMD_DEALLOC_XRCD, x, NULL), ==,
                     VHCA_CMD_OK);
    g_assert_cmpuint(dp_simple(dp, VHCA_CMD_DEALLOC_XRCD, x, NULL), ==,
                     VHCA_CMD_BAD_HANDLE);
    dp_stop(dp);
}

static void test_xrc_traffic(void)
{
    struct vhca_cqe cqe;
    uint64_t orig;
    DpWqe w;
    Xrc x;

    xrc_setup(&x);
    dp_srq_post(x.dp, &x.srq1, 0x61, x.m.b, 4096, x.m.bkey);

    /* SEND (3 packets at MTU 1024) into SRQ 1, completing into its CQ. */
    dp_wqe(&w, 1, VHCA_WQE_SEND, VHCA_WQE_F_SIGNALED);
    dp_wqe_sge(&w, x.m.a, 3000, x.m.akey);
    xrc_post(x.dp, &x.ini, &w, x.srq1.srqn);
    dp_expect_cqe(x.dp, &x.icq, &cqe, VHCA_WC_SUCCESS);
    g_assert_cmphex(le32_to_cpu(cqe.qpn), ==, x.ini.h);
    dp_expect_cqe(x.dp, &x.scq1, &cqe, VHCA_WC_SUCCESS);
    g_assert_cmphex(le64_to_cpu(cqe.wr_id), ==, 0x61);
    g_assert_cmphex(le32_to_cpu(cqe.qpn), ==, x.tgt.h);
    g_assert_cmpuint(cqe.flags & VHCA_CQE_F_XRC, ==, VHCA_CQE_F_XRC);
    g_assert_cmpuint(le32_to_cpu(cqe.srqn), ==, x.srq1.srqn);
    g_assert_cmpuint(le32_to_cpu(cqe.byte_len), ==, 3000);
    dp_assert_same(x.dp, x.m.a, x.m.b, 3000);
    dp_expect_no_cqe(x.dp, &x.scq2);

    /* RDMA WRITE and FETCH_ADD at the target, through SRQ 1's PD. */
    dp_wqe(&w, 2, VHCA_WQE_RDMA_WRITE, VHCA_WQE_F_SIGNALED);
    dp_wqe_raddr(&w, x.m.b + 8192, x.m.bkey);
    dp_wqe_sge(&w, x.m.a + 100, 500, x.m.akey);
    xrc_post(x.dp, &x.ini, &w, x.srq1.srqn);
    dp_expect_cqe(x.dp, &x.icq, &cqe, VHCA_WC_SUCCESS);
    dp_assert_same(x.dp, x.m.a + 100, x.m.b + 8192, 500);
    orig = 40;
    qtest_memwrite(x.dp->v->qts, x.m.b + 12288, &orig, 8);
    dp_wqe(&w, 3, VHCA_WQE_ATOMIC_FETCH_AND_ADD, VHCA_WQE_F_SIGNALED);
    dp_wqe_atomic(&w, x.m.b + 12288, x.m.bkey, 2, 0);
    dp_wqe_sge(&w, x.m.a + 4096, 8, x.m.akey);
    xrc_post(x.dp, &x.ini, &w, x.srq1.srqn);
    dp_expect_cqe(x.dp, &x.icq, &cqe, VHCA_WC_SUCCESS);
    qtest_memread(x.dp->v->qts, x.m.a + 4096, &orig, 8);
    g_assert_cmpuint(le64_to_cpu(orig), ==, 40);
    qtest_memread(x.dp->v->qts, x.m.b + 12288, &orig, 8);
    g_assert_cmpuint(le64_to_cpu(orig), ==, 42);
    dp_expect_no_cqe(x.dp, &x.scq1);
    dp_stop(x.dp);
}

/* IBA A14.4.1.1: an SRQ of another domain is an invalid request. */
static void test_xrc_wrong_domain(void)
{
    struct vhca_cqe cqe;
    DpWqe w;
    Xrc x;

    xrc_setup(&x);
    dp_srq_post(x.dp, &x.srq2, 0x71, x.m.b, 2048, x.m.bkey);
    dp_wqe(&w, 1, VHCA_WQE_SEND, VHCA_WQE_F_SIGNALED);
    dp_wqe_sge(&w, x.m.a, 64, x.m.akey);
    xrc_post(x.dp, &x.ini, &w, x.srq2.srqn);
    dp_expect_cqe(x.dp, &x.icq, &cqe, VHCA_WC_REM_INV_REQ_ERR);
    dp_expect_no_cqe(x.dp, &x.scq2);
    dp_assert_state(x.dp, &x.tgt, VHCA_QPS_ERR);
    dp_assert_state(x.dp, &x.ini, VHCA_QPS_ERR);
    g_assert_true(dp_take_event(x.dp, VHCA_EQE_QP_EVENT, VHCA_QP_EV_REQ_ERR,
                                x.tgt.h));
    dp_stop(x.dp);
}

/* ODP_MAP of one page at page into entry 0 of the ODP region key. */
static uint8_t xrc_odp_map(Dp *dp, uint32_t key, uint64_t page)
{
    struct vhca_cmd_odp_range_in *r;
    struct vhca_cmd cmd;
    uint64_t le = cpu_to_le64(page);

    cmd_init(dp->v, &cmd, VHCA_CMD_ODP_MAP);
    r = (void *)cmd.in.raw;
    r->key = cpu_to_le32(key);
    r->npages = cpu_to_le32(1);
    qtest_memwrite(dp->v->qts, dp->v->buf, &le, 8);
    cmd.in_addr = cpu_to_le64(dp->v->buf);
    cmd.in_len = cpu_to_le32(8);
    return dp_exec(dp, &cmd, NULL);
}

/*
 * An XRC target is a reliable responder (IBA A14): a SEND whose XRC SRQ
 * receive buffer is on an absent page of an ODP region faults
 * (uapi/vhca_hw_odp.h) and is answered RNR as on RC, not acknowledged and
 * dropped as on UC; once the page is mapped and the target resumed, the
 * initiator's retry lands in the SRQ.
 */
static void test_xrc_odp_receive(void)
{
    const uint64_t iova = 0x7f0000000000ull;
    struct vhca_cmd_create_mr in;
    struct vhca_cqe cqe;
    uint64_t page;
    uint32_t key;
    DpWqe w;
    Xrc x;

    xrc_setup(&x);
    dp_mr_desc(&in, x.dp->pd, iova, 4096, 0, 1, VHCA_BUF_DIRECT);
    in.access = cpu_to_le32(VHCA_ACCESS_LOCAL_WRITE);
    in.flags = VHCA_MR_F_ODP;
    g_assert_cmpuint(dp_create_mr_in(x.dp, &in, &key), ==, VHCA_CMD_OK);
    dp_srq_post(x.dp, &x.srq1, 0x81, iova + 64, 1024, key);
    dp_wqe(&w, 1, VHCA_WQE_SEND, VHCA_WQE_F_SIGNALED);
    dp_wqe_sge(&w, x.m.a, 300, x.m.akey);
    xrc_post(x.dp, &x.ini, &w, x.srq1.srqn);
    g_assert_true(dp_take_event(x.dp, VHCA_EQE_PAGE_FAULT, VHCA_PF_RESPONDER,
                                x.tgt.h));
    dp_expect_no_cqe(x.dp, &x.icq);     /* waiting on the RNR NAK */
    dp_expect_no_cqe(x.dp, &x.scq1);

    page = dp_alloc(x.dp, 4096);
    g_assert_cmpuint(xrc_odp_map(x.dp, key, page), ==, VHCA_CMD_OK);
    g_assert_cmpuint(dp_simple(x.dp, VHCA_CMD_ODP_RESUME, x.tgt.h, NULL), ==,
                     VHCA_CMD_OK);
    dp_step_cqe(x.dp, &x.icq, &cqe, 10000, 100,     /* min_rnr_timer 1: 10 us */
                VHCA_WC_SUCCESS);
    dp_expect_cqe(x.dp, &x.scq1, &cqe, VHCA_WC_SUCCESS);
    g_assert_cmphex(le64_to_cpu(cqe.wr_id), ==, 0x81);
    g_assert_cmpuint(le32_to_cpu(cqe.byte_len), ==, 300);
    dp_assert_same(x.dp, x.m.a, page + 64, 300);
    dp_stop(x.dp);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    qtest_add_func("/vhca/dp/xrc-commands", test_xrc_commands);
    qtest_add_func("/vhca/dp/xrc-traffic", test_xrc_traffic);
    qtest_add_func("/vhca/dp/xrc-wrong-domain", test_xrc_wrong_domain);
    qtest_add_func("/vhca/dp/xrc-odp-receive", test_xrc_odp_receive);
    return g_test_run();
}
