/*
 * qtest helpers: SubnAdm MADs sent from the GSI QPs of ports 1 and 2 to
 * the fabric SM's SA (LID 1, QPN 1) and their answers, for the tests of
 * the SA and of the SMs (vhca-sa-test.c, vhca-sm-arb-test.c).  Declared
 * with the data path helpers in vhca-qtest-dp.h (SaRig).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "vhca-qtest-dp.h"

#define SA_TID          0x0102030405060000ull
#define SA_QP1_QKEY     0x80010000u

/* GSI QPs on ports 1 and 2 of dp, and buffers. */
void sa_start_on(SaRig *r, Dp *dp)
{
    memset(r, 0, sizeof(*r));
    r->dp = dp;
    dp_mem(r->dp, &r->m, DP_ALL_ACCESS);
    dp_create_cq(r->dp, &r->cq, DP_CQ_LOG);
    dp_special(r->dp, &r->gsi[1], &r->cq, VHCA_QPT_GSI, 1);
    dp_special(r->dp, &r->gsi[2], &r->cq, VHCA_QPT_GSI, 2);
    r->tid = SA_TID;
}

void sa_start(SaRig *r)
{
    sa_start_on(r, dp_start());
}

/* A SubnAdm MAD: header, then rec (reclen bytes) as its data. */
void sa_mad(SaRig *r, uint8_t method, uint16_t attr, uint64_t mask,
            const uint8_t *rec, size_t reclen, uint8_t *mad)
{
    vhca_mad_init(mad, VHCA_MGMT_CLASS_SUBN_ADM, VHCA_SA_CLASS_VERSION,
                  method, ++r->tid, attr);
    stq_be_p(mad + VHCA_MAD_OFF(vhca_sa_mad, comp_mask), mask);
    if (rec) {
        memcpy(mad + VHCA_SA_HDR_SIZE, rec, reclen);
    }
}

/* Send the MAD at mad (len bytes of it) from port's GSI QP to the SA; the
 * send is ok. */
void sa_send(SaRig *r, int port, const uint8_t *mad, uint32_t len)
{
    Dp *dp = r->dp;
    struct vhca_cqe cqe;

    qtest_memwrite(dp->v->qts, r->m.a, mad, VHCA_MAD_SIZE);
    dp_ud_send(dp, &r->gsi[port], 0x200 + r->wr_id, VHCA_WIRE_SM_LID,
               VHCA_SA_QPN, SA_QP1_QKEY,
               false, r->m.a, len, r->m.akey);
    dp_expect_cqe(dp, &r->cq, &cqe, VHCA_WC_SUCCESS);
    g_assert_cmphex(le64_to_cpu(cqe.wr_id), ==, 0x200 + r->wr_id);
    g_assert_cmpuint(cqe.opcode, ==, VHCA_CQE_SEND);
    r->wr_id++;
}

void sa_post_recvs(SaRig *r, int port, int n)
{
    int i;

    for (i = 0; i < n; i++) {
        dp_post_recv(r->dp, &r->gsi[port], 0x100 + i,
                     r->m.b + i * SA_RECV_SLOT, VHCA_GRH_SIZE + VHCA_MAD_SIZE,
                     r->m.bkey, 0, 0);
    }
}

/* The next answer on port's GSI QP (receive slot i), from SLID 1, QPN 1. */
void sa_answer(SaRig *r, int port, int i, uint8_t *resp)
{
    Dp *dp = r->dp;
    struct vhca_cqe cqe;

    dp_expect_cqe(dp, &r->cq, &cqe, VHCA_WC_SUCCESS);
    g_assert_cmphex(le64_to_cpu(cqe.wr_id), ==, 0x100 + i);
    g_assert_cmpuint(cqe.opcode, ==, VHCA_CQE_RECV);
    g_assert_cmphex(le32_to_cpu(cqe.qpn), ==, r->gsi[port].h);
    g_assert_cmpuint(le32_to_cpu(cqe.src_qp), ==, VHCA_SA_QPN);
    g_assert_cmpuint(le16_to_cpu(cqe.slid), ==, VHCA_WIRE_SM_LID);
    g_assert_cmpuint(le32_to_cpu(cqe.byte_len), ==,
                     VHCA_GRH_SIZE + VHCA_MAD_SIZE);
    qtest_memread(dp->v->qts, r->m.b + i * SA_RECV_SLOT + VHCA_GRH_SIZE, resp,
                  VHCA_MAD_SIZE);
    g_assert_cmpuint(resp[VHCA_MAD(base_version)], ==, 1);
    g_assert_cmpuint(vhca_mad_class(resp), ==, VHCA_MGMT_CLASS_SUBN_ADM);
}

/* One request from port 1, one answer: its status. */
uint16_t sa_query(SaRig *r, uint8_t method, uint16_t attr, uint64_t mask,
                  const uint8_t *rec, size_t reclen, uint8_t *resp)
{
    uint8_t mad[VHCA_MAD_SIZE];

    sa_mad(r, method, attr, mask, rec, reclen, mad);
    sa_post_recvs(r, 1, 1);
    sa_send(r, 1, mad, VHCA_MAD_SIZE);
    sa_answer(r, 1, 0, resp);
    dp_expect_no_cqe(r->dp, &r->cq);
    g_assert_cmpuint(resp[VHCA_MAD(class_version)], ==, VHCA_SA_CLASS_VERSION);
    g_assert_cmphex(vhca_mad_tid(resp), ==, r->tid);
    g_assert_cmphex(vhca_mad_attr(resp), ==, attr);
    return vhca_mad_status(resp);
}

void sa_port_gid(SaRig *r, int port, uint8_t *gid)
{
    struct vhca_port_attr pa;

    g_assert_cmpuint(vhca_query_port(r->dp->v, port, &pa), ==, VHCA_CMD_OK);
    stq_be_p(gid, VHCA_GID_PREFIX_DEFAULT);
    stq_be_p(gid + 8, le64_to_cpu(pa.port_guid));
}
