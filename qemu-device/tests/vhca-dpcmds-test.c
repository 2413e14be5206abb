/*
 * QTest testcase for vhca: the data path commands — memory regions, CQs,
 * QPs and the QP state machine, valid and malformed.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "vhca-qtest-dp.h"

/* ---- commands ------------------------------------------------------------ */

static void test_dp_limits(void)
{
    Dp *dp = dp_start();
    struct vhca_device_attr attr;

    dp_query_device(dp, &attr);
    g_assert_cmpuint(le32_to_cpu(attr.max_qp), >=, 64);
    g_assert_cmpuint(le32_to_cpu(attr.max_qp_wr), ==,
                     (1u << VHCA_MAX_LOG_WQ) - 1);
    g_assert_cmpuint(le32_to_cpu(attr.max_sge), >=, 16);
    g_assert_cmpuint(le32_to_cpu(attr.max_cq), >=, 64);
    g_assert_cmpuint(le32_to_cpu(attr.max_cqe), ==,
                     (1u << VHCA_MAX_LOG_CQ) - 1);
    g_assert_cmpuint(le32_to_cpu(attr.max_mr), >=, 64);
    g_assert_cmphex(le64_to_cpu(attr.page_size_cap) & 0x1000, ==, 0x1000);
    g_assert_cmpuint(le64_to_cpu(attr.max_mr_size), !=, 0);
    g_assert_cmpuint(le32_to_cpu(attr.max_srq), >=, 64);
    g_assert_cmpuint(le32_to_cpu(attr.max_srq_wr), ==,
                     (1u << VHCA_MAX_LOG_WQ) - 1);
    g_assert_cmpuint(le32_to_cpu(attr.max_ah), ==, 0);
    g_assert_cmpuint(le32_to_cpu(attr.max_mcast_grp), ==, 256);
    g_assert_cmpuint(le32_to_cpu(attr.max_mcast_qp_attach), ==, 16);
    g_assert_cmphex(le32_to_cpu(attr.dev_caps) & VHCA_DEV_CAP_CQE_TIMESTAMP,
                    ==, VHCA_DEV_CAP_CQE_TIMESTAMP);
    g_assert_cmpuint(le32_to_cpu(attr.hca_core_clock_khz), ==,
                     VHCA_CORE_CLOCK_KHZ);
    dp_stop(dp);
}

static uint64_t dp_read_clock(Dp *dp, uint32_t page)
{
    return qpci_io_readq(dp->v->dev, dp->v->db,
                         (uint64_t)page * VHCA_DB_PAGE_SIZE + VHCA_DB_CLOCK);
}

/*
 * The device clock (VHCA_DB_CLOCK) counts ns of virtual time, which a
 * qtest moves only by stepping it; every CQE carries it.
 */
static void test_dp_clock(void)
{
    Dp *dp = dp_start();
    struct vhca_cqe cqe;
    uint64_t t0, t1;
    DpPair p;
    DpMem m;

    dp_pair(dp, &p, VHCA_QPT_RC, DP_ALL_ACCESS, 7);
    dp_mem(dp, &m, DP_ALL_ACCESS);
    t0 = dp_read_clock(dp, 0);
    g_assert_cmpuint(dp_read_clock(dp, 1), >=, t0);    /* any page */
    dp_post_recv(dp, &p.b, 1, m.b, 64, m.bkey, 0, 0);
    dp_send(dp, &p.a, 1, VHCA_WQE_SEND, VHCA_WQE_F_SIGNALED, m.a, 8, m.akey);
    dp_expect_cqe(dp, &p.acq, &cqe, VHCA_WC_SUCCESS);
    t1 = dp_read_clock(dp, 0);
    g_assert_cmpuint(le64_to_cpu(cqe.timestamp), >=, t0);
    g_assert_cmpuint(le64_to_cpu(cqe.timestamp), <=, t1);
    dp_expect_cqe(dp, &p.bcq, &cqe, VHCA_WC_SUCCESS);
    g_assert_cmpuint(le64_to_cpu(cqe.timestamp), >=, t0);
    g_assert_cmpuint(le64_to_cpu(cqe.timestamp), <=, t1);

    qtest_clock_step(dp->v->qts, 1000000);
    dp_post_recv(dp, &p.b, 2, m.b, 64, m.bkey, 0, 0);
    dp_send(dp, &p.a, 2, VHCA_WQE_SEND, VHCA_WQE_F_SIGNALED, m.a, 8, m.akey);
    dp_expect_cqe(dp, &p.acq, &cqe, VHCA_WC_SUCCESS);
    g_assert_cmpuint(le64_to_cpu(cqe.timestamp), >=, t1 + 1000000);
    g_assert_cmpuint(le64_to_cpu(cqe.timestamp), <=, dp_read_clock(dp, 0));
    dp_expect_cqe(dp, &p.bcq, &cqe, VHCA_WC_SUCCESS);
    g_assert_cmpuint(le64_to_cpu(cqe.timestamp), >=, t1 + 1000000);

    /* Only a 64-bit read of the clock is a register: the rest reads 0. */
    g_assert_cmphex(qpci_io_readl(dp->v->dev, dp->v->db, VHCA_DB_CLOCK), ==, 0);
    g_assert_cmphex(qpci_io_readq(dp->v->dev, dp->v->db, VHCA_DB_SQ), ==, 0);
    dp_stop(dp);
}

static void test_dp_mr_commands(void)
{
    Dp *dp = dp_start();
    struct vhca_cmd_create_mr in;
    struct vhca_cmd cmd;
    uint64_t pages = dp_alloc(dp, 3 * 4096);
    uint64_t list = dp_alloc(dp, 4096), ind = dp_alloc(dp, 4096);
    uint64_t entries[3] = { cpu_to_le64(pages + 8192), cpu_to_le64(pages),
                            cpu_to_le64(pages + 4096) };
    uint64_t ind_entry = cpu_to_le64(list);
    uint32_t key, key2, result[2];

    qtest_memwrite(dp->v->qts, list, entries, sizeof(entries));
    qtest_memwrite(dp->v->qts, ind, &ind_entry, sizeof(ind_entry));
    /* DIRECT, INDIRECT, CONTIG and physical regions. */
    dp_mr_desc(&in, dp->pd, 0x10000100, 3 * 4096 - 0x100, list, 3,
               VHCA_BUF_DIRECT);
    in.first_byte_offset = cpu_to_le32(0x100);
    g_assert_cmpuint(dp_create_mr_in(dp, &in, &key), ==, VHCA_CMD_OK);
    g_assert_cmphex(key >> 8, !=, 0);
    dp_mr_desc(&in, dp->pd, 0, 3 * 4096, ind, 3, VHCA_BUF_INDIRECT);
    g_assert_cmpuint(dp_create_mr_in(dp, &in, &key2), ==, VHCA_CMD_OK);
    g_assert_cmphex(key2, !=, key);
    g_assert_cmpuint(dp_simple(dp, VHCA_CMD_DESTROY_MR, key2, NULL), ==,
                     VHCA_CMD_OK);
    dp_mr_desc(&in, dp->pd, 0, 8192, pages, 2, VHCA_BUF_CONTIG);
    g_assert_cmpuint(dp_create_mr_in(dp, &in, &key2), ==, VHCA_CMD_OK);
    g_assert_cmpuint(dp_simple(dp, VHCA_CMD_DESTROY_MR, key2, NULL), ==,
                     VHCA_CMD_OK);
    key2 = dp_mr_phys(dp, dp->pd, pages, 4096, DP_ALL_ACCESS);
    g_assert_cmpuint(dp_simple(dp, VHCA_CMD_DESTROY_MR, key2, NULL), ==,
                     VHCA_CMD_OK);

    /* Malformed. */
    dp_mr_desc(&in, dp->pd + 1, 0, 4096, list, 1, VHCA_BUF_DIRECT);
    g_assert_cmpuint(dp_create_mr_in(dp, &in, NULL), ==, VHCA_CMD_BAD_HANDLE);
    dp_mr_desc(&in, dp->pd, 0, 4096, list, 1, VHCA_BUF_DIRECT);
    in.pages.page_shift = 11;
    g_assert_cmpuint(dp_create_mr_in(dp, &in, NULL), ==, VHCA_CMD_BAD_PARAM);
    in.pages.page_shift = 31;
    g_assert_cmpuint(dp_create_mr_in(dp, &in, NULL), ==, VHCA_CMD_BAD_PARAM);
    dp_mr_desc(&in, dp->pd, 0, 4096, list, 0, VHCA_BUF_DIRECT);
    g_assert_cmpuint(dp_create_mr_in(dp, &in, NULL), ==, VHCA_CMD_BAD_PARAM);
    dp_mr_desc(&in, dp->pd, 0, 4097, list, 1, VHCA_BUF_DIRECT);
    g_assert_cmpuint(dp_create_mr_in(dp, &in, NULL), ==, VHCA_CMD_BAD_PARAM);
    dp_mr_desc(&in, dp->pd, 0, 4096, list, 1, 7);
    g_assert_cmpuint(dp_create_mr_in(dp, &in, NULL), ==, VHCA_CMD_BAD_PARAM);
    dp_mr_desc(&in, dp->pd, 0, 4096, list + 4, 1, VHCA_BUF_DIRECT);
    g_assert_cmpuint(dp_create_mr_in(dp, &in, NULL), ==, VHCA_CMD_BAD_PARAM);
    dp_mr_desc(&in, dp->pd, 0, 4096, pages + 16, 1, VHCA_BUF_CONTIG);
    g_assert_cmpuint(dp_create_mr_in(dp, &in, NULL), ==, VHCA_CMD_BAD_PARAM);
    dp_mr_desc(&in, dp->pd, 0, 4096, BAD_DMA_ADDR, 1, VHCA_BUF_DIRECT);
    g_assert_cmpuint(dp_create_mr_in(dp, &in, NULL), ==, VHCA_CMD_BAD_ADDR);
    dp_mr_desc(&in, dp->pd, 0, 4096, list, 1, VHCA_BUF_DIRECT);
    in.first_byte_offset = cpu_to_le32(4096);
    g_assert_cmpuint(dp_create_mr_in(dp, &in, NULL), ==, VHCA_CMD_BAD_PARAM);
    /* An unaligned page address in the list. */
    entries[0] = cpu_to_le64(pages + 8);
    qtest_memwrite(dp->v->qts, list, entries, 8);
    dp_mr_desc(&in, dp->pd, 0, 4096, list, 1, VHCA_BUF_DIRECT);
    g_assert_cmpuint(dp_create_mr_in(dp, &in, NULL), ==, VHCA_CMD_BAD_PARAM);
    /* IBA 10.6.3.1: remote write without local write. */
    dp_mr_desc(&in, dp->pd, pages, 4096, 0, 0, 0);
    in.flags = VHCA_MR_F_PHYSICAL;
    in.access = cpu_to_le32(VHCA_ACCESS_REMOTE_WRITE);
    g_assert_cmpuint(dp_create_mr_in(dp, &in, NULL), ==, VHCA_CMD_BAD_PARAM);
    in.access = cpu_to_le32(1u << 10);     /* no VHCA_ACCESS_* bit */
    g_assert_cmpuint(dp_create_mr_in(dp, &in, NULL), ==, VHCA_CMD_BAD_PARAM);
    in.access = 0;
    in.iova = cpu_to_le64(BAD_DMA_ADDR);
    g_assert_cmpuint(dp_create_mr_in(dp, &in, NULL), ==, VHCA_CMD_BAD_ADDR);
    /* Command buffers. */
    cmd_init(dp->v, &cmd, VHCA_CMD_CREATE_MR);
    cmd.in_addr = cpu_to_le64(dp->v->buf);
    cmd.in_len = cpu_to_le32(sizeof(in) - 1);
    g_assert_cmpuint(dp_exec(dp, &cmd, NULL), ==, VHCA_CMD_BAD_SIZE);
    cmd_init(dp->v, &cmd, VHCA_CMD_CREATE_MR);
    cmd.in_len = cpu_to_le32(sizeof(in));
    g_assert_cmpuint(dp_exec(dp, &cmd, NULL), ==, VHCA_CMD_BAD_ADDR);

    /* Destroy: wrong variant, twice, the DMA lkey. */
    g_assert_cmpuint(dp_simple(dp, VHCA_CMD_DESTROY_MR, key ^ 1, NULL), ==,
                     VHCA_CMD_BAD_HANDLE);
    g_assert_cmpuint(dp_simple(dp, VHCA_CMD_DESTROY_MR, key, NULL), ==,
                     VHCA_CMD_OK);
    g_assert_cmpuint(dp_simple(dp, VHCA_CMD_DESTROY_MR, key, NULL), ==,
                     VHCA_CMD_BAD_HANDLE);
    g_assert_cmpuint(dp_simple(dp, VHCA_CMD_DESTROY_MR, 0, NULL), ==,
                     VHCA_CMD_BAD_HANDLE);

    /* ALLOC_MR. */
    cmd_init(dp->v, &cmd, VHCA_CMD_ALLOC_MR);
    cmd.in.raw[0] = dp->pd;
    cmd.in.raw[4] = 16;
    cmd.in.raw[8] = 0x33;
    g_assert_cmpuint(dp_exec(dp, &cmd, result), ==, VHCA_CMD_OK);
    g_assert_cmphex(result[0] & 0xff, ==, 0x33);
    g_assert_cmpuint(dp_simple(dp, VHCA_CMD_DESTROY_MR, result[0], NULL), ==,
                     VHCA_CMD_OK);
    cmd_init(dp->v, &cmd, VHCA_CMD_ALLOC_MR);
    cmd.in.raw[0] = dp->pd;
    g_assert_cmpuint(dp_exec(dp, &cmd, NULL), ==, VHCA_CMD_BAD_PARAM);
    dp_stop(dp);
}

static void test_dp_cq_commands(void)
{
    Dp *dp = dp_start();
    struct vhca_cmd_create_cq in;
    DpCq cq, cq2;
    DpQp qp;

    dp_create_cq(dp, &cq, DP_CQ_LOG);
    dp_create_cq(dp, &cq2, 1);
    g_assert_cmpuint(cq2.cqn, !=, cq.cqn);
    g_assert_cmpuint(dp_create_cq_at(dp, &cq2, 6, 0, 0), ==,
                     VHCA_CMD_BAD_HANDLE);
    g_assert_cmpuint(dp_create_cq_at(dp, &cq2, 6, 5, 0), ==,
                     VHCA_CMD_BAD_HANDLE);
    g_assert_cmpuint(dp_create_cq_at(dp, &cq2, 0, dp->eqn, 0), ==,
                     VHCA_CMD_BAD_PARAM);
    g_assert_cmpuint(dp_create_cq_at(dp, &cq2, VHCA_MAX_LOG_CQ + 1, dp->eqn, 0), ==,
                     VHCA_CMD_BAD_PARAM);
    g_assert_cmpuint(dp_create_cq_at(dp, &cq2, 6, dp->eqn, 16), ==,
                     VHCA_CMD_BAD_PARAM);
    /* Ring smaller than 2^log_size CQEs, dbrec unaligned or outside RAM. */
    memset(&in, 0, sizeof(in));
    dp_buf_contig(&in.buf, cq.ring, 4096);
    in.dbrec_addr = cpu_to_le64(cq.dbrec);
    in.eqn = cpu_to_le32(dp->eqn);
    in.log_size = 7;
    g_assert_cmpuint(dp_exec_in(dp, VHCA_CMD_CREATE_CQ, 0, &in, sizeof(in),
                                NULL), ==, VHCA_CMD_BAD_PARAM);
    in.log_size = 6;
    in.dbrec_addr = cpu_to_le64(cq.dbrec + 4);
    g_assert_cmpuint(dp_exec_in(dp, VHCA_CMD_CREATE_CQ, 0, &in, sizeof(in),
                                NULL), ==, VHCA_CMD_BAD_PARAM);
    in.dbrec_addr = cpu_to_le64(BAD_DMA_ADDR);
    g_assert_cmpuint(dp_exec_in(dp, VHCA_CMD_CREATE_CQ, 0, &in, sizeof(in),
                                NULL), ==, VHCA_CMD_BAD_ADDR);
    in.dbrec_addr = cpu_to_le64(cq.dbrec);
    in.buf.npages = cpu_to_le32(2);     /* longer than a 64-CQE ring needs */
    g_assert_cmpuint(dp_exec_in(dp, VHCA_CMD_CREATE_CQ, 0, &in, sizeof(in),
                                NULL), ==, VHCA_CMD_BAD_PARAM);
    in.buf.npages = cpu_to_le32(1);
    in.buf.addr = cpu_to_le64(BAD_DMA_ADDR);
    g_assert_cmpuint(dp_exec_in(dp, VHCA_CMD_CREATE_CQ, 0, &in, sizeof(in),
                                NULL), ==, VHCA_CMD_BAD_ADDR);

    /* A QP holds its CQs: DESTROY is BUSY until it is gone; RESIZE is
     * allowed (the CQEs not consumed move to the new ring), but not to
     * another doorbell page. */
    dp_create_qp(dp, &qp, VHCA_QPT_RC, &cq, &cq);
    in.buf.addr = cpu_to_le64(cq.ring);
    in.log_size = 5;
    in.db_page = cpu_to_le32(1);
    g_assert_cmpuint(dp_exec_in(dp, VHCA_CMD_RESIZE_CQ, cq.cqn, &in,
                                sizeof(in), NULL), ==, VHCA_CMD_BAD_PARAM);
    in.db_page = 0;
    g_assert_cmpuint(dp_exec_in(dp, VHCA_CMD_RESIZE_CQ, cq.cqn, &in,
                                sizeof(in), NULL), ==, VHCA_CMD_OK);
    g_assert_cmpuint(dp_simple(dp, VHCA_CMD_DESTROY_CQ, cq.cqn, NULL), ==,
                     VHCA_CMD_BUSY);
    g_assert_cmpuint(dp_simple(dp, VHCA_CMD_DESTROY_QP, qp.h, NULL), ==,
                     VHCA_CMD_OK);
    g_assert_cmpuint(dp_exec_in(dp, VHCA_CMD_RESIZE_CQ, cq.cqn, &in,
                                sizeof(in), NULL), ==, VHCA_CMD_OK);
    g_assert_cmpuint(dp_exec_in(dp, VHCA_CMD_RESIZE_CQ, 999, &in,
                                sizeof(in), NULL), ==, VHCA_CMD_BAD_HANDLE);
    g_assert_cmpuint(dp_simple(dp, VHCA_CMD_DESTROY_CQ, cq.cqn, NULL), ==,
                     VHCA_CMD_OK);
    g_assert_cmpuint(dp_simple(dp, VHCA_CMD_DESTROY_CQ, cq.cqn, NULL), ==,
                     VHCA_CMD_BAD_HANDLE);
    g_assert_cmpuint(dp_simple(dp, VHCA_CMD_DESTROY_CQ, 0xffffff, NULL), ==,
                     VHCA_CMD_BAD_HANDLE);
    /* An EQ is BUSY while a CQ reports to it. */
    g_assert_cmpuint(dp_simple(dp, VHCA_CMD_DESTROY_EQ, dp->eqn, NULL), ==,
                     VHCA_CMD_BUSY);
    /* Doorbells for unknown CQs or another page are ignored. */
    dp_db64(dp->v, 0, VHCA_DB_CQ, vhca_db_data_value(cq.cqn, 1u << 24, 0));
    dp_db64(dp->v, 3, VHCA_DB_CQ, vhca_db_data_value(cq2.cqn, 1u << 24, 0));
    dp_stop(dp);
}

static void test_dp_qp_commands(void)
{
    Dp *dp = dp_start();
    struct vhca_qp_context ctx;
    DpQp qp, gsi1, gsi2, smi2, bad;
    DpCq cq;

    dp_create_cq(dp, &cq, DP_CQ_LOG);
    dp_create_qp(dp, &qp, VHCA_QPT_RC, &cq, &cq);
    g_assert_cmpuint(qp.h, >=, 2);
    /* Special QPs: per port, QPN 0/1 with distinct handles. */
    g_assert_cmpuint(dp_create_qp_full(dp, &gsi1, VHCA_QPT_GSI, 1, &cq, &cq,
                                       dp->pd), ==, VHCA_CMD_OK);
    g_assert_cmphex(gsi1.h, ==, VHCA_SPECIAL_QP_HANDLE(1, 1));
    g_assert_cmpuint(dp_create_qp_full(dp, &gsi2, VHCA_QPT_GSI, 2, &cq, &cq,
                                       dp->pd), ==, VHCA_CMD_OK);
    g_assert_cmphex(gsi2.h, ==, VHCA_SPECIAL_QP_HANDLE(2, 1));
    g_assert_cmpuint(dp_create_qp_full(dp, &smi2, VHCA_QPT_SMI, 2, &cq, &cq,
                                       dp->pd), ==, VHCA_CMD_OK);
    g_assert_cmphex(smi2.h, ==, VHCA_SPECIAL_QP_HANDLE(2, 0));
    g_assert_cmpuint(dp_create_qp_full(dp, &bad, VHCA_QPT_GSI, 1, &cq, &cq,
                                       dp->pd), ==, VHCA_CMD_BUSY);
    g_assert_cmpuint(dp_create_qp_full(dp, &bad, VHCA_QPT_GSI, 3, &cq, &cq,
                                       dp->pd), ==, VHCA_CMD_BAD_PARAM);
    g_assert_cmpuint(dp_create_qp_full(dp, &bad, VHCA_QPT_RC, 1, &cq, &cq,
                                       dp->pd), ==, VHCA_CMD_BAD_PARAM);
    g_assert_cmpuint(dp_create_qp_full(dp, &bad, 9, 0, &cq, &cq, dp->pd), ==,
                     VHCA_CMD_BAD_PARAM);
    g_assert_cmpuint(dp_create_qp_full(dp, &bad, VHCA_QPT_RC, 0, &cq, &cq,
                                       dp->pd + 1), ==, VHCA_CMD_BAD_HANDLE);
    cq.cqn += 100;
    g_assert_cmpuint(dp_create_qp_full(dp, &bad, VHCA_QPT_RC, 0, &cq, &cq,
                                       dp->pd), ==, VHCA_CMD_BAD_HANDLE);
    cq.cqn -= 100;

    /* The state machine: illegal transitions and attribute sets. */
    g_assert_cmpuint(dp_set_state(dp, &qp, VHCA_QPS_RTR), ==,
                     VHCA_CMD_BAD_STATE);
    g_assert_cmpuint(dp_set_state(dp, &qp, VHCA_QPS_ERR), ==,
                     VHCA_CMD_BAD_STATE);
    /* pkey_index and access flags missing */
    dp_ctx(&ctx, VHCA_QPS_INIT, VHCA_QP_ATTR_PORT);
    ctx.port = 1;
    g_assert_cmpuint(dp_modify(dp, &qp, &ctx), ==, VHCA_CMD_BAD_STATE);
    dp_ctx(&ctx, VHCA_QPS_INIT, VHCA_QP_ATTR_PORT | VHCA_QP_ATTR_PKEY_INDEX |
           VHCA_QP_ATTR_ACCESS_FLAGS | VHCA_QP_ATTR_SQ_PSN);
    ctx.port = 1;
    g_assert_cmpuint(dp_modify(dp, &qp, &ctx), ==, VHCA_CMD_BAD_STATE);
    g_assert_cmpuint(dp_to_init(dp, &qp, 3, 0), ==, VHCA_CMD_BAD_PARAM);
    g_assert_cmpuint(dp_to_init(dp, &qp, 1, DP_ALL_ACCESS), ==, VHCA_CMD_OK);
    g_assert_cmpuint(dp_to_rts(dp, &qp, 7), ==, VHCA_CMD_BAD_STATE);
    g_assert_cmpuint(dp_to_rtr(dp, &qp, dp->lid[2], 0x1000000, 0), ==,
                     VHCA_CMD_BAD_PARAM);
    g_assert_cmpuint(dp_to_rtr(dp, &qp, dp->lid[2], 77, 12), ==, VHCA_CMD_OK);
    g_assert_cmpuint(dp_to_rts(dp, &qp, 7), ==, VHCA_CMD_OK);
    g_assert_cmpuint(dp_query_qp(dp, qp.h, &ctx), ==, VHCA_CMD_OK);
    g_assert_cmpuint(ctx.state, ==, VHCA_QPS_RTS);
    g_assert_cmpuint(ctx.port, ==, 1);
    g_assert_cmpuint(le32_to_cpu(ctx.dest_qpn), ==, 77);
    g_assert_cmphex(le32_to_cpu(ctx.sq_psn), ==, 0x100);
    g_assert_cmphex(le32_to_cpu(ctx.rq_psn), ==, 0x100);
    g_assert_cmpuint(ctx.min_rnr_timer, ==, 12);
    g_assert_cmpuint(ctx.rnr_retry, ==, 7);
    g_assert_cmpuint(le16_to_cpu(ctx.av.dlid), ==, dp->lid[2]);
    g_assert_cmphex(le32_to_cpu(ctx.access_flags), ==, DP_ALL_ACCESS);
    /* cur_state must be right; RTS -> SQD (drained event) -> RTS. */
    dp_ctx(&ctx, VHCA_QPS_RTS, VHCA_QP_ATTR_CUR_STATE);
    ctx.cur_state = VHCA_QPS_RTR;
    g_assert_cmpuint(dp_modify(dp, &qp, &ctx), ==, VHCA_CMD_BAD_STATE);
    dp_ctx(&ctx, VHCA_QPS_SQD, VHCA_QP_ATTR_EN_SQD_ASYNC_NOTIFY);
    ctx.en_sqd_async_notify = 1;
    g_assert_cmpuint(dp_modify(dp, &qp, &ctx), ==, VHCA_CMD_OK);
    g_assert_true(dp_take_event(dp, VHCA_EQE_QP_EVENT, VHCA_QP_EV_SQ_DRAINED,
                                qp.h));
    g_assert_cmpuint(dp_set_state(dp, &qp, VHCA_QPS_RTS), ==, VHCA_CMD_OK);
    g_assert_cmpuint(dp_set_state(dp, &qp, VHCA_QPS_INIT), ==,
                     VHCA_CMD_BAD_STATE);
    g_assert_cmpuint(dp_set_state(dp, &qp, VHCA_QPS_ERR), ==, VHCA_CMD_OK);
    g_assert_cmpuint(dp_set_state(dp, &qp, VHCA_QPS_RTS), ==,
                     VHCA_CMD_BAD_STATE);
    g_assert_cmpuint(dp_set_state(dp, &qp, VHCA_QPS_RESET), ==, VHCA_CMD_OK);
    g_assert_cmpuint(dp_query_qp(dp, qp.h, &ctx), ==, VHCA_CMD_OK);
    g_assert_cmpuint(ctx.state, ==, VHCA_QPS_RESET);
    /* Special QPs: RESET -> INIT takes pkey and qkey, no port. */
    dp_ctx(&ctx, VHCA_QPS_INIT, VHCA_QP_ATTR_PKEY_INDEX | VHCA_QP_ATTR_QKEY);
    g_assert_cmpuint(dp_modify(dp, &gsi2, &ctx), ==, VHCA_CMD_OK);
    g_assert_cmpuint(dp_query_qp(dp, gsi2.h, &ctx), ==, VHCA_CMD_OK);
    g_assert_cmpuint(ctx.port, ==, 2);

    g_assert_cmpuint(dp_simple(dp, VHCA_CMD_DESTROY_QP, qp.h, NULL), ==,
                     VHCA_CMD_OK);
    g_assert_cmpuint(dp_simple(dp, VHCA_CMD_DESTROY_QP, qp.h, NULL), ==,
                     VHCA_CMD_BAD_HANDLE);
    g_assert_cmpuint(dp_query_qp(dp, qp.h, &ctx), ==, VHCA_CMD_BAD_HANDLE);
    g_assert_cmpuint(dp_simple(dp, VHCA_CMD_DESTROY_QP, 0x7fffff, NULL), ==,
                     VHCA_CMD_BAD_HANDLE);
    g_assert_cmpuint(dp_set_state(dp, &qp, VHCA_QPS_INIT), ==,
                     VHCA_CMD_BAD_HANDLE);
    /* The special QPs still use the PD. */
    g_assert_cmpuint(dp_simple(dp, VHCA_CMD_DEALLOC_PD, dp->pd, NULL), ==,
                     VHCA_CMD_BUSY);
    dp_stop(dp);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    qtest_add_func("/vhca/dp/limits", test_dp_limits);
    qtest_add_func("/vhca/dp/clock", test_dp_clock);
    qtest_add_func("/vhca/dp/mr-commands", test_dp_mr_commands);
    qtest_add_func("/vhca/dp/cq-commands", test_dp_cq_commands);
    qtest_add_func("/vhca/dp/qp-commands", test_dp_qp_commands);
    return g_test_run();
}
