/*
 * qtest helpers: SMPs sent from port 1's SMI QP (QP0) and their answers,
 * for the tests of the SMA, the switch and the SM (vhca-sma-test.c,
 * vhca-switch-test.c, vhca-sm-off-test.c ...).  Declared with the data
 * path helpers in vhca-qtest-dp.h (SwRig).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "vhca-qtest-dp.h"

#define SW_TID          0x5357000000000000ull

/* An SMI QP on port of dp, and buffers. */
void sw_start_port(SwRig *r, Dp *dp, uint8_t port)
{
    memset(r, 0, sizeof(*r));
    r->dp = dp;
    dp_mem(r->dp, &r->m, DP_ALL_ACCESS);
    dp_create_cq(r->dp, &r->cq, DP_CQ_LOG);
    dp_special(r->dp, &r->smi, &r->cq, VHCA_QPT_SMI, port);
    r->tid = SW_TID;
}

void sw_start_on(SwRig *r, Dp *dp)
{
    sw_start_port(r, dp, 1);
}

void sw_start(SwRig *r)
{
    sw_start_on(r, dp_start());
}

/* An SMP Get; for directed route (path != NULL) hops out of path. */
void sw_req(SwRig *r, uint16_t attr, uint32_t mod, const uint8_t *path,
            uint8_t hops, uint8_t *req)
{
    memset(req, 0, 256);
    req[0] = 1;
    req[1] = path ? 0x81 : 0x01;
    req[2] = 1;
    req[3] = 0x01;
    stq_be_p(req + 8, ++r->tid);
    stw_be_p(req + 16, attr);
    stl_be_p(req + 20, mod);
    if (path) {
        req[DR_HOP_PTR] = 1;
        req[DR_HOP_CNT] = hops;
        stw_be_p(req + DR_SLID, 0xffff);
        stw_be_p(req + DR_DLID, 0xffff);
        memcpy(req + DR_INITIAL_PATH + 1, path, hops);
    }
}

/* Send req to dlid from QP0 (LID-routed, or directed when dlid is the
 * permissive LID); what came back (true) or nothing (false) in resp, its
 * SLID the permissive LID when req is directed-route (req[1] 0x81). */
static bool sw_exchange(SwRig *r, const uint8_t *req, uint16_t dlid,
                        uint8_t *resp)
{
    Dp *dp = r->dp;
    struct vhca_cqe cqe;

    qtest_memwrite(dp->v->qts, r->m.a, req, 256);
    dp_post_recv(dp, &r->smi, 0x100, r->m.b, 40 + 256, r->m.bkey, 0, 0);
    dp_ud_send(dp, &r->smi, 0x200, dlid, 0, 0, false, r->m.a, 256,
               r->m.akey);
    dp_expect_cqe(dp, &r->cq, &cqe, VHCA_WC_SUCCESS);
    g_assert_cmpuint(cqe.opcode, ==, VHCA_CQE_SEND);
    if (!dp_poll_cq(dp, &r->cq, &cqe)) {
        return false;
    }
    g_assert_cmpuint(cqe.status, ==, VHCA_WC_SUCCESS);
    g_assert_cmpuint(cqe.opcode, ==, VHCA_CQE_RECV);
    g_assert_cmpuint(le32_to_cpu(cqe.src_qp), ==, 0);
    g_assert_cmpuint(le16_to_cpu(cqe.slid), ==, req[1] == 0x81 ? 0xffff
                                                               : dlid);
    qtest_memread(dp->v->qts, r->m.b + 40, resp, 256);
    return true;
}

/* Send req to dlid; the answer (true) or nothing (false) in resp. */
bool sw_send(SwRig *r, const uint8_t *req, uint16_t dlid, uint8_t *resp)
{
    if (!sw_exchange(r, req, dlid, resp)) {
        return false;
    }
    g_assert_cmphex(resp[3], ==, 0x81);
    g_assert_cmphex(ldq_be_p(resp + 8), ==, r->tid);
    return true;
}

/* A Get by directed route (path) or to dlid (path NULL): the answer
 * (true) or nothing (false) in resp. */
bool sw_get(SwRig *r, uint16_t attr, uint32_t mod, const uint8_t *path,
            uint8_t hops, uint16_t dlid, uint8_t *resp)
{
    uint8_t req[256];

    sw_req(r, attr, mod, path, hops, req);
    return sw_send(r, req, path ? 0xffff : dlid, resp);
}

/* A Set of attr/mod to the 64 bytes of data, by directed route (path) or
 * to dlid (path NULL): the answer in resp, its MAD status without the
 * directed route's D bit. */
uint16_t sw_set(SwRig *r, uint16_t attr, uint32_t mod, const uint8_t *path,
                uint8_t hops, uint16_t dlid, const uint8_t *data,
                uint8_t *resp)
{
    uint8_t req[256];

    sw_req(r, attr, mod, path, hops, req);
    req[3] = 0x02;                                      /* Set */
    memcpy(req + 64, data, 64);
    g_assert_true(sw_send(r, req, path ? 0xffff : dlid, resp));
    return lduw_be_p(resp + 4) & 0x7fff;
}

/*
 * A Trap(Notice) of trap number num with tid, as an SMA or an SM sends it
 * to its master SM (IBA 13.4.9): LID-routed to dlid, or by directed route
 * to the switch (dr: hop 1 out of port path_port).  The trap in req; what
 * came back on the QP (true) in resp, its SLID checked.
 */
bool sw_trap(SwRig *r, uint16_t num, uint64_t tid, uint16_t dlid, bool dr,
             uint8_t path_port, uint8_t *req, uint8_t *resp)
{
    Dp *dp = r->dp;
    int i;

    sw_req(r, 0x0002, 0, dr ? &path_port : NULL, 1, req);  /* Notice */
    req[3] = 0x05;                                      /* Trap */
    stq_be_p(req + 8, tid);
    req[64] = 0x80 | 4;                         /* generic, informational */
    req[67] = 1;                                        /* producer: CA */
    stw_be_p(req + 68, num);                            /* TrapNumber */
    stw_be_p(req + 70, dp->lid[1]);                     /* IssuerLID */
    for (i = 10; i < 64; i++) {
        req[64 + i] = i;                        /* DataDetails: echoed */
    }
    return sw_exchange(r, req, dr ? 0xffff : dlid, resp);
}
