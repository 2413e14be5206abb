/*
 * QTest testcase for vhca: tag matching SRQs (uapi/vhca_hw_tm.h): the
 * list operations and their refusals, eager matching, unexpected and
 * untagged messages, phase synchronization, and rendezvous READs.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "vhca-qtest-dp.h"

#define TM_TAGS         8
#define TM_OPS_LOG      4
#define TM_MASK         0xffffull

typedef struct TmSrq {
    DpSrq srq;
    uint64_t ops;
    uint32_t ops_pi;
} TmSrq;

typedef struct TmRig {
    Dp *dp;
    DpMem m;
    DpCq acq, bcq;
    DpQp a, b;
    TmSrq tm;
} TmRig;

static uint8_t tm_create_srq(Dp *dp, TmSrq *tm, uint32_t cqn, uint8_t flags,
                             uint32_t max_tags, uint32_t in_len)
{
    uint8_t in[VHCA_CMD_CREATE_SRQ_TM_LEN] = { 0 };
    struct vhca_cmd_create_srq *srq = (void *)in;
    struct vhca_cmd_create_srq_tm *t = (void *)(in + sizeof(*srq));
    uint32_t result[2] = { 0 };
    uint8_t status;

    dp_srq_in(dp, &tm->srq, srq, dp->pd, DP_RQ_SHIFT);
    srq->flags = flags;
    srq->cqn = cpu_to_le32(cqn);
    tm->ops = dp_alloc(dp, 1u << (TM_OPS_LOG + VHCA_TM_OP_SHIFT));
    tm->ops_pi = 0;
    dp_buf_contig(&t->ops_buf, tm->ops, 1u << (TM_OPS_LOG + VHCA_TM_OP_SHIFT));
    t->max_num_tags = cpu_to_le32(max_tags);
    t->ops_log_size = TM_OPS_LOG;
    status = dp_exec_in(dp, VHCA_CMD_CREATE_SRQ, 0, in, in_len, result);
    tm->srq.srqn = result[0];
    return status;
}

static void tm_post_op(Dp *dp, TmSrq *tm, struct vhca_tm_op *op)
{
    uint64_t slot = tm->ops + ((uint64_t)(tm->ops_pi & ((1u << TM_OPS_LOG) - 1))
                               << VHCA_TM_OP_SHIFT);

    qtest_memwrite(dp->v->qts, slot, op, sizeof(*op));
    tm->ops_pi++;
    dp_db64(dp->v, 0, VHCA_DB_SRQ,
            vhca_db_data_value(tm->srq.srqn, VHCA_DB_SRQ_TM_OPS, tm->ops_pi));
}

static void tm_op(Dp *dp, TmSrq *tm, uint8_t opcode, uint8_t flags,
                  uint32_t handle, uint32_t unexp)
{
    struct vhca_tm_op op = { 0 };

    op.wr_id = cpu_to_le64(0x1000 + handle);
    op.opcode = opcode;
    op.flags = flags;
    op.handle = cpu_to_le32(handle);
    op.unexpected_cnt = cpu_to_le32(unexp);
    tm_post_op(dp, tm, &op);
}

static void tm_add(Dp *dp, TmSrq *tm, uint32_t handle, uint64_t tag,
                   uint64_t mask, uint64_t addr, uint32_t len, uint32_t lkey)
{
    struct vhca_tm_op op = { 0 };

    op.wr_id = cpu_to_le64(0x1000 + handle);
    op.opcode = VHCA_TM_OP_ADD;
    op.flags = VHCA_TM_OP_F_SIGNALED;
    op.handle = cpu_to_le32(handle);
    op.recv_wr_id = cpu_to_le64(0x2000 + handle);
    op.tag = cpu_to_le64(tag);
    op.mask = cpu_to_le64(mask);
    op.num_sge = 1;
    op.sge.addr = cpu_to_le64(addr);
    op.sge.length = cpu_to_le32(len);
    op.sge.lkey = cpu_to_le32(lkey);
    tm_post_op(dp, tm, &op);
}

/* The CQE of the next operation: opcode, status, tm_flags. */
static void tm_expect_op(Dp *dp, DpCq *cq, TmSrq *tm, uint8_t opcode,
                         uint8_t status, uint8_t tm_flags)
{
    struct vhca_cqe cqe;

    dp_expect_cqe(dp, cq, &cqe, status);
    g_assert_cmphex(cqe.opcode, ==, opcode);
    g_assert_cmphex(cqe.tm_flags, ==, tm_flags);
    g_assert_cmpuint(le32_to_cpu(cqe.srqn), ==, tm->srq.srqn);
}

/* Write a TMH (and a RVH) at addr of A's memory. */
static void tm_header(Dp *dp, uint64_t addr, uint8_t opcode, uint64_t tag,
                      uint64_t va, uint32_t rkey, uint32_t len)
{
    uint8_t h[VHCA_TM_TMH_LEN + VHCA_TM_RVH_LEN] = { opcode };

    stl_be_p(h + 4, 0xc0ffee);
    stq_be_p(h + 8, tag);
    stq_be_p(h + 16, va);
    stl_be_p(h + 24, rkey);
    stl_be_p(h + 28, len);
    qtest_memwrite(dp->v->qts, addr, h, sizeof(h));
}

static uint64_t tm_cqe_tag(const struct vhca_cqe *cqe)
{
    return (uint64_t)le32_to_cpu(cqe->tm_tag_hi) << 32 |
           le32_to_cpu(cqe->tm_tag_lo);
}

/* A (port 1, own queues) connected to B (port 2, on a TM SRQ). */
static void tm_rig(TmRig *r)
{
    struct vhca_cmd_create_qp in;
    uint32_t result[2];
    DpPair p;

    r->dp = dp_start();
    dp_mem(r->dp, &r->m, DP_ALL_ACCESS);
    dp_create_cq(r->dp, &r->acq, DP_CQ_LOG);
    dp_create_cq(r->dp, &r->bcq, DP_CQ_LOG);
    g_assert_cmpuint(tm_create_srq(r->dp, &r->tm, r->bcq.cqn, VHCA_SRQ_F_TM,
                                   TM_TAGS, VHCA_CMD_CREATE_SRQ_TM_LEN), ==,
                     VHCA_CMD_OK);
    dp_create_qp(r->dp, &p.a, VHCA_QPT_RC, &r->acq, &r->acq);
    memset(&in, 0, sizeof(in));
    memset(&p.b, 0, sizeof(p.b));
    p.b.type = in.type = VHCA_QPT_RC;
    p.b.scq = p.b.rcq = &r->bcq;
    p.b.sq_log = 1;
    p.b.sq = dp_alloc(r->dp, 2u << DP_SQ_SHIFT);
    in.sq_log_size = 1;
    dp_buf_contig(&in.sq_buf, p.b.sq, 2u << DP_SQ_SHIFT);
    in.flags = VHCA_QP_F_HAS_SRQ;
    in.rq_wqe_shift = DP_RQ_SHIFT;
    in.sq_wqe_shift = DP_SQ_SHIFT;
    in.pdn = cpu_to_le32(r->dp->pd);
    in.send_cqn = in.recv_cqn = cpu_to_le32(r->bcq.cqn);
    in.srqn = cpu_to_le32(r->tm.srq.srqn);
    g_assert_cmpuint(dp_exec_in(r->dp, VHCA_CMD_CREATE_QP, 0, &in, sizeof(in),
                                result), ==, VHCA_CMD_OK);
    p.b.h = result[0];
    dp_pair_connect(r->dp, &p, DP_ALL_ACCESS, 7);
    r->a = p.a;
    r->b = p.b;
}

static void test_tm_ops(void)
{
    TmRig r;
    Dp *dp;
    TmSrq bad;
    DpSrq plain;
    struct vhca_device_attr attr;

    tm_rig(&r);
    dp = r.dp;
    dp_query_device(dp, &attr);
    g_assert_true(le32_to_cpu(attr.dev_caps) & VHCA_DEV_CAP_TAG_MATCHING);
    /* CREATE_SRQ refusals. */
    g_assert_cmpuint(tm_create_srq(dp, &bad, r.bcq.cqn, VHCA_SRQ_F_TM, TM_TAGS,
                                   64), ==, VHCA_CMD_BAD_SIZE);
    g_assert_cmpuint(tm_create_srq(dp, &bad, r.bcq.cqn, VHCA_SRQ_F_TM, 0,
                                   128), ==, VHCA_CMD_BAD_PARAM);
    g_assert_cmpuint(tm_create_srq(dp, &bad, r.bcq.cqn, VHCA_SRQ_F_TM,
                                   VHCA_TM_MAX_TAGS + 1, 128), ==,
                     VHCA_CMD_BAD_PARAM);
    g_assert_cmpuint(tm_create_srq(dp, &bad, r.bcq.cqn,
                                   VHCA_SRQ_F_TM | VHCA_SRQ_F_XRC, TM_TAGS,
                                   128), ==, VHCA_CMD_BAD_PARAM);
    g_assert_cmpuint(tm_create_srq(dp, &bad, 77, VHCA_SRQ_F_TM, TM_TAGS, 128),
                     ==, VHCA_CMD_BAD_HANDLE);

    /* ADD, ADD of a busy entry, ADD out of range, DEL twice, SYNC. */
    tm_add(dp, &r.tm, 0, 5, TM_MASK, r.m.b, 256, r.m.bkey);
    tm_expect_op(dp, &r.bcq, &r.tm, VHCA_CQE_TM_ADD, VHCA_WC_SUCCESS,
                 VHCA_CQE_TM_F_SIGNALED);
    tm_add(dp, &r.tm, 0, 6, TM_MASK, r.m.b, 256, r.m.bkey);
    tm_expect_op(dp, &r.bcq, &r.tm, VHCA_CQE_TM_ADD, VHCA_WC_TM_ERR,
                 VHCA_CQE_TM_F_SIGNALED);
    tm_add(dp, &r.tm, TM_TAGS, 6, TM_MASK, r.m.b, 256, r.m.bkey);
    tm_expect_op(dp, &r.bcq, &r.tm, VHCA_CQE_TM_ADD, VHCA_WC_TM_ERR,
                 VHCA_CQE_TM_F_SIGNALED);
    /* a buffer the key does not cover: refused, the entry stays free */
    tm_add(dp, &r.tm, 1, 6, TM_MASK, r.m.b, DP_BUF_SIZE + 1, r.m.bkey);
    tm_expect_op(dp, &r.bcq, &r.tm, VHCA_CQE_TM_ADD, VHCA_WC_LOC_PROT_ERR,
                 VHCA_CQE_TM_F_SIGNALED | VHCA_CQE_TM_F_FREED);
    tm_op(dp, &r.tm, VHCA_TM_OP_DEL, 0, 0, 0);
    tm_expect_op(dp, &r.bcq, &r.tm, VHCA_CQE_TM_DEL, VHCA_WC_SUCCESS,
                 VHCA_CQE_TM_F_FREED);
    tm_op(dp, &r.tm, VHCA_TM_OP_DEL, VHCA_TM_OP_F_SIGNALED, 0, 0);
    tm_expect_op(dp, &r.bcq, &r.tm, VHCA_CQE_TM_DEL, VHCA_WC_TM_ERR,
                 VHCA_CQE_TM_F_SIGNALED);
    tm_op(dp, &r.tm, 9, VHCA_TM_OP_F_SIGNALED, 0, 0);
    tm_expect_op(dp, &r.bcq, &r.tm, VHCA_CQE_TM_SYNC, VHCA_WC_TM_ERR,
                 VHCA_CQE_TM_F_SIGNALED);
    /* SYNC with a count the device never reached: out of phase */
    tm_op(dp, &r.tm, VHCA_TM_OP_SYNC, VHCA_TM_OP_F_SYNC, 0, 3);
    tm_expect_op(dp, &r.bcq, &r.tm, VHCA_CQE_TM_SYNC, VHCA_WC_SUCCESS,
                 VHCA_CQE_TM_F_SYNC_REQ);
    tm_op(dp, &r.tm, VHCA_TM_OP_SYNC, VHCA_TM_OP_F_SYNC, 0, 0);
    tm_expect_op(dp, &r.bcq, &r.tm, VHCA_CQE_TM_SYNC, VHCA_WC_SUCCESS, 0);

    /* Doorbells the device ignores: a ring overrun, a plain SRQ. */
    dp_db64(dp->v, 0, VHCA_DB_SRQ, vhca_db_data_value(
            r.tm.srq.srqn, VHCA_DB_SRQ_TM_OPS, r.tm.ops_pi + 17));
    g_assert_cmpuint(dp_create_srq(dp, &plain, dp->pd, DP_RQ_SHIFT, 0), ==,
                     VHCA_CMD_OK);
    dp_db64(dp->v, 0, VHCA_DB_SRQ,
            vhca_db_data_value(plain.srqn, VHCA_DB_SRQ_TM_OPS, 1));
    dp_expect_no_cqe(dp, &r.bcq);
    g_assert_cmpuint(dp_simple(dp, VHCA_CMD_DESTROY_QP, r.b.h, NULL), ==,
                     VHCA_CMD_OK);
    g_assert_cmpuint(dp_simple(dp, VHCA_CMD_DESTROY_SRQ, r.tm.srq.srqn, NULL),
                     ==, VHCA_CMD_OK);
    dp_stop(dp);
}

static void tm_send(TmRig *r, uint64_t wr_id, uint32_t len)
{
    struct vhca_cqe cqe;

    dp_send(r->dp, &r->a, wr_id, VHCA_WQE_SEND, VHCA_WQE_F_SIGNALED, r->m.a,
            len, r->m.akey);
    dp_expect_cqe(r->dp, &r->acq, &cqe, VHCA_WC_SUCCESS);
    g_assert_cmpuint(cqe.opcode, ==, VHCA_CQE_SEND);
}

static void test_tm_match(void)
{
    struct vhca_cqe cqe;
    TmRig r;
    Dp *dp;

    tm_rig(&r);
    dp = r.dp;
    dp_fill(dp, r.m.a, 4096, 9);
    dp_srq_post(dp, &r.tm.srq, 0x51, r.m.b + 8192, 1024, r.m.bkey);
    dp_srq_post(dp, &r.tm.srq, 0x52, r.m.b + 9216, 1024, r.m.bkey);
    dp_srq_post(dp, &r.tm.srq, 0x53, r.m.b + 10240, 1024, r.m.bkey);
    tm_add(dp, &r.tm, 3, 0x1, TM_MASK, r.m.b, 256, r.m.bkey);
    tm_expect_op(dp, &r.bcq, &r.tm, VHCA_CQE_TM_ADD, VHCA_WC_SUCCESS,
                 VHCA_CQE_TM_F_SIGNALED);
    /* a wildcard added later: tag 1 still goes to the earlier entry */
    tm_add(dp, &r.tm, 1, 0x0, 0, r.m.b + 1024, 256, r.m.bkey);
    tm_expect_op(dp, &r.bcq, &r.tm, VHCA_CQE_TM_ADD, VHCA_WC_SUCCESS,
                 VHCA_CQE_TM_F_SIGNALED);

    /* EAGER tag 0x10001 (masked: 1): the data after the TMH to entry 3 */
    tm_header(dp, r.m.a, VHCA_TMH_EAGER, 0x10001, 0, 0, 0);
    tm_send(&r, 1, 200);
    dp_expect_cqe(dp, &r.bcq, &cqe, VHCA_WC_SUCCESS);
    g_assert_cmphex(cqe.opcode, ==, VHCA_CQE_TM_RECV);
    g_assert_cmphex(cqe.tm_flags, ==, VHCA_CQE_TM_F_MATCH |
                    VHCA_CQE_TM_F_DATA_VALID | VHCA_CQE_TM_F_FREED);
    g_assert_cmphex(le64_to_cpu(cqe.wr_id), ==, 0x2003);
    g_assert_cmpuint(le16_to_cpu(cqe.tm_handle), ==, 3);
    g_assert_cmphex(tm_cqe_tag(&cqe), ==, 0x10001);
    g_assert_cmphex(be32_to_cpu(cqe.imm_inv), ==, 0xc0ffee);
    g_assert_cmpuint(le32_to_cpu(cqe.byte_len), ==, 200 - VHCA_TM_TMH_LEN);
    dp_assert_same(dp, r.m.a + VHCA_TM_TMH_LEN, r.m.b, 200 - VHCA_TM_TMH_LEN);
    /* the next tag-1 message takes the wildcard */
    tm_send(&r, 2, 100);
    dp_expect_cqe(dp, &r.bcq, &cqe, VHCA_WC_SUCCESS);
    g_assert_cmphex(le64_to_cpu(cqe.wr_id), ==, 0x2001);

    /* Unexpected: an ordinary WQE, the whole message, no tag */
    tm_send(&r, 3, 300);
    dp_expect_cqe(dp, &r.bcq, &cqe, VHCA_WC_SUCCESS);
    g_assert_cmphex(cqe.opcode, ==, VHCA_CQE_TM_RECV);
    g_assert_cmphex(cqe.tm_flags, ==, 0);
    g_assert_cmphex(le64_to_cpu(cqe.wr_id), ==, 0x51);
    g_assert_cmpuint(le32_to_cpu(cqe.byte_len), ==, 300);
    dp_assert_same(dp, r.m.a, r.m.b + 8192, 300);
    /* out of phase: ADD refused until software reports 1 unexpected */
    tm_add(dp, &r.tm, 2, 0x7, TM_MASK, r.m.b, 256, r.m.bkey);
    tm_expect_op(dp, &r.bcq, &r.tm, VHCA_CQE_TM_ADD, VHCA_WC_TM_ERR,
                 VHCA_CQE_TM_F_SIGNALED | VHCA_CQE_TM_F_SYNC_REQ |
                 VHCA_CQE_TM_F_FREED);
    tm_op(dp, &r.tm, VHCA_TM_OP_SYNC,
          VHCA_TM_OP_F_SIGNALED | VHCA_TM_OP_F_SYNC, 0, 1);
    tm_expect_op(dp, &r.bcq, &r.tm, VHCA_CQE_TM_SYNC, VHCA_WC_SUCCESS,
                 VHCA_CQE_TM_F_SIGNALED);
    tm_add(dp, &r.tm, 2, 0x7, TM_MASK, r.m.b, 256, r.m.bkey);
    tm_expect_op(dp, &r.bcq, &r.tm, VHCA_CQE_TM_ADD, VHCA_WC_SUCCESS,
                 VHCA_CQE_TM_F_SIGNALED);

    /* NO_TAG with a tag that would match: an ordinary receive */
    tm_header(dp, r.m.a, VHCA_TMH_NO_TAG, 0x7, 0, 0, 0);
    tm_send(&r, 4, 64);
    dp_expect_cqe(dp, &r.bcq, &cqe, VHCA_WC_SUCCESS);
    g_assert_cmphex(cqe.opcode, ==, VHCA_CQE_TM_RECV);
    g_assert_cmphex(cqe.tm_flags, ==, VHCA_CQE_TM_F_NO_TAG);
    g_assert_cmphex(le64_to_cpu(cqe.wr_id), ==, 0x52);
    /* too long for the entry: an error CQE, the QP to ERR */
    tm_header(dp, r.m.a, VHCA_TMH_EAGER, 0x7, 0, 0, 0);
    dp_send(dp, &r.a, 5, VHCA_WQE_SEND, VHCA_WQE_F_SIGNALED, r.m.a, 1024,
            r.m.akey);
    dp_expect_cqe(dp, &r.acq, &cqe, VHCA_WC_REM_INV_REQ_ERR);
    dp_expect_cqe(dp, &r.bcq, &cqe, VHCA_WC_LOC_LEN_ERR);
    g_assert_cmphex(cqe.opcode, ==, VHCA_CQE_TM_RECV);
    g_assert_cmphex(le64_to_cpu(cqe.wr_id), ==, 0x2002);
    g_assert_true(dp_take_event(dp, VHCA_EQE_QP_EVENT,
                                VHCA_QP_EV_LAST_WQE_REACHED, r.b.h));
    dp_stop(dp);
}

/* The device's READ runs in a bottom half: let the main loop turn. */
static void tm_wait_cqe(Dp *dp, DpCq *cq, struct vhca_cqe *cqe, uint8_t st)
{
    dp_step_cqe(dp, cq, cqe, 1000, 100, st);
}

static void test_tm_rndv(void)
{
    uint8_t fin[VHCA_TM_TMH_LEN];
    struct vhca_cqe cqe;
    TmRig r;
    Dp *dp;

    tm_rig(&r);
    dp = r.dp;
    dp_fill(dp, r.m.a + 4096, 4096, 21);
    tm_add(dp, &r.tm, 4, 0x99, TM_MASK, r.m.b, 4096, r.m.bkey);
    tm_expect_op(dp, &r.bcq, &r.tm, VHCA_CQE_TM_ADD, VHCA_WC_SUCCESS,
                 VHCA_CQE_TM_F_SIGNALED);
    dp_post_recv(dp, &r.a, 0x61, r.m.a + 32768, 64, r.m.akey, 0, 0);
    tm_header(dp, r.m.a, VHCA_TMH_RNDV, 0x99, r.m.a + 4096, r.m.akey, 3000);
    tm_send(&r, 1, VHCA_TM_MAX_RNDV_HDR);
    dp_expect_cqe(dp, &r.bcq, &cqe, VHCA_WC_SUCCESS);
    g_assert_cmphex(cqe.opcode, ==, VHCA_CQE_TM_RECV);
    g_assert_cmphex(cqe.tm_flags, ==, VHCA_CQE_TM_F_MATCH);
    g_assert_cmphex(le64_to_cpu(cqe.wr_id), ==, 0x2004);
    g_assert_cmphex(tm_cqe_tag(&cqe), ==, 0x99);
    tm_wait_cqe(dp, &r.bcq, &cqe, VHCA_WC_SUCCESS);
    g_assert_cmphex(cqe.tm_flags, ==, VHCA_CQE_TM_F_DATA_VALID |
                    VHCA_CQE_TM_F_FREED);
    g_assert_cmphex(le64_to_cpu(cqe.wr_id), ==, 0x2004);
    g_assert_cmpuint(le32_to_cpu(cqe.byte_len), ==, 3000);
    g_assert_cmphex(tm_cqe_tag(&cqe), ==, 0);
    dp_assert_same(dp, r.m.a + 4096, r.m.b, 3000);
    /* the FIN: an ordinary receive at the sender */
    tm_wait_cqe(dp, &r.acq, &cqe, VHCA_WC_SUCCESS);
    g_assert_cmphex(cqe.opcode, ==, VHCA_CQE_RECV);
    g_assert_cmpuint(le32_to_cpu(cqe.byte_len), ==, VHCA_TM_TMH_LEN);
    qtest_memread(dp->v->qts, r.m.a + 32768, fin, sizeof(fin));
    g_assert_cmpuint(fin[0], ==, VHCA_TMH_FIN);
    g_assert_cmphex(ldq_be_p(fin + 8), ==, 0x99);

    /* More than the entry holds: TM_RNDV_INCOMPLETE, software's turn */
    tm_add(dp, &r.tm, 4, 0x98, TM_MASK, r.m.b, 1024, r.m.bkey);
    tm_expect_op(dp, &r.bcq, &r.tm, VHCA_CQE_TM_ADD, VHCA_WC_SUCCESS,
                 VHCA_CQE_TM_F_SIGNALED);
    tm_header(dp, r.m.a, VHCA_TMH_RNDV, 0x98, r.m.a + 4096, r.m.akey, 3000);
    tm_send(&r, 2, VHCA_TM_MAX_RNDV_HDR);
    dp_expect_cqe(dp, &r.bcq, &cqe, VHCA_WC_SUCCESS);
    g_assert_cmphex(cqe.tm_flags, ==, VHCA_CQE_TM_F_MATCH);
    tm_wait_cqe(dp, &r.bcq, &cqe, VHCA_WC_TM_RNDV_INCOMPLETE);
    g_assert_cmphex(cqe.tm_flags, ==, VHCA_CQE_TM_F_FREED);
    dp_expect_no_cqe(dp, &r.acq);
    dp_stop(dp);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    qtest_add_func("/vhca/dp/tm-ops", test_tm_ops);
    qtest_add_func("/vhca/dp/tm-match", test_tm_match);
    qtest_add_func("/vhca/dp/tm-rndv", test_tm_rndv);
    return g_test_run();
}
