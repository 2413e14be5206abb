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
    vhca_mad_init(req, path ? VHCA_MGMT_CLASS_SUBN_DR
                            : VHCA_MGMT_CLASS_SUBN_LID,
                  1, VHCA_MGMT_METHOD_GET, ++r->tid, attr);
    stl_be_p(req + VHCA_SMP(attr_mod), mod);
    if (path) {
        req[VHCA_SMP(hop_ptr)] = 1;
        req[VHCA_SMP(hop_cnt)] = hops;
        stw_be_p(req + VHCA_SMP(dr_slid), VHCA_LID_PERMISSIVE);
        stw_be_p(req + VHCA_SMP(dr_dlid), VHCA_LID_PERMISSIVE);
        memcpy(req + VHCA_SMP(initial_path) + 1, path, hops);
    }
}

/* Send req to dlid from QP0 (LID-routed, or directed when dlid is the
 * permissive LID); what came back (true) or nothing (false) in resp, its
 * SLID the permissive LID when req is directed-route. */
static bool sw_exchange(SwRig *r, const uint8_t *req, uint16_t dlid,
                        uint8_t *resp)
{
    Dp *dp = r->dp;
    struct vhca_cqe cqe;

    qtest_memwrite(dp->v->qts, r->m.a, req, VHCA_MAD_SIZE);
    dp_post_recv(dp, &r->smi, 0x100, r->m.b, VHCA_GRH_SIZE + VHCA_MAD_SIZE,
                 r->m.bkey, 0, 0);
    dp_ud_send(dp, &r->smi, 0x200, dlid, 0, 0, false, r->m.a, VHCA_MAD_SIZE,
               r->m.akey);
    dp_expect_cqe(dp, &r->cq, &cqe, VHCA_WC_SUCCESS);
    g_assert_cmpuint(cqe.opcode, ==, VHCA_CQE_SEND);
    if (!dp_poll_cq(dp, &r->cq, &cqe)) {
        return false;
    }
    g_assert_cmpuint(cqe.status, ==, VHCA_WC_SUCCESS);
    g_assert_cmpuint(cqe.opcode, ==, VHCA_CQE_RECV);
    g_assert_cmpuint(le32_to_cpu(cqe.src_qp), ==, 0);
    g_assert_cmpuint(le16_to_cpu(cqe.slid), ==,
                     vhca_mad_class(req) == VHCA_MGMT_CLASS_SUBN_DR ?
                     VHCA_LID_PERMISSIVE : dlid);
    qtest_memread(dp->v->qts, r->m.b + VHCA_GRH_SIZE, resp, VHCA_MAD_SIZE);
    return true;
}

/* Send req to dlid; the answer (true) or nothing (false) in resp. */
bool sw_send(SwRig *r, const uint8_t *req, uint16_t dlid, uint8_t *resp)
{
    if (!sw_exchange(r, req, dlid, resp)) {
        return false;
    }
    g_assert_cmphex(vhca_mad_method(resp), ==, VHCA_MGMT_METHOD_GET_RESP);
    g_assert_cmphex(vhca_mad_tid(resp), ==, r->tid);
    return true;
}

/* A Get by directed route (path) or to dlid (path NULL): the answer
 * (true) or nothing (false) in resp. */
bool sw_get(SwRig *r, uint16_t attr, uint32_t mod, const uint8_t *path,
            uint8_t hops, uint16_t dlid, uint8_t *resp)
{
    uint8_t req[VHCA_MAD_SIZE];

    sw_req(r, attr, mod, path, hops, req);
    return sw_send(r, req, path ? VHCA_LID_PERMISSIVE : dlid, resp);
}

/* A Set of attr/mod to the 64 bytes of data, by directed route (path) or
 * to dlid (path NULL): the answer in resp, its MAD status without the
 * directed route's D bit. */
uint16_t sw_set(SwRig *r, uint16_t attr, uint32_t mod, const uint8_t *path,
                uint8_t hops, uint16_t dlid, const uint8_t *data,
                uint8_t *resp)
{
    uint8_t req[VHCA_MAD_SIZE];

    sw_req(r, attr, mod, path, hops, req);
    req[VHCA_SMP(method)] = VHCA_MGMT_METHOD_SET;
    memcpy(req + VHCA_SMP_DATA_OFF, data, VHCA_SMP_DATA_SIZE);
    g_assert_true(sw_send(r, req, path ? VHCA_LID_PERMISSIVE : dlid, resp));
    return vhca_mad_status(resp) & ~VHCA_SMP_DIRECTION;
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
    uint8_t *d = req + VHCA_SMP_DATA_OFF;
    int i;

    sw_req(r, VHCA_SMP_ATTR_NOTICE, 0, dr ? &path_port : NULL, 1, req);
    req[VHCA_SMP(method)] = VHCA_MGMT_METHOD_TRAP;
    stq_be_p(req + VHCA_SMP(tid), tid);
    d[VHCA_NOTICE(generic_type)] = VHCA_NOTICE_GENERIC | VHCA_TRAP_TYPE_INFO;
    d[VHCA_NOTICE(producer_type) + 2] = VHCA_TRAP_PRODUCER_CA;
    stw_be_p(d + VHCA_NOTICE(trap_number), num);
    stw_be_p(d + VHCA_NOTICE(issuer_lid), dp->lid[1]);
    for (i = VHCA_NOTICE(details); i < VHCA_SMP_DATA_SIZE; i++) {
        d[i] = i;                               /* DataDetails: echoed */
    }
    return sw_exchange(r, req, dr ? VHCA_LID_PERMISSIVE : dlid, resp);
}
